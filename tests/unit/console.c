#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testcorpus.h"
#include "buf.h"
#include "console.h"
#include "profile.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "monitor.h"
#include "variant.h"

/* zlib's CRC-32, written again here so that the test checks the parser. */
static unsigned crc32_of(const char *s, size_t n)
{
	unsigned crc = 0xFFFFFFFFu;
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		crc ^= (unsigned char)s[i];
		for (j = 0; j < 8; j++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return crc ^ 0xFFFFFFFFu;
}

/* Append a well-formed frame for @run carrying @payload. */
static void frame(struct kb_buf *b, unsigned run, const char *payload)
{
	size_t n = strlen(payload);

	kb_buf_addf(b, "KBISECT-BEGIN %u %zu %08x\n", run, n,
		    crc32_of(payload, n));
	kb_buf_adds(b, payload);
	kb_buf_addf(b, "KBISECT-END %u\n", run);
}

/* Append a well-formed frame of @marker for @run carrying @payload. */
static void side_frame(struct kb_buf *b, const char *marker, unsigned run,
		       const char *payload)
{
	size_t n = strlen(payload);

	kb_buf_addf(b, "KBISECT-%s %u %zu %08x\n", marker, run, n,
		    crc32_of(payload, n));
	kb_buf_adds(b, payload);
	kb_buf_addf(b, "KBISECT-END %u\n", run);
}

static void monitors_frame(struct kb_buf *b, unsigned run, const char *payload)
{
	side_frame(b, "MONITORS", run, payload);
}

#define P1 "{ \"jobs\": [] }\n"
#define P2 "line one\nKBISECT-DONE 9\nlast\n"

/* A boot with two runs, kernel lines around and between the frames. */
static void good_console(struct kb_buf *b)
{
	kb_buf_adds(b, "[    0.000000] Linux version 6.1.0\n"
		       "[    1.234567] virtio_blk virtio1: [vdb] 65536 512-byte logical blocks\n"
		       "KBISECT-START 2\n");
	frame(b, 1, P1);
	kb_buf_adds(b, "[    3.000000] random: crng init done\n");
	frame(b, 2, P2);
	kb_buf_adds(b, "KBISECT-DONE 2\n[    9.9] reboot: Power down\n");
}

static void check_good(const struct kb_console *c)
{
	assert_int_equal(kb_console_state(c), KB_CONSOLE_DONE);
	assert_true(kb_console_started(c));
	assert_false(kb_console_panicked(c));
	assert_null(kb_console_reason(c));
	assert_int_equal(kb_console_runs(c), 2);
	assert_int_equal(kb_console_nframes(c), 2);
	assert_int_equal(kb_console_frame(c, 0)->run, 1);
	assert_string_equal(kb_console_frame(c, 0)->data, P1);
	assert_int_equal(kb_console_frame(c, 0)->len, strlen(P1));
	assert_int_equal(kb_console_frame(c, 1)->run, 2);
	assert_string_equal(kb_console_frame(c, 1)->data, P2);
	assert_null(kb_console_frame(c, 2));
}

static void test_console__crc_is_zlib_crc32(void **state)
{
	(void)state;
	/* `printf 'hello\n' | busybox crc32` prints 363a3020 */
	assert_int_equal(crc32_of("hello\n", 6), 0x363a3020u);
}

static void test_console__frames_among_kernel_lines(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_console *c = kb_console_new(0);

	(void)state;
	good_console(&b);
	assert_int_equal(kb_console_feed(c, b.buf, b.len), KB_CONSOLE_DONE);
	check_good(c);
	kb_console_free(c);
	kb_buf_release(&b);
}

static void test_console__split_at_every_byte_boundary(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t cut, i;

	(void)state;
	good_console(&b);
	for (cut = 0; cut <= b.len; cut++) {
		struct kb_console *c = kb_console_new(0);

		kb_console_feed(c, b.buf, cut);
		kb_console_feed(c, b.buf + cut, b.len - cut);
		check_good(c);
		kb_console_free(c);
	}
	/* and one byte at a time */
	{
		struct kb_console *c = kb_console_new(0);

		for (i = 0; i < b.len; i++)
			kb_console_feed(c, b.buf + i, 1);
		check_good(c);
		kb_console_free(c);
	}
	kb_buf_release(&b);
}

/* The serial console sends "\r\n"; CRs are dropped, payload included. */
static void test_console__crlf_is_handled(void **state)
{
	struct kb_buf b = KB_BUF_INIT, crlf = KB_BUF_INIT;
	struct kb_console *c = kb_console_new(0);
	char *tail;
	size_t i;

	(void)state;
	good_console(&b);
	for (i = 0; i < b.len; i++) {
		if (b.buf[i] == '\n')
			kb_buf_addch(&crlf, '\r');
		kb_buf_addch(&crlf, b.buf[i]);
	}
	kb_console_feed(c, crlf.buf, crlf.len);
	check_good(c);
	tail = kb_console_tail(c, 2);
	assert_string_equal(tail, "KBISECT-DONE 2\n[    9.9] reboot: Power down\n");
	free(tail);
	kb_console_free(c);
	kb_buf_release(&b);
	kb_buf_release(&crlf);
}

static struct kb_console *feed_text(const char *text)
{
	struct kb_console *c = kb_console_new(0);

	kb_console_feed(c, text, strlen(text));
	return c;
}

static void expect_bad(struct kb_buf *b, const char *reason)
{
	struct kb_console *c = feed_text(b->buf);

	assert_int_equal(kb_console_state(c), KB_CONSOLE_BAD);
	assert_non_null(kb_console_reason(c));
	assert_msg_contains(kb_console_reason(c), reason);
	kb_console_free(c);
	kb_buf_release(b);
}

static void test_console__corrupted_checksum_is_bad(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 %zu %08x\n%s"
			"KBISECT-END 1\nKBISECT-DONE 1\n",
		    strlen(P1), crc32_of(P1, strlen(P1)) ^ 1, P1);
	expect_bad(&b, "checksum mismatch in the frame for run 1");
	/* a flipped payload byte, right checksum of the original */
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 %zu %08x\n%s"
			"KBISECT-END 1\n",
		    strlen(P1), crc32_of(P1, strlen(P1)),
		    "{ \"jobz\": [] }\n");
	expect_bad(&b, "checksum mismatch");
}

static void test_console__wrong_length_is_bad(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t n = strlen(P1);

	(void)state;
	/* shorter than the payload: the END line does not follow */
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 %zu %08x\n%s"
			"KBISECT-END 1\n",
		    n - 5, crc32_of(P1, n - 5), P1);
	expect_bad(&b, "run 1");
	/* announced shorter, cut at a newline: END line must be next */
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 5 %08x\nabcd\nefgh\n"
			"KBISECT-END 1\n",
		    crc32_of("abcd\n", 5));
	expect_bad(&b, "longer than announced");
	/* longer: the checksum covers bytes that are not the payload */
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 %zu %08x\n%s"
			"KBISECT-END 1\nKBISECT-DONE 1\n",
		    n + 4, crc32_of(P1, n), P1);
	expect_bad(&b, "run 1");
}

/* The console ends in the middle of a frame: not a result. */
static void test_console__truncated_frame_is_not_a_result(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_console *c;
	struct kb_boot_result r;
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	good_console(&b);
	b.buf[b.len / 2] = '\0';
	c = feed_text(b.buf);
	assert_int_equal(kb_console_state(c), KB_CONSOLE_RUNNING);
	assert_true(kb_console_nframes(c) < 2);
	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	assert_int_equal(kb_console_judge(c, &w, 2, 0, &r, &err), 0);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_int_equal(r.nruns, 0);
	assert_non_null(r.console_tail);
	kb_boot_result_release(&r);
	kb_console_free(c);
	kb_buf_release(&b);
}

static void test_console__protocol_violations_are_bad(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_buf_adds(&b, "KBISECT-START 1\nKBISECT-END 1\n");
	expect_bad(&b, "KBISECT-END without a frame");
	kb_buf_adds(&b, "KBISECT-START 2\n");
	frame(&b, 2, P1);
	expect_bad(&b, "run 2 where run 1 of 2 was due");
	frame(&b, 1, P1);
	expect_bad(&b, "before KBISECT-START");
	kb_buf_adds(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 12 zz\n");
	expect_bad(&b, "malformed frame header");
	kb_buf_adds(&b, "KBISECT-START 2\n");
	frame(&b, 1, P1);
	kb_buf_adds(&b, "KBISECT-DONE 2\n");
	expect_bad(&b, "finished with 1 of 2 result frames");
	kb_buf_adds(&b, "KBISECT-START 1\nKBISECT-ERROR 1 fio exited with status 1\n");
	expect_bad(&b, "the guest reports an error: 1 fio exited with status 1");
	kb_buf_adds(&b, "KBISECT-WHAT\n");
	expect_bad(&b, "unknown marker line 'KBISECT-WHAT'");
	kb_buf_adds(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 5 00000000\nabcdX");
	expect_bad(&b, "does not end with a newline");
	kb_buf_addf(&b, "KBISECT-START 1\nKBISECT-BEGIN 1 %u 00000000\n",
		    KB_CONSOLE_MAX_FRAME + 1);
	expect_bad(&b, "announces");
}

static void test_console__oversized_input_is_bad(void **state)
{
	struct kb_console *c = kb_console_new(1000);
	char chunk[300];
	int i;

	(void)state;
	memset(chunk, 'x', sizeof(chunk));
	chunk[sizeof(chunk) - 1] = '\n';
	assert_int_equal(kb_console_feed(c, chunk, sizeof(chunk)),
			 KB_CONSOLE_BOOTING);
	kb_console_feed(c, chunk, sizeof(chunk));
	kb_console_feed(c, chunk, sizeof(chunk));
	assert_int_equal(kb_console_feed(c, chunk, sizeof(chunk)),
			 KB_CONSOLE_BAD);
	assert_msg_contains(kb_console_reason(c), "more than 1000 bytes");
	kb_console_free(c);
	/* carriage returns count too */
	c = kb_console_new(1000);
	memset(chunk, '\r', sizeof(chunk));
	for (i = 0; i < 4; i++)
		kb_console_feed(c, chunk, sizeof(chunk));
	assert_int_equal(kb_console_state(c), KB_CONSOLE_BAD);
	kb_console_free(c);
}

/* A very long line (no newline for megabytes) costs no memory. */
static void test_console__long_lines_are_split(void **state)
{
	struct kb_console *c = kb_console_new(0);
	char chunk[10000];
	char *tail;
	int i;

	(void)state;
	memset(chunk, 'y', sizeof(chunk));
	for (i = 0; i < 100; i++)
		kb_console_feed(c, chunk, sizeof(chunk));
	kb_console_feed(c, "\nKBISECT-START 1\n", 17);
	assert_int_equal(kb_console_state(c), KB_CONSOLE_RUNNING);
	tail = kb_console_tail(c, 1);
	assert_string_equal(tail, "KBISECT-START 1\n");
	free(tail);
	kb_console_free(c);
}

static void test_console__panic_is_seen(void **state)
{
	struct kb_console *c = feed_text(
		"[ 0.1] foo\n[ 0.2] Kernel panic - not syncing: VFS: Unable to mount root fs\n"
		"[ 0.3] ---[ end Kernel panic ]---\n");
	struct kb_boot_result r;
	struct kb_workload w;

	(void)state;
	assert_int_equal(kb_console_state(c), KB_CONSOLE_PANIC);
	assert_true(kb_console_panicked(c));
	assert_msg_contains(kb_console_reason(c), "Unable to mount root fs");
	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	kb_console_judge(c, &w, 1, 0, &r, NULL);
	assert_int_equal(r.status, KB_BOOT_PANIC);
	assert_msg_contains(r.reason, "Kernel panic - not syncing");
	kb_boot_result_release(&r);
	kb_console_free(c);
}

/* A panic while a frame is printed is still a panic. */
static void test_console__panic_inside_a_frame(void **state)
{
	struct kb_console *c = feed_text(
		"KBISECT-START 1\nKBISECT-BEGIN 1 100 00000000\n{\n"
		"Kernel panic - not syncing: Attempted to kill init!\n");

	(void)state;
	assert_int_equal(kb_console_state(c), KB_CONSOLE_PANIC);
	kb_console_free(c);
}

static void test_console__markers_inside_payload_are_data(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_console *c;

	(void)state;
	kb_buf_adds(&b, "KBISECT-START 1\n");
	frame(&b, 1, "KBISECT-END 1\nKBISECT-ERROR 1 x\n");
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	c = feed_text(b.buf);
	assert_int_equal(kb_console_state(c), KB_CONSOLE_DONE);
	assert_string_equal(kb_console_frame(c, 0)->data,
			    "KBISECT-END 1\nKBISECT-ERROR 1 x\n");
	kb_console_free(c);
	kb_buf_release(&b);
}

static void test_console__state_is_final_after_done(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_console *c = kb_console_new(0);

	(void)state;
	good_console(&b);
	kb_console_feed(c, b.buf, b.len);
	assert_int_equal(kb_console_feed(c, "KBISECT-BOGUS\n", 14),
			 KB_CONSOLE_DONE);
	kb_console_free(c);
	kb_buf_release(&b);
}

static void test_console__tail_keeps_last_lines(void **state)
{
	struct kb_console *c = feed_text("a\nb\nc\nd");
	char *t;

	(void)state;
	t = kb_console_tail(c, 2);
	assert_string_equal(t, "c\nd");
	free(t);
	t = kb_console_tail(c, 10);
	assert_string_equal(t, "a\nb\nc\nd");
	free(t);
	t = kb_console_tail(c, 0);
	assert_string_equal(t, "");
	free(t);
	kb_console_free(c);
}

static struct kb_boot_result judge_text(const char *text, unsigned runs,
					int timed_out,
					const struct kb_workload *w)
{
	struct kb_console *c = feed_text(text);
	struct kb_boot_result r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(kb_console_judge(c, w, runs, timed_out, &r, NULL),
			 0);
	kb_console_free(c);
	return r;
}

static void test_console__judge_timeouts_and_early_end(void **state)
{
	struct kb_workload w;
	struct kb_boot_result r;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	r = judge_text("[ 0.1] booting\n", 1, 1, &w);
	assert_int_equal(r.status, KB_BOOT_TIMEOUT);
	kb_boot_result_release(&r);
	r = judge_text("KBISECT-START 1\n", 1, 1, &w);
	assert_int_equal(r.status, KB_BOOT_WORKLOAD_TIMEOUT);
	assert_msg_contains(r.reason, "0 of 1 runs");
	kb_boot_result_release(&r);
	r = judge_text("[ 0.1] booting\n", 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_FAILED);
	kb_boot_result_release(&r);
	r = judge_text("KBISECT-START 1\n", 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_msg_contains(r.reason, "stopped after 0 of 1 runs");
	kb_boot_result_release(&r);
}

static void test_console__judge_parses_fio_frames(void **state)
{
	struct kb_buf b = KB_BUF_INIT, json = KB_BUF_INIT;
	struct kb_workload w;
	struct kb_boot_result r;
	struct kb_err err = KB_ERR_INIT;
	double v;

	(void)state;
	if (kb_buf_read_file(&json, KB_TEST_DATA "/fio/in-guest-tcg-virtio.json",
			     1 << 20, &err))
		fail_msg("%s", err.msg);
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	kb_buf_adds(&b, "KBISECT-START 1\n");
	frame(&b, 1, json.buf);
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	r = judge_text(b.buf, 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_null(r.reason);
	assert_int_equal(r.nruns, 1);
	assert_int_equal(kb_sample_get(&r.runs[0], "read_iops", &v), 0);
	assert_float_equal(v, 7031.193761, 1e-6);
	kb_boot_result_release(&r);
	/* the number of runs must be the one asked for */
	r = judge_text(b.buf, 3, 0, &w);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_msg_contains(r.reason, "stale initramfs");
	kb_boot_result_release(&r);
	kb_buf_release(&b);
	/* a frame that checks out but is not fio JSON */
	kb_buf_adds(&b, "KBISECT-START 1\n");
	frame(&b, 1, "fio: engine libaio not loadable\n");
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	r = judge_text(b.buf, 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_msg_contains(r.reason, "run 1: no JSON object");
	assert_int_equal(r.nruns, 0);
	kb_boot_result_release(&r);
	kb_buf_release(&b);
	kb_buf_release(&json);
}

static void test_console__judge_parses_command_frames(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_workload w;
	struct kb_boot_result r;
	double v;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = "bench";
	w.regex = "([0-9.]+) ops/s";
	w.metric = "ops";
	kb_buf_adds(&b, "KBISECT-START 1\n");
	frame(&b, 1, "kbisect-command 1\nexit 0\nreal 2.50\nuser 1.00\n"
		     "sys 0.25\noutput 12\n1234.5 ops/s\n");
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	r = judge_text(b.buf, 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(kb_sample_get(&r.runs[0], "ops", &v), 0);
	assert_float_equal(v, 1234.5, 0);
	assert_int_equal(kb_sample_get(&r.runs[0], "real_s", &v), 0);
	assert_float_equal(v, 2.5, 0);
	kb_boot_result_release(&r);
	kb_buf_release(&b);
}

#define MON1                                                              \
	"kbisect-monitors 1\nvmstat before 11\npgfault 10\n"               \
	"vmstat after 11\npgfault 25\n"
#define CMD1 "kbisect-command 1\nexit 0\nreal 2.50\nuser 1.00\nsys 0.25\noutput 0\n"

static void test_console__monitors_frames_go_to_the_result(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_workload w;
	struct kb_boot_result r;
	struct kb_console *c = NULL;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = "true";
	w.metric = "real_s";
	/* run 1 with monitors, run 2 without (an older guest's frames) */
	kb_buf_adds(&b, "KBISECT-START 2\n");
	monitors_frame(&b, 1, MON1);
	frame(&b, 1, CMD1);
	frame(&b, 2, CMD1);
	kb_buf_adds(&b, "KBISECT-DONE 2\n");
	assert_int_equal(kb_console_parse_buffer(b.buf, b.len, "c", &c, &err), 0);
	assert_int_equal(kb_console_nframes(c), 2);
	assert_int_equal(kb_console_nmonitors(c), 1);
	assert_int_equal(kb_console_monitors(c, 0)->run, 1);
	assert_null(kb_console_monitors(c, 1));
	kb_console_free(c);
	r = judge_text(b.buf, 2, 0, &w);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(r.nruns, 2);
	assert_int_equal(r.nmonitors, 1);
	assert_int_equal(r.monitors[0].run, 1);
	assert_string_equal(r.monitors[0].name, "vmstat.pgfault");
	assert_float_equal(r.monitors[0].value, 15, 0);
	kb_boot_result_release(&r);
	kb_buf_release(&b);
}

static void test_console__monitors_frame_that_fails_keeps_the_boot(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_workload w;
	struct kb_boot_result r;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = "true";
	w.metric = "real_s";
	kb_buf_adds(&b, "KBISECT-START 1\n");
	monitors_frame(&b, 1, "kbisect-monitors 1\nvmstat before 99\n");
	frame(&b, 1, CMD1);
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	r = judge_text(b.buf, 1, 0, &w);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_null(r.reason);
	assert_int_equal(r.nmonitors, 0);
	kb_boot_result_release(&r);
	kb_buf_release(&b);
}

static void test_console__monitors_frame_out_of_place_is_bad(void **state)
{
	static const char *const why[] = {
		"a second monitors frame for run 1",
		"monitors frame for run 2 where run 1 of 2 was due",
		"monitors frame for run 1 before KBISECT-START",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_console *c = NULL;
		struct kb_err err = KB_ERR_INIT;

		if (i < 2)
			kb_buf_adds(&b, "KBISECT-START 2\n");
		monitors_frame(&b, i == 1 ? 2 : 1, MON1);
		if (i == 0)
			monitors_frame(&b, 1, MON1);
		assert_int_equal(kb_console_parse_buffer(b.buf, b.len, "c", &c,
							 &err),
				 KB_EINPUT);
		assert_msg_contains(err.msg, why[i]);
		kb_buf_release(&b);
	}
}

#define PROF1 "kbisect-profile 1\nstart_kernel;do_idle 7\nentry;ksys_read 3\n"

static void test_console__profile_frames_go_to_the_result(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_workload w;
	struct kb_boot_result r;
	struct kb_console *c = NULL;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = "true";
	w.metric = "real_s";
	/* run 1 with a profile and monitors, run 2 with a profile that does
	 * not parse: left out, the boot stays ok */
	kb_buf_adds(&b, "KBISECT-START 2\n");
	side_frame(&b, "PROFILE", 1, PROF1);
	monitors_frame(&b, 1, MON1);
	frame(&b, 1, CMD1);
	side_frame(&b, "PROFILE", 2, "kbisect-profile 1\nno count\n");
	frame(&b, 2, CMD1);
	kb_buf_adds(&b, "KBISECT-DONE 2\n");
	assert_int_equal(kb_console_parse_buffer(b.buf, b.len, "c", &c, &err), 0);
	assert_int_equal(kb_console_nprofiles(c), 2);
	assert_int_equal(kb_console_profile(c, 1)->run, 2);
	assert_null(kb_console_profile(c, 2));
	kb_console_free(c);
	r = judge_text(b.buf, 2, 0, &w);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_null(r.reason);
	assert_int_equal(r.nmonitors, 1);
	assert_int_equal(r.nprofile, 2);
	assert_int_equal(r.profile[0].run, 1);
	assert_string_equal(r.profile[0].stack, "entry;ksys_read");
	assert_int_equal(r.profile[0].samples, 3);
	assert_string_equal(r.profile[1].stack, "start_kernel;do_idle");
	kb_boot_result_release(&r);
	kb_buf_release(&b);
}

static void test_console__profile_frame_out_of_place_is_bad(void **state)
{
	static const char *const why[] = {
		"a second profile frame for run 1",
		"profile frame for run 2 where run 1 of 2 was due",
		"profile frame for run 1 before KBISECT-START",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_console *c = NULL;
		struct kb_err err = KB_ERR_INIT;

		if (i < 2)
			kb_buf_adds(&b, "KBISECT-START 2\n");
		side_frame(&b, "PROFILE", i == 1 ? 2 : 1, PROF1);
		if (i == 0)
			side_frame(&b, "PROFILE", 1, PROF1);
		assert_int_equal(kb_console_parse_buffer(b.buf, b.len, "c", &c,
							 &err),
				 KB_EINPUT);
		assert_msg_contains(err.msg, why[i]);
		kb_buf_release(&b);
	}
}

static void test_console__parse_buffer_names_file(void **state)
{
	struct kb_console *c = NULL;
	struct kb_err err = KB_ERR_INIT;
	const char *text = "KBISECT-START 1\nKBISECT-END 1\n";

	(void)state;
	assert_int_equal(kb_console_parse_buffer(text, strlen(text), "con.log",
						 &c, &err),
			 KB_EINPUT);
	assert_null(c);
	assert_msg_contains(err.msg, "con.log: KBISECT-END without a frame");
	assert_int_equal(kb_console_parse_buffer("hi\n", 3, "con.log", &c,
						 &err),
			 0);
	assert_non_null(c);
	kb_console_free(c);
}

/* Every corpus file must parse or be refused with the file's name. */
static int parse_corpus(const char *data, size_t len, const char *path,
			struct kb_err *err)
{
	struct kb_console *c = NULL;
	int ret = kb_console_parse_buffer(data, len, path, &c, err);

	if (ret)
		assert_null(c);
	else
		free(kb_console_tail(c, 10));
	kb_console_free(c);
	return ret;
}

static void test_console__fuzz_corpus_replays(void **state)
{
	(void)state;
	kb_test_replay_corpus("console", 1 << 24, parse_corpus, 2, 2);
}


/* ---- copies, named metrics, devices (issue 13) ------------------------ */

static double value_of(const struct kb_sample *s, const char *name)
{
	double v;

	if (kb_sample_get(s, name, &v))
		fail_msg("metric '%s' missing", name);
	return v;
}

/* A command report: time @real s, and "@ops ops/s" in the output. */
static char *cmd_report(double real, double ops)
{
	char out[64];

	snprintf(out, sizeof(out), "bench: %g ops/s\n", ops);
	return kb_asprintf("kbisect-command 1\nexit 0\nreal %.2f\nuser 0.50\n"
			   "sys %.2f\noutput %zu\n%s",
			   real, real - 1, strlen(out), out);
}

/* Judge a one-run console whose frame carries @payload. */
static void judge_one(const char *payload, const struct kb_workload *w,
		      struct kb_boot_result *r)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_console *c;
	struct kb_err err = KB_ERR_INIT;

	kb_buf_adds(&b, "KBISECT-START 1\n");
	frame(&b, 1, payload);
	kb_buf_adds(&b, "KBISECT-DONE 1\n");
	c = feed_text(b.buf);
	memset(r, 0, sizeof(*r));
	assert_int_equal(kb_console_judge(c, w, 1, 0, r, &err), 0);
	kb_console_free(c);
	kb_buf_release(&b);
}

/* Seed 002's dd | cat in 2 copies: each copy's times, their sum, mean
 * and max, and real_s the wall time of both (the max); a rate adds up. */
static void test_console__copies_store_each_and_the_aggregates(void **state)
{
	struct kb_option metrics[] = { { .key = "ops",
					 .value = "([0-9.]+) ops/s" } };
	struct kb_workload w = { .kind = KB_WORKLOAD_COMMAND,
				 .metric = "real_s",
				 .nmetrics = 1,
				 .metrics = metrics,
				 .copies = 2 };
	struct kb_buf p = KB_BUF_INIT;
	struct kb_boot_result r;
	char *c1 = cmd_report(79.92, 100), *c2 = cmd_report(120.5, 50);

	(void)state;
	kb_buf_addf(&p, "kbisect-copies 2\ncopy 1 %zu\n%scopy 2 %zu\n%s\n",
		    strlen(c1), c1, strlen(c2), c2);
	judge_one(p.buf, &w, &r);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(r.nruns, 1);
	assert_float_equal(value_of(&r.runs[0], "real_s"), 120.5, 0);
	assert_float_equal(value_of(&r.runs[0], "real_s.max"), 120.5, 0);
	assert_float_equal(value_of(&r.runs[0], "real_s.sum"), 200.42, 1e-9);
	assert_float_equal(value_of(&r.runs[0], "real_s.mean"), 100.21, 1e-9);
	assert_float_equal(value_of(&r.runs[0], "real_s.copy1"), 79.92, 0);
	assert_float_equal(value_of(&r.runs[0], "real_s.copy2"), 120.5, 0);
	assert_float_equal(value_of(&r.runs[0], "sys_s.sum"), 198.42, 1e-9);
	/* a higher-is-better metric's plain name is the copies' total */
	assert_float_equal(value_of(&r.runs[0], "ops"), 150, 0);
	assert_float_equal(value_of(&r.runs[0], "ops.max"), 100, 0);
	assert_float_equal(value_of(&r.runs[0], "ops.copy2"), 50, 0);
	/* 4 metrics x (2 copies + sum, mean, max + aggregate) */
	assert_int_equal(r.runs[0].n, 4 * 6);
	kb_boot_result_release(&r);
	/* a payload of another number of copies is no result */
	w.copies = 3;
	judge_one(p.buf, &w, &r);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_msg_contains(r.reason, "another number of copies than the 3 asked");
	kb_boot_result_release(&r);
	/* the variant of 1 copy (the factor's level 1) runs the plain
	 * workload, and stores the same names: real_s.sum is its real_s,
	 * so that metric: real_s.sum has samples in every variant */
	w.copies = 1;
	w.copies_factor = 1;
	judge_one(c1, &w, &r);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_float_equal(value_of(&r.runs[0], "real_s.sum"), 79.92, 0);
	assert_float_equal(value_of(&r.runs[0], "real_s.copy1"), 79.92, 0);
	assert_float_equal(value_of(&r.runs[0], "real_s"), 79.92, 0);
	assert_float_equal(value_of(&r.runs[0], "ops.max"), 100, 0);
	kb_boot_result_release(&r);
	kb_buf_release(&p);
	free(c1);
	free(c2);
}

/* fio in 2 copies, one job per device: totals and per device. */
static void test_console__fio_copies_per_device(void **state)
{
	struct kb_workload w = { .kind = KB_WORKLOAD_FIO,
				 .metric = "read_iops",
				 .per_device = 1,
				 .targets_count = 2,
				 .copies = 2 };
	struct kb_buf json = KB_BUF_INIT, p = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_boot_result r;
	double v;

	(void)state;
	if (kb_buf_read_file(&json, KB_TEST_DATA "/fio/per-device-two-files.json",
			     1u << 20, &err))
		fail_msg("%s", err.msg);
	kb_buf_addf(&p, "kbisect-copies 2\ncopy 1 %zu\n%scopy 2 %zu\n%s",
		    json.len, json.buf, json.len, json.buf);
	judge_one(p.buf, &w, &r);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_float_equal(value_of(&r.runs[0], "read_iops"),
			   2 * (264985.014985 + 198919.080919), 1e-6);
	assert_float_equal(value_of(&r.runs[0], "read_iops.copy1"),
			   264985.014985 + 198919.080919, 1e-6);
	assert_float_equal(value_of(&r.runs[0], "read_iops.vdb"),
			   2 * 264985.014985, 1e-6);
	/* a latency's aggregate is the worst copy's */
	assert_float_equal(value_of(&r.runs[0], "read_lat_mean_us.vdc"),
			   3.647682967, 1e-9);
	/* per device, the aggregate alone */
	assert_int_equal(kb_sample_get(&r.runs[0], "read_iops.vdb.copy1", &v),
			 -1);
	kb_boot_result_release(&r);
	kb_buf_release(&json);
	kb_buf_release(&p);
}

/* /init could not find the devices the matrix names: the boot's
 * failure says which glob, as "no target disk" did. */
static void test_console__missing_targets_fail_the_boot(void **state)
{
	struct kb_workload w = { .kind = KB_WORKLOAD_FIO, .metric = "read_iops" };
	struct kb_boot_result r;
	struct kb_console *c;

	(void)state;
	c = feed_text("KBISECT-START 1\n"
		      "KBISECT-ERROR 1 found 1 of 2 target disks matching /dev/vd[b-c] after 30 s\n");
	memset(&r, 0, sizeof(r));
	assert_int_equal(kb_console_judge(c, &w, 1, 0, &r, NULL), 0);
	assert_int_equal(r.status, KB_BOOT_BAD_OUTPUT);
	assert_msg_contains(r.reason, "the guest reports an error: 1 found 1 of 2 target disks matching /dev/vd[b-c]");
	kb_boot_result_release(&r);
	kb_console_free(c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_console__copies_store_each_and_the_aggregates),
	cmocka_unit_test(test_console__fio_copies_per_device),
	cmocka_unit_test(test_console__missing_targets_fail_the_boot),
	cmocka_unit_test(test_console__crc_is_zlib_crc32),
	cmocka_unit_test(test_console__frames_among_kernel_lines),
	cmocka_unit_test(test_console__split_at_every_byte_boundary),
	cmocka_unit_test(test_console__crlf_is_handled),
	cmocka_unit_test(test_console__corrupted_checksum_is_bad),
	cmocka_unit_test(test_console__wrong_length_is_bad),
	cmocka_unit_test(test_console__truncated_frame_is_not_a_result),
	cmocka_unit_test(test_console__protocol_violations_are_bad),
	cmocka_unit_test(test_console__oversized_input_is_bad),
	cmocka_unit_test(test_console__long_lines_are_split),
	cmocka_unit_test(test_console__panic_is_seen),
	cmocka_unit_test(test_console__panic_inside_a_frame),
	cmocka_unit_test(test_console__markers_inside_payload_are_data),
	cmocka_unit_test(test_console__state_is_final_after_done),
	cmocka_unit_test(test_console__tail_keeps_last_lines),
	cmocka_unit_test(test_console__judge_timeouts_and_early_end),
	cmocka_unit_test(test_console__judge_parses_fio_frames),
	cmocka_unit_test(test_console__judge_parses_command_frames),
	cmocka_unit_test(test_console__monitors_frames_go_to_the_result),
	cmocka_unit_test(test_console__monitors_frame_that_fails_keeps_the_boot),
	cmocka_unit_test(test_console__monitors_frame_out_of_place_is_bad),
	cmocka_unit_test(test_console__profile_frames_go_to_the_result),
	cmocka_unit_test(test_console__profile_frame_out_of_place_is_bad),
	cmocka_unit_test(test_console__parse_buffer_names_file),
	cmocka_unit_test(test_console__fuzz_corpus_replays),
};

KB_TEST_MAIN(tests)
