#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "buf.h"
#include "json.h"
#include "store.h"
#include "why.h"
#include "banned.h"

static const char *fname(const struct kb_analysis *a, size_t f)
{
	return kb_matrix_factor(kb_plan_matrix(kb_analysis_plan(a)), f)->name;
}

static const char *label(const struct kb_analysis *a, unsigned v)
{
	return kb_plan_variant(kb_analysis_plan(a), v)->label;
}

static void why_json(const struct kb_analysis *a, const struct kb_why *w)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i, k;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
	kb_json_kv_string(j, "metric", kb_analysis_metric(a));
	kb_json_kv_int(j, "good", w->good);
	kb_json_kv_string(j, "good_label", label(a, w->good));
	kb_json_kv_int(j, "bad", w->bad);
	kb_json_kv_string(j, "bad_label", label(a, w->bad));
	cmd_json_comparison(j, "total", &w->total);
	kb_json_kv_bool(j, "reproduces", w->reproduces);
	kb_json_key(j, "culprits");
	kb_json_array_begin(j);
	for (i = 0; i < w->nculprits; i++) {
		const struct kb_why_culprit *c = &w->culprits[i];

		kb_json_object_begin(j);
		kb_json_kv_string(j, "option", fname(a, c->factor));
		kb_json_kv_string(j, "good", c->good);
		kb_json_kv_string(j, "bad", c->bad);
		cmd_json_comparison(j, "in_context", &c->in_context);
		cmd_json_comparison(j, "alone", &c->alone);
		kb_json_kv_bool(j, "independent", c->independent);
		kb_json_key(j, "depends_on");
		kb_json_array_begin(j);
		for (k = 0; k < c->ninter; k++) {
			const struct kb_why_interaction *in = &c->inter[k];

			if (!in->significant)
				continue;
			kb_json_object_begin(j);
			kb_json_kv_string(j, "factor", fname(a, in->factor));
			kb_json_kv_string(j, "level", in->level);
			kb_json_kv_number(j, "change_pct", in->c.change_pct);
			kb_json_kv_number(j, "p", in->p);
			kb_json_object_end(j);
		}
		kb_json_array_end(j);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_kv_int(j, "boots_added", w->boots_added);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void print_change(const struct kb_comparison *c)
{
	if (isnan(c->change_pct)) {
		printf("not measured by this design");
		return;
	}
	printf("%s [%s, %s], %s (n = %zu vs %zu)", cmd_pct(c->change_pct, 1).s,
	       cmd_pct(c->ci_low, 1).s, cmd_pct(c->ci_high, 1).s,
	       kb_verdict_name(c->verdict), c->a.n, c->b.n);
}

static void why_text(const struct kb_analysis *a, const struct kb_why *w)
{
	size_t i, k;

	printf("why is #%u worse than #%u? (experiment %lld, %s)\n",
	       w->bad, w->good, (long long)kb_analysis_info(a)->id,
	       kb_analysis_metric(a));
	printf("  good #%u %s\n  bad  #%u %s\n  change: ", w->good,
	       label(a, w->good), w->bad, label(a, w->bad));
	print_change(&w->total);
	printf("\n\n");
	if (!w->reproduces) {
		printf("The regression does not reproduce: the verdict is %s, so there is nothing to explain.\n",
		       kb_verdict_name(w->total.verdict));
		goto done;
	}
	printf("%zu of the %zu differing factor%s explain%s it: ", w->nculprits,
	       w->ndiff, w->ndiff == 1 ? "" : "s",
	       w->nculprits == 1 ? "s" : "");
	for (i = 0; i < w->nculprits; i++)
		printf("%s%s %s->%s", i ? ", " : "",
		       fname(a, w->culprits[i].factor), w->culprits[i].good,
		       w->culprits[i].bad);
	if (w->set_variant != w->bad)
		printf("\n(#%u, the good variant with only %s, is as bad as #%u)\n",
		       w->set_variant,
		       w->nculprits == 1 ? "that change" : "those changes",
		       w->bad);
	else if (w->nculprits > 1)
		printf("\n(%s needed: no smaller set of these changes makes #%u as bad as #%u)\n",
		       w->nculprits == 2 ? "both are" : "all are", w->good,
		       w->bad);
	for (i = 0; i < w->nculprits; i++) {
		const struct kb_why_culprit *c = &w->culprits[i];
		int any = 0;

		printf("\n%s %s -> %s\n", fname(a, c->factor), c->good,
		       c->bad);
		printf("  alone, from the good variant:  ");
		print_change(&c->alone);
		printf("\n  in the bad variant's context:  ");
		print_change(&c->in_context);
		printf("\n");
		for (k = 0; k < c->ninter; k++) {
			const struct kb_why_interaction *in = &c->inter[k];

			if (!in->significant)
				continue;
			if (!any)
				printf("  its effect depends on:\n");
			any = 1;
			printf("    %s=%s: ", fname(a, in->factor), in->level);
			print_change(&in->c);
			printf(" (interaction p = %.2g)\n", in->p);
		}
		if (c->independent)
			printf("  an independent regression: no other factor changes its effect\n");
	}
done:
	if (w->boots_added)
		printf("\nadaptive sampling added %u boot%s to decide inconclusive comparisons\n",
		       w->boots_added, w->boots_added == 1 ? "" : "s");
}

struct why_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *good;
	const char *bad;
};

static const struct kb_opt why_opts[] = {
	KB_OPT_STRING(struct why_args, good, 0, "good", "VARIANT",
		      "the good variant, a number or an exact label (default: the baseline, #0)"),
	KB_OPT_STRING(struct why_args, bad, 0, "bad", "VARIANT",
		      "the bad variant (default: the worst)"),
	KB_OPT_DB,
	KB_OPT_JSON("print the explanation as JSON"),
	KB_OPT_END,
};

static int cmd_why(const struct kb_args *args);

const struct cmd cmd_why_entry = {
	.name = "why",
	.rank = 60,
	.args = "EXPERIMENT",
	.opts = why_opts,
	.size = sizeof(struct why_args),
	.fn = cmd_why,
	.summary = "explain a regression: which factor changes cause it",
	.help = "By default the baseline (#0) is good and the worst variant bad.\n"
		"Finds the smallest set of the factors in which they differ whose\n"
		"change alone reproduces the regression; for each, its effect with\n"
		"a confidence interval and how other factors change it\n"
		"(interactions).  Inconclusive comparisons get more boots, up to\n"
		"repeat.max_boots, when the experiment can run again.\n",
	.epilog = "Example:\n  kbisect why 1\n",
};

static int cmd_why(const struct kb_args *args)
{
	const struct why_args *o = CMD_ARGS(struct why_args, args);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct kb_why w;
	const char *db = args->db, *good_s = o->good, *bad_s = o->bad;
	int json = args->json, ret, good = -1, bad = -1;

	if ((ret = cmd_open_analysis(db, args->pos[0], NULL, &s, &a, &err)))
		goto fail;
	if ((good_s && cmd_parse_variant(a, good_s, &good) < 0) ||
	    (bad_s && cmd_parse_variant(a, bad_s, &bad) < 0)) {
		kb_err_set(&err, KB_EINPUT,
			   "no variant '%s' in experiment %s: give a number from kbisect results or an exact label",
			   good_s && cmd_parse_variant(a, good_s, &good) < 0
				   ? good_s
				   : bad_s,
			   args->pos[0]);
		goto fail;
	}
	if ((ret = kb_why_explain(a, good, bad, &w, &err)))
		goto fail;
	cmd_warn_environments(s, kb_analysis_info(a)->id, -1, -1);
	{
		struct kb_store_analysis row = {
			"why", kb_analysis_metric(a), (int)w.good, (int)w.bad,
			NULL, w.total.change_pct, w.total.ci_low,
			w.total.ci_high, w.total.p, "mann-whitney-u",
			kb_verdict_name(w.total.verdict), NULL
		};
		char culprits[512] = "";
		size_t i, len = 0;

		for (i = 0; i < w.nculprits && len < sizeof(culprits); i++)
			len += (size_t)snprintf(culprits + len,
						sizeof(culprits) - len, "%s%s",
						i ? " " : "",
						fname(a, w.culprits[i].factor));
		row.factor = w.nculprits ? culprits : NULL;
		row.detail = "minimal set of factor changes that reproduces the regression";
		if ((ret = cmd_store_analyses(s, kb_analysis_info(a)->id,
					      &row, 1, &err)))
			goto fail;
	}
	if (json)
		why_json(a, &w);
	else
		why_text(a, &w);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
