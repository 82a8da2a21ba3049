/*
 * kbisect repro ID VARIANT [-o DIR]: write out what one variant of an
 * experiment booted (db/0007's evidence) as a folder a kernel developer
 * can boot by hand and attach to a bug report: the .config, the kernel
 * (checked against its recorded SHA-256), the initramfs, the workload,
 * the kernel command line, the domain XML moved into the folder, a
 * boot.sh that boots it once with virsh and prints the metric, and a
 * README.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "domxml.h"
#include "fsutil.h"
#include "guestimage.h"
#include "initramfs.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "realexec.h"
#include "sha256.h"
#include "stats.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

struct repro_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *dir;
	int force;
};

static const struct kb_opt repro_opts[] = {
	KB_OPT_STRING(struct repro_args, dir, 'o', "output", "DIR",
		      "the folder to write (default: ./kbisect-repro-ID-VARIANT)"),
	KB_OPT_BOOL(struct repro_args, force, 0, "force",
		    "write into DIR even when it is not empty, replacing the files kbisect repro writes"),
	KB_OPT_DB,
	KB_OPT_JSON("print what was written as JSON"),
	KB_OPT_QUIET("nothing on stderr but errors"),
	KB_OPT_END,
};

static int cmd_repro(const struct kb_args *args);

const struct cmd cmd_repro_entry = {
	.name = "repro",
	.rank = 65,
	.args = "EXPERIMENT VARIANT",
	.opts = repro_opts,
	.size = sizeof(struct repro_args),
	.fn = cmd_repro,
	.summary = "write out a variant's boot as a folder that boots by hand",
	.help = "Writes what VARIANT (a number from `kbisect results`, or an exact\n"
		"label) of EXPERIMENT booted, from the evidence the database keeps\n"
		"with every boot and build, as a folder to boot once more by hand and\n"
		"to attach to a bug report:\n"
		"\n"
		"  config       the resolved .config the kernel was built from (a\n"
		"               distro kernel's /boot/config-VERSION; none when not\n"
		"               known)\n"
		"  kernel       the kernel image, copied from the build and checked\n"
		"               against the SHA-256 recorded when it was built\n"
		"  initrd       the initramfs, made again from the stored workload\n"
		"  workload.fio the fio job file the guest ran (or workload.sh: the\n"
		"               command, run with sh)\n"
		"  cmdline      the kernel command line\n"
		"  domain.xml   the libvirt domain as booted, its kernel, initramfs,\n"
		"               console log and scratch disk moved into DIR\n"
		"  boot.sh      boots domain.xml once with virsh on the boot's host\n"
		"               (or $LIBVIRT_DEFAULT_URI, or its argument), waits\n"
		"               until the guest is gone and prints the metric\n"
		"  README       the experiment, variant, settings, build key and\n"
		"               the metric kbisect measured (mean and sd)\n"
		"\n"
		"The boot is the variant's latest that ended ok, else its latest\n"
		"(a panic or a timeout is worth reproducing too).  A variant with no\n"
		"stored domain XML -- never booted, an experiment on the model\n"
		"executor, boots stored before kbisect kept their evidence -- has\n"
		"nothing to reproduce: exit status 2 and nothing is written.  A\n"
		"kernel image that is gone or differs from the one booted is an\n"
		"error naming it (exit status 1), also before anything is written.\n"
		"DIR must be empty or new unless --force.  Keep it off tmpfs: the\n"
		"scratch disk is opened with O_DIRECT.\n",
	.epilog = "Example:\n"
		  "  kbisect repro 7 3 -o /var/tmp/bug-42 && /var/tmp/bug-42/boot.sh\n",
};

/* ---- what is reproduced ---------------------------------------------- */

struct repro {
	int64_t exp;
	struct kb_store_info info;
	struct kb_store_variant *vs;
	size_t nvs;
	const struct kb_store_variant *v;  /* the variant */
	struct kb_store_evidence e;
	struct kb_matrix *m;
	struct kb_plan *p;
	const struct kb_variant *pv;       /* the plan's variant, or NULL */
	struct kb_summary sum;             /* its boot means of the metric */
	char *dir;                         /* absolute, once made */
	char *name;                        /* the domain's new name */
	struct kb_domxml_moved moved;
	char kernel_sha[KB_SHA256_HEX_LEN + 1];
	int sha_checked;                   /* the image had a recorded sha */
	struct kb_buf files;               /* names written, NUL-separated */
	size_t nfiles;
};

static void repro_release(struct repro *r)
{
	size_t i;

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
}

/* VARIANT: "3", "#3" or an exact label. */
static const struct kb_store_variant *find_variant(const struct repro *r,
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

/* Read the experiment, the variant and its evidence; nothing is written. */
static int load(struct repro *r, struct kb_store *s, const char *variant,
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
static int load_matrix(struct repro *r, struct kb_store *s, struct kb_err *err)
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
	} else if (r->v->idx < kb_plan_nvariants(r->p)) {
		r->pv = kb_plan_variant(r->p, r->v->idx);
	}
	kb_store_experiment_text_release(&t);
	return ret;
}

/* The kernel image is the one booted, or a clear error saying what to do. */
static int check_kernel(struct repro *r, struct kb_err *err)
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
	if (kb_sha256_file(img, r->kernel_sha, &inner))
		return kb_err_set(err, KB_EFAIL, "%s", inner.msg);
	if (!r->e.image_sha256)
		return 0;
	r->sha_checked = 1;
	if (strcmp(r->kernel_sha, r->e.image_sha256))
		return kb_err_set(err, KB_EFAIL,
				  "the kernel image '%s' is not the one boot %u booted: its sha256 is %s, build %s recorded %s; %s, then run kbisect repro again",
				  img, r->e.boot_no, r->kernel_sha,
				  r->e.build_key ? r->e.build_key : "?",
				  r->e.image_sha256, todo);
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
static int make_dir(struct repro *r, const char *dir, int force,
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

static char *path_in(const struct repro *r, const char *name)
{
	return kb_asprintf("%s/%s", r->dir, name);
}

static void wrote(struct repro *r, const char *name)
{
	kb_buf_add(&r->files, name, strlen(name) + 1);
	r->nfiles++;
}

static int put_text(struct repro *r, const char *name, const char *text,
		    unsigned mode, struct kb_err *err)
{
	char *path = path_in(r, name);
	int ret = kb_write_atomic(path, text, strlen(text), mode, err);

	free(path);
	if (ret == 0)
		wrote(r, name);
	return ret;
}

static int put_copy(struct repro *r, const char *name, const char *from,
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
 * The initramfs the boot used: made (or found in the cache) from the
 * stored workload text, not from today's matrix files, for the
 * experiment's runs per boot and the kernel's modules, as the real
 * executor makes it.
 */
static int put_initrd(struct repro *r, int quiet, struct kb_err *err)
{
	struct kb_initramfs_opts io = KB_INITRAMFS_OPTS_INIT;
	struct kb_workload w = *kb_matrix_workload(r->m);
	const char *text = r->e.workload_text;
	size_t len = strlen(text);
	char *modules = kb_initramfs_modules_for(r->e.image);
	char *cache = kb_initramfs_default_cache();
	char *job = NULL, *command = NULL, *path = NULL;
	int ret;

	if (w.kind == KB_WORKLOAD_COMMAND) {
		/* the stored text is the command and a newline */
		command = kb_strndup(text, len && text[len - 1] == '\n'
						   ? len - 1
						   : len);
		w.command = command;
	} else {
		job = path_in(r, "workload.fio");
		w.kind = KB_WORKLOAD_FIO_JOB;
		w.fio_job = job;
	}
	io.modules = modules;
	io.root_image = kb_matrix_guest(r->m)->image != NULL;
	if (!quiet)
		fprintf(stderr,
			"kbisect: making the initramfs (%s, %u run%s per boot)\n",
			w.kind == KB_WORKLOAD_COMMAND ? "command" : "fio",
			r->info.runs_per_boot,
			r->info.runs_per_boot == 1 ? "" : "s");
	ret = kb_initramfs_build(&w, r->info.runs_per_boot, &io, cache, &path,
				 err);
	if (ret == 0)
		ret = put_copy(r, "initrd", path, err);
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
static int put_image(struct repro *r, int quiet, struct kb_err *err)
{
	const struct kb_guest_image *im = kb_matrix_guest(r->m)->image;
	const struct kb_workload *w = kb_matrix_workload(r->m);
	char *cache, *image = NULL, *path;
	int built = 0, ret;

	if (!im || !r->moved.noverlays)
		return 0;
	if (!quiet)
		fprintf(stderr, "kbisect: getting the guest image (%zu package%s)\n",
			im->npackages, im->npackages == 1 ? "" : "s");
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

/* ---- boot.sh ----------------------------------------------------------- */

/* @s in single quotes for sh. */
static void sh_quote(struct kb_buf *b, const char *s)
{
	kb_buf_addch(b, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			kb_buf_adds(b, "'\\''");
		else
			kb_buf_addch(b, *s);
	}
	kb_buf_addch(b, '\'');
}

/* "name='value'\n" */
static void sh_var(struct kb_buf *b, const char *name, const char *value)
{
	kb_buf_addf(b, "%s=", name);
	sh_quote(b, value);
	kb_buf_addch(b, '\n');
}

/* The measured mean and sd of the variant's boots, as one line. */
static void measured(const struct repro *r, struct kb_buf *b)
{
	if (!r->sum.n) {
		kb_buf_addf(b, "%s: no ok boot measured it", r->info.metric);
		return;
	}
	kb_buf_addf(b, "%s %.6g", r->info.metric, r->sum.mean);
	if (r->sum.n > 1)
		kb_buf_addf(b, " +- %.3g", r->sum.stddev);
	kb_buf_addf(b, " over %zu boot%s (mean%s of the boot means, %u run%s per boot)",
		    r->sum.n, r->sum.n == 1 ? "" : "s",
		    r->sum.n > 1 ? " and sd" : "", r->info.runs_per_boot,
		    r->info.runs_per_boot == 1 ? "" : "s");
}

/* How boot.sh reads the metric out of one run's payload file "$1". */
static void value_fn(const struct repro *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	const char *m = r->info.metric;

	kb_buf_adds(b, "# value FILE: the metric in one run's payload, as kbisect reads it\n"
		       "value() {\n");
	if (w->kind != KB_WORKLOAD_COMMAND) {
		kb_buf_adds(b, "\t# fio's JSON: `kbisect fio-metrics` sums and weighs it over jobs\n"
			       "\t\"$kbisect\" fio-metrics \"$1\" 2>/dev/null |\n"
			       "\t\tawk -v m=\"$metric\" '$1 == m { print $2; exit }'\n"
			       "}\n");
		return;
	}
	if (!w->regex) {
		/* timed: "real 1.23", "user ...", "sys ..." */
		const char *key = !strcmp(m, "user_s")  ? "user"
				  : !strcmp(m, "sys_s") ? "sys"
							: "real";

		kb_buf_addf(b, "\tsed -n 's/^%s //p' \"$1\" | head -n 1\n}\n",
			    key);
		return;
	}
	/* the regex's group in the command's output (after "output N"),
	 * line by line where kbisect reads the whole output at once */
	kb_buf_adds(b, "\td=$(printf '\\001')\n"
		       "\tsed '1,/^output [0-9]*$/d' \"$1\" | grep -E -o -e \"$regex\" |\n"
		       "\t\thead -n 1 | sed -E \"s$d^($regex)\\$$d\\\\2$d\"\n"
		       "}\n");
}

/* The domain's paths were written for r->dir; boot.sh moves them when the
 * folder moved, where the paths are plain enough for sed. */
static int movable(const char *dir)
{
	return !strpbrk(dir, "&<>\"'#\\\n");
}

static void boot_sh(const struct repro *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	const struct kb_guest *g = kb_matrix_guest(r->m);
	unsigned runs = r->info.runs_per_boot;
	int fio = w->kind != KB_WORKLOAD_COMMAND;
	char exe[PATH_MAX];
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	kb_buf_addf(b, "#!/bin/sh\n"
		       "# Boot variant #%u of kbisect experiment %lld once, as its boot %u\n"
		       "# booted (%s), and print its %s the way kbisect reads it.\n"
		       "# Written by `kbisect repro`: README says what each file is.\n"
		       "#\n"
		       "#   ./boot.sh [URI]\n"
		       "#\n"
		       "# URI: the libvirt host; default $LIBVIRT_DEFAULT_URI, else the host\n"
		       "# the boot ran on.  Exit status 0 when every run printed the metric.\n"
		       "set -u\n"
		       "here=$(cd \"$(dirname \"$0\")\" && pwd -P) || exit 1\n"
		       "cd \"$here\" || exit 1\n",
		    r->v->idx, (long long)r->exp, r->e.boot_no, r->e.status,
		    r->info.metric);
	kb_buf_adds(b, "uri=${1:-${LIBVIRT_DEFAULT_URI:-");
	sh_quote(b, r->e.host ? r->e.host : "qemu:///system");
	kb_buf_adds(b, "}}\n");
	sh_var(b, "name", r->name);
	sh_var(b, "written", movable(r->dir) ? r->dir : "");
	sh_var(b, "metric", r->info.metric);
	sh_var(b, "regex", w->kind == KB_WORKLOAD_COMMAND && w->regex
				   ? w->regex
				   : "");
	kb_buf_addf(b, "runs=%u\n"
		       "boot_timeout=%u      # s until the workload starts (guest.boot_timeout_s)\n"
		       "workload_timeout=%u  # s for all its runs (workload.timeout_s)\n",
		    runs, g->boot_timeout_s ? g->boot_timeout_s : 120,
		    kb_realexec_workload_timeout(w, runs));
	kb_buf_adds(b, "kbisect=${KBISECT:-kbisect}\n"
		       "command -v \"$kbisect\" >/dev/null 2>&1 || kbisect=");
	sh_quote(b, exe);
	kb_buf_adds(b, "\n\nsay() { echo \"boot.sh: $*\" >&2; }\n"
		       "running() { virsh -c \"$uri\" domstate \"$name\" >/dev/null 2>&1; }\n"
		       "stop() { ! running || virsh -c \"$uri\" destroy \"$name\" >/dev/null 2>&1; }\n"
		       "\n");
	value_fn(r, b);
	kb_buf_adds(b, "\n# -- the domain, its paths pointed here when the folder moved\n"
		       "xml=domain.xml\n"
		       "if [ \"$here\" != \"$written\" ]; then\n"
		       "\tcase $here in\n"
		       "\t*[\\&\\<\\>\\\"\\'\\#\\\\]*) written= ;;\n"
		       "\tesac\n"
		       "\tif [ -z \"$written\" ]; then\n"
		       "\t\tsay \"the paths in domain.xml name another folder: edit them to name $here\"\n"
		       "\t\texit 1\n"
		       "\tfi\n"
		       "\tsed \"s#$(printf '%s' \"$written\" | sed 's/[].[*^$]/\\\\&/g')/#$here/#g\" \\\n"
		       "\t\tdomain.xml >domain.here.xml || exit 1\n"
		       "\txml=domain.here.xml\n"
		       "fi\n");
	if (r->moved.nscratch) {
		kb_buf_addf(b, "\n# -- a new scratch disk for the workload, as every boot gets\n");
		for (i = 0; i < r->moved.nscratch; i++) {
			const char *base = strrchr(r->moved.scratch[i], '/');
			struct kb_buf q = KB_BUF_INIT;

			sh_quote(&q, base ? base + 1 : r->moved.scratch[i]);
			kb_buf_addf(b, "rm -f %s\n"
				       "fallocate -l %llu %s 2>/dev/null ||\n"
				       "\ttruncate -s %llu %s || exit 1\n",
				    q.buf, kb_realexec_scratch_bytes(w), q.buf,
				    kb_realexec_scratch_bytes(w), q.buf);
			kb_buf_release(&q);
		}
	}
	for (i = 0; i < r->moved.noverlays; i++) {
		const char *base = strrchr(r->moved.overlays[i], '/');
		struct kb_buf q = KB_BUF_INIT;

		sh_quote(&q, base ? base + 1 : r->moved.overlays[i]);
		kb_buf_addf(b, "\n# -- the root disk (guest.image): a new overlay over root.img,\n"
			       "# which the boot never changes\n"
			       "rm -f %s\n"
			       "qemu-img create -q -f qcow2 -F raw -b \"$here/root.img\" %s || exit 1\n",
			    q.buf, q.buf);
		kb_buf_release(&q);
	}
	kb_buf_adds(b, "\n# -- boot once; the guest powers itself off when its runs are done\n"
		       "rm -f console.log run-*.out run-*.json\n"
		       "trap 'stop; exit 130' INT\n"
		       "trap 'stop; exit 143' TERM\n");
	if (r->moved.console_log) {
		kb_buf_adds(b, "virsh -c \"$uri\" create \"$xml\" >/dev/null || exit 1\n"
			       "say \"$name started on $uri; its console goes to $here/console.log\"\n"
			       "t=0 started=\n"
			       "while running; do\n"
			       "\tif [ -z \"$started\" ] && grep -q '^KBISECT-START' console.log 2>/dev/null; then\n"
			       "\t\tstarted=$t\n"
			       "\tfi\n"
			       "\tif [ -z \"$started\" ] && [ $t -ge $boot_timeout ]; then\n"
			       "\t\tsay \"no workload after $boot_timeout s: destroying $name\"\n"
			       "\t\tstop\n"
			       "\telif [ -n \"$started\" ] && [ $((t - started)) -ge $workload_timeout ]; then\n"
			       "\t\tsay \"the workload ran over $workload_timeout s: destroying $name\"\n"
			       "\t\tstop\n"
			       "\tfi\n"
			       "\tsleep 1\n"
			       "\tt=$((t + 1))\n"
			       "done\n");
	} else {
		kb_buf_adds(b, "# a Xen PV or PVH console is a pty: virsh console reads it\n"
			       "[ -t 0 ] || { say \"this guest's console is a pty: run boot.sh in a terminal\"; exit 1; }\n"
			       "virsh -c \"$uri\" create \"$xml\" --console | tee console.log\n"
			       "stop\n");
	}
	kb_buf_addf(b, "running && { say \"$name is still there\"; exit 1; }\n"
		       "say \"$name is gone\"\n");
	for (i = 0; i < r->moved.nscratch + r->moved.noverlays; i++) {
		const char *f = i < r->moved.nscratch
					? r->moved.scratch[i]
					: r->moved.overlays[i - r->moved.nscratch];
		const char *base = strrchr(f, '/');
		struct kb_buf q = KB_BUF_INIT;

		sh_quote(&q, base ? base + 1 : f);
		kb_buf_addf(b, "rm -f %s\n", q.buf);
		kb_buf_release(&q);
	}
	kb_buf_addf(b, "\n# -- the result frames (docs/guests.md): KBISECT-BEGIN RUN LEN CRC,\n"
		       "# the payload, KBISECT-END RUN; one per run\n"
		       "tr -d '\\r' <console.log | awk -v ext=%s '\n"
		       "\t/^KBISECT-BEGIN / { f = \"run-\" $2 \".\" ext; printf \"\" > f; in_frame = 1; next }\n"
		       "\t/^KBISECT-END / { if (in_frame) close(f); in_frame = 0; next }\n"
		       "\tin_frame { print > f }'\n"
		       "status=0\n"
		       "if grep -q 'Kernel panic - not syncing' console.log; then\n"
		       "\tsay \"the kernel panicked: see console.log\"\n"
		       "\tstatus=1\n"
		       "fi\n"
		       "if grep '^KBISECT-ERROR' console.log >&2; then status=1; fi\n"
		       "grep -q '^KBISECT-DONE' console.log || {\n"
		       "\tsay \"the guest did not finish its runs: see console.log\"\n"
		       "\tstatus=1\n"
		       "}\n"
		       "values=\n"
		       "r=1\n"
		       "while [ $r -le $runs ]; do\n"
		       "\tf=run-$r.%s\n"
		       "\tv=\n"
		       "\t[ -s \"$f\" ] && v=$(value \"$f\")\n"
		       "\tif [ -n \"$v\" ]; then\n"
		       "\t\techo \"run $r: $metric $v\"\n"
		       "\t\tvalues=\"$values $v\"\n"
		       "\telse\n"
		       "\t\tsay \"run $r: no $metric (payload: $f)\"\n"
		       "\t\tstatus=1\n"
		       "\tfi\n"
		       "\tr=$((r + 1))\n"
		       "done\n"
		       "if [ -n \"$values\" ]; then\n"
		       "\techo \"$values\" | awk -v m=\"$metric\" '{ for (i = 1; i <= NF; i++) s += $i;\n"
		       "\t\tprintf \"%%s %%.6g (the mean of %%d run%%s: the boot'\\''s value, as kbisect stores it)\\n\", m, s / NF, NF, NF == 1 ? \"\" : \"s\" }'\n"
		       "fi\n",
		    fio ? "json" : "out", fio ? "json" : "out");
	kb_buf_adds(b, "echo ");
	{
		struct kb_buf line = KB_BUF_INIT;

		kb_buf_adds(&line, "kbisect measured ");
		measured(r, &line);
		sh_quote(b, line.buf);
		kb_buf_release(&line);
	}
	kb_buf_adds(b, "\nexit $status\n");
}

/* ---- README ------------------------------------------------------------ */

static void readme(const struct repro *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	struct kb_metric_dir dir = kb_metric_direction(w, r->info.metric);
	int fio = w->kind != KB_WORKLOAD_COMMAND;
	size_t i;

	kb_buf_addf(b, "kbisect repro: experiment %lld \"%s\", variant #%u\n"
		       "==========================================================\n\n"
		       "Boot %u of this variant (status %s%s%s), as kbisect booted it, ready\n"
		       "to boot once more by hand:\n\n"
		       "    ./boot.sh [URI]\n\n"
		       "It prints %s for each of the %u run%s and their mean.\n\n",
		    (long long)r->exp, r->info.name, r->v->idx, r->e.boot_no,
		    r->e.status, r->e.reason ? ": " : "",
		    r->e.reason ? r->e.reason : "", r->info.metric,
		    r->info.runs_per_boot,
		    r->info.runs_per_boot == 1 ? "" : "s");
	kb_buf_adds(b, "Measured by kbisect: ");
	measured(r, b);
	kb_buf_addf(b, ".\n%s: %s.\n\n", r->info.metric,
		    kb_metric_dir_text(&dir));
	kb_buf_addf(b, "Experiment  %lld \"%s\", %s design, %s executor, created %s\n"
		       "Variant     #%u %s\n",
		    (long long)r->exp, r->info.name,
		    r->info.design ? r->info.design : "?",
		    r->info.executor ? r->info.executor : "?",
		    r->info.created_at ? r->info.created_at : "?", r->v->idx,
		    r->v->label ? r->v->label : "");
	if (r->pv) {
		kb_buf_adds(b, "Settings   ");
		for (i = 0; i < r->pv->nsettings; i++)
			kb_buf_addf(b, " %s=%s", r->pv->settings[i].name,
				    r->pv->settings[i].value);
		kb_buf_adds(b, r->pv->nsettings ? "\n" : " (the matrix's own)\n");
	}
	kb_buf_addf(b, "Repeat      %u boots x %u runs per boot\n"
		       "Build key   %s\n"
		       "Kernel      %s\n"
		       "            sha256 %s%s\n"
		       "Host        %s (domain type %s)\n"
		       "Workload    %s, metric %s\n\n",
		    r->info.boots, r->info.runs_per_boot,
		    r->e.build_key ? r->e.build_key : "-", r->e.image,
		    r->kernel_sha,
		    r->sha_checked ? " (checked against the build's record)"
				   : " (not checked: the build recorded none)",
		    r->e.host ? r->e.host : "-",
		    r->moved.type ? r->moved.type : "?",
		    fio ? "fio" : "command", r->info.metric);
	kb_buf_adds(b, "Files\n-----\n\n");
	kb_buf_adds(b, "boot.sh       boots domain.xml once with `virsh create`, waits until the\n"
		       "              guest is gone (it powers off after its runs; boot.sh\n"
		       "              destroys it at the timeouts), then prints the metric of\n"
		       "              each run from the result frames on its console\n"
		       "              (KBISECT-BEGIN RUN LEN CRC, payload, KBISECT-END RUN)\n");
	kb_buf_addf(b, "domain.xml    the libvirt domain the boot created, its kernel,\n"
		       "              initramfs, console log and scratch disk moved into this\n"
		       "              folder, named %s\n",
		    r->name);
	kb_buf_adds(b, "kernel        the kernel image booted\n"
		       "initrd        the initramfs, made again from the stored workload:\n"
		       "              busybox, /init (kbisect's guests/init), the workload");
	kb_buf_adds(b, fio ? ",\n              fio and its libraries\n" : "\n");
	if (r->e.config_text)
		kb_buf_adds(b, "config        the .config the kernel was built from\n");
	kb_buf_adds(b, "cmdline       the kernel command line (also in domain.xml)\n");
	if (fio)
		kb_buf_adds(b, "workload.fio  the fio job file the guest runs (fio --output-format=json;\n"
			       "              filename=${KBISECT_DISKS} names its virtio disks)\n");
	else
		kb_buf_adds(b, "workload.sh   the command the guest runs, with sh, timed\n");
	kb_buf_adds(b, "console.log   written by boot.sh: the guest's console\n");
	if (fio)
		kb_buf_adds(b, "run-N.json    written by boot.sh: fio's output of run N\n");
	else
		kb_buf_adds(b, "run-N.out     written by boot.sh: run N's result (exit, times, output)\n");
	if (r->moved.nscratch)
		kb_buf_addf(b, "scratch.raw   made by boot.sh before the boot (%llu bytes), removed after\n",
			    kb_realexec_scratch_bytes(w));
	if (r->moved.noverlays)
		kb_buf_adds(b, "root.img      the guest image (guest.image), never written\n"
			       "root.qcow2    made by boot.sh over root.img before the boot: the\n"
			       "              boot's writes; removed after\n");
	if (w->kind == KB_WORKLOAD_COMMAND && w->regex)
		kb_buf_addf(b, "\nThe metric is the number the regex (%s) takes from the\n"
			       "command's output; boot.sh applies it line by line (grep -E).\n",
			    w->regex);
	kb_buf_adds(b, "\nboot.sh takes the libvirt URI as its argument, else\n"
		       "$LIBVIRT_DEFAULT_URI, else the host the boot ran on.  The hypervisor's\n"
		       "user must be able to read this folder.  Moved elsewhere, boot.sh points\n"
		       "domain.xml's paths at the new place (domain.here.xml).\n");
}

/* ---- output ----------------------------------------------------------- */

static void print_text(const struct repro *r)
{
	struct kb_buf b = KB_BUF_INIT, l = KB_BUF_INIT;
	const char *f = r->files.buf;
	const char *dir = cmd_printable(r->dir, 0, &b);
	size_t i;

	printf("wrote %s: experiment %lld variant #%u \"%s\", boot %u (%s)\n",
	       dir, (long long)r->exp, r->v->idx,
	       cmd_printable(r->v->label, 0, &l), r->e.boot_no, r->e.status);
	for (i = 0; i < r->nfiles; i++, f += strlen(f) + 1)
		printf("  %s\n", f);
	printf("boot it once: %s/boot.sh\n", dir);
	kb_buf_release(&b);
	kb_buf_release(&l);
}

static void print_json(const struct repro *r)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	const char *f = r->files.buf;
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", r->exp);
	kb_json_kv_int(j, "variant", r->v->idx);
	kb_json_kv_string(j, "label", r->v->label);
	kb_json_kv_int(j, "boot", r->e.boot_no);
	kb_json_kv_string(j, "status", r->e.status);
	kb_json_kv_string(j, "host", r->e.host);
	kb_json_kv_string(j, "domain", r->name);
	kb_json_kv_string(j, "build_key", r->e.build_key);
	kb_json_kv_string(j, "image_sha256", r->kernel_sha);
	kb_json_kv_bool(j, "sha256_checked", r->sha_checked);
	kb_json_kv_string(j, "dir", r->dir);
	kb_json_key(j, "files");
	kb_json_array_begin(j);
	for (i = 0; i < r->nfiles; i++, f += strlen(f) + 1) {
		char *path = path_in(r, f);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", f);
		kb_json_kv_string(j, "path", path);
		kb_json_object_end(j);
		free(path);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/* Write the folder: nothing is written before every check passed. */
static int write_all(struct repro *r, const char *dir, int force, int quiet,
		     struct kb_err *err)
{
	struct kb_domxml_move mv;
	struct kb_buf b = KB_BUF_INIT;
	char *comment = NULL;
	int fio = kb_matrix_workload(r->m)->kind != KB_WORKLOAD_COMMAND;
	int ret;

	r->name = kb_asprintf("repro-kbisect-%lld-%u", (long long)r->exp,
			      r->v->idx);
	if ((ret = make_dir(r, dir, force, err)))
		return ret;
	comment = kb_asprintf("kbisect repro: experiment %lld, variant %u, boot %u (%s), as booted; its files moved into this folder",
			      (long long)r->exp, r->v->idx, r->e.boot_no,
			      r->e.status);
	mv.name = r->name;
	mv.dir = r->dir;
	mv.comment = comment;
	if ((ret = kb_domxml_relocate(r->e.domain_xml, &mv, &r->moved, err)))
		goto out;
	if (r->e.config_text &&
	    (ret = put_text(r, "config", r->e.config_text, 0644, err)))
		goto out;
	if ((ret = put_copy(r, "kernel", r->e.image, err)) ||
	    (ret = put_text(r, fio ? "workload.fio" : "workload.sh",
			    r->e.workload_text, 0644, err)) ||
	    (ret = put_initrd(r, quiet, err)) ||
	    (ret = put_image(r, quiet, err)))
		goto out;
	kb_buf_addf(&b, "%s\n", r->moved.cmdline ? r->moved.cmdline : "");
	if ((ret = put_text(r, "cmdline", b.buf, 0644, err)) ||
	    (ret = put_text(r, "domain.xml", r->moved.xml, 0644, err)))
		goto out;
	kb_buf_reset(&b);
	boot_sh(r, &b);
	if ((ret = put_text(r, "boot.sh", b.buf, 0755, err)))
		goto out;
	kb_buf_reset(&b);
	readme(r, &b);
	ret = put_text(r, "README", b.buf, 0644, err);
out:
	kb_buf_release(&b);
	free(comment);
	return ret;
}

static int cmd_repro(const struct kb_args *args)
{
	const struct repro_args *a = CMD_ARGS(struct repro_args, args);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct repro r;
	char *dir = NULL;
	int ret;

	memset(&r, 0, sizeof(r));
	if (cmd_parse_id(args->pos[0], &r.exp) < 0)
		return cmd_usage_error("repro",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if (a->dir && !*a->dir)
		return cmd_usage_error("repro", "-o needs a folder, not ''");
	if ((ret = cmd_open_store_as(args->db, KB_STORE_READ_ONLY, &s,
				     &err)) ||
	    (ret = load(&r, s, args->pos[1], &err)) ||
	    (ret = check_kernel(&r, &err)) ||
	    (ret = load_matrix(&r, s, &err)))
		goto fail;
	dir = a->dir ? kb_strdup(a->dir)
		     : kb_asprintf("kbisect-repro-%lld-%u", (long long)r.exp,
				   r.v->idx);
	if ((ret = write_all(&r, dir, a->force, args->quiet, &err)))
		goto fail;
	if (!r.sha_checked && !args->quiet)
		fprintf(stderr,
			"kbisect: note: build %s recorded no sha256 (it was stored before kbisect kept one): the kernel image was copied unchecked\n",
			r.e.build_key ? r.e.build_key : "?");
	if (args->json)
		print_json(&r);
	else
		print_text(&r);
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(dir);
	repro_release(&r);
	kb_store_close(s);
	return ret;
}
