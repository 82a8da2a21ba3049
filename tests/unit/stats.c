#include <math.h>
#include <string.h>

#include "test.h"
#include "rng.h"
#include "stats.h"

#define PI 3.14159265358979323846

/* assert |got - want| <= rel · |want| */
#define assert_rel(got, want, rel)                                         \
	do {                                                               \
		double g_ = (got), w_ = (want);                            \
		if (!(fabs(g_ - w_) <= (rel) * fabs(w_)))                  \
			fail_msg("%s = %.17g, want %.17g (rel %g)", #got,  \
				 g_, w_, (double)(rel));                   \
	} while (0)

static void test_stats__t_quantile_matches_printed_tables(void **state)
{
	(void)state;
	/* the two-sided 95% row of every t table, to its printed 3 decimals */
	assert_true(fabs(kb_stats_t_quantile(0.975, 1) - 12.706) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.975, 2) - 4.303) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.975, 5) - 2.571) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.975, 10) - 2.228) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.975, 30) - 2.042) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.975, 1e9) - 1.960) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.95, 10) - 1.812) < 5e-4);
	assert_true(fabs(kb_stats_t_quantile(0.995, 1) - 63.657) < 5e-4);
}

static void test_stats__t_quantile_is_precise(void **state)
{
	(void)state;
	/* reference values from mpmath at 40 digits */
	assert_rel(kb_stats_t_quantile(0.975, 1), 12.706204736174693, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 2), 4.3026527297494618, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 3), 3.1824463052837084, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 5), 2.5705818356363148, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 10), 2.2281388519862742, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 30), 2.0422724563012379, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 120), 1.9799304050824405, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 1e4), 1.9602012398906259, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 1e6), 1.9599663568141067, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 1e8), 1.9599640082627664, 1e-12);
	/* degrees of freedom need not be whole (Welch) */
	assert_rel(kb_stats_t_quantile(0.9, 4.5), 1.5008853175085577, 1e-12);
	assert_rel(kb_stats_t_quantile(0.999, 2.5), 13.82219311086596, 1e-12);
	assert_rel(kb_stats_t_quantile(0.975, 0.5), 164.55767348048824, 1e-12);
	/* far tails and the middle */
	assert_rel(kb_stats_t_quantile(1e-10, 3), -2225.7692846830932, 1e-12);
	assert_rel(kb_stats_t_quantile(1 - 1e-9, 50), 7.3052706111250234,
		   1e-10);
	assert_rel(kb_stats_t_quantile(0.6, 15), 0.25788530093726107, 1e-12);
	assert_rel(kb_stats_t_quantile(0.500000000001, 5),
		   2.6342472487707672e-12, 1e-10);
}

static void test_stats__t_quantile_matches_closed_forms(void **state)
{
	static const double ps[] = { 1e-300, 1e-12, 0.001, 0.025, 0.2,
				     0.3,    0.45,  0.499, 0.7,   0.99 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double p = ps[i];

		/* df = 1 is Cauchy: tan(pi (p - 1/2)), written as a
		 * cotangent so that it keeps its precision for tiny p */
		assert_rel(kb_stats_t_quantile(p, 1),
			   p < 0.5 ? -1 / tan(PI * p) : 1 / tan(PI * (1 - p)),
			   1e-12);
		/* df = 2 has an algebraic quantile */
		assert_rel(kb_stats_t_quantile(p, 2),
			   (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-12);
	}
}

static void test_stats__t_quantile_is_odd(void **state)
{
	static const double dfs[] = { 0.7, 1, 3, 9.5, 40, 5e5 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dfs) / sizeof(dfs[0]); i++) {
		assert_rel(kb_stats_t_quantile(0.025, dfs[i]),
			   -kb_stats_t_quantile(0.975, dfs[i]), 1e-14);
		assert_rel(kb_stats_t_quantile(0.3, dfs[i]),
			   -kb_stats_t_quantile(0.7, dfs[i]), 1e-14);
	}
}

static void test_stats__t_quantile_edges(void **state)
{
	(void)state;
	assert_true(kb_stats_t_quantile(0, 5) == -INFINITY);
	assert_true(kb_stats_t_quantile(1, 5) == INFINITY);
	assert_true(kb_stats_t_quantile(0.5, 5) == 0);
	assert_true(isnan(kb_stats_t_quantile(-0.1, 5)));
	assert_true(isnan(kb_stats_t_quantile(1.1, 5)));
	assert_true(isnan(kb_stats_t_quantile(NAN, 5)));
	assert_true(isnan(kb_stats_t_quantile(0.9, 0)));
	assert_true(isnan(kb_stats_t_quantile(0.9, -3)));
	assert_true(isnan(kb_stats_t_quantile(0.9, NAN)));
	/* infinitely many degrees of freedom: the normal */
	assert_rel(kb_stats_t_quantile(0.975, INFINITY), 1.9599639845400539,
		   1e-14);
	assert_rel(kb_stats_t_quantile(0.5 - 1e-7, INFINITY),
		   -2.5066282747031065e-7, 1e-9);
	/* beyond the range of a double */
	assert_true(kb_stats_t_quantile(1e-20, 0.05) == -INFINITY);
}

static void test_stats__t_cdf_known_values(void **state)
{
	static const double ts[] = { -1e6, -30, -2, -0.5, -1e-9, 0, 1e-9, 0.5,
				     2, 30 };
	size_t i;

	(void)state;
	assert_rel(kb_stats_t_cdf(2, 3), 0.93033701572057841, 1e-14);
	assert_rel(kb_stats_t_cdf(-1.5, 7.3), 0.087781546401543063, 1e-12);
	assert_rel(kb_stats_t_cdf(-4, 2.5), 0.019506487920659123, 1e-12);
	assert_rel(kb_stats_t_cdf(-10, 30), 2.2876257041148066e-11, 1e-12);
	assert_rel(kb_stats_t_cdf(-0.3, 12), 0.38465523704412617, 1e-12);
	/* Cauchy: 1/2 + atan(t) / pi, written to keep tails precise */
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		assert_rel(kb_stats_t_cdf(ts[i], 1),
			   ts[i] < 0 ? atan(-1 / ts[i]) / PI
			   : ts[i] > 0 ? 1 - atan(1 / ts[i]) / PI : 0.5,
			   1e-13);
	assert_rel(kb_stats_t_cdf(-1.96, INFINITY),
		   erfc(1.96 / sqrt(2)) / 2, 1e-14);
	assert_true(kb_stats_t_cdf(-INFINITY, 4) == 0);
	assert_true(kb_stats_t_cdf(INFINITY, 4) == 1);
	assert_true(isnan(kb_stats_t_cdf(1, 0)));
	assert_true(isnan(kb_stats_t_cdf(NAN, 4)));
}

static void test_stats__t_quantile_inverts_cdf(void **state)
{
	static const double dfs[] = { 0.3, 1.5, 4, 17.25, 200, 3e3, 2e4, 1e7 };
	static const double ps[] = { 1e-200, 1e-8, 0.01, 0.1, 0.26, 0.4999 };
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(dfs) / sizeof(dfs[0]); i++)
		for (j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			double t = kb_stats_t_quantile(ps[j], dfs[i]);

			/* df 0.3 at 1e-200 is beyond a double */
			if (isinf(t))
				continue;
			assert_rel(kb_stats_t_cdf(t, dfs[i]), ps[j], 1e-11);
		}
}

static void test_stats__summary_known_values(void **state)
{
	static const double x[] = { 4, 2, 9, 4, 5, 4, 7, 5 };
	const double t7 = 2.3646242515927853; /* t(0.975, 7) */
	const double sd = 2.1380899352993951; /* sqrt(32 / 7) */
	struct kb_summary s;

	(void)state;
	kb_stats_summary(x, 8, &s);
	assert_int_equal(s.n, 8);
	assert_rel(s.mean, 5, 1e-15);
	assert_rel(s.median, 4.5, 1e-15);
	assert_rel(s.stddev, sd, 1e-14);
	assert_rel(s.cv, 0.42761798705987902, 1e-14);
	assert_rel(s.ci_low, 5 - t7 * sd / sqrt(8), 1e-12);
	assert_rel(s.ci_high, 5 + t7 * sd / sqrt(8), 1e-12);
	assert_rel(s.min, 2, 0);
	assert_rel(s.max, 9, 0);
}

static void test_stats__summary_of_nothing_is_nan(void **state)
{
	struct kb_summary s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.n = 99;
	kb_stats_summary(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.stddev));
	assert_true(isnan(s.cv) && isnan(s.ci_low) && isnan(s.ci_high));
	assert_true(isnan(s.min) && isnan(s.max));
	assert_true(isnan(kb_stats_mean(NULL, 0)));
	assert_true(isnan(kb_stats_median(NULL, 0)));
}

static void test_stats__summary_of_one_value_has_no_spread(void **state)
{
	const double x = 42.5;
	struct kb_summary s;

	(void)state;
	kb_stats_summary(&x, 1, &s);
	assert_int_equal(s.n, 1);
	assert_rel(s.mean, 42.5, 0);
	assert_rel(s.median, 42.5, 0);
	assert_rel(s.min, 42.5, 0);
	assert_rel(s.max, 42.5, 0);
	assert_true(isnan(s.stddev) && isnan(s.cv));
	assert_true(isnan(s.ci_low) && isnan(s.ci_high));
}

static void test_stats__summary_keeps_precision_on_large_values(void **state)
{
	/* a naive sum-of-squares formula loses everything here */
	static const double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct kb_summary s;

	(void)state;
	kb_stats_summary(x, 3, &s);
	assert_rel(s.mean, 1e9 + 2, 1e-15);
	assert_rel(s.stddev, 1, 1e-9);
	assert_rel(s.ci_high, 1e9 + 2 + 4.3026527297494618 / sqrt(3), 1e-15);
}

static void test_stats__summary_with_nan_is_nan(void **state)
{
	const double x[] = { 1, NAN, 3 };
	struct kb_summary s;

	(void)state;
	kb_stats_summary(x, 3, &s);
	assert_int_equal(s.n, 3);
	assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.stddev));
	assert_true(isnan(s.min) && isnan(s.max) && isnan(s.ci_low));
}

static void test_stats__summary_cv_of_zero_mean_is_nan(void **state)
{
	const double x[] = { -1, 1 };
	struct kb_summary s;

	(void)state;
	kb_stats_summary(x, 2, &s);
	assert_rel(s.stddev, sqrt(2), 1e-15);
	assert_true(isnan(s.cv));
}

static void test_stats__median_leaves_input_alone(void **state)
{
	double odd[] = { 9, 1, 5, 3, 7 };
	double even[] = { 10, -2, 4, 8 };
	const double odd_copy[] = { 9, 1, 5, 3, 7 };
	const double even_copy[] = { 10, -2, 4, 8 };

	(void)state;
	assert_rel(kb_stats_median(odd, 5), 5, 0);
	assert_rel(kb_stats_median(even, 4), 6, 0);
	assert_memory_equal(odd, odd_copy, sizeof(odd));
	assert_memory_equal(even, even_copy, sizeof(even));
	assert_rel(kb_stats_median(even, 1), 10, 0);
	/* two huge middle values do not overflow */
	even[1] = even[2] = 1.5e308;
	assert_rel(kb_stats_median(even + 1, 2), 1.5e308, 1e-15);
}

static void test_stats__mean(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 10 };

	(void)state;
	assert_rel(kb_stats_mean(x, 5), 4, 1e-15);
	assert_rel(kb_stats_mean(x, 1), 1, 0);
}

static void test_stats__change_pct(void **state)
{
	(void)state;
	assert_rel(kb_stats_change_pct(100, 110), 10, 1e-12);
	assert_rel(kb_stats_change_pct(200, 100), -50, 1e-12);
	assert_rel(kb_stats_change_pct(511000, 11000), -97.847358121330724,
		   1e-12);
	assert_true(kb_stats_change_pct(7, 7) == 0);
	assert_true(isnan(kb_stats_change_pct(0, 5)));
}

static void test_stats__pocock_matches_published_table(void **state)
{
	/* Pocock's constants for K equally spaced looks at alpha 0.05
	 * (Jennison and Turnbull 2000, table 2.1) */
	static const struct {
		size_t k;
		double c;
	} table[] = { { 2, 2.178 }, { 3, 2.289 }, { 4, 2.361 },
		      { 5, 2.413 }, { 10, 2.555 } };
	double info[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		double a = kb_stats_pocock_alpha(info, table[i].k, 0.05);
		double want = 2 * kb_stats_normal_cdf(-table[i].c);

		/* the table's 3 decimals of c */
		if (fabs(a - want) > 2 * 0.0005 * 0.05 * table[i].c)
			fail_msg("K = %zu: alpha' = %.5f, table %.5f",
				 table[i].k, a, want);
	}
	/* the scale of the information does not matter */
	for (i = 0; i < 5; i++)
		info[i] = 0.25 * (double)(i + 1);
	assert_rel(kb_stats_pocock_alpha(info, 5, 0.05),
		   2 * kb_stats_normal_cdf(-2.413), 2e-3);
	assert_true(kb_stats_pocock_alpha(info, 1, 0.05) == 0.05);
	assert_true(isnan(kb_stats_pocock_alpha(info, 0, 0.05)));
	assert_true(isnan(kb_stats_pocock_alpha(info, 2, 1.5)));
	info[1] = info[0];
	assert_true(isnan(kb_stats_pocock_alpha(info, 2, 0.05)));
}

static void test_stats__pocock_boundary_keeps_false_alarms_at_alpha(void **state)
{
	/*
	 * Looks at 3, 4, ..., 10 boots a side (kbisect's adaptive sampling
	 * by default): 20000 seeded null paths of the standardised
	 * statistic, each look at Pocock's nominal level.  Any look crosses
	 * in 5% of them (a binomial standard error of 0.15 points), where
	 * testing every look at 0.05 crosses in about 14%.
	 */
	double info[8], a, c, naive, crossings = 0, naive_crossings = 0;
	struct kb_rng r;
	unsigned path;
	size_t j;

	(void)state;
	for (j = 0; j < 8; j++)
		info[j] = (double)(3 + j);
	a = kb_stats_pocock_alpha(info, 8, 0.05);
	assert_true(a > 0.014 && a < 0.015);
	c = -kb_stats_t_quantile(a / 2, INFINITY);
	naive = -kb_stats_t_quantile(0.025, INFINITY);
	kb_rng_init(&r, 99);
	for (path = 0; path < 20000; path++) {
		double s = 0, prev = 0;
		int crossed = 0, naive_crossed = 0;

		for (j = 0; j < 8; j++) {
			double z;

			s += sqrt(info[j] - prev) * kb_rng_normal(&r);
			prev = info[j];
			z = fabs(s) / sqrt(info[j]);
			crossed |= z >= c;
			naive_crossed |= z >= naive;
		}
		crossings += crossed;
		naive_crossings += naive_crossed;
	}
	if (fabs(crossings / 20000 - 0.05) > 0.005)
		fail_msg("crossed in %.2f%%", crossings / 200);
	assert_true(naive_crossings / 20000 > 0.11);
}

static void test_stats__p_adjust_matches_r(void **state)
{
	/* R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") and "BH" */
	double p[] = { 0.01, 0.02, 0.03, 0.04, 0.05 }, out[5];
	static const double holm[] = { 0.05, 0.08, 0.09, 0.09, 0.09 };
	/* R: p.adjust(c(0.04, 0.001, 0.03, 0.2, 0.01), ...) */
	double q[] = { 0.04, 0.001, 0.03, 0.2, 0.01 };
	static const double holm_q[] = { 0.09, 0.005, 0.09, 0.2, 0.04 };
	static const double bh_q[] = { 0.05, 0.005, 0.05, 0.2, 0.025 };
	double nan_in[] = { 0.01, NAN, 0.04 };
	size_t i;

	(void)state;
	kb_stats_p_adjust(p, 5, KB_P_ADJUST_HOLM, out);
	for (i = 0; i < 5; i++)
		assert_rel(out[i], holm[i], 1e-12);
	kb_stats_p_adjust(p, 5, KB_P_ADJUST_BH, out);
	for (i = 0; i < 5; i++)
		assert_rel(out[i], 0.05, 1e-12);
	kb_stats_p_adjust(q, 5, KB_P_ADJUST_BH, out);
	for (i = 0; i < 5; i++)
		assert_rel(out[i], bh_q[i], 1e-12);
	/* in place */
	kb_stats_p_adjust(q, 5, KB_P_ADJUST_HOLM, q);
	for (i = 0; i < 5; i++)
		assert_rel(q[i], holm_q[i], 1e-12);
	/* NaN is not part of the family: two tests, not three */
	kb_stats_p_adjust(nan_in, 3, KB_P_ADJUST_HOLM, nan_in);
	assert_rel(nan_in[0], 0.02, 1e-12);
	assert_true(isnan(nan_in[1]));
	assert_rel(nan_in[2], 0.04, 1e-12);
	/* capped at 1: 2 * 0.6, then no lower than that */
	p[0] = 0.6;
	p[1] = 0.7;
	kb_stats_p_adjust(p, 2, KB_P_ADJUST_HOLM, out);
	assert_true(out[0] == 1 && out[1] == 1);
}

static void test_stats__mann_whitney_min_p(void **state)
{
	(void)state;
	assert_rel(kb_stats_mann_whitney_min_p(3, 3), 0.1, 1e-12);
	assert_rel(kb_stats_mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
	assert_rel(kb_stats_mann_whitney_min_p(3, 4), 2.0 / 35, 1e-12);
	assert_rel(kb_stats_mann_whitney_min_p(4, 3), 2.0 / 35, 1e-12);
	assert_rel(kb_stats_mann_whitney_min_p(10, 10), 2.0 / 184756, 1e-12);
	assert_true(kb_stats_mann_whitney_min_p(1, 1) == 1);
	assert_true(isnan(kb_stats_mann_whitney_min_p(0, 3)));
}

static void test_stats__signed_rank_matches_r(void **state)
{
	/* R's ?wilcox.test, Hollander & Wolfe's depression scores:
	 * wilcox.test(x, y, paired = TRUE) gives V = 40, p = 0.03906
	 * (0.01953 one-sided): 20 of the 512 signs */
	static const double x[] = { 1.83, 0.50, 1.62, 2.48, 1.68,
				    1.88, 1.55, 3.06, 1.30 };
	static const double y[] = { 0.878, 0.647, 0.598, 2.05, 1.06,
				    1.29,  1.06,  3.14,  1.29 };
	double d[9], v;
	size_t i;

	(void)state;
	for (i = 0; i < 9; i++)
		d[i] = x[i] - y[i];
	assert_rel(kb_stats_signed_rank(d, 9, &v), 20.0 / 512, 1e-12);
	assert_rel(v, 40, 1e-12);
	/* the sign of every difference turned: the same p, V = 5 */
	for (i = 0; i < 9; i++)
		d[i] = -d[i];
	assert_rel(kb_stats_signed_rank(d, 9, &v), 20.0 / 512, 1e-12);
	assert_rel(v, 5, 1e-12);
}

static void test_stats__signed_rank_exact_with_ties_and_zeros(void **state)
{
	/* |d| ranks 1.5 1.5 3 4, the positive ones summing to 6: of the
	 * 16 signs, 12 lie at least as far from the mean 5 (counted by
	 * hand); the zero is left out */
	static const double d[] = { 1, 0, 1, 2, -3 };
	static const double zeros[] = { 0, 0, 0 };
	static const double five[] = { 0.1, 0.2, 0.3, 0.4, 0.5 };
	static const double six[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };
	double v;

	(void)state;
	assert_rel(kb_stats_signed_rank(d, 5, &v), 0.75, 1e-12);
	assert_rel(v, 6, 1e-12);
	assert_true(kb_stats_signed_rank(zeros, 3, NULL) == 1);
	assert_true(isnan(kb_stats_signed_rank(d, 0, NULL)));
	/* all of one sign: the smallest p there is, 2 / 2^n */
	assert_rel(kb_stats_signed_rank(five, 5, NULL), 0.0625, 1e-12);
	assert_rel(kb_stats_signed_rank(six, 6, NULL), 0.03125, 1e-12);
	assert_rel(kb_stats_signed_rank_min_p(5), 0.0625, 1e-12);
	assert_rel(kb_stats_signed_rank_min_p(8), 2.0 / 256, 1e-12);
	assert_true(kb_stats_signed_rank_min_p(1) == 1);
	assert_true(isnan(kb_stats_signed_rank_min_p(0)));
}

static void test_stats__signed_rank_matches_enumeration(void **state)
{
	/* every sign of 8 tied-and-untied differences, counted outright */
	static const double a[] = { 0.3, -0.1, 0.2, 0.2, -0.5, 0.1, 0.4,
				    -0.2 };
	double rank[8], obs = 0, total = 0, p;
	unsigned mask, far = 0;
	size_t i, j;

	(void)state;
	for (i = 0; i < 8; i++) {
		double below = 0, same = 0;

		for (j = 0; j < 8; j++) {
			below += fabs(a[j]) < fabs(a[i]);
			same += fabs(a[j]) == fabs(a[i]);
		}
		rank[i] = below + (same + 1) / 2;
		total += rank[i];
		if (a[i] > 0)
			obs += rank[i];
	}
	for (mask = 0; mask < 256; mask++) {
		double s = 0;

		for (i = 0; i < 8; i++)
			if (mask & (1u << i))
				s += rank[i];
		far += fabs(s - total / 2) >= fabs(obs - total / 2) - 1e-9;
	}
	p = kb_stats_signed_rank(a, 8, NULL);
	assert_rel(p, far / 256.0, 1e-12);
}

static void test_stats__paired_t_by_hand(void **state)
{
	/* d = 1..5: mean 3, sd sqrt(2.5), se sqrt(0.5), t = 4.2426 on 4
	 * df: p = 0.013236 (the closed form of t with 4 df), the 95%
	 * interval 3 -/+ 2.776445 * 0.707107 */
	static const double d[] = { 1, 2, 3, 4, 5 };
	static const double flat[] = { 2, 2, 2 };
	double m, lo, hi;

	(void)state;
	assert_rel(kb_stats_paired_t(d, 5, 0.95, &m, &lo, &hi),
		   0.01323559956368281, 1e-8);
	assert_rel(m, 3, 1e-12);
	assert_rel(lo, 3 - 1.963243161477561, 1e-8);
	assert_rel(hi, 3 + 1.963243161477561, 1e-8);
	assert_true(kb_stats_paired_t(flat, 3, 0.95, &m, &lo, &hi) == 0);
	assert_true(lo == 2 && hi == 2);
	assert_true(isnan(kb_stats_paired_t(d, 1, 0.95, &m, &lo, &hi)));
	assert_rel(m, 1, 1e-12);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_stats__t_quantile_matches_printed_tables),
	cmocka_unit_test(test_stats__t_quantile_is_precise),
	cmocka_unit_test(test_stats__t_quantile_matches_closed_forms),
	cmocka_unit_test(test_stats__t_quantile_is_odd),
	cmocka_unit_test(test_stats__t_quantile_edges),
	cmocka_unit_test(test_stats__t_cdf_known_values),
	cmocka_unit_test(test_stats__t_quantile_inverts_cdf),
	cmocka_unit_test(test_stats__summary_known_values),
	cmocka_unit_test(test_stats__summary_of_nothing_is_nan),
	cmocka_unit_test(test_stats__summary_of_one_value_has_no_spread),
	cmocka_unit_test(test_stats__summary_keeps_precision_on_large_values),
	cmocka_unit_test(test_stats__summary_with_nan_is_nan),
	cmocka_unit_test(test_stats__summary_cv_of_zero_mean_is_nan),
	cmocka_unit_test(test_stats__median_leaves_input_alone),
	cmocka_unit_test(test_stats__mean),
	cmocka_unit_test(test_stats__change_pct),
	cmocka_unit_test(test_stats__pocock_matches_published_table),
	cmocka_unit_test(test_stats__pocock_boundary_keeps_false_alarms_at_alpha),
	cmocka_unit_test(test_stats__p_adjust_matches_r),
	cmocka_unit_test(test_stats__mann_whitney_min_p),
	cmocka_unit_test(test_stats__signed_rank_matches_r),
	cmocka_unit_test(test_stats__signed_rank_exact_with_ties_and_zeros),
	cmocka_unit_test(test_stats__signed_rank_matches_enumeration),
	cmocka_unit_test(test_stats__paired_t_by_hand),
};

KB_TEST_MAIN(tests)
