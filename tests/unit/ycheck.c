#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "ycheck.h"
#include "ydoc.h"

/*
 * Each test parses a small document whose root is a mapping and checks
 * the value of one key ("v" unless said) as "t.yaml".
 */
struct fixture {
	struct kb_ydoc *doc;
	struct kb_err err;
	struct kb_ycheck y;
};

static const struct kb_ynode *node(struct fixture *f, const char *text,
				   const char *key)
{
	memset(f, 0, sizeof(*f));
	f->y.file = "t.yaml";
	f->y.err = &f->err;
	if (kb_ydoc_parse_buffer(text, strlen(text), "t.yaml", &f->doc,
				 &f->err))
		fail_msg("unexpected error: %s", f->err.msg);
	return key ? kb_ynode_get(kb_ydoc_root(f->doc), key)
		   : kb_ydoc_root(f->doc);
}

/* Expect @ret to be KB_EINPUT with exactly the message @msg, then clean up. */
static void refused(struct fixture *f, int ret, const char *msg)
{
	assert_int_equal(ret, KB_EINPUT);
	assert_int_equal(f->err.code, KB_EINPUT);
	assert_string_equal(f->err.msg, msg);
	kb_ydoc_free(f->doc);
}

static void accepted(struct fixture *f, int ret)
{
	if (ret)
		fail_msg("unexpected error: %s", f->err.msg);
	assert_int_equal(f->err.code, 0);
	kb_ydoc_free(f->doc);
}

static void test_ycheck__fail_names_file_line_and_column(void **state)
{
	struct fixture f;
	const struct kb_ynode *n = node(&f, "a: 1\nv:  x\n", "v");

	(void)state;
	assert_int_equal(kb_ycheck_fail(&f.y, n, "bad %s", "thing"),
			 KB_EINPUT);
	assert_string_equal(f.err.msg, "t.yaml:2:5: bad thing");
	/* the first error stays */
	kb_ycheck_fail(&f.y, NULL, "second");
	refused(&f, KB_EINPUT, "t.yaml:2:5: bad thing");
	node(&f, "v: 1\n", "v");
	refused(&f, kb_ycheck_fail(&f.y, NULL, "no position"),
		"t.yaml: no position");
}

static void test_ycheck__type_names_what_was_expected_and_found(void **state)
{
	struct fixture f;
	const struct kb_ynode *n;

	(void)state;
	n = node(&f, "v: [1]\n", "v");
	refused(&f, kb_ycheck_type(&f.y, n, KB_Y_MAP, "'repeat'"),
		"t.yaml:1:4: 'repeat' must be a mapping, found a list");
	n = node(&f, "v: { a: 1 }\n", "v");
	refused(&f, kb_ycheck_type(&f.y, n, KB_Y_SEQ, "'hosts'"),
		"t.yaml:1:4: 'hosts' must be a list, found a mapping");
	n = node(&f, "v: [1]\n", "v");
	refused(&f, kb_ycheck_type(&f.y, n, KB_Y_SCALAR, "name"),
		"t.yaml:1:4: name must be a scalar, found a list");
	n = node(&f, "v: x\n", "v");
	accepted(&f, kb_ycheck_type(&f.y, n, KB_Y_SCALAR, "name"));
}

static const char *const keys[] = { "boots", "runs_per_boot", "max_boots" };

static void test_ycheck__unknown_key_suggests_the_nearest(void **state)
{
	struct fixture f;
	const struct kb_ynode *n;

	(void)state;
	n = node(&f, "boots: 3\nboot: 3\n", NULL);
	refused(&f, kb_ycheck_keys(&f.y, n, "'repeat'", keys, 3),
		"t.yaml:2:1: unknown key 'boot' in 'repeat' (did you mean 'boots'?)");
	n = node(&f, "zzz: 1\n", NULL);
	refused(&f, kb_ycheck_keys(&f.y, n, "'repeat'", keys, 3),
		"t.yaml:1:1: unknown key 'zzz' in 'repeat': expected one of boots, runs_per_boot, max_boots");
	n = node(&f, "max_boots: 3\nboots: 1\n", NULL);
	accepted(&f, kb_ycheck_keys(&f.y, n, "'repeat'", keys, 3));
	n = node(&f, "{}\n", NULL);
	accepted(&f, kb_ycheck_keys(&f.y, n, "'repeat'", keys, 3));
}

static void test_ycheck__string_is_non_empty_without_nul(void **state)
{
	struct fixture f;
	const struct kb_ynode *n;
	const char *s = NULL;

	(void)state;
	n = node(&f, "v: ''\n", "v");
	refused(&f, kb_ycheck_string(&f.y, n, "source.rev", &s),
		"t.yaml:1:4: source.rev must not be empty");
	n = node(&f, "v: \"a\\0b\"\n", "v");
	refused(&f, kb_ycheck_string(&f.y, n, "source.rev", &s),
		"t.yaml:1:4: source.rev contains a NUL byte");
	n = node(&f, "v: [a]\n", "v");
	refused(&f, kb_ycheck_string(&f.y, n, "source.rev", &s),
		"t.yaml:1:4: source.rev must be a scalar, found a list");
	assert_null(s);
	n = node(&f, "v: v6.1\n", "v");
	assert_int_equal(kb_ycheck_string(&f.y, n, "source.rev", &s), 0);
	assert_string_equal(s, "v6.1");
	accepted(&f, 0);
}

static void test_ycheck__control_characters_are_c0_del_and_c1(void **state)
{
	static const struct {
		const char *s;
		int lines;
		long c;
		size_t at, size;
	} cases[] = {
		{ "plain text", 0, -1, 0, 0 },
		{ "a\x1b[31m", 0, 0x1b, 1, 1 },
		{ "bell\a", 0, 0x07, 4, 1 },
		{ "del\x7f", 0, 0x7f, 3, 1 },
		{ "csi \xc2\x9b" "2J", 0, 0x9b, 4, 2 },
		{ "\xc2\x80", 0, 0x80, 0, 2 },
		{ "nbsp \xc2\xa0, e acute \xc3\xa9, e caron \xc4\x9b", 0, -1, 0,
		  0 },
		{ "cut \xc2", 0, -1, 0, 0 },
		{ "a\tb", 0, '\t', 1, 1 },
		{ "a\tb\nc\n", 1, -1, 0, 0 },
		{ "a\nb\r\n", 1, '\r', 3, 1 },
		{ "a\nb\x1b", 1, 0x1b, 3, 1 },
		/* format characters that reorder or break a line */
		{ "abc\xe2\x80\xae" "fdp.exe", 0, 0x202e, 3, 3 },
		{ "\xe2\x81\xa6x\xe2\x81\xa9", 0, 0x2066, 0, 3 },
		{ "x\xe2\x81\xa9", 0, 0x2069, 1, 3 },
		{ "a\xe2\x80\xa8" "b", 1, 0x2028, 1, 3 },
		{ "a\xe2\x80\xa9" "b", 0, 0x2029, 1, 3 },
		{ "\xe2\x80\x8e", 0, 0x200e, 0, 3 },
		{ "\xe2\x80\x8f", 0, 0x200f, 0, 3 },
		{ "\xe2\x80\xaa", 0, 0x202a, 0, 3 },
		{ "ar \xd8\x9c", 0, 0x061c, 3, 2 },
		/* their neighbours are text: a dash, a quote, an ellipsis,
		 * the euro sign, an Arabic comma, a cut sequence */
		{ "\xe2\x80\x94 \xe2\x80\x9c \xe2\x80\xa6 \xe2\x82\xac "
		  "\xd8\x8c \xe2\x81\xa5 \xe2\x80\xaf \xe2\x80", 0, -1, 0, 0 },
	};
	size_t i, at, size;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		at = size = 99;
		assert_int_equal(kb_ycheck_control(cases[i].s,
						   strlen(cases[i].s),
						   cases[i].lines, &at, &size),
				 cases[i].c);
		if (cases[i].c < 0)
			continue;
		assert_int_equal(at, cases[i].at);
		assert_int_equal(size, cases[i].size);
	}
	/* a NUL byte within the length is one too */
	assert_int_equal(kb_ycheck_control("a\0b", 3, 1, &at, &size), 0);
	assert_int_equal(at, 1);
}

static void test_ycheck__string_refuses_control_characters(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "v: \"\\e[2J\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+001B, ESC)" },
		{ "v: \"ding\\a\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+0007, BEL)" },
		{ "v: \"\\x9b31m\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+009B, CSI)" },
		{ "v: \"a\\x7f\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+007F)" },
		{ "v: \"a\\tb\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+0009, a tab)" },
		{ "v: \"over\\rwrite\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+000D, a carriage return)" },
		{ "v: |\n  two\n  lines\n",
		  "t.yaml:1:4: source.rev contains a control character (U+000A, a newline)" },
		{ "v: \"a\\nb\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+000A, a newline)" },
		{ "v: \"v6.1\\u202e1.6v\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+202E, a right-to-left override)" },
		{ "v: \"\\u2067x\\u2069\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+2067, a bidirectional control)" },
		{ "v: \"a\\u2028b\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+2028, a line separator)" },
		{ "v: \"a\\u2029b\"\n",
		  "t.yaml:1:4: source.rev contains a control character (U+2029, a paragraph separator)" },
	};
	struct fixture f;
	const struct kb_ynode *n;
	const char *s = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = node(&f, cases[i].text, "v");
		refused(&f, kb_ycheck_string(&f.y, n, "source.rev", &s),
			cases[i].msg);
	}
	assert_null(s);
	n = node(&f, "v: \"caf\\u00e9 \\u00a0\"\n", "v");
	assert_int_equal(kb_ycheck_string(&f.y, n, "source.rev", &s), 0);
	assert_string_equal(s, "caf\xc3\xa9 \xc2\xa0");
	accepted(&f, 0);
}

static void test_ycheck__script_may_have_lines_and_tabs(void **state)
{
	struct fixture f;
	const struct kb_ynode *n;
	const char *s = NULL;

	(void)state;
	n = node(&f, "v: |\n  for i in 1 2; do\n  \techo $i\n  done\n", "v");
	assert_int_equal(kb_ycheck_script(&f.y, n, "workload.command.run", &s),
			 0);
	assert_string_equal(s, "for i in 1 2; do\n\techo $i\ndone\n");
	accepted(&f, 0);
	n = node(&f, "v: \"echo \\e[2J\"\n", "v");
	refused(&f, kb_ycheck_script(&f.y, n, "workload.command.run", &s),
		"t.yaml:1:4: workload.command.run contains a control character (U+001B, ESC)");
	n = node(&f, "v: \"echo a\\u2028rm -rf x\"\n", "v");
	refused(&f, kb_ycheck_script(&f.y, n, "workload.command.run", &s),
		"t.yaml:1:4: workload.command.run contains a control character (U+2028, a line separator)");
	n = node(&f, "v: \"echo a\\r\\n\"\n", "v");
	refused(&f, kb_ycheck_script(&f.y, n, "workload.command.run", &s),
		"t.yaml:1:4: workload.command.run contains a control character (U+000D, a carriage return)");
	n = node(&f, "v: ''\n", "v");
	refused(&f, kb_ycheck_script(&f.y, n, "workload.command.run", &s),
		"t.yaml:1:4: workload.command.run must not be empty");
}

static void test_ycheck__uint_is_plain_and_in_range(void **state)
{
	struct fixture f;
	const struct kb_ynode *n;
	uint64_t u = 0;

	(void)state;
	n = node(&f, "v: 512\n", "v");
	assert_int_equal(kb_ycheck_uint(&f.y, n, "guest.vcpus", 1, 512, &u), 0);
	assert_true(u == 512);
	accepted(&f, 0);
	n = node(&f, "v: 513\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "guest.vcpus", 1, 512, &u),
		"t.yaml:1:4: guest.vcpus must be an integer from 1 to 512, found '513'");
	n = node(&f, "v: 0\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "guest.vcpus", 1, 512, &u),
		"t.yaml:1:4: guest.vcpus must be an integer from 1 to 512, found '0'");
	n = node(&f, "v: -1\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "x", 0, 9, &u),
		"t.yaml:1:4: x must be an integer from 0 to 9, found '-1'");
	n = node(&f, "v: 1.5\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "x", 0, 9, &u),
		"t.yaml:1:4: x must be an integer from 0 to 9, found '1.5'");
	n = node(&f, "v:\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "x", 0, 9, &u),
		"t.yaml:1:3: x must be an integer from 0 to 9, found ''");
	n = node(&f, "v: '7'\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "x", 0, 9, &u),
		"t.yaml:1:4: x must be an integer from 0 to 9, found the string \"7\"");
	n = node(&f, "v: 18446744073709551616\n", "v");
	refused(&f, kb_ycheck_uint(&f.y, n, "'seed'", 0, UINT64_MAX, &u),
		"t.yaml:1:4: 'seed' must be an integer from 0 to 18446744073709551615, found '18446744073709551616'");
	n = node(&f, "v: 18446744073709551615\n", "v");
	assert_int_equal(kb_ycheck_uint(&f.y, n, "'seed'", 0, UINT64_MAX, &u),
			 0);
	assert_true(u == UINT64_MAX);
	accepted(&f, 0);
}

static void test_ycheck__number_is_plain_and_finite(void **state)
{
	static const char *const good[] = { "0.05", "5e-2", "-3", "+1.5E3",
					    "522000" };
	struct fixture f;
	const struct kb_ynode *n;
	double d = 0;
	size_t i;
	char text[32];

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "v: %s\n", good[i]);
		n = node(&f, text, "v");
		assert_int_equal(kb_ycheck_number(&f.y, n, "'base'", &d), 0);
		assert_true(d == strtod(good[i], NULL));
		accepted(&f, 0);
	}
	n = node(&f, "v: '1000'\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a number, found the string \"1000\"");
	n = node(&f, "v: lots\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a number, found 'lots'");
	n = node(&f, "v: .nan\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a number, found '.nan'");
	n = node(&f, "v: 1e999\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a number, found '1e999'");
	n = node(&f, "v: 1e\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a number, found '1e'");
	n = node(&f, "v: {}\n", "v");
	refused(&f, kb_ycheck_number(&f.y, n, "'base'", &d),
		"t.yaml:1:4: 'base' must be a scalar, found a mapping");
}

static void test_ycheck__choice_suggests_or_lists(void **state)
{
	static const char *const designs[] = { "full", "one-at-a-time",
					       "fractional" };
	static const char *const stages[] = { "build", "boot" };
	struct fixture f;
	const struct kb_ynode *n;
	size_t i = 9;

	(void)state;
	n = node(&f, "v: fractional\n", "v");
	assert_int_equal(kb_ycheck_choice(&f.y, n, "design", designs, 3, &i),
			 0);
	assert_int_equal(i, 2);
	accepted(&f, 0);
	n = node(&f, "v: fractionl\n", "v");
	refused(&f, kb_ycheck_choice(&f.y, n, "design", designs, 3, &i),
		"t.yaml:1:4: invalid design 'fractionl' (did you mean 'fractional'?)");
	n = node(&f, "v: zzz\n", "v");
	refused(&f, kb_ycheck_choice(&f.y, n, "design", designs, 3, &i),
		"t.yaml:1:4: invalid design 'zzz': expected full, one-at-a-time or fractional");
	n = node(&f, "v: run\n", "v");
	refused(&f, kb_ycheck_choice(&f.y, n, "stage", stages, 2, &i),
		"t.yaml:1:4: invalid stage 'run': expected build or boot");
	n = node(&f, "v: ''\n", "v");
	refused(&f, kb_ycheck_choice(&f.y, n, "stage", stages, 2, &i),
		"t.yaml:1:4: stage must not be empty");
}

static void test_ycheck__kconfig_name_drops_config_and_suggests(void **state)
{
	struct fixture f;
	const struct kb_ynode *root;
	const char *name = NULL;

	(void)state;
	root = node(&f, "CONFIG_DEBUG_SPINLOCK: y\n", NULL);
	assert_int_equal(kb_ycheck_kconfig_name(&f.y, root->keys[0], &name),
			 0);
	assert_string_equal(name, "DEBUG_SPINLOCK");
	accepted(&f, 0);
	root = node(&f, "x: 1\ndebug-spinlock: y\n", NULL);
	refused(&f, kb_ycheck_kconfig_name(&f.y, root->keys[1], &name),
		"t.yaml:2:1: invalid option name 'debug-spinlock': Kconfig symbols are upper case letters, digits and _ (did you mean 'DEBUG_SPINLOCK'?)");
	root = node(&f, "'A B': y\n", NULL);
	refused(&f, kb_ycheck_kconfig_name(&f.y, root->keys[0], &name),
		"t.yaml:1:1: invalid option name 'A B': Kconfig symbols are upper case letters, digits and _, such as DEBUG_SPINLOCK");
	root = node(&f, "CONFIG_: y\n", NULL);
	refused(&f, kb_ycheck_kconfig_name(&f.y, root->keys[0], &name),
		"t.yaml:1:1: invalid option name 'CONFIG_': Kconfig symbols are upper case letters, digits and _, such as DEBUG_SPINLOCK");
}

static void test_ycheck__kconfig_levels(void **state)
{
	static const char *const good[] = { "y", "n", "m", "17", "-1",
					    "0x3e8", "0X1F", "\"quiet\"",
					    "\"\"", "'y'" };
	struct fixture f;
	const struct kb_ynode *n;
	size_t i;
	char text[32];

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "v: %s\n", good[i]);
		n = node(&f, text, "v");
		accepted(&f, kb_ycheck_kconfig_level(&f.y, n, "A"));
	}
	n = node(&f, "v: yes\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "A"),
		"t.yaml:1:4: invalid level 'yes' for A: Kconfig levels are y, n, m, a number or a quoted string (write y)");
	n = node(&f, "v: off\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "A"),
		"t.yaml:1:4: invalid level 'off' for A: Kconfig levels are y, n, m, a number or a quoted string (write n)");
	n = node(&f, "v: maybe\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "A"),
		"t.yaml:1:4: invalid level 'maybe' for A: expected y, n, m, a number, or a quoted string such as \"maybe\"");
	n = node(&f, "v: 0x\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "A"),
		"t.yaml:1:4: invalid level '0x' for A: expected y, n, m, a number, or a quoted string such as \"0x\"");
	n = node(&f, "v: 'a\\b'\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "CMDLINE"),
		"t.yaml:1:4: invalid string level for CMDLINE: it must not contain quotes, backslashes, newlines or NUL bytes");
	n = node(&f, "v: \"quiet \\u202e\"\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "CMDLINE"),
		"t.yaml:1:4: invalid string level for CMDLINE: it contains a control character (U+202E, a right-to-left override)");
	n = node(&f, "v: \"\\e[31mred\"\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "CMDLINE"),
		"t.yaml:1:4: invalid string level for CMDLINE: it contains a control character (U+001B, ESC)");
	n = node(&f, "v: \"\\a\"\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "CMDLINE"),
		"t.yaml:1:4: invalid string level for CMDLINE: it contains a control character (U+0007, BEL)");
	n = node(&f, "v: '\t'\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "CMDLINE"),
		"t.yaml:1:4: invalid string level for CMDLINE: it contains a control character (U+0009, a tab)");
	n = node(&f, "v: [y]\n", "v");
	refused(&f, kb_ycheck_kconfig_level(&f.y, n, "A"),
		"t.yaml:1:4: a Kconfig level must be a scalar, found a list");
}

static void test_ycheck__pins_are_a_cpu_list_or_none(void **state)
{
	static const char *const none[] = { "none", "~", "null", "" };
	struct fixture f;
	const struct kb_ynode *n;
	unsigned *pins = NULL;
	size_t npins = 9, i;
	char text[32];

	(void)state;
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		snprintf(text, sizeof(text), "v: %s\n", none[i]);
		n = node(&f, text, "v");
		accepted(&f, kb_ycheck_pins(&f.y, n, "guest.pin", &pins,
					    &npins));
		assert_null(pins);
		assert_int_equal(npins, 0);
	}
	n = node(&f, "v: [0, 65535]\n", "v");
	accepted(&f, kb_ycheck_pins(&f.y, n, "guest.pin", &pins, &npins));
	assert_int_equal(npins, 2);
	assert_int_equal(pins[0], 0);
	assert_int_equal(pins[1], 65535);
	free(pins);
	n = node(&f, "v: 'none'\n", "v");
	refused(&f, kb_ycheck_pins(&f.y, n, "guest.pin", &pins, &npins),
		"t.yaml:1:4: guest.pin must be a list of physical CPU numbers such as [0, 0, 1, 1], or none, found a scalar");
	assert_null(pins);
	n = node(&f, "v: []\n", "v");
	refused(&f, kb_ycheck_pins(&f.y, n, "guest.pin", &pins, &npins),
		"t.yaml:1:4: guest.pin must list from 1 to 512 CPUs");
	n = node(&f, "v: [0, 65536]\n", "v");
	refused(&f, kb_ycheck_pins(&f.y, n, "guest.pin", &pins, &npins),
		"t.yaml:1:8: a physical CPU number must be an integer from 0 to 65535, found '65536'");
	assert_null(pins);
	assert_int_equal(npins, 0);
}

static void test_ycheck__guest_levels_as_variants_carry_them(void **state)
{
	static const char *const cases[][3] = {
		{ "guest.mode", "pvh", "pvh" },
		{ "guest.vcpus", "4", "4" },
		{ "guest.memory_mib", "1024", "1024" },
		{ "guest.pin", "[0, 0, 1, 1]", "0,0,1,1" },
		{ "guest.pin", "~", "none" },
	};
	struct fixture f;
	const struct kb_ynode *n;
	char *text = NULL, doc[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(doc, sizeof(doc), "v: %s\n", cases[i][1]);
		n = node(&f, doc, "v");
		accepted(&f, kb_ycheck_guest_level(&f.y, n, cases[i][0],
						   &text));
		assert_string_equal(text, cases[i][2]);
		free(text);
	}
	n = node(&f, "v: hvn\n", "v");
	refused(&f, kb_ycheck_guest_level(&f.y, n, "guest.mode", &text),
		"t.yaml:1:4: invalid guest mode 'hvn' (did you mean 'hvm'?)");
	assert_null(text);
	n = node(&f, "v: 0\n", "v");
	refused(&f, kb_ycheck_guest_level(&f.y, n, "guest.vcpus", &text),
		"t.yaml:1:4: a guest.vcpus level must be an integer from 1 to 512, found '0'");
	n = node(&f, "v: 8\n", "v");
	refused(&f, kb_ycheck_guest_level(&f.y, n, "guest.memory_mib", &text),
		"t.yaml:1:4: a guest.memory_mib level must be an integer from 16 to 16777216, found '8'");
	n = node(&f, "v: 3\n", "v");
	refused(&f, kb_ycheck_guest_level(&f.y, n, "guest.pin", &text),
		"t.yaml:1:4: a guest.pin level must be a list of physical CPU numbers such as [0, 0, 1, 1], or none, found a scalar");
	n = node(&f, "v: 3\n", "v");
	refused(&f, kb_ycheck_guest_level(&f.y, n, "guest.cpus", &text),
		"t.yaml:1:4: unknown guest factor 'guest.cpus'");
	assert_null(text);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_ycheck__fail_names_file_line_and_column),
	cmocka_unit_test(test_ycheck__type_names_what_was_expected_and_found),
	cmocka_unit_test(test_ycheck__unknown_key_suggests_the_nearest),
	cmocka_unit_test(test_ycheck__string_is_non_empty_without_nul),
	cmocka_unit_test(test_ycheck__control_characters_are_c0_del_and_c1),
	cmocka_unit_test(test_ycheck__string_refuses_control_characters),
	cmocka_unit_test(test_ycheck__script_may_have_lines_and_tabs),
	cmocka_unit_test(test_ycheck__uint_is_plain_and_in_range),
	cmocka_unit_test(test_ycheck__number_is_plain_and_finite),
	cmocka_unit_test(test_ycheck__choice_suggests_or_lists),
	cmocka_unit_test(test_ycheck__kconfig_name_drops_config_and_suggests),
	cmocka_unit_test(test_ycheck__kconfig_levels),
	cmocka_unit_test(test_ycheck__pins_are_a_cpu_list_or_none),
	cmocka_unit_test(test_ycheck__guest_levels_as_variants_carry_them),
};

KB_TEST_MAIN(tests)
