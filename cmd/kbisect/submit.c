/*
 * kbisect submit: validate a matrix (and model) here, then hand its texts
 * to kbisectd, which queues it durably and answers with its id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "fio.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "paths.h"
#include "plan.h"
#include "protocol.h"
#include "realexec.h"
#include "banned.h"

static const struct kb_opt submit_opts[] = {
	KB_OPT_MODEL("run it on the performance model (docs/model.md)"),
	KB_OPT_SOCKET,
	KB_OPT_JSON("print {\"id\": N}"),
	KB_OPT_QUIET("no note on stderr"),
	KB_OPT_ALLOW_DROPPED("submit even when requested options do not hold"),
	KB_OPT_MAX_BOOTS,
	KB_OPT_MAX_SAMPLES,
	KB_OPT_END,
};

static int cmd_submit(const struct kb_args *args);

const struct cmd cmd_submit_entry = {
	.name = "submit",
	.rank = 140,
	.args = "MATRIX",
	.opts = submit_opts,
	.fn = cmd_submit,
	.summary = "queue an experiment on kbisectd and print its id",
	.help = "Validates MATRIX (and MODEL) as `run` does, then sends their texts\n"
		"to the daemon, which stores the experiment and one job per build\n"
		"and boot before it answers: once the id is printed, the experiment\n"
		"survives any crash of the daemon.  A bad matrix is refused here\n"
		"(exit status 2) and never reaches the queue.  See docs/daemon.md.\n"
		CMD_HELP_MACHINES,
	.epilog = "Example:\n"
		  "  kbisect submit kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
		  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n",
};

static int cmd_submit(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	const char *model_path = args->model, *sock = args->socket;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_plan_limits lim;
	struct kb_msg req, reply;
	char *abs = NULL;
	int json = args->json, quiet = args->quiet;
	int allow_dropped = args->allow_dropped, ret;

	memset(&req, 0, sizeof(req));
	memset(&reply, 0, sizeof(reply));
	if ((ret = cmd_plan_limits("submit", args, &lim)))
		return ret;

	/* Everything that can be refused is checked here, before the
	 * daemon hears of it: a bad matrix never reaches the queue. */
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)) ||
	    (ret = kb_plan_check_limits(p, &lim, &err)))
		goto fail;
	if (model_path) {
		if ((ret = kb_model_load(model_path, &model, &err)))
			goto fail;
		if ((ret = kb_model_check_metric(
			     model, kb_matrix_workload(m)->metric, &err)))
			goto fail;
	} else {
		if ((ret = kb_realexec_check_source(p, &err)) ||
		    (ret = kb_realexec_check_guests(p, &err)) ||
		    (ret = kb_realexec_check_kernels(p, &err)) ||
		    (ret = cmd_plan_resolve(p, quiet, &err)) ||
		    (ret = kb_fio_check(kb_matrix_workload(m),
					kb_matrix_file(m), NULL, &err)))
			goto fail;
		if (kb_plan_ndropped(p) && !allow_dropped) {
			cmd_plan_report_dropped(p, stderr);
			fprintf(stderr, "kbisect: not submitting a matrix whose requested options do not hold: fix the fragments, or pass --allow-dropped\n");
			ret = 1;
			goto out;
		}
	}
	/* the daemon resolves the matrix's relative paths from its path,
	 * which must not depend on this process's folder */
	abs = kb_path_absolute(args->pos[0]);

	req.type = KB_MSG_SUBMIT;
	req.matrix = (char *)kb_matrix_text(m);
	req.matrix_path = abs ? abs : (char *)kb_matrix_file(m);
	req.model = model ? (char *)kb_model_text(model) : NULL;
	/* the daemon checks the same caps: the raised ones go with it */
	req.max_boots = (int64_t)lim.max_boots;
	req.max_samples = (int64_t)lim.max_samples;
	if ((ret = cmd_daemon_ask(sock, &req, KB_MSG_SUBMITTED, "a submission",
				  &reply, &err)))
		goto fail;
	if (json)
		printf("{\"id\": %lld}\n", (long long)reply.id);
	else
		printf("%lld\n", (long long)reply.id);
	if (!quiet && !json)
		fprintf(stderr,
			"kbisect: experiment %lld queued: kbisect watch %lld\n",
			(long long)reply.id, (long long)reply.id);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_msg_release(&reply);
	free(abs);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
