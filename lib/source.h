#ifndef KB_SOURCE_H
#define KB_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;

/*
 * Kernel sources: the tree a variant is built from.  source.tree is either
 * a git repository, with source.rev naming any revision (tag, branch, sha,
 * "HEAD~3"; HEAD when absent), or a plain kernel tree such as the
 * extracted linux-source tarball.  This is the only module that includes
 * <git2.h>.
 *
 * A git revision is materialised for building by checking its tree out
 * into a cache folder, TREES/<tree-oid>, once; later experiments reuse it.
 * The user's own working tree, index and HEAD are never touched.  A plain
 * tree is built where it is (out of tree, with O=).
 *
 * Every source has a stable tree id (docs/builds.md):
 *   git:   "git:" + the 40 hex digits of the revision's tree oid;
 *   plain: "plain:" + the SHA-256 of the sorted list of every regular
 *          file's relative path, size and mtime (seconds), and of every
 *          symlink's path and target.  Extracting the same tarball again
 *          restores the same mtimes, so the id is the same; editing a file
 *          changes it.
 */

struct kb_source_tree;

/*
 * Open the kernel source at @tree (a git repository or a plain tree) at
 * git revision @rev (NULL: HEAD; must be NULL for a plain tree).
 * @trees_dir is the cache folder for checkouts (NULL: the default,
 * ${XDG_CACHE_HOME:-$HOME/.cache}/kbisect/trees); it is only written when
 * a git revision is not checked out yet.
 *
 * Errors: KB_ENOTFOUND for a missing path or an unknown revision;
 * KB_EINPUT for a path that is not a kernel tree (no top-level Makefile
 * and Kconfig), a revision given for a plain tree, or a git repository
 * with uncommitted changes to tracked files when no revision is given;
 * KB_EFAIL otherwise.  On success *@out is the caller's to
 * kb_source_tree_free().
 */
int kb_source_open(const char *tree, const char *rev, const char *trees_dir,
		   struct kb_source_tree **out, struct kb_err *err);

void kb_source_tree_free(struct kb_source_tree *t);

/* The folder to build from (the checkout or the plain tree). */
const char *kb_source_dir(const struct kb_source_tree *t);

/* The tree id ("git:<oid>" or "plain:<sha256>"). */
const char *kb_source_tree_id(const struct kb_source_tree *t);

/* Whether the source is a git repository. */
int kb_source_is_git(const struct kb_source_tree *t);

/* The resolved commit's 40 hex digits, or NULL for a plain tree. */
const char *kb_source_commit(const struct kb_source_tree *t);

/*
 * The tree id of the plain folder @dir as defined above, into *@out
 * (caller frees).  Returns 0 or KB_EFAIL with the path in @err.
 */
int kb_source_plain_tree_id(const char *dir, char **out, struct kb_err *err);

/* The default checkout cache folder (see kb_source_open).  Caller frees. */
char *kb_source_default_trees_dir(void);

/* ---- commit ranges (commit bisection) ------------------------------------ */

#define KB_SOURCE_MAX_COMMITS 1000000 /* commits a range may hold */

/* One commit: its 40 hex digits and its summary (first line). */
struct kb_source_commit {
	char *sha;
	char *summary;
};

/* Free @n commits at @c and the array (NULL is fine). */
void kb_source_commits_free(struct kb_source_commit *c, size_t n);

/*
 * Resolve revision @rev of the git repository @tree to a commit: its sha
 * and summary into *@out (caller releases with kb_source_commits_free(out,
 * 1)).  KB_ENOTFOUND for a missing path or an unknown revision, KB_EINPUT
 * for a plain folder or a revision that is not a commit.
 */
int kb_source_resolve(const char *tree, const char *rev,
		      struct kb_source_commit **out, struct kb_err *err);

/*
 * As kb_source_resolve(), and the commit's committer time, in seconds
 * since the epoch, into *@time: the date a trend orders revisions by
 * (lib/trend.h).
 */
int kb_source_resolve_time(const char *tree, const char *rev,
			   struct kb_source_commit **out, int64_t *time,
			   struct kb_err *err);

/*
 * The commits from @good to @bad in the git repository @tree, for
 * bisecting: the good commit first, then every commit reachable from
 * @bad and not from @good (git's good..bad) in topological order, oldest
 * first, so the bad commit is last.  On success *@out holds *@n >= 2
 * commits (caller frees with kb_source_commits_free()).  Errors:
 * KB_ENOTFOUND for an unknown revision; KB_EINPUT when @bad is not a
 * descendant of @good (or is the same commit), for a plain folder, or
 * for more than KB_SOURCE_MAX_COMMITS commits.
 */
int kb_source_commits(const char *tree, const char *good, const char *bad,
		      struct kb_source_commit **out, size_t *n,
		      struct kb_err *err);

#endif
