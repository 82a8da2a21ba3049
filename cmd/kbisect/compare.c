#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "buf.h"
#include "compare.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "monitors.h"
#include "profiles.h"
#include "plan.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* A side's mean as a row shows it: "-" when the side has no value of the
 * metric (another variant's metric), never "nan". */
static const char *mean_text(char *buf, size_t n, const struct kb_summary *m)
{
	if (!m->n || !isfinite(m->mean))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.6g", m->mean);
	return buf;
}

/* The name of @c's test in the table's lines. */
static const char *test_text(const struct kb_comparison *c)
{
	switch (c->test) {
	case KB_COMPARE_SIGNED_RANK:
		return "signed-rank";
	case KB_COMPARE_PAIRED_T:
		return "paired t";
	case KB_COMPARE_WELCH_T:
		return "Welch t on the logs";
	case KB_COMPARE_MANN_WHITNEY:
		break;
	}
	return "Mann-Whitney";
}

/* How @c paired its boots, one line under the experiment's metric. */
static void print_pairing(const struct kb_comparison *c)
{
	if (!kb_compare_is_paired(c)) {
		if (c->npairs)
			printf("%14s unpaired: only %zu rounds hold boots of both (%d needed to pair)\n",
			       "", c->npairs, KB_COMPARE_MIN_PAIRS);
		else
			printf("%14s unpaired: no round holds boots of both\n",
			       "");
		return;
	}
	printf("%14s paired within %zu rounds", "", c->npairs);
	if (c->unpaired)
		printf(" (%zu boot%s in no pair left out)", c->unpaired,
		       c->unpaired == 1 ? "" : "s");
	if (c->test == KB_COMPARE_PAIRED_T)
		printf(": the paired t test of the log ratios\n");
	else
		printf(": the exact signed-rank test (values <= 0: no log ratio)\n");
}

struct compare_args {
	struct kb_args common; /* first: CMD_ARGS */
	int adaptive;
	const char *max_added;
};

/* The boots --adaptive may add: both sides to repeat.max_boots. */
static size_t adaptive_bound(const struct kb_analysis *a, int ia, int ib)
{
	unsigned max = kb_matrix_repeat(kb_plan_matrix(kb_analysis_plan(a)))
			       ->max_boots;
	size_t na = 0, nb = 0;

	if (!kb_analysis_values(a, (unsigned)ia, &na))
		na = 0;
	if (!kb_analysis_values(a, (unsigned)ib, &nb))
		nb = 0;
	return (na < max ? max - na : 0) + (nb < max ? max - nb : 0);
}

/* Whether a comparison of #@ia with #@ib involves the baseline and the
 * experiment has a sentinel that is neither: its A/A is then said. */
static int baseline_aa(const struct kb_analysis *a, int ia, int ib)
{
	int s = kb_plan_sentinel(kb_analysis_plan(a));

	return s >= 0 && (ia == 0 || ib == 0) && ia != s && ib != s;
}

static const struct kb_opt compare_opts[] = {
	KB_OPT_BOOL(struct compare_args, adaptive, 0, "adaptive",
		    "boot inconclusive variants again, up to repeat.max_boots: on the stored model, or through libvirt on the matrix's hosts for real experiments (exit 2 for other executors)"),
	KB_OPT_STRING(struct compare_args, max_added, 0, "max-added-boots", "N",
		      "--adaptive adds N boots at most (0: none); the comparison stays inconclusive when they do not decide"),
	KB_OPT_DB,
	KB_OPT_JSON("print the comparison as JSON"),
	KB_OPT_END,
};

static int cmd_compare(const struct kb_args *args);

const struct cmd cmd_compare_entry = {
	.name = "compare",
	.rank = 40,
	.args = "EXPERIMENT A B",
	.opts = compare_opts,
	.size = sizeof(struct compare_args),
	.fn = cmd_compare,
	.summary = "compare two variants of an experiment, metric by metric",
	.help = "A and B are variant numbers (see kbisect results) or exact labels.\n"
		"Per metric: each side's mean and relative standard deviation over\n"
		"boots, the change of B against A with a confidence interval, a test,\n"
		"and a verdict: regression or improvement (by the metric's direction:\n"
		"the interval excludes no change and the change is at least\n"
		"compare.threshold_pct), no-change (the interval inside the\n"
		"threshold) or inconclusive.  One test decides, and the interval\n"
		"shown is its own: the t test of the change on the log scale\n"
		"(docs/analysis.md, \"The rule\").  When 3 or more rounds\n"
		"(repeat.order: blocks) hold a boot of each side, on one host, the\n"
		"boots are paired within rounds: the paired t test of the log ratios\n"
		"within rounds, which a drift of the host leaves out; boots in no pair\n"
		"are left out and counted.  Otherwise unpaired: Welch's t test on the\n"
		"logs.  Values <= 0 leave no log scale: an exact rank test decides.\n"
		"--adaptive looks again after added rounds: each look then decides at\n"
		"a level calibrated for its test, which keeps false alarms at alpha,\n"
		"and from half of repeat.max_boots it stops, inconclusive, when even\n"
		"max_boots would not decide (futility).  Before the first boot it\n"
		"says on stderr how many it may add (both sides to max_boots, or\n"
		"--max-added-boots N) and how long they may take (the mean boot on\n"
		"the experiment's hosts); on a terminal it asks before more than\n"
		"20 unless --max-added-boots is given.\n"
		"\n"
		"After the metrics, the monitors that changed: the guest's\n"
		"(workload.monitors) and, for real boots, the host's over each boot\n"
		"(host.cpu_busy_pct, host.guest_cpu_s, host.other_busy_pct,\n"
		"host.loadavg_start/end): Welch's t test per monitor, Holm over them,\n"
		"each side's mean with its ±%stddev and the %change, as LKP prints\n"
		"them; they are no part of any verdict (docs/analysis.md,\n"
		"\"Monitors\").  Then, when the boots carry a profile\n"
		"(workload.profile), the functions whose share of the samples\n"
		"changed: each boot a replicate, Welch's t per function, Holm over\n"
		"them, the change in points with its 95% interval (docs/analysis.md,\n"
		"\"Profiles\"); --json lists every changed one.\n"
		"\n"
		"Boots are added to model experiments on their stored model, and to\n"
		"real ones (executor libvirt) as `run` boots them, after the kbisect-*\n"
		"guests of a dead owner are destroyed, from the kernel build the database\n"
		"holds for the variant (built again only when it holds none).  They\n"
		"go over every host of the stored matrix, one at a time, each variant's\n"
		"as evenly as `run` spreads them; a host that fails 3 boots in a row\n"
		"for reasons of its own is drained (its failures are not stored as\n"
		"boots), and when every host is drained it stops (exit 1).  Each boot\n"
		"is stored as it ends; boots that fail stop the sampling.  SIGINT or\n"
		"SIGTERM destroys the running guest and exits 128 + the signal's\n"
		"number, the boots that ended stored.\n",
	.epilog = "Example:\n  kbisect compare 1 0 4\n",
};

static int cmd_compare(const struct kb_args *args)
{
	const struct compare_args *o = CMD_ARGS(struct compare_args, args);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct cmd_analysis_boots boots;
	struct kb_store_analysis *rows = NULL;
	char **details = NULL;
	struct kb_metric_dir *dirs = NULL;
	struct kb_comparison main_cmp;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = NULL;
	const char *db = args->db;
	char **metrics = NULL, **pos = args->pos;
	size_t nmetrics = 0, nabsent = 0, nzero = 0, i;
	unsigned nenv;
	int disjoint;
	int json = args->json, adaptive = o->adaptive, ret, ia, ib;

	memset(&boots, 0, sizeof(boots));
	if ((ret = cmd_open_analysis(db, pos[0], NULL, &s, &a, &err)))
		goto fail;
	if (adaptive && kb_store_read_only(s)) {
		kb_err_set(&err, KB_EFAIL,
			   "--adaptive adds boots, but the database cannot be written here");
		goto fail;
	}
	if (cmd_parse_variant(a, pos[1], &ia) < 0 ||
	    cmd_parse_variant(a, pos[2], &ib) < 0) {
		kb_err_set(&err, KB_EINPUT,
			   "no variant '%s' in experiment %s: give a number from kbisect results or an exact label",
			   cmd_parse_variant(a, pos[1], &ia) < 0
				   ? pos[1]
				   : pos[2],
			   pos[0]);
		goto fail;
	}
	/* the executor that adds the boots: the stored model's, or a real
	 * one opened now (never silently none) */
	if (adaptive && (ret = cmd_analysis_boots_open(&boots, a, s, &err)))
		goto fail;
	if (o->max_added && !adaptive) {
		ret = cmd_usage_error("compare",
				      "--max-added-boots caps what --adaptive adds: give --adaptive too");
		goto out;
	}
	if (adaptive &&
	    (ret = cmd_analysis_budget(a, s, "compare --adaptive",
				       adaptive_bound(a, ia, ib), o->max_added)))
		goto out;
	if ((ret = kb_store_metrics(s, kb_analysis_info(a)->id, &metrics,
				    &nmetrics, &err)))
		goto fail;
	rows = calloc(nmetrics ? nmetrics : 1, sizeof(*rows));
	details = calloc(nmetrics ? nmetrics : 1, sizeof(*details));
	dirs = calloc(nmetrics ? nmetrics : 1, sizeof(*dirs));
	if (!rows || !details || !dirs)
		abort();
	memset(&main_cmp, 0, sizeof(main_cmp));
	main_cmp.alpha = kb_analysis_opts(a)->alpha;
	nenv = cmd_warn_environments(s, kb_analysis_info(a)->id, ia, ib);
	disjoint = cmd_warn_disjoint_hosts(a, (unsigned)ia, (unsigned)ib);
	if (json) {
		j = kb_json_new(&b, 1);
		kb_json_object_begin(j);
		kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
		kb_json_kv_int(j, "a", ia);
		kb_json_kv_string(j, "a_label",
				  kb_plan_variant(kb_analysis_plan(a), ia)->label);
		kb_json_kv_int(j, "b", ib);
		kb_json_kv_string(j, "b_label",
				  kb_plan_variant(kb_analysis_plan(a), ib)->label);
		kb_json_kv_int(j, "environments", nenv);
		kb_json_kv_bool(j, "disjoint_hosts", disjoint);
		kb_json_key(j, "metrics");
		kb_json_object_begin(j);
	} else {
		printf("experiment %lld \"%s\"\n  A = #%d %s\n  B = #%d %s\n\n",
		       (long long)kb_analysis_info(a)->id,
		       kb_analysis_info(a)->name, ia,
		       kb_plan_variant(kb_analysis_plan(a), ia)->label, ib,
		       kb_plan_variant(kb_analysis_plan(a), ib)->label);
		printf("%14s %7s %11s %14s %7s   %-13s %s\n", "A mean",
		       "±%sd", "%change", "B mean", "±%sd", "verdict",
		       "metric");
	}
	for (i = 0; i < nmetrics; i++) {
		struct kb_comparison cmp;
		const struct kb_metric_dir *dir = &dirs[i];
		char ma[32], mb[32];
		int main_metric = !strcmp(metrics[i], kb_analysis_metric(a));

		/* the experiment's metric (adaptive with --adaptive) on @a;
		 * each other one reads its values of the two variants alone */
		if (main_metric) {
			dirs[i] = *kb_analysis_direction(a);
			ret = kb_analysis_compare(a, (unsigned)ia, (unsigned)ib,
						  adaptive, &cmp, &err);
		} else {
			ret = kb_analysis_compare_metric(a, metrics[i],
							 (unsigned)ia,
							 (unsigned)ib, &cmp,
							 &dirs[i], &err);
		}
		if (ret)
			goto fail;
		kb_analysis_compare_row(&cmp, metrics[i], (unsigned)ia,
					(unsigned)ib, &details[i], &rows[i]);
		if (main_metric)
			main_cmp = cmp;
		if (json) {
			cmd_json_comparison(j, metrics[i], &cmp);
			continue;
		}
		/* a metric of other variants only (a command's copies above
		 * these variants' number): no row of nans */
		if (!main_metric && !cmp.a.n && !cmp.b.n) {
			nabsent++;
			continue;
		}
		/* nor one that is 0 in every boot of both (a read job's
		 * write_*): no change can be told, and none happened */
		if (!main_metric && cmp.a.n && cmp.b.n && cmp.a.min == 0 &&
		    cmp.a.max == 0 && cmp.b.min == 0 && cmp.b.max == 0) {
			nzero++;
			continue;
		}
		printf("%14s %7s %11s%-3s %11s %7s   %-13s %s%s\n",
		       mean_text(ma, sizeof(ma), &cmp.a),
		       kb_format_pct(100 * fabs(cmp.a.cv), 0).s,
		       kb_format_pct(cmp.change_pct, 1).s, kb_format_stars(cmp.p),
		       mean_text(mb, sizeof(mb), &cmp.b),
		       kb_format_pct(100 * fabs(cmp.b.cv), 0).s,
		       kb_verdict_name(cmp.verdict), metrics[i],
		       main_metric ? "  (the experiment's metric)" : "");
		if (main_metric) {
			printf("%14s n = %zu vs %zu boots, %.3g%% CI of the change [%s, %s], %s p = %.3g\n",
			       "", cmp.a.n, cmp.b.n, 100 * (1 - cmp.alpha),
			       kb_format_pct(cmp.ci_low, 1).s,
			       kb_format_pct(cmp.ci_high, 1).s, test_text(&cmp),
			       cmp.p);
			print_pairing(&cmp);
			if (cmp.futile)
				printf("%14s stopped for futility at %zu boots a side: inconclusive, it would need more than repeat.max_boots (%u) to decide\n",
				       "", cmp.a.n < cmp.b.n ? cmp.a.n : cmp.b.n,
				       kb_matrix_repeat(kb_plan_matrix(kb_analysis_plan(a)))->max_boots);
			printf("%14s %s\n", "", kb_metric_dir_text(dir));
		} else if (dir->source == KB_METRIC_GUESSED) {
			printf("%14s %s\n", "", kb_metric_dir_text(dir));
		}
		if (cmp.nonpositive)
			printf("%14s %zu value%s <= 0: no interval on the log scale, so no no-change verdict\n",
			       "", cmp.nonpositive,
			       cmp.nonpositive == 1 ? "" : "s");
	}
	if ((ret = cmd_store_analyses(s, kb_analysis_info(a)->id, rows,
				      nmetrics, &err)))
		goto fail;
	/* the guest's monitors that changed, never part of a verdict:
	 * after the metrics (and their footnotes) */
	if (json)
		kb_json_object_end(j);
	if (json && ((ret = cmd_compare_monitors(s, kb_analysis_info(a)->id,
						 ia, ib,
						 kb_analysis_opts(a)->alpha,
						 j, &err)) ||
		     (ret = cmd_compare_profiles(s, kb_analysis_info(a)->id,
						 ia, ib,
						 kb_analysis_opts(a)->alpha,
						 j, &err))))
		goto fail;
	if (json) {
		kb_json_key(j, "better");
		kb_json_object_begin(j);
		for (i = 0; i < nmetrics; i++)
			kb_json_kv_string(j, metrics[i],
					  kb_metric_better_name(&dirs[i]));
		kb_json_object_end(j);
		kb_json_key(j, "better_source");
		kb_json_object_begin(j);
		for (i = 0; i < nmetrics; i++)
			kb_json_kv_string(j, metrics[i],
					  kb_metric_source_name(dirs[i].source));
		kb_json_object_end(j);
		if (baseline_aa(a, ia, ib))
			cmd_json_sentinel(j, a);
		kb_json_object_end(j);
		kb_json_finish(j);
		cmd_put(&b);
	} else {
		double t = kb_analysis_opts(a)->threshold_pct;

		if (nabsent)
			printf("(%zu metric%s of the experiment measured in neither variant left out)\n",
			       nabsent, nabsent == 1 ? "" : "s");
		if (nzero)
			printf("(%zu metric%s 0 in every boot of both variants left out)\n",
			       nzero, nzero == 1 ? "" : "s");

		if (main_cmp.test == KB_COMPARE_MANN_WHITNEY ||
		    main_cmp.test == KB_COMPARE_SIGNED_RANK)
			printf("\n* p < 0.05, ** p < 0.01, *** p < 0.001 (%s: values <= 0, no log scale); a verdict needs p < %.3g and |change| >= %g%%;\n"
			       "no-change needs the interval inside ±%g%% and boots enough that p < %.3g was possible\n",
			       main_cmp.test == KB_COMPARE_MANN_WHITNEY
				       ? "Mann-Whitney U"
				       : test_text(&main_cmp),
			       main_cmp.alpha, t, t, main_cmp.alpha);
		else
			printf("\n* p < 0.05, ** p < 0.01, *** p < 0.001 (%s); a verdict needs p < %.3g (so the %.3g%% interval\n"
			       "excludes 0) and a change of %g%% or more; no-change needs the interval inside ±%g%%\n",
			       test_text(&main_cmp), main_cmp.alpha,
			       100 * (1 - main_cmp.alpha), t, t);
		if (main_cmp.looks > 1)
			printf("%.3g is the %s test's level for each of %u looks (Pocock's boundary calibrated for it), which keeps the false alarms of adaptive sampling at alpha = %g\n",
			       main_cmp.alpha, test_text(&main_cmp),
			       main_cmp.looks, kb_analysis_opts(a)->alpha);
		if (baseline_aa(a, ia, ib)) {
			putchar('\n');
			cmd_print_sentinel(stdout, a);
		}
		if ((ret = cmd_compare_monitors(s, kb_analysis_info(a)->id,
						ia, ib,
						kb_analysis_opts(a)->alpha,
						NULL, &err)) ||
		    (ret = cmd_compare_profiles(s, kb_analysis_info(a)->id,
						ia, ib,
						kb_analysis_opts(a)->alpha,
						NULL, &err)))
			goto fail;
	}
	if (adaptive)
		cmd_analysis_budget_note(a, "compare --adaptive");
	ret = 0;
	goto out;
fail:
	ret = cmd_analysis_boots_fail(&boots, &err);
out:
	cmd_analysis_boots_close(&boots);
	for (i = 0; i < nmetrics; i++) {
		free(metrics[i]);
		if (details)
			free(details[i]);
	}
	free(metrics);
	free(details);
	free(dirs);
	free(rows);
	kb_json_free(j);
	kb_buf_release(&b);
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
