#ifndef KB_MONITOR_H
#define KB_MONITOR_H

#include <stddef.h>

#include "stats.h"

struct kb_err;

/*
 * Monitors: counters of the guest kernel taken around each workload run
 * (workload.monitors, docs/matrix.md), stored beside the run's samples as
 * secondary metrics under their own names, never part of the primary
 * metric's analysis.
 *
 * The guest's /init prints them in a frame of their own before the run's
 * result frame (lib/console.h, KBISECT-MONITORS), whose payload is
 *
 *   kbisect-monitors 1
 *   SOURCE PHASE LEN
 *   <LEN bytes: the file as read>
 *   ...
 *
 * SOURCE is vmstat, interrupts, schedstat or lock_stat (PHASE before or
 * after: the /proc file read before and after the run) or perf (PHASE
 * stat: `perf stat -a -x,` over the run).  A section of another source
 * or phase is skipped, so that an older host reads a newer guest's
 * frame.  From them (kb_monitor_parse_buffer()):
 *
 * - vmstat.NAME: after - before of each /proc/vmstat counter; for the
 *   nr_* gauges (pages in a state now), the value after;
 * - irq.NAME: after - before of each /proc/interrupts source summed over
 *   the CPUs, NAME the device (the line's last word: virtio0-requests)
 *   for a numbered interrupt, else its label (LOC, RES, NMI); sources of
 *   one name are summed;
 * - schedstat.NAME: after - before of the per-CPU fields of
 *   /proc/schedstat (versions 15 to 17) summed over the CPUs: yld_count,
 *   sched_count, sched_goidle, ttwu_count, ttwu_local, cpu_time and
 *   run_delay (nanoseconds), timeslices;
 * - lock_stat.NAME: after - before of the totals over the lock classes
 *   of /proc/lock_stat (version 0.4): con_bounces, contentions,
 *   waittime_total and holdtime_total (microseconds), acq_bounces,
 *   acquisitions;
 * - perf.EVENT: each counted event of perf stat (task-clock in msec,
 *   context-switches, cpu-migrations, page-faults).
 *
 * Values of 0 are left out (a run stores what moved): a boot that has
 * monitors counts a monitor it lacks as 0 (kb_monitor_compare()).
 *
 * Host monitors: what the host saw of a real (libvirt) boot, which is
 * what explains drift between boots (lib/exec/guest.h, struct
 * kb_guest_usage).  They are not the guest's and not per run: each boot
 * stores one value of each as run 0, "over the boot", beside the
 * guest's runs 1, 2, ..., under names that start with KB_MONITOR_HOST:
 *
 * - host.cpu_busy_pct: the host's CPU time spent on user and kernel
 *   work over the boot, in percent of all its CPUs' time
 *   (virNodeGetCPUStats before the guest starts and after it ends;
 *   iowait counts as idle), the guest's own emulation included;
 * - host.other_busy_pct: the same less the guest's CPU time, 0 at
 *   least: the host busy with anything else (builds, other guests);
 * - host.guest_cpu_s: the guest's CPU seconds as the hypervisor saw
 *   them (virDomainGetInfo's cpuTime from its creation to its last
 *   reading: vCPUs and emulation, for qemu its whole process);
 * - host.loadavg_start, host.loadavg_end: the host's 1-minute load
 *   average before the guest starts and after it ends, only when the
 *   host is this machine (getloadavg()).
 *
 * A figure the host or its driver cannot give is left out, never a
 * failed boot.  A host monitor's 0 is stored (a reading, not a count
 * that did not move), and a boot lacking one was not measured: compare
 * leaves it out of that monitor rather than count it 0.  The model
 * executor has none.
 */

#define KB_MONITOR_HOST "host."      /* the prefix of the host monitors */

#define KB_MONITOR_NAME_MAX 64       /* bytes of a name, with its NUL */
#define KB_MONITOR_MAX_VALUES 4096   /* monitors of one run */
#define KB_MONITOR_MAX_LINE 16384    /* longer lines of a file are skipped */

/* One monitor's value in one run. */
struct kb_monitor_value {
	unsigned run;                    /* the run, from 1; 0: the boot */
	char name[KB_MONITOR_NAME_MAX];  /* "vmstat.pgfault" */
	double value;
};

/*
 * Parse the monitors frame of run @run (@len bytes at @data, named @file
 * in messages) and append what it says to *@v (*@n values; the array is
 * grown, the caller frees it), sorted by name within the run.  Returns 0,
 * or KB_EINPUT with "FILE: ..." when the frame is malformed (*@v and *@n
 * are then as they were) or holds more than KB_MONITOR_MAX_VALUES.
 */
int kb_monitor_parse_buffer(const char *data, size_t len, const char *file,
			    unsigned run, struct kb_monitor_value **v,
			    size_t *n, struct kb_err *err);

/* ---- changed monitors (monitor_change.c) ------------------------------- */

/* One monitor's value in one boot: its mean over the boot's runs. */
struct kb_monitor_row {
	long long boot;   /* the boot it was measured in (any key) */
	const char *name; /* the monitor */
	double value;
};

/* One monitor, A against B. */
struct kb_monitor_change {
	char name[KB_MONITOR_NAME_MAX];
	struct kb_summary a, b; /* over each side's boots, 0 where absent */
	double change_pct;      /* (mean B / mean A - 1) * 100; NaN for A 0 */
	double p;               /* Welch's t test, two-sided; NaN: untested */
	double p_holm;          /* p adjusted by Holm over the tested ones */
	int changed;            /* p_holm < alpha */
};

/*
 * Compare the monitors of two sides, given per boot (@a, @na rows; @b,
 * @nb rows; any order): the boots of a side are those its rows name, and
 * a boot lacking a monitor that any boot of either side has counts 0 for
 * it, except a host monitor (kb_monitor_is_host()), which it then lacks:
 * its summary is over the boots that have it.  Each monitor is tested
 * by Welch's t test on its values (counters may be 0, so not on the log
 * scale): untested (p NaN) with fewer than 2
 * boots a side; p 1 when both sides hold one constant value alike, 0 when
 * each side is constant and they differ.  The tested p-values are one
 * family, adjusted by Holm's method (lib/util/stats.h): a monitor has
 * changed when its adjusted p is below @alpha.  *@out (*@nout entries,
 * caller frees) lists every monitor, changed ones first by adjusted p,
 * then the rest by name.  Returns the number that changed.
 */
size_t kb_monitor_compare(const struct kb_monitor_row *a, size_t na,
			  const struct kb_monitor_row *b, size_t nb,
			  double alpha, struct kb_monitor_change **out,
			  size_t *nout);

/* Whether monitor @name is the host's (KB_MONITOR_HOST...), not the
 * guest's: one value a boot, which a boot may lack. */
int kb_monitor_is_host(const char *name);

/* How many of @n changes at @c were tested (p not NaN): the family. */
size_t kb_monitor_tested(const struct kb_monitor_change *c, size_t n);

#endif
