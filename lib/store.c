#include "store.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "paths.h"
#include "store_migrations.h"
#include "banned.h"

/* PRAGMA application_id set by db/0001: "kbis" */
#define KB_STORE_APP_ID 0x6b626973
#define BUSY_TIMEOUT_MS 5000
#define BUSY_RETRY_MS 20

struct kb_store {
	sqlite3 *db;
	char *path;
	unsigned version; /* user_version after migration */
};

/*
 * Record "<what>: <sqlite's message>" for the last failure on @db.  Every
 * message names the database so that a user with several knows which.
 */
static int vdberr(sqlite3 *db, const char *path, struct kb_err *err,
		  const char *fmt, va_list ap)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	kb_buf_vaddf(&b, fmt, ap);
	ret = kb_err_set(err, KB_EFAIL, "%s in '%s': %s", b.buf, path,
			 db ? sqlite3_errmsg(db) : "out of memory");
	kb_buf_release(&b);
	return ret;
}

__attribute__((format(printf, 4, 5)))
static int dberr(sqlite3 *db, const char *path, struct kb_err *err,
		 const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vdberr(db, path, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* dberr() for the store's own connection. */
__attribute__((format(printf, 3, 4)))
static int fail(struct kb_store *s, struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

static int prepare(struct kb_store *s, const char *sql, sqlite3_stmt **st,
		   struct kb_err *err)
{
	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return fail(s, err, "cannot prepare query");
	return 0;
}

static int exec(sqlite3 *db, const char *path, const char *sql,
		struct kb_err *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dberr(db, path, err, "cannot run '%s'", sql);
	return 0;
}

static int begin(struct kb_store *s, struct kb_err *err)
{
	return exec(s->db, s->path, "BEGIN IMMEDIATE", err);
}

static int commit(struct kb_store *s, struct kb_err *err)
{
	return exec(s->db, s->path, "COMMIT", err);
}

/* Undo an open transaction after a failure; the first error stands. */
static void rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* Bind a C string, NULL as SQL NULL.  The text is copied by sqlite. */
static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

static char *column_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? kb_strdup((const char *)t) : NULL;
}

static unsigned column_unsigned(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);

	if (v < 0)
		return 0;
	return v > (sqlite3_int64)UINT_MAX ? UINT_MAX : (unsigned)v;
}

/* Bind a double, NaN as SQL NULL. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* A column as a double, SQL NULL as NaN. */
static double column_real(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

/* Step @st, retrying while it is busy, for up to the busy timeout. */
static int step_retrying(sqlite3_stmt *st)
{
	int rc, tries;

	for (tries = 0;; tries++) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_BUSY ||
		    tries >= BUSY_TIMEOUT_MS / BUSY_RETRY_MS)
			return rc;
		sqlite3_reset(st);
		sqlite3_sleep(BUSY_RETRY_MS);
	}
}

/*
 * Step @st once.  Outside a transaction a busy statement is retried (for
 * the busy timeout); inside one it is not, as sqlite advises: the caller
 * rolls the transaction back instead.
 */
static int step(struct kb_store *s, sqlite3_stmt *st)
{
	if (sqlite3_get_autocommit(s->db))
		return step_retrying(st);
	return sqlite3_step(st);
}

/* Step write statement @st to its end; on failure record @fmt's message. */
__attribute__((format(printf, 4, 5)))
static int step_done(struct kb_store *s, sqlite3_stmt *st,
		     struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (step(s, st) == SQLITE_DONE)
		return 0;
	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Step @st for at most one row: *@found is 1 when it returned one (read
 * it from @st), 0 when none.  On failure record @fmt's message.
 */
__attribute__((format(printf, 5, 6)))
static int step_maybe(struct kb_store *s, sqlite3_stmt *st, int *found,
		      struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int rc, ret;

	rc = step(s, st);
	*found = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return 0;
	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Step @st for the one row it is about (read it from @st): KB_ENOTFOUND
 * "no <what> in '<path>'" when there is none, and on failure "cannot read
 * <what>", @fmt making the what.
 */
__attribute__((format(printf, 4, 5)))
static int step_row(struct kb_store *s, sqlite3_stmt *st,
		    struct kb_err *err, const char *fmt, ...)
{
	struct kb_buf what = KB_BUF_INIT;
	va_list ap;
	int rc, ret = 0;

	rc = step(s, st);
	if (rc == SQLITE_ROW)
		return 0;
	va_start(ap, fmt);
	kb_buf_vaddf(&what, fmt, ap);
	va_end(ap);
	if (rc == SQLITE_DONE)
		ret = kb_err_set(err, KB_ENOTFOUND, "no %s in '%s'", what.buf,
				 s->path);
	else
		ret = fail(s, err, "cannot read %s", what.buf);
	kb_buf_release(&what);
	return ret;
}

/*
 * Step UPDATE @st of the one row @fmt names ("experiment %lld"): on
 * failure record "cannot <verb> <what>"; KB_ENOTFOUND "no <what> in
 * '<path>'" when it changed no row.
 */
__attribute__((format(printf, 5, 6)))
static int step_update(struct kb_store *s, sqlite3_stmt *st,
		       struct kb_err *err, const char *verb, const char *fmt,
		       ...)
{
	struct kb_buf what = KB_BUF_INIT;
	va_list ap;
	int rc, ret = 0;

	rc = step(s, st);
	if (rc == SQLITE_DONE && sqlite3_changes(s->db) > 0)
		return 0;
	va_start(ap, fmt);
	kb_buf_vaddf(&what, fmt, ap);
	va_end(ap);
	if (rc == SQLITE_DONE)
		ret = kb_err_set(err, KB_ENOTFOUND, "no %s in '%s'", what.buf,
				 s->path);
	else
		ret = fail(s, err, "cannot %s %s", verb, what.buf);
	kb_buf_release(&what);
	return ret;
}

/* Did the last statement fail on a UNIQUE constraint (a row stored twice)? */
static int is_duplicate(struct kb_store *s)
{
	return sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE;
}

/* Read an integer PRAGMA such as user_version. */
static int pragma_int(sqlite3 *db, const char *path, const char *sql,
		      sqlite3_int64 *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		ret = dberr(db, path, err, "cannot read '%s'", sql);
		goto out;
	}
	*out = sqlite3_column_int64(st, 0);
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * Refuse a database that belongs to another program: one with a foreign
 * application_id, or an unversioned one that already holds tables.
 */
static int check_ours(sqlite3 *db, const char *path, sqlite3_int64 version,
		      struct kb_err *err)
{
	sqlite3_int64 app = 0, ntables = 0;
	int ret;

	ret = pragma_int(db, path, "PRAGMA application_id", &app, err);
	if (ret)
		return ret;
	if (app == KB_STORE_APP_ID)
		return 0;
	if (app == 0 && version == 0) {
		ret = pragma_int(db, path,
				 "SELECT count(*) FROM sqlite_master", &ntables,
				 err);
		if (ret || ntables == 0)
			return ret;
	}
	return kb_err_set(err, KB_EFAIL,
			  "'%s' is a database of another program, not of kbisect",
			  path);
}

/* Check that the migrations left no foreign key pointing nowhere. */
static int check_foreign_keys(sqlite3 *db, const char *path,
			      const char *migration, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st,
			       NULL) != SQLITE_OK)
		return dberr(db, path, err, "cannot check foreign keys");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		ret = kb_err_set(err, KB_EFAIL,
				 "migration '%s' of '%s' leaves a row of table '%s' pointing to no row of '%s'",
				 migration, path, sqlite3_column_text(st, 0),
				 sqlite3_column_text(st, 2));
	else if (rc != SQLITE_DONE)
		ret = dberr(db, path, err, "cannot check foreign keys");
	sqlite3_finalize(st);
	return ret;
}

/*
 * Read the schema version into *@v, refusing a database from a newer
 * kbisect or from another program.
 */
static int read_version(sqlite3 *db, const char *path, sqlite3_int64 *v,
			struct kb_err *err)
{
	int ret;

	ret = pragma_int(db, path, "PRAGMA user_version", v, err);
	if (ret)
		return ret;
	if (*v > (sqlite3_int64)kb_migrations_count)
		return kb_err_set(err, KB_EFAIL,
				  "database '%s' has schema version %lld, newer than this kbisect understands (%u): upgrade kbisect",
				  path, (long long)*v, kb_migrations_count);
	return check_ours(db, path, *v, err);
}

/*
 * Bring the database from its user_version up to @target in one
 * transaction.  Foreign keys are off while migrations run (sqlite cannot
 * switch them inside a transaction, and a table rebuild must not cascade)
 * and checked before the commit.  Sets *@version to the version reached.
 */
static int migrate(sqlite3 *db, const char *path, unsigned target,
		   unsigned *version, struct kb_err *err)
{
	sqlite3_int64 v = 0;
	const char *name = NULL;
	char sql[64];
	unsigned i;
	int ret;

	/* one read transaction, so that the version and the tables agree */
	ret = exec(db, path, "BEGIN", err);
	if (!ret)
		ret = read_version(db, path, &v, err);
	rollback(db);
	if (ret)
		return ret;
	if (v >= (sqlite3_int64)target) {
		*version = (unsigned)v;
		return 0;
	}

	ret = exec(db, path, "PRAGMA foreign_keys = OFF", err);
	if (ret)
		return ret;
	ret = exec(db, path, "BEGIN IMMEDIATE", err);
	if (ret)
		return ret;
	/* another process may have migrated while we waited for the lock */
	ret = read_version(db, path, &v, err);
	if (ret)
		goto out;
	for (i = (unsigned)v; i < target; i++) {
		name = kb_migrations[i].name;
		if (sqlite3_exec(db, kb_migrations[i].sql, NULL, NULL, NULL) !=
		    SQLITE_OK) {
			ret = dberr(db, path, err,
				    "cannot apply migration '%s'", name);
			goto out;
		}
	}
	if (name) {
		ret = check_foreign_keys(db, path, name, err);
		if (ret)
			goto out;
		/* a pragma takes no parameters; target is our own number */
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %u", target);
		ret = exec(db, path, sql, err);
		if (ret)
			goto out;
		v = target;
	}
	ret = exec(db, path, "COMMIT", err);
out:
	if (ret)
		rollback(db);
	else
		*version = (unsigned)v;
	return ret;
}

static int setup(sqlite3 *db, const char *path, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc, ret = 0;

	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	/*
	 * The first statement reads the file: a non-database fails here.
	 * Switching to WAL while another connection does the same can fail
	 * with SQLITE_BUSY without the busy handler being asked, so retry.
	 */
	rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st,
				NULL);
	if (rc == SQLITE_OK)
		rc = step_retrying(st);
	if (rc != SQLITE_ROW) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot open database '%s': %s", path,
				 sqlite3_errmsg(db));
		goto out;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (!mode ||
	    (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot use a write-ahead log for database '%s' (journal mode stays '%s')",
				 path, mode ? mode : "?");
		goto out;
	}
	ret = exec(db, path, "PRAGMA synchronous = NORMAL", err);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_open(const char *path, const struct kb_store_opts *opts,
		  struct kb_store **out, struct kb_err *err)
{
	struct kb_store *s = NULL;
	sqlite3 *db = NULL;
	unsigned target = kb_migrations_count, version = 0;
	int ret;

	*out = NULL;
	if (opts && opts->max_version && opts->max_version < target)
		target = opts->max_version;
	ret = kb_mkdir_parent(path, err);
	if (ret)
		goto out;
	if (sqlite3_open_v2(path, &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot open database '%s': %s", path,
				 db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	ret = setup(db, path, err);
	if (ret)
		goto out;
	ret = migrate(db, path, target, &version, err);
	if (ret)
		goto out;
	ret = exec(db, path, "PRAGMA foreign_keys = ON", err);
	if (ret)
		goto out;

	s = kb_calloc(1, sizeof(*s));
	s->db = db;
	s->path = kb_strdup(path);
	s->version = version;
	db = NULL;
	*out = s;
out:
	sqlite3_close(db);
	return ret;
}

void kb_store_close(struct kb_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

unsigned kb_store_version(const struct kb_store *s)
{
	return s->version;
}

unsigned kb_store_latest_version(void)
{
	return kb_migrations_count;
}

static const char *kind_name(enum kb_factor_kind k)
{
	switch (k) {
	case KB_FACTOR_KCONFIG:
		return "kconfig";
	case KB_FACTOR_KERNEL:
		return "kernel";
	case KB_FACTOR_GUEST:
		return "guest";
	}
	return "?";
}

static int insert_variant(struct kb_store *s, sqlite3_stmt *vst,
			  sqlite3_stmt *ost, int64_t exp,
			  const struct kb_variant *v, struct kb_err *err)
{
	sqlite3_int64 vid;
	size_t j;
	int ret;

	sqlite3_reset(vst);
	sqlite3_bind_int64(vst, 1, exp);
	sqlite3_bind_int64(vst, 2, v->idx);
	bind_text(vst, 3, v->label ? v->label : "");
	bind_text(vst, 4, v->build_key);
	if ((ret = step_done(s, vst, err, "cannot store variant %u", v->idx)))
		return ret;
	vid = sqlite3_last_insert_rowid(s->db);
	for (j = 0; j < v->nsettings; j++) {
		const struct kb_setting *o = &v->settings[j];

		sqlite3_reset(ost);
		sqlite3_bind_int64(ost, 1, vid);
		bind_text(ost, 2, o->name);
		bind_text(ost, 3, kind_name(o->kind));
		bind_text(ost, 4, o->value);
		if ((ret = step_done(s, ost, err,
				     "cannot store option '%s' of variant %u",
				     o->name ? o->name : "", v->idx)))
			return ret;
	}
	return 0;
}

/*
 * Inside a transaction: store variants @v[0..n) of experiment row @exp,
 * each with its options.
 */
static int insert_variants(struct kb_store *s, int64_t exp,
			   const struct kb_variant *v, size_t n,
			   struct kb_err *err)
{
	sqlite3_stmt *vst = NULL, *ost = NULL;
	size_t i;
	int ret;

	if ((ret = prepare(s,
			   "INSERT INTO variants (experiment_id, idx, label,"
			   " build_key) VALUES (?, ?, ?, ?)",
			   &vst, err)) ||
	    (ret = prepare(s,
			   "INSERT INTO variant_options (variant_id, factor,"
			   " kind, level) VALUES (?, ?, ?, ?)",
			   &ost, err)))
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = insert_variant(s, vst, ost, exp, &v[i], err);
out:
	sqlite3_finalize(vst);
	sqlite3_finalize(ost);
	return ret;
}

/*
 * Inside a transaction: store experiment @e in state @state with all its
 * variants.  Sets *@id.
 */
static int insert_experiment(struct kb_store *s,
			     const struct kb_store_experiment *e,
			     const char *state, sqlite3_int64 *id,
			     struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (!e->name || !e->matrix_text)
		return kb_err_set(err, KB_EFAIL, "experiment '%s' has no %s",
				  e->name ? e->name : "",
				  e->name ? "matrix text" : "name");
	if ((ret = prepare(s,
			   "INSERT INTO experiments (name, matrix_path,"
			   " matrix_yaml, model_yaml, executor, design,"
			   " generators, metric, boots, runs_per_boot, state)"
			   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			   &st, err)))
		return ret;
	bind_text(st, 1, e->name);
	bind_text(st, 2, e->matrix_path);
	bind_text(st, 3, e->matrix_text);
	bind_text(st, 4, e->model_text);
	bind_text(st, 5, e->executor);
	bind_text(st, 6, e->design);
	bind_text(st, 7, e->generators);
	bind_text(st, 8, e->metric);
	sqlite3_bind_int64(st, 9, e->boots);
	sqlite3_bind_int64(st, 10, e->runs_per_boot);
	bind_text(st, 11, state);
	ret = step_done(s, st, err, "cannot store experiment '%s'", e->name);
	sqlite3_finalize(st);
	if (ret)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	return insert_variants(s, *id, e->variants, e->nvariants, err);
}

int kb_store_experiment_create(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       int64_t *id, struct kb_err *err)
{
	sqlite3_int64 eid = 0;
	int ret;

	if ((ret = begin(s, err)))
		return ret;
	if ((ret = insert_experiment(s, e, "running", &eid, err)) ||
	    (ret = commit(s, err))) {
		rollback(s->db);
		return ret;
	}
	*id = eid;
	return 0;
}

int kb_store_experiment_finish(struct kb_store *s, int64_t id,
			       const char *state, const char *error,
			       struct kb_err *err)
{
	static const char *const states[] = {
		"queued", "running", "done", "failed", "cancelled",
	};
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (state && strcmp(state, states[i]) == 0)
			break;
	if (i == sizeof(states) / sizeof(states[0]))
		return kb_err_set(err, KB_EFAIL,
				  "unknown experiment state '%s'",
				  state ? state : "");
	ret = prepare(s,
		      "UPDATE experiments SET state = ?1, error = ?2,"
		      " finished_at = CASE WHEN ?1 IN ('queued', 'running')"
		      " THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
		      " END WHERE id = ?3",
		      &st, err);
	if (ret)
		return ret;
	bind_text(st, 1, state);
	bind_text(st, 2, error);
	sqlite3_bind_int64(st, 3, id);
	ret = step_update(s, st, err, "set the state of", "experiment %lld",
			  (long long)id);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_build_get(struct kb_store *s, const char *key,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *status;
	int ret;

	ret = prepare(s,
		      "SELECT id, status, reason, log_tail, image_path,"
		      " duration_s FROM builds WHERE build_key = ?",
		      &st, err);
	if (ret)
		goto out;
	bind_text(st, 1, key);
	if ((ret = step_row(s, st, err, "build '%s'", key)))
		goto out;
	memset(out, 0, sizeof(*out));
	status = (const char *)sqlite3_column_text(st, 1);
	out->status = status && strcmp(status, "ok") == 0 ? KB_BUILD_OK
							  : KB_BUILD_FAILED;
	out->reason = column_strdup(st, 2);
	out->log_tail = column_strdup(st, 3);
	out->image = column_strdup(st, 4);
	out->duration_s = sqlite3_column_double(st, 5);
	*build_id = sqlite3_column_int64(st, 0);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_build_put(struct kb_store *s, const char *key,
		       const char *executor,
		       const struct kb_build_result *r, int64_t *build_id,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "INSERT INTO builds (build_key, executor, status, reason,"
		      " log_tail, image_path, duration_s)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?)",
		      &st, err);
	if (ret)
		goto out;
	bind_text(st, 1, key);
	bind_text(st, 2, executor);
	bind_text(st, 3, kb_build_status_name(r->status));
	bind_text(st, 4, r->reason);
	bind_text(st, 5, r->log_tail);
	bind_text(st, 6, r->image);
	sqlite3_bind_double(st, 7, r->duration_s);
	if (step(s, st) != SQLITE_DONE) {
		if (is_duplicate(s))
			ret = kb_err_set(err, KB_EEXISTS,
					 "build '%s' is already stored in '%s'",
					 key, s->path);
		else
			ret = fail(s, err, "cannot store build '%s'", key);
		goto out;
	}
	*build_id = sqlite3_last_insert_rowid(s->db);
out:
	sqlite3_finalize(st);
	return ret;
}

/* The row id of variant @idx of experiment @exp, or KB_ENOTFOUND. */
static int variant_id(struct kb_store *s, int64_t exp, unsigned idx,
		      sqlite3_int64 *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	ret = prepare(s,
		      "SELECT id FROM variants"
		      " WHERE experiment_id = ? AND idx = ?",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	ret = step_maybe(s, st, &found, err,
			 "cannot look up variant %u of experiment %lld", idx,
			 (long long)exp);
	if (!ret && found)
		*out = sqlite3_column_int64(st, 0);
	else if (!ret)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "experiment %lld has no variant %u in '%s'",
				 (long long)exp, idx, s->path);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_boot_exists(struct kb_store *s, int64_t exp,
			 unsigned variant_idx, unsigned boot_no, int *exists,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "SELECT 1 FROM boots b"
		      " JOIN variants v ON v.id = b.variant_id"
		      " WHERE v.experiment_id = ? AND v.idx = ?"
		      " AND b.boot_no = ?",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, variant_idx);
	sqlite3_bind_int64(st, 3, boot_no);
	ret = step_maybe(s, st, exists, err,
			 "cannot look up boot %u of variant %u", boot_no,
			 variant_idx);
	sqlite3_finalize(st);
	return ret;
}

static int insert_samples(struct kb_store *s, sqlite3_int64 boot_id,
			  const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t i, j;
	int ret;

	ret = prepare(s,
		      "INSERT INTO samples (boot_id, run_no, metric, value)"
		      " VALUES (?, ?, ?, ?)",
		      &st, err);
	for (i = 0; !ret && i < r->nruns; i++) {
		for (j = 0; !ret && j < r->runs[i].n; j++) {
			const struct kb_metric *m = &r->runs[i].m[j];

			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, boot_id);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
			bind_text(st, 3, m->name);
			sqlite3_bind_double(st, 4, m->value);
			ret = step_done(s, st, err,
					"cannot store metric '%s' of run %zu",
					m->name, i + 1);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

/* Refuse values sqlite would store as NULL (NaN) before writing anything. */
static int check_values(const struct kb_boot_result *r, unsigned boot_no,
			struct kb_err *err)
{
	size_t i, j;

	for (i = 0; i < r->nruns; i++)
		for (j = 0; j < r->runs[i].n; j++)
			if (isnan(r->runs[i].m[j].value))
				return kb_err_set(err, KB_EFAIL,
						  "metric '%s' of run %zu of boot %u is not a number",
						  r->runs[i].m[j].name, i + 1,
						  boot_no);
	return 0;
}

static int boot_environment_put(struct kb_store *s, sqlite3_int64 boot_id,
				const char *json, struct kb_err *err);

/*
 * Inside a transaction: store boot @boot_no of variant @idx of experiment
 * @exp with its environment and every sample.  KB_EEXISTS when the
 * variant has that boot already.
 */
static int insert_boot(struct kb_store *s, int64_t exp, unsigned idx,
		       unsigned boot_no, int64_t build_id,
		       const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 vid = 0, boot_id;
	int ret;

	if ((ret = variant_id(s, exp, idx, &vid, err)) ||
	    (ret = prepare(s,
			   "INSERT INTO boots (variant_id, boot_no, build_id,"
			   " status, reason, console_tail, host, duration_s)"
			   " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			   &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, vid);
	sqlite3_bind_int64(st, 2, boot_no);
	if (build_id)
		sqlite3_bind_int64(st, 3, build_id);
	else
		sqlite3_bind_null(st, 3);
	bind_text(st, 4, kb_boot_status_name(r->status));
	bind_text(st, 5, r->reason);
	bind_text(st, 6, r->console_tail);
	bind_text(st, 7, r->host);
	sqlite3_bind_double(st, 8, r->duration_s);
	if (step(s, st) != SQLITE_DONE) {
		if (is_duplicate(s))
			ret = kb_err_set(err, KB_EEXISTS,
					 "boot %u of variant %u of experiment %lld is already stored in '%s'",
					 boot_no, idx, (long long)exp, s->path);
		else
			ret = fail(s, err, "cannot store boot %u of variant %u",
				   boot_no, idx);
		goto out;
	}
	boot_id = sqlite3_last_insert_rowid(s->db);
	/* guests: the environment column (db/0004); NULL writes nothing */
	if (r->environment &&
	    (ret = boot_environment_put(s, boot_id, r->environment, err)))
		goto out;
	ret = insert_samples(s, boot_id, r, err);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_boot_put(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err)
{
	int ret;

	if ((ret = check_values(r, boot_no, err)) || (ret = begin(s, err)))
		return ret;
	if ((ret = insert_boot(s, exp, variant_idx, boot_no, build_id, r,
			       err)) ||
	    (ret = commit(s, err)))
		rollback(s->db);
	return ret;
}

void kb_store_info_release(struct kb_store_info *i)
{
	if (!i)
		return;
	free(i->name);
	free(i->state);
	free(i->created_at);
	free(i->finished_at);
	free(i->executor);
	free(i->design);
	free(i->generators);
	free(i->metric);
	free(i->error);
	memset(i, 0, sizeof(*i));
}

#define INFO_SELECT                                                        \
	"SELECT e.id, e.name, e.state, e.created_at, e.finished_at,"      \
	" e.executor, e.design, e.generators, e.metric, e.error, e.boots," \
	" e.runs_per_boot, h.variants, h.boots_done, h.samples"           \
	" FROM experiments e JOIN v_history h ON h.experiment_id = e.id"

static void read_info(sqlite3_stmt *st, struct kb_store_info *i)
{
	i->id = sqlite3_column_int64(st, 0);
	i->name = column_strdup(st, 1);
	i->state = column_strdup(st, 2);
	i->created_at = column_strdup(st, 3);
	i->finished_at = column_strdup(st, 4);
	i->executor = column_strdup(st, 5);
	i->design = column_strdup(st, 6);
	i->generators = column_strdup(st, 7);
	i->metric = column_strdup(st, 8);
	i->error = column_strdup(st, 9);
	i->boots = column_unsigned(st, 10);
	i->runs_per_boot = column_unsigned(st, 11);
	i->nvariants = column_unsigned(st, 12);
	i->nboots_done = column_unsigned(st, 13);
	i->nsamples = column_unsigned(st, 14);
}

int kb_store_experiment_get(struct kb_store *s, int64_t id,
			    struct kb_store_info *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s, INFO_SELECT " WHERE e.id = ?", &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	ret = step_row(s, st, err, "experiment %lld", (long long)id);
	if (!ret) {
		memset(out, 0, sizeof(*out));
		read_info(st, out);
	}
	sqlite3_finalize(st);
	return ret;
}

int kb_store_history(struct kb_store *s, struct kb_store_info **out,
		     size_t *n, struct kb_err *err)
{
	struct kb_store_info *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, i;
	int rc, ret;

	*out = NULL;
	*n = 0;
	ret = prepare(s, INFO_SELECT " ORDER BY e.id DESC", &st, err);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		memset(&v[len], 0, sizeof(*v));
		read_info(st, &v[len++]);
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err, "cannot read the history");
		goto out;
	}
	*out = v;
	*n = len;
	v = NULL;
	len = 0;
out:
	for (i = 0; i < len; i++)
		kb_store_info_release(&v[i]);
	free(v);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_variant_release(struct kb_store_variant *v)
{
	if (!v)
		return;
	free(v->label);
	free(v->build_key);
	free(v->boot_means);
	free(v->last_failure);
	memset(v, 0, sizeof(*v));
}

/* Fill the boot means of @metric and the failures of variant row @vid. */
static int read_variant_boots(struct kb_store *s, sqlite3_stmt *mst,
			      sqlite3_stmt *fst, sqlite3_int64 vid,
			      const char *metric, struct kb_store_variant *v,
			      struct kb_err *err)
{
	int rc;

	sqlite3_reset(mst);
	sqlite3_bind_int64(mst, 1, vid);
	bind_text(mst, 2, metric);
	while ((rc = sqlite3_step(mst)) == SQLITE_ROW) {
		v->boot_means = kb_reallocarray(v->boot_means, v->nboots + 1,
						sizeof(double));
		v->boot_means[v->nboots++] = sqlite3_column_double(mst, 0);
	}
	if (rc != SQLITE_DONE)
		return fail(s, err,
			    "cannot read the boots of variant %u", v->idx);

	sqlite3_reset(fst);
	sqlite3_bind_int64(fst, 1, vid);
	rc = sqlite3_step(fst);
	if (rc == SQLITE_ROW) {
		v->nfailed = column_unsigned(fst, 0);
		v->last_failure = column_strdup(fst, 1);
		rc = sqlite3_step(fst);
	}
	if (rc != SQLITE_DONE)
		return fail(s, err,
			    "cannot read the failures of variant %u", v->idx);
	return 0;
}

int kb_store_variants(struct kb_store *s, int64_t exp, const char *metric,
		      struct kb_store_variant **out, size_t *n,
		      struct kb_err *err)
{
	struct kb_store_variant *v = NULL;
	sqlite3_stmt *vst = NULL, *mst = NULL, *fst = NULL;
	size_t len = 0, i;
	int rc, ret;

	*out = NULL;
	*n = 0;
	/* one read transaction, so that the three queries agree */
	ret = exec(s->db, s->path, "BEGIN", err);
	if (ret)
		return ret;
	ret = prepare(s,
		      "SELECT id, idx, label, build_key FROM variants"
		      " WHERE experiment_id = ? ORDER BY idx",
		      &vst, err);
	if (ret)
		goto out;
	ret = prepare(s,
		      "SELECT value FROM v_boot_means"
		      " WHERE variant_id = ? AND metric = ? ORDER BY boot_no",
		      &mst, err);
	if (ret)
		goto out;
	/* the count, and the latest failure (the bare columns of max(id)) */
	ret = prepare(s,
		      "SELECT count(*), status || coalesce(': ' || reason, ''),"
		      " max(id) FROM boots"
		      " WHERE variant_id = ? AND status <> 'ok'"
		      " HAVING count(*) > 0",
		      &fst, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(vst, 1, exp);
	while ((rc = sqlite3_step(vst)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		memset(&v[len], 0, sizeof(*v));
		v[len].idx = column_unsigned(vst, 1);
		v[len].label = column_strdup(vst, 2);
		v[len].build_key = column_strdup(vst, 3);
		len++;
		ret = read_variant_boots(s, mst, fst,
					 sqlite3_column_int64(vst, 0), metric,
					 &v[len - 1], err);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err,
			   "cannot read the variants of experiment %lld",
			   (long long)exp);
		goto out;
	}
	ret = commit(s, err);
	if (ret)
		goto out;
	*out = v;
	*n = len;
	v = NULL;
	len = 0;
out:
	sqlite3_finalize(vst);
	sqlite3_finalize(mst);
	sqlite3_finalize(fst);
	if (ret)
		rollback(s->db);
	for (i = 0; i < len; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	return ret;
}

/* ---- analysis: comparisons, effects, adaptive sampling ---------------- */

static int bind_variant(struct kb_store *s, sqlite3_stmt *st, int i,
			int64_t exp, int idx, struct kb_err *err)
{
	sqlite3_int64 id;
	int ret;

	if (idx < 0) {
		sqlite3_bind_null(st, i);
		return 0;
	}
	if ((ret = variant_id(s, exp, (unsigned)idx, &id, err)))
		return ret;
	sqlite3_bind_int64(st, i, id);
	return 0;
}

int kb_store_analyses_put(struct kb_store *s, int64_t exp,
			  const struct kb_store_analysis *a, size_t n,
			  struct kb_err *err)
{
	sqlite3_stmt *del = NULL, *ins = NULL;
	size_t i;
	int ret;

	if ((ret = begin(s, err)))
		return ret;
	if ((ret = prepare(s,
			   "DELETE FROM analyses WHERE experiment_id = ?"
			   " AND kind = ?",
			   &del, err)) ||
	    (ret = prepare(s,
			   "INSERT INTO analyses (experiment_id, kind, metric,"
			   " a_variant_id, b_variant_id, factor, change_pct,"
			   " ci_low_pct, ci_high_pct, p_value, test, verdict,"
			   " detail) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
			   &ins, err)))
		goto out;
	for (i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < i && strcmp(a[j].kind, a[i].kind); j++)
			;
		if (j < i)
			continue; /* kind already cleared */
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, exp);
		bind_text(del, 2, a[i].kind);
		if ((ret = step_done(s, del, err, "cannot replace analyses")))
			goto out;
	}
	for (i = 0; i < n; i++) {
		sqlite3_reset(ins);
		sqlite3_clear_bindings(ins);
		sqlite3_bind_int64(ins, 1, exp);
		bind_text(ins, 2, a[i].kind);
		bind_text(ins, 3, a[i].metric);
		if ((ret = bind_variant(s, ins, 4, exp, a[i].a_idx, err)) ||
		    (ret = bind_variant(s, ins, 5, exp, a[i].b_idx, err)))
			goto out;
		bind_text(ins, 6, a[i].factor);
		bind_real(ins, 7, a[i].change_pct);
		bind_real(ins, 8, a[i].ci_low_pct);
		bind_real(ins, 9, a[i].ci_high_pct);
		bind_real(ins, 10, a[i].p_value);
		bind_text(ins, 11, a[i].test);
		bind_text(ins, 12, a[i].verdict);
		bind_text(ins, 13, a[i].detail);
		if ((ret = step_done(s, ins, err, "cannot store an analysis")))
			goto out;
	}
	ret = commit(s, err);
out:
	if (ret)
		rollback(s->db);
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return ret;
}

int kb_store_metrics(struct kb_store *s, int64_t exp, char ***out,
		     size_t *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	char **names = NULL;
	size_t count = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	ret = prepare(s,
		      "SELECT DISTINCT s.metric FROM samples s"
		      " JOIN boots b ON b.id = s.boot_id"
		      " JOIN variants v ON v.id = b.variant_id"
		      " WHERE v.experiment_id = ? ORDER BY s.metric",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		names = kb_reallocarray(names, count + 1, sizeof(*names));
		names[count++] = column_strdup(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err, "cannot list metrics");
		while (count)
			free(names[--count]);
		free(names);
		names = NULL;
	}
	sqlite3_finalize(st);
	*out = names;
	*n = count;
	return ret;
}

int kb_store_last_boot(struct kb_store *s, int64_t exp, unsigned idx,
		       unsigned *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	*out = 0;
	ret = prepare(s,
		      "SELECT coalesce(max(b.boot_no), 0) FROM boots b"
		      " JOIN variants v ON v.id = b.variant_id"
		      " WHERE v.experiment_id = ? AND v.idx = ?",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	ret = step_maybe(s, st, &found, err, "cannot count boots");
	if (!ret && found)
		*out = column_unsigned(st, 0);
	sqlite3_finalize(st);
	return ret;
}

/* ---- guests: the environment a boot ran in (db/0004) ------------------ */

/*
 * Store @json as the environment of boot row @boot_id, inside the caller's
 * transaction.  Needs schema version 4.
 */
static int boot_environment_put(struct kb_store *s, sqlite3_int64 boot_id,
				const char *json, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s, "UPDATE boots SET environment = ? WHERE id = ?", &st,
		      err);
	if (ret)
		return ret;
	bind_text(st, 1, json);
	sqlite3_bind_int64(st, 2, boot_id);
	ret = step_done(s, st, err, "cannot store the environment of boot %lld",
			(long long)boot_id);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_experiment_text_release(struct kb_store_experiment_text *t)
{
	if (!t)
		return;
	free(t->matrix_path);
	free(t->matrix_yaml);
	free(t->model_yaml);
	memset(t, 0, sizeof(*t));
}

int kb_store_experiment_text(struct kb_store *s, int64_t exp,
			     struct kb_store_experiment_text *out,
			     struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = prepare(s,
		      "SELECT matrix_path, matrix_yaml, model_yaml"
		      " FROM experiments WHERE id = ?",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	ret = step_row(s, st, err, "experiment %lld", (long long)exp);
	if (!ret) {
		out->matrix_path = column_strdup(st, 0);
		out->matrix_yaml = column_strdup(st, 1);
		out->model_yaml = column_strdup(st, 2);
	}
	sqlite3_finalize(st);
	return ret;
}

/* ---- builds from source (lib/build.c, cmd/kbisect/build.c) ---------- */

int kb_store_build_detail_put(struct kb_store *s, int64_t build_id,
			      const struct kb_store_build_detail *d,
			      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "UPDATE builds SET tree_id = ?, compiler = ?,"
		      " config_path = ?, log_path = ?, artifacts_dir = ?,"
		      " label = ?, units_compiled = ?, full_build = ?"
		      " WHERE id = ?",
		      &st, err);
	if (ret)
		return ret;
	bind_text(st, 1, d->tree_id);
	bind_text(st, 2, d->compiler);
	bind_text(st, 3, d->config_path);
	bind_text(st, 4, d->log_path);
	bind_text(st, 5, d->artifacts_dir);
	bind_text(st, 6, d->label);
	if (d->units_compiled >= 0)
		sqlite3_bind_int64(st, 7, d->units_compiled);
	sqlite3_bind_int(st, 8, d->full_build);
	sqlite3_bind_int64(st, 9, build_id);
	ret = step_update(s, st, err, "update", "build %lld",
			  (long long)build_id);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_build_request_put(struct kb_store *s,
			       const struct kb_store_build_request *r,
			       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "INSERT INTO build_requests (matrix_name, matrix_path,"
		      " run_started_at, variant_idx, variant_label, build_key,"
		      " build_id, outcome, build_order)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		      &st, err);
	if (ret)
		return ret;
	bind_text(st, 1, r->matrix_name);
	bind_text(st, 2, r->matrix_path);
	bind_text(st, 3, r->run_started_at);
	sqlite3_bind_int(st, 4, (int)r->variant_idx);
	bind_text(st, 5, r->variant_label);
	bind_text(st, 6, r->build_key);
	if (r->build_id)
		sqlite3_bind_int64(st, 7, r->build_id);
	bind_text(st, 8, r->outcome);
	if (r->build_order >= 0)
		sqlite3_bind_int(st, 9, r->build_order);
	ret = step_done(s, st, err, "cannot store the build of variant %u",
			r->variant_idx);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_build_row_release(struct kb_store_build_row *r)
{
	if (!r)
		return;
	free(r->build_key);
	free(r->status);
	free(r->label);
	free(r->tree_id);
	free(r->image);
	free(r->log_path);
	free(r->created_at);
	memset(r, 0, sizeof(*r));
}

int kb_store_build_rows(struct kb_store *s, const char *matrix_name,
			struct kb_store_build_row **out, size_t *n,
			unsigned *nvariants, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct kb_store_build_row *rows = NULL;
	size_t len = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	*nvariants = 0;
	/* the latest run of the matrix that built something */
	ret = prepare(s,
		      "SELECT b.id, b.build_key, b.status, b.label, b.tree_id,"
		      " b.image_path, b.log_path, b.created_at, b.duration_s,"
		      " b.units_compiled, b.full_build,"
		      " (SELECT count(*) FROM build_requests q"
		      "   WHERE q.matrix_name = r.matrix_name"
		      "   AND q.run_started_at = r.run_started_at)"
		      " FROM build_requests r JOIN builds b ON b.id = r.build_id"
		      " WHERE r.matrix_name = ?1 AND r.outcome IN ('built', 'failed')"
		      " AND r.run_started_at = (SELECT max(run_started_at)"
		      "   FROM build_requests WHERE matrix_name = ?1"
		      "   AND outcome = 'built')"
		      " ORDER BY r.build_order, r.id",
		      &st, err);
	if (ret)
		return ret;
	bind_text(st, 1, matrix_name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_store_build_row *r;

		rows = kb_reallocarray(rows, len + 1, sizeof(*rows));
		r = &rows[len++];
		r->id = sqlite3_column_int64(st, 0);
		r->build_key = column_strdup(st, 1);
		r->status = column_strdup(st, 2);
		r->label = column_strdup(st, 3);
		r->tree_id = column_strdup(st, 4);
		r->image = column_strdup(st, 5);
		r->log_path = column_strdup(st, 6);
		r->created_at = column_strdup(st, 7);
		r->duration_s = sqlite3_column_double(st, 8);
		r->units_compiled = sqlite3_column_type(st, 9) == SQLITE_NULL
					    ? -1
					    : (long)sqlite3_column_int64(st, 9);
		r->full_build = sqlite3_column_type(st, 10) == SQLITE_NULL
					? -1
					: sqlite3_column_int(st, 10);
		*nvariants = (unsigned)sqlite3_column_int(st, 11);
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err, "cannot read the builds of '%s'",
			   matrix_name);
		while (len)
			kb_store_build_row_release(&rows[--len]);
		free(rows);
		rows = NULL;
	}
	sqlite3_finalize(st);
	*out = rows;
	*n = len;
	return ret;
}

/* ---- bisection: probes as variants, bisections and their steps -------- */

int kb_store_variant_add(struct kb_store *s, int64_t exp,
			 const struct kb_variant *v, struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	sqlite3_int64 id;
	int ret;

	ret = variant_id(s, exp, v->idx, &id, &lookup);
	if (ret == 0)
		return kb_err_set(err, KB_EEXISTS,
				  "experiment %lld already has a variant %u in '%s'",
				  (long long)exp, v->idx, s->path);
	if (ret != KB_ENOTFOUND)
		return kb_err_set(err, ret, "%s", lookup.msg);
	if ((ret = begin(s, err)))
		return ret;
	if ((ret = insert_variants(s, exp, v, 1, err)) ||
	    (ret = commit(s, err)))
		rollback(s->db);
	return ret;
}

int kb_store_bisection_create(struct kb_store *s, int64_t exp,
			      const char *kind, const char *good,
			      const char *bad, int64_t *id,
			      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "INSERT INTO bisections (experiment_id, kind, good, bad)"
		      " VALUES (?, ?, ?, ?)",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	bind_text(st, 2, kind);
	bind_text(st, 3, good ? good : "");
	bind_text(st, 4, bad ? bad : "");
	ret = step_done(s, st, err,
			"cannot store a bisection of experiment %lld",
			(long long)exp);
	if (!ret)
		*id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_bisection_step_put(struct kb_store *s, int64_t id, int64_t exp,
				const struct kb_store_bisection_step *b,
				struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s,
		      "INSERT INTO bisection_steps (bisection_id, step_no,"
		      " probe, variant_id, classification, change_pct,"
		      " ci_low_pct, ci_high_pct) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, b->step_no);
	bind_text(st, 3, b->probe ? b->probe : "");
	if ((ret = bind_variant(s, st, 4, exp, b->variant_idx, err)))
		goto out;
	bind_text(st, 5, b->classification);
	bind_real(st, 6, b->change_pct);
	bind_real(st, 7, b->ci_low_pct);
	bind_real(st, 8, b->ci_high_pct);
	if (step(s, st) == SQLITE_DONE)
		goto out;
	if (is_duplicate(s))
		ret = kb_err_set(err, KB_EEXISTS,
				 "bisection %lld already has a step %u in '%s'",
				 (long long)id, b->step_no, s->path);
	else
		ret = fail(s, err, "cannot store step %u of bisection %lld",
			   b->step_no, (long long)id);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_bisection_finish(struct kb_store *s, int64_t id,
			      const char *state, const char *result,
			      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prepare(s, "UPDATE bisections SET state = ?, result = ?"
			 " WHERE id = ?",
		      &st, err);
	if (ret)
		return ret;
	bind_text(st, 1, state);
	bind_text(st, 2, result);
	sqlite3_bind_int64(st, 3, id);
	ret = step_update(s, st, err, "finish", "bisection %lld",
			  (long long)id);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_bisection_release(struct kb_store_bisection *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nsteps; i++) {
		free((char *)b->steps[i].probe);
		free((char *)b->steps[i].classification);
	}
	free(b->steps);
	free(b->kind);
	free(b->good);
	free(b->bad);
	free(b->state);
	free(b->result);
	memset(b, 0, sizeof(*b));
}

int kb_store_bisection_get(struct kb_store *s, int64_t id,
			   struct kb_store_bisection *out, struct kb_err *err)
{
	struct kb_store_bisection b;
	sqlite3_stmt *st = NULL;
	int rc, ret;

	memset(&b, 0, sizeof(b));
	memset(out, 0, sizeof(*out));
	ret = prepare(s,
		      "SELECT id, experiment_id, kind, good, bad, state, result"
		      " FROM bisections WHERE id = ?",
		      &st, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if ((ret = step_row(s, st, err, "bisection %lld", (long long)id)))
		goto out;
	b.id = sqlite3_column_int64(st, 0);
	b.experiment_id = sqlite3_column_int64(st, 1);
	b.kind = column_strdup(st, 2);
	b.good = column_strdup(st, 3);
	b.bad = column_strdup(st, 4);
	b.state = column_strdup(st, 5);
	b.result = column_strdup(st, 6);
	sqlite3_finalize(st);
	ret = prepare(s,
		      "SELECT bs.step_no, bs.probe, coalesce(v.idx, -1),"
		      " bs.classification, bs.change_pct, bs.ci_low_pct,"
		      " bs.ci_high_pct FROM bisection_steps bs"
		      " LEFT JOIN variants v ON v.id = bs.variant_id"
		      " WHERE bs.bisection_id = ? ORDER BY bs.step_no",
		      &st, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_store_bisection_step *p;

		b.steps = kb_reallocarray(b.steps, b.nsteps + 1,
					  sizeof(*b.steps));
		p = &b.steps[b.nsteps++];
		p->step_no = column_unsigned(st, 0);
		p->probe = column_strdup(st, 1);
		p->variant_idx = (int)sqlite3_column_int64(st, 2);
		p->classification = column_strdup(st, 3);
		p->change_pct = column_real(st, 4);
		p->ci_low_pct = column_real(st, 5);
		p->ci_high_pct = column_real(st, 6);
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err, "cannot read the steps of bisection %lld",
			   (long long)id);
		goto out;
	}
	*out = b;
	memset(&b, 0, sizeof(b));
out:
	sqlite3_finalize(st);
	kb_store_bisection_release(&b);
	return ret;
}

/* ---- daemon queue: jobs, leases and progress (db/0005, lib/queue.c) --- */

static const char *job_kind_name(enum kb_store_job_kind k)
{
	return k == KB_STORE_JOB_BUILD ? "build" : "boot";
}

int kb_store_experiment_submit(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       const struct kb_store_job_spec *jobs,
			       size_t njobs, int64_t *id, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 eid = 0;
	size_t i;
	int ret;

	*id = 0;
	if ((ret = begin(s, err)))
		return ret;
	if ((ret = insert_experiment(s, e, "queued", &eid, err)) ||
	    (ret = prepare(s,
			   "INSERT INTO jobs (experiment_id, kind, variant_id,"
			   " boot_no, seq) SELECT ?1, ?2, id, ?4, ?5"
			   " FROM variants WHERE experiment_id = ?1"
			   " AND idx = ?3",
			   &st, err)))
		goto out;
	for (i = 0; i < njobs; i++) {
		const struct kb_store_job_spec *j = &jobs[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, eid);
		bind_text(st, 2, job_kind_name(j->kind));
		sqlite3_bind_int64(st, 3, j->variant_idx);
		if (j->kind == KB_STORE_JOB_BOOT)
			sqlite3_bind_int64(st, 4, j->boot_no);
		else
			sqlite3_bind_null(st, 4);
		sqlite3_bind_int64(st, 5, j->seq);
		if ((ret = step_done(s, st, err, "cannot store a job")))
			goto out;
		if (sqlite3_changes(s->db) != 1) {
			ret = kb_err_set(err, KB_EFAIL,
					 "job %zu names variant %u, which experiment '%s' does not have",
					 i, j->variant_idx, e->name);
			goto out;
		}
	}
	if ((ret = commit(s, err)) == 0)
		*id = eid;
out:
	sqlite3_finalize(st);
	if (ret)
		rollback(s->db);
	return ret;
}

void kb_store_job_release(struct kb_store_job *j)
{
	if (!j)
		return;
	free(j->host);
	free(j->build_key);
	memset(j, 0, sizeof(*j));
}

/* A job is ready when it is queued or its lease lapsed, its experiment is
 * live and not being cancelled, and (boots) its build job is done. */
#define JOB_READY                                                           \
	" (j.state = 'queued' OR (j.state = 'leased' AND"                   \
	"  j.lease_expires_at < strftime('%Y-%m-%dT%H:%M:%SZ', ?2,"         \
	"  'unixepoch')))"                                                  \
	" AND e.state IN ('queued', 'running') AND e.cancel_requested = 0"  \
	" AND (j.kind = 'build' OR EXISTS (SELECT 1 FROM jobs bj"           \
	"  JOIN variants bv ON bv.id = bj.variant_id"                       \
	"  WHERE bj.experiment_id = j.experiment_id AND bj.kind = 'build'"  \
	"  AND bj.state = 'done' AND bv.build_key IS v.build_key))"

int kb_store_job_claim(struct kb_store *s, const struct kb_store_claim *c,
		       struct kb_store_job *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL, *up = NULL;
	sqlite3_int64 jid;
	int found, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = begin(s, err)))
		return ret;
	if ((ret = prepare(s,
			   "SELECT j.id, j.experiment_id, v.idx, j.boot_no,"
			   " j.attempts, v.build_key FROM jobs j"
			   " JOIN experiments e ON e.id = j.experiment_id"
			   " JOIN variants v ON v.id = j.variant_id"
			   " WHERE j.kind = ?1 AND (?3 = 0 OR"
			   " j.experiment_id = ?3) AND" JOB_READY
			   " ORDER BY j.experiment_id, j.seq, j.id LIMIT 1",
			   &st, err)))
		goto out;
	bind_text(st, 1, job_kind_name(c->kind));
	sqlite3_bind_int64(st, 2, c->now);
	sqlite3_bind_int64(st, 3, c->experiment);
	if ((ret = step_maybe(s, st, &found, err, "cannot look for a job")))
		goto out;
	if (!found) {
		ret = kb_err_set(err, KB_ENOTFOUND, "no %s job is ready",
				 job_kind_name(c->kind));
		goto out;
	}
	jid = sqlite3_column_int64(st, 0);
	out->id = jid;
	out->kind = c->kind;
	out->experiment = sqlite3_column_int64(st, 1);
	out->variant_idx = column_unsigned(st, 2);
	out->boot_no = column_unsigned(st, 3);
	out->attempts = column_unsigned(st, 4) + 1;
	out->build_key = column_strdup(st, 5);
	out->host = c->host ? kb_strdup(c->host) : NULL;
	if ((ret = prepare(s,
			   "UPDATE jobs SET state = 'leased', lease_owner = ?1,"
			   " lease_expires_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
			   " ?2, 'unixepoch'), attempts = attempts + 1,"
			   " started_at = strftime('%Y-%m-%dT%H:%M:%SZ', ?3,"
			   " 'unixepoch'), updated_at = strftime("
			   "'%Y-%m-%dT%H:%M:%SZ', 'now'), host = ?4,"
			   " error = NULL WHERE id = ?5",
			   &up, err)))
		goto out;
	bind_text(up, 1, c->owner);
	sqlite3_bind_int64(up, 2, c->now + c->lease_s);
	sqlite3_bind_int64(up, 3, c->now);
	bind_text(up, 4, c->host);
	sqlite3_bind_int64(up, 5, jid);
	if ((ret = step_done(s, up, err, "cannot lease a job")))
		goto out;
	sqlite3_finalize(up);
	up = NULL;
	if ((ret = prepare(s,
			   "UPDATE experiments SET state = 'running'"
			   " WHERE id = ? AND state = 'queued'",
			   &up, err)))
		goto out;
	sqlite3_bind_int64(up, 1, out->experiment);
	if ((ret = step_done(s, up, err, "cannot start an experiment")))
		goto out;
	ret = commit(s, err);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	if (ret) {
		rollback(s->db);
		kb_store_job_release(out);
	}
	return ret;
}

/* Run @sql binding ?1 = @owner, ?2 = @a (text) and ?3 = @b; sets *@n to
 * the rows it changed when @n is not NULL. */
static int owner_update(struct kb_store *s, const char *sql,
			const char *owner, const char *a, sqlite3_int64 b,
			unsigned *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = prepare(s, sql, &st, err)))
		return ret;
	bind_text(st, 1, owner);
	bind_text(st, 2, a);
	sqlite3_bind_int64(st, 3, b);
	ret = step_done(s, st, err, "cannot update the job queue");
	if (ret == 0 && n)
		*n = (unsigned)sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_job_renew(struct kb_store *s, const char *owner, int64_t now,
		       int64_t lease_s, unsigned *n, struct kb_err *err)
{
	return owner_update(s,
			    "UPDATE jobs SET lease_expires_at = strftime("
			    "'%Y-%m-%dT%H:%M:%SZ', ?3, 'unixepoch')"
			    " WHERE state = 'leased' AND lease_owner = ?1"
			    " AND ?2 IS NULL",
			    owner, NULL, now + lease_s, n, err);
}

int kb_store_job_release_others(struct kb_store *s, const char *owner,
				unsigned *n, struct kb_err *err)
{
	return owner_update(s,
			    "UPDATE jobs SET state = 'queued', lease_owner ="
			    " NULL, lease_expires_at = NULL, host = NULL,"
			    " updated_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
			    " 'now') WHERE state = 'leased' AND"
			    " lease_owner IS NOT ?1 AND ?2 IS ?2 AND ?3 = ?3",
			    owner, NULL, 0, n, err);
}

/* Inside a transaction: is job @id still leased by @owner? */
static int lease_held(struct kb_store *s, int64_t id, const char *owner,
		      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	if ((ret = prepare(s,
			   "SELECT 1 FROM jobs WHERE id = ? AND state ="
			   " 'leased' AND lease_owner = ?",
			   &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, owner);
	ret = step_maybe(s, st, &found, err, "cannot read job %lld",
			 (long long)id);
	if (!ret && !found)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "job %lld is no longer leased by '%s'",
				 (long long)id, owner);
	sqlite3_finalize(st);
	return ret;
}

/* Inside a transaction: end job @id in @state. */
static int job_end(struct kb_store *s, int64_t id, const char *state,
		   double duration_s, const char *error, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = prepare(s,
			   "UPDATE jobs SET state = ?1, duration_s = ?2,"
			   " error = ?3, lease_owner = NULL,"
			   " lease_expires_at = NULL, updated_at ="
			   " strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			   " WHERE id = ?4",
			   &st, err)))
		return ret;
	bind_text(st, 1, state);
	bind_real(st, 2, duration_s);
	bind_text(st, 3, error);
	sqlite3_bind_int64(st, 4, id);
	ret = step_done(s, st, err, "cannot end a job");
	sqlite3_finalize(st);
	return ret;
}

/* End job @id, which @owner must still hold, in @state, in one
 * transaction. */
static int job_end_leased(struct kb_store *s, int64_t id, const char *owner,
			  const char *state, double duration_s,
			  const char *error, struct kb_err *err)
{
	int ret;

	if ((ret = begin(s, err)))
		return ret;
	if ((ret = lease_held(s, id, owner, err)) ||
	    (ret = job_end(s, id, state, duration_s, error, err)) ||
	    (ret = commit(s, err)))
		rollback(s->db);
	return ret;
}

int kb_store_job_done(struct kb_store *s, int64_t id, const char *owner,
		      double duration_s, struct kb_err *err)
{
	return job_end_leased(s, id, owner, "done", duration_s, NULL, err);
}

int kb_store_job_fail(struct kb_store *s, int64_t id, const char *owner,
		      const char *error, struct kb_err *err)
{
	return job_end_leased(s, id, owner, "failed", NAN,
			      error ? error : "failed", err);
}

int kb_store_job_boot_done(struct kb_store *s, const struct kb_store_job *j,
			   const char *owner, int64_t build_id,
			   const struct kb_boot_result *r, double duration_s,
			   struct kb_err *err)
{
	int exists = 0, ret;

	if ((ret = check_values(r, j->boot_no, err)) || (ret = begin(s, err)))
		return ret;
	/* A boot stored by an earlier holder of this job (impossible when
	 * every boot goes through here, but cheap to be sure of) stands:
	 * never a second row, never a second set of samples. */
	if ((ret = lease_held(s, j->id, owner, err)) ||
	    (ret = kb_store_boot_exists(s, j->experiment, j->variant_idx,
					j->boot_no, &exists, err)) ||
	    (!exists &&
	     (ret = insert_boot(s, j->experiment, j->variant_idx, j->boot_no,
				build_id, r, err))) ||
	    (ret = job_end(s, j->id, "done", duration_s, NULL, err)) ||
	    (ret = commit(s, err)))
		rollback(s->db);
	return ret;
}

/* Inside a transaction: the queued jobs of @exp become cancelled. */
static int cancel_queued(struct kb_store *s, int64_t exp, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = prepare(s,
			   "UPDATE jobs SET state = 'cancelled', updated_at ="
			   " strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			   " WHERE experiment_id = ? AND state = 'queued'",
			   &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	ret = step_done(s, st, err,
			"cannot cancel the jobs of experiment %lld",
			(long long)exp);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_experiment_cancel(struct kb_store *s, int64_t exp,
			       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	char *state = NULL;
	int found, ret;

	if ((ret = begin(s, err)))
		return ret;
	if ((ret = prepare(s, "SELECT state FROM experiments WHERE id = ?",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = step_row(s, st, err, "experiment %lld", (long long)exp)))
		goto out;
	state = column_strdup(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (!state || (strcmp(state, "queued") && strcmp(state, "running"))) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld is already %s",
				 (long long)exp, state ? state : "finished");
		goto out;
	}
	if ((ret = prepare(s, "SELECT 1 FROM jobs WHERE experiment_id = ?",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = step_maybe(s, st, &found, err,
			      "cannot read the jobs of experiment %lld",
			      (long long)exp)))
		goto out;
	if (!found) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld runs in a 'kbisect run' process, not in kbisectd",
				 (long long)exp);
		goto out;
	}
	sqlite3_finalize(st);
	if ((ret = prepare(s,
			   "UPDATE experiments SET cancel_requested = 1"
			   " WHERE id = ?",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = step_done(s, st, err, "cannot cancel an experiment")) ||
	    (ret = cancel_queued(s, exp, err)))
		goto out;
	ret = commit(s, err);
out:
	free(state);
	sqlite3_finalize(st);
	if (ret)
		rollback(s->db);
	return ret;
}

int kb_store_experiment_settle(struct kb_store *s, int64_t exp,
			       char **state, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 queued, leased, failed, cancel, jobs;
	char *cur = NULL, *error = NULL;
	const char *next = NULL;
	int ret;

	*state = NULL;
	if ((ret = begin(s, err)))
		return ret;
	if ((ret = prepare(s,
			   "SELECT e.state, e.cancel_requested,"
			   " (SELECT count(*) FROM jobs WHERE experiment_id ="
			   "  e.id AND state = 'queued'),"
			   " (SELECT count(*) FROM jobs WHERE experiment_id ="
			   "  e.id AND state = 'leased'),"
			   " (SELECT count(*) FROM jobs WHERE experiment_id ="
			   "  e.id AND state = 'failed'),"
			   " (SELECT error FROM jobs WHERE experiment_id ="
			   "  e.id AND state = 'failed' ORDER BY id LIMIT 1),"
			   " (SELECT count(*) FROM jobs WHERE experiment_id ="
			   "  e.id)"
			   " FROM experiments e WHERE e.id = ?",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = step_row(s, st, err, "experiment %lld", (long long)exp)))
		goto out;
	cur = column_strdup(st, 0);
	cancel = sqlite3_column_int64(st, 1);
	queued = sqlite3_column_int64(st, 2);
	leased = sqlite3_column_int64(st, 3);
	failed = sqlite3_column_int64(st, 4);
	error = column_strdup(st, 5);
	jobs = sqlite3_column_int64(st, 6);
	sqlite3_finalize(st);
	st = NULL;
	/* without jobs it is a `kbisect run` experiment: not ours to end */
	if (cur && (!strcmp(cur, "queued") || !strcmp(cur, "running")) &&
	    leased == 0 && jobs > 0) {
		if (failed)
			next = "failed";
		else if (cancel)
			next = "cancelled";
		else if (queued == 0)
			next = "done";
	}
	if (next &&
	    ((ret = cancel_queued(s, exp, err)) ||
	     (ret = kb_store_experiment_finish(s, exp, next,
					       failed ? error : NULL, err))))
		goto out;
	if ((ret = commit(s, err)))
		goto out;
	*state = kb_strdup(next ? next : cur ? cur : "?");
out:
	free(cur);
	free(error);
	sqlite3_finalize(st);
	if (ret)
		rollback(s->db);
	return ret;
}

/* Read the one column of ids @st returns into *@ids, *@n; on failure
 * record "cannot <what>". */
static int read_ids(struct kb_store *s, sqlite3_stmt *st, const char *what,
		    int64_t **ids, size_t *n, struct kb_err *err)
{
	int64_t *v = NULL;
	size_t len = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		v[len++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		free(v);
		return fail(s, err, "cannot %s", what);
	}
	*ids = v;
	*n = len;
	return 0;
}

int kb_store_queue_experiments(struct kb_store *s, int64_t **ids,
			       size_t *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	*ids = NULL;
	*n = 0;
	if ((ret = prepare(s,
			   "SELECT e.id FROM experiments e WHERE e.state IN"
			   " ('queued', 'running') AND EXISTS (SELECT 1 FROM"
			   " jobs j WHERE j.experiment_id = e.id)"
			   " ORDER BY e.id",
			   &st, err)))
		return ret;
	ret = read_ids(s, st, "list the queued experiments", ids, n, err);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_progress_release(struct kb_store_progress *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->state);
	free(p->executor);
	free(p->error);
	free(p->current);
	memset(p, 0, sizeof(*p));
}

int kb_store_progress_get(struct kb_store *s, int64_t exp,
			  struct kb_store_progress *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct kb_buf cur = KB_BUF_INIT;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = prepare(s,
			   "SELECT e.name, e.state, e.executor, e.error,"
			   " e.cancel_requested,"
			   " (SELECT count(*) FROM variants WHERE"
			   "  experiment_id = e.id),"
			   " (SELECT count(*) FROM variants v WHERE"
			   "  v.experiment_id = e.id AND NOT EXISTS (SELECT 1"
			   "  FROM jobs j WHERE j.variant_id = v.id AND"
			   "  j.kind = 'boot' AND j.state <> 'done')),"
			   " sum(j.kind = 'build'),"
			   " sum(j.kind = 'build' AND j.state = 'done'),"
			   " sum(j.kind = 'boot'),"
			   " sum(j.kind = 'boot' AND j.state = 'done'),"
			   " sum(j.kind = 'build' AND j.state = 'leased'),"
			   " sum(j.kind = 'boot' AND j.state = 'leased'),"
			   " avg(CASE WHEN j.kind = 'build' THEN"
			   "  j.duration_s END),"
			   " avg(CASE WHEN j.kind = 'boot' THEN"
			   "  j.duration_s END),"
			   " CAST(strftime('%s', coalesce(e.finished_at,"
			   "  'now')) AS INTEGER) - CAST(strftime('%s',"
			   "  e.created_at) AS INTEGER),"
			   " count(j.id)"
			   " FROM experiments e"
			   " LEFT JOIN jobs j ON j.experiment_id = e.id"
			   " WHERE e.id = ? GROUP BY e.id",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = step_row(s, st, err, "experiment %lld", (long long)exp)))
		goto out;
	out->id = exp;
	out->name = column_strdup(st, 0);
	out->state = column_strdup(st, 1);
	out->executor = column_strdup(st, 2);
	out->error = column_strdup(st, 3);
	out->cancel_requested = sqlite3_column_int64(st, 4) != 0;
	out->variants_total = column_unsigned(st, 5);
	out->variants_done = column_unsigned(st, 6);
	out->builds_total = column_unsigned(st, 7);
	out->builds_done = column_unsigned(st, 8);
	out->boots_total = column_unsigned(st, 9);
	out->boots_done = column_unsigned(st, 10);
	out->builds_running = column_unsigned(st, 11);
	out->boots_running = column_unsigned(st, 12);
	out->build_mean_s = column_real(st, 13);
	out->boot_mean_s = column_real(st, 14);
	out->elapsed_s = (double)sqlite3_column_int64(st, 15);
	out->has_jobs = sqlite3_column_int64(st, 16) != 0;
	sqlite3_finalize(st);
	st = NULL;

	/* what runs now, in words */
	if ((ret = prepare(s,
			   "SELECT j.kind, v.idx, v.label, j.boot_no, j.host"
			   " FROM jobs j JOIN variants v ON v.id = j.variant_id"
			   " WHERE j.experiment_id = ? AND j.state = 'leased'"
			   " ORDER BY j.kind DESC, j.seq",
			   &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *label = (const char *)sqlite3_column_text(st, 2);
		const char *host = (const char *)sqlite3_column_text(st, 4);

		if (cur.len)
			kb_buf_adds(&cur, "; ");
		if (kind && !strcmp(kind, "build"))
			kb_buf_addf(&cur, "build #%u %s", column_unsigned(st, 1),
				    label ? label : "");
		else
			kb_buf_addf(&cur, "boot %u of #%u %s%s%s",
				    column_unsigned(st, 3),
				    column_unsigned(st, 1), label ? label : "",
				    host ? " on " : "", host ? host : "");
	}
	if (rc != SQLITE_DONE) {
		ret = fail(s, err,
			   "cannot read the running jobs of experiment %lld",
			   (long long)exp);
		goto out;
	}
	out->current = cur.len ? kb_buf_detach(&cur) : NULL;
out:
	kb_buf_release(&cur);
	sqlite3_finalize(st);
	if (ret)
		kb_store_progress_release(out);
	return ret;
}

int kb_store_progress_recent(struct kb_store *s, size_t max, int64_t **ids,
			     size_t *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	*ids = NULL;
	*n = 0;
	if ((ret = prepare(s,
			   "SELECT e.id FROM experiments e WHERE EXISTS"
			   " (SELECT 1 FROM jobs j WHERE j.experiment_id ="
			   " e.id) ORDER BY e.state IN ('queued', 'running')"
			   " DESC, e.id DESC LIMIT ?",
			   &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	ret = read_ids(s, st, "list experiments", ids, n, err);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_environments(struct kb_store *s, int64_t exp, int a_idx,
			  int b_idx, unsigned *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	*n = 0;
	ret = prepare(s,
		      "SELECT count(DISTINCT b.environment) FROM boots b"
		      " JOIN variants v ON v.id = b.variant_id"
		      " WHERE v.experiment_id = ?1 AND b.status = 'ok'"
		      " AND (?2 < 0 OR v.idx IN (?2, ?3))",
		      &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int(st, 2, a_idx);
	sqlite3_bind_int(st, 3, b_idx);
	ret = step_maybe(s, st, &found, err,
			 "cannot count the environments of experiment %lld",
			 (long long)exp);
	if (!ret && found)
		*n = column_unsigned(st, 0);
	sqlite3_finalize(st);
	return ret;
}
