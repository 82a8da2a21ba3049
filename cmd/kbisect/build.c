/*
 * kbisect build MATRIX: build every variant's kernel without booting
 * anything (docs/builds.md).  The work is lib/pipeline.c's
 * kb_pipeline_build_plan(); this file reads the options and prints.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "build.h"
#include "fsutil.h"
#include "json.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"
#include "banned.h"

struct progress {
	int tty, quiet;
	double last_print;    /* of this build's make progress */
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

static void on_build(const struct kb_pipeline_build_event *ev, void *arg)
{
	struct progress *pr = arg;
	const struct kb_build_progress *p = ev->make;
	char units[64] = "";

	if (pr->quiet)
		return;
	if (ev->kind == KB_PIPELINE_BUILD_START) {
		pr->last_print = 0;
		return;
	}
	if (ev->kind == KB_PIPELINE_BUILD_END) {
		if (!strcmp(ev->job->outcome, "failed"))
			fprintf(stderr, "kbisect: build of %s failed: %s\n",
				ev->job->variants, ev->job->result.reason);
		return;
	}
	cmd_make_units(p, units, sizeof(units));
	if (pr->tty) {
		fprintf(stderr, "\r\033[K[%zu/%zu] %s: %.0f s%s", ev->i, ev->n,
			p->label, p->elapsed_s, units);
		if (p->done)
			fputc('\n', stderr);
	} else if (p->done || p->elapsed_s - pr->last_print >= 30) {
		fprintf(stderr, "[%zu/%zu] %s: %.0f s%s%s\n", ev->i, ev->n,
			p->label, p->elapsed_s, units, p->done ? ", done" : "");
		pr->last_print = p->elapsed_s;
	}
}

/*
 * Report what did not hold, on stderr (the answer on stdout is the build
 * table or the JSON); returns whether variants collapsed.
 */
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
			fprintf(stderr,
				"#%zu: %s=%s did not hold (resolved %s): %s\n",
				i, o->name, o->requested, o->resolved,
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
			fprintf(stderr,
				"variants %s ask for different options but resolve to the same .config: one build\n",
				same.buf);
			collapsed = 1;
		}
		kb_buf_release(&same);
	}
	return collapsed;
}

static void print_json(const struct kb_plan *p,
		       const struct kb_pipeline_job *jobs, size_t njobs)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "matrix", kb_matrix_name(kb_plan_matrix(p)));
	/* the baseline's tree; each build names its own */
	kb_json_kv_string(j, "tree_id", kb_plan_variant_tree(p, 0)->id);
	kb_json_kv_int(j, "variants", (long long)kb_plan_nvariants(p));
	kb_json_key(j, "builds");
	kb_json_array_begin(j);
	for (i = 0; i < njobs; i++) {
		const struct kb_pipeline_job *jb = &jobs[i];

		kb_json_object_begin(j);
		kb_json_kv_string(j, "build_key", jb->key);
		kb_json_kv_string(j, "tree_id", jb->tree_id);
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
	cmd_json_put(j, &b);
}

static void print_table(const struct kb_plan *p,
			const struct kb_pipeline_job *jobs, size_t njobs,
			double total)
{
	const struct kb_pipeline_job **sorted =
		kb_calloc(njobs + 1, sizeof(*sorted));
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
		const struct kb_pipeline_job *jb = sorted[k];
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
	.rank = 110,
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
		"reused or failed, with times and units compiled.  See docs/builds.md.\n"
		CMD_HELP_MACHINES,
	.epilog = "Exit status 1 when a build failed; 128 + the signal after SIGINT or\n"
		  "SIGTERM, which stop make: a build stopped so (or whose make a\n"
		  "signal ended) is not stored and builds again when asked.\n\n"
		  "Example:\n"
		  "  kbisect build kconfig-matrix/xen-pvops-spinlocks.yaml\n",
};

static int cmd_build(const struct kb_args *args)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_pipeline_build_opts bo = KB_PIPELINE_BUILD_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct progress pr = { .tty = 0, .quiet = 0, .last_print = 0 };
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_store *s = NULL;
	struct kb_pipeline_job *jobs = NULL;
	size_t j, njobs = 0;
	int ret, anyfailed = 0;
	double t0 = kb_monotime();

	pr.quiet = args->quiet;
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
	ro.progress = on_resolve;
	ro.arg = &pr;
	if ((ret = kb_plan_resolve(p, &ro, &err)))
		goto fail;
	if (report_dropped(p) && !args->allow_dropped) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: some variants collapse into one build because options did not hold: fix the fragment, or pass --allow-dropped",
			   kb_matrix_file(m));
		goto fail;
	}
	if ((ret = cmd_open_store(args->db, &s, &err)))
		goto fail;
	bo.progress = on_build;
	bo.arg = &pr;
	/* a ^C reaches make too: its build is then no result (it builds
	 * again when asked), and the builds that ended stay stored */
	bo.stop = &cmd_stop_signal;
	cmd_catch_stop(1);
	ret = kb_pipeline_build_plan(s, p, &bo, &jobs, &njobs, &err);
	cmd_catch_stop(0);
	if (ret && cmd_stop_signal) {
		fprintf(stderr,
			"kbisect: %s; the builds that ended are stored, the one stopped is not: it builds again when asked\n",
			err.msg);
		ret = 128 + cmd_stop_signal;
		goto out;
	}
	if (ret)
		goto fail;
	for (j = 0; j < njobs; j++)
		anyfailed |= !strcmp(jobs[j].outcome, "failed");
	if (args->json)
		print_json(p, jobs, njobs);
	else
		print_table(p, jobs, njobs, kb_monotime() - t0);
	ret = anyfailed ? 1 : 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_pipeline_jobs_free(jobs, njobs);
	kb_store_close(s);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
