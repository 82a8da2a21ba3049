/*
 * The probe core of bisection (lib/bisect_int.h), what option bisection
 * (lib/bisect.c), its group search (lib/bisect_group.c) and commit
 * bisection (lib/bisect_commits.c) all build on: a bisection's state and
 * its points, each measured (built, booted, stored) and classified
 * against the ends by sequential evidence; the cache of the sets probed;
 * kb_bisect__test(), the oracle the searches ask; the ends confirmed;
 * and the experiment and its steps stored.  It calls nothing of the
 * searches: they call it.
 */
#include "bisect.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "matrix.h"
#include "mem.h"
#include "order.h"
#include "pipeline.h"
#include "rng.h"
#include "sha256.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* ---- a bisection's state and its result ------------------------------ */

const char *kb_bisect_class_name(enum kb_bisect_class c)
{
	switch (c) {
	case KB_BISECT_GOOD:
		return "good";
	case KB_BISECT_BAD:
		return "bad";
	case KB_BISECT_UNKNOWN:
		return "unknown";
	case KB_BISECT_SKIP:
		return "skip";
	}
	return "?";
}

static void change_release(struct kb_bisect_change *c)
{
	free(c->option);
	free(c->good);
	free(c->bad);
}

void kb_bisect__probe_release(struct kb_bisect_probe *p)
{
	free(p->applied);
	free(p->reason);
}

void kb_bisect__probes_free(struct kb_bisect_probe *probes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kb_bisect__probe_release(&probes[i]);
	free(probes);
}

void kb_bisect_result_free(struct kb_bisect_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nchanges; i++)
		change_release(&r->changes[i]);
	free(r->changes);
	for (i = 0; i < r->nderived; i++)
		change_release(&r->derived[i]);
	free(r->derived);
	for (i = 0; i < r->nculprits; i++)
		change_release(&r->culprits[i]);
	free(r->culprits);
	for (i = 0; i < r->njoins; i++) {
		free(r->joins[i].option);
		free(r->joins[i].with);
		free(r->joins[i].reason);
	}
	free(r->joins);
	kb_bisect__probes_free(r->probes, r->nprobes);
	kb_bisect__probe_release(&r->end);
	free(r->stored_at);
	free(r);
}

const struct kb_bisect_probe *
kb_bisect_culprit_probe(const struct kb_bisect_result *r)
{
	const struct kb_bisect_probe *found = NULL;
	unsigned char *mark;
	size_t i, k, c = 0;

	if (!r || !r->reproduced || !r->nculprits)
		return NULL;
	if (r->nculprits == r->nchanges)
		return &r->end;
	/* the culprits are copies of changes, in the changes' order */
	mark = kb_calloc(r->nchanges + 1, 1);
	for (k = 0; k < r->nchanges && c < r->nculprits; k++) {
		if (strcmp(r->changes[k].option, r->culprits[c].option))
			continue;
		mark[k] = 1;
		c++;
	}
	for (i = 0; c == r->nculprits && !found && i < r->nprobes; i++) {
		const struct kb_bisect_probe *p = &r->probes[i];

		if (p->cls != KB_BISECT_BAD || p->napplied != r->nculprits)
			continue;
		for (k = 0; k < p->napplied; k++)
			if (p->applied[k] >= r->nchanges ||
			    !mark[p->applied[k]])
				break;
		if (k == p->napplied)
			found = p;
	}
	free(mark);
	return found;
}

static void point_release(struct point *p)
{
	free(p->set);
	free(p->full);
	free(p->moved);
	free(p->execset);
	free(p->label);
	free(p->key);
	kb_build_result_release(&p->build);
	free(p->values);
	free(p->rounds);
	free(p->reason);
}

void kb_bisect__release(struct bisect *b)
{
	size_t i;

	for (i = 0; i < b->npoints; i++)
		point_release(&b->points[i]);
	free(b->points);
	for (i = 0; i < b->nnames; i++)
		free(b->names[i]);
	free(b->names);
	free(b->goodv);
	free(b->badv);
	free(b->change_of);
	free(b->change_name);
	free(b->gweight);
	free(b->last_set);
	free(b->cache);
}

void kb_bisect__init(struct bisect *b, struct kb_store *s,
		     struct kb_executor *ex, const struct kb_bisect_opts *o)
{
	memset(b, 0, sizeof(*b));
	b->s = s;
	b->ex = ex;
	b->o = o;
	b->copts.threshold_pct = o->threshold_pct;
	b->copts.alpha = o->alpha;
	b->copts.higher_is_better = o->higher_is_better;
	b->max_probes = o->max_probes ? o->max_probes
				      : KB_BISECT_DEFAULT_MAX_PROBES;
	/* the rounds' orders: on real hosts from a seed of their own, so
	 * that a bias bound to a place in the order (a host's slow first
	 * boot) falls on other points when the bisection is run again
	 * (lib/order.h); on the model from what the bisection is between,
	 * so that the same bisection draws the same orders again */
	b->seed_fresh = !kb_executor_replays(ex);
	b->seed = b->seed_fresh
			  ? kb_rng_seed_fresh()
			  : kb_rng_seed_from(kb_rng_seed_from(0, o->good_name,
							      1, 0),
					     o->bad_name, 2, 0);
	b->r = kb_calloc(1, sizeof(*b->r));
	b->r->change_pct = b->r->ci_low = b->r->ci_high = NAN;
}

/* ---- points: the ends and the probes ---------------------------------- */

struct point *kb_bisect__point_add(struct bisect *b)
{
	struct point *p;

	b->points = kb_reallocarray(b->points, b->npoints + 1,
				    sizeof(*b->points));
	p = &b->points[b->npoints];
	memset(p, 0, sizeof(*p));
	p->idx = (unsigned)b->npoints++;
	return p;
}

void kb_bisect__point_variants(const struct bisect *b, struct point *p,
			       size_t nsettings)
{
	p->exec.idx = p->idx;
	p->exec.label = p->label;
	p->exec.nsettings = nsettings;
	p->exec.settings = p->full;
	p->exec.build_key = p->key;
	if (b->o->guest)
		p->exec.guest = *b->o->guest;
	p->stored = p->exec;
}

int kb_bisect__applied(const struct bisect *b, const unsigned char *set,
		       size_t change)
{
	return set[b->r->changes[change].group];
}

/*
 * The executor gets @p's changes and, after them, the options' settings
 * that are not Kconfig options (kernel.rev, guest.*): it resolves the
 * changes from the good end itself.
 */
static void exec_changes(const struct bisect *b, struct point *p)
{
	size_t n = b->r->nchanges, i;

	p->execset = kb_calloc(n + b->o->nsettings + 1, sizeof(*p->execset));
	memcpy(p->execset, p->moved, n * sizeof(*p->execset));
	for (i = 0; i < b->o->nsettings; i++)
		if (b->o->settings[i].kind != KB_FACTOR_KCONFIG)
			p->execset[n++] = b->o->settings[i];
	p->exec.settings = p->execset;
	p->exec.nsettings = n;
}

void kb_bisect__set_key(const struct bisect *b, const unsigned char *set,
			char *hex)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t i;

	kb_buf_addf(&text, "kbisect-bisect-build-v1\nsalt=%s\n",
		    b->o->build_salt ? b->o->build_salt : "");
	for (i = 0; i < b->nnames; i++) {
		long c = b->change_of[i];

		kb_buf_addf(&text, "%s=%s\n", b->names[i],
			    c >= 0 && kb_bisect__applied(b, set, (size_t)c)
				? b->badv[i]
				: b->goodv[i]);
	}
	kb_sha256_hex(text.buf, text.len, hex);
	kb_buf_release(&text);
}

/*
 * Add a point for @set (one byte per group).  @label NULL: the moved
 * options ("A=y B=n").  Returns its index in b->points.
 */
size_t kb_bisect__point_new(struct bisect *b, const unsigned char *set,
			    const char *label)
{
	const struct kb_bisect_result *r = b->r;
	struct kb_buf lab = KB_BUF_INIT;
	char hex[KB_SHA256_HEX_LEN + 1];
	struct point *p = kb_bisect__point_add(b);
	size_t i, k;

	p->set = kb_malloc(b->ngroups);
	memcpy(p->set, set, b->ngroups);
	p->full = kb_calloc(b->nnames + 1, sizeof(*p->full));
	p->moved = kb_calloc(r->nchanges, sizeof(*p->moved));

	for (i = 0; i < b->nnames; i++) {
		long c = b->change_of[i];
		const char *v = b->goodv[i];

		if (c >= 0 && kb_bisect__applied(b, set, (size_t)c)) {
			v = b->badv[i];
			kb_buf_addf(&lab, "%s%s=%s", lab.len ? " " : "",
				    b->names[i], v);
		}
		p->full[i].name = b->names[i];
		p->full[i].value = v;
		p->full[i].kind = KB_FACTOR_KCONFIG;
	}
	for (k = 0; k < r->nchanges; k++) {
		size_t i2 = b->change_name[k];

		p->moved[k].name = b->names[i2];
		p->moved[k].value = kb_bisect__applied(b, set, k) ? b->badv[i2]
						       : b->goodv[i2];
		p->moved[k].kind = KB_FACTOR_KCONFIG;
	}
	kb_bisect__set_key(b, set, hex);
	p->key = kb_strdup(hex);
	p->label = label ? kb_strdup(label) : kb_buf_detach(&lab);
	kb_bisect__point_variants(b, p, b->nnames);
	p->stored.nsettings = r->nchanges;
	p->stored.settings = p->moved;
	if (b->o->changes_only)
		exec_changes(b, p);
	kb_buf_release(&lab);
	return p->idx;
}

/*
 * @p's kernel is the one the bisection got last (built, from the build
 * cache or from the store): the build order starts from it.  Counting
 * every kernel got, not only those compiled, makes the order depend on
 * the bisection alone, so the same bisection probes the same sets again
 * and builds nothing the second time.
 */
static void built_last(struct bisect *b, const struct point *p)
{
	if (p->build.status != KB_BUILD_OK || !p->set || !b->ngroups)
		return;
	if (!b->last_set)
		b->last_set = kb_malloc(b->ngroups);
	memcpy(b->last_set, p->set, b->ngroups);
}

static int ensure_build(struct bisect *b, struct point *p,
			struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	int ret;

	if (p->have_build)
		return 0;
	ret = kb_store_build_get(b->s, p->key, &p->build, &p->build_id,
				 &lookup);
	if (ret == 0) {
		p->have_build = 1;
		built_last(b, p);
		return 0;
	}
	if (ret != KB_ENOTFOUND)
		return kb_err_set(err, ret, "%s", lookup.msg);
	memset(&p->build, 0, sizeof(p->build));
	if (b->o->step)
		b->o->step(p->label, 0, b->o->progress_arg);
	if ((ret = kb_executor_build(b->ex, &p->exec, &p->build, err)))
		return ret;
	ret = kb_store_build_put(b->s, p->key, kb_executor_name(b->ex),
				 &p->build, &p->build_id, err);
	if (ret) {
		kb_build_result_release(&p->build);
		return ret;
	}
	if (p->build.cached)
		b->r->builds_cached++;
	else
		b->r->builds++;
	p->have_build = 1;
	built_last(b, p);
	return 0;
}

/* The mean of the metric over the runs of @res; NaN when none has it. */
static double boot_mean(const struct kb_boot_result *res, const char *metric)
{
	double sum = 0, v;
	size_t i, n = 0;

	for (i = 0; i < res->nruns; i++) {
		if (kb_sample_get(&res->runs[i], metric, &v) == 0 &&
		    isfinite(v)) {
			sum += v;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

/* Replace @p's failure reason with @reason (taken). */
static void set_reason(struct point *p, char *reason)
{
	free(p->reason);
	p->reason = reason;
}

/* One more boot of @p in round @round, stored as it ends. */
static int boot_once(struct bisect *b, struct point *p, unsigned round,
		     struct kb_err *err)
{
	struct kb_boot_result res;
	struct kb_boot_at at = { .seq = ++b->seq, .total = 0, .round = round };
	unsigned boot_no = p->last_boot + 1;
	char started[32];
	double v;
	int ret;

	if (p->build.status == KB_BUILD_OK && b->o->step)
		b->o->step(p->label, boot_no, b->o->progress_arg);
	kb_now_iso(started, sizeof(started));
	/* the pipeline's step: a failed build is a result without a boot */
	ret = kb_pipeline_boot_at(b->ex, &p->exec, &p->build, boot_no,
				  b->o->runs_per_boot, &at, &res, err);
	if (ret)
		return ret;
	res.round = round;
	res.seq = at.seq;
	snprintf(res.started_at, sizeof(res.started_at), "%s", started);
	if (p->build.status == KB_BUILD_OK) {
		b->r->boots++;
		b->r->runs += (unsigned)res.nruns;
	}
	ret = kb_store_boot_put(b->s, b->r->experiment, p->idx, boot_no,
				p->build_id, &res, err);
	if (ret)
		goto out;
	p->last_boot = boot_no;
	v = res.status == KB_BOOT_OK ? boot_mean(&res, b->o->metric) : NAN;
	if (isfinite(v)) {
		p->values = kb_reallocarray(p->values, p->nvalues + 1,
					    sizeof(*p->values));
		p->rounds = kb_reallocarray(p->rounds, p->nvalues + 1,
					    sizeof(*p->rounds));
		p->rounds[p->nvalues] = round;
		p->values[p->nvalues++] = v;
	} else {
		p->nfailed++;
		if (res.status == KB_BOOT_OK)
			set_reason(p, kb_asprintf("no '%s' in its samples",
						  b->o->metric));
		else
			set_reason(p, kb_asprintf("%s: %s",
						  kb_boot_status_name(res.status),
						  res.reason ? res.reason : ""));
	}
out:
	kb_boot_result_release(&res);
	return ret;
}

/* No more boots make sense: the build failed, or too many boots did. */
int kb_bisect__exhausted(const struct bisect *b, const struct point *p)
{
	if (p->have_build && p->build.status != KB_BUILD_OK)
		return p->nfailed > 0;
	return p->nfailed >= (b->o->boots > 1 ? b->o->boots : 1);
}

/* KB_EFAIL once the options' stop flag is set. */
static int stopped(const struct bisect *b, struct kb_err *err)
{
	if (b->o->stop && *b->o->stop)
		return kb_err_set(err, KB_EFAIL,
				  "stopped by signal %d before the next build or boot",
				  (int)*b->o->stop);
	return 0;
}

/* @p's variant stored and its kernel got (built, or from the store). */
static int ready(struct bisect *b, struct point *p, struct kb_err *err)
{
	int ret;

	if (!p->in_store) {
		ret = kb_store_variant_add(b->s, b->r->experiment, &p->stored,
					   err);
		if (ret)
			return ret;
		p->in_store = 1;
	}
	if ((ret = stopped(b, err)))
		return ret;
	return ensure_build(b, p, err);
}

/*
 * One round: a boot of each of @pts[0..n) (n <= ROUND_MAX) in the order
 * drawn for the round, skipping those no boot can help.
 */
#define ROUND_MAX 3
static int boot_round(struct bisect *b, struct point *const *pts, size_t n,
		      struct kb_err *err)
{
	size_t perm[ROUND_MAX], i;
	unsigned round = ++b->round;
	int ret;

	for (i = 0; i < n; i++)
		if ((ret = ready(b, pts[i], err)))
			return ret;
	kb_order_draw(b->seed, round, perm, n);
	for (i = 0; i < n; i++) {
		struct point *q = pts[perm[i]];

		if (kb_bisect__exhausted(b, q))
			continue;
		if ((ret = stopped(b, err)) || (ret = boot_once(b, q, round, err)))
			return ret;
	}
	return 0;
}

/* The points a round of @p holds: both ends and @p (an end: the ends; a
 * point without ends, kb_bisect_test's: itself).  Returns how many. */
static size_t round_points(struct bisect *b, struct point *p,
			   struct point **pts)
{
	size_t n = 0;

	if (b->npoints >= 2) {
		pts[n++] = &b->points[0];
		pts[n++] = &b->points[1];
	}
	if (n == 0 || (p != pts[0] && p != pts[1]))
		pts[n++] = p;
	return n;
}

int kb_bisect__measure(struct bisect *b, struct point *p, size_t want,
		       struct kb_err *err)
{
	struct point *pts[ROUND_MAX];
	size_t n = round_points(b, p, pts);
	int ret;

	if ((ret = ready(b, p, err)))
		return ret;
	while (p->nvalues < want && !kb_bisect__exhausted(b, p))
		if ((ret = boot_round(b, pts, n, err)))
			return ret;
	return 0;
}

int kb_bisect__measure_pair(struct bisect *b, struct point *a,
			    struct point *c, size_t want,
			    struct kb_comparison *out, struct kb_err *err)
{
	struct point *pts[2] = { a, c };
	const struct point *cpts[2] = { a, c };
	struct kb_aligned l;
	int ret = 0;

	for (;;) {
		kb_bisect__aligned(cpts, a == c ? 1 : 2, 0, &l);
		if (l.n >= want || kb_bisect__exhausted(b, a) ||
		    kb_bisect__exhausted(b, c))
			break;
		kb_bisect__aligned_release(&l);
		if ((ret = boot_round(b, pts, a == c ? 1 : 2, err)))
			return ret;
	}
	memset(out, 0, sizeof(*out));
	out->verdict = KB_VERDICT_INCONCLUSIVE;
	out->change_pct = out->ci_low = out->ci_high = NAN;
	if (l.n >= 1 && a != c)
		kb_bisect__compare(&l.pt[0], &l.pt[1], &b->copts, out);
	kb_bisect__aligned_release(&l);
	return ret;
}

/* ---- the rounds points share ------------------------------------------ */

/* The value of @p in round @round into *@v: 1, or 0 when it has none. */
static int value_in(const struct point *p, unsigned round, double *v)
{
	size_t i;

	for (i = 0; i < p->nvalues; i++)
		if (p->rounds[i] == round) {
			*v = p->values[i];
			return 1;
		}
	return 0;
}

void kb_bisect__aligned(const struct point *const *pts, size_t n,
			unsigned from, struct kb_aligned *out)
{
	const struct point *first = pts[0];
	double v[ROUND_MAX];
	size_t i, k;

	memset(out, 0, sizeof(*out));
	out->npoints = n;
	for (k = 0; k < n; k++) {
		out->pt[k].values = kb_calloc(first->nvalues + 1,
					      sizeof(double));
		out->pt[k].rounds = kb_calloc(first->nvalues + 1,
					      sizeof(unsigned));
	}
	for (i = 0; i < first->nvalues; i++) {
		unsigned r = first->rounds[i];

		if (r <= from)
			continue;
		for (k = 0; k < n && value_in(pts[k], r, &v[k]); k++)
			;
		if (k < n)
			continue;
		for (k = 0; k < n; k++) {
			out->pt[k].values[out->n] = v[k];
			out->pt[k].rounds[out->n] = r;
			out->pt[k].nvalues++;
		}
		out->n++;
	}
}

void kb_bisect__aligned_release(struct kb_aligned *a)
{
	size_t k;

	for (k = 0; k < a->npoints; k++) {
		free(a->pt[k].values);
		free(a->pt[k].rounds);
	}
	memset(a, 0, sizeof(*a));
}

/* @p's rounds after round @from with both ends beside it, into @l: the
 * good end, the bad end and @p (pt[0], pt[1], pt[2]). */
static void beside_ends(const struct bisect *b, const struct point *p,
			unsigned from, struct kb_aligned *l)
{
	const struct point *pts[3] = { p, &b->points[0], &b->points[1] };
	struct point t;

	kb_bisect__aligned(pts, 3, from, l);
	/* reorder: good, bad, probe */
	t = l->pt[0];
	l->pt[0] = l->pt[1];
	l->pt[1] = l->pt[2];
	l->pt[2] = t;
}

void kb_bisect__compare(const struct point *a, const struct point *p,
			const struct kb_compare_opts *o,
			struct kb_comparison *out)
{
	kb_compare_samples(a->values, a->nvalues, p->values, p->nvalues, o,
			   out);
}

/*
 * The thresholds that tell a probe from an end: the matrix's threshold,
 * and at least a third of the regression on the log scale, in the
 * direction away from that end — a probe that moves less than that from
 * an end is not "worse than good" or "better than bad".  For a 20%
 * regression they are 7.2% (down from good) and 7.7% (up from bad); for
 * a 90% one 53.6% and 115%.
 */
static void probe_thresholds(struct bisect *b)
{
	double l = fabs(log1p(b->r->ends.change_pct / 100)) / 3;
	double down = (1 - exp(-l)) * 100, up = (exp(l) - 1) * 100;
	int regression_is_down = b->o->higher_is_better != 0;

	b->copts_good = b->copts;
	b->copts_bad = b->copts;
	if (!isfinite(l))
		return;
	b->copts_good.threshold_pct = fmax(b->copts.threshold_pct,
					   regression_is_down ? down : up);
	b->copts_bad.threshold_pct = fmax(b->copts.threshold_pct,
					  regression_is_down ? up : down);
}

/* The log of @x when @logs, else @x. */
static double scale(double x, int logs)
{
	return logs ? log(x) : x;
}

/*
 * The blocked fit of the aligned rounds @l (good, bad, probe, one value
 * each a round): each point's mean and the residual variance once each
 * round's own level is taken out (a two-way fit, points x rounds, on the
 * log scale when every value is positive: noise is multiplicative), with
 * 2 (n - 1) degrees of freedom.  *@round_slope: how far the rounds'
 * level moves from one round to the next (least squares), and *@slope_t
 * its t statistic.  0, or -1 when fewer than 2 rounds.
 */
struct blocked {
	double mean[3];
	double var;        /* residual variance */
	double df;
	double slope, slope_t;
};

static int blocked_fit(const struct kb_aligned *l, struct blocked *f)
{
	size_t n = l->n, i, k;
	double grand = 0, ss = 0, m, sxx = 0, sxy = 0, ibar;
	int logs = 1;

	memset(f, 0, sizeof(*f));
	if (n < 2)
		return -1;
	for (k = 0; k < 3; k++)
		for (i = 0; i < n; i++)
			if (!(l->pt[k].values[i] > 0))
				logs = 0;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < n; i++)
			f->mean[k] += scale(l->pt[k].values[i], logs);
		f->mean[k] /= (double)n;
		grand += f->mean[k] / 3;
	}
	ibar = (double)(n - 1) / 2;
	for (i = 0; i < n; i++) {
		for (k = 0, m = 0; k < 3; k++)
			m += scale(l->pt[k].values[i], logs) / 3;
		for (k = 0; k < 3; k++) {
			double e = scale(l->pt[k].values[i], logs) -
				   f->mean[k] - m + grand;

			ss += e * e;
		}
		sxx += ((double)i - ibar) * ((double)i - ibar);
		sxy += ((double)i - ibar) * (m - grand);
	}
	f->df = 2 * (double)(n - 1);
	f->var = ss / f->df;
	if (!(f->var > 1e-12))
		f->var = 1e-12;
	f->slope = sxy / sxx;
	/* a round's level is the mean of 3 values: variance var / 3 */
	f->slope_t = f->slope / sqrt(f->var / 3 / sxx);
	return 0;
}

/*
 * The evidence that the probe is at the bad end's level rather than the
 * good end's, from the rounds it shared with both ends (@f, the blocked
 * fit of those): the log likelihood ratio of its mean under "at the bad
 * end's mean" against "at the good end's mean", with normal noise of the
 * fit's residual variance and the ends' means as uncertain as the
 * probe's (Var = s^2 (1/n + 1/n)): the ends are the ones measured beside
 * it, never means from earlier.  Wald's sequential probability ratio
 * test stops at +-SPRT_BOUND.
 */
static double evidence(const struct blocked *f, size_t n)
{
	double var = f->var * 2 / (double)n, x = f->mean[2], llr;

	llr = ((x - f->mean[0]) * (x - f->mean[0]) -
	       (x - f->mean[1]) * (x - f->mean[1])) /
	      (2 * var);
	return isfinite(llr) ? llr : 0;
}

/*
 * The host moved during the probe's rounds more than a probe may differ
 * by: the rounds' level trends from round to round by at least half the
 * probe threshold (@threshold_pct, on the log scale), beyond the 99.5%
 * point of its t.  Blocks take a drift between rounds out of the
 * comparison, but not one within a round: such a probe is booted again
 * rather than classified.
 */
static int moved_with_time(const struct blocked *f, size_t n,
			   double threshold_pct)
{
	if (n < 3 || !(f->df > 0))
		return 0;
	return fabs(f->slope) >= log1p(threshold_pct / 100) / 2 &&
	       fabs(f->slope_t) > kb_stats_t_quantile(0.995, f->df);
}

/*
 * The decision rules of bisect.h for a probe against the good end (@g)
 * and the bad end (@d), with @llr its evidence(): 1 decided (*@cls set),
 * 0 more boots may tell.
 */
static int decide(const struct kb_comparison *g,
		  const struct kb_comparison *d, double llr,
		  enum kb_bisect_class *cls)
{
	int g_reg = g->verdict == KB_VERDICT_REGRESSION;
	int g_same = g->verdict == KB_VERDICT_NO_CHANGE;
	int d_imp = d->verdict == KB_VERDICT_IMPROVEMENT;
	int d_same = d->verdict == KB_VERDICT_NO_CHANGE;
	int bad = ((g_reg && !d_imp) || (d_same && !g_same)) &&
		  llr >= SPRT_BOUND;
	int good = ((d_imp && !g_reg) || (g_same && !d_same)) &&
		   llr <= -SPRT_BOUND;

	if (bad && !good) {
		*cls = KB_BISECT_BAD;
		return 1;
	}
	if (good && !bad) {
		*cls = KB_BISECT_GOOD;
		return 1;
	}
	/* neither, or in between (worse than good and better than bad: part
	 * of the regression, or noise in a few boots): more boots tell */
	*cls = KB_BISECT_UNKNOWN;
	return 0;
}

/*
 * Boot rounds of @p beside both ends until @p has @want rounds with both
 * after round @from (or no more can be had).
 */
static int measure_beside(struct bisect *b, struct point *p, unsigned from,
			  size_t want, struct kb_err *err)
{
	struct point *pts[ROUND_MAX];
	size_t n = round_points(b, p, pts), k;
	struct kb_aligned l;
	int ret;

	if ((ret = ready(b, p, err)))
		return ret;
	/* a kernel that did not build: its failure stored, no end booted */
	while (p->build.status != KB_BUILD_OK && !kb_bisect__exhausted(b, p))
		if ((ret = boot_once(b, p, ++b->round, err)))
			return ret;
	for (;;) {
		beside_ends(b, p, from, &l);
		k = l.n;
		kb_bisect__aligned_release(&l);
		if (k >= want || kb_bisect__exhausted(b, p) ||
		    kb_bisect__exhausted(b, &b->points[0]) ||
		    kb_bisect__exhausted(b, &b->points[1]))
			return 0;
		if ((ret = boot_round(b, pts, n, err)))
			return ret;
	}
}

int kb_bisect__classify_from(struct bisect *b, struct point *p,
			     unsigned from, struct kb_bisect_probe *out,
			     struct kb_err *err)
{
	struct kb_comparison g, d;
	struct kb_aligned l;
	struct blocked f;
	int ret, moved;

	if ((ret = measure_beside(b, p, from, b->o->boots, err)))
		return ret;
	out->change_pct = out->ci_low = out->ci_high = NAN;
	out->bad_change_pct = NAN;
	for (;;) {
		int no_more;

		beside_ends(b, p, from, &l);
		no_more = kb_bisect__exhausted(b, p) ||
			  kb_bisect__exhausted(b, &b->points[0]) ||
			  kb_bisect__exhausted(b, &b->points[1]);
		if (l.n < 2 && no_more) {
			out->cls = KB_BISECT_SKIP;
			out->reason = kb_strdup(
				p->reason ? p->reason
					  : "not measured beside both ends");
			break;
		}
		kb_bisect__compare(&l.pt[0], &l.pt[2], &b->copts_good, &g);
		kb_bisect__compare(&l.pt[1], &l.pt[2], &b->copts_bad, &d);
		out->change_pct = g.change_pct;
		out->ci_low = g.ci_low;
		out->ci_high = g.ci_high;
		out->bad_change_pct = d.change_pct;
		out->evidence = 0;
		moved = 0;
		if (blocked_fit(&l, &f) == 0) {
			out->evidence = evidence(&f, l.n);
			moved = moved_with_time(&f, l.n,
						b->copts_good.threshold_pct);
		}
		if (!moved && decide(&g, &d, out->evidence, &out->cls))
			break;
		if (no_more || l.n >= b->o->max_boots) {
			out->cls = KB_BISECT_UNKNOWN;
			if (moved)
				out->reason = kb_strdup(
					"the host moved during its rounds");
			break;
		}
		ret = measure_beside(b, p, from, l.n + 1, err);
		kb_bisect__aligned_release(&l);
		if (ret)
			return ret;
	}
	out->boots = (unsigned)l.n;
	kb_bisect__aligned_release(&l);
	return 0;
}

int kb_bisect__classify(struct bisect *b, struct point *p,
			struct kb_bisect_probe *out, struct kb_err *err)
{
	int ret = kb_bisect__classify_from(b, p, 0, out, err);

	if (ret == 0) {
		p->classified = 1;
		p->cls = out->cls;
	}
	return ret;
}

int kb_bisect__store_step(struct bisect *b, const struct kb_bisect_probe *pr,
			  const char *text, struct kb_err *err)
{
	struct kb_store_bisection_step st;

	st.step_no = pr->step;
	st.probe = text;
	st.variant_idx = pr->variant_idx;
	st.classification = kb_bisect_class_name(pr->cls);
	st.change_pct = pr->change_pct;
	st.ci_low_pct = pr->ci_low;
	st.ci_high_pct = pr->ci_high;
	return kb_store_bisection_step_put(b->s, b->r->bisection,
					   b->r->experiment, &st, err);
}

/* The indexes of the changes applied in @set. */
void kb_bisect__fill_applied(const struct bisect *b, const unsigned char *set,
			     struct kb_bisect_probe *pr)
{
	size_t i;

	pr->applied = kb_calloc(b->r->nchanges + 1, sizeof(*pr->applied));
	for (i = 0; i < b->r->nchanges; i++)
		if (kb_bisect__applied(b, set, i))
			pr->applied[pr->napplied++] = i;
}

/* ---- the cache: the probes classified, by their set ------------------- */

static uint64_t set_hash(const unsigned char *set, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= set[i] != 0;
		h *= 1099511628211ull;
	}
	return h;
}

static int same_set(const unsigned char *a, const unsigned char *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((a[i] != 0) != (x[i] != 0))
			return 0;
	return 1;
}

struct point *kb_bisect__cached(const struct bisect *b,
				const unsigned char *set)
{
	size_t mask = b->ncache - 1, i;
	struct point *p;

	if (!b->ncache)
		return NULL;
	for (i = (size_t)set_hash(set, b->ngroups) & mask; b->cache[i];
	     i = (i + 1) & mask) {
		p = &b->points[b->cache[i] - 1];
		if (p->classified && same_set(p->set, set, b->ngroups))
			return p;
	}
	return NULL;
}

static void cache_put(size_t *slots, size_t nslots, const struct bisect *b,
		      size_t k)
{
	size_t mask = nslots - 1, i;

	for (i = (size_t)set_hash(b->points[k].set, b->ngroups) & mask;
	     slots[i]; i = (i + 1) & mask)
		;
	slots[i] = k + 1;
}

void kb_bisect__cache_add(struct bisect *b, size_t k)
{
	size_t *slots, n, i;

	if (kb_bisect__cached(b, b->points[k].set))
		return;
	if (2 * (b->ncached + 1) > b->ncache) { /* at most half full */
		n = b->ncache ? 2 * b->ncache : 64;
		slots = kb_calloc(n, sizeof(*slots));
		for (i = 0; i < b->ncache; i++)
			if (b->cache[i])
				cache_put(slots, n, b, b->cache[i] - 1);
		free(b->cache);
		b->cache = slots;
		b->ncache = n;
	}
	cache_put(b->cache, b->ncache, b, k);
	b->ncached++;
}

/* ---- the oracle ------------------------------------------------------- */

/*
 * Classify the good config with the groups of @set moved: the empty set
 * is the good end, the full set the bad end, anything measured before is
 * answered from memory.  When max_probes is reached, answers unknown and
 * sets b->stopped.
 */
int kb_bisect__test(struct bisect *b, const unsigned char *set,
		    enum kb_bisect_class *cls, struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	struct kb_bisect_probe pr;
	const struct point *seen;
	size_t i, k, nset = 0;
	int ret;

	for (i = 0; i < b->ngroups; i++)
		nset += set[i] != 0;
	if (nset == 0) {
		*cls = KB_BISECT_GOOD;
		return 0;
	}
	if (nset == b->ngroups) {
		*cls = KB_BISECT_BAD;
		return 0;
	}
	if ((seen = kb_bisect__cached(b, set))) {
		*cls = seen->cls;
		return 0;
	}
	if (r->nprobes >= b->max_probes) {
		b->stopped = 1;
		*cls = KB_BISECT_UNKNOWN;
		return 0;
	}
	k = kb_bisect__point_new(b, set, NULL);
	memset(&pr, 0, sizeof(pr));
	pr.step = (unsigned)r->nprobes + 2;
	pr.variant_idx = (int)b->points[k].idx;
	if ((ret = kb_bisect__classify(b, &b->points[k], &pr, err)) ||
	    (ret = kb_bisect__store_step(b, &pr, b->points[k].label, err))) {
		kb_bisect__probe_release(&pr);
		return ret;
	}
	kb_bisect__fill_applied(b, set, &pr);
	kb_bisect__cache_add(b, k);
	b->points[k].probe = r->nprobes;
	r->probes = kb_reallocarray(r->probes, r->nprobes + 1,
				    sizeof(*r->probes));
	r->probes[r->nprobes++] = pr;
	if (b->o->progress)
		b->o->progress(&r->probes[r->nprobes - 1], r->changes,
			       b->o->progress_arg);
	*cls = pr.cls;
	return 0;
}

int kb_bisect__in_between(const struct bisect *b, const struct point *p)
{
	struct kb_comparison g, d;
	struct kb_aligned l;

	beside_ends(b, p, 0, &l);
	if (l.n < 1) {
		kb_bisect__aligned_release(&l);
		return 0;
	}
	kb_bisect__compare(&l.pt[0], &l.pt[2], &b->copts_good, &g);
	kb_bisect__compare(&l.pt[1], &l.pt[2], &b->copts_bad, &d);
	kb_bisect__aligned_release(&l);
	return g.verdict == KB_VERDICT_REGRESSION &&
	       d.verdict == KB_VERDICT_IMPROVEMENT;
}


/* ---- the ends --------------------------------------------------------- */

static int end_unmeasurable(struct bisect *b, const struct point *p,
			    const char *which, const char *name,
			    struct kb_err *err)
{
	if (p->nvalues >= 2 || !kb_bisect__exhausted(b, p))
		return 0;
	return kb_err_set(err, KB_EFAIL,
			  "the %s end '%s' cannot be measured: %s", which,
			  name, p->reason ? p->reason : "no value");
}

int kb_bisect__confirm_ends(struct bisect *b, struct kb_err *err)
{
	struct kb_bisect_result *r = b->r;
	struct point *good = &b->points[0], *bad = &b->points[1];
	unsigned max = b->o->max_boots;
	struct kb_bisect_probe *pr = &r->end;
	int ret;

	if ((ret = kb_bisect__measure(b, good, b->o->boots, err)) ||
	    (ret = end_unmeasurable(b, good, "good", b->o->good_name, err)) ||
	    (ret = kb_bisect__measure(b, bad, b->o->boots, err)) ||
	    (ret = end_unmeasurable(b, bad, "bad", b->o->bad_name, err)))
		return ret;
	for (;;) {
		size_t ng = good->nvalues, nb = bad->nvalues;

		kb_bisect__compare(good, bad, &b->copts, &r->ends);
		if (r->ends.verdict != KB_VERDICT_INCONCLUSIVE ||
		    (ng >= max && nb >= max) ||
		    (kb_bisect__exhausted(b, good) &&
		     kb_bisect__exhausted(b, bad)))
			break;
		if (ng <= nb && ng < max &&
		    (ret = kb_bisect__measure(b, good, ng + 1, err)))
			return ret;
		if (nb <= ng && nb < max &&
		    (ret = kb_bisect__measure(b, bad, nb + 1, err)))
			return ret;
		if (good->nvalues == ng && bad->nvalues == nb)
			break; /* neither side can have more */
	}
	/* a regression seen at one look of several is confirmed on
	 * max_boots rounds of both */
	if (r->ends.verdict == KB_VERDICT_REGRESSION) {
		if ((ret = kb_bisect__measure(b, good, max, err)) ||
		    (ret = kb_bisect__measure(b, bad, max, err)))
			return ret;
		kb_bisect__compare(good, bad, &b->copts, &r->ends);
	}
	r->reproduced = r->ends.verdict == KB_VERDICT_REGRESSION;
	probe_thresholds(b);

	pr->step = 1;
	pr->variant_idx = (int)bad->idx;
	pr->cls = r->reproduced ? KB_BISECT_BAD
		  : r->ends.verdict == KB_VERDICT_INCONCLUSIVE
			  ? KB_BISECT_UNKNOWN
			  : KB_BISECT_GOOD;
	pr->boots = (unsigned)bad->nvalues;
	pr->change_pct = r->ends.change_pct;
	pr->ci_low = r->ends.ci_low;
	pr->ci_high = r->ends.ci_high;
	pr->bad_change_pct = 0;
	return 0;
}

/* ---- the experiment stored -------------------------------------------- */

int kb_bisect__experiment_create(struct bisect *b, const char *design,
				 const char *desc,
				 const struct kb_variant *variants, size_t n,
				 struct kb_err *err)
{
	const struct kb_bisect_opts *o = b->o;
	struct kb_store_experiment e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.name = o->name ? o->name : design;
	e.matrix_path = o->matrix_path;
	e.matrix_text = desc ? desc : o->matrix_text;
	e.model_text = o->model_text;
	e.executor = kb_executor_name(b->ex);
	e.design = design;
	e.metric = o->metric;
	e.boots = o->boots;
	e.runs_per_boot = o->runs_per_boot;
	e.nvariants = n;
	e.variants = variants;
	e.run_order = "blocks"; /* rounds of kb_order_draw(), each a block */
	e.order_seed = b->seed;
	ret = kb_store_experiment_create(b->s, &e, &b->r->experiment, err);
	if (ret == 0 && o->experiment_id)
		*o->experiment_id = b->r->experiment;
	return ret;
}

int kb_bisect__store_ends(struct bisect *b, const char *kind,
			  struct kb_err *err)
{
	const struct kb_bisect_opts *o = b->o;
	struct kb_variant ends[2];
	char *design = kb_asprintf("bisect-%s", kind), *desc = NULL;
	int ret;

	ends[0] = b->points[0].stored;
	ends[1] = b->points[1].stored;
	if (!o->matrix_text)
		desc = kb_asprintf("# kbisect bisect %s: no matrix given\n"
				   "# good: %s\n# bad: %s\n"
				   "# metric: %s, boots: %u, max_boots: %u,"
				   " runs_per_boot: %u\n"
				   "# threshold_pct: %g, alpha: %g\n",
				   kind, o->good_name, o->bad_name, o->metric,
				   o->boots, o->max_boots, o->runs_per_boot,
				   o->threshold_pct, o->alpha);
	ret = kb_bisect__experiment_create(b, design, desc, ends, 2, err);
	free(desc);
	free(design);
	if (ret)
		return ret;
	b->points[0].in_store = b->points[1].in_store = 1;
	return kb_store_bisection_create(b->s, b->r->experiment, kind,
					 o->good_name, o->bad_name,
					 &b->r->bisection, err);
}

char *kb_bisect__unreproduced(const struct bisect *b)
{
	return kb_asprintf("does not reproduce: %s, %+.1f%%",
			   kb_verdict_name(b->r->ends.verdict),
			   b->r->ends.change_pct);
}

int kb_bisect__finish(struct bisect *b, const char *result,
		      struct kb_err *err)
{
	int ret;

	if (b->r->bisection &&
	    (ret = kb_store_bisection_finish(b->s, b->r->bisection, "done",
					     result, err)))
		return ret;
	return kb_store_experiment_finish(b->s, b->r->experiment, "done", NULL,
					  err);
}

void kb_bisect__fail(struct bisect *b, const struct kb_err *err)
{
	struct kb_err ignored = KB_ERR_INIT;
	const char *why = err ? err->msg : NULL;

	if (!b->r || !b->r->experiment)
		return;
	if (b->r->bisection)
		kb_store_bisection_finish(b->s, b->r->bisection, "failed", why,
					  &ignored);
	kb_store_experiment_finish(b->s, b->r->experiment, "failed", why,
				   &ignored);
}

int kb_bisect__check_opts(const struct kb_bisect_opts *o, struct kb_err *err)
{
	if (!o->good_name || !o->bad_name)
		return kb_err_set(err, KB_EINPUT,
				  "bisection needs names for its good and bad ends");
	if (!o->metric || !*o->metric)
		return kb_err_set(err, KB_EINPUT, "bisection needs a metric");
	if (o->boots < 1 || o->boots > KB_MATRIX_MAX_BOOTS ||
	    o->max_boots < o->boots || o->max_boots > KB_MATRIX_MAX_BOOTS)
		return kb_err_set(err, KB_EINPUT,
				  "bisection boots %u and max_boots %u: need 1 <= boots <= max_boots <= %d",
				  o->boots, o->max_boots, KB_MATRIX_MAX_BOOTS);
	if (o->runs_per_boot < 1 || o->runs_per_boot > KB_MATRIX_MAX_RUNS)
		return kb_err_set(err, KB_EINPUT,
				  "bisection runs_per_boot %u: need 1 to %d",
				  o->runs_per_boot, KB_MATRIX_MAX_RUNS);
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->threshold_pct >= 0))
		return kb_err_set(err, KB_EINPUT,
				  "bisection alpha %g and threshold %g%%: need 0 < alpha < 1 and threshold >= 0",
				  o->alpha, o->threshold_pct);
	return 0;
}
