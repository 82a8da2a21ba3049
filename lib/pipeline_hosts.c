/*
 * The pipeline over several hosts (pipeline.h, kb_pipeline_opts.hosts;
 * docs/guests.md "Several hosts"): the missing boots of an experiment
 * spread over the hosts (lib/spread.h), several running at once, and the
 * builds in a slot of their own.
 *
 * The design is the simplest that is correct: every step — a boot on a
 * host's slot, or a build — runs in a thread of its own, started for it
 * and joined when it ends, and does nothing but call its executor.  This
 * thread alone decides what starts, stores every result, records what
 * befalls the hosts and reports progress, so that the store (one
 * connection, one thread at a time) and the progress callback are never
 * used from two threads, and an executor (a libvirt connection) is used
 * by the one step of its slot.  The threads tell their end through one
 * mutex and condition variable.  A poll loop would need every executor
 * to be non-blocking, which libvirt's calls and make are not.
 */
#include "pipeline_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "spread.h"
#include "banned.h"

/* One step running in a thread of its own. */
struct task {
	struct engine *e;
	pthread_t thread;
	int running;   /* started and not yet harvested */
	int done;      /* the thread has ended (under e->lock) */
	int is_build;
	struct kb_executor *ex;
	const struct kb_variant *v;
	struct known_build *build; /* boots: the build booted */
	size_t boot;               /* boots: its index in e->boots */
	unsigned runs;
	int ret;
	struct kb_err err;
	struct kb_build_result bres;
	struct kb_boot_result res;
};

/* A boot the experiment does not have yet. */
struct pending {
	size_t var;       /* index into e->vars */
	unsigned boot_no;
	size_t host;      /* the host the spread gives it */
	int state;        /* 0 waiting, 1 running, 2 stored */
};

struct host {
	const struct kb_pipeline_host *h;
	struct task *slots;
	unsigned streak;  /* failures of its own in a row */
	char *last;       /* the last of them */
	unsigned running;
};

/* A variant with boots to run, in build order. */
struct var {
	const struct kb_variant *v;
	struct known_build *build; /* NULL until known */
	int missing;     /* the store has no build of its key: to build */
	size_t first, n; /* its boots: e->boots[first .. first + n) */
	unsigned waiting; /* of which wait to start */
};

struct engine {
	struct run *r;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct host *hosts;
	size_t nhosts;
	struct var *vars;
	size_t nvars;
	struct pending *boots;
	size_t nboots;
	unsigned *waiting;       /* [var * nhosts + host]: boots waiting */
	size_t first_var;        /* no variant before it has boots waiting */
	struct kb_spread *sp;
	struct task builder;
	const char *building;    /* the key being built, or NULL */
	unsigned drain_after;
	int overlap;
	unsigned builds_running, boots_running;
	double overlap_s, last_t;
	int ret;                 /* the first error: no step starts */
	struct kb_err *err;
};

static void *task_main(void *arg)
{
	struct task *t = arg;
	struct engine *e = t->e;

	if (t->is_build) {
		memset(&t->bres, 0, sizeof(t->bres));
		t->ret = kb_executor_build(t->ex, t->v, &t->bres, &t->err);
	} else {
		t->ret = kb_pipeline_boot(t->ex, t->v, &t->build->result,
					  e->boots[t->boot].boot_no, t->runs,
					  &t->res, &t->err);
	}
	pthread_mutex_lock(&e->lock);
	t->done = 1;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Count the time a build and a boot ran at once, up to now. */
static void tick(struct engine *e)
{
	double now = kb_monotime();

	if (e->builds_running && e->boots_running)
		e->overlap_s += now - e->last_t;
	e->last_t = now;
}

/* Record the first error; later ones are dropped. */
static void fail(struct engine *e, int ret, const struct kb_err *err)
{
	if (e->ret)
		return;
	e->ret = ret;
	kb_err_set(e->err, ret, "%s", err->msg);
}

/*
 * Whether boot @t is the only step that can run until it ends: one slot
 * in all, no build running and none left to do.  It then runs in this
 * thread: a thread of its own would only cost its start and the
 * switches (a tenth of a millisecond a boot, which model runs of
 * thousands of boots feel).
 */
static int alone(const struct engine *e, const struct task *t)
{
	size_t h, slots = 0, i;

	if (t->is_build || e->builder.running)
		return 0;
	for (h = 0; h < e->nhosts; h++)
		if (kb_spread_live(e->sp, h))
			slots += e->hosts[h].h->nslots;
	if (slots != 1)
		return 0;
	for (i = e->first_var; i < e->nvars; i++)
		if (e->vars[i].waiting && !e->vars[i].build)
			return 0;
	return 1;
}

static int start(struct engine *e, struct task *t)
{
	int rc;

	t->e = e;
	t->done = 0;
	t->running = 1;
	kb_err_clear(&t->err);
	memset(&t->res, 0, sizeof(t->res));
	tick(e);
	if (t->is_build)
		e->builds_running++;
	else
		e->boots_running++;
	rc = alone(e, t) ? -1 : pthread_create(&t->thread, NULL, task_main, t);
	if (rc) {
		/* alone, or no thread: run it here (rather than not at all) */
		t->thread = pthread_self();
		task_main(t);
	}
	return 0;
}

/* Build @b is known now: every variant of its key boots it. */
static void set_known(struct engine *e, struct known_build *b)
{
	size_t i;

	for (i = 0; i < e->nvars; i++)
		if (!strcmp(e->vars[i].v->build_key, b->key)) {
			e->vars[i].build = b;
			e->vars[i].missing = 0;
		}
}

/* The build of variant @var: known in this run, or from the store. */
static struct known_build *known(struct engine *e, size_t var)
{
	struct run *r = e->r;
	const struct kb_variant *v = e->vars[var].v;
	struct kb_err err = KB_ERR_INIT;
	struct known_build *b;
	int ret;

	if (e->vars[var].build)
		return e->vars[var].build;
	if (e->vars[var].missing ||
	    (e->building && !strcmp(e->building, v->build_key)))
		return NULL;
	/* r->builds has room for a build per variant (execute_hosts), so
	 * that the pointers to them stay */
	b = &r->builds[r->nbuilds];
	memset(b, 0, sizeof(*b));
	ret = kb_store_build_get(r->s, v->build_key, &b->result, &b->id,
				 &err);
	if (ret == KB_ENOTFOUND) {
		e->vars[var].missing = 1;
		return NULL;
	}
	if (ret) {
		fail(e, ret, &err);
		return NULL;
	}
	b->key = v->build_key;
	r->nbuilds++;
	set_known(e, b);
	r->ev.builds_done++;
	r->ev.host = NULL;
	pipeline_report(r, KB_PROGRESS_BUILD_REUSED, v, 0,
			kb_build_status_name(b->result.status),
			b->result.reason);
	return b;
}

/* Boot @b is waiting (@on) or not any more on its host. */
static void waits(struct engine *e, struct pending *b, int on)
{
	unsigned *w = &e->waiting[b->var * e->nhosts + b->host];

	if (on) {
		(*w)++;
		e->vars[b->var].waiting++;
		if (b->var < e->first_var)
			e->first_var = b->var;
	} else {
		(*w)--;
		e->vars[b->var].waiting--;
	}
	b->state = on ? 0 : 1;
}

/* Start the next build, in build order, when the build slot is free. */
static void start_build(struct engine *e)
{
	struct run *r = e->r;
	size_t i;

	if (e->builder.running || (!e->overlap && e->boots_running))
		return;
	for (i = e->first_var; i < e->nvars && !e->ret; i++) {
		if (!e->vars[i].waiting || known(e, i))
			continue;
		if (e->building)
			return; /* its build is the one running */
		e->building = e->vars[i].v->build_key;
		e->builder.is_build = 1;
		e->builder.ex = r->ex;
		e->builder.v = e->vars[i].v;
		r->ev.host = NULL;
		pipeline_report(r, KB_PROGRESS_BUILD_START, e->vars[i].v, 0,
				NULL, NULL);
		start(e, &e->builder);
		return;
	}
}

/* Start the boots there are free slots and builds for. */
static void start_boots(struct engine *e)
{
	struct run *r = e->r;
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(r->plan));
	size_t h, k, i;

	if (!e->overlap && e->builder.running)
		return;
	while (e->first_var < e->nvars && !e->vars[e->first_var].waiting)
		e->first_var++;
	for (h = 0; h < e->nhosts; h++) {
		struct host *hs = &e->hosts[h];

		if (!kb_spread_live(e->sp, h))
			continue;
		for (k = 0; k < hs->h->nslots && !e->ret; k++) {
			struct task *t = &hs->slots[k];
			const struct var *x = NULL;
			size_t j;

			if (t->running)
				continue;
			/* its first boot whose build is known, in build
			 * order and boot number */
			for (j = e->first_var; j < e->nvars && !e->ret; j++)
				if (e->waiting[j * e->nhosts + h] &&
				    known(e, j)) {
					x = &e->vars[j];
					break;
				}
			if (!x)
				break; /* nothing ready for this host */
			for (i = x->first; i < x->first + x->n; i++)
				if (e->boots[i].host == h &&
				    e->boots[i].state == 0)
					break;
			waits(e, &e->boots[i], 0);
			t->is_build = 0;
			t->ex = hs->h->slots[k];
			t->v = e->vars[e->boots[i].var].v;
			t->build = e->vars[e->boots[i].var].build;
			t->boot = i;
			t->runs = rep->runs_per_boot;
			hs->running++;
			r->ev.host = hs->h->uri;
			pipeline_report(r, KB_PROGRESS_BOOT_START, t->v,
					e->boots[i].boot_no, NULL, NULL);
			start(e, t);
		}
	}
}

/* Host @h failed boot @b for reasons of its own: count it, drain the
 * host after drain_after in a row, and give its boots to the others. */
static void host_failed(struct engine *e, size_t h, struct pending *b,
			const char *reason)
{
	struct run *r = e->r;
	struct host *hs = &e->hosts[h];
	const struct kb_variant *v = e->vars[b->var].v;
	struct kb_err err = KB_ERR_INIT;
	char *why;
	size_t i;
	int ret;

	waits(e, b, 1);
	why = kb_spread_strike(&hs->streak, &hs->last, hs->h->uri, reason,
			       e->drain_after);
	if ((ret = kb_store_host_event_put(r->s, r->exp, hs->h->uri,
					   "failure", (int)v->idx, b->boot_no,
					   hs->last, &err)))
		fail(e, ret, &err);
	r->ev.host = hs->h->uri;
	pipeline_report(r, KB_PROGRESS_HOST_FAILURE, v, b->boot_no,
			"libvirt-error", hs->last);
	if (!kb_spread_live(e->sp, h) || !why) {
		free(why);
		return;
	}
	kb_spread_drain(e->sp, h);
	kb_err_clear(&err);
	if ((ret = kb_store_host_event_put(r->s, r->exp, hs->h->uri,
					   "drained", -1, 0, hs->last, &err)))
		fail(e, ret, &err);
	pipeline_report(r, KB_PROGRESS_HOST_DRAINED, NULL, 0, "drained", why);
	/* its boots go to the others, spread over what each variant has */
	for (i = 0; i < e->nboots; i++) {
		size_t to;

		if (e->boots[i].host != h || e->boots[i].state != 0)
			continue;
		to = kb_spread_pick(e->sp, e->vars[e->boots[i].var].v->idx);
		if (to == (size_t)-1)
			continue;
		waits(e, &e->boots[i], 0);
		e->boots[i].host = to;
		waits(e, &e->boots[i], 1);
	}
	if (!kb_spread_nlive(e->sp)) {
		kb_err_clear(&err);
		kb_err_set(&err, KB_EFAIL,
			   "every host is drained (the last: %s); what finished is stored, and the rest runs when a host is back",
			   why);
		fail(e, KB_EFAIL, &err);
	}
	free(why);
}

/* A boot ended: store it, or count the host's failure. */
static void boot_ended(struct engine *e, size_t h, struct task *t)
{
	struct run *r = e->r;
	struct pending *b = &e->boots[t->boot];
	struct kb_err err = KB_ERR_INIT;
	int ret;

	e->hosts[h].running--;
	if ((t->ret || t->res.status != KB_BOOT_OK) && pipeline_stopped(r)) {
		/* a guest destroyed by the stop is no result, and no failure
		 * of its host */
		waits(e, b, 1);
		goto out;
	}
	if (t->ret) { /* the executor could not work: the host's doing */
		host_failed(e, h, b, t->err.msg);
		goto out;
	}
	if (t->res.status == KB_BOOT_LIBVIRT_ERROR) {
		host_failed(e, h, b, t->res.reason);
		goto out;
	}
	ret = kb_store_boot_put(r->s, r->exp, t->v->idx, b->boot_no,
				t->build->id, &t->res, &err);
	if (ret) {
		waits(e, b, 1);
		fail(e, ret, &err);
		goto out;
	}
	b->state = 2;
	e->hosts[h].streak = 0;
	r->ev.boots_done++;
	r->ev.host = e->hosts[h].h->uri;
	pipeline_report(r, KB_PROGRESS_BOOT_DONE, t->v, b->boot_no,
			kb_boot_status_name(t->res.status), t->res.reason);
out:
	kb_boot_result_release(&t->res);
}

/* The build ended: store it (a failure is a result). */
static void build_ended(struct engine *e, struct task *t)
{
	struct run *r = e->r;
	struct known_build *b = &r->builds[r->nbuilds];
	int ret;

	e->building = NULL;
	if (t->ret) {
		fail(e, t->ret, &t->err);
		kb_build_result_release(&t->bres);
		return;
	}
	memset(b, 0, sizeof(*b));
	b->result = t->bres;
	memset(&t->bres, 0, sizeof(t->bres));
	ret = pipeline_build_store(r->s, r->ex, t->v,
				   r->opts ? r->opts->stop : NULL, &b->result,
				   &b->id, &t->err);
	if (ret) {
		fail(e, ret, &t->err);
		return;
	}
	b->key = t->v->build_key;
	r->nbuilds++;
	set_known(e, b);
	r->ev.builds_done++;
	r->ev.host = NULL;
	pipeline_report(r, KB_PROGRESS_BUILD_DONE, t->v, 0,
			kb_build_status_name(b->result.status),
			b->result.reason);
}

/* Join task @t if it ended: returns 1 when it did. */
static int reap(struct engine *e, struct task *t)
{
	int done;

	if (!t->running)
		return 0;
	pthread_mutex_lock(&e->lock);
	done = t->done;
	pthread_mutex_unlock(&e->lock);
	if (!done)
		return 0;
	if (!pthread_equal(t->thread, pthread_self()))
		pthread_join(t->thread, NULL);
	tick(e);
	t->running = 0;
	if (t->is_build)
		e->builds_running--;
	else
		e->boots_running--;
	return 1;
}

/* Handle every step that ended; returns how many did. */
static unsigned harvest(struct engine *e)
{
	unsigned n = 0;
	size_t h, k;

	if (reap(e, &e->builder)) {
		build_ended(e, &e->builder);
		n++;
	}
	for (h = 0; h < e->nhosts; h++)
		for (k = 0; k < e->hosts[h].h->nslots; k++)
			if (reap(e, &e->hosts[h].slots[k])) {
				boot_ended(e, h, &e->hosts[h].slots[k]);
				n++;
			}
	return n;
}

/* The boots of @r that are not stored, in build order and boot number,
 * and what the store has, counted on its hosts. */
static int plan_boots(struct engine *e, struct kb_err *err)
{
	struct run *r = e->r;
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(r->plan));
	size_t n = kb_plan_nvariants(r->plan), i, h, nb = 0;
	struct kb_store_boot_host *have = NULL;
	unsigned char *stored;
	size_t *order;
	unsigned boot_no;
	int ret;

	if ((ret = kb_store_boot_hosts(r->s, r->exp, &have, &nb, err)))
		return ret;
	stored = kb_calloc(n * rep->boots + 1, 1);
	for (i = 0; i < nb; i++) {
		if (have[i].variant_idx >= n || !have[i].boot_no)
			continue;
		if (have[i].boot_no <= rep->boots)
			stored[have[i].variant_idx * rep->boots +
			       have[i].boot_no - 1] = 1;
		for (h = 0; have[i].host && h < e->nhosts; h++)
			if (!strcmp(have[i].host, e->hosts[h].h->uri)) {
				kb_spread_count(e->sp, have[i].variant_idx,
						h);
				break;
			}
	}
	kb_store_boot_hosts_free(have, nb);
	order = kb_calloc(n ? n : 1, sizeof(*order));
	kb_build_plan_order(r->plan, order);
	e->vars = kb_calloc(n ? n : 1, sizeof(*e->vars));
	e->boots = kb_calloc(n * rep->boots + 1, sizeof(*e->boots));
	e->waiting = kb_calloc((n ? n : 1) * e->nhosts,
			       sizeof(*e->waiting));
	e->nvars = n;
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(r->plan, order[i]);

		e->vars[i].v = v;
		e->vars[i].first = e->nboots;
		for (boot_no = 1; boot_no <= rep->boots; boot_no++) {
			struct pending *b;

			if (stored[v->idx * rep->boots + boot_no - 1]) {
				r->ev.boots_done++;
				continue;
			}
			b = &e->boots[e->nboots++];
			b->var = i;
			b->boot_no = boot_no;
			b->host = kb_spread_pick(e->sp, v->idx);
			if (b->host == (size_t)-1)
				b->host = 0; /* no host live: never starts */
			waits(e, b, 1);
		}
		e->vars[i].n = e->nboots - e->vars[i].first;
	}
	free(order);
	free(stored);
	return 0;
}

/* The first boot not stored, for the message of a stop. */
static const struct pending *first_waiting(const struct engine *e)
{
	size_t i;

	for (i = 0; i < e->nboots; i++)
		if (e->boots[i].state != 2)
			return &e->boots[i];
	return NULL;
}

int pipeline_execute_hosts(struct run *r, struct kb_err *err)
{
	const struct kb_pipeline_opts *o = r->opts;
	const struct kb_matrix *m = kb_plan_matrix(r->plan);
	struct kb_err serr = KB_ERR_INIT;
	struct engine e;
	const struct pending *w;
	size_t h, k;
	int ret;

	memset(&e, 0, sizeof(e));
	e.r = r;
	e.err = err;
	e.nhosts = o->nhosts < KB_SPREAD_MAX_HOSTS ? o->nhosts
						   : KB_SPREAD_MAX_HOSTS;
	e.drain_after = o->drain_after ? o->drain_after
				       : KB_SPREAD_DRAIN_AFTER;
	e.overlap = o->overlap;
	e.sp = kb_spread_new(kb_plan_nvariants(r->plan), e.nhosts,
			     kb_spread_seed(kb_matrix_text(m)));
	e.hosts = kb_calloc(e.nhosts, sizeof(*e.hosts));
	for (h = 0; h < e.nhosts; h++) {
		e.hosts[h].h = &o->hosts[h];
		e.hosts[h].slots = kb_calloc(o->hosts[h].nslots + 1,
					     sizeof(*e.hosts[h].slots));
		if (o->hosts[h].down || !o->hosts[h].nslots)
			kb_spread_drain(e.sp, h);
	}
	pthread_mutex_init(&e.lock, NULL);
	pthread_cond_init(&e.cond, NULL);
	r->t0 = kb_monotime();
	e.last_t = r->t0;
	r->ev.builds_total = kb_plan_nbuilds(r->plan);
	r->ev.boots_total = kb_plan_nboots(r->plan);
	/* room for every build of the run: known() and build_ended() add
	 * one at a time, and pointers to them are kept */
	r->builds = kb_calloc(kb_plan_nvariants(r->plan) + 1,
			      sizeof(*r->builds));
	if ((ret = plan_boots(&e, err)))
		goto out;
	for (h = 0; h < e.nhosts && !e.ret; h++)
		if (o->hosts[h].down) {
			if ((ret = kb_store_host_event_put(r->s, r->exp,
							   o->hosts[h].uri,
							   "drained", -1, 0,
							   o->hosts[h].down,
							   &serr)))
				fail(&e, ret, &serr);
			r->ev.host = o->hosts[h].uri;
			pipeline_report(r, KB_PROGRESS_HOST_DRAINED, NULL, 0,
					"drained", o->hosts[h].down);
		}
	if (e.nboots && !kb_spread_nlive(e.sp)) {
		kb_err_set(&serr, KB_EFAIL,
			   "no host can run boots: every host of the matrix is down");
		fail(&e, KB_EFAIL, &serr);
	}
	for (;;) {
		int idle;

		harvest(&e);
		if (!e.ret && !pipeline_stopped(r)) {
			start_boots(&e);
			start_build(&e);
			start_boots(&e);
		}
		idle = !e.builder.running && !e.boots_running;
		if (idle)
			break;
		pthread_mutex_lock(&e.lock);
		for (;;) {
			int any = e.builder.running && e.builder.done;

			for (h = 0; !any && h < e.nhosts; h++)
				for (k = 0; !any && k < o->hosts[h].nslots; k++)
					any = e.hosts[h].slots[k].running &&
					      e.hosts[h].slots[k].done;
			if (any)
				break;
			pthread_cond_wait(&e.cond, &e.lock);
		}
		pthread_mutex_unlock(&e.lock);
	}
	ret = e.ret;
	if (!ret && (w = first_waiting(&e))) {
		const struct kb_variant *v = e.vars[w->var].v;

		if (pipeline_stopped(r))
			ret = kb_err_set(err, KB_EFAIL,
					 "stopped before boot %u of variant %u",
					 w->boot_no, v->idx);
		else /* nothing could start it: no build, no host */
			ret = kb_err_set(err, KB_EFAIL,
					 "boot %u of variant %u could not run",
					 w->boot_no, v->idx);
	}
out:
	if (o->overlap_s)
		*o->overlap_s = e.overlap_s;
	kb_err_clear(&serr);
	if (r->exp && kb_store_overlap_add(r->s, r->exp, e.overlap_s, &serr) &&
	    !ret)
		ret = kb_err_set(err, serr.code, "%s", serr.msg);
	pthread_cond_destroy(&e.cond);
	pthread_mutex_destroy(&e.lock);
	for (h = 0; h < e.nhosts; h++) {
		free(e.hosts[h].slots);
		free(e.hosts[h].last);
	}
	free(e.hosts);
	free(e.vars);
	free(e.boots);
	free(e.waiting);
	kb_spread_free(e.sp);
	return ret;
}
