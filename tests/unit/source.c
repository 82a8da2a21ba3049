#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "mem.h"
#include "source.h"

/* Each test works in its own temporary folder, removed afterwards. */
static char *tmp;

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	tmp = kb_test_tmpdir("source");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kb_test_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

/* A plain kernel-like tree at tmp/plain. */
static char *make_plain(void)
{
	char *dir = kb_asprintf("%s/plain", tmp);
	char *sub = kb_asprintf("%s/kernel", dir);

	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	kb_test_put(dir, "Makefile", "all:\n");
	kb_test_put(dir, "Kconfig", "config FOO\n\tbool \"foo\"\n");
	kb_test_put(sub, "sched.c", "int x;\n");
	free(sub);
	return dir;
}

/*
 * A git repository at tmp/repo with two commits: v1 (tag) and HEAD
 * (branch main, and branch "feature" at v1).
 */
static char *make_repo(void)
{
	char *dir = kb_asprintf("%s/repo", tmp);

	assert_int_equal(mkdir(dir, 0755), 0);
	kb_test_git(dir, "init", "-q", NULL, NULL);
	kb_test_put(dir, "Makefile", "all:\n");
	kb_test_put(dir, "Kconfig", "config FOO\n\tbool \"foo\"\n");
	kb_test_put(dir, "version", "one\n");
	kb_test_git(dir, "add", "-A", NULL, NULL);
	kb_test_git(dir, "commit", "-q", "-m", "one");
	kb_test_git(dir, "tag", "v1", NULL, NULL);
	kb_test_git(dir, "branch", "feature", NULL, NULL);
	kb_test_put(dir, "version", "two\n");
	kb_test_git(dir, "commit", "-q", "-am", "two");
	return dir;
}

/* `git rev-parse REV` of @repo, through a file. */
static char *rev_parse(const char *repo, const char *rev)
{
	char *out = kb_asprintf("%s/rev-parse.out", tmp);
	char *argv[] = { "sh", "-c", "git -C \"$1\" rev-parse \"$2\" > \"$3\"",
			 "sh", (char *)repo, (char *)rev, out, NULL };
	char *text, *nl;

	assert_int_equal(kb_test_run(argv), 0);
	text = kb_strdup(read_text(out));
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	free(out);
	return text;
}

static struct kb_source_tree *open_ok(const char *tree, const char *rev)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_source_tree *t = NULL;
	char *trees = kb_asprintf("%s/trees", tmp);

	if (kb_source_open(tree, rev, trees, &t, &err))
		fail_msg("unexpected error: %s", err.msg);
	free(trees);
	return t;
}

static void open_err(const char *tree, const char *rev, int code,
		     const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_source_tree *t = NULL;
	char *trees = kb_asprintf("%s/trees", tmp);

	assert_int_equal(kb_source_open(tree, rev, trees, &t, &err), code);
	assert_null(t);
	assert_msg_contains(err.msg, expect);
	free(trees);
}

static void test_source__plain_tree_builds_in_place(void **state)
{
	char *dir = make_plain();
	struct kb_source_tree *t = open_ok(dir, NULL);

	(void)state;
	assert_false(kb_source_is_git(t));
	assert_string_equal(kb_source_dir(t), dir);
	assert_null(kb_source_commit(t));
	assert_int_equal(strncmp(kb_source_tree_id(t), "plain:", 6), 0);
	assert_int_equal(strlen(kb_source_tree_id(t)), 6 + 64);
	kb_source_tree_free(t);
	free(dir);
}

static void test_source__plain_tree_id_is_stable(void **state)
{
	char *dir = make_plain();
	struct kb_source_tree *a = open_ok(dir, NULL), *b = open_ok(dir, NULL);

	(void)state;
	assert_string_equal(kb_source_tree_id(a), kb_source_tree_id(b));
	kb_source_tree_free(a);
	kb_source_tree_free(b);
	free(dir);
}

static void test_source__plain_tree_id_changes_with_a_file(void **state)
{
	char *dir = make_plain(), *sub = kb_asprintf("%s/kernel", dir);
	struct kb_source_tree *a = open_ok(dir, NULL), *b;

	(void)state;
	kb_test_put(sub, "sched.c", "int x, y;\n");
	b = open_ok(dir, NULL);
	assert_string_not_equal(kb_source_tree_id(a), kb_source_tree_id(b));
	kb_source_tree_free(a);
	kb_source_tree_free(b);
	free(sub);
	free(dir);
}

static void test_source__plain_tree_id_ignores_the_folder_name(void **state)
{
	char *dir = make_plain(), *moved = kb_asprintf("%s/moved", tmp);
	char *argv[] = { "cp", "-a", dir, moved, NULL };
	struct kb_source_tree *a = open_ok(dir, NULL), *b;

	(void)state;
	assert_int_equal(kb_test_run(argv), 0);
	b = open_ok(moved, NULL);
	assert_string_equal(kb_source_tree_id(a), kb_source_tree_id(b));
	kb_source_tree_free(a);
	kb_source_tree_free(b);
	free(moved);
	free(dir);
}

static void test_source__missing_path_is_not_found(void **state)
{
	char *dir = kb_asprintf("%s/nowhere", tmp);

	(void)state;
	open_err(dir, NULL, KB_ENOTFOUND, "does not exist");
	free(dir);
}

static void test_source__folder_without_kconfig_is_not_a_tree(void **state)
{
	char *dir = kb_asprintf("%s/src", tmp);

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	kb_test_put(dir, "Makefile", "all:\n");
	open_err(dir, NULL, KB_EINPUT,
		 "is not a kernel tree: it has no top-level Makefile and Kconfig");
	free(dir);
}

static void test_source__rev_on_a_plain_tree_is_refused(void **state)
{
	char *dir = make_plain();

	(void)state;
	open_err(dir, "v1", KB_EINPUT, "source.rev 'v1' needs a git repository");
	free(dir);
}

static void test_source__git_tree_id_is_the_tree_oid(void **state)
{
	char *repo = make_repo();
	char *oid = rev_parse(repo, "HEAD^{tree}");
	char *commit = rev_parse(repo, "HEAD");
	char *want = kb_asprintf("git:%s", oid);
	struct kb_source_tree *t = open_ok(repo, NULL);

	(void)state;
	assert_true(kb_source_is_git(t));
	assert_string_equal(kb_source_tree_id(t), want);
	assert_string_equal(kb_source_commit(t), commit);
	free(want);
	free(commit);
	free(oid);
	kb_source_tree_free(t);
	free(repo);
}

static void test_source__revisions_resolve(void **state)
{
	char *repo = make_repo();
	char *v1 = rev_parse(repo, "v1^{tree}"), *head;
	char *sha = rev_parse(repo, "v1^{commit}");
	const char *revs[] = { "v1", "feature", "HEAD~1", "main~1", sha };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(revs) / sizeof(revs[0]); i++) {
		struct kb_source_tree *t = open_ok(repo, revs[i]);

		assert_string_equal(kb_source_tree_id(t) + 4, v1);
		assert_string_equal(kb_source_commit(t), sha);
		kb_source_tree_free(t);
	}
	head = rev_parse(repo, "HEAD^{tree}");
	assert_string_not_equal(head, v1);
	free(head);
	free(sha);
	free(v1);
	free(repo);
}

static void test_source__checkout_has_the_revision_files(void **state)
{
	char *repo = make_repo(), *path;
	struct kb_source_tree *t = open_ok(repo, "v1");

	(void)state;
	assert_int_equal(strncmp(kb_source_dir(t), tmp, strlen(tmp)), 0);
	assert_non_null(strstr(kb_source_dir(t), "/trees/"));
	path = kb_asprintf("%s/version", kb_source_dir(t));
	assert_string_equal(read_text(path), "one\n");
	free(path);
	/* the user's own working tree is untouched */
	path = kb_asprintf("%s/version", repo);
	assert_string_equal(read_text(path), "two\n");
	free(path);
	kb_source_tree_free(t);
	free(repo);
}

static void test_source__checkout_is_reused(void **state)
{
	char *repo = make_repo(), *mark;
	struct kb_source_tree *a = open_ok(repo, "v1"), *b;

	(void)state;
	kb_test_put(kb_source_dir(a), "marker", "kept\n");
	b = open_ok(repo, "feature");
	assert_string_equal(kb_source_dir(a), kb_source_dir(b));
	mark = kb_asprintf("%s/marker", kb_source_dir(b));
	assert_string_equal(read_text(mark), "kept\n");
	free(mark);
	kb_source_tree_free(a);
	kb_source_tree_free(b);
	free(repo);
}

static void test_source__unknown_revision_is_not_found(void **state)
{
	char *repo = make_repo();

	(void)state;
	open_err(repo, "v9.9", KB_ENOTFOUND, "unknown revision 'v9.9'");
	free(repo);
}

static void test_source__dirty_worktree_without_rev_is_refused(void **state)
{
	char *repo = make_repo();
	struct kb_source_tree *t;

	(void)state;
	kb_test_put(repo, "version", "three\n");
	open_err(repo, NULL, KB_EINPUT, "has uncommitted changes");
	/* naming the revision says which tree is meant */
	t = open_ok(repo, "HEAD");
	kb_source_tree_free(t);
	free(repo);
}

static void test_source__untracked_files_are_not_dirt(void **state)
{
	char *repo = make_repo();
	struct kb_source_tree *t;

	(void)state;
	kb_test_put(repo, "notes.txt", "mine\n");
	t = open_ok(repo, NULL);
	kb_source_tree_free(t);
	free(repo);
}

static void test_source__git_revision_without_kconfig_is_refused(void **state)
{
	char *dir = kb_asprintf("%s/other", tmp);

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	kb_test_git(dir, "init", "-q", NULL, NULL);
	kb_test_put(dir, "README", "hi\n");
	kb_test_git(dir, "add", "-A", NULL, NULL);
	kb_test_git(dir, "commit", "-q", "-m", "one");
	open_err(dir, NULL, KB_EINPUT, "is not a kernel tree");
	free(dir);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(test_source__plain_tree_builds_in_place),
	T(test_source__plain_tree_id_is_stable),
	T(test_source__plain_tree_id_changes_with_a_file),
	T(test_source__plain_tree_id_ignores_the_folder_name),
	T(test_source__missing_path_is_not_found),
	T(test_source__folder_without_kconfig_is_not_a_tree),
	T(test_source__rev_on_a_plain_tree_is_refused),
	T(test_source__git_tree_id_is_the_tree_oid),
	T(test_source__revisions_resolve),
	T(test_source__checkout_has_the_revision_files),
	T(test_source__checkout_is_reused),
	T(test_source__unknown_revision_is_not_found),
	T(test_source__dirty_worktree_without_rev_is_refused),
	T(test_source__untracked_files_are_not_dirt),
	T(test_source__git_revision_without_kconfig_is_refused),
};

KB_TEST_MAIN(tests)
