/*
 * kbisect report ID [-o DIR]: an experiment as a static HTML page with
 * its plots, for a browser with no network (lib/report.h); kbisect
 * report --trend NAME: a metric across a matrix name's experiments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "mem.h"
#include "report.h"
#include "store.h"
#include "trend.h"
#include "banned.h"

struct report_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *dir;
	const char *trend;
	const char *variant;
	const char *metric;
	const char *by;
};

static const struct kb_opt report_opts[] = {
	KB_OPT_STRING(struct report_args, dir, 'o', "output", "DIR",
		      "the folder to write: new, empty, or an earlier report, which is replaced (default: ./kbisect-report-ID, ./kbisect-trend-NAME)"),
	KB_OPT_STRING(struct report_args, trend, 0, "trend", "NAME",
		      "instead of an experiment: the trend of matrix name NAME across its experiments, as kbisect trend finds it"),
	KB_OPT_STRING(struct report_args, variant, 0, "variant", "LABEL",
		      "--trend: the variant, by its label (default: each experiment's baseline)"),
	KB_OPT_STRING(struct report_args, metric, 0, "metric", "M",
		      "--trend: the metric (default: the newest experiment's)"),
	KB_OPT_STRING(struct report_args, by, 0, "by", "time|revision",
		      "--trend: order the experiments as they ran (default) or by their kernel revision's commit date"),
	KB_OPT_DB,
	KB_OPT_JSON("print what was written as JSON"),
	KB_OPT_END,
};

static int cmd_report(const struct kb_args *args);

const struct cmd cmd_report_entry = {
	.name = "report",
	.rank = 67,
	.args = "[EXPERIMENT]",
	.opts = report_opts,
	.size = sizeof(struct report_args),
	.fn = cmd_report,
	.summary = "write an experiment as an HTML page with its plots",
	.help = "Writes DIR/index.html: one page, with its style and plots inside\n"
		"it (SVG), that any browser shows without a network and without\n"
		"running a script (its Content-Security-Policy forbids both).  From\n"
		"the database alone, nothing written to it and no boot added, the\n"
		"answer first:\n"
		"\n"
		"  verdicts      every variant against the baseline, as `kbisect\n"
		"                compare` judges it: %change, +-%stddev, verdict\n"
		"                (the other metrics folded)\n"
		"  why           the answer of `kbisect why --no-boots`\n"
		"  bisection     for a bisection's experiment: the culprit set, the\n"
		"                probes in order with their verdicts, plotted\n"
		"  effects       a forest plot of the main effects and interactions\n"
		"                with their intervals, and their table\n"
		"  boot means    a strip plot: each boot a dot, each variant's mean\n"
		"                marked, the baseline's 95% interval as a band; and\n"
		"                the table of `kbisect results`\n"
		"  drift         each boot against its variant by its place in the\n"
		"                run, and the drift check's answer\n"
		"  experiment    name, state, design, executor, metric, and the\n"
		"                matrix (and model) text it was submitted with\n"
		"  environment   the hosts, hypervisor, libvirt and host kernel\n"
		"                versions its boots ran on; the guest's shape; the\n"
		"                kernel source and every build\n"
		"  time          where it went: builds, boots, workload runs\n"
		"  variants      one line each, opened: each boot and the value of\n"
		"                each run, and links to what the boot booted and\n"
		"                ran (repro/N/: config, domain.xml, workload), when\n"
		"                the database keeps it\n"
		"\n"
		"Changes are plotted on a log-ratio axis, ticks in % and x: -50% and\n"
		"+100% (2x each way) lie as far from 0, -90% and +900% (10x) farther.\n"
		"\n"
		"The report is written into a new folder beside DIR and renamed to\n"
		"DIR at the end: DIR never holds half a report, and a failure\n"
		"leaves nothing.  DIR may be new, empty, or an earlier report\n"
		"(replaced); a file, or a folder holding anything else, is refused\n"
		"with exit status 2, as is a DIR that cannot be made or written;\n"
		"an unknown EXPERIMENT exits 1.  Prints the page's path.\n"
		"\n"
		"With --trend NAME (and no EXPERIMENT), the page is the trend of one\n"
		"metric of one variant across the experiments of matrix name NAME:\n"
		"the series plotted one experiment a row, each boot a dot, coloured\n"
		"from each change point on, and the change points that `kbisect\n"
		"trend` finds (E-Divisive means with its defaults: 199 permutations,\n"
		"p <= 0.01, seed 1).\n",
	.epilog = "Examples:\n"
		  "  kbisect report 1 -o report && xdg-open report/index.html\n"
		  "  kbisect report --trend nightly-fio --by revision -o trend\n",
};

/* What was written, for the experiment @exp, else the trend of @trend. */
static void print_json(int64_t exp, const char *trend,
		       const struct kb_report_result *r)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	if (trend)
		kb_json_kv_string(j, "trend", trend);
	else
		kb_json_kv_int(j, "experiment", exp);
	kb_json_kv_string(j, "dir", r->dir);
	kb_json_kv_string(j, "index", r->index);
	kb_json_kv_int(j, "plots", r->nplots);
	kb_json_kv_bool(j, "replaced", r->replaced);
	kb_json_key(j, "files");
	kb_json_array_begin(j);
	for (i = 0; i < r->nfiles; i++) {
		char *path = kb_asprintf("%s/%s", r->dir, r->files[i]);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", r->files[i]);
		kb_json_kv_string(j, "path", path);
		kb_json_object_end(j);
		free(path);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static int report_trend(const struct kb_args *args)
{
	const struct report_args *a = CMD_ARGS(struct report_args, args);
	struct kb_trend_series_opts so = KB_TREND_SERIES_OPTS_INIT;
	struct kb_report_result res;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_buf p = KB_BUF_INIT;
	char *dir = NULL;
	int ret;

	memset(&res, 0, sizeof(res));
	if (!a->trend || !*a->trend)
		return cmd_usage_error("report",
				       "--variant, --metric and --by go with --trend NAME");
	if (args->npos)
		return cmd_usage_error("report",
				       "give an EXPERIMENT id or --trend NAME, not both");
	if (a->dir && !*a->dir)
		return cmd_usage_error("report", "-o needs a folder, not ''");
	if ((ret = cmd_trend_series_opts("report", a->variant, a->metric,
					 a->by, &so)))
		return ret;
	dir = a->dir ? kb_strdup(a->dir)
		     : kb_asprintf("kbisect-trend-%s", a->trend);
	if ((ret = cmd_open_store_as(args->db, KB_STORE_READ_ONLY, &s,
				     &err)) ||
	    (ret = kb_report_trend_write(s, a->trend, &so, NULL, dir, &res,
					 &err))) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (args->json) {
		print_json(0, a->trend, &res);
	} else {
		printf("wrote the trend of '%s': %zu files, %u plots%s\n",
		       cmd_printable(a->trend, 0, &p), res.nfiles, res.nplots,
		       res.replaced ? " (the earlier report replaced)" : "");
		kb_buf_reset(&p);
		printf("%s\n", cmd_printable(res.index, 0, &p));
	}
out:
	kb_buf_release(&p);
	kb_report_result_release(&res);
	kb_store_close(s);
	free(dir);
	return ret;
}

static int cmd_report(const struct kb_args *args)
{
	const struct report_args *a = CMD_ARGS(struct report_args, args);
	struct kb_report_result res;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_buf p = KB_BUF_INIT;
	char *dir = NULL;
	int64_t exp;
	int ret;

	memset(&res, 0, sizeof(res));
	if (a->trend || a->variant || a->metric || a->by)
		return report_trend(args);
	if (args->npos != 1)
		return cmd_usage_error("report",
				       "give an EXPERIMENT id, or --trend NAME");
	if (cmd_parse_id(args->pos[0], &exp) < 0)
		return cmd_usage_error("report",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if (a->dir && !*a->dir)
		return cmd_usage_error("report", "-o needs a folder, not ''");
	dir = a->dir ? kb_strdup(a->dir)
		     : kb_asprintf("kbisect-report-%lld", (long long)exp);
	/* what the report computes is stored where the database can be
	 * written */
	ret = cmd_open_store_as(args->db, KB_STORE_EXISTING, &s, &err);
	if (!ret) {
		cmd_store_writable(s);
		ret = kb_report_write(s, exp, dir, &res, &err);
	}
	if (ret) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (args->json) {
		print_json(exp, NULL, &res);
	} else {
		printf("wrote the report of experiment %lld: %zu files, %u plots%s\n",
		       (long long)exp, res.nfiles, res.nplots,
		       res.replaced ? " (the earlier report replaced)" : "");
		printf("%s\n", cmd_printable(res.index, 0, &p));
	}
out:
	kb_buf_release(&p);
	kb_report_result_release(&res);
	kb_store_close(s);
	free(dir);
	return ret;
}
