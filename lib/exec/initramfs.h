#ifndef KB_INITRAMFS_H
#define KB_INITRAMFS_H

#include <stddef.h>

struct kb_buf;
struct kb_err;
struct kb_workload;

/*
 * The guest's initramfs: a gzip-compressed cpio "newc" archive holding
 *
 *   /init                  guests/init, the shell script that runs the
 *                          workload and prints result frames (console.h)
 *   /bin/busybox           static busybox; /init installs its applets
 *   /usr/bin/fio + libs    fio, every shared library `ldd` lists for it
 *                          and the dynamic loader (fio workloads only)
 *   /usr/bin/perf* + libs  perf and its libraries when the workload has a
 *                          profile (workload.profile) and no root image
 *                          (which brings its own: guest.image's
 *                          linux-perf); perf record reads the kernel's
 *                          symbols from /proc/kallsyms, nothing else
 *   /lib/modules/...       virtio (and xen-blkfront) modules when
 *                          opts.modules is given, loaded by /init in
 *                          dependency order unless built in
 *   /kbisect/workload.conf "kind=fio|command" and "runs=N", read by /init
 *                          line by line, never evaluated; and when the
 *                          workload has them, "copies=N", a
 *                          "targets=GLOB" per glob, "targets_count=N",
 *                          a "sysctl=NAME=VALUE" per sysctl; with a root
 *                          disk image, "root=kbisect-root"
 *   /kbisect/job.fio       the fio job text (fio.h)
 *   /kbisect/command       the user's command (run with sh)
 *   /kbisect/modules       module files to load, one a line, in order
 *
 * Archives are cached in a folder, one file per digest of (init script,
 * workload files, runs, busybox and fio binaries, library and module
 * paths/sizes/mtimes), so a (workload, fio version) is built once.
 */

struct kb_initramfs_opts {
	const char *init;    /* /init script; NULL: $KBISECT_GUESTS/init, else
			      * guests/init in the executable's folder or
			      * up to three folders above it, else ./guests */
	const char *busybox; /* static busybox; NULL: /bin/busybox */
	const char *fio;     /* fio binary; NULL: /usr/bin/fio */
	const char *perf;    /* perf binary for a profile; NULL: the first
			      * /usr/bin/perf_* (Debian's older linux-perf),
			      * else /usr/bin/perf */
	const char *modules; /* /lib/modules/VERSION to take virtio modules
			      * from; NULL: none (the kernel has them built
			      * in) */
	int root_image;      /* a root disk image labelled kbisect-root
			      * (guestimage.h) comes with each boot: /init
			      * mounts it and runs a command workload in it
			      * ("root=kbisect-root" in workload.conf); with
			      * .modules, ext4's modules are added */
};

#define KB_INITRAMFS_OPTS_INIT \
	{ .init = NULL, .busybox = NULL, .fio = NULL, .perf = NULL, \
	  .modules = NULL, .root_image = 0 }

/*
 * Build (or find in @cache_dir, created if missing) the initramfs that runs
 * workload @w @runs times per boot: a matrix's workload, or a variant's
 * (kb_workload_instance(): its parameters filled, copies and sysctls).  @opts may be NULL for the defaults.
 * Returns 0 with the archive's path in *@path_out (caller frees; the file
 * belongs to the cache: do not remove it), KB_EINPUT for a bad workload
 * (fio.h), or KB_EFAIL when a file is missing or a program fails.
 * Concurrent builds of the same key are safe (write to a temporary file,
 * then rename).
 */
int kb_initramfs_build(const struct kb_workload *w, unsigned runs,
		       const struct kb_initramfs_opts *opts,
		       const char *cache_dir, char **path_out,
		       struct kb_err *err);

/*
 * What the guest runs for workload @w, as the initramfs holds it: the
 * fio job file text (/kbisect/job.fio, kb_fio_job_text()) or the command
 * and a newline (/kbisect/command, run with sh).  Returns 0 with *@out
 * (caller frees), or as kb_fio_job_text() fails.
 */
int kb_initramfs_workload_text(const struct kb_workload *w, char **out,
			       struct kb_err *err);

/*
 * The release of the x86 kernel image (bzImage) at @image, as `uname -r`
 * gives it ("6.1.0-57-amd64"), read from its setup header (the boot
 * protocol's kernel_version string, up to its first space), into @out
 * (@n bytes).  Returns 0, or -1 when @image is not a bzImage with a
 * version (then @out is "").
 */
int kb_initramfs_kernel_version(const char *image, char *out, size_t n);

/*
 * The module folder of a kernel image: "/lib/modules/VERSION" for the
 * release the image's header names (kb_initramfs_kernel_version), or for
 * an image that has none (a vmlinux), the VERSION of its file name
 * ".../vmlinuz-VERSION" — when that folder holds a modules.dep; else
 * NULL.  So a distro kernel copied anywhere finds its modules.  Caller
 * frees.
 */
char *kb_initramfs_modules_for(const char *kernel_image);

/*
 * Whether kernel @image can find the modules its boots need: when its
 * release (kb_initramfs_kernel_version) has no /lib/modules folder but
 * /boot/config-RELEASE builds the disk driver as a module (virtio_pci
 * and virtio_blk; xen-blkfront for @xen; ext4 too for a @root_image),
 * KB_EINPUT naming the option and the folder.  0 when the modules are
 * there, the drivers are built in, or it cannot be told (not a bzImage,
 * no config).  @root: the file system those folders are in (NULL: /).
 */
int kb_initramfs_check_modules(const char *image, int xen, int root_image,
			       const char *root, struct kb_err *err);

/* The default cache folder: $XDG_CACHE_HOME/kbisect/initramfs, else
 * $HOME/.cache/kbisect/initramfs.  Caller frees. */
char *kb_initramfs_default_cache(void);

/*
 * Append one cpio newc entry to @out: a regular file (S_IFREG | perm) with
 * @len bytes of @data, a directory (S_IFDIR, @len 0) or a symlink
 * (S_IFLNK, @data the target).  @name has no leading '/'.  Entries get
 * increasing inode numbers from @ino, mtime 0, uid/gid 0.
 */
void kb_initramfs_cpio_add(struct kb_buf *out, unsigned ino,
			   const char *name, unsigned mode, const void *data,
			   size_t len);
/* Append a device node entry (S_IFCHR or S_IFBLK | perm, @major:@minor). */
void kb_initramfs_cpio_add_dev(struct kb_buf *out, unsigned ino,
			       const char *name, unsigned mode,
			       unsigned major, unsigned minor);
/* Append the "TRAILER!!!" entry that ends a cpio archive. */
void kb_initramfs_cpio_trailer(struct kb_buf *out);

#endif
