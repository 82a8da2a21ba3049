#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "executor.h"
#include "guest.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "runner.h"

/*
 * The runner (lib/runner.h): the executors every path that boots uses.
 * On the model: a slot per unit of each host's capacity for run and
 * resume, one a host and the executor over them for the boots added,
 * the model alone without a matrix; the environment it reads checked;
 * and the daemon's step executor, on the model and on libvirt's test
 * driver.
 */

#define H1 "qemu+ssh://a/system"
#define H2 "qemu+ssh://b/system"

static const char matrix_text[] =
	"name: runner\n"
	"factors:\n"
	"  kconfig:\n"
	"    A: [n, y]\n"
	"workload:\n"
	"  fio: { rw: randread }\n"
	"  metric: read_iops\n"
	"repeat: { boots: 2, runs_per_boot: 1 }\n"
	"hosts:\n"
	"  - { uri: \"" H1 "\", capacity: 3 }\n"
	"  - " H2 "\n";

static const char model_text[] = "metric: read_iops\n"
				 "base: 1000\n"
				 "noise: { boot_cv: 0.03, run_cv: 0.01 }\n"
				 "effects:\n"
				 "  - { when: { A: y }, factor: 0.5 }\n"
				 "seed: 3\n";

struct fixture {
	struct kb_matrix *m;
	struct kb_plan *p;
	struct kb_model *model;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	unsetenv("KBISECT_OVERLAP");
	if (!f ||
	    kb_matrix_parse_buffer(matrix_text, strlen(matrix_text),
				   "runner.yaml", &f->m, &err) ||
	    kb_plan_new(f->m, &f->p, &err) ||
	    kb_model_parse_buffer(model_text, strlen(model_text),
				  "runner.model.yaml", &f->model, &err)) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_model_free(f->model);
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	free(f);
	unsetenv("KBISECT_OVERLAP");
	return 0;
}

static void test_runner__hosts_get_a_slot_per_unit_of_capacity(void **state)
{
	struct fixture *f = *state;
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;
	struct kb_pipeline_opts po = KB_PIPELINE_OPTS_INIT;
	struct kb_runner *r = NULL;
	struct kb_err err = KB_ERR_INIT;

	o.model = f->model;
	if (kb_runner_open_hosts(f->p, &o, &r, &err))
		fail_msg("%s", err.msg);
	kb_runner_pipeline_opts(r, &po);
	assert_int_equal(po.nhosts, 2);
	assert_string_equal(po.hosts[0].uri, H1);
	assert_int_equal(po.hosts[0].nslots, 3);
	assert_int_equal(po.hosts[1].nslots, 1);
	assert_null(po.hosts[0].down);
	/* the model's executor is thread-safe: one fills a host's slots */
	assert_ptr_equal(po.hosts[0].slots[0], po.hosts[0].slots[2]);
	assert_ptr_not_equal(po.hosts[0].slots[0], po.hosts[1].slots[0]);
	/* every host is another machine: builds overlap boots */
	assert_int_equal(po.overlap, 1);
	assert_non_null(kb_runner_builder(r));
	assert_null(kb_runner_boots(r));
	assert_int_equal(*kb_runner_experiment(r), 0);
	kb_runner_free(r);
}

static void test_runner__overlap_from_the_environment(void **state)
{
	struct fixture *f = *state;
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;
	struct kb_pipeline_opts po = KB_PIPELINE_OPTS_INIT;
	struct kb_runner *r = NULL;
	struct kb_err err = KB_ERR_INIT;

	o.model = f->model;
	setenv("KBISECT_OVERLAP", "no", 1);
	if (kb_runner_open_hosts(f->p, &o, &r, &err))
		fail_msg("%s", err.msg);
	kb_runner_pipeline_opts(r, &po);
	assert_int_equal(po.overlap, 0);
	kb_runner_free(r);
	setenv("KBISECT_OVERLAP", "often", 1);
	assert_int_equal(kb_runner_open_hosts(f->p, &o, &r, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "KBISECT_OVERLAP='often'");
	assert_null(r);
}

static void test_runner__a_model_without_the_metric_is_refused(void **state)
{
	struct fixture *f = *state;
	static const char other[] = "metric: write_iops\nbase: 10\n";
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;
	struct kb_runner *r = NULL;
	struct kb_model *model = NULL;
	struct kb_err err = KB_ERR_INIT;

	if (kb_model_parse_buffer(other, strlen(other), "other.yaml", &model,
				  &err))
		fail_msg("%s", err.msg);
	o.model = model;
	assert_int_not_equal(kb_runner_open_hosts(f->p, &o, &r, &err), 0);
	assert_msg_contains(err.msg, "read_iops");
	assert_null(r);
	kb_model_free(model);
}

static void test_runner__added_boots_go_over_every_host(void **state)
{
	struct fixture *f = *state;
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;
	struct kb_runner *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_build_result b;
	struct kb_boot_result res;
	const struct kb_variant *v = kb_plan_variant(f->p, 1);

	o.model = f->model;
	if (kb_runner_open_boots(f->m, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_non_null(kb_runner_boots(r));
	memset(&b, 0, sizeof(b));
	memset(&res, 0, sizeof(res));
	if (kb_executor_build(kb_runner_boots(r), v, &b, &err) ||
	    kb_executor_boot(kb_runner_boots(r), v, &b, 1, 1, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.status, KB_BOOT_OK);
	/* a matrix of several hosts: the boot says where it ran */
	assert_non_null(res.host);
	assert_true(!strcmp(res.host, H1) || !strcmp(res.host, H2));
	kb_boot_result_release(&res);
	kb_build_result_release(&b);
	kb_runner_free(r);
}

static void test_runner__the_model_alone_builds_and_boots(void **state)
{
	struct fixture *f = *state;
	struct kb_runner *r = NULL;
	struct kb_err err = KB_ERR_INIT;

	if (kb_runner_open_model(f->model, &r, &err))
		fail_msg("%s", err.msg);
	assert_non_null(kb_runner_builder(r));
	assert_null(kb_runner_boots(r));
	kb_runner_free(r);
	setenv("KBISECT_MODEL_TIME_SCALE", "-1", 1);
	assert_int_not_equal(kb_runner_open_model(f->model, &r, &err), 0);
	assert_null(r);
	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
}

static void test_runner__the_daemons_step_executor(void **state)
{
	struct fixture *f = *state;
	static const char real_text[] = "name: real\n"
					"workload:\n"
					"  fio: { rw: randread }\n"
					"  metric: read_iops\n"
					"hosts: [ \"test:///default\" ]\n";
	struct kb_matrix *m = NULL;
	struct kb_executor *ex = NULL;
	struct kb_guest_conn *conn = NULL;
	struct kb_err err = KB_ERR_INIT;
	int64_t exp = 7;

	/* on the model: no connection */
	if (kb_runner_step(f->m, f->p, f->model, 0, H2, &exp, NULL, &ex,
			   &conn, &err))
		fail_msg("%s", err.msg);
	assert_non_null(ex);
	assert_null(conn);
	kb_executor_free(ex);
	/* on libvirt's test driver: a build's executor on the first host
	 * that answers, and its connection */
	if (kb_matrix_parse_buffer(real_text, strlen(real_text), "real.yaml",
				   &m, &err))
		fail_msg("%s", err.msg);
	if (kb_runner_step(m, NULL, NULL, 0, NULL, &exp, "abc123", &ex, &conn,
			   &err))
		fail_msg("%s", err.msg);
	assert_non_null(ex);
	assert_non_null(conn);
	kb_executor_free(ex);
	kb_runner_conn_free(conn);
	kb_matrix_free(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(
		test_runner__hosts_get_a_slot_per_unit_of_capacity, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_runner__overlap_from_the_environment, setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_runner__a_model_without_the_metric_is_refused, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_runner__added_boots_go_over_every_host, setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_runner__the_model_alone_builds_and_boots, setup,
		teardown),
	cmocka_unit_test_setup_teardown(
		test_runner__the_daemons_step_executor, setup, teardown),
};

KB_TEST_MAIN(tests)
