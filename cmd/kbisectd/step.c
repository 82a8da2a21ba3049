/*
 * kbisectd's steps (kbisectd.h): what the scheduler tells (lib/scheduler.h)
 * logged, and each build or boot it hands out run in a worker thread of
 * its own, with its own database connection and executor, then reaped by
 * the main loop.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "analysis.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "kbisectd.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "program.h"
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

/* Hosts swept of orphans since start, each once; more are not swept. */
#define MAX_SWEEPS 64
/* Seconds a host's sweep may take, its connect included: libvirt's
 * connect has no deadline of its own (a host that takes the connection
 * and says nothing holds it until the host closes it). */
#define SWEEP_S 10
/* Bytes of a sweep's answer kept. */
#define SWEEP_OUT 4096

/* One host's sweep, in a thread of its own (the URI is the thread's):
 * this program again, `kbisectd --sweep-orphans URI`, killed when it
 * takes longer than SWEEP_S. */
static void *sweep_host(void *arg)
{
	char *uri = arg;
	const char *argv[] = { "/proc/self/exe", "--sweep-orphans", uri,
			       NULL };
	struct kb_program prog = { .argv = argv, .envp = NULL,
				   .out = KB_PROGRAM_PIPE,
				   .err = KB_PROGRAM_NULL, .log = NULL };
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf out = KB_BUF_INIT;
	double t0 = kb_monotime(), left;
	pid_t pid = -1;
	int fd = -1, status, killed = 0;

	if (kb_program_start(&prog, &pid, &fd, &err)) {
		logm(L_WARN, "cannot look for orphan guests on %s: %s", uri,
		     err.msg);
		goto out;
	}
	while ((left = SWEEP_S - (kb_monotime() - t0)) > 0) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		char buf[512];
		ssize_t n;

		if (poll(&pf, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (!pf.revents)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out.len < SWEEP_OUT)
			kb_buf_add(&out, buf, (size_t)n);
	}
	if (left <= 0) {
		kill(pid, SIGKILL);
		killed = 1;
	}
	status = kb_program_wait(pid);
	if (killed)
		logm(L_WARN, "cannot look for orphan guests on %s: no answer within %d s; its orphans stay until the next start",
		     uri, SWEEP_S);
	else if (status)
		logm(L_WARN, "cannot look for orphan guests on %s (after %.1f s): %s",
		     uri, kb_monotime() - t0,
		     out.len ? out.buf : "the sweep failed");
	else if (out.len && strcmp(out.buf, "0"))
		logm(L_INFO, "destroyed %s orphan guest%s on %s", out.buf,
		     strcmp(out.buf, "1") ? "s" : "", uri);
	else
		logm(L_DEBUG, "no orphan guests on %s (%.1f s)", uri,
		     kb_monotime() - t0);
out:
	if (fd >= 0)
		close(fd);
	kb_buf_release(&out);
	free(uri);
	return NULL;
}

int sweep_orphans_main(const char *uri)
{
	struct kb_err err = KB_ERR_INIT;
	unsigned n = 0;

	if (kb_runner_destroy_orphans(uri, &n, &err)) {
		fputs(err.msg, stdout);
		return 1;
	}
	printf("%u", n);
	return 0;
}

/*
 * At start, guests a dead daemon left on the hosts of the experiments it
 * was running; model experiments start none.  Each host is swept once,
 * by a child process (sweep_orphans_main()) that a detached thread of
 * its own waits for SWEEP_S at most: a host slow to answer holds that
 * thread for SWEEP_S, never the loop, the clients or the other hosts.
 * Boots may start there meanwhile: an orphan is a guest whose owner is
 * gone (kb_guest_destroy_orphans()), never one of this daemon's.
 */
static void sweep_orphans(const struct kb_queue_exp *x)
{
	static char *swept[MAX_SWEEPS];
	static size_t nswept;
	const struct kb_matrix *m = kb_queue_exp_matrix(x);
	pthread_attr_t attr;
	size_t i, k;

	if (kb_queue_exp_is_model(x))
		return;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < kb_matrix_nhosts(m); i++) {
		const char *uri = kb_matrix_host(m, i)->uri;
		pthread_t t;
		char *arg;
		int rc;

		for (k = 0; k < nswept && strcmp(swept[k], uri); k++)
			;
		if (k < nswept || nswept == MAX_SWEEPS)
			continue;
		swept[nswept++] = kb_strdup(uri);
		arg = kb_strdup(uri);
		if ((rc = pthread_create(&t, &attr, sweep_host, arg))) {
			logm(L_WARN, "cannot look for orphan guests on %s: no thread (%s)",
			     uri, strerror(rc));
			free(arg);
		}
	}
	pthread_attr_destroy(&attr);
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

/* ---- the lease clock ----------------------------------------------------- */

/*
 * Seconds on the clock leases are timed by: the wall clock's at start,
 * then the daemon's clock (kbisectd.h), which the clients are timed by.
 * A step of the wall clock (ntp, a suspended VM's clock set forward) is
 * not seen, and the time the daemon is stopped (SIGSTOP) does not run
 * its leases out: they lapse only by the daemon running and not
 * renewing them.
 */
static int64_t lease_now(void)
{
	return d.lease_epoch + (int64_t)(daemon_clock() - d.lease_mono);
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
		ret = kb_sched_next(d.sched, lease_now(), &st, &err);
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

	if (kb_sched_renew(d.sched, lease_now(), &err))
		logm(L_ERROR, "cannot renew leases: %s", err.msg);
}

int start_scheduler(struct kb_err *err)
{
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;

	d.lease_epoch = (int64_t)time(NULL);
	d.lease_mono = daemon_clock();
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
