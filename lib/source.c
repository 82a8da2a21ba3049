#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "paths.h"
#include "sha256.h"
#include "banned.h"

/* Caps on what a plain tree may hold (linux 6.1 has ~80k files). */
#define MAX_PLAIN_FILES 2000000
#define MAX_PLAIN_DEPTH 64

struct kb_source_tree {
	char *dir;     /* what to build from */
	char *tree_id; /* "git:<oid>" or "plain:<sha256>" */
	char *commit;  /* git only */
	int is_git;
};

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file_in(const char *dir, const char *name)
{
	struct stat st;
	char *p = kb_asprintf("%s/%s", dir, name);
	int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return ok;
}

static int check_kernel_tree(const char *dir, const char *what,
			     struct kb_err *err)
{
	if (!is_file_in(dir, "Makefile") || !is_file_in(dir, "Kconfig"))
		return kb_err_set(err, KB_EINPUT,
				  "'%s' is not a kernel tree: %s has no top-level Makefile and Kconfig",
				  dir, what);
	return 0;
}

char *kb_source_default_trees_dir(void)
{
	return kb_cache_dir("trees");
}

/* ---- plain trees --------------------------------------------------------- */

struct walk {
	char **lines;
	size_t n, alloc;
	struct kb_err *err;
};

static void add_line(struct walk *w, char *line)
{
	if (w->n == w->alloc) {
		w->alloc = w->alloc ? w->alloc * 2 : 4096;
		w->lines = kb_reallocarray(w->lines, w->alloc,
					   sizeof(*w->lines));
	}
	w->lines[w->n++] = line;
}

/* Record every file under @root/@rel (rel "" for the top). */
static int walk_dir(struct walk *w, const char *root, const char *rel,
		    unsigned depth)
{
	char *path = *rel ? kb_asprintf("%s/%s", root, rel) : kb_strdup(root);
	DIR *d = NULL;
	struct dirent *e;
	int ret = 0;

	if (depth > MAX_PLAIN_DEPTH) {
		ret = kb_err_set(w->err, KB_EFAIL,
				 "'%s' is nested deeper than %d folders", path,
				 MAX_PLAIN_DEPTH);
		goto out;
	}
	if (!(d = opendir(path))) {
		ret = kb_err_set(w->err, KB_EFAIL, "cannot read '%s': %s",
				 path, strerror(errno));
		goto out;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *sub, *full;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = *rel ? kb_asprintf("%s/%s", rel, e->d_name)
			   : kb_strdup(e->d_name);
		full = kb_asprintf("%s/%s", root, sub);
		if (lstat(full, &st) < 0) {
			ret = kb_err_set(w->err, KB_EFAIL,
					 "cannot stat '%s': %s", full,
					 strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk_dir(w, root, sub, depth + 1);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t len = readlink(full, target,
					       sizeof(target) - 1);

			target[len > 0 ? len : 0] = '\0';
			add_line(w, kb_asprintf("%s\tlink\t%s", sub, target));
		} else if (S_ISREG(st.st_mode)) {
			add_line(w, kb_asprintf("%s\t%lld\t%lld", sub,
						(long long)st.st_size,
						(long long)st.st_mtime));
		}
		free(full);
		free(sub);
		if (!ret && w->n > MAX_PLAIN_FILES)
			ret = kb_err_set(w->err, KB_EFAIL,
					 "'%s' holds more than %d files", root,
					 MAX_PLAIN_FILES);
		if (ret)
			break;
	}
out:
	if (d)
		closedir(d);
	free(path);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kb_source_plain_tree_id(const char *dir, char **out, struct kb_err *err)
{
	struct walk w = { NULL, 0, 0, err };
	struct kb_sha256 c;
	unsigned char digest[KB_SHA256_LEN];
	char hex[KB_SHA256_HEX_LEN + 1];
	size_t i;
	int ret;

	*out = NULL;
	if ((ret = walk_dir(&w, dir, "", 0)))
		goto out;
	qsort(w.lines, w.n, sizeof(*w.lines), cmp_str);
	kb_sha256_init(&c);
	kb_sha256_update(&c, "kbisect-plain-tree-v1\n", 22);
	for (i = 0; i < w.n; i++) {
		kb_sha256_update(&c, w.lines[i], strlen(w.lines[i]));
		kb_sha256_update(&c, "\n", 1);
	}
	kb_sha256_final(&c, digest);
	for (i = 0; i < KB_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	*out = kb_asprintf("plain:%s", hex);
out:
	for (i = 0; i < w.n; i++)
		free(w.lines[i]);
	free(w.lines);
	return ret;
}

/* ---- git ----------------------------------------------------------------- */

static int git_fail(struct kb_err *err, int code, const char *what,
		    const char *subject)
{
	const git_error *e = git_error_last();

	return kb_err_set(err, code, "%s '%s': %s", what, subject,
			  e && e->message ? e->message : "libgit2 error");
}

/* Does the work tree of @repo differ from HEAD in tracked files? */
static int repo_dirty(git_repository *repo, const char *path, int *dirty,
		      struct kb_err *err)
{
	git_status_options opts;
	git_status_list *list = NULL;

	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (git_status_list_new(&list, repo, &opts) < 0)
		return git_fail(err, KB_EFAIL, "cannot read the status of",
				path);
	*dirty = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	return 0;
}

/* Check @tree out into @dest, through a temporary folder beside it. */
static int checkout(git_repository *repo, git_tree *tree, const char *dest,
		    struct kb_err *err)
{
	git_checkout_options opts;
	char *tmp = kb_asprintf("%s.tmp%ld", dest, (long)getpid());
	int ret = 0;

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	if ((ret = kb_mkdir_p(tmp, err)))
		goto out;
	opts.checkout_strategy = GIT_CHECKOUT_FORCE |
				 GIT_CHECKOUT_DONT_UPDATE_INDEX |
				 GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	opts.target_directory = tmp;
	if (git_checkout_tree(repo, (const git_object *)tree, &opts) < 0) {
		ret = git_fail(err, KB_EFAIL, "cannot check out into", tmp);
		goto out;
	}
	if (rename(tmp, dest) < 0 && !is_dir(dest))
		ret = kb_err_set(err, KB_EFAIL, "cannot rename '%s' to '%s': %s",
				 tmp, dest, strerror(errno));
out:
	/* a failed or superfluous checkout leaves tmp behind: rmdir if empty */
	if (is_dir(tmp))
		rmdir(tmp);
	free(tmp);
	return ret;
}

static int open_git(git_repository *repo, const char *path, const char *rev,
		    const char *trees_dir, struct kb_source_tree *t,
		    struct kb_err *err)
{
	git_object *obj = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	char oid[GIT_OID_HEXSZ + 1];
	char *def = NULL, *dest = NULL;
	int ret = 0, dirty = 0;

	if (!rev && !git_repository_is_bare(repo)) {
		if ((ret = repo_dirty(repo, path, &dirty, err)))
			goto out;
		if (dirty) {
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s' has uncommitted changes: commit them, or name the revision to build with source.rev",
					 path);
			goto out;
		}
	}
	if (git_revparse_single(&obj, repo, rev ? rev : "HEAD") < 0) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "unknown revision '%s' in '%s'",
				 rev ? rev : "HEAD", path);
		goto out;
	}
	if (git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT) <
	    0) {
		ret = kb_err_set(err, KB_EINPUT,
				 "revision '%s' in '%s' is not a commit",
				 rev ? rev : "HEAD", path);
		goto out;
	}
	if (git_commit_tree(&tree, commit) < 0) {
		ret = git_fail(err, KB_EFAIL, "cannot read the tree of", path);
		goto out;
	}
	git_oid_tostr(oid, sizeof(oid), git_commit_id(commit));
	t->commit = kb_strdup(oid);
	git_oid_tostr(oid, sizeof(oid), git_tree_id(tree));
	t->tree_id = kb_asprintf("git:%s", oid);
	if (!git_tree_entry_byname(tree, "Makefile") ||
	    !git_tree_entry_byname(tree, "Kconfig")) {
		ret = kb_err_set(err, KB_EINPUT,
				 "'%s' is not a kernel tree: revision '%s' has no top-level Makefile and Kconfig",
				 path, rev ? rev : "HEAD");
		goto out;
	}
	if (!trees_dir)
		trees_dir = def = kb_source_default_trees_dir();
	dest = kb_asprintf("%s/%s", trees_dir, oid);
	if (!is_dir(dest) && (ret = checkout(repo, tree, dest, err)))
		goto out;
	t->dir = dest;
	dest = NULL;
	t->is_git = 1;
out:
	free(dest);
	free(def);
	git_tree_free(tree);
	git_commit_free(commit);
	git_object_free(obj);
	return ret;
}

int kb_source_open(const char *tree, const char *rev, const char *trees_dir,
		   struct kb_source_tree **out, struct kb_err *err)
{
	struct kb_source_tree *t = kb_calloc(1, sizeof(*t));
	git_repository *repo = NULL;
	int ret, rc;

	*out = NULL;
	git_libgit2_init();
	if (!is_dir(tree)) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "kernel tree '%s' does not exist", tree);
		goto out;
	}
	rc = git_repository_open_ext(&repo, tree,
				     GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (rc == 0) {
		ret = open_git(repo, tree, rev, trees_dir, t, err);
		goto out;
	}
	if (rc != GIT_ENOTFOUND) {
		ret = git_fail(err, KB_EFAIL, "cannot open the repository",
			       tree);
		goto out;
	}
	if (rev) {
		ret = kb_err_set(err, KB_EINPUT,
				 "source.rev '%s' needs a git repository, and '%s' is a plain folder",
				 rev, tree);
		goto out;
	}
	if ((ret = check_kernel_tree(tree, "it", err)) ||
	    (ret = kb_source_plain_tree_id(tree, &t->tree_id, err)))
		goto out;
	t->dir = kb_strdup(tree);
out:
	git_repository_free(repo);
	git_libgit2_shutdown();
	if (ret == 0) {
		*out = t;
		t = NULL;
	}
	kb_source_tree_free(t);
	return ret;
}

void kb_source_tree_free(struct kb_source_tree *t)
{
	if (!t)
		return;
	free(t->dir);
	free(t->tree_id);
	free(t->commit);
	free(t);
}

const char *kb_source_dir(const struct kb_source_tree *t)
{
	return t->dir;
}

const char *kb_source_tree_id(const struct kb_source_tree *t)
{
	return t->tree_id;
}

int kb_source_is_git(const struct kb_source_tree *t)
{
	return t->is_git;
}

const char *kb_source_commit(const struct kb_source_tree *t)
{
	return t->commit;
}

/* ---- commit ranges (commit bisection) ------------------------------------ */

void kb_source_commits_free(struct kb_source_commit *c, size_t n)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < n; i++) {
		free(c[i].sha);
		free(c[i].summary);
	}
	free(c);
}

/* Open the git repository at @tree (not searching upwards). */
static int open_repo(const char *tree, git_repository **repo,
		     struct kb_err *err)
{
	int rc;

	*repo = NULL;
	if (!is_dir(tree))
		return kb_err_set(err, KB_ENOTFOUND,
				  "kernel tree '%s' does not exist", tree);
	rc = git_repository_open_ext(repo, tree,
				     GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (rc == GIT_ENOTFOUND)
		return kb_err_set(err, KB_EINPUT,
				  "'%s' is not a git repository: bisecting commits needs one",
				  tree);
	if (rc < 0)
		return git_fail(err, KB_EFAIL, "cannot open the repository",
				tree);
	return 0;
}

/* Resolve @rev to the oid of a commit. */
static int resolve_commit(git_repository *repo, const char *tree,
			  const char *rev, git_oid *oid, struct kb_err *err)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = 0;

	if (git_revparse_single(&obj, repo, rev) < 0)
		return kb_err_set(err, KB_ENOTFOUND,
				  "unknown revision '%s' in '%s'", rev, tree);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		ret = kb_err_set(err, KB_EINPUT,
				 "revision '%s' in '%s' is not a commit", rev,
				 tree);
	else
		git_oid_cpy(oid, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return ret;
}

/* Fill @c with commit @oid's sha and summary. */
static int describe(git_repository *repo, const git_oid *oid,
		    struct kb_source_commit *c, struct kb_err *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_commit *commit = NULL;
	const char *summary;

	git_oid_tostr(hex, sizeof(hex), oid);
	if (git_commit_lookup(&commit, repo, oid) < 0)
		return git_fail(err, KB_EFAIL, "cannot read commit", hex);
	summary = git_commit_summary(commit);
	c->sha = kb_strdup(hex);
	c->summary = kb_strdup(summary ? summary : "");
	git_commit_free(commit);
	return 0;
}

int kb_source_resolve(const char *tree, const char *rev,
		      struct kb_source_commit **out, struct kb_err *err)
{
	struct kb_source_commit *c = kb_calloc(1, sizeof(*c));
	git_repository *repo = NULL;
	git_oid oid;
	int ret;

	*out = NULL;
	git_libgit2_init();
	if ((ret = open_repo(tree, &repo, err)) ||
	    (ret = resolve_commit(repo, tree, rev, &oid, err)) ||
	    (ret = describe(repo, &oid, c, err)))
		goto out;
	*out = c;
	c = NULL;
out:
	kb_source_commits_free(c, 1);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int kb_source_resolve_time(const char *tree, const char *rev,
			   struct kb_source_commit **out, int64_t *time,
			   struct kb_err *err)
{
	struct kb_source_commit *c = kb_calloc(1, sizeof(*c));
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_oid oid;
	int ret;

	*out = NULL;
	*time = 0;
	git_libgit2_init();
	if ((ret = open_repo(tree, &repo, err)) ||
	    (ret = resolve_commit(repo, tree, rev, &oid, err)) ||
	    (ret = describe(repo, &oid, c, err)))
		goto out;
	if (git_commit_lookup(&commit, repo, &oid) < 0) {
		ret = git_fail(err, KB_EFAIL, "cannot read commit", c->sha);
		goto out;
	}
	*time = (int64_t)git_commit_time(commit);
	*out = c;
	c = NULL;
out:
	git_commit_free(commit);
	kb_source_commits_free(c, 1);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

int kb_source_commits(const char *tree, const char *good, const char *bad,
		      struct kb_source_commit **out, size_t *n,
		      struct kb_err *err)
{
	struct kb_source_commit *list = NULL;
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid g, b, oid;
	size_t count = 0;
	int ret, rc;

	*out = NULL;
	*n = 0;
	git_libgit2_init();
	if ((ret = open_repo(tree, &repo, err)) ||
	    (ret = resolve_commit(repo, tree, good, &g, err)) ||
	    (ret = resolve_commit(repo, tree, bad, &b, err)))
		goto out;
	if (git_oid_equal(&g, &b)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "the good revision '%s' and the bad revision '%s' are the same commit: nothing to bisect",
				 good, bad);
		goto out;
	}
	rc = git_graph_descendant_of(repo, &b, &g);
	if (rc < 0) {
		ret = git_fail(err, KB_EFAIL, "cannot walk the history of",
			       tree);
		goto out;
	}
	if (rc == 0) {
		ret = kb_err_set(err, KB_EINPUT,
				 "the bad revision '%s' does not descend from the good revision '%s' in '%s': give a good commit that is an ancestor of the bad one",
				 bad, good, tree);
		goto out;
	}
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL |
					      GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(walk, &b) < 0 || git_revwalk_hide(walk, &g) < 0) {
		ret = git_fail(err, KB_EFAIL, "cannot walk the history of",
			       tree);
		goto out;
	}
	list = kb_calloc(1, sizeof(*list));
	if ((ret = describe(repo, &g, &list[0], err)))
		goto out;
	count = 1;
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		if (count >= KB_SOURCE_MAX_COMMITS) {
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s..%s' holds more than %d commits",
					 good, bad, KB_SOURCE_MAX_COMMITS);
			goto out;
		}
		list = kb_reallocarray(list, count + 1, sizeof(*list));
		memset(&list[count], 0, sizeof(*list));
		if ((ret = describe(repo, &oid, &list[count], err)))
			goto out;
		count++;
	}
	if (rc != GIT_ITEROVER) {
		ret = git_fail(err, KB_EFAIL, "cannot walk the history of",
			       tree);
		goto out;
	}
	*out = list;
	*n = count;
	list = NULL;
out:
	kb_source_commits_free(list, count);
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}
