#ifndef KB_BISECT_COMMITS_H
#define KB_BISECT_COMMITS_H

#include <stddef.h>
#include <stdint.h>

#include "bisect.h"
#include "compare.h"

struct kb_err;
struct kb_executor;
struct kb_store;

/*
 * Commit bisection: which commit between a good and a bad revision made
 * the regression?  The caller lists the commits (kb_source_commits():
 * good first, then good..bad in topological order, oldest first, bad
 * last).  Every probe builds and boots the same settings (@o->settings)
 * with the commit as kernel.rev, and is classified against both ends
 * exactly as an option probe is (bisect.h).
 *
 * The search is git bisect's: a binary search over the commits between
 * the last good and the first bad commit known.  Only good and bad
 * narrow it.  A probe that cannot be measured (its build or its boots
 * fail: skip) or stays unknown after max_boots is recorded, and the
 * untested commit nearest the midpoint is tried instead, alternating
 * sides (mid, mid+1, mid-1, ...), as `git bisect skip` does.  When no
 * untested commit is left between them, the answer is the range of
 * candidates.  The ends are compared first (a regression that does not
 * reproduce is reported, not bisected) and topped up to max_boots.
 *
 * The same commits bisected again into the same database answer from
 * the bisection that finished before, as option bisection does
 * (bisect.h, opts.fresh).
 *
 * Stored like option bisection: an experiment (design "bisect-commits")
 * with the good end as variant 0, the bad end as variant 1 and each
 * probe as a further variant (its settings, kernel.rev the commit), a
 * bisections row of kind "commits" and its steps.
 */

/* A commit to bisect over (borrowed strings). */
struct kb_bisect_commit {
	const char *sha;     /* 40 hex digits: the kernel.rev level */
	const char *summary; /* its first line */
};

struct kb_bisect_commits_result {
	int reproduced;             /* the ends differ: a regression */
	struct kb_comparison ends;  /* good (A) against bad (B) */
	size_t ncommits;            /* as given */
	long first_bad;             /* index of the first bad commit, or -1
				     * when it is ambiguous or not reproduced */
	size_t cand_first;          /* the candidates for the first bad */
	size_t cand_last;           /* commit: indexes, inclusive */
	size_t last_good;           /* the last good commit known */
	/* the first bad commit (the last candidate when ambiguous) against
	 * the last good one: its effect; NaN when not reproduced */
	double change_pct, ci_low, ci_high;
	unsigned effect_boots;      /* rounds of the two side by side */
	int confirmed;              /* that effect is a regression */
	enum kb_verdict effect_verdict; /* its verdict */
	int complete;               /* 0: max_probes stopped the search */
	unsigned builds, boots, runs; /* done by this bisection */
	size_t nprobes;             /* probes, not counting the ends */
	struct kb_bisect_probe *probes; /* .commit is each one's index */
	struct kb_bisect_probe end; /* the bad end as step 1 */
	int64_t experiment;         /* made for the bisection */
	int64_t bisection;          /* its bisections row */
	char *stored_at;            /* NULL: bisected now; else the answer of
				     * the finished bisection above, stored
				     * then (opts.fresh 0): nothing built or
				     * booted now, the counts that one's */
};

void kb_bisect_commits_result_free(struct kb_bisect_commits_result *r);

/*
 * Bisect the @n commits at @commits (@commits[0] good, @commits[n - 1]
 * bad, n >= 2) on executor @ex, storing everything in @s; @o->good_name
 * and @o->bad_name name the ends as the user gave them.  Returns 0 with
 * *@out (free with kb_bisect_commits_result_free()) also when the
 * regression does not reproduce or the answer is a range; KB_EINPUT for
 * bad options or fewer than 2 commits; KB_EFAIL when an end cannot be
 * measured or the executor or store fails.
 */
int kb_bisect_commits(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_bisect_commit *commits, size_t n,
		      const struct kb_bisect_opts *o,
		      struct kb_bisect_commits_result **out,
		      struct kb_err *err);

/* What kb_bisect_test() found. */
struct kb_bisect_test_result {
	/* bad: a regression against the baseline (kb_compare_samples());
	 * good: no change, an improvement, or a confidence interval that
	 * rules out a regression of threshold_pct or more; unknown: neither
	 * after max_boots; skip: it could not be built or measured */
	enum kb_bisect_class cls;
	struct kb_comparison cmp;   /* the baseline (A) against the commit */
	unsigned builds, boots, runs;
	char *reason;               /* skip: why (owned) */
	int64_t experiment;         /* made for the test */
};
void kb_bisect_test_result_release(struct kb_bisect_test_result *r);

/*
 * `git bisect run`'s test: build and boot @commit (as a commit probe,
 * with @o->settings) through @ex, repeat.boots boots then one more at a
 * time while the verdict against the per-boot values @baseline
 * (@nbaseline, at least 2) is inconclusive, up to max_boots, with the
 * compare statistics (kb_compare_samples()).  Stores an experiment
 * (design "bisect-test", the commit as variant 0).  Fills *@out (caller
 * releases) and returns 0; KB_EINPUT for bad options, KB_EFAIL when the
 * executor or the store fails.
 */
int kb_bisect_test(struct kb_store *s, struct kb_executor *ex,
		   const double *baseline, size_t nbaseline,
		   const struct kb_bisect_commit *commit,
		   const struct kb_bisect_opts *o,
		   struct kb_bisect_test_result *out, struct kb_err *err);

/*
 * The same judgement made side by side: the good commit @good and
 * @commit (each a commit probe with @o->settings) built and booted in
 * rounds of the two, each in a fresh order, so that a host's drift falls
 * on both alike; judged on the rounds both have, paired (kb_compare_paired()),
 * starting at repeat.boots rounds and looking again after each added
 * round (kb_compare_looks()) at the calibrated level of such a sequential
 * test (kb_compare_look_alpha_paired()), up to max_boots rounds (no
 * futility stop: good is an interval that rules the regression out).  The good commit's build is the store's after the
 * first call.  Stores an experiment (design "bisect-test", the good
 * commit as variant 0, @commit as 1).  KB_EFAIL also when the good
 * commit cannot be measured (a test of nothing); a @commit that cannot be
 * is a skip.
 */
int kb_bisect_test_beside(struct kb_store *s, struct kb_executor *ex,
			  const struct kb_bisect_commit *good,
			  const struct kb_bisect_commit *commit,
			  const struct kb_bisect_opts *o,
			  struct kb_bisect_test_result *out,
			  struct kb_err *err);

#endif
