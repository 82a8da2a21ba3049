#ifndef KB_STORE_QUEUE_H
#define KB_STORE_QUEUE_H

/*
 * The daemon's queue in the store (lib/store/store_queue.c, db/0005,
 * lib/queue.c): experiments submitted with their jobs, jobs leased,
 * renewed, ended or handed back, cancelling and settling, and progress.
 */

#include <stddef.h>
#include <stdint.h>

#include "store_exp.h"
#include "variant.h"

struct kb_err;
struct kb_store;

enum kb_store_job_kind {
	KB_STORE_JOB_BUILD,
	KB_STORE_JOB_BOOT,
};

/* One job to create with an experiment. */
struct kb_store_job_spec {
	enum kb_store_job_kind kind;
	unsigned variant_idx; /* the variant to build or boot */
	unsigned boot_no;     /* boots: from 1 */
	unsigned seq;         /* order within the experiment and kind */
	const char *host;     /* boots: the host the spread gives it
			       * (lib/spread.h), or NULL: any host */
};

/*
 * Store an experiment in state "queued" with its variants and jobs
 * @jobs[0..njobs) in one transaction: when this returns 0, the submission
 * is durable and *@id is its id.  Nothing is written when it fails.
 */
int kb_store_experiment_submit(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       const struct kb_store_job_spec *jobs,
			       size_t njobs, int64_t *id, struct kb_err *err);

/* A leased job, as kb_store_job_claim() hands it out. */
struct kb_store_job {
	int64_t id;
	int64_t experiment;
	enum kb_store_job_kind kind;
	unsigned variant_idx;
	unsigned boot_no;   /* boots, from 1; 0 for builds */
	unsigned attempts;  /* leases taken, this one included */
	unsigned seq;       /* its place in the experiment's order of its
			     * kind, from 0 (lib/order.h) */
	char *build_key;    /* the variant's stored build key (owned) */
	char *host;         /* the host the boot runs on, or NULL (owned) */
};
void kb_store_job_release(struct kb_store_job *j);

/* What kb_store_job_claim() looks for. */
struct kb_store_claim {
	const char *owner;    /* lease owner: the daemon instance id */
	int64_t now;          /* seconds on the lease clock: since the
			       * epoch, as the owner counts them (the
			       * daemon's pauses while it is stopped) */
	int64_t lease_s;      /* lease length */
	enum kb_store_job_kind kind;
	int64_t experiment;   /* only this experiment; 0: any */
	const char *host;     /* recorded on the job (boots), or NULL;
			       * with @experiment, a boot job the spread
			       * gave another host is not claimed for this
			       * one (db/0010) */
};

/*
 * Lease the first ready job of @c->kind (lowest experiment id, then
 * seq): queued, or leased by another owner with a lease that expired
 * before @c->now (a job @c->owner holds is never claimed again, however
 * late its renewal), of an experiment that is queued or running and not
 * being cancelled, and for boots, whose build job (the experiment's
 * build job of the same build key) is done.  In one transaction: the
 * job becomes leased by @c->owner until now + lease_s, its attempts grow
 * by one, its started_at is the wall clock's now, its experiment becomes
 * running.  Returns 0 with *@out filled (caller
 * releases), KB_ENOTFOUND when nothing is ready.
 *
 * With @c->experiment the job is found by one indexed query over that
 * experiment's jobs, and a claim that finds nothing takes no write lock;
 * without, every queued job is read.
 */
int kb_store_job_claim(struct kb_store *s, const struct kb_store_claim *c,
		       struct kb_store_job *out, struct kb_err *err);

/* Extend every lease @owner holds to @now + @lease_s; *@n (may be NULL):
 * how many. */
int kb_store_job_renew(struct kb_store *s, const char *owner, int64_t now,
		       int64_t lease_s, unsigned *n, struct kb_err *err);

/*
 * Put back in the queue every job leased by anyone but @owner, whatever
 * its expiry: for a daemon that holds the database's daemon lock, every
 * other lease is a dead daemon's.  *@n (may be NULL): how many.
 */
int kb_store_job_release_others(struct kb_store *s, const char *owner,
				unsigned *n, struct kb_err *err);

/*
 * Mark job @id done (build jobs: the build is stored already) after
 * @duration_s seconds of work (NaN: unknown), or failed with @error (an
 * executor or store error that stops the experiment).  KB_ENOTFOUND
 * when @owner no longer holds its lease (nothing is written).
 */
int kb_store_job_done(struct kb_store *s, int64_t id, const char *owner,
		      double duration_s, struct kb_err *err);
int kb_store_job_fail(struct kb_store *s, int64_t id, const char *owner,
		      const char *error, struct kb_err *err);

/*
 * Store boot job @j's result @r (the boot row, its environment and every
 * sample, as kb_store_boot_put() does) and mark the job done, in one
 * transaction, so that a daemon killed at any instant either has all of
 * it or none.  A boot row already stored for the job's variant and boot
 * number is kept as it is (no second row).  KB_ENOTFOUND when @owner no
 * longer holds the lease (nothing is written).
 */
int kb_store_job_boot_done(struct kb_store *s, const struct kb_store_job *j,
			   const char *owner, int64_t build_id,
			   const struct kb_boot_result *r, double duration_s,
			   struct kb_err *err);

/*
 * Boot job @j could not run on its host for the host's reasons (libvirt
 * lost, a domain refused: lib/spread.h): in one transaction, record a
 * host event "failure" with @reason (kb_store_host_event_put) and put
 * the job back in the queue, assigned to the same host, without a boot
 * row.  KB_ENOTFOUND when @owner no longer holds the lease (nothing is
 * written).
 */
int kb_store_job_host_failed(struct kb_store *s, const struct kb_store_job *j,
			     const char *owner, const char *reason,
			     struct kb_err *err);

/*
 * Ask to cancel experiment @exp: no job of it is leased any more, its
 * queued jobs become cancelled; kb_store_experiment_settle() marks it
 * cancelled once the steps running now have ended.  KB_ENOTFOUND when
 * there is no such experiment, KB_EINPUT when it has already ended or has
 * no jobs (a `kbisect run` experiment).
 */
int kb_store_experiment_cancel(struct kb_store *s, int64_t exp,
			       struct kb_err *err);

/*
 * Once no job of @exp is leased, end it: "failed" (with the first failed
 * job's error) when a job failed, "cancelled" when a cancel was asked,
 * "done" when no job is left queued; its remaining queued jobs become
 * cancelled.  An experiment without jobs (`kbisect run`) is left alone.
 * *@state is its state afterwards (caller frees).
 */
int kb_store_experiment_settle(struct kb_store *s, int64_t exp,
			       char **state, struct kb_err *err);

/* The experiments with jobs that are queued or running, oldest first.
 * Caller frees *@ids. */
int kb_store_queue_experiments(struct kb_store *s, int64_t **ids,
			       size_t *n, struct kb_err *err);

/*
 * Those of kb_store_queue_experiments() whose id is above @after, at most
 * @max of them (0: all), oldest first: what was submitted since
 * experiment @after, read by the primary key, not by reading every
 * experiment.  Caller frees *@ids.
 */
int kb_store_queue_experiments_after(struct kb_store *s, int64_t after,
				     size_t max, int64_t **ids, size_t *n,
				     struct kb_err *err);

/*
 * The experiments with a job whose lease lapsed before @now (seconds
 * since the epoch), oldest first, each once; only the lapsed leases are
 * read (by the index of jobs by state and expiry).  Caller frees *@ids.
 */
int kb_store_queue_lapsed(struct kb_store *s, int64_t now, int64_t **ids,
			  size_t *n, struct kb_err *err);

/* Whether experiment @exp is in the queue (kb_store_queue_experiments()):
 * *@live is 1 or 0, 0 also when there is no experiment @exp. */
int kb_store_queue_has(struct kb_store *s, int64_t exp, int *live,
		       struct kb_err *err);

/* How far a queued experiment got, from its jobs. */
struct kb_store_progress {
	int64_t id;
	char *name, *state, *executor;
	char *error;          /* or NULL */
	char *current;        /* the running steps in words, or NULL */
	int cancel_requested;
	int has_jobs;         /* 0: not a daemon experiment (kbisect run) */
	unsigned variants_total, variants_done; /* done: every boot done */
	unsigned builds_total, builds_done, builds_running;
	unsigned boots_total, boots_done, boots_running;
	double build_mean_s, boot_mean_s; /* measured step times; NaN: none */
	double elapsed_s;     /* since submission (until it finished) */
	char *hosts;          /* boots done per host, "URI 12, URI 11",
			       * when they ran on more than one; else NULL */
};
void kb_store_progress_release(struct kb_store_progress *p);

/*
 * Read experiment @exp's progress; KB_ENOTFOUND when there is none.  An
 * experiment without jobs (`kbisect run`) counts its stored builds and
 * boots, and reads "interrupted" when it is "running" in a process that
 * is gone (nothing is written).
 */
int kb_store_progress_get(struct kb_store *s, int64_t exp,
			  struct kb_store_progress *out, struct kb_err *err);

/* Up to @max experiments with jobs: live ones first, then newest first.
 * Caller frees *@ids. */
int kb_store_progress_recent(struct kb_store *s, size_t max, int64_t **ids,
			     size_t *n, struct kb_err *err);

#endif
