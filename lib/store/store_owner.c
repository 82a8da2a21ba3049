/*
 * The store's experiment owners (db/0006): the process that runs an
 * experiment of its own (`kbisect run`, `resume`, `bisect`, `test`), how
 * a later kbisect tells that it is gone, the state "interrupted" it then
 * has, and taking an interrupted experiment over to resume it; and the
 * state of an experiment (kb_store_experiment_finish), which the owner
 * code sets and store_exp.c, store_queue.c call.  The daemon's
 * experiments have jobs and no owner: kbisectd resumes them.
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

/* ---- an experiment's state ------------------------------------------ */

int kb_store_experiment_finish(struct kb_store *s, int64_t id,
			       const char *state, const char *error,
			       struct kb_err *err)
{
	static const char *const states[] = {
		"queued", "running", "done", "failed", "cancelled",
		"interrupted",
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
	ret = store_prepare(s,
			    "UPDATE experiments SET state = ?1, error = ?2,"
			    " finished_at = CASE"
			    " WHEN ?1 IN ('queued', 'running') THEN NULL"
			    " ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			    " END WHERE id = ?3",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, state);
	store_bind_text(st, 2, error);
	sqlite3_bind_int64(st, 3, id);
	ret = store_step_update(s, st, err, "set the state of",
				"experiment %lld", (long long)id);
	sqlite3_finalize(st);
	return ret;
}

/* ---- its owner ------------------------------------------------------ */

/* The owner columns, in this order, wherever a query reads them. */
#define OWNER_COLUMNS "owner_host, owner_pid, owner_start, owner_boot"

enum store_owner store_owner_read(sqlite3_stmt *st, int col,
				  struct kb_proc_id *out)
{
	const unsigned char *host = sqlite3_column_text(st, col);
	const unsigned char *boot = sqlite3_column_text(st, col + 3);
	struct kb_proc_id id;

	memset(&id, 0, sizeof(id));
	if (!host)
		return STORE_OWNER_NONE;
	snprintf(id.host, sizeof(id.host), "%s", (const char *)host);
	id.pid = (long)sqlite3_column_int64(st, col + 1);
	id.start = (unsigned long long)sqlite3_column_int64(st, col + 2);
	if (boot)
		snprintf(id.boot, sizeof(id.boot), "%s", (const char *)boot);
	if (out)
		*out = id;
	return kb_proc_alive(&id) ? STORE_OWNER_ALIVE : STORE_OWNER_GONE;
}

int store_owner_set_self(struct kb_store *s, int64_t id, struct kb_err *err)
{
	struct kb_proc_id me;
	sqlite3_stmt *st = NULL;
	int ret;

	if (s->version < 6) /* tests of older schemas */
		return 0;
	kb_proc_self(&me);
	if ((ret = store_prepare(s,
				 "UPDATE experiments SET owner_host = ?,"
				 " owner_pid = ?, owner_start = ?,"
				 " owner_boot = ? WHERE id = ?",
				 &st, err)))
		return ret;
	store_bind_text(st, 1, me.host);
	sqlite3_bind_int64(st, 2, me.pid);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)me.start);
	store_bind_text(st, 4, me.boot[0] ? me.boot : NULL);
	sqlite3_bind_int64(st, 5, id);
	ret = store_step_update(s, st, err, "record the owner of",
				"experiment %lld", (long long)id);
	sqlite3_finalize(st);
	return ret;
}

int kb_store_experiment_owner_alive(struct kb_store *s, int64_t id,
				    int *alive, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	char *state = NULL;
	int ret;

	*alive = 0;
	ret = store_row_by_id(s,
			      "SELECT state, " OWNER_COLUMNS
			      " FROM experiments WHERE id = ?",
			      "experiment", id, &st, err);
	if (ret)
		return ret;
	state = store_column_strdup(st, 0);
	*alive = state && !strcmp(state, "running") &&
		 store_owner_read(st, 1, NULL) == STORE_OWNER_ALIVE;
	free(state);
	sqlite3_finalize(st);
	return 0;
}

/* "pid 4242 on bench1" */
static char *owner_words(const struct kb_proc_id *o)
{
	return kb_asprintf("pid %ld on %s", o->pid, o->host);
}

int kb_store_experiments_interrupt_gone(struct kb_store *s, unsigned *n,
					struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	unsigned count = 0;
	int rc, ret;

	if (n)
		*n = 0;
	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_prepare(s,
				 "SELECT id, " OWNER_COLUMNS
				 " FROM experiments WHERE state = 'running'"
				 " AND owner_host IS NOT NULL",
				 &st, err)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_proc_id o;
		char *who, *why;

		if (store_owner_read(st, 1, &o) != STORE_OWNER_GONE)
			continue;
		who = owner_words(&o);
		why = kb_asprintf("its kbisect process (%s) is gone", who);
		ret = kb_store_experiment_finish(s, sqlite3_column_int64(st, 0),
						 "interrupted", why, err);
		free(why);
		free(who);
		if (ret)
			goto out;
		count++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, "cannot read the running experiments");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((ret = store_commit(s, err)) == 0 && n)
		*n = count;
out:
	sqlite3_finalize(st);
	if (ret)
		store_rollback(s);
	return ret;
}

int kb_store_experiment_take(struct kb_store *s, int64_t id,
			     struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct kb_proc_id o;
	enum store_owner owner;
	char *state = NULL, *who = NULL;
	int jobs, ret;

	if ((ret = store_begin(s, err)))
		return ret;
	ret = store_row_by_id(s,
			      "SELECT state, " OWNER_COLUMNS ","
			      " EXISTS (SELECT 1 FROM jobs j"
			      "  WHERE j.experiment_id = e.id)"
			      " FROM experiments e WHERE id = ?",
			      "experiment", id, &st, err);
	if (ret)
		goto out;
	state = store_column_strdup(st, 0);
	owner = store_owner_read(st, 1, &o);
	jobs = sqlite3_column_int(st, 5);
	sqlite3_finalize(st);
	st = NULL;
	if (jobs) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld runs in kbisectd, which resumes it itself",
				 (long long)id);
		goto out;
	}
	if (!state || !strcmp(state, "done")) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld is done: nothing to resume",
				 (long long)id);
		goto out;
	}
	if (!strcmp(state, "running") && owner != STORE_OWNER_GONE) {
		who = owner == STORE_OWNER_ALIVE ? owner_words(&o)
						 : kb_strdup("no recorded process");
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld is still running (%s): stop that first",
				 (long long)id, who);
		goto out;
	}
	if ((ret = kb_store_experiment_finish(s, id, "running", NULL, err)) ||
	    (ret = store_owner_set_self(s, id, err)))
		goto out;
	ret = store_commit(s, err);
out:
	free(who);
	free(state);
	sqlite3_finalize(st);
	if (ret)
		store_rollback(s);
	return ret;
}
