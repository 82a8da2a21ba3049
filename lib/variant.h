#ifndef KB_VARIANT_H
#define KB_VARIANT_H

#include <stddef.h>

#include "matrix.h"

/*
 * A variant (one combination of factor levels, as planned) and what the
 * stages make of it: a build result, a boot result with its samples.
 * These are plain records shared by the plan, the executors, the pipeline
 * and the store.
 */

/* One factor's level in a variant. */
struct kb_setting {
	const char *name;  /* factor name: "PARAVIRT_SPINLOCKS", "guest.vcpus" */
	const char *value; /* level: "y", "n", "4", "0,0,0,0" */
	enum kb_factor_kind kind;
};

struct kb_variant {
	unsigned idx;       /* 0-based position in the plan; 0 is the baseline */
	const char *label;  /* "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=y" */
	size_t nsettings;   /* one per factor, in matrix order */
	const struct kb_setting *settings;
	const char *build_key; /* variants with the same key share one build */
	struct kb_guest guest; /* the guest shape after guest.* factors */
	/* the sentinel (repeat.sentinel): a duplicate of the baseline, its
	 * settings, guest and build, under its own label; no level of any
	 * factor of its own (lib/plan.h) */
	int sentinel;
};

/* The level of factor @name in @v, or NULL when @v does not set it. */
const char *kb_variant_get(const struct kb_variant *v, const char *name);

#define KB_SAMPLE_MAX_METRICS KB_MATRIX_MAX_METRICS

struct kb_metric {
	char name[KB_METRIC_NAME_MAX]; /* "read_iops", "lat_p99_us", "real_s" */
	double value;
};

/* The metrics of one workload run. */
struct kb_sample {
	size_t n;
	struct kb_metric m[KB_SAMPLE_MAX_METRICS];
};

/* Add or replace a metric; returns -1 when the sample is full. */
int kb_sample_set(struct kb_sample *s, const char *name, double value);
/* Look a metric up; returns 0 and sets *value, or -1 when absent. */
int kb_sample_get(const struct kb_sample *s, const char *name, double *value);

/*
 * The sample of one run of @n copies of workload @w run at once, from
 * each copy's sample (docs/matrix.md, "copies"): for every metric NAME
 * of the copies, NAME.copy1 .. NAME.copyN (each copy's), NAME.sum,
 * NAME.mean and NAME.max over the copies, and NAME itself, the
 * aggregate verdicts use: the sum for a higher-is-better metric (a rate:
 * the copies' total), the max for a lower-is-better one (a time: the
 * wall time of all copies; a latency: the worst copy), directions as
 * kb_metric_direction() gives them.  A qualified name ("read_iops.vdb",
 * per device) gets the aggregate alone.  A copy without a metric is left
 * out of its aggregates.  Returns 0, or -1 when the names do not fit in
 * a sample (the matrix's limit is meant to prevent it).
 */
int kb_sample_copies(const struct kb_workload *w,
		     const struct kb_sample *copies, size_t n,
		     struct kb_sample *out);

enum kb_build_status {
	KB_BUILD_OK,
	KB_BUILD_FAILED,
};

struct kb_build_result {
	enum kb_build_status status;
	char *reason;      /* why it failed; NULL when ok (owned) */
	char *log_tail;    /* last lines of the build log, or NULL (owned) */
	char *image;       /* path of the kernel image, or NULL (owned) */
	double duration_s; /* wall-clock time the build took */
	int cached;        /* found built in the cache: nothing compiled */
	/* the resolved .config it was built from, or NULL: a prebuilt image
	 * without a known config, the model (owned) */
	char *config_text;
	/* SHA-256 of the image, 64 lower-case hex digits, or NULL (owned) */
	char *image_sha256;
};

enum kb_boot_status {
	KB_BOOT_OK,
	KB_BOOT_BUILD_FAILED,     /* never booted: its build failed */
	KB_BOOT_FAILED,           /* the guest did not come up */
	KB_BOOT_TIMEOUT,          /* no sign of the workload before the boot timeout */
	KB_BOOT_WORKLOAD_TIMEOUT, /* the workload did not finish in time */
	KB_BOOT_PANIC,            /* the guest kernel panicked */
	KB_BOOT_BAD_OUTPUT,       /* result frames did not check out */
	KB_BOOT_LIBVIRT_ERROR,    /* the hypervisor refused or lost the guest */
};

struct kb_monitor_value;
struct kb_profile_stack;

struct kb_boot_result {
	enum kb_boot_status status;
	char *reason;       /* why it failed; NULL when ok (owned) */
	char *console_tail; /* last console lines, or NULL (owned) */
	char *host;         /* where it ran (libvirt URI, "model"), or NULL (owned) */
	double duration_s;
	size_t nruns;             /* samples, one per workload run */
	struct kb_sample *runs;   /* owned */
	/* the guest's monitors of every run (lib/monitor.h), by run and
	 * name; none when the workload has none (owned) */
	size_t nmonitors;
	struct kb_monitor_value *monitors;
	/* the guest's profile of every run (lib/profile.h), by run and
	 * stack; none when the workload has no profile (owned) */
	size_t nprofile;
	struct kb_profile_stack *profile;
	/* where it ran as a JSON object (host URI, hypervisor and libvirt
	 * versions, host kernel and CPU; see guest.h), or NULL (owned) */
	char *environment;
	/* the domain XML the guest was created with, or NULL: never started,
	 * the model (owned) */
	char *domain_xml;
	/* what the guest ran: the fio job file text, or the command followed
	 * by a newline, as /init reads them; or NULL (owned) */
	char *workload_text;
	/* where it stood in the run, set by whoever ran it (the engine, the
	 * daemon's step): its block from 1 (0: none), its place among the
	 * experiment's boots in the order they started from 1 (0: unknown),
	 * and when it started, ISO 8601 UTC ("" unknown) */
	unsigned round;
	unsigned seq;
	char started_at[32];
};

/* Free what the results own and zero them; NULL-safe. */
void kb_build_result_release(struct kb_build_result *r);
void kb_boot_result_release(struct kb_boot_result *r);

/*
 * Whether a larger value of metric @name is better, from its name alone:
 * the known metrics as kb_metric_direction() has them; for other names a
 * guess: rates ending in "_per_s" or "_per_sec" are higher-is-better,
 * latencies and times (names containing "lat" or "time", or ending in
 * "_s", "_us", "_ms", "_ns") lower-is-better, anything else higher.
 */
int kb_metric_higher_is_better(const char *name);

/* Where a metric's direction comes from. */
enum kb_metric_source {
	KB_METRIC_DECLARED, /* workload.better in the matrix */
	KB_METRIC_KNOWN,    /* a metric of kbisect's fio or timed workloads */
	KB_METRIC_GUESSED,  /* any other name: kb_metric_higher_is_better() */
};

/* A metric's direction, and how kbisect knows it. */
struct kb_metric_dir {
	int higher_is_better;
	enum kb_metric_source source;
};

/*
 * The direction of metric @name in an experiment whose workload is @w
 * (may be NULL): workload.better when @name is the workload's metric and
 * the matrix declares it; else the direction of a known metric —
 * {read,write,trim}_{iops,bw_kib} higher, their lat_mean_us, lat_p50_us,
 * lat_p99_us and lat_p999_us lower (lib/fio.c), real_s, user_s and sys_s
 * lower (lib/cmdwork.c); else the name's guess, marked as one.  A name
 * with qualifiers ("real_s.max", "read_iops.vdb", "ops.copy2") has the
 * direction of the name before its first '.', which workload.better
 * declares when it is the workload's metric.
 */
struct kb_metric_dir kb_metric_direction(const struct kb_workload *w,
					 const char *name);

/*
 * How @d reads in a report: "higher is better (workload.better)",
 * "lower is better (a time)", "higher is better (an fio rate)",
 * "lower is better, guessed from the name: declare workload.better".
 */
const char *kb_metric_dir_text(const struct kb_metric_dir *d);

/* "higher" or "lower"; "declared", "known" or "guessed". */
const char *kb_metric_better_name(const struct kb_metric_dir *d);
const char *kb_metric_source_name(enum kb_metric_source s);

/* "ok", "build-failed", "boot-failed", ... as stored in the database. */
const char *kb_boot_status_name(enum kb_boot_status s);
const char *kb_build_status_name(enum kb_build_status s);

#endif
