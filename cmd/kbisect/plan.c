#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "build.h"
#include "design.h"
#include "format.h"
#include "store.h"
#include "compare.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
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

/* The URIs of @m's hosts, an array of kb_matrix_nhosts() the caller
 * frees (the strings are @m's): what the store's per-host reads take. */

/* ---- what a run costs --------------------------------------------------- */

/* The time a run of the plan is expected to take, and where the step
 * times come from. */
struct cost {
	int known, model;
	double build_s, boot_s;  /* a build, a boot with its runs */
	size_t cached;           /* builds the build cache holds */
	char source[160];
	struct kb_plan_cost c;
};

/* Where the step times @st of earlier boots come from, for boots of
 * @runs runs (@measured: kb_store_step_boot_s()'s), into @buf. */
static void step_source(const struct kb_store_step_times *st, unsigned runs,
			int measured, char *buf, size_t size)
{
	char boots[96];

	if (!isnan(st->run_s))
		snprintf(boots, sizeof(boots), "%zu boots on these hosts, %.1f s + %.1f s a run,",
			 st->nboots, st->boot_base_s, st->run_s);
	else if (!measured && st->runs_lo == st->runs_hi)
		snprintf(boots, sizeof(boots), "%zu boot%s of %u run%s on these hosts, not %u,",
			 st->nboots, st->nboots == 1 ? "" : "s", st->runs_lo,
			 st->runs_lo == 1 ? "" : "s", runs);
	else if (!measured)
		snprintf(boots, sizeof(boots), "%zu boots of %u to %u runs on these hosts, not %u,",
			 st->nboots, st->runs_lo, st->runs_hi, runs);
	else
		snprintf(boots, sizeof(boots), "%zu boot%s on these hosts",
			 st->nboots, st->nboots == 1 ? "" : "s");
	snprintf(buf, size, "measured: %s and %zu build%s in the database",
		 boots, st->nbuilds, st->nbuilds == 1 ? "" : "s");
}

/* The step times from @model's time: (a boot's runs included), else
 * those earlier experiments in database @db had on the plan's hosts. */
static int plan_cost(const struct kb_plan *p, const struct kb_model *model,
		     const char *db, struct cost *out, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	unsigned runs = kb_matrix_repeat(m)->runs_per_boot;

	memset(out, 0, sizeof(*out));
	out->model = model != NULL;
	if (model) {
		const struct kb_model_time *t = kb_model_time(model);

		out->build_s = t->build_s;
		out->boot_s = t->boot_s + runs * t->run_s;
		out->known = t->build_s > 0 || t->boot_s > 0 || t->run_s > 0;
		snprintf(out->source, sizeof(out->source),
			 "the model's time:, in real time unless KBISECT_MODEL_TIME_SCALE says");
	} else if (db) {
		struct kb_store *s = NULL;
		struct kb_store_step_times st;
		const char **hosts;
		size_t nh = kb_matrix_nhosts(m);
		int measured = 0, ret;

		if ((ret = cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, err)))
			return ret;
		hosts = cmd_host_uris(m);
		ret = kb_store_host_step_times(s, hosts, nh, &st, err);
		free(hosts);
		kb_store_close(s);
		if (ret)
			return ret;
		out->known = st.nboots > 0;
		out->build_s = st.nbuilds ? st.build_s : 0;
		out->boot_s = st.nboots ? kb_store_step_boot_s(&st, runs, &measured) : 0;
		step_source(&st, runs, measured, out->source, sizeof(out->source));
	}
	if (!out->known && !model)
		snprintf(out->source, sizeof(out->source),
			 "--model MODEL with time:, or --db PATH of earlier experiments on these hosts, says");
	if (!model)
		out->cached = kb_build_plan_cached(p, NULL);
	kb_plan_cost(p, out->build_s, out->cached, out->boot_s, &out->c);
	return 0;
}

static void cost_text(const struct kb_plan *p, const struct cost *c)
{
	size_t more = kb_plan_max_boots(p) - kb_plan_nboots(p);

	if (!c->known && c->model) {
		printf("time expected: none, the model has no time: and runs at once");
	} else if (!c->known) {
		printf("time: not known (%s)", c->source);
	} else {
		size_t builds = kb_plan_nbuilds(p) - c->cached;

		printf("time expected: %s: ", kb_format_duration(c->c.total_s).s);
		if (builds && c->build_s > 0)
			printf("%zu build%s of %s one after another, ", builds,
			       builds == 1 ? "" : "s",
			       kb_format_duration(c->build_s).s);
		if (c->cached)
			printf("%zu build%s in the cache, ", c->cached,
			       c->cached == 1 ? "" : "s");
		printf("%zu boot%s of %s, %u at a time (%s)", kb_plan_nboots(p),
		       kb_plan_nboots(p) == 1 ? "" : "s",
		       kb_format_duration(c->boot_s).s, c->c.slots, c->source);
	}
	if (more) {
		printf("; compare --adaptive and why may add up to %zu boot%s",
		       more, more == 1 ? "" : "s");
		if (c->known)
			printf(", %s more", kb_format_duration(c->c.more_s).s);
	}
	printf("\n");
}

static void cost_json(struct kb_json *j, const struct kb_plan *p,
		      const struct cost *c)
{
	kb_json_key(j, "cost");
	kb_json_object_begin(j);
	kb_json_kv_int(j, "max_boots", (long long)kb_plan_max_boots(p));
	kb_json_kv_bool(j, "known", c->known);
	kb_json_kv_string(j, "source", c->source);
	kb_json_kv_int(j, "builds_cached", (long long)c->cached);
	if (c->known) {
		kb_json_kv_number(j, "build_s", c->build_s);
		kb_json_kv_number(j, "boot_s", c->boot_s);
		kb_json_kv_int(j, "boots_at_once", c->c.slots);
		kb_json_kv_number(j, "expected_s", c->c.total_s);
		kb_json_kv_number(j, "adaptive_more_s", c->c.more_s);
	}
	kb_json_object_end(j);
}

/* ---- what the design can decide (issue 29) ------------------------------ */

/* The noise levels a plan shows when none is known, as a coefficient
 * of variation a boot. */
static const double guess_cv[] = { 0.02, 0.05, 0.10 };
#define NGUESS (sizeof(guess_cv) / sizeof(guess_cv[0]))

/* The comparisons a run makes, each variant against the baseline, and
 * what they can decide (lib/compare.h, kb_compare_design()). */
struct verdicts {
	size_t n;            /* comparisons: variants but the baseline */
	unsigned boots, max_boots;
	int paired;          /* within rounds, at repeat.boots */
	double alpha, look_alpha, threshold;
	double cv;           /* the noise expected a boot (NaN: not known) */
	char source[256];    /* where cv comes from */
	struct kb_compare_design at, up; /* at boots; at max_boots */
	struct kb_compare_design guess[NGUESS]; /* at boots, noise unknown */
};

/* The noise a boot of @m's metric is expected to have: the model's, or
 * that of earlier experiments on the matrix's hosts in database @db
 * (NULL: none read, so that a plan prints the same everywhere). */
static int expected_noise(const struct kb_matrix *m, const char *model,
			  const char *db, struct verdicts *v,
			  struct kb_err *err)
{
	const struct kb_repeat *r = kb_matrix_repeat(m);
	const char *metric = kb_matrix_workload(m)->metric;
	struct kb_model *mo = NULL;
	struct kb_store *s = NULL;
	struct kb_store_noise noise;
	const char **hosts;
	size_t nh = kb_matrix_nhosts(m);
	int ret = 0;

	v->cv = NAN;
	if (model) {
		double boot_cv, run_cv, var;

		if ((ret = kb_model_load(model, &mo, err)))
			return ret;
		kb_model_noise(mo, &boot_cv, &run_cv);
		/* a boot's value is the mean of its runs */
		var = log1p(boot_cv * boot_cv) +
		      log1p(run_cv * run_cv) / (double)r->runs_per_boot;
		v->cv = sqrt(expm1(var));
		snprintf(v->source, sizeof(v->source),
			 "the model's noise.boot_cv %g%% and run_cv %g%% over %u run%s a boot",
			 100 * boot_cv, 100 * run_cv, r->runs_per_boot,
			 r->runs_per_boot == 1 ? "" : "s");
		kb_model_free(mo);
		return 0;
	}
	if (!db) {
		snprintf(v->source, sizeof(v->source),
			 "not known: --model MODEL gives the model's, --db PATH that of earlier experiments on these hosts");
		return 0;
	}
	if ((ret = cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, err)))
		return ret;
	hosts = cmd_host_uris(m);
	ret = kb_store_host_noise(s, hosts, nh, metric, &noise, err);
	free(hosts);
	kb_store_close(s);
	if (ret)
		return ret;
	if (isnan(noise.var_log)) {
		snprintf(v->source, sizeof(v->source),
			 "not known: the database holds no variant of 2 ok boots of %s on these hosts",
			 metric);
		return 0;
	}
	v->cv = sqrt(expm1(noise.var_log));
	snprintf(v->source, sizeof(v->source),
		 "that of %zu boots of %u earlier experiment%s on these hosts, in the database",
		 noise.nboots, noise.nexp, noise.nexp == 1 ? "" : "s");
	return 0;
}

/* What the comparisons of @p can decide, the noise from @model or @db. */
static int plan_verdicts(const struct kb_plan *p, const char *model,
			 const char *db, struct verdicts *v,
			 struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_repeat *r = kb_matrix_repeat(m);
	size_t i;
	int ret, paired_up;

	memset(v, 0, sizeof(*v));
	v->n = kb_plan_nvariants(p) - 1;
	v->boots = r->boots;
	v->max_boots = r->max_boots;
	v->alpha = kb_matrix_compare(m)->alpha;
	v->threshold = kb_matrix_compare(m)->threshold_pct;
	v->paired = r->order == KB_ORDER_BLOCKS &&
		    r->boots >= KB_COMPARE_MIN_PAIRS;
	if ((ret = expected_noise(m, model, db, v, err)))
		return ret;
	kb_compare_design(v->boots, v->paired, v->alpha, v->cv, v->threshold,
			  &v->at);
	for (i = 0; i < NGUESS; i++)
		kb_compare_design(v->boots, v->paired, v->alpha, guess_cv[i],
				  v->threshold, &v->guess[i]);
	v->look_alpha = v->alpha;
	if (v->max_boots > v->boots) {
		/* compare --adaptive and why add rounds (paired) or boots */
		paired_up = r->order == KB_ORDER_BLOCKS;
		v->look_alpha =
			paired_up
				? kb_compare_look_alpha_paired(
					  v->boots, v->max_boots, v->alpha, NULL)
				: kb_compare_look_alpha_welch(
					  v->boots, v->max_boots, v->alpha, NULL);
		kb_compare_design(v->max_boots, paired_up, v->look_alpha, v->cv,
				  v->threshold, &v->up);
	}
	return 0;
}

/* "#1 against the baseline #0", "#1 to #7 against the baseline #0" */
static void comparisons_text(const struct verdicts *v, char *buf,
			     size_t size)
{
	if (v->n == 1)
		snprintf(buf, size, "#1 against the baseline #0");
	else
		snprintf(buf, size, "#1 to #%zu, each against the baseline #0",
			 v->n);
}

static void verdicts_text(const struct kb_plan *p, const struct verdicts *v)
{
	const char *metric = kb_matrix_workload(kb_plan_matrix(p))->metric;
	char what[96];
	size_t i;

	if (!v->n)
		return;
	comparisons_text(v, what, sizeof(what));
	printf("\nverdicts: %s on %s, %u boot%s a side%s, at alpha %g\n", what,
	       metric, v->boots, v->boots == 1 ? "" : "s",
	       v->paired ? " paired within rounds: the paired t test of the log ratios and its interval"
			 : ": Welch's t test on the logs and its interval",
	       v->alpha);
	if (!v->at.can_decide) {
		printf("  CANNOT DECIDE: with %u boot a side no test can reach alpha %g (one boot has no spread): every comparison would be inconclusive\n",
		       v->boots, v->alpha);
		return;
	}
	if (isnan(v->cv)) {
		printf("  noise a boot expected: %s\n", v->source);
		printf("  each calls a change of");
		for (i = 0; i < NGUESS; i++)
			printf("%s %.1f%% or more at %g%% noise", i ? "," : "",
			       v->guess[i].min_change_pct, 100 * guess_cv[i]);
		printf(" (the threshold is %g%%)\n", v->threshold);
		return;
	}
	printf("  noise a boot expected: %.1f%%, %s\n", 100 * v->cv, v->source);
	printf("  each calls a change of %.1f%% or more (the interval expected ±%.1f%%, the threshold %g%%); no-change: %s\n",
	       v->at.min_change_pct, v->at.halfwidth_pct,
	       v->threshold,
	       v->at.no_change ? "yes"
			       : "not at this noise (the interval is wider than the threshold)");
	if (v->max_boots > v->boots)
		printf("  with up to %u boots a side (compare --adaptive, why), each look at %.3g: %.1f%% or more; no-change: %s\n",
		       v->max_boots, v->look_alpha, v->up.min_change_pct,
		       v->up.no_change ? "yes" : "not at this noise");
}

static void verdicts_json(struct kb_json *j, const struct verdicts *v)
{
	size_t i;

	kb_json_key(j, "verdicts");
	kb_json_object_begin(j);
	kb_json_kv_int(j, "comparisons", (long long)v->n);
	kb_json_kv_int(j, "boots", v->boots);
	kb_json_kv_string(j, "test", v->paired ? "paired-t" : "welch-t");
	kb_json_kv_number(j, "alpha", v->alpha);
	kb_json_kv_bool(j, "can_decide", v->at.can_decide);
	kb_json_kv_number(j, "noise_cv_pct", 100 * v->cv);
	kb_json_kv_string(j, "noise_source", v->source);
	kb_json_kv_number(j, "min_change_pct", v->at.min_change_pct);
	kb_json_kv_number(j, "halfwidth_pct", v->at.halfwidth_pct);
	if (v->at.no_change >= 0)
		kb_json_kv_bool(j, "no_change", v->at.no_change);
	kb_json_key(j, "min_change_pct_at_noise");
	kb_json_object_begin(j);
	for (i = 0; i < NGUESS; i++) {
		char k[16];

		snprintf(k, sizeof(k), "%g", 100 * guess_cv[i]);
		kb_json_kv_number(j, k, v->guess[i].min_change_pct);
	}
	kb_json_object_end(j);
	if (v->max_boots > v->boots) {
		kb_json_kv_int(j, "max_boots", v->max_boots);
		kb_json_kv_number(j, "look_alpha", v->look_alpha);
		kb_json_kv_number(j, "min_change_pct_at_max_boots",
				  v->up.min_change_pct);
	}
	kb_json_object_end(j);
}

/* guest.image as the matrix gives it (the suite: null for the host's),
 * or null: what a host must serve as a root disk. */
static void image_json(struct kb_json *j, const struct kb_guest_image *im)
{
	size_t i;

	kb_json_key(j, "guest_image");
	if (!im) {
		kb_json_null(j);
		return;
	}
	kb_json_object_begin(j);
	kb_json_key(j, "packages");
	kb_json_array_begin(j);
	for (i = 0; i < im->npackages; i++)
		kb_json_string(j, im->packages[i]);
	kb_json_array_end(j);
	kb_json_kv_string(j, "suite", im->suite);
	kb_json_kv_int(j, "size_mib", im->size_mib);
	kb_json_object_end(j);
}

static void plan_json(const struct kb_plan *p, int model,
		      const struct verdicts *vd, const struct cost *co)
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
	image_json(j, kb_matrix_guest(m)->image);
	kb_json_key(j, "hosts");
	kb_json_array_begin(j);
	for (i = 0; i < kb_matrix_nhosts(m); i++) {
		const struct kb_host *h = kb_matrix_host(m, i);
		struct kb_host_route r;

		kb_host_route(h->uri, &r);
		kb_json_object_begin(j);
		kb_json_kv_string(j, "uri", h->uri);
		if (h->machine) {
			/* a whole machine: every boot reboots it */
			kb_json_kv_string(j, "machine",
					  kb_machine_name(h->machine));
			kb_json_kv_string(j, "boot_method",
					  kb_machine_boot_name(kb_machine_boot_method(h->machine)));
		} else {
			kb_json_kv_string(j, "host",
					  r.host[0] ? r.host : NULL);
			kb_json_kv_string(j, "transport", r.transport);
		}
		kb_json_kv_int(j, "capacity", h->capacity);
		kb_json_kv_string(j, "pool", h->pool);
		kb_json_kv_bool(j, "connected", !model);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	if (vd->n)
		verdicts_json(j, vd);
	cost_json(j, p, co);
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

/* How a run reaches a host, after its URI: "this machine, by its libvirt
 * socket", "bench2, by ssh (this machine runs ssh)". */
static void host_how(const struct kb_host_route *r)
{
	const char *t = r->transport, *how;

	if (!strcmp(t, "unix"))
		how = "by its libvirt socket";
	else if (!strcmp(t, "ssh"))
		how = "by ssh (this machine runs ssh, the host nc or virt-ssh-helper)";
	else if (!strcmp(t, "libssh") || !strcmp(t, "libssh2"))
		how = "by ssh (libvirt's own client)";
	else if (!strcmp(t, "tls"))
		how = "by TLS";
	else if (!strcmp(t, "tcp"))
		how = "by plain TCP (unencrypted, unauthenticated)";
	else if (!strcmp(t, "ext"))
		how = "by a program this machine runs (the ext transport)";
	else
		how = NULL;
	printf("%s, ", r->host[0] ? r->host : "this machine");
	if (how)
		printf("%s", how);
	else
		printf("by libvirt's '%s' transport", t);
}

/* How a run boots a machine host: each boot reboots it. */
static void machine_how(const struct kb_machine *mc)
{
	const struct kb_machine_kernel *k = kb_machine_known_good(mc);

	printf("a whole machine, rebooted into each boot's kernel (boot method %s), one boot at a time (docs/machines.md); a boot that hangs or panics is power-cycled after %u s and the machine booted back into %s\n",
	       kb_machine_boot_name(kb_machine_boot_method(mc)),
	       kb_machine_boot_timeout_s(mc),
	       k ? k->kernel : "its default entry");
}

/* Which hosts a run connects to and how; a model run connects to none
 * (its hosts are names: plan --json lists them, "connected": false). */
static void hosts_text(const struct kb_matrix *m, int model)
{
	size_t i, n = kb_matrix_nhosts(m);

	if (model)
		return;
	for (i = 0; i < n; i++) {
		const struct kb_host *h = kb_matrix_host(m, i);
		struct kb_host_route r;

		printf("host %s: ", h->uri);
		if (h->machine) {
			machine_how(h->machine);
			continue;
		}
		kb_host_route(h->uri, &r);
		host_how(&r);
		if (h->capacity > 1)
			printf(", %u boots at a time", h->capacity);
		if (h->pool)
			printf(", files shipped to its pool '%s'", h->pool);
		printf("\n");
	}
}

static void plan_text(const struct kb_plan *p, int model,
		      const struct verdicts *vd, const struct cost *co)
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
	cost_text(p, co);
	if (kb_matrix_guest(m)->image) {
		const struct kb_guest_image *im = kb_matrix_guest(m)->image;

		printf("guest image: %zu Debian package%s and %zu file%s, made once by mmdebstrap and cached (docs/guests.md)\n",
		       im->npackages, im->npackages == 1 ? "" : "s",
		       kb_matrix_workload(m)->nfiles,
		       kb_matrix_workload(m)->nfiles == 1 ? "" : "s");
	}
	hosts_text(m, model);
	verdicts_text(p, vd);
}

struct plan_args {
	struct kb_args common; /* first: CMD_ARGS */
	int allow_undecidable;
};

static const struct kb_opt plan_opts[] = {
	KB_OPT_MODEL("plan a run on the performance model (docs/model.md), as `run --model MODEL` would: the model is checked, no kernel, tree or host is needed, and its noise is what the verdicts can expect; without it, the plan is a real run's and refuses what `run` would"),
	KB_OPT_JSON("print an object with variants, builds and boots"),
	KB_OPT_ALLOW_DROPPED("accept requested options that do not hold"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_MAX_BOOTS,
	KB_OPT_MAX_SAMPLES,
	KB_OPT_STRING(struct kb_args, db, 0, "db", "PATH",
		      "a database of earlier experiments on the matrix's hosts: the noise their boots had (none is read without it)"),
	KB_OPT_BOOL(struct plan_args, allow_undecidable, 0, "allow-undecidable",
		    "accept a design whose comparisons cannot reach alpha"),
	KB_OPT_END,
};

static int cmd_plan(const struct kb_args *args);

const struct cmd cmd_plan_entry = {
	.name = "plan",
	.rank = 10,
	.args = "MATRIX",
	.opts = plan_opts,
	.size = sizeof(struct plan_args),
	.fn = cmd_plan,
	.summary = "validate a matrix and show its variants, builds and boots",
	.help = "Reads MATRIX (YAML, see docs/matrix.md), expands its design and\n"
		"prints every variant with its factor levels, how many kernels must\n"
		"be built and how many guests booted.  Writes nothing.  A plan of more\n"
		"boots or samples than the limits (docs/matrix.md) is refused.\n"
		"A fractional or Plackett-Burman design is shown with its factors'\n"
		"letters and its aliases up to two-factor interactions.\n"
		"Then what the verdicts of a run can decide: each variant against\n"
		"the baseline, the test, and the smallest change it calls at the\n"
		"boots asked, at the noise --model's model gives or that of the\n"
		"earlier experiments on the matrix's hosts in --db's database (none is\n"
		"read without it), else at 2, 5 and 10% noise.  A design whose tests\n"
		"can never reach compare.alpha (1 boot a side) exits 2 unless\n"
		"--allow-undecidable.\n"
		"The time a run is expected to take: the builds one after another\n"
		"(but those the build cache holds),\n"
		"the boots over the hosts' capacity, from the model's time: or the\n"
		"step times of earlier experiments on the hosts in --db's database\n"
		"(a boot's time fitted to its runs where their boots had different\n"
		"runs_per_boot; where not, said when they had other runs than this\n"
		"plan's); and the boots compare --adaptive and why may add, up to\n"
		"repeat.max_boots.\n",
	.epilog = "With source.tree, every variant's config is resolved with the\n"
		  "tree's Kconfig (make olddefconfig): options that did not hold are\n"
		  "shown with why, and the plan exits 1 (docs/kconfig.md).  With\n"
		  "workload.profile, variants whose kernels lack PERF_EVENTS or\n"
		  "KALLSYMS are warned of: their profiles would be empty or unnamed.\n\n"
		  "Without --model the plan is a real run's: a variant without a\n"
		  "kernel (no source.tree, no source.kernel), a source.tree that is\n"
		  "not there or a guest a Xen host refuses is bad input (exit 2), as\n"
		  "`run` refuses it before anything is stored.  The plan ends with\n"
		  "the hosts a run connects to and how (docs/matrix.md, \"Hosts\").\n"
		  CMD_HELP_MACHINES "\n"
		  "Examples:\n"
		  "  kbisect plan kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
		  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n"
		  "  kbisect plan my-matrix.yaml      # a real run's plan\n",
};

static int cmd_plan(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_plan_limits lim;
	struct kb_metric_dir dir;
	struct verdicts vd;
	struct cost co;
	int json = args->json, allow_dropped = args->allow_dropped;
	int quiet = args->quiet, ret;

	if ((ret = cmd_plan_limits("plan", args, &lim)))
		return ret;
	/* what `run` refuses with the same arguments, in its order */
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)) ||
	    (ret = kb_plan_check_limits(p, &lim, &err)) ||
	    (!args->model && (ret = kb_realexec_check_source(p, &err))) ||
	    (!args->model && (ret = kb_realexec_check_kernels(p, &err))) ||
	    (ret = cmd_plan_resolve(p, quiet, &err)) ||
	    (args->model &&
	     ((ret = kb_model_load(args->model, &model, &err)) ||
	      (ret = kb_model_check_metric(model, kb_matrix_workload(m)->metric,
					   &err)))) ||
	    (!args->model && (ret = kb_realexec_check_guests(p, &err))) ||
	    (ret = plan_verdicts(p, args->model, args->db, &vd, &err)) ||
	    (ret = plan_cost(p, model, args->db, &co, &err))) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (args->model && kb_realexec_check_guests(p, &err)) {
		/* the model runs it; a Xen host would not */
		if (!quiet)
			fprintf(stderr, "kbisect: warning: %s (run and submit refuse it without --model, before a build)\n",
				err.msg);
		kb_err_clear(&err);
	}
	if (json)
		plan_json(p, model != NULL, &vd, &co);
	else
		plan_text(p, model != NULL, &vd, &co);
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
	/* a design whose tests can never reach alpha gives no verdict */
	if (vd.n && !vd.at.can_decide) {
		fflush(stdout);
		if (CMD_ARGS(struct plan_args, args)->allow_undecidable) {
			fprintf(stderr,
				"kbisect: note: the design cannot decide (accepted with --allow-undecidable)\n");
		} else {
			fprintf(stderr,
				"kbisect: the design cannot decide: with %u boot a side no comparison can reach alpha %g; raise repeat.boots to 2 or more (3 to pair within rounds), or pass --allow-undecidable\n",
				vd.boots, vd.alpha);
			ret = 2;
		}
	}
out:
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
