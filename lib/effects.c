#include "effects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "effects_int.h"
#include "err.h"
#include "mem.h"
#include "stats.h"
#include "banned.h"

/* The ±1 column of factor f (or the product of f1, f2) over the runs. */
static void column(const struct kb_design *d, size_t f1, size_t f2,
		   int interaction, int *col)
{
	size_t r, n = kb_design_nruns(d);

	for (r = 0; r < n; r++) {
		int s = kb_design_level(d, r, f1) ? 1 : -1;

		if (interaction)
			s *= kb_design_level(d, r, f2) ? 1 : -1;
		col[r] = s;
	}
}

/* Same column (1), the opposite one (-1), or neither (0)? */
static int aliased(const int *x, const int *y, size_t n)
{
	size_t r;
	int same = 1, opposite = 1;

	for (r = 0; r < n; r++) {
		same &= x[r] == y[r];
		opposite &= x[r] == -y[r];
	}
	return same ? 1 : opposite ? -1 : 0;
}

/* Add @name, opposite or not, to @e's aliases; "..." when full. */
static void add_alias_name(struct kb_effect *e, int sign, const char *n1,
			   const char *n2)
{
	size_t len = strlen(e->aliases), size = sizeof(e->aliases);
	int w;

	if (len >= 3 && !strcmp(e->aliases + len - 3, "..."))
		return;
	w = snprintf(e->aliases + len, size - len, "%s%s%s%s%s",
		     len ? ", " : "", sign < 0 ? "-" : "", n1, n2 ? ":" : "",
		     n2 ? n2 : "");
	if (w < 0 || (size_t)w >= size - len)
		memcpy(e->aliases + size - 4, "...", 4);
}

int kb_effects__by_size(const void *x, const void *y)
{
	double a = fabs(((const struct kb_effect *)x)->log_effect);
	double b = fabs(((const struct kb_effect *)y)->log_effect);

	return (a < b) - (a > b);
}

int kb_effects_estimate(const struct kb_analysis *a, struct kb_effect **out,
			size_t *n, double *resid_cv, double *df,
			struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	size_t nf = kb_matrix_nfactors(m), runs = kb_design_nruns(d);
	size_t ncand = nf + nf * (nf - (nf ? 1 : 0)) / 2, i, j, k, r;
	double *cell = NULL, *raw, var, alpha = kb_analysis_opts(a)->alpha;
	double sumw = 0;
	int **cols = NULL;
	struct kb_effect *e = NULL;
	size_t ne = 0;
	int pb = kb_matrix_design(m) == KB_DESIGN_PLACKETT_BURMAN;
	int levels = 0, ret = 0;
	size_t *ncell = NULL;

	*out = NULL;
	*n = 0;
	if (kb_matrix_design(m) == KB_DESIGN_ONE_AT_A_TIME)
		return kb_err_set(err, KB_EINPUT,
				  "effects need a full, fractional or plackett-burman design; this experiment is one-at-a-time (compare its variants with the baseline instead)");
	if (nf == 0)
		return kb_err_set(err, KB_EINPUT,
				  "the experiment has no factors: nothing has an effect");
	for (i = 0; i < nf; i++)
		if (kb_matrix_factor(m, i)->nlevels != 2)
			levels = 1;
	if (levels && kb_matrix_design(m) != KB_DESIGN_FULL)
		return kb_err_set(err, KB_EINPUT,
				  "effects of factors of more than two levels need a full design");
	kb_analysis_log_pooled(a, &var, df);
	if (isnan(var) || *df < 1)
		return kb_err_set(err, KB_EINPUT,
				  "effects need a variance: no variant has two boots with a value");
	*resid_cv = sqrt(exp(var) - 1) * 100;
	for (r = 0; r < runs; r++) {
		size_t bad = kb_analysis_nonpositive(a, (unsigned)r);

		if (bad)
			return kb_err_set(err, KB_EINPUT,
					  "variant #%zu has %zu boot%s with %s <= 0: effects are multiplicative (log scale) and cannot use %s",
					  r, bad, bad == 1 ? "" : "s",
					  kb_analysis_metric(a),
					  bad == 1 ? "it" : "them");
	}
	cell = kb_calloc(runs, sizeof(*cell));
	ncell = kb_calloc(runs, sizeof(*ncell));
	for (r = 0; r < runs; r++) {
		kb_analysis_log_cell(a, (unsigned)r, &cell[r], &ncell[r]);
		if (!ncell[r]) {
			ret = kb_err_set(err, KB_EINPUT,
					 "variant #%zu has no measurement of %s: effects need every variant (failed builds or boots leave holes)",
					 r, kb_analysis_metric(a));
			goto out;
		}
		sumw += 1.0 / (double)ncell[r];
	}
	if (levels) { /* lib/effects_levels.c */
		ret = kb_effects__levels(a, cell, ncell, var, *df, out, n, err);
		goto out;
	}
	cols = kb_calloc(ncand, sizeof(*cols));
	e = kb_calloc(ncand, sizeof(*e));
	for (i = 0; i < nf; i++) {
		/* a Plackett-Burman design cannot tell an interaction from the
		 * main effects it is partially aliased with: mains only */
		for (j = i; j < (pb ? i + 1 : nf); j++) {
			int inter = j != i, sign = 0;
			struct kb_effect *x;
			double sum = 0, se, t, q;
			int *col = kb_calloc(runs, sizeof(*col));

			column(d, i, j, inter, col);
			for (k = 0; k < ne; k++)
				if ((sign = aliased(cols[k], col, runs)))
					break;
			if (k < ne) {
				add_alias_name(&e[k], sign,
					       kb_matrix_factor(m, i)->name,
					       inter ? kb_matrix_factor(m, j)->name
						     : NULL);
				free(col);
				continue;
			}
			cols[ne] = col;
			x = &e[ne++];
			x->interaction = inter;
			x->f1 = i;
			x->f2 = j;
			snprintf(x->name, sizeof(x->name), "%s%s%s",
				 kb_matrix_factor(m, i)->name, inter ? ":" : "",
				 inter ? kb_matrix_factor(m, j)->name : "");
			if (pb) {
				struct kb_alias *al = NULL;

				x->npartial = kb_design_aliases(d, i, i, &al);
				free(al);
			}
			for (r = 0; r < runs; r++)
				sum += col[r] * cell[r];
			x->log_effect = 2 * sum / (double)runs;
			se = 2 / (double)runs * sqrt(var * sumw);
			q = kb_stats_t_quantile(1 - alpha / 2, *df);
			x->log_ci_low = x->log_effect - q * se;
			x->log_ci_high = x->log_effect + q * se;
			t = se > 0 ? fabs(x->log_effect) / se : INFINITY;
			x->p = 2 * kb_stats_t_cdf(-t, *df);
			x->change_pct = (exp(x->log_effect) - 1) * 100;
			x->ci_low_pct = (exp(x->log_ci_low) - 1) * 100;
			x->ci_high_pct = (exp(x->log_ci_high) - 1) * 100;
		}
	}
	/* one family: Holm over every effect estimated */
	raw = kb_calloc(ne ? ne : 1, sizeof(*raw));
	for (k = 0; k < ne; k++)
		raw[k] = e[k].p;
	kb_stats_p_adjust(raw, ne, KB_P_ADJUST_HOLM, raw);
	for (k = 0; k < ne; k++) {
		e[k].p_adjusted = raw[k];
		e[k].significant = e[k].p_adjusted < alpha;
	}
	free(raw);
	qsort(e, ne, sizeof(*e), kb_effects__by_size);
	*out = e;
	*n = ne;
	e = NULL;
out:
	for (k = 0; cols && k < ncand; k++)
		free(cols[k]);
	free(cols);
	free(cell);
	free(ncell);
	free(e);
	return ret;
}
