#ifndef KB_BENCH_H
#define KB_BENCH_H

/* What the benchmarks of tests/bench/ share. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* @k of @n in percent; NaN when @n is 0. */
static inline double bench_pct(unsigned k, unsigned n)
{
	return n ? 100.0 * k / n : NAN;
}

/* Print "PASS  what: got% (lo% to hi%)" or FAIL; 1 when it passed. */
static inline int bench_check(const char *what, double got, double lo,
			      double hi)
{
	int ok = got >= lo && got <= hi;

	printf("%s  %s: %.1f%% (%.0f%% to %.0f%%)\n", ok ? "PASS" : "FAIL",
	       what, got, lo, hi);
	return ok;
}

/* bench_check() of a value that is no percentage: "got (lo to hi)". */
static inline int bench_check_value(const char *what, double got, double lo,
				    double hi)
{
	int ok = got >= lo && got <= hi;

	printf("%s  %s: %.2f (%g to %g)\n", ok ? "PASS" : "FAIL", what, got,
	       lo, hi);
	return ok;
}

/* The seeds a bench runs: KBISECT_BENCH_SEEDS, else @dflt; at least 1. */
static inline unsigned bench_seeds(unsigned dflt)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	int n = env ? atoi(env) : (int)dflt;

	return n > 0 ? (unsigned)n : 1;
}

#endif
