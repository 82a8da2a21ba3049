#ifndef KB_GUESTIMAGE_H
#define KB_GUESTIMAGE_H

#include <stddef.h>

struct kb_err;
struct kb_guest_image;

/*
 * The guest's root disk image (matrix guest.image, docs/guests.md): a
 * Debian root filesystem made by mmdebstrap from the host's apt sources
 * (--variant=essential plus the matrix's packages), with the workload's
 * files under /data, written into an ext4 image by `mkfs.ext4 -d` (no
 * loop mount, no root privileges beyond what mmdebstrap needs) and
 * labelled "kbisect-root", the label the guest's /init looks for.
 *
 * Images are cached in a folder, one file "KEY.ext4" per key: the SHA-256
 * of the recipe's version, the suite, the packages in order, the apt
 * sources' text, the size asked for, and each workload file's name and
 * content digest.  An image is built once and never changed: every boot
 * writes to a copy-on-write overlay of its own (lib/exec/realexec.c).
 */

struct kb_guestimage_opts {
	const char *mmdebstrap; /* NULL: "mmdebstrap" from PATH */
	const char *mkfs;       /* NULL: "mkfs.ext4" from PATH */
	const char *sources;    /* apt sources file (one-line or deb822);
				 * NULL: the host's
				 * (/etc/apt/sources.list, else
				 * /etc/apt/sources.list.d/debian.sources) */
	const char *os_release; /* for the default suite; NULL:
				 * /etc/os-release (VERSION_CODENAME) */
	const char *log;        /* mmdebstrap's and mkfs's output is appended
				 * here; NULL: KEY.log in the cache folder */
};
#define KB_GUESTIMAGE_OPTS_INIT                                            \
	{ .mmdebstrap = NULL, .mkfs = NULL, .sources = NULL,                \
	  .os_release = NULL, .log = NULL }

/*
 * The cache key of image @im with the @nfiles host files @files, as 64
 * hex digits and a NUL in @key.  Returns 0, KB_EINPUT when no suite can
 * be told (no guest.image.suite and no VERSION_CODENAME), or KB_EFAIL
 * when the sources or a file cannot be read.
 */
int kb_guestimage_key(const struct kb_guest_image *im, size_t nfiles,
		      const char *const *files,
		      const struct kb_guestimage_opts *opts, char key[65],
		      struct kb_err *err);

/*
 * Find or build image @im in @cache_dir (created if missing).  Returns 0
 * with the image's path in *@path (caller frees; the file belongs to the
 * cache: do not change or remove it) and *@built 1 when it was built now
 * (0: found in the cache); KB_EFAIL when a program fails, naming it and
 * the log with its output.  @opts may be NULL.  Concurrent builds of one
 * key are safe (each in a folder of its own, then rename).
 */
int kb_guestimage_get(const struct kb_guest_image *im, size_t nfiles,
		      const char *const *files,
		      const struct kb_guestimage_opts *opts,
		      const char *cache_dir, char **path, int *built,
		      struct kb_err *err);

/* The default cache folder: kb_cache_dir("images").  Caller frees. */
char *kb_guestimage_default_cache(void);

#endif
