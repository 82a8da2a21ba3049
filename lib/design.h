#ifndef KB_DESIGN_H
#define KB_DESIGN_H

#include <stddef.h>

#include "matrix.h"

struct kb_err;

/*
 * Experimental designs: which combinations of factor levels to run.
 * A design is a table of runs × factors holding level indexes
 * (0 .. nlevels-1); run 0 is always the baseline, every factor at level 0.
 *
 * - full: every combination, the last factor varying fastest.
 * - one-at-a-time: the baseline, then for each factor in order and each
 *   of its other levels in order, the baseline with that one change.
 * - fractional: for 4 to 16 two-level factors, a regular 2^(k-p) design of
 *   resolution IV or better, of minimum aberration: 8 runs for 4 factors,
 *   16 runs for 5 to 8, 32 runs for 9 to 16.  The first 3 (k=4), 4 (5 to
 *   8) or 5 (9 to 16) factors are the basic full-factorial columns, the
 *   others come from generators (stated by kb_design_generators()).
 *   Signs are chosen so that run 0 is the baseline.  Fewer than 4 factors
 *   get the full factorial (it has at most 8 runs).
 * - plackett-burman: for up to 23 two-level factors, the Plackett-Burman
 *   (1946) design of 12 (up to 11 factors), 20 (up to 19) or 24 runs: run
 *   0 has every factor at its first level, run 1 is the published
 *   generating row (+ the second level) and each next run the one before
 *   shifted cyclically right by one place; factor j takes column j.
 *   Main effects are orthogonal to each other but partially aliased with
 *   two-factor interactions (kb_design_aliases()).
 *
 * Factors of the two-level designs have letters: A to H, then J to Z
 * (I names the identity of a defining relation), kb_design_letter().
 */

/* The most factors a fractional or a Plackett-Burman design takes. */
#define KB_DESIGN_FRAC_MAX_FACTORS 16
#define KB_DESIGN_PB_MAX_FACTORS 23

struct kb_design;

/*
 * Make a design of @kind for @nfactors factors with @nlevels[i] levels
 * each (nfactors may be 0: one run).  Returns 0, or KB_EINPUT when the kind
 * does not fit the factors (fractional or plackett-burman with a factor of
 * other than two levels or more factors than kb_design_max_factors(); more
 * than KB_MATRIX_MAX_VARIANTS runs), with a message saying why.
 */
int kb_design_new(enum kb_design_kind kind, size_t nfactors,
		  const size_t *nlevels, struct kb_design **out,
		  struct kb_err *err);
void kb_design_free(struct kb_design *d);

size_t kb_design_nruns(const struct kb_design *d);
size_t kb_design_nfactors(const struct kb_design *d);
/* The level index of factor @factor in run @run. */
size_t kb_design_level(const struct kb_design *d, size_t run, size_t factor);

/*
 * For fractional designs: the generators in factor letters, A being the
 * first factor, e.g. "E=ABC F=BCD" or "E=-ABCD"; NULL for other designs.
 */
const char *kb_design_generators(const struct kb_design *d);
/*
 * For fractional designs, the resolution (4 = IV, 5 = V), the length of
 * the shortest word of the defining relation; 3 (III) for Plackett-Burman
 * designs; 0 otherwise.
 */
unsigned kb_design_resolution(const struct kb_design *d);

/*
 * The most two-level factors a design of @kind takes:
 * KB_DESIGN_FRAC_MAX_FACTORS, KB_DESIGN_PB_MAX_FACTORS, or
 * KB_MATRIX_MAX_FACTORS for the designs of any levels.
 */
size_t kb_design_max_factors(enum kb_design_kind kind);

/* The letter of factor @factor (from 0): A..H, J..Z; '?' after the 25th. */
char kb_design_letter(size_t factor);

/*
 * An effect aliased with another (kb_design_aliases()): the main effect of
 * f1 (f2 == f1) or the interaction f1:f2 (f1 < f2), and the coefficient
 * with which it enters the other's estimate.
 */
struct kb_alias {
	size_t f1, f2;
	int num, den; /* the coefficient num/den in lowest terms, den >= 1 */
	double coef;  /* num / den */
};

/*
 * The effects, up to two-factor interactions, aliased in @d with the main
 * effect of @f1 (@f2 == @f1) or the interaction @f1:@f2: the contrast of
 * that effect's column estimates it plus the sum of coef × each alias.
 * In a regular fraction the aliases come from the defining relation (the
 * products of the generators): coef ±1, the same column or its opposite.
 * In a Plackett-Burman design they are partial, coef = (the product of
 * the two columns summed over the runs) / runs, such as ±1/3 in 12 runs;
 * effects with coef 0 are left out.  Full and one-at-a-time designs have
 * none.  Mains come first, then interactions, each in factor order.
 * Returns their number and sets *@out to an array the caller frees (NULL
 * when there are none).
 */
size_t kb_design_aliases(const struct kb_design *d, size_t f1, size_t f2,
			 struct kb_alias **out);

/*
 * The sizes of the coefficients of the aliases of every main effect of
 * @d, smallest first, as text the caller frees: "±1/3", "±1/5 or ±3/5"
 * (a Plackett-Burman design), "±1"; "" when no main effect has an alias.
 */
char *kb_design_alias_sizes(const struct kb_design *d);

/* The number of runs a full factorial would need, saturating at SIZE_MAX. */
size_t kb_design_full_size(size_t nfactors, const size_t *nlevels);

#endif
