/*
 * Guest images: the cache key, and a real build with a stand-in for
 * mmdebstrap (a script that makes a small tree: the unit tests need no
 * network) and the real mkfs.ext4; the image's label and its /data files
 * are read back with debugfs, without mounting.  The real mmdebstrap is
 * run by tests/integration/guest-image.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "guestimage.h"
#include "matrix.h"
#include "mem.h"
#include "program.h"

#define MKFS "/usr/sbin/mkfs.ext4"
#define DEBUGFS "/usr/sbin/debugfs"

struct fx {
	char dir[64];
	char *os_release, *sources, *fake, *failing, *file, *cache;
	struct kb_guestimage_opts o;
};

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static int capture(const char *const *argv, struct kb_buf *out)
{
	struct kb_program p = { .argv = argv,
				.out = KB_PROGRAM_PIPE,
				.err = KB_PROGRAM_PIPE };
	struct kb_err err = KB_ERR_INIT;
	int status = -1;

	assert_int_equal(kb_program_capture(&p, out, 1u << 20, &status, &err),
			 0);
	return status;
}

static int setup(void **state)
{
	struct fx *f = kb_calloc(1, sizeof(*f));
	struct kb_guestimage_opts dflt = KB_GUESTIMAGE_OPTS_INIT;

	snprintf(f->dir, sizeof(f->dir), "/tmp/kbisect-guestimage.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->os_release = kb_asprintf("%s/os-release", f->dir);
	f->sources = kb_asprintf("%s/debian.sources", f->dir);
	f->fake = kb_asprintf("%s/fake-mmdebstrap", f->dir);
	f->failing = kb_asprintf("%s/failing-mmdebstrap", f->dir);
	f->file = kb_asprintf("%s/input.txt", f->dir);
	f->cache = kb_asprintf("%s/cache", f->dir);
	put(f->os_release, "NAME=\"Debian\"\nVERSION_CODENAME=bookworm\n",
	    0644);
	put(f->sources, "Types: deb\nURIs: http://deb.debian.org/debian\n",
	    0644);
	/* argv: --variant=essential --include=PKGS -- SUITE ROOT SOURCES */
	put(f->fake,
	    "#!/bin/sh\nmkdir -p \"$5/etc\" && echo \"$2 $3 $4\" >\"$5/etc/made-by\"\n",
	    0755);
	put(f->failing, "#!/bin/sh\necho no network >&2\nexit 3\n", 0755);
	put(f->file, "payload 1\n", 0644);
	f->o = dflt;
	f->o.mmdebstrap = f->fake;
	f->o.mkfs = MKFS;
	f->o.sources = f->sources;
	f->o.os_release = f->os_release;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	const char *argv[] = { "rm", "-rf", f->dir, NULL };
	struct kb_buf out = KB_BUF_INIT;

	capture(argv, &out);
	kb_buf_release(&out);
	free(f->os_release);
	free(f->sources);
	free(f->fake);
	free(f->failing);
	free(f->file);
	free(f->cache);
	free(f);
	return 0;
}

static void key(const struct fx *f, const struct kb_guest_image *im,
		size_t nfiles, char out[65])
{
	struct kb_err err = KB_ERR_INIT;
	const char *files[] = { f->file };

	assert_int_equal(kb_guestimage_key(im, nfiles, files, &f->o, out, &err),
			 0);
	assert_int_equal(strlen(out), 64);
}

static void test_guestimage__key_covers_the_recipe(void **state)
{
	struct fx *f = *state;
	const char *p1[] = { "fio", "sysbench" }, *p2[] = { "sysbench", "fio" };
	struct kb_guest_image a = { 2, p1, NULL, 0 }, b = { 2, p2, NULL, 0 };
	struct kb_guest_image c = { 2, p1, "trixie", 0 };
	struct kb_guest_image d = { 2, p1, NULL, 4096 };
	char k0[65], k1[65], k2[65], k3[65], k4[65], k5[65], k6[65];

	key(f, &a, 0, k0);
	key(f, &a, 0, k1);
	assert_string_equal(k0, k1); /* stable */
	key(f, &b, 0, k2);           /* package order: apt's, but say so */
	key(f, &c, 0, k3);           /* suite */
	key(f, &d, 0, k4);           /* size */
	key(f, &a, 1, k5);           /* a file */
	put(f->file, "payload 2\n", 0644);
	key(f, &a, 1, k6);           /* its content */
	assert_string_not_equal(k0, k2);
	assert_string_not_equal(k0, k3);
	assert_string_not_equal(k0, k4);
	assert_string_not_equal(k0, k5);
	assert_string_not_equal(k5, k6);
	put(f->sources, "Types: deb\nURIs: http://mirror.example/debian\n",
	    0644);
	key(f, &a, 0, k1); /* the apt sources */
	assert_string_not_equal(k0, k1);
}

static void test_guestimage__suite_must_be_known(void **state)
{
	struct fx *f = *state;
	struct kb_err err = KB_ERR_INIT;
	const char *p[] = { "fio" };
	struct kb_guest_image im = { 1, p, NULL, 0 };
	char k[65];

	put(f->os_release, "NAME=\"Some OS\"\n", 0644);
	assert_int_equal(kb_guestimage_key(&im, 0, NULL, &f->o, k, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "set guest.image.suite");
}

static void test_guestimage__suite_is_never_an_option(void **state)
{
	struct fx *f = *state;
	struct kb_err err = KB_ERR_INIT;
	const char *p[] = { "fio" };
	struct kb_guest_image im = { 1, p, NULL, 0 };
	char *path = NULL, *ran = kb_asprintf("%s/ran", f->dir), *fake;
	int built = -1;
	char k[65];

	/* a fake that says it ran: neither suite below may reach it */
	fake = kb_asprintf("#!/bin/sh\ntouch '%s'\nexit 1\n", ran);
	put(f->fake, fake, 0755);
	put(f->os_release, "VERSION_CODENAME=--customize-hook=touch\n", 0644);
	assert_int_equal(kb_guestimage_key(&im, 0, NULL, &f->o, k, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "VERSION_CODENAME '--customize-hook=touch', which is not a Debian suite name");
	kb_err_clear(&err);
	assert_int_equal(kb_guestimage_get(&im, 0, NULL, &f->o, f->cache,
					   &path, &built, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	im.suite = "-v";
	assert_int_equal(kb_guestimage_get(&im, 0, NULL, &f->o, f->cache,
					   &path, &built, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "invalid guest.image.suite '-v'");
	assert_null(path);
	assert_int_not_equal(access(ran, F_OK), 0);
	free(fake);
	free(ran);
}

static void test_guestimage__built_once_then_cached(void **state)
{
	struct fx *f = *state;
	struct kb_err err = KB_ERR_INIT;
	const char *p[] = { "fio", "sysbench" };
	const char *files[] = { f->file };
	struct kb_guest_image im = { 2, p, NULL, 0 };
	struct kb_buf out = KB_BUF_INIT;
	char *path = NULL, *again = NULL, label[17] = "";
	int built = -1, fd;
	struct stat st;

	if (access(MKFS, X_OK) || access(DEBUGFS, X_OK))
		skip();
	assert_int_equal(kb_guestimage_get(&im, 1, files, &f->o, f->cache,
					   &path, &built, &err),
			 0);
	assert_int_equal(built, 1);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0644);
	/* the ext4 superblock's volume name (offset 1024 + 120) */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, label, 16, 1024 + 120), 16);
	close(fd);
	assert_string_equal(label, "kbisect-root");
	{
		const char *argv[] = { DEBUGFS, "-R", "cat /data/input.txt",
				       path, NULL };

		assert_int_equal(capture(argv, &out), 0);
		assert_non_null(strstr(out.buf, "payload 1"));
		kb_buf_release(&out);
	}
	{
		const char *argv[] = { DEBUGFS, "-R", "cat /etc/made-by", path,
				       NULL };

		assert_int_equal(capture(argv, &out), 0);
		/* options end before the suite: it is never one */
		assert_non_null(strstr(out.buf, "--include=fio,sysbench -- bookworm"));
		kb_buf_release(&out);
	}
	/* the second time: from the cache, the fake never runs */
	f->o.mmdebstrap = f->failing;
	assert_int_equal(kb_guestimage_get(&im, 1, files, &f->o, f->cache,
					   &again, &built, &err),
			 0);
	assert_int_equal(built, 0);
	assert_string_equal(path, again);
	free(path);
	free(again);
}

static void test_guestimage__failures_leave_nothing(void **state)
{
	struct fx *f = *state;
	struct kb_err err = KB_ERR_INIT;
	const char *p[] = { "fio" };
	struct kb_guest_image im = { 1, p, NULL, 0 };
	struct kb_guest_image tiny = { 1, p, NULL, 64 };
	struct kb_buf out = KB_BUF_INIT;
	char *path = NULL;
	int built = -1;

	if (access(MKFS, X_OK))
		skip();
	f->o.mmdebstrap = f->failing;
	assert_int_equal(kb_guestimage_get(&im, 0, NULL, &f->o, f->cache,
					   &path, &built, &err),
			 KB_EFAIL);
	assert_null(path);
	assert_msg_contains(err.msg, "mmdebstrap failed (exit status 3)");
	assert_msg_contains(err.msg, ".log");
	/* a size too small for the tree: no mkfs run at all */
	f->o.mmdebstrap = f->fake;
	put(f->file, "x", 0644);
	{
		const char *argv[] = { "truncate", "-s", "200M", f->file, NULL };

		assert_int_equal(capture(argv, &out), 0);
	}
	{
		const char *files[] = { f->file };
		struct kb_err e2 = KB_ERR_INIT;
		const char *argv[] = { "fallocate", "-l", "100M", f->file,
				       NULL };

		/* allocated, so that it counts */
		assert_int_equal(capture(argv, &out), 0);
		assert_int_equal(kb_guestimage_get(&tiny, 1, files, &f->o,
						   f->cache, &path, &built,
						   &e2),
				 KB_EINPUT);
		assert_msg_contains(e2.msg, "guest.image.size_mib 64 is too small");
	}
	kb_buf_release(&out);
	/* only the logs are left in the cache: no image, no build folder */
	{
		const char *argv[] = { "find", f->cache, "-mindepth", "1",
				       "-not", "-name", "*.log", NULL };

		assert_int_equal(capture(argv, &out), 0);
		assert_int_equal(out.len, 0);
	}
	kb_buf_release(&out);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_guestimage__key_covers_the_recipe,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_guestimage__suite_must_be_known,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_guestimage__suite_is_never_an_option,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_guestimage__built_once_then_cached,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_guestimage__failures_leave_nothing,
					setup, teardown),
};

KB_TEST_MAIN(tests)
