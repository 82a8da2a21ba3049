/* nftw() */
#define _XOPEN_SOURCE 700
#include "guestimage.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "program.h"
#include "sha256.h"
#include "banned.h"

/* Changing what an image holds or how it is made changes every key. */
#define RECIPE                                                              \
	"kbisect-guestimage 1\n"                                            \
	"mmdebstrap --variant=essential; /data/NAME; "                      \
	"mkfs.ext4 -L kbisect-root -O ^metadata_csum -d\n"
#define LABEL "kbisect-root"
#define MIB (1024ull * 1024ull)

static const char *sources_file(const struct kb_guestimage_opts *o)
{
	struct stat st;

	if (o->sources)
		return o->sources;
	if (stat("/etc/apt/sources.list", &st) == 0 && st.st_size > 0)
		return "/etc/apt/sources.list";
	return "/etc/apt/sources.list.d/debian.sources";
}

/* guest.image.suite, else VERSION_CODENAME of os-release: caller frees. */
static int suite_of(const struct kb_guest_image *im,
		    const struct kb_guestimage_opts *o, char **out,
		    struct kb_err *err)
{
	const char *file = o->os_release ? o->os_release : "/etc/os-release";
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	const char *line;
	int ret = 0;

	*out = NULL;
	if (im->suite) {
		if (!kb_guest_suite_valid(im->suite))
			return kb_err_set(err, KB_EINPUT,
					  "invalid guest.image.suite '%s': expected a Debian suite such as bookworm",
					  im->suite);
		*out = kb_strdup(im->suite);
		return 0;
	}
	if (kb_buf_read_file(&b, file, 1u << 16, &ignored) == 0)
		for (line = b.buf; line && *line; line = strchr(line, '\n'),
		    line = line ? line + 1 : NULL)
			if (!strncmp(line, "VERSION_CODENAME=", 17)) {
				size_t n = strcspn(line + 17, "\"\n");

				*out = kb_strndup(line + 17, n);
				break;
			}
	if (!*out || !**out) {
		free(*out);
		*out = NULL;
		ret = kb_err_set(err, KB_EINPUT,
				 "cannot tell the Debian suite for guest.image: '%s' has no VERSION_CODENAME; set guest.image.suite",
				 file);
	} else if (!kb_guest_suite_valid(*out)) {
		/* it becomes an argument of mmdebstrap: no option, no path */
		ret = kb_err_set(err, KB_EINPUT,
				 "cannot tell the Debian suite for guest.image: '%s' has VERSION_CODENAME '%s', which is not a Debian suite name; set guest.image.suite",
				 file, *out);
		free(*out);
		*out = NULL;
	}
	kb_buf_release(&b);
	return ret;
}

static void hash_str(struct kb_sha256 *h, const char *s)
{
	kb_sha256_update(h, s, strlen(s) + 1);
}

int kb_guestimage_key(const struct kb_guest_image *im, size_t nfiles,
		      const char *const *files,
		      const struct kb_guestimage_opts *opts, char key[65],
		      struct kb_err *err)
{
	struct kb_guestimage_opts dflt = KB_GUESTIMAGE_OPTS_INIT;
	struct kb_buf src = KB_BUF_INIT;
	struct kb_sha256 h;
	unsigned char d[KB_SHA256_LEN];
	char *suite = NULL, hex[KB_SHA256_HEX_LEN + 1], num[32];
	size_t i;
	int ret;

	if (!opts)
		opts = &dflt;
	key[0] = '\0';
	if ((ret = suite_of(im, opts, &suite, err)) ||
	    (ret = kb_buf_read_file(&src, sources_file(opts), 1u << 20, err)))
		goto out;
	kb_sha256_init(&h);
	hash_str(&h, RECIPE);
	hash_str(&h, suite);
	for (i = 0; i < im->npackages; i++)
		hash_str(&h, im->packages[i]);
	hash_str(&h, "sources");
	kb_sha256_update(&h, src.buf, src.len);
	snprintf(num, sizeof(num), "size %u", im->size_mib);
	hash_str(&h, num);
	for (i = 0; i < nfiles; i++) {
		if ((ret = kb_sha256_file(files[i], hex, err)))
			goto out;
		hash_str(&h, kb_path_base(files[i]));
		hash_str(&h, hex);
	}
	kb_sha256_final(&h, d);
	for (i = 0; i < KB_SHA256_LEN; i++)
		snprintf(key + 2 * i, 3, "%02x", d[i]);
out:
	free(suite);
	kb_buf_release(&src);
	return ret;
}

char *kb_guestimage_default_cache(void)
{
	return kb_cache_dir("images");
}

/* ---- trees: sized, then removed --------------------------------------- */

static _Thread_local unsigned long long tree_bytes;

static int add_bytes(const char *path, const struct stat *st, int flag,
		     struct FTW *f)
{
	(void)path;
	(void)flag;
	(void)f;
	tree_bytes += (unsigned long long)st->st_blocks * 512ull;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

/* Remove @dir and everything under it, never crossing a mount point. */
static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---- building ----------------------------------------------------------- */

static int run(const char *const *argv, const char *log, const char *what,
	       struct kb_err *err)
{
	struct kb_program p = { .argv = argv,
				.out = KB_PROGRAM_LOG,
				.err = KB_PROGRAM_LOG,
				.log = log };
	pid_t pid;
	int fd, status;

	if (kb_program_start(&p, &pid, &fd, err))
		return KB_EFAIL;
	status = kb_program_wait(pid);
	if (status != 0)
		return kb_err_set(err, KB_EFAIL,
				  "%s failed (%s %d): see '%s'", what,
				  status > 128 ? "signal" : "exit status",
				  status > 128 ? status - 128 : status, log);
	return 0;
}

static int copy_files(const char *root, size_t nfiles,
		      const char *const *files, struct kb_err *err)
{
	char *data = kb_asprintf("%s/data", root), *to;
	size_t i;
	int ret = 0;

	if (nfiles && mkdir(data, 0755) < 0 && errno != EEXIST)
		ret = kb_err_set(err, KB_EFAIL, "cannot make '%s': %s", data,
				 strerror(errno));
	for (i = 0; i < nfiles && !ret; i++) {
		to = kb_asprintf("%s/%s", data, kb_path_base(files[i]));
		ret = kb_copy_atomic(files[i], to, err);
		if (!ret && chmod(to, 0644) < 0)
			ret = kb_err_set(err, KB_EFAIL, "cannot chmod '%s': %s",
					 to, strerror(errno));
		free(to);
	}
	free(data);
	return ret;
}

static int build(const struct kb_guest_image *im, size_t nfiles,
		 const char *const *files, const struct kb_guestimage_opts *o,
		 const char *suite, const char *work, const char *log,
		 const char *image, struct kb_err *err)
{
	char *root = kb_asprintf("%s/root", work);
	char *include = NULL, *size = NULL;
	struct kb_buf inc = KB_BUF_INIT;
	unsigned long long bytes, need;
	size_t i;
	int ret;

	for (i = 0; i < im->npackages; i++)
		kb_buf_addf(&inc, "%s%s", i ? "," : "", im->packages[i]);
	include = kb_asprintf("--include=%s", inc.buf);
	{
		const char *argv[] = { o->mmdebstrap ? o->mmdebstrap
						     : "mmdebstrap",
				       "--variant=essential",
				       include,
				       "--", /* the rest are never options */
				       suite,
				       root,
				       sources_file(o),
				       NULL };

		if ((ret = run(argv, log, "mmdebstrap", err)))
			goto out;
	}
	if ((ret = copy_files(root, nfiles, files, err)))
		goto out;
	tree_bytes = 0;
	nftw(root, add_bytes, 16, FTW_PHYS | FTW_MOUNT);
	bytes = tree_bytes;
	/* room for the workload's writes; the file is sparse */
	need = bytes + bytes / 4 + 1024 * MIB;
	if (im->size_mib && (unsigned long long)im->size_mib * MIB <
				    bytes + bytes / 8 + 16 * MIB) {
		ret = kb_err_set(err, KB_EINPUT,
				 "guest.image.size_mib %u is too small: its files take %llu MiB",
				 im->size_mib, bytes / MIB + 1);
		goto out;
	}
	if (im->size_mib)
		need = (unsigned long long)im->size_mib * MIB;
	size = kb_asprintf("%lluM", (need + MIB - 1) / MIB);
	{
		const char *argv[] = { o->mkfs ? o->mkfs : "mkfs.ext4",
				       "-q",
				       "-F",
				       "-L",
				       LABEL,
				       "-O",
				       "^metadata_csum",
				       "-d",
				       root,
				       image,
				       size,
				       NULL };

		if ((ret = run(argv, log, "mkfs.ext4", err)))
			goto out;
	}
	if (chmod(image, 0644) < 0)
		ret = kb_err_set(err, KB_EFAIL, "cannot chmod '%s': %s", image,
				 strerror(errno));
out:
	remove_tree(root);
	kb_buf_release(&inc);
	free(include);
	free(size);
	free(root);
	return ret;
}

int kb_guestimage_get(const struct kb_guest_image *im, size_t nfiles,
		      const char *const *files,
		      const struct kb_guestimage_opts *opts,
		      const char *cache_dir, char **path, int *built,
		      struct kb_err *err)
{
	struct kb_guestimage_opts dflt = KB_GUESTIMAGE_OPTS_INIT;
	char key[65], *final = NULL, *work = NULL, *tmp = NULL, *log = NULL;
	char *suite = NULL;
	struct stat st;
	int ret;

	if (!opts)
		opts = &dflt;
	*path = NULL;
	*built = 0;
	if ((ret = kb_guestimage_key(im, nfiles, files, opts, key, err)) ||
	    (ret = suite_of(im, opts, &suite, err)) ||
	    (ret = kb_mkdir_p(cache_dir, err)))
		goto out;
	final = kb_asprintf("%s/%s.ext4", cache_dir, key);
	if (stat(final, &st) == 0 && S_ISREG(st.st_mode)) {
		*path = final;
		final = NULL;
		goto out;
	}
	work = kb_asprintf("%s/build-%.16s-XXXXXX", cache_dir, key);
	if (!mkdtemp(work)) {
		ret = kb_err_set(err, KB_EFAIL, "cannot make a folder in '%s': %s",
				 cache_dir, strerror(errno));
		free(work);
		work = NULL;
		goto out;
	}
	log = opts->log ? kb_strdup(opts->log)
			: kb_asprintf("%s/%s.log", cache_dir, key);
	tmp = kb_asprintf("%s/image.ext4", work);
	if ((ret = build(im, nfiles, files, opts, suite, work, log, tmp, err)))
		goto out;
	if (rename(tmp, final) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot rename '%s' to '%s': %s",
				 tmp, final, strerror(errno));
		goto out;
	}
	*path = final;
	final = NULL;
	*built = 1;
out:
	if (work) {
		unlink(tmp);
		remove_tree(work);
	}
	free(work);
	free(tmp);
	free(log);
	free(final);
	free(suite);
	return ret;
}
