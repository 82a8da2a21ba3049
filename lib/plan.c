#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "kconfig.h"
#include "mem.h"
#include "sha256.h"
#include "source.h"
#include "toolchain.h"
#include "banned.h"

struct kb_plan {
	const struct kb_matrix *m;
	struct kb_design *design;
	size_t nvariants;
	struct kb_variant *variants;
	struct kb_setting *settings; /* nvariants × nfactors */
	char **strings;              /* labels, keys, pin arrays */
	size_t nstrings;
	size_t nbuilds;
	/* after kb_plan_resolve(): */
	struct kb_kconfig_resolution **res; /* per variant; shared entries
					     * are owned by the first */
	int *res_owner;                      /* variant owns its res[] */
	struct kb_plan_tree *trees;          /* strings kept in strings */
	size_t ntrees;
	size_t *tree_of;                     /* per variant: index in trees */
	char *compiler;
	size_t ndropped;
};

static void *keep(struct kb_plan *p, void *s)
{
	p->strings = kb_reallocarray(p->strings, p->nstrings + 1,
				     sizeof(*p->strings));
	p->strings[p->nstrings++] = s;
	return s;
}

static int check_two_level(const struct kb_matrix *m, struct kb_err *err)
{
	enum kb_design_kind kind = kb_matrix_design(m);
	size_t i, n = kb_matrix_nfactors(m), max = kb_design_max_factors(kind);

	for (i = 0; i < n; i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		if (f->nlevels != 2)
			return kb_err_at(err, kb_matrix_file(m), f->loc.line,
					 f->loc.col,
					 "a %s design needs two-level factors, and %s has %zu levels: give it two or use design: full or one-at-a-time",
					 kb_design_name(kind), f->name, f->nlevels);
		if (i == max) /* 17th or 24th: the limits are 16 and 23 */
			return kb_err_at(err, kb_matrix_file(m), f->loc.line,
					 f->loc.col,
					 "a %s design takes at most %zu two-level factors, and %s is the %zuth: %s",
					 kb_design_name(kind), max, f->name, i + 1,
					 kind == KB_DESIGN_FRACTIONAL
						 ? "use design: plackett-burman (up to 23 factors), split the matrix or use one-at-a-time"
						 : "split the matrix or use one-at-a-time");
	}
	return 0;
}

static char *make_label(const struct kb_setting *s, size_t n)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	if (n == 0)
		return kb_strdup("baseline");
	for (i = 0; i < n; i++)
		kb_buf_addf(&b, "%s%s=%s", i ? " " : "", s[i].name,
			    s[i].value);
	return kb_buf_detach(&b);
}

/* What identifies a build before configs are resolved against a tree. */
static char *make_build_key(const struct kb_matrix *m,
			    const struct kb_setting *s, size_t n)
{
	const struct kb_source *src = kb_matrix_source(m);
	struct kb_buf b = KB_BUF_INIT;
	char hex[65];
	size_t i;

	kb_buf_addf(&b, "kbisect-plan-build-v1\ntree=%s\nrev=%s\nbase=%s\n",
		    src->tree ? src->tree : "", src->rev ? src->rev : "",
		    src->base ? src->base : "");
	for (i = 0; i < src->nfragments; i++)
		kb_buf_addf(&b, "fragment=%s\n", src->fragments[i]);
	kb_buf_addf(&b, "kernel=%s\n", src->kernel ? src->kernel : "");
	for (i = 0; i < n; i++)
		if (kb_factor_kind_builds(s[i].kind))
			kb_buf_addf(&b, "%s=%s\n", s[i].name, s[i].value);
	kb_sha256_hex(b.buf, b.len, hex);
	kb_buf_release(&b);
	return kb_strdup(hex);
}

static unsigned parse_u(const char *s)
{
	return (unsigned)strtoul(s, NULL, 10);
}

/*
 * Apply the cmdline.*, sysctl.* and workload.* settings of @v to its
 * guest shape: the command line text, the sysctls, the copies and the
 * {{NAME}} parameters.
 */
static void shape_runtime(struct kb_plan *p, struct kb_variant *v)
{
	struct kb_param *sysctl = NULL, *params = NULL;
	struct kb_buf cmdline = KB_BUF_INIT;
	size_t i, ns = 0, np = 0;

	for (i = 0; i < v->nsettings; i++) {
		const struct kb_setting *s = &v->settings[i];
		char *text;

		switch (s->kind) {
		case KB_FACTOR_CMDLINE:
			if ((text = kb_cmdline_level_text(s->name, s->value)))
				kb_buf_addf(&cmdline, "%s%s",
					    cmdline.len ? " " : "", text);
			free(text);
			break;
		case KB_FACTOR_SYSCTL:
			if (!sysctl)
				sysctl = keep(p, kb_calloc(v->nsettings,
							   sizeof(*sysctl)));
			sysctl[ns].name = s->name + strlen("sysctl.");
			sysctl[ns++].value = s->value;
			break;
		case KB_FACTOR_WORKLOAD:
			if (!strcmp(s->name, "workload.copies")) {
				v->guest.copies = parse_u(s->value);
				break;
			}
			if (!params)
				params = keep(p, kb_calloc(v->nsettings,
							   sizeof(*params)));
			params[np].name = s->name + strlen("workload.");
			params[np++].value = s->value;
			break;
		case KB_FACTOR_KCONFIG:
		case KB_FACTOR_KERNEL:
		case KB_FACTOR_GUEST:
			break;
		}
	}
	v->guest.cmdline = cmdline.len ? keep(p, kb_buf_detach(&cmdline))
				       : NULL;
	kb_buf_release(&cmdline);
	v->guest.sysctl = sysctl;
	v->guest.nsysctl = ns;
	v->guest.params = params;
	v->guest.nparams = np;
}

/* Apply guest.* settings to the variant's guest shape. */
static int shape_guest(struct kb_plan *p, struct kb_variant *v,
		       const struct kb_level *const *lv, struct kb_err *err)
{
	const struct kb_matrix *m = p->m;
	const struct kb_level *pin_level = NULL;
	size_t i;
	int hv_set = 0;

	v->guest = *kb_matrix_guest(m);
	shape_runtime(p, v);
	for (i = 0; i < v->nsettings; i++) {
		const struct kb_setting *s = &v->settings[i];

		if (!strcmp(s->name, "machine.hypervisor")) {
			v->guest.dom0 = !strcmp(s->value, "xen");
			hv_set = 1;
		} else if (!strcmp(s->name, "machine.xen")) {
			v->guest.xen = s->value;
		} else if (!strcmp(s->name, "machine.xen_cmdline")) {
			v->guest.xen_cmdline = s->value;
		} else if (!strcmp(s->name, "guest.mode")) {
			v->guest.mode = s->value;
		} else if (!strcmp(s->name, "guest.vcpus")) {
			v->guest.vcpus = parse_u(s->value);
		} else if (!strcmp(s->name, "guest.memory_mib")) {
			v->guest.memory_mib = parse_u(s->value);
		} else if (!strcmp(s->name, "guest.pin")) {
			unsigned *pins = NULL;
			size_t n = 0;
			const char *c = s->value;

			pin_level = lv[i];
			if (strcmp(c, "none")) {
				n = 1;
				for (; *c; c++)
					n += *c == ',';
				pins = keep(p, kb_calloc(n, sizeof(*pins)));
				for (c = s->value, n = 0; *c; n++) {
					char *end;

					pins[n] = (unsigned)strtoul(c, &end,
								    10);
					c = *end ? end + 1 : end;
				}
			}
			v->guest.pin = pins;
			v->guest.npin = n;
		}
	}
	/* Xen's own factors without machine.hypervisor: every variant is
	 * booted as dom0 */
	if (!hv_set && (v->guest.xen || v->guest.xen_cmdline))
		v->guest.dom0 = 1;
	if (v->guest.npin && v->guest.npin != v->guest.vcpus) {
		struct kb_loc loc = pin_level ? pin_level->loc
					      : kb_matrix_guest(m)->pin_loc;

		return kb_err_at(err, kb_matrix_file(m), loc.line, loc.col,
				 "variant '%s' pins %zu vCPUs but has %u: give one physical CPU per vCPU",
				 v->label, v->guest.npin, v->guest.vcpus);
	}
	return 0;
}

/* The sentinel: the baseline (variant 0) again under its own label,
 * after the design's runs (room for it is made by the caller). */
static void add_sentinel(struct kb_plan *p)
{
	struct kb_variant *v = &p->variants[p->nvariants];

	*v = p->variants[0];
	v->idx = (unsigned)p->nvariants;
	v->label = KB_PLAN_SENTINEL_LABEL;
	v->sentinel = 1;
	p->nvariants++;
}

int kb_plan_new(const struct kb_matrix *m, struct kb_plan **out,
		struct kb_err *err)
{
	size_t nf = kb_matrix_nfactors(m), i, j, r;
	size_t nlevels[KB_MATRIX_MAX_FACTORS];
	const struct kb_level *lv[KB_MATRIX_MAX_FACTORS];
	struct kb_plan *p = kb_calloc(1, sizeof(*p));
	enum kb_design_kind kind = kb_matrix_design(m);
	int ret;

	*out = NULL;
	p->m = m;
	/* no executor boots a machine yet: no plan says it would */
	if ((ret = kb_matrix_check_runnable_hosts(m, err)))
		goto out;
	for (i = 0; i < nf; i++)
		nlevels[i] = kb_matrix_factor(m, i)->nlevels;
	if ((kind == KB_DESIGN_FRACTIONAL ||
	     kind == KB_DESIGN_PLACKETT_BURMAN) &&
	    (ret = check_two_level(m, err)))
		goto out;
	if (kind == KB_DESIGN_FULL &&
	    kb_design_full_size(nf, nlevels) > KB_MATRIX_MAX_VARIANTS) {
		const struct kb_factor *f = kb_matrix_factor(m, 0);

		ret = kb_err_at(err, kb_matrix_file(m), f->loc.line,
				f->loc.col,
				"the full design of these factors has more than %d variants: use design: fractional or one-at-a-time, or fewer levels",
				KB_MATRIX_MAX_VARIANTS);
		goto out;
	}
	if ((ret = kb_design_new(kind, nf, nlevels, &p->design, err)))
		goto out;

	p->nvariants = kb_design_nruns(p->design);
	p->variants = kb_calloc(p->nvariants + 1, sizeof(*p->variants));
	p->settings = kb_calloc(p->nvariants * (nf ? nf : 1),
				sizeof(*p->settings));
	for (r = 0; r < p->nvariants; r++) {
		struct kb_variant *v = &p->variants[r];
		struct kb_setting *s = &p->settings[r * nf];

		for (i = 0; i < nf; i++) {
			const struct kb_factor *f = kb_matrix_factor(m, i);

			lv[i] = &f->levels[kb_design_level(p->design, r, i)];
			s[i].name = f->name;
			s[i].kind = f->kind;
			s[i].value = lv[i]->quoted
					     ? keep(p, kb_asprintf("\"%s\"",
								   lv[i]->value))
					     : lv[i]->value;
		}
		v->idx = (unsigned)r;
		v->settings = s;
		v->nsettings = nf;
		v->label = keep(p, make_label(s, nf));
		v->build_key = keep(p, make_build_key(m, s, nf));
		if ((ret = shape_guest(p, v, lv, err)))
			goto out;
	}
	if (kb_matrix_repeat(m)->sentinel)
		add_sentinel(p);
	for (r = 0; r < p->nvariants; r++) {
		for (j = 0; j < r; j++)
			if (!strcmp(p->variants[j].build_key,
				    p->variants[r].build_key))
				break;
		p->nbuilds += j == r;
	}
	*out = p;
	p = NULL;
	ret = 0;
out:
	kb_plan_free(p);
	return ret;
}

int kb_plan_from_text(const char *text, const char *path,
		      struct kb_matrix **m, struct kb_plan **p,
		      struct kb_err *err)
{
	int ret;

	*p = NULL;
	ret = kb_matrix_parse_buffer(text, strlen(text),
				     path ? path : "matrix.yaml", m, err);
	if (ret == 0 && (ret = kb_plan_new(*m, p, err))) {
		kb_matrix_free(*m);
		*m = NULL;
	}
	return ret;
}

int kb_plan_from_stored(const char *text, const char *path,
			struct kb_matrix **m, struct kb_plan **p,
			struct kb_err *err)
{
	int ret;

	*p = NULL;
	ret = kb_matrix_parse_stored(text, strlen(text),
				     path ? path : "matrix.yaml", m, err);
	if (ret == 0 && (ret = kb_plan_new(*m, p, err))) {
		kb_matrix_free(*m);
		*m = NULL;
	}
	return ret;
}

int kb_plan_new_variant(const struct kb_matrix *m, const struct kb_variant *v,
			struct kb_plan **out, struct kb_err *err)
{
	struct kb_plan *p = kb_calloc(1, sizeof(*p));
	int ret;

	*out = NULL;
	p->m = m;
	if ((ret = kb_design_new(KB_DESIGN_FULL, 0, NULL, &p->design, err))) {
		kb_plan_free(p);
		return ret;
	}
	p->nvariants = 1;
	p->variants = kb_calloc(1, sizeof(*p->variants));
	p->variants[0] = *v;
	p->variants[0].idx = 0;
	p->nbuilds = 1;
	*out = p;
	return 0;
}

/* Forget the plan's resolution (one that failed half way, or at the end). */
static void unresolve(struct kb_plan *p)
{
	size_t i;

	for (i = 0; p->res && i < p->nvariants; i++)
		if (p->res_owner[i])
			kb_kconfig_resolution_free(p->res[i]);
	free(p->res);
	free(p->res_owner);
	free(p->trees);
	free(p->tree_of);
	free(p->compiler);
	p->res = NULL;
	p->res_owner = NULL;
	p->trees = NULL;
	p->tree_of = NULL;
	p->compiler = NULL;
	p->ntrees = 0;
}

void kb_plan_free(struct kb_plan *p)
{
	size_t i;

	if (!p)
		return;
	unresolve(p);
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->settings);
	free(p->variants);
	kb_design_free(p->design);
	free(p);
}

int kb_plan_sentinel(const struct kb_plan *p)
{
	if (p->nvariants < 2 || !p->variants[p->nvariants - 1].sentinel)
		return -1;
	return (int)p->nvariants - 1;
}

int kb_plan_reference(const struct kb_plan *p, size_t base, size_t v)
{
	const struct kb_variant *b, *x;
	size_t nf = kb_matrix_nfactors(p->m), i, j;

	if (base >= p->nvariants || v >= p->nvariants)
		return -1;
	if (!kb_matrix_nconditions(p->m) || p->variants[v].sentinel)
		return (int)base;
	b = &p->variants[base];
	x = &p->variants[v];
	for (i = 0; i < p->nvariants; i++) {
		const struct kb_variant *y = &p->variants[i];

		if (y->sentinel)
			continue;
		for (j = 0; j < nf; j++) {
			const char *want = kb_matrix_factor(p->m, j)->condition
						   ? x->settings[j].value
						   : b->settings[j].value;

			if (strcmp(y->settings[j].value, want))
				break;
		}
		if (j == nf)
			return (int)i;
	}
	return -1;
}

const struct kb_matrix *kb_plan_matrix(const struct kb_plan *p)
{
	return p->m;
}

const struct kb_design *kb_plan_design(const struct kb_plan *p)
{
	return p->design;
}

size_t kb_plan_nvariants(const struct kb_plan *p)
{
	return p->nvariants;
}

const struct kb_variant *kb_plan_variant(const struct kb_plan *p, size_t i)
{
	return i < p->nvariants ? &p->variants[i] : NULL;
}

const struct kb_variant *kb_plan_variants(const struct kb_plan *p)
{
	return p->variants;
}

size_t kb_plan_nbuilds(const struct kb_plan *p)
{
	return p->nbuilds;
}

size_t kb_plan_nboots(const struct kb_plan *p)
{
	return p->nvariants * kb_matrix_repeat(p->m)->boots;
}

size_t kb_plan_nruns(const struct kb_plan *p)
{
	return kb_plan_nboots(p) * kb_matrix_repeat(p->m)->runs_per_boot;
}

size_t kb_plan_max_boots(const struct kb_plan *p)
{
	const struct kb_repeat *r = kb_matrix_repeat(p->m);

	return kb_plan_nvariants(p) *
	       (r->max_boots > r->boots ? r->max_boots : r->boots);
}

void kb_plan_cost(const struct kb_plan *p, double build_s, size_t cached,
		  double boot_s, struct kb_plan_cost *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < kb_matrix_nhosts(p->m); i++)
		out->slots += kb_matrix_host(p->m, i)->capacity;
	if (!out->slots)
		out->slots = 1;
	out->build_s = cached < kb_plan_nbuilds(p)
			       ? (double)(kb_plan_nbuilds(p) - cached) * build_s
			       : 0;
	out->boot_s = (double)kb_plan_nboots(p) * boot_s / out->slots;
	out->total_s = out->build_s + out->boot_s;
	out->more_s = (double)(kb_plan_max_boots(p) - kb_plan_nboots(p)) *
		      boot_s / out->slots;
}

int kb_plan_check_limits(const struct kb_plan *p,
			 const struct kb_plan_limits *l, struct kb_err *err)
{
	const struct kb_repeat *rep = kb_matrix_repeat(p->m);
	unsigned long long max_boots = l && l->max_boots ? l->max_boots
							 : KB_PLAN_MAX_BOOTS;
	unsigned long long max_samples = l && l->max_samples
						 ? l->max_samples
						 : KB_PLAN_MAX_SAMPLES;
	/* at most 4096 × 1000 × 1000: no overflow */
	unsigned long long boots = (unsigned long long)p->nvariants *
				   rep->max_boots;
	unsigned long long samples = boots * rep->runs_per_boot;

	if (boots > max_boots)
		return kb_err_set(err, KB_EINPUT,
				  "%s: %zu variants x %u boots (repeat.max_boots) = %llu boots, more than the limit of %llu: use fewer variants or boots, or raise the limit with --max-boots %llu",
				  kb_matrix_file(p->m), p->nvariants,
				  rep->max_boots, boots, max_boots, boots);
	if (samples > max_samples)
		return kb_err_set(err, KB_EINPUT,
				  "%s: %llu boots x %u runs per boot = %llu samples (workload runs), more than the limit of %llu: use fewer boots or runs, or raise the limit with --max-samples %llu",
				  kb_matrix_file(p->m), boots,
				  rep->runs_per_boot, samples, max_samples,
				  samples);
	return 0;
}

/* ---- resolution against the kernel tree ------------------------------ */

static int check_symbols(const struct kb_matrix *m,
			 const struct kb_ksyms *syms, const char *tree,
			 struct kb_err *err)
{
	size_t i;

	for (i = 0; i < kb_matrix_nfactors(m); i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);
		const char *s;

		if (f->kind != KB_FACTOR_KCONFIG || kb_ksyms_has(syms, f->name))
			continue;
		s = kb_ksyms_suggest(syms, f->name);
		if (s)
			return kb_err_at(err, kb_matrix_file(m), f->loc.line,
					 f->loc.col,
					 "'%s' is not a Kconfig symbol of '%s' (did you mean '%s'?)",
					 f->name, tree, s);
		return kb_err_at(err, kb_matrix_file(m), f->loc.line,
				 f->loc.col,
				 "'%s' is not a Kconfig symbol of '%s'",
				 f->name, tree);
	}
	return 0;
}

/* A tree's O= folder for olddefconfig: under @parent, else the cache. */
static char *work_dir_of(const char *parent, const char *tree_id)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	char *sub, *dir;

	kb_sha256_hex(tree_id, strlen(tree_id), hex);
	hex[16] = '\0';
	if (parent)
		return kb_asprintf("%s/%s", parent, hex);
	sub = kb_asprintf("resolve/%s", hex);
	dir = kb_cache_dir(sub);
	free(sub);
	return dir;
}

/* The part of variant @v's settings that decides its config in tree @t. */
static char *config_request(const struct kb_variant *v, size_t t)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	kb_buf_addf(&b, "tree=%zu\n", t);
	for (i = 0; i < v->nsettings; i++)
		if (kb_factor_kind_builds(v->settings[i].kind))
			kb_buf_addf(&b, "%s=%s\n", v->settings[i].name,
				    v->settings[i].value);
	return kb_buf_detach(&b);
}

/* What kb_plan_resolve() holds per tree while it works. */
struct tree_work {
	char *name;            /* for messages: the folder, or REPO at REV */
	char *work;            /* its O= folder for olddefconfig */
	struct kb_ksyms *syms; /* its Kconfig symbols */
};

static int same_rev(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * Open the tree of every variant: one per distinct revision (kernel.rev,
 * else source.rev), revisions with the same tree id sharing one.  Fills
 * p->trees, p->ntrees, p->tree_of and the names in @tw (nvariants long).
 */
static int open_trees(struct kb_plan *p, const struct kb_plan_resolve_opts *o,
		      struct tree_work *tw, struct kb_err *err)
{
	const struct kb_source *src = kb_matrix_source(p->m);
	const char **revs = kb_calloc(p->nvariants, sizeof(*revs));
	size_t *rev_tree = kb_calloc(p->nvariants, sizeof(*rev_tree));
	size_t nrevs = 0, i, r, t;
	int ret = 0;

	p->trees = kb_calloc(p->nvariants, sizeof(*p->trees));
	p->tree_of = kb_calloc(p->nvariants, sizeof(*p->tree_of));
	for (i = 0; i < p->nvariants; i++) {
		const struct kb_variant *v = &p->variants[i];
		const char *level = kb_variant_get(v, "kernel.rev");
		const char *rev = level ? level : src->rev;
		struct kb_source_tree *st = NULL;
		const char *id, *dir;

		for (r = 0; r < nrevs && !same_rev(revs[r], rev); r++)
			;
		if (r < nrevs) {
			p->tree_of[i] = rev_tree[r];
			continue;
		}
		if (o->tree && level) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: variant %u (%s) is built from kernel.rev '%s', and the configs are to be resolved in the one tree '%s'",
					 kb_matrix_file(p->m), v->idx, v->label,
					 level, o->tree);
			goto out;
		}
		if (o->tree) {
			rev = NULL;
			id = o->tree_id ? o->tree_id : o->tree;
			dir = o->tree;
		} else {
			if ((ret = kb_source_open(src->tree, rev, NULL, &st,
						  err)))
				goto out;
			id = kb_source_tree_id(st);
			dir = kb_source_dir(st);
		}
		for (t = 0; t < p->ntrees && strcmp(p->trees[t].id, id); t++)
			;
		if (t == p->ntrees) {
			p->trees[t].rev = rev ? keep(p, kb_strdup(rev)) : NULL;
			p->trees[t].id = keep(p, kb_strdup(id));
			p->trees[t].dir = keep(p, kb_strdup(dir));
			tw[t].name = level ? kb_asprintf("%s at %s", src->tree,
							 level)
					   : kb_strdup(dir);
			p->ntrees++;
		}
		kb_source_tree_free(st);
		revs[nrevs] = rev;
		rev_tree[nrevs++] = t;
		p->tree_of[i] = t;
	}
out:
	free(revs);
	free(rev_tree);
	return ret;
}

int kb_plan_resolve(struct kb_plan *p, const struct kb_plan_resolve_opts *o,
		    struct kb_err *err)
{
	const struct kb_source *src = kb_matrix_source(p->m);
	struct kb_kconfig_resolve_opts ro = KB_KCONFIG_RESOLVE_OPTS_INIT;
	struct tree_work *tw = NULL;
	char **req = NULL;
	size_t i, j, t, ndistinct = 0, k = 0;
	double t0 = kb_monotime();
	int ret;

	if (p->res || p->trees)
		return kb_err_set(err, KB_EFAIL, "the plan is resolved already");
	if (!o->tree && !src->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: the matrix has no source.tree to resolve configs against",
				  kb_matrix_file(p->m));
	tw = kb_calloc(p->nvariants, sizeof(*tw));
	if ((ret = open_trees(p, o, tw, err)))
		goto out;
	for (t = 0; t < p->ntrees; t++) {
		if ((ret = kb_kconfig_tree_scan(p->trees[t].dir, o->arch,
						&tw[t].syms, err))) {
			if (ret == KB_ENOTFOUND)
				ret = KB_EINPUT;
			goto out;
		}
		if ((ret = check_symbols(p->m, tw[t].syms, tw[t].name, err)))
			goto out;
		tw[t].work = work_dir_of(o->work_dir, p->trees[t].id);
	}
	/* the compiler the build will use: build.make_args may set CC */
	if ((ret = kb_toolchain_cc_version(kb_matrix_build(p->m)->make_args,
					     kb_matrix_build(p->m)->nmake_args,
					     &p->compiler, err)))
		goto out;

	ro.arch = o->arch;
	ro.base = src->base;
	ro.base_is_target = src->base_is_target;
	ro.nfragments = src->nfragments;
	ro.fragments = src->fragments;
	if (o->base_config) {
		ro.base = o->base_config;
		ro.base_is_target = 0;
		ro.nfragments = 0;
		ro.fragments = NULL;
	}
	ro.cache_dir = o->cache_dir;
	ro.nmake_args = kb_matrix_build(p->m)->nmake_args;
	ro.make_args = kb_matrix_build(p->m)->make_args;

	p->res = kb_calloc(p->nvariants, sizeof(*p->res));
	p->res_owner = kb_calloc(p->nvariants, sizeof(*p->res_owner));
	req = kb_calloc(p->nvariants, sizeof(*req));
	for (i = 0; i < p->nvariants; i++) {
		req[i] = config_request(&p->variants[i], p->tree_of[i]);
		for (j = 0; j < i && strcmp(req[j], req[i]); j++)
			;
		ndistinct += j == i;
	}
	for (i = 0; i < p->nvariants; i++) {
		struct kb_variant *v = &p->variants[i];
		const struct kb_plan_tree *tree = &p->trees[p->tree_of[i]];
		struct kb_plan_resolve_event ev;
		struct kb_buf norm = KB_BUF_INIT;
		char key[KB_SHA256_HEX_LEN + 1];

		for (j = 0; j < i && strcmp(req[j], req[i]); j++)
			;
		if (j < i) {
			p->res[i] = p->res[j];
			v->build_key = p->variants[j].build_key;
			continue;
		}
		ev.i = ++k;
		ev.n = ndistinct;
		ev.variant = v;
		ev.done = 0;
		ev.cached = 0;
		ev.elapsed_s = kb_monotime() - t0;
		if (o->progress)
			o->progress(&ev, o->arg);
		ro.tree = tree->dir;
		ro.tree_id = tree->id;
		ro.odir = tw[p->tree_of[i]].work;
		if ((ret = kb_kconfig_resolve(&ro, v->settings, v->nsettings,
					      tw[p->tree_of[i]].syms,
					      &p->res[i], err)))
			goto out;
		p->res_owner[i] = 1;
		ev.done = 1;
		ev.cached = p->res[i]->cached;
		ev.elapsed_s = kb_monotime() - t0;
		if (o->progress)
			o->progress(&ev, o->arg);
		kb_kconfig_normalised(p->res[i]->config, &norm);
		kb_toolchain_build_key(tree->id, norm.buf, norm.len,
				       p->compiler, key);
		kb_buf_release(&norm);
		v->build_key = keep(p, kb_strdup(key));
	}
	p->nbuilds = 0;
	p->ndropped = 0;
	for (i = 0; i < p->nvariants; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(p->variants[j].build_key,
				    p->variants[i].build_key))
				break;
		p->nbuilds += j == i;
		for (j = 0; j < p->res[i]->noutcomes; j++)
			p->ndropped += !p->res[i]->outcomes[j].held;
	}
	ret = 0;
out:
	if (ret)
		unresolve(p);
	for (i = 0; req && i < p->nvariants; i++)
		free(req[i]);
	free(req);
	for (i = 0; tw && i < p->nvariants; i++) {
		free(tw[i].name);
		free(tw[i].work);
		kb_ksyms_free(tw[i].syms);
	}
	free(tw);
	return ret;
}

int kb_plan_is_resolved(const struct kb_plan *p)
{
	return p->res != NULL;
}

size_t kb_plan_ntrees(const struct kb_plan *p)
{
	return p->res ? p->ntrees : 0;
}

const struct kb_plan_tree *kb_plan_tree(const struct kb_plan *p, size_t t)
{
	return p->res && t < p->ntrees ? &p->trees[t] : NULL;
}

const struct kb_plan_tree *kb_plan_variant_tree(const struct kb_plan *p,
						size_t i)
{
	return p->res && i < p->nvariants ? &p->trees[p->tree_of[i]] : NULL;
}

const char *kb_plan_compiler(const struct kb_plan *p)
{
	return p->res ? p->compiler : NULL;
}

const struct kb_kconfig_resolution *kb_plan_resolution(const struct kb_plan *p,
							size_t i)
{
	return p->res && i < p->nvariants ? p->res[i] : NULL;
}

size_t kb_plan_ndropped(const struct kb_plan *p)
{
	return p->ndropped;
}
