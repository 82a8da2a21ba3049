#ifndef KB_MATRIX_INT_H
#define KB_MATRIX_INT_H

/*
 * What lib/matrix.c shares with lib/matrix_workload.c (the workload,
 * cmdline and sysctl factors, and the workload keys that go with them):
 * the validation context and its helpers.  Private to the matrix module.
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

/* Keep @p until the matrix is freed; returns @p. */
void *kb_matrix__keep(struct kb_matrix *m, void *p);

/*
 * Add factor @name of @kind written at @key with the levels at @value
 * (matrix.c: duplicates, the factor cap, the levels list).
 */
int kb_matrix__add_factor(struct ctx *c, enum kb_factor_kind kind,
			  const char *name, const struct kb_ynode *key,
			  const struct kb_ynode *value);

/*
 * Scalar @n is an extended regular expression @what that glibc compiles
 * in bounded time and memory, with exactly one (group).
 */
int kb_matrix__regex_one_group(struct ctx *c, const struct kb_ynode *n,
			       const char *what);

/* ---- lib/matrix_workload.c ------------------------------------------- */

/* factors.workload, factors.cmdline or factors.sysctl (@group) at @grp,
 * a mapping already checked to be one. */
int kb_matrix__runtime_group(struct ctx *c, const char *group,
			     const struct kb_ynode *grp);

/* One level of a workload.*, cmdline.* or sysctl.* factor @f into @out. */
int kb_matrix__runtime_level(struct ctx *c, const struct kb_factor *f,
			     const struct kb_ynode *n, struct kb_level *out);

/*
 * The workload keys beyond fio, fio_job, command and metric, once those
 * are read: command.metrics and command.parser (@cmd, the command
 * mapping, or NULL), targets, targets_count and per_device (in @n, the
 * workload); then the {{NAME}} parameters against the workload.NAME
 * factors, and the metrics a run may yield against the sample's cap.
 */
int kb_matrix__workload_more(struct ctx *c, const struct kb_ynode *n,
			     const struct kb_ynode *cmd);

#endif
