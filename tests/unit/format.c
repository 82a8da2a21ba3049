#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "format.h"

static void test_format__stars_by_threshold(void **state)
{
	(void)state;
	assert_string_equal(kb_format_stars(0.0005), "***");
	assert_string_equal(kb_format_stars(0.001), "**");
	assert_string_equal(kb_format_stars(0.005), "**");
	assert_string_equal(kb_format_stars(0.01), "*");
	assert_string_equal(kb_format_stars(0.049), "*");
	assert_string_equal(kb_format_stars(0.05), "");
	assert_string_equal(kb_format_stars(1), "");
	assert_string_equal(kb_format_stars(NAN), "");
}

static void test_format__pct_signed_unsigned_one_decimal(void **state)
{
	(void)state;
	assert_string_equal(kb_format_pct(12.34, 1).s, "+12.3%");
	assert_string_equal(kb_format_pct(-3.06, 1).s, "-3.1%");
	assert_string_equal(kb_format_pct(0, 1).s, "+0.0%");
	assert_string_equal(kb_format_pct(12.34, 0).s, "12.3%");
	assert_string_equal(kb_format_pct(-1.5, 0).s, "-1.5%");
}

/* A change against a mean of 0 is no number: "-", never "nan%". */
static void test_format__pct_not_finite_is_a_dash(void **state)
{
	(void)state;
	assert_string_equal(kb_format_pct(NAN, 1).s, "-");
	assert_string_equal(kb_format_pct(INFINITY, 1).s, "-");
	assert_string_equal(kb_format_pct(-INFINITY, 0).s, "-");
}

/* The longest double still fits, cut rather than overrun. */
static void test_format__pct_huge_value_fits(void **state)
{
	(void)state;
	assert_true(strlen(kb_format_pct(1e300, 1).s) < 32);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_format__stars_by_threshold),
	cmocka_unit_test(test_format__pct_signed_unsigned_one_decimal),
	cmocka_unit_test(test_format__pct_not_finite_is_a_dash),
	cmocka_unit_test(test_format__pct_huge_value_fits),
};

KB_TEST_MAIN(tests)
