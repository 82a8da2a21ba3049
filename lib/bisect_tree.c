#include "bisect_tree.h"

#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "err.h"
#include "fsutil.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "variant.h"
#include "banned.h"

struct kb_bisect_tree {
	const struct kb_matrix *m;
	struct kb_plan *plan;        /* the matrix's: variant 0 */
	struct kb_variant base;      /* variant 0 without Kconfig settings */
	struct kb_setting *settings; /* its settings */
	struct kb_plan *ends[2];     /* good, bad: each resolved alone */
	struct kb_ksyms *syms;
	char *good_file;             /* the good end as resolved */
	const char **on;             /* tree_depends()'s answer */
};

/*
 * The tree's dependencies of @option as they stand between the two ends
 * (kb_ksyms_requires_in()): a select whose condition neither end meets
 * ties nothing (left in, it tied IDLE_PAGE_TRACKING to PAGE_EXTENSION on
 * x86_64).
 */
static size_t tree_depends(void *arg, const char *option,
			   const char *const **on)
{
	struct kb_bisect_tree *t = arg;
	const struct kb_kconfig *ends[2] = { kb_bisect_tree_end(t, 0),
					     kb_bisect_tree_end(t, 1) };
	const char *const *all;
	size_t n = kb_ksyms_requires(t->syms, option, &all);

	t->on = kb_reallocarray(t->on, n + 1, sizeof(*t->on));
	n = kb_ksyms_requires_in(t->syms, option, ends, 2, t->on);
	*on = t->on;
	return n;
}

static int tree_settable(void *arg, const char *option)
{
	const struct kb_bisect_tree *t = arg;

	return kb_ksyms_has_prompt(t->syms, option);
}

int kb_bisect_tree_new(const struct kb_matrix *m,
		       struct kb_bisect_tree **out, struct kb_err *err)
{
	struct kb_bisect_tree *t;
	const struct kb_variant *v0;
	size_t i;
	int ret;

	*out = NULL;
	if (!kb_matrix_source(m)->tree)
		return kb_err_set(err, KB_EINPUT,
				  "%s: bisecting options on a kernel tree needs source.tree",
				  kb_matrix_file(m));
	t = kb_calloc(1, sizeof(*t));
	t->m = m;
	if ((ret = kb_plan_new(m, &t->plan, err))) {
		kb_bisect_tree_free(t);
		return ret;
	}
	v0 = kb_plan_variant(t->plan, 0);
	t->base = *v0;
	t->settings = kb_calloc(v0->nsettings + 1, sizeof(*t->settings));
	t->base.nsettings = 0;
	for (i = 0; i < v0->nsettings; i++)
		if (v0->settings[i].kind != KB_FACTOR_KCONFIG)
			t->settings[t->base.nsettings++] = v0->settings[i];
	t->base.settings = t->settings;
	*out = t;
	return 0;
}

int kb_bisect_tree_resolve(struct kb_bisect_tree *t, int which,
			   const char *path, struct kb_err *err)
{
	struct kb_plan_resolve_opts ro = KB_PLAN_RESOLVE_OPTS_INIT;
	int ret;

	kb_plan_free(t->ends[which]);
	t->ends[which] = NULL;
	ro.base_config = path;
	if ((ret = kb_plan_new_variant(t->m, &t->base, &t->ends[which],
				       err)))
		return ret;
	return kb_plan_resolve(t->ends[which], &ro, err);
}

int kb_bisect_tree_finish(struct kb_bisect_tree *t, struct kb_err *err)
{
	const struct kb_kconfig_resolution *res =
		kb_plan_resolution(t->ends[0], 0);
	char *dir = kb_cache_dir("bisect");
	int ret;

	free(t->good_file);
	t->good_file = kb_asprintf("%s/good-%s.config", dir, res->digest);
	ret = kb_mkdir_p(dir, err);
	free(dir);
	if (ret ||
	    (ret = kb_write_atomic_text(t->good_file, res->config_text, err)))
		return ret;
	return kb_kconfig_tree_scan(kb_plan_tree(t->ends[0], 0)->dir, NULL,
				    &t->syms, err);
}

const struct kb_kconfig *kb_bisect_tree_end(const struct kb_bisect_tree *t,
					    int which)
{
	const struct kb_kconfig_resolution *res =
		t->ends[which] ? kb_plan_resolution(t->ends[which], 0) : NULL;

	return res ? res->config : NULL;
}

const char *kb_bisect_tree_good_file(const struct kb_bisect_tree *t)
{
	return t->good_file;
}

const char *kb_bisect_tree_id(const struct kb_bisect_tree *t)
{
	return kb_plan_tree(t->ends[0], 0)->id;
}

char *kb_bisect_tree_salt(const struct kb_bisect_tree *t, const char *head)
{
	return kb_asprintf("%s\ntree=%s\ncompiler=%s\n", head,
			   kb_bisect_tree_id(t),
			   kb_plan_compiler(t->ends[0]));
}

void kb_bisect_tree_opts(struct kb_bisect_tree *t, struct kb_bisect_opts *o)
{
	o->depends = tree_depends;
	o->settable = tree_settable;
	o->depends_arg = t;
	o->changes_only = 1;
	o->guest = &t->base.guest;
	o->nsettings = t->base.nsettings;
	o->settings = t->base.settings;
}

void kb_bisect_tree_free(struct kb_bisect_tree *t)
{
	if (!t)
		return;
	kb_ksyms_free(t->syms);
	kb_plan_free(t->ends[0]);
	kb_plan_free(t->ends[1]);
	kb_plan_free(t->plan);
	free(t->settings);
	free(t->good_file);
	free(t->on);
	free(t);
}
