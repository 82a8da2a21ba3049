/*
 * Differential profiles: each function's share of two sides' boots,
 * Welch's t test each, Holm over the family (profile.h).
 */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "banned.h"

/* One side's rows, their distinct boots (sorted) and samples a boot. */
struct side {
	const struct kb_profile_row *rows;
	size_t nrows;
	long long *boots;
	unsigned long long *total;
	size_t nboots;
};

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

static void side_init(struct side *s, const struct kb_profile_row *r,
		      size_t n)
{
	size_t i, k = 0;

	s->rows = r;
	s->nrows = n;
	s->boots = kb_calloc(n ? n : 1, sizeof(*s->boots));
	for (i = 0; i < n; i++)
		s->boots[i] = r[i].boot;
	if (n)
		qsort(s->boots, n, sizeof(*s->boots), cmp_ll);
	for (i = 0; i < n; i++)
		if (!k || s->boots[k - 1] != s->boots[i])
			s->boots[k++] = s->boots[i];
	s->nboots = k;
	s->total = kb_calloc(k ? k : 1, sizeof(*s->total));
	for (i = 0; i < n; i++) {
		long long *b = bsearch(&r[i].boot, s->boots, k,
				       sizeof(*s->boots), cmp_ll);

		s->total[b - s->boots] += r[i].samples;
	}
}

static size_t boot_index(const struct side *s, long long boot)
{
	long long *b = bsearch(&boot, s->boots, s->nboots, sizeof(*s->boots),
			       cmp_ll);

	return (size_t)(b - s->boots);
}

static void side_release(struct side *s)
{
	free(s->boots);
	free(s->total);
}

/* A function on one stack of one boot of one side. */
struct entry {
	const char *func;
	unsigned side;
	size_t boot;
	unsigned long long incl, self;
};

static int by_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c = strcmp(a->func, b->func);

	if (c)
		return c;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return (a->boot > b->boot) - (a->boot < b->boot);
}

/*
 * The functions of every stack of @s (side @which) appended to *@e
 * (*@n, capacity *@cap), each once a stack; the stacks' copies, split at
 * ';', are kept in *@texts (*@ntexts) for the entries to point into.
 */
static void entries_of(const struct side *s, unsigned which,
		       struct entry **e, size_t *n, size_t *cap,
		       char ***texts, size_t *ntexts)
{
	const char *frames[KB_PROFILE_MAX_DEPTH + 1];
	size_t i, j, k, nf, first;
	char *t, *p;

	*texts = kb_reallocarray(*texts, *ntexts + s->nrows + 1,
				 sizeof(**texts));
	for (i = 0; i < s->nrows; i++) {
		const struct kb_profile_row *r = &s->rows[i];
		size_t boot = boot_index(s, r->boot);

		first = *n;
		t = kb_strdup(r->stack ? r->stack : "");
		(*texts)[(*ntexts)++] = t;
		nf = 0;
		for (p = t; nf < KB_PROFILE_MAX_DEPTH + 1;) {
			char *semi = strchr(p, ';');

			if (semi)
				*semi = 0;
			if (*p)
				frames[nf++] = p;
			if (!semi)
				break;
			p = semi + 1;
		}
		for (j = 0; j < nf; j++) {
			for (k = 0; k < j && strcmp(frames[k], frames[j]); k++)
				;
			if (k < j) /* recursion: once a stack */
				continue;
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 1024;
				*e = kb_reallocarray(*e, *cap, sizeof(**e));
			}
			(*e)[(*n)++] = (struct entry){
				.func = frames[j],
				.side = which,
				.boot = boot,
				.incl = r->samples,
				.self = 0,
			};
		}
		/* the sampled frame's entry is among this stack's */
		for (k = first; nf && k < *n; k++)
			if (!strcmp((*e)[k].func, frames[nf - 1]))
				(*e)[k].self = r->samples;
	}
}

static int by_result(const void *x, const void *y)
{
	const struct kb_profile_change *a = x, *b = y;
	double da, db;

	if (a->changed != b->changed)
		return a->changed ? -1 : 1;
	da = isnan(a->diff) ? -1 : fabs(a->diff);
	db = isnan(b->diff) ? -1 : fabs(b->diff);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->func, b->func);
}

/* A share in percent; 0 for a boot without samples. */
static double pct(unsigned long long part, unsigned long long total)
{
	return total ? (double)part / (double)total * 100 : 0;
}

size_t kb_profile_compare(const struct kb_profile_row *a, size_t na,
			  const struct kb_profile_row *b, size_t nb,
			  double alpha, struct kb_profile_change **out,
			  size_t *nout)
{
	struct side s[2];
	struct entry *e = NULL;
	char **texts = NULL;
	size_t ne = 0, cap = 0, ntexts = 0, i, j, n = 0, ncap = 0;
	size_t nchanged = 0;
	struct kb_profile_change *c = NULL;
	double *x[2], *self[2], *p;

	side_init(&s[0], a, na);
	side_init(&s[1], b, nb);
	entries_of(&s[0], 0, &e, &ne, &cap, &texts, &ntexts);
	entries_of(&s[1], 1, &e, &ne, &cap, &texts, &ntexts);
	if (ne)
		qsort(e, ne, sizeof(*e), by_entry);
	for (j = 0; j < 2; j++) {
		x[j] = kb_calloc(s[j].nboots ? s[j].nboots : 1, sizeof(double));
		self[j] = kb_calloc(s[j].nboots ? s[j].nboots : 1,
				    sizeof(double));
	}
	for (i = 0; i < ne;) {
		const char *func = e[i].func;
		size_t present[2] = { 0, 0 };
		struct kb_profile_change *ch;

		for (j = 0; j < 2; j++) {
			memset(x[j], 0, s[j].nboots * sizeof(double));
			memset(self[j], 0, s[j].nboots * sizeof(double));
		}
		for (; i < ne && !strcmp(e[i].func, func); i++) {
			const struct side *sd = &s[e[i].side];

			if (x[e[i].side][e[i].boot] == 0)
				present[e[i].side]++;
			x[e[i].side][e[i].boot] +=
				pct(e[i].incl, sd->total[e[i].boot]);
			self[e[i].side][e[i].boot] +=
				pct(e[i].self, sd->total[e[i].boot]);
		}
		if (n == ncap) {
			ncap = ncap ? 2 * ncap : 256;
			c = kb_reallocarray(c, ncap, sizeof(*c));
		}
		ch = &c[n++];
		memset(ch, 0, sizeof(*ch));
		snprintf(ch->func, sizeof(ch->func), "%s", func);
		kb_stats_summary(x[0], s[0].nboots, &ch->a);
		kb_stats_summary(x[1], s[1].nboots, &ch->b);
		ch->self_a = kb_stats_mean(self[0], s[0].nboots);
		ch->self_b = kb_stats_mean(self[1], s[1].nboots);
		ch->diff = ch->b.mean - ch->a.mean;
		ch->change_pct = kb_stats_change_pct(ch->a.mean, ch->b.mean);
		ch->p = ch->lo = ch->hi = NAN;
		if (present[0] >= 2 || present[1] >= 2)
			ch->p = kb_stats_welch_test(&ch->a, &ch->b, 0.95,
						    &ch->lo, &ch->hi);
	}
	p = kb_calloc(n ? n : 1, sizeof(*p));
	for (i = 0; i < n; i++)
		p[i] = c[i].p;
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
	for (i = 0; i < ntexts; i++)
		free(texts[i]);
	free(texts);
	free(e);
	free(p);
	for (j = 0; j < 2; j++) {
		free(x[j]);
		free(self[j]);
		side_release(&s[j]);
	}
	return nchanged;
}

size_t kb_profile_tested(const struct kb_profile_change *c, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !isnan(c[i].p);
	return k;
}

/* One row's share, for sorting rows by stack. */
struct shared {
	const char *stack;
	unsigned side;
	double share; /* of its boot, over the side's boots */
};

static int by_stack(const void *x, const void *y)
{
	return strcmp(((const struct shared *)x)->stack,
		      ((const struct shared *)y)->stack);
}

void kb_profile_shares(const struct kb_profile_row *a, size_t na,
		       const struct kb_profile_row *b, size_t nb,
		       struct kb_profile_share **out, size_t *nout)
{
	struct shared *r = kb_calloc(na + nb ? na + nb : 1, sizeof(*r));
	struct kb_profile_share *v = NULL;
	struct side s[2];
	size_t i, j, k = 0, n = 0;

	side_init(&s[0], a, na);
	side_init(&s[1], b, nb);
	for (j = 0; j < 2; j++)
		for (i = 0; i < s[j].nrows; i++) {
			const struct kb_profile_row *row = &s[j].rows[i];
			size_t bi = boot_index(&s[j], row->boot);

			r[k++] = (struct shared){
				.stack = row->stack ? row->stack : "",
				.side = (unsigned)j,
				.share = pct(row->samples, s[j].total[bi]) /
					 100 / (double)s[j].nboots,
			};
		}
	if (k)
		qsort(r, k, sizeof(*r), by_stack);
	v = kb_calloc(k ? k : 1, sizeof(*v));
	for (i = 0; i < k; i++) {
		if (!n || strcmp(v[n - 1].stack, r[i].stack))
			v[n++].stack = kb_strdup(r[i].stack);
		if (r[i].side)
			v[n - 1].b += r[i].share;
		else
			v[n - 1].a += r[i].share;
	}
	*out = v;
	*nout = n;
	free(r);
	side_release(&s[0]);
	side_release(&s[1]);
}

void kb_profile_shares_free(struct kb_profile_share *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].stack);
	free(v);
}
