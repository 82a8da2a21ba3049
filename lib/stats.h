#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Statistics over samples of a metric: descriptive summaries and the
 * Student t distribution behind their confidence intervals.
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

/*
 * The Mann-Whitney U test (Wilcoxon rank-sum) of samples @a and @b: the
 * two-sided p-value that they come from the same distribution.  Exact
 * (from the distribution of U, counted by dynamic programming) when there
 * are no ties and both samples have at most 50 values; otherwise the
 * normal approximation with tie and continuity corrections.  Sets *@u to
 * U of @a (the number of pairs a > b, ties counting one half) when @u is
 * not NULL.  NaN when a sample is empty.  With 3 values per side the
 * smallest possible p is 0.1: a rank test needs 4 or more per side to
 * reach 0.05.
 */
double kb_stats_mann_whitney(const double *a, size_t na, const double *b,
			     size_t nb, double *u);

/*
 * A bootstrap confidence interval (percentile method) of the relative
 * change of the means from @a to @b, in percent: (mean b / mean a - 1) *
 * 100.  Each of @reps replicates resamples both samples with replacement,
 * drawing from a generator seeded with @seed, so the result is
 * reproducible.  @level is the coverage, e.g. 0.95.  Sets *@lo and *@hi
 * (NaN when a sample is empty).
 */
void kb_stats_bootstrap_change(const double *a, size_t na, const double *b,
			       size_t nb, unsigned reps, uint64_t seed,
			       double level, double *lo, double *hi);

#endif
