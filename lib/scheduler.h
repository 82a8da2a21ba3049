#ifndef KB_SCHEDULER_H
#define KB_SCHEDULER_H

#include <stddef.h>
#include <stdint.h>

#include "queue.h"
#include "store.h"

struct kb_err;

/*
 * The daemon's scheduler (docs/daemon.md): which queued jobs to start
 * now.  It holds the experiments of the queue (loaded once, forgotten
 * once they have ended and run nothing), and counts the steps it handed
 * out: builds against the build slots (--build-jobs), boots against each
 * libvirt host's capacity in the experiment's matrix (hosts:), all steps
 * against a cap.  A step is a job leased in the store under the
 * scheduler's owner (kb_store_job_claim), so that a job is never run by
 * two daemons, and a lease that expired is taken back by whoever claims
 * next.
 *
 * A pass does work in proportion to what changed, not to the queue: the
 * experiments submitted since the last pass are loaded, and the store is
 * asked only about experiments that may have a job ready (new ones, one
 * whose build ended, one with a lapsed lease, a few looked at again each
 * second in turn) or whose jobs changed (to settle them).
 *
 * It talks to no socket and prints nothing: what happens to experiments
 * as it goes is told to a note callback.  Besides the store, it only
 * loads experiments (kb_queue_exp_load(), which may resolve a real
 * experiment's configs in its source tree).  It does not run steps: the
 * caller does, in threads of its own, and reports each end with
 * kb_sched_finished().  Not thread-safe: one thread calls it.
 *
 * A pass, every tick and whenever a step ended or a job came:
 *
 *     if (kb_sched_refresh(sc, &err) == 0)
 *             while ((ret = kb_sched_next(sc, time(NULL), &step,
 *                                         &err)) != KB_ENOTFOUND)
 *                     if (ret == 0)
 *                             start(&step);
 *                     (else one claim failed: the pass goes on)
 */

/* What the scheduler tells its caller. */
enum kb_sched_note_kind {
	KB_SCHED_NOTE_LOADED, /* experiment @exp was loaded from the queue */
	KB_SCHED_NOTE_ENDED,  /* experiment @id ended: @state */
	KB_SCHED_NOTE_ERROR,  /* experiment @id: a store error @msg; when it
			       * could not be loaded it is failed */
};

struct kb_sched_note {
	enum kb_sched_note_kind kind;
	int64_t id;                     /* the experiment */
	const struct kb_queue_exp *exp; /* LOADED, else NULL */
	const char *state; /* ENDED: "done", "failed" or "cancelled" */
	const char *msg;   /* ERROR */
};

/* What the scheduler tells about hosts (docs/guests.md, "Several hosts"). */
enum kb_sched_host_kind {
	KB_SCHED_HOST_DRAINED, /* @host is drained: @msg "host X drained
				* after N infrastructure failures: ..." */
	KB_SCHED_HOST_BACK,    /* @host may run boots again */
	KB_SCHED_HOST_STUCK,   /* experiment @id has every host of its
				* matrix drained: its boots wait (@msg) */
};

struct kb_sched_host_note {
	enum kb_sched_host_kind kind;
	const char *host;
	int64_t id;      /* STUCK: the experiment; else 0 */
	const char *msg;
};

struct kb_sched_opts {
	struct kb_store *store; /* the queue; borrowed, outlives the
				 * scheduler (required) */
	const char *owner;      /* lease owner: the daemon instance id,
				 * kb_queue_instance_id() (required; copied) */
	unsigned build_jobs;    /* builds at once, at least 1 */
	unsigned max_steps;     /* steps of any kind at once, at least 1 */
	int64_t lease_s;        /* lease length in seconds, at least 1 */
	double time_scale;      /* for kb_queue_exp_load() */
	unsigned max_loads;     /* experiments loaded by one refresh at
				 * most (loading plans them); 0: all */
	unsigned drain_after;   /* host failures in a row that drain a
				 * host; 0: KB_SPREAD_DRAIN_AFTER (3) */
	double drain_s;         /* seconds a drained host stays out before
				 * it is tried again; 0: 600 */
	double retry_s;         /* seconds a host that failed a boot gets
				 * no other, doubled for each failure in a
				 * row, times time_scale for a model
				 * experiment's boot (the daemon's:
				 * KB_SPREAD_RETRY_S); 0: none */
	/* told what happens to experiments; may be NULL */
	void (*note)(const struct kb_sched_note *n, void *arg);
	void *arg;
	/* told what happens to hosts, with @arg; may be NULL */
	void (*host_note)(const struct kb_sched_host_note *n, void *arg);
};
#define KB_SCHED_OPTS_INIT                                                 \
	{ .store = NULL, .owner = NULL, .build_jobs = 1, .max_steps = 64,  \
	  .lease_s = 60, .time_scale = 1, .max_loads = 0, .drain_after = 0, \
	  .drain_s = 0, .retry_s = 0, .note = NULL, .arg = NULL,           \
	  .host_note = NULL }

/* A job to run now, as kb_sched_next() hands it out. */
struct kb_sched_step {
	struct kb_store_job job;        /* the leased job (owned by the step) */
	const struct kb_queue_exp *exp; /* its experiment: valid until the
					 * step is finished */
	const char *host;               /* boots: the host URI whose slot it
					 * holds; builds: NULL.  Valid until
					 * kb_sched_free() */
	/* the caller's, before kb_sched_finished(): a boot the host could
	 * not run (kb_queue_run_boot_host()), or NULL (owned: freed by
	 * kb_sched_finished) */
	char *host_failure;
};

struct kb_sched;

/*
 * Make a scheduler from @o.  Returns 0 with *@out (caller frees with
 * kb_sched_free()), KB_EINPUT when a required option is missing or a
 * count is 0.
 */
int kb_sched_new(const struct kb_sched_opts *o, struct kb_sched **out,
		 struct kb_err *err);

/*
 * Free @sc and every experiment it holds (NULL is fine).  Steps still
 * running lose their experiment: free only when none runs, or when the
 * process exits.
 */
void kb_sched_free(struct kb_sched *sc);

/*
 * Start a pass: forget the experiments that left the queue and run no
 * step, and load those submitted since the last refresh, oldest first, at
 * most max_loads (kb_store_queue_experiments_after; note LOADED; one that
 * no longer loads is failed in the store, note ERROR).  Returns 0, or the
 * store's error (the experiments held stay as they were, and the pass
 * hands out nothing).
 */
int kb_sched_refresh(struct kb_sched *sc, struct kb_err *err);

/* Whether the last refresh stopped at max_loads with experiments perhaps
 * left to load: start the next pass without waiting. */
int kb_sched_behind(const struct kb_sched *sc);

/*
 * The next step of the pass kb_sched_refresh() started, leased until
 * @now + lease: first builds, oldest experiment first, while a build
 * slot is free; then boots, oldest experiment first and per host of its
 * matrix while the host runs fewer boots than its capacity there and is
 * not drained, each host the boots the experiment's spread gave it
 * (lib/spread.h).  An experiment whose matrix says builds must not
 * overlap its boots (kb_spread_overlap()) has no boot started while a
 * build runs, and no build starts while one of its boots runs.  The
 * store hands out only ready jobs: a boot once its build is done, nothing
 * of an experiment being cancelled or ended, a leased job once its lease
 * expired.  An experiment that runs nothing and whose jobs changed since
 * it was last settled is settled (kb_store_experiment_settle; note ENDED
 * when it ended).  Returns 0 with *@out filled (the step counts as
 * running until kb_sched_finished()), KB_ENOTFOUND when the pass has
 * nothing more to start, or a store error for one claim (or for the
 * look at lapsed leases the first call of a second makes): the pass goes
 * on when called again.
 */
int kb_sched_next(struct kb_sched *sc, int64_t now, struct kb_sched_step *out,
		  struct kb_err *err);

/*
 * Step @st has ended (its result stored, or not): its slots are free
 * again, a build's experiment is asked for boots at the next pass, and
 * the experiment is settled when it runs nothing more (notes ENDED or
 * ERROR; the time its builds and boots ran at once is added to it,
 * kb_store_overlap_add()).  A boot with a host_failure counts against
 * its host: after drain_after in a row the host is drained (note
 * KB_SCHED_HOST_DRAINED) for drain_s seconds, and the queued boots given
 * to it move to the other live hosts of each experiment, spread as
 * kb_spread_pick() does, with a "drained" host event (KB_SCHED_HOST_STUCK
 * for an experiment left without one); a boot that ended otherwise
 * clears the count.  Releases
 * @st's job and clears @st.
 */
void kb_sched_finished(struct kb_sched *sc, struct kb_sched_step *st);

/*
 * Extend every lease the scheduler's owner holds to @now + lease, when
 * steps run and a third of the lease has passed since the last renewal;
 * else do nothing.  Returns 0 or the store's error.
 */
int kb_sched_renew(struct kb_sched *sc, int64_t now, struct kb_err *err);

/* Steps handed out and not finished: in all, builds, boots on @uri. */
unsigned kb_sched_running(const struct kb_sched *sc);
unsigned kb_sched_builds_running(const struct kb_sched *sc);
unsigned kb_sched_host_running(const struct kb_sched *sc, const char *uri);
/* Whether host @uri is drained now (until drain_s has passed). */
int kb_sched_host_drained(const struct kb_sched *sc, const char *uri);

/*
 * Boots of experiment @id that may run at once: the sum of the
 * capacities of its matrix's hosts that are not drained
 * (kb_sched_host_drained()), 0 when every one is; 1 for an experiment
 * the scheduler does not hold.  For the ETA (kb_queue_eta).
 */
unsigned kb_sched_boot_slots(const struct kb_sched *sc, int64_t id);

#endif
