#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "sha256.h"
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
};

static void *keep(struct kb_plan *p, void *s)
{
	p->strings = kb_reallocarray(p->strings, p->nstrings + 1,
				     sizeof(*p->strings));
	p->strings[p->nstrings++] = s;
	return s;
}

static int check_fractional(const struct kb_matrix *m, struct kb_err *err)
{
	size_t i, n = kb_matrix_nfactors(m);

	for (i = 0; i < n; i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		if (f->nlevels != 2)
			return kb_err_at(err, kb_matrix_file(m), f->loc.line,
					 f->loc.col,
					 "a fractional design needs two-level factors, and %s has %zu levels: give it two or use design: full or one-at-a-time",
					 f->name, f->nlevels);
		if (i == 8)
			return kb_err_at(err, kb_matrix_file(m), f->loc.line,
					 f->loc.col,
					 "a fractional design takes at most 8 two-level factors, and %s is the 9th: split the matrix or use one-at-a-time",
					 f->name);
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
		if (s[i].kind != KB_FACTOR_GUEST)
			kb_buf_addf(&b, "%s=%s\n", s[i].name, s[i].value);
	kb_sha256_hex(b.buf, b.len, hex);
	kb_buf_release(&b);
	return kb_strdup(hex);
}

static unsigned parse_u(const char *s)
{
	return (unsigned)strtoul(s, NULL, 10);
}

/* Apply guest.* settings to the variant's guest shape. */
static int shape_guest(struct kb_plan *p, struct kb_variant *v,
		       const struct kb_level *const *lv, struct kb_err *err)
{
	const struct kb_matrix *m = p->m;
	const struct kb_level *pin_level = NULL;
	size_t i;

	v->guest = *kb_matrix_guest(m);
	for (i = 0; i < v->nsettings; i++) {
		const struct kb_setting *s = &v->settings[i];

		if (!strcmp(s->name, "guest.mode")) {
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
	if (v->guest.npin && v->guest.npin != v->guest.vcpus) {
		struct kb_loc loc = pin_level ? pin_level->loc
					      : kb_matrix_guest(m)->pin_loc;

		return kb_err_at(err, kb_matrix_file(m), loc.line, loc.col,
				 "variant '%s' pins %zu vCPUs but has %u: give one physical CPU per vCPU",
				 v->label, v->guest.npin, v->guest.vcpus);
	}
	return 0;
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
	for (i = 0; i < nf; i++)
		nlevels[i] = kb_matrix_factor(m, i)->nlevels;
	if (kind == KB_DESIGN_FRACTIONAL && (ret = check_fractional(m, err)))
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
	p->variants = kb_calloc(p->nvariants, sizeof(*p->variants));
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

void kb_plan_free(struct kb_plan *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->settings);
	free(p->variants);
	kb_design_free(p->design);
	free(p);
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
