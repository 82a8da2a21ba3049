/*
 * kbisect build MATRIX: build every variant's kernel without booting
 * anything (docs/builds.md).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "build.h"
#include "fsutil.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "store.h"
#include "toolchain.h"
#include "banned.h"

/* One distinct build key of the plan. */
struct job {
	const char *key;
	const char *config;   /* resolved .config text */
	size_t first;         /* first variant needing it */
	char *variants;       /* "#0,#2" */
	char *label;          /* the first variant's label (+ "...") */
	const char *outcome;  /* "built", "reused", "failed" */
	int order;            /* position in the build order, -1: reused */
	int64_t build_id;
	struct kb_build_result result;
	struct kb_build_info info;
};

struct progress {
	int tty, quiet;
	size_t i, n;          /* this build is the i-th of n */
	double last_print;
};

static void on_resolve(const struct kb_plan_resolve_event *ev, void *arg)
{
	const struct progress *pr = arg;

	if (pr->quiet || !ev->done)
		return;
	fprintf(stderr, "resolved config %zu/%zu (#%u %s)%s\n", ev->i, ev->n,
		ev->variant->idx, ev->variant->label,
		ev->cached ? " from the cache" : "");
}

static void on_build(const struct kb_build_progress *p, void *arg)
{
	struct progress *pr = arg;
	char units[64] = "";

	if (pr->quiet)
		return;
	if (p->units_full)
		snprintf(units, sizeof(units), ", %u/%u units (%.0f%%)",
			 p->units, p->units_full,
			 100.0 * p->units / p->units_full);
	else
		snprintf(units, sizeof(units), ", %u units", p->units);
	if (pr->tty) {
		fprintf(stderr, "\r\033[K[%zu/%zu] %s: %.0f s%s", pr->i, pr->n,
			p->label, p->elapsed_s, units);
		if (p->done)
			fputc('\n', stderr);
	} else if (p->done || p->elapsed_s - pr->last_print >= 30) {
		fprintf(stderr, "[%zu/%zu] %s: %.0f s%s%s\n", pr->i, pr->n,
			p->label, p->elapsed_s, units, p->done ? ", done" : "");
		pr->last_print = p->elapsed_s;
	}
}

/* Report what did not hold; returns whether variants collapsed. */
static int report_dropped(const struct kb_plan *p)
{
	size_t i, j, k, n = kb_plan_nvariants(p);
	int collapsed = 0;

	for (i = 0; i < n; i++) {
		const struct kb_kconfig_resolution *r = kb_plan_resolution(p, i);

		for (k = 0; k < r->noutcomes; k++) {
			const struct kb_kconfig_outcome *o = &r->outcomes[k];

			if (o->held)
				continue;
			printf("#%zu: %s=%s did not hold (resolved %s): %s\n", i,
			       o->name, o->requested, o->resolved,
			       o->reason ? o->reason : "no reason known");
		}
	}
	/* groups of variants that ask for different options and get one
	 * .config */
	for (i = 0; i < n; i++) {
		const struct kb_variant *a = kb_plan_variant(p, i);
		struct kb_buf same = KB_BUF_INIT;
		int differ = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(kb_plan_variant(p, j)->build_key,
				    a->build_key))
				break;
		if (j < i)
			continue; /* reported with its first variant */
		kb_buf_addf(&same, "#%zu", i);
		for (j = i + 1; j < n; j++) {
			const struct kb_variant *b = kb_plan_variant(p, j);

			if (strcmp(a->build_key, b->build_key))
				continue;
			kb_buf_addf(&same, ", #%zu", j);
			for (k = 0; k < a->nsettings; k++)
				if (a->settings[k].kind == KB_FACTOR_KCONFIG &&
				    strcmp(a->settings[k].value,
					   b->settings[k].value))
					differ = 1;
		}
		if (differ) {
			printf("variants %s ask for different options but resolve to the same .config: one build\n",
			       same.buf);
			collapsed = 1;
		}
		kb_buf_release(&same);
	}
	return collapsed;
}

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

static void print_json(const struct kb_plan *p, const struct job *jobs,
		       size_t njobs)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "matrix", kb_matrix_name(kb_plan_matrix(p)));
	kb_json_kv_string(j, "tree_id", kb_plan_tree_id(p));
	kb_json_kv_int(j, "variants", (long long)kb_plan_nvariants(p));
	kb_json_key(j, "builds");
	kb_json_array_begin(j);
	for (i = 0; i < njobs; i++) {
		const struct job *jb = &jobs[i];

		kb_json_object_begin(j);
		kb_json_kv_string(j, "build_key", jb->key);
		kb_json_kv_string(j, "variants", jb->variants);
		kb_json_kv_string(j, "outcome", jb->outcome);
		kb_json_kv_int(j, "order", jb->order);
		kb_json_kv_number(j, "duration_s", jb->result.duration_s);
		kb_json_kv_int(j, "units", jb->info.units_compiled);
		kb_json_kv_bool(j, "full", jb->info.full);
		kb_json_kv_string(j, "image", jb->result.image);
		kb_json_kv_string(j, "reason", jb->result.reason);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	kb_json_finish(j);
	kb_json_free(j);
	cmd_put(&b);
	kb_buf_release(&b);
}

/* Build the jobs not reused, nearest first; store each as it ends. */
static int build_all(struct kb_store *s, const struct kb_plan *p,
		     struct job *jobs, size_t njobs, const char *compiler,
		     struct progress *pr, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	struct kb_build_opts bo = KB_BUILD_OPTS_INIT;
	const char **configs = kb_calloc(njobs + 1, sizeof(*configs));
	size_t *idx = kb_calloc(njobs + 1, sizeof(*idx));
	size_t *order = kb_calloc(njobs + 1, sizeof(*order));
	char *objdir = kb_build_default_objdir(kb_plan_tree_id(p));
	char *cfgpath = kb_asprintf("%s/.config", objdir);
	size_t npending = 0, i, done = 0, nbuilt = 0;
	int ret = 0;

	kb_build_opts_from_matrix(m, kb_plan_tree_dir(p), kb_plan_tree_id(p),
				  &bo);
	bo.objdir = objdir;
	bo.progress = on_build;
	bo.arg = pr;
	for (i = 0; i < njobs; i++)
		if (!jobs[i].outcome)
			idx[npending++] = i;
	pr->n = npending;
	while (done < npending) {
		struct kb_build_weights *w = NULL;
		struct kb_buf start = KB_BUF_INIT;
		struct kb_err ignored = KB_ERR_INIT;
		struct kb_store_build_detail d;
		struct job *jb;
		size_t k, n = 0;
		int have_start;

		/* re-plan after every build: the O= folder's fixdep records
		 * say what each option costs once something is built */
		for (i = 0; i < npending; i++)
			if (!jobs[idx[i]].outcome)
				configs[n++] = jobs[idx[i]].config;
		have_start = kb_buf_read_file(&start, cfgpath, 64u << 20,
					      &ignored) == 0;
		kb_err_clear(&ignored);
		if (kb_build_weights_scan(objdir, &w, &ignored))
			w = NULL;
		kb_build_order(configs, n, have_start ? start.buf : NULL, w,
			       order);
		kb_build_weights_free(w);
		kb_buf_release(&start);
		for (i = 0, k = 0; i < npending; i++) {
			if (jobs[idx[i]].outcome)
				continue;
			if (k++ == order[0])
				break;
		}
		jb = &jobs[idx[i]];
		pr->i = ++done;
		pr->last_print = 0;
		if ((ret = kb_build_run(&bo, jb->key, jb->config, jb->label,
					&jb->result, &jb->info, err)))
			break;
		jb->order = jb->info.cached ? -1 : (int)++nbuilt;
		jb->outcome = jb->result.status != KB_BUILD_OK ? "failed"
			      : jb->info.cached		     ? "reused"
							     : "built";
		if (jb->result.status != KB_BUILD_OK && !pr->quiet)
			fprintf(stderr, "kbisect: build of %s failed: %s\n",
				jb->variants, jb->result.reason);
		if ((ret = kb_store_build_put(s, jb->key, "build", &jb->result,
					      &jb->build_id, err)))
			break;
		memset(&d, 0, sizeof(d));
		d.tree_id = kb_plan_tree_id(p);
		d.compiler = compiler;
		d.config_path = jb->info.config_path;
		d.log_path = jb->info.log_path;
		d.artifacts_dir = jb->info.artifacts_dir;
		d.label = jb->label;
		d.units_compiled = jb->info.units_compiled;
		d.full_build = jb->info.full;
		if ((ret = kb_store_build_detail_put(s, jb->build_id, &d, err)))
			break;
	}
	free(cfgpath);
	free(objdir);
	free(order);
	free(idx);
	free(configs);
	return ret;
}

static void print_table(const struct kb_plan *p, const struct job *jobs,
			size_t njobs, double total)
{
	const struct job **sorted = kb_calloc(njobs + 1, sizeof(*sorted));
	size_t i, k, built = 0, reused = 0, failed = 0;

	for (i = 0; i < njobs; i++) { /* insertion sort by build order */
		int oi = jobs[i].order > 0 ? jobs[i].order : INT_MAX;

		for (k = i; k > 0; k--) {
			int ok = sorted[k - 1]->order > 0 ? sorted[k - 1]->order
							  : INT_MAX;

			if (ok <= oi)
				break;
			sorted[k] = sorted[k - 1];
		}
		sorted[k] = &jobs[i];
	}

	printf("\n%-5s  %-12s  %-7s  %9s  %6s  %s\n", "order", "build key",
	       "outcome", "time", "units", "variants");
	/* in build order, then what was not built now */
	for (k = 0; k < njobs; k++) {
		const struct job *jb = sorted[k];
		char order[16] = "-", secs[24] = "-", units[16] = "-";

		if (jb->order > 0) {
			snprintf(order, sizeof(order), "%d", jb->order);
			snprintf(secs, sizeof(secs), "%.1f s",
				 jb->result.duration_s);
			snprintf(units, sizeof(units), "%u",
				 jb->info.units_compiled);
		}
		printf("%-5s  %.12s  %-7s  %9s  %6s  %s%s\n", order, jb->key,
		       jb->outcome, secs, units, jb->variants,
		       jb->info.full && jb->order > 0 ? " (full build)" : "");
		built += !strcmp(jb->outcome, "built");
		reused += !strcmp(jb->outcome, "reused");
		failed += !strcmp(jb->outcome, "failed");
	}
	free(sorted);
	printf("\n%zu variant%s, %zu build%s: %zu built, %zu reused, %zu failed, %.1f s\n",
	       kb_plan_nvariants(p), kb_plan_nvariants(p) == 1 ? "" : "s",
	       njobs, njobs == 1 ? "" : "s", built, reused, failed, total);
	for (i = 0; i < njobs; i++)
		if (jobs[i].result.status == KB_BUILD_OK && jobs[i].result.image)
			printf("  %s: %s\n", jobs[i].variants,
			       jobs[i].result.image);
}

static const struct kb_opt build_opts[] = {
	KB_OPT_DB,
	KB_OPT_JSON("print the builds as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_ALLOW_DROPPED("build even when variants collapse into one build"),
	KB_OPT_END,
};

static int cmd_build(const struct kb_args *args);

const struct cmd cmd_build_entry = {
	.name = "build",
	.args = "MATRIX",
	.opts = build_opts,
	.fn = cmd_build,
	.summary = "build every variant's kernel without booting anything",
	.help = "Resolves each variant's config against source.tree (at source.rev)\n"
		"and builds every distinct one with `make O=DIR bzImage` in a\n"
		"persistent O= folder per tree, nearest config first, so that Kbuild\n"
		"recompiles only what changed.  A build key already in the database\n"
		"or the build cache is not built again; a failed build is stored\n"
		"with its log's end and the others go on.  Prints what was built,\n"
		"reused or failed, with times and units compiled.  See docs/builds.md.\n",
	.epilog = "Exit status 1 when a build failed.\n\n"
		  "Example:\n"
		  "  kbisect build kconfig-matrix/xen-pvops-spinlocks.yaml\n",
};

static int cmd_build(const struct kb_args *args)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct progress pr = { 0, 0, 0, 0, 0 };
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_store *s = NULL;
	struct job *jobs = NULL;
	const struct kb_build_cfg *bc;
	const char *db = args->db;
	char *compiler = NULL, started[40];
	size_t i, j, njobs = 0, n;
	int json = args->json, allow = args->allow_dropped, ret, anyfailed = 0;
	double t0;

	pr.quiet = args->quiet;
	t0 = kb_monotime();
	now_iso(started, sizeof(started));
	pr.tty = isatty(STDERR_FILENO);
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)))
		goto fail;
	if (!kb_matrix_source(m)->tree) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: the matrix has no source.tree: nothing to build",
			   kb_matrix_file(m));
		goto fail;
	}
	bc = kb_matrix_build(m);
	ro.progress = on_resolve;
	ro.arg = &pr;
	if ((ret = kb_plan_resolve(p, &ro, &err)) ||
	    (ret = kb_toolchain_cc_version(bc->make_args, bc->nmake_args,
					     &compiler, &err)))
		goto fail;
	if (report_dropped(p) && !allow) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: some variants collapse into one build because options did not hold: fix the fragment, or pass --allow-dropped",
			   kb_matrix_file(m));
		goto fail;
	}
	if ((ret = cmd_open_store(db, &s, &err)))
		goto fail;

	/* one job per distinct key, in plan order */
	n = kb_plan_nvariants(p);
	jobs = kb_calloc(n, sizeof(*jobs));
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

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
		jobs[njobs].key = v->build_key;
		jobs[njobs].config = kb_plan_resolution(p, i)->config_text;
		jobs[njobs].first = i;
		jobs[njobs].variants = kb_asprintf("#%u", v->idx);
		jobs[njobs].label = kb_asprintf("#%u %s", v->idx, v->label);
		jobs[njobs].order = -1;
		njobs++;
	}
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
			kb_err_set(&err, ret, "%s", lookup.msg);
			goto fail;
		}
	}
	ret = build_all(s, p, jobs, njobs, compiler, &pr, &err);
	/* what happened to each variant, also after an error */
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
			ret = kb_store_build_request_put(s, &rq, &err);
	}
	if (ret)
		goto fail;
	for (j = 0; j < njobs; j++)
		anyfailed |= !strcmp(jobs[j].outcome, "failed");
	if (json)
		print_json(p, jobs, njobs);
	else
		print_table(p, jobs, njobs, kb_monotime() - t0);
	ret = anyfailed ? 1 : 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	for (j = 0; j < njobs; j++) {
		free(jobs[j].variants);
		free(jobs[j].label);
		kb_build_result_release(&jobs[j].result);
		kb_build_info_release(&jobs[j].info);
	}
	free(jobs);
	free(compiler);
	kb_store_close(s);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
