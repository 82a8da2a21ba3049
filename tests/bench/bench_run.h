#ifndef KB_BENCH_RUN_H
#define KB_BENCH_RUN_H

/*
 * One experiment on the performance model, as the drift, why and
 * sentinel benches run theirs: a matrix and a model from YAML text, the
 * plan run on the model at time scale 0 into a store, and its analysis
 * opened.  Static inline: each bench is a program of one file.
 */
#include <string.h>

#include "analysis.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"

struct bench_run {
	struct kb_matrix *m;
	struct kb_plan *p;
	struct kb_model *model;
	struct kb_executor *ex;
	struct kb_analysis *a; /* the experiment's, once run */
};

/* Run matrix @mx on model @mo into @s; 0 with r->a open, or an error
 * (what was made is in @r: bench_run_free() it either way). */
static inline int bench_run(struct kb_store *s, const char *mx,
			    const char *mo, struct bench_run *r,
			    struct kb_err *err)
{
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	int64_t exp = 0;
	int ret;

	if ((ret = kb_matrix_parse_buffer(mx, strlen(mx), "m.yaml", &r->m,
					  err)) ||
	    (ret = kb_plan_new(r->m, &r->p, err)) ||
	    (ret = kb_model_parse_buffer(mo, strlen(mo), "model.yaml",
					 &r->model, err)) ||
	    (ret = kb_model_executor_new(r->model, 0, &r->ex)))
		return ret;
	o.model_text = kb_model_text(r->model);
	if ((ret = kb_pipeline_run(s, r->p, r->ex, &o, &exp, err)))
		return ret;
	return kb_analysis_open(s, exp, NULL, &r->a, err);
}

static inline void bench_run_free(struct bench_run *r)
{
	kb_analysis_free(r->a);
	kb_executor_free(r->ex);
	kb_model_free(r->model);
	kb_plan_free(r->p);
	kb_matrix_free(r->m);
}

#endif
