#include <stdio.h>
#include <stdlib.h>

#include "kbisect.h"
#include "buf.h"
#include "fio.h"
#include "json.h"
#include "variant.h"
#include "banned.h"

/*
 * kbisect fio-metrics FILE [--json]: the metrics kbisect takes from a fio
 * JSON output file, as it would store them for one workload run.
 */

static void metrics_json(const char *file, const struct kb_sample *s)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "file", file);
	kb_json_key(j, "metrics");
	kb_json_object_begin(j);
	for (i = 0; i < s->n; i++)
		kb_json_kv_number(j, s->m[i].name, s->m[i].value);
	kb_json_object_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static const struct kb_opt fio_metrics_opts[] = {
	KB_OPT_JSON("print an object {\"file\": ..., \"metrics\": {...}}"),
	KB_OPT_END,
};

static int cmd_fio_metrics(const struct kb_args *args);

const struct cmd cmd_fio_metrics_entry = {
	.name = "fio-metrics",
	.rank = 90,
	.args = "FILE",
	.opts = fio_metrics_opts,
	.fn = cmd_fio_metrics,
	.summary = "print the metrics kbisect takes from a fio JSON output file",
	.help = "Reads FILE, the output of `fio --output-format=json` (notes fio\n"
		"prints before the JSON are skipped), and prints per direction\n"
		"(read, write; trim when fio trimmed) the IOPS and bandwidth (KiB/s)\n"
		"summed over jobs, the completion latency mean (us, weighted by each\n"
		"job's I/Os) and p50/p99/p99.9 (us, the largest over jobs), as a\n"
		"workload run stores them.  A file that is not fio JSON output is\n"
		"an error naming it (exit status 2).\n",
	.epilog = "Example:\n  kbisect fio-metrics results/randread.json\n",
};

static int cmd_fio_metrics(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	size_t i;

	/* a file that is not there is a failure (1), as for every verb;
	 * one that is not fio's output is bad input (2) */
	if (kb_fio_parse_file(args->pos[0], &s, &err))
		return cmd_fail(&err);
	if (args->json) {
		metrics_json(args->pos[0], &s);
		return 0;
	}
	for (i = 0; i < s.n; i++)
		printf("%-20s %.3f\n", s.m[i].name, s.m[i].value);
	return 0;
}
