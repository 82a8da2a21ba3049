/*
 * The one engine that runs boots (lib/pipeline_int.h; docs/guests.md
 * "Several hosts"): the boots asked of it spread over the hosts
 * (lib/spread.h), several running at once, the builds they need in a
 * slot of their own, a host that fails boots for reasons of its own
 * drained; or, without hosts, every step one after another on the one
 * executor.  Also the two steps every path shares: a build from the
 * store or built and stored (kb_pipeline_build()), and a boot of a build
 * (kb_pipeline_boot()).
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
 * to be non-blocking, which libvirt's calls and make are not.  A step
 * that is the only one that can run (one slot, nothing to build; and
 * always without hosts) runs in this thread instead.
 */
#include "pipeline_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "spread.h"
#include "banned.h"

/* A build known in this call: its result and database row. */
struct known_build {
	const char *key;
	struct kb_build_result result;
	int64_t id;
	int borrowed; /* the caller's (engine_job.build): not released */
};

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
	unsigned seq;              /* boots: its place in the run */
	char started[32];          /* boots: when it started (ISO) */
	int ret;
	struct kb_err err;
	struct kb_build_result bres;
	struct kb_boot_result res;
};

/* A boot asked and not ended yet. */
struct pending {
	size_t var;       /* index into e->vars */
	unsigned boot_no;
	unsigned round;   /* its block, from 1; 0 none */
	size_t host;      /* the host the spread gives it */
	int state;        /* 0 waiting, 1 running, 2 ended */
};

struct host {
	const struct kb_pipeline_host *h;
	struct task *slots;
	unsigned streak;  /* failures of its own in a row */
	double retry_at;  /* kb_monotime() before which it starts no boot
			   * (a back-off after a failure); 0 none */
	char *last;       /* the last of them */
	unsigned running;
	int drained;
	int said;         /* its being down was told */
};

/* A variant with boots to run, in the order of its first boot. */
struct var {
	const struct kb_variant *v;
	struct known_build *build; /* NULL until known */
	int missing;     /* the store has no build of its key: to build */
	size_t *boots;   /* its boots: indexes into e->boots, in order */
	size_t n;
	unsigned waiting; /* of which wait to start */
};

struct engine {
	/* kept across calls */
	struct kb_executor *builder;
	struct host *hosts;
	size_t nhosts;
	int solo;                /* no hosts: the builder boots, inline */
	struct kb_pipeline_host solo_host;
	struct kb_executor *solo_slot;
	uint64_t seed;
	unsigned drain_after;
	double retry_s;          /* the first back-off after a failure */
	struct kb_spread *sp;    /* of experiment @counted */
	int64_t counted;         /* -1: none counted yet */
	char *last_drained;      /* why the last host was drained */
	pthread_mutex_t lock;
	pthread_cond_t cond;

	/* one call's */
	struct engine_job *j;
	struct var *vars;
	size_t nvars;
	struct pending *boots;
	size_t nboots;
	unsigned *waiting;       /* [var * nhosts + host]: boots waiting */
	size_t first_var;        /* no variant before it has boots waiting */
	size_t first_boot;       /* in order: no boot before it waits */
	struct known_build *builds;
	size_t nbuilds;
	struct task builder_task;
	const char *building;    /* the key being built, or NULL */
	unsigned builds_running, boots_running;
	unsigned seq;            /* boots started in the experiment */
	double last_t;
	struct kb_progress ev;
	double t0;
	int ret;                 /* the first error: no step starts */
	struct kb_err *err;
};

/* Whether a stop was asked. */
static int stopping(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

static int stopped(const struct engine *e)
{
	return stopping(e->j->stop);
}

/* Tell the job's progress callback about a step on host @host (NULL:
 * none); with engine_job.out only the hosts' events. */
static void report(struct engine *e, enum kb_progress_kind kind,
		   const struct kb_variant *v, unsigned boot_no,
		   const char *host, const char *status, const char *reason)
{
	struct engine_job *j = e->j;

	if (!j->progress)
		return;
	if (j->out && kind != KB_PROGRESS_HOST_FAILURE &&
	    kind != KB_PROGRESS_HOST_DRAINED)
		return;
	e->ev.kind = kind;
	e->ev.variant = v;
	e->ev.boot_no = boot_no;
	e->ev.status = status;
	e->ev.reason = reason;
	e->ev.host = host;
	e->ev.elapsed_s = kb_monotime() - e->t0;
	j->progress(&e->ev, j->arg);
}

/*
 * Store build result @out of @v, built now by executor @ex, unless @stop
 * is set and it did not end ok (make killed by the same Ctrl-C: KB_EFAIL,
 * @out released); a key another worker stored meanwhile stands (@out is
 * then that one).  Sets *@build_id.
 */
static int build_store(struct kb_store *s, struct kb_executor *ex,
		       const struct kb_variant *v,
		       const volatile sig_atomic_t *stop,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	int ret;

	if (stopping(stop) && out->status != KB_BUILD_OK) {
		kb_build_result_release(out);
		return kb_err_set(err, KB_EFAIL,
				  "the build of variant %u was interrupted",
				  v->idx);
	}
	ret = kb_store_build_put(s, v->build_key, kb_executor_name(ex), out,
				 build_id, &lookup);
	if (ret == KB_EEXISTS) {
		/* stored meanwhile by another worker: that one stands */
		kb_build_result_release(out);
		kb_err_clear(&lookup);
		ret = kb_store_build_get(s, v->build_key, out, build_id,
					 &lookup);
	}
	if (ret) {
		kb_build_result_release(out);
		return kb_err_set(err, ret, "%s", lookup.msg);
	}
	return 0;
}

int kb_pipeline_build(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_variant *v, struct kb_build_result *out,
		      int64_t *build_id, int *reused, struct kb_err *err)
{
	return pipeline_build_until(s, ex, v, NULL, out, build_id, reused,
				    err);
}

int pipeline_build_until(struct kb_store *s, struct kb_executor *ex,
			 const struct kb_variant *v,
			 const volatile sig_atomic_t *stop,
			 struct kb_build_result *out, int64_t *build_id,
			 int *reused, struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (reused)
		*reused = 1;
	ret = kb_store_build_get(s, v->build_key, out, build_id, &lookup);
	if (ret != KB_ENOTFOUND)
		return ret ? kb_err_set(err, ret, "%s", lookup.msg) : 0;
	if (reused)
		*reused = 0;
	if ((ret = kb_executor_build(ex, v, out, err)))
		return ret;
	return build_store(s, ex, v, stop, out, build_id, err);
}

int kb_pipeline_boot(struct kb_executor *ex, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err)
{
	return kb_pipeline_boot_at(ex, v, build, boot_no, runs, NULL, out,
				   err);
}

int kb_pipeline_boot_at(struct kb_executor *ex, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, const struct kb_boot_at *at,
			struct kb_boot_result *out, struct kb_err *err)
{
	if (build->status == KB_BUILD_OK)
		return kb_executor_boot_at(ex, v, build, boot_no, runs, at,
					   out, err);
	memset(out, 0, sizeof(*out));
	out->status = KB_BOOT_BUILD_FAILED;
	out->reason = kb_strdup(build->reason ? build->reason
					      : "build failed");
	return 0;
}

/* ---- the engine ---------------------------------------------------------- */

struct engine *engine_new(const struct kb_pipeline_host *hosts, size_t nhosts,
			  struct kb_executor *builder, uint64_t seed,
			  unsigned drain_after, double retry_s)
{
	struct engine *e = kb_calloc(1, sizeof(*e));
	size_t h;

	e->builder = builder;
	e->seed = seed;
	e->drain_after = drain_after ? drain_after : KB_SPREAD_DRAIN_AFTER;
	e->retry_s = retry_s > 0 ? retry_s : 0;
	e->counted = -1;
	if (!nhosts) {
		/* the builder boots too, on a host of one slot */
		e->solo = 1;
		e->solo_slot = builder;
		e->solo_host.nslots = 1;
		e->solo_host.slots = &e->solo_slot;
		hosts = &e->solo_host;
		nhosts = 1;
	}
	e->nhosts = nhosts < KB_SPREAD_MAX_HOSTS ? nhosts : KB_SPREAD_MAX_HOSTS;
	e->hosts = kb_calloc(e->nhosts, sizeof(*e->hosts));
	for (h = 0; h < e->nhosts; h++) {
		e->hosts[h].h = &hosts[h];
		e->hosts[h].slots = kb_calloc(hosts[h].nslots + 1,
					      sizeof(*e->hosts[h].slots));
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	return e;
}

void engine_free(struct engine *e)
{
	size_t h;

	if (!e)
		return;
	for (h = 0; h < e->nhosts; h++) {
		free(e->hosts[h].slots);
		free(e->hosts[h].last);
	}
	free(e->hosts);
	kb_spread_free(e->sp);
	free(e->last_drained);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

static void *task_main(void *arg)
{
	struct task *t = arg;
	struct engine *e = t->e;

	if (t->is_build) {
		memset(&t->bres, 0, sizeof(t->bres));
		t->ret = kb_executor_build(t->ex, t->v, &t->bres, &t->err);
	} else {
		struct kb_boot_at at = {
			.seq = t->seq,
			.total = e->j->at ? e->j->at->total : e->j->total,
			.round = e->boots[t->boot].round,
		};

		t->ret = kb_pipeline_boot_at(t->ex, t->v, &t->build->result,
					     e->boots[t->boot].boot_no, t->runs,
					     &at, &t->res, &t->err);
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
		e->j->overlap_s += now - e->last_t;
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

/* Record what befell host @h with the job's experiment, if it has one. */
static void host_event(struct engine *e, size_t h, const char *kind,
		       int variant, unsigned boot_no, const char *reason)
{
	struct kb_err err = KB_ERR_INIT;
	int ret;

	if (!e->j->exp || !e->j->s)
		return;
	if ((ret = kb_store_host_event_put(e->j->s, e->j->exp,
					   e->hosts[h].h->uri, kind, variant,
					   boot_no, reason, &err)))
		fail(e, ret, &err);
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

	if (e->solo)
		return 1;
	if (t->is_build || e->builder_task.running)
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

static void start(struct engine *e, struct task *t)
{
	int rc;

	t->e = e;
	t->done = 0;
	t->running = 1;
	kb_err_clear(&t->err);
	memset(&t->res, 0, sizeof(t->res));
	tick(e);
	if (t->is_build) {
		e->builds_running++;
	} else {
		e->boots_running++;
		/* its place: the caller's, else the next of the run; one
		 * boot handed back without a place has none */
		t->seq = e->j->at ? e->j->at->seq : e->j->out ? 0 : ++e->seq;
		kb_now_iso(t->started, sizeof(t->started));
	}
	rc = alone(e, t) ? -1 : pthread_create(&t->thread, NULL, task_main, t);
	if (rc) {
		/* alone, or no thread: run it here (rather than not at all) */
		t->thread = pthread_self();
		task_main(t);
	}
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

/* The build of variant @var: known in this call, or from the store. */
static struct known_build *known(struct engine *e, size_t var)
{
	const struct kb_variant *v = e->vars[var].v;
	struct kb_err err = KB_ERR_INIT;
	struct known_build *b;
	int ret;

	if (e->vars[var].build)
		return e->vars[var].build;
	if (e->vars[var].missing ||
	    (e->building && !strcmp(e->building, v->build_key)))
		return NULL;
	/* e->builds has room for a build per variant, so that the pointers
	 * to them stay */
	b = &e->builds[e->nbuilds];
	memset(b, 0, sizeof(*b));
	ret = kb_store_build_get(e->j->s, v->build_key, &b->result, &b->id,
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
	e->nbuilds++;
	set_known(e, b);
	e->ev.builds_done++;
	report(e, KB_PROGRESS_BUILD_REUSED, v, 0, NULL,
	       kb_build_status_name(b->result.status), b->result.reason);
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
		if ((size_t)(b - e->boots) < e->first_boot)
			e->first_boot = (size_t)(b - e->boots);
	} else {
		(*w)--;
		e->vars[b->var].waiting--;
	}
	b->state = on ? 0 : 1;
}

/* Whether host @h waits out a back-off after its failure. */
static int backing_off(struct engine *e, size_t h)
{
	if (!e->hosts[h].retry_at)
		return 0;
	if (kb_monotime() < e->hosts[h].retry_at)
		return 1;
	e->hosts[h].retry_at = 0;
	return 0;
}

/*
 * The soonest a live host in back-off that has boots waiting may start
 * one (kb_monotime()), or 0 when none does: the call waits for it.
 */
static double next_retry(const struct engine *e)
{
	double soonest = 0;
	size_t h, i;

	for (h = 0; h < e->nhosts; h++) {
		const struct host *hs = &e->hosts[h];

		if (!hs->retry_at || !kb_spread_live(e->sp, h) ||
		    (soonest && hs->retry_at >= soonest))
			continue;
		for (i = 0; i < e->nvars; i++)
			if (e->waiting[i * e->nhosts + h])
				break;
		if (i < e->nvars)
			soonest = hs->retry_at;
	}
	return soonest;
}

/* Start the next build, in the boots' order, when the build slot is
 * free. */
static void start_build(struct engine *e)
{
	size_t i;

	if (e->builder_task.running ||
	    (!e->j->overlap && e->boots_running))
		return;
	for (i = e->first_var; i < e->nvars && !e->ret; i++) {
		if (!e->vars[i].waiting || known(e, i))
			continue;
		if (e->building)
			return; /* its build is the one running */
		e->building = e->vars[i].v->build_key;
		e->builder_task.is_build = 1;
		e->builder_task.ex = e->builder;
		e->builder_task.v = e->vars[i].v;
		report(e, KB_PROGRESS_BUILD_START, e->vars[i].v, 0, NULL, NULL,
		       NULL);
		start(e, &e->builder_task);
		return;
	}
}

/*
 * The live host for block @round, whose host cannot run it (drained, or
 * down from the start): the live host that already holds one of its
 * boots (of those before @upto), else the live one given the fewest
 * boots of the call, so that the blocks, and with them every variant's
 * boots, stay even over the hosts; (size_t)-1 when none is live.  A
 * block moves whole.
 */
static size_t round_target(const struct engine *e, unsigned round,
			   size_t upto)
{
	size_t i, h, best = (size_t)-1, *load;

	for (i = 0; i < upto; i++)
		if (e->boots[i].round == round &&
		    kb_spread_live(e->sp, e->boots[i].host))
			return e->boots[i].host;
	load = kb_calloc(e->nhosts, sizeof(*load));
	for (i = 0; i < upto; i++)
		load[e->boots[i].host]++;
	for (h = 0; h < e->nhosts; h++)
		if (kb_spread_live(e->sp, h) &&
		    (best == (size_t)-1 || load[h] < load[best]))
			best = h;
	free(load);
	return best;
}

/* In order (engine_job.in_order): every build known first, then each
 * free slot takes its host's next boot in the job's order. */
static void start_in_order(struct engine *e)
{
	size_t h, k, i, j;

	for (j = 0; j < e->nvars && !e->ret; j++)
		if (e->vars[j].waiting && !known(e, j))
			return; /* builds first */
	while (e->first_boot < e->nboots &&
	       e->boots[e->first_boot].state != 0)
		e->first_boot++;
	for (h = 0; h < e->nhosts && !e->ret; h++) {
		struct host *hs = &e->hosts[h];

		if (!kb_spread_live(e->sp, h) || backing_off(e, h))
			continue;
		i = e->first_boot;
		for (k = 0; k < hs->h->nslots && !e->ret; k++) {
			struct task *t = &hs->slots[k];
			struct pending *b;

			if (t->running)
				continue;
			while (i < e->nboots && (e->boots[i].state != 0 ||
						 e->boots[i].host != h))
				i++;
			if (i == e->nboots)
				break; /* nothing left for this host */
			b = &e->boots[i];
			waits(e, b, 0);
			t->is_build = 0;
			t->ex = hs->h->slots[k];
			t->v = e->vars[b->var].v;
			t->build = e->vars[b->var].build;
			t->boot = i;
			t->runs = e->j->runs;
			hs->running++;
			report(e, KB_PROGRESS_BOOT_START, t->v, b->boot_no,
			       hs->h->uri, NULL, NULL);
			start(e, t);
		}
	}
}

/* Start the boots there are free slots and builds for. */
static void start_boots(struct engine *e)
{
	size_t h, k, i;

	if (e->j->in_order) {
		start_in_order(e);
		return;
	}
	if (!e->j->overlap && e->builder_task.running)
		return;
	while (e->first_var < e->nvars && !e->vars[e->first_var].waiting)
		e->first_var++;
	for (h = 0; h < e->nhosts; h++) {
		struct host *hs = &e->hosts[h];

		if (!kb_spread_live(e->sp, h) || backing_off(e, h))
			continue;
		for (k = 0; k < hs->h->nslots && !e->ret; k++) {
			struct task *t = &hs->slots[k];
			const struct var *x = NULL;
			struct pending *b = NULL;
			size_t j;

			if (t->running)
				continue;
			/* its first boot whose build is known, in the
			 * boots' order */
			for (j = e->first_var; j < e->nvars && !e->ret; j++)
				if (e->waiting[j * e->nhosts + h] &&
				    known(e, j)) {
					x = &e->vars[j];
					break;
				}
			if (!x)
				break; /* nothing ready for this host */
			for (i = 0; i < x->n; i++) {
				b = &e->boots[x->boots[i]];
				if (b->host == h && b->state == 0)
					break;
			}
			waits(e, b, 0);
			t->is_build = 0;
			t->ex = hs->h->slots[k];
			t->v = x->v;
			t->build = x->build;
			t->boot = x->boots[i];
			t->runs = e->j->runs;
			hs->running++;
			report(e, KB_PROGRESS_BOOT_START, t->v, b->boot_no,
			       hs->h->uri, NULL, NULL);
			start(e, t);
		}
	}
}

/* The message once every host is drained. */
static void all_drained(struct engine *e, const char *last)
{
	struct kb_err err = KB_ERR_INIT;

	if (e->j->out)
		kb_err_set(&err, KB_EFAIL,
			   "every host is drained (the last: %s); the boots that ended are stored",
			   last ? last : "none could be used");
	else
		kb_err_set(&err, KB_EFAIL,
			   "every host is drained (the last: %s); what finished is stored, and the rest runs when a host is back",
			   last ? last : "none could be used");
	fail(e, KB_EFAIL, &err);
}

/* Take host @h out for @why (told, and recorded with @last as the
 * reason), and give its waiting boots to the others. */
static void drain(struct engine *e, size_t h, const char *why,
		  const char *last)
{
	size_t i;

	e->hosts[h].drained = 1;
	kb_spread_drain(e->sp, h);
	free(e->last_drained);
	e->last_drained = kb_strdup(why);
	host_event(e, h, "drained", -1, 0, last);
	report(e, KB_PROGRESS_HOST_DRAINED, NULL, 0, e->hosts[h].h->uri,
	       "drained", why);
	/* its boots go to the others, spread over what each variant has */
	for (i = 0; i < e->nboots; i++) {
		size_t to;

		if (e->boots[i].host != h || e->boots[i].state != 0)
			continue;
		to = e->j->in_order && e->boots[i].round
			     ? round_target(e, e->boots[i].round, e->nboots)
			     : kb_spread_pick(e->sp,
					      e->vars[e->boots[i].var].v->idx);
		if (to == (size_t)-1)
			continue;
		waits(e, &e->boots[i], 0);
		e->boots[i].host = to;
		waits(e, &e->boots[i], 1);
	}
}

/* Host @h failed boot @b for reasons of its own: count it, drain the
 * host after drain_after in a row, and give its boots to the others. */
static void host_failed(struct engine *e, size_t h, struct pending *b,
			const char *reason)
{
	struct host *hs = &e->hosts[h];
	const struct kb_variant *v = e->vars[b->var].v;
	char *why;

	waits(e, b, 1);
	why = kb_spread_strike(&hs->streak, &hs->last, hs->h->uri, reason,
			       e->drain_after);
	host_event(e, h, "failure", (int)v->idx, b->boot_no, hs->last);
	report(e, KB_PROGRESS_HOST_FAILURE, v, b->boot_no, hs->h->uri,
	       "libvirt-error", hs->last);
	if (!kb_spread_live(e->sp, h) || !why) {
		unsigned k;
		double wait = e->retry_s;

		/* a back-off before the host boots again: 1, 2, 4... times
		 * retry_s, so that a host that is down for a moment (a
		 * daemon restarting, a connection closed) is not drained in
		 * the same second */
		for (k = 1; k < hs->streak && k < 16; k++)
			wait *= 2;
		if (wait > 0)
			hs->retry_at = kb_monotime() + wait;
		free(why);
		return;
	}
	drain(e, h, why, hs->last);
	if (!kb_spread_nlive(e->sp))
		all_drained(e, why);
	free(why);
}

/* A boot ended: store it (or hand it to the caller), or count the
 * host's failure. */
static void boot_ended(struct engine *e, size_t h, struct task *t)
{
	struct engine_job *j = e->j;
	struct pending *b = &e->boots[t->boot];
	struct kb_err err = KB_ERR_INIT;
	int ret;

	e->hosts[h].running--;
	if ((t->ret || t->res.status != KB_BOOT_OK) && stopped(e)) {
		/* a guest destroyed by the stop is no result, and no failure
		 * of its host: the caller's, or done again on resume */
		if (j->out && !t->ret) {
			*j->out = t->res;
			memset(&t->res, 0, sizeof(t->res));
			b->state = 2;
		} else if (j->out || e->solo) {
			b->state = 2;
			if (t->ret)
				fail(e, t->ret, &t->err);
			else {
				kb_err_set(&err, KB_EFAIL,
					   "boot %u of variant %u was interrupted",
					   b->boot_no, t->v->idx);
				fail(e, KB_EFAIL, &err);
			}
		} else {
			waits(e, b, 1);
		}
		goto out;
	}
	if (t->ret && (e->solo || t->ret == KB_ELOCAL)) {
		/* the executor could not work, or (KB_ELOCAL) what this
		 * machine makes for the boot could not be made: the call
		 * stops, and no host is to blame */
		b->state = 2;
		fail(e, t->ret, &t->err);
		goto out;
	}
	if (!e->solo && t->ret) { /* the executor could not work: the
				    * host's doing */
		host_failed(e, h, b, t->err.msg);
		goto out;
	}
	if (!e->solo && t->res.status == KB_BOOT_LIBVIRT_ERROR) {
		host_failed(e, h, b, t->res.reason);
		goto out;
	}
	/* where it stood in the run */
	t->res.round = b->round;
	t->res.seq = t->seq;
	snprintf(t->res.started_at, sizeof(t->res.started_at), "%s",
		 t->started);
	if (j->out) {
		*j->out = t->res;
		memset(&t->res, 0, sizeof(t->res));
	} else if ((ret = kb_store_boot_put(j->s, j->exp, t->v->idx,
					    b->boot_no, t->build->id, &t->res,
					    &err))) {
		waits(e, b, 1);
		fail(e, ret, &err);
		goto out;
	}
	b->state = 2;
	e->hosts[h].streak = 0;
	e->ev.boots_done++;
	if (!j->out)
		report(e, KB_PROGRESS_BOOT_DONE, t->v, b->boot_no,
		       e->hosts[h].h->uri, kb_boot_status_name(t->res.status),
		       t->res.reason);
out:
	kb_boot_result_release(&t->res);
}

/* The build ended: store it (a failure is a result). */
static void build_ended(struct engine *e, struct task *t)
{
	struct known_build *b = &e->builds[e->nbuilds];
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
	ret = build_store(e->j->s, e->builder, t->v, e->j->stop, &b->result,
			  &b->id, &t->err);
	if (ret) {
		fail(e, ret, &t->err);
		return;
	}
	b->key = t->v->build_key;
	e->nbuilds++;
	set_known(e, b);
	e->ev.builds_done++;
	report(e, KB_PROGRESS_BUILD_DONE, t->v, 0, NULL,
	       kb_build_status_name(b->result.status), b->result.reason);
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

/* Handle every step that ended. */
static void harvest(struct engine *e)
{
	size_t h, k;

	if (reap(e, &e->builder_task))
		build_ended(e, &e->builder_task);
	for (h = 0; h < e->nhosts; h++)
		for (k = 0; k < e->hosts[h].h->nslots; k++)
			if (reap(e, &e->hosts[h].slots[k]))
				boot_ended(e, h, &e->hosts[h].slots[k]);
}

/*
 * Wait until a running step ends, or (@until, kb_monotime(); 0 none) a
 * host's back-off does; a stop asked meanwhile is seen within 0.1 s.
 */
static void wait_step(struct engine *e, double until)
{
	size_t h, k;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		int any = e->builder_task.running && e->builder_task.done;
		double now, t;
		struct timespec ts;

		for (h = 0; !any && h < e->nhosts; h++)
			for (k = 0; !any && k < e->hosts[h].h->nslots; k++)
				any = e->hosts[h].slots[k].running &&
				      e->hosts[h].slots[k].done;
		if (any)
			break;
		if (!until) {
			pthread_cond_wait(&e->cond, &e->lock);
			continue;
		}
		now = kb_monotime();
		if (now >= until || stopped(e))
			break;
		/* the condition variable waits by the wall clock */
		t = until - now < 0.1 ? until - now : 0.1;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)t;
		ts.tv_nsec += (long)((t - (double)(time_t)t) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->cond, &e->lock, &ts);
	}
	pthread_mutex_unlock(&e->lock);
}

/*
 * The spread for the job's experiment: when it is not the one counted, a
 * new one with the boots the experiment has stored counted on their
 * hosts, the hosts drained so far taken out, and the hosts down from the
 * start drained: told once, and recorded with each experiment booted.
 */
static int spread_for(struct engine *e, struct kb_err *err)
{
	struct engine_job *j = e->j;
	struct kb_store_boot_host *have = NULL;
	size_t nb = 0, i, h;
	int ret;

	if (e->sp && j->exp == e->counted)
		return 0;
	kb_spread_free(e->sp);
	e->sp = kb_spread_new(0, e->nhosts, e->seed);
	e->counted = -1; /* until its boots are read */
	for (h = 0; h < e->nhosts; h++) {
		const struct kb_pipeline_host *ph = e->hosts[h].h;
		const char *why = ph->down ? ph->down : "no slot to boot on";

		if (e->hosts[h].drained)
			kb_spread_drain(e->sp, h);
		if (ph->down == NULL && ph->nslots)
			continue;
		kb_spread_drain(e->sp, h);
		e->hosts[h].drained = 1;
		if (!e->hosts[h].said) {
			e->hosts[h].said = 1;
			free(e->last_drained);
			e->last_drained = kb_strdup(why);
			report(e, KB_PROGRESS_HOST_DRAINED, NULL, 0, ph->uri,
			       "drained", why);
		}
		host_event(e, h, "drained", -1, 0, why);
		if (e->ret)
			return e->ret; /* e->err, the caller's, says why */
	}
	if (!e->solo && j->exp && j->s &&
	    (ret = kb_store_boot_hosts(j->s, j->exp, &have, &nb, err)))
		return ret;
	for (i = 0; i < nb; i++) {
		for (h = 0; have[i].host && h < e->nhosts; h++)
			if (!strcmp(have[i].host, e->hosts[h].h->uri))
				break;
		if (!have[i].host || h == e->nhosts)
			continue;
		kb_spread_grow(e->sp, (size_t)have[i].variant_idx + 1);
		kb_spread_count(e->sp, have[i].variant_idx, h);
	}
	kb_store_boot_hosts_free(have, nb);
	e->counted = j->exp;
	return 0;
}

/* The job's boots, each given a host, and its variants in the order of
 * their first boot. */
static void plan_boots(struct engine *e)
{
	struct engine_job *j = e->j;
	size_t i, k;

	e->vars = kb_calloc(j->nreqs + j->nbuild_order + 1, sizeof(*e->vars));
	e->boots = kb_calloc(j->nreqs + 1, sizeof(*e->boots));
	/* the variants to build first, in their order */
	for (i = 0; i < j->nbuild_order; i++)
		e->vars[e->nvars++].v = j->build_order[i];
	/* each boot's variant (a variant's boots mostly come together),
	 * then each variant's boots */
	for (i = 0; i < j->nreqs; i++) {
		const struct kb_variant *v = j->reqs[i].v;

		k = e->nvars;
		if (k && e->vars[k - 1].v == v)
			k--;
		else
			for (k = 0; k < e->nvars && e->vars[k].v != v; k++)
				;
		if (k == e->nvars)
			e->vars[e->nvars++].v = v;
		e->vars[k].n++;
		e->boots[i].var = k;
	}
	e->nboots = j->nreqs;
	for (k = 0; k < e->nvars; k++) {
		e->vars[k].boots = kb_calloc(e->vars[k].n + 1,
					     sizeof(*e->vars[k].boots));
		e->vars[k].n = 0;
	}
	e->waiting = kb_calloc((e->nvars + 1) * e->nhosts,
			       sizeof(*e->waiting));
	for (i = 0; i < e->nboots; i++) {
		struct pending *b = &e->boots[i];
		struct var *x = &e->vars[b->var];

		x->boots[x->n++] = i;
		b->boot_no = j->reqs[i].boot_no;
		b->round = j->reqs[i].round;
		kb_spread_grow(e->sp, (size_t)x->v->idx + 1);
		if (j->reqs[i].host < e->nhosts) {
			/* the order's host for its block, or the live host
			 * that takes the block over */
			b->host = j->reqs[i].host;
			if (!kb_spread_live(e->sp, b->host))
				b->host = round_target(e, b->round, i);
			if (b->host != (size_t)-1)
				kb_spread_count(e->sp, x->v->idx, b->host);
		} else {
			b->host = kb_spread_pick(e->sp, x->v->idx);
		}
		if (b->host == (size_t)-1)
			b->host = 0; /* no host live: never starts */
		waits(e, b, 1);
	}
	/* room for every build of the call: known() and build_ended() add
	 * one at a time, and pointers to them are kept */
	e->builds = kb_calloc(e->nvars + 1, sizeof(*e->builds));
	if (j->build) {
		struct known_build *b = &e->builds[e->nbuilds++];

		b->result = *j->build;
		b->id = j->build_id;
		b->borrowed = 1;
		for (k = 0; k < e->nvars; k++)
			e->vars[k].build = b;
	}
}

/* The first boot not ended, for the message of a stop. */
static const struct pending *first_waiting(const struct engine *e)
{
	size_t i;

	for (i = 0; i < e->nboots; i++)
		if (e->boots[i].state != 2)
			return &e->boots[i];
	return NULL;
}

/* Forget the call's state; what is kept across calls stays. */
static void end_call(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->nbuilds; i++)
		if (!e->builds[i].borrowed)
			kb_build_result_release(&e->builds[i].result);
	for (i = 0; i < e->nvars; i++)
		free(e->vars[i].boots);
	free(e->builds);
	free(e->vars);
	free(e->boots);
	free(e->waiting);
	e->builds = NULL;
	e->vars = NULL;
	e->boots = NULL;
	e->waiting = NULL;
	e->nbuilds = e->nvars = e->nboots = 0;
	e->first_var = 0;
	e->first_boot = 0;
	e->building = NULL;
	e->j = NULL;
	e->err = NULL;
	e->ret = 0;
	memset(&e->builder_task, 0, sizeof(e->builder_task));
}

int engine_run(struct engine *e, struct engine_job *j, struct kb_err *err)
{
	const struct pending *w;
	int ret;

	e->j = j;
	e->err = err;
	e->ret = 0;
	j->overlap_s = 0;
	memset(&e->ev, 0, sizeof(e->ev));
	e->ev.builds_total = j->builds_total;
	e->ev.boots_total = j->boots_total;
	e->ev.boots_done = j->boots_done;
	e->seq = j->seq0;
	e->t0 = kb_monotime();
	e->last_t = e->t0;
	if ((ret = spread_for(e, err))) {
		end_call(e);
		return ret;
	}
	plan_boots(e);
	if (e->nboots && !kb_spread_nlive(e->sp)) {
		struct kb_err serr = KB_ERR_INIT;

		if (j->out) {
			all_drained(e, e->last_drained);
		} else {
			kb_err_set(&serr, KB_EFAIL,
				   "no host can run boots: every host of the matrix is down");
			fail(e, KB_EFAIL, &serr);
		}
	}
	for (;;) {
		double retry = 0;

		harvest(e);
		if (!e->ret && !stopped(e)) {
			start_boots(e);
			start_build(e);
			start_boots(e);
			retry = next_retry(e);
		}
		if (!e->builder_task.running && !e->boots_running && !retry)
			break;
		wait_step(e, retry);
	}
	ret = e->ret;
	j->boots_done = e->ev.boots_done;
	if (!ret && (w = first_waiting(e))) {
		const struct kb_variant *v = e->vars[w->var].v;

		if (stopped(e))
			ret = kb_err_set(err, KB_EFAIL,
					 "stopped before boot %u of variant %u",
					 w->boot_no, v->idx);
		else /* nothing could start it: no build, no host */
			ret = kb_err_set(err, KB_EFAIL,
					 "boot %u of variant %u could not run",
					 w->boot_no, v->idx);
	}
	j->host = e->nboots ? e->boots[e->nboots - 1].host : (size_t)-1;
	end_call(e);
	return ret;
}
