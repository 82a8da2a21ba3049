#include <math.h>
#include <stdint.h>
#include <stdio.h>
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
static const size_t two23[23] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
				  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
static const size_t two24[24] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
				  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };

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

static void test_design__fractional_refuses_seventeen_factors(void **state)
{
	(void)state;
	make_err(KB_DESIGN_FRACTIONAL, 17, two23,
		 "a fractional design takes at most 16 two-level factors: the matrix has 17; use design: plackett-burman (up to 23 factors), full or one-at-a-time");
}

/* ---- 9 to 16 factors in 32 runs --------------------------------------- */

/* Balance (each level in half the runs) and orthogonality of the columns. */
static void assert_orthogonal(const struct kb_design *d, const char *what)
{
	size_t k = kb_design_nfactors(d), n = kb_design_nruns(d), r, f, g;

	for (f = 0; f < k; f++) {
		int sum = 0;

		for (r = 0; r < n; r++) {
			assert_true(kb_design_level(d, r, f) <= 1);
			sum += x(d, r, f);
		}
		if (sum != 0)
			fail_msg("%s: column %zu is not balanced", what, f);
		for (g = f + 1; g < k; g++) {
			int dot = 0;

			for (r = 0; r < n; r++)
				dot += x(d, r, f) * x(d, r, g);
			if (dot != 0)
				fail_msg("%s: columns %zu and %zu are not orthogonal (%d)",
					 what, f, g, dot);
		}
	}
}

static void test_design__fractional_9_to_16_are_32_orthogonal_runs(
	void **state)
{
	size_t k;

	(void)state;
	for (k = 9; k <= 16; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		char what[16];

		snprintf(what, sizeof(what), "k=%zu", k);
		assert_int_equal(kb_design_nruns(d), 32);
		assert_baseline(d);
		assert_distinct(d);
		assert_orthogonal(d, what);
		kb_design_free(d);
	}
}

/*
 * The word length pattern A3, A4, A5 measured on the columns: the number
 * of sets of 3, 4 and 5 factors whose product is the same in every run.
 */
static void column_wlp(const struct kb_design *d, unsigned a[6])
{
	size_t k = kb_design_nfactors(d);
	unsigned set;

	memset(a, 0, 6 * sizeof(*a));
	for (set = 1; set < (1u << k); set++)
		if (bits(set) >= 3 && bits(set) <= 5 && constant_product(d, set))
			a[bits(set)]++;
}

/*
 * The least (A3, A4, A5) over every 2^(k-(k-5)) design: each choice of
 * k-5 generators among the 26 words of two or more of the 5 basic
 * factors, its pattern counted on the words of its defining relation.
 */
static void least_wlp(size_t k, unsigned best[6])
{
	unsigned words[26], pick[11], nw = 0, w, p = (unsigned)k - 5;
	int i;

	for (w = 1; w < 32; w++)
		if (bits(w) >= 2)
			words[nw++] = w;
	best[3] = best[4] = best[5] = UINT32_MAX;
	for (i = 0; i < (int)p; i++)
		pick[i] = (unsigned)i;
	for (;;) {
		unsigned a[6] = { 0 }, set, g;

		for (set = 1; set < (1u << p); set++) {
			unsigned word = 0, len;

			for (g = 0; g < p; g++)
				if (set & (1u << g))
					word ^= words[pick[g]];
			len = bits(word) + bits(set);
			if (len <= 5)
				a[len]++;
		}
		if (a[3] < best[3] ||
		    (a[3] == best[3] &&
		     (a[4] < best[4] || (a[4] == best[4] && a[5] < best[5])))) {
			best[3] = a[3];
			best[4] = a[4];
			best[5] = a[5];
		}
		/* the next combination of p of the 26 words */
		for (i = (int)p - 1; i >= 0 && pick[i] == nw - p + (unsigned)i;
		     i--)
			;
		if (i < 0)
			break;
		pick[i]++;
		for (i++; i < (int)p; i++)
			pick[i] = pick[i - 1] + 1;
	}
}

/*
 * Resolution IV as tabulated (NIST's table of the smallest resolution IV
 * designs: 9 to 16 factors in 32 runs), and minimum aberration: no design
 * in 32 runs has fewer words of length 4 (then 5).  The least patterns of
 * 9 to 11 factors are found here by enumerating every design; those of 12
 * to 16 (up to 7.7 million designs each) were found the same way once.
 */
static void test_design__fractional_9_to_16_are_minimum_aberration_iv(
	void **state)
{
	static const unsigned least[17][2] = {
		[9] = { 6, 8 },    [10] = { 10, 16 }, [11] = { 25, 0 },
		[12] = { 38, 0 },  [13] = { 55, 0 },  [14] = { 77, 0 },
		[15] = { 105, 0 }, [16] = { 140, 0 },
	};
	size_t k;

	(void)state;
	for (k = 9; k <= 16; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		unsigned a[6], best[6];

		column_wlp(d, a);
		assert_int_equal(a[3], 0);
		assert_true(a[4] > 0);
		assert_int_equal(kb_design_resolution(d), 4);
		if (k <= 11) {
			least_wlp(k, best);
			assert_int_equal(best[3], 0);
			assert_int_equal(best[4], least[k][0]);
			assert_int_equal(best[5], least[k][1]);
		}
		if (a[4] != least[k][0] || a[5] != least[k][1])
			fail_msg("k=%zu: A4=%u A5=%u, the least is %u %u", k,
				 a[4], a[5], least[k][0], least[k][1]);
		kb_design_free(d);
	}
}

/* The generators as text, and each, sign included, holds in every run. */
static void test_design__fractional_9_to_16_generators(void **state)
{
	static const char *const expect[] = {
		"F=-BCDE G=-ACDE H=-ABDE J=-ABCE",
		"F=-ABCD G=-ABCE H=-ABDE J=-ACDE K=-BCDE",
		"F=ABC G=BCD H=CDE J=ACD K=ADE L=BDE",
		"F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD",
		"F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD N=BCE",
		"F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD N=BCE O=BDE",
		"F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD N=BCE O=BDE P=CDE",
		"F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD N=BCE O=BDE P=CDE Q=ABCDE",
	};
	size_t k;

	(void)state;
	for (k = 9; k <= 16; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		const char *p = kb_design_generators(d);

		assert_non_null(p);
		assert_string_equal(p, expect[k - 9]);
		while (*p) {
			unsigned set = 0;
			int sign = 1;

			for (; *p != ' ' && *p; p++) {
				size_t f;

				if (*p == '=')
					continue;
				if (*p == '-') {
					sign = -1;
					continue;
				}
				for (f = 0; kb_design_letter(f) != *p; f++)
					assert_true(f < 25);
				set |= 1u << f;
			}
			assert_int_equal(constant_product(d, set), sign);
			if (*p == ' ')
				p++;
		}
		kb_design_free(d);
	}
}

static void test_design__letters_skip_i(void **state)
{
	(void)state;
	assert_int_equal(kb_design_letter(0), 'A');
	assert_int_equal(kb_design_letter(7), 'H');
	assert_int_equal(kb_design_letter(8), 'J');
	assert_int_equal(kb_design_letter(15), 'Q');
	assert_int_equal(kb_design_letter(22), 'X');
	assert_int_equal(kb_design_letter(24), 'Z');
	assert_int_equal(kb_design_letter(25), '?');
}

/* ---- aliases ------------------------------------------------------------ */

/* The product column of f1 and f2 (f1 alone when f2 == f1) in run r. */
static int xx(const struct kb_design *d, size_t r, size_t f1, size_t f2)
{
	return x(d, r, f1) * (f2 != f1 ? x(d, r, f2) : 1);
}

/*
 * kb_design_aliases() agrees with the columns: for every main effect and
 * two-factor interaction, the effects listed are exactly those whose
 * column is the same (coef 1) or the opposite (-1), in order.
 */
static void assert_aliases_match_columns(const struct kb_design *d)
{
	size_t k = kb_design_nfactors(d), n = kb_design_nruns(d);
	size_t f1, f2, g1, g2, r;

	for (f1 = 0; f1 < k; f1++)
		for (f2 = f1; f2 < k; f2++) {
			struct kb_alias *al = NULL;
			size_t na = kb_design_aliases(d, f1, f2, &al), seen = 0;
			int pass;

			/* mains first, then interactions, as listed */
			for (pass = 0; pass < 2; pass++)
				for (g1 = 0; g1 < k; g1++)
					for (g2 = g1; g2 < k; g2++) {
						long dot = 0;

						if ((g2 != g1) != pass ||
						    (g1 == f1 && g2 == f2))
							continue;
						for (r = 0; r < n; r++)
							dot += xx(d, r, f1, f2) *
							       xx(d, r, g1, g2);
						if (dot == 0)
							continue;
						if (seen >= na)
							fail_msg("k=%zu: %zu:%zu misses alias %zu:%zu",
								 k, f1, f2, g1, g2);
						assert_int_equal(al[seen].f1, g1);
						assert_int_equal(al[seen].f2, g2);
						assert_int_equal(al[seen].den, 1);
						assert_int_equal(al[seen].num * (long)n,
								 dot);
						seen++;
					}
			assert_int_equal(seen, na);
			free(al);
		}
}

static void test_design__fractional_aliases_from_generators_match_columns(
	void **state)
{
	size_t k;

	(void)state;
	for (k = 4; k <= 16; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, k, two);
		size_t f;

		assert_aliases_match_columns(d);
		/* resolution IV and V: no main effect has an alias */
		for (f = 0; f < k; f++) {
			struct kb_alias *al = NULL;

			assert_int_equal(kb_design_aliases(d, f, f, &al), 0);
			assert_null(al);
		}
		kb_design_free(d);
	}
}

/*
 * 2^(6-2) with E=ABC F=BCD: I = ABCE = BCDF = ADEF.  A is aliased with
 * BCE, DEF and ABCDF, none of them up to two factors; AE = BC = DF, AB =
 * CE, AD = EF.
 */
static void test_design__alias_table_of_6_2(void **state)
{
	struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, 6, two);
	struct kb_alias *al = NULL;
	enum { A, B, C, D, E, F };

	(void)state;
	assert_string_equal(kb_design_generators(d), "E=ABC F=BCD");
	assert_int_equal(kb_design_aliases(d, A, A, &al), 0);
	assert_int_equal(kb_design_aliases(d, A, E, &al), 2);
	assert_int_equal(al[0].f1, B);
	assert_int_equal(al[0].f2, C);
	assert_int_equal(al[0].num, 1);
	assert_int_equal(al[0].den, 1);
	assert_true(al[0].coef == 1);
	assert_int_equal(al[1].f1, D);
	assert_int_equal(al[1].f2, F);
	assert_int_equal(al[1].num, 1);
	free(al);
	/* the arguments in either order */
	assert_int_equal(kb_design_aliases(d, E, A, &al), 2);
	free(al);
	assert_int_equal(kb_design_aliases(d, A, B, &al), 1);
	assert_int_equal(al[0].f1, C);
	assert_int_equal(al[0].f2, E);
	free(al);
	assert_int_equal(kb_design_aliases(d, A, D, &al), 1);
	assert_int_equal(al[0].f1, E);
	assert_int_equal(al[0].f2, F);
	free(al);
	kb_design_free(d);
}

/* E = -ABCD: I = -ABCDE, so AB = -CDE, and no two-factor alias. */
static void test_design__negative_generator_gives_negative_aliases(
	void **state)
{
	struct kb_design *d = make_ok(KB_DESIGN_FRACTIONAL, 9, two);
	struct kb_alias *al = NULL;
	enum { A, B, C, D, E, F, G, H, J };

	(void)state;
	/* F=-BCDE G=-ACDE: I = -BCDEF = -ACDEG = ABFG, so AB = FG, AF = BG */
	assert_int_equal(kb_design_aliases(d, A, B, &al), 1);
	assert_int_equal(al[0].f1, F);
	assert_int_equal(al[0].f2, G);
	assert_int_equal(al[0].num, 1);
	free(al);
	kb_design_free(d);
	d = make_ok(KB_DESIGN_FRACTIONAL, 5, two);
	assert_string_equal(kb_design_generators(d), "E=-ABCD");
	assert_int_equal(kb_design_aliases(d, A, B, &al), 0);
	assert_int_equal(constant_product(d, 0x1f), -1);
	kb_design_free(d);
	(void)C;
	(void)D;
	(void)E;
	(void)H;
	(void)J;
}

static void test_design__full_and_one_at_a_time_have_no_aliases(void **state)
{
	static const size_t nlevels[] = { 2, 3, 2 };
	struct kb_design *d = make_ok(KB_DESIGN_FULL, 3, nlevels);
	struct kb_alias *al = (struct kb_alias *)&al;
	char *sizes;

	(void)state;
	assert_int_equal(kb_design_aliases(d, 0, 2, &al), 0);
	assert_null(al);
	sizes = kb_design_alias_sizes(d);
	assert_string_equal(sizes, "");
	free(sizes);
	kb_design_free(d);
	d = make_ok(KB_DESIGN_ONE_AT_A_TIME, 3, nlevels);
	assert_int_equal(kb_design_aliases(d, 0, 0, &al), 0);
	/* a factor that is not there */
	assert_int_equal(kb_design_aliases(d, 0, 3, &al), 0);
	kb_design_free(d);
	/* fewer than 4 factors: the full factorial, no aliases either */
	d = make_ok(KB_DESIGN_FRACTIONAL, 3, two);
	assert_int_equal(kb_design_aliases(d, 0, 1, &al), 0);
	kb_design_free(d);
}

/* ---- Plackett-Burman ---------------------------------------------------- */

static const char *const pb_rows[] = {
	"++-+++---+-", "++--++++-+-+----++-", "+++++-+-++--++--+-+----",
};

static void test_design__plackett_burman_sizes_and_baseline(void **state)
{
	size_t k;

	(void)state;
	for (k = 1; k <= 23; k++) {
		struct kb_design *d = make_ok(KB_DESIGN_PLACKETT_BURMAN, k,
					      two23);
		size_t n = k <= 11 ? 12 : k <= 19 ? 20 : 24, f;
		const char *row = pb_rows[n == 12 ? 0 : n == 20 ? 1 : 2];

		assert_int_equal(kb_design_nruns(d), n);
		/* run 0: every factor at its first level, the baseline */
		assert_baseline(d);
		/* with few factors some runs repeat; with all, none */
		if (k == n - 1)
			assert_distinct(d);
		/* run 1: the published row, run 2 shifted right by one */
		for (f = 0; f < k; f++) {
			assert_int_equal(kb_design_level(d, 1, f), row[f] == '+');
			assert_int_equal(kb_design_level(d, 2, f),
					 row[(f + n - 2) % (n - 1)] == '+');
		}
		assert_null(kb_design_generators(d));
		assert_int_equal(kb_design_resolution(d), 3);
		kb_design_free(d);
	}
}

/* 11, 19 and 23 factors: every column of the 12-, 20- and 24-run design. */
static void test_design__plackett_burman_is_balanced_and_orthogonal(
	void **state)
{
	static const size_t ks[] = { 11, 19, 23, 12, 5 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ks) / sizeof(*ks); i++) {
		struct kb_design *d = make_ok(KB_DESIGN_PLACKETT_BURMAN, ks[i],
					      two23);
		char what[32];

		snprintf(what, sizeof(what), "PB%zu, k=%zu",
			 kb_design_nruns(d), ks[i]);
		assert_orthogonal(d, what);
		kb_design_free(d);
	}
}

/*
 * Partial aliasing: in 12 runs every interaction of two other factors
 * enters a main effect at ±1/3; in 20 runs at ±1/5 or ±3/5; in 24 runs at
 * ±1/3 or not at all.  The lists agree with the columns.
 */
static void test_design__plackett_burman_partial_aliases(void **state)
{
	static const struct {
		size_t k, runs;
		int nums[2], den;
		const char *sizes;
	} cases[] = {
		{ 11, 12, { 1, 1 }, 3, "±1/3" },
		{ 12, 20, { 1, 3 }, 5, "±1/5 or ±3/5" },
		{ 19, 20, { 1, 3 }, 5, "±1/5 or ±3/5" },
		{ 23, 24, { 1, 1 }, 3, "±1/3" },
	};
	size_t i, f, a;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct kb_design *d = make_ok(KB_DESIGN_PLACKETT_BURMAN,
					      cases[i].k, two23);
		size_t k = cases[i].k, total = 0;
		char *sizes = kb_design_alias_sizes(d);

		assert_int_equal(kb_design_nruns(d), cases[i].runs);
		assert_string_equal(sizes, cases[i].sizes);
		free(sizes);
		for (f = 0; f < k; f++) {
			struct kb_alias *al = NULL;
			size_t n = kb_design_aliases(d, f, f, &al);

			/* all of the (k-1)(k-2)/2 pairs of the others but
			 * those of coefficient 0 (24 runs) */
			if (cases[i].runs != 24)
				assert_int_equal(n, (k - 1) * (k - 2) / 2);
			for (a = 0; a < n; a++) {
				int num = al[a].num < 0 ? -al[a].num : al[a].num;

				assert_true(al[a].f1 < al[a].f2);
				assert_true(al[a].f1 != f && al[a].f2 != f);
				assert_int_equal(al[a].den, cases[i].den);
				assert_true(num == cases[i].nums[0] ||
					    num == cases[i].nums[1]);
			}
			total += n;
			free(al);
		}
		/* PB24, 23 factors: 2277 of the 5313 triples are ±1/3 */
		if (cases[i].runs == 24)
			assert_int_equal(total, 2277);
		kb_design_free(d);
	}
}

/* Exact coefficients, from the columns, for the interactions too. */
static void test_design__plackett_burman_aliases_match_columns(void **state)
{
	struct kb_design *d = make_ok(KB_DESIGN_PLACKETT_BURMAN, 7, two23);
	size_t n = kb_design_nruns(d), f1, f2, a, r;

	(void)state;
	for (f1 = 0; f1 < 7; f1++)
		for (f2 = f1; f2 < 7; f2++) {
			struct kb_alias *al = NULL;
			size_t na = kb_design_aliases(d, f1, f2, &al);

			for (a = 0; a < na; a++) {
				long dot = 0;

				for (r = 0; r < n; r++)
					dot += xx(d, r, f1, f2) *
					       xx(d, r, al[a].f1, al[a].f2);
				assert_true(dot != 0);
				assert_true(fabs(al[a].coef - (double)dot / n) <
					    1e-12);
				assert_true(fabs(al[a].coef - (double)al[a].num /
								      al[a].den) <
					    1e-12);
			}
			free(al);
		}
	kb_design_free(d);
}

static void test_design__plackett_burman_refusals(void **state)
{
	static const size_t nlevels[] = { 2, 2, 3 };

	(void)state;
	make_err(KB_DESIGN_PLACKETT_BURMAN, 24, two24,
		 "a plackett-burman design takes at most 23 two-level factors: the matrix has 24; use design: full or one-at-a-time");
	make_err(KB_DESIGN_PLACKETT_BURMAN, 3, nlevels,
		 "a plackett-burman design needs two-level factors: factor 3 has 3 levels");
	assert_int_equal(kb_design_max_factors(KB_DESIGN_PLACKETT_BURMAN), 23);
	assert_int_equal(kb_design_max_factors(KB_DESIGN_FRACTIONAL), 16);
	assert_int_equal(kb_design_max_factors(KB_DESIGN_FULL), 64);
}

static void test_design__zero_factors_have_one_run(void **state)
{
	static const enum kb_design_kind kinds[] = {
		KB_DESIGN_FULL, KB_DESIGN_ONE_AT_A_TIME, KB_DESIGN_FRACTIONAL,
		KB_DESIGN_PLACKETT_BURMAN,
	};
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
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
	cmocka_unit_test(test_design__fractional_refuses_seventeen_factors),
	cmocka_unit_test(test_design__fractional_9_to_16_are_32_orthogonal_runs),
	cmocka_unit_test(test_design__fractional_9_to_16_are_minimum_aberration_iv),
	cmocka_unit_test(test_design__fractional_9_to_16_generators),
	cmocka_unit_test(test_design__letters_skip_i),
	cmocka_unit_test(test_design__fractional_aliases_from_generators_match_columns),
	cmocka_unit_test(test_design__alias_table_of_6_2),
	cmocka_unit_test(test_design__negative_generator_gives_negative_aliases),
	cmocka_unit_test(test_design__full_and_one_at_a_time_have_no_aliases),
	cmocka_unit_test(test_design__plackett_burman_sizes_and_baseline),
	cmocka_unit_test(test_design__plackett_burman_is_balanced_and_orthogonal),
	cmocka_unit_test(test_design__plackett_burman_partial_aliases),
	cmocka_unit_test(test_design__plackett_burman_aliases_match_columns),
	cmocka_unit_test(test_design__plackett_burman_refusals),
	cmocka_unit_test(test_design__zero_factors_have_one_run),
	cmocka_unit_test(test_design__oversize_full_is_refused),
	cmocka_unit_test(test_design__full_size_saturates),
	cmocka_unit_test(test_design__bad_factor_counts_are_refused),
};

KB_TEST_MAIN(tests)
