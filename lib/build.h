#ifndef KB_BUILD_H
#define KB_BUILD_H

#include <stddef.h>

#include "sha256.h"
#include "variant.h"

struct kb_err;

/*
 * Kernel builds from source (docs/builds.md).
 *
 * A build is named by its key: the SHA-256 of the tree id (lib/source.h),
 * the normalised resolved .config (lib/kconfig.h) and the compiler's
 * version line.  Its artifacts — bzImage, .config, System.map, the make
 * log and a small record, kbisect-build.txt — go into CACHE/<key>, where
 * CACHE is ${XDG_CACHE_HOME:-$HOME/.cache}/kbisect/builds by default.  A
 * key whose folder holds an "ok" record is never built again.
 *
 * Builds of one tree share a persistent O= folder, OBJDIRS/<tree-hash>,
 * so that Kbuild recompiles only what the changed options touch; builds
 * are ordered so that consecutive ones differ as little as possible
 * (kb_build_order).  make runs as an argv through posix_spawn; its output
 * goes to the log and is read for progress: the "  CC " lines are the
 * units compiled.  The key itself is lib/toolchain.h's.
 */

/* ---- ordering --------------------------------------------------------- */

/*
 * Units depending on each Kconfig symbol, read from the fixdep records
 * (.*.cmd files) of a built O= folder: flipping a symbol that many units
 * depend on costs more than flipping a leaf option.  Symbols it does not
 * know weigh 1.
 */
struct kb_build_weights;

struct kb_build_weights *kb_build_weights_new(void);
void kb_build_weights_free(struct kb_build_weights *w);
/* Set @sym's weight (units depending on it). */
void kb_build_weights_set(struct kb_build_weights *w, const char *sym,
			  unsigned units);
/* @sym's weight: at least 1. */
unsigned kb_build_weights_get(const struct kb_build_weights *w,
			      const char *sym);
/* Symbols known. */
size_t kb_build_weights_count(const struct kb_build_weights *w);

/*
 * Scan the .*.o.cmd files under O= folder @objdir and count, for every
 * symbol, the units whose dependencies list include/config/SYMBOL.  An
 * empty or missing folder gives empty weights.  *@out is the caller's.
 */
int kb_build_weights_scan(const char *objdir, struct kb_build_weights **out,
			  struct kb_err *err);

/*
 * The cost of going from config @a to config @b: the sum of the weights
 * (1 each when @w is NULL) of the symbols whose values differ, a symbol
 * absent from one side counting as "n".  Configs are .config or
 * normalised text: "CONFIG_X=v", "X=v" and "# CONFIG_X is not set" lines;
 * other lines are ignored.
 */
unsigned long kb_build_distance(const char *a, const char *b,
				const struct kb_build_weights *w);

/*
 * Order @n configs for building: greedy nearest neighbour, starting from
 * the config nearest to @start (what the O= folder holds; NULL: start
 * with configs[0]), then always the nearest config not yet built; ties go
 * to the lower index.  Writes a permutation of 0..n-1 to @order.  Pure.
 *
 * The order is that of the plain greedy walk, which measured every
 * remaining pair again at each step (O(n^2 S) string compares for n
 * configs of S symbols: 8-14 s at n = 1024, S = 2000), computed faster
 * (kb_build_configs below; tests/bench/order.c, docs/builds.md).  The
 * configs are parsed once, each into a row of numbers: one per symbol
 * whose value differs between them (D symbols; the others add nothing to
 * any distance).  The walk keeps each remaining config's distance to the
 * last one placed; placing the next one corrects it only in the d
 * columns where the two differ.  O(n S) to parse, O(n D) for the first
 * distances, O(n^2 (1 + d)) for the walk, d the mean difference between
 * consecutive picks: about 1 plus what olddefconfig moves along in a
 * 2^k matrix, so the parse dominates.  A cheaper order, a sort by the
 * Gray-code rank of the options that are on (heaviest first), was
 * measured and not taken: as good on a full 2^k, but about 9% more
 * units rebuilt on random subsets of options, and it would change the
 * order.
 */
void kb_build_order(const char *const *configs, size_t n, const char *start,
		    const struct kb_build_weights *w, size_t *order);

/*
 * @n configs parsed once, for picking builds one at a time (the
 * pipeline's `kbisect build` picks the next build after each one, with
 * the O= folder's new .config and weights): every symbol and value
 * becomes a number, and each config a row of the values of the symbols
 * that differ between the configs.  The symbols that are the same in
 * all of them add the same to every distance and are left out.  The
 * texts are read as kb_build_distance() reads them (NULL counts as
 * empty) and may be freed afterwards.  Free with kb_build_configs_free()
 * (NULL is fine).
 */
struct kb_build_configs;

struct kb_build_configs *kb_build_configs_new(const char *const *configs,
					      size_t n);
void kb_build_configs_free(struct kb_build_configs *c);

/*
 * Of the configs of @c whose @skip byte is 0 (@skip NULL: all of them),
 * the one nearest to config text @start under weights @w, ties to the
 * lower index: the config kb_build_order() would put first among them.
 * With @start NULL, the first not skipped.  Returns its index, or the
 * number of configs when all are skipped.  O(S + n D), nothing parsed
 * again but @start.
 */
size_t kb_build_configs_nearest(const struct kb_build_configs *c,
				const char *start,
				const struct kb_build_weights *w,
				const unsigned char *skip);

/* ---- running builds --------------------------------------------------- */

/* Where a build is, for progress reports. */
struct kb_build_progress {
	const char *label;       /* the variant (or variants) being built */
	const char *key;         /* its build key */
	double elapsed_s;        /* since make started */
	unsigned units;          /* "  CC " lines so far */
	unsigned units_full;     /* units of this O= folder's last full
				  * build, 0 when unknown */
	int done;                /* the last report of this build */
};

struct kb_build_opts {
	const char *tree;      /* kernel source folder (make -C) */
	const char *tree_id;   /* its tree id */
	const char *objdir;    /* O= folder; NULL: OBJDIRS/<hash of tree id> */
	const char *cache_dir; /* artifacts; NULL: the default (see above) */
	const char *arch;      /* ARCH=; NULL: "x86_64" */
	const char *target;    /* make target; NULL: "bzImage" */
	const char *make;      /* make program; NULL: "make" */
	unsigned jobs;         /* -jN; 0: the number of online CPUs */
	size_t nmake_args;     /* extra argv items, e.g. "CC=distcc gcc" */
	const char *const *make_args;
	void (*progress)(const struct kb_build_progress *p, void *arg);
	void *arg;             /* for @progress; reports come about 1/s */
};
#define KB_BUILD_OPTS_INIT \
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL }

/* What a build produced, beyond struct kb_build_result. */
struct kb_build_info {
	char *artifacts_dir;     /* CACHE/<key> */
	char *config_path;       /* CACHE/<key>/.config */
	char *log_path;          /* CACHE/<key>/build.log */
	char *objdir;            /* the O= folder used */
	unsigned units_compiled; /* "  CC " lines in the log */
	int full;                /* the O= folder held no earlier build */
	int cached;              /* found in the cache: make was not run */
};
void kb_build_info_release(struct kb_build_info *i);

/* Default folders (see above).  Caller frees. */
char *kb_build_default_cache_dir(void);
char *kb_build_default_objdir(const char *tree_id);

/*
 * Build @key from the resolved .config text @config: write it as
 * objdir/.config, run `make -C tree O=objdir ARCH=arch -jN ARGS target`
 * and copy the artifacts into CACHE/<key>.  When CACHE/<key> already
 * holds an ok build, nothing runs (info->cached).  A failing make is a
 * result: *@out has status KB_BUILD_FAILED, the reason and the last 50
 * log lines, and 0 is returned.  A negative return means the build could
 * not be attempted (folders, spawning make).  @label names the build in
 * progress reports.  *@out and *@info are the caller's to release.
 */
int kb_build_run(const struct kb_build_opts *opts, const char *key,
		 const char *config, const char *label,
		 struct kb_build_result *out, struct kb_build_info *info,
		 struct kb_err *err);

/*
 * The image of an ok build of @key in @cache_dir (NULL: the default),
 * made for make target @target (NULL: "bzImage"), as kb_build_run() would
 * take it from the cache without building: 1 with its path in *@image
 * (caller frees), or 0 (*@image NULL) when the cache has none.
 */
int kb_build_cached_image(const char *cache_dir, const char *key,
			  const char *target, char **image);

/* The last @n lines of @text, newly allocated. */
char *kb_build_tail(const char *text, size_t len, unsigned n);

/* Count the "  CC " lines (compiled units) in @len bytes of make output. */
unsigned kb_build_count_units(const char *text, size_t len);

/* ---- variants of a matrix --------------------------------------------- */

struct kb_matrix;
struct kb_plan;

/*
 * The build options matrix @m asks for (build.jobs, build.make_args) with
 * the tree @tree / @tree_id; the other fields are left as
 * KB_BUILD_OPTS_INIT has them.  The strings are borrowed.
 */
void kb_build_opts_from_matrix(const struct kb_matrix *m, const char *tree,
			       const char *tree_id, struct kb_build_opts *o);

/*
 * Build variant @i of resolved plan @p from source, as the plan resolved
 * it (kb_plan_resolve): its resolved .config and build key, from its
 * revision's tree (kb_plan_variant_tree) in that tree's O= folder
 * (kb_build_default_objdir of its tree id), with the matrix's build
 * options; nothing is resolved or keyed again.  @label names the build in
 * progress reports (NULL: the variant's label); @progress, @arg and @info
 * may be NULL.  KB_EINPUT when @p is not resolved.  Otherwise returns as
 * kb_build_run() (a key in the cache is not built again).
 */
int kb_build_plan_variant(const struct kb_plan *p, size_t i, const char *label,
			  void (*progress)(const struct kb_build_progress *bp,
					   void *arg),
			  void *arg, struct kb_build_result *out,
			  struct kb_build_info *info, struct kb_err *err);

/*
 * How many of resolved plan @p's builds (distinct build keys) the cache
 * @cache_dir (NULL: the default) already holds an ok build of: builds a
 * run takes from the cache instead of running make.  0 for a plan that
 * is not resolved.
 */
size_t kb_build_plan_cached(const struct kb_plan *p, const char *cache_dir);

/*
 * The order in which to visit the variants of resolved plan @p so that
 * builds follow kb_build_order() tree by tree (the trees in plan order;
 * variants sharing a build stay together), each tree's starting from
 * what its O= folder holds and weighted by its fixdep records.  Plan
 * order for a plan that is not resolved.  Writes a permutation of
 * 0..nvariants-1 to @order.
 */
void kb_build_plan_order(const struct kb_plan *p, size_t *order);

#endif
