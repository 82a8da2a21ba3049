#ifndef KB_STORE_EXP_H
#define KB_STORE_EXP_H

/*
 * The store's experiments, their variants and boots (lib/store/store_exp.c):
 * an experiment created with its variants, its boots and their samples
 * stored, and read back per variant for results, compare and effects.
 */

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct kb_err;
struct kb_store;

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
	const char *run_order;   /* "blocks", "sequential" (lib/order.h) */
	uint64_t order_seed;     /* the order's seed (kb_order_seed()) */
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
	/* kb_store_experiment_get() only: the run order's seed
	 * (lib/order.h), when @has_order_seed is 1; 0: none stored (before
	 * db/0013); -1: the stored one is not 16 hex digits */
	uint64_t order_seed;
	int has_order_seed;
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

/* A variant's measurements of one metric. */
struct kb_store_variant {
	unsigned idx;
	char *label;
	char *build_key;
	size_t nboots;      /* ok boots with a value for the metric */
	double *boot_means; /* per ok boot: the mean over its runs (owned) */
	char **boot_hosts;  /* per ok boot: the host it ran on, or NULL
			     * (owned, each and the array) */
	unsigned *boot_rounds; /* per ok boot: its round (block), 0 none
				* (owned) */
	unsigned *boot_seqs;   /* per ok boot: its place in the run, 0 not
				* known (owned) */
	unsigned nfailed;   /* boots that did not end ok */
	char *last_failure; /* "build-failed: reason" of the latest, or NULL */
	int sentinel;       /* the sentinel, the baseline again (db/0014) */
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

#endif
