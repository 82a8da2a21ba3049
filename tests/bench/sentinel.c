/*
 * The sentinel (repeat.sentinel, issue 24): the baseline's kernel booted
 * again in every round, whose comparison with the baseline is the
 * experiment's own A/A.  Measured on the performance model at time
 * scale 0 (boot noise CV 5%) over KBISECT_BENCH_SEEDS seeds (default
 * 200), for no drift, a linear drift of -30% over the run and an AR(1)
 * drift (phi 0.9, CV 5%), in randomised complete blocks (the default)
 * and in the sequential order, on two experiments:
 *
 *   A/A      no factors: the baseline and the sentinel, 8 boots each
 *            (docs/analysis.md, "A/A: the sentinel");
 *   2^3      a full design of three factors, no effect, 4 boots a
 *            variant, and the sentinel.
 *
 * Per case: how often the sentinel differs from the baseline (the rank
 * test's p below compare.alpha, 0.05: what `results` warns of), how
 * often it is called different (a regression or an improvement, the
 * verdict `compare` would give it), and how often the drift check flags
 * the run.  Then the checks of issue 24, each PASS or FAIL: in blocks,
 * without drift and under the linear -30% drift, the sentinel is called
 * different in at most 6% of runs of either experiment; exits 1 when one
 * fails.  The rate at which it merely differs is printed beside: over
 * 200 seeds its binomial spread is about 1.5 points either way.
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
#include "compare.h"
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
	{ "linear -30%", "drift: { linear: -0.3 }\n" },
	{ "AR(1) phi 0.9", "drift: { ar1: { phi: 0.9, cv: 0.05 } }\n" },
};
#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

static const char *const orders[] = { "blocks", "sequential" };

struct design {
	const char *label;
	const char *factors; /* the matrix's factors line, or "" */
	unsigned boots;
};

static const struct design designs[] = {
	{ "A/A, 8 boots", "", 8 },
	{ "2^3 x 4 boots", "factors: { kconfig: { A: [n, y], B: [n, y],"
			   " C: [n, y] } }\n", 4 },
};
#define NDESIGN (sizeof(designs) / sizeof(designs[0]))

struct tally {
	unsigned differs; /* p < alpha */
	unsigned called;  /* a regression or an improvement */
	unsigned flagged; /* the drift check said a drift */
};

/* One experiment of @des in @order on a model of @d with seed @seed;
 * adds to @t. */
static int one(struct kb_store *s, const struct design *des,
	       const char *order, const struct drift *d,
	       unsigned long long seed, struct tally *t, struct kb_err *err)
{
	struct kb_buf mx = KB_BUF_INIT, mo = KB_BUF_INIT;
	struct bench_run r = { 0 };
	struct kb_analysis *a = NULL;
	struct kb_comparison c;
	struct kb_drift dr;
	int sent, ret;

	/* a seed in the matrix's text too: each seed its own run order */
	kb_buf_addf(&mx,
		    "name: sentinel-%llu\n"
		    "workload: { fio: { rw: randread } }\n"
		    "%s"
		    "repeat: { boots: %u, order: %s, sentinel: true }\n",
		    seed, des->factors, des->boots, order);
	kb_buf_addf(&mo,
		    "metric: read_iops\nbase: 1000\n"
		    "noise: { boot_cv: 0.05 }\nseed: %llu\n%s",
		    seed, d->yaml);
	if ((ret = bench_run(s, mx.buf, mo.buf, &r, err)))
		goto out;
	a = r.a;
	kb_analysis_no_sampling(a);
	sent = kb_plan_sentinel(kb_analysis_plan(a));
	if (sent < 0) {
		ret = kb_err_set(err, KB_EFAIL, "the plan has no sentinel");
		goto out;
	}
	/* as `results` compares them: the experiment's metric, its
	 * options, no boots added */
	if ((ret = kb_analysis_compare(a, 0, (unsigned)sent, 0, &c, err)))
		goto out;
	t->differs += c.p < c.alpha;
	t->called += c.verdict == KB_VERDICT_REGRESSION ||
		     c.verdict == KB_VERDICT_IMPROVEMENT;
	kb_analysis_drift(a, &dr);
	t->flagged += dr.flagged;
out:
	bench_run_free(&r);
	kb_buf_release(&mx);
	kb_buf_release(&mo);
	return ret;
}

int main(void)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned seeds = env ? (unsigned)atoi(env) : 200, k;
	struct tally t[NDESIGN][NDRIFT][2];
	struct kb_err err = KB_ERR_INIT;
	char db[64];
	size_t g, d, o;
	int ok = 1;

	if (!seeds)
		seeds = 200;
	memset(t, 0, sizeof(t));
	snprintf(db, sizeof(db), "/tmp/kb-bench-sentinel-%ld.db",
		 (long)getpid());
	for (g = 0; g < NDESIGN; g++)
		for (d = 0; d < NDRIFT; d++)
			for (o = 0; o < 2; o++) {
				struct kb_store *s = NULL;

				bench_remove_db(db);
				if (kb_store_open(db, NULL, &s, &err)) {
					fprintf(stderr, "bench sentinel: %s\n",
						err.msg);
					return 1;
				}
				for (k = 1; k <= seeds; k++)
					if (one(s, &designs[g], orders[o],
						&drifts[d], k, &t[g][d][o],
						&err)) {
						fprintf(stderr,
							"bench sentinel: %s\n",
							err.msg);
						return 1;
					}
				kb_store_close(s);
			}
	bench_remove_db(db);
	printf("== the sentinel against the baseline: CV 5%%, %u seeds, alpha 0.05, threshold 5%%\n",
	       seeds);
	printf("%-14s %-14s  %-24s  %-24s  %s\n", "", "",
	       "differs (p < alpha)", "called (verdict)",
	       "drift check flags");
	printf("%-14s %-14s  %11s %12s  %11s %12s  %11s %12s\n", "experiment",
	       "drift", "blocks", "sequential", "blocks", "sequential",
	       "blocks", "sequential");
	for (g = 0; g < NDESIGN; g++)
		for (d = 0; d < NDRIFT; d++)
			printf("%-14s %-14s  %10.1f%% %11.1f%%  %10.1f%% %11.1f%%  %10.1f%% %11.1f%%\n",
			       designs[g].label, drifts[d].label,
			       bench_pct(t[g][d][0].differs, seeds),
			       bench_pct(t[g][d][1].differs, seeds),
			       bench_pct(t[g][d][0].called, seeds),
			       bench_pct(t[g][d][1].called, seeds),
			       bench_pct(t[g][d][0].flagged, seeds),
			       bench_pct(t[g][d][1].flagged, seeds));
	/* drifts[0] is none, drifts[1] linear -30% */
	for (g = 0; g < NDESIGN; g++)
		for (d = 0; d < 2; d++) {
			char what[96];

			snprintf(what, sizeof(what),
				 "blocks, %s, drift %s: the sentinel called different",
				 designs[g].label, drifts[d].label);
			ok &= bench_check(what, bench_pct(t[g][d][0].called, seeds), 0,
				    6);
		}
	return ok ? 0 : 1;
}
