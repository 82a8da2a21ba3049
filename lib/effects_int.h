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
 * pooled variance of log values and @df its degrees of freedom.  Holm
 * over the family, ranked as kb_effects_estimate().  Caller frees *@out.
 */
int kb_effects__levels(const struct kb_analysis *a, const double *cell,
		       const size_t *ncell, double var, double df,
		       struct kb_effect **out, size_t *n, struct kb_err *err);

/* Adjust the @ne effects' p by Holm's method as one family, mark those
 * below @alpha significant, and rank them (kb_effects__by_size). */
void kb_effects__family(struct kb_effect *e, size_t ne, double alpha);

/* Rank effects by |log effect|, largest first (qsort). */
int kb_effects__by_size(const void *x, const void *y);

#endif
