#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "matrix.h"
#include "plan.h"
#include "realexec.h"
#include "banned.h"

struct domxml_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *variant;
};

static const struct kb_opt domxml_opts[] = {
	KB_OPT_STRING(struct domxml_args, variant, 0, "variant", "N",
		      "the variant to show, as `kbisect plan` numbers it (default 0)"),
	KB_OPT_END,
};

static int cmd_domxml(const struct kb_args *args);

const struct cmd cmd_domxml_entry = {
	.name = "domxml",
	.rank = 100,
	.args = "MATRIX",
	.opts = domxml_opts,
	.size = sizeof(struct domxml_args),
	.fn = cmd_domxml,
	.summary = "print the libvirt domain XML a variant would boot with",
	.help = "Plans MATRIX and prints the domain XML of variant N (default 0,\n"
		"the baseline) as `kbisect run` would start it: hypervisor and\n"
		"mode, vCPUs and pinning, memory, PCI passthrough, disks, console.\n"
		"What is made at boot time (the initramfs, the boot folder with the\n"
		"scratch disk and console log, a kernel not built yet) has a\n"
		"placeholder path, said in a comment at the top.  See docs/guests.md.\n",
	.epilog = "Example:\n"
		  "  kbisect domxml kconfig-matrix/xen-pvops-spinlocks.yaml --variant 3\n",
};

static int cmd_domxml(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	const char *variant = CMD_ARGS(struct domxml_args, args)->variant;
	unsigned long idx;
	char *xml = NULL, *end;
	int ret;

	if (!variant)
		variant = "0";
	if (*variant == '#')
		variant++;
	errno = 0;
	idx = strtoul(variant, &end, 10);
	if (*variant < '0' || *variant > '9' || *end || errno)
		return cmd_usage_error("domxml",
				       "invalid variant '%s': expected its number, as `kbisect plan` lists it",
				       variant);
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)))
		goto fail;
	if (idx >= kb_plan_nvariants(p)) {
		kb_err_set(&err, KB_EINPUT,
			   "'%s' has variants 0 to %zu, not %lu", args->pos[0],
			   kb_plan_nvariants(p) - 1, idx);
		goto fail;
	}
	if ((ret = kb_realexec_domxml(m, kb_plan_variant(p, idx), &xml,
				      &err)))
		goto fail;
	fputs(xml, stdout);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(xml);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
