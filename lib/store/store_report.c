/*
 * What a report reads of one experiment besides its variants and boot
 * means (lib/report.c, `kbisect report`): every boot with its status and
 * duration, every run's value of a metric, the environments the boots
 * ran in (db/0004), the builds of its variants and its bisections.  Each
 * read is one query over the whole experiment in plan order, found
 * through indexes (kb_store_read_plans() checks them).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

const char store_sql_boot_rows[] =
	"SELECT v.idx, b.boot_no, b.status, b.reason, b.host, b.duration_s"
	" FROM variants v JOIN boots b ON b.variant_id = v.id"
	" WHERE v.experiment_id = ?1 ORDER BY v.idx, b.boot_no";
const char store_sql_run_values[] =
	"SELECT v.idx, b.boot_no, s.run_no, s.value FROM variants v"
	" JOIN boots b ON b.variant_id = v.id"
	" JOIN samples s ON s.boot_id = b.id"
	" WHERE v.experiment_id = ?1 AND b.status = 'ok' AND s.metric = ?2"
	" ORDER BY v.idx, b.boot_no, s.run_no";
/* the environment's fields as v_boot_environment spells them out */
const char store_sql_env_rows[] =
	"SELECT b.host, json_extract(b.environment, '$.hypervisor'),"
	" json_extract(b.environment, '$.hypervisor_version'),"
	" json_extract(b.environment, '$.libvirt_version'),"
	" json_extract(b.environment, '$.host_kernel'),"
	" json_extract(b.environment, '$.host_cpu'), count(*)"
	" FROM variants v JOIN boots b ON b.variant_id = v.id"
	" WHERE v.experiment_id = ?1 GROUP BY 1, 2, 3, 4, 5, 6"
	" ORDER BY min(b.id)";
const char store_sql_exp_builds[] =
	"SELECT b.id, b.build_key, b.status, b.label, b.tree_id,"
	" b.image_path, b.log_path, b.created_at, b.duration_s,"
	" b.units_compiled, b.full_build FROM builds b"
	" WHERE b.build_key IN (SELECT build_key FROM variants"
	"  WHERE experiment_id = ?1)"
	" ORDER BY b.id";

void kb_store_boot_row_release(struct kb_store_boot_row *r)
{
	if (!r)
		return;
	free(r->status);
	free(r->reason);
	free(r->host);
	memset(r, 0, sizeof(*r));
}

int kb_store_boot_rows(struct kb_store *s, int64_t exp,
		       struct kb_store_boot_row **out, size_t *n,
		       struct kb_err *err)
{
	struct kb_store_boot_row *rows = NULL, *r;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_prepare(s, store_sql_boot_rows, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 64;
			rows = kb_reallocarray(rows, cap, sizeof(*rows));
		}
		r = &rows[len++];
		r->idx = store_column_unsigned(st, 0);
		r->boot_no = store_column_unsigned(st, 1);
		r->status = store_column_strdup(st, 2);
		r->reason = store_column_strdup(st, 3);
		r->host = store_column_strdup(st, 4);
		r->duration_s = store_column_real(st, 5);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the boots of experiment %lld",
				 (long long)exp);
		while (len)
			kb_store_boot_row_release(&rows[--len]);
		free(rows);
		rows = NULL;
	}
	sqlite3_finalize(st);
	*out = rows;
	*n = len;
	return ret;
}

int kb_store_run_values(struct kb_store *s, int64_t exp, const char *metric,
			struct kb_store_run_value **out, size_t *n,
			struct kb_err *err)
{
	struct kb_store_run_value *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_prepare(s, store_sql_run_values, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	store_bind_text(st, 2, metric);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 256;
			v = kb_reallocarray(v, cap, sizeof(*v));
		}
		v[len].idx = store_column_unsigned(st, 0);
		v[len].boot_no = store_column_unsigned(st, 1);
		v[len].run_no = store_column_unsigned(st, 2);
		v[len].value = sqlite3_column_double(st, 3);
		len++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the samples of experiment %lld",
				 (long long)exp);
		free(v);
		v = NULL;
		len = 0;
	}
	sqlite3_finalize(st);
	*out = v;
	*n = len;
	return ret;
}

void kb_store_env_row_release(struct kb_store_env_row *r)
{
	if (!r)
		return;
	free(r->host);
	free(r->hypervisor);
	free(r->hypervisor_version);
	free(r->libvirt_version);
	free(r->host_kernel);
	free(r->host_cpu);
	memset(r, 0, sizeof(*r));
}

int kb_store_env_rows(struct kb_store *s, int64_t exp,
		      struct kb_store_env_row **out, size_t *n,
		      struct kb_err *err)
{
	struct kb_store_env_row *rows = NULL, *r;
	sqlite3_stmt *st = NULL;
	size_t len = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_prepare(s, store_sql_env_rows, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows = kb_reallocarray(rows, len + 1, sizeof(*rows));
		r = &rows[len++];
		r->host = store_column_strdup(st, 0);
		r->hypervisor = store_column_strdup(st, 1);
		r->hypervisor_version = store_column_strdup(st, 2);
		r->libvirt_version = store_column_strdup(st, 3);
		r->host_kernel = store_column_strdup(st, 4);
		r->host_cpu = store_column_strdup(st, 5);
		r->nboots = store_column_unsigned(st, 6);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the environments of experiment %lld",
				 (long long)exp);
		while (len)
			kb_store_env_row_release(&rows[--len]);
		free(rows);
		rows = NULL;
	}
	sqlite3_finalize(st);
	*out = rows;
	*n = len;
	return ret;
}

int kb_store_experiment_builds(struct kb_store *s, int64_t exp,
			       struct kb_store_build_row **out, size_t *n,
			       struct kb_err *err)
{
	struct kb_store_build_row *rows = NULL, *r;
	sqlite3_stmt *st = NULL;
	size_t len = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_prepare(s, store_sql_exp_builds, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
		r->duration_s = store_column_real(st, 8);
		r->units_compiled = sqlite3_column_type(st, 9) == SQLITE_NULL
					    ? -1
					    : (long)sqlite3_column_int64(st, 9);
		r->full_build = sqlite3_column_type(st, 10) == SQLITE_NULL
					? -1
					: sqlite3_column_int(st, 10);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the builds of experiment %lld",
				 (long long)exp);
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

int kb_store_experiment_bisections(struct kb_store *s, int64_t exp,
				   int64_t **ids, size_t *n,
				   struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *v = NULL;
	size_t len = 0;
	int rc, ret;

	*ids = NULL;
	*n = 0;
	ret = store_prepare(s,
			    "SELECT id FROM bisections WHERE experiment_id = ?"
			    " ORDER BY id",
			    &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		v[len++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the bisections of experiment %lld",
				 (long long)exp);
		free(v);
		v = NULL;
		len = 0;
	}
	sqlite3_finalize(st);
	*ids = v;
	*n = len;
	return ret;
}
