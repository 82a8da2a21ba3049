#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "matrix.h"
#include "order.h"
#include "plan.h"

/*
 * The run order (lib/order.h): in process, variant after variant, each
 * variant's boots by number, the stored ones left out; in the daemon's
 * queue, round by round; boots added after the last.  Every path that
 * boots takes its order from here, so these pin what the order is.
 */

/* 4 variants (2^2), 3 boots each; an unresolved plan is in plan order */
static const char matrix_text[] = "name: order\n"
				  "factors:\n"
				  "  kconfig:\n"
				  "    A: [n, y]\n"
				  "    B: [n, y]\n"
				  "workload:\n"
				  "  fio: { rw: randread }\n"
				  "  metric: read_iops\n"
				  "repeat: { boots: 3, runs_per_boot: 1 }\n";

struct fixture {
	struct kb_matrix *m;
	struct kb_plan *p;
	struct kb_order_boot out[12];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	if (!f || kb_matrix_parse_buffer(matrix_text, strlen(matrix_text),
					 "order.yaml", &f->m, &err) ||
	    kb_plan_new(f->m, &f->p, &err)) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	free(f);
	return 0;
}

static void test_order__run_is_variant_after_variant(void **state)
{
	struct fixture *f = *state;
	size_t i, n = kb_order_run(f->p, NULL, f->out);

	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		assert_int_equal(f->out[i].variant_idx, i / 3);
		assert_int_equal(f->out[i].boot_no, i % 3 + 1);
	}
}

static void test_order__run_leaves_out_the_stored_boots(void **state)
{
	struct fixture *f = *state;
	unsigned char stored[12] = { 0 };
	size_t n;

	stored[0 * 3 + 0] = 1; /* variant 0, boot 1 */
	stored[2 * 3 + 1] = 1; /* variant 2, boot 2 */
	stored[3 * 3 + 0] = stored[3 * 3 + 1] = stored[3 * 3 + 2] = 1;
	n = kb_order_run(f->p, stored, f->out);
	assert_int_equal(n, 7);
	assert_int_equal(f->out[0].variant_idx, 0);
	assert_int_equal(f->out[0].boot_no, 2);
	assert_int_equal(f->out[4].variant_idx, 1);
	assert_int_equal(f->out[4].boot_no, 3);
	assert_int_equal(f->out[5].variant_idx, 2);
	assert_int_equal(f->out[5].boot_no, 1);
	assert_int_equal(f->out[6].variant_idx, 2);
	assert_int_equal(f->out[6].boot_no, 3);
}

static void test_order__the_daemon_goes_round_by_round(void **state)
{
	struct fixture *f = *state;
	size_t i, n = kb_order_rounds(f->p, f->out);

	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		assert_int_equal(f->out[i].variant_idx, i % 4);
		assert_int_equal(f->out[i].boot_no, i / 4 + 1);
	}
}

static void test_order__added_boots_follow_the_last(void **state)
{
	struct fixture *f = *state;

	kb_order_added(2, 5, 3, f->out);
	assert_int_equal(f->out[0].variant_idx, 2);
	assert_int_equal(f->out[0].boot_no, 6);
	assert_int_equal(f->out[2].boot_no, 8);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_order__run_is_variant_after_variant,
					setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_order__run_leaves_out_the_stored_boots, setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_order__the_daemon_goes_round_by_round, setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_order__added_boots_follow_the_last, setup, teardown),
};

KB_TEST_MAIN(tests)
