/*
 * kbisect run: plan a matrix and execute it in this process (the runner
 * and the progress it prints: boots.h, shared with `resume`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "runner.h"
#include "matrix.h"
#include "format.h"
#include "model.h"
#include "plan.h"
#include "realexec.h"
#include "store.h"
#include "banned.h"

static const struct kb_opt run_opts[] = {
	KB_OPT_MODEL("use the performance-model executor (docs/model.md) instead of real kernels and guests; without it, guests boot through libvirt on the matrix's hosts (docs/guests.md), after the kbisect-* guests there whose owner is gone (a run or daemon that died) are destroyed; a live owner's are left alone"),
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_ALLOW_DROPPED("run even when requested options do not hold"),
	KB_OPT_MAX_BOOTS,
	KB_OPT_MAX_SAMPLES,
	KB_OPT_END,
};

static int cmd_run(const struct kb_args *args);

const struct cmd cmd_run_entry = {
	.name = "run",
	.rank = 20,
	.args = "MATRIX",
	.opts = run_opts,
	.fn = cmd_run,
	.summary = "run an experiment in this process and print its results",
	.help = "Plans MATRIX, then builds, boots and measures every variant for\n"
		"repeat.boots boots of repeat.runs_per_boot runs each, storing every\n"
		"boot and its samples as it ends.  A failed build or boot is stored\n"
		"with its reason and the run goes on.  Prints a results table.\n"
		"\n"
		"By default every kernel is built first and the boots run in rounds,\n"
		"one boot of every variant a round, each round in a random order of\n"
		"its own (randomised blocks: a host's drift falls on every variant\n"
		"alike); repeat.order: sequential runs variant after variant.\n"
		"repeat.sentinel: true boots the baseline's kernel again in every\n"
		"round under the label 'sentinel': the experiment's own A/A, which\n"
		"results compares with the baseline (docs/analysis.md).\n"
		"\n"
		"The boots are spread over the matrix's hosts, each variant's over\n"
		"every host, up to each host's capacity at once.  A host that fails 3\n"
		"boots in a row for reasons of its own (libvirt lost, a domain\n"
		"refused) is drained and its boots go to the others; those failures\n"
		"are not the kernel's and are not stored as boots (`kbisect hosts ID`).\n"
		CMD_HELP_MACHINES
		"In the sequential order the next kernels build while guests boot\n"
		"when the matrix's build.overlap says so (by default unless a guest\n"
		"boots on this machine); KBISECT_OVERLAP=yes or no in the environment\n"
		"overrides it.\n"
		"\n"
		"SIGINT (Ctrl-C) or SIGTERM stops it after the running step (a real\n"
		"guest is destroyed at once): the experiment is marked interrupted and\n"
		"`kbisect resume ID` carries it on; the exit status is 128 + the\n"
		"signal's number.  A second signal stops at once.\n",
	.epilog = "Example:\n"
		  "  kbisect run kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
		  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n",
};

/*
 * A model with time: sleeps its simulated steps unless
 * KBISECT_MODEL_TIME_SCALE says otherwise: say so, and how long, before
 * the time is spent.
 */
static void model_time_note(const struct kb_plan *p,
			    const struct kb_model *model)
{
	const struct kb_model_time *t = kb_model_time(model);
	const char *scale = getenv("KBISECT_MODEL_TIME_SCALE");
	struct kb_plan_cost c;

	if ((scale && *scale) ||
	    !(t->build_s > 0 || t->boot_s > 0 || t->run_s > 0))
		return;
	kb_plan_cost(p, t->build_s, 0,
		     t->boot_s + kb_matrix_repeat(kb_plan_matrix(p))->runs_per_boot *
					 t->run_s,
		     &c);
	fprintf(stderr,
		"kbisect: note: the model's time: runs in real time, about %s for this plan; KBISECT_MODEL_TIME_SCALE=0 runs it at once (docs/model.md)\n",
		kb_format_duration(c.total_s).s);
}

static int cmd_run(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	const char *model_path = args->model, *db = args->db;
	struct kb_plan_limits lim;
	struct kb_runner *r = NULL;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_store *s = NULL;
	int allow_dropped = args->allow_dropped, ret;

	if ((ret = cmd_plan_limits("run", args, &lim)))
		return ret;
	/* Everything that can be refused is checked before the database is
	 * touched: a bad input writes nothing. */
	if ((ret = cmd_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)) ||
	    (ret = kb_plan_check_limits(p, &lim, &err)))
		goto fail;
	/* Real kernels: each variant has an image or a tree to build it
	 * from; resolve the configs first and refuse, as `plan` does,
	 * variants whose requested options did not hold (plan.c). */
	if (!model_path && ((ret = kb_realexec_check_source(p, &err)) ||
			    (ret = cmd_plan_resolve(p, args->quiet, &err))))
		goto fail;
	if (kb_plan_ndropped(p) && !allow_dropped) {
		cmd_plan_report_dropped(p, stderr);
		fprintf(stderr, "kbisect: not running a matrix whose requested options do not hold: fix the fragments, or pass --allow-dropped\n");
		ret = 1;
		goto out;
	}
	if (model_path && (ret = kb_model_load(model_path, &model, &err)))
		goto fail;
	if (model)
		model_time_note(p, model);
	if ((ret = cmd_runner_open_hosts(&r, p, model, args->quiet,
					 &err)) ||
	    (ret = cmd_open_store(db, &s, &err)))
		goto fail;
	kb_runner_tag(r, kb_store_tag(s));
	ret = cmd_runner_go(r, s, p, model ? kb_model_text(model) : NULL,
			    args);
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_store_close(s);
	kb_runner_free(r);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
