/*
 * What several verbs print (print.h): an experiment's results, the
 * comparison of two variants as JSON, the hosts against the first, the
 * daemon's progress, the warnings about environments and hosts, and JSON
 * written to stdout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "printable.h"
#include "analysis.h"
#include "buf.h"
#include "build.h"
#include "compare.h"
#include "effects.h"
#include "err.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "protocol.h"
#include "stats.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* ---- JSON on stdout ------------------------------------------------------ */

void cmd_put(const struct kb_buf *b)
{
	fwrite(b->buf, 1, b->len, stdout);
}

void cmd_json_put(struct kb_json *j, struct kb_buf *b)
{
	kb_json_finish(j);
	kb_json_free(j);
	cmd_put(b);
	kb_buf_release(b);
}

/* ---- an experiment's results (results, run, resume) ---------------------- */

struct row {
	struct kb_store_variant *v;
	struct kb_summary sum;
	double change; /* vs the baseline, percent; NaN when unknown */
};

/* Whether the hosts are worth a line: boots on more than one, or a
 * host's own failures. */
static int hosts_worth(const struct kb_store_host_count *c, size_t nc)
{
	size_t i;

	for (i = 0; i < nc; i++)
		if (c[i].failures || c[i].drained)
			return 1;
	return nc > 1;
}

static void results_json(const struct kb_store_info *info,
			 const struct kb_metric_dir *dir, struct row *rows,
			 size_t n, const struct kb_store_host_count *c,
			 size_t nc, struct kb_analysis *an)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_key(j, "experiment");
	kb_json_object_begin(j);
	kb_json_kv_int(j, "id", info->id);
	kb_json_kv_string(j, "name", info->name);
	kb_json_kv_string(j, "state", info->state);
	kb_json_kv_string(j, "executor", info->executor);
	kb_json_kv_string(j, "design", info->design);
	kb_json_kv_string(j, "generators", info->generators);
	kb_json_kv_string(j, "metric", info->metric);
	kb_json_kv_bool(j, "higher_is_better", dir->higher_is_better);
	kb_json_kv_string(j, "better", kb_metric_better_name(dir));
	kb_json_kv_string(j, "better_source",
			  kb_metric_source_name(dir->source));
	kb_json_kv_int(j, "boots_per_variant", info->boots);
	kb_json_kv_int(j, "runs_per_boot", info->runs_per_boot);
	kb_json_kv_string(j, "created_at", info->created_at);
	kb_json_kv_string(j, "finished_at", info->finished_at);
	kb_json_kv_string(j, "error", info->error);
	kb_json_object_end(j);
	kb_json_key(j, "variants");
	kb_json_array_begin(j);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		kb_json_object_begin(j);
		kb_json_kv_int(j, "id", r->v->idx);
		kb_json_kv_string(j, "label", r->v->label);
		kb_json_kv_string(j, "build_key", r->v->build_key);
		kb_json_kv_int(j, "n", (long long)r->sum.n);
		kb_json_kv_number(j, "mean", r->sum.mean);
		kb_json_kv_number(j, "median", r->sum.median);
		kb_json_kv_number(j, "stddev", r->sum.stddev);
		kb_json_kv_number(j, "cv", r->sum.cv);
		kb_json_kv_number(j, "ci_low", r->sum.ci_low);
		kb_json_kv_number(j, "ci_high", r->sum.ci_high);
		kb_json_kv_number(j, "min", r->sum.min);
		kb_json_kv_number(j, "max", r->sum.max);
		kb_json_kv_number(j, "change_pct", r->change);
		kb_json_kv_bool(j, "sentinel", r->v->sentinel);
		kb_json_kv_int(j, "failed_boots", r->v->nfailed);
		kb_json_kv_string(j, "failure", r->v->last_failure);
		kb_json_key(j, "boot_means");
		kb_json_array_begin(j);
		for (size_t k = 0; k < r->v->nboots; k++)
			kb_json_number(j, r->v->boot_means[k]);
		kb_json_array_end(j);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	/* boots per host (docs/guests.md, "Several hosts") */
	kb_json_key(j, "hosts");
	kb_json_array_begin(j);
	for (i = 0; i < nc; i++) {
		kb_json_object_begin(j);
		kb_json_kv_string(j, "host", c[i].host);
		kb_json_kv_int(j, "boots", c[i].boots);
		kb_json_kv_int(j, "ok", c[i].ok);
		kb_json_kv_int(j, "host_failures", c[i].failures);
		kb_json_kv_bool(j, "drained", c[i].drained);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	/* the drift check and the sentinel (docs/analysis.md, "The run
	 * order"): null when the experiment's plan cannot be read */
	if (an) {
		cmd_json_drift(j, an);
		cmd_json_sentinel(j, an);
	} else {
		kb_json_key(j, "drift");
		kb_json_null(j);
		kb_json_key(j, "sentinel");
		kb_json_null(j);
	}
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void results_text(const struct kb_store_info *info,
			 const struct kb_metric_dir *dir, struct row *rows,
			 size_t n, const struct kb_store_host_count *c,
			 size_t nc, struct kb_analysis *an)
{
	struct kb_drift d;
	struct kb_buf b = KB_BUF_INIT; /* names, labels and errors stored */
	int width = 7;
	size_t i;

	printf("experiment %lld \"%s\": %s; %s design, %s executor\n",
	       (long long)info->id, cmd_printable(info->name, 0, &b),
	       info->state, info->design, info->executor);
	printf("metric %s (%s); %u boots x %u runs per variant; runs averaged per boot, boots are the replicates\n",
	       info->metric,
	       dir->source == KB_METRIC_GUESSED
		       ? kb_metric_dir_text(dir)
		       : dir->higher_is_better ? "higher is better"
					       : "lower is better",
	       info->boots, info->runs_per_boot);
	if (!strcmp(info->state, "interrupted"))
		printf("interrupted: %s; 'kbisect resume %lld' carries it on\n",
		       info->error ? cmd_printable(info->error, 1, &b)
				   : "its kbisect process is gone",
		       (long long)info->id);
	else if (info->error)
		printf("stopped by an error: %s\n",
		       cmd_printable(info->error, 1, &b));
	for (i = 0; i < n; i++)
		if ((int)strlen(cmd_printable(rows[i].v->label, 0, &b)) > width)
			width = (int)strlen(cmd_printable(rows[i].v->label, 0,
							  &b));
	printf("\n%3s  %-*s %4s %14s %8s %9s\n", "#", width, "variant", "n",
	       "mean", "stddev", "change");
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char sd[32] = "-", ch[32] = "-", mean[32] = "-";

		if (r->sum.n)
			snprintf(mean, sizeof(mean), "%.6g", r->sum.mean);
		snprintf(sd, sizeof(sd), "%s",
			 kb_format_pct(100 * fabs(r->sum.cv), 0).s);
		if (i == 0)
			snprintf(ch, sizeof(ch), "baseline");
		else
			snprintf(ch, sizeof(ch), "%s", kb_format_pct(r->change, 1).s);
		printf("%3u  %-*s %4zu %14s %8s %9s\n", r->v->idx, width,
		       cmd_printable(r->v->label, 0, &b), r->sum.n, mean, sd,
		       ch);
		if (r->v->nfailed)
			printf("%3s  %u failed boot%s: %s\n", "",
			       r->v->nfailed, r->v->nfailed == 1 ? "" : "s",
			       r->v->last_failure
				       ? cmd_printable(r->v->last_failure, 1, &b)
				       : "");
	}
	/* the drift check and the experiment's own A/A, when there is
	 * something to say */
	if (an) {
		kb_analysis_drift(an, &d);
		if (d.flagged || kb_plan_sentinel(kb_analysis_plan(an)) >= 0)
			putchar('\n');
		cmd_print_drift(stdout, an);
		cmd_print_sentinel(stdout, an);
	}
	if (hosts_worth(c, nc)) {
		printf("\nboots per host:");
		for (i = 0; i < nc; i++) {
			printf("%s %s %u", i ? "," : "",
			       c[i].host ? cmd_printable(c[i].host, 0, &b)
					 : "?",
			       c[i].boots);
			if (c[i].failures || c[i].drained)
				printf(" (%s%u failure%s of its own, not counted)",
				       c[i].drained ? "drained, " : "",
				       c[i].failures,
				       c[i].failures == 1 ? "" : "s");
		}
		printf("; see kbisect hosts %lld\n", (long long)info->id);
	}
	kb_buf_release(&b);
}

/*
 * The direction of experiment @info's metric: workload.better from the
 * matrix stored with it (read from the database alone), else the known
 * metric's or the name's guess (also when the stored matrix does not
 * parse in this version).
 */
static struct kb_metric_dir stored_direction(struct kb_store *s,
					     const struct kb_store_info *info)
{
	struct kb_store_experiment_text text;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_metric_dir d;

	memset(&text, 0, sizeof(text));
	if (kb_store_experiment_text(s, info->id, &text, &err) == 0 &&
	    text.matrix_yaml)
		(void)kb_matrix_parse_stored(text.matrix_yaml,
					     strlen(text.matrix_yaml),
					     text.matrix_path ? text.matrix_path
							      : "matrix.yaml",
					     &m, &err);
	d = kb_metric_direction(m ? kb_matrix_workload(m) : NULL,
				info->metric);
	kb_matrix_free(m);
	kb_store_experiment_text_release(&text);
	return d;
}

int cmd_print_results(struct kb_store *s, int64_t exp, int json,
		      struct kb_err *err)
{
	struct kb_store_info info;
	struct kb_store_variant *vs = NULL;
	struct kb_metric_dir dir;
	struct row *rows = NULL;
	struct kb_store_host_count *c = NULL;
	struct kb_analysis *an = NULL;
	struct kb_err ignored = KB_ERR_INIT;
	size_t n = 0, nc = 0, i;
	int ret;

	memset(&info, 0, sizeof(info));
	if ((ret = kb_store_experiment_get(s, exp, &info, err)))
		return ret;
	if ((ret = kb_store_variants(s, exp, info.metric, &vs, &n, err)) ||
	    (ret = kb_store_host_counts(s, exp, &c, &nc, err)))
		goto out;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		abort();
	for (i = 0; i < n; i++) {
		rows[i].v = &vs[i];
		kb_stats_summary(vs[i].boot_means, vs[i].nboots, &rows[i].sum);
		rows[i].change = NAN;
		if (rows[0].sum.n && rows[i].sum.n)
			rows[i].change = kb_stats_change_pct(rows[0].sum.mean,
							     rows[i].sum.mean);
	}
	cmd_warn_environments(s, exp, -1, -1);
	dir = stored_direction(s, &info);
	/* the analysis, for the drift check and the sentinel: none when the
	 * stored matrix no longer plans (the table above needs no plan) */
	if (kb_analysis_open(s, exp, NULL, &an, &ignored) == 0)
		kb_analysis_no_sampling(an);
	if (json)
		results_json(&info, &dir, rows, n, c, nc, an);
	else
		results_text(&info, &dir, rows, n, c, nc, an);
out:
	kb_analysis_free(an);
	kb_store_host_counts_free(c, nc);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);
	free(rows);
	kb_store_info_release(&info);
	return ret;
}

/* ---- comparisons and their warnings (compare, effects, why, bisect) ------ */

unsigned cmd_warn_environments(struct kb_store *s, int64_t exp, int a, int b)
{
	struct kb_err err = KB_ERR_INIT;
	unsigned n = 0;

	if (kb_store_environments(s, exp, a, b, &n, &err) == 0 && n > 1)
		fprintf(stderr,
			"kbisect: warning: these boots ran in %u different environments (host, hypervisor or libvirt version, host kernel or CPU): differences may come from them; see the view v_boot_environment\n",
			n);
	return n;
}

void cmd_json_comparison(struct kb_json *j, const char *key,
			 const struct kb_comparison *c)
{
	kb_json_key(j, key);
	kb_json_object_begin(j);
	kb_json_kv_int(j, "n_a", (long long)c->a.n);
	kb_json_kv_number(j, "mean_a", c->a.mean);
	kb_json_kv_number(j, "stddev_a", c->a.stddev);
	kb_json_kv_int(j, "n_b", (long long)c->b.n);
	kb_json_kv_number(j, "mean_b", c->b.mean);
	kb_json_kv_number(j, "stddev_b", c->b.stddev);
	kb_json_kv_number(j, "change_pct", c->change_pct);
	kb_json_key(j, "ci_pct");
	kb_json_array_begin(j);
	kb_json_number(j, c->ci_low);
	kb_json_number(j, c->ci_high);
	kb_json_array_end(j);
	kb_json_kv_number(j, "p", c->p);
	kb_json_kv_string(j, "verdict", kb_verdict_name(c->verdict));
	kb_json_kv_number(j, "alpha", c->alpha);
	kb_json_kv_int(j, "looks", c->looks);
	kb_json_kv_number(j, "min_p", c->min_p);
	kb_json_kv_int(j, "nonpositive", (long long)c->nonpositive);
	/* paired within rounds, or not (lib/compare.h) */
	kb_json_kv_string(j, "test", kb_compare_test_name(c->test));
	kb_json_kv_string(j, "pairing", kb_compare_is_paired(c) ? "paired"
								 : "unpaired");
	kb_json_kv_int(j, "pairs", (long long)c->npairs);
	kb_json_kv_int(j, "unpaired_boots", (long long)c->unpaired);
	kb_json_kv_bool(j, "futile", c->futile);
	kb_json_object_end(j);
}

/* ---- the hosts against the first (hosts, effects, compare) --------------- */

void cmd_print_host_effects(FILE *f, const struct kb_host_effect *h,
			    size_t n)
{
	struct kb_buf safe = KB_BUF_INIT;
	int width = 4;
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(h[i].host) > width)
			width = (int)strlen(h[i].host);
	fprintf(f, "  %-*s %6s %9s  %-20s %9s\n", width, "host", "boots",
		"change", "95% CI", "p");
	for (i = 0; i < n; i++) {
		char ci[72];

		if (i == 0) {
			fprintf(f, "  %-*s %6zu %9s\n", width,
				cmd_printable(h[i].host, 0, &safe),
				h[i].nboots, "(the first)");
			continue;
		}
		snprintf(ci, sizeof(ci), "[%s, %s]",
			 kb_format_pct(h[i].ci_low_pct, 1).s,
			 kb_format_pct(h[i].ci_high_pct, 1).s);
		fprintf(f, "  %-*s %6zu %9s  %-20s %9.2g %s\n", width,
			cmd_printable(h[i].host, 0, &safe), h[i].nboots,
			kb_format_pct(h[i].change_pct, 1).s, ci, h[i].p,
			kb_format_stars(h[i].p));
	}
	kb_buf_release(&safe);
}

void cmd_json_host_effects(struct kb_json *j, const char *key,
			   const struct kb_host_effect *h, size_t n)
{
	size_t i;

	kb_json_key(j, key);
	kb_json_array_begin(j);
	for (i = 0; i < n; i++) {
		kb_json_object_begin(j);
		kb_json_kv_string(j, "host", h[i].host);
		kb_json_kv_int(j, "boots", (long long)h[i].nboots);
		kb_json_kv_number(j, "mean", h[i].mean);
		kb_json_kv_number(j, "log_effect", h[i].log_effect);
		kb_json_kv_number(j, "change_pct", h[i].change_pct);
		kb_json_key(j, "ci_pct");
		kb_json_array_begin(j);
		kb_json_number(j, h[i].ci_low_pct);
		kb_json_number(j, h[i].ci_high_pct);
		kb_json_array_end(j);
		kb_json_kv_number(j, "p", h[i].p);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
}

int cmd_warn_disjoint_hosts(const struct kb_analysis *an, unsigned a,
			    unsigned b)
{
	const char *const *ha, *const *hb;
	size_t na, nb, i, j;

	ha = kb_analysis_hosts(an, a, &na);
	hb = kb_analysis_hosts(an, b, &nb);
	if (!na || !nb)
		return 0;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (ha[i] && hb[j] && !strcmp(ha[i], hb[j]))
				return 0;
	fprintf(stderr,
		"kbisect: warning: variants #%u and #%u ran on hosts that do not overlap (#%u on %s..., #%u on %s...): their difference may be the hosts'; see kbisect hosts %lld\n",
		a, b, a, ha[0] ? ha[0] : "?", b, hb[0] ? hb[0] : "?",
		(long long)kb_analysis_info(an)->id);
	return 1;
}

/* ---- the daemon's progress (status, watch) ------------------------------- */

char *cmd_duration(double s)
{
	long t;

	if (isnan(s) || s < 0)
		return kb_asprintf("?");
	if (s < 10)
		return kb_asprintf("%.1fs", s);
	t = (long)(s + 0.5);
	if (t < 60)
		return kb_asprintf("%lds", t);
	if (t < 3600)
		return kb_asprintf("%ldm%02lds", t / 60, t % 60);
	return kb_asprintf("%ldh%02ldm", t / 3600, t / 60 % 60);
}

void cmd_print_progress(const struct kb_msg_progress *p, FILE *f)
{
	char *el = cmd_duration(p->elapsed_s), *eta = cmd_duration(p->eta_s);
	struct kb_buf safe = KB_BUF_INIT; /* what the daemon stored */

	fprintf(f, "#%lld %s: %s%s\n", (long long)p->id,
		p->name ? cmd_printable(p->name, 0, &safe) : "?",
		p->state ? p->state : "?",
		p->cancel_requested && p->state && !strcmp(p->state, "running")
			? " (cancelling after the running step)"
			: "");
	fprintf(f, "  variants %u/%u, builds %u/%u, boots %u/%u, elapsed %s",
		p->variants_done, p->variants_total, p->builds_done,
		p->builds_total, p->boots_done, p->boots_total, el);
	if (p->state &&
	    (!strcmp(p->state, "running") || !strcmp(p->state, "queued")))
		fprintf(f, ", ETA %s", eta);
	fputc('\n', f);
	if (!isnan(p->build_mean_s) || !isnan(p->boot_mean_s)) {
		char *b = cmd_duration(p->build_mean_s);
		char *o = cmd_duration(p->boot_mean_s);

		fprintf(f, "  measured: build %s, boot %s\n", b, o);
		free(b);
		free(o);
	}
	if (p->current)
		fprintf(f, "  now: %s\n", cmd_printable(p->current, 0, &safe));
	if (p->hosts)
		fprintf(f, "  boots per host: %s\n",
			cmd_printable(p->hosts, 0, &safe));
	if (p->error)
		fprintf(f, "  error: %s\n", cmd_printable(p->error, 1, &safe));
	kb_buf_release(&safe);
	free(el);
	free(eta);
}

void cmd_json_progress(struct kb_json *j, const struct kb_msg_progress *p)
{
	kb_json_object_begin(j);
	kb_json_kv_int(j, "id", p->id);
	kb_json_kv_string(j, "name", p->name);
	kb_json_kv_string(j, "state", p->state);
	kb_json_kv_string(j, "executor", p->executor);
	kb_json_kv_bool(j, "cancel_requested", p->cancel_requested);
	kb_json_kv_int(j, "variants_done", p->variants_done);
	kb_json_kv_int(j, "variants_total", p->variants_total);
	kb_json_kv_int(j, "builds_done", p->builds_done);
	kb_json_kv_int(j, "builds_total", p->builds_total);
	kb_json_kv_int(j, "builds_running", p->builds_running);
	kb_json_kv_int(j, "boots_done", p->boots_done);
	kb_json_kv_int(j, "boots_total", p->boots_total);
	kb_json_kv_int(j, "boots_running", p->boots_running);
	kb_json_kv_string(j, "current", p->current);
	kb_json_kv_string(j, "hosts", p->hosts);
	kb_json_kv_number(j, "build_mean_s", p->build_mean_s);
	kb_json_kv_number(j, "boot_mean_s", p->boot_mean_s);
	kb_json_kv_number(j, "elapsed_s", p->elapsed_s);
	kb_json_kv_number(j, "eta_s", p->eta_s);
	kb_json_kv_string(j, "error", p->error);
	kb_json_object_end(j);
}

void cmd_make_units(const struct kb_build_progress *p, char *out,
		    size_t len)
{
	if (p->units_full)
		snprintf(out, len, ", %u/%u units (%.0f%%)", p->units,
			 p->units_full, 100.0 * p->units / p->units_full);
	else
		snprintf(out, len, ", %u units", p->units);
}

void cmd_print_drift(FILE *f, const struct kb_analysis *a)
{
	struct kb_drift d;

	kb_analysis_drift(a, &d);
	if (!d.flagged)
		return;
	fprintf(f, "drift: the boots changed by %s [%s, %s] from the first to the last\n"
		"(p %.2g, beside the variants' differences)%s\n\n",
		kb_format_pct(d.change_pct, 1).s,
		kb_format_pct(d.ci_low_pct, 1).s,
		kb_format_pct(d.ci_high_pct, 1).s, d.p,
		kb_analysis_nrounds(a) > 1
		       ? ": the boots ran in randomised rounds, so it is noise to the answers, not an effect"
		       : ": the boots ran in no rounds, so an effect may be the drift's (repeat.order: blocks)");
}

void cmd_json_drift(struct kb_json *j, const struct kb_analysis *a)
{
	struct kb_drift d;

	kb_analysis_drift(a, &d);
	kb_json_key(j, "drift");
	if (!d.nboots) {
		kb_json_null(j);
		return;
	}
	kb_json_object_begin(j);
	kb_json_kv_number(j, "change_pct", d.change_pct);
	kb_json_key(j, "ci_pct");
	kb_json_array_begin(j);
	kb_json_number(j, d.ci_low_pct);
	kb_json_number(j, d.ci_high_pct);
	kb_json_array_end(j);
	kb_json_kv_number(j, "p", d.p);
	kb_json_kv_bool(j, "flagged", d.flagged);
	kb_json_object_end(j);
}

/* ---- the sentinel: the experiment's own A/A (results, effects, compare) -- */

/* The sentinel of @a against the baseline into *@c: its index, or -1 when
 * there is none or no comparison (too few boots, an error). */
static int sentinel_compare(struct kb_analysis *a, struct kb_comparison *c)
{
	struct kb_err err = KB_ERR_INIT;
	int s = kb_plan_sentinel(kb_analysis_plan(a));
	size_t na, nb;

	if (s < 0)
		return -1;
	kb_analysis_values(a, 0, &na);
	kb_analysis_values(a, (unsigned)s, &nb);
	if (na < 2 || nb < 2 ||
	    kb_analysis_compare(a, 0, (unsigned)s, 0, c, &err))
		return -1;
	return s;
}

/* Whether the sentinel differs from the baseline: the rank test's p
 * below the level the comparison decided at. */
static int sentinel_differs(const struct kb_comparison *c)
{
	return c->p < c->alpha;
}

int cmd_print_sentinel(FILE *f, struct kb_analysis *a)
{
	struct kb_comparison c;
	char what[64];

	if (sentinel_compare(a, &c) < 0)
		return -1;
	if (sentinel_differs(&c))
		snprintf(what, sizeof(what), "differs from the baseline, p %.2g",
			 c.p);
	else
		snprintf(what, sizeof(what), "%s",
			 c.verdict == KB_VERDICT_NO_CHANGE ? "no change"
							   : "inconclusive");
	fprintf(f, "sentinel: %s [%s, %s], %s (the experiment's own A/A)\n",
		kb_format_pct(c.change_pct, 1).s, kb_format_pct(c.ci_low, 1).s,
		kb_format_pct(c.ci_high, 1).s, what);
	if (!sentinel_differs(&c))
		return 0;
	fflush(f);
	fprintf(stderr,
		"kbisect: warning: the sentinel, the baseline's kernel booted again, differs from the baseline (p %.2g < %.2g): this experiment's false alarms are above their nominal level, so do not trust its verdicts (docs/analysis.md, \"A/A: the sentinel\")\n",
		c.p, c.alpha);
	return 1;
}

void cmd_json_sentinel(struct kb_json *j, struct kb_analysis *a)
{
	struct kb_comparison c;
	int s = sentinel_compare(a, &c);

	kb_json_key(j, "sentinel");
	if (s < 0) {
		kb_json_null(j);
		return;
	}
	kb_json_object_begin(j);
	kb_json_kv_int(j, "variant", s);
	cmd_json_comparison(j, "against_baseline", &c);
	kb_json_kv_bool(j, "differs", sentinel_differs(&c));
	kb_json_object_end(j);
}

const char *cmd_spread(char buf[CMD_SPREAD_LEN], const struct kb_summary *s)
{
	if (!isfinite(s->cv) || s->n < 2)
		snprintf(buf, CMD_SPREAD_LEN, "%5s", "");
	else
		snprintf(buf, CMD_SPREAD_LEN, "±%3.0f%%", 100 * fabs(s->cv));
	return buf;
}
