/*
 * The report's drift section (lib/report.h): each boot against its place
 * in the run, as the drift check sees it (kb_analysis_drift(): the log
 * of each ok boot's value less its variant's mean, regressed on the
 * boot's place), with the fitted line; the check's answer, and what it
 * means for the verdicts below it; and the sentinel's A/A when the
 * experiment has one.  The statistics are lib/analysis.c's, only the
 * page is made here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#include "analysis.h"
#include "err.h"
#include "mem.h"
#include "plan.h"
#include "svg.h"
#include "banned.h"

/* A boot of the plot: its place in the run and its residual. */
struct resid {
	double seq;
	double pct; /* (value / its variant's geometric mean - 1) x 100 */
	unsigned idx;
	size_t boot;
};

/* Each ok boot of @r with a known place and a positive value, as the
 * drift check takes them; *@n of them (caller frees). */
static struct resid *residuals(const struct rep *r, size_t *n)
{
	struct resid *out;
	size_t i, k, total = 0;

	for (i = 0; i < r->nvs; i++)
		total += r->vs[i].nboots;
	out = kb_calloc(total ? total : 1, sizeof(*out));
	*n = 0;
	for (i = 0; i < r->nvs; i++) {
		const struct kb_store_variant *v = &r->vs[i];
		double mean = 0;
		size_t m = 0;

		for (k = 0; v->boot_seqs && k < v->nboots; k++)
			if (v->boot_seqs[k] && v->boot_means[k] > 0) {
				mean += log(v->boot_means[k]);
				m++;
			}
		if (!m)
			continue;
		mean /= (double)m;
		for (k = 0; k < v->nboots; k++) {
			if (!v->boot_seqs[k] || !(v->boot_means[k] > 0))
				continue;
			out[*n].seq = v->boot_seqs[k];
			out[*n].pct = (exp(log(v->boot_means[k]) - mean) - 1) *
				      100;
			out[*n].idx = v->idx;
			out[*n].boot = k + 1;
			(*n)++;
		}
	}
	return out;
}

/*
 * The plot: a point per boot at (place, residual), the zero line and
 * the check's fitted line, which passes through the points' centre (the
 * residuals are 0 on average) with the fitted slope.
 */
static int drift_plot(struct rep *r, const struct kb_drift *d,
		      const struct resid *p, size_t n, struct kb_err *err)
{
	struct kb_svg_xy_opts o = KB_SVG_XY_OPTS_INIT;
	struct kb_buf tip = KB_BUF_INIT;
	struct kb_svg_axis x, y;
	struct kb_svg *s = NULL;
	double lo = INFINITY, hi = -INFINITY, ylo = 0, yhi = 0, xbar = 0;
	double b, y0, y1;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		lo = fmin(lo, p[i].seq);
		hi = fmax(hi, p[i].seq);
		ylo = fmin(ylo, p[i].pct);
		yhi = fmax(yhi, p[i].pct);
		xbar += p[i].seq;
	}
	xbar /= (double)n;
	/* the check's slope on the log scale, from its change over the
	 * span of places */
	b = log1p(d->change_pct / 100) / (hi - lo);
	if (!isfinite(b))
		b = 0;
	y0 = (exp(b * (lo - xbar)) - 1) * 100;
	y1 = (exp(b * (hi - xbar)) - 1) * 100;
	ylo = fmin(ylo, fmin(y0, y1));
	yhi = fmax(yhi, fmax(y0, y1));
	/* the residuals are changes: on the log ratio, as the check fits
	 * them, so that its fitted line is straight */
	if ((ret = kb_svg_axis_linear(lo, hi, 8, &x, err)) ||
	    (ret = kb_svg_axis_ratio((double[]){ ylo, yhi }, 2, &y, err)))
		return ret;
	o.id = "drift-plot";
	o.title = "each boot against its variant's mean, by its place in the run";
	o.x_label = "place in the run (the order the boots started)";
	o.y_label = "vs its variant";
	o.width = 900;
	o.height = 240;
	if ((ret = kb_svg_xy_begin(&r->page, &o, &x, &y, &s, err)))
		return ret;
	ret = kb_svg_xy_segment(s, x.lo, 0, x.hi, 0, "zero", NULL, err);
	if (!ret) {
		kb_buf_addf(&tip, "fitted drift: %s from the first boot to the last",
			    kb_format_pct(d->change_pct, 1).s);
		ret = kb_svg_xy_segment(s, lo, y0, hi, y1,
					d->flagged ? "fit drift" : "fit",
					tip.buf, err);
	}
	for (i = 0; !ret && i < n; i++) {
		const char *cls = p[i].idx == 0 ? "baseline" : NULL;

		kb_buf_reset(&tip);
		kb_buf_addf(&tip, "#%u boot %zu, place %.0f: %s vs its variant",
			    p[i].idx, p[i].boot, p[i].seq,
			    kb_format_pct(p[i].pct, 1).s);
		ret = kb_svg_xy_point(s, p[i].seq, p[i].pct, 3, cls, tip.buf,
				      err);
	}
	kb_svg_rows_end(s);
	r->nplots++;
	kb_buf_release(&tip);
	return ret;
}

/* The sentinel's comparison with the baseline, when it has one. */
static void sentinel(struct rep *r)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf *b = &r->page;
	struct kb_comparison c;
	int s = kb_plan_sentinel(kb_analysis_plan(r->a));
	size_t na, nb;

	if (s < 0)
		return;
	kb_analysis_values(r->a, 0, &na);
	kb_analysis_values(r->a, (unsigned)s, &nb);
	if (na < 2 || nb < 2 ||
	    kb_analysis_compare(r->a, 0, (unsigned)s, 0, &c, &err)) {
		rep_note(b, "The sentinel (#%d, the baseline's kernel again) has too few boots to compare with the baseline.",
			 s);
		return;
	}
	kb_buf_adds(b, "<p class=\"sentinel\">The sentinel (");
	rep_variant_link(b, (unsigned)s);
	rep_escf(b, ", the baseline's kernel booted again in every round) against the baseline: %s ",
		 kb_format_pct(c.change_pct, 1).s);
	rep_ci(b, c.ci_low, c.ci_high);
	if (c.p < c.alpha)
		rep_escf(b, ", differs from the baseline, p %.2g: the experiment's own A/A fails, so its false alarms are above their nominal level and its verdicts are not to be trusted.",
			 c.p);
	else
		rep_escf(b, ", %s (p %.2g): the experiment's own A/A.",
			 c.verdict == KB_VERDICT_NO_CHANGE ? "no change"
							   : "inconclusive",
			 c.p);
	kb_buf_adds(b, "</p>\n");
}

int rep_drift(struct rep *r, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	struct resid *p = NULL;
	struct kb_drift d;
	size_t n = 0;
	int ret = 0;

	rep_section(b, "drift", "Drift over the run");
	if (!r->a) {
		rep_note(b, "No drift check: the experiment could not be analysed.");
		goto out;
	}
	kb_analysis_drift(r->a, &d);
	p = residuals(r, &n);
	if (!d.nboots || n < 2) {
		rep_note(b, "No drift check: too few boots have a known place in the run (boots stored before db/0013 have none).");
	} else {
		kb_buf_adds(b, "<figure>\n");
		if ((ret = drift_plot(r, &d, p, n, err)))
			goto out;
		kb_buf_adds(b, "<figcaption class=\"note\">");
		rep_escf(b, "Each dot is one boot's %s against its variant's mean (geometric), at its place in the run; the dashed line is zero, the solid line the fitted drift (the drift check's slope).",
			 r->info.metric);
		kb_buf_adds(b, "</figcaption>\n</figure>\n");
		if (d.flagged) {
			kb_buf_adds(b, "<p class=\"drift flagged\">");
			rep_escf(b, "drift: the boots changed by %s ",
				 kb_format_pct(d.change_pct, 1).s);
			rep_ci(b, d.ci_low_pct, d.ci_high_pct);
			rep_escf(b, " from the first to the last (p %.2g, beside the variants' differences). ",
				 d.p);
			rep_escf(b, "%s",
				 kb_analysis_nrounds(r->a) > 1
					 ? "The boots ran in randomised rounds, so the verdicts below take it as noise, not as an effect; they were made on a drifting host all the same: confirm them on a quiet one."
					 : "The boots ran in no rounds, so a verdict below may be the drift's rather than the variants': run again with repeat.order: blocks.");
			kb_buf_adds(b, "</p>\n");
		} else {
			kb_buf_adds(b, "<p class=\"drift\">");
			rep_escf(b, "The drift check finds no drift to speak of: %s ",
				 kb_format_pct(d.change_pct, 1).s);
			rep_ci(b, d.ci_low_pct, d.ci_high_pct);
			rep_escf(b, " from the first boot to the last, p %.2g (it speaks at p < 0.02 and a change of half the verdict threshold or more).",
				 d.p);
			kb_buf_adds(b, "</p>\n");
		}
	}
	sentinel(r);
out:
	kb_buf_adds(b, "</section>\n");
	free(p);
	return ret;
}
