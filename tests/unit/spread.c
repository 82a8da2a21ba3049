#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "spread.h"

/*
 * The spread: each variant's boots over every live host, the totals
 * balanced, in a seeded order; boots counted first are respected; a
 * drained host gets nothing more.  And whether builds overlap boots.
 */

#define NV 8
#define NH 3

/* Pick @boots boots for each of NV variants; counts into @c[v][h]. */
static void spread_all(struct kb_spread *sp, unsigned boots,
		       unsigned c[NV][NH], size_t *first)
{
	size_t v, b, h;

	memset(c, 0, sizeof(unsigned) * NV * NH);
	for (v = 0; v < NV; v++)
		for (b = 0; b < boots; b++) {
			h = kb_spread_pick(sp, v);
			assert_true(h < NH);
			c[v][h]++;
			if (b == 0 && first)
				first[v] = h;
		}
}

static void test_spread__every_variant_on_every_host_evenly(void **state)
{
	struct kb_spread *sp = kb_spread_new(NV, NH, 42);
	unsigned c[NV][NH], tot[NH] = { 0 };
	size_t v, h;

	(void)state;
	spread_all(sp, 6, c, NULL);
	for (v = 0; v < NV; v++)
		for (h = 0; h < NH; h++) {
			assert_int_equal(c[v][h], 2);
			tot[h] += c[v][h];
		}
	for (h = 0; h < NH; h++)
		assert_int_equal(tot[h], NV * 2);
	kb_spread_free(sp);
}

static void test_spread__remainders_balance_the_totals(void **state)
{
	struct kb_spread *sp = kb_spread_new(NV, NH, 7);
	unsigned c[NV][NH], tot[NH] = { 0 };
	size_t v, h;

	(void)state;
	/* 4 boots over 3 hosts: 1 or 2 a host per variant, the extra ones
	 * go round so that the totals differ by one at most */
	spread_all(sp, 4, c, NULL);
	for (v = 0; v < NV; v++)
		for (h = 0; h < NH; h++) {
			assert_true(c[v][h] == 1 || c[v][h] == 2);
			tot[h] += c[v][h];
		}
	for (h = 0; h < NH; h++)
		assert_true(tot[h] >= 10 && tot[h] <= 11);
	kb_spread_free(sp);
}

static void test_spread__the_order_is_seeded_and_random(void **state)
{
	struct kb_spread *a = kb_spread_new(NV, NH, 99);
	struct kb_spread *b = kb_spread_new(NV, NH, 99);
	struct kb_spread *c = kb_spread_new(NV, NH, 100);
	unsigned ca[NV][NH], cb[NV][NH], cc[NV][NH];
	size_t fa[NV], fb[NV], fc[NV], v, firsts[NH] = { 0 };
	int differ = 0;

	(void)state;
	spread_all(a, 3, ca, fa);
	spread_all(b, 3, cb, fb);
	spread_all(c, 3, cc, fc);
	for (v = 0; v < NV; v++) {
		/* the same seed, the same hosts */
		assert_int_equal(fa[v], fb[v]);
		differ |= fa[v] != fc[v];
		firsts[fa[v]]++;
	}
	/* another seed, another order; and the first boots are not all on
	 * one host */
	assert_true(differ);
	assert_true(firsts[0] < NV && firsts[1] < NV && firsts[2] < NV);
	assert_int_equal(kb_spread_seed("a: 1\n"), kb_spread_seed("a: 1\n"));
	assert_true(kb_spread_seed("a: 1\n") != kb_spread_seed("a: 2\n"));
	kb_spread_free(a);
	kb_spread_free(b);
	kb_spread_free(c);
}

static void test_spread__boots_counted_first_are_respected(void **state)
{
	struct kb_spread *sp = kb_spread_new(1, NH, 1);
	unsigned c[NH] = { 0 };
	size_t i;

	(void)state;
	/* a resumed variant ran 2 boots on host 0 already: its next 4 go
	 * to 1 and 2 first */
	kb_spread_count(sp, 0, 0);
	kb_spread_count(sp, 0, 0);
	for (i = 0; i < 4; i++)
		c[kb_spread_pick(sp, 0)]++;
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 2);
	assert_int_equal(c[2], 2);
	kb_spread_free(sp);
}

static void test_spread__a_drained_host_gets_nothing(void **state)
{
	struct kb_spread *sp = kb_spread_new(NV, NH, 5);
	unsigned c[NV][NH];
	size_t v;

	(void)state;
	assert_int_equal(kb_spread_nlive(sp), 3);
	kb_spread_drain(sp, 1);
	assert_false(kb_spread_live(sp, 1));
	assert_int_equal(kb_spread_nlive(sp), 2);
	spread_all(sp, 4, c, NULL);
	for (v = 0; v < NV; v++) {
		assert_int_equal(c[v][1], 0);
		assert_int_equal(c[v][0], 2);
		assert_int_equal(c[v][2], 2);
	}
	kb_spread_drain(sp, 0);
	kb_spread_drain(sp, 2);
	assert_int_equal(kb_spread_nlive(sp), 0);
	assert_true(kb_spread_pick(sp, 0) == (size_t)-1);
	kb_spread_free(sp);
}

static void test_spread__grows_for_variants_added_later(void **state)
{
	struct kb_spread *sp = kb_spread_new(0, NH, 9);
	struct kb_spread *all = kb_spread_new(NV, NH, 9);
	unsigned c[NH] = { 0 };
	size_t v, i;

	(void)state;
	/* a variant the spread does not have yet gets no host */
	assert_true(kb_spread_pick(sp, 0) == (size_t)-1);
	/* grown one variant at a time (a bisection's probes), it spreads
	 * each as a spread made for all of them does */
	for (v = 0; v < NV; v++) {
		kb_spread_grow(sp, v + 1);
		for (i = 0; i < 4; i++)
			assert_int_equal(kb_spread_pick(sp, v),
					 kb_spread_pick(all, v));
	}
	/* what was counted stays when it grows again; fewer: nothing */
	kb_spread_grow(sp, 2);
	kb_spread_grow(sp, 3 * NV);
	for (i = 0; i < 2; i++)
		c[kb_spread_pick(sp, 0)]++;
	for (i = 0; i < NH; i++)
		assert_true(c[i] <= 1);
	assert_true(kb_spread_pick(sp, 3 * NV - 1) < NH);
	kb_spread_free(sp);
	kb_spread_free(all);
}

/* The matrix @hosts (a YAML list) and @build (a build: line or ""). */
static struct kb_matrix *matrix(const char *hosts, const char *build)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	char text[512];

	snprintf(text, sizeof(text),
		 "workload: { fio: { rw: randread } }\n"
		 "hosts: %s\n%s",
		 hosts, build);
	if (kb_matrix_parse_buffer(text, strlen(text), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	return m;
}

static void test_spread__builds_overlap_boots_unless_a_guest_is_here(
	void **state)
{
	struct kb_matrix *m;

	(void)state;
	m = matrix("[qemu+ssh://a/system, qemu+ssh://b/system]", "");
	assert_true(kb_spread_overlap(m, 0));
	kb_matrix_free(m);
	m = matrix("[qemu+ssh://a/system, qemu:///system]", "");
	assert_false(kb_spread_overlap(m, 0));
	/* the model's guests take no core of this machine */
	assert_true(kb_spread_overlap(m, 1));
	kb_matrix_free(m);
	m = matrix("[qemu:///system]", "build: { overlap: yes }\n");
	assert_true(kb_spread_overlap(m, 0));
	kb_matrix_free(m);
	m = matrix("[qemu+ssh://a/system]", "build: { overlap: no }\n");
	assert_false(kb_spread_overlap(m, 1));
	kb_matrix_free(m);
	assert_false(kb_spread_uri_remote("qemu+ssh://localhost/system"));
	assert_true(kb_spread_uri_remote("xen+ssh://root@h2/system"));
}

static void test_spread__loopback_and_local_socket_uris_are_this_machine(
	void **state)
{
	char self[256];
	char *uri;
	struct kb_matrix *m;

	(void)state;
	/* the Xen lab: a loopback address with a port */
	assert_false(kb_spread_uri_remote("xen+tcp://127.0.0.1:16510/system"));
	assert_false(kb_spread_uri_remote("xen+tcp://127.0.0.2/system"));
	assert_false(kb_spread_uri_remote("qemu+ssh://root@localhost:2222/system"));
	assert_false(kb_spread_uri_remote("qemu+tcp://[::1]:16509/system"));
	assert_false(kb_spread_uri_remote("qemu+tcp://LOCALHOST/system"));
	assert_false(kb_spread_uri_remote("qemu+unix://ignored/system?socket=/run/x"));
	assert_false(kb_spread_uri_remote("qemu+tcp://127.0.0.1?x=y"));
	assert_true(kb_spread_uri_remote("qemu+tcp://127.0.0.1.example/system"));
	assert_true(kb_spread_uri_remote("qemu+tcp://[fe80::1]:16509/system"));
	assert_true(kb_spread_uri_remote("qemu+tcp://10.0.0.7:16509/system"));
	if (gethostname(self, sizeof(self)) == 0) {
		self[sizeof(self) - 1] = 0;
		uri = kb_asprintf("qemu+ssh://%s/system", self);
		assert_false(kb_spread_uri_remote(uri));
		free(uri);
	}
	m = matrix("[xen+tcp://127.0.0.1:16510/system]", "");
	assert_false(kb_spread_overlap(m, 0));
	kb_matrix_free(m);
}

static void test_spread__build_overlap_takes_yes_no_or_auto(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	const char *text = "workload: { fio: { rw: randread } }\n"
			   "build: { overlap: sometimes }\n";

	(void)state;
	assert_int_equal(kb_matrix_parse_buffer(text, strlen(text), "t.yaml",
						&m, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "t.yaml:2:");
	assert_msg_contains(err.msg, "build.overlap");
	assert_null(m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_spread__every_variant_on_every_host_evenly),
	cmocka_unit_test(test_spread__remainders_balance_the_totals),
	cmocka_unit_test(test_spread__the_order_is_seeded_and_random),
	cmocka_unit_test(test_spread__boots_counted_first_are_respected),
	cmocka_unit_test(test_spread__a_drained_host_gets_nothing),
	cmocka_unit_test(test_spread__grows_for_variants_added_later),
	cmocka_unit_test(
		test_spread__builds_overlap_boots_unless_a_guest_is_here),
	cmocka_unit_test(test_spread__build_overlap_takes_yes_no_or_auto),
	cmocka_unit_test(
		test_spread__loopback_and_local_socket_uris_are_this_machine),
};

KB_TEST_MAIN(tests)
