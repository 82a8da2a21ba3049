#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "report.h"
#include "store.h"

/*
 * kb_report_write() on experiments of the performance model: the files
 * it writes, the parts of the page, its escaping, and that a failure
 * leaves no folder behind.
 */

struct fixture {
	char dir[64], db[128];
	struct kb_store *s;
	int64_t exp;
};

static const char matrix[] =
	"name: spin\n"
	"factors: { kconfig: { A: [n, y], B: [n, y] } }\n"
	"workload: { fio: { rw: randread }, metric: read_iops }\n"
	"repeat: { boots: 6, runs_per_boot: 2 }\n";

static const char model[] =
	"metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02, run_cv: 0.01 }\n"
	"effects:\n  - when: { A: y }\n    factor: 0.5\n";

static int64_t run_model_of(struct fixture *f, const char *text,
			    const char *model_text);

/* Run @text's matrix on the model into the fixture's database. */
static int64_t run_model(struct fixture *f, const char *text)
{
	return run_model_of(f, text, model);
}

/* The same on model @model_text. */
static int64_t run_model_of(struct fixture *f, const char *text,
			    const char *model_text)
{
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	int64_t exp = 0;

	if (kb_matrix_parse_buffer(text, strlen(text), "m.yaml", &m, &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model_text, strlen(model_text), "model.yaml",
				  &mo, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	if (kb_pipeline_run(f->s, p, ex, &o, &exp, &err))
		fail_msg("%s", err.msg);
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
	return exp;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	kb_test_scratch_db("report", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
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
	free(f);
	return 0;
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

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The entries of @dir but "." and "..", and whether one starts with
 * @prefix (a folder left behind). */
static size_t entries(const char *dir, const char *prefix, int *found)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n = 0;

	*found = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (prefix && !strncmp(de->d_name, prefix, strlen(prefix)))
			*found = 1;
	}
	closedir(d);
	return n;
}

/* A small file at @path: 0, or -1. */
static int write_file(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs("mine\n", fp);
	return fclose(fp);
}

/* The part of @page inside <svg id="@id" ...> ... </svg>. */
static char *svg_of(const char *page, const char *id)
{
	char *start = kb_asprintf("id=\"%s\"", id);
	const char *s = strstr(page, start), *e;

	free(start);
	if (!s)
		fail_msg("no <svg id=\"%s\"> on the page", id);
	e = strstr(s, "</svg>");
	assert_non_null(e);
	return kb_strndup(s, (size_t)(e - s));
}

static void test_report__model_experiment_has_every_part(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/out/rep", f->dir), *svg;
	int left;

	f->exp = run_model(f, matrix);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	/* the folder's parents are made; nothing is left beside it */
	assert_non_null(strstr(r.dir, "/out/rep"));
	assert_string_equal(strrchr(r.index, '/'), "/index.html");
	assert_int_equal(r.nfiles, 1); /* the model keeps no evidence */
	assert_string_equal(r.files[r.nfiles - 1], "index.html");
	assert_int_equal(r.nplots, 3); /* strip, drift and forest */
	assert_false(r.replaced);
	*strrchr(dir, '/') = 0;
	assert_int_equal(entries(dir, ".rep.", &left), 1);
	assert_false(left);
	slurp(r.dir, "index.html", &page);

	assert_true(!strncmp(page.buf, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(page.buf, "default-src 'none'"));
	assert_null(strstr(page.buf, "<script"));
	assert_non_null(strstr(page.buf, "Experiment 1 \xe2\x80\x9cspin\xe2\x80\x9d"));
	assert_non_null(strstr(page.buf, "<pre class=\"matrix\">name: spin\n"));
	assert_non_null(strstr(page.buf, "<pre class=\"model\">metric: read_iops"));
	/* the strip plot: a dot per boot (4 variants x 6), a mean each */
	svg = svg_of(page.buf, "strip-plot");
	assert_int_equal(count(svg, "<circle"), 24);
	assert_int_equal(count(svg, "class=\"mark"), 4);
	assert_int_equal(count(svg, "class=\"band baseline\""), 1);
	free(svg);
	/* the drift plot: a dot per boot at its place, the zero line and
	 * the fitted one, and the check's answer (on this model without
	 * drift it speaks of one, -4.0%: one of the 4% of drift-free runs
	 * it flags, docs/analysis.md) */
	svg = svg_of(page.buf, "drift-plot");
	assert_int_equal(count(svg, "<circle"), 24);
	assert_int_equal(count(svg, "class=\"line zero\""), 1);
	assert_int_equal(count(svg, "class=\"line fit"), 1);
	free(svg);
	assert_non_null(strstr(page.buf, "<p class=\"drift flagged\">drift: the boots changed by -4.0% "));
	assert_null(strstr(page.buf, "class=\"sentinel\""));
	/* the forest plot: A, B and A:B, each a point and an interval */
	svg = svg_of(page.buf, "effects-plot");
	assert_int_equal(count(svg, "<circle"), 3);
	assert_int_equal(count(svg, "class=\"interval"), 3);
	assert_int_equal(count(svg, "class=\"line zero\""), 1);
	/* on the log ratio: A's -50% is 2x, labelled so */
	assert_non_null(strstr(svg, ">change (log-ratio scale)</text>"));
	assert_non_null(strstr(svg, ">-50%<tspan class=\"fold\""));
	free(svg);
	/* A halves read_iops: a significant -50% effect, and a regression
	 * against the baseline at 6 boots a side (enough for why's alpha
	 * over the 3 variants the worst is picked from) */
	assert_non_null(strstr(page.buf, "<td>A</td><td class=\"num regression\">-"));
	assert_non_null(strstr(page.buf, "<td class=\"verdict regression\">regression</td>"));
	/* the baseline once, as the table's first row */
	assert_int_equal(count(page.buf, "<tr class=\"baseline\">"), 1);
	assert_non_null(strstr(page.buf, "<table class=\"compare\" id=\"verdicts\">\n<thead>"));
	/* why answers from the stored boots */
	assert_non_null(strstr(page.buf, "<section id=\"why\">"));
	assert_non_null(strstr(page.buf, "explains it: <code>A n-&gt;y</code>"));
	/* every run of every boot: 4 variants x 6 boots x 2 runs */
	assert_int_equal(count(page.buf, "<section class=\"variant\""), 4);
	assert_non_null(strstr(page.buf, "<section class=\"variant\" id=\"variant-3\">"));
	/* boot, host, time and boot mean span its two runs */
	assert_int_equal(count(page.buf, "rowspan=\"2\">"), 24 * 4);
	assert_non_null(strstr(page.buf, "no evidence to reproduce it from"));
	/* folded, one line a variant until opened */
	assert_int_equal(count(page.buf, "<section class=\"variant\" id=\"variant-3\">\n<details><summary>"), 1);
	assert_int_equal(count(page.buf, "<table class=\"runs\">"), 4);
	/* the answer first: the verdicts, why and the effects come
	 * before the boots, the matrix, the environment, the builds and
	 * the runs */
	{
		const char *order[] = {
			"<section id=\"compare\">", "<section id=\"why\">",
			"<section id=\"effects\">",
			"<section id=\"boot-means\">",
			"<section id=\"drift\">",
			"<section id=\"experiment\">",
			"<section id=\"environment\">",
			"<section id=\"time\">",
			"<section id=\"variants\">",
		};
		const char *at = page.buf, *next;

		for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++) {
			next = strstr(page.buf, order[i]);
			if (!next || next < at)
				fail_msg("%s is not after the part before it",
					 order[i]);
			at = next;
		}
	}
	/* no bisection, so no such part */
	assert_null(strstr(page.buf, "id=\"bisection\""));
	assert_true(strstr(page.buf, "</html>\n") ==
		    page.buf + page.len - strlen("</html>\n"));
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

/* A drifting host and a sentinel: the drift said and drawn, with what
 * it means for the verdicts, and the sentinel's A/A */
static void test_report__drift_and_the_sentinel_are_said(void **state)
{
	static const char m[] =
		"name: aa\n"
		"workload: { fio: { rw: randread }, metric: read_iops }\n"
		"repeat: { boots: 8, sentinel: true }\n";
	static const char mo[] =
		"metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02 }\n"
		"drift: { linear: -0.3 }\n";
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir), *svg;

	f->exp = run_model_of(f, m, mo);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	assert_int_equal(r.nplots, 2); /* strip and drift: no factors */
	slurp(r.dir, "index.html", &page);
	svg = svg_of(page.buf, "drift-plot");
	assert_int_equal(count(svg, "<circle"), 16);
	assert_int_equal(count(svg, "class=\"line fit drift\""), 1);
	free(svg);
	assert_non_null(strstr(page.buf, "<li><a href=\"#drift\">"));
	assert_non_null(strstr(page.buf, "<p class=\"drift flagged\">drift: the boots changed by -2"));
	assert_non_null(strstr(page.buf, "they were made on a drifting host all the same"));
	assert_non_null(strstr(page.buf, "<p class=\"sentinel\">The sentinel (<a href=\"#variant-1\">#1</a>, the baseline&#39;s kernel booted again in every round) against the baseline: "));
	assert_non_null(strstr(page.buf, "the experiment&#39;s own A/A.</p>"));
	kb_buf_release(&page);
	kb_report_result_release(&r);
	/* the same host without the drift: nothing to speak of */
	f->exp = run_model_of(f, m,
			      "metric: read_iops\nbase: 1000\n"
			      "noise: { boot_cv: 0.02 }\n");
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	slurp(r.dir, "index.html", &page);
	svg = svg_of(page.buf, "drift-plot");
	assert_int_equal(count(svg, "class=\"line fit\""), 1);
	free(svg);
	assert_non_null(strstr(page.buf, "<p class=\"drift\">The drift check finds no drift to speak of: "));
	assert_null(strstr(page.buf, "drift flagged"));
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

/* A condition (copies) is no cause: the effects plot ranks DEBUG_X
 * alone, a table gives it at each level of copies and says it depends
 * on the level; each variant is compared with the baseline at its own
 * level, and why's worst is judged against #1. */
static void test_report__conditions_are_compared_within(void **state)
{
	static const char m[] =
		"name: cond\n"
		"factors:\n  kconfig: { DEBUG_X: [n, y] }\n"
		"  workload: { copies: { levels: [1, 4], condition: true } }\n"
		"workload: { command: { run: \"true\" }, metric: real_s }\n"
		"repeat: { boots: 4 }\n";
	static const char mo[] =
		"metric: real_s\nbase: 10\nnoise: { boot_cv: 0.02 }\nseed: 7\n"
		"effects:\n"
		"  - { when: { workload.copies: 4 }, factor: 5 }\n"
		"  - { when: { DEBUG_X: y, workload.copies: 4 }, factor: 1.3 }\n";
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir), *svg;

	f->exp = run_model_of(f, m, mo);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	slurp(r.dir, "index.html", &page);
	svg = svg_of(page.buf, "effects-plot");
	assert_non_null(strstr(svg, "DEBUG_X"));
	assert_null(strstr(svg, "copies"));
	free(svg);
	assert_non_null(strstr(page.buf, "<h3>Within each level of the conditions</h3>"));
	assert_non_null(strstr(page.buf, "<td>DEBUG_X</td><td>workload.copies=4</td><td class=\"num regression\">"));
	assert_non_null(strstr(page.buf, "<td>DEBUG_X</td><td>depends on the level: yes (workload.copies=4 vs workload.copies=1)</td>"));
	/* #1 is the baseline at copies=4: no verdict of its own */
	assert_non_null(strstr(page.buf, "<tr class=\"baseline\"><td class=\"num\"><a href=\"#variant-1\">#1</a></td><td>DEBUG_X=n workload.copies=4</td>"));
	assert_non_null(strstr(page.buf, "the baseline at its level of the conditions, which the variants at that level are compared with"));
	assert_non_null(strstr(page.buf, "#3 is judged against #1, the baseline at the same level"));
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

static void test_report__bad_id_fails_and_leaves_no_folder(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);
	struct stat st;
	int left;

	f->exp = run_model(f, matrix);
	assert_int_equal(kb_report_write(f->s, 99, dir, &r, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "no experiment 99");
	assert_null(r.dir);
	assert_int_equal(r.nfiles, 0);
	assert_int_equal(stat(dir, &st), -1);
	entries(f->dir, ".rep.", &left);
	assert_false(left);
	free(dir);
}

static void test_report__a_folder_that_cannot_be_is_input(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	char *file = kb_asprintf("%s/a-file", f->dir);
	char *under = kb_asprintf("%s/a-file/rep", f->dir);
	char *other = kb_asprintf("%s/other", f->dir);
	char *keep = kb_asprintf("%s/other/notes.txt", f->dir);
	struct stat st;
	int left;

	f->exp = run_model(f, matrix);
	assert_int_equal(write_file(file), 0);
	/* a file, a folder under a file, a folder of someone else's */
	assert_int_equal(kb_report_write(f->s, f->exp, file, &r, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "is not a folder");
	kb_err_clear(&err);
	assert_int_equal(kb_report_write(f->s, f->exp, under, &r, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(write_file(keep), 0);
	assert_int_equal(kb_report_write(f->s, f->exp, other, &r, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "not a kbisect report");
	assert_int_equal(stat(keep, &st), 0);
	kb_err_clear(&err);
	assert_int_equal(kb_report_write(f->s, f->exp, "/", &r, &err),
			 KB_EINPUT);
	entries(f->dir, ".", &left);
	assert_false(left);
	free(file);
	free(under);
	free(other);
	free(keep);
}

/* The number @sql counts in database @path, opened read-only. */
static long long count_in(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void test_report__stores_what_it_computes(void **state)
{
	struct fixture *f = *state;
	struct kb_store_opts ro = KB_STORE_OPTS_INIT;
	struct kb_store *s = NULL;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);
	char *again = kb_asprintf("%s/rep-ro", f->dir);

	f->exp = run_model(f, matrix);
	assert_true(count_in(f->db, "SELECT count(*) FROM analyses") == 0);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	kb_report_result_release(&r);
	/* a verdict for every variant (the baseline's 'baseline'), the
	 * effects and why's answer, as the verbs that compute them store
	 * them */
	assert_true(count_in(f->db, "SELECT count(*) FROM v_verdicts") ==
		    count_in(f->db, "SELECT count(*) FROM variants"));
	assert_true(count_in(f->db, "SELECT count(*) FROM v_verdicts"
				    " WHERE verdict IN ('not compared')"
				    " OR verdict IS NULL") == 0);
	assert_true(count_in(f->db, "SELECT count(*) FROM v_effects") > 0);
	assert_true(count_in(f->db, "SELECT count(*) FROM v_why") == 1);
	/* read-only: the report all the same, nothing written */
	kb_store_close(f->s);
	f->s = NULL;
	{
		sqlite3 *db = NULL;

		assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, "DELETE FROM analyses", NULL,
					      NULL, NULL),
				 SQLITE_OK);
		sqlite3_close(db);
	}
	ro.access = KB_STORE_READ_ONLY;
	if (kb_store_open(f->db, &ro, &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_report_write(s, f->exp, again, &r, &err), 0);
	kb_report_result_release(&r);
	kb_store_close(s);
	assert_true(count_in(f->db, "SELECT count(*) FROM analyses") == 0);
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	free(again);
	free(dir);
}

static void test_report__an_earlier_report_is_replaced(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);
	int left;

	f->exp = run_model(f, matrix);
	assert_int_equal(mkdir(dir, 0755), 0); /* empty: taken */
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	assert_false(r.replaced);
	kb_report_result_release(&r);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	assert_true(r.replaced);
	kb_report_result_release(&r);
	/* the database, its journal files maybe, and the report alone */
	entries(f->dir, ".rep.", &left);
	assert_false(left);
	assert_int_equal(entries(dir, NULL, &left), 1);
	free(dir);
}

static void test_report__escapes_what_the_user_wrote(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);
	const char *m =
		"name: \"<script>alert('x')</script> & co\"\n"
		"factors: { kconfig: { A: [n, y] } }\n"
		"workload: { fio: { rw: randread }, metric: read_iops }\n"
		"repeat: { boots: 3 }\n";

	f->exp = run_model(f, m);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	slurp(r.dir, "index.html", &page);
	assert_null(strstr(page.buf, "<script"));
	assert_non_null(strstr(page.buf, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"));
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

/* Boot 9 of variant 0 of @exp as a real boot would store it: with its
 * build's .config, its domain XML, its workload and its environment. */
static void put_real_boot(struct kb_store *s, int64_t exp)
{
	struct kb_build_result br = { 0 };
	struct kb_boot_result boot = { 0 };
	struct kb_sample run = { 0 };
	struct kb_err err = KB_ERR_INIT;
	int64_t build_id = 0;

	br.status = KB_BUILD_OK;
	br.duration_s = 321;
	br.config_text = "CONFIG_A=y\n# CONFIG_B is not set\n";
	br.image_sha256 = "00";
	if (kb_store_build_put(s, "real-key", "libvirt", &br, &build_id,
			       &err))
		fail_msg("%s", err.msg);
	kb_sample_set(&run, "read_iops", 1001);
	boot.status = KB_BOOT_OK;
	boot.host = "qemu:///system";
	boot.duration_s = 42;
	boot.nruns = 1;
	boot.runs = &run;
	boot.environment = "{\"uri\":\"qemu:///system\",\"hypervisor\":\"QEMU\","
			   "\"hypervisor_version\":\"7.2.0\",\"libvirt_version\":"
			   "\"9.0.0\",\"host_kernel\":\"6.1.0-<x>\",\"host_cpu\":"
			   "\"Xeon\"}";
	boot.domain_xml = "<domain type='qemu'><name>kbisect-1-0-9</name></domain>\n";
	boot.workload_text = "[job]\nrw=randread\n";
	if (kb_store_boot_put(s, exp, 0, 9, build_id, &boot, &err))
		fail_msg("%s", err.msg);
}

static void test_report__evidence_is_written_and_linked(void **state)
{
	struct fixture *f = *state;
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);

	f->exp = run_model(f, matrix);
	put_real_boot(f->s, f->exp);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	assert_int_equal(r.nfiles, 4);
	assert_string_equal(r.files[0], "repro/0/config");
	assert_string_equal(r.files[1], "repro/0/domain.xml");
	assert_string_equal(r.files[2], "repro/0/workload.fio");
	assert_string_equal(r.files[3], "index.html");
	slurp(r.dir, "repro/0/domain.xml", &b);
	assert_string_equal(b.buf,
			    "<domain type='qemu'><name>kbisect-1-0-9</name></domain>\n");
	slurp(r.dir, "repro/0/config", &b);
	assert_string_equal(b.buf, "CONFIG_A=y\n# CONFIG_B is not set\n");
	slurp(r.dir, "index.html", &b);
	assert_non_null(strstr(b.buf, "<a href=\"repro/0/domain.xml\">domain.xml</a>"));
	assert_non_null(strstr(b.buf, "<a href=\"repro/0/workload.fio\">"));
	assert_non_null(strstr(b.buf, "What boot 9 (ok) booted and ran"));
	assert_non_null(strstr(b.buf, "<code>kbisect repro 1 0</code>"));
	/* the environment recorded with the boot, escaped */
	assert_non_null(strstr(b.buf, "<td>QEMU 7.2.0</td><td>9.0.0</td><td>6.1.0-&lt;x&gt;</td><td>Xeon</td>"));
	/* and its time: the variants' 4 model builds took no time, the
	 * boots one of 42 s among 24 of none */
	assert_non_null(strstr(b.buf, "4 kernels: 0.0 s when built"));
	assert_non_null(strstr(b.buf, "25 boots, 42 s (0.0 s to 42 s each"));
	kb_buf_release(&b);
	kb_report_result_release(&r);
	free(dir);
}

/* The metrics beside the experiment's, compared the same way but folded
 * under the verdicts, each table with its baseline once. */
static void test_report__other_metrics_are_folded(void **state)
{
	struct fixture *f = *state;
	struct kb_build_result br = { 0 };
	struct kb_boot_result boot = { 0 };
	struct kb_sample run = { 0 };
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir);
	const char *details, *verdicts;
	int64_t build_id = 0;

	f->exp = run_model(f, matrix);
	br.status = KB_BUILD_OK;
	br.image_sha256 = "00";
	if (kb_store_build_put(f->s, "other-key", "libvirt", &br, &build_id,
			       &err))
		fail_msg("%s", err.msg);
	boot.status = KB_BOOT_OK;
	boot.nruns = 1;
	boot.runs = &run;
	for (unsigned v = 0; v < 4; v++)
		for (unsigned k = 0; k < 3; k++) {
			kb_sample_set(&run, "read_iops", v & 1 ? 500 : 1000);
			kb_sample_set(&run, "lat_us", 100 + 10.0 * v + k);
			if (kb_store_boot_put(f->s, f->exp, v, 7 + k, build_id,
					      &boot, &err))
				fail_msg("%s", err.msg);
		}
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	slurp(r.dir, "index.html", &page);
	verdicts = strstr(page.buf, "<table class=\"compare\" id=\"verdicts\">");
	details = strstr(page.buf, "<details class=\"other-metrics\"><summary>The 1 other metric measured");
	assert_non_null(verdicts);
	assert_non_null(details);
	assert_true(verdicts < details);
	assert_true(strstr(details, "<h3>lat_us</h3>") <
		    strstr(details, "</details>"));
	assert_int_equal(count(page.buf, "<tr class=\"baseline\">"), 2);
	assert_int_equal(count(page.buf, "<td class=\"verdict "), 2 * 3);
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

/* A bisection's experiment as kbisect bisect options --model stores it:
 * a comment for its matrix, which does not plan. */
static void test_report__bisection_shows_its_probes(void **state)
{
	struct fixture *f = *state;
	static const struct kb_setting none[1];
	struct kb_variant v[3] = {
		{ .idx = 0, .label = "good", .settings = none },
		{ .idx = 1, .label = "bad", .settings = none },
		{ .idx = 2, .label = "DEBUG=y <probe>", .settings = none },
	};
	struct kb_store_experiment e = {
		.name = "bisect-options",
		.matrix_text = "# kbisect bisect options: no matrix given\n",
		.executor = "model",
		.design = "bisect-options",
		.metric = "read_iops",
		.boots = 3,
		.runs_per_boot = 1,
		.nvariants = 3,
		.variants = v,
	};
	struct kb_store_bisection_step st[2] = {
		{ 1, "the bad end: all 2 changes", 1, "bad", -50, -52, -48 },
		{ 2, "DEBUG=y <probe>", 2, "bad", -49, NAN, NAN },
	};
	struct kb_report_result r;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf page = KB_BUF_INIT;
	char *dir = kb_asprintf("%s/rep", f->dir), *svg;
	int64_t bis;

	if (kb_store_experiment_create(f->s, &e, &f->exp, &err) ||
	    kb_store_bisection_create(f->s, f->exp, "options", "g.config",
				      "b.config", &bis, &err) ||
	    kb_store_bisection_step_put(f->s, bis, f->exp, &st[0], &err) ||
	    kb_store_bisection_step_put(f->s, bis, f->exp, &st[1], &err) ||
	    kb_store_bisection_finish(f->s, bis, "done", "DEBUG=y", &err) ||
	    kb_store_experiment_finish(f->s, f->exp, "done", NULL, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_report_write(f->s, f->exp, dir, &r, &err), 0);
	assert_int_equal(r.nplots, 2); /* strip (empty) and probes */
	slurp(r.dir, "index.html", &page);
	svg = svg_of(page.buf, "bisect-plot-1");
	assert_int_equal(count(svg, "<circle"), 2);
	assert_int_equal(count(svg, "class=\"interval bad\""), 1); /* no CI */
	free(svg);
	svg = svg_of(page.buf, "strip-plot");
	assert_int_equal(count(svg, "<circle"), 0); /* nothing booted */
	free(svg);
	assert_non_null(strstr(page.buf, "The culprit set: <code>DEBUG=y</code>"));
	assert_non_null(strstr(page.buf, "<code>DEBUG=y &lt;probe&gt;</code>"));
	assert_non_null(strstr(page.buf, "<a href=\"#variant-2\">#2</a>"));
	/* what needs the analysis says why it is missing */
	assert_int_equal(count(page.buf, "not available: experiment 1: its stored matrix does not plan"), 3);
	kb_buf_release(&page);
	kb_report_result_release(&r);
	free(dir);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
static const struct CMUnitTest tests[] = {
	T(test_report__conditions_are_compared_within),
	T(test_report__model_experiment_has_every_part),
	T(test_report__drift_and_the_sentinel_are_said),
	T(test_report__bad_id_fails_and_leaves_no_folder),
	T(test_report__a_folder_that_cannot_be_is_input),
	T(test_report__stores_what_it_computes),
	T(test_report__an_earlier_report_is_replaced),
	T(test_report__escapes_what_the_user_wrote),
	T(test_report__evidence_is_written_and_linked),
	T(test_report__other_metrics_are_folded),
	T(test_report__bisection_shows_its_probes),
};

KB_TEST_MAIN(tests)
