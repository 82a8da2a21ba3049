/*
 * libFuzzer harness for the performance-model parser: any bytes go through
 * kb_model_parse_buffer() as "fuzz.yaml".  The parser must either refuse
 * them with a message that names the file, or hand back a model that
 * evaluates: the harness builds one variant from every "when" of the
 * input (so that the rules hold), asks for expected and sampled values and
 * runs the model executor on it at time scale 0.  A broken invariant
 * traps, which libFuzzer reports as a crash.  See tests/fuzz/README.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "executor.h"
#include "fuzz.h"
#include "matrix.h"
#include "model.h"
#include "variant.h"
#include "ydoc.h"

#define FILE_NAME "fuzz.yaml"
#define MAX_SETTINGS 64

/* A variant that sets the levels of one "when" mapping of the input. */
static void variant_from_when(const struct kb_ynode *when,
			      struct kb_setting *s, struct kb_variant *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->label = "fuzz";
	v->build_key = "fuzz";
	v->settings = s;
	if (!when || when->type != KB_Y_MAP)
		return;
	for (i = 0; i < when->n && v->nsettings < MAX_SETTINGS; i++) {
		const char *name = kb_kconfig_name(when->keys[i]->str);

		if (when->items[i]->type != KB_Y_SCALAR)
			continue;
		s[v->nsettings].name = name;
		s[v->nsettings].value = when->items[i]->str;
		s[v->nsettings].kind =
			!strncmp(name, "guest.", 6)    ? KB_FACTOR_GUEST
			: !strncmp(name, "kernel.", 7) ? KB_FACTOR_KERNEL
						       : KB_FACTOR_KCONFIG;
		v->nsettings++;
	}
}

static void evaluate(const struct kb_model *m, struct kb_executor *ex,
		     const struct kb_variant *v)
{
	struct kb_build_result build;
	struct kb_boot_result boot;
	struct kb_err err = KB_ERR_INIT;
	double d;
	size_t i;

	d = kb_model_expected(m, v);
	check(!isnan(d) && d >= 0);
	d = kb_model_sample(m, v, 1, 1);
	check(!isnan(d) && d >= 0);

	memset(&build, 0, sizeof(build));
	memset(&boot, 0, sizeof(boot));
	check(kb_executor_build(ex, v, &build, &err) == 0);
	check(build.status == KB_BUILD_OK || build.reason != NULL);
	check(kb_executor_boot(ex, v, &build, 1, 2, &boot, &err) == 0);
	if (boot.status == KB_BOOT_OK) {
		check(boot.nruns == 2);
		for (i = 0; i < boot.nruns; i++)
			check(kb_sample_get(&boot.runs[i], kb_model_metric(m),
					    &d) == 0);
	} else {
		check(boot.reason != NULL);
	}
	kb_boot_result_release(&boot);
	kb_build_result_release(&build);
}

/* Evaluate @m on the empty variant and on each rule's own variant. */
static void check_model(const struct kb_model *m, const uint8_t *data,
			size_t size)
{
	static const char *const lists[] = { "effects", "failures" };
	struct kb_setting settings[MAX_SETTINGS];
	struct kb_executor *ex = NULL;
	struct kb_ydoc *doc = NULL;
	struct kb_variant v;
	size_t l, i;

	check(strlen(kb_model_metric(m)) > 0);
	check(strlen(kb_model_text(m)) == size);
	(void)kb_model_seed(m);
	check(kb_model_time(m)->build_s >= 0 && kb_model_time(m)->boot_s >= 0 &&
	      kb_model_time(m)->run_s >= 0);
	check(kb_model_executor_new(m, 0, &ex) == 0 && ex != NULL);

	variant_from_when(NULL, settings, &v);
	evaluate(m, ex, &v);

	/* the model parsed, so the same bytes are a valid YAML document */
	check(kb_ydoc_parse_buffer((const char *)data, size, FILE_NAME, &doc,
				   NULL) == 0);
	for (l = 0; l < 2; l++) {
		const struct kb_ynode *rules =
			kb_ynode_get(kb_ydoc_root(doc), lists[l]);

		if (!rules || rules->type != KB_Y_SEQ)
			continue;
		for (i = 0; i < rules->n; i++) {
			variant_from_when(kb_ynode_get(rules->items[i], "when"),
					  settings, &v);
			evaluate(m, ex, &v);
		}
	}
	kb_ydoc_free(doc);
	kb_executor_free(ex);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;
	int ret;

	ret = kb_model_parse_buffer((const char *)data, size, FILE_NAME, &m,
				    &err);
	if (!check_parsed(ret, &err, m, FILE_NAME))
		return 0;
	check_model(m, data, size);
	kb_model_free(m);
	return 0;
}
