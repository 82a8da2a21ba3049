#ifndef KBISECT_CMD_BOOTS_H
#define KBISECT_CMD_BOOTS_H

#include <stdint.h>

#include "pipeline.h"

/*
 * What the verbs that boot share (boots.c): the runner (lib/runner.h)
 * opened with the notes every verb prints on stderr, an experiment run
 * or resumed with run's progress and stop, the boots analysis verbs add,
 * and the set-up of the commit verbs and bisections.  The verbs call
 * these; the engine and the executors live in lib/.
 */

struct kb_args;
struct kb_bisect_opts;
struct kb_err;
struct kb_executor;
struct kb_matrix;
struct kb_model;
struct kb_plan;
struct kb_progress;
struct kb_realexec_opts;
struct kb_runner;
struct kb_store;

/* A host's failure or drain (kb_progress) on stderr, as run says it. */
void cmd_host_progress(const struct kb_progress *ev, void *arg);

/*
 * kb_runner_open_hosts() for `run` and `resume`, and
 * kb_runner_open_boots() for analyses and bisections (@ro: the caller's
 * real executor options, NULL for the runner's own), on the model
 * @model or without it on real guests, with make's progress, the guest
 * image's lines and the orphans destroyed said on stderr unless @quiet
 * (open_boots: and the hosts' failures and drains), and a stop by
 * SIGINT/SIGTERM (cmd_stop_signal) destroying a running guest.
 */
int cmd_runner_open_hosts(struct kb_runner **r, const struct kb_plan *p,
			  const struct kb_model *model, int quiet,
			  struct kb_err *err);
int cmd_runner_open_boots(struct kb_runner **r, const struct kb_matrix *m,
			  const struct kb_model *model,
			  struct kb_realexec_opts *ro, int quiet,
			  struct kb_err *err);

/*
 * Execute @p with @r: a new experiment (kb_pipeline_run, @model_text
 * stored with it), or when *kb_runner_experiment(@r) is set, the missing
 * boots of that one (kb_pipeline_resume; the caller took it over).
 * Experiments whose kbisect process is gone are marked interrupted
 * first.  Progress on stderr unless args->quiet; SIGINT and SIGTERM stop
 * it after the running step, the experiment interrupted, with a message
 * naming `kbisect resume` and the exit status 128 + the signal.
 * Otherwise prints the results (args->json) and returns the exit status.
 */
int cmd_runner_go(struct kb_runner *r, struct kb_store *s,
		  const struct kb_plan *p, const char *model_text,
		  const struct kb_args *args);

/* ---- boots added by the analysis verbs (compare, why, effects) ------ */

/*
 * What an analysis verb adds boots through, when it may add some.  A
 * model experiment boots again on its stored model by itself (over its
 * hosts, a drain said on stderr): nothing is opened.  A "libvirt" one
 * gets real executors on every host of its stored matrix, opened as
 * `run` opens them (cmd_runner_open_boots(): orphan kbisect-* guests
 * destroyed, guests named by the experiment, the boots spread over the
 * hosts, a host that fails drained, its failures recorded in @s), handed
 * to @a (kb_analysis_set_executor()) with a line on stderr per boot, and
 * SIGINT/SIGTERM caught (cmd_catch_stop()) so that a stop destroys the
 * running guest.  Any other executor cannot boot again: KB_EINPUT.
 * cmd_analysis_boots_close() releases it (also after a failure, and when
 * nothing was opened).
 */
struct kb_analysis;
struct cmd_analysis_boots {
	struct kb_runner *r;       /* over the real executors, or NULL */
	struct kb_pipeline_opts o; /* its progress and stop */
	int caught;                /* the stop signals are caught */
};
int cmd_analysis_boots_open(struct cmd_analysis_boots *b,
			    struct kb_analysis *a, struct kb_store *s,
			    struct kb_err *err);
void cmd_analysis_boots_close(struct cmd_analysis_boots *b);
/*
 * Before analysis verb @verb adds boots to @a: the most it may add, @bound
 * (or --max-added-boots @max_added when given: a number from 0), is set
 * as @a's budget and said on stderr with the time so many boots may take
 * (the mean boot on the experiment's hosts in @s, when there are some).
 * On a terminal, without --max-added-boots, it asks before more than
 * CMD_ASK_BOOTS that take time (a model without time: takes none); an
 * answer other than yes adds none (kb_analysis_no_sampling: the verb
 * answers from the stored boots, as with --no-boots).  Returns 0, or the usage error's exit status
 * (2) for a bad @max_added.
 */
#define CMD_ASK_BOOTS 20
int cmd_analysis_budget(struct kb_analysis *a, struct kb_store *s,
			const char *verb, size_t bound, const char *max_added);
/* After the verb: when the budget stopped a comparison short, say that
 * a larger --max-added-boots would settle it (on stderr). */
void cmd_analysis_budget_note(const struct kb_analysis *a, const char *verb);

/*
 * Report @err as cmd_fail() does; after a stop (a real boot interrupted),
 * say that the boots that ended are stored and return 128 + the signal.
 */
int cmd_analysis_boots_fail(const struct cmd_analysis_boots *b,
			    const struct kb_err *err);

/* ---- commits: `bisect commits` and `test` --------------------------- */

/*
 * What both commit verbs (and option bisection on real kernels) run on:
 * matrix @m's plan (its variant 0 gives the settings and guest every
 * commit is built and booted with), and the executor over every host of
 * the matrix (cmd_runner_open_boots(): each probe's boots spread over
 * the hosts, a host that fails drained), on the model at @model_path, or
 * without it on real guests (orphan kbisect-* guests destroyed first,
 * said on stderr unless @quiet).  source.tree is required.  With
 * @base_config (option bisection on real kernels), the real executor
 * resolves each probe from that .config and refuses to build one whose
 * changes do not hold (kb_realexec_opts).  Once the database is open,
 * cmd_commit_env_store() gives it the store the hosts' failures are
 * recorded in.  cmd_commit_env_close() releases it (also after a
 * failure).  env must stay put.
 */
struct cmd_commit_env {
	struct kb_plan *plan;
	struct kb_model *model;     /* NULL: the real executor */
	struct kb_runner *r;        /* the hosts' executors */
	struct kb_executor *ex;     /* kb_runner_boots(r): over them all */
	const char *metric;         /* the matrix's workload.metric */
	int64_t experiment;         /* guests are named by it (realexec) */
};
int cmd_commit_env_open(const struct kb_matrix *m, const char *model_path,
			const char *base_config, int quiet,
			struct cmd_commit_env *env, struct kb_err *err);
void cmd_commit_env_store(struct cmd_commit_env *env, struct kb_store *s);
void cmd_commit_env_close(struct cmd_commit_env *env);
/* Fill @bo's settings from matrix @m: repeat, compare, and the name,
 * path and text stored with the experiment (every bisection). */
void cmd_bisect_matrix_opts(const struct kb_matrix *m,
			    struct kb_bisect_opts *bo);
/* Fill @bo's matrix settings (repeat, compare, metric, settings, guest,
 * what is stored) for commit verbs. */
void cmd_commit_opts(const struct kb_matrix *m, struct cmd_commit_env *env,
		     struct kb_bisect_opts *bo);

#endif
