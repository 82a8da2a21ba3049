#include "compare.h"

#include <math.h>
#include <string.h>

#include "banned.h"

static size_t count_nonpositive(const double *x, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !(x[i] > 0);
	return k;
}

void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out)
{
	double alpha = o->look_alpha > 0 ? o->look_alpha : o->alpha;

	memset(out, 0, sizeof(*out));
	kb_stats_summary(a, na, &out->a);
	kb_stats_summary(b, nb, &out->b);
	out->change_pct = kb_stats_change_pct(out->a.mean, out->b.mean);
	out->alpha = alpha;
	out->looks = o->looks > 1 && o->look_alpha > 0 ? o->looks : 1;
	out->nonpositive = count_nonpositive(a, na) + count_nonpositive(b, nb);
	kb_stats_log_ratio_ci(a, na, b, nb, 1 - alpha, &out->ci_low,
			      &out->ci_high);
	out->p = kb_stats_mann_whitney(a, na, b, nb, NULL);
	out->min_p = kb_stats_mann_whitney_min_p(na, nb);
	kb_compare_decide(out, o);
}

void kb_compare_decide(struct kb_comparison *out,
		       const struct kb_compare_opts *o)
{
	double t = o->threshold_pct, alpha = out->alpha;
	int worse;

	out->verdict = KB_VERDICT_INCONCLUSIVE;
	if (isnan(out->change_pct) || isnan(out->p))
		return;
	if (out->p < alpha && fabs(out->change_pct) >= t) {
		worse = (out->change_pct < 0) == (o->higher_is_better != 0);
		out->verdict = worse ? KB_VERDICT_REGRESSION
				     : KB_VERDICT_IMPROVEMENT;
	} else if (out->min_p < alpha && out->ci_low > -t &&
		   out->ci_high < t) {
		out->verdict = KB_VERDICT_NO_CHANGE;
	}
}

size_t kb_compare_looks(unsigned start, unsigned max, unsigned *n)
{
	size_t j, k;

	if (start < 1)
		start = 1;
	if (max <= start) {
		n[0] = start;
		return 1;
	}
	if (max - start + 1 <= KB_COMPARE_LOOKS_MAX) {
		k = max - start + 1;
		for (j = 0; j < k; j++)
			n[j] = start + (unsigned)j;
		return k;
	}
	k = KB_COMPARE_LOOKS_MAX;
	for (j = 0; j < k; j++)
		n[j] = start + (unsigned)(((double)(max - start) * (double)j) /
						  (double)(k - 1) +
					  0.5);
	return k;
}

double kb_compare_look_alpha(unsigned start, unsigned max, double alpha,
			     unsigned *looks)
{
	unsigned n[KB_COMPARE_LOOKS_MAX];
	double info[KB_COMPARE_LOOKS_MAX];
	size_t k = kb_compare_looks(start, max, n), j;

	for (j = 0; j < k; j++)
		info[j] = n[j];
	if (looks)
		*looks = (unsigned)k;
	return kb_stats_pocock_alpha(info, k, alpha);
}

const char *kb_verdict_name(enum kb_verdict v)
{
	switch (v) {
	case KB_VERDICT_NO_CHANGE:
		return "no-change";
	case KB_VERDICT_REGRESSION:
		return "regression";
	case KB_VERDICT_IMPROVEMENT:
		return "improvement";
	case KB_VERDICT_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}
