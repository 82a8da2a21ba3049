#include "effects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "effects_int.h"
#include "err.h"
#include "mem.h"
#include "stats.h"
#include "banned.h"

/* The ±1 column of factor f (or the product of f1, f2) over the runs. */
static void column(const struct kb_design *d, size_t f1, size_t f2,
		   int interaction, int *col)
{
	size_t r, n = kb_design_nruns(d);

	for (r = 0; r < n; r++) {
		int s = kb_design_level(d, r, f1) ? 1 : -1;

		if (interaction)
			s *= kb_design_level(d, r, f2) ? 1 : -1;
		col[r] = s;
	}
}

/* Same column (1), the opposite one (-1), or neither (0)? */
static int aliased(const int *x, const int *y, size_t n)
{
	size_t r;
	int same = 1, opposite = 1;

	for (r = 0; r < n; r++) {
		same &= x[r] == y[r];
		opposite &= x[r] == -y[r];
	}
	return same ? 1 : opposite ? -1 : 0;
}

/* Add @name, opposite or not, to @e's aliases; "..." when full. */
static void add_alias_name(struct kb_effect *e, int sign, const char *n1,
			   const char *n2)
{
	size_t len = strlen(e->aliases), size = sizeof(e->aliases);
	int w;

	if (len >= 3 && !strcmp(e->aliases + len - 3, "..."))
		return;
	w = snprintf(e->aliases + len, size - len, "%s%s%s%s%s",
		     len ? ", " : "", sign < 0 ? "-" : "", n1, n2 ? ":" : "",
		     n2 ? n2 : "");
	if (w < 0 || (size_t)w >= size - len)
		memcpy(e->aliases + size - 4, "...", 4);
}

/* ---- host blocks -------------------------------------------------------- */

/*
 * The log per-boot values fitted with an additive block per host (a
 * two-way layout without interaction, unbalanced in general):
 *
 *     log y = mu[variant] + h[host] + e,   h[0] = 0
 *
 * by least squares.  The variants are absorbed: the host effects solve
 * the reduced normal equations A h = b of H - 1 unknowns, with
 *
 *     A[j][k] = n_j [j = k] - sum_v n_vj n_vk / n_v
 *     b[j]    = S_j - sum_v n_vj ybar_v
 *
 * (n_vj the boots of variant v on host j, S_j the sum of host j's
 * values), and mu[v] = ybar_v - sum_j p_vj h[j] with p_vj = n_vj / n_v.
 * ybar_v and the host effects are uncorrelated, so a contrast c of the
 * mu has variance s^2 (sum c_v^2 / n_v + w' A^-1 w), w_j = sum_v c_v p_vj.
 * s^2 is the residual variance, with N - variants - (H - 1) degrees of
 * freedom.  With every variant's boots spread alike over the hosts (the
 * spread's, lib/spread.h), w is 0 and the contrasts are those of the
 * plain cell means; only the variance loses the hosts' differences.
 */
struct hostfit {
	size_t nh, nv;         /* blocks; variants */
	const char **host;     /* names, in the matrix's order (borrowed
				* from @label or the analysis) */
	char ***label;         /* by round: [v][i] the block of each boot,
				* "HOST#ROUND" (owned); NULL: by host */
	size_t *hn;            /* boots per host */
	double *hsum;          /* sum of the (plain) values per host */
	size_t *vn;            /* boots per variant */
	double *p;             /* [v * nh + j]: n_vj / n_v */
	double *ainv;          /* (nh - 1)^2: the inverse of A */
	double *h;             /* host effects, h[0] = 0 */
	double *mu;            /* variant cells, adjusted for the hosts */
	double var, df;
};

static void hostfit_free(struct hostfit *f)
{
	size_t v, i;

	if (!f)
		return;
	for (v = 0; f->label && v < f->nv; v++) {
		for (i = 0; f->label[v] && f->label[v][i]; i++)
			free(f->label[v][i]);
		free(f->label[v]);
	}
	free(f->label);
	free(f->host);
	free(f->hn);
	free(f->hsum);
	free(f->vn);
	free(f->p);
	free(f->ainv);
	free(f->h);
	free(f->mu);
	free(f);
}

/* The index of host @name in @f (added when new); NULL is "?" */
static size_t host_index(struct hostfit *f, const char *name, size_t cap)
{
	size_t j;

	if (!name)
		name = "?";
	for (j = 0; j < f->nh; j++)
		if (!strcmp(f->host[j], name))
			return j;
	if (f->nh == cap)
		return cap; /* cannot happen: cap counts every boot */
	f->host[f->nh] = name;
	return f->nh++;
}

/* Invert the @n x @n matrix @a in place (Gauss-Jordan, partial
 * pivoting); -1 when it is singular. */
static int invert(double *a, size_t n)
{
	double *inv = kb_calloc(n * n + 1, sizeof(*inv)), scale = 0;
	size_t i, j, k;
	int ret = 0;

	for (i = 0; i < n; i++) {
		inv[i * n + i] = 1;
		for (j = 0; j < n; j++)
			if (fabs(a[i * n + j]) > scale)
				scale = fabs(a[i * n + j]);
	}
	for (i = 0; i < n && !ret; i++) {
		size_t piv = i;
		double d;

		for (k = i + 1; k < n; k++)
			if (fabs(a[k * n + i]) > fabs(a[piv * n + i]))
				piv = k;
		if (!(fabs(a[piv * n + i]) > 1e-9 * scale)) {
			ret = -1;
			break;
		}
		for (j = 0; j < n && piv != i; j++) {
			double t = a[i * n + j];

			a[i * n + j] = a[piv * n + j];
			a[piv * n + j] = t;
			t = inv[i * n + j];
			inv[i * n + j] = inv[piv * n + j];
			inv[piv * n + j] = t;
		}
		d = a[i * n + i];
		for (j = 0; j < n; j++) {
			a[i * n + j] /= d;
			inv[i * n + j] /= d;
		}
		for (k = 0; k < n; k++) {
			double m = a[k * n + i];

			if (k == i || m == 0)
				continue;
			for (j = 0; j < n; j++) {
				a[k * n + j] -= m * a[i * n + j];
				inv[k * n + j] -= m * inv[i * n + j];
			}
		}
	}
	if (!ret)
		memcpy(a, inv, n * n * sizeof(*a));
	free(inv);
	return ret;
}

/*
 * The block labels of @a's boots by host and round into f->label: a
 * boot of round r on host H is in block "H#r" (in blocks every round is
 * one host's: the block is host x round); a boot of no round is in its
 * host's block.  None (f->label NULL) when no boot has a round.
 */
static void round_labels(const struct kb_analysis *a, struct hostfit *f,
			 size_t nv)
{
	size_t v, i, k, kr;

	if (!kb_analysis_nrounds(a))
		return;
	f->label = kb_calloc(nv + 1, sizeof(*f->label));
	for (v = 0; v < nv; v++) {
		const char *const *hs = kb_analysis_hosts(a, (unsigned)v, &k);
		const unsigned *rs = kb_analysis_rounds(a, (unsigned)v, &kr);

		f->label[v] = kb_calloc(k + 1, sizeof(**f->label));
		for (i = 0; i < k; i++) {
			const char *h = hs && hs[i] ? hs[i] : "?";

			f->label[v][i] = rs && i < kr && rs[i]
						 ? kb_asprintf("%s#%u", h, rs[i])
						 : kb_strdup(h);
		}
	}
}

/* The block of boot @i of variant @v: its label, or its host. */
static const char *block_of(const struct kb_analysis *a,
			    const struct hostfit *f, size_t v, size_t i)
{
	const char *const *hs;
	size_t k;

	if (f->label)
		return f->label[v][i];
	hs = kb_analysis_hosts(a, (unsigned)v, &k);
	return hs ? hs[i] : NULL;
}

/*
 * Fit @a's positive per-boot values with host blocks into *@out, or with
 * @by_round with host x round blocks (the run order's, lib/order.h):
 * NULL (and 0) when they ran in one block.  KB_EINPUT when the blocks
 * cannot be told from the variants (each ran a set of variants no other
 * block ran).
 */
static int hostfit(const struct kb_analysis *a, int by_round,
		   struct hostfit **out, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	size_t nv = kb_plan_nvariants(kb_analysis_plan(a)), v, i, j, k, q;
	size_t total = 0, nh, used = 0, cap;
	struct hostfit *f = kb_calloc(1, sizeof(*f));
	double *vsum, *b, sse = 0;
	unsigned *nvj;
	int ret = 0;

	*out = NULL;
	for (v = 0; v < nv; v++) {
		size_t n;

		kb_analysis_values(a, (unsigned)v, &n);
		total += n;
	}
	cap = total + kb_matrix_nhosts(m) + 1;
	f->host = kb_calloc(cap, sizeof(*f->host));
	f->nv = nv;
	if (by_round)
		round_labels(a, f, nv);
	/* the hosts boots ran on, the matrix's first in its order (the
	 * first of them is the one the others are compared with), then
	 * any other */
	for (j = 0; !f->label && j < kb_matrix_nhosts(m); j++) {
		const char *uri = kb_matrix_host(m, j)->uri;
		int ran = 0;

		for (v = 0; v < nv && !ran; v++) {
			const char *const *hs = kb_analysis_hosts(a, (unsigned)v,
								  &k);
			const double *y = kb_analysis_values(a, (unsigned)v, &k);

			for (i = 0; hs && i < k && !ran; i++)
				ran = y[i] > 0 && hs[i] && !strcmp(hs[i], uri);
		}
		if (ran)
			host_index(f, uri, cap);
	}
	for (v = 0; v < nv; v++) {
		const double *y = kb_analysis_values(a, (unsigned)v, &k);

		for (i = 0; i < k; i++)
			if (y[i] > 0)
				host_index(f, block_of(a, f, v, i), cap);
	}
	nh = f->nh;
	if (nh < 2) {
		hostfit_free(f);
		return 0;
	}
	f->hn = kb_calloc(nh, sizeof(*f->hn));
	f->hsum = kb_calloc(nh, sizeof(*f->hsum));
	f->vn = kb_calloc(nv + 1, sizeof(*f->vn));
	f->p = kb_calloc(nv * nh + 1, sizeof(*f->p));
	f->ainv = kb_calloc((nh - 1) * (nh - 1) + 1, sizeof(*f->ainv));
	f->h = kb_calloc(nh, sizeof(*f->h));
	f->mu = kb_calloc(nv + 1, sizeof(*f->mu));
	vsum = kb_calloc(nv + 1, sizeof(*vsum));
	b = kb_calloc(nh, sizeof(*b));
	nvj = kb_calloc(nv * nh + 1, sizeof(*nvj));
	for (v = 0; v < nv; v++) {
		const double *y = kb_analysis_values(a, (unsigned)v, &k);

		for (i = 0; i < k; i++) {
			if (!(y[i] > 0))
				continue;
			j = host_index(f, block_of(a, f, v, i), cap);
			nvj[v * nh + j]++;
			f->vn[v]++;
			f->hn[j]++;
			f->hsum[j] += y[i];
			vsum[v] += log(y[i]);
			b[j] += log(y[i]);
		}
		used += f->vn[v] > 0;
	}
	/* b[j] = S_j - sum_v n_vj ybar_v; A over hosts 1..nh-1 */
	for (v = 0; v < nv; v++) {
		if (!f->vn[v])
			continue;
		for (j = 0; j < nh; j++) {
			f->p[v * nh + j] = (double)nvj[v * nh + j] / f->vn[v];
			b[j] -= nvj[v * nh + j] * vsum[v] / f->vn[v];
		}
	}
	for (j = 1; j < nh; j++)
		for (q = 1; q < nh; q++) {
			double x = j == q ? (double)f->hn[j] : 0;

			for (v = 0; v < nv; v++)
				if (f->vn[v])
					x -= (double)nvj[v * nh + j] *
					     nvj[v * nh + q] / f->vn[v];
			f->ainv[(j - 1) * (nh - 1) + q - 1] = x;
		}
	if (invert(f->ainv, nh - 1)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "the hosts ran sets of variants that do not overlap: their differences cannot be told from the variants' (spread each variant's boots over the hosts)");
		goto out;
	}
	for (j = 1; j < nh; j++)
		for (q = 1; q < nh; q++)
			f->h[j] += f->ainv[(j - 1) * (nh - 1) + q - 1] * b[q];
	for (v = 0; v < nv; v++) {
		if (!f->vn[v]) {
			f->mu[v] = NAN;
			continue;
		}
		f->mu[v] = vsum[v] / f->vn[v];
		for (j = 1; j < nh; j++)
			f->mu[v] -= f->p[v * nh + j] * f->h[j];
	}
	for (v = 0; v < nv; v++) {
		const double *y = kb_analysis_values(a, (unsigned)v, &k);

		for (i = 0; i < k; i++) {
			double r;

			if (!(y[i] > 0))
				continue;
			j = host_index(f, block_of(a, f, v, i), cap);
			r = log(y[i]) - f->mu[v] - f->h[j];
			sse += r * r;
		}
	}
	f->df = 0;
	for (v = 0; v < nv; v++)
		f->df += (double)f->vn[v];
	f->df -= (double)used + (double)(nh - 1);
	f->var = f->df > 0 ? sse / f->df : NAN;
	*out = f;
	f = NULL;
out:
	free(vsum);
	free(b);
	free(nvj);
	hostfit_free(f);
	return ret;
}

/* The variance factor of contrast @c over the variants: sum c_v^2 / n_v
 * + w' A^-1 w (times s^2, the variance of the estimate). */
static double contrast_factor(const struct hostfit *f, const double *c)
{
	size_t nh = f->nh, v, j, q;
	double x = 0, *w = kb_calloc(nh, sizeof(*w));

	for (v = 0; v < f->nv; v++) {
		if (!f->vn[v] || !c[v])
			continue;
		x += c[v] * c[v] / (double)f->vn[v];
		for (j = 1; j < nh; j++)
			w[j] += c[v] * f->p[v * nh + j];
	}
	for (j = 1; j < nh; j++)
		for (q = 1; q < nh; q++)
			x += w[j] * f->ainv[(j - 1) * (nh - 1) + q - 1] * w[q];
	free(w);
	return x;
}

static int by_size(const void *x, const void *y)
{
	double a = fabs(((const struct kb_effect *)x)->log_effect);
	double b = fabs(((const struct kb_effect *)y)->log_effect);

	return (a < b) - (a > b);
}

/* Adjust the @ne effects' p by Holm's method as one family, mark those
 * below @alpha significant, and rank the first @nrank by |log effect|,
 * largest first (the rest are within the conditions' levels, in their
 * order): every estimate, two levels or more, ends here. */
static void family(struct kb_effect *e, size_t ne, size_t nrank, double alpha)
{
	double *raw = kb_calloc(ne ? ne : 1, sizeof(*raw));
	size_t k;

	/* one family: Holm over every effect estimated */
	for (k = 0; k < ne; k++)
		raw[k] = e[k].p;
	kb_stats_p_adjust(raw, ne, KB_P_ADJUST_HOLM, raw);
	for (k = 0; k < ne; k++) {
		e[k].p_adjusted = raw[k];
		e[k].significant = e[k].p_adjusted < alpha;
	}
	free(raw);
	qsort(e, nrank, sizeof(*e), by_size);
}

const char *kb_effect_kind_name(const struct kb_effect *e)
{
	if (e->depends)
		return "condition-dependence";
	if (e->within[0])
		return "within-condition";
	return e->interaction ? "interaction" : "main-effect";
}

size_t kb_effects_nranked(const struct kb_effect *e, size_t n)
{
	size_t k = 0;

	while (k < n && !e[k].within[0] && !e[k].depends)
		k++;
	return k;
}

/* The variance factor of contrast @wt over the design's runs, for
 * lib/effects_within.c: the host fit's, or sum wt^2 / n. */
struct vfactor {
	const struct hostfit *hf;
	const size_t *ncell;
	size_t runs;
};

static double variance_factor(const void *arg, const double *wt)
{
	const struct vfactor *v = arg;
	double x = 0, *c;
	size_t r;

	if (!v->hf) {
		for (r = 0; r < v->runs; r++)
			x += wt[r] * wt[r] / (double)v->ncell[r];
		return x;
	}
	c = kb_calloc(v->hf->nv > v->runs ? v->hf->nv : v->runs, sizeof(*c));
	memcpy(c, wt, v->runs * sizeof(*c));
	x = contrast_factor(v->hf, c);
	free(c);
	return x;
}

/*
 * Append the estimates within the conditions' levels to the @ne effects
 * at *@e (lib/effects_within.c), then adjust them all as one family and
 * rank the first @ne.  Returns the new count.
 */
static size_t with_conditions(struct kb_effect **e, size_t ne,
			      const struct kb_effects__cells *c, double alpha)
{
	struct kb_effect *w = NULL;
	size_t nw = 0;

	kb_effects__within(c, &w, &nw);
	if (nw) {
		*e = kb_realloc(*e, (ne + nw) * sizeof(**e));
		memcpy(*e + ne, w, nw * sizeof(*w));
	}
	free(w);
	family(*e, ne + nw, ne, alpha);
	return ne + nw;
}

int kb_effects_estimate(const struct kb_analysis *a, struct kb_effect **out,
			size_t *n, double *resid_cv, double *df,
			struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	size_t nf = kb_matrix_nfactors(m), runs = kb_design_nruns(d);
	size_t ncand = nf + nf * (nf - (nf ? 1 : 0)) / 2, i, j, k, r;
	double *cell = NULL, var, alpha = kb_analysis_opts(a)->alpha;
	double sumw = 0, *c = NULL;
	struct hostfit *hf = NULL;
	int **cols = NULL;
	struct kb_effect *e = NULL;
	size_t ne = 0;
	int pb = kb_matrix_design(m) == KB_DESIGN_PLACKETT_BURMAN;
	int levels = 0, ret = 0;
	size_t *ncell = NULL;
	struct kb_effects__cells cells;
	struct vfactor vf;
	unsigned char *hide = NULL;

	*out = NULL;
	*n = 0;
	if (kb_matrix_design(m) == KB_DESIGN_ONE_AT_A_TIME)
		return kb_err_set(err, KB_EINPUT,
				  "effects need a full, fractional or plackett-burman design; this experiment is one-at-a-time (compare its variants with the baseline instead)");
	if (nf == 0)
		return kb_err_set(err, KB_EINPUT,
				  "the experiment has no factors: nothing has an effect");
	if (kb_matrix_nconditions(m) == nf)
		return kb_err_set(err, KB_EINPUT,
				  "every factor of the experiment is a condition: nothing is a cause to rank (compare the variants with kbisect compare)");
	for (i = 0; i < nf; i++)
		if (kb_matrix_factor(m, i)->nlevels != 2)
			levels = 1;
	if (levels && kb_matrix_design(m) != KB_DESIGN_FULL)
		return kb_err_set(err, KB_EINPUT,
				  "effects of factors of more than two levels need a full design");
	kb_analysis_log_pooled(a, &var, df);
	if (isnan(var) || *df < 1)
		return kb_err_set(err, KB_EINPUT,
				  "effects need a variance: no variant has two boots with a value");
	*resid_cv = sqrt(exp(var) - 1) * 100;
	for (r = 0; r < runs; r++) {
		size_t bad = kb_analysis_nonpositive(a, (unsigned)r);

		if (bad)
			return kb_err_set(err, KB_EINPUT,
					  "variant #%zu has %zu boot%s with %s <= 0: effects are multiplicative (log scale) and cannot use %s",
					  r, bad, bad == 1 ? "" : "s",
					  kb_analysis_metric(a),
					  bad == 1 ? "it" : "them");
	}
	/* boots on several hosts or in rounds: the host x round is a block,
	 * fitted beside the variants, so that its differences — a host's,
	 * a drift's over the run — leave the variance */
	if ((ret = hostfit(a, 1, &hf, err)))
		return ret;
	if (hf) {
		var = hf->var;
		*df = hf->df;
		if (isnan(var) || *df < 1) {
			ret = kb_err_set(err, KB_EINPUT,
					 "effects need a variance: the boots leave none beside the variants and the %zu blocks (hosts, rounds)",
					 hf->nh);
			goto out;
		}
		*resid_cv = sqrt(exp(var) - 1) * 100;
	}
	cell = kb_calloc(runs, sizeof(*cell));
	ncell = kb_calloc(runs, sizeof(*ncell));
	/* a contrast over every variant the fit has: the design's runs
	 * and, past them, the sentinel's, whose weight stays 0 */
	c = kb_calloc(hf && hf->nv > runs ? hf->nv : runs, sizeof(*c));
	for (r = 0; r < runs; r++) {
		kb_analysis_log_cell(a, (unsigned)r, &cell[r], &ncell[r]);
		if (hf && r < hf->nv)
			cell[r] = hf->mu[r];
		if (!ncell[r]) {
			ret = kb_err_set(err, KB_EINPUT,
					 "variant #%zu has no measurement of %s: effects need every variant (failed builds or boots leave holes)",
					 r, kb_analysis_metric(a));
			goto out;
		}
		sumw += 1.0 / (double)ncell[r];
	}
	vf.hf = hf;
	vf.ncell = ncell;
	vf.runs = runs;
	cells.a = a;
	cells.cell = cell;
	cells.ncell = ncell;
	cells.runs = runs;
	cells.var = var;
	cells.df = *df;
	cells.levels = levels;
	cells.factor = variance_factor;
	cells.arg = &vf;
	if (levels) { /* lib/effects_levels.c: the estimates, Holm here */
		ret = kb_effects__levels(a, cell, ncell, var, *df, out, n, err);
		if (!ret)
			*n = with_conditions(out, *n, &cells, alpha);
		goto out;
	}
	cols = kb_calloc(ncand, sizeof(*cols));
	e = kb_calloc(ncand, sizeof(*e));
	hide = kb_calloc(ncand, sizeof(*hide));
	for (i = 0; i < nf; i++) {
		/* a Plackett-Burman design cannot tell an interaction from the
		 * main effects it is partially aliased with: mains only */
		for (j = i; j < (pb ? i + 1 : nf); j++) {
			int inter = j != i, sign = 0;
			struct kb_effect *x;
			double sum = 0, se, t, q;
			int *col = kb_calloc(runs, sizeof(*col));

			/* a condition's effect, or an interaction with
			 * one, is no cause: its column is kept for the
			 * aliases (an effect that shares it cannot be told
			 * from the condition: left out too) */
			int cond = kb_matrix_factor(m, i)->condition ||
				   kb_matrix_factor(m, j)->condition;

			column(d, i, j, inter, col);
			for (k = 0; k < ne; k++)
				if ((sign = aliased(cols[k], col, runs)))
					break;
			if (k < ne) {
				add_alias_name(&e[k], sign,
					       kb_matrix_factor(m, i)->name,
					       inter ? kb_matrix_factor(m, j)->name
						     : NULL);
				hide[k] |= (unsigned char)cond;
				free(col);
				continue;
			}
			hide[ne] = (unsigned char)cond;
			cols[ne] = col;
			x = &e[ne++];
			x->interaction = inter;
			x->f1 = i;
			x->f2 = j;
			snprintf(x->name, sizeof(x->name), "%s%s%s",
				 kb_matrix_factor(m, i)->name, inter ? ":" : "",
				 inter ? kb_matrix_factor(m, j)->name : "");
			if (pb) {
				struct kb_alias *al = NULL;

				x->npartial = kb_design_aliases(d, i, i, &al);
				free(al);
			}
			for (r = 0; r < runs; r++) {
				sum += col[r] * cell[r];
				c[r] = col[r];
			}
			x->log_effect = 2 * sum / (double)runs;
			se = 2 / (double)runs *
			     sqrt(var * (hf ? contrast_factor(hf, c) : sumw));
			q = kb_stats_t_quantile(1 - alpha / 2, *df);
			x->log_ci_low = x->log_effect - q * se;
			x->log_ci_high = x->log_effect + q * se;
			t = se > 0 ? fabs(x->log_effect) / se : INFINITY;
			x->p = 2 * kb_stats_t_cdf(-t, *df);
			x->change_pct = (exp(x->log_effect) - 1) * 100;
			x->ci_low_pct = (exp(x->log_ci_low) - 1) * 100;
			x->ci_high_pct = (exp(x->log_ci_high) - 1) * 100;
		}
	}
	for (i = k = 0; i < ne; i++)
		if (!hide[i])
			e[k++] = e[i];
	if (!k && ne) {
		ret = kb_err_set(err, KB_EINPUT,
				 "every effect is a condition's or cannot be told from one: nothing is a cause to rank (compare the variants within a level instead)");
		goto out;
	}
	*n = with_conditions(&e, k, &cells, alpha);
	*out = e;
	e = NULL;
out:
	free(hide);
	for (k = 0; cols && k < ncand; k++)
		free(cols[k]);
	free(cols);
	free(cell);
	free(ncell);
	free(c);
	free(e);
	hostfit_free(hf);
	return ret;
}

/* kb_effects_hosts() of boots that ran on one host (or none). */
static int one_host(const struct kb_analysis *a, struct kb_host_effect **out,
		    size_t *n)
{
	size_t nv = kb_plan_nvariants(kb_analysis_plan(a)), v, i, k;
	struct kb_host_effect *h = NULL;
	double sum = 0;

	for (v = 0; v < nv; v++) {
		const char *const *hs = kb_analysis_hosts(a, (unsigned)v, &k);
		const double *y = kb_analysis_values(a, (unsigned)v, &k);

		for (i = 0; i < k; i++) {
			if (!(y[i] > 0))
				continue;
			if (!h) {
				h = kb_calloc(1, sizeof(*h));
				h->host = hs && hs[i] ? hs[i] : "?";
			}
			h->nboots++;
			sum += y[i];
		}
	}
	if (!h)
		return 0;
	h->mean = sum / (double)h->nboots;
	h->log_ci_low = h->log_ci_high = h->p = NAN;
	h->ci_low_pct = h->ci_high_pct = NAN;
	*out = h;
	*n = 1;
	return 0;
}

int kb_effects_hosts(const struct kb_analysis *a, struct kb_host_effect **out,
		     size_t *n, double *df, struct kb_err *err)
{
	double alpha = kb_analysis_opts(a)->alpha, q;
	struct kb_host_effect *h;
	struct hostfit *f = NULL;
	size_t j, nh;
	int ret;

	*out = NULL;
	*n = 0;
	*df = NAN;
	if ((ret = hostfit(a, 0, &f, err)))
		return ret;
	if (!f)
		return one_host(a, out, n);
	nh = f->nh;
	*df = f->df;
	q = f->df >= 1 ? kb_stats_t_quantile(1 - alpha / 2, f->df) : NAN;
	h = kb_calloc(nh, sizeof(*h));
	for (j = 0; j < nh; j++) {
		double se = j ? sqrt(f->var * f->ainv[(j - 1) * (nh - 1) +
						      j - 1])
			      : NAN;
		double t;

		h[j].host = f->host[j];
		h[j].nboots = f->hn[j];
		h[j].mean = f->hn[j] ? f->hsum[j] / (double)f->hn[j] : NAN;
		h[j].log_effect = f->h[j];
		h[j].log_ci_low = j ? f->h[j] - q * se : NAN;
		h[j].log_ci_high = j ? f->h[j] + q * se : NAN;
		h[j].change_pct = (exp(f->h[j]) - 1) * 100;
		h[j].ci_low_pct = (exp(h[j].log_ci_low) - 1) * 100;
		h[j].ci_high_pct = (exp(h[j].log_ci_high) - 1) * 100;
		t = se > 0 ? fabs(f->h[j]) / se : INFINITY;
		h[j].p = j && f->df >= 1 ? 2 * kb_stats_t_cdf(-t, f->df) : NAN;
	}
	hostfit_free(f);
	*out = h;
	*n = nh;
	return 0;
}

char *kb_effects_aliases_text(const struct kb_effect *e, const char *sizes)
{
	if (e->npartial)
		return kb_asprintf(" partially aliased with %zu two-way interaction%s (%s each)",
				   e->npartial, e->npartial == 1 ? "" : "s",
				   sizes);
	return kb_asprintf("%s%s", e->aliases[0] ? " aliased with " : "",
			   e->aliases);
}

int kb_effects_store(const struct kb_analysis *a, const struct kb_effect *e,
		     size_t n, struct kb_err *err)
{
	struct kb_store *s = kb_analysis_store(a);
	struct kb_store_analysis *rows = NULL;
	char **details = NULL, **names = NULL, *sizes = NULL;
	size_t i;
	int ret;

	if (kb_store_read_only(s) || !n)
		return 0;
	rows = kb_calloc(n, sizeof(*rows));
	details = kb_calloc(n, sizeof(*details));
	names = kb_calloc(n, sizeof(*names));
	sizes = kb_design_alias_sizes(kb_plan_design(kb_analysis_plan(a)));
	for (i = 0; i < n; i++) {
		char *al = kb_effects_aliases_text(&e[i], sizes);

		/* the adjusted p and the call travel in the detail too */
		details[i] = kb_asprintf("holm-adjusted p %.3g of %zu: %s%s%s",
					 e[i].p_adjusted, n,
					 e[i].significant ? "significant"
							  : "not significant",
					 *al ? ";" : "", al);
		free(al);
		/* within a condition's level: "F at LEVEL", "F by LEVELS" */
		if (e[i].within[0])
			names[i] = kb_asprintf("%s %s %s", e[i].name,
					       e[i].depends ? "by" : "at",
					       e[i].within);
		rows[i] = (struct kb_store_analysis){
			.kind = kb_effect_kind_name(&e[i]),
			.metric = kb_analysis_metric(a),
			.a_idx = -1,
			.b_idx = -1,
			.factor = names[i] ? names[i] : e[i].name,
			.change_pct = e[i].change_pct,
			.ci_low_pct = e[i].ci_low_pct,
			.ci_high_pct = e[i].ci_high_pct,
			.p_value = e[i].p,
			.test = "t",
			.verdict = NULL,
			.detail = details[i],
			.p_adjusted = e[i].p_adjusted,
			.call = e[i].significant ? KB_STORE_CALL_SIGNIFICANT
						 : KB_STORE_CALL_NOT_SIGNIFICANT,
		};
	}
	ret = kb_store_analyses_put(s, kb_analysis_info(a)->id, rows, n, err);
	for (i = 0; i < n; i++) {
		free(details[i]);
		free(names[i]);
	}
	free(details);
	free(names);
	free(rows);
	free(sizes);
	return ret;
}
