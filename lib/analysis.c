#include "analysis.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "order.h"
#include "pipeline.h"
#include "rng.h"
#include "runner.h"
#include "spread.h"
#include "stats.h"
#include "banned.h"

struct kb_analysis {
	struct kb_store *s;
	int64_t exp;
	struct kb_store_info info;
	char *metric;
	struct kb_matrix *m;
	struct kb_plan *plan;
	struct kb_model *model;
	/* a model experiment: the model's executors on its hosts (one boot
	 * at a time over them: lib/runner.h), made by open */
	struct kb_runner *runner;
	struct kb_executor *own; /* the runner's: over the hosts when the
				  * matrix has several, else the model's */
	struct kb_executor *ex;  /* what boots are added through: own, the
				  * caller's (kb_analysis_set_executor) or
				  * NULL */
	const struct kb_pipeline_opts *popts; /* the caller's, or NULL */
	struct kb_compare_opts opts;
	struct kb_metric_dir dir;
	size_t nvariants;
	struct kb_store_variant *v;
	unsigned added;
	unsigned budget;     /* boots it may add at most (UINT_MAX: any) */
	int budget_spent;    /* a look wanted boots the budget refused */
	/* the last sequential boundary computed, for these looks and the
	 * overall level it spends */
	unsigned la_start, la_max, la_looks;
	double la_alpha, la_of;
	size_t naside;  /* kb_analysis_set_aside(): per variant, the first */
	size_t *aside;  /* boots left out */
	unsigned max_round; /* the last round of the stored boots, failed
			     * and set aside included (0: no rounds) */
	unsigned last_block; /* the last round this analysis added */
};

static void release_variants(struct kb_analysis *a)
{
	size_t i;

	for (i = 0; i < a->nvariants; i++)
		kb_store_variant_release(&a->v[i]);
	free(a->v);
	a->v = NULL;
	a->nvariants = 0;
}

/* Drop the first @k boots of @v, their values, hosts, rounds and
 * places. */
static void drop_front(struct kb_store_variant *v, size_t k)
{
	size_t i;

	for (i = 0; v->boot_hosts && i < k; i++)
		free(v->boot_hosts[i]);
	memmove(v->boot_means, v->boot_means + k,
		(v->nboots - k) * sizeof(*v->boot_means));
	if (v->boot_hosts)
		memmove(v->boot_hosts, v->boot_hosts + k,
			(v->nboots - k) * sizeof(*v->boot_hosts));
	if (v->boot_rounds)
		memmove(v->boot_rounds, v->boot_rounds + k,
			(v->nboots - k) * sizeof(*v->boot_rounds));
	if (v->boot_seqs)
		memmove(v->boot_seqs, v->boot_seqs + k,
			(v->nboots - k) * sizeof(*v->boot_seqs));
	v->nboots -= k;
}

/* Leave out the boots set aside (kb_analysis_set_aside()) of the values
 * just read. */
static void skip_aside(struct kb_analysis *a)
{
	size_t i, k;

	for (i = 0; i < a->naside && i < a->nvariants; i++) {
		k = a->aside[i] < a->v[i].nboots ? a->aside[i]
						  : a->v[i].nboots;
		drop_front(&a->v[i], k);
	}
}

static int load_values(struct kb_analysis *a, struct kb_err *err)
{
	int ret;

	release_variants(a);
	ret = kb_store_variants(a->s, a->exp, a->metric, &a->v, &a->nvariants,
				err);
	if (ret)
		return ret;
	/* every boot's, failed and set aside ones too: a round added
	 * after them is a new one */
	if ((ret = kb_store_last_round(a->s, a->exp, &a->max_round, err)))
		return ret;
	skip_aside(a);
	return 0;
}

void kb_analysis_free(struct kb_analysis *a)
{
	if (!a)
		return;
	release_variants(a);
	free(a->aside);
	kb_runner_free(a->runner);
	kb_model_free(a->model);
	kb_plan_free(a->plan);
	kb_matrix_free(a->m);
	kb_store_info_release(&a->info);
	free(a->metric);
	free(a);
}

/*
 * The executor of model experiment @a into a->own: the model's, or for a
 * matrix of several hosts one that boots over them all as run spread the
 * experiment, each host's boots the model's on it (kb_runner_open_boots():
 * its time scale from the environment).  None when it cannot be made.
 */
static void own_executor(struct kb_analysis *a)
{
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;
	struct kb_err ignored = KB_ERR_INIT;

	o.model = a->model;
	if (kb_runner_open_boots(a->m, &o, &a->runner, &ignored))
		return;
	kb_runner_set_store(a->runner, a->s, &a->exp);
	a->own = kb_matrix_nhosts(a->m) > 1 ? kb_runner_boots(a->runner)
					    : kb_runner_builder(a->runner);
}

int kb_analysis_open(struct kb_store *s, int64_t exp, const char *metric,
		     struct kb_analysis **out, struct kb_err *err)
{
	struct kb_analysis *a = kb_calloc(1, sizeof(*a));
	struct kb_store_experiment_text text;
	const struct kb_compare *cmp;
	int ret;

	*out = NULL;
	a->s = s;
	a->exp = exp;
	a->budget = UINT_MAX;
	memset(&text, 0, sizeof(text));
	if ((ret = kb_store_experiment_get(s, exp, &a->info, err)) ||
	    (ret = kb_store_experiment_text(s, exp, &text, err)))
		goto out;
	a->metric = kb_strdup(metric ? metric : a->info.metric);
	/* the plan, rebuilt from the matrix as it was submitted; from the
	 * database alone: the files it names may have moved since */
	ret = kb_plan_from_stored(text.matrix_yaml, text.matrix_path, &a->m,
				  &a->plan, err);
	if (ret) {
		char why[KB_ERR_MSG_MAX];

		/* the parser's message is about a file the user no longer
		 * has in front of them: say which experiment it is */
		snprintf(why, sizeof(why), "%s", err ? err->msg : "");
		kb_err_clear(err);
		ret = kb_err_set(err, KB_EFAIL,
				 "experiment %lld: its stored matrix does not plan in this version of kbisect: %s",
				 (long long)exp, why);
		goto out;
	}
	if (text.model_yaml &&
	    kb_model_parse_buffer(text.model_yaml, strlen(text.model_yaml),
				  "model.yaml", &a->model, err) == 0)
		own_executor(a);
	a->ex = a->own;
	kb_err_clear(err);
	cmp = kb_matrix_compare(a->m);
	a->opts.threshold_pct = cmp->threshold_pct;
	a->opts.alpha = cmp->alpha;
	a->dir = kb_metric_direction(kb_matrix_workload(a->m), a->metric);
	a->opts.higher_is_better = a->dir.higher_is_better;
	if ((ret = load_values(a, err)))
		goto out;
	*out = a;
	a = NULL;
out:
	kb_store_experiment_text_release(&text);
	kb_analysis_free(a);
	return ret;
}

const struct kb_plan *kb_analysis_plan(const struct kb_analysis *a)
{
	return a->plan;
}

const struct kb_store_info *kb_analysis_info(const struct kb_analysis *a)
{
	return &a->info;
}

const char *kb_analysis_metric(const struct kb_analysis *a)
{
	return a->metric;
}

const struct kb_compare_opts *kb_analysis_opts(const struct kb_analysis *a)
{
	return &a->opts;
}

const struct kb_metric_dir *kb_analysis_direction(const struct kb_analysis *a)
{
	return &a->dir;
}

const struct kb_model *kb_analysis_model(const struct kb_analysis *a)
{
	return a->model;
}

int kb_analysis_can_sample(const struct kb_analysis *a)
{
	return a->ex != NULL;
}

void kb_analysis_no_sampling(struct kb_analysis *a)
{
	a->ex = NULL;
	a->popts = NULL;
}

void kb_analysis_set_executor(struct kb_analysis *a, struct kb_executor *ex,
			      const struct kb_pipeline_opts *opts)
{
	a->ex = ex;
	a->popts = ex ? opts : NULL;
}

void kb_analysis_on_hosts(struct kb_analysis *a,
			  void (*progress)(const struct kb_progress *ev,
					   void *arg),
			  void *arg)
{
	if (a->runner)
		kb_runner_on_hosts(a->runner, progress, arg);
}

unsigned kb_analysis_boots_added(const struct kb_analysis *a)
{
	return a->added;
}

void kb_analysis_set_boot_budget(struct kb_analysis *a, unsigned n)
{
	a->budget = n;
}

unsigned kb_analysis_boots_left(const struct kb_analysis *a)
{
	if (!a->ex)
		return 0;
	return a->budget == UINT_MAX ? UINT_MAX
	       : a->added >= a->budget ? 0
				       : a->budget - a->added;
}

int kb_analysis_budget_spent(const struct kb_analysis *a)
{
	return a->budget_spent;
}

int kb_analysis_may_add(struct kb_analysis *a, size_t n)
{
	if (n <= kb_analysis_boots_left(a))
		return 1;
	if (a->ex)
		a->budget_spent = 1;
	return 0;
}

const double *kb_analysis_values(const struct kb_analysis *a, unsigned idx,
				 size_t *n)
{
	if (idx >= a->nvariants) {
		*n = 0;
		return NULL;
	}
	*n = a->v[idx].nboots;
	return a->v[idx].boot_means;
}

const char *const *kb_analysis_hosts(const struct kb_analysis *a,
				     unsigned idx, size_t *n)
{
	if (idx >= a->nvariants || !a->v[idx].boot_hosts) {
		*n = 0;
		return NULL;
	}
	*n = a->v[idx].nboots;
	return (const char *const *)a->v[idx].boot_hosts;
}

const unsigned *kb_analysis_rounds(const struct kb_analysis *a, unsigned idx,
				   size_t *n)
{
	if (idx >= a->nvariants || !a->v[idx].boot_rounds) {
		*n = 0;
		return NULL;
	}
	*n = a->v[idx].nboots;
	return a->v[idx].boot_rounds;
}

unsigned kb_analysis_nrounds(const struct kb_analysis *a)
{
	unsigned max = 0, n = 0, r;
	unsigned char *seen;
	size_t v, i;

	for (v = 0; v < a->nvariants; v++)
		for (i = 0; a->v[v].boot_rounds && i < a->v[v].nboots; i++)
			if (a->v[v].boot_rounds[i] > max)
				max = a->v[v].boot_rounds[i];
	if (!max)
		return 0;
	seen = kb_calloc((size_t)max + 1, 1);
	for (v = 0; v < a->nvariants; v++)
		for (i = 0; a->v[v].boot_rounds && i < a->v[v].nboots; i++)
			if ((r = a->v[v].boot_rounds[i]) && !seen[r]) {
				seen[r] = 1;
				n++;
			}
	free(seen);
	return n;
}

/* The drift check's fit of @a's boots: the slope *@b of the residual
 * logs on the place, its standard error *@se on *@df degrees of freedom,
 * over places *@lo to *@hi; returns the boots fitted, 0 when too few. */
static size_t drift_fit(const struct kb_analysis *a, double *b_out,
			double *se_out, double *df_out, double *lo_out,
			double *hi_out)
{
	double sxx = 0, sxy = 0, syy = 0, lo = INFINITY, hi = -INFINITY, b,
	       sse, df;
	size_t v, i, n = 0, groups = 0;

	for (v = 0; v < a->nvariants; v++) {
		const struct kb_store_variant *x = &a->v[v];
		double mean = 0, at = 0;
		size_t k = 0;

		for (i = 0; x->boot_seqs && i < x->nboots; i++)
			if (x->boot_seqs[i] && x->boot_means[i] > 0) {
				mean += log(x->boot_means[i]);
				at += x->boot_seqs[i];
				k++;
			}
		if (!k)
			continue;
		mean /= (double)k;
		at /= (double)k;
		groups++;
		for (i = 0; i < x->nboots; i++) {
			double xs, ys;

			if (!x->boot_seqs[i] || !(x->boot_means[i] > 0))
				continue;
			lo = x->boot_seqs[i] < lo ? x->boot_seqs[i] : lo;
			hi = x->boot_seqs[i] > hi ? x->boot_seqs[i] : hi;
			/* both centred within the variant: the slope is
			 * the one within variants (an ANCOVA's), whatever
			 * their places; centring the places over all
			 * instead took a sequential order's differences
			 * between variants' places for spread of the
			 * slope's and shrank it several times */
			xs = x->boot_seqs[i] - at;
			ys = log(x->boot_means[i]) - mean;
			sxx += xs * xs;
			sxy += xs * ys;
			syy += ys * ys;
			n++;
		}
	}
	df = (double)n - (double)groups - 1;
	if (n < groups + 3 || df < 1 || !(hi > lo))
		return 0;
	/* least squares of the residuals on the place, each variant's
	 * own mean taken out of both: one slope over all */
	if (!(sxx > 0))
		return 0;
	b = sxy / sxx;
	sse = syy - b * sxy;
	*b_out = b;
	*se_out = sqrt((sse > 0 ? sse : 0) / df / sxx);
	*df_out = df;
	*lo_out = lo;
	*hi_out = hi;
	return n;
}

void kb_analysis_drift(const struct kb_analysis *a, struct kb_drift *out)
{
	double lo = 0, hi = 0, b = 0, se = 0, q, t, df = 0;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->change_pct = out->ci_low_pct = out->ci_high_pct = NAN;
	out->p = NAN;
	if (!(n = drift_fit(a, &b, &se, &df, &lo, &hi)))
		return;
	q = kb_stats_t_quantile(0.975, df);
	t = se > 0 ? b / se : (b ? INFINITY : 0);
	out->nboots = n;
	out->change_pct = (exp(b * (hi - lo)) - 1) * 100;
	out->ci_low_pct = (exp((b - q * se) * (hi - lo)) - 1) * 100;
	out->ci_high_pct = (exp((b + q * se) * (hi - lo)) - 1) * 100;
	out->p = 2 * (1 - kb_stats_t_cdf(fabs(t), df));
	out->flagged = out->p < 0.02 &&
		       fabs(out->change_pct) >= a->opts.threshold_pct / 2;
}

/*
 * The nominal level of each look of a sequential comparison from @start
 * to @max boots a side, remembered for the next call with the same looks.
 */
static double look_alpha(struct kb_analysis *a, unsigned start,
			 unsigned max, double alpha, unsigned *looks)
{
	if (a->la_alpha <= 0 || a->la_start != start || a->la_max != max ||
	    a->la_of != alpha) {
		a->la_alpha = kb_compare_look_alpha_welch(start, max, alpha,
							  &a->la_looks);
		a->la_start = start;
		a->la_max = max;
		a->la_of = alpha;
	}
	*looks = a->la_looks;
	return a->la_alpha;
}

/*
 * Boot the @n variants @vars once each, in that order, each boot stored
 * in round @round (0: none: boots added after the run); a->added is the
 * caller's to count.
 */
static int boot_round(struct kb_analysis *a, const unsigned *vars, size_t n,
		      unsigned round, struct kb_err *err)
{
	size_t k;
	int ret;

	for (k = 0; k < n; k++)
		if ((ret = kb_pipeline_add_round_boot(a->s, a->exp, a->plan,
						      a->ex, vars[k], round,
						      a->popts, err)))
			return ret;
	return 0;
}

/*
 * The round a round added now takes: after every round stored (failed
 * and set-aside boots' too: the rounds a variant set aside ran in hold
 * the others' boots as well) and every one this analysis added.
 */
static unsigned next_round(const struct kb_analysis *a)
{
	return (a->max_round > a->last_block ? a->max_round : a->last_block) +
	       1;
}

/*
 * One more boot of @ia (when @more_a) and of @ib (when @more_b), @ib's
 * first when @b_first: a round of the two, stored as a new round when
 * the experiment's boots have rounds, so that they pair.
 */
static int add_round(struct kb_analysis *a, unsigned ia, unsigned ib,
		     unsigned more_a, unsigned more_b, int b_first,
		     struct kb_err *err)
{
	unsigned side[2] = { b_first ? ib : ia, b_first ? ia : ib };
	unsigned more[2] = { b_first ? more_b : more_a,
			     b_first ? more_a : more_b };
	unsigned vars[2], r = 0;
	size_t n = 0;
	int k, ret;

	for (k = 0; k < 2; k++)
		if (more[k])
			vars[n++] = side[k];
	if (a->max_round)
		r = next_round(a);
	if ((ret = boot_round(a, vars, n, r, err)))
		return ret;
	if (r)
		a->last_block = r;
	return 0;
}

/* Do boots @i of variant @x and @j of @y share a host, as far as is
 * known (unrecorded on either side: they may)? */
static int same_host(const struct kb_store_variant *x, size_t i,
		     const struct kb_store_variant *y, size_t j)
{
	const char *h = x->boot_hosts ? x->boot_hosts[i] : NULL;
	const char *g = y->boot_hosts ? y->boot_hosts[j] : NULL;

	return !h || !g || !strcmp(h, g);
}

/*
 * The boots of @x and @y that ran in one round from @first on (and on
 * one host when both are known), each boot in one pair at most: their
 * values into @px and @py (room for the smaller side), and into @adj
 * the drift between their places, @slope (a log per place) times the
 * distance, 0 when a place is not known (@px NULL: only counted); the
 * number of pairs returned.
 */
static size_t pair_rounds(const struct kb_store_variant *x,
			  const struct kb_store_variant *y, unsigned first,
			  double slope, double *px, double *py, double *adj)
{
	unsigned char *used;
	size_t i, j, n = 0;

	if (!x->boot_rounds || !y->boot_rounds || !y->nboots)
		return 0;
	used = kb_calloc(y->nboots, 1);
	for (i = 0; i < x->nboots; i++) {
		if (!x->boot_rounds[i] || x->boot_rounds[i] < first)
			continue;
		for (j = 0; j < y->nboots; j++)
			if (!used[j] && y->boot_rounds[j] == x->boot_rounds[i] &&
			    same_host(x, i, y, j))
				break;
		if (j == y->nboots)
			continue;
		used[j] = 1;
		if (px) {
			px[n] = x->boot_means[i];
			py[n] = y->boot_means[j];
			adj[n] = 0;
			if (x->boot_seqs && y->boot_seqs && x->boot_seqs[i] &&
			    y->boot_seqs[j])
				adj[n] = slope * ((double)y->boot_seqs[j] -
						  (double)x->boot_seqs[i]);
		}
		n++;
	}
	free(used);
	return n;
}

/* The boot of @y in round @r on @x's boot @i's host: its index, or -1
 * when it has none or several. */
static long boot_in_round(const struct kb_store_variant *x, size_t i,
			  const struct kb_store_variant *y, unsigned r)
{
	long hit = -1;
	size_t j;

	for (j = 0; y->boot_rounds && j < y->nboots; j++) {
		if (y->boot_rounds[j] != r || !same_host(x, i, y, j))
			continue;
		if (hit >= 0)
			return -1;
		hit = (long)j;
	}
	return hit;
}

size_t kb_analysis_contrast_rounds(const struct kb_analysis *a,
				   const unsigned idx[4], double *mean,
				   double *var)
{
	static const int sign[4] = { 1, -1, -1, 1 };
	const struct kb_store_variant *x;
	double slope = 0, se, df, lo, hi, sum = 0, sum2 = 0;
	size_t i, k, n = 0;

	*mean = *var = NAN;
	for (k = 0; k < 4; k++)
		if (idx[k] >= a->nvariants)
			return 0;
	if (!drift_fit(a, &slope, &se, &df, &lo, &hi) || !isfinite(slope))
		slope = 0;
	x = &a->v[idx[0]];
	for (i = 0; x->boot_rounds && i < x->nboots; i++) {
		double d = 0, adj = 0;
		int places = x->boot_seqs != NULL;

		if (!x->boot_rounds[i])
			continue;
		for (k = 0; k < 4; k++) {
			const struct kb_store_variant *y = &a->v[idx[k]];
			long j = boot_in_round(x, i, y, x->boot_rounds[i]);

			if (j < 0 || !(y->boot_means[j] > 0))
				break;
			d += sign[k] * log(y->boot_means[j]);
			if (places && y->boot_seqs && y->boot_seqs[j])
				adj += sign[k] * (double)y->boot_seqs[j];
			else
				places = 0;
		}
		if (k < 4)
			continue;
		if (places)
			d -= slope * adj;
		sum += d;
		sum2 += d * d;
		n++;
	}
	if (n)
		*mean = sum / (double)n;
	if (n > 1)
		*var = fmax(0, (sum2 - sum * sum / (double)n) / (double)(n - 1));
	return n;
}

/*
 * @ia against @ib paired within their rounds from @first on
 * (kb_compare_paired()), each pair's log ratio less the drift between
 * its two places (the drift check's slope over every boot of @a times
 * their distance); returns the pairs, out->npairs.
 */
static size_t compare_paired(const struct kb_analysis *a, unsigned ia,
			     unsigned ib, unsigned first,
			     const struct kb_compare_opts *o,
			     struct kb_comparison *out)
{
	const struct kb_store_variant *x = &a->v[ia], *y = &a->v[ib];
	size_t room = x->nboots < y->nboots ? x->nboots : y->nboots, n;
	double *px = kb_calloc(room ? room : 1, sizeof(*px));
	double *py = kb_calloc(room ? room : 1, sizeof(*py));
	double *adj = kb_calloc(room ? room : 1, sizeof(*adj));
	double slope = 0, se, df, lo, hi;

	if (!drift_fit(a, &slope, &se, &df, &lo, &hi) || !isfinite(slope))
		slope = 0;
	n = pair_rounds(x, y, first, slope, px, py, adj);
	kb_compare_paired(px, py, adj, n, o, out);
	free(px);
	free(py);
	free(adj);
	return n;
}

/*
 * Compare @ia with @ib as their boots are now: paired within rounds
 * when KB_COMPARE_MIN_PAIRS pairs or more can be had, else unpaired
 * (lib/compare.h).
 */
static void compare_now(const struct kb_analysis *a, unsigned ia,
			unsigned ib, const struct kb_compare_opts *o,
			struct kb_comparison *out)
{
	const struct kb_store_variant *x = &a->v[ia], *y = &a->v[ib];

	if (compare_paired(a, ia, ib, 0, o, out) >= KB_COMPARE_MIN_PAIRS) {
		out->unpaired = x->nboots + y->nboots - 2 * out->npairs;
	} else {
		size_t n = out->npairs;

		kb_compare_samples(x->boot_means, x->nboots, y->boot_means,
				   y->nboots, o, out);
		out->npairs = n;
	}
}

/* kb_analysis_compare at overall level @alpha (the experiment's, or the
 * one kb_analysis_compare_at asks for). */
static int compare(struct kb_analysis *a, unsigned ia, unsigned ib,
		   int adaptive, double alpha, struct kb_comparison *out,
		   struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(a->m);
	struct kb_compare_opts o = a->opts;
	unsigned max = rep->max_boots, start = rep->boots;
	unsigned n[KB_COMPARE_LOOKS_MAX];
	size_t nlooks, na, nb;
	int ret;

	o.alpha = alpha;
	if (ia >= a->nvariants || ib >= a->nvariants)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has %zu variants: no #%u",
				  (long long)a->exp, a->nvariants,
				  ia >= a->nvariants ? ia : ib);
	adaptive = adaptive && a->ex;
	na = a->v[ia].nboots;
	nb = a->v[ib].nboots;
	/*
	 * A sequential test: this comparison may add boots and look again,
	 * or its boots were added by an earlier one that looked already.
	 * Each look decides at Pocock's nominal level for the looks from
	 * the planned boots (fewer when boots failed) to max_boots.
	 */
	if (na < start || nb < start)
		start = (unsigned)(na < nb ? na : nb);
	if (start < 1)
		start = 1;
	if ((adaptive || na > rep->boots || nb > rep->boots) && max > start) {
		o.look_alpha = look_alpha(a, start, max, alpha, &o.looks);
		o.look_alpha_paired =
			kb_compare_look_alpha_paired(start, max, alpha, NULL);
	}
	nlooks = kb_compare_looks(start, max, n);
	for (;;) {
		size_t lo, j, next, now;

		na = a->v[ia].nboots;
		nb = a->v[ib].nboots;
		compare_now(a, ia, ib, &o, out);
		if (!adaptive || out->verdict != KB_VERDICT_INCONCLUSIVE)
			return 0;
		/* the futility stop: boots up to max would not decide */
		lo = na < nb ? na : nb;
		now = out->test == KB_COMPARE_WELCH_T ||
				      out->test == KB_COMPARE_MANN_WHITNEY
			      ? lo
			      : out->npairs;
		if (kb_compare_futile(out, now, max)) {
			out->futile = 1;
			return 0;
		}
		/* boots until the smaller side reaches the next look */
		for (j = 0; j < nlooks && n[j] <= lo; j++)
			;
		next = j < nlooks ? n[j] : max;
		do {
			unsigned more_a = na <= nb && na < max;
			unsigned more_b = nb <= na && nb < max;
			size_t was = na + nb;

			if (!more_a && !more_b)
				return 0;
			if (!kb_analysis_may_add(a, more_a + more_b))
				return 0; /* inconclusive: the budget says */
			/* a round of both sides, in an order drawn for it
			 * (seeded by the experiment and the counts, so a run
			 * again draws the same): neither side always boots
			 * first, and a drift falls on both alike */
			if ((ret = add_round(a, ia, ib, more_a, more_b,
					     kb_rng_seed_from((uint64_t)a->exp,
							      "adaptive", na,
							      nb) & 1,
					     err)))
				return ret;
			a->added += more_a + more_b;
			if ((ret = load_values(a, err)))
				return ret;
			na = a->v[ia].nboots;
			nb = a->v[ib].nboots;
			if (na + nb == was)
				return 0; /* the boots failed: no more data */
		} while ((na < nb ? na : nb) < next);
	}
}

int kb_analysis_compare(struct kb_analysis *a, unsigned ia, unsigned ib,
			int adaptive, struct kb_comparison *out,
			struct kb_err *err)
{
	return compare(a, ia, ib, adaptive, a->opts.alpha, out, err);
}

int kb_analysis_compare_metric(const struct kb_analysis *a,
			       const char *metric, unsigned ia, unsigned ib,
			       struct kb_comparison *out,
			       struct kb_metric_dir *dir, struct kb_err *err)
{
	/* @a as kb_analysis_open() would have made it for @metric: its
	 * experiment, plan and options borrowed, its own direction and
	 * values, and no executor (never adaptive) */
	struct kb_analysis m = *a;
	int ret;

	m.metric = NULL;
	m.v = NULL;
	m.nvariants = 0;
	m.ex = NULL;
	m.popts = NULL;
	m.la_alpha = 0;
	m.dir = kb_metric_direction(kb_matrix_workload(a->m), metric);
	m.opts.higher_is_better = m.dir.higher_is_better;
	*dir = m.dir;
	ret = kb_store_variants_pair(a->s, a->exp, metric, ia, ib, &m.v,
				     &m.nvariants, err);
	if (ret == 0) {
		skip_aside(&m);
		ret = compare(&m, ia, ib, 0, m.opts.alpha, out, err);
	}
	release_variants(&m);
	return ret;
}

size_t kb_analysis_nonpositive(const struct kb_analysis *a, unsigned idx)
{
	size_t i, k = 0;

	for (i = 0; idx < a->nvariants && i < a->v[idx].nboots; i++)
		k += !(a->v[idx].boot_means[i] > 0);
	return k;
}

void kb_analysis_log_cell(const struct kb_analysis *a, unsigned idx,
			  double *mean, size_t *n)
{
	size_t i, k = 0;
	double sum = 0;

	for (i = 0; idx < a->nvariants && i < a->v[idx].nboots; i++) {
		if (a->v[idx].boot_means[i] > 0) {
			sum += log(a->v[idx].boot_means[i]);
			k++;
		}
	}
	*n = k;
	*mean = k ? sum / (double)k : NAN;
}

void kb_analysis_log_pooled(const struct kb_analysis *a, double *var,
			    double *df)
{
	double ss = 0, d = 0;
	size_t i, j;

	for (i = 0; i < a->nvariants; i++) {
		double mean;
		size_t n;

		kb_analysis_log_cell(a, (unsigned)i, &mean, &n);
		if (n < 2)
			continue;
		for (j = 0; j < a->v[i].nboots; j++)
			if (a->v[i].boot_means[j] > 0)
				ss += pow(log(a->v[i].boot_means[j]) - mean,
					  2);
		d += (double)n - 1;
	}
	*df = d;
	*var = d > 0 ? ss / d : NAN;
}

int kb_analysis_worst(const struct kb_analysis *a)
{
	int worst = -1;
	double wv = 0;
	size_t i;

	for (i = 0; i < a->nvariants; i++) {
		double m;

		/* the sentinel is the baseline again: never a suspect */
		if (!a->v[i].nboots || (int)i == kb_plan_sentinel(a->plan))
			continue;
		m = kb_stats_mean(a->v[i].boot_means, a->v[i].nboots);
		if (worst < 0 || (a->opts.higher_is_better ? m < wv : m > wv)) {
			worst = (int)i;
			wv = m;
		}
	}
	return worst;
}

int kb_analysis_find(const struct kb_analysis *a, unsigned base,
		     unsigned from, const size_t *factors, size_t k)
{
	const struct kb_variant *b = kb_plan_variant(a->plan, base);
	const struct kb_variant *f = kb_plan_variant(a->plan, from);
	size_t i, j, n = kb_plan_nvariants(a->plan);

	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(a->plan, i);

		for (j = 0; j < v->nsettings; j++) {
			const char *want = b->settings[j].value;
			size_t q;

			for (q = 0; q < k; q++)
				if (factors[q] == j)
					want = f->settings[j].value;
			if (strcmp(v->settings[j].value, want))
				break;
		}
		if (j == v->nsettings)
			return (int)i;
	}
	return -1;
}

int kb_analysis_compare_at(struct kb_analysis *a, unsigned ia, unsigned ib,
			   int adaptive, double alpha,
			   struct kb_comparison *out, struct kb_err *err)
{
	if (!(alpha > 0 && alpha < 1))
		return kb_err_set(err, KB_EINPUT,
				  "significance level %g: need 0 < alpha < 1",
				  alpha);
	return compare(a, ia, ib, adaptive, alpha, out, err);
}

size_t kb_analysis_set_aside(struct kb_analysis *a, unsigned idx)
{
	size_t n;

	if (idx >= a->nvariants)
		return 0;
	if (!a->aside) {
		a->aside = kb_calloc(a->nvariants, sizeof(*a->aside));
		a->naside = a->nvariants;
	}
	n = a->v[idx].nboots;
	a->aside[idx] += n;
	drop_front(&a->v[idx], n);
	return n;
}

int kb_analysis_add_boots(struct kb_analysis *a, unsigned idx, unsigned n,
			  struct kb_err *err)
{
	int ret;

	if (idx >= a->nvariants)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has %zu variants: no #%u",
				  (long long)a->exp, a->nvariants, idx);
	if (!a->ex)
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld cannot run again: no boots can be added",
				  (long long)a->exp);
	if (!n)
		return 0;
	if ((ret = kb_pipeline_add_boots(a->s, a->exp, a->plan, a->ex, idx, n,
					 a->popts, err)))
		return ret;
	a->added += n;
	return load_values(a, err);
}

unsigned kb_analysis_last_round(const struct kb_analysis *a)
{
	return a->max_round;
}

int kb_analysis_add_block(struct kb_analysis *a, const unsigned *vars,
			  size_t n, unsigned *round, struct kb_err *err)
{
	unsigned *order = NULL, r;
	uint64_t seed;
	size_t i;
	int ret;

	*round = 0;
	if (!a->ex)
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld cannot run again: no boots can be added",
				  (long long)a->exp);
	if ((ret = kb_order_stored_seed(&a->info, a->plan, &seed, err)))
		return ret;
	for (i = 0; i < n; i++)
		if (vars[i] >= a->nvariants)
			return kb_err_set(err, KB_ENOTFOUND,
					  "experiment %lld has %zu variants: no #%u",
					  (long long)a->exp, a->nvariants,
					  vars[i]);
	r = next_round(a);
	order = kb_calloc(n ? n : 1, sizeof(*order));
	kb_order_block(seed, r, vars, n, order);
	ret = boot_round(a, order, n, r, err);
	free(order);
	if (ret)
		return ret;
	a->last_block = r;
	a->added += (unsigned)n;
	*round = r;
	return load_values(a, err);
}

int kb_analysis_compare_rounds(struct kb_analysis *a, unsigned ia,
			       unsigned ib, unsigned first,
			       const unsigned *with, size_t nwith,
			       unsigned start, int adaptive, double alpha,
			       struct kb_comparison *out, unsigned *nrounds,
			       struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(a->m);
	struct kb_compare_opts o = a->opts;
	unsigned max = rep->max_boots, n[KB_COMPARE_LOOKS_MAX], *vars = NULL;
	size_t nlooks, k, nv = 0, i, j, tries = 0;
	int ret = 0;

	*nrounds = 0;
	if (ia >= a->nvariants || ib >= a->nvariants)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has %zu variants: no #%u",
				  (long long)a->exp, a->nvariants,
				  ia >= a->nvariants ? ia : ib);
	if (!(alpha > 0 && alpha < 1))
		return kb_err_set(err, KB_EINPUT,
				  "significance level %g: need 0 < alpha < 1",
				  alpha);
	adaptive = adaptive && a->ex;
	o.alpha = alpha;
	if (start < KB_COMPARE_MIN_PAIRS)
		start = KB_COMPARE_MIN_PAIRS;
	if (max < start)
		max = start;
	nlooks = kb_compare_looks(start, max, n);
	/* the round's variants: the two compared and @with, each once */
	vars = kb_calloc(nwith + 2, sizeof(*vars));
	vars[nv++] = ia;
	if (ib != ia)
		vars[nv++] = ib;
	for (i = 0; i < nwith; i++) {
		for (j = 0; j < nv && vars[j] != with[i]; j++)
			;
		if (j == nv)
			vars[nv++] = with[i];
	}
	for (;;) {
		size_t next;
		unsigned r;

		k = pair_rounds(&a->v[ia], &a->v[ib], first, 0, NULL, NULL,
				NULL);
		o.look_alpha = o.look_alpha_paired = 0;
		o.looks = 1;
		if ((adaptive || k > start) && max > start) {
			o.look_alpha = look_alpha(a, start, max, alpha, &o.looks);
			o.look_alpha_paired =
				kb_compare_look_alpha_paired(start, max, alpha,
							     NULL);
		}
		compare_paired(a, ia, ib, first, &o, out);
		*nrounds = (unsigned)k;
		if (!adaptive ||
		    (k >= start && out->verdict != KB_VERDICT_INCONCLUSIVE) ||
		    k >= max)
			break;
		/* rounds until the next look */
		for (j = 0; j < nlooks && n[j] <= k; j++)
			;
		next = k < start ? start : j < nlooks ? n[j] : max;
		while (k < next) {
			size_t had = a->v[ia].nboots + a->v[ib].nboots;

			if (!kb_analysis_may_add(a, nv))
				goto out; /* the last look stands */
			if ((ret = kb_analysis_add_block(a, vars, nv, &r, err)))
				goto out;
			k = pair_rounds(&a->v[ia], &a->v[ib], first, 0, NULL,
					NULL, NULL);
			/* a round whose two boots ran on two hosts (one
			 * drained) is no pair: another round, up to twice
			 * the most; one whose boots failed ends it, the
			 * last look on what there is */
			if (a->v[ia].nboots + a->v[ib].nboots == had ||
			    ++tries > 2 * (size_t)max) {
				compare_paired(a, ia, ib, first, &o, out);
				*nrounds = (unsigned)k;
				goto out;
			}
		}
	}
out:
	free(vars);
	return ret;
}

struct kb_store *kb_analysis_store(const struct kb_analysis *a)
{
	return a->s;
}

void kb_analysis_compare_row(const struct kb_comparison *c,
			     const char *metric, unsigned ia, unsigned ib,
			     char **detail, struct kb_store_analysis *row)
{
	*detail = kb_compare_detail(c);
	*row = (struct kb_store_analysis){
		.kind = "compare",
		.metric = metric,
		.a_idx = (int)ia,
		.b_idx = (int)ib,
		.factor = NULL,
		.change_pct = c->change_pct,
		.ci_low_pct = c->ci_low,
		.ci_high_pct = c->ci_high,
		.p_value = c->p,
		.test = kb_compare_test_name(c->test),
		.verdict = kb_verdict_name(c->verdict),
		.detail = *detail,
		.call = KB_STORE_CALL_NONE,
	};
}

int kb_analysis_store_verdicts(struct kb_analysis *a, size_t *n,
			       struct kb_err *err)
{
	struct kb_store_analysis *rows = NULL;
	char **details = NULL;
	struct kb_comparison c;
	size_t i, k = 0;
	int ret = 0;

	if (n)
		*n = 0;
	if (kb_store_read_only(a->s) || a->nvariants < 2)
		return 0;
	rows = kb_calloc(a->nvariants, sizeof(*rows));
	details = kb_calloc(a->nvariants, sizeof(*details));
	for (i = 1; i < a->nvariants; i++) {
		/* against the baseline at the variant's level of the
		 * conditions; none for a baseline of another level */
		int ref = kb_plan_reference(a->plan, 0, i);

		if (ref < 0 || (size_t)ref == i)
			continue;
		if ((ret = compare(a, (unsigned)ref, (unsigned)i, 0,
				   a->opts.alpha, &c, err)))
			goto out;
		kb_analysis_compare_row(&c, a->metric, (unsigned)ref,
					(unsigned)i, &details[k], &rows[k]);
		k++;
	}
	if ((ret = kb_store_analyses_put(a->s, a->exp, rows, k, err)))
		goto out;
	if (n)
		*n = k;
out:
	for (i = 0; i < k; i++)
		free(details[i]);
	free(details);
	free(rows);
	return ret;
}

int kb_analysis_store_experiment_verdicts(struct kb_store *s, int64_t exp,
					  size_t *n, struct kb_err *err)
{
	struct kb_analysis *a = NULL;
	int ret;

	if (n)
		*n = 0;
	if (kb_store_read_only(s))
		return 0;
	if ((ret = kb_analysis_open(s, exp, NULL, &a, err)))
		return ret;
	kb_analysis_no_sampling(a);
	ret = kb_analysis_store_verdicts(a, n, err);
	kb_analysis_free(a);
	return ret;
}
