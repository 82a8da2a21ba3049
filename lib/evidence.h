#ifndef KB_EVIDENCE_H
#define KB_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_matrix;
struct kb_store;
struct kb_store_evidence;

/*
 * The evidence of a variant's boot (db/0007, kb_store_evidence_get())
 * written out as files, the one writer of them: the stored texts alone
 * (kb_evidence_put_text(): the .config, the domain XML, the workload, as
 * `kbisect report` links them from repro/N/), or the whole folder that
 * boots by hand (kb_evidence_load() and kb_evidence_write(), `kbisect
 * repro`: the kernel checked against its SHA-256, the initramfs made
 * again, the domain XML moved into the folder, boot.sh and a README).
 * The files and their names are described in docs/guests.md.
 */

/* ---- the stored texts ------------------------------------------------- */

/* One stored text of a boot's evidence, as a file. */
enum kb_evidence_text {
	KB_EVIDENCE_CONFIG,   /* "config": the build's resolved .config */
	KB_EVIDENCE_DOMAIN,   /* "domain.xml": the domain XML as stored */
	KB_EVIDENCE_WORKLOAD, /* kb_evidence_workload_name(): the workload
			       * text as /init read it */
};

/* Where kb_evidence_put_text() puts a file. */
struct kb_evidence_sink {
	/* Write @len bytes of @data as file @name (a static string, valid
	 * for ever) with mode @mode; 0, or negative with @err set. */
	int (*put)(void *arg, const char *name, const char *data, size_t len,
		   unsigned mode, struct kb_err *err);
	void *arg;
};

/*
 * The name of the file that holds a boot's stored workload text, from
 * matrix @m's workload: "workload.sh" for a command, "workload.fio" for
 * fio, "workload.txt" when @m is NULL (a stored matrix that no longer
 * parses: the kind is not known).  A static string.
 */
const char *kb_evidence_workload_name(const struct kb_matrix *m);

/*
 * Put stored text @t of evidence @e (its workload named from matrix @m,
 * which may be NULL) through @sink, mode 0644: 0 without calling @sink
 * when @e holds no such text (a build without a known .config); else
 * what @sink returns.
 */
int kb_evidence_put_text(const struct kb_store_evidence *e,
			 const struct kb_matrix *m, enum kb_evidence_text t,
			 const struct kb_evidence_sink *sink,
			 struct kb_err *err);

/* ---- the folder that boots by hand ------------------------------------ */

/* One variant's boot read from the store, to be written as a folder. */
struct kb_evidence;

/*
 * Read variant @variant ("3", "#3" or an exact label) of experiment @exp
 * of @s: the experiment, the variant's boot means of the metric, its
 * evidence and the stored matrix, and check that its kernel image is
 * there and is the one booted (its SHA-256 against the build's record).
 * Nothing is written.  0 with *@out the caller's (kb_evidence_free());
 * KB_ENOTFOUND for an unknown experiment; KB_EINPUT for an experiment of
 * the model executor, an unknown variant, or one with no boot that
 * stored a domain XML; KB_EFAIL for a kernel image that is gone or
 * changed (the message says what to do) or evidence without an image or
 * a workload; an error of the matrix that no longer plans.
 */
int kb_evidence_load(struct kb_store *s, int64_t exp, const char *variant,
		     struct kb_evidence **out, struct kb_err *err);

/* Free @ev and what it holds; NULL is ignored. */
void kb_evidence_free(struct kb_evidence *ev);

/* How kb_evidence_write() writes. */
struct kb_evidence_write_opts {
	int force; /* write into a folder that is not empty, replacing
		    * the files it writes */
	/* A step that takes a while starts ("making the initramfs (fio, 2
	 * runs per boot)"); NULL: none reported. */
	void (*progress)(const char *what, void *arg);
	void *arg; /* for @progress */
};
#define KB_EVIDENCE_WRITE_OPTS_INIT { .force = 0 }

/*
 * Write @ev as folder @dir (made with its parents, 0755: the
 * hypervisor's user reads the kernel in it; an existing one must be
 * empty unless @o->force): config (when known), kernel, the workload,
 * initrd, root.img (for a guest.image), cmdline, domain.xml, boot.sh
 * and README, each written whole (kb_write_atomic()) in that order.
 * KB_EINPUT for a @dir that is a file or not empty.  @o NULL: the
 * defaults.
 */
int kb_evidence_write(struct kb_evidence *ev, const char *dir,
		      const struct kb_evidence_write_opts *o,
		      struct kb_err *err);

/* What was read and written, for the caller to print; valid while @ev
 * is and until the next kb_evidence_write(). */
struct kb_evidence_info {
	int64_t exp;              /* the experiment */
	unsigned variant;         /* its index */
	const char *label;        /* the variant's label, or NULL */
	unsigned boot_no;         /* the boot written */
	const char *status;       /* its status: "ok", "panic" ... */
	const char *host;         /* its libvirt URI, or NULL */
	const char *build_key;    /* the build booted, or NULL */
	const char *kernel_sha256; /* the image's, as read now */
	int sha256_checked;       /* against the build's record; 0: the
				   * build recorded none */
	const char *domain;       /* the domain's new name; NULL before
				   * kb_evidence_write() */
	const char *dir;          /* the folder, absolute; NULL before */
	size_t nfiles;            /* the files written, in order */
	const char *files;        /* their names, NUL-separated */
};

/* Fill *@out from @ev (see struct kb_evidence_info). */
void kb_evidence_info(const struct kb_evidence *ev,
		      struct kb_evidence_info *out);

#endif
