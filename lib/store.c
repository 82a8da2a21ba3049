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
__attribute__((format(printf, 4, 5)))
static int dberr(sqlite3 *db, const char *path, struct kb_err *err,
		 const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	ret = kb_err_set(err, KB_EFAIL, "%s in '%s': %s", b.buf, path,
			 db ? sqlite3_errmsg(db) : "out of memory");
	kb_buf_release(&b);
	return ret;
}

static int prepare(struct kb_store *s, const char *sql, sqlite3_stmt **st,
		   struct kb_err *err)
{
	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return dberr(s->db, s->path, err, "cannot prepare query");
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

	sqlite3_reset(vst);
	sqlite3_bind_int64(vst, 1, exp);
	sqlite3_bind_int64(vst, 2, v->idx);
	bind_text(vst, 3, v->label ? v->label : "");
	bind_text(vst, 4, v->build_key);
	if (sqlite3_step(vst) != SQLITE_DONE)
		return dberr(s->db, s->path, err, "cannot store variant %u",
			     v->idx);
	vid = sqlite3_last_insert_rowid(s->db);
	for (j = 0; j < v->nsettings; j++) {
		const struct kb_setting *o = &v->settings[j];

		sqlite3_reset(ost);
		sqlite3_bind_int64(ost, 1, vid);
		bind_text(ost, 2, o->name);
		bind_text(ost, 3, kind_name(o->kind));
		bind_text(ost, 4, o->value);
		if (sqlite3_step(ost) != SQLITE_DONE)
			return dberr(s->db, s->path, err,
				     "cannot store option '%s' of variant %u",
				     o->name ? o->name : "", v->idx);
	}
	return 0;
}

int kb_store_experiment_create(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       int64_t *id, struct kb_err *err)
{
	sqlite3_stmt *est = NULL, *vst = NULL, *ost = NULL;
	sqlite3_int64 eid;
	size_t i;
	int ret;

	if (!e->name || !e->matrix_text)
		return kb_err_set(err, KB_EFAIL,
				  "experiment '%s' has no %s",
				  e->name ? e->name : "",
				  e->name ? "matrix text" : "name");
	ret = begin(s, err);
	if (ret)
		return ret;
	ret = prepare(s,
		      "INSERT INTO experiments (name, matrix_path, matrix_yaml,"
		      " model_yaml, executor, design, generators, metric,"
		      " boots, runs_per_boot, state)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')",
		      &est, err);
	if (ret)
		goto out;
	bind_text(est, 1, e->name);
	bind_text(est, 2, e->matrix_path);
	bind_text(est, 3, e->matrix_text);
	bind_text(est, 4, e->model_text);
	bind_text(est, 5, e->executor);
	bind_text(est, 6, e->design);
	bind_text(est, 7, e->generators);
	bind_text(est, 8, e->metric);
	sqlite3_bind_int64(est, 9, e->boots);
	sqlite3_bind_int64(est, 10, e->runs_per_boot);
	if (sqlite3_step(est) != SQLITE_DONE) {
		ret = dberr(s->db, s->path, err,
			    "cannot store experiment '%s'", e->name);
		goto out;
	}
	eid = sqlite3_last_insert_rowid(s->db);

	ret = prepare(s,
		      "INSERT INTO variants (experiment_id, idx, label,"
		      " build_key) VALUES (?, ?, ?, ?)",
		      &vst, err);
	if (ret)
		goto out;
	ret = prepare(s,
		      "INSERT INTO variant_options (variant_id, factor, kind,"
		      " level) VALUES (?, ?, ?, ?)",
		      &ost, err);
	if (ret)
		goto out;
	for (i = 0; i < e->nvariants; i++) {
		ret = insert_variant(s, vst, ost, eid, &e->variants[i], err);
		if (ret)
			goto out;
	}
	ret = commit(s, err);
	if (!ret)
		*id = eid;
out:
	sqlite3_finalize(est);
	sqlite3_finalize(vst);
	sqlite3_finalize(ost);
	if (ret)
		rollback(s->db);
	return ret;
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
		goto out;
	bind_text(st, 1, state);
	bind_text(st, 2, error);
	sqlite3_bind_int64(st, 3, id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		ret = dberr(s->db, s->path, err,
			    "cannot set the state of experiment %lld",
			    (long long)id);
		goto out;
	}
	if (sqlite3_changes(s->db) == 0)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "no experiment %lld in '%s'", (long long)id,
				 s->path);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_build_get(struct kb_store *s, const char *key,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *status;
	int rc, ret;

	ret = prepare(s,
		      "SELECT id, status, reason, log_tail, image_path,"
		      " duration_s FROM builds WHERE build_key = ?",
		      &st, err);
	if (ret)
		goto out;
	bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = kb_err_set(err, KB_ENOTFOUND, "no build '%s' in '%s'",
				 key, s->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = dberr(s->db, s->path, err, "cannot read build '%s'", key);
		goto out;
	}
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
	if (sqlite3_step(st) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE)
			ret = kb_err_set(err, KB_EEXISTS,
					 "build '%s' is already stored in '%s'",
					 key, s->path);
		else
			ret = dberr(s->db, s->path, err,
				    "cannot store build '%s'", key);
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
	int rc, ret;

	ret = prepare(s,
		      "SELECT id FROM variants"
		      " WHERE experiment_id = ? AND idx = ?",
		      &st, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "experiment %lld has no variant %u in '%s'",
				 (long long)exp, idx, s->path);
	else
		ret = dberr(s->db, s->path, err,
			    "cannot look up variant %u of experiment %lld",
			    idx, (long long)exp);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_boot_exists(struct kb_store *s, int64_t exp,
			 unsigned variant_idx, unsigned boot_no, int *exists,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;

	ret = prepare(s,
		      "SELECT 1 FROM boots b"
		      " JOIN variants v ON v.id = b.variant_id"
		      " WHERE v.experiment_id = ? AND v.idx = ?"
		      " AND b.boot_no = ?",
		      &st, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, variant_idx);
	sqlite3_bind_int64(st, 3, boot_no);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = dberr(s->db, s->path, err,
			    "cannot look up boot %u of variant %u", boot_no,
			    variant_idx);
		goto out;
	}
	*exists = rc == SQLITE_ROW;
out:
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
	if (ret)
		goto out;
	for (i = 0; i < r->nruns; i++) {
		for (j = 0; j < r->runs[i].n; j++) {
			const struct kb_metric *m = &r->runs[i].m[j];

			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, boot_id);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
			bind_text(st, 3, m->name);
			sqlite3_bind_double(st, 4, m->value);
			if (sqlite3_step(st) != SQLITE_DONE) {
				ret = dberr(s->db, s->path, err,
					    "cannot store metric '%s' of run %zu",
					    m->name, i + 1);
				goto out;
			}
		}
	}
out:
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

int kb_store_boot_put(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 vid = 0;
	int ret;

	ret = check_values(r, boot_no, err);
	if (ret)
		return ret;
	ret = begin(s, err);
	if (ret)
		return ret;
	ret = variant_id(s, exp, variant_idx, &vid, err);
	if (ret)
		goto out;
	ret = prepare(s,
		      "INSERT INTO boots (variant_id, boot_no, build_id,"
		      " status, reason, console_tail, host, duration_s)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		      &st, err);
	if (ret)
		goto out;
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
	if (sqlite3_step(st) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE)
			ret = kb_err_set(err, KB_EEXISTS,
					 "boot %u of variant %u of experiment %lld is already stored in '%s'",
					 boot_no, variant_idx, (long long)exp,
					 s->path);
		else
			ret = dberr(s->db, s->path, err,
				    "cannot store boot %u of variant %u",
				    boot_no, variant_idx);
		goto out;
	}
	ret = insert_samples(s, sqlite3_last_insert_rowid(s->db), r, err);
	if (ret)
		goto out;
	ret = commit(s, err);
out:
	sqlite3_finalize(st);
	if (ret)
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
	int rc, ret;

	ret = prepare(s, INFO_SELECT " WHERE e.id = ?", &st, err);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "no experiment %lld in '%s'", (long long)id,
				 s->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = dberr(s->db, s->path, err, "cannot read experiment %lld",
			    (long long)id);
		goto out;
	}
	memset(out, 0, sizeof(*out));
	read_info(st, out);
out:
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
		ret = dberr(s->db, s->path, err, "cannot read the history");
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
		return dberr(s->db, s->path, err,
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
		return dberr(s->db, s->path, err,
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
		ret = dberr(s->db, s->path, err,
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
