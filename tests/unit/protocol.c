#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "mem.h"
#include "protocol.h"

#define CORPUS "tests/fuzz/corpus/protocol"

static void parse_ok(const char *line, struct kb_msg *m)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_protocol_parse_buffer(line, strlen(line), m, &err))
		fail_msg("unexpected error for %s: %s", line, err.msg);
}

static void parse_err(const char *line, size_t len, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg m;

	assert_int_equal(kb_protocol_parse_buffer(line, len, &m, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, expect);
	assert_int_equal(m.type, 0);
	assert_null(m.matrix);
	assert_null(m.progress);
}

/* Write @in, check it is one line, parse it back into @out. */
static void roundtrip(const struct kb_msg *in, struct kb_msg *out)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	kb_protocol_write(&b, in);
	assert_true(b.len > 0);
	assert_int_equal(b.buf[b.len - 1], '\n');
	assert_null(memchr(b.buf, '\n', b.len - 1));
	if (kb_protocol_parse_buffer(b.buf, b.len, out, &err))
		fail_msg("%s: %s", b.buf, err.msg);
	assert_int_equal(out->type, in->type);
	kb_buf_release(&b);
}

static void test_protocol__submit_roundtrips_texts(void **state)
{
	struct kb_msg in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.type = KB_MSG_SUBMIT;
	in.matrix = "name: x\n\tfactors: \"q\" \\ \xc3\xa9\n";
	in.matrix_path = "/tmp/m.yaml";
	in.model = "metric: read_iops\n";
	roundtrip(&in, &out);
	assert_string_equal(out.matrix, in.matrix);
	assert_string_equal(out.matrix_path, in.matrix_path);
	assert_string_equal(out.model, in.model);
	kb_msg_release(&out);
	in.model = NULL;
	in.matrix_path = NULL;
	roundtrip(&in, &out);
	assert_null(out.model);
	assert_null(out.matrix_path);
	kb_msg_release(&out);
}

static void test_protocol__submit_carries_raised_caps(void **state)
{
	const char *neg = "{\"msg\":10,\"matrix\":\"x\",\"max_samples\":-1}";
	const char *text = "{\"msg\":10,\"matrix\":\"x\",\"max_boots\":\"9\"}";
	struct kb_msg in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.type = KB_MSG_SUBMIT;
	in.matrix = "name: x\n";
	in.max_boots = 200000;
	in.max_samples = 5000000000LL;
	roundtrip(&in, &out);
	assert_int_equal(out.max_boots, 200000);
	assert_int_equal(out.max_samples, 5000000000LL);
	kb_msg_release(&out);
	/* absent: 0, the daemon's defaults */
	parse_ok("{\"msg\":10,\"matrix\":\"name: x\"}", &out);
	assert_int_equal(out.max_boots, 0);
	assert_int_equal(out.max_samples, 0);
	kb_msg_release(&out);
	parse_err(neg, strlen(neg), "member 'max_samples' is out of range");
	parse_err(text, strlen(text), "member 'max_boots' is not an integer");
}

static void test_protocol__every_type_has_a_stable_number(void **state)
{
	struct kb_msg m;

	(void)state;
	/* the numbers are the protocol: docs/protocol.md lists them */
	assert_int_equal(KB_MSG_HELLO, 1);
	assert_int_equal(KB_MSG_SUBMIT, 10);
	assert_int_equal(KB_MSG_ERROR, 30);
	parse_ok("{\"msg\":1,\"version\":1,\"daemon\":\"h:1:ab\"}", &m);
	assert_int_equal(m.type, KB_MSG_HELLO);
	assert_int_equal(m.version, 1);
	assert_string_equal(m.daemon, "h:1:ab");
	kb_msg_release(&m);
	parse_ok("{\"msg\":11}", &m);
	assert_int_equal(m.type, KB_MSG_STATUS);
	assert_int_equal(m.id, 0);
	kb_msg_release(&m);
	parse_ok("{\"msg\":12,\"id\":42}\n", &m);
	assert_int_equal(m.type, KB_MSG_CANCEL);
	assert_int_equal(m.id, 42);
	assert_string_equal(kb_msg_type_name(m.type), "cancel");
	kb_msg_release(&m);
	parse_ok("{\"msg\":22,\"id\":3,\"state\":\"cancelled\"}", &m);
	assert_string_equal(m.state, "cancelled");
	kb_msg_release(&m);
}

static void test_protocol__error_carries_its_code(void **state)
{
	struct kb_msg in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.type = KB_MSG_ERROR;
	in.code = KB_EINPUT;
	in.message = "m.yaml:3:1: unknown key 'x'";
	roundtrip(&in, &out);
	assert_int_equal(out.code, KB_EINPUT);
	assert_string_equal(out.message, in.message);
	kb_msg_release(&out);
	assert_int_equal(kb_protocol_code("notfound"), KB_ENOTFOUND);
	assert_int_equal(kb_protocol_code("martian"), KB_EFAIL);
}

static void test_protocol__progress_roundtrips_unknowns_as_nan(void **state)
{
	struct kb_msg_progress p[2];
	struct kb_msg in, out;

	(void)state;
	memset(p, 0, sizeof(p));
	p[0].id = 7;
	p[0].name = "seed";
	p[0].state = "running";
	p[0].current = "boot 2 of #1 A=y on qemu:///system";
	p[0].boots_done = 9;
	p[0].boots_total = 40;
	p[0].build_mean_s = 412.5;
	p[0].boot_mean_s = NAN;
	p[0].elapsed_s = 100;
	p[0].eta_s = NAN;
	p[0].cancel_requested = 1;
	p[1].id = 8;
	p[1].build_mean_s = p[1].boot_mean_s = NAN;
	p[1].elapsed_s = p[1].eta_s = NAN;
	memset(&in, 0, sizeof(in));
	in.type = KB_MSG_PROGRESS;
	in.nprogress = 2;
	in.progress = p;
	roundtrip(&in, &out);
	assert_int_equal(out.nprogress, 2);
	assert_int_equal(out.progress[0].id, 7);
	assert_string_equal(out.progress[0].current, p[0].current);
	assert_int_equal(out.progress[0].boots_done, 9);
	assert_int_equal(out.progress[0].boots_total, 40);
	assert_true(out.progress[0].build_mean_s == 412.5);
	assert_true(isnan(out.progress[0].boot_mean_s));
	assert_true(isnan(out.progress[0].eta_s));
	assert_true(out.progress[0].cancel_requested);
	assert_null(out.progress[1].name);
	kb_msg_release(&out);
}

static void test_protocol__unknown_members_are_ignored(void **state)
{
	struct kb_msg m;

	(void)state;
	parse_ok("{\"later\":[1,{\"x\":null}],\"msg\":13,\"id\":5}", &m);
	assert_int_equal(m.type, KB_MSG_WATCH);
	assert_int_equal(m.id, 5);
	kb_msg_release(&m);
}

static void test_protocol__bad_lines_are_refused(void **state)
{
	static const char nul[] = "{\"msg\":1,\"version\":1}\0x";

	(void)state;
	parse_err("", 0, "not JSON");
	parse_err("{\"msg\":1", 8, "ends too early");
	parse_err("[1]", 3, "not a JSON object");
	parse_err("{\"msg\":99}", 10, "unknown message type 99");
	parse_err("{\"msg\":\"hello\"}", 15, "'msg' is not an integer");
	parse_err("{\"id\":1}", 8, "lacks member 'msg'");
	parse_err("{\"msg\":1}", 9, "lacks member 'version'");
	parse_err("{\"msg\":1,\"version\":0}", 21, "out of range");
	parse_err("{\"msg\":12,\"id\":-1}", 18, "out of range");
	parse_err("{\"msg\":12,\"id\":1.5}", 19, "not an integer");
	parse_err("{\"msg\":10,\"matrix\":7}", 21, "'matrix' is not a string");
	parse_err("{\"msg\":10,\"matrix\":\"a\\u0000b\"}", 30, "NUL");
	parse_err("{\"msg\":10,\"matrix\":\"\xc3(\"}", 24, "not UTF-8");
	parse_err("{\"msg\":11} {\"msg\":11}", 21, "after its JSON object");
	parse_err("{\"msg\":11}\n{\"msg\":11}", 21, "more than one line");
	parse_err(nul, sizeof(nul) - 1, "after its JSON object");
	parse_err("{\"msg\":21,\"experiments\":{}}", 27, "not an array");
	parse_err("{\"msg\":21,\"experiments\":[{}]}", 29, "lacks member 'id'");
	parse_err("[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]", 40, "not JSON");
}

static void test_protocol__take_line_splits_and_caps(void **state)
{
	struct kb_buf in = KB_BUF_INIT, line = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	char *big;

	(void)state;
	kb_buf_adds(&in, "one\ntwo\nthr");
	assert_int_equal(kb_protocol_take_line(&in, &line, &err), 1);
	assert_string_equal(line.buf, "one");
	assert_int_equal(kb_protocol_take_line(&in, &line, &err), 1);
	assert_string_equal(line.buf, "two");
	assert_int_equal(kb_protocol_take_line(&in, &line, &err), 0);
	assert_string_equal(in.buf, "thr");
	big = kb_malloc(KB_PROTOCOL_MAX_LINE + 2);
	memset(big, 'x', KB_PROTOCOL_MAX_LINE + 1);
	kb_buf_add(&in, big, KB_PROTOCOL_MAX_LINE + 1);
	assert_int_equal(kb_protocol_take_line(&in, &line, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "line longer than");
	free(big);
	kb_buf_release(&in);
	kb_buf_release(&line);
}

static void test_protocol__default_socket_follows_environment(void **state)
{
	char *p;

	(void)state;
	setenv("KBISECT_SOCKET", "/x/y.sock", 1);
	p = kb_protocol_default_socket();
	assert_string_equal(p, "/x/y.sock");
	free(p);
	unsetenv("KBISECT_SOCKET");
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	p = kb_protocol_default_socket();
	if (geteuid() == 0)
		assert_string_equal(p, "/run/kbisect/kbisectd.sock");
	else
		assert_string_equal(p, "/run/user/1000/kbisect/kbisectd.sock");
	free(p);
}

static void test_protocol__no_daemon_says_how_to_start_one(void **state)
{
	struct kb_protocol_reader *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	int fd = 5;

	(void)state;
	assert_int_equal(kb_protocol_connect("/nonexistent/kbisectd.sock", &fd,
					     &r, &err),
			 KB_ENOTFOUND);
	assert_int_equal(fd, -1);
	assert_null(r);
	assert_msg_contains(err.msg, "kbisectd --socket /nonexistent/");
}

/* The fuzzing corpus: each file parses or is refused, and what parses
 * writes back to a line that parses to the same type. */
static void test_protocol__corpus_replays(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	unsigned n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_err err = KB_ERR_INIT;
		struct kb_msg m, again;
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = kb_asprintf("%s/%s", CORPUS, e->d_name);
		if (kb_buf_read_file(&b, path, 8u << 20, &err))
			fail_msg("%s", err.msg);
		if (kb_protocol_parse_buffer(b.buf, b.len, &m, &err) == 0) {
			kb_buf_reset(&b);
			kb_protocol_write(&b, &m);
			if (kb_protocol_parse_buffer(b.buf, b.len, &again,
						     &err))
				fail_msg("%s: rewritten line: %s", path,
					 err.msg);
			assert_int_equal(again.type, m.type);
			kb_msg_release(&again);
			kb_msg_release(&m);
		} else {
			assert_true(err.msg[0] != '\0');
		}
		kb_buf_release(&b);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 5);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_protocol__submit_roundtrips_texts),
	cmocka_unit_test(test_protocol__submit_carries_raised_caps),
	cmocka_unit_test(test_protocol__every_type_has_a_stable_number),
	cmocka_unit_test(test_protocol__error_carries_its_code),
	cmocka_unit_test(test_protocol__progress_roundtrips_unknowns_as_nan),
	cmocka_unit_test(test_protocol__unknown_members_are_ignored),
	cmocka_unit_test(test_protocol__bad_lines_are_refused),
	cmocka_unit_test(test_protocol__take_line_splits_and_caps),
	cmocka_unit_test(test_protocol__default_socket_follows_environment),
	cmocka_unit_test(test_protocol__no_daemon_says_how_to_start_one),
	cmocka_unit_test(test_protocol__corpus_replays),
};

KB_TEST_MAIN(tests)
