#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
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
	free(r->monitors);
	kb_profile_stacks_free(r->profile, r->nprofile);
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

/* Whether @a and @b name one metric family: the same up to a '.'. */
static int same_family(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return la == lb && !strncmp(a, b, la);
}

struct kb_metric_dir kb_metric_direction(const struct kb_workload *w,
					 const char *name)
{
	struct kb_metric_dir d = { .higher_is_better = 1,
				   .source = KB_METRIC_GUESSED };
	char base[KB_METRIC_NAME_MAX];

	/* "real_s.max", "read_iops.vdb": the direction of "real_s" */
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(name, "."), name);
	if (w && w->better != KB_BETTER_UNSET && w->metric &&
	    (!strcmp(w->metric, name) ||
	     (!strchr(w->metric, '.') && same_family(w->metric, name)))) {
		d.higher_is_better = w->better == KB_BETTER_HIGHER;
		d.source = KB_METRIC_DECLARED;
	} else if (known_direction(base, &d.higher_is_better)) {
		d.source = KB_METRIC_KNOWN;
	} else {
		d.higher_is_better = kb_metric_higher_is_better(base);
	}
	return d;
}

/* The aggregate a metric's plain name holds over copies: the sum of a
 * higher-is-better one (a rate: the total), else the max (a time: the
 * wall time of all copies; a latency: the worst copy). */
static int aggregate_is_sum(const struct kb_workload *w, const char *name)
{
	return kb_metric_direction(w, name).higher_is_better;
}

int kb_sample_copies(const struct kb_workload *w,
		     const struct kb_sample *copies, size_t n,
		     struct kb_sample *out)
{
	char name[KB_METRIC_NAME_MAX + 16];
	size_t i, k, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		for (k = 0; k < copies[i].n; k++) {
			const struct kb_metric *m = &copies[i].m[k];
			double sum = 0, max = 0, v;
			size_t have = 0;
			int qualified = strchr(m->name, '.') != NULL;

			if (kb_sample_get(out, m->name, &v) == 0)
				continue; /* done from an earlier copy */
			for (j = 0; j < n; j++) {
				if (kb_sample_get(&copies[j], m->name, &v))
					continue;
				if (!have || v > max)
					max = v;
				sum += v;
				have++;
				if (qualified)
					continue;
				snprintf(name, sizeof(name), "%s.copy%zu",
					 m->name, j + 1);
				if (strlen(name) >= KB_METRIC_NAME_MAX ||
				    kb_sample_set(out, name, v))
					return -1;
			}
			if (kb_sample_set(out, m->name,
					  aggregate_is_sum(w, m->name) ? sum
								       : max))
				return -1;
			if (qualified)
				continue;
			snprintf(name, sizeof(name), "%s.sum", m->name);
			if (kb_sample_set(out, name, sum))
				return -1;
			snprintf(name, sizeof(name), "%s.mean", m->name);
			if (kb_sample_set(out, name, sum / (double)have))
				return -1;
			snprintf(name, sizeof(name), "%s.max", m->name);
			if (strlen(name) >= KB_METRIC_NAME_MAX ||
			    kb_sample_set(out, name, max))
				return -1;
		}
	}
	return 0;
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
