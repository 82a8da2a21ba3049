/*
 * The store's builds: the cache of build results by build key (db/0001)
 * with their evidence (db/0007: the resolved .config, the image's
 * SHA-256), and what a build from source adds, with the requests of each
 * `kbisect build` run (db/0003; lib/build.c, cmd/kbisect/build.c).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* ---- the build cache ------------------------------------------------- */

int kb_store_build_get(struct kb_store *s, const char *key,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *status;
	int ret;

	/* the evidence columns (db/0007) read NULL on an older schema */
	ret = store_prepare(s,
			    s->version >= 7
				    ? "SELECT id, status, reason, log_tail,"
				      " image_path, duration_s, config_text,"
				      " image_sha256 FROM builds"
				      " WHERE build_key = ?"
				    : "SELECT id, status, reason, log_tail,"
				      " image_path, duration_s, NULL, NULL"
				      " FROM builds WHERE build_key = ?",
			    &st, err);
	if (ret)
		goto out;
	store_bind_text(st, 1, key);
	if ((ret = store_step_row(s, st, err, "build '%s'", key)))
		goto out;
	memset(out, 0, sizeof(*out));
	status = (const char *)sqlite3_column_text(st, 1);
	out->status = status && strcmp(status, "ok") == 0 ? KB_BUILD_OK
							  : KB_BUILD_FAILED;
	out->reason = store_column_strdup(st, 2);
	out->log_tail = store_column_strdup(st, 3);
	out->image = store_column_strdup(st, 4);
	out->duration_s = sqlite3_column_double(st, 5);
	out->config_text = store_column_strdup(st, 6);
	out->image_sha256 = store_column_strdup(st, 7);
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

	/* with its evidence (db/0007) where the schema has the columns */
	ret = store_prepare(s,
			    s->version >= 7
				    ? "INSERT INTO builds (build_key, executor,"
				      " status, reason, log_tail, image_path,"
				      " duration_s, config_text, image_sha256)"
				      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
				    : "INSERT INTO builds (build_key, executor,"
				      " status, reason, log_tail, image_path,"
				      " duration_s) VALUES (?, ?, ?, ?, ?, ?, ?)",
			    &st, err);
	if (ret)
		goto out;
	store_bind_text(st, 1, key);
	store_bind_text(st, 2, executor);
	store_bind_text(st, 3, kb_build_status_name(r->status));
	store_bind_text(st, 4, r->reason);
	store_bind_text(st, 5, r->log_tail);
	store_bind_text(st, 6, r->image);
	sqlite3_bind_double(st, 7, r->duration_s);
	if (s->version >= 7) {
		store_bind_text(st, 8, r->config_text);
		store_bind_text(st, 9, r->image_sha256);
	}
	if (store_step(s, st) != SQLITE_DONE) {
		if (store_is_duplicate(s))
			ret = kb_err_set(err, KB_EEXISTS,
					 "build '%s' is already stored in '%s'",
					 key, s->path);
		else
			ret = store_fail(s, err, "cannot store build '%s'",
					 key);
		goto out;
	}
	*build_id = sqlite3_last_insert_rowid(s->db);
out:
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

	ret = store_prepare(s,
			    "UPDATE builds SET tree_id = ?, compiler = ?,"
			    " config_path = ?, log_path = ?, artifacts_dir = ?,"
			    " label = ?, units_compiled = ?, full_build = ?"
			    " WHERE id = ?",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, d->tree_id);
	store_bind_text(st, 2, d->compiler);
	store_bind_text(st, 3, d->config_path);
	store_bind_text(st, 4, d->log_path);
	store_bind_text(st, 5, d->artifacts_dir);
	store_bind_text(st, 6, d->label);
	if (d->units_compiled >= 0)
		sqlite3_bind_int64(st, 7, d->units_compiled);
	sqlite3_bind_int(st, 8, d->full_build);
	sqlite3_bind_int64(st, 9, build_id);
	ret = store_step_update(s, st, err, "update", "build %lld",
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

	ret = store_prepare(s,
			    "INSERT INTO build_requests (matrix_name,"
			    " matrix_path, run_started_at, variant_idx,"
			    " variant_label, build_key, build_id, outcome,"
			    " build_order)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, r->matrix_name);
	store_bind_text(st, 2, r->matrix_path);
	store_bind_text(st, 3, r->run_started_at);
	sqlite3_bind_int(st, 4, (int)r->variant_idx);
	store_bind_text(st, 5, r->variant_label);
	store_bind_text(st, 6, r->build_key);
	if (r->build_id)
		sqlite3_bind_int64(st, 7, r->build_id);
	store_bind_text(st, 8, r->outcome);
	if (r->build_order >= 0)
		sqlite3_bind_int(st, 9, r->build_order);
	ret = store_step_done(s, st, err,
			      "cannot store the build of variant %u",
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
	ret = store_prepare(s,
			    "SELECT b.id, b.build_key, b.status, b.label,"
			    " b.tree_id, b.image_path, b.log_path,"
			    " b.created_at, b.duration_s, b.units_compiled,"
			    " b.full_build,"
			    " (SELECT count(*) FROM build_requests q"
			    "   WHERE q.matrix_name = r.matrix_name"
			    "   AND q.run_started_at = r.run_started_at)"
			    " FROM build_requests r"
			    " JOIN builds b ON b.id = r.build_id"
			    " WHERE r.matrix_name = ?1"
			    " AND r.outcome IN ('built', 'failed')"
			    " AND r.run_started_at ="
			    "  (SELECT max(run_started_at) FROM build_requests"
			    "   WHERE matrix_name = ?1 AND outcome = 'built')"
			    " ORDER BY r.build_order, r.id",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, matrix_name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_store_build_row *r;

		rows = kb_reallocarray(rows, len + 1, sizeof(*rows));
		r = &rows[len++];
		r->id = sqlite3_column_int64(st, 0);
		r->build_key = store_column_strdup(st, 1);
		r->status = store_column_strdup(st, 2);
		r->label = store_column_strdup(st, 3);
		r->tree_id = store_column_strdup(st, 4);
		r->image = store_column_strdup(st, 5);
		r->log_path = store_column_strdup(st, 6);
		r->created_at = store_column_strdup(st, 7);
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
		ret = store_fail(s, err, "cannot read the builds of '%s'",
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
