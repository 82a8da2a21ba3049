/*
 * The store's hosts (db/0010; lib/spread.h, docs/guests.md "Several
 * hosts"): where each boot of an experiment ran, the failures of a
 * host's own that are kept apart from the boots, the hosts drained, the
 * boot jobs' assigned hosts, and the time builds and boots overlapped.
 */
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store_int.h"
#include "banned.h"

void kb_store_boot_hosts_free(struct kb_store_boot_host *b, size_t n)
{
	size_t i;

	for (i = 0; b && i < n; i++)
		free(b[i].host);
	free(b);
}

int kb_store_boot_hosts(struct kb_store *s, int64_t exp,
			struct kb_store_boot_host **out, size_t *n,
			struct kb_err *err)
{
	struct kb_store_boot_host *b = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_stmt(s, store_sql_boot_hosts, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 64;
			b = kb_reallocarray(b, cap, sizeof(*b));
		}
		b[len].variant_idx = store_column_unsigned(st, 0);
		b[len].boot_no = store_column_unsigned(st, 1);
		b[len].host = store_column_strdup(st, 2);
		b[len].ok = sqlite3_column_int(st, 3) != 0;
		len++;
	}
	store_stmt_done(s, st);
	if (rc != SQLITE_DONE) {
		kb_store_boot_hosts_free(b, len);
		return store_fail(s, err,
				  "cannot read the boots of experiment %lld",
				  (long long)exp);
	}
	*out = b;
	*n = len;
	return 0;
}

int kb_store_host_event_put(struct kb_store *s, int64_t exp, const char *host,
			    const char *kind, int variant_idx,
			    unsigned boot_no, const char *reason,
			    struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if ((ret = store_stmt(s,
			      "INSERT INTO host_events (experiment_id, host,"
			      " kind, variant_idx, boot_no, reason)"
			      " VALUES (?, ?, ?, ?, ?, ?)",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	store_bind_text(st, 2, host ? host : "?");
	store_bind_text(st, 3, kind);
	if (variant_idx >= 0) {
		sqlite3_bind_int64(st, 4, variant_idx);
		sqlite3_bind_int64(st, 5, boot_no);
	}
	store_bind_text(st, 6, reason);
	ret = store_step_done(s, st, err,
			      "cannot record what befell host '%s'",
			      host ? host : "?");
	store_stmt_done(s, st);
	return ret;
}

void kb_store_host_counts_free(struct kb_store_host_count *c, size_t n)
{
	size_t i;

	for (i = 0; c && i < n; i++) {
		free(c[i].host);
		free(c[i].last_failure);
	}
	free(c);
}

/* The boots of experiment ?1 per host, and its host events per host:
 * two indexed reads, merged by host (kb_store_read_plans() checks them). */
const char store_sql_host_boots[] =
	"SELECT b.host, count(*), sum(b.status = 'ok') FROM variants v"
	" JOIN boots b ON b.variant_id = v.id WHERE v.experiment_id = ?1"
	" GROUP BY b.host ORDER BY b.host";
const char store_sql_host_events[] =
	"SELECT host, sum(kind = 'failure'), max(kind = 'drained'),"
	" (SELECT e.reason FROM host_events e WHERE e.experiment_id = ?1"
	"  AND e.host = h.host ORDER BY e.id DESC LIMIT 1)"
	" FROM host_events h WHERE experiment_id = ?1"
	" GROUP BY host ORDER BY host";
const char store_sql_boot_hosts[] =
	"SELECT v.idx, b.boot_no, b.host, b.status = 'ok'"
	" FROM variants v JOIN boots b"
	" ON b.variant_id = v.id WHERE v.experiment_id = ?1"
	" ORDER BY v.idx, b.boot_no";

/* The entry of @host in @c[0..*n), added when new. */
static struct kb_store_host_count *count_of(struct kb_store_host_count **c,
					    size_t *n, size_t *cap,
					    const char *host)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*c)[i].host ? host && !strcmp((*c)[i].host, host) : !host)
			return &(*c)[i];
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*c = kb_reallocarray(*c, *cap, sizeof(**c));
	}
	memset(&(*c)[*n], 0, sizeof(**c));
	(*c)[*n].host = host ? kb_strdup(host) : NULL;
	return &(*c)[(*n)++];
}

static int by_host(const void *x, const void *y)
{
	const char *a = ((const struct kb_store_host_count *)x)->host;
	const char *b = ((const struct kb_store_host_count *)y)->host;

	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

int kb_store_host_counts(struct kb_store *s, int64_t exp,
			 struct kb_store_host_count **out, size_t *n,
			 struct kb_err *err)
{
	struct kb_store_host_count *c = NULL, *x;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 0;
	int rc = SQLITE_DONE, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_begin_read(s, err)))
		return ret;
	if ((ret = store_stmt(s, store_sql_host_boots, &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		x = count_of(&c, &len, &cap,
			     (const char *)sqlite3_column_text(st, 0));
		x->boots = store_column_unsigned(st, 1);
		x->ok = store_column_unsigned(st, 2);
	}
	store_stmt_done(s, st);
	st = NULL;
	if (rc != SQLITE_DONE ||
	    (ret = store_stmt(s, store_sql_host_events, &st, err)))
		goto out;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		x = count_of(&c, &len, &cap,
			     (const char *)sqlite3_column_text(st, 0));
		x->failures = store_column_unsigned(st, 1);
		x->drained = sqlite3_column_int(st, 2) != 0;
		x->last_failure = store_column_strdup(st, 3);
	}
out:
	store_stmt_done(s, st);
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(s, err,
				 "cannot read the hosts of experiment %lld",
				 (long long)exp);
	if (!ret)
		ret = store_commit(s, err);
	if (ret) {
		store_rollback(s);
		kb_store_host_counts_free(c, len);
		return ret;
	}
	if (len > 1)
		qsort(c, len, sizeof(*c), by_host);
	*out = c;
	*n = len;
	return 0;
}

int kb_store_overlap_add(struct kb_store *s, int64_t exp, double seconds,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (!(seconds >= 0) || !isfinite(seconds))
		return 0;
	if ((ret = store_stmt(s,
			      "UPDATE experiments SET overlap_s ="
			      " coalesce(overlap_s, 0) + ?2 WHERE id = ?1",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_double(st, 2, seconds);
	ret = store_step_update(s, st, err, "update", "experiment %lld",
				(long long)exp);
	store_stmt_done(s, st);
	return ret;
}

int kb_store_overlap_get(struct kb_store *s, int64_t exp, double *seconds,
			 struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	*seconds = NAN;
	if ((ret = store_row_cached(s,
				    "SELECT overlap_s FROM experiments"
				    " WHERE id = ?",
				    "experiment", exp, &st, err)))
		return ret;
	*seconds = store_column_real(st, 0);
	store_stmt_done(s, st);
	return 0;
}

void kb_store_job_hosts_free(struct kb_store_job_host *j, size_t n)
{
	size_t i;

	for (i = 0; j && i < n; i++)
		free(j[i].host);
	free(j);
}

int kb_store_job_hosts(struct kb_store *s, int64_t exp,
		       struct kb_store_job_host **out, size_t *n,
		       struct kb_err *err)
{
	struct kb_store_job_host *j = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_stmt(s,
			      "SELECT j.id, v.idx, j.assigned_host,"
			      " j.state = 'queued' FROM jobs j"
			      " JOIN variants v ON v.id = j.variant_id"
			      " WHERE j.experiment_id = ? AND j.kind = 'boot'"
			      " ORDER BY j.seq, j.id",
			      &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 64;
			j = kb_reallocarray(j, cap, sizeof(*j));
		}
		j[len].id = sqlite3_column_int64(st, 0);
		j[len].variant_idx = store_column_unsigned(st, 1);
		j[len].host = store_column_strdup(st, 2);
		j[len].queued = sqlite3_column_int(st, 3) != 0;
		len++;
	}
	store_stmt_done(s, st);
	if (rc != SQLITE_DONE) {
		kb_store_job_hosts_free(j, len);
		return store_fail(s, err,
				  "cannot read the jobs of experiment %lld",
				  (long long)exp);
	}
	*out = j;
	*n = len;
	return 0;
}

int kb_store_job_assign(struct kb_store *s, const int64_t *ids,
			const char *const *hosts, size_t n,
			struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret;

	if ((ret = store_begin(s, err)))
		return ret;
	if ((ret = store_stmt(s,
			      "UPDATE jobs SET assigned_host = ?2, updated_at ="
			      " strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			      " WHERE id = ?1 AND state = 'queued'",
			      &st, err)))
		goto out;
	for (i = 0; i < n && !ret; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids[i]);
		store_bind_text(st, 2, hosts[i]);
		ret = store_step_done(s, st, err, "cannot move job %lld",
				      (long long)ids[i]);
	}
	if (!ret)
		ret = store_commit(s, err);
out:
	store_stmt_done(s, st);
	if (ret)
		store_rollback(s);
	return ret;
}
