#ifndef KB_EVIDENCE_INT_H
#define KB_EVIDENCE_INT_H

/*
 * Inside the evidence writer (lib/evidence.h): what lib/evidence.c (the
 * reading, the checks, the folder and its files) and
 * lib/evidence_script.c (the text of boot.sh and of the README) share.
 * Only those files include this header.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "domxml.h"
#include "sha256.h"
#include "stats.h"
#include "store.h"

struct kb_matrix;
struct kb_plan;
struct kb_variant;

struct kb_evidence {
	int64_t exp;
	struct kb_store_info info;
	struct kb_store_variant *vs;
	size_t nvs;
	const struct kb_store_variant *v;  /* the variant */
	struct kb_store_evidence e;
	struct kb_matrix *m;
	struct kb_plan *p;
	const struct kb_variant *pv;       /* the plan's variant, or NULL */
	struct kb_summary sum;             /* its boot means of the metric */
	char *dir;                         /* absolute, once made */
	char *name;                        /* the domain's new name */
	struct kb_domxml_moved moved;
	char kernel_sha[KB_SHA256_HEX_LEN + 1];
	int sha_checked;                   /* the image had a recorded sha:
					    * always, once loaded */
	/* the storage pool of its host the boot's files were shipped
	 * through (hosts[].pool), or NULL: the folder then boots on this
	 * machine, not on that host */
	const char *pool;
	/* the variant is not in the matrix's plan: the initramfs runs the
	 * matrix's copies and sysctls, not its own (said in the README) */
	int template_workload;
	struct kb_buf files;               /* names written, NUL-separated */
	size_t nfiles;
};

/* boot.sh of @ev, after kb_domxml_relocate() filled ev->moved. */
void ev_boot_sh(const struct kb_evidence *ev, struct kb_buf *b);
/* The README of @ev, likewise. */
void ev_readme(const struct kb_evidence *ev, struct kb_buf *b);

#endif
