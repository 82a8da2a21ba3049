#ifndef KB_BISECT_TREE_H
#define KB_BISECT_TREE_H

struct kb_bisect_opts;
struct kb_err;
struct kb_kconfig;
struct kb_matrix;

/*
 * An option bisection on a kernel tree: what `bisect options` runs with
 * on real kernels and on the model with source.tree alike
 * (docs/bisect.md, "On real kernels", "On the model with a tree").  Each
 * end is the .config given, resolved alone by the tree's own Kconfig
 * (olddefconfig, through a plan of the matrix's variant 0 without its
 * Kconfig settings: at its kernel.rev when it sets one); the good one is
 * written where the probes are resolved from; the tree's symbols give
 * the changes' dependencies and tell derived options.
 */
struct kb_bisect_tree;

/*
 * Begin one for matrix @m (borrowed; it must outlive the result), which
 * must have source.tree (the caller says why it needs one).  Returns 0
 * with *@out (kb_bisect_tree_free()).
 */
int kb_bisect_tree_new(const struct kb_matrix *m,
		       struct kb_bisect_tree **out, struct kb_err *err);

/*
 * Resolve end @which (0 good, 1 bad), the .config at @path, alone.
 * Returns 0, or the resolution's error (kb_plan_resolve()).
 */
int kb_bisect_tree_resolve(struct kb_bisect_tree *t, int which,
			   const char *path, struct kb_err *err);

/*
 * Once both ends are resolved: write the good end as resolved to the
 * bisect cache (kb_cache_dir("bisect")/good-DIGEST.config) and scan the
 * tree's symbols.  Returns 0, KB_EFAIL or KB_EINPUT (kb_kconfig_tree_scan).
 */
int kb_bisect_tree_finish(struct kb_bisect_tree *t, struct kb_err *err);

/* End @which as resolved (owned by @t), or NULL before it is. */
const struct kb_kconfig *kb_bisect_tree_end(const struct kb_bisect_tree *t,
					    int which);

/* The good end's file as resolved, the probes' base config (after
 * kb_bisect_tree_finish(); owned by @t). */
const char *kb_bisect_tree_good_file(const struct kb_bisect_tree *t);

/* The tree's id (lib/source.h) the ends were resolved in (owned by @t). */
const char *kb_bisect_tree_id(const struct kb_bisect_tree *t);

/*
 * A build salt: @head (the matrix's text; the model's and the matrix's),
 * then the tree id and the compiler the ends were resolved with, so that
 * builds are shared only between probes of one tree and compiler.
 * Caller frees.
 */
char *kb_bisect_tree_salt(const struct kb_bisect_tree *t, const char *head);

/*
 * Fill @o's changes from the tree (after kb_bisect_tree_finish()): its
 * dependencies (kb_ksyms_requires()), the options no prompt sets
 * (kb_ksyms_has_prompt()), changes only to the executor (it resolves
 * each probe from the good end), and the baseline variant's other
 * settings and guest shape.  Borrowed from @t, which must outlive the
 * bisection.
 */
void kb_bisect_tree_opts(struct kb_bisect_tree *t, struct kb_bisect_opts *o);

void kb_bisect_tree_free(struct kb_bisect_tree *t);

#endif
