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
 * tree refines it later.  Resolution is the one place a build key is
 * computed: the build stage (lib/build.h) builds what the plan resolved.
 *
 * With repeat.sentinel the plan ends with one more variant, the sentinel
 * (kb_variant.sentinel): the baseline again — its settings, guest shape
 * and build key, so its kernel is never built twice — labelled
 * KB_PLAN_SENTINEL_LABEL.  It is booted like any variant, in every round
 * of the run order, so that its comparison with the baseline is the
 * experiment's own A/A (docs/analysis.md).  It comes after the design's
 * runs (kb_design_nruns() of them, the first variants), so an analysis
 * of the design's factors never sees it.
 */

struct kb_plan;

/*
 * Expand @m.  Checks what needs the whole design: fractional designs need
 * 4 to 8 two-level factors, the number of variants is capped, and each
 * variant's pin list must match its vCPU count; a matrix with a host no
 * executor runs is refused (kb_matrix_check_runnable_hosts()).  Errors
 * name the matrix position.
 * @m must outlive the plan.
 */
int kb_plan_new(const struct kb_matrix *m, struct kb_plan **out,
		struct kb_err *err);
void kb_plan_free(struct kb_plan *p);

/*
 * Parse the matrix text @text (as stored with an experiment; @path, which
 * may be NULL, names it and anchors its relative paths) and plan it.  On
 * success *@m and *@p are the caller's (free the plan first); on failure
 * both are NULL.
 */
int kb_plan_from_text(const char *text, const char *path,
		      struct kb_matrix **m, struct kb_plan **p,
		      struct kb_err *err);

/*
 * kb_plan_from_text() for analysis: the matrix is read with
 * kb_matrix_parse_stored(), which looks at nothing on disk, so the plan
 * (its variants, labels and unresolved build keys) is the same from any
 * folder and after the files the matrix names moved.
 */
int kb_plan_from_stored(const char *text, const char *path,
			struct kb_matrix **m, struct kb_plan **p,
			struct kb_err *err);

/*
 * A plan of the one variant @v of matrix @m, made outside a design (a
 * bisection probe: its own Kconfig settings and kernel.rev), so that it
 * is resolved and built through kb_plan_resolve() like any other.  The
 * plan's variant is a copy of @v with idx 0; it borrows @v's label and
 * settings, which must outlive the plan, as must @m.
 */
int kb_plan_new_variant(const struct kb_matrix *m, const struct kb_variant *v,
			struct kb_plan **out, struct kb_err *err);

#define KB_PLAN_SENTINEL_LABEL "sentinel"

/* The index of the plan's sentinel variant, or -1 when it has none. */
int kb_plan_sentinel(const struct kb_plan *p);

/*
 * The variant that variant @v is judged against when the matrix has
 * conditions (kb_factor.condition, docs/analysis.md "Conditions: compared
 * within"): @base with the conditions at @v's levels — the baseline at
 * @v's level; @base itself without conditions (and for the sentinel,
 * which is @base again); -1 when the design has no such variant.
 */
int kb_plan_reference(const struct kb_plan *p, size_t base, size_t v);

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
/* Boots at most, when adaptive sampling (compare --adaptive, why)
 * brings every variant to repeat.max_boots. */
size_t kb_plan_max_boots(const struct kb_plan *p);

/* What a run of the plan is expected to take, from a build's and a
 * boot's time (kb_plan_cost()). */
struct kb_plan_cost {
	double build_s;   /* the builds, one at a time */
	double boot_s;    /* the boots, as many at once as the hosts take */
	double total_s;   /* both */
	double more_s;    /* the boots adaptive sampling may add, up to
			   * kb_plan_max_boots(), at the hosts' pace */
	unsigned slots;   /* boots at once: the hosts' capacities summed */
};

/*
 * The time a run of @p is expected to take when a build takes @build_s
 * and a boot @boot_s (its workload runs included) into *@out: builds
 * one after the other (an overlap of builds and boots, build.overlap,
 * only shortens it) but for the @cached the build cache already holds
 * (kb_build_plan_cached()), the boots spread over every host's capacity.
 */
void kb_plan_cost(const struct kb_plan *p, double build_s, size_t cached,
		  double boot_s, struct kb_plan_cost *out);

/* ---- limits on the whole plan ----------------------------------------- */

/*
 * Each part of a matrix has its limit (KB_MATRIX_MAX_*), but the parts
 * multiply: 4096 variants × 1000 boots × 1000 runs is 4 billion runs.
 * These cap the whole: the boots the plan may reach (variants ×
 * repeat.max_boots, adaptive sampling included) and its samples (those
 * boots × repeat.runs_per_boot workload runs; each run stores one sample
 * of every metric it yields).  100,000 boots are a month of guest time at
 * 30 s a boot; a million runs are about 70 MB of database with one metric
 * each, a gigabyte with fio's dozen (docs/matrix.md "Limits").
 */
#define KB_PLAN_MAX_BOOTS 100000
#define KB_PLAN_MAX_SAMPLES 1000000

struct kb_plan_limits {
	unsigned long long max_boots;   /* 0: KB_PLAN_MAX_BOOTS */
	unsigned long long max_samples; /* 0: KB_PLAN_MAX_SAMPLES */
};
#define KB_PLAN_LIMITS_INIT { .max_boots = 0, .max_samples = 0 }

/*
 * Check @p against @l (NULL: the defaults).  Returns 0, or KB_EINPUT
 * "FILE: 4096 variants x 1000 boots (repeat.max_boots) = 4096000 boots,
 * more than the limit of 100000: ... --max-boots N" (and the same for
 * samples), FILE being the matrix's.
 */
int kb_plan_check_limits(const struct kb_plan *p,
			 const struct kb_plan_limits *l, struct kb_err *err);

/* ---- resolution against the kernel tree (lib/kconfig.h) -------------- */

struct kb_kconfig_resolution;

/* A step of kb_plan_resolve(), for progress reports. */
struct kb_plan_resolve_event {
	size_t i, n;      /* the i-th (from 1) of n distinct configs */
	const struct kb_variant *variant; /* the first variant needing it */
	int done;         /* 0: starting it; 1: finished it */
	int cached;       /* done: read from the resolution cache */
	double elapsed_s; /* since kb_plan_resolve() started */
};

struct kb_plan_resolve_opts {
	const char *tree;      /* kernel tree folder to use; NULL: open the
				* matrix's source.tree at each variant's
				* revision with lib/source */
	const char *tree_id;   /* with @tree: its id; NULL: the path */
	const char *arch;      /* ARCH=; NULL: "x86_64" */
	const char *work_dir;  /* where each tree gets its O= folder for
				* olddefconfig, <work_dir>/<hash of the tree
				* id>; NULL: ${XDG_CACHE_HOME:-~/.cache}/
				* kbisect/resolve */
	const char *cache_dir; /* resolution cache (kb_kconfig_resolve_opts) */
	const char *base_config; /* a .config every variant is resolved
				  * from instead of source.base and
				  * source.fragments (a bisection probe:
				  * the good end with its changes); NULL:
				  * the matrix's */
	void (*progress)(const struct kb_plan_resolve_event *ev, void *arg);
	void *arg;
};
#define KB_PLAN_RESOLVE_OPTS_INIT \
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/*
 * Resolve every variant's Kconfig settings against its kernel tree
 * (kb_kconfig_resolve(), once per distinct tree and set of settings),
 * then replace each variant's build key with the key of its resolved
 * configuration (kb_toolchain_build_key of its tree id, normalised
 * resolved .config, compiler) and recount the builds: variants that
 * resolve identically in one tree share one.
 *
 * A variant's tree is source.tree at its kernel.rev level, else at
 * source.rev: each distinct revision is opened once (lib/source.h),
 * revisions with the same tree id share one tree, and each tree has its
 * Kconfig symbols scanned and its own O= folder.  @o->tree instead uses
 * that folder for every variant, and refuses variants with a kernel.rev.
 * The compiler is probed once (kb_toolchain_cc_version).
 *
 * Checks first that every Kconfig factor is a symbol of every tree: an
 * unknown one is KB_EINPUT at the factor's file:line:col, with a "did you
 * mean".  A source.tree that is not a kernel tree is KB_EINPUT; a missing
 * one, or an unknown revision, KB_ENOTFOUND.  make failing is KB_EFAIL
 * with its log's end.  On failure the plan stays unresolved.
 */
int kb_plan_resolve(struct kb_plan *p, const struct kb_plan_resolve_opts *o,
		    struct kb_err *err);

/* Whether kb_plan_resolve() succeeded on @p. */
int kb_plan_is_resolved(const struct kb_plan *p);

/* A kernel tree the plan was resolved against (strings owned by the plan). */
struct kb_plan_tree {
	const char *rev; /* the revision that named it first: a kernel.rev
			  * level, else source.rev; NULL for HEAD, a plain
			  * tree or kb_plan_resolve_opts.tree */
	const char *id;  /* tree id (lib/source.h), part of its build keys */
	const char *dir; /* the folder to build from (make -C) */
};

/* Distinct trees of the resolved plan, in plan order; 0 before. */
size_t kb_plan_ntrees(const struct kb_plan *p);
/* Tree @t (< kb_plan_ntrees()), or NULL. */
const struct kb_plan_tree *kb_plan_tree(const struct kb_plan *p, size_t t);
/* Variant @i's tree, or NULL before kb_plan_resolve(). */
const struct kb_plan_tree *kb_plan_variant_tree(const struct kb_plan *p,
						size_t i);

/*
 * The compiler's version line the build keys were computed with
 * (kb_toolchain_cc_version), or NULL before kb_plan_resolve().
 */
const char *kb_plan_compiler(const struct kb_plan *p);

/*
 * Variant @i's resolution (its resolved config and, per Kconfig factor,
 * whether it held and why not), or NULL before kb_plan_resolve().
 */
const struct kb_kconfig_resolution *kb_plan_resolution(const struct kb_plan *p,
							size_t i);

/*
 * Requested options that did not hold, counted over variants (a setting
 * dropped in 3 variants counts 3).  0 before kb_plan_resolve().
 */
size_t kb_plan_ndropped(const struct kb_plan *p);

#endif
