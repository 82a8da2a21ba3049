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

/*
 * What the estimates within conditions are made from
 * (lib/effects_within.c): the cells of the design's runs and the fit's
 * variance of a contrast.
 */
struct kb_effects__cells {
	const struct kb_analysis *a;
	const double *cell;  /* per run: the mean log value (host-adjusted) */
	const size_t *ncell; /* per run: its boots */
	size_t runs;
	double var, df;      /* the residual variance and its df */
	int levels;          /* name effects "F=L" (treatment contrasts) */
	/* the variance of contrast @wt (per run) over var: sum wt^2 / n, or
	 * the host fit's */
	double (*factor)(const void *arg, const double *wt);
	const void *arg;
};

/*
 * For each main effect of a factor that is not a condition (each level
 * of it, with @c->levels), its estimate within each level of the
 * conditions and the test that it is the same at every level (effects.h:
 * kb_effect.within, kb_effect.depends), in factor order.  Raw p only:
 * the caller adjusts them with the ranked effects as one family.  None
 * when the matrix has no condition.  Caller frees *@out.
 */
void kb_effects__within(const struct kb_effects__cells *c,
			struct kb_effect **out, size_t *n);

#endif
