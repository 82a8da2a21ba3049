#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "design.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "realexec.h"
#include "variant.h"
#include "banned.h"

static const char *kind_name(enum kb_factor_kind k)
{
	return kb_factor_kind_name(k);
}

/* Per variant: resolved levels, whether each held, and why not. */
static void resolution_json(struct kb_json *j,
			    const struct kb_kconfig_resolution *r)
{
	size_t k;

	kb_json_key(j, "resolved");
	kb_json_object_begin(j);
	for (k = 0; k < r->noutcomes; k++)
		kb_json_kv_string(j, r->outcomes[k].name,
				  r->outcomes[k].resolved);
	kb_json_object_end(j);
	kb_json_key(j, "held");
	kb_json_object_begin(j);
	for (k = 0; k < r->noutcomes; k++)
		kb_json_kv_bool(j, r->outcomes[k].name, r->outcomes[k].held);
	kb_json_object_end(j);
	kb_json_key(j, "not_held_reasons");
	kb_json_object_begin(j);
	for (k = 0; k < r->noutcomes; k++)
		if (!r->outcomes[k].held)
			kb_json_kv_string(j, r->outcomes[k].name,
					  r->outcomes[k].reason);
	kb_json_object_end(j);
	kb_json_kv_string(j, "config_digest", r->digest);
	kb_json_kv_bool(j, "resolution_cached", r->cached);
}

/* The factors that are conditions (docs/matrix.md, "Conditions"), if
 * any: compared within, never a cause. */
static void conditions_text(const struct kb_matrix *m)
{
	size_t i, k = 0, n = kb_matrix_nconditions(m);

	if (!n)
		return;
	printf("condition%s, compared within each level and never a suspect:",
	       n == 1 ? "" : "s");
	for (i = 0; i < kb_matrix_nfactors(m); i++)
		if (kb_matrix_factor(m, i)->condition)
			printf("%s %s", k++ ? "," : "",
			       kb_matrix_factor(m, i)->name);
	putchar('\n');
}

/* Fractional and Plackett-Burman designs name their factors A, B, ... */
static int has_letters(const struct kb_design *d)
{
	return kb_design_resolution(d) != 0;
}

/* "A" or "AB" (letters), "X" or "X:Y" (names). */
static void effect_name(const struct kb_matrix *m, size_t f1, size_t f2,
			int letters, char *buf, size_t size)
{
	if (letters)
		snprintf(buf, size, "%c%c", kb_design_letter(f1),
			 f2 != f1 ? kb_design_letter(f2) : '\0');
	else
		snprintf(buf, size, "%s%s%s", kb_matrix_factor(m, f1)->name,
			 f2 != f1 ? ":" : "",
			 f2 != f1 ? kb_matrix_factor(m, f2)->name : "");
}

/*
 * The effects `effects` estimates, in its order, each with its aliases up
 * to two-factor interactions: every main effect, and each interaction
 * that is not an earlier effect's alias (Plackett-Burman designs: main
 * effects only).  @fn is called for each main effect and each interaction
 * with aliases; returns the number of interactions without.
 */
static size_t each_alias_set(const struct kb_plan *p,
			     void (*fn)(const struct kb_plan *p, size_t f1,
					size_t f2, const struct kb_alias *al,
					size_t n, void *arg),
			     void *arg)
{
	const struct kb_design *d = kb_plan_design(p);
	size_t nf = kb_design_nfactors(d), i, j, k, n, clear = 0;
	int pb = kb_matrix_design(kb_plan_matrix(p)) ==
		 KB_DESIGN_PLACKETT_BURMAN;
	char *done = kb_calloc(nf * nf + 1, 1);
	struct kb_alias *al;

	for (i = 0; i < nf; i++)
		for (j = i; j < (pb ? i + 1 : nf); j++) {
			if (done[i * nf + j])
				continue;
			n = kb_design_aliases(d, i, j, &al);
			for (k = 0; k < n; k++)
				done[al[k].f1 * nf + al[k].f2] = 1;
			if (n || j == i)
				fn(p, i, j, al, n, arg);
			else
				clear++;
			free(al);
		}
	free(done);
	return clear;
}

static void alias_set_json(const struct kb_plan *p, size_t f1, size_t f2,
			   const struct kb_alias *al, size_t n, void *arg)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	struct kb_json *j = arg;
	char name[160];
	size_t k;

	kb_json_object_begin(j);
	effect_name(m, f1, f2, 0, name, sizeof(name));
	kb_json_kv_string(j, "effect", name);
	effect_name(m, f1, f2, 1, name, sizeof(name));
	kb_json_kv_string(j, "letters", name);
	kb_json_key(j, "aliases");
	kb_json_array_begin(j);
	for (k = 0; k < n; k++) {
		kb_json_object_begin(j);
		effect_name(m, al[k].f1, al[k].f2, 0, name, sizeof(name));
		kb_json_kv_string(j, "effect", name);
		effect_name(m, al[k].f1, al[k].f2, 1, name, sizeof(name));
		kb_json_kv_string(j, "letters", name);
		kb_json_kv_number(j, "coefficient", al[k].coef);
		snprintf(name, sizeof(name), al[k].den == 1 ? "%d" : "%d/%d",
			 al[k].num, al[k].den);
		kb_json_kv_string(j, "fraction", name);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
}

/* "aliases": [] unless the design is a fraction or Plackett-Burman. */
static void aliases_json(struct kb_json *j, const struct kb_plan *p)
{
	kb_json_key(j, "aliases");
	kb_json_array_begin(j);
	if (has_letters(kb_plan_design(p)))
		each_alias_set(p, alias_set_json, j);
	kb_json_array_end(j);
}

static void plan_json(const struct kb_plan *p)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	struct kb_metric_dir dir = kb_metric_direction(
		kb_matrix_workload(m), kb_matrix_workload(m)->metric);
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i, k, l;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", kb_matrix_name(m));
	kb_json_kv_string(j, "matrix", kb_matrix_file(m));
	kb_json_kv_string(j, "design", kb_design_name(kb_matrix_design(m)));
	kb_json_kv_string(j, "generators", kb_design_generators(d));
	kb_json_kv_int(j, "resolution", kb_design_resolution(d));
	kb_json_kv_string(j, "metric", kb_matrix_workload(m)->metric);
	kb_json_kv_string(j, "better", kb_metric_better_name(&dir));
	kb_json_kv_string(j, "better_source",
			  kb_metric_source_name(dir.source));
	kb_json_key(j, "factors");
	kb_json_array_begin(j);
	for (i = 0; i < kb_matrix_nfactors(m); i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", f->name);
		kb_json_kv_string(j, "kind", kind_name(f->kind));
		kb_json_kv_bool(j, "condition", f->condition);
		if (has_letters(d)) {
			char letter[2] = { kb_design_letter(i), '\0' };

			kb_json_kv_string(j, "letter", letter);
		}
		kb_json_key(j, "levels");
		kb_json_array_begin(j);
		for (l = 0; l < f->nlevels; l++)
			kb_json_string(j, f->levels[l].value);
		kb_json_array_end(j);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	aliases_json(j, p);
	kb_json_key(j, "variants");
	kb_json_array_begin(j);
	for (i = 0; i < kb_plan_nvariants(p); i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

		kb_json_object_begin(j);
		kb_json_kv_int(j, "id", v->idx);
		kb_json_kv_string(j, "label", v->label);
		kb_json_kv_bool(j, "sentinel", v->sentinel);
		kb_json_key(j, "factors");
		kb_json_object_begin(j);
		for (k = 0; k < v->nsettings; k++)
			kb_json_kv_string(j, v->settings[k].name,
					  v->settings[k].value);
		kb_json_object_end(j);
		kb_json_kv_string(j, "build_key", v->build_key);
		if (kb_plan_is_resolved(p)) {
			kb_json_kv_string(j, "tree_id",
					  kb_plan_variant_tree(p, i)->id);
			resolution_json(j, kb_plan_resolution(p, i));
		}
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	if (kb_plan_is_resolved(p)) {
		/* the baseline's tree; each variant names its own */
		kb_json_kv_string(j, "tree", kb_plan_variant_tree(p, 0)->dir);
		kb_json_kv_string(j, "tree_id", kb_plan_variant_tree(p, 0)->id);
		kb_json_kv_int(j, "dropped", (long long)kb_plan_ndropped(p));
	}
	kb_json_kv_int(j, "builds", (long long)kb_plan_nbuilds(p));
	kb_json_kv_int(j, "boots", (long long)kb_plan_nboots(p));
	kb_json_kv_int(j, "runs", (long long)kb_plan_nruns(p));
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/* The options of variant @i that held, and those that did not, with why. */
static void resolution_text(const struct kb_plan *p, size_t i)
{
	const struct kb_kconfig_resolution *r = kb_plan_resolution(p, i);
	size_t k, nheld = 0;

	for (k = 0; k < r->noutcomes; k++) {
		const struct kb_kconfig_outcome *o = &r->outcomes[k];

		if (o->held) {
			printf("%s%s=%s", nheld++ ? " " : "       held: ",
			       o->name, o->requested);
			continue;
		}
	}
	if (nheld)
		printf("\n");
	for (k = 0; k < r->noutcomes; k++) {
		const struct kb_kconfig_outcome *o = &r->outcomes[k];
		const char *c;

		if (o->held)
			continue;
		printf("       NOT HELD: %s=%s did not hold (resolved %s): %s\n",
		       o->name, o->requested, o->resolved, o->reason);
		if (!o->fix)
			continue;
		printf("         to make it hold, add to a fragment: ");
		for (c = o->fix; *c; c++)
			putchar(*c == '\n' ? (c[1] ? ' ' : '\n') : *c);
	}
}

/* Which variants share a build, when some do. */
static void builds_text(const struct kb_plan *p)
{
	size_t i, j, n = kb_plan_nvariants(p);
	char *done = calloc(n ? n : 1, 1);

	if (!done)
		return;
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);
		int shared = 0;

		if (done[i])
			continue;
		for (j = i + 1; j < n; j++) {
			const struct kb_variant *w = kb_plan_variant(p, j);

			if (strcmp(v->build_key, w->build_key))
				continue;
			if (!shared++)
				printf("%s  one build (%.12s) for variants %u",
				       i == 0 ? "\n" : "", v->build_key,
				       v->idx);
			printf(", %u", w->idx);
			done[j] = 1;
		}
		if (shared)
			printf(": their configs resolve identically\n");
	}
	free(done);
}

/* One effect's aliases on one line: "  AB = CD = -EF". */
static void alias_chain_text(const struct kb_plan *p, size_t f1, size_t f2,
			     const struct kb_alias *al, size_t n, void *arg)
{
	char name[8];
	size_t k;

	(void)arg;
	if (!n)
		return;
	effect_name(kb_plan_matrix(p), f1, f2, 1, name, sizeof(name));
	printf("  %s", name);
	for (k = 0; k < n; k++) {
		effect_name(kb_plan_matrix(p), al[k].f1, al[k].f2, 1, name,
			    sizeof(name));
		printf(" = %s%s", al[k].num < 0 ? "-" : "", name);
	}
	printf("\n");
}

/*
 * A main effect's partial aliases, grouped by coefficient, the largest
 * first, wrapped: "  A  +1/3: BC BE ...  -1/3: BD ...".
 */
static void alias_partial_text(const struct kb_plan *p, size_t f1, size_t f2,
			       const struct kb_alias *al, size_t n, void *arg)
{
	char *used = kb_calloc(n ? n : 1, 1), name[8];
	size_t k, g, col;

	(void)f2;
	(void)arg;
	col = (size_t)printf("  %c ", kb_design_letter(f1));
	for (g = 0; g < n; g++) {
		const struct kb_alias *best = NULL;

		/* the next coefficient: the largest left, + before - */
		for (k = 0; k < n; k++)
			if (!used[k] &&
			    (!best || fabs(al[k].coef) > fabs(best->coef) ||
			     (fabs(al[k].coef) == fabs(best->coef) &&
			      al[k].coef > best->coef)))
				best = &al[k];
		if (!best)
			break;
		col += (size_t)printf(" %+d/%d:", best->num, best->den);
		for (k = 0; k < n; k++) {
			if (used[k] || al[k].num != best->num ||
			    al[k].den != best->den)
				continue;
			used[k] = 1;
			effect_name(kb_plan_matrix(p), al[k].f1, al[k].f2, 1,
				    name, sizeof(name));
			if (col + 1 + strlen(name) > 78)
				col = (size_t)printf("\n      ") - 1;
			col += (size_t)printf(" %s", name);
		}
	}
	printf("\n");
	free(used);
}

/* The alias table of a fractional or Plackett-Burman design. */
static void aliases_text(const struct kb_plan *p)
{
	const struct kb_design *d = kb_plan_design(p);
	size_t clear;

	if (kb_matrix_design(kb_plan_matrix(p)) == KB_DESIGN_PLACKETT_BURMAN) {
		char *sizes = kb_design_alias_sizes(d);

		if (*sizes) {
			printf("main effects are clear of each other but partially aliased with two-factor\n"
			       "interactions: the estimate of each also holds %s of each interaction\n"
			       "of two other factors listed below, so a large main effect may be an\n"
			       "interaction; confirm the few large ones with a full or fractional design\n"
			       "aliases (two-factor interactions in each main effect, by coefficient):\n",
			       sizes);
			each_alias_set(p, alias_partial_text, NULL);
		} else {
			printf("aliases up to two-factor interactions: none\n");
		}
		free(sizes);
		return;
	}
	printf("aliases up to two-factor interactions (AB = CD: one column, estimated once\n"
	       "as their sum; AB = -CD: as their difference):\n");
	if (kb_design_resolution(d) >= 4)
		printf("  main effects: clear of each other and of every two-factor interaction\n");
	clear = each_alias_set(p, alias_chain_text, NULL);
	if (clear)
		printf("  %s %zu two-factor interaction%s: clear of every main effect and other\n"
		       "  two-factor interaction\n",
		       clear == kb_design_nfactors(d) *
					(kb_design_nfactors(d) - 1) / 2
			       ? "all"
			       : "the other",
		       clear, clear == 1 ? "" : "s");
}

static void plan_text(const struct kb_plan *p)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	const struct kb_repeat *r = kb_matrix_repeat(m);
	struct kb_metric_dir dir = kb_metric_direction(
		kb_matrix_workload(m), kb_matrix_workload(m)->metric);
	size_t i, n = kb_plan_nvariants(p), nf = kb_matrix_nfactors(m);

	printf("%s (%s): %s design, metric %s\n", kb_matrix_name(m),
	       kb_matrix_file(m), kb_design_name(kb_matrix_design(m)),
	       kb_matrix_workload(m)->metric);
	printf("%s: %s\n", kb_matrix_workload(m)->metric,
	       kb_metric_dir_text(&dir));
	if (kb_design_generators(d)) {
		static const char *const roman[] = { "?", "I",  "II",
						     "III", "IV", "V" };
		unsigned res = kb_design_resolution(d);

		printf("fractional 2^(%zu-%zu) design, resolution %s, generators %s\n",
		       nf, nf - (size_t)__builtin_ctzl((unsigned long)n),
		       roman[res < 6 ? res : 0], kb_design_generators(d));
	} else if (has_letters(d)) {
		printf("plackett-burman design: %zu runs for %zu two-level factor%s, resolution III\n",
		       n, nf, nf == 1 ? "" : "s");
	}
	if (has_letters(d)) {
		for (i = 0; i < nf; i++)
			printf("  %c = %s\n", kb_design_letter(i),
			       kb_matrix_factor(m, i)->name);
		aliases_text(p);
	}
	conditions_text(m);
	if (nf == 0 && kb_plan_sentinel(p) >= 0)
		printf("no factors: the baseline and its sentinel, an A/A run that measures noise and drift\n");
	else if (nf == 0)
		printf("no factors: a single variant, an A/A run that measures noise\n");
	printf("\n  #  variant\n");
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

		printf("%3u  %s%s\n", v->idx, v->label,
		       i == 0	     ? "  (baseline)"
		       : v->sentinel ? "  (the baseline's kernel again: the experiment's own A/A)"
				     : "");
		if (kb_plan_is_resolved(p))
			resolution_text(p, i);
	}
	if (kb_plan_is_resolved(p))
		builds_text(p);
	printf("\n%zu variant%s, %zu build%s, %zu boot%s (%u per variant), %zu workload run%s (%u per boot)\n",
	       n, n == 1 ? "" : "s", kb_plan_nbuilds(p),
	       kb_plan_nbuilds(p) == 1 ? "" : "s", kb_plan_nboots(p),
	       kb_plan_nboots(p) == 1 ? "" : "s", r->boots, kb_plan_nruns(p),
	       kb_plan_nruns(p) == 1 ? "" : "s", r->runs_per_boot);
	if (kb_matrix_guest(m)->image) {
		const struct kb_guest_image *im = kb_matrix_guest(m)->image;

		printf("guest image: %zu Debian package%s and %zu file%s, made once by mmdebstrap and cached (docs/guests.md)\n",
		       im->npackages, im->npackages == 1 ? "" : "s",
		       kb_matrix_workload(m)->nfiles,
		       kb_matrix_workload(m)->nfiles == 1 ? "" : "s");
	}
}

static const struct kb_opt plan_opts[] = {
	KB_OPT_JSON("print an object with variants, builds and boots"),
	KB_OPT_ALLOW_DROPPED("accept requested options that do not hold"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_MAX_BOOTS,
	KB_OPT_MAX_SAMPLES,
	KB_OPT_END,
};

static int cmd_plan(const struct kb_args *args);

const struct cmd cmd_plan_entry = {
	.name = "plan",
	.rank = 10,
	.args = "MATRIX",
	.opts = plan_opts,
	.fn = cmd_plan,
	.summary = "validate a matrix and show its variants, builds and boots",
	.help = "Reads MATRIX (YAML, see docs/matrix.md), expands its design and\n"
		"prints every variant with its factor levels, how many kernels must\n"
		"be built and how many guests booted.  Writes nothing.  A plan of more\n"
		"boots or samples than the limits (docs/matrix.md) is refused.\n"
		"A fractional or Plackett-Burman design is shown with its factors'\n"
		"letters and its aliases up to two-factor interactions.\n",
	.epilog = "With source.tree, every variant's config is resolved with the\n"
		  "tree's Kconfig (make olddefconfig): options that did not hold are\n"
		  "shown with why, and the plan exits 1 (docs/kconfig.md).\n\n"
		  "Example:\n"
		  "  kbisect plan kconfig-matrix/xen-pvops-spinlocks.yaml\n",
};

static int cmd_plan(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_plan_limits lim;
	struct kb_metric_dir dir;
	int json = args->json, allow_dropped = args->allow_dropped;
	int quiet = args->quiet, ret;

	if ((ret = cmd_plan_limits("plan", args, &lim)))
		return ret;
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)) ||
	    (ret = kb_plan_check_limits(p, &lim, &err)) ||
	    (ret = kb_realexec_check_kernels(p, &err)) ||
	    (ret = cmd_plan_resolve(p, quiet, &err))) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (kb_realexec_check_guests(p, &err)) {
		/* the model runs it; a Xen host would not */
		if (!quiet)
			fprintf(stderr, "kbisect: warning: %s (run and submit refuse it before a build; the performance model can run it)\n",
				err.msg);
		kb_err_clear(&err);
	}
	if (json)
		plan_json(p);
	else
		plan_text(p);
	dir = kb_metric_direction(kb_matrix_workload(m),
				  kb_matrix_workload(m)->metric);
	if (json && dir.source == KB_METRIC_GUESSED)
		fprintf(stderr, "kbisect: note: metric '%s': %s\n",
			kb_matrix_workload(m)->metric, kb_metric_dir_text(&dir));
	ret = 0;
	if (kb_plan_ndropped(p)) {
		fflush(stdout);
		cmd_plan_report_dropped(p, stderr);
		if (allow_dropped) {
			fprintf(stderr, "  accepted with --allow-dropped\n");
		} else {
			fprintf(stderr,
				"kbisect: the plan drops requested options: add what they depend on to a fragment, or pass --allow-dropped to accept it\n");
			ret = 1;
		}
	}
out:
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
