#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "bisect.h"
#include "bisect_tree.h"
#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "store.h"
#include "treeexec.h"

/*
 * A fake kernel tree whose olddefconfig sets the prompt-less DERIVED
 * exactly when SPIN is y (as a select would); the ends are resolved
 * there, and a bisection on the model behind the tree gets its changes,
 * derived options and probes from it.
 */
struct fixture {
	char dir[64];
	char db[96];
	char *old_cache, *tree, *good, *bad, *text;
	struct kb_matrix *m;
	struct kb_bisect_tree *t;
};

static void setup(struct fixture *f)
{
	struct kb_err err = KB_ERR_INIT;
	const char *old = getenv("XDG_CACHE_HOME");
	char *cache;

	memset(f, 0, sizeof(*f));
	kb_test_scratch_db("bisect-tree", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	f->old_cache = old ? kb_strdup(old) : NULL;
	cache = kb_asprintf("%s/cache", f->dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	f->tree = kb_asprintf("%s/linux", f->dir);
	assert_int_equal(mkdir(f->tree, 0755), 0);
	kb_test_put(f->tree, "Kconfig",
		    "config BASE\n\tbool \"base\"\n"
		    "config SPIN\n\tbool \"spin\"\n"
		    "config LEAF\n\tbool \"leaf\"\n"
		    "config DERIVED\n\tbool\n"
		    "config X64\n\tbool \"64-bit\"\n"
		    "config PAGEX\n\tbool \"page extension\"\n"
		    "config IDLE\n\tbool \"idle\"\n"
		    "\tselect PAGEX if !X64\n"
		    "config SEL\n\tbool \"sel\"\n\tselect LEAF\n");
	kb_test_put(f->tree, "Makefile",
		    "olddefconfig:\n"
		    "\t@sed -i -e '/CONFIG_DERIVED/d' -e 's/^CONFIG_SPIN=y$$/&\\nCONFIG_DERIVED=y/' $(O)/.config\n");
	f->good = kb_test_write(f->dir, "good.config",
				"CONFIG_BASE=y\nCONFIG_X64=y\n", 0644);
	/* DERIVED is in neither file: the tree sets it in the bad end */
	f->bad = kb_test_write(f->dir, "bad.config",
			       "CONFIG_BASE=y\nCONFIG_X64=y\nCONFIG_SPIN=y\nCONFIG_LEAF=y\n",
			       0644);
	f->text = kb_asprintf("source: { tree: %s }\n"
			      "workload: { command: { run: 'true' }, metric: real_s }\n",
			      f->tree);
	if (kb_matrix_parse_buffer(f->text, strlen(f->text),
				   "/tmp/kb-bisect-tree-test.yaml", &f->m,
				   &err))
		fail_msg("matrix: %s", err.msg);
	if (kb_bisect_tree_new(f->m, &f->t, &err) ||
	    kb_bisect_tree_resolve(f->t, 0, f->good, &err) ||
	    kb_bisect_tree_resolve(f->t, 1, f->bad, &err) ||
	    kb_bisect_tree_finish(f->t, &err))
		fail_msg("tree: %s", err.msg);
}

static void teardown(struct fixture *f)
{
	kb_bisect_tree_free(f->t);
	kb_matrix_free(f->m);
	if (f->old_cache)
		setenv("XDG_CACHE_HOME", f->old_cache, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	kb_test_rm_rf(f->dir);
	free(f->old_cache);
	free(f->tree);
	free(f->good);
	free(f->bad);
	free(f->text);
}

static void test_bisect_tree__ends_resolved_alone_good_written(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_kconfig *written = NULL;
	struct fixture f;
	char *salt;

	(void)state;
	setup(&f);
	assert_null(kb_kconfig_get(kb_bisect_tree_end(f.t, 0), "DERIVED"));
	assert_string_equal(kb_kconfig_get(kb_bisect_tree_end(f.t, 1),
					   "DERIVED"),
			    "y");
	/* the good end as resolved, where the probes start from */
	assert_int_equal(kb_kconfig_load(kb_bisect_tree_good_file(f.t),
					 &written, &err),
			 0);
	assert_string_equal(kb_kconfig_get(written, "BASE"), "y");
	kb_kconfig_free(written);
	salt = kb_bisect_tree_salt(f.t, "head");
	assert_non_null(strstr(salt, "head\ntree="));
	assert_non_null(strstr(salt, kb_bisect_tree_id(f.t)));
	assert_non_null(strstr(salt, "\ncompiler="));
	free(salt);
	kb_bisect_tree_opts(f.t, &o);
	assert_true(o.changes_only);
	assert_non_null(o.depends);
	assert_true(o.settable(o.depends_arg, "SPIN"));
	assert_false(o.settable(o.depends_arg, "DERIVED"));
	teardown(&f);
}

/* Whether @name is among the @n dependencies at @on. */
static int among(const char *const *on, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(on[i], name))
			return 1;
	return 0;
}

/*
 * A select under a condition neither end meets ties nothing (on x86_64,
 * `select PAGE_EXTENSION if !64BIT` tied IDLE_PAGE_TRACKING to
 * PAGE_EXTENSION); an unconditional one still ties.
 */
static void test_bisect_tree__select_never_met_ties_nothing(void **state)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_ksyms *syms = NULL;
	const char *const *on, *cond;
	struct fixture f;
	size_t n;

	(void)state;
	setup(&f);
	/* the tree's symbols: IDLE selects PAGEX under !X64, SEL LEAF */
	assert_int_equal(kb_kconfig_tree_scan(f.tree, NULL, &syms, &err), 0);
	assert_int_equal(kb_ksyms_select_if(syms, "PAGEX", "IDLE", &cond), 1);
	assert_string_equal(cond, "!X64");
	assert_int_equal(kb_ksyms_select_if(syms, "LEAF", "SEL", &cond), 1);
	assert_null(cond);
	assert_int_equal(kb_ksyms_select_if(syms, "LEAF", "IDLE", &cond), 0);
	n = kb_ksyms_requires(syms, "PAGEX", &on);
	assert_true(among(on, n, "IDLE"));
	kb_ksyms_free(syms);
	/* both ends have X64=y: the bisection's dependencies leave IDLE out */
	kb_bisect_tree_opts(f.t, &o);
	n = o.depends(o.depends_arg, "PAGEX", &on);
	assert_false(among(on, n, "IDLE"));
	n = o.depends(o.depends_arg, "LEAF", &on);
	assert_true(among(on, n, "SEL"));
	teardown(&f);
}

/* The model behind the tree: its effect on the option the tree derives
 * shows, so the answer is the change that derives it. */
static void test_bisect_tree__model_bisection_on_the_tree(void **state)
{
	static const char model_text[] =
		"metric: real_s\nbase: 10\nnoise: { boot_cv: 0.01 }\nseed: 3\n"
		"effects:\n  - when: { DERIVED: y }\n    factor: 1.5\n";
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *model = NULL;
	struct kb_executor *inner = NULL, *ex = NULL;
	struct kb_bisect_result *r = NULL;
	struct kb_store *s = NULL;
	struct fixture f;

	(void)state;
	setup(&f);
	assert_int_equal(kb_model_parse_buffer(model_text,
					       strlen(model_text), "t.model",
					       &model, &err),
			 0);
	assert_int_equal(kb_model_executor_new(model, 0, &inner), 0);
	assert_int_equal(kb_treeexec_new(f.m, inner,
					 kb_bisect_tree_good_file(f.t), &ex,
					 &err),
			 0);
	if (kb_store_open(f.db, NULL, &s, &err))
		fail_msg("store: %s", err.msg);
	o.metric = "real_s";
	o.higher_is_better = 0;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.build_salt = "t";
	kb_bisect_tree_opts(f.t, &o);
	if (kb_bisect_options(s, ex, kb_bisect_tree_end(f.t, 0),
			      kb_bisect_tree_end(f.t, 1), &o, &r, &err))
		fail_msg("bisect: %s", err.msg);
	assert_true(r->reproduced);
	assert_int_equal(r->nchanges, 2); /* LEAF, SPIN */
	assert_int_equal(r->nderived, 1);
	assert_string_equal(r->derived[0].option, "DERIVED");
	assert_int_equal(r->nculprits, 1);
	assert_string_equal(r->culprits[0].option, "SPIN");
	kb_bisect_result_free(r);
	kb_store_close(s);
	kb_executor_free(ex);
	kb_executor_free(inner);
	kb_model_free(model);
	teardown(&f);
}

static void test_bisect_tree__needs_source_tree(void **state)
{
	static const char text[] =
		"source: { kernel: /bin/sh }\n"
		"workload: { command: { run: 'true' }, metric: real_s }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_bisect_tree *t = NULL;

	(void)state;
	assert_int_equal(kb_matrix_parse_buffer(text, sizeof(text) - 1,
						"/tmp/kb-bisect-tree-test.yaml",
						&m, &err),
			 0);
	assert_int_equal(kb_bisect_tree_new(m, &t, &err), KB_EINPUT);
	assert_null(t);
	assert_msg_contains(err.msg, "needs source.tree");
	kb_matrix_free(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_bisect_tree__select_never_met_ties_nothing),
	cmocka_unit_test(test_bisect_tree__ends_resolved_alone_good_written),
	cmocka_unit_test(test_bisect_tree__model_bisection_on_the_tree),
	cmocka_unit_test(test_bisect_tree__needs_source_tree),
};

KB_TEST_MAIN(tests)
