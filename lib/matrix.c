#include "matrix.h"

#include <regex.h>
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

static void *keep(struct kb_matrix *m, void *p)
{
	m->pool = kb_reallocarray(m->pool, m->npool + 1, sizeof(*m->pool));
	m->pool[m->npool++] = p;
	return p;
}

void *kb_matrix__keep(struct kb_matrix *m, void *p)
{
	return keep(m, p);
}

/* ---- Kconfig names ---------------------------------------------------- */

const char *kb_design_name(enum kb_design_kind kind)
{
	switch (kind) {
	case KB_DESIGN_FULL:
		return "full";
	case KB_DESIGN_ONE_AT_A_TIME:
		return "one-at-a-time";
	case KB_DESIGN_FRACTIONAL:
		return "fractional";
	case KB_DESIGN_PLACKETT_BURMAN:
		return "plackett-burman";
	}
	return "?";
}

const char *kb_hypervisor_name(enum kb_hypervisor hv)
{
	switch (hv) {
	case KB_HV_XEN:
		return "xen";
	case KB_HV_KVM:
		return "kvm";
	case KB_HV_QEMU:
		return "qemu";
	}
	return "?";
}

int kb_factor_kind_builds(enum kb_factor_kind kind)
{
	return kind == KB_FACTOR_KCONFIG || kind == KB_FACTOR_KERNEL;
}

const char *kb_factor_kind_name(enum kb_factor_kind kind)
{
	static const char *const names[] = { "kconfig", "kernel", "guest",
					     "workload", "cmdline", "sysctl" };

	return (size_t)kind < sizeof(names) / sizeof(names[0]) ? names[kind]
							     : "?";
}

/* ---- typed accessors ---------------------------------------------------- */

/* An integer in [min, max], as kb_ycheck_uint() takes it. */
static int get_uint(struct ctx *c, const struct kb_ynode *n, const char *what,
		    unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	int ret = kb_ycheck_uint(&c->y, n, what, min, max, &v);

	if (!ret)
		*out = (unsigned)v;
	return ret;
}

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

/* A file the matrix refers to: resolved against the matrix's folder. */
static int get_file(struct ctx *c, const struct kb_ynode *n, const char *what,
		    const char **out)
{
	struct stat st;
	const char *s;
	char *path;
	int ret = kb_ycheck_string(&c->y, n, what, &s);

	if (ret)
		return ret;
	path = keep(c->m, kb_path_relative_to(c->m->file, s));
	if (c->stored) {
		*out = path;
		return 0;
	}
	if (stat(path, &st) < 0)
		return fail(c, n, "%s '%s' does not exist (looked at '%s')",
			    what, s, path);
	if (S_ISDIR(st.st_mode))
		return fail(c, n, "%s '%s' is a folder, expected a file", what,
			    s);
	*out = path;
	return 0;
}

/* ---- levels ------------------------------------------------------------ */

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

/* Validate one level of guest/kernel factor @f. */
static int other_level(struct ctx *c, struct kb_factor *f,
		       const struct kb_ynode *n, struct kb_level *out)
{
	char *text;
	int ret;

	if (f->kind == KB_FACTOR_WORKLOAD || f->kind == KB_FACTOR_CMDLINE ||
	    f->kind == KB_FACTOR_SYSCTL)
		return kb_matrix__runtime_level(c, f, n, out);
	if (f->kind == KB_FACTOR_GUEST) {
		if ((ret = kb_ycheck_guest_level(&c->y, n, f->name, &text)))
			return ret;
		out->value = keep(c->m, text);
		return 0;
	}
	if (!strcmp(f->name, "kernel.image"))
		return get_file(c, n, "kernel image", &out->value);
	return kb_ycheck_string(&c->y, n, "a kernel.rev level", &out->value);
}

/* Parse the levels list of factor @f at node @n. */
static int levels(struct ctx *c, struct kb_factor *f, const struct kb_ynode *n)
{
	struct kb_level *lv;
	size_t i, j;
	int ret;

	if (n->type != KB_Y_SEQ)
		return fail(c, n,
			    "factor %s must be a list of levels such as [y, n], found %s",
			    f->name, kb_ynode_kind(n));
	if (n->n == 0)
		return fail(c, n, "factor %s has no levels: list at least one",
			    f->name);
	if (n->n > KB_MATRIX_MAX_LEVELS)
		return fail(c, n, "factor %s has %zu levels, more than %d",
			    f->name, n->n, KB_MATRIX_MAX_LEVELS);
	lv = keep(c->m, kb_calloc(n->n, sizeof(*lv)));
	for (i = 0; i < n->n; i++) {
		lv[i].loc.line = n->items[i]->line;
		lv[i].loc.col = n->items[i]->col;
		if (f->kind != KB_FACTOR_KCONFIG) {
			ret = other_level(c, f, n->items[i], &lv[i]);
		} else if (!(ret = kb_ycheck_kconfig_level(&c->y, n->items[i],
							   f->name))) {
			lv[i].value = n->items[i]->str;
			lv[i].quoted = n->items[i]->quoted;
		}
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(lv[j].value, lv[i].value))
				return fail(c, n->items[i],
					    "level '%s' of %s is listed twice (first at line %u)",
					    lv[i].value, f->name,
					    lv[j].loc.line);
	}
	f->levels = lv;
	f->nlevels = n->n;
	return 0;
}

int kb_matrix__add_factor(struct ctx *c, enum kb_factor_kind kind,
			  const char *name, const struct kb_ynode *key,
			  const struct kb_ynode *value)
{
	struct kb_matrix *m = c->m;
	struct kb_factor *f;
	size_t i;

	for (i = 0; i < m->nfactors; i++)
		if (!strcmp(m->factors[i].name, name))
			return fail(c, key,
				    "duplicate factor '%s' (first at line %u)",
				    name, m->factors[i].loc.line);
	if (m->nfactors >= KB_MATRIX_MAX_FACTORS)
		return fail(c, key, "more than %d factors",
			    KB_MATRIX_MAX_FACTORS);
	f = &m->factors[m->nfactors];
	f->kind = kind;
	f->name = name;
	f->loc.line = key->line;
	f->loc.col = key->col;
	m->nfactors++;
	return levels(c, f, value);
}

static int factors(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const groups[] = { "kconfig", "guest", "kernel",
					      "workload", "cmdline",
					      "sysctl" };
	static const char *const guest_keys[] = { "mode", "vcpus", "pin",
						  "memory_mib" };
	static const char *const kernel_keys[] = { "rev", "image" };
	size_t g, i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'factors'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'factors'", groups, 6)))
		return ret;
	for (g = 0; g < n->n; g++) {
		const struct kb_ynode *grp = n->items[g];
		const char *gname = n->keys[g]->str;
		char what[64];

		snprintf(what, sizeof(what), "'factors.%s'", gname);
		if ((ret = kb_ycheck_type(&c->y, grp, KB_Y_MAP, what)))
			return ret;
		if (!strcmp(gname, "guest") &&
		    (ret = kb_ycheck_keys(&c->y, grp, what, guest_keys, 4)))
			return ret;
		if (!strcmp(gname, "kernel") &&
		    (ret = kb_ycheck_keys(&c->y, grp, what, kernel_keys, 2)))
			return ret;
		if (!strcmp(gname, "workload") || !strcmp(gname, "cmdline") ||
		    !strcmp(gname, "sysctl")) {
			if ((ret = kb_matrix__runtime_group(c, gname, grp)))
				return ret;
			continue;
		}
		for (i = 0; i < grp->n; i++) {
			const struct kb_ynode *key = grp->keys[i];
			const char *name;

			if (!strcmp(gname, "kconfig")) {
				if ((ret = kb_ycheck_kconfig_name(&c->y, key,
								  &name)))
					return ret;
				ret = kb_matrix__add_factor(c, KB_FACTOR_KCONFIG, name,
						 key, grp->items[i]);
			} else {
				name = keep(c->m, kb_asprintf("%s.%s", gname,
							      key->str));
				ret = kb_matrix__add_factor(c,
						 !strcmp(gname, "guest")
							 ? KB_FACTOR_GUEST
							 : KB_FACTOR_KERNEL,
						 name, key, grp->items[i]);
			}
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * A prebuilt image (a kernel.image factor, or source.kernel at @src's
 * "kernel") has its own config and revision.  The real executor builds
 * every variant that sets a Kconfig option or kernel.rev from source.tree
 * (lib/realexec.h), and every variant sets every factor: with such a
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
		s->tree = keep(c->m, kb_path_relative_to(c->m->file, s->tree));
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
		path = keep(c->m, kb_path_relative_to(c->m->file, b));
		/* stored: a name that looks like a target is one */
		if ((c->stored || stat(path, &st) < 0) && is_make_target(b)) {
			s->base = b;
			s->base_is_target = 1;
		} else if ((ret = get_file(c, v, "base .config", &s->base))) {
			return ret;
		}
	}
	if ((v = kb_ynode_get(n, "fragments"))) {
		if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
					  "source.fragments")))
			return ret;
		frags = keep(c->m, kb_calloc(v->n, sizeof(*frags)));
		for (i = 0; i < v->n; i++)
			if ((ret = get_file(c, v->items[i], "config fragment",
					    &frags[i])))
				return ret;
		s->fragments = frags;
		s->nfragments = v->n;
	}
	if ((v = kb_ynode_get(n, "kernel")) &&
	    (ret = get_file(c, v, "kernel image", &s->kernel)))
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
	path = keep(c->m, kb_path_relative_to(c->m->file, s));
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
	im = keep(c->m, kb_calloc(1, sizeof(*im)));
	if (!(v = kb_ynode_get(n, "packages")))
		return fail(c, n,
			    "guest.image needs 'packages': the Debian packages the workload uses, such as [fio, sysbench]");
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ, "guest.image.packages")))
		return ret;
	if (v->n == 0 || v->n > 256)
		return fail(c, v,
			    "guest.image.packages must list 1 to 256 packages, found %zu",
			    v->n);
	pkgs = keep(c->m, kb_calloc(v->n, sizeof(*pkgs)));
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
		i = strlen(im->suite);
		if (!i || i > 64 ||
		    strspn(im->suite, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
			    i)
			return fail(c, v,
					    "invalid suite '%s': expected a Debian suite such as bookworm",
					    im->suite);
	}
	if ((v = kb_ynode_get(n, "size_mib")) &&
	    (ret = get_uint(c, v, "guest.image.size_mib", 64, 1u << 20,
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
			g->mode = keep(c->m, mode);
			if (g->hypervisor != KB_HV_XEN &&
			    strcmp(g->mode, "hvm"))
				return fail(c, v,
					    "guest mode '%s' needs hypervisor xen; %s guests are hvm",
					    g->mode,
					    kb_hypervisor_name(g->hypervisor));
		}
		if ((v = kb_ynode_get(n, "vcpus")) &&
		    (ret = get_uint(c, v, "guest.vcpus", 1,
				    KB_MATRIX_MAX_VCPUS, &g->vcpus)))
			return ret;
		if ((v = kb_ynode_get(n, "memory_mib")) &&
		    (ret = get_uint(c, v, "guest.memory_mib", 16, 16u << 20,
				    &g->memory_mib)))
			return ret;
		if ((pin = kb_ynode_get(n, "pin")) &&
		    (ret = kb_ycheck_pins(&c->y, pin, "guest.pin", &pins,
					  &g->npin)))
			return ret;
		g->pin = pins ? keep(c->m, pins) : NULL;
		if (pin) {
			g->pin_loc.line = pin->line;
			g->pin_loc.col = pin->col;
		}
		if ((v = kb_ynode_get(n, "passthrough"))) {
			if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
						  "guest.passthrough")))
				return ret;
			pci = keep(c->m, kb_calloc(v->n, sizeof(*pci)));
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
			disks = keep(c->m, kb_calloc(v->n + 1, sizeof(*disks)));
			for (i = 0; i < v->n; i++)
				if ((ret = guest_disk(c, v->items[i],
						      &disks[i])))
					return ret;
			g->disks = disks;
			g->ndisks = v->n;
		}
		if ((v = kb_ynode_get(n, "boot_timeout_s")) &&
		    (ret = get_uint(c, v, "guest.boot_timeout_s", 1, 86400,
				    &g->boot_timeout_s)))
			return ret;
		if ((v = kb_ynode_get(n, "scratch_disks")) &&
		    (ret = get_uint(c, v, "guest.scratch_disks", 1,
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

static int word_valid(const char *s, size_t max)
{
	const char *p;

	if (!*s || strlen(s) >= max)
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

/*
 * The metric a fio job is about when the matrix does not say: fio's rw
 * (default read) tells the direction; mixed directions have no default.
 */
static const char *fio_default_metric(const struct kb_workload *w)
{
	static const char *const map[][2] = {
		{ "read", "read_iops" },   { "randread", "read_iops" },
		{ "write", "write_iops" }, { "randwrite", "write_iops" },
		{ "trim", "trim_iops" },   { "randtrim", "trim_iops" },
	};
	const char *rw = "read";
	size_t i, len;

	for (i = 0; i < w->nfio; i++)
		if (!strcmp(w->fio[i].key, "rw") ||
		    !strcmp(w->fio[i].key, "readwrite"))
			rw = w->fio[i].value;
	len = strcspn(rw, ":"); /* rw=randread:8 */
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i][0]) == len && !strncmp(rw, map[i][0], len))
			return map[i][1];
	return NULL;
}

/*
 * glibc's regcomp() expands counted repetitions, so "(a{,1100}){100}"
 * takes gigabytes to compile, and a repetition of a repetition doubles
 * its memory each time ("a+++...": 20 of them take 1 GB, found by make
 * fuzz-run), as does a repeated group in a repeated group
 * ("((a+)+)+"...: 20 deep take 16 GB): keep regexes short, their counts
 * small, their repetitions single (POSIX leaves "a++" undefined anyway)
 * and their groups at most REGEX_MAX_DEPTH deep.
 */
#define REGEX_MAX_LEN 256
#define REGEX_MAX_COUNT 16
#define REGEX_MAX_COUNTED 2
#define REGEX_MAX_DEPTH 4

static int regex_bounded(struct ctx *c, const struct kb_ynode *n,
			 const char *what)
{
	const char *p;
	unsigned counted = 0;

	if (n->len > REGEX_MAX_LEN)
		return fail(c, n, "%s is longer than %d characters",
			    what, REGEX_MAX_LEN);
	int after_rep = 0; /* the previous item was a repetition */
	int depth = 0;     /* of parentheses */

	for (p = n->str; *p; p++) {
		const char *q;
		int is_rep = *p == '*' || *p == '+' || *p == '?' || *p == '{';

		if (is_rep && after_rep)
			return fail(c, n,
				    "%s repeats a repetition ('%.2s'): write one of them",
				    what, p - 1);
		after_rep = is_rep;
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '(' && ++depth > REGEX_MAX_DEPTH)
			return fail(c, n,
				    "%s nests groups more than %d deep",
				    what, REGEX_MAX_DEPTH);
		if (*p == ')' && depth > 0)
			depth--;
		if (*p == '[') {
			/* a bracket expression: its characters are literal;
			 * "]" first (after an optional "^") is one of them */
			q = p + 1 + (p[1] == '^');
			q += *q == ']';
			while (*q && *q != ']')
				q++;
			if (!*q)
				break; /* unmatched: regcomp refuses it */
			p = q;
			continue;
		}
		if (*p != '{')
			continue;
		if (++counted > REGEX_MAX_COUNTED)
			return fail(c, n,
				    "%s has more than %d counted repetitions {m,n}: use + or * instead",
				    what, REGEX_MAX_COUNTED);
		for (q = p + 1; *q && *q != '}'; q++) {
			if (*q >= '0' && *q <= '9') {
				char *end;
				unsigned long v = strtoul(q, &end, 10);

				q = end - 1;
				if (v > REGEX_MAX_COUNT)
					return fail(c, n,
						    "%s repeats something %lu times: counts above %d are refused (they make the regex huge)",
						    what, v, REGEX_MAX_COUNT);
			} else if (*q == ',' && (q[1] == '}')) {
				return fail(c, n,
					    "%s has an open count {m,}: use + or * instead",
					    what);
			}
		}
		if (p[1] == ',')
			return fail(c, n,
				    "%s has a count {,n} without a minimum: write {0,n}",
				    what);
		if (*q == '}')
			p = q; /* the count is one repetition, read */
	}
	return 0;
}

/*
 * workload.files: host files copied into guest.image as /data/NAME, so
 * two may not share a name.  guest is parsed first.
 */
static int workload_files(struct ctx *c, const struct kb_ynode *n)
{
	const struct kb_ynode *v = kb_ynode_get(n, "files");
	struct kb_workload *w = &c->m->workload;
	const char **files;
	size_t i, j;
	int ret;

	if (!v)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ, "workload.files")))
		return ret;
	if (!c->m->guest.image)
		return fail(c, v,
			    "workload.files needs guest.image: the files are copied into the guest's image as /data/NAME");
	files = keep(c->m, kb_calloc(v->n + 1, sizeof(*files)));
	for (i = 0; i < v->n; i++) {
		if ((ret = get_file(c, v->items[i], "workload file",
				    &files[i])))
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(kb_path_base(files[i]),
				    kb_path_base(files[j])))
				return fail(c, v->items[i],
					    "workload file '%s' has the same name as '%s': both would be /data/%s in the image",
					    files[i], files[j],
					    kb_path_base(files[i]));
	}
	w->files = files;
	w->nfiles = v->n;
	return 0;
}

int kb_matrix__regex_one_group(struct ctx *c, const struct kb_ynode *n,
			       const char *what)
{
	regex_t re;
	int rc, ret;

	if ((ret = regex_bounded(c, n, what)))
		return ret;
	rc = regcomp(&re, n->str, REG_EXTENDED);
	if (rc) {
		char msg[128];

		regerror(rc, &re, msg, sizeof(msg));
		return fail(c, n, "invalid regex: %s", msg);
	}
	if (re.re_nsub != 1) {
		regfree(&re);
		return fail(c, n,
			    "the regex must have exactly one (group) around the number to take, found %zu",
			    re.re_nsub);
	}
	regfree(&re);
	return 0;
}

static int workload(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "fio", "fio_job", "command",
					    "metric", "timeout_s", "better",
					    "targets", "targets_count",
					    "per_device", "files" };
	static const char *const betters[] = { "higher", "lower" };
	static const char *const cmd_keys[] = { "run", "regex", "metrics",
						"parser" };
	struct kb_workload *w = &c->m->workload;
	const struct kb_ynode *v, *kind = NULL;
	struct kb_option *opts;
	size_t i, nkinds = 0;
	int ret;

	if (!n)
		return fail(c, kb_ydoc_root(c->m->doc),
			    "missing required key 'workload': say what to measure (fio, fio_job or command)");
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'workload'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'workload'", keys, 10)) ||
	    (ret = workload_files(c, n)))
		return ret;
	if ((v = kb_ynode_get(n, "better"))) {
		size_t which;

		if ((ret = kb_ycheck_choice(&c->y, v, "workload.better",
					    betters, 2, &which)))
			return ret;
		w->better = which ? KB_BETTER_LOWER : KB_BETTER_HIGHER;
	}
	if ((v = kb_ynode_get(n, "timeout_s")) &&
	    (ret = get_uint(c, v, "workload.timeout_s", 1, 7 * 86400,
			    &w->timeout_s)))
		return ret;
	w->loc.line = n->line;
	w->loc.col = n->col;
	for (i = 0; i < 3; i++) {
		if ((v = kb_ynode_get(n, keys[i]))) {
			if (nkinds++)
				return fail(c, v,
					    "workload has both '%s' and '%s': give only one of fio, fio_job and command",
					    kind == kb_ynode_get(n, "fio")
						    ? "fio"
						    : "fio_job",
					    keys[i]);
			kind = v;
			w->kind = (enum kb_workload_kind)i;
		}
	}
	if (!kind)
		return fail(c, n,
			    "workload needs one of 'fio', 'fio_job' or 'command'");
	switch (w->kind) {
	case KB_WORKLOAD_FIO:
		if ((ret = kb_ycheck_type(&c->y, kind, KB_Y_MAP,
					  "workload.fio")))
			return ret;
		if (kind->n == 0)
			return fail(c, kind,
				    "workload.fio is empty: give fio options such as { rw: randread, bs: 4k }");
		opts = keep(c->m, kb_calloc(kind->n, sizeof(*opts)));
		for (i = 0; i < kind->n; i++) {
			if ((ret = kb_ycheck_string(&c->y, kind->items[i],
						    "a fio option value",
						    &opts[i].value)))
				return ret;
			opts[i].key = kind->keys[i]->str;
			opts[i].loc.line = kind->keys[i]->line;
			opts[i].loc.col = kind->keys[i]->col;
			if (!word_valid(opts[i].key, 64))
				return fail(c, kind->keys[i],
					    "invalid fio option name '%s'",
					    opts[i].key);
		}
		w->fio = opts;
		w->nfio = kind->n;
		break;
	case KB_WORKLOAD_FIO_JOB:
		if ((ret = get_file(c, kind, "fio job file", &w->fio_job)))
			return ret;
		break;
	case KB_WORKLOAD_COMMAND:
		if ((ret = kb_ycheck_type(&c->y, kind, KB_Y_MAP,
					  "workload.command")))
			return ret;
		for (i = 0; i < kind->n; i++)
			if (!strcmp(kind->keys[i]->str, "metric"))
				return fail(c, kind->keys[i],
					    "unknown key 'metric' in 'workload.command': the metric verdicts are about is workload.metric, beside command (workload.command.metrics names more numbers of the output)");
		if ((ret = kb_ycheck_keys(&c->y, kind, "'workload.command'",
					  cmd_keys, 4)))
			return ret;
		if (!(v = kb_ynode_get(kind, "run")))
			return fail(c, kind,
				    "workload.command needs 'run': the command line to time");
		if ((ret = kb_ycheck_script(&c->y, v, "workload.command.run",
					    &w->command)))
			return ret;
		if ((v = kb_ynode_get(kind, "regex")) &&
		    ((ret = kb_ycheck_string(&c->y, v, "workload.command.regex",
					     &w->regex)) ||
		     (ret = kb_matrix__regex_one_group(
			      c, v, "workload.command.regex"))))
			return ret;
		break;
	}
	if ((v = kb_ynode_get(n, "metric"))) {
		if ((ret = kb_ycheck_string(&c->y, v, "workload.metric",
					    &w->metric)))
			return ret;
		if (!kb_metric_name_valid(w->metric))
			return fail(c, v,
				    "invalid metric name '%s': expected lower case letters, digits and _, such as read_iops",
				    w->metric);
		return kb_matrix__workload_more(
			c, n, w->kind == KB_WORKLOAD_COMMAND ? kind : NULL);
	}
	if (w->kind == KB_WORKLOAD_COMMAND && !w->regex)
		w->metric = "real_s";
	else if (w->kind == KB_WORKLOAD_FIO &&
		 !(w->metric = fio_default_metric(w)))
		return fail(c, n,
			    "workload.fio mixes reads and writes: give 'metric', such as read_iops or write_iops");
	if (!w->metric)
		return fail(c, n,
			    "workload needs 'metric': the metric verdicts are about, such as read_iops or real_s");
	return kb_matrix__workload_more(
		c, n, w->kind == KB_WORKLOAD_COMMAND ? kind : NULL);
}

static int repeat(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "boots", "runs_per_boot",
					    "max_boots" };
	struct kb_repeat *r = &c->m->repeat;
	const struct kb_ynode *v, *maxn = NULL;
	int ret;

	r->boots = 3;
	r->runs_per_boot = 1;
	if (n) {
		if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'repeat'")) ||
		    (ret = kb_ycheck_keys(&c->y, n, "'repeat'", keys, 3)))
			return ret;
		if ((v = kb_ynode_get(n, "boots")) &&
		    (ret = get_uint(c, v, "repeat.boots", 1,
				    KB_MATRIX_MAX_BOOTS, &r->boots)))
			return ret;
		if ((v = kb_ynode_get(n, "runs_per_boot")) &&
		    (ret = get_uint(c, v, "repeat.runs_per_boot", 1,
				    KB_MATRIX_MAX_RUNS, &r->runs_per_boot)))
			return ret;
		if ((maxn = kb_ynode_get(n, "max_boots")) &&
		    (ret = get_uint(c, maxn, "repeat.max_boots", 1,
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
	    (ret = get_uint(c, v, "build.jobs", 1, 1024, &b->jobs)))
		return ret;
	if ((v = kb_ynode_get(n, "make_args"))) {
		if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ,
					  "build.make_args")))
			return ret;
		if (v->n > 64)
			return fail(c, v, "build.make_args has more than 64 items");
		args = keep(c->m, kb_calloc(v->n + 1, sizeof(*args)));
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

static int hosts(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "uri", "capacity", "pool" };
	struct kb_matrix *m = c->m;
	size_t i;
	int ret;

	if (!n) {
		m->hosts = keep(m, kb_calloc(1, sizeof(*m->hosts)));
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
	m->hosts = keep(m, kb_calloc(n->n, sizeof(*m->hosts)));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *h = n->items[i], *v;
		struct kb_host *host = &m->hosts[i];

		host->capacity = 1;
		if (h->type == KB_Y_SCALAR) {
			ret = kb_ycheck_string(&c->y, h, "a host URI",
					       &host->uri);
		} else {
			if ((ret = kb_ycheck_type(&c->y, h, KB_Y_MAP,
						  "a host")) ||
			    (ret = kb_ycheck_keys(&c->y, h, "a host", keys, 3)))
				return ret;
			if (!(v = kb_ynode_get(h, "uri")))
				return fail(c, h,
					    "a host needs 'uri', such as qemu:///system");
			if ((ret = kb_ycheck_string(&c->y, v, "a host URI",
						    &host->uri)))
				return ret;
			if ((v = kb_ynode_get(h, "capacity")))
				ret = get_uint(c, v, "host capacity", 1, 256,
					       &host->capacity);
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
		m->name = keep(m, name_from_file(m->file));
	}
	if ((v = kb_ynode_get(root, "description")) &&
	    (ret = kb_ycheck_type(&c->y, v, KB_Y_SCALAR, "description")))
		return ret;
	if ((v = section(root, "source")) && (ret = source(c, v)))
		return ret;
	if ((v = section(root, "factors")) && (ret = factors(c, v)))
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
	    (ret = workload(c, section(root, "workload"))) ||
	    (ret = repeat(c, section(root, "repeat"))) ||
	    (ret = compare(c, section(root, "compare"))) ||
	    (ret = hosts(c, section(root, "hosts"))) ||
	    (ret = build(c, section(root, "build"))))
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
	m->file = keep(m, kb_strdup(file));
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

void kb_matrix_free(struct kb_matrix *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->npool; i++)
		free(m->pool[i]);
	free(m->pool);
	kb_ydoc_free(m->doc);
	free(m);
}

const char *kb_matrix_name(const struct kb_matrix *m)
{
	return m->name;
}

const char *kb_matrix_file(const struct kb_matrix *m)
{
	return m->file;
}

const char *kb_matrix_text(const struct kb_matrix *m)
{
	return kb_ydoc_text(m->doc);
}

enum kb_design_kind kb_matrix_design(const struct kb_matrix *m)
{
	return m->design;
}

size_t kb_matrix_nfactors(const struct kb_matrix *m)
{
	return m->nfactors;
}

const struct kb_factor *kb_matrix_factor(const struct kb_matrix *m, size_t i)
{
	return i < m->nfactors ? &m->factors[i] : NULL;
}

const struct kb_factor *kb_matrix_find_factor(const struct kb_matrix *m,
					      const char *name)
{
	size_t i;

	for (i = 0; i < m->nfactors; i++)
		if (!strcmp(m->factors[i].name, name))
			return &m->factors[i];
	return NULL;
}

const struct kb_source *kb_matrix_source(const struct kb_matrix *m)
{
	return &m->source;
}

const struct kb_guest *kb_matrix_guest(const struct kb_matrix *m)
{
	return &m->guest;
}

const struct kb_workload *kb_matrix_workload(const struct kb_matrix *m)
{
	return &m->workload;
}

const struct kb_repeat *kb_matrix_repeat(const struct kb_matrix *m)
{
	return &m->repeat;
}

const struct kb_compare *kb_matrix_compare(const struct kb_matrix *m)
{
	return &m->compare;
}

const struct kb_build_cfg *kb_matrix_build(const struct kb_matrix *m)
{
	return &m->build;
}

size_t kb_matrix_nhosts(const struct kb_matrix *m)
{
	return m->nhosts;
}

const struct kb_host *kb_matrix_host(const struct kb_matrix *m, size_t i)
{
	return i < m->nhosts ? &m->hosts[i] : NULL;
}
