#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "initramfs.h"
#include "matrix.h"
#include "mem.h"

extern char **environ;

/* Run @argv with stdin from @in (or /dev/null), stdout into @out. */
static int run(char *const argv[], const char *in, struct kb_buf *out)
{
	posix_spawn_file_actions_t fa;
	int p[2], status = -1;
	pid_t pid;
	char chunk[4096];
	ssize_t r;

	assert_int_equal(pipe(p), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	assert_int_equal(posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ),
			 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while ((r = read(p[0], chunk, sizeof(chunk))) > 0)
		if (out)
			kb_buf_add(out, chunk, (size_t)r);
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *scratch(void)
{
	char tmpl[] = "/tmp/kbisect-initramfs-test.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return strdup(tmpl);
}

static void rm_rf(const char *dir)
{
	char *argv[] = { "rm", "-rf", (char *)dir, NULL };

	run(argv, NULL, NULL);
}

static void write_file(const char *path, const struct kb_buf *b)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b->buf, 1, b->len, f), b->len);
	fclose(f);
}

/* The newc header layout, field by field. */
static void test_initramfs__cpio_header_is_newc(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_initramfs_cpio_add(&b, 7, "init", S_IFREG | 0755, "#!/bin/sh\n",
			      10);
	assert_int_equal(b.len % 4, 0);
	assert_memory_equal(b.buf, "070701", 6);
	assert_memory_equal(b.buf + 6, "00000007", 8);       /* ino */
	assert_memory_equal(b.buf + 14, "000081ED", 8);      /* mode */
	assert_memory_equal(b.buf + 6 + 8 * 4, "00000001", 8); /* nlink */
	assert_memory_equal(b.buf + 6 + 8 * 6, "0000000A", 8); /* size */
	assert_memory_equal(b.buf + 6 + 8 * 11, "00000005", 8); /* namesize */
	assert_memory_equal(b.buf + 110, "init", 5);
	/* 110 + 5 = 115, padded to 116, then the data */
	assert_memory_equal(b.buf + 116, "#!/bin/sh\n", 10);
	assert_int_equal(b.len, 128);
	kb_buf_release(&b);
}

/* GNU cpio reads what we write: files, folders, symlinks, devices. */
static void test_initramfs__cpio_lists_with_gnu_cpio(void **state)
{
	struct kb_buf b = KB_BUF_INIT, out = KB_BUF_INIT;
	char *dir = scratch(), path[256];
	char *argv[] = { "cpio", "-itv", "--quiet", NULL };

	(void)state;
	kb_initramfs_cpio_add(&b, 1, "bin", S_IFDIR | 0755, NULL, 0);
	kb_initramfs_cpio_add(&b, 2, "bin/x", S_IFREG | 0644, "abc", 3);
	kb_initramfs_cpio_add(&b, 3, "bin/sh", S_IFLNK | 0777, "busybox", 7);
	kb_initramfs_cpio_add_dev(&b, 4, "console", S_IFCHR | 0600, 5, 1);
	kb_initramfs_cpio_trailer(&b);
	snprintf(path, sizeof(path), "%s/a.cpio", dir);
	write_file(path, &b);
	assert_int_equal(run(argv, path, &out), 0);
	assert_msg_contains(out.buf, "drwxr-xr-x");
	assert_msg_contains(out.buf, " bin\n");
	assert_msg_contains(out.buf, "-rw-r--r--");
	assert_msg_contains(out.buf, "3 Jan  1  1970 bin/x\n");
	assert_msg_contains(out.buf, "bin/sh -> busybox\n");
	assert_msg_contains(out.buf, "crw-------");
	assert_msg_contains(out.buf, "5,   1");
	rm_rf(dir);
	free(dir);
	kb_buf_release(&b);
	kb_buf_release(&out);
}

static struct kb_workload command_workload(const char *cmd)
{
	struct kb_workload w;

	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_COMMAND;
	w.command = cmd;
	w.metric = "real_s";
	return w;
}

static struct kb_initramfs_opts opts_here(void)
{
	struct kb_initramfs_opts o = KB_INITRAMFS_OPTS_INIT;

	o.init = "guests/init";
	return o;
}

static void list_archive(const char *gz, struct kb_buf *out)
{
	char *zcat[] = { "gzip", "-dc", (char *)gz, NULL };
	char *dir = scratch(), path[256];
	struct kb_buf raw = KB_BUF_INIT;
	char *cpio[] = { "cpio", "-it", "--quiet", NULL };

	assert_int_equal(run(zcat, NULL, &raw), 0);
	snprintf(path, sizeof(path), "%s/a.cpio", dir);
	write_file(path, &raw);
	assert_int_equal(run(cpio, path, out), 0);
	rm_rf(dir);
	free(dir);
	kb_buf_release(&raw);
}

/* A command workload: init, busybox, the spec; no fio. */
static void test_initramfs__command_archive_contents(void **state)
{
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("echo hi");
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf list = KB_BUF_INIT;
	char *cache = scratch(), *path = NULL;
	struct stat st;

	(void)state;
	if (kb_initramfs_build(&w, 3, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	assert_non_null(path);
	assert_int_equal(strncmp(path, cache, strlen(cache)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	list_archive(path, &list);
	assert_msg_contains(list.buf, "\ninit\n");
	assert_msg_contains(list.buf, "\nbin/busybox\n");
	assert_msg_contains(list.buf, "\ndev/console\n");
	assert_msg_contains(list.buf, "\nkbisect/workload.conf\n");
	assert_msg_contains(list.buf, "\nkbisect/command\n");
	assert_null(strstr(list.buf, "usr/bin/fio"));
	assert_null(strstr(list.buf, "job.fio"));
	kb_buf_release(&list);
	free(path);
	rm_rf(cache);
	free(cache);
}

/* File @name of archive @gz into @out. */
static void archive_file(const char *gz, const char *name, struct kb_buf *out)
{
	char *zcat[] = { "gzip", "-dc", (char *)gz, NULL };
	char *dir = scratch(), path[256];
	struct kb_buf raw = KB_BUF_INIT;
	char *cpio[] = { "cpio", "-i", "--to-stdout", "--quiet", (char *)name,
			 NULL };

	assert_int_equal(run(zcat, NULL, &raw), 0);
	snprintf(path, sizeof(path), "%s/a.cpio", dir);
	write_file(path, &raw);
	assert_int_equal(run(cpio, path, out), 0);
	rm_rf(dir);
	free(dir);
	kb_buf_release(&raw);
}

/* A root disk image: /init is told its label, and a distro kernel's
 * modules folder gives ext4 and what it needs, after the disk driver;
 * without one, neither. */
static void test_initramfs__root_image_adds_ext4(void **state)
{
	static const char *const mods[] = {
		"kernel/drivers/virtio/virtio_pci.ko",
		"kernel/drivers/block/virtio_blk.ko",
		"kernel/crypto/crc32c_generic.ko", "kernel/fs/jbd2/jbd2.ko",
		"kernel/fs/mbcache.ko", "kernel/fs/ext4/ext4.ko"
	};
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("sysbench cpu run");
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT, conf = KB_BUF_INIT, order = KB_BUF_INIT;
	char *cache = scratch(), *mdir = scratch(), *with = NULL, *without = NULL;
	char path[512], *mkdir_p[] = { "mkdir", "-p", path, NULL };
	size_t i;

	(void)state;
	kb_buf_addf(&b, "kernel/drivers/virtio/virtio_pci.ko:\n"
			"kernel/drivers/block/virtio_blk.ko:\n"
			"kernel/crypto/crc32c_generic.ko:\n"
			"kernel/fs/ext4/ext4.ko: kernel/fs/mbcache.ko "
			"kernel/fs/jbd2/jbd2.ko\n"
			"kernel/fs/jbd2/jbd2.ko:\nkernel/fs/mbcache.ko:\n");
	snprintf(path, sizeof(path), "%s/modules.dep", mdir);
	write_file(path, &b);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", mdir, mods[i]);
		*strrchr(path, '/') = '\0';
		assert_int_equal(run(mkdir_p, NULL, NULL), 0);
		snprintf(path, sizeof(path), "%s/%s", mdir, mods[i]);
		write_file(path, &b);
	}
	o.modules = mdir;
	o.root_image = 1;
	if (kb_initramfs_build(&w, 1, &o, cache, &with, &err))
		fail_msg("%s", err.msg);
	archive_file(with, "kbisect/workload.conf", &conf);
	assert_msg_contains(conf.buf, "root=kbisect-root\n");
	archive_file(with, "kbisect/modules", &order);
	/* the disk driver first; ext4 after its dependencies */
	assert_true(strstr(order.buf, "virtio_blk.ko") <
		    strstr(order.buf, "crc32c_generic.ko"));
	assert_true(strstr(order.buf, "jbd2.ko") < strstr(order.buf, "ext4.ko"));
	assert_true(strstr(order.buf, "mbcache.ko") <
		    strstr(order.buf, "ext4.ko"));
	kb_buf_release(&conf);
	kb_buf_release(&order);

	o.root_image = 0;
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &without, &err),
			 0);
	assert_string_not_equal(with, without);
	archive_file(without, "kbisect/workload.conf", &conf);
	assert_null(strstr(conf.buf, "root="));
	archive_file(without, "kbisect/modules", &order);
	assert_msg_contains(order.buf, "virtio_blk.ko");
	assert_null(strstr(order.buf, "ext4"));
	assert_null(strstr(order.buf, "crc32c"));
	kb_buf_release(&conf);
	kb_buf_release(&order);
	kb_buf_release(&b);
	free(with);
	free(without);
	rm_rf(cache);
	rm_rf(mdir);
	free(cache);
	free(mdir);
}

/* A profile without a root image brings perf and its libraries under
 * perf's own name; with a root image, the image's perf is used; a perf
 * that is not there fails the build. */
static void test_initramfs__profile_adds_perf(void **state)
{
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("echo hi");
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf list = KB_BUF_INIT, conf = KB_BUF_INIT;
	char *cache = scratch(), *dir = scratch(), *path = NULL;
	char perf[512], *cp[] = { "cp", "/bin/true", perf, NULL };

	(void)state;
	snprintf(perf, sizeof(perf), "%s/perf_9.9", dir);
	assert_int_equal(run(cp, NULL, NULL), 0);
	o.perf = perf;
	w.profile_hz = 99;
	if (kb_initramfs_build(&w, 1, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	list_archive(path, &list);
	assert_msg_contains(list.buf, "\nusr/bin/perf_9.9\n");
	assert_msg_contains(list.buf, "libc.so");
	archive_file(path, "kbisect/workload.conf", &conf);
	assert_msg_contains(conf.buf, "profile=99\n");
	kb_buf_release(&list);
	kb_buf_release(&conf);
	free(path);
	path = NULL;

	o.root_image = 1;
	if (kb_initramfs_build(&w, 1, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	list_archive(path, &list);
	assert_null(strstr(list.buf, "perf_9.9"));
	kb_buf_release(&list);
	free(path);
	path = NULL;

	o.root_image = 0;
	snprintf(perf, sizeof(perf), "%s/gone", dir);
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &path, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "gone");
	assert_null(path);
	rm_rf(cache);
	rm_rf(dir);
	free(cache);
	free(dir);
}

/* Same inputs, same file; other runs or command, another file. */
static void test_initramfs__cache_is_keyed_by_inputs(void **state)
{
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("echo hi");
	struct kb_err err = KB_ERR_INIT;
	char *cache = scratch(), *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	struct stat st1, st2;

	(void)state;
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &a, &err), 0);
	assert_int_equal(stat(a, &st1), 0);
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &b, &err), 0);
	assert_string_equal(a, b);
	assert_int_equal(stat(b, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino); /* not rebuilt */
	assert_int_equal(kb_initramfs_build(&w, 2, &o, cache, &c, &err), 0);
	assert_string_not_equal(a, c);
	w.command = "echo bye";
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &d, &err), 0);
	assert_string_not_equal(a, d);
	assert_string_not_equal(c, d);
	free(a);
	free(b);
	free(c);
	free(d);
	rm_rf(cache);
	free(cache);
}

/* What the guest runs, as the archive holds it: the command and a
 * newline; the fio job made of the options, or the job file's text. */
static void test_initramfs__workload_text_is_what_the_guest_runs(void **state)
{
	static const struct kb_option opt[] = { { "rw", "randread", { 2, 3 } } };
	struct kb_workload w = command_workload("echo hi");
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf job = KB_BUF_INIT;
	char *dir = scratch(), *text = NULL, *path;

	(void)state;
	assert_int_equal(kb_initramfs_workload_text(&w, &text, &err), 0);
	assert_string_equal(text, "echo hi\n");
	free(text);
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opt;
	w.nfio = 1;
	assert_int_equal(kb_initramfs_workload_text(&w, &text, &err), 0);
	assert_string_equal(text,
			    "[kbisect]\nrw=randread\nfilename=${KBISECT_DISKS}\n");
	kb_buf_adds(&job, text);
	free(text);
	path = kb_asprintf("%s/job.fio", dir);
	write_file(path, &job);
	w.kind = KB_WORKLOAD_FIO_JOB;
	w.fio_job = path;
	assert_int_equal(kb_initramfs_workload_text(&w, &text, &err), 0);
	assert_string_equal(text, job.buf);
	free(text);
	w.fio_job = "/nonexistent/job.fio";
	assert_true(kb_initramfs_workload_text(&w, &text, &err) < 0);
	assert_null(text);
	free(path);
	kb_buf_release(&job);
	rm_rf(dir);
	free(dir);
}

static void test_initramfs__missing_files_fail(void **state)
{
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("true");
	struct kb_err err = KB_ERR_INIT;
	char *cache = scratch(), *path = NULL;

	(void)state;
	o.busybox = "/nonexistent/busybox";
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &path, &err),
			 KB_EFAIL);
	assert_null(path);
	assert_msg_contains(err.msg, "/nonexistent/busybox");
	kb_err_clear(&err);
	o = opts_here();
	o.init = "/nonexistent/init";
	assert_true(kb_initramfs_build(&w, 1, &o, cache, &path, &err) < 0);
	assert_null(path);
	assert_msg_contains(err.msg, "/nonexistent/init");
	rm_rf(cache);
	free(cache);
}

static void test_initramfs__bad_fio_option_is_input_error(void **state)
{
	static const struct kb_option opt[] = { { "rw", "read\nx", { 2, 3 } } };
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w;
	struct kb_err err = KB_ERR_INIT;
	char *cache = scratch(), *path = NULL;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opt;
	w.nfio = 1;
	assert_int_equal(kb_initramfs_build(&w, 1, &o, cache, &path, &err),
			 KB_EINPUT);
	assert_null(path);
	rm_rf(cache);
	free(cache);
}

static void test_initramfs__modules_folder_of_distro_kernel(void **state)
{
	char *m;

	(void)state;
	assert_null(kb_initramfs_modules_for("/x/arch/x86/boot/bzImage"));
	assert_null(kb_initramfs_modules_for("/boot/vmlinuz-"));
	assert_null(kb_initramfs_modules_for("/boot/vmlinuz-.."));
	assert_null(kb_initramfs_modules_for("/boot/vmlinuz-no-such-version"));
	m = kb_initramfs_modules_for("/boot/vmlinuz-6.1.0-57-amd64");
	if (access("/lib/modules/6.1.0-57-amd64/modules.dep", F_OK) == 0)
		assert_string_equal(m, "/lib/modules/6.1.0-57-amd64");
	else
		assert_null(m);
	free(m);
}

/* Whether @image (release 6.1.99-test) finds its modules, in a file
 * system under @dir. */
static void check_modules(const char *dir, const char *image)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	char path[512], *mkdir_p[] = { "mkdir", "-p", path, NULL };

	/* no config: cannot tell */
	assert_int_equal(kb_initramfs_check_modules(image, 0, 0, dir, &err), 0);
	snprintf(path, sizeof(path), "%s/boot", dir);
	assert_int_equal(run(mkdir_p, NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/boot/config-6.1.99-test", dir);
	kb_buf_adds(&b, "CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=y\n"
			"CONFIG_XEN_BLKFRONT=m\nCONFIG_EXT4_FS=m\n");
	write_file(path, &b);
	/* built in: fine for QEMU; Xen's driver and ext4 are modules */
	assert_int_equal(kb_initramfs_check_modules(image, 0, 0, dir, &err), 0);
	assert_int_equal(kb_initramfs_check_modules(image, 1, 0, dir, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "CONFIG_XEN_BLKFRONT=m");
	assert_msg_contains(err.msg, "/lib/modules/6.1.99-test has no modules.dep");
	kb_err_clear(&err);
	assert_int_equal(kb_initramfs_check_modules(image, 0, 1, dir, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "CONFIG_EXT4_FS=m");
	/* with the modules there, all is well */
	snprintf(path, sizeof(path), "%s/lib/modules/6.1.99-test", dir);
	assert_int_equal(run(mkdir_p, NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/lib/modules/6.1.99-test/modules.dep",
		 dir);
	write_file(path, &b);
	assert_int_equal(kb_initramfs_check_modules(image, 1, 1, dir, &err), 0);
	kb_buf_release(&b);
}

/* A bzImage's release comes from its setup header, whatever its file is
 * called: a distro kernel copied to .../vmlinuz finds its modules. */
static void test_initramfs__kernel_version_from_the_header(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	char *dir = scratch(), path[256], v[64], *m;
	unsigned char h[0x400];

	(void)state;
	memset(h, 0, sizeof(h));
	memcpy(h + 0x202, "HdrS", 4);
	h[0x206] = 0x0f; /* protocol 2.15 */
	h[0x207] = 0x02;
	h[0x20e] = 0x00; /* kernel_version at 0x200 + 0x100 */
	h[0x20f] = 0x01;
	memcpy(h + 0x300, "6.1.99-test (builder@host) #1 SMP", 34);
	kb_buf_add(&b, h, sizeof(h));
	snprintf(path, sizeof(path), "%s/bzImage", dir);
	write_file(path, &b);
	assert_int_equal(kb_initramfs_kernel_version(path, v, sizeof(v)), 0);
	assert_string_equal(v, "6.1.99-test");
	assert_int_equal(kb_initramfs_kernel_version(path, v, 4), 0);
	assert_string_equal(v, "6.1"); /* cut to the buffer */
	assert_null(kb_initramfs_modules_for(path)); /* no such modules */
	check_modules(dir, path);
	/* no header: no version, and the name decides */
	memcpy(h + 0x202, "HdrX", 4);
	kb_buf_reset(&b);
	kb_buf_add(&b, h, sizeof(h));
	write_file(path, &b);
	assert_int_equal(kb_initramfs_kernel_version(path, v, sizeof(v)), -1);
	assert_string_equal(v, "");
	assert_int_equal(kb_initramfs_kernel_version("/nonexistent", v,
						     sizeof(v)),
			 -1);
	/* the distro kernel, copied to a name without its version */
	if (access("/boot/vmlinuz-6.1.0-57-amd64", R_OK) == 0 &&
	    access("/lib/modules/6.1.0-57-amd64/modules.dep", F_OK) == 0) {
		char *cp[] = { "cp", "/boot/vmlinuz-6.1.0-57-amd64", path, NULL };

		assert_int_equal(run(cp, NULL, NULL), 0);
		assert_int_equal(kb_initramfs_kernel_version(path, v, sizeof(v)),
				 0);
		assert_string_equal(v, "6.1.0-57-amd64");
		m = kb_initramfs_modules_for(path);
		assert_string_equal(m, "/lib/modules/6.1.0-57-amd64");
		free(m);
	}
	kb_buf_release(&b);
	rm_rf(dir);
	free(dir);
}

static void test_initramfs__default_cache_follows_xdg(void **state)
{
	char *old = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME"))
					     : NULL;
	char *c;

	(void)state;
	setenv("XDG_CACHE_HOME", "/var/tmp/xc", 1);
	c = kb_initramfs_default_cache();
	assert_string_equal(c, "/var/tmp/xc/kbisect/initramfs");
	free(c);
	if (old)
		setenv("XDG_CACHE_HOME", old, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(old);
}

/* A variant's workload: workload.conf says its copies, targets and
 * sysctls, one line each, and /init reads them; the plain workload's
 * lines stay as they were. */
static void test_initramfs__conf_has_copies_targets_and_sysctl(void **state)
{
	static const char *const globs[] = { "/dev/vd[b-c]", "/dev/sdb" };
	static const struct kb_param sysctl[] = {
		{ "kernel.sched_min_granularity_ns", "3000000" },
		{ "vm.dirty_ratio", "5" },
	};
	struct kb_initramfs_opts o = opts_here();
	struct kb_workload w = command_workload("dd if=/dev/zero count=1");
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf conf = KB_BUF_INIT;
	char *cache = scratch(), *path = NULL;

	(void)state;
	if (kb_initramfs_build(&w, 2, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	archive_file(path, "kbisect/workload.conf", &conf);
	assert_string_equal(conf.buf, "kind=command\nruns=2\n");
	free(path);
	kb_buf_reset(&conf);
	w.copies = 4;
	w.ntargets = 2;
	w.targets = globs;
	w.targets_count = 3;
	w.nsysctl = 2;
	w.sysctl = sysctl;
	if (kb_initramfs_build(&w, 2, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	archive_file(path, "kbisect/workload.conf", &conf);
	assert_string_equal(conf.buf,
			    "kind=command\nruns=2\ncopies=4\n"
			    "targets=/dev/vd[b-c]\ntargets=/dev/sdb\n"
			    "targets_count=3\n"
			    "sysctl=kernel.sched_min_granularity_ns=3000000\n"
			    "sysctl=vm.dirty_ratio=5\n");
	/* workload.monitors: the sources as words, in their order */
	free(path);
	kb_buf_reset(&conf);
	w.copies = 0;
	w.ntargets = w.targets_count = w.nsysctl = 0;
	w.monitors = KB_MONITOR_PERF | KB_MONITOR_VMSTAT;
	if (kb_initramfs_build(&w, 2, &o, cache, &path, &err))
		fail_msg("%s", err.msg);
	archive_file(path, "kbisect/workload.conf", &conf);
	assert_string_equal(conf.buf,
			    "kind=command\nruns=2\nmonitors=vmstat perf\n");
	kb_buf_release(&conf);
	free(path);
	rm_rf(cache);
	free(cache);
}

/* Per device: one fio job per target device, named by its variable. */
static void test_initramfs__fio_job_per_device(void **state)
{
	static const struct kb_option opt[] = {
		{ "rw", "randread", { 2, 3 } },
		{ "bs", "{{bs}}", { 2, 3 } },
	};
	static const char *const globs[] = { "/dev/vd[b-c]" };
	static const struct kb_param params[] = { { "bs", "64k" } };
	struct kb_workload w;
	struct kb_workload_inst wi;
	struct kb_guest g;
	struct kb_err err = KB_ERR_INIT;
	char *text = NULL;

	(void)state;
	memset(&w, 0, sizeof(w));
	memset(&g, 0, sizeof(g));
	w.kind = KB_WORKLOAD_FIO;
	w.fio = opt;
	w.nfio = 2;
	w.ntargets = 1;
	w.targets = globs;
	w.targets_count = 2;
	w.per_device = 1;
	g.params = params;
	g.nparams = 1;
	g.copies = 2;
	assert_int_equal(kb_workload_instance(&w, &g, &wi, &err), 0);
	assert_int_equal(wi.w.copies, 2);
	assert_int_equal(kb_initramfs_workload_text(&wi.w, &text, &err), 0);
	assert_string_equal(text, "[global]\nrw=randread\nbs=64k\n"
				  "[kbisect-1]\nfilename=${KBISECT_DISK1}\n"
				  "[kbisect-2]\nfilename=${KBISECT_DISK2}\n");
	free(text);
	kb_workload_inst_release(&wi);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_initramfs__conf_has_copies_targets_and_sysctl),
	cmocka_unit_test(test_initramfs__fio_job_per_device),
	cmocka_unit_test(test_initramfs__cpio_header_is_newc),
	cmocka_unit_test(test_initramfs__profile_adds_perf),
	cmocka_unit_test(test_initramfs__cpio_lists_with_gnu_cpio),
	cmocka_unit_test(test_initramfs__command_archive_contents),
	cmocka_unit_test(test_initramfs__cache_is_keyed_by_inputs),
	cmocka_unit_test(test_initramfs__workload_text_is_what_the_guest_runs),
	cmocka_unit_test(test_initramfs__missing_files_fail),
	cmocka_unit_test(test_initramfs__bad_fio_option_is_input_error),
	cmocka_unit_test(test_initramfs__modules_folder_of_distro_kernel),
	cmocka_unit_test(test_initramfs__kernel_version_from_the_header),
	cmocka_unit_test(test_initramfs__root_image_adds_ext4),
	cmocka_unit_test(test_initramfs__default_cache_follows_xdg),
};

KB_TEST_MAIN(tests)
