/*
 * kbisectd: the kbisect daemon (docs/daemon.md).  It takes experiments
 * from `kbisect submit` over a unix socket (docs/protocol.md), keeps them
 * as jobs in the sqlite queue, and runs each build and boot as a step
 * under a lease: at most --build-jobs builds at once, and per libvirt host
 * as many boots as its capacity in the matrix's hosts: list.
 *
 * One thread (main.c's loop) owns the socket, the clients (client.c) and
 * the scheduler (lib/scheduler.h: which jobs to lease and start, within
 * the build slots and host capacities); each step runs in a thread of its
 * own (step.c) with its own database connection and executor, and stores
 * its result with its job's end in one transaction.  kbisectd.h says how
 * the files divide the work.  A daemon killed at any instant leaves
 * leases that the next one takes back at start: those steps run again,
 * finished ones never do.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmdopt.h"
#include "err.h"
#include "fsutil.h"
#include "kbisectd.h"
#include "model.h"
#include "paths.h"
#include "plan.h"
#include "protocol.h"
#include "queue.h"
#include "scheduler.h"
#include "store.h"
#include "banned.h"

#define KBISECTD_VERSION "0.1.0"
#define TICK_MS 200
/* Seconds of one turn of the loop, or of a poll beyond its timeout,
 * after which the clients' clocks stop: a stall of the daemon's own (a
 * long request, SIGSTOP, no CPU) is not held against them. */
#define STALL_S 0.5
/* Default --client-timeout, seconds. */
#define CLIENT_TIMEOUT_S 10
/* Default ceilings on the caps a client raises (--max-boots,
 * --max-samples): ten times the plan's own defaults (lib/plan.h). */
#define CEILING_BOOTS (10ull * KB_PLAN_MAX_BOOTS)
#define CEILING_SAMPLES (10ull * KB_PLAN_MAX_SAMPLES)

/* ---- state and signals --------------------------------------------------- */

/* The state the daemon's files share is state.c's (kbisectd.h). */

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

/* ---- main loop ----------------------------------------------------------- */

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
		submit_collect();
		if (d.stopping && !kb_sched_running(d.sched) &&
		    !submits_pending()) {
			logm(L_INFO, "stopped");
			return 0;
		}
		/* leases first: a pass after a stall finds them renewed */
		renew();
		if (d.wake || kb_monotime() - last_schedule >= TICK_MS / 1000.0) {
			d.wake = 0;
			schedule();
			last_schedule = kb_monotime();
		}
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
			client_pollfd(cl, &pf[n]);
			who[n++] = cl;
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
		now = daemon_clock();
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

/* What the command line parses into (lib/util/cmdopt.h). */
struct daemon_args {
	struct kb_args common; /* --socket, --db */
	const char *build_jobs;
	const char *client_timeout;
	const char *lease;
	const char *log;
	const char *max_boots;
	const char *max_samples;
	const char *sweep;
	int verbose;
	int version;
};

static const struct kb_opt daemon_opts[] = {
	KB_OPT_SOCKET,
	KB_OPT_DB_DAEMON,
	KB_OPT_STRING(struct daemon_args, build_jobs, 0, "build-jobs", "N",
		      "kernel builds at once (default 1)"),
	KB_OPT_STRING(struct daemon_args, lease, 0, "lease", "SECONDS",
		      "lease of a step, renewed while it runs (default 60)"),
	KB_OPT_STRING(struct daemon_args, client_timeout, 0, "client-timeout",
		      "SECONDS",
		      "drop a client stalled or idle that long (default 10)"),
	KB_OPT_STRING(struct daemon_args, log, 0, "log", "FILE",
		      "log there instead of stderr; SIGHUP reopens it"),
	KB_OPT_STRING(struct daemon_args, max_boots, 0, "max-boots", "N",
		      "the highest cap on boots a client may raise (default 1000000)"),
	KB_OPT_STRING(struct daemon_args, max_samples, 0, "max-samples", "N",
		      "the highest cap on samples a client may raise (default 10000000)"),
	KB_OPT_BOOL(struct daemon_args, verbose, 'v', "verbose",
		    "log every step (level debug)"),
	KB_OPT_BOOL_FLAGS(struct daemon_args, version, 0, "version",
			  KB_OPT_HIDDEN, "print the version and exit"),
	/* the daemon's own child, one per host swept at start (step.c) */
	{ .name = "sweep-orphans", .kind = KB_OPT_VALUE, .arg = "URI",
	  .help = "destroy the orphan guests on URI and exit",
	  .flags = KB_OPT_HIDDEN,
	  .offset = KB_OPT_OFFSET_(struct daemon_args, sweep, const char *) },
	KB_OPT_END,
};

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

static int parse_ull(const char *s, unsigned long long min,
		     unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > INT64_MAX)
		return -1;
	*out = v;
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
	d.max_boots = CEILING_BOOTS;
	d.max_samples = CEILING_SAMPLES;
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
	if (args.sweep)
		return sweep_orphans_main(args.sweep);
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
	if (args.max_boots &&
	    parse_ull(args.max_boots, KB_PLAN_MAX_BOOTS, &d.max_boots)) {
		fprintf(stderr, "kbisectd: --max-boots wants a number of at least %u\n",
			KB_PLAN_MAX_BOOTS);
		return 2;
	}
	if (args.max_samples &&
	    parse_ull(args.max_samples, KB_PLAN_MAX_SAMPLES, &d.max_samples)) {
		fprintf(stderr, "kbisectd: --max-samples wants a number of at least %u\n",
			KB_PLAN_MAX_SAMPLES);
		return 2;
	}
	if (d.log_path && open_log(d.log_path) < 0) {
		fprintf(stderr, "kbisectd: cannot open log '%s': %s\n",
			d.log_path, strerror(errno));
		return 1;
	}
	if (!d.db_path)
		d.db_path = def_db = kb_paths_default_db();
	d.db_abs = kb_path_absolute(d.db_path);
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
	/* Orphan guests: the hosts of each experiment queued at start are
	 * swept when it is loaded (on_note -> sweep_orphans), each in a
	 * thread of its own, off the loop; model experiments start no
	 * guests. */
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
	free(d.db_abs);
	free(def_db);
	free(def_sock);
	return ret;
}
