#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "order.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"

#define MATRIX "kconfig-matrix/xen-pvops-spinlocks.yaml"
#define MODEL "kconfig-matrix/xen-pvops-spinlocks.model.yaml"

/*
 * An executor that forwards to the model executor, counts calls, and can
 * be told to fail (as an infrastructure error) at the Nth boot.
 */
struct counting {
	struct kb_executor *inner;
	unsigned builds, boots;
	unsigned fail_at_boot; /* 0 = never */
	/* a signal arriving during the Nth boot or build (0 = never): sets
	 * *stop; with cut_short the step then ends as a stop makes a real
	 * one end (a destroyed guest, a killed make) */
	volatile sig_atomic_t *stop;
	unsigned stop_at_boot, stop_at_build;
	int cut_short;
};

static int c_build(void *self, const struct kb_variant *v,
		   struct kb_build_result *out, struct kb_err *err)
{
	struct counting *c = self;

	if (++c->builds == c->stop_at_build) {
		*c->stop = SIGINT;
		if (c->cut_short) {
			memset(out, 0, sizeof(*out));
			out->status = KB_BUILD_FAILED;
			out->reason = kb_strdup("make exited with status 130");
			return 0;
		}
	}
	return kb_executor_build(c->inner, v, out, err);
}

static int c_boot(void *self, const struct kb_variant *v,
		  const struct kb_build_result *build, unsigned boot_no,
		  unsigned runs, struct kb_boot_result *out,
		  struct kb_err *err)
{
	struct counting *c = self;

	if (++c->boots == c->fail_at_boot)
		return kb_err_set(err, KB_EFAIL, "lost the hypervisor");
	if (c->boots == c->stop_at_boot) {
		*c->stop = SIGTERM;
		if (c->cut_short) {
			memset(out, 0, sizeof(*out));
			out->status = KB_BOOT_LIBVIRT_ERROR;
			out->reason = kb_strdup("guest destroyed");
			return 0;
		}
	}
	return kb_executor_boot(c->inner, v, build, boot_no, runs, out, err);
}

static const struct kb_executor_ops counting_ops = {
	.name = "model",
	.build = c_build,
	.boot = c_boot,
	.free = NULL,
};

struct fixture {
	char dir[64];
	char db[128];
	struct kb_matrix *m;
	struct kb_plan *p;
	struct kb_model *model;
	struct kb_store *s;
	struct counting c;
	struct kb_executor *ex;
};

static void load_model(struct fixture *f, const char *text)
{
	struct kb_err err = KB_ERR_INIT;

	kb_model_free(f->model);
	kb_executor_free(f->c.inner);
	f->model = NULL;
	if (text) {
		if (kb_model_parse_buffer(text, strlen(text), "m.yaml",
					  &f->model, &err))
			fail_msg("model: %s", err.msg);
	} else if (kb_model_load(MODEL, &f->model, &err)) {
		fail_msg("model: %s", err.msg);
	}
	assert_int_equal(kb_model_executor_new(f->model, 0, &f->c.inner), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	kb_test_scratch_db("pipeline", f->dir, sizeof(f->dir), f->db, sizeof(f->db));
	if (kb_matrix_load(MATRIX, &f->m, &err) ||
	    kb_plan_new(f->m, &f->p, &err) ||
	    kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	load_model(f, NULL);
	f->ex = kb_executor_new(&counting_ops, &f->c);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	kb_executor_free(f->ex);
	kb_executor_free(f->c.inner);
	kb_model_free(f->model);
	kb_store_close(f->s);
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

static int64_t run(struct fixture *f, int expect)
{
	struct kb_err err = KB_ERR_INIT;
	int64_t exp = 0;
	int ret = kb_pipeline_run(f->s, f->p, f->ex, NULL, &exp, &err);

	if (ret != expect)
		fail_msg("pipeline returned %d (%s), expected %d", ret,
			 err.msg, expect);
	return exp;
}

static void info(struct fixture *f, int64_t exp, struct kb_store_info *i)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_store_experiment_get(f->s, exp, i, &err))
		fail_msg("%s", err.msg);
}

static void test_pipeline__stores_one_sample_per_run(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_variant *vs = NULL;
	struct kb_store_info i;
	size_t n = 0, k, b;
	int64_t exp = run(f, 0);

	info(f, exp, &i);
	assert_string_equal(i.state, "done");
	assert_int_equal(i.nvariants, 8);
	assert_int_equal(i.nboots_done, 8 * 3);
	assert_int_equal(i.nsamples, 8 * 3 * 2);
	kb_store_info_release(&i);
	assert_int_equal(kb_store_variants(f->s, exp, "read_iops", &vs, &n,
					   &err),
			 0);
	assert_int_equal(n, 8);
	for (k = 0; k < n; k++) {
		double expected = kb_model_expected(f->model,
						    kb_plan_variant(f->p, k));
		double mean = 0;

		assert_int_equal(vs[k].nboots, 3);
		for (b = 0; b < vs[k].nboots; b++)
			mean += vs[k].boot_means[b] / 3;
		/* boot_cv 3%: a mean of 3 boots is within 4 sigma = 7% */
		if (fabs(mean / expected - 1) > 0.07)
			fail_msg("variant %zu: mean %g, model %g", k, mean,
				 expected);
		kb_store_variant_release(&vs[k]);
	}
	free(vs);
	assert_int_equal(f->c.builds, 8);
	assert_int_equal(f->c.boots, 24);
}

static void test_pipeline__build_failure_is_stored_and_run_goes_on(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_variant *vs = NULL;
	size_t n = 0, k;
	int64_t exp;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "failures:\n  - when: { DEBUG_KMEMLEAK: y }\n"
		      "    stage: build\n");
	exp = run(f, 0);
	assert_int_equal(kb_store_variants(f->s, exp, "read_iops", &vs, &n,
					   &err),
			 0);
	for (k = 0; k < n; k++) {
		int leak = !strcmp(kb_variant_get(kb_plan_variant(f->p, k),
						  "DEBUG_KMEMLEAK"),
				   "y");

		assert_int_equal(vs[k].nboots, leak ? 0 : 3);
		assert_int_equal(vs[k].nfailed, leak ? 3 : 0);
		if (leak)
			assert_msg_contains(vs[k].last_failure,
					    "build-failed: model: build fails when DEBUG_KMEMLEAK=y");
		kb_store_variant_release(&vs[k]);
	}
	free(vs);
	/* failed builds are built once, and never booted */
	assert_int_equal(f->c.builds, 8);
	assert_int_equal(f->c.boots, 12);
}

static void test_pipeline__executor_error_fails_then_resume_completes(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_info i;
	int64_t exp;

	f->c.fail_at_boot = 5;
	exp = run(f, KB_EFAIL);
	assert_true(exp > 0);
	info(f, exp, &i);
	assert_string_equal(i.state, "failed");
	assert_msg_contains(i.error, "lost the hypervisor");
	assert_int_equal(i.nboots_done, 4);
	assert_int_equal(i.nsamples, 4 * 2);
	kb_store_info_release(&i);

	/* a restart resumes: boots already stored are not run again */
	f->c.fail_at_boot = 0;
	f->c.boots = 0;
	assert_int_equal(kb_pipeline_resume(f->s, exp, f->p, f->ex, NULL,
					    &err),
			 0);
	assert_int_equal(f->c.boots, 24 - 4);
	info(f, exp, &i);
	assert_string_equal(i.state, "done");
	assert_int_equal(i.nboots_done, 24);
	assert_int_equal(i.nsamples, 48);
	kb_store_info_release(&i);
}

static void test_pipeline__builds_are_reused_across_experiments(void **state)
{
	struct fixture *f = *state;
	struct kb_store_info i;
	int64_t a, b;

	a = run(f, 0);
	assert_int_equal(f->c.builds, 8);
	b = run(f, 0);
	assert_true(b > a);
	assert_int_equal(f->c.builds, 8);
	assert_int_equal(f->c.boots, 48);
	info(f, b, &i);
	assert_int_equal(i.nsamples, 48);
	kb_store_info_release(&i);
}

struct seen {
	unsigned builds, boots;
	size_t last_done, total;
};

static void on_progress(const struct kb_progress *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind == KB_PROGRESS_BUILD_DONE)
		s->builds++;
	if (ev->kind == KB_PROGRESS_BOOT_DONE)
		s->boots++;
	s->last_done = ev->boots_done;
	s->total = ev->boots_total;
}

static void test_pipeline__progress_counts_every_boot(void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct seen s = { 0, 0, 0, 0 };
	int64_t exp;

	o.progress = on_progress;
	o.arg = &s;
	assert_int_equal(kb_pipeline_run(f->s, f->p, f->ex, &o, &exp, &err),
			 0);
	assert_int_equal(s.builds, 8);
	assert_int_equal(s.boots, 24);
	assert_int_equal(s.last_done, 24);
	assert_int_equal(s.total, 24);
}

/* Boot rows of @exp, and distinct (variant, boot number) pairs among them. */
static void count_boots(struct fixture *f, int64_t exp, long long *rows,
			long long *distinct)
{
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, k;
	unsigned last;

	*rows = *distinct = 0;
	assert_int_equal(kb_store_variants(f->s, exp, "read_iops", &vs, &n,
					   &err),
			 0);
	for (k = 0; k < n; k++) {
		*rows += (long long)(vs[k].nboots + vs[k].nfailed);
		assert_int_equal(kb_store_last_boot(f->s, exp, vs[k].idx,
						    &last, &err),
				 0);
		/* boot numbers 1..last, each once (UNIQUE in the schema) */
		*distinct += last;
		kb_store_variant_release(&vs[k]);
	}
	free(vs);
}

/* Progress kinds in the order they came. */
struct kinds {
	enum kb_progress_kind k[256];
	size_t n;
};

static void on_kind(const struct kb_progress *ev, void *arg)
{
	struct kinds *ks = arg;

	if (ks->n < 256)
		ks->k[ks->n++] = ev->kind;
}

/* One integer of @sql's one row over the database at @path. */
static long long sql_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long v;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* In blocks (the default) every kernel is built before the first boot,
 * round r holds boot r of every variant, and each boot records its
 * round, its place in the run and when it started; the experiment its
 * order and seed. */
static void test_pipeline__blocks_build_first_and_record_the_order(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kinds ks;
	size_t i, first_boot = 0;
	int64_t exp = 0;
	char q[256];

	memset(&ks, 0, sizeof(ks));
	o.progress = on_kind;
	o.arg = &ks;
	if (kb_pipeline_run(f->s, f->p, f->ex, &o, &exp, &err))
		fail_msg("%s", err.msg);
	while (first_boot < ks.n && ks.k[first_boot] != KB_PROGRESS_BOOT_START)
		first_boot++;
	assert_true(first_boot < ks.n);
	for (i = first_boot; i < ks.n; i++)
		assert_true(ks.k[i] == KB_PROGRESS_BOOT_START ||
			    ks.k[i] == KB_PROGRESS_BOOT_DONE);
	assert_int_equal(f->c.builds, kb_plan_nbuilds(f->p));
	snprintf(q, sizeof(q),
		 "SELECT count(*) FROM boots b JOIN variants v"
		 " ON v.id = b.variant_id WHERE v.experiment_id = %lld"
		 " AND b.round = b.boot_no AND b.started_at IS NOT NULL",
		 (long long)exp);
	assert_int_equal(sql_int(f->db, q), 24);
	snprintf(q, sizeof(q),
		 "SELECT count(DISTINCT b.seq) * (min(b.seq) = 1)"
		 " * (max(b.seq) = 24) FROM boots b JOIN variants v"
		 " ON v.id = b.variant_id WHERE v.experiment_id = %lld",
		 (long long)exp);
	assert_int_equal(sql_int(f->db, q), 24);
	/* the rounds ran one after another: every boot of round r started
	 * before every boot of round r + 1 */
	snprintf(q, sizeof(q),
		 "SELECT count(*) FROM boots a JOIN boots b JOIN variants va"
		 " ON va.id = a.variant_id JOIN variants vb"
		 " ON vb.id = b.variant_id WHERE va.experiment_id = %lld"
		 " AND vb.experiment_id = va.experiment_id"
		 " AND a.round < b.round AND a.seq > b.seq",
		 (long long)exp);
	assert_int_equal(sql_int(f->db, q), 0);
	snprintf(q, sizeof(q),
		 "SELECT (run_order = 'blocks') * length(order_seed)"
		 " FROM experiments WHERE id = %lld",
		 (long long)exp);
	assert_int_equal(sql_int(f->db, q), 16);
}

/* Run the fixture's plan on @ex until a SIGTERM during boot @n; returns
 * the interrupted experiment. */
static int64_t run_stopped_at(struct fixture *f, struct kb_executor *ex,
			      unsigned n, struct kb_pipeline_opts *o,
			      volatile sig_atomic_t *stop)
{
	struct kb_err err = KB_ERR_INIT;
	int64_t exp = 0;

	o->stop = stop;
	f->c.stop = stop;
	f->c.stop_at_boot = n;
	assert_int_equal(kb_pipeline_run(f->s, f->p, ex, o, &exp, &err),
			 KB_EFAIL);
	return exp;
}

/* Clear the stop and the counts, then resume @exp on @ex; returns as
 * kb_pipeline_resume(). */
static int resume_after_stop(struct fixture *f, struct kb_executor *ex,
			     int64_t exp, struct kb_pipeline_opts *o,
			     volatile sig_atomic_t *stop, struct kb_err *err)
{
	*stop = 0;
	f->c.stop_at_boot = 0;
	f->c.boots = 0;
	kb_err_clear(err);
	return kb_pipeline_resume(f->s, exp, f->p, ex, o, err);
}

static void test_pipeline__stop_interrupts_and_resume_loses_no_boot(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	volatile sig_atomic_t stop = 0;
	struct kb_store_info i;
	long long rows, distinct;
	int64_t exp = 0;

	o.stop = &stop;
	f->c.stop = &stop;
	f->c.stop_at_boot = 5;
	assert_int_equal(kb_pipeline_run(f->s, f->p, f->ex, &o, &exp, &err),
			 KB_EFAIL);
	assert_true(exp > 0);
	assert_msg_contains(err.msg, "interrupted by SIGTERM after 5 of 24 boots");
	/* the boot running when the signal came ended ok: it is kept, and
	 * no other starts */
	assert_int_equal(f->c.boots, 5);
	info(f, exp, &i);
	assert_string_equal(i.state, "interrupted");
	assert_msg_contains(i.error, "interrupted by SIGTERM");
	assert_int_equal(i.nboots_done, 5);
	assert_non_null(i.finished_at);
	kb_store_info_release(&i);

	assert_int_equal(resume_after_stop(f, f->ex, exp, &o, &stop, &err), 0);
	assert_int_equal(f->c.boots, 24 - 5);
	info(f, exp, &i);
	assert_string_equal(i.state, "done");
	assert_int_equal(i.nboots_done, 24);
	assert_int_equal(i.nsamples, 48);
	kb_store_info_release(&i);
	count_boots(f, exp, &rows, &distinct);
	assert_int_equal(rows, 24);
	assert_int_equal(distinct, 24);
}

/* The counting executor under a real executor's name: a run on real
 * hosts, whose order seed is its own. */
static const struct kb_executor_ops real_named_ops = {
	.name = "libvirt",
	.build = c_build,
	.boot = c_boot,
	.free = NULL,
};

/* Boot @b of variant @v of experiment @exp: its place in the run. */
static long long boot_seq(struct fixture *f, int64_t exp, unsigned v,
			  unsigned b)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT b.seq FROM boots b JOIN variants v"
		 " ON v.id = b.variant_id WHERE v.experiment_id = %lld"
		 " AND v.idx = %u AND b.boot_no = %u",
		 (long long)exp, v, b);
	return sql_int(f->db, q);
}

/* On real hosts every experiment draws its own order seed, and stores
 * it: a resume runs the rest of that order.  On the model the seed is
 * the matrix's, so a model run repeats. */
static void test_pipeline__each_real_run_draws_its_order_and_resume_keeps_it(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	volatile sig_atomic_t stop = 0;
	struct kb_executor *real = kb_executor_new(&real_named_ops, &f->c);
	struct kb_order_boot order[24];
	struct kb_store_info i, j;
	int64_t exp = 0, exp2 = 0, exp3 = 0;
	size_t k;

	exp = run_stopped_at(f, real, 5, &o, &stop);
	assert_int_equal(resume_after_stop(f, real, exp, &o, &stop, &err), 0);
	assert_int_equal(f->c.boots, 24 - 5);
	info(f, exp, &i);
	assert_int_equal(i.has_order_seed, 1);
	assert_true(i.order_seed != kb_order_seed(f->p));
	/* all 24 boots in the stored seed's order, across the stop */
	assert_int_equal(kb_order_run(f->p, i.order_seed, NULL, order), 24);
	for (k = 0; k < 24; k++)
		assert_int_equal(boot_seq(f, exp, order[k].variant_idx,
					  order[k].boot_no),
				 (long long)k + 1);
	/* the same matrix again: another seed */
	assert_int_equal(kb_pipeline_run(f->s, f->p, real, &o, &exp2, &err),
			 0);
	info(f, exp2, &j);
	assert_true(j.order_seed != i.order_seed);
	kb_store_info_release(&j);
	/* the model: the matrix's */
	assert_int_equal(kb_pipeline_run(f->s, f->p, f->ex, &o, &exp3, &err),
			 0);
	info(f, exp3, &j);
	assert_true(j.order_seed == kb_order_seed(f->p));
	kb_store_info_release(&j);
	kb_store_info_release(&i);
	kb_executor_free(real);
}

/* A stored seed that is not one stops a resume before any boot. */
static void test_pipeline__resume_refuses_a_broken_order_seed(void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	volatile sig_atomic_t stop = 0;
	sqlite3 *db = NULL;
	int64_t exp = 0;
	char q[128];

	exp = run_stopped_at(f, f->ex, 3, &o, &stop);
	snprintf(q, sizeof(q),
		 "UPDATE experiments SET order_seed = 'not a seed'"
		 " WHERE id = %lld",
		 (long long)exp);
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(resume_after_stop(f, f->ex, exp, &o, &stop, &err),
			 KB_EINPUT);
	assert_int_equal(f->c.boots, 0);
	assert_msg_contains(err.msg, "order seed");
}

static void test_pipeline__step_cut_short_by_a_stop_is_not_a_result(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	volatile sig_atomic_t stop = 0;
	struct kb_build_result br;
	struct kb_store_info i;
	long long rows, distinct;
	int64_t exp = 0, bid = 0;

	/* a make killed by the Ctrl-C: no failed build in the cache, and
	 * no boot (in blocks every kernel is built before the first) */
	o.stop = &stop;
	f->c.stop = &stop;
	f->c.cut_short = 1;
	f->c.stop_at_build = 2;
	assert_int_equal(kb_pipeline_run(f->s, f->p, f->ex, &o, &exp, &err),
			 KB_EFAIL);
	assert_int_equal(f->c.builds, 2);
	assert_int_equal(f->c.boots, 0);
	count_boots(f, exp, &rows, &distinct);
	assert_int_equal(rows, 0);
	info(f, exp, &i);
	assert_string_equal(i.state, "interrupted");
	kb_store_info_release(&i);

	/* a guest destroyed by the stop: no "libvirt-error" boot row; the
	 * build cut short is built again, the first one is not */
	stop = 0;
	f->c.stop_at_build = 0;
	f->c.builds = 0;
	f->c.stop_at_boot = 3;
	kb_err_clear(&err);
	assert_int_equal(kb_pipeline_resume(f->s, exp, f->p, f->ex, &o, &err),
			 KB_EFAIL);
	assert_int_equal(f->c.builds, (unsigned)kb_plan_nbuilds(f->p) - 1);
	count_boots(f, exp, &rows, &distinct);
	assert_int_equal(rows, 2);
	info(f, exp, &i);
	assert_string_equal(i.state, "interrupted");
	kb_store_info_release(&i);
	kb_err_clear(&err);
	stop = 0;
	f->c.stop_at_build = 0;
	f->c.cut_short = 0;
	assert_int_equal(kb_pipeline_resume(f->s, exp, f->p, f->ex, &o, &err),
			 0);
	count_boots(f, exp, &rows, &distinct);
	assert_int_equal(rows, 24);
	assert_int_equal(distinct, 24);
	/* every build in the store is ok: the cut one was built again */
	for (size_t k = 0; k < kb_plan_nvariants(f->p); k++) {
		assert_int_equal(kb_store_build_get(f->s,
						    kb_plan_variant(f->p, k)
							    ->build_key,
						    &br, &bid, &err),
				 0);
		assert_int_equal(br.status, KB_BUILD_OK);
		kb_build_result_release(&br);
	}
}

/*
 * Adaptive sampling boots the build the experiment stored for a variant:
 * a plan rebuilt from the stored matrix (here as if it had moved) need not
 * know its key, and no kernel is built again (issue 10).
 */
static void test_pipeline__added_boots_take_the_stored_build(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_build_result br;
	int64_t exp = run(f, 0), bid;
	unsigned last;

	if (kb_plan_from_stored(kb_matrix_text(f->m), "/moved/m.yaml", &m, &p,
				&err))
		fail_msg("%s", err.msg);
	assert_string_not_equal(kb_plan_variant(p, 1)->build_key,
				kb_plan_variant(f->p, 1)->build_key);
	f->c.builds = f->c.boots = 0;
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, p, f->ex, 1, 2, NULL,
					       &err),
			 0);
	assert_int_equal(f->c.builds, 0);
	assert_int_equal(f->c.boots, 2);
	assert_int_equal(kb_store_last_boot(f->s, exp, 1, &last, &err), 0);
	assert_int_equal(last, 5);
	/* nothing stored under the rebuilt plan's key */
	assert_int_equal(kb_store_build_get(f->s,
					    kb_plan_variant(p, 1)->build_key,
					    &br, &bid, &err),
			 KB_ENOTFOUND);
	kb_plan_free(p);
	kb_matrix_free(m);
}

/* A stop ends adding boots as it ends a run: a boot it cut short is not
 * stored, and none starts after it. */
static void test_pipeline__stop_ends_added_boots(void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	volatile sig_atomic_t stop = 0;
	int64_t exp = run(f, 0);
	unsigned last;

	o.stop = &stop;
	f->c.stop = &stop;
	f->c.cut_short = 1;
	f->c.boots = 0;
	f->c.stop_at_boot = 2;
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, f->p, f->ex, 0, 5,
					       &o, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "boot 5 of variant 0 was interrupted");
	assert_int_equal(f->c.boots, 2);
	assert_int_equal(kb_store_last_boot(f->s, exp, 0, &last, &err), 0);
	assert_int_equal(last, 4);
	/* stopped already: no boot starts */
	kb_err_clear(&err);
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, f->p, f->ex, 0, 1,
					       &o, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "stopped before boot 5 of variant 0");
	assert_int_equal(f->c.boots, 2);
}

/* ---- builds alone, from a git repository of fake kernel trees ----------- */

struct trees {
	char *tmp, *repo, *old_cache;
	struct kb_matrix *m;
	struct kb_plan *p;
	struct kb_store *s;
};

/* A stand-in for Kbuild: the image is the tree's "version" file. */
#define FAKE_KBUILD                                                        \
	"bzImage:\n"                                                       \
	"\t@grep '^CONFIG_.*=y' $(O)/.config | sed 's/^/  CC      /'\n"  \
	"\t@mkdir -p $(O)/arch/x86/boot\n"                                 \
	"\t@cp version $(O)/arch/x86/boot/bzImage\n"

/*
 * tmp/repo with two commits, tags A and B, each a tiny kernel tree whose
 * "version" says which; B's olddefconfig also turns on LOOP.  The matrix
 * builds SPIN=y at kernel.rev A and B; the plan is resolved.
 */
static int setup_trees(void **state)
{
	struct trees *t = calloc(1, sizeof(*t));
	struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	char templ[] = "/tmp/kb-pipeline-trees-XXXXXX";
	char *cache, *text, *db;

	assert_non_null(mkdtemp(templ));
	t->tmp = kb_strdup(templ);
	t->old_cache = getenv("XDG_CACHE_HOME")
			       ? kb_strdup(getenv("XDG_CACHE_HOME"))
			       : NULL;
	cache = kb_asprintf("%s/cache", t->tmp);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	t->repo = kb_asprintf("%s/repo", t->tmp);
	assert_int_equal(mkdir(t->repo, 0755), 0);
	kb_test_git(t->repo, "init", "-q", NULL, NULL);
	kb_test_put(t->repo, "Kconfig", "config SPIN\n\tbool \"spin\"\n");
	kb_test_put(t->repo, "Makefile", "olddefconfig:\n\t@true\n" FAKE_KBUILD);
	kb_test_put(t->repo, "version", "A\n");
	kb_test_git(t->repo, "add", "-A", NULL, NULL);
	kb_test_git(t->repo, "commit", "-q", "-m", "A");
	kb_test_git(t->repo, "tag", "A", NULL, NULL);
	kb_test_put(t->repo, "Kconfig",
	    "config SPIN\n\tbool \"spin\"\n\nconfig LOOP\n\tbool \"loop\"\n");
	kb_test_put(t->repo, "Makefile",
	    "olddefconfig:\n\t@echo CONFIG_LOOP=y >> $(O)/.config\n"
	    FAKE_KBUILD);
	kb_test_put(t->repo, "version", "B\n");
	kb_test_git(t->repo, "commit", "-q", "-am", "B");
	kb_test_git(t->repo, "tag", "B", NULL, NULL);

	text = kb_asprintf("source: { tree: %s }\n"
			   "factors:\n  kconfig: { SPIN: [y] }\n"
			   "  kernel: { rev: [A, B] }\n"
			   "build: { jobs: 1 }\n"
			   "workload: { fio: { rw: randread } }\n",
			   t->repo);
	db = kb_asprintf("%s/t.db", t->tmp);
	if (kb_matrix_parse_buffer(text, strlen(text), "t.yaml", &t->m,
				   &err) ||
	    kb_plan_new(t->m, &t->p, &err) ||
	    kb_plan_resolve(t->p, &o, &err) ||
	    kb_store_open(db, NULL, &t->s, &err))
		fail_msg("%s", err.msg);
	free(db);
	free(text);
	*state = t;
	return 0;
}

static int teardown_trees(void **state)
{
	struct trees *t = *state;
	char *argv[] = { "rm", "-rf", t->tmp, NULL };

	kb_store_close(t->s);
	kb_plan_free(t->p);
	kb_matrix_free(t->m);
	kb_test_run(argv);
	if (t->old_cache)
		setenv("XDG_CACHE_HOME", t->old_cache, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(t->old_cache);
	free(t->repo);
	free(t->tmp);
	free(t);
	return 0;
}

struct build_seen {
	unsigned starts, makes, ends;
	size_t last_i, n;
};

static void on_build(const struct kb_pipeline_build_event *ev, void *arg)
{
	struct build_seen *s = arg;

	s->starts += ev->kind == KB_PIPELINE_BUILD_START;
	s->makes += ev->kind == KB_PIPELINE_BUILD_MAKE;
	s->ends += ev->kind == KB_PIPELINE_BUILD_END;
	s->last_i = ev->i;
	s->n = ev->n;
}

static char *slurp(const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	if (kb_buf_read_file(&b, path, 1 << 20, &err))
		fail_msg("%s", err.msg);
	return kb_buf_detach(&b);
}

static void test_pipeline__build_plan_builds_each_revision_in_its_tree(void **state)
{
	struct trees *t = *state;
	struct kb_pipeline_build_opts o = KB_PIPELINE_BUILD_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_pipeline_job *jobs = NULL;
	struct build_seen seen = { 0, 0, 0, 0, 0 };
	const char *want[] = { "A\n", "B\n" };
	size_t n = 0, i;

	o.progress = on_build;
	o.arg = &seen;
	if (kb_pipeline_build_plan(t->s, t->p, &o, &jobs, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 2);
	assert_int_equal(seen.starts, 2);
	assert_int_equal(seen.ends, 2);
	assert_true(seen.makes >= 2);
	assert_int_equal(seen.n, 2);
	assert_string_not_equal(jobs[0].tree_id, jobs[1].tree_id);
	assert_string_not_equal(jobs[0].key, jobs[1].key);
	for (i = 0; i < n; i++) {
		char *objdir = kb_build_default_objdir(jobs[i].tree_id);
		char *image;

		assert_string_equal(jobs[i].outcome, "built");
		assert_int_equal(jobs[i].result.status, KB_BUILD_OK);
		assert_string_equal(jobs[i].key,
				    kb_plan_variant(t->p, i)->build_key);
		/* built from its own revision, in that tree's O= folder */
		assert_string_equal(jobs[i].tree_id,
				    kb_plan_variant_tree(t->p, i)->id);
		assert_string_equal(jobs[i].info.objdir, objdir);
		image = slurp(jobs[i].result.image);
		assert_string_equal(image, want[i]);
		assert_true(jobs[i].build_id > 0);
		free(image);
		free(objdir);
	}
	/* one tree after the other, so both are first in their tree */
	assert_int_equal(jobs[0].order + jobs[1].order, 3);
	kb_pipeline_jobs_free(jobs, n);

	/* a second run finds both in the store and builds nothing */
	memset(&seen, 0, sizeof(seen));
	if (kb_pipeline_build_plan(t->s, t->p, &o, &jobs, &n, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n, 2);
	assert_int_equal(seen.starts, 0);
	for (i = 0; i < n; i++) {
		assert_string_equal(jobs[i].outcome, "reused");
		assert_int_equal(jobs[i].order, -1);
	}
	kb_pipeline_jobs_free(jobs, n);
}

static void test_pipeline__build_plan_needs_a_resolved_plan(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_pipeline_job *jobs = NULL;
	size_t n = 7;

	assert_int_equal(kb_pipeline_build_plan(f->s, f->p, NULL, &jobs, &n,
						&err),
			 KB_EINPUT);
	assert_null(jobs);
	assert_int_equal(n, 0);
	assert_msg_contains(err.msg, "not resolved");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(
		test_pipeline__blocks_build_first_and_record_the_order, setup,
		teardown),
	cmocka_unit_test_setup_teardown(test_pipeline__stores_one_sample_per_run,
					setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__build_failure_is_stored_and_run_goes_on, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__executor_error_fails_then_resume_completes,
		setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__builds_are_reused_across_experiments, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__progress_counts_every_boot, setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__stop_interrupts_and_resume_loses_no_boot,
		setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__each_real_run_draws_its_order_and_resume_keeps_it,
		setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__resume_refuses_a_broken_order_seed, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__step_cut_short_by_a_stop_is_not_a_result,
		setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__added_boots_take_the_stored_build, setup,
		teardown),
	cmocka_unit_test_setup_teardown(test_pipeline__stop_ends_added_boots,
					setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_pipeline__build_plan_builds_each_revision_in_its_tree,
		setup_trees, teardown_trees),
	cmocka_unit_test_setup_teardown(
		test_pipeline__build_plan_needs_a_resolved_plan, setup,
		teardown),
};

KB_TEST_MAIN(tests)
