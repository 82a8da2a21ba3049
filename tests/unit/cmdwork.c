#include <string.h>

#include "test.h"
#include "cmdwork.h"
#include "err.h"
#include "variant.h"

#define REPORT(out)                                                       \
	"kbisect-command 1\nexit 0\nreal 12.34\nuser 10.02\nsys 1.50\n" \
	"output " out

static double metric(const struct kb_sample *s, const char *name)
{
	double v;

	if (kb_sample_get(s, name, &v))
		fail_msg("metric '%s' missing", name);
	return v;
}

static void parse_ok(const char *text, const char *regex, const char *m,
		     struct kb_sample *s)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_cmdwork_parse_buffer(text, strlen(text), "run 1", regex, m, s,
				    &err))
		fail_msg("unexpected error: %s", err.msg);
}

static void parse_err(const char *text, const char *regex, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;

	s.n = 7;
	assert_int_equal(kb_cmdwork_parse_buffer(text, strlen(text), "run 1",
						 regex, "ops", &s, &err),
			 KB_EINPUT);
	assert_int_equal(s.n, 0);
	assert_msg_contains(err.msg, "run 1: ");
	assert_msg_contains(err.msg, expect);
}

static void test_cmdwork__times_become_metrics(void **state)
{
	struct kb_sample s;

	(void)state;
	parse_ok(REPORT("3\nhi\n\n"), NULL, NULL, &s);
	assert_int_equal(s.n, 3);
	assert_float_equal(metric(&s, "real_s"), 12.34, 0);
	assert_float_equal(metric(&s, "user_s"), 10.02, 0);
	assert_float_equal(metric(&s, "sys_s"), 1.5, 0);
}

static void test_cmdwork__regex_takes_first_group(void **state)
{
	struct kb_sample s;

	(void)state;
	parse_ok(REPORT("37\nwarmup\nthroughput: 812.5 ops/s (n=3)\n\n"),
		 "throughput: ([0-9.]+) ops/s", "ops_per_s", &s);
	assert_float_equal(metric(&s, "ops_per_s"), 812.5, 0);
	assert_float_equal(metric(&s, "real_s"), 12.34, 0);
}

static void test_cmdwork__regex_that_misses_is_refused(void **state)
{
	(void)state;
	parse_err(REPORT("6\nnope\n\n"), "([0-9]+) ops", "does not match");
	parse_err(REPORT("9\nabc ops\n\n"), "([a-z]+) ops",
		  "matched 'abc', not a number");
}

static void test_cmdwork__failed_command_is_refused(void **state)
{
	(void)state;
	parse_err("kbisect-command 1\nexit 2\nreal 1\nuser 0\nsys 0\n"
		  "output 29\nsh: tar: not found\nlast line\n\n",
		  NULL, "the command exited with status 2: last line");
}

static void test_cmdwork__malformed_reports_are_refused(void **state)
{
	(void)state;
	parse_err("", NULL, "not a command report");
	parse_err("kbisect-command 2\n", NULL, "not a command report");
	parse_err("kbisect-command 1\nexit 0\n", NULL,
		  "ends before its 'output' line");
	parse_err("kbisect-command 1\nexit 0\nreal x\n", NULL,
		  "line 3: bad time 'x'");
	parse_err("kbisect-command 1\nexit 0\nreal -1\n", NULL, "bad time");
	parse_err("kbisect-command 1\nexit 0\nreal 1\noutput 0\n", NULL,
		  "lacks one of exit, real, user, sys");
	parse_err(REPORT("99\nshort\n"), NULL, "bad output length");
	parse_err("kbisect-command 1\nnospace\n", NULL, "expected 'key value'");
	parse_err("kbisect-command 1\nexit 0", NULL, "without a newline");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_cmdwork__times_become_metrics),
	cmocka_unit_test(test_cmdwork__regex_takes_first_group),
	cmocka_unit_test(test_cmdwork__regex_that_misses_is_refused),
	cmocka_unit_test(test_cmdwork__failed_command_is_refused),
	cmocka_unit_test(test_cmdwork__malformed_reports_are_refused),
};

KB_TEST_MAIN(tests)
