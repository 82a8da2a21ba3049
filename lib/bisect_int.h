#ifndef KB_BISECT_INT_H
#define KB_BISECT_INT_H

/*
 * Private to the bisect module: what option bisection (bisect.c, its
 * adaptive group testing search in bisect_group.c and its change groups
 * in bisect_ties.c) and commit bisection (bisect_commits.c) share, most
 * of it in bisect_probe.c, which calls none of them.  A point is one
 * measured configuration; struct bisect is the state of one bisection;
 * the functions measure and classify points, compare the ends, and store
 * the experiment and its steps, the same way for both.  Not part of the
 * library's API: only those files include this header, and its functions
 * are named kb_bisect__* (two underscores) to say so.
 */
#include <stddef.h>
#include <stdint.h>

#include "bisect.h"
#include "buf.h"
#include "compare.h"
#include "sha256.h"
#include "variant.h"

struct kb_err;
struct kb_executor;
struct kb_store;
struct kb_store_bisection_answer;

/*
 * Wald's bound for a probe's evidence: log((1 - beta) / alpha) with
 * alpha = beta = 0.005, about one wrong call in 200 probes.
 */
#define SPRT_BOUND 5.3

/* b->change_of of an option that differs but follows (no prompt). */
#define CHANGE_DERIVED (-2)

/* One measured configuration: an end or a probe. */
struct point {
	unsigned idx;             /* its variant in the experiment */
	unsigned char *set;       /* per group: 1 when moved to bad */
	struct kb_setting *full;  /* every option: what the executor gets */
	struct kb_setting *moved; /* the changed options: what is stored */
	struct kb_setting *execset; /* changes_only: what the executor gets,
				     * the changes and the settings of the
				     * options that are no Kconfig option */
	char *label;
	char *key;                /* build key */
	struct kb_variant exec;   /* settings = full */
	struct kb_variant stored; /* settings = moved */
	int in_store;             /* the variant row exists */
	int have_build;
	struct kb_build_result build;
	int64_t build_id;
	unsigned last_boot;       /* boot numbers used so far */
	size_t nvalues;
	double *values;           /* per ok boot: the mean over its runs */
	unsigned *rounds;         /* per ok boot: the round it ran in */
	unsigned nfailed;         /* boots that gave no value */
	char *reason;             /* the latest failure */
	int classified;
	enum kb_bisect_class cls;
	size_t probe;             /* its index in result->probes */
};

struct bisect {
	struct kb_store *s;
	struct kb_executor *ex;
	const struct kb_bisect_opts *o;
	struct kb_compare_opts copts;      /* the ends against each other */
	struct kb_compare_opts copts_good; /* a probe against the good end */
	struct kb_compare_opts copts_bad;  /* a probe against the bad end */
	unsigned max_probes;
	struct kb_bisect_result *r; /* commits: the ends and the counters */

	size_t nnames;            /* every option of either config, sorted */
	char **names;
	const char **goodv;       /* its level in each ("n" when absent) */
	const char **badv;
	long *change_of;          /* name -> change index; -1 unchanged,
				   * CHANGE_DERIVED (opts.settable) */
	size_t *change_name;      /* change -> name index */

	size_t ngroups;           /* change groups, numbered from 0 */
	unsigned long *gweight;   /* per group: the build weight of its
				   * changes (opts.weights), or NULL */
	unsigned char *last_set;  /* the set of the last point whose kernel
				   * the bisection got (built_last) */

	uint64_t seed;            /* the order of each round (kb_order_draw) */
	int seed_fresh;           /* seed drawn afresh (real hosts), so not
				   * one of the inputs */
	unsigned round;           /* rounds booted so far */
	unsigned seq;             /* boots started so far, the experiment's */

	size_t npoints;
	struct point *points;     /* [0] good end, [1] bad end, probes */
	int stopped;              /* max_probes reached, or regroup */
	int regroup;              /* a probe did not hold and joins groups:
				   * the search stops, no more probes, and
				   * starts again on the joined groups
				   * (kb_bisect__held(), bisect_ties.c) */

	size_t *cache;            /* the probes classified, by the hash of
				   * their set: point index + 1, 0 empty
				   * (open addressing, bisect_probe.c) */
	size_t ncache;            /* its slots, a power of two (or 0) */
	size_t ncached;           /* slots in use */

	char inputs[KB_SHA256_HEX_LEN + 1]; /* the digest of what decides
				   * the bisection (bisect_answer.c), or "" */
};

/* Fill @b for a bisection with @o on @ex into @s, with an empty result
 * (NaN effect); kb_bisect__release() frees all but b->r. */
void kb_bisect__init(struct bisect *b, struct kb_store *s,
		     struct kb_executor *ex, const struct kb_bisect_opts *o);
void kb_bisect__release(struct bisect *b);

/* Check the options both bisections need: names for the ends, a metric,
 * boots, runs, alpha and threshold in range.  KB_EINPUT when not. */
int kb_bisect__check_opts(const struct kb_bisect_opts *o, struct kb_err *err);

/* Free what probe @p owns; free @n probes and the array at @probes. */
void kb_bisect__probe_release(struct kb_bisect_probe *p);
void kb_bisect__probes_free(struct kb_bisect_probe *probes, size_t n);

/* Append a zeroed point to b->points, its idx the next variant index.
 * The pointer is valid until the next point is added. */
struct point *kb_bisect__point_add(struct bisect *b);

/* Change @change (an index in b->r->changes) is applied in @set. */
int kb_bisect__applied(const struct bisect *b, const unsigned char *set,
		       size_t change);

/*
 * Add a point for @set (one byte per group).  @label NULL: the moved
 * options ("A=y B=n").  Returns its index in b->points.
 */
size_t kb_bisect__point_new(struct bisect *b, const unsigned char *set,
			    const char *label);

/* The indexes of the changes applied in @set into @pr->applied. */
void kb_bisect__fill_applied(const struct bisect *b, const unsigned char *set,
			     struct kb_bisect_probe *pr);

/* Make @p's variants from its label, key and @nsettings settings at
 * p->full (with the guest of the options): exec, and stored the same. */
void kb_bisect__point_variants(const struct bisect *b, struct point *p,
			       size_t nsettings);

/* Boot @p until it has @want values (or cannot have them): its variant
 * stored, its build from the store or built, each boot stored.  Boots
 * run in rounds, each in an order drawn for it (kb_order_draw()): a
 * probe's with both ends, an end's with the other end, a point's without
 * ends alone. */
int kb_bisect__measure(struct bisect *b, struct point *p, size_t want,
		       struct kb_err *err);

/*
 * The rounds points shared: of @pts[0..n) (n <= 3), the values of the
 * rounds after @from in which every one of them has a value, aligned by
 * round (out->pt[k].values[i] is pts[k]'s value in round
 * out->pt[k].rounds[i]); out->n rounds.  Only values, rounds and nvalues
 * of each out->pt are set.  Free with kb_bisect__aligned_release().
 */
struct kb_aligned {
	size_t npoints;
	size_t n;
	struct point pt[3];
};
void kb_bisect__aligned(const struct point *const *pts, size_t n,
			unsigned from, struct kb_aligned *out);
void kb_bisect__aligned_release(struct kb_aligned *a);

/*
 * Boot @a and @c side by side, in rounds of the two, until they share
 * @want rounds (or cannot), and compare them on those rounds (@a as A)
 * into *@out: a commit bisection's last good and first bad commits.
 */
int kb_bisect__measure_pair(struct bisect *b, struct point *a,
			    struct point *c, size_t want,
			    struct kb_comparison *out, struct kb_err *err);

/* No more boots of @p make sense: the build failed, or too many boots
 * did. */
int kb_bisect__exhausted(const struct bisect *b, const struct point *p);

/* Compare the values of @a (A) and @p (B) with @o into *@out. */
void kb_bisect__compare(const struct point *a, const struct point *p,
			const struct kb_compare_opts *o,
			struct kb_comparison *out);

/* Measure and classify probe @p against the ends (points 0 and 1) booted
 * beside it, one round of the three more at a time while undecided
 * (bisect.h); fills *@out. */
int kb_bisect__classify(struct bisect *b, struct point *p,
			struct kb_bisect_probe *out, struct kb_err *err);

/* The same, judged on the rounds after round @from alone (fresh ones:
 * from = b->round), with p's class left as it was: a confirmation. */
int kb_bisect__classify_from(struct bisect *b, struct point *p,
			     unsigned from, struct kb_bisect_probe *out,
			     struct kb_err *err);

/* The build key of the point of @set (one byte per group) into @hex
 * (KB_SHA256_HEX_LEN + 1 bytes): the salt and every option's level. */
void kb_bisect__set_key(const struct bisect *b, const unsigned char *set,
			char *hex);

/* The probe of @set classified before in this bisection (not the ends),
 * or NULL.  The pointer is valid until the next point is added. */
struct point *kb_bisect__cached(const struct bisect *b,
				const unsigned char *set);

/* Remember the classified probe b->points[@k] for kb_bisect__cached(). */
void kb_bisect__cache_add(struct bisect *b, size_t k);

/*
 * Classify the good config with the groups of @set moved into *@cls: the
 * empty set is the good end, the full set the bad end, a set classified
 * before is answered from the cache (no probe); else a new probe,
 * measured, classified, stored as a step and added to b->r->probes.  When
 * max_probes is reached, answers unknown and sets b->stopped.
 */
int kb_bisect__test(struct bisect *b, const unsigned char *set,
		    enum kb_bisect_class *cls, struct kb_err *err);

/* @p was shown worse than the good end and better than the bad end (by
 * the probe thresholds): it holds part of the regression. */
int kb_bisect__in_between(const struct bisect *b, const struct point *p);

/*
 * The adaptive group testing search (bisect.h) over the groups in
 * cur[0..*ncur), which reproduce the regression together: leaves in cur
 * the set found, *ncur its size.  Sets b->stopped when max_probes ends it.
 */
int kb_bisect__group(struct bisect *b, size_t *cur, size_t *ncur,
		     struct kb_err *err);

/*
 * Group the changes of b->r (their names and levels set, b->change_of
 * and b->change_name filled): two join when opts.depends names one from
 * the other, directly or through derived changes, never through an
 * unchanged option; numbered in order of their first option.  Sets
 * each change's group, b->ngroups and b->r->ngroups (bisect_ties.c).
 */
void kb_bisect__tie_changes(struct bisect *b);

/* The build weight of each group (opts.weights) into b->gweight, asked
 * for once the ends are built. */
void kb_bisect__weigh_groups(struct bisect *b);

/*
 * After the searches classify @set as @cls (bisect_ties.c): a probe
 * skipped because its resolved config did not keep some changes ("config
 * does not hold: CONFIG_X=..." from the executor), whose joins would
 * join groups, sets b->regroup and b->stopped.  While b->regroup is set
 * the searches ask no more probes (answered unknown);
 * kb_bisect_options() then calls kb_bisect__regroup() and searches again.
 */
void kb_bisect__held(struct bisect *b, const unsigned char *set,
		     enum kb_bisect_class cls);

/*
 * Join the groups as the probes that did not hold say (each join that
 * adds changes stored in b->r->joins), renumber them, carry the points'
 * sets and the cache over to the joined groups, and clear b->regroup
 * and b->stopped for the search to start again.
 */
void kb_bisect__regroup(struct bisect *b);

/* Store probe @pr as a bisection step described by @text. */
int kb_bisect__store_step(struct bisect *b, const struct kb_bisect_probe *pr,
			  const char *text, struct kb_err *err);

/*
 * Does the regression reproduce?  Compare the ends, adding a boot to the
 * side with fewer (both when equal) while the verdict is inconclusive and
 * a side is below max_boots; when it reproduces, bring both to max_boots.
 * Fills r->ends, r->reproduced, the probe thresholds and r->end as step 1
 * (all but what it applied).  KB_EFAIL when an end cannot be measured.
 */
int kb_bisect__confirm_ends(struct bisect *b, struct kb_err *err);

/* Store the experiment of @b (design @design, also its name unless the
 * options give one; matrix text @desc unless NULL) with @variants[0..n):
 * sets b->r->experiment (and *o->experiment_id). */
int kb_bisect__experiment_create(struct bisect *b, const char *design,
				 const char *desc,
				 const struct kb_variant *variants, size_t n,
				 struct kb_err *err);

/* Store the experiment of a bisection of @kind ("options", "commits";
 * design "bisect-KIND") with the ends, points 0 and 1, as its variants,
 * and its bisections row: sets b->r->experiment and b->r->bisection. */
int kb_bisect__store_ends(struct bisect *b, const char *kind,
			  struct kb_err *err);

/* The result stored when the regression does not reproduce: the ends'
 * verdict and change.  Caller frees. */
char *kb_bisect__unreproduced(const struct bisect *b);

/* Mark the bisection (when there is one) done with @result, and its
 * experiment done. */
int kb_bisect__finish(struct bisect *b, const char *result,
		      struct kb_err *err);

/* Mark the bisection and the experiment, those stored, failed with
 * @err's message. */
void kb_bisect__fail(struct bisect *b, const struct kb_err *err);

/* ---- the answer kept for a rerun (bisect_answer.c) --------------------- */

/*
 * A finished bisection keeps its answer with the digest of its inputs;
 * the same bisection run again into the same database (opts.fresh 0)
 * answers from it and builds and boots nothing.  The answer is a text
 * of whitespace-separated tokens written and read by the same code (a
 * codec: one function per struct, each field coded in turn), so that
 * what is read is what was written; a text kbisect did not write (a
 * damaged database) is refused, never printed.
 */
struct kb_bisect_codec {
	struct kb_buf *out; /* writing; NULL: reading */
	const char *p;      /* reading: what is left ... */
	const char *end;    /* ... up to here (its NUL) */
	int bad;            /* reading: not an answer kbisect wrote */
};

/* Code one field (write *v, or read it into *v).  Read: a number out
 * of its range, a missing token, or a string that is NULL where it may
 * not be sets c->bad and leaves *v 0 (strings NULL). */
void kb_bisect__code_tag(struct kb_bisect_codec *c, const char *tag);
void kb_bisect__code_size(struct kb_bisect_codec *c, size_t *v, size_t max);
void kb_bisect__code_uint(struct kb_bisect_codec *c, unsigned *v);
void kb_bisect__code_int(struct kb_bisect_codec *c, int *v, int lo, int hi);
void kb_bisect__code_long(struct kb_bisect_codec *c, long *v, long lo,
			  long hi);
void kb_bisect__code_real(struct kb_bisect_codec *c, double *v);
void kb_bisect__code_str(struct kb_bisect_codec *c, char **v, int nullable);
void kb_bisect__code_comparison(struct kb_bisect_codec *c,
				struct kb_comparison *v);
/* A count of items that follow, at most @max (and, read, no more than
 * the tokens left): *@v. */
void kb_bisect__code_count(struct kb_bisect_codec *c, size_t *v, size_t max);
/* Probe @p, its applied changes indexes below @nchanges, its commit
 * below @ncommits (at least 1). */
void kb_bisect__code_probe(struct kb_bisect_codec *c,
			   struct kb_bisect_probe *p, size_t nchanges,
			   size_t ncommits);
/* The probes: *@n of them at *@probes (read: allocated). */
void kb_bisect__code_probes(struct kb_bisect_codec *c,
			    struct kb_bisect_probe **probes, size_t *n,
			    size_t nchanges, size_t ncommits);

/* Start the inputs of a bisection of @kind: what both kinds share (the
 * options of the search, the order seed on the model, matrix, model,
 * salt and settings); the caller adds its ends and hashes them into b->inputs
 * with kb_bisect__inputs_end(). */
void kb_bisect__inputs_begin(const struct bisect *b, const char *kind,
			     struct kb_buf *text);
void kb_bisect__inputs_str(struct kb_buf *text, const char *s);
void kb_bisect__inputs_end(struct bisect *b, struct kb_buf *text);

/* The finished bisection of @kind with b->inputs: 0 with *@a (caller
 * releases), KB_ENOTFOUND when none is stored (or opts.fresh), another
 * error when the store fails or its answer is damaged. */
int kb_bisect__answer_find(struct bisect *b, const char *kind,
			   struct kb_store_bisection_answer *a,
			   struct kb_err *err);

/* Keep @answer with b->r->bisection for a rerun. */
int kb_bisect__answer_keep(struct bisect *b, const char *answer,
			   struct kb_err *err);

/* The message of a stored answer that is not one kbisect wrote. */
int kb_bisect__answer_damaged(const struct bisect *b,
			      const struct kb_store_bisection_answer *a,
			      const char *why, struct kb_err *err);

/* Option bisection: the inputs of b (its ends by every option's levels,
 * its change groups) into b->inputs; the answer of result @r as text
 * (caller frees); and the stored answer, when there is one, read into
 * b->r (*found 1; b->r replaced, experiment and bisection the stored
 * one's, stored_at set). */
void kb_bisect__options_inputs(struct bisect *b);
char *kb_bisect__options_answer(const struct kb_bisect_result *r);
int kb_bisect__options_stored(struct bisect *b, int *found,
			      struct kb_err *err);

#endif
