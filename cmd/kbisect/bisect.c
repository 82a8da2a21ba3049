#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "bisect.h"
#include "buf.h"
#include "executor.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "model.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

#define SHOW_OPTIONS 6 /* option names shown per probe in the table */

struct show {
	int quiet;
	size_t nchanges;
};

static size_t model_depends(void *arg, const char *option,
			    const char *const **on)
{
	return kb_model_depends(arg, option, on);
}

/* "A B C ... (+5)" for the changes a probe applied. */
static void options_text(const struct kb_bisect_probe *p,
			 const struct kb_bisect_change *changes, size_t total,
			 struct kb_buf *out)
{
	size_t i;

	if (p->napplied == total) {
		kb_buf_addf(out, "all %zu (the bad end)", total);
		return;
	}
	for (i = 0; i < p->napplied && i < SHOW_OPTIONS; i++)
		kb_buf_addf(out, "%s%s", i ? " " : "",
			    changes[p->applied[i]].option);
	if (p->napplied > SHOW_OPTIONS)
		kb_buf_addf(out, " ... (%zu options)", p->napplied);
}

static void print_step(const struct kb_bisect_probe *p,
		       const struct kb_bisect_change *changes, size_t total,
		       FILE *f)
{
	struct kb_buf opts = KB_BUF_INIT;

	options_text(p, changes, total, &opts);
	if (p->cls == KB_BISECT_SKIP)
		fprintf(f, "%5u  %-8s %8s  %-17s %5s  %s: %s\n", p->step,
			kb_bisect_class_name(p->cls), "", "", "", opts.buf,
			p->reason ? p->reason : "");
	else
		fprintf(f, "%5u  %-8s %+7.1f%%  [%+6.1f%%, %+6.1f%%] %5u  %s\n",
			p->step, kb_bisect_class_name(p->cls), p->change_pct,
			p->ci_low, p->ci_high, p->boots, opts.buf);
	kb_buf_release(&opts);
}

static void on_probe(const struct kb_bisect_probe *p,
		     const struct kb_bisect_change *changes, void *arg)
{
	struct show *s = arg;

	if (p->step == 1) /* the bad end: every change */
		s->nchanges = p->napplied;
	if (!s->quiet)
		print_step(p, changes, s->nchanges, stderr);
}

static void print_text(const struct kb_bisect_result *r, const char *metric,
		       const char *good, const char *bad, double alpha)
{
	const struct kb_comparison *e = &r->ends;
	size_t i, k;
	int grouped = 0;

	printf("bisection %lld (experiment %lld): %s -> %s, %zu options"
	       " differ (%zu groups), metric %s\n",
	       (long long)r->bisection, (long long)r->experiment, good, bad,
	       r->nchanges, r->ngroups, metric);
	printf("the ends: %.6g -> %.6g, %+.1f%% [%+.1f%%, %+.1f%%] (%g%% CI),"
	       " p = %.3g, %s; %zu and %zu boots\n",
	       e->a.mean, e->b.mean, e->change_pct, e->ci_low, e->ci_high,
	       100 * (1 - alpha), e->p, kb_verdict_name(e->verdict), e->a.n,
	       e->b.n);
	if (!r->reproduced) {
		printf("\nthe regression does not reproduce: nothing to bisect\n");
		printf("\nspent: %u builds, %u boots, %u runs\n", r->builds,
		       r->boots, r->runs);
		return;
	}
	for (i = 0; i < r->nculprits; i++)
		for (k = 0; k < r->nculprits; k++)
			if (k != i && r->culprits[k].group ==
					      r->culprits[i].group)
				grouped = 1;
	printf("\nculprits%s (a 1-minimal set of the changes: each is needed):\n",
	       r->complete ? "" : " (INCOMPLETE: the probe limit was reached)");
	for (i = 0; i < r->nculprits; i++) {
		const struct kb_bisect_change *c = &r->culprits[i];

		printf("  %-32s %s -> %s", c->option, c->good, c->bad);
		if (grouped)
			printf("   (group %u)", c->group + 1);
		printf("\n");
	}
	if (grouped)
		printf("  options of one group move together: one depends on"
		       " the other\n");
	if (isnan(r->change_pct))
		printf("effect of the culprits alone on good: not measured\n");
	else
		printf("effect of the culprits alone on good: %+.1f%%"
		       " [%+.1f%%, %+.1f%%] (%g%% CI, %u boots)\n",
		       r->change_pct, r->ci_low, r->ci_high,
		       100 * (1 - alpha), r->culprit_boots);
	printf("spent: %u builds, %u boots, %u runs; %zu probes\n", r->builds,
	       r->boots, r->runs, r->nprobes);
	printf("\n%5s  %-8s %8s  %-17s %5s  %s\n", "step", "class", "change",
	       "CI", "boots", "options moved to bad");
	print_step(&r->end, r->changes, r->nchanges, stdout);
	for (i = 0; i < r->nprobes; i++)
		print_step(&r->probes[i], r->changes, r->nchanges, stdout);
}

static void ci_array(struct kb_json *j, double lo, double hi)
{
	kb_json_key(j, "ci_pct");
	kb_json_array_begin(j);
	kb_json_number(j, lo);
	kb_json_number(j, hi);
	kb_json_array_end(j);
}

static void probe_json(struct kb_json *j, const struct kb_bisect_probe *p,
		       const struct kb_bisect_change *changes)
{
	size_t k;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "step", p->step);
	kb_json_kv_int(j, "variant", p->variant_idx);
	kb_json_key(j, "options");
	kb_json_array_begin(j);
	for (k = 0; k < p->napplied; k++)
		kb_json_string(j, changes[p->applied[k]].option);
	kb_json_array_end(j);
	kb_json_kv_string(j, "classification", kb_bisect_class_name(p->cls));
	kb_json_kv_number(j, "change_pct", p->change_pct);
	ci_array(j, p->ci_low, p->ci_high);
	kb_json_kv_number(j, "bad_change_pct", p->bad_change_pct);
	kb_json_kv_number(j, "evidence", p->evidence);
	kb_json_kv_int(j, "boots", p->boots);
	if (p->reason)
		kb_json_kv_string(j, "reason", p->reason);
	kb_json_object_end(j);
}

static void print_json(const struct kb_bisect_result *r, const char *metric,
		       const char *good, const char *bad)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "bisection", r->bisection);
	kb_json_kv_int(j, "experiment", r->experiment);
	kb_json_kv_string(j, "metric", metric);
	kb_json_kv_string(j, "good", good);
	kb_json_kv_string(j, "bad", bad);
	kb_json_kv_bool(j, "reproduces", r->reproduced);
	cmd_json_comparison(j, "ends", &r->ends);
	kb_json_kv_int(j, "changes", (long long)r->nchanges);
	kb_json_kv_int(j, "groups", (long long)r->ngroups);
	kb_json_key(j, "culprits");
	kb_json_array_begin(j);
	for (i = 0; i < r->nculprits; i++) {
		kb_json_object_begin(j);
		kb_json_kv_string(j, "option", r->culprits[i].option);
		kb_json_kv_string(j, "good", r->culprits[i].good);
		kb_json_kv_string(j, "bad", r->culprits[i].bad);
		kb_json_kv_int(j, "group", r->culprits[i].group + 1);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_kv_number(j, "change_pct", r->change_pct);
	ci_array(j, r->ci_low, r->ci_high);
	kb_json_kv_int(j, "culprit_boots", r->culprit_boots);
	kb_json_kv_bool(j, "complete", r->complete);
	kb_json_kv_int(j, "builds", r->builds);
	kb_json_kv_int(j, "boots", r->boots);
	kb_json_kv_int(j, "runs", r->runs);
	kb_json_key(j, "probes");
	kb_json_array_begin(j);
	for (i = 0; i < r->nprobes; i++)
		probe_json(j, &r->probes[i], r->changes);
	kb_json_array_end(j);
	kb_json_object_end(j);
	kb_json_finish(j);
	kb_json_free(j);
	cmd_put(&b);
	kb_buf_release(&b);
}

static int bisect_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "matrix", required_argument, NULL, 'x' },
		{ "model", required_argument, NULL, 'm' },
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_bisect_opts bo = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	const char *good_path = NULL, *bad_path = NULL, *matrix_path = NULL;
	const char *model_path = NULL, *db = NULL, *metric;
	struct kb_kconfig *good = NULL, *bad = NULL;
	struct kb_matrix *m = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *ex = NULL;
	struct kb_store *s = NULL;
	struct kb_bisect_result *r = NULL;
	struct show show = { 0, 0 };
	double scale;
	int json = 0, c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			good_path = optarg;
			break;
		case 'b':
			bad_path = optarg;
			break;
		case 'x':
			matrix_path = optarg;
			break;
		case 'm':
			model_path = optarg;
			break;
		case 'd':
			db = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			show.quiet = 1;
			break;
		default:
			return cmd_usage_error("bisect", "unknown option");
		}
	}
	if (optind != argc)
		return cmd_usage_error("bisect", "unexpected argument '%s'",
				       argv[optind]);
	if (!good_path || !bad_path)
		return cmd_usage_error("bisect",
				       "bisect options needs --good and --bad .config files");

	/* everything that can be refused before the database is touched */
	if ((ret = kb_kconfig_load(good_path, &good, &err)) ||
	    (ret = kb_kconfig_load(bad_path, &bad, &err)))
		goto fail;
	if (matrix_path && (ret = kb_matrix_load(matrix_path, &m, &err)))
		goto fail;
	if (!model_path) {
		kb_err_set(&err, KB_EFAIL,
			   "bisecting with real kernel builds and guests is not in this version yet: pass --model MODEL to bisect on a performance model");
		goto fail;
	}
	if ((ret = kb_model_load(model_path, &model, &err)) ||
	    (ret = kb_model_time_scale_env(&scale, &err)))
		goto fail;
	metric = kb_model_metric(model);
	if (m && strcmp(metric, kb_matrix_workload(m)->metric)) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: the model produces '%s' but the matrix's workload.metric is '%s'",
			   model_path, metric, kb_matrix_workload(m)->metric);
		goto fail;
	}
	if ((ret = kb_model_executor_new(model, scale, &ex))) {
		kb_err_set(&err, ret, "invalid model time scale %g", scale);
		goto fail;
	}
	if ((ret = cmd_open_store(db, &s, &err)))
		goto fail;

	bo.metric = metric;
	bo.higher_is_better = kb_metric_higher_is_better(metric);
	if (m) {
		const struct kb_repeat *rep = kb_matrix_repeat(m);

		bo.boots = rep->boots;
		bo.runs_per_boot = rep->runs_per_boot;
		bo.max_boots = rep->max_boots;
		bo.threshold_pct = kb_matrix_compare(m)->threshold_pct;
		bo.alpha = kb_matrix_compare(m)->alpha;
		bo.name = kb_matrix_name(m);
		bo.matrix_path = kb_matrix_file(m);
		bo.matrix_text = kb_matrix_text(m);
		bo.guest = kb_matrix_guest(m);
	}
	bo.depends = model_depends;
	bo.depends_arg = model;
	bo.good_name = good_path;
	bo.bad_name = bad_path;
	bo.model_text = kb_model_text(model);
	bo.build_salt = kb_model_text(model);
	bo.progress = on_probe;
	bo.progress_arg = &show;
	if (!show.quiet)
		fprintf(stderr, "%5s  %-8s %8s  %-17s %5s  %s\n", "probe",
			"class", "change", "CI", "boots", "options moved to bad");
	ret = kb_bisect_options(s, ex, good, bad, &bo, &r, &err);
	if (ret)
		goto fail;
	if (json)
		print_json(r, metric, good_path, bad_path);
	else
		print_text(r, metric, good_path, bad_path, bo.alpha);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_bisect_result_free(r);
	kb_store_close(s);
	kb_executor_free(ex);
	kb_model_free(model);
	kb_matrix_free(m);
	kb_kconfig_free(good);
	kb_kconfig_free(bad);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	if (argc < 2)
		return cmd_usage_error("bisect",
				       "expected 'options' or 'commits'");
	if (!strcmp(argv[1], "options"))
		return bisect_options(argc - 1, argv + 1);
	if (!strcmp(argv[1], "commits")) {
		fprintf(stderr,
			"kbisect bisect commits: not in this version yet: bisecting kernel revisions comes with the real executor; use 'bisect options' for option changes\n");
		return 1;
	}
	return cmd_usage_error("bisect",
			       "unknown bisection '%s': expected 'options' or 'commits'",
			       argv[1]);
}
