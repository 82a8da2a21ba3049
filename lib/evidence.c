/*
 * The evidence writer (lib/evidence.h): a boot's stored texts as files,
 * and the folder `kbisect repro` writes.  boot.sh and the README are
 * written by lib/evidence_script.c.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence.h"
#include "evidence_int.h"

#include "bootrec.h"
#include "err.h"
#include "fsutil.h"
#include "guestimage.h"
#include "initramfs.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "banned.h"

/* ---- the stored texts ------------------------------------------------- */

const char *kb_evidence_workload_name(const struct kb_matrix *m)
{
	if (!m)
		return "workload.txt";
	return kb_matrix_workload(m)->kind == KB_WORKLOAD_COMMAND
		       ? "workload.sh"
		       : "workload.fio";
}

int kb_evidence_put_text(const struct kb_store_evidence *e,
			 const struct kb_matrix *m, enum kb_evidence_text t,
			 const struct kb_evidence_sink *sink,
			 struct kb_err *err)
{
	const char *name = NULL, *text = NULL;

	switch (t) {
	case KB_EVIDENCE_CONFIG:
		name = "config";
		text = e->config_text;
		break;
	case KB_EVIDENCE_DOMAIN:
		name = "domain.xml";
		text = e->domain_xml;
		break;
	case KB_EVIDENCE_WORKLOAD:
		name = kb_evidence_workload_name(m);
		text = e->workload_text;
		break;
	}
	if (!text)
		return 0;
	return sink->put(sink->arg, name, text, strlen(text), 0644, err);
}

/* ---- what is reproduced ----------------------------------------------- */

void kb_evidence_free(struct kb_evidence *r)
{
	size_t i;

	if (!r)
		return;
	kb_store_info_release(&r->info);
	for (i = 0; i < r->nvs; i++)
		kb_store_variant_release(&r->vs[i]);
	free(r->vs);
	kb_store_evidence_release(&r->e);
	kb_plan_free(r->p);
	kb_matrix_free(r->m);
	free(r->dir);
	free(r->name);
	kb_domxml_moved_release(&r->moved);
	kb_buf_release(&r->files);
	kb_bootrec_free(r->rec);
	free(r);
}

/* VARIANT: "3", "#3" or an exact label. */
static const struct kb_store_variant *find_variant(const struct kb_evidence *r,
						   const char *s)
{
	const char *n = *s == '#' ? s + 1 : s;
	char *end;
	unsigned long v;
	size_t i;

	errno = 0;
	v = strtoul(n, &end, 10);
	if (*n >= '0' && *n <= '9' && !*end && !errno)
		for (i = 0; i < r->nvs; i++)
			if (r->vs[i].idx == v)
				return &r->vs[i];
	for (i = 0; i < r->nvs; i++)
		if (r->vs[i].label && !strcmp(r->vs[i].label, s))
			return &r->vs[i];
	return NULL;
}

/*
 * Whether @uri, a host a database records, is a libvirt URI that boot.sh
 * may connect to: DRIVER[+TRANSPORT]://[AUTHORITY]/PATH[?QUERY], driver
 * and transport of letters and digits, of printable characters without
 * a space, a quote, a backslash or a '$', and neither the ext transport
 * nor a command= parameter (they run a program of this machine).
 */
static int libvirt_uri(const char *uri)
{
	const char *p = uri, *s;

	if (!uri || strlen(uri) > 1024 || !(*p >= 'a' && *p <= 'z'))
		return 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
	       *p == '+')
		p++;
	if (strncmp(p, "://", 3) || p[-1] == '+')
		return 0;
	s = memchr(uri, '+', (size_t)(p - uri));
	if (s && (memchr(s + 1, '+', (size_t)(p - s - 1)) ||
		  ((size_t)(p - s) == 4 && !strncmp(s, "+ext", 4))))
		return 0;
	for (s = p + 3; *s; s++)
		if (*s <= ' ' || *s >= 0x7f || strchr("'\"`\\$", *s))
			return 0;
	return !strstr(p, "command=");
}

/* Read the experiment, the variant and its evidence; nothing is written. */
static int load(struct kb_evidence *r, struct kb_store *s, const char *variant,
		struct kb_err *err)
{
	int ret;

	if ((ret = kb_store_experiment_get(s, r->exp, &r->info, err)))
		return ret;
	if (r->info.executor && !strcmp(r->info.executor, "model"))
		return kb_err_set(err, KB_EINPUT,
				  "experiment %lld ran on the model executor: nothing was booted, so there is no domain XML to reproduce (kbisect repro is for experiments run on libvirt)",
				  (long long)r->exp);
	if ((ret = kb_store_variants(s, r->exp, r->info.metric, &r->vs,
				     &r->nvs, err)))
		return ret;
	if (!(r->v = find_variant(r, variant)))
		return kb_err_set(err, KB_EINPUT,
				  "no variant '%s' in experiment %lld: give a number from kbisect results or an exact label",
				  variant, (long long)r->exp);
	kb_stats_summary(r->v->boot_means, r->v->nboots, &r->sum);
	ret = kb_store_evidence_get(s, r->exp, r->v->idx, &r->e, err);
	if (ret == KB_ENOTFOUND) {
		kb_err_clear(err);
		if (!r->v->nboots && !r->v->nfailed)
			return kb_err_set(err, KB_EINPUT,
					  "variant %u of experiment %lld was never booted: there is no domain XML to reproduce",
					  r->v->idx, (long long)r->exp);
		return kb_err_set(err, KB_EINPUT,
				  "variant %u of experiment %lld has no boot with a domain XML (its boots were stored by a kbisect that kept none): run the experiment again to reproduce it",
				  r->v->idx, (long long)r->exp);
	}
	if (ret)
		return ret;
	if (r->e.host && !ev_is_machine(r->e.host) && !libvirt_uri(r->e.host))
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld records host '%s', which is not a libvirt URI (DRIVER[+TRANSPORT]://[HOST]/PATH, printable, no quote, '$' or the ext transport): kbisect repro writes no boot.sh that connects there",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  r->e.host);
	if (!r->e.image)
		return kb_err_set(err, KB_EFAIL,
				  "boot %u of variant %u of experiment %lld recorded no kernel image",
				  r->e.boot_no, r->v->idx, (long long)r->exp);
	if (!r->e.workload_text)
		return kb_err_set(err, KB_EFAIL,
				  "boot %u of variant %u of experiment %lld recorded no workload",
				  r->e.boot_no, r->v->idx, (long long)r->exp);
	return 0;
}

/*
 * The experiment's matrix, for its workload (kind, metric, timeouts) and
 * the variant's settings: after check_kernel(), since a matrix naming a
 * prebuilt kernel that is gone no longer parses.
 */
static int load_matrix(struct kb_evidence *r, struct kb_store *s, struct kb_err *err)
{
	struct kb_store_experiment_text t;
	int ret;

	memset(&t, 0, sizeof(t));
	if ((ret = kb_store_experiment_text(s, r->exp, &t, err)))
		return ret;
	ret = kb_plan_from_text(t.matrix_yaml, t.matrix_path, &r->m, &r->p,
				err);
	if (ret) {
		struct kb_err inner = *err;

		kb_err_clear(err);
		kb_err_set(err, inner.code,
			   "experiment %lld's matrix no longer plans, and repro needs its workload: %s",
			   (long long)r->exp, inner.msg);
	} else {
		size_t h;

		if (r->v->idx < kb_plan_nvariants(r->p))
			r->pv = kb_plan_variant(r->p, r->v->idx);
		r->template_workload = !r->pv;
		for (h = 0; r->e.host && h < kb_matrix_nhosts(r->m); h++)
			if (!strcmp(kb_matrix_host(r->m, h)->uri, r->e.host))
				r->pool = kb_matrix_host(r->m, h)->pool;
	}
	kb_store_experiment_text_release(&t);
	return ret;
}

/* The kernel image is the one booted, or a clear error saying what to do. */
static int check_kernel(struct kb_evidence *r, struct kb_err *err)
{
	const char *img = r->e.image;
	struct kb_err inner = KB_ERR_INIT;
	const char *todo =
		r->e.config_text && strstr(img, "/kbisect/builds/")
			? "rebuild it with `kbisect build` on the experiment's matrix (kbisect results shows its name)"
			: "put that kernel back where it was";

	if (access(img, F_OK) < 0)
		return kb_err_set(err, KB_EFAIL,
				  "the kernel image '%s' that boot %u booted (build %s) is gone: %s, then run kbisect repro again",
				  img, r->e.boot_no,
				  r->e.build_key ? r->e.build_key : "?", todo);
	/* the database names the file: only what its recorded digest
	 * confirms is copied, so that a database cannot make repro copy
	 * any file it likes into the folder */
	if (!r->e.image_sha256)
		return kb_err_set(err, KB_EFAIL,
				  "build %s recorded no sha256 of the kernel image '%s' that boot %u booted (a build stored before kbisect kept one, or a database kbisect did not write): kbisect repro copies only a kernel its recorded sha256 confirms; %s, then run kbisect repro again",
				  r->e.build_key ? r->e.build_key : "?", img,
				  r->e.boot_no,
				  r->e.config_text &&
						  strstr(img, "/kbisect/builds/")
					  ? "rebuild it with `kbisect build` on the experiment's matrix and run the experiment again"
					  : "run the experiment again with this kbisect");
	if (kb_sha256_file(img, r->kernel_sha, &inner))
		return kb_err_set(err, KB_EFAIL, "%s", inner.msg);
	r->sha_checked = 1;
	if (strcmp(r->kernel_sha, r->e.image_sha256))
		return kb_err_set(err, KB_EFAIL,
				  "the kernel image '%s' is not the one boot %u booted: its sha256 is %s, build %s recorded %s; %s, then run kbisect repro again",
				  img, r->e.boot_no, r->kernel_sha,
				  r->e.build_key ? r->e.build_key : "?",
				  r->e.image_sha256, todo);
	return 0;
}

int kb_evidence_load(struct kb_store *s, int64_t exp, const char *variant,
		     struct kb_evidence **out, struct kb_err *err)
{
	struct kb_evidence *r = kb_calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	r->exp = exp;
	kb_buf_init(&r->files);
	if ((ret = load(r, s, variant, err)) ||
	    (ret = check_kernel(r, err)) ||
	    (ret = load_matrix(r, s, err)) ||
	    (ev_is_machine(r->e.host) && (ret = ev_machine_load(r, err)))) {
		kb_evidence_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* ---- the folder ------------------------------------------------------ */

/* Is @dir a folder with something in it? */
static int not_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d)))
		found = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return found;
}

/* Make (or take, empty or with --force) folder @dir; r->dir absolute. */
static int make_dir(struct kb_evidence *r, const char *dir, int force,
		    struct kb_err *err)
{
	struct stat st;
	char real[PATH_MAX];
	int ret;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return kb_err_set(err, KB_EINPUT,
					  "'%s' is not a folder: give another -o DIR",
					  dir);
		if (!force && not_empty(dir))
			return kb_err_set(err, KB_EINPUT,
					  "'%s' is not empty: give another -o DIR, or --force to write into it",
					  dir);
	} else if ((ret = kb_mkdir_p(dir, err))) {
		return ret;
	} else if (chmod(dir, 0755) < 0) {
		/* the hypervisor's user reads the kernel in it */
		return kb_err_set(err, KB_EFAIL, "cannot make '%s' 0755: %s",
				  dir, strerror(errno));
	}
	if (!realpath(dir, real))
		return kb_err_set(err, KB_EFAIL, "cannot resolve '%s': %s", dir,
				  strerror(errno));
	r->dir = kb_strdup(real);
	return 0;
}

static char *path_in(const struct kb_evidence *r, const char *name)
{
	return kb_asprintf("%s/%s", r->dir, name);
}

static void wrote(struct kb_evidence *r, const char *name)
{
	kb_buf_add(&r->files, name, strlen(name) + 1);
	r->nfiles++;
}

/* The folder's kb_evidence_sink: each file written whole, in place. */
static int folder_put(void *arg, const char *name, const char *data,
		      size_t len, unsigned mode, struct kb_err *err)
{
	struct kb_evidence *r = arg;
	char *path = path_in(r, name);
	int ret = kb_write_atomic(path, data, len, mode, err);

	free(path);
	if (ret == 0)
		wrote(r, name);
	return ret;
}

static int put_text(struct kb_evidence *r, const char *name, const char *text,
		    unsigned mode, struct kb_err *err)
{
	return folder_put(r, name, text, strlen(text), mode, err);
}

static int put_copy(struct kb_evidence *r, const char *name, const char *from,
		    struct kb_err *err)
{
	char *path = path_in(r, name);
	int ret = kb_copy_atomic(from, path, err);

	free(path);
	if (ret == 0)
		wrote(r, name);
	return ret;
}

/*
 * The kernel image booted, copied as "kernel" with its own permission
 * bits within 0644 (a kernel only its owner reads stays so), and the
 * copy checked against the recorded sha256: the file may have changed
 * since check_kernel() read it.
 */
static int put_kernel(struct kb_evidence *r, struct kb_err *err)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	char *path = path_in(r, "kernel");
	int ret = kb_copy_atomic_keep(r->e.image, path, err);

	if (ret == 0 && (ret = kb_sha256_file(path, hex, err)) == 0 &&
	    strcmp(hex, r->e.image_sha256)) {
		unlink(path);
		ret = kb_err_set(err, KB_EFAIL,
				 "the kernel image '%s' changed while it was copied: its sha256 is %s, build %s recorded %s; nothing of it is kept",
				 r->e.image, hex,
				 r->e.build_key ? r->e.build_key : "?",
				 r->e.image_sha256);
	}
	free(path);
	if (ret == 0)
		wrote(r, "kernel");
	return ret;
}

/* Tell @o->progress, if any, of a step that takes a while. */
static void progress(const struct kb_evidence_write_opts *o, const char *fmt,
		     ...) __attribute__((format(printf, 2, 3)));
static void progress(const struct kb_evidence_write_opts *o, const char *fmt,
		     ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	o->progress(b.buf, o->arg);
	kb_buf_release(&b);
}

/*
 * The initramfs the boot used: made (or found in the cache) from the
 * stored workload text, not from today's matrix files, with the
 * variant's own copies and sysctls (its workload instance, as the real
 * executor runs it), for the experiment's runs per boot and the
 * kernel's modules.
 */
static int put_initrd(struct kb_evidence *r,
		      const struct kb_evidence_write_opts *o,
		      struct kb_err *err)
{
	struct kb_initramfs_opts io = KB_INITRAMFS_OPTS_INIT;
	struct kb_workload_inst wi;
	struct kb_workload w = *kb_matrix_workload(r->m);
	const char *text = r->e.workload_text;
	size_t len = strlen(text);
	char *modules = NULL, *cache = NULL;
	char *job = NULL, *command = NULL, *path = NULL;
	int ret;

	memset(&wi, 0, sizeof(wi));
	if (r->pv) {
		if ((ret = kb_workload_instance(kb_matrix_workload(r->m),
						&r->pv->guest, &wi, err)))
			goto out;
		w = wi.w;
	}
	modules = kb_initramfs_modules_for(r->e.image);
	cache = kb_initramfs_default_cache();

	if (w.kind == KB_WORKLOAD_COMMAND) {
		/* the stored text is the command and a newline */
		command = kb_strndup(text, len && text[len - 1] == '\n'
						   ? len - 1
						   : len);
		w.command = command;
	} else {
		job = path_in(r, kb_evidence_workload_name(r->m));
		w.kind = KB_WORKLOAD_FIO_JOB;
		w.fio_job = job;
	}
	io.modules = modules;
	io.root_image = kb_matrix_guest(r->m)->image != NULL;
	progress(o, "making the initramfs (%s, %u run%s per boot)",
		 w.kind == KB_WORKLOAD_COMMAND ? "command" : "fio",
		 r->info.runs_per_boot, r->info.runs_per_boot == 1 ? "" : "s");
	ret = kb_initramfs_build(&w, r->info.runs_per_boot, &io, cache, &path,
				 err);
	if (ret == 0)
		ret = put_copy(r, "initrd", path, err);
out:
	kb_workload_inst_release(&wi);
	free(path);
	free(job);
	free(command);
	free(cache);
	free(modules);
	return ret;
}

/*
 * guest.image: the root disk image, found in the cache (or built again)
 * from the stored matrix, linked into DIR as root.img where the file
 * system allows, else copied; boot.sh lays a new overlay over it before
 * the boot.
 */
static int put_image(struct kb_evidence *r,
		     const struct kb_evidence_write_opts *o,
		     struct kb_err *err)
{
	const struct kb_guest_image *im = kb_matrix_guest(r->m)->image;
	const struct kb_workload *w = kb_matrix_workload(r->m);
	char *cache, *image = NULL, *path;
	int built = 0, ret;

	if (!im || !(r->moved.noverlays || (r->rec && r->rec->root)))
		return 0;
	progress(o, "getting the guest image (%zu package%s)", im->npackages,
		 im->npackages == 1 ? "" : "s");
	cache = kb_guestimage_default_cache();
	ret = kb_guestimage_get(im, w->nfiles, w->files, NULL, cache, &image,
				&built, err);
	free(cache);
	if (ret)
		return ret;
	path = path_in(r, "root.img");
	if (link(image, path) == 0)
		wrote(r, "root.img");
	else
		ret = put_copy(r, "root.img", image, err);
	free(path);
	free(image);
	return ret;
}


/* ---- writing it ------------------------------------------------------- */

/* What every folder holds: the config, the kernel, the workload, the
 * initramfs and the root image. */
static int put_boot_files(struct kb_evidence *r,
			  const struct kb_evidence_write_opts *o,
			  const struct kb_evidence_sink *sink,
			  struct kb_err *err)
{
	int ret;

	if ((ret = kb_evidence_put_text(&r->e, r->m, KB_EVIDENCE_CONFIG, sink,
					err)) ||
	    (ret = put_kernel(r, err)) ||
	    (ret = kb_evidence_put_text(&r->e, r->m, KB_EVIDENCE_WORKLOAD,
					sink, err)) ||
	    (ret = put_initrd(r, o, err)))
		return ret;
	return put_image(r, o, err);
}

/* A machine boot's folder: no domain, the machine's commands in boot.sh. */
static int write_machine(struct kb_evidence *r,
			 const struct kb_evidence_write_opts *o,
			 const struct kb_evidence_sink *sink, struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	if ((ret = put_boot_files(r, o, sink, err)))
		goto out;
	kb_buf_addf(&b, "%s\n", r->rec->cmdline);
	if ((ret = put_text(r, "cmdline", b.buf, 0644, err)))
		goto out;
	kb_buf_reset(&b);
	if (r->rec->xen) {
		kb_buf_addf(&b, "%s\n", r->rec->xen_cmdline);
		if ((ret = put_text(r, "xen_cmdline", b.buf, 0644, err)))
			goto out;
		kb_buf_reset(&b);
	}
	ev_machine_boot_sh(r, &b);
	if ((ret = put_text(r, "boot.sh", b.buf, 0755, err)))
		goto out;
	kb_buf_reset(&b);
	ev_machine_readme(r, &b);
	ret = put_text(r, "README", b.buf, 0644, err);
out:
	kb_buf_release(&b);
	return ret;
}

int kb_evidence_write(struct kb_evidence *r, const char *dir,
		      const struct kb_evidence_write_opts *o,
		      struct kb_err *err)
{
	static const struct kb_evidence_write_opts defaults =
		KB_EVIDENCE_WRITE_OPTS_INIT;
	const struct kb_evidence_sink sink = { .put = folder_put, .arg = r };
	struct kb_domxml_move mv;
	struct kb_buf b = KB_BUF_INIT;
	char *comment = NULL;
	int ret;

	if (!o)
		o = &defaults;
	/* what an earlier write made */
	free(r->dir);
	free(r->name);
	kb_domxml_moved_release(&r->moved);
	memset(&r->moved, 0, sizeof(r->moved));
	r->dir = NULL;
	kb_buf_reset(&r->files);
	r->nfiles = 0;

	r->name = kb_asprintf("repro-kbisect-%lld-%u", (long long)r->exp,
			      r->v->idx);
	if ((ret = make_dir(r, dir, o->force, err)))
		goto out;
	if (r->mc) {
		ret = write_machine(r, o, &sink, err);
		goto out;
	}
	comment = kb_asprintf("kbisect repro: experiment %lld, variant %u, boot %u (%s), as booted; its files moved into this folder",
			      (long long)r->exp, r->v->idx, r->e.boot_no,
			      r->e.status);
	mv.name = r->name;
	mv.dir = r->dir;
	mv.comment = comment;
	if ((ret = kb_domxml_relocate(r->e.domain_xml, &mv, &r->moved, err)) ||
	    (ret = put_boot_files(r, o, &sink, err)))
		goto out;
	if (r->pool)
		progress(o, "boot %u ran on %s with its files shipped into pool '%s': this folder boots it on this machine (boot.sh URI boots it elsewhere, with these files there); README says so",
			 r->e.boot_no, r->e.host, r->pool);
	if (r->template_workload)
		progress(o, "variant %u is not in the matrix's plan: its initramfs runs the matrix's copies and sysctls, not its own",
			 r->v->idx);
	kb_buf_addf(&b, "%s\n", r->moved.cmdline ? r->moved.cmdline : "");
	if ((ret = put_text(r, "cmdline", b.buf, 0644, err)) ||
	    (ret = put_text(r, "domain.xml", r->moved.xml, 0644, err)))
		goto out;
	kb_buf_reset(&b);
	ev_boot_sh(r, &b);
	if ((ret = put_text(r, "boot.sh", b.buf, 0755, err)))
		goto out;
	kb_buf_reset(&b);
	ev_readme(r, &b);
	ret = put_text(r, "README", b.buf, 0644, err);
out:
	kb_buf_release(&b);
	free(comment);
	return ret;
}

void kb_evidence_info(const struct kb_evidence *r, struct kb_evidence_info *out)
{
	memset(out, 0, sizeof(*out));
	out->exp = r->exp;
	out->variant = r->v->idx;
	out->label = r->v->label;
	out->boot_no = r->e.boot_no;
	out->status = r->e.status;
	out->host = r->e.host;
	out->build_key = r->e.build_key;
	out->kernel_sha256 = r->kernel_sha;
	out->sha256_checked = r->sha_checked;
	out->domain = r->name;
	out->dir = r->dir;
	out->nfiles = r->nfiles;
	out->files = r->files.buf;
}
