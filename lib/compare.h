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
 * - change: (mean B / mean A - 1) * 100;
 * - interval: Welch's t interval of the change on the log scale
 *   (kb_stats_log_ratio_ci()) at level 1 - alpha; none (NaN) when a value
 *   is not positive, and those values are counted;
 * - significance: the Mann-Whitney U test, two-sided, exact up to 50 boots
 *   a side with or without ties, p < alpha;
 * - verdict: regression or improvement (by the metric's direction) when
 *   significant and |change| >= threshold; no-change when the whole
 *   interval lies inside ±threshold and the rank test could have reached
 *   p < alpha with these boots (4 a side at alpha 0.05: with 3 no data
 *   could have shown a regression, so none can show its absence either);
 *   otherwise inconclusive — more boots are needed.
 *
 * When the comparison is one look of a sequential test (adaptive
 * sampling, lib/analysis.h), alpha above is the look's nominal level
 * (look_alpha, Pocock's boundary), for the test and the interval alike.
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
	/* one look of a sequential test: the nominal level this look
	 * decides at (kb_stats_pocock_alpha()), used instead of alpha for
	 * the test and the interval; 0 for a single test */
	double look_alpha;
	unsigned looks;        /* the looks the sequential test plans (0, 1: one) */
};
#define KB_COMPARE_OPTS_INIT                                              \
	{ .threshold_pct = 5.0, .alpha = 0.05, .higher_is_better = 1,     \
	  .look_alpha = 0, .looks = 1 }

struct kb_comparison {
	struct kb_summary a, b; /* each side's summary */
	double change_pct;      /* relative change of the means, percent */
	double ci_low, ci_high; /* interval of the change (log-scale Welch t),
				 * NaN when it cannot be had */
	double p;               /* Mann-Whitney two-sided p-value */
	enum kb_verdict verdict;
	double alpha;           /* the level it was decided at: alpha, or
				 * the look's nominal level */
	unsigned looks;         /* looks of its sequential test (1: none) */
	double min_p;           /* the smallest p the rank test can give
				 * with these boots */
	size_t nonpositive;     /* values <= 0 on either side: no interval */
};

/* Compare per-boot values @a (n @na) with @b (n @nb). */
void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out);

/*
 * The verdict rules above, for a comparison whose change, interval, p,
 * min_p and alpha (the level it decides at) are filled: sets
 * out->verdict.  For whoever fills them by another test (a paired one,
 * lib/analysis.c).
 */
void kb_compare_decide(struct kb_comparison *out,
		       const struct kb_compare_opts *o);

/* The most looks a sequential comparison takes (kb_compare_looks()). */
#define KB_COMPARE_LOOKS_MAX 16

/*
 * The looks of a sequential comparison that starts at @start boots a side
 * and adds boots up to @max a side: the boots a side at each look, into
 * @n (room for KB_COMPARE_LOOKS_MAX), returning their number.  A look
 * after every added boot, from start to max; when that would be more than
 * KB_COMPARE_LOOKS_MAX looks, KB_COMPARE_LOOKS_MAX of them spread evenly
 * from start to max (boots in between are added without looking).  One
 * look, at @start, when max <= start.
 */
size_t kb_compare_looks(unsigned start, unsigned max, unsigned *n);

/*
 * The nominal level of each look of that sequential comparison at
 * family level @alpha: Pocock's boundary (kb_stats_pocock_alpha()) with
 * the information of each look proportional to its boots a side.  Sets
 * *@looks (may be NULL) to their number; returns @alpha for one look.
 */
double kb_compare_look_alpha(unsigned start, unsigned max, double alpha,
			     unsigned *looks);

/* "no-change", "regression", "improvement", "inconclusive". */
const char *kb_verdict_name(enum kb_verdict v);

#endif
