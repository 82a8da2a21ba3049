#ifndef KB_STORE_H
#define KB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct kb_err;

/*
 * The store: one sqlite database holding experiments, their variants and
 * the options of each, builds, boots, samples, analyses, bisection steps
 * and the job queue.  WAL journal, foreign keys on, schema version in
 * PRAGMA user_version, migrations from db/ compiled in.  Views with
 * readable columns (v_variant_summary, v_history) are for people browsing
 * the file.  Every write that belongs together is one transaction.
 *
 * This is the only module that includes <sqlite3.h>.  A struct kb_store
 * is one connection, for one thread at a time; processes and threads that
 * share the file open their own (writers wait up to 5 s for each other).
 *
 * lib/store.c opens and migrates the database; each section of this
 * header is implemented in one lib/store_<concern>.c (experiments,
 * variants and boots in store_exp.c, the build cache with the builds
 * from source in store_build.c).
 */

struct kb_store;

/* What kb_store_open() may do to the file. */
enum kb_store_access {
	/* read and write; a missing database is created, with its folder */
	KB_STORE_CREATE = 0,
	/* read and write an existing database; one that cannot be written
	 * here (a read-only file, folder or medium) is opened as with
	 * KB_STORE_READ_ONLY instead: kb_store_read_only() says so */
	KB_STORE_EXISTING,
	/* read an existing database; nothing is written to it (but see
	 * kb_store_open() for a database of an older kbisect) */
	KB_STORE_READ_ONLY,
};

struct kb_store_opts {
	/* migrate only up to this schema version (0 = latest); for tests */
	unsigned max_version;
	/* KB_STORE_CREATE unless told otherwise */
	enum kb_store_access access;
};
#define KB_STORE_OPTS_INIT { .max_version = 0, .access = KB_STORE_CREATE }

/*
 * Open the database at @path and migrate it to the latest schema in one
 * transaction.  With KB_STORE_CREATE (and @opts NULL) a missing database
 * is created, with its parent folder; otherwise nothing is created and a
 * missing path (or an empty file) is KB_ENOTFOUND "no database at ...".
 *
 * Ownership and version are checked by reading alone, before anything is
 * written (the journal mode, a migration): a file that is not a database,
 * a database of another program and one from a newer kbisect are refused
 * (KB_EFAIL, naming both versions for the last) and left byte for byte
 * as they were.
 *
 * Read-only, the database is read without being written: through a
 * connection that refuses every change (PRAGMA query_only) when the file
 * and its folder can be written, so that sqlite coordinates with writers
 * and removes the -wal and -shm files it made; else through a read-only
 * connection, or an immutable one when there are no -wal and -shm files
 * (nobody writes it, and they could not be made).  A database of an older
 * kbisect is migrated first when it can be written, and refused when it
 * cannot.
 *
 * @opts may be NULL.  On success *@out is the caller's to kb_store_close().
 */
int kb_store_open(const char *path, const struct kb_store_opts *opts,
		  struct kb_store **out, struct kb_err *err);
void kb_store_close(struct kb_store *s);

/* Is @s open read-only (KB_STORE_READ_ONLY, or KB_STORE_EXISTING on a
 * database that cannot be written here)?  Writes then fail, saying so. */
int kb_store_read_only(const struct kb_store *s);

/*
 * The database's tag: the first KB_STORE_TAG_LEN hex digits of the
 * random id it was given once (db/0012, table meta), which guests are
 * named by (kb_guest_name()) so that two databases booting on one
 * libvirtd never share a name.  Owned by @s; NULL for a database opened
 * read-only before db/0012.
 */
#define KB_STORE_TAG_LEN 6
const char *kb_store_tag(const struct kb_store *s);

/* The schema version of the open database, and the latest one known. */
unsigned kb_store_version(const struct kb_store *s);
unsigned kb_store_latest_version(void);

/* What an experiment is, for kb_store_experiment_create(). */
struct kb_store_experiment {
	const char *name;
	const char *matrix_path;
	const char *matrix_text; /* the matrix YAML as submitted */
	const char *model_text;  /* the model YAML, or NULL for real runs */
	const char *executor;    /* "model", "libvirt" */
	const char *design;      /* "full", "one-at-a-time", "fractional" */
	const char *generators;  /* fractional generators, or NULL */
	const char *metric;
	unsigned boots;          /* boots per variant */
	unsigned runs_per_boot;
	size_t nvariants;
	const struct kb_variant *variants;
};

/*
 * Store an experiment with all its variants and their options in one
 * transaction, in state "running", owned by this process (its host, pid,
 * start time and boot id: db/0006), so that a later kbisect can tell
 * when the process is gone.  Sets *@id.  Nothing is written when it
 * fails.
 */
int kb_store_experiment_create(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       int64_t *id, struct kb_err *err);

/* Set an experiment's state ("running", "done", "failed", "cancelled",
 * "interrupted"), with an error text for "failed" and "interrupted" (may
 * be NULL). */
int kb_store_experiment_finish(struct kb_store *s, int64_t id,
			       const char *state, const char *error,
			       struct kb_err *err);

/*
 * Look up a build by key.  Returns 0 and fills *@out (caller releases)
 * and *@build_id when found; KB_ENOTFOUND when not.
 */
int kb_store_build_get(struct kb_store *s, const char *key,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err);

/*
 * Record a build result under @key; sets *@build_id.  A key is stored
 * once: KB_EEXISTS when it already is (nothing written; use
 * kb_store_build_get()).
 */
int kb_store_build_put(struct kb_store *s, const char *key,
		       const char *executor,
		       const struct kb_build_result *r, int64_t *build_id,
		       struct kb_err *err);

/* Does boot @boot_no of variant @variant_idx of experiment @exp exist? */
int kb_store_boot_exists(struct kb_store *s, int64_t exp,
			 unsigned variant_idx, unsigned boot_no, int *exists,
			 struct kb_err *err);

/*
 * Record a boot and all its samples (every metric of every run) in one
 * transaction.  @build_id may be 0 when there is no build row.
 * Refuses a boot number already stored for the variant (KB_EEXISTS).
 */
int kb_store_boot_put(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err);

/* An experiment, as listed by history. */
struct kb_store_info {
	int64_t id;
	char *name;
	char *state;
	char *created_at;  /* UTC, ISO 8601 */
	char *finished_at; /* or NULL */
	char *executor;
	char *design;
	char *generators;  /* or NULL */
	char *metric;
	char *error;       /* or NULL */
	unsigned boots, runs_per_boot;
	unsigned nvariants;
	unsigned nboots_done;   /* boot rows stored */
	unsigned nsamples;      /* sample rows for the experiment's metric */
	char *owner_host;  /* the host of the process that runs (or ran) it,
			    * or NULL: the daemon's, or from before db/0006 */
	long owner_pid;    /* that process's pid, or 0 */
	int owner_alive;   /* 1 while that process runs (or runs on another
			    * host, where it cannot be checked) */
	int daemon;        /* submitted to kbisectd: it has jobs */
};
void kb_store_info_release(struct kb_store_info *i);

/*
 * One experiment; KB_ENOTFOUND when there is none with @id.  An
 * experiment stored "running" whose owner is gone reads as
 * "interrupted" (nothing is written: see
 * kb_store_experiments_interrupt_gone()).
 */
int kb_store_experiment_get(struct kb_store *s, int64_t id,
			    struct kb_store_info *out, struct kb_err *err);

/* Every experiment, newest first, states as kb_store_experiment_get()
 * reads them.  Caller frees each and the array. */
int kb_store_history(struct kb_store *s, struct kb_store_info **out,
		     size_t *n, struct kb_err *err);

/* ---- owners: who runs an experiment (lib/store_owner.c, db/0006) ------ */

/*
 * Whether experiment @id is running in a process that still runs: *@alive
 * is 1 when it is "running" and its owner is alive (kb_proc_alive(): the
 * same pid with the same start time since the same boot, or a process on
 * another host, which cannot be checked), 0 when it is not running, is
 * the daemon's (no owner), or its owner is gone.  KB_ENOTFOUND when there
 * is no experiment @id.  Reads only.
 */
int kb_store_experiment_owner_alive(struct kb_store *s, int64_t id,
				    int *alive, struct kb_err *err);

/*
 * Mark "interrupted" every experiment stored "running" whose owner is
 * gone, with the error "its kbisect process (pid N on HOST) is gone", in
 * one transaction.  The daemon's experiments (no owner) are left alone.
 * *@n (may be NULL): how many.  For commands that write anyway.
 */
int kb_store_experiments_interrupt_gone(struct kb_store *s, unsigned *n,
					struct kb_err *err);

/*
 * Take experiment @id over to resume it in this process: in one
 * transaction check that it is neither done, nor the daemon's, nor
 * running in a process that is alive (each KB_EINPUT with a message
 * saying which), then make it "running" owned by this process, its error
 * and end time cleared.
 */
int kb_store_experiment_take(struct kb_store *s, int64_t id,
			     struct kb_err *err);

/* A variant's measurements of one metric. */
struct kb_store_variant {
	unsigned idx;
	char *label;
	char *build_key;
	size_t nboots;      /* ok boots with a value for the metric */
	double *boot_means; /* per ok boot: the mean over its runs (owned) */
	char **boot_hosts;  /* per ok boot: the host it ran on, or NULL
			     * (owned, each and the array) */
	unsigned nfailed;   /* boots that did not end ok */
	char *last_failure; /* "build-failed: reason" of the latest, or NULL */
};
void kb_store_variant_release(struct kb_store_variant *v);

/*
 * The variants of experiment @exp in plan order with the per-boot means of
 * @metric.  Caller releases each and frees the array.
 */
int kb_store_variants(struct kb_store *s, int64_t exp, const char *metric,
		      struct kb_store_variant **out, size_t *n,
		      struct kb_err *err);

/*
 * As kb_store_variants(), but only variants @a_idx and @b_idx have their
 * boot means and failures filled in (the others are listed with none),
 * and only their boots and samples are read: comparing two variants on
 * every metric of a large experiment costs their data, not all of it.
 */
int kb_store_variants_pair(struct kb_store *s, int64_t exp,
			   const char *metric, unsigned a_idx,
			   unsigned b_idx, struct kb_store_variant **out,
			   size_t *n, struct kb_err *err);

/* ---- analysis: comparisons, effects, adaptive sampling ---------------- */

/* One analysis row (a comparison, an effect), as stored. */
struct kb_store_analysis {
	const char *kind;     /* "compare", "main-effect", "interaction", "why" */
	const char *metric;
	int a_idx, b_idx;     /* variant indexes, -1 when not about a variant */
	const char *factor;   /* "PARAVIRT_SPINLOCKS" or "A:B", or NULL */
	double change_pct, ci_low_pct, ci_high_pct, p_value; /* NaN = NULL */
	const char *test;     /* "mann-whitney-u", "bootstrap", "t" */
	const char *verdict;  /* "regression", ... or NULL */
	const char *detail;   /* how the verdict was reached, or NULL */
};

/*
 * Store analyses @a[0..n) of experiment @exp in one transaction, after
 * deleting earlier rows of the same kinds for it (an analysis rerun
 * replaces its previous answer).
 */
int kb_store_analyses_put(struct kb_store *s, int64_t exp,
			  const struct kb_store_analysis *a, size_t n,
			  struct kb_err *err);

/* The metrics measured in experiment @exp, sorted.  Caller frees each
 * and the array. */
int kb_store_metrics(struct kb_store *s, int64_t exp, char ***out,
		     size_t *n, struct kb_err *err);

/* The texts an experiment was submitted with. */
struct kb_store_experiment_text {
	char *matrix_path; /* or NULL */
	char *matrix_yaml;
	char *model_yaml;  /* or NULL for real runs */
};
void kb_store_experiment_text_release(struct kb_store_experiment_text *t);

/* Read the matrix (and model) experiment @exp was submitted with. */
int kb_store_experiment_text(struct kb_store *s, int64_t exp,
			     struct kb_store_experiment_text *out,
			     struct kb_err *err);

/*
 * How many different environments (db/0004: host, hypervisor and libvirt
 * versions, host kernel and CPU) the ok boots of experiment @exp ran in:
 * of variants @a_idx and @b_idx, or of every variant when @a_idx < 0.
 * Boots without a recorded environment (model runs) are not counted.
 */
int kb_store_environments(struct kb_store *s, int64_t exp, int a_idx,
			  int b_idx, unsigned *n, struct kb_err *err);

/* The highest boot number stored for variant @idx of @exp (0: none). */
int kb_store_last_boot(struct kb_store *s, int64_t exp, unsigned idx,
		       unsigned *out, struct kb_err *err);

/* How sqlite runs one of the store's reads. */
struct kb_store_read_plan {
	const char *name; /* "boot-means", "failures", ... (static) */
	char *plan;       /* EXPLAIN QUERY PLAN's steps, one a line:
			   * "SEARCH b USING INDEX ...", "SCAN samples" */
};

/*
 * The plans sqlite makes on @s for every read of one experiment whose
 * cost grows with its boots and samples (those of results, compare,
 * effects and why: kb_store_experiment_get(), kb_store_variants(),
 * kb_store_metrics(), kb_store_environments(), kb_store_last_boot(); and
 * kb_store_export()'s samples), so
 * that tests and benchmarks can check each finds its rows through an
 * index: a "SCAN" of boots or samples would make every read of an
 * experiment cost the whole database.  Caller frees *@out with
 * kb_store_read_plans_free().
 */
int kb_store_read_plans(struct kb_store *s, struct kb_store_read_plan **out,
			size_t *n, struct kb_err *err);
void kb_store_read_plans_free(struct kb_store_read_plan *p, size_t n);

/* ---- builds from source (lib/build.c, cmd/kbisect/build.c) ---------- */

/* What a build from source adds to its row (db/0003-builds.sql). */
struct kb_store_build_detail {
	const char *tree_id;
	const char *compiler;
	const char *config_path;
	const char *log_path;
	const char *artifacts_dir;
	const char *label;       /* the variant(s) it was built for */
	long units_compiled;     /* -1: unknown */
	int full_build;          /* the O= folder held no earlier build */
};

/* Record @d on build row @build_id.  KB_ENOTFOUND when there is none. */
int kb_store_build_detail_put(struct kb_store *s, int64_t build_id,
			      const struct kb_store_build_detail *d,
			      struct kb_err *err);

/* One variant as `kbisect build` handled it. */
struct kb_store_build_request {
	const char *matrix_name;
	const char *matrix_path;   /* may be NULL */
	const char *run_started_at; /* the same for every row of one run */
	unsigned variant_idx;
	const char *variant_label;
	const char *build_key;
	int64_t build_id;          /* 0: none */
	const char *outcome;       /* "built", "reused", "shared", "failed" */
	int build_order;           /* position in the run's order; -1: none */
};

int kb_store_build_request_put(struct kb_store *s,
			       const struct kb_store_build_request *r,
			       struct kb_err *err);

/* A stored build with its details, for reports and the benchmark. */
struct kb_store_build_row {
	int64_t id;
	char *build_key;
	char *status;       /* "ok", "failed" */
	char *label;        /* or NULL */
	char *tree_id;      /* or NULL */
	char *image;        /* or NULL */
	char *log_path;     /* or NULL */
	char *created_at;
	double duration_s;
	long units_compiled; /* -1: unknown */
	int full_build;      /* -1: unknown */
};
void kb_store_build_row_release(struct kb_store_build_row *r);

/*
 * The builds requested by the latest `kbisect build` run of matrix
 * @matrix_name that built something (none: *@n = 0), in build order,
 * and in *@nvariants the number of variants that run had.  Caller
 * releases each row and frees the array.
 */
int kb_store_build_rows(struct kb_store *s, const char *matrix_name,
			struct kb_store_build_row **out, size_t *n,
			unsigned *nvariants, struct kb_err *err);

/* ---- bisection: probes as variants, bisections and their steps -------- */

/*
 * Add variant @v (its row and one variant_options row per setting) to
 * experiment @exp in one transaction, for variants made after the
 * experiment was created (the probes of a bisection).  @v->idx must not
 * be taken yet (KB_EEXISTS).
 */
int kb_store_variant_add(struct kb_store *s, int64_t exp,
			 const struct kb_variant *v, struct kb_err *err);

/*
 * Start a bisection of kind @kind ("options" or "commits") in experiment
 * @exp between @good and @bad (what the ends are: config paths or
 * revisions); state "running".  Sets *@id.
 */
int kb_store_bisection_create(struct kb_store *s, int64_t exp,
			      const char *kind, const char *good,
			      const char *bad, int64_t *id,
			      struct kb_err *err);

/* One step of a bisection, as written and as read back. */
struct kb_store_bisection_step {
	unsigned step_no;           /* 1, 2, ... */
	const char *probe;          /* the option changes applied, or a commit */
	int variant_idx;            /* the variant measured, -1 when none */
	const char *classification; /* "good", "bad", "skip", "unknown" */
	double change_pct;          /* against the good end; NaN = NULL */
	double ci_low_pct, ci_high_pct;
};

/*
 * Record step @st of bisection @id (of experiment @exp, whose variant
 * @st->variant_idx it names).  A step number is stored once (KB_EEXISTS).
 */
int kb_store_bisection_step_put(struct kb_store *s, int64_t id, int64_t exp,
				const struct kb_store_bisection_step *st,
				struct kb_err *err);

/* Set bisection @id's state ("done", "failed", ...) and result text. */
int kb_store_bisection_finish(struct kb_store *s, int64_t id,
			      const char *state, const char *result,
			      struct kb_err *err);

/* A bisection as stored, with its steps in order. */
struct kb_store_bisection {
	int64_t id, experiment_id;
	char *kind, *good, *bad, *state;
	char *result;  /* or NULL */
	size_t nsteps;
	struct kb_store_bisection_step *steps; /* probe and classification
						* strings owned */
};
void kb_store_bisection_release(struct kb_store_bisection *b);

/* Read bisection @id; KB_ENOTFOUND when there is none. */
int kb_store_bisection_get(struct kb_store *s, int64_t id,
			   struct kb_store_bisection *out, struct kb_err *err);

/* ---- reports: an experiment's boots, runs, hosts and builds ----------- */
/* (lib/store_report.c; `kbisect report`) */

/* One boot of an experiment, whatever its status. */
struct kb_store_boot_row {
	unsigned idx;      /* the variant */
	unsigned boot_no;
	char *status;      /* "ok", "panic", "boot-timeout" ... */
	char *reason;      /* why it did not end ok, or NULL */
	char *host;        /* where it ran (libvirt URI, "model"), or NULL */
	double duration_s; /* boot and workload; NaN: not recorded */
};
void kb_store_boot_row_release(struct kb_store_boot_row *r);

/*
 * Every boot of experiment @exp, by variant index then boot number.
 * Caller releases each and frees the array.
 */
int kb_store_boot_rows(struct kb_store *s, int64_t exp,
		       struct kb_store_boot_row **out, size_t *n,
		       struct kb_err *err);

/* One workload run's value of a metric. */
struct kb_store_run_value {
	unsigned idx, boot_no, run_no;
	double value;
};

/*
 * Every run's value of @metric in the ok boots of experiment @exp, by
 * variant index, boot number and run number (the samples the boot means
 * of kb_store_variants() average).  Caller frees *@out.
 */
int kb_store_run_values(struct kb_store *s, int64_t exp, const char *metric,
			struct kb_store_run_value **out, size_t *n,
			struct kb_err *err);

/* An environment the boots of an experiment ran in (db/0004). */
struct kb_store_env_row {
	char *host;               /* boots.host: a libvirt URI, "model" */
	char *hypervisor;         /* the environment's fields, each NULL */
	char *hypervisor_version; /* when not recorded (model runs, boots */
	char *libvirt_version;    /* from before db/0004) */
	char *host_kernel;
	char *host_cpu;
	unsigned nboots;          /* boots that ran in it, ok or not */
};
void kb_store_env_row_release(struct kb_store_env_row *r);

/*
 * The distinct environments (host and recorded environment) the boots
 * of experiment @exp ran in, in the order of their first boot.  Caller
 * releases each and frees the array.
 */
int kb_store_env_rows(struct kb_store *s, int64_t exp,
		      struct kb_store_env_row **out, size_t *n,
		      struct kb_err *err);

/*
 * The stored builds of experiment @exp's variants (by build key), oldest
 * first; each row as kb_store_build_rows() fills it.  Caller releases
 * each and frees the array.
 */
int kb_store_experiment_builds(struct kb_store *s, int64_t exp,
			       struct kb_store_build_row **out, size_t *n,
			       struct kb_err *err);

/* The ids of experiment @exp's bisections, oldest first (none: *@n = 0).
 * Caller frees *@ids. */
int kb_store_experiment_bisections(struct kb_store *s, int64_t exp,
				   int64_t **ids, size_t *n,
				   struct kb_err *err);

/* ---- daemon queue: jobs, leases and progress (db/0005, lib/queue.c) --- */

enum kb_store_job_kind {
	KB_STORE_JOB_BUILD,
	KB_STORE_JOB_BOOT,
};

/* One job to create with an experiment. */
struct kb_store_job_spec {
	enum kb_store_job_kind kind;
	unsigned variant_idx; /* the variant to build or boot */
	unsigned boot_no;     /* boots: from 1 */
	unsigned seq;         /* order within the experiment and kind */
	const char *host;     /* boots: the host the spread gives it
			       * (lib/spread.h), or NULL: any host */
};

/*
 * Store an experiment in state "queued" with its variants and jobs
 * @jobs[0..njobs) in one transaction: when this returns 0, the submission
 * is durable and *@id is its id.  Nothing is written when it fails.
 */
int kb_store_experiment_submit(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       const struct kb_store_job_spec *jobs,
			       size_t njobs, int64_t *id, struct kb_err *err);

/* A leased job, as kb_store_job_claim() hands it out. */
struct kb_store_job {
	int64_t id;
	int64_t experiment;
	enum kb_store_job_kind kind;
	unsigned variant_idx;
	unsigned boot_no;   /* boots, from 1; 0 for builds */
	unsigned attempts;  /* leases taken, this one included */
	char *build_key;    /* the variant's stored build key (owned) */
	char *host;         /* the host the boot runs on, or NULL (owned) */
};
void kb_store_job_release(struct kb_store_job *j);

/* What kb_store_job_claim() looks for. */
struct kb_store_claim {
	const char *owner;    /* lease owner: the daemon instance id */
	int64_t now;          /* seconds since the epoch */
	int64_t lease_s;      /* lease length */
	enum kb_store_job_kind kind;
	int64_t experiment;   /* only this experiment; 0: any */
	const char *host;     /* recorded on the job (boots), or NULL;
			       * with @experiment, a boot job the spread
			       * gave another host is not claimed for this
			       * one (db/0010) */
};

/*
 * Lease the first ready job of @c->kind (lowest experiment id, then
 * seq): queued, or leased with a lease that expired before @c->now, of
 * an experiment that is queued or running and not being cancelled, and
 * for boots, whose build job (the experiment's build job of the same
 * build key) is done.  In one transaction: the job becomes leased by
 * @c->owner until now + lease_s, its attempts grow by one, its
 * experiment becomes running.  Returns 0 with *@out filled (caller
 * releases), KB_ENOTFOUND when nothing is ready.
 *
 * With @c->experiment the job is found by one indexed query over that
 * experiment's jobs, and a claim that finds nothing takes no write lock;
 * without, every queued job is read.
 */
int kb_store_job_claim(struct kb_store *s, const struct kb_store_claim *c,
		       struct kb_store_job *out, struct kb_err *err);

/* Extend every lease @owner holds to @now + @lease_s; *@n (may be NULL):
 * how many. */
int kb_store_job_renew(struct kb_store *s, const char *owner, int64_t now,
		       int64_t lease_s, unsigned *n, struct kb_err *err);

/*
 * Put back in the queue every job leased by anyone but @owner, whatever
 * its expiry: for a daemon that holds the database's daemon lock, every
 * other lease is a dead daemon's.  *@n (may be NULL): how many.
 */
int kb_store_job_release_others(struct kb_store *s, const char *owner,
				unsigned *n, struct kb_err *err);

/*
 * Mark job @id done (build jobs: the build is stored already) after
 * @duration_s seconds of work (NaN: unknown), or failed with @error (an
 * executor or store error that stops the experiment).  KB_ENOTFOUND
 * when @owner no longer holds its lease (nothing is written).
 */
int kb_store_job_done(struct kb_store *s, int64_t id, const char *owner,
		      double duration_s, struct kb_err *err);
int kb_store_job_fail(struct kb_store *s, int64_t id, const char *owner,
		      const char *error, struct kb_err *err);

/*
 * Store boot job @j's result @r (the boot row, its environment and every
 * sample, as kb_store_boot_put() does) and mark the job done, in one
 * transaction, so that a daemon killed at any instant either has all of
 * it or none.  A boot row already stored for the job's variant and boot
 * number is kept as it is (no second row).  KB_ENOTFOUND when @owner no
 * longer holds the lease (nothing is written).
 */
int kb_store_job_boot_done(struct kb_store *s, const struct kb_store_job *j,
			   const char *owner, int64_t build_id,
			   const struct kb_boot_result *r, double duration_s,
			   struct kb_err *err);

/*
 * Boot job @j could not run on its host for the host's reasons (libvirt
 * lost, a domain refused: lib/spread.h): in one transaction, record a
 * host event "failure" with @reason (kb_store_host_event_put) and put
 * the job back in the queue, assigned to the same host, without a boot
 * row.  KB_ENOTFOUND when @owner no longer holds the lease (nothing is
 * written).
 */
int kb_store_job_host_failed(struct kb_store *s, const struct kb_store_job *j,
			     const char *owner, const char *reason,
			     struct kb_err *err);

/* A boot job of an experiment and the host it is assigned. */
struct kb_store_job_host {
	int64_t id;
	unsigned variant_idx;
	char *host;   /* assigned_host, or NULL (owned) */
	int queued;   /* still to run (queued), else leased or ended */
};

/*
 * The boot jobs of experiment @exp with their assigned hosts, in the
 * order of the queue.  Caller frees with kb_store_job_hosts_free().
 */
int kb_store_job_hosts(struct kb_store *s, int64_t exp,
		       struct kb_store_job_host **out, size_t *n,
		       struct kb_err *err);
void kb_store_job_hosts_free(struct kb_store_job_host *j, size_t n);

/*
 * Assign the queued boot jobs @ids[0..n) to @hosts[0..n), in one
 * transaction (a job no longer queued is left as it is).
 */
int kb_store_job_assign(struct kb_store *s, const int64_t *ids,
			const char *const *hosts, size_t n,
			struct kb_err *err);

/*
 * Ask to cancel experiment @exp: no job of it is leased any more, its
 * queued jobs become cancelled; kb_store_experiment_settle() marks it
 * cancelled once the steps running now have ended.  KB_ENOTFOUND when
 * there is no such experiment, KB_EINPUT when it has already ended or has
 * no jobs (a `kbisect run` experiment).
 */
int kb_store_experiment_cancel(struct kb_store *s, int64_t exp,
			       struct kb_err *err);

/*
 * Once no job of @exp is leased, end it: "failed" (with the first failed
 * job's error) when a job failed, "cancelled" when a cancel was asked,
 * "done" when no job is left queued; its remaining queued jobs become
 * cancelled.  An experiment without jobs (`kbisect run`) is left alone.
 * *@state is its state afterwards (caller frees).
 */
int kb_store_experiment_settle(struct kb_store *s, int64_t exp,
			       char **state, struct kb_err *err);

/* The experiments with jobs that are queued or running, oldest first.
 * Caller frees *@ids. */
int kb_store_queue_experiments(struct kb_store *s, int64_t **ids,
			       size_t *n, struct kb_err *err);

/*
 * Those of kb_store_queue_experiments() whose id is above @after, at most
 * @max of them (0: all), oldest first: what was submitted since
 * experiment @after, read by the primary key, not by reading every
 * experiment.  Caller frees *@ids.
 */
int kb_store_queue_experiments_after(struct kb_store *s, int64_t after,
				     size_t max, int64_t **ids, size_t *n,
				     struct kb_err *err);

/*
 * The experiments with a job whose lease lapsed before @now (seconds
 * since the epoch), oldest first, each once; only the lapsed leases are
 * read (by the index of jobs by state and expiry).  Caller frees *@ids.
 */
int kb_store_queue_lapsed(struct kb_store *s, int64_t now, int64_t **ids,
			  size_t *n, struct kb_err *err);

/* Whether experiment @exp is in the queue (kb_store_queue_experiments()):
 * *@live is 1 or 0, 0 also when there is no experiment @exp. */
int kb_store_queue_has(struct kb_store *s, int64_t exp, int *live,
		       struct kb_err *err);

/* How far a queued experiment got, from its jobs. */
struct kb_store_progress {
	int64_t id;
	char *name, *state, *executor;
	char *error;          /* or NULL */
	char *current;        /* the running steps in words, or NULL */
	int cancel_requested;
	int has_jobs;         /* 0: not a daemon experiment (kbisect run) */
	unsigned variants_total, variants_done; /* done: every boot done */
	unsigned builds_total, builds_done, builds_running;
	unsigned boots_total, boots_done, boots_running;
	double build_mean_s, boot_mean_s; /* measured step times; NaN: none */
	double elapsed_s;     /* since submission (until it finished) */
	char *hosts;          /* boots done per host, "URI 12, URI 11",
			       * when they ran on more than one; else NULL */
};
void kb_store_progress_release(struct kb_store_progress *p);

/*
 * Read experiment @exp's progress; KB_ENOTFOUND when there is none.  An
 * experiment without jobs (`kbisect run`) counts its stored builds and
 * boots, and reads "interrupted" when it is "running" in a process that
 * is gone (nothing is written).
 */
int kb_store_progress_get(struct kb_store *s, int64_t exp,
			  struct kb_store_progress *out, struct kb_err *err);

/* Up to @max experiments with jobs: live ones first, then newest first.
 * Caller frees *@ids. */
int kb_store_progress_recent(struct kb_store *s, size_t max, int64_t **ids,
			     size_t *n, struct kb_err *err);

/* ---- hosts: where boots ran, and what befell the hosts (store_hosts.c,
 * db/0010) --------------------------------------------------------- */

/* One boot of an experiment and where it ran. */
struct kb_store_boot_host {
	unsigned variant_idx;
	unsigned boot_no;
	char *host; /* the URI it ran on, or NULL (owned) */
	int ok;     /* it ended ok */
};

/*
 * Every boot of experiment @exp with its host, by variant and boot
 * number.  Caller frees with kb_store_boot_hosts_free().
 */
int kb_store_boot_hosts(struct kb_store *s, int64_t exp,
			struct kb_store_boot_host **out, size_t *n,
			struct kb_err *err);
void kb_store_boot_hosts_free(struct kb_store_boot_host *b, size_t n);

/*
 * Record what befell @host during experiment @exp: @kind "failure" (boot
 * @boot_no of variant @variant_idx failed for the host's reasons, and is
 * not stored as a boot) or "drained" (@variant_idx < 0: the host was
 * taken out, @reason its last failure).  Its own transaction, unless one
 * is open.
 */
int kb_store_host_event_put(struct kb_store *s, int64_t exp, const char *host,
			    const char *kind, int variant_idx,
			    unsigned boot_no, const char *reason,
			    struct kb_err *err);

/* Per host of an experiment: its boots and what befell it. */
struct kb_store_host_count {
	char *host;         /* the URI (owned); NULL: boots with none */
	unsigned boots;     /* boots stored as run there */
	unsigned ok;        /* of which ended ok */
	unsigned failures;  /* failures of the host's own, not boots */
	int drained;        /* it was drained */
	char *last_failure; /* the latest of them, or NULL (owned) */
};

/*
 * The hosts of experiment @exp, by URI (NULL, boots with no host,
 * first): those its boots ran on and those with events.  Caller frees with kb_store_host_counts_free().
 */
int kb_store_host_counts(struct kb_store *s, int64_t exp,
			 struct kb_store_host_count **out, size_t *n,
			 struct kb_err *err);
void kb_store_host_counts_free(struct kb_store_host_count *c, size_t n);

/*
 * Add @seconds to the time builds and boots of experiment @exp ran at
 * once (experiments.overlap_s), and read it: *@seconds NaN when never
 * measured.
 */
int kb_store_overlap_add(struct kb_store *s, int64_t exp, double seconds,
			 struct kb_err *err);
int kb_store_overlap_get(struct kb_store *s, int64_t exp, double *seconds,
			 struct kb_err *err);

/* ---- evidence: what was built and booted (store_evidence.c, db/0007) -- */

/* A boot's evidence and its build's, as `kbisect repro` writes them out. */
struct kb_store_evidence {
	unsigned boot_no;
	char *status;        /* the boot's: "ok", "panic", "boot-timeout" ... */
	char *reason;        /* why it did not end ok, or NULL */
	char *host;          /* the libvirt URI it ran on, or NULL */
	char *domain_xml;    /* the XML the guest was created with */
	char *workload_text; /* the fio job file or command, or NULL */
	int64_t build_id;    /* the build booted; 0: none */
	char *build_key;     /* its key, or NULL */
	char *image;         /* its kernel image's path, or NULL */
	char *image_sha256;  /* that image's SHA-256 (hex), or NULL: not
			      * recorded (a build from before db/0007) */
	char *config_text;   /* its resolved .config, or NULL: a prebuilt
			      * image without one, or from before db/0007 */
};
void kb_store_evidence_release(struct kb_store_evidence *e);

/*
 * The evidence of variant @idx of experiment @exp: its latest ok boot
 * that recorded a domain XML, else its latest boot that did (a panic or
 * a timeout is worth reproducing too), with the build that boot booted.
 * 0 with *@out filled (caller releases); KB_ENOTFOUND "... has no boot
 * with a domain XML ..." when no boot recorded one (never booted, the
 * model executor, boots stored before db/0007), or when @exp has no
 * variant @idx.  Reads only.
 */
int kb_store_evidence_get(struct kb_store *s, int64_t exp, unsigned idx,
			  struct kb_store_evidence *out, struct kb_err *err);

/* ---- export: every sample of an experiment (store_export.c) ---------- */

/* One sample as kb_store_export() hands it out; the strings are valid
 * until the callback returns. */
struct kb_store_sample_row {
	unsigned variant_idx;
	const char *label;         /* the variant's */
	const char *const *levels; /* its level of each factor the header
				    * named, in that order; NULL where the
				    * variant does not set that factor */
	int64_t boot_id;           /* the boots row */
	unsigned boot_no;
	const char *boot_status;   /* "ok", "panic", "boot-timeout" ... */
	const char *host;          /* where it ran, or NULL */
	unsigned run_no;
	const char *metric;
	double value;
};

/* What kb_store_export() calls; a nonzero return stops the export and
 * becomes its return (the callback sets @err, if it wants a message). */
struct kb_store_export_cb {
	/* once, first: the factors of the experiment's variants (Kconfig
	 * options, "kernel.rev", "guest.vcpus" ...), in the order the
	 * matrix gave them, each once */
	int (*header)(void *arg, const char *const *factors, size_t n);
	/* once per sample */
	int (*row)(void *arg, const struct kb_store_sample_row *r);
	void *arg;
};

/*
 * Hand every sample of experiment @exp to @cb, one row each, in the
 * order of variant index, boot number, run number and metric name, in
 * one read transaction (a sample stored meanwhile is not half seen).
 * Rows are read as they are handed out: memory does not grow with the
 * samples.  KB_ENOTFOUND "no experiment N in ..." when there is none.
 */
int kb_store_export(struct kb_store *s, int64_t exp,
		    const struct kb_store_export_cb *cb, struct kb_err *err);

/* ---- trends: a variant across experiments of a name (store_trend.c) -- */

/* One experiment of a series, as stored. */
struct kb_store_series_point {
	int64_t experiment;
	char *created_at;
	char *matrix_path;  /* or NULL */
	char *matrix_yaml;
	char *executor;     /* "model", "libvirt", or NULL */
	int variant_idx;    /* the variant asked for; -1: it has none */
	char *label;        /* that variant's label, or NULL */
	char *kernel_rev;   /* its kernel.rev level, or NULL */
	size_t nboots;      /* its ok boots with a value of the metric */
	double *boot_means; /* each one's mean over its runs (owned) */
};
void kb_store_series_point_release(struct kb_store_series_point *p);

/*
 * The experiments named @name (experiments.name), by id, but those made
 * by a bisection or `kbisect test` (design "bisect-..."), each with its
 * variant labelled @label (NULL: its baseline, #0) and that variant's
 * ok boot means of @metric, in one read transaction.  @metric NULL
 * means the metric of the newest of those experiments; *@metric_out
 * (caller frees) is the metric read.  Caller releases each point and
 * frees *@out.  *@n is 0 when no experiment has the name.
 */
int kb_store_series(struct kb_store *s, const char *name, const char *label,
		    const char *metric, char **metric_out,
		    struct kb_store_series_point **out, size_t *n,
		    struct kb_err *err);

#endif
