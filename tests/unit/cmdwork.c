#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "buf.h"
#include "cmdwork.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
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


/* ---- named metrics and the parsers (issue 13) ------------------------ */

static char *data(const char *name)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	char *path = kb_asprintf(KB_TEST_DATA "/cmdwork/%s", name);

	if (kb_buf_read_file(&b, path, 1u << 20, &err))
		fail_msg("%s", err.msg);
	free(path);
	return kb_buf_detach(&b);
}

/* A command report whose output is @out. */
static char *report_of(const char *out)
{
	return kb_asprintf("kbisect-command 1\nexit 0\nreal 2.50\nuser 0.10\n"
			   "sys 2.20\noutput %zu\n%s",
			   strlen(out), out);
}

static void test_cmdwork__named_metrics_each_take_their_group(void **state)
{
	struct kb_option metrics[] = {
		{ .key = "ops", .value = "([0-9.]+) ops/s" },
		{ .key = "lat_ms", .value = "lat ([0-9.]+) ms" },
	};
	struct kb_workload w = { .kind = KB_WORKLOAD_COMMAND,
				 .metric = "real_s",
				 .nmetrics = 2,
				 .metrics = metrics };
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	char *r = report_of("bench: 1234.5 ops/s\nlat 0.82 ms\n");

	(void)state;
	if (kb_cmdwork_parse_workload(r, strlen(r), "run 1", &w, &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 5);
	assert_float_equal(metric(&s, "ops"), 1234.5, 0);
	assert_float_equal(metric(&s, "lat_ms"), 0.82, 0);
	assert_float_equal(metric(&s, "sys_s"), 2.2, 0);
	free(r);
	r = report_of("bench: 1234.5 ops/s\n");
	assert_int_equal(kb_cmdwork_parse_workload(r, strlen(r), "run 1", &w,
						   &s, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "run 1: the regex 'lat ([0-9.]+) ms' does not match the command's output");
	assert_int_equal(s.n, 0);
	free(r);
}

static void test_cmdwork__dd_coreutils_lines_add_up(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	char *text = data("dd-coreutils.txt");

	(void)state;
	memset(&s, 0, sizeof(s));
	if (kb_cmdwork_parse_dd(text, strlen(text), "run 1", &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 3);
	/* seed 002's dd | cat, 100 MiB, and 10 bytes */
	assert_float_equal(metric(&s, "dd_bytes"), 10240000.0 + 104857600 + 10,
			   0);
	assert_float_equal(metric(&s, "dd_s"), 0.101548 + 0.00340834 + 2.2509e-05,
			   1e-12);
	assert_float_equal(metric(&s, "dd_mb_per_s"),
			   115097610 / (0.101548 + 0.00340834 + 2.2509e-05) /
				   1e6,
			   1e-6);
	free(text);
}

static void test_cmdwork__dd_busybox_lines(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	char *text = data("dd-busybox-third-line.txt");

	(void)state;
	memset(&s, 0, sizeof(s));
	if (kb_cmdwork_parse_dd(text, strlen(text), "run 1", &s, &err))
		fail_msg("%s", err.msg);
	assert_float_equal(metric(&s, "dd_bytes"), 104857600, 0);
	assert_float_equal(metric(&s, "dd_s"), 0.021788, 1e-12);
	free(text);
	/* Debian's busybox prints the records alone */
	text = data("dd-busybox-debian.txt");
	memset(&s, 0, sizeof(s));
	assert_int_equal(kb_cmdwork_parse_dd(text, strlen(text), "run 1", &s,
					     &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "run 1: no dd summary line");
	assert_msg_contains(err.msg, "FEATURE_DD_THIRD_STATUS_LINE");
	free(text);
}

static void test_cmdwork__unixbench_index_lines(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	double v;
	char *text = data("unixbench-seed001-native.txt");

	(void)state;
	memset(&s, 0, sizeof(s));
	if (kb_cmdwork_parse_unixbench(text, strlen(text), "run 1", &s, &err))
		fail_msg("%s", err.msg);
	/* 10 tests with an index, the block's score and ub_index */
	assert_int_equal(s.n, 12);
	assert_float_equal(metric(&s, "ub16_execl"), 9477.1, 0);
	assert_float_equal(metric(&s, "ub16_fstime"), 999.6, 0);
	assert_float_equal(metric(&s, "ub16_fsbuffer"), 622.8, 0);
	assert_float_equal(metric(&s, "ub16_fsdisk"), 2350.1, 0);
	assert_float_equal(metric(&s, "ub16_context1"), 9178.2, 0);
	assert_float_equal(metric(&s, "ub16_shell8"), 16293.8, 0);
	assert_float_equal(metric(&s, "ub16_syscall"), 4560.1, 0);
	assert_float_equal(metric(&s, "ub16_index"), 5262.1, 0);
	assert_float_equal(metric(&s, "ub_index"), 5262.1, 0);
	/* "---": no index for 16 concurrent shells */
	assert_int_equal(kb_sample_get(&s, "ub16_shell16", &v), -1);
	free(text);
	text = data("unixbench-seed001-dom0.txt");
	memset(&s, 0, sizeof(s));
	if (kb_cmdwork_parse_unixbench(text, strlen(text), "run 1", &s, &err))
		fail_msg("%s", err.msg);
	assert_float_equal(metric(&s, "ub_index"), 2200.0, 0);
	assert_float_equal(metric(&s, "ub16_spawn"), 2146.4, 0);
	free(text);
	memset(&s, 0, sizeof(s));
	assert_int_equal(kb_cmdwork_parse_unixbench("hello\n", 6, "run 1", &s,
						    &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "no 'System Benchmarks Index Score'");
}

static void test_cmdwork__parser_runs_on_the_output(void **state)
{
	struct kb_workload w = { .kind = KB_WORKLOAD_COMMAND,
				 .metric = "real_s",
				 .parser = KB_PARSER_DD };
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	char *text = data("dd-coreutils.txt"), *r = report_of(text);

	(void)state;
	if (kb_cmdwork_parse_workload(r, strlen(r), "run 1", &w, &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.n, 6);
	assert_float_equal(metric(&s, "real_s"), 2.5, 0);
	assert_float_equal(metric(&s, "dd_bytes"), 115097610, 0);
	free(r);
	free(text);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_cmdwork__named_metrics_each_take_their_group),
	cmocka_unit_test(test_cmdwork__dd_coreutils_lines_add_up),
	cmocka_unit_test(test_cmdwork__dd_busybox_lines),
	cmocka_unit_test(test_cmdwork__unixbench_index_lines),
	cmocka_unit_test(test_cmdwork__parser_runs_on_the_output),
	cmocka_unit_test(test_cmdwork__times_become_metrics),
	cmocka_unit_test(test_cmdwork__regex_takes_first_group),
	cmocka_unit_test(test_cmdwork__regex_that_misses_is_refused),
	cmocka_unit_test(test_cmdwork__failed_command_is_refused),
	cmocka_unit_test(test_cmdwork__malformed_reports_are_refused),
};

KB_TEST_MAIN(tests)
