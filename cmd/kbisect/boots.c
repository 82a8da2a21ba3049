/*
 * What the verbs that boot share (boots.h): the runner opened with the
 * notes they print, an experiment run or resumed with run's progress,
 * the boots analysis verbs add, and the commit verbs' set-up.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "boots.h"
#include "open.h"
#include "analysis.h"
#include "bisect.h"
#include "buf.h"
#include "format.h"
#include "mem.h"
#include "build.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "realexec.h"
#include "runner.h"
#include "store.h"
#include "banned.h"

struct progress {
	int tty;
	int quiet;
};

void cmd_host_progress(const struct kb_progress *ev, void *arg)
{
	const struct kb_variant *v = ev->variant;

	(void)arg;
	if (ev->kind == KB_PROGRESS_HOST_DRAINED)
		fprintf(stderr, "kbisect: %s; its boots go to the other hosts\n",
			ev->reason ? ev->reason : "");
	else if (ev->kind == KB_PROGRESS_HOST_FAILURE)
		fprintf(stderr,
			"#%u %s: boot %u on %s: %s, the host's (run again, not counted): %s\n",
			v->idx, v->label, ev->boot_no, ev->host ? ev->host : "?",
			ev->status, ev->reason ? ev->reason : "");
}

static void on_progress(const struct kb_progress *ev, void *arg)
{
	struct progress *p = arg;
	const struct kb_variant *v = ev->variant;

	if (p->quiet)
		return;
	if (ev->kind == KB_PROGRESS_HOST_DRAINED ||
	    ev->kind == KB_PROGRESS_HOST_FAILURE) {
		if (p->tty)
			fputs("\r\033[K", stderr);
		cmd_host_progress(ev, NULL);
		return;
	}
	if (p->tty) {
		const char *what = ev->kind == KB_PROGRESS_BUILD_START
					   ? "building"
					   : "booting";

		fprintf(stderr,
			"\r\033[K[%zu/%zu builds, %zu/%zu boots, %.0f s] %s #%u %s",
			ev->builds_done, ev->builds_total, ev->boots_done,
			ev->boots_total, ev->elapsed_s, what, v->idx,
			v->label);
		if (ev->boots_done == ev->boots_total)
			fputc('\n', stderr);
	}
	switch (ev->kind) {
	case KB_PROGRESS_BUILD_DONE:
	case KB_PROGRESS_BOOT_DONE:
		if (!strcmp(ev->status, "ok"))
			break;
		fprintf(stderr, "%s#%u %s: %s %s: %s\n", p->tty ? "\r\033[K" : "",
			v->idx, v->label,
			ev->kind == KB_PROGRESS_BUILD_DONE ? "build" : "boot",
			ev->status, ev->reason ? ev->reason : "");
		break;
	default:
		break;
	}
	if (!p->tty && ev->kind == KB_PROGRESS_BOOT_DONE &&
	    (ev->boots_done == ev->boots_total || ev->boots_done % 10 == 0))
		fprintf(stderr, "[%zu/%zu builds, %zu/%zu boots, %.1f s]\n",
			ev->builds_done, ev->builds_total, ev->boots_done,
			ev->boots_total, ev->elapsed_s);
}

/* make's progress on stderr: one line updated in place on a terminal,
 * else a line every 30 s and at the end. */
static void on_make(const struct kb_build_progress *p, void *arg)
{
	static double last_print;
	char units[64] = "";

	(void)arg;
	cmd_make_units(p, units, sizeof(units));
	if (isatty(STDERR_FILENO)) {
		fprintf(stderr, "\r\033[K  make %s: %.0f s%s", p->label,
			p->elapsed_s, units);
		if (p->done)
			fputc('\n', stderr);
	} else if (p->done || p->elapsed_s < last_print ||
		   p->elapsed_s - last_print >= 30) {
		fprintf(stderr, "  make %s: %.0f s%s%s\n", p->label,
			p->elapsed_s, units, p->done ? ", done" : "");
		last_print = p->elapsed_s;
	}
}

/* guest.image: what is being got, and how it came. */
static void on_image(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "  %s\n", line);
}

/* Orphan kbisect-* guests destroyed on a host, said on stderr. */
static void on_orphans(const char *uri, unsigned n, void *arg)
{
	(void)arg;
	fprintf(stderr, "kbisect: destroyed %u orphan guest%s on %s\n", n,
		n == 1 ? "" : "s", uri);
}

/* The runner's options for the notes on stderr unless @quiet, and a
 * stop by SIGINT/SIGTERM. */
static void runner_opts(struct kb_runner_opts *o, const struct kb_model *model,
			int quiet)
{
	o->model = model;
	o->stop = &cmd_stop_signal;
	if (quiet)
		return;
	o->build_progress = on_make;
	o->image_note = on_image;
	o->orphans = on_orphans;
	o->host_progress = cmd_host_progress;
}

int cmd_runner_open_hosts(struct kb_runner **r, const struct kb_plan *p,
			  const struct kb_model *model, int quiet,
			  struct kb_err *err)
{
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;

	runner_opts(&o, model, quiet);
	return kb_runner_open_hosts(p, &o, r, err);
}

int cmd_runner_open_boots(struct kb_runner **r, const struct kb_matrix *m,
			  const struct kb_model *model,
			  struct kb_realexec_opts *ro, int quiet,
			  struct kb_err *err)
{
	struct kb_runner_opts o = KB_RUNNER_OPTS_INIT;

	runner_opts(&o, model, quiet);
	o.real = model ? NULL : ro;
	return kb_runner_open_boots(m, &o, r, err);
}

int cmd_runner_go(struct kb_runner *r, struct kb_store *s,
		  const struct kb_plan *p, const char *model_text,
		  const struct kb_args *args)
{
	struct kb_pipeline_opts popts = KB_PIPELINE_OPTS_INIT;
	struct progress prog = { 0, args->quiet };
	struct kb_err err = KB_ERR_INIT;
	double overlapped = 0;
	unsigned gone = 0;
	int64_t *exp = kb_runner_experiment(r);
	int resume = *exp != 0, ret;

	/* this command writes anyway: experiments whose kbisect process
	 * died are marked so (read verbs only show them so) */
	if ((ret = kb_store_experiments_interrupt_gone(s, &gone, &err)))
		return cmd_fail(&err);
	if (gone && !args->quiet)
		fprintf(stderr,
			"kbisect: marked %u experiment%s interrupted: the kbisect process running %s is gone (see kbisect history)\n",
			gone, gone == 1 ? "" : "s", gone == 1 ? "it" : "them");
	prog.tty = isatty(STDERR_FILENO);
	popts.progress = on_progress;
	popts.arg = &prog;
	popts.model_text = model_text;
	popts.stop = &cmd_stop_signal;
	kb_runner_pipeline_opts(r, &popts);
	popts.overlap_s = &overlapped;
	cmd_catch_stop(1);
	if (resume)
		ret = kb_pipeline_resume(s, *exp, p, kb_runner_builder(r),
					 &popts, &err);
	else
		ret = kb_pipeline_run(s, p, kb_runner_builder(r), &popts, exp,
				      &err);
	cmd_catch_stop(0);
	if (ret && cmd_stop_signal && *exp) {
		fprintf(stderr,
			"kbisect: %s; what finished is stored: 'kbisect resume %lld%s%s' carries it on\n",
			err.msg, (long long)*exp, args->db ? " --db " : "",
			args->db ? args->db : "");
		return 128 + cmd_stop_signal;
	}
	if (ret) {
		if (*exp)
			fprintf(stderr,
				"kbisect: experiment %lld stopped; what finished is stored\n",
				(long long)*exp);
		if (*exp && strstr(err.msg, "every host is drained"))
			fprintf(stderr,
				"kbisect: once a host is back, 'kbisect resume %lld%s%s' carries it on\n",
				(long long)*exp, args->db ? " --db " : "",
				args->db ? args->db : "");
		return cmd_fail(&err);
	}
	if (popts.nhosts && popts.overlap && !args->quiet)
		fprintf(stderr,
			"kbisect: builds and boots overlapped for %.*f s (what building first would have added)\n",
			overlapped < 10 ? 1 : 0, overlapped);
	/* the verdicts, each variant against the baseline, stored with
	 * the experiment (v_verdicts) */
	if (kb_analysis_store_experiment_verdicts(s, *exp, NULL, &err)) {
		fprintf(stderr,
			"kbisect: warning: experiment %lld: its verdicts are not stored: %s\n",
			(long long)*exp, err.msg);
		kb_err_clear(&err);
	}
	if ((ret = cmd_print_results(s, *exp, args->json, &err)))
		return cmd_fail(&err);
	return 0;
}


/* A line on stderr per step of boots added through the real executor. */
static void on_boot(const struct kb_progress *ev, void *arg)
{
	const struct kb_variant *v = ev->variant;
	struct kb_buf b = KB_BUF_INIT;

	(void)arg;
	switch (ev->kind) {
	case KB_PROGRESS_BUILD_START:
		fprintf(stderr,
			"kbisect: building #%u %s: its build is not in the database\n",
			v->idx, v->label);
		break;
	case KB_PROGRESS_BOOT_START:
		fprintf(stderr, "kbisect: booting #%u %s again (boot %u)\n",
			v->idx, v->label, ev->boot_no);
		break;
	case KB_PROGRESS_BOOT_DONE:
		if (strcmp(ev->status, "ok"))
			fprintf(stderr, "kbisect: boot %u of #%u: %s: %s\n",
				ev->boot_no, v->idx, ev->status,
				ev->reason ? cmd_printable(ev->reason, 1, &b)
					   : "");
		break;
	default:
		break;
	}
	kb_buf_release(&b);
}

int cmd_analysis_boots_open(struct cmd_analysis_boots *b,
			    struct kb_analysis *a, struct kb_store *s,
			    struct kb_err *err)
{
	const struct kb_store_info *info = kb_analysis_info(a);
	const struct kb_plan *p = kb_analysis_plan(a);
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	int ret;

	memset(b, 0, sizeof(*b));
	ro.plan = p; /* builds take its resolution */
	if (kb_analysis_can_sample(a)) {
		/* the model's, stored with it: its hosts' drains said */
		kb_analysis_on_hosts(a, cmd_host_progress, NULL);
		return 0;
	}
	if (strcmp(info->executor, "libvirt"))
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld ran on the '%s' executor, which cannot boot again: only model and libvirt experiments can",
				  (long long)info->id, info->executor);
	if ((ret = kb_realexec_check_kernels(p, err)) ||
	    (ret = cmd_runner_open_boots(&b->r, kb_plan_matrix(p), NULL, &ro,
					 0, err)))
		return ret;
	/* guests are named by it and the database, and the hosts'
	 * failures recorded */
	*kb_runner_experiment(b->r) = info->id;
	kb_runner_tag(b->r, kb_store_tag(s));
	kb_runner_set_store(b->r, s, NULL);
	b->o.progress = on_boot;
	b->o.stop = &cmd_stop_signal;
	cmd_catch_stop(1);
	b->caught = 1;
	kb_analysis_set_executor(a, kb_runner_boots(b->r), &b->o);
	return 0;
}

void cmd_analysis_boots_close(struct cmd_analysis_boots *b)
{
	if (b->caught)
		cmd_catch_stop(0);
	kb_runner_free(b->r);
	memset(b, 0, sizeof(*b));
}

/* The seconds a boot of @a takes: its model's time:, else what the ok
 * boots on its hosts in @s took (kb_store_step_boot_s()); NaN: not
 * known. */
static double boot_seconds(const struct kb_analysis *a, struct kb_store *s)
{
	const struct kb_matrix *m = kb_plan_matrix(kb_analysis_plan(a));
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_step_times st;
	const char **hosts;
	double t = NAN;
	int measured;

	if (kb_analysis_model(a)) {
		const struct kb_model_time *mt =
			kb_model_time(kb_analysis_model(a));

		return mt->boot_s +
		       kb_matrix_repeat(m)->runs_per_boot * mt->run_s;
	}
	hosts = cmd_host_uris(m);
	if (!kb_store_host_step_times(s, hosts, kb_matrix_nhosts(m), &st,
				      &err) &&
	    st.nboots)
		t = kb_store_step_boot_s(&st, kb_matrix_repeat(m)->runs_per_boot,
					 &measured);
	free(hosts);
	return t;
}

/* A yes from the terminal to "@question [y/N] "? */
static int ask_yes(const char *question)
{
	char line[16];

	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

int cmd_analysis_budget(struct kb_analysis *a, struct kb_store *s,
			const char *verb, size_t bound, const char *max_added)
{
	unsigned n = bound > 1000000 ? 1000000 : (unsigned)bound;
	unsigned long long given = 0;
	double t;
	char cost[160];

	if (max_added && cmd_parse_count(max_added, 0, 1000000, &given))
		return cmd_usage_error(verb,
				       "--max-added-boots '%s' is not a number of boots from 0 to 1000000",
				       max_added);
	if (max_added && given < n)
		n = (unsigned)given;
	kb_analysis_set_boot_budget(a, n);
	if (!kb_analysis_can_sample(a))
		return 0;
	t = boot_seconds(a, s);
	if (kb_analysis_model(a) && t == 0)
		snprintf(cost, sizeof(cost), " (at once: the model has no time:)");
	else if (kb_analysis_model(a))
		snprintf(cost, sizeof(cost), ", up to %s (the model's time:, in real time unless KBISECT_MODEL_TIME_SCALE says)",
			 kb_format_duration(t * n).s);
	else if (t == t)
		snprintf(cost, sizeof(cost), ", up to %s (%s a boot on these hosts so far)",
			 kb_format_duration(t * n).s,
			 kb_format_duration(t).s);
	else
		snprintf(cost, sizeof(cost), " (their time is not known: no boot on these hosts is stored)");
	fprintf(stderr, "kbisect: %s may add up to %u boot%s%s; %s\n", verb, n,
		n == 1 ? "" : "s", cost,
		max_added ? "--max-added-boots caps it"
			  : "--max-added-boots N caps it, --no-boots adds none");
	/* boots that take time (or may): asked first on a terminal */
	if (!max_added && n > CMD_ASK_BOOTS && t != 0 &&
	    isatty(STDIN_FILENO) && isatty(STDERR_FILENO) &&
	    !ask_yes("add them?")) {
		fprintf(stderr, "kbisect: adding no boots: %s answers from the stored ones\n",
			verb);
		kb_analysis_no_sampling(a);
	}
	return 0;
}

void cmd_analysis_budget_note(const struct kb_analysis *a, const char *verb)
{
	if (kb_analysis_budget_spent(a))
		fprintf(stderr,
			"kbisect: note: %s stopped adding boots at its budget of %u (%u added) with comparisons undecided: a larger --max-added-boots would settle them\n",
			verb, kb_analysis_boots_added(a) + kb_analysis_boots_left(a),
			kb_analysis_boots_added(a));
}

int cmd_analysis_boots_fail(const struct cmd_analysis_boots *b,
			    const struct kb_err *err)
{
	int sig = b->caught ? cmd_stop_signal : 0;

	if (!sig)
		return cmd_fail(err);
	fprintf(stderr,
		"kbisect: %s; the boots that ended are stored, and the analysis is not\n",
		err->msg);
	return 128 + sig;
}

int cmd_commit_env_open(const struct kb_matrix *m, const char *model_path,
			const char *base_config, int quiet,
			struct cmd_commit_env *env, struct kb_err *err)
{
	const struct kb_source *src = kb_matrix_source(m);
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	int ret;

	memset(env, 0, sizeof(*env));
	if (!src->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: bisecting commits needs source.tree, the git repository to build from",
				  kb_matrix_file(m));
	if ((ret = kb_plan_new(m, &env->plan, err)))
		return ret;
	env->metric = kb_matrix_workload(m)->metric;
	if (model_path &&
	    (ret = kb_model_load(model_path, &env->model, err)))
		return ret;
	/* env is the caller's and stays put: kb_bisect_commits() and
	 * kb_bisect_test() set the id through bo->experiment_id */
	ro.experiment = &env->experiment;
	ro.base_config = base_config;
	ro.require_held = base_config != NULL;
	if ((ret = cmd_runner_open_boots(&env->r, m, env->model, &ro, quiet,
					 err)))
		return ret;
	kb_runner_set_store(env->r, NULL, &env->experiment);
	env->ex = kb_runner_boots(env->r);
	return 0;
}

void cmd_commit_env_store(struct cmd_commit_env *env, struct kb_store *s)
{
	if (!env->r)
		return;
	kb_runner_set_store(env->r, s, &env->experiment);
	kb_runner_tag(env->r, kb_store_tag(s));
}

void cmd_commit_env_close(struct cmd_commit_env *env)
{
	kb_runner_free(env->r);
	kb_model_free(env->model);
	kb_plan_free(env->plan);
	memset(env, 0, sizeof(*env));
}

void cmd_bisect_matrix_opts(const struct kb_matrix *m,
			    struct kb_bisect_opts *bo)
{
	const struct kb_repeat *rep = kb_matrix_repeat(m);

	bo->boots = rep->boots;
	bo->runs_per_boot = rep->runs_per_boot;
	bo->max_boots = rep->max_boots;
	bo->threshold_pct = kb_matrix_compare(m)->threshold_pct;
	bo->alpha = kb_matrix_compare(m)->alpha;
	bo->name = kb_matrix_name(m);
	bo->matrix_path = kb_matrix_file(m);
	bo->matrix_text = kb_matrix_text(m);
}

void cmd_commit_opts(const struct kb_matrix *m, struct cmd_commit_env *env,
		     struct kb_bisect_opts *bo)
{
	const struct kb_variant *v0 = kb_plan_variant(env->plan, 0);

	bo->metric = env->metric;
	bo->higher_is_better =
		kb_metric_direction(kb_matrix_workload(m), env->metric)
			.higher_is_better;
	cmd_bisect_matrix_opts(m, bo);
	bo->model_text = env->model ? kb_model_text(env->model) : NULL;
	/* builds are shared by key only between probes of the same model,
	 * or of the same matrix on real kernels */
	bo->build_salt = env->model ? kb_model_text(env->model)
				    : kb_matrix_text(m);
	bo->guest = &v0->guest;
	bo->nsettings = v0->nsettings;
	bo->settings = v0->settings;
	bo->experiment_id = &env->experiment;
	bo->stop = &cmd_stop_signal;
}

