#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "runner.h"
#include "bisect.h"
#include "bisect_commits.h"
#include "bisect_tree.h"
#include "buf.h"
#include "build.h"
#include "executor.h"
#include "fsutil.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "paths.h"
#include "profiles.h"
#include "source.h"
#include "store.h"
#include "treeexec.h"
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
		fprintf(f, "%5u  %-8s %8s  [%7s, %7s] %5u  %s\n", p->step,
			kb_bisect_class_name(p->cls),
			kb_format_pct(p->change_pct, 1).s, kb_format_pct(p->ci_low, 1).s,
			kb_format_pct(p->ci_high, 1).s, p->boots, opts.buf);
	kb_buf_release(&opts);
}

/* Before each build and boot: what is going on, on real kernels. */
static void on_step(const char *label, unsigned boot_no, void *arg)
{
	struct show *s = arg;
	int n = (int)strlen(label);

	if (s->quiet)
		return;
	if (boot_no)
		fprintf(stderr, "       boot %u of %.*s%s\n", boot_no,
			n > 60 ? 60 : n, label, n > 60 ? " ..." : "");
	else
		fprintf(stderr, "       build %.*s%s\n", n > 60 ? 60 : n,
			label, n > 60 ? " ..." : "");
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

/* Why the set found is not called 1-minimal, and what would settle it. */
static void print_unsettled(const struct kb_bisect_result *r,
			    unsigned max_boots)
{
	size_t rest = r->nunsettled - r->nbetween - r->nskipped;

	if (r->nbetween)
		printf("%zu of those probes lie in between the ends (each part of the regression): more boots will not make them good\n",
		       r->nbetween);
	if (r->nskipped)
		printf("%zu of those probes could not be measured (skip)\n",
		       r->nskipped);
	if (rest && r->settle_boots)
		printf("what would settle it: about %u rounds per probe, each with both ends (repeat.max_boots is %u), %u more boots in all\n",
		       r->settle_boots, max_boots, r->more_boots);
}

/* A rerun answered from the stored bisection: say so, once. */
static void print_stored(const char *stored_at, int64_t bisection)
{
	if (stored_at)
		printf("stored answer: bisection %lld of %s, nothing built or booted now (--fresh bisects again); what it spent:\n",
		       (long long)bisection, stored_at);
}

static void json_stored(struct kb_json *j, const char *stored_at)
{
	if (stored_at) {
		kb_json_kv_string(j, "stored_at", stored_at);
		return;
	}
	kb_json_key(j, "stored_at");
	kb_json_null(j);
}

static void print_spent(const struct kb_bisect_result *r)
{
	print_stored(r->stored_at, r->bisection);
	printf("spent: %u builds", r->builds);
	if (r->builds_cached)
		printf(" (and %u kernels found in the build cache)",
		       r->builds_cached);
	printf(", %u boots, %u runs; %zu probes\n", r->boots, r->runs,
	       r->nprobes);
}

/* The options that differ but follow the changes (no prompt sets them). */
static void print_derived(const struct kb_bisect_result *r)
{
	size_t i;

	if (!r->nderived)
		return;
	printf("%zu more option%s differ%s but no prompt sets %s (%s level follows the changes):",
	       r->nderived, r->nderived == 1 ? "" : "s",
	       r->nderived == 1 ? "s" : "", r->nderived == 1 ? "it" : "them",
	       r->nderived == 1 ? "its" : "their");
	for (i = 0; i < r->nderived && i < SHOW_OPTIONS; i++)
		printf(" %s", r->derived[i].option);
	printf("%s\n", r->nderived > SHOW_OPTIONS ? " ..." : "");
}

/* The options of group @g among the culprits. */
static size_t group_size(const struct kb_bisect_result *r, unsigned g)
{
	size_t i, n = 0;

	for (i = 0; i < r->nculprits; i++)
		n += r->culprits[i].group == g;
	return n;
}

/* Each group of several options of the answer: one unresolved change. */
static void print_unresolved(const struct kb_bisect_result *r)
{
	size_t i, k, n;

	for (i = 0; i < r->nculprits; i++) {
		unsigned g = r->culprits[i].group;

		for (k = 0; k < i && r->culprits[k].group != g; k++)
			;
		if (k < i || (n = group_size(r, g)) < 2)
			continue;
		printf("  group %u: its %zu options move together (their dependencies tie them): one unresolved change, which of them are needed is not shown\n",
		       g + 1, n);
	}
}

static void print_text(const struct kb_bisect_result *r, const char *metric,
		       const char *good, const char *bad, double alpha,
		       unsigned max_boots)
{
	const struct kb_comparison *e = &r->ends;
	size_t i, k;
	int grouped = 0;

	printf("bisection %lld (experiment %lld): %s -> %s, %zu options"
	       " differ (%zu groups), metric %s\n",
	       (long long)r->bisection, (long long)r->experiment, good, bad,
	       r->nchanges, r->ngroups, metric);
	printf("the ends: %.6g -> %.6g, %s [%s, %s] (%g%% CI),"
	       " p = %.3g, %s; %zu and %zu boots\n",
	       e->a.mean, e->b.mean, kb_format_pct(e->change_pct, 1).s,
	       kb_format_pct(e->ci_low, 1).s, kb_format_pct(e->ci_high, 1).s,
	       100 * (1 - alpha), e->p, kb_verdict_name(e->verdict), e->a.n,
	       e->b.n);
	print_derived(r);
	if (!r->reproduced) {
		printf("\nthe regression does not reproduce: nothing to bisect\n");
		print_spent(r);
		return;
	}
	for (i = 0; i < r->njoins; i++)
		printf("step %u did not hold (%s): %s moves with %s from then on\n",
		       r->joins[i].step, r->joins[i].reason, r->joins[i].option,
		       r->joins[i].with);
	for (i = 0; i < r->nculprits; i++)
		for (k = 0; k < r->nculprits; k++)
			if (k != i && r->culprits[k].group ==
					      r->culprits[i].group)
				grouped = 1;
	if (r->minimal && !r->nunresolved)
		printf("\nculprits%s (a 1-minimal set of the changes: %s):\n",
		       r->complete ? ""
				   : " (INCOMPLETE: the probe limit was reached)",
		       r->nculprits > 1 ? "needed together, no smaller set reproduces it"
					: "it alone reproduces it");
	else if (r->minimal)
		printf("\nculprits%s (a 1-minimal set of the change groups: each group is needed; a group of several options is one unresolved change):\n",
		       r->complete ? ""
				   : " (INCOMPLETE: the probe limit was reached)");
	else
		printf("\nnot minimised: %zu probe%s inconclusive%s; the regression lies in these %zu changes (candidates, not each shown to be needed):\n",
		       r->nunsettled, r->nunsettled == 1 ? "" : "s",
		       r->complete ? ""
				   : " (INCOMPLETE: the probe limit was reached)",
		       r->nculprits);
	for (i = 0; i < r->nculprits; i++) {
		const struct kb_bisect_change *c = &r->culprits[i];

		printf("  %-32s %s -> %s", c->option, c->good, c->bad);
		if (grouped)
			printf("   (group %u)", c->group + 1);
		printf("\n");
	}
	if (grouped)
		print_unresolved(r);
	if (r->confirmed && r->confirm_rounds)
		printf("confirmed: booted again in %u fresh rounds beside both ends, bad on those alone\n",
		       r->confirm_rounds);
	else if (!r->confirmed)
		printf("NOT CONFIRMED: booted again in %u fresh rounds beside both ends, the set was not shown bad on those alone\n",
		       r->confirm_rounds);
	if (!r->minimal)
		print_unsettled(r, max_boots);
	if (isnan(r->change_pct))
		printf("effect of the %s alone on good: not measured\n",
		       r->minimal ? "culprits" : "candidates");
	else
		printf("effect of the %s alone on good: %s"
		       " [%s, %s] (%g%% CI, %u rounds side by side)\n",
		       r->minimal ? "culprits" : "candidates",
		       kb_format_pct(r->change_pct, 1).s, kb_format_pct(r->ci_low, 1).s,
		       kb_format_pct(r->ci_high, 1).s, 100 * (1 - alpha),
		       r->culprit_boots);
	print_spent(r);
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

static void changes_json(struct kb_json *j, const char *key,
			 const struct kb_bisect_change *c, size_t n)
{
	size_t i;

	kb_json_key(j, key);
	kb_json_array_begin(j);
	for (i = 0; i < n; i++) {
		kb_json_object_begin(j);
		kb_json_kv_string(j, "option", c[i].option);
		kb_json_kv_string(j, "good", c[i].good);
		kb_json_kv_string(j, "bad", c[i].bad);
		kb_json_kv_int(j, "group", c[i].group + 1);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
}

/* The groups joined where a probe did not hold. */
static void joins_json(struct kb_json *j, const struct kb_bisect_result *r)
{
	size_t i;

	kb_json_key(j, "joins");
	kb_json_array_begin(j);
	for (i = 0; i < r->njoins; i++) {
		const char *w = r->joins[i].with, *e;

		kb_json_object_begin(j);
		kb_json_kv_int(j, "step", r->joins[i].step);
		kb_json_kv_string(j, "option", r->joins[i].option);
		kb_json_key(j, "with");
		kb_json_array_begin(j);
		for (; *w; w = *e ? e + 1 : e) {
			char *name;

			e = strchr(w, ' ');
			if (!e)
				e = w + strlen(w);
			name = kb_strndup(w, (size_t)(e - w));
			kb_json_string(j, name);
			free(name);
		}
		kb_json_array_end(j);
		kb_json_kv_string(j, "reason", r->joins[i].reason);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
}

/*
 * After an answer that names culprits (a 1-minimal set), the profile of
 * its two sides, the two the effect of the culprits was measured
 * between: the good end (variant 0) and the culprits alone on it (the
 * bad end when they are every change), into @j when not NULL.  Nothing
 * when the boots carry no profile, nor when the answer is not minimised
 * or nothing reproduced: no culprit to explain.  The answer is stored
 * and said by then, so a profile that cannot be read is a note.
 */
static void print_profile(struct kb_store *s, const struct kb_bisect_result *r,
			  const char *good, const char *bad, double alpha,
			  struct kb_json *j)
{
	const struct kb_bisect_probe *p;
	struct kb_err err = KB_ERR_INIT;
	char *a, *b;

	if (!r->minimal || !(p = kb_bisect_culprit_probe(r)))
		return;
	a = kb_asprintf("the good end (%s)", good);
	if (p == &r->end)
		b = kb_asprintf("the bad end (%s), the culprits being every change",
				bad);
	else
		b = kb_asprintf("the culprits alone on the good end (step %u)",
				p->step);
	if (cmd_compare_profiles_named(s, r->experiment, 0, a, p->variant_idx,
				       b, alpha, j, &err))
		fprintf(stderr, "kbisect: note: no profile: %s\n", err.msg);
	free(a);
	free(b);
}

static void print_json(struct kb_store *s, const struct kb_bisect_result *r,
		       const char *metric, const char *good, const char *bad,
		       double alpha)
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
	joins_json(j, r);
	changes_json(j, "derived", r->derived, r->nderived);
	changes_json(j, "culprits", r->culprits,
		     r->minimal ? r->nculprits : 0);
	changes_json(j, "candidates", r->culprits, r->nculprits);
	kb_json_kv_bool(j, "minimal", r->minimal);
	kb_json_key(j, "unresolved_groups");
	kb_json_array_begin(j);
	for (i = 0; i < r->nculprits; i++) {
		size_t k;

		for (k = 0; k < i && r->culprits[k].group !=
					     r->culprits[i].group; k++)
			;
		if (k == i && group_size(r, r->culprits[i].group) > 1)
			kb_json_int(j, r->culprits[i].group + 1);
	}
	kb_json_array_end(j);
	kb_json_kv_bool(j, "confirmed", r->confirmed);
	kb_json_kv_int(j, "confirm_rounds", r->confirm_rounds);
	kb_json_kv_int(j, "unsettled_probes", (long long)r->nunsettled);
	kb_json_kv_int(j, "in_between", (long long)r->nbetween);
	kb_json_kv_int(j, "skipped", (long long)r->nskipped);
	kb_json_kv_int(j, "settle_boots", r->settle_boots);
	kb_json_kv_int(j, "more_boots", r->more_boots);
	kb_json_kv_number(j, "change_pct", r->change_pct);
	ci_array(j, r->ci_low, r->ci_high);
	kb_json_kv_int(j, "culprit_boots", r->culprit_boots);
	kb_json_kv_bool(j, "complete", r->complete);
	kb_json_kv_int(j, "builds", r->builds);
	kb_json_kv_int(j, "builds_cached", r->builds_cached);
	kb_json_kv_int(j, "boots", r->boots);
	kb_json_kv_int(j, "runs", r->runs);
	json_stored(j, r->stored_at);
	kb_json_key(j, "probes");
	kb_json_array_begin(j);
	for (i = 0; i < r->nprobes; i++)
		probe_json(j, &r->probes[i], r->changes);
	kb_json_array_end(j);
	print_profile(s, r, good, bad, alpha, j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/* A bisection stopped by SIGINT or SIGTERM: say so; 128 + the signal. */
static int stopped_status(const struct kb_err *err, int64_t exp)
{
	fprintf(stderr,
		"kbisect: %s; the bisection (experiment %lld) is marked failed, and its builds, boots and samples are stored: a new bisection reuses its builds\n",
		err->msg, (long long)exp);
	return 128 + cmd_stop_signal;
}

/* What both kinds of bisection parse into. */
struct bisect_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *good;
	const char *bad;
	const char *matrix;
	int fresh;
};

static const struct kb_opt bisect_options_opts[] = {
	KB_OPT_STRING_REQUIRED(struct bisect_args, good, "good", "G.config",
			       "the good end: a .config file or fragment"),
	KB_OPT_STRING_REQUIRED(struct bisect_args, bad, "bad", "B.config",
			       "the bad end: a .config file or fragment"),
	KB_OPT_STRING(struct bisect_args, matrix, 0, "matrix", "M",
		      "the kernel tree (source.tree, kernel.rev), guest, workload, repeat and compare settings; required without --model (with it, the model's metric and defaults of 3 boots, up to 10, threshold 5%, alpha 0.05)"),
	KB_OPT_MODEL("builds and boots from the performance model (docs/model.md) instead of kernels built from source.tree and booted through libvirt; with a matrix that has source.tree, the tree still resolves the ends and each probe"),
	KB_OPT_BOOL(struct bisect_args, fresh, 0, "fresh",
		    "bisect again, every end and probe booted afresh (stored builds reused), even when the same bisection finished before in this database: after the host drifted"),
	KB_OPT_DB,
	KB_OPT_JSON("print the answer and the probes as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_END,
};

static int bisect_options(const struct kb_args *args);

static const struct cmd bisect_options_entry = {
	.name = "options",
	.opts = bisect_options_opts,
	.size = sizeof(struct bisect_args),
	.fn = bisect_options,
	.help = "The options whose levels differ between the good and the bad\n"
		".config are the change set; a change moves together with the\n"
		"changes Kconfig ties to it directly (depends on, select, one\n"
		"choice; a group of several is one unresolved change in the\n"
		"answer).  Each probe is the good config with\n"
		"some changes applied, built, booted and measured, and classified\n"
		"against both ends booted beside it: each of its boots is a round\n"
		"of the probe and both ends in a drawn order, so a host that drifts\n"
		"moves all three alike (more rounds while it is inconclusive, up to\n"
		"repeat.max_boots).  First checks that the ends really differ, then\n"
		"finds a 1-minimal set of changes that reproduces the regression\n"
		"(adaptive group testing): a single culprit in log2(N) probes and\n"
		"one to confirm it, k interacting changes in about k log2(N).  A set\n"
		"probed before is not probed again.  The answer is confirmed before\n"
		"it is printed: booted again in fresh rounds beside both ends and\n"
		"shown bad on those alone.  The set is called 1-minimal only when\n"
		"it was confirmed and every set without one of its changes was\n"
		"shown good;\n"
		"otherwise it is reported as not minimised, with the probes left\n"
		"inconclusive and the boots that would likely settle them.\n"
		"Everything is stored as an experiment with a bisection and its\n"
		"steps (view v_bisection).  The same bisection run again into the\n"
		"same database (the same ends by content, matrix or model, and\n"
		"search settings) prints the answer of the one that finished\n"
		"before, saying so, and builds and boots nothing; --fresh bisects\n"
		"again with every boot afresh (the builds stored are reused), as\n"
		"after the host drifted.  A bisection that did not finish answers\n"
		"nothing: it is bisected again.  See docs/bisect.md.\n"
		"\n"
		"After an answer that names culprits (a 1-minimal set), when the\n"
		"boots carry a profile (workload.profile), the functions whose share\n"
		"of the samples changed from the good end (A, variant 0) to the\n"
		"culprits alone on it (B: the probe of that set, or the bad end when\n"
		"they are every change), as compare prints them (docs/analysis.md,\n"
		"\"Profiles\"); --json carries it as profile.  A regression that does\n"
		"not reproduce, or a set not minimised, prints none.\n"
		"\n"
		"On real kernels (no --model), both .configs are first resolved by\n"
		"the tree's own Kconfig (olddefconfig in source.tree, at kernel.rev\n"
		"when the matrix's baseline variant sets one; the options it sets\n"
		"otherwise are said); the matrix's source.base, fragments and\n"
		"Kconfig factors are not used.  The tree's Kconfig dependencies,\n"
		"selects and choices group the changes; options no prompt sets\n"
		"follow the others and are not changes of their own.  Each probe\n"
		"is the good config with its changes, resolved by olddefconfig;\n"
		"one whose changes do not hold, or that does not build, is a skip\n"
		"(reported with the reason), and a probe whose resolved config was\n"
		"built before reuses that kernel from the build cache.  Probes boot\n"
		"as the matrix's baseline variant through libvirt on every host of\n"
		"the matrix, one boot at a time, each probe's boots as evenly over\n"
		"them as `run` spreads a variant's; a host that fails 3 boots in a\n"
		"row for reasons of its own is drained (its failures are no probe's\n"
		"boots), and when every host is drained the bisection stops (exit 1).\n"
		"\n"
		"With --model, builds and boots come from the performance model, over\n"
		"the matrix's hosts alike when --matrix is given.  When that matrix\n"
		"has source.tree, the tree does everything else as on real kernels:\n"
		"both ends are resolved by its olddefconfig, its Kconfig groups the\n"
		"changes and tells derived options, and each probe is resolved from\n"
		"the good end (a probe whose changes do not hold is a skip, with the\n"
		"reason); the model is given the resolved .config, so it measures\n"
		"what a kernel would be built from.  Without source.tree (or without\n"
		"--matrix) nothing is resolved: the model's own depends: group the\n"
		"changes and it is given the options of the two files as they are.\n",
	.epilog = "Examples:\n"
		  "  kbisect bisect options --good good.config --bad bad.config \\\n"
		  "      --matrix kconfig-matrix/demo-tcg.yaml\n"
		  "  kbisect bisect options --good good.config --bad bad.config \\\n"
		  "      --model tests/data/bisect/spinlocks.model.yaml\n",
};

/* Fill @bo for a bisection on performance model @model (and matrix @m's
 * repeat and compare settings, when given). */
static void model_opts(const struct kb_matrix *m, struct kb_model *model,
		       struct kb_bisect_opts *bo)
{
	bo->metric = kb_model_metric(model);
	bo->higher_is_better = kb_metric_higher_is_better(bo->metric);
	if (m) {
		cmd_bisect_matrix_opts(m, bo);
		bo->guest = kb_matrix_guest(m);
	}
	bo->depends = model_depends;
	bo->depends_arg = model;
	bo->model_text = kb_model_text(model);
	bo->build_salt = kb_model_text(model);
}

/* ---- bisect options on real kernels ----------------------------------- */

#define SHOW_DROPPED 4 /* options olddefconfig changed, named per end */

/* What a bisection of real kernels runs with besides the tree
 * (lib/bisect_tree.h). */
struct real {
	struct kb_bisect_tree *tree;
	const struct kb_matrix *m;
	char *objdir;                 /* the tree's O= folder */
	struct kb_build_weights *weights; /* its build records' */
	char *salt;                  /* build salt: matrix, tree, compiler */
	struct cmd_commit_env env;
};

/* The units of the tree's O= folder depending on each option, read when
 * the bisection asks (once its ends are built); NULL when unreadable. */
static const struct kb_build_weights *tree_weights(void *arg)
{
	struct real *r = arg;
	struct kb_err ignored = KB_ERR_INIT;

	kb_build_weights_free(r->weights);
	r->weights = NULL;
	if (kb_build_weights_scan(r->objdir, &r->weights, &ignored))
		r->weights = NULL;
	return r->weights;
}

/* Say which options of @given olddefconfig set otherwise in @res. */
static void say_resolved(const char *path, const struct kb_kconfig *given,
			 const struct kb_kconfig *res)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *name, *value;
	size_t i, n = 0;

	for (i = 0; (name = kb_kconfig_name_at(given, i, &value)); i++) {
		const char *got = kb_kconfig_get(res, name);

		if (kb_kconfig_value_matches(value, got))
			continue;
		if (n++ < SHOW_DROPPED)
			kb_buf_addf(&b, "%s%s=%s->%s", n > 1 ? ", " : "", name,
				    value, got ? got : "n");
	}
	if (n)
		fprintf(stderr,
			"kbisect: %s: the tree's Kconfig sets %zu of its options otherwise (%s%s); bisecting the config as resolved\n",
			path, n, b.buf, n > SHOW_DROPPED ? ", ..." : "");
	kb_buf_release(&b);
}

/*
 * Both ends resolved alone with matrix @m's source.tree (which it must
 * have) and the tree's symbols scanned, into *@out, saying so: the tree
 * half of a bisection, on real kernels and on the model alike.
 */
static int tree_open(const struct kb_matrix *m, const char *good_path,
		     const char *bad_path, const struct kb_kconfig *good,
		     const struct kb_kconfig *bad, int quiet,
		     struct kb_bisect_tree **out, struct kb_err *err)
{
	const char *path[2] = { good_path, bad_path };
	const struct kb_kconfig *given[2] = { good, bad };
	int which, ret;

	if ((ret = kb_bisect_tree_new(m, out, err)))
		return ret;
	for (which = 0; which < 2; which++) {
		if (!quiet)
			fprintf(stderr, "kbisect: resolving %s with the tree's Kconfig (olddefconfig)\n",
				path[which]);
		if ((ret = kb_bisect_tree_resolve(*out, which, path[which],
						  err)))
			return ret;
		if (!quiet)
			say_resolved(path[which], given[which],
				     kb_bisect_tree_end(*out, which));
	}
	return kb_bisect_tree_finish(*out, err);
}

/* The ends as the tree resolved them. */
static void tree_ends(const struct kb_bisect_tree *t,
		      const struct kb_kconfig *ends[2])
{
	ends[0] = kb_bisect_tree_end(t, 0);
	ends[1] = kb_bisect_tree_end(t, 1);
}

static int real_open(struct real *r, const struct kb_matrix *m,
		     const char *good_path, const char *bad_path,
		     const struct kb_kconfig *good,
		     const struct kb_kconfig *bad, int quiet,
		     struct kb_err *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->m = m;
	if (!kb_matrix_source(m)->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: bisecting options on real kernels needs source.tree, the kernel tree whose Kconfig resolves and builds each probe",
				  kb_matrix_file(m));
	if ((ret = tree_open(m, good_path, bad_path, good, bad, quiet,
			     &r->tree, err)))
		return ret;
	r->objdir = kb_build_default_objdir(kb_bisect_tree_id(r->tree));
	r->salt = kb_bisect_tree_salt(r->tree, kb_matrix_text(m));
	return cmd_commit_env_open(m, NULL, kb_bisect_tree_good_file(r->tree),
				   quiet, &r->env, err);
}

static void real_close(struct real *r)
{
	cmd_commit_env_close(&r->env);
	kb_bisect_tree_free(r->tree);
	kb_build_weights_free(r->weights);
	free(r->objdir);
	free(r->salt);
	memset(r, 0, sizeof(*r));
}

/* Fill @bo for a bisection of real kernels with @r. */
static void real_opts(struct real *r, struct kb_bisect_opts *bo)
{
	cmd_commit_opts(r->m, &r->env, bo);
	bo->build_salt = r->salt;
	kb_bisect_tree_opts(r->tree, bo);
	bo->weights = tree_weights;
	bo->weights_arg = r;
	bo->step = on_step;
}

static int bisect_options(const struct kb_args *args)
{
	const struct bisect_args *o = CMD_ARGS(struct bisect_args, args);
	struct kb_bisect_opts bo = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	const char *good_path = o->good, *bad_path = o->bad;
	const char *matrix_path = o->matrix, *model_path = args->model;
	const char *db = args->db, *metric;
	struct kb_kconfig *good = NULL, *bad = NULL;
	const struct kb_kconfig *ends[2];
	struct kb_matrix *m = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *ex = NULL;
	struct kb_store *s = NULL;
	struct kb_bisect_result *r = NULL;
	struct show show = { args->quiet, 0 };
	struct real real;
	struct kb_bisect_tree *mtree = NULL; /* --model on a tree */
	struct kb_executor *tree_ex = NULL; /* the model behind the tree */
	char *model_salt = NULL, *head;
	struct kb_runner *hosts = NULL; /* --model: over the matrix's hosts,
					 * or the model alone */
	int64_t model_exp = 0;
	int json = args->json, ret;

	memset(&real, 0, sizeof(real));
	if (!good_path || !bad_path)
		return cmd_usage_error("bisect",
				       "bisect options needs --good and --bad .config files");
	if (!model_path && !matrix_path)
		return cmd_usage_error("bisect",
				       "bisect options on real kernels needs --matrix M: its source.tree builds the probes, its guest and workload measure them (or --model MODEL)");

	/* everything that can be refused before the database is touched */
	if ((ret = kb_kconfig_load(good_path, &good, &err)) ||
	    (ret = kb_kconfig_load(bad_path, &bad, &err)))
		goto fail;
	ends[0] = good;
	ends[1] = bad;
	if (matrix_path && (ret = cmd_matrix_load(matrix_path, &m, &err)))
		goto fail;
	if (model_path) {
		if ((ret = kb_model_load(model_path, &model, &err)))
			goto fail;
		metric = kb_model_metric(model);
		if (m && (ret = kb_model_check_metric(
				  model, kb_matrix_workload(m)->metric, &err)))
			goto fail;
		if (m) {
			/* the probes' boots over the matrix's hosts */
			if ((ret = cmd_runner_open_boots(&hosts, m, model, NULL,
							 show.quiet, &err)))
				goto fail;
			ex = kb_runner_boots(hosts);
		} else {
			/* no matrix, no hosts: the model alone */
			if ((ret = kb_runner_open_model(model, &hosts, &err)))
				goto fail;
			ex = kb_runner_builder(hosts);
		}
		model_opts(m, model, &bo);
		if (m && kb_matrix_source(m)->tree) {
			/* the tree resolves and groups, the model builds
			 * and boots what it resolved */
			if ((ret = tree_open(m, good_path, bad_path, good,
					     bad, show.quiet, &mtree, &err)) ||
			    (ret = kb_treeexec_new(
				     m, ex, kb_bisect_tree_good_file(mtree),
				     &tree_ex, &err)))
				goto fail;
			ex = tree_ex;
			kb_bisect_tree_opts(mtree, &bo);
			/* builds of one model, matrix, tree and compiler */
			head = kb_asprintf("%s\n%s", kb_model_text(model),
					   kb_matrix_text(m));
			model_salt = kb_bisect_tree_salt(mtree, head);
			free(head);
			bo.build_salt = model_salt;
			tree_ends(mtree, ends);
		}
	} else {
		if ((ret = real_open(&real, m, good_path, bad_path, good, bad,
				     show.quiet, &err)))
			goto fail;
		real_opts(&real, &bo);
		metric = bo.metric;
		ex = real.env.ex;
		tree_ends(real.tree, ends);
	}
	if ((ret = cmd_open_store(db, &s, &err)))
		goto fail;
	if (!bo.experiment_id)
		bo.experiment_id = &model_exp;
	/* the hosts' failures are recorded with the bisection's experiment */
	if (hosts)
		kb_runner_set_store(hosts, s, bo.experiment_id);
	cmd_commit_env_store(&real.env, s);
	bo.stop = &cmd_stop_signal;
	bo.good_name = good_path;
	bo.bad_name = bad_path;
	bo.fresh = o->fresh;
	bo.progress = on_probe;
	bo.progress_arg = &show;
	if (!show.quiet)
		fprintf(stderr, "%5s  %-8s %8s  %-17s %5s  %s\n", "probe",
			"class", "change", "CI", "boots", "options moved to bad");
	cmd_catch_stop(1);
	ret = kb_bisect_options(s, ex, ends[0], ends[1], &bo, &r, &err);
	cmd_catch_stop(0);
	if (ret && cmd_stop_signal) {
		ret = stopped_status(&err, *bo.experiment_id);
		goto out;
	}
	if (ret)
		goto fail;
	if (json) {
		print_json(s, r, metric, good_path, bad_path, bo.alpha);
	} else {
		print_text(r, metric, good_path, bad_path, bo.alpha,
			   bo.max_boots);
		print_profile(s, r, good_path, bad_path, bo.alpha, NULL);
	}
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_bisect_result_free(r);
	kb_store_close(s);
	kb_executor_free(tree_ex);
	kb_runner_free(hosts);
	kb_bisect_tree_free(mtree);
	free(model_salt);
	real_close(&real);
	kb_model_free(model);
	kb_matrix_free(m);
	kb_kconfig_free(good);
	kb_kconfig_free(bad);
	return ret;
}

/* ---- bisect commits ---------------------------------------------------- */

struct cshow {
	int quiet;
	const struct kb_bisect_commit *commits;
};

static void print_commit_step(const struct kb_bisect_probe *p,
			      const struct kb_bisect_commit *commits,
			      FILE *f)
{
	const struct kb_bisect_commit *c = &commits[p->commit];

	if (p->cls == KB_BISECT_SKIP)
		fprintf(f, "%5u  %-8s %8s  %-17s %5s  %.12s %s: %s\n", p->step,
			kb_bisect_class_name(p->cls), "", "", "", c->sha,
			c->summary, p->reason ? p->reason : "");
	else
		fprintf(f, "%5u  %-8s %8s  [%7s, %7s] %5u  %.12s %s\n",
			p->step, kb_bisect_class_name(p->cls),
			kb_format_pct(p->change_pct, 1).s, kb_format_pct(p->ci_low, 1).s,
			kb_format_pct(p->ci_high, 1).s, p->boots, c->sha,
			c->summary);
}

static void on_commit(const struct kb_bisect_probe *p, void *arg)
{
	struct cshow *s = arg;

	if (!s->quiet)
		print_commit_step(p, s->commits, stderr);
}

static void commits_text(const struct kb_bisect_commits_result *r,
			 const struct kb_bisect_commit *commits,
			 const char *metric, const char *good,
			 const char *bad, double alpha)
{
	const struct kb_comparison *e = &r->ends;
	size_t i;

	printf("bisection %lld (experiment %lld): %s..%s, %zu commits, metric %s\n",
	       (long long)r->bisection, (long long)r->experiment, good, bad,
	       r->ncommits - 1, metric);
	printf("the ends: %.6g -> %.6g, %s [%s, %s] (%g%% CI),"
	       " p = %.3g, %s; %zu and %zu boots\n",
	       e->a.mean, e->b.mean, kb_format_pct(e->change_pct, 1).s,
	       kb_format_pct(e->ci_low, 1).s, kb_format_pct(e->ci_high, 1).s,
	       100 * (1 - alpha), e->p, kb_verdict_name(e->verdict), e->a.n,
	       e->b.n);
	if (!r->reproduced) {
		printf("\nthe regression does not reproduce: nothing to bisect\n");
	} else if (r->first_bad >= 0) {
		const struct kb_bisect_commit *c = &commits[r->first_bad];

		printf("\nfirst bad commit%s: %s %s\n",
		       r->complete ? "" : " (INCOMPLETE: the probe limit was reached)",
		       c->sha, c->summary);
	} else {
		printf("\nthe first bad commit could be any of these %zu"
		       " (the others between could not be classified)%s:\n",
		       r->cand_last - r->cand_first + 1,
		       r->complete ? "" : " (INCOMPLETE: the probe limit was reached)");
		for (i = r->cand_first; i <= r->cand_last; i++)
			printf("  %s %s\n", commits[i].sha,
			       commits[i].summary);
	}
	if (r->reproduced) {
		if (isnan(r->change_pct))
			printf("effect against %.12s: not measured\n",
			       commits[r->last_good].sha);
		else
			printf("effect against %.12s (the last good commit):"
			       " %s [%s, %s] (%g%% CI, %u boots)\n",
			       commits[r->last_good].sha,
			       kb_format_pct(r->change_pct, 1).s,
			       kb_format_pct(r->ci_low, 1).s,
			       kb_format_pct(r->ci_high, 1).s, 100 * (1 - alpha),
			       r->effect_boots);
		if (!isnan(r->change_pct) && !r->confirmed)
			printf("NOT CONFIRMED: the two booted side by side in %u rounds give %s, not a regression\n",
			       r->effect_boots,
			       kb_verdict_name(r->effect_verdict));
	}
	print_stored(r->stored_at, r->bisection);
	printf("spent: %u builds, %u boots, %u runs; %zu probes\n", r->builds,
	       r->boots, r->runs, r->nprobes);
	printf("\n%5s  %-8s %8s  %-17s %5s  %s\n", "step", "class", "change",
	       "CI", "boots", "commit");
	print_commit_step(&r->end, commits, stdout);
	for (i = 0; i < r->nprobes; i++)
		print_commit_step(&r->probes[i], commits, stdout);
}

static void commit_json(struct kb_json *j, const char *key,
			const struct kb_bisect_commit *c)
{
	if (key)
		kb_json_key(j, key);
	kb_json_object_begin(j);
	kb_json_kv_string(j, "commit", c->sha);
	kb_json_kv_string(j, "summary", c->summary);
	kb_json_object_end(j);
}

static void commits_json(const struct kb_bisect_commits_result *r,
			 const struct kb_bisect_commit *commits,
			 const char *metric, const char *good, const char *bad)
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
	kb_json_kv_int(j, "commits", (long long)r->ncommits - 1);
	if (r->first_bad >= 0) {
		commit_json(j, "first_bad", &commits[r->first_bad]);
	} else {
		kb_json_key(j, "first_bad");
		kb_json_null(j);
	}
	kb_json_key(j, "candidates");
	kb_json_array_begin(j);
	for (i = r->cand_first; r->reproduced && i <= r->cand_last; i++)
		commit_json(j, NULL, &commits[i]);
	kb_json_array_end(j);
	if (r->reproduced)
		commit_json(j, "last_good", &commits[r->last_good]);
	kb_json_kv_number(j, "change_pct", r->change_pct);
	ci_array(j, r->ci_low, r->ci_high);
	kb_json_kv_int(j, "effect_boots", r->effect_boots);
	kb_json_kv_bool(j, "confirmed", r->confirmed);
	kb_json_kv_bool(j, "complete", r->complete);
	kb_json_kv_int(j, "builds", r->builds);
	kb_json_kv_int(j, "boots", r->boots);
	kb_json_kv_int(j, "runs", r->runs);
	json_stored(j, r->stored_at);
	kb_json_key(j, "probes");
	kb_json_array_begin(j);
	for (i = 0; i < r->nprobes; i++) {
		const struct kb_bisect_probe *p = &r->probes[i];

		kb_json_object_begin(j);
		kb_json_kv_int(j, "step", p->step);
		kb_json_kv_int(j, "variant", p->variant_idx);
		kb_json_kv_string(j, "commit", commits[p->commit].sha);
		kb_json_kv_string(j, "summary", commits[p->commit].summary);
		kb_json_kv_string(j, "classification",
				  kb_bisect_class_name(p->cls));
		kb_json_kv_number(j, "change_pct", p->change_pct);
		ci_array(j, p->ci_low, p->ci_high);
		kb_json_kv_number(j, "bad_change_pct", p->bad_change_pct);
		kb_json_kv_number(j, "evidence", p->evidence);
		kb_json_kv_int(j, "boots", p->boots);
		if (p->reason)
			kb_json_kv_string(j, "reason", p->reason);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static const struct kb_opt bisect_commits_opts[] = {
	KB_OPT_STRING_REQUIRED(struct bisect_args, good, "good", "REV",
			       "a good revision of source.tree"),
	KB_OPT_STRING_REQUIRED(struct bisect_args, bad, "bad", "REV",
			       "a bad revision, descending from the good one"),
	KB_OPT_STRING_REQUIRED(struct bisect_args, matrix, "matrix", "M",
			       "the matrix whose baseline variant each probe builds, boots and measures"),
	KB_OPT_MODEL("run on the performance-model executor (docs/model.md) instead of kernels built from source and booted through libvirt"),
	KB_OPT_BOOL(struct bisect_args, fresh, 0, "fresh",
		    "bisect again, every end and probe booted afresh (stored builds reused), even when the same bisection finished before in this database: after the host drifted"),
	KB_OPT_DB,
	KB_OPT_JSON("print the answer and the probes as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_END,
};

static int bisect_commits(const struct kb_args *args);

static const struct cmd bisect_commits_entry = {
	.name = "commits",
	.opts = bisect_commits_opts,
	.size = sizeof(struct bisect_args),
	.fn = bisect_commits,
	.help = "'bisect commits' lists the commits from --good to --bad in the\n"
		"git repository source.tree (libgit2, topological order), builds\n"
		"and boots the matrix's baseline variant at each probe (the commit\n"
		"as kernel.rev) and binary-searches for the first bad commit, as\n"
		"git bisect does: a probe that cannot be built or measured, or\n"
		"stays inconclusive, is set aside and the nearest untested commit\n"
		"tried instead.  The answer is the first bad commit with its\n"
		"effect against its parent, or the range of candidates.  Without\n"
		"--model, kernels are built from source and booted through libvirt.\n"
		"Either way the boots go over every host of the matrix as for\n"
		"`bisect options`, a host that fails 3 boots in a row drained.\n"
		"The same bisection run again into the same database answers\n"
		"from the one that finished before, as `bisect options` does\n"
		"(--fresh bisects again).\n"
		CMD_HELP_MACHINES,
	.epilog = "Example:\n"
		  "  kbisect bisect commits --good v6.1 --bad v6.2 --matrix m.yaml\n",
};

static int bisect_commits(const struct kb_args *args)
{
	const struct bisect_args *o = CMD_ARGS(struct bisect_args, args);
	struct kb_bisect_opts bo = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	const char *good = o->good, *bad = o->bad, *matrix_path = o->matrix;
	const char *model_path = args->model, *db = args->db;
	struct kb_matrix *m = NULL;
	struct kb_source_commit *list = NULL;
	struct kb_bisect_commit *commits = NULL;
	struct cmd_commit_env env;
	struct kb_store *s = NULL;
	struct kb_bisect_commits_result *r = NULL;
	struct cshow show = { args->quiet, NULL };
	size_t n = 0, i;
	int json = args->json, ret;

	memset(&env, 0, sizeof(env));
	if (!good || !bad || !matrix_path)
		return cmd_usage_error("bisect",
				       "bisect commits needs --good REV, --bad REV and --matrix M");

	/* everything that can be refused before the database is touched */
	if ((ret = cmd_matrix_load(matrix_path, &m, &err)) ||
	    (ret = cmd_commit_env_open(m, model_path, NULL, show.quiet,
				       &env, &err)))
		goto fail;
	if ((ret = kb_source_commits(kb_matrix_source(m)->tree, good, bad,
				     &list, &n, &err))) {
		/* a revision the user gave, or the matrix's source.tree, is
		 * not there: what was said is wrong (a missing matrix or
		 * model file is not, exit status 1 as for every verb) */
		if (ret == KB_ENOTFOUND)
			err.code = KB_EINPUT;
		goto fail;
	}
	commits = kb_calloc(n, sizeof(*commits));
	for (i = 0; i < n; i++) {
		commits[i].sha = list[i].sha;
		commits[i].summary = list[i].summary;
	}
	if ((ret = cmd_open_store(db, &s, &err)))
		goto fail;
	cmd_commit_env_store(&env, s);
	cmd_commit_opts(m, &env, &bo);
	bo.good_name = good;
	bo.bad_name = bad;
	bo.fresh = o->fresh;
	bo.on_commit = on_commit;
	show.commits = commits;
	bo.progress_arg = &show;
	if (!show.quiet)
		fprintf(stderr, "%zu commits from %.12s to %.12s\n"
			"%5s  %-8s %8s  %-17s %5s  %s\n", n - 1,
			commits[0].sha, commits[n - 1].sha, "step", "class",
			"change", "CI", "boots", "commit");
	cmd_catch_stop(1);
	ret = kb_bisect_commits(s, env.ex, commits, n, &bo, &r, &err);
	cmd_catch_stop(0);
	if (ret && cmd_stop_signal) {
		ret = stopped_status(&err, env.experiment);
		goto out;
	}
	if (ret)
		goto fail;
	if (json)
		commits_json(r, commits, env.metric, good, bad);
	else
		commits_text(r, commits, env.metric, good, bad, bo.alpha);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_bisect_commits_result_free(r);
	kb_store_close(s);
	free(commits);
	kb_source_commits_free(list, n);
	cmd_commit_env_close(&env);
	kb_matrix_free(m);
	return ret;
}

static const struct cmd *const bisect_subs[] = {
	&bisect_options_entry,
	&bisect_commits_entry,
	NULL,
};

const struct cmd cmd_bisect_entry = {
	.name = "bisect",
	.rank = 120,
	.summary = "find the option changes that cause a regression",
	.subs = bisect_subs,
};
