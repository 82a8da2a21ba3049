#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "compare.h"
#include "rng.h"
#include "stats.h"

#define assert_rel(got, want, rel)                                         \
	do {                                                               \
		double got_ = (got), want_ = (want);                       \
		if (!(fabs(got_ - want_) <= (rel) * fabs(want_)))          \
			fail_msg("%s = %.17g, want %.17g", #got, got_,     \
				 want_);                                   \
	} while (0)

/*
 * Reference for the exact Mann-Whitney p-value, computed independently of
 * the library's dynamic programme: enumerate every way to choose which na
 * of the pooled ranks belong to A and count the splits whose U is at
 * least as extreme.
 */
static double brute_force_p(const double *a, size_t na, const double *b,
			    size_t nb)
{
	double pool[16], u_obs = 0, mu = (double)(na * nb) / 2;
	size_t n = na + nb, i, j;
	unsigned long mask, total = 0, extreme = 0;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			u_obs += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	for (i = 0; i < na; i++)
		pool[i] = a[i];
	for (i = 0; i < nb; i++)
		pool[na + i] = b[i];
	for (mask = 0; mask < (1ul << n); mask++) {
		double u = 0;

		if ((size_t)__builtin_popcountl(mask) != na)
			continue;
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if ((mask >> i & 1) && !(mask >> j & 1))
					u += pool[i] > pool[j]	  ? 1
					     : pool[i] == pool[j] ? 0.5
								  : 0;
		total++;
		if (fabs(u - mu) >= fabs(u_obs - mu) - 1e-9)
			extreme++;
	}
	return (double)extreme / (double)total;
}

static void test_compare__mann_whitney_exact_matches_enumeration(void **state)
{
	struct kb_rng r;
	double a[8], b[8];
	int trial;

	(void)state;
	kb_rng_init(&r, 7);
	for (trial = 0; trial < 200; trial++) {
		size_t na = 2 + kb_rng_below(&r, 5), nb = 2 + kb_rng_below(&r, 5);
		size_t i;
		double p, ref;

		for (i = 0; i < na; i++)
			a[i] = kb_rng_normal(&r);
		for (i = 0; i < nb; i++)
			b[i] = kb_rng_normal(&r) + 0.8;
		p = kb_stats_mann_whitney(a, na, b, nb, NULL);
		ref = brute_force_p(a, na, b, nb);
		if (fabs(p - ref) > 1e-12)
			fail_msg("na=%zu nb=%zu: p=%.15g enumeration=%.15g",
				 na, nb, p, ref);
	}
}

static void test_compare__mann_whitney_known_values(void **state)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
	double u;

	(void)state;
	/* complete separation: 2 / C(6,3) = 0.1 and 2 / C(8,4) = 2/70 */
	assert_true(fabs(kb_stats_mann_whitney(a3, 3, b3, 3, &u) - 0.1) <
		    1e-12);
	assert_true(u == 0);
	assert_true(fabs(kb_stats_mann_whitney(a4, 4, b4, 4, &u) -
			 2.0 / 70) < 1e-12);
	assert_true(fabs(kb_stats_mann_whitney(b4, 4, a4, 4, &u) -
			 2.0 / 70) < 1e-12);
	assert_true(u == 16);
	assert_true(isnan(kb_stats_mann_whitney(a3, 0, b3, 3, NULL)));
}

static void test_compare__mann_whitney_ties_are_exact(void **state)
{
	/*
	 * a = {1, 2, 2, 3}, b = {2, 3, 4, 5}: average ranks 1 | 3 3 3 |
	 * 5.5 5.5 | 7 | 8, U = 2.5.  Of the C(8, 4) = 70 splits, 14 have a
	 * U at least 5.5 from its mean 8 (enumerated): p = 0.2, where the
	 * normal approximation said 0.137.
	 */
	double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 }, u;
	double p = kb_stats_mann_whitney(a, 4, b, 4, &u);
	double x[8], y[8];
	struct kb_rng r;
	int trial;

	(void)state;
	assert_true(u == 2.5);
	if (fabs(p - 0.2) > 1e-12)
		fail_msg("p = %.15g, expected 0.2", p);
	assert_true(fabs(p - brute_force_p(a, 4, b, 4)) < 1e-12);
	/* values from a few levels, so that most are tied */
	kb_rng_init(&r, 11);
	for (trial = 0; trial < 200; trial++) {
		size_t na = 1 + kb_rng_below(&r, 7), nb = 1 + kb_rng_below(&r, 7);
		size_t i;
		double ref;

		for (i = 0; i < na; i++)
			x[i] = (double)kb_rng_below(&r, 3);
		for (i = 0; i < nb; i++)
			y[i] = (double)kb_rng_below(&r, 3) + 0.5 * (trial % 2);
		p = kb_stats_mann_whitney(x, na, y, nb, NULL);
		ref = brute_force_p(x, na, y, nb);
		if (fabs(p - ref) > 1e-12)
			fail_msg("na=%zu nb=%zu: p=%.15g enumeration=%.15g",
				 na, nb, p, ref);
	}
}

static void test_compare__mann_whitney_large_ties_use_normal_approximation(void **state)
{
	/* 60 a side, values 1..5 against 2..6: the normal approximation
	 * with tie and continuity corrections, U = 1152, p from the formula
	 * evaluated independently */
	double a[60], b[60], u, p;
	size_t i;

	(void)state;
	for (i = 0; i < 60; i++) {
		a[i] = (double)(i % 5 + 1);
		b[i] = (double)(i % 5 + 2);
	}
	p = kb_stats_mann_whitney(a, 60, b, 60, &u);
	assert_true(u == 1152);
	if (fabs(p - 0.0005448800276902629) > 1e-12)
		fail_msg("p = %.17g", p);
}

static void test_compare__three_a_side_decides_by_the_interval(void **state)
{
	/* issue 29: the exact Mann-Whitney cannot reach p < 0.05 with 3
	 * boots a side, so -89.5% [-90.5%, -88.4%] was "inconclusive" */
	double a[] = { 1000, 1012, 990 }, b[] = { 105, 104.5, 106 };
	double t1[] = { 100, 100, 100 }, t2[] = { 90, 90, 90 };
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;

	(void)state;
	assert_true(kb_stats_mann_whitney(a, 3, b, 3, NULL) >= 0.1 - 1e-12);
	kb_compare_samples(a, 3, b, 3, &o, &c);
	assert_int_equal(c.test, KB_COMPARE_WELCH_T);
	assert_true(c.min_p == 0);
	assert_true(c.p < 0.05);
	assert_true(c.ci_low > -91 && c.ci_high < -88);
	assert_true(c.change_pct > -90 && c.change_pct < -89);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	assert_string_equal(kb_compare_test_name(c.test), "welch-t");
	/* ties without spread: the interval is the estimate */
	kb_compare_samples(t1, 3, t2, 3, &o, &c);
	assert_true(c.p == 0);
	assert_true(fabs(c.ci_low + 10) < 1e-9 && fabs(c.ci_high + 10) < 1e-9);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	/* all six tied: p = 1, the interval [0, 0]: no change */
	kb_compare_samples(t1, 3, t1, 3, &o, &c);
	assert_true(c.p == 1);
	assert_true(c.ci_low == 0 && c.ci_high == 0);
	assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
	/* one boot a side has no spread: no test, no verdict */
	kb_compare_samples(a, 1, b, 3, &o, &c);
	assert_true(c.min_p == 1);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
}

static void test_compare__rank_test_does_not_overrule_the_interval(
	void **state)
{
	/* issue 29, the Xen lab's "-29.1% [-56.7%, +6.3%], regression
	 * (n = 6 vs 6)": every B below every A, so the rank test gives
	 * p = 0.002, but one B far out makes the interval on the log
	 * ratio include no change; the verdict is the interval's */
	double a[] = { 100, 101, 102, 103, 104, 105 };
	double b[] = { 30, 95, 96, 97, 98, 99 };
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;

	(void)state;
	assert_true(kb_stats_mann_whitney(a, 6, b, 6, NULL) < 0.01);
	kb_compare_samples(a, 6, b, 6, &o, &c);
	assert_true(c.ci_low < 0 && c.ci_high > 0);
	assert_true(c.p >= 0.05);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	/* paired, the same */
	kb_compare_paired(a, b, NULL, 6, &o, &c);
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_true(c.ci_low < 0 && c.ci_high > 0);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
}

/* Is @c's verdict what its interval says (the rule of compare.h)? */
static void assert_verdict_is_the_interval(const struct kb_comparison *c,
					   double threshold)
{
	int excludes = c->ci_low > 0 || c->ci_high < 0;

	if ((c->p < c->alpha) != excludes)
		fail_msg("p %.17g at %g, interval [%.17g, %.17g]", c->p,
			 c->alpha, c->ci_low, c->ci_high);
	if (c->verdict == KB_VERDICT_REGRESSION ||
	    c->verdict == KB_VERDICT_IMPROVEMENT)
		assert_true(excludes && fabs(c->est_pct) >= threshold &&
			    c->ci_low <= c->est_pct && c->est_pct <= c->ci_high);
	if (c->verdict == KB_VERDICT_NO_CHANGE)
		assert_true(c->ci_low > -threshold && c->ci_high < threshold);
	if (excludes && fabs(c->est_pct) >= threshold)
		assert_true(c->verdict == KB_VERDICT_REGRESSION ||
			    c->verdict == KB_VERDICT_IMPROVEMENT);
}

static void test_compare__verdict_never_contradicts_its_interval(
	void **state)
{
	/* 3000 draws of 2 to 10 boots a side, log-normal and with an odd
	 * bad boot, unpaired, paired and at a look's level */
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;
	struct kb_rng r;
	double a[10], b[10];
	unsigned trial;
	size_t n, i;

	(void)state;
	kb_rng_init(&r, 29);
	for (trial = 0; trial < 3000; trial++) {
		double shift = 0.02 * (double)kb_rng_below(&r, 8);

		n = 2 + kb_rng_below(&r, 9);
		for (i = 0; i < n; i++) {
			a[i] = 1000 * exp(0.05 * kb_rng_normal(&r));
			b[i] = 1000 * exp(-shift + 0.05 * kb_rng_normal(&r));
		}
		if (trial % 3 == 0)
			b[0] *= 0.5;
		o.look_alpha = trial % 2 ? 0.0147 : 0;
		o.looks = trial % 2 ? 8 : 1;
		kb_compare_samples(a, n, b, n, &o, &c);
		assert_verdict_is_the_interval(&c, o.threshold_pct);
		if (n >= KB_COMPARE_MIN_PAIRS) {
			kb_compare_paired(a, b, NULL, n, &o, &c);
			assert_verdict_is_the_interval(&c, o.threshold_pct);
		}
	}
}

static void test_compare__bootstrap_is_seeded_and_centred(void **state)
{
	double a[] = { 100, 102, 98, 101, 99 }, b[] = { 110, 112, 108, 111,
							109 };
	double lo1, hi1, lo2, hi2, lo3, hi3;

	(void)state;
	kb_stats_bootstrap_change(a, 5, b, 5, 2000, 42, 0.95, &lo1, &hi1);
	kb_stats_bootstrap_change(a, 5, b, 5, 2000, 42, 0.95, &lo2, &hi2);
	kb_stats_bootstrap_change(a, 5, b, 5, 2000, 43, 0.95, &lo3, &hi3);
	assert_true(lo1 == lo2 && hi1 == hi2);
	assert_true(lo1 != lo3 || hi1 != hi3);
	/* the true change is +10%: the interval brackets it, tightly */
	assert_true(lo1 < 10 && hi1 > 10);
	assert_true(lo1 > 7 && hi1 < 13);
}

static void cmp(const double *a, size_t na, const double *b, size_t nb,
		int higher, struct kb_comparison *c)
{
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;

	o.higher_is_better = higher;
	kb_compare_samples(a, na, b, nb, &o, c);
}

static void test_compare__verdict_rules(void **state)
{
	double base[] = { 100, 101, 99, 100.5, 99.5 };
	double drop[] = { 80, 81, 79, 80.5, 79.5 };
	double same[] = { 100.2, 100.8, 99.1, 100.4, 99.6 };
	double small[] = { 102, 103, 101, 102.5, 101.5 };
	double noisy[] = { 60, 140, 90, 120, 85 };
	struct kb_comparison c;

	(void)state;
	cmp(base, 5, drop, 5, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	assert_true(fabs(c.change_pct + 20) < 0.01);
	assert_true(c.p < 0.05);
	/* lower is better: the same drop is an improvement */
	cmp(base, 5, drop, 5, 0, &c);
	assert_int_equal(c.verdict, KB_VERDICT_IMPROVEMENT);
	cmp(base, 5, same, 5, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
	/* significant but under the 5% threshold, interval inside it */
	cmp(base, 5, small, 5, 1, &c);
	assert_true(c.p < 0.05);
	assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
	/* too noisy to say */
	cmp(base, 5, noisy, 5, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	/* three boots a side decide: the t test has no floor */
	cmp(base, 3, drop, 3, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	assert_string_equal(kb_verdict_name(KB_VERDICT_NO_CHANGE),
			    "no-change");
}

static void test_compare__interval_covers_lognormal_truth(void **state)
{
	/* 400 seeded experiments, 5 boots a side, 10% log-normal noise,
	 * a true change of +8%: the 95% interval covers it in 92% or more
	 * (the percentile bootstrap did in about 87%) */
	double a[5], b[5], s = sqrt(log1p(0.01));
	struct kb_rng r;
	unsigned i, hit = 0;
	size_t k;

	(void)state;
	kb_rng_init(&r, 2024);
	for (i = 0; i < 400; i++) {
		double lo, hi;

		for (k = 0; k < 5; k++) {
			a[k] = 1000 * exp(-s * s / 2 + s * kb_rng_normal(&r));
			b[k] = 1080 * exp(-s * s / 2 + s * kb_rng_normal(&r));
		}
		kb_stats_log_ratio_ci(a, 5, b, 5, 0.95, &lo, &hi);
		hit += lo <= 8 && 8 <= hi;
	}
	if (hit < 368 || hit > 396)
		fail_msg("covered in %u of 400", hit);
}

static void test_compare__log_ratio_interval_known_value(void **state)
{
	/* logs {0, l, 2l} and {l, 2l, 3l} with l = log 2: d = l, each
	 * variance l^2 / 3, Welch df 4, t(0.975, 4) = 2.7764451051977987 */
	double a[] = { 1, 2, 4 }, b[] = { 2, 4, 8 }, lo, hi;

	(void)state;
	kb_stats_log_ratio_ci(a, 3, b, 3, 0.95, &lo, &hi);
	assert_true(fabs(lo - -58.44649536782689) < 1e-9);
	assert_true(fabs(hi - 862.6143535683802) < 1e-7);
	kb_stats_log_ratio_ci(a, 1, b, 3, 0.95, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

static void test_compare__no_change_at_three_a_side(void **state)
{
	double a[] = { 100, 100.5, 99.5, 100.2 }, b[] = { 100.1, 99.8, 100.3,
							  99.9 };
	struct kb_comparison c;

	(void)state;
	/* the interval is well inside ±5%: the t test could have shown a
	 * regression with 3 boots a side, so it shows its absence */
	cmp(a, 3, b, 3, 1, &c);
	assert_true(c.ci_low > -5 && c.ci_high < 5);
	assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
	cmp(a, 4, b, 4, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
	/* 2 a side of a noisier A and B: the interval at 1 df or so is
	 * far wider than ±5% */
	{
		double x[] = { 100, 104 }, y[] = { 101, 97 };

		cmp(x, 2, y, 2, 1, &c);
	}
	assert_true(c.ci_low < -5 || c.ci_high > 5);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
}

static void test_compare__nonpositive_values_are_counted(void **state)
{
	double a[] = { 0, 1.2, 1.1, 0.9, 1.0 }, b[] = { 1.0, 1.1, 0.9, 1.05,
						       0.95 };
	struct kb_comparison c;

	(void)state;
	cmp(a, 5, b, 5, 1, &c);
	assert_int_equal(c.nonpositive, 1);
	assert_true(isnan(c.ci_low) && isnan(c.ci_high));
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	assert_false(isnan(c.p));
	/* no log scale: the rank test on the values */
	assert_int_equal(c.test, KB_COMPARE_MANN_WHITNEY);
}

static void test_compare__a_look_decides_at_its_nominal_level(void **state)
{
	/* logs of A and B 0.06 apart, and noise: p = 0.037 */
	double a[] = { 100, 102.02, 98.02, 100 }, b[4];
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c, first;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		b[i] = a[(i + 1) % 4] * exp(-0.06) * (i % 2 ? 1.04 : 0.96);
	kb_compare_samples(a, 4, b, 4, &o, &first);
	assert_true(first.p < 0.05 && first.p > 0.02);
	assert_int_equal(first.verdict, KB_VERDICT_REGRESSION);
	assert_true(first.alpha == 0.05 && first.looks == 1);
	/* one look of 8 (3 to 10 boots a side): p is not enough, and the
	 * interval is the wider one of that level */
	o.look_alpha = kb_compare_look_alpha_welch(3, 10, 0.05, &o.looks);
	assert_int_equal(o.looks, 8);
	assert_true(o.look_alpha > 0.01 && o.look_alpha < 0.03);
	kb_compare_samples(a, 4, b, 4, &o, &c);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	assert_true(c.alpha == o.look_alpha && c.looks == 8);
	assert_true(c.ci_low < first.ci_low && c.ci_high > 0);
}

static void test_compare__looks_are_every_boot_or_spread(void **state)
{
	unsigned n[KB_COMPARE_LOOKS_MAX], k;
	size_t m, j;

	(void)state;
	m = kb_compare_looks(3, 10, n);
	assert_int_equal(m, 8);
	for (j = 0; j < m; j++)
		assert_int_equal(n[j], 3 + j);
	m = kb_compare_looks(5, 5, n);
	assert_int_equal(m, 1);
	assert_int_equal(n[0], 5);
	assert_true(kb_compare_look_alpha(5, 5, 0.05, &k) == 0.05);
	assert_int_equal(k, 1);
	m = kb_compare_looks(3, 1000, n);
	assert_int_equal(m, KB_COMPARE_LOOKS_MAX);
	assert_int_equal(n[0], 3);
	assert_int_equal(n[m - 1], 1000);
	for (j = 1; j < m; j++)
		assert_true(n[j] > n[j - 1]);
}

static void test_compare__paired_takes_a_drift_out(void **state)
{
	/* a host slowing by a tenth a round, B 15% below A within each:
	 * unpaired the drift swamps it, paired it is all there is */
	double a[6], b[6];
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {
		a[i] = 1000 * pow(0.9, (double)i) * (1 + 0.01 * (double)(i % 2));
		b[i] = 0.85 * 1000 * pow(0.9, (double)i) *
		       (1 - 0.01 * (double)(i % 3));
	}
	kb_compare_samples(a, 6, b, 6, &o, &c);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	kb_compare_paired(a, b, NULL, 6, &o, &c);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	/* the paired t of the log ratios, whatever the pairs */
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_true(c.p < 0.001);
	assert_true(c.min_p == 0);
	assert_int_equal(c.npairs, 6);
	assert_true(c.change_pct < -14 && c.change_pct > -17);
	assert_true(c.ci_low < c.change_pct && c.change_pct < c.ci_high);
	assert_string_equal(kb_compare_test_name(c.test), "paired-t");
}

static void test_compare__paired_takes_the_drift_between_places_out(
	void **state)
{
	/* B 10% below A, each B boot a place before or after its A boot
	 * on a host losing 3% a place: the log ratios less that drift */
	double a[] = { 100, 97, 94.1, 91.3 }, b[4], adj[4], w_adj, w_raw;
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		adj[i] = i % 2 ? 0.03 : -0.03;
		b[i] = 0.9 * a[i] * exp(adj[i]) * (1 + 0.001 * (double)i);
	}
	kb_compare_paired(a, b, adj, 4, &o, &c);
	assert_true(fabs(c.change_pct + 9.85) < 0.2);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	w_adj = c.ci_high - c.ci_low;
	kb_compare_paired(a, b, NULL, 4, &o, &c);
	w_raw = c.ci_high - c.ci_low;
	assert_true(w_raw > 5 * w_adj);
	/* the summaries are of the boots as they were */
	assert_rel(c.b.mean, kb_stats_mean(b, 4), 1e-12);
}

static void test_compare__paired_interval_by_hand(void **state)
{
	/* log ratios log 2, 0, -log 2: mean 0, sd log 2, 2 df, t(0.975, 2)
	 * = 4.302653; 3 pairs cannot reach 0.05 by rank (0.25): the t
	 * test, which has no floor */
	double a[] = { 1, 2, 4 }, b[] = { 2, 2, 2 };
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;

	(void)state;
	kb_compare_paired(a, b, NULL, 3, &o, &c);
	assert_true(fabs(c.change_pct) < 1e-12);
	assert_rel(c.ci_low, -82.126894, 1e-6);
	assert_rel(c.ci_high, 459.499837, 1e-6);
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_true(c.min_p == 0);
	assert_rel(c.p, 1, 1e-12);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	assert_string_equal(kb_compare_test_name(c.test), "paired-t");
}

static void test_compare__paired_look_of_a_sequential_test_is_t(void **state)
{
	/* at a look, the paired t at the level calibrated for it */
	double a[8], b[8];
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++) {
		a[i] = 100 + (double)i;
		b[i] = 0.8 * a[i] * (i == 3 ? 1.3 : 1 + 0.01 * (double)i);
	}
	kb_compare_paired(a, b, NULL, 8, &o, &c);
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_true(c.alpha == 0.05);
	o.look_alpha = kb_compare_look_alpha_welch(3, 10, 0.05, &o.looks);
	o.look_alpha_paired = kb_compare_look_alpha_paired(3, 10, 0.05, NULL);
	kb_compare_paired(a, b, NULL, 8, &o, &c);
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_true(c.alpha == o.look_alpha_paired && c.looks == 8);
}

static void test_compare__welch_look_level_keeps_false_alarms_at_alpha(
	void **state)
{
	/* null sequences of 3 to 10 boots a side drawn apart from the
	 * calibration's: at the calibrated level the Welch t crosses at
	 * some look in about 5% (Welch's degrees of freedom are cautious:
	 * the level is a little above Pocock's 0.0147) */
	double lvl = kb_compare_look_alpha_welch(3, 10, 0.05, NULL);
	unsigned looks = 0, k, n, hit_c = 0, N = 20000;
	struct kb_rng r;

	(void)state;
	assert_true(lvl > 0.01 && lvl < 0.03);
	assert_true(kb_compare_look_alpha_welch(3, 10, 0.05, &looks) == lvl);
	assert_int_equal(looks, 8);
	assert_true(kb_compare_look_alpha_welch(5, 5, 0.05, &looks) == 0.05);
	kb_rng_init(&r, 98);
	for (k = 0; k < N; k++) {
		double x[10], y[10], lo, hi, best = 1;

		for (n = 0; n < 10; n++) {
			x[n] = exp(0.1 * kb_rng_normal(&r));
			y[n] = exp(0.1 * kb_rng_normal(&r));
		}
		for (n = 3; n <= 10; n++) {
			double p = kb_stats_log_ratio_test(x, n, y, n, 0.95,
							   &lo, &hi, NULL,
							   NULL);

			best = p < best ? p : best;
		}
		hit_c += best < lvl;
	}
	assert_true(fabs((double)hit_c / N - 0.05) < 0.005);
}

static void test_compare__futility_stops_what_max_boots_cannot_decide(
	void **state)
{
	struct kb_comparison c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.verdict = KB_VERDICT_INCONCLUSIVE;
	c.test = KB_COMPARE_PAIRED_T;
	c.alpha = 0.0147;
	/* a 1% change, its standard error 3%: at 5 of 10 nothing would
	 * come of it */
	c.change_pct = c.est_pct = 1;
	c.se_log = 0.03;
	assert_true(kb_compare_futile(&c, 5, 10));
	/* too early to judge, or the end already */
	assert_false(kb_compare_futile(&c, 4, 10));
	assert_false(kb_compare_futile(&c, 10, 10));
	/* a 10% change at that error goes on */
	c.change_pct = c.est_pct = -10;
	assert_false(kb_compare_futile(&c, 5, 10));
	/* decided, or no error known: nothing to project */
	c.change_pct = c.est_pct = 1;
	c.verdict = KB_VERDICT_NO_CHANGE;
	assert_false(kb_compare_futile(&c, 5, 10));
	c.verdict = KB_VERDICT_INCONCLUSIVE;
	c.se_log = NAN;
	assert_false(kb_compare_futile(&c, 5, 10));
}

static void test_compare__paired_look_level_keeps_false_alarms_at_alpha(
	void **state)
{
	/* null sequences of 3 to 10 pairs drawn apart from the
	 * calibration's: at Pocock's level the paired t crosses at some
	 * look in about 6%, at the calibrated one in about 5% */
	double pocock = kb_compare_look_alpha(3, 10, 0.05, NULL);
	double lvl = kb_compare_look_alpha_paired(3, 10, 0.05, NULL);
	unsigned looks = 0, k, n, hit_p = 0, hit_c = 0, N = 20000;
	struct kb_rng r;

	(void)state;
	assert_true(lvl < pocock && lvl > 0.011);
	assert_true(kb_compare_look_alpha_paired(3, 10, 0.05, &looks) == lvl);
	assert_int_equal(looks, 8);
	assert_true(kb_compare_look_alpha_paired(5, 5, 0.05, &looks) == 0.05);
	assert_int_equal(looks, 1);
	kb_rng_init(&r, 99);
	for (k = 0; k < N; k++) {
		double d[10], m, lo, hi, best = 1;

		for (n = 0; n < 10; n++)
			d[n] = 0.1 * kb_rng_normal(&r);
		for (n = 3; n <= 10; n++) {
			double p = kb_stats_paired_t(d, n, 0.95, &m, &lo, &hi);

			best = p < best ? p : best;
		}
		hit_p += best < pocock;
		hit_c += best < lvl;
	}
	assert_true((double)hit_p / N > 0.055);
	assert_true(fabs((double)hit_c / N - 0.05) < 0.005);
}

static void test_compare__design_says_what_the_boots_can_call(void **state)
{
	struct kb_compare_design d;
	double sigma = sqrt(log1p(0.02 * 0.02));

	(void)state;
	/* 3 pairs at 2% noise: t(0.975, 2) = 4.302653 times the standard
	 * error of a mean of 3 log ratios */
	kb_compare_design(3, 1, 0.05, 0.02, 5, &d);
	assert_true(d.can_decide);
	assert_rel(d.halfwidth_pct,
		   expm1(4.302652729911275 * sigma * sqrt(2.0 / 3)) * 100, 1e-9);
	assert_true(d.halfwidth_pct > 7.2 && d.halfwidth_pct < 7.3);
	assert_true(d.min_change_pct == d.halfwidth_pct);
	assert_int_equal(d.no_change, 0);
	/* 10 a side unpaired, 18 df: inside the threshold, which it calls */
	kb_compare_design(10, 0, 0.05, 0.02, 5, &d);
	assert_true(d.halfwidth_pct < 5 && d.min_change_pct == 5);
	assert_int_equal(d.no_change, 1);
	/* noise not known: whether it can decide, nothing more */
	kb_compare_design(3, 0, 0.05, NAN, 5, &d);
	assert_true(d.can_decide && isnan(d.min_change_pct));
	assert_int_equal(d.no_change, -1);
	/* one boot a side, or 2 pairs, can never reach alpha */
	kb_compare_design(1, 0, 0.05, 0.02, 5, &d);
	assert_false(d.can_decide);
	kb_compare_design(2, 1, 0.05, 0.02, 5, &d);
	assert_false(d.can_decide);
	kb_compare_design(2, 0, 0.05, 0.02, 5, &d);
	assert_true(d.can_decide);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_compare__mann_whitney_exact_matches_enumeration),
	cmocka_unit_test(test_compare__mann_whitney_known_values),
	cmocka_unit_test(test_compare__mann_whitney_ties_are_exact),
	cmocka_unit_test(test_compare__mann_whitney_large_ties_use_normal_approximation),
	cmocka_unit_test(test_compare__three_a_side_decides_by_the_interval),
	cmocka_unit_test(test_compare__rank_test_does_not_overrule_the_interval),
	cmocka_unit_test(test_compare__verdict_never_contradicts_its_interval),
	cmocka_unit_test(test_compare__bootstrap_is_seeded_and_centred),
	cmocka_unit_test(test_compare__verdict_rules),
	cmocka_unit_test(test_compare__interval_covers_lognormal_truth),
	cmocka_unit_test(test_compare__log_ratio_interval_known_value),
	cmocka_unit_test(test_compare__no_change_at_three_a_side),
	cmocka_unit_test(test_compare__nonpositive_values_are_counted),
	cmocka_unit_test(test_compare__a_look_decides_at_its_nominal_level),
	cmocka_unit_test(test_compare__looks_are_every_boot_or_spread),
	cmocka_unit_test(test_compare__paired_takes_a_drift_out),
	cmocka_unit_test(test_compare__paired_interval_by_hand),
	cmocka_unit_test(test_compare__paired_look_level_keeps_false_alarms_at_alpha),
	cmocka_unit_test(test_compare__paired_takes_the_drift_between_places_out),
	cmocka_unit_test(test_compare__paired_look_of_a_sequential_test_is_t),
	cmocka_unit_test(test_compare__welch_look_level_keeps_false_alarms_at_alpha),
	cmocka_unit_test(test_compare__futility_stops_what_max_boots_cannot_decide),
	cmocka_unit_test(test_compare__design_says_what_the_boots_can_call),
};

KB_TEST_MAIN(tests)
