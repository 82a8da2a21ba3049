/*
 * One boot at a time over several hosts (pipeline.h,
 * kb_pipeline_hosts_executor(); docs/guests.md "Several hosts"): the
 * boots that analyses add and bisections probe with, behind the executor
 * interface, so that the callers (kb_pipeline_add_boots(), lib/bisect.c)
 * need not know there are hosts.  Each boot is a call of the one engine
 * (lib/pipeline_engine.c) for that boot alone, its result handed back
 * rather than stored: the engine picks the host, retries a failure that
 * is the host's and drains the host, by the rules `run` follows, and
 * keeps what befell the hosts from one boot to the next.
 */
#include "pipeline_int.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "spread.h"
#include "banned.h"

struct hostexec {
	struct kb_executor_ops ops; /* the builder's name */
	struct kb_executor *builder;
	const struct kb_pipeline_hosts_opts *o;
	struct engine *e;
	/* the round booted last and its host: the next boot of that round
	 * goes there too, so that the round's boots pair (lib/compare.h) */
	unsigned round;
	size_t round_host;
};

static int hx_boot_at(void *self, const struct kb_variant *v,
		      const struct kb_build_result *build, unsigned boot_no,
		      unsigned runs, const struct kb_boot_at *at,
		      struct kb_boot_result *out, struct kb_err *err)
{
	struct hostexec *x = self;
	const struct kb_pipeline_hosts_opts *o = x->o;
	struct engine_req req = { .v = v, .boot_no = boot_no, .round = 0,
				  .host = (size_t)-1 };
	struct engine_job j;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&j, 0, sizeof(j));
	j.s = o->store;
	j.exp = o->store && o->experiment ? *o->experiment : 0;
	j.reqs = &req;
	j.nreqs = 1;
	j.build = build;
	j.runs = runs;
	j.at = at;
	j.out = out;
	j.progress = o->progress;
	j.arg = o->arg;
	j.stop = o->stop;
	if (at && at->round) {
		req.round = at->round;
		/* a drained host's round moves whole (round_target()) */
		if (at->round == x->round)
			req.host = x->round_host;
	}
	ret = engine_run(x->e, &j, err);
	x->round = req.round;
	x->round_host = j.host;
	return ret;
}

static int hx_boot(void *self, const struct kb_variant *v,
		   const struct kb_build_result *build, unsigned boot_no,
		   unsigned runs, struct kb_boot_result *out,
		   struct kb_err *err)
{
	return hx_boot_at(self, v, build, boot_no, runs, NULL, out, err);
}

static int hx_build(void *self, const struct kb_variant *v,
		    struct kb_build_result *out, struct kb_err *err)
{
	struct hostexec *x = self;

	return kb_executor_build(x->builder, v, out, err);
}

static void hx_free(void *self)
{
	struct hostexec *x = self;

	engine_free(x->e);
	free(x);
}

int kb_pipeline_hosts_executor(struct kb_executor *builder,
			       const struct kb_pipeline_hosts_opts *o,
			       struct kb_executor **out, struct kb_err *err)
{
	struct hostexec *x;

	*out = NULL;
	if (!o->nhosts || o->nhosts > KB_SPREAD_MAX_HOSTS)
		return kb_err_set(err, KB_EINPUT,
				  "booting over %zu hosts: from 1 to %d", o->nhosts,
				  KB_SPREAD_MAX_HOSTS);
	x = kb_calloc(1, sizeof(*x));
	x->ops.name = kb_executor_name(builder);
	x->ops.build = hx_build;
	x->ops.boot = hx_boot;
	x->ops.boot_at = hx_boot_at;
	x->ops.free = hx_free;
	x->builder = builder;
	x->o = o;
	x->e = engine_new(o->hosts, o->nhosts, builder, o->seed,
			  o->drain_after, o->retry_s);
	*out = kb_executor_new(&x->ops, x);
	return 0;
}
