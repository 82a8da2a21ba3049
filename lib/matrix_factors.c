/*
 * The matrix's factors (docs/matrix.md): the factors section, every
 * factor's levels, and the run-time factors among them: workload.copies
 * and workload.NAME parameters filled into the command or the fio
 * options as {{NAME}}, cmdline.NAME (text on the kernel command line),
 * sysctl.NAME (written to /proc/sys by the guest's /init).  Called by the
 * sections and the workload (lib/matrix.c lists the files); calls only
 * lib/matrix.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "matrix_int.h"
#include "mem.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

/* Most cmdline level text, sysctl name and value. */
#define MAX_CMDLINE_LEVEL 256
#define MAX_SYSCTL_NAME 128
#define MAX_SYSCTL_VALUE 256

/* ---- run-time factors: workload.*, cmdline.*, sysctl.* ------------------ */

/* A kernel parameter's name: letters, digits, _, - and . */
static int cmdline_name_valid(const char *s)
{
	const char *p;

	if (!*s || strlen(s) > 64 || *s == '-' || *s == '.')
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.'))
			return 0;
	return 1;
}

/* A sysctl: words of [a-z0-9_] joined by dots, as /proc/sys/A/B names. */
static int sysctl_name_valid(const char *s)
{
	const char *p;

	if (!*s || strlen(s) > MAX_SYSCTL_NAME || *s == '.')
		return 0;
	for (p = s; *p; p++) {
		if (*p == '.' && (p[1] == '.' || p[1] == '\0'))
			return 0;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.'))
			return 0;
	}
	return 1;
}

int kb_runtime_factor_name_valid(const char *name)
{
	if (!strncmp(name, "workload.", 9))
		return !strcmp(name + 9, "copies") ||
		       kb_matrix__lower_word(name + 9, KB_METRIC_NAME_MAX);
	if (!strncmp(name, "cmdline.", 8))
		return cmdline_name_valid(name + 8);
	if (!strncmp(name, "sysctl.", 7))
		return sysctl_name_valid(name + 7);
	return 0;
}

/* @s lower-cased, for "did you mean"; caller frees. */
static char *lowered(const char *s)
{
	char *t = kb_strdup(s), *p;

	for (p = t; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
		else if (*p == '-')
			*p = '_';
	return t;
}

static int bad_name(struct ctx *c, const struct kb_ynode *key,
		    const char *what, const char *expect, int ok_lowered)
{
	char *low = lowered(key->str);
	int ret;

	if (ok_lowered && strcmp(low, key->str))
		ret = fail(c, key, "invalid %s name '%s': %s (did you mean '%s'?)",
			   what, key->str, expect, low);
	else
		ret = fail(c, key, "invalid %s name '%s': %s", what, key->str,
			   expect);
	free(low);
	return ret;
}

/* A cmdline level's characters: none that the command line, the shell
 * of /init or a reader of the domain XML could take for syntax. */
static int cmdline_text_valid(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(" _.,:=+/@%-", *s)))
			return 0;
	return 1;
}

/* One level of a workload.*, cmdline.* or sysctl.* factor @f into @out. */
static int runtime_level(struct ctx *c, const struct kb_factor *f,
			 const struct kb_ynode *n, struct kb_level *out)
{
	const char *s;
	int ret;

	if (!strcmp(f->name, "workload.copies")) {
		uint64_t v;

		if ((ret = kb_ycheck_uint(&c->y, n, "workload.copies", 1,
					  KB_MATRIX_MAX_COPIES, &v)))
			return ret;
		out->value = kb_matrix__keep(c->m,
					     kb_asprintf("%llu",
							 (unsigned long long)v));
		return 0;
	}
	if ((ret = kb_ycheck_string(&c->y, n, "a level", &s)))
		return ret;
	if (f->kind == KB_FACTOR_CMDLINE) {
		if (strlen(s) > MAX_CMDLINE_LEVEL)
			return fail(c, n,
				    "a level of %s is longer than %d characters",
				    f->name, MAX_CMDLINE_LEVEL);
		if (!cmdline_text_valid(s) || s[0] == ' ' ||
		    s[strlen(s) - 1] == ' ')
			return fail(c, n,
				    "invalid level '%s' for %s: kernel command-line text is letters, digits, spaces between parameters and _ . , : = + / @ %% -, such as on, off, 2 or nosmt=force",
				    s, f->name);
	}
	if (f->kind == KB_FACTOR_SYSCTL && strlen(s) > MAX_SYSCTL_VALUE)
		return fail(c, n, "a level of %s is longer than %d characters",
			    f->name, MAX_SYSCTL_VALUE);
	out->value = s;
	return 0;
}

char *kb_cmdline_level_text(const char *factor, const char *level)
{
	const char *name = strncmp(factor, "cmdline.", 8) ? factor
							  : factor + 8;

	if (!strcmp(level, "off"))
		return NULL;
	if (!strcmp(level, "on"))
		return kb_strdup(name);
	if (strpbrk(level, "= "))
		return kb_strdup(level);
	return kb_asprintf("%s=%s", name, level);
}

/* ---- the factors section and the levels ------------------------------- */

/*
 * One level of a machine.* factor (factors.machine: what a machine host
 * boots around the variant's kernel): machine.hypervisor none or xen,
 * machine.xen a Xen image (a file, resolved as kernel.image's are),
 * machine.xen_cmdline Xen's command line (kernel command-line text).
 */
static int machine_level(struct ctx *c, const struct kb_factor *f,
			 const struct kb_ynode *n, struct kb_level *out)
{
	static const char *const hvs[] = { "none", "xen" };
	const char *s;
	size_t i;
	int ret;

	if (!strcmp(f->name, "machine.hypervisor")) {
		if ((ret = kb_ycheck_choice(&c->y, n, f->name, hvs, 2, &i)))
			return ret;
		out->value = hvs[i];
		return 0;
	}
	if (!strcmp(f->name, "machine.xen"))
		return kb_matrix__file(c, n, "Xen image", &out->value);
	if ((ret = kb_ycheck_string(&c->y, n, "a level", &s)))
		return ret;
	if (strlen(s) > MAX_CMDLINE_LEVEL || !*s || !cmdline_text_valid(s))
		return fail(c, n,
			    "invalid level '%s' for %s: Xen's command line is letters, digits, spaces between parameters and _ . , : = + / @ %% -, at most %d, such as dom0_max_vcpus=2 dom0_vcpus_pin",
			    s, f->name, MAX_CMDLINE_LEVEL);
	out->value = s;
	return 0;
}

/* Validate one level of guest/kernel factor @f. */
static int other_level(struct ctx *c, struct kb_factor *f,
		       const struct kb_ynode *n, struct kb_level *out)
{
	char *text;
	int ret;

	if (f->kind == KB_FACTOR_WORKLOAD || f->kind == KB_FACTOR_CMDLINE ||
	    f->kind == KB_FACTOR_SYSCTL)
		return runtime_level(c, f, n, out);
	if (!strncmp(f->name, "machine.", 8))
		return machine_level(c, f, n, out);
	if (f->kind == KB_FACTOR_GUEST) {
		if ((ret = kb_ycheck_guest_level(&c->y, n, f->name, &text)))
			return ret;
		out->value = kb_matrix__keep(c->m, text);
		return 0;
	}
	if (!strcmp(f->name, "kernel.image"))
		return kb_matrix__file(c, n, "kernel image", &out->value);
	return kb_ycheck_string(&c->y, n, "a kernel.rev level", &out->value);
}

/*
 * A factor written as a mapping at @n, `{ levels: [1, 4], condition:
 * true }`: its condition flag into @f, its levels list into *@list.
 */
static int factor_map(struct ctx *c, struct kb_factor *f,
		      const struct kb_ynode *n, const struct kb_ynode **list)
{
	static const char *const keys[] = { "levels", "condition" };
	static const char *const bools[] = { "false", "true" };
	const struct kb_ynode *v;
	char what[192];
	size_t i;
	int ret;

	snprintf(what, sizeof(what), "factor %s", f->name);
	if ((ret = kb_ycheck_keys(&c->y, n, what, keys, 2)))
		return ret;
	if ((v = kb_ynode_get(n, "condition"))) {
		snprintf(what, sizeof(what), "%s.condition", f->name);
		if ((ret = kb_ycheck_choice(&c->y, v, what, bools, 2, &i)))
			return ret;
		f->condition = (int)i;
	}
	if (!(*list = kb_ynode_get(n, "levels")))
		return fail(c, n,
			    "factor %s has no 'levels': write { levels: [1, 4], condition: true }",
			    f->name);
	return 0;
}

/* Parse the levels of factor @f at node @n: a list, or a mapping with
 * the list under `levels` (factor_map()). */
static int levels(struct ctx *c, struct kb_factor *f, const struct kb_ynode *n)
{
	struct kb_level *lv;
	size_t i, j;
	int ret;

	if (n->type == KB_Y_MAP && (ret = factor_map(c, f, n, &n)))
		return ret;
	if (n->type != KB_Y_SEQ)
		return fail(c, n,
			    "factor %s must be a list of levels such as [y, n], found %s",
			    f->name, kb_ynode_kind(n));
	if (n->n == 0)
		return fail(c, n, "factor %s has no levels: list at least one",
			    f->name);
	if (n->n > KB_MATRIX_MAX_LEVELS)
		return fail(c, n, "factor %s has %zu levels, more than %d",
			    f->name, n->n, KB_MATRIX_MAX_LEVELS);
	lv = kb_matrix__keep(c->m, kb_calloc(n->n, sizeof(*lv)));
	for (i = 0; i < n->n; i++) {
		lv[i].loc.line = n->items[i]->line;
		lv[i].loc.col = n->items[i]->col;
		if (f->kind != KB_FACTOR_KCONFIG) {
			ret = other_level(c, f, n->items[i], &lv[i]);
		} else if (!(ret = kb_ycheck_kconfig_level(&c->y, n->items[i],
							   f->name))) {
			lv[i].value = n->items[i]->str;
			lv[i].quoted = n->items[i]->quoted;
		}
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(lv[j].value, lv[i].value))
				return fail(c, n->items[i],
					    "level '%s' of %s is listed twice (first at line %u)",
					    lv[i].value, f->name,
					    lv[j].loc.line);
	}
	f->levels = lv;
	f->nlevels = n->n;
	return 0;
}

/* Add factor @name of @kind written at @key with the levels at @value:
 * duplicates, the factor cap, the levels list. */
static int add_factor(struct ctx *c, enum kb_factor_kind kind,
		      const char *name, const struct kb_ynode *key,
		      const struct kb_ynode *value)
{
	struct kb_matrix *m = c->m;
	struct kb_factor *f;
	size_t i;

	for (i = 0; i < m->nfactors; i++)
		if (!strcmp(m->factors[i].name, name))
			return fail(c, key,
				    "duplicate factor '%s' (first at line %u)",
				    name, m->factors[i].loc.line);
	if (m->nfactors >= KB_MATRIX_MAX_FACTORS)
		return fail(c, key, "more than %d factors",
			    KB_MATRIX_MAX_FACTORS);
	f = &m->factors[m->nfactors];
	f->kind = kind;
	f->name = name;
	f->loc.line = key->line;
	f->loc.col = key->col;
	m->nfactors++;
	return levels(c, f, value);
}

/* factors.workload, factors.cmdline or factors.sysctl (@group) at @grp,
 * a mapping already checked to be one. */
static int runtime_group(struct ctx *c, const char *group,
			 const struct kb_ynode *grp)
{
	enum kb_factor_kind kind;
	size_t i;
	int ret;

	kind = !strcmp(group, "workload")  ? KB_FACTOR_WORKLOAD
	       : !strcmp(group, "cmdline") ? KB_FACTOR_CMDLINE
					   : KB_FACTOR_SYSCTL;
	for (i = 0; i < grp->n; i++) {
		const struct kb_ynode *key = grp->keys[i];
		const char *s = key->str;
		char *name;

		if (kind == KB_FACTOR_WORKLOAD && strcmp(s, "copies") &&
		    !kb_matrix__lower_word(s, KB_METRIC_NAME_MAX)) {
			char *low = lowered(s);
			int fixable =
			    kb_matrix__lower_word(low, KB_METRIC_NAME_MAX);

			free(low);
			return bad_name(c, key, "workload parameter",
					"expected lower case letters, digits and _, starting with a letter, at most 31",
					fixable);
		}
		if (kind == KB_FACTOR_CMDLINE && !cmdline_name_valid(s))
			return bad_name(c, key, "kernel parameter",
					"expected letters, digits, _, - and ., at most 64",
					0);
		if (kind == KB_FACTOR_SYSCTL && !sysctl_name_valid(s)) {
			char *low = lowered(s);
			int fixable = sysctl_name_valid(low);

			free(low);
			return bad_name(c, key, "sysctl",
					"expected lower case words of letters, digits and _ joined by dots, such as kernel.sched_min_granularity_ns",
					fixable);
		}
		name = kb_matrix__keep(c->m, kb_asprintf("%s.%s", group, s));
		if ((ret = add_factor(c, kind, name, key,
						 grp->items[i])))
			return ret;
	}
	return 0;
}

int kb_matrix__factors(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const groups[] = { "kconfig", "guest", "kernel",
					      "workload", "cmdline",
					      "sysctl", "machine" };
	static const char *const machine_keys[] = { "hypervisor", "xen",
						    "xen_cmdline" };
	static const char *const guest_keys[] = { "mode", "vcpus", "pin",
						  "memory_mib" };
	static const char *const kernel_keys[] = { "rev", "image" };
	size_t g, i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'factors'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'factors'", groups, 7)))
		return ret;
	for (g = 0; g < n->n; g++) {
		const struct kb_ynode *grp = n->items[g];
		const char *gname = n->keys[g]->str;
		char what[64];

		snprintf(what, sizeof(what), "'factors.%s'", gname);
		if ((ret = kb_ycheck_type(&c->y, grp, KB_Y_MAP, what)))
			return ret;
		if (!strcmp(gname, "guest") &&
		    (ret = kb_ycheck_keys(&c->y, grp, what, guest_keys, 4)))
			return ret;
		if (!strcmp(gname, "kernel") &&
		    (ret = kb_ycheck_keys(&c->y, grp, what, kernel_keys, 2)))
			return ret;
		if (!strcmp(gname, "machine") &&
		    (ret = kb_ycheck_keys(&c->y, grp, what, machine_keys, 3)))
			return ret;
		if (!strcmp(gname, "workload") || !strcmp(gname, "cmdline") ||
		    !strcmp(gname, "sysctl")) {
			if ((ret = runtime_group(c, gname, grp)))
				return ret;
			continue;
		}
		for (i = 0; i < grp->n; i++) {
			const struct kb_ynode *key = grp->keys[i];
			const char *name;

			if (!strcmp(gname, "kconfig")) {
				if ((ret = kb_ycheck_kconfig_name(&c->y, key,
								  &name)))
					return ret;
				ret = add_factor(c, KB_FACTOR_KCONFIG, name,
						 key, grp->items[i]);
			} else {
				name = kb_matrix__keep(
				    c->m,
				    kb_asprintf("%s.%s", gname, key->str));
				/* machine.* factors are the machine's shape
				 * as guest.* are the guest's: stored as
				 * kind guest, their names saying which */
				ret = add_factor(c,
						 strcmp(gname, "kernel")
							 ? KB_FACTOR_GUEST
							 : KB_FACTOR_KERNEL,
						 name, key, grp->items[i]);
			}
			if (ret)
				return ret;
		}
	}
	return 0;
}
