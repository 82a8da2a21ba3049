/*
 * The performance model (lib/exec/model.h): the document, its top level
 * and the sections metric, base, time, drift and hosts;
 * kb_model_load() and kb_model_parse_buffer(); the model's values and
 * its executor.  Split by concern, each file calling only those below it
 * (their shared object and helpers: lib/exec/model_int.h):
 *
 *   model.c          this file
 *   model_monitor.c  the monitors: their counters and a run's values
 *   model_profile.c  the profile: its stacks and what a run samples
 *   model_core.c     the when-clauses, rules (effects, failures),
 *                    depends, whether a rule holds, and the noise
 */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model_int.h"
#include "monitor.h"
#include "profile.h"
#include "rng.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

static const char *const top_keys[] = { "metric", "base",  "noise",
					 "effects", "time",  "failures",
					 "seed", "depends", "hosts", "drift",
					 "monitors", "profile" };
static const char *const drift_keys[] = { "linear", "step", "at", "ar1",
					   "over" };
static const char *const ar1_keys[] = { "phi", "cv" };
static const char *const host_keys[] = { "factor", "fail_after" };
static const char *const time_keys[] = { "build_s", "boot_s", "run_s" };

static void deps_free(struct dep *d, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < d[i].n; j++)
			free(d[i].on[j]);
		free(d[i].on);
		free(d[i].on_idx);
		free(d[i].name);
	}
	free(d);
}

void kb_model_free(struct kb_model *m)
{
	if (!m)
		return;
	deps_free(m->deps, m->ndeps);
	free(m->file);
	free(m->text);
	free(m->metric);
	kb_model__rules_free(m->effects, m->neffects);
	kb_model__rules_free(m->failures, m->nfailures);
	for (size_t i = 0; i < m->nhosts; i++)
		free(m->hosts[i].uri);
	free(m->hosts);
	for (size_t i = 0; i < m->nmonitors; i++) {
		free(m->monitors[i].name);
		kb_model__rules_free(m->monitors[i].effects,
				     m->monitors[i].neffects);
	}
	free(m->monitors);
	for (size_t i = 0; i < m->nstacks; i++) {
		free(m->stacks[i].stack);
		kb_model__rules_free(m->stacks[i].effects,
				     m->stacks[i].neffects);
	}
	free(m->stacks);
	free(m->booted);
	free(m);
}

/* ---- sections ----------------------------------------------------------- */

static int parse_metric(struct ctx *c, const struct kb_ynode *n)
{
	const char *s;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_SCALAR, "'metric'")))
		return ret;
	s = n->str;
	/* or a derived name the matrix can name: "real_s.sum" (matrix.h) */
	if ((!n->len || n->len >= KB_METRIC_NAME_MAX ||
	     strlen(s) != n->len ||
	     strspn(s, "abcdefghijklmnopqrstuvwxyz"
		       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n->len ||
	     (s[0] >= '0' && s[0] <= '9')) &&
	    !(strlen(s) == n->len && kb_metric_name_valid(s)))
		return fail(c, n,
			    "invalid metric '%s': expected a name of letters, digits and _ of at most %d characters, such as read_iops (or real_s.sum)",
			    s, KB_METRIC_NAME_MAX - 1);
	c->m->metric = kb_strdup(s);
	return 0;
}

/* A number of @n's @key into *@out, from @lo to @hi; 0 when absent. */
static int drift_number(struct ctx *c, const struct kb_ynode *n,
			const char *key, double lo, double hi, double *out)
{
	const struct kb_ynode *v = kb_ynode_get(n, key);
	char what[32];
	int ret;

	if (!v)
		return 0;
	snprintf(what, sizeof(what), "'drift.%s'", key);
	if ((ret = kb_ycheck_number(&c->y, v, what, out)))
		return ret;
	if (!(*out >= lo && *out <= hi))
		return fail(c, v, "%s must be from %g to %g, found '%s'", what,
			    lo, hi, v->str);
	return 0;
}

static int parse_drift(struct ctx *c, const struct kb_ynode *n)
{
	const struct kb_ynode *v, *ar;
	uint64_t over = 0;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'drift'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'drift'", drift_keys,
				  N(drift_keys))))
		return ret;
	c->m->drift.on = 1;
	if ((ret = drift_number(c, n, "linear", -0.9, 10,
				&c->m->drift.linear)) ||
	    (ret = drift_number(c, n, "step", -0.9, 10, &c->m->drift.step)) ||
	    (ret = drift_number(c, n, "at", 0, 10, &c->m->drift.at)))
		return ret;
	if (kb_ynode_get(n, "at") && !kb_ynode_get(n, "step"))
		return fail(c, kb_ynode_get(n, "at"),
			    "'drift.at' is where a 'drift.step' happens: give the step too");
	if ((ar = kb_ynode_get(n, "ar1"))) {
		if ((ret = kb_ycheck_type(&c->y, ar, KB_Y_MAP, "'drift.ar1'")) ||
		    (ret = kb_ycheck_keys(&c->y, ar, "'drift.ar1'", ar1_keys,
					  N(ar1_keys))))
			return ret;
		if (!kb_ynode_get(ar, "phi") || !kb_ynode_get(ar, "cv"))
			return fail(c, ar,
				    "'drift.ar1' needs 'phi' (0 to 0.999) and 'cv' (its spread)");
		if ((ret = drift_number(c, ar, "phi", 0, 0.999,
					&c->m->drift.phi)) ||
		    (ret = drift_number(c, ar, "cv", 0, 1,
					&c->m->drift.ar_cv)))
			return ret;
	}
	if ((v = kb_ynode_get(n, "over"))) {
		if ((ret = kb_ycheck_uint(&c->y, v, "'drift.over'", 1, 1000000,
					  &over)))
			return ret;
		c->m->drift.over = (unsigned)over;
	}
	return 0;
}

static int parse_time(struct ctx *c, const struct kb_ynode *n)
{
	double *dst[] = { &c->m->time.build_s, &c->m->time.boot_s,
			  &c->m->time.run_s };
	size_t i;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'time'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'time'", time_keys, N(time_keys))))
		return ret;
	for (i = 0; i < N(time_keys); i++) {
		const struct kb_ynode *v = kb_ynode_get(n, time_keys[i]);
		char what[32];

		if (!v)
			continue;
		snprintf(what, sizeof(what), "'%s'", time_keys[i]);
		if ((ret = kb_ycheck_number(&c->y, v, what, dst[i])))
			return ret;
		if (*dst[i] < 0 || *dst[i] > KB_MODEL_MAX_TIME_S)
			return fail(c, v,
				    "%s must be a number of seconds from 0 to %g, found '%s'",
				    what, KB_MODEL_MAX_TIME_S, v->str);
	}
	return 0;
}

/* The model's effects or failures list at @n. */
static int parse_rules(struct ctx *c, const struct kb_ynode *n, int effects)
{
	return kb_model__rules(c, n, effects,
			       effects ? &c->m->effects : &c->m->failures,
			       effects ? &c->m->neffects : &c->m->nfailures);
}

/*
 * Refuse a base that some combination of effects takes past
 * KB_MODEL_MAX_VALUE or below KB_MODEL_MIN_VALUE (counted in logarithms,
 * which do not overflow): such a model would produce infinities, or 0s
 * that no change can be measured against.  @n is the base's node.
 */
static int check_range(struct ctx *c, const struct kb_ynode *n)
{
	double up = log10(c->m->base), down = up, f;
	size_t i;

	for (i = 0; i < c->m->neffects; i++) {
		f = log10(c->m->effects[i].factor);
		if (f > 0)
			up += f;
		else
			down += f;
	}
	if (up > log10(KB_MODEL_MAX_VALUE))
		return fail(c, n,
			    "'base' %s, times every effect's factor above 1, reaches 1e%.0f, more than 1e%.0f: the samples would overflow to infinity; measure in larger units",
			    n->str, up, log10(KB_MODEL_MAX_VALUE));
	if (down < log10(KB_MODEL_MIN_VALUE))
		return fail(c, n,
			    "'base' %s, times every effect's factor below 1, falls to 1e%.0f, less than 1e%.0f: the samples would vanish to 0; measure in smaller units",
			    n->str, down, log10(KB_MODEL_MIN_VALUE));
	return 0;
}

/* A host's factor: a number from 0.001 to 1000. */
static int host_factor(struct ctx *c, const struct kb_ynode *v, double *out)
{
	int ret = kb_ycheck_number(&c->y, v, "a host's factor", out);

	if (ret)
		return ret;
	if (!(*out >= 1e-3 && *out <= 1e3))
		return fail(c, v,
			    "a host's factor must be a number from 0.001 to 1000, found '%s'",
			    v->str);
	return 0;
}

/* hosts: { URI: FACTOR, URI: { factor: F, fail_after: N } } */
static int parse_hosts(struct ctx *c, const struct kb_ynode *n)
{
	struct kb_model *m = c->m;
	size_t i;
	int ret;

	if (kb_ynode_is_null(n))
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'hosts'")))
		return ret;
	if (n->n > KB_MODEL_MAX_HOSTS)
		return fail(c, n, "'hosts' lists more than %d hosts",
			    KB_MODEL_MAX_HOSTS);
	m->hosts = kb_calloc(n->n ? n->n : 1, sizeof(*m->hosts));
	m->booted = kb_calloc(n->n ? n->n : 1, sizeof(*m->booted));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *v = n->items[i], *f;
		struct model_host *h = &m->hosts[i];
		const char *uri;
		uint64_t after = 0;

		if ((ret = kb_ycheck_string(&c->y, n->keys[i], "a host URI",
					    &uri)))
			return ret;
		if (!strstr(uri, ":/"))
			return fail(c, n->keys[i],
				    "invalid libvirt URI '%s': expected DRIVER[+TRANSPORT]://[HOST]/PATH, as the matrix's hosts name it",
				    uri);
		h->uri = kb_strdup(uri);
		h->factor = 1;
		m->nhosts = i + 1;
		if (v->type != KB_Y_MAP) {
			if ((ret = host_factor(c, v, &h->factor)))
				return ret;
			continue;
		}
		if ((ret = kb_ycheck_keys(&c->y, v, "a host", host_keys,
					  N(host_keys))))
			return ret;
		if ((f = kb_ynode_get(v, "factor")) &&
		    (ret = host_factor(c, f, &h->factor)))
			return ret;
		if ((f = kb_ynode_get(v, "fail_after")) &&
		    (ret = kb_ycheck_uint(&c->y, f, "'fail_after'", 0,
					  1000000, &after)))
			return ret;
		h->fail_after = (unsigned)after;
		h->fails = f != NULL;
	}
	return 0;
}

static int parse_root(struct ctx *c, const struct kb_ynode *root)
{
	const struct kb_ynode *v;
	int ret;

	if (!root)
		return fail(c, NULL,
			    "the model is empty: expected a mapping with 'metric' and 'base'");
	if ((ret = kb_ycheck_type(&c->y, root, KB_Y_MAP, "a model")) ||
	    (ret = kb_ycheck_keys(&c->y, root, "the model", top_keys,
				  N(top_keys))))
		return ret;
	if (!(v = kb_ynode_get(root, "metric")))
		return fail(c, root,
			    "missing 'metric': the metric the model produces, such as read_iops");
	if ((ret = parse_metric(c, v)))
		return ret;
	if (!(v = kb_ynode_get(root, "base")))
		return fail(c, root,
			    "missing 'base': the value when no effect applies");
	if ((ret = kb_ycheck_number(&c->y, v, "'base'", &c->m->base)))
		return ret;
	if (c->m->base <= 0)
		return fail(c, v, "'base' must be greater than 0, found '%s'",
			    v->str);
	if ((v = kb_ynode_get(root, "noise")) && (ret = kb_model__noise(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "effects")) && (ret = parse_rules(c, v, 1)))
		return ret;
	if ((ret = check_range(c, kb_ynode_get(root, "base"))))
		return ret;
	if ((v = kb_ynode_get(root, "failures")) &&
	    (ret = parse_rules(c, v, 0)))
		return ret;
	if ((v = kb_ynode_get(root, "time")) && (ret = parse_time(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "depends")) &&
	    (ret = kb_model__depends(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "hosts")) && (ret = parse_hosts(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "drift")) && (ret = parse_drift(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "monitors")) &&
	    (ret = kb_model__monitors(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "profile")) && (ret = kb_model__profile(c, v)))
		return ret;
	if ((v = kb_ynode_get(root, "seed")) &&
	    (ret = kb_ycheck_uint(&c->y, v, "'seed'", 0, UINT64_MAX,
				  &c->m->seed)))
		return ret;
	return 0;
}

static int from_doc(struct kb_ydoc *doc, struct kb_model **out,
		    struct kb_err *err)
{
	struct kb_model *m = kb_calloc(1, sizeof(*m));
	struct ctx c;
	int ret;

	m->file = kb_strdup(kb_ydoc_file(doc));
	m->text = kb_strdup(kb_ydoc_text(doc));
	c.y.file = m->file;
	c.y.err = err;
	c.m = m;
	if ((ret = parse_root(&c, kb_ydoc_root(doc))))
		goto out;
	*out = m;
	m = NULL;
out:
	kb_model_free(m);
	return ret;
}

int kb_model_parse_buffer(const char *data, size_t len, const char *file,
			  struct kb_model **out, struct kb_err *err)
{
	struct kb_ydoc *doc = NULL;
	int ret;

	*out = NULL;
	if ((ret = kb_ydoc_parse_buffer(data, len, file, &doc, err)))
		goto out;
	ret = from_doc(doc, out, err);
out:
	kb_ydoc_free(doc);
	return ret;
}

int kb_model_load(const char *path, struct kb_model **out,
		  struct kb_err *err)
{
	struct kb_ydoc *doc = NULL;
	int ret;

	*out = NULL;
	if ((ret = kb_ydoc_load_file(path, &doc, err)))
		goto out;
	ret = from_doc(doc, out, err);
out:
	kb_ydoc_free(doc);
	return ret;
}

/* ---- evaluation --------------------------------------------------------- */

const char *kb_model_metric(const struct kb_model *m)
{
	return m->metric;
}

int kb_model_check_metric(const struct kb_model *m, const char *metric,
			  struct kb_err *err)
{
	if (!strcmp(m->metric, metric))
		return 0;
	return kb_err_set(err, KB_EINPUT,
			  "%s: the model produces '%s' but the matrix's workload.metric is '%s'",
			  m->file, m->metric, metric);
}

const char *kb_model_text(const struct kb_model *m)
{
	return m->text;
}

uint64_t kb_model_seed(const struct kb_model *m)
{
	return m->seed;
}

const struct kb_model_time *kb_model_time(const struct kb_model *m)
{
	return &m->time;
}

void kb_model_noise(const struct kb_model *m, double *boot_cv,
		    double *run_cv)
{
	*boot_cv = m->boot_cv;
	*run_cv = m->run_cv;
}

double kb_model_expected(const struct kb_model *m, const struct kb_variant *v)
{
	unsigned char *memo = kb_model__memo_new(m);
	double value = m->base;
	size_t i;

	for (i = 0; i < m->neffects; i++)
		if (kb_model__holds(m, &m->effects[i], v, memo))
			value *= m->effects[i].factor;
	free(memo);
	return value;
}

double kb_model_sample(const struct kb_model *m, const struct kb_variant *v,
		       unsigned boot_no, unsigned run_no)
{
	uint64_t boot_stream, run_stream;

	if (run_no == 0) /* would share the boot's stream */
		run_no = 1;
	boot_stream = kb_rng_seed_from(m->seed, v->label, boot_no, 0);
	run_stream = kb_rng_seed_from(m->seed, v->label, boot_no, run_no);
	return kb_model_expected(m, v) *
	       kb_model__lognormal(m->boot_sigma, boot_stream) *
	       kb_model__lognormal(m->run_sigma, run_stream);
}

double kb_model_drift(const struct kb_model *m, unsigned seq,
		      unsigned total)
{
	unsigned n = m->drift.over ? m->drift.over : total;
	double t, f = 1, x = 0;
	unsigned i;

	if (!m->drift.on || !seq || !n)
		return 1;
	t = (double)seq / n;
	if (m->drift.linear)
		f *= 1 + m->drift.linear * t;
	if (m->drift.step && t >= m->drift.at)
		f *= 1 + m->drift.step;
	if (m->drift.ar_cv > 0) {
		double innov = m->drift.ar_cv *
			       sqrt(1 - m->drift.phi * m->drift.phi);
		struct kb_rng r;

		/* x_1 from the stationary law, then x_i = phi x_(i-1) + e_i,
		 * each draw of its own stream: the same seq, the same x */
		for (i = 1; i <= seq; i++) {
			kb_rng_init(&r, kb_rng_seed_from(m->seed, "drift", i, 0));
			x = i == 1 ? m->drift.ar_cv * kb_rng_normal(&r)
				   : m->drift.phi * x + innov * kb_rng_normal(&r);
		}
		f *= exp(x);
	}
	/* a run drifting past its end keeps its values positive */
	return f > 0.01 ? f : 0.01;
}

/* The first failure rule at @stage that holds for @v, or NULL. */
static const struct rule *failing(const struct kb_model *m,
				  const struct kb_variant *v, enum stage stage)
{
	unsigned char *memo = kb_model__memo_new(m);
	const struct rule *r = NULL;
	size_t i;

	for (i = 0; i < m->nfailures && !r; i++)
		if (m->failures[i].stage == stage &&
		    kb_model__holds(m, &m->failures[i], v, memo))
			r = &m->failures[i];
	free(memo);
	return r;
}

/* ---- the executor ------------------------------------------------------- */

struct model_exec {
	const struct kb_model *m;
	double scale;
	char *host;    /* the host its boots run on (kb_model_executor_on),
			* or NULL: "model" */
	long host_i;   /* that host's entry in the model's hosts, or -1 */
};

/* Really wait @seconds (simulated) × the time scale. */
static void wait_scaled(const struct model_exec *x, double seconds)
{
	double t = seconds * x->scale;
	struct timespec ts, rem;

	if (!(t > 0))
		return;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (nanosleep(&ts, &rem) < 0 && errno == EINTR)
		ts = rem;
}

static int model_build(void *self, const struct kb_variant *v,
		       struct kb_build_result *out, struct kb_err *err)
{
	const struct model_exec *x = self;
	const struct rule *r = failing(x->m, v, STAGE_BUILD);

	(void)err;
	wait_scaled(x, x->m->time.build_s);
	out->duration_s = x->m->time.build_s;
	if (r) {
		out->status = KB_BUILD_FAILED;
		out->reason = kb_asprintf("model: build fails when %s",
					  r->text);
		return 0;
	}
	out->status = KB_BUILD_OK;
	return 0;
}

static int model_boot_at(void *self, const struct kb_variant *v,
			 const struct kb_build_result *build, unsigned boot_no,
			 unsigned runs, const struct kb_boot_at *at,
			 struct kb_boot_result *out, struct kb_err *err)
{
	const struct model_exec *x = self;
	const struct kb_model *m = x->m;
	const struct rule *r;
	double duration, host_factor = 1;
	unsigned i;

	if (build && build->status != KB_BUILD_OK) {
		out->status = KB_BOOT_BUILD_FAILED;
		out->reason = kb_strdup("model: not booted: the build failed");
		return 0;
	}
	if (runs > KB_MATRIX_MAX_RUNS)
		return kb_err_set(err, KB_EFAIL,
				  "model: %u runs per boot is more than %d",
				  runs, KB_MATRIX_MAX_RUNS);
	out->host = kb_strdup(x->host ? x->host : "model");
	if (x->host_i >= 0) {
		const struct model_host *h = &m->hosts[x->host_i];
		unsigned n = atomic_fetch_add(&m->booted[x->host_i], 1) + 1;

		if (h->fails && n > h->fail_after) {
			wait_scaled(x, m->time.boot_s);
			out->duration_s = m->time.boot_s;
			out->status = KB_BOOT_LIBVIRT_ERROR;
			out->reason = kb_asprintf(
				"model: host %s is lost after %u boots (fail_after)",
				h->uri, h->fail_after);
			return 0;
		}
		host_factor = h->factor;
	}
	if ((r = failing(m, v, STAGE_BOOT))) {
		wait_scaled(x, m->time.boot_s);
		out->duration_s = m->time.boot_s;
		out->status = KB_BOOT_FAILED;
		out->reason = kb_asprintf("model: boot fails when %s", r->text);
		return 0;
	}
	/* the host's drift over the run, where the boot stands in it */
	if (at)
		host_factor *= kb_model_drift(m, at->seq, at->total);
	duration = m->time.boot_s + runs * m->time.run_s;
	wait_scaled(x, duration);
	out->duration_s = duration;
	out->status = KB_BOOT_OK;
	out->nruns = runs;
	out->runs = runs ? kb_calloc(runs, sizeof(*out->runs)) : NULL;
	for (i = 0; i < runs; i++) {
		double s = kb_model_sample(m, v, boot_no, i + 1) * host_factor;

		/* check_range() keeps samples finite; never store one that
		 * is not */
		if (!isfinite(s) || s <= 0)
			return kb_err_set(err, KB_EFAIL,
					  "model: run %u of boot %u of '%s' gives %g, not a finite positive number",
					  i + 1, boot_no, v->label, s);
		kb_sample_set(&out->runs[i], m->metric, s);
	}
	/* the monitors of every run, as a guest's (lib/monitor.h) */
	if (m->nmonitors && runs) {
		size_t k, j = 0;

		out->monitors = kb_calloc(runs * m->nmonitors,
					  sizeof(*out->monitors));
		for (i = 0; i < runs; i++) {
			for (k = 0; k < m->nmonitors; k++, j++) {
				struct kb_monitor_value *mv = &out->monitors[j];

				mv->run = i + 1;
				snprintf(mv->name, sizeof(mv->name), "%s",
					 kb_model_monitor_name(m, k));
				mv->value = kb_model_monitor_sample(m, k, v,
								    boot_no,
								    i + 1);
			}
		}
		out->nmonitors = j;
	}
	/* the profile of every run, as a guest's (lib/profile.h) */
	for (i = 0; m->profile_samples && i < runs; i++) {
		struct kb_profile_stack *p;
		size_t np;

		kb_model_profile(m, v, boot_no, i + 1, &p, &np);
		out->profile = kb_reallocarray(out->profile,
					       out->nprofile + np + 1,
					       sizeof(*out->profile));
		memcpy(out->profile + out->nprofile, p, np * sizeof(*p));
		out->nprofile += np;
		free(p);
	}
	return 0;
}

static int model_boot(void *self, const struct kb_variant *v,
		      const struct kb_build_result *build, unsigned boot_no,
		      unsigned runs, struct kb_boot_result *out,
		      struct kb_err *err)
{
	return model_boot_at(self, v, build, boot_no, runs, NULL, out, err);
}

static void model_exec_free(void *self)
{
	struct model_exec *x = self;

	if (x)
		free(x->host);
	free(x);
}

static const struct kb_executor_ops model_ops = {
	.name = "model",
	.build = model_build,
	.boot = model_boot,
	.free = model_exec_free,
	.boot_at = model_boot_at,
};

static int scale_valid(double scale)
{
	return isfinite(scale) && scale >= 0 &&
	       scale <= KB_MODEL_MAX_TIME_SCALE;
}

int kb_model_executor_new(const struct kb_model *m, double time_scale,
			  struct kb_executor **out)
{
	return kb_model_executor_on(m, time_scale, NULL, out);
}

int kb_model_executor_on(const struct kb_model *m, double time_scale,
			 const char *host, struct kb_executor **out)
{
	struct model_exec *x;
	size_t i;

	*out = NULL;
	if (!scale_valid(time_scale))
		return KB_EINPUT;
	x = kb_calloc(1, sizeof(*x));
	x->m = m;
	x->scale = time_scale;
	x->host = host ? kb_strdup(host) : NULL;
	x->host_i = -1;
	for (i = 0; host && i < m->nhosts; i++)
		if (!strcmp(m->hosts[i].uri, host))
			x->host_i = (long)i;
	*out = kb_executor_new(&model_ops, x);
	return 0;
}

int kb_model_time_scale_env(double *out, struct kb_err *err)
{
	const char *s = getenv("KBISECT_MODEL_TIME_SCALE");
	char *end;
	double d;

	if (!s || !*s) {
		*out = 1.0;
		return 0;
	}
	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !scale_valid(d))
		return kb_err_set(err, KB_EINPUT,
				  "KBISECT_MODEL_TIME_SCALE='%s' is not a number from 0 to %g (0 is instant, 1 real time)",
				  s, KB_MODEL_MAX_TIME_SCALE);
	*out = d;
	return 0;
}
