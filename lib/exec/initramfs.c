/*
 * The guest's initramfs (see initramfs.h): a cpio "newc" archive written
 * here (format: the kernel's Documentation/driver-api/early-userspace/
 * buffer-format.rst), compressed by running `gzip -n`, and cached by a
 * digest of everything that goes in.
 */
#include "initramfs.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "program.h"
#include "fio.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "sha256.h"
#include "banned.h"


#define FORMAT_VERSION "kbisect-initramfs 1"
#define MAX_SCRIPT (1u << 20)
#define MAX_CAPTURE (1u << 20)
#define MAX_IMAGE (1u << 30) /* an initramfs, compressed */
#define MAX_FILES 512

/* Modules /init loads for a distro kernel, with what they depend on. */
static const char *const wanted_modules[] = { "virtio_pci", "virtio_blk",
					      "xen_blkfront", "crc32c_generic",
					      "ext4" };
/* ... of which the last ones only with a root disk image (ext4 asks for
 * a crc32c driver whatever the features) */
#define NWANTED_IMAGE 2

/* ---- cpio newc --------------------------------------------------------- */

static void header(struct kb_buf *out, unsigned ino, const char *name,
		   unsigned mode, size_t size, unsigned rmaj, unsigned rmin)
{
	size_t namesize = strlen(name) + 1;

	kb_buf_addf(out,
		    "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		    ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u,
		    (unsigned)size, 0u, 0u, rmaj, rmin, (unsigned)namesize,
		    0u);
	kb_buf_add(out, name, namesize);
	while (out->len % 4)
		kb_buf_addch(out, '\0');
}

static void pad4(struct kb_buf *out)
{
	while (out->len % 4)
		kb_buf_addch(out, '\0');
}

void kb_initramfs_cpio_add(struct kb_buf *out, unsigned ino,
			   const char *name, unsigned mode, const void *data,
			   size_t len)
{
	header(out, ino, name, mode, len, 0, 0);
	if (len)
		kb_buf_add(out, data, len);
	pad4(out);
}

void kb_initramfs_cpio_add_dev(struct kb_buf *out, unsigned ino,
			       const char *name, unsigned mode,
			       unsigned major, unsigned minor)
{
	header(out, ino, name, mode, 0, major, minor);
}

void kb_initramfs_cpio_trailer(struct kb_buf *out)
{
	header(out, 0, "TRAILER!!!", 0, 0, 0, 0);
}

/* ---- running programs -------------------------------------------------- */

/*
 * Run @argv with stdout and stderr in @capture (when not NULL, up to
 * MAX_CAPTURE bytes; else to /dev/null).  Returns 0 when it exits 0; else
 * KB_EFAIL naming the program and quoting the first line it printed.
 */
static int run(char *const argv[], struct kb_buf *capture, struct kb_err *err)
{
	struct kb_program prog = {
		.argv = (const char *const *)argv,
		.out = KB_PROGRAM_PIPE,
		.err = KB_PROGRAM_PIPE,
	};
	struct kb_buf local = KB_BUF_INIT;
	struct kb_buf *cap = capture ? capture : &local;
	int status, ret;

	if ((ret = kb_program_capture(&prog, cap, MAX_CAPTURE, &status, err)))
		goto out;
	if (status != 0) {
		size_t n = strcspn(cap->buf, "\n");

		ret = kb_err_set(err, KB_EFAIL, "'%s %s' failed (status %d): %.*s",
				 argv[0], argv[1] ? argv[1] : "", status,
				 (int)(n > 200 ? 200 : n), cap->buf);
	}
out:
	kb_buf_release(&local);
	return ret;
}

/* ---- what goes in ------------------------------------------------------ */

/* A file of the host copied in: @src on the host, @dst in the archive. */
struct entry {
	char *src;
	char *dst; /* no leading '/' */
	unsigned mode;
	struct stat st;
};

struct plan {
	char *init_path;
	struct kb_buf init;
	struct kb_buf conf;
	char *job;      /* fio job text, or NULL */
	char *command;  /* command text, or NULL */
	struct kb_buf modules; /* /kbisect/modules */
	size_t n;
	struct entry files[MAX_FILES];
};

static int add_file(struct plan *p, const char *src, const char *dst,
		    unsigned perm, struct kb_err *err)
{
	struct entry *e;
	size_t i;

	while (*dst == '/')
		dst++;
	for (i = 0; i < p->n; i++)
		if (!strcmp(p->files[i].dst, dst))
			return 0;
	if (p->n == MAX_FILES)
		return kb_err_set(err, KB_EFAIL,
				  "too many files for the initramfs (%d)",
				  MAX_FILES);
	e = &p->files[p->n];
	if (stat(src, &e->st) < 0 || !S_ISREG(e->st.st_mode))
		return kb_err_set(err, KB_EFAIL,
				  "cannot add '%s' to the initramfs: %s", src,
				  errno ? strerror(errno) : "not a file");
	if ((unsigned long long)e->st.st_size > 0xffffffffull)
		return kb_err_set(err, KB_EFAIL, "'%s' is too large for cpio",
				  src);
	e->src = kb_strdup(src);
	e->dst = kb_strdup(dst);
	e->mode = S_IFREG | perm;
	p->n++;
	return 0;
}

/* The shared libraries and loader `ldd @bin` lists. */
static int add_libs(struct plan *p, const char *bin, struct kb_err *err)
{
	struct kb_buf out = KB_BUF_INIT;
	char *argv[] = { (char *)"ldd", (char *)bin, NULL };
	char *line, *save = NULL;
	int ret;

	if ((ret = run(argv, &out, err)))
		goto out;
	for (line = strtok_r(out.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *path = strstr(line, "=> ");
		size_t n;

		path = path ? path + 3 : line + strspn(line, " \t");
		if (*path != '/')
			continue; /* linux-vdso.so.1, "not found" */
		n = strcspn(path, " (");
		path[n] = '\0';
		if ((ret = add_file(p, path, path, 0755, err)))
			goto out;
	}
out:
	kb_buf_release(&out);
	return ret;
}

static int same_module(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');
	size_t i, n = strlen(name);

	b = b ? b + 1 : path;
	if (strncmp(b + n, ".ko", 3) != 0 ||
	    (b[n + 3] != '\0' && b[n + 3] != ':'))
		return 0;
	for (i = 0; i < n; i++) {
		char x = b[i] == '-' ? '_' : b[i];
		char y = name[i] == '-' ? '_' : name[i];

		if (x != y)
			return 0;
	}
	return 1;
}

static int add_module(struct plan *p, const char *dir, const char *rel,
		      struct kb_err *err)
{
	char *src = kb_asprintf("%s/%s", dir, rel);
	size_t n = p->n;
	int ret;

	if (strlen(rel) < 3 || strcmp(rel + strlen(rel) - 3, ".ko") != 0) {
		ret = kb_err_set(err, KB_EFAIL,
				 "module '%s' is compressed: only .ko files can be loaded by busybox insmod",
				 src);
		goto out;
	}
	if ((ret = add_file(p, src, src, 0644, err)))
		goto out;
	if (p->n > n)
		kb_buf_addf(&p->modules, "%s\n", p->files[n].dst);
out:
	free(src);
	return ret;
}

/* The virtio and xen-blkfront modules of @dir, and ext4's for a root
 * disk image (@image), in load order. */
static int add_modules(struct plan *p, const char *dir, int image,
		       struct kb_err *err)
{
	struct kb_buf dep = KB_BUF_INIT;
	char *depfile = kb_asprintf("%s/modules.dep", dir);
	size_t i, n = sizeof(wanted_modules) / sizeof(wanted_modules[0]);
	int ret;

	if (!image)
		n -= NWANTED_IMAGE;
	if ((ret = kb_buf_read_file(&dep, depfile, 16u << 20, err)))
		goto out;
	for (i = 0; i < n; i++) {
		char *line = dep.buf, *nl, *colon;

		for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
			char *deps[32], *tok, *save = NULL;
			size_t nd = 0, k;
			char *copy;

			nl = strchr(line, '\n');
			colon = strchr(line, ':');
			if (!colon || (nl && colon > nl))
				continue;
			*colon = '\0';
			if (!same_module(line, wanted_modules[i])) {
				*colon = ':';
				continue;
			}
			copy = kb_strndup(colon + 1,
					  nl ? (size_t)(nl - colon - 1)
					     : strlen(colon + 1));
			for (tok = strtok_r(copy, " \t", &save); tok && nd < 32;
			     tok = strtok_r(NULL, " \t", &save))
				deps[nd++] = tok;
			ret = 0;
			for (k = nd; k > 0 && !ret; k--)
				ret = add_module(p, dir, deps[k - 1], err);
			if (!ret)
				ret = add_module(p, dir, line, err);
			*colon = ':';
			free(copy);
			if (ret)
				goto out;
			break;
		}
	}
out:
	free(depfile);
	kb_buf_release(&dep);
	return ret;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * guests/init: $KBISECT_GUESTS, near the executable (a checkout: DIR/guests
 * for the executable's folder and its parents; an install:
 * PREFIX/share/kbisect/guests for PREFIX/bin/kbisect), or from here.
 */
static char *find_init(void)
{
	char exe[PATH_MAX], *path;
	const char *env = getenv("KBISECT_GUESTS");
	ssize_t n;
	int up;

	if (env && *env) {
		path = kb_asprintf("%s/init", env);
		if (exists(path))
			return path;
		free(path);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		for (up = 0; up <= 3 && (slash = strrchr(exe, '/')); up++) {
			*slash = '\0';
			path = kb_asprintf("%s/guests/init", exe);
			if (exists(path))
				return path;
			free(path);
			path = kb_asprintf("%s/share/kbisect/guests/init", exe);
			if (up == 1 && exists(path))
				return path;
			free(path);
		}
	}
	if (exists("guests/init"))
		return kb_strdup("guests/init");
	return NULL;
}

static void plan_release(struct plan *p)
{
	size_t i;

	free(p->init_path);
	kb_buf_release(&p->init);
	kb_buf_release(&p->conf);
	kb_buf_release(&p->modules);
	free(p->job);
	free(p->command);
	for (i = 0; i < p->n; i++) {
		free(p->files[i].src);
		free(p->files[i].dst);
	}
}

int kb_initramfs_workload_text(const struct kb_workload *w, char **out,
			       struct kb_err *err)
{
	*out = NULL;
	if (w->kind == KB_WORKLOAD_COMMAND) {
		*out = kb_asprintf("%s\n", w->command);
		return 0;
	}
	return kb_fio_job_text(w, out, err);
}

/*
 * The workload.conf lines beyond kind and runs, each only when it says
 * something (so a plain workload's archive stays the same): copies,
 * targets (one line per glob), targets_count, sysctl=NAME=VALUE, and
 * monitors (the workload.monitors sources, as words: lib/monitor.h),
 * profile=HZ (workload.profile: perf record's frequency, lib/profile.h).
 */
static void conf_more(struct kb_buf *conf, const struct kb_workload *w)
{
	const char *sep = "";
	size_t i;

	if (w->copies > 1)
		kb_buf_addf(conf, "copies=%u\n", w->copies);
	for (i = 0; i < w->ntargets; i++)
		kb_buf_addf(conf, "targets=%s\n", w->targets[i]);
	if (w->targets_count)
		kb_buf_addf(conf, "targets_count=%u\n", w->targets_count);
	for (i = 0; i < w->nsysctl; i++)
		kb_buf_addf(conf, "sysctl=%s=%s\n", w->sysctl[i].name,
			    w->sysctl[i].value);
	if (w->profile_hz)
		kb_buf_addf(conf, "profile=%u\n", w->profile_hz);
	if (!w->monitors)
		return;
	kb_buf_add(conf, "monitors=", 9);
	for (i = 0; i < KB_MONITOR_SOURCES; i++) {
		if (w->monitors & 1u << i) {
			kb_buf_addf(conf, "%s%s", sep,
				    kb_workload_monitor_name((unsigned)i));
			sep = " ";
		}
	}
	kb_buf_add(conf, "\n", 1);
}

/*
 * perf for a profile without a root image: @o->perf, else the host's
 * (the first executable /usr/bin/perf_*, else /usr/bin/perf), under its
 * own name in usr/bin (/init looks for perf_* first, then perf).  None is
 * an error: a profile the guest cannot take would be a silent empty one.
 */
static int add_perf(struct plan *p, const struct kb_initramfs_opts *o,
		    struct kb_err *err)
{
	char found[PATH_MAX], dst[PATH_MAX];
	const char *bin = o->perf, *base;
	glob_t g;
	size_t i;
	int ret;

	if (!bin) {
		found[0] = '\0';
		if (glob("/usr/bin/perf_*", 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc && !found[0]; i++)
				if (exists(g.gl_pathv[i]) &&
				    access(g.gl_pathv[i], X_OK) == 0)
					snprintf(found, sizeof(found), "%s",
						 g.gl_pathv[i]);
			globfree(&g);
		}
		if (!found[0] && access("/usr/bin/perf", X_OK) == 0)
			snprintf(found, sizeof(found), "/usr/bin/perf");
		if (!found[0])
			return kb_err_set(err, KB_EFAIL,
					  "workload.profile needs perf in the guest, and this host has none to put in its initramfs: install linux-perf, or give guest.image with linux-perf among its packages");
		bin = found;
	}
	base = strrchr(bin, '/');
	base = base ? base + 1 : bin;
	snprintf(dst, sizeof(dst), "usr/bin/%s", base);
	if ((ret = add_file(p, bin, dst, 0755, err)))
		return ret;
	return add_libs(p, bin, err);
}

static int make_plan(struct plan *p, const struct kb_workload *w,
		     unsigned runs, const struct kb_initramfs_opts *o,
		     struct kb_err *err)
{
	const char *busybox = o->busybox ? o->busybox : "/bin/busybox";
	const char *fio = o->fio ? o->fio : "/usr/bin/fio";
	int ret;

	p->init_path = o->init ? kb_strdup(o->init) : find_init();
	if (!p->init_path)
		return kb_err_set(err, KB_EFAIL,
				  "cannot find the guest's init script 'guests/init': set KBISECT_GUESTS to the guests folder");
	if ((ret = kb_buf_read_file(&p->init, p->init_path, MAX_SCRIPT, err)))
		return ret;
	if (runs == 0 || runs > KB_MATRIX_MAX_RUNS)
		return kb_err_set(err, KB_EFAIL, "cannot run the workload %u times",
				  runs);
	if ((ret = add_file(p, busybox, "bin/busybox", 0755, err)))
		return ret;
	if (w->kind == KB_WORKLOAD_COMMAND) {
		kb_buf_addf(&p->conf, "kind=command\nruns=%u\n", runs);
		if ((ret = kb_initramfs_workload_text(w, &p->command, err)))
			return ret;
	} else {
		kb_buf_addf(&p->conf, "kind=fio\nruns=%u\n", runs);
		if ((ret = kb_initramfs_workload_text(w, &p->job, err)) ||
		    (ret = add_file(p, fio, "usr/bin/fio", 0755, err)) ||
		    (ret = add_libs(p, fio, err)))
			return ret;
	}
	conf_more(&p->conf, w);
	if (w->profile_hz && !o->root_image && (ret = add_perf(p, o, err)))
		return ret;
	if (o->root_image)
		kb_buf_addf(&p->conf, "root=kbisect-root\n");
	if (o->modules &&
	    (ret = add_modules(p, o->modules, o->root_image, err)))
		return ret;
	return 0;
}

/* ---- the cache key ----------------------------------------------------- */

static void hash_str(struct kb_sha256 *h, const char *s, size_t n)
{
	unsigned char len[8];
	size_t i;

	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)((unsigned long long)n >> (8 * i));
	kb_sha256_update(h, len, sizeof(len));
	kb_sha256_update(h, s, n);
}

static int hash_file(struct kb_sha256 *h, const char *path,
		     struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	if (!(ret = kb_buf_read_file(&b, path, 512u << 20, err)))
		hash_str(h, b.buf, b.len);
	kb_buf_release(&b);
	return ret;
}

/*
 * The digest of everything that goes in: script, workload files, the
 * busybox and fio binaries themselves, and the other files by path, size
 * and modification time (hashing 80 MB of libraries on every boot would
 * cost more than it could catch).
 */
static int key(const struct plan *p, char hex[KB_SHA256_HEX_LEN + 1],
	       struct kb_err *err)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[KB_SHA256_LEN];
	struct kb_sha256 h;
	char meta[64];
	size_t i;
	int ret;

	kb_sha256_init(&h);
	hash_str(&h, FORMAT_VERSION, strlen(FORMAT_VERSION));
	hash_str(&h, p->init.buf, p->init.len);
	hash_str(&h, p->conf.buf, p->conf.len);
	hash_str(&h, p->job ? p->job : "", p->job ? strlen(p->job) : 0);
	hash_str(&h, p->command ? p->command : "",
		 p->command ? strlen(p->command) : 0);
	hash_str(&h, p->modules.buf, p->modules.len);
	for (i = 0; i < p->n; i++) {
		const struct entry *e = &p->files[i];

		hash_str(&h, e->dst, strlen(e->dst));
		if (!strcmp(e->dst, "bin/busybox") ||
		    !strcmp(e->dst, "usr/bin/fio")) {
			if ((ret = hash_file(&h, e->src, err)))
				return ret;
			continue;
		}
		snprintf(meta, sizeof(meta), "%lld %lld.%09ld",
			 (long long)e->st.st_size,
			 (long long)e->st.st_mtim.tv_sec,
			 (long)e->st.st_mtim.tv_nsec);
		hash_str(&h, meta, strlen(meta));
	}
	kb_sha256_final(&h, d);
	for (i = 0; i < KB_SHA256_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[KB_SHA256_HEX_LEN] = '\0';
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

static int write_all(int fd, const char *path, const void *data, size_t len,
		     struct kb_err *err)
{
	const char *p = data;

	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return kb_err_set(err, KB_EFAIL, "cannot write '%s': %s",
					  path, strerror(errno));
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

struct writer {
	int fd;
	const char *path;
	struct kb_buf b;  /* pending bytes */
	unsigned ino;
	size_t ndirs;
	char **dirs;      /* folders already in the archive */
	size_t total;     /* bytes written */
};

static int flush(struct writer *wr, struct kb_err *err)
{
	int ret = write_all(wr->fd, wr->path, wr->b.buf, wr->b.len, err);

	wr->total += wr->b.len;
	kb_buf_reset(&wr->b);
	return ret;
}

/* Add the folders above @name (and @name itself when @self). */
static void dirs_for(struct writer *wr, const char *name, int self)
{
	char *copy = kb_strdup(name), *s;
	size_t i;

	for (s = copy;; s++) {
		int end = *s == '\0';

		if (*s != '/' && !(end && self)) {
			if (end)
				break;
			continue;
		}
		*s = '\0';
		for (i = 0; i < wr->ndirs; i++)
			if (!strcmp(wr->dirs[i], copy))
				break;
		if (i == wr->ndirs && *copy) {
			wr->dirs = kb_reallocarray(wr->dirs, wr->ndirs + 1,
						   sizeof(*wr->dirs));
			wr->dirs[wr->ndirs++] = kb_strdup(copy);
			kb_initramfs_cpio_add(&wr->b, wr->ino++, copy,
					      S_IFDIR | 0755, NULL, 0);
		}
		if (end)
			break;
		*s = '/';
	}
	free(copy);
}

static int put_data(struct writer *wr, const char *name, unsigned mode,
		    const char *data, size_t len, struct kb_err *err)
{
	dirs_for(wr, name, 0);
	kb_initramfs_cpio_add(&wr->b, wr->ino++, name, mode, data, len);
	return wr->b.len > (1u << 20) ? flush(wr, err) : 0;
}

static int put_file(struct writer *wr, const struct entry *e,
		    struct kb_err *err)
{
	char chunk[1 << 16];
	size_t left = (size_t)e->st.st_size;
	int fd, ret;

	dirs_for(wr, e->dst, 0);
	header(&wr->b, wr->ino++, e->dst, e->mode, left, 0, 0);
	if ((ret = flush(wr, err)))
		return ret;
	fd = open(e->src, O_RDONLY);
	if (fd < 0)
		return kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", e->src,
				  strerror(errno));
	while (left) {
		size_t want = left < sizeof(chunk) ? left : sizeof(chunk);
		ssize_t r = read(fd, chunk, want);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return kb_err_set(err, KB_EFAIL,
					  "cannot read '%s': %s", e->src,
					  r < 0 ? strerror(errno)
						: "file shrank");
		}
		if ((ret = write_all(wr->fd, wr->path, chunk, (size_t)r,
				     err))) {
			close(fd);
			return ret;
		}
		wr->total += (size_t)r;
		left -= (size_t)r;
	}
	close(fd);
	while ((wr->total + wr->b.len) % 4)
		kb_buf_addch(&wr->b, '\0');
	return flush(wr, err);
}

static int write_cpio(const struct plan *p, int fd, const char *path,
		      struct kb_err *err)
{
	static const char *const top[] = { "bin", "dev", "proc", "sys",
					   "tmp", "sbin", "usr/bin",
					   "usr/sbin", "kbisect" };
	struct writer wr;
	size_t i;
	int ret = 0;

	memset(&wr, 0, sizeof(wr));
	wr.fd = fd;
	wr.path = path;
	wr.ino = 1;
	kb_buf_init(&wr.b);
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		dirs_for(&wr, top[i], 1);
	kb_initramfs_cpio_add_dev(&wr.b, wr.ino++, "dev/console",
				  S_IFCHR | 0600, 5, 1);
	if ((ret = put_data(&wr, "init", S_IFREG | 0755, p->init.buf,
			    p->init.len, err)) ||
	    (ret = put_data(&wr, "kbisect/workload.conf", S_IFREG | 0644,
			    p->conf.buf, p->conf.len, err)) ||
	    (ret = put_data(&wr, "kbisect/modules", S_IFREG | 0644,
			    p->modules.buf, p->modules.len, err)))
		goto out;
	if (p->job && (ret = put_data(&wr, "kbisect/job.fio", S_IFREG | 0644,
				      p->job, strlen(p->job), err)))
		goto out;
	if (p->command &&
	    (ret = put_data(&wr, "kbisect/command", S_IFREG | 0644,
			    p->command, strlen(p->command), err)))
		goto out;
	for (i = 0; i < p->n; i++)
		if ((ret = put_file(&wr, &p->files[i], err)))
			goto out;
	kb_initramfs_cpio_trailer(&wr.b);
	ret = flush(&wr, err);
out:
	for (i = 0; i < wr.ndirs; i++)
		free(wr.dirs[i]);
	free(wr.dirs);
	kb_buf_release(&wr.b);
	return ret;
}

/* `gzip -n -c @path` into @out; an image of MAX_IMAGE or more is refused. */
static int gzip_file(const char *path, struct kb_buf *out, struct kb_err *err)
{
	const char *argv[] = { "gzip", "-n", "-c", path, NULL };
	struct kb_program prog = {
		.argv = argv,
		.out = KB_PROGRAM_PIPE,
		.err = KB_PROGRAM_NULL,
	};
	int status, ret;

	if ((ret = kb_program_capture(&prog, out, MAX_IMAGE, &status, err)))
		return ret;
	if (status != 0)
		return kb_err_set(err, KB_EFAIL,
				  "'gzip -n -c %s' failed (status %d)", path,
				  status);
	if (out->len >= MAX_IMAGE)
		return kb_err_set(err, KB_EFAIL,
				  "the initramfs '%s' is %u MiB or more compressed",
				  path, MAX_IMAGE >> 20);
	return 0;
}

int kb_initramfs_build(const struct kb_workload *w, unsigned runs,
		       const struct kb_initramfs_opts *opts,
		       const char *cache_dir, char **path_out,
		       struct kb_err *err)
{
	struct kb_initramfs_opts defaults = KB_INITRAMFS_OPTS_INIT;
	struct plan *p = kb_calloc(1, sizeof(*p));
	char hex[KB_SHA256_HEX_LEN + 1];
	struct kb_buf gz = KB_BUF_INIT;
	char *final = NULL, *tmp = NULL;
	int fd = -1, ret;

	*path_out = NULL;
	if (!opts)
		opts = &defaults;
	kb_buf_init(&p->init);
	kb_buf_init(&p->conf);
	kb_buf_init(&p->modules);
	if ((ret = make_plan(p, w, runs, opts, err)) ||
	    (ret = key(p, hex, err)))
		goto out;
	if ((ret = kb_mkdir_p(cache_dir, err)))
		goto out;
	final = kb_asprintf("%s/initramfs-%.32s.cpio.gz", cache_dir, hex);
	if (exists(final))
		goto done;
	tmp = kb_asprintf("%s/.tmp-%.32s-XXXXXX", cache_dir, hex);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot create a file in '%s': %s",
				 cache_dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if ((ret = write_cpio(p, fd, tmp, err)))
		goto out;
	if (close(fd) < 0) {
		fd = -1;
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", tmp,
				 strerror(errno));
		goto out;
	}
	fd = -1;
	/* compressed into memory, then written whole: a reader never sees
	 * part of an image; 0644 since hypervisors read it as another user
	 * (libvirt-qemu) */
	if ((ret = gzip_file(tmp, &gz, err)) ||
	    (ret = kb_write_atomic(final, gz.buf, gz.len, 0644, err)))
		goto out;
done:
	*path_out = final;
	final = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	kb_buf_release(&gz);
	free(final);
	plan_release(p);
	free(p);
	return ret;
}

int kb_initramfs_kernel_version(const char *image, char *out, size_t n)
{
	unsigned char buf[0x8000];
	ssize_t got = 0, r;
	size_t at, len;
	int fd = open(image, O_RDONLY | O_CLOEXEC);

	if (!n)
		return -1;
	out[0] = '\0';
	if (fd < 0)
		return -1;
	while (got < (ssize_t)sizeof(buf) &&
	       (r = read(fd, buf + got, sizeof(buf) - (size_t)got)) > 0)
		got += r;
	close(fd);
	/* the boot protocol's setup header: "HdrS" at 0x202, version >=
	 * 2.00, kernel_version at 0x20e (an offset from 0x200) */
	if (got < 0x210 || memcmp(buf + 0x202, "HdrS", 4) ||
	    (buf[0x206] | buf[0x207] << 8) < 0x200)
		return -1;
	at = 0x200 + (size_t)(buf[0x20e] | buf[0x20f] << 8);
	if (at <= 0x200 || at >= (size_t)got)
		return -1;
	for (len = 0; at + len < (size_t)got && len + 1 < n; len++) {
		unsigned char c = buf[at + len];

		if (c <= ' ' || c >= 0x7f || c == '/')
			break;
		out[len] = (char)c;
	}
	out[len] = '\0';
	if (!len || !strcmp(out, ".") || !strcmp(out, "..")) {
		out[0] = '\0';
		return -1;
	}
	return 0;
}

/* "@root/lib/modules/@version" when it holds a modules.dep, else NULL. */
static char *modules_dir(const char *root, const char *version)
{
	char *dir = kb_asprintf("%s/lib/modules/%s", root, version);
	char *dep = kb_asprintf("%s/modules.dep", dir);
	int ok = exists(dep);

	free(dep);
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *kb_initramfs_modules_for(const char *kernel_image)
{
	const char *b = strrchr(kernel_image, '/');
	char version[256];

	if (kb_initramfs_kernel_version(kernel_image, version,
					sizeof(version)) == 0)
		return modules_dir("", version);
	/* not a bzImage (a vmlinux): its file name */
	b = b ? b + 1 : kernel_image;
	if (strncmp(b, "vmlinuz-", 8) != 0 && strncmp(b, "vmlinux-", 8) != 0)
		return NULL;
	if (!b[8] || strchr(b + 8, '/') || !strcmp(b + 8, "..") ||
	    !strcmp(b + 8, "."))
		return NULL;
	return modules_dir("", b + 8);
}

int kb_initramfs_check_modules(const char *image, int xen, int root_image,
			       const char *root, struct kb_err *err)
{
	static const char *const qemu_need[] = { "VIRTIO_PCI", "VIRTIO_BLK" };
	static const char *const xen_need[] = { "XEN_BLKFRONT" };
	const char *const *need = xen ? xen_need : qemu_need;
	size_t nneed = xen ? 1 : 2, i;
	struct kb_buf cfg = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char version[256], *dir, *file = NULL, *line = NULL;
	const char *missing = NULL;
	int ret = 0;

	if (kb_initramfs_kernel_version(image, version, sizeof(version)))
		return 0; /* not a bzImage: cannot tell */
	if (!root)
		root = "";
	if ((dir = modules_dir(root, version))) {
		free(dir);
		return 0;
	}
	file = kb_asprintf("%s/boot/config-%s", root, version);
	if (kb_buf_read_file(&cfg, file, 16u << 20, &ignored))
		goto out; /* no config: cannot tell */
	for (i = 0; i < nneed + (root_image ? 1 : 0) && !missing; i++) {
		const char *opt = i < nneed ? need[i] : "EXT4_FS";

		free(line);
		line = kb_asprintf("\nCONFIG_%s=m\n", opt);
		if (strstr(cfg.buf, line) ||
		    !strncmp(cfg.buf, line + 1, strlen(line + 1)))
			missing = opt;
	}
	if (missing)
		ret = kb_err_set(err, KB_EINPUT,
				 "kernel '%s' (%s) has CONFIG_%s=m (%s), but %s/lib/modules/%s has no modules.dep: every boot would miss its driver. Install the kernel's modules, or use a kernel with it built in",
				 image, version, missing, file, root, version);
out:
	kb_buf_release(&cfg);
	free(line);
	free(file);
	return ret;
}

char *kb_initramfs_default_cache(void)
{
	return kb_cache_dir("initramfs");
}
