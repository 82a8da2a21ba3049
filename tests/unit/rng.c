#include <math.h>
#include <string.h>

#include "test.h"
#include "rng.h"

/*
 * Reference values come from an independent Python transcription of
 * splitmix64 + xoshiro256** (Vigna's reference C code).  They pin the
 * streams: a change here breaks the replay of stored experiments.
 */
static void test_rng__matches_reference_outputs(void **state)
{
	struct kb_rng r;

	(void)state;
	kb_rng_init(&r, 0);
	assert_true(kb_rng_next(&r) == 0x99ec5f36cb75f2b4ULL);
	assert_true(kb_rng_next(&r) == 0xbf6e1f784956452aULL);
	assert_true(kb_rng_next(&r) == 0x1a5f849d4933e6e0ULL);
	assert_true(kb_rng_next(&r) == 0x6aa594f1262d2d2cULL);
	kb_rng_init(&r, 42);
	assert_true(kb_rng_next(&r) == 0x15780b2e0c2ec716ULL);
	assert_true(kb_rng_next(&r) == 0x6104d9866d113a7eULL);
}

static void test_rng__same_seed_same_stream(void **state)
{
	struct kb_rng a, b;
	int i;

	(void)state;
	kb_rng_init(&a, 12345);
	kb_rng_init(&b, 12345);
	for (i = 0; i < 1000; i++)
		assert_true(kb_rng_normal(&a) == kb_rng_normal(&b));
	kb_rng_init(&b, 12346);
	assert_true(kb_rng_next(&a) != kb_rng_next(&b));
}

static void test_rng__uniform_is_in_open_interval(void **state)
{
	struct kb_rng r;
	double sum = 0, lo = 1, hi = 0;
	int i, n = 100000;

	(void)state;
	kb_rng_init(&r, 7);
	for (i = 0; i < n; i++) {
		double u = kb_rng_uniform(&r);

		assert_true(u > 0.0 && u < 1.0);
		sum += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	/* mean 0.5, sd of the mean 1/sqrt(12n) ~ 0.0009 */
	assert_true(fabs(sum / n - 0.5) < 0.005);
	assert_true(lo < 0.001 && hi > 0.999);
}

static void test_rng__normal_has_mean_0_and_sd_1(void **state)
{
	struct kb_rng r;
	double sum = 0, sumsq = 0, mean, sd;
	int i, n = 100000, beyond2 = 0;

	(void)state;
	kb_rng_init(&r, 99);
	for (i = 0; i < n; i++) {
		double z = kb_rng_normal(&r);

		sum += z;
		sumsq += z * z;
		beyond2 += fabs(z) > 2.0;
	}
	mean = sum / n;
	sd = sqrt(sumsq / n - mean * mean);
	assert_true(fabs(mean) < 0.02);
	assert_true(fabs(sd - 1.0) < 0.02);
	/* P(|z| > 2) = 4.55% */
	assert_true(beyond2 > n * 0.040 && beyond2 < n * 0.051);
}

static void test_rng__below_stays_in_range_and_covers_it(void **state)
{
	struct kb_rng r;
	unsigned counts[7] = { 0 };
	int i;

	(void)state;
	kb_rng_init(&r, 3);
	assert_true(kb_rng_below(&r, 0) == 0);
	assert_true(kb_rng_below(&r, 1) == 0);
	for (i = 0; i < 70000; i++) {
		uint64_t k = kb_rng_below(&r, 7);

		assert_true(k < 7);
		counts[k]++;
	}
	for (i = 0; i < 7; i++)
		assert_true(counts[i] > 9500 && counts[i] < 10500);
	for (i = 0; i < 1000; i++)
		assert_true(kb_rng_below(&r, UINT64_MAX - 1) < UINT64_MAX - 1);
}

static void test_rng__seed_from_is_stable_and_distinct(void **state)
{
	uint64_t s;

	(void)state;
	assert_true(kb_rng_seed_from(1, "PARAVIRT_SPINLOCKS=n", 1, 0) ==
		    0x6bda0374338999a8ULL);
	assert_true(kb_rng_seed_from(0, "", 0, 0) == 0xd5784dc90ff56603ULL);
	assert_true(kb_rng_seed_from(0, NULL, 0, 0) ==
		    kb_rng_seed_from(0, "", 0, 0));
	s = kb_rng_seed_from(1, "a", 1, 1);
	assert_true(s != kb_rng_seed_from(2, "a", 1, 1));
	assert_true(s != kb_rng_seed_from(1, "b", 1, 1));
	assert_true(s != kb_rng_seed_from(1, "a", 2, 1));
	assert_true(s != kb_rng_seed_from(1, "a", 1, 2));
	/* a and b are not interchangeable */
	assert_true(kb_rng_seed_from(1, "a", 1, 2) !=
		    kb_rng_seed_from(1, "a", 2, 1));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_rng__matches_reference_outputs),
	cmocka_unit_test(test_rng__same_seed_same_stream),
	cmocka_unit_test(test_rng__uniform_is_in_open_interval),
	cmocka_unit_test(test_rng__normal_has_mean_0_and_sd_1),
	cmocka_unit_test(test_rng__below_stays_in_range_and_covers_it),
	cmocka_unit_test(test_rng__seed_from_is_stable_and_distinct),
};

KB_TEST_MAIN(tests)
