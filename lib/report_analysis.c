/*
 * The report's answers (lib/report.h): each variant compared with the
 * baseline, the effects as a forest plot, `why`'s answer and the
 * bisections, written as HTML from what the analysis verbs compute
 * (lib/analysis.h, lib/effects.h, lib/why.h) -- the statistics are
 * theirs, only the page is made here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#include "analysis.h"
#include "effects.h"
#include "err.h"
#include "mem.h"
#include "svg.h"
#include "why.h"
#include "banned.h"

/* ---- compare ---------------------------------------------------------- */

/* The verdicts computed, each against the baseline, stored as `compare`
 * stores them (v_verdicts). */
static void store_verdicts(struct rep *r)
{
	struct kb_store_analysis *rows;
	struct kb_err err = KB_ERR_INIT;
	char **details;
	size_t i, k = 0;

	if (!r->a || kb_store_read_only(r->s) || r->nvs < 2)
		return;
	rows = kb_calloc(r->nvs, sizeof(*rows));
	details = kb_calloc(r->nvs, sizeof(*details));
	for (i = 1; i < r->nvs; i++) {
		if (r->cmp_err[i])
			continue;
		kb_analysis_compare_row(&r->cmp[i], kb_analysis_metric(r->a),
					r->vs[0].idx, r->vs[i].idx,
					&details[k], &rows[k]);
		k++;
	}
	rep_store_failed(r, kb_store_analyses_put(r->s, r->exp, rows, k,
						  &err),
			 &err);
	while (k)
		free(details[--k]);
	free(details);
	free(rows);
}

void rep_analyse(struct rep *r)
{
	struct kb_err err = KB_ERR_INIT;
	size_t i;

	r->cmp = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*r->cmp));
	r->cmp_err = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*r->cmp_err));
	for (i = 1; r->a && i < r->nvs; i++) {
		unsigned idx = r->vs[i].idx;

		const struct kb_plan *p = kb_analysis_plan(r->a);
		int ref;

		kb_err_clear(&err);
		if (idx >= kb_plan_nvariants(p)) {
			r->cmp_err[i] = kb_asprintf("variant %u is not in the plan of the stored matrix",
						    idx);
			continue;
		}
		/* with conditions: against the baseline at its level */
		ref = kb_plan_reference(p, r->vs[0].idx, idx);
		if (ref < 0)
			r->cmp_err[i] = kb_strdup("the design has no baseline at its level of the conditions: no verdict (a condition is no cause)");
		else if ((unsigned)ref == idx)
			r->cmp_err[i] = kb_strdup("the baseline at its level of the conditions: the reference of the variants at that level (a condition is no cause)");
		else if (kb_analysis_compare(r->a, (unsigned)ref, idx, 0,
					     &r->cmp[i], &err))
			r->cmp_err[i] = kb_strdup(err.msg);
	}
	store_verdicts(r);
}

void rep_store_failed(struct rep *r, int ret, const struct kb_err *e)
{
	if (ret && !r->stored.code)
		kb_err_set(&r->stored, ret, "%s", e->msg);
}

const char *rep_verdict_class(const struct rep *r, size_t i)
{
	if (i == 0)
		return "baseline";
	if (!r->a || !r->cmp || r->cmp_err[i])
		return "none";
	return kb_verdict_name(r->cmp[i].verdict);
}

/* A compare table's start; @id names it (NULL: none). */
static void compare_head(struct kb_buf *b, const char *id)
{
	if (id)
		kb_buf_addf(b, "<table class=\"compare\" id=\"%s\">", id);
	else
		kb_buf_adds(b, "<table class=\"compare\">");
	kb_buf_adds(b, "\n<thead><tr><th class=\"num\">#</th><th>variant</th><th class=\"num\">mean</th><th class=\"num\">&#177;%stddev</th><th class=\"num\">%change</th><th>verdict</th><th class=\"num\">CI of the change</th><th class=\"num\">p</th><th class=\"num\">boots</th></tr></thead>\n<tbody>\n");
}

/* The baseline's row, first: its mean and spread as @c (a comparison
 * of a variant with it) has them, once rather than on every row. */
static void compare_base_row(struct rep *r, const struct kb_comparison *c)
{
	struct kb_buf *b = &r->page;

	kb_buf_adds(b, "<tr class=\"baseline\"><td class=\"num\">");
	rep_variant_link(b, r->vs[0].idx);
	kb_buf_adds(b, "</td><td>");
	rep_esc(b, r->vs[0].label);
	kb_buf_adds(b, "</td><td class=\"num\">");
	rep_num(b, c->a.mean);
	kb_buf_adds(b, "</td><td class=\"num\">");
	kb_buf_adds(b, kb_format_pct(100 * fabs(c->a.cv), 0).s);
	kb_buf_adds(b, kb_matrix_nconditions(kb_plan_matrix(kb_analysis_plan(r->a)))
			       ? "</td><td colspan=\"5\" class=\"note\">the baseline, which the variants at its level of the conditions are compared with</td></tr>\n"
			       : "</td><td colspan=\"5\" class=\"note\">the baseline, which each variant below is compared with</td></tr>\n");
}

/* Whether variant @i of the table is the baseline at its own level of
 * the conditions, not #0: the reference of its level (kb_plan_reference()). */
static int is_reference(const struct rep *r, size_t i)
{
	const struct kb_plan *p = kb_analysis_plan(r->a);

	return i && r->vs[i].idx < kb_plan_nvariants(p) &&
	       kb_plan_reference(p, r->vs[0].idx, r->vs[i].idx) ==
		       (int)r->vs[i].idx;
}

/* The row of a baseline at another level of the conditions: its mean
 * and spread, and what is compared with it. */
static void compare_reference_row(struct rep *r, size_t i)
{
	struct kb_buf *b = &r->page;
	struct kb_summary sm;
	size_t n;
	const double *y = kb_analysis_values(r->a, r->vs[i].idx, &n);

	kb_stats_summary(y, n, &sm);
	kb_buf_adds(b, "<tr class=\"baseline\"><td class=\"num\">");
	rep_variant_link(b, r->vs[i].idx);
	kb_buf_adds(b, "</td><td>");
	rep_esc(b, r->vs[i].label);
	kb_buf_adds(b, "</td><td class=\"num\">");
	rep_num(b, sm.mean);
	kb_buf_adds(b, "</td><td class=\"num\">");
	kb_buf_adds(b, kb_format_pct(100 * fabs(sm.cv), 0).s);
	kb_buf_adds(b, "</td><td colspan=\"5\" class=\"note\">the baseline at its level of the conditions, which the variants at that level are compared with</td></tr>\n");
}

/* One row of a compare table: variant @i against the baseline. */
static void compare_row(struct rep *r, size_t i, const struct kb_comparison *c,
			const char *error)
{
	struct kb_buf *b = &r->page;

	if (error && is_reference(r, i)) {
		compare_reference_row(r, i);
		return;
	}
	kb_buf_adds(b, "<tr><td class=\"num\">");
	rep_variant_link(b, r->vs[i].idx);
	kb_buf_adds(b, "</td><td>");
	rep_esc(b, r->vs[i].label);
	kb_buf_adds(b, "</td>");
	if (error) {
		kb_buf_adds(b, "<td colspan=\"7\" class=\"note\">");
		rep_esc(b, error);
		kb_buf_adds(b, "</td></tr>\n");
		return;
	}
	kb_buf_adds(b, "<td class=\"num\">");
	rep_num(b, c->b.mean);
	kb_buf_adds(b, "</td><td class=\"num\">");
	kb_buf_adds(b, kb_format_pct(100 * fabs(c->b.cv), 0).s);
	kb_buf_adds(b, "</td><td class=\"num\">");
	kb_buf_adds(b, kb_format_pct(c->change_pct, 1).s);
	kb_buf_adds(b, kb_format_stars(c->p));
	kb_buf_addf(b, "</td><td class=\"verdict %s\">%s</td><td class=\"num\">",
		    kb_verdict_name(c->verdict), kb_verdict_name(c->verdict));
	rep_ci(b, c->ci_low, c->ci_high);
	kb_buf_adds(b, "</td><td class=\"num\">");
	if (isfinite(c->p))
		kb_buf_addf(b, "%.3g", c->p);
	else
		kb_buf_addch(b, '-');
	kb_buf_addf(b, "</td><td class=\"num\">%zu vs %zu</td></tr>\n",
		    c->a.n, c->b.n);
}

/* The comparisons of the metrics other than the experiment's. */
static void compare_others(struct rep *r)
{
	struct kb_buf *b = &r->page;
	struct kb_err err = KB_ERR_INIT;
	struct kb_comparison *c;
	struct kb_metric_dir dir;
	char **why;
	size_t m, i, first, others = r->nmetrics ? r->nmetrics - 1 : 0;

	if (!others || r->nvs < 2)
		return;
	if (others * (r->nvs - 1) > REPORT_MAX_OTHER_COMPARISONS) {
		rep_note(b, "%zu other metrics were measured; comparing each for each of %zu variants is left to kbisect compare %lld 0 N, which answers every metric of one pair",
			 others, r->nvs - 1, (long long)r->exp);
		return;
	}
	/* folded: the verdicts on the experiment's metric are the answer */
	kb_buf_addf(b, "<details class=\"other-metrics\"><summary>The %zu other metric%s measured, each compared the same way</summary>\n",
		    others, others == 1 ? "" : "s");
	for (m = 0; m < r->nmetrics; m++) {
		const char *name = r->metrics[m];

		if (!strcmp(name, kb_analysis_metric(r->a)))
			continue;
		kb_buf_adds(b, "<h3>");
		rep_esc(b, name);
		kb_buf_adds(b, "</h3>\n");
		compare_head(b, NULL);
		memset(&dir, 0, sizeof(dir));
		c = kb_calloc(r->nvs, sizeof(*c));
		why = kb_calloc(r->nvs, sizeof(*why));
		for (i = 1, first = 0; i < r->nvs; i++) {
			kb_err_clear(&err);
			if (kb_analysis_compare_metric(r->a, name,
						       r->vs[0].idx,
						       r->vs[i].idx, &c[i],
						       &dir, &err))
				why[i] = kb_strdup(err.msg);
			else if (!first)
				first = i;
		}
		if (first)
			compare_base_row(r, &c[first]);
		for (i = 1; i < r->nvs; i++) {
			compare_row(r, i, why[i] ? NULL : &c[i], why[i]);
			free(why[i]);
		}
		free(why);
		free(c);
		kb_buf_adds(b, "</tbody>\n</table>\n<p class=\"note\">");
		rep_escf(b, "%s: %s", name, kb_metric_dir_text(&dir));
		kb_buf_adds(b, "</p>\n");
	}
	kb_buf_adds(b, "</details>\n");
}

void rep_compare(struct rep *r)
{
	struct kb_buf *b = &r->page;
	const struct kb_comparison *first = NULL;
	double t;
	size_t i;

	rep_section(b, "compare", "Verdicts: each variant against the baseline");
	if (!r->a) {
		rep_note(b, "not available: %s", r->no_analysis);
		kb_buf_adds(b, "</section>\n");
		return;
	}
	kb_buf_adds(b, "<p>");
	rep_escf(b, "Each variant against the baseline #%u, as kbisect compare %lld 0 N compares them, on %s (%s): boots are the replicates.",
		 r->vs[0].idx, (long long)r->exp, kb_analysis_metric(r->a),
		 kb_metric_dir_text(kb_analysis_direction(r->a)));
	if (kb_matrix_nconditions(kb_plan_matrix(kb_analysis_plan(r->a))))
		rep_escf(b, "  The matrix has conditions (load levels, never a cause): each variant is compared with the baseline at its own level of them, the variant with the baseline's other levels.");
	kb_buf_adds(b, "</p>\n");
	compare_head(b, "verdicts");
	/* the baseline's numbers: from a comparison with it, not with the
	 * baseline at another level of the conditions */
	for (i = 1; i < r->nvs && !first; i++)
		if (!r->cmp_err[i] &&
		    kb_plan_reference(kb_analysis_plan(r->a), r->vs[0].idx,
				      r->vs[i].idx) == (int)r->vs[0].idx)
			first = &r->cmp[i];
	if (first)
		compare_base_row(r, first);
	for (i = 1; i < r->nvs; i++)
		compare_row(r, i, &r->cmp[i], r->cmp_err[i]);
	kb_buf_adds(b, "</tbody>\n</table>\n");
	t = kb_analysis_opts(r->a)->threshold_pct;
	if (first) {
		kb_buf_adds(b, "<p class=\"note\">");
		rep_escf(b, "* p < 0.05, ** p < 0.01, *** p < 0.001 (the t test of the change on the log scale, paired within rounds where they pair); a verdict needs p < %.3g, so that the %.3g%% interval shown excludes 0, and a change of %g%% or more; no-change needs the interval inside \u00b1%g%%.",
			 first->alpha, 100 * (1 - first->alpha), t, t);
		if (first->looks > 1)
			rep_escf(b, "  %.3g is the level calibrated for each of %u looks, which keeps the false alarms of adaptive sampling at alpha = %g.",
				 first->alpha, first->looks,
				 kb_analysis_opts(r->a)->alpha);
		kb_buf_adds(b, "</p>\n");
	}
	compare_others(r);
	kb_buf_adds(b, "</section>\n");
}

/* ---- effects ---------------------------------------------------------- */

/* The class of a point: its verdict as the metric's direction reads it. */
static const char *effect_class(const struct rep *r, double change,
				int significant)
{
	int worse;

	if (!significant)
		return "ns";
	worse = kb_analysis_direction(r->a)->higher_is_better ? change < 0
							      : change > 0;
	return worse ? "regression" : "improvement";
}

static int forest_plot(struct rep *r, const struct kb_effect *e, size_t n,
		       struct kb_err *err)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_buf tip = KB_BUF_INIT;
	struct kb_svg_axis x;
	struct kb_svg *s = NULL;
	double *v = kb_calloc(3 * n + 1, sizeof(*v));
	size_t i, nv = 0;
	int ret;

	v[nv++] = 0;
	for (i = 0; i < n; i++) {
		v[nv++] = e[i].change_pct;
		v[nv++] = e[i].ci_low_pct;
		v[nv++] = e[i].ci_high_pct;
	}
	/* changes: on the log ratio, where 10x down and 10x up lie as far
	 * from zero as each other, zero on it */
	if ((ret = kb_svg_axis_ratio(v, nv, &x, err)))
		goto out;
	o.id = "effects-plot";
	o.title = "effects, each with its confidence interval";
	o.x_label = "change";
	o.nrows = n;
	/* room for the longest name, "A:B", within reason */
	for (i = 0, nv = 0; i < n; i++)
		if (strlen(e[i].name) > nv)
			nv = strlen(e[i].name);
	o.label_width = fmin(fmax(8.0 * (double)nv + 16, 140), 460);
	o.width = o.label_width + 640;
	if ((ret = kb_svg_rows_begin(&r->page, &o, &x, &s, err)))
		goto out;
	ret = kb_svg_line(s, 0, "zero", "no effect", err);
	for (i = 0; !ret && i < n; i++) {
		const char *cls = effect_class(r, e[i].change_pct,
					       e[i].significant);

		kb_buf_reset(&tip);
		kb_buf_addf(&tip, "%s: %+.1f%% [%+.1f%%, %+.1f%%], p Holm %.2g%s%s",
			    e[i].name, e[i].change_pct, e[i].ci_low_pct,
			    e[i].ci_high_pct, e[i].p_adjusted,
			    e[i].aliases[0] ? "; aliased with " : "",
			    e[i].aliases);
		ret = kb_svg_row_label(s, i, e[i].name, tip.buf, err);
		if (!ret && kb_svg_axis_takes(&x, e[i].ci_low_pct) &&
		    kb_svg_axis_takes(&x, e[i].ci_high_pct))
			ret = kb_svg_interval(s, i, e[i].ci_low_pct,
					      e[i].ci_high_pct, cls, NULL, err);
		if (!ret && kb_svg_axis_takes(&x, e[i].change_pct))
			ret = kb_svg_point(s, i, e[i].change_pct, 0, 4.5, cls,
					   tip.buf, err);
	}
	kb_svg_rows_end(s);
	r->nplots++;
out:
	kb_buf_release(&tip);
	free(v);
	return ret;
}

/*
 * The @n estimates after the ranked ones (effects.h, "Conditions"): each
 * main effect within each level of the conditions, and whether it
 * changes with the level, as `kbisect effects` prints them.
 */
static void effects_within(struct rep *r, const struct kb_effect *e, size_t n)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(r->a));
	struct kb_buf *b = &r->page, names = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			kb_buf_addf(&names, "%s%s", names.len ? ", " : "",
				    kb_matrix_factor(m, i)->name);
	kb_buf_adds(b, "<h3>Within each level of the conditions</h3>\n<p>");
	rep_escf(b, "%s: a condition (a load level), never a cause: not ranked above, where the effects are averaged over its levels.  Each main effect at each level, and whether it changes with the level:",
		 names.buf);
	kb_buf_adds(b, "</p>\n<table class=\"effects within\">\n<thead><tr><th>effect</th><th>level</th><th class=\"num\">change</th><th class=\"num\">CI</th><th class=\"num\">p</th><th class=\"num\">p Holm</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		kb_buf_adds(b, "<tr><td>");
		rep_esc(b, e[i].name);
		kb_buf_adds(b, "</td><td>");
		if (e[i].depends)
			rep_escf(b, "depends on the level: %s (%s)",
				 e[i].significant ? "yes" : "no evidence",
				 e[i].within);
		else
			rep_esc(b, e[i].within);
		kb_buf_addf(b, "</td><td class=\"num %s\">",
			    e[i].depends ? (e[i].significant ? "depends" : "ns")
					 : effect_class(r, e[i].change_pct,
							e[i].significant));
		kb_buf_adds(b, kb_format_pct(e[i].change_pct, 1).s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_ci(b, e[i].ci_low_pct, e[i].ci_high_pct);
		kb_buf_addf(b, "</td><td class=\"num\">%.2g</td><td class=\"num\">%.2g%s</td></tr>\n",
			    e[i].p, e[i].p_adjusted,
			    kb_format_stars(e[i].p_adjusted));
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	rep_note(b, "A change at a level is the factor's change within that level, averaged over the other factors.  \"depends on the level\" tests each level's change against the first level's: shown is the level that differs most and by how much its change differs, p over every level (Bonferroni).  All are in the family of the effects above (Holm).");
	kb_buf_release(&names);
}

void rep_effects(struct rep *r)
{
	struct kb_buf *b = &r->page;
	struct kb_err err = KB_ERR_INIT;
	struct kb_effect *e = NULL;
	double cv = NAN, df = 0, level;
	size_t n = 0, i, nall = 0;

	rep_section(b, "effects", "Effects");
	if (!r->a) {
		rep_note(b, "not available: %s", r->no_analysis);
		goto out;
	}
	if (kb_effects_estimate(r->a, &e, &nall, &cv, &df, &err)) {
		rep_note(b, "not available: %s", err.msg);
		goto out;
	}
	rep_store_failed(r, kb_effects_store(r->a, e, nall, &err), &err);
	n = kb_effects_nranked(e, nall); /* the rest: within conditions */
	level = 100 * (1 - kb_analysis_opts(r->a)->alpha);
	kb_buf_adds(b, "<p>");
	rep_escf(b, "Main effects and two-way interactions on %s, multiplicative (estimated on the log scale), ranked by size; boot-to-boot CV %.1f%% (pooled over variants, %g degrees of freedom).",
		 kb_analysis_metric(r->a), cv, df);
	kb_buf_adds(b, "</p>\n<figure>\n");
	if (forest_plot(r, e, n, &err)) {
		kb_buf_adds(b, "</figure>\n");
		rep_note(b, "no plot: %s", err.msg);
	} else {
		kb_buf_adds(b, "<figcaption class=\"note\">");
		rep_escf(b, "Each effect is a point with its %.3g%% confidence interval as a bar; the dashed line is no effect.  The axis is the log of the ratio: halving and doubling (-50%% and +100%%, 2x each way) lie as far from it, -90%% and +900%% (10x) farther.  Red and green: significant (Holm-adjusted p < %g), worse and better for the metric; grey: not significant.",
			 level, kb_analysis_opts(r->a)->alpha);
		kb_buf_adds(b, "</figcaption>\n</figure>\n");
	}
	kb_buf_addf(b, "<table class=\"effects\">\n<thead><tr><th class=\"num\">rank</th><th>effect</th><th class=\"num\">change</th><th class=\"num\">%.3g%% CI</th><th class=\"num\">p</th><th class=\"num\">p Holm</th><th>aliased with</th></tr></thead>\n<tbody>\n",
		    level);
	for (i = 0; i < n; i++) {
		kb_buf_addf(b, "<tr><td class=\"num\">%zu</td><td>", i + 1);
		rep_esc(b, e[i].name);
		kb_buf_addf(b, "</td><td class=\"num %s\">",
			    effect_class(r, e[i].change_pct, e[i].significant));
		kb_buf_adds(b, kb_format_pct(e[i].change_pct, 1).s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_ci(b, e[i].ci_low_pct, e[i].ci_high_pct);
		kb_buf_addf(b, "</td><td class=\"num\">%.2g</td><td class=\"num\">%.2g%s</td><td>",
			    e[i].p, e[i].p_adjusted,
			    kb_format_stars(e[i].p_adjusted));
		rep_esc(b, e[i].aliases);
		kb_buf_adds(b, "</td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	rep_note(b, "A main effect is the change from a factor's first level to its second, averaged over the other factors; A:B is half the change of A's effect between B's levels.  The %zu %s one family: p Holm is p adjusted by Holm's method, and the stars come from it: * < 0.05, ** < 0.01, *** < 0.001.",
		 nall,
		 nall > n ? "estimates, with those within the conditions below, are"
			  : "effects are");
	if (nall > n)
		effects_within(r, e + n, nall - n);
out:
	free(e);
	kb_buf_adds(b, "</section>\n");
}

/* ---- why -------------------------------------------------------------- */

static const char *fname(const struct rep *r, size_t f)
{
	return kb_matrix_factor(kb_plan_matrix(kb_analysis_plan(r->a)), f)
		->name;
}

static const char *level_of(const struct rep *r, unsigned v, size_t f)
{
	return kb_plan_variant(kb_analysis_plan(r->a), v)->settings[f].value;
}

/* "-12.3% [-14.0%, -10.1%], regression (n = 3 vs 3)" */
static void change_text(struct kb_buf *b, const struct kb_comparison *c)
{
	if (isnan(c->change_pct)) {
		kb_buf_adds(b, "not measured by this design");
		return;
	}
	kb_buf_adds(b, kb_format_pct(c->change_pct, 1).s);
	kb_buf_addch(b, ' ');
	rep_ci(b, c->ci_low, c->ci_high);
	kb_buf_addf(b, ", <span class=\"%s\">%s</span> (n = %zu vs %zu)",
		    kb_verdict_name(c->verdict), kb_verdict_name(c->verdict),
		    c->a.n, c->b.n);
}

static void why_sets(struct rep *r, const struct kb_why *w)
{
	struct kb_buf *b = &r->page;
	size_t i, k;

	kb_buf_adds(b, "<table class=\"why-sets\">\n<thead><tr><th>changes (the good variant with these)</th><th>variant</th><th>from good</th><th>then to bad</th><th>so</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < w->nsets; i++) {
		const struct kb_why_set *s = &w->sets[i];

		kb_buf_adds(b, "<tr><td>");
		for (k = 0; k < s->n; k++) {
			kb_buf_adds(b, k ? "+" : "");
			rep_esc(b, fname(r, s->factors[k]));
		}
		kb_buf_adds(b, "</td><td class=\"num\">");
		if (s->variant >= 0)
			rep_variant_link(b, (unsigned)s->variant);
		else
			kb_buf_addch(b, '-');
		kb_buf_adds(b, "</td><td>");
		change_text(b, &s->from_good);
		kb_buf_adds(b, "</td><td>");
		change_text(b, &s->to_bad);
		kb_buf_addf(b, "</td><td>%s</td></tr>\n",
			    s->cls == KB_WHY_SET_SHORT
				    ? "does not reproduce"
				    : kb_why_set_class_name(s->cls));
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	if (w->ntried > w->nsets)
		rep_note(b, "... and %zu more sets", w->ntried - w->nsets);
}

static void why_culprit(struct rep *r, const struct kb_why_culprit *c)
{
	struct kb_buf *b = &r->page;
	size_t k;
	int any = 0;

	kb_buf_adds(b, "<li><code>");
	rep_escf(b, "%s %s -> %s", fname(r, c->factor), c->good, c->bad);
	kb_buf_adds(b, "</code>\n<ul><li>alone, from the good variant: ");
	change_text(b, &c->alone);
	kb_buf_adds(b, "</li>\n<li>in the bad variant's context: ");
	change_text(b, &c->in_context);
	kb_buf_adds(b, "</li>\n");
	for (k = 0; k < c->ninter; k++) {
		const struct kb_why_interaction *in = &c->inter[k];

		if (!in->significant)
			continue;
		if (!any++)
			kb_buf_adds(b, "<li>its effect depends on:<ul>\n");
		kb_buf_adds(b, "<li>");
		rep_escf(b, "%s=%s: ", fname(r, in->factor), in->level);
		change_text(b, &in->c);
		kb_buf_addf(b, " (interaction p = %.2g, Holm-adjusted %.2g)</li>\n",
			    in->p, in->p_adj);
	}
	if (any)
		kb_buf_adds(b, "</ul></li>\n");
	if (c->independent)
		kb_buf_adds(b, "<li>an independent regression: no other factor changes its effect</li>\n");
	kb_buf_adds(b, "</ul></li>\n");
}

/* The answer of kb_why_explain(), as `kbisect why --no-boots` prints it. */
static void why_answer(struct rep *r, const struct kb_why *w)
{
	struct kb_buf *b = &r->page;
	size_t i;

	int cond = kb_matrix_nconditions(
			   kb_plan_matrix(kb_analysis_plan(r->a))) > 0;

	if (w->answer == KB_WHY_NOTHING_WORSE && cond) {
		kb_buf_adds(b, "<p class=\"answer\">");
		rep_escf(b, "No variant is worse than #%u %s at its own level of the conditions (never a cause): of the %u measured variants against it, none has a worse mean, so there is nothing to explain.",
			 w->good, rep_label(r, w->good), w->picked_from);
		kb_buf_adds(b, "</p>\n");
		return;
	}
	if (w->answer == KB_WHY_NOTHING_WORSE) {
		kb_buf_adds(b, "<p class=\"answer\">");
		rep_escf(b, "No variant is worse than #%u %s: its mean is the worst of the %u measured variants, so there is nothing to explain.",
			 w->good, rep_label(r, w->good), w->picked_from + 1);
		kb_buf_adds(b, "</p>\n");
		return;
	}
	kb_buf_adds(b, "<dl class=\"facts\">\n<dt>good</dt><dd>");
	rep_variant_link(b, w->good);
	kb_buf_addch(b, ' ');
	rep_esc(b, rep_label(r, w->good));
	kb_buf_adds(b, "</dd>\n<dt>bad</dt><dd>");
	rep_variant_link(b, w->bad);
	kb_buf_addch(b, ' ');
	rep_esc(b, rep_label(r, w->bad));
	kb_buf_adds(b, "</dd>\n<dt>change</dt><dd>");
	change_text(b, &w->total);
	kb_buf_adds(b, "</dd>\n</dl>\n");
	if (cond)
		rep_note(b, "The conditions are never a cause: #%u is judged against #%u, the baseline at the same level of them.",
			 w->bad, w->good);
	if (w->picked_from > 1)
		rep_note(b, "#%u is the worst of %u variants: compared at alpha %g / %u = %.2g, %.3g%% CI",
			 w->bad, w->picked_from, w->alpha * w->picked_from,
			 w->picked_from, w->alpha, 100 * (1 - w->alpha));
	kb_buf_adds(b, "<p class=\"answer\">");
	switch (w->answer) {
	case KB_WHY_NOT_REPRODUCED:
		rep_escf(b, "The regression does not reproduce: the verdict is %s, so there is nothing to explain.",
			 kb_verdict_name(w->total.verdict));
		kb_buf_adds(b, "</p>\n");
		return;
	case KB_WHY_INCONCLUSIVE:
		rep_escf(b, "Inconclusive: the regression reproduces, but no set of the %zu differing factor%s could be shown to be its cause (%zu of the %zu sets tried could not be told or were not measured).  The cause lies among:",
			 w->ndiff, w->ndiff == 1 ? "" : "s", w->nunknown,
			 w->ntried);
		for (i = 0; i < w->nsuspects; i++) {
			size_t f = w->suspects[i];

			kb_buf_adds(b, i ? ", <code>" : " <code>");
			rep_escf(b, "%s %s->%s", fname(r, f),
				 level_of(r, w->good, f),
				 level_of(r, w->bad, f));
			kb_buf_adds(b, "</code>");
		}
		kb_buf_adds(b, ".</p>\n");
		if (w->ncommon) {
			kb_buf_adds(b, "<p>Every set that reproduces it changes ");
			for (i = 0; i < w->ncommon; i++) {
				kb_buf_adds(b, i ? " and " : "");
				rep_esc(b, fname(r, w->common[i]));
			}
			kb_buf_adds(b, ".</p>\n");
		}
		why_sets(r, w);
		rep_note(b, "What would settle it: more boots (repeat.max_boots: kbisect why %lld adds them), or a design that measures the missing sets.",
			 (long long)r->exp);
		return;
	default:
		break;
	}
	rep_escf(b, "%zu of the %zu differing factor%s explain%s it:",
		 w->nculprits, w->ndiff, w->ndiff == 1 ? "" : "s",
		 w->nculprits == 1 ? "s" : "");
	for (i = 0; i < w->nculprits; i++) {
		kb_buf_adds(b, i ? ", <code>" : " <code>");
		rep_escf(b, "%s %s->%s", fname(r, w->culprits[i].factor),
			 w->culprits[i].good, w->culprits[i].bad);
		kb_buf_adds(b, "</code>");
	}
	kb_buf_adds(b, ".</p>\n");
	if (w->set_variant != w->bad)
		rep_note(b, "#%u, the good variant with only %s, is as bad as #%u",
			 w->set_variant,
			 w->nculprits == 1 ? "that change" : "those changes",
			 w->bad);
	else if (w->nculprits > 1)
		rep_note(b, "%s needed: no smaller set of these changes makes #%u as bad as #%u",
			 w->nculprits == 2 ? "both are" : "all are", w->good,
			 w->bad);
	kb_buf_adds(b, "<ul class=\"culprits\">\n");
	for (i = 0; i < w->nculprits; i++)
		why_culprit(r, &w->culprits[i]);
	kb_buf_adds(b, "</ul>\n");
}

void rep_why(struct rep *r)
{
	struct kb_buf *b = &r->page;
	struct kb_err err = KB_ERR_INIT;
	struct kb_why *w;

	rep_section(b, "why", "Why");
	if (!r->a) {
		rep_note(b, "not available: %s", r->no_analysis);
		kb_buf_adds(b, "</section>\n");
		return;
	}
	kb_buf_adds(b, "<p>");
	rep_escf(b, "Why is the worst variant worse than the baseline?  The answer of kbisect why %lld --no-boots, from the stored boots: which of the factors in which they differ cause it.",
		 (long long)r->exp);
	kb_buf_adds(b, "</p>\n");
	w = kb_calloc(1, sizeof(*w));
	if (kb_why_explain(r->a, -1, -1, w, &err)) {
		rep_note(b, "no answer: %s", err.msg);
	} else {
		why_answer(r, w);
		rep_store_failed(r, kb_why_store(r->a, w, &err), &err);
	}
	free(w);
	kb_buf_adds(b, "</section>\n");
}

/* ---- bisections ------------------------------------------------------- */

static int probe_plot(struct rep *r, const struct kb_store_bisection *bi,
		      struct kb_err *err)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_buf id = KB_BUF_INIT, tip = KB_BUF_INIT, lab = KB_BUF_INIT;
	struct kb_svg_axis x;
	struct kb_svg *s = NULL;
	double *v = kb_calloc(3 * bi->nsteps + 1, sizeof(*v));
	size_t i, nv = 0;
	int ret;

	v[nv++] = 0;
	for (i = 0; i < bi->nsteps; i++) {
		v[nv++] = bi->steps[i].change_pct;
		v[nv++] = bi->steps[i].ci_low_pct;
		v[nv++] = bi->steps[i].ci_high_pct;
	}
	if ((ret = kb_svg_axis_ratio(v, nv, &x, err)))
		goto out;
	kb_buf_addf(&id, "bisect-plot-%lld", (long long)bi->id);
	o.id = id.buf;
	o.title = "each probe's change against the good end";
	o.x_label = "change against the good end";
	o.nrows = bi->nsteps;
	o.label_width = 120;
	if ((ret = kb_svg_rows_begin(&r->page, &o, &x, &s, err)))
		goto out;
	ret = kb_svg_line(s, 0, "zero", "good end", err);
	for (i = 0; !ret && i < bi->nsteps; i++) {
		const struct kb_store_bisection_step *st = &bi->steps[i];

		kb_buf_reset(&lab);
		kb_buf_addf(&lab, "step %u", st->step_no);
		kb_buf_reset(&tip);
		kb_buf_addf(&tip, "step %u, %s: %s", st->step_no,
			    st->classification, st->probe);
		ret = kb_svg_row_label(s, i, lab.buf, tip.buf, err);
		if (!ret && kb_svg_axis_takes(&x, st->ci_low_pct) &&
		    kb_svg_axis_takes(&x, st->ci_high_pct) &&
		    st->ci_low_pct <= st->ci_high_pct)
			ret = kb_svg_interval(s, i, st->ci_low_pct,
					      st->ci_high_pct,
					      st->classification, NULL, err);
		if (!ret && kb_svg_axis_takes(&x, st->change_pct))
			ret = kb_svg_point(s, i, st->change_pct, 0, 4.5,
					   st->classification, tip.buf, err);
	}
	kb_svg_rows_end(s);
	r->nplots++;
out:
	kb_buf_release(&id);
	kb_buf_release(&tip);
	kb_buf_release(&lab);
	free(v);
	return ret;
}

static int bisection(struct rep *r, const struct kb_store_bisection *bi,
		     struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	size_t i;
	int ret;

	kb_buf_addf(b, "<h3 id=\"bisection-%lld\">", (long long)bi->id);
	rep_escf(b, "Bisection %lld: %s, %s -> %s", (long long)bi->id,
		 bi->kind, bi->good, bi->bad);
	kb_buf_adds(b, "</h3>\n<p class=\"answer\">");
	if (bi->result && !strcmp(bi->state, "done")) {
		kb_buf_adds(b, "The culprit set: <code>");
		rep_esc(b, bi->result);
		kb_buf_adds(b, "</code>");
	} else {
		rep_escf(b, "No culprit set: the bisection is %s", bi->state);
		if (bi->result) {
			kb_buf_adds(b, " (<code>");
			rep_esc(b, bi->result);
			kb_buf_adds(b, "</code>)");
		}
	}
	kb_buf_addf(b, "; %zu probes, in order below.</p>\n", bi->nsteps);
	if (bi->nsteps) {
		kb_buf_adds(b, "<figure>\n");
		if ((ret = probe_plot(r, bi, err)))
			return ret;
		kb_buf_adds(b, "<figcaption class=\"note\">Each probe's change against the good end, with its confidence interval, on the log of the ratio (-50% and +100% are 2x each way): green good, red bad, amber unknown or skipped.</figcaption>\n</figure>\n");
	}
	kb_buf_adds(b, "<table class=\"probes\">\n<thead><tr><th class=\"num\">step</th><th>class</th><th class=\"num\">change</th><th class=\"num\">CI</th><th class=\"num\">variant</th><th>probe: the changes applied to the good end</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < bi->nsteps; i++) {
		const struct kb_store_bisection_step *st = &bi->steps[i];

		kb_buf_addf(b, "<tr><td class=\"num\">%u</td><td class=\"",
			    st->step_no);
		rep_esc(b, st->classification);
		kb_buf_adds(b, "\">");
		rep_esc(b, st->classification);
		kb_buf_adds(b, "</td><td class=\"num\">");
		kb_buf_adds(b, kb_format_pct(st->change_pct, 1).s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_ci(b, st->ci_low_pct, st->ci_high_pct);
		kb_buf_adds(b, "</td><td class=\"num\">");
		if (st->variant_idx >= 0)
			rep_variant_link(b, (unsigned)st->variant_idx);
		else
			kb_buf_addch(b, '-');
		kb_buf_adds(b, "</td><td><code>");
		rep_esc(b, st->probe);
		kb_buf_adds(b, "</code></td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	return 0;
}

int rep_bisections(struct rep *r, struct kb_err *err)
{
	struct kb_store_bisection bi;
	size_t i;
	int ret = 0;

	if (!r->nbisections)
		return 0;
	rep_section(&r->page, "bisection", "Bisection");
	for (i = 0; !ret && i < r->nbisections; i++) {
		if ((ret = kb_store_bisection_get(r->s, r->bisections[i], &bi,
						  err)))
			break;
		ret = bisection(r, &bi, err);
		kb_store_bisection_release(&bi);
	}
	kb_buf_adds(&r->page, "</section>\n");
	return ret;
}
