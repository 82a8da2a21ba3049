#ifndef KB_MATRIX_INT_H
#define KB_MATRIX_INT_H

/*
 * What the matrix's files share (lib/matrix.c lists them, each calling
 * only those below it): the object, the validation context and the
 * helpers of each file that the files above it call.  Private to the
 * matrix module.
 */

#include "matrix.h"
#include "ycheck.h"
#include "ydoc.h"

struct kb_matrix {
	struct kb_ydoc *doc;
	const char *file;
	const char *name;
	enum kb_design_kind design;
	size_t nfactors;
	struct kb_factor factors[KB_MATRIX_MAX_FACTORS];
	struct kb_source source;
	struct kb_guest guest;
	struct kb_workload workload;
	struct kb_repeat repeat;
	struct kb_compare compare;
	struct kb_build_cfg build;
	size_t nhosts;
	struct kb_host *hosts;
	/* every string and array allocated for the views above */
	void **pool;
	size_t npool;
};

/* Validation context: the matrix being filled and where errors go. */
struct ctx {
	struct kb_matrix *m;
	struct kb_ycheck y;
	int stored; /* kb_matrix_parse_stored(): look at nothing on disk */
};

/* The input error "file:line:col: message" at node @n (lib/ycheck.h). */
#define fail(c, ...) kb_ycheck_fail(&(c)->y, __VA_ARGS__)

/* ---- lib/matrix.c: what every part of the grammar uses --------------- */

/* Keep @p until the matrix is freed; returns @p. */
void *kb_matrix__keep(struct kb_matrix *m, void *p);

/* An integer in [min, max], as kb_ycheck_uint() takes it. */
int kb_matrix__uint(struct ctx *c, const struct kb_ynode *n, const char *what,
		    unsigned min, unsigned max, unsigned *out);

/* A file the matrix refers to: resolved against the matrix's folder
 * (not looked at when the matrix is a stored one). */
int kb_matrix__file(struct ctx *c, const struct kb_ynode *n, const char *what,
		    const char **out);

/* @s is a lower-case word of [a-z0-9_] starting with a letter, shorter
 * than @max. */
int kb_matrix__lower_word(const char *s, size_t max);

/* ---- lib/matrix_factors.c --------------------------------------------- */

/* The factors section at @n: every factor and its levels. */
int kb_matrix__factors(struct ctx *c, const struct kb_ynode *n);

/* ---- lib/matrix_machine.c --------------------------------------------- */

/* hosts[].machine at @n into *@out (kept by the matrix). */
int kb_matrix__machine(struct ctx *c, const struct kb_ynode *n,
		       const struct kb_machine **out);

/* ---- lib/matrix_workload.c -------------------------------------------- */

/* The workload section at @n (NULL when absent: an error); the factors
 * are read first, for the {{NAME}} parameters. */
int kb_matrix__workload(struct ctx *c, const struct kb_ynode *n);

#endif
