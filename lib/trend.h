#ifndef KB_TREND_H
#define KB_TREND_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/*
 * Trends: one metric of one variant across the experiments of a matrix
 * name (every `kbisect run` of the same matrix over weeks of kernels),
 * one point per experiment, and the change points in that series.
 *
 * Change points are found by E-Divisive means (Matteson and James, "A
 * nonparametric approach for multiple change point analysis of
 * multivariate data", JASA 2014), as MongoDB's signal-processing
 * algorithms and Apache Otava use it on performance series:
 *
 *   - the divergence of a split at tau of a segment x[0..m) into
 *     X = x[0..tau) and Y = x[tau..m), with exponent alpha = 1,
 *       E(tau) = 2/(|X||Y|) sum |X_i - Y_j|
 *                - 1/C(|X|,2) sum_{i<k} |X_i - X_k|
 *                - 1/C(|Y|,2) sum_{j<k} |Y_j - Y_k|
 *       Q(tau) = |X||Y| / (|X| + |Y|) E(tau)
 *     (the within sums are U-statistics, so each side needs at least
 *     two points: KB_TREND_MIN_SIZE);
 *   - recursive bisection: the best split of each segment between the
 *     change points found so far; the largest Q of them is the next
 *     candidate;
 *   - significance by a permutation test: the values of each segment
 *     are shuffled @permutations times, and the candidate's p-value is
 *     (1 + the shuffles whose largest Q over every segment reaches the
 *     candidate's) / (1 + @permutations).  A candidate with p <= @max_p
 *     is a change point and the search goes on; the first that is not
 *     ends it.
 *
 * The shuffles come from lib/util/rng.h seeded with @seed, so the same series
 * and options give the same change points and p-values everywhere.
 * Each Q is computed in O(m log m) for all tau at once (running sums of
 * distances over a Fenwick tree of ranks), so a permutation test costs
 * O(permutations n log n), not O(permutations n^2).
 */

#define KB_TREND_MIN_SIZE 2          /* points each side of a change */
#define KB_TREND_MAX_POINTS 100000   /* the longest series analysed */
#define KB_TREND_MAX_PERMUTATIONS 100000

struct kb_trend_opts {
	unsigned permutations; /* shuffles per test, 1..100000 */
	double max_p;          /* a change is one when p <= max_p, (0, 1) */
	uint64_t seed;         /* of the shuffles */
	size_t min_size;       /* points each side, >= KB_TREND_MIN_SIZE */
};
#define KB_TREND_OPTS_INIT \
	{ .permutations = 199, .max_p = 0.01, .seed = 1, .min_size = 2 }

/* One change point, as kb_trend_changes() reports it. */
struct kb_trend_change {
	size_t index;      /* the first point after the change (1..n-1) */
	unsigned order;    /* 1 for the first found (the strongest), ... */
	double q;          /* its divergence Q, in the units of the values */
	double p;          /* its permutation p-value */
	size_t from, to;   /* the points either side: before = [from, index),
			    * after = [index, to), up to the neighbouring
			    * change points */
	double before;     /* the mean of the points before */
	double after;      /* the mean of the points after */
	double change_pct; /* (after / before - 1) * 100; NaN when before
			    * is 0 */
};

/*
 * The change points of the @n values at @x, in the order of the series
 * (by index), into *@out (caller frees; NULL when there are none) and
 * *@nout.  @o may be NULL for KB_TREND_OPTS_INIT.  A series too short to
 * split (fewer than 2 * min_size points) has none.  KB_EINPUT for a
 * value that is not a finite number, more than KB_TREND_MAX_POINTS
 * values, or options out of range (each naming the value).
 */
int kb_trend_changes(const double *x, size_t n, const struct kb_trend_opts *o,
		     struct kb_trend_change **out, size_t *nout,
		     struct kb_err *err);

/*
 * The divergence Q(tau) of splitting the @n values at @x at each tau
 * into @q[0..n] (the caller's n + 1 doubles): NaN where a side would
 * have fewer than @min_size points (at least 2).  The statistic the
 * search maximises, for tests and for plotting.
 */
void kb_trend_divergence(const double *x, size_t n, size_t min_size,
			 double *q);

/* ---- series from the store ---------------------------------------- */

/* How a series is ordered. */
enum kb_trend_by {
	KB_TREND_BY_TIME = 0,   /* by the experiments' creation (then id) */
	KB_TREND_BY_REVISION,   /* by the committer date of each one's
				 * kernel revision (then id), read with
				 * libgit2 from its source.tree */
};

/* Which series kb_trend_series_load() reads. */
struct kb_trend_series_opts {
	const char *label;  /* the variant, by its exact label; NULL: each
			     * experiment's baseline (#0) */
	const char *metric; /* NULL: the newest experiment's metric */
	enum kb_trend_by by;
};
#define KB_TREND_SERIES_OPTS_INIT \
	{ .label = NULL, .metric = NULL, .by = KB_TREND_BY_TIME }

/* One point: one experiment's variant. */
struct kb_trend_point {
	int64_t experiment;
	char *created_at;     /* UTC, ISO 8601 */
	unsigned variant_idx;
	char *label;
	char *rev;            /* the variant's kernel.rev level, else the
			       * matrix's source.rev; NULL when neither */
	char *commit;         /* what @rev names now, 40 hex digits, and */
	char *summary;        /* its first line: by revision, else NULL */
	int64_t commit_time;  /* its committer time (seconds since the
			       * epoch) by revision, else 0 */
	size_t nboots;        /* ok boots with a value of the metric */
	double *boots;        /* each one's mean over its runs */
	double mean;          /* the point: the mean of @boots */
};

/* An experiment of the name that has no point, and why. */
struct kb_trend_skip {
	int64_t experiment;
	char *reason;         /* "no variant 'X'", "no ok boot with ..." */
};

struct kb_trend_series {
	char *name;
	char *metric;
	enum kb_trend_by by;
	size_t n;
	struct kb_trend_point *points; /* in order */
	size_t nskipped;
	struct kb_trend_skip *skipped; /* by experiment id */
	/* The newest experiment's, for handing a change to bisection: */
	char *matrix_path;    /* where its matrix was read from, or NULL */
	char *tree;           /* its source.tree, or NULL */
	char *executor;       /* "model", "libvirt", ... */
};

/*
 * Read the series of experiments named @name in @s (experiments.name,
 * the matrix's name; those a bisection or `kbisect test` made are left
 * out) as @o says (NULL: KB_TREND_SERIES_OPTS_INIT) into *@out (free
 * with kb_trend_series_free()).  An experiment without the variant, or
 * without an ok boot of the metric, is listed in skipped.  By revision,
 * each experiment's revision is resolved in its matrix's source.tree as
 * it names a commit now (a tag or a sha names the same one as when it
 * ran, a branch may not).
 *
 * KB_ENOTFOUND when no experiment has the name; KB_EINPUT when one has
 * no revision or no git source.tree to read its date from (by revision),
 * or names a revision the tree does not have.
 */
int kb_trend_series_load(struct kb_store *s, const char *name,
			 const struct kb_trend_series_opts *o,
			 struct kb_trend_series **out, struct kb_err *err);
void kb_trend_series_free(struct kb_trend_series *t);

/* The points' means in order into a new array of t->n (caller frees;
 * NULL when there are none), for kb_trend_changes(). */
double *kb_trend_series_values(const struct kb_trend_series *t);

#endif
