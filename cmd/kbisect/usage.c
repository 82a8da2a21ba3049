/*
 * The verbs' table as the verbs see it (kbisect.h): an entry by name,
 * its usage and help, a usage error, a failure reported.  main.c hands
 * the table over at start (cmd_table_set()), so that the verbs calling
 * these never link back to the table that lists them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "cmdopt.h"
#include "banned.h"

/* The width the options paragraph of `kbisect VERB --help` wraps at. */
#define HELP_WIDTH 76

static const struct cmd *const *table;
static size_t ntable;

void cmd_table_set(const struct cmd *const *cmds, size_t n)
{
	table = cmds;
	ntable = n;
}

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < ntable; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

/* "usage: kbisect VERB ARGS [OPTIONS]\n", a line per sub-verb. */
static void usage_lines(struct kb_buf *b, const struct cmd *c)
{
	size_t i;

	if (!c->subs) {
		kb_buf_addf(b, "usage: kbisect %s", c->name);
		kb_cmdopt_usage(b, c->args, c->opts, 0);
		kb_buf_addch(b, '\n');
		return;
	}
	for (i = 0; c->subs[i]; i++) {
		kb_buf_addf(b, "%s kbisect %s %s", i ? "      " : "usage:",
			    c->name, c->subs[i]->name);
		kb_cmdopt_usage(b, c->subs[i]->args, c->subs[i]->opts, 0);
		kb_buf_addch(b, '\n');
	}
}

/* @c's help, its options paragraph, its epilog. */
static void help_section(struct kb_buf *b, const struct cmd *c)
{
	struct kb_buf opts = KB_BUF_INIT;

	if (c->help && *c->help)
		kb_buf_addf(b, "\n%s", c->help);
	kb_cmdopt_help(&opts, c->opts, HELP_WIDTH);
	if (opts.len)
		kb_buf_addf(b, "\n%s", opts.buf);
	kb_buf_release(&opts);
	if (c->epilog && *c->epilog)
		kb_buf_addf(b, "\n%s", c->epilog);
}

void cmd_usage(const struct cmd *c, FILE *f)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	usage_lines(&b, c);
	kb_buf_addf(&b, "\n%s.\n", c->summary);
	help_section(&b, c);
	for (i = 0; c->subs && c->subs[i]; i++)
		help_section(&b, c->subs[i]);
	fputs(b.buf, f);
	kb_buf_release(&b);
}

int cmd_fail(const struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;

	/* a message may quote the input: no ESC reaches the terminal */
	fprintf(stderr, "kbisect: %s\n",
		err->msg[0] ? cmd_printable(err->msg, 1, &b) : "unknown error");
	kb_buf_release(&b);
	return kb_err_exit_status(err->code ? err->code : KB_EFAIL);
}

int cmd_usage_error(const char *verb, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	fprintf(stderr, "kbisect %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	usage_lines(&b, cmd_find(verb));
	fprintf(stderr, "\n%s", b.buf);
	kb_buf_release(&b);
	return 2;
}

