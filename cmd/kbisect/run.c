#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "executor.h"
#include "fio.h"
#include "guest.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "realexec.h"
#include "store.h"
#include "banned.h"

struct progress {
	int tty;
	int quiet;
};

static void on_progress(const struct kb_progress *ev, void *arg)
{
	struct progress *p = arg;
	const struct kb_variant *v = ev->variant;

	if (p->quiet)
		return;
	if (p->tty) {
		const char *what = ev->kind == KB_PROGRESS_BUILD_START
					   ? "building"
					   : "booting";

		fprintf(stderr,
			"\r\033[K[%zu/%zu builds, %zu/%zu boots, %.0f s] %s #%u %s",
			ev->builds_done, ev->builds_total, ev->boots_done,
			ev->boots_total, ev->elapsed_s, what, v->idx,
			v->label);
		if (ev->boots_done == ev->boots_total)
			fputc('\n', stderr);
	}
	switch (ev->kind) {
	case KB_PROGRESS_BUILD_DONE:
	case KB_PROGRESS_BOOT_DONE:
		if (!strcmp(ev->status, "ok"))
			break;
		fprintf(stderr, "%s#%u %s: %s %s: %s\n", p->tty ? "\r\033[K" : "",
			v->idx, v->label,
			ev->kind == KB_PROGRESS_BUILD_DONE ? "build" : "boot",
			ev->status, ev->reason ? ev->reason : "");
		break;
	default:
		break;
	}
	if (!p->tty && ev->kind == KB_PROGRESS_BOOT_DONE &&
	    (ev->boots_done == ev->boots_total || ev->boots_done % 10 == 0))
		fprintf(stderr, "[%zu/%zu builds, %zu/%zu boots, %.1f s]\n",
			ev->builds_done, ev->builds_total, ev->boots_done,
			ev->boots_total, ev->elapsed_s);
}

static const struct kb_opt run_opts[] = {
	KB_OPT_MODEL("use the performance-model executor (docs/model.md) instead of real kernels and guests; without it, guests boot through libvirt on the matrix's first host (docs/guests.md), after any kbisect-* guest left running there is destroyed"),
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_ALLOW_DROPPED("run even when requested options do not hold"),
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
		"with its reason and the run goes on.  Prints a results table.\n",
	.epilog = "Example:\n"
		  "  kbisect run kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
		  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n",
};

static int cmd_run(const struct kb_args *args)
{
	struct kb_pipeline_opts popts = KB_PIPELINE_OPTS_INIT;
	struct progress prog = { 0, args->quiet };
	struct kb_err err = KB_ERR_INIT;
	const char *model_path = args->model, *db = args->db;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *ex = NULL;
	struct kb_store *s = NULL;
	struct kb_guest_conn *conn = NULL;
	int64_t exp = 0;
	double scale;
	int json = args->json, allow_dropped = args->allow_dropped, ret;

	/* Everything that can be refused is checked before the database is
	 * touched: a bad input writes nothing. */
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)))
		goto fail;
	/* Real kernels: the tree must be there (plan only notes a missing
	 * one); resolve the configs first and refuse, as `plan` does,
	 * variants whose requested options did not hold (plan.c). */
	if (!model_path && kb_matrix_source(m)->tree &&
	    access(kb_matrix_source(m)->tree, F_OK) < 0) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: source.tree '%s' does not exist: a real run builds kernels from it",
			   kb_matrix_file(m), kb_matrix_source(m)->tree);
		goto fail;
	}
	if (!model_path && (ret = cmd_plan_resolve(p, prog.quiet, &err)))
		goto fail;
	if (kb_plan_ndropped(p) && !allow_dropped) {
		cmd_plan_report_dropped(p, stderr);
		fprintf(stderr, "kbisect: not running a matrix whose requested options do not hold: fix the fragments, or pass --allow-dropped\n");
		ret = 1;
		goto out;
	}
	if (!model_path) {
		/* The real executor: guests on the matrix's first host. */
		const char *uri = kb_matrix_host(m, 0)->uri;
		struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
		unsigned orphans = 0;

		if ((ret = kb_fio_check(kb_matrix_workload(m),
					kb_matrix_file(m), NULL, &err)) ||
		    (ret = kb_guest_connect(uri, &conn, &err)))
			goto fail;
		/* kbisect-* guests whose owner (domain metadata) is gone
		 * are left over from a run that died */
		if ((ret = kb_guest_destroy_orphans(conn, NULL, NULL, &orphans,
						    &err)))
			goto fail;
		if (orphans)
			fprintf(stderr,
				"kbisect: destroyed %u orphan guest%s on %s\n",
				orphans, orphans == 1 ? "" : "s", uri);
		ro.experiment = &exp;
		ro.plan = p; /* builds take its resolution */
		/* qemu guests log their console to a file; this reads
		 * libvirt's console stream instead (docs/guests.md) */
		ro.console_stream = getenv("KBISECT_GUEST_CONSOLE") &&
				    !strcmp(getenv("KBISECT_GUEST_CONSOLE"),
					    "stream");
		if ((ret = kb_realexec_new(m, conn, &ro, &ex, &err)))
			goto fail;
		goto open_store;
	}
	if ((ret = kb_model_load(model_path, &model, &err)) ||
	    (ret = kb_model_time_scale_env(&scale, &err)))
		goto fail;
	if ((ret = kb_model_check_metric(model, kb_matrix_workload(m)->metric,
					 &err)))
		goto fail;
	if ((ret = kb_model_executor_new(model, scale, &ex))) {
		kb_err_set(&err, ret, "invalid model time scale %g", scale);
		goto fail;
	}
open_store:
	if ((ret = cmd_open_store(db, &s, &err)))
		goto fail;

	prog.tty = isatty(STDERR_FILENO);
	popts.progress = on_progress;
	popts.arg = &prog;
	popts.model_text = model ? kb_model_text(model) : NULL;
	ret = kb_pipeline_run(s, p, ex, &popts, &exp, &err);
	if (ret) {
		if (exp)
			fprintf(stderr,
				"kbisect: experiment %lld stopped; what finished is stored\n",
				(long long)exp);
		goto fail;
	}
	if ((ret = cmd_print_results(s, exp, json, &err)))
		goto fail;
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_store_close(s);
	kb_executor_free(ex);
	kb_guest_disconnect(conn);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
