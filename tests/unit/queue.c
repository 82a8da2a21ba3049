#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "mem.h"
#include "queue.h"
#include "store.h"

/*
 * The daemon's queue: submissions become jobs, jobs are leased, steps
 * store their result with their job's end, leases expire and are taken
 * back, cancel and failure end an experiment.  Every test has its own
 * database in a folder under /tmp; times are given, not read, so that
 * lease expiry is exact.
 */

#define MATRIX_ORDER(order)                                                   \
	"name: q\n"                                              \
	"factors:\n"                                             \
	"  kconfig:\n"                                           \
	"    PARAVIRT_SPINLOCKS: [y, n]\n"                       \
	"workload:\n"                                            \
	"  fio: { rw: randread }\n"                              \
	"  metric: read_iops\n"                                  \
	"repeat: { boots: 2, runs_per_boot: 3" order " }\n"
/* 2 variants in blocks (the default), 2 boots each */
#define MATRIX MATRIX_ORDER("")
#define MODEL "metric: read_iops\nbase: 1000\nseed: 3\n"

#define A "host-a:1:0000000000000001"
#define B "host-b:2:0000000000000002"

struct fixture {
	char *dir;
	char *path;
	struct kb_store *s;
};

static int setup(void **state)
{
	struct fixture *f = kb_calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	f->dir = kb_test_tmpdir("queue");
	f->path = kb_asprintf("%s/kbisect.db", f->dir);
	if (kb_store_open(f->path, NULL, &f->s, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static int64_t submit(struct kb_store *s, const char *matrix,
		      const char *model)
{
	struct kb_queue_submission sub = { matrix, "/tmp/q.yaml", model };
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;

	if (kb_queue_submit(s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	assert_true(id > 0);
	return id;
}

static int claim(struct kb_store *s, const char *owner, int64_t now,
		 enum kb_store_job_kind kind, struct kb_store_job *j)
{
	struct kb_store_claim c = { owner, now, 10, kind, 0, "test:///x" };
	struct kb_err err = KB_ERR_INIT;
	int ret = kb_store_job_claim(s, &c, j, &err);

	if (ret && ret != KB_ENOTFOUND)
		fail_msg("claim: %s", err.msg);
	return ret;
}

static struct kb_store_progress progress(struct kb_store *s, int64_t id)
{
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;

	if (kb_store_progress_get(s, id, &p, &err))
		fail_msg("progress: %s", err.msg);
	return p;
}

/* Run job @j of experiment @id as the daemon's step thread does. */
static int run(struct kb_store *s, int64_t id, const struct kb_store_job *j,
	       const char *owner, struct kb_err *err)
{
	struct kb_queue_exp *x = NULL;
	struct kb_executor *ex = NULL;
	void *conn = NULL;
	int ret;

	if ((ret = kb_queue_exp_load(s, id, 0, &x, err)))
		fail_msg("load: %s", err->msg);
	if ((ret = kb_queue_exp_executor(x, NULL, &ex, &conn, err)))
		fail_msg("executor: %s", err->msg);
	assert_null(conn);
	if (j->kind == KB_STORE_JOB_BUILD)
		ret = kb_queue_run_build(s, x, j, owner, ex, err);
	else
		ret = kb_queue_run_boot(s, x, j, owner, ex, err);
	kb_executor_free(ex);
	kb_queue_exp_free(x);
	return ret;
}

/* Claim and run everything ready, builds first; returns steps run. */
static unsigned run_all(struct kb_store *s, int64_t id, int64_t now)
{
	struct kb_store_job j;
	struct kb_err err = KB_ERR_INIT;
	unsigned n = 0;

	for (;;) {
		if (claim(s, A, now, KB_STORE_JOB_BUILD, &j) &&
		    claim(s, A, now, KB_STORE_JOB_BOOT, &j))
			return n;
		if (run(s, id, &j, A, &err))
			fail_msg("step: %s", err.msg);
		kb_store_job_release(&j);
		n++;
	}
}

static char *settle(struct kb_store *s, int64_t id)
{
	struct kb_err err = KB_ERR_INIT;
	char *state = NULL;

	if (kb_store_experiment_settle(s, id, &state, &err))
		fail_msg("settle: %s", err.msg);
	return state;
}

static void test_queue__submit_is_queued_with_one_job_per_step(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_progress p = progress(f->s, id);

	assert_string_equal(p.state, "queued");
	assert_string_equal(p.executor, "model");
	assert_true(p.has_jobs);
	assert_int_equal(p.variants_total, 2);
	assert_int_equal(p.builds_total, 2);
	assert_int_equal(p.boots_total, 4);
	assert_int_equal(p.boots_done, 0);
	assert_true(isnan(p.boot_mean_s));
	assert_null(p.current);
	kb_store_progress_release(&p);
}

static void test_queue__bad_submission_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission bad = { "name: x\nfrobnicate: 1\n",
					   "bad.yaml", NULL };
	struct kb_queue_submission metric = { MATRIX, "m.yaml",
					      "metric: real_s\nbase: 1\n" };
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 7, *ids = NULL;
	size_t n = 9;

	assert_int_equal(kb_queue_submit(f->s, &bad, &id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "bad.yaml:");
	assert_int_equal(id, 0);
	kb_err_clear(&err);
	assert_int_equal(kb_queue_submit(f->s, &metric, &id, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "the model produces 'real_s'");
	assert_int_equal(kb_store_progress_recent(f->s, 10, &ids, &n, &err),
			 0);
	assert_int_equal(n, 0);
	free(ids);
}

/* 2 variants that may reach 1000 boots of 600 runs: 1.2 million samples */
#define BIG                                                      \
	"name: big\n"                                            \
	"factors: { kconfig: { PARAVIRT_SPINLOCKS: [y, n] } }\n"  \
	"workload: { fio: { rw: randread }, metric: read_iops }\n" \
	"repeat: { boots: 1, max_boots: 1000, runs_per_boot: 600 }\n"

static void test_queue__submission_over_the_caps_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission big = { BIG, "/tmp/big.yaml", MODEL };
	struct kb_plan_limits lim = KB_PLAN_LIMITS_INIT;
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 7, *ids = NULL;
	size_t n = 9;

	/* what a raw SUBMIT gets: the caps `kbisect submit` checks */
	assert_int_equal(kb_queue_submit(f->s, &big, &id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "/tmp/big.yaml: 2000 boots x 600 runs per boot = 1200000 samples");
	assert_msg_contains(err.msg, "--max-samples 1200000");
	assert_int_equal(id, 0);
	assert_int_equal(kb_store_progress_recent(f->s, 10, &ids, &n, &err),
			 0);
	assert_int_equal(n, 0);
	free(ids);
	/* a client that raised the cap */
	kb_err_clear(&err);
	lim.max_samples = 1200000;
	assert_int_equal(kb_queue_submit_limited(f->s, &big, &lim, &id, &err),
			 0);
	assert_true(id > 0);
}

static void test_queue__boot_waits_for_its_build(void **state)
{
	struct fixture *f = *state;
	/* sequential: a variant's boots wait for its build alone */
	int64_t id = submit(f->s, MATRIX_ORDER(", order: sequential"), MODEL);
	struct kb_store_job b, j;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_progress p;

	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BOOT, &j),
			 KB_ENOTFOUND);
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &b), 0);
	assert_int_equal(b.kind, KB_STORE_JOB_BUILD);
	assert_int_equal(b.attempts, 1);
	/* leased but not done: its boots still wait */
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BOOT, &j),
			 KB_ENOTFOUND);
	p = progress(f->s, id);
	assert_string_equal(p.state, "running");
	assert_int_equal(p.builds_running, 1);
	assert_non_null(p.current);
	assert_msg_contains(p.current, "build #");
	kb_store_progress_release(&p);

	assert_int_equal(run(f->s, id, &b, A, &err), 0);
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BOOT, &j), 0);
	assert_int_equal(j.variant_idx, b.variant_idx);
	assert_int_equal(j.boot_no, 1);
	assert_string_equal(j.host, "test:///x");
	kb_store_job_release(&j);
	kb_store_job_release(&b);
}

/* In blocks every kernel is built before the first boot. */
static void test_queue__in_blocks_boots_wait_for_every_build(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job b, j;
	struct kb_err err = KB_ERR_INIT;

	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &b), 0);
	assert_int_equal(run(f->s, id, &b, A, &err), 0);
	kb_store_job_release(&b);
	/* one of the two built: no boot yet */
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BOOT, &j),
			 KB_ENOTFOUND);
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &b), 0);
	assert_int_equal(run(f->s, id, &b, A, &err), 0);
	kb_store_job_release(&b);
	/* both: round 1 starts */
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BOOT, &j), 0);
	assert_int_equal(j.boot_no, 1);
	kb_store_job_release(&j);
}

static void test_queue__boots_go_round_by_round(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job j[4];
	struct kb_err err = KB_ERR_INIT;
	int i;

	for (i = 0; i < 2; i++) {
		assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BUILD, &j[0]),
				 0);
		assert_int_equal(run(f->s, id, &j[0], A, &err), 0);
		kb_store_job_release(&j[0]);
	}
	assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BUILD, &j[0]),
			 KB_ENOTFOUND);
	for (i = 0; i < 4; i++)
		assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BOOT, &j[i]),
				 0);
	/* every variant's boot 1 before any boot 2 */
	assert_int_equal(j[0].boot_no, 1);
	assert_int_equal(j[1].boot_no, 1);
	assert_int_not_equal(j[0].variant_idx, j[1].variant_idx);
	assert_int_equal(j[2].boot_no, 2);
	assert_int_equal(j[3].boot_no, 2);
	for (i = 0; i < 4; i++)
		kb_store_job_release(&j[i]);
}

static void test_queue__expired_lease_is_taken_over(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job a1, a2, b1;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_progress p;

	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &a1), 0);
	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &a2), 0);
	/* both leased until 1010: nothing for B at 1005 */
	assert_int_equal(claim(f->s, B, 1005, KB_STORE_JOB_BUILD, &b1),
			 KB_ENOTFOUND);
	/* A renews at 1008 until 1018; at 1015 still nothing */
	assert_int_equal(kb_store_job_renew(f->s, A, 1008, 10, NULL, &err),
			 0);
	assert_int_equal(claim(f->s, B, 1015, KB_STORE_JOB_BUILD, &b1),
			 KB_ENOTFOUND);
	/* at 1019 A's leases have lapsed: B takes the first */
	assert_int_equal(claim(f->s, B, 1019, KB_STORE_JOB_BUILD, &b1), 0);
	assert_int_equal(b1.id, a1.id);
	assert_int_equal(b1.attempts, 2);
	/* A finishing late records nothing */
	assert_int_equal(kb_store_job_done(f->s, a1.id, A, 1.0, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "no longer leased");
	kb_err_clear(&err);
	assert_int_equal(kb_store_job_done(f->s, b1.id, B, 1.0, &err), 0);
	p = progress(f->s, id);
	assert_int_equal(p.builds_done, 1);
	kb_store_progress_release(&p);
	kb_store_job_release(&a1);
	kb_store_job_release(&a2);
	kb_store_job_release(&b1);
}

static void test_queue__restart_takes_back_dead_leases(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job a, b;
	struct kb_err err = KB_ERR_INIT;
	unsigned n = 0;

	assert_int_equal(claim(f->s, A, 1000, KB_STORE_JOB_BUILD, &a), 0);
	/* B starts (holding the daemon lock): A's lease goes, unexpired */
	assert_int_equal(kb_store_job_release_others(f->s, B, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(claim(f->s, B, 1001, KB_STORE_JOB_BUILD, &b), 0);
	assert_int_equal(b.id, a.id);
	/* B's own leases are kept */
	assert_int_equal(kb_store_job_release_others(f->s, B, &n, &err), 0);
	assert_int_equal(n, 0);
	(void)id;
	kb_store_job_release(&a);
	kb_store_job_release(&b);
}

static void test_queue__redone_boot_is_stored_once(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job a, b;
	struct kb_store_variant *v = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i, total = 0;
	unsigned k;

	/* builds done; A leases boot 1 of the first variant and "dies" */
	while (claim(f->s, A, 1, KB_STORE_JOB_BUILD, &a) == 0) {
		assert_int_equal(run(f->s, id, &a, A, &err), 0);
		kb_store_job_release(&a);
	}
	assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BOOT, &a), 0);
	assert_int_equal(kb_store_job_release_others(f->s, B, &k, &err), 0);
	assert_int_equal(k, 1);
	/* B redoes it and stores it */
	assert_int_equal(claim(f->s, B, 2, KB_STORE_JOB_BOOT, &b), 0);
	assert_int_equal(b.id, a.id);
	assert_int_equal(run(f->s, id, &b, B, &err), 0);
	/* A, not dead after all, ends the same boot: refused, no row */
	assert_int_equal(run(f->s, id, &a, A, &err), KB_ENOTFOUND);
	kb_err_clear(&err);
	assert_int_equal(kb_store_variants(f->s, id, "read_iops", &v, &n,
					   &err),
			 0);
	for (i = 0; i < n; i++) {
		total += v[i].nboots;
		kb_store_variant_release(&v[i]);
	}
	free(v);
	assert_int_equal(total, 1);
	kb_store_job_release(&a);
	kb_store_job_release(&b);
}

static void test_queue__all_steps_done_ends_done(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_variant *v = NULL;
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	char *st;

	st = settle(f->s, id);
	assert_string_equal(st, "queued");
	free(st);
	assert_int_equal(run_all(f->s, id, 50), 6);
	st = settle(f->s, id);
	assert_string_equal(st, "done");
	free(st);
	p = progress(f->s, id);
	assert_int_equal(p.variants_done, 2);
	assert_int_equal(p.boots_done, 4);
	assert_false(isnan(p.boot_mean_s));
	assert_true(kb_queue_eta(&p, 1, 1) == 0);
	kb_store_progress_release(&p);
	assert_int_equal(kb_store_variants(f->s, id, "read_iops", &v, &n,
					   &err),
			 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_int_equal(v[i].nboots, 2);
		kb_store_variant_release(&v[i]);
	}
	free(v);
	/* a second submission of the same matrix reuses the builds */
	id = submit(f->s, MATRIX, MODEL);
	assert_int_equal(run_all(f->s, id, 60), 6);
	st = settle(f->s, id);
	assert_string_equal(st, "done");
	free(st);
}

static void test_queue__cancel_lets_the_running_step_end(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job j;
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;
	int64_t job;
	char *st;

	assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BUILD, &j), 0);
	assert_int_equal(kb_store_experiment_cancel(f->s, id, &err), 0);
	st = settle(f->s, id);
	assert_string_equal(st, "running"); /* its build still runs */
	free(st);
	p = progress(f->s, id);
	assert_true(p.cancel_requested);
	kb_store_progress_release(&p);
	/* nothing new starts; the running step ends and is kept */
	job = j.id;
	kb_store_job_release(&j);
	assert_int_equal(claim(f->s, A, 2, KB_STORE_JOB_BUILD, &j),
			 KB_ENOTFOUND);
	assert_int_equal(kb_store_job_done(f->s, job, A, 0.5, &err), 0);
	st = settle(f->s, id);
	assert_string_equal(st, "cancelled");
	free(st);
	p = progress(f->s, id);
	assert_int_equal(p.builds_done, 1);
	kb_store_progress_release(&p);
	assert_int_equal(kb_store_experiment_cancel(f->s, id, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "already cancelled");
	kb_err_clear(&err);
	assert_int_equal(kb_store_experiment_cancel(f->s, 999, &err),
			 KB_ENOTFOUND);
}

static void test_queue__failed_step_fails_the_experiment(void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job j;
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;
	char *st;

	assert_int_equal(claim(f->s, A, 1, KB_STORE_JOB_BUILD, &j), 0);
	assert_int_equal(kb_store_job_fail(f->s, j.id, A, "disk full", &err),
			 0);
	kb_store_job_release(&j);
	st = settle(f->s, id);
	assert_string_equal(st, "failed");
	free(st);
	p = progress(f->s, id);
	assert_string_equal(p.error, "disk full");
	kb_store_progress_release(&p);
	assert_int_equal(claim(f->s, A, 2, KB_STORE_JOB_BUILD, &j),
			 KB_ENOTFOUND);
}

static void test_queue__run_experiments_are_left_alone(void **state)
{
	struct fixture *f = *state;
	struct kb_variant v;
	struct kb_store_experiment e;
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0, *ids = NULL;
	size_t n = 9;
	char *st;

	memset(&v, 0, sizeof(v));
	v.label = "base";
	v.build_key = "k";
	memset(&e, 0, sizeof(e));
	e.name = "in-process";
	e.matrix_text = "name: in-process\n";
	e.boots = e.runs_per_boot = 1;
	e.nvariants = 1;
	e.variants = &v;
	assert_int_equal(kb_store_experiment_create(f->s, &e, &id, &err), 0);
	/* `kbisect run` is running it: no jobs, so never ours */
	st = settle(f->s, id);
	assert_string_equal(st, "running");
	free(st);
	assert_int_equal(kb_store_experiment_cancel(f->s, id, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "'kbisect run' process");
	assert_int_equal(kb_store_queue_experiments(f->s, &ids, &n, &err), 0);
	assert_int_equal(n, 0);
	free(ids);
}

static void test_queue__eta_from_measured_step_times(void **state)
{
	struct kb_store_progress p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.state = "running";
	p.builds_total = 4;
	p.builds_done = 2;
	p.boots_total = 40;
	p.boots_done = 10;
	p.build_mean_s = 100;
	p.boot_mean_s = NAN;
	assert_true(isnan(kb_queue_eta(&p, 1, 2)));
	p.boot_mean_s = 10;
	/* 2 builds x 100 s + 30 boots x 10 s over 2 hosts */
	assert_true(fabs(kb_queue_eta(&p, 1, 2) - 350) < 1e-9);
	p.builds_done = 4;
	assert_true(fabs(kb_queue_eta(&p, 1, 3) - 100) < 1e-9);
	p.state = "done";
	assert_true(kb_queue_eta(&p, 1, 3) == 0);
}

/* With every host drained (no boot slot) the boots left can start at
 * no known time: the ETA is unknown, not a guess. */
static void test_queue__eta_without_a_live_host_is_unknown(void **state)
{
	struct kb_store_progress p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.state = "running";
	p.boots_total = 10;
	p.boots_done = 4;
	p.boot_mean_s = 10;
	assert_true(fabs(kb_queue_eta(&p, 1, 2) - 30) < 1e-9);
	assert_true(isnan(kb_queue_eta(&p, 1, 0)));
	/* nothing left to boot: known */
	p.boots_done = 10;
	assert_true(kb_queue_eta(&p, 1, 0) == 0);
}

static void test_queue__instance_ids_differ(void **state)
{
	char *a = kb_queue_instance_id(), *b = kb_queue_instance_id();

	(void)state;
	assert_string_not_equal(a, b);
	assert_non_null(strchr(a, ':'));
	free(a);
	free(b);
}

/* What a raw SUBMIT gives the daemon goes through the matrix loader:
 * a newline in a fio value is refused where it was written, as by plan
 * and run, and nothing is queued. */
static void test_queue__newline_in_fio_value_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = {
		"workload:\n  fio:\n    rw: \"randread\\nexec_prerun=reboot\"\n",
		"raw.yaml", NULL
	};
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 7, *ids = NULL;
	size_t n = 9;

	assert_int_equal(kb_queue_submit(f->s, &sub, &id, &err), KB_EINPUT);
	assert_string_equal(err.msg,
			    "raw.yaml:3:9: a fio option value contains a control character (U+000A, a newline)");
	assert_int_equal(id, 0);
	assert_int_equal(kb_store_progress_recent(f->s, 10, &ids, &n, &err),
			 0);
	assert_int_equal(n, 0);
	free(ids);
}

/* A raw SUBMIT of a real run (no model) that has no kernel for a variant,
 * or a host URI that runs a program here, is refused before anything
 * is stored, as submit and run refuse it. */
static void test_queue__real_run_without_kernel_or_with_ext_host_is_refused(
	void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission nosrc = { MATRIX, "raw.yaml", NULL };
	struct kb_queue_submission ext = {
		MATRIX "source: { tree: /tmp }\nhosts: [\"test+ext:///default?command=/bin/true\"]\n",
		"raw.yaml", NULL
	};
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 7, *ids = NULL;
	size_t n = 9;

	unsetenv("KBISECT_TRUST_MATRIX");
	assert_int_equal(kb_queue_submit(f->s, &nosrc, &id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "raw.yaml: variant 0 (PARAVIRT_SPINLOCKS=y) needs a kernel built from source, and the matrix has no source.tree");
	assert_int_equal(id, 0);
	kb_err_clear(&err);
	assert_int_equal(kb_queue_submit(f->s, &ext, &id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "is refused: the ext transport runs a program on this machine");
	assert_int_equal(id, 0);
	assert_int_equal(kb_store_progress_recent(f->s, 10, &ids, &n, &err),
			 0);
	assert_int_equal(n, 0);
	free(ids);
}

static void assert_ids(const int64_t *ids, size_t n, const int64_t *want,
		       size_t nwant)
{
	size_t i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);
}

static void test_queue__experiments_after_lists_newer_live_ones(void **state)
{
	struct fixture *f = *state;
	int64_t a = submit(f->s, MATRIX, MODEL);
	int64_t b = submit(f->s, MATRIX, MODEL);
	int64_t c = submit(f->s, MATRIX, MODEL);
	struct kb_err err = KB_ERR_INIT;
	int64_t *ids = NULL;
	size_t n = 0;
	char *st;
	int live = -1;

	/* b ends: it leaves the queue */
	assert_int_equal(kb_store_experiment_cancel(f->s, b, &err), 0);
	st = settle(f->s, b);
	assert_string_equal(st, "cancelled");
	free(st);
	assert_int_equal(kb_store_queue_experiments_after(f->s, 0, 0, &ids, &n,
							  &err),
			 0);
	assert_ids(ids, n, (int64_t[]){ a, c }, 2);
	free(ids);
	assert_int_equal(kb_store_queue_experiments_after(f->s, a, 0, &ids, &n,
							  &err),
			 0);
	assert_ids(ids, n, (int64_t[]){ c }, 1);
	free(ids);
	/* at most max, oldest first */
	assert_int_equal(kb_store_queue_experiments_after(f->s, 0, 1, &ids, &n,
							  &err),
			 0);
	assert_ids(ids, n, (int64_t[]){ a }, 1);
	free(ids);
	assert_int_equal(kb_store_queue_experiments_after(f->s, c, 0, &ids, &n,
							  &err),
			 0);
	assert_int_equal(n, 0);
	free(ids);
	assert_int_equal(kb_store_queue_has(f->s, a, &live, &err), 0);
	assert_int_equal(live, 1);
	assert_int_equal(kb_store_queue_has(f->s, b, &live, &err), 0);
	assert_int_equal(live, 0);
	assert_int_equal(kb_store_queue_has(f->s, 999, &live, &err), 0);
	assert_int_equal(live, 0);
}

/* Lease a job of @kind of experiment @exp for @owner at @now (10 s). */
static int claim_of(struct kb_store *s, int64_t exp, const char *owner,
		    int64_t now, enum kb_store_job_kind kind,
		    struct kb_store_job *j)
{
	struct kb_store_claim c = { owner, now, 10, kind, exp, NULL };
	struct kb_err err = KB_ERR_INIT;
	int ret = kb_store_job_claim(s, &c, j, &err);

	if (ret && ret != KB_ENOTFOUND)
		fail_msg("claim: %s", err.msg);
	return ret;
}

static void test_queue__lapsed_names_experiments_whose_lease_lapsed(
	void **state)
{
	struct fixture *f = *state;
	int64_t a = submit(f->s, MATRIX, MODEL);
	int64_t b = submit(f->s, MATRIX, MODEL);
	struct kb_store_job ja, ja2, jb;
	struct kb_err err = KB_ERR_INIT;
	int64_t *ids = NULL;
	size_t n = 0;

	/* a's two builds until 1010, b's first until 1015 */
	assert_int_equal(claim_of(f->s, a, A, 1000, KB_STORE_JOB_BUILD, &ja),
			 0);
	assert_int_equal(claim_of(f->s, a, A, 1000, KB_STORE_JOB_BUILD, &ja2),
			 0);
	assert_int_equal(ja.experiment, a);
	assert_int_equal(claim_of(f->s, b, B, 1005, KB_STORE_JOB_BUILD, &jb),
			 0);
	assert_int_equal(jb.experiment, b);
	assert_int_equal(kb_store_queue_lapsed(f->s, 1009, &ids, &n, &err), 0);
	assert_int_equal(n, 0);
	free(ids);
	/* each experiment once */
	assert_int_equal(kb_store_queue_lapsed(f->s, 1011, &ids, &n, &err), 0);
	assert_ids(ids, n, (int64_t[]){ a }, 1);
	free(ids);
	assert_int_equal(kb_store_queue_lapsed(f->s, 1016, &ids, &n, &err), 0);
	assert_ids(ids, n, (int64_t[]){ a, b }, 2);
	free(ids);
	/* a lease taken back is no longer lapsed */
	kb_store_job_release(&jb);
	assert_int_equal(claim_of(f->s, b, A, 1016, KB_STORE_JOB_BUILD, &jb),
			 0);
	assert_int_equal(kb_store_queue_lapsed(f->s, 1016, &ids, &n, &err), 0);
	assert_ids(ids, n, (int64_t[]){ a }, 1);
	free(ids);
	kb_store_job_release(&ja);
	kb_store_job_release(&ja2);
	kb_store_job_release(&jb);
}

/* A claim that finds nothing and a settle that changes nothing read
 * without the write lock: they do not wait for a writer (a step
 * committing its boot) to finish. */
static void test_queue__claim_and_settle_finding_nothing_do_not_wait(
	void **state)
{
	struct fixture *f = *state;
	int64_t id = submit(f->s, MATRIX, MODEL);
	struct kb_store_job j;
	sqlite3 *db = NULL;
	double t0;
	char *st;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	t0 = kb_monotime();
	/* no boot is ready before its build */
	assert_int_equal(claim_of(f->s, id, A, 1, KB_STORE_JOB_BOOT, &j),
			 KB_ENOTFOUND);
	st = settle(f->s, id);
	assert_string_equal(st, "queued");
	free(st);
	/* the busy timeout is 5 s */
	assert_true(kb_monotime() - t0 < 2.0);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	/* and once the writer is gone, a claim that finds one leases it */
	assert_int_equal(claim_of(f->s, id, A, 1, KB_STORE_JOB_BUILD, &j), 0);
	kb_store_job_release(&j);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_queue__submit_is_queued_with_one_job_per_step),
		T(test_queue__bad_submission_writes_nothing),
		T(test_queue__submission_over_the_caps_writes_nothing),
		T(test_queue__newline_in_fio_value_is_refused),
		T(test_queue__real_run_without_kernel_or_with_ext_host_is_refused),
		T(test_queue__boot_waits_for_its_build),
		T(test_queue__in_blocks_boots_wait_for_every_build),
		T(test_queue__boots_go_round_by_round),
		T(test_queue__expired_lease_is_taken_over),
		T(test_queue__restart_takes_back_dead_leases),
		T(test_queue__redone_boot_is_stored_once),
		T(test_queue__all_steps_done_ends_done),
		T(test_queue__cancel_lets_the_running_step_end),
		T(test_queue__failed_step_fails_the_experiment),
		T(test_queue__run_experiments_are_left_alone),
		T(test_queue__experiments_after_lists_newer_live_ones),
		T(test_queue__lapsed_names_experiments_whose_lease_lapsed),
		T(test_queue__claim_and_settle_finding_nothing_do_not_wait),
		cmocka_unit_test(test_queue__eta_from_measured_step_times),
		cmocka_unit_test(test_queue__eta_without_a_live_host_is_unknown),
		cmocka_unit_test(test_queue__instance_ids_differ),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, NULL, NULL);
}
