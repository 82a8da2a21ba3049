/*
 * Changed monitors: every monitor of two sides' boots, Welch's t test
 * each, Holm over the family (monitor.h).
 */
#include "monitor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "banned.h"

/* The distinct boots of @n rows, sorted. */
static size_t boots_of(const struct kb_monitor_row *r, size_t n,
		       long long **out)
{
	long long *b = kb_calloc(n ? n : 1, sizeof(*b));
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k && b[j] != r[i].boot; j++)
			;
		if (j == k)
			b[k++] = r[i].boot;
	}
	*out = b;
	return k;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static size_t index_of(const long long *b, size_t n, long long boot)
{
	size_t i;

	for (i = 0; i < n && b[i] != boot; i++)
		;
	return i;
}

/*
 * The values of monitor @name over @nb boots @b of rows @r into @x (room
 * for @nb; @seen too, scratch), how many there are: one a boot, a boot
 * without one counting 0; but a host monitor (KB_MONITOR_HOST) is a
 * reading, not a count, and one a boot lacks was not read: left out.
 */
static size_t values(const struct kb_monitor_row *r, size_t n,
		     const long long *b, size_t nb, const char *name,
		     double *x, unsigned char *seen)
{
	size_t i, k = 0;

	memset(x, 0, nb * sizeof(*x));
	memset(seen, 0, nb);
	for (i = 0; i < n; i++)
		if (!strcmp(r[i].name, name)) {
			size_t j = index_of(b, nb, r[i].boot);

			x[j] += r[i].value;
			seen[j] = 1;
		}
	if (!kb_monitor_is_host(name))
		return nb;
	for (i = 0; i < nb; i++)
		if (seen[i])
			x[k++] = x[i];
	return k;
}

int kb_monitor_is_host(const char *name)
{
	return !strncmp(name, KB_MONITOR_HOST, sizeof(KB_MONITOR_HOST) - 1);
}

/* Welch's two-sided t test of the means of @a and @b. */
static double welch(const struct kb_summary *a, const struct kb_summary *b)
{
	double lo, hi;

	return kb_stats_welch_test(a, b, 0.95, &lo, &hi);
}

static int by_result(const void *x, const void *y)
{
	const struct kb_monitor_change *a = x, *b = y;

	if (a->changed != b->changed)
		return a->changed ? -1 : 1;
	if (a->changed && a->p_holm != b->p_holm)
		return a->p_holm < b->p_holm ? -1 : 1;
	return strcmp(a->name, b->name);
}

size_t kb_monitor_compare(const struct kb_monitor_row *a, size_t na,
			  const struct kb_monitor_row *b, size_t nb,
			  double alpha, struct kb_monitor_change **out,
			  size_t *nout)
{
	const char **names = kb_calloc(na + nb ? na + nb : 1, sizeof(*names));
	long long *ba = NULL, *bb = NULL;
	size_t nba, nbb, n = 0, i, nchanged = 0;
	struct kb_monitor_change *c;
	double *xa, *xb, *p;
	unsigned char *seen;
	size_t ka, kb;

	for (i = 0; i < na; i++)
		names[n++] = a[i].name;
	for (i = 0; i < nb; i++)
		names[n++] = b[i].name;
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0, nba = 0; i < n; i++) /* unique, in place */
		if (!nba || strcmp(names[nba - 1], names[i]))
			names[nba++] = names[i];
	n = nba;
	nba = boots_of(a, na, &ba);
	nbb = boots_of(b, nb, &bb);
	xa = kb_calloc(nba ? nba : 1, sizeof(*xa));
	xb = kb_calloc(nbb ? nbb : 1, sizeof(*xb));
	seen = kb_calloc(nba + nbb ? nba + nbb : 1, 1);
	p = kb_calloc(n ? n : 1, sizeof(*p));
	c = kb_calloc(n ? n : 1, sizeof(*c));
	for (i = 0; i < n; i++) {
		snprintf(c[i].name, sizeof(c[i].name), "%s", names[i]);
		ka = values(a, na, ba, nba, names[i], xa, seen);
		kb = values(b, nb, bb, nbb, names[i], xb, seen);
		kb_stats_summary(xa, ka, &c[i].a);
		kb_stats_summary(xb, kb, &c[i].b);
		c[i].change_pct = kb_stats_change_pct(c[i].a.mean, c[i].b.mean);
		c[i].p = p[i] = welch(&c[i].a, &c[i].b);
	}
	kb_stats_p_adjust(p, n, KB_P_ADJUST_HOLM, p);
	for (i = 0; i < n; i++) {
		c[i].p_holm = p[i];
		c[i].changed = p[i] < alpha;
		nchanged += (size_t)c[i].changed;
	}
	if (n)
		qsort(c, n, sizeof(*c), by_result);
	*out = c;
	*nout = n;
	free(names);
	free(ba);
	free(bb);
	free(xa);
	free(xb);
	free(seen);
	free(p);
	return nchanged;
}

size_t kb_monitor_tested(const struct kb_monitor_change *c, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !isnan(c[i].p);
	return k;
}
