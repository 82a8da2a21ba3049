#ifndef KB_QUEUE_H
#define KB_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "executor.h"
#include "matrix.h"
#include "plan.h"
#include "store.h"

struct kb_err;
struct kb_msg_progress;

/*
 * The daemon's queue (docs/daemon.md): experiments submitted as texts
 * become one build job per distinct build key and one boot job per
 * variant and boot number in the store (kb_store_experiment_submit),
 * and each job is run as one step under a lease held by the daemon
 * instance (kb_store_job_claim).  A step stores its result and ends its
 * job in one transaction, so that a daemon killed at any instant loses at
 * most the steps running then, which are redone after a restart: a boot's
 * samples are stored once or not at all.
 *
 * The steps use the executor interface and the store exactly as the
 * pipeline does (lib/pipeline.c): a build key is built once, whatever
 * experiment asks for it, and a failed build is a result its boots record
 * as "build-failed".
 */

/* What a client submits: texts, since the daemon may not see its files. */
struct kb_queue_submission {
	const char *matrix_text;
	const char *matrix_path; /* where it was read: relative paths in it
				  * resolve against its folder; may be NULL */
	const char *model_text;  /* performance model, or NULL for real runs */
};

/*
 * Validate @sub (the matrix plans within the default caps on its boots
 * and samples, kb_plan_check_limits(); the model parses and produces the
 * matrix's metric) and store it as a queued experiment with its jobs in
 * one transaction: builds in build order, boots round by round (boot 1
 * of every variant, then boot 2...), each boot given a host of the
 * matrix by the spread (lib/spread.h, seeded by the matrix's text).  Sets *@id once the submission is
 * committed.  KB_EINPUT for a bad matrix or model, with nothing written.
 */
int kb_queue_submit(struct kb_store *s, const struct kb_queue_submission *sub,
		    int64_t *id, struct kb_err *err);

/* kb_queue_submit() with the caps @lim (NULL: the defaults), for a
 * client that raised them (SUBMIT's max_boots and max_samples). */
int kb_queue_submit_limited(struct kb_store *s,
			    const struct kb_queue_submission *sub,
			    const struct kb_plan_limits *lim, int64_t *id,
			    struct kb_err *err);

/*
 * A queued experiment made ready to run: its matrix, plan and model
 * rebuilt from the stored texts.  Read-only once loaded: steps of it may
 * run in several threads at once.
 */
struct kb_queue_exp;

/*
 * Load experiment @id from @s.  Real runs whose matrix names a
 * source.tree have their plan resolved against it (kb_plan_resolve) so
 * that build keys are those of `kbisect run`; when that fails the plan
 * stays unresolved.  @time_scale: see kb_model_executor_new().  Caller
 * frees *@out with kb_queue_exp_free().
 */
int kb_queue_exp_load(struct kb_store *s, int64_t id, double time_scale,
		      struct kb_queue_exp **out, struct kb_err *err);
void kb_queue_exp_free(struct kb_queue_exp *x);

int64_t kb_queue_exp_id(const struct kb_queue_exp *x);
const struct kb_matrix *kb_queue_exp_matrix(const struct kb_queue_exp *x);
const struct kb_plan *kb_queue_exp_plan(const struct kb_queue_exp *x);
/* Whether it runs on the performance model (else real guests). */
int kb_queue_exp_is_model(const struct kb_queue_exp *x);

/*
 * Make an executor for one step of @x booting on @host (a URI of the
 * matrix's hosts; builds, NULL: the first of them that answers).  For real runs this connects to
 * libvirt, files shipped to the host's pool when it has one; *@conn is
 * then the connection (caller frees it after the executor, with
 * kb_queue_conn_free()).  On the model, the boots record @host when the
 * matrix has several (kb_model_executor_on()).  Returns 0 with *@ex.
 */
int kb_queue_exp_executor(const struct kb_queue_exp *x, const char *host,
			  struct kb_executor **ex, void **conn,
			  struct kb_err *err);
void kb_queue_conn_free(void *conn);


/*
 * Run build job @j of @x with @ex: a build key already in the store is
 * reused, else built and stored; then the job is done.  A build that
 * fails is a result (stored, the job done).  Returns 0, KB_ENOTFOUND when
 * the lease was lost (the result is not recorded), or the executor's or
 * store's error (the caller fails the job).
 */
int kb_queue_run_build(struct kb_store *s, const struct kb_queue_exp *x,
		       const struct kb_store_job *j, const char *owner,
		       struct kb_executor *ex, struct kb_err *err);

/*
 * Run boot job @j of @x with @ex: the boot and all its samples are stored
 * with the job done in one transaction (kb_store_job_boot_done).  Same
 * returns as kb_queue_run_build().  A boot its host could not run — a
 * KB_BOOT_LIBVIRT_ERROR result, or an error of the executor — is the
 * host's failure, not the variant's (docs/guests.md, "Several hosts"):
 * no boot row is stored, the job goes back to the queue with a host
 * event (kb_queue_host_failed()), and 0 is returned.
 */
int kb_queue_run_boot(struct kb_store *s, const struct kb_queue_exp *x,
		      const struct kb_store_job *j, const char *owner,
		      struct kb_executor *ex, struct kb_err *err);

/* kb_queue_run_boot(), *@host_failure set to the host's failure (caller
 * frees) when it was one, else NULL: for the scheduler's count
 * (kb_sched_step.host_failure). */
int kb_queue_run_boot_host(struct kb_store *s, const struct kb_queue_exp *x,
			   const struct kb_store_job *j, const char *owner,
			   struct kb_executor *ex, char **host_failure,
			   struct kb_err *err);

/*
 * Boot job @j's host could not run it (@reason: a connection refused, a
 * domain refused): put it back in the queue with a host event
 * (kb_store_job_host_failed); *@host_failure (may be NULL) a copy of
 * @reason, the caller's.  KB_ENOTFOUND when the lease was lost.
 */
int kb_queue_host_failed(struct kb_store *s, const struct kb_store_job *j,
			 const char *owner, const char *reason,
			 char **host_failure, struct kb_err *err);

/*
 * The time left for @p, in seconds, from its measured mean step times:
 * the builds left one after another over @build_slots, and the boots
 * left over @boot_slots at once; NaN when a step kind with work left has
 * no measured time yet, or boots are left and @boot_slots is 0 (every
 * host drained), 0 when the experiment has ended.
 */
double kb_queue_eta(const struct kb_store_progress *p, unsigned build_slots,
		    unsigned boot_slots);

/* Fill protocol progress @out from @p and @eta_s (strings copied). */
void kb_queue_progress_msg(const struct kb_store_progress *p, double eta_s,
			   struct kb_msg_progress *out);

/*
 * A daemon instance id for leases, unique across restarts:
 * "<hostname>:<pid>:<16 hex digits of kb_rng_seed_fresh()>".  Caller
 * frees.
 */
char *kb_queue_instance_id(void);

#endif
