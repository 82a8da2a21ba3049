#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "buf.h"
#include "cmdopt.h"
#include "err.h"

/* A verb's options: the common ones and two of its own. */
struct t_args {
	struct kb_args a;
	const char *good;
	const char *log;
	const char *log_file;
	int verbose;
};

static const struct kb_opt opts[] = {
	KB_OPT_STRING_REQUIRED(struct t_args, good, "good", "G.config",
			       "the good end"),
	KB_OPT_STRING(struct t_args, log, 'l', "log", "FILE", "log there"),
	KB_OPT_STRING(struct t_args, log_file, 0, "log-file", "FILE",
		      "another log"),
	KB_OPT_BOOL(struct t_args, verbose, 'v', "verbose", "say more"),
	KB_OPT_DB,
	KB_OPT_JSON("print JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_END,
};

/* Parse a NULL-terminated list of arguments against @opts and @args. */
static int parse(struct t_args *t, struct kb_err *err, const char *args,
		 char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(t, 0, sizeof(*t));
	kb_err_clear(err);
	return kb_cmdopt_parse(opts, args, argc, argv, t, sizeof(*t), err);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static void test_cmdopt__value_after_equals_or_as_next_argument(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--db=a.db", "--good",
						  "g.config")), 0);
	assert_string_equal(t.a.db, "a.db");
	assert_string_equal(t.good, "g.config");
	assert_int_equal(parse(&t, &err, "", ARGV("--db=")), 0);
	assert_string_equal(t.a.db, "");
	/* a value may start with a dash, as with getopt_long */
	assert_int_equal(parse(&t, &err, "", ARGV("--db", "-x")), 0);
	assert_string_equal(t.a.db, "-x");
}

static void test_cmdopt__unknown_option_is_named(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--foo=1")), KB_EINPUT);
	assert_string_equal(err.msg, "unknown option '--foo'");
	assert_int_equal(parse(&t, &err, "", ARGV("-qx")), KB_EINPUT);
	assert_string_equal(err.msg, "unknown option '-x'");
	assert_int_equal(parse(&t, &err, "", ARGV("--=x")), KB_EINPUT);
	assert_string_equal(err.msg, "unknown option '--=x'");
}

static void test_cmdopt__missing_value(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--db")), KB_EINPUT);
	assert_string_equal(err.msg, "option '--db' needs a value");
	assert_int_equal(parse(&t, &err, "", ARGV("-l")), KB_EINPUT);
	assert_string_equal(err.msg, "option '-l' needs a value");
}

static void test_cmdopt__flag_refuses_a_value(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--json=yes")), KB_EINPUT);
	assert_string_equal(err.msg, "option '--json' takes no value");
}

static void test_cmdopt__short_flags_and_clusters(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("-q")), 0);
	assert_true(t.a.quiet);
	assert_false(t.verbose);
	assert_int_equal(parse(&t, &err, "", ARGV("-vq")), 0);
	assert_true(t.a.quiet);
	assert_true(t.verbose);
	/* a short option's value: the rest of the cluster, or the next */
	assert_int_equal(parse(&t, &err, "", ARGV("-vlx.log")), 0);
	assert_string_equal(t.log, "x.log");
	assert_int_equal(parse(&t, &err, "", ARGV("-l", "y.log")), 0);
	assert_string_equal(t.log, "y.log");
}

static void test_cmdopt__options_and_arguments_mix(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "EXPERIMENT A B",
			       ARGV("1", "--json", "0", "-", "--db", "k.db")),
			 0);
	assert_true(t.a.json);
	assert_string_equal(t.a.db, "k.db");
	assert_int_equal(t.a.npos, 3);
	assert_string_equal(t.a.pos[0], "1");
	assert_string_equal(t.a.pos[1], "0");
	assert_string_equal(t.a.pos[2], "-");
}

static void test_cmdopt__double_dash_ends_options(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "A B",
			       ARGV("-q", "--", "--json", "-h")), 0);
	assert_true(t.a.quiet);
	assert_false(t.a.json);
	assert_false(t.a.help);
	assert_int_equal(t.a.npos, 2);
	assert_string_equal(t.a.pos[0], "--json");
	assert_string_equal(t.a.pos[1], "-h");
}

static void test_cmdopt__prefix_of_one_name_stands_for_it(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--js", "--verb")), 0);
	assert_true(t.a.json);
	assert_true(t.verbose);
	/* an exact name wins over the longer names it is a prefix of */
	assert_int_equal(parse(&t, &err, "", ARGV("--log", "a")), 0);
	assert_string_equal(t.log, "a");
	assert_null(t.log_file);
	assert_int_equal(parse(&t, &err, "", ARGV("--lo", "a")), KB_EINPUT);
	assert_string_equal(err.msg,
			    "option '--lo' is ambiguous: '--log' or '--log-file'");
}

static void test_cmdopt__positional_count_is_checked(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("--json")), KB_EINPUT);
	assert_string_equal(err.msg, "missing MATRIX");
	assert_int_equal(parse(&t, &err, "EXPERIMENT A B", ARGV("1", "0")),
			 KB_EINPUT);
	assert_string_equal(err.msg, "missing B");
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("a", "b")), KB_EINPUT);
	assert_string_equal(err.msg, "unexpected argument 'b'");
	assert_int_equal(parse(&t, &err, "", ARGV("x")), KB_EINPUT);
	assert_string_equal(err.msg, "unexpected argument 'x'");
}

static void test_cmdopt__optional_and_repeated_positionals(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "[ID]", ARGV("-q")), 0);
	assert_int_equal(t.a.npos, 0);
	assert_int_equal(parse(&t, &err, "[ID]", ARGV("3")), 0);
	assert_int_equal(t.a.npos, 1);
	assert_int_equal(parse(&t, &err, "[ID]", ARGV("3", "4")), KB_EINPUT);
	assert_string_equal(err.msg, "unexpected argument '4'");
	assert_int_equal(parse(&t, &err, "FILE...", ARGV("-q")), KB_EINPUT);
	assert_string_equal(err.msg, "missing FILE...");
	assert_int_equal(parse(&t, &err, "FILE...", ARGV("a", "b", "c")), 0);
	assert_int_equal(t.a.npos, 3);
}

static void test_cmdopt__help_wins_over_any_error(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("--foo", "--help")), 0);
	assert_true(t.a.help);
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("-h")), 0);
	assert_true(t.a.help);
	/* in a cluster too */
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("-qh")), 0);
	assert_true(t.a.help);
	assert_int_equal(parse(&t, &err, "MATRIX", ARGV("-hx")), 0);
	assert_true(t.a.help);
	assert_int_equal(parse(&t, &err, "A", ARGV("--", "--help")), 0);
	assert_false(t.a.help);
	assert_true(kb_cmdopt_help_asked(2, ARGV("x", "-h")));
	assert_false(kb_cmdopt_help_asked(2, ARGV("--", "-h")));
}

static void test_cmdopt__last_value_wins(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct t_args t;

	(void)state;
	assert_int_equal(parse(&t, &err, "", ARGV("--db", "a", "--db=b")), 0);
	assert_string_equal(t.a.db, "b");
}

static void test_cmdopt__table_that_does_not_fit_is_a_bug(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_args a;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(kb_cmdopt_parse(opts, "", 0, ARGV("x"), &a,
					 sizeof(a), &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "'--good'");
}

static void test_cmdopt__usage_line_comes_from_the_table(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_buf_adds(&b, "usage: kbisect t");
	kb_cmdopt_usage(&b, "MATRIX [ID]", opts, 0);
	assert_string_equal(b.buf,
			    "usage: kbisect t MATRIX [ID] --good G.config [--log FILE] [--log-file FILE] [--verbose] [--db PATH] [--json] [--quiet]");
	kb_buf_reset(&b);
	kb_buf_adds(&b, "usage: t");
	kb_cmdopt_usage(&b, "", opts, 40);
	assert_string_equal(b.buf, "usage: t --good G.config [--log FILE]\n"
				   "         [--log-file FILE] [--verbose]\n"
				   "         [--db PATH] [--json] [--quiet]");
	kb_buf_release(&b);
}

static void test_cmdopt__options_paragraph_is_aligned_and_wrapped(
	void **state)
{
	static const struct kb_opt few[] = {
		KB_OPT_STRING(struct t_args, log, 0, "log", "FILE",
			      "log there instead of stderr; SIGHUP reopens it"),
		KB_OPT_QUIET("no progress"),
		KB_OPT_ALLOW_DROPPED("accept\nit"),
		KB_OPT_END,
	};
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_cmdopt_help(&b, few, 40);
	assert_string_equal(b.buf,
			    "  --log FILE       log there instead of\n"
			    "                   stderr; SIGHUP\n"
			    "                   reopens it\n"
			    "  -q, --quiet      no progress\n"
			    "  --allow-dropped  accept\n"
			    "                   it\n");
	kb_buf_reset(&b);
	kb_cmdopt_help(&b, opts + 7, 40);
	assert_string_equal(b.buf, "");
	kb_buf_release(&b);
}

static void test_cmdopt__hidden_option_parses_but_is_not_shown(void **state)
{
	static const struct kb_opt with_hidden[] = {
		KB_OPT_BOOL_FLAGS(struct t_args, verbose, 0, "version",
				  KB_OPT_HIDDEN, "print the version"),
		KB_OPT_JSON("print JSON"),
		KB_OPT_END,
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct t_args t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(kb_cmdopt_parse(with_hidden, "", 1, ARGV("--version"),
					 &t, sizeof(t), &err),
			 0);
	assert_true(t.verbose);
	kb_buf_adds(&b, "usage: t");
	kb_cmdopt_usage(&b, "", with_hidden, 0);
	kb_buf_addch(&b, '\n');
	kb_cmdopt_help(&b, with_hidden, 0);
	assert_string_equal(b.buf, "usage: t [--json]\n"
				   "  --json  print JSON\n");
	kb_buf_release(&b);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_cmdopt__value_after_equals_or_as_next_argument),
	cmocka_unit_test(test_cmdopt__unknown_option_is_named),
	cmocka_unit_test(test_cmdopt__missing_value),
	cmocka_unit_test(test_cmdopt__flag_refuses_a_value),
	cmocka_unit_test(test_cmdopt__short_flags_and_clusters),
	cmocka_unit_test(test_cmdopt__options_and_arguments_mix),
	cmocka_unit_test(test_cmdopt__double_dash_ends_options),
	cmocka_unit_test(test_cmdopt__prefix_of_one_name_stands_for_it),
	cmocka_unit_test(test_cmdopt__positional_count_is_checked),
	cmocka_unit_test(test_cmdopt__optional_and_repeated_positionals),
	cmocka_unit_test(test_cmdopt__help_wins_over_any_error),
	cmocka_unit_test(test_cmdopt__last_value_wins),
	cmocka_unit_test(test_cmdopt__table_that_does_not_fit_is_a_bug),
	cmocka_unit_test(test_cmdopt__usage_line_comes_from_the_table),
	cmocka_unit_test(test_cmdopt__options_paragraph_is_aligned_and_wrapped),
	cmocka_unit_test(test_cmdopt__hidden_option_parses_but_is_not_shown),
};

KB_TEST_MAIN(tests)
