#ifndef KB_REPORT_H
#define KB_REPORT_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/*
 * A report: one experiment as a static, self-contained HTML page in a
 * folder, for a browser with no network and no script (the page's
 * Content-Security-Policy forbids both).  From the database alone, the
 * answer first and what it stands on after:
 *
 * - the verdicts: each variant compared with the baseline, as `kbisect
 *   compare` makes it (lib/analysis.h), the other metrics folded;
 * - `why`'s answer from the stored boots (lib/why.h, as `kbisect why
 *   --no-boots`);
 * - each bisection of the experiment: the culprit set, its probes in
 *   order with their verdicts, plotted;
 * - the effects as a forest plot (lib/effects.h);
 * - the boot means of every variant as a strip plot (each boot a dot,
 *   the mean marked, the baseline's 95% interval as a band), and the
 *   drift check's plot;
 * - the experiment: name, state, design, executor, metric, the matrix
 *   (and model) text it was submitted with;
 * - its environment: the hosts and environments its boots ran in
 *   (db/0004), the kernel source and the builds, the guest's shape;
 * - where the time went: builds, boots, workload runs, elapsed;
 * - per variant, folded to one line: its boots and the values of every
 *   run, and its evidence (db/0007) written as repro/N/ with links to
 *   it.
 *
 * Changes are drawn on a log-ratio axis (kb_svg_axis_ratio()), so that
 * 10x down and 10x up lie as far from zero; variant labels too long for
 * a plot keep what tells the variants apart (kb_svg_short_labels()).
 *
 * No boot is added.  What the report computed — each variant's verdict
 * against the baseline, the effects, `why`'s answer — is stored with
 * the experiment as the verbs that compute them store it (db/0016:
 * v_verdicts, v_effects, v_why), unless the store is open read-only, when
 * nothing is written to the database.  An experiment whose stored matrix does not
 * plan in this version (a bisection without a matrix) gets every part
 * that does not need the analysis, and the page says why the others
 * are missing.
 */

/* What kb_report_write() wrote. */
struct kb_report_result {
	char *dir;       /* the report's folder, absolute */
	char *index;     /* its page: dir/index.html */
	size_t nfiles;
	char **files;    /* every file written, relative to dir, index.html
			  * last */
	unsigned nplots; /* the plots on the page */
	int replaced;    /* dir held an earlier report, now replaced */
};
void kb_report_result_release(struct kb_report_result *r);

/*
 * Write the report of experiment @exp of @s into folder @dir: made when
 * missing (with its parents), else it must be empty or hold an earlier
 * report (which is replaced).  The report is written into a new folder
 * beside @dir and renamed to @dir at the end, so that @dir never holds
 * half a report: on any failure nothing is left.  Fills *@out (caller
 * releases).  KB_ENOTFOUND for an experiment that is not in the
 * database; KB_EINPUT for a @dir that is a file, holds something else,
 * or cannot be made or written; KB_EFAIL when the store or the disk
 * fails (storing the verdicts too: then no report is left either).
 */
int kb_report_write(struct kb_store *s, int64_t exp, const char *dir,
		    struct kb_report_result *out, struct kb_err *err);

struct kb_trend_opts;
struct kb_trend_series_opts;

/*
 * Write the trend of matrix name @name (the series kb_trend_series_load()
 * reads with @so, the change points kb_trend_changes() finds with @to,
 * NULL: its defaults) as a page in folder @dir, as kb_report_write()
 * does for an experiment: a row chart of the series, one experiment a
 * row, and the change points.  KB_ENOTFOUND for a name with no
 * experiments (as kb_trend_series_load()), KB_EINPUT for a bad @dir.
 */
int kb_report_trend_write(struct kb_store *s, const char *name,
			  const struct kb_trend_series_opts *so,
			  const struct kb_trend_opts *to, const char *dir,
			  struct kb_report_result *out, struct kb_err *err);

#endif
