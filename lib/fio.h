#ifndef KB_FIO_H
#define KB_FIO_H

#include <stddef.h>

struct kb_err;
struct kb_sample;
struct kb_workload;

/*
 * fio: the job a matrix's workload runs, checked by the host's fio before
 * any guest boots, and the metrics read back from fio's JSON output
 * (`--output-format=json`).  This is the only module that includes json-c.
 *
 * Metrics, per direction (read_, write_, and trim_ only when fio did any
 * trims), summed or combined over every job of the output:
 *   <dir>_iops          I/O operations per second, summed over jobs
 *   <dir>_bw_kib        bandwidth in KiB/s, summed over jobs
 *   <dir>_lat_mean_us   mean completion latency (clat), weighted by each
 *                       job's I/O count
 *   <dir>_lat_p50_us, <dir>_lat_p99_us, <dir>_lat_p999_us
 *                       completion latency percentiles: the largest over
 *                       the jobs (percentiles do not add up; the worst
 *                       job is a bound a user can read, and with
 *                       group_reporting fio gives one aggregated job)
 * A direction that did no I/O (zero ios) is left out, except read_ and
 * write_ iops and bandwidth, which are always present (possibly 0).
 */

/* Largest fio output kbisect reads, in bytes. */
#define KB_FIO_MAX_OUTPUT (16u << 20)

/*
 * Where the guest's disks reach the job: the job text names its files as
 * ${KBISECT_DISKS}, which fio expands from the environment; the guest's
 * /init sets it to the target disks joined by ':' ("/dev/vdb:/dev/vdc").
 */
#define KB_FIO_DISKS_ENV "KBISECT_DISKS"
/* With workload.per_device: job "kbisect-K" names its device as
 * ${KBISECT_DISKK}, which /init sets to the K-th target disk. */
#define KB_FIO_DISK_ENV "KBISECT_DISK"
/* A device's name as a metric qualifier: at most this many bytes. */
#define KB_FIO_DEVICE_NAME_MAX 13

/*
 * Parse @len bytes at @data, fio's JSON output, named @file in messages,
 * into @out (which is cleared first).  Text before the first '{' (fio's
 * "note: ..." lines) is skipped.  Returns 0, or KB_EINPUT with
 * "FILE: ..." in @err (with the byte offset of a JSON syntax error) when
 * the data is not fio JSON output with at least one job.
 */
int kb_fio_parse_buffer(const char *data, size_t len, const char *file,
			struct kb_sample *out, struct kb_err *err);

/*
 * kb_fio_parse_buffer(), and with @per_device each metric again per
 * device, "<metric>.<device>" ("read_iops.vdb"): the jobs are grouped by
 * the last part of their "filename" option (fio's JSON shows it with the
 * environment expanded: "/dev/vdb"), else by job name, in lower case
 * with characters other than [a-z0-9_] as '_', at most
 * KB_FIO_DEVICE_NAME_MAX of them.  The plain names stay the totals.
 */
int kb_fio_parse_buffer_devices(const char *data, size_t len,
				const char *file, int per_device,
				struct kb_sample *out, struct kb_err *err);

/* Read the file at @path (at most KB_FIO_MAX_OUTPUT bytes) and parse it. */
int kb_fio_parse_file(const char *path, struct kb_sample *out,
		      struct kb_err *err);

/*
 * The fio job file text for workload @w: for workload.fio, one job
 * "[kbisect]" with each option as "key=value" in matrix order, plus
 * "filename=${KBISECT_DISKS}" unless the options name filename, directory
 * or filename_format; with workload.per_device, the options as a
 * "[global]" section and a job "[kbisect-K]" with
 * "filename=${KBISECT_DISKK}" for each of the workload.targets_count
 * devices; for fio_job, the user's file as it is (it may use
 * ${KBISECT_DISKS} itself).  Returns 0 with a string the caller frees in
 * *@out, KB_EINPUT when an option value holds a newline or another
 * control character (kb_ycheck_control(); a loaded matrix never has one:
 * kb_matrix_load() refuses it with its position) or the job file cannot
 * be read, or KB_EFAIL for a command workload.
 */
int kb_fio_job_text(const struct kb_workload *w, char **out,
		    struct kb_err *err);

/*
 * The arguments fio runs with, before the job file: a NULL-terminated
 * static list, always including "--output-format=json".
 */
const char *const *kb_fio_args(void);

/*
 * Check workload @w with the host's fio (@fio, or "fio" on PATH when NULL):
 * write the job text to a temporary file and run `fio --parse-only` on it.
 * Returns 0 when fio accepts it; KB_EINPUT when fio rejects it, naming
 * "@matrix_file:LINE:COL" of the option fio complained about (else the
 * workload's line; for fio_job, the job file) and quoting fio's message;
 * KB_EFAIL when fio cannot be run.  Does nothing (returns 0) for a command
 * workload.  With {{NAME}} parameters (workload.fio values filled from
 * workload.NAME factors) the job is checked with every parameter at its
 * first level, then with each other level of each parameter once.
 */
int kb_fio_check(const struct kb_workload *w, const char *matrix_file,
		 const char *fio, struct kb_err *err);

#endif
