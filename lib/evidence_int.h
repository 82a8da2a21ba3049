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

struct kb_bootrec;
struct kb_machine;
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
	/* a machine host's boot (host "machine:NAME"): the machine, from
	 * the stored matrix, and what its boot record (lib/bootrec.h)
	 * says it chose; NULL for a libvirt boot */
	const struct kb_machine *mc;
	struct kb_bootrec *rec;
};

/* Whether a boot of host @uri was a machine's ("machine:NAME"). */
int ev_is_machine(const char *uri);
/* Read a machine boot's record and its machine (after the matrix is
 * loaded): KB_EINPUT when the record or the machine is not there or a
 * value is not one line of printable text. */
int ev_machine_load(struct kb_evidence *r, struct kb_err *err);
/* boot.sh and the README of a machine boot. */
void ev_machine_boot_sh(const struct kb_evidence *r, struct kb_buf *b);
void ev_machine_readme(const struct kb_evidence *r, struct kb_buf *b);

/* @s in single quotes for sh. */
void ev_sh_quote(struct kb_buf *b, const char *s);
/* "name='value'\n" */
void ev_sh_var(struct kb_buf *b, const char *name, const char *value);
/* The measured mean and sd of the variant's boots, as one line. */
void ev_measured(const struct kb_evidence *r, struct kb_buf *b);
/* boot.sh's value(): how it reads the metric out of one run's payload
 * file "$1". */
void ev_value_fn(const struct kb_evidence *r, struct kb_buf *b);
/* boot.sh's settings: metric, regex, runs, boot_timeout (@boot_timeout,
 * the matrix's @whose), workload_timeout, and the kbisect it runs. */
void ev_vars(const struct kb_evidence *r, struct kb_buf *b,
	     unsigned boot_timeout, const char *whose);
/* boot.sh's end, once console.log holds the boot's console: the result
 * frames into run-N files, each run's metric and their mean, and what
 * kbisect measured; $status set (echo'd lines, no exit). */
void ev_results(const struct kb_evidence *r, struct kb_buf *b);

/* The README's paragraph on a variant outside the plan, if it is one. */
void ev_template_note(const struct kb_evidence *r, struct kb_buf *b);

/* boot.sh of @ev, after kb_domxml_relocate() filled ev->moved. */
void ev_boot_sh(const struct kb_evidence *ev, struct kb_buf *b);
/* The README of @ev, likewise. */
void ev_readme(const struct kb_evidence *ev, struct kb_buf *b);

#endif
