#ifndef KB_PIPELINE_INT_H
#define KB_PIPELINE_INT_H

/*
 * Private to the pipeline module: the one engine that runs boots
 * (lib/pipeline_engine.c), and what its callers in the module give it.
 * Every path that boots goes through it: an experiment's missing boots
 * (run, resume: lib/pipeline.c), the boots an analysis adds
 * (kb_pipeline_add_boots()), and one boot at a time over several hosts
 * for bisections and `kbisect test` (lib/pipeline_hostexec.c).  Which
 * boots run, and in what order, is lib/order.h's; the engine decides
 * which host and slot each starts on, when builds run, and what a
 * host's failure does.
 */

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

/* A boot asked of the engine: boot @boot_no of variant @v, in block
 * @round (from 1; 0 none) on host @host ((size_t)-1: the spread's). */
struct engine_req {
	const struct kb_variant *v;
	unsigned boot_no;
	unsigned round;
	size_t host;
};

/* What the engine boots on: kept across calls (the hosts' failures in a
 * row, the hosts drained, the spread of the experiment booted last). */
struct engine;

/*
 * An engine over @nhosts hosts @hosts (borrowed; at most
 * KB_SPREAD_MAX_HOSTS), each boot going to the host the spread seeded
 * with @seed gives it, a host drained after @drain_after failures of its
 * own in a row (0: KB_SPREAD_DRAIN_AFTER), each failure keeping it
 * @retry_s seconds from its next boot, doubled for each in a row (0: at
 * once).  With no hosts, @builder boots too, one step at a time in the
 * caller's thread, and a failure of the executor stops the call rather
 * than being a host's; so does one of this machine's (KB_ELOCAL) with
 * hosts.  @builder builds
 * in either case (borrowed).  Free with engine_free().
 */
struct engine *engine_new(const struct kb_pipeline_host *hosts, size_t nhosts,
			  struct kb_executor *builder, uint64_t seed,
			  unsigned drain_after, double retry_s);
void engine_free(struct engine *e);

/* What one call of the engine runs. */
struct engine_job {
	struct kb_store *s;
	/* the experiment the boots are of: stored with it, its stored
	 * boots counted on their hosts, the hosts' failures recorded with
	 * it; 0: none of these (a result is then returned, see @out) */
	int64_t exp;
	/* the boots, in the order they start (lib/order.h) */
	const struct engine_req *reqs;
	size_t nreqs;
	/*
	 * Start them strictly in that order, each host its own boots, and
	 * none before every build they need is known (built first, in the
	 * order @build_order gives the variants, the others after): the
	 * randomised blocks.  A block (a round) whose host is drained, or
	 * down from the start, moves whole to another host.  0: each slot
	 * takes the first boot whose build is known, variant by variant,
	 * builds between boots.
	 */
	int in_order;
	const struct kb_variant *const *build_order;
	size_t nbuild_order;
	/* each request's build: found in the store by its variant's key, or
	 * built and stored; or, when set, this one for every request
	 * (borrowed: a bisection's probe, built by the caller) */
	const struct kb_build_result *build;
	int64_t build_id;
	unsigned runs; /* workload runs a boot */
	/*
	 * One boot asked, its result the caller's (kb_pipeline_hosts_
	 * executor()): *@out is filled, nothing is stored but the hosts'
	 * failures; after a stop a boot that did not end ok is returned as
	 * it ended; only the hosts' events are told.  NULL: every boot
	 * that ends is stored with @exp and every step told.
	 */
	struct kb_boot_result *out;
	/* set by the call: the host the last boot asked ran on (its last
	 * try's), (size_t)-1 when none started */
	size_t host;
	/* told every step (or the hosts' alone, with @out); may be NULL */
	void (*progress)(const struct kb_progress *ev, void *arg);
	void *arg;
	const volatile sig_atomic_t *stop;
	int overlap; /* builds run while boots do */
	/* the counts progress starts from; boots_done is the call's count
	 * when it returns */
	size_t builds_total, boots_total, boots_done;
	/* the boots of the experiment started before this call: the next
	 * one is seq0 + 1 (kb_boot_result.seq, kb_boot_at.seq); and the
	 * boots it plans (kb_boot_at.total; 0 not known) */
	unsigned seq0;
	unsigned total;
	/* one boot asked: where it stands in the caller's run, said to the
	 * executor as it is (kb_pipeline_hosts_executor()), or NULL */
	const struct kb_boot_at *at;
	/* set by the call: seconds during which a build and a boot ran at
	 * once */
	double overlap_s;
};

/*
 * kb_pipeline_build() that, once *@stop is set (may be NULL), stores no
 * build that did not end ok (KB_EFAIL "the build of variant N was
 * interrupted"): make was stopped by the same signal.
 */
int pipeline_build_until(struct kb_store *s, struct kb_executor *ex,
			 const struct kb_variant *v,
			 const volatile sig_atomic_t *stop,
			 struct kb_build_result *out, int64_t *build_id,
			 int *reused, struct kb_err *err);

/*
 * Run @j's boots on @e.  Returns 0 when each has ended (stored, or in
 * *j->out), else the error that stopped the call: an executor or store
 * error, every host drained, or a stop (KB_EFAIL "stopped before boot N
 * of variant V", or without hosts "boot N of variant V was
 * interrupted").  What ended before is stored.
 */
int engine_run(struct engine *e, struct engine_job *j, struct kb_err *err);

#endif
