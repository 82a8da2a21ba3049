#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "buf.h"
#include "build.h"
#include "err.h"
#include "fsutil.h"
#include "kconfig.h"
#include "mem.h"
#include "pipeline_int.h"
#include "banned.h"

/* Whether a stop was asked (kb_pipeline_opts.stop). */
static int stopping(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

int pipeline_stopped(const struct run *r)
{
	return r->opts && stopping(r->opts->stop);
}

void pipeline_report(struct run *r, enum kb_progress_kind kind,
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

/* kb_pipeline_build(); once @stop is set, a build that did not end ok
 * (make killed by the same Ctrl-C) is not stored. */
static int build_step(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_variant *v,
		      const volatile sig_atomic_t *stop,
		      struct kb_build_result *out, int64_t *build_id,
		      int *reused, struct kb_err *err)
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
	return pipeline_build_store(s, ex, v, stop, out, build_id, err);
}

int pipeline_build_store(struct kb_store *s, struct kb_executor *ex,
			 const struct kb_variant *v,
			 const volatile sig_atomic_t *stop,
			 struct kb_build_result *out, int64_t *build_id,
			 struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	int ret;

	if (stopping(stop) && out->status != KB_BUILD_OK) {
		kb_build_result_release(out);
		return kb_err_set(err, KB_EFAIL,
				  "the build of variant %u was interrupted",
				  v->idx);
	}
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

int kb_pipeline_build(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_variant *v, struct kb_build_result *out,
		      int64_t *build_id, int *reused, struct kb_err *err)
{
	return build_step(s, ex, v, NULL, out, build_id, reused, err);
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
		pipeline_report(r, KB_PROGRESS_BUILD_START, v, 0, NULL, NULL);
		if ((ret = build_step(r->s, r->ex, v,
				      r->opts ? r->opts->stop : NULL,
				      &b->result, &b->id, &reused, err)))
			return ret;
	}
	r->nbuilds++;
	r->ev.builds_done++;
	pipeline_report(r,
			reused ? KB_PROGRESS_BUILD_REUSED
			       : KB_PROGRESS_BUILD_DONE,
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

	pipeline_report(r, KB_PROGRESS_BOOT_START, v, boot_no, NULL, NULL);
	if ((ret = kb_pipeline_boot(r->ex, v, &b->result, boot_no, runs, &res,
				    err)))
		return ret;
	/* a guest destroyed by the stop is no boot failure: not stored,
	 * boot @boot_no is done again on resume */
	if (pipeline_stopped(r) && res.status != KB_BOOT_OK)
		ret = kb_err_set(err, KB_EFAIL,
				 "boot %u of variant %u was interrupted",
				 boot_no, v->idx);
	else
		ret = kb_store_boot_put(r->s, r->exp, v->idx, boot_no, b->id,
					&res, err);
	if (ret == 0) {
		r->ev.boots_done++;
		pipeline_report(r, KB_PROGRESS_BOOT_DONE, v, boot_no,
				kb_boot_status_name(res.status), res.reason);
	}
	kb_boot_result_release(&res);
	return ret;
}

static int execute(struct run *r, struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(r->plan));
	size_t i, n = kb_plan_nvariants(r->plan);
	size_t *order;
	unsigned boot_no;
	int ret = 0;

	if (r->opts && r->opts->nhosts)
		return pipeline_execute_hosts(r, err);
	order = kb_calloc(n ? n : 1, sizeof(*order));
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
			if (pipeline_stopped(r)) {
				ret = kb_err_set(err, KB_EFAIL,
						 "stopped before boot %u of variant %u",
						 boot_no, v->idx);
				break;
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

static int finish(struct run *r, int ret, struct kb_err *err)
{
	struct kb_err ignored = KB_ERR_INIT;
	size_t i;

	if (ret == 0) {
		ret = kb_store_experiment_finish(r->s, r->exp, "done", NULL,
						 err);
	} else if (pipeline_stopped(r)) {
		char *why = kb_asprintf("interrupted by %s after %zu of %zu boots",
					signal_name(*r->opts->stop),
					r->ev.boots_done, r->ev.boots_total);

		kb_store_experiment_finish(r->s, r->exp, "interrupted", why,
					   &ignored);
		/* the cause, not the step it cut short */
		kb_err_clear(err);
		kb_err_set(err, KB_EFAIL, "experiment %lld %s", (long long)r->exp,
			   why);
		free(why);
	} else {
		kb_store_experiment_finish(r->s, r->exp, "failed",
					   err ? err->msg : NULL, &ignored);
	}
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

int kb_pipeline_add_boots(struct kb_store *s, int64_t exp,
			  const struct kb_plan *plan, struct kb_executor *ex,
			  unsigned variant_idx, unsigned nboots,
			  const struct kb_pipeline_opts *opts,
			  struct kb_err *err)
{
	const struct kb_variant *pv = kb_plan_variant(plan, variant_idx);
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(plan));
	struct known_build *b = NULL;
	struct kb_variant v;
	struct run r;
	char *key = NULL;
	unsigned last, i;
	int ret;

	if (!pv)
		return kb_err_set(err, KB_ENOTFOUND,
				  "experiment %lld has no variant %u",
				  (long long)exp, variant_idx);
	if ((ret = kb_store_last_boot(s, exp, variant_idx, &last, err)))
		return ret;
	/* the variant as the experiment stored it: its build (and image)
	 * is found by the stored key, so a cached kernel is not rebuilt */
	if ((ret = stored_build_key(s, exp, plan, variant_idx, &key, err)))
		return ret;
	v = *pv;
	if (key)
		v.build_key = key;
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.exp = exp;
	r.plan = plan;
	r.ex = ex;
	r.opts = opts;
	r.t0 = kb_monotime();
	r.ev.boots_total = nboots;
	r.ev.builds_total = 1;
	ret = get_build(&r, &v, &b, err);
	for (i = 1; ret == 0 && i <= nboots; i++) {
		if (pipeline_stopped(&r))
			ret = kb_err_set(err, KB_EFAIL,
					 "stopped before boot %u of variant %u",
					 last + i, v.idx);
		else
			ret = do_boot(&r, &v, b, last + i,
				      rep->runs_per_boot, err);
	}
	for (i = 0; i < r.nbuilds; i++)
		kb_build_result_release(&r.builds[i].result);
	free(r.builds);
	free(key);
	return ret;
}

/* ---- builds alone (`kbisect build`) ------------------------------------ */

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

static void now_iso(char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char s[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06ldZ", s, (long)tv.tv_usec);
}

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

		jb = next_job(jobs, njobs, configs, skip);
		b.job = jb;
		b.ev.i++;
		build_report(&b, KB_PIPELINE_BUILD_START, NULL);
		if ((ret = kb_pipeline_build(s, ex, kb_plan_variant(p, jb->first),
					     &jb->result, &jb->build_id,
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
	now_iso(started, sizeof(started));
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
