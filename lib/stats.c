#include "stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "rng.h"
#include "banned.h"

#define PI 3.14159265358979323846
#define SQRT2 1.41421356237309504880
#define LOG_SQRT_PI 0.57236494292470008707 /* log(sqrt(pi)) = lgamma(0.5) */

/*
 * Above DF_SERIES degrees of freedom, and for t² below df / 1000, the t
 * distribution comes from the Cornish-Fisher expansion around the normal
 * (see t_series()), whose first omitted term is below 1e-15 there.  The
 * continued fraction would need O(sqrt(df)) terms and lose precision.
 */
#define DF_SERIES 1e4
#define SERIES_OK(t, df) ((df) > DF_SERIES && (t) * (t) < (df) / 1000)

#define CF_EPS 1e-16
#define CF_TINY 1e-300
#define CF_MAXIT 1000000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int any_nan(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(x[i]))
			return 1;
	return 0;
}

double kb_stats_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* The median of @n sorted values. */
static double sorted_median(const double *s, size_t n)
{
	if (n % 2)
		return s[n / 2];
	/* halve first so that two huge values do not overflow */
	return s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

double kb_stats_median(const double *x, size_t n)
{
	double *s = NULL, m;

	if (n == 0 || any_nan(x, n))
		return NAN;
	s = kb_reallocarray(NULL, n, sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = sorted_median(s, n);
	free(s);
	return m;
}

double kb_stats_change_pct(double base, double value)
{
	if (base == 0)
		return NAN;
	return (value / base - 1) * 100;
}

void kb_stats_summary(const double *x, size_t n, struct kb_summary *out)
{
	double dev = 0, sq = 0, half;
	size_t i;

	out->n = n;
	out->mean = out->median = out->stddev = out->cv = NAN;
	out->ci_low = out->ci_high = out->min = out->max = NAN;
	if (n == 0 || any_nan(x, n))
		return;

	out->mean = kb_stats_mean(x, n);
	out->median = kb_stats_median(x, n);
	out->min = out->max = x[0];
	for (i = 0; i < n; i++) {
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	if (n < 2)
		return;

	/* two passes, with the first pass's rounding error taken out */
	for (i = 0; i < n; i++) {
		dev += x[i] - out->mean;
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	}
	out->stddev = sqrt(fmax(0, (sq - dev * dev / (double)n) /
				       (double)(n - 1)));
	if (out->mean != 0)
		out->cv = out->stddev / out->mean;
	half = kb_stats_t_quantile(0.975, (double)(n - 1)) * out->stddev /
	       sqrt((double)n);
	out->ci_low = out->mean - half;
	out->ci_high = out->mean + half;
}

/*
 * The standard normal quantile: Acklam's rational approximation (relative
 * error 1.15e-9), polished by Halley steps on erfc to full precision.
 */
static double normal_quantile(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00,
	};
	static const double b[] = {
		-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01,
	};
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00, 2.938163982698783e+00,
	};
	static const double d[] = {
		7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00,
	};
	double q, r, z;
	int i;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.02425 || p > 1 - 0.02425) {
		q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
		z = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			     q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		if (p > 0.5)
			z = -z;
	} else {
		q = p - 0.5;
		r = q * q;
		z = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
			     r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
			     r + 1);
	}
	for (i = 0; i < 3; i++) {
		/* Halley on Phi(z) - p, computed where it keeps precision */
		double e, pdf, u;

		pdf = exp(-z * z / 2) / sqrt(2 * PI);
		if (pdf == 0 || !isfinite(pdf))
			break;
		if (p > 0.25 && p < 0.75) /* p - 0.5 is exact here */
			e = erf(z / SQRT2) / 2 - (p - 0.5);
		else if (z < 0)
			e = erfc(-z / SQRT2) / 2 - p;
		else
			e = (1 - p) - erfc(z / SQRT2) / 2;
		u = e / pdf;
		z -= u / (1 + z * u / 2);
	}
	return z;
}

/*
 * log B(a, 1/2).  The asymptotic series of log Γ(a+½) - log Γ(a)
 * (from log Γ's Stirling series, Bernoulli polynomials at ½) is used
 * for a >= 20, where its first omitted term is below 1e-16; smaller a are
 * shifted up with B(a, ½) = B(a+1, ½) (a + ½) / a.  Unlike lgamma(), this
 * keeps its precision for large a and touches no global state.
 */
static double log_beta_half(double a)
{
	double shift = 0, r, r2, s;

	while (a < 20) {
		shift += log1p(0.5 / a);
		a += 1;
	}
	r = 1 / a;
	r2 = r * r;
	s = r * (-1.0 / 8 +
		 r2 * (1.0 / 192 +
		       r2 * (-1.0 / 640 +
			     r2 * (17.0 / 14336 + r2 * (-31.0 / 18432)))));
	return shift + LOG_SQRT_PI - (0.5 * log(a) + s);
}

/*
 * The continued fraction of the incomplete beta function I_x(a, b)
 * (DLMF 8.17.22), evaluated by the modified Lentz method.  It converges
 * fast for x < (a + 1) / (a + b + 2).
 */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d, h, del, t;
	long m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= CF_MAXIT; m++) {
		/* the even step d_2m, then the odd step d_2m+1 */
		t = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + t * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + t / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		h *= d * c;
		t = -(a + m) * (a + b + m) * x /
		    ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + t * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1 + t / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return h;
}

/*
 * For s >= 0 and T ~ t(df): *tail = P(|T| > s) and *centre = P(|T| < s),
 * each to full relative precision.  With w = s / sqrt(df),
 * P(|T| > s) = I_x(df/2, 1/2) with x = 1 / (1 + w²) and y = 1 - x given
 * separately (with their logarithms) so that neither is lost to rounding.
 */
static void t_two_sided(double s, double df, double *tail, double *centre)
{
	double a = df / 2, b = 0.5, w, lw, l1, lx, ly, x, front;

	w = s / sqrt(df);
	if (!(w > 0) || !(w < INFINITY)) {
		*tail = w > 0 ? 0 : 1;
		*centre = 1 - *tail;
		return;
	}
	lw = log(w);
	l1 = w > 1e100 ? 2 * lw : log1p(w * w); /* log(1 + w²) */
	lx = -l1;
	ly = 2 * lw - l1;
	x = exp(lx);
	front = exp(a * lx + b * ly - log_beta_half(a));
	if (x < (a + 1) / (a + b + 2)) {
		*tail = front * beta_cf(a, b, x) / a;
		*centre = 1 - *tail;
	} else {
		*centre = front * beta_cf(b, a, exp(ly)) / b;
		*tail = 1 - *centre;
	}
}

/* The t density at s. */
static double t_pdf(double s, double df)
{
	double w = fabs(s) / sqrt(df);
	double l1 = w > 1e100 ? 2 * log(w) : log1p(w * w);

	return exp(-0.5 * log(df) - log_beta_half(df / 2) -
		   (df + 1) / 2 * l1);
}

/*
 * The Cornish-Fisher expansion of the t quantile in powers of 1/df
 * around the normal quantile z (Abramowitz & Stegun 26.7.5).
 */
static double t_series(double z, double df)
{
	double z2 = z * z;
	double g1 = (z2 + 1) * z / 4;
	double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) *
		    z / 92160;

	return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
}

double kb_stats_t_cdf(double t, double df)
{
	double tail, centre, z;
	int i;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0;
	if (SERIES_OK(t, df)) {
		/* invert the expansion: its slope is 1 + O(t² / df) */
		z = t;
		for (i = 0; i < 6; i++)
			z -= t_series(z, df) - t;
		return erfc(-z / SQRT2) / 2;
	}
	t_two_sided(fabs(t), df, &tail, &centre);
	return t < 0 ? tail / 2 : 1 - tail / 2;
}

/*
 * Find s > 0 with P(|T| > s) = @target (@tail set) or P(|T| < s) = @target,
 * starting from @guess.  Newton's method on u = log s and the logarithm of
 * the probability, which is nearly linear in u both in the tails (a power
 * law) and near 0, safeguarded by a bracket that is widened until it holds
 * the root and bisected whenever a step leaves it.
 */
static double solve_abs_t(double target, int tail, double df, double guess)
{
	double lt = log(target), lo = -INFINITY, hi = INFINITY, u, widen = 1;
	int i;

	u = guess > 0 && isfinite(guess) ? log(guess) : 0;
	for (i = 0; i < 400; i++) {
		double s = exp(u), pt, pc, v, g, slope, next;

		if (u > log(DBL_MAX))
			return INFINITY;
		t_two_sided(s, df, &pt, &pc);
		v = tail ? pt : pc;
		/* g rises with u: below the root it is negative */
		g = tail ? lt - log(v) : log(v) - lt;
		if (g == 0)
			return s;
		if (g > 0)
			hi = u;
		else
			lo = u;
		slope = 2 * t_pdf(s, df) * s / v;
		next = u - g / slope;
		if (!(next > lo && next < hi)) {
			if (isinf(hi)) {
				next = u + widen;
				widen *= 2;
			} else if (isinf(lo)) {
				next = u - widen;
				widen *= 2;
			} else {
				next = (lo + hi) / 2;
			}
		}
		if (fabs(next - u) <= 4 * DBL_EPSILON * fmax(1, fabs(u)))
			return exp(next);
		u = next;
	}
	return exp(u);
}

double kb_stats_t_quantile(double p, double df)
{
	double lower, z, s;

	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;

	/* work on the lower tail; 1 - p is exact for p >= 0.5 */
	lower = p < 0.5 ? p : 1 - p;
	z = normal_quantile(lower);
	if (SERIES_OK(z, df)) {
		s = -t_series(z, df);
	} else if (lower <= 0.25) {
		/* P(|T| > s) = 2 lower: the tail keeps its precision */
		s = solve_abs_t(2 * lower, 1, df, -t_series(z, df));
	} else {
		/* P(|T| < s) = 1 - 2 lower, exact here, however small */
		s = solve_abs_t(1 - 2 * lower, 0, df, -t_series(z, df));
	}
	return p < 0.5 ? -s : s;
}

double kb_stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* Ranks of the pooled sample (1-based, ties get their average rank). */
struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *p = x, *q = y;

	return (p->v > q->v) - (p->v < q->v);
}

/*
 * P(U <= u) for samples of m and n values without ties: the number of
 * arrangements with U = k is counted by the recurrence
 * c(m, n, k) = c(m - 1, n, k - n) + c(m, n - 1, k).
 */
static double exact_u_cdf(size_t m, size_t n, double u)
{
	size_t umax = m * n, i, j, k;
	double *prev, *cur, total = 0, below = 0;

	/* rows over n: f[j][k] for the current m */
	prev = kb_calloc((n + 1) * (umax + 1), sizeof(*prev));
	cur = kb_calloc((n + 1) * (umax + 1), sizeof(*cur));
	for (j = 0; j <= n; j++)
		prev[j * (umax + 1)] = 1; /* m = 0: one way, U = 0 */
	for (i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * (umax + 1) * sizeof(*cur));
		cur[0] = 1; /* n = 0 */
		for (j = 1; j <= n; j++)
			for (k = 0; k <= i * j; k++)
				cur[j * (umax + 1) + k] =
					(k >= j ? prev[j * (umax + 1) + k - j]
						: 0) +
					cur[(j - 1) * (umax + 1) + k];
		double *swap = prev;

		prev = cur;
		cur = swap;
	}
	for (k = 0; k <= umax; k++) {
		double c = prev[n * (umax + 1) + k];

		total += c;
		if ((double)k <= u + 1e-9)
			below += c;
	}
	free(prev);
	free(cur);
	return below / total;
}

double kb_stats_mann_whitney(const double *a, size_t na, const double *b,
			     size_t nb, double *u_out)
{
	size_t n = na + nb, i, j;
	struct ranked *r;
	double ra = 0, u, mu, tie = 0, sigma, z, p;
	int ties = 0;

	if (u_out)
		*u_out = NAN;
	if (!na || !nb)
		return NAN;
	r = kb_calloc(n, sizeof(*r));
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 1 };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 0 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		rank = ((double)i + 1 + (double)j) / 2; /* mean of i+1..j */
		t = (double)(j - i);
		if (t > 1) {
			ties = 1;
			tie += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (r[k].from_a)
				ra += rank;
	}
	free(r);
	u = ra - (double)na * ((double)na + 1) / 2;
	if (u_out)
		*u_out = u;
	if (!ties && na <= 50 && nb <= 50) {
		double lo = fmin(u, (double)(na * nb) - u);

		p = 2 * exact_u_cdf(na, nb, lo);
		return p > 1 ? 1 : p;
	}
	mu = (double)na * (double)nb / 2;
	sigma = sqrt((double)na * (double)nb / 12 *
		     (((double)n + 1) - tie / ((double)n * ((double)n - 1))));
	if (sigma == 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	p = 2 * (1 - kb_stats_normal_cdf(z));
	return p > 1 ? 1 : p;
}

void kb_stats_bootstrap_change(const double *a, size_t na, const double *b,
			       size_t nb, unsigned reps, uint64_t seed,
			       double level, double *lo, double *hi)
{
	struct kb_rng rng;
	double *stat;
	unsigned i;
	size_t k, ilo, ihi;

	*lo = *hi = NAN;
	if (!na || !nb || !reps)
		return;
	kb_rng_init(&rng, seed);
	stat = kb_calloc(reps, sizeof(*stat));
	for (i = 0; i < reps; i++) {
		double sa = 0, sb = 0;

		for (k = 0; k < na; k++)
			sa += a[kb_rng_below(&rng, na)];
		for (k = 0; k < nb; k++)
			sb += b[kb_rng_below(&rng, nb)];
		stat[i] = ((sb / (double)nb) / (sa / (double)na) - 1) * 100;
	}
	qsort(stat, reps, sizeof(*stat), cmp_double);
	ilo = (size_t)floor((1 - level) / 2 * (reps - 1) + 0.5);
	ihi = (size_t)floor((1 - (1 - level) / 2) * (reps - 1) + 0.5);
	*lo = stat[ilo];
	*hi = stat[ihi];
	free(stat);
}
