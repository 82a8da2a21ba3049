/*
 * kbisectd: the kbisect daemon (docs/daemon.md).  It takes experiments
 * from `kbisect submit` over a unix socket (docs/protocol.md), keeps them
 * as jobs in the sqlite queue, and runs each build and boot as a step
 * under a lease: at most --build-jobs builds at once, and per libvirt host
 * as many boots as its capacity in the matrix's hosts: list.
 *
 * One thread (this file's main loop) owns the socket, the clients and the
 * scheduler (lib/scheduler.h: which jobs to lease and start, within the
 * build slots and host capacities); each step runs in a thread of its own
 * with its own database connection and executor, and stores its result
 * with its job's end in one transaction.  A daemon killed at any instant leaves
 * leases that the next one takes back at start: those steps run again,
 * finished ones never do.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cmdopt.h"
#include "err.h"
#include "fsutil.h"
#include "guest.h"
#include "mem.h"
#include "model.h"
#include "paths.h"
#include "protocol.h"
#include "queue.h"
#include "scheduler.h"
#include "store.h"
#include "banned.h"

#define KBISECTD_VERSION "0.1.0"
#define MAX_CLIENTS 64
#define MAX_WORKERS 64
#define TICK_MS 200
/* Steps started, and experiments loaded, by one pass at most: the rest
 * waits for the next turn of the loop, after the clients are served. */
#define PASS_STEPS 8
#define PASS_LOADS 16
#define STATUS_RECENT 20
/* Connections waiting while every client slot is taken. */
#define LISTEN_BACKLOG 128
/* Bytes read from a client at once, and at most in one turn of the loop. */
#define READ_CHUNK 65536
#define READ_MAX (1u << 20)
/* Seconds of one turn of the loop, or of a poll beyond its timeout,
 * after which the clients' clocks stop: a stall of the daemon's own (a
 * long request, SIGSTOP, no CPU) is not held against them. */
#define STALL_S 0.5
/* Unsent bytes past which a client's requests wait (it is not read), and
 * past which it is dropped: answers to pipelined requests, PROGRESS
 * lines to a watcher, never grow beyond them. */
#define OUT_HIGH (256u << 10)
#define OUT_MAX (1u << 20)
/* Default --client-timeout, seconds. */
#define CLIENT_TIMEOUT_S 10

/* ---- logging ------------------------------------------------------------- */

enum level { L_ERROR, L_WARN, L_INFO, L_DEBUG };
static const char *const level_names[] = { "error", "warn", "info", "debug" };
static enum level log_level = L_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 2, 3)))
static void logm(enum level l, const char *fmt, ...)
{
	char when[32];
	struct tm tm;
	time_t t = time(NULL);
	va_list ap;

	if (l > log_level)
		return;
	if (!gmtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "%s kbisectd[%ld] %s: ", when, (long)getpid(),
		level_names[l]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
}

/* Point stderr at @path (append), for --log and on SIGHUP. */
static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		return -1;
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* ---- state --------------------------------------------------------------- */

struct worker {
	pthread_t thread;
	int used;
	int finished;             /* set by the thread under d.lock */
	struct kb_sched_step step; /* its job, experiment and host */
	int ret;
	struct kb_err err;
	double started;
};

/*
 * A connection.  Its input is answered line by line while its unsent
 * output stays under OUT_HIGH, and read only then, so a client that
 * does not read its answers stops being read (its requests wait in the
 * kernel) instead of growing the daemon; bytes are taken from the front
 * of in and out by moving an offset, not the rest of the buffer.  A
 * client that takes longer than --client-timeout to finish a request,
 * to read what it is sent, or that sits idle that long (a watcher waits
 * for us: it is never idle) is dropped.
 */
struct client {
	int fd;
	struct kb_buf in, out;
	size_t in_off;     /* bytes of in before it are answered */
	size_t out_off;    /* bytes of out before it are sent */
	int hello;         /* HELLO exchanged */
	int64_t watch;     /* experiment watched, 0: none */
	char *last;        /* the last progress line sent to a watcher */
	double last_sent;  /* when a watcher was last sent PROGRESS */
	int held;          /* complete requests wait in in (paused) */
	int closing;       /* close once out is flushed */
	int dead;          /* drop at once: past OUT_MAX */
	double line_start; /* a request unfinished since then, or 0 */
	double out_since;  /* output unsent, and none sent, since then, or 0 */
	double idle_since; /* the last request or answer done */
};

static struct {
	const char *db_path;
	const char *socket_path;
	const char *log_path;
	char *owner;
	unsigned build_jobs;
	unsigned client_timeout; /* seconds */
	int64_t lease_s;
	double time_scale;
	struct kb_store *s;
	int lock_fd;
	int listen_fd;
	int sig_pipe[2];
	int done_pipe[2];
	pthread_mutex_t lock;
	struct worker workers[MAX_WORKERS];
	struct kb_sched *sched; /* the experiments, their steps and leases */
	int swept;              /* orphan guests looked for: the queue
				 * found at start is loaded */
	struct client *clients[MAX_CLIENTS];
	int stopping;
	int wake;               /* schedule at once: a step ended, a job came */
	double awake;           /* when poll last returned */
	double stalled;         /* seconds the loop stalled, in all */
} d;

static volatile sig_atomic_t got_term, got_hup;

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_term++;
	if (write(d.sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: the loop wakes up anyway */
	}
	errno = saved;
}

/* ---- the database lock: one daemon per database -------------------------- */

/*
 * An flock on the database file itself: it belongs to the file (device
 * and inode), so a second daemon reaching it through a symlink or a hard
 * link finds it held, where a lock file named after the path let it in.
 * sqlite's own locks on the file are fcntl record locks, which Linux
 * keeps apart from flock; this open is never closed before the store is
 * (closing a descriptor of the file would drop the process's fcntl
 * locks on it).  The holder's pid comes from /proc/locks.
 */
static int lock_database(struct kb_err *err)
{
	int fd = -1, ret;

	ret = kb_lock(d.db_path, KB_LOCK_TRY, &fd, err);
	if (ret == KB_EEXISTS) {
		long other = kb_lock_holder(d.db_path);

		if (other > 0)
			kb_err_set(err, KB_EEXISTS,
				   "another kbisectd (pid %ld) uses database '%s'",
				   other, d.db_path);
		else
			kb_err_set(err, KB_EEXISTS,
				   "another kbisectd uses database '%s'",
				   d.db_path);
	}
	if (ret)
		return ret;
	d.lock_fd = fd;
	return 0;
}

/* ---- the socket ---------------------------------------------------------- */

static int make_socket(struct kb_err *err)
{
	struct sockaddr_un sa;
	size_t len = strlen(d.socket_path);
	struct stat st;
	int fd = -1, ret;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (len >= sizeof(sa.sun_path))
		return kb_err_set(err, KB_EINPUT,
				  "socket path '%s' is too long",
				  d.socket_path);
	memcpy(sa.sun_path, d.socket_path, len + 1);
	if ((ret = kb_protocol_socket_dir_check(d.socket_path, 1, err)) ||
	    (ret = kb_mkdir_parent(d.socket_path, err)))
		return ret;
	if (lstat(d.socket_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return kb_err_set(err, KB_EEXISTS,
					  "'%s' exists and is not a socket",
					  d.socket_path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 &&
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(fd);
			return kb_err_set(err, KB_EEXISTS,
					  "a kbisectd already listens on '%s'",
					  d.socket_path);
		}
		if (fd >= 0)
			close(fd);
		logm(L_INFO, "replacing stale socket '%s'", d.socket_path);
		if (unlink(d.socket_path) < 0)
			return kb_err_set(err, KB_EFAIL,
					  "cannot remove stale socket '%s': %s",
					  d.socket_path, strerror(errno));
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return kb_err_set(err, KB_EFAIL, "cannot make a socket: %s",
				  strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(d.socket_path, 0660) < 0 ||
	    listen(fd, LISTEN_BACKLOG) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot listen on '%s': %s",
				 d.socket_path, strerror(errno));
		close(fd);
		return ret;
	}
	d.listen_fd = fd;
	return 0;
}

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
		if (kb_queue_destroy_orphans(uri, &n, &err))
			logm(L_WARN, "cannot look for orphan guests on %s: %s",
			     uri, err.msg);
		else if (n)
			logm(L_INFO, "destroyed %u orphan guest%s on %s", n,
			     n == 1 ? "" : "s", uri);
	}
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
static void reap(void)
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
static void schedule(void)
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

/* ---- clients ------------------------------------------------------------- */

/*
 * The clients' clock: monotonic time less the stalls of the loop (a
 * long SUBMIT, a scheduler pass, the daemon stopped), so that a client
 * is timed on what it does, not on the daemon being busy or away.
 */
static double client_clock(void)
{
	return kb_monotime() - d.stalled;
}

/* Bytes of @cl's output not sent yet. */
static size_t pending(const struct client *cl)
{
	return cl->out.len - cl->out_off;
}

/* Forget the first @n bytes of @b. */
static void buf_drop_front(struct kb_buf *b, size_t n)
{
	if (!n)
		return;
	memmove(b->buf, b->buf + n, b->len - n);
	b->len -= n;
	b->buf[b->len] = '\0';
}

static void send_msg(struct client *cl, const struct kb_msg *m)
{
	if (cl->dead)
		return;
	kb_protocol_write(&cl->out, m);
	if (!cl->out_since)
		cl->out_since = client_clock();
	if (pending(cl) > OUT_MAX) {
		logm(L_WARN, "client dropped: %zu bytes of answers unread",
		     pending(cl));
		cl->dead = 1;
	}
}

static void send_error(struct client *cl, int code, const char *msg)
{
	struct kb_msg m;

	memset(&m, 0, sizeof(m));
	m.type = KB_MSG_ERROR;
	m.code = code;
	m.message = (char *)msg;
	send_msg(cl, &m);
}

/* Fill @m with the progress of @ids[0..n). */
static int progress_msg(const int64_t *ids, size_t n, struct kb_msg *m,
			struct kb_err *err)
{
	size_t i;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->type = KB_MSG_PROGRESS;
	m->progress = kb_calloc(n ? n : 1, sizeof(*m->progress));
	for (i = 0; i < n; i++) {
		struct kb_store_progress p;
		double eta;

		if ((ret = kb_store_progress_get(d.s, ids[i], &p, err)))
			break;
		eta = kb_queue_eta(&p, d.build_jobs,
				   kb_sched_boot_slots(d.sched, ids[i]));
		kb_queue_progress_msg(&p, eta, &m->progress[m->nprogress++]);
		kb_store_progress_release(&p);
	}
	if (ret)
		kb_msg_release(m);
	return ret;
}

static int ended(const char *state)
{
	return state && strcmp(state, "queued") && strcmp(state, "running");
}

/* Send a watcher its experiment's progress when it changed. */
static void update_watch(struct client *cl)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf line = KB_BUF_INIT;
	struct kb_msg m;

	if (!cl->watch || cl->closing || cl->dead || pending(cl) >= OUT_HIGH)
		return;
	if (progress_msg(&cl->watch, 1, &m, &err)) {
		send_error(cl, err.code, err.msg);
		cl->closing = 1;
		return;
	}
	/* elapsed time changes every second: compare without it */
	m.progress[0].elapsed_s = NAN;
	kb_protocol_write(&line, &m);
	/* and at least every heartbeat, so that the client can tell a
	 * long step from a stopped daemon */
	if (!cl->last || strcmp(cl->last, line.buf) ||
	    kb_monotime() - cl->last_sent >= KB_PROTOCOL_HEARTBEAT_S) {
		struct kb_err e2 = KB_ERR_INIT;
		struct kb_msg full;

		free(cl->last);
		cl->last = kb_buf_detach(&line);
		if (progress_msg(&cl->watch, 1, &full, &e2) == 0) {
			send_msg(cl, &full);
			kb_msg_release(&full);
			cl->last_sent = kb_monotime();
		}
	}
	if (ended(m.progress[0].state))
		cl->closing = 1;
	kb_buf_release(&line);
	kb_msg_release(&m);
}

static void handle(struct client *cl, const struct kb_msg *req)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg reply;
	int64_t id = 0, *ids = NULL;
	size_t n = 0;

	memset(&reply, 0, sizeof(reply));
	if (!cl->hello && req->type != KB_MSG_HELLO) {
		send_error(cl, KB_EINPUT, "say hello first");
		cl->closing = 1;
		return;
	}
	switch (req->type) {
	case KB_MSG_HELLO:
		if (req->version != KB_PROTOCOL_VERSION) {
			char *msg = kb_asprintf("this kbisectd speaks protocol version %u, the client %u",
						KB_PROTOCOL_VERSION,
						req->version);

			send_error(cl, KB_EFAIL, msg);
			free(msg);
			cl->closing = 1;
			return;
		}
		cl->hello = 1;
		reply.type = KB_MSG_HELLO;
		reply.version = KB_PROTOCOL_VERSION;
		reply.daemon = d.owner;
		send_msg(cl, &reply);
		return;
	case KB_MSG_SUBMIT: {
		struct kb_queue_submission sub = { req->matrix,
						   req->matrix_path,
						   req->model };
		/* the caps on the plan a client raised; 0: the defaults */
		struct kb_plan_limits lim = {
			.max_boots = (unsigned long long)req->max_boots,
			.max_samples = (unsigned long long)req->max_samples,
		};

		if (d.stopping) {
			send_error(cl, KB_EFAIL, "kbisectd is stopping");
			return;
		}
		if (kb_queue_submit_limited(d.s, &sub, &lim, &id, &err)) {
			logm(L_INFO, "submission refused: %s", err.msg);
			send_error(cl, err.code, err.msg);
			return;
		}
		d.wake = 1;
		logm(L_INFO, "experiment %lld submitted (%s)",
		     (long long)id, req->model ? "model" : "libvirt");
		reply.type = KB_MSG_SUBMITTED;
		reply.id = id;
		send_msg(cl, &reply);
		return;
	}
	case KB_MSG_STATUS:
		if (req->id) {
			id = req->id;
			ids = &id;
			n = 1;
		} else if (kb_store_progress_recent(d.s, STATUS_RECENT, &ids,
						    &n, &err)) {
			send_error(cl, err.code, err.msg);
			return;
		}
		if (progress_msg(ids, n, &reply, &err))
			send_error(cl, err.code, err.msg);
		else
			send_msg(cl, &reply);
		if (ids != &id)
			free(ids);
		kb_msg_release(&reply);
		return;
	case KB_MSG_CANCEL: {
		char *state = NULL;

		if (kb_store_experiment_cancel(d.s, req->id, &err) ||
		    kb_store_experiment_settle(d.s, req->id, &state, &err)) {
			send_error(cl, err.code, err.msg);
			return;
		}
		logm(L_INFO, "experiment %lld: cancel asked (%s)",
		     (long long)req->id, state);
		reply.type = KB_MSG_CANCELLING;
		reply.id = req->id;
		reply.state = state;
		send_msg(cl, &reply);
		free(state);
		return;
	}
	case KB_MSG_WATCH: {
		struct kb_store_progress p;

		if (kb_store_progress_get(d.s, req->id, &p, &err)) {
			send_error(cl, err.code, err.msg);
			return;
		}
		kb_store_progress_release(&p);
		cl->watch = req->id;
		update_watch(cl);
		return;
	}
	default:
		send_error(cl, KB_EINPUT, "a client cannot send that message");
		return;
	}
}

static void client_free(struct client *cl)
{
	if (!cl)
		return;
	close(cl->fd);
	kb_buf_release(&cl->in);
	kb_buf_release(&cl->out);
	free(cl->last);
	free(cl);
}

/* Take waiting connections while there is a free slot; the others wait
 * in the listen backlog until one frees (a client gives up after its
 * timeout). */
static void accept_clients(void)
{
	for (;;) {
		struct client *cl;
		size_t i;
		int fd;

		for (i = 0; i < MAX_CLIENTS && d.clients[i]; i++)
			;
		if (i == MAX_CLIENTS)
			return;
		fd = accept(d.listen_fd, NULL, NULL);
		if (fd < 0)
			return;
		fcntl(fd, F_SETFL, O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		cl = kb_calloc(1, sizeof(*cl));
		cl->fd = fd;
		kb_buf_init(&cl->in);
		kb_buf_init(&cl->out);
		/* HELLO is due within the timeout, as any request */
		cl->line_start = cl->idle_since = client_clock();
		d.clients[i] = cl;
		logm(L_DEBUG, "client connected");
	}
}

/* Whether @cl's input waits: it is closing, or has not read enough. */
static int paused(const struct client *cl)
{
	return cl->closing || cl->dead || pending(cl) >= OUT_HIGH;
}

/* Answer the complete lines @cl sent, while its answers are read. */
static void client_answer(struct client *cl)
{
	int partial = 0;

	cl->held = 0;
	for (;;) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_msg req;
		const char *l;
		size_t len;
		int r;

		if (paused(cl)) {
			cl->held = !cl->closing && cl->in_off < cl->in.len;
			break;
		}
		r = kb_protocol_next_line(&cl->in, &cl->in_off, &l, &len, &err);
		if (r < 0) {
			send_error(cl, KB_EINPUT, err.msg);
			cl->closing = 1;
			break;
		}
		if (r == 0) {
			partial = cl->in_off < cl->in.len;
			break;
		}
		cl->line_start = 0;
		cl->idle_since = client_clock();
		if (kb_protocol_parse_buffer(l, len, &req, &err)) {
			logm(L_DEBUG, "bad message: %s", err.msg);
			send_error(cl, KB_EINPUT, err.msg);
			continue;
		}
		handle(cl, &req);
		kb_msg_release(&req);
	}
	buf_drop_front(&cl->in, cl->in_off);
	cl->in_off = 0;
	if (partial && !cl->line_start)
		cl->line_start = client_clock();
}

/* Read what @cl sent, up to READ_MAX (a long request takes a few turns
 * of the loop, not one per chunk), and answer it.  Returns -1 when the
 * client is gone. */
static int client_read(struct client *cl)
{
	char chunk[READ_CHUNK];
	size_t total = 0;

	while (!paused(cl) && total < READ_MAX) {
		ssize_t got = read(cl->fd, chunk, sizeof(chunk));

		if (got == 0)
			return -1;
		if (got < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		total += (size_t)got;
		kb_buf_add(&cl->in, chunk, (size_t)got);
		/* no newline in it: the line goes on (a long one is not
		 * searched again and again) */
		if (!cl->held && !memchr(chunk, '\n', (size_t)got) &&
		    cl->in.len <= KB_PROTOCOL_MAX_LINE) {
			if (!cl->line_start)
				cl->line_start = client_clock();
			continue;
		}
		client_answer(cl);
	}
	return 0;
}

/* Write what is pending.  Returns -1 when the client is gone or done. */
static int client_write(struct client *cl)
{
	while (pending(cl)) {
		ssize_t n = send(cl->fd, cl->out.buf + cl->out_off, pending(cl),
				 MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (n <= 0)
			break;
		cl->out_off += (size_t)n;
		cl->out_since = client_clock();
	}
	if (!pending(cl)) {
		kb_buf_reset(&cl->out);
		cl->out_off = 0;
		cl->out_since = 0;
		cl->idle_since = client_clock();
		return cl->closing ? -1 : 0;
	}
	/* move the rest to the front only once as much has been sent:
	 * each byte is moved a bounded number of times */
	if (cl->out_off >= pending(cl)) {
		buf_drop_front(&cl->out, cl->out_off);
		cl->out_off = 0;
	}
	return 0;
}

/* Why @cl is to be dropped at @now, or NULL. */
static const char *overdue(const struct client *cl, double now)
{
	double t = d.client_timeout;

	if (cl->line_start && now - cl->line_start > t)
		return cl->hello ? "its request is unfinished"
				 : "it did not say hello";
	if (cl->out_since && now - cl->out_since > t)
		return "it does not read its answers";
	if (!cl->watch && !cl->line_start && !cl->out_since &&
	    now - cl->idle_since > t)
		return "it is idle";
	return NULL;
}

/* Read, answer, write and time @cl after poll said @revents.  Returns
 * -1 when it is to be dropped. */
static int client_serve(struct client *cl, short revents, double now)
{
	const char *why;

	if (cl->dead)
		return -1;
	if (!paused(cl) && (revents & (POLLIN | POLLHUP | POLLERR))) {
		if (client_read(cl) < 0)
			return -1;
	} else if (revents & (POLLHUP | POLLERR)) {
		return -1; /* gone without reading its answers */
	}
	if ((pending(cl) || cl->closing) && client_write(cl) < 0)
		return -1;
	/* requests held back while the answers were unread */
	if (cl->held && !paused(cl)) {
		client_answer(cl);
		if ((pending(cl) || cl->closing) && client_write(cl) < 0)
			return -1;
	}
	if (cl->dead)
		return -1;
	if ((why = overdue(cl, now))) {
		logm(L_INFO, "client dropped: %s after %u s", why,
		     d.client_timeout);
		return -1;
	}
	return 0;
}

/* ---- main loop ----------------------------------------------------------- */

static void renew(void)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_sched_renew(d.sched, time(NULL), &err))
		logm(L_ERROR, "cannot renew leases: %s", err.msg);
}

static void drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int loop(void)
{
	struct pollfd pf[3 + MAX_CLIENTS];
	struct client *who[3 + MAX_CLIENTS];
	double last_schedule = 0;
	int announced = 0;

	for (;;) {
		size_t i, n = 0;
		double now;

		if (got_hup) {
			got_hup = 0;
			if (d.log_path && open_log(d.log_path) < 0)
				logm(L_ERROR, "cannot reopen log '%s': %s",
				     d.log_path, strerror(errno));
			else
				logm(L_INFO, "log reopened");
		}
		if (got_term > 1) {
			logm(L_WARN, "second signal: exiting now; running steps will be redone");
			return 1;
		}
		if (got_term && !announced) {
			d.stopping = 1;
			announced = 1;
			logm(L_INFO, "stopping: %u running step%s finish first",
			     kb_sched_running(d.sched),
			     kb_sched_running(d.sched) == 1 ? "" : "s");
		}
		reap();
		if (d.stopping && !kb_sched_running(d.sched)) {
			logm(L_INFO, "stopped");
			return 0;
		}
		if (d.wake || kb_monotime() - last_schedule >= TICK_MS / 1000.0) {
			d.wake = 0;
			schedule();
			last_schedule = kb_monotime();
		}
		renew();
		for (i = 0; i < MAX_CLIENTS; i++)
			if (d.clients[i])
				update_watch(d.clients[i]);

		pf[n].fd = d.sig_pipe[0];
		pf[n].events = POLLIN;
		who[n++] = NULL;
		pf[n].fd = d.done_pipe[0];
		pf[n].events = POLLIN;
		who[n++] = NULL;
		/* a full table leaves new connections in the backlog */
		for (i = 0; i < MAX_CLIENTS && d.clients[i]; i++)
			;
		pf[n].fd = i < MAX_CLIENTS ? d.listen_fd : -1;
		pf[n].events = POLLIN;
		who[n++] = NULL;
		for (i = 0; i < MAX_CLIENTS; i++) {
			struct client *cl = d.clients[i];

			if (!cl)
				continue;
			pf[n].fd = cl->fd;
			pf[n].events = (short)((paused(cl) ? 0 : POLLIN) |
					       (pending(cl) ? POLLOUT : 0));
			who[n++] = cl;
			if (cl->closing && !pending(cl))
				pf[n - 1].events = POLLOUT;
		}
		/* the turn since the last poll beyond STALL_S, and a poll
		 * beyond its timeout and STALL_S, are the daemon's own stall */
		now = kb_monotime();
		if (d.awake && now - d.awake > STALL_S)
			d.stalled += now - d.awake - STALL_S;
		/* a pass left work: serve the clients, then go on */
		if (poll(pf, n, d.wake ? 0 : TICK_MS) < 0 && errno != EINTR) {
			logm(L_ERROR, "poll: %s", strerror(errno));
			return 1;
		}
		d.awake = kb_monotime();
		if (d.awake - now > TICK_MS / 1000.0 + STALL_S)
			d.stalled += d.awake - now - TICK_MS / 1000.0 - STALL_S;
		if (pf[0].revents)
			drain(d.sig_pipe[0]);
		if (pf[1].revents)
			drain(d.done_pipe[0]);
		if (pf[2].revents & POLLIN)
			accept_clients();
		now = client_clock();
		for (i = 3; i < n; i++) {
			struct client *cl = who[i];
			size_t k;

			if (client_serve(cl, pf[i].revents, now) == 0)
				continue;
			for (k = 0; k < MAX_CLIENTS; k++)
				if (d.clients[k] == cl)
					d.clients[k] = NULL;
			client_free(cl);
		}
	}
}

/* ---- start --------------------------------------------------------------- */

/* What the command line parses into (lib/cmdopt.h). */
struct daemon_args {
	struct kb_args common; /* --socket, --db */
	const char *build_jobs;
	const char *client_timeout;
	const char *lease;
	const char *log;
	int verbose;
	int version;
};

static const struct kb_opt daemon_opts[] = {
	KB_OPT_SOCKET,
	KB_OPT_DB,
	KB_OPT_STRING(struct daemon_args, build_jobs, 0, "build-jobs", "N",
		      "kernel builds at once (default 1)"),
	KB_OPT_STRING(struct daemon_args, lease, 0, "lease", "SECONDS",
		      "lease of a step, renewed while it runs (default 60)"),
	KB_OPT_STRING(struct daemon_args, client_timeout, 0, "client-timeout",
		      "SECONDS",
		      "drop a client stalled or idle that long (default 10)"),
	KB_OPT_STRING(struct daemon_args, log, 0, "log", "FILE",
		      "log there instead of stderr; SIGHUP reopens it"),
	KB_OPT_BOOL(struct daemon_args, verbose, 'v', "verbose",
		    "log every step (level debug)"),
	KB_OPT_BOOL_FLAGS(struct daemon_args, version, 0, "version",
			  KB_OPT_HIDDEN, "print the version and exit"),
	KB_OPT_END,
};

static int start_scheduler(struct kb_err *err)
{
	struct kb_sched_opts o = KB_SCHED_OPTS_INIT;

	o.store = d.s;
	o.owner = d.owner;
	o.build_jobs = d.build_jobs;
	o.max_steps = MAX_WORKERS;
	o.lease_s = d.lease_s;
	o.time_scale = d.time_scale;
	o.max_loads = PASS_LOADS;
	o.note = on_note;
	o.host_note = on_host_note;
	return kb_sched_new(&o, &d.sched, err);
}

static void usage(FILE *f)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_adds(&b, "usage: kbisectd");
	kb_cmdopt_usage(&b, "", daemon_opts, 72);
	kb_buf_adds(&b, "\n\nThe kbisect daemon: runs experiments submitted with `kbisect\n"
		    "submit` from a crash-safe queue in the database.\n\n");
	kb_cmdopt_help(&b, daemon_opts, 72);
	kb_buf_adds(&b, "\nSIGTERM lets running steps finish, then exits.  See\n"
		    "docs/daemon.md.\n");
	fputs(b.buf, f);
	kb_buf_release(&b);
}

static int parse_uint(const char *s, unsigned min, unsigned max,
		      unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon_args args;
	struct kb_err err = KB_ERR_INIT;
	char *def_db = NULL, *def_sock = NULL;
	struct sigaction sa;
	unsigned n, lease = 60;
	int ret = 1;

	memset(&d, 0, sizeof(d));
	d.build_jobs = 1;
	d.client_timeout = CLIENT_TIMEOUT_S;
	d.lock_fd = d.listen_fd = -1;
	pthread_mutex_init(&d.lock, NULL);
	memset(&args, 0, sizeof(args));
	if (kb_cmdopt_parse(daemon_opts, "", argc - 1, argv + 1, &args,
			    sizeof(args), &err)) {
		fprintf(stderr, "kbisectd: %s\n", err.msg);
		usage(stderr);
		return 2;
	}
	if (args.common.help) {
		usage(stdout);
		return 0;
	}
	if (args.version) {
		printf("kbisectd %s (protocol %u)\n", KBISECTD_VERSION,
		       KB_PROTOCOL_VERSION);
		return 0;
	}
	d.socket_path = args.common.socket;
	d.db_path = args.common.db;
	d.log_path = args.log;
	if (args.verbose)
		log_level = L_DEBUG;
	if (args.build_jobs) {
		if (parse_uint(args.build_jobs, 1, 16, &n)) {
			fprintf(stderr, "kbisectd: --build-jobs wants a number from 1 to 16\n");
			return 2;
		}
		d.build_jobs = n;
	}
	if (args.lease && parse_uint(args.lease, 3, 86400, &lease)) {
		fprintf(stderr, "kbisectd: --lease wants seconds from 3 to 86400\n");
		return 2;
	}
	d.lease_s = lease;
	if (args.client_timeout &&
	    parse_uint(args.client_timeout, 1, 3600, &d.client_timeout)) {
		fprintf(stderr, "kbisectd: --client-timeout wants seconds from 1 to 3600\n");
		return 2;
	}
	if (d.log_path && open_log(d.log_path) < 0) {
		fprintf(stderr, "kbisectd: cannot open log '%s': %s\n",
			d.log_path, strerror(errno));
		return 1;
	}
	if (!d.db_path)
		d.db_path = def_db = kb_paths_default_db();
	if (!d.socket_path)
		d.socket_path = def_sock = kb_protocol_default_socket();
	if (kb_model_time_scale_env(&d.time_scale, &err))
		goto fail;
	d.owner = kb_queue_instance_id();
	if (pipe(d.sig_pipe) < 0 || pipe(d.done_pipe) < 0) {
		kb_err_set(&err, KB_EFAIL, "cannot make a pipe: %s",
			   strerror(errno));
		goto fail;
	}
	fcntl(d.sig_pipe[0], F_SETFL, O_NONBLOCK);
	fcntl(d.sig_pipe[1], F_SETFL, O_NONBLOCK);
	fcntl(d.done_pipe[0], F_SETFL, O_NONBLOCK);
	fcntl(d.done_pipe[1], F_SETFL, O_NONBLOCK);

	/* one daemon per database, then one per socket */
	if (kb_mkdir_parent(d.db_path, &err) || lock_database(&err) ||
	    kb_store_open(d.db_path, NULL, &d.s, &err) || make_socket(&err))
		goto fail;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	if (start_scheduler(&err))
		goto fail;
	if (kb_store_job_release_others(d.s, d.owner, &n, &err))
		goto fail;
	logm(L_INFO, "kbisectd %s listening on '%s', database '%s', instance %s",
	     KBISECTD_VERSION, d.socket_path, d.db_path, d.owner);
	if (n)
		logm(L_INFO, "took back %u step%s a stopped daemon was running: they run again",
		     n, n == 1 ? "" : "s");
	/* `kbisect run` experiments whose process is gone: not ours to
	 * resume (kbisect resume does), but no longer shown running */
	if (kb_store_experiments_interrupt_gone(d.s, &n, &err))
		goto fail;
	if (n)
		logm(L_INFO, "marked %u experiment%s of a kbisect process that is gone interrupted",
		     n, n == 1 ? "" : "s");
	/* Orphan guests: each experiment's hosts are swept when it is
	 * loaded (on_note -> kb_queue_destroy_orphans), before any step
	 * of it starts; model experiments start no guests. */
	ret = loop();
	goto out;
fail:
	fprintf(stderr, "kbisectd: %s\n", err.msg[0] ? err.msg : "failed");
	ret = kb_err_exit_status(err.code ? err.code : KB_EFAIL);
out:
	if (d.listen_fd >= 0) {
		close(d.listen_fd);
		unlink(d.socket_path);
	}
	for (n = 0; n < MAX_CLIENTS; n++)
		client_free(d.clients[n]);
	kb_sched_free(d.sched);
	kb_store_close(d.s);
	/* d.lock_fd stays open: steps still running after a second signal
	 * hold fcntl locks on the database that closing it would drop; the
	 * kernel releases the lock at exit */
	free(d.owner);
	free(def_db);
	free(def_sock);
	return ret;
}
