/*
 * The error rates of the verdict rule (issue 29, lib/compare.h): the t
 * test of the log ratio and its own interval, unpaired (Welch) and
 * paired within rounds, measured on the performance model's values at
 * n = 3 to 10 boots a side.  No database: kb_compare_samples() and
 * kb_compare_paired() on kb_model_sample()'s values of two variants, as
 * `compare` would get them from a run.
 *
 *   null      no effect: "significant" is p < alpha (the test's own
 *             size, as at threshold 0), "verdict" a regression or an
 *             improvement at the 5% threshold; both must stay at or
 *             under alpha (within two Monte Carlo standard errors);
 *   bad boot  the same, with 5% of the boots halved (a boot that went
 *             wrong): the t test is no rank test, and this shows what
 *             an outlier does to it;
 *   power     a 10% loss: a regression called;
 *   rank      the rule before issue 29 (Mann-Whitney, unpaired), for
 *             comparison: it cannot call anything at 3 a side.
 *
 * Then the sequential test of `compare --adaptive`, one look a boot from
 * 3 to 10 a side at the levels calibrated for each test
 * (kb_compare_look_alpha_welch() and _paired()): false alarms at any
 * look.  The noise is log-normal, so the t test's size does not depend
 * on its level (CV 5% is shown).  KBISECT_BENCH_SEEDS scales the draws
 * (default 20, 1000 draws each per cell); exits 1 when a check fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "buf.h"
#include "compare.h"
#include "err.h"
#include "matrix.h"
#include "model.h"
#include "plan.h"
#include "rng.h"

#define NMIN 3
#define NMAX 10
#define ALPHA 0.05
#define CV 0.05
#define LOSS 0.9
#define BAD_SHARE 0.05

/* Counts of one n. */
struct row {
	unsigned draws;
	unsigned sig[2], verdict[2];     /* null: unpaired, paired */
	unsigned bad_sig[2], bad_verdict[2];
	unsigned power[2];               /* 10% loss called */
	unsigned rank_verdict, rank_power;
};

struct models {
	struct kb_model *null, *loss;
	struct kb_matrix *m;
	struct kb_plan *p;
};

static void models_open(struct models *ms, uint64_t seed)
{
	const char *matrix = "workload: { fio: { rw: randread } }\n"
			     "factors: { kconfig: { A: [n, y] } }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf t = KB_BUF_INIT;

	memset(ms, 0, sizeof(*ms));
	kb_buf_addf(&t, "metric: read_iops\nbase: 1000\nnoise: { boot_cv: %g }\nseed: %llu\n",
		    CV, (unsigned long long)seed);
	if (kb_model_parse_buffer(t.buf, t.len, "null.yaml", &ms->null, &err))
		goto fail;
	kb_buf_addf(&t, "effects:\n  - when: { A: y }\n    factor: %g\n", LOSS);
	if (kb_model_parse_buffer(t.buf, t.len, "loss.yaml", &ms->loss, &err) ||
	    kb_matrix_parse_buffer(matrix, strlen(matrix), "m.yaml", &ms->m,
				   &err) ||
	    kb_plan_new(ms->m, &ms->p, &err))
		goto fail;
	kb_buf_release(&t);
	return;
fail:
	fprintf(stderr, "verdicts: %s\n", err.msg);
	exit(2);
}

static void models_close(struct models *ms)
{
	kb_plan_free(ms->p);
	kb_matrix_free(ms->m);
	kb_model_free(ms->null);
	kb_model_free(ms->loss);
}

/* Boots @first .. @first + n - 1 of variants 0 and 1 of model @mo into
 * @a and @b; with @bad, a share of them halved (drawn from @r). */
static void draw(const struct models *ms, const struct kb_model *mo,
		 unsigned first, size_t n, int bad, struct kb_rng *r,
		 double *a, double *b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		a[i] = kb_model_sample(mo, kb_plan_variant(ms->p, 0),
				       first + (unsigned)i, 1);
		b[i] = kb_model_sample(mo, kb_plan_variant(ms->p, 1),
				       first + (unsigned)i, 1);
		if (bad && kb_rng_uniform(r) < BAD_SHARE)
			a[i] *= 0.5;
		if (bad && kb_rng_uniform(r) < BAD_SHARE)
			b[i] *= 0.5;
	}
}

static int called(const struct kb_comparison *c)
{
	return c->verdict == KB_VERDICT_REGRESSION ||
	       c->verdict == KB_VERDICT_IMPROVEMENT;
}

/* One draw of every cell at @n boots a side. */
static void one(const struct models *ms, size_t n, unsigned first,
		struct kb_rng *r, struct row *w)
{
	struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
	double a[NMAX], b[NMAX], u;
	struct kb_comparison c;
	int bad;

	w->draws++;
	for (bad = 0; bad < 2; bad++) {
		draw(ms, ms->null, first, n, bad, r, a, b);
		kb_compare_samples(a, n, b, n, &o, &c);
		*(bad ? &w->bad_sig[0] : &w->sig[0]) += c.p < ALPHA;
		*(bad ? &w->bad_verdict[0] : &w->verdict[0]) += called(&c);
		kb_compare_paired(a, b, NULL, n, &o, &c);
		*(bad ? &w->bad_sig[1] : &w->sig[1]) += c.p < ALPHA;
		*(bad ? &w->bad_verdict[1] : &w->verdict[1]) += called(&c);
		if (bad)
			continue;
		/* the rule before: Mann-Whitney, the change of the means */
		u = kb_stats_mann_whitney(a, n, b, n, NULL);
		w->rank_verdict += u < ALPHA && fabs(kb_stats_change_pct(
						    kb_stats_mean(a, n),
						    kb_stats_mean(b, n))) >= 5;
	}
	draw(ms, ms->loss, first, n, 0, r, a, b);
	kb_compare_samples(a, n, b, n, &o, &c);
	w->power[0] += c.verdict == KB_VERDICT_REGRESSION;
	kb_compare_paired(a, b, NULL, n, &o, &c);
	w->power[1] += c.verdict == KB_VERDICT_REGRESSION;
	u = kb_stats_mann_whitney(a, n, b, n, NULL);
	w->rank_power += u < ALPHA &&
			 kb_stats_change_pct(kb_stats_mean(a, n),
					     kb_stats_mean(b, n)) <= -5;
}

/* Sequential: looks at 3..10 a side; counts of any look significant
 * (threshold 0) and any look's verdict (threshold 5%), per pairing. */
static void sequential(const struct models *ms, unsigned first,
		       const double level[2], unsigned sig[2],
		       unsigned verdict[2])
{
	double a[NMAX], b[NMAX];
	int paired;
	size_t n;

	draw(ms, ms->null, first, NMAX, 0, NULL, a, b);
	for (paired = 0; paired < 2; paired++) {
		struct kb_compare_opts o = KB_COMPARE_OPTS_INIT;
		int s = 0, v = 0;

		o.looks = NMAX - NMIN + 1;
		o.look_alpha = level[0];
		o.look_alpha_paired = level[1];
		for (n = NMIN; n <= NMAX; n++) {
			struct kb_comparison c;

			if (paired)
				kb_compare_paired(a, b, NULL, n, &o, &c);
			else
				kb_compare_samples(a, n, b, n, &o, &c);
			s |= c.p < c.alpha;
			v |= called(&c);
		}
		sig[paired] += (unsigned)s;
		verdict[paired] += (unsigned)v;
	}
}

/* The largest rate that is "at most alpha" for @n draws: alpha plus two
 * standard errors of a rate of alpha (Monte Carlo error). */
static double slack(unsigned n)
{
	return 100 * (ALPHA + 2 * sqrt(ALPHA * (1 - ALPHA) / (double)n));
}

int main(void)
{
	unsigned seeds = bench_seeds(20), s, d, per = 1000;
	unsigned seq_n = 0, seq_sig[2] = { 0, 0 }, seq_verdict[2] = { 0, 0 };
	struct row rows[NMAX + 1];
	double level[2];
	struct kb_rng r;
	size_t n;
	int bad = 0;

	memset(rows, 0, sizeof(rows));
	level[0] = kb_compare_look_alpha_welch(NMIN, NMAX, ALPHA, NULL);
	level[1] = kb_compare_look_alpha_paired(NMIN, NMAX, ALPHA, NULL);
	kb_rng_init(&r, 29);
	for (s = 0; s < seeds; s++) {
		struct models ms;

		models_open(&ms, 1000 + s);
		for (d = 0; d < per; d++) {
			for (n = NMIN; n <= NMAX; n++)
				one(&ms, n, 1 + 20 * d, &r, &rows[n]);
			sequential(&ms, 1 + 20 * d, level, seq_sig,
				   seq_verdict);
			seq_n++;
		}
		models_close(&ms);
	}
	printf("verdict rule (lib/compare.h): t test of the log ratio, its own interval; alpha %g, threshold 5%%, noise CV %g%%, %u draws a row\n\n",
	       ALPHA, 100 * CV, rows[NMIN].draws);
	printf("        null: p < alpha   null: verdict     5%% bad boots: p<a/verdict   10%% loss: regression   before (rank test)\n");
	printf("  n   unpaired  paired  unpaired  paired    unpaired       paired      unpaired  paired      verdict  power\n");
	for (n = NMIN; n <= NMAX; n++) {
		struct row *w = &rows[n];

		printf("%3zu   %6.2f%%  %5.2f%%   %6.2f%%  %5.2f%%   %5.2f/%4.2f%%   %5.2f/%4.2f%%   %6.1f%%  %5.1f%%     %5.2f%%  %5.1f%%\n",
		       n, bench_pct(w->sig[0], w->draws),
		       bench_pct(w->sig[1], w->draws),
		       bench_pct(w->verdict[0], w->draws),
		       bench_pct(w->verdict[1], w->draws),
		       bench_pct(w->bad_sig[0], w->draws),
		       bench_pct(w->bad_verdict[0], w->draws),
		       bench_pct(w->bad_sig[1], w->draws),
		       bench_pct(w->bad_verdict[1], w->draws),
		       bench_pct(w->power[0], w->draws),
		       bench_pct(w->power[1], w->draws),
		       bench_pct(w->rank_verdict, w->draws),
		       bench_pct(w->rank_power, w->draws));
	}
	printf("\nsequential (compare --adaptive), a look a boot from %d to %d a side, %u draws:\n",
	       NMIN, NMAX, seq_n);
	printf("  unpaired at %.4g: any look p < level %.2f%%, a verdict %.2f%%\n",
	       level[0], bench_pct(seq_sig[0], seq_n),
	       bench_pct(seq_verdict[0], seq_n));
	printf("  paired   at %.4g: any look p < level %.2f%%, a verdict %.2f%%\n\n",
	       level[1], bench_pct(seq_sig[1], seq_n),
	       bench_pct(seq_verdict[1], seq_n));
	for (n = NMIN; n <= NMAX; n++) {
		char what[96];
		int k;

		for (k = 0; k < 2; k++) {
			snprintf(what, sizeof(what),
				 "n = %zu %s: false alarms (p < alpha) at most alpha",
				 n, k ? "paired" : "unpaired");
			bad += !bench_check(what,
					    bench_pct(rows[n].sig[k],
						      rows[n].draws),
					    0, slack(rows[n].draws));
		}
	}
	bad += !bench_check("sequential unpaired: false alarms at most alpha",
			    bench_pct(seq_sig[0], seq_n), 0, slack(seq_n));
	bad += !bench_check("sequential paired: false alarms at most alpha",
			    bench_pct(seq_sig[1], seq_n), 0, slack(seq_n));
	return bad ? 1 : 0;
}
