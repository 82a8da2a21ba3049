/*
 * The guest's monitors of each boot (db/0017, lib/store/store_monitor.h).
 */
#include "store_monitor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "store.h"
#include "store_int.h"
#include "variant.h"
#include "banned.h"

#define STORE_VERSION_MONITORS 17

int store_boot_monitors_put(struct kb_store *s, sqlite3_int64 boot_id,
			    const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret;

	if (!r->nmonitors || kb_store_version(s) < STORE_VERSION_MONITORS)
		return 0;
	if ((ret = store_prepare(s,
				 "INSERT OR REPLACE INTO monitors (boot_id,"
				 " run_no, name, value) VALUES (?, ?, ?, ?)",
				 &st, err)))
		return ret;
	for (i = 0; !ret && i < r->nmonitors; i++) {
		const struct kb_monitor_value *m = &r->monitors[i];

		/* a run's 0 is what did not move; a host monitor's 0 (run 0:
		 * a load average of 0.00) is a reading, kept */
		if ((m->value == 0 && m->run) || !isfinite(m->value))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, boot_id);
		sqlite3_bind_int64(st, 2, m->run);
		store_bind_text(st, 3, m->name);
		sqlite3_bind_double(st, 4, m->value);
		ret = store_step_done(s, st, err,
				      "cannot store monitor '%s' of run %u",
				      m->name, m->run);
	}
	sqlite3_finalize(st);
	return ret;
}

void kb_store_monitors_release(struct kb_store_monitors *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free((char *)m->rows[i].name);
	free(m->rows);
	memset(m, 0, sizeof(*m));
}

/* A monitor of run 0 (the host's, over the boot) is its value; one of
 * the runs its mean over the runs (run_no > 0) that stored monitors. */
static const char sql_monitors[] =
	"SELECT m.boot_id, m.name,"
	" total(CASE WHEN m.run_no = 0 THEN m.value END) +"
	" coalesce(total(CASE WHEN m.run_no > 0 THEN m.value END) /"
	"  nullif((SELECT count(DISTINCT x.run_no) FROM monitors x"
	"   WHERE x.boot_id = m.boot_id AND x.run_no > 0), 0), 0)"
	" FROM variants v JOIN boots b ON b.variant_id = v.id"
	" JOIN monitors m ON m.boot_id = b.id"
	" WHERE v.experiment_id = ?1 AND v.idx = ?2 AND b.status = 'ok'"
	" GROUP BY m.boot_id, m.name ORDER BY m.boot_id, m.name";

int kb_store_monitors(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      struct kb_store_monitors *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	long long last = -1;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if (kb_store_version(s) < STORE_VERSION_MONITORS)
		return 0;
	if ((ret = store_prepare(s, sql_monitors, &st, err)))
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, variant_idx);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_monitor_row *r;

		if (out->n == cap) {
			cap = cap ? 2 * cap : 256;
			out->rows = kb_reallocarray(out->rows, cap,
						    sizeof(*out->rows));
		}
		r = &out->rows[out->n++];
		r->boot = sqlite3_column_int64(st, 0);
		r->name = store_column_strdup(st, 1);
		r->value = sqlite3_column_double(st, 2);
		if (!r->name)
			r->name = kb_strdup("");
		if (r->boot != last)
			out->nboots++;
		last = r->boot;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err,
				 "cannot read the monitors of variant %u of experiment %lld",
				 variant_idx, (long long)exp);
	sqlite3_finalize(st);
	return ret;
}
