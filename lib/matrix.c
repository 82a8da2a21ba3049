/*
 * The matrix (lib/matrix.h) as an object: its names, its pool, its
 * accessors and what every part of its grammar reads scalars with (the
 * context of lib/matrix_int.h).  The grammar is split by what it reads,
 * each file calling only those below it:
 *
 *   matrix_sections.c  the document: its top level and the sections
 *                      source, guest, repeat, compare, hosts and build;
 *                      kb_matrix_parse_*() and kb_matrix_load()
 *   matrix_workload.c  the workload section, its {{NAME}} parameters and
 *                      a variant's workload (kb_workload_instance())
 *   matrix_factors.c   the factors and their levels, run-time ones too
 *   matrix_machine.c   a host that is a whole machine: its power,
 *                      console and boot commands (hosts[].machine)
 *   matrix_hosts.c     what a host's URI makes this machine do, and
 *                      which URIs an untrusted matrix may not name
 *   matrix.c           this file
 */
#include "matrix.h"

#include <stdint.h>
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

void *kb_matrix__keep(struct kb_matrix *m, void *p)
{
	m->pool = kb_reallocarray(m->pool, m->npool + 1, sizeof(*m->pool));
	m->pool[m->npool++] = p;
	return p;
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

int kb_matrix__uint(struct ctx *c, const struct kb_ynode *n, const char *what,
		    unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	int ret = kb_ycheck_uint(&c->y, n, what, min, max, &v);

	if (!ret)
		*out = (unsigned)v;
	return ret;
}

int kb_matrix__file(struct ctx *c, const struct kb_ynode *n, const char *what,
		    const char **out)
{
	struct stat st;
	const char *s;
	char *path;
	int ret = kb_ycheck_string(&c->y, n, what, &s);

	if (ret)
		return ret;
	path = kb_matrix__keep(c->m, kb_path_relative_to(c->m->file, s));
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

int kb_matrix__lower_word(const char *s, size_t max)
{
	const char *p;

	if (!(*s >= 'a' && *s <= 'z') || strlen(s) >= max)
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}


/* ---- the object -------------------------------------------------------- */

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

size_t kb_matrix_nconditions(const struct kb_matrix *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->nfactors; i++)
		n += m->factors[i].condition != 0;
	return n;
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

const struct kb_machine *kb_matrix_machine(const struct kb_matrix *m,
					   size_t i)
{
	return i < m->nhosts ? m->hosts[i].machine : NULL;
}
