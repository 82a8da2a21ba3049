#include "treeexec.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "executor.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "variant.h"
#include "banned.h"

struct treeexec {
	struct kb_executor_ops ops; /* the inner executor's name */
	const struct kb_matrix *m;
	struct kb_executor *inner;
	char *base_config;
	/* the resolved .config the last boot was given, parsed: the boots of
	 * one probe follow each other, so it is parsed once a probe */
	char *last_text;
	struct kb_kconfig *last;
	struct kb_setting *settings; /* the resolved variant's */
};

/*
 * Point @rv at @v with @cfg's options as its Kconfig settings and @v's
 * others after them; the settings go to x->settings (replaced).
 */
static void resolved_variant(struct treeexec *x, const struct kb_variant *v,
			     const struct kb_kconfig *cfg,
			     struct kb_variant *rv)
{
	size_t n = kb_kconfig_count(cfg), i, k = 0;
	const char *name, *value;

	free(x->settings);
	x->settings = kb_calloc(n + v->nsettings + 1, sizeof(*x->settings));
	for (i = 0; (name = kb_kconfig_name_at(cfg, i, &value)); i++) {
		x->settings[k].name = name;
		x->settings[k].value = value;
		x->settings[k++].kind = KB_FACTOR_KCONFIG;
	}
	for (i = 0; i < v->nsettings; i++)
		if (v->settings[i].kind != KB_FACTOR_KCONFIG)
			x->settings[k++] = v->settings[i];
	*rv = *v;
	rv->settings = x->settings;
	rv->nsettings = k;
}

static int tx_build(void *self, const struct kb_variant *v,
		    struct kb_build_result *out, struct kb_err *err)
{
	struct treeexec *x = self;
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	const struct kb_kconfig_resolution *res;
	struct kb_plan *alone = NULL;
	struct kb_variant rv;
	int ret;

	ro.base_config = x->base_config;
	if ((ret = kb_plan_new_variant(x->m, v, &alone, err)) ||
	    (ret = kb_plan_resolve(alone, &ro, err)))
		goto out;
	res = kb_plan_resolution(alone, 0);
	if ((out->reason = kb_kconfig_not_held(res))) {
		out->status = KB_BUILD_FAILED;
		goto out;
	}
	resolved_variant(x, v, res->config, &rv);
	if ((ret = kb_executor_build(x->inner, &rv, out, err)))
		goto out;
	if (!out->config_text)
		out->config_text = kb_strdup(res->config_text);
out:
	kb_plan_free(alone);
	return ret;
}

static int tx_boot_at(void *self, const struct kb_variant *v,
		      const struct kb_build_result *build, unsigned boot_no,
		      unsigned runs, const struct kb_boot_at *at,
		      struct kb_boot_result *out, struct kb_err *err)
{
	struct treeexec *x = self;
	struct kb_variant rv;
	int ret;

	if (!build || build->status != KB_BUILD_OK || !build->config_text)
		return kb_executor_boot_at(x->inner, v, build, boot_no, runs,
					   at, out, err);
	if (!x->last_text || strcmp(x->last_text, build->config_text)) {
		struct kb_kconfig *cfg = NULL;

		if ((ret = kb_kconfig_parse_buffer(
			     build->config_text, strlen(build->config_text),
			     "resolved .config", &cfg, err)))
			return ret;
		kb_kconfig_free(x->last);
		free(x->last_text);
		x->last = cfg;
		x->last_text = kb_strdup(build->config_text);
	}
	resolved_variant(x, v, x->last, &rv);
	return kb_executor_boot_at(x->inner, &rv, build, boot_no, runs, at,
				   out, err);
}

static int tx_boot(void *self, const struct kb_variant *v,
		   const struct kb_build_result *build, unsigned boot_no,
		   unsigned runs, struct kb_boot_result *out,
		   struct kb_err *err)
{
	return tx_boot_at(self, v, build, boot_no, runs, NULL, out, err);
}

static void tx_free(void *self)
{
	struct treeexec *x = self;

	if (!x)
		return;
	free(x->base_config);
	free(x->last_text);
	kb_kconfig_free(x->last);
	free(x->settings);
	free(x);
}

int kb_treeexec_new(const struct kb_matrix *m, struct kb_executor *inner,
		    const char *base_config, struct kb_executor **out,
		    struct kb_err *err)
{
	struct treeexec *x;

	*out = NULL;
	if (!kb_matrix_source(m)->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: resolving with a kernel tree needs source.tree",
				  kb_matrix_file(m));
	x = kb_calloc(1, sizeof(*x));
	x->ops.name = kb_executor_name(inner);
	x->ops.build = tx_build;
	x->ops.boot = tx_boot;
	x->ops.boot_at = tx_boot_at;
	x->ops.free = tx_free;
	x->m = m;
	x->inner = inner;
	x->base_config = base_config ? kb_strdup(base_config) : NULL;
	*out = kb_executor_new(&x->ops, x);
	return 0;
}
