/*
 * kbisectd's socket and clients (kbisectd.h, docs/protocol.md): the
 * listening socket, connections accepted into d.clients, their requests
 * read line by line and answered, their answers written, and the clients
 * that stall or idle past --client-timeout dropped.
 */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "kbisectd.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "protocol.h"
#include "queue.h"
#include "scheduler.h"
#include "store.h"
#include "banned.h"

#define STATUS_RECENT 20
/* Connections waiting while every client slot is taken. */
#define LISTEN_BACKLOG 128
/* Bytes read from a client at once, and at most in one turn of the loop. */
#define READ_CHUNK 65536
#define READ_MAX (1u << 20)
/* Unsent bytes past which a client's requests wait (it is not read), and
 * past which it is dropped: answers to pipelined requests, PROGRESS
 * lines to a watcher, never grow beyond them. */
#define OUT_HIGH (256u << 10)
#define OUT_MAX (1u << 20)
/* Client slots a watcher never holds: a watcher is never idle, so
 * watchers filling every slot would lock out every request until their
 * experiments end (status, submit, cancel).  And the watchers one user
 * (uid) may have at once, so that one user cannot take the rest. */
#define REQUEST_SLOTS 16
#define WATCH_PER_USER 16

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
	uint64_t serial;   /* its number among the connections since start */
	uid_t uid;         /* the peer's (SO_PEERCRED); (uid_t)-1: unknown */
	int submitting;    /* its SUBMIT is with the submitter (paused) */
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

/* ---- the socket ---------------------------------------------------------- */

int make_socket(struct kb_err *err)
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

/* ---- clients ------------------------------------------------------------- */

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
		cl->out_since = daemon_clock();
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
void update_watch(struct client *cl)
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

/* Why @cl may not watch too, or NULL: the watchers would hold the slots
 * kept for requests, or its user's share (caller frees). */
static char *watch_refused(const struct client *cl)
{
	unsigned all = 0, mine = 0;
	size_t i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		const struct client *o = d.clients[i];

		if (!o || !o->watch || o->closing || o->dead)
			continue;
		all++;
		mine += o->uid == cl->uid;
	}
	if (all >= MAX_CLIENTS - REQUEST_SLOTS)
		return kb_asprintf("kbisectd has %u watchers, as many as it takes beside requests: try again later",
				   all);
	if (mine >= WATCH_PER_USER)
		return kb_asprintf("uid %ld has %u watchers, as many as one user may have at once",
				   (long)cl->uid, mine);
	return NULL;
}

/* ---- submissions, off the loop ------------------------------------------ */

/*
 * A SUBMIT is planned and stored (kb_queue_submit_limited()) by one
 * thread of its own, with its own database connection, in the order
 * they came: a large matrix takes its time there, not the loop's.  Its
 * client is paused meanwhile (its later requests wait, answered in
 * order) and answered by submit_collect() in the loop; a client gone
 * meanwhile finds its experiment queued all the same.
 */
struct submission {
	struct submission *next;
	uint64_t client; /* the serial of the client that asked */
	char *matrix, *matrix_path, *model;
	struct kb_plan_limits lim;
	int ret;         /* kb_queue_submit_limited()'s */
	int64_t id;
	struct kb_err err;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct submission *todo, *done; /* in order, under lock */
	unsigned pending;               /* queued or done, not answered */
	int started;
	pthread_t thread;
} subq = { .lock = PTHREAD_MUTEX_INITIALIZER,
	   .cond = PTHREAD_COND_INITIALIZER };

static uint64_t next_serial = 1;

static void submission_free(struct submission *sb)
{
	free(sb->matrix);
	free(sb->matrix_path);
	free(sb->model);
	free(sb);
}

/* Append @sb to the list at @head. */
static void append(struct submission **head, struct submission *sb)
{
	while (*head)
		head = &(*head)->next;
	sb->next = NULL;
	*head = sb;
}

static void *submitter(void *arg)
{
	struct kb_store *s = NULL;
	char c = 2;

	(void)arg;
	for (;;) {
		struct submission *sb;
		struct kb_queue_submission sub;

		pthread_mutex_lock(&subq.lock);
		while (!subq.todo)
			pthread_cond_wait(&subq.cond, &subq.lock);
		sb = subq.todo;
		subq.todo = sb->next;
		pthread_mutex_unlock(&subq.lock);

		sub.matrix_text = sb->matrix;
		sub.matrix_path = sb->matrix_path;
		sub.model_text = sb->model;
		if (s || !(sb->ret = kb_store_open(d.db_path, NULL, &s,
						   &sb->err)))
			sb->ret = kb_queue_submit_limited(s, &sub, &sb->lim,
							  &sb->id, &sb->err);

		pthread_mutex_lock(&subq.lock);
		append(&subq.done, sb);
		pthread_mutex_unlock(&subq.lock);
		if (write(d.done_pipe[1], &c, 1) < 0) {
			/* the loop polls every tick anyway */
		}
	}
	return NULL;
}

/* Hand @sub to the submitter for @cl, which waits for its answer. */
static void submit_queue(struct client *cl,
			 const struct kb_queue_submission *sub,
			 const struct kb_plan_limits *lim)
{
	struct submission *sb = kb_calloc(1, sizeof(*sb));
	int rc;

	sb->client = cl->serial;
	sb->matrix = kb_strdup(sub->matrix_text);
	sb->matrix_path = sub->matrix_path ? kb_strdup(sub->matrix_path)
					   : NULL;
	sb->model = sub->model_text ? kb_strdup(sub->model_text) : NULL;
	sb->lim = *lim;
	if (!subq.started) {
		if ((rc = pthread_create(&subq.thread, NULL, submitter,
					 NULL))) {
			logm(L_ERROR, "cannot start the submission thread: %s",
			     strerror(rc));
			send_error(cl, KB_EFAIL,
				   "kbisectd cannot take submissions now: no thread");
			submission_free(sb);
			return;
		}
		pthread_detach(subq.thread);
		subq.started = 1;
	}
	cl->submitting = 1;
	pthread_mutex_lock(&subq.lock);
	append(&subq.todo, sb);
	subq.pending++;
	pthread_cond_signal(&subq.cond);
	pthread_mutex_unlock(&subq.lock);
}

unsigned submits_pending(void)
{
	unsigned n;

	pthread_mutex_lock(&subq.lock);
	n = subq.pending;
	pthread_mutex_unlock(&subq.lock);
	return n;
}

void submit_collect(void)
{
	struct submission *done, *sb;

	pthread_mutex_lock(&subq.lock);
	done = subq.done;
	subq.done = NULL;
	pthread_mutex_unlock(&subq.lock);
	while ((sb = done)) {
		struct client *cl = NULL;
		struct kb_msg reply;
		size_t i;

		done = sb->next;
		for (i = 0; i < MAX_CLIENTS && !cl; i++)
			if (d.clients[i] && d.clients[i]->serial == sb->client)
				cl = d.clients[i];
		if (sb->ret) {
			logm(L_INFO, "submission refused: %s", sb->err.msg);
		} else {
			d.wake = 1;
			logm(L_INFO, "experiment %lld submitted (%s)%s",
			     (long long)sb->id, sb->model ? "model" : "libvirt",
			     cl ? "" : "; its client is gone");
		}
		if (cl) {
			cl->submitting = 0;
			cl->idle_since = daemon_clock();
			if (sb->ret) {
				send_error(cl, sb->ret, sb->err.msg);
			} else {
				memset(&reply, 0, sizeof(reply));
				reply.type = KB_MSG_SUBMITTED;
				reply.id = sb->id;
				send_msg(cl, &reply);
			}
		}
		submission_free(sb);
		pthread_mutex_lock(&subq.lock);
		subq.pending--;
		pthread_mutex_unlock(&subq.lock);
	}
}

/* ---- requests ------------------------------------------------------------ */

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
		reply.db = d.db_abs;
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
		/* the caps keep a plan within what the daemon can hold: a
		 * client raises them only as far as this daemon allows */
		if (lim.max_boots > d.max_boots ||
		    lim.max_samples > d.max_samples) {
			int boots = lim.max_boots > d.max_boots;
			char *msg = kb_asprintf("a cap of %llu %s is above this kbisectd's ceiling of %llu (kbisectd --max-%s)",
						boots ? lim.max_boots : lim.max_samples,
						boots ? "boots" : "samples",
						boots ? d.max_boots : d.max_samples,
						boots ? "boots" : "samples");

			logm(L_INFO, "submission refused: %s", msg);
			send_error(cl, KB_EINPUT, msg);
			free(msg);
			return;
		}
		/* planned and stored off the loop (45,000 jobs take a
		 * second): the client waits, the others are served */
		submit_queue(cl, &sub, &lim);
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
		char *why;

		if (!cl->watch && (why = watch_refused(cl))) {
			logm(L_INFO, "watch refused: %s", why);
			send_error(cl, KB_EFAIL, why);
			free(why);
			cl->closing = 1;
			return;
		}

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

void client_free(struct client *cl)
{
	if (!cl)
		return;
	close(cl->fd);
	kb_buf_release(&cl->in);
	kb_buf_release(&cl->out);
	free(cl->last);
	free(cl);
}

/* The user at the other end of @fd, or (uid_t)-1. */
static uid_t peer_uid(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return (uid_t)-1;
	return cr.uid;
}

/* Take waiting connections while there is a free slot; the others wait
 * in the listen backlog until one frees (a client gives up after its
 * timeout). */
void accept_clients(void)
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
		cl->uid = peer_uid(fd);
		cl->serial = next_serial++;
		kb_buf_init(&cl->in);
		kb_buf_init(&cl->out);
		/* HELLO is due within the timeout, as any request */
		cl->line_start = cl->idle_since = daemon_clock();
		d.clients[i] = cl;
		logm(L_DEBUG, "client connected");
	}
}

/* Whether @cl's input waits: it is closing, its SUBMIT is being stored,
 * or it has not read enough. */
static int paused(const struct client *cl)
{
	return cl->closing || cl->dead || cl->submitting ||
	       pending(cl) >= OUT_HIGH;
}

void client_pollfd(const struct client *cl, struct pollfd *pf)
{
	pf->fd = cl->fd;
	pf->events = (short)((paused(cl) ? 0 : POLLIN) |
			     (pending(cl) ? POLLOUT : 0));
	if (cl->closing && !pending(cl))
		pf->events = POLLOUT;
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
		cl->idle_since = daemon_clock();
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
		cl->line_start = daemon_clock();
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
				cl->line_start = daemon_clock();
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
		cl->out_since = daemon_clock();
	}
	if (!pending(cl)) {
		kb_buf_reset(&cl->out);
		cl->out_off = 0;
		cl->out_since = 0;
		cl->idle_since = daemon_clock();
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
	if (!cl->watch && !cl->submitting && !cl->line_start &&
	    !cl->out_since && now - cl->idle_since > t)
		return "it is idle";
	return NULL;
}

/* Read, answer, write and time @cl after poll said @revents.  Returns
 * -1 when it is to be dropped. */
int client_serve(struct client *cl, short revents, double now)
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
