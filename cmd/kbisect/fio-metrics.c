#include <getopt.h>
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
	kb_json_finish(j);
	kb_json_free(j);
	cmd_put(&b);
	kb_buf_release(&b);
}

int cmd_fio_metrics(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	int json = 0, c;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return cmd_usage_error("fio-metrics", "unknown option");
	}
	if (optind + 1 != argc)
		return cmd_usage_error("fio-metrics",
				       optind == argc ? "missing FILE"
						      : "too many arguments");
	if (kb_fio_parse_file(argv[optind], &s, &err)) {
		/* a file that is not there is bad input too */
		if (err.code == KB_ENOTFOUND)
			err.code = KB_EINPUT;
		return cmd_fail(&err);
	}
	if (json) {
		metrics_json(argv[optind], &s);
		return 0;
	}
	for (i = 0; i < s.n; i++)
		printf("%-20s %.3f\n", s.m[i].name, s.m[i].value);
	return 0;
}
