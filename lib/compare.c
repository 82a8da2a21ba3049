#include "compare.h"

#include <math.h>
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

/* The verdict of @out by the rules of compare.h, at out->alpha. */
static void decide(struct kb_comparison *out, const struct kb_compare_opts *o)
{
	double t = o->threshold_pct, alpha = out->alpha;
	int worse;

	out->verdict = KB_VERDICT_INCONCLUSIVE;
	if (isnan(out->change_pct) || isnan(out->p))
		return;
	if (out->p < alpha && fabs(out->change_pct) >= t) {
		worse = (out->change_pct < 0) == (o->higher_is_better != 0);
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

/* The standard error of the difference of the mean logs of @a and @b,
 * NaN when a side has fewer than 2 values or one is not positive. */
static double welch_se_log(const double *a, size_t na, const double *b,
			   size_t nb)
{
	double v[2] = { 0, 0 };
	const double *x[2] = { a, b };
	size_t n[2] = { na, nb }, k, i;

	for (k = 0; k < 2; k++) {
		double m = 0;

		if (n[k] < 2)
			return NAN;
		for (i = 0; i < n[k]; i++) {
			if (!(x[k][i] > 0))
				return NAN;
			m += log(x[k][i]);
		}
		m /= (double)n[k];
		for (i = 0; i < n[k]; i++)
			v[k] += (log(x[k][i]) - m) * (log(x[k][i]) - m);
		v[k] /= (double)(n[k] - 1) * (double)n[k];
	}
	return sqrt(v[0] + v[1]);
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
	kb_stats_log_ratio_ci(a, na, b, nb, 1 - alpha, &out->ci_low,
			      &out->ci_high);
	out->test = KB_COMPARE_MANN_WHITNEY;
	out->p = kb_stats_mann_whitney(a, na, b, nb, NULL);
	out->min_p = kb_stats_mann_whitney_min_p(na, nb);
	out->se_log = welch_se_log(a, na, b, nb);
	out->df = na + nb >= 2 ? (double)(na + nb - 2) : NAN;
	decide(out, o);
}

void kb_compare_paired(const double *a, const double *b, const double *adj,
		       size_t n, const struct kb_compare_opts *o,
		       struct kb_comparison *out)
{
	double alpha, *d = kb_calloc(n ? n : 1, sizeof(*d)), mean, lo, hi;
	double p_t;
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
	p_t = kb_stats_paired_t(d, n, 1 - alpha, &mean, &lo, &hi);
	/* fewer pairs than KB_COMPARE_MIN_PAIRS: an interval, no test */
	if (n < KB_COMPARE_MIN_PAIRS)
		p_t = NAN;
	out->change_pct = expm1(mean) * 100;
	out->ci_low = expm1(lo) * 100;
	out->ci_high = expm1(hi) * 100;
	if (n >= 2)
		out->se_log = (hi - lo) / 2 /
			      kb_stats_t_quantile(1 - alpha / 2,
						  (double)(n - 1));
	out->min_p = kb_stats_signed_rank_min_p(n);
	if (out->min_p < alpha && out->looks <= 1) {
		out->p = kb_stats_signed_rank(d, n, NULL);
	} else {
		/* the signed-rank could not reach alpha with so few
		 * pairs, or this is one look of a sequential test, whose
		 * boundary is a normal statistic's: the t test, which has
		 * no floor, decides */
		out->test = KB_COMPARE_PAIRED_T;
		out->p = p_t;
		out->min_p = n >= KB_COMPARE_MIN_PAIRS ? 0 : 1;
	}
out:
	free(d);
	decide(out, o);
}

int kb_compare_futile(const struct kb_comparison *c, size_t n, size_t max)
{
	double t, z, crit, df_max, cp;

	if (n >= max || 2 * n < max || c->verdict != KB_VERDICT_INCONCLUSIVE ||
	    !(c->se_log > 0) || !isfinite(c->se_log) || isnan(c->change_pct))
		return 0;
	/* the information at this look against the last's */
	t = (double)n / (double)max;
	z = fabs(log1p(c->change_pct / 100)) / c->se_log;
	df_max = c->test == KB_COMPARE_MANN_WHITNEY ? 2 * (double)max - 2
						     : (double)max - 1;
	crit = kb_stats_t_quantile(1 - c->alpha / 2, df_max);
	/* B(t) = z sqrt(t) and the drift it shows, B(t) / t: then
	 * B(1) ~ N(z / sqrt(t), 1 - t) */
	cp = kb_stats_normal_cdf((z / sqrt(t) - crit) / sqrt(1 - t));
	return cp < KB_COMPARE_FUTILITY;
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
	double alpha, level;
} calibrated[CALIBRATED_KEEP];
static _Thread_local size_t calibrated_next;

double kb_compare_look_alpha_paired(unsigned start, unsigned max,
				    double alpha, unsigned *looks)
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
		    calibrated[j].max == max && calibrated[j].alpha == alpha)
			return calibrated[j].level;
	minp = kb_calloc(KB_COMPARE_CALIBRATION_DRAWS, sizeof(*minp));
	kb_rng_init(&r, 0x6b6269736563ull); /* fixed: the same level always */
	for (s = 0; s < KB_COMPARE_CALIBRATION_DRAWS; s++) {
		double mean = 0, m2 = 0, best = 1;

		/* one null sequence of log ratios, the t test at each look
		 * (Welford's running mean and sum of squares) */
		for (i = 0, j = 0; j < k; j++) {
			for (; i < n[j]; i++) {
				double x = kb_rng_normal(&r), d = x - mean;

				mean += d / (double)(i + 1);
				m2 += d * (x - mean);
			}
			if (i >= 2 && m2 > 0) {
				double t = mean / sqrt(m2 / (double)(i - 1) /
						       (double)i);
				double p = 2 * kb_stats_t_cdf(-fabs(t),
							      (double)(i - 1));

				best = p < best ? p : best;
			}
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
	calibrated[j].alpha = alpha;
	calibrated[j].level = level;
	return level;
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
