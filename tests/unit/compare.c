#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "compare.h"
#include "rng.h"
#include "stats.h"

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

static void test_compare__mann_whitney_ties_use_normal_approximation(void **state)
{
	/*
	 * a = {1, 2, 2, 3}, b = {2, 3, 4, 5}: pooled ranks 1, 3, 3, 3 | 3,
	 * 5.5, 5.5 ... computed by hand: R_a = 1 + 3 + 3 + 5.5 = 12.5,
	 * U = 12.5 - 10 = 2.5; mu = 8; ties: a triple (2) and a pair (3):
	 * sum(t^3 - t) = 24 + 6 = 30; sigma^2 = 16/12 * (9 - 30/56)
	 * = 11.2857; z = (5.5 - 0.5)/3.3594 = 1.4884; p = 0.13666.
	 */
	double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 }, u;
	double p = kb_stats_mann_whitney(a, 4, b, 4, &u);

	(void)state;
	assert_true(u == 2.5);
	if (fabs(p - 0.13666) > 2e-4)
		fail_msg("p = %.6f, expected 0.13666", p);
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
	/* three boots a side can never be significant for a rank test */
	cmp(base, 3, drop, 3, 1, &c);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	assert_string_equal(kb_verdict_name(KB_VERDICT_NO_CHANGE),
			    "no-change");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_compare__mann_whitney_exact_matches_enumeration),
	cmocka_unit_test(test_compare__mann_whitney_known_values),
	cmocka_unit_test(test_compare__mann_whitney_ties_use_normal_approximation),
	cmocka_unit_test(test_compare__bootstrap_is_seeded_and_centred),
	cmocka_unit_test(test_compare__verdict_rules),
};

KB_TEST_MAIN(tests)
