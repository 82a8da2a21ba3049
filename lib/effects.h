#ifndef KB_EFFECTS_H
#define KB_EFFECTS_H

#include <stddef.h>

#include "analysis.h"

struct kb_err;

/*
 * Factorial effects of a two-level design (full, fractional or
 * Plackett-Burman), on the log scale so that they are multiplicative: a
 * main effect of -2.2 is a factor exp(-2.2) = 0.11 on the metric, i.e.
 * -89%.
 *
 * With cells m_i (the mean of log per-boot values of variant i) and s_i = +1
 * where the factor is at its second level, -1 at its first, an effect is
 * (2 / C) * sum(s_i m_i) over the C variants: the mean of the high cells
 * minus the mean of the low ones.  A two-way interaction A:B uses s_A s_B:
 * it is half the difference between A's effect at B's second level and at
 * its first.  Variances come from the pooled within-variant variance of
 * log values (boots are the replicates); intervals and p-values from
 * Student's t with the pooled degrees of freedom.
 *
 * When the boots ran on more than one host (docs/guests.md, "Several
 * hosts"), the host is a block: the log values are fitted with a cell per
 * variant plus an additive effect per host, by least squares, and the
 * effects are the same contrasts of the variants' cells adjusted for the
 * hosts, with the residual variance of that fit (its degrees of freedom
 * lose one per host but the first).  The hosts' differences are then no
 * part of the variance, and are reported apart (kb_effects_hosts()).
 *
 * All the effects of one experiment are one family of tests: each p is
 * adjusted by Holm's method over the family (the effects estimated, an
 * aliased group counting once), and an effect is significant when its
 * adjusted p is below alpha, so that the chance of calling any effect of
 * a null experiment significant stays at alpha.  Intervals are each at
 * level 1 - alpha, not adjusted.
 */

struct kb_effect {
	char name[160];   /* "DEBUG_KMEMLEAK" or "PARAVIRT_SPINLOCKS:DEBUG_SPINLOCK" */
	int interaction;  /* 0 main effect, 1 two-way interaction */
	size_t f1, f2;    /* factor indexes (f2 == f1 for a main effect) */
	double log_effect;        /* the estimate, log scale */
	double log_ci_low, log_ci_high;
	double change_pct;        /* (exp(log_effect) - 1) * 100 */
	double ci_low_pct, ci_high_pct;
	double p;                 /* two-sided t-test of effect = 0 */
	int significant;          /* p_adjusted < alpha */
	char aliases[1024];       /* other effects with the same column, a
				   * "-" before one with the opposite column
				   * ("C:D, -E:F"), or ""; "..." ends a list
				   * too long for it */
	double p_adjusted;        /* p adjusted over the family (Holm) */
	size_t npartial;          /* Plackett-Burman: the two-way interactions
				   * partially aliased with this main effect,
				   * which kb_design_aliases() lists with
				   * their coefficients; 0 otherwise */
	/* With conditions (kb_factor.condition), after the ranked effects: */
	char within[256];         /* "": over every level of the conditions
				   * (a ranked effect); else the main effect
				   * `name` within this level of them, as a
				   * label spells it ("workload.copies=4") */
	int depends;              /* a test that the main effect `name` is
				   * the same at every level of the
				   * conditions: the estimate is the level's
				   * change less the first level's (`within`:
				   * "workload.copies=4 vs workload.copies=1",
				   * the level that differs most), p that of
				   * the largest of those differences
				   * (Bonferroni over them), significant: the
				   * effect changes with the level */
};

/*
 * Conditions (docs/analysis.md, "Conditions: compared within"): a factor
 * marked `condition: true` is a load level, never a cause.  It has no
 * effect of its own in the list, nor any interaction with it; the
 * ranked effects are those of the other factors, averaged over the
 * conditions' levels (each a comparison within a level: the design
 * crosses them), and after them, for each main effect (each level of a
 * factor of more levels, "F=L"), its estimate within each level of the
 * conditions (`within`) and the test that it is the same at every level
 * (`depends`).  All of them are one family (Holm).
 */

/* How many of the @n effects of kb_effects_estimate() are ranked (the
 * first ones: neither within a level of a condition nor a test of one). */
size_t kb_effects_nranked(const struct kb_effect *e, size_t n);

/* What @e is, as it is stored (analyses.kind): "main-effect",
 * "interaction", "within-condition" or "condition-dependence". */
const char *kb_effect_kind_name(const struct kb_effect *e);

/* The multiplicity adjustment of kb_effect.p_adjusted, "holm". */
#define KB_EFFECTS_ADJUST "holm"

/*
 * Estimate every main effect and two-way interaction of @a's experiment,
 * ranked by |log effect|, largest first (with conditions: those of the
 * other factors, then the estimates within each level of the conditions,
 * above).  A full design with a factor of
 * more than two levels gets treatment contrasts instead (each level
 * against the factor's first, "F=L"; interactions "F=L:G=K" as
 * differences of differences: lib/effects_levels.c).  Aliased effects (fractional
 * designs) are estimated once, under the first name, with the others in
 * `aliases`.  A Plackett-Burman design gives main effects only: every
 * two-way interaction is partially aliased with main effects
 * (`npartial`), so none can be told apart from them.  Errors: the design
 * is one-at-a-time, a factor of more than two levels is not in a full
 * design, a variant has no
 * measurement or a value <= 0 (the log scale cannot take it: the message
 * says how many), or no variant has two boots (no variance).  Caller
 * frees *@out.
 */
int kb_effects_estimate(const struct kb_analysis *a, struct kb_effect **out,
			size_t *n, double *resid_cv, double *df,
			struct kb_err *err);

/* A host of an experiment, against the first (a block effect). */
struct kb_host_effect {
	const char *host;   /* its URI (borrowed from the analysis) */
	size_t nboots;      /* ok boots with a positive value on it */
	double mean;        /* the mean of their values, whatever variant */
	/* log(this host / the first), the variants' differences taken
	 * out (the fit of kb_effects_estimate()); 0 for the first, whose
	 * interval and p are NaN */
	double log_effect, log_ci_low, log_ci_high;
	double change_pct, ci_low_pct, ci_high_pct; /* in percent */
	double p;           /* t test of no difference; NaN for the first */
};

/*
 * The hosts @a's boots ran on, the matrix's first in its order, each
 * compared with the first: the host effects of the block fit (any design,
 * one-at-a-time included), intervals at level 1 - alpha with *@df
 * degrees of freedom (NaN with one host, which is the only one listed;
 * none when no boot has a value).  KB_EINPUT when the hosts ran sets of
 * variants that do not overlap (no
 * host difference can be told from the variants').  Caller frees *@out;
 * its host names live as long as @a.
 */
int kb_effects_hosts(const struct kb_analysis *a, struct kb_host_effect **out,
		     size_t *n, double *df, struct kb_err *err);

/*
 * " aliased with C:D", " partially aliased with 45 two-way interactions
 * (±1/3 each)" (@sizes: kb_design_alias_sizes() of the design) or "",
 * for effect @e.  Caller frees.
 */
char *kb_effects_aliases_text(const struct kb_effect *e, const char *sizes);

/*
 * Store the effects @e[0..n) of @a's experiment (kb_effects_estimate())
 * in @a's database as `kbisect effects` does: a row per effect (kind
 * "main-effect" or "interaction"), its adjusted p and call, and in
 * detail the adjustment and the aliases; they replace the effects of
 * the metric stored before.  Nothing on a store opened read-only.
 */
int kb_effects_store(const struct kb_analysis *a, const struct kb_effect *e,
		     size_t n, struct kb_err *err);

#endif
