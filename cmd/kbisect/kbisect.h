#ifndef KBISECT_CMD_H
#define KBISECT_CMD_H

#include <signal.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "cmdopt.h"
#include "err.h"
#include "pipeline.h"
#include "store.h"
#include "boots.h"

struct kb_store;

/*
 * The kbisect command line: one file per verb, each holding its entry,
 * and main.c's table listing the entries.  An entry is data, as tmux's
 * cmd_entry: the verb's name, its positional arguments and options
 * (lib/cmdopt.h), its help, and the function to run.  main.c parses the
 * options from the table before the function runs, and writes the usage
 * line and the options paragraph of `kbisect VERB --help` from it.
 *
 * To add a verb: in cmd/kbisect/<verb>.c write the function and its
 * entry,
 *
 *	static int cmd_frob(const struct kb_args *a)  (a->pos[0] is FILE)
 *	...
 *	const struct cmd cmd_frob_entry = {
 *		.name = "frob",
 *		.rank = 175,        (where `kbisect --help` lists it)
 *		.args = "FILE",
 *		.opts = frob_opts,  (KB_OPT_DB, KB_OPT_JSON(...), KB_OPT_END)
 *		.fn = cmd_frob,
 *		.summary = "...",
 *		.help = "...",
 *	};
 *
 * That is all the code: the Makefile finds the entry and lists it in
 * main.c's table (the generated verbs.h).  Document the verb in
 * README.md, docs/kbisect.1 and docs/.  Use the common options (KB_OPT_DB, KB_OPT_JSON,
 * KB_OPT_QUIET ...) where they fit, so that they mean the same in every
 * verb; options of the verb's own go in a struct that starts with the
 * struct kb_args (CMD_ARGS below), whose size the entry gives.
 *
 * A verb returns the process exit status: 0 ok, 1 failure, 2 bad input or
 * usage.  Only cmd/ prints.
 */

struct cmd {
	const char *name;          /* "run"; a sub-verb's word: "options" */
	int rank;                  /* `kbisect --help` lists verbs by rank */
	const char *args;          /* positional arguments: "MATRIX", "[ID]" */
	const struct kb_opt *opts; /* the options, ended by KB_OPT_END */
	size_t size;               /* of the struct they fill; 0: kb_args */
	int (*fn)(const struct kb_args *a);
	const char *summary;       /* one line, for `kbisect --help` */
	const char *help;          /* paragraphs before the options paragraph */
	const char *epilog;        /* paragraphs after it: notes, examples */
	/* Sub-verbs ("bisect options"), NULL-ended: the first argument names
	 * one, whose entry gives args, opts, size, fn and its own help. */
	const struct cmd *const *subs;
	int usage_status;          /* exit status of a usage error; 0: 2 */
};

/*
 * The options struct of a verb with options of its own, @type, from the
 * struct kb_args @a its function receives: @type's first member, which
 * must be called `common` (checked when compiled).
 */
#define CMD_ARGS(type, a)                                            \
	((void)sizeof(char[offsetof(type, common) == 0 ? 1 : -1]),   \
	 (const type *)(const void *)(a))

/* The table entry for @name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Print the usage lines, summary, help and options of @c to @f. */
void cmd_usage(const struct cmd *c, FILE *f);

/* Report @err on stderr ("kbisect: message") and return its exit status. */
int cmd_fail(const struct kb_err *err);

/*
 * @s as it may be printed on a terminal (printable.c): each control
 * character (lib/ycheck.h's kb_ycheck_control(): ESC, BEL, CR, C1 ...)
 * written as \xHH, \u00HH, \r, \n or \t, except newlines and tabs when
 * @lines is set.  For text the checks of today's matrix did not see:
 * names, labels and errors from the database or the daemon, messages
 * that quote the user's input.  Returns @s itself when it is clean (or
 * NULL), else the escaped text in @b, which the caller releases; @b is
 * reset first.
 */
struct kb_buf;
const char *cmd_printable(const char *s, int lines, struct kb_buf *b);

/* Report a usage error for verb @verb, with its usage lines, and
 * return 2. */
int cmd_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Open the database: @path, else $KBISECT_DB, else the XDG default;
 * created when missing (the verbs that store experiments). */
int cmd_open_store(const char *path, struct kb_store **out,
		   struct kb_err *err);
/* The same, opened as @access says (lib/store.h): verbs that read open
 * it KB_STORE_READ_ONLY, or KB_STORE_EXISTING when they store what they
 * find where they can; neither creates a database. */
int cmd_open_store_as(const char *path, enum kb_store_access access,
		      struct kb_store **out, struct kb_err *err);

/* Print the results of experiment @exp (table or JSON) to stdout. */
int cmd_print_results(struct kb_store *s, int64_t exp, int json,
		      struct kb_err *err);

/* Parse an experiment id, a whole number from 1 to INT64_MAX; returns 0
 * or -1 (bad input, exit status 2). */
int cmd_parse_id(const char *s, int64_t *out);

/* Write a kb_buf of JSON to stdout. */
struct kb_buf;
void cmd_put(const struct kb_buf *b);
/* Finish the JSON document @j writes into @b, write it to stdout, and
 * free @j and @b's contents. */
struct kb_json;
void cmd_json_put(struct kb_json *j, struct kb_buf *b);

/* Analysis verbs (compare.c): open experiment @id for analysis. */
struct kb_analysis;
struct kb_comparison;
struct kb_json;
int cmd_open_analysis(const char *db, const char *id, const char *metric,
		      struct kb_store **s, struct kb_analysis **a,
		      struct kb_err *err);
/*
 * Store analysis rows @rows[0..n) of experiment @exp (an analysis verb's
 * answer), or, when the database cannot be written here, say on stderr
 * that they are not stored and return 0.
 */
int cmd_store_analyses(struct kb_store *s, int64_t exp,
		       const struct kb_store_analysis *rows, size_t n,
		       struct kb_err *err);
/* A variant given as a number ("4", "#4") or an exact label. */
int cmd_parse_variant(const struct kb_analysis *a, const char *s, int *out);
/*
 * Warn on stderr when the ok boots of experiment @exp (of variants @a and
 * @b; all when @a < 0) ran in more than one environment: results from
 * different hosts or versions are never compared silently.  Returns the
 * number of environments (0 for model runs).
 */
unsigned cmd_warn_environments(struct kb_store *s, int64_t exp, int a, int b);
/*
 * The hosts of an experiment against the first (kb_effects_hosts()), as
 * a table on @f and as an array under @key (hosts.c): effects and hosts
 * print them.
 */
struct kb_host_effect;
void cmd_print_host_effects(FILE *f, const struct kb_host_effect *h,
			    size_t n);
void cmd_json_host_effects(struct kb_json *j, const char *key,
			   const struct kb_host_effect *h, size_t n);
/*
 * Warn on stderr when variants @a and @b of @an ran on hosts that do not
 * overlap (compare.c): their difference may be the hosts'.  Returns 1
 * when they did.
 */
struct kb_analysis;
int cmd_warn_disjoint_hosts(const struct kb_analysis *an, unsigned a,
			    unsigned b);
/* Significance stars of a p-value: "***", "**", "*" or "". */
const char *cmd_stars(double p);
/*
 * A percentage as text: "+12.3%" (@sign) or "12.3%", and "-" when it is
 * not a finite number (a change against a mean of 0, or of no boots), so
 * that "nan%" never reaches the reader.  The text lives until the end of
 * the expression the call is in: printf("%s", cmd_pct(x, 1).s).
 */
struct cmd_pct {
	char s[32];
};
struct cmd_pct cmd_pct(double pct, int sign);
/* Write comparison @c as an object under @key. */
void cmd_json_comparison(struct kb_json *j, const char *key,
			 const struct kb_comparison *c);

/*
 * Plan (plan.c): resolve @p's configs against its matrix's source.tree
 * when it has one (progress on stderr unless @quiet); a tree that does
 * not exist is noted on stderr and left unresolved.  Then, when options
 * did not hold, cmd_plan_report_dropped() says which, prominently.
 */
struct kb_plan;
int cmd_plan_resolve(struct kb_plan *p, int quiet, struct kb_err *err);
void cmd_plan_report_dropped(const struct kb_plan *p, FILE *f);
/*
 * The caps on a whole plan from --max-boots and --max-samples of @a into
 * *@out (lib/plan.h: the defaults where not given); a value that is not
 * a count from 1 is a usage error of @verb: returns its status (2).
 */
struct kb_plan_limits;
int cmd_plan_limits(const char *verb, const struct kb_args *a,
		    struct kb_plan_limits *out);

/*
 * Load the matrix at @path by its absolute path (kb_matrix_load): an
 * experiment stores the path, which anchors the matrix's relative paths,
 * so that whatever runs it again (resume, boots the analysis verbs add)
 * finds them from any folder.
 */
struct kb_matrix;
int cmd_matrix_load(const char *path, struct kb_matrix **m,
		    struct kb_err *err);

/* ---- stopping on SIGINT and SIGTERM (main.c) ------------------------ */

/*
 * The signal that asked long work (run, resume, bisections) to stop after
 * its running step, or 0.  cmd_catch_stop(1) clears it and catches
 * SIGINT and SIGTERM once each (a second one stops at once);
 * cmd_catch_stop(0) gives them back their default action.  Pass
 * &cmd_stop_signal as the stop flag of the real executor (its running
 * guest is destroyed) and of the library call.
 */
extern volatile sig_atomic_t cmd_stop_signal;
void cmd_catch_stop(int on);

/* --variant, --metric and --by of trend and report --trend into @so;
 * a usage error (exit 2) for a --by other than time or revision. */
struct kb_trend_series_opts;
int cmd_trend_series_opts(const char *verb, const char *variant,
			  const char *metric, const char *by,
			  struct kb_trend_series_opts *so);
/* ---- the daemon verbs (submit.c, status.c, cancel.c, watch.c) -------- */

/* Connect to kbisectd at @socket_path, else the default socket
 * (kb_protocol_default_socket), and exchange HELLO (submit.c). */
struct kb_protocol_reader;
int cmd_daemon_connect(const char *socket_path, int *fd,
		       struct kb_protocol_reader **r, struct kb_err *err);
/* One request @req and its answer: connect (as cmd_daemon_connect), send,
 * read the reply into @reply (the caller releases it with kb_msg_release,
 * also after a failure) and check that it is of type @expect, else
 * KB_EFAIL "kbisectd answered 'TYPE' to @what". */
struct kb_msg;
enum kb_msg_type;
int cmd_daemon_ask(const char *socket_path, const struct kb_msg *req,
		   enum kb_msg_type expect, const char *what,
		   struct kb_msg *reply, struct kb_err *err);

/* A duration as "0.4s", "42s", "3m05s", "2h10m", or "?" for NaN (caller frees;
 * status.c). */
char *cmd_duration(double s);

/* An experiment's progress as status prints it, and as JSON. */
struct kb_msg_progress;
void cmd_print_progress(const struct kb_msg_progress *p, FILE *f);
void cmd_json_progress(struct kb_json *j, const struct kb_msg_progress *p);

#endif
