/*
 * One boot at a time over several hosts (pipeline.h,
 * kb_pipeline_hosts_executor(); docs/guests.md "Several hosts"): the
 * boots that analyses add and bisections probe with, spread and drained
 * as pipeline_hosts.c spreads and drains an experiment's, behind the
 * executor interface, so that the callers (kb_pipeline_add_boots(),
 * lib/bisect.c) need not know there are hosts.
 *
 * Why an executor and not a second engine: those callers boot one boot
 * at a time, each stored by them as it ends; all that differs from one
 * host is which executor a boot goes to, and what is done with a
 * failure that is the host's.  Both fit in the executor's boot(), with
 * the spread (lib/spread.h) deciding the host as for `run`.
 */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "spread.h"
#include "banned.h"

struct host_state {
	unsigned streak; /* failures of its own in a row */
	char *last;      /* the last of them */
	int drained;
};

struct hostexec {
	struct kb_executor_ops ops; /* the builder's name */
	struct kb_executor *builder;
	const struct kb_pipeline_hosts_opts *o;
	size_t nhosts;
	struct host_state *hosts;
	struct kb_spread *sp;
	int64_t counted; /* the experiment whose boots sp counts; -1 none */
	char *last_drained; /* why the last host was drained */
};

static void report(const struct hostexec *x, enum kb_progress_kind kind,
		   const struct kb_variant *v, unsigned boot_no, size_t h,
		   const char *status, const char *reason)
{
	struct kb_progress ev;

	if (!x->o->progress)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.variant = v;
	ev.boot_no = boot_no;
	ev.status = status;
	ev.reason = reason;
	ev.host = x->o->hosts[h].uri;
	x->o->progress(&ev, x->o->arg);
}

/* The experiment host events go to, or 0 when they are not recorded. */
static int64_t experiment(const struct hostexec *x)
{
	return x->o->store && x->o->experiment ? *x->o->experiment : 0;
}

static int event(const struct hostexec *x, size_t h, const char *kind,
		 int variant, unsigned boot_no, const char *reason,
		 struct kb_err *err)
{
	int64_t exp = experiment(x);

	if (!exp)
		return 0;
	return kb_store_host_event_put(x->o->store, exp, x->o->hosts[h].uri,
				       kind, variant, boot_no, reason, err);
}

/* Take host @h out, for @why (said; recorded with @last as the
 * reason, as run records it). */
static int drain(struct hostexec *x, size_t h, const char *why,
		 const char *last, struct kb_err *err)
{
	x->hosts[h].drained = 1;
	kb_spread_drain(x->sp, h);
	free(x->last_drained);
	x->last_drained = kb_strdup(why);
	report(x, KB_PROGRESS_HOST_DRAINED, NULL, 0, h, "drained", why);
	return event(x, h, "drained", -1, 0, last, err);
}

/*
 * The spread for the experiment the boots are of: when it is not the
 * one counted, a new one with the boots the experiment has counted on
 * their hosts (a variant's added boots then even out what it has), the
 * hosts drained so far taken out, and the hosts down from the start
 * recorded as drained with it.
 */
static int spread_for(struct hostexec *x, struct kb_err *err)
{
	struct kb_store_boot_host *have = NULL;
	int64_t exp = experiment(x);
	size_t nb = 0, i, h;
	int ret;

	if (x->sp && exp == x->counted)
		return 0;
	kb_spread_free(x->sp);
	x->sp = kb_spread_new(0, x->nhosts, x->o->seed);
	x->counted = -1; /* until its boots are read */
	for (h = 0; h < x->nhosts; h++)
		if (x->hosts[h].drained)
			kb_spread_drain(x->sp, h);
	/* a host down from the start: drained, said once, and recorded
	 * with each experiment booted */
	for (h = 0; h < x->nhosts; h++) {
		const struct kb_pipeline_host *ph = &x->o->hosts[h];
		const char *why = ph->down ? ph->down : "no slot to boot on";

		if (!ph->down && ph->nslots)
			continue;
		kb_spread_drain(x->sp, h);
		if (!x->hosts[h].drained) {
			x->hosts[h].drained = 1;
			free(x->last_drained);
			x->last_drained = kb_strdup(why);
			report(x, KB_PROGRESS_HOST_DRAINED, NULL, 0, h,
			       "drained", why);
		}
		if ((ret = event(x, h, "drained", -1, 0, why, err)))
			return ret;
	}
	if (exp && (ret = kb_store_boot_hosts(x->o->store, exp, &have, &nb,
					      err)))
		return ret;
	for (i = 0; i < nb; i++) {
		for (h = 0; have[i].host && h < x->nhosts; h++)
			if (!strcmp(have[i].host, x->o->hosts[h].uri))
				break;
		if (!have[i].host || h == x->nhosts)
			continue;
		kb_spread_grow(x->sp, (size_t)have[i].variant_idx + 1);
		kb_spread_count(x->sp, have[i].variant_idx, h);
	}
	kb_store_boot_hosts_free(have, nb);
	x->counted = exp;
	return 0;
}

/* Host @h failed boot @boot_no of @v for reasons of its own: count it,
 * and drain the host after drain_after in a row. */
static int host_failed(struct hostexec *x, size_t h,
		       const struct kb_variant *v, unsigned boot_no,
		       const char *reason, struct kb_err *err)
{
	struct host_state *hs = &x->hosts[h];
	char *why = kb_spread_strike(&hs->streak, &hs->last,
				     x->o->hosts[h].uri, reason,
				     x->o->drain_after);
	int ret;

	report(x, KB_PROGRESS_HOST_FAILURE, v, boot_no, h, "libvirt-error",
	       hs->last);
	if ((ret = event(x, h, "failure", (int)v->idx, boot_no, hs->last,
			 err)) ||
	    !why) {
		free(why);
		return ret;
	}
	ret = drain(x, h, why, hs->last, err);
	free(why);
	return ret;
}

static int stopping(const struct hostexec *x)
{
	return x->o->stop && *x->o->stop;
}

static int hx_boot(void *self, const struct kb_variant *v,
		   const struct kb_build_result *build, unsigned boot_no,
		   unsigned runs, struct kb_boot_result *out,
		   struct kb_err *err)
{
	struct hostexec *x = self;
	size_t h;
	int ret;

	if ((ret = spread_for(x, err)))
		return ret;
	kb_spread_grow(x->sp, (size_t)v->idx + 1);
	h = kb_spread_pick(x->sp, v->idx);
	for (;;) {
		struct kb_err e = KB_ERR_INIT;
		const char *reason;

		if (h == (size_t)-1)
			return kb_err_set(err, KB_EFAIL,
					  "every host is drained (the last: %s); the boots that ended are stored",
					  x->last_drained ? x->last_drained
							  : "none could be used");
		ret = kb_executor_boot(x->o->hosts[h].slots[0], v, build,
				       boot_no, runs, out, &e);
		if (stopping(x) && (ret || out->status != KB_BOOT_OK)) {
			/* cut short by the stop: the caller's to handle, no
			 * failure of its host */
			if (ret)
				kb_err_set(err, ret, "%s", e.msg);
			return ret;
		}
		if (!ret && out->status != KB_BOOT_LIBVIRT_ERROR) {
			x->hosts[h].streak = 0;
			return 0;
		}
		/* the host's failure, not the variant's: never returned as
		 * a boot; it runs again on its host until that is drained */
		reason = ret ? e.msg : out->reason;
		ret = host_failed(x, h, v, boot_no, reason, err);
		kb_boot_result_release(out);
		if (ret)
			return ret;
		if (x->hosts[h].drained)
			h = kb_spread_pick(x->sp, v->idx);
	}
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
	size_t h;

	for (h = 0; h < x->nhosts; h++)
		free(x->hosts[h].last);
	free(x->hosts);
	kb_spread_free(x->sp);
	free(x->last_drained);
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
	x->ops.free = hx_free;
	x->builder = builder;
	x->o = o;
	x->nhosts = o->nhosts;
	x->hosts = kb_calloc(o->nhosts, sizeof(*x->hosts));
	x->counted = -1;
	*out = kb_executor_new(&x->ops, x);
	return 0;
}
