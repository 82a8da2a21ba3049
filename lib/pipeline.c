#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "banned.h"

/* A build known in this run: its result and database row. */
struct known_build {
	const char *key;
	struct kb_build_result result;
	int64_t id;
};

struct run {
	struct kb_store *s;
	int64_t exp;
	const struct kb_plan *plan;
	struct kb_executor *ex;
	const struct kb_pipeline_opts *opts;
	struct known_build *builds;
	size_t nbuilds;
	struct kb_progress ev;
	double t0;
};

static void report(struct run *r, enum kb_progress_kind kind,
		   const struct kb_variant *v, unsigned boot_no,
		   const char *status, const char *reason)
{
	if (!r->opts || !r->opts->progress)
		return;
	r->ev.kind = kind;
	r->ev.variant = v;
	r->ev.boot_no = boot_no;
	r->ev.status = status;
	r->ev.reason = reason;
	r->ev.elapsed_s = kb_monotime() - r->t0;
	r->opts->progress(&r->ev, r->opts->arg);
}

int kb_pipeline_build(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_variant *v, struct kb_build_result *out,
		      int64_t *build_id, int *reused, struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (reused)
		*reused = 1;
	ret = kb_store_build_get(s, v->build_key, out, build_id, &lookup);
	if (ret != KB_ENOTFOUND)
		return ret ? kb_err_set(err, ret, "%s", lookup.msg) : 0;
	if (reused)
		*reused = 0;
	if ((ret = kb_executor_build(ex, v, out, err)))
		return ret;
	kb_err_clear(&lookup);
	ret = kb_store_build_put(s, v->build_key, kb_executor_name(ex), out,
				 build_id, &lookup);
	if (ret == KB_EEXISTS) {
		/* stored meanwhile by another worker: that one stands */
		kb_build_result_release(out);
		kb_err_clear(&lookup);
		ret = kb_store_build_get(s, v->build_key, out, build_id,
					 &lookup);
	}
	if (ret) {
		kb_build_result_release(out);
		return kb_err_set(err, ret, "%s", lookup.msg);
	}
	return 0;
}

int kb_pipeline_boot(struct kb_executor *ex, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err)
{
	if (build->status == KB_BUILD_OK)
		return kb_executor_boot(ex, v, build, boot_no, runs, out, err);
	memset(out, 0, sizeof(*out));
	out->status = KB_BOOT_BUILD_FAILED;
	out->reason = kb_strdup(build->reason ? build->reason
					      : "build failed");
	return 0;
}

/* The build of @v: from this run, or through kb_pipeline_build(). */
static int get_build(struct run *r, const struct kb_variant *v,
		     struct known_build **out, struct kb_err *err)
{
	struct known_build *b;
	size_t i;
	int reused, ret;

	for (i = 0; i < r->nbuilds; i++) {
		if (!strcmp(r->builds[i].key, v->build_key)) {
			*out = &r->builds[i];
			return 0;
		}
	}
	r->builds = kb_reallocarray(r->builds, r->nbuilds + 1,
				    sizeof(*r->builds));
	b = &r->builds[r->nbuilds];
	memset(b, 0, sizeof(*b));
	b->key = v->build_key;
	ret = kb_store_build_get(r->s, v->build_key, &b->result, &b->id,
				 NULL);
	reused = ret == 0;
	if (!reused) {
		report(r, KB_PROGRESS_BUILD_START, v, 0, NULL, NULL);
		if ((ret = kb_pipeline_build(r->s, r->ex, v, &b->result,
					     &b->id, &reused, err)))
			return ret;
	}
	r->nbuilds++;
	r->ev.builds_done++;
	report(r, reused ? KB_PROGRESS_BUILD_REUSED : KB_PROGRESS_BUILD_DONE,
	       v, 0, kb_build_status_name(b->result.status),
	       b->result.reason);
	*out = b;
	return 0;
}

static int do_boot(struct run *r, const struct kb_variant *v,
		   struct known_build *b, unsigned boot_no, unsigned runs,
		   struct kb_err *err)
{
	struct kb_boot_result res;
	int ret;

	report(r, KB_PROGRESS_BOOT_START, v, boot_no, NULL, NULL);
	if ((ret = kb_pipeline_boot(r->ex, v, &b->result, boot_no, runs, &res,
				    err)))
		return ret;
	ret = kb_store_boot_put(r->s, r->exp, v->idx, boot_no, b->id, &res,
				err);
	if (ret == 0) {
		r->ev.boots_done++;
		report(r, KB_PROGRESS_BOOT_DONE, v, boot_no,
		       kb_boot_status_name(res.status), res.reason);
	}
	kb_boot_result_release(&res);
	return ret;
}

static int execute(struct run *r, struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(r->plan));
	size_t i, n = kb_plan_nvariants(r->plan);
	size_t *order = kb_calloc(n ? n : 1, sizeof(*order));
	unsigned boot_no;
	int ret = 0;

	r->t0 = kb_monotime();
	r->ev.builds_total = kb_plan_nbuilds(r->plan);
	r->ev.boots_total = kb_plan_nboots(r->plan);
	/* builds from source: consecutive builds differ as little as
	 * possible (lib/build.h); plan order otherwise */
	kb_build_plan_order(r->plan, order);
	for (i = 0; i < n && ret == 0; i++) {
		const struct kb_variant *v = kb_plan_variant(r->plan, order[i]);
		struct known_build *b = NULL;

		for (boot_no = 1; boot_no <= rep->boots; boot_no++) {
			int exists = 0;

			if ((ret = kb_store_boot_exists(r->s, r->exp, v->idx,
							boot_no, &exists,
							err)))
				break;
			if (exists) {
				r->ev.boots_done++;
				continue;
			}
			if (!b && (ret = get_build(r, v, &b, err)))
				break;
			if ((ret = do_boot(r, v, b, boot_no,
					   rep->runs_per_boot, err)))
				break;
		}
	}
	free(order);
	return ret;
}

static int finish(struct run *r, int ret, struct kb_err *err)
{
	struct kb_err ignored = KB_ERR_INIT;
	size_t i;

	if (ret == 0)
		ret = kb_store_experiment_finish(r->s, r->exp, "done", NULL,
						 err);
	else
		kb_store_experiment_finish(r->s, r->exp, "failed",
					   err ? err->msg : NULL, &ignored);
	for (i = 0; i < r->nbuilds; i++)
		kb_build_result_release(&r->builds[i].result);
	free(r->builds);
	return ret;
}

int kb_pipeline_resume(struct kb_store *s, int64_t exp,
		       const struct kb_plan *plan, struct kb_executor *ex,
		       const struct kb_pipeline_opts *opts, struct kb_err *err)
{
	struct run r;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.exp = exp;
	r.plan = plan;
	r.ex = ex;
	r.opts = opts;
	return finish(&r, execute(&r, err), err);
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
	e.nvariants = kb_plan_nvariants(plan);
	e.variants = kb_plan_variants(plan);
	ret = kb_store_experiment_create(s, &e, exp, err);
	if (ret)
		return ret;
	return kb_pipeline_resume(s, *exp, plan, ex, opts, err);
}

int kb_pipeline_add_boots(struct kb_store *s, int64_t exp,
			  const struct kb_plan *plan, struct kb_executor *ex,
			  unsigned variant_idx, unsigned nboots,
			  struct kb_err *err)
{
	const struct kb_variant *v = kb_plan_variant(plan, variant_idx);
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(plan));
	struct known_build *b = NULL;
	struct run r;
	unsigned last, i;
	int ret;

	if (!v)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has no variant %u",
				  (long long)exp, variant_idx);
	if ((ret = kb_store_last_boot(s, exp, variant_idx, &last, err)))
		return ret;
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.exp = exp;
	r.plan = plan;
	r.ex = ex;
	r.t0 = kb_monotime();
	ret = get_build(&r, v, &b, err);
	for (i = 1; ret == 0 && i <= nboots; i++)
		ret = do_boot(&r, v, b, last + i, rep->runs_per_boot, err);
	for (i = 0; i < r.nbuilds; i++)
		kb_build_result_release(&r.builds[i].result);
	free(r.builds);
	return ret;
}
