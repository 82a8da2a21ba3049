/*
 * kbisect hosts: the hosts an experiment's boots ran on (docs/guests.md,
 * "Several hosts"; docs/analysis.md, "Hosts are blocks"): per host its
 * boots, the failures of its own and whether it was drained, the mean of
 * its values, and its difference from the first host with the variants'
 * differences taken out (the tables: print.c, which effects shares).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "buf.h"
#include "effects.h"
#include "json.h"
#include "store.h"
#include "banned.h"

/* The host effect of @host in @h[0..n), or NULL. */
static const struct kb_host_effect *effect_of(const struct kb_host_effect *h,
					      size_t n, const char *host)
{
	size_t i;

	for (i = 0; host && i < n; i++)
		if (!strcmp(h[i].host, host))
			return &h[i];
	return NULL;
}

static void hosts_json(const struct kb_analysis *a,
		       const struct kb_store_host_count *c, size_t nc,
		       const struct kb_host_effect *h, size_t nh, double df)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", kb_analysis_info(a)->id);
	kb_json_kv_string(j, "metric", kb_analysis_metric(a));
	kb_json_key(j, "hosts");
	kb_json_array_begin(j);
	for (i = 0; i < nc; i++) {
		const struct kb_host_effect *e = effect_of(h, nh, c[i].host);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "host", c[i].host);
		kb_json_kv_int(j, "boots", c[i].boots);
		kb_json_kv_int(j, "ok", c[i].ok);
		kb_json_kv_int(j, "failed", c[i].boots - c[i].ok);
		kb_json_kv_int(j, "host_failures", c[i].failures);
		kb_json_kv_bool(j, "drained", c[i].drained);
		kb_json_kv_string(j, "last_host_failure", c[i].last_failure);
		kb_json_kv_number(j, "mean", e ? e->mean : NAN);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_kv_number(j, "df", df);
	cmd_json_host_effects(j, "differences", h, nh);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void hosts_text(const struct kb_analysis *a,
		       const struct kb_store_host_count *c, size_t nc,
		       const struct kb_host_effect *h, size_t nh, double df)
{
	struct kb_buf safe = KB_BUF_INIT;
	int width = 4;
	size_t i;

	for (i = 0; i < nc; i++)
		if (c[i].host && (int)strlen(c[i].host) > width)
			width = (int)strlen(c[i].host);
	printf("hosts of experiment %lld \"%s\", %s: %s\n\n",
	       (long long)kb_analysis_info(a)->id,
	       cmd_printable(kb_analysis_info(a)->name, 0, &safe),
	       kb_analysis_metric(a),
	       kb_metric_dir_text(kb_analysis_direction(a)));
	if (!nc) {
		printf("no boot has run yet\n");
		kb_buf_release(&safe);
		return;
	}
	printf("  %-*s %6s %6s %7s %14s %14s\n", width, "host", "boots", "ok",
	       "failed", "host failures", "mean");
	for (i = 0; i < nc; i++) {
		const struct kb_host_effect *e = effect_of(h, nh, c[i].host);
		char mean[32] = "-";

		if (e && isfinite(e->mean))
			snprintf(mean, sizeof(mean), "%.6g", e->mean);
		printf("  %-*s %6u %6u %7u %14u %14s%s\n", width,
		       c[i].host ? cmd_printable(c[i].host, 0, &safe) : "?",
		       c[i].boots, c[i].ok, c[i].boots - c[i].ok,
		       c[i].failures, mean, c[i].drained ? "  drained" : "");
	}
	for (i = 0; i < nc; i++)
		if (c[i].failures && c[i].last_failure)
			printf("\n%s %s: %s\n",
			       c[i].host ? cmd_printable(c[i].host, 0, &safe)
					 : "?",
			       c[i].drained ? "was drained; its last failure"
					    : "failed, last",
			       cmd_printable(c[i].last_failure, 0, &safe));
	printf("\n\"failed\" counts the boots that ran there and did not end ok (the\n"
	       "kernel's: a panic, a timeout); \"host failures\" the boots the host\n"
	       "itself could not run (libvirt lost, a domain refused), which are no\n"
	       "boots of the variant and ran again on a host that worked.  \"mean\"\n"
	       "is of the ok boots that ran there, whatever their variant.\n");
	if (nh > 1) {
		printf("\nEach host against the first, the variants' differences taken out\n"
		       "(log-scale least squares with a cell per variant and the host as an\n"
		       "additive block, %g degrees of freedom; intervals at %g%%):\n\n",
		       df, 100 * (1 - kb_analysis_opts(a)->alpha));
		cmd_print_host_effects(stdout, h, nh);
	} else {
		printf("\nThe ok boots ran on one host: no host difference to measure.\n");
	}
	kb_buf_release(&safe);
}

struct hosts_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *metric;
};

static const struct kb_opt hosts_opts[] = {
	KB_OPT_STRING(struct hosts_args, metric, 0, "metric", "M",
		      "the metric whose means and differences to show (default: the experiment's)"),
	KB_OPT_DB,
	KB_OPT_JSON("print the hosts as JSON"),
	KB_OPT_END,
};

static int cmd_hosts(const struct kb_args *args);

const struct cmd cmd_hosts_entry = {
	.name = "hosts",
	.rank = 55,
	.args = "EXPERIMENT",
	.opts = hosts_opts,
	.size = sizeof(struct hosts_args),
	.fn = cmd_hosts,
	.summary = "the hosts an experiment's boots ran on, and how they differ",
	.help = "Per host of the experiment: its boots, how many ended ok, the\n"
		"failures of its own (boots it could not run, which ran again\n"
		"elsewhere and are not the variant's), whether it was drained, and\n"
		"the mean of its boots' values.  Then, when the boots ran on more\n"
		"than one host, each host's difference from the first with the\n"
		"variants' differences taken out (the host as a block, as effects\n"
		"fits it), with its confidence interval and p-value.\n",
	.epilog = "Example:\n  kbisect hosts 1\n",
};

static int cmd_hosts(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct kb_store_host_count *c = NULL;
	struct kb_host_effect *h = NULL;
	const char *metric = CMD_ARGS(struct hosts_args, args)->metric;
	size_t nc = 0, nh = 0;
	double df = NAN;
	int ret;

	if ((ret = cmd_open_analysis(args->db, args->pos[0], metric, &s, &a,
				     &err)) ||
	    (ret = kb_store_host_counts(s, kb_analysis_info(a)->id, &c, &nc,
					&err)))
		goto fail;
	if ((ret = kb_effects_hosts(a, &h, &nh, &df, &err))) {
		/* the counts still say something */
		fprintf(stderr, "kbisect: %s\n", err.msg);
		kb_err_clear(&err);
	}
	if (args->json)
		hosts_json(a, c, nc, h, nh, df);
	else
		hosts_text(a, c, nc, h, nh, df);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(h);
	kb_store_host_counts_free(c, nc);
	kb_analysis_free(a);
	kb_store_close(s);
	return ret;
}
