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
 * whether it is an independent regression (no factor changes its effect).
 * Comparisons use adaptive sampling when the experiment can run again.
 * Works on any design that measured the variants needed; a variant the
 * design did not include is reported as not measured.
 */

#define KB_WHY_MAX 16

/* How another factor changes a culprit's effect. */
struct kb_why_interaction {
	size_t factor;           /* the other factor */
	const char *level;       /* at this level of it ... */
	struct kb_comparison c;  /* ... the culprit's change is this */
	double diff_log;         /* log(effect here) - log(effect in context) */
	double p;                /* t-test of diff_log = 0 */
	int significant;
};

struct kb_why_culprit {
	size_t factor;                /* index in the matrix */
	const char *good, *bad;       /* its levels in A and B */
	struct kb_comparison in_context; /* B without it -> B */
	struct kb_comparison alone;   /* A -> A with it */
	size_t ninter;
	struct kb_why_interaction inter[KB_WHY_MAX];
	int independent;              /* no significant interaction */
};

struct kb_why {
	unsigned good, bad;           /* variant indexes */
	struct kb_comparison total;   /* A -> B */
	int reproduces;               /* total is a regression */
	size_t ndiff;                 /* factors in which A and B differ */
	size_t diff[KB_WHY_MAX];
	size_t nculprits;             /* the minimal set */
	struct kb_why_culprit culprits[KB_WHY_MAX];
	unsigned set_variant;         /* A with the minimal set applied */
	struct kb_comparison set_vs_bad; /* that variant -> B */
	unsigned boots_added;         /* by adaptive sampling */
};

/*
 * Explain the regression from variant @good to variant @bad (-1: the
 * baseline and the worst variant).  Fills *@out.
 */
int kb_why_explain(struct kb_analysis *a, int good, int bad,
		   struct kb_why *out, struct kb_err *err);

#endif
