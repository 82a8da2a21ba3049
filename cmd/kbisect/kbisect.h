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

/* ---- an experiment run in this process (run.c; resume.c) ------------ */

/*
 * What `run` and `resume` execute with (cmd_runner_open_hosts()), and
 * what analyses and bisections add boots through
 * (cmd_runner_open_boots()).  cmd_runner_close() releases it, also after
 * a failure.
 */
struct kb_guest_conn;
struct kb_executor;
struct kb_model;
struct kb_pipeline_host;
struct cmd_runner {
	struct kb_executor *ex;     /* builds (run and resume: and boots
				     * without hosts) */
	int64_t exp; /* the experiment: set it to resume one; guests are
		      * named by it */
	char db_tag[16]; /* and by the database's tag: cmd_runner_tag() */
	/* run and resume (cmd_runner_open_hosts): the hosts boots are
	 * spread over, and what their slots hold (owned) */
	struct kb_pipeline_host *hosts;
	size_t nhosts;
	struct kb_executor **execs;   /* every slot's executor, once each */
	size_t nexecs;
	struct kb_guest_conn **conns; /* their connections */
	size_t nconns;
	char **down;                  /* per host: why it is down, or NULL */
	int overlap;                  /* builds run while boots do */
	/* cmd_runner_open_boots(): one boot at a time over the hosts
	 * (owned), and what it records and tells, read at each boot */
	struct kb_executor *boots;
	struct kb_pipeline_hosts_opts boot_opts;
};
/*
 * What `run` and `resume` execute with: the model executor on @model
 * (borrowed: it must outlive the runner; the matrix's metric is checked,
 * $KBISECT_MODEL_TIME_SCALE read), or without one real executors (the
 * workload checked, orphan kbisect-* guests destroyed first, said on
 * stderr unless @quiet; a stop makes them destroy their running guest),
 * on every host of @p's matrix (docs/guests.md, "Several hosts"), a slot
 * per unit of its capacity, for kb_pipeline_opts.hosts.  On the model, an
 * executor per host (kb_model_executor_on(), named by its URI when the
 * matrix has several) fills its slots, and r->ex builds.  On real
 * guests, each slot has a connection and a real executor of its own
 * (its host's pool), orphan kbisect-* guests are destroyed on each host
 * once, and r->ex (a real executor on the first host that answered,
 * without its pool) builds; a host that cannot be reached is said so on
 * stderr and left down (its boots go to the others), and only when none
 * can is it an error.  Builds overlap boots as the matrix's build.overlap
 * says (kb_spread_overlap()), unless $KBISECT_OVERLAP is "yes" or "no"
 * ("auto" or empty: the matrix's; another value is KB_EINPUT).
 */
int cmd_runner_open_hosts(struct cmd_runner *r, const struct kb_plan *p,
			  const struct kb_model *model, int quiet,
			  struct kb_err *err);
/*
 * What analyses and bisections add boots through, one at a time: as
 * cmd_runner_open_hosts() (every host of matrix @m, on the model @model
 * or on real guests with @ro, the caller's: experiment, plan,
 * base_config...), but one slot a host, and r->boots, the executor that
 * spreads the boots over the hosts and drains a host that fails
 * (kb_pipeline_hosts_executor() with r->boot_opts: the matrix's spread,
 * the host lines of `run` on stderr unless @quiet, cmd_stop_signal).  It
 * counts and records with the experiment r->exp (guests are named by
 * *ro->experiment) once the caller sets r->boot_opts.store; the caller
 * may point r->boot_opts.experiment elsewhere.  r must stay put.
 */
struct kb_realexec_opts;
int cmd_runner_open_boots(struct cmd_runner *r, const struct kb_matrix *m,
			  const struct kb_model *model,
			  struct kb_realexec_opts *ro, int quiet,
			  struct kb_err *err);
void cmd_runner_close(struct cmd_runner *r);
/* Name r's guests after database @s (kb_store_tag(), read at each boot:
 * call it once the store is open, before the first boot). */
void cmd_runner_tag(struct cmd_runner *r, const struct kb_store *s);
/* A host's failure or drain (kb_progress) on stderr, as run says it. */
void cmd_host_progress(const struct kb_progress *ev, void *arg);

/* --variant, --metric and --by of trend and report --trend into @so;
 * a usage error (exit 2) for a --by other than time or revision. */
struct kb_trend_series_opts;
int cmd_trend_series_opts(const char *verb, const char *variant,
			  const char *metric, const char *by,
			  struct kb_trend_series_opts *so);
/*
 * Execute @p with @r: a new experiment (kb_pipeline_run, @model_text
 * stored with it), or when r->exp is set, the missing boots of that one
 * (kb_pipeline_resume; the caller took it over).  Experiments whose
 * kbisect process is gone are marked interrupted first.  Progress on
 * stderr unless args->quiet; SIGINT and SIGTERM stop it after the running
 * step, the experiment interrupted, with a message naming `kbisect
 * resume` and the exit status 128 + the signal.  Otherwise prints the
 * results (args->json) and returns the exit status.
 */
int cmd_runner_go(struct cmd_runner *r, struct kb_store *s,
		  const struct kb_plan *p, const char *model_text,
		  const struct kb_args *args);
/* ---- boots added by the analysis verbs (compare.c; why.c) ----------- */

/*
 * What an analysis verb adds boots through (compare.c), when it may add
 * some.  A model experiment boots again on its stored model by itself
 * (over its hosts, a drain said on stderr): nothing is opened.  A "libvirt" one gets real
 * executors on every host of its stored matrix, opened as `run` opens
 * them (cmd_runner_open_boots(): orphan kbisect-* guests destroyed,
 * guests named by the experiment, the boots spread over the hosts, a
 * host that fails drained, its failures recorded in @s), handed to @a
 * (kb_analysis_set_executor()) with a line on stderr per boot, and
 * SIGINT/SIGTERM caught (cmd_catch_stop()) so that a stop destroys the
 * running guest.  Any other executor cannot boot again: KB_EINPUT.
 * cmd_analysis_boots_close() releases it (also after a failure, and when
 * nothing was opened).
 */
struct cmd_analysis_boots {
	struct cmd_runner r;       /* r.boots: over the real executors, or
				    * NULL */
	struct kb_pipeline_opts o; /* its progress and stop */
	int caught;                /* the stop signals are caught */
};
int cmd_analysis_boots_open(struct cmd_analysis_boots *b,
			    struct kb_analysis *a, struct kb_store *s,
			    struct kb_err *err);
void cmd_analysis_boots_close(struct cmd_analysis_boots *b);
/*
 * Report @err as cmd_fail() does; after a stop (a real boot interrupted),
 * say that the boots that ended are stored and return 128 + the signal.
 */
int cmd_analysis_boots_fail(const struct cmd_analysis_boots *b,
			    const struct kb_err *err);

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

/* ---- commits: `bisect commits` and `test` (test.c) ------------------ */

/*
 * What both commit verbs (and option bisection on real kernels) run on:
 * matrix @m's plan (its variant 0 gives the settings and guest every
 * commit is built and booted with), and the executor over every host of
 * the matrix (cmd_runner_open_boots(): each probe's boots spread over
 * the hosts, a host that fails drained), on the model at @model_path, or
 * without it on real guests (orphan kbisect-* guests destroyed first,
 * said on stderr unless @quiet).  source.tree is required.  With
 * @base_config (option bisection on real kernels), the real executor
 * resolves each probe from that .config and refuses to build one whose
 * changes do not hold (kb_realexec_opts).  Once the
 * database is open, cmd_commit_env_store() gives it the store the hosts'
 * failures are recorded in.  cmd_commit_env_close() releases it (also
 * after a failure).  env must stay put.
 */
struct kb_matrix;
struct kb_model;
struct kb_executor;
struct kb_bisect_opts;
struct cmd_commit_env {
	struct kb_plan *plan;
	struct kb_model *model;     /* NULL: the real executor */
	struct cmd_runner r;        /* the hosts' executors */
	struct kb_executor *ex;     /* r.boots: over them all */
	const char *metric;         /* the matrix's workload.metric */
	int64_t experiment;         /* guests are named by it (realexec) */
};
int cmd_commit_env_open(const struct kb_matrix *m, const char *model_path,
			const char *base_config, int quiet,
			struct cmd_commit_env *env, struct kb_err *err);
void cmd_commit_env_store(struct cmd_commit_env *env, struct kb_store *s);
void cmd_commit_env_close(struct cmd_commit_env *env);
/* Fill @bo's settings from matrix @m: repeat, compare, and the name,
 * path and text stored with the experiment (every bisection). */
void cmd_bisect_matrix_opts(const struct kb_matrix *m,
			    struct kb_bisect_opts *bo);
/* Fill @bo's matrix settings (repeat, compare, metric, settings, guest,
 * what is stored) for commit verbs. */
void cmd_commit_opts(const struct kb_matrix *m, struct cmd_commit_env *env,
		     struct kb_bisect_opts *bo);

#endif
