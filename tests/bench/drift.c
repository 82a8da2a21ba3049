/*
 * The run order against a drifting host (issue 24), measured on the
 * performance model at time scale 0 with a drift over the run
 * (docs/model.md, "drift"): a 2^4 full design, 3 boots a variant, boot
 * noise CV 5%, over KBISECT_BENCH_SEEDS seeds (default 200), for no
 * drift, a linear drift of -10%, -30% and +30% over the run, a step of
 * -10% half way and an AR(1) drift (phi 0.9, CV 5%); each in the
 * sequential order (variant after variant, kbisect before the blocks)
 * and in randomised complete blocks (the default, lib/order.h):
 *
 *   null     no effect: family-wise false alarms of `effects` (any
 *            effect significant at Holm's level);
 *   planted  A: y costs 15%: found (A significant), an innocent effect
 *            called (any other significant).
 *
 * `effects` fits each round as a block (lib/effects.c), so the drift
 * leaves the variance.  Then the checks of issue 24 for `effects`, each
 * PASS or FAIL: in blocks, under every drift, null false alarms at most
 * 7%, the planted effect found in at least 95% of runs and an innocent
 * one called in at most 7%; and the drift check (kb_analysis_drift())
 * flags a linear drift of -10% in at least 90% of the runs in blocks,
 * a run without drift in at most 5%; exits 1 when one fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_run.h"
#include "analysis.h"
#include "buf.h"
#include "effects.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"

struct drift {
	const char *label;
	const char *yaml; /* the model's drift: mapping, or "" for none */
};

static const struct drift drifts[] = {
	{ "none", "" },
	{ "linear -10%", "drift: { linear: -0.1 }\n" },
	{ "linear -30%", "drift: { linear: -0.3 }\n" },
	{ "linear +30%", "drift: { linear: 0.3 }\n" },
	{ "step -10% at half", "drift: { step: -0.1, at: 0.5 }\n" },
	{ "AR(1) phi 0.9", "drift: { ar1: { phi: 0.9, cv: 0.05 } }\n" },
};
#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

static const char *const orders[] = { "sequential", "blocks" };

struct tally {
	unsigned null_any;        /* null: any effect significant */
	unsigned found;           /* planted: A significant */
	unsigned innocent;        /* planted: another significant */
	unsigned flagged;         /* null: the drift check said a drift */
};


/*
 * One experiment of the 2^4 design in @order on a model of @drift with
 * seed @seed, A: y costing 15% when @planted; adds to @t.
 */
static int one(struct kb_store *s, const char *order, const struct drift *d,
	       unsigned long long seed, int planted, struct tally *t,
	       struct kb_err *err)
{
	struct kb_buf mx = KB_BUF_INIT, mo = KB_BUF_INIT;
	struct bench_run r = { 0 };
	struct kb_analysis *a = NULL;
	struct kb_effect *e = NULL;
	size_t n = 0, i;
	double cv, df;
	int any = 0, hit = 0, other = 0, ret;

	/* a seed in the matrix's text too: each seed its own run order */
	kb_buf_addf(&mx,
		    "name: drift-%llu\n"
		    "workload: { fio: { rw: randread } }\n"
		    "factors: { kconfig: { A: [n, y], B: [n, y], C: [n, y],"
		    " D: [n, y] } }\n"
		    "repeat: { boots: 3, order: %s }\n",
		    seed, order);
	kb_buf_addf(&mo,
		    "metric: read_iops\nbase: 1000\n"
		    "noise: { boot_cv: 0.05 }\nseed: %llu\n%s",
		    seed, d->yaml);
	if (planted)
		kb_buf_adds(&mo, "effects:\n  - { when: { A: y }, factor: 0.85 }\n");
	if ((ret = bench_run(s, mx.buf, mo.buf, &r, err)))
		goto out;
	a = r.a;
	if ((ret = kb_effects_estimate(a, &e, &n, &cv, &df, err)))
		goto out;
	for (i = 0; i < n; i++) {
		int is_a = !e[i].interaction && e[i].f1 == 0;

		any |= e[i].significant;
		hit |= e[i].significant && is_a;
		other |= e[i].significant && !is_a;
	}
	if (planted) {
		t->found += hit;
		t->innocent += other;
	} else {
		struct kb_drift dr;

		t->null_any += any;
		kb_analysis_drift(a, &dr);
		t->flagged += dr.flagged;
	}
out:
	free(e);
	bench_run_free(&r);
	kb_buf_release(&mx);
	kb_buf_release(&mo);
	return ret;
}

int main(void)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned seeds = env ? (unsigned)atoi(env) : 200, k;
	struct tally t[NDRIFT][2];
	struct kb_err err = KB_ERR_INIT;
	char db[64];
	size_t d, o;
	int ok = 1;

	if (!seeds)
		seeds = 200;
	memset(t, 0, sizeof(t));
	snprintf(db, sizeof(db), "/tmp/kb-bench-drift-%ld.db", (long)getpid());
	for (d = 0; d < NDRIFT; d++)
		for (o = 0; o < 2; o++) {
			struct kb_store *s = NULL;

			bench_remove_db(db);
			if (kb_store_open(db, NULL, &s, &err)) {
				fprintf(stderr, "bench drift: %s\n", err.msg);
				return 1;
			}
			for (k = 1; k <= seeds; k++)
				if (one(s, orders[o], &drifts[d], k, 0,
					&t[d][o], &err) ||
				    one(s, orders[o], &drifts[d], k, 1,
					&t[d][o], &err)) {
					fprintf(stderr, "bench drift: %s\n",
						err.msg);
					return 1;
				}
			kb_store_close(s);
		}
	bench_remove_db(db);
	printf("== the run order under drift: 2^4 x 3 boots, CV 5%%, %u seeds, effects at Holm's level\n",
	       seeds);
	printf("%-20s  %-26s  %-30s  %s\n", "", "null: false alarms",
	       "planted 15%: found / innocent", "drift check flags");
	printf("%-20s  %12s %13s  %14s %15s  %10s\n", "drift over the run",
	       "sequential", "blocks", "sequential", "blocks", "blocks");
	for (d = 0; d < NDRIFT; d++)
		printf("%-20s  %11.1f%% %12.1f%%  %5.1f / %5.1f%% %5.1f / %5.1f%%  %9.1f%%\n",
		       drifts[d].label, bench_pct(t[d][0].null_any, seeds),
		       bench_pct(t[d][1].null_any, seeds), bench_pct(t[d][0].found, seeds),
		       bench_pct(t[d][0].innocent, seeds), bench_pct(t[d][1].found, seeds),
		       bench_pct(t[d][1].innocent, seeds), bench_pct(t[d][1].flagged, seeds));
	for (d = 0; d < NDRIFT; d++) {
		char what[96];

		snprintf(what, sizeof(what),
			 "blocks, %s: null false alarms", drifts[d].label);
		ok &= bench_check(what, bench_pct(t[d][1].null_any, seeds), 0, 7);
		snprintf(what, sizeof(what),
			 "blocks, %s: the planted effect found",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(t[d][1].found, seeds), 95, 100);
		snprintf(what, sizeof(what),
			 "blocks, %s: an innocent effect called",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(t[d][1].innocent, seeds), 0, 7);
	}
	/* the drift check: drifts[0] is none, drifts[1] linear -10% */
	ok &= bench_check("drift check, blocks, no drift: flagged",
		    bench_pct(t[0][1].flagged, seeds), 0, 5);
	ok &= bench_check("drift check, blocks, linear -10%: flagged",
		    bench_pct(t[1][1].flagged, seeds), 90, 100);
	return ok ? 0 : 1;
}
