#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "store.h"
#include "banned.h"

static void history_json(const struct kb_store_info *e, size_t n)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	size_t i;

	kb_json_object_begin(j);
	kb_json_key(j, "experiments");
	kb_json_array_begin(j);
	for (i = 0; i < n; i++) {
		kb_json_object_begin(j);
		kb_json_kv_int(j, "id", e[i].id);
		kb_json_kv_string(j, "name", e[i].name);
		kb_json_kv_string(j, "state", e[i].state);
		kb_json_kv_string(j, "created_at", e[i].created_at);
		kb_json_kv_string(j, "finished_at", e[i].finished_at);
		kb_json_kv_string(j, "executor", e[i].executor);
		kb_json_kv_string(j, "design", e[i].design);
		kb_json_kv_string(j, "metric", e[i].metric);
		kb_json_kv_int(j, "variants", e[i].nvariants);
		kb_json_kv_int(j, "boots", e[i].nboots_done);
		kb_json_kv_int(j, "samples", e[i].nsamples);
		kb_json_kv_string(j, "error", e[i].error);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static const struct kb_opt history_opts[] = {
	KB_OPT_DB,
	KB_OPT_JSON("print the experiments as JSON"),
	KB_OPT_END,
};

/* The design column's width: its longest name ("plackett-burman" is 15),
 * at least the 13 it always had, so that the columns after it line up. */
static int design_width(const struct kb_store_info *e, size_t n)
{
	size_t i, w = 13;

	for (i = 0; i < n; i++)
		if (e[i].design && strlen(e[i].design) > w)
			w = strlen(e[i].design);
	return w > 64 ? 64 : (int)w;
}

static int cmd_history(const struct kb_args *args);

const struct cmd cmd_history_entry = {
	.name = "history",
	.rank = 70,
	.opts = history_opts,
	.fn = cmd_history,
	.summary = "list the experiments in the database, newest first",
	.help = "One line each: id, when it was created, its state, the executor\n"
		"that ran it (model: the performance model, its figures made up;\n"
		"libvirt: real kernels booted as guests), its design, metric,\n"
		"variants, boots and samples done, and its name.\n",
};

static int cmd_history(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_store_info *e = NULL;
	const char *db = args->db;
	size_t n = 0, i;
	int json = args->json, ret;

	if ((ret = cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, &err)) ||
	    (ret = kb_store_history(s, &e, &n, &err))) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (json) {
		history_json(e, n);
	} else {
		struct kb_buf b = KB_BUF_INIT;
		int dw = design_width(e, n);

		printf("%4s  %-20s  %-11s  %-8s  %-*s  %-12s %8s %7s %8s  %s\n",
		       "id", "created (UTC)", "state", "executor", dw, "design",
		       "metric", "variants", "boots", "samples", "name");
		for (i = 0; i < n; i++)
			printf("%4lld  %-20s  %-11s  %-8s  %-*s  %-12s %8u %7u %8u  %s\n",
			       (long long)e[i].id, e[i].created_at,
			       e[i].state,
			       e[i].executor ? e[i].executor : "?", dw,
			       e[i].design, e[i].metric,
			       e[i].nvariants, e[i].nboots_done,
			       e[i].nsamples, cmd_printable(e[i].name, 0, &b));
		kb_buf_release(&b);
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		kb_store_info_release(&e[i]);
	free(e);
	kb_store_close(s);
	return ret;
}
