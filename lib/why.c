#include "why.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "stats.h"
#include "banned.h"

/* Not classified yet, in the per-set table of kb_why_explain(). */
#define NOT_TRIED 0xff

/* The fewest rounds an interaction is judged within (else: pooled). */
#define MIN_BLOCKED_ROUNDS 3

const char *kb_why_answer_name(enum kb_why_answer a)
{
	switch (a) {
	case KB_WHY_NOTHING_WORSE:
		return "nothing-worse";
	case KB_WHY_NOT_REPRODUCED:
		return "does-not-reproduce";
	case KB_WHY_EXPLAINED:
		return "explained";
	case KB_WHY_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}

const char *kb_why_blocks_name(enum kb_why_blocks b)
{
	switch (b) {
	case KB_WHY_BLOCKS_FRESH:
		return "fresh-rounds";
	case KB_WHY_BLOCKS_STORED:
		return "stored";
	case KB_WHY_BLOCKS_GIVEN:
		return "given";
	}
	return "?";
}

const char *kb_why_set_class_name(enum kb_why_set_class c)
{
	switch (c) {
	case KB_WHY_SET_REPRODUCES:
		return "reproduces";
	case KB_WHY_SET_SHORT:
		return "does-not";
	case KB_WHY_SET_UNKNOWN:
		return "unknown";
	case KB_WHY_SET_UNMEASURED:
		return "not-measured";
	}
	return "?";
}

/* A comparison that was not made: NaN numbers, inconclusive. */
static void not_compared(struct kb_comparison *c)
{
	memset(c, 0, sizeof(*c));
	c->change_pct = c->ci_low = c->ci_high = c->p = NAN;
	c->a.mean = c->b.mean = NAN;
	c->verdict = KB_VERDICT_INCONCLUSIVE;
}

/* Next k-subset of 0..n-1 in lexicographic order; 0 when done. */
static int next_subset(size_t *idx, size_t k, size_t n)
{
	size_t i = k;

	while (i > 0 && idx[i - 1] == n - k + i - 1)
		i--;
	if (i == 0)
		return 0;
	idx[i - 1]++;
	for (; i < k; i++)
		idx[i] = idx[i - 1] + 1;
	return 1;
}

/*
 * @ia against @ib at level @alpha, as `why` judges every comparison: in
 * fresh rounds (w->blocks), side by side on the rounds from the first
 * fresh one that both have, rounds of both with A and B added as the
 * sequential test needs; otherwise on the boots there are, more added
 * as needed.  *@nrounds (may be NULL): the rounds used (0: not in
 * rounds).
 */
static int judge(struct kb_analysis *a, const struct kb_why *w,
		 unsigned ia, unsigned ib, double alpha,
		 struct kb_comparison *out, unsigned *nrounds,
		 struct kb_err *err)
{
	unsigned with[2] = { w->good, w->bad }, n = 0;
	int ret;

	if (w->blocks != KB_WHY_BLOCKS_FRESH)
		ret = kb_analysis_compare_at(a, ia, ib, 1, alpha, out, err);
	else if (w->nparty)
		ret = kb_analysis_compare_rounds(a, ia, ib, w->first_round,
						 w->party, w->nparty,
						 w->block_start, 1, alpha, out,
						 &n, err);
	else
		ret = kb_analysis_compare_rounds(a, ia, ib, w->first_round,
						 with, 2, w->block_start, 1,
						 alpha, out, &n, err);
	if (nrounds)
		*nrounds = n;
	return ret;
}

/*
 * Does the culprit's effect (base -> base+f) differ at another level of
 * factor g?  Compared on the log scale within the rounds all four
 * variants ran in (kb_analysis_contrast_rounds(): a t-test of the contrasts, n - 1
 * degrees of freedom), or, with fewer than MIN_BLOCKED_ROUNDS such
 * rounds, on the cells' means with the pooled variance; sets p, and
 * leaves significance to the family's adjustment.
 */
static int interaction(struct kb_analysis *a, struct kb_why_culprit *cu,
		       unsigned base, unsigned with, size_t g,
		       const char *level, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	struct kb_why_interaction *in;
	size_t lv, n0, n1, n2, n3, nr;
	double m0, m1, m2, m3, var, df, se, t, md, vd;
	unsigned idx[4];
	int b2 = -1, w2 = -1, ret;

	/* base and base+f with g at @level */
	for (lv = 0; lv < kb_plan_nvariants(p); lv++) {
		const struct kb_variant *v = kb_plan_variant(p, lv);
		const struct kb_variant *vb = kb_plan_variant(p, base);
		const struct kb_variant *vw = kb_plan_variant(p, with);
		size_t j;
		int is_b = 1, is_w = 1;

		for (j = 0; j < v->nsettings; j++) {
			const char *want_b = j == g ? level
					   : vb->settings[j].value;
			const char *want_w = j == g ? level
					   : vw->settings[j].value;

			is_b &= !strcmp(v->settings[j].value, want_b);
			is_w &= !strcmp(v->settings[j].value, want_w);
		}
		if (is_b)
			b2 = (int)lv;
		if (is_w)
			w2 = (int)lv;
	}
	if (b2 < 0 || w2 < 0 || cu->ninter >= KB_WHY_MAX)
		return 0; /* not measured by this design */
	in = &cu->inter[cu->ninter];
	memset(in, 0, sizeof(*in));
	in->factor = g;
	in->level = level;
	if ((ret = kb_analysis_compare(a, (unsigned)b2, (unsigned)w2, 1,
				       &in->c, err)))
		return ret;
	idx[0] = base;
	idx[1] = with;
	idx[2] = (unsigned)b2;
	idx[3] = (unsigned)w2;
	nr = kb_analysis_contrast_rounds(a, idx, &md, &vd);
	if (nr >= MIN_BLOCKED_ROUNDS && isfinite(vd)) {
		in->diff_log = md;
		in->rounds = nr;
		se = sqrt(vd / (double)nr);
		df = (double)(nr - 1);
	} else {
		kb_analysis_log_cell(a, base, &m0, &n0);
		kb_analysis_log_cell(a, with, &m1, &n1);
		kb_analysis_log_cell(a, (unsigned)b2, &m2, &n2);
		kb_analysis_log_cell(a, (unsigned)w2, &m3, &n3);
		kb_analysis_log_pooled(a, &var, &df);
		if (!n0 || !n1 || !n2 || !n3 || isnan(var) || df < 1)
			return 0;
		in->diff_log = (m3 - m2) - (m1 - m0);
		se = sqrt(var * (1.0 / (double)n0 + 1.0 / (double)n1 +
				 1.0 / (double)n2 + 1.0 / (double)n3));
	}
	t = se > 0 ? fabs(in->diff_log) / se : INFINITY;
	in->p = 2 * kb_stats_t_cdf(-t, df);
	in->p_adj = in->p;
	cu->ninter++;
	return 0;
}

/*
 * The "depends on" tests of every culprit are one family: Holm-adjust
 * their p-values; an interaction counts when its adjusted p is below alpha
 * and it changes the effect by at least the threshold.  A culprit is an
 * independent regression when its change alone is one and nothing changes
 * its effect.
 */
static void judge_interactions(const struct kb_analysis *a, struct kb_why *w)
{
	const struct kb_compare_opts *o = kb_analysis_opts(a);
	double p[KB_WHY_MAX * KB_WHY_MAX], adj[KB_WHY_MAX * KB_WHY_MAX];
	size_t i, k, n = 0;

	for (i = 0; i < w->nculprits; i++)
		for (k = 0; k < w->culprits[i].ninter; k++)
			p[n++] = w->culprits[i].inter[k].p;
	kb_stats_p_adjust(p, n, KB_P_ADJUST_HOLM, adj);
	for (i = n = 0; i < w->nculprits; i++) {
		struct kb_why_culprit *cu = &w->culprits[i];

		cu->independent = cu->alone.verdict == KB_VERDICT_REGRESSION;
		for (k = 0; k < cu->ninter; k++) {
			struct kb_why_interaction *in = &cu->inter[k];

			in->p_adj = adj[n++];
			in->significant = in->p_adj < o->alpha &&
					  fabs(exp(in->diff_log) - 1) * 100 >=
						  o->threshold_pct;
			if (in->significant)
				cu->independent = 0;
		}
	}
}

/* @ia against B, at the level of comparisons with B (why.h). */
static int compare_bad(struct kb_analysis *a, const struct kb_why *w,
		       unsigned ia, struct kb_comparison *out,
		       struct kb_err *err)
{
	return judge(a, w, ia, w->bad, w->alpha, out, NULL, err);
}

/*
 * Measure set @s (A with its changes) against both ends and classify it
 * (why.h).  The whole set is B itself: it reproduces by definition.
 */
static int try_set(struct kb_analysis *a, const struct kb_why *w,
		   struct kb_why_set *s, struct kb_err *err)
{
	enum kb_verdict from, to;
	int ret;

	not_compared(&s->from_good);
	not_compared(&s->to_bad);
	if (s->variant < 0) {
		s->cls = KB_WHY_SET_UNMEASURED;
		return 0;
	}
	if ((unsigned)s->variant == w->bad) {
		s->from_good = w->total;
		s->cls = KB_WHY_SET_REPRODUCES;
		return 0;
	}
	if ((ret = judge(a, w, w->good, (unsigned)s->variant,
			 kb_analysis_opts(a)->alpha, &s->from_good, NULL,
			 err)) ||
	    (ret = compare_bad(a, w, (unsigned)s->variant, &s->to_bad, err)))
		return ret;
	from = s->from_good.verdict;
	to = s->to_bad.verdict;
	if (to == KB_VERDICT_REGRESSION || from == KB_VERDICT_NO_CHANGE ||
	    from == KB_VERDICT_IMPROVEMENT)
		s->cls = KB_WHY_SET_SHORT;
	else if (from == KB_VERDICT_REGRESSION)
		s->cls = KB_WHY_SET_REPRODUCES;
	else
		s->cls = KB_WHY_SET_UNKNOWN;
	return 0;
}

/*
 * Is every set of @mask (over w->diff) without one of its factors shown
 * not to reproduce?  The empty set is A itself, which does not (A -> B is
 * a regression).  @cls holds each set's class by mask.
 */
static int each_needed(const unsigned char *cls, uint32_t mask)
{
	uint32_t bit;

	for (bit = 1; bit && bit <= mask; bit <<= 1) {
		uint32_t sub = mask & ~bit;

		if (!(mask & bit) || !sub)
			continue;
		if (cls[sub] != KB_WHY_SET_SHORT)
			return 0;
	}
	return 1;
}

/*
 * In fresh rounds, the sets of @k changes share their rounds: each round
 * added from now on boots A, B and every measured set of that size (the
 * first KB_WHY_MAX_SETS), so that A and B are booted once a round for
 * all of them and the rounds, fewer, span less of the host's drift.
 */
static void share_rounds(const struct kb_analysis *a, struct kb_why *w,
			 size_t k)
{
	size_t idx[KB_WHY_MAX], f[KB_WHY_MAX], i;

	w->nparty = 0;
	if (w->blocks != KB_WHY_BLOCKS_FRESH || k >= w->ndiff)
		return;
	w->party[w->nparty++] = w->good;
	w->party[w->nparty++] = w->bad;
	for (i = 0; i < k; i++)
		idx[i] = i;
	do {
		int v;

		for (i = 0; i < k; i++)
			f[i] = w->diff[idx[i]];
		v = kb_analysis_find(a, w->good, w->bad, f, k);
		if (v >= 0 && w->nparty < KB_WHY_MAX_SETS + 2)
			w->party[w->nparty++] = (unsigned)v;
	} while (next_subset(idx, k, w->ndiff));
}

/*
 * Sets of the differing factors, smallest first, until some size has a
 * set that reproduces; then the answer (why.h).  Fills w->sets, the
 * counts, and either the culprits' factors (returned in *@culprit_mask)
 * or the suspects.
 */
static int search(struct kb_analysis *a, struct kb_why *w,
		  uint32_t *culprit_mask, struct kb_err *err)
{
	unsigned char *cls = kb_malloc((size_t)1 << w->ndiff);
	size_t idx[KB_WHY_MAX], i, k, nrep = 0;
	uint32_t first = 0, all = 0, common = ~(uint32_t)0;
	int ret = 0;

	memset(cls, NOT_TRIED, (size_t)1 << w->ndiff);
	*culprit_mask = 0;
	for (k = 1; k <= w->ndiff && !nrep; k++) {
		share_rounds(a, w, k);
		for (i = 0; i < k; i++)
			idx[i] = i;
		do {
			struct kb_why_set s;
			uint32_t mask = 0;

			memset(&s, 0, sizeof(s));
			s.n = k;
			for (i = 0; i < k; i++) {
				s.factors[i] = w->diff[idx[i]];
				mask |= (uint32_t)1 << idx[i];
			}
			s.variant = k == w->ndiff
					    ? (int)w->bad
					    : kb_analysis_find(a, w->good,
							       w->bad,
							       s.factors, k);
			if ((ret = try_set(a, w, &s, err)))
				goto out;
			cls[mask] = (unsigned char)s.cls;
			w->ntried++;
			if (s.cls == KB_WHY_SET_UNKNOWN ||
			    s.cls == KB_WHY_SET_UNMEASURED)
				w->nunknown++;
			if (w->nsets < KB_WHY_MAX_SETS)
				w->sets[w->nsets++] = s;
			if (s.cls != KB_WHY_SET_REPRODUCES)
				continue;
			if (!nrep++) {
				first = mask;
				w->set_variant = (unsigned)s.variant;
				w->set_vs_bad = s.to_bad;
			}
			all |= mask;
			common &= mask;
		} while (next_subset(idx, k, w->ndiff));
	}
	if (nrep == 1 && each_needed(cls, first)) {
		w->answer = KB_WHY_EXPLAINED;
		*culprit_mask = first;
	} else {
		/* several sets, or one whose factors are not each shown to
		 * be needed: the cause lies among them (among all the
		 * differing factors when only B itself reproduces) */
		w->answer = KB_WHY_INCONCLUSIVE;
		if (!nrep)
			all = common = ((uint32_t)1 << w->ndiff) - 1;
		for (i = 0; i < w->ndiff; i++) {
			if (all & ((uint32_t)1 << i))
				w->suspects[w->nsuspects++] = w->diff[i];
			if (nrep > 1 && (common & ((uint32_t)1 << i)))
				w->common[w->ncommon++] = w->diff[i];
		}
	}
out:
	free(cls);
	return ret;
}

/* Each culprit of @mask: in context, alone, and against the others. */
static int describe(struct kb_analysis *a, struct kb_why *w, uint32_t mask,
		    struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_variant *vg = kb_plan_variant(p, w->good);
	const struct kb_variant *vb = kb_plan_variant(p, w->bad);
	size_t nf = kb_matrix_nfactors(kb_plan_matrix(p));
	size_t set[KB_WHY_MAX], nset = 0, i, j;
	int ret;

	for (i = 0; i < w->ndiff; i++)
		if (mask & ((uint32_t)1 << i))
			set[nset++] = w->diff[i];
	for (i = 0; i < nset; i++) {
		struct kb_why_culprit *cu = &w->culprits[w->nculprits++];
		size_t rest[KB_WHY_MAX], nrest = 0, f = set[i];
		int without, alone;

		cu->factor = f;
		cu->good = vg->settings[f].value;
		cu->bad = vb->settings[f].value;
		for (j = 0; j < nset; j++)
			if (j != i)
				rest[nrest++] = set[j];
		without = kb_analysis_find(a, w->good, w->bad, rest, nrest);
		alone = kb_analysis_find(a, w->good, w->bad, &f, 1);
		not_compared(&cu->in_context);
		not_compared(&cu->alone);
		if (without >= 0 &&
		    (ret = w->set_variant == w->bad
				   ? compare_bad(a, w, (unsigned)without,
						 &cu->in_context, err)
				   : judge(a, w, (unsigned)without,
					   w->set_variant,
					   kb_analysis_opts(a)->alpha,
					   &cu->in_context, NULL, err)))
			return ret;
		if (alone >= 0 &&
		    (ret = judge(a, w, w->good, (unsigned)alone,
				 kb_analysis_opts(a)->alpha, &cu->alone, NULL,
				 err)))
			return ret;
		if (alone < 0)
			continue;
		/* every other factor, at each of its other levels (as the
		 * planned variants spell them) */
		for (j = 0; j < nf; j++) {
			size_t q, q2, nv = kb_plan_nvariants(p);

			for (q = 0; q < nv && j != f; q++) {
				const char *lv =
					kb_plan_variant(p, q)->settings[j].value;

				for (q2 = 0; q2 < q; q2++)
					if (!strcmp(kb_plan_variant(p, q2)
							    ->settings[j]
							    .value,
						    lv))
						break;
				if (q2 < q || !strcmp(lv, vg->settings[j].value))
					continue;
				if ((ret = interaction(a, cu, w->good,
						       (unsigned)alone, j, lv,
						       err)))
					return ret;
			}
		}
	}
	judge_interactions(a, w);
	return 0;
}

/*
 * B (@bad) was picked as the worst: set its boots aside and confirm it in
 * fresh rounds with A (@good) when the experiment can run again: as many
 * rounds as it had boots (at least repeat.boots, at most
 * repeat.max_boots), each booting A and B in a drawn order, every later
 * comparison made on the fresh rounds; else test every comparison with
 * it at alpha over the candidates, on the stored boots.
 */
static int confirm_fresh(struct kb_analysis *a, struct kb_why *w,
			 unsigned good, unsigned bad, struct kb_err *err)
{
	const struct kb_repeat *rep =
		kb_matrix_repeat(kb_plan_matrix(kb_analysis_plan(a)));
	unsigned vars[2] = { good, bad }, r;
	size_t n, i, got;
	int ret;

	/* the rounds a confirmation takes: as many as the worst had */
	if (!kb_analysis_values(a, bad, &got))
		got = 0;
	n = got > rep->boots ? got : rep->boots;
	if (n > rep->max_boots)
		n = rep->max_boots;
	/* none can be added, or not enough (the boot budget): on the
	 * run's boots, at the level for the pick */
	if (!kb_analysis_may_add(a, 2 * n)) {
		w->blocks = KB_WHY_BLOCKS_STORED;
		w->budget_short = kb_analysis_can_sample(a);
		w->alpha /= w->picked_from;
		return 0;
	}
	w->blocks = KB_WHY_BLOCKS_FRESH;
	w->set_aside = (unsigned)kb_analysis_set_aside(a, bad);
	w->block_start = (unsigned)n;
	for (i = 0; i < n; i++) {
		if ((ret = kb_analysis_add_block(a, vars, 2, &r, err)))
			return ret;
		if (!w->first_round)
			w->first_round = r;
	}
	/* no fresh value: nothing to confirm it with, nor to compare */
	if (!kb_analysis_values(a, bad, &got) || !got)
		return kb_err_set(err, KB_EFAIL,
				  "#%u, the worst variant, was booted %zu times afresh to confirm it, and no boot gave a value (they failed: see the experiment's results)",
				  bad, n);
	return 0;
}

/* The mean of variant @v's values; NaN without any. */
static double mean_of(const struct kb_analysis *a, unsigned v)
{
	size_t n;
	const double *y = kb_analysis_values(a, v, &n);

	return n ? kb_stats_mean(y, n) : NAN;
}

/*
 * With conditions (docs/analysis.md, "Conditions: compared within"):
 * the variant worst against its own reference, @good with the
 * conditions @cond at the variant's levels, into *@bad and that
 * reference into *@ref; the candidates (measured variants with a
 * measured reference other than themselves) into *@ncand.  *@bad is
 * *@ref = @good when none is worse than its reference (or none is
 * measured).
 */
static void worst_within(const struct kb_analysis *a, unsigned good,
			 const size_t *cond, size_t nc, unsigned *bad,
			 unsigned *ref, unsigned *ncand)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	int higher = kb_analysis_opts(a)->higher_is_better;
	size_t nv = kb_plan_nvariants(p), v;
	double worst = 1;

	*bad = *ref = good;
	*ncand = 0;
	for (v = 0; v < nv; v++) {
		int r = kb_analysis_find(a, good, (unsigned)v, cond, nc);
		double mv = mean_of(a, (unsigned)v), mr, ratio;

		/* the sentinel is the baseline again: never a suspect */
		if (r < 0 || (size_t)r == v || isnan(mv) ||
		    (int)v == kb_plan_sentinel(p))
			continue;
		mr = mean_of(a, (unsigned)r);
		if (isnan(mr) || !(mr > 0))
			continue;
		++*ncand;
		ratio = mv / mr;
		if (higher ? ratio < worst : ratio > worst) {
			worst = ratio;
			*bad = (unsigned)v;
			*ref = (unsigned)r;
		}
	}
}

/*
 * With conditions: make @good (the baseline when not given, *@good < 0)
 * and @bad (given) share the conditions' levels: the baseline at @bad's
 * levels of them, or KB_EINPUT when a given @good differs from @bad in
 * one, or the design has no such variant.
 */
static int same_conditions(const struct kb_analysis *a, const size_t *cond,
			   size_t nc, int *good, int bad, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	int ref = kb_analysis_find(a, *good < 0 ? 0 : (unsigned)*good,
				   (unsigned)bad, cond, nc);
	size_t i;

	if (*good < 0 && ref >= 0) {
		*good = ref;
		return 0;
	}
	for (i = 0; i < nc && *good >= 0; i++)
		if (strcmp(kb_plan_variant(p, (size_t)*good)->settings[cond[i]].value,
			   kb_plan_variant(p, (size_t)bad)->settings[cond[i]].value))
			break;
	if (*good >= 0 && i == nc)
		return 0;
	if (ref >= 0)
		return kb_err_set(err, KB_EINPUT,
				  "variants #%d and #%d differ in %s, a condition: why compares within a level of the conditions (#%d is #%d at #%d's level)",
				  *good, bad, kb_matrix_factor(m, cond[i])->name,
				  ref, *good, bad);
	return kb_err_set(err, KB_EINPUT,
			  "the design has no variant with the baseline's levels at #%d's level of the conditions: give the good variant (why compares within a level of the conditions)",
			  bad);
}

int kb_why_explain(struct kb_analysis *a, int good, int bad,
		   struct kb_why *out, struct kb_err *err)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_variant *vg, *vb;
	size_t nf = kb_matrix_nfactors(m), nv = kb_plan_nvariants(p), i, n;
	size_t cond[KB_MATRIX_MAX_FACTORS], nc = 0;
	uint32_t mask;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nf; i++)
		if (kb_matrix_factor(m, i)->condition)
			cond[nc++] = i;
	out->alpha = kb_analysis_opts(a)->alpha;
	out->blocks = KB_WHY_BLOCKS_GIVEN;
	out->run_rounds = kb_analysis_nrounds(a);
	not_compared(&out->total);
	not_compared(&out->set_vs_bad);
	if ((good >= 0 && (size_t)good >= nv) ||
	    (bad >= 0 && (size_t)bad >= nv))
		return kb_err_set(err, KB_EINPUT,
				  "no variant #%d: the experiment has %zu",
				  good >= 0 && (size_t)good >= nv ? good : bad,
				  nv);
	if (nc && bad >= 0 &&
	    (ret = same_conditions(a, cond, nc, &good, bad, err)))
		return ret;
	if (good < 0)
		good = 0;
	if (nc && bad < 0) {
		/* the worst against the baseline at its own level of the
		 * conditions: a condition is never the cause */
		unsigned wb, wr, ncand;

		if (kb_analysis_worst(a) < 0)
			return kb_err_set(err, KB_EINPUT,
					  "no variant has a measurement of %s",
					  kb_analysis_metric(a));
		worst_within(a, (unsigned)good, cond, nc, &wb, &wr, &ncand);
		out->picked_from = ncand;
		if (wb == wr) {
			out->answer = KB_WHY_NOTHING_WORSE;
			out->good = out->bad = (unsigned)good;
			goto out;
		}
		good = (int)wr;
		bad = (int)wb;
		if ((ret = confirm_fresh(a, out, (unsigned)good,
					 (unsigned)bad, err)))
			goto out;
	} else if (bad < 0) {
		bad = kb_analysis_worst(a);
		if (bad < 0)
			return kb_err_set(err, KB_EINPUT,
					  "no variant has a measurement of %s",
					  kb_analysis_metric(a));
		/* the worst of the others is picked: a family of tests */
		for (i = 0; i < nv; i++) {
			kb_analysis_values(a, (unsigned)i, &n);
			if (i != (size_t)good && n > 0)
				out->picked_from++;
		}
		if (bad == good) {
			out->answer = KB_WHY_NOTHING_WORSE;
			out->good = out->bad = (unsigned)good;
			goto out;
		}
		if ((ret = confirm_fresh(a, out, (unsigned)good,
					 (unsigned)bad, err)))
			goto out;
	}
	out->good = (unsigned)good;
	out->bad = (unsigned)bad;
	vg = kb_plan_variant(p, (size_t)good);
	vb = kb_plan_variant(p, (size_t)bad);
	for (i = 0; i < nf; i++)
		if (strcmp(vg->settings[i].value, vb->settings[i].value) &&
		    out->ndiff < KB_WHY_MAX)
			out->diff[out->ndiff++] = i;
	if (!out->ndiff)
		return kb_err_set(err, KB_EINPUT,
				  "variants #%d and #%d have the same levels of every factor: pick two that differ",
				  good, bad);
	if ((ret = judge(a, out, (unsigned)good, (unsigned)bad, out->alpha,
			 &out->total, &out->confirm_rounds, err)))
		goto out;
	out->reproduces = out->total.verdict == KB_VERDICT_REGRESSION;
	out->answer = KB_WHY_NOT_REPRODUCED;
	if (!out->reproduces)
		goto out;
	if ((ret = search(a, out, &mask, err)))
		goto out;
	if (out->answer == KB_WHY_EXPLAINED)
		ret = describe(a, out, mask, err);
out:
	out->boots_added = kb_analysis_boots_added(a);
	if (out->blocks == KB_WHY_BLOCKS_FRESH && out->first_round)
		out->fresh_rounds =
			kb_analysis_last_round(a) + 1 - out->first_round;
	return ret;
}

/* The name of factor @f of @a's matrix. */
static const char *factor_name(const struct kb_analysis *a, size_t f)
{
	return kb_matrix_factor(kb_plan_matrix(kb_analysis_plan(a)), f)->name;
}

int kb_why_store(const struct kb_analysis *a, const struct kb_why *w,
		 struct kb_err *err)
{
	struct kb_store *s = kb_analysis_store(a);
	struct kb_store_analysis row = {
		.kind = "why",
		.metric = kb_analysis_metric(a),
		.a_idx = (int)w->good,
		.b_idx = (int)w->bad,
		.factor = NULL,
		.change_pct = w->total.change_pct,
		.ci_low_pct = w->total.ci_low,
		.ci_high_pct = w->total.ci_high,
		.p_value = w->total.p,
		.test = kb_compare_test_name(w->total.test),
		.verdict = kb_verdict_name(w->total.verdict),
		.detail = NULL,
		.call = KB_STORE_CALL_NONE,
	};
	struct kb_buf names = KB_BUF_INIT, detail = KB_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < w->nculprits; i++)
		kb_buf_addf(&names, "%s%s", i ? " " : "",
			    factor_name(a, w->culprits[i].factor));
	kb_buf_adds(&detail,
		    "inconclusive: no set of the changes could be shown to be the cause; it lies among:");
	for (i = 0; i < w->nsuspects; i++)
		kb_buf_addf(&detail, " %s", factor_name(a, w->suspects[i]));
	switch (w->answer) {
	case KB_WHY_NOTHING_WORSE:
		row.b_idx = -1;
		row.test = NULL;
		row.verdict = NULL;
		row.detail = "no variant is worse than the good one";
		break;
	case KB_WHY_NOT_REPRODUCED:
		row.detail = "the regression does not reproduce";
		break;
	case KB_WHY_EXPLAINED:
		row.factor = names.buf;
		row.detail = "minimal set of factor changes that reproduces the regression";
		break;
	case KB_WHY_INCONCLUSIVE:
		row.detail = detail.buf;
		break;
	}
	ret = kb_store_read_only(s)
		      ? 0
		      : kb_store_analyses_put(s, kb_analysis_info(a)->id,
					      &row, 1, err);
	kb_buf_release(&names);
	kb_buf_release(&detail);
	return ret;
}
