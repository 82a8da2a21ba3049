#ifndef KB_BISECT_H
#define KB_BISECT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"

struct kb_err;
struct kb_executor;
struct kb_guest;
struct kb_kconfig;
struct kb_store;

/*
 * Option bisection: which of the option changes between a good and a bad
 * config cause the regression?  The options whose levels differ are the
 * change set; a change moves together with the changes the Kconfig
 * graph ties it to directly (opts.depends names one from the other, or
 * through a derived change, never through an unchanged option): a change
 * group.  A probe is the good config with some groups moved to their bad
 * levels; it is built, booted and measured
 * through the executor (builds are shared by build key through the
 * store) and classified against both ends with kb_compare_samples():
 *
 *   bad      it reproduces the regression: a regression against the good
 *            end and not significantly better than the bad end (or within
 *            the threshold of the bad end and not of the good end);
 *   good     significantly better than the bad end and not a regression
 *            against the good end (or within the threshold of the good
 *            end and not of the bad end);
 *   unknown  neither after max_boots: in between (worse than good and
 *            better than bad: part of the regression) or inconclusive;
 *   skip     it could not be measured (the build or every boot failed).
 *
 * Against a probe, "regression" and "better" need a change of at least
 * the threshold and at least a third of the regression (log scale), so
 * that a few percent of noise in a 20% or a 90% regression does not make
 * a probe look in between.  A call also needs the evidence of Wald's
 * sequential probability ratio test (the log likelihood ratio of "at the
 * bad end's level" against "at the good end's level", the ends' own
 * uncertainty included) beyond +-5.3, about one wrong call in 200; until
 * then the probe gets one more boot at a time, up to max_boots.
 *
 * Unknown and skip never narrow the search (only "bad" does in ddmin;
 * "bad", "good" and "in between" in the group search), so a noisy or
 * broken probe costs probes, never the answer.  Before searching, the
 * ends are compared (with adaptive sampling up to max_boots a side); a
 * regression that does not reproduce is reported, not bisected; one that
 * does is confirmed on max_boots rounds of both.
 *
 * Every boot is in a round drawn in a fresh order (kb_order_draw()): the
 * ends' rounds hold both ends, a probe's the probe and both ends, so a
 * probe is compared only with the ends booted beside it (its evidence
 * from the blocked fit of its rounds), never with means from earlier.  A
 * probe whose rounds' level trends by half its threshold a round is
 * booted again rather than classified.  The answer is confirmed before
 * it is returned: its set booted again in fresh rounds beside both ends
 * and classified bad on those alone (result->confirmed).
 *
 * The search (KB_BISECT_GROUP, the default) is adaptive group testing:
 * with the members found so far held applied, a binary search over the
 * prefixes of the remaining groups (in order) finds the shortest prefix
 * that still reproduces the regression; its last group is needed (the
 * prefix without it does not reproduce) and joins the members, and the
 * search goes on in the groups before it until the members alone
 * reproduce; then each set without one member is probed.  A probe that
 * is unknown or skipped narrows nothing: the untested prefix nearest the
 * middle is tried instead; when none is left, those undecided groups are
 * searched once more in reverse order, then held as a block (the answer
 * is then not minimised).  A probe in between the ends (part of the
 * regression) counts as not bad.  A single culprit costs ceil(log2 N)
 * probes and one to confirm it alone (none when it is the first group);
 * k interacting groups about k (log2 N + 2) - 1.  A set probed before is
 * answered from a cache keyed by the set, never probed again.  ddmin
 * (KB_BISECT_DDMIN; Zeller and Hildebrandt, "Simplifying and Isolating
 * Failure-Inducing Input", IEEE TSE 28(2), 2002) is kept for comparison.
 * Both find a 1-minimal set of change groups that reproduces the
 * regression, i.e. one from which no single group can be left out
 * (result->minimal is over groups: a group of several options is one
 * unresolved change, result->nunresolved, never called 1-minimal within
 * itself, since no probe moves part of it).  Groups are made of direct
 * ties only, so a probe's set may not hold (its resolved config does not
 * keep a change: the executor's "config does not hold", a skip); then
 * the change's group is joined with the changes its dependencies reach
 * through any option, the join stored (result->joins), and the search
 * starts again on the joined groups, the probes whose sets are still
 * sets of groups answered from the cache.  The answer is called
 * 1-minimal (result->minimal) only when the set itself was classified
 * bad and every set without one of its groups good (the group search
 * probes those it has not); when some were unknown (or skipped, or never
 * probed) the set is only a candidate set, "not
 * minimised", with the number of such probes and an estimate of the
 * boots that would likely settle them: per side, the larger of
 * 2 s^2 (z(1 - alpha/2) + z(0.8))^2 / log(1 + t)^2 (80% power to tell
 * the threshold t of a probe against the bad end) and
 * 4 * 5.3 s^2 / D^2 (the evidence the sequential test needs, D the log
 * change between the ends), s^2 the pooled variance of log values of the
 * ends and the probe.  The plain binary split
 * (test the first half; recurse into it when bad, else into the second)
 * is there for comparison: it is what ktest's config bisect does and it
 * cannot find interactions.
 *
 * Everything is stored: an experiment made for the bisection holds the
 * good end as variant 0, the bad end as variant 1 and each probe as a
 * further variant (its options: the changed ones, at the probe's
 * levels), with every build, boot and sample; a bisections row and one
 * bisection_steps row per probe (step 1 is the comparison of the ends)
 * with its classification and its change against the good end with CI.
 * Once done, the bisections row keeps the answer with a digest of the
 * inputs (lib/bisect_answer.c): the same bisection run again into the
 * same store returns it (result->stored_at) and builds and boots
 * nothing, unless opts.fresh.
 */

enum kb_bisect_class {
	KB_BISECT_GOOD,
	KB_BISECT_BAD,
	KB_BISECT_UNKNOWN,
	KB_BISECT_SKIP,
};

enum kb_bisect_strategy {
	KB_BISECT_DDMIN, /* delta debugging: 1-minimal, finds interactions */
	KB_BISECT_SPLIT, /* plain binary split, one culprit only (ktest) */
	KB_BISECT_GROUP, /* adaptive group testing: 1-minimal, about
			  * k log2 N probes for k interacting groups */
};

#define KB_BISECT_MAX_CHANGES 16384  /* differing options we bisect */
#define KB_BISECT_DEFAULT_MAX_PROBES 500

/* One option that differs between the ends. */
struct kb_bisect_change {
	char *option;   /* without CONFIG_ */
	char *good;     /* its level in the good config ("n" when absent) */
	char *bad;      /* its level in the bad config */
	unsigned group; /* change group: options that move together */
};

/* One probe: what was applied, how it classified, what it measured. */
struct kb_bisect_probe {
	unsigned step;           /* its bisection step number (ends: 1) */
	int variant_idx;         /* its variant in the experiment */
	size_t napplied;         /* changes at their bad level ... */
	size_t *applied;         /* ... as indexes into result->changes */
	enum kb_bisect_class cls;
	unsigned boots;          /* ok boots measured */
	double change_pct;       /* against the good end, percent */
	double ci_low, ci_high;  /* its confidence interval (1 - alpha) */
	double bad_change_pct;   /* against the bad end, percent */
	double evidence;         /* log likelihood ratio, bad level against
				  * good level (> 0: nearer bad) */
	char *reason;            /* skip: why it could not be measured */
	size_t commit;           /* commit bisection: the commit probed, an
				  * index into the caller's commits */
};

/*
 * Groups joined during the search: probe @step was skipped because its
 * resolved config did not keep change @option ("config does not hold:
 * ..." from the executor, its @reason), so @option's group was joined
 * with the groups of the changes its dependencies reach through any
 * option (@with) and the search started again on the joined groups.
 */
struct kb_bisect_join {
	unsigned step;  /* the probe that did not hold */
	char *option;   /* the change that did not hold */
	char *with;     /* the changes joined to it, space-separated */
	char *reason;   /* the probe's reason */
};

struct kb_setting;

struct kb_build_weights;

struct kb_bisect_opts {
	const char *metric;     /* the metric judged (required) */
	int higher_is_better;   /* its direction */
	unsigned boots;         /* boots of each probe to start with */
	unsigned runs_per_boot; /* workload runs per boot */
	unsigned max_boots;     /* adaptive sampling ceiling; the ends get it */
	double threshold_pct;   /* smallest change that counts */
	double alpha;           /* significance level */
	unsigned max_probes;    /* stop after this many (0: the default) */
	enum kb_bisect_strategy strategy;
	/* the dependencies of an option: returns their number and points
	 * *on at their names (NULL: no dependencies known) */
	size_t (*depends)(void *arg, const char *option,
			  const char *const **on);
	void *depends_arg;
	/* whether an option can be set by itself (it has a prompt; called
	 * with depends_arg); NULL:
	 * every option.  An option that differs between the ends but
	 * cannot be set follows the others (its level comes from defaults
	 * and selects): it is no change of its own (result->derived) */
	int (*settable)(void *arg, const char *option);
	/* the executor gets only the changes, each at the probe's level,
	 * as a point's settings, and resolves them from the good end (a
	 * real kernel tree: kb_realexec_opts.base_config); 0: every option
	 * of either config (the performance model) */
	int changes_only;
	/* real builds: the units of the tree's O= folder that depend on
	 * each option (kb_build_weights_scan), asked for with @weights_arg
	 * once the ends are built (before, a cold O= folder has no build
	 * records) and borrowed until the bisection returns.  The cost of a
	 * set is the weight of the changes whose levels differ from the last
	 * point whose kernel the bisection got, built or reused.  ddmin
	 * probes the sets of each round cheapest first; the group search,
	 * among the prefixes that split the candidates equally well (the
	 * same expected number of probes), takes one classified before, else
	 * one whose build the store holds, else the cheapest.  NULL, or NULL
	 * returned: in order (the middle prefix) */
	const struct kb_build_weights *(*weights)(void *arg);
	void *weights_arg;
	/* called after each probe is classified; may be NULL */
	void (*progress)(const struct kb_bisect_probe *p,
			 const struct kb_bisect_change *changes, void *arg);
	void *progress_arg;
	/* called before each build (@boot_no 0) and each boot of a point
	 * labelled @label; may be NULL.  Gets progress_arg */
	void (*step)(const char *label, unsigned boot_no, void *arg);
	/* stored with the experiment and the bisection */
	const char *name;        /* experiment name (NULL: "bisect-options") */
	const char *good_name;   /* the good end ("good.config") */
	const char *bad_name;    /* the bad end */
	const char *matrix_path; /* or NULL */
	const char *matrix_text; /* or NULL: a short description is stored */
	const char *model_text;  /* performance model YAML, or NULL */
	/* mixed into build keys: identifies what a config is built from
	 * (tree and compiler, or the model), so that builds are shared only
	 * between probes of the same source */
	const char *build_salt;
	/* the guest shape every end and probe boots with (NULL: none, as
	 * for the performance model) */
	const struct kb_guest *guest;
	/* commit bisection and kb_bisect_test(): the settings every commit
	 * is built and booted with (the matrix's baseline variant; a
	 * kernel.rev or kernel.image among them is replaced by the commit);
	 * option bisection with changes_only: those every point gets
	 * besides its changes, Kconfig settings left out; borrowed */
	size_t nsettings;
	const struct kb_setting *settings;
	/* commit bisection: called after each probe is classified (and for
	 * the ends, step 1); may be NULL */
	void (*on_commit)(const struct kb_bisect_probe *p, void *arg);
	/* may be NULL: once *stop is nonzero no build or boot starts and
	 * the bisection fails, marked so in the store (KB_EFAIL "stopped") */
	const volatile sig_atomic_t *stop;
	/* set to the experiment's id as soon as it is stored, before any
	 * boot (the real executor names guests by it); may be NULL */
	int64_t *experiment_id;
	/* 0: a bisection whose inputs match a finished one stored in the
	 * database (the ends by content, matrix, model, salt, settings,
	 * the options above that decide the search, the order seed)
	 * answers from it: nothing built or booted (result->stored_at);
	 * 1: bisect again, every boot afresh (stored builds still reused),
	 * as after the host drifted.  A stored bisection that did not
	 * finish (stopped, failed, killed) answers nothing */
	int fresh;
};
#define KB_BISECT_OPTS_INIT                                               \
	{ .metric = NULL, .higher_is_better = 1, .boots = 3,               \
	  .runs_per_boot = 1, .max_boots = 10, .threshold_pct = 5.0,       \
	  .alpha = 0.05, .max_probes = 0, .strategy = KB_BISECT_GROUP,    \
	  .fresh = 0 }

struct kb_bisect_result {
	int reproduced;               /* the ends differ: a regression */
	struct kb_comparison ends;    /* good (A) against bad (B) */
	size_t nchanges;              /* every differing option, by name */
	struct kb_bisect_change *changes;
	size_t nderived;              /* options that differ but follow
				       * the changes (opts.settable) */
	struct kb_bisect_change *derived;
	size_t ngroups;               /* change groups (after any joins) */
	size_t njoins;                /* groups joined because a probe did
				       * not hold, in order */
	struct kb_bisect_join *joins;
	size_t nculprits;             /* the set found, option by option: */
	struct kb_bisect_change *culprits; /* 1-minimal only when minimal */
	double change_pct;            /* culprits alone on good, vs good */
	double ci_low, ci_high;       /* NaN when not measured */
	unsigned culprit_boots;       /* boots behind it (up to max_boots) */
	int confirmed;                /* the set, booted in fresh rounds beside
				       * both ends, was classified bad on
				       * those alone (the whole change set:
				       * the ends reproduced) */
	unsigned confirm_rounds;      /* those fresh rounds */
	int complete;                 /* 0: max_probes stopped the search */
	int minimal;                  /* the set was shown bad and each set
				       * without one of its groups shown good:
				       * a 1-minimal set, each group needed;
				       * and it was confirmed */
	size_t nunresolved;           /* groups of several options in the
				       * set found: each is one unresolved
				       * change (minimal is over groups; a
				       * probe moves a group whole, so no
				       * strict subset of one is measured) */
	size_t nunsettled;            /* when not: those sets that were not
				       * (unknown, skip or never probed) */
	size_t nbetween;              /* of them, probes shown in between the
				       * ends (part of the regression): more
				       * boots do not make them good */
	size_t nskipped;              /* of them, probes that could not be
				       * measured (skip) */
	unsigned settle_boots;        /* rounds per probe, each with both
				       * ends, that would
				       * likely settle the others (80% power
				       * at the threshold, enough evidence);
				       * 0 when none or not estimable */
	unsigned more_boots;          /* boots to add for that, in all */
	unsigned builds, boots, runs; /* done by this bisection (not reused) */
	unsigned builds_cached;       /* probes whose kernel the build cache
				       * had (a config built before) */
	size_t nprobes;               /* probes, not counting the ends */
	struct kb_bisect_probe *probes;
	struct kb_bisect_probe end;   /* the bad end as step 1 */
	int64_t experiment;           /* made for the bisection */
	int64_t bisection;            /* its bisections row */
	char *stored_at;              /* NULL: bisected now; else the answer
				       * of the finished bisection above,
				       * stored then (opts.fresh 0): nothing
				       * was built or booted now, and the
				       * counts above are that one's */
};

void kb_bisect_result_free(struct kb_bisect_result *r);

/*
 * The probe whose point is the answer's set alone on the good end, as
 * the effect of the culprits was measured (its variant_idx is that
 * point's variant, variant 0 the good end's): a probe of @r classified
 * bad that applied exactly the culprits, or &r->end when they are every
 * change.  NULL when the regression did not reproduce, there are no
 * culprits or no probe applied exactly them (a block held after
 * inconclusive probes).  Borrowed from @r.
 */
const struct kb_bisect_probe *
kb_bisect_culprit_probe(const struct kb_bisect_result *r);

/*
 * Bisect the option changes from @good to @bad (parsed .configs) on
 * executor @ex, storing everything in @s.  Returns 0 with *@out (free
 * with kb_bisect_result_free()) also when the regression does not
 * reproduce (reproduced 0, no culprits); KB_EINPUT when the configs do
 * not differ or an option is out of range; KB_EFAIL when an end cannot
 * be measured (its build or boots fail) or the executor or store fails.
 */
int kb_bisect_options(struct kb_store *s, struct kb_executor *ex,
		      const struct kb_kconfig *good,
		      const struct kb_kconfig *bad,
		      const struct kb_bisect_opts *o,
		      struct kb_bisect_result **out, struct kb_err *err);

/* "good", "bad", "unknown", "skip" (as stored in bisection_steps). */
const char *kb_bisect_class_name(enum kb_bisect_class c);

/* Commit bisection and kb_bisect_test(): bisect_commits.h. */

#endif
