/*
 * The core of the performance model (lib/exec/model.h): what every part
 * of it is made of.  The when-clauses, the rules (effects and failures)
 * built on them, "depends" and whether a rule holds for a variant; the
 * noise, as the model's, a monitor's or a stack's coefficients of
 * variation and the log-normal deviates drawn with them.  Called by the
 * model's other files (lib/exec/model.c lists them); calls none of them.
 */
#include "model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "matrix.h"
#include "mem.h"
#include "rng.h"
#include "suggest.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

static const char *const noise_keys[] = { "boot_cv", "run_cv" };
static const char *const effect_keys[] = { "when", "factor" };
static const char *const failure_keys[] = { "when", "stage" };
static const char *const stages[] = { "build", "boot" };
static const char *const other_factors[] = { "guest.mode",   "guest.vcpus",
					     "guest.pin",    "guest.memory_mib",
					     "kernel.rev",   "kernel.image" };

void kb_model__rules_free(struct rule *r, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		for (j = 0; j < r[i].ncond; j++) {
			free(r[i].cond[j].name);
			for (k = 0; k < r[i].cond[j].nvalues; k++)
				free(r[i].cond[j].values[k]);
			free(r[i].cond[j].values);
		}
		free(r[i].cond);
		free(r[i].text);
	}
	free(r);
}

/* ---- when-clauses ------------------------------------------------------- */

/* A guest.* or kernel.* level, in the text the matrix gives variants. */
static int other_level(struct ctx *c, const char *name,
		       const struct kb_ynode *n, char **out)
{
	const char *s;
	char what[160];
	int ret;

	if (!strncmp(name, "guest.", 6))
		return kb_ycheck_guest_level(&c->y, n, name, out);
	snprintf(what, sizeof(what), "a %s level", name);
	if ((ret = kb_ycheck_string(&c->y, n, what, &s)))
		return ret;
	*out = kb_strdup(s);
	return 0;
}

/* The canonical name of when-key @key into *@out, or an error. */
static int cond_name(struct ctx *c, const struct kb_ynode *key, char **out,
		     int *kconfig)
{
	const char *name = key->str, *hint;
	size_t i;
	int ret;

	if (kb_runtime_factor_name_valid(name)) {
		*out = kb_strdup(name);
		*kconfig = 0;
		return 0;
	}
	if (strchr(name, '.')) {
		for (i = 0; i < N(other_factors); i++) {
			if (!strcmp(name, other_factors[i])) {
				*out = kb_strdup(name);
				*kconfig = 0;
				return 0;
			}
		}
		hint = kb_suggest(name, other_factors, N(other_factors));
		if (hint)
			return fail(c, key,
				    "unknown factor '%s' (did you mean '%s'?)",
				    name, hint);
		return fail(c, key,
			    "unknown factor '%s': expected a Kconfig option or one of guest.mode, guest.vcpus, guest.pin, guest.memory_mib, kernel.rev, kernel.image, workload.copies, workload.NAME, cmdline.NAME, sysctl.NAME",
			    name);
	}
	if ((ret = kb_ycheck_kconfig_name(&c->y, key, &name)))
		return ret;
	*out = kb_strdup(name);
	*kconfig = 1;
	return 0;
}

/*
 * The level of @cd, or for a kernel.* or guest.* factor a list of levels
 * meaning "any of": a sequence, except for guest.pin, whose level is
 * itself a list (a list of lists is "any of" there).  Kconfig levels stay
 * scalars: write one rule per level.
 */
static int cond_levels(struct ctx *c, struct cond *cd,
		       const struct kb_ynode *n)
{
	const struct kb_ynode *const *items = &n;
	size_t count = 1, i;
	int ret;

	if (n->type == KB_Y_SEQ && !cd->kconfig &&
	    (strcmp(cd->name, "guest.pin") ||
	     (n->n && n->items[0]->type == KB_Y_SEQ))) {
		if (n->n == 0)
			return fail(c, n,
				    "an empty list of levels for '%s': give at least one (a list means any of them)",
				    cd->name);
		if (n->n > KB_MODEL_MAX_ANY)
			return fail(c, n,
				    "more than %d levels for '%s' in one 'when'",
				    KB_MODEL_MAX_ANY, cd->name);
		items = (const struct kb_ynode *const *)n->items;
		count = n->n;
	}
	cd->values = kb_calloc(count, sizeof(*cd->values));
	for (i = 0; i < count; i++) {
		if (!cd->kconfig)
			ret = other_level(c, cd->name, items[i],
					  &cd->values[i]);
		else if (!(ret = kb_ycheck_kconfig_level(&c->y, items[i],
							 cd->name)))
			cd->values[i] = kb_strdup(items[i]->str);
		if (ret)
			return ret;
		cd->nvalues++;
	}
	return 0;
}

/*
 * Whether variant level @level matches a when-level @want: the same text;
 * for kernel.rev also a full commit id that @want (7 to 40 hex digits)
 * abbreviates.
 */
static int level_matches(const struct cond *cd, const char *level,
			 const char *want)
{
	size_t n = strlen(want);

	if (!strcmp(level, want))
		return 1;
	return !strcmp(cd->name, "kernel.rev") && n >= 7 && n <= 40 &&
	       strspn(want, "0123456789abcdef") == n &&
	       strlen(level) == 40 && !strncmp(level, want, n);
}

static int parse_when(struct ctx *c, const struct kb_ynode *n,
		      enum stage stage, struct rule *r)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t i, j;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'when'")))
		return ret;
	if (n->n == 0)
		return fail(c, n,
			    "'when' is empty: give the levels that must hold, such as { DEBUG_SPINLOCK: y }");
	if (n->n > KB_MODEL_MAX_WHEN)
		return fail(c, n, "'when' has more than %d levels",
			    KB_MODEL_MAX_WHEN);
	r->cond = kb_calloc(n->n, sizeof(*r->cond));
	for (i = 0; i < n->n; i++) {
		struct cond *cd = &r->cond[i];

		if ((ret = cond_name(c, n->keys[i], &cd->name, &cd->kconfig)))
			goto out;
		r->ncond++;
		for (j = 0; j < i; j++) {
			if (!strcmp(r->cond[j].name, cd->name)) {
				ret = fail(c, n->keys[i],
					   "'%s' appears twice in this 'when' (first as '%s')",
					   n->keys[i]->str, n->keys[j]->str);
				goto out;
			}
		}
		if (stage == STAGE_BUILD && !strncmp(cd->name, "guest.", 6)) {
			ret = fail(c, n->keys[i],
				   "a build failure cannot depend on '%s': guest factors do not change the build (use stage: boot)",
				   cd->name);
			goto out;
		}
		if (stage == STAGE_BUILD &&
		    kb_runtime_factor_name_valid(cd->name)) {
			ret = fail(c, n->keys[i],
				   "a build failure cannot depend on '%s': workload, cmdline and sysctl factors do not change the build (use stage: boot)",
				   cd->name);
			goto out;
		}
		if ((ret = cond_levels(c, cd, n->items[i])))
			goto out;
		kb_buf_addf(&text, "%s%s=", i ? " " : "", cd->name);
		for (j = 0; j < cd->nvalues; j++)
			kb_buf_addf(&text, "%s%s", j ? "|" : "",
				    cd->values[j]);
	}
	r->text = kb_buf_detach(&text);
	ret = 0;
out:
	kb_buf_release(&text);
	return ret;
}

/* ---- rules -------------------------------------------------------------- */

/* The effects (@stage NONE) or failures list at @n into *@rules. */
int kb_model__rules(struct ctx *c, const struct kb_ynode *n, int effects,
		    struct rule **rules, size_t *nrules)
{
	const char *what = effects ? "'effects'" : "'failures'";
	size_t i, k;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_SEQ, what)))
		return ret;
	if (n->n > KB_MODEL_MAX_RULES)
		return fail(c, n, "%s lists more than %d entries", what,
			    KB_MODEL_MAX_RULES);
	*rules = kb_calloc(n->n, sizeof(**rules));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *item = n->items[i], *when, *v;
		struct rule *r = &(*rules)[i];
		char where[48];

		snprintf(where, sizeof(where), "an entry of %s", what);
		if ((ret = kb_ycheck_type(&c->y, item, KB_Y_MAP, where)))
			return ret;
		*nrules = i + 1;
		if (effects)
			ret = kb_ycheck_keys(&c->y, item, "an effect",
					     effect_keys, N(effect_keys));
		else
			ret = kb_ycheck_keys(&c->y, item, "a failure",
					     failure_keys, N(failure_keys));
		if (ret)
			return ret;
		if (!(when = kb_ynode_get(item, "when")))
			return fail(c, item,
				    "missing 'when' in this %s: the levels that must hold",
				    effects ? "effect" : "failure");
		if (effects) {
			if (!(v = kb_ynode_get(item, "factor")))
				return fail(c, item,
					    "missing 'factor' in this effect: the multiplier that applies, such as 0.5");
			if ((ret = kb_ycheck_number(&c->y, v, "'factor'",
						    &r->factor)))
				return ret;
			if (r->factor <= 0)
				return fail(c, v,
					    "'factor' must be greater than 0, found '%s'",
					    v->str);
			r->stage = STAGE_NONE;
		} else {
			if (!(v = kb_ynode_get(item, "stage")))
				return fail(c, item,
					    "missing 'stage' in this failure: build or boot");
			if ((ret = kb_ycheck_choice(&c->y, v, "stage", stages,
						    N(stages), &k)))
				return ret;
			r->stage = k ? STAGE_BOOT : STAGE_BUILD;
		}
		if ((ret = parse_when(c, when, r->stage, r)))
			return ret;
	}
	return 0;
}

/* ---- noise -------------------------------------------------------------- */

static int get_cv(struct ctx *c, const struct kb_ynode *n, const char *what,
		  double *cv, double *sigma)
{
	int ret = kb_ycheck_number(&c->y, n, what, cv);

	if (ret)
		return ret;
	if (*cv < 0 || *cv > KB_MODEL_MAX_CV)
		return fail(c, n,
			    "%s must be a coefficient of variation from 0 to %g (0.03 is 3%%), found '%s'",
			    what, KB_MODEL_MAX_CV, n->str);
	*sigma = sqrt(log1p(*cv * *cv));
	return 0;
}

/* A noise mapping { boot_cv, run_cv } at @n (NULL or null: none) into
 * each CV and its sigma, left as they are where not given. */
static int noise_map(struct ctx *c, const struct kb_ynode *n,
		     double *boot_cv, double *boot_sigma, double *run_cv,
		     double *run_sigma)
{
	const struct kb_ynode *v;
	int ret;

	if (!n || kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'noise'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'noise'", noise_keys,
				  N(noise_keys))))
		return ret;
	if ((v = kb_ynode_get(n, "boot_cv")) &&
	    (ret = get_cv(c, v, "'boot_cv'", boot_cv, boot_sigma)))
		return ret;
	if ((v = kb_ynode_get(n, "run_cv")) &&
	    (ret = get_cv(c, v, "'run_cv'", run_cv, run_sigma)))
		return ret;
	return 0;
}

int kb_model__noise(struct ctx *c, const struct kb_ynode *n)
{
	return noise_map(c, n, &c->m->boot_cv, &c->m->boot_sigma,
			 &c->m->run_cv, &c->m->run_sigma);
}

/* A noise mapping { boot_cv, run_cv } at @n into the two sigmas. */
int kb_model__sigmas(struct ctx *c, const struct kb_ynode *n,
		     double *boot_sigma, double *run_sigma)
{
	double boot_cv, run_cv;

	return noise_map(c, n, &boot_cv, boot_sigma, &run_cv, run_sigma);
}

/* A log-normal deviate with mean 1 from the stream seeded by @stream. */
double kb_model__lognormal(double sigma, uint64_t stream)
{
	struct kb_rng r;

	if (sigma == 0)
		return 1.0;
	kb_rng_init(&r, stream);
	return exp(-sigma * sigma / 2 + sigma * kb_rng_normal(&r));
}

/* ---- depends ------------------------------------------------------------ */

/* A Kconfig option name in "depends" (not a guest or kernel factor). */
static int dep_name(struct ctx *c, const struct kb_ynode *n, char **out)
{
	int kconfig = 0, ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_SCALAR,
				  "an option in 'depends'")))
		return ret;
	if ((ret = cond_name(c, n, out, &kconfig)))
		return ret;
	if (kconfig)
		return 0;
	ret = fail(c, n,
		   "'%s' cannot be in 'depends': only Kconfig options depend on each other",
		   *out);
	free(*out);
	*out = NULL;
	return ret;
}

static long dep_find(const struct kb_model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->ndeps; i++)
		if (!strcmp(m->deps[i].name, name))
			return (long)i;
	return -1;
}

/*
 * Refuse a dependency cycle through entry @i: @state is 0 unvisited, 1 on
 * the current path, 2 done.  The cycle is reported at @n.
 */
static int dep_cycle(struct ctx *c, const struct kb_ynode *n, size_t i,
		     unsigned char *state)
{
	const struct dep *d = &c->m->deps[i];
	size_t j;
	int ret;

	if (state[i] == 2)
		return 0;
	if (state[i] == 1)
		return fail(c, n,
			    "'depends' has a cycle through '%s': an option cannot depend on itself",
			    d->name);
	state[i] = 1;
	for (j = 0; j < d->n; j++)
		if (d->on_idx[j] >= 0 &&
		    (ret = dep_cycle(c, n, (size_t)d->on_idx[j], state)))
			return ret;
	state[i] = 2;
	return 0;
}

/* depends: { OPTION: OTHER, OPTION2: [A, B] } */
int kb_model__depends(struct ctx *c, const struct kb_ynode *n)
{
	struct kb_model *m = c->m;
	unsigned char *state = NULL;
	size_t i, j;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'depends'")))
		return ret;
	if (n->n > KB_MODEL_MAX_RULES)
		return fail(c, n, "'depends' lists more than %d options",
			    KB_MODEL_MAX_RULES);
	m->deps = kb_calloc(n->n ? n->n : 1, sizeof(*m->deps));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *v = n->items[i];
		struct dep *d = &m->deps[i];
		size_t k = v->type == KB_Y_SEQ ? v->n : 1;

		if ((ret = dep_name(c, n->keys[i], &d->name)))
			return ret;
		m->ndeps = i + 1;
		for (j = 0; j < i; j++)
			if (!strcmp(m->deps[j].name, d->name))
				return fail(c, n->keys[i],
					    "'%s' appears twice in 'depends'",
					    n->keys[i]->str);
		if (v->type == KB_Y_MAP)
			return fail(c, v,
				    "the dependencies of '%s' must be an option or a list of options, found a mapping",
				    d->name);
		if (k == 0)
			return fail(c, v,
				    "the dependencies of '%s' are empty: leave the option out instead",
				    d->name);
		if (k > KB_MODEL_MAX_WHEN)
			return fail(c, v, "'%s' depends on more than %d options",
				    d->name, KB_MODEL_MAX_WHEN);
		d->on = kb_calloc(k, sizeof(*d->on));
		d->on_idx = kb_calloc(k, sizeof(*d->on_idx));
		for (j = 0; j < k; j++) {
			const struct kb_ynode *item =
				v->type == KB_Y_SEQ ? v->items[j] : v;

			if ((ret = dep_name(c, item, &d->on[j])))
				return ret;
			d->n = j + 1;
			if (!strcmp(d->on[j], d->name))
				return fail(c, item,
					    "'%s' cannot depend on itself",
					    d->name);
		}
	}
	for (i = 0; i < m->ndeps; i++)
		for (j = 0; j < m->deps[i].n; j++)
			m->deps[i].on_idx[j] = dep_find(m, m->deps[i].on[j]);
	state = kb_calloc(m->ndeps ? m->ndeps : 1, 1);
	ret = 0;
	for (i = 0; i < m->ndeps && !ret; i++)
		ret = dep_cycle(c, n->keys[i], i, state);
	free(state);
	return ret;
}

size_t kb_model_depends(const struct kb_model *m, const char *option,
			const char *const **on)
{
	long i = dep_find(m, kb_kconfig_name(option));

	if (i < 0) {
		*on = NULL;
		return 0;
	}
	*on = (const char *const *)m->deps[i].on;
	return m->deps[i].n;
}

/* ---- whether a rule holds ----------------------------------------------- */

/*
 * Whether entry @i of "depends" is met for @v: every option it depends on
 * is y, itself with its dependencies met.  @memo (one byte per entry, 0
 * unknown, 1 met, 2 unmet) keeps diamonds from being walked twice; the
 * graph has no cycles (refused at load).
 */
static int dep_met(const struct kb_model *m, const struct kb_variant *v,
		   size_t i, unsigned char *memo)
{
	const struct dep *d = &m->deps[i];
	size_t j;
	int met = 1;

	if (memo[i])
		return memo[i] == 1;
	for (j = 0; j < d->n && met; j++) {
		const char *level = kb_variant_get(v, d->on[j]);

		if (!level || strcmp(level, "y"))
			met = 0;
		else if (d->on_idx[j] >= 0)
			met = dep_met(m, v, (size_t)d->on_idx[j], memo);
	}
	memo[i] = met ? 1 : 2;
	return met;
}

/* The level of Kconfig option @name in @v: n when unset or dropped. */
static const char *option_level(const struct kb_model *m,
				const struct kb_variant *v, const char *name,
				unsigned char *memo)
{
	const char *level = kb_variant_get(v, name);
	long i;

	if (!level)
		return "n";
	if (memo && strcmp(level, "n") && (i = dep_find(m, name)) >= 0 &&
	    !dep_met(m, v, (size_t)i, memo))
		return "n";
	return level;
}

int kb_model__holds(const struct kb_model *m, const struct rule *r,
		    const struct kb_variant *v, unsigned char *memo)
{
	size_t i, j;

	for (i = 0; i < r->ncond; i++) {
		const char *level;

		if (r->cond[i].kconfig)
			level = option_level(m, v, r->cond[i].name, memo);
		else if (!(level = kb_variant_get(v, r->cond[i].name)))
			return 0;
		for (j = 0; j < r->cond[i].nvalues; j++)
			if (level_matches(&r->cond[i], level,
					  r->cond[i].values[j]))
				break;
		if (j == r->cond[i].nvalues)
			return 0;
	}
	return 1;
}

/* A fresh memo for dep_met(), or NULL when the model has no "depends". */
unsigned char *kb_model__memo_new(const struct kb_model *m)
{
	return m->ndeps ? kb_calloc(m->ndeps, 1) : NULL;
}
