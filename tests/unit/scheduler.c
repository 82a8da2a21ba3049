#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "fsutil.h"
#include "executor.h"
#include "mem.h"
#include "queue.h"
#include "scheduler.h"
#include "store.h"
#include "store_int.h"

/*
 * The daemon's scheduler: what it starts given its build slots, host
 * capacities, max steps and the leases in the store.  Each test has its
 * own database in a folder under /tmp and submits model experiments, so
 * that steps run here, at once (time scale 0), as the daemon's worker
 * threads run them; times are given, not read, so that lease expiry is
 * exact.
 */

/* 4 variants, each its own build key; 2 boots each: 4 builds, 8 boots */
#define MATRIX_ORDER(order)                                                   \
	"name: s\n"                                              \
	"factors:\n"                                             \
	"  kconfig:\n"                                           \
	"    PARAVIRT_SPINLOCKS: [y, n]\n"                       \
	"    HZ_1000: [y, n]\n"                                  \
	"workload:\n"                                            \
	"  fio: { rw: randread }\n"                              \
	"  metric: read_iops\n"                                  \
	"repeat: { boots: 2, runs_per_boot: 1" order " }\n"         \
	"hosts:\n"                                               \
	"  - uri: test:///a\n"                                   \
	"    capacity: 2\n"                                      \
	"  - uri: test:///b\n"
/* 4 variants in blocks (the default), 2 boots each, 2 hosts */
#define MATRIX MATRIX_ORDER("")
/* one variant, one build, 3 boots on one host of capacity 1 */
#define AA                                                       \
	"name: aa\n"                                             \
	"workload:\n"                                            \
	"  fio: { rw: randread }\n"                              \
	"  metric: read_iops\n"                                  \
	"repeat: { boots: 3, runs_per_boot: 1 }\n"               \
	"hosts: [test:///a]\n"
#define MODEL "metric: read_iops\nbase: 1000\nseed: 3\n"

#define A "host-a:1:0000000000000001"
#define B "host-b:2:0000000000000002"
#define HOST_A "test:///a"
#define HOST_B "test:///b"
#define MAX 16

/* What the scheduler told, for the tests to look at. */
struct notes {
	unsigned loaded, ended, errors;
	int64_t loaded_ids[4];
	int64_t ended_id;
	char state[16];
};

struct fixture {
	char *dir;
	char *path;
	struct kb_store *s;
	struct notes notes;
};

static void on_note(const struct kb_sched_note *n, void *arg)
{
	struct notes *o = arg;

	switch (n->kind) {
	case KB_SCHED_NOTE_LOADED:
		assert_non_null(n->exp);
		assert_int_equal(kb_queue_exp_id(n->exp), n->id);
		if (o->loaded < 4)
			o->loaded_ids[o->loaded] = n->id;
		o->loaded++;
		break;
	case KB_SCHED_NOTE_ENDED:
		o->ended++;
		o->ended_id = n->id;
		snprintf(o->state, sizeof(o->state), "%s", n->state);
		break;
	case KB_SCHED_NOTE_ERROR:
		o->errors++;
		break;
	}
}

static int setup(void **state)
{
	struct fixture *f = kb_calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	f->dir = kb_test_tmpdir("sched");
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

static int64_t submit(struct fixture *f, const char *matrix)
{
	struct kb_queue_submission sub = { matrix, "/tmp/s.yaml", MODEL };
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;

	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	assert_true(id > 0);
	return id;
}

/* A scheduler for @owner with @build_jobs slots, @max steps, lease 10 s. */
static struct kb_sched *sched(struct fixture *f, const char *owner,
			      unsigned build_jobs, unsigned max)
{
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_sched *sc = NULL;

	o.store = f->s;
	o.owner = owner;
	o.build_jobs = build_jobs;
	o.max_steps = max;
	o.lease_s = 10;
	o.time_scale = 0;
	o.note = on_note;
	o.arg = &f->notes;
	if (kb_sched_new(&o, &sc, &err))
		fail_msg("new: %s", err.msg);
	return sc;
}

/* One pass at @now: every step there is room for, appended to st[*n]. */
static unsigned pass(struct kb_sched *sc, int64_t now,
		     struct kb_sched_step *st, size_t *n)
{
	struct kb_err err = KB_ERR_INIT;
	unsigned got = 0;
	int ret;

	if (kb_sched_refresh(sc, &err))
		fail_msg("refresh: %s", err.msg);
	for (;;) {
		assert_true(*n < MAX);
		ret = kb_sched_next(sc, now, &st[*n], &err);
		if (ret == KB_ENOTFOUND)
			return got;
		if (ret)
			fail_msg("next: %s", err.msg);
		(*n)++;
		got++;
	}
}

/* Run step @st as the daemon's worker thread does; returns its return. */
static int run(struct fixture *f, const struct kb_sched_step *st,
	       const char *owner)
{
	struct kb_executor *ex = NULL;
	struct kb_err err = KB_ERR_INIT;
	void *conn = NULL;
	int ret;

	if (kb_queue_exp_executor(st->exp, st->host, &ex, &conn, &err))
		fail_msg("executor: %s", err.msg);
	assert_null(conn);
	if (st->job.kind == KB_STORE_JOB_BUILD)
		ret = kb_queue_run_build(f->s, st->exp, &st->job, owner, ex,
					 &err);
	else
		ret = kb_queue_run_boot(f->s, st->exp, &st->job, owner, ex,
					&err);
	kb_executor_free(ex);
	return ret;
}

/* Run step st[i] to its end and give it back; st[0..n) stays packed. */
static void finish(struct fixture *f, struct kb_sched *sc,
		   struct kb_sched_step *st, size_t *n, size_t i)
{
	assert_true(i < *n);
	assert_int_equal(run(f, &st[i], A), 0);
	kb_sched_finished(sc, &st[i]);
	st[i] = st[--*n];
	memset(&st[*n], 0, sizeof(st[*n]));
}

static void release_all(struct kb_sched_step *st, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kb_store_job_release(&st[i].job);
}

static struct kb_store_progress progress(struct fixture *f, int64_t id)
{
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;

	if (kb_store_progress_get(f->s, id, &p, &err))
		fail_msg("progress: %s", err.msg);
	return p;
}

static unsigned count_kind(const struct kb_sched_step *st, size_t n,
			   enum kb_store_job_kind kind)
{
	unsigned k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += st[i].job.kind == kind;
	return k;
}

static void test_sched__host_never_gets_more_boots_than_its_capacity(
	void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 4, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0, i;
	unsigned on_a = 0, on_b = 0;

	memset(st, 0, sizeof(st));
	submit(f, MATRIX);
	/* four build slots: every build at once, no boot before them */
	assert_int_equal(pass(sc, 100, st, &n), 4);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD), 4);
	while (n)
		finish(f, sc, st, &n, 0);
	/* 8 boots ready: 2 on a (capacity 2), 1 on b (capacity 1) */
	assert_int_equal(pass(sc, 101, st, &n), 3);
	for (i = 0; i < n; i++) {
		assert_int_equal(st[i].job.kind, KB_STORE_JOB_BOOT);
		assert_non_null(st[i].host);
		assert_string_equal(st[i].job.host, st[i].host);
		on_a += !strcmp(st[i].host, HOST_A);
		on_b += !strcmp(st[i].host, HOST_B);
	}
	assert_int_equal(on_a, 2);
	assert_int_equal(on_b, 1);
	assert_int_equal(kb_sched_host_running(sc, HOST_A), 2);
	assert_int_equal(kb_sched_host_running(sc, HOST_B), 1);
	/* full: a pass starts nothing more */
	assert_int_equal(pass(sc, 102, st, &n), 0);
	/* a boot on a ends: exactly one more starts, on a */
	for (i = 0; strcmp(st[i].host, HOST_A); i++)
		;
	finish(f, sc, st, &n, i);
	assert_int_equal(kb_sched_host_running(sc, HOST_A), 1);
	assert_int_equal(pass(sc, 103, st, &n), 1);
	assert_string_equal(st[n - 1].host, HOST_A);
	assert_int_equal(kb_sched_host_running(sc, HOST_A), 2);
	/* to the end, never over capacity */
	while (n) {
		while (n)
			finish(f, sc, st, &n, 0);
		pass(sc, 104, st, &n);
		assert_true(kb_sched_host_running(sc, HOST_A) <= 2);
		assert_true(kb_sched_host_running(sc, HOST_B) <= 1);
	}
	assert_int_equal(kb_sched_running(sc), 0);
	assert_int_equal(f->notes.ended, 1);
	assert_string_equal(f->notes.state, "done");
	kb_sched_free(sc);
}

static void test_sched__one_build_slot_runs_one_build_at_a_time(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0;
	unsigned builds = 0;
	int64_t last = 0;

	memset(st, 0, sizeof(st));
	submit(f, MATRIX);
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(st[0].job.kind, KB_STORE_JOB_BUILD);
	assert_null(st[0].host);
	assert_int_equal(kb_sched_builds_running(sc), 1);
	/* the slot is taken: nothing more, though three builds wait */
	assert_int_equal(pass(sc, 101, st, &n), 0);
	/* one build at a time until all four are built; boots meanwhile */
	while (builds < 4) {
		size_t i;

		for (i = 0; st[i].job.kind != KB_STORE_JOB_BUILD; i++)
			;
		assert_true(st[i].job.id != last);
		last = st[i].job.id;
		finish(f, sc, st, &n, i);
		builds++;
		assert_int_equal(kb_sched_builds_running(sc), 0);
		pass(sc, 102, st, &n);
		assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD),
				 builds < 4 ? 1 : 0);
		assert_int_equal(kb_sched_builds_running(sc),
				 count_kind(st, n, KB_STORE_JOB_BUILD));
	}
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__two_build_slots_run_two_builds(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 2, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0;

	memset(st, 0, sizeof(st));
	submit(f, MATRIX);
	assert_int_equal(pass(sc, 100, st, &n), 2);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD), 2);
	assert_true(st[0].job.id != st[1].job.id);
	assert_int_equal(kb_sched_builds_running(sc), 2);
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__max_steps_caps_every_kind(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 4, 1);
	struct kb_sched_step st[MAX];
	size_t n = 0;

	memset(st, 0, sizeof(st));
	submit(f, MATRIX);
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(pass(sc, 101, st, &n), 0);
	assert_int_equal(kb_sched_running(sc), 1);
	finish(f, sc, st, &n, 0);
	assert_int_equal(pass(sc, 102, st, &n), 1);
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__boot_waits_for_its_build(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0, i;
	unsigned built;

	memset(st, 0, sizeof(st));
	/* sequential: a variant's boots wait for its build alone */
	submit(f, MATRIX_ORDER(", order: sequential"));
	/* the first build runs: no boot is ready */
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(st[0].job.kind, KB_STORE_JOB_BUILD);
	built = st[0].job.variant_idx;
	assert_int_equal(pass(sc, 101, st, &n), 0);
	/* it is done: the next build, and boots of its variant only */
	finish(f, sc, st, &n, 0);
	assert_int_equal(pass(sc, 102, st, &n), 3);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD), 1);
	for (i = 0; i < n; i++)
		if (st[i].job.kind == KB_STORE_JOB_BOOT)
			assert_int_equal(st[i].job.variant_idx, built);
	/* its two boots spread over the hosts: one on a, one on b */
	assert_int_equal(kb_sched_host_running(sc, HOST_A), 1);
	assert_int_equal(kb_sched_host_running(sc, HOST_B), 1);
	release_all(st, n);
	kb_sched_free(sc);
}

/* In blocks every kernel is built before the first boot. */
static void test_sched__in_blocks_boots_wait_for_every_build(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0, b;

	memset(st, 0, sizeof(st));
	submit(f, MATRIX);
	for (b = 0; b < 3; b++) {
		/* a build runs, then is done: still no boot */
		assert_int_equal(pass(sc, 100 + 2 * (int64_t)b, st, &n), 1);
		assert_int_equal(st[0].job.kind, KB_STORE_JOB_BUILD);
		finish(f, sc, st, &n, 0);
	}
	assert_int_equal(pass(sc, 110, st, &n), 1);
	assert_int_equal(st[0].job.kind, KB_STORE_JOB_BUILD);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BOOT), 0);
	finish(f, sc, st, &n, 0);
	/* the four built: round 1's boots start, on both hosts' slots */
	assert_true(pass(sc, 112, st, &n) > 0);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD), 0);
	assert_true(count_kind(st, n, KB_STORE_JOB_BOOT) > 0);
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__expired_lease_is_taken_back_and_runs_once(
	void **state)
{
	struct fixture *f = *state;
	struct kb_sched *a = sched(f, A, 1, MAX), *b = sched(f, B, 1, MAX);
	struct kb_sched_step sa[MAX], sb[MAX];
	struct kb_store_progress p;
	size_t na = 0, nb = 0;
	int64_t id = submit(f, AA);

	memset(sa, 0, sizeof(sa));
	memset(sb, 0, sizeof(sb));
	/* A leases the only build until 1010, then stops answering */
	assert_int_equal(pass(a, 1000, sa, &na), 1);
	assert_int_equal(sa[0].job.attempts, 1);
	/* B: nothing while the lease holds */
	assert_int_equal(pass(b, 1005, sb, &nb), 0);
	/* lapsed: B takes it back, a second attempt of the same job */
	assert_int_equal(pass(b, 1011, sb, &nb), 1);
	assert_int_equal(sb[0].job.id, sa[0].job.id);
	assert_int_equal(sb[0].job.attempts, 2);
	assert_int_equal(run(f, &sb[0], B), 0);
	kb_sched_finished(b, &sb[0]);
	nb = 0;
	/* A ending late records nothing */
	assert_int_equal(run(f, &sa[0], A), KB_ENOTFOUND);
	/* the build never runs a third time: both go on with boots */
	assert_int_equal(pass(b, 1030, sb, &nb), 1);
	assert_int_equal(sb[0].job.kind, KB_STORE_JOB_BOOT);
	assert_int_equal(pass(a, 1030, sa, &na), 1);
	assert_int_equal(sa[1].job.kind, KB_STORE_JOB_BOOT);
	assert_true(sa[1].job.id != sb[0].job.id);
	p = progress(f, id);
	assert_int_equal(p.builds_done, 1);
	assert_int_equal(p.builds_running, 0);
	kb_store_progress_release(&p);
	release_all(sa, na);
	release_all(sb, nb);
	kb_sched_free(a);
	kb_sched_free(b);
}

static void test_sched__renewed_lease_is_kept(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *a = sched(f, A, 1, MAX), *b = sched(f, B, 1, MAX);
	struct kb_sched_step sa[MAX], sb[MAX];
	struct kb_err err = KB_ERR_INIT;
	size_t na = 0, nb = 0;

	memset(sa, 0, sizeof(sa));
	memset(sb, 0, sizeof(sb));
	submit(f, AA);
	assert_int_equal(pass(a, 1000, sa, &na), 1);
	/* renewed at 1008 until 1018 */
	assert_int_equal(kb_sched_renew(a, 1008, &err), 0);
	/* less than a third of the lease later: not renewed again */
	assert_int_equal(kb_sched_renew(a, 1010, &err), 0);
	assert_int_equal(pass(b, 1015, sb, &nb), 0);
	assert_int_equal(pass(b, 1019, sb, &nb), 1);
	assert_int_equal(sb[0].job.id, sa[0].job.id);
	release_all(sa, na);
	release_all(sb, nb);
	kb_sched_free(a);
	kb_sched_free(b);
}

static void test_sched__cancelled_experiment_starts_no_new_step(
	void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0;
	int64_t id;

	memset(st, 0, sizeof(st));
	id = submit(f, MATRIX);
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(kb_sched_boot_slots(sc, id), 3);
	assert_int_equal(kb_store_experiment_cancel(f->s, id, &err), 0);
	/* nothing new starts; the running build goes on */
	assert_int_equal(pass(sc, 101, st, &n), 0);
	assert_int_equal(f->notes.ended, 0);
	/* it ends, is kept, and the experiment ends cancelled */
	finish(f, sc, st, &n, 0);
	assert_int_equal(f->notes.ended, 1);
	assert_int_equal(f->notes.ended_id, id);
	assert_string_equal(f->notes.state, "cancelled");
	assert_int_equal(pass(sc, 102, st, &n), 0);
	p = progress(f, id);
	assert_int_equal(p.builds_done, 1);
	assert_int_equal(p.boots_done, 0);
	kb_store_progress_release(&p);
	/* it left the queue: forgotten */
	assert_int_equal(kb_sched_boot_slots(sc, id), 1);
	assert_int_equal(f->notes.ended, 1);
	kb_sched_free(sc);
}

static void test_sched__failed_step_fails_the_experiment(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0;
	int64_t id = submit(f, MATRIX);

	memset(st, 0, sizeof(st));
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(kb_store_job_fail(f->s, st[0].job.id, A,
					   "disk full", &err),
			 0);
	kb_sched_finished(sc, &st[0]);
	assert_int_equal(f->notes.ended, 1);
	assert_int_equal(f->notes.ended_id, id);
	assert_string_equal(f->notes.state, "failed");
	n = 0;
	assert_int_equal(pass(sc, 101, st, &n), 0);
	kb_sched_free(sc);
}

static void test_sched__experiment_runs_each_job_once_to_done(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 2, MAX);
	struct kb_sched_step st[MAX];
	struct kb_store_progress p;
	size_t n = 0;
	unsigned steps = 0;
	int64_t id = submit(f, MATRIX);
	int64_t now = 100;

	memset(st, 0, sizeof(st));
	do {
		while (n) {
			assert_int_equal(st[0].job.attempts, 1);
			finish(f, sc, st, &n, 0);
			steps++;
		}
		pass(sc, now++, st, &n);
	} while (n);
	assert_int_equal(steps, 4 + 8);
	assert_int_equal(f->notes.loaded, 1);
	assert_int_equal(f->notes.loaded_ids[0], id);
	assert_int_equal(f->notes.ended, 1);
	assert_string_equal(f->notes.state, "done");
	assert_int_equal(f->notes.errors, 0);
	p = progress(f, id);
	assert_string_equal(p.state, "done");
	assert_int_equal(p.builds_done, 4);
	assert_int_equal(p.boots_done, 8);
	kb_store_progress_release(&p);
	assert_int_equal(kb_sched_boot_slots(sc, id), 1);
	kb_sched_free(sc);
}

static void test_sched__older_experiment_goes_first(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0;
	int64_t first = submit(f, MATRIX), second = submit(f, AA);

	memset(st, 0, sizeof(st));
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(st[0].job.experiment, first);
	assert_int_equal(f->notes.loaded, 2);
	assert_int_equal(f->notes.loaded_ids[0], first);
	assert_int_equal(f->notes.loaded_ids[1], second);
	/* boot slots: from each one's own hosts */
	assert_int_equal(kb_sched_boot_slots(sc, first), 3);
	assert_int_equal(kb_sched_boot_slots(sc, second), 1);
	/* loaded once, whatever the passes */
	assert_int_equal(pass(sc, 101, st, &n), 0);
	assert_int_equal(f->notes.loaded, 2);
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__next_before_refresh_starts_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st;
	struct kb_err err = KB_ERR_INIT;

	submit(f, AA);
	assert_int_equal(kb_sched_next(sc, 100, &st, &err), KB_ENOTFOUND);
	assert_int_equal(kb_sched_running(sc), 0);
	/* nothing runs: renew has nothing to do */
	assert_int_equal(kb_sched_renew(sc, 100, &err), 0);
	kb_sched_free(sc);
}

static void test_sched__new_needs_a_store_an_owner_and_slots(void **state)
{
	struct fixture *f = *state;
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_sched *sc = (struct kb_sched *)1;

	o.owner = A;
	assert_int_equal(kb_sched_new(&o, &sc, &err), KB_EINPUT);
	assert_null(sc);
	kb_err_clear(&err);
	o.store = f->s;
	o.build_jobs = 0;
	assert_int_equal(kb_sched_new(&o, &sc, &err), KB_EINPUT);
	kb_err_clear(&err);
	o.build_jobs = 1;
	assert_int_equal(kb_sched_new(&o, &sc, &err), 0);
	kb_sched_free(sc);
	kb_sched_free(NULL);
}

/*
 * Statements the store's connection has run so far: sqlite's run count
 * of each statement alive on it, which are those of its cache
 * (store_int.h): what a pass asked the store.
 */
static int store_runs(struct kb_store *s)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	while ((st = sqlite3_next_stmt(s->db, st)))
		n += sqlite3_stmt_status(st, SQLITE_STMTSTATUS_RUN, 0);
	return n;
}

#define MANY 30

static void test_sched__pass_asks_the_store_about_what_changed(
	void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	size_t n = 0;
	int i, before;

	memset(st, 0, sizeof(st));
	for (i = 0; i < MANY; i++)
		submit(f, AA);
	/* the first pass looks at every one: one build runs */
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(f->notes.loaded, MANY);
	/* nothing changed: one question (anything new?), not one per
	 * experiment */
	before = store_runs(f->s);
	assert_int_equal(pass(sc, 100, st, &n), 0);
	assert_int_equal(store_runs(f->s) - before, 1);
	/* the build ends: its experiment's boot and the next build start,
	 * and the store is asked about those, not about the others */
	finish(f, sc, st, &n, 0);
	before = store_runs(f->s);
	assert_int_equal(pass(sc, 100, st, &n), 2);
	assert_true(store_runs(f->s) - before < MANY / 2);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BUILD), 1);
	assert_int_equal(count_kind(st, n, KB_STORE_JOB_BOOT), 1);
	release_all(st, n);
	kb_sched_free(sc);
}

static void test_sched__experiment_ended_elsewhere_is_forgotten_quietly(
	void **state)
{
	struct fixture *f = *state;
	struct kb_sched *sc = sched(f, A, 1, MAX);
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0;
	int64_t ids[10], now;
	char *state_after = NULL;
	int i;

	memset(st, 0, sizeof(st));
	for (i = 0; i < 10; i++)
		ids[i] = submit(f, MATRIX);
	assert_int_equal(pass(sc, 100, st, &n), 1);
	assert_int_equal(kb_sched_boot_slots(sc, ids[6]), 3);
	/* someone else cancels it, and settles it: it ends cancelled */
	assert_int_equal(kb_store_experiment_cancel(f->s, ids[6], &err), 0);
	assert_int_equal(kb_store_experiment_settle(f->s, ids[6],
						    &state_after, &err),
			 0);
	assert_string_equal(state_after, "cancelled");
	free(state_after);
	/* each second a few are looked at again: it is forgotten within
	 * a few seconds, and without a note (whoever ended it told) */
	for (now = 101; now < 104; now++)
		assert_int_equal(pass(sc, now, st, &n), 0);
	assert_int_equal(kb_sched_boot_slots(sc, ids[6]), 1);
	assert_int_equal(kb_sched_boot_slots(sc, ids[7]), 3);
	assert_int_equal(f->notes.ended, 0);
	release_all(st, n);
	kb_sched_free(sc);
}

/* ---- several hosts: the spread, drained hosts (lib/spread.h) -------- */

/* A model whose host b loses every boot (fail_after: 0). */
#define MODEL_B_LOST                                             \
	"metric: read_iops\nbase: 1000\nseed: 3\n"               \
	"hosts: { \"test:///b\": { fail_after: 0 } }\n"

struct both {
	struct notes notes; /* first: on_note() takes it */
	unsigned drained, back, stuck;
	char drained_msg[512];
};

static void on_host_note(const struct kb_sched_host_note *n, void *arg)
{
	struct both *b = arg;

	switch (n->kind) {
	case KB_SCHED_HOST_DRAINED:
		b->drained++;
		snprintf(b->drained_msg, sizeof(b->drained_msg), "%s", n->msg);
		break;
	case KB_SCHED_HOST_BACK:
		b->back++;
		break;
	case KB_SCHED_HOST_STUCK:
		b->stuck++;
		break;
	}
}

static struct kb_sched *sched_hosts(struct fixture *f, struct both *b,
				    double drain_s)
{
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_sched *sc = NULL;

	o.store = f->s;
	o.owner = A;
	o.build_jobs = 4;
	o.max_steps = MAX;
	o.lease_s = 10;
	o.time_scale = 0;
	o.drain_s = drain_s;
	o.note = on_note;
	o.host_note = on_host_note;
	o.arg = b;
	if (kb_sched_new(&o, &sc, &err))
		fail_msg("new: %s", err.msg);
	return sc;
}

/* Run every step of @sc to the end, as the daemon's workers do, telling
 * it the hosts' failures. */
static void run_to_end(struct fixture *f, struct kb_sched *sc)
{
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	int64_t now = 100;

	memset(st, 0, sizeof(st));
	do {
		for (i = 0; i < n; i++) {
			struct kb_executor *ex = NULL;
			void *conn = NULL;
			int ret;

			if (kb_queue_exp_executor(st[i].exp, st[i].host, &ex,
						  &conn, &err))
				fail_msg("executor: %s", err.msg);
			if (st[i].job.kind == KB_STORE_JOB_BUILD)
				ret = kb_queue_run_build(f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &err);
			else
				ret = kb_queue_run_boot_host(
					f->s, st[i].exp, &st[i].job, A, ex,
					&st[i].host_failure, &err);
			assert_int_equal(ret, 0);
			kb_executor_free(ex);
			kb_sched_finished(sc, &st[i]);
		}
		n = 0;
		pass(sc, now++, st, &n);
	} while (n);
}

static void test_sched__boots_are_spread_over_the_hosts(void **state)
{
	struct fixture *f = *state;
	struct kb_store_job_host *j = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	unsigned on_a[4] = { 0 }, on_b[4] = { 0 };
	int64_t id = submit(f, MATRIX);

	/* each variant's two boots: one given to each host */
	assert_int_equal(kb_store_job_hosts(f->s, id, &j, &n, &err), 0);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_non_null(j[i].host);
		assert_true(j[i].queued);
		on_a[j[i].variant_idx] += !strcmp(j[i].host, HOST_A);
		on_b[j[i].variant_idx] += !strcmp(j[i].host, HOST_B);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(on_a[i], 1);
		assert_int_equal(on_b[i], 1);
	}
	kb_store_job_hosts_free(j, n);
}

static void test_sched__lost_host_is_drained_its_boots_moved(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = { MATRIX, "/tmp/s.yaml",
					   MODEL_B_LOST };
	struct kb_store_host_count *hc = NULL;
	struct kb_store_variant *vs = NULL;
	struct kb_store_boot_host *bh = NULL;
	struct kb_store_progress p;
	struct kb_err err = KB_ERR_INIT;
	struct both b;
	struct kb_sched *sc;
	size_t nhc = 0, nv = 0, nbh = 0, i;
	int64_t id = 0;

	memset(&b, 0, sizeof(b));
	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	sc = sched_hosts(f, &b, 0);
	run_to_end(f, sc);
	/* b failed 3 boots in a row and was drained; its boots ran on a */
	assert_int_equal(b.drained, 1);
	assert_msg_contains(b.drained_msg,
			    "host test:///b drained after 3 infrastructure failures: model: host test:///b is lost after 0 boots");
	assert_true(kb_sched_host_drained(sc, HOST_B));
	assert_false(kb_sched_host_drained(sc, HOST_A));
	assert_int_equal(b.notes.ended, 1);
	assert_string_equal(b.notes.state, "done");
	p = progress(f, id);
	assert_string_equal(p.state, "done");
	assert_int_equal(p.boots_done, 8);
	kb_store_progress_release(&p);
	/* none of the host's failures is a boot of a variant */
	assert_int_equal(kb_store_boot_hosts(f->s, id, &bh, &nbh, &err), 0);
	assert_int_equal(nbh, 8);
	for (i = 0; i < nbh; i++) {
		assert_true(bh[i].ok);
		assert_string_equal(bh[i].host, HOST_A);
	}
	assert_int_equal(kb_store_variants(f->s, id, "read_iops", &vs, &nv,
					   &err),
			 0);
	for (i = 0; i < nv; i++) {
		assert_int_equal(vs[i].nboots, 2);
		assert_int_equal(vs[i].nfailed, 0);
		kb_store_variant_release(&vs[i]);
	}
	assert_int_equal(kb_store_host_counts(f->s, id, &hc, &nhc, &err), 0);
	assert_int_equal(nhc, 2);
	assert_string_equal(hc[1].host, HOST_B);
	assert_int_equal(hc[1].boots, 0);
	assert_int_equal(hc[1].failures, 3);
	assert_true(hc[1].drained);
	kb_store_host_counts_free(hc, nhc);
	kb_store_boot_hosts_free(bh, nbh);
	free(vs);
	kb_sched_free(sc);
}

static void test_sched__drained_host_is_tried_again_later(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = {
		"name: two\n"
		"workload:\n"
		"  fio: { rw: randread }\n"
		"  metric: read_iops\n"
		"repeat: { boots: 6, runs_per_boot: 1 }\n"
		"hosts: [test:///a, test:///b]\n",
		"/tmp/s.yaml",
		"metric: read_iops\nbase: 1000\n"
		"hosts:\n"
		"  \"test:///a\": { fail_after: 1 }\n"
		"  \"test:///b\": { fail_after: 1 }\n"
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_progress p;
	struct both b;
	struct kb_sched *sc;
	int64_t id = 0;
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	memset(&b, 0, sizeof(b));
	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	/* each host runs a boot, then fails 3 and is drained: with both
	 * drained, the experiment's boots wait */
	sc = sched_hosts(f, &b, 0.02);
	run_to_end(f, sc);
	assert_int_equal(b.drained, 2);
	assert_true(b.stuck >= 1);
	assert_int_equal(b.notes.ended, 0);
	p = progress(f, id);
	assert_string_equal(p.state, "running");
	assert_int_equal(p.boots_done, 2);
	kb_store_progress_release(&p);
	/* after drain_s they are tried again: lost still, drained again */
	nanosleep(&ts, NULL);
	run_to_end(f, sc);
	assert_int_equal(b.back, 2);
	assert_int_equal(b.drained, 4);
	assert_int_equal(b.notes.ended, 0);
	p = progress(f, id);
	assert_int_equal(p.boots_done, 2);
	kb_store_progress_release(&p);
	kb_sched_free(sc);
}

/* A host that failed a boot backs off before its next, the wait doubled
 * for each failure in a row: drained after 3, but not in the same
 * second (kb_sched_opts.retry_s). */
static void test_sched__a_failed_host_backs_off_before_its_next_boot(
	void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = { MATRIX, "/tmp/s.yaml",
					   MODEL_B_LOST };
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	double failed_at[4] = { 0 }, t0 = kb_monotime();
	unsigned nfailed = 0;
	struct both b;
	struct kb_sched *sc = NULL;
	size_t n = 0, i;
	int64_t id = 0, now = 100;

	memset(&b, 0, sizeof(b));
	memset(st, 0, sizeof(st));
	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	o.store = f->s;
	o.owner = A;
	o.build_jobs = 4;
	o.max_steps = MAX;
	o.lease_s = 10;
	/* the model's time: its boots take a few ms, the back-off
	 * 100 s of it 0.1 s */
	o.time_scale = 0.001;
	o.retry_s = 100;
	o.note = on_note;
	o.host_note = on_host_note;
	o.arg = &b;
	if (kb_sched_new(&o, &sc, &err))
		fail_msg("new: %s", err.msg);
	while (!b.drained && kb_monotime() - t0 < 10) {
		n = 0;
		pass(sc, now++, st, &n);
		for (i = 0; i < n; i++) {
			struct kb_executor *ex = NULL;
			void *conn = NULL;

			if (kb_queue_exp_executor(st[i].exp, st[i].host, &ex,
						  &conn, &err))
				fail_msg("executor: %s", err.msg);
			if (st[i].job.kind == KB_STORE_JOB_BUILD)
				assert_int_equal(kb_queue_run_build(
							 f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &err),
						 0);
			else
				assert_int_equal(kb_queue_run_boot_host(
							 f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &st[i].host_failure,
							 &err),
						 0);
			if (st[i].host_failure && nfailed < 4)
				failed_at[nfailed++] = kb_monotime();
			kb_executor_free(ex);
			kb_sched_finished(sc, &st[i]);
		}
		if (!n)
			nanosleep(&nap, NULL);
	}
	assert_int_equal(b.drained, 1);
	assert_int_equal(nfailed, 3);
	/* 0.1 s after the first failure, 0.2 s after the second */
	assert_true(failed_at[1] - failed_at[0] >= 0.1);
	assert_true(failed_at[2] - failed_at[1] >= 0.2);
	kb_sched_free(sc);
}
/* A boot whose preparation on this machine failed (KB_ELOCAL: its
 * guest image did not build, its scratch disk could not be sized) is
 * no host's failure: the step's error, which fails the experiment, and
 * the host is neither counted nor drained for it. */
static int here_fails(void *self, const struct kb_variant *v,
		      const struct kb_build_result *build, unsigned boot_no,
		      unsigned runs, struct kb_boot_result *out,
		      struct kb_err *err)
{
	(void)self;
	(void)v;
	(void)build;
	(void)boot_no;
	(void)runs;
	memset(out, 0, sizeof(*out));
	return kb_err_set(err, KB_ELOCAL,
			  "guest image: mmdebstrap exited with status 1: E: Unable to locate package no-such-package");
}

static int no_build(void *self, const struct kb_variant *v,
		    struct kb_build_result *out, struct kb_err *err)
{
	(void)self;
	(void)v;
	(void)out;
	return kb_err_set(err, KB_EFAIL, "no builds here");
}

static const struct kb_executor_ops here_fails_ops = {
	.name = "libvirt", .build = no_build, .boot = here_fails, .free = NULL,
};

static void test_sched__this_machines_failure_is_no_hosts(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = { MATRIX, "/tmp/s.yaml", MODEL };
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	struct kb_executor *here = kb_executor_new(&here_fails_ops, NULL);
	struct kb_store_host_count *hc = NULL;
	char *failure = NULL;
	struct both b;
	struct kb_sched *sc;
	size_t n = 0, i, nhc = 0;
	int64_t id = 0, now = 100;
	int booted = 0;

	memset(&b, 0, sizeof(b));
	memset(st, 0, sizeof(st));
	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	sc = sched_hosts(f, &b, 0);
	/* the builds first, on the model; then a boot fails here */
	while (!booted) {
		n = 0;
		pass(sc, now++, st, &n);
		assert_true(n > 0);
		for (i = 0; i < n; i++) {
			struct kb_executor *ex = NULL;
			void *conn = NULL;

			if (st[i].job.kind == KB_STORE_JOB_BOOT && !booted) {
				assert_int_equal(kb_queue_run_boot_host(
							 f->s, st[i].exp,
							 &st[i].job, A, here,
							 &failure, &err),
						 KB_ELOCAL);
				assert_null(failure);
				assert_msg_contains(err.msg, "mmdebstrap");
				booted = 1;
				kb_err_clear(&err);
			} else if (st[i].job.kind == KB_STORE_JOB_BUILD) {
				if (kb_queue_exp_executor(st[i].exp, st[i].host,
							  &ex, &conn, &err))
					fail_msg("executor: %s", err.msg);
				assert_int_equal(kb_queue_run_build(
							 f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &err),
						 0);
				kb_executor_free(ex);
			}
			kb_sched_finished(sc, &st[i]);
		}
	}
	assert_int_equal(kb_store_host_counts(f->s, id, &hc, &nhc, &err), 0);
	for (i = 0; i < nhc; i++) {
		assert_int_equal(hc[i].failures, 0);
		assert_false(hc[i].drained);
	}
	kb_store_host_counts_free(hc, nhc);
	kb_executor_free(here);
	kb_sched_free(sc);
}

/* The daemon's estimate counts the boots that may run at once on the
 * hosts that are not drained: a drained host runs none. */
static void test_sched__estimate_leaves_out_a_drained_host(void **state)
{
	struct fixture *f = *state;
	struct kb_queue_submission sub = {
		"name: est\n"
		"workload:\n"
		"  fio: { rw: randread }\n"
		"  metric: read_iops\n"
		"repeat: { boots: 12, runs_per_boot: 1 }\n"
		"hosts:\n"
		"  - { uri: \"" HOST_A "\", capacity: 2 }\n"
		"  - " HOST_B "\n",
		"/tmp/s.yaml", MODEL_B_LOST
	};
	struct kb_store_progress p;
	struct kb_sched_step st[MAX];
	struct kb_err err = KB_ERR_INIT;
	struct both b;
	struct kb_sched *sc;
	size_t n = 0, i;
	int64_t id = 0, now = 100;

	memset(&b, 0, sizeof(b));
	memset(st, 0, sizeof(st));
	if (kb_queue_submit(f->s, &sub, &id, &err))
		fail_msg("submit: %s", err.msg);
	sc = sched_hosts(f, &b, 600);
	pass(sc, now++, st, &n);
	assert_int_equal(kb_sched_boot_slots(sc, id), 3);
	/* run steps until b has failed 3 boots and is drained */
	while (n && !b.drained) {
		for (i = 0; i < n; i++) {
			struct kb_executor *ex = NULL;
			void *conn = NULL;

			if (kb_queue_exp_executor(st[i].exp, st[i].host, &ex,
						  &conn, &err))
				fail_msg("executor: %s", err.msg);
			if (st[i].job.kind == KB_STORE_JOB_BUILD)
				assert_int_equal(kb_queue_run_build(
							 f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &err),
						 0);
			else
				assert_int_equal(kb_queue_run_boot_host(
							 f->s, st[i].exp,
							 &st[i].job, A, ex,
							 &st[i].host_failure,
							 &err),
						 0);
			kb_executor_free(ex);
			kb_sched_finished(sc, &st[i]);
		}
		n = 0;
		pass(sc, now++, st, &n);
	}
	assert_int_equal(b.drained, 1);
	assert_true(kb_sched_host_drained(sc, HOST_B));
	assert_int_equal(b.notes.ended, 0);
	/* a's 2 slots, not b's */
	assert_int_equal(kb_sched_boot_slots(sc, id), 2);
	p = progress(f, id);
	assert_true(p.boots_done < p.boots_total);
	kb_store_progress_release(&p);
	release_all(st, n);
	kb_sched_free(sc);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_sched__host_never_gets_more_boots_than_its_capacity),
		T(test_sched__one_build_slot_runs_one_build_at_a_time),
		T(test_sched__two_build_slots_run_two_builds),
		T(test_sched__max_steps_caps_every_kind),
		T(test_sched__boot_waits_for_its_build),
		T(test_sched__in_blocks_boots_wait_for_every_build),
		T(test_sched__expired_lease_is_taken_back_and_runs_once),
		T(test_sched__renewed_lease_is_kept),
		T(test_sched__cancelled_experiment_starts_no_new_step),
		T(test_sched__failed_step_fails_the_experiment),
		T(test_sched__experiment_runs_each_job_once_to_done),
		T(test_sched__older_experiment_goes_first),
		T(test_sched__next_before_refresh_starts_nothing),
		T(test_sched__new_needs_a_store_an_owner_and_slots),
		T(test_sched__pass_asks_the_store_about_what_changed),
		T(test_sched__experiment_ended_elsewhere_is_forgotten_quietly),
		T(test_sched__boots_are_spread_over_the_hosts),
		T(test_sched__lost_host_is_drained_its_boots_moved),
		T(test_sched__drained_host_is_tried_again_later),
		T(test_sched__a_failed_host_backs_off_before_its_next_boot),
		T(test_sched__this_machines_failure_is_no_hosts),
		T(test_sched__estimate_leaves_out_a_drained_host),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, NULL, NULL);
}
