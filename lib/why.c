#include "why.h"

#include <math.h>
#include <string.h>

#include "err.h"
#include "matrix.h"
#include "stats.h"
#include "banned.h"

/* Is @c (X -> B) saying X is already as bad as B? */
static int as_bad(const struct kb_comparison *c)
{
	return c->verdict == KB_VERDICT_NO_CHANGE ||
	       c->verdict == KB_VERDICT_IMPROVEMENT;
}

/* Next k-subset of 0..n-1 in lexicographic order; 0 when done. */
static int next_subset(size_t *idx, size_t k, size_t n)
{
	size_t i = k;

	while (i > 0 && idx[i - 1] == n - k + i - 1)
		i--;
	if (i == 0)
		return 0;
	idx[i - 1]++;
	for (; i < k; i++)
		idx[i] = idx[i - 1] + 1;
	return 1;
}

/*
 * Does the culprit's effect (base -> base+f) differ at another level of
 * factor g?  Compared on the log scale with the pooled variance.
 */
static int interaction(struct kb_analysis *a, struct kb_why_culprit *cu,
		       unsigned base, unsigned with, size_t g,
		       const char *level, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	struct kb_why_interaction *in;
	size_t lv, n0, n1, n2, n3;
	double m0, m1, m2, m3, var, df, se, t;
	int b2 = -1, w2 = -1, ret;

	/* base and base+f with g at @level */
	for (lv = 0; lv < kb_plan_nvariants(p); lv++) {
		const struct kb_variant *v = kb_plan_variant(p, lv);
		const struct kb_variant *vb = kb_plan_variant(p, base);
		const struct kb_variant *vw = kb_plan_variant(p, with);
		size_t j;
		int is_b = 1, is_w = 1;

		for (j = 0; j < v->nsettings; j++) {
			const char *want_b = j == g ? level
					   : vb->settings[j].value;
			const char *want_w = j == g ? level
					   : vw->settings[j].value;

			is_b &= !strcmp(v->settings[j].value, want_b);
			is_w &= !strcmp(v->settings[j].value, want_w);
		}
		if (is_b)
			b2 = (int)lv;
		if (is_w)
			w2 = (int)lv;
	}
	if (b2 < 0 || w2 < 0 || cu->ninter >= KB_WHY_MAX)
		return 0; /* not measured by this design */
	in = &cu->inter[cu->ninter];
	memset(in, 0, sizeof(*in));
	in->factor = g;
	in->level = level;
	if ((ret = kb_analysis_compare(a, (unsigned)b2, (unsigned)w2, 1,
				       &in->c, err)))
		return ret;
	kb_analysis_log_cell(a, base, &m0, &n0);
	kb_analysis_log_cell(a, with, &m1, &n1);
	kb_analysis_log_cell(a, (unsigned)b2, &m2, &n2);
	kb_analysis_log_cell(a, (unsigned)w2, &m3, &n3);
	kb_analysis_log_pooled(a, &var, &df);
	if (!n0 || !n1 || !n2 || !n3 || isnan(var) || df < 1)
		return 0;
	in->diff_log = (m3 - m2) - (m1 - m0);
	se = sqrt(var * (1.0 / (double)n0 + 1.0 / (double)n1 +
			 1.0 / (double)n2 + 1.0 / (double)n3));
	t = se > 0 ? fabs(in->diff_log) / se : INFINITY;
	in->p = 2 * kb_stats_t_cdf(-t, df);
	/* significant, and large enough to matter */
	in->significant =
		in->p < kb_analysis_opts(a)->alpha &&
		fabs(exp(in->diff_log) - 1) * 100 >=
			kb_analysis_opts(a)->threshold_pct;
	cu->ninter++;
	return 0;
}

int kb_why_explain(struct kb_analysis *a, int good, int bad,
		   struct kb_why *out, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_variant *vg, *vb;
	size_t nf = kb_matrix_nfactors(m), i, j, k;
	size_t idx[KB_WHY_MAX], set[KB_WHY_MAX], nset = 0;
	int found = 0, ret;

	memset(out, 0, sizeof(*out));
	if (good < 0)
		good = 0;
	if (bad < 0)
		bad = kb_analysis_worst(a);
	if (bad < 0)
		return kb_err_set(err, KB_EINPUT,
				  "no variant has a measurement of %s",
				  kb_analysis_metric(a));
	if ((size_t)good >= kb_plan_nvariants(p) ||
	    (size_t)bad >= kb_plan_nvariants(p))
		return kb_err_set(err, KB_EINPUT,
				  "no variant #%d: the experiment has %zu",
				  (size_t)good >= kb_plan_nvariants(p) ? good
								       : bad,
				  kb_plan_nvariants(p));
	out->good = (unsigned)good;
	out->bad = (unsigned)bad;
	vg = kb_plan_variant(p, (size_t)good);
	vb = kb_plan_variant(p, (size_t)bad);
	for (i = 0; i < nf; i++)
		if (strcmp(vg->settings[i].value, vb->settings[i].value) &&
		    out->ndiff < KB_WHY_MAX)
			out->diff[out->ndiff++] = i;
	if (!out->ndiff)
		return kb_err_set(err, KB_EINPUT,
				  "variants #%d and #%d have the same levels of every factor: pick two that differ",
				  good, bad);
	if ((ret = kb_analysis_compare(a, (unsigned)good, (unsigned)bad, 1,
				       &out->total, err)))
		goto out;
	out->reproduces = out->total.verdict == KB_VERDICT_REGRESSION;
	if (!out->reproduces)
		goto out;

	/* the smallest set of changes that makes A as bad as B */
	for (k = 1; k <= out->ndiff && !found; k++) {
		for (i = 0; i < k; i++)
			idx[i] = i;
		do {
			struct kb_comparison c;
			int v;

			for (i = 0; i < k; i++)
				set[i] = out->diff[idx[i]];
			v = k == out->ndiff ? bad
					    : kb_analysis_find(a, (unsigned)good,
							       (unsigned)bad,
							       set, k);
			if (v < 0)
				continue;
			if ((ret = kb_analysis_compare(a, (unsigned)v,
						       (unsigned)bad, 1, &c,
						       err)))
				goto out;
			if (as_bad(&c) || v == bad) {
				found = 1;
				nset = k;
				out->set_variant = (unsigned)v;
				out->set_vs_bad = c;
				break;
			}
		} while (next_subset(idx, k, out->ndiff));
	}

	/* each culprit: in context, alone, and against the other factors */
	for (i = 0; i < nset; i++) {
		struct kb_why_culprit *cu = &out->culprits[out->nculprits++];
		size_t rest[KB_WHY_MAX], nrest = 0, f = set[i];
		int without, alone;

		cu->factor = f;
		cu->good = vg->settings[f].value;
		cu->bad = vb->settings[f].value;
		for (j = 0; j < nset; j++)
			if (j != i)
				rest[nrest++] = set[j];
		without = kb_analysis_find(a, (unsigned)good, (unsigned)bad,
					   rest, nrest);
		alone = kb_analysis_find(a, (unsigned)good, (unsigned)bad, &f,
					 1);
		cu->in_context.verdict = KB_VERDICT_INCONCLUSIVE;
		cu->alone.verdict = KB_VERDICT_INCONCLUSIVE;
		cu->in_context.change_pct = cu->alone.change_pct = NAN;
		if (without >= 0 &&
		    (ret = kb_analysis_compare(a, (unsigned)without,
					       out->set_variant, 1,
					       &cu->in_context, err)))
			goto out;
		if (alone >= 0 &&
		    (ret = kb_analysis_compare(a, (unsigned)good,
					       (unsigned)alone, 1, &cu->alone,
					       err)))
			goto out;
		cu->independent = 1;
		if (alone < 0)
			continue;
		/* every other factor, at each of its other levels (as the
		 * planned variants spell them) */
		for (j = 0; j < nf; j++) {
			size_t q, q2, nv = kb_plan_nvariants(p);

			for (q = 0; q < nv && j != f; q++) {
				const char *lv =
					kb_plan_variant(p, q)->settings[j].value;

				for (q2 = 0; q2 < q; q2++)
					if (!strcmp(kb_plan_variant(p, q2)
							    ->settings[j]
							    .value,
						    lv))
						break;
				if (q2 < q || !strcmp(lv, vg->settings[j].value))
					continue;
				if ((ret = interaction(a, cu, (unsigned)good,
						       (unsigned)alone, j, lv,
						       err)))
					goto out;
			}
		}
		for (j = 0; j < cu->ninter; j++)
			if (cu->inter[j].significant)
				cu->independent = 0;
	}
out:
	out->boots_added = kb_analysis_boots_added(a);
	return ret;
}
