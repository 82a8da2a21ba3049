/*
 * The performance model's profile (docs/model.md, "profile"): the
 * section's folded stacks with their weights, noise and effects, and
 * the profile they sample in a run (kb_model_profile()).  Called by
 * lib/exec/model.c; calls lib/exec/model_core.c.
 */
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "model_int.h"
#include "profile.h"
#include "rng.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

static const char *const profile_keys[] = { "samples", "noise", "stacks" };
static const char *const stack_keys[] = { "weight", "noise", "effects" };

/* profile: { samples, noise, stacks: STACK -> weight | {...} } */
int kb_model__profile(struct ctx *c, const struct kb_ynode *n)
{
	const struct kb_ynode *v, *stacks;
	double boot_sigma = 0, run_sigma = 0;
	uint64_t samples = 1000;
	size_t i;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'profile'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'profile'", profile_keys,
				  N(profile_keys))))
		return ret;
	if ((v = kb_ynode_get(n, "samples")) &&
	    (ret = kb_ycheck_uint(&c->y, v, "'samples'", 1,
				  KB_MODEL_MAX_PROFILE_SAMPLES, &samples)))
		return ret;
	if ((ret = kb_model__sigmas(c, kb_ynode_get(n, "noise"), &boot_sigma,
				    &run_sigma)))
		return ret;
	if (!(stacks = kb_ynode_get(n, "stacks")) || kb_ynode_is_null(stacks))
		return fail(c, n,
			    "missing 'stacks' in 'profile': the folded stacks it samples, each with its weight");
	if ((ret = kb_ycheck_type(&c->y, stacks, KB_Y_MAP, "'stacks'")))
		return ret;
	if (stacks->n > KB_MODEL_MAX_STACKS)
		return fail(c, stacks, "'stacks' lists more than %d stacks",
			    KB_MODEL_MAX_STACKS);
	c->m->profile_samples = (unsigned)samples;
	c->m->stacks = kb_calloc(stacks->n ? stacks->n : 1,
				 sizeof(*c->m->stacks));
	for (i = 0; i < stacks->n; i++) {
		const struct kb_ynode *key = stacks->keys[i];
		const struct kb_ynode *item = stacks->items[i], *w = item;
		struct model_stack *ms = &c->m->stacks[i];
		const char *why;

		if (kb_profile_stack_check(key->str, &why))
			return fail(c, key,
				    "invalid stack '%.60s': %s; frames are function names of letters, digits and _ . : @ $ + - [ ], joined by ';', outermost first",
				    key->str, why);
		c->m->nstacks = i + 1;
		ms->stack = kb_strdup(key->str);
		ms->boot_sigma = boot_sigma;
		ms->run_sigma = run_sigma;
		if (item->type == KB_Y_MAP) {
			if ((ret = kb_ycheck_keys(&c->y, item, "a stack",
						  stack_keys, N(stack_keys))))
				return ret;
			if (!(w = kb_ynode_get(item, "weight")))
				return fail(c, item,
					    "missing 'weight' in stack '%.60s': its share of the samples against the others' weights",
					    ms->stack);
			if ((ret = kb_model__sigmas(
				 c, kb_ynode_get(item, "noise"),
				 &ms->boot_sigma, &ms->run_sigma)))
				return ret;
			if ((v = kb_ynode_get(item, "effects")) &&
			    (ret = kb_model__rules(c, v, 1, &ms->effects,
						   &ms->neffects)))
				return ret;
		}
		if ((ret = kb_ycheck_number(&c->y, w, "a stack's 'weight'",
					    &ms->weight)))
			return ret;
		if (!(ms->weight > 0) || ms->weight > KB_MODEL_MAX_VALUE)
			return fail(c, w,
				    "a stack's 'weight' must be greater than 0 and at most %g, found '%s'",
				    KB_MODEL_MAX_VALUE, w->str);
	}
	return 0;
}

int kb_model_profile(const struct kb_model *m, const struct kb_variant *v,
		     unsigned boot_no, unsigned run_no,
		     struct kb_profile_stack **out, size_t *nout)
{
	unsigned char *memo;
	double *w, sum = 0;
	size_t i, n = 0;

	*out = NULL;
	*nout = 0;
	if (!m->profile_samples || !m->nstacks)
		return 0;
	if (run_no == 0)
		run_no = 1;
	memo = kb_model__memo_new(m);
	w = kb_calloc(m->nstacks, sizeof(*w));
	for (i = 0; i < m->nstacks; i++) {
		const struct model_stack *ms = &m->stacks[i];
		uint64_t seed = kb_rng_seed_from(m->seed, ms->stack, 0, 0);
		size_t k;

		w[i] = ms->weight;
		for (k = 0; k < ms->neffects; k++)
			if (kb_model__holds(m, &ms->effects[k], v, memo))
				w[i] *= ms->effects[k].factor;
		w[i] *= kb_model__lognormal(
			    ms->boot_sigma,
			    kb_rng_seed_from(seed, v->label, boot_no, 0)) *
			kb_model__lognormal(
			    ms->run_sigma,
			    kb_rng_seed_from(seed, v->label, boot_no, run_no));
		sum += w[i];
	}
	*out = kb_calloc(m->nstacks, sizeof(**out));
	for (i = 0; i < m->nstacks; i++) {
		const struct model_stack *ms = &m->stacks[i];
		double mu = (double)m->profile_samples * w[i] / sum, x;
		struct kb_rng r;

		/* the sampling's own noise: Poisson, as a normal of its
		 * mean and variance, from a stream of its own */
		kb_rng_init(&r, kb_rng_seed_from(
					kb_rng_seed_from(m->seed, ms->stack, 1, 0),
					v->label, boot_no, run_no));
		x = floor(mu + sqrt(mu) * kb_rng_normal(&r) + 0.5);
		if (!(x >= 1))
			continue;
		(*out)[n].run = run_no;
		(*out)[n].stack = kb_strdup(ms->stack);
		(*out)[n].samples = (unsigned long long)x;
		n++;
	}
	*nout = n;
	free(w);
	free(memo);
	return 0;
}
