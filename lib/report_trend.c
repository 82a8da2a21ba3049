/*
 * A trend as a page (kbisect report --trend NAME): one metric of one
 * variant across the experiments of a matrix name, as `kbisect trend`
 * finds it (lib/trend.h), plotted one experiment a row, with its change
 * points.  The folder and the page's frame are the report's
 * (lib/report_int.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "buf.h"
#include "err.h"
#include "mem.h"
#include "svg.h"
#include "trend.h"
#include "variant.h"
#include "banned.h"

/* The change point, if any, that starts at point @i. */
static const struct kb_trend_change *change_at(const struct kb_trend_change *c,
					       size_t nc, size_t i)
{
	size_t k;

	for (k = 0; k < nc; k++)
		if (c[k].index == i)
			return &c[k];
	return NULL;
}

/* A point's row label: "#EXP REV" (by revision) or "#EXP DATE". */
static void point_label(struct kb_buf *b, const struct kb_trend_point *p)
{
	kb_buf_addf(b, "#%lld ", (long long)p->experiment);
	if (p->rev)
		kb_buf_adds(b, p->rev);
	else if (p->created_at)
		kb_buf_adds(b, p->created_at);
}

/*
 * The series as a row chart: a row per experiment, its boots as dots,
 * its mean marked; the points of each stretch between change points
 * coloured by whether the stretch is better or worse than the one
 * before it.
 */
static int plot(struct rep *r, const struct kb_trend_series *t,
		const struct kb_trend_change *c, size_t nc, struct kb_err *err)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_buf *b = &r->page, tip = KB_BUF_INIT, lab = KB_BUF_INIT;
	int higher = kb_metric_higher_is_better(t->metric);
	const char *cls = "baseline";
	struct kb_svg_axis x;
	struct kb_svg *s = NULL;
	double *all;
	size_t i, k, n = 0;
	int ret;

	for (i = 0; i < t->n; i++)
		n += t->points[i].nboots;
	all = kb_calloc(n ? n : 1, sizeof(*all));
	for (i = 0, n = 0; i < t->n; i++)
		for (k = 0; k < t->points[i].nboots; k++)
			all[n++] = t->points[i].boots[k];
	if ((ret = kb_svg_axis_auto(all, n, 1, &x, err)))
		goto out;
	o.id = "trend-plot";
	o.title = "the series, one experiment a row";
	o.x_label = t->metric;
	o.nrows = t->n;
	o.row_height = t->n > 64 ? 14 : 22;
	o.label_width = 300;
	o.width = o.label_width + 640;
	if ((ret = kb_svg_rows_begin(b, &o, &x, &s, err)))
		goto out;
	for (i = 0; !ret && i < t->n; i++) {
		const struct kb_trend_point *p = &t->points[i];
		const struct kb_trend_change *ch = change_at(c, nc, i);

		if (ch)
			cls = (ch->after > ch->before) == higher ? "improvement"
								 : "regression";
		kb_buf_reset(&lab);
		if (ch)
			kb_buf_addf(&lab, "change %u \u2192 ", ch->order);
		point_label(&lab, p);
		kb_buf_reset(&tip);
		point_label(&tip, p);
		kb_buf_addf(&tip, ": %zu boots, mean %.6g", p->nboots, p->mean);
		ret = kb_svg_row_label(s, i, lab.buf, tip.buf, err);
		for (k = 0; !ret && k < p->nboots; k++) {
			kb_buf_reset(&tip);
			kb_buf_addf(&tip, "#%lld boot %zu: %.6g",
				    (long long)p->experiment, k + 1,
				    p->boots[k]);
			ret = kb_svg_point(s, i, p->boots[k],
					   (double)((int)(k % 5) - 2) * 2.0,
					   3.2, cls, tip.buf, err);
		}
		if (!ret && p->nboots)
			ret = kb_svg_mark(s, i, p->mean, NULL, NULL, err);
	}
	kb_svg_rows_end(s);
	r->nplots++;
out:
	kb_buf_release(&tip);
	kb_buf_release(&lab);
	free(all);
	return ret;
}

static void changes_table(struct rep *r, const struct kb_trend_series *t,
			  const struct kb_trend_change *c, size_t nc,
			  const struct kb_trend_opts *to)
{
	struct kb_buf *b = &r->page;
	size_t k;

	if (!nc) {
		rep_note(b, "no change point: no split of the series has a divergence that a permutation test calls significant (p <= %g, %u permutations)",
			 to->max_p, to->permutations);
		return;
	}
	kb_buf_adds(b, "<table class=\"results\">\n<thead><tr><th class=\"num\">change</th><th>last before</th><th>first after</th><th class=\"num\">before</th><th class=\"num\">after</th><th class=\"num\">change</th><th class=\"num\">p</th></tr></thead>\n<tbody>\n");
	for (k = 0; k < nc; k++) {
		kb_buf_addf(b, "<tr><td class=\"num\">%u</td><td>", c[k].order);
		point_label(&r->page, &t->points[c[k].index - 1]);
		kb_buf_adds(b, "</td><td>");
		point_label(&r->page, &t->points[c[k].index]);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_num(b, c[k].before);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_num(b, c[k].after);
		kb_buf_adds(b, "</td><td class=\"num\">");
		kb_buf_adds(b, kb_format_pct(c[k].change_pct, 1).s);
		kb_buf_addf(b, "</td><td class=\"num\">%.3g</td></tr>\n",
			    c[k].p);
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	rep_note(b, "to find the commit: kbisect trend %s --by revision --bisect N prints the bisection between the two revisions of change N",
		 t->name);
}

int kb_report_trend_write(struct kb_store *s, const char *name,
			  const struct kb_trend_series_opts *so,
			  const struct kb_trend_opts *to, const char *dir,
			  struct kb_report_result *out, struct kb_err *err)
{
	struct kb_trend_opts dflt = KB_TREND_OPTS_INIT;
	struct kb_trend_series *t = NULL;
	struct kb_trend_change *c = NULL;
	struct kb_buf *b;
	struct rep r;
	double *x = NULL;
	size_t nc = 0;
	char *title = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.s = s;
	kb_buf_init(&r.page);
	kb_buf_init(&r.files);
	b = &r.page;
	if (!to)
		to = &dflt;
	if ((ret = kb_trend_series_load(s, name, so, &t, err)))
		goto out;
	x = kb_trend_series_values(t);
	if ((ret = kb_trend_changes(x, t->n, to, &c, &nc, err)) ||
	    (ret = rep_dir_open(&r, dir, err)))
		goto out;
	title = kb_asprintf("kbisect report: the trend of %s in %s", t->metric,
			    t->name);
	rep_page_open(b, title);
	kb_buf_adds(b, "<header>\n<h1>");
	rep_escf(b, "The trend of %s in \u201c%s\u201d", t->metric, t->name);
	kb_buf_adds(b, "</h1>\n<p class=\"summary\">");
	rep_escf(b, "%zu experiments by %s, variant %s; %zu change point%s by E-Divisive means (alpha 1; %u permutations, p <= %g, seed %llu)",
		 t->n, t->by == KB_TREND_BY_REVISION ? "revision" : "time",
		 so && so->label ? so->label : "baseline (#0)", nc,
		 nc == 1 ? "" : "s", to->permutations, to->max_p,
		 (unsigned long long)to->seed);
	kb_buf_adds(b, "</p>\n</header>\n<main>\n");
	rep_section(b, "trend", "The series");
	kb_buf_adds(b, "<figure>\n");
	if ((ret = plot(&r, t, c, nc, err)))
		goto out;
	kb_buf_adds(b, "<figcaption class=\"note\">Each row is one experiment, in order from the top; each dot one boot's mean, the bar the experiment's mean.  From each change point on, the dots are red when the stretch is worse than the one before, green when better.</figcaption>\n</figure>\n</section>\n");
	rep_section(b, "changes", "Change points");
	changes_table(&r, t, c, nc, to);
	kb_buf_adds(b, "</section>\n</main>\n<footer>\n<p class=\"note\">Written by <code>kbisect report --trend</code> from the database alone: the series and change points <code>kbisect trend</code> prints.</p>\n</footer>\n</body>\n</html>\n");
	ret = rep_finish(&r, dir, out, err);
out:
	if (ret)
		kb_report_result_release(out);
	rep_release(&r);
	kb_trend_series_free(t);
	free(c);
	free(x);
	free(title);
	return ret;
}
