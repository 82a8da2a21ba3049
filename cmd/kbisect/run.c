/*
 * kbisect run: plan a matrix and execute it in this process.  Also what
 * `resume` shares with it: the executor (model or real guests), the
 * progress on stderr, and stopping on SIGINT/SIGTERM with the experiment
 * marked interrupted.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "build.h"
#include "executor.h"
#include "fio.h"
#include "guest.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "realexec.h"
#include "spread.h"
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
	if (p->units_full)
		snprintf(units, sizeof(units), ", %u/%u units (%.0f%%)",
			 p->units, p->units_full,
			 100.0 * p->units / p->units_full);
	else
		snprintf(units, sizeof(units), ", %u units", p->units);
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

/* The real executor of one slot of host @h (its pool), on a connection
 * of its own; the host's first slot destroys its orphan guests. */
static int open_slot(const struct kb_matrix *m, const struct kb_host *h,
		     int first, struct kb_realexec_opts *ro, int quiet,
		     struct kb_guest_conn **conn, struct kb_executor **ex,
		     struct kb_err *err)
{
	unsigned orphans = 0;
	int ret;

	*conn = NULL;
	*ex = NULL;
	if ((ret = kb_guest_connect(h->uri, conn, err)))
		return ret;
	if (first &&
	    (ret = kb_guest_destroy_orphans(*conn, NULL, NULL, &orphans,
					    err)))
		goto fail;
	if (orphans && !quiet)
		fprintf(stderr, "kbisect: destroyed %u orphan guest%s on %s\n",
			orphans, orphans == 1 ? "" : "s", h->uri);
	ro->pool = h->pool;
	if ((ret = kb_realexec_new(m, *conn, ro, ex, err)) == 0)
		return 0;
fail:
	kb_guest_disconnect(*conn);
	*conn = NULL;
	return ret;
}

/* Boots on real guests read libvirt's console stream where a file would
 * do when $KBISECT_GUEST_CONSOLE is "stream" (docs/guests.md); a stop
 * destroys the running guest; make's progress and the guest image's
 * notes on stderr unless @quiet. */
static void real_opts(struct kb_realexec_opts *ro, int quiet)
{
	ro->console_stream = getenv("KBISECT_GUEST_CONSOLE") &&
			     !strcmp(getenv("KBISECT_GUEST_CONSOLE"), "stream");
	ro->stop = &cmd_stop_signal;
	if (!quiet) {
		ro->build_progress = on_make;
		ro->image_note = on_image;
	}
}

/*
 * Every host's slots on real guests, with @ro and at most @max_slots a
 * host (0: its capacity), and r->ex to build (cmd_runner_open_hosts,
 * cmd_runner_open_boots).
 */
static int open_real_slots(struct cmd_runner *r, const struct kb_matrix *m,
			   struct kb_realexec_opts *ro, size_t max_slots,
			   int quiet, struct kb_err *err)
{
	struct kb_err first = KB_ERR_INIT;
	struct kb_guest_conn *builder_conn = NULL;
	size_t h, k;

	ro->db_tag = r->db_tag;
	for (h = 0; h < r->nhosts; h++) {
		const struct kb_host *host = kb_matrix_host(m, h);
		size_t nslots = max_slots && max_slots < host->capacity
					? max_slots
					: host->capacity;
		struct kb_executor **slots =
			kb_calloc(nslots, sizeof(*slots));

		r->hosts[h].uri = host->uri;
		r->hosts[h].slots = slots;
		for (k = 0; k < nslots; k++) {
			struct kb_err e = KB_ERR_INIT;
			struct kb_guest_conn *c = NULL;

			if (open_slot(m, host, k == 0, ro, quiet, &c,
				      &slots[k], &e)) {
				/* said by the pipeline's progress, which
				 * records it with the experiment */
				if (k == 0) {
					r->down[h] = kb_asprintf(
						"host %s cannot be used: %s",
						host->uri, e.msg);
					if (!first.code)
						first = e;
				}
				break;
			}
			r->conns[r->nconns++] = c;
			r->execs[r->nexecs++] = slots[k];
			if (!builder_conn)
				builder_conn = c;
		}
		r->hosts[h].nslots = k;
		r->hosts[h].down = r->down[h];
	}
	if (!builder_conn)
		return kb_err_set(err, first.code ? first.code : KB_EFAIL, "%s",
				  first.msg);
	/* builds never use the connection, nor the pool: the first host's
	 * serves for the environment the executor reads when made */
	ro->pool = NULL;
	return kb_realexec_new(m, builder_conn, ro, &r->ex, err);
}

/* Every host's slots on real guests (cmd_runner_open_hosts). */
static int open_real_hosts(struct cmd_runner *r, const struct kb_plan *p,
			   int quiet, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	int ret;

	if ((ret = kb_realexec_check_guests(p, err)) ||
	    (ret = kb_realexec_check_kernels(p, err)) ||
	    (ret = kb_fio_check(kb_matrix_workload(m), kb_matrix_file(m),
				NULL, err)))
		return ret;
	ro.experiment = &r->exp;
	ro.plan = p;
	real_opts(&ro, quiet);
	return open_real_slots(r, m, &ro, 0, quiet, err);
}

/* r's room for matrix @m's hosts and what their slots hold. */
static void alloc_hosts(struct cmd_runner *r, const struct kb_matrix *m)
{
	size_t h, n = kb_matrix_nhosts(m), cap = 0;

	for (h = 0; h < n; h++)
		cap += kb_matrix_host(m, h)->capacity;
	r->nhosts = n;
	r->hosts = kb_calloc(n, sizeof(*r->hosts));
	r->down = kb_calloc(n, sizeof(*r->down));
	r->execs = kb_calloc(cap + n, sizeof(*r->execs));
	r->conns = kb_calloc(cap + 1, sizeof(*r->conns));
}

/*
 * The model's executor on each host of @m, filling at most @max_slots of
 * its slots (0: its capacity), and r->ex to build.
 */
static int open_model_slots(struct cmd_runner *r, const struct kb_matrix *m,
			    const struct kb_model *model, size_t max_slots,
			    struct kb_err *err)
{
	size_t h, k, n = r->nhosts;
	double scale;
	int ret;

	if ((ret = kb_model_time_scale_env(&scale, err)) ||
	    (ret = kb_model_check_metric(model, kb_matrix_workload(m)->metric,
					 err)))
		return ret;
	if ((ret = kb_model_executor_new(model, scale, &r->ex)))
		return kb_err_set(err, ret, "invalid model time scale %g",
				  scale);
	for (h = 0; h < n; h++) {
		const struct kb_host *host = kb_matrix_host(m, h);
		size_t nslots = max_slots && max_slots < host->capacity
					? max_slots
					: host->capacity;
		struct kb_executor **slots = kb_calloc(nslots, sizeof(*slots));
		struct kb_executor *ex = NULL;

		/* one matrix host: its boots are the model's, as before */
		kb_model_executor_on(model, scale, n > 1 ? host->uri : NULL,
				     &ex);
		r->execs[r->nexecs++] = ex;
		for (k = 0; k < nslots; k++)
			slots[k] = ex; /* the model's executor is thread-safe */
		r->hosts[h].uri = host->uri;
		r->hosts[h].nslots = nslots;
		r->hosts[h].slots = slots;
	}
	return 0;
}

int cmd_runner_open_hosts(struct cmd_runner *r, const struct kb_plan *p,
			  const struct kb_model *model, int quiet,
			  struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const char *overlap = getenv("KBISECT_OVERLAP");

	memset(r, 0, sizeof(*r));
	/* whether kernels build while guests boot: the matrix's
	 * build.overlap, which $KBISECT_OVERLAP overrides */
	if (!overlap || !*overlap || !strcmp(overlap, "auto"))
		r->overlap = kb_spread_overlap(m, model != NULL);
	else if (!strcmp(overlap, "yes"))
		r->overlap = 1;
	else if (strcmp(overlap, "no"))
		return kb_err_set(err, KB_EINPUT,
				  "KBISECT_OVERLAP='%s' is not yes, no or auto",
				  overlap);
	alloc_hosts(r, m);
	if (!model)
		return open_real_hosts(r, p, quiet, err);
	return open_model_slots(r, m, model, 0, err);
}

int cmd_runner_open_boots(struct cmd_runner *r, const struct kb_matrix *m,
			  const struct kb_model *model,
			  struct kb_realexec_opts *ro, int quiet,
			  struct kb_err *err)
{
	struct kb_pipeline_hosts_opts *o = &r->boot_opts;
	int ret;

	memset(r, 0, sizeof(*r));
	alloc_hosts(r, m);
	if (model) {
		ret = open_model_slots(r, m, model, 1, err);
	} else if ((!ro->plan ||
		    ((ret = kb_realexec_check_guests(ro->plan, err)) == 0 &&
		     (ret = kb_realexec_check_kernels(ro->plan, err)) == 0)) &&
		   (ret = kb_fio_check(kb_matrix_workload(m),
				       kb_matrix_file(m), NULL, err)) == 0) {
		real_opts(ro, quiet);
		ret = open_real_slots(r, m, ro, 1, quiet, err);
	}
	if (ret)
		return ret;
	*o = (struct kb_pipeline_hosts_opts)KB_PIPELINE_HOSTS_OPTS_INIT;
	o->hosts = r->hosts;
	o->nhosts = r->nhosts;
	o->seed = kb_spread_seed(kb_matrix_text(m));
	o->experiment = &r->exp;
	o->progress = quiet ? NULL : cmd_host_progress;
	o->stop = &cmd_stop_signal;
	return kb_pipeline_hosts_executor(r->ex, o, &r->boots, err);
}

void cmd_runner_tag(struct cmd_runner *r, const struct kb_store *s)
{
	snprintf(r->db_tag, sizeof(r->db_tag), "%s",
		 kb_store_tag(s) ? kb_store_tag(s) : "");
}

void cmd_runner_close(struct cmd_runner *r)
{
	size_t i;

	kb_executor_free(r->boots);
	kb_executor_free(r->ex);
	for (i = 0; i < r->nexecs; i++)
		kb_executor_free(r->execs[i]);
	for (i = 0; i < r->nconns; i++)
		kb_guest_disconnect(r->conns[i]);
	for (i = 0; i < r->nhosts; i++) {
		free((void *)r->hosts[i].slots);
		free(r->down[i]);
	}
	free(r->hosts);
	free(r->down);
	free(r->execs);
	free(r->conns);
	memset(r, 0, sizeof(*r));
}

int cmd_runner_go(struct cmd_runner *r, struct kb_store *s,
		  const struct kb_plan *p, const char *model_text,
		  const struct kb_args *args)
{
	struct kb_pipeline_opts popts = KB_PIPELINE_OPTS_INIT;
	struct progress prog = { 0, args->quiet };
	struct kb_err err = KB_ERR_INIT;
	double overlapped = 0;
	unsigned gone = 0;
	int resume = r->exp != 0, ret;

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
	popts.hosts = r->hosts;
	popts.nhosts = r->nhosts;
	popts.overlap = r->overlap;
	popts.overlap_s = &overlapped;
	cmd_catch_stop(1);
	if (resume)
		ret = kb_pipeline_resume(s, r->exp, p, r->ex, &popts, &err);
	else
		ret = kb_pipeline_run(s, p, r->ex, &popts, &r->exp, &err);
	cmd_catch_stop(0);
	if (ret && cmd_stop_signal && r->exp) {
		fprintf(stderr,
			"kbisect: %s; what finished is stored: 'kbisect resume %lld%s%s' carries it on\n",
			err.msg, (long long)r->exp, args->db ? " --db " : "",
			args->db ? args->db : "");
		return 128 + cmd_stop_signal;
	}
	if (ret) {
		if (r->exp)
			fprintf(stderr,
				"kbisect: experiment %lld stopped; what finished is stored\n",
				(long long)r->exp);
		if (r->exp && strstr(err.msg, "every host is drained"))
			fprintf(stderr,
				"kbisect: once a host is back, 'kbisect resume %lld%s%s' carries it on\n",
				(long long)r->exp, args->db ? " --db " : "",
				args->db ? args->db : "");
		return cmd_fail(&err);
	}
	if (r->nhosts && r->overlap && !args->quiet)
		fprintf(stderr,
			"kbisect: builds and boots overlapped for %.*f s (what building first would have added)\n",
			overlapped < 10 ? 1 : 0, overlapped);
	if ((ret = cmd_print_results(s, r->exp, args->json, &err)))
		return cmd_fail(&err);
	return 0;
}

static const struct kb_opt run_opts[] = {
	KB_OPT_MODEL("use the performance-model executor (docs/model.md) instead of real kernels and guests; without it, guests boot through libvirt on the matrix's hosts (docs/guests.md), after any kbisect-* guest left running there is destroyed"),
	KB_OPT_DB,
	KB_OPT_JSON("print the results as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_ALLOW_DROPPED("run even when requested options do not hold"),
	KB_OPT_MAX_BOOTS,
	KB_OPT_MAX_SAMPLES,
	KB_OPT_END,
};

static int cmd_run(const struct kb_args *args);

const struct cmd cmd_run_entry = {
	.name = "run",
	.rank = 20,
	.args = "MATRIX",
	.opts = run_opts,
	.fn = cmd_run,
	.summary = "run an experiment in this process and print its results",
	.help = "Plans MATRIX, then builds, boots and measures every variant for\n"
		"repeat.boots boots of repeat.runs_per_boot runs each, storing every\n"
		"boot and its samples as it ends.  A failed build or boot is stored\n"
		"with its reason and the run goes on.  Prints a results table.\n"
		"\n"
		"The boots are spread over the matrix's hosts, each variant's over\n"
		"every host, up to each host's capacity at once.  A host that fails 3\n"
		"boots in a row for reasons of its own (libvirt lost, a domain\n"
		"refused) is drained and its boots go to the others; those failures\n"
		"are not the kernel's and are not stored as boots (`kbisect hosts ID`).\n"
		"The next kernels build while guests boot when the matrix's\n"
		"build.overlap says so (by default unless a guest boots on this\n"
		"machine); KBISECT_OVERLAP=yes or no in the environment overrides it.\n"
		"\n"
		"SIGINT (Ctrl-C) or SIGTERM stops it after the running step (a real\n"
		"guest is destroyed at once): the experiment is marked interrupted and\n"
		"`kbisect resume ID` carries it on; the exit status is 128 + the\n"
		"signal's number.  A second signal stops at once.\n",
	.epilog = "Example:\n"
		  "  kbisect run kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
		  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n",
};

static int cmd_run(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	const char *model_path = args->model, *db = args->db;
	struct kb_plan_limits lim;
	struct cmd_runner r;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_store *s = NULL;
	int allow_dropped = args->allow_dropped, ret;

	memset(&r, 0, sizeof(r));
	if ((ret = cmd_plan_limits("run", args, &lim)))
		return ret;
	/* Everything that can be refused is checked before the database is
	 * touched: a bad input writes nothing. */
	if ((ret = cmd_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)) ||
	    (ret = kb_plan_check_limits(p, &lim, &err)))
		goto fail;
	/* Real kernels: the tree must be there (plan only notes a missing
	 * one); resolve the configs first and refuse, as `plan` does,
	 * variants whose requested options did not hold (plan.c). */
	if (!model_path && kb_matrix_source(m)->tree &&
	    access(kb_matrix_source(m)->tree, F_OK) < 0) {
		kb_err_set(&err, KB_EINPUT,
			   "%s: source.tree '%s' does not exist: a real run builds kernels from it",
			   kb_matrix_file(m), kb_matrix_source(m)->tree);
		goto fail;
	}
	if (!model_path && (ret = cmd_plan_resolve(p, args->quiet, &err)))
		goto fail;
	if (kb_plan_ndropped(p) && !allow_dropped) {
		cmd_plan_report_dropped(p, stderr);
		fprintf(stderr, "kbisect: not running a matrix whose requested options do not hold: fix the fragments, or pass --allow-dropped\n");
		ret = 1;
		goto out;
	}
	if (model_path && (ret = kb_model_load(model_path, &model, &err)))
		goto fail;
	if ((ret = cmd_runner_open_hosts(&r, p, model, args->quiet,
					 &err)) ||
	    (ret = cmd_open_store(db, &s, &err)))
		goto fail;
	cmd_runner_tag(&r, s);
	ret = cmd_runner_go(&r, s, p, model ? kb_model_text(model) : NULL,
			    args);
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_store_close(s);
	cmd_runner_close(&r);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
