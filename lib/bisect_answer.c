/*
 * The answer of a finished bisection, kept for a rerun (lib/bisect_int.h):
 * the digest of what decides a bisection, the codec that writes an
 * answer as text and reads it back, option bisection's answer, and the
 * store's rows found and kept.  Commit bisection codes its own answer
 * (lib/bisect_commits.c) with the codec here.  Calls the store and
 * nothing of the searches.
 */
#include "bisect.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "buf.h"
#include "err.h"
#include "mem.h"
#include "sha256.h"
#include "store.h"
#include "banned.h"

/* The first token of an answer: a new layout gets a new number (and
 * INPUTS_TAG with it), so that an answer of another layout is never
 * looked for, let alone read. */
#define ANSWER_TAG "kbisect-answer-3"
/* The first line of the inputs hashed: bump it too when the search
 * changes what it would answer for the same inputs (how it groups,
 * probes or classifies), so that a rerun does not print an answer the
 * search of this kbisect would not give. */
#define INPUTS_TAG "kbisect-inputs-3"

/* ---- the codec -------------------------------------------------------- */

/* The next token (it is never longer than the text): its start and
 * length, or 0 when none is left. */
static size_t next_token(struct kb_bisect_codec *c, const char **tok)
{
	size_t n = 0;

	while (*c->p == ' ' || *c->p == '\n')
		c->p++;
	*tok = c->p;
	while (c->p[n] && c->p[n] != ' ' && c->p[n] != '\n')
		n++;
	c->p += n;
	return n;
}

/* Write a token; read one into @buf (at most @size - 1 bytes): 0 when
 * there was none or it was too long (c->bad). */
static int token(struct kb_bisect_codec *c, char *buf, size_t size)
{
	const char *tok;
	size_t n;

	if (c->bad)
		return 0;
	n = next_token(c, &tok);
	if (n == 0 || n >= size) {
		c->bad = 1;
		return 0;
	}
	memcpy(buf, tok, n);
	buf[n] = '\0';
	return 1;
}

void kb_bisect__code_tag(struct kb_bisect_codec *c, const char *tag)
{
	char buf[64];

	if (c->out) {
		kb_buf_addf(c->out, "\n%s", tag);
		return;
	}
	if (token(c, buf, sizeof(buf)) && strcmp(buf, tag))
		c->bad = 1;
}

/* Read an integer in [lo, hi] (0 and c->bad when not). */
static long long read_int(struct kb_bisect_codec *c, long long lo,
			  long long hi)
{
	char buf[32], *end;
	long long v;

	if (!token(c, buf, sizeof(buf)))
		return 0;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		c->bad = 1;
		return 0;
	}
	return v;
}

void kb_bisect__code_size(struct kb_bisect_codec *c, size_t *v, size_t max)
{
	if (c->out)
		kb_buf_addf(c->out, " %zu", *v);
	else
		*v = (size_t)read_int(c, 0, (long long)(max < LLONG_MAX
							    ? max
							    : LLONG_MAX));
}

void kb_bisect__code_uint(struct kb_bisect_codec *c, unsigned *v)
{
	if (c->out)
		kb_buf_addf(c->out, " %u", *v);
	else
		*v = (unsigned)read_int(c, 0, UINT_MAX);
}

void kb_bisect__code_int(struct kb_bisect_codec *c, int *v, int lo, int hi)
{
	if (c->out)
		kb_buf_addf(c->out, " %d", *v);
	else
		*v = (int)read_int(c, lo, hi);
}

void kb_bisect__code_long(struct kb_bisect_codec *c, long *v, long lo,
			  long hi)
{
	if (c->out)
		kb_buf_addf(c->out, " %ld", *v);
	else
		*v = (long)read_int(c, lo, hi);
}

void kb_bisect__code_real(struct kb_bisect_codec *c, double *v)
{
	char buf[64], *end;

	if (c->out) {
		/* nan and inf as printf spells them, which strtod reads */
		kb_buf_addf(c->out, " %.17g", *v);
		return;
	}
	*v = 0;
	if (!token(c, buf, sizeof(buf)))
		return;
	*v = strtod(buf, &end);
	if (*end) {
		c->bad = 1;
		*v = 0;
	}
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* A string is "~" (NULL) or "=" and its bytes, each byte that is not a
 * printable one but '%' and '~' as %xx. */
void kb_bisect__code_str(struct kb_bisect_codec *c, char **v, int nullable)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *tok, *s;
	size_t n, i;

	if (c->out) {
		if (!*v) {
			kb_buf_adds(c->out, " ~");
			return;
		}
		kb_buf_adds(c->out, " =");
		for (s = *v; *s; s++) {
			unsigned char ch = (unsigned char)*s;

			if (ch <= ' ' || ch >= 0x7f || ch == '%' || ch == '~')
				kb_buf_addf(c->out, "%%%02x", ch);
			else
				kb_buf_addch(c->out, (char)ch);
		}
		return;
	}
	*v = NULL;
	if (c->bad)
		return;
	n = next_token(c, &tok);
	if (n == 1 && tok[0] == '~') {
		c->bad |= !nullable;
		return;
	}
	if (n == 0 || tok[0] != '=') {
		c->bad = 1;
		return;
	}
	kb_buf_adds(&b, "");
	for (i = 1; i < n; i++) {
		int hi, lo;

		if (tok[i] != '%') {
			kb_buf_addch(&b, tok[i]);
			continue;
		}
		if (i + 2 >= n || (hi = hexval(tok[i + 1])) < 0 ||
		    (lo = hexval(tok[i + 2])) < 0 || (hi == 0 && lo == 0)) {
			c->bad = 1;
			kb_buf_release(&b);
			return;
		}
		kb_buf_addch(&b, (char)(hi * 16 + lo));
		i += 2;
	}
	*v = kb_buf_detach(&b);
}

void kb_bisect__code_count(struct kb_bisect_codec *c, size_t *v, size_t max)
{
	kb_bisect__code_size(c, v, max);
	/* each item takes a token at least: no more than the text holds */
	if (!c->out && *v > (size_t)(c->end - c->p)) {
		c->bad = 1;
		*v = 0;
	}
}

static void code_summary(struct kb_bisect_codec *c, struct kb_summary *v)
{
	kb_bisect__code_size(c, &v->n, SIZE_MAX);
	kb_bisect__code_real(c, &v->mean);
	kb_bisect__code_real(c, &v->median);
	kb_bisect__code_real(c, &v->stddev);
	kb_bisect__code_real(c, &v->cv);
	kb_bisect__code_real(c, &v->ci_low);
	kb_bisect__code_real(c, &v->ci_high);
	kb_bisect__code_real(c, &v->min);
	kb_bisect__code_real(c, &v->max);
}

void kb_bisect__code_comparison(struct kb_bisect_codec *c,
				struct kb_comparison *v)
{
	int verdict = (int)v->verdict, test = (int)v->test;

	kb_bisect__code_tag(c, "comparison");
	code_summary(c, &v->a);
	code_summary(c, &v->b);
	kb_bisect__code_real(c, &v->change_pct);
	kb_bisect__code_real(c, &v->ci_low);
	kb_bisect__code_real(c, &v->ci_high);
	kb_bisect__code_real(c, &v->est_pct);
	kb_bisect__code_real(c, &v->p);
	kb_bisect__code_int(c, &verdict, KB_VERDICT_NO_CHANGE,
			    KB_VERDICT_INCONCLUSIVE);
	kb_bisect__code_real(c, &v->alpha);
	kb_bisect__code_uint(c, &v->looks);
	kb_bisect__code_real(c, &v->min_p);
	kb_bisect__code_size(c, &v->nonpositive, SIZE_MAX);
	kb_bisect__code_int(c, &test, KB_COMPARE_MANN_WHITNEY,
			    KB_COMPARE_WELCH_T);
	kb_bisect__code_size(c, &v->npairs, SIZE_MAX);
	kb_bisect__code_size(c, &v->unpaired, SIZE_MAX);
	kb_bisect__code_real(c, &v->se_log);
	kb_bisect__code_real(c, &v->df);
	kb_bisect__code_int(c, &v->futile, 0, 1);
	v->verdict = (enum kb_verdict)verdict;
	v->test = (enum kb_compare_test)test;
}

void kb_bisect__code_probe(struct kb_bisect_codec *c,
			   struct kb_bisect_probe *p, size_t nchanges,
			   size_t ncommits)
{
	int cls = (int)p->cls;
	size_t i;

	kb_bisect__code_tag(c, "probe");
	kb_bisect__code_uint(c, &p->step);
	kb_bisect__code_int(c, &p->variant_idx, -1, INT_MAX);
	kb_bisect__code_int(c, &cls, KB_BISECT_GOOD, KB_BISECT_SKIP);
	p->cls = (enum kb_bisect_class)cls;
	kb_bisect__code_uint(c, &p->boots);
	kb_bisect__code_real(c, &p->change_pct);
	kb_bisect__code_real(c, &p->ci_low);
	kb_bisect__code_real(c, &p->ci_high);
	kb_bisect__code_real(c, &p->bad_change_pct);
	kb_bisect__code_real(c, &p->evidence);
	kb_bisect__code_str(c, &p->reason, 1);
	kb_bisect__code_size(c, &p->commit, ncommits ? ncommits - 1 : 0);
	kb_bisect__code_count(c, &p->napplied, nchanges);
	if (!c->out)
		p->applied = kb_calloc(p->napplied + 1, sizeof(*p->applied));
	for (i = 0; i < p->napplied && !c->bad; i++)
		kb_bisect__code_size(c, &p->applied[i],
				     nchanges ? nchanges - 1 : 0);
	if (c->bad && !c->out)
		p->napplied = 0;
}

void kb_bisect__code_probes(struct kb_bisect_codec *c,
			    struct kb_bisect_probe **probes, size_t *n,
			    size_t nchanges, size_t ncommits)
{
	size_t i;

	kb_bisect__code_tag(c, "probes");
	kb_bisect__code_count(c, n, SIZE_MAX / sizeof(**probes) / 2);
	if (!c->out)
		*probes = kb_calloc(*n + 1, sizeof(**probes));
	for (i = 0; i < *n && !c->bad; i++)
		kb_bisect__code_probe(c, &(*probes)[i], nchanges, ncommits);
}

/* ---- the inputs --------------------------------------------------------- */

void kb_bisect__inputs_str(struct kb_buf *text, const char *s)
{
	if (!s) {
		kb_buf_adds(text, "~\n");
		return;
	}
	kb_buf_addf(text, "%zu:", strlen(s));
	kb_buf_adds(text, s);
	kb_buf_addch(text, '\n');
}

void kb_bisect__inputs_begin(const struct bisect *b, const char *kind,
			     struct kb_buf *text)
{
	const struct kb_bisect_opts *o = b->o;
	size_t i;

	kb_buf_addf(text, "%s\n%s\n", INPUTS_TAG, kind);
	kb_bisect__inputs_str(text, o->metric);
	kb_buf_addf(text,
		    "higher_is_better %d\nboots %u\nruns_per_boot %u\n"
		    "max_boots %u\nthreshold %.17g\nalpha %.17g\n"
		    "max_probes %u\nstrategy %d\nchanges_only %d\n",
		    o->higher_is_better != 0, o->boots, o->runs_per_boot,
		    o->max_boots, o->threshold_pct, o->alpha, b->max_probes,
		    (int)o->strategy, o->changes_only != 0);
	/* a seed drawn afresh is not an input: any draw answers for it */
	if (b->seed_fresh)
		kb_buf_addf(text, "seed drawn\n");
	else
		kb_buf_addf(text, "seed %" PRIu64 "\n", b->seed);
	kb_bisect__inputs_str(text, o->name);
	kb_bisect__inputs_str(text, o->matrix_text);
	kb_bisect__inputs_str(text, o->model_text);
	kb_bisect__inputs_str(text, o->build_salt);
	kb_buf_addf(text, "settings %zu\n", o->nsettings);
	for (i = 0; i < o->nsettings; i++) {
		kb_buf_addf(text, "%d ", (int)o->settings[i].kind);
		kb_bisect__inputs_str(text, o->settings[i].name);
		kb_bisect__inputs_str(text, o->settings[i].value);
	}
}

void kb_bisect__inputs_end(struct bisect *b, struct kb_buf *text)
{
	kb_sha256_hex(text->buf, text->len, b->inputs);
}

/* ---- the store's rows ------------------------------------------------- */

int kb_bisect__answer_find(struct bisect *b, const char *kind,
			   struct kb_store_bisection_answer *a,
			   struct kb_err *err)
{
	memset(a, 0, sizeof(*a));
	if (b->o->fresh || !b->inputs[0])
		return KB_ENOTFOUND;
	return kb_store_bisection_answer_find(b->s, kind, b->inputs, a, err);
}

int kb_bisect__answer_keep(struct bisect *b, const char *answer,
			   struct kb_err *err)
{
	if (!b->inputs[0] || !answer || !b->r->bisection)
		return 0;
	return kb_store_bisection_answer_put(b->s, b->r->bisection, b->inputs,
					     answer, err);
}

int kb_bisect__answer_damaged(const struct bisect *b,
			      const struct kb_store_bisection_answer *a,
			      const char *why, struct kb_err *err)
{
	return kb_err_set(err, KB_EINPUT,
			  "bisection %lld in '%s': its stored answer is damaged (%s); --fresh bisects again",
			  (long long)a->id, kb_store_path(b->s), why);
}

/* ---- option bisection ------------------------------------------------- */

void kb_bisect__options_inputs(struct bisect *b)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t i;

	kb_bisect__inputs_begin(b, "options", &text);
	/* the ends by content: every option of either and its levels */
	kb_buf_addf(&text, "options %zu\n", b->nnames);
	for (i = 0; i < b->nnames; i++) {
		kb_bisect__inputs_str(&text, b->names[i]);
		kb_bisect__inputs_str(&text, b->goodv[i]);
		kb_bisect__inputs_str(&text, b->badv[i]);
	}
	/* how they were grouped: another grouping is another bisection */
	kb_buf_addf(&text, "changes %zu derived %zu groups %zu\n",
		    b->r->nchanges, b->r->nderived, b->ngroups);
	for (i = 0; i < b->r->nchanges; i++)
		kb_buf_addf(&text, "%u\n", b->r->changes[i].group);
	kb_bisect__inputs_end(b, &text);
	kb_buf_release(&text);
}

static void code_changes(struct kb_bisect_codec *c, const char *tag,
			 struct kb_bisect_change **v, size_t *n,
			 size_t max)
{
	size_t i;

	kb_bisect__code_tag(c, tag);
	kb_bisect__code_count(c, n, max);
	if (!c->out)
		*v = kb_calloc(*n + 1, sizeof(**v));
	for (i = 0; i < *n && !c->bad; i++) {
		kb_bisect__code_str(c, &(*v)[i].option, 0);
		kb_bisect__code_str(c, &(*v)[i].good, 0);
		kb_bisect__code_str(c, &(*v)[i].bad, 0);
		kb_bisect__code_uint(c, &(*v)[i].group);
	}
}

static void code_joins(struct kb_bisect_codec *c, struct kb_bisect_join **v,
		       size_t *n)
{
	size_t i;

	kb_bisect__code_tag(c, "joins");
	kb_bisect__code_count(c, n, SIZE_MAX / 64);
	if (!c->out)
		*v = kb_calloc(*n + 1, sizeof(**v));
	for (i = 0; i < *n && !c->bad; i++) {
		kb_bisect__code_uint(c, &(*v)[i].step);
		kb_bisect__code_str(c, &(*v)[i].option, 0);
		kb_bisect__code_str(c, &(*v)[i].with, 0);
		kb_bisect__code_str(c, &(*v)[i].reason, 0);
	}
}

/*
 * Every field of struct kb_bisect_result but the ids and stored_at (the
 * row's).  A field added to the struct is coded here too: the size
 * check below fails until it is (LP64).
 */
#if defined(__LP64__)
_Static_assert(sizeof(struct kb_bisect_result) == 584,
	       "a field of struct kb_bisect_result is kept in the answer: code it in code_options() (lib/bisect_answer.c), bump ANSWER_TAG, then set this size");
#endif

static void code_options(struct kb_bisect_codec *c, struct kb_bisect_result *r)
{
	size_t i;

	kb_bisect__code_tag(c, ANSWER_TAG);
	kb_bisect__code_tag(c, "options");
	kb_bisect__code_int(c, &r->reproduced, 0, 1);
	kb_bisect__code_comparison(c, &r->ends);
	code_changes(c, "changes", &r->changes, &r->nchanges,
		     KB_BISECT_MAX_CHANGES);
	code_changes(c, "derived", &r->derived, &r->nderived, SIZE_MAX / 64);
	kb_bisect__code_tag(c, "groups");
	kb_bisect__code_size(c, &r->ngroups, r->nchanges);
	code_joins(c, &r->joins, &r->njoins);
	code_changes(c, "culprits", &r->culprits, &r->nculprits, r->nchanges);
	kb_bisect__code_tag(c, "effect");
	kb_bisect__code_real(c, &r->change_pct);
	kb_bisect__code_real(c, &r->ci_low);
	kb_bisect__code_real(c, &r->ci_high);
	kb_bisect__code_uint(c, &r->culprit_boots);
	kb_bisect__code_tag(c, "settled");
	kb_bisect__code_int(c, &r->confirmed, 0, 1);
	kb_bisect__code_uint(c, &r->confirm_rounds);
	kb_bisect__code_int(c, &r->complete, 0, 1);
	kb_bisect__code_int(c, &r->minimal, 0, 1);
	kb_bisect__code_size(c, &r->nunresolved, r->nculprits);
	kb_bisect__code_size(c, &r->nunsettled, SIZE_MAX);
	kb_bisect__code_size(c, &r->nbetween, r->nunsettled);
	kb_bisect__code_size(c, &r->nskipped, r->nunsettled - r->nbetween);
	kb_bisect__code_uint(c, &r->settle_boots);
	kb_bisect__code_uint(c, &r->more_boots);
	kb_bisect__code_tag(c, "spent");
	kb_bisect__code_uint(c, &r->builds);
	kb_bisect__code_uint(c, &r->boots);
	kb_bisect__code_uint(c, &r->runs);
	kb_bisect__code_uint(c, &r->builds_cached);
	kb_bisect__code_probes(c, &r->probes, &r->nprobes, r->nchanges, 1);
	kb_bisect__code_tag(c, "end");
	kb_bisect__code_probe(c, &r->end, r->nchanges, 1);
	kb_bisect__code_tag(c, "eof");
	/* the groups the culprits print are those of the changes */
	for (i = 0; i < r->nchanges && !c->bad; i++)
		c->bad |= r->changes[i].group >= r->ngroups;
	for (i = 0; i < r->nculprits && !c->bad; i++)
		c->bad |= r->culprits[i].group >= r->ngroups;
}

char *kb_bisect__options_answer(const struct kb_bisect_result *r)
{
	struct kb_buf out = KB_BUF_INIT;
	struct kb_bisect_codec c = { .out = &out, .p = NULL, .end = NULL,
				     .bad = 0 };

	/* written from a copy: the codec's fields are read, never changed */
	struct kb_bisect_result copy = *r;

	code_options(&c, &copy);
	kb_buf_addch(&out, '\n');
	return kb_buf_detach(&out);
}

/*
 * Do the stored changes name the options this bisection found, at the
 * same levels?  Their groups are the stored answer's: a probe that did
 * not hold joined some (result->joins) after the grouping this run
 * starts from, so they may be fewer, never other changes.
 */
static int same_changes(const struct kb_bisect_result *a,
			const struct kb_bisect_result *b)
{
	size_t i;

	if (a->nchanges != b->nchanges || a->ngroups > b->ngroups)
		return 0;
	for (i = 0; i < a->nchanges; i++)
		if (strcmp(a->changes[i].option, b->changes[i].option) ||
		    strcmp(a->changes[i].good, b->changes[i].good) ||
		    strcmp(a->changes[i].bad, b->changes[i].bad))
			return 0;
	return 1;
}

int kb_bisect__options_stored(struct bisect *b, int *found,
			      struct kb_err *err)
{
	struct kb_store_bisection_answer a;
	struct kb_bisect_result *r = NULL;
	struct kb_bisect_codec c = { .out = NULL, .p = NULL, .end = NULL,
				     .bad = 0 };
	int ret;

	*found = 0;
	ret = kb_bisect__answer_find(b, "options", &a, err);
	if (ret == KB_ENOTFOUND)
		return 0;
	if (ret)
		return ret;
	r = kb_calloc(1, sizeof(*r));
	c.p = a.answer;
	c.end = a.answer + strlen(a.answer);
	code_options(&c, r);
	if (!c.bad) {
		const char *tok;

		c.bad = next_token(&c, &tok) != 0;
	}
	if (c.bad) {
		ret = kb_bisect__answer_damaged(b, &a, "not an answer this kbisect wrote", err);
		goto out;
	}
	if (!same_changes(r, b->r)) {
		ret = kb_bisect__answer_damaged(b, &a, "its changes are not those of these configs", err);
		goto out;
	}
	r->experiment = a.experiment_id;
	r->bisection = a.id;
	r->stored_at = a.created_at;
	a.created_at = NULL;
	kb_bisect_result_free(b->r);
	b->r = r;
	r = NULL;
	*found = 1;
out:
	kb_bisect_result_free(r);
	kb_store_bisection_answer_release(&a);
	return ret;
}
