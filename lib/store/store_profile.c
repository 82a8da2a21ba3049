/*
 * The guest's profiles of each boot (db/0019, lib/store/store_profile.h).
 */
#include "store_profile.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store.h"
#include "store_int.h"
#include "variant.h"
#include "banned.h"

#define STORE_VERSION_PROFILES 19

int store_boot_profile_put(struct kb_store *s, sqlite3_int64 boot_id,
			   const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *text = NULL, *id = NULL, *row = NULL;
	size_t i;
	int ret;

	if (!r->nprofile || kb_store_version(s) < STORE_VERSION_PROFILES)
		return 0;
	if ((ret = store_prepare(s,
				 "INSERT OR IGNORE INTO profile_stacks (stack)"
				 " VALUES (?)",
				 &text, err)) ||
	    (ret = store_prepare(s,
				 "SELECT id FROM profile_stacks WHERE stack = ?",
				 &id, err)) ||
	    (ret = store_prepare(s,
				 "INSERT INTO profiles (boot_id, run_no,"
				 " stack_id, samples) VALUES (?, ?, ?, ?)"
				 " ON CONFLICT DO UPDATE SET samples ="
				 " samples + excluded.samples",
				 &row, err)))
		goto out;
	for (i = 0; !ret && i < r->nprofile; i++) {
		const struct kb_profile_stack *p = &r->profile[i];

		if (!p->samples || p->samples > INT64_MAX || !p->stack)
			continue;
		sqlite3_reset(text);
		store_bind_text(text, 1, p->stack);
		if ((ret = store_step_done(s, text, err,
					   "cannot store a stack of run %u",
					   p->run)))
			break;
		sqlite3_reset(id);
		store_bind_text(id, 1, p->stack);
		if (sqlite3_step(id) != SQLITE_ROW) {
			ret = store_fail(s, err,
					 "cannot find a stored stack of run %u",
					 p->run);
			break;
		}
		sqlite3_reset(row);
		sqlite3_bind_int64(row, 1, boot_id);
		sqlite3_bind_int64(row, 2, p->run);
		sqlite3_bind_int64(row, 3, sqlite3_column_int64(id, 0));
		sqlite3_bind_int64(row, 4, (sqlite3_int64)p->samples);
		ret = store_step_done(s, row, err,
				      "cannot store the profile of run %u",
				      p->run);
	}
out:
	sqlite3_finalize(text);
	sqlite3_finalize(id);
	sqlite3_finalize(row);
	return ret;
}

void kb_store_profiles_release(struct kb_store_profiles *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free((char *)p->rows[i].stack);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

static const char sql_profiles[] =
	"SELECT p.boot_id, t.stack, sum(p.samples)"
	" FROM variants v JOIN boots b ON b.variant_id = v.id"
	" JOIN profiles p ON p.boot_id = b.id"
	" JOIN profile_stacks t ON t.id = p.stack_id"
	" WHERE v.experiment_id = ?1 AND v.idx = ?2 AND b.status = 'ok'"
	" GROUP BY p.boot_id, p.stack_id ORDER BY p.boot_id, t.stack";

int kb_store_profiles(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      struct kb_store_profiles *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	long long last = -1;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if (kb_store_version(s) < STORE_VERSION_PROFILES)
		return 0;
	if ((ret = store_prepare(s, sql_profiles, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, variant_idx);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_profile_row *r;
		sqlite3_int64 n = sqlite3_column_int64(st, 2);

		if (n <= 0)
			continue;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 256;
			out->rows = kb_reallocarray(out->rows, cap,
						    sizeof(*out->rows));
		}
		r = &out->rows[out->n++];
		r->boot = sqlite3_column_int64(st, 0);
		r->stack = store_column_strdup(st, 1);
		r->samples = (unsigned long long)n;
		if (!r->stack)
			r->stack = kb_strdup("");
		if (r->boot != last)
			out->nboots++;
		last = r->boot;
		out->samples += r->samples;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err,
				 "cannot read the profiles of variant %u of experiment %lld",
				 variant_idx, (long long)exp);
	sqlite3_finalize(st);
	return ret;
}
