#ifndef KB_PIPELINE_H
#define KB_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

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
};

struct kb_pipeline_opts {
	/* called on every step; may be NULL */
	void (*progress)(const struct kb_progress *ev, void *arg);
	void *arg;
	const char *model_text; /* stored with the experiment, or NULL */
};
#define KB_PIPELINE_OPTS_INIT { NULL, NULL, NULL }

/*
 * Store a new experiment for @plan and execute it to the end.  Sets *@exp
 * as soon as the experiment exists (also when a later step fails).
 * Returns 0 when every boot has a stored result, or the error that
 * stopped it.
 */
int kb_pipeline_run(struct kb_store *s, const struct kb_plan *plan,
		    struct kb_executor *ex, const struct kb_pipeline_opts *opts,
		    int64_t *exp, struct kb_err *err);

/*
 * Execute the missing steps of experiment @exp, stored earlier from @plan:
 * boots already stored are skipped.  Marks the experiment done or failed.
 */
int kb_pipeline_resume(struct kb_store *s, int64_t exp,
		       const struct kb_plan *plan, struct kb_executor *ex,
		       const struct kb_pipeline_opts *opts, struct kb_err *err);

/*
 * The two steps every executor path shares (the pipeline here, the
 * daemon's workers in lib/queue.c):
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

/*
 * Adaptive sampling: run @nboots more boots of variant @variant_idx of
 * experiment @exp (numbered after the last stored one), building it first
 * if its build is not in the store.  Each boot is stored as it ends.
 */
int kb_pipeline_add_boots(struct kb_store *s, int64_t exp,
			  const struct kb_plan *plan, struct kb_executor *ex,
			  unsigned variant_idx, unsigned nboots,
			  struct kb_err *err);

#endif
