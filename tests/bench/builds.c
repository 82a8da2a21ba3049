/*
 * Build benchmark: what the end-to-end build test (tests/e2e/builds.sh)
 * measured, read back from its database.  For its 2x2 matrix: builds done
 * against variants, and per build its wall time and units compiled,
 * against the first, full build.
 *
 *   KBISECT_BENCH_DB      database (default build/e2e/builds/kbisect.db)
 *   KBISECT_BENCH_MATRIX  matrix name (default e2e-builds)
 *
 * Without that database (make e2e not run) it says so and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "store.h"

int main(void)
{
	const char *db = getenv("KBISECT_BENCH_DB");
	const char *name = getenv("KBISECT_BENCH_MATRIX");
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_store_build_row *rows = NULL;
	const struct kb_store_build_row *full = NULL;
	struct stat st;
	size_t n = 0, i;
	unsigned nvariants = 0;
	double total = 0;
	int ret = 0;

	if (!db || !*db)
		db = "build/e2e/builds/kbisect.db";
	if (!name || !*name)
		name = "e2e-builds";
	printf("== builds: matrix '%s' in %s\n", name, db);
	if (stat(db, &st) < 0) {
		printf("no database: run `make e2e` first (tests/e2e/builds.sh)\n");
		return 0;
	}
	if (kb_store_open(db, NULL, &s, &err) ||
	    kb_store_build_rows(s, name, &rows, &n, &nvariants, &err)) {
		fprintf(stderr, "bench builds: %s\n", err.msg);
		ret = 1;
		goto out;
	}
	if (n == 0) {
		printf("no builds of '%s' recorded: run `make e2e` first\n",
		       name);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (rows[i].full_build == 1 && !full)
			full = &rows[i];
	if (!full)
		full = &rows[0];
	printf("%zu build%s done for %u variant%s\n\n", n, n == 1 ? "" : "s",
	       nvariants, nvariants == 1 ? "" : "s");
	printf("%-5s  %-7s  %9s  %6s  %8s  %8s  %s\n", "order", "status",
	       "wall", "units", "time/full", "units/full", "variants");
	for (i = 0; i < n; i++) {
		const struct kb_store_build_row *r = &rows[i];
		char units[24] = "?", upct[24] = "?";

		if (r->units_compiled >= 0) {
			snprintf(units, sizeof(units), "%ld", r->units_compiled);
			if (full->units_compiled > 0)
				snprintf(upct, sizeof(upct), "%.1f%%",
					 100.0 * (double)r->units_compiled /
						 (double)full->units_compiled);
		}
		printf("%-5zu  %-7s  %7.1f s  %6s  %8.1f%%  %8s  %s%s\n",
		       i + 1, r->status, r->duration_s, units,
		       full->duration_s > 0
			       ? 100.0 * r->duration_s / full->duration_s
			       : 0.0,
		       upct, r->label ? r->label : r->build_key,
		       r == full ? " (full build)" : "");
		total += r->duration_s;
	}
	printf("\ntotal %.1f s; %zu full builds would take about %.1f s\n",
	       total, n, (double)n * full->duration_s);
out:
	for (i = 0; i < n; i++)
		kb_store_build_row_release(&rows[i]);
	free(rows);
	kb_store_close(s);
	return ret;
}
