/*
 * `why` against a drifting host (issue 24), measured on the performance
 * model at time scale 0 with a drift over the run that goes on into the
 * boots `why` adds (docs/model.md, "drift"), boot noise CV 5%, over
 * KBISECT_BENCH_SEEDS seeds (default 200), in randomised complete blocks
 * (the default order), `why` with its defaults (the baseline against
 * the worst, confirmed in fresh rounds with the baseline: lib/why.h):
 *
 *   null      a 2^4 full design, 3 boots a variant (up to 10), no
 *             effect: `why` names a culprit (an explained answer);
 *   planted   the same with A: y costing 15%: `why` names A alone, or
 *             names an innocent factor;
 *   one       one factor of two levels, 10 boots a variant (up to 20),
 *             no effect, a linear drift of 30% over its 20 boots: `why`
 *             names the factor.
 *
 * for no drift, linear drifts of -10%, +10%, -30% and +30% over the run,
 * a step of -10% half way and an AR(1) drift (phi 0.9, CV 5%).  Then the
 * checks of issue 24 for `why`, each PASS or FAIL: a culprit named in at
 * most 5% of the null runs under every drift and of the one-factor ones;
 * A named alone in at least 90% of the planted runs under ±10% and
 * AR(1), at least 80% under ±30%; exits 1 when one fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_run.h"
#include "analysis.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "store.h"
#include "compare.h"
#include "why.h"

struct drift {
	const char *label;
	const char *yaml; /* the model's drift: mapping, or "" for none */
	double need;      /* planted: A named alone in at least this, % */
};

static const struct drift drifts[] = {
	{ "none", "", 0 },
	{ "linear -10%", "drift: { linear: -0.1 }\n", 90 },
	{ "linear +10%", "drift: { linear: 0.1 }\n", 90 },
	{ "linear -30%", "drift: { linear: -0.3 }\n", 80 },
	{ "linear +30%", "drift: { linear: 0.3 }\n", 80 },
	{ "step -10% at half", "drift: { step: -0.1, at: 0.5 }\n", 0 },
	{ "AR(1) phi 0.9", "drift: { ar1: { phi: 0.9, cv: 0.05 } }\n", 90 },
};
#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

/* The one-factor experiment's drifts: 30% over its 20 boots. */
static const struct drift one_drifts[] = {
	{ "linear -30% over 20", "drift: { linear: -0.3 }\n", 0 },
	{ "linear +30% over 20", "drift: { linear: 0.3 }\n", 0 },
};
#define NONE (sizeof(one_drifts) / sizeof(one_drifts[0]))

struct tally {
	unsigned named;        /* an explained answer */
	unsigned alone;        /* planted: A named alone */
	unsigned innocent;     /* planted: another factor named */
	unsigned reproduces;   /* the regression reproduced */
	unsigned picked;       /* a worst variant picked (not the baseline) */
	unsigned fresh;        /* of those, confirmed in fresh rounds */
	unsigned long added;   /* boots why added */
};

/*
 * One experiment on a model of @d with seed @seed: the 2^4 design (A: y
 * costing 15% when @planted), or with @one the one-factor one; `why` on
 * it; adds to @t.
 */
static int one(struct kb_store *s, const struct drift *d,
	       unsigned long long seed, int planted, int single,
	       struct tally *t, struct kb_err *err)
{
	struct kb_buf mx = KB_BUF_INIT, mo = KB_BUF_INIT;
	struct bench_run r = { 0 };
	struct kb_analysis *a = NULL;
	struct kb_why *w = calloc(1, sizeof(*w));
	size_t i;
	int other = 0, ret;

	/* a seed in the matrix's text too: each seed its own run order */
	if (single)
		kb_buf_addf(&mx,
			    "name: why-one-%llu\n"
			    "workload: { fio: { rw: randread } }\n"
			    "factors: { kconfig: { A: [n, y] } }\n"
			    "repeat: { boots: 10, max_boots: 20 }\n",
			    seed);
	else
		kb_buf_addf(&mx,
			    "name: why-%llu\n"
			    "workload: { fio: { rw: randread } }\n"
			    "factors: { kconfig: { A: [n, y], B: [n, y],"
			    " C: [n, y], D: [n, y] } }\n"
			    "repeat: { boots: 3, max_boots: 10 }\n",
			    seed);
	kb_buf_addf(&mo,
		    "metric: read_iops\nbase: 1000\n"
		    "noise: { boot_cv: 0.05 }\nseed: %llu\n%s",
		    seed, d->yaml);
	if (planted)
		kb_buf_adds(&mo, "effects:\n  - { when: { A: y }, factor: 0.85 }\n");
	if ((ret = bench_run(s, mx.buf, mo.buf, &r, err)))
		goto out;
	a = r.a;
	if ((ret = kb_why_explain(a, -1, -1, w, err)))
		goto out;
	t->reproduces += w->reproduces != 0;
	t->picked += w->answer != KB_WHY_NOTHING_WORSE;
	t->fresh += w->answer != KB_WHY_NOTHING_WORSE &&
		    w->blocks == KB_WHY_BLOCKS_FRESH;
	if (planted && getenv("KBISECT_BENCH_VERBOSE") &&
	    !(w->answer == KB_WHY_EXPLAINED && w->nculprits == 1 &&
	      w->culprits[0].factor == 0)) {
		printf("%s seed %llu: #%u -> #%u %+.1f%% %s, %s, %zu culprits (first %zu), %u rounds\n",
		       d->label, seed, w->good, w->bad, w->total.change_pct,
		       kb_verdict_name(w->total.verdict),
		       kb_why_answer_name(w->answer), w->nculprits,
		       w->nculprits ? w->culprits[0].factor : 99,
		       w->fresh_rounds);
		for (i = 0; i < w->nsets; i++)
			printf("   set n=%zu f0=%zu v%d: %+.1f%% %s / %+.1f%% %s: %s\n",
			       w->sets[i].n, w->sets[i].factors[0],
			       w->sets[i].variant,
			       w->sets[i].from_good.change_pct,
			       kb_verdict_name(w->sets[i].from_good.verdict),
			       w->sets[i].to_bad.change_pct,
			       kb_verdict_name(w->sets[i].to_bad.verdict),
			       kb_why_set_class_name(w->sets[i].cls));
	}
	t->added += w->boots_added;
	if (w->answer == KB_WHY_EXPLAINED) {
		t->named++;
		for (i = 0; i < w->nculprits; i++)
			other |= w->culprits[i].factor != 0;
		t->alone += !other && w->nculprits == 1;
		t->innocent += other;
	}
out:
	free(w);
	bench_run_free(&r);
	kb_buf_release(&mx);
	kb_buf_release(&mo);
	return ret;
}

/* Every seed of one cell in a scratch database of its own. */
static int cell(const char *db, const struct drift *d, unsigned seeds,
		int planted, int single, struct tally *t)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	unsigned k;

	bench_remove_db(db);
	if (kb_store_open(db, NULL, &s, &err)) {
		fprintf(stderr, "bench drift_why: %s\n", err.msg);
		return -1;
	}
	for (k = 1; k <= seeds; k++)
		if (one(s, d, k, planted, single, t, &err)) {
			fprintf(stderr, "bench drift_why: %s\n", err.msg);
			kb_store_close(s);
			return -1;
		}
	kb_store_close(s);
	return 0;
}

int main(void)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned seeds = env ? (unsigned)atoi(env) : 200;
	struct tally null[NDRIFT], plant[NDRIFT], single[NONE];
	char db[64];
	size_t d;
	time_t t0 = time(NULL);
	int ok = 1;

	if (!seeds)
		seeds = 200;
	/* the boots why adds run on the stored model, at this time scale */
	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	memset(null, 0, sizeof(null));
	memset(plant, 0, sizeof(plant));
	memset(single, 0, sizeof(single));
	snprintf(db, sizeof(db), "/tmp/kb-bench-drift-why-%ld.db",
		 (long)getpid());
	for (d = 0; d < NDRIFT; d++)
		if (cell(db, &drifts[d], seeds, 0, 0, &null[d]) ||
		    cell(db, &drifts[d], seeds, 1, 0, &plant[d]))
			return 1;
	for (d = 0; d < NONE; d++)
		if (cell(db, &one_drifts[d], seeds, 0, 1, &single[d]))
			return 1;
	bench_remove_db(db);
	printf("== why under drift: confirmed in fresh rounds with the baseline, CV 5%%, %u seeds, %lds\n",
	       seeds, (long)(time(NULL) - t0));
	printf("%-22s  %-25s  %-36s\n", "", "null 2^4 x 3",
	       "planted A: y 15%");
	printf("%-22s  %9s %8s %6s  %9s %8s %9s %6s\n", "drift over the run",
	       "named", "reprod.", "boots", "A alone", "innoc.", "reprod.",
	       "boots");
	for (d = 0; d < NDRIFT; d++)
		printf("%-22s  %8.1f%% %7.1f%% %6.1f  %8.1f%% %7.1f%% %8.1f%% %6.1f\n",
		       drifts[d].label, bench_pct(null[d].named, seeds),
		       bench_pct(null[d].reproduces, seeds),
		       (double)null[d].added / seeds,
		       bench_pct(plant[d].alone, seeds),
		       bench_pct(plant[d].innocent, seeds),
		       bench_pct(plant[d].reproduces, seeds),
		       (double)plant[d].added / seeds);
	printf("one factor, 10 + 10 boots, null:\n");
	for (d = 0; d < NONE; d++)
		printf("%-22s  %8.1f%% %7.1f%% %6.1f\n", one_drifts[d].label,
		       bench_pct(single[d].named, seeds),
		       bench_pct(single[d].reproduces, seeds),
		       (double)single[d].added / seeds);
	for (d = 0; d < NDRIFT; d++) {
		char what[96];

		if (null[d].fresh != null[d].picked ||
		    plant[d].fresh != plant[d].picked) {
			printf("FAIL  %s: not every why confirmed in fresh rounds\n",
			       drifts[d].label);
			ok = 0;
		}
		snprintf(what, sizeof(what), "null 2^4, %s: a culprit named",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(null[d].named, seeds), 0, 5);
		if (!drifts[d].need)
			continue;
		snprintf(what, sizeof(what), "planted 15%%, %s: A named alone",
			 drifts[d].label);
		ok &= bench_check(what, bench_pct(plant[d].alone, seeds), drifts[d].need,
			    100);
	}
	for (d = 0; d < NONE; d++) {
		char what[96];

		snprintf(what, sizeof(what), "one factor, %s: a culprit named",
			 one_drifts[d].label);
		ok &= bench_check(what, bench_pct(single[d].named, seeds), 0, 5);
	}
	return ok ? 0 : 1;
}
