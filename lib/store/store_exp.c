/*
 * The store's experiments, their variants (with the options of each),
 * boots and samples: what `kbisect run` and the daemon write, and history,
 * results and compare read (db/0001, db/0004 for a boot's environment).
 * An experiment's state after its creation (kb_store_experiment_finish)
 * is set in store_owner.c, with the owner that state goes with: this file
 * calls the owner code, never the other way.
 */
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* ---- experiments ----------------------------------------------------- */

/* The schema version whose experiments and boots record the run order
 * (db/0013-run-order.sql). */
#define STORE_VERSION_ORDER 13
/* The version whose variants mark the sentinel (db/0014-sentinel.sql). */
#define STORE_VERSION_SENTINEL 14

/* Experiment @id's run order and its seed (db/0013). */
static int put_order(struct kb_store *s, int64_t id,
		     const struct kb_store_experiment *e, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	char seed[17];
	int ret;

	if ((ret = store_prepare(s,
				 "UPDATE experiments SET run_order = ?,"
				 " order_seed = ? WHERE id = ?",
				 &st, err)))
		return ret;
	snprintf(seed, sizeof(seed), "%016llx",
		 (unsigned long long)e->order_seed);
	store_bind_text(st, 1, e->run_order);
	store_bind_text(st, 2, seed);
	sqlite3_bind_int64(st, 3, id);
	ret = store_step_done(s, st, err,
			      "cannot store the run order of experiment %lld",
			      (long long)id);
	sqlite3_finalize(st);
	return ret;
}

int store_insert_experiment(struct kb_store *s,
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
	if ((ret = store_prepare(s,
				 "INSERT INTO experiments (name, matrix_path,"
				 " matrix_yaml, model_yaml, executor, design,"
				 " generators, metric, boots, runs_per_boot,"
				 " state)"
				 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				 &st, err)))
		return ret;
	store_bind_text(st, 1, e->name);
	store_bind_text(st, 2, e->matrix_path);
	store_bind_text(st, 3, e->matrix_text);
	store_bind_text(st, 4, e->model_text);
	store_bind_text(st, 5, e->executor);
	store_bind_text(st, 6, e->design);
	store_bind_text(st, 7, e->generators);
	store_bind_text(st, 8, e->metric);
	sqlite3_bind_int64(st, 9, e->boots);
	sqlite3_bind_int64(st, 10, e->runs_per_boot);
	store_bind_text(st, 11, state);
	ret = store_step_done(s, st, err, "cannot store experiment '%s'",
			      e->name);
	sqlite3_finalize(st);
	if (ret)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	/* a database kept at an older version has no place for it */
	if (e->run_order && kb_store_version(s) >= STORE_VERSION_ORDER &&
	    (ret = put_order(s, *id, e, err)))
		return ret;
	return store_insert_variants(s, *id, e->variants, e->nvariants, err);
}

int kb_store_experiment_create(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       int64_t *id, struct kb_err *err)
{
	sqlite3_int64 eid = 0;
	int ret;

	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_insert_experiment(s, e, "running", &eid, err)) ||
	    (ret = store_owner_set_self(s, eid, err)) ||
	    (ret = store_commit(s, err))) {
		store_rollback(s);
		return ret;
	}
	*id = eid;
	return 0;
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
	free(i->owner_host);
	memset(i, 0, sizeof(*i));
}

#define INFO_SELECT                                                        \
	"SELECT e.id, e.name, e.state, e.created_at, e.finished_at,"      \
	" e.executor, e.design, e.generators, e.metric, e.error, e.boots," \
	" e.runs_per_boot, h.variants, h.boots_done, h.samples,"          \
	" e.owner_host, e.owner_pid, e.owner_start, e.owner_boot,"        \
	" EXISTS (SELECT 1 FROM jobs j WHERE j.experiment_id = e.id)"     \
	" FROM experiments e JOIN v_history h ON h.experiment_id = e.id"

const char store_sql_info[] = INFO_SELECT " WHERE e.id = ?1";

/* Experiment @i's order seed, as put_order() writes it, into @i: none
 * in a store older than db/0013. */
static int read_order_seed(struct kb_store *s, struct kb_store_info *i,
			   struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int ret;

	if (kb_store_version(s) < STORE_VERSION_ORDER)
		return 0;
	if ((ret = store_row_by_id(s,
				   "SELECT order_seed FROM experiments"
				   " WHERE id = ?1",
				   "experiment", i->id, &st, err)))
		return ret;
	t = (const char *)sqlite3_column_text(st, 0);
	if (t && (strlen(t) != 16 ||
		  strspn(t, "0123456789abcdefABCDEF") != 16)) {
		i->has_order_seed = -1;
	} else if (t) {
		i->order_seed = (uint64_t)strtoull(t, NULL, 16);
		i->has_order_seed = 1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void read_info(sqlite3_stmt *st, struct kb_store_info *i)
{
	i->id = sqlite3_column_int64(st, 0);
	i->name = store_column_strdup(st, 1);
	i->state = store_column_strdup(st, 2);
	i->created_at = store_column_strdup(st, 3);
	i->finished_at = store_column_strdup(st, 4);
	i->executor = store_column_strdup(st, 5);
	i->design = store_column_strdup(st, 6);
	i->generators = store_column_strdup(st, 7);
	i->metric = store_column_strdup(st, 8);
	i->error = store_column_strdup(st, 9);
	i->boots = store_column_unsigned(st, 10);
	i->runs_per_boot = store_column_unsigned(st, 11);
	i->nvariants = store_column_unsigned(st, 12);
	i->nboots_done = store_column_unsigned(st, 13);
	i->nsamples = store_column_unsigned(st, 14);
	i->owner_host = store_column_strdup(st, 15);
	i->owner_pid = (long)sqlite3_column_int64(st, 16);
	i->daemon = sqlite3_column_int(st, 19);
	switch (store_owner_read(st, 15, NULL)) {
	case STORE_OWNER_ALIVE:
		i->owner_alive = 1;
		break;
	case STORE_OWNER_GONE:
		/* shown as a writer would mark it; nothing is written */
		if (i->state && !strcmp(i->state, "running")) {
			free(i->state);
			i->state = kb_strdup("interrupted");
		}
		break;
	case STORE_OWNER_NONE:
		break;
	}
}

int kb_store_experiment_get(struct kb_store *s, int64_t id,
			    struct kb_store_info *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = store_row_by_id(s, store_sql_info, "experiment", id, &st, err);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	read_info(st, out);
	sqlite3_finalize(st);
	if ((ret = read_order_seed(s, out, err)))
		kb_store_info_release(out);
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
	ret = store_prepare(s, INFO_SELECT " ORDER BY e.id DESC", &st, err);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		memset(&v[len], 0, sizeof(*v));
		read_info(st, &v[len++]);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, "cannot read the history");
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

/* ---- variants and their options -------------------------------------- */

static const char *kind_name(enum kb_factor_kind k)
{
	switch (k) {
	case KB_FACTOR_KCONFIG:
		return "kconfig";
	case KB_FACTOR_KERNEL:
		return "kernel";
	case KB_FACTOR_GUEST:
		return "guest";
	/* db/0011: stored as 'guest' before, their names saying which */
	case KB_FACTOR_WORKLOAD:
		return "workload";
	case KB_FACTOR_CMDLINE:
		return "cmdline";
	case KB_FACTOR_SYSCTL:
		return "sysctl";
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
	store_bind_text(vst, 3, v->label ? v->label : "");
	store_bind_text(vst, 4, v->build_key);
	if (kb_store_version(s) >= STORE_VERSION_SENTINEL)
		sqlite3_bind_int(vst, 5, v->sentinel ? 1 : 0);
	if ((ret = store_step_done(s, vst, err, "cannot store variant %u",
				   v->idx)))
		return ret;
	vid = sqlite3_last_insert_rowid(s->db);
	for (j = 0; j < v->nsettings; j++) {
		const struct kb_setting *o = &v->settings[j];

		sqlite3_reset(ost);
		sqlite3_bind_int64(ost, 1, vid);
		store_bind_text(ost, 2, o->name);
		store_bind_text(ost, 3, kind_name(o->kind));
		store_bind_text(ost, 4, o->value);
		if ((ret = store_step_done(s, ost, err,
					   "cannot store option '%s' of variant %u",
					   o->name ? o->name : "", v->idx)))
			return ret;
	}
	return 0;
}

int store_insert_variants(struct kb_store *s, int64_t exp,
			  const struct kb_variant *v, size_t n,
			  struct kb_err *err)
{
	sqlite3_stmt *vst = NULL, *ost = NULL;
	size_t i;
	int ret;

	/* a database kept at a version before db/0014 has no sentinel
	 * column (and no sentinel: its kbisect could not ask for one) */
	if ((ret = store_prepare(s,
				 kb_store_version(s) >= STORE_VERSION_SENTINEL
					 ? "INSERT INTO variants (experiment_id,"
					   " idx, label, build_key, sentinel)"
					   " VALUES (?, ?, ?, ?, ?)"
					 : "INSERT INTO variants (experiment_id,"
					   " idx, label, build_key)"
					   " VALUES (?, ?, ?, ?)",
				 &vst, err)) ||
	    (ret = store_prepare(s,
				 "INSERT INTO variant_options (variant_id,"
				 " factor, kind, level) VALUES (?, ?, ?, ?)",
				 &ost, err)))
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = insert_variant(s, vst, ost, exp, &v[i], err);
out:
	sqlite3_finalize(vst);
	sqlite3_finalize(ost);
	return ret;
}

int store_variant_id(struct kb_store *s, int64_t exp, unsigned idx,
		     sqlite3_int64 *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	ret = store_prepare(s,
			    "SELECT id FROM variants"
			    " WHERE experiment_id = ? AND idx = ?",
			    &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	ret = store_step_maybe(s, st, &found, err,
			       "cannot look up variant %u of experiment %lld",
			       idx, (long long)exp);
	if (!ret && found)
		*out = sqlite3_column_int64(st, 0);
	else if (!ret)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "experiment %lld has no variant %u in '%s'",
				 (long long)exp, idx, s->path);
	sqlite3_finalize(st);
	return ret;
}

int store_bind_variant(struct kb_store *s, sqlite3_stmt *st, int i,
		       int64_t exp, int idx, struct kb_err *err)
{
	sqlite3_int64 id;
	int ret;

	if (idx < 0) {
		sqlite3_bind_null(st, i);
		return 0;
	}
	if ((ret = store_variant_id(s, exp, (unsigned)idx, &id, err)))
		return ret;
	sqlite3_bind_int64(st, i, id);
	return 0;
}

void kb_store_variant_release(struct kb_store_variant *v)
{
	if (!v)
		return;
	free(v->label);
	free(v->build_key);
	free(v->boot_means);
	for (size_t i = 0; v->boot_hosts && i < v->nboots; i++)
		free(v->boot_hosts[i]);
	free(v->boot_hosts);
	free(v->boot_rounds);
	free(v->boot_seqs);
	free(v->last_failure);
	memset(v, 0, sizeof(*v));
}

/*
 * The three reads of kb_store_variants(), each one pass over the whole
 * experiment in plan order (never one query per variant: sqlite cannot
 * push a variant filter into v_boot_means's GROUP BY, so that scanned
 * every boot and sample once per variant).  The boot means average each
 * ok boot's runs in run order, as v_boot_means does, so the values are
 * the same to the last bit.  With ?3 >= 0 the boots read are those of
 * variants ?3 and ?4 alone (kb_store_variants_pair()).  Their plans are
 * checked by the tests (kb_store_read_plans()).
 */
const char store_sql_variants[] =
	"SELECT idx, label, build_key FROM variants"
	" WHERE experiment_id = ?1 ORDER BY idx";
/* the same with the sentinel mark (db/0014) */
static const char variants_v14[] =
	"SELECT idx, label, build_key, sentinel FROM variants"
	" WHERE experiment_id = ?1 ORDER BY idx";
#define BOOT_MEANS(round_seq)                                               \
	"SELECT v.idx, avg(s.value), b.host, " round_seq " FROM variants v" \
	" JOIN boots b ON b.variant_id = v.id"                              \
	" JOIN samples s ON s.boot_id = b.id"                               \
	" WHERE v.experiment_id = ?1 AND (?3 < 0 OR v.idx IN (?3, ?4))"     \
	" AND b.status = 'ok' AND s.metric = ?2"                            \
	" GROUP BY v.idx, b.boot_no ORDER BY v.idx, b.boot_no"
const char store_sql_boot_means[] = BOOT_MEANS("b.round, b.seq");
/* a database kept at a version before db/0013 has neither */
static const char boot_means_v12[] = BOOT_MEANS("NULL, NULL");
/* per variant with failures: the count, and the latest one (the bare
 * columns of max(b.id)) */
const char store_sql_failures[] =
	"SELECT v.idx, count(*),"
	" b.status || coalesce(': ' || b.reason, ''), max(b.id)"
	" FROM variants v JOIN boots b ON b.variant_id = v.id"
	" WHERE v.experiment_id = ?1 AND (?3 < 0 OR v.idx IN (?3, ?4))"
	" AND b.status <> 'ok'"
	" GROUP BY v.idx ORDER BY v.idx";

/* The variant of @v[0..n) (sorted by idx) with index @idx from *@at on,
 * or NULL; *@at moves to it, so a walk in idx order is one pass. */
static struct kb_store_variant *variant_at(struct kb_store_variant *v,
					   size_t n, size_t *at,
					   unsigned idx)
{
	while (*at < n && v[*at].idx < idx)
		(*at)++;
	return *at < n && v[*at].idx == idx ? &v[*at] : NULL;
}

/* Fill the boot means of @metric of variants @v[0..n) of @exp from @st. */
static int read_boot_means(struct kb_store *s, sqlite3_stmt *st,
			   int64_t exp, const char *metric,
			   struct kb_store_variant *v, size_t n,
			   struct kb_err *err)
{
	struct kb_store_variant *cur, *last = NULL;
	size_t at = 0, cap = 0;
	int rc;

	store_bind_text(st, 2, metric);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cur = variant_at(v, n, &at, store_column_unsigned(st, 0));
		if (!cur)
			continue;
		if (cur != last)
			cap = 0; /* rows come in idx order: a new variant */
		last = cur;
		if (cur->nboots == cap) {
			cap = cap ? 2 * cap : 16;
			cur->boot_means = kb_reallocarray(cur->boot_means, cap,
							  sizeof(double));
			cur->boot_hosts = kb_reallocarray(cur->boot_hosts, cap,
							  sizeof(char *));
			cur->boot_rounds = kb_reallocarray(cur->boot_rounds,
							   cap,
							   sizeof(unsigned));
			cur->boot_seqs = kb_reallocarray(cur->boot_seqs, cap,
							 sizeof(unsigned));
		}
		cur->boot_hosts[cur->nboots] = store_column_strdup(st, 2);
		cur->boot_rounds[cur->nboots] = store_column_unsigned(st, 3);
		cur->boot_seqs[cur->nboots] = store_column_unsigned(st, 4);
		cur->boot_means[cur->nboots++] = sqlite3_column_double(st, 1);
	}
	if (rc != SQLITE_DONE)
		return store_fail(s, err,
				  "cannot read the boots of experiment %lld",
				  (long long)exp);
	return 0;
}

/* Fill the failures of variants @v[0..n) of @exp from @st. */
static int read_failures(struct kb_store *s, sqlite3_stmt *st, int64_t exp,
			 struct kb_store_variant *v, size_t n,
			 struct kb_err *err)
{
	struct kb_store_variant *cur;
	size_t at = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cur = variant_at(v, n, &at, store_column_unsigned(st, 0));
		if (!cur)
			continue;
		cur->nfailed = store_column_unsigned(st, 1);
		cur->last_failure = store_column_strdup(st, 2);
	}
	if (rc != SQLITE_DONE)
		return store_fail(s, err,
				  "cannot read the failures of experiment %lld",
				  (long long)exp);
	return 0;
}

/* kb_store_variants(), or kb_store_variants_pair() when @a_idx >= 0. */
static int read_variants(struct kb_store *s, int64_t exp, const char *metric,
			 int64_t a_idx, int64_t b_idx,
			 struct kb_store_variant **out, size_t *n,
			 struct kb_err *err)
{
	struct kb_store_variant *v = NULL;
	sqlite3_stmt *vst = NULL, *mst = NULL, *fst = NULL;
	size_t len = 0, cap = 0, i;
	int rc, ret;

	*out = NULL;
	*n = 0;
	/* one read transaction, so that the three queries agree */
	ret = store_begin_read(s, err);
	if (ret)
		return ret;
	if ((ret = store_prepare(s,
				 kb_store_version(s) >= STORE_VERSION_SENTINEL
					 ? variants_v14
					 : store_sql_variants,
				 &vst, err)) ||
	    (ret = store_prepare(s,
				 kb_store_version(s) >= STORE_VERSION_ORDER
					 ? store_sql_boot_means
					 : boot_means_v12,
				 &mst, err)) ||
	    (ret = store_prepare(s, store_sql_failures, &fst, err)))
		goto out;
	sqlite3_bind_int64(vst, 1, exp);
	sqlite3_bind_int64(mst, 1, exp);
	sqlite3_bind_int64(fst, 1, exp);
	sqlite3_bind_int64(mst, 3, a_idx);
	sqlite3_bind_int64(mst, 4, b_idx);
	sqlite3_bind_int64(fst, 3, a_idx);
	sqlite3_bind_int64(fst, 4, b_idx);
	while ((rc = sqlite3_step(vst)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			v = kb_reallocarray(v, cap, sizeof(*v));
		}
		memset(&v[len], 0, sizeof(*v));
		v[len].idx = store_column_unsigned(vst, 0);
		v[len].label = store_column_strdup(vst, 1);
		v[len].build_key = store_column_strdup(vst, 2);
		v[len].sentinel = sqlite3_column_count(vst) > 3 &&
				  sqlite3_column_int(vst, 3);
		len++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the variants of experiment %lld",
				 (long long)exp);
		goto out;
	}
	if ((ret = read_boot_means(s, mst, exp, metric, v, len, err)) ||
	    (ret = read_failures(s, fst, exp, v, len, err)) ||
	    (ret = store_commit(s, err)))
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
		store_rollback(s);
	for (i = 0; i < len; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	return ret;
}

int kb_store_variants(struct kb_store *s, int64_t exp, const char *metric,
		      struct kb_store_variant **out, size_t *n,
		      struct kb_err *err)
{
	return read_variants(s, exp, metric, -1, -1, out, n, err);
}

int kb_store_variants_pair(struct kb_store *s, int64_t exp,
			   const char *metric, unsigned a_idx,
			   unsigned b_idx, struct kb_store_variant **out,
			   size_t *n, struct kb_err *err)
{
	return read_variants(s, exp, metric, a_idx, b_idx, out, n, err);
}

/* ---- boots and their samples ------------------------------------------ */

int store_check_values(const struct kb_boot_result *r, unsigned boot_no,
		       struct kb_err *err)
{
	size_t i, j;

	for (i = 0; i < r->nruns; i++)
		for (j = 0; j < r->runs[i].n; j++)
			if (!isfinite(r->runs[i].m[j].value))
				return kb_err_set(err, KB_EFAIL,
						  "metric '%s' of run %zu of boot %u is not a finite number (%g): refused before anything was stored",
						  r->runs[i].m[j].name, i + 1,
						  boot_no,
						  r->runs[i].m[j].value);
	return 0;
}

static int insert_samples(struct kb_store *s, sqlite3_int64 boot_id,
			  const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t i, j;
	int ret;

	ret = store_prepare(s,
			    "INSERT INTO samples (boot_id, run_no, metric,"
			    " value) VALUES (?, ?, ?, ?)",
			    &st, err);
	for (i = 0; !ret && i < r->nruns; i++) {
		for (j = 0; !ret && j < r->runs[i].n; j++) {
			const struct kb_metric *m = &r->runs[i].m[j];

			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, boot_id);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
			store_bind_text(st, 3, m->name);
			sqlite3_bind_double(st, 4, m->value);
			ret = store_step_done(s, st, err,
					      "cannot store metric '%s' of run %zu",
					      m->name, i + 1);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

/* guests: the environment a boot ran in (db/0004) */
/*
 * Store @json as the environment of boot row @boot_id, inside the caller's
 * transaction.  Needs schema version 4.
 */
static int boot_environment_put(struct kb_store *s, sqlite3_int64 boot_id,
				const char *json, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = store_prepare(s, "UPDATE boots SET environment = ? WHERE id = ?",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, json);
	sqlite3_bind_int64(st, 2, boot_id);
	ret = store_step_done(s, st, err,
			      "cannot store the environment of boot %lld",
			      (long long)boot_id);
	sqlite3_finalize(st);
	return ret;
}

int store_insert_boot(struct kb_store *s, int64_t exp, unsigned idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 vid = 0, boot_id;
	int ret;

	/* where it stood in the run, when the database has a place for
	 * it (db/0013) */
	int placed = kb_store_version(s) >= STORE_VERSION_ORDER;

	if ((ret = store_variant_id(s, exp, idx, &vid, err)) ||
	    (ret = store_prepare(s,
				 placed ? "INSERT INTO boots (variant_id,"
					   " boot_no, build_id, status, reason,"
					   " console_tail, host, duration_s,"
					   " round, seq, started_at)"
					   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
					   " ?, ?)"
					 : "INSERT INTO boots (variant_id,"
					   " boot_no, build_id, status, reason,"
					   " console_tail, host, duration_s)"
					   " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				 &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, vid);
	sqlite3_bind_int64(st, 2, boot_no);
	if (build_id)
		sqlite3_bind_int64(st, 3, build_id);
	else
		sqlite3_bind_null(st, 3);
	store_bind_text(st, 4, kb_boot_status_name(r->status));
	store_bind_text(st, 5, r->reason);
	store_bind_text(st, 6, r->console_tail);
	store_bind_text(st, 7, r->host);
	sqlite3_bind_double(st, 8, r->duration_s);
	if (placed) { /* left unbound, a parameter is NULL: not known */
		if (r->round)
			sqlite3_bind_int64(st, 9, r->round);
		if (r->seq)
			sqlite3_bind_int64(st, 10, r->seq);
		if (r->started_at[0])
			store_bind_text(st, 11, r->started_at);
	}
	if (store_step(s, st) != SQLITE_DONE) {
		if (store_is_duplicate(s))
			ret = kb_err_set(err, KB_EEXISTS,
					 "boot %u of variant %u of experiment %lld is already stored in '%s'",
					 boot_no, idx, (long long)exp, s->path);
		else
			ret = store_fail(s, err,
					 "cannot store boot %u of variant %u",
					 boot_no, idx);
		goto out;
	}
	boot_id = sqlite3_last_insert_rowid(s->db);
	/* guests: the environment column (db/0004); NULL writes nothing */
	if (r->environment &&
	    (ret = boot_environment_put(s, boot_id, r->environment, err)))
		goto out;
	/* what was booted and run (db/0007) */
	if ((ret = store_boot_evidence_put(s, boot_id, r, err)))
		goto out;
	if ((ret = insert_samples(s, boot_id, r, err)))
		goto out;
	/* the guest's monitors (db/0017) and profile (db/0019) */
	if ((ret = store_boot_monitors_put(s, boot_id, r, err)))
		goto out;
	ret = store_boot_profile_put(s, boot_id, r, err);
out:
	sqlite3_finalize(st);
	return ret;
}

int kb_store_boot_put(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      unsigned boot_no, int64_t build_id,
		      const struct kb_boot_result *r, struct kb_err *err)
{
	int ret;

	if ((ret = store_check_values(r, boot_no, err)) ||
	    (ret = store_begin(s, err)))
		return ret;
	if ((ret = store_insert_boot(s, exp, variant_idx, boot_no, build_id, r,
				     err)) ||
	    (ret = store_commit(s, err)))
		store_rollback(s);
	return ret;
}

int kb_store_boot_exists(struct kb_store *s, int64_t exp,
			 unsigned variant_idx, unsigned boot_no, int *exists,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = store_prepare(s,
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
	ret = store_step_maybe(s, st, exists, err,
			       "cannot look up boot %u of variant %u", boot_no,
			       variant_idx);
	sqlite3_finalize(st);
	return ret;
}
