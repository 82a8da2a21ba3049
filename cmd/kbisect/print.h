#ifndef KBISECT_PRINT_H
#define KBISECT_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "format.h"

#define CMD_SPREAD_LEN 16

/*
 * What several verbs print (print.c), so that a thing reads the same
 * wherever it appears: an experiment's results, a comparison as JSON,
 * the hosts against the first, the daemon's progress, the warnings that
 * a difference may not be the variants', numbers as text, and JSON
 * written to stdout.  What one verb alone prints stays static in its
 * file.  Text from the database or the daemon goes through
 * cmd_printable() (printable.h).
 */

struct kb_analysis;
struct kb_buf;
struct kb_comparison;
struct kb_err;
struct kb_host_effect;
struct kb_json;
struct kb_msg_progress;
struct kb_store;

/* ---- JSON on stdout ------------------------------------------------------ */

/* Write a kb_buf of JSON to stdout. */
void cmd_put(const struct kb_buf *b);
/* Finish the JSON document @j writes into @b, write it to stdout, and
 * free @j and @b's contents. */
void cmd_json_put(struct kb_json *j, struct kb_buf *b);

/* ---- an experiment's results --------------------------------------------- */

/*
 * Print the results of experiment @exp to stdout: per variant its boots,
 * mean, spread and change against the baseline, its failures, and the
 * boots per host when they are worth a line; as JSON with @json.  Warns
 * on stderr when the boots ran in several environments
 * (cmd_warn_environments()).  Returns 0, or an error in @err (a store
 * that cannot be read).
 */
int cmd_print_results(struct kb_store *s, int64_t exp, int json,
		      struct kb_err *err);

/* ---- comparisons and their warnings -------------------------------------- */

/* Write comparison @c as an object under @key: each side's n, mean and
 * standard deviation, the change with its interval, p and the verdict. */
void cmd_json_comparison(struct kb_json *j, const char *key,
			 const struct kb_comparison *c);
/*
 * Warn on stderr when the ok boots of experiment @exp (of variants @a and
 * @b; all when @a < 0) ran in more than one environment: results from
 * different hosts or versions are never compared silently.  Returns the
 * number of environments (0 for model runs).
 */
unsigned cmd_warn_environments(struct kb_store *s, int64_t exp, int a, int b);
/*
 * Warn on stderr when variants @a and @b of @an ran on hosts that do not
 * overlap: their difference may be the hosts'.  Returns 1 when they did,
 * else 0.
 */
int cmd_warn_disjoint_hosts(const struct kb_analysis *an, unsigned a,
			    unsigned b);

/* ---- the hosts against the first ----------------------------------------- */

/*
 * The hosts of an experiment against the first (kb_effects_hosts()), as
 * a table on @f and as an array under @key: effects and hosts print them.
 */
void cmd_print_host_effects(FILE *f, const struct kb_host_effect *h,
			    size_t n);
void cmd_json_host_effects(struct kb_json *j, const char *key,
			   const struct kb_host_effect *h, size_t n);

/* A side's spread as LKP prints it, "±  3%", or blanks when it has none
 * (fewer than 2 values): into @buf, which it returns. */
struct kb_summary;
const char *cmd_spread(char buf[CMD_SPREAD_LEN], const struct kb_summary *s);

/* ---- the daemon's progress ----------------------------------------------- */

/* A duration as "0.4s", "42s", "3m05s", "2h10m", or "?" for NaN or a
 * negative one (the caller frees it). */
char *cmd_duration(double s);
/* An experiment's progress as status prints it on @f (watch too). */
void cmd_print_progress(const struct kb_msg_progress *p, FILE *f);
/* The same as a JSON object, written with @j. */
void cmd_json_progress(struct kb_json *j, const struct kb_msg_progress *p);

/* ---- numbers as text ----------------------------------------------------- */

/* The drift check of @a (kb_analysis_drift(): the boots changing over
 * the run beside the variants' differences) on @f, followed by an empty
 * line, when it flags a drift; nothing otherwise (effects, why). */
struct kb_analysis;
void cmd_print_drift(FILE *f, const struct kb_analysis *a);

/* The drift check of @a under "drift" in @j: its change, interval, p
 * and whether it is flagged, or null when the boots' places are not
 * known (effects, results). */
struct kb_json;
void cmd_json_drift(struct kb_json *j, const struct kb_analysis *a);

/* ---- the sentinel: the experiment's own A/A ------------------------------ */

/*
 * The sentinel of @a (repeat.sentinel, kb_plan_sentinel()) against the
 * baseline, as a comparison of the experiment's metric without added
 * boots: "sentinel: +0.4% [-2.1%, +3.0%], no change (the experiment's own
 * A/A)" on @f; when the two differ (p below the level), a warning on
 * stderr that the experiment's false alarms are above their nominal
 * level.  Returns 1 when the sentinel differs, 0 when it does not, and
 * -1, having printed nothing, when @a has no sentinel or it cannot be
 * compared (fewer than two boots a side).
 */
int cmd_print_sentinel(FILE *f, struct kb_analysis *a);
/* The same under "sentinel" in @j: null without one. */
void cmd_json_sentinel(struct kb_json *j, struct kb_analysis *a);

/* How far make is, as text after its time: ", 120/900 units (13%)", or
 * ", 120 units" when the whole is not known; into @out (@len bytes). */
struct kb_build_progress;
void cmd_make_units(const struct kb_build_progress *p, char *out,
		    size_t len);

/* Numbers as text (stars, percentages) are lib/util/format.h's,
 * kb_format_stars() and kb_format_pct(), which the report shares. */

#endif
