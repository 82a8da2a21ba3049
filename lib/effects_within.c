/*
 * Effects within the levels of the conditions (docs/analysis.md,
 * "Conditions: compared within"): a condition is a load level (copies,
 * make -j, vCPUs), so a factor's effect is measured at each level of the
 * conditions apart, as mmtests compares kernels at each thread count,
 * and tested for being the same at every level.
 *
 * A level of the conditions is a combination of the conditions' levels
 * that the design ran (a stratum).  Within stratum s, the main effect of
 * factor F at its level L is the mean of the stratum's cells with F at L
 * less the mean of those with F at its first level (log scale): with two
 * levels, the change from the first to the second.  Its variance is the
 * residual variance times the contrast's factor (the caller's: the cells'
 * boots, or the host fit's), its interval and p from Student's t.  The
 * test that it is the same at every level compares each stratum's
 * estimate with the first stratum's (a difference of differences, the
 * interaction F=L:condition), t-tested; its p is the smallest of those
 * p, times their number (Bonferroni), so one test per effect.  Called by
 * lib/effects.c; calls nothing of the module back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "effects.h"
#include "effects_int.h"
#include "design.h"
#include "mem.h"
#include "stats.h"
#include "banned.h"

/* The strata of the design's runs: @st[r] the stratum of run r, the
 * strata numbered in the order of their first run; returns how many. */
static size_t strata(const struct kb_matrix *m, const struct kb_design *d,
		     size_t runs, size_t *st, size_t *first)
{
	size_t nf = kb_matrix_nfactors(m), r, q, f, ns = 0;

	for (r = 0; r < runs; r++) {
		for (q = 0; q < ns; q++) {
			for (f = 0; f < nf; f++)
				if (kb_matrix_factor(m, f)->condition &&
				    kb_design_level(d, r, f) !=
					    kb_design_level(d, first[q], f))
					break;
			if (f == nf)
				break;
		}
		if (q == ns)
			first[ns++] = r;
		st[r] = q;
	}
	return ns;
}

/* The conditions' levels of run @r as a label spells them. */
static void stratum_text(const struct kb_matrix *m, const struct kb_design *d,
			 size_t r, char *buf, size_t size)
{
	size_t nf = kb_matrix_nfactors(m), f, len = 0;

	buf[0] = '\0';
	for (f = 0; f < nf && len < size; f++) {
		const struct kb_factor *x = kb_matrix_factor(m, f);
		int w;

		if (!x->condition)
			continue;
		w = snprintf(buf + len, size - len, "%s%s=%s", len ? " " : "",
			     x->name, x->levels[kb_design_level(d, r, f)].value);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* The weights of factor @f's level @l against its first in stratum @s
 * into @wt; 0 when the stratum lacks either. */
static int weights(const struct kb_design *d, size_t runs, const size_t *st,
		   size_t s, size_t f, size_t l, double *wt)
{
	size_t r, nl = 0, n0 = 0;

	memset(wt, 0, runs * sizeof(*wt));
	for (r = 0; r < runs; r++) {
		if (st[r] != s)
			continue;
		nl += kb_design_level(d, r, f) == l;
		n0 += kb_design_level(d, r, f) == 0;
	}
	if (!nl || !n0)
		return 0;
	for (r = 0; r < runs; r++) {
		if (st[r] != s)
			continue;
		if (kb_design_level(d, r, f) == l)
			wt[r] = 1.0 / (double)nl;
		else if (kb_design_level(d, r, f) == 0)
			wt[r] = -1.0 / (double)n0;
	}
	return 1;
}

/* Estimate contrast @wt into @x: the estimate, interval, p. */
static void estimate(const struct kb_effects__cells *c, const double *wt,
		     struct kb_effect *x)
{
	double alpha = kb_analysis_opts(c->a)->alpha, sum = 0, se, t, q;
	size_t r;

	for (r = 0; r < c->runs; r++)
		sum += wt[r] * c->cell[r];
	se = sqrt(c->var * c->factor(c->arg, wt));
	q = kb_stats_t_quantile(1 - alpha / 2, c->df);
	x->log_effect = sum;
	x->log_ci_low = sum - q * se;
	x->log_ci_high = sum + q * se;
	t = se > 0 ? fabs(sum) / se : INFINITY;
	x->p = 2 * kb_stats_t_cdf(-t, c->df);
	x->change_pct = (exp(sum) - 1) * 100;
	x->ci_low_pct = (exp(x->log_ci_low) - 1) * 100;
	x->ci_high_pct = (exp(x->log_ci_high) - 1) * 100;
}

void kb_effects__within(const struct kb_effects__cells *c,
			struct kb_effect **out, size_t *n)
{
	const struct kb_plan *p = kb_analysis_plan(c->a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	size_t nf = kb_matrix_nfactors(m), runs = c->runs, f, l, s, ns;
	size_t cap = 0, ne = 0, *st, *first;
	double *wt, *w0, *dw;
	struct kb_effect *e;

	*out = NULL;
	*n = 0;
	if (!kb_matrix_nconditions(m) || !runs)
		return;
	st = kb_calloc(runs, sizeof(*st));
	first = kb_calloc(runs, sizeof(*first));
	wt = kb_calloc(runs, sizeof(*wt));
	w0 = kb_calloc(runs, sizeof(*w0));
	dw = kb_calloc(runs, sizeof(*dw));
	ns = strata(m, d, runs, st, first);
	for (f = 0; f < nf; f++)
		if (!kb_matrix_factor(m, f)->condition)
			cap += (kb_matrix_factor(m, f)->nlevels - 1) * (ns + 1);
	e = kb_calloc(cap ? cap : 1, sizeof(*e));
	for (f = 0; f < nf; f++) {
		const struct kb_factor *x = kb_matrix_factor(m, f);

		if (x->condition)
			continue;
		for (l = 1; l < x->nlevels; l++) {
			struct kb_effect test, best;
			const char *ref = NULL; /* the first level estimated */
			size_t ntest = 0, r;

			memset(&best, 0, sizeof(best));
			for (s = 0; s < ns; s++) {
				struct kb_effect *y = &e[ne];

				if (!weights(d, runs, st, s, f, l, wt))
					continue;
				ne++;
				if (c->levels)
					snprintf(y->name, sizeof(y->name),
						 "%s=%s", x->name,
						 x->levels[l].value);
				else
					snprintf(y->name, sizeof(y->name),
						 "%s", x->name);
				y->f1 = y->f2 = f;
				stratum_text(m, d, first[s], y->within,
					     sizeof(y->within));
				estimate(c, wt, y);
				if (!ref) {
					ref = y->within;
					memcpy(w0, wt, runs * sizeof(*w0));
					continue;
				}
				/* the same at this level as at the first? */
				for (r = 0; r < runs; r++)
					dw[r] = wt[r] - w0[r];
				memset(&test, 0, sizeof(test));
				estimate(c, dw, &test);
				if (snprintf(test.within, sizeof(test.within),
					     "%s vs %s", y->within, ref) < 0)
					test.within[0] = '?';
				if (!ntest++ || test.p < best.p)
					best = test;
			}
			if (ntest) {
				struct kb_effect *y = &e[ne++];

				*y = best;
				memcpy(y->name, e[ne - 2].name, sizeof(y->name));
				y->f1 = y->f2 = f;
				y->depends = 1;
				y->p = fmin(1, best.p * (double)ntest);
			}
		}
	}
	free(st);
	free(first);
	free(wt);
	free(w0);
	free(dw);
	*out = e;
	*n = ne;
}
