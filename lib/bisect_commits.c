/*
 * Commit bisection and `git bisect run`'s test (bisect_commits.h): the
 * commits are points of the same machinery as option bisection
 * (bisect_int.h), with kernel.rev the commit.
 */
#include "bisect_commits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "buf.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "sha256.h"
#include "store_bisect.h"
#include "variant.h"
#include "banned.h"

#define SUMMARY_IN_LABEL 60 /* characters of a commit's summary in labels */

/* The search state of a commit bisection. */
struct csearch {
	const struct kb_bisect_commit *commits;
	size_t n;
	long *point_of;            /* commit -> its point, or -1 */
	struct kb_bisect_commits_result *cr;
};

void kb_bisect_commits_result_free(struct kb_bisect_commits_result *r)
{
	if (!r)
		return;
	kb_bisect__probes_free(r->probes, r->nprobes);
	kb_bisect__probe_release(&r->end);
	free(r->stored_at);
	free(r);
}

/* ---- the answer kept for a rerun (bisect_int.h) ----------------------- */

#define COMMITS_ANSWER_TAG "kbisect-commits-answer-2"

/* What decides a commit bisection: the shared inputs and the commits. */
static void commits_inputs(struct bisect *b, const struct kb_bisect_commit *c,
			   size_t n)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t i;

	kb_bisect__inputs_begin(b, "commits", &text);
	kb_buf_addf(&text, "commits %zu\n", n);
	for (i = 0; i < n; i++)
		kb_bisect__inputs_str(&text, c[i].sha);
	kb_bisect__inputs_end(b, &text);
	kb_buf_release(&text);
}

/*
 * Every field of struct kb_bisect_commits_result but the ids and
 * stored_at; a field added is coded here too (the size check fails
 * until it is, LP64).
 */
#if defined(__LP64__)
_Static_assert(sizeof(struct kb_bisect_commits_result) == 504,
	       "a field of struct kb_bisect_commits_result is kept in the answer: code it in code_commits() (lib/bisect_commits.c), bump its tag, then set this size");
#endif

static void code_commits(struct kb_bisect_codec *c,
			 struct kb_bisect_commits_result *r)
{
	size_t n = r->ncommits;
	long max = n ? (long)n - 1 : 0;
	int verdict = (int)r->effect_verdict;

	kb_bisect__code_tag(c, COMMITS_ANSWER_TAG);
	kb_bisect__code_tag(c, "commits");
	kb_bisect__code_size(c, &r->ncommits, n);
	kb_bisect__code_int(c, &r->reproduced, 0, 1);
	kb_bisect__code_comparison(c, &r->ends);
	kb_bisect__code_long(c, &r->first_bad, -1, max);
	kb_bisect__code_size(c, &r->cand_first, (size_t)max);
	kb_bisect__code_size(c, &r->cand_last, (size_t)max);
	kb_bisect__code_size(c, &r->last_good, (size_t)max);
	kb_bisect__code_real(c, &r->change_pct);
	kb_bisect__code_real(c, &r->ci_low);
	kb_bisect__code_real(c, &r->ci_high);
	kb_bisect__code_uint(c, &r->effect_boots);
	kb_bisect__code_int(c, &r->confirmed, 0, 1);
	kb_bisect__code_int(c, &verdict, KB_VERDICT_NO_CHANGE,
			    KB_VERDICT_INCONCLUSIVE);
	r->effect_verdict = (enum kb_verdict)verdict;
	kb_bisect__code_int(c, &r->complete, 0, 1);
	kb_bisect__code_tag(c, "spent");
	kb_bisect__code_uint(c, &r->builds);
	kb_bisect__code_uint(c, &r->boots);
	kb_bisect__code_uint(c, &r->runs);
	kb_bisect__code_probes(c, &r->probes, &r->nprobes, 0, n);
	kb_bisect__code_tag(c, "end");
	kb_bisect__code_probe(c, &r->end, 0, n);
	kb_bisect__code_tag(c, "eof");
	if (r->cand_first > r->cand_last)
		c->bad = 1;
}

static char *commits_answer(const struct kb_bisect_commits_result *r)
{
	struct kb_buf out = KB_BUF_INIT;
	struct kb_bisect_codec c = { .out = &out, .p = NULL, .end = NULL,
				     .bad = 0 };
	struct kb_bisect_commits_result copy = *r;

	code_commits(&c, &copy);
	kb_buf_addch(&out, '\n');
	return kb_buf_detach(&out);
}

/* The stored answer of the same commit bisection into *@out, when there
 * is one (*@out NULL when not). */
static int commits_stored(struct bisect *b, size_t n,
			  struct kb_bisect_commits_result **out,
			  struct kb_err *err)
{
	struct kb_store_bisection_answer a;
	struct kb_bisect_commits_result *r = NULL;
	struct kb_bisect_codec c = { .out = NULL, .p = NULL, .end = NULL,
				     .bad = 0 };
	int ret;

	*out = NULL;
	ret = kb_bisect__answer_find(b, "commits", &a, err);
	if (ret == KB_ENOTFOUND)
		return 0;
	if (ret)
		return ret;
	r = kb_calloc(1, sizeof(*r));
	r->ncommits = n;
	c.p = a.answer;
	c.end = a.answer + strlen(a.answer);
	code_commits(&c, r);
	if (!c.bad && *c.p)
		c.bad = strspn(c.p, " \n") != strlen(c.p);
	if (c.bad) {
		ret = kb_bisect__answer_damaged(b, &a, "not an answer this kbisect wrote", err);
		goto out;
	}
	r->experiment = a.experiment_id;
	r->bisection = a.id;
	r->stored_at = a.created_at;
	a.created_at = NULL;
	*out = r;
	r = NULL;
out:
	kb_bisect_commits_result_free(r);
	kb_store_bisection_answer_release(&a);
	return ret;
}

void kb_bisect_test_result_release(struct kb_bisect_test_result *r)
{
	if (!r)
		return;
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

static int is_kernel_source(const char *name)
{
	return !strcmp(name, "kernel.rev") || !strcmp(name, "kernel.image");
}

/*
 * Add a point for commit @c: the settings of the options with kernel.rev
 * the commit.  @end names an end ("good", "bad") in its label; NULL: the
 * label is the short sha and the summary.  Returns its index in b->points.
 */
static size_t commit_point_new(struct bisect *b,
			       const struct kb_bisect_commit *c,
			       const char *end)
{
	const struct kb_bisect_opts *o = b->o;
	struct kb_buf text = KB_BUF_INIT;
	char hex[KB_SHA256_HEX_LEN + 1];
	struct point *p = kb_bisect__point_add(b);
	size_t i, k = 0;

	p->full = kb_calloc(o->nsettings + 1, sizeof(*p->full));
	kb_buf_addf(&text, "kbisect-bisect-commit-v1\nsalt=%s\n",
		    o->build_salt ? o->build_salt : "");
	for (i = 0; i < o->nsettings; i++) {
		if (is_kernel_source(o->settings[i].name))
			continue;
		p->full[k++] = o->settings[i];
		kb_buf_addf(&text, "%s=%s\n", o->settings[i].name,
			    o->settings[i].value);
	}
	p->full[k].name = "kernel.rev";
	p->full[k].value = c->sha;
	p->full[k].kind = KB_FACTOR_KERNEL;
	k++;
	kb_buf_addf(&text, "kernel.rev=%s\n", c->sha);
	kb_sha256_hex(text.buf, text.len, hex);
	p->key = kb_strdup(hex);
	if (end)
		p->label = kb_asprintf("%s %.12s", end, c->sha);
	else
		p->label = kb_asprintf("%.12s %.*s", c->sha, SUMMARY_IN_LABEL,
				       c->summary ? c->summary : "");
	kb_bisect__point_variants(b, p, k);
	kb_buf_release(&text);
	return p->idx;
}

/* A fresh struct bisect for commits (its result holds the counters). */
static void commit_bisect_init(struct bisect *b, struct kb_store *s,
			       struct kb_executor *ex,
			       const struct kb_bisect_opts *o)
{
	kb_bisect__init(b, s, ex, o);
	b->copts_good = b->copts_bad = b->copts;
}

static int commits_start(struct bisect *b, const struct csearch *cs,
			 struct kb_err *err)
{
	commit_point_new(b, &cs->commits[0], "good");
	commit_point_new(b, &cs->commits[cs->n - 1], "bad");
	cs->point_of[0] = 0;
	cs->point_of[cs->n - 1] = 1;
	return kb_bisect__store_ends(b, "commits", err);
}

/* Compare the ends and store them as step 1. */
static int commits_confirm(struct bisect *b, const struct csearch *cs,
			   struct kb_err *err)
{
	struct kb_bisect_probe *pr = &b->r->end;
	const struct kb_bisect_commit *bad = &cs->commits[cs->n - 1];
	char *text;
	int ret;

	if ((ret = kb_bisect__confirm_ends(b, err)))
		return ret;
	pr->commit = cs->n - 1;
	text = kb_asprintf("the bad end: %s %s (%u boots against %zu of the good end)",
			   bad->sha, bad->summary ? bad->summary : "",
			   pr->boots, b->points[0].nvalues);
	ret = kb_bisect__store_step(b, pr, text, err);
	free(text);
	if (ret == 0 && b->o->on_commit)
		b->o->on_commit(pr, b->o->progress_arg);
	return ret;
}

/* Build, boot and classify commit @i as the next probe. */
static int probe_commit(struct bisect *b, struct csearch *cs, size_t i,
			enum kb_bisect_class *cls, struct kb_err *err)
{
	struct kb_bisect_commits_result *cr = cs->cr;
	const struct kb_bisect_commit *c = &cs->commits[i];
	struct kb_bisect_probe pr;
	char *text;
	size_t k;
	int ret;

	k = commit_point_new(b, c, NULL);
	cs->point_of[i] = (long)k;
	memset(&pr, 0, sizeof(pr));
	pr.step = (unsigned)cr->nprobes + 2;
	pr.variant_idx = (int)b->points[k].idx;
	pr.commit = i;
	text = kb_asprintf("%s %s", c->sha, c->summary ? c->summary : "");
	if ((ret = kb_bisect__classify(b, &b->points[k], &pr, err)) ||
	    (ret = kb_bisect__store_step(b, &pr, text, err))) {
		free(text);
		kb_bisect__probe_release(&pr);
		return ret;
	}
	free(text);
	b->points[k].probe = cr->nprobes;
	cr->probes = kb_reallocarray(cr->probes, cr->nprobes + 1,
				     sizeof(*cr->probes));
	cr->probes[cr->nprobes++] = pr;
	if (b->o->on_commit)
		b->o->on_commit(&cr->probes[cr->nprobes - 1],
				b->o->progress_arg);
	*cls = pr.cls;
	return 0;
}

/*
 * The untested commit strictly between @lo and @hi nearest their
 * midpoint, alternating sides (mid, mid + 1, mid - 1, ...); -1 when every
 * one of them was probed.
 */
static long next_commit(const struct csearch *cs, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, d;
	int inside = 1;

	for (d = 0; inside; d++) {
		inside = 0;
		if (mid + d < hi) {
			inside = 1;
			if (cs->point_of[mid + d] < 0)
				return (long)(mid + d);
		}
		if (d && mid >= d && mid - d > lo) {
			inside = 1;
			if (cs->point_of[mid - d] < 0)
				return (long)(mid - d);
		}
	}
	return -1;
}

/*
 * git bisect over the commits: narrow [lo, hi] (last good, first bad
 * known) on good and bad probes only, until they are neighbours or no
 * untested commit is left between them.
 */
static int commits_search(struct bisect *b, struct csearch *cs,
			  size_t *lo, size_t *hi, struct kb_err *err)
{
	enum kb_bisect_class cls;
	long i;
	int ret;

	*lo = 0;
	*hi = cs->n - 1;
	while (*hi - *lo > 1) {
		if ((i = next_commit(cs, *lo, *hi)) < 0)
			break;
		if (cs->cr->nprobes >= b->max_probes) {
			b->stopped = 1;
			break;
		}
		if ((ret = probe_commit(b, cs, (size_t)i, &cls, err)))
			return ret;
		if (cls == KB_BISECT_GOOD)
			*lo = (size_t)i;
		else if (cls == KB_BISECT_BAD)
			*hi = (size_t)i;
	}
	return 0;
}

/*
 * The answer: the first bad commit (or the candidates) and its effect
 * against the last good commit, both brought to max_boots.  Sets
 * *@result to the text stored with the bisection.
 */
static int commits_conclude(struct bisect *b, struct csearch *cs,
			    size_t lo, size_t hi, char **result,
			    struct kb_err *err)
{
	struct kb_bisect_commits_result *cr = cs->cr;
	struct point *good = &b->points[cs->point_of[lo]];
	struct point *bad = &b->points[cs->point_of[hi]];
	const struct kb_bisect_commit *c = &cs->commits[hi];
	struct kb_buf text = KB_BUF_INIT;
	struct kb_comparison eff;
	size_t i;
	int ret;

	cr->last_good = lo;
	cr->cand_first = lo + 1;
	cr->cand_last = hi;
	cr->first_bad = hi == lo + 1 ? (long)hi : -1;
	/* the effect from boots that ran side by side */
	if ((ret = kb_bisect__measure_pair(b, good, bad, b->o->max_boots, &eff,
					   err)))
		return ret;
	if (isfinite(eff.change_pct)) {
		cr->change_pct = eff.change_pct;
		cr->ci_low = eff.ci_low;
		cr->ci_high = eff.ci_high;
		cr->effect_boots = (unsigned)eff.b.n;
	}
	cr->effect_verdict = eff.verdict;
	cr->confirmed = eff.verdict == KB_VERDICT_REGRESSION;
	if (cr->first_bad >= 0) {
		kb_buf_addf(&text, "first bad commit %s %s", c->sha,
			    c->summary ? c->summary : "");
	} else {
		kb_buf_addf(&text, "the first bad commit is one of %zu:",
			    hi - lo);
		for (i = lo + 1; i <= hi; i++)
			kb_buf_addf(&text, " %.12s", cs->commits[i].sha);
	}
	if (!cr->complete)
		kb_buf_adds(&text, " (incomplete: max_probes reached)");
	*result = kb_buf_detach(&text);
	return 0;
}

int kb_bisect_commits(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_bisect_commit *commits, size_t n,
		      const struct kb_bisect_opts *o,
		      struct kb_bisect_commits_result **out,
		      struct kb_err *err)
{
	struct bisect b;
	struct csearch cs;
	struct kb_bisect_commits_result *cr = NULL;
	char *result = NULL, *answer = NULL;
	size_t i, lo = 0, hi = 0;
	int ret;

	*out = NULL;
	if ((ret = kb_bisect__check_opts(o, err)))
		return ret;
	if (n < 2)
		return kb_err_set(err, KB_EINPUT,
				  "bisecting commits needs a good and a bad commit, found %zu commits",
				  n);
	commit_bisect_init(&b, s, ex, o);
	/* the same bisection finished before answers: nothing built or
	 * booted (opts.fresh bisects again) */
	commits_inputs(&b, commits, n);
	if ((ret = commits_stored(&b, n, out, err)) || *out) {
		kb_bisect_result_free(b.r);
		kb_bisect__release(&b);
		return ret;
	}
	memset(&cs, 0, sizeof(cs));
	cs.commits = commits;
	cs.n = n;
	cs.point_of = kb_calloc(n, sizeof(*cs.point_of));
	for (i = 0; i < n; i++)
		cs.point_of[i] = -1;
	cs.cr = cr = kb_calloc(1, sizeof(*cr));
	cr->ncommits = n;
	cr->first_bad = -1;
	cr->change_pct = cr->ci_low = cr->ci_high = NAN;
	cr->complete = 1;
	if ((ret = commits_start(&b, &cs, err)) ||
	    (ret = commits_confirm(&b, &cs, err)))
		goto out;
	if (b.r->reproduced) {
		if ((ret = commits_search(&b, &cs, &lo, &hi, err)))
			goto out;
		cr->complete = !b.stopped;
		if ((ret = commits_conclude(&b, &cs, lo, hi, &result, err)))
			goto out;
	} else {
		result = kb_bisect__unreproduced(&b);
	}
	cr->reproduced = b.r->reproduced;
	cr->ends = b.r->ends;
	cr->end = b.r->end;
	memset(&b.r->end, 0, sizeof(b.r->end));
	cr->builds = b.r->builds;
	cr->boots = b.r->boots;
	cr->runs = b.r->runs;
	cr->experiment = b.r->experiment;
	cr->bisection = b.r->bisection;
	answer = commits_answer(cr);
	if ((ret = kb_bisect__answer_keep(&b, answer, err)) ||
	    (ret = kb_bisect__finish(&b, result, err)))
		goto out;
	*out = cr;
	cr = NULL;
out:
	if (ret)
		kb_bisect__fail(&b, err);
	free(answer);
	free(result);
	free(cs.point_of);
	kb_bisect_commits_result_free(cr);
	kb_bisect_result_free(b.r);
	kb_bisect__release(&b);
	return ret;
}

/* ---- git bisect run: one commit against a baseline -------------------- */

/*
 * The call of kb_bisect_test() on comparison @c: bad on a regression;
 * good on no change, an improvement, or an interval that rules out a
 * regression of the threshold (its harmful end inside it); 0 when more
 * boots may tell.
 */
static int test_decide(const struct kb_comparison *c,
		       const struct kb_compare_opts *o,
		       enum kb_bisect_class *cls)
{
	double harm = o->higher_is_better ? -c->ci_low : c->ci_high;

	if (c->verdict == KB_VERDICT_REGRESSION) {
		*cls = KB_BISECT_BAD;
		return 1;
	}
	if (c->verdict != KB_VERDICT_INCONCLUSIVE ||
	    (isfinite(harm) && harm < o->threshold_pct)) {
		*cls = KB_BISECT_GOOD;
		return 1;
	}
	*cls = KB_BISECT_UNKNOWN;
	return 0;
}

/*
 * The end of a test's bisection @b: after @ret 0, finished and its
 * counters in @out; else marked failed and @out released.  Frees @b.
 */
static int test_end(struct bisect *b, int ret,
		    struct kb_bisect_test_result *out, struct kb_err *err)
{
	if (ret == 0 && (ret = kb_bisect__finish(b, NULL, err)) == 0) {
		out->builds = b->r->builds;
		out->boots = b->r->boots;
		out->runs = b->r->runs;
		out->experiment = b->r->experiment;
	}
	if (ret) {
		kb_bisect__fail(b, err);
		kb_bisect_test_result_release(out);
	}
	kb_bisect_result_free(b->r);
	kb_bisect__release(b);
	return ret;
}

/*
 * kb_bisect_test_beside()'s sequential test: rounds of @g and @c in a
 * fresh order each (kb_bisect__measure_pair()), the paired comparison of
 * the rounds both have (kb_compare_paired()) at the looks of
 * kb_compare_looks(), each at its calibrated level, until it decides or
 * reaches max_boots rounds.  No futility stop: a commit that changes
 * nothing is called good by its interval narrowing inside the threshold,
 * which the rounds futility would cut short do.
 */
static int test_rounds(struct bisect *b, struct point *g, struct point *c,
		       struct kb_bisect_test_result *out, struct kb_err *err)
{
	const struct kb_bisect_opts *o = b->o;
	const struct point *pts[2] = { g, c };
	struct kb_compare_opts co = b->copts;
	unsigned n[KB_COMPARE_LOOKS_MAX];
	struct kb_comparison ignored;
	struct kb_aligned l;
	size_t nlooks, j;
	int ret;

	if (o->max_boots > o->boots) {
		co.look_alpha = kb_compare_look_alpha_welch(
			o->boots, o->max_boots, o->alpha, &co.looks);
		co.look_alpha_paired = kb_compare_look_alpha_paired(
			o->boots, o->max_boots, o->alpha, NULL);
	}
	nlooks = kb_compare_looks(o->boots, o->max_boots, n);
	memset(&out->cmp, 0, sizeof(out->cmp));
	out->cmp.verdict = KB_VERDICT_INCONCLUSIVE;
	out->cmp.change_pct = out->cmp.ci_low = out->cmp.ci_high = NAN;
	out->cmp.p = NAN;
	for (j = 0; j < nlooks; j++) {
		if ((ret = kb_bisect__measure_pair(b, g, c, n[j], &ignored,
						   err)))
			return ret;
		if (g->nvalues < 2 && kb_bisect__exhausted(b, g))
			return kb_err_set(err, KB_EFAIL,
					  "the good commit %.12s cannot be measured: %s",
					  o->good_name,
					  g->reason ? g->reason : "no value");
		kb_bisect__aligned(pts, 2, 0, &l);
		if (l.n >= KB_COMPARE_MIN_PAIRS)
			kb_compare_paired(l.pt[0].values, l.pt[1].values, NULL,
					  l.n, &co, &out->cmp);
		kb_bisect__aligned_release(&l);
		if (out->cmp.npairs < KB_COMPARE_MIN_PAIRS &&
		    kb_bisect__exhausted(b, c)) {
			out->cls = KB_BISECT_SKIP;
			out->reason = kb_strdup(c->reason ? c->reason
							  : "not measured");
			return 0;
		}
		if (out->cmp.npairs >= KB_COMPARE_MIN_PAIRS &&
		    test_decide(&out->cmp, &b->copts, &out->cls))
			return 0;
		if (kb_bisect__exhausted(b, g) || kb_bisect__exhausted(b, c))
			break;
	}
	out->cls = KB_BISECT_UNKNOWN;
	return 0;
}

int kb_bisect_test_beside(struct kb_store *s, struct kb_executor *ex,
			  const struct kb_bisect_commit *good,
			  const struct kb_bisect_commit *commit,
			  const struct kb_bisect_opts *o,
			  struct kb_bisect_test_result *out,
			  struct kb_err *err)
{
	struct kb_variant v[2];
	struct bisect b;
	char *desc = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = kb_bisect__check_opts(o, err)))
		return ret;
	commit_bisect_init(&b, s, ex, o);
	commit_point_new(&b, good, "good");
	commit_point_new(&b, commit, NULL);
	v[0] = b.points[0].stored;
	v[1] = b.points[1].stored;
	if (!o->matrix_text)
		desc = kb_asprintf("# kbisect test: no matrix given\n"
				   "# commit: %s\n# good: %s\n",
				   commit->sha, good->sha);
	ret = kb_bisect__experiment_create(&b, "bisect-test", desc, v, 2, err);
	free(desc);
	if (ret)
		goto out;
	b.points[0].in_store = b.points[1].in_store = 1;
	ret = test_rounds(&b, &b.points[0], &b.points[1], out, err);
out:
	return test_end(&b, ret, out, err);
}

int kb_bisect_test(struct kb_store *s, struct kb_executor *ex,
		   const double *baseline, size_t nbaseline,
		   const struct kb_bisect_commit *commit,
		   const struct kb_bisect_opts *o,
		   struct kb_bisect_test_result *out, struct kb_err *err)
{
	struct bisect b;
	struct point *p;
	char *desc = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = kb_bisect__check_opts(o, err)))
		return ret;
	if (nbaseline < 2)
		return kb_err_set(err, KB_EINPUT,
				  "the baseline has %zu boots with a value: a comparison needs at least 2",
				  nbaseline);
	commit_bisect_init(&b, s, ex, o);
	commit_point_new(&b, commit, NULL);
	p = &b.points[0];
	if (!o->matrix_text)
		desc = kb_asprintf("# kbisect test: no matrix given\n"
				   "# commit: %s\n# baseline: %s\n",
				   commit->sha, o->good_name);
	ret = kb_bisect__experiment_create(&b, "bisect-test", desc, &p->stored,
					   1, err);
	free(desc);
	if (ret)
		goto out;
	p->in_store = 1;
	if ((ret = kb_bisect__measure(&b, p, o->boots, err)))
		goto out;
	for (;;) {
		if (p->nvalues < 2 && kb_bisect__exhausted(&b, p)) {
			out->cls = KB_BISECT_SKIP;
			out->reason = kb_strdup(p->reason ? p->reason
							  : "not measured");
			break;
		}
		if (p->nvalues >= 1)
			kb_compare_samples(baseline, nbaseline, p->values,
					   p->nvalues, &b.copts, &out->cmp);
		if (p->nvalues >= 1 && test_decide(&out->cmp, &b.copts,
						   &out->cls))
			break;
		if (kb_bisect__exhausted(&b, p) || p->nvalues >= o->max_boots) {
			out->cls = KB_BISECT_UNKNOWN;
			break;
		}
		if ((ret = kb_bisect__measure(&b, p, p->nvalues + 1, err)))
			goto out;
	}
out:
	return test_end(&b, ret, out, err);
}
