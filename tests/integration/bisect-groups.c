/*
 * Helper of tests/integration/bisect-groups.sh: an option bisection whose
 * changes are grouped by a real tree's Kconfig (kb_kconfig_tree_scan(),
 * as `kbisect bisect options` does on real kernels) and whose builds and
 * boots come from a performance model where only @CULPRIT=y costs.
 *
 *   bisect-groups TREE GOOD BAD CULPRIT DB
 *
 * Prints the change set with each change's group, every probe (its class
 * and the changes it moved), and the answer:
 *
 *   changes 3 groups 3 derived 4
 *   change KALLSYMS group 1
 *   probe 2 bad: SLUB_DEBUG_ON
 *   culprits SLUB_DEBUG_ON
 *   minimal 1 unresolved 0
 *
 * Exit status 0 when the bisection ran, 1 when anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "model.h"
#include "store.h"

static size_t tree_depends(void *arg, const char *option,
			   const char *const **on)
{
	return kb_ksyms_requires(arg, option, on);
}

static int tree_settable(void *arg, const char *option)
{
	return kb_ksyms_has_prompt(arg, option);
}

int main(int argc, char **argv)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_ksyms *syms = NULL;
	struct kb_kconfig *good = NULL, *bad = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *ex = NULL;
	struct kb_store *s = NULL;
	struct kb_bisect_result *r = NULL;
	struct kb_buf text = KB_BUF_INIT;
	size_t i, k;
	int ret = 1;

	if (argc != 6) {
		fprintf(stderr, "usage: bisect-groups TREE GOOD BAD CULPRIT DB\n");
		return 1;
	}
	kb_buf_addf(&text,
		    "metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.03 }\n"
		    "seed: 1\neffects:\n  - when: { %s: y }\n    factor: 0.6\n",
		    argv[4]);
	if (kb_kconfig_tree_scan(argv[1], "x86_64", &syms, &err) ||
	    kb_kconfig_load(argv[2], &good, &err) ||
	    kb_kconfig_load(argv[3], &bad, &err) ||
	    kb_model_parse_buffer(text.buf, text.len, "model.yaml", &model,
				  &err) ||
	    kb_model_executor_new(model, 0, &ex) ||
	    kb_store_open(argv[5], NULL, &s, &err))
		goto out;
	o.metric = kb_model_metric(model);
	o.depends = tree_depends;
	o.settable = tree_settable;
	o.depends_arg = syms;
	o.good_name = argv[2];
	o.bad_name = argv[3];
	o.model_text = kb_model_text(model);
	o.build_salt = kb_model_text(model);
	if (kb_bisect_options(s, ex, good, bad, &o, &r, &err))
		goto out;
	printf("changes %zu groups %zu derived %zu\n", r->nchanges,
	       r->ngroups, r->nderived);
	for (i = 0; i < r->nchanges; i++)
		printf("change %s group %u\n", r->changes[i].option,
		       r->changes[i].group + 1);
	for (i = 0; i < r->nprobes; i++) {
		printf("probe %u %s:", r->probes[i].step,
		       kb_bisect_class_name(r->probes[i].cls));
		for (k = 0; k < r->probes[i].napplied; k++)
			printf(" %s", r->changes[r->probes[i].applied[k]].option);
		printf("\n");
	}
	printf("culprits");
	for (i = 0; i < r->nculprits; i++)
		printf(" %s", r->culprits[i].option);
	printf("\nminimal %d unresolved %zu\n", r->minimal, r->nunresolved);
	ret = 0;
out:
	if (ret && err.msg[0])
		fprintf(stderr, "bisect-groups: %s\n", err.msg);
	kb_bisect_result_free(r);
	kb_store_close(s);
	kb_executor_free(ex);
	kb_model_free(model);
	kb_kconfig_free(good);
	kb_kconfig_free(bad);
	kb_ksyms_free(syms);
	kb_buf_release(&text);
	return ret;
}
