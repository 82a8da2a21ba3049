#ifndef KB_EFFECTS_INT_H
#define KB_EFFECTS_INT_H

/* The effects module's own (lib/effects.c, lib/effects_levels.c). */

#include <stddef.h>

struct kb_analysis;
struct kb_effect;
struct kb_err;

/*
 * The effects of a full design with a factor of more than two levels
 * (lib/effects_levels.c): for each factor, each level against the
 * factor's first, and for each pair of factors, each pair of such levels
 * (a difference of differences); cells m (mean log values) with @var the
 * pooled variance of log values and @df its degrees of freedom.  Raw p
 * only, in estimate order: the caller adjusts the family (Holm) and ranks
 * it as every other estimate.  Caller frees *@out.
 */
int kb_effects__levels(const struct kb_analysis *a, const double *cell,
		       const size_t *ncell, double var, double df,
		       struct kb_effect **out, size_t *n, struct kb_err *err);

#endif
