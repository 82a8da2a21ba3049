#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "matrix.h"
#include "plan.h"
#include "realexec.h"
#include "banned.h"

int cmd_domxml(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	const char *variant = "0";
	unsigned long idx;
	char *xml = NULL, *end;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			variant = optarg;
			break;
		default:
			return cmd_usage_error("domxml", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("domxml", "expected one MATRIX file");
	if (*variant == '#')
		variant++;
	errno = 0;
	idx = strtoul(variant, &end, 10);
	if (*variant < '0' || *variant > '9' || *end || errno)
		return cmd_usage_error("domxml",
				       "invalid variant '%s': expected its number, as `kbisect plan` lists it",
				       variant);
	if ((ret = kb_matrix_load(argv[optind], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)))
		goto fail;
	if (idx >= kb_plan_nvariants(p)) {
		kb_err_set(&err, KB_EINPUT,
			   "'%s' has variants 0 to %zu, not %lu", argv[optind],
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
