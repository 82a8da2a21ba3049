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
 */

struct kb_store;

struct kb_store_opts {
	/* migrate only up to this schema version (0 = latest); for tests */
	unsigned max_version;
};
#define KB_STORE_OPTS_INIT { 0 }

/*
 * Open (creating if needed, with its parent folder) the database at @path
 * and migrate it to the latest schema in one transaction.  A database from
 * a newer kbisect is refused with a message naming both versions.
 * @opts may be NULL.  On success *@out is the caller's to kb_store_close().
 */
int kb_store_open(const char *path, const struct kb_store_opts *opts,
		  struct kb_store **out, struct kb_err *err);
void kb_store_close(struct kb_store *s);

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
 * transaction, in state "running".  Sets *@id.  Nothing is written when
 * it fails.
 */
int kb_store_experiment_create(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       int64_t *id, struct kb_err *err);

/* Set an experiment's state ("running", "done", "failed", "cancelled"),
 * with an error text for "failed" (may be NULL). */
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
};
void kb_store_info_release(struct kb_store_info *i);

/* One experiment; KB_ENOTFOUND when there is none with @id. */
int kb_store_experiment_get(struct kb_store *s, int64_t id,
			    struct kb_store_info *out, struct kb_err *err);

/* Every experiment, newest first.  Caller frees each and the array. */
int kb_store_history(struct kb_store *s, struct kb_store_info **out,
		     size_t *n, struct kb_err *err);

/* A variant's measurements of one metric. */
struct kb_store_variant {
	unsigned idx;
	char *label;
	char *build_key;
	size_t nboots;      /* ok boots with a value for the metric */
	double *boot_means; /* per ok boot: the mean over its runs (owned) */
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

#endif
