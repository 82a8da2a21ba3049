/*
 * The pipeline (pipeline.h): an experiment stored and its boots run to
 * the end, or resumed, and boots added to one of its variants — all
 * through the one engine (lib/pipeline_engine.c) in the order lib/order.h
 * gives.  Builds alone (`kbisect build`) are lib/pipeline_build.c.
 */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "err.h"
#include "mem.h"
#include "order.h"
#include "pipeline_int.h"
#include "spread.h"
#include "banned.h"

/* "SIGTERM" for the usual stop signals. */
static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}

static int stopping(const struct kb_pipeline_opts *o)
{
	return o && o->stop && *o->stop;
}

/* What a call of the engine for @opts tells and stops by. */
static void job_opts(struct engine_job *j, const struct kb_pipeline_opts *o)
{
	if (!o)
		return;
	j->progress = o->progress;
	j->arg = o->arg;
	j->stop = o->stop;
}

/* The engine @opts ask for: over their hosts, else @ex alone. */
static struct engine *engine_for(const struct kb_plan *plan,
				 struct kb_executor *ex,
				 const struct kb_pipeline_opts *o)
{
	return engine_new(o ? o->hosts : NULL, o ? o->nhosts : 0, ex,
			  kb_spread_seed(kb_matrix_text(kb_plan_matrix(plan))),
			  o ? o->drain_after : 0, o ? o->retry_s : 0);
}

/* The boots of @plan experiment @exp has not stored, in the run order,
 * into *@reqs (caller frees); sets *@nreqs, *@ndone (the plan's boots
 * stored) and *@nstored (every boot stored). */
static int missing_boots(struct kb_store *s, int64_t exp,
			 const struct kb_plan *plan, struct engine_req **reqs,
			 size_t *nreqs, size_t *ndone, unsigned *nstored,
			 struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(plan));
	size_t n = kb_plan_nvariants(plan), total = kb_plan_nboots(plan);
	struct kb_store_boot_host *have = NULL;
	struct kb_order_boot *order;
	struct kb_store_info info;
	unsigned char *stored;
	size_t nb = 0, i, k;
	uint64_t seed = 0;
	int ret;

	*reqs = NULL;
	*nreqs = *ndone = 0;
	if ((ret = kb_store_experiment_get(s, exp, &info, err)))
		return ret;
	ret = kb_order_stored_seed(&info, plan, &seed, err);
	kb_store_info_release(&info);
	if (ret || (ret = kb_store_boot_hosts(s, exp, &have, &nb, err)))
		return ret;
	*nstored = (unsigned)nb;
	stored = kb_calloc(n * rep->boots + 1, 1);
	for (i = 0; i < nb; i++)
		if (have[i].variant_idx < n && have[i].boot_no &&
		    have[i].boot_no <= rep->boots)
			stored[have[i].variant_idx * rep->boots +
			       have[i].boot_no - 1] = 1;
	kb_store_boot_hosts_free(have, nb);
	order = kb_calloc(total + 1, sizeof(*order));
	k = kb_order_run(plan, seed, stored, order);
	*reqs = kb_calloc(k + 1, sizeof(**reqs));
	for (i = 0; i < k; i++) {
		(*reqs)[i].v = kb_plan_variant(plan, order[i].variant_idx);
		(*reqs)[i].boot_no = order[i].boot_no;
		(*reqs)[i].round = order[i].round;
		(*reqs)[i].host = order[i].host;
	}
	*nreqs = k;
	*ndone = total - k;
	free(order);
	free(stored);
	return 0;
}

/* Run experiment @exp's missing boots on the engine; returns as it. */
static int run_missing(struct kb_store *s, int64_t exp,
		       const struct kb_plan *plan, struct kb_executor *ex,
		       const struct kb_pipeline_opts *o, size_t *done,
		       size_t *total, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(plan);
	size_t i, n = kb_plan_nvariants(plan), *border;
	const struct kb_variant **built_first;
	struct engine_job j;
	struct engine_req *reqs = NULL;
	struct engine *e;
	struct kb_err serr = KB_ERR_INIT;
	int ret;

	memset(&j, 0, sizeof(j));
	*total = kb_plan_nboots(plan);
	*done = 0;
	if ((ret = missing_boots(s, exp, plan, &reqs, &j.nreqs, done, &j.seq0,
				 err)))
		return ret;
	j.s = s;
	j.exp = exp;
	j.reqs = reqs;
	j.runs = kb_matrix_repeat(kb_plan_matrix(plan))->runs_per_boot;
	j.builds_total = kb_plan_nbuilds(plan);
	j.boots_total = *total;
	j.total = (unsigned)*total;
	j.boots_done = *done;
	j.overlap = o && o->nhosts && o->overlap;
	/* blocks: every kernel first, in build order; then the rounds (the
	 * sequential order has its builds in its boots' order already) */
	border = kb_calloc(n + 1, sizeof(*border));
	built_first = kb_calloc(n + 1, sizeof(*built_first));
	j.in_order = kb_matrix_repeat(m)->order == KB_ORDER_BLOCKS;
	if (j.in_order) {
		kb_build_plan_order(plan, border);
		for (i = 0; i < n; i++)
			built_first[i] = kb_plan_variant(plan, border[i]);
		j.build_order = built_first;
		j.nbuild_order = n;
	}
	job_opts(&j, o);
	e = engine_for(plan, ex, o);
	ret = engine_run(e, &j, err);
	engine_free(e);
	free(built_first);
	free(border);
	free(reqs);
	*done = j.boots_done;
	if (o && o->nhosts) {
		if (o->overlap_s)
			*o->overlap_s = j.overlap_s;
		if (kb_store_overlap_add(s, exp, j.overlap_s, &serr) && !ret)
			ret = kb_err_set(err, serr.code, "%s", serr.msg);
	}
	return ret;
}

static int finish(struct kb_store *s, int64_t exp,
		  const struct kb_pipeline_opts *o, size_t done, size_t total,
		  int ret, struct kb_err *err)
{
	struct kb_err ignored = KB_ERR_INIT;

	if (ret == 0) {
		ret = kb_store_experiment_finish(s, exp, "done", NULL, err);
	} else if (stopping(o)) {
		char *why = kb_asprintf("interrupted by %s after %zu of %zu boots",
				  signal_name(*o->stop), done, total);
		kb_store_experiment_finish(s, exp, "interrupted", why,
					   &ignored);
		/* the cause, not the step it cut short */
		kb_err_clear(err);
		kb_err_set(err, KB_EFAIL, "experiment %lld %s", (long long)exp,
			   why);
		free(why);
	} else {
		kb_store_experiment_finish(s, exp, "failed",
					   err ? err->msg : NULL, &ignored);
	}
	return ret;
}

int kb_pipeline_resume(struct kb_store *s, int64_t exp,
		       const struct kb_plan *plan, struct kb_executor *ex,
		       const struct kb_pipeline_opts *opts, struct kb_err *err)
{
	size_t done = 0, total = 0;
	int ret = run_missing(s, exp, plan, ex, opts, &done, &total, err);

	return finish(s, exp, opts, done, total, ret, err);
}

int kb_pipeline_run(struct kb_store *s, const struct kb_plan *plan,
		    struct kb_executor *ex, const struct kb_pipeline_opts *opts,
		    int64_t *exp, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(plan);
	struct kb_store_experiment e;
	int ret;

	*exp = 0;
	memset(&e, 0, sizeof(e));
	e.name = kb_matrix_name(m);
	e.matrix_path = kb_matrix_file(m);
	e.matrix_text = kb_matrix_text(m);
	e.model_text = opts ? opts->model_text : NULL;
	e.executor = kb_executor_name(ex);
	e.design = kb_design_name(kb_matrix_design(m));
	e.generators = kb_design_generators(kb_plan_design(plan));
	e.metric = kb_matrix_workload(m)->metric;
	e.boots = kb_matrix_repeat(m)->boots;
	e.runs_per_boot = kb_matrix_repeat(m)->runs_per_boot;
	e.run_order = kb_order_name(kb_matrix_repeat(m)->order);
	e.order_seed = kb_order_seed_new(plan, kb_executor_replays(ex));
	e.nvariants = kb_plan_nvariants(plan);
	e.variants = kb_plan_variants(plan);
	ret = kb_store_experiment_create(s, &e, exp, err);
	if (ret)
		return ret;
	return kb_pipeline_resume(s, *exp, plan, ex, opts, err);
}

/*
 * The build key experiment @exp stored for variant @idx into *@key
 * (caller frees; NULL when it has none): what kb_plan_resolve() gave it on
 * real kernels, which a plan rebuilt from the stored matrix does not know.
 */
static int stored_build_key(struct kb_store *s, int64_t exp,
			    const struct kb_plan *plan, unsigned idx,
			    char **key, struct kb_err *err)
{
	const char *metric = kb_matrix_workload(kb_plan_matrix(plan))->metric;
	struct kb_store_variant *vs = NULL;
	size_t n = 0, i;
	int ret;

	*key = NULL;
	ret = kb_store_variants(s, exp, metric, &vs, &n, err);
	for (i = 0; i < n; i++) {
		if (vs[i].idx == idx && vs[i].build_key && !*key)
			*key = kb_strdup(vs[i].build_key);
		kb_store_variant_release(&vs[i]);
	}
	free(vs);
	return ret;
}

/* How many boots experiment @exp has stored, into *@n. */
static int stored_boots(struct kb_store *s, int64_t exp, unsigned *n,
			struct kb_err *err)
{
	struct kb_store_boot_host *have = NULL;
	size_t nb = 0;
	int ret = kb_store_boot_hosts(s, exp, &have, &nb, err);

	kb_store_boot_hosts_free(have, nb);
	*n = (unsigned)nb;
	return ret;
}

/* kb_pipeline_add_boots(), the boots in round @round (0: none). */
static int add_boots(struct kb_store *s, int64_t exp,
		     const struct kb_plan *plan, struct kb_executor *ex,
		     unsigned variant_idx, unsigned nboots, unsigned round,
		     const struct kb_pipeline_opts *opts, struct kb_err *err)
{
	const struct kb_variant *pv = kb_plan_variant(plan, variant_idx);
	struct kb_order_boot *order = NULL;
	struct engine_req *reqs = NULL;
	struct engine_job j;
	struct engine *e;
	struct kb_variant v;
	char *key = NULL;
	unsigned last, i, nstored = 0;
	int ret;

	if (!pv)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has no variant %u",
				  (long long)exp, variant_idx);
	if ((ret = kb_store_last_boot(s, exp, variant_idx, &last, err)) ||
	    (ret = stored_boots(s, exp, &nstored, err)))
		return ret;
	/* the variant as the experiment stored it: its build (and image)
	 * is found by the stored key, so a cached kernel is not rebuilt */
	if ((ret = stored_build_key(s, exp, plan, variant_idx, &key, err)))
		return ret;
	v = *pv;
	if (key)
		v.build_key = key;
	order = kb_calloc(nboots + 1, sizeof(*order));
	reqs = kb_calloc(nboots + 1, sizeof(*reqs));
	kb_order_added(variant_idx, last, nboots, order);
	for (i = 0; i < nboots; i++) {
		reqs[i].v = &v;
		reqs[i].boot_no = order[i].boot_no;
		reqs[i].round = round ? round : order[i].round;
		reqs[i].host = order[i].host;
	}
	memset(&j, 0, sizeof(j));
	j.s = s;
	j.exp = exp;
	j.reqs = reqs;
	j.nreqs = nboots;
	j.runs = kb_matrix_repeat(kb_plan_matrix(plan))->runs_per_boot;
	j.builds_total = 1;
	j.boots_total = nboots;
	j.seq0 = nstored;
	j.total = (unsigned)kb_plan_nboots(plan);
	job_opts(&j, opts);
	/* one boot at a time on @ex, which spreads them over hosts when it
	 * is the executor over hosts (pipeline_hostexec.c) */
	e = engine_new(NULL, 0, ex, 0, 0, 0);
	ret = engine_run(e, &j, err);
	engine_free(e);
	free(reqs);
	free(order);
	free(key);
	return ret;
}

int kb_pipeline_add_boots(struct kb_store *s, int64_t exp,
			  const struct kb_plan *plan, struct kb_executor *ex,
			  unsigned variant_idx, unsigned nboots,
			  const struct kb_pipeline_opts *opts,
			  struct kb_err *err)
{
	return add_boots(s, exp, plan, ex, variant_idx, nboots, 0, opts, err);
}

int kb_pipeline_add_round_boot(struct kb_store *s, int64_t exp,
			       const struct kb_plan *plan,
			       struct kb_executor *ex, unsigned variant_idx,
			       unsigned round,
			       const struct kb_pipeline_opts *opts,
			       struct kb_err *err)
{
	return add_boots(s, exp, plan, ex, variant_idx, 1, round, opts, err);
}
