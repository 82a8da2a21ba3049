#ifndef KB_STORE_BISECT_H
#define KB_STORE_BISECT_H

/*
 * Bisections in the store (lib/store/store_bisect.c): probes added as
 * variants, bisections and their steps.
 */

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct kb_err;
struct kb_store;

/*
 * Add variant @v (its row and one variant_options row per setting) to
 * experiment @exp in one transaction, for variants made after the
 * experiment was created (the probes of a bisection).  @v->idx must not
 * be taken yet (KB_EEXISTS).
 */
int kb_store_variant_add(struct kb_store *s, int64_t exp,
			 const struct kb_variant *v, struct kb_err *err);

/*
 * Start a bisection of kind @kind ("options" or "commits") in experiment
 * @exp between @good and @bad (what the ends are: config paths or
 * revisions); state "running".  Sets *@id.
 */
int kb_store_bisection_create(struct kb_store *s, int64_t exp,
			      const char *kind, const char *good,
			      const char *bad, int64_t *id,
			      struct kb_err *err);

/* One step of a bisection, as written and as read back. */
struct kb_store_bisection_step {
	unsigned step_no;           /* 1, 2, ... */
	const char *probe;          /* the option changes applied, or a commit */
	int variant_idx;            /* the variant measured, -1 when none */
	const char *classification; /* "good", "bad", "skip", "unknown" */
	double change_pct;          /* against the good end; NaN = NULL */
	double ci_low_pct, ci_high_pct;
};

/*
 * Record step @st of bisection @id (of experiment @exp, whose variant
 * @st->variant_idx it names).  A step number is stored once (KB_EEXISTS).
 */
int kb_store_bisection_step_put(struct kb_store *s, int64_t id, int64_t exp,
				const struct kb_store_bisection_step *st,
				struct kb_err *err);

/* Set bisection @id's state ("done", "failed", ...) and result text. */
int kb_store_bisection_finish(struct kb_store *s, int64_t id,
			      const char *state, const char *result,
			      struct kb_err *err);

/* A bisection as stored, with its steps in order. */
struct kb_store_bisection {
	int64_t id, experiment_id;
	char *kind, *good, *bad, *state;
	char *result;  /* or NULL */
	size_t nsteps;
	struct kb_store_bisection_step *steps; /* probe and classification
						* strings owned */
};
void kb_store_bisection_release(struct kb_store_bisection *b);

/* Read bisection @id; KB_ENOTFOUND when there is none. */
int kb_store_bisection_get(struct kb_store *s, int64_t id,
			   struct kb_store_bisection *out, struct kb_err *err);

/*
 * Keep the answer of bisection @id for a rerun: @inputs, the SHA-256
 * (hex) of what decides it, and @answer, the answer as text
 * (lib/bisect_answer.c), found again by kb_store_bisection_answer_find()
 * once the bisection is done.  A database kept at a version before
 * db/0015 has no place for them, and an answer longer than
 * KB_STORE_ANSWER_MAX is not kept: then nothing is (returns 0).
 */
#define KB_STORE_ANSWER_MAX (64u << 20)
int kb_store_bisection_answer_put(struct kb_store *s, int64_t id,
				  const char *inputs, const char *answer,
				  struct kb_err *err);

/* A finished bisection's answer, as kept (strings owned). */
struct kb_store_bisection_answer {
	int64_t id, experiment_id;
	char *created_at; /* when the bisection started */
	char *answer;     /* its text */
};
void kb_store_bisection_answer_release(struct kb_store_bisection_answer *a);

/*
 * The latest bisection of @kind whose inputs are @inputs, done, with its
 * answer kept, into *@out (caller releases); KB_ENOTFOUND when there is
 * none (always, in a database before db/0015).  KB_EINPUT when that
 * answer is not text or longer than KB_STORE_ANSWER_MAX (a damaged
 * database).
 */
int kb_store_bisection_answer_find(struct kb_store *s, const char *kind,
				   const char *inputs,
				   struct kb_store_bisection_answer *out,
				   struct kb_err *err);

#endif
