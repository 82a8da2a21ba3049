#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "buf.h"
#include "design.h"
#include "effects.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* Each effect aliased with @e, with its coefficient (kb_design_aliases()). */
static void aliases_json(struct kb_json *j, const struct kb_analysis *a,
			 const struct kb_effect *e)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	struct kb_alias *al = NULL;
	size_t k, n = kb_design_aliases(kb_plan_design(kb_analysis_plan(a)),
					e->f1, e->f2, &al);
	char text[320];

	kb_json_key(j, "aliases");
	kb_json_array_begin(j);
	for (k = 0; k < n; k++) {
		kb_json_object_begin(j);
		snprintf(text, sizeof(text), "%s%s%s",
			 kb_matrix_factor(m, al[k].f1)->name,
			 al[k].f2 != al[k].f1 ? ":" : "",
			 al[k].f2 != al[k].f1 ? kb_matrix_factor(m, al[k].f2)->name
					      : "");
		kb_json_kv_string(j, "effect", text);
		kb_json_kv_number(j, "coefficient", al[k].coef);
		snprintf(text, sizeof(text), al[k].den == 1 ? "%d" : "%d/%d",
			 al[k].num, al[k].den);
		kb_json_kv_string(j, "fraction", text);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	free(al);
}

/* One estimate's numbers: change, interval, p, adjusted p. */
static void numbers_json(struct kb_json *j, const struct kb_effect *e)
{
	kb_json_kv_number(j, "log_effect", e->log_effect);
	kb_json_kv_number(j, "change_pct", e->change_pct);
	kb_json_key(j, "ci_pct");
	kb_json_array_begin(j);
	kb_json_number(j, e->ci_low_pct);
	kb_json_number(j, e->ci_high_pct);
	kb_json_array_end(j);
	kb_json_kv_number(j, "p", e->p);
	kb_json_kv_number(j, "p_adjusted", e->p_adjusted);
}

/* "conditions", "within" (each main effect at each level of them) and
 * "depends" (whether it changes with the level): the @n estimates after
 * the ranked ones. */
static void conditions_json(struct kb_json *j, const struct kb_analysis *a,
			    const struct kb_effect *e, size_t n)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	size_t i, pass;

	if (!kb_matrix_nconditions(m))
		return;
	kb_json_key(j, "conditions");
	kb_json_array_begin(j);
	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			kb_json_string(j, kb_matrix_factor(m, i)->name);
	kb_json_array_end(j);
	for (pass = 0; pass < 2; pass++) {
		kb_json_key(j, pass ? "depends" : "within");
		kb_json_array_begin(j);
		for (i = 0; i < n; i++) {
			if (e[i].depends != (int)pass)
				continue;
			kb_json_object_begin(j);
			kb_json_kv_string(j, "name", e[i].name);
			kb_json_kv_string(j, pass ? "levels" : "level",
					  e[i].within);
			numbers_json(j, &e[i]);
			kb_json_kv_bool(j,
					pass ? "changes_with_level"
					     : "significant",
					e[i].significant);
			kb_json_object_end(j);
		}
		kb_json_array_end(j);
	}
}

static void effects_json(struct kb_analysis *a,
			 const struct kb_effect *e, size_t n, double cv,
			 double df, const struct kb_host_effect *h, size_t nh)
{
	unsigned nrounds = kb_analysis_nrounds(a);
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i, nrank = kb_effects_nranked(e, n);

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
	kb_json_kv_string(j, "metric", kb_analysis_metric(a));
	kb_json_kv_string(j, "better",
			  kb_metric_better_name(kb_analysis_direction(a)));
	kb_json_kv_string(j, "better_source",
			  kb_metric_source_name(kb_analysis_direction(a)->source));
	kb_json_kv_string(j, "adjustment", KB_EFFECTS_ADJUST);
	kb_json_kv_string(j, "design",
			  kb_design_name(kb_matrix_design(
				  kb_plan_matrix(kb_analysis_plan(a)))));
	kb_json_kv_number(j, "residual_cv_pct", cv);
	kb_json_kv_number(j, "df", df);
	/* what the fit took out as blocks: the hosts, the run order's
	 * rounds (lib/order.h), or both (a round is one host's) */
	kb_json_kv_string(j, "blocks",
			  nrounds > 1 ? (nh > 1 ? "host x round" : "round")
			  : nh > 1    ? "host"
				      : NULL);
	kb_json_kv_int(j, "rounds", nrounds);
	cmd_json_drift(j, a);
	cmd_json_sentinel(j, a);
	cmd_json_host_effects(j, "hosts", h, nh);
	kb_json_key(j, "effects");
	kb_json_array_begin(j);
	for (i = 0; i < nrank; i++) {
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
		aliases_json(j, a, &e[i]);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	conditions_json(j, a, e + nrank, n - nrank);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/*
 * The @n estimates within the conditions' levels (after the ranked
 * ones): each main effect at each level, then whether it changes with
 * the level.
 */
static void conditions_text(const struct kb_analysis *a,
			    const struct kb_effect *e, size_t n)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	size_t i, k = 0, nc = kb_matrix_nconditions(m);
	int width = 6, lwidth = 5;
	char ci[72];

	for (i = 0; i < n; i++) {
		if ((int)strlen(e[i].name) > width)
			width = (int)strlen(e[i].name);
		if (!e[i].depends && (int)strlen(e[i].within) > lwidth)
			lwidth = (int)strlen(e[i].within);
	}
	printf("\n");
	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			printf("%s%s", k++ ? ", " : "",
			       kb_matrix_factor(m, i)->name);
	printf(" %s a condition: no cause, compared within each level (above:\n"
	       "the effects averaged over %s levels).  Each main effect at each level:\n\n",
	       nc == 1 ? "is" : "are each", nc == 1 ? "its" : "their");
	printf("%-*s  %-*s %9s  %-20s %9s %9s\n", width, "effect", lwidth,
	       "level", "change", "95% CI", "p", "p Holm");
	for (i = 0; i < n; i++) {
		snprintf(ci, sizeof(ci), "[%s, %s]",
			 kb_format_pct(e[i].ci_low_pct, 1).s,
			 kb_format_pct(e[i].ci_high_pct, 1).s);
		if (!e[i].depends) {
			printf("%-*s  %-*s %9s  %-20s %9.2g %9.2g %s\n", width,
			       e[i].name, lwidth, e[i].within,
			       kb_format_pct(e[i].change_pct, 1).s, ci,
			       e[i].p, e[i].p_adjusted,
			       kb_format_stars(e[i].p_adjusted));
			continue;
		}
		printf("%-*s  depends on the level: %s, %s %s at %s (p %.2g, p Holm %.2g%s%s)\n",
		       width, "", e[i].significant ? "yes" : "no evidence",
		       kb_format_pct(e[i].change_pct, 1).s, ci, e[i].within,
		       e[i].p, e[i].p_adjusted,
		       e[i].significant ? " " : "",
		       kb_format_stars(e[i].p_adjusted));
	}
	printf("\nA change at a level is the factor's change within that level, averaged\n"
	       "over the other factors.  \"depends on the level\" tests each level's\n"
	       "change against the first level's: shown is the level that differs most,\n"
	       "by how much its change differs, and p over every level (Bonferroni).\n");
}

static void effects_text(struct kb_analysis *a,
			 const struct kb_effect *e, size_t n, double cv,
			 double df, const char *sizes,
			 const struct kb_host_effect *h, size_t nh)
{
	unsigned nrounds = kb_analysis_nrounds(a);
	int width = 6;
	size_t i, nall = n;

	n = kb_effects_nranked(e, nall);
	for (i = 0; i < n; i++)
		if ((int)strlen(e[i].name) > width)
			width = (int)strlen(e[i].name);
	printf("effects on %s in experiment %lld \"%s\" (multiplicative, log scale)\n",
	       kb_analysis_metric(a), (long long)kb_analysis_info(a)->id,
	       kb_analysis_info(a)->name);
	printf("%s: %s\n", kb_analysis_metric(a),
	       kb_metric_dir_text(kb_analysis_direction(a)));
	if (nrounds > 1 && nh > 1)
		printf("boot-to-boot CV %.1f%% (pooled over variants, the %u rounds on %zu hosts a block each, %g degrees of freedom)\n\n",
		       cv, nrounds, nh, df);
	else if (nrounds > 1)
		printf("boot-to-boot CV %.1f%% (pooled over variants, the %u rounds a block each, %g degrees of freedom)\n\n",
		       cv, nrounds, df);
	else if (nh > 1)
		printf("boot-to-boot CV %.1f%% (pooled over variants, the %zu hosts a block, %g degrees of freedom)\n\n",
		       cv, nh, df);
	else
		printf("boot-to-boot CV %.1f%% (pooled over variants, %g degrees of freedom)\n\n",
		       cv, df);
	cmd_print_drift(stdout, a);
	if (cmd_print_sentinel(stdout, a) >= 0)
		putchar('\n');
	printf("%4s  %-*s %9s  %-20s %9s %9s\n", "rank", width, "effect",
	       "change", "95% CI", "p", "p Holm");
	for (i = 0; i < n; i++) {
		char ci[72];

		char *al = kb_effects_aliases_text(&e[i], sizes);

		snprintf(ci, sizeof(ci), "[%s, %s]",
			 kb_format_pct(e[i].ci_low_pct, 1).s,
			 kb_format_pct(e[i].ci_high_pct, 1).s);
		printf("%4zu  %-*s %9s  %-20s %9.2g %9.2g %-3s%s\n",
		       i + 1, width, e[i].name, kb_format_pct(e[i].change_pct, 1).s,
		       ci, e[i].p, e[i].p_adjusted, kb_format_stars(e[i].p_adjusted),
		       al);
		free(al);
	}
	if (n && strchr(e[0].name, '=')) /* levels: lib/effects_levels.c */
		printf("\nF=L is the change from factor F's first level to its level L,\n"
		       "averaged over the other factors; F=L:G=K is how much F=L's change\n"
		       "differs between G's first level and K.\n");
	else
		printf("\nA main effect is the change from a factor's first level to its second,\n"
		       "averaged over the other factors; A:B is half the change of A's effect\n"
		       "between B's levels.\n");
	if (nall > n)
		conditions_text(a, e + n, nall - n);
	printf("The %zu %s one family: \"p Holm\" is p adjusted by Holm's\n"
	       "method, and significance (p Holm < %g) and the stars come from it:\n"
	       "* < 0.05, ** < 0.01, *** < 0.001.\n",
	       nall, nall > n ? "estimates and tests are" : "effects are",
	       kb_analysis_opts(a)->alpha);
	if (nh > 1) {
		printf("\nThe boots ran on %zu hosts: the host is a block beside the variants\n"
		       "(an additive effect per host, fitted with them), so the effects above\n"
		       "are the variants' alone and the hosts' differences are not in their\n"
		       "variance.  The hosts, each against the first:\n\n",
		       nh);
		cmd_print_host_effects(stdout, h, nh);
	}
	if (n && e[0].npartial)
		printf("\nPlackett-Burman design: main effects only.  Each is partially aliased\n"
		       "with two-way interactions of other factors: its estimate also holds\n"
		       "%s of each of them (kbisect plan lists them, --json gives each with\n"
		       "its coefficient), so a large main effect may be an interaction.  No\n"
		       "interaction can be told apart from the main effects: confirm the few\n"
		       "large effects with a full or fractional design of their factors.\n",
		       sizes);
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
		"effects of a fractional design are named.  A Plackett-Burman\n"
		"design gives main effects only, each partially aliased with\n"
		"two-way interactions (--json lists them with their coefficients).\n"
		"When the boots ran on several hosts, the host is a block: fitted\n"
		"beside the variants, its differences are printed apart and left\n"
		"out of the variance.  So is each round of the run order\n"
		"(repeat.order: blocks, the default): a drift of the host over the\n"
		"run leaves the variance too.  A sentinel (repeat.sentinel) is no\n"
		"level of any factor: its comparison with the baseline is printed\n"
		"apart, the experiment's own A/A.\n",
	.epilog = "Example:\n  kbisect effects 1\n",
};

static int cmd_effects(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct kb_effect *e = NULL;
	struct kb_host_effect *h = NULL;
	char *sizes = NULL;
	const char *db = args->db;
	const char *metric = CMD_ARGS(struct effects_args, args)->metric;
	size_t n = 0, nh = 0;
	double cv = NAN, df = 0, hdf;
	int json = args->json, ret;

	if ((ret = cmd_open_analysis(db, args->pos[0], metric, &s, &a,
				     &err)) ||
	    (ret = kb_effects_estimate(a, &e, &n, &cv, &df, &err)) ||
	    (ret = kb_effects_hosts(a, &h, &nh, &hdf, &err)))
		goto fail;
	cmd_warn_environments(s, kb_analysis_info(a)->id, -1, -1);
	if (cmd_store_writable(s) &&
	    (ret = kb_effects_store(a, e, n, &err)))
		goto fail;
	sizes = kb_design_alias_sizes(kb_plan_design(kb_analysis_plan(a)));
	if (json)
		effects_json(a, e, n, cv, df, h, nh);
	else
		effects_text(a, e, n, cv, df, sizes, h, nh);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(sizes);
	free(e);
	free(h);
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
