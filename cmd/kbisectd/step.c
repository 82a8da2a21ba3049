/*
 * kbisectd's steps (kbisectd.h): what the scheduler tells (lib/scheduler.h)
 * logged, and each build or boot it hands out run in a worker thread of
 * its own, with its own database connection and executor, then reaped by
 * the main loop.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "kbisectd.h"
#include "matrix.h"
#include "plan.h"
#include "queue.h"
#include "runner.h"
#include "scheduler.h"
#include "spread.h"
#include "store.h"
#include "banned.h"

/* Steps started, and experiments loaded, by one pass at most: the rest
 * waits for the next turn of the loop, after the clients are served. */
#define PASS_STEPS 8
#define PASS_LOADS 16

/* ---- experiments: what the scheduler tells ------------------------------- */

/* At start, guests a dead daemon left on the hosts of the experiments it
 * was running.  Model experiments start none. */
static void sweep_orphans(const struct kb_queue_exp *x)
{
	const struct kb_matrix *m = kb_queue_exp_matrix(x);
	struct kb_err err = KB_ERR_INIT;
	size_t i;

	for (i = 0; !kb_queue_exp_is_model(x) && i < kb_matrix_nhosts(m);
	     i++) {
		const char *uri = kb_matrix_host(m, i)->uri;
		unsigned n = 0;

		kb_err_clear(&err);
		if (kb_sched_host_running(d.sched, uri))
			continue; /* our own guests run there */
		if (kb_runner_destroy_orphans(uri, &n, &err))
			logm(L_WARN, "cannot look for orphan guests on %s: %s",
			     uri, err.msg);
		else if (n)
			logm(L_INFO, "destroyed %u orphan guest%s on %s", n,
			     n == 1 ? "" : "s", uri);
	}
}

/* The verdicts of experiment @id, each variant against the baseline,
 * stored as it ends (v_verdicts), as `run` stores them. */
static void store_verdicts(int64_t id)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	size_t n = 0;

	if (kb_store_open(d.db_path, NULL, &s, &err) ||
	    kb_analysis_store_experiment_verdicts(s, id, &n, &err))
		logm(L_ERROR, "experiment %lld: its verdicts are not stored: %s",
		     (long long)id, err.msg);
	else
		logm(L_INFO, "experiment %lld: %zu verdicts stored",
		     (long long)id, n);
	kb_store_close(s);
}

static void on_note(const struct kb_sched_note *n, void *arg)
{
	(void)arg;
	switch (n->kind) {
	case KB_SCHED_NOTE_LOADED:
		logm(L_INFO, "experiment %lld '%s' loaded: %zu variants, %s executor",
		     (long long)n->id, kb_matrix_name(kb_queue_exp_matrix(n->exp)),
		     kb_plan_nvariants(kb_queue_exp_plan(n->exp)),
		     kb_queue_exp_is_model(n->exp) ? "model" : "libvirt");
		if (!d.swept)
			sweep_orphans(n->exp);
		break;
	case KB_SCHED_NOTE_ENDED:
		logm(L_INFO, "experiment %lld %s", (long long)n->id, n->state);
		if (!strcmp(n->state, "done"))
			store_verdicts(n->id);
		break;
	case KB_SCHED_NOTE_ERROR:
		logm(L_ERROR, "experiment %lld: %s", (long long)n->id, n->msg);
		break;
	}
}

/* What befell a host (docs/guests.md, "Several hosts"). */
static void on_host_note(const struct kb_sched_host_note *n, void *arg)
{
	(void)arg;
	switch (n->kind) {
	case KB_SCHED_HOST_DRAINED:
		logm(L_WARN, "%s; its queued boots go to the other hosts",
		     n->msg);
		break;
	case KB_SCHED_HOST_BACK:
		logm(L_INFO, "host %s is tried again", n->host);
		break;
	case KB_SCHED_HOST_STUCK:
		logm(L_ERROR, "experiment %lld: %s", (long long)n->id, n->msg);
		break;
	}
}

/* ---- steps --------------------------------------------------------------- */

static void *run_step(void *arg)
{
	struct worker *w = arg;
	const struct kb_store_job *j = &w->step.job;
	struct kb_store *s = NULL;
	struct kb_executor *ex = NULL;
	void *conn = NULL;
	struct kb_err ferr = KB_ERR_INIT;
	char c = 1;
	int ret;

	if ((ret = kb_store_open(d.db_path, NULL, &s, &w->err)))
		goto out;
	if ((ret = kb_queue_exp_executor(w->step.exp, w->step.host, &ex,
					 &conn, &w->err))) {
		/* a host that cannot be reached fails its boot, not the
		 * experiment: the boot runs again, and the host is drained
		 * after a few (lib/scheduler.h) */
		struct kb_err why = w->err;

		if (j->kind != KB_STORE_JOB_BOOT)
			goto out;
		kb_err_clear(&w->err);
		ret = kb_queue_host_failed(s, j, d.owner, why.msg,
					   &w->step.host_failure, &w->err);
		goto out;
	}
	if (j->kind == KB_STORE_JOB_BUILD)
		ret = kb_queue_run_build(s, w->step.exp, j, d.owner, ex,
					 &w->err);
	else
		ret = kb_queue_run_boot_host(s, w->step.exp, j, d.owner, ex,
					     &w->step.host_failure, &w->err);
out:
	if (w->step.host_failure)
		logm(L_WARN, "experiment %lld: boot %u of #%u could not run on %s (run again, not counted): %s",
		     (long long)j->experiment, j->boot_no, j->variant_idx,
		     w->step.host, w->step.host_failure);
	/* an executor or store error stops the experiment, as in the
	 * pipeline; a lost lease (KB_ENOTFOUND) records nothing */
	if (ret && ret != KB_ENOTFOUND && s &&
	    kb_store_job_fail(s, j->id, d.owner, w->err.msg, &ferr))
		logm(L_ERROR, "cannot record the failure of job %lld: %s",
		     (long long)j->id, ferr.msg);
	kb_executor_free(ex);
	kb_queue_conn_free(conn);
	kb_store_close(s);
	pthread_mutex_lock(&d.lock);
	w->ret = ret;
	w->finished = 1;
	pthread_mutex_unlock(&d.lock);
	if (write(d.done_pipe[1], &c, 1) < 0) {
		/* the loop polls every tick anyway */
	}
	return NULL;
}

static const char *kind_name(const struct kb_store_job *j)
{
	return j->kind == KB_STORE_JOB_BUILD ? "build" : "boot";
}

/* Run step @st (taken from the caller) in a worker thread. */
static void start_step(struct kb_sched_step *st)
{
	const struct kb_store_job *j;
	struct worker *w = NULL;
	size_t i;
	int rc;

	for (i = 0; i < MAX_WORKERS && !w; i++)
		if (!d.workers[i].used)
			w = &d.workers[i];
	if (!w) /* the scheduler hands out at most MAX_WORKERS steps */
		abort();
	memset(w, 0, sizeof(*w));
	w->used = 1;
	w->step = *st;
	memset(st, 0, sizeof(*st));
	w->started = kb_monotime();
	kb_err_clear(&w->err);
	j = &w->step.job;
	if (j->attempts > 1)
		logm(L_INFO, "job %lld (%s of #%u, boot %u) runs again: attempt %u",
		     (long long)j->id, kind_name(j), j->variant_idx,
		     j->boot_no, j->attempts);
	if (j->kind == KB_STORE_JOB_BOOT)
		logm(L_DEBUG, "experiment %lld: boot %u of #%u starts on %s",
		     (long long)j->experiment, j->boot_no, j->variant_idx,
		     w->step.host);
	else
		logm(L_DEBUG, "experiment %lld: build of #%u starts",
		     (long long)j->experiment, j->variant_idx);
	rc = pthread_create(&w->thread, NULL, run_step, w);
	if (rc) {
		/* no thread: run it here rather than hold a lease idle */
		logm(L_WARN, "cannot start a thread (%s): step runs inline",
		     strerror(rc));
		w->thread = pthread_self();
		run_step(w);
	}
}

/* Join the steps that ended. */
void reap(void)
{
	size_t i;

	for (i = 0; i < MAX_WORKERS; i++) {
		struct worker *w = &d.workers[i];
		const struct kb_store_job *j = &w->step.job;
		int finished;

		if (!w->used)
			continue;
		pthread_mutex_lock(&d.lock);
		finished = w->finished;
		pthread_mutex_unlock(&d.lock);
		if (!finished)
			continue;
		if (!pthread_equal(w->thread, pthread_self()))
			pthread_join(w->thread, NULL);
		if (w->ret == KB_ENOTFOUND)
			logm(L_WARN, "job %lld: lease lost, result dropped: %s",
			     (long long)j->id, w->err.msg);
		else if (w->ret)
			logm(L_ERROR, "experiment %lld: %s #%u failed: %s",
			     (long long)j->experiment, kind_name(j),
			     j->variant_idx, w->err.msg);
		else
			logm(L_DEBUG, "experiment %lld: job %lld (%s of #%u) done in %.2f s",
			     (long long)j->experiment, (long long)j->id,
			     kind_name(j), j->variant_idx,
			     kb_monotime() - w->started);
		d.wake = 1;
		/* frees its slots, settles its experiment, releases it */
		kb_sched_finished(d.sched, &w->step);
		memset(w, 0, sizeof(*w));
	}
}

/* Claim and start the steps there is room for (lib/scheduler.h), up to
 * PASS_STEPS: with more to do, the next turn of the loop goes on at once,
 * once the clients have been served. */
void schedule(void)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sched_step st;
	unsigned started = 0;
	int ret;

	if (kb_sched_refresh(d.sched, &err)) {
		logm(L_ERROR, "%s", err.msg);
		return;
	}
	/* the experiments queued at start are loaded over a few passes:
	 * each of them has its hosts swept */
	if (kb_sched_behind(d.sched))
		d.wake = 1;
	else
		d.swept = 1;
	while (!d.stopping) {
		if (started == PASS_STEPS) {
			d.wake = 1;
			break;
		}
		kb_err_clear(&err);
		ret = kb_sched_next(d.sched, time(NULL), &st, &err);
		if (ret == KB_ENOTFOUND)
			break;
		if (ret) {
			logm(L_ERROR, "%s", err.msg);
		} else {
			start_step(&st);
			started++;
		}
	}
}

/* ---- leases and the scheduler ------------------------------------------- */

void renew(void)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_sched_renew(d.sched, time(NULL), &err))
		logm(L_ERROR, "cannot renew leases: %s", err.msg);
}

int start_scheduler(struct kb_err *err)
{
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;

	o.store = d.s;
	o.owner = d.owner;
	o.build_jobs = d.build_jobs;
	o.max_steps = MAX_WORKERS;
	o.lease_s = d.lease_s;
	o.time_scale = d.time_scale;
	o.max_loads = PASS_LOADS;
	/* a host that failed a boot backs off before its next (in the
	 * model's time for the model's boots: lib/scheduler.h) */
	o.retry_s = KB_SPREAD_RETRY_S;
	o.note = on_note;
	o.host_note = on_host_note;
	return kb_sched_new(&o, &d.sched, err);
}
