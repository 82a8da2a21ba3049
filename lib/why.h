#ifndef KB_WHY_H
#define KB_WHY_H

#include <stddef.h>

#include "analysis.h"

struct kb_err;

/*
 * Why is variant B worse than variant A?  Among the factors in which they
 * differ, find the smallest set whose change alone (A with those factors
 * at B's levels) reproduces B's regression; for each factor of that set,
 * its own effect in context (with CI), how other factors change that
 * effect (interactions: its effect measured at their other levels), and
 * whether it is an independent regression.  Comparisons use adaptive
 * sampling when the experiment can run again.  Works on any design that
 * measured the variants needed; a variant the design did not include is
 * reported as not measured.
 *
 * The rules, so that no factor is named on a guess:
 *
 * - When B is picked as the worst of C candidates (not given), its boots
 *   are the most extreme of C draws: tested on them, at plain alpha, it
 *   looks like a regression far more often than alpha when nothing
 *   differs, and every comparison with it is biased.  When the experiment
 *   can run again, the boots that made B the worst are set aside and B
 *   is confirmed in fresh rounds with A (as many, at least repeat.boots,
 *   then more as comparisons need, up to repeat.max_boots; KB_EFAIL when
 *   none of B's gives a value, the boots having failed): each round
 *   boots A and B, and the set a comparison probes, in a drawn order,
 *   and every comparison is made on the fresh rounds both its variants
 *   have (kb_analysis_compare_rounds()), so that a drift of the host
 *   after the run falls on both sides alike; otherwise every comparison
 *   with B is tested at alpha / C (Bonferroni), on the run's boots.
 * - A set S *reproduces* the regression when A -> A+S is a regression and
 *   A+S -> B is not (the rest of the changes count as harmless when they
 *   are not a regression; they need not be shown to be no-change).  S is
 *   *shown not to* when A+S -> B is a regression or A -> A+S is
 *   no-change or an improvement; anything else is unknown.
 * - Sets are tried smallest first.  The answer names S as the culprits
 *   only when it is the only set of its size that reproduces and every
 *   set of S without one of its factors was shown not to reproduce (each
 *   is needed).  Otherwise the answer is inconclusive, with the suspects
 *   (the smallest set or sets that reproduce: all differing factors when
 *   no smaller one does) and every set tried — never the differing
 *   factors named as culprits.
 * - A culprit's "depends on" tests are one family: Holm-adjusted over all
 *   of them; a culprit is an independent regression when its change alone
 *   is a regression and no test says another factor changes its effect.
 */

#define KB_WHY_MAX 16      /* differing factors, culprits, interactions */
#define KB_WHY_MAX_SETS 64 /* sets of changes kept in the answer */

/* What `why` could say. */
enum kb_why_answer {
	KB_WHY_NOTHING_WORSE,  /* no variant's mean is worse than A's */
	KB_WHY_NOT_REPRODUCED, /* A -> B is not a regression */
	KB_WHY_EXPLAINED,      /* culprits: a set shown to reproduce, each
				* of its factors shown to be needed */
	KB_WHY_INCONCLUSIVE,   /* A -> B is a regression, but no set could be
				* shown to be its cause: see suspects, sets */
};

/* What `why`'s comparisons were made on (docs/analysis.md, "Why:
 * confirmed in fresh rounds"). */
enum kb_why_blocks {
	KB_WHY_BLOCKS_FRESH,  /* B picked and confirmed in fresh rounds with
			       * A: every comparison on the rounds both of
			       * its variants have, rounds added as needed */
	KB_WHY_BLOCKS_STORED, /* B picked, the experiment cannot boot again:
			       * from the stored boots alone, the run's */
	KB_WHY_BLOCKS_GIVEN,  /* B given (not picked): the run's boots, more
			       * added as comparisons need */
};

/* A set of the changes from A to B, measured as A with those changes. */
enum kb_why_set_class {
	KB_WHY_SET_REPRODUCES, /* a regression from A, B not one from it */
	KB_WHY_SET_SHORT,      /* shown not to reproduce */
	KB_WHY_SET_UNKNOWN,    /* neither could be shown */
	KB_WHY_SET_UNMEASURED, /* the design has no such variant */
};

struct kb_why_set {
	size_t n;                      /* factors changed ... */
	size_t factors[KB_WHY_MAX];    /* ... as matrix factor indexes */
	int variant;                   /* A with them (-1: not measured) */
	struct kb_comparison from_good; /* A -> it */
	struct kb_comparison to_bad;   /* it -> B */
	enum kb_why_set_class cls;
};

/* How another factor changes a culprit's effect. */
struct kb_why_interaction {
	size_t factor;           /* the other factor */
	const char *level;       /* at this level of it ... */
	struct kb_comparison c;  /* ... the culprit's change is this */
	double diff_log;         /* log(effect here) - log(effect in context) */
	size_t rounds;           /* judged within this many rounds, each
				  * holding the four variants (0: on the
				  * cells' means, pooled variance: fewer
				  * than 3 such rounds) */
	double p;                /* t-test of diff_log = 0 */
	double p_adj;            /* p, Holm-adjusted over every interaction
				  * test of the answer */
	int significant;         /* p_adj < alpha and |change| >= threshold */
};

struct kb_why_culprit {
	size_t factor;                /* index in the matrix */
	const char *good, *bad;       /* its levels in A and B */
	struct kb_comparison in_context; /* B without it -> B */
	struct kb_comparison alone;   /* A -> A with it */
	size_t ninter;
	struct kb_why_interaction inter[KB_WHY_MAX];
	int independent;              /* alone is a regression and no
				       * significant interaction */
};

struct kb_why {
	enum kb_why_answer answer;
	unsigned good, bad;           /* variant indexes (bad == good when
				       * nothing is worse) */
	unsigned picked_from;         /* bad picked as the worst of this many
				       * measured variants (0: given) */
	unsigned set_aside;           /* picked and confirmed on fresh boots:
				       * bad's boots left out (0: not) */
	enum kb_why_blocks blocks;    /* what the comparisons were made on */
	int budget_short;             /* STORED for the boot budget, which
				       * had too few for a confirmation */
	unsigned first_round;         /* fresh: the first fresh round */
	unsigned confirm_rounds;      /* fresh: the rounds A -> B was judged
				       * on (A and B side by side in each) */
	unsigned fresh_rounds;        /* fresh: rounds added in all */
	unsigned block_start;         /* fresh: the rounds each comparison
				       * starts from (its first look) */
	unsigned run_rounds;          /* the run's rounds (0: it ran in the
				       * sequential order) */
	size_t nparty;                /* fresh: the variants a round added
				       * now boots (A, B and the sets of the
				       * size being tried, so that they share
				       * their rounds) */
	unsigned party[KB_WHY_MAX_SETS + 2];
	double alpha;                 /* the level comparisons with bad are
				       * tested at */
	struct kb_comparison total;   /* A -> B */
	int reproduces;               /* total is a regression */
	size_t ndiff;                 /* factors in which A and B differ */
	size_t diff[KB_WHY_MAX];
	size_t nsets;                 /* sets tried, in order (the first
				       * KB_WHY_MAX_SETS kept) */
	struct kb_why_set sets[KB_WHY_MAX_SETS];
	size_t ntried;                /* sets tried in all */
	size_t nunknown;              /* of those, unknown or not measured */
	size_t nsuspects;             /* inconclusive: factors the cause lies
				       * among */
	size_t suspects[KB_WHY_MAX];
	size_t ncommon;               /* inconclusive: factors every set that
				       * reproduces changes */
	size_t common[KB_WHY_MAX];
	size_t nculprits;             /* explained: the set */
	struct kb_why_culprit culprits[KB_WHY_MAX];
	unsigned set_variant;         /* A with the culprits applied */
	struct kb_comparison set_vs_bad; /* that variant -> B */
	unsigned boots_added;         /* by adaptive sampling */
};

/*
 * Explain the regression from variant @good (-1: the baseline, #0) to
 * variant @bad (-1: the worst variant, tested at alpha over the number of
 * candidates).  Fills *@out; returns 0 for every answer (nothing worse,
 * not reproduced, explained, inconclusive), KB_EINPUT for an unknown
 * variant, for @good and @bad given alike or for a metric nothing measured,
 * KB_EFAIL when the worst variant's fresh boots all failed, and the error
 * of adding boots (kb_analysis_add_boots(): a stop, the store).
 */
int kb_why_explain(struct kb_analysis *a, int good, int bad,
		   struct kb_why *out, struct kb_err *err);

/*
 * Store answer @w of kb_why_explain() on @a in @a's database, as an
 * analyses row of kind "why" (db/0016, v_why): the regression of w->bad
 * against w->good, the culprits (factor names) and what the answer is;
 * it replaces the answer stored before for the same two variants.
 * Nothing on a store opened read-only.
 */
int kb_why_store(const struct kb_analysis *a, const struct kb_why *w,
		 struct kb_err *err);

/* "nothing-worse", "does-not-reproduce", "explained", "inconclusive". */
const char *kb_why_answer_name(enum kb_why_answer a);

/* "fresh-rounds", "stored", "given". */
const char *kb_why_blocks_name(enum kb_why_blocks b);

/* "reproduces", "does-not", "unknown", "not-measured". */
const char *kb_why_set_class_name(enum kb_why_set_class c);

#endif
