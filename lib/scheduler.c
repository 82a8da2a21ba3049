/*
 * scheduler: which queued jobs the daemon starts now, given its build
 * slots, its hosts' capacities and the leases in the store (scheduler.h,
 * docs/daemon.md).
 *
 * A pass does work in proportion to what changed, not to the queue: the
 * scheduler remembers, per experiment, whether it may have a build or a
 * boot ready and whether its jobs changed since it was last settled, and
 * asks the store only about those.  A claim that finds nothing clears the
 * hint; what can make a job ready sets it again:
 *
 *  - a new experiment (refresh: those submitted since the last one);
 *  - a build of the experiment ending (its boots wait for it);
 *  - a lease of it lapsing (kb_store_queue_lapsed(), read by an index);
 *  - anything else done to the database by someone else (another
 *    scheduler on it, a hand edit): every second the first pass looks
 *    again at a few held experiments in turn (LOOK_PER_SECOND), so that
 *    each is looked at again within held / LOOK_PER_SECOND seconds.
 *
 * An experiment is settled once it runs nothing and its jobs changed (a
 * step of it ended, it was loaded or looked at again), not on every pass.
 */
#include "scheduler.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fsutil.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "spread.h"
#include "banned.h"

/* Hosts the scheduler counts boots on: more get no boots. */
#define MAX_HOSTS 64
/* Held experiments looked at again each second, in turn. */
#define LOOK_PER_SECOND 8

struct sched_exp {
	struct kb_queue_exp *x;
	int64_t id;
	unsigned running; /* steps of it handed out and not finished */
	int seen;         /* in the queue, as far as the scheduler knows */
	int builds;       /* may have a build ready */
	uint64_t boots;   /* may have a boot ready, per host of its matrix
			   * (bit i: its i-th host) */
	int dirty;        /* its jobs changed since it was last settled */
	int quiet;        /* its builds and boots must not overlap
			   * (kb_spread_overlap()) */
	unsigned builds_running, boots_running;
	double overlap_s; /* builds and boots of it at once, not stored yet */
	double last_t;    /* kb_monotime() of the last count of it */
};

struct sched_host {
	char *uri;
	unsigned running; /* boots on it */
	unsigned streak;  /* failures of its own in a row */
	char *last;       /* the last of them */
	double drained_until; /* kb_monotime() it is tried again at; 0:
			       * live */
	double retry_at;  /* kb_monotime() before which it gets no boot (a
			   * back-off after a failure); 0 none */
};

/* Where a pass is: kb_sched_next() goes on from there. */
enum phase { PHASE_LOOK, PHASE_BUILDS, PHASE_BOOTS, PHASE_DONE };

struct kb_sched {
	struct kb_store *s;
	char *owner;
	unsigned build_jobs, max_steps, max_loads;
	int64_t lease_s;
	double time_scale;
	void (*note)(const struct kb_sched_note *n, void *arg);
	void *arg;
	void (*host_note)(const struct kb_sched_host_note *n, void *arg);

	struct sched_exp **exps; /* by id, oldest first; each allocated */
	size_t nexps;
	int64_t last_id;         /* the newest experiment loaded */
	int behind;              /* refresh left experiments to load */
	size_t look_i;           /* the next experiment to look at again */
	int64_t last_look;       /* the second of the last look() */
	struct sched_host hosts[MAX_HOSTS];
	size_t nhosts;
	unsigned running, builds_running;
	unsigned quiet_boots;    /* boots running of quiet experiments */
	unsigned drain_after;
	double drain_s;
	double retry_s;
	int64_t last_renew;

	enum phase phase;
	size_t exp_i;   /* the experiment looked at */
	size_t host_i;  /* boots: the host of its matrix looked at */
	int exp_over;   /* boots: nothing more of this experiment */
};

int kb_sched_new(const struct kb_sched_opts *o, struct kb_sched **out,
		 struct kb_err *err)
{
	struct kb_sched *sc;

	*out = NULL;
	if (!o->store || !o->owner)
		return kb_err_set(err, KB_EINPUT,
				  "a scheduler needs a store and an owner");
	if (!o->build_jobs || !o->max_steps || o->lease_s < 1)
		return kb_err_set(err, KB_EINPUT,
				  "a scheduler needs build slots, steps and a lease of at least 1");
	sc = kb_calloc(1, sizeof(*sc));
	sc->s = o->store;
	sc->owner = kb_strdup(o->owner);
	sc->build_jobs = o->build_jobs;
	sc->max_steps = o->max_steps;
	sc->max_loads = o->max_loads;
	sc->lease_s = o->lease_s;
	sc->time_scale = o->time_scale;
	sc->drain_after = o->drain_after ? o->drain_after
					 : KB_SPREAD_DRAIN_AFTER;
	sc->drain_s = o->drain_s > 0 ? o->drain_s : 600;
	sc->retry_s = o->retry_s > 0 ? o->retry_s : 0;
	sc->note = o->note;
	sc->host_note = o->host_note;
	sc->arg = o->arg;
	sc->last_look = -1;
	sc->phase = PHASE_DONE;
	*out = sc;
	return 0;
}

static void exp_free(struct sched_exp *e)
{
	if (!e)
		return;
	kb_queue_exp_free(e->x);
	free(e);
}

void kb_sched_free(struct kb_sched *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < sc->nexps; i++)
		exp_free(sc->exps[i]);
	free(sc->exps);
	for (i = 0; i < sc->nhosts; i++) {
		free(sc->hosts[i].uri);
		free(sc->hosts[i].last);
	}
	free(sc->owner);
	free(sc);
}

static void tell(struct kb_sched *sc, enum kb_sched_note_kind kind,
		 int64_t id, const struct kb_queue_exp *x, const char *state,
		 const char *msg)
{
	struct kb_sched_note n = { .kind = kind, .id = id, .exp = x,
				   .state = state, .msg = msg };

	if (sc->note)
		sc->note(&n, sc->arg);
}

static void tell_host(struct kb_sched *sc, enum kb_sched_host_kind kind,
		      const char *host, int64_t id, const char *msg)
{
	struct kb_sched_host_note n = { .kind = kind, .host = host, .id = id,
					.msg = msg };

	if (sc->host_note)
		sc->host_note(&n, sc->arg);
}

/* Experiment @id, by bisection (the array is in order of id), or NULL. */
static struct sched_exp *find_exp(const struct kb_sched *sc, int64_t id)
{
	size_t lo = 0, hi = sc->nexps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc->exps[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sc->nexps && sc->exps[lo]->id == id ? sc->exps[lo] : NULL;
}

/* The index of @uri's slot, or nhosts when it has none. */
static size_t find_host(const struct kb_sched *sc, const char *uri)
{
	size_t i;

	for (i = 0; i < sc->nhosts; i++)
		if (!strcmp(sc->hosts[i].uri, uri))
			break;
	return i;
}

/* The slot of @uri, made on first use; NULL when the table is full. */
static struct sched_host *host(struct kb_sched *sc, const char *uri)
{
	size_t i = find_host(sc, uri);

	if (i < sc->nhosts)
		return &sc->hosts[i];
	if (sc->nhosts == MAX_HOSTS)
		return NULL;
	memset(&sc->hosts[i], 0, sizeof(sc->hosts[i]));
	sc->hosts[i].uri = kb_strdup(uri);
	sc->nhosts++;
	return &sc->hosts[i];
}

/* The index of @uri among @m's hosts, or -1. */
static long matrix_host(const struct kb_matrix *m, const char *uri)
{
	size_t i;

	for (i = 0; uri && i < kb_matrix_nhosts(m) && i < MAX_HOSTS; i++)
		if (!strcmp(kb_matrix_host(m, i)->uri, uri))
			return (long)i;
	return -1;
}

/* Something of @e may have changed: claim from it and settle it again. */
static void stir(struct sched_exp *e)
{
	e->builds = e->dirty = 1;
	e->boots = ~(uint64_t)0;
}

/* Count the time @e's builds and boots ran at once, up to now. */
static void tick(struct sched_exp *e)
{
	double now = kb_monotime();

	if (e->builds_running && e->boots_running)
		e->overlap_s += now - e->last_t;
	e->last_t = now;
}

/* Load experiment @id, newer than every one held; one stored that no
 * longer plans is failed. */
static void load_exp(struct kb_sched *sc, int64_t id)
{
	struct kb_err err = KB_ERR_INIT, ignored = KB_ERR_INIT;
	struct kb_queue_exp *x = NULL;
	struct sched_exp *e;

	if (kb_queue_exp_load(sc->s, id, sc->time_scale, &x, &err)) {
		tell(sc, KB_SCHED_NOTE_ERROR, id, NULL, NULL, err.msg);
		kb_store_experiment_finish(sc->s, id, "failed", err.msg,
					   &ignored);
		return;
	}
	e = kb_calloc(1, sizeof(*e));
	e->x = x;
	e->id = id;
	e->seen = 1;
	e->quiet = !kb_spread_overlap(kb_queue_exp_matrix(x),
				      kb_queue_exp_is_model(x));
	e->last_t = kb_monotime();
	stir(e);
	sc->exps = kb_reallocarray(sc->exps, sc->nexps + 1, sizeof(*sc->exps));
	sc->exps[sc->nexps++] = e;
	tell(sc, KB_SCHED_NOTE_LOADED, id, x, NULL, NULL);
}

/* Forget experiments that left the queue and run nothing any more. */
static void forget_ended(struct kb_sched *sc)
{
	size_t i, k = 0, look_i = sc->look_i;

	for (i = 0; i < sc->nexps; i++) {
		struct sched_exp *e = sc->exps[i];

		if (e->seen || e->running) {
			sc->exps[k++] = e;
			continue;
		}
		exp_free(e);
		if (i < look_i) /* the turn goes on where it was */
			sc->look_i--;
	}
	sc->nexps = k;
}

int kb_sched_refresh(struct kb_sched *sc, struct kb_err *err)
{
	int64_t *ids = NULL;
	size_t n = 0, i;
	int ret;

	sc->phase = PHASE_DONE;
	forget_ended(sc);
	if ((ret = kb_store_queue_experiments_after(sc->s, sc->last_id,
						    sc->max_loads, &ids, &n,
						    err)))
		return ret;
	for (i = 0; i < n; i++) {
		/* ids come in order, each newer than the last loaded */
		load_exp(sc, ids[i]);
		sc->last_id = ids[i];
	}
	sc->behind = sc->max_loads && n == sc->max_loads;
	free(ids);
	sc->phase = PHASE_LOOK;
	sc->exp_i = 0;
	sc->host_i = 0;
	sc->exp_over = 0;
	return 0;
}

int kb_sched_behind(const struct kb_sched *sc)
{
	return sc->behind;
}

static void settle(struct kb_sched *sc, int64_t id)
{
	struct kb_err err = KB_ERR_INIT;
	struct sched_exp *e = find_exp(sc, id);
	char *state = NULL;

	if (e && e->overlap_s > 0) {
		/* the time its builds and boots overlapped, for the record */
		if (kb_store_overlap_add(sc->s, id, e->overlap_s, &err))
			tell(sc, KB_SCHED_NOTE_ERROR, id, NULL, NULL, err.msg);
		e->overlap_s = 0;
		kb_err_clear(&err);
	}
	if (kb_store_experiment_settle(sc->s, id, &state, &err)) {
		tell(sc, KB_SCHED_NOTE_ERROR, id, NULL, NULL, err.msg);
		return;
	}
	if (e)
		e->dirty = 0;
	if (strcmp(state, "queued") && strcmp(state, "running")) {
		tell(sc, KB_SCHED_NOTE_ENDED, id, NULL, state, NULL);
		if (e) /* forgotten at the next refresh */
			e->seen = e->builds = e->boots = 0;
	}
	free(state);
}

/*
 * The start of the first pass in second @now: the experiments with a
 * lease that lapsed (leases lapse by the second), and the next few held
 * ones in turn, may have changed without the scheduler: stir them (or,
 * for one that left the queue, forget it without a note, as whoever
 * ended it told).
 */
static int look(struct kb_sched *sc, int64_t now, struct kb_err *err)
{
	int64_t *ids = NULL;
	size_t n = 0, i, k;
	int live, ret;

	if (now == sc->last_look)
		return 0;
	sc->last_look = now;
	if ((ret = kb_store_queue_lapsed(sc->s, now, &ids, &n, err)))
		return ret;
	for (i = 0; i < n; i++) {
		struct sched_exp *e = find_exp(sc, ids[i]);

		if (e && e->seen)
			stir(e);
	}
	free(ids);
	for (k = 0; k < LOOK_PER_SECOND && k < sc->nexps; k++) {
		struct sched_exp *e;

		if (sc->look_i >= sc->nexps)
			sc->look_i = 0;
		e = sc->exps[sc->look_i++];
		if (!e->seen)
			continue;
		if ((ret = kb_store_queue_has(sc->s, e->id, &live, err)))
			return ret;
		if (live)
			stir(e);
		else
			e->seen = e->builds = e->boots = 0;
	}
	return 0;
}

/* Lease the next job of @kind of @e (boots: on host @h); count it. */
static int claim(struct kb_sched *sc, struct sched_exp *e,
		 enum kb_store_job_kind kind, struct sched_host *h,
		 int64_t now, struct kb_sched_step *out, struct kb_err *err)
{
	struct kb_store_claim c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.owner = sc->owner;
	c.now = now;
	c.lease_s = sc->lease_s;
	c.kind = kind;
	c.experiment = e->id;
	c.host = h ? h->uri : NULL; /* and only the boots given to it */
	if ((ret = kb_store_job_claim(sc->s, &c, &out->job, err)))
		return ret;
	out->exp = e->x;
	out->host = h ? h->uri : NULL;
	tick(e);
	e->running++;
	sc->running++;
	if (h) {
		h->running++;
		e->boots_running++;
		sc->quiet_boots += e->quiet;
	} else {
		sc->builds_running++;
		e->builds_running++;
	}
	return 0;
}

/* Whether host @h may run boots: not drained, or back from it. */
static int host_live(struct kb_sched *sc, struct sched_host *h)
{
	size_t i;

	if (!h->drained_until)
		return 1;
	if (kb_monotime() < h->drained_until)
		return 0;
	h->drained_until = 0;
	h->streak = 0;
	tell_host(sc, KB_SCHED_HOST_BACK, h->uri, 0, NULL);
	for (i = 0; i < sc->nexps; i++)
		if (sc->exps[i]->seen &&
		    matrix_host(kb_queue_exp_matrix(sc->exps[i]->x), h->uri) >= 0)
			stir(sc->exps[i]);
	return 1;
}

/* Builds: oldest experiment first, while a build slot is free. */
static int next_build(struct kb_sched *sc, int64_t now,
		      struct kb_sched_step *out, struct kb_err *err)
{
	/* no build beside the boots of an experiment that asks for none */
	while (sc->exp_i < sc->nexps && !sc->quiet_boots &&
	       sc->builds_running < sc->build_jobs &&
	       sc->running < sc->max_steps) {
		struct sched_exp *e = sc->exps[sc->exp_i];
		int ret;

		if (!e->seen || !e->builds) {
			sc->exp_i++;
			continue;
		}
		ret = claim(sc, e, KB_STORE_JOB_BUILD, NULL, now, out, err);
		if (ret == 0)
			return 0;
		/* nothing more of it now: the next experiment */
		sc->exp_i++;
		if (ret != KB_ENOTFOUND)
			return ret;
		e->builds = 0;
	}
	return KB_ENOTFOUND;
}

/* Whether host @h waits out a back-off after a failure of its own. */
static int backing_off(struct sched_host *h)
{
	if (!h->retry_at)
		return 0;
	if (kb_monotime() < h->retry_at)
		return 1;
	h->retry_at = 0;
	return 0;
}

/* Boots: oldest experiment first, per host of its matrix up to the
 * capacity it gives there; then the experiment is settled if it runs
 * nothing and its jobs changed. */
static int next_boot(struct kb_sched *sc, int64_t now,
		     struct kb_sched_step *out, struct kb_err *err)
{
	while (sc->exp_i < sc->nexps) {
		struct sched_exp *e = sc->exps[sc->exp_i];
		const struct kb_matrix *m = kb_queue_exp_matrix(e->x);

		if (!e->seen) {
			sc->exp_i++;
			continue;
		}
		while (e->boots && !sc->exp_over &&
		       !(e->quiet && sc->builds_running) &&
		       sc->host_i < kb_matrix_nhosts(m) &&
		       sc->host_i < MAX_HOSTS) {
			const struct kb_host *h = kb_matrix_host(m, sc->host_i);
			struct sched_host *hs = host(sc, h->uri);
			uint64_t bit = (uint64_t)1 << sc->host_i;
			int ret;

			if (!(e->boots & bit) || !hs || !host_live(sc, hs) ||
			    backing_off(hs) || hs->running >= h->capacity ||
			    sc->running >= sc->max_steps) {
				sc->host_i++;
				continue;
			}
			ret = claim(sc, e, KB_STORE_JOB_BOOT, hs, now, out,
				    err);
			if (ret == 0)
				return 0;
			if (ret != KB_ENOTFOUND) {
				sc->exp_over = 1;
				return ret; /* settled at the next call */
			}
			/* none of its boots on this host is ready */
			e->boots &= ~bit;
			sc->host_i++;
		}
		if (e->dirty && !e->running)
			settle(sc, e->id);
		sc->exp_i++;
		sc->host_i = 0;
		sc->exp_over = 0;
	}
	return KB_ENOTFOUND;
}

int kb_sched_next(struct kb_sched *sc, int64_t now, struct kb_sched_step *out,
		  struct kb_err *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (sc->phase == PHASE_LOOK) {
		sc->phase = PHASE_BUILDS;
		if ((ret = look(sc, now, err)))
			return ret; /* the pass goes on without it */
	}
	if (sc->phase == PHASE_BUILDS) {
		if ((ret = next_build(sc, now, out, err)) != KB_ENOTFOUND)
			return ret;
		sc->phase = PHASE_BOOTS;
		sc->exp_i = 0;
		sc->host_i = 0;
		sc->exp_over = 0;
	}
	if (sc->phase == PHASE_BOOTS) {
		if ((ret = next_boot(sc, now, out, err)) != KB_ENOTFOUND)
			return ret;
		sc->phase = PHASE_DONE;
	}
	return KB_ENOTFOUND;
}

/*
 * Move the queued boots experiment @e gave drained host @uri to its
 * other live hosts, spread as kb_spread_pick() does over what each
 * variant has there already; with none live, they wait (note STUCK).
 */
static void move_boots(struct kb_sched *sc, struct sched_exp *e,
		       const char *uri, const char *why)
{
	const struct kb_matrix *m = kb_queue_exp_matrix(e->x);
	size_t nh = kb_matrix_nhosts(m), i, k = 0;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_job_host *jobs = NULL;
	struct kb_spread *sp;
	const char **to;
	int64_t *ids;
	size_t n = 0;

	if (kb_store_host_event_put(sc->s, e->id, uri, "drained", -1, 0, why,
				    &err) ||
	    kb_store_job_hosts(sc->s, e->id, &jobs, &n, &err)) {
		tell(sc, KB_SCHED_NOTE_ERROR, e->id, NULL, NULL, err.msg);
		return;
	}
	sp = kb_spread_new(kb_plan_nvariants(kb_queue_exp_plan(e->x)), nh,
			   kb_spread_seed(kb_matrix_text(m)));
	for (i = 0; i < nh && i < MAX_HOSTS; i++) {
		size_t j = find_host(sc, kb_matrix_host(m, i)->uri);

		if (j < sc->nhosts && sc->hosts[j].drained_until)
			kb_spread_drain(sp, i);
	}
	for (i = 0; i < n; i++) {
		long h = matrix_host(m, jobs[i].host);

		if (h >= 0)
			kb_spread_count(sp, jobs[i].variant_idx, (size_t)h);
	}
	ids = kb_calloc(n + 1, sizeof(*ids));
	to = kb_calloc(n + 1, sizeof(*to));
	for (i = 0; kb_spread_nlive(sp) && i < n; i++) {
		size_t h;

		if (!jobs[i].queued || !jobs[i].host ||
		    strcmp(jobs[i].host, uri))
			continue;
		h = kb_spread_pick(sp, jobs[i].variant_idx);
		ids[k] = jobs[i].id;
		to[k++] = kb_matrix_host(m, h)->uri;
	}
	if (!kb_spread_nlive(sp))
		tell_host(sc, KB_SCHED_HOST_STUCK, uri, e->id,
			  "every host of its matrix is drained: its boots wait until one is back");
	else if (k && kb_store_job_assign(sc->s, ids, to, k, &err))
		tell(sc, KB_SCHED_NOTE_ERROR, e->id, NULL, NULL, err.msg);
	stir(e);
	free(ids);
	free(to);
	kb_spread_free(sp);
	kb_store_job_hosts_free(jobs, n);
}

/* Host @h failed a boot for reasons of its own (@why): back off for
 * retry_s times @scale (the model's time for a model experiment's),
 * doubled for each failure in a row; drain it after drain_after in a
 * row, its queued boots moved. */
static void host_failed(struct kb_sched *sc, struct sched_host *h,
			const char *why, double scale)
{
	char *msg;
	size_t i;

	free(h->last);
	h->last = kb_strdup(why);
	if (++h->streak < sc->drain_after || h->drained_until) {
		/* a back-off before its next boot, doubled for each failure
		 * in a row: a host down for a moment is not drained in the
		 * same second */
		double wait = sc->retry_s * scale;
		unsigned k;

		for (k = 1; k < h->streak && k < 16; k++)
			wait *= 2;
		if (wait > 0 && !h->drained_until)
			h->retry_at = kb_monotime() + wait;
		return;
	}
	h->drained_until = kb_monotime() + sc->drain_s;
	h->retry_at = 0;
	msg = kb_asprintf("host %s drained after %u infrastructure failures: %s",
			  h->uri, h->streak, why);
	tell_host(sc, KB_SCHED_HOST_DRAINED, h->uri, 0, msg);
	for (i = 0; i < sc->nexps; i++)
		if (sc->exps[i]->seen &&
		    matrix_host(kb_queue_exp_matrix(sc->exps[i]->x), h->uri) >= 0)
			move_boots(sc, sc->exps[i], h->uri, why);
	free(msg);
}

void kb_sched_finished(struct kb_sched *sc, struct kb_sched_step *st)
{
	struct sched_exp *e = find_exp(sc, st->job.experiment);

	if (e)
		tick(e);
	if (sc->running)
		sc->running--;
	if (st->job.kind == KB_STORE_JOB_BUILD) {
		if (sc->builds_running)
			sc->builds_running--;
		if (e && e->builds_running)
			e->builds_running--;
	} else if (st->host) {
		struct sched_host *h = host(sc, st->host);

		if (h && h->running)
			h->running--;
		if (e && e->boots_running)
			e->boots_running--;
		if (e && e->quiet && sc->quiet_boots)
			sc->quiet_boots--;
		if (h && st->host_failure)
			host_failed(sc, h, st->host_failure,
				    e && kb_queue_exp_is_model(e->x)
					    ? sc->time_scale
					    : 1);
		else if (h)
			h->streak = 0;
	}
	if (e && e->running)
		e->running--;
	if (e && e->seen) {
		/* a build done readies its boots; a boot its host could not
		 * run is queued there again; and its jobs changed */
		if (st->job.kind == KB_STORE_JOB_BUILD)
			e->boots = ~(uint64_t)0;
		if (st->host_failure) {
			long i = matrix_host(kb_queue_exp_matrix(e->x),
					     st->host);

			if (i >= 0)
				e->boots |= (uint64_t)1 << i;
		}
		e->dirty = 1;
	}
	free(st->host_failure);
	st->host_failure = NULL;
	/* the last step of it to end settles it */
	if (!e || !e->running)
		settle(sc, st->job.experiment);
	kb_store_job_release(&st->job);
	memset(st, 0, sizeof(*st));
}

int kb_sched_renew(struct kb_sched *sc, int64_t now, struct kb_err *err)
{
	if (now - sc->last_renew < sc->lease_s / 3 || !sc->running)
		return 0;
	sc->last_renew = now;
	return kb_store_job_renew(sc->s, sc->owner, now, sc->lease_s, NULL,
				  err);
}

unsigned kb_sched_running(const struct kb_sched *sc)
{
	return sc->running;
}

unsigned kb_sched_builds_running(const struct kb_sched *sc)
{
	return sc->builds_running;
}

unsigned kb_sched_host_running(const struct kb_sched *sc, const char *uri)
{
	size_t i = find_host(sc, uri);

	return i < sc->nhosts ? sc->hosts[i].running : 0;
}

int kb_sched_host_drained(const struct kb_sched *sc, const char *uri)
{
	size_t i = find_host(sc, uri);

	return i < sc->nhosts && sc->hosts[i].drained_until > 0;
}

unsigned kb_sched_boot_slots(const struct kb_sched *sc, int64_t id)
{
	const struct sched_exp *e = find_exp(sc, id);
	const struct kb_matrix *m;
	unsigned n = 0;
	size_t i;

	if (!e)
		return 1;
	m = kb_queue_exp_matrix(e->x);
	for (i = 0; i < kb_matrix_nhosts(m); i++)
		if (!kb_sched_host_drained(sc, kb_matrix_host(m, i)->uri))
			n += kb_matrix_host(m, i)->capacity;
	return n;
}
