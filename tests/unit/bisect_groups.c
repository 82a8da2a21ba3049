/*
 * Option bisection's change groups on a small Kconfig tree: which changes
 * move together (only those the graph ties directly, or through a
 * derived change), what a probe that does not hold joins, and what the
 * answer may call 1-minimal.  Builds and boots come from the performance
 * model, the dependencies from the tree (kb_kconfig_tree_scan()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testfs.h"
#include "bisect.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "mem.h"
#include "model.h"
#include "store.h"
#include "variant.h"

/*
 * A is tied to B only through X, which does not change; C to E through D,
 * a derived change (no prompt); S selects T; P1 and P2 are one choice.
 */
static const char kconfig[] =
	"config KEEP\n\tbool \"keep\"\n"
	"config X\n\tbool \"x\"\n\tdepends on B\n"
	"config A\n\tbool \"a\"\n\tdepends on X\n"
	"config B\n\tbool \"b\"\n"
	"config D\n\tbool\n\tdepends on E\n"
	"config C\n\tbool \"c\"\n\tdepends on D\n"
	"config E\n\tbool \"e\"\n"
	"config S\n\tbool \"s\"\n\tselect T\n"
	"config T\n\tbool \"t\"\n"
	"choice\n\tprompt \"pick\"\n"
	"config P1\n\tbool \"p1\"\n"
	"config P2\n\tbool \"p2\"\n"
	"endchoice\n";

static const char good_config[] =
	"CONFIG_KEEP=y\nCONFIG_X=y\n# CONFIG_A is not set\n"
	"# CONFIG_B is not set\n# CONFIG_C is not set\n"
	"# CONFIG_D is not set\n# CONFIG_E is not set\n"
	"# CONFIG_S is not set\n# CONFIG_T is not set\n"
	"CONFIG_P1=y\n# CONFIG_P2 is not set\n";

static const char bad_config[] =
	"CONFIG_KEEP=y\nCONFIG_X=y\nCONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\n"
	"CONFIG_D=y\nCONFIG_E=y\nCONFIG_S=y\nCONFIG_T=y\n"
	"# CONFIG_P1 is not set\nCONFIG_P2=y\n";

struct fixture {
	char dir[64];
	char db[128];
	struct kb_store *s;
	struct kb_model *model;
	struct kb_executor *ex;
	struct kb_ksyms *syms;
	struct kb_kconfig *good, *bad;
	struct kb_bisect_result *r;
	/* the test executor (wrap): builds that do not hold */
	struct kb_executor *inner; /* the model's behind it */
	unsigned unheld_builds;    /* builds refused so */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	kb_test_scratch_db("bisect-groups", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_bisect_result_free(f->r);
	kb_kconfig_free(f->good);
	kb_kconfig_free(f->bad);
	kb_executor_free(f->ex);
	kb_executor_free(f->inner);
	kb_model_free(f->model);
	kb_ksyms_free(f->syms);
	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

static struct kb_kconfig *config(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *c = NULL;

	if (kb_kconfig_parse_buffer(text, strlen(text), "t.config", &c, &err))
		fail_msg("config: %s", err.msg);
	return c;
}

/* The tree (@text as its top Kconfig), the model and the ends. */
static void load(struct fixture *f, const char *text, const char *model,
		 const char *good, const char *bad)
{
	struct kb_err err = KB_ERR_INIT;
	char *tree = kb_asprintf("%s/tree", f->dir);
	char *mk = kb_asprintf("mkdir -p %s", tree);

	assert_int_equal(system(mk), 0);
	kb_test_put(tree, "Kconfig", text);
	if (kb_kconfig_tree_scan(tree, NULL, &f->syms, &err))
		fail_msg("scan: %s", err.msg);
	if (kb_model_parse_buffer(model, strlen(model), "m.yaml", &f->model,
				  &err))
		fail_msg("model: %s", err.msg);
	assert_int_equal(kb_model_executor_new(f->model, 0, &f->ex), 0);
	f->good = config(good);
	f->bad = config(bad);
	free(mk);
	free(tree);
}

static size_t tree_depends(void *arg, const char *option,
			   const char *const **on)
{
	return kb_ksyms_requires(arg, option, on);
}

static int tree_settable(void *arg, const char *option)
{
	return kb_ksyms_has_prompt(arg, option);
}

static void run_with(struct fixture *f, enum kb_bisect_strategy strategy)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;

	o.strategy = strategy;
	o.metric = kb_model_metric(f->model);
	o.depends = tree_depends;
	o.settable = tree_settable;
	o.depends_arg = f->syms;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(f->model);
	o.build_salt = kb_model_text(f->model);
	kb_bisect_result_free(f->r);
	f->r = NULL;
	if (kb_bisect_options(f->s, f->ex, f->good, f->bad, &o, &f->r, &err))
		fail_msg("bisect: %s", err.msg);
}

static void run(struct fixture *f)
{
	run_with(f, KB_BISECT_GROUP);
}

/* The group of change @option (from 1, as printed). */
static unsigned group_of(const struct kb_bisect_result *r, const char *option)
{
	size_t i;

	for (i = 0; i < r->nchanges; i++)
		if (!strcmp(r->changes[i].option, option))
			return r->changes[i].group + 1;
	fail_msg("'%s' is no change", option);
	return 0;
}

static void assert_culprits(const struct kb_bisect_result *r,
			    const char *want)
{
	struct kb_buf got = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < r->nculprits; i++)
		kb_buf_addf(&got, "%s%s", i ? " " : "", r->culprits[i].option);
	if (strcmp(got.buf, want))
		fail_msg("culprits '%s', expected '%s'", got.buf, want);
	kb_buf_release(&got);
}

#define NOISE "noise: { boot_cv: 0.05 }\n"

static void test_bisect_groups__only_direct_ties_join(void **state)
{
	struct fixture *f = *state;
	const struct kb_bisect_result *r;

	load(f, kconfig,
	     "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
	     "effects:\n  - when: { A: y }\n    factor: 0.6\n",
	     good_config, bad_config);
	run(f);
	r = f->r;
	/* D has no prompt: it follows E, no change of its own */
	assert_int_equal(r->nderived, 1);
	assert_string_equal(r->derived[0].option, "D");
	assert_int_equal(r->nchanges, 8);
	/* A - X - B with X unchanged: apart */
	assert_int_not_equal(group_of(r, "A"), group_of(r, "B"));
	/* C - D - E with D derived: together */
	assert_int_equal(group_of(r, "C"), group_of(r, "E"));
	/* select, choice */
	assert_int_equal(group_of(r, "S"), group_of(r, "T"));
	assert_int_equal(group_of(r, "P1"), group_of(r, "P2"));
	assert_int_equal(r->ngroups, 5);
	/* A alone is the answer, and 1-minimal: its group is itself */
	assert_culprits(r, "A");
	assert_true(r->minimal);
	assert_int_equal(r->nunresolved, 0);
}

/*
 * C and E move as one group: the answer is 1-minimal over groups, and
 * the group is one unresolved change, its options not each needed (E
 * costs nothing here).
 */
static void test_bisect_groups__group_of_several_is_unresolved(void **state)
{
	struct fixture *f = *state;
	const struct kb_bisect_result *r;

	load(f, kconfig,
	     "metric: read_iops\nbase: 1000\n" NOISE "seed: 5\n"
	     "effects:\n  - when: { C: y }\n    factor: 0.6\n",
	     good_config, bad_config);
	run(f);
	r = f->r;
	assert_culprits(r, "C E");
	assert_true(r->minimal);
	assert_int_equal(r->nunresolved, 1);
	assert_int_equal(r->culprits[0].group, r->culprits[1].group);
}

/*
 * The test executor: the model's, but a build with A=y and B=n does not
 * hold (as the real executor's resolution says when A needs X needs B
 * and X is y only with B: here the model does not know it).
 */
static int wrap_build(void *self, const struct kb_variant *v,
		      struct kb_build_result *out, struct kb_err *err)
{
	struct fixture *f = self;
	const char *a = kb_variant_get(v, "A"), *b = kb_variant_get(v, "B");

	if (a && b && !strcmp(a, "y") && !strcmp(b, "n")) {
		memset(out, 0, sizeof(*out));
		out->status = KB_BUILD_FAILED;
		out->reason = kb_strdup("config does not hold: CONFIG_A=y (resolved n: depends on X (n))");
		f->unheld_builds++;
		return 0;
	}
	return kb_executor_build(f->inner, v, out, err);
}

static int wrap_boot(void *self, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err)
{
	struct fixture *f = self;

	return kb_executor_boot(f->inner, v, build, boot_no, runs, out, err);
}

static int wrap_boot_at(void *self, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, const struct kb_boot_at *at,
			struct kb_boot_result *out, struct kb_err *err)
{
	struct fixture *f = self;

	return kb_executor_boot_at(f->inner, v, build, boot_no, runs, at, out,
				   err);
}

static void wrap_free(void *self)
{
	(void)self; /* the fixture owns it */
}

static const struct kb_executor_ops wrap_ops = {
	.name = "model",
	.build = wrap_build,
	.boot = wrap_boot,
	.boot_at = wrap_boot_at,
	.free = wrap_free,
};

/* Put the test executor in front of the model's. */
static void wrap(struct fixture *f)
{
	f->inner = f->ex;
	f->ex = kb_executor_new(&wrap_ops, f);
}

static int same_applied(const struct kb_bisect_probe *a,
			const struct kb_bisect_probe *b)
{
	return a->napplied == b->napplied &&
	       !memcmp(a->applied, b->applied,
		       a->napplied * sizeof(*a->applied));
}

/*
 * Only A costs, but A=y does not hold without B=y, which the tree ties to
 * A only through X, unchanged: A and B start apart, A's own probe does
 * not hold, and then the two are joined (the reason stored) and searched
 * again: the answer is their group, one unresolved change.
 */
static void held_join(struct fixture *f, enum kb_bisect_strategy strategy)
{
	const struct kb_bisect_result *r;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;
	size_t i, nskip = 0;

	load(f, kconfig,
	     "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
	     "effects:\n  - when: { A: y }\n    factor: 0.6\n",
	     good_config, bad_config);
	wrap(f);
	run_with(f, strategy);
	r = f->r;
	assert_true(f->unheld_builds >= 1);
	assert_int_equal(r->njoins, 1);
	assert_int_equal(r->joins[0].step >= 2, 1);
	assert_string_equal(r->joins[0].option, "A");
	assert_string_equal(r->joins[0].with, "B");
	assert_msg_contains(r->joins[0].reason, "config does not hold: CONFIG_A=y");
	assert_int_equal(group_of(r, "A"), group_of(r, "B"));
	assert_int_equal(r->ngroups, 4);
	for (i = 0; i < r->nprobes; i++)
		nskip += r->probes[i].cls == KB_BISECT_SKIP;
	assert_int_equal(nskip, f->unheld_builds);
	/* the search again on the joined groups asks no set twice */
	for (i = 0; i < r->nprobes; i++) {
		size_t k;

		for (k = 0; k < i; k++)
			assert_false(same_applied(&r->probes[i], &r->probes[k]));
	}
	assert_culprits(r, "A B");
	assert_true(r->minimal);
	assert_true(r->complete);
	assert_int_equal(r->nunresolved, 1);
	/* the join and why are stored with the bisection */
	assert_int_equal(kb_store_bisection_get(f->s, r->bisection, &sb, &err),
			 0);
	assert_msg_contains(sb.result, "did not hold: A joined with B");
	assert_msg_contains(sb.result, "1 group of several options unresolved");
	for (i = 0; i < sb.nsteps; i++)
		if (!strcmp(sb.steps[i].classification, "skip"))
			break;
	assert_true(i < sb.nsteps);
	kb_store_bisection_release(&sb);
	/* run again: the stored answer, its join and its group with it */
	run_with(f, strategy);
	r = f->r;
	assert_non_null(r->stored_at);
	assert_int_equal(r->njoins, 1);
	assert_string_equal(r->joins[0].option, "A");
	assert_string_equal(r->joins[0].with, "B");
	assert_msg_contains(r->joins[0].reason, "config does not hold: CONFIG_A=y");
	assert_int_equal(r->nunresolved, 1);
	assert_culprits(r, "A B");
	kb_executor_free(f->ex);
	f->ex = f->inner;
	f->inner = NULL;
}

static void test_bisect_groups__probe_that_does_not_hold_joins(void **state)
{
	held_join(*state, KB_BISECT_GROUP);
}

static void test_bisect_groups__ddmin_joins_where_it_does_not_hold(void **state)
{
	held_join(*state, KB_BISECT_DDMIN);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(test_bisect_groups__only_direct_ties_join),
	T(test_bisect_groups__group_of_several_is_unresolved),
	T(test_bisect_groups__probe_that_does_not_hold_joins),
	T(test_bisect_groups__ddmin_joins_where_it_does_not_hold),
};

KB_TEST_MAIN(tests)
