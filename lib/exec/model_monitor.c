/*
 * The performance model's monitors (docs/model.md, "monitors"): the
 * section's counters with their base, noise and effects, and the value
 * each gives in a run (kb_model_monitor_sample()).  Called by
 * lib/exec/model.c; calls lib/exec/model_core.c.
 */
#include "model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "model_int.h"
#include "monitor.h"
#include "rng.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

static const char *const monitor_keys[] = { "base", "noise", "effects" };

/* A monitor's name: letters, digits and _ . : -, with a dot (monitor.h). */
static int monitor_name_valid(const char *s, size_t len)
{
	if (!len || len >= KB_MONITOR_NAME_MAX || strlen(s) != len ||
	    !strchr(s, '.') || *s == '.')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.:-") == len;
}

/* monitors: NAME -> { base, noise, effects } (docs/model.md) */
int kb_model__monitors(struct ctx *c, const struct kb_ynode *n)
{
	size_t i;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'monitors'")))
		return ret;
	if (n->n > KB_MODEL_MAX_MONITORS)
		return fail(c, n, "'monitors' lists more than %d monitors",
			    KB_MODEL_MAX_MONITORS);
	c->m->monitors = kb_calloc(n->n ? n->n : 1, sizeof(*c->m->monitors));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *key = n->keys[i], *item = n->items[i];
		struct model_monitor *mm = &c->m->monitors[i];
		const struct kb_ynode *v;

		if (!monitor_name_valid(key->str, key->len))
			return fail(c, key,
				    "invalid monitor name '%s': expected letters, digits, _ . : - with a dot, under %d characters, such as vmstat.pgfault",
				    key->str, KB_MONITOR_NAME_MAX);
		c->m->nmonitors = i + 1;
		mm->name = kb_strdup(key->str);
		if ((ret = kb_ycheck_type(&c->y, item, KB_Y_MAP, "a monitor")) ||
		    (ret = kb_ycheck_keys(&c->y, item, "a monitor",
					  monitor_keys, N(monitor_keys))))
			return ret;
		if (!(v = kb_ynode_get(item, "base")))
			return fail(c, item,
				    "missing 'base' in monitor '%s': its value per run when no effect applies",
				    mm->name);
		if ((ret = kb_ycheck_number(&c->y, v, "'base'", &mm->base)))
			return ret;
		if (!(mm->base > 0) || mm->base > KB_MODEL_MAX_VALUE)
			return fail(c, v,
				    "a monitor's 'base' must be greater than 0 and at most %g, found '%s'",
				    KB_MODEL_MAX_VALUE, v->str);
		if ((ret = kb_model__sigmas(c, kb_ynode_get(item, "noise"),
					    &mm->boot_sigma, &mm->run_sigma)))
			return ret;
		if ((v = kb_ynode_get(item, "effects")) &&
		    (ret =
			 kb_model__rules(c, v, 1, &mm->effects, &mm->neffects)))
			return ret;
	}
	return 0;
}

size_t kb_model_nmonitors(const struct kb_model *m)
{
	return m->nmonitors;
}

const char *kb_model_monitor_name(const struct kb_model *m, size_t i)
{
	return i < m->nmonitors ? m->monitors[i].name : NULL;
}

double kb_model_monitor_sample(const struct kb_model *m, size_t i,
			       const struct kb_variant *v, unsigned boot_no,
			       unsigned run_no)
{
	const struct model_monitor *mm = &m->monitors[i];
	unsigned char *memo = kb_model__memo_new(m);
	uint64_t seed = kb_rng_seed_from(m->seed, mm->name, 0, 0);
	double value = mm->base;
	size_t k;

	if (run_no == 0)
		run_no = 1;
	for (k = 0; k < mm->neffects; k++)
		if (kb_model__holds(m, &mm->effects[k], v, memo))
			value *= mm->effects[k].factor;
	free(memo);
	return value *
	       kb_model__lognormal(
		   mm->boot_sigma,
		   kb_rng_seed_from(seed, v->label, boot_no, 0)) *
	       kb_model__lognormal(
		   mm->run_sigma,
		   kb_rng_seed_from(seed, v->label, boot_no, run_no));
}
