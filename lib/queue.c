/*
 * queue: submitted experiments as jobs, and the steps that run them under
 * a lease (queue.h, docs/daemon.md).
 */
#include "queue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "pipeline.h"
#include "model.h"
#include "protocol.h"
#include "realexec.h"
#include "rng.h"
#include "order.h"
#include "runner.h"
#include "spread.h"
#include "banned.h"

struct kb_queue_exp {
	int64_t id;
	struct kb_matrix *m;
	struct kb_plan *plan;
	struct kb_model *model; /* NULL: real guests */
	double time_scale;
	char tag[KB_STORE_TAG_LEN + 1]; /* its database's, for guest names */
};

static int check_model(const struct kb_matrix *m, const char *text,
		       struct kb_model **out, struct kb_err *err)
{
	int ret;

	*out = NULL;
	if ((ret = kb_model_parse_buffer(text, strlen(text), "model.yaml",
					 out, err)))
		return ret;
	if ((ret = kb_model_check_metric(*out, kb_matrix_workload(m)->metric,
					 err))) {
		kb_model_free(*out);
		*out = NULL;
	}
	return ret;
}

int kb_queue_submit(struct kb_store *s, const struct kb_queue_submission *sub,
		    int64_t *id, struct kb_err *err)
{
	return kb_queue_submit_limited(s, sub, NULL, id, err);
}

int kb_queue_submit_limited(struct kb_store *s,
			    const struct kb_queue_submission *sub,
			    const struct kb_plan_limits *lim, int64_t *id,
			    struct kb_err *err)
{
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_store_experiment e;
	struct kb_store_job_spec *jobs = NULL;
	const struct kb_repeat *rep;
	struct kb_spread *sp = NULL;
	struct kb_order_boot *boots = NULL;
	size_t *order = NULL, i, k, n, njobs = 0, nboots;
	uint64_t seed;
	unsigned seq;
	int ret;

	*id = 0;
	if (!sub->matrix_text)
		return kb_err_set(err, KB_EINPUT, "no matrix was submitted");
	if ((ret = kb_plan_from_text(sub->matrix_text, sub->matrix_path, &m, &p,
			     err)) ||
	    (ret = kb_plan_check_limits(p, lim, err)))
		goto out;
	if (sub->model_text &&
	    (ret = check_model(m, sub->model_text, &model, err)))
		goto out;
	/* real kernels: what `submit` checks, for a raw SUBMIT too, before
	 * the experiment is stored */
	if (!sub->model_text && (ret = kb_realexec_check_source(p, err)))
		goto out;
	rep = kb_matrix_repeat(m);
	n = kb_plan_nvariants(p);
	order = kb_calloc(n ? n : 1, sizeof(*order));
	kb_build_plan_order(p, order);
	jobs = kb_calloc(n + n * rep->boots + 1, sizeof(*jobs));
	/* one build job per distinct build key, in build order */
	for (i = 0, seq = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, order[i]);

		for (k = 0; k < i; k++)
			if (!strcmp(kb_plan_variant(p, order[k])->build_key,
				    v->build_key))
				break;
		if (k < i)
			continue;
		jobs[njobs].kind = KB_STORE_JOB_BUILD;
		jobs[njobs].variant_idx = v->idx;
		jobs[njobs++].seq = seq++;
	}
	/* boots in the run order (lib/order.h), each on its round's host
	 * or one the spread gives it (lib/spread.h) */
	sp = kb_spread_new(n, kb_matrix_nhosts(m),
			   kb_spread_seed(sub->matrix_text));
	boots = kb_calloc(n * rep->boots + 1, sizeof(*boots));
	seed = kb_order_seed_new(p, model != NULL);
	nboots = kb_order_run(p, seed, NULL, boots);
	for (i = 0, seq = 0; i < nboots; i++) {
		size_t h = boots[i].host;

		/* blocks over several hosts: the round's host; else the
		 * spread's */
		if (h < kb_matrix_nhosts(m))
			kb_spread_count(sp, boots[i].variant_idx, h);
		else
			h = kb_spread_pick(sp, boots[i].variant_idx);
		jobs[njobs].kind = KB_STORE_JOB_BOOT;
		jobs[njobs].variant_idx = boots[i].variant_idx;
		jobs[njobs].boot_no = boots[i].boot_no;
		jobs[njobs].host = h < kb_matrix_nhosts(m)
					   ? kb_matrix_host(m, h)->uri
					   : NULL;
		jobs[njobs++].seq = seq++;
	}
	memset(&e, 0, sizeof(e));
	e.name = kb_matrix_name(m);
	e.matrix_path = sub->matrix_path;
	e.matrix_text = sub->matrix_text;
	e.model_text = sub->model_text;
	e.executor = model ? "model" : "libvirt";
	e.design = kb_design_name(kb_matrix_design(m));
	e.generators = kb_design_generators(kb_plan_design(p));
	e.metric = kb_matrix_workload(m)->metric;
	e.boots = rep->boots;
	e.runs_per_boot = rep->runs_per_boot;
	e.run_order = kb_order_name(rep->order);
	e.order_seed = seed;
	e.nvariants = n;
	e.variants = kb_plan_variants(p);
	ret = kb_store_experiment_submit(s, &e, jobs, njobs, id, err);
out:
	kb_spread_free(sp);
	free(boots);
	free(jobs);
	free(order);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}

void kb_queue_exp_free(struct kb_queue_exp *x)
{
	if (!x)
		return;
	kb_plan_free(x->plan);
	kb_matrix_free(x->m);
	kb_model_free(x->model);
	free(x);
}

int kb_queue_exp_load(struct kb_store *s, int64_t id, double time_scale,
		      struct kb_queue_exp **out, struct kb_err *err)
{
	struct kb_queue_exp *x = kb_calloc(1, sizeof(*x));
	struct kb_store_experiment_text t;
	int ret;

	*out = NULL;
	memset(&t, 0, sizeof(t));
	x->id = id;
	x->time_scale = time_scale;
	snprintf(x->tag, sizeof(x->tag), "%s",
		 kb_store_tag(s) ? kb_store_tag(s) : "");
	if ((ret = kb_store_experiment_text(s, id, &t, err)))
		goto out;
	if ((ret = kb_plan_from_text(t.matrix_yaml, t.matrix_path, &x->m, &x->plan,
			     err)) ||
	    (t.model_yaml &&
	     (ret = check_model(x->m, t.model_yaml, &x->model, err)))) {
		struct kb_err inner = *err;

		kb_err_clear(err);
		ret = kb_err_set(err, KB_EFAIL,
				 "experiment %lld no longer plans: %s",
				 (long long)id, inner.msg);
		goto out;
	}
	if (!x->model && kb_matrix_source(x->m)->tree) {
		struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
		struct kb_err ignored = KB_ERR_INIT;

		/* when this fails the keys stay the matrix's and each build
		 * resolves its variant alone (lib/exec/realexec.h) */
		kb_plan_resolve(x->plan, &o, &ignored);
	}
	*out = x;
	x = NULL;
out:
	kb_store_experiment_text_release(&t);
	kb_queue_exp_free(x);
	return ret;
}

int64_t kb_queue_exp_id(const struct kb_queue_exp *x)
{
	return x->id;
}

const struct kb_matrix *kb_queue_exp_matrix(const struct kb_queue_exp *x)
{
	return x->m;
}

const struct kb_plan *kb_queue_exp_plan(const struct kb_queue_exp *x)
{
	return x->plan;
}

int kb_queue_exp_is_model(const struct kb_queue_exp *x)
{
	return x->model != NULL;
}

int kb_queue_exp_executor(const struct kb_queue_exp *x, const char *host,
			  struct kb_executor **ex, void **conn,
			  struct kb_err *err)
{
	struct kb_guest_conn *c = NULL;
	int ret;

	*conn = NULL;
	ret = kb_runner_step(x->m, x->plan, x->model, x->time_scale, host,
			     &x->id, x->tag, ex, &c, err);
	*conn = c;
	return ret;
}

void kb_queue_conn_free(void *conn)
{
	kb_runner_conn_free(conn);
}

static const struct kb_variant *job_variant(const struct kb_queue_exp *x,
					    const struct kb_store_job *j,
					    struct kb_err *err)
{
	const struct kb_variant *v = kb_plan_variant(x->plan, j->variant_idx);

	if (!v || v->idx != j->variant_idx)
		kb_err_set(err, KB_EFAIL,
			   "job %lld names variant %u, which experiment %lld does not plan",
			   (long long)j->id, j->variant_idx, (long long)x->id);
	return v && v->idx == j->variant_idx ? v : NULL;
}

int kb_queue_run_build(struct kb_store *s, const struct kb_queue_exp *x,
		       const struct kb_store_job *j, const char *owner,
		       struct kb_executor *ex, struct kb_err *err)
{
	const struct kb_variant *v = job_variant(x, j, err);
	struct kb_build_result b;
	double t0 = kb_monotime();
	int64_t id = 0;
	int ret;

	memset(&b, 0, sizeof(b));
	if (!v)
		return KB_EFAIL;
	if ((ret = kb_pipeline_build(s, ex, v, &b, &id, NULL, err)))
		return ret;
	kb_build_result_release(&b);
	return kb_store_job_done(s, j->id, owner, kb_monotime() - t0, err);
}

int kb_queue_run_boot(struct kb_store *s, const struct kb_queue_exp *x,
		      const struct kb_store_job *j, const char *owner,
		      struct kb_executor *ex, struct kb_err *err)
{
	char *failure = NULL;
	int ret = kb_queue_run_boot_host(s, x, j, owner, ex, &failure, err);

	free(failure);
	return ret;
}

int kb_queue_host_failed(struct kb_store *s, const struct kb_store_job *j,
			 const char *owner, const char *reason,
			 char **host_failure, struct kb_err *err)
{
	int ret = kb_store_job_host_failed(s, j, owner, reason, err);

	if (ret == 0 && host_failure)
		*host_failure = kb_strdup(reason ? reason : "unknown");
	return ret;
}

int kb_queue_run_boot_host(struct kb_store *s, const struct kb_queue_exp *x,
			   const struct kb_store_job *j, const char *owner,
			   struct kb_executor *ex, char **host_failure,
			   struct kb_err *err)
{
	const struct kb_variant *v = job_variant(x, j, err);
	const struct kb_repeat *rep = kb_matrix_repeat(x->m);
	struct kb_build_result b;
	struct kb_boot_result res;
	double t0 = kb_monotime();
	int64_t build_id = 0;
	struct kb_boot_at at;
	char started[32];
	int ret;

	memset(&b, 0, sizeof(b));
	memset(&res, 0, sizeof(res));
	if (host_failure)
		*host_failure = NULL;
	if (!v)
		return KB_EFAIL;
	if ((ret = kb_pipeline_build(s, ex, v, &b, &build_id, NULL, err)))
		return ret;
	kb_now_iso(started, sizeof(started));
	at.seq = j->seq + 1;
	at.total = (unsigned)kb_plan_nboots(x->plan);
	if ((ret = kb_pipeline_boot_at(ex, v, &b, j->boot_no,
				       rep->runs_per_boot, &at, &res, err))) {
		/* the executor could not work on this host: its failure,
		 * not the variant's; the job runs again.  What this machine
		 * makes for the boot (KB_ELOCAL) is no host's: the error
		 * stops the experiment, and the host serves the others */
		struct kb_err why = *err;

		if (ret == KB_ELOCAL)
			goto out;

		kb_err_clear(err);
		ret = kb_queue_host_failed(s, j, owner, why.msg, host_failure,
					   err);
		goto out;
	}
	/* where it stands in the run: its job's place in the stored order
	 * (lib/order.h), its round in blocks */
	res.round = kb_order_round(x->plan, j->boot_no);
	res.seq = at.seq;
	snprintf(res.started_at, sizeof(res.started_at), "%s", started);
	if (res.status == KB_BOOT_LIBVIRT_ERROR)
		ret = kb_queue_host_failed(s, j, owner, res.reason,
					   host_failure, err);
	else
		ret = kb_store_job_boot_done(s, j, owner, build_id, &res,
					     kb_monotime() - t0, err);
out:
	kb_boot_result_release(&res);
	kb_build_result_release(&b);
	return ret;
}

double kb_queue_eta(const struct kb_store_progress *p, unsigned build_slots,
		    unsigned boot_slots)
{
	unsigned builds_left, boots_left;
	double t = 0;

	if (!p->state ||
	    (strcmp(p->state, "queued") && strcmp(p->state, "running")))
		return 0;
	if (p->cancel_requested)
		return 0;
	builds_left = p->builds_total - p->builds_done;
	boots_left = p->boots_total - p->boots_done;
	if (build_slots == 0)
		build_slots = 1;
	if (builds_left) {
		if (isnan(p->build_mean_s))
			return NAN;
		t += builds_left * p->build_mean_s / build_slots;
	}
	if (boots_left) {
		/* no host can run them now (all drained): no telling when */
		if (isnan(p->boot_mean_s) || !boot_slots)
			return NAN;
		t += boots_left * p->boot_mean_s / boot_slots;
	}
	return t;
}

static char *dup_or_null(const char *s)
{
	return s ? kb_strdup(s) : NULL;
}

void kb_queue_progress_msg(const struct kb_store_progress *p, double eta_s,
			   struct kb_msg_progress *out)
{
	memset(out, 0, sizeof(*out));
	out->id = p->id;
	out->name = dup_or_null(p->name);
	out->state = dup_or_null(p->state);
	out->executor = dup_or_null(p->executor);
	out->error = dup_or_null(p->error);
	out->current = dup_or_null(p->current);
	out->hosts = dup_or_null(p->hosts);
	out->cancel_requested = p->cancel_requested;
	out->variants_done = p->variants_done;
	out->variants_total = p->variants_total;
	out->builds_done = p->builds_done;
	out->builds_total = p->builds_total;
	out->builds_running = p->builds_running;
	out->boots_done = p->boots_done;
	out->boots_total = p->boots_total;
	out->boots_running = p->boots_running;
	out->build_mean_s = p->build_mean_s;
	out->boot_mean_s = p->boot_mean_s;
	out->elapsed_s = p->elapsed_s;
	out->eta_s = eta_s;
}

char *kb_queue_instance_id(void)
{
	char host[256] = "localhost";

	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	return kb_asprintf("%s:%ld:%016llx", host, (long)getpid(),
			   (unsigned long long)kb_rng_seed_fresh());
}
