#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
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
	assert_null(m.db);
	kb_msg_release(&m);
	parse_ok("{\"msg\":1,\"version\":1,\"db\":\"/d/k.db\"}", &m);
	assert_string_equal(m.db, "/d/k.db");
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

static void pe(const char *line, const char *expect)
{
	parse_err(line, strlen(line), expect);
}

static void test_protocol__ids_past_int64_are_refused(void **state)
{
	struct kb_msg m;

	(void)state;
	parse_ok("{\"msg\":13,\"id\":9223372036854775807}", &m);
	assert_true(m.id == INT64_MAX);
	kb_msg_release(&m);
	/* json-c saturates these to INT64_MAX and INT64_MIN */
	pe("{\"msg\":13,\"id\":9223372036854775808}", "integer out of range (9223372036854775808)");
	pe("{\"msg\":12,\"id\":18446744073709551617}", "integer out of range");
	pe("{\"msg\":11,\"id\":123456789012345678901234}", "integer out of range");
	pe("{\"msg\":10,\"matrix\":\"a\",\"max_boots\":99999999999999999999}",
	   "integer out of range");
	pe("{\"msg\":12,\"id\":-9223372036854775809}", "integer out of range");
	pe("{\"msg\":21,\"experiments\":[{\"id\":9223372036854775808}]}",
	   "integer out of range");
	/* and none is written: seconds that large go as null (unknown) */
	parse_ok("{\"msg\":21,\"experiments\":[{\"id\":1,\"eta_s\":1e20,\"elapsed_s\":2.5}]}", &m);
	{
		struct kb_msg again;

		roundtrip(&m, &again);
		assert_true(isnan(again.progress[0].eta_s));
		assert_true(again.progress[0].elapsed_s == 2.5);
		kb_msg_release(&again);
	}
	kb_msg_release(&m);
	/* a string of digits is not a number */
	parse_ok("{\"msg\":10,\"matrix\":\"99999999999999999999:\"}", &m);
	kb_msg_release(&m);
}

static void test_protocol__repeated_members_are_refused(void **state)
{
	struct kb_msg m;

	(void)state;
	/* read by its last value, this cancelled experiment 1 */
	pe("{\"msg\":11,\"msg\":12,\"id\":1}", "repeats a member");
	pe("{\"msg\":13,\"id\":1,\"id\":2}", "repeats a member");
	pe("{\"msg\":1,\"version\":1,\"x\":{\"a\":1,\"a\":2}}", "repeats a member");
	pe("{\"msg\":21,\"experiments\":[{\"id\":1,\"name\":\"a\",\"name\":\"b\"}]}",
	   "repeats a member");
	pe("{\"msg\":1,\"version\":1,\"x\":{\"o\":{\"a\":1},\"o\":{}}}",
	   "repeats a member");
	/* an escaped name is the same name */
	pe("{\"msg\":11,\"\\u006dsg\":12,\"id\":1}", "repeats a member");
	/* the same name in two objects, and colons in strings, are fine */
	parse_ok("{\"msg\":21,\"experiments\":[{\"id\":1,\"name\":\"a:b\"},{\"id\":2}]}", &m);
	assert_int_equal(m.nprogress, 2);
	kb_msg_release(&m);
	/* not JSON: comments, single quotes, trailing commas */
	pe("{\"msg\":11 /* : */}", "not JSON");
	pe("{\"msg\":11,}", "not JSON");
}

static void test_protocol__lone_surrogates_are_refused(void **state)
{
	struct kb_msg m;

	(void)state;
	/* json-c turns each into U+FFFD */
	pe("{\"msg\":10,\"matrix\":\"\\ud800\"}", "lone surrogate \\ud800");
	pe("{\"msg\":10,\"matrix\":\"\\ud800x\"}", "lone surrogate \\ud800");
	pe("{\"msg\":10,\"matrix\":\"\\udbff\\u0041\"}", "lone surrogate \\udbff");
	pe("{\"msg\":10,\"matrix\":\"a\\udc00\"}", "lone surrogate \\udc00");
	pe("{\"msg\":10,\"matrix\":\"\\ud800\\ud800\"}", "lone surrogate");
	pe("{\"msg\":10,\"\\ud800\":1,\"matrix\":\"a\"}", "lone surrogate");
	/* a pair is one character; an escaped backslash is not an escape */
	parse_ok("{\"msg\":10,\"matrix\":\"\\ud83d\\ude00\\\\ud800\"}", &m);
	assert_string_equal(m.matrix, "\xf0\x9f\x98\x80\\ud800");
	kb_msg_release(&m);
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

/* a client pipelining thousands of requests made the daemon move the
 * rest of its input once per line (issue 12): lines are taken in place */
static void test_protocol__next_line_takes_lines_in_place(void **state)
{
	struct kb_buf in = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	const char *l;
	size_t len, off = 0, i;
	char *big;

	(void)state;
	kb_buf_adds(&in, "one\n\ntwo\nthr");
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err), 1);
	assert_ptr_equal(l, in.buf);
	assert_int_equal(len, 3);
	assert_int_equal(off, 4);
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err), 1);
	assert_int_equal(len, 0);
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err), 1);
	assert_true(len == 3 && !memcmp(l, "two", 3));
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err), 0);
	assert_int_equal(off, 9);
	assert_string_equal(in.buf + off, "thr");
	assert_int_equal(in.len, 12); /* nothing moved */

	/* 200,000 lines at once, each taken in constant time */
	kb_buf_reset(&in);
	for (i = 0; i < 200000; i++)
		kb_buf_adds(&in, "{\"msg\":11}\n");
	off = 0;
	for (i = 0; kb_protocol_next_line(&in, &off, &l, &len, &err) == 1; i++)
		assert_int_equal(len, 10);
	assert_int_equal(i, 200000);
	assert_int_equal(off, in.len);

	/* a line over the limit, with its newline or without one */
	big = kb_malloc(KB_PROTOCOL_MAX_LINE + 2);
	memset(big, 'x', KB_PROTOCOL_MAX_LINE + 1);
	kb_buf_add(&in, big, KB_PROTOCOL_MAX_LINE);
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err), 0);
	kb_buf_add(&in, "x", 1);
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "line longer than");
	kb_err_clear(&err);
	kb_buf_add(&in, "\n", 1);
	assert_int_equal(kb_protocol_next_line(&in, &off, &l, &len, &err),
			 KB_EINPUT);
	free(big);
	kb_buf_release(&in);
}

/* ---- a fake daemon: answers HELLO, then nothing (a stopped daemon) ---- */

struct fake {
	char dir[64];
	char path[96];
	int listen_fd;
	int answer_hello; /* 0: never accept at all */
	pthread_t thread;
};

static void *fake_run(void *arg)
{
	struct fake *f = arg;
	char buf[4096];
	int c = accept(f->listen_fd, NULL, NULL);
	static const char hello[] =
		"{\"msg\":1,\"version\":1,\"daemon\":\"fake\"}\n";

	if (c < 0)
		return NULL;
	if (read(c, buf, sizeof(buf)) > 0 &&
	    write(c, hello, sizeof(hello) - 1) < 0)
		fail_msg("fake daemon cannot answer");
	/* then silence until the client gives up and closes */
	while (read(c, buf, sizeof(buf)) > 0)
		;
	close(c);
	return NULL;
}

static void fake_start(struct fake *f, int answer_hello, int backlog)
{
	struct sockaddr_un sa;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/kb-proto-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/d.sock", f->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(f->listen_fd >= 0);
	assert_int_equal(bind(f->listen_fd, (struct sockaddr *)&sa,
			      sizeof(sa)), 0);
	assert_int_equal(listen(f->listen_fd, backlog), 0);
	f->answer_hello = answer_hello;
	if (answer_hello)
		assert_int_equal(pthread_create(&f->thread, NULL, fake_run, f),
				 0);
}

static void fake_stop(struct fake *f)
{
	if (f->answer_hello)
		pthread_join(f->thread, NULL);
	close(f->listen_fd);
	unlink(f->path);
	rmdir(f->dir);
}

/* clients waited for ever on a stopped daemon (SIGSTOP, issue 12) */
static void test_protocol__a_silent_daemon_times_out(void **state)
{
	struct kb_protocol_reader *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg req, reply;
	struct fake f;
	double t0;
	int fd = -1;

	(void)state;
	setenv("KBISECT_TIMEOUT", "0.3", 1);
	fake_start(&f, 1, 4);
	assert_int_equal(kb_protocol_connect(f.path, &fd, &r, &err), 0);
	assert_int_equal(kb_protocol_reader_timeout(r, 0), 300);
	assert_int_equal(kb_protocol_reader_timeout(r, 1),
			 3 * KB_PROTOCOL_HEARTBEAT_S * 1000);
	memset(&req, 0, sizeof(req));
	req.type = KB_MSG_STATUS;
	t0 = kb_monotime();
	assert_int_equal(kb_protocol_call(fd, r, &req, &reply, &err),
			 KB_EFAIL);
	assert_true(kb_monotime() - t0 >= 0.25);
	assert_true(kb_monotime() - t0 < 5);
	assert_msg_contains(err.msg, "did not answer within 0.3 s");
	assert_msg_contains(err.msg, f.path);
	assert_msg_contains(err.msg, "KBISECT_TIMEOUT");
	kb_protocol_reader_free(r);
	close(fd);
	fake_stop(&f);

	/* it never even answers HELLO */
	kb_err_clear(&err);
	fake_start(&f, 0, 4);
	assert_int_equal(kb_protocol_connect(f.path, &fd, &r, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "did not answer within 0.3 s");
	assert_int_equal(fd, -1);
	fake_stop(&f);
	unsetenv("KBISECT_TIMEOUT");
}

/* a full backlog: connect(2) itself blocks on a unix socket */
static void test_protocol__a_full_backlog_times_out(void **state)
{
	struct kb_protocol_reader *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct sockaddr_un sa;
	struct fake f;
	int fd = -1, held[4], n = 0, i;
	double t0;

	(void)state;
	setenv("KBISECT_TIMEOUT", "0.2", 1);
	fake_start(&f, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, f.path, strlen(f.path) + 1);
	/* fill the backlog with connections nobody accepts */
	for (i = 0; i < 4; i++) {
		held[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(held[n], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			assert_int_equal(errno, EAGAIN);
			close(held[n]);
			break;
		}
		n++;
	}
	assert_true(n >= 1 && n < 4);
	t0 = kb_monotime();
	assert_int_equal(kb_protocol_connect(f.path, &fd, &r, &err), KB_EFAIL);
	assert_true(kb_monotime() - t0 < 5);
	assert_msg_contains(err.msg, "did not take the connection within 0.2 s");
	for (i = 0; i < n; i++)
		close(held[i]);
	fake_stop(&f);
	unsetenv("KBISECT_TIMEOUT");
}

static void test_protocol__timeout_comes_from_the_environment(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	int ms = 0;

	(void)state;
	unsetenv("KBISECT_TIMEOUT");
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), 0);
	assert_int_equal(ms, KB_PROTOCOL_TIMEOUT_S * 1000);
	setenv("KBISECT_TIMEOUT", "0", 1);
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), 0);
	assert_int_equal(ms, -1);
	setenv("KBISECT_TIMEOUT", "2.5", 1);
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), 0);
	assert_int_equal(ms, 2500);
	setenv("KBISECT_TIMEOUT", "soon", 1);
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "KBISECT_TIMEOUT='soon' is not a number");
	kb_err_clear(&err);
	setenv("KBISECT_TIMEOUT", "-1", 1);
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), KB_EINPUT);
	kb_err_clear(&err);
	setenv("KBISECT_TIMEOUT", "nan", 1);
	assert_int_equal(kb_protocol_timeout_env(&ms, &err), KB_EINPUT);
	unsetenv("KBISECT_TIMEOUT");
}

/* /tmp/kbisect-UID could be anyone's (issue 12): checked as tmux checks
 * /tmp/tmux-UID; other folders are the user's choice */
static void test_protocol__fallback_socket_folder_must_be_private(void **state)
{
	struct kb_protocol_reader *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	char *dir = kb_asprintf("/tmp/kbisect-%lu", (unsigned long)geteuid());
	char *sock = kb_asprintf("%s/kbisectd.sock", dir);
	char open_dir[] = "/tmp/kb-proto-XXXXXX";
	char *open_sock;
	struct stat st;
	int fd = -1;

	(void)state;
	assert_non_null(mkdtemp(open_dir));
	assert_int_equal(chmod(open_dir, 0777), 0);
	open_sock = kb_asprintf("%s/kbisectd.sock", open_dir);
	assert_int_equal(kb_protocol_socket_dir_check(open_sock, 1, &err), 0);
	rmdir(open_dir);
	free(open_sock);
	if (lstat(dir, &st) == 0) {
		print_message("  (%s exists: the fallback folder is not touched)\n",
			      dir);
		goto out;
	}
	/* missing: fine for a client (nobody listens), made by the daemon */
	assert_int_equal(kb_protocol_socket_dir_check(sock, 0, &err), 0);
	assert_int_equal(kb_protocol_socket_dir_check(sock, 1, &err), 0);
	assert_int_equal(lstat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(kb_protocol_socket_dir_check(sock, 1, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "unsafe socket folder");
	assert_msg_contains(err.msg, "has mode 0777");
	assert_msg_contains(err.msg, "KBISECT_SOCKET");
	kb_err_clear(&err);
	assert_int_equal(kb_protocol_connect(sock, &fd, &r, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "unsafe socket folder");
	kb_err_clear(&err);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(kb_protocol_connect(sock, &fd, &r, &err),
			 KB_ENOTFOUND);
	rmdir(dir);
out:
	free(dir);
	free(sock);
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
	cmocka_unit_test(test_protocol__ids_past_int64_are_refused),
	cmocka_unit_test(test_protocol__repeated_members_are_refused),
	cmocka_unit_test(test_protocol__lone_surrogates_are_refused),
	cmocka_unit_test(test_protocol__take_line_splits_and_caps),
	cmocka_unit_test(test_protocol__next_line_takes_lines_in_place),
	cmocka_unit_test(test_protocol__a_silent_daemon_times_out),
	cmocka_unit_test(test_protocol__a_full_backlog_times_out),
	cmocka_unit_test(test_protocol__timeout_comes_from_the_environment),
	cmocka_unit_test(test_protocol__fallback_socket_folder_must_be_private),
	cmocka_unit_test(test_protocol__default_socket_follows_environment),
	cmocka_unit_test(test_protocol__no_daemon_says_how_to_start_one),
	cmocka_unit_test(test_protocol__corpus_replays),
};

KB_TEST_MAIN(tests)
