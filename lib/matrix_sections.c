/*
 * The matrix document (docs/matrix.md): its top level, the sections
 * source, guest, repeat, compare, hosts and build, and the checks across
 * sections; kb_matrix_parse_buffer(), kb_matrix_parse_stored() and
 * kb_matrix_load().  The factors and the workload are read by
 * lib/matrix_factors.c and lib/matrix_workload.c, which this file calls
 * (lib/matrix.c lists the files).
 */
#include "matrix.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "matrix_int.h"
#include "mem.h"
#include "paths.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

/* A number (kb_ycheck_number()) in the open interval (lo, hi). */
static int get_double(struct ctx *c, const struct kb_ynode *n,
		      const char *what, double lo, double hi, double *out)
{
	int ret = kb_ycheck_number(&c->y, n, what, out);

	if (ret)
		return ret;
	if (*out <= lo || *out >= hi)
		return fail(c, n,
			    "%s must be a number greater than %g and less than %g, found '%s'",
			    what, lo, hi, n->str);
	return 0;
}

static int pci_address_valid(const char *s)
{
	static const char shape[] = "hhhh:hh:hh.f";
	size_t i;

	if (strlen(s) != sizeof(shape) - 1)
		return 0;
	for (i = 0; shape[i]; i++) {
		char ch = s[i];

		if (shape[i] == 'h' && !strchr("0123456789abcdefABCDEF", ch))
			return 0;
		if (shape[i] == 'f' && (ch < '0' || ch > '7'))
			return 0;
		if (shape[i] != 'h' && shape[i] != 'f' && ch != shape[i])
			return 0;
	}
	/* the slot is 5 bits: 00..1f */
	return strchr("01", s[8]) != NULL;
}

/*
 * A prebuilt image (a kernel.image factor, or source.kernel at @src's
 * "kernel") has its own config and revision.  The real executor builds
 * every variant that sets a Kconfig option or kernel.rev from source.tree
 * (lib/exec/realexec.h), and every variant sets every factor: with such a
 * factor the image is never booted, and kernel.image labels would name
 * kernels that were not run.  Refused where the image is written.
 */
static int prebuilt_mix(struct ctx *c, const struct kb_ynode *src)
{
	const struct kb_matrix *m = c->m;
	const struct kb_factor *img = kb_matrix_find_factor(m, "kernel.image");
	const struct kb_ynode *kernel =
	    src ? kb_ynode_get(src, "kernel") : NULL;
	const struct kb_factor *f = NULL;
	const char *kind;
	size_t i;

	for (i = 0; i < m->nfactors && !f; i++)
		if (m->factors[i].kind == KB_FACTOR_KCONFIG ||
		    !strcmp(m->factors[i].name, "kernel.rev"))
			f = &m->factors[i];
	if (!f || (!img && !kernel))
		return 0;
	kind = f->kind == KB_FACTOR_KCONFIG ? "the Kconfig factor " : "factor ";
	if (img)
		return kb_err_at(c->y.err, m->file, img->loc.line,
				 img->loc.col,
				 "factor kernel.image cannot be mixed with %s%s (line %u): a prebuilt image has its own config and revision, so Kconfig levels and kernel.rev cannot apply to it; build every variant from source.tree instead of kernel.image, or drop the Kconfig and kernel.rev factors to compare images",
				 kind, f->name, f->loc.line);
	if (!m->source.tree)
		return fail(c, kernel,
			    "source.kernel cannot be mixed with %s%s (line %u): a prebuilt image has its own config and revision, so Kconfig levels and kernel.rev cannot apply to it; build from source.tree instead of source.kernel, or drop the Kconfig and kernel.rev factors to boot the image",
			    kind, f->name, f->loc.line);
	return fail(c, kernel,
		    "source.kernel cannot be mixed with %s%s (line %u): a prebuilt image has its own config and revision, so Kconfig levels and kernel.rev cannot apply to it, and every variant sets that factor, so every variant is built from source.tree and the image is never booted; drop source.kernel, or drop the Kconfig and kernel.rev factors to boot the image",
		    kind, f->name, f->loc.line);
}

/* ---- sections ------------------------------------------------------------ */

static int is_make_target(const char *s)
{
	size_t len = strlen(s);
	const char *p;

	if (len <= 6 || strcmp(s + len - 6, "config"))
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

static int source(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "tree", "rev", "base", "fragments",
					    "kernel" };
	struct kb_source *s = &c->m->source;
	const struct kb_ynode *v;
	const char **frags;
	size_t i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'source'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'source'", keys, 5)))
		return ret;
	if ((v = kb_ynode_get(n, "tree"))) {
		if ((ret = kb_ycheck_string(&c->y, v, "source.tree", &s->tree)))
			return ret;
		s->tree = kb_matrix__keep(
		    c->m, kb_path_relative_to(c->m->file, s->tree));
	}
	if ((v = kb_ynode_get(n, "rev")) &&
	    (ret = kb_ycheck_string(&c->y, v, "source.rev", &s->rev)))
		return ret;
	if ((v = kb_ynode_get(n, "base"))) {
		struct stat st;
		const char *b;
		char *path;

		if ((ret = kb_ycheck_string(&c->y, v, "source.base", &b)))
			return ret;
		path =
		    kb_matrix__keep(c->m, kb_path_relative_to(c->m->file, b));
		/* stored: a name that looks like a target is one */
		if ((c->stored || stat(path, &st) < 0) && is_make_target(b)) {
			s->base = b;
			s->base_is_target = 1;
		} else if ((ret = kb_matrix__file(c, v, "base .config",
						  &s->base))) {
			return ret;
		}
	}
	if ((v = kb_ynode_get(n, "fragments"))) {
		if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
					  "source.fragments")))
			return ret;
		frags = kb_matrix__keep(c->m, kb_calloc(v->n, sizeof(*frags)));
		for (i = 0; i < v->n; i++)
			if ((ret = kb_matrix__file(
				 c, v->items[i], "config fragment", &frags[i])))
				return ret;
		s->fragments = frags;
		s->nfragments = v->n;
	}
	if ((v = kb_ynode_get(n, "kernel")) &&
	    (ret = kb_matrix__file(c, v, "kernel image", &s->kernel)))
		return ret;
	return 0;
}

/* A guest.disks entry: an image file or a block device that exists. */
static int guest_disk(struct ctx *c, const struct kb_ynode *n,
		      const char **out)
{
	struct stat st;
	const char *s;
	char *path;
	int ret = kb_ycheck_string(&c->y, n, "a guest disk", &s);

	if (ret)
		return ret;
	path = kb_matrix__keep(c->m, kb_path_relative_to(c->m->file, s));
	if (c->stored) {
		*out = path;
		return 0;
	}
	if (stat(path, &st) < 0)
		return fail(c, n, "guest disk '%s' does not exist (looked at '%s')",
			    s, path);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return fail(c, n,
			    "guest disk '%s' is neither an image file nor a block device",
			    s);
	*out = path;
	return 0;
}

/* A Debian package name (Policy 5.6.7): [a-z0-9][a-z0-9+.-]+. */
static int package_valid(const char *s)
{
	const char *p;

	if (strlen(s) < 2 || strlen(s) > 100 ||
	    !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '+' || *p == '.' || *p == '-'))
			return 0;
	return 1;
}

int kb_guest_suite_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 64 && *s >= 'a' && *s <= 'z' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* guest.image: { packages: [...], suite: NAME, size_mib: N } */
static int guest_image(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "packages", "suite", "size_mib" };
	struct kb_guest_image *im;
	const struct kb_ynode *v;
	const char **pkgs;
	size_t i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "guest.image")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'guest.image'", keys, 3)))
		return ret;
	im = kb_matrix__keep(c->m, kb_calloc(1, sizeof(*im)));
	if (!(v = kb_ynode_get(n, "packages")))
		return fail(c, n,
			    "guest.image needs 'packages': the Debian packages the workload uses, such as [fio, sysbench]");
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ, "guest.image.packages")))
		return ret;
	if (v->n == 0 || v->n > 256)
		return fail(c, v,
			    "guest.image.packages must list 1 to 256 packages, found %zu",
			    v->n);
	pkgs = kb_matrix__keep(c->m, kb_calloc(v->n, sizeof(*pkgs)));
	for (i = 0; i < v->n; i++) {
		if ((ret = kb_ycheck_string(&c->y, v->items[i],
					    "a Debian package name", &pkgs[i])))
			return ret;
		if (!package_valid(pkgs[i]))
			return fail(c, v->items[i],
				    "invalid Debian package name '%s': expected lower case letters, digits, '+', '.' and '-', such as sysbench",
				    pkgs[i]);
	}
	im->packages = pkgs;
	im->npackages = v->n;
	if ((v = kb_ynode_get(n, "suite"))) {
		if ((ret = kb_ycheck_string(&c->y, v, "guest.image.suite",
					    &im->suite)))
			return ret;
		if (!kb_guest_suite_valid(im->suite))
			return fail(c, v,
				    "invalid suite '%s': expected a Debian suite such as bookworm (a lower case letter, then letters, digits and '-')",
				    im->suite);
	}
	if ((v = kb_ynode_get(n, "size_mib")) &&
	    (ret = kb_matrix__uint(c, v, "guest.image.size_mib", 64, 1u << 20,
			    &im->size_mib)))
		return ret;
	c->m->guest.image = im;
	return 0;
}

static int guest(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "hypervisor", "mode", "vcpus",
					    "memory_mib", "pin",
					    "passthrough", "disks",
					    "boot_timeout_s", "scratch_disks",
					    "image" };
	static const char *const hvs[] = { "xen", "kvm", "qemu" };
	struct kb_guest *g = &c->m->guest;
	const struct kb_ynode *v, *pin = NULL;
	unsigned *pins = NULL;
	const char **pci;
	char *mode;
	size_t i;
	int ret;

	if (n) {
		if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'guest'")) ||
		    (ret = kb_ycheck_keys(&c->y, n, "'guest'", keys, 10)))
			return ret;
		if ((v = kb_ynode_get(n, "image")) &&
		    (ret = guest_image(c, v)))
			return ret;
		if ((v = kb_ynode_get(n, "hypervisor"))) {
			if ((ret = kb_ycheck_choice(&c->y, v, "hypervisor", hvs,
						    3, &i)))
				return ret;
			g->hypervisor = (enum kb_hypervisor)i;
		}
		if ((v = kb_ynode_get(n, "mode"))) {
			if ((ret = kb_ycheck_guest_level(&c->y, v, "guest.mode",
							 &mode)))
				return ret;
			g->mode = kb_matrix__keep(c->m, mode);
			if (g->hypervisor != KB_HV_XEN &&
			    strcmp(g->mode, "hvm"))
				return fail(c, v,
					    "guest mode '%s' needs hypervisor xen; %s guests are hvm",
					    g->mode,
					    kb_hypervisor_name(g->hypervisor));
		}
		if ((v = kb_ynode_get(n, "vcpus")) &&
		    (ret = kb_matrix__uint(c, v, "guest.vcpus", 1,
				    KB_MATRIX_MAX_VCPUS, &g->vcpus)))
			return ret;
		if ((v = kb_ynode_get(n, "memory_mib")) &&
		    (ret = kb_matrix__uint(c, v, "guest.memory_mib", 16,
					   16u << 20, &g->memory_mib)))
			return ret;
		if ((pin = kb_ynode_get(n, "pin")) &&
		    (ret = kb_ycheck_pins(&c->y, pin, "guest.pin", &pins,
					  &g->npin)))
			return ret;
		g->pin = pins ? kb_matrix__keep(c->m, pins) : NULL;
		if (pin) {
			g->pin_loc.line = pin->line;
			g->pin_loc.col = pin->col;
		}
		if ((v = kb_ynode_get(n, "passthrough"))) {
			if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
						  "guest.passthrough")))
				return ret;
			pci = kb_matrix__keep(c->m,
					      kb_calloc(v->n, sizeof(*pci)));
			for (i = 0; i < v->n; i++) {
				if ((ret = kb_ycheck_string(&c->y, v->items[i],
							    "a PCI address",
							    &pci[i])))
					return ret;
				if (!pci_address_valid(pci[i]))
					return fail(c, v->items[i],
						    "invalid PCI address '%s': expected DDDD:BB:SS.F in hex, such as 0000:04:00.0",
						    pci[i]);
			}
			g->passthrough = pci;
			g->npassthrough = v->n;
			g->passthrough_loc.line = v->line;
			g->passthrough_loc.col = v->col;
		}
		if ((v = kb_ynode_get(n, "disks"))) {
			const char **disks;

			if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
						  "guest.disks")))
				return ret;
			disks = kb_matrix__keep(
			    c->m, kb_calloc(v->n + 1, sizeof(*disks)));
			for (i = 0; i < v->n; i++)
				if ((ret = guest_disk(c, v->items[i],
						      &disks[i])))
					return ret;
			g->disks = disks;
			g->ndisks = v->n;
		}
		if ((v = kb_ynode_get(n, "boot_timeout_s")) &&
		    (ret = kb_matrix__uint(c, v, "guest.boot_timeout_s", 1,
					   86400, &g->boot_timeout_s)))
			return ret;
		if ((v = kb_ynode_get(n, "scratch_disks")) &&
		    (ret = kb_matrix__uint(c, v, "guest.scratch_disks", 1,
				    KB_MATRIX_MAX_TARGETS, &g->scratch_disks)))
			return ret;
		if (v && g->scratch_disks && g->hypervisor == KB_HV_XEN)
			return fail(c, v,
				    "guest.scratch_disks needs hypervisor kvm or qemu: give a Xen guest guest.disks or passthrough devices");
	}
	if (!g->boot_timeout_s)
		g->boot_timeout_s = 120;
	if (!g->mode)
		g->mode = g->hypervisor == KB_HV_XEN ? "pvh" : "hvm";
	if (!g->vcpus)
		g->vcpus = 1;
	if (!g->memory_mib)
		g->memory_mib = 512;
	if (g->npin && g->npin != g->vcpus &&
	    !kb_matrix_find_factor(c->m, "guest.vcpus") &&
	    !kb_matrix_find_factor(c->m, "guest.pin"))
		return fail(c, pin,
			    "guest.pin lists %zu vCPUs but guest.vcpus is %u: give one physical CPU per vCPU",
			    g->npin, g->vcpus);
	return 0;
}

static int repeat(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "boots", "runs_per_boot",
					    "max_boots", "order", "sentinel" };
	static const char *const orders[] = { "blocks", "sequential" };
	static const char *const bools[] = { "false", "true" };
	struct kb_repeat *r = &c->m->repeat;
	const struct kb_ynode *v, *maxn = NULL;
	size_t i;
	int ret;

	r->boots = 3;
	r->runs_per_boot = 1;
	if (n) {
		if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'repeat'")) ||
		    (ret = kb_ycheck_keys(&c->y, n, "'repeat'", keys, 5)))
			return ret;
		if ((v = kb_ynode_get(n, "sentinel"))) {
			if ((ret = kb_ycheck_choice(&c->y, v, "repeat.sentinel",
						    bools, 2, &i)))
				return ret;
			r->sentinel = (int)i;
		}
		if ((v = kb_ynode_get(n, "order"))) {
			if ((ret = kb_ycheck_choice(&c->y, v, "repeat.order",
						    orders, 2, &i)))
				return ret;
			r->order = i ? KB_ORDER_SEQUENTIAL : KB_ORDER_BLOCKS;
		}
		if ((v = kb_ynode_get(n, "boots")) &&
		    (ret = kb_matrix__uint(c, v, "repeat.boots", 1,
				    KB_MATRIX_MAX_BOOTS, &r->boots)))
			return ret;
		if ((v = kb_ynode_get(n, "runs_per_boot")) &&
		    (ret = kb_matrix__uint(c, v, "repeat.runs_per_boot", 1,
				    KB_MATRIX_MAX_RUNS, &r->runs_per_boot)))
			return ret;
		if ((maxn = kb_ynode_get(n, "max_boots")) &&
		    (ret = kb_matrix__uint(c, maxn, "repeat.max_boots", 1,
				    KB_MATRIX_MAX_BOOTS, &r->max_boots)))
			return ret;
	}
	if (!maxn)
		r->max_boots = r->boots > 10 ? r->boots : 10;
	else if (r->max_boots < r->boots)
		return fail(c, maxn,
			    "repeat.max_boots (%u) is less than repeat.boots (%u)",
			    r->max_boots, r->boots);
	return 0;
}

static int compare(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "threshold_pct", "alpha" };
	struct kb_compare *cmp = &c->m->compare;
	const struct kb_ynode *v;
	int ret;

	cmp->threshold_pct = 5;
	cmp->alpha = 0.05;
	if (!n)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'compare'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'compare'", keys, 2)))
		return ret;
	if ((v = kb_ynode_get(n, "threshold_pct")) &&
	    (ret = get_double(c, v, "compare.threshold_pct", 0, 1000,
			      &cmp->threshold_pct)))
		return ret;
	if ((v = kb_ynode_get(n, "alpha")) &&
	    (ret = get_double(c, v, "compare.alpha", 0, 0.5, &cmp->alpha)))
		return ret;
	return 0;
}

static int build(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "jobs", "make_args", "overlap" };
	static const char *const overlap[] = { "auto", "yes", "no", "true",
					       "false" };
	struct kb_build_cfg *b = &c->m->build;
	const struct kb_ynode *v;
	const char **args;
	size_t i;
	int ret;

	if (!n)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'build'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'build'", keys, 3)))
		return ret;
	/* build.overlap: builds while guests boot (lib/spread.h) */
	if ((v = kb_ynode_get(n, "overlap"))) {
		if ((ret = kb_ycheck_choice(&c->y, v, "build.overlap", overlap,
					    5, &i)))
			return ret;
		b->overlap = i == 0 ? KB_OVERLAP_AUTO
			     : i % 2 ? KB_OVERLAP_YES
				     : KB_OVERLAP_NO;
	}
	if ((v = kb_ynode_get(n, "jobs")) &&
	    (ret = kb_matrix__uint(c, v, "build.jobs", 1, 1024, &b->jobs)))
		return ret;
	if ((v = kb_ynode_get(n, "make_args"))) {
		if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
					  "build.make_args")))
			return ret;
		if (v->n > 64)
			return fail(c, v, "build.make_args has more than 64 items");
		args =
		    kb_matrix__keep(c->m, kb_calloc(v->n + 1, sizeof(*args)));
		for (i = 0; i < v->n; i++)
			if ((ret = kb_ycheck_string(&c->y, v->items[i],
						    "a make argument",
						    &args[i])))
				return ret;
		b->make_args = args;
		b->nmake_args = v->n;
	}
	return 0;
}

/* Whether libvirt URI @uri names a host: DRIVER[+T]://HOST/... */
static int uri_names_host(const char *uri)
{
	const char *p = strstr(uri, "://");

	return p && p[3] && p[3] != '/';
}

/* hosts[].pool: a libvirt storage pool name. */
static int host_pool(struct ctx *c, const struct kb_ynode *v,
		     const char **out)
{
	int ret = kb_ycheck_string(&c->y, v, "a storage pool name", out);
	size_t n;

	if (ret)
		return ret;
	n = strlen(*out);
	if (!n || n > 64 || **out == '.' ||
	    strspn(*out, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return fail(c, v,
			    "invalid storage pool name '%s': expected 1 to 64 letters, digits, '.', '_' and '-'",
			    *out);
	return 0;
}

/*
 * hosts[@i] at @h is a machine (@v, its 'machine' key): nothing else goes
 * with it, its name is unique, and its commands run programs here, so an
 * untrusted matrix may not name one (as the ext transport).
 */
static int host_machine(struct ctx *c, const struct kb_ynode *h,
			const struct kb_ynode *v, size_t i,
			struct kb_host *host)
{
	const char *name;
	size_t j, k;
	int ret;

	for (k = 0; k < h->n; k++)
		if (strcmp(h->keys[k]->str, "machine"))
			return fail(c, h->keys[k],
				    "'%s' does not go with 'machine': a machine host is booted once at a time, through its own commands",
				    h->keys[k]->str);
	if ((ret = kb_matrix__machine(c, v, &host->machine)))
		return ret;
	name = kb_machine_name(host->machine);
	for (j = 0; j < i; j++)
		if (c->m->hosts[j].machine &&
		    !strcmp(kb_machine_name(c->m->hosts[j].machine), name))
			return fail(c, kb_ynode_get(v, "name"),
				    "duplicate machine name '%s' (hosts[%zu] has it)",
				    name, j);
	host->uri = kb_matrix__keep(c->m, kb_asprintf("machine:%s", name));
	if (!c->stored && !kb_host_trusted())
		return fail(c, h->keys[0],
			    "machine host '%s' is refused: its power, console and boot commands run programs on this machine; a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1, docs/matrix.md \"Machines\")",
			    name);
	return 0;
}

static int hosts(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "uri", "capacity", "pool",
					    "machine" };
	struct kb_matrix *m = c->m;
	size_t i;
	int ret;

	if (!n) {
		m->hosts = kb_matrix__keep(m, kb_calloc(1, sizeof(*m->hosts)));
		m->hosts[0].uri = m->guest.hypervisor == KB_HV_XEN
					  ? "xen:///system"
					  : "qemu:///system";
		m->hosts[0].capacity = 1;
		m->nhosts = 1;
		return 0;
	}
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_SEQ, "'hosts'")))
		return ret;
	if (n->n == 0)
		return fail(c, n, "'hosts' is empty: list at least one libvirt URI");
	m->hosts = kb_matrix__keep(m, kb_calloc(n->n, sizeof(*m->hosts)));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *h = n->items[i], *v;
		struct kb_host *host = &m->hosts[i];
		char whybuf[256];
		const char *why;

		host->capacity = 1;
		host->loc.line = h->line;
		host->loc.col = h->col;
		if (h->type == KB_Y_MAP && (v = kb_ynode_get(h, "machine"))) {
			if ((ret = host_machine(c, h, v, i, host)))
				return ret;
			continue;
		}
		if (h->type == KB_Y_SCALAR) {
			ret = kb_ycheck_string(&c->y, h, "a host URI",
					       &host->uri);
		} else {
			if ((ret = kb_ycheck_type(&c->y, h, KB_Y_MAP,
						  "a host")) ||
			    (ret = kb_ycheck_keys(&c->y, h, "a host", keys, 4)))
				return ret;
			if (!(v = kb_ynode_get(h, "uri")))
				return fail(c, h,
					    "a host needs 'uri', such as qemu:///system");
			if ((ret = kb_ycheck_string(&c->y, v, "a host URI",
						    &host->uri)))
				return ret;
			if ((v = kb_ynode_get(h, "capacity")))
				ret = kb_matrix__uint(c, v, "host capacity", 1,
						      256, &host->capacity);
			if (!ret && (v = kb_ynode_get(h, "pool")))
				ret = host_pool(c, v, &host->pool);
		}
		if (ret)
			return ret;
		if (!host->pool && uri_names_host(host->uri))
			host->pool = "kbisect";
		if (!strstr(host->uri, ":/"))
			return fail(c, h,
				    "invalid libvirt URI '%s': expected DRIVER[+TRANSPORT]://[HOST]/PATH, such as xen:///system",
				    host->uri);
		/* a stored matrix is read, never connected with from here:
		 * the connection checks again (lib/exec/guest.c) */
		if (!c->stored && !kb_host_trusted() &&
		    (why = kb_host_uri_refused(host->uri, whybuf,
					       sizeof(whybuf))))
			return fail(c, h->type == KB_Y_SCALAR
					       ? h
					       : kb_ynode_get(h, "uri"),
				    "host URI '%s' is refused: %s; a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1, docs/matrix.md \"Hosts\")",
				    host->uri, why);
	}
	m->nhosts = n->n;
	return 0;
}

static char *name_from_file(const char *file)
{
	const char *base = strrchr(file, '/');
	const char *dot;

	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return kb_strdup(base);
	return kb_strndup(base, (size_t)(dot - base));
}

/*
 * machine.* factors change what a machine host boots: a matrix with one
 * has machine hosts only, and a variant booted as dom0 (machine.hypervisor
 * xen; without that factor, every variant when Xen's own factors are
 * given) has a Xen image (a machine.xen factor, or every machine's xen).
 */
static int machine_factors(struct ctx *c)
{
	const struct kb_matrix *m = c->m;
	const struct kb_factor *hv = NULL, *xen_cmdline = NULL,
			       *xen_f = NULL;
	const struct kb_loc *dom0 = NULL;
	size_t i, l, machines = 0, kexec = 0;
	int xen_factor = 0, every_xen = 1;

	for (i = 0; i < m->nhosts; i++) {
		if (!m->hosts[i].machine)
			continue;
		machines++;
		if (!kb_machine_xen(m->hosts[i].machine))
			every_xen = 0;
		if (kb_machine_boot_method(m->hosts[i].machine) ==
		    KB_MACHINE_KEXEC)
			kexec++;
	}
	for (i = 0; i < m->nfactors; i++) {
		const struct kb_factor *f = &m->factors[i];

		if (strncmp(f->name, "machine.", 8))
			continue;
		if (machines < m->nhosts || !machines)
			return kb_err_at(c->y.err, m->file, f->loc.line,
					 f->loc.col,
					 "factor %s changes what a machine boots: every host must be a machine (hosts[].machine, docs/matrix.md \"Machines\")",
					 f->name);
		if (!strcmp(f->name, "machine.xen")) {
			xen_factor = 1;
			xen_f = f;
		}
		if (!strcmp(f->name, "machine.hypervisor"))
			hv = f;
		if (!strcmp(f->name, "machine.xen_cmdline"))
			xen_cmdline = f;
	}
	/* where a variant is first booted as dom0 (lib/plan.c: a
	 * machine.hypervisor xen level, else Xen's own factors) */
	if (hv) {
		for (l = 0; l < hv->nlevels && !dom0; l++)
			if (!strcmp(hv->levels[l].value, "xen"))
				dom0 = &hv->levels[l].loc;
	} else if (xen_f || xen_cmdline) {
		dom0 = xen_f ? &xen_f->loc : &xen_cmdline->loc;
	}
	if (dom0 && kexec)
		return kb_err_at(c->y.err, m->file, dom0->line, dom0->col,
				 "boot method kexec boots Linux only; Xen's dom0 needs grub-reboot or command");
	if (xen_factor || every_xen)
		return 0;
	if (!hv && xen_cmdline)
		return kb_err_at(c->y.err, m->file, xen_cmdline->loc.line,
				 xen_cmdline->loc.col,
				 "machine.xen_cmdline boots every variant as Xen's dom0, which needs a Xen image: a machine.xen factor, or 'xen' in every machine host");
	if (!hv)
		return 0;
	for (l = 0; l < hv->nlevels; l++)
		if (!strcmp(hv->levels[l].value, "xen"))
			return kb_err_at(c->y.err, m->file,
					 hv->levels[l].loc.line,
					 hv->levels[l].loc.col,
					 "machine.hypervisor xen needs a Xen image: a machine.xen factor, or 'xen' in every machine host");
	return 0;
}

/* A top-level section; an empty or null one counts as absent. */
static const struct kb_ynode *section(const struct kb_ynode *root,
				      const char *key)
{
	const struct kb_ynode *v = kb_ynode_get(root, key);

	return v && kb_ynode_is_null(v) ? NULL : v;
}

static int top(struct ctx *c, const struct kb_ynode *root)
{
	static const char *const keys[] = { "name",     "description",
					    "source",   "factors",
					    "design",   "guest",
					    "workload", "repeat",
					    "compare",  "hosts",
					    "build" };
	static const char *const designs[] = { "full", "one-at-a-time",
					       "fractional",
					       "plackett-burman" };
	struct kb_matrix *m = c->m;
	const struct kb_ynode *v;
	size_t i;
	int ret;

	if (!root)
		return fail(c, NULL,
			    "the matrix is empty: expected a mapping with at least 'workload'");
	if ((ret = kb_ycheck_type(&c->y, root, KB_Y_MAP, "the matrix")) ||
	    (ret = kb_ycheck_keys(&c->y, root, "the matrix", keys, 11)))
		return ret;
	if ((v = kb_ynode_get(root, "name"))) {
		if ((ret = kb_ycheck_string(&c->y, v, "name", &m->name)))
			return ret;
		if (v->len > 128)
			return fail(c, v, "name is longer than 128 bytes");
	} else {
		m->name = kb_matrix__keep(m, name_from_file(m->file));
	}
	if ((v = kb_ynode_get(root, "description")) &&
	    (ret = kb_ycheck_type(&c->y, v, KB_Y_SCALAR, "description")))
		return ret;
	if ((v = section(root, "source")) && (ret = source(c, v)))
		return ret;
	if ((v = section(root, "factors")) && (ret = kb_matrix__factors(c, v)))
		return ret;
	if ((ret = prebuilt_mix(c, section(root, "source"))))
		return ret;
	if ((v = kb_ynode_get(root, "design"))) {
		if ((ret = kb_ycheck_choice(&c->y, v, "design", designs, 4,
					    &i)))
			return ret;
		m->design = (enum kb_design_kind)i;
	}
	if ((ret = guest(c, section(root, "guest"))) ||
	    (ret = kb_matrix__workload(c, section(root, "workload"))) ||
	    (ret = repeat(c, section(root, "repeat"))) ||
	    (ret = compare(c, section(root, "compare"))) ||
	    (ret = hosts(c, section(root, "hosts"))) ||
	    (ret = build(c, section(root, "build"))))
		return ret;
	if ((ret = machine_factors(c)))
		return ret;
	/* guest.mode levels must suit the hypervisor */
	for (i = 0; i < m->nfactors; i++) {
		const struct kb_factor *f = &m->factors[i];
		size_t l;

		if (strcmp(f->name, "guest.mode") ||
		    m->guest.hypervisor == KB_HV_XEN)
			continue;
		for (l = 0; l < f->nlevels; l++)
			if (strcmp(f->levels[l].value, "hvm"))
				return kb_err_at(
					c->y.err, m->file,
					f->levels[l].loc.line,
					f->levels[l].loc.col,
					"guest mode '%s' needs hypervisor xen; %s guests are hvm",
					f->levels[l].value,
					kb_hypervisor_name(m->guest.hypervisor));
	}
	return 0;
}

/* kb_matrix_parse_buffer(), or kb_matrix_parse_stored() when @stored. */
static int parse(const char *data, size_t len, const char *file, int stored,
		 struct kb_matrix **out, struct kb_err *err)
{
	struct kb_matrix *m = kb_calloc(1, sizeof(*m));
	struct ctx c = { .m = m, .y = { .err = err }, .stored = stored };
	int ret;

	*out = NULL;
	m->file = kb_matrix__keep(m, kb_strdup(file));
	c.y.file = m->file;
	if ((ret = kb_ydoc_parse_buffer(data, len, file, &m->doc, err)))
		goto out;
	if ((ret = top(&c, kb_ydoc_root(m->doc))))
		goto out;
	*out = m;
	m = NULL;
out:
	kb_matrix_free(m);
	return ret;
}

int kb_matrix_parse_buffer(const char *data, size_t len, const char *file,
			   struct kb_matrix **out, struct kb_err *err)
{
	return parse(data, len, file, 0, out, err);
}

int kb_matrix_parse_stored(const char *data, size_t len, const char *file,
			   struct kb_matrix **out, struct kb_err *err)
{
	return parse(data, len, file, 1, out, err);
}

int kb_matrix_load(const char *path, struct kb_matrix **out,
		   struct kb_err *err)
{
	struct kb_ydoc *doc = NULL;
	int ret;

	*out = NULL;
	/* read through ydoc for its size cap, then validate the text */
	if ((ret = kb_ydoc_load_file(path, &doc, err)))
		return ret;
	ret = kb_matrix_parse_buffer(kb_ydoc_text(doc),
				     strlen(kb_ydoc_text(doc)), path, out,
				     err);
	kb_ydoc_free(doc);
	return ret;
}
