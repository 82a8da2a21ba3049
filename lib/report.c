/*
 * kbisect report (lib/report.h): one experiment as a static HTML page.
 * This file reads what the page shows and writes the page: the
 * experiment, its environment, where the time went, the strip plot of
 * boot means and each variant's boots and runs.  The answers of the
 * analysis are lib/report_analysis.c's, the folder lib/report_dir.c's,
 * the HTML helpers every part writes with (escaping, sections, notes,
 * links) lib/report_html.c's.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#include "analysis.h"
#include "err.h"
#include "mem.h"
#include "svg.h"
#include "banned.h"

/* A duration: "0.4 s", "42 s", "1250 s (20m50s)". */
static void duration(struct kb_buf *b, double s)
{
	long t;

	if (!isfinite(s) || s < 0) {
		kb_buf_addch(b, '-');
		return;
	}
	if (s < 10) {
		kb_buf_addf(b, "%.1f s", s);
		return;
	}
	t = (long)(s + 0.5);
	kb_buf_addf(b, "%ld s", t);
	if (t >= 3600)
		kb_buf_addf(b, " (%ldh%02ldm)", t / 3600, t / 60 % 60);
	else if (t >= 120)
		kb_buf_addf(b, " (%ldm%02lds)", t / 60, t % 60);
}

/* <dt>@name</dt><dd>, the caller writes the value and "</dd>". */
static void fact(struct kb_buf *b, const char *name)
{
	kb_buf_adds(b, "<dt>");
	rep_esc(b, name);
	kb_buf_adds(b, "</dt><dd>");
}

/* ---- reading ---------------------------------------------------------- */

void rep_release(struct rep *r)
{
	size_t i;

	kb_store_info_release(&r->info);
	kb_store_experiment_text_release(&r->text);
	kb_matrix_free(r->m);
	for (i = 0; i < r->nvs; i++) {
		kb_store_variant_release(&r->vs[i]);
		if (r->cmp_err)
			free(r->cmp_err[i]);
		if (r->repro)
			free(r->repro[i].status);
	}
	free(r->vs);
	free(r->sum);
	free(r->cmp);
	free(r->cmp_err);
	free(r->repro);
	for (i = 0; i < r->nboots; i++)
		kb_store_boot_row_release(&r->boots[i]);
	free(r->boots);
	free(r->runs);
	for (i = 0; i < r->nenvs; i++)
		kb_store_env_row_release(&r->envs[i]);
	free(r->envs);
	for (i = 0; i < r->nbuilds; i++)
		kb_store_build_row_release(&r->builds[i]);
	free(r->builds);
	if (r->have_prog)
		kb_store_progress_release(&r->prog);
	for (i = 0; i < r->nmetrics; i++)
		free(r->metrics[i]);
	free(r->metrics);
	kb_analysis_free(r->a);
	free(r->no_analysis);
	free(r->bisections);
	rep_dir_abandon(r);
	kb_buf_release(&r->files);
	kb_buf_release(&r->page);
}

/*
 * The analysis of the experiment, answering from the stored boots (none
 * is added: the store may be read-only).  When it cannot be had -- the
 * stored matrix does not plan in this version, a bisection stored none
 * -- the page says why in place of its parts (r->no_analysis).
 */
static void open_analysis(struct rep *r)
{
	struct kb_err why = KB_ERR_INIT;

	if (kb_analysis_open(r->s, r->exp, NULL, &r->a, &why) == 0) {
		kb_analysis_no_sampling(r->a);
		return;
	}
	r->a = NULL;
	r->no_analysis = kb_strdup(why.msg[0] ? why.msg : "unknown error");
}

static int load(struct rep *r, struct kb_err *err)
{
	struct kb_err perr = KB_ERR_INIT;
	size_t i;
	int ret;

	if ((ret = kb_store_experiment_text(r->s, r->exp, &r->text, err)))
		return ret;
	if (r->text.matrix_yaml &&
	    kb_matrix_parse_stored(r->text.matrix_yaml,
				   strlen(r->text.matrix_yaml),
				   r->text.matrix_path ? r->text.matrix_path
						       : "matrix.yaml",
				   &r->m, &perr))
		r->m = NULL; /* a bisection stores a comment, not a matrix */
	r->dir = kb_metric_direction(r->m ? kb_matrix_workload(r->m) : NULL,
				     r->info.metric);
	if ((ret = kb_store_variants(r->s, r->exp, r->info.metric, &r->vs,
				     &r->nvs, err)))
		return ret;
	r->sum = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*r->sum));
	for (i = 0; i < r->nvs; i++)
		kb_stats_summary(r->vs[i].boot_means, r->vs[i].nboots,
				 &r->sum[i]);
	if ((ret = kb_store_boot_rows(r->s, r->exp, &r->boots, &r->nboots,
				      err)) ||
	    (ret = kb_store_run_values(r->s, r->exp, r->info.metric,
				       &r->runs, &r->nruns, err)) ||
	    (ret = kb_store_env_rows(r->s, r->exp, &r->envs, &r->nenvs,
				     err)) ||
	    (ret = kb_store_experiment_builds(r->s, r->exp, &r->builds,
					      &r->nbuilds, err)) ||
	    (ret = kb_store_metrics(r->s, r->exp, &r->metrics, &r->nmetrics,
				    err)) ||
	    (ret = kb_store_experiment_bisections(r->s, r->exp,
						  &r->bisections,
						  &r->nbisections, err)) ||
	    (ret = kb_store_progress_get(r->s, r->exp, &r->prog, err)))
		return ret;
	r->have_prog = 1;
	open_analysis(r);
	return 0;
}

/* ---- the page --------------------------------------------------------- */

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"color:#1b1f24;background:#fff;margin:0 auto;max-width:1200px;"
	"padding:0 20px 48px}\n"
	"h1{font-size:22px;margin:20px 0 4px}"
	"h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;"
	"margin-top:32px}h3{font-size:15px;margin:22px 0 6px}\n"
	"nav ol{display:flex;flex-wrap:wrap;gap:2px 18px;list-style:none;"
	"padding:0;margin:6px 0}a{color:#0969da}\n"
	"details>summary{cursor:pointer;color:#0969da}\n"
	"table{border-collapse:collapse;margin:8px 0}"
	"th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;"
	"vertical-align:top}th{background:#f6f8fa}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}\n"
	"pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;"
	"overflow:auto;max-height:440px}\n"
	"dl.facts{display:grid;grid-template-columns:max-content auto;"
	"gap:2px 16px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}\n"
	".regression,.bad{color:#b42318;font-weight:600}"
	".improvement,.good{color:#067647;font-weight:600}"
	".no-change{color:#57606a}.inconclusive,.unknown,.skip{color:#9a6700}"
	".note{color:#57606a}.warning{color:#b42318}\n"
	"svg.chart{max-width:100%;height:auto;"
	"font:12px system-ui,sans-serif;background:#fff;display:block}\n"
	"svg text{fill:#1b1f24}svg text.tick{fill:#57606a;font-size:11px}"
	"svg .grid line{stroke:#eaeef2}svg .axis line{stroke:#57606a}\n"
	"svg .band{fill:#0969da;fill-opacity:.13}"
	"svg .line{stroke:#57606a;stroke-dasharray:4 3}\n"
	"svg .line.fit{stroke:#1b1f24;stroke-dasharray:none;stroke-width:1.6}"
	"svg .line.fit.drift{stroke:#b42318}\n"
	"svg .point{fill:#0969da;fill-opacity:.8;stroke:#fff;stroke-width:.6}"
	"svg .mark{stroke:#1b1f24;stroke-width:2.5}"
	"svg .interval line{stroke:#1b1f24;stroke-width:1.4}\n"
	"svg .point.regression,svg .point.bad{fill:#b42318}"
	"svg .point.improvement,svg .point.good{fill:#067647}"
	"svg .point.inconclusive,svg .point.unknown,svg .point.skip"
	"{fill:#9a6700}svg .point.no-change,svg .point.ns{fill:#6e7781}"
	"svg .point.baseline{fill:#0969da}\n";

void rep_page_open(struct kb_buf *b, const char *title)
{
	kb_buf_adds(b,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\"/>\n"
		    /* no script, nothing fetched: only the page's own
		     * style and the files beside it */
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:\"/>\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		    "<meta name=\"generator\" content=\"kbisect report\"/>\n"
		    "<title>");
	rep_esc(b, title);
	kb_buf_addf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		    style);
}

static void head(struct rep *r)
{
	struct kb_buf *b = &r->page;
	char *title = kb_asprintf("kbisect report: experiment %lld %s",
				  (long long)r->exp, r->info.name);

	rep_page_open(b, title);
	free(title);
	kb_buf_adds(b, "<header>\n<h1>");
	rep_escf(b, "Experiment %lld \u201c%s\u201d", (long long)r->exp,
		 r->info.name);
	kb_buf_adds(b, "</h1>\n<p class=\"summary\">");
	rep_escf(b, "%s; %s design, %s executor; %u variants; metric %s: %s",
		 r->info.state, r->info.design ? r->info.design : "?",
		 r->info.executor ? r->info.executor : "?", (unsigned)r->nvs,
		 r->info.metric, kb_metric_dir_text(&r->dir));
	kb_buf_adds(b, "</p>\n</header>\n<nav>\n<ol>\n");
	/* the answer first, what it was measured on after */
	kb_buf_adds(b, "<li><a href=\"#compare\">Verdicts</a></li>\n"
		       "<li><a href=\"#why\">Why</a></li>\n");
	if (r->nbisections)
		kb_buf_adds(b, "<li><a href=\"#bisection\">Bisection</a></li>\n");
	kb_buf_adds(b, "<li><a href=\"#effects\">Effects</a></li>\n"
		       "<li><a href=\"#boot-means\">Boot means</a></li>\n"
		       "<li><a href=\"#drift\">Drift over the run</a></li>\n"
		       "<li><a href=\"#experiment\">Experiment and matrix</a></li>\n"
		       "<li><a href=\"#environment\">Environment and builds</a></li>\n"
		       "<li><a href=\"#time\">Where the time went</a></li>\n"
		       "<li><a href=\"#variants\">Variants: boots and runs</a></li>\n"
		       "</ol>\n</nav>\n<main>\n");
}

static void experiment(struct rep *r)
{
	struct kb_buf *b = &r->page;
	const struct kb_store_info *i = &r->info;

	rep_section(b, "experiment", "Experiment");
	kb_buf_adds(b, "<dl class=\"facts\">\n");
	fact(b, "experiment");
	rep_escf(b, "%lld \u201c%s\u201d", (long long)i->id, i->name);
	kb_buf_adds(b, "</dd>\n");
	fact(b, "state");
	rep_esc(b, i->state);
	if (i->error) {
		kb_buf_adds(b, ": <span class=\"warning\">");
		rep_esc(b, i->error);
		kb_buf_adds(b, "</span>");
	}
	kb_buf_adds(b, "</dd>\n");
	fact(b, "design");
	rep_esc(b, i->design);
	if (i->generators)
		rep_escf(b, " (generators %s)", i->generators);
	kb_buf_adds(b, "</dd>\n");
	fact(b, "executor");
	rep_esc(b, i->executor);
	kb_buf_adds(b, "</dd>\n");
	fact(b, "metric");
	rep_escf(b, "%s: %s", i->metric, kb_metric_dir_text(&r->dir));
	kb_buf_adds(b, "</dd>\n");
	fact(b, "repeat");
	rep_escf(b, "%u boots a variant, %u workload runs a boot; runs averaged per boot, boots are the replicates",
		 i->boots, i->runs_per_boot);
	kb_buf_adds(b, "</dd>\n");
	fact(b, "variants");
	kb_buf_addf(b, "%zu; #0 is the baseline</dd>\n", r->nvs);
	fact(b, "metrics measured");
	for (size_t k = 0; k < r->nmetrics; k++) {
		kb_buf_adds(b, k ? ", " : "");
		rep_esc(b, r->metrics[k]);
	}
	kb_buf_adds(b, r->nmetrics ? "</dd>\n" : "none</dd>\n");
	fact(b, "created");
	rep_esc(b, i->created_at);
	kb_buf_adds(b, "</dd>\n");
	fact(b, "finished");
	rep_esc(b, i->finished_at ? i->finished_at : "not yet");
	kb_buf_adds(b, "</dd>\n</dl>\n<h3>Matrix</h3>\n");
	if (r->text.matrix_path) {
		kb_buf_adds(b, "<p class=\"note\">read from <code>");
		rep_esc(b, r->text.matrix_path);
		kb_buf_adds(b, "</code>, stored as it was submitted:</p>\n");
	}
	kb_buf_adds(b, "<pre class=\"matrix\">");
	rep_esc(b, r->text.matrix_yaml);
	kb_buf_adds(b, "</pre>\n");
	if (r->text.model_yaml) {
		kb_buf_adds(b, "<details><summary>The performance model that stood in for builds, boots and workloads</summary>\n<pre class=\"model\">");
		rep_esc(b, r->text.model_yaml);
		kb_buf_adds(b, "</pre></details>\n");
	}
	kb_buf_adds(b, "</section>\n");
}

static const char *hypervisor_name(enum kb_hypervisor h)
{
	switch (h) {
	case KB_HV_XEN:
		return "xen";
	case KB_HV_KVM:
		return "kvm";
	case KB_HV_QEMU:
		return "qemu (TCG)";
	}
	return "?";
}

/* The environments the boots ran in, as recorded with them. */
static void hosts(struct rep *r)
{
	struct kb_buf *b = &r->page;
	size_t i, recorded = 0;

	kb_buf_adds(b, "<h3>Hosts the boots ran on</h3>\n");
	if (!r->nenvs) {
		rep_note(b, "no boot is stored");
		return;
	}
	for (i = 0; i < r->nenvs; i++)
		recorded += r->envs[i].hypervisor || r->envs[i].host_kernel;
	if (recorded > 1)
		kb_buf_addf(b,
			    "<p class=\"warning\">These boots ran in %zu different environments (host, hypervisor or libvirt version, host kernel or CPU): differences may come from them.</p>\n",
			    recorded);
	kb_buf_adds(b, "<table class=\"environments\">\n<thead><tr><th>host</th><th>hypervisor</th><th>libvirt</th><th>host kernel</th><th>host CPU</th><th class=\"num\">boots</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < r->nenvs; i++) {
		const struct kb_store_env_row *e = &r->envs[i];

		kb_buf_adds(b, "<tr><td>");
		rep_esc(b, e->host ? e->host : "-");
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, e->hypervisor ? e->hypervisor : "-");
		if (e->hypervisor_version)
			rep_escf(b, " %s", e->hypervisor_version);
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, e->libvirt_version ? e->libvirt_version : "-");
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, e->host_kernel ? e->host_kernel : "-");
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, e->host_cpu ? e->host_cpu : "-");
		kb_buf_addf(b, "</td><td class=\"num\">%u</td></tr>\n",
			    e->nboots);
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	if (!recorded)
		rep_note(b, "no environment is recorded with these boots: the model executor ran them, or they were stored before kbisect recorded one (schema 4)");
}

/* The guest's shape as the matrix gives it. */
static void guest(struct rep *r)
{
	const struct kb_guest *g = kb_matrix_guest(r->m);
	struct kb_buf *b = &r->page;
	size_t i, n = 0;

	kb_buf_adds(b, "<h3>Guest</h3>\n<dl class=\"facts\">\n");
	fact(b, "hypervisor");
	rep_escf(b, "%s, mode %s", hypervisor_name(g->hypervisor),
		 g->mode ? g->mode : "-");
	kb_buf_adds(b, "</dd>\n");
	fact(b, "shape");
	kb_buf_addf(b, "%u vCPUs, %u MiB", g->vcpus, g->memory_mib);
	if (g->npin) {
		kb_buf_adds(b, ", pinned to pCPUs ");
		for (i = 0; i < g->npin; i++)
			kb_buf_addf(b, "%s%u", i ? "," : "", g->pin[i]);
	}
	kb_buf_adds(b, "</dd>\n");
	if (g->npassthrough) {
		fact(b, "PCI passthrough");
		for (i = 0; i < g->npassthrough; i++) {
			kb_buf_adds(b, i ? ", " : "");
			rep_esc(b, g->passthrough[i]);
		}
		kb_buf_adds(b, "</dd>\n");
	}
	fact(b, "disks");
	if (!g->ndisks)
		kb_buf_adds(b, "a scratch image made for each boot");
	for (i = 0; i < g->ndisks; i++) {
		kb_buf_adds(b, i ? ", " : "");
		rep_esc(b, g->disks[i]);
	}
	kb_buf_addf(b, "</dd>\n");
	fact(b, "boot timeout");
	kb_buf_addf(b, "%u s</dd>\n", g->boot_timeout_s);
	for (i = 0; i < kb_matrix_nfactors(r->m); i++) {
		const struct kb_factor *f = kb_matrix_factor(r->m, i);

		if (f->kind != KB_FACTOR_GUEST)
			continue;
		if (!n++)
			fact(b, "varied per variant");
		else
			kb_buf_adds(b, "; ");
		rep_escf(b, "%s:", f->name);
		for (size_t l = 0; l < f->nlevels; l++)
			rep_escf(b, " %s", f->levels[l].value);
	}
	if (n)
		kb_buf_adds(b, "</dd>\n");
	kb_buf_adds(b, "</dl>\n");
}

/* The variants built as @key, as links. */
static void builds_for(struct rep *r, const char *key)
{
	size_t i, n = 0;

	for (i = 0; key && i < r->nvs; i++) {
		if (!r->vs[i].build_key || strcmp(r->vs[i].build_key, key))
			continue;
		kb_buf_adds(&r->page, n++ ? " " : "");
		rep_variant_link(&r->page, r->vs[i].idx);
	}
	if (!n)
		kb_buf_addch(&r->page, '-');
}

/* The kernel: its source as the matrix gives it, and the builds. */
static void kernel(struct rep *r)
{
	struct kb_buf *b = &r->page;
	size_t i;

	kb_buf_adds(b, "<h3>Kernel</h3>\n");
	if (r->m) {
		const struct kb_source *src = kb_matrix_source(r->m);

		kb_buf_adds(b, "<dl class=\"facts\">\n");
		if (src->kernel) {
			fact(b, "prebuilt kernel");
			rep_esc(b, src->kernel);
			kb_buf_adds(b, "</dd>\n");
		}
		if (src->tree) {
			fact(b, "source tree");
			rep_esc(b, src->tree);
			if (src->rev)
				rep_escf(b, " at %s", src->rev);
			kb_buf_adds(b, "</dd>\n");
		}
		if (src->base) {
			fact(b, src->base_is_target ? "base (make target)"
						    : "base config");
			rep_esc(b, src->base);
			kb_buf_adds(b, "</dd>\n");
		}
		for (i = 0; i < src->nfragments; i++) {
			fact(b, "fragment");
			rep_esc(b, src->fragments[i]);
			kb_buf_adds(b, "</dd>\n");
		}
		for (i = 0; i < kb_matrix_nfactors(r->m); i++) {
			const struct kb_factor *f = kb_matrix_factor(r->m, i);

			if (f->kind != KB_FACTOR_KERNEL)
				continue;
			fact(b, f->name);
			for (size_t l = 0; l < f->nlevels; l++)
				rep_escf(b, "%s%s", l ? ", " : "",
					 f->levels[l].value);
			kb_buf_adds(b, "</dd>\n");
		}
		kb_buf_adds(b, "</dl>\n");
	}
	if (!r->nbuilds) {
		rep_note(b, "no build of these variants is stored");
		return;
	}
	/* a long list folded: the time section sums it up */
	kb_buf_addf(b, "<details%s><summary>%zu build%s</summary>\n",
		    r->nbuilds <= 16 ? " open=\"open\"" : "", r->nbuilds,
		    r->nbuilds == 1 ? "" : "s");
	kb_buf_adds(b, "<table class=\"builds\">\n<thead><tr><th class=\"num\">build</th><th>for</th><th>status</th><th class=\"num\">time</th><th class=\"num\">units compiled</th><th>tree</th><th>made</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < r->nbuilds; i++) {
		const struct kb_store_build_row *w = &r->builds[i];

		kb_buf_addf(b, "<tr><td class=\"num\">%lld</td><td>",
			    (long long)w->id);
		builds_for(r, w->build_key);
		kb_buf_addf(b, "</td><td class=\"%s\">",
			    w->status && !strcmp(w->status, "ok") ? "good"
								  : "bad");
		rep_esc(b, w->status);
		kb_buf_adds(b, "</td><td class=\"num\">");
		duration(b, w->duration_s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		if (w->units_compiled >= 0)
			kb_buf_addf(b, "%ld%s", w->units_compiled,
				    w->full_build == 1 ? " (full)" : "");
		else
			kb_buf_addch(b, '-');
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, w->tree_id ? w->tree_id : "-");
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, w->created_at);
		kb_buf_adds(b, "</td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n</details>\n");
}

static void environment(struct rep *r)
{
	struct kb_buf *b = &r->page;
	size_t i;

	rep_section(b, "environment", "Environment");
	hosts(r);
	if (r->m && kb_matrix_nhosts(r->m)) {
		kb_buf_adds(b, "<p>The matrix names ");
		for (i = 0; i < kb_matrix_nhosts(r->m); i++) {
			const struct kb_host *h = kb_matrix_host(r->m, i);

			kb_buf_adds(b, i ? ", <code>" : "<code>");
			rep_esc(b, h->uri);
			kb_buf_addf(b, "</code> (%u at a time)", h->capacity);
		}
		kb_buf_adds(b, ".</p>\n");
	}
	if (r->m)
		guest(r);
	else
		rep_note(b, "the stored matrix does not parse in this version of kbisect: the guest and the kernel source are in its text (Experiment and matrix)");
	kernel(r);
	kb_buf_adds(b, "</section>\n");
}

/* Sum, least and most of the durations @v[0..n) that are known. */
static void spread(const double *v, size_t n, double *sum, double *lo,
		   double *hi)
{
	size_t i;

	*sum = 0;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		*sum += v[i];
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

static int by_duration_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b) - (a > b);
}

/* The time of the workload runs inside the guests: the sum of real_s. */
static int workload_time(struct rep *r, double *sum, struct kb_err *err)
{
	struct kb_store_run_value *v = NULL;
	size_t n = 0, i;
	int ret;

	*sum = NAN;
	for (i = 0; i < r->nmetrics && strcmp(r->metrics[i], "real_s"); i++)
		;
	if (i == r->nmetrics)
		return 0;
	if ((ret = kb_store_run_values(r->s, r->exp, "real_s", &v, &n, err)))
		return ret;
	*sum = 0;
	for (i = 0; i < n; i++)
		*sum += v[i].value;
	free(v);
	return 0;
}

static int time_went(struct rep *r, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	double *d = kb_calloc(r->nboots + r->nbuilds + 1, sizeof(*d));
	double sum, lo, hi, real_s;
	size_t i, ok = 0;
	int ret;

	if ((ret = workload_time(r, &real_s, err)))
		goto out;
	rep_section(b, "time", "Where the time went");
	kb_buf_adds(b, "<ul class=\"time\">\n<li>builds: ");
	for (i = 0; i < r->nbuilds; i++)
		d[i] = r->builds[i].duration_s;
	qsort(d, r->nbuilds, sizeof(*d), by_duration_desc);
	spread(d, r->nbuilds, &sum, &lo, &hi);
	kb_buf_addf(b, "%zu kernel%s", r->nbuilds, r->nbuilds == 1 ? "" : "s");
	if (r->nbuilds) {
		kb_buf_adds(b, ": ");
		/* each, as the demo prints them, when there is something
		 * to add up */
		for (i = 0; sum > 0 && i < r->nbuilds && i < 12; i++) {
			kb_buf_adds(b, i ? " + " : "");
			duration(b, d[i]);
		}
		if (sum > 0 && r->nbuilds > 12)
			kb_buf_addf(b, " + %zu more", r->nbuilds - 12);
		kb_buf_adds(b, sum > 0 ? " = " : "");
		duration(b, sum);
		kb_buf_adds(b, " when built (a build found in the cache costs nothing)");
	}
	kb_buf_adds(b, "</li>\n<li>boots: ");
	for (i = 0; i < r->nboots; i++) {
		d[i] = r->boots[i].duration_s;
		ok += r->boots[i].status && !strcmp(r->boots[i].status, "ok");
	}
	spread(d, r->nboots, &sum, &lo, &hi);
	kb_buf_addf(b, "%zu boot%s, ", r->nboots, r->nboots == 1 ? "" : "s");
	duration(b, sum);
	if (r->nboots && isfinite(lo)) {
		kb_buf_adds(b, " (");
		duration(b, lo);
		kb_buf_adds(b, " to ");
		duration(b, hi);
		kb_buf_adds(b, " each: start, boot, workload, poweroff)");
	}
	kb_buf_addf(b, ", %zu ok</li>\n<li>workload: %zu run%s of %s", ok,
		    r->nruns, r->nruns == 1 ? "" : "s", r->info.metric);
	if (isfinite(real_s)) {
		kb_buf_adds(b, ", ");
		duration(b, real_s);
		kb_buf_adds(b, " of them inside the guests (real_s)");
	}
	kb_buf_adds(b, "</li>\n<li>elapsed: ");
	duration(b, r->prog.elapsed_s);
	kb_buf_addf(b, " from its start %s</li>\n",
		    r->info.finished_at ? "to its end" : "until now");
	kb_buf_addf(b,
		    "<li>done: variants %u/%u, builds %u/%u, boots %u",
		    r->prog.variants_done, r->prog.variants_total,
		    r->prog.builds_done, r->prog.builds_total,
		    r->prog.boots_done);
	/* the analysis and bisections add boots past the plan's */
	if (r->prog.boots_done > r->prog.boots_total)
		kb_buf_addf(b, " (%u planned)", r->prog.boots_total);
	else
		kb_buf_addf(b, "/%u", r->prog.boots_total);
	kb_buf_adds(b, " (as <code>kbisect status</code> counts them)</li>\n</ul>\n");
	if (r->info.executor && !strcmp(r->info.executor, "model"))
		rep_note(b, "the model executor stood in for the builds, boots and workload: its times are the model's (time: in the model), not a machine's");
	kb_buf_adds(b, "</section>\n");
out:
	free(d);
	return ret;
}

/* ---- boot means ------------------------------------------------------- */

/* The widest the strip plot's labels may be, px: with its 640 px of
 * plot, the page's width. */
#define STRIP_MAX_LABEL_WIDTH 520

static int strip_plot(struct rep *r, struct kb_err *err)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_buf *b = &r->page, tip = KB_BUF_INIT, lab = KB_BUF_INIT;
	const struct kb_summary *base = r->nvs ? &r->sum[0] : NULL;
	struct kb_svg_axis x;
	struct kb_svg *s = NULL;
	double *all;
	const char **full = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*full));
	char **shown = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*shown));
	size_t i, k, n = 0, room;
	int ret;

	for (i = 0; i < r->nvs; i++)
		n += r->vs[i].nboots;
	all = kb_calloc(n ? n : 1, sizeof(*all));
	for (i = 0, n = 0; i < r->nvs; i++)
		for (k = 0; k < r->vs[i].nboots; k++)
			all[n++] = r->vs[i].boot_means[k];
	if ((ret = kb_svg_axis_auto(all, n, 1, &x, err)))
		goto out;
	o.id = "strip-plot";
	o.title = "boot means of each variant";
	o.x_label = r->info.metric;
	o.nrows = r->nvs;
	o.row_height = r->nvs > 64 ? 14 : 24;
	/*
	 * Room for the labels "#N A=n B=y ...", within reason: the page's
	 * width.  Labels too long for it keep what tells the variants apart
	 * (kb_svg_short_labels(): without the settings all share, then
	 * what differs from the baseline), never cut where they differ;
	 * the whole label is the tooltip, and the tables below.
	 */
	room = kb_svg_label_room(STRIP_MAX_LABEL_WIDTH);
	room = room > 8 ? room - 4 : 4; /* "#N " */
	for (i = 0; i < r->nvs; i++)
		full[i] = r->vs[i].label ? r->vs[i].label : "";
	kb_svg_short_labels(full, r->nvs, room, 0,
			    r->nbisections ? NULL : "baseline", shown);
	for (i = 0, k = 0; i < r->nvs; i++)
		if (strlen(shown[i]) > k)
			k = strlen(shown[i]);
	o.label_width = fmin(fmax(8.0 * (double)(k + 4) + 16, 140),
			     STRIP_MAX_LABEL_WIDTH);
	o.width = o.label_width + 640;
	if ((ret = kb_svg_rows_begin(b, &o, &x, &s, err)))
		goto out;
	if (base && base->n >= 2 && isfinite(base->ci_low) &&
	    isfinite(base->ci_high) && (!x.log || base->ci_low > 0))
		ret = kb_svg_band(s, base->ci_low, base->ci_high, "baseline",
				  "baseline 95% CI", err);
	for (i = 0; !ret && i < r->nvs; i++) {
		const struct kb_store_variant *v = &r->vs[i];
		const char *cls = rep_verdict_class(r, i);

		kb_buf_reset(&lab);
		kb_buf_addf(&lab, "#%u %s", v->idx, shown[i]);
		kb_buf_reset(&tip);
		kb_buf_addf(&tip, "#%u %s: %zu boots, mean %.6g (%s)", v->idx,
			    v->label ? v->label : "", v->nboots,
			    r->sum[i].mean, cls);
		ret = kb_svg_row_label(s, i, lab.buf, tip.buf, err);
		for (k = 0; !ret && k < v->nboots; k++) {
			kb_buf_reset(&tip);
			kb_buf_addf(&tip, "#%u boot %zu of %zu: %.6g", v->idx,
				    k + 1, v->nboots, v->boot_means[k]);
			ret = kb_svg_point(s, i, v->boot_means[k],
					   (double)((int)(k % 5) - 2) * 2.2,
					   3.5, cls, tip.buf, err);
		}
		if (!ret && v->nboots) {
			kb_buf_reset(&tip);
			kb_buf_addf(&tip, "#%u mean %.6g", v->idx,
				    r->sum[i].mean);
			ret = kb_svg_mark(s, i, r->sum[i].mean, NULL, tip.buf,
					  err);
		}
	}
	kb_svg_rows_end(s);
	r->nplots++;
out:
	kb_buf_release(&tip);
	kb_buf_release(&lab);
	free(all);
	for (i = 0; i < r->nvs; i++)
		free(shown[i]);
	free(shown);
	free(full);
	return ret;
}

static int boot_means(struct rep *r, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	size_t i;
	int ret;

	rep_section(b, "boot-means", "Boot means");
	kb_buf_adds(b, "<figure>\n");
	if ((ret = strip_plot(r, err)))
		return ret;
	kb_buf_adds(b, "<figcaption class=\"note\">");
	rep_escf(b, "Each dot is one boot's mean of %s (its runs averaged), coloured by the variant's verdict against the baseline; the bar is the variant's mean; the shaded band is the baseline's 95%% confidence interval of the mean.  A label too long for the plot leaves out what all variants share, or names what differs from the baseline; the whole label is in its tooltip and in the table.",
		 r->info.metric);
	kb_buf_adds(b, "</figcaption>\n</figure>\n");
	kb_buf_adds(b, "<table class=\"results\">\n<thead><tr><th class=\"num\">#</th><th>variant</th><th class=\"num\">n</th><th class=\"num\">mean</th><th class=\"num\">stddev</th><th class=\"num\">change</th><th>failed boots</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < r->nvs; i++) {
		const struct kb_store_variant *v = &r->vs[i];

		kb_buf_adds(b, "<tr><td class=\"num\">");
		rep_variant_link(b, v->idx);
		kb_buf_adds(b, "</td><td>");
		rep_esc(b, v->label);
		kb_buf_addf(b, "</td><td class=\"num\">%zu</td><td class=\"num\">",
			    r->sum[i].n);
		rep_num(b, r->sum[i].mean);
		kb_buf_adds(b, "</td><td class=\"num\">");
		kb_buf_adds(b, kb_format_pct(100 * fabs(r->sum[i].cv), 0).s);
		kb_buf_adds(b, "</td><td class=\"num\">");
		if (i == 0)
			kb_buf_adds(b, "baseline");
		else if (r->sum[0].n && r->sum[i].n)
			kb_buf_adds(b, kb_format_pct(kb_stats_change_pct(
						       r->sum[0].mean,
						       r->sum[i].mean), 1).s);
		else
			kb_buf_addch(b, '-');
		kb_buf_adds(b, "</td><td>");
		if (v->nfailed) {
			kb_buf_addf(b, "%u: ", v->nfailed);
			rep_esc(b, v->last_failure);
		}
		kb_buf_adds(b, "</td></tr>\n");
	}
	kb_buf_adds(b, "</tbody>\n</table>\n</section>\n");
	return 0;
}

/* ---- each variant's boots and runs ------------------------------------ */

static void repro_links(struct rep *r, size_t i)
{
	const struct rep_repro *rr = &r->repro[i];
	struct kb_buf *b = &r->page;
	unsigned idx = r->vs[i].idx;
	size_t k;

	if (!rr->boot_no) {
		rep_note(b, "no evidence to reproduce it from: no boot of it stored a domain XML (the model executor, or boots from before kbisect kept it)");
		return;
	}
	kb_buf_addf(b, "<p class=\"repro\">What boot %u (", rr->boot_no);
	rep_esc(b, rr->status);
	kb_buf_adds(b, ") booted and ran:");
	for (k = 0; k < rr->n; k++) {
		kb_buf_addf(b, " <a href=\"repro/%u/", idx);
		rep_esc(b, rr->names[k]);
		kb_buf_adds(b, "\">");
		rep_esc(b, rr->names[k]);
		kb_buf_adds(b, "</a>");
	}
	kb_buf_addf(b, "; the whole bundle, with the kernel, the initramfs and a boot.sh: <code>kbisect repro %lld %u</code></p>\n",
		    (long long)r->exp, idx);
}

/* The boots of variant @i with their runs, from *@bi and *@ri on. */
static void runs_table(struct rep *r, size_t i, size_t *bi, size_t *ri)
{
	struct kb_buf *b = &r->page;
	unsigned idx = r->vs[i].idx;
	size_t shown = 0, hidden = 0, k, nr;

	while (*bi < r->nboots && r->boots[*bi].idx < idx)
		(*bi)++;
	while (*ri < r->nruns && r->runs[*ri].idx < idx)
		(*ri)++;
	if (*bi >= r->nboots || r->boots[*bi].idx != idx) {
		rep_note(b, "no boot of it is stored");
		return;
	}
	kb_buf_adds(b, "<table class=\"runs\">\n<thead><tr><th class=\"num\">boot</th><th>status</th><th>host</th><th class=\"num\">time</th><th class=\"num\">run</th>");
	kb_buf_adds(b, "<th class=\"num\">");
	rep_esc(b, r->info.metric);
	kb_buf_adds(b, "</th><th class=\"num\">boot mean</th></tr></thead>\n<tbody>\n");
	for (; *bi < r->nboots && r->boots[*bi].idx == idx; (*bi)++) {
		const struct kb_store_boot_row *bt = &r->boots[*bi];
		size_t first = *ri;
		double mean = 0;

		while (*ri < r->nruns && r->runs[*ri].idx == idx &&
		       r->runs[*ri].boot_no < bt->boot_no)
			(*ri)++;
		first = *ri;
		while (*ri < r->nruns && r->runs[*ri].idx == idx &&
		       r->runs[*ri].boot_no == bt->boot_no)
			mean += r->runs[(*ri)++].value;
		nr = *ri - first;
		if (shown >= REPORT_MAX_RUN_ROWS) {
			hidden += nr ? nr : 1;
			continue;
		}
		kb_buf_addf(b, "<tr><td class=\"num\" rowspan=\"%zu\">%u</td><td rowspan=\"%zu\" class=\"%s\">",
			    nr ? nr : 1, bt->boot_no, nr ? nr : 1,
			    bt->status && !strcmp(bt->status, "ok") ? "good"
								    : "bad");
		rep_esc(b, bt->status);
		if (bt->reason) {
			kb_buf_adds(b, ": ");
			rep_esc(b, bt->reason);
		}
		kb_buf_addf(b, "</td><td rowspan=\"%zu\">", nr ? nr : 1);
		rep_esc(b, bt->host ? bt->host : "-");
		kb_buf_addf(b, "</td><td class=\"num\" rowspan=\"%zu\">",
			    nr ? nr : 1);
		duration(b, bt->duration_s);
		kb_buf_adds(b, "</td>");
		if (!nr)
			kb_buf_adds(b, "<td class=\"num\">-</td><td class=\"num\">-</td><td class=\"num\">-</td></tr>\n");
		for (k = 0; k < nr; k++) {
			const struct kb_store_run_value *v =
				&r->runs[first + k];

			if (k)
				kb_buf_adds(b, "<tr>");
			kb_buf_addf(b, "<td class=\"num\">%u</td><td class=\"num\">",
				    v->run_no);
			rep_num(b, v->value);
			kb_buf_adds(b, "</td>");
			if (!k) {
				kb_buf_addf(b, "<td class=\"num\" rowspan=\"%zu\">",
					    nr);
				rep_num(b, mean / (double)nr);
				kb_buf_adds(b, "</td>");
			}
			kb_buf_adds(b, "</tr>\n");
		}
		shown += nr ? nr : 1;
	}
	kb_buf_adds(b, "</tbody>\n</table>\n");
	if (hidden)
		rep_note(b, "%zu more rows are not shown: the database holds them (kbisect results, or the view v_boot_means)",
			 hidden);
}

static void variants(struct rep *r)
{
	struct kb_buf *b = &r->page;
	size_t i, bi = 0, ri = 0;

	rep_section(b, "variants", "Variants: boots and runs");
	rep_note(b, "Every boot of every variant with the value of %s in each workload run, and what it booted and ran, folded under each variant (open one to see them); a boot's mean is what the analysis takes (boots are the replicates).",
		 r->info.metric);
	for (i = 0; i < r->nvs; i++) {
		const struct kb_store_variant *v = &r->vs[i];
		const struct kb_summary *sm = &r->sum[i];

		/* folded, one line each: the answer is above, these are
		 * what it stands on */
		kb_buf_addf(b, "<section class=\"variant\" id=\"variant-%u\">\n<details><summary><strong>",
			    v->idx);
		rep_escf(b, "#%u %s%s", v->idx, v->label ? v->label : "",
			 i == 0 ? " (the baseline)" : "");
		kb_buf_adds(b, "</strong>: ");
		kb_buf_addf(b, "%zu ok boot%s", sm->n, sm->n == 1 ? "" : "s");
		if (sm->n) {
			kb_buf_adds(b, ": mean ");
			rep_num(b, sm->mean);
			kb_buf_adds(b, ", median ");
			rep_num(b, sm->median);
			kb_buf_adds(b, ", stddev ");
			rep_num(b, sm->stddev);
			kb_buf_adds(b, " (");
			kb_buf_adds(b, kb_format_pct(100 * fabs(sm->cv), 0).s);
			kb_buf_adds(b, "), 95% CI of the mean ");
			rep_num(b, sm->ci_low);
			kb_buf_adds(b, " to ");
			rep_num(b, sm->ci_high);
			kb_buf_adds(b, ", from ");
			rep_num(b, sm->min);
			kb_buf_adds(b, " to ");
			rep_num(b, sm->max);
		}
		if (v->build_key) {
			kb_buf_adds(b, "; build key <code>");
			rep_escf(b, "%.16s", v->build_key);
			kb_buf_adds(b, "</code>");
		}
		kb_buf_adds(b, "</summary>\n");
		repro_links(r, i);
		runs_table(r, i, &bi, &ri);
		kb_buf_adds(b, "</details>\n</section>\n");
	}
	kb_buf_adds(b, "</section>\n");
}

/* ---- the whole ---------------------------------------------------------- */

static int page(struct rep *r, struct kb_err *err)
{
	struct kb_buf *b = &r->page;
	int ret;

	/* the answer first: the verdicts, why, a bisection's culprits and
	 * the effects; then the boots they stand on; then what was
	 * measured, where and how long it took */
	head(r);
	rep_compare(r);
	rep_why(r);
	if ((ret = rep_bisections(r, err)))
		return ret;
	rep_effects(r);
	if ((ret = rep_inside(r, err)) || (ret = boot_means(r, err)) ||
	    (ret = rep_drift(r, err)))
		return ret;
	experiment(r);
	environment(r);
	if ((ret = time_went(r, err)))
		return ret;
	variants(r);
	kb_buf_adds(b, "</main>\n<footer>\n<p class=\"note\">Written by <code>kbisect report</code> from the database alone: no script runs and nothing is fetched.  Every figure is one a kbisect verb prints: <code>results</code>, <code>compare</code>, <code>effects</code>, <code>why --no-boots</code>.</p>\n</footer>\n</body>\n</html>\n");
	return 0;
}

void kb_report_result_release(struct kb_report_result *r)
{
	size_t i;

	if (!r)
		return;
	free(r->dir);
	free(r->index);
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	memset(r, 0, sizeof(*r));
}

int rep_finish(struct rep *r, const char *dir, struct kb_report_result *out,
	       struct kb_err *err)
{
	const char *name;
	size_t i;
	int ret;

	if ((ret = rep_put(r, "index.html", r->page.buf, r->page.len, err)) ||
	    (ret = rep_dir_commit(r, dir, &out->dir, &out->replaced, err)))
		return ret;
	out->index = kb_asprintf("%s/index.html", out->dir);
	out->nplots = r->nplots;
	out->files = kb_calloc(r->nfiles ? r->nfiles : 1, sizeof(*out->files));
	for (i = 0, name = r->files.buf; i < r->nfiles;
	     i++, name += strlen(name) + 1)
		out->files[i] = kb_strdup(name);
	out->nfiles = r->nfiles;
	return 0;
}

int kb_report_write(struct kb_store *s, int64_t exp, const char *dir,
		    struct kb_report_result *out, struct kb_err *err)
{
	struct kb_err found = KB_ERR_INIT;
	struct rep r;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.exp = exp;
	kb_buf_init(&r.page);
	kb_buf_init(&r.files);
	ret = kb_store_experiment_get(s, exp, &r.info, &found);
	if (ret == KB_ENOTFOUND) /* the id given names nothing: exit 1, as
				  * results and repro say it */
		ret = kb_err_set(err, KB_ENOTFOUND, "%s: see kbisect history",
				 found.msg);
	else if (ret)
		ret = kb_err_set(err, ret, "%s", found.msg);
	if (ret || (ret = load(&r, err)) ||
	    (ret = rep_dir_open(&r, dir, err)) || (ret = rep_repro(&r, err)))
		goto out;
	rep_analyse(&r);
	if ((ret = page(&r, err)))
		goto out;
	/* what it computed is stored with the experiment, or nothing is
	 * written at all */
	if (r.stored.code) {
		ret = kb_err_set(err, r.stored.code,
				 "cannot store the report's verdicts: %s",
				 r.stored.msg);
		goto out;
	}
	ret = rep_finish(&r, dir, out, err);
out:
	if (ret)
		kb_report_result_release(out);
	rep_release(&r);
	return ret;
}
