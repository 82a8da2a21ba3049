#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "paths.h"
#include "store_int.h"
#include "store_migrations.h"
#include "banned.h"

/* PRAGMA application_id set by db/0001: "kbis" */
#define KB_STORE_APP_ID 0x6b626973
#define BUSY_TIMEOUT_MS 5000
#define BUSY_RETRY_MS 20

/* ---- errors, transactions and statements (see store_int.h) ---------- */

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

int store_fail(struct kb_store *s, struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

int store_prepare(struct kb_store *s, const char *sql, sqlite3_stmt **st,
		  struct kb_err *err)
{
	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_fail(s, err, "cannot prepare query");
	return 0;
}

/*
 * The statement cache (store_int.h, store_stmt()).  A connection runs a
 * few dozen distinct statements, each from a literal in one place of the
 * code, so the cache is a short array searched by the literal's address;
 * entries are made on first use and finalized when the store closes.
 * Nothing is evicted: past STORE_STMT_CACHE texts, a statement is
 * prepared for each use, as without a cache.
 */
int store_stmt(struct kb_store *s, const char *sql, sqlite3_stmt **st,
	       struct kb_err *err)
{
	struct store_cached *c = NULL;
	size_t i;
	int ret;

	*st = NULL;
	for (i = 0; i < s->ncached; i++)
		if (s->cache[i].sql == sql) {
			c = &s->cache[i];
			break;
		}
	if (c && !c->busy && strcmp(sqlite3_sql(c->st), sql)) {
		/* another text at an address used before: compile it */
		sqlite3_finalize(c->st);
		if ((ret = store_prepare(s, sql, &c->st, err))) {
			*c = s->cache[--s->ncached];
			return ret;
		}
	}
	if (c && !c->busy) {
		c->busy = 1;
		*st = c->st;
		return 0;
	}
	if (c || s->ncached == STORE_STMT_CACHE)
		return store_prepare(s, sql, st, err); /* not cached */
	if ((ret = store_prepare(s, sql, st, err)))
		return ret;
	c = &s->cache[s->ncached++];
	c->sql = sql;
	c->st = *st;
	c->busy = 1;
	return 0;
}

void store_stmt_done(struct kb_store *s, sqlite3_stmt *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < s->ncached; i++)
		if (s->cache[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->cache[i].busy = 0;
			return;
		}
	sqlite3_finalize(st);
}

static int exec(sqlite3 *db, const char *path, const char *sql,
		struct kb_err *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dberr(db, path, err, "cannot run '%s'", sql);
	return 0;
}

/* exec() through the cache, for the statements of every transaction. */
static int exec_cached(struct kb_store *s, const char *sql,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_stmt(s, sql, &st, err)))
		return ret;
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(s, err, "cannot run '%s'", sql);
	store_stmt_done(s, st);
	return ret;
}

int store_begin(struct kb_store *s, struct kb_err *err)
{
	if (s->read_only)
		return kb_err_set(err, KB_EFAIL,
				  "cannot write to database '%s': it is open read-only",
				  s->path);
	return exec_cached(s, "BEGIN IMMEDIATE", err);
}

int store_begin_read(struct kb_store *s, struct kb_err *err)
{
	return exec_cached(s, "BEGIN", err);
}

int store_commit(struct kb_store *s, struct kb_err *err)
{
	return exec_cached(s, "COMMIT", err);
}

/* Undo an open transaction after a failure; the first error stands. */
static void rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

void store_rollback(struct kb_store *s)
{
	rollback(s->db);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

char *store_column_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? kb_strdup((const char *)t) : NULL;
}

unsigned store_column_unsigned(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);

	if (v < 0)
		return 0;
	return v > (sqlite3_int64)UINT_MAX ? UINT_MAX : (unsigned)v;
}

void store_bind_real(sqlite3_stmt *st, int i, double v)
{
	if (!isfinite(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

double store_column_real(sqlite3_stmt *st, int i)
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

int store_step(struct kb_store *s, sqlite3_stmt *st)
{
	if (sqlite3_get_autocommit(s->db))
		return step_retrying(st);
	return sqlite3_step(st);
}

int store_step_done(struct kb_store *s, sqlite3_stmt *st,
		    struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (store_step(s, st) == SQLITE_DONE)
		return 0;
	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

int store_step_maybe(struct kb_store *s, sqlite3_stmt *st, int *found,
		     struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int rc, ret;

	rc = store_step(s, st);
	*found = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return 0;
	va_start(ap, fmt);
	ret = vdberr(s->db, s->path, err, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * The failure of a statement about one row, which @fmt and @ap name
 * ("experiment %lld"): KB_ENOTFOUND "no <what> in '<path>'" when @rc says
 * there was no row, else "cannot <verb> <what>".
 */
static int row_failed(struct kb_store *s, int rc, struct kb_err *err,
		      const char *verb, const char *fmt, va_list ap)
{
	struct kb_buf what = KB_BUF_INIT;
	int ret;

	kb_buf_vaddf(&what, fmt, ap);
	if (rc == SQLITE_DONE)
		ret = kb_err_set(err, KB_ENOTFOUND, "no %s in '%s'", what.buf,
				 s->path);
	else
		ret = store_fail(s, err, "cannot %s %s", verb, what.buf);
	kb_buf_release(&what);
	return ret;
}

int store_step_row(struct kb_store *s, sqlite3_stmt *st,
		   struct kb_err *err, const char *fmt, ...)
{
	va_list ap;
	int rc, ret;

	rc = store_step(s, st);
	if (rc == SQLITE_ROW)
		return 0;
	va_start(ap, fmt);
	ret = row_failed(s, rc, err, "read", fmt, ap);
	va_end(ap);
	return ret;
}

int store_step_update(struct kb_store *s, sqlite3_stmt *st,
		      struct kb_err *err, const char *verb, const char *fmt,
		      ...)
{
	va_list ap;
	int rc, ret;

	rc = store_step(s, st);
	if (rc == SQLITE_DONE && sqlite3_changes(s->db) > 0)
		return 0;
	va_start(ap, fmt);
	ret = row_failed(s, rc, err, verb, fmt, ap);
	va_end(ap);
	return ret;
}

int store_row_by_id(struct kb_store *s, const char *sql, const char *noun,
		    int64_t id, sqlite3_stmt **st, struct kb_err *err)
{
	int ret;

	if ((ret = store_prepare(s, sql, st, err)))
		return ret;
	sqlite3_bind_int64(*st, 1, id);
	ret = store_step_row(s, *st, err, "%s %lld", noun, (long long)id);
	if (ret) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return ret;
}

int store_row_cached(struct kb_store *s, const char *sql, const char *noun,
		     int64_t id, sqlite3_stmt **st, struct kb_err *err)
{
	int ret;

	if ((ret = store_stmt(s, sql, st, err)))
		return ret;
	sqlite3_bind_int64(*st, 1, id);
	ret = store_step_row(s, *st, err, "%s %lld", noun, (long long)id);
	if (ret) {
		store_stmt_done(s, *st);
		*st = NULL;
	}
	return ret;
}

int store_is_duplicate(struct kb_store *s)
{
	return sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE;
}

/* ---- opening and migrating ------------------------------------------- */

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

/*
 * Read the schema version into *@v and check that the database is
 * kbisect's and not from a newer one, by reading alone: nothing is
 * written before this says yes.  The first statement reads the file: a
 * non-database fails here.
 */
static int check_version(sqlite3 *db, const char *path, sqlite3_int64 *v,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1,
				&st, NULL);
	if (rc == SQLITE_OK)
		rc = step_retrying(st);
	if (rc != SQLITE_ROW)
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot open database '%s': %s", path,
				 sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (ret)
		return ret;
	/* one read transaction, so that the version and the tables agree */
	ret = exec(db, path, "BEGIN", err);
	if (!ret)
		ret = read_version(db, path, v, err);
	rollback(db);
	return ret;
}

/* Switch a checked database to its write-ahead log. */
static int setup(sqlite3 *db, const char *path, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc, ret = 0;

	/*
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

/* A connection to @name (@path, or a URI for it) with @flags. */
static int db_connect(const char *path, const char *name, int flags,
		      sqlite3 **out, struct kb_err *err)
{
	sqlite3 *db = NULL;
	int ret;

	*out = NULL;
	if (sqlite3_open_v2(name, &db, flags, NULL) != SQLITE_OK) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot open database '%s': %s", path,
				 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return ret;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	*out = db;
	return 0;
}

/* Without creating it: is there a file at @path to open? */
static int check_exists(const char *path, struct kb_err *err)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return kb_err_set(err, KB_ENOTFOUND,
					  "no database at '%s'", path);
		return kb_err_set(err, KB_EFAIL,
				  "cannot open database '%s': %s", path,
				  strerror(errno));
	}
	if (S_ISDIR(st.st_mode))
		return kb_err_set(err, KB_EFAIL,
				  "cannot open database '%s': it is a folder",
				  path);
	return 0;
}

/* A database without a schema yet: only KB_STORE_CREATE makes one. */
static int empty(const char *path, struct kb_err *err)
{
	return kb_err_set(err, KB_ENOTFOUND,
			  "no database at '%s' (the file is empty)", path);
}

/*
 * Can this process write file @path, and make and remove files beside it
 * (the -wal and -shm of its write-ahead log)?  False on a read-only
 * medium for root too.
 */
static int can_write(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (!slash)
		dir = kb_strdup(".");
	else
		dir = kb_strndup(path, slash == path ? 1
						    : (size_t)(slash - path));
	ok = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 &&
	     faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) == 0;
	free(dir);
	return ok;
}

/* Does the -wal or the -shm file of @path exist (someone has it open,
 * or did not close it)? */
static int has_wal_files(const char *path)
{
	char *wal = kb_asprintf("%s-wal", path);
	char *shm = kb_asprintf("%s-shm", path);
	int yes = access(wal, F_OK) == 0 || access(shm, F_OK) == 0;

	free(wal);
	free(shm);
	return yes;
}

/* sqlite's URI for file @path, opened read-only and immutable. */
static char *immutable_uri(const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *p;

	kb_buf_adds(&b, path[0] == '/' ? "file://" : "file:");
	for (p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			kb_buf_addf(&b, "%%%02X", (unsigned char)*p);
		else
			kb_buf_addch(&b, *p);
	}
	kb_buf_adds(&b, "?mode=ro&immutable=1");
	return kb_buf_detach(&b);
}

/*
 * The writing connection: check the database by reading it, then switch
 * it to WAL and migrate it to @target; sets *@version.  A missing file is
 * created (with its folder) when @create, else an empty one is refused.
 */
static int open_write(const char *path, int create, unsigned target,
		      sqlite3 **out, unsigned *version, struct kb_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_int64 v = 0;
	int ret;

	*out = NULL;
	if (create && (ret = kb_mkdir_parent(path, err)))
		return ret;
	ret = db_connect(path, path,
			 SQLITE_OPEN_READWRITE |
				 (create ? SQLITE_OPEN_CREATE : 0),
			 &db, err);
	if (ret)
		return ret;
	ret = check_version(db, path, &v, err);
	if (!ret && !create && v == 0)
		ret = empty(path, err);
	if (!ret)
		ret = setup(db, path, err);
	if (!ret)
		ret = migrate(db, path, target, version, err);
	if (!ret) {
		*out = db;
		db = NULL;
	}
	sqlite3_close(db);
	return ret;
}

/*
 * The reading connection, as kb_store_open() says; @writable: may the
 * file and its folder be written?  Sets *@v to the checked version.
 */
static int open_read(const char *path, int writable, sqlite3 **out,
		     sqlite3_int64 *v, struct kb_err *err)
{
	int flags = SQLITE_OPEN_READONLY, ret;
	sqlite3 *db = NULL;
	char *uri = NULL;

	*out = NULL;
	if (writable) {
		flags = SQLITE_OPEN_READWRITE;
	} else if (!has_wal_files(path)) {
		/* sqlite could not make them, and nobody can be writing */
		uri = immutable_uri(path);
		flags |= SQLITE_OPEN_URI;
	}
	ret = db_connect(path, uri ? uri : path, flags, &db, err);
	free(uri);
	if (ret)
		return ret;
	if (writable)
		ret = exec(db, path, "PRAGMA query_only = ON", err);
	if (!ret)
		ret = check_version(db, path, v, err);
	if (!ret) {
		*out = db;
		db = NULL;
	}
	sqlite3_close(db);
	return ret;
}

/*
 * Open @path read-only, see kb_store_open(); an older kbisect's database
 * is migrated first when @writable, else refused.  Sets *@version.
 */
static int open_read_only(const char *path, int writable, unsigned target,
			  sqlite3 **out, unsigned *version,
			  struct kb_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_int64 v = 0;
	int ret;

	*out = NULL;
	ret = open_read(path, writable, &db, &v, err);
	if (ret || v >= (sqlite3_int64)target)
		goto out;
	sqlite3_close(db);
	db = NULL;
	if (v == 0) {
		ret = empty(path, err);
	} else if (!writable) {
		ret = kb_err_set(err, KB_EFAIL,
				 "database '%s' has schema version %lld, older than this kbisect's (%u), and cannot be written here to migrate it: open it once where it can be, or use the kbisect that wrote it",
				 path, (long long)v, target);
	} else {
		/* migrated as any verb would, then read */
		ret = open_write(path, 0, target, &db, version, err);
		sqlite3_close(db);
		db = NULL;
		if (!ret)
			ret = open_read(path, writable, &db, &v, err);
	}
out:
	if (!ret) {
		*version = (unsigned)v;
		*out = db;
		db = NULL;
	}
	sqlite3_close(db);
	return ret;
}

/* s->tag from the database's id (db/0012); left "" without one. */
static void read_tag(struct kb_store *s)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *id;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT value FROM meta WHERE key = 'database_id'",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (id = sqlite3_column_text(st, 0)) &&
	    strlen((const char *)id) >= KB_STORE_TAG_LEN)
		snprintf(s->tag, sizeof(s->tag), "%.*s", KB_STORE_TAG_LEN,
			 (const char *)id);
	sqlite3_finalize(st);
}

int kb_store_open(const char *path, const struct kb_store_opts *opts,
		  struct kb_store **out, struct kb_err *err)
{
	enum kb_store_access access = opts ? opts->access : KB_STORE_CREATE;
	struct kb_store *s = NULL;
	sqlite3 *db = NULL;
	unsigned target = kb_migrations_count, version = 0;
	int ret, writable = 1, read_only;

	*out = NULL;
	if (opts && opts->max_version && opts->max_version < target)
		target = opts->max_version;
	if (access != KB_STORE_CREATE) {
		ret = check_exists(path, err);
		if (ret)
			goto out;
		writable = can_write(path);
	}
	read_only = access == KB_STORE_READ_ONLY || !writable;
	if (read_only)
		ret = open_read_only(path, writable, target, &db, &version,
				     err);
	else
		ret = open_write(path, access == KB_STORE_CREATE, target, &db,
				 &version, err);
	if (ret)
		goto out;
	ret = exec(db, path, "PRAGMA foreign_keys = ON", err);
	if (ret)
		goto out;

	s = kb_calloc(1, sizeof(*s));
	s->db = db;
	s->path = kb_strdup(path);
	s->version = version;
	s->read_only = read_only;
	read_tag(s);
	db = NULL;
	*out = s;
out:
	sqlite3_close(db);
	return ret;
}

void kb_store_close(struct kb_store *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncached; i++)
		sqlite3_finalize(s->cache[i].st);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *kb_store_tag(const struct kb_store *s)
{
	return s->tag[0] ? s->tag : NULL;
}

const char *kb_store_path(const struct kb_store *s)
{
	return s->path;
}

unsigned kb_store_version(const struct kb_store *s)
{
	return s->version;
}

int kb_store_read_only(const struct kb_store *s)
{
	return s->read_only;
}

unsigned kb_store_latest_version(void)
{
	return kb_migrations_count;
}
