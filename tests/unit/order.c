#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "matrix.h"
#include "order.h"
#include "plan.h"
#include "store.h"

/*
 * The run order (lib/order.h): randomised complete blocks by default —
 * round r holds boot r of every variant, each round in an order of its
 * own, the same for the same seed, a round a host's; sequential on
 * request — variant after variant, each variant's boots by number; the
 * stored boots left out of both, the rest in the same order; boots added
 * after the last.  A new experiment's seed is fresh on real hosts and
 * the matrix's on the model; a stored one is read back.  Every path that
 * boots takes its order from here.
 */

/* 4 variants (2^2), 3 boots each; an unresolved plan is in plan order */
#define MATRIX(order, hosts)                                     \
	"name: order\n"                                          \
	"factors:\n"                                             \
	"  kconfig:\n"                                           \
	"    A: [n, y]\n"                                        \
	"    B: [n, y]\n"                                        \
	"workload:\n"                                            \
	"  fio: { rw: randread }\n"                              \
	"  metric: read_iops\n"                                  \
	"repeat: { boots: 3, runs_per_boot: 1" order " }\n" hosts
static const char matrix_text[] = MATRIX(", order: sequential", "");

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

static void test_order__sequential_is_variant_after_variant(void **state)
{
	struct fixture *f = *state;
	size_t i, n = kb_order_run(f->p, kb_order_seed(f->p), NULL, f->out);

	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		assert_int_equal(f->out[i].variant_idx, i / 3);
		assert_int_equal(f->out[i].boot_no, i % 3 + 1);
	}
}

static void test_order__sequential_leaves_out_the_stored_boots(void **state)
{
	struct fixture *f = *state;
	unsigned char stored[12] = { 0 };
	size_t n;

	stored[0 * 3 + 0] = 1; /* variant 0, boot 1 */
	stored[2 * 3 + 1] = 1; /* variant 2, boot 2 */
	stored[3 * 3 + 0] = stored[3 * 3 + 1] = stored[3 * 3 + 2] = 1;
	n = kb_order_run(f->p, kb_order_seed(f->p), stored, f->out);
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

/* Plan @text into @m and @p (the caller frees them). */
static void plan_of(const char *text, struct kb_matrix **m, struct kb_plan **p)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_matrix_parse_buffer(text, strlen(text), "order.yaml", m,
				   &err) ||
	    kb_plan_new(*m, p, &err))
		fail_msg("%s", err.msg);
}

/* 8 variants (2^3), 4 boots each, in blocks (the default) */
#define BLOCKS(hosts)                                            \
	"name: blocks\n"                                         \
	"factors: { kconfig: { A: [n, y], B: [n, y], C: [n, y] } }\n" \
	"workload: { fio: { rw: randread }, metric: read_iops }\n" \
	"repeat: { boots: 4 }\n" hosts

static void test_order__each_round_holds_every_variant_once(void **state)
{
	struct kb_order_boot out[32];
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	size_t i, r, n;

	(void)state;
	plan_of(BLOCKS(""), &m, &p);
	n = kb_order_run(p, kb_order_seed(p), NULL, out);
	assert_int_equal(n, 32);
	for (r = 0; r < 4; r++) {
		unsigned seen = 0;

		for (i = 0; i < 8; i++) {
			const struct kb_order_boot *b = &out[r * 8 + i];

			assert_int_equal(b->round, r + 1);
			assert_int_equal(b->boot_no, r + 1);
			assert_int_equal(b->host, (size_t)-1); /* one host */
			seen |= 1u << b->variant_idx;
		}
		assert_int_equal(seen, 0xff);
	}
	kb_plan_free(p);
	kb_matrix_free(m);
}

/* The sentinel is a variant of the order like any: once in every round,
 * at a place drawn for the round */
static void test_order__the_sentinel_runs_once_in_every_round(void **state)
{
	struct kb_order_boot out[40];
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	size_t i, r, n, last = 0;
	int moved = 0;

	(void)state;
	plan_of("name: sentinel\n"
		"factors: { kconfig: { A: [n, y], B: [n, y], C: [n, y] } }\n"
		"workload: { fio: { rw: randread }, metric: read_iops }\n"
		"repeat: { boots: 4, sentinel: true }\n",
		&m, &p);
	assert_int_equal(kb_plan_sentinel(p), 8);
	n = kb_order_run(p, kb_order_seed(p), NULL, out);
	assert_int_equal(n, 36);
	for (r = 0; r < 4; r++) {
		unsigned seen = 0;

		for (i = 0; i < 9; i++) {
			const struct kb_order_boot *b = &out[r * 9 + i];

			assert_int_equal(b->round, r + 1);
			seen |= 1u << b->variant_idx;
			if (b->variant_idx == 8) {
				moved |= r && i != last;
				last = i;
			}
		}
		assert_int_equal(seen, 0x1ff);
	}
	assert_true(moved);
	kb_plan_free(p);
	kb_matrix_free(m);
}

static void test_order__rounds_differ_and_the_seed_gives_them(void **state)
{
	struct kb_order_boot a[32], b[32], c[32];
	struct kb_matrix *m = NULL, *m2 = NULL, *m3 = NULL;
	struct kb_plan *p = NULL, *p2 = NULL, *p3 = NULL;
	size_t r, s, i, in_plan_order = 0;

	(void)state;
	plan_of(BLOCKS(""), &m, &p);
	plan_of(BLOCKS(""), &m2, &p2);
	plan_of(BLOCKS("# another matrix text, another seed\n"), &m3, &p3);
	kb_order_run(p, kb_order_seed(p), NULL, a);
	kb_order_run(p2, kb_order_seed(p2), NULL, b);
	kb_order_run(p3, kb_order_seed(p3), NULL, c);
	/* the same matrix: the same order, in any process */
	for (i = 0; i < 32; i++)
		assert_int_equal(a[i].variant_idx, b[i].variant_idx);
	/* every round's order differs from every other's */
	for (r = 0; r < 4; r++)
		for (s = r + 1; s < 4; s++) {
			int same = 1;

			for (i = 0; i < 8; i++)
				same &= a[r * 8 + i].variant_idx ==
					a[s * 8 + i].variant_idx;
			assert_false(same);
		}
	/* another text, another order */
	for (i = 0, r = 0; i < 32; i++)
		r += a[i].variant_idx != c[i].variant_idx;
	assert_true(r > 0);
	/* and not the plan's */
	for (i = 0; i < 8; i++)
		in_plan_order += a[i].variant_idx == i;
	assert_true(in_plan_order < 8);
	kb_plan_free(p);
	kb_plan_free(p2);
	kb_plan_free(p3);
	kb_matrix_free(m);
	kb_matrix_free(m2);
	kb_matrix_free(m3);
}

static void test_order__resume_keeps_the_order_of_what_is_left(void **state)
{
	struct kb_order_boot all[32], left[32];
	unsigned char stored[32] = { 0 };
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	size_t i, k, n;

	(void)state;
	plan_of(BLOCKS(""), &m, &p);
	kb_order_run(p, kb_order_seed(p), NULL, all);
	/* the first 11 boots ran, and one of round 3 */
	for (i = 0; i < 11; i++)
		stored[all[i].variant_idx * 4 + all[i].boot_no - 1] = 1;
	stored[all[20].variant_idx * 4 + all[20].boot_no - 1] = 1;
	n = kb_order_run(p, kb_order_seed(p), stored, left);
	assert_int_equal(n, 20);
	for (i = 11, k = 0; i < 32; i++) {
		if (i == 20)
			continue;
		assert_int_equal(left[k].variant_idx, all[i].variant_idx);
		assert_int_equal(left[k].boot_no, all[i].boot_no);
		k++;
	}
	kb_plan_free(p);
	kb_matrix_free(m);
}

static void test_order__a_round_is_one_hosts_and_hosts_share_them(void **state)
{
	struct kb_order_boot out[32];
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	size_t i, r, rounds[2] = { 0, 0 };

	(void)state;
	plan_of(BLOCKS("hosts:\n"
		       "  - { uri: \"qemu+ssh://a/system\", capacity: 3 }\n"
		       "  - qemu+ssh://b/system\n"),
		&m, &p);
	kb_order_run(p, kb_order_seed(p), NULL, out);
	for (r = 0; r < 4; r++) {
		size_t h = out[r * 8].host;

		assert_true(h < 2);
		for (i = 1; i < 8; i++)
			assert_int_equal(out[r * 8 + i].host, h);
		rounds[h]++;
	}
	/* as many rounds each: every variant's boots even over the hosts
	 * (capacity is how many of a round's boots run at once) */
	assert_int_equal(rounds[0], 2);
	assert_int_equal(rounds[1], 2);
	kb_plan_free(p);
	kb_matrix_free(m);
}

static void test_order__a_new_experiment_draws_a_fresh_seed_but_the_model(
	void **state)
{
	struct kb_order_boot a[32], b[32];
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	uint64_t s1, s2;
	size_t i, differ = 0;

	(void)state;
	plan_of(BLOCKS(""), &m, &p);
	/* real hosts: two runs of one matrix, two seeds, two orders */
	s1 = kb_order_seed_new(p, 0);
	s2 = kb_order_seed_new(p, 0);
	assert_true(s1 != s2);
	assert_true(s1 != kb_order_seed(p) && s2 != kb_order_seed(p));
	kb_order_run(p, s1, NULL, a);
	kb_order_run(p, s2, NULL, b);
	for (i = 0; i < 32; i++)
		differ += a[i].variant_idx != b[i].variant_idx;
	assert_true(differ > 0);
	/* the model: the matrix's, as its noise is */
	assert_true(kb_order_seed_new(p, 1) == kb_order_seed(p));
	kb_plan_free(p);
	kb_matrix_free(m);
}

static void test_order__the_stored_seed_is_read_back_or_refused(void **state)
{
	struct kb_store_info i;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_err err = KB_ERR_INIT;
	uint64_t seed = 0;

	(void)state;
	plan_of(BLOCKS(""), &m, &p);
	memset(&i, 0, sizeof(i));
	i.id = 7;
	i.has_order_seed = 1;
	i.order_seed = 0x0123456789abcdefULL;
	assert_int_equal(kb_order_stored_seed(&i, p, &seed, &err), 0);
	assert_true(seed == 0x0123456789abcdefULL);
	/* stored before db/0013: the matrix's, as it was then */
	i.has_order_seed = 0;
	assert_int_equal(kb_order_stored_seed(&i, p, &seed, &err), 0);
	assert_true(seed == kb_order_seed(p));
	/* not a seed: refused, not guessed */
	i.has_order_seed = -1;
	assert_int_equal(kb_order_stored_seed(&i, p, &seed, &err), KB_EINPUT);
	assert_non_null(strstr(err.msg, "experiment 7"));
	assert_non_null(strstr(err.msg, "order_seed"));
	kb_plan_free(p);
	kb_matrix_free(m);
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
	cmocka_unit_test_setup_teardown(test_order__sequential_is_variant_after_variant,
					setup, teardown),
	cmocka_unit_test_setup_teardown(
		test_order__sequential_leaves_out_the_stored_boots, setup, teardown),
	cmocka_unit_test(test_order__each_round_holds_every_variant_once),
	cmocka_unit_test(test_order__the_sentinel_runs_once_in_every_round),
	cmocka_unit_test(test_order__rounds_differ_and_the_seed_gives_them),
	cmocka_unit_test(test_order__resume_keeps_the_order_of_what_is_left),
	cmocka_unit_test(test_order__a_round_is_one_hosts_and_hosts_share_them),
	cmocka_unit_test(
		test_order__a_new_experiment_draws_a_fresh_seed_but_the_model),
	cmocka_unit_test(test_order__the_stored_seed_is_read_back_or_refused),
	cmocka_unit_test_setup_teardown(
		test_order__added_boots_follow_the_last, setup, teardown),
};

KB_TEST_MAIN(tests)
