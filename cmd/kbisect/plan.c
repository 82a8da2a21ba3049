#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "design.h"
#include "json.h"
#include "matrix.h"
#include "plan.h"
#include "banned.h"

static const char *kind_name(enum kb_factor_kind k)
{
	return k == KB_FACTOR_KCONFIG ? "kconfig"
	       : k == KB_FACTOR_KERNEL ? "kernel"
				       : "guest";
}

static void plan_json(const struct kb_plan *p)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i, k, l;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", kb_matrix_name(m));
	kb_json_kv_string(j, "matrix", kb_matrix_file(m));
	kb_json_kv_string(j, "design", kb_design_name(kb_matrix_design(m)));
	kb_json_kv_string(j, "generators", kb_design_generators(d));
	kb_json_kv_int(j, "resolution", kb_design_resolution(d));
	kb_json_kv_string(j, "metric", kb_matrix_workload(m)->metric);
	kb_json_key(j, "factors");
	kb_json_array_begin(j);
	for (i = 0; i < kb_matrix_nfactors(m); i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", f->name);
		kb_json_kv_string(j, "kind", kind_name(f->kind));
		kb_json_key(j, "levels");
		kb_json_array_begin(j);
		for (l = 0; l < f->nlevels; l++)
			kb_json_string(j, f->levels[l].value);
		kb_json_array_end(j);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_key(j, "variants");
	kb_json_array_begin(j);
	for (i = 0; i < kb_plan_nvariants(p); i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

		kb_json_object_begin(j);
		kb_json_kv_int(j, "id", v->idx);
		kb_json_kv_string(j, "label", v->label);
		kb_json_key(j, "factors");
		kb_json_object_begin(j);
		for (k = 0; k < v->nsettings; k++)
			kb_json_kv_string(j, v->settings[k].name,
					  v->settings[k].value);
		kb_json_object_end(j);
		kb_json_kv_string(j, "build_key", v->build_key);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_kv_int(j, "builds", (long long)kb_plan_nbuilds(p));
	kb_json_kv_int(j, "boots", (long long)kb_plan_nboots(p));
	kb_json_kv_int(j, "runs", (long long)kb_plan_nruns(p));
	kb_json_object_end(j);
	kb_json_finish(j);
	kb_json_free(j);
	cmd_put(&b);
	kb_buf_release(&b);
}

static void plan_text(const struct kb_plan *p)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	const struct kb_design *d = kb_plan_design(p);
	const struct kb_repeat *r = kb_matrix_repeat(m);
	size_t i, n = kb_plan_nvariants(p), nf = kb_matrix_nfactors(m);

	printf("%s (%s): %s design, metric %s\n", kb_matrix_name(m),
	       kb_matrix_file(m), kb_design_name(kb_matrix_design(m)),
	       kb_matrix_workload(m)->metric);
	if (kb_design_generators(d)) {
		static const char *const roman[] = { "?", "I",  "II",
						     "III", "IV", "V" };
		unsigned res = kb_design_resolution(d);

		printf("fractional 2^(%zu-%zu) design, resolution %s, generators %s\n",
		       nf, nf - (size_t)__builtin_ctzl((unsigned long)n),
		       roman[res < 6 ? res : 0], kb_design_generators(d));
		for (i = 0; i < nf; i++)
			printf("  %c = %s\n", (char)('A' + i),
			       kb_matrix_factor(m, i)->name);
	}
	if (nf == 0)
		printf("no factors: a single variant, an A/A run that measures noise\n");
	printf("\n  #  variant\n");
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, i);

		printf("%3u  %s%s\n", v->idx, v->label,
		       i == 0 ? "  (baseline)" : "");
	}
	printf("\n%zu variant%s, %zu build%s, %zu boot%s (%u per variant), %zu workload run%s (%u per boot)\n",
	       n, n == 1 ? "" : "s", kb_plan_nbuilds(p),
	       kb_plan_nbuilds(p) == 1 ? "" : "s", kb_plan_nboots(p),
	       kb_plan_nboots(p) == 1 ? "" : "s", r->boots, kb_plan_nruns(p),
	       kb_plan_nruns(p) == 1 ? "" : "s", r->runs_per_boot);
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	int json = 0, c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return cmd_usage_error("plan", "unknown option");
	}
	if (argc - optind != 1)
		return cmd_usage_error("plan", "expected one MATRIX file");
	if ((ret = kb_matrix_load(argv[optind], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err))) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (json)
		plan_json(p);
	else
		plan_text(p);
	ret = 0;
out:
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
