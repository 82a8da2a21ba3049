#ifndef KBISECTD_H
#define KBISECTD_H

/*
 * kbisectd's private header: the state the daemon's files share and the
 * functions between them (docs/daemon.md).  The files, each with one
 * concern, as tmux splits server.c from server-client.c:
 *
 *	main.c    the command line, start-up, the signals, the main loop
 *	client.c  the socket: accepting, reading requests, answering them;
 *	          the submission thread that plans and stores SUBMITs
 *	step.c    the scheduler's notes, the orphan sweeps (a child per
 *	          host), and the workers: starting, running and reaping
 *	          steps, renewing their leases
 *	log.c     the log lines every other file writes
 *	state.c   the state d and the daemon's clock
 *
 * Calls go one way: main.c calls client.c and step.c, and every file
 * calls log.c; client.c and step.c do not call each other, and meet only
 * in the state d (defined in state.c).  d is the main thread's, but for
 * what a worker or the submission thread reads (the paths, the owner,
 * done_pipe) and what a worker writes under d.lock (its struct worker's
 * ret and finished); the submission thread's queue is client.c's, under
 * a lock of its own.
 */

#include <poll.h>
#include <pthread.h>
#include <stdint.h>

#include "err.h"
#include "scheduler.h"
#include "store.h"

#define MAX_CLIENTS 64
#define MAX_WORKERS 64

/* ---- the state (main.c) -------------------------------------------------- */

/* A step running in a thread of its own (step.c). */
struct worker {
	pthread_t thread;
	int used;
	int finished;             /* set by the thread under d.lock */
	struct kb_sched_step step; /* its job, experiment and host */
	int ret;
	struct kb_err err;
	double started;
};

/* A connection (client.c). */
struct client;

struct daemon {
	const char *db_path;
	char *db_abs;            /* db_path made absolute: HELLO says it */
	const char *socket_path;
	const char *log_path;
	char *owner;
	unsigned build_jobs;
	unsigned client_timeout; /* seconds */
	/* the highest caps on a plan a client may raise (--max-boots,
	 * --max-samples): a SUBMIT asking for more is refused */
	unsigned long long max_boots, max_samples;
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
	int64_t lease_epoch;    /* the lease clock (step.c): wall time at */
	double lease_mono;      /* start, and the stall-less monotonic
				 * time then */
};

/* The daemon's one state, set up by main() before anything else runs. */
extern struct daemon d;

/*
 * The daemon's clock (state.c), seconds: monotonic time less the stalls
 * of the loop (a scheduler pass, the daemon stopped), so that a client is
 * timed on what it does, not on the daemon being busy or away, and a
 * lease (step.c) runs out only while the daemon runs.  A step of the wall
 * clock does not move it.  The main thread's.
 */
double daemon_clock(void);

/* ---- logging (log.c) ----------------------------------------------------- */

enum level { L_ERROR, L_WARN, L_INFO, L_DEBUG };

/* Lines above it are not written (default L_INFO; --verbose: L_DEBUG). */
extern enum level log_level;

/* Write one line at level @l to stderr, with the time and the pid, its
 * control characters escaped (a newline as \n, ESC as \x1b); safe from
 * any thread. */
__attribute__((format(printf, 2, 3)))
void logm(enum level l, const char *fmt, ...);

/* Point stderr at @path (append), for --log and on SIGHUP.  Returns 0, or
 * -1 with errno set. */
int open_log(const char *path);

/* ---- the socket and the clients (client.c) ------------------------------- */

/* Listen on d.socket_path (its folder checked, a stale socket replaced,
 * a live one refused) and set d.listen_fd.  Returns 0 or a KB_E* code
 * with @err set. */
int make_socket(struct kb_err *err);


/* Take waiting connections into the free slots of d.clients. */
void accept_clients(void);

/* Send watcher @cl its experiment's progress when it changed (and at
 * least every heartbeat); nothing for a client that watches nothing. */
void update_watch(struct client *cl);

/* Fill @pf with @cl's descriptor and the events to poll it for: input
 * unless it is paused, output while answers are unsent or it closes. */
void client_pollfd(const struct client *cl, struct pollfd *pf);

/* Read, answer, write and time @cl after poll said @revents, at client
 * clock @now.  Returns -1 when it is to be dropped (client_free()). */
int client_serve(struct client *cl, short revents, double now);

/* Answer the SUBMITs the submission thread has stored or refused since
 * the last call (client.c plans and stores each off the loop). */
void submit_collect(void);

/* SUBMITs taken and not answered yet: the daemon stops only at 0. */
unsigned submits_pending(void);

/* Close @cl's connection and free it; NULL is accepted. */
void client_free(struct client *cl);

/* ---- the steps (step.c) -------------------------------------------------- */

/* Make d.sched over d.s, with the daemon's options and its notes logged
 * (the hosts of each experiment queued at start swept of orphan
 * guests as it loads, off the loop).  Returns
 * 0 or a KB_E* code with @err set. */
int start_scheduler(struct kb_err *err);

/* `kbisectd --sweep-orphans URI`, the child that sweeps one host for
 * the daemon (step.c): destroys the orphan guests there and prints how
 * many, or the error.  Returns the exit status, 0 or 1. */
int sweep_orphans_main(const char *uri);

/* Join the steps that ended and hand them back to the scheduler. */
void reap(void);

/* Claim and start the steps there is room for, each in a worker thread. */
void schedule(void);

/* Renew the leases of the running steps (failures are logged); before
 * schedule(), so that a pass after a stall finds them renewed.  Leases
 * are timed by a clock of the daemon's own (step.c, lease_now()):
 * monotonic, stopped while the daemon is. */
void renew(void);

#endif
