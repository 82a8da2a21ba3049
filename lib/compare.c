#include "compare.h"

#include <math.h>
#include <string.h>

#include "banned.h"

void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out)
{
	double t = o->threshold_pct;
	int worse;

	memset(out, 0, sizeof(*out));
	kb_stats_summary(a, na, &out->a);
	kb_stats_summary(b, nb, &out->b);
	out->change_pct = kb_stats_change_pct(out->a.mean, out->b.mean);
	kb_stats_bootstrap_change(a, na, b, nb, o->reps ? o->reps : 2000,
				  o->seed, 1 - o->alpha, &out->ci_low,
				  &out->ci_high);
	out->p = kb_stats_mann_whitney(a, na, b, nb, NULL);
	out->verdict = KB_VERDICT_INCONCLUSIVE;
	if (isnan(out->change_pct) || isnan(out->p))
		return;
	if (out->p < o->alpha && fabs(out->change_pct) >= t) {
		worse = (out->change_pct < 0) == (o->higher_is_better != 0);
		out->verdict = worse ? KB_VERDICT_REGRESSION
				     : KB_VERDICT_IMPROVEMENT;
	} else if (out->ci_low > -t && out->ci_high < t) {
		out->verdict = KB_VERDICT_NO_CHANGE;
	}
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
