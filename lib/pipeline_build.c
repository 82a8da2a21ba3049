/*
 * Builds alone (`kbisect build`, pipeline.h kb_pipeline_build_plan()):
 * every distinct build of a plan, nearest first, each stored as it ends,
 * without booting.
 */
#include "pipeline.h"
#include "pipeline_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "kconfig.h"
#include "mem.h"
#include "banned.h"


/*
 * The executor kb_pipeline_build_plan() builds through: from source, as
 * the plan resolved it, keeping what kb_build_run() says beyond the
 * result in the job being built.  It does not boot.
 */
struct builder {
	const struct kb_plan *p;
	const struct kb_pipeline_build_opts *o;
	struct kb_pipeline_job *job;
	struct kb_pipeline_build_event ev;
};

static void build_report(struct builder *b, enum kb_pipeline_build_kind kind,
			 const struct kb_build_progress *make)
{
	if (!b->o || !b->o->progress)
		return;
	b->ev.kind = kind;
	b->ev.job = b->job;
	b->ev.make = make;
	b->o->progress(&b->ev, b->o->arg);
}

static void on_make(const struct kb_build_progress *bp, void *arg)
{
	build_report(arg, KB_PIPELINE_BUILD_MAKE, bp);
}

static int builder_build(void *self, const struct kb_variant *v,
			 struct kb_build_result *out, struct kb_err *err)
{
	struct builder *b = self;

	kb_build_info_release(&b->job->info);
	return kb_build_plan_variant(b->p, v->idx, b->job->label, on_make, b,
				     out, &b->job->info, err);
}

static int builder_boot(void *self, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, struct kb_boot_result *out,
			struct kb_err *err)
{
	(void)self;
	(void)build;
	(void)boot_no;
	(void)runs;
	(void)out;
	return kb_err_set(err, KB_EFAIL, "variant %u is only built, not booted",
			  v->idx);
}

static const struct kb_executor_ops builder_ops = {
	.name = "build",
	.build = builder_build,
	.boot = builder_boot,
	.free = NULL,
};

void kb_pipeline_jobs_free(struct kb_pipeline_job *jobs, size_t n)
{
	size_t i;

	for (i = 0; jobs && i < n; i++) {
		free(jobs[i].variants);
		free(jobs[i].label);
		kb_build_result_release(&jobs[i].result);
		kb_build_info_release(&jobs[i].info);
	}
	free(jobs);
}

/* One job per distinct key of @p, in plan order; returns how many. */
static size_t make_jobs(const struct kb_plan *p, struct kb_pipeline_job *jobs)
{
	size_t i, j, n = kb_plan_nvariants(p), njobs = 0;

	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);
		struct kb_pipeline_job *jb;

		for (j = 0; j < njobs; j++)
			if (!strcmp(jobs[j].key, v->build_key))
				break;
		if (j < njobs) {
			char *more = kb_asprintf("%s,#%u", jobs[j].variants,
						 v->idx);

			free(jobs[j].variants);
			jobs[j].variants = more;
			continue;
		}
		jb = &jobs[njobs++];
		jb->key = v->build_key;
		jb->config = kb_plan_resolution(p, i)->config_text;
		jb->tree_id = kb_plan_variant_tree(p, i)->id;
		jb->first = i;
		jb->variants = kb_asprintf("#%u", v->idx);
		jb->label = kb_asprintf("#%u %s", v->idx, v->label);
		jb->order = -1;
	}
	return njobs;
}

/*
 * The next job to build: of the pending jobs of the first pending job's
 * tree, the one kb_build_order() puts first from what that tree's O=
 * folder holds, weighted by its fixdep records.  @configs holds every
 * job's config, parsed once; @skip has room for every job.
 */
static struct kb_pipeline_job *next_job(struct kb_pipeline_job *jobs,
					size_t njobs,
					const struct kb_build_configs *configs,
					unsigned char *skip)
{
	struct kb_build_weights *w = NULL;
	struct kb_buf start = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	const char *tree = NULL;
	char *objdir, *path;
	size_t i;
	int have_start;

	for (i = 0; i < njobs; i++) {
		skip[i] = 1;
		if (jobs[i].outcome)
			continue;
		if (!tree)
			tree = jobs[i].tree_id;
		skip[i] = strcmp(jobs[i].tree_id, tree) != 0;
	}
	objdir = kb_build_default_objdir(tree);
	path = kb_asprintf("%s/.config", objdir);
	have_start = kb_buf_read_file(&start, path, 64u << 20, &ignored) == 0;
	kb_err_clear(&ignored);
	if (kb_build_weights_scan(objdir, &w, &ignored))
		w = NULL;
	i = kb_build_configs_nearest(configs, have_start ? start.buf : NULL, w,
				     skip);
	kb_build_weights_free(w);
	kb_buf_release(&start);
	free(path);
	free(objdir);
	return &jobs[i];
}

/* Build the jobs the store does not have, nearest first; store each. */
static int build_pending(struct kb_store *s, const struct kb_plan *p,
			 const struct kb_pipeline_build_opts *o,
			 struct kb_pipeline_job *jobs, size_t njobs,
			 struct kb_err *err)
{
	const char **texts = kb_calloc(njobs + 1, sizeof(*texts));
	unsigned char *skip = kb_calloc(njobs + 1, 1);
	struct kb_build_configs *configs;
	struct kb_executor *ex;
	struct builder b;
	size_t i, npending = 0;
	int nbuilt = 0, ret = 0;

	memset(&b, 0, sizeof(b));
	b.p = p;
	b.o = o;
	ex = kb_executor_new(&builder_ops, &b);
	for (i = 0; i < njobs; i++) {
		npending += !jobs[i].outcome;
		texts[i] = jobs[i].config;
	}
	configs = kb_build_configs_new(texts, njobs);
	b.ev.n = npending;
	while (b.ev.i < npending) {
		struct kb_pipeline_job *jb;
		struct kb_store_build_detail d;
		int reused = 0;

		if (o && o->stop && *o->stop) {
			ret = kb_err_set(err, KB_EFAIL,
					 "stopped before build %zu of %zu",
					 b.ev.i + 1, npending);
			break;
		}
		jb = next_job(jobs, njobs, configs, skip);
		b.job = jb;
		b.ev.i++;
		build_report(&b, KB_PIPELINE_BUILD_START, NULL);
		if ((ret = pipeline_build_until(
			     s, ex, kb_plan_variant(p, jb->first),
			     o ? o->stop : NULL, &jb->result, &jb->build_id,
			     &reused, err)))
			break;
		if (reused) { /* stored meanwhile by another kbisect */
			jb->outcome = jb->result.status == KB_BUILD_OK
					      ? "reused"
					      : "failed";
			jb->result.duration_s = 0;
			build_report(&b, KB_PIPELINE_BUILD_END, NULL);
			continue;
		}
		jb->order = jb->info.cached ? -1 : ++nbuilt;
		jb->outcome = jb->result.status != KB_BUILD_OK ? "failed"
			      : jb->info.cached		     ? "reused"
							     : "built";
		memset(&d, 0, sizeof(d));
		d.tree_id = jb->tree_id;
		d.compiler = kb_plan_compiler(p);
		d.config_path = jb->info.config_path;
		d.log_path = jb->info.log_path;
		d.artifacts_dir = jb->info.artifacts_dir;
		d.label = jb->label;
		d.units_compiled = jb->info.units_compiled;
		d.full_build = jb->info.full;
		if ((ret = kb_store_build_detail_put(s, jb->build_id, &d, err)))
			break;
		build_report(&b, KB_PIPELINE_BUILD_END, NULL);
	}
	kb_executor_free(ex);
	kb_build_configs_free(configs);
	free(skip);
	free(texts);
	return ret;
}

/*
 * Store what happened to each variant of @p.  After an error (@ret) the
 * rows are still written, their own errors ignored.
 */
static int put_requests(struct kb_store *s, const struct kb_plan *p,
			const struct kb_pipeline_job *jobs, size_t njobs,
			const char *started, int ret, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	size_t i, j, n = kb_plan_nvariants(p);

	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);
		struct kb_store_build_request rq;
		struct kb_err ignored = KB_ERR_INIT;

		for (j = 0; j < njobs && strcmp(jobs[j].key, v->build_key); j++)
			;
		if (!jobs[j].outcome)
			continue;
		memset(&rq, 0, sizeof(rq));
		rq.matrix_name = kb_matrix_name(m);
		rq.matrix_path = kb_matrix_file(m);
		rq.run_started_at = started;
		rq.variant_idx = v->idx;
		rq.variant_label = v->label;
		rq.build_key = v->build_key;
		rq.build_id = jobs[j].build_id;
		rq.outcome = jobs[j].first != i && strcmp(jobs[j].outcome,
							  "failed")
				     ? "shared"
				     : jobs[j].outcome;
		rq.build_order = jobs[j].order;
		if (ret)
			kb_store_build_request_put(s, &rq, &ignored);
		else
			ret = kb_store_build_request_put(s, &rq, err);
	}
	return ret;
}

int kb_pipeline_build_plan(struct kb_store *s, const struct kb_plan *p,
			   const struct kb_pipeline_build_opts *o,
			   struct kb_pipeline_job **out, size_t *nout,
			   struct kb_err *err)
{
	size_t j, njobs, n = kb_plan_nvariants(p);
	struct kb_pipeline_job *jobs;
	char started[40];
	int ret;

	*out = NULL;
	*nout = 0;
	if (!kb_plan_is_resolved(p))
		return kb_err_set(err, KB_EINPUT,
				  "%s: the plan is not resolved against a kernel tree: nothing to build",
				  kb_matrix_file(kb_plan_matrix(p)));
	kb_now_iso(started, sizeof(started));
	jobs = kb_calloc(n ? n : 1, sizeof(*jobs));
	njobs = make_jobs(p, jobs);
	/* reuse what the store has, failures included */
	for (j = 0; j < njobs; j++) {
		struct kb_err lookup = KB_ERR_INIT;

		ret = kb_store_build_get(s, jobs[j].key, &jobs[j].result,
					 &jobs[j].build_id, &lookup);
		if (ret == 0) {
			jobs[j].outcome = jobs[j].result.status == KB_BUILD_OK
						  ? "reused"
						  : "failed";
			jobs[j].result.duration_s = 0;
		} else if (ret != KB_ENOTFOUND) {
			kb_err_set(err, ret, "%s", lookup.msg);
			goto out;
		}
	}
	ret = build_pending(s, p, o, jobs, njobs, err);
	ret = put_requests(s, p, jobs, njobs, started, ret, err);
out:
	if (ret) {
		kb_pipeline_jobs_free(jobs, njobs);
		return ret;
	}
	*out = jobs;
	*nout = njobs;
	return 0;
}
