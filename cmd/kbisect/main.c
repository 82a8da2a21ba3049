/*
 * kbisect: kernel config bisection and A/B testing.  This file holds the
 * table of verbs and the dispatch; each verb lives in its own file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	cmd_table_set(commands, NCOMMANDS);
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
