/*
 * The store's bisections (db/0002): each probe is one more variant of the
 * bisection's experiment, measured like any other; a bisection row holds
 * the two ends and the result, and one step row per probe its verdict
 * (lib/bisect.c, cmd/kbisect/bisect.c); since db/0015, the answer of a
 * finished one, found again by the digest of its inputs.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* The version whose bisections keep their answers (db/0015). */
#define STORE_VERSION_ANSWERS 15

int kb_store_variant_add(struct kb_store *s, int64_t exp,
			 const struct kb_variant *v, struct kb_err *err)
{
	struct kb_err lookup = KB_ERR_INIT;
	sqlite3_int64 id;
	int ret;

	ret = store_variant_id(s, exp, v->idx, &id, &lookup);
	if (ret == 0)
		return kb_err_set(err, KB_EEXISTS,
				  "experiment %lld already has a variant %u in '%s'",
				  (long long)exp, v->idx, s->path);
	if (ret != KB_ENOTFOUND)
		return kb_err_set(err, ret, "%s", lookup.msg);
	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_insert_variants(s, exp, v, 1, err)) ||
	    (ret = store_commit(s, err)))
		store_rollback(s);
	return ret;
}

int kb_store_bisection_create(struct kb_store *s, int64_t exp,
			      const char *kind, const char *good,
			      const char *bad, int64_t *id,
			      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = store_prepare(s,
			    "INSERT INTO bisections (experiment_id, kind, good,"
			    " bad) VALUES (?, ?, ?, ?)",
			    &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	store_bind_text(st, 2, kind);
	store_bind_text(st, 3, good ? good : "");
	store_bind_text(st, 4, bad ? bad : "");
	ret = store_step_done(s, st, err,
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

	ret = store_prepare(s,
			    "INSERT INTO bisection_steps (bisection_id,"
			    " step_no, probe, variant_id, classification,"
			    " change_pct, ci_low_pct, ci_high_pct)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			    &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, b->step_no);
	store_bind_text(st, 3, b->probe ? b->probe : "");
	if ((ret = store_bind_variant(s, st, 4, exp, b->variant_idx, err)))
		goto out;
	store_bind_text(st, 5, b->classification);
	store_bind_real(st, 6, b->change_pct);
	store_bind_real(st, 7, b->ci_low_pct);
	store_bind_real(st, 8, b->ci_high_pct);
	if (store_step(s, st) == SQLITE_DONE)
		goto out;
	if (store_is_duplicate(s))
		ret = kb_err_set(err, KB_EEXISTS,
				 "bisection %lld already has a step %u in '%s'",
				 (long long)id, b->step_no, s->path);
	else
		ret = store_fail(s, err,
				 "cannot store step %u of bisection %lld",
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

	ret = store_prepare(s,
			    "UPDATE bisections SET state = ?, result = ?"
			    " WHERE id = ?",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, state);
	store_bind_text(st, 2, result);
	sqlite3_bind_int64(st, 3, id);
	ret = store_step_update(s, st, err, "finish", "bisection %lld",
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
	ret = store_row_by_id(s,
			      "SELECT id, experiment_id, kind, good, bad,"
			      " state, result FROM bisections WHERE id = ?",
			      "bisection", id, &st, err);
	if (ret)
		goto out;
	b.id = sqlite3_column_int64(st, 0);
	b.experiment_id = sqlite3_column_int64(st, 1);
	b.kind = store_column_strdup(st, 2);
	b.good = store_column_strdup(st, 3);
	b.bad = store_column_strdup(st, 4);
	b.state = store_column_strdup(st, 5);
	b.result = store_column_strdup(st, 6);
	sqlite3_finalize(st);
	ret = store_prepare(s,
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
		p->step_no = store_column_unsigned(st, 0);
		p->probe = store_column_strdup(st, 1);
		p->variant_idx = (int)sqlite3_column_int64(st, 2);
		p->classification = store_column_strdup(st, 3);
		p->change_pct = store_column_real(st, 4);
		p->ci_low_pct = store_column_real(st, 5);
		p->ci_high_pct = store_column_real(st, 6);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the steps of bisection %lld",
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

int kb_store_bisection_answer_put(struct kb_store *s, int64_t id,
				  const char *inputs, const char *answer,
				  struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (kb_store_version(s) < STORE_VERSION_ANSWERS ||
	    strlen(answer) > KB_STORE_ANSWER_MAX)
		return 0;
	ret = store_prepare(s,
			    "UPDATE bisections SET inputs = ?, answer = ?"
			    " WHERE id = ?",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, inputs);
	store_bind_text(st, 2, answer);
	sqlite3_bind_int64(st, 3, id);
	ret = store_step_update(s, st, err, "keep the answer of",
				"bisection %lld", (long long)id);
	sqlite3_finalize(st);
	return ret;
}

/* The latest finished bisection of a kind with these inputs: found by
 * the index on inputs (kb_store_read_plans() checks it). */
const char store_sql_bisection_answer[] =
	"SELECT id, experiment_id, created_at, answer, typeof(answer),"
	" length(CAST(answer AS BLOB)) FROM bisections"
	" WHERE inputs = ? AND kind = ? AND state = 'done'"
	" AND answer IS NOT NULL ORDER BY id DESC LIMIT 1";

void kb_store_bisection_answer_release(struct kb_store_bisection_answer *a)
{
	if (!a)
		return;
	free(a->created_at);
	free(a->answer);
	memset(a, 0, sizeof(*a));
}

int kb_store_bisection_answer_find(struct kb_store *s, const char *kind,
				   const char *inputs,
				   struct kb_store_bisection_answer *out,
				   struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found = 0, ret;

	memset(out, 0, sizeof(*out));
	if (kb_store_version(s) < STORE_VERSION_ANSWERS)
		return KB_ENOTFOUND;
	ret = store_prepare(s, store_sql_bisection_answer, &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, inputs);
	store_bind_text(st, 2, kind);
	if ((ret = store_step_maybe(s, st, &found, err,
				    "cannot look for a finished bisection in '%s'",
				    s->path)))
		goto out;
	if (!found) {
		ret = KB_ENOTFOUND;
		goto out;
	}
	out->id = sqlite3_column_int64(st, 0);
	out->experiment_id = sqlite3_column_int64(st, 1);
	if (strcmp((const char *)sqlite3_column_text(st, 4), "text") ||
	    sqlite3_column_int64(st, 5) > (sqlite3_int64)KB_STORE_ANSWER_MAX) {
		ret = kb_err_set(err, KB_EINPUT,
				 "bisection %lld in '%s': its stored answer is damaged (not text of at most %u bytes); --fresh bisects again",
				 (long long)out->id, s->path,
				 KB_STORE_ANSWER_MAX);
		goto out;
	}
	out->created_at = store_column_strdup(st, 2);
	if (!out->created_at)
		out->created_at = kb_strdup("an unknown date");
	out->answer = store_column_strdup(st, 3);
	if (!out->answer)
		out->answer = kb_strdup("");
out:
	sqlite3_finalize(st);
	if (ret)
		kb_store_bisection_answer_release(out);
	return ret;
}
