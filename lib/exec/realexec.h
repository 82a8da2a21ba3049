#ifndef KB_REALEXEC_H
#define KB_REALEXEC_H

#include <signal.h>
#include <stdint.h>

#include "initramfs.h"
#include "matrix.h"
#include "variant.h"

struct kb_build_progress;
struct kb_err;
struct kb_executor;
struct kb_guest_conn;
struct kb_plan;

/*
 * The real executor: kernels and libvirt guests behind the executor
 * interface (executor.h), named "libvirt".
 *
 * Build: a prebuilt kernel (the variant's kernel.image level, else the
 * matrix's source.kernel) when the variant sets no Kconfig option and no
 * kernel.rev; otherwise a kernel built from source.tree as the plan
 * resolved it (kb_build_plan_variant).  A variant that is not one of the
 * resolved plan's (a bisection probe, or any variant when no resolved
 * plan was given) is resolved alone, through kb_plan_new_variant() and
 * kb_plan_resolve() (from kb_realexec_opts.base_config when given), then
 * built the same way; the build result says whether the kernel came from
 * the build cache (kb_build_result.cached).
 *
 * Boot: the variant's workload (kb_workload_instance(): its {{NAME}}
 * parameters filled, its copies and sysctls, from the guest shape), its
 * initramfs (initramfs.h, cached), the domain XML (domxml.h) for the
 * variant's guest shape with its cmdline.* text after kbisect's own
 * command line, one transient guest
 * "kbisect-<db tag>-<experiment>-<variant>-<boot>" run to the end of its
 * console
 * (guest.h), the console judged into a status and one sample per run
 * (console.h).  kvm/qemu guests get guest.scratch_disks raw images
 * sized for the job (without it, one for fio without guest.disks),
 * made for the boot and removed after; qemu
 * (TCG) guests log their console to a file, others are read through
 * libvirt's console stream.  Timeouts: guest.boot_timeout_s until the
 * workload starts, then workload.timeout_s (default: from the fio
 * runtime, else 600 s).  Every boot records the environment
 * (kb_guest_environment) and the host URI.
 *
 * Evidence (db/0007): a build records its image's SHA-256 and the
 * resolved .config (a prebuilt ".../vmlinuz-VERSION" the
 * ".../config-VERSION" beside it, when there is one); a boot records the
 * domain XML it created the guest with and the workload text its
 * initramfs holds (kb_initramfs_workload_text).
 */

struct kb_realexec_opts {
	/* the experiment being run, read at each boot for domain names;
	 * NULL or 0: "kbisect-TAG-0-..." */
	const int64_t *experiment;
	/* the database's tag (kb_store_tag()), read at each boot for domain
	 * names "kbisect-TAG-EXP-VARIANT-BOOT", so the text may be filled in
	 * after the executor is made; NULL or "": "kbisect-EXP-..." */
	const char *db_tag;
	/* folder for scratch images and console logs; NULL: $TMPDIR, else
	 * /var/tmp (not tmpfs: disks are opened with O_DIRECT) */
	const char *work_dir;
	/* initramfs cache folder; NULL: kb_initramfs_default_cache() */
	const char *initramfs_cache;
	/* initramfs programs; .modules NULL: taken from the kernel image's
	 * /lib/modules folder when it is a distro kernel */
	struct kb_initramfs_opts initramfs;
	/* read libvirt's console stream even where a file would do (qemu) */
	int console_stream;
	/* the plan whose variants are built, resolved (kb_plan_resolve);
	 * borrowed, may be NULL */
	const struct kb_plan *plan;
	/* may be NULL: once *stop is nonzero the running guest is destroyed
	 * (kb_guest_run_opts.stop) and its boot ends as a libvirt error */
	const volatile sig_atomic_t *stop;
	/* a .config that variants outside the plan are resolved from
	 * instead of source.base and source.fragments (option bisection:
	 * the good end, each probe's changes its Kconfig settings); NULL:
	 * the matrix's */
	const char *base_config;
	/* a variant outside the plan whose Kconfig settings do not all hold
	 * after resolution is not built: its build fails, the reason naming
	 * each setting that did not hold and why */
	int require_held;
	/* may be NULL: make's progress while a kernel is built from source
	 * (kb_build_opts.progress), with @build_arg */
	void (*build_progress)(const struct kb_build_progress *p, void *arg);
	void *build_arg;
	/* the host's libvirt storage pool (kb_host.pool) that each boot's
	 * kernel, initramfs, guest image and disks are shipped to through
	 * the connection (guest.h); NULL: the client's files, in a boot
	 * folder (a local host) */
	const char *pool;
	unsigned long long pool_max_bytes; /* its bound; 0: 8 GiB */
	/* guest.image cache folder; NULL: kb_guestimage_default_cache() */
	const char *image_cache;
	/* may be NULL: a line saying that the guest image is being got
	 * (mmdebstrap takes a minute) and then how, with @build_arg */
	void (*image_note)(const char *line, void *arg);
};
#define KB_REALEXEC_OPTS_INIT                                             \
	{ .experiment = NULL, .db_tag = NULL, .work_dir = NULL, .initramfs_cache = NULL,  \
	  .initramfs = KB_INITRAMFS_OPTS_INIT, .console_stream = 0,        \
	  .plan = NULL, .stop = NULL, .base_config = NULL,                 \
	  .require_held = 0, .build_progress = NULL, .build_arg = NULL,    \
	  .image_cache = NULL, .image_note = NULL, .pool = NULL,           \
	  .pool_max_bytes = 0 }

/*
 * Make the real executor for matrix @m booting on @conn; both are
 * borrowed and must outlive it.  @conn NULL: an executor that builds
 * only (every host a machine, machine.h), whose boots fail with KB_EFAIL.  @opts may be NULL.  Reads the host's
 * environment once.  Returns 0 with *@out (kb_executor_free() frees it),
 * or KB_EFAIL.
 */
int kb_realexec_new(const struct kb_matrix *m, struct kb_guest_conn *conn,
		    const struct kb_realexec_opts *opts,
		    struct kb_executor **out, struct kb_err *err);

/*
 * Before anything boots: whether each prebuilt kernel of plan @p finds
 * the modules its boots need (kb_initramfs_check_modules).  Returns 0,
 * or KB_EINPUT naming the kernel, the option and the missing folder.
 */
int kb_realexec_check_kernels(const struct kb_plan *p, struct kb_err *err);

/*
 * Before anything is stored: whether a real run has a kernel for each
 * variant of plan @p: a prebuilt image (source.kernel, kernel.image), or
 * a build from source.tree, which must then be a folder here.  Returns
 * 0, or KB_EINPUT naming the first variant without one, or the tree.
 * What `plan`, `run` and `submit` refuse alike (and the daemon for a
 * submission without a model).
 */
int kb_realexec_check_source(const struct kb_plan *p, struct kb_err *err);

/*
 * Before anything boots: whether a Xen host can start each guest of plan
 * @p.  Xen's toolstack (libxl 4.17, Debian 12's) refuses PCI passthrough
 * to PVH guests ("passthrough not yet supported for x86 PVH guests"), and
 * a refused start would count against the host, not the variant.
 * Returns 0, or KB_EINPUT naming the first such variant and saying what
 * boots instead (mode pv).
 */
int kb_realexec_check_guests(const struct kb_plan *p, struct kb_err *err);

/*
 * The kernel image variant @v of @m boots without a build (kernel.image,
 * else source.kernel), or NULL when it is built from source.tree (it has
 * Kconfig settings or a kernel.rev).  Borrowed from @m and @v.
 */
const char *kb_realexec_prebuilt(const struct kb_matrix *m,
				 const struct kb_variant *v);

/*
 * The domain XML variant @v of @m would boot with (`kbisect domxml`):
 * what a boot would use, with placeholder paths for what is made at boot
 * (initramfs, boot folder) and for a kernel not built yet, each said in a
 * comment at the top.  The kernel: the prebuilt one a variant without
 * Kconfig settings boots, else @built (may be NULL: the image the caller
 * found, e.g. the store's build of the variant's key), else the build
 * cache's image of @v's build key (kb_build_cached_image(); the key of a
 * resolved plan), else the placeholder.  Caller frees *@xml.
 */
int kb_realexec_domxml(const struct kb_matrix *m, const struct kb_variant *v,
		       const char *built, char **xml, struct kb_err *err);

/*
 * The workload timeout for @w with @runs runs per boot: workload.timeout_s
 * when given; for fio jobs with a runtime, runs × (2 × runtime + 30) s,
 * at least 60; else 600.
 */
unsigned kb_realexec_workload_timeout(const struct kb_workload *w,
				      unsigned runs);

/*
 * Bytes for a scratch disk for @w: the fio "size" option (k/m/g/t
 * suffixes, powers of 1024) plus 16 MiB, at least 64 MiB; 256 MiB when
 * the job names no size.
 */
unsigned long long kb_realexec_scratch_bytes(const struct kb_workload *w);

/* kbisect's kernel command line for a guest of shape @g; a variant's
 * cmdline.* text (g->cmdline) follows it in the domain XML. */
const char *kb_realexec_cmdline(const struct kb_guest *g);

#endif
