#ifndef KB_RUNNER_H
#define KB_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

struct kb_build_progress;
struct kb_err;
struct kb_executor;
struct kb_guest_conn;
struct kb_matrix;
struct kb_model;
struct kb_plan;
struct kb_realexec_opts;
struct kb_store;

/*
 * The runner: what every path that boots executes with, in the CLI and
 * the daemon alike — the executor of each host's slots (the performance
 * model's, or a real executor on a libvirt connection of its own, with
 * the host's pool), the console mode, the builder, and for the boots the
 * analyses add and bisections probe with, the executor that spreads them
 * over the hosts (kb_pipeline_hosts_executor()).  The environment it
 * reads is read here alone: $KBISECT_GUEST_CONSOLE ("stream": libvirt's
 * console stream where a file would do, docs/guests.md),
 * $KBISECT_OVERLAP and $KBISECT_MODEL_TIME_SCALE.
 */
struct kb_runner;

struct kb_runner_opts {
	/* the model to boot on (borrowed: it must outlive the runner), or
	 * NULL for real guests through libvirt */
	const struct kb_model *model;
	/* real guests: what the real executors are made with (borrowed;
	 * the runner sets its console mode, stop, pool and notes; its plan,
	 * when it has one, is checked before a host is touched), or NULL:
	 * its own, naming guests by kb_runner_experiment(), with the plan
	 * kb_runner_open_hosts() is given */
	struct kb_realexec_opts *real;
	/* once *stop is set, a running guest is destroyed */
	const volatile sig_atomic_t *stop;
	/* notes, each may be NULL: make's progress, the guest image's
	 * lines, the orphan kbisect-* guests destroyed on a host, and what
	 * befalls the hosts of boots added one at a time */
	void (*build_progress)(const struct kb_build_progress *p, void *arg);
	void (*image_note)(const char *line, void *arg);
	void (*orphans)(const char *uri, unsigned n, void *arg);
	void (*host_progress)(const struct kb_progress *ev, void *arg);
	void *arg;
};
#define KB_RUNNER_OPTS_INIT                                              \
	{ .model = NULL, .real = NULL, .stop = NULL,                      \
	  .build_progress = NULL, .image_note = NULL, .orphans = NULL,    \
	  .host_progress = NULL, .arg = NULL }

/*
 * What `run` and `resume` execute with: on every host of @p's matrix
 * (docs/guests.md, "Several hosts") a slot per unit of its capacity, for
 * kb_pipeline_opts.hosts (kb_runner_pipeline_opts()), and a builder.  On
 * the model an executor per host (kb_model_executor_on(), named by its
 * URI when the matrix has several) fills its slots; the matrix's metric
 * is checked and $KBISECT_MODEL_TIME_SCALE read.  On real guests the
 * workload, guests and kernels are checked, each slot has a connection
 * and a real executor of its own (its host's pool), orphan kbisect-*
 * guests are destroyed on each host once (told to o->orphans), and the
 * builder is a real executor on the first host that answered, without
 * its pool; a host that cannot be reached is left down (its boots go to
 * the others), and only when none can is it an error.  Builds overlap
 * boots as the matrix's build.overlap says (kb_spread_overlap()), unless
 * $KBISECT_OVERLAP is "yes" or "no" ("auto" or empty: the matrix's;
 * another value is KB_EINPUT).  Returns 0 with *@out (kb_runner_free()).
 */
int kb_runner_open_hosts(const struct kb_plan *p,
			 const struct kb_runner_opts *o,
			 struct kb_runner **out, struct kb_err *err);

/*
 * What analyses and bisections add boots through, one at a time: as
 * kb_runner_open_hosts() on every host of matrix @m, but one slot a
 * host, and kb_runner_boots(), the executor that spreads the boots over
 * the hosts and drains a host that fails (the matrix's spread; told to
 * o->host_progress; stopped by o->stop).  It counts and records with
 * the experiment kb_runner_experiment() points at once a store is set
 * (kb_runner_set_store()).
 */
int kb_runner_open_boots(const struct kb_matrix *m,
			 const struct kb_runner_opts *o,
			 struct kb_runner **out, struct kb_err *err);

/*
 * A runner of no hosts on model @model alone (borrowed), for a
 * bisection without a matrix: its builder builds and boots
 * ($KBISECT_MODEL_TIME_SCALE read).
 */
int kb_runner_open_model(const struct kb_model *model,
			 struct kb_runner **out, struct kb_err *err);

void kb_runner_free(struct kb_runner *r);

/* The executor that builds (and with no hosts, boots). */
struct kb_executor *kb_runner_builder(const struct kb_runner *r);
/* kb_runner_open_boots(): the executor over every host, one boot at a
 * time; NULL for a runner of kb_runner_open_hosts(). */
struct kb_executor *kb_runner_boots(const struct kb_runner *r);
/* The experiment guests are named by and hosts' events recorded with:
 * the runner's own (set it to resume one), 0 until set. */
int64_t *kb_runner_experiment(struct kb_runner *r);
/* Name the runner's guests after the database whose tag is @tag
 * (kb_store_tag(); NULL or "": the names of a database without one),
 * read at each boot: set it once the store is open, before the first. */
void kb_runner_tag(struct kb_runner *r, const char *tag);
/* Count and record the boots added (kb_runner_boots()) with experiment
 * *@exp (borrowed) of @s instead of the runner's own. */
void kb_runner_set_store(struct kb_runner *r, struct kb_store *s,
			 const int64_t *exp);
/* Tell @progress (with @arg) what befalls the hosts of the boots added
 * (kb_runner_boots()) from now on, instead of o->host_progress. */
void kb_runner_on_hosts(struct kb_runner *r,
			void (*progress)(const struct kb_progress *ev,
					 void *arg),
			void *arg);
/* Fill @o's hosts, nhosts, overlap and retry_s (KB_SPREAD_RETRY_S; on
 * the model, times its time scale) (kb_runner_open_hosts()). */
void kb_runner_pipeline_opts(const struct kb_runner *r,
			     struct kb_pipeline_opts *o);

/*
 * The executor of one step, for the daemon: a build (@host NULL: on the
 * first host of @m that answers, without a pool) or a boot on @host (a
 * URI of @m's hosts, with its pool), on the model @model at time scale
 * @scale (its boots record @host when @m has several), or on real guests
 * (@plan's resolution; guests named by *@experiment and the database's
 * tag @db_tag, borrowed; the console mode as for every runner).  *@conn is the libvirt connection (NULL on the
 * model), which the caller frees after the executor
 * (kb_runner_conn_free()).  Returns 0 with *@ex.
 */
int kb_runner_step(const struct kb_matrix *m, const struct kb_plan *plan,
		   const struct kb_model *model, double scale,
		   const char *host, const int64_t *experiment,
		   const char *db_tag, struct kb_executor **ex, struct kb_guest_conn **conn,
		   struct kb_err *err);
void kb_runner_conn_free(struct kb_guest_conn *conn);

/*
 * Destroy the orphan kbisect-* guests on @uri (kb_guest_destroy_orphans():
 * those whose kbisect is gone); *@n: how many.  For a daemon starting:
 * the guests its dead predecessor left.
 */
int kb_runner_destroy_orphans(const char *uri, unsigned *n,
			      struct kb_err *err);

#endif
