/*
 * The store's daemon queue (db/0005; lib/queue.c, cmd/kbisectd/): an
 * experiment submitted with its build and boot jobs, jobs leased to a
 * daemon and renewed, ended or handed back, cancelling and settling an
 * experiment, and its progress read from its jobs.
 *
 * The daemon runs these on every scheduling pass and every request, so
 * each statement is prepared once per connection (store_stmt()) and
 * looks rows up by an index: what one call costs grows with the jobs of
 * the experiment it is about, not with the queue.
 */
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

static const char *job_kind_name(enum kb_store_job_kind k)
{
	return k == KB_STORE_JOB_BUILD ? "build" : "boot";
}

int kb_store_experiment_submit(struct kb_store *s,
			       const struct kb_store_experiment *e,
			       const struct kb_store_job_spec *jobs,
			       size_t njobs, int64_t *id, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 eid = 0;
	size_t i;
	int ret;

	*id = 0;
	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_insert_experiment(s, e, "queued", &eid, err)) ||
	    (ret = store_stmt(s,
			      s->version < 10
				      ? "INSERT INTO jobs (experiment_id, kind,"
					" variant_id, boot_no, seq)"
					" SELECT ?1, ?2, id, ?4, ?5 FROM variants"
					" WHERE experiment_id = ?1 AND idx = ?3"
					" AND ?6 IS ?6"
				      : "INSERT INTO jobs (experiment_id, kind,"
					" variant_id, boot_no, seq,"
					" assigned_host)"
					" SELECT ?1, ?2, id, ?4, ?5, ?6 FROM"
					" variants WHERE experiment_id = ?1"
					" AND idx = ?3",
			      &st, err)))
		goto out;
	for (i = 0; i < njobs; i++) {
		const struct kb_store_job_spec *j = &jobs[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, eid);
		store_bind_text(st, 2, job_kind_name(j->kind));
		sqlite3_bind_int64(st, 3, j->variant_idx);
		if (j->kind == KB_STORE_JOB_BOOT)
			sqlite3_bind_int64(st, 4, j->boot_no);
		else
			sqlite3_bind_null(st, 4);
		sqlite3_bind_int64(st, 5, j->seq);
		store_bind_text(st, 6, j->kind == KB_STORE_JOB_BOOT ? j->host
								     : NULL);
		if ((ret = store_step_done(s, st, err, "cannot store a job")))
			goto out;
		if (sqlite3_changes(s->db) != 1) {
			ret = kb_err_set(err, KB_EFAIL,
					 "job %zu names variant %u, which experiment '%s' does not have",
					 i, j->variant_idx, e->name);
			goto out;
		}
	}
	store_stmt_done(s, st);
	st = NULL;
	if ((ret = store_commit(s, err)) == 0)
		*id = eid;
out:
	store_stmt_done(s, st);
	if (ret)
		store_rollback(s);
	return ret;
}

void kb_store_job_release(struct kb_store_job *j)
{
	if (!j)
		return;
	free(j->host);
	free(j->build_key);
	memset(j, 0, sizeof(*j));
}

/* A ready job of variant v and experiment e, besides its own state: the
 * experiment is live and not being cancelled, and (boots) its build job
 * is done; in blocks (lib/order.h) every build job of the experiment is:
 * every kernel is built before the first boot. */
#define JOB_LIVE                                                            \
	" AND e.state IN ('queued', 'running') AND e.cancel_requested = 0"  \
	" AND (j.kind = 'build' OR (CASE WHEN e.run_order = 'blocks'"       \
	"  THEN NOT EXISTS (SELECT 1 FROM jobs bj"                          \
	"   WHERE bj.experiment_id = j.experiment_id AND bj.kind = 'build'" \
	"   AND bj.state <> 'done')"                                        \
	"  ELSE EXISTS (SELECT 1 FROM jobs bj"                              \
	"  JOIN variants bv ON bv.id = bj.variant_id"                       \
	"  WHERE bj.experiment_id = j.experiment_id AND bj.kind = 'build'"  \
	"  AND bj.state = 'done' AND bv.build_key IS v.build_key) END))"
/* ... and a boot assigned to another host than ?4 is not this one's */
#define JOB_HOST " AND (?4 IS NULL OR j.assigned_host IS NULL" \
		 " OR j.assigned_host = ?4)"
/* ... and its own: queued, or leased by another owner than ?5 with a
 * lease that lapsed before ?2 (a lease of the claimer's own is a step it
 * runs, however late its renewal: a stalled daemon never starts its own
 * step again) */
#define LEASE_LAPSED                                                        \
	" j.state = 'leased' AND j.lease_expires_at <"                      \
	" strftime('%Y-%m-%dT%H:%M:%SZ', ?2, 'unixepoch')"                  \
	" AND j.lease_owner IS NOT ?5"
#define CLAIM_COLUMNS                                                       \
	"SELECT j.id, j.experiment_id, v.idx, j.boot_no, j.attempts,"       \
	" v.build_key, j.seq FROM jobs j"                                   \
	" JOIN experiments e ON e.id = j.experiment_id"                     \
	" JOIN variants v ON v.id = j.variant_id"

/*
 * The first ready job of kind ?1 of experiment ?3 at time ?2: its queued
 * jobs in order from the index jobs_queue (experiment, kind, state, seq),
 * merged with its lapsed leases, so that sqlite stops at the first ready
 * row instead of sorting the experiment's jobs.
 */
static const char claim_one_sql[] =
	CLAIM_COLUMNS
	" WHERE j.experiment_id = ?3 AND j.kind = ?1 AND j.state = 'queued'"
	JOB_LIVE JOB_HOST
	" UNION ALL "
	CLAIM_COLUMNS
	" WHERE j.experiment_id = ?3 AND j.kind = ?1 AND" LEASE_LAPSED
	JOB_LIVE JOB_HOST
	" ORDER BY 7, 1 LIMIT 1";

/* The first ready job of kind ?1 of any experiment: this reads every
 * queued job, for callers that do not name one. */
static const char claim_any_sql[] =
	CLAIM_COLUMNS
	" WHERE j.kind = ?1 AND (j.state = 'queued' OR" LEASE_LAPSED ")"
	JOB_LIVE
	" ORDER BY j.experiment_id, j.seq, j.id LIMIT 1";

/* Find the job @c asks for into *@out (*@found: whether there is one). */
static int claim_find(struct kb_store *s, const struct kb_store_claim *c,
		      struct kb_store_job *out, int *found,
		      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = store_stmt(s, c->experiment ? claim_one_sql : claim_any_sql,
			      &st, err)))
		return ret;
	store_bind_text(st, 1, job_kind_name(c->kind));
	sqlite3_bind_int64(st, 2, c->now);
	if (c->experiment)
		sqlite3_bind_int64(st, 3, c->experiment);
	if (c->kind == KB_STORE_JOB_BOOT && c->experiment)
		store_bind_text(st, 4, c->host);
	store_bind_text(st, 5, c->owner);
	ret = store_step_maybe(s, st, found, err, "cannot look for a job");
	if (!ret && *found) {
		out->id = sqlite3_column_int64(st, 0);
		out->kind = c->kind;
		out->experiment = sqlite3_column_int64(st, 1);
		out->variant_idx = store_column_unsigned(st, 2);
		out->boot_no = store_column_unsigned(st, 3);
		out->attempts = store_column_unsigned(st, 4) + 1;
		out->build_key = store_column_strdup(st, 5);
		out->seq = store_column_unsigned(st, 6);
		out->host = c->host ? kb_strdup(c->host) : NULL;
	}
	store_stmt_done(s, st);
	return ret;
}

int kb_store_job_claim(struct kb_store *s, const struct kb_store_claim *c,
		       struct kb_store_job *out, struct kb_err *err)
{
	sqlite3_stmt *up = NULL;
	int found, ret;

	/* Look without the write lock first: most claims of a pass find
	 * nothing, and a read does not wait for the steps' commits.  What
	 * is found is looked for again inside the transaction, which alone
	 * decides. */
	if ((ret = claim_find(s, c, out, &found, err)))
		return ret;
	kb_store_job_release(out);
	if (!found)
		return kb_err_set(err, KB_ENOTFOUND, "no %s job is ready",
				  job_kind_name(c->kind));
	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = claim_find(s, c, out, &found, err)))
		goto out;
	if (!found) {
		ret = kb_err_set(err, KB_ENOTFOUND, "no %s job is ready",
				 job_kind_name(c->kind));
		goto out;
	}
	if ((ret = store_stmt(s,
			      "UPDATE jobs SET state = 'leased',"
			      " lease_owner = ?1, lease_expires_at ="
			      " strftime('%Y-%m-%dT%H:%M:%SZ', ?2,"
			      " 'unixepoch'), attempts = attempts + 1,"
			      " started_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
			      " 'now'), updated_at = strftime("
			      "'%Y-%m-%dT%H:%M:%SZ', 'now'), host = ?4,"
			      " error = NULL WHERE id = ?5",
			      &up, err)))
		goto out;
	store_bind_text(up, 1, c->owner);
	sqlite3_bind_int64(up, 2, c->now + c->lease_s);
	store_bind_text(up, 4, c->host);
	sqlite3_bind_int64(up, 5, out->id);
	if ((ret = store_step_done(s, up, err, "cannot lease a job")))
		goto out;
	store_stmt_done(s, up);
	up = NULL;
	if ((ret = store_stmt(s,
			      "UPDATE experiments SET state = 'running'"
			      " WHERE id = ? AND state = 'queued'",
			      &up, err)))
		goto out;
	sqlite3_bind_int64(up, 1, out->experiment);
	if ((ret = store_step_done(s, up, err,
				   "cannot start an experiment")))
		goto out;
	store_stmt_done(s, up);
	up = NULL;
	ret = store_commit(s, err);
out:
	store_stmt_done(s, up);
	if (ret) {
		store_rollback(s);
		kb_store_job_release(out);
	}
	return ret;
}

/* Run @sql (a literal: store_stmt()) binding ?1 = @owner, ?2 = @a (text)
 * and ?3 = @b; sets *@n to the rows it changed when @n is not NULL. */
static int owner_update(struct kb_store *s, const char *sql,
			const char *owner, const char *a, sqlite3_int64 b,
			unsigned *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_stmt(s, sql, &st, err)))
		return ret;
	store_bind_text(st, 1, owner);
	store_bind_text(st, 2, a);
	sqlite3_bind_int64(st, 3, b);
	ret = store_step_done(s, st, err, "cannot update the job queue");
	if (ret == 0 && n)
		*n = (unsigned)sqlite3_changes(s->db);
	store_stmt_done(s, st);
	return ret;
}

int kb_store_job_renew(struct kb_store *s, const char *owner, int64_t now,
		       int64_t lease_s, unsigned *n, struct kb_err *err)
{
	return owner_update(s,
			    "UPDATE jobs SET lease_expires_at = strftime("
			    "'%Y-%m-%dT%H:%M:%SZ', ?3, 'unixepoch')"
			    " WHERE state = 'leased' AND lease_owner = ?1"
			    " AND ?2 IS NULL",
			    owner, NULL, now + lease_s, n, err);
}

int kb_store_job_release_others(struct kb_store *s, const char *owner,
				unsigned *n, struct kb_err *err)
{
	return owner_update(s,
			    "UPDATE jobs SET state = 'queued', lease_owner ="
			    " NULL, lease_expires_at = NULL, host = NULL,"
			    " updated_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
			    " 'now') WHERE state = 'leased' AND"
			    " lease_owner IS NOT ?1 AND ?2 IS ?2 AND ?3 = ?3",
			    owner, NULL, 0, n, err);
}

/* Inside a transaction: is job @id still leased by @owner? */
static int lease_held(struct kb_store *s, int64_t id, const char *owner,
		      struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found, ret;

	if ((ret = store_stmt(s,
			      "SELECT 1 FROM jobs WHERE id = ? AND state ="
			      " 'leased' AND lease_owner = ?",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, owner);
	ret = store_step_maybe(s, st, &found, err, "cannot read job %lld",
			       (long long)id);
	if (!ret && !found)
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "job %lld is no longer leased by '%s'",
				 (long long)id, owner);
	store_stmt_done(s, st);
	return ret;
}

/* Inside a transaction: end job @id in @state. */
static int job_end(struct kb_store *s, int64_t id, const char *state,
		   double duration_s, const char *error, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_stmt(s,
			      "UPDATE jobs SET state = ?1, duration_s = ?2,"
			      " error = ?3, lease_owner = NULL,"
			      " lease_expires_at = NULL, updated_at ="
			      " strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			      " WHERE id = ?4",
			      &st, err)))
		return ret;
	store_bind_text(st, 1, state);
	store_bind_real(st, 2, duration_s);
	store_bind_text(st, 3, error);
	sqlite3_bind_int64(st, 4, id);
	ret = store_step_done(s, st, err, "cannot end a job");
	store_stmt_done(s, st);
	return ret;
}

/* End job @id, which @owner must still hold, in @state, in one
 * transaction. */
static int job_end_leased(struct kb_store *s, int64_t id, const char *owner,
			  const char *state, double duration_s,
			  const char *error, struct kb_err *err)
{
	int ret;

	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = lease_held(s, id, owner, err)) ||
	    (ret = job_end(s, id, state, duration_s, error, err)) ||
	    (ret = store_commit(s, err)))
		store_rollback(s);
	return ret;
}

int kb_store_job_done(struct kb_store *s, int64_t id, const char *owner,
		      double duration_s, struct kb_err *err)
{
	return job_end_leased(s, id, owner, "done", duration_s, NULL, err);
}

int kb_store_job_fail(struct kb_store *s, int64_t id, const char *owner,
		      const char *error, struct kb_err *err)
{
	return job_end_leased(s, id, owner, "failed", NAN,
			      error ? error : "failed", err);
}

int kb_store_job_boot_done(struct kb_store *s, const struct kb_store_job *j,
			   const char *owner, int64_t build_id,
			   const struct kb_boot_result *r, double duration_s,
			   struct kb_err *err)
{
	int exists = 0, ret;

	if ((ret = store_check_values(r, j->boot_no, err)) ||
	    (ret = store_begin(s, err)))
		return ret;
	/* A boot stored by an earlier holder of this job (impossible when
	 * every boot goes through here, but cheap to be sure of) stands:
	 * never a second row, never a second set of samples. */
	if ((ret = lease_held(s, j->id, owner, err)) ||
	    (ret = kb_store_boot_exists(s, j->experiment, j->variant_idx,
					j->boot_no, &exists, err)) ||
	    (!exists &&
	     (ret = store_insert_boot(s, j->experiment, j->variant_idx,
				      j->boot_no, build_id, r, err))) ||
	    (ret = job_end(s, j->id, "done", duration_s, NULL, err)) ||
	    (ret = store_commit(s, err)))
		store_rollback(s);
	return ret;
}

int kb_store_job_host_failed(struct kb_store *s, const struct kb_store_job *j,
			     const char *owner, const char *reason,
			     struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = lease_held(s, j->id, owner, err)) ||
	    (ret = kb_store_host_event_put(s, j->experiment, j->host,
					   "failure", (int)j->variant_idx,
					   j->boot_no, reason, err)) ||
	    (ret = store_stmt(s,
			      "UPDATE jobs SET state = 'queued',"
			      " lease_owner = NULL, lease_expires_at = NULL,"
			      " host = NULL, assigned_host ="
			      " coalesce(assigned_host, ?2), updated_at ="
			      " strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			      " WHERE id = ?1",
			      &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, j->id);
	store_bind_text(st, 2, j->host);
	if ((ret = store_step_done(s, st, err, "cannot requeue job %lld",
				   (long long)j->id)))
		goto out;
	ret = store_commit(s, err);
out:
	store_stmt_done(s, st);
	if (ret)
		store_rollback(s);
	return ret;
}

/* Inside a transaction: the queued jobs of @exp become cancelled. */
static int cancel_queued(struct kb_store *s, int64_t exp, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_stmt(s,
			      "UPDATE jobs SET state = 'cancelled',"
			      " updated_at = strftime('%Y-%m-%dT%H:%M:%SZ',"
			      " 'now') WHERE experiment_id = ?"
			      " AND state = 'queued'",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	ret = store_step_done(s, st, err,
			      "cannot cancel the jobs of experiment %lld",
			      (long long)exp);
	store_stmt_done(s, st);
	return ret;
}

int kb_store_experiment_cancel(struct kb_store *s, int64_t exp,
			       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct kb_proc_id o;
	enum store_owner owner;
	char *state = NULL;
	int found, ret;

	if ((ret = store_begin(s, err)))
		return ret;
	ret = store_row_by_id(s,
			      "SELECT state, owner_host, owner_pid,"
			      " owner_start, owner_boot FROM experiments"
			      " WHERE id = ?",
			      "experiment", exp, &st, err);
	if (ret)
		goto out;
	state = store_column_strdup(st, 0);
	owner = store_owner_read(st, 1, &o);
	sqlite3_finalize(st);
	st = NULL;
	if (owner == STORE_OWNER_GONE && state && !strcmp(state, "running")) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld was interrupted: its kbisect process (pid %ld on %s) is gone; 'kbisect resume %lld' carries it on",
				 (long long)exp, o.pid, o.host,
				 (long long)exp);
		goto out;
	}
	if (!state || (strcmp(state, "queued") && strcmp(state, "running"))) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld is already %s",
				 (long long)exp, state ? state : "finished");
		goto out;
	}
	if ((ret = store_prepare(s,
				 "SELECT 1 FROM jobs WHERE experiment_id = ?",
				 &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = store_step_maybe(s, st, &found, err,
				    "cannot read the jobs of experiment %lld",
				    (long long)exp)))
		goto out;
	if (!found && owner == STORE_OWNER_ALIVE) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld runs in a 'kbisect run' process (pid %ld on %s), not in kbisectd: stop that process (Ctrl-C, or kill -TERM %ld)",
				 (long long)exp, o.pid, o.host, o.pid);
		goto out;
	}
	if (!found) {
		ret = kb_err_set(err, KB_EINPUT,
				 "experiment %lld runs in a 'kbisect run' process, not in kbisectd",
				 (long long)exp);
		goto out;
	}
	sqlite3_finalize(st);
	if ((ret = store_prepare(s,
				 "UPDATE experiments SET cancel_requested = 1"
				 " WHERE id = ?",
				 &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	if ((ret = store_step_done(s, st, err,
				   "cannot cancel an experiment")) ||
	    (ret = cancel_queued(s, exp, err)))
		goto out;
	ret = store_commit(s, err);
out:
	free(state);
	sqlite3_finalize(st);
	if (ret)
		store_rollback(s);
	return ret;
}

/* What kb_store_experiment_settle() decides from. */
struct settle_facts {
	char *state;  /* the experiment's, or NULL */
	char *error;  /* its first failed job's, or NULL */
	sqlite3_int64 cancel, jobs, queued, leased, failed;
};

static void settle_facts_release(struct settle_facts *f)
{
	free(f->state);
	free(f->error);
	memset(f, 0, sizeof(*f));
}

/* Read what settling @exp decides from: one pass over its jobs by the
 * index jobs_queue, and the error only when a job failed. */
static int settle_read(struct kb_store *s, int64_t exp,
		       struct settle_facts *f, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = store_row_cached(s,
			       "SELECT e.state, e.cancel_requested,"
			       " count(j.id), total(j.state = 'queued'),"
			       " total(j.state = 'leased'),"
			       " total(j.state = 'failed'),"
			       " CASE WHEN total(j.state = 'failed') > 0"
			       "  THEN (SELECT error FROM jobs WHERE"
			       "  experiment_id = e.id AND state = 'failed'"
			       "  ORDER BY id LIMIT 1) END"
			       " FROM experiments e"
			       " LEFT JOIN jobs j ON j.experiment_id = e.id"
			       " WHERE e.id = ? GROUP BY e.id",
			       "experiment", exp, &st, err);
	if (ret)
		return ret;
	f->state = store_column_strdup(st, 0);
	f->cancel = sqlite3_column_int64(st, 1);
	f->jobs = sqlite3_column_int64(st, 2);
	f->queued = sqlite3_column_int64(st, 3);
	f->leased = sqlite3_column_int64(st, 4);
	f->failed = sqlite3_column_int64(st, 5);
	f->error = store_column_strdup(st, 6);
	store_stmt_done(s, st);
	return 0;
}

/* The state settling @f ends its experiment in, or NULL: none. */
static const char *settle_next(const struct settle_facts *f)
{
	/* without jobs it is a `kbisect run` experiment: not ours to end */
	if (!f->state ||
	    (strcmp(f->state, "queued") && strcmp(f->state, "running")) ||
	    f->leased || !f->jobs)
		return NULL;
	if (f->failed)
		return "failed";
	if (f->cancel)
		return "cancelled";
	if (f->queued == 0)
		return "done";
	return NULL;
}

int kb_store_experiment_settle(struct kb_store *s, int64_t exp,
			       char **state, struct kb_err *err)
{
	struct settle_facts f;
	const char *next;
	int ret;

	*state = NULL;
	/* Read first, without the write lock: most settles change nothing
	 * (a step of the experiment still runs).  One that would end it
	 * reads again inside the transaction, which alone decides. */
	if ((ret = settle_read(s, exp, &f, err)))
		return ret;
	if (!settle_next(&f)) {
		*state = kb_strdup(f.state ? f.state : "?");
		settle_facts_release(&f);
		return 0;
	}
	settle_facts_release(&f);
	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = settle_read(s, exp, &f, err)))
		goto out;
	next = settle_next(&f);
	if (next &&
	    ((ret = cancel_queued(s, exp, err)) ||
	     (ret = kb_store_experiment_finish(s, exp, next,
					       f.failed ? f.error : NULL,
					       err))))
		goto out;
	if ((ret = store_commit(s, err)))
		goto out;
	*state = kb_strdup(next ? next : f.state ? f.state : "?");
out:
	settle_facts_release(&f);
	if (ret)
		store_rollback(s);
	return ret;
}

/*
 * Run @sql (a literal: store_stmt()), a query of one column of ids whose
 * ?1 is the most rows to return (-1: all) and ?2, if it has one, @arg,
 * into *@ids (caller frees) and *@n; on failure record "cannot <what>".
 */
static int query_ids(struct kb_store *s, const char *sql, sqlite3_int64 max,
		     sqlite3_int64 arg, const char *what, int64_t **ids,
		     size_t *n, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *v = NULL;
	size_t len = 0;
	int rc, ret;

	*ids = NULL;
	*n = 0;
	if ((ret = store_stmt(s, sql, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, max);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, arg);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = kb_reallocarray(v, len + 1, sizeof(*v));
		v[len++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err, "cannot %s", what);
		free(v);
	} else {
		*ids = v;
		*n = len;
	}
	store_stmt_done(s, st);
	return ret;
}

int kb_store_queue_experiments(struct kb_store *s, int64_t **ids,
			       size_t *n, struct kb_err *err)
{
	return kb_store_queue_experiments_after(s, 0, 0, ids, n, err);
}

int kb_store_queue_experiments_after(struct kb_store *s, int64_t after,
				     size_t max, int64_t **ids, size_t *n,
				     struct kb_err *err)
{
	return query_ids(s,
			 "SELECT e.id FROM experiments e"
			 " WHERE e.id > ?2"
			 " AND e.state IN ('queued', 'running')"
			 " AND EXISTS (SELECT 1 FROM jobs j"
			 "  WHERE j.experiment_id = e.id)"
			 " ORDER BY e.id LIMIT ?1",
			 max ? (sqlite3_int64)max : -1, after,
			 "list the queued experiments", ids, n, err);
}

int kb_store_queue_lapsed(struct kb_store *s, int64_t now, int64_t **ids,
			  size_t *n, struct kb_err *err)
{
	/* the index jobs_state (state, lease_expires_at) holds them in
	 * order of expiry: only the lapsed ones are read */
	return query_ids(s,
			 "SELECT DISTINCT j.experiment_id FROM jobs j"
			 " WHERE" LEASE_LAPSED " ORDER BY 1 LIMIT ?1",
			 -1, now, "look for lapsed leases", ids, n, err);
}

int kb_store_queue_has(struct kb_store *s, int64_t exp, int *live,
		       struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	*live = 0;
	if ((ret = store_stmt(s,
			      "SELECT 1 FROM experiments e WHERE e.id = ?"
			      " AND e.state IN ('queued', 'running')"
			      " AND EXISTS (SELECT 1 FROM jobs j"
			      "  WHERE j.experiment_id = e.id)",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	ret = store_step_maybe(s, st, live, err,
			       "cannot read experiment %lld", (long long)exp);
	store_stmt_done(s, st);
	return ret;
}

void kb_store_progress_release(struct kb_store_progress *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->state);
	free(p->executor);
	free(p->error);
	free(p->current);
	free(p->hosts);
	memset(p, 0, sizeof(*p));
}

/*
 * The progress of experiment @exp, which has no jobs (`kbisect run`), from
 * its boots: variants with every planned boot stored, builds stored of
 * its build keys, boots stored of those planned; "interrupted" when it is
 * "running" in a process that is gone (read only: nothing is written).
 */
static int run_progress(struct kb_store *s, int64_t exp,
			struct kb_store_progress *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = store_row_cached(s,
			       "SELECT (SELECT count(*) FROM variants v WHERE"
			       "  v.experiment_id = e.id AND (SELECT count(*)"
			       "  FROM boots b WHERE b.variant_id = v.id)"
			       "  >= e.boots),"
			       " (SELECT count(DISTINCT build_key) FROM"
			       "  variants WHERE experiment_id = e.id),"
			       " (SELECT count(DISTINCT v.build_key) FROM"
			       "  variants v JOIN builds bu ON bu.build_key ="
			       "  v.build_key WHERE v.experiment_id = e.id),"
			       " e.boots * (SELECT count(*) FROM variants WHERE"
			       "  experiment_id = e.id),"
			       " (SELECT count(*) FROM boots b JOIN variants v"
			       "  ON v.id = b.variant_id WHERE"
			       "  v.experiment_id = e.id),"
			       " owner_host, owner_pid, owner_start, owner_boot"
			       " FROM experiments e WHERE e.id = ?",
			       "experiment", exp, &st, err);
	if (ret)
		return ret;
	out->variants_done = store_column_unsigned(st, 0);
	out->builds_total = store_column_unsigned(st, 1);
	out->builds_done = store_column_unsigned(st, 2);
	out->boots_total = store_column_unsigned(st, 3);
	out->boots_done = store_column_unsigned(st, 4);
	if (out->state && !strcmp(out->state, "running") &&
	    store_owner_read(st, 5, NULL) == STORE_OWNER_GONE) {
		free(out->state);
		out->state = kb_strdup("interrupted");
	}
	store_stmt_done(s, st);
	return 0;
}

/*
 * The boots done of @exp per host, "URI 12, URI 11" into *@out, when they
 * ran on more than one host (else NULL): from its jobs (@jobs), or from
 * its boots (`kbisect run`).
 */
static int progress_hosts(struct kb_store *s, int64_t exp, int jobs,
			  char **out, struct kb_err *err)
{
	static const char from_jobs[] =
		"SELECT host, count(*) FROM jobs WHERE experiment_id = ?"
		" AND kind = 'boot' AND state = 'done' GROUP BY host"
		" ORDER BY host";
	static const char from_boots[] =
		"SELECT b.host, count(*) FROM variants v"
		" JOIN boots b ON b.variant_id = v.id"
		" WHERE v.experiment_id = ? GROUP BY b.host ORDER BY b.host";
	struct kb_buf b = KB_BUF_INIT;
	sqlite3_stmt *st = NULL;
	unsigned rows = 0;
	int rc, ret;

	*out = NULL;
	if ((ret = store_stmt(s, jobs ? from_jobs : from_boots, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *host = (const char *)sqlite3_column_text(st, 0);

		kb_buf_addf(&b, "%s%s %u", rows++ ? ", " : "",
			    host ? host : "?", store_column_unsigned(st, 1));
	}
	store_stmt_done(s, st);
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err,
				 "cannot read the hosts of experiment %lld",
				 (long long)exp);
	else if (rows > 1)
		*out = kb_buf_detach(&b);
	kb_buf_release(&b);
	return ret;
}

int kb_store_progress_get(struct kb_store *s, int64_t exp,
			  struct kb_store_progress *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	struct kb_buf cur = KB_BUF_INIT;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	ret = store_row_cached(s,
			       "SELECT e.name, e.state, e.executor, e.error,"
			       " e.cancel_requested,"
			       " (SELECT count(*) FROM variants WHERE"
			       "  experiment_id = e.id),"
			       " (SELECT count(*) FROM variants v WHERE"
			       "  v.experiment_id = e.id AND NOT EXISTS"
			       "  (SELECT 1 FROM jobs j WHERE j.variant_id ="
			       "  v.id AND j.kind = 'boot' AND"
			       "  j.state <> 'done')),"
			       " sum(j.kind = 'build'),"
			       " sum(j.kind = 'build' AND j.state = 'done'),"
			       " sum(j.kind = 'boot'),"
			       " sum(j.kind = 'boot' AND j.state = 'done'),"
			       " sum(j.kind = 'build' AND"
			       "  j.state = 'leased'),"
			       " sum(j.kind = 'boot' AND j.state = 'leased'),"
			       " avg(CASE WHEN j.kind = 'build' THEN"
			       "  j.duration_s END),"
			       " avg(CASE WHEN j.kind = 'boot' THEN"
			       "  j.duration_s END),"
			       " CAST(strftime('%s', coalesce(e.finished_at,"
			       "  'now')) AS INTEGER) - CAST(strftime('%s',"
			       "  e.created_at) AS INTEGER),"
			       " count(j.id)"
			       " FROM experiments e"
			       " LEFT JOIN jobs j ON j.experiment_id = e.id"
			       " WHERE e.id = ? GROUP BY e.id",
			       "experiment", exp, &st, err);
	if (ret)
		goto out;
	out->id = exp;
	out->name = store_column_strdup(st, 0);
	out->state = store_column_strdup(st, 1);
	out->executor = store_column_strdup(st, 2);
	out->error = store_column_strdup(st, 3);
	out->cancel_requested = sqlite3_column_int64(st, 4) != 0;
	out->variants_total = store_column_unsigned(st, 5);
	out->variants_done = store_column_unsigned(st, 6);
	out->builds_total = store_column_unsigned(st, 7);
	out->builds_done = store_column_unsigned(st, 8);
	out->boots_total = store_column_unsigned(st, 9);
	out->boots_done = store_column_unsigned(st, 10);
	out->builds_running = store_column_unsigned(st, 11);
	out->boots_running = store_column_unsigned(st, 12);
	out->build_mean_s = store_column_real(st, 13);
	out->boot_mean_s = store_column_real(st, 14);
	out->elapsed_s = (double)sqlite3_column_int64(st, 15);
	out->has_jobs = sqlite3_column_int64(st, 16) != 0;
	store_stmt_done(s, st);
	st = NULL;
	if (!out->has_jobs && (ret = run_progress(s, exp, out, err)))
		goto out;

	/* what runs now, in words */
	if ((ret = store_stmt(s,
			      "SELECT j.kind, v.idx, v.label, j.boot_no,"
			      " j.host FROM jobs j"
			      " JOIN variants v ON v.id = j.variant_id"
			      " WHERE j.experiment_id = ?"
			      " AND j.state = 'leased'"
			      " ORDER BY j.kind DESC, j.seq",
			      &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *label = (const char *)sqlite3_column_text(st, 2);
		const char *host = (const char *)sqlite3_column_text(st, 4);

		if (cur.len)
			kb_buf_adds(&cur, "; ");
		if (kind && !strcmp(kind, "build"))
			kb_buf_addf(&cur, "build #%u %s",
				    store_column_unsigned(st, 1),
				    label ? label : "");
		else
			kb_buf_addf(&cur, "boot %u of #%u %s%s%s",
				    store_column_unsigned(st, 3),
				    store_column_unsigned(st, 1),
				    label ? label : "", host ? " on " : "",
				    host ? host : "");
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(s, err,
				 "cannot read the running jobs of experiment %lld",
				 (long long)exp);
		goto out;
	}
	out->current = cur.len ? kb_buf_detach(&cur) : NULL;
	store_stmt_done(s, st);
	st = NULL;
	ret = progress_hosts(s, exp, out->has_jobs, &out->hosts, err);
out:
	kb_buf_release(&cur);
	store_stmt_done(s, st);
	if (ret)
		kb_store_progress_release(out);
	return ret;
}

int kb_store_progress_recent(struct kb_store *s, size_t max, int64_t **ids,
			     size_t *n, struct kb_err *err)
{
	return query_ids(s,
			 "SELECT e.id FROM experiments e"
			 " WHERE EXISTS (SELECT 1 FROM jobs j"
			 "  WHERE j.experiment_id = e.id)"
			 " ORDER BY e.state IN ('queued', 'running')"
			 " DESC, e.id DESC LIMIT ?1",
			 (sqlite3_int64)max, 0, "list experiments", ids, n,
			 err);
}
