/*
 * libFuzzer harness for the matrix parser: any bytes go through
 * kb_matrix_parse_buffer() as "fuzz.yaml", and kb_matrix_parse_stored()
 * as a matrix stored from a folder that is not there.  The parser must either refuse
 * them with a message that names the file, or hand back a matrix whose
 * views are all readable and within the documented limits.  A broken
 * invariant traps, which libFuzzer reports as a crash.
 *
 * Relative paths in the input resolve against the current folder (the
 * file name has no folder); run from kconfig-matrix/ so that the seeds'
 * configs/ files exist.  See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "fuzz.h"
#include "matrix.h"

#define FILE_NAME "fuzz.yaml"
#define STORED_NAME "/stored/matrix/fuzz.yaml" /* a folder not there */

/* Touch every byte of @s, so that ASan sees a dangling or short string. */
static size_t touch(const char *s)
{
	check(s != NULL);
	return strlen(s);
}

/* A command: at least one argument, each a non-empty string. */
static void touch_argv(const char *const *v)
{
	check(v != NULL && v[0] != NULL);
	for (; *v; v++)
		check(touch(*v) > 0);
}

static void check_machine(const struct kb_machine *mc)
{
	const struct kb_machine_kernel *k = kb_machine_known_good(mc);
	enum kb_machine_boot b = kb_machine_boot_method(mc);
	int p;

	check(touch(kb_machine_name(mc)) > 0);
	for (p = KB_MACHINE_ON; p <= KB_MACHINE_CYCLE; p++)
		if (kb_machine_power(mc, (enum kb_machine_power)p))
			touch_argv(kb_machine_power(mc,
						    (enum kb_machine_power)p));
	check(kb_machine_power(mc, KB_MACHINE_CYCLE) ||
	      (kb_machine_power(mc, KB_MACHINE_ON) &&
	       kb_machine_power(mc, KB_MACHINE_OFF)));
	touch_argv(kb_machine_console(mc));
	check(b == KB_MACHINE_KEXEC || b == KB_MACHINE_GRUB_REBOOT ||
	      b == KB_MACHINE_COMMAND);
	if (b == KB_MACHINE_COMMAND) {
		touch_argv(kb_machine_boot_command(mc));
		check(!kb_machine_boot_ssh(mc) && k);
	} else {
		touch_argv(kb_machine_boot_ssh(mc));
		check(!kb_machine_boot_command(mc));
	}
	if (k) {
		check(touch(k->kernel) > 0 && k->kernel[0] == '/');
		check(!k->initrd || k->initrd[0] == '/');
		check(!k->xen || k->xen[0] == '/');
		check(!k->cmdline || touch(k->cmdline) > 0);
		check(!k->xen_cmdline || (k->xen && touch(k->xen_cmdline)));
	}
	check(kb_machine_boot_timeout_s(mc) >= 1 &&
	      kb_machine_boot_timeout_s(mc) <= 86400);
}

static void check_factors(const struct kb_matrix *m)
{
	size_t i, j, k, n = kb_matrix_nfactors(m), nc = 0;

	check(n <= KB_MATRIX_MAX_FACTORS);
	check(kb_matrix_factor(m, n) == NULL);
	for (i = 0; i < n; i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		check(f != NULL);
		check(touch(f->name) > 0);
		check(kb_matrix_find_factor(m, f->name) == f);
		check(f->nlevels >= 1 && f->nlevels <= KB_MATRIX_MAX_LEVELS);
		check(f->loc.line >= 1);
		for (j = 0; j < f->nlevels; j++) {
			/* only a quoted string may be empty: S: ["", x]
			 * writes CONFIG_S="" (docs/matrix.md, Levels) */
			check(touch(f->levels[j].value) > 0 ||
			      (f->kind == KB_FACTOR_KCONFIG &&
			       f->levels[j].quoted));
			check(f->levels[j].loc.line >= 1);
			for (k = 0; k < j; k++)
				check(strcmp(f->levels[k].value,
					     f->levels[j].value) != 0);
		}
		if (f->kind == KB_FACTOR_KCONFIG)
			check(kb_kconfig_name_valid(f->name));
		check(f->condition == 0 || f->condition == 1);
		nc += (size_t)f->condition;
	}
	check(kb_matrix_nconditions(m) == nc);
}

static void check_sections(const struct kb_matrix *m, size_t size,
			   const char *file)
{
	const struct kb_source *s = kb_matrix_source(m);
	const struct kb_guest *g = kb_matrix_guest(m);
	const struct kb_workload *w = kb_matrix_workload(m);
	const struct kb_repeat *r = kb_matrix_repeat(m);
	const struct kb_compare *c = kb_matrix_compare(m);
	size_t i;

	touch(kb_matrix_name(m));
	check(touch(kb_matrix_text(m)) == size);
	check(strcmp(kb_matrix_file(m), file) == 0);
	touch(kb_design_name(kb_matrix_design(m)));

	if (s->tree)
		touch(s->tree);
	if (s->rev)
		touch(s->rev);
	if (s->base)
		touch(s->base);
	if (s->kernel)
		touch(s->kernel);
	for (i = 0; i < s->nfragments; i++)
		touch(s->fragments[i]);

	touch(kb_hypervisor_name(g->hypervisor));
	touch(g->mode);
	check(g->vcpus >= 1 && g->vcpus <= KB_MATRIX_MAX_VCPUS);
	check(g->memory_mib >= 16);
	check(g->npin == 0 || g->pin != NULL);
	for (i = 0; i < g->npin; i++)
		check(g->pin[i] <= 65535);
	for (i = 0; i < g->npassthrough; i++)
		check(touch(g->passthrough[i]) == 12);

	check(touch(w->metric) > 0);
	check(kb_metric_name_valid(w->metric));
	for (i = 0; i < w->nmetrics; i++)
		check(touch(w->metrics[i].key) > 0 &&
		      touch(w->metrics[i].value) > 0);
	for (i = 0; i < w->ntargets; i++)
		check(touch(w->targets[i]) > 5);
	check(!w->per_device || (w->targets_count > 0 &&
				 w->kind == KB_WORKLOAD_FIO));
	for (i = 0; i < w->nparams; i++)
		check(w->params[i]->kind == KB_FACTOR_WORKLOAD);
	switch (w->kind) {
	case KB_WORKLOAD_FIO:
		check(w->nfio > 0);
		for (i = 0; i < w->nfio; i++) {
			touch(w->fio[i].key);
			touch(w->fio[i].value);
		}
		break;
	case KB_WORKLOAD_FIO_JOB:
		touch(w->fio_job);
		break;
	case KB_WORKLOAD_COMMAND:
		touch(w->command);
		if (w->regex)
			touch(w->regex);
		break;
	}

	check(r->boots >= 1 && r->boots <= KB_MATRIX_MAX_BOOTS);
	check(r->runs_per_boot >= 1 && r->runs_per_boot <= KB_MATRIX_MAX_RUNS);
	check(r->max_boots >= r->boots);
	check(c->threshold_pct > 0 && c->alpha > 0 && c->alpha < 0.5);

	check(kb_matrix_nhosts(m) >= 1);
	check(kb_matrix_host(m, kb_matrix_nhosts(m)) == NULL);
	for (i = 0; i < kb_matrix_nhosts(m); i++) {
		const struct kb_host *h = kb_matrix_host(m, i);

		check(h != NULL && touch(h->uri) > 0 && h->capacity >= 1);
		check(kb_matrix_machine(m, i) == h->machine);
		if (h->machine) {
			check(h->capacity == 1 && !h->pool);
			check_machine(h->machine);
		}
	}
}

/*
 * The same bytes as a matrix stored with an experiment
 * (kb_matrix_parse_stored: no look at the disk): what the file parser
 * accepted it accepts too, and what it hands back holds the same
 * invariants.
 */
static void stored(const uint8_t *data, size_t size, int accepted)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	int ret;

	ret = kb_matrix_parse_stored((const char *)data, size, STORED_NAME,
				     &m, &err);
	check(ret == 0 || !accepted);
	if (!check_parsed(ret, &err, m, STORED_NAME))
		return;
	check_factors(m);
	check_sections(m, size, STORED_NAME);
	kb_matrix_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	int ret;

	ret = kb_matrix_parse_buffer((const char *)data, size, FILE_NAME, &m,
				     &err);
	stored(data, size, ret == 0);
	if (!check_parsed(ret, &err, m, FILE_NAME))
		return 0;
	check_factors(m);
	check_sections(m, size, FILE_NAME);
	kb_matrix_free(m);
	return 0;
}
