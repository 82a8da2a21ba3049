/*
 * Probes per option bisection (issue 16): adaptive group testing (the
 * default, KB_BISECT_GROUP) against ddmin, side by side, on generated
 * performance models at 5% boot noise:
 *
 *   - N differing options (32, 128, 512), all n in the good config and y
 *     in the bad one, plus a few unchanged ones;
 *   - the regression (factor 0.8, -20%) caused by one option that sorts
 *     first, in the middle or last, by an interacting pair (only when
 *     both are y) or by a triple, drawn from the seed; three other
 *     options have small effects (within +-1%) that must not be blamed;
 *   - each row over KBISECT_BENCH_SEEDS seeds (default 10).
 *
 * An answer is right when the culprit set is exactly the true one, and
 * minimal when it is also called 1-minimal.  Probes are the bisection's
 * own (not the two ends), also as a multiple of log2 N.  Runs at time
 * scale 0 in a scratch database.  Exits 1 when a target is missed: every
 * group testing answer right and 1-minimal; a single culprit in at most
 * ceil(log2 N) + 2 probes in every seed, wherever it sits; at N = 128 and
 * 512, pairs in at most 4 log2 N + 4 probes and triples in at most
 * 6 log2 N + 6 on average.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect_model.h"
#include "rng.h"

#define CV 0.05
#define NSMALL 3 /* options with small effects */

static const unsigned sizes[] = { 32, 128, 512 };

enum kind { FIRST, MIDDLE, LAST, PAIR, TRIPLE, NKINDS };

static const char *const kind_names[] = { "single first", "single middle",
					  "single last", "pair", "triple" };
static const unsigned kind_k[] = { 1, 1, 1, 2, 3 };

struct tally {
	unsigned cases, right, minimal, max_probes;
	double probes, boots, secs;
};

/* Is @c among the first @n of @v? */
static int among(const unsigned *v, unsigned n, unsigned c)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i] == c)
			return 1;
	return 0;
}

/*
 * The culprits of @kind among @n options (sorted) and the options with
 * small effects after them in @opt: k + NSMALL distinct options.
 */
static void draw(struct kb_rng *r, unsigned n, enum kind kind, unsigned *opt)
{
	unsigned k = kind_k[kind], i, j, c;

	if (kind == FIRST || kind == MIDDLE || kind == LAST)
		opt[0] = kind == FIRST ? 0 : kind == MIDDLE ? n / 2 : n - 1;
	for (i = kind == PAIR || kind == TRIPLE ? 0 : 1; i < k + NSMALL; i++) {
		do
			c = (unsigned)kb_rng_below(r, n);
		while (among(opt, i, c));
		opt[i] = c;
	}
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && opt[j - 1] > opt[j]; j--) {
			c = opt[j];
			opt[j] = opt[j - 1];
			opt[j - 1] = c;
		}
}

/* The probes of a wrong answer (KBISECT_BENCH_VERBOSE=2). */
static void show(const struct kb_bisect_result *r)
{
	size_t i, k;

	printf("    ends %+.1f%%\n", r->ends.change_pct);
	for (i = 0; i < r->nprobes; i++) {
		const struct kb_bisect_probe *p = &r->probes[i];

		printf("    %2u %-7s %+6.1f%% [%+6.1f, %+6.1f] bad %+6.1f%%"
		       " %2u boots, evidence %+.1f:",
		       p->step, kb_bisect_class_name(p->cls), p->change_pct,
		       p->ci_low, p->ci_high, p->bad_change_pct, p->boots,
		       p->evidence);
		for (k = 0; k < p->napplied && k < 8; k++)
			printf(" %s", r->changes[p->applied[k]].option + 4);
		printf("%s\n", k < p->napplied ? " ..." : "");
	}
}

/* One bisection; returns 0 and adds it to @t, or 1 on error. */
static int one(struct kb_store *s, unsigned n, enum kind kind, uint64_t seed,
	       enum kb_bisect_strategy strategy, struct tally *t)
{
	struct kb_buf truth = KB_BUF_INIT, got = KB_BUF_INIT;
	struct kb_bisect_result *r = NULL;
	unsigned opt[3 + NSMALL], k = kind_k[kind], i;
	double factor[NSMALL], t0 = bench_now();
	struct bench_case c = { .n = n, .digits = 3, .culprit = opt, .k = k,
				.small = opt + k, .small_factor = factor,
				.nsmall = NSMALL, .cv = CV, .seed = seed };
	struct kb_rng rng;
	int ret = 1, right;

	kb_rng_init(&rng, seed);
	draw(&rng, n, kind, opt);
	for (i = 0; i < NSMALL; i++)
		factor[i] = 0.99 + 0.02 * kb_rng_uniform(&rng);
	if (bench_bisect(s, &c, strategy, &r, &truth, &got))
		goto out;
	right = !strcmp(got.buf, truth.buf);
	if ((!right || !r->minimal) && getenv("KBISECT_BENCH_VERBOSE"))
		printf("  N %u, %s, seed %llu: '%s'%s, expected '%s'"
		       " (%zu probes)\n",
		       n, strategy == KB_BISECT_GROUP ? "group" : "ddmin",
		       (unsigned long long)seed, got.buf,
		       r->minimal ? "" : " not minimised", truth.buf,
		       r->nprobes);
	if ((!right || !r->minimal) && getenv("KBISECT_BENCH_VERBOSE") &&
	    !strcmp(getenv("KBISECT_BENCH_VERBOSE"), "2"))
		show(r);
	t->cases++;
	t->right += right;
	t->minimal += right && r->minimal;
	t->probes += (double)r->nprobes;
	t->boots += r->boots;
	if (r->nprobes > t->max_probes)
		t->max_probes = (unsigned)r->nprobes;
	t->secs += bench_now() - t0;
	ret = 0;
out:
	kb_bisect_result_free(r);
	kb_buf_release(&truth);
	kb_buf_release(&got);
	return ret;
}

static void print_tally(const struct tally *t, unsigned n)
{
	double mean = t->probes / t->cases;

	printf(" %4.0f%% %4.0f%% %6.1f %4u %5.2fx %6.1f %5.2f",
	       100.0 * t->right / t->cases, 100.0 * t->minimal / t->cases,
	       mean, t->max_probes, mean / log2((double)n),
	       t->boots / t->cases, t->secs / t->cases);
}

/* Does the group testing row @t of @kind at @n meet its target? */
static int target_met(const struct tally *t, unsigned n, enum kind kind)
{
	double l = log2((double)n), mean = t->probes / t->cases;

	if (t->right < t->cases || t->minimal < t->cases)
		return 0;
	if (kind_k[kind] == 1)
		return t->max_probes <= ceil(l) + 2;
	if (n < 128)
		return 1;
	return mean <= (kind == PAIR ? 4 * l + 4 : 6 * l + 6);
}

int main(void)
{
	static const enum kb_bisect_strategy strategies[2] = {
		KB_BISECT_GROUP, KB_BISECT_DDMIN
	};
	const char *env = getenv("KBISECT_BENCH_SEEDS");
	unsigned nseeds = env && *env ? (unsigned)strtoul(env, NULL, 10) : 10;
	struct kb_err err = KB_ERR_INIT;
	char dir[] = "/tmp/kb-bench-probes-XXXXXX", db[128];
	unsigned s, failed = 0, missed = 0;
	double t0 = bench_now();
	size_t ni;
	int kind, st;

	if (nseeds < 1)
		nseeds = 1;
	if (!mkdtemp(dir)) {
		perror("bench probes: mkdtemp");
		return 1;
	}
	printf("== probes: adaptive group testing (default) against ddmin\n"
	       "%u seeds per row; effect -20%%, boot noise CV 5%%; threshold 5%%,"
	       " alpha 0.05, 3 boots per probe, up to 10\n"
	       "right: culprit set exactly the true one; minimal: and called"
	       " 1-minimal; probes: mean, max and mean / log2 N, ends not"
	       " counted;\nboots: mean, ends included; s: seconds per"
	       " bisection\n\n",
	       nseeds);
	printf("  N kind          |  group right  min probes  max  /log2  boots"
	       "     s |  ddmin right  min probes  max  /log2  boots     s\n");
	for (ni = 0; ni < sizeof(sizes) / sizeof(*sizes); ni++) {
		for (kind = 0; kind < NKINDS; kind++) {
			struct tally t[2];
			struct kb_store *store = NULL;

			memset(t, 0, sizeof(t));
			snprintf(db, sizeof(db), "%s/p.db", dir);
			if (kb_store_open(db, NULL, &store, &err)) {
				fprintf(stderr, "bench probes: %s\n", err.msg);
				return 1;
			}
			for (s = 1; s <= nseeds; s++) {
				uint64_t seed = 1000003ull * s + 100 * ni +
						10 * (unsigned)kind;

				for (st = 0; st < 2; st++)
					failed += one(store, sizes[ni],
						      (enum kind)kind, seed,
						      strategies[st], &t[st]);
			}
			kb_store_close(store);
			bench_remove_db(db);
			if (!t[0].cases || !t[1].cases)
				continue;
			printf("%3u %-13s |      ", sizes[ni], kind_names[kind]);
			print_tally(&t[0], sizes[ni]);
			printf(" |      ");
			print_tally(&t[1], sizes[ni]);
			if (!target_met(&t[0], sizes[ni], (enum kind)kind)) {
				printf("  MISSED");
				missed++;
			}
			printf("\n");
			fflush(stdout);
		}
	}
	rmdir(dir);
	printf("\n%.0f s; targets (group testing: every answer right and"
	       " 1-minimal; single <= ceil(log2 N) + 2 probes in every seed;"
	       " at N = 128 and 512 pairs <= 4 log2 N + 4 and triples <="
	       " 6 log2 N + 6 on average): %s\n",
	       bench_now() - t0, missed ? "MISSED" : "met");
	if (failed)
		printf("%u bisections failed\n", failed);
	return missed || failed;
}
