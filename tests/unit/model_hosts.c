#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "executor.h"
#include "model.h"
#include "variant.h"

/*
 * The performance model's hosts (docs/model.md, "Hosts"): a factor per
 * host on the values of the boots that run there, a host that fails its
 * boots after the first N (a libvirt error, as a lost connection), and
 * the checks on the mapping.
 */

#define HEAD "metric: read_iops\nbase: 1000\nseed: 5\n"
#define A "qemu+ssh://a/system"
#define B "qemu+ssh://b/system"

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
	assert_msg_contains(err.msg, expect);
}

static const struct kb_variant *variant(struct kb_variant *v)
{
	memset(v, 0, sizeof(*v));
	v->label = "X=y";
	v->build_key = "X=y";
	return v;
}

/* Boot @boot_no of the variant on executor @ex; its status, host and
 * first value. */
static enum kb_boot_status boot(struct kb_executor *ex, unsigned boot_no,
				char *host, size_t hostlen, double *value)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_variant v;
	enum kb_boot_status st;

	memset(&br, 0, sizeof(br));
	br.status = KB_BUILD_OK;
	if (kb_executor_boot(ex, variant(&v), &br, boot_no, 1, &bo, &err))
		fail_msg("%s", err.msg);
	st = bo.status;
	snprintf(host, hostlen, "%s", bo.host ? bo.host : "");
	*value = NAN;
	if (bo.nruns)
		kb_sample_get(&bo.runs[0], "read_iops", value);
	kb_boot_result_release(&bo);
	return st;
}

static void test_model_hosts__a_host_factor_multiplies_its_boots(void **state)
{
	struct kb_model *m = parse_ok(HEAD
				      "noise: { boot_cv: 0.05 }\n"
				      "hosts:\n"
				      "  \"" A "\": 1.0\n"
				      "  \"" B "\": { factor: 0.8 }\n");
	struct kb_executor *plain = NULL, *a = NULL, *b = NULL, *c = NULL;
	char host[64];
	double x, ya, yb, yc;

	(void)state;
	assert_int_equal(kb_model_executor_new(m, 0, &plain), 0);
	assert_int_equal(kb_model_executor_on(m, 0, A, &a), 0);
	assert_int_equal(kb_model_executor_on(m, 0, B, &b), 0);
	assert_int_equal(kb_model_executor_on(m, 0, "qemu+ssh://c/system",
					      &c),
			 0);
	assert_int_equal(boot(plain, 3, host, sizeof(host), &x), KB_BOOT_OK);
	assert_string_equal(host, "model");
	assert_int_equal(boot(a, 3, host, sizeof(host), &ya), KB_BOOT_OK);
	assert_string_equal(host, A);
	assert_int_equal(boot(b, 3, host, sizeof(host), &yb), KB_BOOT_OK);
	assert_string_equal(host, B);
	/* a host the model does not name: factor 1, its URI recorded */
	assert_int_equal(boot(c, 3, host, sizeof(host), &yc), KB_BOOT_OK);
	assert_string_equal(host, "qemu+ssh://c/system");
	/* the same boot's noise, times the host's factor */
	assert_true(ya == x);
	assert_true(yc == x);
	assert_true(fabs(yb - 0.8 * x) < 1e-9 * x);
	kb_executor_free(plain);
	kb_executor_free(a);
	kb_executor_free(b);
	kb_executor_free(c);
	kb_model_free(m);
}

static void test_model_hosts__fail_after_loses_the_host(void **state)
{
	struct kb_model *m = parse_ok(HEAD "hosts:\n"
					   "  \"" A "\": { fail_after: 2 }\n");
	struct kb_executor *a1 = NULL, *a2 = NULL, *b = NULL;
	char host[64];
	double y;

	(void)state;
	assert_int_equal(kb_model_executor_on(m, 0, A, &a1), 0);
	assert_int_equal(kb_model_executor_on(m, 0, A, &a2), 0);
	assert_int_equal(kb_model_executor_on(m, 0, B, &b), 0);
	/* the count is the host's, whichever executor boots on it */
	assert_int_equal(boot(a1, 1, host, sizeof(host), &y), KB_BOOT_OK);
	assert_int_equal(boot(a2, 2, host, sizeof(host), &y), KB_BOOT_OK);
	assert_int_equal(boot(a1, 3, host, sizeof(host), &y),
			 KB_BOOT_LIBVIRT_ERROR);
	assert_string_equal(host, A);
	assert_true(isnan(y));
	assert_int_equal(boot(a2, 3, host, sizeof(host), &y),
			 KB_BOOT_LIBVIRT_ERROR);
	/* another host goes on */
	assert_int_equal(boot(b, 3, host, sizeof(host), &y), KB_BOOT_OK);
	kb_executor_free(a1);
	kb_executor_free(a2);
	kb_executor_free(b);
	kb_model_free(m);
}

static void test_model_hosts__lost_host_says_so(void **state)
{
	struct kb_model *m = parse_ok(HEAD "hosts:\n"
					   "  \"" A "\": { fail_after: 0 }\n"
					   "  \"" B "\": { fail_after: 1 }\n");
	struct kb_executor *b = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct kb_build_result br;
	struct kb_boot_result bo;
	struct kb_variant v;

	(void)state;
	assert_int_equal(kb_model_executor_on(m, 0, B, &b), 0);
	memset(&br, 0, sizeof(br));
	assert_int_equal(kb_executor_boot(b, variant(&v), &br, 1, 1, &bo,
					  &err),
			 0);
	assert_int_equal(bo.status, KB_BOOT_OK);
	kb_boot_result_release(&bo);
	assert_int_equal(kb_executor_boot(b, variant(&v), &br, 2, 1, &bo,
					  &err),
			 0);
	assert_int_equal(bo.status, KB_BOOT_LIBVIRT_ERROR);
	assert_string_equal(bo.reason,
			    "model: host " B " is lost after 1 boots (fail_after)");
	assert_int_equal(bo.nruns, 0);
	kb_boot_result_release(&bo);
	kb_executor_free(b);
	kb_model_free(m);
}

static void test_model_hosts__bad_hosts_are_refused(void **state)
{
	(void)state;
	parse_err(HEAD "hosts: [a]\n", "t.yaml:4:8: 'hosts' must be a mapping");
	parse_err(HEAD "hosts: { nohost: 1 }\n",
		  "invalid libvirt URI 'nohost'");
	parse_err(HEAD "hosts: { \"" A "\": 0 }\n",
		  "a host's factor must be a number from 0.001 to 1000, found '0'");
	parse_err(HEAD "hosts: { \"" A "\": \"fast\" }\n",
		  "a host's factor must be a number");
	parse_err(HEAD "hosts: { \"" A "\": { speed: 2 } }\n",
		  "unknown key 'speed' in a host");
	parse_err(HEAD "hosts: { \"" A "\": { fail_after: -1 } }\n",
		  "'fail_after' must be an integer from 0 to 1000000");
	parse_err(HEAD "hosts:\n  \"" A "\": 1\n  \"" A "\": 2\n",
		  "t.yaml:6:3: duplicate key '" A "'");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_model_hosts__a_host_factor_multiplies_its_boots),
	cmocka_unit_test(test_model_hosts__fail_after_loses_the_host),
	cmocka_unit_test(test_model_hosts__lost_host_says_so),
	cmocka_unit_test(test_model_hosts__bad_hosts_are_refused),
};

KB_TEST_MAIN(tests)
