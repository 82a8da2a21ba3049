/*
 * The store's evidence (db/0007): the domain XML and workload text each
 * boot stores with its row, and reading them back with the build the
 * boot booted, for `kbisect repro`.  A build's own evidence (its resolved
 * .config and image SHA-256) goes in with the build row
 * (lib/store/store_build.c).
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store_int.h"
#include "banned.h"

int store_boot_evidence_put(struct kb_store *s, sqlite3_int64 boot_id,
			    const struct kb_boot_result *r, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (s->version < 7 || (!r->domain_xml && !r->workload_text))
		return 0;
	ret = store_prepare(s,
			    "UPDATE boots SET domain_xml = ?, workload_text = ?"
			    " WHERE id = ?",
			    &st, err);
	if (ret)
		return ret;
	store_bind_text(st, 1, r->domain_xml);
	store_bind_text(st, 2, r->workload_text);
	sqlite3_bind_int64(st, 3, boot_id);
	ret = store_step_done(s, st, err,
			      "cannot store the domain XML of boot %lld",
			      (long long)boot_id);
	sqlite3_finalize(st);
	return ret;
}

void kb_store_evidence_release(struct kb_store_evidence *e)
{
	if (!e)
		return;
	free(e->status);
	free(e->reason);
	free(e->host);
	free(e->domain_xml);
	free(e->workload_text);
	free(e->build_key);
	free(e->image);
	free(e->image_sha256);
	free(e->config_text);
	memset(e, 0, sizeof(*e));
}

int kb_store_evidence_get(struct kb_store *s, int64_t exp, unsigned idx,
			  struct kb_store_evidence *out, struct kb_err *err)
{
	sqlite3_stmt *st = NULL;
	int found = 0, ret;

	memset(out, 0, sizeof(*out));
	if (s->version < 7)
		return kb_err_set(err, KB_ENOTFOUND,
				  "database '%s' (schema %u) stores no domain XML",
				  s->path, s->version);
	/* ok boots first, then the latest */
	ret = store_prepare(s,
			    "SELECT b.boot_no, b.status, b.reason, b.host,"
			    " b.domain_xml, b.workload_text, bu.id,"
			    " bu.build_key, bu.image_path, bu.image_sha256,"
			    " bu.config_text"
			    " FROM boots b"
			    " JOIN variants v ON v.id = b.variant_id"
			    " LEFT JOIN builds bu ON bu.id = b.build_id"
			    " WHERE v.experiment_id = ? AND v.idx = ?"
			    " AND b.domain_xml IS NOT NULL"
			    " ORDER BY b.status = 'ok' DESC, b.boot_no DESC"
			    " LIMIT 1",
			    &st, err);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	ret = store_step_maybe(s, st, &found, err,
			       "cannot read the boots of variant %u of experiment %lld",
			       idx, (long long)exp);
	if (ret)
		goto out;
	if (!found) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "variant %u of experiment %lld has no boot with a domain XML in '%s'",
				 idx, (long long)exp, s->path);
		goto out;
	}
	out->boot_no = store_column_unsigned(st, 0);
	out->status = store_column_strdup(st, 1);
	out->reason = store_column_strdup(st, 2);
	out->host = store_column_strdup(st, 3);
	out->domain_xml = store_column_strdup(st, 4);
	out->workload_text = store_column_strdup(st, 5);
	out->build_id = sqlite3_column_int64(st, 6);
	out->build_key = store_column_strdup(st, 7);
	out->image = store_column_strdup(st, 8);
	out->image_sha256 = store_column_strdup(st, 9);
	out->config_text = store_column_strdup(st, 10);
out:
	sqlite3_finalize(st);
	return ret;
}
