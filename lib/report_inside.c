/*
 * The report's "Inside the kernel" section (report_int.h): for each
 * variant against its baseline, the guest's monitors that changed and
 * the functions whose share of the profile's samples moved, with the
 * difference flame graph, as `compare` prints them.
 */
#include "report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "flamegraph.h"
#include "mem.h"
#include "monitor.h"
#include "plan.h"
#include "profile.h"
#include "store_monitor.h"
#include "store_profile.h"
#include "banned.h"

/* Changed functions listed per variant; the flame graph has them all. */
#define INSIDE_TOP 10

static void spread(struct kb_buf *b, const struct kb_summary *s)
{
	if (s->n >= 2 && isfinite(s->cv))
		kb_buf_addf(b, "&#177;%.0f%%", 100 * fabs(s->cv));
	else
		kb_buf_adds(b, "-");
}

static void monitors_table(struct kb_buf *b, const struct kb_monitor_change *c,
			   size_t n, size_t nchanged, size_t tested,
			   double alpha, size_t na, size_t nb)
{
	size_t i;

	kb_buf_adds(b, "<p>");
	rep_escf(b, "Monitors: %zu of %zu changed (Welch's t per monitor, Holm over the %zu tested, alpha %g; %zu vs %zu boots with monitors).",
		 nchanged, n, tested, alpha, na, nb);
	kb_buf_adds(b, "</p>\n");
	if (!nchanged)
		return;
	kb_buf_adds(b, "<table class=\"monitors\">\n<thead><tr><th class=\"num\">A mean</th><th class=\"num\">&#177;%stddev</th><th class=\"num\">%change</th><th class=\"num\">B mean</th><th class=\"num\">&#177;%stddev</th><th>monitor</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < nchanged; i++) {
		kb_buf_adds(b, "<tr><td class=\"num\">");
		rep_num(b, c[i].a.mean);
		kb_buf_adds(b, "</td><td class=\"num\">");
		spread(b, &c[i].a);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_esc(b, kb_format_pct(c[i].change_pct, 1).s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		rep_num(b, c[i].b.mean);
		kb_buf_adds(b, "</td><td class=\"num\">");
		spread(b, &c[i].b);
		kb_buf_adds(b, "</td><td><code>");
		rep_esc(b, c[i].name);
		kb_buf_adds(b, "</code></td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
}

static void profile_table(struct kb_buf *b, const struct kb_profile_change *c,
			  size_t nchanged)
{
	size_t i;

	kb_buf_adds(b, "<table class=\"profile\">\n<thead><tr><th class=\"num\">A share</th><th class=\"num\">&#177;%stddev</th><th class=\"num\">B share</th><th class=\"num\">&#177;%stddev</th><th class=\"num\">change (points)</th><th class=\"num\">95% interval</th><th>function</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < nchanged && i < INSIDE_TOP; i++) {
		kb_buf_addf(b, "<tr class=\"%s\"><td class=\"num\">%.2f%%</td><td class=\"num\">",
			    c[i].diff > 0 ? "grew" : "shrank", c[i].a.mean);
		spread(b, &c[i].a);
		kb_buf_addf(b, "</td><td class=\"num\">%.2f%%</td><td class=\"num\">",
			    c[i].b.mean);
		spread(b, &c[i].b);
		kb_buf_addf(b, "</td><td class=\"num\">%+.2f</td><td class=\"num\">[%+.2f, %+.2f]</td><td><code>",
			    c[i].diff, c[i].lo, c[i].hi);
		rep_esc(b, c[i].func);
		kb_buf_adds(b, "</code></td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	if (nchanged > INSIDE_TOP)
		rep_note(b, "%zu more changed: kbisect compare --json lists them all.",
			 nchanged - INSIDE_TOP);
}

/* The profile of variant @vb against @va, its table and flame graph. */
static int profile(struct rep *r, unsigned va, unsigned vb, double alpha,
		   int *shown, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	struct kb_store_profiles pa, pb;
	struct kb_profile_change *c = NULL;
	struct kb_profile_share *sh = NULL;
	struct kb_flame_stack *fs = NULL;
	struct kb_flame_opts o = KB_FLAME_OPTS_INIT;
	size_t n = 0, nsh = 0, nchanged, i;
	char id[32], title[96];
	int ret;

	memset(&pb, 0, sizeof(pb));
	if ((ret = kb_store_profiles(r->s, r->exp, va, &pa, err)) ||
	    (ret = kb_store_profiles(r->s, r->exp, vb, &pb, err)))
		goto out;
	if (!pa.nboots && !pb.nboots)
		goto out;
	*shown = 1;
	nchanged = kb_profile_compare(pa.rows, pa.n, pb.rows, pb.n, alpha, &c,
				      &n);
	kb_buf_adds(b, "<p>");
	rep_escf(b, "Profile: %zu of %zu functions changed their share of the samples (Welch's t per function on each boot's share, Holm over the %zu tested, alpha %g; %zu vs %zu boots with a profile, %llu vs %llu samples).  Shares count a function's samples on any stack, children included; the interval is unadjusted.",
		 nchanged, n, kb_profile_tested(c, n), alpha, pa.nboots,
		 pb.nboots, pa.samples, pb.samples);
	kb_buf_adds(b, "</p>\n");
	if (nchanged)
		profile_table(b, c, nchanged);
	kb_profile_shares(pa.rows, pa.n, pb.rows, pb.n, &sh, &nsh);
	fs = kb_calloc(nsh ? nsh : 1, sizeof(*fs));
	for (i = 0; i < nsh; i++)
		fs[i] = (struct kb_flame_stack){ sh[i].stack, sh[i].a, sh[i].b };
	snprintf(id, sizeof(id), "flame-%u", vb);
	snprintf(title, sizeof(title),
		 "Difference flame graph: #%u against #%u (red grew, blue shrank)",
		 vb, va);
	o.id = id;
	o.title = title;
	kb_buf_adds(b, "<figure class=\"flame\">\n");
	ret = kb_flamegraph_svg(fs, nsh, &o, b, err);
	kb_buf_adds(b, "\n<figcaption>");
	rep_escf(b, "Frames as wide as their share of #%u's samples, coloured by the change of that share from #%u: red grew, blue shrank, grey did not move; hover a frame for its shares.",
		 vb, va);
	kb_buf_adds(b, "</figcaption>\n</figure>\n");
out:
	free(c);
	free(fs);
	kb_profile_shares_free(sh, nsh);
	kb_store_profiles_release(&pa);
	kb_store_profiles_release(&pb);
	return ret;
}

static int monitors(struct rep *r, unsigned va, unsigned vb, double alpha,
		    int *shown, struct kb_err *err)
{
	struct kb_store_monitors ma, mb;
	struct kb_monitor_change *c = NULL;
	size_t n = 0, nchanged;
	int ret;

	memset(&mb, 0, sizeof(mb));
	if ((ret = kb_store_monitors(r->s, r->exp, va, &ma, err)) ||
	    (ret = kb_store_monitors(r->s, r->exp, vb, &mb, err)))
		goto out;
	if (!ma.nboots && !mb.nboots)
		goto out;
	*shown = 1;
	nchanged = kb_monitor_compare(ma.rows, ma.n, mb.rows, mb.n, alpha, &c,
				      &n);
	monitors_table(&r->page, c, n, nchanged, kb_monitor_tested(c, n),
		       alpha, ma.nboots, mb.nboots);
out:
	free(c);
	kb_store_monitors_release(&ma);
	kb_store_monitors_release(&mb);
	return ret;
}

int rep_inside(struct rep *r, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	size_t i, any = 0;
	double alpha;
	int ret = 0;

	if (!r->a || r->nvs < 2)
		return 0;
	alpha = kb_analysis_opts(r->a)->alpha;
	rep_section(b, "inside", "Inside the kernel: monitors and profiles");
	kb_buf_adds(b, "<p>What each variant changed inside the guest's kernel against its baseline, as kbisect compare prints it after the verdicts: the monitors (workload.monitors) and the profile (workload.profile) that moved.  Neither takes part in any verdict.</p>\n");
	for (i = 1; i < r->nvs; i++) {
		unsigned vb = r->vs[i].idx;
		int ref = kb_plan_reference(kb_analysis_plan(r->a),
					    r->vs[0].idx, vb);
		unsigned va = ref >= 0 ? (unsigned)ref : r->vs[0].idx;
		int shown = 0;
		size_t mark = b->len;

		kb_buf_addf(b, "<section class=\"inside\" id=\"inside-%u\">\n<h3>", vb);
		rep_variant_link(b, vb);
		kb_buf_adds(b, " ");
		rep_esc(b, rep_label(r, vb));
		kb_buf_adds(b, " against ");
		rep_variant_link(b, va);
		kb_buf_adds(b, "</h3>\n");
		if ((ret = monitors(r, va, vb, alpha, &shown, err)) ||
		    (ret = profile(r, va, vb, alpha, &shown, err)))
			goto out;
		if (!shown) {
			kb_buf_truncate(b, mark); /* nothing of this variant */
			continue;
		}
		kb_buf_adds(b, "</section>\n");
		any++;
	}
	if (!any)
		rep_note(b, "none stored: the boots carry no monitors and no profile (workload.monitors: [], no workload.profile, or an older guest).");
out:
	kb_buf_adds(b, "</section>\n");
	return ret;
}
