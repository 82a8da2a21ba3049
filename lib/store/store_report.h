#ifndef KB_STORE_REPORT_H
#define KB_STORE_REPORT_H

/*
 * What a report reads (lib/store/store_report.c; `kbisect report`): an
 * experiment's boots, runs, environments, builds and bisections.
 */

#include <stddef.h>
#include <stdint.h>

#include "store_build.h"

struct kb_err;
struct kb_store;

/* One boot of an experiment, whatever its status. */
struct kb_store_boot_row {
	unsigned idx;      /* the variant */
	unsigned boot_no;
	char *status;      /* "ok", "panic", "boot-timeout" ... */
	char *reason;      /* why it did not end ok, or NULL */
	char *host;        /* where it ran (libvirt URI, "model"), or NULL */
	double duration_s; /* boot and workload; NaN: not recorded */
};
void kb_store_boot_row_release(struct kb_store_boot_row *r);

/*
 * Every boot of experiment @exp, by variant index then boot number.
 * Caller releases each and frees the array.
 */
int kb_store_boot_rows(struct kb_store *s, int64_t exp,
		       struct kb_store_boot_row **out, size_t *n,
		       struct kb_err *err);

/* One workload run's value of a metric. */
struct kb_store_run_value {
	unsigned idx, boot_no, run_no;
	double value;
};

/*
 * Every run's value of @metric in the ok boots of experiment @exp, by
 * variant index, boot number and run number (the samples the boot means
 * of kb_store_variants() average).  Caller frees *@out.
 */
int kb_store_run_values(struct kb_store *s, int64_t exp, const char *metric,
			struct kb_store_run_value **out, size_t *n,
			struct kb_err *err);

/* An environment the boots of an experiment ran in (db/0004). */
struct kb_store_env_row {
	char *host;               /* boots.host: a libvirt URI, "model" */
	char *hypervisor;         /* the environment's fields, each NULL */
	char *hypervisor_version; /* when not recorded (model runs, boots */
	char *libvirt_version;    /* from before db/0004) */
	char *host_kernel;
	char *host_cpu;
	unsigned nboots;          /* boots that ran in it, ok or not */
};
void kb_store_env_row_release(struct kb_store_env_row *r);

/*
 * The distinct environments (host and recorded environment) the boots
 * of experiment @exp ran in, in the order of their first boot.  Caller
 * releases each and frees the array.
 */
int kb_store_env_rows(struct kb_store *s, int64_t exp,
		      struct kb_store_env_row **out, size_t *n,
		      struct kb_err *err);

/*
 * The stored builds of experiment @exp's variants (by build key), oldest
 * first; each row as kb_store_build_rows() fills it.  Caller releases
 * each and frees the array.
 */
int kb_store_experiment_builds(struct kb_store *s, int64_t exp,
			       struct kb_store_build_row **out, size_t *n,
			       struct kb_err *err);

/* The ids of experiment @exp's bisections, oldest first (none: *@n = 0).
 * Caller frees *@ids. */
int kb_store_experiment_bisections(struct kb_store *s, int64_t exp,
				   int64_t **ids, size_t *n,
				   struct kb_err *err);

#endif
