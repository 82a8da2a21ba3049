#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "plan.h"
#include "treeexec.h"
#include "variant.h"

/*
 * A fake kernel tree whose olddefconfig drops LOCK and sets the
 * prompt-less DERIVED when SPIN is y (as a select would), a model slow
 * only when DERIVED is y, and the tree executor over the model's: what
 * the model is given is the resolved config.
 */
struct fixture {
	char dir[32];
	char *old_cache, *tree, *base, *text;
	struct kb_matrix *m;
	struct kb_model *model;
	struct kb_executor *inner, *ex;
};

static const char model_text[] =
	"metric: real_s\n"
	"base: 10\n"
	"noise: { boot_cv: 0, run_cv: 0 }\n"
	"effects:\n"
	"  - when: { DERIVED: y }\n"
	"    factor: 2\n";

static void setup(struct fixture *f)
{
	struct kb_err err = KB_ERR_INIT;
	const char *old = getenv("XDG_CACHE_HOME");
	char *cache;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/kb-treeexec-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->old_cache = old ? kb_strdup(old) : NULL;
	cache = kb_asprintf("%s/cache", f->dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	f->tree = kb_asprintf("%s/linux", f->dir);
	assert_int_equal(mkdir(f->tree, 0755), 0);
	kb_test_put(f->tree, "Kconfig",
		    "config SPIN\n\tbool \"spin\"\n"
		    "config LOCK\n\tbool \"lock\"\n"
		    "config BASE\n\tbool \"base\"\n"
		    "config DERIVED\n\tbool\n");
	kb_test_put(f->tree, "Makefile",
		    "olddefconfig:\n"
		    "\t@sed -i -e /CONFIG_LOCK/d -e 's/^CONFIG_SPIN=y$$/&\\nCONFIG_DERIVED=y/' $(O)/.config\n");
	f->base = kb_test_write(f->dir, "good.config",
				"CONFIG_BASE=y\n# CONFIG_SPIN is not set\n",
				0644);
	f->text = kb_asprintf("source: { tree: %s }\n"
			      "workload: { command: { run: 'true' }, metric: real_s }\n",
			      f->tree);
	if (kb_matrix_parse_buffer(f->text, strlen(f->text),
				   "/tmp/kb-treeexec-test.yaml", &f->m, &err))
		fail_msg("matrix: %s", err.msg);
	if (kb_model_parse_buffer(model_text, strlen(model_text), "t.model",
				  &f->model, &err))
		fail_msg("model: %s", err.msg);
	assert_int_equal(kb_model_executor_new(f->model, 0, &f->inner), 0);
	if (kb_treeexec_new(f->m, f->inner, f->base, &f->ex, &err))
		fail_msg("treeexec: %s", err.msg);
}

static void teardown(struct fixture *f)
{
	kb_executor_free(f->ex);
	kb_executor_free(f->inner);
	kb_model_free(f->model);
	kb_matrix_free(f->m);
	if (f->old_cache)
		setenv("XDG_CACHE_HOME", f->old_cache, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	kb_test_rm_rf(f->dir);
	free(f->old_cache);
	free(f->tree);
	free(f->base);
	free(f->text);
}

/* The value boot 1 of @v from @b measures, its status checked. */
static double boot_value(struct fixture *f, const struct kb_variant *v,
			 const struct kb_build_result *b)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_boot_result r;
	double value = 0;

	if (kb_executor_boot(f->ex, v, b, 1, 1, &r, &err))
		fail_msg("boot: %s", err.msg);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(r.nruns, 1);
	assert_int_equal(kb_sample_get(&r.runs[0], "real_s", &value), 0);
	kb_boot_result_release(&r);
	return value;
}

static void test_treeexec__the_model_gets_the_resolved_config(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_setting spin = { "SPIN", "y", KB_FACTOR_KCONFIG };
	struct kb_setting unspin = { "SPIN", "n", KB_FACTOR_KCONFIG };
	struct kb_variant v = { .idx = 1, .label = "SPIN=y", .nsettings = 1,
				.settings = &spin, .build_key = "k1" };
	struct kb_build_result b;
	struct fixture f;

	(void)state;
	setup(&f);
	assert_string_equal(kb_executor_name(f.ex), "model");
	/* SPIN=y from the good end: olddefconfig sets DERIVED, which
	 * neither the good end nor the probe names, and the model sees it */
	if (kb_executor_build(f.ex, &v, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_non_null(b.config_text);
	assert_non_null(strstr(b.config_text, "CONFIG_BASE=y"));
	assert_non_null(strstr(b.config_text, "CONFIG_DERIVED=y"));
	assert_true(boot_value(&f, &v, &b) == 20);
	kb_build_result_release(&b);

	/* the good end's levels: nothing derived, the base value */
	v.label = "good";
	v.settings = &unspin;
	if (kb_executor_build(f.ex, &v, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_OK);
	assert_null(strstr(b.config_text, "CONFIG_DERIVED=y"));
	assert_true(boot_value(&f, &v, &b) == 10);
	kb_build_result_release(&b);
	teardown(&f);
}

static void test_treeexec__a_change_not_held_is_not_built(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_setting lock = { "LOCK", "y", KB_FACTOR_KCONFIG };
	struct kb_variant v = { .idx = 2, .label = "LOCK=y", .nsettings = 1,
				.settings = &lock, .build_key = "k2" };
	struct kb_build_result b;
	struct kb_boot_result r;
	struct fixture f;

	(void)state;
	setup(&f);
	if (kb_executor_build(f.ex, &v, &b, &err))
		fail_msg("build: %s", err.msg);
	assert_int_equal(b.status, KB_BUILD_FAILED);
	assert_msg_contains(b.reason, "config does not hold: CONFIG_LOCK=y (resolved n");
	assert_int_equal(kb_executor_boot(f.ex, &v, &b, 1, 1, &r, &err), 0);
	assert_int_equal(r.status, KB_BOOT_BUILD_FAILED);
	kb_boot_result_release(&r);
	kb_build_result_release(&b);
	teardown(&f);
}

/* A build got from the store boots from the .config stored with it,
 * with no resolution: the same values as the build made now. */
static void test_treeexec__a_stored_build_boots_its_config(void **state)
{
	struct kb_setting spin = { "SPIN", "y", KB_FACTOR_KCONFIG };
	struct kb_variant v = { .idx = 1, .label = "SPIN=y", .nsettings = 1,
				.settings = &spin, .build_key = "k1" };
	struct kb_build_result b = { .status = KB_BUILD_OK };
	struct fixture f;

	(void)state;
	setup(&f);
	b.config_text = "CONFIG_BASE=y\nCONFIG_SPIN=y\nCONFIG_DERIVED=y\n";
	assert_true(boot_value(&f, &v, &b) == 20);
	b.config_text = "CONFIG_BASE=y\nCONFIG_SPIN=y\n";
	assert_true(boot_value(&f, &v, &b) == 10);
	teardown(&f);
}

static void test_treeexec__needs_source_tree(void **state)
{
	static const char text[] =
		"source: { kernel: /bin/sh }\n"
		"workload: { command: { run: 'true' }, metric: real_s }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *inner = NULL, *ex = NULL;

	(void)state;
	assert_int_equal(kb_matrix_parse_buffer(text, sizeof(text) - 1,
						"/tmp/kb-treeexec-test.yaml",
						&m, &err),
			 0);
	assert_int_equal(kb_model_parse_buffer(model_text,
					       strlen(model_text), "t.model",
					       &model, &err),
			 0);
	assert_int_equal(kb_model_executor_new(model, 0, &inner), 0);
	assert_int_equal(kb_treeexec_new(m, inner, NULL, &ex, &err),
			 KB_EINPUT);
	assert_null(ex);
	assert_msg_contains(err.msg, "needs source.tree");
	kb_executor_free(inner);
	kb_model_free(model);
	kb_matrix_free(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_treeexec__the_model_gets_the_resolved_config),
	cmocka_unit_test(test_treeexec__a_change_not_held_is_not_built),
	cmocka_unit_test(test_treeexec__a_stored_build_boots_its_config),
	cmocka_unit_test(test_treeexec__needs_source_tree),
};

KB_TEST_MAIN(tests)
