/*
 * Effects of a full design whose factors may have more than two levels
 * (seed 002's 1, 2 and 4 copies), by treatment contrasts on the log
 * scale: a level's main effect is the mean of the cells at that level
 * minus the mean of the cells at the factor's first level (the
 * baseline's), over every level of the other factors; a two-way
 * interaction of level l of A and level k of B is the difference of
 * differences m(l,k) - m(l,0) - m(0,k) + m(0,0), each averaged over the
 * other factors.  So "copies=4" is how much slower four copies are than
 * one, on average over the pinnings, and "pin=0,0,0,0:copies=4" how
 * much pinning changes that.  Standard errors from the pooled
 * within-variant variance, each contrast's weights and each cell's
 * boots; intervals and p-values from Student's t.  The caller,
 * lib/effects.c, adjusts the family (Holm) and ranks it: this file calls
 * nothing of the module back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "effects.h"
#include "effects_int.h"
#include "design.h"
#include "err.h"
#include "mem.h"
#include "stats.h"
#include "banned.h"

/* Add weight @w to the cells of run set {runs with factor f at level l
 * (and, when @g is a factor, g at level k)}, shared out over them. */
static void weigh(const struct kb_design *d, size_t f, size_t l, size_t g,
		  size_t k, double w, double *wt)
{
	size_t r, runs = kb_design_nruns(d), n = 0;

	for (r = 0; r < runs; r++)
		if (kb_design_level(d, r, f) == l &&
		    (g == (size_t)-1 || kb_design_level(d, r, g) == k))
			n++;
	for (r = 0; n && r < runs; r++)
		if (kb_design_level(d, r, f) == l &&
		    (g == (size_t)-1 || kb_design_level(d, r, g) == k))
			wt[r] += w / (double)n;
}

/* Estimate the contrast with weights @wt into @x. */
static void estimate(struct kb_effect *x, const double *wt, const double *cell,
		     const size_t *ncell, size_t runs, double var, double df,
		     double alpha)
{
	double sum = 0, v = 0, se, t, q;
	size_t r;

	for (r = 0; r < runs; r++) {
		sum += wt[r] * cell[r];
		v += wt[r] * wt[r] / (double)ncell[r];
	}
	se = sqrt(var * v);
	q = kb_stats_t_quantile(1 - alpha / 2, df);
	x->log_effect = sum;
	x->log_ci_low = sum - q * se;
	x->log_ci_high = sum + q * se;
	t = se > 0 ? fabs(sum) / se : INFINITY;
	x->p = 2 * kb_stats_t_cdf(-t, df);
	x->change_pct = (exp(sum) - 1) * 100;
	x->ci_low_pct = (exp(x->log_ci_low) - 1) * 100;
	x->ci_high_pct = (exp(x->log_ci_high) - 1) * 100;
}

int kb_effects__levels(const struct kb_analysis *a, const double *cell,
		       const size_t *ncell, double var, double df,
		       struct kb_effect **out, size_t *n, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	size_t nf = kb_matrix_nfactors(m), runs = kb_design_nruns(d);
	double alpha = kb_analysis_opts(a)->alpha, *wt;
	size_t i, j, l, k, ne = 0, cap = 0;
	struct kb_effect *e = NULL;

	(void)err;
	for (i = 0; i < nf; i++) {
		size_t li = kb_matrix_factor(m, i)->nlevels - 1;

		cap += li;
		for (j = i + 1; j < nf; j++)
			cap += li * (kb_matrix_factor(m, j)->nlevels - 1);
	}
	e = kb_calloc(cap ? cap : 1, sizeof(*e));
	wt = kb_calloc(runs, sizeof(*wt));
	for (i = 0; i < nf; i++) {
		const struct kb_factor *fi = kb_matrix_factor(m, i);

		/* a condition is no cause, nor are its interactions: they
		 * are estimated within its levels (lib/effects_within.c) */
		if (fi->condition)
			continue;
		for (l = 1; l < fi->nlevels; l++) {
			struct kb_effect *x = &e[ne++];

			memset(wt, 0, runs * sizeof(*wt));
			weigh(d, i, l, (size_t)-1, 0, 1, wt);
			weigh(d, i, 0, (size_t)-1, 0, -1, wt);
			snprintf(x->name, sizeof(x->name), "%s=%s", fi->name,
				 fi->levels[l].value);
			x->f1 = x->f2 = i;
			estimate(x, wt, cell, ncell, runs, var, df, alpha);
		}
		for (j = i + 1; j < nf; j++) {
			const struct kb_factor *fj = kb_matrix_factor(m, j);

			if (fj->condition)
				continue;
			for (l = 1; l < fi->nlevels; l++)
				for (k = 1; k < fj->nlevels; k++) {
					struct kb_effect *x = &e[ne++];

					memset(wt, 0, runs * sizeof(*wt));
					weigh(d, i, l, j, k, 1, wt);
					weigh(d, i, l, j, 0, -1, wt);
					weigh(d, i, 0, j, k, -1, wt);
					weigh(d, i, 0, j, 0, 1, wt);
					snprintf(x->name, sizeof(x->name),
						 "%s=%s:%s=%s", fi->name,
						 fi->levels[l].value, fj->name,
						 fj->levels[k].value);
					x->interaction = 1;
					x->f1 = i;
					x->f2 = j;
					estimate(x, wt, cell, ncell, runs, var,
						 df, alpha);
				}
		}
	}
	free(wt);
	*out = e;
	*n = ne;
	return 0;
}
