#ifndef KB_STORE_TREND_H
#define KB_STORE_TREND_H

/*
 * A variant across the experiments of one name (lib/store/store_trend.c;
 * `kbisect trend`).
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

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
