#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "profiles.h"
#include "analysis.h"
#include "buf.h"
#include "json.h"
#include "stats.h"
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

/* "A+B" for the factors of a set. */
static void set_name(const struct kb_analysis *a, const size_t *f, size_t n,
		     struct kb_buf *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		kb_buf_addf(out, "%s%s", i ? "+" : "", fname(a, f[i]));
}

static void factor_list_json(struct kb_json *j, const struct kb_analysis *a,
			     const char *key, const size_t *f, size_t n)
{
	size_t i;

	kb_json_key(j, key);
	kb_json_array_begin(j);
	for (i = 0; i < n; i++)
		kb_json_string(j, fname(a, f[i]));
	kb_json_array_end(j);
}

/* What the comparisons were made on, one sentence for text and JSON. */
static void blocks_note(const struct kb_why *w, struct kb_buf *out)
{
	switch (w->blocks) {
	case KB_WHY_BLOCKS_FRESH:
		kb_buf_addf(out,
			    "confirmed in %u fresh rounds with #%u (blocks): each round booted #%u and #%u in a drawn order; every comparison made on the fresh rounds both its variants ran in (%u rounds added)",
			    w->confirm_rounds, w->good, w->good, w->bad,
			    w->fresh_rounds);
		break;
	case KB_WHY_BLOCKS_STORED:
		kb_buf_adds(out, w->budget_short
					 ? "analysis from stored data only (the boot budget, --max-added-boots, has too few for a confirmation in fresh rounds)"
					 : "analysis from stored data only (no boots can be added)");
		if (w->run_rounds)
			kb_buf_addf(out,
				    ": the comparison is against the run's boots, in its %u rounds, and may carry drift",
				    w->run_rounds);
		else
			kb_buf_adds(out,
				    ": the comparison is against the run's boots, in the sequential order, and may carry drift");
		break;
	case KB_WHY_BLOCKS_GIVEN:
		kb_buf_addf(out,
			    "#%u given, not picked: compared on the stored boots (%s), not in fresh rounds",
			    w->bad,
			    w->run_rounds ? "the run's rounds"
					  : "the run's sequential order");
		break;
	}
}

/* "conditions": the factors compared within, never a cause. */
static void conditions_json(struct kb_json *j, const struct kb_analysis *a)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	size_t i;

	kb_json_key(j, "conditions");
	kb_json_array_begin(j);
	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			kb_json_string(j, kb_matrix_factor(m, i)->name);
	kb_json_array_end(j);
}

static void why_json(struct kb_store *st, const struct kb_analysis *a,
		     const struct kb_why *w)
{
	struct kb_err perr = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT, note = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i, k;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
	kb_json_kv_string(j, "metric", kb_analysis_metric(a));
	kb_json_kv_string(j, "answer", kb_why_answer_name(w->answer));
	kb_json_kv_int(j, "good", w->good);
	kb_json_kv_string(j, "good_label", label(a, w->good));
	kb_json_kv_int(j, "bad", w->bad);
	kb_json_kv_string(j, "bad_label", label(a, w->bad));
	kb_json_kv_int(j, "picked_from", w->picked_from);
	conditions_json(j, a);
	kb_json_kv_int(j, "set_aside", w->set_aside);
	kb_json_kv_number(j, "alpha", w->alpha);
	blocks_note(w, &note);
	kb_json_key(j, "blocks");
	kb_json_object_begin(j);
	kb_json_kv_string(j, "used", kb_why_blocks_name(w->blocks));
	kb_json_kv_int(j, "rounds", w->confirm_rounds);
	kb_json_kv_int(j, "rounds_added", w->fresh_rounds);
	kb_json_kv_int(j, "first_round", w->first_round);
	kb_json_kv_int(j, "run_rounds", w->run_rounds);
	kb_json_kv_string(j, "note", note.buf);
	kb_json_object_end(j);
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
			kb_json_kv_number(j, "p_adjusted", in->p_adj);
			kb_json_kv_int(j, "rounds", (long long)in->rounds);
			kb_json_object_end(j);
		}
		kb_json_array_end(j);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	factor_list_json(j, a, "suspects", w->suspects, w->nsuspects);
	factor_list_json(j, a, "in_every_set", w->common, w->ncommon);
	kb_json_kv_int(j, "sets_tried", (long long)w->ntried);
	kb_json_kv_int(j, "sets_unknown", (long long)w->nunknown);
	kb_json_key(j, "sets");
	kb_json_array_begin(j);
	for (i = 0; i < w->nsets; i++) {
		const struct kb_why_set *s = &w->sets[i];

		kb_json_object_begin(j);
		factor_list_json(j, a, "factors", s->factors, s->n);
		if (s->variant >= 0)
			kb_json_kv_int(j, "variant", s->variant);
		else {
			kb_json_key(j, "variant");
			kb_json_null(j);
		}
		kb_json_kv_string(j, "class", kb_why_set_class_name(s->cls));
		cmd_json_comparison(j, "from_good", &s->from_good);
		cmd_json_comparison(j, "to_bad", &s->to_bad);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_kv_int(j, "boots_added", w->boots_added);
	/* where the bad variant's time went, against the good one's */
	if (w->answer != KB_WHY_NOTHING_WORSE &&
	    cmd_compare_profiles(st, kb_analysis_info(a)->id, (int)w->good,
				 (int)w->bad, kb_analysis_opts(a)->alpha, j,
				 &perr))
		fprintf(stderr, "kbisect: note: no profile: %s\n", perr.msg);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
	kb_buf_release(&note);
}

static void print_change(const struct kb_comparison *c)
{
	if (isnan(c->change_pct)) {
		printf("not measured by this design");
		return;
	}
	printf("%s [%s, %s], %s (n = %zu vs %zu)", kb_format_pct(c->change_pct, 1).s,
	       kb_format_pct(c->ci_low, 1).s, kb_format_pct(c->ci_high, 1).s,
	       kb_verdict_name(c->verdict), c->a.n, c->b.n);
}

static void print_short(const struct kb_comparison *c)
{
	if (isnan(c->change_pct))
		printf("%6s%-21s", "-", "");
	else
		printf("%+6.1f%% %-19s", c->change_pct,
		       kb_verdict_name(c->verdict));
}

/* What is known when the answer is inconclusive: every set tried. */
static void print_sets(const struct kb_analysis *a, const struct kb_why *w)
{
	struct kb_buf name = KB_BUF_INIT;
	size_t i;

	printf("\nsets tried (the good variant with these changes):\n");
	printf("  %-32s %-27s %-27s %s\n", "changes", "from good",
	       "then to bad", "so");
	for (i = 0; i < w->nsets; i++) {
		const struct kb_why_set *s = &w->sets[i];

		kb_buf_reset(&name);
		set_name(a, s->factors, s->n, &name);
		printf("  %-32s ", name.buf);
		print_short(&s->from_good);
		printf(" ");
		print_short(&s->to_bad);
		printf(" %s\n", s->cls == KB_WHY_SET_SHORT
					? "does not reproduce"
					: kb_why_set_class_name(s->cls));
	}
	if (w->ntried > w->nsets)
		printf("  ... and %zu more\n", w->ntried - w->nsets);
	kb_buf_release(&name);
}

/* The conditions of @a's matrix ("workload.copies, guest.vcpus"), or
 * "" when none; caller frees. */
static char *conditions(const struct kb_analysis *a)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	kb_buf_adds(&b, "");
	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			kb_buf_addf(&b, "%s%s", b.len ? ", " : "",
				      kb_matrix_factor(m, i)->name);
	return kb_buf_detach(&b);
}

static void why_text(const struct kb_analysis *a, const struct kb_why *w)
{
	struct kb_buf note = KB_BUF_INIT;
	size_t i, k, n;
	char *cond = conditions(a);

	if (w->answer == KB_WHY_NOTHING_WORSE && *cond) {
		printf("why is a variant worse than #%u? (experiment %lld, %s)\n",
		       w->good, (long long)kb_analysis_info(a)->id,
		       kb_analysis_metric(a));
		printf("  good #%u %s\n\n", w->good, label(a, w->good));
		printf("No variant is worse than #%u at its own level of %s (a condition, never a cause): of the %u measured variants against it, none has a worse mean, so there is nothing to explain.\n",
		       w->good, cond, w->picked_from);
		free(cond);
		return;
	}
	if (w->answer == KB_WHY_NOTHING_WORSE) {
		const double *v = kb_analysis_values(a, w->good, &n);

		free(cond);
		printf("why is a variant worse than #%u? (experiment %lld, %s)\n",
		       w->good, (long long)kb_analysis_info(a)->id,
		       kb_analysis_metric(a));
		printf("  good #%u %s\n\n", w->good, label(a, w->good));
		printf("No variant is worse than #%u: its mean, %.6g, is the worst of the %u measured variants, so there is nothing to explain.\n",
		       w->good, kb_stats_mean(v, n), w->picked_from + 1);
		return;
	}
	printf("why is #%u worse than #%u? (experiment %lld, %s)\n",
	       w->bad, w->good, (long long)kb_analysis_info(a)->id,
	       kb_analysis_metric(a));
	printf("  good #%u %s\n  bad  #%u %s\n  change: ", w->good,
	       label(a, w->good), w->bad, label(a, w->bad));
	print_change(&w->total);
	printf("\n");
	if (*cond)
		printf("  (%s: a condition, never a cause: #%u is judged against #%u, the\n"
		       "   baseline at the same level)\n",
		       cond, w->bad, w->good);
	free(cond);
	if (w->set_aside)
		printf("  (#%u is the worst of %u variants: the %u boots that made it the worst set aside)\n",
		       w->bad, w->picked_from, w->set_aside);
	else if (w->picked_from > 1)
		printf("  (#%u is the worst of %u variants: compared at alpha %g / %u = %.2g, %.3g%% CI)\n",
		       w->bad, w->picked_from, w->alpha * w->picked_from,
		       w->picked_from, w->alpha, 100 * (1 - w->alpha));
	blocks_note(w, &note);
	printf("  (%s)\n\n", note.buf);
	kb_buf_release(&note);
	cmd_print_drift(stdout, a);
	if (w->answer == KB_WHY_NOT_REPRODUCED) {
		printf("The regression does not reproduce: the verdict is %s, so there is nothing to explain.\n",
		       kb_verdict_name(w->total.verdict));
		goto done;
	}
	if (w->answer == KB_WHY_INCONCLUSIVE) {
		printf("Inconclusive: the regression reproduces, but no set of the %zu differing factor%s could be shown to be its cause (%zu of the %zu sets tried could not be told or were not measured).\n",
		       w->ndiff, w->ndiff == 1 ? "" : "s", w->nunknown,
		       w->ntried);
		printf("The cause lies among: ");
		for (i = 0; i < w->nsuspects; i++) {
			size_t f = w->suspects[i];

			printf("%s%s %s->%s", i ? ", " : "", fname(a, f),
			       kb_plan_variant(kb_analysis_plan(a), w->good)
				       ->settings[f]
				       .value,
			       kb_plan_variant(kb_analysis_plan(a), w->bad)
				       ->settings[f]
				       .value);
		}
		printf("\n");
		if (w->ncommon) {
			printf("Every set that reproduces it changes ");
			for (i = 0; i < w->ncommon; i++)
				printf("%s%s", i ? " and " : "",
				       fname(a, w->common[i]));
			printf(".\n");
		}
		print_sets(a, w);
		printf("\nWhat would settle it: more boots (repeat.max_boots, or a larger --max-added-boots), or a design that measures the missing sets.\n");
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
		printf("\n(needed together: no smaller set of these changes makes #%u as bad as #%u)\n",
		       w->good, w->bad);
	else
		printf("\n");
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
			printf(" (interaction p = %.2g, Holm-adjusted %.2g, ",
			       in->p, in->p_adj);
			if (in->rounds)
				printf("within %zu rounds)\n", in->rounds);
			else
				printf("on the cells' means: too few rounds hold all four)\n");
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
	const char *max_added;
	int no_boots;
};

static const struct kb_opt why_opts[] = {
	KB_OPT_STRING(struct why_args, good, 0, "good", "VARIANT",
		      "the good variant, a number or an exact label (default: the baseline, #0)"),
	KB_OPT_STRING(struct why_args, bad, 0, "bad", "VARIANT",
		      "the bad variant (default: the worst)"),
	KB_OPT_BOOL(struct why_args, no_boots, 0, "no-boots",
		    "add no boots: answer from the stored ones (the worst is then tested at alpha over the variants it was picked from)"),
	KB_OPT_STRING(struct why_args, max_added, 0, "max-added-boots", "N",
		      "add N boots at most (default: every variant to repeat.max_boots, as plan says; 0: none); comparisons they do not decide stay inconclusive"),
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
	.help = "By default the baseline (#0) is good and the worst variant bad\n"
		"(confirmed in fresh rounds with the good one, or when it adds\n"
		"none, tested at alpha divided by the number of variants it was\n"
		"picked from, on the run's boots); when no variant is worse than\n"
		"the good one, it says so.  A condition (a factor marked\n"
		"condition: true, a load level) is never a cause: the bad variant\n"
		"is judged against the baseline at its own level of it (the worst\n"
		"is the worst against that), and good and bad must share it.\n"
		"Finds the smallest set of the factors in which they differ whose\n"
		"change alone reproduces the regression, each of them shown to be\n"
		"needed; for each, its effect with a confidence interval and how\n"
		"other factors change it (interactions, Holm-adjusted).  When no\n"
		"set can be shown to be the cause, the answer is inconclusive, with\n"
		"the suspects and every set tried.\n"
		"\n"
		"It boots, unless --no-boots is given or the database cannot be\n"
		"written here: the worst variant it picks is confirmed in fresh\n"
		"rounds (blocks: its own boots set aside; each round boots the good\n"
		"and the worst variant, and the set of changes being tried, in a\n"
		"drawn order), every comparison made on the fresh rounds both its\n"
		"variants ran in, so that a drift of the host falls on both alike;\n"
		"inconclusive comparisons get more rounds, up to repeat.max_boots.\n"
		"The answer says how many rounds, or why it used none (then its\n"
		"comparisons are on the run's boots and may carry drift).\n"
		"Before the first boot it says on stderr how many it may add (every\n"
		"variant to repeat.max_boots, the figure plan prints, or\n"
		"--max-added-boots N) and how long they may take (the mean boot on\n"
		"the experiment's hosts); on a terminal it asks before more than 20\n"
		"unless --max-added-boots is given.  A budget too small for the\n"
		"confirmation answers on the run's boots, as --no-boots.\n"
		"Model experiments boot on their stored model;\n"
		"real ones (executor libvirt) as `run` boots them, over every host of\n"
		"the stored matrix (kbisect-* guests of a dead owner destroyed first;\n"
		"a host that fails 3 boots in a row drained, its failures not stored\n"
		"as boots), from the kernel builds the database holds.  Boots that fail\n"
		"stop the sampling; when every fresh boot of the worst fails, there\n"
		"is no answer (exit 1), nor when every host is drained (exit 1).\n"
		"SIGINT or SIGTERM destroys the running guest and exits 128 + the\n"
		"signal's number, the boots that ended stored.\n"
		"An experiment of another executor cannot boot again: it is answered\n"
		"from the stored boots, as stderr says.\n"
		"After the answer, when the boots carry a profile (workload.profile),\n"
		"the functions whose share of the samples changed from good (A) to\n"
		"bad (B), as compare prints them (docs/analysis.md, \"Profiles\").\n",
	.epilog = "Example:\n  kbisect why 1\n",
};


static int cmd_why(const struct kb_args *args)
{
	const struct why_args *o = CMD_ARGS(struct why_args, args);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct cmd_analysis_boots boots;
	struct kb_why w;
	const char *db = args->db, *good_s = o->good, *bad_s = o->bad, *exe;
	int json = args->json, ret, good = -1, bad = -1;

	memset(&boots, 0, sizeof(boots));
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
	/* the executor that adds the boots: the stored model's, or a real
	 * one opened now; another cannot boot again, and it says so */
	exe = kb_analysis_info(a)->executor;
	if (kb_store_read_only(s) || o->no_boots) {
		kb_analysis_no_sampling(a);
	} else if (kb_analysis_can_sample(a) || !strcmp(exe, "libvirt")) {
		const struct kb_plan *p = kb_analysis_plan(a);

		if ((ret = cmd_analysis_boots_open(&boots, a, s, &err)))
			goto fail;
		if ((ret = cmd_analysis_budget(a, s, "why",
					       kb_plan_max_boots(p) -
						       kb_plan_nboots(p),
					       o->max_added)))
			goto out;
	} else {
		fprintf(stderr,
			"kbisect: note: experiment %lld ran on the '%s' executor, which cannot boot again: answering from the stored boots\n",
			(long long)kb_analysis_info(a)->id, exe);
	}
	if ((ret = kb_why_explain(a, good, bad, &w, &err)))
		goto fail;
	if (w.answer != KB_WHY_NOTHING_WORSE)
		cmd_warn_environments(s, kb_analysis_info(a)->id, -1, -1);
	if (cmd_store_writable(s) && (ret = kb_why_store(a, &w, &err)))
		goto fail;
	if (json) {
		why_json(s, a, &w);
	} else {
		why_text(a, &w);
		if (w.answer != KB_WHY_NOTHING_WORSE &&
		    (ret = cmd_compare_profiles(s, kb_analysis_info(a)->id,
						(int)w.good, (int)w.bad,
						kb_analysis_opts(a)->alpha,
						NULL, &err)))
			goto fail;
	}
	cmd_analysis_budget_note(a, "why");
	ret = 0;
	goto out;
fail:
	ret = cmd_analysis_boots_fail(&boots, &err);
out:
	cmd_analysis_boots_close(&boots);
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
