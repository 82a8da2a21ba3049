#ifndef KB_GUEST_H
#define KB_GUEST_H

#include <signal.h>
#include <stddef.h>

struct kb_console;
struct kb_err;
struct kb_monitor_value;

/*
 * Guests through libvirt: a connection to a host's URI, transient domains
 * started from domain XML (domxml.h), their console read into a console
 * parser (console.h) until the workload is done, the kernel panics or a
 * timeout passes, and destroyed in every case.  This is the only module
 * that includes <libvirt/libvirt.h>.
 *
 * Domains kbisect starts are named "kbisect-<db>-<experiment>-<variant>-
 * <boot>" (KB_GUEST_PREFIX; <db> the database's tag, kb_store_tag(), so
 * that two databases on one libvirtd never share a name); a kbisect
 * before the tag named them "kbisect-<experiment>-<variant>-<boot>".
 * Anything else on the host is never touched.
 *
 * A connection is for one thread at a time.  libvirt's messages never
 * reach stderr: they come back in struct kb_err.
 */

#define KB_GUEST_PREFIX "kbisect-"

struct kb_guest_conn;
struct kb_guest_dom;

/*
 * Connect to libvirt at @uri ("qemu:///system", "xen:///system",
 * "test:///default").  On success *@out is the caller's to
 * kb_guest_disconnect().  Returns 0 or KB_EFAIL with libvirt's message.
 */
int kb_guest_connect(const char *uri, struct kb_guest_conn **out,
		     struct kb_err *err);
void kb_guest_disconnect(struct kb_guest_conn *c);

/* The URI @c was opened with. */
const char *kb_guest_uri(const struct kb_guest_conn *c);

/*
 * The environment a boot runs in, as one JSON object (caller frees):
 * {"uri", "hypervisor", "hypervisor_version", "libvirt_version",
 *  "host_kernel", "host_cpu"}.  Versions are "MAJOR.MINOR.RELEASE"; the
 * host CPU model comes from the host's capabilities, else /proc/cpuinfo,
 * else null.  Returns 0 or KB_EFAIL.
 */
int kb_guest_environment(struct kb_guest_conn *c, char **json,
			 struct kb_err *err);

/*
 * The domain name for a boot: "kbisect-<tag>-<exp>-<variant>-<boot>", or
 * without a @tag (NULL or "": a database before db/0012, a domxml
 * preview) "kbisect-<exp>-<variant>-<boot>".  @tag is a few lower-case
 * hex digits (kb_store_tag()).  Caller frees.
 */
char *kb_guest_name(const char *tag, long long exp, unsigned variant,
		    unsigned boot);

/*
 * Start a transient domain from @xml (virDomainCreateXML), paused when
 * @paused.  *@out is the caller's to kb_guest_destroy().  Returns 0 or
 * KB_EFAIL with libvirt's message.  A running domain of kbisect's with
 * @xml's own name (KB_GUEST_PREFIX...: an earlier attempt at the same
 * boot whose destroy gave up) is destroyed first, waiting as
 * kb_guest_destroy() does, so that a boot's retry is not refused for its
 * name; a domain of another name form is never touched.
 */
int kb_guest_start(struct kb_guest_conn *c, const char *xml, int paused,
		   struct kb_guest_dom **out, struct kb_err *err);

/* The live XML of @d (caller frees), or NULL with a message in @err. */
char *kb_guest_xml(struct kb_guest_dom *d, struct kb_err *err);

/* Whether @d still exists and runs (or is paused): 1, 0, or KB_EFAIL. */
int kb_guest_active(struct kb_guest_dom *d, struct kb_err *err);

/*
 * Destroy @d if it still exists and free the handle; NULL is accepted.
 * A domain that is already gone is no error.  While another job holds
 * the domain (the driver handling the guest's own power-off), the
 * destroy is asked again, for up to KB_GUEST_DESTROY_WAIT_S seconds.
 * Returns 0 or KB_EFAIL (the handle is freed either way).
 */
#define KB_GUEST_DESTROY_WAIT_S 600
int kb_guest_destroy(struct kb_guest_dom *d, struct kb_err *err);

/*
 * Who this process is, as guests record it in their metadata (domxml's
 * owner): "host=NAME pid=PID start=TICKS", the start time making a reused
 * pid a different owner.  Caller frees.
 */
char *kb_guest_owner_self(void);

/*
 * Is the owner @text (kb_guest_owner_self()'s form) still running?  An
 * owner on another machine cannot be checked and counts as alive; a text
 * that does not parse counts as dead.
 */
int kb_guest_owner_alive(const char *text);

/*
 * Destroy the orphans among the running domains of @c: those named
 * KB_GUEST_PREFIX... whose owner (their metadata, kb_guest_owner_self())
 * is gone, of whatever database (the tag in the name) they are; a
 * domain whose owner still runs is never an orphan, nor is one @keep
 * (may be NULL) returns nonzero for.  A domain without owner metadata
 * is destroyed only when its name has the old form, without a tag
 * (kbisect made such guests before the tag): a tagged one without an
 * owner cannot be told dead and is left, as is every other domain.
 * Sets *@destroyed (may be NULL) to how many went.  Returns 0 or
 * KB_EFAIL.
 */
int kb_guest_destroy_orphans(struct kb_guest_conn *c,
			     int (*keep)(const char *name, void *arg),
			     void *arg, unsigned *destroyed,
			     struct kb_err *err);

/* Whether a boot ended by itself or a deadline passed. */
enum kb_guest_end {
	KB_GUEST_END_CONSOLE,  /* the console reached a final state */
	KB_GUEST_END_GONE,     /* the guest stopped (poweroff, reboot, crash) */
	KB_GUEST_END_BOOT_TIMEOUT,     /* no workload before boot_timeout_s */
	KB_GUEST_END_WORKLOAD_TIMEOUT, /* workload not done in time */
};

/*
 * What the host saw of one boot (kb_guest_run_opts.usage): its CPU
 * totals over all its CPUs (virNodeGetCPUStats: user, kernel, idle and
 * iowait, whose sum is the CPU time there was) read before the guest is
 * started and after it has ended, which works on a remote host too; the
 * domain's CPU time (virDomainGetInfo, qemu's whole process: vCPUs and
 * emulation) from its first reading, right after it was created, to its
 * last, read every 0.25 s while it runs and once more just before it is
 * destroyed (a guest that powered off is gone and keeps its last
 * reading); and, when the host is this machine, the 1-minute load
 * average before the start and after the end (getloadavg()).  Each part
 * is there only when it was read: a failure to read is never an error.
 */
struct kb_guest_usage {
	int host_ok;         /* host_busy_s and host_total_s were read */
	double host_busy_s;  /* user + kernel CPU seconds over the boot */
	double host_total_s; /* user + kernel + idle + iowait: > 0 */
	int guest_ok;        /* guest_cpu_s was read (two readings) */
	double guest_cpu_s;  /* the domain's CPU seconds over the boot */
	int load_ok;         /* the host is local: load_start and load_end */
	double load_start, load_end; /* 1-minute load averages */
};

/*
 * @u as monitors of run 0, "over the boot" (lib/monitor.h, the host.*
 * monitors), put before the @*n values at *@v (the array is grown, the
 * caller frees it): host.cpu_busy_pct, host.other_busy_pct (the host's
 * CPU busy with anything but this guest, 0 at least), host.guest_cpu_s,
 * host.loadavg_start and host.loadavg_end, each only where @u has it.
 * Returns how many were added.
 */
size_t kb_guest_usage_monitors(const struct kb_guest_usage *u,
			       struct kb_monitor_value **v, size_t *n);

/* Whether libvirt URI @uri names this machine (no host, or localhost). */
int kb_guest_uri_local(const char *uri);

struct kb_guest_run_opts {
	/*
	 * Read the console from this file (a file-backed serial port the
	 * domain XML names) instead of libvirt's console stream.
	 */
	const char *console_file;
	double boot_timeout_s;     /* start until the workload starts */
	double workload_timeout_s; /* workload start until done */
	/* may be NULL; once *stop is nonzero (a signal handler sets it) the
	 * guest is destroyed and kb_guest_run() returns KB_EFAIL */
	const volatile sig_atomic_t *stop;
	/* may be NULL; else filled with what the host saw of the boot,
	 * also when kb_guest_run() fails */
	struct kb_guest_usage *usage;
};
#define KB_GUEST_RUN_OPTS_INIT                                            \
	{ .console_file = NULL, .boot_timeout_s = 120,                    \
	  .workload_timeout_s = 600, .stop = NULL, .usage = NULL }

/*
 * Boot domain @xml on @c and feed its console to @console until the
 * console reaches a final state (done, panic, bad), the guest is gone, or
 * a timeout passes; then destroy the domain (always, also on error).
 * Sets *@end and *@duration_s (seconds from the start request to the
 * end).  Returns 0 when the guest ran (whatever it did), or KB_EFAIL when
 * libvirt refused or lost it (the message says which).
 */
int kb_guest_run(struct kb_guest_conn *c, const char *xml,
		 const struct kb_guest_run_opts *opts,
		 struct kb_console *console, enum kb_guest_end *end,
		 double *duration_s, struct kb_err *err);

/* ---- files shipped to a host through libvirt storage (guest_pool.c) --
 *
 * A boot on a remote host needs its kernel, initramfs and disks there.
 * They cross the libvirt connection itself: a directory storage pool on
 * the host (defined, built and started when missing), one volume per
 * file uploaded with virStorageVolUpload (holes stay holes), named by
 * the caller after the file's content so that it crosses once per host.
 * An empty "NAME.done" volume marks an upload that ended; a volume
 * without one is uploaded again.  No ssh, scp or shared folder.
 */

/*
 * Open (or define, build and start) directory pool @name on @c's host,
 * at @dir there (NULL: /var/lib/libvirt/NAME); later calls use it.
 * Returns 0, KB_EINPUT for a bad name, or KB_EFAIL with libvirt's
 * message.
 */
int kb_guest_pool_open(struct kb_guest_conn *c, const char *name,
		       const char *dir, struct kb_err *err);

/*
 * Make local file @local volume @name of the open pool, uploading it
 * unless an upload of it ended before.  Returns 0 with its path on the
 * host in *@path (caller frees) and *@shipped 1 when it was uploaded now,
 * or KB_EFAIL (the partial volume is deleted).
 */
int kb_guest_ship(struct kb_guest_conn *c, const char *local,
		  const char *name, char **path, int *shipped,
		  struct kb_err *err);

/*
 * Create volume @name of @bytes in the open pool (replacing one of that
 * name): raw and empty, or with @backing (a path on the host) a qcow2
 * overlay over that raw image.  Returns 0 with its path on the host in
 * *@path (caller frees), or KB_EFAIL.
 */
int kb_guest_volume_new(struct kb_guest_conn *c, const char *name,
			unsigned long long bytes, const char *backing,
			char **path, struct kb_err *err);

/* Delete volume @name of the open pool if it is there.  0 or KB_EFAIL. */
int kb_guest_volume_delete(struct kb_guest_conn *c, const char *name,
			   struct kb_err *err);

/*
 * The cache bound: when the volumes of the open pool whose names start
 * with @prefix take more than @max_bytes, delete such volumes (and their
 * markers), but none of the @nkeep names in @keep, until they do not.
 * Sets *@removed.  Returns 0 or KB_EFAIL.
 */
int kb_guest_pool_trim(struct kb_guest_conn *c, const char *prefix,
		       unsigned long long max_bytes, const char *const *keep,
		       size_t nkeep, unsigned *removed, struct kb_err *err);

#endif
