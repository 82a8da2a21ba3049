#ifndef KBISECT_CMD_H
#define KBISECT_CMD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cmdopt.h"
#include "err.h"
#include "pipeline.h"
#include "store.h"

/*
 * What every verb calls, below the verbs: each module its own header
 * with a comment per function.  Included here, so that a verb includes
 * kbisect.h and the lib/ headers of what it works on, and a module that
 * moves between these files moves no verb's include lines.
 */
#include "boots.h"     /* the runner, added boots, the commit verbs */
#include "client.h"    /* the daemon's client: connect, ask */
#include "open.h"      /* the database, an analysis, ids, matrix, plan */
#include "print.h"     /* results, comparisons, hosts, progress, JSON */
#include "printable.h" /* stored text made safe for a terminal */

struct kb_store;

/*
 * The kbisect command line: one file per verb, each holding its entry,
 * and main.c's table listing the entries.  An entry is data, as tmux's
 * cmd_entry: the verb's name, its positional arguments and options
 * (lib/util/cmdopt.h), its help, and the function to run.  main.c parses the
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
 * A verb file defines its entry and static functions only (tools/lint
 * checks it): it calls down, never into another verb.  What a second
 * verb needs too moves below the verbs, to the module it belongs to:
 * what verbs print to print.c, what they open, parse or resolve to
 * open.c, what they ask kbisectd to client.c (each with its header,
 * included above), a number as text to lib/util/format.h, and what is
 * not about the command line to lib/.  cmd/kbisect/README.md lists the
 * files.
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

/* What the help of every verb that boots a matrix's hosts says of a host
 * that is a whole machine (lib/matrix.h: kb_matrix_machine()). */
#define CMD_HELP_MACHINES                                                  \
	"A host that is a whole machine (hosts[].machine) is booted through\n" \
	"its own power, console and boot commands, one boot at a time\n" \
	"(docs/machines.md): boot method command, or kexec and grub-reboot\n" \
	"over boot.ssh; kexec with a dom0 factor is refused as bad input.\n" \
	"factors.machine (hypervisor: [none, xen], xen, xen_cmdline) boots\n" \
	"the same kernel natively or as Xen's dom0.\n"

/* ---- the table, usage and failures (main.c) ------------------------ */

/* Hand the table of @n entries @cmds to cmd_find() and the usage
 * (main.c, at start; borrowed). */
void cmd_table_set(const struct cmd *const *cmds, size_t n);
/* The table entry for @name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Print the usage lines, summary, help and options of @c to @f. */
void cmd_usage(const struct cmd *c, FILE *f);

/* Report @err on stderr ("kbisect: message") and return its exit status. */
int cmd_fail(const struct kb_err *err);

/* Report a usage error for verb @verb, with its usage lines, and
 * return 2. */
int cmd_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

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


#endif
