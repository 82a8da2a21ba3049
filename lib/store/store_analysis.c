/*
 * The store's analyses (comparisons, effects, "why" answers; db/0002) and
 * what analysis and adaptive sampling read back of an experiment: its
 * metrics, the texts it was submitted with, the environments its boots
 * ran in (db/0004) and how many boots a variant has.
 */
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* The reads of this file that grow with an experiment's boots and
 * samples; kb_store_read_plans() explains them. */
static const char sql_metrics[] =
	"SELECT DISTINCT s.metric FROM samples s"
	" JOIN boots b ON b.id = s.boot_id"
	" JOIN variants v ON v.id = b.variant_id"
	" WHERE v.experiment_id = ?1 ORDER BY s.metric";
static const char sql_environments[] =
	"SELECT count(DISTINCT b.environment) FROM boots b"
	" JOIN variants v ON v.id = b.variant_id"
	" WHERE v.experiment_id = ?1 AND b.status = 'ok'"
	" AND (?2 < 0 OR v.idx IN (?2, ?3))";
static const char sql_last_boot[] =
	"SELECT coalesce(max(b.boot_no), 0) FROM boots b"
	" JOIN variants v ON v.id = b.variant_id"
	" WHERE v.experiment_id = ?1 AND v.idx = ?2";

static const char sql_last_round[] =
	"SELECT coalesce(max(b.round), 0) FROM boots b"
	" JOIN variants v ON v.id = b.variant_id"
	" WHERE v.experiment_id = ?1";

int kb_store_analyses_put(struct kb_store *s, int64_t exp,
			  const struct kb_store_analysis *a, size_t n,
			  struct kb_err *err)
{
	sqlite3_stmt *del = NULL, *ins = NULL;
	size_t i;
	int ret;

	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_prepare(s,
				 "DELETE FROM analyses WHERE experiment_id = ?"
				 " AND kind = ? AND metric = ?"
				 " AND a_variant_id IS ? AND b_variant_id IS ?",
				 &del, err)) ||
	    (ret = store_prepare(s,
				 "INSERT INTO analyses (experiment_id, kind,"
				 " metric, a_variant_id, b_variant_id, factor,"
				 " change_pct, ci_low_pct, ci_high_pct,"
				 " p_value, test, verdict, detail, p_adjusted,"
				 " significant)"
				 " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				 &ins, err)))
		goto out;
	/* the same analysis stored before (of the same kind, metric and
	 * variants) goes; every other stays */
	for (i = 0; i < n; i++) {
		sqlite3_reset(del);
		sqlite3_clear_bindings(del);
		sqlite3_bind_int64(del, 1, exp);
		store_bind_text(del, 2, a[i].kind);
		store_bind_text(del, 3, a[i].metric);
		if ((ret = store_bind_variant(s, del, 4, exp, a[i].a_idx,
					      err)) ||
		    (ret = store_bind_variant(s, del, 5, exp, a[i].b_idx,
					      err)) ||
		    (ret = store_step_done(s, del, err,
					   "cannot replace analyses")))
			goto out;
	}
	for (i = 0; i < n; i++) {
		sqlite3_reset(ins);
		sqlite3_clear_bindings(ins);
		sqlite3_bind_int64(ins, 1, exp);
		store_bind_text(ins, 2, a[i].kind);
		store_bind_text(ins, 3, a[i].metric);
		if ((ret = store_bind_variant(s, ins, 4, exp, a[i].a_idx,
					      err)) ||
		    (ret = store_bind_variant(s, ins, 5, exp, a[i].b_idx,
					      err)))
			goto out;
		store_bind_text(ins, 6, a[i].factor);
		store_bind_real(ins, 7, a[i].change_pct);
		store_bind_real(ins, 8, a[i].ci_low_pct);
		store_bind_real(ins, 9, a[i].ci_high_pct);
		store_bind_real(ins, 10, a[i].p_value);
		store_bind_text(ins, 11, a[i].test);
		store_bind_text(ins, 12, a[i].verdict);
		store_bind_text(ins, 13, a[i].detail);
		if (a[i].call != KB_STORE_CALL_NONE) {
			store_bind_real(ins, 14, a[i].p_adjusted);
			sqlite3_bind_int(ins, 15,
					 a[i].call == KB_STORE_CALL_SIGNIFICANT);
		}
		if ((ret = store_step_done(s, ins, err,
					   "cannot store an analysis")))
			goto out;
	}
	ret = store_commit(s, err);
out:
	if (ret)
		store_rollback(s);
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
	ret = store_prepare(s, sql_metrics, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		names = kb_reallocarray(names, count + 1, sizeof(*names));
		names[count++] = store_column_strdup(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, "cannot list metrics");
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
	ret = store_row_by_id(s,
			      "SELECT matrix_path, matrix_yaml, model_yaml"
			      " FROM experiments WHERE id = ?",
			      "experiment", exp, &st, err);
	if (ret)
		return ret;
	out->matrix_path = store_column_strdup(st, 0);
	out->matrix_yaml = store_column_strdup(st, 1);
	out->model_yaml = store_column_strdup(st, 2);
	sqlite3_finalize(st);
	return 0;
}

int kb_store_environments(struct kb_store *s, int64_t exp, int a_idx,
			  int b_idx, unsigned *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	*n = 0;
	ret = store_prepare(s, sql_environments, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int(st, 2, a_idx);
	sqlite3_bind_int(st, 3, b_idx);
	ret = store_step_maybe(s, st, &found, err,
			       "cannot count the environments of experiment %lld",
			       (long long)exp);
	if (!ret && found)
		*n = store_column_unsigned(st, 0);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_last_boot(struct kb_store *s, int64_t exp, unsigned idx,
		       unsigned *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	*out = 0;
	ret = store_prepare(s, sql_last_boot, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	ret = store_step_maybe(s, st, &found, err, "cannot count boots");
	if (!ret && found)
		*out = store_column_unsigned(st, 0);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_last_round(struct kb_store *s, int64_t exp, unsigned *out,
			struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	*out = 0;
	ret = store_prepare(s, sql_last_round, &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	ret = store_step_maybe(s, st, &found, err, "cannot read the rounds");
	if (!ret && found)
		*out = store_column_unsigned(st, 0);
	sqlite3_finalize(st);
	return ret;
}

/* Every read of an experiment whose cost grows with its data, by name. */
static const struct {
	const char *name;
	const char *sql;
} reads[] = {
	{ "experiment", store_sql_info },
	{ "variants", store_sql_variants },
	{ "boot-means", store_sql_boot_means },
	{ "failures", store_sql_failures },
	{ "metrics", sql_metrics },
	{ "environments", sql_environments },
	{ "last-boot", sql_last_boot },
	{ "last-round", sql_last_round },
	{ "export", store_sql_export },
	{ "boot-rows", store_sql_boot_rows },
	{ "run-values", store_sql_run_values },
	{ "environment-rows", store_sql_env_rows },
	{ "experiment-builds", store_sql_exp_builds },
	{ "host-boots", store_sql_host_boots },
	{ "host-events", store_sql_host_events },
	{ "boot-hosts", store_sql_boot_hosts },
	{ "bisection-answer", store_sql_bisection_answer },
};

void kb_store_read_plans_free(struct kb_store_read_plan *p, size_t n)
{
	size_t i;

	for (i = 0; p && i < n; i++)
		free(p[i].plan);
	free(p);
}

int kb_store_read_plans(struct kb_store *s, struct kb_store_read_plan **out,
			size_t *n, struct kb_err *err)
{
	size_t nreads = sizeof(reads) / sizeof(reads[0]), i;
	struct kb_store_read_plan *p = kb_calloc(nreads, sizeof(*p));
	struct kb_buf b = KB_BUF_INIT;
	sqlite3_stmt *st = NULL;
	char *sql;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; !ret && i < nreads; i++) {
		sql = kb_asprintf("EXPLAIN QUERY PLAN %s", reads[i].sql);
		ret = store_prepare(s, sql, &st, err);
		free(sql);
		while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
			kb_buf_addf(&b, "%s\n",
				    (const char *)sqlite3_column_text(st, 3));
		if (!ret && rc != SQLITE_DONE)
			ret = store_fail(s, err, "cannot explain the read '%s'",
					 reads[i].name);
		sqlite3_finalize(st);
		st = NULL;
		p[i].name = reads[i].name;
		p[i].plan = kb_buf_detach(&b);
	}
	kb_buf_release(&b);
	if (ret) {
		kb_store_read_plans_free(p, nreads);
		return ret;
	}
	*out = p;
	*n = nreads;
	return 0;
}

int kb_store_host_noise(struct kb_store *s, const char *const *hosts,
			size_t n, const char *metric,
			struct kb_store_noise *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 variant = -1, exp = -1;
	double sum = 0, sum2 = 0, ss = 0, df = 0;
	size_t k = 0, i;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	out->var_log = NAN;
	ret = store_prepare(s,
			    "SELECT v.experiment_id, b.variant_id, b.host,"
			    " avg(sm.value) FROM boots b"
			    " JOIN variants v ON v.id = b.variant_id"
			    " JOIN samples sm ON sm.boot_id = b.id"
			    " WHERE b.status = 'ok' AND sm.metric = ?1"
			    " AND b.host IS NOT NULL"
			    " GROUP BY b.id ORDER BY b.variant_id",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, metric);
	for (;;) {
		sqlite3_int64 var = -1, e = -1;
		const char *host = NULL;
		double x = NAN;

		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			e = sqlite3_column_int64(st, 0);
			var = sqlite3_column_int64(st, 1);
			host = (const char *)sqlite3_column_text(st, 2);
			x = sqlite3_column_double(st, 3);
		} else if (rc != SQLITE_DONE) {
			ret = store_fail(s, err,
					 "cannot read the noise of earlier experiments");
			break;
		}
		/* a variant's boots end: its sum of squares joins the pool */
		if (var != variant) {
			if (k >= 2) {
				ss += sum2 - sum * sum / (double)k;
				df += (double)(k - 1);
			}
			sum = sum2 = 0;
			k = 0;
			variant = var;
		}
		if (rc != SQLITE_ROW)
			break;
		for (i = 0; i < n && strcmp(hosts[i], host); i++)
			;
		if (i == n || !(x > 0))
			continue;
		if (e != exp) {
			exp = e;
			out->nexp++; /* rows of an experiment come together */
		}
		sum += log(x);
		sum2 += log(x) * log(x);
		k++;
		out->nboots++;
	}
	sqlite3_finalize(st);
	if (!ret && df > 0) {
		out->var_log = ss / df;
		out->df = df;
	}
	return ret;
}

/* The ok boots on host ?1 with their workload runs (the most runs any of
 * their samples has): their count and the sums a least-squares line of
 * duration over runs needs, and the fewest and most runs a boot had. */
static const char sql_boot_times[] =
	"SELECT count(*), coalesce(sum(d), 0), coalesce(sum(r), 0),"
	" coalesce(sum(r * r), 0), coalesce(sum(r * d), 0), min(r), max(r)"
	" FROM (SELECT b.duration_s AS d,"
	" coalesce((SELECT max(s.run_no) FROM samples s"
	" WHERE s.boot_id = b.id), 0) AS r"
	" FROM boots b WHERE b.status = 'ok' AND b.duration_s IS NOT NULL"
	" AND b.host = ?1)";

/* The one row of @st: its count added to *@n and its columns 1.. to
 * @sum[0..ncols-1); the row's count is column 0.  *@found: a row
 * with a count above 0. */
static int step_sums(struct kb_store *s, sqlite3_stmt *st, size_t *n,
		     double *sum, int ncols, int *found, struct kb_err *err)
{
	int row = 0, ret, i;

	*found = 0;
	ret = store_step_maybe(s, st, &row, err,
			       "cannot read the step times of earlier experiments");
	if (ret || !row || sqlite3_column_int64(st, 0) == 0)
		return ret;
	*found = 1;
	*n += (size_t)sqlite3_column_int64(st, 0);
	for (i = 0; i < ncols; i++)
		sum[i] += sqlite3_column_double(st, i + 1);
	return 0;
}

int kb_store_host_step_times(struct kb_store *s, const char *const *hosts,
			     size_t n, struct kb_store_step_times *out,
			     struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	double build = 0, sum[4] = {0}; /* d, r, r², rd */
	double runs_lo = INFINITY, runs_hi = -INFINITY;
	size_t i;
	int found, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = store_prepare(s,
				 "SELECT count(*), coalesce(sum(duration_s), 0) FROM builds"
				 " WHERE status = 'ok' AND duration_s IS NOT NULL"
				 " AND coalesce(executor, '') <> 'model'",
				 &st, err)))
		return ret;
	ret = step_sums(s, st, &out->nbuilds, &build, 1, &found, err);
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = store_prepare(s, sql_boot_times, &st, err);
	for (i = 0; !ret && i < n; i++) {
		sqlite3_reset(st);
		store_bind_text(st, 1, hosts[i]);
		ret = step_sums(s, st, &out->nboots, sum, 4, &found, err);
		if (!ret && found) {
			runs_lo = fmin(runs_lo, sqlite3_column_double(st, 5));
			runs_hi = fmax(runs_hi, sqlite3_column_double(st, 6));
		}
	}
	sqlite3_finalize(st);
	out->build_s = out->nbuilds ? build / (double)out->nbuilds : NAN;
	out->boot_s = out->boot_base_s = out->run_s = NAN;
	if (out->nboots) {
		double k = (double)out->nboots;
		double sxx = sum[2] - sum[1] * sum[1] / k;
		double sxy = sum[3] - sum[1] * sum[0] / k;

		out->boot_s = sum[0] / k;
		out->runs_lo = (unsigned)runs_lo;
		out->runs_hi = (unsigned)runs_hi;
		/* a line only where the boots' runs differ, and only one
		 * whose runs take time and whose boot does too */
		if (runs_hi > runs_lo && sxx > 0 && sxy > 0) {
			out->run_s = sxy / sxx;
			out->boot_base_s = (sum[0] - out->run_s * sum[1]) / k;
			if (out->boot_base_s <= 0)
				out->boot_base_s = out->run_s = NAN;
		}
	}
	return ret;
}

double kb_store_step_boot_s(const struct kb_store_step_times *t,
			    unsigned runs, int *measured)
{
	*measured = 0;
	if (!t->nboots)
		return NAN;
	if (!isnan(t->run_s)) {
		*measured = 1;
		return t->boot_base_s + runs * t->run_s;
	}
	*measured = t->runs_lo == runs && t->runs_hi == runs;
	return t->boot_s;
}
