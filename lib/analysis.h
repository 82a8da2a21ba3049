#ifndef KB_ANALYSIS_H
#define KB_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"

struct kb_err;

/*
 * An experiment opened for analysis: its plan (rebuilt from the matrix
 * stored with it, from the database alone: kb_plan_from_stored()), the
 * per-boot values of one metric for every variant, and — when its
 * executor can run again — the means to add boots: a comparison that
 * comes out inconclusive asks for more boots of the two variants, up to
 * repeat.max_boots, instead of guessing (adaptive sampling).  An
 * experiment of the performance model runs again on its stored model by
 * itself (over every host of its matrix, as run spread it, when it has
 * several: kb_pipeline_hosts_executor(), its hosts' failures recorded
 * with the experiment); any other boots only through an executor its
 * caller hands it (kb_analysis_set_executor(): for "libvirt" experiments
 * the real one, or kb_pipeline_hosts_executor() over the real ones of
 * every host), so that this module opens no connection of its own.
 */

struct kb_analysis;

/*
 * Open experiment @exp of @s for its own metric (or @metric when not
 * NULL).  Returns KB_ENOTFOUND for an unknown experiment.
 */
int kb_analysis_open(struct kb_store *s, int64_t exp, const char *metric,
		     struct kb_analysis **out, struct kb_err *err);
void kb_analysis_free(struct kb_analysis *a);

const struct kb_plan *kb_analysis_plan(const struct kb_analysis *a);
/* The store @a reads (and stores its answers in). */
struct kb_store *kb_analysis_store(const struct kb_analysis *a);
const struct kb_store_info *kb_analysis_info(const struct kb_analysis *a);
const char *kb_analysis_metric(const struct kb_analysis *a);
/* The comparison options of the experiment's matrix and metric. */
const struct kb_compare_opts *kb_analysis_opts(const struct kb_analysis *a);
/* The stored model of a model experiment (its time: says what a boot
 * takes); NULL for others. */
const struct kb_model *kb_analysis_model(const struct kb_analysis *a);
/* Can boots be added (the executor can run again)? */
int kb_analysis_can_sample(const struct kb_analysis *a);
/* Answer from the boots there are: never add any (a read-only database
 * cannot store them), until kb_analysis_set_executor(). */
void kb_analysis_no_sampling(struct kb_analysis *a);
/*
 * Add boots through @ex from now on (NULL: add none), instead of the
 * model executor kb_analysis_open() made for a model experiment.  @ex is
 * borrowed and must be an executor of the experiment's kind (the real
 * executor for the experiment's matrix, kb_realexec_new(), for "libvirt"
 * ones, or one over every host's: kb_pipeline_hosts_executor()); it and
 * @opts (may be NULL: kb_pipeline_add_boots()'s progress
 * and stop) must outlive @a or be unset first.  A stop (opts->stop) makes
 * the comparison that was adding boots fail with KB_EFAIL; the boots that
 * ended before it are stored.
 */
void kb_analysis_set_executor(struct kb_analysis *a, struct kb_executor *ex,
			      const struct kb_pipeline_opts *opts);
/*
 * Tell @progress (with @arg; NULL: nothing) what befalls the hosts of a
 * model experiment of several hosts while boots are added on its stored
 * model (KB_PROGRESS_HOST_FAILURE, KB_PROGRESS_HOST_DRAINED: a host's
 * fail_after, docs/model.md); the executor kb_analysis_set_executor()
 * hands over tells its own.
 */
void kb_analysis_on_hosts(struct kb_analysis *a,
			  void (*progress)(const struct kb_progress *ev,
					   void *arg),
			  void *arg);
/* Boots added by adaptive sampling since open, failed ones included. */
unsigned kb_analysis_boots_added(const struct kb_analysis *a);
/*
 * Add @n boots at most from open on (compare --adaptive and why's
 * --max-added-boots; default: any).  A look that wants more than are
 * left adds none: the comparison keeps its last verdict (inconclusive),
 * and kb_analysis_budget_spent() says so.
 */
void kb_analysis_set_boot_budget(struct kb_analysis *a, unsigned n);
/* Boots that may still be added (UINT_MAX: any; 0 when none can be). */
unsigned kb_analysis_boots_left(const struct kb_analysis *a);
/* May @n more boots be added?  0 when none can be, or when the budget
 * has fewer left (then it counts as spent). */
int kb_analysis_may_add(struct kb_analysis *a, size_t n);
/* Did a comparison stop short because the budget was spent? */
int kb_analysis_budget_spent(const struct kb_analysis *a);

/* Per-boot values of variant @idx (runs averaged within each boot). */
const double *kb_analysis_values(const struct kb_analysis *a, unsigned idx,
				 size_t *n);
/*
 * The host each of those boots ran on (its libvirt URI, "model", or NULL
 * when not recorded), in the same order; *@n is 0 and NULL returned when
 * the variant has no boot.
 */
const char *const *kb_analysis_hosts(const struct kb_analysis *a,
				     unsigned idx, size_t *n);
/*
 * The round (block, lib/order.h) each of those boots ran in, 0 for none
 * (sequential, boots added later, before db/0013), in the same order; as
 * kb_analysis_hosts() for *@n.
 */
const unsigned *kb_analysis_rounds(const struct kb_analysis *a, unsigned idx,
				   size_t *n);
/* How many distinct rounds the boots of @a ran in (0: none). */
unsigned kb_analysis_nrounds(const struct kb_analysis *a);

/*
 * The drift check (docs/analysis.md, "The run order"): the log of each
 * ok boot's value less its variant's mean, regressed on the boot's place
 * in the run (kb_boot_result.seq) less its variant's mean place (the
 * slope within the variants, one over all), so that a host slowing down
 * or speeding up over the run shows as a slope, in any run order.
 */
struct kb_drift {
	size_t nboots;      /* boots with a known place (0: no check) */
	double change_pct;  /* the fitted change from the first boot's
			     * place to the last's, in percent */
	double ci_low_pct, ci_high_pct; /* its 95% interval */
	double p;           /* of no drift (two-sided t) */
	int flagged;        /* p < 0.02 and |change| >= half the verdict
			     * threshold: said beside the answers */
};

/* The drift check of @a's boots into *@out; out->nboots is 0 when fewer
 * than variants + 3 boots have a known place. */
void kb_analysis_drift(const struct kb_analysis *a, struct kb_drift *out);

/*
 * The direction of the metric analysed (workload.better, a known metric's,
 * or a guess from its name: kb_metric_direction()); the comparison options
 * follow it.
 */
const struct kb_metric_dir *kb_analysis_direction(const struct kb_analysis *a);

/*
 * Compare variant @ia (A) with @ib (B).  With @adaptive, while the verdict
 * is inconclusive and a side has fewer than repeat.max_boots boots, one
 * more boot of the side with fewer (both when equal) is run and stored,
 * and the two are compared again at the next look (kb_compare_looks():
 * after every boot, or at most KB_COMPARE_LOOKS_MAX looks).  Looking
 * again and again would raise the false alarms far above alpha, so the
 * comparison is a sequential test: each look decides at Pocock's nominal
 * level for the looks from repeat.boots (or the fewer boots a side has)
 * to repeat.max_boots (kb_compare_look_alpha(); out->alpha, out->looks).
 * A comparison without @adaptive of variants that have more boots than
 * repeat.boots is a later look of such a test and decides at that level
 * too.  Stops early, keeping the last comparison, when the boots just
 * added gave no new value (they failed: a real guest that does not boot,
 * a kernel image gone), so a failing variant costs one round of boots,
 * not max_boots.
 */
int kb_analysis_compare(struct kb_analysis *a, unsigned ia, unsigned ib,
			int adaptive, struct kb_comparison *out,
			struct kb_err *err);

/*
 * Log-scale cell statistics for effect estimates: the mean of log values
 * of variant @idx and its count; the pooled within-variant variance of log
 * values over all variants with 2 or more boots, with its degrees of
 * freedom.  Values <= 0 are left out (kb_analysis_nonpositive() counts
 * them).
 */
void kb_analysis_log_cell(const struct kb_analysis *a, unsigned idx,
			  double *mean, size_t *n);
void kb_analysis_log_pooled(const struct kb_analysis *a, double *var,
			    double *df);

/*
 * The per-boot values of variant @idx that are not positive (zero,
 * negative, NaN): a log-scale analysis cannot use them, and the functions
 * above leave them out, so callers refuse or report them.
 */
size_t kb_analysis_nonpositive(const struct kb_analysis *a, unsigned idx);

/* The variant with the worst mean for the metric's direction (-1: none);
 * never the sentinel (kb_plan_sentinel()), the baseline again. */
int kb_analysis_worst(const struct kb_analysis *a);

/*
 * The variant equal to @base except that the factors named in @names[0..k)
 * take the levels they have in variant @from; -1 when the plan has none.
 */
int kb_analysis_find(const struct kb_analysis *a, unsigned base,
		     unsigned from, const size_t *factors, size_t k);

/*
 * Compare variants @ia and @ib on @metric, another metric of the same
 * experiment, as kb_analysis_compare() without adaptive sampling would on
 * the experiment opened for @metric: from the boots stored now, with
 * @metric's direction (*@dir) and the experiment's options.  Reads the
 * values of @metric of those two variants alone (kb_store_variants_pair()),
 * so that `compare` answers every metric of a large experiment without
 * reading all of it again for each.
 */
int kb_analysis_compare_metric(const struct kb_analysis *a,
			       const char *metric, unsigned ia, unsigned ib,
			       struct kb_comparison *out,
			       struct kb_metric_dir *dir, struct kb_err *err);

/*
 * The analyses row (kind "compare") of comparison @c of variants @ia
 * (A) and @ib (B) on @metric, as `kbisect compare` stores it: its
 * numbers, test, verdict and detail (kb_compare_detail(), into *@detail,
 * which the row points to: caller frees).  @metric is borrowed too.
 */
void kb_analysis_compare_row(const struct kb_comparison *c,
			     const char *metric, unsigned ia, unsigned ib,
			     char **detail, struct kb_store_analysis *row);

/*
 * The verdicts of @a's experiment, for the database (db/0016,
 * v_verdicts): every variant but the baseline compared with it (variant
 * 0) on the metric @a was opened for, from the boots there are (none
 * added), stored as "compare" rows that replace the same pairs' earlier
 * ones (kb_store_analyses_put()).  *@n (may be NULL): the verdicts
 * stored.  On a store opened read-only nothing is stored, and *@n is 0.
 */
int kb_analysis_store_verdicts(struct kb_analysis *a, size_t *n,
			       struct kb_err *err);

/*
 * kb_analysis_store_verdicts() of experiment @exp of @s, opened for its
 * own metric: what `run`, `resume` and the daemon do as an experiment
 * ends.
 */
int kb_analysis_store_experiment_verdicts(struct kb_store *s, int64_t exp,
					  size_t *n, struct kb_err *err);

/*
 * kb_analysis_compare() at significance level @alpha (0 < alpha < 1)
 * instead of the experiment's compare.alpha, for a test that is one of a
 * family (`why` compares with the worst of C variants at alpha / C when
 * it cannot boot it afresh); the interval's level follows, 1 - @alpha.
 * The experiment's options are unchanged afterwards.
 */
int kb_analysis_compare_at(struct kb_analysis *a, unsigned ia, unsigned ib,
			   int adaptive, double alpha,
			   struct kb_comparison *out, struct kb_err *err);

/*
 * Set aside the boots variant @idx has now: from here on they count in no
 * comparison or statistic of @a (they stay stored), only boots added later
 * do.  A variant picked by looking at its boots (the worst of many) is so
 * confirmed on fresh boots, which played no part in the pick.  Returns the
 * number set aside.
 */
size_t kb_analysis_set_aside(struct kb_analysis *a, unsigned idx);

/* The highest round (block) a boot of @a is stored in, failed and set
 * aside ones included (0: none). */
unsigned kb_analysis_last_round(const struct kb_analysis *a);

/*
 * A fresh round (block) after every stored one: one boot of each of the
 * @n distinct variants @vars, started in an order drawn for the round
 * (kb_order_block()) and stored in it, its number into *@round; the
 * boots are taken into account (they count in kb_analysis_boots_added()).
 * KB_EINPUT when the experiment cannot run again (kb_analysis_can_sample()),
 * and the error of adding boots (kb_pipeline_add_round_boot()).
 */
int kb_analysis_add_block(struct kb_analysis *a, const unsigned *vars,
			  size_t n, unsigned *round, struct kb_err *err);

/*
 * The interaction contrast of the variants @idx (a, a with f, a with g,
 * a with f and g) within rounds: for each round in which each of the
 * four has one boot (on one host, when known), (log y3 - log y2) -
 * (log y1 - log y0), less the drift between the four places (the drift
 * check's slope times the same contrast of their places), so a drift
 * between rounds and within them is left out.  The contrasts' mean and
 * sample variance into *@mean and *@var (NaN with fewer than 1 and 2);
 * returns how many rounds.
 */
size_t kb_analysis_contrast_rounds(const struct kb_analysis *a,
				   const unsigned idx[4], double *mean,
				   double *var);

/*
 * Compare @ia (A) with @ib (B) side by side: on their boots in the rounds
 * from @first on that both have, one value of each a round (the first of
 * the round's), so that a drift over time falls on both alike; the
 * rounds used into *@nrounds.  A sequential test as kb_analysis_compare()'s
 * with rounds for boots: with @adaptive, while there are fewer than
 * @start such rounds, or the verdict is inconclusive and there are fewer
 * than repeat.max_boots, fresh rounds are added (kb_analysis_add_block()),
 * each holding @ia, @ib and the @nwith variants @with (may repeat them);
 * the looks from @start rounds (at least KB_COMPARE_MIN_PAIRS) to
 * repeat.max_boots decide at the paired t's calibrated level for @alpha
 * (so does a comparison without @adaptive of more than that many
 * rounds).  The rounds are compared as compare pairs them
 * (kb_compare_paired(), lib/compare.h: the mean log ratio less the
 * drift between the pair's places, its t interval, the signed-rank or
 * the paired t test).  Stops, keeping the last comparison, when a
 * round added gave no pair (its boots failed).
 */
int kb_analysis_compare_rounds(struct kb_analysis *a, unsigned ia,
			       unsigned ib, unsigned first,
			       const unsigned *with, size_t nwith,
			       unsigned start, int adaptive, double alpha,
			       struct kb_comparison *out, unsigned *nrounds,
			       struct kb_err *err);

/*
 * Boot variant @idx @n more times, store the boots (numbered after the
 * last stored one; failed boots are stored as such and add no value) and
 * take them into account (they count in kb_analysis_boots_added()).
 * KB_EINPUT when the experiment cannot run again
 * (kb_analysis_can_sample()).
 */
int kb_analysis_add_boots(struct kb_analysis *a, unsigned idx, unsigned n,
			  struct kb_err *err);

#endif
