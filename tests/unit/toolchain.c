#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "mem.h"
#include "toolchain.h"

static char *tmp;

static int setup(void **state)
{
	(void)state;
	tmp = kb_test_tmpdir("toolchain");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kb_test_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

/* ---- keys ---------------------------------------------------------------- */

static void test_toolchain__key_is_stable(void **state)
{
	char a[65], b[65];
	const char *cfg = "PARAVIRT=y\nSMP=y\n";

	(void)state;
	kb_toolchain_build_key("git:abc", cfg, strlen(cfg), "gcc 12.2.0", a);
	kb_toolchain_build_key("git:abc", cfg, strlen(cfg), "gcc 12.2.0", b);
	assert_string_equal(a, b);
	assert_int_equal(strlen(a), 64);
	/* the digest of the documented input (docs/builds.md), which must
	 * not change between kbisect versions: sha256sum agrees */
	assert_string_equal(
		a, "95bbc7bba7de23abbd755cc817985139dc5e69e267d7d2b79e94cdea3fb7e719");
}

static void test_toolchain__key_changes_with_each_input(void **state)
{
	char k[4][65];
	const char *cfg = "PARAVIRT=y\nSMP=y\n", *cfg2 = "PARAVIRT=y\nSMP=n\n";

	(void)state;
	kb_toolchain_build_key("git:abc", cfg, strlen(cfg), "gcc 12.2.0", k[0]);
	kb_toolchain_build_key("git:abd", cfg, strlen(cfg), "gcc 12.2.0", k[1]);
	kb_toolchain_build_key("git:abc", cfg2, strlen(cfg2), "gcc 12.2.0", k[2]);
	kb_toolchain_build_key("git:abc", cfg, strlen(cfg), "gcc 12.2.1", k[3]);
	assert_string_not_equal(k[0], k[1]);
	assert_string_not_equal(k[0], k[2]);
	assert_string_not_equal(k[0], k[3]);
	assert_string_not_equal(k[1], k[2]);
}

/* ---- the compiler ---------------------------------------------------------- */

static void test_toolchain__compiler_version_is_the_first_line(void **state)
{
	char *cc = kb_test_write(tmp, "fakecc",
		       "#!/bin/sh\n[ \"$1\" = --version ] || exit 3\n"
		       "echo 'fakecc (Test) 1.2.3'\necho 'Copyright'\n",
		       0755);
	char *arg = kb_asprintf("CC=%s", cc);
	const char *args[] = { "V=0", arg };
	struct kb_err err = KB_ERR_INIT;
	char *v = NULL;

	(void)state;
	assert_int_equal(kb_toolchain_cc_version(args, 2, &v, &err), 0);
	assert_string_equal(v, "fakecc (Test) 1.2.3");
	free(v);
	free(arg);
	free(cc);
}

static void test_toolchain__compiler_wrapper_runs_with_its_compiler(void **state)
{
	char *cc = kb_test_write(tmp, "wrap",
		       "#!/bin/sh\necho \"wrap runs $1 $2\"\n", 0755);
	char *arg = kb_asprintf("CC=%s gcc", cc);
	const char *args[] = { arg };
	struct kb_err err = KB_ERR_INIT;
	char *v = NULL;

	(void)state;
	assert_int_equal(kb_toolchain_cc_version(args, 1, &v, &err), 0);
	assert_string_equal(v, "wrap runs gcc --version");
	free(v);
	free(arg);
	free(cc);
}

static void test_toolchain__missing_compiler_is_an_error(void **state)
{
	const char *args[] = { "CC=/nonexistent/cc" };
	struct kb_err err = KB_ERR_INIT;
	char *v = NULL;

	(void)state;
	assert_int_equal(kb_toolchain_cc_version(args, 1, &v, &err),
			 KB_EFAIL);
	assert_null(v);
	assert_msg_contains(err.msg, "/nonexistent/cc");
}

static void expect_cc(const char *const *args, size_t n, const char *want)
{
	char *cc = kb_toolchain_cc(args, n);

	assert_string_equal(cc, want);
	free(cc);
}

/* as the kernel's Makefile picks CC: the command line's, else from LLVM
 * or CROSS_COMPILE; an environment CC is overridden by the Makefile */
static void test_toolchain__cc_is_the_one_kbuild_uses(void **state)
{
	const char *args[] = { "V=1", "CC=clang", "CC=distcc gcc" };
	const char *llvm[] = { "LLVM=1" };
	const char *llvm_dir[] = { "LLVM=/opt/llvm/bin/" };
	const char *llvm_ver[] = { "LLVM=-15", "CROSS_COMPILE=x-" };
	const char *cross[] = { "CROSS_COMPILE=aarch64-linux-gnu-" };
	char *old_cc = getenv("CC") ? kb_strdup(getenv("CC")) : NULL;
	char *old_llvm = getenv("LLVM") ? kb_strdup(getenv("LLVM")) : NULL;
	char *old_cross = getenv("CROSS_COMPILE") ?
				  kb_strdup(getenv("CROSS_COMPILE")) : NULL;

	(void)state;
	unsetenv("LLVM");
	unsetenv("CROSS_COMPILE");
	setenv("CC", "envcc", 1);
	expect_cc(args, 3, "distcc gcc");
	expect_cc(args, 1, "gcc");
	expect_cc(NULL, 0, "gcc");
	expect_cc(llvm, 1, "clang");
	expect_cc(llvm_dir, 1, "/opt/llvm/bin/clang");
	expect_cc(llvm_ver, 2, "clang-15");
	expect_cc(cross, 1, "aarch64-linux-gnu-gcc");
	setenv("CROSS_COMPILE", "riscv64-linux-gnu-", 1);
	expect_cc(NULL, 0, "riscv64-linux-gnu-gcc");
	setenv("LLVM", "1", 1);
	expect_cc(NULL, 0, "clang");
	expect_cc(args, 2, "clang");
	if (old_cc)
		setenv("CC", old_cc, 1);
	else
		unsetenv("CC");
	if (old_llvm)
		setenv("LLVM", old_llvm, 1);
	else
		unsetenv("LLVM");
	if (old_cross)
		setenv("CROSS_COMPILE", old_cross, 1);
	else
		unsetenv("CROSS_COMPILE");
	free(old_cc);
	free(old_llvm);
	free(old_cross);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_toolchain__key_is_stable),
	cmocka_unit_test(test_toolchain__key_changes_with_each_input),
	T(test_toolchain__compiler_version_is_the_first_line),
	T(test_toolchain__compiler_wrapper_runs_with_its_compiler),
	cmocka_unit_test(test_toolchain__missing_compiler_is_an_error),
	cmocka_unit_test(test_toolchain__cc_is_the_one_kbuild_uses),
};

KB_TEST_MAIN(tests)
