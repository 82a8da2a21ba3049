/*
 * Trend benchmark: does `kbisect trend` find a step where it is, and
 * nothing in a flat series?  (lib/trend.h, issue 14.)
 *
 *   1. Through the store: series of 30 experiments of one matrix name,
 *      each a `kbisect run` on the performance model at time scale 0
 *      (no factors, 3 boots; the model's boot-to-boot noise CV 3%, its
 *      seed different for each experiment), read back with
 *      kb_trend_series_load() and searched with the defaults (199
 *      permutations, p <= 0.01, seed 1):
 *        - a step of 8% (up for even seeds, down for odd ones) planted
 *          at experiment 15: right when a change point is reported at
 *          index 15 exactly (14 or 16 is wrong);
 *        - flat series: right when no change point is reported.
 *      KBISECT_BENCH_SEEDS series of each (default 40).  Exits 1 when
 *      either is right in fewer than 95% of them.
 *   2. For information, series drawn directly (no store, 400 seeds,
 *      not checked): the step anywhere from 5 to 25; one boot per
 *      experiment, so that the points carry the full 3%; the flat
 *      series' false alarms at p <= 0.05.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "rng.h"
#include "store.h"
#include "trend.h"

#define POINTS 30
#define STEP_AT 15
#define STEP 0.08
#define CV 0.03
#define BOOTS 3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const struct kb_err *err)
{
	fprintf(stderr, "bench trend: %s: %s\n", what, err->msg);
	exit(1);
}

/* One `kbisect run` of matrix @name at @base on the model, seeded @seed. */
static void run_one(struct kb_store *s, const char *name, double base,
		    uint64_t seed)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *mo = NULL;
	struct kb_executor *ex = NULL;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	char *matrix = kb_asprintf(
		"name: %s\n"
		"workload:\n"
		"  command: { run: bench, regex: '([0-9.]+) ops/s' }\n"
		"  metric: ops_per_s\n"
		"repeat: { boots: %d }\n",
		name, BOOTS);
	char *model = kb_asprintf("metric: ops_per_s\nbase: %.17g\n"
				  "noise: { boot_cv: %g }\nseed: %llu\n",
				  base, CV, (unsigned long long)seed);
	int64_t exp;

	if (kb_matrix_parse_buffer(matrix, strlen(matrix), "bench.yaml", &m,
				   &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(model, strlen(model), "bench.model.yaml",
				  &mo, &err))
		die("set-up", &err);
	if (kb_model_executor_new(mo, 0, &ex) ||
	    kb_pipeline_run(s, p, ex, &o, &exp, &err))
		die("run", &err);
	kb_executor_free(ex);
	kb_model_free(mo);
	kb_plan_free(p);
	kb_matrix_free(m);
	free(matrix);
	free(model);
}

/* The change points of series @name in @s, with the defaults. */
static void changes_of(struct kb_store *s, const char *name,
		       struct kb_trend_change **c, size_t *nc)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_trend_series *t = NULL;
	double *x;

	if (kb_trend_series_load(s, name, NULL, &t, &err))
		die("series", &err);
	if (t->n != POINTS) {
		fprintf(stderr, "bench trend: series '%s' has %zu points, not %d\n",
			name, t->n, POINTS);
		exit(1);
	}
	x = kb_trend_series_values(t);
	if (kb_trend_changes(x, t->n, NULL, c, nc, &err))
		die("changes", &err);
	free(x);
	kb_trend_series_free(t);
}

static int has_index(const struct kb_trend_change *c, size_t nc, size_t at,
		     size_t slack)
{
	size_t i;

	for (i = 0; i < nc; i++)
		if (c[i].index + slack >= at && c[i].index <= at + slack)
			return 1;
	return 0;
}


/* Part 1: through the store.  Returns 1 when a target is missed. */
static int through_the_store(unsigned nseeds)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_trend_change *c;
	char dir[] = "/tmp/kb-bench-trend-XXXXXX", db[128], name[64];
	unsigned seed, k, exact = 0, near = 0, extra = 0, quiet = 0;
	unsigned wrong_at[POINTS] = { 0 };
	size_t nc, i;
	double t0 = now_s(), f;
	int bad = 0;

	if (!mkdtemp(dir)) {
		perror("bench trend: mkdtemp");
		exit(1);
	}
	snprintf(db, sizeof(db), "%s/t.db", dir);
	if (kb_store_open(db, NULL, &s, &err))
		die("store", &err);
	for (seed = 1; seed <= nseeds; seed++) {
		f = seed % 2 ? 1 - STEP : 1 + STEP;
		snprintf(name, sizeof(name), "step-%u", seed);
		for (k = 0; k < POINTS; k++)
			run_one(s, name, k < STEP_AT ? 1000 : 1000 * f,
				1000ull * seed + k);
		snprintf(name, sizeof(name), "flat-%u", seed);
		for (k = 0; k < POINTS; k++)
			run_one(s, name, 1000, 500000ull + 1000ull * seed + k);
	}
	for (seed = 1; seed <= nseeds; seed++) {
		snprintf(name, sizeof(name), "step-%u", seed);
		changes_of(s, name, &c, &nc);
		exact += has_index(c, nc, STEP_AT, 0);
		near += has_index(c, nc, STEP_AT, 1);
		extra += nc > 1;
		if (!has_index(c, nc, STEP_AT, 0))
			for (i = 0; i < nc; i++)
				wrong_at[c[i].index]++;
		free(c);
		snprintf(name, sizeof(name), "flat-%u", seed);
		changes_of(s, name, &c, &nc);
		quiet += nc == 0;
		free(c);
	}
	kb_store_close(s);
	bench_remove_db(db);
	rmdir(dir);

	printf("1. through the store: %u series of %d experiments each way, %d boots an experiment,\n"
	       "   model noise CV %.0f%% a boot (%.1f%% a point), %u experiments in %.1f s\n",
	       nseeds, POINTS, BOOTS, 100 * CV, 100 * CV / sqrt(BOOTS),
	       2 * nseeds * POINTS, now_s() - t0);
	printf("   step of %.0f%% at %d: found at exactly %d in %u/%u (%.1f%%), within 1 in %u/%u,"
	       " with another change point too in %u\n",
	       100 * STEP, STEP_AT, STEP_AT, exact, nseeds,
	       100.0 * exact / nseeds, near, nseeds, extra);
	for (i = 0; i < POINTS; i++)
		if (wrong_at[i])
			printf("     missed: a change reported at %zu in %u series\n",
			       i, wrong_at[i]);
	printf("   flat: no change point in %u/%u (%.1f%%)\n", quiet, nseeds,
	       100.0 * quiet / nseeds);
	if (exact * 100 < 95 * nseeds) {
		printf("   MISSED: the step at its exact index in fewer than 95%% of the series\n");
		bad = 1;
	}
	if (quiet * 100 < 95 * nseeds) {
		printf("   MISSED: no change point in fewer than 95%% of the flat series\n");
		bad = 1;
	}
	return bad;
}

/* A point: the mean of @boots log-normal boots of median @level. */
static double point(struct kb_rng *r, double level, unsigned boots)
{
	double s = sqrt(log1p(CV * CV)), sum = 0;
	unsigned b;

	for (b = 0; b < boots; b++)
		sum += level * exp(-s * s / 2 + s * kb_rng_normal(r));
	return sum / boots;
}

/* Part 2, one row: 400 series drawn directly. */
static void drawn(const char *what, unsigned boots, int vary, int flat,
		  double max_p)
{
	struct kb_trend_opts o = KB_TREND_OPTS_INIT;
	struct kb_trend_change *c;
	struct kb_err err = KB_ERR_INIT;
	struct kb_rng r;
	double x[POINTS];
	unsigned seed, exact = 0, near = 0, none = 0, n = 400;
	size_t at, k, nc;

	o.max_p = max_p;
	for (seed = 1; seed <= n; seed++) {
		kb_rng_init(&r, kb_rng_seed_from(77, what, seed, 0));
		at = vary ? 5 + seed % 21 : STEP_AT;
		for (k = 0; k < POINTS; k++)
			x[k] = point(&r,
				     flat || k < at ? 1000
						    : 1000 * (seed % 2 ? 1 - STEP
								       : 1 + STEP),
				     boots);
		if (kb_trend_changes(x, POINTS, &o, &c, &nc, &err))
			die("changes", &err);
		exact += has_index(c, nc, at, 0);
		near += has_index(c, nc, at, 1);
		none += nc == 0;
		free(c);
	}
	if (flat)
		printf("   %-44s no change point in %.1f%%\n", what,
		       100.0 * none / n);
	else
		printf("   %-44s exact %.1f%%, within 1 %.1f%%\n", what,
		       100.0 * exact / n, 100.0 * near / n);
}

int main(void)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned nseeds = env && *env ? (unsigned)strtoul(env, NULL, 10) : 40;
	int bad;

	if (nseeds < 1)
		nseeds = 1;
	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	printf("== trend: change points by E-Divisive means (199 permutations, p <= 0.01)\n");
	bad = through_the_store(nseeds);
	printf("2. drawn directly, 400 series each (information, not checked):\n");
	drawn("step at 15, 3 boots (as above)", BOOTS, 0, 0, 0.01);
	drawn("step anywhere from 5 to 25, 3 boots", BOOTS, 1, 0, 0.01);
	drawn("step at 15, 1 boot (3% a point)", 1, 0, 0, 0.01);
	drawn("step anywhere from 5 to 25, 1 boot", 1, 1, 0, 0.01);
	drawn("flat, 3 boots, p <= 0.01", BOOTS, 0, 1, 0.01);
	drawn("flat, 3 boots, p <= 0.05", BOOTS, 0, 1, 0.05);
	printf("%s\n", bad ? "trend: a target was missed" : "trend: targets met");
	return bad;
}
