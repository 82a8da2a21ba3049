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
 * - the rule, one for every verdict: Welch's t test of the difference of
 *   the mean logarithms (kb_stats_log_ratio_test()), two-sided, at level
 *   alpha, and its own interval at level 1 - alpha
 *   (kb_stats_log_ratio_ci()), so that p < alpha exactly when the
 *   interval excludes no change: the verdict never contradicts the
 *   interval beside it.  The t test has no floor (a rank test of 3 boots
 *   a side cannot reach p < 0.05 whatever the data), so 2 boots a side
 *   can decide;
 * - verdict: regression or improvement (by the metric's direction) when
 *   p < alpha and the change the interval is of, that of the geometric
 *   means (est_pct), is at least the threshold; no-change when the whole
 *   interval lies inside ±threshold; otherwise inconclusive — more boots
 *   are needed;
 * - a value not positive leaves no log scale: no interval, and the
 *   Mann-Whitney U test (exact up to 50 boots a side, ties or not) on the
 *   values decides, its floor (min_p) counting for no-change; a side of
 *   one boot has no spread, and no verdict.
 *
 * When the comparison is one look of a sequential test (adaptive
 * sampling, lib/analysis.h), alpha above is the look's nominal level
 * (look_alpha: for the Welch t kb_compare_look_alpha_welch()), for the
 * test and the interval alike.
 *
 * Paired (kb_compare_paired()): when the boots of A and B ran in the
 * same rounds (blocks, lib/order.h), boot r of A and boot r of B shared
 * the host's state of their round, and a drift over the run moves both
 * alike.  The comparison is then made on the pairs' log ratios
 * log(b_r / a_r), which the drift leaves out:
 *
 * - change: (exp(mean of the log ratios) - 1) * 100, the change of the
 *   geometric means within rounds.  The two boots of a round still ran
 *   one after the other: the drift between their places, the slope of
 *   the drift check (kb_analysis_drift()) times the distance, is taken
 *   out of each log ratio first (under a linear drift of 30% over 10
 *   boots it was a tenth of the pairs' variance: power at 15% went from
 *   94% to 97.5% on the bench);
 * - the rule: the paired t test of the log ratios (kb_stats_paired_t()),
 *   n_pairs - 1 degrees of freedom, and its interval at level 1 - alpha;
 * - verdict: as above.  A value <= 0 leaves no log ratio: the Wilcoxon
 *   signed-rank test of the differences b - a, no interval.
 *
 * At a look of a sequential test the paired comparison decides at
 * o->look_alpha_paired (kb_compare_look_alpha_paired()), the level
 * calibrated for the paired t, instead of look_alpha.
 *
 * Whoever pairs (lib/analysis.c) pairs only boots of one round (and one
 * host, when known), leaves the others out and counts them, and falls
 * back to kb_compare_samples() with fewer than KB_COMPARE_MIN_PAIRS
 * pairs.
 *
 * The futility stop of a sequential comparison (kb_compare_futile()):
 * at a look that is inconclusive, with half of the most boots or more
 * (earlier, the trend of 3 boots is too rough to judge by), the
 * conditional power under the current trend — the chance that the test
 * at max boots would reach its level if the change went on as
 * estimated, the statistic a Brownian motion in the boots a side (Lan,
 * Simon and Halperin 1982) — is below
 * KB_COMPARE_FUTILITY: more boots up to max would not decide, and the
 * comparison stops, inconclusive, saying so (kb_comparison.futile).
 * Stopping for futility never rejects, so Pocock's level keeps the false
 * alarms at alpha.  The equivalence stop is the no-change verdict
 * itself: the interval at the look's level wholly inside ±threshold.
 */

/* The test a comparison's p comes from. */
enum kb_compare_test {
	KB_COMPARE_MANN_WHITNEY, /* unpaired, a value not positive */
	KB_COMPARE_SIGNED_RANK,  /* paired, a value not positive (before
				  * issue 29: paired, 6 pairs or more) */
	KB_COMPARE_PAIRED_T,     /* paired: the log ratios */
	KB_COMPARE_WELCH_T,      /* unpaired: the logs of each side */
};

/* The fewest pairs a paired comparison is made of, and tests (with
 * fewer, kb_compare_paired() gives an interval and no verdict). */
#define KB_COMPARE_MIN_PAIRS 3

/* The conditional power below which a sequential comparison stops for
 * futility (kb_compare_futile()). */
#define KB_COMPARE_FUTILITY 0.02

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
	/* the nominal level of such a look when its test is the paired t
	 * (kb_compare_look_alpha_paired()); 0: look_alpha */
	double look_alpha_paired;
};
#define KB_COMPARE_OPTS_INIT                                              \
	{ .threshold_pct = 5.0, .alpha = 0.05, .higher_is_better = 1,     \
	  .look_alpha = 0, .looks = 1, .look_alpha_paired = 0 }

struct kb_comparison {
	struct kb_summary a, b; /* each side's summary */
	double change_pct;      /* relative change of the means, percent */
	double ci_low, ci_high; /* interval of the change (log-scale Welch t,
				 * or the paired t), NaN when it cannot be
				 * had */
	double est_pct;         /* the change @test and the interval are
				 * of, which the threshold is judged on:
				 * the geometric means' (change_pct when
				 * there is no log scale) */
	double p;               /* two-sided p-value of @test */
	enum kb_verdict verdict;
	double alpha;           /* the level it was decided at: alpha, or
				 * the look's nominal level */
	unsigned looks;         /* looks of its sequential test (1: none) */
	double min_p;           /* the smallest p the test can give with
				 * these boots (0: no floor) */
	size_t nonpositive;     /* values <= 0 on either side: no interval */
	enum kb_compare_test test; /* what p is */
	size_t npairs;          /* paired: the pairs; unpaired: the rounds
				 * the sides had in common (fewer than
				 * KB_COMPARE_MIN_PAIRS), 0 when none */
	size_t unpaired;        /* paired: boots of either side in no pair,
				 * left out */
	double se_log;          /* standard error of the log change (NaN
				 * when none) */
	double df;              /* its degrees of freedom: pairs - 1, or
				 * Welch-Satterthwaite's (NaN when none) */
	int futile;             /* a sequential comparison stopped at this
				 * look for futility (kb_compare_futile()) */
};

/* Compare per-boot values @a (n @na) with @b (n @nb). */
void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out);

/*
 * Compare @n pairs of per-boot values: @a[i] and @b[i] ran in the same
 * round (see above).  @adj (NULL: none) is what the host's drift made of
 * each pair's log ratio by the two boots' places in the round, taken
 * out of it: the log ratio is log(b[i] / a[i]) - adj[i].  out->a and
 * out->b summarise the paired boots (as they were);
 * out->npairs is @n, out->unpaired 0 (the caller counts what it left
 * out).  A value <= 0 leaves no log ratio: no interval, and the
 * signed-rank test of the differences b - a.
 */
void kb_compare_paired(const double *a, const double *b, const double *adj,
		       size_t n, const struct kb_compare_opts *o,
		       struct kb_comparison *out);

/*
 * The futility stop: nonzero when comparison @c, an inconclusive look at
 * @n boots a side (pairs, when paired) of a sequential test that may go
 * on to @max, has a conditional power under its current trend below
 * KB_COMPARE_FUTILITY, the test at @max deciding at c->alpha.  0 when
 * @n >= @max or @n < @max / 2, the verdict is not inconclusive or no
 * standard error is known (no interval: nothing to project).
 */
int kb_compare_futile(const struct kb_comparison *c, size_t n, size_t max);

/*
 * How comparison @c was decided, for the analyses table's detail: the
 * test and its interval, the pairing, the look's level, values <= 0, a
 * futility stop.  Caller frees.
 */
char *kb_compare_detail(const struct kb_comparison *c);

/* Nonzero when @c was made of pairs within rounds (kb_compare_paired()). */
int kb_compare_is_paired(const struct kb_comparison *c);

/* "mann-whitney-u", "wilcoxon-signed-rank", "paired-t", "welch-t": the
 * analyses table's names. */
const char *kb_compare_test_name(enum kb_compare_test t);

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

/* The null sequences kb_compare_look_alpha_paired() draws. */
#define KB_COMPARE_CALIBRATION_DRAWS 20000

/*
 * The nominal level of each look of that sequential comparison when its
 * test is the paired t (lib/compare.h, paired): Pocock's boundary holds
 * for a statistic of known variance, and with the variance estimated
 * afresh at each look from 3, 4, ... pairs the t tests' crossings are
 * less correlated than it assumes, so at Pocock's 0.0147 for 3 to 10
 * pairs any look crosses in 6.0% of null sequences, not 5%.  This level
 * is calibrated instead: the @alpha quantile of the smallest p of the
 * paired t over the looks, over KB_COMPARE_CALIBRATION_DRAWS null
 * sequences of normal log ratios drawn from a fixed seed (the same level
 * every time, to about 0.15 points of alpha).  Sets *@looks (may be
 * NULL); returns @alpha for one look.
 */
double kb_compare_look_alpha_paired(unsigned start, unsigned max,
				    double alpha, unsigned *looks);

/*
 * The nominal level of each look of that sequential comparison when its
 * test is the Welch t of two sides that grow together (the unpaired
 * comparison): calibrated as kb_compare_look_alpha_paired() is, over
 * null sequences of two samples of normal logs, Pocock's boundary being
 * a known variance's: for 3 to 10 boots a side it is 0.0162 (Pocock's
 * 0.0147: Welch's degrees of freedom are cautious).  Sets *@looks (may be NULL); returns @alpha for one look.
 */
double kb_compare_look_alpha_welch(unsigned start, unsigned max,
				   double alpha, unsigned *looks);

/*
 * What a design can decide, before a boot: a comparison of @n boots a
 * side (pairs when @paired) by the rule above at level @alpha, when a
 * boot's value has the coefficient of variation @cv (log-normal noise,
 * the same on both sides; NaN: not known) and the threshold is
 * @threshold_pct.
 */
struct kb_compare_design {
	int can_decide;       /* the test can reach alpha at all: 2 boots a
			       * side or more (3 pairs when paired); with
			       * fewer no data gives a verdict */
	double halfwidth_pct; /* the interval's half width expected at that
			       * noise, in percent of the change (the upper
			       * side, exp(t se) - 1); NaN when the noise is
			       * not known or it cannot decide */
	double min_change_pct; /* the smallest change it calls at that
				* noise: the larger of the threshold and
				* the half width (a change whose interval,
				* at the expected width, just excludes 0) */
	int no_change;        /* an unchanged variant can be called
			       * no-change: the expected interval lies
			       * inside ±threshold (-1: not known) */
};

/*
 * Fill *@out for @n boots a side (pairs when @paired: the paired t of
 * the log ratios, n - 1 degrees of freedom; unpaired Welch's t, 2n - 2
 * at equal spread) at level @alpha, noise @cv and threshold
 * @threshold_pct, as above.
 */
void kb_compare_design(unsigned n, int paired, double alpha, double cv,
		       double threshold_pct, struct kb_compare_design *out);

/* "no-change", "regression", "improvement", "inconclusive". */
const char *kb_verdict_name(enum kb_verdict v);

#endif
