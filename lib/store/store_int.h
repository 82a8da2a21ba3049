#ifndef KB_STORE_INT_H
#define KB_STORE_INT_H

/*
 * Inside the store: what lib/store/store.c (the core: opening, migrations,
 * transactions, statements) shares with the files that keep one concern
 * each, lib/store_<concern>.c.  Only those files include this header, and
 * with it <sqlite3.h>; everyone else uses lib/store/store.h.
 *
 * A helper that returns an error code has recorded the failure in @err,
 * for sqlite's failures as "<message> in '<database>': <sqlite's
 * message>".
 */

#include <sqlite3.h>
#include <stdint.h>

#include "store.h"

struct kb_err;
struct kb_proc_id;

/* Statements a connection keeps prepared (store_stmt()). */
#define STORE_STMT_CACHE 48

/* One statement of the cache: the text it was asked for by, and whether
 * a caller holds it now. */
struct store_cached {
	const char *sql;  /* the caller's text: the key is its address */
	sqlite3_stmt *st;
	int busy;         /* handed out, not given back yet */
};

struct kb_store {
	sqlite3 *db;
	char *path;
	unsigned version; /* user_version after migration */
	int read_only;    /* kb_store_read_only() */
	char tag[KB_STORE_TAG_LEN + 1]; /* kb_store_tag(); "" before db/0012 */
	struct store_cached cache[STORE_STMT_CACHE]; /* store_stmt() */
	size_t ncached;
};

/* ---- errors and transactions (lib/store/store.c) ---------------------------- */

/* Record "<@fmt's message> in '<database>': <sqlite's message>" for the
 * last failure on @s's connection; returns KB_EFAIL. */
__attribute__((format(printf, 3, 4)))
int store_fail(struct kb_store *s, struct kb_err *err, const char *fmt, ...);

/* Start a write transaction (BEGIN IMMEDIATE: writers queue here, for up
 * to the busy timeout, not halfway through). */
int store_begin(struct kb_store *s, struct kb_err *err);

/* Start a read transaction, so that several queries see one state. */
int store_begin_read(struct kb_store *s, struct kb_err *err);

/* Commit the open transaction. */
int store_commit(struct kb_store *s, struct kb_err *err);

/* Undo the open transaction, if any, after a failure; the error that
 * caused it stands. */
void store_rollback(struct kb_store *s);

/* ---- statements (lib/store/store.c) ----------------------------------------- */

/* Compile @sql into *@st (NULL on failure); the caller finalizes it. */
int store_prepare(struct kb_store *s, const char *sql, sqlite3_stmt **st,
		  struct kb_err *err);

/*
 * The statement for @sql, prepared once for the life of the connection:
 * a statement the daemon runs on every pass is compiled once, not on
 * every call (sqlite3_prepare_v2() costs more than most of our queries).
 * Bind, step, then give it back with store_stmt_done(), never
 * sqlite3_finalize(); kb_store_close() finalizes the cache.
 *
 * The cache is keyed by the address of @sql, so pass a string literal
 * (or any text that stays as it is while the store is open); the text is
 * compared too, so another text at a reused address is compiled anew
 * rather than mistaken.  When the statement for @sql is held already (a
 * query run again inside a loop over its own rows) or the cache is full
 * (STORE_STMT_CACHE), *@st is a fresh statement that store_stmt_done()
 * finalizes.  *@st is NULL on failure.
 */
int store_stmt(struct kb_store *s, const char *sql, sqlite3_stmt **st,
	       struct kb_err *err);

/* Give back @st from store_stmt() (NULL is fine): reset, its bindings
 * cleared, ready for the next caller; finalized if it was not cached. */
void store_stmt_done(struct kb_store *s, sqlite3_stmt *st);

/* Bind a C string, NULL as SQL NULL (sqlite copies the text). */
int store_bind_text(sqlite3_stmt *st, int i, const char *v);

/* Bind a double; NaN and infinities (not a measurement) as SQL NULL. */
void store_bind_real(sqlite3_stmt *st, int i, double v);

/* Column @i as a string the caller frees, SQL NULL as NULL. */
char *store_column_strdup(sqlite3_stmt *st, int i);

/* Column @i as an unsigned, clamped to 0..UINT_MAX. */
unsigned store_column_unsigned(sqlite3_stmt *st, int i);

/* Column @i as a double, SQL NULL as NaN. */
double store_column_real(sqlite3_stmt *st, int i);

/*
 * Step @st once and return sqlite's code.  Outside a transaction a busy
 * statement is retried for up to the busy timeout; inside one it is not,
 * as sqlite advises (the caller rolls the transaction back instead).
 */
int store_step(struct kb_store *s, sqlite3_stmt *st);

/* Step a statement that returns no rows to its end; on failure record
 * @fmt's message ("cannot store ..."). */
__attribute__((format(printf, 4, 5)))
int store_step_done(struct kb_store *s, sqlite3_stmt *st, struct kb_err *err,
		    const char *fmt, ...);

/* Step @st for at most one row: *@found is 1 when there is one (read it
 * from @st), 0 when not.  On failure record @fmt's message. */
__attribute__((format(printf, 5, 6)))
int store_step_maybe(struct kb_store *s, sqlite3_stmt *st, int *found,
		     struct kb_err *err, const char *fmt, ...);

/*
 * Step @st for the one row it looks up (read it from @st); @fmt names it,
 * as in "experiment %lld".  KB_ENOTFOUND "no <what> in '<database>'" when
 * there is none; on failure "cannot read <what>".
 */
__attribute__((format(printf, 4, 5)))
int store_step_row(struct kb_store *s, sqlite3_stmt *st, struct kb_err *err,
		   const char *fmt, ...);

/*
 * Look up one row: prepare @sql, bind its ?1 to @id and step as
 * store_step_row() does, the row being "<@noun> <@id>" ("experiment 7").
 * On success read the row from *@st and finalize it; on failure *@st is
 * NULL.
 */
int store_row_by_id(struct kb_store *s, const char *sql, const char *noun,
		    int64_t id, sqlite3_stmt **st, struct kb_err *err);

/* store_row_by_id() with a statement of the cache (store_stmt()): on
 * success read the row from *@st and give it back with
 * store_stmt_done(). */
int store_row_cached(struct kb_store *s, const char *sql, const char *noun,
		     int64_t id, sqlite3_stmt **st, struct kb_err *err);

/*
 * Step UPDATE @st of the one row @fmt names: KB_ENOTFOUND "no <what> in
 * '<database>'" when it changed no row; on failure "cannot <verb> <what>".
 */
__attribute__((format(printf, 5, 6)))
int store_step_update(struct kb_store *s, sqlite3_stmt *st,
		      struct kb_err *err, const char *verb, const char *fmt,
		      ...);

/* Did the last statement on @s fail on a UNIQUE constraint (a row stored
 * twice)? */
int store_is_duplicate(struct kb_store *s);

/* ---- experiments, variants, boots (lib/store/store_exp.c) ------------------- */

/*
 * Inside a transaction: store experiment @e in state @state ("running",
 * "queued") with all its variants and their options.  Sets *@id.
 */
int store_insert_experiment(struct kb_store *s,
			    const struct kb_store_experiment *e,
			    const char *state, sqlite3_int64 *id,
			    struct kb_err *err);

/* Inside a transaction: store variants @v[0..n) of experiment @exp, each
 * with its options. */
int store_insert_variants(struct kb_store *s, int64_t exp,
			  const struct kb_variant *v, size_t n,
			  struct kb_err *err);

/* The row id of variant @idx of experiment @exp; KB_ENOTFOUND when it
 * has none. */
int store_variant_id(struct kb_store *s, int64_t exp, unsigned idx,
		     sqlite3_int64 *out, struct kb_err *err);

/* Bind parameter @i of @st to the row id of variant @idx of @exp, or to
 * NULL when @idx < 0. */
int store_bind_variant(struct kb_store *s, sqlite3_stmt *st, int i,
		       int64_t exp, int idx, struct kb_err *err);

/* Refuse a boot result with a value that is not finite (sqlite would
 * store NaN as NULL, and an infinity breaks every mean), before anything
 * is written. */
int store_check_values(const struct kb_boot_result *r, unsigned boot_no,
		       struct kb_err *err);

/*
 * Inside a transaction: store boot @boot_no of variant @idx of @exp (the
 * build row @build_id, 0: none) with its environment and every sample.
 * KB_EEXISTS when the variant has that boot already.  Call
 * store_check_values() first.
 */
int store_insert_boot(struct kb_store *s, int64_t exp, unsigned idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err);

/*
 * The SQL of the reads of one experiment whose cost grows with its boots
 * and samples (kb_store_experiment_get(), kb_store_variants() and
 * kb_store_variants_pair()), for kb_store_read_plans() to explain
 * alongside lib/store/store_analysis.c's own: each finds its rows through an
 * index (db/0008), never by scanning a table.  ?1 is the experiment's id,
 * ?2 the metric, ?3 and ?4 a pair of variant indexes (?3 = -1: every
 * variant).
 */
extern const char store_sql_info[];
extern const char store_sql_variants[];
extern const char store_sql_boot_means[];
extern const char store_sql_failures[];
/* Every sample of experiment ?1 with its boot and variant index
 * (lib/store/store_export.c). */
extern const char store_sql_export[];
/* The hosts of experiment ?1: its boots per host, its host events per
 * host, and every boot with its host (lib/store/store_hosts.c, db/0010). */
extern const char store_sql_host_boots[];
extern const char store_sql_host_events[];
extern const char store_sql_boot_hosts[];
extern const char store_sql_bisection_answer[];

/*
 * The reads of lib/store/store_report.c whose cost grows with an experiment's
 * boots and samples, for kb_store_read_plans(): ?1 is the experiment's
 * id, ?2 the metric.
 */
extern const char store_sql_boot_rows[];
extern const char store_sql_run_values[];
extern const char store_sql_env_rows[];
extern const char store_sql_exp_builds[];

/* ---- evidence (lib/store/store_evidence.c, db/0007) ------------------------ */

/*
 * Inside the caller's transaction: store @r's domain XML and workload
 * text on boot row @boot_id.  Writes nothing when @r has neither, or on
 * a schema older than 7 (tests of older schemas).
 */
int store_boot_evidence_put(struct kb_store *s, sqlite3_int64 boot_id,
			    const struct kb_boot_result *r, struct kb_err *err);

/* ---- monitors (lib/store/store_monitor.c, db/0017) ------------------------- */

/*
 * Inside the caller's transaction: store @r's monitors on boot row
 * @boot_id (values that are 0 or not finite are left out).  Writes
 * nothing on a schema older than 17.
 */
int store_boot_monitors_put(struct kb_store *s, sqlite3_int64 boot_id,
			    const struct kb_boot_result *r, struct kb_err *err);

/* ---- profiles (lib/store/store_profile.c, db/0019) ------------------------- */

/*
 * Inside the caller's transaction: store @r's profile on boot row
 * @boot_id, each stack's text once in profile_stacks.  Writes nothing on
 * a schema older than 19.
 */
int store_boot_profile_put(struct kb_store *s, sqlite3_int64 boot_id,
			   const struct kb_boot_result *r, struct kb_err *err);

/* ---- experiment owners (lib/store/store_owner.c, db/0006) ------------------ */

/* What the owner columns of an experiment say about its process. */
enum store_owner {
	STORE_OWNER_NONE,  /* none recorded: the daemon's experiment */
	STORE_OWNER_ALIVE, /* it runs, or runs on another host (unknowable) */
	STORE_OWNER_GONE,  /* it ended, was killed, or the host rebooted */
};

/*
 * Read the four owner columns of @st from @col on (owner_host, owner_pid,
 * owner_start, owner_boot) into *@out (may be NULL) and say whether that
 * process is alive (kb_proc_alive).  The one place that decides it: the
 * readers that show an experiment "interrupted" and the writers that mark
 * it so agree.
 */
enum store_owner store_owner_read(sqlite3_stmt *st, int col,
				  struct kb_proc_id *out);

/* Inside a transaction: record this process as experiment @id's owner
 * (nothing on a schema older than 6). */
int store_owner_set_self(struct kb_store *s, int64_t id, struct kb_err *err);

#endif
