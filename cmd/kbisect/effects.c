#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "buf.h"
#include "effects.h"
#include "json.h"
#include "mem.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

static void effects_json(const struct kb_analysis *a,
			 const struct kb_effect *e, size_t n, double cv,
			 double df)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
	kb_json_kv_string(j, "metric", kb_analysis_metric(a));
	kb_json_kv_string(j, "better",
			  kb_metric_better_name(kb_analysis_direction(a)));
	kb_json_kv_string(j, "better_source",
			  kb_metric_source_name(kb_analysis_direction(a)->source));
	kb_json_kv_string(j, "adjustment", KB_EFFECTS_ADJUST);
	kb_json_kv_number(j, "residual_cv_pct", cv);
	kb_json_kv_number(j, "df", df);
	kb_json_key(j, "effects");
	kb_json_array_begin(j);
	for (i = 0; i < n; i++) {
		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", e[i].name);
		kb_json_kv_string(j, "kind",
				  e[i].interaction ? "interaction" : "main");
		kb_json_kv_number(j, "log_effect", e[i].log_effect);
		kb_json_kv_number(j, "change_pct", e[i].change_pct);
		kb_json_key(j, "ci_pct");
		kb_json_array_begin(j);
		kb_json_number(j, e[i].ci_low_pct);
		kb_json_number(j, e[i].ci_high_pct);
		kb_json_array_end(j);
		kb_json_kv_number(j, "p", e[i].p);
		kb_json_kv_number(j, "p_adjusted", e[i].p_adjusted);
		kb_json_kv_bool(j, "significant", e[i].significant);
		kb_json_kv_string(j, "aliases",
				  e[i].aliases[0] ? e[i].aliases : NULL);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void effects_text(const struct kb_analysis *a,
			 const struct kb_effect *e, size_t n, double cv,
			 double df)
{
	int width = 6;
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(e[i].name) > width)
			width = (int)strlen(e[i].name);
	printf("effects on %s in experiment %lld \"%s\" (multiplicative, log scale)\n",
	       kb_analysis_metric(a), (long long)kb_analysis_info(a)->id,
	       kb_analysis_info(a)->name);
	printf("%s: %s\n", kb_analysis_metric(a),
	       kb_metric_dir_text(kb_analysis_direction(a)));
	printf("boot-to-boot CV %.1f%% (pooled over variants, %g degrees of freedom)\n\n",
	       cv, df);
	printf("%4s  %-*s %9s  %-20s %9s %9s\n", "rank", width, "effect",
	       "change", "95% CI", "p", "p Holm");
	for (i = 0; i < n; i++) {
		char ci[72];

		snprintf(ci, sizeof(ci), "[%s, %s]",
			 cmd_pct(e[i].ci_low_pct, 1).s,
			 cmd_pct(e[i].ci_high_pct, 1).s);
		printf("%4zu  %-*s %9s  %-20s %9.2g %9.2g %-3s%s%s\n",
		       i + 1, width, e[i].name, cmd_pct(e[i].change_pct, 1).s,
		       ci, e[i].p, e[i].p_adjusted, cmd_stars(e[i].p_adjusted),
		       e[i].aliases[0] ? " aliased with " : "",
		       e[i].aliases);
	}
	printf("\nA main effect is the change from a factor's first level to its second,\n"
	       "averaged over the other factors; A:B is half the change of A's effect\n"
	       "between B's levels.  The %zu effects are one family: \"p Holm\" is p adjusted\n"
	       "by Holm's method, and significance (p Holm < %g) and the stars come\n"
	       "from it: * < 0.05, ** < 0.01, *** < 0.001.\n",
	       n, kb_analysis_opts(a)->alpha);
}

struct effects_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *metric;
};

static const struct kb_opt effects_opts[] = {
	KB_OPT_STRING(struct effects_args, metric, 0, "metric", "M",
		      "the metric to analyse (default: the experiment's)"),
	KB_OPT_DB,
	KB_OPT_JSON("print the effects as JSON"),
	KB_OPT_END,
};

static int cmd_effects(const struct kb_args *args);

const struct cmd cmd_effects_entry = {
	.name = "effects",
	.rank = 50,
	.args = "EXPERIMENT",
	.opts = effects_opts,
	.size = sizeof(struct effects_args),
	.fn = cmd_effects,
	.summary = "main effects and two-way interactions of a two-level design",
	.help = "For full and fractional designs of two-level factors: every\n"
		"factor's main effect and every pair's interaction, multiplicative\n"
		"(estimated on the log scale), with confidence intervals and\n"
		"p-values, raw and adjusted by Holm's method over all the effects\n"
		"(significance is from the adjusted one), ranked by size.  Aliased\n"
		"effects of a fractional design are named.\n",
	.epilog = "Example:\n  kbisect effects 1\n",
};

static int cmd_effects(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct kb_effect *e = NULL;
	struct kb_store_analysis *rows = NULL;
	char **details = NULL;
	const char *db = args->db;
	const char *metric = CMD_ARGS(struct effects_args, args)->metric;
	size_t n = 0, i;
	double cv = NAN, df = 0;
	int json = args->json, ret;

	if ((ret = cmd_open_analysis(db, args->pos[0], metric, &s, &a,
				     &err)) ||
	    (ret = kb_effects_estimate(a, &e, &n, &cv, &df, &err)))
		goto fail;
	cmd_warn_environments(s, kb_analysis_info(a)->id, -1, -1);
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		abort();
	details = calloc(n ? n : 1, sizeof(*details));
	if (!details)
		abort();
	for (i = 0; i < n; i++) {
		/* the adjusted p and the call travel in the detail */
		details[i] = kb_asprintf("holm-adjusted p %.3g of %zu: %s%s%s",
					 e[i].p_adjusted, n,
					 e[i].significant ? "significant"
							  : "not significant",
					 e[i].aliases[0] ? "; aliased with "
							 : "",
					 e[i].aliases);
		rows[i] = (struct kb_store_analysis){
			e[i].interaction ? "interaction" : "main-effect",
			kb_analysis_metric(a), -1, -1, e[i].name,
			e[i].change_pct, e[i].ci_low_pct, e[i].ci_high_pct,
			e[i].p, "t", NULL, details[i]
		};
	}
	if ((ret = cmd_store_analyses(s, kb_analysis_info(a)->id, rows, n,
				      &err)))
		goto fail;
	if (json)
		effects_json(a, e, n, cv, df);
	else
		effects_text(a, e, n, cv, df);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	for (i = 0; details && i < n; i++)
		free(details[i]);
	free(details);
	free(rows);
	free(e);
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
