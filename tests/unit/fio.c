#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testcorpus.h"
#include "buf.h"
#include "err.h"
#include "fio.h"
#include "matrix.h"
#include "mem.h"
#include "variant.h"

#define DATA KB_TEST_DATA "/fio/"

static struct kb_sample parse_ok(const char *name)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	char path[256];

	snprintf(path, sizeof(path), DATA "%s", name);
	if (kb_fio_parse_file(path, &s, &err))
		fail_msg("cannot parse %s: %s", path, err.msg);
	return s;
}

static double metric(const struct kb_sample *s, const char *name)
{
	double v;

	if (kb_sample_get(s, name, &v))
		fail_msg("metric '%s' missing", name);
	return v;
}

static int has(const struct kb_sample *s, const char *name)
{
	double v;

	return kb_sample_get(s, name, &v) == 0;
}

/* Figures checked by reading the JSON with python: see the report. */
static void test_fio__randread_psync_read_metrics(void **state)
{
	struct kb_sample s = parse_ok("randread-psync.json");

	(void)state;
	assert_float_equal(metric(&s, "read_iops"), 15043.978011, 1e-6);
	assert_float_equal(metric(&s, "read_bw_kib"), 60175, 1e-9);
	assert_float_equal(metric(&s, "read_lat_mean_us"), 65.891840, 1e-5);
	assert_float_equal(metric(&s, "read_lat_p50_us"), 60.160, 1e-9);
	assert_float_equal(metric(&s, "read_lat_p99_us"), 124.416, 1e-9);
	assert_float_equal(metric(&s, "read_lat_p999_us"), 444.416, 1e-9);
	assert_float_equal(metric(&s, "write_iops"), 0, 0);
	assert_float_equal(metric(&s, "write_bw_kib"), 0, 0);
	assert_false(has(&s, "write_lat_mean_us"));
	assert_false(has(&s, "trim_iops"));
}

static void test_fio__randrw_has_both_directions(void **state)
{
	struct kb_sample s = parse_ok("randrw-libaio.json");

	(void)state;
	assert_float_equal(metric(&s, "read_iops"), 12562.218891, 1e-6);
	assert_float_equal(metric(&s, "write_iops"), 5379.310345, 1e-6);
	assert_float_equal(metric(&s, "read_bw_kib"), 50248, 1e-9);
	assert_float_equal(metric(&s, "write_bw_kib"), 21517, 1e-9);
	assert_float_equal(metric(&s, "read_lat_mean_us"), 839.516290, 1e-5);
	assert_float_equal(metric(&s, "write_lat_mean_us"), 830.443561, 1e-5);
	assert_float_equal(metric(&s, "write_lat_p99_us"), 3424.256, 1e-9);
	assert_float_equal(metric(&s, "write_lat_p999_us"), 14483.456, 1e-9);
}

static void test_fio__write_only_has_no_read_latency(void **state)
{
	struct kb_sample s = parse_ok("write-libaio.json");

	(void)state;
	assert_float_equal(metric(&s, "write_iops"), 78257.871064, 1e-6);
	assert_float_equal(metric(&s, "write_bw_kib"), 5008503, 1e-9);
	assert_float_equal(metric(&s, "write_lat_mean_us"), 91.111462, 1e-5);
	assert_float_equal(metric(&s, "write_lat_p50_us"), 68.096, 1e-9);
	assert_float_equal(metric(&s, "read_iops"), 0, 0);
	assert_false(has(&s, "read_lat_mean_us"));
	assert_false(has(&s, "read_lat_p99_us"));
}

/* Two jobs: rates add up, the mean is weighted by ios, percentiles max. */
static void test_fio__numjobs_sums_jobs(void **state)
{
	struct kb_sample s = parse_ok("numjobs2.json");

	(void)state;
	assert_float_equal(metric(&s, "read_iops"), 46638.180910, 1e-5);
	assert_float_equal(metric(&s, "read_bw_kib"), 186552, 1e-9);
	assert_float_equal(metric(&s, "read_lat_mean_us"), 42.158356, 1e-5);
	assert_float_equal(metric(&s, "read_lat_p50_us"), 24.448, 1e-9);
	assert_float_equal(metric(&s, "read_lat_p99_us"), 136.192, 1e-9);
	assert_float_equal(metric(&s, "read_lat_p999_us"), 236.544, 1e-9);
}

/* group_reporting: fio already aggregated the two jobs into one. */
static void test_fio__group_reporting_is_one_job(void **state)
{
	struct kb_sample s = parse_ok("numjobs2-group.json");

	(void)state;
	assert_float_equal(metric(&s, "read_iops"), 46217.391304, 1e-5);
	assert_float_equal(metric(&s, "read_bw_kib"), 184869, 1e-9);
	assert_float_equal(metric(&s, "read_lat_mean_us"), 42.499891, 1e-5);
	assert_float_equal(metric(&s, "read_lat_p99_us"), 138.240, 1e-9);
}

static void test_fio__in_guest_output(void **state)
{
	struct kb_sample s = parse_ok("in-guest-tcg-virtio.json");

	(void)state;
	assert_float_equal(metric(&s, "read_iops"), 7031.193761, 1e-6);
	assert_float_equal(metric(&s, "read_lat_p999_us"), 6258.688, 1e-9);
}

/* fio prints "note: ..." on stdout before the JSON. */
static void test_fio__notes_before_json_are_skipped(void **state)
{
	struct kb_sample s = parse_ok("note-psync-iodepth.json");

	(void)state;
	assert_true(metric(&s, "read_iops") > 0);
	assert_true(metric(&s, "read_lat_p50_us") > 0);
}

static void parse_err(const char *text, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;

	s.n = 99;
	assert_int_equal(kb_fio_parse_buffer(text, strlen(text), "out.json",
					     &s, &err),
			 KB_EINPUT);
	assert_int_equal(s.n, 0);
	assert_msg_contains(err.msg, "out.json: ");
	assert_msg_contains(err.msg, expect);
}

static void test_fio__malformed_json_names_file_and_offset(void **state)
{
	(void)state;
	parse_err("note: hi\n{ \"jobs\": [ } ]", "invalid JSON at byte 21");
	parse_err("{ \"jobs\": [", "ends early");
	parse_err("", "no JSON object");
	parse_err("fio: no such option", "no JSON object");
}

static void test_fio__not_fio_output_is_refused(void **state)
{
	(void)state;
	parse_err("{ \"x\": 1 }", "no 'jobs' list");
	parse_err("{ \"jobs\": [] }", "lists no jobs");
	parse_err("{ \"jobs\": [ 3 ] }", "job 0 is not an object");
	parse_err("{ \"jobs\": [ { \"read\": { \"iops\": 1 } } ] }",
		  "'read.bw' is missing");
	parse_err("{ \"jobs\": [ { \"read\": { \"iops\": \"x\", \"bw\": 1 },"
		  " \"write\": { \"iops\": 1, \"bw\": 1 } } ] }",
		  "'read.iops'");
}

static void test_fio__failed_job_is_refused(void **state)
{
	(void)state;
	parse_err("{ \"jobs\": [ { \"jobname\": \"j\", \"error\": 5,"
		  " \"read\": { \"iops\": 1, \"bw\": 1 },"
		  " \"write\": { \"iops\": 1, \"bw\": 1 } } ] }",
		  "fio job 'j' failed with error 5");
}

/* json-c reads 4e725 as infinity, and number() stored it before it
 * refused it: an infinite I/O count made the mean latency infinite
 * (found by make fuzz-run) */
static void test_fio__infinite_io_count_is_ignored(void **state)
{
	const char *text =
		"{ \"jobs\": [ { \"jobname\": \"j\", \"error\": 0,"
		" \"read\": { \"iops\": 10, \"bw\": 40,"
		" \"clat_ns\": { \"mean\": 5000, \"N\": 4e725 } },"
		" \"write\": { \"iops\": 0, \"bw\": 0 } } ] }";
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	double v;

	(void)state;
	assert_int_equal(kb_fio_parse_buffer(text, strlen(text), "t.json", &s,
					     &err),
			 0);
	assert_int_equal(kb_sample_get(&s, "read_iops", &v), 0);
	assert_true(v == 10);
	/* no finite count of I/Os: no latency, never an infinite one */
	assert_int_equal(kb_sample_get(&s, "read_lat_mean_us", &v), -1);
}

static void test_fio__sums_past_a_double_are_refused(void **state)
{
	(void)state;
	parse_err("{ \"jobs\": ["
		  " { \"read\": { \"iops\": 1e308, \"bw\": 1 },"
		  " \"write\": { \"iops\": 0, \"bw\": 0 } },"
		  " { \"read\": { \"iops\": 1e308, \"bw\": 1 },"
		  " \"write\": { \"iops\": 0, \"bw\": 0 } } ] }",
		  "'read_iops' is out of range");
}

static void test_fio__trim_reported_when_nonzero(void **state)
{
	const char *text =
		"{ \"jobs\": [ { \"read\": { \"iops\": 0, \"bw\": 0 },"
		" \"write\": { \"iops\": 0, \"bw\": 0 },"
		" \"trim\": { \"iops\": 10.5, \"bw\": 42, \"total_ios\": 21,"
		" \"clat_ns\": { \"mean\": 2000, \"percentile\":"
		" { \"50.000000\": 1000, \"99.000000\": 3000,"
		" \"99.900000\": 5000 } } } } ] }";
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;

	(void)state;
	assert_int_equal(kb_fio_parse_buffer(text, strlen(text), "t.json", &s,
					     &err),
			 0);
	assert_float_equal(metric(&s, "trim_iops"), 10.5, 0);
	assert_float_equal(metric(&s, "trim_bw_kib"), 42, 0);
	assert_float_equal(metric(&s, "trim_lat_mean_us"), 2, 1e-12);
	assert_float_equal(metric(&s, "trim_lat_p50_us"), 1, 1e-12);
	assert_float_equal(metric(&s, "trim_lat_p999_us"), 5, 1e-12);
}

static void test_fio__oversized_output_is_refused(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;

	(void)state;
	assert_int_equal(kb_fio_parse_buffer("{", KB_FIO_MAX_OUTPUT + 1,
					     "big.json", &s, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "big.json: ");
	assert_msg_contains(err.msg, "limit");
}

static void test_fio__missing_file_names_it(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;

	(void)state;
	assert_true(kb_fio_parse_file(DATA "nope.json", &s, &err) < 0);
	assert_msg_contains(err.msg, "nope.json");
}

static const struct kb_option opts[] = {
	{ "rw", "randread", { 3, 9 } },
	{ "bs", "4k", { 3, 23 } },
	{ "iodepth", "abc", { 4, 9 } },
};

static void test_fio__job_text_from_options(void **state)
{
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;
	char *text = NULL;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opts;
	w.nfio = 2;
	assert_int_equal(kb_fio_job_text(&w, &text, &err), 0);
	assert_string_equal(text, "[kbisect]\nrw=randread\nbs=4k\n"
				  "filename=${KBISECT_DISKS}\n");
	free(text);
}

static void test_fio__job_text_keeps_user_filename(void **state)
{
	static const struct kb_option o[] = {
		{ "rw", "read", { 1, 1 } },
		{ "filename", "/dev/vdc", { 1, 1 } },
	};
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;
	char *text = NULL;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = o;
	w.nfio = 2;
	assert_int_equal(kb_fio_job_text(&w, &text, &err), 0);
	assert_string_equal(text, "[kbisect]\nrw=read\nfilename=/dev/vdc\n");
	free(text);
}

static void test_fio__job_text_refuses_newline_in_value(void **state)
{
	static const struct kb_option o[] = {
		{ "rw", "read\n[evil]", { 7, 3 } },
	};
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;
	char *text = NULL;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = o;
	w.nfio = 1;
	assert_int_equal(kb_fio_job_text(&w, &text, &err), KB_EINPUT);
	assert_null(text);
	assert_msg_contains(err.msg, "'rw' (line 7)");
}

static void test_fio__args_ask_for_json(void **state)
{
	const char *const *a = kb_fio_args();

	(void)state;
	assert_string_equal(a[0], "--output-format=json");
	assert_null(a[1]);
}

static void test_fio__check_accepts_valid_job(void **state)
{
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opts;
	w.nfio = 2;
	if (kb_fio_check(&w, "m.yaml", NULL, &err))
		fail_msg("fio refused a valid job: %s", err.msg);
}

static void test_fio__check_names_matrix_line_of_bad_option(void **state)
{
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opts;
	w.nfio = 3;
	assert_int_equal(kb_fio_check(&w, "m.yaml", NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "m.yaml:4:9: fio rejects option 'iodepth: abc'");
	assert_msg_contains(err.msg, "failed parsing iodepth=abc");
}

static void test_fio__check_unknown_option_and_bad_value(void **state)
{
	static const struct kb_option o[] = {
		{ "rw", "randread", { 2, 5 } },
		{ "no_such_option", "1", { 3, 5 } },
	};
	static const struct kb_option o2[] = {
		{ "bs", "4k", { 2, 5 } },
		{ "rw", "sideways", { 5, 7 } },
	};
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = o;
	w.nfio = 2;
	assert_int_equal(kb_fio_check(&w, "m.yaml", NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "m.yaml:3:5: fio rejects option 'no_such_option: 1'");
	kb_err_clear(&err);
	w.fio = o2;
	assert_int_equal(kb_fio_check(&w, "m.yaml", NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "m.yaml:5:7: fio rejects option 'rw: sideways'");
}

static void test_fio__check_without_fio_fails(void **state)
{
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opts;
	w.nfio = 2;
	assert_int_equal(kb_fio_check(&w, "m.yaml", "/nonexistent/fio", &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "/nonexistent/fio");
}

static void test_fio__check_ignores_command_workloads(void **state)
{
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = "true";
	assert_int_equal(kb_fio_check(&w, "m.yaml", "/nonexistent/fio", &err),
			 0);
}

/* Every corpus file must parse or be refused with the file's name. */
static int parse_corpus(const char *data, size_t len, const char *path,
			struct kb_err *err)
{
	struct kb_sample s;

	return kb_fio_parse_buffer(data, len, path, &s, err);
}

static void test_fio__fuzz_corpus_replays(void **state)
{
	(void)state;
	kb_test_replay_corpus("fio", 2 * KB_FIO_MAX_OUTPUT, parse_corpus, 2,
			      2);
}


/* ---- per device, and parameters (issue 13) --------------------------- */

/* fio 3.33 on this machine: two jobs kbisect-1 and kbisect-2 with
 * filename=${KBISECT_DISK1} and ${KBISECT_DISK2} set to vdb and vdc;
 * figures read from the JSON with python. */
static void test_fio__per_device_metrics_and_totals(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_sample *s = kb_calloc(1, sizeof(*s));

	(void)state;
	if (kb_buf_read_file(&b, DATA "per-device-two-files.json", 1u << 20,
			     &err) ||
	    kb_fio_parse_buffer_devices(b.buf, b.len, "run 1", 1, s, &err))
		fail_msg("%s", err.msg);
	assert_float_equal(metric(s, "read_iops.vdb"), 264985.014985, 1e-6);
	assert_float_equal(metric(s, "read_iops.vdc"), 198919.080919, 1e-6);
	assert_float_equal(metric(s, "read_iops"),
			   264985.014985 + 198919.080919, 1e-6);
	assert_float_equal(metric(s, "read_bw_kib.vdb"), 1059940, 1e-9);
	assert_float_equal(metric(s, "read_lat_mean_us.vdb"), 2.795259981,
			   1e-9);
	assert_float_equal(metric(s, "read_lat_mean_us.vdc"), 3.647682967,
			   1e-9);
	assert_true(has(s, "read_lat_p99_us.vdc"));
	assert_true(has(s, "write_iops.vdb"));
	/* without per_device, the totals alone, as before */
	assert_int_equal(kb_fio_parse_buffer(b.buf, b.len, "run 1", s, &err),
			 0);
	assert_false(has(s, "read_iops.vdb"));
	assert_float_equal(metric(s, "read_iops"),
			   264985.014985 + 198919.080919, 1e-6);
	kb_buf_release(&b);
	free(s);
}

/* The host's fio accepts the per-device job, and checks every level. */
static void test_fio__check_per_device_and_parameters(void **state)
{
	static const struct kb_option o[] = {
		{ "rw", "randread", { 2, 5 } },
		{ "iodepth", "{{depth}}", { 3, 5 } },
	};
	static const struct kb_level good[] = { { .value = "1" },
						{ .value = "32" } };
	static const struct kb_level bad[] = { { .value = "1" },
					       { .value = "abc" } };
	struct kb_factor f = { .kind = KB_FACTOR_WORKLOAD,
			       .name = "workload.depth",
			       .nlevels = 2,
			       .levels = good };
	const struct kb_factor *params[] = { &f };
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = o;
	w.nfio = 2;
	w.targets_count = 2;
	w.per_device = 1;
	w.nparams = 1;
	w.params = params;
	if (kb_fio_check(&w, "m.yaml", NULL, &err))
		fail_msg("fio refused a valid job: %s", err.msg);
	f.levels = bad;
	assert_int_equal(kb_fio_check(&w, "m.yaml", NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "m.yaml:3:5: fio rejects option 'iodepth: abc'");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_fio__per_device_metrics_and_totals),
	cmocka_unit_test(test_fio__check_per_device_and_parameters),
	cmocka_unit_test(test_fio__randread_psync_read_metrics),
	cmocka_unit_test(test_fio__randrw_has_both_directions),
	cmocka_unit_test(test_fio__write_only_has_no_read_latency),
	cmocka_unit_test(test_fio__numjobs_sums_jobs),
	cmocka_unit_test(test_fio__group_reporting_is_one_job),
	cmocka_unit_test(test_fio__in_guest_output),
	cmocka_unit_test(test_fio__notes_before_json_are_skipped),
	cmocka_unit_test(test_fio__malformed_json_names_file_and_offset),
	cmocka_unit_test(test_fio__not_fio_output_is_refused),
	cmocka_unit_test(test_fio__failed_job_is_refused),
	cmocka_unit_test(test_fio__infinite_io_count_is_ignored),
	cmocka_unit_test(test_fio__sums_past_a_double_are_refused),
	cmocka_unit_test(test_fio__trim_reported_when_nonzero),
	cmocka_unit_test(test_fio__oversized_output_is_refused),
	cmocka_unit_test(test_fio__missing_file_names_it),
	cmocka_unit_test(test_fio__job_text_from_options),
	cmocka_unit_test(test_fio__job_text_keeps_user_filename),
	cmocka_unit_test(test_fio__job_text_refuses_newline_in_value),
	cmocka_unit_test(test_fio__args_ask_for_json),
	cmocka_unit_test(test_fio__check_accepts_valid_job),
	cmocka_unit_test(test_fio__check_names_matrix_line_of_bad_option),
	cmocka_unit_test(test_fio__check_unknown_option_and_bad_value),
	cmocka_unit_test(test_fio__check_without_fio_fails),
	cmocka_unit_test(test_fio__check_ignores_command_workloads),
	cmocka_unit_test(test_fio__fuzz_corpus_replays),
};

KB_TEST_MAIN(tests)
