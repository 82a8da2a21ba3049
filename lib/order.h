#ifndef KB_ORDER_H
#define KB_ORDER_H

#include <stddef.h>

struct kb_plan;

/*
 * The run order: in what order the boots of an experiment start.  Every
 * path that boots takes its order from here — `run` and `resume`
 * (lib/pipeline.c, through the one engine), the boots the analyses add
 * (kb_pipeline_add_boots()), and the daemon's queue (lib/queue.c, whose
 * jobs are claimed in the order they are stored) — so that a change of
 * the order (randomised blocks) is written once.  Which host a boot runs
 * on is lib/spread.h's; which probe a bisection measures next is the
 * bisection's.
 *
 * Today's orders, kept as they were: in process, variant after variant
 * in build order (each variant's boots right after its build, which
 * builds nothing twice and waits for no build it does not need); in the
 * daemon, round by round.  Both confound a host's drift with the
 * variants (docs/analysis.md): the next change of this module.
 */

/* A boot in the order: boot @boot_no (from 1) of variant @variant_idx. */
struct kb_order_boot {
	unsigned variant_idx;
	unsigned boot_no;
};

/*
 * The boots of plan @p (repeat.boots each) that @stored does not have,
 * in the order `run` and `resume` start them: the variants in build
 * order (kb_build_plan_order()), each variant's boots by number.
 * @stored[i * boots + b - 1] is nonzero when boot b of the plan's i-th
 * variant is stored (NULL: none is).  @out has room for every boot of
 * the plan (kb_plan_nboots()); returns how many it holds.
 */
size_t kb_order_run(const struct kb_plan *p, const unsigned char *stored,
		    struct kb_order_boot *out);

/*
 * Every boot of plan @p in the order the daemon's queue stores them:
 * round by round (boot 1 of every variant, then boot 2 ...), the
 * variants in build order within a round.  @out as for kb_order_run().
 */
size_t kb_order_rounds(const struct kb_plan *p, struct kb_order_boot *out);

/*
 * @n boots added to variant @variant_idx after its boot @last (an
 * analysis asking for more): boots last + 1 to last + n, in that order.
 */
void kb_order_added(unsigned variant_idx, unsigned last, unsigned n,
		    struct kb_order_boot *out);

#endif
