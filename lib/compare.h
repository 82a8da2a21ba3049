#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/*
 * A against B: is B a regression, an improvement, no change, or can the
 * data not tell yet?  The inputs are per-boot values (runs already
 * averaged within each boot): boots are the replicates.
 *
 * - change: (mean B / mean A - 1) * 100, with a bootstrap confidence
 *   interval at level 1 - alpha (seeded, so reproducible);
 * - significance: the Mann-Whitney U test, two-sided, p < alpha;
 * - verdict: regression or improvement (by the metric's direction) when
 *   significant and |change| >= threshold; no-change when the whole
 *   interval lies inside ±threshold; otherwise inconclusive — more boots
 *   are needed (with 3 boots per side a rank test cannot reach p < 0.05).
 */

enum kb_verdict {
	KB_VERDICT_NO_CHANGE,
	KB_VERDICT_REGRESSION,
	KB_VERDICT_IMPROVEMENT,
	KB_VERDICT_INCONCLUSIVE,
};

struct kb_compare_opts {
	double threshold_pct;  /* smallest change that counts, percent */
	double alpha;          /* significance level; CI level is 1 - alpha */
	int higher_is_better;  /* the metric's direction */
	uint64_t seed;         /* bootstrap seed */
	unsigned reps;         /* bootstrap replicates (0: 2000) */
};
#define KB_COMPARE_OPTS_INIT                                              \
	{ .threshold_pct = 5.0, .alpha = 0.05, .higher_is_better = 1,     \
	  .seed = 1, .reps = 0 }

struct kb_comparison {
	struct kb_summary a, b; /* each side's summary */
	double change_pct;      /* relative change of the means, percent */
	double ci_low, ci_high; /* bootstrap interval of change_pct */
	double p;               /* Mann-Whitney two-sided p-value */
	enum kb_verdict verdict;
};

/* Compare per-boot values @a (n @na) with @b (n @nb). */
void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out);

/* "no-change", "regression", "improvement", "inconclusive". */
const char *kb_verdict_name(enum kb_verdict v);

#endif
