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
	free(r->config_text);
	free(r->image_sha256);
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
	free(r->domain_xml);
	free(r->workload_text);
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

/*
 * The metrics kbisect's own workloads produce, with their direction: fio's
 * per direction (lib/fio.c) and a timed command's (lib/cmdwork.c).
 */
static int known_direction(const char *name, int *higher)
{
	static const char *const dirs[] = { "read_", "write_", "trim_" };
	static const char *const up[] = { "iops", "bw_kib" };
	static const char *const down[] = { "lat_mean_us", "lat_p50_us",
					    "lat_p99_us", "lat_p999_us" };
	static const char *const times[] = { "real_s", "user_s", "sys_s" };
	size_t i, j;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (!strcmp(name, times[i])) {
			*higher = 0;
			return 1;
		}
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t l = strlen(dirs[i]);

		if (strncmp(name, dirs[i], l))
			continue;
		for (j = 0; j < sizeof(up) / sizeof(up[0]); j++) {
			if (!strcmp(name + l, up[j])) {
				*higher = 1;
				return 1;
			}
		}
		for (j = 0; j < sizeof(down) / sizeof(down[0]); j++) {
			if (!strcmp(name + l, down[j])) {
				*higher = 0;
				return 1;
			}
		}
	}
	return 0;
}

int kb_metric_higher_is_better(const char *name)
{
	int higher;

	if (known_direction(name, &higher))
		return higher;
	if (ends_with(name, "_per_s") || ends_with(name, "_per_sec"))
		return 1;
	if (strstr(name, "lat") || strstr(name, "time") ||
	    ends_with(name, "_s") || ends_with(name, "_us") ||
	    ends_with(name, "_ms") || ends_with(name, "_ns"))
		return 0;
	return 1;
}

struct kb_metric_dir kb_metric_direction(const struct kb_workload *w,
					 const char *name)
{
	struct kb_metric_dir d = { .higher_is_better = 1,
				   .source = KB_METRIC_GUESSED };

	if (w && w->better != KB_BETTER_UNSET && w->metric &&
	    !strcmp(w->metric, name)) {
		d.higher_is_better = w->better == KB_BETTER_HIGHER;
		d.source = KB_METRIC_DECLARED;
	} else if (known_direction(name, &d.higher_is_better)) {
		d.source = KB_METRIC_KNOWN;
	} else {
		d.higher_is_better = kb_metric_higher_is_better(name);
	}
	return d;
}

const char *kb_metric_dir_text(const struct kb_metric_dir *d)
{
	switch (d->source) {
	case KB_METRIC_DECLARED:
		return d->higher_is_better ? "higher is better (workload.better)"
					   : "lower is better (workload.better)";
	case KB_METRIC_KNOWN:
		return d->higher_is_better ? "higher is better (a rate)"
					   : "lower is better (a latency or time)";
	case KB_METRIC_GUESSED:
		break;
	}
	return d->higher_is_better
		       ? "higher is better, guessed from the name: declare workload.better"
		       : "lower is better, guessed from the name: declare workload.better";
}

const char *kb_metric_better_name(const struct kb_metric_dir *d)
{
	return d->higher_is_better ? "higher" : "lower";
}

const char *kb_metric_source_name(enum kb_metric_source s)
{
	switch (s) {
	case KB_METRIC_DECLARED:
		return "declared";
	case KB_METRIC_KNOWN:
		return "known";
	case KB_METRIC_GUESSED:
		return "guessed";
	}
	return "?";
}
