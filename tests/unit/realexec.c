#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "mem.h"
#include "executor.h"
#include "guest.h"
#include "matrix.h"
#include "plan.h"
#include "realexec.h"
#include "sha256.h"
#include "variant.h"

/* Paths in a matrix are relative to its file; absolute ones stay. */
#define FILE_NAME "/tmp/kb-realexec-test.yaml"

struct fixture {
	struct kb_matrix *m;
	struct kb_plan *p;
};

static void make(struct fixture *f, const char *text)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &f->m, &err))
		fail_msg("matrix: %s", err.msg);
	if (kb_plan_new(f->m, &f->p, &err))
		fail_msg("plan: %s", err.msg);
}

static void release(struct fixture *f)
{
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
}

static void bad(const char *text, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	assert_int_equal(kb_matrix_parse_buffer(text, strlen(text), FILE_NAME,
						&m, &err),
			 KB_EINPUT);
	assert_null(m);
	assert_msg_contains(err.msg, expect);
}

static void test_realexec__matrix_guest_keys(void **state)
{
	struct fixture f;
	const struct kb_guest *g;

	(void)state;
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: qemu, disks: [/bin/sh, ../bin/ls],\n"
		 "         boot_timeout_s: 30 }\n"
		 "workload: { fio: { rw: randread, runtime: 5 }, timeout_s: 99 }\n");
	g = kb_matrix_guest(f.m);
	assert_int_equal(g->ndisks, 2);
	assert_string_equal(g->disks[0], "/bin/sh");
	/* relative to the matrix's folder */
	assert_string_equal(g->disks[1], "/tmp/../bin/ls");
	assert_int_equal(g->boot_timeout_s, 30);
	assert_int_equal(kb_matrix_workload(f.m)->timeout_s, 99);
	/* the variant's guest shape carries them */
	assert_int_equal(kb_plan_variant(f.p, 0)->guest.ndisks, 2);
	release(&f);

	make(&f, "workload: { fio: { rw: read } }\n");
	assert_int_equal(kb_matrix_guest(f.m)->boot_timeout_s, 120);
	assert_int_equal(kb_matrix_guest(f.m)->ndisks, 0);
	assert_int_equal(kb_matrix_workload(f.m)->timeout_s, 0);
	release(&f);
}

static void test_realexec__matrix_guest_keys_are_checked(void **state)
{
	(void)state;
	bad("guest: { disks: [/nonexistent/disk.img] }\n"
	    "workload: { fio: { rw: read } }\n",
	    ":1:18: guest disk '/nonexistent/disk.img' does not exist");
	bad("guest: { disks: [/tmp] }\nworkload: { fio: { rw: read } }\n",
	    "neither an image file nor a block device");
	bad("guest: { boot_timeout_s: 0 }\nworkload: { fio: { rw: read } }\n",
	    "guest.boot_timeout_s must be an integer from 1");
	bad("workload: { fio: { rw: read }, timeout_s: x }\n",
	    "workload.timeout_s must be an integer");
}

static void test_realexec__workload_timeout_from_runtime(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, "workload: { fio: { rw: read, runtime: 5 } }\n");
	/* 2 runs x (2 x 5 s + 30 s) */
	assert_int_equal(kb_realexec_workload_timeout(kb_matrix_workload(f.m),
						      2),
			 80);
	/* at least a minute */
	assert_int_equal(kb_realexec_workload_timeout(kb_matrix_workload(f.m),
						      1),
			 60);
	release(&f);
	make(&f, "workload: { fio: { rw: read, runtime: 2m } }\n");
	assert_int_equal(kb_realexec_workload_timeout(kb_matrix_workload(f.m),
						      1),
			 270);
	release(&f);
	make(&f, "workload: { fio: { rw: read } }\n");
	assert_int_equal(kb_realexec_workload_timeout(kb_matrix_workload(f.m),
						      3),
			 600);
	release(&f);
	make(&f, "workload: { command: { run: sleep 1000 }, timeout_s: 7 }\n");
	assert_int_equal(kb_realexec_workload_timeout(kb_matrix_workload(f.m),
						      3),
			 7);
	release(&f);
}

static void test_realexec__scratch_disk_fits_the_job(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, "workload: { fio: { rw: read, size: 64m } }\n");
	assert_true(kb_realexec_scratch_bytes(kb_matrix_workload(f.m)) ==
		    80ull << 20);
	release(&f);
	make(&f, "workload: { fio: { rw: read, size: 1g } }\n");
	assert_true(kb_realexec_scratch_bytes(kb_matrix_workload(f.m)) ==
		    (1ull << 30) + (16ull << 20));
	release(&f);
	make(&f, "workload: { fio: { rw: read, size: 4k } }\n");
	assert_true(kb_realexec_scratch_bytes(kb_matrix_workload(f.m)) ==
		    64ull << 20);
	release(&f);
	make(&f, "workload: { fio: { rw: read, size: 50% } }\n");
	assert_true(kb_realexec_scratch_bytes(kb_matrix_workload(f.m)) ==
		    256ull << 20);
	release(&f);
}

static void test_realexec__cmdline_names_the_console(void **state)
{
	struct kb_guest g;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.hypervisor = KB_HV_XEN;
	g.mode = "pvh";
	assert_non_null(strstr(kb_realexec_cmdline(&g), "console=hvc0"));
	g.mode = "hvm";
	assert_non_null(strstr(kb_realexec_cmdline(&g), "console=ttyS0"));
	g.hypervisor = KB_HV_QEMU;
	assert_non_null(strstr(kb_realexec_cmdline(&g), "console=ttyS0"));
}

static void test_realexec__domxml_shows_placeholders(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct fixture f;
	char *xml = NULL;

	(void)state;
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: qemu, vcpus: 2 }\n"
		 "factors: { guest: { pin: [[0, 1], [1, 0]] } }\n"
		 "workload: { fio: { rw: randread, size: 64m } }\n");
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 1), NULL, &xml,
					    &err),
			 0);
	assert_non_null(strstr(xml, "<!-- variant 1: "));
	assert_non_null(strstr(xml, "<name>kbisect-0-1-1</name>"));
	assert_non_null(strstr(xml, "<kernel>/bin/sh</kernel>"));
	assert_null(strstr(xml, "not built yet"));
	assert_non_null(strstr(xml, "<vcpupin vcpu=\"0\" cpuset=\"1\"/>"));
	assert_non_null(strstr(xml, "/KBISECT-BOOT-DIR/scratch.raw"));
	assert_non_null(strstr(xml, "/KBISECT-BOOT-DIR/console.log"));
	free(xml);
	release(&f);

	make(&f, "source: { tree: /tmp }\n"
		 "factors: { kconfig: { DEBUG_SPINLOCK: [n, y] } }\n"
		 "guest: { hypervisor: xen, mode: pv }\n"
		 "workload: { command: { run: true } }\n");
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 0), NULL, &xml,
					    &err),
			 0);
	assert_non_null(strstr(xml, "The kernel is not built yet"));
	assert_non_null(strstr(xml, "<kernel>/KBISECT-NOT-BUILT/bzImage</kernel>"));
	assert_null(strstr(xml, "scratch.raw"));
	assert_non_null(strstr(xml, "machine=\"xenpv\""));
	free(xml);
	release(&f);
}

static void test_realexec__build_takes_prebuilt_kernels_unless_kconfig(void **state)
{
	static const struct kb_setting spin = {
		.name = "DEBUG_SPINLOCK", .value = "y",
		.kind = KB_FACTOR_KCONFIG,
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct kb_variant probe;
	struct fixture f;

	(void)state;
	assert_int_equal(kb_guest_connect("test:///default", &c, &err), 0);
	make(&f, "source: { kernel: /bin/sh }\n"
		 "factors: { guest: { vcpus: [1, 2] } }\n"
		 "workload: { fio: { rw: read } }\n");
	assert_int_equal(kb_realexec_new(f.m, c, NULL, &ex, &err), 0);
	assert_string_equal(kb_executor_name(ex), "libvirt");
	assert_int_equal(kb_executor_build(ex, kb_plan_variant(f.p, 1), &b,
					   &err),
			 0);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_string_equal(b.image, "/bin/sh");
	kb_build_result_release(&b);
	kb_executor_free(ex);
	release(&f);

	/* a matrix with the image does not take Kconfig factors (refused by
	 * lib/matrix.c), but a bisection probe sets Kconfig options: it needs
	 * a kernel built from source.tree (lib/build.h), never the prebuilt
	 * image: /tmp is no kernel tree */
	make(&f, "source: { tree: /tmp, kernel: /bin/sh }\n"
		 "workload: { fio: { rw: read } }\n");
	probe = *kb_plan_variant(f.p, 0);
	probe.idx = 9;
	probe.label = "DEBUG_SPINLOCK=y";
	probe.nsettings = 1;
	probe.settings = &spin;
	assert_int_equal(kb_realexec_new(f.m, c, NULL, &ex, &err), 0);
	assert_true(kb_executor_build(ex, &probe, &b, &err) < 0);
	assert_null(b.image);
	assert_msg_contains(err.msg, "/tmp");
	kb_executor_free(ex);
	release(&f);
	kb_guest_disconnect(c);
}

/* What this machine makes for a boot (its initramfs, its boot folder)
 * failing is KB_ELOCAL, never a failure the host is blamed for
 * (executor.h): the experiment stops, the host is not drained. */
static void test_realexec__a_boot_this_machine_cannot_prepare_is_local(
	void **state)
{
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct kb_boot_result res;
	struct fixture f;

	(void)state;
	assert_int_equal(kb_guest_connect("test:///default", &c, &err), 0);
	make(&f, "source: { kernel: /bin/sh }\n"
		 "workload: { fio: { rw: read, size: 900t } }\n");
	/* neither folder can be made: /dev/null is no folder */
	ro.initramfs_cache = "/dev/null/initramfs";
	ro.work_dir = "/dev/null/boots";
	assert_int_equal(kb_realexec_new(f.m, c, &ro, &ex, &err), 0);
	assert_int_equal(kb_executor_build(ex, kb_plan_variant(f.p, 0), &b,
					   &err),
			 0);
	assert_int_equal(kb_executor_boot(ex, kb_plan_variant(f.p, 0), &b, 1,
					  1, &res, &err),
			 KB_ELOCAL);
	assert_int_equal(err.code, KB_ELOCAL);
	assert_msg_contains(err.msg, "/dev/null");
	kb_build_result_release(&b);
	kb_executor_free(ex);
	release(&f);
	kb_guest_disconnect(c);
}

/* A prebuilt image is recorded by its digest, with the config a distro
 * kernel has beside it (/boot/config-VERSION). */
static void test_realexec__prebuilt_image_has_its_digest_and_distro_config(
	void **state)
{
	char want[KB_SHA256_HEX_LEN + 1];
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct fixture f;
	char *dir = kb_test_tmpdir("realexec"), *text, *img;

	(void)state;
	img = kb_test_write(dir, "vmlinuz-6.1.0-9-amd64", "kernel bytes", 0644);
	kb_test_put(dir, "config-6.1.0-9-amd64", "CONFIG_SMP=y\n");
	assert_int_equal(kb_guest_connect("test:///default", &c, &err), 0);
	text = kb_asprintf("source: { kernel: %s }\n"
			   "workload: { fio: { rw: read } }\n",
			   img);
	make(&f, text);
	assert_int_equal(kb_realexec_new(f.m, c, NULL, &ex, &err), 0);
	assert_int_equal(kb_executor_build(ex, kb_plan_variant(f.p, 0), &b,
					   &err),
			 0);
	assert_int_equal(b.status, KB_BUILD_OK);
	kb_sha256_hex("kernel bytes", 12, want);
	assert_string_equal(b.image_sha256, want);
	assert_string_equal(b.config_text, "CONFIG_SMP=y\n");
	kb_build_result_release(&b);
	kb_executor_free(ex);
	release(&f);
	free(text);

	/* another name: no config to take */
	free(img);
	img = kb_test_write(dir, "bzImage", "other", 0644);
	text = kb_asprintf("source: { kernel: %s }\n"
			   "workload: { fio: { rw: read } }\n",
			   img);
	make(&f, text);
	assert_int_equal(kb_realexec_new(f.m, c, NULL, &ex, &err), 0);
	assert_int_equal(kb_executor_build(ex, kb_plan_variant(f.p, 0), &b,
					   &err),
			 0);
	kb_sha256_hex("other", 5, want);
	assert_string_equal(b.image_sha256, want);
	assert_null(b.config_text);
	kb_build_result_release(&b);
	kb_executor_free(ex);
	release(&f);
	free(text);
	free(img);
	kb_guest_disconnect(c);
	kb_test_rm_rf(dir);
	free(dir);
}

/*
 * A fake kernel tree with @kconfig, whose Makefile's olddefconfig runs
 * @olddefconfig (a recipe line) and whose bzImage is the .config, in a
 * scratch folder that is also $XDG_CACHE_HOME's parent (its cache at
 * ft->cache); fake_tree_end() puts XDG_CACHE_HOME back and removes it.
 */
struct fake_tree {
	char dir[32];
	char *old_cache, *cache, *tree;
};

/* Write the fake tree's Makefile with @olddefconfig as that recipe. */
static void fake_tree_makefile(const struct fake_tree *ft,
			       const char *olddefconfig)
{
	char *mk = kb_asprintf("olddefconfig:\n\t%s\n"
			       "bzImage:\n\t@mkdir -p $(O)/arch/x86/boot\n"
			       "\t@cp $(O)/.config $(O)/arch/x86/boot/bzImage\n",
			       olddefconfig);

	kb_test_put(ft->tree, "Makefile", mk);
	free(mk);
}

static void fake_tree_begin(struct fake_tree *ft, const char *kconfig,
			    const char *olddefconfig)
{
	const char *old = getenv("XDG_CACHE_HOME");

	snprintf(ft->dir, sizeof(ft->dir), "/tmp/kb-realexec-XXXXXX");
	assert_non_null(mkdtemp(ft->dir));
	ft->old_cache = old ? kb_strdup(old) : NULL;
	ft->cache = kb_asprintf("%s/cache", ft->dir);
	setenv("XDG_CACHE_HOME", ft->cache, 1);
	ft->tree = kb_asprintf("%s/linux", ft->dir);
	assert_int_equal(mkdir(ft->tree, 0755), 0);
	kb_test_put(ft->tree, "Kconfig", kconfig);
	fake_tree_makefile(ft, olddefconfig);
}

static void fake_tree_end(struct fake_tree *ft)
{
	if (ft->old_cache)
		setenv("XDG_CACHE_HOME", ft->old_cache, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	kb_test_rm_rf(ft->dir);
	free(ft->old_cache);
	free(ft->cache);
	free(ft->tree);
}

/*
 * Option bisection's probes: resolved from a given .config, refused when
 * a change does not hold, a kernel built before found in the cache.
 */
static void test_realexec__probes_from_a_base_config(void **state)
{
	struct kb_realexec_opts xo = KB_REALEXEC_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct kb_setting spin = { "SPIN", "y", KB_FACTOR_KCONFIG };
	struct kb_setting lock = { "LOCK", "y", KB_FACTOR_KCONFIG };
	struct kb_buf image = KB_BUF_INIT;
	struct kb_variant probe;
	struct fixture f;
	struct fake_tree ft;
	char *text, *base;

	(void)state;
	/* this tree's olddefconfig never keeps LOCK */
	fake_tree_begin(&ft,
			"config SPIN\n\tbool \"spin\"\n"
			"config LOCK\n\tbool \"lock\"\n"
			"config BASE\n\tbool \"base\"\n",
			"@sed -i /CONFIG_LOCK/d $(O)/.config");
	base = kb_test_write(ft.dir, "good.config",
			     "CONFIG_BASE=y\n# CONFIG_SPIN is not set\n", 0644);
	text = kb_asprintf("source: { tree: %s, base: tinyconfig }\n"
			   "build: { jobs: 1 }\n"
			   "workload: { fio: { rw: read } }\n",
			   ft.tree);
	make(&f, text);
	assert_int_equal(kb_guest_connect("test:///default", &c, &err), 0);
	xo.base_config = base;
	xo.require_held = 1;
	assert_int_equal(kb_realexec_new(f.m, c, &xo, &ex, &err), 0);
	probe = *kb_plan_variant(f.p, 0);
	probe.idx = 2;
	probe.label = "SPIN=y";
	probe.nsettings = 1;
	probe.settings = &spin;

	/* from the base config, not from source.base, with the change */
	if (kb_executor_build(ex, &probe, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_false(b.cached);
	assert_int_equal(kb_buf_read_file(&image, b.image, 1 << 20, &err), 0);
	assert_non_null(strstr(image.buf, "CONFIG_BASE=y"));
	assert_non_null(strstr(image.buf, "CONFIG_SPIN=y"));
	kb_build_result_release(&b);

	/* the same config again: the kernel comes from the build cache */
	probe.idx = 3;
	if (kb_executor_build(ex, &probe, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_true(b.cached);
	kb_build_result_release(&b);

	/* a change the tree's Kconfig does not keep: not built, and why */
	probe.idx = 4;
	probe.label = "LOCK=y";
	probe.settings = &lock;
	if (kb_executor_build(ex, &probe, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_FAILED);
	assert_null(b.image);
	assert_msg_contains(b.reason, "does not hold: CONFIG_LOCK=y");
	kb_build_result_release(&b);

	kb_buf_release(&image);
	kb_executor_free(ex);
	kb_guest_disconnect(c);
	release(&f);
	fake_tree_end(&ft);
	free(base);
	free(text);
}

static void test_realexec__builds_what_the_plan_resolved(void **state)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_realexec_opts xo = KB_REALEXEC_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct kb_variant probe;
	struct fixture f;
	struct fake_tree ft;
	char *text, *want;

	(void)state;
	fake_tree_begin(&ft, "config SPIN\n\tbool \"spin\"\n", "@true");
	text = kb_asprintf("source: { tree: %s }\n"
			   "factors: { kconfig: { SPIN: [n, y] } }\n"
			   "build: { jobs: 1 }\n"
			   "workload: { fio: { rw: read } }\n",
			   ft.tree);
	make(&f, text);
	if (kb_plan_resolve(f.p, &ro, &err))
		fail_msg("resolve: %s", err.msg);
	assert_int_equal(kb_guest_connect("test:///default", &c, &err), 0);
	xo.plan = f.p;
	assert_int_equal(kb_realexec_new(f.m, c, &xo, &ex, &err), 0);

	/* a new olddefconfig now would give another config, tree id and
	 * key: the plan's variants are built as the plan resolved them */
	fake_tree_makefile(&ft, "@echo CONFIG_LOOP=y >> $(O)/.config");
	if (kb_executor_build(ex, kb_plan_variant(f.p, 1), &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	want = kb_asprintf("%s/kbisect/builds/%s/bzImage", ft.cache,
			   kb_plan_variant(f.p, 1)->build_key);
	assert_string_equal(b.image, want);
	free(want);
	/* with its evidence: the resolved config, the image's digest */
	assert_non_null(b.config_text);
	assert_non_null(strstr(b.config_text, "CONFIG_SPIN=y"));
	assert_non_null(b.image_sha256);
	kb_build_result_release(&b);

	/* a variant of no plan (a bisection probe) is resolved alone */
	probe = *kb_plan_variant(f.p, 1);
	probe.idx = 9;
	if (kb_executor_build(ex, &probe, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_null(strstr(b.image, kb_plan_variant(f.p, 1)->build_key));
	want = kb_asprintf("%s/kbisect/builds/", ft.cache);
	assert_int_equal(strncmp(b.image, want, strlen(want)), 0);
	free(want);
	kb_build_result_release(&b);

	kb_executor_free(ex);
	kb_guest_disconnect(c);
	release(&f);
	fake_tree_end(&ft);
	free(text);
}


/* `kbisect domxml` of a variant built from source.tree: the build
 * cache's kernel once it is built, the caller's (the store's) when it
 * names one, the placeholder only while neither has it. */
static void test_realexec__domxml_shows_a_built_kernel(void **state)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_build_result b;
	struct fixture f;
	struct fake_tree ft;
	char *text, *xml = NULL, *want;

	(void)state;
	fake_tree_begin(&ft, "config SPIN\n\tbool \"spin\"\n", "@true");
	text = kb_asprintf("source: { tree: %s }\n"
			   "factors: { kconfig: { SPIN: [n, y] } }\n"
			   "build: { jobs: 1 }\n"
			   "workload: { fio: { rw: read } }\n",
			   ft.tree);
	make(&f, text);
	if (kb_plan_resolve(f.p, &ro, &err))
		fail_msg("resolve: %s", err.msg);
	assert_null(kb_realexec_prebuilt(f.m, kb_plan_variant(f.p, 1)));
	if (kb_build_plan_variant(f.p, 1, NULL, NULL, NULL, &b, NULL, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	kb_build_result_release(&b);

	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 1), NULL,
					    &xml, &err),
			 0);
	want = kb_asprintf("<kernel>%s/kbisect/builds/%s/bzImage</kernel>",
			   ft.cache, kb_plan_variant(f.p, 1)->build_key);
	assert_non_null(strstr(xml, want));
	assert_null(strstr(xml, "KBISECT-NOT-BUILT"));
	assert_null(strstr(xml, "not built yet"));
	free(want);
	free(xml);

	/* variant 0 is not built: the placeholder, unless the caller knows
	 * its kernel */
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 0), NULL,
					    &xml, &err),
			 0);
	assert_non_null(strstr(xml, "<kernel>/KBISECT-NOT-BUILT/bzImage</kernel>"));
	free(xml);
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 0),
					    "/srv/k/bzImage", &xml, &err),
			 0);
	assert_non_null(strstr(xml, "<kernel>/srv/k/bzImage</kernel>"));
	assert_null(strstr(xml, "not built yet"));
	free(xml);

	release(&f);
	fake_tree_end(&ft);
	free(text);
}

/* A variant's cmdline levels follow kbisect's own command line, and
 * guest.scratch_disks gives the guest that many scratch images. */
static void test_realexec__domxml_has_cmdline_levels_and_scratch_disks(
	void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct fixture f;
	char *xml = NULL;

	(void)state;
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: qemu, scratch_disks: 2 }\n"
		 "factors:\n"
		 "  cmdline: { xen_nopvspin: [off, on], clocksource: [tsc] }\n"
		 "workload: { fio: { rw: randread, size: 64m }, targets: '/dev/vd[a-b]',\n"
		 "            targets_count: 2, per_device: true }\n");
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 1), NULL, &xml,
					    &err),
			 0);
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0 panic=-1 quiet xen_nopvspin clocksource=tsc</cmdline>"));
	assert_non_null(strstr(xml, "/KBISECT-BOOT-DIR/scratch.raw"));
	assert_non_null(strstr(xml, "/KBISECT-BOOT-DIR/scratch2.raw"));
	assert_non_null(strstr(xml, "<target dev=\"vdb\" bus=\"virtio\"/>"));
	free(xml);
	assert_int_equal(kb_realexec_domxml(f.m, kb_plan_variant(f.p, 0), NULL, &xml,
					    &err),
			 0);
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0 panic=-1 quiet clocksource=tsc</cmdline>"));
	free(xml);
	release(&f);
}

/* A PVH variant with passthrough is refused before anything boots (Xen's
 * libxl refuses it); PV with passthrough and PVH without are not. */
static void test_realexec__pvh_with_passthrough_is_refused(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct fixture f;

	(void)state;
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: xen, passthrough: ['0000:01:00.0', '0000:02:00.0'] }\n"
		 "factors: { guest: { mode: [pv, pvh] } }\n"
		 "workload: { fio: { rw: randread } }\n");
	assert_int_equal(kb_realexec_check_guests(f.p, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "variant 1 is a Xen PVH guest with 2 PCI passthrough devices");
	assert_msg_contains(err.msg, "give the passthrough to guest.mode pv");
	release(&f);
	kb_err_clear(&err);
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: xen, mode: pv, passthrough: ['0000:01:00.0'] }\n"
		 "factors: { guest: { vcpus: [1, 2] } }\n"
		 "workload: { fio: { rw: randread } }\n");
	assert_int_equal(kb_realexec_check_guests(f.p, &err), 0);
	release(&f);
	make(&f, "source: { kernel: /bin/sh }\n"
		 "guest: { hypervisor: xen }\n"
		 "factors: { guest: { mode: [pv, pvh] } }\n"
		 "workload: { command: { run: 'true' }, metric: real_s }\n");
	assert_int_equal(kb_realexec_check_guests(f.p, &err), 0);
	release(&f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_realexec__pvh_with_passthrough_is_refused),
	cmocka_unit_test(test_realexec__domxml_has_cmdline_levels_and_scratch_disks),
	cmocka_unit_test(test_realexec__matrix_guest_keys),
	cmocka_unit_test(test_realexec__matrix_guest_keys_are_checked),
	cmocka_unit_test(test_realexec__workload_timeout_from_runtime),
	cmocka_unit_test(test_realexec__scratch_disk_fits_the_job),
	cmocka_unit_test(test_realexec__cmdline_names_the_console),
	cmocka_unit_test(test_realexec__domxml_shows_placeholders),
	cmocka_unit_test(test_realexec__build_takes_prebuilt_kernels_unless_kconfig),
	cmocka_unit_test(test_realexec__prebuilt_image_has_its_digest_and_distro_config),
	cmocka_unit_test(test_realexec__a_boot_this_machine_cannot_prepare_is_local),
	cmocka_unit_test(test_realexec__builds_what_the_plan_resolved),
	cmocka_unit_test(test_realexec__domxml_shows_a_built_kernel),
	cmocka_unit_test(test_realexec__probes_from_a_base_config),
};

KB_TEST_MAIN(tests)
