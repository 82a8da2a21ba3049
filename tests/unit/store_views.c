#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testfs.h"
#include "analysis.h"
#include "compare.h"
#include "effects.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"
#include "variant.h"
#include "why.h"

/*
 * The views of the schema (db/0001..0016) for people browsing the file:
 * each one answers, with the columns db/README.md promises, on a fresh
 * database holding a model experiment, a boot with its environment and
 * evidence, a bisection and a queued experiment; the per-variant change
 * is what kbisect compare computes; old views keep answering after the
 * migration to 9.
 */

struct fixture {
	char dir[64], db[128];
	struct kb_store *s;
	int64_t exp;
};

#define MATRIX                                                             \
	"name: views\n"                                                    \
	"workload:\n"                                                      \
	"  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"            \
	"  metric: ops_per_s\n"                                            \
	"factors: { kconfig: { A: [n, y] }, guest: { vcpus: [1, 2] } }\n"  \
	"repeat: { boots: 3, runs_per_boot: 2 }\n"
#define MODEL                                                              \
	"metric: ops_per_s\nbase: 1000\n"                                  \
	"noise: { boot_cv: 0.03, run_cv: 0.01 }\nseed: 4\n"                \
	"effects:\n  - when: { A: y }\n    factor: 0.8\n"

static int64_t run_model(struct kb_store *s)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	int64_t exp = 0;

	if (kb_matrix_parse_buffer(MATRIX, strlen(MATRIX), "views.yaml", &m,
				   &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(MODEL, strlen(MODEL), "model.yaml", &mo,
				  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	if (kb_pipeline_run(s, p, ex, &o, &exp, &err))
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
	kb_test_scratch_db("views", f->dir, sizeof(f->dir), f->db,
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

#define assert_rel_ok(got, want)                                           \
	assert_true(fabs((got) - (want)) <= 1e-9 * fabs(want))

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("sqlite3_open '%s': %s", path, sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static double raw_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	double v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	v = sqlite3_column_type(st, 0) == SQLITE_NULL
		    ? NAN
		    : sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The one text of @sql's one row, or "" for NULL (caller frees). */
static char *raw_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	v = kb_strdup(sqlite3_column_text(st, 0)
			      ? (const char *)sqlite3_column_text(st, 0)
			      : "");
	sqlite3_finalize(st);
	return v;
}

/* Each view and the columns it promises (db/README.md), in order. */
static const struct {
	const char *name;
	const char *columns;
	long long rows; /* on the fixture of the test below */
} views[] = {
	/* db/0001 */
	{ "v_boot_means",
	  "experiment_id variant_id boot_id boot_no metric runs value", 13 },
	{ "v_variant_summary",
	  "experiment_id experiment variant_idx variant metric n mean stddev"
	  " min max",
	  4 },
	{ "v_history",
	  "experiment_id name created_at state design metric variants"
	  " boots_done samples finished_at",
	  2 },
	/* db/0002 */
	{ "v_bisection",
	  "bisection_id experiment_id kind good bad step_no probe variant"
	  " classification change_pct ci_low_pct ci_high_pct created_at",
	  1 },
	/* db/0004 */
	{ "v_boot_environment",
	  "boot_id experiment_id variant_idx boot_no status uri hypervisor"
	  " hypervisor_version libvirt_version host_kernel host_cpu",
	  1 },
	/* db/0005 */
	{ "v_jobs",
	  "job_id experiment_id kind variant_idx variant boot_no state host"
	  " lease_owner lease_expires_at attempts duration_s error",
	  1 },
	/* db/0007 */
	{ "v_boot_evidence",
	  "boot_id experiment_id variant_idx variant boot_no status host"
	  " build_key image_path image_sha256 has_config has_domain_xml"
	  " has_workload",
	  13 },
	/* db/0009 */
	{ "v_boot_summary",
	  "experiment_id variant_idx variant boot_id boot_no metric runs mean",
	  13 },
	{ "v_variant_change",
	  "experiment_id experiment variant_idx variant metric n mean stddev"
	  " base_n base_mean base_stddev change_pct compare_verdict"
	  " compare_p_value compare_at",
	  4 },
	{ "v_build_summary",
	  "build_id build_key built_for executor status reason duration_s"
	  " units_compiled full_build tree_id compiler config_path config"
	  " image_path image_sha256 log_path created_at",
	  2 },
	{ "v_variant_build",
	  "experiment_id experiment variant_idx variant build_key build_id"
	  " build_status build_duration_s boots boots_ok",
	  5 },
	{ "v_verdicts",
	  "experiment_id experiment variant_idx variant baseline metric"
	  " change_pct ci_low_pct ci_high_pct p verdict test decided_at",
	  5 }, /* 3 compared, the baseline, 1 not compared */
	{ "v_effects",
	  "experiment_id experiment metric kind effect change_pct ci_low_pct"
	  " ci_high_pct p p_holm significant detail estimated_at",
	  3 },
	{ "v_why",
	  "experiment_id experiment metric good_idx good bad_idx bad"
	  " change_pct ci_low_pct ci_high_pct p verdict culprits answer"
	  " answered_at",
	  1 },
};
#define NVIEWS (sizeof(views) / sizeof(views[0]))

/* Every row of view @name: its columns as one line, and its count. */
static void select_all(sqlite3 *db, const char *name, char **columns,
		       long long *rows)
{
	char *sql = kb_asprintf("SELECT * FROM %s", name);
	sqlite3_stmt *st = NULL;
	int i, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	*columns = kb_strdup("");
	for (i = 0; i < sqlite3_column_count(st); i++) {
		const char *c = sqlite3_column_name(st, i);
		char *more = kb_asprintf("%s%s%s", *columns, i ? " " : "", c);

		free(*columns);
		*columns = more;
	}
	*rows = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		(*rows)++;
	if (rc != SQLITE_DONE)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(sql);
}

/* What `run` (its verdicts), `effects` and `why` store of experiment
 * @exp of @s; the effects stored into *@neffects (may be NULL). */
static void store_answers(struct kb_store *s, int64_t exp, size_t *neffects)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_analysis *a = NULL;
	struct kb_effect *e = NULL;
	struct kb_why *w = kb_calloc(1, sizeof(*w));
	size_t n = 0, ne = 0;
	double cv, df;

	if (kb_analysis_store_experiment_verdicts(s, exp, &n, &err) ||
	    kb_analysis_open(s, exp, NULL, &a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 3);
	kb_analysis_no_sampling(a);
	if (kb_effects_estimate(a, &e, &ne, &cv, &df, &err) ||
	    kb_effects_store(a, e, ne, &err) ||
	    kb_why_explain(a, -1, -1, w, &err) || kb_why_store(a, w, &err))
		fail_msg("%s", err.msg);
	if (neffects)
		*neffects = ne;
	free(w);
	free(e);
	kb_analysis_free(a);
}

/* Something for every view: a boot with its environment and evidence,
 * a bisection with a step, a queued experiment with a job, the answers
 * stored. */
static void add_the_rest(struct fixture *f)
{
	static const struct kb_setting set[] = {
		{ "A", "n", KB_FACTOR_KCONFIG },
	};
	static const struct kb_variant var[] = {
		{ 0, "A=n", 1, set, "key-q", { 0 }, 0 },
	};
	struct kb_store_experiment e = {
		.name = "queued",
		.matrix_text = "name: queued\n",
		.executor = "libvirt",
		.design = "full",
		.metric = "ops_per_s",
		.boots = 1,
		.runs_per_boot = 1,
		.nvariants = 1,
		.variants = var,
	};
	struct kb_store_job_spec job = { .kind = KB_STORE_JOB_BUILD };
	struct kb_store_bisection_step step = {
		.step_no = 1,
		.probe = "A=y",
		.variant_idx = 1,
		.classification = "bad",
		.change_pct = -20,
		.ci_low_pct = -25,
		.ci_high_pct = -15,
	};
	struct kb_boot_result r = { 0 };
	struct kb_err err = KB_ERR_INIT;
	int64_t id;

	r.status = KB_BOOT_OK;
	r.host = kb_strdup("qemu:///system");
	r.duration_s = 9;
	r.nruns = 1;
	r.runs = kb_calloc(1, sizeof(*r.runs));
	assert_int_equal(kb_sample_set(&r.runs[0], "ops_per_s", 990), 0);
	r.environment = kb_strdup("{\"uri\": \"qemu:///system\","
				  " \"hypervisor\": \"QEMU\"}");
	r.domain_xml = kb_strdup("<domain/>");
	if (kb_store_boot_put(f->s, f->exp, 0, 4, 0, &r, &err) ||
	    kb_store_bisection_create(f->s, f->exp, "options", "g.config",
				      "b.config", &id, &err) ||
	    kb_store_bisection_step_put(f->s, id, f->exp, &step, &err) ||
	    kb_store_experiment_submit(f->s, &e, &job, 1, &id, &err))
		fail_msg("%s", err.msg);
	kb_boot_result_release(&r);
	store_answers(f->s, f->exp, NULL);
}

static void test_store_views__every_view_answers_with_its_columns(
	void **state)
{
	struct fixture *f = *state;
	sqlite3 *db;
	char *columns;
	long long rows;
	size_t i;

	f->exp = run_model(f->s);
	add_the_rest(f);
	kb_store_close(f->s);
	f->s = NULL;
	db = raw_open(f->db);
	/* each view of the schema is one of the list, and each answers */
	assert_int_equal(
		(long long)raw_real(db, "SELECT count(*) FROM sqlite_master"
					" WHERE type = 'view'"),
		NVIEWS);
	for (i = 0; i < NVIEWS; i++) {
		select_all(db, views[i].name, &columns, &rows);
		if (strcmp(columns, views[i].columns))
			fail_msg("%s has the columns\n  %s\nnot\n  %s",
				 views[i].name, columns, views[i].columns);
		if (rows != views[i].rows)
			fail_msg("%s has %lld rows, not %lld", views[i].name,
				 rows, views[i].rows);
		free(columns);
	}
	sqlite3_close(db);
}

static void test_store_views__boot_summary_is_boot_means_by_index(
	void **state)
{
	struct fixture *f = *state;
	sqlite3 *db;

	f->exp = run_model(f->s);
	db = raw_open(f->db);
	/* the same rows to the bit, the variant named by its index */
	assert_true(raw_real(db, "SELECT count(*) FROM v_boot_summary") == 12);
	assert_true(raw_real(db,
			     "SELECT count(*) FROM v_boot_summary s"
			     " JOIN variants v ON v.experiment_id ="
			     "  s.experiment_id AND v.idx = s.variant_idx"
			     " JOIN v_boot_means m ON m.variant_id = v.id"
			     "  AND m.boot_id = s.boot_id AND m.metric = s.metric"
			     " WHERE m.value = s.mean AND m.runs = s.runs"
			     " AND m.boot_no = s.boot_no"
			     " AND s.variant = v.label") == 12);
	sqlite3_close(db);
}

static void test_store_views__variant_change_is_what_compare_computes(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_analysis *a = NULL;
	struct kb_comparison c;
	struct kb_store_analysis row;
	double v;
	char *verdict;
	sqlite3 *db;

	f->exp = run_model(f->s);
	if (kb_analysis_open(f->s, f->exp, NULL, &a, &err))
		fail_msg("%s", err.msg);
	kb_analysis_no_sampling(a);
	/* variant 2 is A=y guest.vcpus=1: the model's -20% */
	assert_int_equal(kb_analysis_compare(a, 0, 2, 0, &c, &err), 0);
	db = raw_open(f->db);
	v = raw_real(db, "SELECT change_pct FROM v_variant_change"
			 " WHERE variant_idx = 2 AND metric = 'ops_per_s'");
	/* the change of the means (compare's own is of the pairs' log
	 * ratios: paired within rounds) */
	assert_true(fabs(v - kb_stats_change_pct(c.a.mean, c.b.mean)) <=
		    1e-9 * fabs(c.change_pct));
	assert_true(v < -15 && v > -25);
	v = raw_real(db, "SELECT mean FROM v_variant_change"
			 " WHERE variant_idx = 2");
	assert_true(fabs(v - c.b.mean) <= 1e-9 * c.b.mean);
	v = raw_real(db, "SELECT base_mean FROM v_variant_change"
			 " WHERE variant_idx = 2");
	assert_true(fabs(v - c.a.mean) <= 1e-9 * c.a.mean);
	v = raw_real(db, "SELECT stddev FROM v_variant_change"
			 " WHERE variant_idx = 2");
	assert_true(fabs(v - c.b.stddev) <= 1e-9 * c.b.stddev);
	assert_true(raw_real(db, "SELECT n FROM v_variant_change"
				 " WHERE variant_idx = 2") == (double)c.b.n);
	/* the baseline against itself, and no verdict before compare ran */
	assert_true(raw_real(db, "SELECT change_pct FROM v_variant_change"
				 " WHERE variant_idx = 0") == 0);
	assert_true(isnan(raw_real(db, "SELECT compare_p_value FROM"
				       " v_variant_change WHERE variant_idx = 2")));

	/* what kbisect compare stores is what the view shows */
	row = (struct kb_store_analysis){
		.kind = "compare", .metric = "ops_per_s", .a_idx = 0,
		.b_idx = 2, .change_pct = c.change_pct, .ci_low_pct = c.ci_low,
		.ci_high_pct = c.ci_high, .p_value = c.p,
		.test = "mann-whitney-u", .verdict = kb_verdict_name(c.verdict),
	};
	assert_int_equal(kb_store_analyses_put(f->s, f->exp, &row, 1, &err), 0);
	verdict = raw_text(db, "SELECT compare_verdict FROM v_variant_change"
			       " WHERE variant_idx = 2");
	assert_string_equal(verdict, kb_verdict_name(c.verdict));
	free(verdict);
	assert_true(raw_real(db, "SELECT compare_p_value FROM v_variant_change"
				 " WHERE variant_idx = 2") == c.p);
	/* a comparison of two other variants is not this variant's verdict */
	verdict = raw_text(db, "SELECT compare_verdict FROM v_variant_change"
			       " WHERE variant_idx = 1");
	assert_string_equal(verdict, "");
	free(verdict);
	sqlite3_close(db);
	kb_analysis_free(a);
}

static void test_store_views__verdicts_by_label_rounded_and_kept(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_analysis *a = NULL;
	struct kb_comparison c;
	struct kb_store_analysis row;
	char *detail = NULL, *text;
	size_t ne = 0;
	sqlite3 *db;
	double v;

	f->exp = run_model(f->s);
	store_answers(f->s, f->exp, &ne);
	/* a comparison of two other variants, and of another metric, is
	 * stored beside the verdicts: it replaces none of them */
	if (kb_analysis_open(f->s, f->exp, NULL, &a, &err))
		fail_msg("%s", err.msg);
	kb_analysis_no_sampling(a);
	assert_int_equal(kb_analysis_compare(a, 1, 2, 0, &c, &err), 0);
	kb_analysis_compare_row(&c, "ops_per_s", 1, 2, &detail, &row);
	assert_int_equal(kb_store_analyses_put(f->s, f->exp, &row, 1, &err), 0);
	row.metric = "other";
	row.a_idx = 0;
	assert_int_equal(kb_store_analyses_put(f->s, f->exp, &row, 1, &err), 0);
	free(detail);
	/* the verdict of #2 against the baseline, as compare computes it */
	assert_int_equal(kb_analysis_compare(a, 0, 2, 0, &c, &err), 0);
	kb_analysis_free(a);
	kb_store_close(f->s);
	f->s = NULL;

	db = raw_open(f->db); /* read-only, as a browser of the file */
	/* the baseline and its 3 others, each compared */
	assert_true(raw_real(db, "SELECT count(*) FROM v_verdicts") == 4);
	assert_true(raw_real(db, "SELECT count(*) FROM v_verdicts"
				 " WHERE verdict IS NULL"
				 " OR verdict = 'not compared'") == 0);
	text = raw_text(db, "SELECT verdict FROM v_verdicts"
			    " WHERE variant_idx = 0");
	assert_string_equal(text, "baseline");
	free(text);
	assert_true(raw_real(db, "SELECT count(*) FROM v_variant_change"
				 " WHERE metric = 'ops_per_s' AND variant_idx > 0"
				 " AND compare_verdict IS NULL") == 0);
	/* named by the whole label, the baseline's too */
	text = raw_text(db, "SELECT variant || '|' || baseline || '|' ||"
			    " verdict FROM v_verdicts WHERE variant_idx = 2");
	assert_string_equal(text, "A=y guest.vcpus=1|A=n guest.vcpus=1|regression");
	free(text);
	/* rounded as compare prints them: one decimal, p to 3 digits */
	v = raw_real(db, "SELECT change_pct FROM v_verdicts"
			 " WHERE variant_idx = 2");
	assert_true(fabs(v - round(c.change_pct * 10) / 10) < 1e-9);
	v = raw_real(db, "SELECT ci_high_pct FROM v_verdicts"
			 " WHERE variant_idx = 2");
	assert_true(fabs(v - round(c.ci_high * 10) / 10) < 1e-9);
	v = raw_real(db, "SELECT p FROM v_verdicts WHERE variant_idx = 2");
	text = kb_asprintf("%.3g", c.p);
	assert_true(v == strtod(text, NULL) && v != c.p);
	free(text);
	/* the effects with their Holm p and call, why's answer by label */
	assert_true(raw_real(db, "SELECT count(*) FROM v_effects") == (double)ne);
	assert_true(raw_real(db, "SELECT count(*) FROM v_effects WHERE"
				 " p_holm IS NULL OR significant IS NULL") == 0);
	text = raw_text(db, "SELECT effect FROM v_effects LIMIT 1");
	assert_string_equal(text, "A");
	free(text);
	text = raw_text(db, "SELECT good || '|' || bad FROM v_why");
	assert_msg_contains(text, "A=n guest.vcpus=");
	assert_msg_contains(text, "|A=y guest.vcpus=");
	free(text);
	sqlite3_close(db);
}

static void test_store_views__host_noise_is_the_pooled_log_variance(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_variant *vs = NULL;
	struct kb_store_noise noise;
	const char *model[] = { "model" }, *other[] = { "xen:///system" };
	double ss = 0, df = 0;
	size_t n = 0, i, k, boots = 0;

	f->exp = run_model(f->s);
	run_model(f->s); /* a second experiment on the same host */
	if (kb_store_host_noise(f->s, model, 1, "ops_per_s", &noise, &err))
		fail_msg("%s", err.msg);
	/* by hand: each variant's log boot means about their mean, both
	 * experiments, pooled */
	for (int64_t e = f->exp; e <= f->exp + 1; e++) {
		if (kb_store_variants(f->s, e, "ops_per_s", &vs, &n, &err))
			fail_msg("%s", err.msg);
		for (i = 0; i < n; i++) {
			double m = 0;

			for (k = 0; k < vs[i].nboots; k++)
				m += log(vs[i].boot_means[k]) /
				     (double)vs[i].nboots;
			for (k = 0; k < vs[i].nboots; k++)
				ss += (log(vs[i].boot_means[k]) - m) *
				      (log(vs[i].boot_means[k]) - m);
			df += (double)vs[i].nboots - 1;
			boots += vs[i].nboots;
			kb_store_variant_release(&vs[i]);
		}
		free(vs);
		vs = NULL;
	}
	assert_int_equal(noise.nexp, 2);
	assert_int_equal(noise.nboots, boots);
	assert_true(noise.df == df);
	assert_rel_ok(noise.var_log, ss / df);
	/* the model's boot_cv of 3% (and run_cv 1% over 2 runs) */
	assert_true(sqrt(noise.var_log) > 0.015 && sqrt(noise.var_log) < 0.05);
	/* boots of other hosts are not these hosts' noise */
	if (kb_store_host_noise(f->s, other, 1, "ops_per_s", &noise, &err))
		fail_msg("%s", err.msg);
	assert_true(isnan(noise.var_log) && noise.nboots == 0);
}

static void test_store_views__migration_to_9_keeps_the_old_views(
	void **state)
{
	struct fixture *f = *state;
	struct kb_store_opts o = KB_STORE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	sqlite3 *db;

	kb_store_close(f->s);
	f->s = NULL;
	kb_test_rm_rf(f->dir);
	kb_test_scratch_db("views", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	o.max_version = 8;
	if (kb_store_open(f->db, &o, &f->s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_store_version(f->s), 8);
	f->exp = run_model(f->s);
	kb_store_close(f->s);
	f->s = NULL;

	o.max_version = 9;
	if (kb_store_open(f->db, &o, &f->s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_store_version(f->s), 9);
	db = raw_open(f->db);
	/* the boots stored at 8 are in the old views and the new */
	assert_true(raw_real(db, "SELECT count(*) FROM v_boot_means") == 12);
	assert_true(raw_real(db, "SELECT count(*) FROM v_boot_summary") == 12);
	assert_true(raw_real(db, "SELECT count(*) FROM v_variant_summary") == 4);
	assert_true(raw_real(db, "SELECT count(*) FROM v_variant_change") == 4);
	assert_true(raw_real(db, "SELECT count(*) FROM v_variant_build") == 4);
	sqlite3_close(db);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
static const struct CMUnitTest tests[] = {
	T(test_store_views__every_view_answers_with_its_columns),
	T(test_store_views__boot_summary_is_boot_means_by_index),
	T(test_store_views__variant_change_is_what_compare_computes),
	T(test_store_views__verdicts_by_label_rounded_and_kept),
	T(test_store_views__host_noise_is_the_pooled_log_variance),
	T(test_store_views__migration_to_9_keeps_the_old_views),
};

KB_TEST_MAIN(tests)
