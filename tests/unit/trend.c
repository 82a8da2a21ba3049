#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "rng.h"
#include "store.h"
#include "trend.h"

/*
 * Change points by E-Divisive means (lib/trend.h) on series whose truth
 * is known, and series read back from experiments the model ran.
 */

/* Q(tau) straight from its definition, in O(n^2). */
static double naive_q(const double *x, size_t n, size_t tau)
{
	double cross = 0, wx = 0, wy = 0, l = (double)tau, r = (double)(n - tau);
	size_t i, j;

	for (i = 0; i < tau; i++)
		for (j = tau; j < n; j++)
			cross += fabs(x[i] - x[j]);
	for (i = 0; i < tau; i++)
		for (j = i + 1; j < tau; j++)
			wx += fabs(x[i] - x[j]);
	for (i = tau; i < n; i++)
		for (j = i + 1; j < n; j++)
			wy += fabs(x[i] - x[j]);
	return l * r / (l + r) *
	       (2 * cross / (l * r) - wx / (l * (l - 1) / 2) -
		wy / (r * (r - 1) / 2));
}

/* @n values around @level with noise @cv, a step to @level * @factor at
 * each of @at[0..nat). */
static void series(double *x, size_t n, uint64_t seed, double level,
		   double cv, const size_t *at, const double *factor,
		   size_t nat)
{
	struct kb_rng r;
	double m = level;
	size_t i, k = 0;

	kb_rng_init(&r, seed);
	for (i = 0; i < n; i++) {
		if (k < nat && at[k] == i)
			m *= factor[k++];
		x[i] = m * (1 + cv * kb_rng_normal(&r));
	}
}

static void changes_ok(const double *x, size_t n,
		       const struct kb_trend_opts *o,
		       struct kb_trend_change **c, size_t *nc)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_trend_changes(x, n, o, c, nc, &err))
		fail_msg("%s", err.msg);
}

static void test_trend__divergence_is_its_definition(void **state)
{
	/* ties included: equal values are at distance 0 either way */
	double x[13] = { 5, 3, 3, 8, 1, 1, 1, 9, 2, 7, 7, 4, 3 };
	double q[14];
	size_t t;

	(void)state;
	kb_trend_divergence(x, 13, 2, q);
	assert_true(isnan(q[0]) && isnan(q[1]) && isnan(q[12]) &&
		    isnan(q[13]));
	for (t = 2; t <= 11; t++)
		if (fabs(q[t] - naive_q(x, 13, t)) > 1e-9)
			fail_msg("Q(%zu) = %.17g, by definition %.17g", t,
				 q[t], naive_q(x, 13, t));
	/* a wider minimum leaves more out */
	kb_trend_divergence(x, 13, 4, q);
	assert_true(isnan(q[3]) && !isnan(q[4]) && !isnan(q[9]) &&
		    isnan(q[10]));
}

static void test_trend__a_single_step_is_found_at_its_index(void **state)
{
	const size_t at[] = { 17 };
	const double f[] = { 0.92 };
	struct kb_trend_change *c = NULL;
	double x[30];
	size_t nc;

	(void)state;
	series(x, 30, 7, 1000, 0.015, at, f, 1);
	changes_ok(x, 30, NULL, &c, &nc);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].index, 17);
	assert_int_equal(c[0].order, 1);
	assert_int_equal(c[0].from, 0);
	assert_int_equal(c[0].to, 30);
	assert_true(c[0].p <= 0.01);
	/* the means either side are those of the points either side */
	assert_true(fabs(c[0].before - 1000) < 15);
	assert_true(fabs(c[0].after - 920) < 15);
	assert_true(c[0].change_pct < -6 && c[0].change_pct > -10);
	free(c);
}

static void test_trend__two_steps_are_both_found(void **state)
{
	const size_t at[] = { 10, 25 };
	const double f[] = { 1.1, 0.85 };
	struct kb_trend_change *c = NULL;
	double x[40];
	size_t nc;

	(void)state;
	series(x, 40, 3, 500, 0.015, at, f, 2);
	changes_ok(x, 40, NULL, &c, &nc);
	assert_int_equal(nc, 2);
	/* in the order of the series, each with its own segments */
	assert_int_equal(c[0].index, 10);
	assert_int_equal(c[1].index, 25);
	assert_int_equal(c[0].from, 0);
	assert_int_equal(c[0].to, 25);
	assert_int_equal(c[1].from, 10);
	assert_int_equal(c[1].to, 40);
	assert_true(c[0].change_pct > 5);
	assert_true(c[1].change_pct < -10);
	/* the larger change was found first */
	assert_int_equal(c[1].order, 1);
	assert_int_equal(c[0].order, 2);
	assert_true(fabs(c[0].after - c[1].before) < 1e-9);
	free(c);
}

static void test_trend__a_flat_series_has_none(void **state)
{
	struct kb_trend_change *c = NULL;
	double x[30];
	size_t nc, seed, found = 0;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		series(x, 30, seed, 1000, 0.03, NULL, NULL, 0);
		changes_ok(x, 30, NULL, &c, &nc);
		found += nc;
		free(c);
	}
	/* p <= 0.01: one false alarm in 20 would already be unlucky */
	assert_true(found <= 1);
	/* a constant series has no split better than any other */
	for (seed = 0; seed < 30; seed++)
		x[seed] = 42;
	changes_ok(x, 30, NULL, &c, &nc);
	assert_int_equal(nc, 0);
	assert_null(c);
}

static void test_trend__three_points_are_too_few_to_split(void **state)
{
	const double x[] = { 1, 100, 100 }, y[] = { 1, 1, 100, 100 };
	struct kb_trend_opts o = KB_TREND_OPTS_INIT;
	struct kb_trend_change *c = NULL;
	size_t nc = 7;

	(void)state;
	changes_ok(x, 3, NULL, &c, &nc);
	assert_int_equal(nc, 0);
	assert_null(c);
	changes_ok(NULL, 0, NULL, &c, &nc);
	assert_int_equal(nc, 0);
	/* four points split 2 + 2, but no test on 4 points reaches p <=
	 * 0.01: 8 of the 24 orders are as extreme, p = 1/3 */
	o.max_p = 0.5;
	changes_ok(y, 4, &o, &c, &nc);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].index, 2);
	assert_true(c[0].p > 0.2 && c[0].p < 0.5);
	free(c);
}

static void test_trend__a_value_that_is_not_finite_is_refused(void **state)
{
	double x[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct kb_trend_change *c = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t nc;

	(void)state;
	x[6] = NAN;
	assert_int_equal(kb_trend_changes(x, 10, NULL, &c, &nc, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "point 6 of the series is not a finite number");
	assert_null(c);
	kb_err_clear(&err);
	x[6] = -INFINITY;
	assert_int_equal(kb_trend_changes(x, 10, NULL, &c, &nc, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "point 6");
}

static void test_trend__options_out_of_range_are_refused(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5, 6 };
	struct kb_trend_opts o = KB_TREND_OPTS_INIT;
	struct kb_trend_change *c = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t nc;

	(void)state;
	o.permutations = 0;
	assert_int_equal(kb_trend_changes(x, 6, &o, &c, &nc, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "permutations 0");
	kb_err_clear(&err);
	o = (struct kb_trend_opts)KB_TREND_OPTS_INIT;
	o.max_p = 1;
	assert_int_equal(kb_trend_changes(x, 6, &o, &c, &nc, &err), KB_EINPUT);
	kb_err_clear(&err);
	o = (struct kb_trend_opts)KB_TREND_OPTS_INIT;
	o.min_size = 1;
	assert_int_equal(kb_trend_changes(x, 6, &o, &c, &nc, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "at least 1 points");
}

static void test_trend__p_values_are_reproducible_from_the_seed(void **state)
{
	const size_t at[] = { 8 };
	const double f[] = { 1.04 };
	struct kb_trend_opts o = KB_TREND_OPTS_INIT;
	struct kb_trend_change *a = NULL, *b = NULL;
	double x[16], q[17];
	size_t na, nb, seed, differ = 0;

	(void)state;
	/* a weak step: its p-value sits inside the range, not at 1/200 */
	series(x, 16, 11, 100, 0.03, at, f, 1);
	o.max_p = 0.99;
	o.seed = 5;
	changes_ok(x, 16, &o, &a, &na);
	changes_ok(x, 16, &o, &b, &nb);
	assert_true(na >= 1 && na == nb);
	assert_true(a[0].p == b[0].p && a[0].index == b[0].index);
	/* a p-value is (1 + shuffles as extreme) / (1 + permutations) */
	assert_true(fmod(a[0].p * 200, 1) < 1e-9 ||
		    fmod(a[0].p * 200, 1) > 1 - 1e-9);
	/* its Q is the series' largest */
	kb_trend_divergence(x, 16, 2, q);
	for (seed = 2; seed <= 14; seed++)
		assert_true(q[seed] <= a[0].q + 1e-12);
	free(b);
	/* other seeds draw other shuffles */
	for (seed = 6; seed < 16; seed++) {
		o.seed = seed;
		changes_ok(x, 16, &o, &b, &nb);
		differ += b[0].p != a[0].p;
		free(b);
	}
	assert_true(differ > 0);
	free(a);
}

static void test_trend__a_long_series_stays_fast(void **state)
{
	const size_t at[] = { 3000 };
	const double f[] = { 1.02 };
	struct kb_trend_change *c = NULL;
	double *x = kb_calloc(5000, sizeof(*x));
	size_t nc;

	(void)state;
	/* 199 shuffles of 5000 points: O(n log n) each */
	series(x, 5000, 2, 10, 0.01, at, f, 1);
	changes_ok(x, 5000, NULL, &c, &nc);
	assert_true(nc >= 1);
	assert_true(labs((long)c[0].index - 3000) <= 20);
	free(c);
	free(x);
}

/* ---- series from the store ------------------------------------------ */

struct fixture {
	char dir[64], db[128];
	char *repo;
	struct kb_store *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	kb_test_scratch_db("trend", f->dir, sizeof(f->dir), f->db,
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
	free(f->repo);
	free(f);
	return 0;
}

/* A git repository with tags v1..v4 committed on days 1..4 of 2024. */
static void make_repo(struct fixture *f)
{
	char date[64], tag[8], text[8];
	int k;

	f->repo = kb_asprintf("%s/repo", f->dir);
	assert_int_equal(mkdir(f->repo, 0755), 0);
	kb_test_git(f->repo, "init", "-q", NULL, NULL);
	for (k = 1; k <= 4; k++) {
		snprintf(date, sizeof(date), "2024-01-0%dT12:00:00Z", k);
		snprintf(tag, sizeof(tag), "v%d", k);
		snprintf(text, sizeof(text), "%d\n", k);
		setenv("GIT_COMMITTER_DATE", date, 1);
		setenv("GIT_AUTHOR_DATE", date, 1);
		kb_test_put(f->repo, "version", text);
		kb_test_git(f->repo, "add", "-A", NULL, NULL);
		kb_test_git(f->repo, "commit", "-q", "-m", tag);
		kb_test_git(f->repo, "tag", tag, NULL, NULL);
	}
	unsetenv("GIT_COMMITTER_DATE");
	unsetenv("GIT_AUTHOR_DATE");
}

/* Run matrix @matrix on a model of @base, seeded @seed. */
static int64_t run(struct fixture *f, const char *matrix, double base,
		   unsigned seed)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	char *model = kb_asprintf("metric: ops_per_s\nbase: %g\n"
				  "noise: { boot_cv: 0.02 }\nseed: %u\n"
				  "effects:\n  - when: { A: y }\n"
				  "    factor: 0.5\n",
				  base, seed);
	int64_t exp = 0;

	if (kb_matrix_parse_buffer(matrix, strlen(matrix), "t.yaml", &m,
				   &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model, strlen(model), "model.yaml", &mo,
				  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	if (kb_pipeline_run(f->s, p, ex, &o, &exp, &err))
		fail_msg("%s", err.msg);
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
	free(model);
	return exp;
}

static char *matrix_at(const char *repo, const char *rev)
{
	return kb_asprintf("name: nightly\n"
			   "source: { tree: %s, rev: %s }\n"
			   "workload:\n"
			   "  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"
			   "  metric: ops_per_s\n"
			   "factors: { kconfig: { A: [n, y] } }\n"
			   "repeat: { boots: 3 }\n",
			   repo, rev);
}

static void test_trend__series_by_time_and_by_revision(void **state)
{
	static const char *const revs[] = { "v3", "v1", "v4", "v2" };
	struct fixture *f = *state;
	struct kb_trend_series_opts so = KB_TREND_SERIES_OPTS_INIT;
	struct kb_trend_series *t = NULL;
	struct kb_err err = KB_ERR_INIT;
	int64_t exps[4];
	char *m;
	double *x;
	size_t i;

	make_repo(f);
	for (i = 0; i < 4; i++) {
		m = matrix_at(f->repo, revs[i]);
		exps[i] = run(f, m, 1000 + 100 * (revs[i][1] - '0'),
			      (unsigned)i + 1);
		free(m);
	}
	if (kb_trend_series_load(f->s, "nightly", NULL, &t, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t->metric, "ops_per_s");
	assert_int_equal(t->n, 4);
	assert_int_equal(t->nskipped, 0);
	for (i = 0; i < 4; i++) {
		const struct kb_trend_point *p = &t->points[i];

		/* by time: as they ran; no commit is read */
		assert_int_equal(p->experiment, exps[i]);
		assert_string_equal(p->rev, revs[i]);
		assert_null(p->commit);
		assert_int_equal(p->variant_idx, 0);
		assert_string_equal(p->label, "A=n");
		/* the point is the mean of the boots kept with it */
		assert_int_equal(p->nboots, 3);
		assert_true(fabs(p->mean - (p->boots[0] + p->boots[1] +
					    p->boots[2]) / 3) < 1e-9);
	}
	assert_string_equal(t->tree, f->repo);
	assert_string_equal(t->executor, "model");
	x = kb_trend_series_values(t);
	assert_true(x[1] == t->points[1].mean);
	free(x);
	kb_trend_series_free(t);

	/* by revision: by the commits' dates, v1 to v4 */
	so.by = KB_TREND_BY_REVISION;
	so.label = "A=y";
	if (kb_trend_series_load(f->s, "nightly", &so, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t->n, 4);
	for (i = 0; i < 4; i++) {
		char want[4];

		snprintf(want, sizeof(want), "v%zu", i + 1);
		assert_string_equal(t->points[i].rev, want);
		assert_int_equal(strlen(t->points[i].commit), 40);
		assert_string_equal(t->points[i].summary, want);
		assert_int_equal(t->points[i].commit_time,
				 1704110400 + 86400 * (int64_t)i);
		assert_int_equal(t->points[i].variant_idx, 1);
		/* A=y halves the model's value */
		assert_true(fabs(t->points[i].mean / (550 + 50 * i) - 1) <
			    0.1);
	}
	kb_trend_series_free(t);
}

static void test_trend__experiments_without_the_variant_are_left_out(
	void **state)
{
	struct fixture *f = *state;
	struct kb_trend_series_opts so = KB_TREND_SERIES_OPTS_INIT;
	struct kb_trend_series *t = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_experiment e = { 0 };
	int64_t a, b, bis;
	char *m = matrix_at("/nonexistent", "v1");

	a = run(f, m, 1000, 1);
	b = run(f, "name: nightly\nworkload:\n"
		   "  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"
		   "  metric: ops_per_s\n"
		   "factors: { kconfig: { B: [n, y] } }\n",
		1000, 2);
	/* a bisection's experiment of the same name is not a point */
	e.name = "nightly";
	e.matrix_text = m;
	e.design = "bisect-commits";
	e.metric = "ops_per_s";
	assert_int_equal(kb_store_experiment_create(f->s, &e, &bis, &err), 0);

	so.label = "A=y";
	if (kb_trend_series_load(f->s, "nightly", &so, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->points[0].experiment, a);
	assert_int_equal(t->nskipped, 1);
	assert_int_equal(t->skipped[0].experiment, b);
	assert_string_equal(t->skipped[0].reason, "no variant 'A=y'");
	kb_trend_series_free(t);

	/* an unknown metric leaves every experiment out */
	so.label = NULL;
	so.metric = "read_iops";
	if (kb_trend_series_load(f->s, "nightly", &so, &t, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t->n, 0);
	assert_int_equal(t->nskipped, 2);
	assert_string_equal(t->skipped[1].reason, "no ok boot with read_iops");
	kb_trend_series_free(t);

	/* by revision, a tree that is not there is the user's to fix */
	so.metric = NULL;
	so.by = KB_TREND_BY_REVISION;
	assert_int_equal(kb_trend_series_load(f->s, "nightly", &so, &t, &err),
			 KB_EINPUT);
	assert_null(t);
	kb_err_clear(&err);
	so.by = KB_TREND_BY_TIME;
	assert_int_equal(kb_trend_series_load(f->s, "weekly", &so, &t, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "no experiment named 'weekly'");
	free(m);
}

static void test_trend__no_revision_cannot_be_ordered_by_one(void **state)
{
	struct fixture *f = *state;
	struct kb_trend_series_opts so = KB_TREND_SERIES_OPTS_INIT;
	struct kb_trend_series *t = NULL;
	struct kb_err err = KB_ERR_INIT;

	run(f, "name: plain\nworkload:\n"
	       "  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"
	       "  metric: ops_per_s\n",
	    1000, 1);
	so.by = KB_TREND_BY_REVISION;
	assert_int_equal(kb_trend_series_load(f->s, "plain", &so, &t, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "has no kernel revision");
	assert_msg_contains(err.msg, "--by time");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_trend__divergence_is_its_definition),
	cmocka_unit_test(test_trend__a_single_step_is_found_at_its_index),
	cmocka_unit_test(test_trend__two_steps_are_both_found),
	cmocka_unit_test(test_trend__a_flat_series_has_none),
	cmocka_unit_test(test_trend__three_points_are_too_few_to_split),
	cmocka_unit_test(test_trend__a_value_that_is_not_finite_is_refused),
	cmocka_unit_test(test_trend__options_out_of_range_are_refused),
	cmocka_unit_test(test_trend__p_values_are_reproducible_from_the_seed),
	cmocka_unit_test(test_trend__a_long_series_stays_fast),
	T(test_trend__series_by_time_and_by_revision),
	T(test_trend__experiments_without_the_variant_are_left_out),
	T(test_trend__no_revision_cannot_be_ordered_by_one),
};

KB_TEST_MAIN(tests)
