#ifndef KB_REPORT_INT_H
#define KB_REPORT_INT_H

/*
 * Inside the report (lib/report.h): what lib/report.c (the page: the
 * experiment, its environment, its time, the boots of each variant),
 * lib/report_analysis.c (the answers of compare, effects, why and the
 * bisections), lib/report_inside.c (monitors and profiles),
 * lib/report_drift.c (the drift check and the sentinel),
 * lib/report_dir.c (the folder: made beside DIR, renamed
 * into place at the end), lib/report_html.c (the HTML helpers they all
 * write with) and lib/report_trend.c share.  Only those files include
 * this header.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "compare.h"
#include "err.h"
#include "format.h"
#include "matrix.h"
#include "stats.h"
#include "store.h"
#include "variant.h"

struct kb_analysis;
struct kb_err;
struct kb_report_result;

/* Rows of per-run samples shown per variant; the rest are counted. */
#define REPORT_MAX_RUN_ROWS 1000
/* Comparisons of the metrics other than the experiment's, in all. */
#define REPORT_MAX_OTHER_COMPARISONS 2048

/* The evidence of one variant, written as repro/N/ (lib/report_dir.c). */
struct rep_repro {
	unsigned boot_no;   /* the boot it is of; 0: none stored */
	char *status;       /* that boot's status */
	size_t n;
	const char *names[3]; /* in repro/N/: "config", "domain.xml",
			       * "workload.fio" or "workload.sh" */
};

/* Everything one report reads, and the page it writes. */
struct rep {
	struct kb_store *s;
	int64_t exp;
	struct kb_store_info info;
	struct kb_store_experiment_text text;
	struct kb_matrix *m;        /* the stored matrix, or NULL: it does
				     * not parse in this version */
	struct kb_metric_dir dir;   /* the metric's direction */
	struct kb_store_variant *vs; /* boot means and failures, plan order */
	size_t nvs;
	struct kb_summary *sum;     /* of each variant's boot means */
	struct kb_store_boot_row *boots;
	size_t nboots;
	struct kb_store_run_value *runs;
	size_t nruns;
	struct kb_store_env_row *envs;
	size_t nenvs;
	struct kb_store_build_row *builds;
	size_t nbuilds;
	struct kb_store_progress prog;
	int have_prog;
	char **metrics;             /* every metric measured, sorted */
	size_t nmetrics;
	struct kb_analysis *a;      /* NULL: see no_analysis */
	char *no_analysis;          /* why the analysis could not open */
	struct kb_err stored;       /* the first error storing what the
				     * report computed (its code 0: none) */
	struct kb_comparison *cmp;  /* per variant: against the baseline,
				     * on the experiment's metric */
	char **cmp_err;             /* per variant: why there is none, or
				     * NULL when cmp holds it */
	int64_t *bisections;
	size_t nbisections;
	struct rep_repro *repro;    /* per variant: its evidence written */
	char *tmp;                  /* the folder being written */
	struct kb_buf files;        /* written, relative, NUL-separated */
	size_t nfiles;
	unsigned nplots;
	struct kb_buf page;         /* index.html */
};

/* ---- the page (lib/report.c) ------------------------------------------ */

/* A page's start, to <body>: its title, the policy and the style. */
void rep_page_open(struct kb_buf *b, const char *title);
/* Write r->page as index.html, move the folder to @dir and fill @out. */
int rep_finish(struct rep *r, const char *dir, struct kb_report_result *out,
	       struct kb_err *err);
/* Free what @r holds, and what is left of a folder being written. */
void rep_release(struct rep *r);


/* ---- HTML helpers (lib/report_html.c: they call nothing of the report) - */

/* Append @s escaped (kb_svg_escape()); NULL appends nothing. */
void rep_esc(struct kb_buf *b, const char *s);
/* Append the formatted text escaped. */
void rep_escf(struct kb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "12345.7" (%.6g), or "-" for NaN. */
void rep_num(struct kb_buf *b, double v);
/* "[-3.1%, +2.0%]", or "-" when either end is not finite. */
void rep_ci(struct kb_buf *b, double lo, double hi);
/* The label of variant @idx ("" when there is none). */
const char *rep_label(const struct rep *r, unsigned idx);
/* A link to variant @idx's section: <a href="#variant-N">#N</a>. */
void rep_variant_link(struct kb_buf *b, unsigned idx);
/* A section's start: <section id="@id"><h2>@title</h2>. */
void rep_section(struct kb_buf *b, const char *id, const char *title);
/* A paragraph of class "note" saying why a part is missing. */
void rep_note(struct kb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the drift section (lib/report_drift.c) --------------------------- */

/* The drift check's plot of each boot against its place in the run, its
 * answer and what it means for the verdicts, and the sentinel's A/A. */
int rep_drift(struct rep *r, struct kb_err *err);

/* ---- the analysis sections (lib/report_analysis.c) -------------------- */

/* Compare every variant with the baseline on the experiment's metric
 * (r->cmp), as `kbisect compare` does, and store the verdicts (unless
 * the store is read-only); nothing when there is no analysis. */
void rep_analyse(struct rep *r);
/* Keep the first failure @ret (nonzero) of @e storing what the report
 * computed, for kb_report_write() to fail with. */
void rep_store_failed(struct rep *r, int ret, const struct kb_err *e);
/* The verdict of variant @i against the baseline as a class name
 * ("regression" ...), or "baseline" or "none". */
const char *rep_verdict_class(const struct rep *r, size_t i);
/* The compare table of every variant against the baseline. */
void rep_compare(struct rep *r);
/* The effects, as a forest plot and a table. */
void rep_effects(struct rep *r);
/* `why`'s answer from the stored boots. */
void rep_why(struct rep *r);
/* Each bisection: its probes in order, their plot, the culprit set. */
int rep_bisections(struct rep *r, struct kb_err *err);

/* ---- inside the kernel (lib/report_inside.c) --------------------------- */

/* For each variant against its baseline: the changed monitors, the
 * changed functions of the profile and the difference flame graph;
 * nothing when there is no analysis. */
int rep_inside(struct rep *r, struct kb_err *err);

/* ---- the folder (lib/report_dir.c) ------------------------------------ */

/*
 * Check folder @dir: new, empty, or an earlier report (its index.html
 * written by kbisect report); anything else, or a parent that cannot be
 * made, is KB_EINPUT.  Then make the folder the report is written into,
 * beside it (r->tmp).
 */
int rep_dir_open(struct rep *r, const char *dir, struct kb_err *err);
/* Write @len bytes of @data to @name (relative, its folders made) in
 * the report's folder; recorded in r->files. */
int rep_put(struct rep *r, const char *name, const char *data, size_t len,
	    struct kb_err *err);
/* The evidence of each variant (db/0007) as repro/N/ files. */
int rep_repro(struct rep *r, struct kb_err *err);
/* Move the finished folder to @dir (absolute: *@abs, caller frees),
 * replacing an earlier report there; *@replaced says so. */
int rep_dir_commit(struct rep *r, const char *dir, char **abs,
		   int *replaced, struct kb_err *err);
/* Remove what is left of the folder being written (after a failure). */
void rep_dir_abandon(struct rep *r);

#endif
