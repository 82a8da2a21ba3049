#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "test.h"
#include "testfs.h"
#include "analysis.h"
#include "effects.h"
#include "err.h"
#include "executor.h"
#include "guest.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "realexec.h"
#include "stats.h"
#include "store.h"
#include "variant.h"
#include "why.h"

/*
 * What the analysis decides from an experiment: the metric's direction
 * (workload.better), the sequential looks of adaptive sampling, the
 * family of effects, and values the log scale cannot take.  Experiments
 * run on performance models at time scale 0 in a scratch database.
 */

struct fixture {
	char dir[64], db[128];
	struct kb_store *s;
	int64_t exp;
	struct kb_analysis *a;
};

static void run_experiment(struct fixture *f, const char *matrix,
			   const char *model)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;

	if (kb_matrix_parse_buffer(matrix, strlen(matrix), "t.yaml", &m,
				   &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model, strlen(model), "model.yaml", &mo,
				  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	kb_analysis_free(f->a);
	f->a = NULL;
	if (kb_pipeline_run(f->s, p, ex, &o, &f->exp, &err) ||
	    kb_analysis_open(f->s, f->exp, NULL, &f->a, &err))
		fail_msg("%s", err.msg);
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	kb_test_scratch_db("analysis", f->dir, sizeof(f->dir), f->db, sizeof(f->db));
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	kb_analysis_free(f->a);
	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

/* A throughput that option A cuts by 21%, as issue 11 found it. */
#define OPS_MATRIX(better)                                                 \
	"workload:\n"                                                      \
	"  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"            \
	"  metric: ops_per_s\n" better                                     \
	"factors: { kconfig: { A: [n, y] } }\n"                            \
	"repeat: { boots: 3, max_boots: 8 }\n"
#define OPS_MODEL                                                          \
	"metric: ops_per_s\nbase: 1000\nnoise: { boot_cv: 0.03 }\nseed: 2\n" \
	"effects:\n  - when: { A: y }\n    factor: 0.79\n"

static void test_analysis__workload_better_decides_the_verdict(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison c;

	run_experiment(f, OPS_MATRIX("  better: higher\n"), OPS_MODEL);
	assert_int_equal(kb_analysis_direction(f->a)->source,
			 KB_METRIC_DECLARED);
	assert_int_equal(kb_analysis_opts(f->a)->higher_is_better, 1);
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 1, &c, &err), 0);
	assert_true(c.change_pct < -15);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	assert_int_equal(kb_analysis_worst(f->a), 1);
	/* the same data, declared lower-is-better: an improvement */
	run_experiment(f, OPS_MATRIX("  better: lower\n"), OPS_MODEL);
	assert_int_equal(kb_analysis_opts(f->a)->higher_is_better, 0);
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 1, &c, &err), 0);
	assert_int_equal(c.verdict, KB_VERDICT_IMPROVEMENT);
	assert_int_equal(kb_analysis_worst(f->a), 0);
	/* undeclared: the name's guess, and marked as one */
	run_experiment(f, OPS_MATRIX(""), OPS_MODEL);
	assert_int_equal(kb_analysis_direction(f->a)->source,
			 KB_METRIC_GUESSED);
}

/* Adaptive boots come in rounds of both sides, in an order drawn for
 * each: neither side always boots first (issue 24). */
static void test_analysis__adaptive_rounds_change_which_side_is_first(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison c;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int a_first = 0, b_first = 0;

	/* a change near the threshold in noise: inconclusive to the
	 * last looks */
	run_experiment(f,
		       "workload:\n  fio: { rw: randread }\n"
		       "  metric: ops_per_s\n"
		       "factors: { kconfig: { A: [n, y] } }\n"
		       "repeat: { boots: 3, max_boots: 20 }\n",
		       "metric: ops_per_s\nbase: 1000\n"
		       "noise: { boot_cv: 0.05 }\nseed: 5\n"
		       "effects:\n  - { when: { A: y }, factor: 0.95 }\n");
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 1, &c, &err), 0);
	assert_true(kb_analysis_boots_added(f->a) >= 10);
	if (sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT a.seq < b.seq FROM boots a"
			       " JOIN variants va ON va.id = a.variant_id"
			       " JOIN boots b ON b.boot_no = a.boot_no"
			       " JOIN variants vb ON vb.id = b.variant_id"
			       " WHERE va.experiment_id = ?1 AND va.idx = 0"
			       " AND vb.experiment_id = ?1 AND vb.idx = 1"
			       " AND a.boot_no > 3",
			       -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, f->exp);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 0))
			a_first++;
		else
			b_first++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_true(a_first > 0);
	assert_true(b_first > 0);
}

/* The drift check: a host slowing by 30% over the run is found and
 * measured; without a drift, nothing is said. */
static void test_analysis__drift_check_finds_a_drift_over_the_run(
	void **state)
{
	struct fixture *f = *state;
	struct kb_drift d;

	run_experiment(f,
		       "workload:\n  fio: { rw: randread }\n"
		       "  metric: ops_per_s\n"
		       "factors: { kconfig: { A: [n, y], B: [n, y] } }\n"
		       "repeat: { boots: 8 }\n",
		       "metric: ops_per_s\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 4\n"
		       "drift: { linear: -0.3 }\n");
	kb_analysis_drift(f->a, &d);
	assert_int_equal(d.nboots, 32);
	assert_true(d.flagged);
	assert_true(d.ci_low_pct < -29 * 31 / 32.0 &&
		    -29 * 31 / 32.0 < d.ci_high_pct);
	run_experiment(f,
		       "workload:\n  fio: { rw: randread }\n"
		       "  metric: ops_per_s\n"
		       "factors: { kconfig: { A: [n, y], B: [n, y] } }\n"
		       "repeat: { boots: 8 }\n",
		       "metric: ops_per_s\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 4\n");
	kb_analysis_drift(f->a, &d);
	assert_int_equal(d.nboots, 32);
	assert_false(d.flagged);
	assert_true(d.ci_low_pct < 0 && 0 < d.ci_high_pct);
}

static void test_analysis__compare_pairs_boots_within_rounds(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison c;
	size_t n;

	/* blocks: boot r of each side in round r, so 4 pairs */
	run_experiment(f,
		       "workload: { fio: { rw: randread } }\n"
		       "factors: { kconfig: { A: [n, y] } }\n"
		       "repeat: { boots: 4 }\n",
		       "metric: read_iops\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 3\n"
		       "drift: { linear: -0.3 }\n"
		       "effects:\n  - when: { A: y }\n    factor: 0.8\n");
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 0, &c, &err), 0);
	assert_int_equal(c.npairs, 4);
	assert_int_equal(c.unpaired, 0);
	assert_int_equal(c.test, KB_COMPARE_PAIRED_T);
	assert_int_equal(c.verdict, KB_VERDICT_REGRESSION);
	/* a boot of A's in a round of its own: left out, counted */
	assert_int_equal(kb_analysis_add_boots(f->a, 0, 1, &err), 0);
	kb_analysis_values(f->a, 0, &n);
	assert_int_equal(n, 5);
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 0, &c, &err), 0);
	assert_int_equal(c.npairs, 4);
	assert_int_equal(c.unpaired, 1);
	/* sequential: no rounds, unpaired as before */
	run_experiment(f,
		       "workload: { fio: { rw: randread } }\n"
		       "factors: { kconfig: { A: [n, y] } }\n"
		       "repeat: { boots: 4, order: sequential }\n",
		       "metric: read_iops\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 3\n");
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 0, &c, &err), 0);
	assert_int_equal(c.npairs, 0);
	assert_int_equal(c.test, KB_COMPARE_WELCH_T);
}

static void test_analysis__adaptive_pairs_added_rounds_and_stops_for_futility(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison c;
	size_t na, nb;

	/* no change at all: from 3 boots a side it could go to 10, but
	 * at half way the trend says 10 would not decide */
	run_experiment(f,
		       "workload: { fio: { rw: randread } }\n"
		       "factors: { kconfig: { A: [n, y] } }\n"
		       "repeat: { boots: 3, max_boots: 10 }\n",
		       "metric: read_iops\nbase: 1000\n"
		       "noise: { boot_cv: 0.05 }\nseed: 7\n");
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 1, &c, &err), 0);
	kb_analysis_values(f->a, 0, &na);
	kb_analysis_values(f->a, 1, &nb);
	assert_true(na == nb && na < 10);
	/* the added boots came in rounds of both: all paired */
	assert_int_equal(c.npairs, na);
	assert_int_equal(c.unpaired, 0);
	if (c.verdict == KB_VERDICT_INCONCLUSIVE)
		assert_true(c.futile);
	else
		assert_int_equal(c.verdict, KB_VERDICT_NO_CHANGE);
}

/* In the sequential order each variant has its own stretch of the run:
 * the drift check measures the slope within the variants (their own
 * places centred too), not one shrunk by the spread of the variants'
 * places (a -30% drift read as -7% before) */
static void test_analysis__drift_check_in_the_sequential_order(void **state)
{
	struct fixture *f = *state;
	struct kb_drift d;

	run_experiment(f,
		       "workload:\n  fio: { rw: randread }\n"
		       "  metric: ops_per_s\n"
		       "repeat: { boots: 8, order: sequential, sentinel: true }\n",
		       "metric: ops_per_s\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 5\n"
		       "drift: { linear: -0.3 }\n");
	kb_analysis_drift(f->a, &d);
	assert_int_equal(d.nboots, 16);
	assert_true(d.flagged);
	/* -30% over 16 boots: about -28% from the first to the last */
	if (!(d.ci_low_pct < -28 && -28 < d.ci_high_pct))
		fail_msg("drift %.1f%% [%.1f%%, %.1f%%]", d.change_pct,
			 d.ci_low_pct, d.ci_high_pct);
}

static void test_analysis__added_boots_make_later_looks(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison c;
	size_t n;

	/* a 4% loss: 3 pairs cannot decide it */
	run_experiment(f, OPS_MATRIX("  better: higher\n"),
		       "metric: ops_per_s\nbase: 1000\n"
		       "noise: { boot_cv: 0.03 }\nseed: 2\n"
		       "effects:\n  - when: { A: y }\n    factor: 0.96\n");
	/* as planned: one test at alpha */
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 0, &c, &err), 0);
	assert_true(c.alpha == 0.05 && c.looks == 1);
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 1, &c, &err), 0);
	assert_int_equal(c.looks, 6); /* 3, 4, ..., 8 boots a side */
	assert_true(c.alpha < 0.025);
	kb_analysis_values(f->a, 0, &n);
	assert_true(n > 3);
	/* the boots added make any later comparison one more look */
	assert_int_equal(kb_analysis_compare(f->a, 0, 1, 0, &c, &err), 0);
	assert_int_equal(c.looks, 6);
	assert_true(c.alpha < 0.025);
}

/* Store boot @boot_no of variant @idx: two runs, each with ops_per_s
 * and lat_us. */
static void put_boot_of_two_metrics(struct fixture *f, unsigned idx,
				    unsigned boot_no, double v)
{
	struct kb_boot_result r = { 0 };
	struct kb_err err = KB_ERR_INIT;
	size_t i;

	r.status = KB_BOOT_OK;
	r.nruns = 2;
	r.runs = kb_calloc(r.nruns, sizeof(*r.runs));
	for (i = 0; i < r.nruns; i++) {
		assert_int_equal(kb_sample_set(&r.runs[i], "ops_per_s", v + i),
				 0);
		assert_int_equal(kb_sample_set(&r.runs[i], "lat_us",
					       1e6 / (v + i) + 0.1 * i),
				 0);
	}
	if (kb_store_boot_put(f->s, f->exp, idx, boot_no, 0, &r, &err))
		fail_msg("%s", err.msg);
	kb_boot_result_release(&r);
}

static void assert_same_double(double a, double b)
{
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_analysis__compare_metric_is_the_analysis_of_that_metric(
	void **state)
{
	static const char *const metrics[] = { "lat_us", "ops_per_s" };
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_analysis *am = NULL;
	struct kb_comparison want, got;
	struct kb_metric_dir dir;
	unsigned b;
	size_t i;

	run_experiment(f, OPS_MATRIX("  better: higher\n"), OPS_MODEL);
	/* boots stored after f->a was opened: it reads them afresh */
	for (b = 4; b <= 6; b++) {
		put_boot_of_two_metrics(f, 0, b, 1000 + 7 * b);
		put_boot_of_two_metrics(f, 1, b, 790 + 5 * b);
	}
	for (i = 0; i < 2; i++) {
		if (kb_analysis_open(f->s, f->exp, metrics[i], &am, &err) ||
		    kb_analysis_compare(am, 0, 1, 0, &want, &err) ||
		    kb_analysis_compare_metric(f->a, metrics[i], 0, 1, &got,
					       &dir, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(got.a.n, want.a.n);
		assert_int_equal(got.b.n, want.b.n);
		assert_same_double(got.a.mean, want.a.mean);
		assert_same_double(got.b.mean, want.b.mean);
		assert_same_double(got.change_pct, want.change_pct);
		assert_same_double(got.ci_low, want.ci_low);
		assert_same_double(got.ci_high, want.ci_high);
		assert_same_double(got.p, want.p);
		assert_same_double(got.alpha, want.alpha);
		assert_int_equal(got.looks, want.looks);
		assert_int_equal(got.verdict, want.verdict);
		assert_int_equal(dir.higher_is_better,
				 kb_analysis_direction(am)->higher_is_better);
		assert_int_equal(dir.source, kb_analysis_direction(am)->source);
		kb_analysis_free(am);
		am = NULL;
	}
	/* ops_per_s has 6 boots a side, a later look: boots 1 to 3 paired
	 * in their rounds, 4 to 6 (stored in none) left out; lat_us the 3
	 * of boots 4 to 6, and the opposite direction */
	assert_int_equal(got.a.n, 3);
	assert_int_equal(got.npairs, 3);
	assert_int_equal(got.unpaired, 6);
	assert_int_equal(got.test, KB_COMPARE_PAIRED_T);
	assert_true(got.looks > 1);
	assert_int_equal(dir.higher_is_better, 1);
	assert_int_equal(kb_analysis_compare_metric(f->a, "lat_us", 0, 1, &got,
						    &dir, &err),
			 0);
	assert_int_equal(got.a.n, 3);
	assert_int_equal(dir.higher_is_better, 0);
	assert_true(got.change_pct > 20); /* B is slower */
}

static void test_effects__holm_adjusts_the_family(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_effect *e = NULL;
	double raw[16], adj[16], cv, df;
	size_t n, i;

	run_experiment(f,
		       "workload: { fio: { rw: randread } }\n"
		       "factors: { kconfig: { A: [n, y], B: [n, y], C: [n, y], D: [n, y] } }\n"
		       "repeat: { boots: 2 }\n",
		       "metric: read_iops\nbase: 1000\n"
		       "noise: { boot_cv: 0.10 }\nseed: 8\n"
		       "effects:\n  - when: { B: y }\n    factor: 0.5\n");
	if (kb_effects_estimate(f->a, &e, &n, &cv, &df, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 4 + 6);
	for (i = 0; i < n; i++)
		raw[i] = e[i].p;
	kb_stats_p_adjust(raw, n, KB_P_ADJUST_HOLM, adj);
	for (i = 0; i < n; i++) {
		assert_true(e[i].p_adjusted == adj[i]);
		assert_true(e[i].p_adjusted >= e[i].p);
		assert_int_equal(e[i].significant, e[i].p_adjusted < 0.05);
	}
	/* the real effect stays significant, alone */
	assert_string_equal(e[0].name, "B");
	assert_true(e[0].significant);
	for (i = 1; i < n; i++)
		assert_false(e[i].significant);
	assert_string_equal(KB_EFFECTS_ADJUST, "holm");
	free(e);
}

static void test_effects__values_not_positive_are_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_boot_result r = { 0 };
	struct kb_effect *e = NULL;
	unsigned last = 0;
	double cv, df;
	size_t n;

	run_experiment(f,
		       "workload: { fio: { rw: randread } }\n"
		       "factors: { kconfig: { A: [n, y], B: [n, y] } }\n",
		       "metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.05 }\n");
	/* a boot of variant #2 that measured nothing: read_iops = 0 */
	r.status = KB_BOOT_OK;
	r.host = kb_strdup("model");
	r.nruns = 1;
	r.runs = kb_calloc(1, sizeof(*r.runs));
	assert_int_equal(kb_sample_set(&r.runs[0], "read_iops", 0), 0);
	assert_int_equal(kb_store_last_boot(f->s, f->exp, 2, &last, &err), 0);
	if (kb_store_boot_put(f->s, f->exp, 2, last + 1, 0, &r, &err))
		fail_msg("%s", err.msg);
	kb_boot_result_release(&r);
	kb_analysis_free(f->a);
	f->a = NULL;
	if (kb_analysis_open(f->s, f->exp, NULL, &f->a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_analysis_nonpositive(f->a, 2), 1);
	assert_int_equal(kb_analysis_nonpositive(f->a, 1), 0);
	assert_int_equal(kb_effects_estimate(f->a, &e, &n, &cv, &df, &err),
			 KB_EINPUT);
	assert_null(e);
	assert_msg_contains(err.msg,
			    "variant #2 has 1 boot with read_iops <= 0");
}

/*
 * Store an experiment of @matrix (read as the file @path) measured on
 * @model, as if run by the executor named @name: "model" stores the model
 * with it, as `run --model` does; any other name does not, as a run on
 * real kernels does not.  Reopens f->a on it.
 */
struct named {
	struct kb_executor *inner;
};

static int named_build(void *self, const struct kb_variant *v,
		       struct kb_build_result *out, struct kb_err *err)
{
	return kb_executor_build(((struct named *)self)->inner, v, out, err);
}

static int named_boot(void *self, const struct kb_variant *v,
		      const struct kb_build_result *build, unsigned boot_no,
		      unsigned runs, struct kb_boot_result *out,
		      struct kb_err *err)
{
	return kb_executor_boot(((struct named *)self)->inner, v, build,
				boot_no, runs, out, err);
}

static void store_as(struct fixture *f, const char *matrix, const char *path,
		     const char *model, const char *name)
{
	struct kb_executor_ops ops = { .name = name, .build = named_build,
				       .boot = named_boot, .free = NULL };
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct named nx = { NULL };
	struct kb_executor *ex;

	if (kb_matrix_parse_buffer(matrix, strlen(matrix), path, &m, &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model, strlen(model), "model.yaml", &mo,
				  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &nx.inner), 0);
	ex = kb_executor_new(&ops, &nx);
	if (!strcmp(name, "model"))
		o.model_text = kb_model_text(mo);
	kb_analysis_free(f->a);
	f->a = NULL;
	if (kb_pipeline_run(f->s, p, ex, &o, &f->exp, &err) ||
	    kb_analysis_open(f->s, f->exp, NULL, &f->a, &err))
		fail_msg("%s", err.msg);
	kb_executor_free(ex);
	kb_executor_free(nx.inner);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
}

/* A regression of A, in a matrix that names files of @dir. */
#define FILES_MATRIX                                                       \
	"source: { tree: linux, fragments: [frag/a.config] }\n"             \
	"factors: { kconfig: { A: [n, y], B: [n, y] } }\n"                   \
	"guest: { disks: [disk.img] }\n"                                    \
	"workload: { fio_job: job.fio, metric: read_iops }\n"
#define FILES_MODEL                                                        \
	"metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.03 }\n"         \
	"effects:\n  - when: { A: y }\n    factor: 0.7\n"

/*
 * Analysis reads the database alone: from another folder, and after the
 * files the matrix names (and the matrix) are gone, the experiment has
 * the same plan and the same answers (issue 10).
 */
static void test_analysis__reads_the_database_alone(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison before, after;
	char *exp = kb_asprintf("%s/exp", f->dir), *path, *frag, cwd[4096];
	char *labels[4];
	size_t i;
	int ret;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	path = kb_asprintf("%s/m.yaml", exp);
	frag = kb_asprintf("%s/frag", exp);
	assert_int_equal(mkdir(exp, 0755), 0);
	assert_int_equal(mkdir(frag, 0755), 0);
	kb_test_put(frag, "a.config", "CONFIG_X=y\n");
	kb_test_put(exp, "disk.img", "");
	kb_test_put(exp, "job.fio", "[j]\nrw=randread\n");
	kb_test_put(exp, "m.yaml", FILES_MATRIX);
	store_as(f, FILES_MATRIX, path, FILES_MODEL, "model");
	assert_int_equal(kb_analysis_compare(f->a, 0, 2, 0, &before, &err), 0);
	for (i = 0; i < 4; i++)
		labels[i] = kb_strdup(
			kb_plan_variant(kb_analysis_plan(f->a), i)->label);
	kb_analysis_free(f->a);
	f->a = NULL;

	kb_test_rm_rf(exp);
	assert_int_equal(chdir("/"), 0);
	ret = kb_analysis_open(f->s, f->exp, NULL, &f->a, &err);
	assert_int_equal(chdir(cwd), 0);
	if (ret)
		fail_msg("%s", err.msg);
	/* the fragment's path joined to the stored matrix's folder */
	assert_int_equal(strncmp(kb_matrix_source(kb_plan_matrix(
					 kb_analysis_plan(f->a)))->fragments[0],
				 frag, strlen(frag)),
			 0);
	for (i = 0; i < 4; i++) {
		assert_string_equal(
			kb_plan_variant(kb_analysis_plan(f->a), i)->label,
			labels[i]);
		free(labels[i]);
	}
	assert_int_equal(kb_analysis_compare(f->a, 0, 2, 0, &after, &err), 0);
	assert_int_equal(after.verdict, before.verdict);
	assert_true(after.p == before.p && after.change_pct == before.change_pct);
	free(frag);
	free(path);
	free(exp);
}

/*
 * An experiment of real kernels (executor "libvirt", a prebuilt kernel)
 * gets its boots from the real executor its caller hands the analysis,
 * here on libvirt's test driver, whose guests do not boot: each added
 * boot is stored, numbered after the others, as a failure, and a
 * failure stops adaptive sampling instead of booting to max_boots.
 */
static void test_analysis__real_executor_adds_boots(void **state)
{
	struct fixture *f = *state;
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *conn = NULL;
	struct kb_executor *ex = NULL;
	struct kb_store_variant *vs = NULL;
	struct kb_comparison c;
	struct kb_why w;
	char *path = kb_asprintf("%s/m.yaml", f->dir);
	char *cache = kb_asprintf("%s/cache", f->dir);
	char *busybox = kb_asprintf("%s/busybox", f->dir), guest[64];
	size_t n, i;
	unsigned last;

	kb_test_put(f->dir, "bzImage", "not a kernel\n");
	kb_test_put(f->dir, "busybox", "not busybox\n");
	store_as(f,
		 "source: { kernel: bzImage }\n"
		 "factors: { guest: { vcpus: [1, 2] } }\n"
		 "guest: { hypervisor: qemu, boot_timeout_s: 1 }\n"
		 "workload: { command: { run: 'true' }, timeout_s: 1 }\n"
		 "repeat: { boots: 3, max_boots: 6, order: sequential }\n"
		 "hosts: [test:///default]\n",
		 path,
		 "metric: real_s\nbase: 10\nnoise: { boot_cv: 0.03 }\n"
		 "effects:\n  - when: { guest.vcpus: 2 }\n    factor: 1.04\n",
		 "libvirt");
	assert_string_equal(kb_analysis_info(f->a)->executor, "libvirt");
	/* nothing to boot with until the caller hands an executor over */
	assert_false(kb_analysis_can_sample(f->a));
	assert_int_equal(kb_analysis_add_boots(f->a, 0, 1, &err), KB_EINPUT);

	assert_int_equal(kb_guest_connect("test:///default", &conn, &err), 0);
	ro.experiment = &f->exp;
	ro.work_dir = f->dir;
	ro.initramfs_cache = cache;
	ro.initramfs.init = "guests/init";
	ro.initramfs.busybox = busybox;
	if (kb_realexec_new(kb_plan_matrix(kb_analysis_plan(f->a)), conn, &ro,
			    &ex, &err))
		fail_msg("%s", err.msg);
	kb_analysis_set_executor(f->a, ex, NULL);
	assert_true(kb_analysis_can_sample(f->a));

	/* 4% slower at 3% noise: 3 boots a side cannot decide (the
	 * interval is wider than ±5%): one more boot each, both fail, and
	 * sampling stops there */
	if (kb_analysis_compare(f->a, 0, 1, 1, &c, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.verdict, KB_VERDICT_INCONCLUSIVE);
	assert_int_equal(kb_analysis_boots_added(f->a), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(kb_store_last_boot(f->s, f->exp, (unsigned)i,
						    &last, &err),
				 0);
		assert_int_equal(last, 4);
		kb_analysis_values(f->a, (unsigned)i, &n);
		assert_int_equal(n, 3);
	}
	/* boots asked for are added after the others, failed or not */
	if (kb_analysis_add_boots(f->a, 1, 2, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_store_last_boot(f->s, f->exp, 1, &last, &err), 0);
	assert_int_equal(last, 6);
	assert_int_equal(kb_analysis_boots_added(f->a), 4);
	if (kb_store_variants(f->s, f->exp, "real_s", &vs, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 2);
	assert_int_equal(vs[0].nboots, 3);
	assert_int_equal(vs[0].nfailed, 1);
	assert_int_equal(vs[1].nfailed, 3);
	/* booted through libvirt, the guest named by the experiment */
	snprintf(guest, sizeof(guest), "'kbisect-%lld-1-6'", (long long)f->exp);
	assert_non_null(vs[1].last_failure);
	assert_msg_contains(vs[1].last_failure, "libvirt-error: ");
	assert_msg_contains(vs[1].last_failure, guest);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);

	/* why confirms the worst (#1, 4% slower) on fresh boots: when they
	 * all fail there is nothing to confirm it with, and it says so */
	kb_err_clear(&err);
	assert_int_equal(kb_why_explain(f->a, 0, -1, &w, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "#1, the worst variant, was booted 3 times afresh");
	assert_int_equal(kb_store_last_boot(f->s, f->exp, 1, &last, &err), 0);
	assert_int_equal(last, 9);

	kb_analysis_set_executor(f->a, NULL, NULL);
	assert_false(kb_analysis_can_sample(f->a));
	kb_executor_free(ex);
	kb_guest_disconnect(conn);
	free(busybox);
	free(cache);
	free(path);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/*
 * Seed 002 at time scale 0: 4 vCPUs free or pinned to one pCPU, and 1
 * or 2 copies of `dd | cat` at once.  Its real times (the sums of the
 * copies: 79.92 s, 271.28 s free; 400.55 s, 1270.68 s pinned) as a
 * model of effects keyed by the factors' names: copies x3.394, pinning
 * x5.012, and pinning with 2 copies x0.9347 more (1270.68 / 400.55
 * against 271.28 / 79.92).  The effects name the workload and guest
 * factors and find the interaction.
 */
static void test_effects__workload_copies_and_pinning_interact(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_effect *e = NULL;
	double cv, df;
	size_t n, i;
	int seen = 0;

	run_experiment(f,
		       "factors:\n"
		       "  guest: { pin: [none, [0, 0, 0, 0]] }\n"
		       "  workload: { copies: [1, 2] }\n"
		       "guest: { vcpus: 4 }\n"
		       "workload:\n"
		       "  command: { run: 'dd if=/dev/urandom count=1M | cat >/dev/null' }\n"
		       "  metric: real_s.sum\n"
		       "repeat: { boots: 4 }\n",
		       "metric: real_s.sum\nbase: 79.92\n"
		       "noise: { boot_cv: 0.01 }\nseed: 2\n"
		       "effects:\n"
		       "  - when: { workload.copies: 2 }\n    factor: 3.394\n"
		       "  - when: { guest.pin: [0, 0, 0, 0] }\n    factor: 5.012\n"
		       "  - when: { guest.pin: [0, 0, 0, 0], workload.copies: 2 }\n"
		       "    factor: 0.9347\n");
	if (kb_effects_estimate(f->a, &e, &n, &cv, &df, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		double want;

		if (!strcmp(e[i].name, "guest.pin"))
			want = log(5.012) + 0.5 * log(0.9347);
		else if (!strcmp(e[i].name, "workload.copies"))
			want = log(3.394) + 0.5 * log(0.9347);
		else if (!strcmp(e[i].name, "guest.pin:workload.copies"))
			want = 0.5 * log(0.9347);
		else
			fail_msg("unexpected effect '%s'", e[i].name);
		seen++;
		assert_float_equal(e[i].log_effect, want, 0.02);
		assert_true(e[i].significant);
	}
	assert_int_equal(seen, 3);
	/* ranked: pinning costs most, then copies, then their interaction */
	assert_string_equal(e[0].name, "guest.pin");
	assert_string_equal(e[2].name, "guest.pin:workload.copies");
	assert_true(e[2].interaction);
	assert_true(e[2].change_pct < 0);
	free(e);
}

static const struct CMUnitTest tests[] = {
	T(test_analysis__workload_better_decides_the_verdict),
	T(test_analysis__adaptive_rounds_change_which_side_is_first),
	T(test_analysis__drift_check_finds_a_drift_over_the_run),
	T(test_analysis__drift_check_in_the_sequential_order),
	T(test_analysis__added_boots_make_later_looks),
	T(test_analysis__compare_pairs_boots_within_rounds),
	T(test_analysis__adaptive_pairs_added_rounds_and_stops_for_futility),
	T(test_analysis__compare_metric_is_the_analysis_of_that_metric),
	T(test_effects__holm_adjusts_the_family),
	T(test_effects__workload_copies_and_pinning_interact),
	T(test_effects__values_not_positive_are_refused),
	T(test_analysis__reads_the_database_alone),
	T(test_analysis__real_executor_adds_boots),
};

KB_TEST_MAIN(tests)
