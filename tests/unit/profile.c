#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testcorpus.h"
#include "buf.h"
#include "err.h"
#include "profile.h"

static int parse(const char *text, unsigned run, struct kb_profile_stack **v,
		 size_t *n, struct kb_err *err)
{
	return kb_profile_parse_buffer(text, strlen(text), "frame", run, v, n,
				       err);
}

static void test_profile__folds_sorts_and_sums(void **state)
{
	struct kb_profile_stack *v = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0;

	(void)state;
	assert_int_equal(parse("kbisect-profile 1\n"
			       "start_kernel;do_idle 5\n"
			       "entry_SYSCALL_64;__x64_sys_read;[unknown] 2\n"
			       "start_kernel;do_idle 3\n",
			       1, &v, &n, &err),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].stack, "entry_SYSCALL_64;__x64_sys_read;[unknown]");
	assert_int_equal(v[0].samples, 2);
	assert_string_equal(v[1].stack, "start_kernel;do_idle");
	assert_int_equal(v[1].samples, 8);
	assert_int_equal(v[1].run, 1);
	/* a second run appends, an empty profile (no samples) is fine */
	assert_int_equal(parse("kbisect-profile 1\nmemcpy_orig 1", 2, &v, &n,
			       &err),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[2].run, 2);
	assert_int_equal(parse("kbisect-profile 1\n", 3, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	kb_profile_stacks_free(v, n);
}

static void test_profile__deep_stack_keeps_innermost_frames(void **state)
{
	struct kb_profile_stack *v = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	size_t n = 0;
	int i;

	(void)state;
	kb_buf_adds(&b, "kbisect-profile 1\n");
	for (i = 0; i < KB_PROFILE_MAX_DEPTH + 10; i++)
		kb_buf_addf(&b, "%sf%d", i ? ";" : "", i);
	kb_buf_adds(&b, " 7\n");
	assert_int_equal(kb_profile_parse_buffer(b.buf, b.len, "f", 1, &v, &n,
						 &err),
			 0);
	assert_int_equal(n, 1);
	assert_true(!strncmp(v[0].stack, "f10;f11;", 8));
	assert_non_null(strstr(v[0].stack, ";f137"));
	kb_profile_stacks_free(v, n);
	kb_buf_release(&b);
}

static void test_profile__malformed_is_refused_untouched(void **state)
{
	static const char *bad[] = {
		"",
		"kbisect-profile 2\nf 1\n",
		"kbisect-profile 1\nf\n",
		"kbisect-profile 1\nf 0\n",
		"kbisect-profile 1\nf 01\n",
		"kbisect-profile 1\nf -1\n",
		"kbisect-profile 1\nf 99999999999999999999\n",
		"kbisect-profile 1\n 1\n",
		"kbisect-profile 1\na;;b 1\n",
		"kbisect-profile 1\na; 1\n",
		"kbisect-profile 1\na b 1\n",
		"kbisect-profile 1\na\x1b[31m 1\n",
		"kbisect-profile 1\nok 1\nbad\tline 1\n",
	};
	struct kb_profile_stack *v = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(parse("kbisect-profile 1\nkeep 1\n", 1, &v, &n, &err), 0);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		kb_err_clear(&err);
		assert_int_equal(parse(bad[i], 2, &v, &n, &err), KB_EINPUT);
		assert_non_null(strstr(err.msg, "frame"));
		assert_int_equal(n, 1);
		assert_string_equal(v[0].stack, "keep");
	}
	kb_profile_stacks_free(v, n);
}

/* Every corpus file must parse or be refused with the file's name. */
static int parse_corpus(const char *data, size_t len, const char *path,
			struct kb_err *err)
{
	struct kb_profile_stack *v = NULL;
	size_t n = 0;
	int ret = kb_profile_parse_buffer(data, len, path, 1, &v, &n, err);

	if (ret)
		assert_null(v);
	kb_profile_stacks_free(v, n);
	return ret;
}

static void test_profile__fuzz_corpus_replays(void **state)
{
	(void)state;
	kb_test_replay_corpus("profile", 1 << 24, parse_corpus, 2, 3);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_profile__folds_sorts_and_sums),
	cmocka_unit_test(test_profile__deep_stack_keeps_innermost_frames),
	cmocka_unit_test(test_profile__malformed_is_refused_untouched),
	cmocka_unit_test(test_profile__fuzz_corpus_replays),
};

KB_TEST_MAIN(tests)
