/*
 * Option bisection against a drifting host (issue 24), on the
 * performance model at time scale 0: one culprit costing 15% among 8
 * options (the rest inert), boot noise CV 5%, group testing (the
 * default), over KBISECT_BENCH_SEEDS seeds (default 200) for each drift
 * of the model over the bisection's boots (docs/model.md, "drift"; a
 * bisection plans no number of boots, so the drift runs over
 * BISECT_OVER boots, about what one takes, and goes on past it): none,
 * linear -30% and +30%, a step of -10% half way, AR(1) phi 0.9 CV 5%.
 *
 * Every probe is booted in rounds beside both ends and the answer
 * confirmed in fresh rounds (lib/bisect.h).  Counted per run:
 *
 *   right     the answer is the culprit alone, called 1-minimal;
 *   innocent  an inert option named as a culprit (in a 1-minimal set);
 *   named     any answer called 1-minimal (else "not minimised");
 *   boots     all boots, ends included, on average.
 *
 * Then the checks of issue 24 for bisection, each PASS or FAIL: under
 * linear -30% and +30%, an innocent named in at most 5% of runs and the
 * answer right in at least 90%; exits 1 when one fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_model.h"

#define BISECT_OVER 120
#define NOPTS 8

struct drift {
	const char *label;
	const char *yaml;
	int checked; /* the figures are for this one */
};

static const struct drift drifts[] = {
	{ "none", NULL, 0 },
	{ "linear -30%", "drift: { linear: -0.3, over: 120 }\n", 1 },
	{ "linear +30%", "drift: { linear: 0.3, over: 120 }\n", 1 },
	{ "step -10% at half", "drift: { step: -0.1, at: 0.5, over: 120 }\n", 0 },
	{ "AR(1) phi 0.9", "drift: { ar1: { phi: 0.9, cv: 0.05 }, over: 120 }\n",
	  0 },
};
#define NDRIFT (sizeof(drifts) / sizeof(drifts[0]))

struct tally {
	unsigned runs, right, innocent, named;
	double boots;
};

static int one(struct kb_store *s, const struct drift *d,
	       unsigned long long seed, struct tally *t)
{
	struct kb_bisect_result *r = NULL;
	struct kb_buf truth = KB_BUF_INIT, got = KB_BUF_INIT;
	unsigned culprit = (unsigned)(seed % NOPTS);
	struct bench_case c;
	size_t i;
	int ret;

	memset(&c, 0, sizeof(c));
	c.n = NOPTS;
	c.digits = 2;
	c.culprit = &culprit;
	c.k = 1;
	c.cv = 0.05;
	c.seed = seed;
	c.factor = 0.85;
	c.extra = d->yaml;
	ret = bench_bisect(s, &c, KB_BISECT_GROUP, &r, &truth, &got);
	if (ret == 0) {
		t->runs++;
		t->boots += r->boots;
		if (r->minimal) {
			t->named++;
			if (!strcmp(truth.buf, got.buf))
				t->right++;
			for (i = 0; i < r->nculprits; i++)
				if (strstr(truth.buf, r->culprits[i].option) ==
				    NULL) {
					t->innocent++;
					break;
				}
		}
	}
	kb_bisect_result_free(r);
	kb_buf_release(&truth);
	kb_buf_release(&got);
	return ret;
}

int main(void)
{
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned nseeds = env ? (unsigned)atoi(env) : 200, k, fails = 0;
	char db[64];
	struct kb_store *s = NULL;
	struct kb_err err = KB_ERR_INIT;
	struct tally t[NDRIFT];
	double t0 = bench_now();
	size_t i;

	if (nseeds < 1)
		nseeds = 1;
	memset(t, 0, sizeof(t));
	snprintf(db, sizeof(db), "/tmp/kbisect-bench-drift-bisect-%d.db",
		 (int)getpid());
	bench_remove_db(db);
	if (kb_store_open(db, NULL, &s, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 1;
	}
	printf("option bisection under drift: one 15%% culprit among %d options, CV 5%%, %u seeds,\n"
	       "probes in rounds beside both ends, the answer confirmed in fresh rounds\n\n",
	       NOPTS, nseeds);
	printf("%-20s %8s %10s %8s %8s\n", "drift", "right", "innocent",
	       "named", "boots");
	for (i = 0; i < NDRIFT; i++) {
		for (k = 0; k < nseeds; k++)
			if (one(s, &drifts[i], 1000 + k, &t[i]))
				goto fail;
		printf("%-20s %7.1f%% %9.1f%% %7.1f%% %8.1f\n", drifts[i].label,
		       bench_pct(t[i].right, t[i].runs),
		       bench_pct(t[i].innocent, t[i].runs),
		       bench_pct(t[i].named, t[i].runs),
		       t[i].runs ? t[i].boots / t[i].runs : NAN);
		fflush(stdout);
	}
	printf("\n");
	for (i = 0; i < NDRIFT; i++) {
		double inn = bench_pct(t[i].innocent, t[i].runs),
		       right = bench_pct(t[i].right, t[i].runs);
		int ok;

		if (!drifts[i].checked)
			continue;
		ok = inn <= 5;
		fails += !ok;
		printf("%s: %s, an innocent named in %.1f%% (at most 5%%)\n",
		       ok ? "PASS" : "FAIL", drifts[i].label, inn);
		ok = right >= 90;
		fails += !ok;
		printf("%s: %s, the culprit alone in %.1f%% (at least 90%%)\n",
		       ok ? "PASS" : "FAIL", drifts[i].label, right);
	}
	printf("(%.0f s)\n", bench_now() - t0);
	kb_store_close(s);
	bench_remove_db(db);
	return fails ? 1 : 0;
fail:
	kb_store_close(s);
	bench_remove_db(db);
	return 1;
}
