#ifndef KB_KCONFIG_H
#define KB_KCONFIG_H

#include <stddef.h>

#include "sha256.h"

struct kb_buf;
struct kb_err;
struct kb_setting;

/*
 * Kernel configuration with the kernel's own Kconfig (docs/kconfig.md):
 *
 *   - struct kb_kconfig: a parsed .config (or fragment), symbol -> value;
 *   - struct kb_ksyms: the Kconfig symbols of a kernel tree, with where
 *     each is defined, its dependencies and who selects it;
 *   - expression evaluation: why a dependency does not hold, and which
 *     symbols are unmet;
 *   - resolution: base + fragments + a variant's settings, run through
 *     `make olddefconfig`, read back and compared with what was asked.
 *
 * Symbol names are given and returned without the "CONFIG_" prefix.
 * Values are kept in their .config spelling: "y", "m", "n" (also for
 * "# CONFIG_X is not set"), a number as written ("17", "-1", "0x3e8"), or
 * a string with its quotes and escapes ("\"quiet\"", canonical: only \"
 * and \\ escaped).
 */

/* ---- .config files --------------------------------------------------- */

/* Implemented in lib/kconfig.c. */

#define KB_KCONFIG_MAX_FILE (64u << 20) /* biggest .config we read */
#define KB_KCONFIG_MAX_LINE 65536       /* longest line we accept */

struct kb_kconfig;

/* An empty configuration.  Free with kb_kconfig_free(). */
struct kb_kconfig *kb_kconfig_new(void);

/*
 * Parse @len bytes at @data, a .config or a fragment named @file (used in
 * messages).  Accepts `CONFIG_X=y|m|n`, `CONFIG_X=123`, `CONFIG_X=0x1f`,
 * `CONFIG_X="text"` (with \" and \\ escapes), `# CONFIG_X is not set`
 * (value "n"), other comments and blank lines; when a symbol is set twice
 * the last one wins, as in Kconfig.  Anything else is KB_EINPUT with
 * "FILE:LINE:COL: ..." in @err.  On success *@out is the caller's.
 */
int kb_kconfig_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_kconfig **out, struct kb_err *err);

/* Read and parse the file at @path (see kb_kconfig_parse_buffer). */
int kb_kconfig_load(const char *path, struct kb_kconfig **out,
		    struct kb_err *err);

void kb_kconfig_free(struct kb_kconfig *cfg);

/* The value of @sym ("y", "n", "\"s\"", "17"), or NULL when not present. */
const char *kb_kconfig_get(const struct kb_kconfig *cfg, const char *sym);

/*
 * The tristate level of @sym: 2 for y, 1 for m, 0 for n, absent, or a
 * non-tristate value.
 */
int kb_kconfig_level(const struct kb_kconfig *cfg, const char *sym);

/*
 * Set @sym (name without CONFIG_) to @value (copied, in .config spelling
 * as above; a string is canonicalised).  Returns 0, or KB_EINPUT when the
 * name or value is not valid .config syntax.
 */
int kb_kconfig_set(struct kb_kconfig *cfg, const char *sym,
		   const char *value, struct kb_err *err);

/* Number of symbols, and the i-th in name order (NULL past the end). */
size_t kb_kconfig_count(const struct kb_kconfig *cfg);
const char *kb_kconfig_name_at(const struct kb_kconfig *cfg, size_t i,
			       const char **value);

/*
 * Append the normalised text of @cfg to @out: every symbol in byte order
 * of its name, one `NAME=value` line each, "n" for not set.  Two
 * configurations with the same settings give the same text whatever the
 * order, comments or duplicates of their files.
 */
void kb_kconfig_normalised(const struct kb_kconfig *cfg, struct kb_buf *out);

/* SHA-256 of the normalised text, as 64 hex digits and a NUL. */
void kb_kconfig_digest(const struct kb_kconfig *cfg,
		       char hex[KB_SHA256_HEX_LEN + 1]);

/*
 * Append @cfg as .config lines to @out (`CONFIG_X=v`, or
 * `# CONFIG_X is not set` for n), in name order.
 */
void kb_kconfig_write(const struct kb_kconfig *cfg, struct kb_buf *out);

/*
 * Whether a resolved @resolved value satisfies a @requested one: equal
 * text, an absent value counting as "n", numbers compared by value
 * ("0x10" and "16" match).  @resolved may be NULL.
 */
int kb_kconfig_value_matches(const char *requested, const char *resolved);

/* ---- Kconfig expressions --------------------------------------------- */

/* Implemented in lib/kconfig_expr.c. */

/*
 * Evaluate the Kconfig expression @expr (symbols, y/m/n, numbers, quoted
 * strings, ! && || ( ) = != < <= > >=) against @cfg, with tristate logic
 * (symbols absent from @cfg, or every symbol when @cfg is NULL, are n).  Sets *@level to 2 (y), 1 (m) or 0
 * (n).  When @unmet is not NULL and the result is below @need (1 or 2),
 * appends what keeps it there as a comma-separated list: "PARAVIRT, SMP"
 * for symbols that must be set, "!X86_32" for one that must be off,
 * "NR_CPUS>1" for a comparison.  `$(...)` macros count as y.  Returns 0,
 * or KB_EINPUT with "@expr: column N: ..." when it does not parse.
 */
int kb_kconfig_eval(const char *expr, const struct kb_kconfig *cfg,
		    int need, int *level, struct kb_buf *unmet,
		    struct kb_err *err);

/* ---- the symbols of a tree ------------------------------------------- */

/* Implemented in lib/kconfig_syms.c, with why an option did not hold. */

struct kb_ksyms;

/*
 * Scan the Kconfig files of kernel tree @tree for architecture @arch
 * (ARCH as given to make: "x86_64", "i386", "arm64"; NULL: x86_64),
 * starting at the top Kconfig and following `source` and `osource`
 * ($(SRCARCH) and $(srctree) are expanded).  Collects every `config` and
 * `menuconfig` entry with its file:line, type, prompt, `depends on`, the
 * enclosing `if`/`menu ... depends on`/`choice` context, and `select`s.
 * Returns 0, KB_ENOTFOUND when @tree has no top Kconfig, or KB_EFAIL.
 * On success *@out is the caller's to kb_ksyms_free().
 */
int kb_kconfig_tree_scan(const char *tree, const char *arch,
			 struct kb_ksyms **out, struct kb_err *err);

void kb_ksyms_free(struct kb_ksyms *syms);

/* Number of distinct symbols found. */
size_t kb_ksyms_count(const struct kb_ksyms *syms);

/* Whether @name (without CONFIG_) is a symbol of the tree. */
int kb_ksyms_has(const struct kb_ksyms *syms, const char *name);

/*
 * The symbol closest to an unknown @name ("KMEMLEAK" ->
 * "DEBUG_KMEMLEAK"), or NULL when none is close.  Points into @syms.
 */
const char *kb_ksyms_suggest(const struct kb_ksyms *syms, const char *name);

/*
 * The dependency of @name as one expression: its `depends on` lines and
 * its `if`/`menu` context joined with " && " (definitions in several
 * places joined with " || "), or NULL when it has none or is unknown.
 * Points into @syms.
 */
const char *kb_ksyms_depends(const struct kb_ksyms *syms, const char *name);

/*
 * Where @name is first defined ("arch/x86/Kconfig:812"), its type
 * ("bool", "tristate", "string", "int", "hex", or "unknown"), and whether
 * any of its definitions has a prompt (a symbol without one is set only
 * by defaults and selects).  NULL / 0 for an unknown symbol.
 */
const char *kb_ksyms_where(const struct kb_ksyms *syms, const char *name);
const char *kb_ksyms_type(const struct kb_ksyms *syms, const char *name);
int kb_ksyms_has_prompt(const struct kb_ksyms *syms, const char *name);

/*
 * The symbols that `select` @name, comma-separated ("EXPERT, X86"), or
 * NULL when none does.  Points into @syms.
 */
const char *kb_ksyms_selected_by(const struct kb_ksyms *syms,
				 const char *name);

/*
 * Whether @by selects @target; *@cond then the condition of its selects
 * ("!64BIT" for `select PAGE_EXTENSION if !64BIT`; several joined with
 * " || "), NULL when one of them has none.  Points into @syms.
 */
int kb_ksyms_select_if(const struct kb_ksyms *syms, const char *target,
		       const char *by, const char **cond);

/*
 * The symbols @name's level hangs on: those named by its dependency
 * (kb_ksyms_depends), those that select it and, for a member of a choice
 * block, the other members, each once, in the order met.  Returns their number (0 for an unknown symbol) and points *@on at
 * their names, which @syms owns.
 */
size_t kb_ksyms_requires(const struct kb_ksyms *syms, const char *name,
			 const char *const **on);

/*
 * As kb_ksyms_requires(), less the symbols that select @name only under
 * a condition that is n in each of the @ncfgs configs @cfgs (and that
 * its dependency does not name): `select PAGE_EXTENSION if !64BIT`
 * moves nothing in a 64-bit config.  Into @out, room for
 * kb_ksyms_requires()'s count; returns how many (names @syms owns).
 */
size_t kb_ksyms_requires_in(const struct kb_ksyms *syms, const char *name,
			    const struct kb_kconfig *const *cfgs, size_t ncfgs,
			    const char **out);

/*
 * Why requested @name=@requested did not hold in @resolved: one line such
 * as "depends on PARAVIRT && SMP (unmet: PARAVIRT, SMP)", "selected by
 * EXPERT", "has no prompt: only defaults and selects set it".  Appends to
 * @out; @syms may be NULL (then only the resolved value is given).
 */
void kb_kconfig_explain(const struct kb_ksyms *syms,
			const struct kb_kconfig *resolved, const char *name,
			const char *requested, struct kb_buf *out);

/*
 * What to add to a fragment to make @name=@requested hold: the unmet
 * symbols of its dependency, followed recursively through their own
 * dependencies, as .config lines ("CONFIG_PARAVIRT=y\nCONFIG_SMP=y\n").
 * Appends to @out; nothing when no unmet symbol is known.
 */
void kb_kconfig_suggest_fix(const struct kb_ksyms *syms,
			    const struct kb_kconfig *resolved,
			    const char *name, const char *requested,
			    struct kb_buf *out);

/* ---- resolution ------------------------------------------------------ */

/* Implemented in lib/kconfig_resolve.c. */

/*
 * How to resolve: the tree, its stable id, the base and fragments, and
 * where make runs.  Paths should be absolute (make runs with -C @tree).
 */
struct kb_kconfig_resolve_opts {
	const char *tree;     /* kernel tree, run as `make -C tree` */
	const char *tree_id;  /* stable id of the tree for the cache key;
			       * NULL: the tree path and its top Makefile's
			       * mtime */
	const char *arch;     /* ARCH=; NULL: "x86_64" */
	const char *odir;     /* the O= folder (created if missing) */
	const char *base;     /* a .config path, a make target, or NULL
			       * (start from an empty .config) */
	int base_is_target;   /* @base is a make target ("tinyconfig") */
	size_t nfragments;
	const char *const *fragments; /* fragment paths, applied in order */
	const char *cache_dir; /* resolved-config cache; NULL: the default
				* ${XDG_CACHE_HOME:-$HOME/.cache}/kbisect/
				* configs; "" disables the cache */
	const char *make;      /* the make program; NULL: "make" */
	size_t nmake_args;     /* build.make_args, as the build gets them */
	const char *const *make_args; /* its "NAME=value" items for the make
				       * variables Kconfig reads (CC, LD,
				       * CROSS_COMPILE, LLVM, LLVM_IAS, AR,
				       * NM, OBJCOPY, RUSTC, BINDGEN, PAHOLE,
				       * USERCFLAGS, USERLDFLAGS, HOSTCC,
				       * HOSTCXX) go on make's command line;
				       * the others are left out */
};
#define KB_KCONFIG_RESOLVE_OPTS_INIT \
	{ .tree = NULL, .nmake_args = 0, .make_args = NULL }

/* One requested option and what became of it. */
struct kb_kconfig_outcome {
	char *name;      /* symbol, without CONFIG_ */
	char *requested; /* the level asked for */
	char *resolved;  /* the level in the resolved .config ("n" if absent) */
	int held;        /* resolved matches requested */
	char *reason;    /* why it did not hold (NULL when it held) */
	char *fix;       /* .config lines that would make it hold, or NULL */
};

struct kb_kconfig_resolution {
	struct kb_kconfig *config;  /* the resolved configuration */
	char *config_text;          /* the resolved .config as make wrote it */
	char digest[KB_SHA256_HEX_LEN + 1]; /* kb_kconfig_digest(config) */
	size_t noutcomes;
	struct kb_kconfig_outcome *outcomes; /* one per Kconfig setting, in
					      * the order given */
	int cached;                 /* read from the cache: make not run */
	double seconds;             /* time spent (0 when cached) */
};

/*
 * Resolve one variant: write base (copied, or `make -C tree O=odir
 * ARCH=arch [VARS] TARGET`), the fragments and the Kconfig @settings
 * (entries whose kind is not KB_FACTOR_KCONFIG are skipped) into
 * odir/.config, run `make -C tree O=odir ARCH=arch [VARS] olddefconfig`,
 * read odir/.config back and compare every requested setting with it;
 * @syms (may be NULL) gives the reasons.  VARS are the make_args items
 * that Kconfig reads (see struct kb_kconfig_resolve_opts), so Kconfig
 * probes the compiler the build will use.  make's output goes to
 * odir/kbisect-kconfig.log.  Results are cached by a digest of (tree id,
 * arch, the version of kb_toolchain_cc(make_args), VARS, base,
 * base/fragment contents, settings): a config resolved for one compiler
 * is never reused for another.
 *
 * Returns 0 with *@out (free with kb_kconfig_resolution_free()), KB_EINPUT
 * for a malformed base or fragment, or KB_EFAIL (make failed: the message
 * holds the log's last lines; or the compiler's version could not be
 * read).
 */
int kb_kconfig_resolve(const struct kb_kconfig_resolve_opts *opts,
		       const struct kb_setting *settings, size_t nsettings,
		       const struct kb_ksyms *syms,
		       struct kb_kconfig_resolution **out,
		       struct kb_err *err);

void kb_kconfig_resolution_free(struct kb_kconfig_resolution *r);

/* The default resolution cache folder.  Caller frees. */
char *kb_kconfig_default_cache_dir(void);

/*
 * Compare @requested settings (Kconfig kinds only) with @resolved, filling
 * @out[0..] (at most @nsettings entries; returns how many were filled).
 * Used by kb_kconfig_resolve(); exposed for tests.  The caller releases
 * the entries with kb_kconfig_outcome_release().
 */
size_t kb_kconfig_compare(const struct kb_setting *settings,
			  size_t nsettings, const struct kb_kconfig *resolved,
			  const struct kb_ksyms *syms,
			  struct kb_kconfig_outcome *out);

void kb_kconfig_outcome_release(struct kb_kconfig_outcome *o);

/*
 * What of @res did not hold, "config does not hold: CONFIG_X=y (resolved
 * n: depends on Y), ...", or NULL when everything did: the reason a
 * probe whose changes do not hold is not built (real kernels and the
 * model on a tree alike).  Caller frees.
 */
char *kb_kconfig_not_held(const struct kb_kconfig_resolution *res);

#endif
