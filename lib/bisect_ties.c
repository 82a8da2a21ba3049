/*
 * Option bisection's change groups (bisect.h): which changes move
 * together — those the Kconfig graph ties directly, or through derived
 * changes — and, where a probe's set did not hold, the groups joined and
 * renumbered so that the search (lib/bisect.c, lib/bisect_group.c) starts
 * again on them, the probes carried over in lib/bisect_probe.c's cache.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "buf.h"
#include "build.h"
#include "mem.h"
#include "banned.h"

#define MAX_DEPENDS_WALK 4096 /* names visited following one option */

/* ---- direct ties ------------------------------------------------------ */

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static long find_name(const struct bisect *b, const char *name)
{
	char *const *hit = bsearch(&name, b->names, b->nnames,
				   sizeof(*b->names), by_name);

	return hit ? (long)(hit - b->names) : -1;
}

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void uf_union(size_t *parent, size_t a, size_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

/*
 * Join change @c with the changes the Kconfig graph ties it to
 * directly: the options its dependencies name (opts.depends: on a tree
 * the symbols of its `depends on`, the options that select it and the
 * other members of its choice), and through a derived change (no prompt:
 * its level follows other options) what that one's dependencies name,
 * never through an unchanged option: A needs X needs B with X unchanged
 * does not tie A to B, since X keeps its level whichever of them moves.
 * With @walk the dependencies are followed through every option (what
 * a probe that did not hold joins: join_unheld()).
 */
static void join_ties(struct bisect *b, size_t c, int walk, size_t *parent)
{
	const char **stack = NULL, **seen = NULL;
	size_t nstack = 0, nseen = 0, i, j, n;
	const char *const *on;

	stack = kb_reallocarray(NULL, 1, sizeof(*stack));
	stack[nstack++] = b->names[b->change_name[c]];
	while (nstack && nseen < MAX_DEPENDS_WALK) {
		const char *name = stack[--nstack];

		n = b->o->depends(b->o->depends_arg, name, &on);
		for (i = 0; i < n && on; i++) {
			long k;

			for (j = 0; j < nseen; j++)
				if (!strcmp(seen[j], on[i]))
					break;
			if (j < nseen)
				continue;
			seen = kb_reallocarray(seen, nseen + 1, sizeof(*seen));
			seen[nseen++] = on[i];
			k = find_name(b, on[i]);
			if (k >= 0 && b->change_of[k] >= 0)
				uf_union(parent, c, (size_t)b->change_of[k]);
			if (!walk &&
			    (k < 0 || b->change_of[k] != CHANGE_DERIVED))
				continue;
			stack = kb_reallocarray(stack, nstack + 1,
						sizeof(*stack));
			stack[nstack++] = on[i];
		}
	}
	free(stack);
	free(seen);
}

void kb_bisect__tie_changes(struct bisect *b)
{
	struct kb_bisect_result *r = b->r;
	size_t *parent = kb_calloc(r->nchanges + 1, sizeof(*parent));
	size_t *gid = kb_calloc(r->nchanges + 1, sizeof(*gid));
	size_t i;

	for (i = 0; i < r->nchanges; i++)
		parent[i] = i;
	if (b->o->depends)
		for (i = 0; i < r->nchanges; i++)
			join_ties(b, i, 0, parent);
	/* groups numbered in order of their first option */
	b->ngroups = 0;
	for (i = 0; i < r->nchanges; i++) {
		size_t root = uf_find(parent, i);

		if (root == i)
			gid[i] = b->ngroups++;
		r->changes[i].group = (unsigned)gid[root];
	}
	r->ngroups = b->ngroups;
	free(gid);
	free(parent);
}

/*
 * The build weight of each group (opts.weights), asked for once the ends
 * are built: a cold O= folder has no build records before, and the same
 * bisection run again weighs its options alike.
 */
void kb_bisect__weigh_groups(struct bisect *b)
{
	const struct kb_build_weights *w;
	size_t i;

	if (!b->o->weights || !(w = b->o->weights(b->o->weights_arg)))
		return;
	b->gweight = kb_calloc(b->ngroups + 1, sizeof(*b->gweight));
	for (i = 0; i < b->r->nchanges; i++)
		b->gweight[b->r->changes[i].group] +=
			kb_build_weights_get(w, b->r->changes[i].option);
}

/* ---- probes that do not hold: their groups joined ----------------------- */

#define NOT_HELD "config does not hold: "

/*
 * The changes that a probe's @reason says did not hold (the executor's
 * "config does not hold: CONFIG_X=y (resolved n: ...), CONFIG_Y=..."),
 * into @out (room for every change); their number.
 */
static size_t unheld(const struct bisect *b, const char *reason, size_t *out)
{
	const char *p = reason ? strstr(reason, NOT_HELD) : NULL;
	size_t n = 0;

	if (!p)
		return 0;
	p += strlen(NOT_HELD);
	while (!strncmp(p, "CONFIG_", 7)) {
		const char *e = p += 7;
		char *name;
		int depth = 0;
		long k;

		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		name = kb_strndup(p, (size_t)(e - p));
		k = find_name(b, name);
		free(name);
		if (k >= 0 && b->change_of[k] >= 0 && n < b->r->nchanges)
			out[n++] = (size_t)b->change_of[k];
		/* past its "(resolved ...)", parentheses nested */
		for (p = e; *p; p++) {
			if (*p == '(') {
				depth++;
			} else if (*p == ')' && --depth <= 0) {
				p++;
				break;
			}
		}
		if (strncmp(p, ", ", 2))
			break;
		p += 2;
	}
	return n;
}

/* The union-find of the changes as they are grouped now: each change's
 * parent the first change of its group. */
static size_t *current_groups(const struct bisect *b)
{
	const struct kb_bisect_result *r = b->r;
	size_t *parent = kb_calloc(r->nchanges + 1, sizeof(*parent));
	size_t *first = kb_calloc(b->ngroups + 1, sizeof(*first));
	size_t i, g;

	for (i = 0; i < r->nchanges; i++) {
		g = r->changes[i].group;
		if (!first[g])
			first[g] = i + 1;
		parent[i] = first[g] - 1;
	}
	free(first);
	return parent;
}

static size_t count_groups(size_t *parent, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += uf_find(parent, i) == i;
	return k;
}

/*
 * Join in @parent the group of each change probe @pr did not hold with
 * the changes its dependencies reach through any option (A needs X
 * needs B: moving A without B did not hold).  With @note, each join that
 * adds changes is stored in b->r->joins.
 */
static void join_unheld(struct bisect *b, const struct kb_bisect_probe *pr,
			size_t *parent, int note)
{
	struct kb_bisect_result *r = b->r;
	size_t *x = kb_calloc(r->nchanges + 1, sizeof(*x));
	unsigned char *before = kb_calloc(r->nchanges + 1, 1);
	size_t n, i, k, root;

	if (pr->cls != KB_BISECT_SKIP || !b->o->depends)
		n = 0;
	else
		n = unheld(b, pr->reason, x);
	for (i = 0; i < n; i++) {
		struct kb_buf with = KB_BUF_INIT;
		struct kb_bisect_join *j;

		root = uf_find(parent, x[i]);
		for (k = 0; k < r->nchanges; k++)
			before[k] = uf_find(parent, k) == root;
		join_ties(b, x[i], 1, parent);
		root = uf_find(parent, x[i]);
		for (k = 0; k < r->nchanges; k++)
			if (!before[k] && uf_find(parent, k) == root)
				kb_buf_addf(&with, "%s%s", with.len ? " " : "",
					    r->changes[k].option);
		if (!note || !with.len) {
			kb_buf_release(&with);
			continue;
		}
		r->joins = kb_reallocarray(r->joins, r->njoins + 1,
					   sizeof(*r->joins));
		j = &r->joins[r->njoins++];
		j->step = pr->step;
		j->option = kb_strdup(r->changes[x[i]].option);
		j->with = kb_buf_detach(&with);
		j->reason = kb_strdup(pr->reason);
	}
	free(before);
	free(x);
}

void kb_bisect__held(struct bisect *b, const unsigned char *set,
		     enum kb_bisect_class cls)
{
	const struct point *p;
	size_t *parent;

	if (cls != KB_BISECT_SKIP || b->regroup ||
	    !(p = kb_bisect__cached(b, set)) || p->probe >= b->r->nprobes)
		return;
	parent = current_groups(b);
	join_unheld(b, &b->r->probes[p->probe], parent, 0);
	if (count_groups(parent, b->r->nchanges) < b->ngroups)
		b->regroup = b->stopped = 1;
	free(parent);
}

/*
 * @set (b->ngroups bytes, numbered by the groups before the join) in the
 * joined groups (@map: old group -> new, @ng of them), in place; 0 when it
 * is no set of joined groups (it moved part of one).
 */
static int remap_set(const struct bisect *b, unsigned char *set,
		     const size_t *map, size_t ng)
{
	unsigned char *t = kb_malloc(ng + 1);
	size_t g;
	int ok = 1;

	memset(t, 2, ng + 1);
	for (g = 0; g < b->ngroups; g++) {
		unsigned char v = set[g] != 0;

		if (t[map[g]] == 2)
			t[map[g]] = v;
		else if (t[map[g]] != v)
			ok = 0;
	}
	if (ok)
		memcpy(set, t, ng);
	free(t);
	return ok;
}

/*
 * Join the groups as the probes that did not hold say (each join stored
 * in b->r->joins), renumber them in order of their first option, and
 * carry the probes over: those whose sets are sets of the joined groups
 * answer from the cache again, the others (which moved part of a joined
 * group) stay in the history only.
 */
void kb_bisect__regroup(struct bisect *b)
{
	struct kb_bisect_result *r = b->r;
	size_t *parent = current_groups(b), *gid, *map, i, k, ng = 0;
	unsigned char *keep;

	for (i = 0; i < r->nprobes; i++)
		join_unheld(b, &r->probes[i], parent, 1);
	gid = kb_calloc(r->nchanges + 1, sizeof(*gid));
	map = kb_calloc(b->ngroups + 1, sizeof(*map));
	for (i = 0; i < r->nchanges; i++) {
		size_t root = uf_find(parent, i);

		if (root == i)
			gid[i] = ng++;
		map[r->changes[i].group] = gid[root];
	}
	keep = kb_calloc(b->npoints + 1, 1);
	for (k = 0; k < b->npoints; k++)
		keep[k] = b->points[k].set &&
			  remap_set(b, b->points[k].set, map, ng);
	if (b->last_set && !remap_set(b, b->last_set, map, ng)) {
		free(b->last_set);
		b->last_set = NULL;
	}
	for (i = 0; i < r->nchanges; i++)
		r->changes[i].group = (unsigned)map[r->changes[i].group];
	b->ngroups = r->ngroups = ng;
	/* the cache hashes sets of the joined groups */
	free(b->cache);
	b->cache = NULL;
	b->ncache = b->ncached = 0;
	for (k = 2; k < b->npoints; k++)
		if (keep[k] && b->points[k].classified)
			kb_bisect__cache_add(b, k);
	free(keep);
	free(b->gweight);
	b->gweight = NULL;
	kb_bisect__weigh_groups(b);
	b->regroup = b->stopped = 0;
	free(map);
	free(gid);
	free(parent);
}
