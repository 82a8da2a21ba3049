/*
 * kbisect: kernel config bisection and A/B testing.  This file holds the
 * table of verbs and the dispatch; each verb lives in its own file.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "cmdopt.h"
#include "mem.h"
#include "banned.h"

#define KBISECT_VERSION "0.1.0"

/* Each verb's entry lives in its file; the Makefile lists every
 * `const struct cmd cmd_VERB_entry` of cmd/kbisect/ in verbs.h as
 * KB_VERB(cmd_VERB_entry), so that adding a verb touches one file. */
#define KB_VERB(entry) extern const struct cmd entry;
#include "verbs.h"
#undef KB_VERB

#define KB_VERB(entry) &entry,
static const struct cmd *const commands[] = {
#include "verbs.h"
};
#undef KB_VERB

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The width the options paragraph of `kbisect VERB --help` wraps at. */
#define HELP_WIDTH 76

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
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

static int by_rank(const void *a, const void *b)
{
	const struct cmd *x = *(const struct cmd *const *)a;
	const struct cmd *y = *(const struct cmd *const *)b;

	return x->rank != y->rank ? (x->rank > y->rank) - (x->rank < y->rank)
				  : strcmp(x->name, y->name);
}

static void usage(FILE *f)
{
	const struct cmd *sorted[NCOMMANDS];
	size_t i;

	memcpy(sorted, commands, sizeof(sorted));
	qsort(sorted, NCOMMANDS, sizeof(sorted[0]), by_rank);

	fputs("usage: kbisect VERB [OPTIONS] [ARGS]\n\n"
	      "Find which kernel config option costs performance: describe a\n"
	      "matrix of options, kernels and guest shapes; kbisect builds, boots\n"
	      "and measures every variant and stores every sample in sqlite.\n\n"
	      "verbs:\n",
	      f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", sorted[i]->name, sorted[i]->summary);
	fputs("\n'kbisect VERB --help' shows a verb's options and examples.\n"
	      "Exit status: 0 ok, 1 failure, 2 bad input or usage.\n",
	      f);
}

volatile sig_atomic_t cmd_stop_signal;

static void on_stop(int sig)
{
	static const char msg[] =
		"\nkbisect: stopping after the running step (a second signal stops at once)\n";
	ssize_t n;

	cmd_stop_signal = sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
}

void cmd_catch_stop(int on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_stop : SIG_DFL;
	/* the second signal finds the default action: stop at once (a
	 * later kbisect sees the process gone) */
	sa.sa_flags = on ? SA_RESETHAND | SA_RESTART : 0;
	if (on)
		cmd_stop_signal = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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

/* The sub-verb of @c named @name, or NULL. */
static const struct cmd *find_sub(const struct cmd *c, const char *name)
{
	size_t i;

	for (i = 0; c->subs[i]; i++)
		if (!strcmp(c->subs[i]->name, name))
			return c->subs[i];
	return NULL;
}

/* "'options' or 'commits'" */
static char *sub_names(const struct cmd *c)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	for (i = 0; c->subs[i]; i++)
		kb_buf_addf(&b, "%s'%s'",
			    !i ? "" : c->subs[i + 1] ? ", " : " or ",
			    c->subs[i]->name);
	return kb_buf_detach(&b);
}

/*
 * Run verb @top on its @argc arguments @argv: pick the sub-verb, parse
 * the options from the table, answer --help, else call the function.
 */
static int call(const struct cmd *top, int argc, char **argv)
{
	int status = top->usage_status ? top->usage_status : 2, ret;
	const struct cmd *c = top;
	struct kb_err err = KB_ERR_INIT;
	struct kb_args *a;
	size_t size;

	if (top->subs) {
		c = argc > 0 ? find_sub(top, argv[0]) : NULL;
		if (!c) {
			char *names;

			if (kb_cmdopt_help_asked(argc, argv)) {
				cmd_usage(top, stdout);
				return 0;
			}
			names = sub_names(top);
			if (argc > 0)
				cmd_usage_error(top->name, "expected %s, not '%s'",
						names, argv[0]);
			else
				cmd_usage_error(top->name, "expected %s", names);
			free(names);
			return status;
		}
		argc--;
		argv++;
	}
	size = c->size ? c->size : sizeof(*a);
	a = kb_calloc(1, size);
	if (kb_cmdopt_parse(c->opts, c->args, argc, argv, a, size, &err)) {
		if (err.code == KB_EINPUT) {
			cmd_usage_error(top->name, "%s", err.msg);
			ret = status;
		} else {
			ret = cmd_fail(&err);
		}
	} else if (a->help) {
		cmd_usage(top, stdout);
		ret = 0;
	} else {
		ret = c->fn(a);
	}
	free(a);
	return ret;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && (c = cmd_find(argv[2]))) {
			cmd_usage(c, stdout);
			return 0;
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbisect %s\n", KBISECT_VERSION);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "kbisect: unknown verb '%s'\n\n", argv[1]);
		usage(stderr);
		return 2;
	}
	return call(c, argc - 2, argv + 2);
}
