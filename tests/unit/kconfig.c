#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "err.h"
#include "kconfig.h"
#include "mem.h"
#include "variant.h"

#define TREE KB_TEST_DATA "/kconfig/tree"

static char *tmp; /* a scratch folder, for the tests that resolve */

static int setup(void **state)
{
	(void)state;
	tmp = kb_test_tmpdir("kconfig");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kb_test_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

/* Write @text to tmp/@name with @mode; returns its path (caller frees). */
static char *put(const char *name, const char *text, mode_t mode)
{
	return kb_test_write(tmp, name, text, mode);
}

/* The text of tmp/@name, or "" when there is none (caller frees). */
static char *slurp(const char *name)
{
	char *p = kb_asprintf("%s/%s", tmp, name);
	struct kb_buf b = KB_BUF_INIT;

	if (kb_buf_read_file(&b, p, 1u << 20, NULL))
		kb_buf_reset(&b);
	free(p);
	return kb_buf_detach(&b);
}

static struct kb_kconfig *parse_ok(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *cfg = NULL;

	if (kb_kconfig_parse_buffer(text, strlen(text), "t.config", &cfg,
				    &err))
		fail_msg("unexpected error: %s", err.msg);
	return cfg;
}

static void parse_err(const char *text, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *cfg = NULL;

	assert_int_equal(kb_kconfig_parse_buffer(text, strlen(text),
						 "t.config", &cfg, &err),
			 KB_EINPUT);
	assert_null(cfg);
	assert_msg_contains(err.msg, expect);
}

static struct kb_ksyms *scan(const char *arch)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ksyms *ks = NULL;

	if (kb_kconfig_tree_scan(TREE, arch, &ks, &err))
		fail_msg("scan failed: %s", err.msg);
	return ks;
}

static void test_kconfig__values_of_every_kind(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *cfg = NULL;

	(void)state;
	assert_int_equal(kb_kconfig_load(KB_TEST_DATA "/kconfig/sample.config",
					 &cfg, &err),
			 0);
	assert_string_equal(kb_kconfig_get(cfg, "64BIT"), "y");
	assert_string_equal(kb_kconfig_get(cfg, "VIRTIO_BLK"), "m");
	assert_string_equal(kb_kconfig_get(cfg, "PARAVIRT"), "n");
	assert_string_equal(kb_kconfig_get(cfg, "LOG_BUF_SHIFT"), "17");
	assert_string_equal(kb_kconfig_get(cfg, "PHYSICAL_START"),
			    "0x1000000");
	assert_string_equal(kb_kconfig_get(cfg, "CMDLINE"),
			    "\"console=ttyS0 \\\"quoted\\\" back\\\\slash\"");
	assert_null(kb_kconfig_get(cfg, "MISSING"));
	assert_int_equal(kb_kconfig_level(cfg, "64BIT"), 2);
	assert_int_equal(kb_kconfig_level(cfg, "VIRTIO_BLK"), 1);
	assert_int_equal(kb_kconfig_level(cfg, "LOG_BUF_SHIFT"), 0);
	kb_kconfig_free(cfg);
}

static void test_kconfig__duplicates_last_one_wins(void **state)
{
	struct kb_kconfig *cfg = parse_ok("CONFIG_SMP=y\n"
					  "# CONFIG_SMP is not set\n"
					  "CONFIG_A=1\nCONFIG_A=2\n");

	(void)state;
	assert_string_equal(kb_kconfig_get(cfg, "SMP"), "n");
	assert_string_equal(kb_kconfig_get(cfg, "A"), "2");
	assert_int_equal(kb_kconfig_count(cfg), 2);
	kb_kconfig_free(cfg);
	/* the sample sets SMP=y, then SMP=n further down */
	cfg = parse_ok("CONFIG_SMP=n\r\nCONFIG_SMP=y   \r\n");
	assert_string_equal(kb_kconfig_get(cfg, "SMP"), "y");
	kb_kconfig_free(cfg);
}

static void test_kconfig__comments_and_blank_lines_are_ignored(void **state)
{
	struct kb_kconfig *cfg = parse_ok("\n#\n# CONFIG_X is set\n"
					  "#CONFIG_Y is not set\n  \t\n"
					  "# CONFIG_Z is not set really\n");

	(void)state;
	assert_int_equal(kb_kconfig_count(cfg), 0);
	kb_kconfig_free(cfg);
}

static void test_kconfig__malformed_lines_name_line_and_column(void **state)
{
	(void)state;
	parse_err("CONFIG_A=y\nFOO=y\n", "t.config:2:1: expected 'CONFIG_NAME=value'");
	parse_err("CONFIG_A=yes\n", "t.config:1:10: CONFIG_A: expected y, m, n");
	parse_err("CONFIG_A\n", "t.config:1:9: expected '=' after 'CONFIG_A'");
	parse_err("CONFIG_=y\n", "t.config:1:8: expected a symbol name");
	parse_err("CONFIG_S=\"abc\n", "t.config:1:14: CONFIG_S: unterminated string");
	parse_err("CONFIG_S=\"a\" x\n", "t.config:1:13: CONFIG_S: text after the closing quote");
	parse_err("CONFIG_A=\n", "t.config:1:10: CONFIG_A: missing value");
	parse_err("CONFIG_A=0x\n", "t.config:1:10");
	parse_err("CONFIG_A=1.5\n", "t.config:1:10");
}

static void test_kconfig__nul_byte_is_refused(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *cfg = NULL;
	static const char text[] = "CONFIG_A=y\nCONFIG_B\0=y\n";

	(void)state;
	assert_int_equal(kb_kconfig_parse_buffer(text, sizeof(text) - 1,
						 "t.config", &cfg, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "t.config:2:9: NUL byte");
}

static void test_kconfig__normalised_form_is_stable(void **state)
{
	struct kb_kconfig *a = parse_ok("CONFIG_B=y\n# comment\n"
					"# CONFIG_A is not set\nCONFIG_C=\"x\"\n");
	struct kb_kconfig *b = parse_ok("CONFIG_C=\"x\"\nCONFIG_A=n\n"
					"CONFIG_B=m\nCONFIG_B=y\n\n");
	struct kb_buf na = KB_BUF_INIT, nb = KB_BUF_INIT;
	char da[KB_SHA256_HEX_LEN + 1], db[KB_SHA256_HEX_LEN + 1];

	(void)state;
	kb_kconfig_normalised(a, &na);
	kb_kconfig_normalised(b, &nb);
	assert_string_equal(na.buf, "A=n\nB=y\nC=\"x\"\n");
	assert_string_equal(na.buf, nb.buf);
	kb_kconfig_digest(a, da);
	kb_kconfig_digest(b, db);
	assert_string_equal(da, db);
	assert_int_equal(kb_kconfig_set(b, "B", "m", NULL), 0);
	kb_kconfig_digest(b, db);
	assert_string_not_equal(da, db);
	kb_buf_release(&na);
	kb_buf_release(&nb);
	kb_kconfig_free(a);
	kb_kconfig_free(b);
}

static void test_kconfig__strings_are_canonical(void **state)
{
	/* \q is q; only " and \ stay escaped */
	struct kb_kconfig *a = parse_ok("CONFIG_S=\"a\\qb\\\\c\\\"\"\n");

	(void)state;
	assert_string_equal(kb_kconfig_get(a, "S"), "\"aqb\\\\c\\\"\"");
	kb_kconfig_free(a);
}

static void test_kconfig__write_round_trips(void **state)
{
	struct kb_kconfig *a = NULL, *b = NULL;
	struct kb_buf w = KB_BUF_INIT, na = KB_BUF_INIT, nb = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_kconfig_load(KB_TEST_DATA "/kconfig/sample.config",
					 &a, &err),
			 0);
	kb_kconfig_write(a, &w);
	assert_non_null(strstr(w.buf, "# CONFIG_PARAVIRT is not set\n"));
	b = parse_ok(w.buf);
	kb_kconfig_normalised(a, &na);
	kb_kconfig_normalised(b, &nb);
	assert_string_equal(na.buf, nb.buf);
	kb_buf_release(&w);
	kb_buf_release(&na);
	kb_buf_release(&nb);
	kb_kconfig_free(a);
	kb_kconfig_free(b);
}

static void test_kconfig__set_checks_and_keeps_order(void **state)
{
	struct kb_kconfig *cfg = kb_kconfig_new();
	struct kb_err err = KB_ERR_INIT;
	const char *v;

	(void)state;
	assert_int_equal(kb_kconfig_set(cfg, "ZED", "y", &err), 0);
	assert_int_equal(kb_kconfig_set(cfg, "ALPHA", "0x10", &err), 0);
	assert_int_equal(kb_kconfig_set(cfg, "MID", "\"s\"", &err), 0);
	assert_int_equal(kb_kconfig_set(cfg, "ZED", "m", &err), 0);
	assert_int_equal(kb_kconfig_count(cfg), 3);
	assert_string_equal(kb_kconfig_name_at(cfg, 0, &v), "ALPHA");
	assert_string_equal(v, "0x10");
	assert_string_equal(kb_kconfig_name_at(cfg, 2, &v), "ZED");
	assert_string_equal(v, "m");
	assert_null(kb_kconfig_name_at(cfg, 3, &v));
	assert_int_equal(kb_kconfig_set(cfg, "BAD-NAME", "y", &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_kconfig_set(cfg, "X", "yes", &err), KB_EINPUT);
	kb_kconfig_free(cfg);
}

static void test_kconfig__requested_and_resolved_values_match(void **state)
{
	(void)state;
	assert_true(kb_kconfig_value_matches("y", "y"));
	assert_false(kb_kconfig_value_matches("y", "m"));
	assert_true(kb_kconfig_value_matches("n", NULL));
	assert_false(kb_kconfig_value_matches("y", NULL));
	assert_true(kb_kconfig_value_matches("0x10", "16"));
	assert_true(kb_kconfig_value_matches("0x1000000", "0x1000000"));
	assert_false(kb_kconfig_value_matches("17", "18"));
	assert_true(kb_kconfig_value_matches("\"quiet\"", "\"quiet\""));
	assert_false(kb_kconfig_value_matches("\"quiet\"", "\"\""));
}

static void eval_is(const char *expr, const char *config, int need,
		    int level, const char *unmet)
{
	struct kb_kconfig *cfg = parse_ok(config);
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int got = -1;

	if (kb_kconfig_eval(expr, cfg, need, &got, &b, &err))
		fail_msg("'%s': %s", expr, err.msg);
	if (got != level || strcmp(b.buf, unmet))
		fail_msg("'%s': level %d unmet '%s', expected %d '%s'", expr,
			 got, b.buf, level, unmet);
	kb_buf_release(&b);
	kb_kconfig_free(cfg);
}

static void test_kconfig__eval_uses_tristate_logic(void **state)
{
	(void)state;
	eval_is("A && B", "CONFIG_A=y\nCONFIG_B=m\n", 2, 1, "B");
	eval_is("A || B", "CONFIG_A=n\nCONFIG_B=m\n", 2, 1, "B");
	eval_is("!B", "CONFIG_B=m\n", 2, 1, "!B");
	eval_is("!A", "", 2, 2, "");
	eval_is("A && (B || !C)", "CONFIG_A=y\nCONFIG_C=y\n", 2, 0,
		"B");
	eval_is("m", "", 1, 1, "");
	eval_is("y && $(cc-option,-fstack-protector)", "", 2, 2, "");
}

static void test_kconfig__eval_names_the_unmet_symbols(void **state)
{
	(void)state;
	eval_is("PARAVIRT && SMP", "CONFIG_SMP=n\n", 2, 0, "PARAVIRT, SMP");
	/* an || takes the alternative that needs fewer changes */
	eval_is("(A && B) || C", "", 2, 0, "C");
	/* under ! an && is lowered by one side */
	eval_is("!(A && B)", "CONFIG_A=y\nCONFIG_B=y\n", 2, 0, "!A");
	eval_is("A && A", "", 2, 0, "A");
}

static void test_kconfig__eval_compares_values(void **state)
{
	(void)state;
	eval_is("NR_CPUS > 1", "CONFIG_NR_CPUS=1\n", 2, 0, "NR_CPUS>1");
	eval_is("NR_CPUS >= 0x2", "CONFIG_NR_CPUS=2\n", 2, 2, "");
	eval_is("ARCH != \"i386\"", "", 2, 2, "");
	eval_is("S = \"a b\"", "CONFIG_S=\"a b\"\n", 2, 2, "");
	eval_is("!(A = y)", "CONFIG_A=y\n", 2, 0, "A!=y");
	eval_is("64BIT", "CONFIG_64BIT=y\n", 2, 2, "");
}

static void test_kconfig__eval_refuses_bad_expressions(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	int level;

	(void)state;
	assert_int_equal(kb_kconfig_eval("A && (B", NULL, 2, &level, NULL,
					 &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "column 8: expected ')'");
	kb_err_clear(&err);
	assert_int_equal(kb_kconfig_eval("A B", NULL, 2, &level, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "unexpected text");
	kb_err_clear(&err);
	assert_int_equal(kb_kconfig_eval("&&", NULL, 2, &level, NULL, &err),
			 KB_EINPUT);
}

static void test_kconfig__eval_depth_is_capped(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char expr[1024];
	int level;

	(void)state;
	memset(expr, '(', 500);
	expr[500] = 'A';
	memset(expr + 501, ')', 500);
	expr[1001] = '\0';
	assert_int_equal(kb_kconfig_eval(expr, NULL, 2, &level, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "nested too deeply");
}

static void test_kconfig__scan_follows_source_for_the_arch(void **state)
{
	struct kb_ksyms *ks = scan("x86_64");
	struct kb_ksyms *arm = scan("arm");

	(void)state;
	assert_true(kb_ksyms_has(ks, "PARAVIRT_SPINLOCKS"));
	assert_true(kb_ksyms_has(ks, "EXPERT"));
	assert_false(kb_ksyms_has(ks, "ARM_ONLY"));
	assert_false(kb_ksyms_has(ks, "NOT_A_SYMBOL")); /* help text */
	assert_true(kb_ksyms_has(arm, "ARM_ONLY"));
	assert_false(kb_ksyms_has(arm, "PARAVIRT"));
	assert_string_equal(kb_ksyms_where(ks, "PARAVIRT_SPINLOCKS"),
			    "arch/x86/Kconfig:20");
	assert_string_equal(kb_ksyms_type(ks, "NR_CPUS"), "int");
	assert_string_equal(kb_ksyms_type(ks, "X86_32"), "bool");
	assert_false(kb_ksyms_has_prompt(ks, "X86_32"));
	assert_true(kb_ksyms_has_prompt(ks, "SMP"));
	kb_ksyms_free(ks);
	kb_ksyms_free(arm);
}

static void test_kconfig__scan_collects_dependencies(void **state)
{
	struct kb_ksyms *ks = scan(NULL);

	(void)state;
	assert_string_equal(kb_ksyms_depends(ks, "PARAVIRT_SPINLOCKS"),
			    "PARAVIRT && SMP && HYPERVISOR_GUEST");
	assert_string_equal(kb_ksyms_depends(ks, "PARAVIRT"),
			    "HYPERVISOR_GUEST");
	/* a continued line, and a menu's depends on */
	assert_string_equal(kb_ksyms_depends(ks, "DEBUG_KMEMLEAK"),
			    "DEBUG_KERNEL && HAVE_DEBUG_KMEMLEAK");
	assert_string_equal(kb_ksyms_depends(ks, "DEBUG_SPINLOCK"),
			    "DEBUG_KERNEL && !BROKEN");
	/* a prompt's "if", with $(ARCH) expanded */
	assert_string_equal(kb_ksyms_depends(ks, "NR_CPUS"), "SMP");
	assert_string_equal(kb_ksyms_depends(ks, "64BIT"),
			    "\"x86_64\" = \"x86\"");
	assert_string_equal(kb_ksyms_depends(ks, "VIRTIO_BLK"),
			    "VIRTIO || COMPILE_TEST");
	assert_null(kb_ksyms_depends(ks, "SMP"));
	assert_null(kb_ksyms_depends(ks, "NO_SUCH"));
	assert_string_equal(kb_ksyms_selected_by(ks, "DEBUG_KERNEL"),
			    "EXPERT");
	assert_null(kb_ksyms_selected_by(ks, "SMP"));
	kb_ksyms_free(ks);
}

/* Names with a count, for kb_ksyms_requires(). */
static int requires_has(const struct kb_ksyms *ks, const char *name,
			const char *want)
{
	const char *const *on;
	size_t n = kb_ksyms_requires(ks, name, &on), i;

	for (i = 0; i < n; i++)
		if (!strcmp(on[i], want))
			return 1;
	return 0;
}

static void test_kconfig__requires_names_dependencies_and_selectors(void **state)
{
	struct kb_ksyms *ks = scan(NULL);
	const char *const *on;

	(void)state;
	assert_int_equal(kb_ksyms_requires(ks, "PARAVIRT_SPINLOCKS", &on), 3);
	assert_string_equal(on[0], "PARAVIRT");
	assert_string_equal(on[1], "SMP");
	assert_string_equal(on[2], "HYPERVISOR_GUEST");
	assert_true(requires_has(ks, "DEBUG_SPINLOCK", "BROKEN"));
	/* selectors count, constants and quoted strings do not */
	assert_true(requires_has(ks, "DEBUG_KERNEL", "EXPERT"));
	assert_int_equal(kb_ksyms_requires(ks, "64BIT", &on), 0);
	assert_true(requires_has(ks, "VIRTIO_BLK", "COMPILE_TEST"));
	assert_int_equal(kb_ksyms_requires(ks, "SMP", &on), 0);
	assert_int_equal(kb_ksyms_requires(ks, "NO_SUCH", &on), 0);
	/* the members of a choice set each other */
	assert_true(requires_has(ks, "PREEMPT_NONE", "PREEMPT"));
	assert_true(requires_has(ks, "PREEMPT", "PREEMPT_NONE"));
	assert_true(requires_has(ks, "PREEMPT", "EXPERT"));
	assert_false(requires_has(ks, "LOG_BUF_SHIFT", "PREEMPT"));
	assert_null(on);
	kb_ksyms_free(ks);
}

static void test_kconfig__scan_of_a_folder_without_kconfig(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ksyms *ks = NULL;

	(void)state;
	assert_int_equal(kb_kconfig_tree_scan(KB_TEST_DATA "/kconfig", NULL,
					      &ks, &err),
			 KB_ENOTFOUND);
	assert_null(ks);
	assert_msg_contains(err.msg, "is not a kernel tree");
}

static void test_kconfig__unknown_symbol_gets_a_suggestion(void **state)
{
	struct kb_ksyms *ks = scan(NULL);

	(void)state;
	assert_string_equal(kb_ksyms_suggest(ks, "KMEMLEAK"),
			    "DEBUG_KMEMLEAK");
	assert_string_equal(kb_ksyms_suggest(ks, "PARAVIRT_SPINLOCK"),
			    "PARAVIRT_SPINLOCKS");
	assert_null(kb_ksyms_suggest(ks, "ZZZZZZZZZZ"));
	kb_ksyms_free(ks);
}

static void test_kconfig__explain_names_dependency_and_unmet(void **state)
{
	struct kb_ksyms *ks = scan(NULL);
	struct kb_kconfig *cfg = parse_ok("CONFIG_HYPERVISOR_GUEST=y\n"
					  "CONFIG_64BIT=y\n"
					  "CONFIG_EXPERT=y\n"
					  "CONFIG_DEBUG_KERNEL=y\n");
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_kconfig_explain(ks, cfg, "PARAVIRT_SPINLOCKS", "y", &b);
	assert_string_equal(b.buf,
			    "depends on PARAVIRT && SMP && HYPERVISOR_GUEST (unmet: PARAVIRT, SMP)");
	kb_buf_reset(&b);
	kb_kconfig_explain(ks, cfg, "DEBUG_KERNEL", "n", &b);
	assert_string_equal(b.buf, "selected by EXPERT (resolved to y)");
	kb_buf_reset(&b);
	kb_kconfig_explain(ks, cfg, "X86_32", "y", &b);
	assert_string_equal(b.buf, "depends on !64BIT (unmet: !64BIT)");
	kb_buf_reset(&b);
	kb_kconfig_explain(ks, cfg, "VIRTIO", "y", &b);
	assert_msg_contains(b.buf, "has no prompt");
	kb_buf_reset(&b);
	kb_kconfig_explain(ks, cfg, "SMP", "m", &b);
	assert_msg_contains(b.buf, "SMP is a bool: m is not possible");
	kb_buf_release(&b);
	kb_kconfig_free(cfg);
	kb_ksyms_free(ks);
}

static void test_kconfig__fix_follows_dependencies(void **state)
{
	struct kb_ksyms *ks = scan(NULL);
	struct kb_kconfig *cfg = parse_ok("CONFIG_64BIT=y\n");
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_kconfig_suggest_fix(ks, cfg, "PARAVIRT_SPINLOCKS", "y", &b);
	assert_string_equal(b.buf, "CONFIG_HYPERVISOR_GUEST=y\n"
				   "CONFIG_PARAVIRT=y\n"
				   "CONFIG_SMP=y\n");
	kb_buf_reset(&b);
	/* HAVE_DEBUG_KMEMLEAK has no prompt: nothing to write for it */
	kb_kconfig_suggest_fix(ks, cfg, "DEBUG_KMEMLEAK", "y", &b);
	assert_string_equal(b.buf, "CONFIG_DEBUG_KERNEL=y\n");
	kb_buf_release(&b);
	kb_kconfig_free(cfg);
	kb_ksyms_free(ks);
}

static void test_kconfig__compare_reports_held_and_not(void **state)
{
	struct kb_ksyms *ks = scan(NULL);
	struct kb_kconfig *cfg = parse_ok("CONFIG_SMP=y\n"
					  "CONFIG_LOG_BUF_SHIFT=18\n");
	const struct kb_setting set[] = {
		{ "PARAVIRT_SPINLOCKS", "y", KB_FACTOR_KCONFIG },
		{ "guest.vcpus", "4", KB_FACTOR_GUEST },
		{ "SMP", "y", KB_FACTOR_KCONFIG },
		{ "PARAVIRT", "n", KB_FACTOR_KCONFIG },
		{ "LOG_BUF_SHIFT", "0x12", KB_FACTOR_KCONFIG },
	};
	struct kb_kconfig_outcome out[5];
	size_t n, i;

	(void)state;
	n = kb_kconfig_compare(set, 5, cfg, ks, out);
	assert_int_equal(n, 4);
	assert_string_equal(out[0].name, "PARAVIRT_SPINLOCKS");
	assert_false(out[0].held);
	assert_string_equal(out[0].resolved, "n");
	assert_msg_contains(out[0].reason, "(unmet: PARAVIRT, HYPERVISOR_GUEST)");
	assert_non_null(out[0].fix);
	assert_true(out[1].held);
	assert_string_equal(out[1].name, "SMP");
	assert_true(out[2].held); /* absent counts as n */
	assert_null(out[2].reason);
	assert_true(out[3].held); /* 0x12 == 18 */
	for (i = 0; i < n; i++)
		kb_kconfig_outcome_release(&out[i]);
	kb_kconfig_free(cfg);
	kb_ksyms_free(ks);
}

static void test_kconfig__resolve_refuses_a_malformed_fragment(void **state)
{
	struct kb_kconfig_resolve_opts o = KB_KCONFIG_RESOLVE_OPTS_INIT;
	struct kb_kconfig_resolution *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	const char *frags[] = { KB_TEST_DATA "/kconfig/tree/Kconfig" };

	(void)state;
	o.tree = TREE;
	o.odir = "/nonexistent/never-created";
	o.cache_dir = "";
	o.nfragments = 1;
	o.fragments = frags;
	assert_int_equal(kb_kconfig_resolve(&o, NULL, 0, NULL, &r, &err),
			 KB_EINPUT);
	assert_null(r);
	assert_msg_contains(err.msg, "tree/Kconfig:4:1: expected");
}

/*
 * The fake make of the resolution tests: appends its arguments to
 * tmp/calls; `make tinyconfig` writes CONFIG_SMP=y into O/.config,
 * olddefconfig leaves O/.config as it is.
 */
static const char fake_make[] =
	"#!/bin/sh\n"
	"for a; do case $a in O=*) o=${a#O=};; esac; done\n"
	"echo \"$*\" >> \"$(dirname \"$0\")/calls\"\n"
	"case \" $* \" in *\" tinyconfig \"*)\n"
	"  echo CONFIG_SMP=y > \"$o/.config\";;\n"
	"esac\n";

/* A fake compiler tmp/@name whose --version says @version. */
static char *fake_cc(const char *name, const char *version)
{
	char *text = kb_asprintf("#!/bin/sh\necho '%s'\n", version);
	char *p = put(name, text, 0755);

	free(text);
	return p;
}

/*
 * Resolve SMP=y from base `tinyconfig` in tmp with the fake make and
 * build.make_args @args, the cache in tmp/cache.  Returns whether it came
 * from the cache.
 */
static int resolve_with(const char *const *args, size_t nargs)
{
	struct kb_kconfig_resolve_opts o = KB_KCONFIG_RESOLVE_OPTS_INIT;
	struct kb_kconfig_resolution *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	const struct kb_setting set[] = { { "SMP", "y", KB_FACTOR_KCONFIG } };
	char *make = put("make", fake_make, 0755);
	char *odir = kb_asprintf("%s/obj", tmp);
	char *cache = kb_asprintf("%s/cache", tmp);
	int cached;

	o.tree = tmp;
	o.tree_id = "plain:test";
	o.odir = odir;
	o.base = "tinyconfig";
	o.base_is_target = 1;
	o.cache_dir = cache;
	o.make = make;
	o.make_args = args;
	o.nmake_args = nargs;
	if (kb_kconfig_resolve(&o, set, 1, NULL, &r, &err))
		fail_msg("resolve: %s", err.msg);
	assert_int_equal(r->noutcomes, 1);
	assert_true(r->outcomes[0].held);
	cached = r->cached;
	kb_kconfig_resolution_free(r);
	free(make);
	free(odir);
	free(cache);
	return cached;
}

static void test_kconfig__resolve_runs_make_with_the_build_compiler(void **state)
{
	char *cc = fake_cc("cc-a", "cc-a (Test) 1.0");
	char *ccarg = kb_asprintf("CC=%s", cc);
	const char *args[] = { "-k", "V=1", ccarg, "LLVM=1",
			       "CROSS_COMPILE=x86_64-linux-gnu-",
			       "HOSTCC=gcc", "KCFLAGS=-O3" };
	const char *vars = "LLVM=1 CROSS_COMPILE=x86_64-linux-gnu- HOSTCC=gcc";
	char *calls, *line2, *want;

	(void)state;
	assert_false(resolve_with(args, 7));
	calls = slurp("calls");
	/* `make tinyconfig` then `make olddefconfig`, both with the
	 * variables Kconfig reads and without the others */
	want = kb_asprintf(" ARCH=x86_64 %s %s tinyconfig\n", ccarg, vars);
	assert_msg_contains(calls, want);
	free(want);
	line2 = strchr(calls, '\n') + 1;
	want = kb_asprintf(" ARCH=x86_64 %s %s olddefconfig\n", ccarg, vars);
	assert_msg_contains(line2, want);
	free(want);
	assert_null(strstr(calls, "V=1"));
	assert_null(strstr(calls, "KCFLAGS"));
	assert_null(strstr(calls, "-k "));
	free(calls);
	free(ccarg);
	free(cc);
}

static void test_kconfig__resolve_cache_is_per_compiler(void **state)
{
	char *a = fake_cc("cc-a", "cc-a (Test) 1.0");
	char *b = fake_cc("cc-b", "cc-b (Test) 2.0");
	char *aarg = kb_asprintf("CC=%s", a), *barg = kb_asprintf("CC=%s", b);
	const char *with_a[] = { aarg }, *with_b[] = { barg };
	char *calls, *want;

	(void)state;
	assert_false(resolve_with(with_a, 1));
	assert_true(resolve_with(with_a, 1));
	/* another compiler: resolved again, not served from a's entry, and
	 * its base made again too */
	assert_false(resolve_with(with_b, 1));
	calls = slurp("calls");
	want = kb_asprintf("%s tinyconfig\n", barg);
	assert_msg_contains(calls, want);
	free(want);
	want = kb_asprintf("%s olddefconfig\n", barg);
	assert_msg_contains(calls, want);
	free(want);
	free(calls);
	assert_true(resolve_with(with_b, 1));
	/* the same command, another version: resolved again */
	free(fake_cc("cc-a", "cc-a (Test) 1.1"));
	assert_false(resolve_with(with_a, 1));
	free(aarg);
	free(barg);
	free(a);
	free(b);
}

static void test_kconfig__resolve_needs_a_compiler_it_can_run(void **state)
{
	struct kb_kconfig_resolve_opts o = KB_KCONFIG_RESOLVE_OPTS_INIT;
	struct kb_kconfig_resolution *r = NULL;
	struct kb_err err = KB_ERR_INIT;
	const char *args[] = { "CC=/nonexistent/cc" };
	char *calls;

	(void)state;
	o.tree = tmp;
	o.odir = tmp;
	o.cache_dir = "";
	o.make = "/nonexistent/make";
	o.make_args = args;
	o.nmake_args = 1;
	assert_int_equal(kb_kconfig_resolve(&o, NULL, 0, NULL, &r, &err),
			 KB_EFAIL);
	assert_null(r);
	assert_msg_contains(err.msg, "/nonexistent/cc");
	calls = slurp("calls");
	assert_string_equal(calls, "");
	free(calls);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_kconfig__values_of_every_kind),
	cmocka_unit_test(test_kconfig__duplicates_last_one_wins),
	cmocka_unit_test(test_kconfig__comments_and_blank_lines_are_ignored),
	cmocka_unit_test(test_kconfig__malformed_lines_name_line_and_column),
	cmocka_unit_test(test_kconfig__nul_byte_is_refused),
	cmocka_unit_test(test_kconfig__normalised_form_is_stable),
	cmocka_unit_test(test_kconfig__strings_are_canonical),
	cmocka_unit_test(test_kconfig__write_round_trips),
	cmocka_unit_test(test_kconfig__set_checks_and_keeps_order),
	cmocka_unit_test(test_kconfig__requested_and_resolved_values_match),
	cmocka_unit_test(test_kconfig__eval_uses_tristate_logic),
	cmocka_unit_test(test_kconfig__eval_names_the_unmet_symbols),
	cmocka_unit_test(test_kconfig__eval_compares_values),
	cmocka_unit_test(test_kconfig__eval_refuses_bad_expressions),
	cmocka_unit_test(test_kconfig__eval_depth_is_capped),
	cmocka_unit_test(test_kconfig__scan_follows_source_for_the_arch),
	cmocka_unit_test(test_kconfig__scan_collects_dependencies),
	cmocka_unit_test(test_kconfig__requires_names_dependencies_and_selectors),
	cmocka_unit_test(test_kconfig__scan_of_a_folder_without_kconfig),
	cmocka_unit_test(test_kconfig__unknown_symbol_gets_a_suggestion),
	cmocka_unit_test(test_kconfig__explain_names_dependency_and_unmet),
	cmocka_unit_test(test_kconfig__fix_follows_dependencies),
	cmocka_unit_test(test_kconfig__compare_reports_held_and_not),
	cmocka_unit_test(test_kconfig__resolve_refuses_a_malformed_fragment),
	T(test_kconfig__resolve_runs_make_with_the_build_compiler),
	T(test_kconfig__resolve_cache_is_per_compiler),
	T(test_kconfig__resolve_needs_a_compiler_it_can_run),
};

KB_TEST_MAIN(tests)
