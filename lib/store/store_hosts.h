#ifndef KB_STORE_HOSTS_H
#define KB_STORE_HOSTS_H

/*
 * Hosts in the store (lib/store/store_hosts.c, db/0010): the hosts the
 * daemon's boot jobs are assigned, where boots ran, what befell each
 * host, and how long builds and boots overlapped.
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/* ---- the daemon's boot jobs and the hosts assigned them ----------------- */

/* A boot job of an experiment and the host it is assigned. */
struct kb_store_job_host {
	int64_t id;
	unsigned variant_idx;
	char *host;   /* assigned_host, or NULL (owned) */
	int queued;   /* still to run (queued), else leased or ended */
};

/*
 * The boot jobs of experiment @exp with their assigned hosts, in the
 * order of the queue.  Caller frees with kb_store_job_hosts_free().
 */
int kb_store_job_hosts(struct kb_store *s, int64_t exp,
		       struct kb_store_job_host **out, size_t *n,
		       struct kb_err *err);
void kb_store_job_hosts_free(struct kb_store_job_host *j, size_t n);

/*
 * Assign the queued boot jobs @ids[0..n) to @hosts[0..n), in one
 * transaction (a job no longer queued is left as it is).
 */
int kb_store_job_assign(struct kb_store *s, const int64_t *ids,
			const char *const *hosts, size_t n,
			struct kb_err *err);

/* ---- where boots ran, and what befell the hosts ------------------------- */

/* One boot of an experiment and where it ran. */
struct kb_store_boot_host {
	unsigned variant_idx;
	unsigned boot_no;
	char *host; /* the URI it ran on, or NULL (owned) */
	int ok;     /* it ended ok */
};

/*
 * Every boot of experiment @exp with its host, by variant and boot
 * number.  Caller frees with kb_store_boot_hosts_free().
 */
int kb_store_boot_hosts(struct kb_store *s, int64_t exp,
			struct kb_store_boot_host **out, size_t *n,
			struct kb_err *err);
void kb_store_boot_hosts_free(struct kb_store_boot_host *b, size_t n);

/*
 * Record what befell @host during experiment @exp: @kind "failure" (boot
 * @boot_no of variant @variant_idx failed for the host's reasons, and is
 * not stored as a boot) or "drained" (@variant_idx < 0: the host was
 * taken out, @reason its last failure).  Its own transaction, unless one
 * is open.
 */
int kb_store_host_event_put(struct kb_store *s, int64_t exp, const char *host,
			    const char *kind, int variant_idx,
			    unsigned boot_no, const char *reason,
			    struct kb_err *err);

/* Per host of an experiment: its boots and what befell it. */
struct kb_store_host_count {
	char *host;         /* the URI (owned); NULL: boots with none */
	unsigned boots;     /* boots stored as run there */
	unsigned ok;        /* of which ended ok */
	unsigned failures;  /* failures of the host's own, not boots */
	int drained;        /* it was drained */
	char *last_failure; /* the latest of them, or NULL (owned) */
};

/*
 * The hosts of experiment @exp, by URI (NULL, boots with no host,
 * first): those its boots ran on and those with events.  Caller frees with kb_store_host_counts_free().
 */
int kb_store_host_counts(struct kb_store *s, int64_t exp,
			 struct kb_store_host_count **out, size_t *n,
			 struct kb_err *err);
void kb_store_host_counts_free(struct kb_store_host_count *c, size_t n);

/*
 * Add @seconds to the time builds and boots of experiment @exp ran at
 * once (experiments.overlap_s), and read it: *@seconds NaN when never
 * measured.
 */
int kb_store_overlap_add(struct kb_store *s, int64_t exp, double seconds,
			 struct kb_err *err);
int kb_store_overlap_get(struct kb_store *s, int64_t exp, double *seconds,
			 struct kb_err *err);

#endif
