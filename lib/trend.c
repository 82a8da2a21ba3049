/*
 * Trends across experiments: the change points of a series by E-Divisive
 * means (lib/trend.h), and the series of one variant's metric read from
 * the store.
 */
#include "trend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "rng.h"
#include "source.h"
#include "stats.h"
#include "store.h"
#include "banned.h"

/* ---- the divergence of every split, in O(m log m) ------------------- */

/*
 * Scratch for the divergences of a segment of at most @cap values: a
 * Fenwick tree of counts and sums over the values' ranks, and the sums
 * of distances within each prefix and suffix.
 */
struct scratch {
	size_t cap;
	double *cnt, *sum;   /* Fenwick trees, 1-based, cap + 1 */
	double *wpre, *wsuf; /* within-sums of x[0..t) and x[t..m), m + 1 */
};

static void scratch_init(struct scratch *sc, size_t cap)
{
	sc->cap = cap;
	sc->cnt = kb_calloc(cap + 1, sizeof(double));
	sc->sum = kb_calloc(cap + 1, sizeof(double));
	sc->wpre = kb_calloc(cap + 1, sizeof(double));
	sc->wsuf = kb_calloc(cap + 1, sizeof(double));
}

static void scratch_release(struct scratch *sc)
{
	free(sc->cnt);
	free(sc->sum);
	free(sc->wpre);
	free(sc->wsuf);
	memset(sc, 0, sizeof(*sc));
}

/* Add value @v at rank @r (0-based) to the trees of size @m. */
static void fen_add(struct scratch *sc, size_t m, size_t r, double v)
{
	for (r++; r <= m; r += r & -r) {
		sc->cnt[r] += 1;
		sc->sum[r] += v;
	}
}

/* The count and sum of the values at ranks below @r. */
static void fen_below(const struct scratch *sc, size_t r, double *cnt,
		      double *sum)
{
	*cnt = 0;
	*sum = 0;
	for (; r > 0; r -= r & -r) {
		*cnt += sc->cnt[r];
		*sum += sc->sum[r];
	}
}

/*
 * The sums of |x_i - x_j| over the pairs within each prefix of the @m
 * values @x taken in @dir order (1: x[0], x[1], ...; -1: from the end),
 * whose ranks among themselves are @rk (a permutation of 0..m-1 that
 * sorts them; equal values may take either order, their distance being
 * 0), into @w[k] for the first k values taken.
 */
static void within_sums(struct scratch *sc, const double *x,
			const size_t *rk, size_t m, int dir, double *w)
{
	double total = 0, cl, sl, v;
	size_t k, i;

	memset(sc->cnt, 0, (m + 1) * sizeof(double));
	memset(sc->sum, 0, (m + 1) * sizeof(double));
	w[0] = 0;
	for (k = 0; k < m; k++) {
		i = dir > 0 ? k : m - 1 - k;
		v = x[i];
		fen_below(sc, rk[i], &cl, &sl);
		/* below: v - each; above: each - v */
		w[k + 1] = w[k] + (v * cl - sl) +
			   ((total - sl) - v * ((double)k - cl));
		total += v;
		fen_add(sc, m, rk[i], v);
	}
}

/*
 * Q(tau) of the @m values @x (ranks @rk) for tau in [lo, m - lo] into
 * @q (when not NULL); returns the largest, its tau in *@best (0 when no
 * tau is in range, and then -INFINITY).
 */
static double divergences(struct scratch *sc, const double *x,
			  const size_t *rk, size_t m, size_t lo, double *q,
			  size_t *best)
{
	double top = -INFINITY, wall, cross, l, r, e, qt;
	size_t t;

	*best = 0;
	if (m < 2 * lo)
		return top;
	within_sums(sc, x, rk, m, 1, sc->wpre);
	within_sums(sc, x, rk, m, -1, sc->wsuf);
	/* sc->wsuf[k] is the within-sum of the last k values */
	wall = sc->wpre[m];
	for (t = lo; t + lo <= m; t++) {
		l = (double)t;
		r = (double)(m - t);
		cross = wall - sc->wpre[t] - sc->wsuf[m - t];
		e = 2 * cross / (l * r) - 2 * sc->wpre[t] / (l * (l - 1)) -
		    2 * sc->wsuf[m - t] / (r * (r - 1));
		qt = l * r / (l + r) * e;
		if (q)
			q[t] = qt;
		if (qt > top) {
			top = qt;
			*best = t;
		}
	}
	return top;
}

/* For sorting indexes by value. */
struct ranked {
	double v;
	size_t i;
};

static int by_value(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The ranks of the @m values @x among themselves into @rk. */
static void rank(const double *x, size_t m, size_t *rk)
{
	struct ranked *s = kb_calloc(m ? m : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < m; i++) {
		s[i].v = x[i];
		s[i].i = i;
	}
	qsort(s, m, sizeof(*s), by_value);
	for (i = 0; i < m; i++)
		rk[s[i].i] = i;
	free(s);
}

void kb_trend_divergence(const double *x, size_t n, size_t min_size,
			 double *q)
{
	struct scratch sc;
	size_t *rk = kb_calloc(n ? n : 1, sizeof(*rk)), i, best;

	if (min_size < KB_TREND_MIN_SIZE)
		min_size = KB_TREND_MIN_SIZE;
	for (i = 0; i <= n; i++)
		q[i] = NAN;
	scratch_init(&sc, n);
	rank(x, n, rk);
	divergences(&sc, x, rk, n, min_size, q, &best);
	scratch_release(&sc);
	free(rk);
}

/* ---- E-Divisive: recursive bisection with permutation tests -------- */

/* A segment [from, to) between change points, and its best split. */
struct segment {
	size_t from, to;
	size_t tau;  /* absolute index of its best split; 0: none */
	double q;    /* its Q, -INFINITY when none */
};

struct search {
	const double *x;   /* the centred series */
	size_t n;
	const struct kb_trend_opts *o;
	struct scratch sc;
	size_t *rk;        /* ranks within a segment */
	double *buf;       /* a shuffled segment */
	size_t *idx;       /* its order */
	struct segment *seg;
	size_t nseg;
};

/* The best split of segment @g of the series. */
static void best_split(struct search *s, struct segment *g)
{
	size_t m = g->to - g->from, t;

	rank(s->x + g->from, m, s->rk);
	g->q = divergences(&s->sc, s->x + g->from, s->rk, m, s->o->min_size,
			   NULL, &t);
	g->tau = t ? g->from + t : 0;
}

/*
 * The largest Q over every segment with each segment's values shuffled
 * (Fisher-Yates with @r): one draw of the permutation test's null.
 */
static double shuffled_max(struct search *s, struct kb_rng *r)
{
	double top = -INFINITY, q;
	size_t g, m, i, j, tmp, t;

	for (g = 0; g < s->nseg; g++) {
		const struct segment *sg = &s->seg[g];

		m = sg->to - sg->from;
		if (m < 2 * s->o->min_size)
			continue;
		for (i = 0; i < m; i++)
			s->idx[i] = i;
		for (i = m - 1; i > 0; i--) {
			j = (size_t)kb_rng_below(r, i + 1);
			tmp = s->idx[i];
			s->idx[i] = s->idx[j];
			s->idx[j] = tmp;
		}
		for (i = 0; i < m; i++)
			s->buf[i] = s->x[sg->from + s->idx[i]];
		rank(s->buf, m, s->rk);
		q = divergences(&s->sc, s->buf, s->rk, m, s->o->min_size,
				NULL, &t);
		if (q > top)
			top = q;
	}
	return top;
}

static int check_opts(const struct kb_trend_opts *o, struct kb_err *err)
{
	if (o->permutations < 1 ||
	    o->permutations > KB_TREND_MAX_PERMUTATIONS)
		return kb_err_set(err, KB_EINPUT,
				  "permutations %u is out of range: give 1 to %u",
				  o->permutations, KB_TREND_MAX_PERMUTATIONS);
	if (!(o->max_p > 0 && o->max_p < 1))
		return kb_err_set(err, KB_EINPUT,
				  "the largest p-value of a change %g is out of range: give a number between 0 and 1",
				  o->max_p);
	if (o->min_size < KB_TREND_MIN_SIZE || o->min_size > KB_TREND_MAX_POINTS)
		return kb_err_set(err, KB_EINPUT,
				  "a segment of at least %zu points is out of range: give %d to %d",
				  o->min_size, KB_TREND_MIN_SIZE,
				  KB_TREND_MAX_POINTS);
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct kb_trend_change *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* Fill the segments and means of the changes @c[0..k), sorted by index,
 * of the @n values @x. */
static void describe_changes(const double *x, size_t n,
			     struct kb_trend_change *c, size_t k)
{
	size_t i;

	qsort(c, k, sizeof(*c), by_index);
	for (i = 0; i < k; i++) {
		c[i].from = i ? c[i - 1].index : 0;
		c[i].to = i + 1 < k ? c[i + 1].index : n;
		c[i].before = kb_stats_mean(x + c[i].from,
					    c[i].index - c[i].from);
		c[i].after = kb_stats_mean(x + c[i].index,
					   c[i].to - c[i].index);
		c[i].change_pct = kb_stats_change_pct(c[i].before, c[i].after);
	}
}

int kb_trend_changes(const double *x, size_t n, const struct kb_trend_opts *o,
		     struct kb_trend_change **out, size_t *nout,
		     struct kb_err *err)
{
	static const struct kb_trend_opts defaults = KB_TREND_OPTS_INIT;
	struct kb_trend_change *c = NULL;
	struct search s;
	double *y = NULL, mean, qmax, top;
	size_t k = 0, i, g, pick, count;
	unsigned p;
	int ret;

	*out = NULL;
	*nout = 0;
	if (!o)
		o = &defaults;
	if ((ret = check_opts(o, err)))
		return ret;
	if (n > KB_TREND_MAX_POINTS)
		return kb_err_set(err, KB_EINPUT,
				  "a series of %zu points is too long: at most %d are analysed",
				  n, KB_TREND_MAX_POINTS);
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return kb_err_set(err, KB_EINPUT,
					  "point %zu of the series is not a finite number (%g)",
					  i, x[i]);
	if (n < 2 * o->min_size)
		return 0;

	/* distances do not move with the values: centre them, so that the
	 * running sums keep their precision whatever the level */
	mean = kb_stats_mean(x, n);
	y = kb_calloc(n, sizeof(*y));
	for (i = 0; i < n; i++)
		y[i] = x[i] - mean;
	memset(&s, 0, sizeof(s));
	s.x = y;
	s.n = n;
	s.o = o;
	scratch_init(&s.sc, n);
	s.rk = kb_calloc(n, sizeof(*s.rk));
	s.buf = kb_calloc(n, sizeof(*s.buf));
	s.idx = kb_calloc(n, sizeof(*s.idx));
	s.seg = kb_calloc(n, sizeof(*s.seg));
	s.seg[0].from = 0;
	s.seg[0].to = n;
	s.nseg = 1;
	best_split(&s, &s.seg[0]);

	for (;;) {
		struct kb_rng r;

		/* the candidate: the best split of any segment */
		pick = s.nseg;
		qmax = -INFINITY;
		for (g = 0; g < s.nseg; g++)
			if (s.seg[g].tau && s.seg[g].q > qmax) {
				qmax = s.seg[g].q;
				pick = g;
			}
		if (pick == s.nseg)
			break;
		/* each test draws its own stream: the k-th test's shuffles
		 * depend on the seed and k alone */
		kb_rng_init(&r, kb_rng_seed_from(o->seed, "e-divisive", k, 0));
		count = 0;
		for (p = 0; p < o->permutations; p++) {
			top = shuffled_max(&s, &r);
			if (top >= qmax)
				count++;
		}
		c = kb_reallocarray(c, k + 1, sizeof(*c));
		memset(&c[k], 0, sizeof(*c));
		c[k].index = s.seg[pick].tau;
		c[k].q = qmax;
		c[k].p = (double)(count + 1) / ((double)o->permutations + 1);
		c[k].order = (unsigned)k + 1;
		if (c[k].p > o->max_p)
			break;
		k++;
		/* split the segment at the change; both halves get their own
		 * best split */
		memmove(&s.seg[pick + 2], &s.seg[pick + 1],
			(s.nseg - pick - 1) * sizeof(*s.seg));
		s.seg[pick + 1].from = c[k - 1].index;
		s.seg[pick + 1].to = s.seg[pick].to;
		s.seg[pick].to = c[k - 1].index;
		s.nseg++;
		best_split(&s, &s.seg[pick]);
		best_split(&s, &s.seg[pick + 1]);
	}
	describe_changes(x, n, c, k);
	if (k) {
		*out = c;
		*nout = k;
		c = NULL;
	}
	free(c);
	free(y);
	scratch_release(&s.sc);
	free(s.rk);
	free(s.buf);
	free(s.idx);
	free(s.seg);
	return 0;
}

/* ---- series from the store ------------------------------------------ */

static void point_release(struct kb_trend_point *p)
{
	free(p->created_at);
	free(p->label);
	free(p->rev);
	free(p->commit);
	free(p->summary);
	free(p->boots);
}

void kb_trend_series_free(struct kb_trend_series *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		point_release(&t->points[i]);
	free(t->points);
	for (i = 0; i < t->nskipped; i++)
		free(t->skipped[i].reason);
	free(t->skipped);
	free(t->name);
	free(t->metric);
	free(t->matrix_path);
	free(t->tree);
	free(t->executor);
	free(t);
}

double *kb_trend_series_values(const struct kb_trend_series *t)
{
	double *x;
	size_t i;

	if (!t->n)
		return NULL;
	x = kb_calloc(t->n, sizeof(*x));
	for (i = 0; i < t->n; i++)
		x[i] = t->points[i].mean;
	return x;
}

static void skip(struct kb_trend_series *t, int64_t exp, char *reason)
{
	t->skipped = kb_reallocarray(t->skipped, t->nskipped + 1,
				     sizeof(*t->skipped));
	t->skipped[t->nskipped].experiment = exp;
	t->skipped[t->nskipped].reason = reason;
	t->nskipped++;
}

/* The stored matrix of @sp, parsed from the database alone. */
static int stored_matrix(const struct kb_store_series_point *sp,
			 struct kb_matrix **m, struct kb_err *err)
{
	const char *text = sp->matrix_yaml ? sp->matrix_yaml : "";

	return kb_matrix_parse_stored(text, strlen(text),
				      sp->matrix_path ? sp->matrix_path
						      : "matrix.yaml",
				      m, err);
}

/*
 * Point @p of experiment @sp: its revision (the variant's kernel.rev,
 * else the matrix's source.rev) and, by revision, the commit it names
 * in the matrix's source.tree and that commit's date.
 */
static int point_revision(const struct kb_store_series_point *sp,
			  enum kb_trend_by by, struct kb_trend_point *p,
			  struct kb_err *err)
{
	struct kb_matrix *m = NULL;
	struct kb_source_commit *c = NULL;
	const struct kb_source *src;
	int ret;

	if ((ret = stored_matrix(sp, &m, err)))
		goto out;
	src = kb_matrix_source(m);
	p->rev = kb_strdup(sp->kernel_rev ? sp->kernel_rev
			   : src->rev	   ? src->rev
					   : "");
	if (!*p->rev) {
		free(p->rev);
		p->rev = NULL;
	}
	if (by != KB_TREND_BY_REVISION)
		goto out;
	if (!p->rev) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld has no kernel revision (no source.rev in its matrix, no kernel.rev factor): order it by time (--by time)",
				 (long long)sp->experiment);
		goto out;
	}
	if (!src->tree) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld has no source.tree to read the date of revision '%s' from: order it by time (--by time)",
				 (long long)sp->experiment, p->rev);
		goto out;
	}
	ret = kb_source_resolve_time(src->tree, p->rev, &c, &p->commit_time,
				     err);
	if (ret == KB_ENOTFOUND) /* the revision or tree the matrix names */
		err->code = ret = KB_EINPUT;
	if (ret)
		goto out;
	p->commit = c->sha;
	p->summary = c->summary;
	c->sha = c->summary = NULL;
out:
	kb_source_commits_free(c, 1);
	kb_matrix_free(m);
	return ret;
}

static int by_time(const void *a, const void *b)
{
	const struct kb_trend_point *x = a, *y = b;
	int c = strcmp(x->created_at ? x->created_at : "",
		       y->created_at ? y->created_at : "");

	if (c)
		return c;
	return (x->experiment > y->experiment) - (x->experiment < y->experiment);
}

static int by_commit_time(const void *a, const void *b)
{
	const struct kb_trend_point *x = a, *y = b;

	if (x->commit_time != y->commit_time)
		return x->commit_time < y->commit_time ? -1 : 1;
	return (x->experiment > y->experiment) - (x->experiment < y->experiment);
}

int kb_trend_series_load(struct kb_store *s, const char *name,
			 const struct kb_trend_series_opts *o,
			 struct kb_trend_series **out, struct kb_err *err)
{
	static const struct kb_trend_series_opts defaults =
		KB_TREND_SERIES_OPTS_INIT;
	struct kb_store_series_point *sp = NULL;
	struct kb_trend_series *t = kb_calloc(1, sizeof(*t));
	struct kb_trend_point *p;
	struct kb_matrix *m = NULL;
	size_t n = 0, i;
	int ret;

	*out = NULL;
	if (!o)
		o = &defaults;
	t->name = kb_strdup(name);
	t->by = o->by;
	if ((ret = kb_store_series(s, name, o->label, o->metric, &t->metric,
				   &sp, &n, err)))
		goto out;
	if (!n) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "no experiment named '%s' (see kbisect history)",
				 name);
		goto out;
	}
	t->points = kb_calloc(n, sizeof(*t->points));
	for (i = 0; i < n; i++) {
		if (sp[i].variant_idx < 0) {
			skip(t, sp[i].experiment,
			     o->label ? kb_asprintf("no variant '%s'", o->label)
				      : kb_strdup("no variants"));
			continue;
		}
		if (!sp[i].nboots) {
			skip(t, sp[i].experiment,
			     kb_asprintf("no ok boot with %s",
					 t->metric ? t->metric : "its metric"));
			continue;
		}
		p = &t->points[t->n++];
		p->experiment = sp[i].experiment;
		p->created_at = sp[i].created_at;
		sp[i].created_at = NULL;
		p->variant_idx = (unsigned)sp[i].variant_idx;
		p->label = sp[i].label;
		sp[i].label = NULL;
		p->nboots = sp[i].nboots;
		p->boots = sp[i].boot_means;
		sp[i].boot_means = NULL;
		p->mean = kb_stats_mean(p->boots, p->nboots);
		if ((ret = point_revision(&sp[i], o->by, p, err)))
			goto out;
	}
	qsort(t->points, t->n, sizeof(*t->points),
	      o->by == KB_TREND_BY_REVISION ? by_commit_time : by_time);
	/* the newest experiment's matrix: where a bisection starts from */
	t->matrix_path = sp[n - 1].matrix_path ? kb_strdup(sp[n - 1].matrix_path)
					       : NULL;
	t->executor = sp[n - 1].executor ? kb_strdup(sp[n - 1].executor) : NULL;
	if (stored_matrix(&sp[n - 1], &m, NULL) == 0 &&
	    kb_matrix_source(m)->tree)
		t->tree = kb_strdup(kb_matrix_source(m)->tree);
	*out = t;
	t = NULL;
out:
	kb_matrix_free(m);
	for (i = 0; i < n; i++)
		kb_store_series_point_release(&sp[i]);
	free(sp);
	kb_trend_series_free(t);
	return ret;
}
