#ifndef KB_STORE_EVIDENCE_H
#define KB_STORE_EVIDENCE_H

/*
 * The evidence of what was built and booted (lib/store/store_evidence.c,
 * db/0007), as `kbisect repro` writes it out.
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/* A boot's evidence and its build's, as `kbisect repro` writes them out. */
struct kb_store_evidence {
	unsigned boot_no;
	char *status;        /* the boot's: "ok", "panic", "boot-timeout" ... */
	char *reason;        /* why it did not end ok, or NULL */
	char *host;          /* the libvirt URI it ran on, or NULL */
	char *domain_xml;    /* the XML the guest was created with */
	char *workload_text; /* the fio job file or command, or NULL */
	int64_t build_id;    /* the build booted; 0: none */
	char *build_key;     /* its key, or NULL */
	char *image;         /* its kernel image's path, or NULL */
	char *image_sha256;  /* that image's SHA-256 (hex), or NULL: not
			      * recorded (a build from before db/0007) */
	char *config_text;   /* its resolved .config, or NULL: a prebuilt
			      * image without one, or from before db/0007 */
};
void kb_store_evidence_release(struct kb_store_evidence *e);

/*
 * The evidence of variant @idx of experiment @exp: its latest ok boot
 * that recorded a domain XML, else its latest boot that did (a panic or
 * a timeout is worth reproducing too), with the build that boot booted.
 * 0 with *@out filled (caller releases); KB_ENOTFOUND "... has no boot
 * with a domain XML ..." when no boot recorded one (never booted, the
 * model executor, boots stored before db/0007), or when @exp has no
 * variant @idx.  Reads only.
 */
int kb_store_evidence_get(struct kb_store *s, int64_t exp, unsigned idx,
			  struct kb_store_evidence *out, struct kb_err *err);

#endif
