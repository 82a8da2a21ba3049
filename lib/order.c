#include "order.h"

#include <stdlib.h>

#include "build.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "rng.h"
#include "store.h"
#include "banned.h"

const char *kb_order_name(enum kb_run_order order)
{
	return order == KB_ORDER_SEQUENTIAL ? "sequential" : "blocks";
}

uint64_t kb_order_seed(const struct kb_plan *p)
{
	return kb_rng_seed_from(0, kb_matrix_text(kb_plan_matrix(p)), 1, 0);
}

uint64_t kb_order_seed_new(const struct kb_plan *p, int replayed)
{
	return replayed ? kb_order_seed(p) : kb_rng_seed_fresh();
}

int kb_order_stored_seed(const struct kb_store_info *i,
			 const struct kb_plan *p, uint64_t *seed,
			 struct kb_err *err)
{
	*seed = i->has_order_seed > 0 ? i->order_seed : kb_order_seed(p);
	if (i->has_order_seed < 0)
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld: its stored order seed"
				  " (experiments.order_seed) is not 16 hex"
				  " digits, so the rest of its run order cannot"
				  " be known",
				  (long long)i->id);
	return 0;
}

/* Variant after variant in build order. */
static size_t sequential(const struct kb_plan *p, const unsigned char *stored,
			 struct kb_order_boot *out)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(p));
	size_t i, k = 0, n = kb_plan_nvariants(p);
	size_t *order = kb_calloc(n ? n : 1, sizeof(*order));
	unsigned b;

	kb_build_plan_order(p, order);
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, order[i]);

		for (b = 1; b <= rep->boots; b++) {
			if (stored && stored[v->idx * rep->boots + b - 1])
				continue;
			out[k].variant_idx = v->idx;
			out[k].boot_no = b;
			out[k].round = 0;
			out[k++].host = (size_t)-1;
		}
	}
	free(order);
	return k;
}

/*
 * The host of each round: the hosts in a seeded order, taken in turn, so
 * that every host runs as many rounds as the counts allow (every
 * variant's boots even over the hosts, as the spread has them; a host's
 * capacity is how many boots of its rounds run at once) and which host
 * runs the first round is drawn.  (size_t)-1 for a matrix of one host or
 * none: the spread's.
 */
static size_t round_host(const struct kb_matrix *m, unsigned round,
			 const size_t *hosts)
{
	size_t nh = kb_matrix_nhosts(m);

	if (nh < 2)
		return (size_t)-1;
	return hosts[(round - 1) % nh];
}

/* A seeded permutation of 0..n-1 into @a (Fisher-Yates). */
static void shuffle(size_t *a, size_t n, uint64_t seed)
{
	struct kb_rng rng;
	size_t i;

	kb_rng_init(&rng, seed);
	for (i = 0; i < n; i++)
		a[i] = i;
	for (i = n; i > 1; i--) {
		size_t t, x = (size_t)kb_rng_below(&rng, i);

		t = a[i - 1];
		a[i - 1] = a[x];
		a[x] = t;
	}
}

void kb_order_draw(uint64_t seed, unsigned round, size_t *perm, size_t n)
{
	shuffle(perm, n, kb_rng_seed_from(seed, "round", round, 0));
}

/* Randomised complete blocks: round r, boot r of every variant in a
 * fresh order. */
static size_t blocks(const struct kb_plan *p, uint64_t seed,
		     const unsigned char *stored, struct kb_order_boot *out)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_repeat *rep = kb_matrix_repeat(m);
	size_t i, k = 0, n = kb_plan_nvariants(p), nh = kb_matrix_nhosts(m);
	size_t *perm = kb_calloc(n ? n : 1, sizeof(*perm));
	size_t *hosts = kb_calloc(nh + 1, sizeof(*hosts));
	unsigned r;

	shuffle(hosts, nh, kb_rng_seed_from(seed, "hosts", 0, 0));
	for (r = 1; r <= rep->boots; r++) {
		size_t host = round_host(m, r, hosts);

		kb_order_draw(seed, r, perm, n);
		for (i = 0; i < n; i++) {
			const struct kb_variant *v = kb_plan_variant(p, perm[i]);

			if (stored && stored[v->idx * rep->boots + r - 1])
				continue;
			out[k].variant_idx = v->idx;
			out[k].boot_no = r;
			out[k].round = r;
			out[k++].host = host;
		}
	}
	free(hosts);
	free(perm);
	return k;
}

size_t kb_order_run(const struct kb_plan *p, uint64_t seed,
		    const unsigned char *stored, struct kb_order_boot *out)
{
	if (kb_matrix_repeat(kb_plan_matrix(p))->order == KB_ORDER_SEQUENTIAL)
		return sequential(p, stored, out);
	return blocks(p, seed, stored, out);
}

unsigned kb_order_round(const struct kb_plan *p, unsigned boot_no)
{
	return kb_matrix_repeat(kb_plan_matrix(p))->order == KB_ORDER_BLOCKS
		       ? boot_no
		       : 0;
}

void kb_order_added(unsigned variant_idx, unsigned last, unsigned n,
		    struct kb_order_boot *out)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		out[i].variant_idx = variant_idx;
		out[i].boot_no = last + 1 + i;
		out[i].round = 0;
		out[i].host = (size_t)-1;
	}
}

void kb_order_block(uint64_t seed, unsigned round, const unsigned *variants,
		    size_t n, unsigned *out)
{
	size_t *perm = kb_calloc(n ? n : 1, sizeof(*perm)), i;

	shuffle(perm, n, kb_rng_seed_from(seed, "added", round, 0));
	for (i = 0; i < n; i++)
		out[i] = variants[perm[i]];
	free(perm);
}
