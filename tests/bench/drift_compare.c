/*
 * `compare` against a drifting host (issue 24), measured on the
 * performance model at time scale 0 (docs/model.md, "drift"): two
 * variants (A: n, y), boot noise CV 5%, over KBISECT_BENCH_SEEDS seeds
 * (default 200), for no drift, a linear drift of -30% over the run and
 * an AR(1) drift (phi 0.9, CV 5%), every experiment in randomised
 * complete blocks (the default, lib/order.h):
 *
 *   compare     5 boots a side: false alarms (any verdict but no-change
 *               or inconclusive on a null model) and power (a regression
 *               at a planted 15% loss), paired within rounds as
 *               `compare` does, and unpaired (kb_compare_samples() on
 *               the same boots) beside it;
 *   adaptive    `compare --adaptive` from 3 boots a side up to 10
 *               (kb_analysis_compare() with adaptive sampling, as
 *               cmd/kbisect/compare.c drives it): power at a planted 10%
 *               loss and the boots a variant it took, and on a null
 *               model the false alarms, the boots a variant (the
 *               futility and equivalence stops at work) and how often it
 *               stopped for futility.  The drift spans the most boots
 *               it can take (drift.over: 20).
 *
 * Then the checks of issue 24, each PASS or FAIL: under linear -30% and
 * AR(1), compare's false alarms at most 6% and its power at least 95%;
 * without drift, --adaptive's power at least 95% with at most 6 boots a
 * variant on average, and its false alarms at most 6%; exits 1 when one
 * fails.
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
	const char *yaml; /* the model's drift, or "" for none */
};

static const struct drift drifts[] = {
	{ "none", "" },
	{ "linear -30%", "drift: { linear: -0.3, over: %u }\n" },
	{ "AR(1) phi 0.9", "drift: { ar1: { phi: 0.9, cv: 0.05 } }\n" },
};
#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

struct tally {
	unsigned null_alarm, power;          /* compare, paired */
	unsigned u_null_alarm, u_power;      /* the same boots unpaired */
	unsigned paired;                     /* compare runs that paired */
	unsigned ad_power, ad_null_alarm;    /* --adaptive */
	unsigned ad_futile, ad_equiv;        /* null stops */
	double ad_boots_eff, ad_boots_null;  /* boots a variant, summed */
};

static int called(enum kb_verdict v)
{
	return v == KB_VERDICT_REGRESSION || v == KB_VERDICT_IMPROVEMENT;
}

/*
 * One experiment on a model of @d with seed @seed: @boots boots a side
 * (up to @max with --adaptive when @max > @boots), A: y costing @loss
 * (a factor, 1 for none); adds to @t.
 */
static int one(struct kb_store *s, const struct drift *d,
	       unsigned long long seed, unsigned boots, unsigned max,
	       double loss, struct tally *t, struct kb_err *err)
{
	struct kb_buf mx = KB_BUF_INIT, mo = KB_BUF_INIT;
	struct bench_run r;
	struct kb_comparison c, u;
	const double *va, *vb;
	size_t na, nb;
	int adaptive = max > boots, ret;

	memset(&r, 0, sizeof(r));
	kb_buf_addf(&mx,
		    "name: drift-compare-%llu\n"
		    "workload: { fio: { rw: randread } }\n"
		    "factors: { kconfig: { A: [n, y] } }\n"
		    "repeat: { boots: %u, max_boots: %u }\n",
		    seed, boots, max > boots ? max : boots);
	kb_buf_addf(&mo,
		    "metric: read_iops\nbase: 1000\n"
		    "noise: { boot_cv: 0.05 }\nseed: %llu\n",
		    seed);
	kb_buf_addf(&mo, d->yaml, 2 * (max > boots ? max : boots));
	if (loss != 1)
		kb_buf_addf(&mo,
			    "effects:\n  - { when: { A: y }, factor: %g }\n",
			    loss);
	if ((ret = bench_run(s, mx.buf, mo.buf, &r, err)) ||
	    (ret = kb_analysis_compare(r.a, 0, 1, adaptive, &c, err)))
		goto out;
	va = kb_analysis_values(r.a, 0, &na);
	vb = kb_analysis_values(r.a, 1, &nb);
	if (!adaptive) {
		kb_compare_samples(va, na, vb, nb, kb_analysis_opts(r.a), &u);
		t->paired += c.test != KB_COMPARE_MANN_WHITNEY;
		if (loss == 1) {
			t->null_alarm += called(c.verdict);
			t->u_null_alarm += called(u.verdict);
		} else {
			t->power += c.verdict == KB_VERDICT_REGRESSION;
			t->u_power += u.verdict == KB_VERDICT_REGRESSION;
		}
	} else if (loss == 1) {
		t->ad_null_alarm += called(c.verdict);
		t->ad_futile += c.futile;
		t->ad_equiv += c.verdict == KB_VERDICT_NO_CHANGE;
		t->ad_boots_null += (double)(na + nb) / 2;
	} else {
		t->ad_power += c.verdict == KB_VERDICT_REGRESSION;
		t->ad_boots_eff += (double)(na + nb) / 2;
	}
out:
	bench_run_free(&r);
	kb_buf_release(&mx);
	kb_buf_release(&mo);
	return ret;
}

int main(void)
{
	unsigned seeds = bench_seeds(200), k;
	struct tally t[NDRIFT];
	struct kb_err err = KB_ERR_INIT;
	char db[64];
	size_t d;
	int ok = 1;

	memset(t, 0, sizeof(t));
	snprintf(db, sizeof(db), "/tmp/kb-bench-drift-compare-%ld.db",
		 (long)getpid());
	for (d = 0; d < NDRIFT; d++) {
		struct kb_store *s = NULL;

		bench_remove_db(db);
		if (kb_store_open(db, NULL, &s, &err)) {
			fprintf(stderr, "bench drift_compare: %s\n", err.msg);
			return 1;
		}
		for (k = 1; k <= seeds; k++)
			if (one(s, &drifts[d], k, 5, 5, 1, &t[d], &err) ||
			    one(s, &drifts[d], k, 5, 5, 0.85, &t[d], &err) ||
			    one(s, &drifts[d], k, 3, 10, 1, &t[d], &err) ||
			    one(s, &drifts[d], k, 3, 10, 0.90, &t[d], &err)) {
				fprintf(stderr, "bench drift_compare: %s\n",
					err.msg);
				return 1;
			}
		kb_store_close(s);
	}
	bench_remove_db(db);
	printf("== compare under drift: A against B in blocks, CV 5%%, %u seeds, alpha 0.05, threshold 5%%\n",
	       seeds);
	printf("%-14s  %-28s  %-28s  %s\n", "",
	       "compare 5 a side: paired", "unpaired (same boots)",
	       "--adaptive 3 to 10: 10% loss | null");
	printf("%-14s  %8s %9s %8s  %13s %13s  %6s %11s  %6s %6s %6s %6s\n",
	       "drift", "paired", "alarms", "power", "alarms", "power",
	       "power", "boots/var", "alarms", "boots", "futile", "equiv");
	for (d = 0; d < NDRIFT; d++)
		printf("%-14s  %7.1f%% %8.1f%% %7.1f%%  %12.1f%% %12.1f%%  %5.1f%% %11.2f  %5.1f%% %6.2f %5.1f%% %5.1f%%\n",
		       drifts[d].label, bench_pct(t[d].paired, 2 * seeds),
		       bench_pct(t[d].null_alarm, seeds), bench_pct(t[d].power, seeds),
		       bench_pct(t[d].u_null_alarm, seeds), bench_pct(t[d].u_power, seeds),
		       bench_pct(t[d].ad_power, seeds), t[d].ad_boots_eff / seeds,
		       bench_pct(t[d].ad_null_alarm, seeds),
		       t[d].ad_boots_null / seeds, bench_pct(t[d].ad_futile, seeds),
		       bench_pct(t[d].ad_equiv, seeds));
	for (d = 1; d < NDRIFT; d++) {
		char what[96];

		snprintf(what, sizeof(what), "compare, %s: false alarms",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(t[d].null_alarm, seeds), 0, 6);
		snprintf(what, sizeof(what), "compare, %s: power at 15%%",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(t[d].power, seeds), 95, 100);
	}
	/* issue 24 asks these of --adaptive at CV 5% without a drift;
	 * under drift the table above says what they are (docs/analysis.md,
	 * "Compare: pairs within rounds": at the edge under AR(1)) */
	ok &= bench_check("compare --adaptive, no drift: power at 10%",
			  bench_pct(t[0].ad_power, seeds), 95, 100);
	ok &= bench_check_value("compare --adaptive, no drift: boots a variant at 10%",
				t[0].ad_boots_eff / seeds, 0, 6);
	ok &= bench_check("compare --adaptive, no drift: false alarms",
			  bench_pct(t[0].ad_null_alarm, seeds), 0, 6);
	return ok ? 0 : 1;
}
