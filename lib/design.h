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
 * - fractional: for 4 to 8 two-level factors, a regular 2^(k-p) design of
 *   resolution IV or better: 8 runs for 4 factors, 16 runs for 5 to 8.
 *   The first 3 (k=4) or 4 factors are the basic full-factorial columns,
 *   the others come from generators (stated by kb_design_generators()).
 *   Signs are chosen so that run 0 is the baseline.  Fewer than 4 factors
 *   get the full factorial (it has at most 8 runs).
 */

struct kb_design;

/*
 * Make a design of @kind for @nfactors factors with @nlevels[i] levels
 * each (nfactors may be 0: one run).  Returns 0, or KB_EINPUT when the kind
 * does not fit the factors (fractional with a factor of more than two
 * levels or more than 8 factors; more than KB_MATRIX_MAX_VARIANTS runs),
 * with a message saying why.
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
/* For fractional designs, the resolution (4 = IV, 5 = V); 0 otherwise. */
unsigned kb_design_resolution(const struct kb_design *d);

/* The number of runs a full factorial would need, saturating at SIZE_MAX. */
size_t kb_design_full_size(size_t nfactors, const size_t *nlevels);

#endif
