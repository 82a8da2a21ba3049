/*
 * kbisect resume: carry on an experiment a `kbisect run` left unfinished
 * (interrupted by a signal, killed, or stopped by an error), from the
 * boots it stored: re-plan its stored matrix (and model), check that the
 * plan is still the one it ran, and execute the missing boots as `run`
 * does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "runner.h"
#include "matrix.h"
#include "model.h"
#include "plan.h"
#include "store.h"
#include "banned.h"

static const struct kb_opt resume_opts[] = {
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_END,
};

static int cmd_resume(const struct kb_args *args);

const struct cmd cmd_resume_entry = {
	.name = "resume",
	.rank = 25,
	.args = "ID",
	.opts = resume_opts,
	.fn = cmd_resume,
	.summary = "carry on an interrupted `kbisect run` from its stored boots",
	.help = "Re-plans experiment ID's stored matrix (on its stored model, or on\n"
		"real kernels and guests as it ran), checks that its variants and\n"
		"build keys are still the ones it ran, and runs the boots it does not\n"
		"have yet: none is run twice, none is lost.  Then prints the results\n"
		"as `run` does.  Refuses an experiment that is done, one the daemon\n"
		"runs (kbisectd resumes its own), and one whose kbisect process still\n"
		"runs.  SIGINT and SIGTERM stop it as they stop `run`.\n",
	.epilog = "Example:\n  kbisect resume 7\n",
};

/* Refuse what kb_store_experiment_take() would, before planning. */
static int check_resumable(const struct kb_store_info *i, struct kb_err *err)
{
	if (i->daemon)
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld runs in kbisectd, which resumes it itself",
				  (long long)i->id);
	if (!strcmp(i->state, "done"))
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld is done: nothing to resume",
				  (long long)i->id);
	if (!strcmp(i->state, "running"))
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld is still running (pid %ld on %s): stop that first",
				  (long long)i->id, i->owner_pid,
				  i->owner_host ? i->owner_host : "?");
	return 0;
}

/*
 * The plan must make the variants the experiment stored, with the same
 * build keys: resuming on a changed tree or matrix would mix kernels.
 */
static int check_same_plan(struct kb_store *s, const struct kb_store_info *i,
			   const struct kb_plan *p, struct kb_err *err)
{
	struct kb_store_variant *v = NULL;
	size_t n = 0, k;
	int ret;

	if ((ret = kb_store_variants(s, i->id, i->metric, &v, &n, err)))
		return ret;
	if (n != kb_plan_nvariants(p))
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld has %zu variants, its matrix now plans %zu: it cannot be resumed",
				 (long long)i->id, n, kb_plan_nvariants(p));
	for (k = 0; !ret && k < n; k++) {
		const struct kb_variant *pv = kb_plan_variant(p, v[k].idx);

		if (!pv || strcmp(pv->label, v[k].label))
			ret = kb_err_set(err, KB_EINPUT,
					 "experiment %lld's variant #%u '%s' is not its matrix's plan now: it cannot be resumed",
					 (long long)i->id, v[k].idx,
					 v[k].label);
		else if (v[k].build_key &&
			 strcmp(pv->build_key, v[k].build_key))
			ret = kb_err_set(err, KB_EINPUT,
					 "experiment %lld's variant #%u '%s' was built with key %.12s, the plan now gives %.12s (did source.tree change?): resuming would mix kernels",
					 (long long)i->id, v[k].idx,
					 v[k].label, v[k].build_key,
					 pv->build_key);
	}
	for (k = 0; k < n; k++)
		kb_store_variant_release(&v[k]);
	free(v);
	return ret;
}

static int cmd_resume(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_experiment_text t;
	struct kb_store_info info;
	struct kb_runner *r = NULL;
	struct kb_store *s = NULL;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	int64_t id;
	int ret;

	memset(&t, 0, sizeof(t));
	memset(&info, 0, sizeof(info));
	if (cmd_parse_id(args->pos[0], &id) < 0)
		return cmd_usage_error("resume",
				       "'%s' is not an experiment ID (a positive number; see kbisect history)",
				       args->pos[0]);
	if ((ret = cmd_open_store(args->db, &s, &err)) ||
	    (ret = kb_store_experiment_get(s, id, &info, &err)) ||
	    (ret = check_resumable(&info, &err)) ||
	    (ret = kb_store_experiment_text(s, id, &t, &err)))
		goto fail;
	if ((ret = kb_plan_from_text(t.matrix_yaml, t.matrix_path, &m, &p,
				     &err))) {
		struct kb_err inner = err;

		kb_err_clear(&err);
		kb_err_set(&err, inner.code,
			   "experiment %lld's matrix no longer plans: %s",
			   (long long)id, inner.msg);
		goto fail;
	}
	if (t.model_yaml) {
		if ((ret = kb_model_parse_buffer(t.model_yaml,
						 strlen(t.model_yaml),
						 "model.yaml", &model, &err)))
			goto fail;
	} else if ((ret = cmd_plan_resolve(p, args->quiet, &err))) {
		goto fail;
	}
	if ((ret = check_same_plan(s, &info, p, &err)) ||
	    (ret = cmd_runner_open_hosts(&r, p, model, args->quiet, &err)) ||
	    (ret = kb_store_experiment_take(s, id, &err)))
		goto fail;
	kb_runner_tag(r, kb_store_tag(s));
	if (!args->quiet)
		fprintf(stderr,
			"kbisect: resuming experiment %lld \"%s\": %u of %u boots stored\n",
			(long long)id, info.name, info.nboots_done,
			info.nvariants * info.boots);
	*kb_runner_experiment(r) = id;
	ret = cmd_runner_go(r, s, p, NULL, args);
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_runner_free(r);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	kb_store_experiment_text_release(&t);
	kb_store_info_release(&info);
	kb_store_close(s);
	return ret;
}
