#include "kbisect.h"
#include "store.h"
#include "banned.h"

static const struct kb_opt results_opts[] = {
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_END,
};

static int cmd_results(const struct kb_args *args);

const struct cmd cmd_results_entry = {
	.name = "results",
	.rank = 30,
	.args = "EXPERIMENT",
	.opts = results_opts,
	.fn = cmd_results,
	.summary = "print an experiment's results from the database",
	.help = "Per variant: boots measured (n), mean of the per-boot means,\n"
		"relative standard deviation, and the change against the baseline\n"
		"variant (#0).  Failed builds and boots are listed with their\n"
		"reason.  When the boots ran on several hosts, a line says how many\n"
		"each ran (kbisect hosts ID says more).  Then the drift check, when\n"
		"it finds the boots changing over the run, and with repeat.sentinel\n"
		"the sentinel against the baseline: the experiment's own A/A, with a\n"
		"warning when the two differ (docs/analysis.md, \"A/A: the\n"
		"sentinel\").\n",
};

static int cmd_results(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	const char *db = args->db;
	int64_t exp;
	int json = args->json, ret;

	if (cmd_parse_id(args->pos[0], &exp) < 0)
		return cmd_usage_error("results",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if ((ret = cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, &err)) ||
	    (ret = cmd_print_results(s, exp, json, &err)))
		ret = cmd_fail(&err);
	kb_store_close(s);
	return ret;
}
