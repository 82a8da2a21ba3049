#ifndef KBISECT_OPEN_H
#define KBISECT_OPEN_H

#include <stdint.h>
#include <stdio.h>

#include "store.h"

/*
 * What several verbs open, parse and resolve before their work (open.c):
 * the database, an experiment for analysis and the answers stored back,
 * the ids and variants the command line names, a matrix, a plan resolved
 * against its tree and the caps on it, a trend's series.  Errors go to
 * @err (the verb reports them with cmd_fail()); a usage error is said
 * here and its exit status returned.
 */

struct kb_analysis;
struct kb_args;
struct kb_matrix;
struct kb_plan;
struct kb_plan_limits;
struct kb_trend_series_opts;

/* ---- the database and what the command line names ------------------------ */

/*
 * The database when no --db names one: $KBISECT_DB, else that of the
 * kbisectd answering at $KBISECT_SOCKET or the default socket (its
 * HELLO says it: the experiments `submit` sent are there), else the XDG
 * default (kb_paths_default_db).  A daemon that does not answer within
 * 2 s is passed over.  Caller frees.
 */
char *cmd_default_db(void);
/* Open the database: @path, else cmd_default_db(); created when missing
 * (the verbs that store experiments). */
int cmd_open_store(const char *path, struct kb_store **out,
		   struct kb_err *err);
/* The same, opened as @access says (lib/store/store.h): verbs that read open
 * it KB_STORE_READ_ONLY, or KB_STORE_EXISTING when they store what they
 * find where they can; neither creates a database. */
int cmd_open_store_as(const char *path, enum kb_store_access access,
		      struct kb_store **out, struct kb_err *err);
/* The URIs of @m's hosts, in order (kb_matrix_nhosts of them; the
 * strings are @m's): the caller frees the array. */
const char **cmd_host_uris(const struct kb_matrix *m);
/* @s as a count (decimal digits, at most 15) from @min to @max into
 * *@out; -1 when it is not one. */
#define KB_COUNT_MAX 999999999999999ULL
int cmd_parse_count(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);
/* Parse an experiment id, a whole number from 1 to INT64_MAX; returns 0
 * or -1 (bad input, exit status 2). */
int cmd_parse_id(const char *s, int64_t *out);
/*
 * Load the matrix at @path by its absolute path (kb_matrix_load): an
 * experiment stores the path, which anchors the matrix's relative paths,
 * so that whatever runs it again (resume, boots the analysis verbs add)
 * finds them from any folder.  A matrix with a host no executor runs is
 * refused (kb_matrix_check_runnable_hosts(); none today).
 */
int cmd_matrix_load(const char *path, struct kb_matrix **m,
		    struct kb_err *err);

/* ---- an experiment for the analysis verbs -------------------------------- */

/* Open experiment @id (its text from the command line) of the database
 * @db for analysis of @metric (NULL: the experiment's), the database
 * KB_STORE_EXISTING; *@s and *@a are the caller's, also after a
 * failure.  An id that is not one is KB_EINPUT. */
int cmd_open_analysis(const char *db, const char *id, const char *metric,
		      struct kb_store **s, struct kb_analysis **a,
		      struct kb_err *err);
/* Nonzero when an answer can be stored in @s; else says on stderr that
 * it is not stored, and 0. */
int cmd_store_writable(const struct kb_store *s);
/*
 * Store analysis rows @rows[0..n) of experiment @exp (an analysis verb's
 * answer), or, when the database cannot be written here, say on stderr
 * that they are not stored and return 0.
 */
int cmd_store_analyses(struct kb_store *s, int64_t exp,
		       const struct kb_store_analysis *rows, size_t n,
		       struct kb_err *err);
/* A variant of @a given as a number ("4", "#4") or an exact label into
 * *@out; returns 0, or -1 when there is no such variant. */
int cmd_parse_variant(const struct kb_analysis *a, const char *s, int *out);

/* ---- a plan -------------------------------------------------------------- */

/*
 * Resolve @p's configs against its matrix's source.tree when it has one
 * (progress on stderr unless @quiet); a tree that does not exist is noted
 * on stderr and left unresolved.  Then, when options did not hold,
 * cmd_plan_report_dropped() says which on @f, prominently.
 */
int cmd_plan_resolve(struct kb_plan *p, int quiet, struct kb_err *err);
void cmd_plan_report_dropped(const struct kb_plan *p, FILE *f);
/*
 * The caps on a whole plan from --max-boots and --max-samples of @a into
 * *@out (lib/plan.h: the defaults where not given); a value that is not
 * a count from 1 is a usage error of @verb: returns its status (2).
 */
int cmd_plan_limits(const char *verb, const struct kb_args *a,
		    struct kb_plan_limits *out);

/* ---- a trend's series ---------------------------------------------------- */

/* --variant, --metric and --by of trend and report --trend into @so;
 * a usage error of @verb (exit 2) for a --by other than time or
 * revision. */
int cmd_trend_series_opts(const char *verb, const char *variant,
			  const char *metric, const char *by,
			  struct kb_trend_series_opts *so);

#endif
