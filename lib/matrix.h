#ifndef KB_MATRIX_H
#define KB_MATRIX_H

#include <stddef.h>

#include "ycheck.h"

struct kb_err;

/*
 * The experiment matrix: the user's YAML description of what to vary
 * (factors), how to combine it (design), which guest to boot, which
 * workload to run and how often.  The format is in docs/matrix.md.
 *
 * kb_matrix_load() validates everything that can be checked without a
 * kernel tree: every error names file:line:column and what was expected,
 * and comes back as KB_EINPUT (exit status 2).  Relative paths in the
 * matrix are relative to the matrix file's folder and are stored resolved.
 *
 * A loaded matrix is read-only; the structs below are views into it, valid
 * until kb_matrix_free().
 */

#define KB_MATRIX_MAX_FACTORS 64
#define KB_MATRIX_MAX_LEVELS 64
#define KB_MATRIX_MAX_VARIANTS 4096
#define KB_MATRIX_MAX_BOOTS 1000
#define KB_MATRIX_MAX_RUNS 1000
#define KB_MATRIX_MAX_VCPUS KB_YCHECK_MAX_VCPUS

enum kb_factor_kind {
	KB_FACTOR_KCONFIG, /* a Kconfig option; name without CONFIG_ */
	KB_FACTOR_KERNEL,  /* kernel.rev or kernel.image */
	KB_FACTOR_GUEST,   /* guest.mode, guest.vcpus, guest.pin, guest.memory_mib */
	KB_FACTOR_WORKLOAD, /* workload.copies, workload.NAME: a {{NAME}} */
	KB_FACTOR_CMDLINE,  /* cmdline.NAME: text on the kernel command line */
	KB_FACTOR_SYSCTL,   /* sysctl.NAME: written to /proc/sys by /init */
};

/*
 * Whether factors of @kind change the kernel that is built (Kconfig and
 * kernel.* factors).  Guest, workload, cmdline and sysctl factors never
 * do: variants that differ only in them share one build.
 */
int kb_factor_kind_builds(enum kb_factor_kind kind);

/*
 * Whether @name is the name of a run-time factor a matrix can have:
 * "workload.copies", "workload.NAME" (NAME lower case letters, digits
 * and _), "cmdline.NAME" (a kernel parameter's name) or "sysctl.NAME"
 * (dotted lower case words), as the performance model names them too.
 */
int kb_runtime_factor_name_valid(const char *name);

/* "kconfig", "kernel", "guest", "workload", "cmdline" or "sysctl". */
const char *kb_factor_kind_name(enum kb_factor_kind kind);

/* Where something was written in the matrix file. */
struct kb_loc {
	unsigned line;
	unsigned col;
};

struct kb_level {
	const char *value; /* canonical text: "y", "n", "m", "42", "0,0,1,1", "none" */
	int quoted;        /* a quoted string level (Kconfig string option) */
	struct kb_loc loc;
};

struct kb_factor {
	enum kb_factor_kind kind;
	const char *name; /* "PARAVIRT_SPINLOCKS", "kernel.rev", "guest.vcpus" */
	size_t nlevels;
	const struct kb_level *levels; /* levels[0] is the baseline level */
	struct kb_loc loc;             /* where the factor's name was written */
	/* `condition: true` (docs/matrix.md, "Conditions"): a load level
	 * (copies, make -j, vCPUs, threads) that variants are compared
	 * within, never a cause: effects and why compare at each of its
	 * levels and never name it a suspect */
	int condition;
};

enum kb_design_kind {
	KB_DESIGN_FULL,
	KB_DESIGN_ONE_AT_A_TIME,
	KB_DESIGN_FRACTIONAL,
	KB_DESIGN_PLACKETT_BURMAN,
};

enum kb_hypervisor {
	KB_HV_XEN,
	KB_HV_KVM,
	KB_HV_QEMU, /* TCG, what a machine without KVM or Xen can boot */
};

/* A kernel source, a base config and fragments (all optional for models). */
struct kb_source {
	const char *tree;       /* kernel tree (git repo or plain); NULL if absent */
	const char *rev;        /* git revision; NULL if absent */
	const char *base;       /* a .config path (resolved), or a make target */
	int base_is_target;     /* base is a make target such as "tinyconfig" */
	size_t nfragments;
	const char *const *fragments; /* resolved paths of config fragments */
	const char *kernel;     /* prebuilt kernel image (resolved); NULL if absent.
				 * Neither it nor a kernel.image factor comes with
				 * a Kconfig or kernel.rev factor: refused */
};

/* guest.image: a root filesystem made from Debian packages (lib/exec/guestimage.h). */
struct kb_guest_image {
	size_t npackages;
	const char *const *packages; /* Debian package names, as written */
	const char *suite;           /* a Debian suite; NULL: the host's */
	unsigned size_mib;           /* the disk's size; 0: fitted to it */
};

/*
 * Whether @s is a Debian suite name (guest.image.suite, or the host's
 * VERSION_CODENAME): a lower case letter, then lower case letters,
 * digits and '-', at most 64 in all, as "bookworm", "stable" or
 * "bookworm-backports".  It is an argument of mmdebstrap, so it never
 * starts with '-' (an option) nor holds '/' or '.' (a path, a URL).
 */
int kb_guest_suite_valid(const char *s);

/* A name and its text: a sysctl and its value, a workload parameter and
 * its level. */
struct kb_param {
	const char *name;
	const char *value;
};

struct kb_guest {
	enum kb_hypervisor hypervisor;
	const char *mode;      /* xen: "pv", "pvh", "hvm"; kvm/qemu: "hvm" */
	unsigned vcpus;
	unsigned memory_mib;
	size_t npin;           /* 0 = unpinned; else == vcpus */
	const unsigned *pin;   /* vCPU i -> pCPU pin[i] */
	struct kb_loc pin_loc; /* where guest.pin was written (line 0: nowhere) */
	size_t npassthrough;
	const char *const *passthrough; /* PCI addresses "DDDD:BB:SS.F" */
	struct kb_loc passthrough_loc;  /* where it was written (line 0: nowhere) */
	/* guest.disks: the workload's disks, image files or block devices
	 * (resolved paths); 0 = a scratch image made for each boot */
	size_t ndisks;
	const char *const *disks;
	unsigned boot_timeout_s; /* guest.boot_timeout_s: until the workload
				  * starts (default 120) */
	const struct kb_guest_image *image; /* guest.image, or NULL: the
					     * workload runs from the
					     * initramfs */
	/* guest.scratch_disks: kvm/qemu raw images made for each boot,
	 * after guest.disks; 0 = one when there are no guest.disks and the
	 * workload is fio, else none */
	unsigned scratch_disks;
	/*
	 * What a variant's cmdline.*, sysctl.* and workload.* factors set,
	 * filled by the plan for each variant (lib/plan.h) and empty in the
	 * matrix's own guest section, so that they travel with the guest
	 * shape as guest factors do:
	 */
	const char *cmdline;          /* text for the kernel command line,
				       * the levels' in factor order; NULL */
	size_t nsysctl;
	const struct kb_param *sysctl; /* "kernel.x" and the value /init
					* writes to /proc/sys/kernel/x */
	unsigned copies;               /* workload.copies; 0 = 1 */
	/* What a variant's machine.* factors set (a machine host,
	 * lib/exec/machine.h): booted as Xen's dom0 (machine.hypervisor
	 * xen), the Xen image and Xen's command line; NULL: the machine's
	 * own (kb_machine_xen()) */
	int dom0;
	const char *xen, *xen_cmdline;
	size_t nparams;
	const struct kb_param *params; /* workload.NAME levels: {{NAME}} */
};

enum kb_workload_kind {
	KB_WORKLOAD_FIO,     /* fio options from workload.fio */
	KB_WORKLOAD_FIO_JOB, /* a fio job file */
	KB_WORKLOAD_COMMAND, /* a command, timed or with a number taken by regex */
};

struct kb_option {
	const char *key;
	const char *value;
	struct kb_loc loc;
};

/* A metric name's size with its NUL: names are shorter (workload.metric,
 * struct kb_metric in lib/variant.h). */
#define KB_METRIC_NAME_MAX 32

/* workload.command.parser: a known output format read for metrics. */
enum kb_parser {
	KB_PARSER_NONE,
	KB_PARSER_DD,        /* dd's "N bytes ... copied, S s, R" line */
	KB_PARSER_UNIXBENCH, /* UnixBench's index lines and score */
};

/* The most copies of a workload (workload.copies levels). */
#define KB_MATRIX_MAX_COPIES 64
/* The most devices workload.targets_count may ask for. */
#define KB_MATRIX_MAX_TARGETS 64
/* The most metrics one workload run may yield (struct kb_sample in
 * lib/variant.h holds that many): a matrix whose workload could yield
 * more is refused. */
#define KB_MATRIX_MAX_METRICS 256

/* workload.better: the direction of the workload's metric. */
enum kb_better {
	KB_BETTER_UNSET,  /* not given: known metrics, else the name's guess */
	KB_BETTER_HIGHER, /* higher is better: rates, throughput */
	KB_BETTER_LOWER,  /* lower is better: latencies, times */
};

/* workload.monitors: the guest's counters taken around each run
 * (lib/monitor.h) */
enum kb_monitor_flags {
	KB_MONITOR_VMSTAT = 1 << 0,     /* /proc/vmstat */
	KB_MONITOR_INTERRUPTS = 1 << 1, /* /proc/interrupts */
	KB_MONITOR_SCHEDSTAT = 1 << 2,  /* /proc/schedstat */
	KB_MONITOR_LOCK_STAT = 1 << 3,  /* /proc/lock_stat, when present */
	KB_MONITOR_PERF = 1 << 4,       /* perf stat, where perf is */
};
/* what a matrix without workload.monitors takes: every one (all cheap) */
#define KB_MONITOR_DEFAULT                                               \
	(KB_MONITOR_VMSTAT | KB_MONITOR_INTERRUPTS | KB_MONITOR_SCHEDSTAT | \
	 KB_MONITOR_LOCK_STAT | KB_MONITOR_PERF)
#define KB_MONITOR_SOURCES 5

/* workload.profile: the sampling rate when `profile: {}` gives none,
 * and the highest one (perf's default kernel.perf_event_max_sample_rate
 * is higher, but a TCG guest spends its time in the handler past it) */
#define KB_PROFILE_DEFAULT_HZ 99
#define KB_PROFILE_MAX_HZ 10000

/* The name of monitor source @i (KB_MONITOR_* is 1 << @i): "vmstat",
 * "interrupts", "schedstat", "lock_stat", "perf"; NULL past them. */
const char *kb_workload_monitor_name(unsigned i);

struct kb_workload {
	enum kb_workload_kind kind;
	size_t nfio;                 /* FIO: the options, in matrix order */
	const struct kb_option *fio;
	const char *fio_job;         /* FIO_JOB: resolved path */
	const char *command;         /* COMMAND: the command line to run */
	const char *regex;           /* COMMAND: ERE with one group; NULL = timed */
	const char *metric;          /* the metric verdicts are about */
	enum kb_better better;       /* workload.better: metric's direction */
	struct kb_loc loc;
	unsigned timeout_s;          /* workload.timeout_s: from the start of
				      * the workload to its end, all runs of a
				      * boot; 0 = derived from the job */
	size_t nfiles;               /* workload.files: host files (resolved)
				      * copied into guest.image as /data/NAME */
	const char *const *files;
	size_t nmetrics;             /* COMMAND: workload.command.metrics, */
	const struct kb_option *metrics; /* metric name -> ERE, one group */
	enum kb_parser parser;       /* COMMAND: workload.command.parser */
	size_t ntargets;             /* workload.targets: globs of the */
	const char *const *targets;  /* devices; 0 = every vd*, else xvd* */
	unsigned targets_count;      /* devices to wait for; 0 = at least 1 */
	int per_device;              /* FIO: one job per target device */
	unsigned monitors;           /* workload.monitors: KB_MONITOR_* */
	unsigned profile_hz;         /* workload.profile.frequency: perf
				      * record -F around each run (lib/
				      * profile.h); 0 = no profile */
	/* the workload.NAME factors (not copies), whose levels fill
	 * {{NAME}} in workload.command.run and workload.fio values */
	size_t nparams;
	const struct kb_factor *const *params;
	/* Set in a variant's workload only (kb_workload_instance()); the
	 * matrix's has copies 0 and no sysctl: */
	unsigned copies;             /* instances run at once; 0 = 1 */
	int copies_factor;           /* a workload.copies factor: every
				      * variant's runs, one copy's too, store
				      * the per-copy and aggregate names */
	size_t nsysctl;
	const struct kb_param *sysctl; /* written to /proc/sys by /init */
};

/*
 * A variant's workload: the matrix's with the {{NAME}} parameters of
 * workload.command.run and workload.fio values filled from the guest
 * shape's workload levels, its copies and sysctls.  @w is the usable
 * workload; the struct owns the texts it points at.
 */
struct kb_workload_inst {
	struct kb_workload w;
	char *command;           /* owned: w.command */
	struct kb_option *fio;   /* owned: w.fio, values owned */
};

/*
 * Make @out, the workload @w runs in guest shape @g (a plan variant's
 * v->guest).  Returns 0, or KB_EINPUT when a {{NAME}} has no level in
 * @g ("workload parameter {{bs}} has no level").  Release @out with
 * kb_workload_inst_release() either way.
 */
int kb_workload_instance(const struct kb_workload *w, const struct kb_guest *g,
			 struct kb_workload_inst *out, struct kb_err *err);
void kb_workload_inst_release(struct kb_workload_inst *wi);

/*
 * The text a level of cmdline factor @factor ("cmdline.xen_nopvspin")
 * adds to the kernel command line: NULL for "off", the parameter's name
 * for "on" ("xen_nopvspin"), a level holding "=" or a space as it is
 * ("mitigations=off", "nosmt nopti"), else NAME=LEVEL
 * ("clocksource=tsc").  Caller frees.
 */
char *kb_cmdline_level_text(const char *factor, const char *level);

/*
 * Whether @s is a metric name a matrix may name: a name of lower case
 * letters, digits and _ starting with a letter, then any number of
 * ".QUALIFIER" parts of letters, digits and _ ("read_iops",
 * "real_s.max", "read_iops.vdb", "real_s.copy2"); under
 * KB_METRIC_NAME_MAX bytes in all.
 */
int kb_metric_name_valid(const char *s);

/* repeat.order: in what order an experiment's boots run (lib/order.h) */
enum kb_run_order {
	/* the default: rounds of one boot of every variant, each round in a
	 * fresh seeded random order, every kernel built first */
	KB_ORDER_BLOCKS = 0,
	/* variant after variant, each right after its build */
	KB_ORDER_SEQUENTIAL,
};

struct kb_repeat {
	unsigned boots;         /* boots per variant */
	unsigned runs_per_boot; /* workload runs per boot */
	unsigned max_boots;     /* ceiling for adaptive sampling, >= boots */
	enum kb_run_order order; /* repeat.order */
	/* repeat.sentinel: the plan adds a duplicate of the baseline (its
	 * kernel, another label) to every round, the experiment's own A/A
	 * (lib/plan.h) */
	int sentinel;
};

struct kb_compare {
	double threshold_pct; /* smallest change that counts, in percent */
	double alpha;         /* significance level */
};

/* build.overlap: whether builds run while guests boot (lib/spread.h). */
enum kb_overlap {
	KB_OVERLAP_AUTO = 0, /* not given: yes unless a host is this machine */
	KB_OVERLAP_YES,
	KB_OVERLAP_NO,
};

/* build: how kernels are built from source (docs/builds.md). */
struct kb_build_cfg {
	unsigned jobs;                /* make -jN; 0 = the number of CPUs */
	size_t nmake_args;            /* extra make argv items, each passed */
	const char *const *make_args; /* as one argument ("CC=distcc gcc") */
	enum kb_overlap overlap;      /* build.overlap */
};

/*
 * A host that is a whole machine (hosts[].machine, docs/matrix.md,
 * "Machines"): how this machine powers it, reads its serial console and
 * chooses its next boot, each a command given as an argv (never a shell
 * string), and what it is booted back into after a failed boot
 * (lib/exec/machine.h boots one).  Its strings live as long as the
 * matrix.
 */
struct kb_machine;

enum kb_machine_power {
	KB_MACHINE_ON,    /* power.on */
	KB_MACHINE_OFF,   /* power.off */
	KB_MACHINE_CYCLE, /* power.cycle */
};

/* boot.method: how the next boot is chosen and its files reach it. */
enum kb_machine_boot {
	KB_MACHINE_KEXEC,       /* kexec over boot.ssh (Linux only) */
	KB_MACHINE_GRUB_REBOOT, /* a boot-loader entry chosen once, over boot.ssh */
	KB_MACHINE_COMMAND,     /* boot.command gets the files as arguments */
};

/* A kernel to boot: known_good.  Paths as the boot method sees them (on
 * the machine for kexec and grub-reboot, here for command), absolute;
 * NULL where not given (all but kernel). */
struct kb_machine_kernel {
	const char *kernel, *initrd, *cmdline;
	const char *xen, *xen_cmdline; /* the hypervisor and its command line */
	/* what the console shows once the known-good system is up (ktest's
	 * SUCCESS_LINE); NULL: "login:" */
	const char *ready;
};

/* machine.name: 1 to 64 letters, digits, '.', '_', '-'; unique. */
const char *kb_machine_name(const struct kb_machine *mc);
/* The power command @p as a NULL-terminated argv, or NULL when the matrix
 * gives none (a machine has cycle, or off and on, or all three). */
const char *const *kb_machine_power(const struct kb_machine *mc,
				    enum kb_machine_power p);
/* machine.console: the command whose standard output is the serial line. */
const char *const *kb_machine_console(const struct kb_machine *mc);
enum kb_machine_boot kb_machine_boot_method(const struct kb_machine *mc);
/* boot.ssh (kexec, grub-reboot) and boot.command (command): the argv the
 * method runs through, NULL for the other methods. */
const char *const *kb_machine_boot_ssh(const struct kb_machine *mc);
const char *const *kb_machine_boot_command(const struct kb_machine *mc);
/* known_good, or NULL when not given (kexec and grub-reboot: a power
 * cycle boots the machine's own default). */
const struct kb_machine_kernel *
kb_machine_known_good(const struct kb_machine *mc);
/* machine.xen and machine.xen_cmdline: the Xen image (a path as the
 * boot method sees it) and its command line that a variant with
 * machine.hypervisor xen boots, unless its machine.xen* factors say;
 * NULL when not given. */
const char *kb_machine_xen(const struct kb_machine *mc);
const char *kb_machine_xen_cmdline(const struct kb_machine *mc);
/* boot_timeout_s: how long a boot may take (default 300). */
unsigned kb_machine_boot_timeout_s(const struct kb_machine *mc);
const char *kb_machine_boot_name(enum kb_machine_boot b);

struct kb_host {
	const char *uri;   /* libvirt connection URI; a machine's is
			    * "machine:NAME", its name for the tables
			    * and logs, which nothing connects to */
	const struct kb_machine *machine; /* NULL: a libvirt host */
	struct kb_loc loc; /* where the host was written (line 0: the
			    * default host) */
	unsigned capacity; /* concurrent boots on this host (a machine: 1) */
	const char *pool;  /* hosts[].pool: the libvirt storage pool that
			    * kernels, initramfs and disks are shipped to
			    * (guest.h); NULL: the files are the client's
			    * own (a local host).  A URI naming a host
			    * defaults to "kbisect" */
};

/*
 * How this machine reaches the host of a libvirt URI: the transport
 * ("unix", "ssh", "libssh", "tls", "tcp", "ext" ...; libvirt's default
 * when the URI names none: "unix" without a host, "tls" with one) and
 * the host's name ("" for this machine's socket).  Fills *@r; an URI
 * that is not DRIVER[+TRANSPORT]://... gives empty fields.
 */
struct kb_host_route {
	char transport[16];
	char host[256];
};
void kb_host_route(const char *uri, struct kb_host_route *r);

/*
 * Why a host URI of a matrix that is not trusted is refused, or NULL when
 * it is not: the ext transport, and every URI parameter but mode, proxy,
 * sshauth, tls_priority and no_tty (command=, netcat=, socket=,
 * keyfile=, pkipath=, known_hosts= name programs, sockets and key files
 * of this machine; no_verify= and known_hosts_verify= turn off the
 * check of whom it talks to; libvirt hands any other to the driver).
 * The reason is written into @buf (@size bytes) and returned: "its
 * parameter 'command' names a program that this machine runs".
 */
const char *kb_host_uri_refused(const char *uri, char *buf, size_t size);

/*
 * Whether this process trusts the matrices it reads to name any host
 * URI: KBISECT_TRUST_MATRIX=1 in its environment (the daemon's own, for
 * the submissions it takes).  Documented in docs/matrix.md, "Hosts".
 */
int kb_host_trusted(void);

struct kb_matrix;

/*
 * Read and validate the matrix at @path.  On success *@out holds a matrix
 * the caller frees with kb_matrix_free().  Returns 0, KB_EINPUT (with
 * "file:line:col: ..." in @err), or another KB_E* code.
 */
int kb_matrix_load(const char *path, struct kb_matrix **out,
		   struct kb_err *err);

/*
 * Validate @len bytes at @data as a matrix named @file (used in messages
 * and to resolve relative paths).  For tests and the fuzzer.
 */
int kb_matrix_parse_buffer(const char *data, size_t len, const char *file,
			   struct kb_matrix **out, struct kb_err *err);

/*
 * Read back matrix text stored with an experiment (@file: the path it was
 * stored with), for analysis: kb_matrix_parse_buffer() without a look at
 * the disk.  Relative paths are joined to @file's folder as text only
 * (kb_path_relative_to), as the run that stored them did, and none is
 * checked to exist or to be a file; a source.base that looks like a make
 * target ("...config") is one.  So the same text and path give the same
 * matrix, variant labels and build keys from any folder, after the kernel
 * tree, the fragments, the images or the matrix itself moved or were
 * removed.  What is executed from such a matrix finds its files where
 * they were, or fails as a result (lib/exec/executor.h).
 */
int kb_matrix_parse_stored(const char *data, size_t len, const char *file,
			   struct kb_matrix **out, struct kb_err *err);

void kb_matrix_free(struct kb_matrix *m);

const char *kb_matrix_name(const struct kb_matrix *m);
const char *kb_matrix_file(const struct kb_matrix *m);
/* The matrix text exactly as read, for storing with the experiment. */
const char *kb_matrix_text(const struct kb_matrix *m);
enum kb_design_kind kb_matrix_design(const struct kb_matrix *m);
size_t kb_matrix_nfactors(const struct kb_matrix *m);
const struct kb_factor *kb_matrix_factor(const struct kb_matrix *m, size_t i);
/* How many factors are conditions (kb_factor.condition). */
size_t kb_matrix_nconditions(const struct kb_matrix *m);
/* The factor called @name, or NULL. */
const struct kb_factor *kb_matrix_find_factor(const struct kb_matrix *m,
					      const char *name);
const struct kb_source *kb_matrix_source(const struct kb_matrix *m);
const struct kb_guest *kb_matrix_guest(const struct kb_matrix *m);
const struct kb_workload *kb_matrix_workload(const struct kb_matrix *m);
const struct kb_repeat *kb_matrix_repeat(const struct kb_matrix *m);
const struct kb_compare *kb_matrix_compare(const struct kb_matrix *m);
/* The build section (zeroes when absent). */
const struct kb_build_cfg *kb_matrix_build(const struct kb_matrix *m);
size_t kb_matrix_nhosts(const struct kb_matrix *m);
const struct kb_host *kb_matrix_host(const struct kb_matrix *m, size_t i);
/* Host @i's machine, or NULL when host @i is a libvirt host (or there
 * is no host @i). */
const struct kb_machine *kb_matrix_machine(const struct kb_matrix *m,
					   size_t i);
/*
 * Refuse a matrix that has a host no executor runs, KB_EINPUT at its
 * position; 0 when it has none.  Every machine boot method is run
 * (lib/exec/machine.h), so this returns 0 today; a kexec machine in a
 * matrix whose factors boot Xen's dom0 is refused at parse ("boot
 * method kexec boots Linux only; Xen's dom0 needs grub-reboot or
 * command").
 */
int kb_matrix_check_runnable_hosts(const struct kb_matrix *m,
				   struct kb_err *err);

const char *kb_design_name(enum kb_design_kind kind);
const char *kb_hypervisor_name(enum kb_hypervisor hv);

#endif
