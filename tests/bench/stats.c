/*
 * The statistics behind kbisect's verdicts, measured by simulation on
 * log-normal per-boot values (the performance model's noise), without the
 * store or the model: how often each method is wrong when the truth is
 * known.
 *
 *   1. coverage of the interval of the change (kb_stats_log_ratio_ci(),
 *      95%) at n = 3..10 boots a side, noise CV 2, 5 and 10%, true change
 *      0 and +8%; beside it the percentile bootstrap kbisect used before;
 *   2. the level of the exact Mann-Whitney test with ties (values rounded
 *      so that ties are common): the share of p < 0.05 under no change;
 *   3. false alarms of adaptive sampling under no change: one boot more a
 *      side after each inconclusive look from 3 to repeat.max_boots = 10,
 *      every look at alpha (what kbisect did) against Pocock's boundary
 *      (kb_compare_look_alpha()); threshold 5% and 0%;
 *   4. false "no-change" when the true change is the threshold (5%), and
 *      how often "no-change" is reached when there is no change.
 *
 * KBISECT_BENCH_REPS sets the simulated experiments per cell (default
 * 4000).  Exits 1 when a target of issue 11 is missed: coverage at n = 5
 * in 92..98% for every noise level, the tied test's level at most 5.5%,
 * adaptive false alarms with the boundary at most alpha + 1 point.  The
 * targets are checked with 1000 experiments a cell or more; fewer are too
 * noisy to hold them to (the standard error is 0.7 points at 1000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare.h"
#include "rng.h"
#include "stats.h"

#define NMAX 10
#define ALPHA 0.05

static unsigned reps = 4000;

/* @n log-normal values with median @median and coefficient of variation
 * @cv (mean 1 for median 1, as the model draws them). */
static void draw(struct kb_rng *r, double *x, size_t n, double median,
		 double cv)
{
	double s = sqrt(log1p(cv * cv));
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = median * exp(-s * s / 2 + s * kb_rng_normal(r));
}

static int coverage(void)
{
	static const double cvs[] = { 0.02, 0.05, 0.10 };
	static const double changes[] = { 0, 8 };
	double a[NMAX], b[NMAX];
	int bad = 0;
	size_t c, d, n;

	printf("1. coverage of the 95%% interval of the change (%u experiments a cell)\n",
	       reps);
	printf("%6s %7s %s\n", "noise", "change", "  n=3    4    5    6    7    8    9   10   | bootstrap n=3, 5, 10");
	for (c = 0; c < 3; c++) {
		for (d = 0; d < 2; d++) {
			struct kb_rng r;

			kb_rng_init(&r, 1000 + c * 10 + d);
			printf("%5.0f%% %+6.0f%%  ", cvs[c] * 100, changes[d]);
			for (n = 3; n <= NMAX; n++) {
				unsigned i, hit = 0;
				double cov;

				for (i = 0; i < reps; i++) {
					double lo, hi;

					draw(&r, a, n, 1, cvs[c]);
					draw(&r, b, n, 1 + changes[d] / 100,
					     cvs[c]);
					kb_stats_log_ratio_ci(a, n, b, n, 0.95,
							      &lo, &hi);
					hit += lo <= changes[d] &&
					       changes[d] <= hi;
				}
				cov = (double)hit / reps;
				printf("%5.1f", cov * 100);
				if (n == 5 && (cov < 0.92 || cov > 0.98))
					bad = 1;
			}
			printf("   |");
			for (n = 3; n <= NMAX; n += n == 3 ? 2 : 5) {
				unsigned i, hit = 0, nb = reps / 8;

				for (i = 0; i < nb; i++) {
					double lo, hi;

					draw(&r, a, n, 1, cvs[c]);
					draw(&r, b, n, 1 + changes[d] / 100,
					     cvs[c]);
					kb_stats_bootstrap_change(a, n, b, n,
								  2000, i, 0.95,
								  &lo, &hi);
					hit += lo <= changes[d] &&
					       changes[d] <= hi;
				}
				printf("%6.1f", 100.0 * hit / nb);
			}
			printf("\n");
		}
	}
	return bad;
}

static int tied_level(void)
{
	double a[NMAX], b[NMAX];
	struct kb_rng r;
	size_t n, i;
	int bad = 0;

	kb_rng_init(&r, 7);
	printf("\n2. level of the exact Mann-Whitney test with ties: share of p < 0.05 under no change\n");
	printf("   (values 1..4 drawn with chances 0.1, 0.4, 0.4, 0.1: most are tied)\n   ");
	for (n = 3; n <= NMAX; n++) {
		unsigned k, rej = 0;

		for (k = 0; k < reps; k++) {
			for (i = 0; i < n; i++) {
				double u = kb_rng_uniform(&r), v;

				a[i] = u < 0.1 ? 1 : u < 0.5 ? 2 : u < 0.9 ? 3 : 4;
				v = kb_rng_uniform(&r);
				b[i] = v < 0.1 ? 1 : v < 0.5 ? 2 : v < 0.9 ? 3 : 4;
			}
			rej += kb_stats_mann_whitney(a, n, b, n, NULL) < 0.05;
		}
		printf(" n=%zu %.1f%%", n, 100.0 * rej / reps);
		if ((double)rej / reps > 0.055)
			bad = 1;
	}
	printf("\n");
	return bad;
}

/*
 * One adaptive comparison as kb_analysis_compare() runs it: @start boots
 * a side, one more a side after each inconclusive look, up to @max.
 * Returns its verdict; *@boots is the boots a side it ended with.
 */
static enum kb_verdict adaptive(struct kb_rng *r, double cv, double change,
				double threshold, int pocock, unsigned start,
				unsigned max, unsigned *boots)
{
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	struct kb_comparison c;
	unsigned looks[KB_COMPARE_LOOKS_MAX], n = start;
	size_t nlooks = kb_compare_looks(start, max, looks), j = 0;
	double a[1000], b[1000];

	o.threshold_pct = threshold;
	o.alpha = ALPHA;
	if (pocock) {
		/* the same for every call here: computed once */
		static double la;
		static unsigned lk;

		if (!la)
			la = kb_compare_look_alpha(start, max, ALPHA, &lk);
		o.look_alpha = la;
		o.looks = lk;
	}
	draw(r, a, start, 1, cv);
	draw(r, b, start, 1 + change / 100, cv);
	for (;;) {
		kb_compare_samples(a, n, b, n, &o, &c);
		if (c.verdict != KB_VERDICT_INCONCLUSIVE || n >= max)
			break;
		while (j < nlooks && looks[j] <= n)
			j++;
		while (n < (j < nlooks ? looks[j] : max)) {
			draw(r, a + n, 1, 1, cv);
			draw(r, b + n, 1, 1 + change / 100, cv);
			n++;
		}
	}
	*boots = n;
	return c.verdict;
}

static int sequential(void)
{
	static const double cvs[] = { 0.02, 0.05, 0.10 };
	static const double thresholds[] = { 5, 0 };
	size_t c, t;
	int bad = 0, pocock;
	unsigned looks;
	double la = kb_compare_look_alpha(3, 10, ALPHA, &looks);

	printf("\n3. adaptive sampling under no change: false alarms (regression or improvement)\n");
	printf("   3 boots a side, up to 10; %u looks; Pocock's nominal level %.4f a look\n",
	       looks, la);
	printf("%6s %9s %14s %14s\n", "noise", "threshold", "every look .05",
	       "Pocock");
	for (c = 0; c < 3; c++) {
		for (t = 0; t < 2; t++) {
			printf("%5.0f%% %8.0f%% ", cvs[c] * 100,
			       thresholds[t]);
			for (pocock = 0; pocock < 2; pocock++) {
				struct kb_rng r;
				unsigned i, alarms = 0, boots;
				double rate;

				kb_rng_init(&r, 2000 + c * 10 + t);
				for (i = 0; i < reps; i++) {
					enum kb_verdict v = adaptive(
						&r, cvs[c], 0, thresholds[t],
						pocock, 3, 10, &boots);

					alarms += v == KB_VERDICT_REGRESSION ||
						  v == KB_VERDICT_IMPROVEMENT;
				}
				rate = (double)alarms / reps;
				printf("%13.1f%%", rate * 100);
				if (pocock && rate > ALPHA + 0.01)
					bad = 1;
			}
			printf("\n");
		}
	}
	return bad;
}

static void no_change(void)
{
	static const double cvs[] = { 0.02, 0.05, 0.10 };
	size_t c;

	printf("\n4. no-change verdicts of adaptive sampling (3 to 10 boots a side, Pocock, threshold 5%%)\n");
	printf("%6s %26s %22s %36s\n", "noise", "false no-change at +5%",
	       "no-change at 0%", "regression at -8% (mean boots a side)");
	for (c = 0; c < 3; c++) {
		struct kb_rng r;
		unsigned i, fnc = 0, nc = 0, det = 0, boots, sum = 0;

		kb_rng_init(&r, 3000 + c);
		for (i = 0; i < reps; i++) {
			fnc += adaptive(&r, cvs[c], 5, 5, 1, 3, 10, &boots) ==
			       KB_VERDICT_NO_CHANGE;
			nc += adaptive(&r, cvs[c], 0, 5, 1, 3, 10, &boots) ==
			      KB_VERDICT_NO_CHANGE;
			det += adaptive(&r, cvs[c], -8, 5, 1, 3, 10, &boots) ==
			       KB_VERDICT_REGRESSION;
			sum += boots;
		}
		printf("%5.0f%% %25.1f%% %21.1f%% %24.1f%% (%.1f)\n",
		       cvs[c] * 100, 100.0 * fnc / reps, 100.0 * nc / reps,
		       100.0 * det / reps, (double)sum / reps);
	}
}

int main(void)
{
	const char *e = getenv("KBISECT_BENCH_REPS");
	int bad = 0;

	if (e && strtoul(e, NULL, 10) > 0)
		reps = (unsigned)strtoul(e, NULL, 10);
	printf("statistics of the verdicts, simulated (log-normal boots)\n\n");
	bad |= coverage();
	bad |= tied_level();
	bad |= sequential();
	no_change();
	if (reps < 1000) {
		printf("\n(targets not checked with fewer than 1000 experiments a cell)\n");
		return 0;
	}
	if (bad)
		printf("\nFAILED: a target of issue 11 is missed (see above)\n");
	return bad;
}
