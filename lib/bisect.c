/*
 * Option bisection (lib/bisect.h): the changes between the good and the
 * bad config (their groups: lib/bisect_ties.c), the search over them
 * (ddmin, or the adaptive group testing of lib/bisect_group.c), whether
 * the answer is 1-minimal, and kb_bisect_options() that drives it all.
 * Points, probes and what is stored are lib/bisect_probe.c's, which this
 * file calls.
 */
#include "bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "mem.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* ---- the change set and its groups ------------------------------------ */

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every option of either config, sorted, with its level in each. */
static void collect_names(struct bisect *b, const struct kb_kconfig *good,
			  const struct kb_kconfig *bad)
{
	const struct kb_kconfig *cfg[2] = { good, bad };
	size_t n = 0, i, k, c;
	const char *name;

	b->names = kb_reallocarray(NULL, kb_kconfig_count(good) +
						 kb_kconfig_count(bad) + 1,
				   sizeof(*b->names));
	for (c = 0; c < 2; c++)
		for (i = 0; (name = kb_kconfig_name_at(cfg[c], i, NULL)); i++)
			b->names[n++] = kb_strdup(name);
	qsort(b->names, n, sizeof(*b->names), by_name);
	for (i = k = 0; i < n; i++) {
		if (k && !strcmp(b->names[k - 1], b->names[i]))
			free(b->names[i]);
		else
			b->names[k++] = b->names[i];
	}
	b->nnames = k;
	b->goodv = kb_calloc(k + 1, sizeof(*b->goodv));
	b->badv = kb_calloc(k + 1, sizeof(*b->badv));
	for (i = 0; i < k; i++) {
		b->goodv[i] = kb_kconfig_get(good, b->names[i]);
		b->badv[i] = kb_kconfig_get(bad, b->names[i]);
		if (!b->goodv[i])
			b->goodv[i] = "n";
		if (!b->badv[i])
			b->badv[i] = "n";
	}
}

static int make_changes(struct bisect *b, struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	size_t i;

	b->change_of = kb_calloc(b->nnames + 1, sizeof(*b->change_of));
	for (i = 0; i < b->nnames; i++) {
		b->change_of[i] = -1;
		if (!strcmp(b->goodv[i], b->badv[i]))
			continue;
		if (b->o->settable &&
		    !b->o->settable(b->o->depends_arg, b->names[i])) {
			struct kb_bisect_change *d;

			r->derived = kb_reallocarray(r->derived,
						     r->nderived + 1,
						     sizeof(*r->derived));
			d = &r->derived[r->nderived++];
			d->option = kb_strdup(b->names[i]);
			d->good = kb_strdup(b->goodv[i]);
			d->bad = kb_strdup(b->badv[i]);
			d->group = 0;
			b->change_of[i] = CHANGE_DERIVED;
			continue;
		}
		b->change_of[i] = (long)r->nchanges++;
	}
	if (r->nchanges == 0 && r->nderived)
		return kb_err_set(err, KB_EINPUT,
				  "the good and bad configs differ only in %zu options that no prompt sets (their levels follow other options): nothing to bisect",
				  r->nderived);
	if (r->nchanges == 0)
		return kb_err_set(err, KB_EINPUT,
				  "the good and bad configs set every option alike: nothing to bisect");
	if (r->nchanges > KB_BISECT_MAX_CHANGES)
		return kb_err_set(err, KB_EINPUT,
				  "the good and bad configs differ in %zu options, more than the %d a bisection takes",
				  r->nchanges, KB_BISECT_MAX_CHANGES);
	r->changes = kb_calloc(r->nchanges, sizeof(*r->changes));
	b->change_name = kb_calloc(r->nchanges, sizeof(*b->change_name));
	for (i = 0; i < b->nnames; i++) {
		struct kb_bisect_change *c;

		if (b->change_of[i] < 0)
			continue;
		c = &r->changes[b->change_of[i]];
		c->option = kb_strdup(b->names[i]);
		c->good = kb_strdup(b->goodv[i]);
		c->bad = kb_strdup(b->badv[i]);
		b->change_name[b->change_of[i]] = i;
	}

	kb_bisect__tie_changes(b);
	return 0;
}

/* ---- the search ------------------------------------------------------- */

/* Classify the set of the @n groups at @groups. */
static int test_groups(struct bisect *b, const size_t *groups, size_t n,
		       unsigned char *set, enum kb_bisect_class *cls,
		       struct kb_err *err)
{
	size_t i;
	int ret;

	if (b->regroup) { /* the groups are being joined: no probe */
		*cls = KB_BISECT_UNKNOWN;
		return 0;
	}
	memset(set, 0, b->ngroups);
	for (i = 0; i < n; i++)
		set[groups[i]] = 1;
	if ((ret = kb_bisect__test(b, set, cls, err)) == 0)
		kb_bisect__held(b, set, *cls);
	return ret;
}

/*
 * The order in which to probe the @n chunks of cur[0..ncur) (or their
 * complements, @complement) of one ddmin round: cheapest to build first
 * from the last point compiled, by the build weights of the groups whose
 * levels differ (ties, and without weights every chunk, in order).
 */
struct chunk_cost {
	long long cost;
	size_t i;
};

static int by_cost(const void *x, const void *y)
{
	const struct chunk_cost *a = x, *b = y;

	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void round_order(const struct bisect *b, const size_t *cur,
			size_t ncur, size_t n, int complement, size_t *ord)
{
	struct chunk_cost *cost = kb_calloc(n + 1, sizeof(*cost));
	long long base = 0, all = 0, d;
	size_t i, j, g;

	for (i = 0; i < n; i++)
		ord[i] = i;
	if (!b->gweight) {
		free(cost);
		return;
	}
	/* the cost of a set S from the last set L is the weight of the groups
	 * in one but not the other: the weight of L, plus for each group of
	 * S its weight when not in L, minus it when in L */
	for (g = 0; g < b->ngroups; g++)
		if (b->last_set && b->last_set[g])
			base += (long long)b->gweight[g];
	for (j = 0; j < ncur; j++) {
		g = cur[j];
		d = (long long)b->gweight[g];
		all += b->last_set && b->last_set[g] ? -d : d;
	}
	for (i = 0; i < n; i++) {
		long long in = 0;

		for (j = i * ncur / n; j < (i + 1) * ncur / n; j++) {
			g = cur[j];
			d = (long long)b->gweight[g];
			in += b->last_set && b->last_set[g] ? -d : d;
		}
		cost[i].cost = base + (complement ? all - in : in);
		cost[i].i = i;
	}
	qsort(cost, n, sizeof(*cost), by_cost);
	for (i = 0; i < n; i++)
		ord[i] = cost[i].i;
	free(cost);
}

/*
 * ddmin over the groups in cur[0..*ncur): split into n chunks; reduce to
 * a chunk that is bad (n = 2), else to a complement that is bad
 * (n = max(n - 1, 2)), else double the granularity until every single
 * group has been left out once.
 */
static int ddmin(struct bisect *b, size_t *cur, size_t *ncur,
		 struct kb_err *err)
{
	unsigned char *set = kb_calloc(b->ngroups + 1, 1);
	size_t *sub = kb_calloc(*ncur + 1, sizeof(*sub));
	size_t *ord = kb_calloc(*ncur + 1, sizeof(*ord));
	size_t n = 2, i, o, j, lo, hi, nsub;
	enum kb_bisect_class cls;
	int ret = 0, found;

	while (*ncur >= 2 && !b->stopped) {
		if (n > *ncur)
			n = *ncur;
		found = 0;
		round_order(b, cur, *ncur, n, 0, ord);
		for (o = 0; o < n && !found; o++) {
			i = ord[o];
			lo = i * *ncur / n;
			hi = (i + 1) * *ncur / n;
			if ((ret = test_groups(b, cur + lo, hi - lo, set, &cls,
					       err)))
				goto out;
			if (cls != KB_BISECT_BAD)
				continue;
			memmove(cur, cur + lo, (hi - lo) * sizeof(*cur));
			*ncur = hi - lo;
			n = 2;
			found = 1;
		}
		if (!found)
			round_order(b, cur, *ncur, n, 1, ord);
		for (o = 0; o < n && !found && !b->stopped; o++) {
			i = ord[o];
			lo = i * *ncur / n;
			hi = (i + 1) * *ncur / n;
			for (j = nsub = 0; j < *ncur; j++)
				if (j < lo || j >= hi)
					sub[nsub++] = cur[j];
			if ((ret = test_groups(b, sub, nsub, set, &cls, err)))
				goto out;
			if (cls != KB_BISECT_BAD)
				continue;
			memcpy(cur, sub, nsub * sizeof(*cur));
			*ncur = nsub;
			n = n - 1 > 2 ? n - 1 : 2;
			found = 1;
		}
		if (found)
			continue;
		if (n >= *ncur)
			break;
		n = 2 * n < *ncur ? 2 * n : *ncur;
	}
out:
	free(set);
	free(sub);
	free(ord);
	return ret;
}

/* The plain binary split: keep the first half when bad, else the second. */
static int split(struct bisect *b, size_t *cur, size_t *ncur,
		 struct kb_err *err)
{
	unsigned char *set = kb_calloc(b->ngroups + 1, 1);
	enum kb_bisect_class cls;
	size_t h;
	int ret = 0;

	while (*ncur >= 2 && !b->stopped) {
		h = *ncur / 2;
		if ((ret = test_groups(b, cur, h, set, &cls, err)))
			break;
		if (cls == KB_BISECT_BAD) {
			*ncur = h;
		} else {
			memmove(cur, cur + h, (*ncur - h) * sizeof(*cur));
			*ncur -= h;
		}
	}
	free(set);
	return ret;
}

/* ---- the ends (the bad end as a step) --------------------------------- */

/* Confirm the ends (kb_bisect__confirm_ends) and store the bad end as
 * step 1, all the changes applied. */
static int confirm(struct bisect *b, struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	struct kb_bisect_probe *pr = &r->end;
	struct kb_buf text = KB_BUF_INIT;
	int ret;

	if ((ret = kb_bisect__confirm_ends(b, err)))
		return ret;
	kb_bisect__fill_applied(b, b->points[1].set, pr);
	kb_buf_addf(&text,
		    "the bad end: all %zu changes (%u boots against %zu of the good end)",
		    r->nchanges, pr->boots, b->points[0].nvalues);
	ret = kb_bisect__store_step(b, pr, text.buf, err);
	kb_buf_release(&text);
	if (ret == 0 && b->o->progress)
		b->o->progress(pr, r->changes, b->o->progress_arg);
	return ret;
}

/* ---- the whole ------------------------------------------------------- */

static int start(struct bisect *b, struct kb_err *err)
{
	unsigned char *set = kb_calloc(b->ngroups + 1, 1);

	kb_bisect__point_new(b, set, "good");
	memset(set, 1, b->ngroups);
	kb_bisect__point_new(b, set, "bad");
	free(set);
	return kb_bisect__store_ends(b, "options", err);
}

/* ---- is the answer 1-minimal? ---------------------------------------- */

/*
 * The class of the probe of @set and its point (*@pt, NULL for the ends):
 * the empty set is the good end, the full set the bad end; -1 when it was
 * never probed.
 */
static int class_of(struct bisect *b, const unsigned char *set,
		    struct point **pt)
{
	size_t i, nset = 0;

	*pt = NULL;
	for (i = 0; i < b->ngroups; i++)
		nset += set[i] != 0;
	if (nset == 0)
		return KB_BISECT_GOOD;
	if (nset == b->ngroups)
		return KB_BISECT_BAD;
	if ((*pt = kb_bisect__cached(b, set)))
		return (int)(*pt)->cls;
	return -1;
}

/*
 * The pooled within-point variance of the log values of the ends and @p
 * (when not NULL); NaN when a value is not positive or nothing varies.
 */
static double log_var(const struct bisect *b, const struct point *p)
{
	const struct point *pts[3] = { &b->points[0], &b->points[1], p };
	double ss = 0, mean, x;
	size_t i, k, df = 0;

	for (k = 0; k < 3 && pts[k]; k++) {
		if (pts[k]->nvalues < 2)
			continue;
		for (i = 0, mean = 0; i < pts[k]->nvalues; i++) {
			if (!(pts[k]->values[i] > 0))
				return NAN;
			mean += log(pts[k]->values[i]);
		}
		mean /= (double)pts[k]->nvalues;
		for (i = 0; i < pts[k]->nvalues; i++) {
			x = log(pts[k]->values[i]) - mean;
			ss += x * x;
		}
		df += pts[k]->nvalues - 1;
	}
	return df && ss > 0 ? ss / (double)df : NAN;
}

/*
 * Boots per side that would likely settle probe @p (NULL: one never
 * probed): 80% power to tell the threshold of a probe against the bad
 * end at alpha, and enough for the evidence to reach SPRT_BOUND given the
 * ends' difference (bisect.h); at least one more than it has.  0 when the
 * noise cannot be estimated.
 */
static double boots_to_settle(const struct bisect *b, const struct point *p)
{
	double var = log_var(b, p), z, n, t, d;

	if (isnan(var))
		return 0;
	z = kb_stats_t_quantile(1 - b->copts_bad.alpha / 2, INFINITY) +
	    kb_stats_t_quantile(0.8, INFINITY);
	t = log1p(b->copts_bad.threshold_pct / 100);
	d = fabs(log1p(b->r->ends.change_pct / 100));
	n = t > 0 ? 2 * var * z * z / (t * t) : 0;
	if (d > 0 && isfinite(d))
		n = fmax(n, 4 * SPRT_BOUND * var / (d * d));
	n = ceil(fmin(n, 1e6));
	return fmax(n, (p ? (double)p->nvalues : 0) + 1);
}

/* One set of the answer's check that was not shown as it must be. */
static void unsettled(struct bisect *b, const struct point *p, int cls,
		      double *settle)
{
	struct kb_bisect_result *r = b->r;
	double n;

	r->nunsettled++;
	if (cls == KB_BISECT_SKIP) {
		r->nskipped++;
		return;
	}
	if (p && kb_bisect__in_between(b, p)) {
		r->nbetween++;
		return;
	}
	if (!(n = boots_to_settle(b, p)))
		return;
	*settle = fmax(*settle, n);
	/* each more boot of a probe is a round with both ends: 3 boots */
	r->more_boots += 3 * (unsigned)fmax(n - (p ? (double)p->nvalues : 0), 0);
}

/*
 * Is the set of groups @set 1-minimal?  Shown bad itself (and confirmed
 * after, r->confirmed), and each set
 * without one of its groups shown good (the empty set is the good end).
 * Sets r->minimal and, when not, what is unsettled and the boots that
 * would likely settle it.
 */
static void check_minimal(struct bisect *b, const unsigned char *set)
{
	struct kb_bisect_result *r = b->r;
	unsigned char *sub = kb_malloc(b->ngroups + 1);
	double settle = 0;
	struct point *p;
	size_t g;
	int cls;

	/* the set itself: shown bad in the search and confirmed after */
	if ((cls = class_of(b, set, &p)) != KB_BISECT_BAD || !r->confirmed)
		unsettled(b, p, cls, &settle);
	for (g = 0; g < b->ngroups; g++) {
		if (!set[g])
			continue;
		memcpy(sub, set, b->ngroups);
		sub[g] = 0;
		if ((cls = class_of(b, sub, &p)) != KB_BISECT_GOOD)
			unsettled(b, p, cls, &settle);
	}
	r->minimal = r->nunsettled == 0;
	r->settle_boots = (unsigned)settle;
	free(sub);
}

/*
 * An answer is confirmed before it is printed: the point of @set booted
 * in fresh rounds beside both ends (none of its earlier boots counted),
 * classified bad on those alone.  Then its effect alone on good, from
 * every round it shared with the good end.  Sets r->confirmed,
 * r->confirm_rounds and the effect.
 */
static int confirm_answer(struct bisect *b, const unsigned char *set,
			  struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	struct kb_bisect_probe conf;
	struct kb_comparison alone;
	struct kb_aligned l;
	const struct point *pts[2];
	struct point *p = kb_bisect__cached(b, set);
	size_t k;
	int ret;

	if (!p) { /* b->points moves as the point is added */
		k = kb_bisect__point_new(b, set, NULL);
		p = &b->points[k];
	}
	memset(&conf, 0, sizeof(conf));
	ret = kb_bisect__classify_from(b, p, b->round, &conf, err);
	r->confirmed = ret == 0 && conf.cls == KB_BISECT_BAD;
	r->confirm_rounds = conf.boots;
	kb_bisect__probe_release(&conf);
	if (ret)
		return ret;
	pts[0] = &b->points[0];
	pts[1] = p;
	kb_bisect__aligned(pts, 2, 0, &l);
	if (l.n >= 1) {
		kb_bisect__compare(&l.pt[0], &l.pt[1], &b->copts, &alone);
		r->change_pct = alone.change_pct;
		r->ci_low = alone.ci_low;
		r->ci_high = alone.ci_high;
		r->culprit_boots = (unsigned)l.n;
	}
	kb_bisect__aligned_release(&l);
	return 0;
}

/*
 * Of the groups in cur[0..ncur), those of several options: each is one
 * unresolved change.  A group would be resolved within only if each
 * strict subset of it, with the rest of the set, had been measured good;
 * but every probe moves groups whole (a group joined after a probe did
 * not hold was moved in part only by probes that did not hold), so none
 * is, and the answer says so instead of calling its options needed.
 */
static size_t unresolved_groups(const struct bisect *b, const size_t *cur,
				size_t ncur)
{
	size_t *size = kb_calloc(b->ngroups + 1, sizeof(*size));
	size_t i, n = 0;

	for (i = 0; i < b->r->nchanges; i++)
		size[b->r->changes[i].group]++;
	for (i = 0; i < ncur; i++)
		n += size[cur[i]] > 1;
	free(size);
	return n;
}

/*
 * The culprits (the groups in cur) and their effect alone on good, with
 * their probe brought to max_boots for the estimate.  Sets *@result to
 * the text stored with the bisection.
 */
static int conclude(struct bisect *b, const size_t *cur, size_t ncur,
		    char **result, struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	unsigned char *set = kb_calloc(b->ngroups + 1, 1);
	struct kb_buf text = KB_BUF_INIT;
	size_t i, k;
	int ret = 0;

	for (i = 0; i < ncur; i++)
		set[cur[i]] = 1;
	r->culprits = kb_calloc(r->nchanges, sizeof(*r->culprits));
	for (k = 0; k < r->nchanges; k++) {
		struct kb_bisect_change *c = &r->culprits[r->nculprits];

		if (!kb_bisect__applied(b, set, k))
			continue;
		c->option = kb_strdup(r->changes[k].option);
		c->good = kb_strdup(r->changes[k].good);
		c->bad = kb_strdup(r->changes[k].bad);
		c->group = r->changes[k].group;
		kb_buf_addf(&text, "%s%s=%s", r->nculprits ? " " : "",
			    c->option, c->bad);
		r->nculprits++;
	}
	r->nunresolved = unresolved_groups(b, cur, ncur);
	r->change_pct = r->ci_low = r->ci_high = NAN;
	if (ncur == b->ngroups) {
		r->change_pct = r->ends.change_pct;
		r->ci_low = r->ends.ci_low;
		r->ci_high = r->ends.ci_high;
		r->culprit_boots = (unsigned)b->points[1].nvalues;
	}
	if (ncur < b->ngroups && (ret = confirm_answer(b, set, err)))
		goto out;
	if (ncur == b->ngroups)
		r->confirmed = r->reproduced; /* the ends, side by side */
	check_minimal(b, set);
	if (!r->confirmed) {
		kb_buf_addf(&text, " (not confirmed beside both ends in %u fresh round%s)",
			    r->confirm_rounds,
			    r->confirm_rounds == 1 ? "" : "s");
	}
	if (!r->complete)
		kb_buf_adds(&text, " (incomplete: max_probes reached)");
	if (!r->minimal && r->nunsettled)
		kb_buf_addf(&text, " (not minimised: %zu probe%s inconclusive)",
			    r->nunsettled, r->nunsettled == 1 ? "" : "s");
	for (i = 0; i < r->njoins; i++)
		kb_buf_addf(&text, " (step %u did not hold: %s joined with %s)",
			    r->joins[i].step, r->joins[i].option,
			    r->joins[i].with);
	if (r->nunresolved)
		kb_buf_addf(&text, " (%zu group%s of several options unresolved)",
			    r->nunresolved, r->nunresolved == 1 ? "" : "s");
	*result = kb_buf_detach(&text);
out:
	kb_buf_release(&text);
	free(set);
	return ret;
}

int kb_bisect_options(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_kconfig *good,
		      const struct kb_kconfig *bad,
		      const struct kb_bisect_opts *o,
		      struct kb_bisect_result **out, struct kb_err *err)
{
	struct bisect b;
	size_t *cur = NULL, ncur, i;
	char *result = NULL, *answer = NULL;
	int ret, stored = 0;

	*out = NULL;
	if ((ret = kb_bisect__check_opts(o, err)))
		return ret;
	kb_bisect__init(&b, s, ex, o);
	collect_names(&b, good, bad);
	if ((ret = make_changes(&b, err)))
		goto out;
	/* the same bisection finished before answers: nothing built or
	 * booted (opts.fresh bisects again) */
	kb_bisect__options_inputs(&b);
	if ((ret = kb_bisect__options_stored(&b, &stored, err)))
		goto out;
	if (stored) {
		*out = b.r;
		b.r = NULL;
		goto out;
	}
	if ((ret = start(&b, err)) || (ret = confirm(&b, err)))
		goto out;
	b.r->complete = 1;
	if (b.r->reproduced) {
		cur = kb_calloc(b.ngroups, sizeof(*cur));
		kb_bisect__weigh_groups(&b);
		do { /* again on the joined groups after a probe did not hold */
			if (b.regroup)
				kb_bisect__regroup(&b);
			for (i = 0; i < b.ngroups; i++)
				cur[i] = i;
			ncur = b.ngroups;
			if (o->strategy == KB_BISECT_SPLIT)
				ret = split(&b, cur, &ncur, err);
			else if (o->strategy == KB_BISECT_DDMIN)
				ret = ddmin(&b, cur, &ncur, err);
			else
				ret = kb_bisect__group(&b, cur, &ncur, err);
			if (ret)
				goto out;
		} while (b.regroup);
		b.r->complete = !b.stopped;
		if ((ret = conclude(&b, cur, ncur, &result, err)))
			goto out;
	} else {
		result = kb_bisect__unreproduced(&b);
	}
	answer = kb_bisect__options_answer(b.r);
	if ((ret = kb_bisect__answer_keep(&b, answer, err)) ||
	    (ret = kb_bisect__finish(&b, result, err)))
		goto out;
	*out = b.r;
	b.r = NULL;
out:
	if (ret)
		kb_bisect__fail(&b, err);
	free(answer);
	free(result);
	free(cur);
	kb_bisect_result_free(b.r);
	kb_bisect__release(&b);
	return ret;
}
