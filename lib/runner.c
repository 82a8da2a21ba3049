/*
 * The runner (runner.h): the executors every path that boots uses, made
 * once here for `run`, `resume`, the analyses' and bisections' boots and
 * the daemon's steps.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "executor.h"
#include "fio.h"
#include "guest.h"
#include "machine.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "plan.h"
#include "realexec.h"
#include "spread.h"
#include "banned.h"

struct kb_runner {
	struct kb_executor *ex;     /* builds (and boots without hosts) */
	int64_t exp;                /* guests are named by it */
	char db_tag[16];            /* and by the database's tag */
	struct kb_pipeline_host *hosts;
	size_t nhosts;
	struct kb_executor **execs;   /* every slot's executor, once each */
	size_t nexecs;
	struct kb_guest_conn **conns; /* their connections */
	size_t nconns;
	char **down;                  /* per host: why it is down, or NULL */
	int overlap;                  /* builds run while boots do */
	double retry_s;               /* a failed host's back-off */
	struct kb_realexec_opts ro;   /* the real executors' (own) */
	/* kb_runner_open_boots(): one boot at a time over the hosts */
	struct kb_executor *boots;
	struct kb_pipeline_hosts_opts boot_opts;
};

/* Whether real boots read libvirt's console stream where a file would
 * do: $KBISECT_GUEST_CONSOLE is "stream" (docs/guests.md).  Read here
 * alone. */
static int console_stream(void)
{
	const char *mode = getenv("KBISECT_GUEST_CONSOLE");

	return mode && !strcmp(mode, "stream");
}

/* @o's settings of the real executors into @ro. */
static void real_opts(struct kb_realexec_opts *ro,
		      const struct kb_runner_opts *o)
{
	ro->console_stream = console_stream();
	ro->stop = o->stop;
	ro->build_progress = o->build_progress;
	ro->image_note = o->image_note;
	ro->build_arg = o->arg;
}

/* The real executor of one slot of host @h (its pool), on a connection
 * of its own; the host's first slot (@first) destroys its orphan
 * guests. */
static int open_slot(const struct kb_matrix *m, const struct kb_host *h,
		     int first, struct kb_realexec_opts *ro,
		     const struct kb_runner_opts *o,
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
	if (orphans && o->orphans)
		o->orphans(h->uri, orphans, o->arg);
	ro->pool = h->pool;
	if ((ret = kb_realexec_new(m, *conn, ro, ex, err)) == 0)
		return 0;
fail:
	kb_guest_disconnect(*conn);
	*conn = NULL;
	return ret;
}

/*
 * Every host's slots on real guests, with @ro and at most @max_slots a
 * host (0: its capacity), and r->ex to build.
 */
static int open_real_slots(struct kb_runner *r, const struct kb_matrix *m,
			   struct kb_realexec_opts *ro, size_t max_slots,
			   const struct kb_runner_opts *o, struct kb_err *err)
{
	struct kb_err first = KB_ERR_INIT;
	struct kb_guest_conn *builder_conn = NULL;
	size_t h, k, machines = 0;

	for (h = 0; h < r->nhosts; h++) {
		const struct kb_host *host = kb_matrix_host(m, h);
		size_t nslots = max_slots && max_slots < host->capacity
					? max_slots
					: host->capacity;
		struct kb_executor **slots =
			kb_calloc(nslots, sizeof(*slots));

		r->hosts[h].uri = host->uri;
		r->hosts[h].slots = slots;
		if (host->machine) {
			/* booted once at a time through its own commands */
			kb_machine_exec_new(m, host->machine, ro, &slots[0],
					    NULL);
			r->execs[r->nexecs++] = slots[0];
			r->hosts[h].nslots = 1;
			machines++;
			continue;
		}
		for (k = 0; k < nslots; k++) {
			struct kb_err e = KB_ERR_INIT;
			struct kb_guest_conn *c = NULL;

			if (open_slot(m, host, k == 0, ro, o, &c, &slots[k],
				      &e)) {
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
	if (!builder_conn && !machines)
		return kb_err_set(err, first.code ? first.code : KB_EFAIL, "%s",
				  first.msg);
	/* builds never use the connection, nor the pool: the first host's
	 * serves for the environment the executor reads when made (none
	 * when every host is a machine) */
	ro->pool = NULL;
	return kb_realexec_new(m, builder_conn, ro, &r->ex, err);
}

/* A runner with room for matrix @m's hosts and what their slots hold. */
static struct kb_runner *runner_new(const struct kb_matrix *m)
{
	struct kb_runner *r = kb_calloc(1, sizeof(*r));
	size_t h, n = kb_matrix_nhosts(m), cap = 0;

	for (h = 0; h < n; h++)
		cap += kb_matrix_host(m, h)->capacity;
	r->nhosts = n;
	r->hosts = kb_calloc(n + 1, sizeof(*r->hosts));
	r->down = kb_calloc(n + 1, sizeof(*r->down));
	r->execs = kb_calloc(cap + n + 1, sizeof(*r->execs));
	r->conns = kb_calloc(cap + 1, sizeof(*r->conns));
	r->ro = (struct kb_realexec_opts)KB_REALEXEC_OPTS_INIT;
	r->retry_s = KB_SPREAD_RETRY_S;
	return r;
}

/*
 * The model's executor on each host of @m, filling at most @max_slots of
 * its slots (0: its capacity), and r->ex to build.
 */
static int open_model_slots(struct kb_runner *r, const struct kb_matrix *m,
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
	/* the model's hosts back off in the model's time */
	r->retry_s = KB_SPREAD_RETRY_S * scale;
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

/* Real guests: check what a boot needs of @p (when given) and matrix
 * @m before a host is touched. */
static int check_real(const struct kb_plan *p, const struct kb_matrix *m,
		      struct kb_err *err)
{
	int ret;

	if (p && ((ret = kb_realexec_check_guests(p, err)) ||
		  (ret = kb_realexec_check_kernels(p, err))))
		return ret;
	return kb_fio_check(kb_matrix_workload(m), kb_matrix_file(m), NULL,
			    err);
}

/* The runner's real executors' options: the caller's, or its own. */
static struct kb_realexec_opts *runner_real(struct kb_runner *r,
					    const struct kb_runner_opts *o,
					    const struct kb_plan *p)
{
	struct kb_realexec_opts *ro = o->real ? o->real : &r->ro;

	if (!o->real) {
		ro->experiment = &r->exp;
		ro->plan = p;
	}
	ro->db_tag = r->db_tag;
	real_opts(ro, o);
	return ro;
}

/* Whether builds overlap boots: the matrix's, or $KBISECT_OVERLAP. */
static int overlap_of(const struct kb_matrix *m, int model, int *out,
		      struct kb_err *err)
{
	const char *overlap = getenv("KBISECT_OVERLAP");

	if (!overlap || !*overlap || !strcmp(overlap, "auto"))
		*out = kb_spread_overlap(m, model);
	else if (!strcmp(overlap, "yes"))
		*out = 1;
	else if (!strcmp(overlap, "no"))
		*out = 0;
	else
		return kb_err_set(err, KB_EINPUT,
				  "KBISECT_OVERLAP='%s' is not yes, no or auto",
				  overlap);
	return 0;
}

int kb_runner_open_hosts(const struct kb_plan *p,
			 const struct kb_runner_opts *o,
			 struct kb_runner **out, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	struct kb_runner *r;
	int overlap = 0, ret;

	*out = NULL;
	if ((ret = overlap_of(m, o->model != NULL, &overlap, err)))
		return ret;
	r = runner_new(m);
	r->overlap = overlap;
	if (o->model)
		ret = open_model_slots(r, m, o->model, 0, err);
	else if ((ret = check_real(p, m, err)) == 0)
		ret = open_real_slots(r, m, runner_real(r, o, p), 0, o,
				      err);
	if (ret) {
		kb_runner_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int kb_runner_open_boots(const struct kb_matrix *m,
			 const struct kb_runner_opts *o,
			 struct kb_runner **out, struct kb_err *err)
{
	struct kb_runner *r = runner_new(m);
	struct kb_pipeline_hosts_opts *ho = &r->boot_opts;
	int ret;

	*out = NULL;
	if (o->model) {
		ret = open_model_slots(r, m, o->model, 1, err);
	} else {
		struct kb_realexec_opts *ro = runner_real(r, o, NULL);

		if ((ret = check_real(ro->plan, m, err)) == 0)
			ret = open_real_slots(r, m, ro, 1, o, err);
	}
	if (ret)
		goto fail;
	*ho = (struct kb_pipeline_hosts_opts)KB_PIPELINE_HOSTS_OPTS_INIT;
	ho->hosts = r->hosts;
	ho->nhosts = r->nhosts;
	ho->seed = kb_spread_seed(kb_matrix_text(m));
	ho->retry_s = r->retry_s;
	ho->experiment = &r->exp;
	ho->progress = o->host_progress;
	ho->arg = o->arg;
	ho->stop = o->stop;
	if ((ret = kb_pipeline_hosts_executor(r->ex, ho, &r->boots, err)))
		goto fail;
	*out = r;
	return 0;
fail:
	kb_runner_free(r);
	return ret;
}

int kb_runner_open_model(const struct kb_model *model,
			 struct kb_runner **out, struct kb_err *err)
{
	struct kb_runner *r;
	double scale;
	int ret;

	*out = NULL;
	if ((ret = kb_model_time_scale_env(&scale, err)))
		return ret;
	r = kb_calloc(1, sizeof(*r));
	if ((ret = kb_model_executor_new(model, scale, &r->ex))) {
		free(r);
		return kb_err_set(err, ret, "invalid model time scale %g",
				  scale);
	}
	*out = r;
	return 0;
}

void kb_runner_free(struct kb_runner *r)
{
	size_t i;

	if (!r)
		return;
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
	free(r);
}

struct kb_executor *kb_runner_builder(const struct kb_runner *r)
{
	return r->ex;
}

struct kb_executor *kb_runner_boots(const struct kb_runner *r)
{
	return r->boots;
}

int64_t *kb_runner_experiment(struct kb_runner *r)
{
	return &r->exp;
}

void kb_runner_tag(struct kb_runner *r, const char *tag)
{
	snprintf(r->db_tag, sizeof(r->db_tag), "%s", tag ? tag : "");
}

void kb_runner_set_store(struct kb_runner *r, struct kb_store *s,
			 const int64_t *exp)
{
	r->boot_opts.store = s;
	if (exp)
		r->boot_opts.experiment = exp;
}

void kb_runner_on_hosts(struct kb_runner *r,
			void (*progress)(const struct kb_progress *ev,
					 void *arg),
			void *arg)
{
	r->boot_opts.progress = progress;
	r->boot_opts.arg = arg;
}

void kb_runner_pipeline_opts(const struct kb_runner *r,
			     struct kb_pipeline_opts *o)
{
	o->hosts = r->hosts;
	o->nhosts = r->nhosts;
	o->overlap = r->overlap;
	o->retry_s = r->retry_s;
}

int kb_runner_step(const struct kb_matrix *m, const struct kb_plan *plan,
		   const struct kb_model *model, double scale,
		   const char *host, const int64_t *experiment,
		   const char *db_tag, struct kb_executor **ex,
		   struct kb_guest_conn **conn, struct kb_err *err)
{
	struct kb_realexec_opts ro = KB_REALEXEC_OPTS_INIT;
	struct kb_runner_opts none = KB_RUNNER_OPTS_INIT;
	struct kb_guest_conn *c = NULL;
	size_t i, n = kb_matrix_nhosts(m);
	int ret;

	*ex = NULL;
	*conn = NULL;
	if (model) {
		/* one matrix host: its boots are the model's, as before */
		if ((ret = kb_model_executor_on(model, scale,
						n > 1 ? host : NULL, ex)))
			return kb_err_set(err, ret,
					  "invalid model time scale %g", scale);
		return 0;
	}
	ro.experiment = experiment;
	ro.db_tag = db_tag;
	ro.plan = plan;
	real_opts(&ro, &none);
	if (!host) {
		/* a build: it never uses the connection, made for the
		 * executor's reading of the environment; the first libvirt
		 * host of the matrix that answers (one drained may not), or
		 * none when every host is a machine */
		struct kb_err first = KB_ERR_INIT;
		size_t libvirt = 0;

		for (i = 0, ret = KB_EFAIL; i < n && ret; i++)
			if (!kb_matrix_host(m, i)->machine)
				ret = kb_guest_connect(
					kb_matrix_host(m, i)->uri, &c,
					libvirt++ ? NULL : &first);
		if (ret && libvirt)
			return kb_err_set(err, first.code, "%s", first.msg);
	} else {
		for (i = 0; i < n; i++) {
			const struct kb_host *h = kb_matrix_host(m, i);

			if (strcmp(h->uri, host))
				continue;
			if (h->machine)
				return kb_machine_exec_new(m, h->machine, &ro,
							   ex, err);
			ro.pool = h->pool;
		}
		if ((ret = kb_guest_connect(host, &c, err)))
			return ret;
	}
	if ((ret = kb_realexec_new(m, c, &ro, ex, err))) {
		kb_guest_disconnect(c);
		return ret;
	}
	*conn = c;
	return 0;
}

void kb_runner_conn_free(struct kb_guest_conn *conn)
{
	kb_guest_disconnect(conn);
}

int kb_runner_destroy_orphans(const char *uri, unsigned *n,
			      struct kb_err *err)
{
	struct kb_guest_conn *c = NULL;
	int ret;

	*n = 0;
	if ((ret = kb_guest_connect(uri, &c, err)))
		return ret;
	ret = kb_guest_destroy_orphans(c, NULL, NULL, n, err);
	kb_guest_disconnect(c);
	return ret;
}
