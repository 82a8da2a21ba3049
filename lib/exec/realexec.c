#include "realexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "build.h"
#include "console.h"
#include "domxml.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "guest.h"
#include "guestimage.h"
#include "kconfig.h"
#include "mem.h"
#include "plan.h"
#include "program.h"
#include "sha256.h"
#include "variant.h"
#include "banned.h"

struct realexec {
	const struct kb_matrix *m;
	struct kb_guest_conn *conn;
	struct kb_realexec_opts opts;
	char *env;           /* the host's environment, JSON */
	/* the last initramfs made, reused while runs and modules match */
	char *initrd;
	unsigned initrd_runs;
	char *initrd_modules;
	char *workload;      /* what that initramfs runs (its job or command) */
	char *initrd_conf;   /* and the copies and sysctls it runs them with */
	char *image;         /* guest.image: the root disk image, got at the
			      * first boot that needs it (guestimage.h) */
	/* opts.pool: files shipped to the host's pool, most recent last */
	struct shipped {
		char *local, *remote;
	} shipped[8];
	size_t nshipped;
};

/* ---- sizes and timeouts ------------------------------------------------- */

/* The value of fio option @key in @w, or NULL. */
static const char *fio_opt(const struct kb_workload *w, const char *key)
{
	size_t i;

	if (w->kind != KB_WORKLOAD_FIO)
		return NULL;
	for (i = 0; i < w->nfio; i++)
		if (!strcmp(w->fio[i].key, key))
			return w->fio[i].value;
	return NULL;
}

/*
 * A number with an optional unit suffix: one of @units, each @step times
 * the one before ("64m", "64mb", "64mib", "5s", "2min").  Returns -1 when
 * malformed.
 */
static int scaled(const char *s, const char *units, double step,
		  double *out)
{
	const char *u;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	if (*end) {
		u = strchr(units, *end | 0x20);
		if (!u)
			return -1;
		for (; u > units; u--)
			v *= step;
		end++;
		if (*end && strcmp(end, "b") && strcmp(end, "ib") &&
		    strcmp(end, "ec") && strcmp(end, "in"))
			return -1;
	}
	*out = v;
	return 0;
}

unsigned kb_realexec_workload_timeout(const struct kb_workload *w,
				      unsigned runs)
{
	const char *rt = fio_opt(w, "runtime");
	double secs, t;

	if (w->timeout_s)
		return w->timeout_s;
	if (!rt || !runs)
		return 600;
	/* fio runtimes are seconds unless suffixed (s, m, h; ms, us) */
	if (strstr(rt, "ms") || strstr(rt, "us")) {
		secs = 1;
	} else if (scaled(rt, "smh", 60, &secs)) {
		return 600;
	}
	t = (double)runs * (2 * secs + 30);
	if (t < 60)
		t = 60;
	if (t > 7 * 86400)
		t = 7 * 86400;
	return (unsigned)t;
}

unsigned long long kb_realexec_scratch_bytes(const struct kb_workload *w)
{
	const char *size = fio_opt(w, "size");
	double v;

	if (!size || scaled(size, "bkmgt", 1024, &v) ||
	    v > (double)(1ull << 50))
		return 256ull << 20;
	v += 16 << 20;
	if (v < (64 << 20))
		v = 64 << 20;
	/* whole MiB */
	return ((unsigned long long)v + (1 << 20) - 1) & ~((1ull << 20) - 1);
}

const char *kb_realexec_cmdline(const struct kb_guest *g)
{
	/* panic=-1: a panicking guest reboots at once, and on_reboot is
	 * destroy; quiet keeps the emulated serial port from slowing the
	 * boot (panics and warnings still print). */
	if (g->hypervisor == KB_HV_XEN && strcmp(g->mode, "hvm"))
		return "console=hvc0 panic=-1 quiet";
	return "console=ttyS0 panic=-1 quiet";
}

/* ---- build: prebuilt kernels -------------------------------------------- */

/*
 * The evidence of prebuilt image @img (db/0007): its SHA-256, and the
 * config a distro kernel ".../vmlinuz-VERSION" has beside it,
 * ".../config-VERSION", when there is one.  An image that cannot be read
 * fails the build.
 */
static void prebuilt_evidence(const char *img, struct kb_build_result *out)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	const char *base = strrchr(img, '/');
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf cfg = KB_BUF_INIT;
	char *path;

	if (kb_sha256_file(img, hex, &err)) {
		out->status = KB_BUILD_FAILED;
		out->reason = kb_strdup(err.msg);
		return;
	}
	out->image_sha256 = kb_strdup(hex);
	base = base ? base + 1 : img;
	if (strncmp(base, "vmlinuz-", 8) || !base[8])
		return;
	path = kb_asprintf("%.*sconfig-%s", (int)(base - img), img, base + 8);
	if (kb_buf_read_file(&cfg, path, 16u << 20, &err) == 0)
		out->config_text = kb_strndup(cfg.buf, cfg.len);
	kb_buf_release(&cfg);
	free(path);
}

/* The prebuilt image @v boots, or NULL when it needs a build. */
static const char *prebuilt(const struct realexec *x,
			    const struct kb_variant *v)
{
	const char *img = kb_variant_get(v, "kernel.image");
	size_t i;

	for (i = 0; i < v->nsettings; i++)
		if (v->settings[i].kind == KB_FACTOR_KCONFIG ||
		    !strcmp(v->settings[i].name, "kernel.rev"))
			return NULL;
	if (img)
		return img;
	return kb_matrix_source(x->m)->kernel;
}

const char *kb_realexec_prebuilt(const struct kb_matrix *m,
				 const struct kb_variant *v)
{
	struct realexec x;

	memset(&x, 0, sizeof(x));
	x.m = m;
	return prebuilt(&x, v);
}

int kb_realexec_check_kernels(const struct kb_plan *p, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	struct realexec x;
	const char *last = NULL;
	size_t i;
	int ret = 0;

	memset(&x, 0, sizeof(x));
	x.m = m;
	for (i = 0; i < kb_plan_nvariants(p) && !ret; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);
		const char *img = prebuilt(&x, v);

		if (!img || (last && !strcmp(img, last)))
			continue;
		last = img;
		ret = kb_initramfs_check_modules(
			img, v->guest.hypervisor == KB_HV_XEN,
			v->guest.image != NULL, NULL, err);
	}
	return ret;
}

int kb_realexec_check_source(const struct kb_plan *p, struct kb_err *err)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_source *src = kb_matrix_source(m);
	struct realexec x;
	struct stat st;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.m = m;
	for (i = 0; i < kb_plan_nvariants(p); i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

		if (prebuilt(&x, v))
			continue;
		if (!src->tree)
			return kb_err_set(err, KB_EINPUT,
					  "%s: variant %u (%s) needs a kernel built from source, and the matrix has no source.tree: give source.tree (a kernel tree), source.kernel (a built image), or run it on the performance model (--model)",
					  kb_matrix_file(m), v->idx, v->label);
		if (stat(src->tree, &st) < 0)
			return kb_err_set(err, KB_EINPUT,
					  "%s: source.tree '%s' does not exist: a real run builds kernels from it (the performance model needs none: --model)",
					  kb_matrix_file(m), src->tree);
		if (!S_ISDIR(st.st_mode))
			return kb_err_set(err, KB_EINPUT,
					  "%s: source.tree '%s' is not a folder: a real run builds kernels from it",
					  kb_matrix_file(m), src->tree);
		break; /* one tree for all */
	}
	return 0;
}

int kb_realexec_check_guests(const struct kb_plan *p, struct kb_err *err)
{
	size_t i;

	for (i = 0; i < kb_plan_nvariants(p); i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);
		const struct kb_guest *g = &v->guest;

		if (g->hypervisor == KB_HV_XEN && g->npassthrough &&
		    !strcmp(g->mode, "pvh"))
			return kb_err_set(
				err, KB_EINPUT,
				"%s:%u:%u: variant %zu is a Xen PVH guest with %zu PCI passthrough device%s: Xen's toolstack refuses that (libxl 4.17: \"passthrough not yet supported for x86 PVH guests\"); give the passthrough to guest.mode pv",
				kb_matrix_file(kb_plan_matrix(p)),
				g->passthrough_loc.line, g->passthrough_loc.col,
				i, g->npassthrough,
				g->npassthrough == 1 ? "" : "s");
	}
	return 0;
}

/*
 * Build @v from source.tree as its plan resolved it: the given plan when
 * @v is one of its resolved variants, else a plan of @v alone.
 */
static int from_source(const struct realexec *x, const struct kb_variant *v,
		       struct kb_build_result *out, struct kb_err *err)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	const struct kb_plan *p = x->opts.plan;
	struct kb_plan *alone = NULL;
	size_t i = v->idx;
	int ret;

	if (p && kb_plan_is_resolved(p) && kb_plan_variant(p, i) == v)
		return kb_build_plan_variant(p, i, NULL,
					     x->opts.build_progress,
					     x->opts.build_arg, out, NULL, err);
	if (!kb_matrix_source(x->m)->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: variant %u (%s) needs a kernel built from source, and the matrix has no source.tree",
				  kb_matrix_file(x->m), v->idx, v->label);
	ro.base_config = x->opts.base_config;
	if ((ret = kb_plan_new_variant(x->m, v, &alone, err)) == 0 &&
	    (ret = kb_plan_resolve(alone, &ro, err)) == 0) {
		if (x->opts.require_held &&
		    (out->reason = kb_kconfig_not_held(
			     kb_plan_resolution(alone, 0))))
			out->status = KB_BUILD_FAILED;
		else
			ret = kb_build_plan_variant(
				alone, 0, NULL, x->opts.build_progress,
				x->opts.build_arg, out, NULL, err);
	}
	kb_plan_free(alone);
	return ret;
}

static int build(void *self, const struct kb_variant *v,
		 struct kb_build_result *out, struct kb_err *err)
{
	struct realexec *x = self;
	const char *img = prebuilt(x, v);
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!img) /* builds from source.tree: lib/build.h */
		return from_source(x, v, out, err);
	if (stat(img, &st) < 0 || !S_ISREG(st.st_mode)) {
		out->status = KB_BUILD_FAILED;
		out->reason = kb_asprintf("kernel image '%s' is not a file",
					  img);
		return 0;
	}
	out->status = KB_BUILD_OK;
	out->image = kb_strdup(img);
	prebuilt_evidence(img, out);
	return 0;
}

/* ---- boot ---------------------------------------------------------------- */

/* The copies and sysctls of variant workload @w, as a text to compare. */
static char *run_conf(const struct kb_workload *w)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	kb_buf_addf(&b, "copies=%u\n", w->copies);
	for (i = 0; i < w->nsysctl; i++)
		kb_buf_addf(&b, "%s=%s\n", w->sysctl[i].name,
			    w->sysctl[i].value);
	return kb_buf_detach(&b);
}

static int get_initrd(struct realexec *x, const struct kb_workload *w,
		      const char *kernel, unsigned runs, const char **out,
		      struct kb_err *err)
{
	struct kb_initramfs_opts io = x->opts.initramfs;
	char *modules = NULL, *cache = NULL, *path = NULL, *text = NULL;
	char *conf = run_conf(w);
	int ret;

	if (!io.modules)
		io.modules = modules = kb_initramfs_modules_for(kernel);
	io.root_image = kb_matrix_guest(x->m)->image != NULL;
	/* what it runs, for the boots' evidence (db/0007) */
	if ((ret = kb_initramfs_workload_text(w, &text, err)))
		goto out;
	if (x->initrd && x->initrd_runs == runs &&
	    !strcmp(x->initrd_modules ? x->initrd_modules : "",
		    io.modules ? io.modules : "") &&
	    !strcmp(x->workload ? x->workload : "", text) &&
	    !strcmp(x->initrd_conf ? x->initrd_conf : "", conf)) {
		*out = x->initrd;
		goto out;
	}
	if (!x->opts.initramfs_cache)
		cache = kb_initramfs_default_cache();
	ret = kb_initramfs_build(w, runs, &io,
				 cache ? cache : x->opts.initramfs_cache,
				 &path, err);
	if (ret == 0) {
		free(x->workload);
		x->workload = text;
		text = NULL;
		free(x->initrd_conf);
		x->initrd_conf = conf;
		conf = NULL;
		free(x->initrd);
		free(x->initrd_modules);
		x->initrd = path;
		x->initrd_runs = runs;
		x->initrd_modules = io.modules ? kb_strdup(io.modules) : NULL;
		*out = x->initrd;
	}
out:
	free(conf);
	free(text);
	free(cache);
	free(modules);
	return ret;
}

/* A boot's scratch folder: made 0755 so that the hypervisor's user can
 * reach the files in it. */
static int make_workdir(const struct realexec *x, char **out,
			struct kb_err *err)
{
	const char *base = x->opts.work_dir;
	char *dir;

	*out = NULL;
	if (!base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/var/tmp";
	dir = kb_asprintf("%s/kbisect-boot-XXXXXX", base);
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) {
		int ret = kb_err_set(err, KB_EFAIL,
				     "cannot make a boot folder in '%s': %s",
				     base, strerror(errno));

		free(dir);
		return ret;
	}
	*out = dir;
	return 0;
}

static void remove_workdir(char *dir, const char *const *files, size_t n)
{
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < n; i++)
		if (files[i])
			unlink(files[i]);
	rmdir(dir);
	free(dir);
}

/*
 * Copies @src into the boot folder @dir as @name (*@out, 0644): kernels and
 * initramfs images live in the invoking user's cache (~/.cache/kbisect),
 * which the hypervisor's user (libvirt-qemu) may not be able to reach
 * (/root is 0700), while the boot folder is made for it.
 */
static int copy_in(const char *src, const char *dir, const char *name,
		   char **out, struct kb_err *err)
{
	char *dst = kb_asprintf("%s/%s", dir, name);
	char buf[65536];
	int in = -1, fd = -1, ret = 0;
	ssize_t n = 0;

	*out = NULL;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", src,
				 strerror(errno));
		goto out;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (n > 0) {
			ssize_t w = write(fd, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				goto fail;
			p += w;
			n -= w;
		}
	}
	if (n < 0 || fchmod(fd, 0644) < 0)
		goto fail;
	n = close(fd);
	fd = -1;
	if (n < 0)
		goto fail;
	*out = dst;
	dst = NULL;
	goto out;
fail:
	ret = kb_err_set(err, KB_EFAIL, "cannot copy '%s' to '%s': %s", src,
			 dst, strerror(errno));
	unlink(dst);
out:
	if (fd >= 0)
		close(fd);
	if (in >= 0)
		close(in);
	free(dst);
	return ret;
}

static int make_scratch(const char *path, unsigned long long bytes,
			struct kb_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return kb_err_set(err, KB_EFAIL,
				  "cannot make scratch disk '%s': %s", path,
				  strerror(errno));
	rc = posix_fallocate(fd, 0, (off_t)bytes);
	if (rc)
		rc = ftruncate(fd, (off_t)bytes) < 0 ? errno : 0;
	close(fd);
	if (rc)
		return kb_err_set(err, KB_EFAIL,
				  "cannot size scratch disk '%s' to %llu bytes: %s",
				  path, bytes, strerror(rc));
	return 0;
}

/*
 * The scratch images a guest of shape @g gets for workload @w:
 * guest.scratch_disks, else one for a kvm/qemu fio guest without
 * guest.disks.
 */
static unsigned nscratch(const struct kb_guest *g, const struct kb_workload *w)
{
	if (g->hypervisor == KB_HV_XEN)
		return 0;
	if (g->scratch_disks)
		return g->scratch_disks;
	return !g->ndisks && w->kind != KB_WORKLOAD_COMMAND;
}

/* ---- shipping to the host's storage pool (opts.pool) ----------------- */

#define SHIP_PREFIX "kb-f-"
#define BOOT_PREFIX "kb-boot-"

/*
 * Local file @local as a volume of the host's pool: *@remote its path
 * there (borrowed from @x).  The volume is named after the file's
 * content, so each file crosses the connection once per host; the pool
 * is then trimmed to opts.pool_max_bytes.
 */
static int ship_file(struct realexec *x, const char *local, const char *kind,
		     const char **remote, struct kb_err *err)
{
	char hex[KB_SHA256_HEX_LEN + 1], *name = NULL, *path = NULL;
	const char *keep[8];
	unsigned removed = 0;
	size_t i;
	int shipped = 0, ret;

	for (i = 0; i < x->nshipped; i++)
		if (!strcmp(x->shipped[i].local, local)) {
			*remote = x->shipped[i].remote;
			return 0;
		}
	if ((ret = kb_sha256_file(local, hex, err)))
		return ret;
	name = kb_asprintf(SHIP_PREFIX "%s-%.32s", kind, hex);
	if ((ret = kb_guest_ship(x->conn, local, name, &path, &shipped, err)))
		goto out;
	if (x->nshipped == sizeof(x->shipped) / sizeof(x->shipped[0])) {
		free(x->shipped[0].local);
		free(x->shipped[0].remote);
		memmove(x->shipped, x->shipped + 1,
			(x->nshipped - 1) * sizeof(x->shipped[0]));
		x->nshipped--;
	}
	x->shipped[x->nshipped].local = kb_strdup(local);
	x->shipped[x->nshipped].remote = path;
	*remote = path;
	x->nshipped++;
	if (x->opts.image_note && shipped) {
		char *msg = kb_asprintf("shipped %s to pool %s on %s", local,
					x->opts.pool, kb_guest_uri(x->conn));

		x->opts.image_note(msg, x->opts.build_arg);
		free(msg);
	}
	if (shipped) { /* the bound: never what this run still uses */
		for (i = 0; i < x->nshipped; i++) {
			const char *b = strrchr(x->shipped[i].remote, '/');

			keep[i] = b ? b + 1 : x->shipped[i].remote;
		}
		ret = kb_guest_pool_trim(x->conn, SHIP_PREFIX,
					 x->opts.pool_max_bytes
						 ? x->opts.pool_max_bytes
						 : 8ull << 30,
					 keep, x->nshipped, &removed, err);
	}
out:
	free(name);
	return ret;
}

/* What a boot made in the host's pool, deleted after it. */
struct boot_vols {
	unsigned nscratch;
	char **scratch_names, **scratch; /* NULL-terminated */
	char *root_name, *root;
};

static int ship_boot(struct realexec *x, const struct kb_variant *v,
		     const struct kb_workload *w, const char *name,
		     const char **kernel, const char **initrd,
		     struct boot_vols *bv, struct kb_err *err)
{
	unsigned ns = nscratch(&v->guest, w), k;
	const char *image = NULL;
	struct stat st;
	int ret;

	if ((ret = ship_file(x, *kernel, "kernel", kernel, err)) ||
	    (ret = ship_file(x, *initrd, "initrd", initrd, err)) ||
	    (x->image && (ret = ship_file(x, x->image, "image", &image, err))))
		return ret;
	if (ns) {
		bv->scratch_names = kb_calloc(ns + 1, sizeof(char *));
		bv->scratch = kb_calloc(ns + 1, sizeof(char *));
	}
	for (k = 0; k < ns; k++) {
		bv->scratch_names[k] = kb_asprintf(BOOT_PREFIX "%s-scratch%u.raw",
						   name, k + 1);
		bv->nscratch = k + 1;
		if ((ret = kb_guest_volume_new(x->conn, bv->scratch_names[k],
					       kb_realexec_scratch_bytes(w),
					       NULL, &bv->scratch[k], err)))
			return ret;
	}
	if (image) {
		if (stat(x->image, &st) < 0)
			return kb_err_set(err, KB_EFAIL, "cannot stat '%s': %s",
					  x->image, strerror(errno));
		bv->root_name = kb_asprintf(BOOT_PREFIX "%s-root.qcow2", name);
		if ((ret = kb_guest_volume_new(x->conn, bv->root_name,
					       (unsigned long long)st.st_size,
					       image, &bv->root, err)))
			return ret;
	}
	return 0;
}

static void boot_vols_release(struct realexec *x, struct boot_vols *bv)
{
	struct kb_err ignored = KB_ERR_INIT;
	unsigned k;

	for (k = 0; k < bv->nscratch; k++) {
		kb_guest_volume_delete(x->conn, bv->scratch_names[k], &ignored);
		free(bv->scratch_names[k]);
		free(bv->scratch[k]);
	}
	if (bv->root_name)
		kb_guest_volume_delete(x->conn, bv->root_name, &ignored);
	free(bv->scratch_names);
	free(bv->scratch);
	free(bv->root_name);
	free(bv->root);
	memset(bv, 0, sizeof(*bv));
}

/* The guest's root disk image (guest.image), found or built once. */
static int get_image(struct realexec *x, struct kb_err *err)
{
	const struct kb_guest_image *im = kb_matrix_guest(x->m)->image;
	const struct kb_workload *w = kb_matrix_workload(x->m);
	char *cache = NULL, *msg;
	double t0 = kb_monotime();
	int built = 0, ret;

	if (x->image || !im)
		return 0;
	if (!x->opts.image_cache)
		cache = kb_guestimage_default_cache();
	if (x->opts.image_note) {
		msg = kb_asprintf("guest image: %zu package%s, %zu file%s",
				  im->npackages, im->npackages == 1 ? "" : "s",
				  w->nfiles, w->nfiles == 1 ? "" : "s");
		x->opts.image_note(msg, x->opts.build_arg);
		free(msg);
	}
	ret = kb_guestimage_get(im, w->nfiles, w->files, NULL,
				cache ? cache : x->opts.image_cache, &x->image,
				&built, err);
	if (!ret && x->opts.image_note) {
		msg = built ? kb_asprintf("guest image built in %.0f s: %s",
					  kb_monotime() - t0, x->image)
			    : kb_asprintf("guest image from the cache: %s",
					  x->image);
		x->opts.image_note(msg, x->opts.build_arg);
		free(msg);
	}
	free(cache);
	return ret;
}

/*
 * The boot's root disk: the cached image linked (or, across file
 * systems, copied) into @dir as root.img, under a copy-on-write overlay
 * @dir/root.qcow2 (*@overlay) that takes every write of the boot, so the
 * cached image never changes.  *@base is root.img.
 */
static int root_overlay(const char *image, const char *dir, char **base,
			char **overlay, struct kb_err *err)
{
	struct kb_buf out = KB_BUF_INIT;
	int status = 0, ret = 0;

	*overlay = NULL;
	*base = kb_asprintf("%s/root.img", dir);
	if (link(image, *base) < 0) {
		free(*base);
		if ((ret = copy_in(image, dir, "root.img", base, err)))
			return ret;
	}
	*overlay = kb_asprintf("%s/root.qcow2", dir);
	{
		const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2",
				       "-F", "raw", "-b", *base, *overlay, NULL };
		struct kb_program p = { .argv = argv,
					.out = KB_PROGRAM_PIPE,
					.err = KB_PROGRAM_PIPE };

		ret = kb_program_capture(&p, &out, 4096, &status, err);
	}
	if (!ret && status != 0)
		ret = kb_err_set(err, KB_EFAIL,
				 "qemu-img create of the root overlay failed (status %d): %s",
				 status, out.buf ? out.buf : "");
	kb_buf_release(&out);
	if (!ret && chmod(*overlay, 0644) < 0)
		ret = kb_err_set(err, KB_EFAIL, "cannot chmod '%s': %s",
				 *overlay, strerror(errno));
	return ret;
}

static void failed(struct kb_boot_result *out, enum kb_boot_status s,
		   const char *reason)
{
	out->status = s;
	free(out->reason);
	out->reason = kb_strdup(reason);
}

/* The scratch images of one boot, NULL-terminated; NULL-safe. */
static void scratch_free(char **scratch)
{
	size_t i;

	for (i = 0; scratch && scratch[i]; i++)
		free(scratch[i]);
	free(scratch);
}

/*
 * The domain XML of @v booting @kernel and @initrd with its files in
 * @dir: *@scratch the scratch images to make (a NULL-terminated array,
 * NULL when none: scratch.raw, scratch2.raw, ...; or, with @scratch_at,
 * those paths: volumes already made on the host), *@log the console log
 * file (or NULL); @root, when not NULL, the root disk's overlay
 * (guest.image), the last disk.  The kernel command line is kbisect's
 * (kb_realexec_cmdline()) and the variant's cmdline.* levels.
 */
static int describe(const struct kb_matrix *m, const struct kb_variant *v,
		    const char *kernel, const char *initrd, const char *root,
		    char *const *scratch_at, const char *dir, int stream,
		    const char *name, const char *comment, char ***scratch,
		    char **log, char **xml, struct kb_err *err)
{
	const struct kb_guest *g = &v->guest;
	const struct kb_workload *w = kb_matrix_workload(m);
	struct kb_domxml d = KB_DOMXML_INIT;
	struct kb_domxml_disk *disks;
	unsigned ns = nscratch(g, w), k;
	char *owner, *cmdline;
	struct stat st;
	size_t i, n;
	int ret;

	*scratch = NULL;
	*log = NULL;
	disks = kb_calloc(g->ndisks + ns + 2, sizeof(*disks));
	for (i = 0; i < g->ndisks; i++) {
		disks[i].path = g->disks[i];
		disks[i].block = stat(g->disks[i], &st) == 0 &&
				 S_ISBLK(st.st_mode);
	}
	n = g->ndisks;
	if (ns)
		*scratch = kb_calloc(ns + 1, sizeof(**scratch));
	for (k = 0; k < ns; k++) {
		if (scratch_at)
			(*scratch)[k] = kb_strdup(scratch_at[k]);
		else
			(*scratch)[k] =
				k ? kb_asprintf("%s/scratch%u.raw", dir, k + 1)
				  : kb_asprintf("%s/scratch.raw", dir);
		disks[n++].path = (*scratch)[k];
	}
	if (root) { /* last: the workload's disks keep their names */
		disks[n].path = root;
		disks[n++].format = "qcow2";
	}
	if (g->hypervisor == KB_HV_QEMU && !stream)
		*log = kb_asprintf("%s/console.log", dir);
	cmdline = g->cmdline ? kb_asprintf("%s %s", kb_realexec_cmdline(g),
					   g->cmdline)
			     : kb_strdup(kb_realexec_cmdline(g));
	d.name = name;
	d.guest = g;
	d.kernel = kernel;
	d.initrd = initrd;
	d.cmdline = cmdline;
	d.ndisks = n;
	d.disks = disks;
	d.console_log = *log;
	d.comment = comment;
	d.owner = owner = kb_guest_owner_self();
	ret = kb_domxml_build(&d, xml, err);
	free(owner);
	free(cmdline);
	free(disks);
	if (ret) {
		scratch_free(*scratch);
		free(*log);
		*scratch = NULL;
		*log = NULL;
	}
	return ret;
}

int kb_realexec_domxml(const struct kb_matrix *m, const struct kb_variant *v,
		       const char *built, char **xml, struct kb_err *err)
{
	struct realexec x;
	const char *kernel;
	char **scratch = NULL, *log = NULL, *name, *comment, *cached = NULL;
	int ret;

	memset(&x, 0, sizeof(x));
	x.m = m;
	kernel = prebuilt(&x, v);
	if (!kernel)
		kernel = built;
	if (!kernel && v->build_key &&
	    kb_build_cached_image(NULL, v->build_key, NULL, &cached))
		kernel = cached;
	comment = kb_asprintf(
		"variant %u: %s\n"
		"%s"
		"The initramfs is built at boot (placeholder path below); the\n"
		"scratch disk, the root disk's overlay (guest.image) and the\n"
		"console log live in a folder made for each boot\n"
		"(KBISECT-BOOT-DIR below), and the domain is named\n"
		"kbisect-DB-EXPERIMENT-VARIANT-BOOT (DB: the database's tag).",
		v->idx, v->label,
		kernel ? ""
		       : "The kernel is not built yet: its path is a placeholder.\n");
	name = kb_guest_name(NULL, 0, v->idx, 1);
	ret = describe(m, v,
		       kernel ? kernel
			      : "/KBISECT-NOT-BUILT/bzImage",
		       "/KBISECT-INITRAMFS/initramfs.cpio.gz",
		       v->guest.image ? "/KBISECT-BOOT-DIR/root.qcow2" : NULL,
		       NULL, "/KBISECT-BOOT-DIR", 0, name, comment, &scratch,
		       &log, xml, err);
	scratch_free(scratch);
	free(log);
	free(name);
	free(comment);
	free(cached);
	return ret;
}

/*
 * @ret, a failure of what this machine makes for a boot (its initramfs,
 * the guest image, the boot folder and the files in it, the domain
 * XML): KB_ELOCAL, so that no host is blamed for it (executor.h).
 */
static int here(int ret, struct kb_err *err)
{
	if (!ret)
		return 0;
	if (err)
		err->code = KB_ELOCAL;
	return KB_ELOCAL;
}

static int boot(void *self, const struct kb_variant *v,
		const struct kb_build_result *b, unsigned boot_no,
		unsigned runs, struct kb_boot_result *out, struct kb_err *err)
{
	struct realexec *x = self;
	struct kb_workload_inst wi;
	const struct kb_workload *w = &wi.w;
	struct kb_guest_run_opts ro = KB_GUEST_RUN_OPTS_INIT;
	struct kb_guest_usage usage;
	struct kb_console *console = NULL;
	struct kb_err gerr = KB_ERR_INIT;
	enum kb_guest_end end = KB_GUEST_END_CONSOLE;
	const char *kernel, *initrd = NULL;
	char *dir = NULL, **scratch = NULL, *log = NULL, *xml = NULL;
	char *name = NULL, *kernel_copy = NULL, *initrd_copy = NULL;
	char *root_base = NULL, *root = NULL;
	struct boot_vols bv = { 0, NULL, NULL, NULL, NULL };
	const char **files = NULL;
	double t0 = kb_monotime(), dur = 0;
	size_t i, nfiles = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!x->conn)
		return kb_err_set(err, KB_EFAIL,
				  "this executor builds only: it has no libvirt connection");
	/* the variant's workload: its {{NAME}} levels, copies, sysctls */
	if (kb_workload_instance(kb_matrix_workload(x->m), &v->guest, &wi,
				 &gerr)) {
		kb_workload_inst_release(&wi);
		failed(out, KB_BOOT_FAILED, gerr.msg);
		return 0;
	}
	out->host = kb_strdup(kb_guest_uri(x->conn));
	out->environment = kb_strdup(x->env);
	kernel = prebuilt(x, v);
	if (!kernel)
		kernel = b ? b->image : NULL;
	if (b && b->status != KB_BUILD_OK) {
		failed(out, KB_BOOT_BUILD_FAILED,
		       b->reason ? b->reason : "build failed");
		kb_workload_inst_release(&wi);
		return 0;
	}
	if (!kernel) {
		failed(out, KB_BOOT_FAILED, "the build has no kernel image");
		kb_workload_inst_release(&wi);
		return 0;
	}
	name = kb_guest_name(x->opts.db_tag,
			     x->opts.experiment ? (long long)*x->opts.experiment
						: 0,
			     v->idx, boot_no);
	if ((ret = here(get_initrd(x, w, kernel, runs, &initrd, err), err)) ||
	    (ret = here(make_workdir(x, &dir, err), err)) ||
	    (ret = here(get_image(x, err), err)))
		goto out;
	if (x->opts.pool) {
		/* the host has none of the client's files */
		if ((ret = ship_boot(x, v, w, name, &kernel, &initrd, &bv,
				     err)))
			goto out;
	} else {
		if ((ret = here(copy_in(kernel, dir, "kernel", &kernel_copy,
					err), err)) ||
		    (ret = here(copy_in(initrd, dir, "initrd", &initrd_copy,
					err), err)) ||
		    (x->image &&
		     (ret = here(root_overlay(x->image, dir, &root_base, &root,
					      err), err))))
			goto out;
		kernel = kernel_copy;
		initrd = initrd_copy;
	}
	if ((ret = here(describe(x->m, v, kernel, initrd,
				 bv.root ? bv.root : root, bv.scratch, dir,
				 x->opts.console_stream || x->opts.pool, name,
				 NULL, &scratch, &log, &xml, err), err)))
		goto out;
	out->domain_xml = kb_strdup(xml);
	out->workload_text = x->workload ? kb_strdup(x->workload) : NULL;
	for (i = 0; scratch && scratch[i] && !bv.scratch; i++)
		if ((ret = here(make_scratch(scratch[i],
					     kb_realexec_scratch_bytes(w), err),
				err)))
			goto out;

	ro.console_file = log;
	ro.boot_timeout_s = v->guest.boot_timeout_s ? v->guest.boot_timeout_s
						    : 120;
	ro.workload_timeout_s = kb_realexec_workload_timeout(w, runs);
	ro.stop = x->opts.stop;
	ro.usage = &usage;
	console = kb_console_new(0);
	if (kb_guest_run(x->conn, xml, &ro, console, &end, &dur, &gerr)) {
		char *tail = kb_console_tail(console, 50);

		failed(out, KB_BOOT_LIBVIRT_ERROR, gerr.msg);
		out->console_tail = tail;
	} else {
		struct kb_boot_result j;
		int timed_out = end == KB_GUEST_END_BOOT_TIMEOUT ||
				end == KB_GUEST_END_WORKLOAD_TIMEOUT;

		memset(&j, 0, sizeof(j));
		ret = kb_console_judge(console, w, runs, timed_out, &j, err);
		if (ret) {
			kb_boot_result_release(&j);
			goto out;
		}
		out->status = j.status;
		out->reason = j.reason;
		out->console_tail = j.console_tail;
		out->nruns = j.nruns;
		out->runs = j.runs;
		out->nmonitors = j.nmonitors;
		out->monitors = j.monitors;
		out->nprofile = j.nprofile;
		out->profile = j.profile;
		if (out->status == KB_BOOT_TIMEOUT && !out->reason)
			out->reason = kb_asprintf(
				"no workload after %.0f s (guest.boot_timeout_s)",
				ro.boot_timeout_s);
		if (out->status == KB_BOOT_WORKLOAD_TIMEOUT && !out->reason)
			out->reason = kb_asprintf(
				"the workload ran over %.0f s (workload.timeout_s)",
				ro.workload_timeout_s);
	}
	/* the host's monitors, run 0: what explains drift between boots */
	kb_guest_usage_monitors(&usage, &out->monitors, &out->nmonitors);
	ret = 0;
out:
	out->duration_s = kb_monotime() - t0;
	for (i = 0; scratch && scratch[i]; i++)
		;
	files = kb_calloc(i + 5, sizeof(*files));
	/* scratch volumes in the host's pool go with boot_vols_release */
	for (i = 0; scratch && scratch[i] && !bv.scratch; i++)
		files[nfiles++] = scratch[i];
	boot_vols_release(x, &bv);
	files[nfiles++] = log;
	files[nfiles++] = kernel_copy;
	files[nfiles++] = initrd_copy;
	files[nfiles++] = root;
	files[nfiles++] = root_base;
	remove_workdir(dir, files, nfiles);
	free(files);
	kb_console_free(console);
	kb_workload_inst_release(&wi);
	scratch_free(scratch);
	free(log);
	free(xml);
	free(name);
	free(kernel_copy);
	free(initrd_copy);
	free(root);
	free(root_base);
	if (ret)
		kb_boot_result_release(out);
	return ret;
}

static void realexec_free(void *self)
{
	struct realexec *x = self;
	size_t i;

	if (!x)
		return;
	free(x->env);
	free(x->initrd);
	free(x->initrd_modules);
	free(x->image);
	for (i = 0; i < x->nshipped; i++) {
		free(x->shipped[i].local);
		free(x->shipped[i].remote);
	}
	free(x->workload);
	free(x->initrd_conf);
	free(x);
}

static const struct kb_executor_ops realexec_ops = {
	.name = "libvirt",
	.build = build,
	.boot = boot,
	.free = realexec_free,
};

int kb_realexec_new(const struct kb_matrix *m, struct kb_guest_conn *conn,
		    const struct kb_realexec_opts *opts,
		    struct kb_executor **out, struct kb_err *err)
{
	struct kb_realexec_opts defaults = KB_REALEXEC_OPTS_INIT;
	struct realexec *x;
	char *env = NULL;
	int ret;

	*out = NULL;
	if (conn && (ret = kb_guest_environment(conn, &env, err)))
		return ret;
	x = kb_calloc(1, sizeof(*x));
	x->m = m;
	x->conn = conn;
	x->opts = opts ? *opts : defaults;
	x->env = env;
	if (x->opts.pool && conn &&
	    (ret = kb_guest_pool_open(conn, x->opts.pool, NULL, err))) {
		realexec_free(x);
		return ret;
	}
	*out = kb_executor_new(&realexec_ops, x);
	return 0;
}
