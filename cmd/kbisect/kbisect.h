#ifndef KBISECT_CMD_H
#define KBISECT_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"

struct kb_store;

/*
 * The kbisect command line: one file per verb, listed in main.c's table.
 * To add a verb: write cmd_<verb>() in cmd/kbisect/<verb>.c, declare it
 * here, add it to the table with its usage and summary, document it in
 * README.md and docs/.
 *
 * A verb returns the process exit status: 0 ok, 1 failure, 2 bad input or
 * usage.  Only cmd/ prints.
 */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;   /* "plan MATRIX [--json]" */
	const char *summary; /* one line */
	const char *help;    /* paragraphs shown by `kbisect VERB --help` */
};

int cmd_plan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_db(int argc, char **argv);

/* The table entry for @name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Print "kbisect VERB: usage..." for @c to @f. */
void cmd_usage(const struct cmd *c, FILE *f);

/* Report @err on stderr ("kbisect: message") and return its exit status. */
int cmd_fail(const struct kb_err *err);

/* Report a usage error for verb @verb and return 2. */
int cmd_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Open the database: @path, else $KBISECT_DB, else the XDG default. */
int cmd_open_store(const char *path, struct kb_store **out,
		   struct kb_err *err);

/* Print the results of experiment @exp (table or JSON) to stdout. */
int cmd_print_results(struct kb_store *s, int64_t exp, int json,
		      struct kb_err *err);

/* Parse an experiment id; returns 0 or -1. */
int cmd_parse_id(const char *s, int64_t *out);

/* Write a kb_buf of JSON to stdout. */
struct kb_buf;
void cmd_put(const struct kb_buf *b);

#endif
