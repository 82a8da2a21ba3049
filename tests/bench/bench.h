#ifndef KB_BENCH_H
#define KB_BENCH_H

/* What the benchmarks of tests/bench/ share. */

#include <stdio.h>
#include <unistd.h>

/* Remove the scratch database @db with its -wal and -shm files. */
static inline void bench_remove_db(const char *db)
{
	char path[256];

	snprintf(path, sizeof(path), "%s-wal", db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", db);
	unlink(path);
	unlink(db);
}

#endif
