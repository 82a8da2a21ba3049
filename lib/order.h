#ifndef KB_ORDER_H
#define KB_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "matrix.h"

struct kb_err;
struct kb_plan;
struct kb_store_info;

/*
 * The run order: in what order the boots of an experiment start, and in
 * which block.  Every path that boots takes its order from here — `run`
 * and `resume` (lib/pipeline.c, through the one engine) and the daemon's
 * queue (lib/queue.c, whose jobs are claimed in the order they are
 * stored) — so that an order is written once.  Which host a boot runs on
 * within its block is lib/spread.h's; which probe a bisection measures
 * next is the bisection's.
 *
 * repeat.order (lib/matrix.h):
 *
 * - blocks (the default): randomised complete blocks.  Round r holds
 *   boot r of every variant, in an order drawn afresh for the round from
 *   the experiment's seed (kb_order_seed_new()), so that a host's drift
 *   over time is spread over every variant alike instead of standing in
 *   for one ("block what you can, randomise what you cannot").  Every kernel
 *   is built before the first boot (the engine sees to it).  With
 *   several hosts each round is one host's, a host taking rounds in
 *   proportion to its capacity: the block is host x round.
 * - sequential: variant after variant in build order, each variant's
 *   boots right after its build (kbisect before the blocks; confounds
 *   drift with the variants, docs/analysis.md).
 *
 * The order is a function of the plan and the seed alone, and the seed is
 * stored with the experiment (experiments.order_seed): a `resume`, or a
 * daemon restarted, reads it back, finds the same order and runs what is
 * missing.
 */

/* A boot in the order. */
struct kb_order_boot {
	unsigned variant_idx;
	unsigned boot_no; /* from 1 */
	unsigned round;   /* its block, from 1 (blocks: = boot_no); 0 none */
	/* blocks over several hosts: the host (index into the matrix's
	 * hosts) whose round it is; (size_t)-1: the spread's to choose */
	size_t host;
};

/* "blocks" or "sequential", as repeat.order and the store name it. */
const char *kb_order_name(enum kb_run_order order);

/* The seed of plan @p's matrix: from its text, the same in any process. */
uint64_t kb_order_seed(const struct kb_plan *p);

/*
 * The seed of a new experiment of plan @p, which the caller stores with
 * it.  Fresh (kb_rng_seed_fresh()) on real hosts: two runs of one matrix
 * draw two orders, so that a bias bound to a place in the order (a host's
 * slow first boot) falls on other variants in each run instead of
 * repeating as an effect.  The matrix's (kb_order_seed()) when @replayed:
 * a run on the model, which is a function of its matrix and model, its
 * noise included, and whose outputs the docs show.
 */
uint64_t kb_order_seed_new(const struct kb_plan *p, int replayed);

/*
 * The seed experiment @i (of plan @p) was stored with, into *@seed: what
 * a `resume`, a restarted daemon or an added round draws from.  An
 * experiment stored before db/0013 has none: its matrix's.  A stored
 * seed that is not one (16 hex digits) is refused, KB_EINPUT: the rest
 * of its order cannot be known.
 */
int kb_order_stored_seed(const struct kb_store_info *i,
			 const struct kb_plan *p, uint64_t *seed,
			 struct kb_err *err);

/*
 * The boots of plan @p (repeat.boots each) that @stored does not have,
 * in the order they start under @p's repeat.order, its blocks drawn from
 * the experiment's @seed.  @stored[i * boots +
 * b - 1] is nonzero when boot b of the plan's i-th variant is stored
 * (NULL: none is).  @out has room for every boot of the plan
 * (kb_plan_nboots()); returns how many it holds.
 */
size_t kb_order_run(const struct kb_plan *p, uint64_t seed,
		    const unsigned char *stored, struct kb_order_boot *out);

/*
 * The order of round @round of an experiment seeded @seed: a permutation
 * of 0..n-1 into @perm, drawn afresh for each round and the same for the
 * same seed and round.  The blocks of kb_order_run() draw theirs here;
 * so does whoever boots its own rounds (a bisection's probe beside its
 * ends, lib/bisect_probe.c).
 */
void kb_order_draw(uint64_t seed, unsigned round, size_t *perm, size_t n);

/*
 * The round (block) boot @boot_no of a variant of plan @p runs in under
 * its repeat.order: in blocks round r holds boot r of every variant, so
 * @boot_no itself; 0 (none) in the sequential order.  For whoever runs
 * a boot of the order without its kb_order_boot (the daemon's jobs).
 */
unsigned kb_order_round(const struct kb_plan *p, unsigned boot_no);

/*
 * @n boots added to variant @variant_idx after its boot @last (an
 * analysis asking for more): boots last + 1 to last + n, in that order,
 * no block.
 */
void kb_order_added(unsigned variant_idx, unsigned last, unsigned n,
		    struct kb_order_boot *out);

/*
 * A round added after the run (an analysis that judges variants side by
 * side: `why`'s confirmation, lib/why.h): the @n variants @variants, one
 * boot each, in round @round, in an order drawn for the round from the
 * experiment's @seed, into @out (room for @n).  The same round of the
 * same experiment draws the same order.
 */
void kb_order_block(uint64_t seed, unsigned round, const unsigned *variants,
		    size_t n, unsigned *out);

#endif
