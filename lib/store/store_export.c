/*
 * Every sample of an experiment with its variant's factor levels and its
 * boot, one row each, for `kbisect export` (lib/store/store.h).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* The experiment's factors, each once, in the order the matrix gave
 * them: the order their first rows were stored in. */
static const char sql_factors[] =
	"SELECT o.factor FROM variants v"
	" JOIN variant_options o ON o.variant_id = v.id"
	" WHERE v.experiment_id = ?1"
	" GROUP BY o.factor ORDER BY min(o.rowid)";
static const char sql_levels[] =
	"SELECT v.idx, o.factor, o.level FROM variants v"
	" JOIN variant_options o ON o.variant_id = v.id"
	" WHERE v.experiment_id = ?1 ORDER BY v.idx";
/* Checked by the tests with the other reads of an experiment
 * (kb_store_read_plans()): it finds its rows through indexes. */
const char store_sql_export[] =
	"SELECT v.idx, b.id, b.boot_no, b.status, b.host, s.run_no,"
	" s.metric, s.value FROM variants v"
	" JOIN boots b ON b.variant_id = v.id"
	" JOIN samples s ON s.boot_id = b.id"
	" WHERE v.experiment_id = ?1"
	" ORDER BY v.idx, b.boot_no, s.run_no, s.metric";

/* The profiles' rows, as the samples' (kb_store_export_profile()). */
static const char sql_export_profile[] =
	"SELECT v.idx, b.id, b.boot_no, b.status, b.host, p.run_no,"
	" t.stack, p.samples FROM variants v"
	" JOIN boots b ON b.variant_id = v.id"
	" JOIN profiles p ON p.boot_id = b.id"
	" JOIN profile_stacks t ON t.id = p.stack_id"
	" WHERE v.experiment_id = ?1"
	" ORDER BY v.idx, b.boot_no, p.run_no, t.stack";
#define STORE_VERSION_PROFILES 19

/* A variant with its level of each factor. */
struct row_variant {
	unsigned idx;
	char *label;
	char **levels; /* nfactors, NULL where not set */
};

struct table {
	char **factors;
	size_t nfactors;
	struct row_variant *v; /* by idx */
	size_t nv;
	char **none;           /* nfactors NULLs: a variant not found */
};

static void table_release(struct table *t)
{
	size_t i, j;

	for (i = 0; i < t->nv; i++) {
		for (j = 0; j < t->nfactors; j++)
			free(t->v[i].levels[j]);
		free(t->v[i].levels);
		free(t->v[i].label);
	}
	free(t->v);
	free(t->none);
	for (i = 0; i < t->nfactors; i++)
		free(t->factors[i]);
	free(t->factors);
}

/* The variant with index @idx, or NULL (@t->v is sorted by idx). */
static struct row_variant *find_variant(struct table *t, unsigned idx)
{
	size_t lo = 0, hi = t->nv, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].idx == idx)
			return &t->v[mid];
		if (t->v[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static size_t find_factor(const struct table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nfactors; i++)
		if (!strcmp(t->factors[i], name))
			return i;
	return t->nfactors;
}

/* Read the factors, the variants and their levels of @exp into @t. */
static int read_table(struct kb_store *s, int64_t exp, struct table *t,
		      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct row_variant *v;
	size_t f;
	int rc, ret;

	if ((ret = store_prepare(s, sql_factors, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		t->factors = kb_reallocarray(t->factors, t->nfactors + 1,
					     sizeof(*t->factors));
		t->factors[t->nfactors++] = store_column_strdup(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err,
				  "cannot read the factors of experiment %lld",
				  (long long)exp);
	t->none = kb_calloc(t->nfactors ? t->nfactors : 1, sizeof(*t->none));

	if ((ret = store_prepare(s, store_sql_variants, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		t->v = kb_reallocarray(t->v, t->nv + 1, sizeof(*t->v));
		v = &t->v[t->nv++];
		v->idx = store_column_unsigned(st, 0);
		v->label = store_column_strdup(st, 1);
		v->levels = kb_calloc(t->nfactors ? t->nfactors : 1,
				      sizeof(*v->levels));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err,
				  "cannot read the variants of experiment %lld",
				  (long long)exp);

	if ((ret = store_prepare(s, sql_levels, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = find_variant(t, store_column_unsigned(st, 0));
		f = find_factor(t, (const char *)sqlite3_column_text(st, 1));
		if (v && f < t->nfactors && !v->levels[f])
			v->levels[f] = store_column_strdup(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err,
				  "cannot read the options of experiment %lld",
				  (long long)exp);
	return 0;
}

/* The rows of @sql (NULL: none, the header alone) for @cb. */
static int export_rows(struct kb_store *s, int64_t exp, const char *sql,
		       const char *what, const struct kb_store_export_cb *cb,
		       struct kb_err *err)
{
	struct table t;
	struct kb_store_sample_row r;
	struct row_variant *v;
	sqlite3_stmt *st = NULL;
	int rc, ret;

	memset(&t, 0, sizeof(t));
	if ((ret = store_begin_read(s, err)))
		return ret;
	if ((ret = store_row_by_id(s, "SELECT id FROM experiments WHERE id = ?1",
				   "experiment", exp, &st, err)))
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if ((ret = read_table(s, exp, &t, err)) ||
	    (ret = cb->header(cb->arg, (const char *const *)t.factors,
			      t.nfactors)))
		goto out;
	if (!sql) {
		ret = store_commit(s, err);
		goto out;
	}
	if ((ret = store_prepare(s, sql, &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&r, 0, sizeof(r));
		r.variant_idx = store_column_unsigned(st, 0);
		v = find_variant(&t, r.variant_idx);
		r.label = v ? v->label : NULL;
		r.levels = (const char *const *)(v ? v->levels : t.none);
		r.boot_id = sqlite3_column_int64(st, 1);
		r.boot_no = store_column_unsigned(st, 2);
		r.boot_status = (const char *)sqlite3_column_text(st, 3);
		r.host = (const char *)sqlite3_column_text(st, 4);
		r.run_no = store_column_unsigned(st, 5);
		r.metric = (const char *)sqlite3_column_text(st, 6);
		r.value = sqlite3_column_double(st, 7);
		if ((ret = cb->row(cb->arg, &r)))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, "cannot read the %s of experiment %lld",
				 what, (long long)exp);
		goto out;
	}
	ret = store_commit(s, err);
out:
	sqlite3_finalize(st);
	if (ret)
		store_rollback(s);
	table_release(&t);
	return ret;
}

int kb_store_export(struct kb_store *s, int64_t exp,
		    const struct kb_store_export_cb *cb, struct kb_err *err)
{
	return export_rows(s, exp, store_sql_export, "samples", cb, err);
}

int kb_store_export_profile(struct kb_store *s, int64_t exp,
			    const struct kb_store_export_cb *cb,
			    struct kb_err *err)
{
	return export_rows(s, exp,
			   kb_store_version(s) < STORE_VERSION_PROFILES
				   ? NULL
				   : sql_export_profile,
			   "profiles", cb, err);
}
