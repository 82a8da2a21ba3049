#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "matrix.h"
#include "plan.h"

#define FILE_NAME KB_TEST_DATA "/matrix/t.yaml"
#define W "workload: { fio: { rw: randread } }\n"

struct fixture {
	struct kb_matrix *m;
	struct kb_plan *p;
};

static void make(struct fixture *f, const char *text)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &f->m, &err))
		fail_msg("matrix: %s", err.msg);
	if (kb_plan_new(f->m, &f->p, &err))
		fail_msg("plan: %s", err.msg);
}

static void release(struct fixture *f)
{
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
}

static void bad(const char *text, const char *where, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &m, &err))
		fail_msg("matrix: %s", err.msg);
	assert_int_equal(kb_plan_new(m, &p, &err), KB_EINPUT);
	assert_null(p);
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("message \"%s\" does not start with \"%s\"", err.msg,
			 where);
	assert_msg_contains(err.msg, expect);
	kb_matrix_free(m);
}

static void test_plan__labels_and_baseline(void **state)
{
	struct fixture f;
	const struct kb_variant *v;

	(void)state;
	make(&f, W "factors:\n  kconfig:\n    PARAVIRT_SPINLOCKS: [y, n]\n"
		   "    DEBUG_SPINLOCK: [n, y]\n    CMDLINE: [\"quiet\"]\n");
	assert_int_equal(kb_plan_nvariants(f.p), 4);
	v = kb_plan_variant(f.p, 0);
	assert_int_equal(v->idx, 0);
	assert_string_equal(v->label,
			    "PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=n CMDLINE=\"quiet\"");
	assert_string_equal(kb_variant_get(v, "DEBUG_SPINLOCK"), "n");
	v = kb_plan_variant(f.p, 3);
	assert_string_equal(v->label,
			    "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=y CMDLINE=\"quiet\"");
	assert_int_equal(kb_plan_nbuilds(f.p), 4);
	assert_int_equal(kb_plan_nboots(f.p), 12);
	assert_int_equal(kb_plan_nruns(f.p), 12);
	release(&f);
}

static void test_plan__no_factors_is_an_aa_run(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "repeat: { boots: 5, runs_per_boot: 2 }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 1);
	assert_string_equal(kb_plan_variant(f.p, 0)->label, "baseline");
	assert_int_equal(kb_plan_nbuilds(f.p), 1);
	assert_int_equal(kb_plan_nboots(f.p), 5);
	assert_int_equal(kb_plan_nruns(f.p), 10);
	release(&f);
}

static void test_plan__guest_factors_share_builds(void **state)
{
	struct fixture f;
	const struct kb_variant *a, *b;

	(void)state;
	make(&f, W "factors:\n  kconfig: { A: [y, n] }\n"
		   "  guest: { vcpus: [1, 4], memory_mib: [512, 1024] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 8);
	assert_int_equal(kb_plan_nbuilds(f.p), 2);
	a = kb_plan_variant(f.p, 0);
	b = kb_plan_variant(f.p, 3);
	assert_string_equal(b->label, "A=y guest.vcpus=4 guest.memory_mib=1024");
	assert_string_equal(a->build_key, b->build_key);
	assert_int_equal(b->guest.vcpus, 4);
	assert_int_equal(b->guest.memory_mib, 1024);
	assert_int_equal(a->guest.vcpus, 1);
	b = kb_plan_variant(f.p, 4);
	assert_string_not_equal(a->build_key, b->build_key);
	assert_int_equal(strlen(a->build_key), 64);
	release(&f);
}

static void test_plan__build_key_is_stable(void **state)
{
	struct fixture f, g;

	(void)state;
	make(&f, W "factors: { kconfig: { A: [y, n] } }\n");
	make(&g, W "factors: { kconfig: { CONFIG_A: [y, n] } }\nrepeat: { boots: 7 }\n");
	assert_string_equal(kb_plan_variant(f.p, 1)->build_key,
			    kb_plan_variant(g.p, 1)->build_key);
	release(&f);
	release(&g);
}

static void test_plan__pins_follow_vcpus_per_variant(void **state)
{
	struct fixture f;
	const struct kb_variant *v;

	(void)state;
	make(&f, W "guest: { vcpus: 4 }\nfactors:\n  guest:\n    pin: [none, [0, 0, 1, 1]]\n");
	v = kb_plan_variant(f.p, 1);
	assert_int_equal(v->guest.npin, 4);
	assert_int_equal(v->guest.pin[2], 1);
	assert_int_equal(kb_plan_variant(f.p, 0)->guest.npin, 0);
	release(&f);
	bad(W "guest: { pin: [0, 1] , vcpus: 2 }\nfactors:\n  guest:\n    vcpus: [2, 4]\n",
	    FILE_NAME ":2:15: ",
	    "variant 'guest.vcpus=4' pins 2 vCPUs but has 4");
	bad(W "guest: { vcpus: 2 }\nfactors:\n  guest:\n    pin: [[0, 1], [0, 0, 0]]\n",
	    FILE_NAME ":5:19: ", "pins 3 vCPUs but has 2");
}

static void test_plan__fractional_errors_name_the_factor(void **state)
{
	(void)state;
	bad(W "design: fractional\nfactors:\n  kconfig:\n    A: [y, n]\n"
	      "    B: [y, n, m]\n    C: [y, n]\n    D: [y, n]\n",
	    FILE_NAME ":6:5: ",
	    "a fractional design needs two-level factors, and B has 3 levels");
	bad(W "design: fractional\nfactors:\n  kconfig: { A: [y, n], B: [y, n], "
	      "C: [y, n], D: [y, n], E: [y, n], F: [y, n], G: [y, n], "
	      "H: [y, n], I: [y, n] }\n",
	    FILE_NAME ":4:", "at most 8 two-level factors, and I is the 9th");
}

static void test_plan__fractional_has_sixteen_runs(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "design: fractional\nfactors:\n  kconfig: { A: [y, n], B: [y, n], "
		   "C: [y, n], D: [y, n], E: [y, n], F: [y, n] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 16);
	assert_string_equal(kb_plan_variant(f.p, 0)->label,
			    "A=y B=y C=y D=y E=y F=y");
	assert_non_null(kb_design_generators(kb_plan_design(f.p)));
	release(&f);
}

static void test_plan__oversize_design_is_refused(void **state)
{
	(void)state;
	bad(W "factors:\n  kconfig:\n    A: [1, 2, 3, 4, 5, 6, 7, 8]\n"
	      "    B: [1, 2, 3, 4, 5, 6, 7, 8]\n    C: [1, 2, 3, 4, 5, 6, 7, 8]\n"
	      "    D: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
	    FILE_NAME ":4:5: ", "more than 4096 variants");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_plan__labels_and_baseline),
	cmocka_unit_test(test_plan__no_factors_is_an_aa_run),
	cmocka_unit_test(test_plan__guest_factors_share_builds),
	cmocka_unit_test(test_plan__build_key_is_stable),
	cmocka_unit_test(test_plan__pins_follow_vcpus_per_variant),
	cmocka_unit_test(test_plan__fractional_errors_name_the_factor),
	cmocka_unit_test(test_plan__fractional_has_sixteen_runs),
	cmocka_unit_test(test_plan__oversize_design_is_refused),
};

KB_TEST_MAIN(tests)
