#ifndef KB_STORE_ANALYSIS_H
#define KB_STORE_ANALYSIS_H

/*
 * The store's side of the analyses (lib/store/store_analysis.c):
 * comparisons and effects stored, the metrics, texts and environments of
 * an experiment, and the query plans of the reads that grow with it.
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/* The call on an effect of a family (kb_store_analysis.call). */
enum kb_store_call {
	KB_STORE_CALL_NONE = 0,    /* not an effect: no adjusted p */
	KB_STORE_CALL_NOT_SIGNIFICANT,
	KB_STORE_CALL_SIGNIFICANT,
};

/* One analysis row (a comparison, an effect), as stored. */
struct kb_store_analysis {
	const char *kind;     /* "compare", "main-effect", "interaction", "why" */
	const char *metric;
	int a_idx, b_idx;     /* variant indexes, -1 when not about a variant */
	const char *factor;   /* "PARAVIRT_SPINLOCKS" or "A:B", or NULL */
	double change_pct, ci_low_pct, ci_high_pct, p_value; /* NaN = NULL */
	const char *test;     /* "welch-t", "paired-t", "t", ... */
	const char *verdict;  /* "regression", ... or NULL */
	const char *detail;   /* how the verdict was reached, or NULL */
	double p_adjusted;    /* effects: the family's adjusted p */
	enum kb_store_call call; /* effects: the call (NONE: neither it
				  * nor p_adjusted is stored) */
};

/*
 * Store analyses @a[0..n) of experiment @exp in one transaction, after
 * deleting the rows stored before of the same analysis: of the same
 * kind, metric and variants as one of @a (an analysis rerun replaces
 * its previous answer; a comparison of another pair, or of another
 * metric, stays).
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

/* The highest round (block) a boot of @exp is stored in, failed boots'
 * too (0: none). */
int kb_store_last_round(struct kb_store *s, int64_t exp, unsigned *out,
			struct kb_err *err);

/* The noise of earlier experiments on some hosts (kb_store_host_noise()). */
struct kb_store_noise {
	double var_log;   /* pooled within-variant variance of the logs of
			   * the ok boots' means (NaN: none to pool) */
	double df;        /* its degrees of freedom */
	unsigned nexp;    /* experiments it came from */
	size_t nboots;    /* boots */
};

/*
 * The boot-to-boot noise metric @metric showed on hosts @hosts[0..n)
 * (boots.host, as the boots recorded it) in every experiment of @s:
 * the variance of the log of each ok boot's mean (its runs averaged)
 * about its variant's mean, pooled over the variants with 2 such boots
 * or more.  Values not positive are left out.  What `plan` expects of a
 * design on those hosts.
 */
int kb_store_host_noise(struct kb_store *s, const char *const *hosts,
			size_t n, const char *metric,
			struct kb_store_noise *out, struct kb_err *err);

/* The step times of earlier experiments (kb_store_host_step_times()). */
struct kb_store_step_times {
	double build_s;  /* mean seconds of an ok real build (NaN: none) */
	double boot_s;   /* mean seconds of an ok boot on the hosts, its
			  * workload runs included (NaN: none) */
	unsigned runs_lo, runs_hi; /* the fewest and most runs a boot had */
	double boot_base_s, run_s; /* a boot's time as boot_base_s + runs *
				    * run_s, fitted where the boots' runs
				    * differ (NaN: they do not) */
	size_t nbuilds, nboots;
};

/*
 * The mean times of the ok builds that were not the model's, and of the
 * ok boots on hosts @hosts[0..n) (boots.host), in every experiment of
 * @s, with how a boot's time grows with its workload runs: what `plan
 * --db` expects a run's steps to take.
 */
int kb_store_host_step_times(struct kb_store *s, const char *const *hosts,
			     size_t n, struct kb_store_step_times *out,
			     struct kb_err *err);

/*
 * What a boot of @runs workload runs is expected to take after @t: the
 * fitted line where the stored boots' runs differ, else their mean.
 * *@measured is 1 when that holds for @runs (a line, or boots of @runs
 * runs each) and 0 when the mean is of boots with other numbers of
 * runs.  NaN: no boot stored.
 */
double kb_store_step_boot_s(const struct kb_store_step_times *t,
			    unsigned runs, int *measured);

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
 * kb_store_metrics(), kb_store_environments(), kb_store_last_boot(),
 * kb_store_last_round(); and
 * kb_store_export()'s samples), so
 * that tests and benchmarks can check each finds its rows through an
 * index: a "SCAN" of boots or samples would make every read of an
 * experiment cost the whole database.  Caller frees *@out with
 * kb_store_read_plans_free().
 */
int kb_store_read_plans(struct kb_store *s, struct kb_store_read_plan **out,
			size_t *n, struct kb_err *err);
void kb_store_read_plans_free(struct kb_store_read_plan *p, size_t n);

#endif
