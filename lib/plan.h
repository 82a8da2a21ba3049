#ifndef KB_PLAN_H
#define KB_PLAN_H

#include <stddef.h>

#include "design.h"
#include "matrix.h"
#include "variant.h"

struct kb_err;

/*
 * The plan: a matrix expanded by its design into variants, each with its
 * settings, a readable label, the guest shape after guest.* factors, and a
 * build key.  Variants that differ only in guest factors share a build.
 *
 * Without a kernel tree the build key is a digest of what the matrix asks
 * for (source and the Kconfig/kernel levels); config resolution against a
 * tree refines it later.
 */

struct kb_plan;

/*
 * Expand @m.  Checks what needs the whole design: fractional designs need
 * 4 to 8 two-level factors, the number of variants is capped, and each
 * variant's pin list must match its vCPU count.  Errors name the matrix
 * position.  @m must outlive the plan.
 */
int kb_plan_new(const struct kb_matrix *m, struct kb_plan **out,
		struct kb_err *err);
void kb_plan_free(struct kb_plan *p);

const struct kb_matrix *kb_plan_matrix(const struct kb_plan *p);
const struct kb_design *kb_plan_design(const struct kb_plan *p);
size_t kb_plan_nvariants(const struct kb_plan *p);
const struct kb_variant *kb_plan_variant(const struct kb_plan *p, size_t i);
/* All variants, an array of kb_plan_nvariants() in plan order. */
const struct kb_variant *kb_plan_variants(const struct kb_plan *p);
/* Distinct builds the plan needs. */
size_t kb_plan_nbuilds(const struct kb_plan *p);
/* Boots the plan needs: variants × repeat.boots. */
size_t kb_plan_nboots(const struct kb_plan *p);
/* Workload runs: boots × repeat.runs_per_boot. */
size_t kb_plan_nruns(const struct kb_plan *p);

#endif
