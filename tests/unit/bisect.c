/*
 * Option bisection on performance models with known culprits: 5% boot
 * noise, fixed seeds, so every run probes the same way.
 */
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
#include "pipeline.h"
#include "store.h"
#include "variant.h"

struct fixture {
	char dir[64];
	char db[128];
	struct kb_store *s;
	struct kb_model *model;
	struct kb_executor *ex;
	struct kb_kconfig *good, *bad;
	struct kb_bisect_result *r;
	int fresh; /* opts.fresh of run(): bisect again in the same store */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	kb_test_scratch_db("bisect", f->dir, sizeof(f->dir), f->db, sizeof(f->db));
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
	kb_model_free(f->model);
	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

static void load_model(struct fixture *f, const char *text)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_model_parse_buffer(text, strlen(text), "m.yaml", &f->model,
				  &err))
		fail_msg("model: %s", err.msg);
	assert_int_equal(kb_model_executor_new(f->model, 0, &f->ex), 0);
}

static struct kb_kconfig *config(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *c = NULL;

	if (kb_kconfig_parse_buffer(text, strlen(text), "t.config", &c, &err))
		fail_msg("config: %s", err.msg);
	return c;
}

/* Options OPT_00..OPT_<n-1>, all at @level, and KEEP=y in both ends. */
static struct kb_kconfig *options(unsigned n, const char *level)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_kconfig *c;
	unsigned i;

	kb_buf_adds(&b, "CONFIG_KEEP=y\n");
	for (i = 0; i < n; i++) {
		if (!strcmp(level, "n"))
			kb_buf_addf(&b, "# CONFIG_OPT_%02u is not set\n", i);
		else
			kb_buf_addf(&b, "CONFIG_OPT_%02u=%s\n", i, level);
	}
	c = config(b.buf);
	kb_buf_release(&b);
	return c;
}

static size_t model_depends(void *arg, const char *option,
			    const char *const **on)
{
	return kb_model_depends(arg, option, on);
}

/* Bisect with @adjust (may be NULL) changing the options first. */
static int run_adjusted(struct fixture *f, enum kb_bisect_strategy strategy,
			void (*adjust)(struct kb_bisect_opts *o, void *arg),
			void *arg);

static int run(struct fixture *f, enum kb_bisect_strategy strategy)
{
	return run_adjusted(f, strategy, NULL, NULL);
}

static int run_adjusted(struct fixture *f, enum kb_bisect_strategy strategy,
			void (*adjust)(struct kb_bisect_opts *o, void *arg),
			void *arg)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	int ret;

	o.metric = kb_model_metric(f->model);
	o.higher_is_better = 1;
	o.strategy = strategy;
	o.depends = model_depends;
	o.depends_arg = f->model;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(f->model);
	o.build_salt = kb_model_text(f->model);
	o.fresh = f->fresh;
	if (adjust)
		adjust(&o, arg);
	kb_bisect_result_free(f->r);
	f->r = NULL;
	ret = kb_bisect_options(f->s, f->ex, f->good, f->bad, &o, &f->r,
				&err);
	if (ret)
		fail_msg("bisect: %s", err.msg);
	return ret;
}

/* Assert that the culprits are exactly the options in @want (spaces). */
static void assert_culprits(const struct kb_bisect_result *r,
			    const char *want)
{
	struct kb_buf got = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < r->nculprits; i++)
		kb_buf_addf(&got, "%s%s", i ? " " : "", r->culprits[i].option);
	if (strcmp(got.buf, want)) {
		for (i = 0; i < r->nprobes; i++) {
			const struct kb_bisect_probe *p = &r->probes[i];
			size_t k;

			print_message("probe %u: %-7s %+6.1f%% [%+.1f, %+.1f]"
				      " vs bad %+6.1f%%, %u boots:",
				      p->step, kb_bisect_class_name(p->cls),
				      p->change_pct, p->ci_low, p->ci_high,
				      p->bad_change_pct, p->boots);
			for (k = 0; k < p->napplied; k++)
				print_message(" %s",
					      r->changes[p->applied[k]].option);
			print_message("\n");
		}
		fail_msg("culprits '%s', expected '%s' (%zu probes)", got.buf,
			 want, r->nprobes);
	}
	kb_buf_release(&got);
}

#define NOISE "noise: { boot_cv: 0.05 }\n"

static void test_bisect__finds_single_culprit_among_16(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_11: y }\n    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_DDMIN);
	assert_true(f->r->reproduced);
	assert_int_equal(f->r->nchanges, 16);
	assert_int_equal(f->r->ngroups, 16);
	assert_culprits(f->r, "OPT_11");
	assert_string_equal(f->r->culprits[0].good, "n");
	assert_string_equal(f->r->culprits[0].bad, "y");
	assert_true(f->r->complete);
	/* the culprit's probe was bad and the good end is its complement */
	assert_true(f->r->minimal);
	assert_int_equal(f->r->nunsettled, 0);
	assert_int_equal(f->r->settle_boots, 0);
	assert_int_equal(f->r->more_boots, 0);
	/* about log2(16) = 4; at most 2 log2 N + 4 */
	assert_in_range(f->r->nprobes, 4, 12);
	/* the culprit alone costs 30%, and its interval says so */
	assert_true(fabs(f->r->change_pct + 30) < 6);
	assert_true(f->r->ci_low < -30 + 1 && f->r->ci_high > -30 - 1);
	assert_true(f->r->ci_low <= f->r->change_pct &&
		    f->r->change_pct <= f->r->ci_high);
	/* confirmed beside both ends in fresh rounds before it is said */
	assert_true(f->r->confirmed);
	assert_true(f->r->confirm_rounds >= 3);
	assert_true(f->r->culprit_boots >= 3 + f->r->confirm_rounds);
	/* every probe is a distinct build; each probe's boot is a round
	 * with both ends: 3 boots, at least 3 rounds a probe */
	assert_int_equal(f->r->builds, f->r->nprobes + 2);
	assert_true(f->r->boots >= 2 * 3 + 9 * f->r->nprobes);
	assert_int_equal(f->r->runs, f->r->boots);
}

/* The index of @v's boot in round @round, or -1. */
static long boot_in_round(const struct kb_store_variant *v, unsigned round)
{
	size_t i;

	for (i = 0; i < v->nboots; i++)
		if (v->boot_rounds[i] == round)
			return (long)i;
	return -1;
}

/*
 * Every probe is booted in rounds beside both ends, each round in a drawn
 * order, and judged against the ends of its own rounds: a host that
 * loses 30% right after the ends are measured (what a probe judged
 * against earlier means would call "bad", every probe of it) changes
 * nothing.
 */
static void test_bisect__probes_run_beside_their_ends(void **state)
{
	struct fixture *f = *state;
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t i, j, n = 0, good_first = 0, good_later = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "drift: { step: -0.3, at: 0.5, over: 40 }\n"
		      "effects:\n  - when: { OPT_11: y }\n    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_true(f->r->reproduced);
	assert_culprits(f->r, "OPT_11");
	assert_true(f->r->minimal);
	assert_true(f->r->confirmed);
	assert_true(fabs(f->r->change_pct + 30) < 6);

	assert_int_equal(kb_store_variants(f->s, f->r->experiment, "read_iops",
					   &vs, &n, &err),
			 0);
	assert_true(n > 2);
	for (i = 2; i < n; i++) {
		for (j = 0; j < vs[i].nboots; j++) {
			unsigned r = vs[i].boot_rounds[j];
			long g = boot_in_round(&vs[0], r);
			long d = boot_in_round(&vs[1], r);

			assert_true(r > 0);
			assert_true(g >= 0 && d >= 0);
			if (vs[0].boot_seqs[g] < vs[i].boot_seqs[j] &&
			    vs[0].boot_seqs[g] < vs[1].boot_seqs[d])
				good_first++;
			else
				good_later++;
		}
	}
	/* a fresh order each round, not always the same */
	assert_true(good_first > 0 && good_later > 0);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);
}

static void test_bisect__finds_interacting_pair(void **state)
{
	struct fixture *f = *state;
	size_t i;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_DDMIN);
	assert_culprits(f->r, "OPT_03 OPT_12");
	if (!(fabs(f->r->change_pct + 30) < 6))
		fail_msg("change %g%%", f->r->change_pct);
	/* each alone was tried and is good: the pair is 1-minimal */
	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_bisect_probe *p = &f->r->probes[i];

		if (p->napplied == 1)
			assert_int_equal(p->cls, KB_BISECT_GOOD);
	}
	assert_true(f->r->minimal);
	assert_int_equal(f->r->nunsettled, 0);
}

/*
 * The answer's own point: the probe that applied the culprits alone on
 * the good end (what `bisect options` profiles against the good end),
 * bad, with a variant of its own; the bad end when the culprits are
 * every change; none when nothing reproduces.
 */
static void test_bisect__culprit_probe_is_the_set_alone(void **state)
{
	struct fixture *f = *state;
	const struct kb_bisect_probe *p;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03 OPT_12");
	p = kb_bisect_culprit_probe(f->r);
	assert_non_null(p);
	assert_true(p >= f->r->probes && p < f->r->probes + f->r->nprobes);
	assert_int_equal(p->cls, KB_BISECT_BAD);
	assert_int_equal(p->napplied, 2);
	assert_string_equal(f->r->changes[p->applied[0]].option, "OPT_03");
	assert_string_equal(f->r->changes[p->applied[1]].option, "OPT_12");
	assert_true(p->variant_idx > 1);
	/* the culprits are every change: the bad end */
	kb_bisect_result_free(f->r);
	f->r = NULL;
	kb_kconfig_free(f->good);
	kb_kconfig_free(f->bad);
	f->good = config("CONFIG_KEEP=y\n# CONFIG_OPT_03 is not set\n");
	f->bad = config("CONFIG_KEEP=y\nCONFIG_OPT_03=y\n");
	kb_executor_free(f->ex);
	kb_model_free(f->model);
	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.7\n");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03");
	assert_true(kb_bisect_culprit_probe(f->r) == &f->r->end);
	assert_int_equal(kb_bisect_culprit_probe(f->r)->variant_idx, 1);
	assert_null(kb_bisect_culprit_probe(NULL));
}

/*
 * A 9% regression under 10% boot noise: 10 boots a probe cannot tell
 * the probes apart, ddmin cannot narrow the set down, and the answer
 * says so - not minimised, the candidates, and the boots that would
 * likely settle it - instead of calling the set 1-minimal.
 */
static void test_bisect__unknown_probes_are_not_minimised(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;
	size_t i;
	int has_culprit = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "noise: { boot_cv: 0.10 }\nseed: 2\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.91\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	assert_true(f->r->reproduced);
	assert_true(f->r->complete);
	assert_false(f->r->minimal);
	assert_true(f->r->nculprits >= 2);
	for (i = 0; i < f->r->nculprits; i++)
		has_culprit |= !strcmp(f->r->culprits[i].option, "OPT_03");
	assert_true(has_culprit);
	assert_true(f->r->nunsettled >= 1);
	assert_int_equal(f->r->nbetween, 0);
	assert_int_equal(f->r->nskipped, 0);
	/* 80% power for 5% at 10% noise: some 60 boots a side, not 10 */
	assert_in_range(f->r->settle_boots, 40, 200);
	/* the ends' boots up to that, and the probes' */
	assert_true(f->r->more_boots > 2 * (f->r->settle_boots - 10));
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_msg_contains(sb.result, "not minimised:");
	assert_msg_contains(sb.result, "probes inconclusive");
	kb_store_bisection_release(&sb);
}

/*
 * Two options that each cost 25%: each alone lies in between the ends.
 * The pair is the answer, but not a 1-minimal one (neither without the
 * other is good), and more boots would not change that.
 */
static void test_bisect__probes_in_between_are_not_minimised(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "noise: { boot_cv: 0.02 }\nseed: 3\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.75\n"
		      "  - when: { OPT_05: y }\n    factor: 0.75\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	assert_culprits(f->r, "OPT_02 OPT_05");
	assert_false(f->r->minimal);
	assert_int_equal(f->r->nunsettled, 2);
	assert_int_equal(f->r->nbetween, 2);
	assert_int_equal(f->r->settle_boots, 0);
	assert_int_equal(f->r->more_boots, 0);
}

static void test_bisect__finds_triple(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 5\n"
		      "effects:\n  - when: { OPT_02: y, OPT_07: y, OPT_13: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_DDMIN);
	assert_culprits(f->r, "OPT_02 OPT_07 OPT_13");
}

static void test_bisect__split_cannot_find_a_pair(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_SPLIT);
	assert_int_equal(f->r->nculprits, 1);
	assert_int_equal(f->r->nprobes, 4);
}

static void test_bisect__split_finds_single_culprit(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_11: y }\n    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_SPLIT);
	assert_culprits(f->r, "OPT_11");
	assert_int_equal(f->r->nprobes, 4);
}

/*
 * DEBUG_SPINLOCK=y alone does not hold without DEBUG_KERNEL=y: the two
 * move as one group, and the answer names both.
 */
static void test_bisect__culprit_moves_with_its_dependency(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 11\n"
		      "depends: { DEBUG_SPINLOCK: DEBUG_KERNEL,"
		      " PARAVIRT_SPINLOCKS: [PARAVIRT, SMP] }\n"
		      "effects:\n  - when: { DEBUG_SPINLOCK: y }\n"
		      "    factor: 0.6\n");
	f->good = config("CONFIG_OPT_00=y\n# CONFIG_OPT_01 is not set\n"
			 "# CONFIG_DEBUG_KERNEL is not set\n"
			 "# CONFIG_DEBUG_SPINLOCK is not set\n"
			 "CONFIG_OPT_02=m\n# CONFIG_OPT_03 is not set\n"
			 "CONFIG_SMP=y\nCONFIG_PARAVIRT=y\n"
			 "# CONFIG_PARAVIRT_SPINLOCKS is not set\n"
			 "CONFIG_OPT_04=\"a\"\nCONFIG_OPT_05=16\n");
	f->bad = config("# CONFIG_OPT_00 is not set\nCONFIG_OPT_01=y\n"
			"CONFIG_DEBUG_KERNEL=y\nCONFIG_DEBUG_SPINLOCK=y\n"
			"CONFIG_OPT_02=y\nCONFIG_OPT_03=y\n"
			"CONFIG_SMP=y\nCONFIG_PARAVIRT=y\n"
			"CONFIG_PARAVIRT_SPINLOCKS=y\n"
			"CONFIG_OPT_04=\"b\"\nCONFIG_OPT_05=32\n");
	run(f, KB_BISECT_DDMIN);
	assert_int_equal(f->r->nchanges, 9);
	/* PARAVIRT and SMP do not change: PARAVIRT_SPINLOCKS moves alone */
	assert_int_equal(f->r->ngroups, 8);
	assert_culprits(f->r, "DEBUG_KERNEL DEBUG_SPINLOCK");
	assert_int_equal(f->r->culprits[0].group, f->r->culprits[1].group);
	assert_string_equal(f->r->culprits[1].good, "n");
	assert_string_equal(f->r->culprits[1].bad, "y");
	assert_true(fabs(f->r->change_pct + 40) < 6);
}

static void test_bisect__probe_that_fails_to_build_is_skipped(void **state)
{
	struct fixture *f = *state;
	size_t i, nskip = 0;

	/* the first half (OPT_00 without OPT_15) does not build */
	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 13\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.7\n"
		      "failures:\n  - when: { OPT_00: y, OPT_15: n }\n"
		      "    stage: build\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_DDMIN);
	assert_culprits(f->r, "OPT_03");
	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_bisect_probe *p = &f->r->probes[i];

		if (p->cls != KB_BISECT_SKIP)
			continue;
		nskip++;
		assert_int_equal(p->boots, 0);
		assert_msg_contains(p->reason,
				    "build fails when OPT_00=y OPT_15=n");
	}
	assert_true(nskip >= 1);
}

static void test_bisect__regression_that_does_not_reproduce(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;

	/* a 1% effect under a 5% threshold is no regression */
	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 17\n"
		      "effects:\n  - when: { OPT_05: y }\n    factor: 0.99\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	assert_false(f->r->reproduced);
	assert_int_equal(f->r->nculprits, 0);
	assert_int_equal(f->r->nprobes, 0);
	assert_true(f->r->ends.verdict != KB_VERDICT_REGRESSION);
	assert_null(kb_bisect_culprit_probe(f->r));
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_string_equal(sb.state, "done");
	assert_msg_contains(sb.result, "does not reproduce");
	assert_int_equal(sb.nsteps, 1);
	assert_string_not_equal(sb.steps[0].classification, "bad");
	kb_store_bisection_release(&sb);
}

static void test_bisect__improvement_does_not_reproduce(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 17\n"
		      "effects:\n  - when: { OPT_05: y }\n    factor: 1.5\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	assert_false(f->r->reproduced);
	assert_int_equal(f->r->ends.verdict, KB_VERDICT_IMPROVEMENT);
	assert_int_equal(f->r->nprobes, 0);
}

static void test_bisect__stores_steps_and_probe_variants(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t i, n = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_06: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_string_equal(sb.kind, "options");
	assert_string_equal(sb.good, "good.config");
	assert_string_equal(sb.bad, "bad.config");
	assert_string_equal(sb.result, "OPT_06=y");
	assert_int_equal(sb.experiment_id, f->r->experiment);
	assert_int_equal(sb.nsteps, f->r->nprobes + 1);
	assert_string_equal(sb.steps[0].classification, "bad");
	assert_int_equal(sb.steps[0].variant_idx, 1);
	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_store_bisection_step *st = &sb.steps[i + 1];

		assert_int_equal(st->step_no, i + 2);
		assert_int_equal(st->variant_idx, f->r->probes[i].variant_idx);
		assert_string_equal(st->classification,
				    kb_bisect_class_name(f->r->probes[i].cls));
		assert_true(fabs(st->change_pct - f->r->probes[i].change_pct) <
			    1e-9);
	}
	kb_store_bisection_release(&sb);

	/* the ends and one variant per probe, each with its boots */
	assert_int_equal(kb_store_variants(f->s, f->r->experiment, "read_iops",
					   &vs, &n, &err),
			 0);
	assert_int_equal(n, f->r->nprobes + 2);
	assert_string_equal(vs[0].label, "good");
	assert_string_equal(vs[1].label, "bad");
	/* the ends ran in every round: their own and each probe's */
	assert_int_equal(vs[0].nboots, vs[1].nboots);
	assert_true(vs[0].nboots >= 3 * (f->r->nprobes + 1));
	for (i = 0; i < n; i++) {
		const struct kb_bisect_probe *p =
			i >= 2 ? &f->r->probes[i - 2] : NULL;

		/* the culprit's probe had its fresh rounds besides */
		if (p && p->napplied == 1 &&
		    !strcmp(f->r->changes[p->applied[0]].option, "OPT_06"))
			assert_int_equal(vs[i].nboots,
					 p->boots + f->r->confirm_rounds);
		else if (p)
			assert_int_equal(vs[i].nboots, p->boots);
		kb_store_variant_release(&vs[i]);
	}
	free(vs);
}

static void test_bisect__reuses_builds_from_the_store(void **state)
{
	struct fixture *f = *state;
	unsigned builds, probes;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_DDMIN);
	builds = f->r->builds;
	probes = (unsigned)f->r->nprobes;
	assert_int_equal(builds, probes + 2);
	/* bisected again (--fresh): every boot afresh, no build done again,
	 * the same answers from the same numbers */
	f->fresh = 1;
	run(f, KB_BISECT_DDMIN);
	assert_int_equal(f->r->nprobes, probes);
	assert_int_equal(f->r->builds, 0);
	assert_culprits(f->r, "OPT_02");
}

static void test_bisect__identical_configs_are_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;

	load_model(f, "metric: read_iops\nbase: 1000\n");
	f->good = options(4, "n");
	f->bad = options(4, "n");
	o.metric = "read_iops";
	o.good_name = "a.config";
	o.bad_name = "b.config";
	assert_int_equal(kb_bisect_options(f->s, f->ex, f->good, f->bad, &o,
					   &f->r, &err),
			 KB_EINPUT);
	assert_null(f->r);
	assert_msg_contains(err.msg, "nothing to bisect");
}

static void test_bisect__end_that_does_not_build_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "failures:\n  - when: { OPT_01: y }\n    stage: build\n");
	f->good = options(4, "n");
	f->bad = options(4, "y");
	o.metric = "read_iops";
	o.good_name = "a.config";
	o.bad_name = "b.config";
	assert_int_equal(kb_bisect_options(f->s, f->ex, f->good, f->bad, &o,
					   &f->r, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "the bad end 'b.config' cannot be measured");
	assert_msg_contains(err.msg, "build fails when OPT_01=y");
}

/* ---- the model's depends: what bisection relies on ---------------------- */

static double expected(const struct kb_model *m, const char *spin,
		       const char *kernel)
{
	struct kb_setting s[2] = {
		{ "DEBUG_SPINLOCK", spin, KB_FACTOR_KCONFIG },
		{ "DEBUG_KERNEL", kernel, KB_FACTOR_KCONFIG },
	};
	struct kb_variant v;

	memset(&v, 0, sizeof(v));
	v.label = "v";
	v.settings = s;
	v.nsettings = 2;
	return kb_model_expected(m, &v);
}

static void test_bisect__model_drops_option_with_unmet_depends(void **state)
{
	struct fixture *f = *state;
	const char *const *on = NULL;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "depends: { CONFIG_DEBUG_SPINLOCK: DEBUG_KERNEL }\n"
		      "effects:\n  - when: { DEBUG_SPINLOCK: y }\n"
		      "    factor: 0.5\n"
		      "  - when: { DEBUG_SPINLOCK: n }\n    factor: 0.9\n");
	assert_true(fabs(expected(f->model, "y", "y") - 500) < 1e-9);
	/* dropped: counts as n, so the n-effect holds instead */
	assert_true(fabs(expected(f->model, "y", "n") - 900) < 1e-9);
	assert_true(fabs(expected(f->model, "n", "y") - 900) < 1e-9);
	assert_int_equal(kb_model_depends(f->model, "DEBUG_SPINLOCK", &on), 1);
	assert_string_equal(on[0], "DEBUG_KERNEL");
	assert_int_equal(kb_model_depends(f->model, "DEBUG_KERNEL", &on), 0);
	assert_null(on);
}

static void test_bisect__model_depends_follow_chains(void **state)
{
	struct fixture *f = *state;
	struct kb_setting s[3] = {
		{ "A", "y", KB_FACTOR_KCONFIG },
		{ "B", "y", KB_FACTOR_KCONFIG },
		{ "C", "n", KB_FACTOR_KCONFIG },
	};
	struct kb_variant v;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "depends: { A: B, B: [C] }\n"
		      "effects:\n  - when: { A: y }\n    factor: 0.5\n");
	memset(&v, 0, sizeof(v));
	v.label = "v";
	v.settings = s;
	v.nsettings = 3;
	assert_true(fabs(kb_model_expected(f->model, &v) - 1000) < 1e-9);
	s[2].value = "y";
	assert_true(fabs(kb_model_expected(f->model, &v) - 500) < 1e-9);
}

static void test_bisect__model_depends_errors_name_the_place(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "depends: { A: B, B: A }\n", "m.yaml:3:12: 'depends' has a cycle" },
		{ "depends: { A: A }\n", "cannot depend on itself" },
		{ "depends: { A: guest.vcpus }\n",
		  "'guest.vcpus' cannot be in 'depends'" },
		{ "depends: { A: [] }\n", "the dependencies of 'A' are empty" },
		{ "depends: { A: { B: y } }\n", "found a mapping" },
		{ "depends: { A: B, CONFIG_A: C }\n",
		  "'CONFIG_A' appears twice" },
		{ "depends: [A]\n", "'depends' must be a mapping" },
		{ "depends: { a-b: C }\n", "invalid option name" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_model *m = NULL;
		char *text = kb_asprintf("metric: read_iops\nbase: 1\n%s",
					 cases[i].text);

		assert_int_equal(kb_model_parse_buffer(text, strlen(text),
						       "m.yaml", &m, &err),
				 KB_EINPUT);
		assert_null(m);
		assert_msg_contains(err.msg, cases[i].msg);
		free(text);
	}
}

/* The applied options of probe @i, space-separated, into @out. */
static void applied_text(const struct kb_bisect_result *r, size_t i,
			 struct kb_buf *out)
{
	size_t k;

	for (k = 0; k < r->probes[i].napplied; k++)
		kb_buf_addf(out, "%s%s", k ? " " : "",
			    r->changes[r->probes[i].applied[k]].option);
}

static const struct kb_build_weights *weights_of(void *arg)
{
	return arg;
}

static void with_weights(struct kb_bisect_opts *o, void *arg)
{
	o->weights = weights_of;
	o->weights_arg = arg;
}

static void test_bisect__probes_cheapest_build_first(void **state)
{
	struct fixture *f = *state;
	struct kb_build_weights *w = kb_build_weights_new();
	struct kb_buf first = KB_BUF_INIT;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_00: y }\n    factor: 0.7\n");
	f->good = options(4, "n");
	f->bad = options(4, "y");
	/* from the bad end (compiled last), moving OPT_02 back is dear: the
	 * chunk that keeps it at its bad level goes first */
	kb_build_weights_set(w, "OPT_02", 1000);
	run_adjusted(f, KB_BISECT_DDMIN, with_weights, w);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_02 OPT_03");
	assert_string_equal(kb_bisect_class_name(f->r->probes[0].cls), "good");
	assert_culprits(f->r, "OPT_00");
	assert_true(f->r->minimal);
	/* the same bisection again (--fresh) starts from the same point
	 * (the ends come from the store now): the same probes, nothing
	 * built */
	f->fresh = 1;
	run_adjusted(f, KB_BISECT_DDMIN, with_weights, w);
	kb_buf_reset(&first);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_02 OPT_03");
	assert_int_equal(f->r->builds, 0);
	/* without weights, in order: {OPT_00 OPT_01} first */
	run(f, KB_BISECT_DDMIN);
	kb_buf_reset(&first);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_00 OPT_01");
	assert_culprits(f->r, "OPT_00");
	kb_buf_release(&first);
	kb_build_weights_free(w);
}

static int not_opt_03(void *arg, const char *option)
{
	(void)arg;
	return strcmp(option, "OPT_03") != 0;
}

static void with_settable(struct kb_bisect_opts *o, void *arg)
{
	(void)arg;
	o->settable = not_opt_03;
}

static void test_bisect__options_no_prompt_sets_follow(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_01: y }\n    factor: 0.7\n");
	f->good = options(4, "n");
	f->bad = options(4, "y");
	run_adjusted(f, KB_BISECT_DDMIN, with_settable, NULL);
	assert_int_equal(f->r->nchanges, 3);
	assert_int_equal(f->r->nderived, 1);
	assert_string_equal(f->r->derived[0].option, "OPT_03");
	assert_string_equal(f->r->derived[0].bad, "y");
	assert_culprits(f->r, "OPT_01");
}

struct steps {
	unsigned builds, boots;
};

static void count_step(const char *label, unsigned boot_no, void *arg)
{
	struct steps *st = arg;

	assert_non_null(label);
	if (boot_no)
		st->boots++;
	else
		st->builds++;
}

static void with_steps(struct kb_bisect_opts *o, void *arg)
{
	o->step = count_step;
	o->progress_arg = arg;
}

static void test_bisect__says_each_build_and_boot(void **state)
{
	struct fixture *f = *state;
	struct steps st = { 0, 0 };

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run_adjusted(f, KB_BISECT_DDMIN, with_steps, &st);
	assert_culprits(f->r, "OPT_02");
	assert_int_equal(st.builds, f->r->builds);
	assert_int_equal(st.boots, f->r->boots);
}

static volatile sig_atomic_t stop_flag;

/* Stops the bisection at its fourth boot. */
static void stop_at_boot_4(const char *label, unsigned boot_no, void *arg)
{
	unsigned *boots = arg;

	(void)label;
	if (boot_no && ++*boots == 4)
		stop_flag = 2;
}

static void test_bisect__stops_when_asked(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;
	int64_t exp = 0;
	unsigned boots = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	o.metric = kb_model_metric(f->model);
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.build_salt = kb_model_text(f->model);
	o.step = stop_at_boot_4;
	o.progress_arg = &boots;
	o.stop = &stop_flag;
	o.experiment_id = &exp;
	stop_flag = 0;
	assert_int_equal(kb_bisect_options(f->s, f->ex, f->good, f->bad, &o,
					   &f->r, &err),
			 KB_EFAIL);
	assert_null(f->r);
	assert_msg_contains(err.msg, "stopped by signal 2");
	/* the boot that was starting ran; none after it */
	assert_int_equal(boots, 4);
	assert_true(exp > 0);
	memset(&sb, 0, sizeof(sb));
	assert_int_equal(kb_store_bisection_get(f->s, 1, &sb, &err), 0);
	assert_string_equal(sb.state, "failed");
	kb_store_bisection_release(&sb);
	stop_flag = 0;
}

/* ---- adaptive group testing (KB_BISECT_GROUP, the default) ------------- */

static void test_bisect__group_is_the_default(void **state)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;

	(void)state;
	assert_int_equal(o.strategy, KB_BISECT_GROUP);
}

/* ceil(log2 N) + 2 for N = 16 */
#define GROUP_SINGLE_BOUND 6

/* A single culprit @opt among 16 options, found by group testing. */
static void group_single(struct fixture *f, const char *opt)
{
	char *model = kb_asprintf("metric: read_iops\nbase: 1000\n" NOISE
				  "seed: 7\neffects:\n  - when: { %s: y }\n"
				  "    factor: 0.7\n",
				  opt);

	load_model(f, model);
	free(model);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, opt);
	assert_true(f->r->minimal);
	assert_true(f->r->complete);
	assert_int_equal(f->r->nunsettled, 0);
	if (f->r->nprobes > GROUP_SINGLE_BOUND)
		fail_msg("%zu probes for %s, more than ceil(log2 16) + 2",
			 f->r->nprobes, opt);
	assert_true(fabs(f->r->change_pct + 30) < 6);
	assert_true(f->r->confirmed);
	assert_true(f->r->culprit_boots >= 3 + f->r->confirm_rounds);
}

static void test_bisect__group_single_culprit_first(void **state)
{
	struct fixture *f = *state;

	group_single(f, "OPT_00");
	/* the shortest bad prefix is the culprit alone: its probe is the
	 * confirmation, and nothing more is asked */
	assert_int_equal(f->r->nprobes, 4);
}

static void test_bisect__group_single_culprit_middle(void **state)
{
	group_single(*state, "OPT_08");
}

static void test_bisect__group_single_culprit_last(void **state)
{
	struct fixture *f = *state;

	group_single(f, "OPT_15");
	/* log2(16) prefixes, then the culprit alone */
	assert_int_equal(f->r->nprobes, 5);
	assert_int_equal(f->r->probes[4].napplied, 1);
	assert_int_equal(f->r->probes[4].cls, KB_BISECT_BAD);
}

/* The number of probes that applied exactly the options in @want. */
static size_t probes_of(const struct kb_bisect_result *r, const char *want)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < r->nprobes; i++) {
		kb_buf_reset(&b);
		applied_text(r, i, &b);
		n += !strcmp(b.buf, want);
	}
	kb_buf_release(&b);
	return n;
}

static void test_bisect__group_finds_interacting_pair(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03 OPT_12");
	assert_true(f->r->minimal);
	/* each without the other was shown good */
	assert_int_equal(probes_of(f->r, "OPT_03"), 1);
	assert_int_equal(probes_of(f->r, "OPT_12"), 1);
	assert_true(fabs(f->r->change_pct + 30) < 6);
	/* 4 log2 N + 4 */
	assert_in_range(f->r->nprobes, 8, 20);
}

/*
 * OPT_12 alone is probed once, when it is the member found first; the
 * check that OPT_03 is needed asks for the same set and gets the verdict
 * from the cache: every stored step is a distinct set.
 */
static void test_bisect__group_reuses_a_verdict(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf a = KB_BUF_INIT, x = KB_BUF_INIT;
	size_t i, k, twelve = 0, three = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03 OPT_12");
	for (i = 0; i < f->r->nprobes; i++) {
		kb_buf_reset(&a);
		applied_text(f->r, i, &a);
		if (!strcmp(a.buf, "OPT_12"))
			twelve = i;
		if (!strcmp(a.buf, "OPT_03"))
			three = i;
		for (k = 0; k < i; k++) {
			kb_buf_reset(&x);
			applied_text(f->r, k, &x);
			if (!strcmp(a.buf, x.buf))
				fail_msg("probes %zu and %zu both applied '%s'",
					 k, i, a.buf);
		}
	}
	/* OPT_12 alone came before OPT_03 alone, which was the last probe
	 * (the set without OPT_03 answered from the cache) */
	assert_true(twelve < three);
	assert_int_equal(three, f->r->nprobes - 1);
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_int_equal(sb.nsteps, f->r->nprobes + 1);
	assert_int_equal(f->r->builds, f->r->nprobes + 2);
	kb_store_bisection_release(&sb);
	kb_buf_release(&a);
	kb_buf_release(&x);
}

static void test_bisect__group_finds_triple(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 5\n"
		      "effects:\n  - when: { OPT_02: y, OPT_07: y, OPT_13: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_02 OPT_07 OPT_13");
	assert_true(f->r->minimal);
	/* 6 log2 N + 6 */
	assert_in_range(f->r->nprobes, 12, 30);
}

/*
 * The middle prefix (OPT_00..OPT_07) does not build: a skip, neither
 * good nor bad.  The search tries the prefix beside it instead and still
 * finds OPT_11, 1-minimal.
 */
static void test_bisect__group_skip_in_the_middle(void **state)
{
	struct fixture *f = *state;
	size_t i, nskip = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_11: y }\n    factor: 0.7\n"
		      "failures:\n  - when: { OPT_07: y, OPT_08: n }\n"
		      "    stage: build\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_11");
	assert_true(f->r->minimal);
	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_bisect_probe *p = &f->r->probes[i];

		if (p->cls != KB_BISECT_SKIP)
			continue;
		nskip++;
		assert_int_equal(p->boots, 0);
		assert_int_equal(p->napplied, 8);
		assert_msg_contains(p->reason,
				    "build fails when OPT_07=y OPT_08=n");
	}
	assert_int_equal(nskip, 1);
	assert_int_equal(f->r->probes[0].cls, KB_BISECT_SKIP);
	assert_true(f->r->nprobes <= GROUP_SINGLE_BOUND + 1);
}

/*
 * A 9% regression under 10% boot noise: probes stay unknown after 10
 * boots, the search holds the undecided changes as a block, and the
 * answer is the candidates, not minimised, with the boots that would
 * settle it; no option is named a culprit.
 */
static void test_bisect__group_noise_is_not_minimised(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;
	size_t i;
	int has_culprit = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "noise: { boot_cv: 0.10 }\nseed: 2\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.91\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_GROUP);
	assert_true(f->r->reproduced);
	assert_true(f->r->complete);
	assert_false(f->r->minimal);
	/* a candidate set (OPT_03 alone, or more), never called 1-minimal */
	assert_true(f->r->nculprits >= 1);
	for (i = 0; i < f->r->nculprits; i++)
		has_culprit |= !strcmp(f->r->culprits[i].option, "OPT_03");
	assert_true(has_culprit);
	assert_true(f->r->nunsettled >= 1);
	assert_int_equal(f->r->nbetween, 0);
	assert_in_range(f->r->settle_boots, 40, 200);
	assert_true(f->r->more_boots > 0);
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_msg_contains(sb.result, "not minimised:");
	kb_store_bisection_release(&sb);
}

/* Two options that each cost 25%: the pair, in between, not minimised. */
static void test_bisect__group_probes_in_between_are_not_minimised(void **state)
{
	struct fixture *f = *state;

	load_model(f, "metric: read_iops\nbase: 1000\n"
		      "noise: { boot_cv: 0.02 }\nseed: 3\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.75\n"
		      "  - when: { OPT_05: y }\n    factor: 0.75\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_02 OPT_05");
	assert_false(f->r->minimal);
	assert_int_equal(f->r->nunsettled, 2);
	assert_int_equal(f->r->nbetween, 2);
}

static void limit_probes(struct kb_bisect_opts *o, void *arg)
{
	o->max_probes = *(unsigned *)arg;
}

/* Stopped by max_probes: the last bad prefix, incomplete, not minimal. */
static void test_bisect__group_probe_limit_leaves_candidates(void **state)
{
	struct fixture *f = *state;
	unsigned limit = 2;
	size_t i;
	int has_culprit = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_05: y }\n    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run_adjusted(f, KB_BISECT_GROUP, limit_probes, &limit);
	assert_int_equal(f->r->nprobes, 2);
	assert_false(f->r->complete);
	assert_false(f->r->minimal);
	/* the first 8 options bad, the first 4 good: the answer is the 8
	 * (the first 4 could still hold a partner of the one needed) */
	assert_int_equal(f->r->nculprits, 8);
	for (i = 0; i < f->r->nculprits; i++)
		has_culprit |= !strcmp(f->r->culprits[i].option, "OPT_05");
	assert_true(has_culprit);
}

static void test_bisect__group_reuses_builds_from_the_store(void **state)
{
	struct fixture *f = *state;
	unsigned probes;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"
		      "effects:\n  - when: { OPT_03: y, OPT_12: y }\n"
		      "    factor: 0.7\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	probes = (unsigned)f->r->nprobes;
	assert_int_equal(f->r->builds, probes + 2);
	f->fresh = 1; /* bisected again: the builds from the store */
	run(f, KB_BISECT_GROUP);
	assert_int_equal(f->r->nprobes, probes);
	assert_int_equal(f->r->builds, 0);
	assert_culprits(f->r, "OPT_03 OPT_12");
}

/*
 * Six options: prefixes of 2, 3 and 4 split the answers equally well.
 * Without weights the middle one (3) goes first.  With OPT_03 dear to
 * rebuild from the bad end (built last), it still does while its build
 * is in the store; in a new store the prefix that keeps OPT_03 at its
 * bad level (4) goes first.
 */
static void test_bisect__group_prefers_cheap_builds(void **state)
{
	struct fixture *f = *state;
	struct kb_build_weights *w = kb_build_weights_new();
	struct kb_buf first = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_05: y }\n    factor: 0.7\n");
	f->good = options(6, "n");
	f->bad = options(6, "y");
	run(f, KB_BISECT_GROUP);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_00 OPT_01 OPT_02");
	assert_culprits(f->r, "OPT_05");
	f->fresh = 1; /* bisected again, with weights */
	kb_build_weights_set(w, "OPT_03", 1000);
	kb_build_weights_set(w, "OPT_04", 1);
	kb_build_weights_set(w, "OPT_05", 1);
	run_adjusted(f, KB_BISECT_GROUP, with_weights, w);
	kb_buf_reset(&first);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_00 OPT_01 OPT_02");
	assert_int_equal(f->r->builds, 0);
	/* a new store: nothing built */
	kb_store_close(f->s);
	f->s = NULL;
	unlink(f->db);
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	run_adjusted(f, KB_BISECT_GROUP, with_weights, w);
	kb_buf_reset(&first);
	applied_text(f->r, 0, &first);
	assert_string_equal(first.buf, "OPT_00 OPT_01 OPT_02 OPT_03");
	assert_culprits(f->r, "OPT_05");
	assert_true(f->r->minimal);
	kb_buf_release(&first);
	kb_build_weights_free(w);
}


/* ---- probes booted over several hosts (kb_pipeline_hosts_executor) ---- */

#define HOST_A "test:///a"
#define HOST_B "test:///b"
#define PAIR_MODEL                                                    \
	"metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"           \
	"effects:\n  - when: { OPT_03: y, OPT_12: y }\n"             \
	"    factor: 0.7\n"

/* Two hosts, each with the model's executor on it, and the executor
 * that spreads the boots over them. */
struct two_hosts {
	struct kb_executor *on[2];
	struct kb_pipeline_host hosts[2];
	struct kb_pipeline_hosts_opts o;
	struct kb_executor *hx;
	int64_t exp;
};

static void two_hosts_up(struct fixture *f, struct two_hosts *t)
{
	const char *uri[2] = { HOST_A, HOST_B };
	struct kb_err err = KB_ERR_INIT;
	size_t h;

	memset(t, 0, sizeof(*t));
	for (h = 0; h < 2; h++) {
		assert_int_equal(kb_model_executor_on(f->model, 0, uri[h],
						      &t->on[h]),
				 0);
		t->hosts[h].uri = uri[h];
		t->hosts[h].nslots = 1;
		t->hosts[h].slots = &t->on[h];
	}
	t->o = (struct kb_pipeline_hosts_opts)KB_PIPELINE_HOSTS_OPTS_INIT;
	t->o.hosts = t->hosts;
	t->o.nhosts = 2;
	t->o.seed = 42;
	t->o.store = f->s;
	t->o.experiment = &t->exp;
	if (kb_pipeline_hosts_executor(f->ex, &t->o, &t->hx, &err))
		fail_msg("%s", err.msg);
}

static void two_hosts_down(struct two_hosts *t)
{
	kb_executor_free(t->hx);
	kb_executor_free(t->on[0]);
	kb_executor_free(t->on[1]);
}

static void with_experiment(struct kb_bisect_opts *o, void *arg)
{
	o->experiment_id = arg;
}

/* Bisect on the hosts of @t: f->ex is the hosts' executor meanwhile. */
static void run_on_hosts(struct fixture *f, struct two_hosts *t)
{
	struct kb_executor *plain = f->ex;

	f->ex = t->hx;
	run_adjusted(f, KB_BISECT_GROUP, with_experiment, &t->exp);
	f->ex = plain;
	assert_int_equal(t->exp, f->r->experiment);
}

/* The boots of experiment @exp on each host, per variant (at most 64),
 * and how many did not end ok. */
static void boots_on(struct fixture *f, int64_t exp, unsigned on[64][2],
		     unsigned *not_ok)
{
	struct kb_store_boot_host *b = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;

	memset(on, 0, sizeof(unsigned) * 64 * 2);
	*not_ok = 0;
	if (kb_store_boot_hosts(f->s, exp, &b, &n, &err))
		fail_msg("%s", err.msg);
	for (i = 0; i < n; i++) {
		assert_true(b[i].variant_idx < 64);
		assert_non_null(b[i].host);
		*not_ok += !b[i].ok;
		if (!strcmp(b[i].host, HOST_A))
			on[b[i].variant_idx][0]++;
		else if (!strcmp(b[i].host, HOST_B))
			on[b[i].variant_idx][1]++;
		else
			fail_msg("a boot on %s", b[i].host);
	}
	kb_store_boot_hosts_free(b, n);
}

/* @r and @one answered alike, probe by probe. */
static void assert_same_answer(const struct kb_bisect_result *r,
			       const struct kb_bisect_result *one)
{
	size_t i;

	assert_int_equal(r->nculprits, one->nculprits);
	for (i = 0; i < r->nculprits; i++)
		assert_string_equal(r->culprits[i].option,
				    one->culprits[i].option);
	assert_int_equal(r->minimal, one->minimal);
	assert_int_equal(r->nprobes, one->nprobes);
	for (i = 0; i < r->nprobes; i++) {
		assert_int_equal(r->probes[i].cls, one->probes[i].cls);
		assert_int_equal(r->probes[i].boots, one->probes[i].boots);
		assert_true(r->probes[i].change_pct == one->probes[i].change_pct);
	}
	assert_true(r->change_pct == one->change_pct);
	assert_int_equal(r->boots, one->boots);
}

static void test_bisect__probes_boot_over_both_hosts(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_result *one;
	struct two_hosts t;
	unsigned on[64][2], not_ok, a = 0, b = 0;
	size_t v;

	load_model(f, PAIR_MODEL);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	one = f->r;
	f->r = NULL;
	assert_culprits(one, "OPT_03 OPT_12");
	/* on two hosts of one speed: the same probes, boots and answer,
	 * every end's and probe's boots spread over both (bisected again:
	 * the hosts are no input of the bisection here, a matrix's) */
	f->fresh = 1;
	two_hosts_up(f, &t);
	run_on_hosts(f, &t);
	assert_same_answer(f->r, one);
	boots_on(f, t.exp, on, &not_ok);
	assert_int_equal(not_ok, 0);
	for (v = 0; v < 64; v++) {
		/* a round keeps to the host its first boot (an end's) went
		 * to, so that its boots pair: a probe given a second round
		 * of 3 boots may land 2 and 1 again, 4 against 2 */
		unsigned slack = v < 2 ? 1 : 2;

		assert_true(on[v][0] <= on[v][1] + slack &&
			    on[v][1] <= on[v][0] + slack);
		if (on[v][0] + on[v][1] >= 2)
			assert_true(on[v][0] && on[v][1]);
		a += on[v][0];
		b += on[v][1];
	}
	assert_int_equal(a + b, f->r->boots);
	assert_true(a > 10 && b > 10);
	two_hosts_down(&t);
	kb_bisect_result_free(one);
}

static void test_bisect__lost_host_is_drained_not_a_failed_probe(
	void **state)
{
	struct fixture *f = *state;
	struct kb_store_host_count *hc = NULL;
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_bisect_result *one;
	struct two_hosts t;
	unsigned on[64][2], not_ok, b = 0;
	size_t nhc = 0, nv = 0, v;

	load_model(f, PAIR_MODEL "hosts: { \"" HOST_B "\": { fail_after: 2 } }\n");
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	one = f->r;
	f->r = NULL;
	/* b runs 2 boots, then fails 3 and is drained: the rest on a, the
	 * same answer, and none of b's failures a boot of a probe */
	f->fresh = 1;
	two_hosts_up(f, &t);
	run_on_hosts(f, &t);
	assert_same_answer(f->r, one);
	boots_on(f, t.exp, on, &not_ok);
	assert_int_equal(not_ok, 0);
	for (v = 0; v < 64; v++)
		b += on[v][1];
	assert_int_equal(b, 2);
	if (kb_store_host_counts(f->s, t.exp, &hc, &nhc, &err) ||
	    kb_store_variants(f->s, t.exp, "read_iops", &vs, &nv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(nhc, 2);
	assert_string_equal(hc[1].host, HOST_B);
	assert_int_equal(hc[1].boots, 2);
	assert_int_equal(hc[1].failures, 3);
	assert_true(hc[1].drained);
	for (v = 0; v < nv; v++) {
		assert_int_equal(vs[v].nfailed, 0);
		kb_store_variant_release(&vs[v]);
	}
	free(vs);
	kb_store_host_counts_free(hc, nhc);
	two_hosts_down(&t);
	kb_bisect_result_free(one);
}

/* ---- a rerun answers from the finished bisection stored ---------------- */

/* The first column of the first row of @sql in the fixture's database
 * (a second connection), as an integer; -1 when it returns no row. */
static long long db_int(struct fixture *f, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_open(f->db, &db) != SQLITE_OK)
		fail_msg("sqlite3_open '%s'", f->db);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

#define RERUN_MODEL                                                   \
	"metric: read_iops\nbase: 1000\n" NOISE "seed: 3\n"           \
	"effects:\n  - when: { OPT_03: y, OPT_12: y }\n"             \
	"    factor: 0.7\n"

static void test_bisect__rerun_answers_from_the_store(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_result *one;
	long long boots, builds, samples;

	load_model(f, RERUN_MODEL);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	one = f->r;
	f->r = NULL;
	assert_null(one->stored_at);
	boots = db_int(f, "SELECT count(*) FROM boots");
	builds = db_int(f, "SELECT count(*) FROM builds");
	samples = db_int(f, "SELECT count(*) FROM samples");
	assert_int_equal(boots, one->boots);
	/* the same bisection again: the stored answer, nothing built or
	 * booted, no experiment made; the counts are that run's */
	run(f, KB_BISECT_GROUP);
	assert_non_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, one->bisection);
	assert_int_equal(f->r->experiment, one->experiment);
	assert_int_equal(db_int(f, "SELECT count(*) FROM boots"), boots);
	assert_int_equal(db_int(f, "SELECT count(*) FROM builds"), builds);
	assert_int_equal(db_int(f, "SELECT count(*) FROM samples"), samples);
	assert_int_equal(db_int(f, "SELECT count(*) FROM experiments"), 1);
	assert_int_equal(db_int(f, "SELECT count(*) FROM bisections"), 1);
	assert_same_answer(f->r, one);
	assert_culprits(f->r, "OPT_03 OPT_12");
	/* the culprits' own point, as the first run had it */
	assert_non_null(kb_bisect_culprit_probe(one));
	assert_non_null(kb_bisect_culprit_probe(f->r));
	assert_int_equal(kb_bisect_culprit_probe(f->r)->variant_idx,
			 kb_bisect_culprit_probe(one)->variant_idx);
	assert_int_equal(kb_bisect_culprit_probe(f->r)->step,
			 kb_bisect_culprit_probe(one)->step);
	assert_int_equal(f->r->builds, one->builds);
	assert_int_equal(f->r->runs, one->runs);
	assert_int_equal(f->r->nchanges, one->nchanges);
	assert_int_equal(f->r->ngroups, one->ngroups);
	assert_int_equal(f->r->confirmed, one->confirmed);
	assert_int_equal(f->r->confirm_rounds, one->confirm_rounds);
	assert_int_equal(f->r->complete, one->complete);
	assert_int_equal(f->r->end.boots, one->end.boots);
	assert_int_equal(f->r->end.napplied, one->end.napplied);
	assert_true(f->r->ends.change_pct == one->ends.change_pct);
	assert_true(f->r->ends.p == one->ends.p);
	assert_int_equal(f->r->ends.verdict, one->ends.verdict);
	assert_true(f->r->ci_low == one->ci_low && f->r->ci_high == one->ci_high);
	for (size_t i = 0; i < one->nprobes; i++) {
		assert_int_equal(f->r->probes[i].napplied,
				 one->probes[i].napplied);
		assert_memory_equal(f->r->probes[i].applied,
				    one->probes[i].applied,
				    one->probes[i].napplied *
					    sizeof(*one->probes[i].applied));
		assert_true(f->r->probes[i].evidence ==
			    one->probes[i].evidence);
	}
	kb_bisect_result_free(one);
}

/* The model's executor under a real executor's name: a bisection on
 * real hosts. */
static int fwd_build(void *self, const struct kb_variant *v,
		     struct kb_build_result *out, struct kb_err *err)
{
	return kb_executor_build(self, v, out, err);
}

static int fwd_boot(void *self, const struct kb_variant *v,
		    const struct kb_build_result *build, unsigned boot_no,
		    unsigned runs, struct kb_boot_result *out,
		    struct kb_err *err)
{
	return kb_executor_boot(self, v, build, boot_no, runs, out, err);
}

static const struct kb_executor_ops real_named_ops = {
	.name = "libvirt",
	.build = fwd_build,
	.boot = fwd_boot,
	.free = NULL,
};

/* On real hosts each bisection draws the seed of its rounds' orders, so
 * a bias bound to a place in the order does not repeat; the drawn seed
 * is not an input, so the same bisection still finds its stored answer.
 * On the model the seed is the ends' names', and a bisection repeats. */
static void test_bisect__real_hosts_draw_each_order_the_model_repeats(
	void **state)
{
	struct fixture *f = *state;
	struct kb_executor *model, *real;

	load_model(f, RERUN_MODEL);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	f->fresh = 1;
	run(f, KB_BISECT_GROUP);
	run(f, KB_BISECT_GROUP);
	assert_int_equal(db_int(f, "SELECT count(*) FROM experiments"), 2);
	assert_int_equal(db_int(f, "SELECT count(DISTINCT order_seed)"
				   " FROM experiments"),
			 1);
	model = f->ex;
	real = kb_executor_new(&real_named_ops, model);
	f->ex = real;
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03 OPT_12");
	run(f, KB_BISECT_GROUP);
	assert_culprits(f->r, "OPT_03 OPT_12");
	assert_int_equal(db_int(f, "SELECT count(*) FROM experiments"), 4);
	assert_int_equal(db_int(f, "SELECT count(DISTINCT order_seed)"
				   " FROM experiments"),
			 3);
	assert_int_equal(db_int(f, "SELECT count(*) FROM experiments"
				   " WHERE executor = 'libvirt'"
				   " AND length(order_seed) = 16"),
			 2);
	/* without --fresh: the stored answer, whatever seed it drew */
	f->fresh = 0;
	run(f, KB_BISECT_GROUP);
	assert_non_null(f->r->stored_at);
	assert_int_equal(db_int(f, "SELECT count(*) FROM experiments"), 4);
	f->ex = model;
	kb_executor_free(real);
}

static void test_bisect__fresh_boots_it_all_again(void **state)
{
	struct fixture *f = *state;
	long long boots, builds;
	int64_t first;

	load_model(f, RERUN_MODEL);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	first = f->r->bisection;
	boots = db_int(f, "SELECT count(*) FROM boots");
	builds = db_int(f, "SELECT count(*) FROM builds");
	f->fresh = 1;
	run(f, KB_BISECT_GROUP);
	assert_null(f->r->stored_at);
	assert_true(f->r->bisection > first);
	assert_int_equal(f->r->builds, 0); /* the builds from the store */
	assert_true(f->r->boots > 0);
	assert_int_equal(db_int(f, "SELECT count(*) FROM boots"),
			 boots + f->r->boots);
	assert_int_equal(db_int(f, "SELECT count(*) FROM builds"), builds);
	assert_culprits(f->r, "OPT_03 OPT_12");
	/* a rerun after it answers from the latest, the fresh one */
	f->fresh = 0;
	first = f->r->bisection;
	boots = db_int(f, "SELECT count(*) FROM boots");
	run(f, KB_BISECT_GROUP);
	assert_non_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, first);
	assert_int_equal(db_int(f, "SELECT count(*) FROM boots"), boots);
}

static void with_threshold_7(struct kb_bisect_opts *o, void *arg)
{
	(void)arg;
	o->threshold_pct = 7;
}

static void test_bisect__changed_inputs_are_a_new_bisection(void **state)
{
	struct fixture *f = *state;
	long long boots;
	int64_t first;

	load_model(f, RERUN_MODEL);
	f->good = options(16, "n");
	f->bad = options(16, "y");
	run(f, KB_BISECT_GROUP);
	first = f->r->bisection;
	/* another threshold */
	boots = db_int(f, "SELECT count(*) FROM boots");
	run_adjusted(f, KB_BISECT_GROUP, with_threshold_7, NULL);
	assert_null(f->r->stored_at);
	assert_true(f->r->bisection > first);
	assert_true(db_int(f, "SELECT count(*) FROM boots") > boots);
	/* another strategy */
	run(f, KB_BISECT_DDMIN);
	assert_null(f->r->stored_at);
	/* another bad config: one option more at its bad level */
	kb_kconfig_free(f->bad);
	f->bad = options(17, "y");
	boots = db_int(f, "SELECT count(*) FROM boots");
	run(f, KB_BISECT_GROUP);
	assert_null(f->r->stored_at);
	assert_true(db_int(f, "SELECT count(*) FROM boots") > boots);
	/* and the first again: its own answer */
	kb_kconfig_free(f->bad);
	f->bad = options(16, "y");
	boots = db_int(f, "SELECT count(*) FROM boots");
	run(f, KB_BISECT_GROUP);
	assert_non_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, first);
	assert_int_equal(db_int(f, "SELECT count(*) FROM boots"), boots);
}

static void test_bisect__unfinished_bisection_answers_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	unsigned boots = 0;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_02: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	o.metric = kb_model_metric(f->model);
	o.depends = model_depends;
	o.depends_arg = f->model;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(f->model);
	o.build_salt = kb_model_text(f->model);
	o.step = stop_at_boot_4;
	o.progress_arg = &boots;
	o.stop = &stop_flag;
	stop_flag = 0;
	assert_int_equal(kb_bisect_options(f->s, f->ex, f->good, f->bad, &o,
					   &f->r, &err),
			 KB_EFAIL);
	stop_flag = 0;
	/* stopped: bisected again (its builds reused), not answered */
	run(f, KB_BISECT_GROUP);
	assert_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, 2);
	assert_culprits(f->r, "OPT_02");
	/* a running one (killed) neither */
	assert_int_equal(db_int(f, "UPDATE bisections SET state = 'running'"
				   " WHERE id = 2"),
			 -1);
	run(f, KB_BISECT_GROUP);
	assert_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, 3);
	run(f, KB_BISECT_GROUP);
	assert_non_null(f->r->stored_at);
	assert_int_equal(f->r->bisection, 3);
}

/* A damaged answer (@sql changes it) is refused: exit 2, never read. */
static void assert_damaged_refused(struct fixture *f, const char *sql)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_bisect_result *r = NULL;

	assert_int_equal(db_int(f, sql), -1);
	o.metric = kb_model_metric(f->model);
	o.depends = model_depends;
	o.depends_arg = f->model;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(f->model);
	o.build_salt = kb_model_text(f->model);
	assert_int_equal(kb_bisect_options(f->s, f->ex, f->good, f->bad, &o,
					   &r, &err),
			 KB_EINPUT);
	assert_null(r);
	assert_msg_contains(err.msg, "bisection 1 in '");
	assert_msg_contains(err.msg, "its stored answer is damaged");
	assert_msg_contains(err.msg, "--fresh bisects again");
	/* nothing made of it */
	assert_int_equal(db_int(f, "SELECT count(*) FROM bisections"), 1);
}

static void test_bisect__damaged_answer_is_refused(void **state)
{
	struct fixture *f = *state;
	static const char *const damage[] = {
		/* cut short */
		"UPDATE bisections SET answer = substr(answer, 1,"
		" length(answer) / 2)",
		/* a probe's change out of range */
		"UPDATE bisections SET answer = replace(answer, 'probes ',"
		" 'probes 999999999 ')",
		"UPDATE bisections SET answer = 'kbisect-answer-1 options 1'",
		"UPDATE bisections SET answer = 'kbisect-answer-9 x'",
		"UPDATE bisections SET answer = ''",
		/* not text */
		"UPDATE bisections SET answer = CAST(answer AS BLOB)",
		"UPDATE bisections SET answer = 42",
		/* a change that is not this bisection's */
		"UPDATE bisections SET answer = replace(answer, '=OPT_03',"
		" '=OPT_3X')",
		/* a NUL inside a string */
		"UPDATE bisections SET answer = replace(answer, '=OPT_03',"
		" '=OPT%000')",
		/* trailing tokens */
		"UPDATE bisections SET answer = answer || ' more'",
	};
	size_t i;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_GROUP);
	assert_int_equal(db_int(f, "CREATE TABLE kept AS SELECT answer"
				   " FROM bisections"),
			 -1);
	for (i = 0; i < sizeof(damage) / sizeof(*damage); i++) {
		/* each from the answer as written */
		assert_int_equal(db_int(f, "UPDATE bisections SET answer ="
					   " (SELECT answer FROM kept)"),
				 -1);
		assert_damaged_refused(f, damage[i]);
	}
}

/* The stored answer of bisection 1, or set it to @text (not NULL). */
static char *answer_io(struct fixture *f, const char *text)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *got = NULL;

	if (sqlite3_open(f->db, &db) != SQLITE_OK)
		fail_msg("sqlite3_open '%s'", f->db);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db, text ? "UPDATE bisections SET answer = ?"
					: "SELECT answer FROM bisections",
			       -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s", sqlite3_errmsg(db));
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		got = kb_strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return got;
}

/*
 * A stored answer changed at random (bytes replaced, cut, tokens
 * repeated), 400 times: each is refused as damaged or read as an answer
 * whose every index is in range, never a crash (run under ASan).
 */
static void test_bisect__mutated_answers_are_read_or_refused(void **state)
{
	struct fixture *f = *state;
	static const char alphabet[] = " \n=~%0123456789abcdefnanix-+.eE";
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	unsigned long long x = 88172645463325252ull;
	unsigned read = 0, refused = 0, k;
	char *orig;

	load_model(f, "metric: read_iops\nbase: 1000\n" NOISE "seed: 7\n"
		      "effects:\n  - when: { OPT_03: y }\n    factor: 0.7\n");
	f->good = options(8, "n");
	f->bad = options(8, "y");
	run(f, KB_BISECT_GROUP);
	orig = answer_io(f, NULL);
	assert_non_null(orig);
	o.metric = kb_model_metric(f->model);
	o.depends = model_depends;
	o.depends_arg = f->model;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(f->model);
	o.build_salt = kb_model_text(f->model);
	for (k = 0; k < 400; k++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_bisect_result *r = NULL;
		struct kb_buf b = KB_BUF_INIT;
		size_t n = strlen(orig), at, i, j, len;
		int ret;

		kb_buf_adds(&b, orig);
		for (j = 0; j <= k % 3; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			at = (size_t)(x % n);
			len = (size_t)((x >> 20) % 12) + 1;
			switch ((x >> 40) % 3) {
			case 0: /* bytes replaced */
				for (i = at; i < at + len && i < b.len; i++)
					b.buf[i] = alphabet[(x >> (i % 32)) %
							    (sizeof(alphabet) - 1)];
				break;
			case 1: /* cut there */
				b.buf[at] = '\0';
				b.len = at;
				break;
			default: /* a stretch repeated */
				if (at + len <= b.len) {
					char *dup = kb_strndup(b.buf + at, len);

					kb_buf_adds(&b, dup);
					free(dup);
				}
				break;
			}
			n = b.len ? b.len : 1;
		}
		free(answer_io(f, b.buf));
		ret = kb_bisect_options(f->s, f->ex, f->good, f->bad, &o, &r,
					&err);
		if (ret == 0) {
			assert_non_null(r->stored_at);
			for (i = 0; i < r->nprobes; i++)
				for (j = 0; j < r->probes[i].napplied; j++)
					assert_true(r->probes[i].applied[j] <
						    r->nchanges);
			for (j = 0; j < r->end.napplied; j++)
				assert_true(r->end.applied[j] < r->nchanges);
			read++;
		} else {
			assert_int_equal(ret, KB_EINPUT);
			assert_msg_contains(err.msg, "its stored answer is damaged");
			refused++;
		}
		kb_bisect_result_free(r);
		kb_buf_release(&b);
	}
	free(answer_io(f, orig));
	free(orig);
	/* most changes are refused (398 of 400 here); a digit changed reads */
	assert_true(refused > 200);
	assert_int_equal(read + refused, 400);
	assert_int_equal(db_int(f, "SELECT count(*) FROM bisections"), 1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(test_bisect__finds_single_culprit_among_16),
	T(test_bisect__probes_run_beside_their_ends),
	T(test_bisect__finds_interacting_pair),
	T(test_bisect__culprit_probe_is_the_set_alone),
	T(test_bisect__finds_triple),
	T(test_bisect__unknown_probes_are_not_minimised),
	T(test_bisect__probes_in_between_are_not_minimised),
	T(test_bisect__split_cannot_find_a_pair),
	T(test_bisect__split_finds_single_culprit),
	T(test_bisect__culprit_moves_with_its_dependency),
	T(test_bisect__probe_that_fails_to_build_is_skipped),
	T(test_bisect__regression_that_does_not_reproduce),
	T(test_bisect__improvement_does_not_reproduce),
	T(test_bisect__stores_steps_and_probe_variants),
	T(test_bisect__reuses_builds_from_the_store),
	T(test_bisect__identical_configs_are_refused),
	T(test_bisect__end_that_does_not_build_is_an_error),
	T(test_bisect__model_drops_option_with_unmet_depends),
	T(test_bisect__model_depends_follow_chains),
	T(test_bisect__model_depends_errors_name_the_place),
	T(test_bisect__probes_cheapest_build_first),
	T(test_bisect__options_no_prompt_sets_follow),
	T(test_bisect__says_each_build_and_boot),
	T(test_bisect__stops_when_asked),
	T(test_bisect__group_is_the_default),
	T(test_bisect__group_single_culprit_first),
	T(test_bisect__group_single_culprit_middle),
	T(test_bisect__group_single_culprit_last),
	T(test_bisect__group_finds_interacting_pair),
	T(test_bisect__group_reuses_a_verdict),
	T(test_bisect__group_finds_triple),
	T(test_bisect__group_skip_in_the_middle),
	T(test_bisect__group_noise_is_not_minimised),
	T(test_bisect__group_probes_in_between_are_not_minimised),
	T(test_bisect__group_probe_limit_leaves_candidates),
	T(test_bisect__group_reuses_builds_from_the_store),
	T(test_bisect__group_prefers_cheap_builds),
	T(test_bisect__probes_boot_over_both_hosts),
	T(test_bisect__lost_host_is_drained_not_a_failed_probe),
	T(test_bisect__rerun_answers_from_the_store),
	T(test_bisect__real_hosts_draw_each_order_the_model_repeats),
	T(test_bisect__fresh_boots_it_all_again),
	T(test_bisect__changed_inputs_are_a_new_bisection),
	T(test_bisect__unfinished_bisection_answers_nothing),
	T(test_bisect__damaged_answer_is_refused),
	T(test_bisect__mutated_answers_are_read_or_refused),
};

KB_TEST_MAIN(tests)
