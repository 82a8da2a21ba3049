#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "design.h"
#include "err.h"

static struct kb_design *make_ok(enum kb_design_kind kind, size_t n,
				 const size_t *nlevels)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_design *d = NULL;

	if (kb_design_new(kind, n, nlevels, &d, &err))
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(d);
	assert_int_equal(kb_design_nfactors(d), n);
	return d;
}

static void make_err(enum kb_design_kind kind, size_t n, const size_t *nlevels,
		     const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_design *d = (struct kb_design *)&err; /* must be reset */

	assert_int_equal(kb_design_new(kind, n, nlevels, &d, &err), KB_EINPUT);
	assert_null(d);
	assert_int_equal(err.code, KB_EINPUT);
	assert_msg_contains(err.msg, expect);
}

static void assert_baseline(const struct kb_design *d)
{
	size_t f;

	for (f = 0; f < kb_design_nfactors(d); f++)
		assert_int_equal(kb_design_level(d, 0, f), 0);
}

static size_t ndiff(const struct kb_design *d, size_t r1, size_t r2)
{
	size_t f, n = 0;

	for (f = 0; f < kb_design_nfactors(d); f++)
		n += kb_design_level(d, r1, f) != kb_design_level(d, r2, f);
	return n;
}

static void assert_distinct(const struct kb_design *d)
{
	size_t i, j;

	for (i = 0; i < kb_design_nruns(d); i++)
		for (j = i + 1; j < kb_design_nruns(d); j++)
			if (ndiff(d, i, j) == 0)
				fail_msg("runs %zu and %zu are the same", i, j);
}

/* The ±1 coding of a two-level design: level 0 = -1, level 1 = +1. */
static int x(const struct kb_design *d, size_t run, size_t factor)
{
	return kb_design_level(d, run, factor) ? 1 : -1;
}

/*
 * The product of the columns in @set (bit f = factor f) if it is the same
 * in every run (the set is a word of the defining relation); 0 otherwise.
 */
static int constant_product(const struct kb_design *d, unsigned set)
{
	int first = 0;
	size_t r, f;

	for (r = 0; r < kb_design_nruns(d); r++) {
		int p = 1;

		for (f = 0; f < kb_design_nfactors(d); f++)
			if (set & (1u << f))
				p *= x(d, r, f);
		if (r == 0)
			first = p;
		else if (p != first)
			return 0;
	}
	return first;
}

static unsigned bits(unsigned v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static const size_t two[16] = { 2, 2, 2, 2, 2, 2, 2, 2,
				2, 2, 2, 2, 2, 2, 2, 2 };

static void test_design__full_has_every_combination_once(void **state)
{
	static const size_t nlevels[] = { 2, 3, 4 };
	struct kb_design *d = make_ok(KB_DESIGN_FULL, 3, nlevels);
	size_t r, f;

	(void)state;
	assert_int_equal(kb_design_nruns(d), 24);
	assert_int_equal(kb_design_full_size(3, nlevels), 24);
	assert_baseline(d);
	assert_distinct(d);
	for (r = 0; r < 24; r++)
		for (f = 0; f < 3; f++)
			assert_true(kb_design_level(d, r, f) < nlevels[f]);
	/* the last factor varies fastest */
	assert_int_equal(kb_design_level(d, 1, 2), 1);
	assert_int_equal(kb_design_level(d, 4, 1), 1);
	assert_int_equal(kb_design_level(d, 4, 2), 0);
	assert_int_equal(kb_design_level(d, 12, 0), 1);
	assert_int_equal(kb_design_level(d, 23, 0), 1);
	assert_int_equal(kb_design_level(d, 23, 1), 2);
	assert_int_equal(kb_design_level(d, 23, 2), 3);
	assert_null(kb_design_generators(d));
	assert_int_equal(kb_design_resolution(d), 0);
	kb_design_free(d);
}

static void test_design__one_at_a_time_changes_one_factor(void **state)
{
	static const size_t nlevels[] = { 2, 3, 1, 4 };
	/* run -> (factor, level) after the baseline */
	static const size_t expect[][2] = {
		{ 0, 1 }, { 1, 1 }, { 1, 2 }, { 3, 1 }, { 3, 2 }, { 3, 3 },
	};
	struct kb_design *d = make_ok(KB_DESIGN_ONE_AT_A_TIME, 4, nlevels);
	size_t r;

	(void)state;
	assert_int_equal(kb_design_nruns(d), 1 + 1 + 2 + 0 + 3);
	assert_baseline(d);
	assert_distinct(d);
	for (r = 1; r < kb_design_nruns(d); r++) {
		assert_int_equal(ndiff(d, 0, r), 1);
		assert_int_equal(kb_design_level(d, r, expect[r - 1][0]),
				 expect[r - 1][1]);
	}
	assert_null(kb_design_generators(d));
	kb_design_free(d);
}

static void test_design__fractional_is_balanced_and_orthogonal(void **state)
{
	size_t k, r, f, g;

	(void)state;
	for (k = 4; k <= 8; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		size_t n = kb_design_nruns(d);

		assert_int_equal(n, k == 4 ? 8 : 16);
		assert_baseline(d);
		assert_distinct(d);
		for (f = 0; f < k; f++) {
			int sum = 0;

			for (r = 0; r < n; r++) {
				assert_true(kb_design_level(d, r, f) <= 1);
				sum += x(d, r, f);
			}
			assert_int_equal(sum, 0);
			for (g = f + 1; g < k; g++) {
				int dot = 0;

				for (r = 0; r < n; r++)
					dot += x(d, r, f) * x(d, r, g);
				if (dot != 0)
					fail_msg("k=%zu: columns %zu and %zu are not orthogonal",
						 k, f, g);
			}
		}
		kb_design_free(d);
	}
}

/*
 * Resolution IV: no main effect is aliased with a two-factor interaction.
 * A = ±BC means the product ABC is the same in every run, so no set of
 * three columns may have a constant product.
 */
static void test_design__fractional_mains_are_clear_of_2fis(void **state)
{
	size_t k;
	unsigned set;

	(void)state;
	for (k = 4; k <= 8; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);

		for (set = 1; set < (1u << k); set++)
			if (bits(set) == 3 && constant_product(d, set))
				fail_msg("k=%zu: a main effect is aliased with a two-factor interaction in columns %#x",
					 k, set);
		kb_design_free(d);
	}
}

static void test_design__fractional_resolution_is_shortest_word(
	void **state)
{
	size_t k;

	(void)state;
	for (k = 4; k <= 8; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		unsigned set, shortest = 99;

		for (set = 1; set < (1u << k); set++)
			if (constant_product(d, set) && bits(set) < shortest)
				shortest = bits(set);
		assert_int_equal(shortest, k == 5 ? 5 : 4);
		assert_int_equal(kb_design_resolution(d), shortest);
		kb_design_free(d);
	}
}

static void test_design__fractional_generators_text(void **state)
{
	static const char *const expect[] = {
		"D=ABC", "E=-ABCD", "E=ABC F=BCD", "E=ABC F=BCD G=ACD",
		"E=BCD F=ACD G=ABC H=ABD",
	};
	size_t k;

	(void)state;
	for (k = 4; k <= 8; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		const char *p = kb_design_generators(d);

		assert_non_null(p);
		assert_string_equal(p, expect[k - 4]);
		/* each generator, sign included, holds in every run */
		while (*p) {
			unsigned set;
			int sign = 1;

			set = 1u << (*p - 'A');
			assert_int_equal(p[1], '=');
			p += 2;
			if (*p == '-') {
				sign = -1;
				p++;
			}
			for (; *p >= 'A' && *p <= 'H'; p++)
				set |= 1u << (*p - 'A');
			/* X = sign·W  <=>  X·W = sign */
			assert_int_equal(constant_product(d, set), sign);
			if (*p == ' ')
				p++;
		}
		kb_design_free(d);
	}
}

static void test_design__fractional_under_four_factors_is_full(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < 4; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);

		assert_int_equal(kb_design_nruns(d), (size_t)1 << k);
		assert_baseline(d);
		assert_distinct(d);
		assert_null(kb_design_generators(d));
		assert_int_equal(kb_design_resolution(d), 0);
		kb_design_free(d);
	}
}

static void test_design__fractional_refuses_three_level_factor(void **state)
{
	static const size_t nlevels[] = { 2, 2, 3, 2, 2 };

	(void)state;
	make_err(KB_DESIGN_FRACTIONAL, 5, nlevels,
		 "a fractional design needs two-level factors: factor 3 has 3 levels; use design: full or one-at-a-time");
	/* also below four factors, where the full factorial would be used */
	make_err(KB_DESIGN_FRACTIONAL, 3, nlevels, "factor 3 has 3 levels");
}

static void test_design__fractional_refuses_nine_factors(void **state)
{
	(void)state;
	make_err(KB_DESIGN_FRACTIONAL, 9, two,
		 "a fractional design takes at most 8 two-level factors: the matrix has 9; use design: full or one-at-a-time");
}

static void test_design__zero_factors_have_one_run(void **state)
{
	static const enum kb_design_kind kinds[] = {
		KB_DESIGN_FULL, KB_DESIGN_ONE_AT_A_TIME, KB_DESIGN_FRACTIONAL,
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct kb_design *d = make_ok(kinds[i], 0, NULL);

		assert_int_equal(kb_design_nruns(d), 1);
		kb_design_free(d);
	}
	assert_int_equal(kb_design_full_size(0, NULL), 1);
}

static void test_design__oversize_full_is_refused(void **state)
{
	static size_t big[64];
	size_t i;

	(void)state;
	/* 2^12 = 4096 runs is the limit itself and allowed */
	kb_design_free(make_ok(KB_DESIGN_FULL, 12, two));
	make_err(KB_DESIGN_FULL, 13, two,
		 "a full design of these factors needs 8192 runs, more than the 4096 allowed");
	for (i = 0; i < 64; i++)
		big[i] = 64;
	make_err(KB_DESIGN_FULL, 64, big, "needs more than");
	/* one-at-a-time of the same factors fits: 1 + 64 × 63 runs */
	kb_design_free(make_ok(KB_DESIGN_ONE_AT_A_TIME, 64, big));
}

static void test_design__full_size_saturates(void **state)
{
	static size_t big[64];
	static const size_t nlevels[] = { 3, 5, 7 };
	static const size_t half[] = { SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1 };
	size_t i;

	(void)state;
	for (i = 0; i < 64; i++)
		big[i] = 64;
	assert_int_equal(kb_design_full_size(3, nlevels), 105);
	assert_true(kb_design_full_size(64, big) == SIZE_MAX);
	assert_true(kb_design_full_size(2, half) == SIZE_MAX);
	assert_true(kb_design_full_size(1, half) == SIZE_MAX / 2 + 1);
}

static void test_design__bad_factor_counts_are_refused(void **state)
{
	static size_t many[65];
	static const size_t empty[] = { 2, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 65; i++)
		many[i] = 1;
	make_err(KB_DESIGN_ONE_AT_A_TIME, 65, many,
		 "a design takes at most 64 factors: the matrix has 65");
	make_err(KB_DESIGN_FULL, 2, empty, "factor 2 has no levels");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_design__full_has_every_combination_once),
	cmocka_unit_test(test_design__one_at_a_time_changes_one_factor),
	cmocka_unit_test(test_design__fractional_is_balanced_and_orthogonal),
	cmocka_unit_test(test_design__fractional_mains_are_clear_of_2fis),
	cmocka_unit_test(test_design__fractional_resolution_is_shortest_word),
	cmocka_unit_test(test_design__fractional_generators_text),
	cmocka_unit_test(test_design__fractional_under_four_factors_is_full),
	cmocka_unit_test(test_design__fractional_refuses_three_level_factor),
	cmocka_unit_test(test_design__fractional_refuses_nine_factors),
	cmocka_unit_test(test_design__zero_factors_have_one_run),
	cmocka_unit_test(test_design__oversize_full_is_refused),
	cmocka_unit_test(test_design__full_size_saturates),
	cmocka_unit_test(test_design__bad_factor_counts_are_refused),
};

KB_TEST_MAIN(tests)
