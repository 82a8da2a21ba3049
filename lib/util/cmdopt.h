#ifndef KB_CMDOPT_H
#define KB_CMDOPT_H

#include <stddef.h>

/*
 * Command-line options as data (after git's parse-options.h and tmux's
 * cmd_entry): a program describes each verb's options in a table of
 * struct kb_opt, kb_cmdopt_parse() fills a struct from the arguments,
 * and kb_cmdopt_usage() and kb_cmdopt_help() write the usage line and
 * the options paragraph from the same table, so that they cannot drift
 * from what is parsed.  The options every program shares (--db, --json,
 * --quiet ...) are declared once, below, and land in struct kb_args.
 *
 * The struct a table fills starts with a struct kb_args; options of a
 * verb's own go in fields after it:
 *
 *	struct why_args {
 *		struct kb_args common;   (first)
 *		const char *good;
 *	};
 *	static const struct kb_opt why_opts[] = {
 *		KB_OPT_STRING(struct why_args, good, 0, "good", "VARIANT",
 *			      "the good variant"),
 *		KB_OPT_DB,
 *		KB_OPT_JSON("print the answer as JSON"),
 *		KB_OPT_END,
 *	};
 *
 * Parsing follows GNU getopt's conventions, so that command lines keep
 * their meaning: options and arguments mix in any order, `--` ends the
 * options, `--name=value` and `--name value` are the same, an
 * unambiguous prefix of a long name stands for it, short flags cluster
 * (`-qh`), and "-" alone is an argument.  -h and --help are understood
 * by every table.  Nothing here prints: errors come back in a struct
 * kb_err with KB_EINPUT.
 */

struct kb_buf;
struct kb_err;

enum kb_opt_kind {
	KB_OPT_FLAG = 1, /* no value: sets an int to 1 */
	KB_OPT_VALUE,    /* one value: sets a const char * to it */
};

enum kb_opt_flags {
	/* Shown without brackets in the usage line.  The program checks
	 * that it was given, with a message that says what goes together. */
	KB_OPT_REQUIRED = 1 << 0,
	/* Parsed but shown neither in the usage line nor in the options
	 * paragraph, as -h: a form of its own, such as --version. */
	KB_OPT_HIDDEN = 1 << 1,
};

struct kb_opt {
	const char *name;      /* the long name without "--"; NULL ends a table */
	char short_name;       /* 'q' for -q, or 0 */
	enum kb_opt_kind kind;
	const char *arg;       /* KB_OPT_VALUE: the value's name, "PATH" */
	const char *help;      /* one sentence for the options paragraph */
	size_t offset;         /* of the int or const char * it sets */
	unsigned flags;        /* enum kb_opt_flags */
};

/*
 * What the common options and the positional arguments parse into.  A
 * value not given stays NULL, a flag not given 0.
 */
struct kb_args {
	const char *db;     /* --db PATH: NULL for the default database */
	const char *socket; /* --socket PATH: NULL for the default socket */
	const char *model;  /* --model MODEL: NULL for real kernels */
	int json;           /* --json: print JSON instead of text */
	int quiet;          /* -q, --quiet: nothing on stderr but errors */
	int allow_dropped;  /* --allow-dropped: accept dropped options */
	const char *max_boots;   /* --max-boots N: a plan's cap on boots */
	const char *max_samples; /* --max-samples N: its cap on samples */
	int help;           /* -h, --help: nothing else was checked */
	char **pos;         /* the positional arguments, in order */
	size_t npos;        /* how many */
};

/* The offset of @field in @type, which must have type @t (checked). */
#define KB_OPT_OFFSET_(type, field, t) \
	_Generic(((type *)0)->field, t: offsetof(type, field))

/* A flag of a verb's own: --@name (and -@s unless 0) sets int @field. */
#define KB_OPT_BOOL(type, field, s, name_, help_)                      \
	{ .name = (name_), .short_name = (s), .kind = KB_OPT_FLAG,     \
	  .help = (help_), .offset = KB_OPT_OFFSET_(type, field, int) }

/* An option with a value, ARG in the usage, into const char * @field. */
#define KB_OPT_STRING(type, field, s, name_, arg_, help_)              \
	{ .name = (name_), .short_name = (s), .kind = KB_OPT_VALUE,    \
	  .arg = (arg_), .help = (help_),                              \
	  .offset = KB_OPT_OFFSET_(type, field, const char *) }

/* A flag with @flags_ (enum kb_opt_flags): KB_OPT_HIDDEN. */
#define KB_OPT_BOOL_FLAGS(type, field, s, name_, flags_, help_)        \
	{ .name = (name_), .short_name = (s), .kind = KB_OPT_FLAG,     \
	  .help = (help_), .flags = (flags_),                          \
	  .offset = KB_OPT_OFFSET_(type, field, int) }

/* The same, shown as required (the program checks it: KB_OPT_REQUIRED). */
#define KB_OPT_STRING_REQUIRED(type, field, name_, arg_, help_)        \
	{ .name = (name_), .kind = KB_OPT_VALUE, .arg = (arg_),        \
	  .help = (help_), .flags = KB_OPT_REQUIRED,                   \
	  .offset = KB_OPT_OFFSET_(type, field, const char *) }

#define KB_OPT_END { .name = NULL }

/*
 * The common options.  Where a location has a default, the help names
 * it, the same for every program; the others take the sentence that says
 * what this verb does with them (git's OPT__QUIET(var, help)).
 */
#define KB_OPT_DB                                                          \
	KB_OPT_STRING(struct kb_args, db, 0, "db", "PATH",                 \
		      "database (default: $KBISECT_DB, else the running kbisectd's, else $XDG_DATA_HOME/kbisect/kbisect.db; kbisect db prints which)")
/* kbisectd's own: it is the running kbisectd */
#define KB_OPT_DB_DAEMON                                                   \
	KB_OPT_STRING(struct kb_args, db, 0, "db", "PATH",                 \
		      "database (default: $KBISECT_DB, else $XDG_DATA_HOME/kbisect/kbisect.db)")
#define KB_OPT_SOCKET                                                      \
	KB_OPT_STRING(struct kb_args, socket, 0, "socket", "PATH",         \
		      "the daemon's unix socket (default: $KBISECT_SOCKET, else $XDG_RUNTIME_DIR/kbisect/kbisectd.sock, or /run/kbisect/kbisectd.sock for root)")
#define KB_OPT_MODEL(help_)                                                \
	KB_OPT_STRING(struct kb_args, model, 0, "model", "MODEL", help_)
#define KB_OPT_JSON(help_) KB_OPT_BOOL(struct kb_args, json, 0, "json", help_)
#define KB_OPT_QUIET(help_) \
	KB_OPT_BOOL(struct kb_args, quiet, 'q', "quiet", help_)
#define KB_OPT_ALLOW_DROPPED(help_) \
	KB_OPT_BOOL(struct kb_args, allow_dropped, 0, "allow-dropped", help_)
/* The caps on a whole plan (lib/plan.h, KB_PLAN_MAX_BOOTS and _SAMPLES). */
#define KB_OPT_MAX_BOOTS                                                   \
	KB_OPT_STRING(struct kb_args, max_boots, 0, "max-boots", "N",      \
		      "refuse a plan of more than N boots, variants x repeat.max_boots (default: 100000)")
#define KB_OPT_MAX_SAMPLES                                                 \
	KB_OPT_STRING(struct kb_args, max_samples, 0, "max-samples", "N",  \
		      "refuse a plan of more than N samples, those boots x repeat.runs_per_boot (default: 1000000)")

/*
 * Parse the @argc arguments @argv (without the program or verb name)
 * against table @opts into @target, a zeroed struct of @size bytes that
 * starts with a struct kb_args.  @args names the positional arguments as
 * the usage line shows them: "MATRIX", "EXPERIMENT A B", "[ID]" (in
 * brackets: optional), "FILE..." (one or more), "" (none); their count
 * is checked against it.  The positional arguments are moved to the
 * front of @argv, in order, and pointed at by kb_args.pos: values point
 * into @argv too, nothing is allocated.
 *
 * When -h or --help comes before any `--`, only kb_args.help is set and
 * 0 returned, whatever else is wrong.  Returns 0, or KB_EINPUT with a
 * message in @err ("unknown option '--foo'", "option '--db' needs a
 * value", "missing MATRIX", "unexpected argument 'x'"); KB_EFAIL when
 * the table does not fit @size (a program bug).
 */
int kb_cmdopt_parse(const struct kb_opt *opts, const char *args, int argc,
		    char **argv, void *target, size_t size,
		    struct kb_err *err);

/* Whether -h or --help comes before any `--` in @argv. */
int kb_cmdopt_help_asked(int argc, char **argv);

/*
 * Append to @b what follows the program and verb names in the usage
 * line: " ARGS" and each option, " [--json]", " [--db PATH]", " --good
 * G.config" when KB_OPT_REQUIRED, in table order.  With a @width, the
 * line breaks before it would pass that column, the next line indented
 * under the first option; 0 keeps one line.
 */
void kb_cmdopt_usage(struct kb_buf *b, const char *args,
		     const struct kb_opt *opts, size_t width);

/*
 * Append the options paragraph of @opts to @b: one entry per option,
 * "  -q, --quiet    help", the help words wrapped at @width (a '\n' in
 * a help breaks the line) and aligned in one column.  Appends nothing
 * for an empty table.
 */
void kb_cmdopt_help(struct kb_buf *b, const struct kb_opt *opts,
		    size_t width);

#endif
