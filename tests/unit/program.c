#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "program.h"

static void test_program__captures_stdout_and_status(void **state)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
			       NULL };
	struct kb_program p = { argv, NULL, KB_PROGRAM_PIPE, KB_PROGRAM_NULL,
				NULL, NULL };
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int status = -7;

	(void)state;
	assert_int_equal(kb_program_capture(&p, &b, 1024, &status, &err), 0);
	assert_string_equal(b.buf, "out\n");
	assert_int_equal(status, 3);
	kb_buf_reset(&b);
	p.out = KB_PROGRAM_NULL;
	p.err = KB_PROGRAM_PIPE;
	assert_int_equal(kb_program_capture(&p, &b, 1024, &status, &err), 0);
	assert_string_equal(b.buf, "err\n");
	kb_buf_release(&b);
}

static void test_program__capture_is_capped_but_drained(void **state)
{
	/* 1 MB of output into a 100-byte cap: the child must not block */
	const char *argv[] = { "sh", "-c",
			       "head -c 1000000 /dev/zero | tr '\\\\0' x", NULL };
	struct kb_program p = { argv, NULL, KB_PROGRAM_PIPE, KB_PROGRAM_NULL,
				NULL, NULL };
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int status;

	(void)state;
	assert_int_equal(kb_program_capture(&p, &b, 100, &status, &err), 0);
	assert_int_equal(b.len, 100);
	assert_int_equal(status, 0);
	kb_buf_release(&b);
}

static void test_program__log_gets_both_streams_appended(void **state)
{
	char path[] = "/tmp/kb-program-XXXXXX";
	const char *argv[] = { "sh", "-c", "echo a; echo b >&2", NULL };
	struct kb_program p = { argv, NULL, KB_PROGRAM_LOG, KB_PROGRAM_LOG,
				path, NULL };
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int fd = mkstemp(path), status;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
	assert_int_equal(kb_program_capture(&p, NULL, 0, &status, &err), 0);
	assert_int_equal(kb_buf_read_file(&b, path, 1024, &err), 0);
	assert_string_equal(b.buf, "x\na\nb\n");
	kb_buf_release(&b);
	unlink(path);
}

static void test_program__signal_and_missing_program(void **state)
{
	const char *kill_self[] = { "sh", "-c", "kill -9 $$", NULL };
	const char *missing[] = { "kb-no-such-program-here", NULL };
	struct kb_program p = { kill_self, NULL, KB_PROGRAM_NULL,
				KB_PROGRAM_NULL, NULL, NULL };
	struct kb_err err = KB_ERR_INIT;
	int status;

	(void)state;
	assert_int_equal(kb_program_capture(&p, NULL, 0, &status, &err), 0);
	assert_int_equal(status, 128 + 9);
	p.argv = missing;
	assert_int_equal(kb_program_capture(&p, NULL, 0, &status, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "cannot run 'kb-no-such-program-here'");
}

static void test_program__make_env_drops_make_flags(void **state)
{
	char **env;
	size_t i;
	int lc = 0;

	(void)state;
	setenv("MAKEFLAGS", "-j9 -s", 1);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	env = kb_program_make_env();
	for (i = 0; env[i]; i++) {
		assert_true(strncmp(env[i], "MAKEFLAGS=", 10));
		if (!strcmp(env[i], "LC_ALL=C"))
			lc++;
		assert_true(strcmp(env[i], "LC_ALL=de_DE.UTF-8"));
	}
	assert_int_equal(lc, 1);
	free(env);
	unsetenv("MAKEFLAGS");
	unsetenv("LC_ALL");
}

static void test_program__stdin_from_a_file(void **state)
{
	char path[] = "/tmp/kbisect-program-in.XXXXXX";
	const char *argv[] = { "cat", NULL };
	struct kb_program p = { argv, NULL, KB_PROGRAM_PIPE, KB_PROGRAM_NULL,
				NULL, path };
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int fd = mkstemp(path), status = -7;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "shipped\n", 8), 8);
	close(fd);
	assert_int_equal(kb_program_capture(&p, &b, 1024, &status, &err), 0);
	assert_string_equal(b.buf, "shipped\n");
	assert_int_equal(status, 0);
	/* NULL: /dev/null, as before */
	kb_buf_reset(&b);
	p.in = NULL;
	assert_int_equal(kb_program_capture(&p, &b, 1024, &status, &err), 0);
	assert_int_equal(b.len, 0);
	kb_buf_release(&b);
	unlink(path);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_program__stdin_from_a_file),
	cmocka_unit_test(test_program__captures_stdout_and_status),
	cmocka_unit_test(test_program__capture_is_capped_but_drained),
	cmocka_unit_test(test_program__log_gets_both_streams_appended),
	cmocka_unit_test(test_program__signal_and_missing_program),
	cmocka_unit_test(test_program__make_env_drops_make_flags),
};

KB_TEST_MAIN(tests)
