#ifndef KB_PIPELINE_H
#define KB_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "build.h"
#include "executor.h"
#include "plan.h"
#include "store.h"

struct kb_err;

/*
 * The pipeline: plan -> build -> boot (workload runs) -> store.  The same
 * code serves `kbisect run` (in process) and the daemon's workers.
 *
 * Each build key is built at most once: a build already in the store (from
 * this or any earlier experiment) is reused, failures included.  Each boot
 * is stored with all its samples in one transaction as soon as it ends, so
 * an interrupted experiment keeps every finished boot and resumes by
 * skipping them.  A failed build or boot is a result, stored with its
 * reason; the experiment goes on.  Only an executor or store error stops
 * it: the experiment is then marked failed with the message.
 */

enum kb_progress_kind {
	KB_PROGRESS_BUILD_START,
	KB_PROGRESS_BUILD_DONE,   /* built now (status says ok or failed) */
	KB_PROGRESS_BUILD_REUSED, /* found in the store: not built again */
	KB_PROGRESS_BOOT_START,
	KB_PROGRESS_BOOT_DONE,
	/* the host's own failure (status "libvirt-error", also for an
	 * executor error; reason): not stored as the variant's boot, which
	 * runs again */
	KB_PROGRESS_HOST_FAILURE,
	/* the host is drained (reason: "host X drained after N
	 * infrastructure failures: ..."), its boots moved to the others */
	KB_PROGRESS_HOST_DRAINED,
};

struct kb_progress {
	enum kb_progress_kind kind;
	const struct kb_variant *variant;
	unsigned boot_no;     /* BOOT_*: from 1 */
	const char *status;   /* *_DONE: "ok", "failed", "boot-timeout", ... */
	const char *reason;   /* *_DONE when not ok, else NULL */
	size_t builds_done, builds_total;
	size_t boots_done, boots_total;
	double elapsed_s;     /* since the pipeline started */
	const char *host;     /* BOOT_*, HOST_*: the host's URI, or NULL */
};

/*
 * A host that boots run on (kb_pipeline_opts.hosts): one of the matrix's
 * hosts: list, with an executor per boot it runs at once.
 */
struct kb_pipeline_host {
	const char *uri;  /* as the matrix names it */
	size_t nslots;    /* boots at once: its capacity */
	/* an executor per slot, each used by one thread at a time (the
	 * real executor's libvirt connection is); one executor may fill
	 * several slots when it is thread-safe (the model's is) */
	struct kb_executor *const *slots;
	/* why it cannot be used from the start ("host X cannot be used: a
	 * connection refused"), or NULL: it is drained at once (reported,
	 * and a "drained" host event) and its boots go to the others */
	const char *down;
};

struct kb_pipeline_opts {
	/* called on every step; may be NULL */
	void (*progress)(const struct kb_progress *ev, void *arg);
	void *arg;
	const char *model_text; /* stored with the experiment, or NULL */
	/*
	 * May be NULL.  Once *stop is nonzero (a signal handler sets it to
	 * the signal's number), no new step starts; a step that ends then
	 * is stored only when it ended ok (a build or boot cut short by the
	 * stop is not a result), and the experiment becomes "interrupted"
	 * ("interrupted by SIGTERM"), to be carried on by
	 * kb_pipeline_resume() later.
	 */
	const volatile sig_atomic_t *stop;
	/*
	 * The hosts boots are spread over (docs/guests.md, "Several hosts"):
	 * each variant's boots over every host (lib/spread.h, seeded by the
	 * matrix's text), run on several hosts and slots at once, each in a
	 * thread of its own, while this thread stores every result and
	 * reports every step.  The executor given to kb_pipeline_run() and
	 * kb_pipeline_resume() then builds, in a thread of its own too (a
	 * build slot).  A boot that fails for the host's reasons (a
	 * KB_BOOT_LIBVIRT_ERROR result, or an executor error) is no boot of
	 * the variant: it is recorded as the host's failure
	 * (kb_store_host_event_put) and runs again; a host that fails
	 * @drain_after boots in a row is drained, its boots spread over the
	 * others; once every host is drained the run stops (KB_EFAIL "every
	 * host is drained ..."), to be resumed.  0 hosts: every boot on the
	 * executor given, one at a time after its build, as before.
	 */
	const struct kb_pipeline_host *hosts;
	size_t nhosts;
	unsigned drain_after; /* 0: KB_SPREAD_DRAIN_AFTER (3) */
	/* a host that failed a boot gets its next one after this many
	 * seconds, doubled for each failure in a row (the runner's:
	 * KB_SPREAD_RETRY_S); 0: at once.  A failure of this machine's
	 * (KB_ELOCAL: a boot's initramfs, guest image or disks could not be
	 * made here) is no host's: it stops the call */
	double retry_s;
	/* with hosts: builds run while boots do (kb_spread_overlap());
	 * otherwise a build waits for the running boots, and boots for the
	 * running build */
	int overlap;
	/* may be NULL: set to the seconds during which a build and a boot
	 * ran at once in this call (also added to the experiment's, 0 when
	 * nothing overlapped: kb_store_overlap_add()) */
	double *overlap_s;
};
#define KB_PIPELINE_OPTS_INIT                                             \
	{ .progress = NULL, .arg = NULL, .model_text = NULL, .stop = NULL, \
	  .hosts = NULL, .nhosts = 0, .drain_after = 0, .retry_s = 0,       \
	  .overlap = 0, .overlap_s = NULL }

/*
 * Store a new experiment for @plan, owned by this process, and execute it
 * to the end.  Sets *@exp as soon as the experiment exists (also when a
 * later step fails).  Returns 0 when every boot has a stored result, or
 * the error that stopped it (KB_EFAIL "interrupted by ..." after a stop:
 * the experiment is then "interrupted", else "failed").
 */
int kb_pipeline_run(struct kb_store *s, const struct kb_plan *plan,
		    struct kb_executor *ex, const struct kb_pipeline_opts *opts,
		    int64_t *exp, struct kb_err *err);

/*
 * Execute the missing steps of experiment @exp, stored earlier from @plan:
 * boots already stored are skipped.  Marks the experiment done, failed or
 * (after a stop) interrupted.  The caller owns the experiment
 * (kb_pipeline_run, or kb_store_experiment_take for `kbisect resume`).
 */
int kb_pipeline_resume(struct kb_store *s, int64_t exp,
		       const struct kb_plan *plan, struct kb_executor *ex,
		       const struct kb_pipeline_opts *opts, struct kb_err *err);

/*
 * The two steps every executor path shares (the pipeline here, the
 * daemon's workers in lib/queue.c, and builds alone,
 * kb_pipeline_build_plan()):
 *
 * kb_pipeline_build: the build of @v — from the store when its key was
 * built before (failures included), else built by @ex now and stored; a
 * key another worker stored meanwhile stands.  Fills *@out (caller
 * releases) and *@build_id; *@reused (may be NULL) says whether it came
 * from the store.
 *
 * kb_pipeline_boot: boot @v once from @build and run the workload @runs
 * times; a failed build gives a build-failed result without booting.
 * Fills *@out (caller releases).
 */
int kb_pipeline_build(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_variant *v, struct kb_build_result *out,
		      int64_t *build_id, int *reused, struct kb_err *err);
int kb_pipeline_boot(struct kb_executor *ex, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err);
/* kb_pipeline_boot() saying where the boot stands in its experiment's
 * run (@at, may be NULL; kb_executor_boot_at()). */
int kb_pipeline_boot_at(struct kb_executor *ex, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, const struct kb_boot_at *at,
			struct kb_boot_result *out, struct kb_err *err);

/* ---- builds alone (`kbisect build`) ------------------------------------ */

/* One distinct build of a plan, as kb_pipeline_build_plan() left it. */
struct kb_pipeline_job {
	const char *key;      /* the build key, the plan's */
	const char *config;   /* the resolved .config text */
	const char *tree_id;  /* the tree it is built from */
	size_t first;         /* the first variant needing it */
	char *variants;       /* the variants needing it: "#0,#2" */
	char *label;          /* "#0 " and the first variant's label */
	const char *outcome;  /* "built", "reused" (from the store or the
			       * artifact cache), "failed" */
	int order;            /* position in this run's build order, from
			       * 1; -1: not built now */
	int64_t build_id;     /* its row in the store */
	struct kb_build_result result;
	struct kb_build_info info; /* of a build run now; zero otherwise */
};

enum kb_pipeline_build_kind {
	KB_PIPELINE_BUILD_START, /* @job is about to be built */
	KB_PIPELINE_BUILD_MAKE,  /* make's progress, about once a second */
	KB_PIPELINE_BUILD_END,   /* @job has its outcome */
};

struct kb_pipeline_build_event {
	enum kb_pipeline_build_kind kind;
	size_t i, n;       /* @job is the i-th (from 1) of the n builds that
			    * the store did not have */
	const struct kb_pipeline_job *job;
	const struct kb_build_progress *make; /* MAKE: make's progress */
};

struct kb_pipeline_build_opts {
	/* called on every step; may be NULL */
	void (*progress)(const struct kb_pipeline_build_event *ev, void *arg);
	void *arg;
	/* may be NULL; once *stop is nonzero (a signal handler sets it) no
	 * build starts, and the running one, unless it ended ok, is not
	 * stored (make got the same ^C): KB_EFAIL */
	const volatile sig_atomic_t *stop;
};
#define KB_PIPELINE_BUILD_OPTS_INIT { .progress = NULL, .arg = NULL, .stop = NULL }

/*
 * Build every distinct build key of resolved plan @p, without booting:
 * one job per key, in plan order of its first variant.  A key the store
 * holds is reused, failures included.  The others are built nearest
 * first (kb_build_order), tree by tree, re-planned after each build from
 * the tree's O= folder and its fixdep weights; each goes through
 * kb_pipeline_build() with an executor that builds from source as the
 * plan resolved it (kb_build_plan_variant, executor name "build"), and is
 * stored with its details (kb_store_build_detail_put) as it ends.  Then
 * what happened to each variant is stored (kb_store_build_request_put),
 * also after an error.  A failed build is an outcome, not an error.
 *
 * On success *@jobs holds *@njobs jobs (free with
 * kb_pipeline_jobs_free()); on failure both are NULL / 0.  KB_EINPUT when
 * @p is not resolved.
 */
int kb_pipeline_build_plan(struct kb_store *s, const struct kb_plan *p,
			   const struct kb_pipeline_build_opts *o,
			   struct kb_pipeline_job **jobs, size_t *njobs,
			   struct kb_err *err);
void kb_pipeline_jobs_free(struct kb_pipeline_job *jobs, size_t n);

/*
 * Adaptive sampling: run @nboots more boots of variant @variant_idx of
 * experiment @exp (numbered after the last stored one, failed ones
 * included).  The variant boots the build the experiment stored for it
 * (by its stored build key: on real kernels the key kb_plan_resolve()
 * gave it, which @plan, rebuilt from the stored matrix, need not know),
 * reused from the store; only a build the store does not hold is built
 * by @ex.  Each boot is stored as it ends; a failed boot is stored as a
 * result, as kb_pipeline_run() does.  @opts may be NULL; its progress
 * and stop are used as kb_pipeline_run() uses them (boots_total is
 * @nboots): after a stop no boot starts, one cut short is not stored,
 * and KB_EFAIL says which boot was interrupted.
 */
int kb_pipeline_add_boots(struct kb_store *s, int64_t exp,
			  const struct kb_plan *plan, struct kb_executor *ex,
			  unsigned variant_idx, unsigned nboots,
			  const struct kb_pipeline_opts *opts,
			  struct kb_err *err);

/*
 * One boot added as kb_pipeline_add_boots() adds it, stored in round
 * (block) @round of the experiment (lib/order.h): a round added after the
 * run, whose boots the caller starts in its order (kb_order_block()).
 */
int kb_pipeline_add_round_boot(struct kb_store *s, int64_t exp,
			       const struct kb_plan *plan,
			       struct kb_executor *ex, unsigned variant_idx,
			       unsigned round,
			       const struct kb_pipeline_opts *opts,
			       struct kb_err *err);

/* ---- one boot at a time over several hosts ----------------------------- */

/*
 * What kb_pipeline_hosts_executor() boots on, and records and tells what
 * befalls the hosts with.  The executor borrows it and reads it at each
 * boot, so that the store and the experiment may be set after it is made
 * (a bisection stores its experiment before its first boot).
 */
struct kb_pipeline_hosts_opts {
	/* the hosts, each booting on its first slot; one that is down or
	 * has no slot is drained from the start (borrowed) */
	const struct kb_pipeline_host *hosts;
	size_t nhosts;
	uint64_t seed;        /* the spread's: kb_spread_seed() of the
			       * matrix's text, as run spreads it */
	unsigned drain_after; /* 0: KB_SPREAD_DRAIN_AFTER (3) */
	double retry_s;       /* as kb_pipeline_opts.retry_s */
	/* where the hosts' failures and drains are recorded
	 * (kb_store_host_event_put), and the boots already stored are
	 * counted on their hosts: experiment *@experiment of @store; NULL,
	 * or an experiment of 0: neither */
	struct kb_store *store;
	const int64_t *experiment;
	/* told KB_PROGRESS_HOST_FAILURE and KB_PROGRESS_HOST_DRAINED (with
	 * the host, and for a failure the variant and boot); may be NULL */
	void (*progress)(const struct kb_progress *ev, void *arg);
	void *arg;
	/* may be NULL: once *stop is set, a boot that did not end ok is
	 * returned as it ended (a guest destroyed by the stop), no failure
	 * of its host */
	const volatile sig_atomic_t *stop;
};
#define KB_PIPELINE_HOSTS_OPTS_INIT                                        \
	{ .hosts = NULL, .nhosts = 0, .seed = 0, .drain_after = 0,          \
	  .retry_s = 0, .store = NULL, .experiment = NULL, .progress = NULL, .arg = NULL, \
	  .stop = NULL }

/*
 * An executor that boots on @o's hosts one boot at a time: the boots
 * analyses add (kb_pipeline_add_boots()) and bisections probe with,
 * spread as kb_pipeline_run() spreads an experiment's (lib/spread.h):
 * a boot of a variant goes to the live host with the fewest boots of
 * that variant (those the experiment has stored counted first), then the
 * fewest in all, then the first in the variant's seeded order of the
 * hosts.  A boot that fails for its host's reasons (a
 * KB_BOOT_LIBVIRT_ERROR result, or an executor error) is never returned:
 * it is recorded as the host's failure and runs again on its host, and
 * once a host has failed drain_after boots in a row it is drained and
 * the boot goes to another.  When every host is drained the boot fails
 * with KB_EFAIL "every host is drained (the last: ...)", and so does
 * every later one.  Builds go to @builder, whose name the executor
 * takes.  @builder, @o and the hosts' executors are borrowed and must
 * outlive it.  Returns 0 with *@out (kb_executor_free() frees it), or
 * KB_EINPUT for no hosts or more than KB_SPREAD_MAX_HOSTS.
 */
int kb_pipeline_hosts_executor(struct kb_executor *builder,
			       const struct kb_pipeline_hosts_opts *o,
			       struct kb_executor **out, struct kb_err *err);

#endif
