#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "rng.h"

#include "banned.h"

static size_t count_nonpositive(const double *x, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !(x[i] > 0);
	return k;
}

/* The verdict of @out by the rule of compare.h, at out->alpha. */
static void decide(struct kb_comparison *out, const struct kb_compare_opts *o)
{
	double t = o->threshold_pct, alpha = out->alpha, est = out->est_pct;
	int worse;

	out->verdict = KB_VERDICT_INCONCLUSIVE;
	if (isnan(est) || isnan(out->p))
		return;
	if (out->p < alpha && fabs(est) >= t) {
		worse = (est < 0) == (o->higher_is_better != 0);
		out->verdict = worse ? KB_VERDICT_REGRESSION
				     : KB_VERDICT_IMPROVEMENT;
	} else if (out->min_p < alpha && out->ci_low > -t &&
		   out->ci_high < t) {
		out->verdict = KB_VERDICT_NO_CHANGE;
	}
}

static double look_level(const struct kb_compare_opts *o,
			 struct kb_comparison *out)
{
	double alpha = o->look_alpha > 0 ? o->look_alpha : o->alpha;

	out->alpha = alpha;
	out->looks = o->looks > 1 && o->look_alpha > 0 ? o->looks : 1;
	return alpha;
}

void kb_compare_samples(const double *a, size_t na, const double *b,
			size_t nb, const struct kb_compare_opts *o,
			struct kb_comparison *out)
{
	double alpha;

	memset(out, 0, sizeof(*out));
	alpha = look_level(o, out);
	kb_stats_summary(a, na, &out->a);
	kb_stats_summary(b, nb, &out->b);
	out->change_pct = kb_stats_change_pct(out->a.mean, out->b.mean);
	out->nonpositive = count_nonpositive(a, na) + count_nonpositive(b, nb);
	out->test = KB_COMPARE_WELCH_T;
	out->p = kb_stats_log_ratio_test(a, na, b, nb, 1 - alpha,
					 &out->ci_low, &out->ci_high,
					 &out->se_log, &out->df);
	if (!isnan(out->p)) {
		/* the change the test and its interval are of: the
		 * geometric means' */
		out->est_pct = expm1(log1p(out->ci_low / 100) / 2 +
				     log1p(out->ci_high / 100) / 2) * 100;
		out->min_p = 0;
	} else if (out->nonpositive) {
		/* no log scale: the rank test, which has no interval to
		 * contradict, on the values as they are */
		out->test = KB_COMPARE_MANN_WHITNEY;
		out->p = kb_stats_mann_whitney(a, na, b, nb, NULL);
		out->min_p = kb_stats_mann_whitney_min_p(na, nb);
		out->est_pct = out->change_pct;
	} else {
		/* a side of one boot: no spread, no test */
		out->min_p = 1;
		out->est_pct = out->change_pct;
	}
	decide(out, o);
}

void kb_compare_paired(const double *a, const double *b, const double *adj,
		       size_t n, const struct kb_compare_opts *o,
		       struct kb_comparison *out)
{
	double alpha, *d = kb_calloc(n ? n : 1, sizeof(*d)), mean, lo, hi;
	size_t i;

	memset(out, 0, sizeof(*out));
	alpha = look_level(o, out);
	/* a look of a sequential test: the paired t's own level */
	if (out->looks > 1 && o->look_alpha_paired > 0)
		alpha = out->alpha = o->look_alpha_paired;
	kb_stats_summary(a, n, &out->a);
	kb_stats_summary(b, n, &out->b);
	out->npairs = n;
	out->nonpositive = count_nonpositive(a, n) + count_nonpositive(b, n);
	out->ci_low = out->ci_high = out->se_log = NAN;
	out->df = n >= 1 ? (double)(n - 1) : NAN;
	out->test = KB_COMPARE_SIGNED_RANK;
	if (out->nonpositive) {
		/* no log ratio: the signs and ranks of the differences,
		 * and the change of the means */
		for (i = 0; i < n; i++)
			d[i] = b[i] - a[i];
		out->change_pct = kb_stats_change_pct(out->a.mean,
						       out->b.mean);
		out->p = kb_stats_signed_rank(d, n, NULL);
		out->min_p = kb_stats_signed_rank_min_p(n);
		goto out;
	}
	for (i = 0; i < n; i++)
		d[i] = log(b[i] / a[i]) - (adj ? adj[i] : 0);
	out->test = KB_COMPARE_PAIRED_T;
	out->p = kb_stats_paired_t(d, n, 1 - alpha, &mean, &lo, &hi);
	/* fewer pairs than KB_COMPARE_MIN_PAIRS: an interval, no test */
	if (n < KB_COMPARE_MIN_PAIRS)
		out->p = NAN;
	out->change_pct = expm1(mean) * 100;
	out->ci_low = expm1(lo) * 100;
	out->ci_high = expm1(hi) * 100;
	if (n >= 2)
		out->se_log = (hi - lo) / 2 /
			      kb_stats_t_quantile(1 - alpha / 2,
						  (double)(n - 1));
	out->min_p = n >= KB_COMPARE_MIN_PAIRS ? 0 : 1;
out:
	out->est_pct = out->change_pct;
	free(d);
	decide(out, o);
}

int kb_compare_futile(const struct kb_comparison *c, size_t n, size_t max)
{
	double t, z, crit, df_max, cp;

	if (n >= max || 2 * n < max || c->verdict != KB_VERDICT_INCONCLUSIVE ||
	    !(c->se_log > 0) || !isfinite(c->se_log) || isnan(c->est_pct))
		return 0;
	/* the information at this look against the last's */
	t = (double)n / (double)max;
	z = fabs(log1p(c->est_pct / 100)) / c->se_log;
	df_max = c->test == KB_COMPARE_WELCH_T ||
			 c->test == KB_COMPARE_MANN_WHITNEY
		 ? 2 * (double)max - 2
		 : (double)max - 1;
	crit = kb_stats_t_quantile(1 - c->alpha / 2, df_max);
	/* B(t) = z sqrt(t) and the drift it shows, B(t) / t: then
	 * B(1) ~ N(z / sqrt(t), 1 - t) */
	cp = kb_stats_normal_cdf((z / sqrt(t) - crit) / sqrt(1 - t));
	return cp < KB_COMPARE_FUTILITY;
}

char *kb_compare_detail(const struct kb_comparison *c)
{
	char looks[96] = "", bad[96] = "", left[64] = "", stop[64] = "";

	if (c->looks > 1)
		snprintf(looks, sizeof(looks),
			 "; one look of %u, at the level %.3g", c->looks,
			 c->alpha);
	if (c->nonpositive)
		snprintf(bad, sizeof(bad), "; %zu values <= 0: no interval",
			 c->nonpositive);
	if (c->futile)
		snprintf(stop, sizeof(stop), "; stopped for futility");
	if (!kb_compare_is_paired(c)) {
		if (c->npairs)
			snprintf(left, sizeof(left),
				 "; unpaired: %zu rounds in common, %d needed",
				 c->npairs, KB_COMPARE_MIN_PAIRS);
		else
			snprintf(left, sizeof(left),
				 "; unpaired: no rounds in common");
		return kb_asprintf("%s; boots are the replicates%s%s%s%s",
				   c->test == KB_COMPARE_MANN_WHITNEY
					   ? "exact Mann-Whitney on the values"
					   : "Welch t test of the change on the log scale and its interval",
				   left, looks, bad, stop);
	}
	if (c->unpaired)
		snprintf(left, sizeof(left), ", %zu boots unpaired left out",
			 c->unpaired);
	return kb_asprintf("paired within %zu rounds%s; %s%s%s%s",
			   c->npairs, left,
			   c->test == KB_COMPARE_SIGNED_RANK
				   ? "exact Wilcoxon signed-rank of the differences"
				   : "paired t test of the log ratios and its interval",
			   looks, bad, stop);
}

int kb_compare_is_paired(const struct kb_comparison *c)
{
	return c->test == KB_COMPARE_PAIRED_T ||
	       c->test == KB_COMPARE_SIGNED_RANK;
}

const char *kb_compare_test_name(enum kb_compare_test t)
{
	switch (t) {
	case KB_COMPARE_MANN_WHITNEY:
		return "mann-whitney-u";
	case KB_COMPARE_SIGNED_RANK:
		return "wilcoxon-signed-rank";
	case KB_COMPARE_PAIRED_T:
		return "paired-t";
	case KB_COMPARE_WELCH_T:
		return "welch-t";
	}
	return "?";
}

size_t kb_compare_looks(unsigned start, unsigned max, unsigned *n)
{
	size_t j, k;

	if (start < 1)
		start = 1;
	if (max <= start) {
		n[0] = start;
		return 1;
	}
	if (max - start + 1 <= KB_COMPARE_LOOKS_MAX) {
		k = max - start + 1;
		for (j = 0; j < k; j++)
			n[j] = start + (unsigned)j;
		return k;
	}
	k = KB_COMPARE_LOOKS_MAX;
	for (j = 0; j < k; j++)
		n[j] = start + (unsigned)(((double)(max - start) * (double)j) /
						  (double)(k - 1) +
					  0.5);
	return k;
}

double kb_compare_look_alpha(unsigned start, unsigned max, double alpha,
			     unsigned *looks)
{
	unsigned n[KB_COMPARE_LOOKS_MAX];
	double info[KB_COMPARE_LOOKS_MAX];
	size_t k = kb_compare_looks(start, max, n), j;

	for (j = 0; j < k; j++)
		info[j] = n[j];
	if (looks)
		*looks = (unsigned)k;
	return kb_stats_pocock_alpha(info, k, alpha);
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The levels calibrated last, per thread: a run of comparisons asks
 * for the same few again and again (60 ms each). */
#define CALIBRATED_KEEP 8
static _Thread_local struct {
	unsigned start, max;
	int two;
	double alpha, level;
} calibrated[CALIBRATED_KEEP];
static _Thread_local size_t calibrated_next;

/* A running mean and sum of squared deviations (Welford). */
struct running {
	double mean, m2;
};

static void running_add(struct running *r, double x, size_t i)
{
	double d = x - r->mean;

	r->mean += d / (double)(i + 1);
	r->m2 += d * (x - r->mean);
}

/* The two-sided p of one look at @i values (a side, @two: two sides):
 * the paired t of the one side's values, or Welch's t of the two;
 * 1 when it cannot be had. */
static double look_p(const struct running *r, size_t i, int two)
{
	double t, df, va, vb;

	if (i < 2)
		return 1;
	if (!two) {
		if (!(r[0].m2 > 0))
			return 1;
		t = r[0].mean / sqrt(r[0].m2 / (double)(i - 1) / (double)i);
		df = (double)(i - 1);
	} else {
		va = r[0].m2 / (double)(i - 1) / (double)i;
		vb = r[1].m2 / (double)(i - 1) / (double)i;
		if (!(va + vb > 0))
			return 1;
		t = (r[1].mean - r[0].mean) / sqrt(va + vb);
		df = (va + vb) * (va + vb) * (double)(i - 1) /
		     (va * va + vb * vb);
	}
	return 2 * kb_stats_t_cdf(-fabs(t), df);
}

/* kb_compare_look_alpha_paired() (@two 0) and _welch() (@two 1). */
static double calibrate(unsigned start, unsigned max, double alpha, int two,
			unsigned *looks)
{
	unsigned n[KB_COMPARE_LOOKS_MAX];
	size_t k = kb_compare_looks(start, max, n), j, i, s;
	double *minp, level;
	struct kb_rng r;

	if (looks)
		*looks = (unsigned)k;
	if (k == 1 || !(alpha > 0 && alpha < 1))
		return alpha;
	for (j = 0; j < CALIBRATED_KEEP; j++)
		if (calibrated[j].level > 0 && calibrated[j].start == start &&
		    calibrated[j].max == max && calibrated[j].two == two &&
		    calibrated[j].alpha == alpha)
			return calibrated[j].level;
	minp = kb_calloc(KB_COMPARE_CALIBRATION_DRAWS, sizeof(*minp));
	/* fixed: the same level always */
	kb_rng_init(&r, two ? 0x6b6277656c6368ull : 0x6b6269736563ull);
	for (s = 0; s < KB_COMPARE_CALIBRATION_DRAWS; s++) {
		struct running run[2] = { { 0, 0 }, { 0, 0 } };
		double best = 1, p;

		/* one null sequence, the test at each look */
		for (i = 0, j = 0; j < k; j++) {
			for (; i < n[j]; i++) {
				running_add(&run[0], kb_rng_normal(&r), i);
				if (two)
					running_add(&run[1], kb_rng_normal(&r),
						    i);
			}
			p = look_p(run, i, two);
			best = p < best ? p : best;
		}
		minp[s] = best;
	}
	qsort(minp, KB_COMPARE_CALIBRATION_DRAWS, sizeof(*minp), cmp_dbl);
	/* the level whose crossing at any look has chance @alpha */
	level = minp[(size_t)(alpha * KB_COMPARE_CALIBRATION_DRAWS)];
	free(minp);
	j = calibrated_next++ % CALIBRATED_KEEP;
	calibrated[j].start = start;
	calibrated[j].max = max;
	calibrated[j].two = two;
	calibrated[j].alpha = alpha;
	calibrated[j].level = level;
	return level;
}

double kb_compare_look_alpha_paired(unsigned start, unsigned max,
				    double alpha, unsigned *looks)
{
	return calibrate(start, max, alpha, 0, looks);
}

double kb_compare_look_alpha_welch(unsigned start, unsigned max,
				   double alpha, unsigned *looks)
{
	return calibrate(start, max, alpha, 1, looks);
}

void kb_compare_design(unsigned n, int paired, double alpha, double cv,
		       double threshold_pct, struct kb_compare_design *out)
{
	double sigma, se, df, h;

	out->can_decide = paired ? n >= KB_COMPARE_MIN_PAIRS : n >= 2;
	out->halfwidth_pct = out->min_change_pct = NAN;
	out->no_change = -1;
	if (!out->can_decide || !(cv >= 0) || !(alpha > 0 && alpha < 1))
		return;
	/* a boot's log value has sd sigma; a difference of two, or of
	 * two means of n, has twice its variance */
	sigma = sqrt(log1p(cv * cv));
	se = sigma * sqrt(2.0 / (double)n);
	df = paired ? (double)n - 1 : 2 * (double)n - 2;
	h = kb_stats_t_quantile(1 - alpha / 2, df) * se;
	out->halfwidth_pct = expm1(h) * 100;
	out->min_change_pct = out->halfwidth_pct > threshold_pct
				      ? out->halfwidth_pct
				      : threshold_pct;
	out->no_change = out->halfwidth_pct < threshold_pct;
}

const char *kb_verdict_name(enum kb_verdict v)
{
	switch (v) {
	case KB_VERDICT_NO_CHANGE:
		return "no-change";
	case KB_VERDICT_REGRESSION:
		return "regression";
	case KB_VERDICT_IMPROVEMENT:
		return "improvement";
	case KB_VERDICT_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}
