#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Statistics over samples of a metric: descriptive summaries, the
 * Student t distribution behind their confidence intervals, the rank test
 * and the interval of a change, a group-sequential boundary, and the
 * adjustment of a family of p-values.
 *
 * Functions here never fail and never allocate visibly: an undefined
 * result (the mean of nothing, the spread of one value) is NaN.  A NaN in
 * the input makes every statistic computed from it NaN.
 */

/*
 * A descriptive summary of a sample.  Fields that a sample is too small
 * for are NaN.
 */
struct kb_summary {
	size_t n;       /* number of values */
	double mean;    /* arithmetic mean */
	double median;  /* middle value; for even n the mean of the two */
	double stddev;  /* sample standard deviation, divisor n - 1 (n >= 2) */
	double cv;      /* coefficient of variation stddev / mean (mean != 0) */
	double ci_low;  /* 95% Student-t interval for the mean (n >= 2): */
	double ci_high; /*   mean -/+ t(0.975, n - 1) * stddev / sqrt(n) */
	double min;     /* smallest value */
	double max;     /* largest value */
};

/*
 * Summarise the @n values at @x into *@out.  @x is not modified and may be
 * NULL when @n is 0.  For n == 0 every field but n is NaN; for n == 1
 * stddev, cv and the interval are NaN.
 */
void kb_stats_summary(const double *x, size_t n, struct kb_summary *out);

/* The arithmetic mean of the @n values at @x; NaN when n is 0. */
double kb_stats_mean(const double *x, size_t n);

/*
 * The median of the @n values at @x (the mean of the two middle values for
 * even n), without modifying @x; NaN when n is 0.
 */
double kb_stats_median(const double *x, size_t n);

/*
 * The relative change from @base to @value in percent,
 * (value / base - 1) · 100: 10 → 11 is 10, 10 → 5 is -50.  NaN when base
 * is 0.
 */
double kb_stats_change_pct(double base, double value);

/*
 * The Student t distribution function P(T <= t) with @df degrees of
 * freedom (df > 0, need not be whole; INFINITY gives the standard normal).
 * Accurate to a relative 1e-12 in the lower tail; for a two-sided p-value
 * use 2 * kb_stats_t_cdf(-fabs(t), df).  NaN for df <= 0 or NaN arguments.
 */
double kb_stats_t_cdf(double t, double df);

/*
 * The Student t quantile: the t with P(T <= t) = @p for @df degrees of
 * freedom (df > 0, need not be whole; INFINITY gives the standard normal
 * quantile), e.g. 2.228 for p = 0.975 and df = 10.  Accurate to a relative
 * 1e-10.  Returns -INFINITY for p = 0 and INFINITY for p = 1 (or when the
 * quantile exceeds the range of a double); NaN for p outside [0, 1],
 * df <= 0 or NaN arguments.
 */
double kb_stats_t_quantile(double p, double df);

/* The standard normal distribution function P(Z <= z). */
double kb_stats_normal_cdf(double z);

/* Samples up to this size (each) get exact Mann-Whitney p-values. */
#define KB_STATS_MW_EXACT_MAX 50

/*
 * The Mann-Whitney U test (Wilcoxon rank-sum) of samples @a and @b: the
 * two-sided p-value that they come from the same distribution.  Tied
 * values get their average rank.  Exact when both samples have at most
 * KB_STATS_MW_EXACT_MAX values: the permutation distribution of the rank
 * sum, counted by dynamic programming (from the distribution of U without
 * ties, over the average ranks actually present with them), p being the
 * share of the C(na + nb, na) splits whose rank sum lies at least as far
 * from its mean as the observed one.  Larger samples get the normal
 * approximation with tie and continuity corrections.  Sets *@u to U of @a
 * (the number of pairs a > b, ties counting one half) when @u is not
 * NULL.  NaN when a sample is empty.  With 3 values per side the smallest
 * possible p is 0.1 (kb_stats_mann_whitney_min_p()), ties or not: a rank
 * test needs 4 or more per side to reach 0.05; all values tied give 1.
 */
double kb_stats_mann_whitney(const double *a, size_t na, const double *b,
			     size_t nb, double *u);

/*
 * The smallest two-sided p-value kb_stats_mann_whitney() can return for
 * samples of @na and @nb values: 2 / C(na + nb, na) (complete
 * separation, no ties), at most 1.  0.1 for 3 and 3, 0.029 for 4 and 4.
 * NaN when a sample is empty.
 */
double kb_stats_mann_whitney_min_p(size_t na, size_t nb);

/* Samples up to this many pairs get exact signed-rank p-values. */
#define KB_STATS_SR_EXACT_MAX 50

/*
 * The Wilcoxon signed-rank test of the @n paired differences at @d (B
 * less A, or the logs of B / A): the two-sided p-value that they are
 * symmetric about 0.  Zero differences are left out (Wilcoxon's rule, as
 * R's wilcox.test does); the rest are ranked by absolute value, ties
 * getting their average rank.  Exact up to KB_STATS_SR_EXACT_MAX
 * differences, with or without ties: every one of the 2^n signs is
 * equally likely under the null hypothesis, the sums of the positive
 * (doubled, so whole) ranks are counted by dynamic programming, and p is
 * the share at least as far from their mean as the observed one.  More
 * differences get the normal approximation with tie and continuity
 * corrections.  Sets *@v to the sum of the positive ranks (V) when @v is
 * not NULL.  NaN when @n is 0; 1 when every difference is 0.  The
 * smallest p it can give is 2 / 2^n (kb_stats_signed_rank_min_p()): 5
 * pairs cannot reach 0.05 (0.0625), 6 can (0.031).
 */
double kb_stats_signed_rank(const double *d, size_t n, double *v);

/* The smallest two-sided p kb_stats_signed_rank() can give for @n
 * pairs: 2 / 2^n, at most 1; NaN for none. */
double kb_stats_signed_rank_min_p(size_t n);

/*
 * The paired t test of the @n differences at @d: their mean into *@mean,
 * the Student t interval of the mean at @level (n - 1 degrees of
 * freedom) into *@lo and *@hi, and the two-sided p-value of mean 0 as
 * the result.  NaN everywhere for n < 2 (the mean for n = 1); with no
 * spread the interval is the mean and p is 1 for a mean of 0, else 0.
 */
double kb_stats_paired_t(const double *d, size_t n, double level,
			 double *mean, double *lo, double *hi);

/*
 * A bootstrap confidence interval (percentile method) of the relative
 * change of the means from @a to @b, in percent: (mean b / mean a - 1) *
 * 100.  Each of @reps replicates resamples both samples with replacement,
 * drawing from a generator seeded with @seed, so the result is
 * reproducible.  @level is the coverage, e.g. 0.95.  Sets *@lo and *@hi
 * (NaN when a sample is empty).  At 3 to 10 values a side it covers the
 * truth in only 78-94% of cases (tests/bench/stats.c): comparisons use
 * kb_stats_log_ratio_ci(); this one is kept for comparison.
 */
void kb_stats_bootstrap_change(const double *a, size_t na, const double *b,
			       size_t nb, unsigned reps, uint64_t seed,
			       double level, double *lo, double *hi);

/*
 * A confidence interval of the relative change from @a to @b, in percent,
 * on the log scale: Welch's t interval for the difference of the means of
 * the logarithms (Welch-Satterthwaite degrees of freedom), transformed
 * back, (exp(d -/+ t se) - 1) * 100.  It is the change of the geometric
 * means, which for log-normal noise of the same spread on both sides is
 * the change of the means.  @level is the coverage, e.g. 0.95.  Sets *@lo
 * and *@hi; both NaN when a sample has fewer than 2 values or a value is
 * not positive (the caller reports those).  A sample without spread on
 * both sides gives the point estimate as the interval.
 */
void kb_stats_log_ratio_ci(const double *a, size_t na, const double *b,
			   size_t nb, double level, double *lo, double *hi);

/*
 * The test behind that interval: Welch's t test of the difference of the
 * mean logarithms of @a and @b, two-sided, returning its p-value and
 * setting the interval at @level as kb_stats_log_ratio_ci() does, so that
 * p < 1 - @level exactly when the interval excludes no change.  Sets
 * *@se and *@df (either may be NULL) to the standard error of the
 * difference of the mean logs and its Welch-Satterthwaite degrees of
 * freedom.  NaN everywhere as for the interval (a side of fewer than 2
 * values, a value not positive); with no spread on either side p is 1
 * for equal means, else 0, and df is n_a + n_b - 2.
 */
double kb_stats_log_ratio_test(const double *a, size_t na, const double *b,
			       size_t nb, double level, double *lo,
			       double *hi, double *se, double *df);

/*
 * Welch's t test of the difference of two means, mean(b) - mean(a), from
 * the samples' summaries (kb_stats_summary()), two-sided: returns its
 * p-value and sets *@lo and *@hi to the interval of the difference at
 * @level (e.g. 0.95), in the values' own units, so that p < 1 - @level
 * exactly when the interval excludes 0.  For values that may be 0 or
 * negative (a share of samples, a counter), where the log-ratio test
 * cannot go.  NaN everywhere when a side has fewer than 2 values; with no
 * spread on either side p is 1 for equal means, else 0, and the interval
 * is the difference itself.
 */
double kb_stats_welch_test(const struct kb_summary *a,
			   const struct kb_summary *b, double level,
			   double *lo, double *hi);

/*
 * Pocock's group-sequential boundary for looks at information levels
 * @info[0..k) (increasing; any scale: for two samples of n boots each,
 * n itself): the nominal two-sided level alpha' that each look tests at,
 * so that the chance of crossing at any of the k looks under the null
 * hypothesis is @alpha, for a normal test statistic.  The constant c
 * (alpha' = 2 (1 - Phi(c))) is found by bisection on the crossing
 * probability, computed by recursive numerical integration (Armitage,
 * McPherson and Rowe 1969), to about 1e-6 in alpha.  Equally spaced
 * looks give Pocock's (1977) table: 0.0294 for 2 looks at alpha 0.05,
 * 0.0158 for 5, 0.0106 for 10.  Returns @alpha for k == 1; NaN when alpha
 * is not in (0, 1), k is 0 or @info is not positive and increasing.
 */
double kb_stats_pocock_alpha(const double *info, size_t k, double alpha);

/* How a family of p-values is adjusted for multiplicity. */
enum kb_p_adjust {
	/* Holm (1979): step-down Bonferroni; controls the family-wise
	 * error rate (any false positive) under any dependence */
	KB_P_ADJUST_HOLM,
	/* Benjamini and Hochberg (1995): step-up; controls the false
	 * discovery rate for independent or positively dependent tests */
	KB_P_ADJUST_BH,
};

/*
 * Adjust the @n p-values at @p for multiplicity, as R's p.adjust() does,
 * into @out[0..n) (which may be @p): an adjusted p below alpha rejects at
 * family level alpha.  NaN values are left out of the family and come
 * out NaN.  For {0.01, 0.02, 0.03, 0.04, 0.05}, Holm gives {0.05, 0.08,
 * 0.09, 0.09, 0.09} and BH 0.05 for each.
 */
void kb_stats_p_adjust(const double *p, size_t n, enum kb_p_adjust how,
		       double *out);

#endif
