#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "matrix.h"
#include "stats.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

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
			 size_t nc)
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
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void results_text(const struct kb_store_info *info,
			 const struct kb_metric_dir *dir, struct row *rows,
			 size_t n, const struct kb_store_host_count *c,
			 size_t nc)
{
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
			 cmd_pct(100 * fabs(r->sum.cv), 0).s);
		if (i == 0)
			snprintf(ch, sizeof(ch), "baseline");
		else
			snprintf(ch, sizeof(ch), "%s", cmd_pct(r->change, 1).s);
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
	if (json)
		results_json(&info, &dir, rows, n, c, nc);
	else
		results_text(&info, &dir, rows, n, c, nc);
out:
	kb_store_host_counts_free(c, nc);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);
	free(rows);
	kb_store_info_release(&info);
	return ret;
}

static const struct kb_opt results_opts[] = {
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_END,
};

static int cmd_results(const struct kb_args *args);

const struct cmd cmd_results_entry = {
	.name = "results",
	.rank = 30,
	.args = "EXPERIMENT",
	.opts = results_opts,
	.fn = cmd_results,
	.summary = "print an experiment's results from the database",
	.help = "Per variant: boots measured (n), mean of the per-boot means,\n"
		"relative standard deviation, and the change against the baseline\n"
		"variant (#0).  Failed builds and boots are listed with their\n"
		"reason.  When the boots ran on several hosts, a line says how many\n"
		"each ran (kbisect hosts ID says more).\n",
};

static int cmd_results(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	const char *db = args->db;
	int64_t exp;
	int json = args->json, ret;

	if (cmd_parse_id(args->pos[0], &exp) < 0)
		return cmd_usage_error("results",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if ((ret = cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, &err)) ||
	    (ret = cmd_print_results(s, exp, json, &err)))
		ret = cmd_fail(&err);
	kb_store_close(s);
	return ret;
}
