#define _DEFAULT_SOURCE /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "domxml.h"
#include "err.h"
#include "evidence.h"
#include "matrix.h"
#include "plan.h"
#include "sha256.h"
#include "store.h"
#include "variant.h"

/*
 * lib/evidence.h: the stored texts of a boot's evidence as files (the
 * names, the texts, what is left out), and the folder kbisect repro
 * writes from a store holding a boot as the real executor stores it.
 */

/* ---- the stored texts -------------------------------------------------- */

/* A sink that records what it was given: "name mode\ntext" per file. */
struct record {
	struct kb_buf out;
	const char *names[4];
	size_t n;
	int fail_on; /* fail the call numbered so (from 1); 0: none */
};

static int record_put(void *arg, const char *name, const char *data,
		      size_t len, unsigned mode, struct kb_err *err)
{
	struct record *r = arg;

	if (r->fail_on && (size_t)r->fail_on == r->n + 1)
		return kb_err_set(err, KB_EFAIL, "cannot write '%s': disk full",
				  name);
	kb_buf_addf(&r->out, "%s %o\n", name, mode);
	kb_buf_add(&r->out, data, len);
	r->names[r->n++] = name;
	return 0;
}

static struct kb_matrix *matrix_of(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	if (kb_matrix_parse_buffer(text, strlen(text), "m.yaml", &m, &err))
		fail_msg("%s", err.msg);
	return m;
}

static const char command_matrix[] =
	"name: c\n"
	"workload: { command: { run: \"echo hi\" }, metric: real_s }\n";
static const char fio_matrix[] =
	"name: f\n"
	"workload: { fio: { rw: randread }, metric: read_iops }\n";

static void test_evidence__workload_file_is_named_by_its_kind(void **state)
{
	struct kb_matrix *c = matrix_of(command_matrix);
	struct kb_matrix *f = matrix_of(fio_matrix);

	(void)state;
	assert_string_equal(kb_evidence_workload_name(c), "workload.sh");
	assert_string_equal(kb_evidence_workload_name(f), "workload.fio");
	/* a stored matrix that no longer parses: the kind is not known */
	assert_string_equal(kb_evidence_workload_name(NULL), "workload.txt");
	kb_matrix_free(c);
	kb_matrix_free(f);
}

static void test_evidence__each_text_is_its_file(void **state)
{
	struct kb_store_evidence e = {
		.config_text = "CONFIG_A=y\n",
		.domain_xml = "<domain/>\n",
		.workload_text = "[job]\nrw=randread\n",
	};
	struct record r = { .out = KB_BUF_INIT };
	struct kb_evidence_sink sink = { .put = record_put, .arg = &r };
	struct kb_matrix *f = matrix_of(fio_matrix);
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_evidence_put_text(&e, f, KB_EVIDENCE_CONFIG, &sink,
					      &err), 0);
	assert_int_equal(kb_evidence_put_text(&e, f, KB_EVIDENCE_DOMAIN, &sink,
					      &err), 0);
	assert_int_equal(kb_evidence_put_text(&e, f, KB_EVIDENCE_WORKLOAD,
					      &sink, &err), 0);
	assert_string_equal(r.out.buf, "config 644\nCONFIG_A=y\n"
				       "domain.xml 644\n<domain/>\n"
				       "workload.fio 644\n[job]\nrw=randread\n");
	assert_int_equal(r.n, 3);
	assert_string_equal(r.names[2], "workload.fio");
	kb_buf_release(&r.out);
	kb_matrix_free(f);
}

/* A build without a known .config (a prebuilt image) has no config file;
 * the other texts are still written. */
static void test_evidence__an_unknown_config_is_no_file(void **state)
{
	struct kb_store_evidence e = { .domain_xml = "<domain/>\n",
				       .workload_text = "echo hi\n" };
	struct record r = { .out = KB_BUF_INIT };
	struct kb_evidence_sink sink = { .put = record_put, .arg = &r };
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_evidence_put_text(&e, NULL, KB_EVIDENCE_CONFIG,
					      &sink, &err), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(kb_evidence_put_text(&e, NULL, KB_EVIDENCE_WORKLOAD,
					      &sink, &err), 0);
	assert_string_equal(r.out.buf, "workload.txt 644\necho hi\n");
	kb_buf_release(&r.out);
}

static void test_evidence__a_sink_failure_is_returned(void **state)
{
	struct kb_store_evidence e = { .domain_xml = "<domain/>\n" };
	struct record r = { .out = KB_BUF_INIT, .fail_on = 1 };
	struct kb_evidence_sink sink = { .put = record_put, .arg = &r };
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_evidence_put_text(&e, NULL, KB_EVIDENCE_DOMAIN,
					      &sink, &err), KB_EFAIL);
	assert_string_equal(err.msg, "cannot write 'domain.xml': disk full");
	kb_buf_release(&r.out);
}

/* ---- the folder that boots by hand -------------------------------------- */

struct fixture {
	char dir[64], db[128], kernel[128];
	struct kb_store *s;
	int64_t exp;
	char *sha;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;
	char *cache;
	FILE *fp;

	kb_test_scratch_db("evidence", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	cache = kb_asprintf("%s/cache", f->dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	snprintf(f->kernel, sizeof(f->kernel), "%s/vmlinuz-9.9", f->dir);
	assert_non_null(fp = fopen(f->kernel, "w"));
	fputs("a kernel\n", fp);
	fclose(fp);
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f->sha);
	free(f);
	return 0;
}

/*
 * Experiment 1 on @executor: a command workload over 2 variants; boot 2
 * of variant 0 stored as the real executor stores it (its domain XML
 * with the files in a boot folder, its workload text) with a build of
 * the fixture's kernel and its .config.
 */
static void store_experiment(struct fixture *f, const char *executor)
{
	char *text = kb_asprintf("name: rp\n"
				 "source: { kernel: %s }\n"
				 "guest: { hypervisor: qemu, memory_mib: 256 }\n"
				 "workload: { command: { run: \"echo hi\" }, metric: real_s }\n"
				 "factors: { guest: { vcpus: [1, 2] } }\n"
				 "repeat: { boots: 2, runs_per_boot: 1 }\n",
				 f->kernel);
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = matrix_of(text);
	struct kb_plan *p = NULL;
	struct kb_store_experiment e = { 0 };
	struct kb_build_result br = { 0 };
	struct kb_boot_result boot = { 0 };
	struct kb_sample run = { 0 };
	struct kb_domxml d = KB_DOMXML_INIT;
	char sha[KB_SHA256_HEX_LEN + 1];
	int64_t build_id = 0;
	char *xml = NULL;

	if (kb_plan_new(m, &p, &err))
		fail_msg("%s", err.msg);
	e.name = "rp";
	e.matrix_path = "rp.yaml";
	e.matrix_text = text;
	e.executor = executor;
	e.design = "full";
	e.metric = "real_s";
	e.boots = 2;
	e.runs_per_boot = 1;
	e.nvariants = kb_plan_nvariants(p);
	e.variants = kb_plan_variants(p);
	if (kb_store_experiment_create(f->s, &e, &f->exp, &err) ||
	    kb_sha256_file(f->kernel, sha, &err))
		fail_msg("%s", err.msg);
	f->sha = kb_strdup(sha);
	br.status = KB_BUILD_OK;
	br.image = f->kernel;
	br.config_text = "CONFIG_X=y\n";
	br.image_sha256 = sha;
	d.name = "kbisect-1-0-2";
	d.guest = kb_matrix_guest(m);
	d.kernel = "/var/tmp/kbisect-boot-x/kernel";
	d.initrd = "/var/tmp/kbisect-boot-x/initrd";
	d.cmdline = "console=ttyS0 panic=-1 quiet";
	d.console_log = "/var/tmp/kbisect-boot-x/console.log";
	if (kb_domxml_build(&d, &xml, &err) ||
	    kb_store_build_put(f->s, "the-key", executor, &br, &build_id,
			       &err))
		fail_msg("%s", err.msg);
	kb_sample_set(&run, "real_s", 1.5);
	boot.status = KB_BOOT_OK;
	boot.host = "qemu:///system";
	boot.nruns = 1;
	boot.runs = &run;
	boot.domain_xml = xml;
	boot.workload_text = "echo hi\n";
	if (kb_store_boot_put(f->s, f->exp, 0, 2, build_id, &boot, &err) ||
	    kb_store_experiment_finish(f->s, f->exp, "done", NULL, &err))
		fail_msg("%s", err.msg);
	free(xml);
	kb_plan_free(p);
	kb_matrix_free(m);
	free(text);
}

/* The text of file @name in folder @dir (caller releases @b). */
static void slurp(const char *dir, const char *name, struct kb_buf *b)
{
	struct kb_err err = KB_ERR_INIT;
	char *path = kb_asprintf("%s/%s", dir, name);

	kb_buf_reset(b);
	if (kb_buf_read_file(b, path, 64 << 20, &err))
		fail_msg("%s", err.msg);
	free(path);
}

static unsigned mode_of(const char *dir, const char *name)
{
	char *path = kb_asprintf("%s/%s", dir, name);
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	free(path);
	return st.st_mode & 07777;
}

static void on_progress(const char *what, void *arg)
{
	kb_buf_addf(arg, "%s\n", what);
}

static void test_evidence__model_experiment_has_nothing_to_write(void **state)
{
	struct fixture *f = *state;
	struct kb_evidence *ev = NULL;
	struct kb_err err = KB_ERR_INIT;

	store_experiment(f, "model");
	assert_int_equal(kb_evidence_load(f->s, f->exp, "0", &ev, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "ran on the model executor");
	assert_null(ev);
}

static void test_evidence__load_names_what_is_missing(void **state)
{
	struct fixture *f = *state;
	struct kb_evidence *ev = NULL;
	struct kb_err err = KB_ERR_INIT;

	store_experiment(f, "libvirt");
	assert_int_equal(kb_evidence_load(f->s, f->exp, "7", &ev, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "no variant '7' in experiment 1");
	kb_err_clear(&err);
	assert_int_equal(kb_evidence_load(f->s, f->exp, "#1", &ev, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "variant 1 of experiment 1 was never booted");
	kb_err_clear(&err);
	assert_int_equal(kb_evidence_load(f->s, 9, "0", &ev, &err),
			 KB_ENOTFOUND);
	assert_null(ev);
}

/* A kernel that changed since the build is refused, naming both digests;
 * one that is gone says what to do. */
static void test_evidence__a_changed_kernel_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_evidence *ev = NULL;
	struct kb_err err = KB_ERR_INIT;
	FILE *fp;

	store_experiment(f, "libvirt");
	assert_non_null(fp = fopen(f->kernel, "w"));
	fputs("another kernel\n", fp);
	fclose(fp);
	assert_int_equal(kb_evidence_load(f->s, f->exp, "0", &ev, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "is not the one boot 2 booted");
	assert_msg_contains(err.msg, f->sha);
	kb_err_clear(&err);
	unlink(f->kernel);
	assert_int_equal(kb_evidence_load(f->s, f->exp, "0", &ev, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "is gone: put that kernel back");
	assert_null(ev);
}

static void test_evidence__the_folder_holds_each_file(void **state)
{
	struct fixture *f = *state;
	struct kb_evidence_write_opts o = KB_EVIDENCE_WRITE_OPTS_INIT;
	struct kb_evidence_info info;
	struct kb_evidence *ev = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT, said = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rp", f->dir), *real = NULL;
	char *expect;
	size_t i;
	const char *n;
	static const char *const files[] = {
		"config", "kernel", "workload.sh", "initrd", "cmdline",
		"domain.xml", "boot.sh", "README",
	};

	if (access("/bin/busybox", X_OK) || access("guests/init", R_OK)) {
		kb_buf_release(&b);
		free(dir);
		skip(); /* no busybox for the initramfs (busybox-static) */
	}
	store_experiment(f, "libvirt");
	if (kb_evidence_load(f->s, f->exp, "guest.vcpus=1", &ev, &err))
		fail_msg("%s", err.msg);
	kb_evidence_info(ev, &info);
	assert_int_equal(info.variant, 0);
	assert_int_equal(info.boot_no, 2);
	assert_string_equal(info.kernel_sha256, f->sha);
	assert_true(info.sha256_checked);
	assert_null(info.dir);
	o.progress = on_progress;
	o.arg = &said;
	if (kb_evidence_write(ev, dir, &o, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(said.buf,
			    "making the initramfs (command, 1 run per boot)\n");
	kb_evidence_info(ev, &info);
	real = realpath(dir, NULL);
	assert_string_equal(info.dir, real);
	assert_string_equal(info.domain, "repro-kbisect-1-0");
	assert_int_equal(info.nfiles, sizeof(files) / sizeof(files[0]));
	for (i = 0, n = info.files; i < info.nfiles; i++, n += strlen(n) + 1)
		assert_string_equal(n, files[i]);
	assert_int_equal(mode_of(dir, "."), 0755);
	slurp(dir, "config", &b);
	assert_string_equal(b.buf, "CONFIG_X=y\n");
	slurp(dir, "kernel", &b);
	assert_string_equal(b.buf, "a kernel\n");
	slurp(dir, "workload.sh", &b);
	assert_string_equal(b.buf, "echo hi\n");
	slurp(dir, "cmdline", &b);
	assert_string_equal(b.buf, "console=ttyS0 panic=-1 quiet\n");
	slurp(dir, "initrd", &b);
	assert_true(b.len > 0);
	/* the domain: its new name, its files moved into the folder */
	slurp(dir, "domain.xml", &b);
	assert_msg_contains(b.buf, "<name>repro-kbisect-1-0</name>");
	expect = kb_asprintf("<kernel>%s/kernel</kernel>", real);
	assert_msg_contains(b.buf, expect);
	free(expect);
	assert_null(strstr(b.buf, "kbisect-boot-x"));
	/* boot.sh runs, and boots that domain on the boot's host */
	assert_int_equal(mode_of(dir, "boot.sh"), 0755);
	assert_int_equal(mode_of(dir, "README"), 0644);
	slurp(dir, "boot.sh", &b);
	assert_int_equal(strncmp(b.buf, "#!/bin/sh\n", 10), 0);
	assert_msg_contains(b.buf, "\nname='repro-kbisect-1-0'\n");
	assert_msg_contains(b.buf, "\nhost='qemu:///system'\n"
				   "uri=${1:-${LIBVIRT_DEFAULT_URI:-$host}}\n");
	assert_msg_contains(b.buf, "\nmetric='real_s'\nregex=''\nruns=1\n");
	slurp(dir, "README", &b);
	assert_msg_contains(b.buf, "experiment 1 \"rp\", variant #0\n");
	assert_msg_contains(b.buf, "\nBuild key   the-key\n");
	assert_msg_contains(b.buf, "(checked against the build's record)");
	assert_msg_contains(b.buf, "real_s 1.5 over 1 boot (mean of the boot means, 1 run per boot)");
	kb_evidence_free(ev);
	ev = NULL;

	/* a folder that is not empty: only with force */
	if (kb_evidence_load(f->s, f->exp, "0", &ev, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_evidence_write(ev, dir, NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "is not empty");
	kb_err_clear(&err);
	o.force = 1;
	o.progress = NULL;
	if (kb_evidence_write(ev, dir, &o, &err))
		fail_msg("%s", err.msg);
	kb_evidence_info(ev, &info);
	assert_int_equal(info.nfiles, sizeof(files) / sizeof(files[0]));
	kb_evidence_free(ev);
	kb_evidence_free(NULL);
	kb_buf_release(&b);
	kb_buf_release(&said);
	free(real);
	free(dir);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_evidence__workload_file_is_named_by_its_kind),
	cmocka_unit_test(test_evidence__each_text_is_its_file),
	cmocka_unit_test(test_evidence__an_unknown_config_is_no_file),
	cmocka_unit_test(test_evidence__a_sink_failure_is_returned),
	T(test_evidence__model_experiment_has_nothing_to_write),
	T(test_evidence__load_names_what_is_missing),
	T(test_evidence__a_changed_kernel_is_refused),
	T(test_evidence__the_folder_holds_each_file),
};

KB_TEST_MAIN(tests)
