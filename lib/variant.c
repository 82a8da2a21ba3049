#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *kb_variant_get(const struct kb_variant *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nsettings; i++)
		if (strcmp(v->settings[i].name, name) == 0)
			return v->settings[i].value;
	return NULL;
}

int kb_sample_set(struct kb_sample *s, const char *name, double value)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->m[i].name, name) == 0) {
			s->m[i].value = value;
			return 0;
		}
	}
	if (s->n >= KB_SAMPLE_MAX_METRICS)
		return -1;
	snprintf(s->m[s->n].name, sizeof(s->m[s->n].name), "%s", name);
	s->m[s->n].value = value;
	s->n++;
	return 0;
}

int kb_sample_get(const struct kb_sample *s, const char *name, double *value)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->m[i].name, name) == 0) {
			*value = s->m[i].value;
			return 0;
		}
	}
	return -1;
}

void kb_build_result_release(struct kb_build_result *r)
{
	if (!r)
		return;
	free(r->reason);
	free(r->log_tail);
	free(r->image);
	memset(r, 0, sizeof(*r));
}

void kb_boot_result_release(struct kb_boot_result *r)
{
	if (!r)
		return;
	free(r->reason);
	free(r->console_tail);
	free(r->host);
	free(r->runs);
	free(r->environment);
	memset(r, 0, sizeof(*r));
}

const char *kb_boot_status_name(enum kb_boot_status s)
{
	switch (s) {
	case KB_BOOT_OK:
		return "ok";
	case KB_BOOT_BUILD_FAILED:
		return "build-failed";
	case KB_BOOT_FAILED:
		return "boot-failed";
	case KB_BOOT_TIMEOUT:
		return "boot-timeout";
	case KB_BOOT_WORKLOAD_TIMEOUT:
		return "workload-timeout";
	case KB_BOOT_PANIC:
		return "panic";
	case KB_BOOT_BAD_OUTPUT:
		return "bad-output";
	case KB_BOOT_LIBVIRT_ERROR:
		return "libvirt-error";
	}
	return "?";
}

const char *kb_build_status_name(enum kb_build_status s)
{
	return s == KB_BUILD_OK ? "ok" : "failed";
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

int kb_metric_higher_is_better(const char *name)
{
	if (strstr(name, "lat") || strstr(name, "time") ||
	    ends_with(name, "_s") || ends_with(name, "_us") ||
	    ends_with(name, "_ms") || ends_with(name, "_ns"))
		return 0;
	return 1;
}
