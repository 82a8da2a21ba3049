#ifndef KB_PIPELINE_INT_H
#define KB_PIPELINE_INT_H

/*
 * What lib/pipeline.c shares with lib/pipeline_hosts.c, the run of an
 * experiment's boots over several hosts at once: a run's state, its
 * progress and its builds.  Private to the pipeline module.
 */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

/* A build known in this run: its result and database row. */
struct known_build {
	const char *key;
	struct kb_build_result result;
	int64_t id;
};

struct run {
	struct kb_store *s;
	int64_t exp;
	const struct kb_plan *plan;
	struct kb_executor *ex;
	const struct kb_pipeline_opts *opts;
	struct known_build *builds;
	size_t nbuilds;
	struct kb_progress ev;
	double t0;
};

/* Whether a stop was asked of run @r (kb_pipeline_opts.stop). */
int pipeline_stopped(const struct run *r);

/* Tell @r's progress callback (when it has one) about a step; r->ev's
 * counts and host are the caller's to set. */
void pipeline_report(struct run *r, enum kb_progress_kind kind,
		     const struct kb_variant *v, unsigned boot_no,
		     const char *status, const char *reason);

/*
 * Store build result @out of @v, built now by executor @ex, unless @stop
 * is set and it did not end ok (make killed by the same Ctrl-C: KB_EFAIL,
 * @out released); a key another worker stored meanwhile stands (@out is
 * then that one).  Sets *@build_id.
 */
int pipeline_build_store(struct kb_store *s, struct kb_executor *ex,
			 const struct kb_variant *v,
			 const volatile sig_atomic_t *stop,
			 struct kb_build_result *out, int64_t *build_id,
			 struct kb_err *err);

/*
 * Execute run @r's missing boots over kb_pipeline_opts.hosts, several at
 * once, builds overlapping them when opts.overlap says so
 * (lib/pipeline_hosts.c).  Returns as kb_pipeline_resume()'s execution.
 */
int pipeline_execute_hosts(struct run *r, struct kb_err *err);

#endif
