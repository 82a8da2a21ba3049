#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "mem.h"
#include "model.h"
#include "profile.h"
#include "variant.h"

static const struct kb_profile_change *
find(const struct kb_profile_change *c, size_t n, const char *func)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].func, func))
			return &c[i];
	return NULL;
}

static void test_profile_diff__inclusive_shares_once_a_stack(void **state)
{
	/* boot 1: a;b;a (recursion) 3, a;c 1; boot 2: a;c 4 */
	const struct kb_profile_row a[] = {
		{ 1, "a;b;a", 3 }, { 1, "a;c", 1 }, { 2, "a;c", 4 },
	};
	const struct kb_profile_row b[] = {
		{ 5, "a;c", 2 }, { 6, "a;c", 2 },
	};
	struct kb_profile_change *c = NULL;
	const struct kb_profile_change *f;
	size_t n = 0;

	(void)state;
	kb_profile_compare(a, 3, b, 2, 0.05, &c, &n);
	assert_int_equal(n, 3);
	f = find(c, n, "a");
	assert_non_null(f);
	/* a is on every stack, once each, though b;a recurses */
	assert_true(fabs(f->a.mean - 100) < 1e-9);
	assert_true(fabs(f->self_a - 37.5) < 1e-9); /* 3/4 of boot 1 */
	f = find(c, n, "b");
	assert_true(fabs(f->a.mean - 37.5) < 1e-9); /* 75% and 0% */
	assert_true(fabs(f->b.mean) < 1e-9);
	assert_int_equal(f->b.n, 2);
	f = find(c, n, "c");
	assert_true(fabs(f->a.mean - 62.5) < 1e-9);
	assert_true(fabs(f->b.mean - 100) < 1e-9);
	assert_true(fabs(f->diff - 37.5) < 1e-9);
	free(c);
}

static void test_profile_diff__vanishing_function_is_caught(void **state)
{
	struct kb_profile_row a[8], b[8];
	struct kb_profile_change *c = NULL;
	size_t n = 0, i;

	(void)state;
	for (i = 0; i < 4; i++) {
		a[2 * i] = (struct kb_profile_row){ (long long)i, "x;work",
						    (unsigned long long)(90 + i) };
		a[2 * i + 1] = (struct kb_profile_row){ (long long)i,
							"x;check_bytes",
							(unsigned long long)(10 + i) };
		b[2 * i] = (struct kb_profile_row){ 10 + (long long)i, "x;work",
						    100 };
		b[2 * i + 1] = (struct kb_profile_row){ 10 + (long long)i,
							"x;idle", 1 };
	}
	/* check_bytes left B altogether, and work took its share */
	assert_int_equal(kb_profile_compare(a, 8, b, 8, 0.05, &c, &n), 3);
	assert_true(find(c, n, "check_bytes")->changed);
	assert_true(find(c, n, "check_bytes")->hi < 0);
	assert_true(find(c, n, "check_bytes")->diff < -9);
	assert_true(find(c, n, "work")->changed);
	assert_true(find(c, n, "work")->lo > 0);
	assert_false(find(c, n, "x")->changed);
	/* idle is 1% of each of 4 B boots and absent from A: tested */
	assert_false(isnan(find(c, n, "idle")->p));
	assert_int_equal(kb_profile_tested(c, n), 4);
	free(c);
}

static void test_profile_diff__too_few_boots_is_untested(void **state)
{
	const struct kb_profile_row a[] = { { 1, "f", 5 }, { 2, "f", 5 } };
	const struct kb_profile_row b[] = { { 3, "g", 5 } };
	struct kb_profile_change *c = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(kb_profile_compare(a, 2, b, 1, 0.05, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(kb_profile_tested(c, n), 0);
	free(c);
}

static void test_profile_diff__shares_per_stack(void **state)
{
	const struct kb_profile_row a[] = { { 1, "s;t", 1 }, { 1, "s;u", 3 } };
	const struct kb_profile_row b[] = { { 2, "s;t", 2 }, { 3, "s;u", 2 } };
	struct kb_profile_share *v = NULL;
	size_t n = 0;

	(void)state;
	kb_profile_shares(a, 2, b, 2, &v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].stack, "s;t");
	assert_true(fabs(v[0].a - 0.25) < 1e-9);
	assert_true(fabs(v[0].b - 0.5) < 1e-9);  /* all of boot 2, none of 3 */
	assert_true(fabs(v[1].a - 0.75) < 1e-9);
	assert_true(fabs(v[1].b - 0.5) < 1e-9);
	kb_profile_shares_free(v, n);
}

/*
 * The analysis against known truth, on the model's profile: 12 stacks of
 * 18 functions (3% boot noise, 1% run noise on each stack's weight, 20000
 * samples a run with Poisson sampling noise, 3 runs a boot), 10 boots a
 * side, 20 seeds.  The same kernel as two variants must flag no function
 * after Holm in at least 19 of the 20; a planted 10% change in one leaf
 * function's share must be found in at least 16 (docs/analysis.md,
 * "Profiles", gives the figures).
 */
#define BOOTS 10
#define RUNS 3
#define NSTACKS 12

/* A run's stacks, kept until the rows that point into them are done. */
struct kept {
	struct kb_profile_stack *p;
	size_t n;
};

static void rows_of(const struct kb_model *m, const struct kb_variant *v,
		    long long base, struct kb_profile_row **rows, size_t *n,
		    struct kept **keep, size_t *nkeep)
{
	unsigned boot, run;
	size_t i;

	for (boot = 1; boot <= BOOTS; boot++)
		for (run = 1; run <= RUNS; run++) {
			struct kb_profile_stack *p;
			size_t np;

			assert_int_equal(kb_model_profile(m, v, boot, run, &p,
							  &np),
					 0);
			*rows = kb_reallocarray(*rows, *n + np + 1,
						sizeof(**rows));
			for (i = 0; i < np; i++)
				(*rows)[(*n)++] = (struct kb_profile_row){
					base + boot, p[i].stack, p[i].samples
				};
			*keep = kb_reallocarray(*keep, *nkeep + 1,
						sizeof(**keep));
			(*keep)[(*nkeep)++] = (struct kept){ p, np };
		}
}

/* The functions flagged: whether @want is, and how many others than it
 * and its @caller (whose share holds @want's) are. */
static size_t flagged(const struct kb_model *m, const struct kb_variant *va,
		      const struct kb_variant *vb, const char *want,
		      const char *caller, int *found, size_t *others)
{
	struct kb_profile_row *a = NULL, *b = NULL;
	struct kept *keep = NULL;
	struct kb_profile_change *c = NULL;
	size_t na = 0, nb = 0, nkeep = 0, n = 0, i, changed;

	rows_of(m, va, 0, &a, &na, &keep, &nkeep);
	rows_of(m, vb, 100, &b, &nb, &keep, &nkeep);
	changed = kb_profile_compare(a, na, b, nb, 0.05, &c, &n);
	assert_int_equal(kb_profile_tested(c, n), n);
	*found = 0;
	*others = 0;
	for (i = 0; i < changed; i++)
		if (want && !strcmp(c[i].func, want))
			*found = 1;
		else if (!caller || strcmp(c[i].func, caller))
			(*others)++;
	free(c);
	free(a);
	free(b);
	for (i = 0; i < nkeep; i++)
		kb_profile_stacks_free(keep[i].p, keep[i].n);
	free(keep);
	return changed;
}

static void test_profile_diff__model_null_and_planted_change(void **state)
{
	const struct kb_setting off = { "X", "n", KB_FACTOR_KCONFIG };
	const struct kb_setting on = { "X", "y", KB_FACTOR_KCONFIG };
	const struct kb_variant a = { .idx = 0, .label = "X=n", .nsettings = 1,
				      .settings = &off };
	const struct kb_variant a2 = { .idx = 1, .label = "X=n again",
				       .nsettings = 1, .settings = &off };
	const struct kb_variant b = { .idx = 1, .label = "X=y", .nsettings = 1,
				      .settings = &on };
	/* stack 7's share is 10% (weight 10 of 100): a factor f takes it to
	 * 11% when f s / (1 - s + f s) = 1.1 s, f = 1.1 (1 - s) / (1 - 1.1 s) */
	double f = 1.1 * 0.9 / (1 - 0.11);
	unsigned seed, null_clean = 0, planted_found = 0, planted_only = 0;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		struct kb_buf y = KB_BUF_INIT;
		struct kb_err err = KB_ERR_INIT;
		struct kb_model *m = NULL;
		size_t others;
		int found, i;

		kb_buf_addf(&y,
			    "metric: real_s\nbase: 1\nseed: %u\nprofile:\n"
			    "  samples: 20000\n"
			    "  noise: { boot_cv: 0.03, run_cv: 0.01 }\n"
			    "  stacks:\n",
			    seed);
		for (i = 0; i < NSTACKS; i++) {
			/* weights 10 for 7, the rest share 90 */
			double w = i == 7 ? 10 : 90.0 / (NSTACKS - 1);

			if (i == 7)
				kb_buf_addf(&y,
					    "    \"entry;do_syscall;path%02d;leaf%02d\": { weight: %.6f, effects: [ { when: { X: y }, factor: %.6f } ] }\n",
					    i % 4, i, w, f);
			else
				kb_buf_addf(&y,
					    "    \"entry;do_syscall;path%02d;leaf%02d\": %.6f\n",
					    i % 4, i, w);
		}
		assert_int_equal(kb_model_parse_buffer(y.buf, y.len, "m.yaml",
						       &m, &err),
				 0);
		null_clean += flagged(m, &a, &a2, NULL, NULL, &found,
				      &others) == 0;
		flagged(m, &a, &b, "leaf07", "path03", &found, &others);
		planted_found += (unsigned)found;
		planted_only += found && !others;
		kb_model_free(m);
		kb_buf_release(&y);
	}
	print_message("profiles on the model, 20 seeds: null clean %u, planted 10%% found %u (with nothing but its caller %u)\n",
		      null_clean, planted_found, planted_only);
	assert_true(null_clean >= 19);
	assert_true(planted_found >= 16);
}

static void test_profile_diff__model_executor_yields_profile(void **state)
{
	static const char y[] =
		"metric: real_s\nbase: 2\nprofile:\n"
		"  samples: 1000\n"
		"  stacks:\n"
		"    \"a;b\": 1\n"
		"    \"a;c\": { weight: 1, effects: [ { when: { X: y }, factor: 3 } ] }\n";
	const struct kb_setting on = { "X", "y", KB_FACTOR_KCONFIG };
	const struct kb_variant v = { .idx = 0, .label = "X=y", .nsettings = 1,
				      .settings = &on };
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result r;
	unsigned long long ab = 0, ac = 0;
	size_t i;

	(void)state;
	memset(&br, 0, sizeof(br));
	memset(&r, 0, sizeof(r));
	assert_int_equal(kb_model_parse_buffer(y, strlen(y), "m.yaml", &m, &err),
			 0);
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	assert_int_equal(kb_executor_build(ex, &v, &br, &err), 0);
	assert_int_equal(kb_executor_boot(ex, &v, &br, 1, 2, &r, &err), 0);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(r.nprofile, 4);
	for (i = 0; i < r.nprofile; i++) {
		assert_true(r.profile[i].run == 1 || r.profile[i].run == 2);
		if (!strcmp(r.profile[i].stack, "a;b"))
			ab += r.profile[i].samples;
		else
			ac += r.profile[i].samples;
	}
	/* 1:3 of 2000 samples, give or take the sampling noise */
	assert_true(ab > 400 && ab < 600);
	assert_true(ac > 1400 && ac < 1600);
	kb_boot_result_release(&r);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_profile_diff__model_refuses_bad_profile(void **state)
{
	static const char *const bad[][2] = {
		{ "metric: m\nbase: 1\nprofile: { stacks: { \"a;;b\": 1 } }\n",
		  "an empty frame" },
		{ "metric: m\nbase: 1\nprofile: { stacks: { \"a b\": 1 } }\n",
		  "not part of a function's name" },
		{ "metric: m\nbase: 1\nprofile: { stacks: { a: 0 } }\n",
		  "greater than 0" },
		{ "metric: m\nbase: 1\nprofile: { samples: 0, stacks: { a: 1 } }\n",
		  "samples" },
		{ "metric: m\nbase: 1\nprofile: { rate: 5, stacks: { a: 1 } }\n",
		  "rate" },
		{ "metric: m\nbase: 1\nprofile: { samples: 5 }\n",
		  "missing 'stacks'" },
		{ "metric: m\nbase: 1\nprofile: { stacks: { a: { noise: {} } } }\n",
		  "missing 'weight'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_model *m = NULL;

		assert_int_equal(kb_model_parse_buffer(bad[i][0],
						       strlen(bad[i][0]),
						       "m.yaml", &m, &err),
				 KB_EINPUT);
		if (!strstr(err.msg, bad[i][1]))
			fail_msg("%zu: '%s' lacks '%s'", i, err.msg, bad[i][1]);
		assert_non_null(strstr(err.msg, "m.yaml:"));
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_profile_diff__inclusive_shares_once_a_stack),
	cmocka_unit_test(test_profile_diff__vanishing_function_is_caught),
	cmocka_unit_test(test_profile_diff__too_few_boots_is_untested),
	cmocka_unit_test(test_profile_diff__shares_per_stack),
	cmocka_unit_test(test_profile_diff__model_null_and_planted_change),
	cmocka_unit_test(test_profile_diff__model_executor_yields_profile),
	cmocka_unit_test(test_profile_diff__model_refuses_bad_profile),
};

KB_TEST_MAIN(tests)
