/*
 * One variant's boots across the experiments of a matrix name, for
 * `kbisect trend` (lib/trend.h, lib/store/store.h).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* Experiments of a bisection or of `kbisect test` are probes, not
 * points of the series. */
#define SERIES_EXPERIMENTS                                                \
	" FROM experiments e WHERE e.name = ?1"                           \
	" AND coalesce(e.design, '') NOT LIKE 'bisect-%'"

static const char sql_newest_metric[] =
	"SELECT e.metric" SERIES_EXPERIMENTS " ORDER BY e.id DESC LIMIT 1";

/* Each experiment with its variant: the baseline when ?2 is NULL, else
 * the (first) one labelled ?2, and that variant's kernel.rev level. */
static const char sql_points[] =
	"SELECT e.id, e.created_at, e.matrix_path, e.matrix_yaml,"
	" e.executor,"
	" (SELECT v.idx FROM variants v WHERE v.experiment_id = e.id"
	"  AND CASE WHEN ?2 IS NULL THEN v.idx = 0 ELSE v.label = ?2 END"
	"  ORDER BY v.idx LIMIT 1) AS vidx"
	SERIES_EXPERIMENTS " ORDER BY e.id";
static const char sql_variant[] =
	"SELECT v.label, (SELECT o.level FROM variant_options o"
	"  WHERE o.variant_id = v.id AND o.factor = 'kernel.rev')"
	" FROM variants v WHERE v.experiment_id = ?1 AND v.idx = ?2";

void kb_store_series_point_release(struct kb_store_series_point *p)
{
	if (!p)
		return;
	free(p->created_at);
	free(p->matrix_path);
	free(p->matrix_yaml);
	free(p->executor);
	free(p->label);
	free(p->kernel_rev);
	free(p->boot_means);
	memset(p, 0, sizeof(*p));
}

/* Fill @p's label, kernel.rev and boot means of @metric. */
static int read_variant(struct kb_store *s, struct kb_store_series_point *p,
			const char *metric, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int found, rc, ret;

	if ((ret = store_prepare(s, sql_variant, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, p->experiment);
	sqlite3_bind_int64(st, 2, p->variant_idx);
	ret = store_step_maybe(s, st, &found, err,
			       "cannot read variant %d of experiment %lld",
			       p->variant_idx, (long long)p->experiment);
	if (!ret && found) {
		p->label = store_column_strdup(st, 0);
		p->kernel_rev = store_column_strdup(st, 1);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (ret)
		return ret;

	/* the boot means of the results: the same query, the same values */
	if ((ret = store_prepare(s, store_sql_boot_means, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, p->experiment);
	store_bind_text(st, 2, metric);
	sqlite3_bind_int64(st, 3, p->variant_idx);
	sqlite3_bind_int64(st, 4, p->variant_idx);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (p->nboots == cap) {
			cap = cap ? 2 * cap : 8;
			p->boot_means = kb_reallocarray(p->boot_means, cap,
							sizeof(double));
		}
		p->boot_means[p->nboots++] = sqlite3_column_double(st, 1);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err,
				 "cannot read the boots of experiment %lld",
				 (long long)p->experiment);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_series(struct kb_store *s, const char *name, const char *label,
		    const char *metric, char **metric_out,
		    struct kb_store_series_point **out, size_t *n,
		    struct kb_err *err)
{
	struct kb_store_series_point *v = NULL, *p;
	sqlite3_stmt *st = NULL;
	char *m = NULL;
	size_t len = 0, i;
	int found, rc, ret;

	*out = NULL;
	*n = 0;
	*metric_out = NULL;
	if ((ret = store_begin_read(s, err)))
		return ret;
	if (metric) {
		m = kb_strdup(metric);
	} else {
		if ((ret = store_prepare(s, sql_newest_metric, &st, err)))
			goto out;
		store_bind_text(st, 1, name);
		ret = store_step_maybe(s, st, &found, err,
				       "cannot read the experiments named '%s'",
				       name);
		if (!ret && found)
			m = store_column_strdup(st, 0);
		sqlite3_finalize(st);
		st = NULL;
		if (ret)
			goto out;
	}
	if ((ret = store_prepare(s, sql_points, &st, err)))
		goto out;
	store_bind_text(st, 1, name);
	store_bind_text(st, 2, label);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		p = &v[len++];
		memset(p, 0, sizeof(*p));
		p->experiment = sqlite3_column_int64(st, 0);
		p->created_at = store_column_strdup(st, 1);
		p->matrix_path = store_column_strdup(st, 2);
		p->matrix_yaml = store_column_strdup(st, 3);
		p->executor = store_column_strdup(st, 4);
		p->variant_idx = sqlite3_column_type(st, 5) == SQLITE_NULL
					 ? -1
					 : (int)store_column_unsigned(st, 5);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the experiments named '%s'", name);
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	for (i = 0; i < len && !ret; i++)
		if (v[i].variant_idx >= 0 && m)
			ret = read_variant(s, &v[i], m, err);
	if (ret || (ret = store_commit(s, err)))
		goto out;
	*out = v;
	*n = len;
	*metric_out = m;
	v = NULL;
	len = 0;
	m = NULL;
out:
	sqlite3_finalize(st);
	if (ret)
		store_rollback(s);
	for (i = 0; i < len; i++)
		kb_store_series_point_release(&v[i]);
	free(v);
	free(m);
	return ret;
}
