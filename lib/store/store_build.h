#ifndef KB_STORE_BUILD_H
#define KB_STORE_BUILD_H

/*
 * The store's builds (lib/store/store_build.c): the build cache by build
 * key, and what a build from source adds to its row (lib/build.c,
 * cmd/kbisect/build.c).
 */

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct kb_err;
struct kb_store;

/*
 * Look up a build by key.  Returns 0 and fills *@out (caller releases)
 * and *@build_id when found; KB_ENOTFOUND when not.
 */
int kb_store_build_get(struct kb_store *s, const char *key,
		       struct kb_build_result *out, int64_t *build_id,
		       struct kb_err *err);

/*
 * Record a build result under @key; sets *@build_id.  A key is stored
 * once: KB_EEXISTS when it already is (nothing written; use
 * kb_store_build_get()).
 */
int kb_store_build_put(struct kb_store *s, const char *key,
		       const char *executor,
		       const struct kb_build_result *r, int64_t *build_id,
		       struct kb_err *err);

/* ---- builds from source (lib/build.c, cmd/kbisect/build.c) ------------ */

/* What a build from source adds to its row (db/0003-builds.sql). */
struct kb_store_build_detail {
	const char *tree_id;
	const char *compiler;
	const char *config_path;
	const char *log_path;
	const char *artifacts_dir;
	const char *label;       /* the variant(s) it was built for */
	long units_compiled;     /* -1: unknown */
	int full_build;          /* the O= folder held no earlier build */
};

/* Record @d on build row @build_id.  KB_ENOTFOUND when there is none. */
int kb_store_build_detail_put(struct kb_store *s, int64_t build_id,
			      const struct kb_store_build_detail *d,
			      struct kb_err *err);

/* One variant as `kbisect build` handled it. */
struct kb_store_build_request {
	const char *matrix_name;
	const char *matrix_path;   /* may be NULL */
	const char *run_started_at; /* the same for every row of one run */
	unsigned variant_idx;
	const char *variant_label;
	const char *build_key;
	int64_t build_id;          /* 0: none */
	const char *outcome;       /* "built", "reused", "shared", "failed" */
	int build_order;           /* position in the run's order; -1: none */
};

int kb_store_build_request_put(struct kb_store *s,
			       const struct kb_store_build_request *r,
			       struct kb_err *err);

/* A stored build with its details, for reports and the benchmark. */
struct kb_store_build_row {
	int64_t id;
	char *build_key;
	char *status;       /* "ok", "failed" */
	char *label;        /* or NULL */
	char *tree_id;      /* or NULL */
	char *image;        /* or NULL */
	char *log_path;     /* or NULL */
	char *created_at;
	double duration_s;
	long units_compiled; /* -1: unknown */
	int full_build;      /* -1: unknown */
};
void kb_store_build_row_release(struct kb_store_build_row *r);

/*
 * The builds requested by the latest `kbisect build` run of matrix
 * @matrix_name that built something (none: *@n = 0), in build order,
 * and in *@nvariants the number of variants that run had.  Caller
 * releases each row and frees the array.
 */
int kb_store_build_rows(struct kb_store *s, const char *matrix_name,
			struct kb_store_build_row **out, size_t *n,
			unsigned *nvariants, struct kb_err *err);

#endif
