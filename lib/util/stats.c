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

/*
 * The exact two-sided p-value of a rank sum with ties: the @n pooled
 * observations carry the doubled average ranks @r2 (whole numbers), and
 * @obs2 is twice the observed rank sum of the sample of @na.  Under the
 * null hypothesis every choice of which @na observations form that sample
 * is equally likely; the number of choices with each doubled rank sum is
 * counted by dynamic programming over the observations (subset sums), and
 * p is the share of them at least as far from the mean na (n + 1) as the
 * observed one.  All the sums are whole numbers, so "at least as far" is
 * decided exactly.
 */
static double exact_tied_p(const long *r2, size_t n, size_t na, long obs2)
{
	long smax = 0, mid = (long)na * (long)(n + 1), dev, s;
	size_t i, k, w;
	double *c, total = 0, extreme = 0;

	for (i = 0; i < n; i++)
		smax += r2[i];
	w = (size_t)smax + 1;
	c = kb_calloc((na + 1) * w, sizeof(*c)); /* c[k * w + s] */
	c[0] = 1;
	smax = 0;
	for (i = 0; i < n; i++) {
		smax += r2[i];
		for (k = i + 1 < na ? i + 1 : na; k >= 1; k--)
			for (s = smax; s >= r2[i]; s--)
				c[k * w + (size_t)s] +=
					c[(k - 1) * w + (size_t)(s - r2[i])];
	}
	dev = labs(obs2 - mid);
	for (s = 0; s <= smax; s++) {
		double x = c[na * w + (size_t)s];

		total += x;
		if (labs(s - mid) >= dev)
			extreme += x;
	}
	free(c);
	return total > 0 ? extreme / total : NAN;
}

double kb_stats_mann_whitney(const double *a, size_t na, const double *b,
			     size_t nb, double *u_out)
{
	size_t n = na + nb, i, j;
	struct ranked *r;
	long *r2, obs2 = 0;
	double ra = 0, u, mu, tie = 0, sigma, z, p;
	int ties = 0;

	if (u_out)
		*u_out = NAN;
	if (!na || !nb)
		return NAN;
	r = kb_calloc(n, sizeof(*r));
	r2 = kb_calloc(n, sizeof(*r2));
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
		for (size_t k = i; k < j; k++) {
			r2[k] = (long)(i + 1 + j); /* twice the average rank */
			if (r[k].from_a) {
				ra += rank;
				obs2 += r2[k];
			}
		}
	}
	free(r);
	u = ra - (double)na * ((double)na + 1) / 2;
	if (u_out)
		*u_out = u;
	if (na <= KB_STATS_MW_EXACT_MAX && nb <= KB_STATS_MW_EXACT_MAX) {
		if (ties) {
			p = exact_tied_p(r2, n, na, obs2);
		} else {
			double lo = fmin(u, (double)(na * nb) - u);

			p = 2 * exact_u_cdf(na, nb, lo);
		}
		free(r2);
		return p > 1 ? 1 : p;
	}
	free(r2);
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

double kb_stats_mann_whitney_min_p(size_t na, size_t nb)
{
	double c = 1;
	size_t i, k = na < nb ? na : nb, n = na + nb;

	if (!na || !nb)
		return NAN;
	/* C(n, k), built up so that every partial product is whole */
	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c > 2 ? 2 / c : 1;
}

struct absrank {
	double a; /* |d| */
	int pos;  /* d > 0 */
};

static int cmp_absrank(const void *x, const void *y)
{
	const struct absrank *p = x, *q = y;

	return (p->a > q->a) - (p->a < q->a);
}

double kb_stats_signed_rank(const double *d, size_t n, double *v_out)
{
	struct absrank *r;
	long *r2, total = 0, obs2 = 0, dev, s;
	size_t m = 0, i, j, k;
	double vpos = 0, tie = 0, p, *c, all = 0, extreme = 0;

	if (v_out)
		*v_out = NAN;
	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		if (isnan(d[i]))
			return NAN;
	r = kb_calloc(n, sizeof(*r));
	r2 = kb_calloc(n, sizeof(*r2));
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			r[m++] = (struct absrank){ fabs(d[i]), d[i] > 0 };
	qsort(r, m, sizeof(*r), cmp_absrank);
	for (i = 0; i < m; i = j) {
		double t;

		for (j = i + 1; j < m && r[j].a == r[i].a; j++)
			;
		t = (double)(j - i);
		if (t > 1)
			tie += t * t * t - t;
		for (k = i; k < j; k++) {
			r2[k] = (long)(i + 1 + j); /* twice the average rank */
			total += r2[k];
			if (r[k].pos) {
				obs2 += r2[k];
				vpos += (double)r2[k] / 2;
			}
		}
	}
	free(r);
	if (v_out)
		*v_out = vpos;
	if (!m) {
		free(r2);
		return 1;
	}
	if (m > KB_STATS_SR_EXACT_MAX) {
		double mu = (double)m * ((double)m + 1) / 4;
		double sigma = sqrt((double)m * ((double)m + 1) *
					    (2 * (double)m + 1) / 24 -
				    tie / 48);
		double z;

		free(r2);
		if (!(sigma > 0))
			return 1;
		z = (fabs(vpos - mu) - 0.5) / sigma;
		if (z < 0)
			z = 0;
		p = 2 * (1 - kb_stats_normal_cdf(z));
		return p > 1 ? 1 : p;
	}
	/* c[s]: the signs whose positive doubled ranks sum to s */
	c = kb_calloc((size_t)total + 1, sizeof(*c));
	c[0] = 1;
	for (i = 0, s = 0; i < m; i++) {
		long x;

		s += r2[i];
		for (x = s; x >= r2[i]; x--)
			c[x] += c[x - r2[i]];
	}
	/* the mean of the sum is total / 2: compare doubled distances */
	dev = labs(2 * obs2 - total);
	for (s = 0; s <= total; s++) {
		all += c[s];
		if (labs(2 * s - total) >= dev)
			extreme += c[s];
	}
	free(c);
	free(r2);
	p = all > 0 ? extreme / all : NAN;
	return p > 1 ? 1 : p;
}

double kb_stats_signed_rank_min_p(size_t n)
{
	double p;

	if (!n)
		return NAN;
	p = 2 * ldexp(1, -(int)(n < 1000 ? n : 1000));
	return p > 1 ? 1 : p;
}

double kb_stats_paired_t(const double *d, size_t n, double level,
			 double *mean, double *lo, double *hi)
{
	double m, sd, se, q, t;

	*mean = *lo = *hi = NAN;
	if (!n)
		return NAN;
	m = kb_stats_mean(d, n);
	*mean = m;
	if (n < 2 || isnan(m))
		return NAN;
	sd = 0;
	for (size_t i = 0; i < n; i++)
		sd += (d[i] - m) * (d[i] - m);
	sd = sqrt(sd / (double)(n - 1));
	se = sd / sqrt((double)n);
	q = kb_stats_t_quantile(1 - (1 - level) / 2, (double)(n - 1));
	*lo = m - q * se;
	*hi = m + q * se;
	if (!(se > 0))
		return m == 0 ? 1 : 0;
	t = m / se;
	return 2 * kb_stats_t_cdf(-fabs(t), (double)(n - 1));
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

/*
 * Welch's test of mean(b) - mean(a) from two summaries of n >= 2 each:
 * the two-sided p-value, the interval at @level into *@lo, *@hi and the
 * standard error and Welch-Satterthwaite degrees of freedom.  No spread
 * on either side: the interval is the estimate, p 1 for equal means, else
 * 0, df n_a + n_b - 2.
 */
static double welch(const struct kb_summary *sa, const struct kb_summary *sb,
		    double level, double *lo, double *hi, double *se_out,
		    double *df_out)
{
	double d = sb->mean - sa->mean, va, vb, se, df, q, p;

	va = sa->stddev * sa->stddev / (double)sa->n;
	vb = sb->stddev * sb->stddev / (double)sb->n;
	se = sqrt(va + vb);
	if (se > 0) {
		/* Welch-Satterthwaite; a side without spread adds nothing */
		df = (va + vb) * (va + vb) /
		     ((va > 0 ? va * va / (double)(sa->n - 1) : 0) +
		      (vb > 0 ? vb * vb / (double)(sb->n - 1) : 0));
		q = kb_stats_t_quantile(1 - (1 - level) / 2, df);
		p = 2 * kb_stats_t_cdf(-fabs(d) / se, df);
	} else {
		/* no spread at all: the interval is the estimate */
		df = (double)(sa->n + sb->n - 2);
		q = 0;
		p = d == 0 ? 1 : 0;
	}
	*lo = d - q * se;
	*hi = d + q * se;
	*se_out = se;
	*df_out = df;
	return p;
}

double kb_stats_welch_test(const struct kb_summary *a,
			   const struct kb_summary *b, double level,
			   double *lo, double *hi)
{
	double se, df;

	*lo = *hi = NAN;
	if (a->n < 2 || b->n < 2 || !(level > 0 && level < 1) ||
	    !isfinite(a->mean) || !isfinite(b->mean) ||
	    !isfinite(a->stddev) || !isfinite(b->stddev))
		return NAN;
	return welch(a, b, level, lo, hi, &se, &df);
}

double kb_stats_log_ratio_test(const double *a, size_t na, const double *b,
			       size_t nb, double level, double *lo,
			       double *hi, double *se_out, double *df_out)
{
	struct kb_summary sa, sb;
	double *la, *lb, d, se, df, p, dlo, dhi;
	size_t i;

	*lo = *hi = NAN;
	if (se_out)
		*se_out = NAN;
	if (df_out)
		*df_out = NAN;
	if (na < 2 || nb < 2 || !(level > 0 && level < 1))
		return NAN;
	for (i = 0; i < na; i++)
		if (!(a[i] > 0) || !isfinite(a[i]))
			return NAN;
	for (i = 0; i < nb; i++)
		if (!(b[i] > 0) || !isfinite(b[i]))
			return NAN;
	la = kb_reallocarray(NULL, na, sizeof(*la));
	lb = kb_reallocarray(NULL, nb, sizeof(*lb));
	for (i = 0; i < na; i++)
		la[i] = log(a[i]);
	for (i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	kb_stats_summary(la, na, &sa);
	kb_stats_summary(lb, nb, &sb);
	free(la);
	free(lb);
	d = sb.mean - sa.mean;
	p = welch(&sa, &sb, level, &dlo, &dhi, &se, &df);
	(void)d;
	*lo = expm1(dlo) * 100;
	*hi = expm1(dhi) * 100;
	if (se_out)
		*se_out = se;
	if (df_out)
		*df_out = df;
	return p;
}

void kb_stats_log_ratio_ci(const double *a, size_t na, const double *b,
			   size_t nb, double level, double *lo, double *hi)
{
	kb_stats_log_ratio_test(a, na, b, nb, level, lo, hi, NULL, NULL);
}

/*
 * An odd number of evenly spaced points from -@b to @b, about 6 per
 * @scale (the narrowest feature of what is integrated over them), at
 * least 65 and at most 4001; *@x is the caller's to free.
 */
static size_t grid(double b, double scale, double **x)
{
	double want = ceil(12 * b / scale), h;
	size_t m, j;

	m = want < 64 ? 65 : want > 4000 ? 4001 : (size_t)want | 1;
	h = 2 * b / (double)(m - 1);
	*x = kb_reallocarray(NULL, m, sizeof(**x));
	for (j = 0; j < m; j++)
		(*x)[j] = -b + h * (double)j;
	return m;
}

/* Multiply the values @g at the @m grid points @x by Simpson's weights. */
static void simpson(const double *x, double *g, size_t m)
{
	double h = (x[m - 1] - x[0]) / (double)(m - 1);
	size_t j;

	for (j = 0; j < m; j++)
		g[j] *= h / 3 * (j == 0 || j == m - 1 ? 1 : j % 2 ? 4 : 2);
}

/*
 * The probability that a standardised statistic observed at information
 * levels @info[0..k) (a Brownian motion S(I) read as Z = S / sqrt(I), so
 * that Z at looks i < j has correlation sqrt(I_i / I_j)) ever reaches
 * |Z| >= @c.  Computed look by look (Armitage, McPherson and Rowe 1969;
 * Jennison and Turnbull 2000, chapter 19): the sub-density of S on the
 * continuation interval (-c sqrt(I), c sqrt(I)) is kept on a grid and
 * carried to the next look by the normal kernel of the increment, with
 * Simpson's rule on a grid fine enough for that kernel.
 */
static double crossing_probability(const double *info, size_t k, double c)
{
	double *x = NULL, *g = NULL, cross = 2 * kb_stats_normal_cdf(-c);
	size_t i, j, q, m = 0;

	for (i = 0; i + 1 < k; i++) {
		double sd = sqrt(info[i + 1] - info[i]);
		double b1 = c * sqrt(info[i + 1]), *nx, *ng;
		size_t nm;

		if (i == 0) {
			/* S at the first look is N(0, I_1) */
			double v = info[0];

			m = grid(c * sqrt(v), fmin(sqrt(v), sd), &x);
			g = kb_reallocarray(NULL, m, sizeof(*g));
			for (j = 0; j < m; j++)
				g[j] = exp(-x[j] * x[j] / (2 * v)) /
				       sqrt(2 * PI * v);
			simpson(x, g, m);
		}
		/* the paths that leave at look i + 1 */
		for (j = 0; j < m; j++)
			cross += g[j] * (kb_stats_normal_cdf((-b1 - x[j]) / sd) +
					 kb_stats_normal_cdf((x[j] - b1) / sd));
		if (i + 2 == k)
			break;
		/* the sub-density of those that stay, on the next grid */
		nm = grid(b1, fmin(sd, sqrt(info[i + 2] - info[i + 1])), &nx);
		ng = kb_calloc(nm, sizeof(*ng));
		for (q = 0; q < nm; q++) {
			for (j = 0; j < m; j++) {
				double z = (nx[q] - x[j]) / sd;

				if (z > -40 && z < 40)
					ng[q] += g[j] * exp(-z * z / 2);
			}
			ng[q] /= sd * sqrt(2 * PI);
		}
		simpson(nx, ng, nm);
		free(x);
		free(g);
		x = nx;
		g = ng;
		m = nm;
	}
	free(x);
	free(g);
	return cross;
}

double kb_stats_pocock_alpha(const double *info, size_t k, double alpha)
{
	double lo, hi, mid;
	size_t i;
	int it;

	if (!(alpha > 0 && alpha < 1) || k == 0)
		return NAN;
	for (i = 0; i < k; i++)
		if (!(info[i] > 0) || (i && !(info[i] > info[i - 1])))
			return NAN;
	if (k == 1)
		return alpha;
	/* the constant lies between the single test's and Bonferroni's */
	lo = -normal_quantile(alpha / 2);
	hi = -normal_quantile(alpha / 2 / (double)k);
	for (it = 0; it < 60 && hi - lo > 1e-7; it++) {
		mid = (lo + hi) / 2;
		if (crossing_probability(info, k, mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return 2 * kb_stats_normal_cdf(-hi);
}

struct ranked_p {
	double p;
	size_t i;
};

static int cmp_ranked_p(const void *x, const void *y)
{
	const struct ranked_p *a = x, *b = y;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

void kb_stats_p_adjust(const double *p, size_t n, enum kb_p_adjust how,
		       double *out)
{
	struct ranked_p *r = kb_calloc(n ? n : 1, sizeof(*r));
	size_t i, m = 0;
	double run;

	for (i = 0; i < n; i++) {
		double v = p[i]; /* before out[i], which may be p[i] */

		out[i] = NAN;
		if (!isnan(v))
			r[m++] = (struct ranked_p){ fmin(fmax(v, 0), 1), i };
	}
	qsort(r, m, sizeof(*r), cmp_ranked_p);
	if (how == KB_P_ADJUST_HOLM) {
		/* step down: (m - j) p_(j), made monotone upwards */
		for (i = 0, run = 0; i < m; i++) {
			run = fmax(run, fmin(1, (double)(m - i) * r[i].p));
			out[r[i].i] = run;
		}
	} else {
		/* step up: m / (j + 1) p_(j), made monotone downwards */
		for (i = m, run = 1; i-- > 0;) {
			run = fmin(run, fmin(1, (double)m / (double)(i + 1) *
							r[i].p));
			out[r[i].i] = run;
		}
	}
	free(r);
}
