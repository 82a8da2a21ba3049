#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
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
};

static int c_build(void *self, const struct kb_variant *v,
		   struct kb_build_result *out, struct kb_err *err)
{
	struct counting *c = self;

	c->builds++;
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
	return kb_executor_boot(c->inner, v, build, boot_no, runs, out, err);
}

static const struct kb_executor_ops counting_ops = { "model", c_build,
						     c_boot, NULL };

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

	snprintf(f->dir, sizeof(f->dir), "/tmp/kb-pipeline-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db, sizeof(f->db), "%s/t.db", f->dir);
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
	char path[160];

	kb_executor_free(f->ex);
	kb_executor_free(f->c.inner);
	kb_model_free(f->model);
	kb_store_close(f->s);
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	snprintf(path, sizeof(path), "%s-wal", f->db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", f->db);
	unlink(path);
	unlink(f->db);
	rmdir(f->dir);
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

static const struct CMUnitTest tests[] = {
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
};

KB_TEST_MAIN(tests)
