#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testfs.h"
#include "analysis.h"
#include "design.h"
#include "effects.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "stats.h"
#include "store.h"

/*
 * Screening designs against known truth: a Plackett-Burman design of 12
 * factors and a 2^(16-11) fraction run on performance models (noise
 * included, time scale 0); `effects` must recover the planted main
 * effects, state each one's aliases, and never estimate an interaction
 * it cannot tell from a main effect.  (tests/unit/why.c has the full and
 * 2^(4-1) designs.)
 */

struct fixture {
	char dir[64], db[128];
	struct kb_store *s;
	int64_t exp;
	struct kb_analysis *a;
	struct kb_effect *e;
	size_t n;
};

/* "O1: [n, y], O2: [n, y], ..." for @k factors */
static char *factors(size_t k)
{
	static char buf[1024];
	size_t i, len = 0;

	for (i = 0; i < k; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%sO%zu: [n, y]", i ? ", " : "", i + 1);
	return buf;
}

static void run_matrix(struct fixture *f, const char *matrix,
		       const char *model)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	double cv, df;

	if (kb_matrix_parse_buffer(matrix, strlen(matrix), "t.yaml", &m,
				   &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model, strlen(model), "model.yaml", &mo,
				  &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	if (kb_pipeline_run(f->s, p, ex, &o, &f->exp, &err) ||
	    kb_analysis_open(f->s, f->exp, NULL, &f->a, &err) ||
	    kb_effects_estimate(f->a, &f->e, &f->n, &cv, &df, &err))
		fail_msg("%s", err.msg);
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
}

static void run_experiment(struct fixture *f, const char *design, size_t k,
			   const char *model_effects)
{
	char matrix[2048], model[1024];

	snprintf(matrix, sizeof(matrix),
		 "workload: { fio: { rw: randread } }\n"
		 "design: %s\n"
		 "factors: { kconfig: { %s } }\n"
		 "repeat: { boots: 2 }\n",
		 design, factors(k));
	snprintf(model, sizeof(model),
		 "metric: read_iops\nbase: 1000\n"
		 "noise: { boot_cv: 0.02 }\nseed: 3\n"
		 "effects:\n%s",
		 model_effects);
	run_matrix(f, matrix, model);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	kb_test_scratch_db("effects", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->e);
	kb_analysis_free(f->a);
	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

static const struct kb_effect *find(const struct fixture *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].name, name))
			return &f->e[i];
	fail_msg("no effect %s", name);
	return NULL;
}

static const struct kb_design *design(const struct fixture *f)
{
	return kb_plan_design(kb_analysis_plan(f->a));
}

/* The estimate is within @tol of @truth (log scale), and so is its CI. */
static void assert_near(const struct kb_effect *x, double truth, double tol)
{
	if (fabs(x->log_effect - truth) > tol ||
	    x->log_ci_low > truth + tol || x->log_ci_high < truth - tol)
		fail_msg("%s: %.4f [%.4f, %.4f], expected %.4f", x->name,
			 x->log_effect, x->log_ci_low, x->log_ci_high, truth);
}

/*
 * 12 factors need the 20-run design (12 runs take 11).  Three planted
 * main effects come back, significant; the others are near zero; there
 * is no interaction, and each main effect names its 55 partial aliases.
 */
static void test_effects__plackett_burman_12_factors_recovers_main_effects(
	void **state)
{
	struct fixture *f = *state;
	size_t i, k, nsig = 0;

	run_experiment(f, "plackett-burman", 12,
		       "  - when: { O2: y }\n    factor: 0.5\n"
		       "  - when: { O7: y }\n    factor: 1.3\n"
		       "  - when: { O11: y }\n    factor: 0.8\n");
	assert_int_equal(kb_design_nruns(design(f)), 20);
	assert_int_equal(f->n, 12);
	for (i = 0; i < f->n; i++) {
		struct kb_alias *al = NULL;
		const struct kb_effect *x = &f->e[i];
		size_t na = kb_design_aliases(design(f), x->f1, x->f2, &al);

		assert_false(x->interaction);
		assert_int_equal(x->f1, x->f2);
		/* partial aliases only: no column is shared */
		assert_string_equal(x->aliases, "");
		assert_int_equal(x->npartial, 11 * 10 / 2);
		assert_int_equal(na, x->npartial);
		for (k = 0; k < na; k++) {
			assert_true(al[k].f1 != x->f1 && al[k].f2 != x->f1);
			assert_true(fabs(fabs(al[k].coef) - 0.2) < 1e-12 ||
				    fabs(fabs(al[k].coef) - 0.6) < 1e-12);
		}
		free(al);
		nsig += x->significant;
	}
	assert_near(find(f, "O2"), log(0.5), 0.03);
	assert_near(find(f, "O7"), log(1.3), 0.03);
	assert_near(find(f, "O11"), log(0.8), 0.03);
	assert_true(find(f, "O2")->significant);
	assert_true(find(f, "O7")->significant);
	assert_true(find(f, "O11")->significant);
	for (i = 0; i < f->n; i++)
		if (strcmp(f->e[i].name, "O2") && strcmp(f->e[i].name, "O7") &&
		    strcmp(f->e[i].name, "O11"))
			assert_near(&f->e[i], 0, 0.03);
	assert_int_equal(nsig, 3);
	/* ranked by size: O2 (|log 0.5| = 0.69) first */
	assert_string_equal(f->e[0].name, "O2");
}

/*
 * The caveat is quantitative: an interaction O2:O3 (a factor 0.5 when
 * both are y, an interaction effect of log(0.5)/2) shows up in every
 * other main effect of the 12-run design as its coefficient (±1/3) times
 * that, as kb_design_aliases() says; O2 and O3 carry their own halves.
 */
static void test_effects__plackett_burman_interaction_enters_mains_by_coefficient(
	void **state)
{
	struct fixture *f = *state;
	double inter = log(0.5) / 2;
	size_t i, k;

	run_experiment(f, "plackett-burman", 11,
		       "  - when: { O2: y, O3: y }\n    factor: 0.5\n");
	assert_int_equal(kb_design_nruns(design(f)), 12);
	assert_int_equal(f->n, 11);
	for (i = 0; i < f->n; i++) {
		const struct kb_effect *x = &f->e[i];
		struct kb_alias *al = NULL;
		size_t na = kb_design_aliases(design(f), x->f1, x->f1, &al);
		double coef = 0;

		assert_false(x->interaction);
		for (k = 0; k < na; k++)
			if (al[k].f1 == 1 && al[k].f2 == 2)
				coef = al[k].coef;
		if (x->f1 == 1 || x->f1 == 2) {
			assert_near(x, inter, 0.03);
		} else {
			assert_true(fabs(fabs(coef) - 1.0 / 3) < 1e-12);
			assert_near(x, coef * inter, 0.03);
		}
		free(al);
	}
}

/*
 * 2^(16-11) IV in 32 runs: main effects clear of two-factor
 * interactions, each interaction estimated once for its chain of eight.
 * The planted O1:O2 interaction is named with the seven others of its
 * chain (AB = CF = DG = EH = JM = KN = LO = PQ) and no main effect is
 * ever named as an interaction's alias.
 */
static void test_effects__fractional_16_factors_recovers_main_effects(
	void **state)
{
	struct fixture *f = *state;
	const struct kb_effect *x;
	double inter = log(0.7) / 2;
	size_t i;

	run_experiment(f, "fractional", 16,
		       "  - when: { O1: y }\n    factor: 0.6\n"
		       "  - when: { O9: y }\n    factor: 1.25\n"
		       "  - when: { O16: y }\n    factor: 0.9\n"
		       "  - when: { O1: y, O2: y }\n    factor: 0.7\n");
	assert_int_equal(kb_design_nruns(design(f)), 32);
	assert_string_equal(kb_design_generators(design(f)),
			    "F=ABC G=ABD H=ABE J=ACD K=ACE L=ADE M=BCD N=BCE O=BDE P=CDE Q=ABCDE");
	/* 16 main effects and 15 chains of 8 interactions: 31 columns */
	assert_int_equal(f->n, 16 + 15);
	for (i = 0; i < f->n; i++) {
		struct kb_alias *al = NULL;
		size_t na;

		x = &f->e[i];
		na = kb_design_aliases(design(f), x->f1, x->f2, &al);
		assert_int_equal(x->npartial, 0);
		if (!x->interaction) {
			assert_string_equal(x->aliases, "");
			assert_int_equal(na, 0);
		} else {
			assert_int_equal(na, 7);
			assert_true(x->aliases[0] == 'O');
			assert_null(strstr(x->aliases, "..."));
		}
		free(al);
	}
	/* the main effects, the interaction's halves in O1 and O2 */
	assert_near(find(f, "O1"), log(0.6) + inter, 0.03);
	assert_near(find(f, "O2"), inter, 0.03);
	assert_near(find(f, "O9"), log(1.25), 0.03);
	assert_near(find(f, "O16"), log(0.9), 0.03);
	for (i = 0; i < f->n; i++)
		if (!f->e[i].interaction && f->e[i].f1 != 0 &&
		    f->e[i].f1 != 1 && f->e[i].f1 != 8 && f->e[i].f1 != 15)
			assert_near(&f->e[i], 0, 0.03);
	x = find(f, "O1:O2");
	assert_string_equal(x->aliases,
			    "O3:O6, O4:O7, O5:O8, O9:O12, O10:O13, O11:O14, O15:O16");
	assert_near(x, inter, 0.03);
	assert_true(x->significant);
	assert_true(find(f, "O1")->significant);
	assert_true(find(f, "O9")->significant);
	assert_true(find(f, "O16")->significant);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
/* A factor of three levels (seed 002's copies 1, 2, 4) in a full design:
 * each level against the first, averaged over the other factor, and
 * each pair of levels' difference of differences; a planted interaction
 * found, and none where there is none. */
static void test_effects__levels_against_the_first(void **state)
{
	struct fixture *f = *state;
	const double l15 = log(1.5), l08 = log(0.8);

	run_matrix(f,
		   "workload: { command: { run: \"true\" } }\n"
		   "factors:\n  kconfig: { A: [n, y] }\n"
		   "  workload: { copies: [1, 2, 4] }\n"
		   "repeat: { boots: 4 }\n",
		   "metric: real_s\nbase: 10\nnoise: { boot_cv: 0.02 }\n"
		   "seed: 5\neffects:\n"
		   "  - { when: { workload.copies: 2 }, factor: 2.0 }\n"
		   "  - { when: { workload.copies: 4 }, factor: 4.0 }\n"
		   "  - { when: { A: y }, factor: 1.5 }\n"
		   "  - { when: { A: y, workload.copies: 4 }, factor: 0.8 }\n");
	/* 2 + 2 main contrasts, 1 x 2 interactions */
	assert_int_equal(f->n, 5);
	assert_near(find(f, "workload.copies=2"), log(2.0), 0.04);
	/* averaged over A: half the time with the interaction */
	assert_near(find(f, "workload.copies=4"), log(4.0) + l08 / 2, 0.04);
	assert_near(find(f, "A=y"), l15 + l08 / 3, 0.04);
	assert_near(find(f, "A=y:workload.copies=4"), l08, 0.06);
	assert_true(find(f, "A=y:workload.copies=4")->significant);
	assert_true(find(f, "A=y:workload.copies=4")->interaction);
	assert_near(find(f, "A=y:workload.copies=2"), 0, 0.06);
	assert_false(find(f, "A=y:workload.copies=2")->significant);
}

/*
 * The sentinel (repeat.sentinel) is the baseline again: booted in every
 * round, but no level of any factor — the effects are those of the
 * design's runs, none named for it — and never a suspect, even when
 * its mean is the worst of all (every factor's second level is better
 * here, so the baseline and the sentinel are the two worst).
 */
static void test_effects__the_sentinel_is_no_level_nor_suspect(void **state)
{
	struct fixture *f = *state;
	const struct kb_plan *p;
	double base, sent;
	size_t i, nb, ns;
	int seed, found = 0;

	for (seed = 1; seed <= 20 && !found; seed++) {
		char model[512];

		snprintf(model, sizeof(model),
			 "metric: read_iops\nbase: 1000\n"
			 "noise: { boot_cv: 0.02 }\nseed: %d\n"
			 "effects:\n"
			 "  - { when: { O1: y }, factor: 1.5 }\n"
			 "  - { when: { O2: y }, factor: 1.5 }\n"
			 "  - { when: { O3: y }, factor: 1.5 }\n",
			 seed);
		free(f->e);
		f->e = NULL;
		kb_analysis_free(f->a);
		f->a = NULL;
		run_matrix(f,
			   "workload: { fio: { rw: randread } }\n"
			   "factors: { kconfig: { O1: [n, y], O2: [n, y],"
			   " O3: [n, y] } }\n"
			   "repeat: { boots: 3, sentinel: true }\n",
			   model);
		p = kb_analysis_plan(f->a);
		assert_int_equal(kb_plan_nvariants(p), 9);
		assert_int_equal(kb_plan_sentinel(p), 8);
		kb_analysis_values(f->a, 8, &ns);
		assert_int_equal(ns, 3);
		assert_int_equal(f->n, 6); /* 3 mains, 3 interactions */
		for (i = 0; i < f->n; i++)
			assert_null(strstr(f->e[i].name, "sentinel"));
		assert_true(find(f, "O1")->significant);
		assert_near(find(f, "O1"), log(1.5), 0.05);
		assert_int_equal(kb_analysis_worst(f->a), 0);
		base = kb_stats_mean(kb_analysis_values(f->a, 0, &nb), nb);
		sent = kb_stats_mean(kb_analysis_values(f->a, 8, &ns), ns);
		found = sent < base; /* the sentinel was the worst */
	}
	assert_true(found);
}

/* The estimate of main effect @name within @level ("" for the ranked
 * one), or of the test that it depends on the level (@depends). */
static const struct kb_effect *find_within(const struct fixture *f,
					   const char *name, const char *level,
					   int depends)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->e[i].name, name) && f->e[i].depends == depends &&
		    (depends || !strcmp(f->e[i].within, level)))
			return &f->e[i];
	fail_msg("no effect %s within '%s'%s", name, level,
		 depends ? " (depends)" : "");
	return NULL;
}

/* copies=4 multiplies the time by 5, DEBUG_X costs 30% at copies=4 only
 * (docs/analysis.md, "Conditions: compared within"). */
static const char cond_model[] =
	"metric: real_s\nbase: 10\nnoise: { boot_cv: 0.02 }\nseed: 7\n"
	"effects:\n"
	"  - { when: { workload.copies: 4 }, factor: 5 }\n"
	"  - { when: { DEBUG_X: y, workload.copies: 4 }, factor: 1.3 }\n";

static void run_conditions(struct fixture *f, const char *copies)
{
	char matrix[512];

	snprintf(matrix, sizeof(matrix),
		 "workload: { command: { run: \"true\" } }\n"
		 "factors:\n  kconfig: { DEBUG_X: [n, y], OTHER: [n, y] }\n"
		 "  workload: { copies: %s }\n"
		 "repeat: { boots: 4 }\n",
		 copies);
	run_matrix(f, matrix, cond_model);
}

/*
 * A condition is no cause: neither it nor an interaction with it is
 * ranked; each other factor's main effect comes at each of its levels,
 * and DEBUG_X's is found to depend on the level (none at copies=1, +30%
 * at copies=4), OTHER's not.  Without `condition: true` the same
 * experiment ranks workload.copies first (+400%).
 */
static void test_effects__a_condition_is_compared_within_not_ranked(
	void **state)
{
	struct fixture *f = *state;
	const struct kb_effect *x;
	size_t i, nrank;

	run_conditions(f, "[1, 4]");
	assert_string_equal(f->e[0].name, "workload.copies");
	free(f->e);
	f->e = NULL;
	kb_analysis_free(f->a);
	f->a = NULL;

	run_conditions(f, "{ levels: [1, 4], condition: true }");
	nrank = kb_effects_nranked(f->e, f->n);
	assert_int_equal(nrank, 3); /* DEBUG_X, OTHER, DEBUG_X:OTHER */
	/* 2 factors x (2 levels + 1 test) */
	assert_int_equal(f->n, nrank + 6);
	for (i = 0; i < f->n; i++)
		assert_null(strstr(f->e[i].name, "copies"));
	assert_string_equal(f->e[0].name, "DEBUG_X");
	assert_string_equal(kb_effect_kind_name(&f->e[0]), "main-effect");
	/* averaged over the two levels: half of log 1.3 */
	assert_near(&f->e[0], log(1.3) / 2, 0.03);

	x = find_within(f, "DEBUG_X", "workload.copies=1", 0);
	assert_near(x, 0, 0.03);
	assert_false(x->significant);
	assert_string_equal(kb_effect_kind_name(x), "within-condition");
	x = find_within(f, "DEBUG_X", "workload.copies=4", 0);
	assert_near(x, log(1.3), 0.03);
	assert_true(x->significant);
	x = find_within(f, "DEBUG_X", "", 1);
	assert_string_equal(x->within, "workload.copies=4 vs workload.copies=1");
	assert_near(x, log(1.3), 0.04);
	assert_true(x->significant);
	assert_string_equal(kb_effect_kind_name(x), "condition-dependence");
	x = find_within(f, "OTHER", "", 1);
	assert_near(x, 0, 0.04);
	assert_false(x->significant);
	assert_false(find_within(f, "OTHER", "workload.copies=4", 0)->significant);
}

/* With a condition of three levels and a factor of three (treatment
 * contrasts, "F=L"): each level of the factor at each level of the
 * condition, and a dependence test for each of the factor's levels. */
static void test_effects__a_condition_of_three_levels(void **state)
{
	struct fixture *f = *state;
	const struct kb_effect *x;
	size_t nrank;

	run_matrix(f,
		   "workload: { command: { run: \"true\" } }\n"
		   "factors:\n  kconfig: { HZ: [100, 250, 1000] }\n"
		   "  guest: { vcpus: { levels: [1, 2, 4], condition: true } }\n"
		   "repeat: { boots: 4 }\n",
		   "metric: real_s\nbase: 10\nnoise: { boot_cv: 0.02 }\n"
		   "seed: 3\neffects:\n"
		   "  - { when: { guest.vcpus: 4 }, factor: 0.3 }\n"
		   "  - { when: { HZ: 1000 }, factor: 1.1 }\n"
		   "  - { when: { HZ: 1000, guest.vcpus: 4 }, factor: 1.4 }\n");
	nrank = kb_effects_nranked(f->e, f->n);
	assert_int_equal(nrank, 2); /* HZ=250, HZ=1000 */
	/* 2 levels x (3 condition levels + 1 test) */
	assert_int_equal(f->n, nrank + 8);
	assert_near(find_within(f, "HZ=1000", "guest.vcpus=1", 0), log(1.1),
		    0.03);
	assert_near(find_within(f, "HZ=1000", "guest.vcpus=2", 0), log(1.1),
		    0.03);
	assert_near(find_within(f, "HZ=1000", "guest.vcpus=4", 0),
		    log(1.1 * 1.4), 0.03);
	x = find_within(f, "HZ=1000", "", 1);
	assert_true(x->significant);
	assert_string_equal(x->within, "guest.vcpus=4 vs guest.vcpus=1");
	assert_false(find_within(f, "HZ=250", "", 1)->significant);
}

/* A matrix whose every factor is a condition has no cause to rank. */
static void test_effects__only_conditions_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	static const char mx[] =
		"workload: { command: { run: \"true\" } }\n"
		"factors: { workload: { copies: { levels: [1, 4], condition: true } } }\n"
		"repeat: { boots: 2 }\n";
	double cv, df;

	if (kb_matrix_parse_buffer(mx, strlen(mx), "t.yaml", &m, &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(cond_model, strlen(cond_model), "model.yaml",
				  &mo, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(mo, 0, &ex), 0);
	o.model_text = kb_model_text(mo);
	if (kb_pipeline_run(f->s, p, ex, &o, &f->exp, &err) ||
	    kb_analysis_open(f->s, f->exp, NULL, &f->a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_effects_estimate(f->a, &f->e, &f->n, &cv, &df,
					     &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "every factor of the experiment is a condition");
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
}

static const struct CMUnitTest tests[] = {
	T(test_effects__only_conditions_is_refused),
	T(test_effects__a_condition_is_compared_within_not_ranked),
	T(test_effects__a_condition_of_three_levels),
	T(test_effects__the_sentinel_is_no_level_nor_suspect),
	cmocka_unit_test_setup_teardown(test_effects__levels_against_the_first,
					setup, teardown),
	T(test_effects__plackett_burman_12_factors_recovers_main_effects),
	T(test_effects__plackett_burman_interaction_enters_mains_by_coefficient),
	T(test_effects__fractional_16_factors_recovers_main_effects),
};

KB_TEST_MAIN(tests)
