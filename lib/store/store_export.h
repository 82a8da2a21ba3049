#ifndef KB_STORE_EXPORT_H
#define KB_STORE_EXPORT_H

/*
 * Every sample of an experiment, streamed (lib/store/store_export.c;
 * `kbisect export`).
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/* One sample as kb_store_export() hands it out; the strings are valid
 * until the callback returns. */
struct kb_store_sample_row {
	unsigned variant_idx;
	const char *label;         /* the variant's */
	const char *const *levels; /* its level of each factor the header
				    * named, in that order; NULL where the
				    * variant does not set that factor */
	int64_t boot_id;           /* the boots row */
	unsigned boot_no;
	const char *boot_status;   /* "ok", "panic", "boot-timeout" ... */
	const char *host;          /* where it ran, or NULL */
	unsigned run_no;
	const char *metric;
	double value;
};

/* What kb_store_export() calls; a nonzero return stops the export and
 * becomes its return (the callback sets @err, if it wants a message). */
struct kb_store_export_cb {
	/* once, first: the factors of the experiment's variants (Kconfig
	 * options, "kernel.rev", "guest.vcpus" ...), in the order the
	 * matrix gave them, each once */
	int (*header)(void *arg, const char *const *factors, size_t n);
	/* once per sample */
	int (*row)(void *arg, const struct kb_store_sample_row *r);
	void *arg;
};

/*
 * Hand every sample of experiment @exp to @cb, one row each, in the
 * order of variant index, boot number, run number and metric name, in
 * one read transaction (a sample stored meanwhile is not half seen).
 * Rows are read as they are handed out: memory does not grow with the
 * samples.  KB_ENOTFOUND "no experiment N in ..." when there is none.
 */
int kb_store_export(struct kb_store *s, int64_t exp,
		    const struct kb_store_export_cb *cb, struct kb_err *err);

/*
 * The same for the profiles (db/0019): one row per stack of each run of
 * each boot, by variant index, boot number, run number and stack, the
 * row's @metric the folded stack and its @value the samples that had it
 * (a whole number).  A database older than the profiles hands out the
 * header alone.
 */
int kb_store_export_profile(struct kb_store *s, int64_t exp,
			    const struct kb_store_export_cb *cb,
			    struct kb_err *err);

#endif
