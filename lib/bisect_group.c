/*
 * Option bisection's adaptive group testing search (bisect.h).  It asks
 * lib/bisect_probe.c's oracle (kb_bisect__test) and cache; it is called
 * by lib/bisect.c.
 *
 * The candidates are the change groups in order, U; the members found so
 * far, H, stay applied.  H with all of U reproduces the regression (at the
 * start: the bad end).  A binary search over the prefixes of U finds the
 * shortest, P = U[0..L), such that H + P is bad: H + U[0..L-1) is not, so
 * U[L-1] is needed and joins H, and the other members lie in U[0..L-1).
 * Then H alone is probed: bad, it is the answer; else the search goes on
 * in U[0..L-1).  This is the "find the last needed change" step of
 * adaptive group testing (and of ddmin's variants that hold what they
 * found): a single culprit in ceil(log2 N) probes and one to confirm it
 * alone.  At the end each set without one member is probed (unless the
 * cache has it: the set without the member found last is H alone of the
 * round before), so that the answer can be shown 1-minimal; one that is
 * bad is a smaller answer, searched again.  k interacting groups cost
 * about k (log2 N + 2) - 1 probes.
 *
 * Which prefix: of those that split the possible answers best (the
 * fewest probes expected), the one classified before, else one whose
 * build the store holds, else the cheapest to build from the last point
 * built (opts.weights), else the middle one.
 *
 * Noise: only bad narrows a prefix from above, and only good or "in
 * between" (shown better than the bad end and worse than the good end:
 * part of the regression, but not it) from below.  An unknown or skipped
 * prefix is marked and the untested one nearest the middle is tried
 * instead, as git bisect skip does.  When none is left between the last
 * not-bad and the first bad prefix, the groups in between are searched
 * once more in reverse order (their suffixes: other sets, measured
 * afresh), and when those stay undecided too they are held as a block:
 * the answer then holds them all and is not called 1-minimal.  Every
 * answer reproduces the regression: H with the candidates left is always
 * a set shown bad.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "build.h"
#include "err.h"
#include "mem.h"
#include "store.h"
#include "banned.h"

#define WINDOW 16 /* equally good split points weighed for each probe */

/* ---- the search ------------------------------------------------------- */

struct search {
	struct bisect *b;
	size_t *held, nheld;  /* H: members found (or blocks), applied */
	size_t *cand, ncand;  /* U: the candidates left, in order */
	unsigned char *set;   /* a probe's groups */
	unsigned char *tried; /* per prefix length: probed, undecided */
	int block;            /* undecided groups were held as a block */
};

/* s->set: H and the first @len candidates. */
static void prefix_set(struct search *s, size_t len)
{
	size_t i;

	memset(s->set, 0, s->b->ngroups);
	for (i = 0; i < s->nheld; i++)
		s->set[s->held[i]] = 1;
	for (i = 0; i < len; i++)
		s->set[s->cand[i]] = 1;
}

/*
 * What the class @cls of s->set says: 1 bad, 0 not bad (good, or shown
 * in between the ends), -1 undecided (unknown, skip, or not probed).
 */
static int verdict(const struct search *s, enum kb_bisect_class cls)
{
	const struct point *p;

	if (cls == KB_BISECT_BAD)
		return 1;
	if (cls == KB_BISECT_GOOD)
		return 0;
	if (cls == KB_BISECT_UNKNOWN && (p = kb_bisect__cached(s->b, s->set)) &&
	    kb_bisect__in_between(s->b, p))
		return 0;
	return -1;
}

/* Classify s->set; *@v its verdict(). */
static int probe(struct search *s, int *v, struct kb_err *err)
{
	enum kb_bisect_class cls;
	int ret;

	if (s->b->regroup) { /* the groups are being joined: no probe */
		*v = -1;
		return 0;
	}
	if ((ret = kb_bisect__test(s->b, s->set, &cls, err)))
		return ret;
	kb_bisect__held(s->b, s->set, cls);
	*v = verdict(s, cls);
	return 0;
}

/*
 * The external path length of an optimal binary search among @n equally
 * likely answers: n k + 2 (n - 2^k), k = floor(log2 n).  Splitting n
 * answers into d and n - d costs n + E(d) + E(n - d) in all.
 */
static unsigned long long path_len(size_t n)
{
	size_t k = 0;

	if (n < 2)
		return 0;
	while (((size_t)2 << k) <= n)
		k++;
	return (unsigned long long)n * k + 2 * (n - ((size_t)1 << k));
}

/*
 * How much probing s->set costs, lowest best: 0 classified before (no
 * probe at all), 1 its build is in the store (boots only), else 2 plus
 * the build weight of the groups whose levels differ from the last point
 * built (opts.weights; 2 for all without them).
 */
static unsigned long long set_cost(const struct search *s)
{
	const struct bisect *b = s->b;
	struct kb_build_result res;
	struct kb_err ignored = KB_ERR_INIT;
	char hex[KB_SHA256_HEX_LEN + 1];
	unsigned long long w = 0;
	int64_t id;
	size_t g;

	if (kb_bisect__cached(b, s->set))
		return 0;
	kb_bisect__set_key(b, s->set, hex);
	/* a lookup that fails only loses the preference */
	if (kb_store_build_get(b->s, hex, &res, &id, &ignored) == 0) {
		kb_build_result_release(&res);
		return 1;
	}
	if (b->gweight)
		for (g = 0; g < b->ngroups; g++)
			if (!s->set[g] != !(b->last_set && b->last_set[g]))
				w += b->gweight[g];
	return 2 + w;
}

/*
 * The next prefix length to probe between @lo (not bad; 0 also when H
 * alone is undecided) and @hi (bad), or 0 when every one is tried.  The
 * candidates are the untested lengths that split the possible answers
 * best (fewest probes expected, path_len()); of the WINDOW nearest the
 * middle, the cheapest to probe (set_cost()), the nearest the middle on
 * a tie.
 */
static size_t choose(struct search *s, size_t lo, size_t hi)
{
	unsigned long long best = ~0ull, score, cost, best_cost = ~0ull;
	size_t mid = lo + (hi - lo) / 2, len, d, pick = 0, seen = 0;
	int side;

	for (len = lo + 1; len < hi; len++) {
		score = path_len(len - lo) + path_len(hi - len);
		if (!s->tried[len] && score < best)
			best = score;
	}
	for (d = 0; d < hi - lo && seen < WINDOW; d++) {
		for (side = 0; side < 2 && seen < WINDOW; side++) {
			/* mid - d above lo, then mid + d below hi */
			if (side ? !d || mid + d >= hi : d >= mid - lo)
				continue;
			len = side ? mid + d : mid - d;
			if (s->tried[len] ||
			    path_len(len - lo) + path_len(hi - len) != best)
				continue;
			seen++;
			prefix_set(s, len);
			if ((cost = set_cost(s)) < best_cost) {
				best_cost = cost;
				pick = len;
			}
		}
	}
	return pick;
}

/*
 * The shortest prefix of the candidates that is bad with H: *@hi its
 * length, *@lo the longest shown not bad (-1: not even H alone, when
 * @lo is -1 on entry and nothing narrows it).  H with every candidate is
 * bad.  Stops early when max_probes is reached (b->stopped).
 */
static int find_needed(struct search *s, long *lo, size_t *hi,
		       struct kb_err *err)
{
	size_t len;
	int ret, v;

	memset(s->tried, 0, s->ncand + 1);
	s->tried[0] = 1;
	*hi = s->ncand;
	while (!s->b->stopped &&
	       (len = choose(s, *lo < 0 ? 0 : (size_t)*lo, *hi))) {
		prefix_set(s, len);
		if ((ret = probe(s, &v, err)))
			return ret;
		if (v > 0)
			*hi = len;
		else if (v == 0)
			*lo = (long)len;
		else
			s->tried[len] = 1;
	}
	return 0;
}

/* Reverse the candidates [@from, @to). */
static void reverse(struct search *s, size_t from, size_t to)
{
	size_t x;

	for (; from + 1 < to; from++, to--) {
		x = s->cand[from];
		s->cand[from] = s->cand[to - 1];
		s->cand[to - 1] = x;
	}
}

/* Move candidates [@from, @to) to the members; the candidates left are
 * those before @from. */
static void hold(struct search *s, size_t from, size_t to)
{
	memcpy(s->held + s->nheld, s->cand + from,
	       (to - from) * sizeof(*s->held));
	s->nheld += to - from;
	s->ncand = from;
}

/*
 * Find members until H alone is bad (or the probes run out).  When the
 * prefixes between the last not bad and the first bad one stay undecided,
 * that block is searched once more in reverse order (its suffixes added
 * to the same not-bad prefix: other sets, other measurements), and held
 * whole only when those stay undecided too.
 */
static int shrink(struct search *s, struct kb_err *err)
{
	long lo;
	size_t hi;
	int ret, v, pass;

	while (s->ncand && !s->b->stopped) {
		lo = 0;
		if (s->nheld) {
			prefix_set(s, 0);
			if ((ret = probe(s, &v, err)))
				return ret;
			if (v > 0) {
				s->ncand = 0;
				break;
			}
			lo = v == 0 ? 0 : -1;
		}
		for (pass = 0; pass < 2; pass++) {
			if ((ret = find_needed(s, &lo, &hi, err)))
				return ret;
			s->ncand = hi;
			if (s->b->stopped || (lo >= 0 && hi == (size_t)lo + 1))
				break;
			reverse(s, lo < 0 ? 0 : (size_t)lo, hi);
		}
		if (s->b->stopped)
			break;
		if (lo >= 0 && hi == (size_t)lo + 1) {
			hold(s, (size_t)lo, hi);
		} else {
			hold(s, lo < 0 ? 0 : (size_t)lo, hi);
			s->block = 1;
		}
	}
	return 0;
}

static int by_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Probe each set of the members without one of them (the cache answers
 * those probed before).  One that is bad is a smaller answer: it becomes
 * the candidates, H empty, and *@again is set.
 */
static int verify(struct search *s, int *again, struct kb_err *err)
{
	size_t i, k, n;
	int ret, v;

	*again = 0;
	for (i = 0; i < s->nheld && !s->b->stopped; i++) {
		memset(s->set, 0, s->b->ngroups);
		for (k = 0; k < s->nheld; k++)
			if (k != i)
				s->set[s->held[k]] = 1;
		if ((ret = probe(s, &v, err)))
			return ret;
		if (v <= 0)
			continue;
		for (k = n = 0; k < s->nheld; k++)
			if (k != i)
				s->cand[n++] = s->held[k];
		qsort(s->cand, n, sizeof(*s->cand), by_index);
		s->ncand = n;
		s->nheld = 0;
		*again = 1;
		break;
	}
	return 0;
}

int kb_bisect__group(struct bisect *b, size_t *cur, size_t *ncur,
		     struct kb_err *err)
{
	struct search s;
	int again = 1, ret = 0;

	memset(&s, 0, sizeof(s));
	s.b = b;
	s.held = kb_calloc(*ncur + 1, sizeof(*s.held));
	s.cand = kb_calloc(*ncur + 1, sizeof(*s.cand));
	s.set = kb_calloc(b->ngroups + 1, 1);
	s.tried = kb_calloc(*ncur + 1, 1);
	memcpy(s.cand, cur, *ncur * sizeof(*cur));
	s.ncand = *ncur;
	while (again && !b->stopped) {
		if ((ret = shrink(&s, err)))
			goto out;
		/* a block cannot be shown 1-minimal: no probes for it */
		again = 0;
		if (!b->stopped && !s.block && (ret = verify(&s, &again, err)))
			goto out;
	}
	/* the answer: H and the candidates left (when stopped early) */
	memcpy(cur, s.held, s.nheld * sizeof(*cur));
	memcpy(cur + s.nheld, s.cand, s.ncand * sizeof(*cur));
	*ncur = s.nheld + s.ncand;
	qsort(cur, *ncur, sizeof(*cur), by_index);
out:
	free(s.held);
	free(s.cand);
	free(s.set);
	free(s.tried);
	return ret;
}
