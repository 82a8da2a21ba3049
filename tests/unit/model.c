#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "model.h"
#include "variant.h"

#define SEED000 KB_TEST_DATA "/model/seed000.yaml"

/* A variant made from a label such as "PARAVIRT_SPINLOCKS=y guest.vcpus=4". */
struct tvar {
	struct kb_variant v;
	struct kb_setting s[8];
	char label[256];
	char buf[256];
};

static const struct kb_variant *tvar(struct tvar *t, const char *label)
{
	char *p, *save = NULL;

	memset(t, 0, sizeof(*t));
	snprintf(t->label, sizeof(t->label), "%s", label);
	snprintf(t->buf, sizeof(t->buf), "%s", label);
	for (p = strtok_r(t->buf, " ", &save); p;
	     p = strtok_r(NULL, " ", &save)) {
		struct kb_setting *s = &t->s[t->v.nsettings++];
		char *eq = strchr(p, '=');

		assert_non_null(eq);
		*eq = '\0';
		s->name = p;
		s->value = eq + 1;
		s->kind = !strncmp(p, "guest.", 6)    ? KB_FACTOR_GUEST
			  : !strncmp(p, "kernel.", 7) ? KB_FACTOR_KERNEL
						      : KB_FACTOR_KCONFIG;
	}
	t->v.label = t->label;
	t->v.settings = t->s;
	t->v.build_key = t->label;
	return &t->v;
}

static struct kb_model *load_ok(const char *path)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;

	if (kb_model_load(path, &m, &err))
		fail_msg("unexpected error: %s", err.msg);
	return m;
}

static struct kb_model *parse_ok(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;

	if (kb_model_parse_buffer(text, strlen(text), "t.yaml", &m, &err))
		fail_msg("unexpected error: %s", err.msg);
	return m;
}

static void parse_err(const char *text, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;

	assert_int_equal(kb_model_parse_buffer(text, strlen(text), "t.yaml",
					       &m, &err),
			 KB_EINPUT);
	assert_null(m);
	assert_int_equal(err.code, KB_EINPUT);
	assert_msg_contains(err.msg, expect);
}

#define HEAD "metric: read_iops\nbase: 1000\n"

static void assert_close(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("got %.9g, want %.9g (relative tolerance %g)", got,
			 want, rel);
}

static double expected(const struct kb_model *m, const char *label)
{
	struct tvar t;

	return kb_model_expected(m, tvar(&t, label));
}

/* ---- loading ------------------------------------------------------------ */

/* ---- drift (docs/model.md, "Drift") ------------------------------------- */

static void test_model__drift_linear_and_step_follow_the_place(void **state)
{
	struct kb_model *m = parse_ok(HEAD "drift: { linear: -0.3 }\n");
	struct kb_model *st = parse_ok(HEAD "drift: { step: -0.1, at: 0.5 }\n");
	struct kb_model *none = parse_ok(HEAD);

	(void)state;
	assert_close(kb_model_drift(m, 24, 48), 0.85, 1e-12);
	assert_close(kb_model_drift(m, 48, 48), 0.70, 1e-12);
	/* past the end (boots added later): on */
	assert_close(kb_model_drift(m, 96, 48), 0.40, 1e-12);
	/* the place not known: none */
	assert_close(kb_model_drift(m, 0, 48), 1, 0);
	assert_close(kb_model_drift(m, 10, 0), 1, 0);
	assert_close(kb_model_drift(st, 23, 48), 1, 0);
	assert_close(kb_model_drift(st, 24, 48), 0.9, 1e-12);
	assert_close(kb_model_drift(none, 24, 48), 1, 0);
	kb_model_free(m);
	kb_model_free(st);
	kb_model_free(none);
}

static void test_model__drift_ar1_is_seeded_by_the_place(void **state)
{
	struct kb_model *a = parse_ok(HEAD "seed: 7\ndrift: { ar1: { phi: 0.9, cv: 0.05 } }\n");
	struct kb_model *b = parse_ok(HEAD "seed: 7\ndrift: { ar1: { phi: 0.9, cv: 0.05 } }\n");
	struct kb_model *o = parse_ok(HEAD "seed: 7\ndrift: { ar1: { phi: 0.9, cv: 0.05 }, over: 10 }\n");
	double sum = 0, sum2 = 0, lag = 0, prev = 0;
	unsigned i, n = 2000;

	(void)state;
	for (i = 1; i <= n; i++) {
		double x = log(kb_model_drift(a, i, n));

		assert_close(kb_model_drift(b, i, n), exp(x), 1e-15);
		sum += x;
		sum2 += x * x;
		if (i > 1)
			lag += x * prev;
		prev = x;
	}
	/* its spread about cv, and neighbours alike (phi) */
	assert_true(fabs(sqrt(sum2 / n - (sum / n) * (sum / n)) - 0.05) < 0.02);
	assert_true(lag / (n - 1) / (sum2 / n) > 0.7);
	/* over: the count is the model's, not the run's */
	assert_close(kb_model_drift(o, 5, 999), kb_model_drift(a, 5, 3), 1e-15);
	kb_model_free(a);
	kb_model_free(b);
	kb_model_free(o);
}

static void test_model__drift_errors_name_the_place(void **state)
{
	(void)state;
	parse_err(HEAD "drift: { at: 0.5 }\n", "give the step too");
	parse_err(HEAD "drift: { ar1: { phi: 0.5 } }\n", "needs 'phi'");
	parse_err(HEAD "drift: { linear: -2 }\n", "'drift.linear' must be from -0.9");
	parse_err(HEAD "drift: { ar1: { phi: 1, cv: 0.1 } }\n", "t.yaml:3:");
	parse_err(HEAD "drift: { lienar: 0.1 }\n", "linear");
}

/* The executor drifts a boot by its place in the run. */
static void test_model__executor_drifts_by_the_boot_place(void **state)
{
	struct kb_model *m = parse_ok(HEAD "drift: { linear: -0.5 }\n");
	struct kb_executor *ex = NULL;
	struct kb_build_result b;
	struct kb_boot_result r0, r1;
	struct kb_boot_at at = { .seq = 10, .total = 10 };
	struct kb_err err = KB_ERR_INIT;
	struct tvar t;
	double v0, v1;

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	memset(&b, 0, sizeof(b));
	b.status = KB_BUILD_OK;
	if (kb_executor_boot(ex, tvar(&t, "A=y"), &b, 1, 1, &r0, &err) ||
	    kb_executor_boot_at(ex, tvar(&t, "A=y"), &b, 1, 1, &at, &r1, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_sample_get(&r0.runs[0], "read_iops", &v0), 0);
	assert_int_equal(kb_sample_get(&r1.runs[0], "read_iops", &v1), 0);
	assert_close(v1, v0 * 0.5, 1e-12);
	kb_boot_result_release(&r0);
	kb_boot_result_release(&r1);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_model__loads_file_and_keeps_its_text(void **state)
{
	struct kb_model *m = load_ok(SEED000);
	struct kb_buf b = KB_BUF_INIT;
	const struct kb_model_time *t = kb_model_time(m);

	(void)state;
	assert_int_equal(kb_buf_read_file(&b, SEED000, 1 << 20, NULL), 0);
	assert_string_equal(kb_model_text(m), b.buf);
	assert_string_equal(kb_model_metric(m), "read_iops");
	assert_true(kb_model_seed(m) == 1);
	assert_true(t->build_s == 420 && t->boot_s == 25 && t->run_s == 30);
	kb_buf_release(&b);
	kb_model_free(m);
}

static void test_model__defaults_are_no_noise_no_effects_seed_0(void **state)
{
	struct kb_model *m = load_ok(KB_TEST_DATA "/model/minimal.yaml");
	const struct kb_model_time *t = kb_model_time(m);
	struct tvar tv;
	const struct kb_variant *v = tvar(&tv, "DEBUG_SPINLOCK=y");

	(void)state;
	assert_string_equal(kb_model_metric(m), "real_s");
	assert_true(kb_model_seed(m) == 0);
	assert_true(t->build_s == 0 && t->boot_s == 0 && t->run_s == 0);
	assert_true(kb_model_expected(m, v) == 12.5);
	/* no noise: every sample is exactly the expected value */
	assert_true(kb_model_sample(m, v, 1, 1) == 12.5);
	assert_true(kb_model_sample(m, v, 7, 3) == 12.5);
	kb_model_free(m);
}

static void test_model__null_sections_mean_defaults(void **state)
{
	struct kb_model *m = parse_ok(HEAD "noise:\neffects:\ntime: ~\n"
					   "failures: []\n");

	(void)state;
	assert_true(expected(m, "A=y") == 1000);
	kb_model_free(m);
}

static void test_model__missing_file_is_not_found(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;

	(void)state;
	assert_int_equal(kb_model_load(KB_TEST_DATA "/model/nonexistent.yaml",
				       &m, &err),
			 KB_ENOTFOUND);
	assert_null(m);
	assert_msg_contains(err.msg, "nonexistent.yaml");
}

/* ---- validation --------------------------------------------------------- */

static void test_model__unknown_key_has_position_and_suggestion(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;

	(void)state;
	parse_err(HEAD "efects: []\n",
		  "t.yaml:3:1: unknown key 'efects' in the model (did you mean 'effects'?)");
	parse_err(HEAD "noise: { boot_vc: 0.1 }\n",
		  "t.yaml:3:10: unknown key 'boot_vc' in 'noise' (did you mean 'boot_cv'?)");
	parse_err(HEAD "colour: blue\n",
		  "t.yaml:3:1: unknown key 'colour' in the model: expected one of metric, base, noise, effects, time, failures, seed");
	assert_int_equal(kb_model_load(KB_TEST_DATA "/model/unknown-key.yaml",
				       &m, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg,
			    "tests/data/model/unknown-key.yaml:5:5: unknown key 'factr' in an effect (did you mean 'factor'?)");
}

static void test_model__wrong_types_are_refused(void **state)
{
	(void)state;
	parse_err("- metric\n", "t.yaml:1:1: a model must be a mapping, found a list");
	parse_err(HEAD "effects: 3\n",
		  "t.yaml:3:10: 'effects' must be a list, found a scalar");
	parse_err(HEAD "noise: [0.1]\n",
		  "t.yaml:3:8: 'noise' must be a mapping, found a list");
	parse_err(HEAD "effects:\n  - factor: 2\n    when: [A]\n",
		  "t.yaml:5:11: 'when' must be a mapping, found a list");
	parse_err(HEAD "effects: [ 0.5 ]\n",
		  "t.yaml:3:12: an entry of 'effects' must be a mapping, found a scalar");
	parse_err("metric: read_iops\nbase: '1000'\n",
		  "t.yaml:2:7: 'base' must be a number, found the string \"1000\"");
	parse_err("metric: read_iops\nbase: lots\n",
		  "t.yaml:2:7: 'base' must be a number, found 'lots'");
	parse_err("metric: [read_iops]\nbase: 1\n",
		  "t.yaml:1:9: 'metric' must be a scalar, found a list");
	parse_err("metric: read iops\nbase: 1\n",
		  "t.yaml:1:9: invalid metric 'read iops'");
}

static void test_model__empty_document_is_refused(void **state)
{
	(void)state;
	parse_err("# nothing\n", "t.yaml: the model is empty");
}

static void test_model__metric_and_base_are_required(void **state)
{
	(void)state;
	parse_err("base: 1\n", "t.yaml:1:1: missing 'metric'");
	parse_err("seed: 1\nmetric: read_iops\n", "t.yaml:1:1: missing 'base'");
}

static void test_model__base_must_be_positive(void **state)
{
	(void)state;
	parse_err("metric: x\nbase: 0\n",
		  "t.yaml:2:7: 'base' must be greater than 0, found '0'");
	parse_err("metric: x\nbase: -5\n",
		  "t.yaml:2:7: 'base' must be greater than 0");
	parse_err("metric: x\nbase: 1e999\n", "t.yaml:2:7: 'base' must be a number");
}

static void test_model__cv_must_be_between_0_and_10(void **state)
{
	(void)state;
	parse_err(HEAD "noise: { boot_cv: -0.1 }\n",
		  "t.yaml:3:19: 'boot_cv' must be a coefficient of variation from 0 to 10");
	parse_err(HEAD "noise:\n  run_cv: 11\n",
		  "t.yaml:4:11: 'run_cv' must be a coefficient of variation from 0 to 10");
	parse_err(HEAD "noise: { run_cv: .nan }\n",
		  "t.yaml:3:18: 'run_cv' must be a number, found '.nan'");
}

static void test_model__factor_must_be_positive(void **state)
{
	(void)state;
	parse_err(HEAD "effects:\n  - when: { A: y }\n    factor: 0\n",
		  "t.yaml:5:13: 'factor' must be greater than 0, found '0'");
	parse_err(HEAD "effects:\n  - when: { A: y }\n    factor: -2\n",
		  "t.yaml:5:13: 'factor' must be greater than 0");
	parse_err(HEAD "effects:\n  - when: { A: y }\n",
		  "t.yaml:4:5: missing 'factor' in this effect");
	parse_err(HEAD "effects:\n  - factor: 2\n",
		  "t.yaml:4:5: missing 'when' in this effect");
}

static void test_model__stage_must_be_build_or_boot(void **state)
{
	(void)state;
	parse_err(HEAD "failures:\n  - when: { A: y }\n    stage: run\n",
		  "t.yaml:5:12: invalid stage 'run': expected build or boot");
	parse_err(HEAD "failures:\n  - when: { A: y }\n",
		  "t.yaml:4:5: missing 'stage' in this failure");
}

static void test_model__empty_when_is_refused(void **state)
{
	(void)state;
	parse_err(HEAD "effects:\n  - when: {}\n    factor: 2\n",
		  "t.yaml:4:11: 'when' is empty");
}

static void test_model__invalid_option_names_are_refused(void **state)
{
	(void)state;
	parse_err(HEAD "effects:\n  - when: { debug_spinlock: y }\n"
		       "    factor: 2\n",
		  "t.yaml:4:13: invalid option name 'debug_spinlock': Kconfig symbols are upper case letters, digits and _ (did you mean 'DEBUG_SPINLOCK'?)");
	parse_err(HEAD "effects:\n  - when: { 'A B': y }\n    factor: 2\n",
		  "t.yaml:4:13: invalid option name 'A B'");
	parse_err(HEAD "effects:\n  - when: { guest.vpcus: 4 }\n"
		       "    factor: 2\n",
		  "t.yaml:4:13: unknown factor 'guest.vpcus' (did you mean 'guest.vcpus'?)");
	parse_err(HEAD "effects:\n  - when: { host.cpus: 4 }\n    factor: 2\n",
		  "t.yaml:4:13: unknown factor 'host.cpus': expected a Kconfig option or one of");
	parse_err(HEAD "effects:\n  - when: { X: y, CONFIG_X: n }\n"
		       "    factor: 2\n",
		  "t.yaml:4:19: 'CONFIG_X' appears twice in this 'when' (first as 'X')");
}

static void test_model__invalid_levels_are_refused(void **state)
{
	(void)state;
	parse_err(HEAD "effects:\n  - when: { A: yes }\n    factor: 2\n",
		  "t.yaml:4:16: invalid level 'yes' for A: Kconfig levels are y, n, m, a number or a quoted string (write y)");
	parse_err(HEAD "effects:\n  - when: { A: maybe }\n    factor: 2\n",
		  "t.yaml:4:16: invalid level 'maybe' for A: expected y, n, m, a number, or a quoted string such as \"maybe\"");
	parse_err(HEAD "effects:\n  - when: { A: [y, n] }\n    factor: 2\n",
		  "t.yaml:4:16: a Kconfig level must be a scalar, found a list");
	parse_err(HEAD "effects:\n  - when: { guest.mode: pvhh }\n"
		       "    factor: 2\n",
		  "t.yaml:4:25: invalid guest mode 'pvhh' (did you mean 'pvh'?)");
	parse_err(HEAD "effects:\n  - when: { guest.vcpus: four }\n"
		       "    factor: 2\n",
		  "t.yaml:4:26: a guest.vcpus level must be an integer from 1 to 512, found 'four'");
	parse_err(HEAD "effects:\n  - when: { guest.pin: 3 }\n    factor: 2\n",
		  "t.yaml:4:24: a guest.pin level must be a list of physical CPU numbers");
}

/* The model's levels name variants in failure reasons that the tools
 * print: control characters are refused as in the matrix. */
static void test_model__control_characters_are_refused(void **state)
{
	(void)state;
	parse_err(HEAD "effects:\n  - when: { CMDLINE: \"\\e[2J\" }\n"
		       "    factor: 2\n",
		  "t.yaml:4:22: invalid string level for CMDLINE: it contains a control character (U+001B, ESC)");
	parse_err(HEAD "failures:\n  - when: { kernel.rev: \"v6.1\\a\" }\n"
		       "    stage: boot\n",
		  "t.yaml:4:25: a kernel.rev level contains a control character (U+0007, BEL)");
	parse_err(HEAD "failures:\n"
		       "  - when: { kernel.rev: [v6.1, \"v6.2\\x9b\"] }\n"
		       "    stage: boot\n",
		  "t.yaml:4:32: a kernel.rev level contains a control character (U+009B, CSI)");
}

/* A guest level means what it means in the matrix (lib/ycheck.h). */
static void test_model__guest_levels_are_the_matrix_levels(void **state)
{
	struct kb_model *m = parse_ok(HEAD "effects:\n"
					   "  - when: { guest.pin: ~ }\n"
					   "    factor: 2\n"
					   "  - when: { guest.memory_mib: [512, 1024] }\n"
					   "    factor: 3\n");

	(void)state;
	assert_true(expected(m, "guest.pin=none") == 2000);
	assert_true(expected(m, "guest.pin=0,0") == 1000);
	assert_true(expected(m, "guest.memory_mib=1024") == 3000);
	kb_model_free(m);
	parse_err(HEAD "effects:\n  - when: { guest.vcpus: 0 }\n"
		       "    factor: 2\n",
		  "t.yaml:4:26: a guest.vcpus level must be an integer from 1 to 512, found '0'");
	parse_err(HEAD "effects:\n  - when: { guest.pin: [] }\n"
		       "    factor: 2\n",
		  "t.yaml:4:24: a guest.pin level must list from 1 to 512 CPUs");
	m = parse_ok(HEAD "noise: NULL\neffects: Null\n");
	assert_true(expected(m, "A=y") == 1000);
	kb_model_free(m);
}

static void test_model__build_failure_cannot_depend_on_guest(void **state)
{
	(void)state;
	parse_err(HEAD "failures:\n  - stage: build\n"
		       "    when: { guest.vcpus: 4 }\n",
		  "t.yaml:5:13: a build failure cannot depend on 'guest.vcpus'");
}

static void test_model__negative_times_are_refused(void **state)
{
	(void)state;
	parse_err(HEAD "time: { build_s: -1 }\n",
		  "t.yaml:3:18: 'build_s' must be a number of seconds from 0 to 604800, found '-1'");
	parse_err(HEAD "time: { boot_s: 1e9 }\n",
		  "t.yaml:3:17: 'boot_s' must be a number of seconds from 0");
	parse_err(HEAD "time: { run_sec: 3 }\n",
		  "t.yaml:3:9: unknown key 'run_sec' in 'time' (did you mean 'run_s'?)");
}

static void test_model__seed_must_be_a_non_negative_integer(void **state)
{
	struct kb_model *m;

	(void)state;
	parse_err(HEAD "seed: -1\n",
		  "t.yaml:3:7: 'seed' must be an integer from 0 to 18446744073709551615, found '-1'");
	parse_err(HEAD "seed: 1.5\n",
		  "t.yaml:3:7: 'seed' must be an integer from 0 to 18446744073709551615, found '1.5'");
	parse_err(HEAD "seed: '7'\n",
		  "t.yaml:3:7: 'seed' must be an integer from 0 to 18446744073709551615, found the string \"7\"");
	parse_err(HEAD "seed: 18446744073709551616\n",
		  "t.yaml:3:7: 'seed' must be an integer from 0 to 18446744073709551615, found '18446744073709551616'");
	m = parse_ok(HEAD "seed: 18446744073709551615\n");
	assert_true(kb_model_seed(m) == UINT64_MAX);
	kb_model_free(m);
}

/* ---- expected values ---------------------------------------------------- */

static void test_model__expected_reproduces_seed_000_table(void **state)
{
	struct kb_model *m = load_ok(SEED000);

	(void)state;
	/* spinlock debugging off: PARAVIRT_SPINLOCKS=n 522k, =y 58k */
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n"),
		     522000, 1e-12);
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=n"),
		     57942, 1e-12);
	/* spinlock debugging on: 205k either way */
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=y"),
		     205146, 1e-12);
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=y"),
		     205146, 1e-12);
	/* KMEMLEAK costs 94% on top */
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=y "
				 "DEBUG_KMEMLEAK=y"),
		     12308.76, 1e-12);
	kb_model_free(m);
}

static void test_model__interaction_applies_only_when_all_levels_hold(
	void **state)
{
	struct kb_model *m = parse_ok(HEAD "effects:\n"
					   "  - when: { A: y, B: n, C: m }\n"
					   "    factor: 0.5\n");

	(void)state;
	assert_true(expected(m, "A=y B=n C=m") == 500);
	assert_true(expected(m, "A=y B=y C=m") == 1000);
	assert_true(expected(m, "A=n B=n C=m") == 1000);
	assert_true(expected(m, "A=y B=n C=y") == 1000);
	kb_model_free(m);
}

static void test_model__absent_option_is_n(void **state)
{
	struct kb_model *m = parse_ok(HEAD "effects:\n"
					   "  - when: { PARAVIRT_SPINLOCKS: y, "
					   "DEBUG_SPINLOCK: n }\n"
					   "    factor: 0.111\n"
					   "  - when: { DEBUG_KMEMLEAK: y }\n"
					   "    factor: 0.06\n");

	(void)state;
	/* DEBUG_SPINLOCK not mentioned: it is n, so the interaction holds */
	assert_close(expected(m, "PARAVIRT_SPINLOCKS=y"), 111, 1e-12);
	/* nothing mentioned: KMEMLEAK is n, PARAVIRT_SPINLOCKS is n */
	assert_true(expected(m, "") == 1000);
	assert_true(expected(m, "OTHER=y") == 1000);
	kb_model_free(m);
}

static void test_model__levels_compare_as_text(void **state)
{
	struct kb_model *m = parse_ok(HEAD "effects:\n"
					   "  - when: { LOG_BUF_SHIFT: 17 }\n"
					   "    factor: 2\n"
					   "  - when: { CONFIG_CMDLINE: \"quiet\" }\n"
					   "    factor: 3\n");

	(void)state;
	assert_true(expected(m, "LOG_BUF_SHIFT=17") == 2000);
	assert_true(expected(m, "LOG_BUF_SHIFT=18") == 1000);
	assert_true(expected(m, "CMDLINE=quiet") == 3000);
	assert_true(expected(m, "CMDLINE=loud") == 1000);
	kb_model_free(m);
}

static void test_model__unset_guest_factor_never_holds(void **state)
{
	struct kb_model *m = parse_ok(HEAD "effects:\n"
					   "  - when: { guest.vcpus: 4 }\n"
					   "    factor: 2\n"
					   "  - when: { guest.pin: [0, 0, 1, 1] }\n"
					   "    factor: 3\n"
					   "  - when: { kernel.rev: v6.1 }\n"
					   "    factor: 5\n");

	(void)state;
	assert_true(expected(m, "") == 1000);
	assert_true(expected(m, "guest.vcpus=4") == 2000);
	assert_true(expected(m, "guest.vcpus=2") == 1000);
	assert_true(expected(m, "guest.pin=0,0,1,1") == 3000);
	assert_true(expected(m, "kernel.rev=v6.1") == 5000);
	assert_true(expected(m, "kernel.rev=v6.2") == 1000);
	kb_model_free(m);
}

/* ---- sampling ----------------------------------------------------------- */

static void test_model__sampling_is_reproducible(void **state)
{
	struct kb_model *m = load_ok(SEED000), *m2 = load_ok(SEED000);
	struct kb_model *other = parse_ok(HEAD "noise: { boot_cv: 0.03, "
					       "run_cv: 0.01 }\nseed: 2\n");
	struct kb_model *same = parse_ok(HEAD "noise: { boot_cv: 0.03, "
					      "run_cv: 0.01 }\nseed: 1\n");
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "PARAVIRT_SPINLOCKS=n");
	double a = kb_model_sample(m, v, 3, 2);

	(void)state;
	/* same model, same inputs: same value, whatever came before */
	kb_model_sample(m, v, 1, 1);
	assert_true(kb_model_sample(m, v, 3, 2) == a);
	assert_true(kb_model_sample(m2, v, 3, 2) == a);
	/* another boot, run or seed: another value */
	assert_true(kb_model_sample(m, v, 4, 2) != a);
	assert_true(kb_model_sample(m, v, 3, 1) != a);
	assert_true(kb_model_sample(other, v, 3, 2) !=
		    kb_model_sample(same, v, 3, 2));
	/* the noise does not depend on the effects, only on seed and label */
	assert_close(kb_model_sample(same, v, 3, 2) / 1000, a / 522000,
		     1e-12);
	assert_true(a != 522000);
	kb_model_free(m);
	kb_model_free(m2);
	kb_model_free(other);
	kb_model_free(same);
}

static void mean_cv(const double *x, size_t n, double *mean, double *cv)
{
	double sum = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	*mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*cv = sqrt(ss / (n - 1)) / *mean;
}

static void test_model__noise_has_mean_1_and_nominal_cv(void **state)
{
	struct kb_model *m = parse_ok(HEAD "noise: { boot_cv: 0.03, "
					   "run_cv: 0.01 }\nseed: 1\n");
	struct kb_model *b = parse_ok(HEAD "noise: { boot_cv: 0.03 }\n");
	double x[2000], mean, cv;
	double nominal = sqrt((1 + 0.03 * 0.03) * (1 + 0.01 * 0.01) - 1);
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "A=y");
	size_t i;

	(void)state;
	for (i = 0; i < 2000; i++)
		x[i] = kb_model_sample(m, v, (unsigned)i + 1, 1);
	mean_cv(x, 2000, &mean, &cv);
	assert_close(mean, 1000, 0.01);
	assert_close(cv, nominal, 0.10);
	/* boot noise alone */
	for (i = 0; i < 2000; i++)
		x[i] = kb_model_sample(b, v, (unsigned)i + 1, 1);
	mean_cv(x, 2000, &mean, &cv);
	assert_close(mean, 1000, 0.01);
	assert_close(cv, 0.03, 0.10);
	kb_model_free(m);
	kb_model_free(b);
}

static void test_model__runs_of_one_boot_share_its_noise(void **state)
{
	struct kb_model *m = parse_ok(HEAD "noise: { boot_cv: 0.03, "
					   "run_cv: 0.01 }\nseed: 9\n");
	double d[2000], sum = 0, ss = 0, sd;
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "A=y");
	size_t i;

	(void)state;
	/* log(run2 / run1) cancels the boot noise: its sd is sqrt(2) sigma */
	for (i = 0; i < 2000; i++) {
		d[i] = log(kb_model_sample(m, v, (unsigned)i + 1, 2) /
			   kb_model_sample(m, v, (unsigned)i + 1, 1));
		sum += d[i];
	}
	for (i = 0; i < 2000; i++)
		ss += (d[i] - sum / 2000) * (d[i] - sum / 2000);
	sd = sqrt(ss / 1999) / sqrt(2.0);
	assert_close(sd, sqrt(log1p(0.01 * 0.01)), 0.10);
	kb_model_free(m);
}

/* ---- the executor ------------------------------------------------------- */

static void test_model__executor_boots_give_model_samples(void **state)
{
	struct kb_model *m = load_ok(SEED000);
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_err err = KB_ERR_INIT;
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "PARAVIRT_SPINLOCKS=y");
	double x;
	unsigned i;

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	assert_string_equal(kb_executor_name(ex), "model");
	assert_int_equal(kb_executor_build(ex, v, &br, &err), 0);
	assert_int_equal(br.status, KB_BUILD_OK);
	assert_null(br.reason);
	assert_true(br.duration_s == 420);
	assert_int_equal(kb_executor_boot(ex, v, &br, 2, 3, &bo, &err), 0);
	assert_int_equal(bo.status, KB_BOOT_OK);
	assert_string_equal(bo.host, "model");
	assert_true(bo.duration_s == 25 + 3 * 30);
	assert_int_equal(bo.nruns, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(kb_sample_get(&bo.runs[i], "read_iops", &x),
				 0);
		assert_true(x == kb_model_sample(m, v, 2, i + 1));
		assert_close(x, 57942, 0.2);
	}
	kb_boot_result_release(&bo);
	/* the same boot again (after a crash) gives the same numbers */
	assert_int_equal(kb_executor_boot(ex, v, &br, 2, 1, &bo, &err), 0);
	assert_int_equal(kb_sample_get(&bo.runs[0], "read_iops", &x), 0);
	assert_true(x == kb_model_sample(m, v, 2, 1));
	kb_boot_result_release(&bo);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_model__executor_fails_at_build(void **state)
{
	struct kb_model *m = load_ok(SEED000);
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_err err = KB_ERR_INIT;
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "DEBUG_SPINLOCK=y BROKEN_OPTION=y");

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	assert_int_equal(kb_executor_build(ex, v, &br, &err), 0);
	assert_int_equal(br.status, KB_BUILD_FAILED);
	assert_string_equal(br.reason, "model: build fails when BROKEN_OPTION=y");
	assert_int_equal(kb_executor_boot(ex, v, &br, 1, 2, &bo, &err), 0);
	assert_int_equal(bo.status, KB_BOOT_BUILD_FAILED);
	assert_int_equal(bo.nruns, 0);
	assert_null(bo.runs);
	kb_boot_result_release(&bo);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_model__executor_fails_at_boot(void **state)
{
	struct kb_model *m = load_ok(SEED000);
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_err err = KB_ERR_INIT;
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "guest.vcpus=64 guest.mode=pv");

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	assert_int_equal(kb_executor_build(ex, v, &br, &err), 0);
	assert_int_equal(br.status, KB_BUILD_OK);
	assert_int_equal(kb_executor_boot(ex, v, &br, 1, 2, &bo, &err), 0);
	assert_int_equal(bo.status, KB_BOOT_FAILED);
	assert_string_equal(bo.reason,
			    "model: boot fails when guest.vcpus=64 guest.mode=pv");
	assert_int_equal(bo.nruns, 0);
	assert_true(bo.duration_s == 25);
	kb_boot_result_release(&bo);
	/* one level off: the rule does not hold */
	v = tvar(&t, "guest.vcpus=64 guest.mode=pvh");
	assert_int_equal(kb_executor_boot(ex, v, &br, 1, 2, &bo, &err), 0);
	assert_int_equal(bo.status, KB_BOOT_OK);
	assert_int_equal(bo.nruns, 2);
	kb_boot_result_release(&bo);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_model__time_scale_really_waits(void **state)
{
	struct kb_model *m = parse_ok(HEAD "time: { build_s: 10, boot_s: 5, "
					   "run_s: 2 }\n");
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_err err = KB_ERR_INIT;
	struct tvar t;
	const struct kb_variant *v = tvar(&t, "A=y");
	double t0, t1, t2;

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0.002, &ex), 0);
	t0 = now();
	assert_int_equal(kb_executor_build(ex, v, &br, &err), 0);
	t1 = now();
	assert_int_equal(kb_executor_boot(ex, v, &br, 1, 2, &bo, &err), 0);
	t2 = now();
	/* 10 s × 0.002 = 20 ms; (5 + 2 × 2) s × 0.002 = 18 ms */
	assert_true(t1 - t0 >= 0.020 && t1 - t0 < 2.0);
	assert_true(t2 - t1 >= 0.018 && t2 - t1 < 2.0);
	/* the results report simulated time */
	assert_true(br.duration_s == 10);
	assert_true(bo.duration_s == 9);
	kb_boot_result_release(&bo);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_model__bad_time_scale_is_refused(void **state)
{
	struct kb_model *m = load_ok(SEED000);
	struct kb_executor *ex = NULL;
	struct kb_err err = KB_ERR_INIT;
	double scale = -1;

	(void)state;
	assert_int_equal(kb_model_executor_new(m, -1, &ex), KB_EINPUT);
	assert_null(ex);
	assert_int_equal(kb_model_executor_new(m, NAN, &ex), KB_EINPUT);
	assert_int_equal(kb_model_executor_new(m, 1e9, &ex), KB_EINPUT);

	unsetenv("KBISECT_MODEL_TIME_SCALE");
	assert_int_equal(kb_model_time_scale_env(&scale, &err), 0);
	assert_true(scale == 1.0);
	setenv("KBISECT_MODEL_TIME_SCALE", "0.01", 1);
	assert_int_equal(kb_model_time_scale_env(&scale, &err), 0);
	assert_true(scale == 0.01);
	setenv("KBISECT_MODEL_TIME_SCALE", "fast", 1);
	assert_int_equal(kb_model_time_scale_env(&scale, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "KBISECT_MODEL_TIME_SCALE='fast'");
	unsetenv("KBISECT_MODEL_TIME_SCALE");
	kb_model_free(m);
}

static void test_model__values_that_overflow_or_vanish_are_refused(
	void **state)
{
	struct kb_model *m;

	(void)state;
	/* base 1e308 stored Inf samples, and compare printed "-nan%" */
	parse_err("metric: read_iops\nbase: 1e308\n",
		  "t.yaml:2:7: 'base' 1e308, times every effect's factor above 1, reaches 1e308, more than 1e100: the samples would overflow to infinity");
	/* each number is finite; their product is not */
	parse_err("metric: read_iops\nbase: 1e90\neffects:\n"
		  "  - { when: { A: y }, factor: 1e10 }\n"
		  "  - { when: { B: y }, factor: 1e10 }\n",
		  "reaches 1e110");
	parse_err("metric: read_iops\nbase: 1e-90\neffects:\n"
		  "  - { when: { A: y }, factor: 1e-20 }\n",
		  "falls to 1e-110, less than 1e-100: the samples would vanish to 0");
	/* up to the limits is fine, and factors that cancel are counted
	 * each way apart */
	m = parse_ok("metric: read_iops\nbase: 1e50\neffects:\n"
		     "  - { when: { A: y }, factor: 1e50 }\n"
		     "  - { when: { B: y }, factor: 1e-150 }\n");
	kb_model_free(m);
}


/* Workload, cmdline and sysctl factors are keyed by their names, as the
 * matrix names them; they never make a build fail (issue 13). */
static void test_model__runtime_factors_are_keyed_by_name(void **state)
{
	struct kb_model *m = parse_ok(
		HEAD "effects:\n"
		     "  - when: { workload.copies: 2 }\n    factor: 2\n"
		     "  - when: { workload.bs: [64k, 1m] }\n    factor: 3\n"
		     "  - when: { cmdline.xen_nopvspin: on, sysctl.kernel.x: 5 }\n"
		     "    factor: 0.5\n");

	(void)state;
	assert_true(expected(m, "workload.copies=1") == 1000);
	assert_true(expected(m, "workload.copies=2") == 2000);
	assert_true(expected(m, "workload.copies=2 workload.bs=1m") == 6000);
	assert_true(expected(m, "cmdline.xen_nopvspin=on") == 1000);
	assert_true(expected(m, "cmdline.xen_nopvspin=on sysctl.kernel.x=5") ==
		    500);
	kb_model_free(m);
	parse_err(HEAD "failures:\n  - when: { workload.copies: 2 }\n"
		       "    stage: build\n",
		  "t.yaml:4:13: a build failure cannot depend on 'workload.copies': workload, cmdline and sysctl factors do not change the build (use stage: boot)");
	parse_err(HEAD "effects:\n  - when: { workload.Bs: 2 }\n    factor: 2\n",
		  "t.yaml:4:13: unknown factor 'workload.Bs'");
	parse_err(HEAD "effects:\n  - when: { sysctl.kernel..x: 2 }\n    factor: 2\n",
		  "t.yaml:4:13: unknown factor 'sysctl.kernel..x'");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_model__values_that_overflow_or_vanish_are_refused),
	cmocka_unit_test(test_model__loads_file_and_keeps_its_text),
	cmocka_unit_test(test_model__defaults_are_no_noise_no_effects_seed_0),
	cmocka_unit_test(test_model__null_sections_mean_defaults),
	cmocka_unit_test(test_model__missing_file_is_not_found),
	cmocka_unit_test(test_model__unknown_key_has_position_and_suggestion),
	cmocka_unit_test(test_model__wrong_types_are_refused),
	cmocka_unit_test(test_model__empty_document_is_refused),
	cmocka_unit_test(test_model__metric_and_base_are_required),
	cmocka_unit_test(test_model__base_must_be_positive),
	cmocka_unit_test(test_model__cv_must_be_between_0_and_10),
	cmocka_unit_test(test_model__drift_linear_and_step_follow_the_place),
	cmocka_unit_test(test_model__drift_ar1_is_seeded_by_the_place),
	cmocka_unit_test(test_model__drift_errors_name_the_place),
	cmocka_unit_test(test_model__executor_drifts_by_the_boot_place),
	cmocka_unit_test(test_model__factor_must_be_positive),
	cmocka_unit_test(test_model__stage_must_be_build_or_boot),
	cmocka_unit_test(test_model__empty_when_is_refused),
	cmocka_unit_test(test_model__invalid_option_names_are_refused),
	cmocka_unit_test(test_model__invalid_levels_are_refused),
	cmocka_unit_test(test_model__control_characters_are_refused),
	cmocka_unit_test(test_model__guest_levels_are_the_matrix_levels),
	cmocka_unit_test(test_model__runtime_factors_are_keyed_by_name),
	cmocka_unit_test(test_model__build_failure_cannot_depend_on_guest),
	cmocka_unit_test(test_model__negative_times_are_refused),
	cmocka_unit_test(test_model__seed_must_be_a_non_negative_integer),
	cmocka_unit_test(test_model__expected_reproduces_seed_000_table),
	cmocka_unit_test(
		test_model__interaction_applies_only_when_all_levels_hold),
	cmocka_unit_test(test_model__absent_option_is_n),
	cmocka_unit_test(test_model__levels_compare_as_text),
	cmocka_unit_test(test_model__unset_guest_factor_never_holds),
	cmocka_unit_test(test_model__sampling_is_reproducible),
	cmocka_unit_test(test_model__noise_has_mean_1_and_nominal_cv),
	cmocka_unit_test(test_model__runs_of_one_boot_share_its_noise),
	cmocka_unit_test(test_model__executor_boots_give_model_samples),
	cmocka_unit_test(test_model__executor_fails_at_build),
	cmocka_unit_test(test_model__executor_fails_at_boot),
	cmocka_unit_test(test_model__time_scale_really_waits),
	cmocka_unit_test(test_model__bad_time_scale_is_refused),
};

KB_TEST_MAIN(tests)
