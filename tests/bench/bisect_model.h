#ifndef KB_BENCH_BISECT_MODEL_H
#define KB_BENCH_BISECT_MODEL_H

/*
 * What the option bisection benchmarks (bisect.c, probes.c) share: the
 * generated configs and performance models, one bisection of them, and
 * the clock.  Static inline: each bench is a program of one file.
 */
#include "bench.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "model.h"
#include "store.h"

#define BENCH_FACTOR 0.8 /* the regression: -20% */
#define BENCH_NKEEP 4    /* unchanged options in both configs */

/* One generated case: @n options OPT_<i> (@digits wide), all n in the
 * good config and y in the bad one; the regression when the @k options
 * at @culprit are all y; option small[i] y multiplies by small_factor[i];
 * log-normal boot noise of CV @cv; the model's @seed. */
struct bench_case {
	unsigned n, digits;
	const unsigned *culprit;
	unsigned k;
	const unsigned *small;
	const double *small_factor;
	unsigned nsmall;
	double cv;
	uint64_t seed;
	double factor;     /* the regression's factor (0: BENCH_FACTOR) */
	const char *extra; /* more of the model's YAML (a drift:), or NULL */
};

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The config of @c with every option at @level; exits on error. */
static inline struct kb_kconfig *bench_config(const struct bench_case *c,
					      const char *level)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_kconfig *cfg = NULL;
	struct kb_err err = KB_ERR_INIT;
	unsigned i;

	for (i = 0; i < BENCH_NKEEP; i++)
		kb_buf_addf(&b, "CONFIG_KEEP_%u=y\n", i);
	for (i = 0; i < c->n; i++)
		kb_buf_addf(&b, "CONFIG_OPT_%0*u=%s\n", (int)c->digits, i,
			    level);
	if (kb_kconfig_parse_buffer(b.buf, b.len, "bench.config", &cfg,
				    &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	kb_buf_release(&b);
	return cfg;
}

/*
 * Bisect @c with @strategy in @s.  Returns 0 with *@out (free it with
 * kb_bisect_result_free()) and the culprits expected and found, by name,
 * in @truth and @got; 1 on error, said on stderr.
 */
static inline int bench_bisect(struct kb_store *s, const struct bench_case *c,
			       enum kb_bisect_strategy strategy,
			       struct kb_bisect_result **out,
			       struct kb_buf *truth, struct kb_buf *got)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf text = KB_BUF_INIT;
	struct kb_model *m = NULL;
	struct kb_executor *ex = NULL;
	struct kb_kconfig *good = bench_config(c, "n"),
			  *bad = bench_config(c, "y");
	int w = (int)c->digits, ret = 1;
	unsigned i;

	*out = NULL;
	kb_buf_addf(&text,
		    "metric: read_iops\nbase: 100000\n"
		    "noise: { boot_cv: %g }\nseed: %llu\neffects:\n"
		    "  - when: {",
		    c->cv, (unsigned long long)c->seed);
	for (i = 0; i < c->k; i++) {
		kb_buf_addf(&text, "%s OPT_%0*u: y", i ? "," : "", w,
			    c->culprit[i]);
		kb_buf_addf(truth, "%sOPT_%0*u", i ? " " : "", w,
			    c->culprit[i]);
	}
	kb_buf_addf(&text, " }\n    factor: %g\n",
		    c->factor > 0 ? c->factor : BENCH_FACTOR);
	for (i = 0; i < c->nsmall; i++)
		kb_buf_addf(&text, "  - when: { OPT_%0*u: y }\n    factor: %.4f\n",
			    w, c->small[i], c->small_factor[i]);
	if (c->extra)
		kb_buf_adds(&text, c->extra);
	if (kb_model_parse_buffer(text.buf, text.len, "bench.yaml", &m,
				  &err) ||
	    kb_model_executor_new(m, 0, &ex))
		goto out;
	o.metric = "read_iops";
	o.higher_is_better = 1;
	o.strategy = strategy;
	o.good_name = "good.config";
	o.bad_name = "bad.config";
	o.model_text = kb_model_text(m);
	o.build_salt = kb_model_text(m);
	if (kb_bisect_options(s, ex, good, bad, &o, out, &err))
		goto out;
	for (i = 0; i < (*out)->nculprits; i++)
		kb_buf_addf(got, "%s%s", i ? " " : "",
			    (*out)->culprits[i].option);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bench: %s\n", err.msg);
	kb_executor_free(ex);
	kb_model_free(m);
	kb_kconfig_free(good);
	kb_kconfig_free(bad);
	kb_buf_release(&text);
	return ret;
}

#endif
