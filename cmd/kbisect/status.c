/*
 * kbisect status: how far the daemon's experiments got, from kbisectd.
 * Also the progress formatting that watch shares.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "mem.h"
#include "protocol.h"
#include "banned.h"

char *cmd_duration(double s)
{
	long t;

	if (isnan(s) || s < 0)
		return kb_asprintf("?");
	if (s < 10)
		return kb_asprintf("%.1fs", s);
	t = (long)(s + 0.5);
	if (t < 60)
		return kb_asprintf("%lds", t);
	if (t < 3600)
		return kb_asprintf("%ldm%02lds", t / 60, t % 60);
	return kb_asprintf("%ldh%02ldm", t / 3600, t / 60 % 60);
}

void cmd_print_progress(const struct kb_msg_progress *p, FILE *f)
{
	char *el = cmd_duration(p->elapsed_s), *eta = cmd_duration(p->eta_s);
	struct kb_buf safe = KB_BUF_INIT; /* what the daemon stored */

	fprintf(f, "#%lld %s: %s%s\n", (long long)p->id,
		p->name ? cmd_printable(p->name, 0, &safe) : "?",
		p->state ? p->state : "?",
		p->cancel_requested && p->state && !strcmp(p->state, "running")
			? " (cancelling after the running step)"
			: "");
	fprintf(f, "  variants %u/%u, builds %u/%u, boots %u/%u, elapsed %s",
		p->variants_done, p->variants_total, p->builds_done,
		p->builds_total, p->boots_done, p->boots_total, el);
	if (p->state &&
	    (!strcmp(p->state, "running") || !strcmp(p->state, "queued")))
		fprintf(f, ", ETA %s", eta);
	fputc('\n', f);
	if (!isnan(p->build_mean_s) || !isnan(p->boot_mean_s)) {
		char *b = cmd_duration(p->build_mean_s);
		char *o = cmd_duration(p->boot_mean_s);

		fprintf(f, "  measured: build %s, boot %s\n", b, o);
		free(b);
		free(o);
	}
	if (p->current)
		fprintf(f, "  now: %s\n", cmd_printable(p->current, 0, &safe));
	if (p->hosts)
		fprintf(f, "  boots per host: %s\n",
			cmd_printable(p->hosts, 0, &safe));
	if (p->error)
		fprintf(f, "  error: %s\n", cmd_printable(p->error, 1, &safe));
	kb_buf_release(&safe);
	free(el);
	free(eta);
}

void cmd_json_progress(struct kb_json *j, const struct kb_msg_progress *p)
{
	kb_json_object_begin(j);
	kb_json_kv_int(j, "id", p->id);
	kb_json_kv_string(j, "name", p->name);
	kb_json_kv_string(j, "state", p->state);
	kb_json_kv_string(j, "executor", p->executor);
	kb_json_kv_bool(j, "cancel_requested", p->cancel_requested);
	kb_json_kv_int(j, "variants_done", p->variants_done);
	kb_json_kv_int(j, "variants_total", p->variants_total);
	kb_json_kv_int(j, "builds_done", p->builds_done);
	kb_json_kv_int(j, "builds_total", p->builds_total);
	kb_json_kv_int(j, "builds_running", p->builds_running);
	kb_json_kv_int(j, "boots_done", p->boots_done);
	kb_json_kv_int(j, "boots_total", p->boots_total);
	kb_json_kv_int(j, "boots_running", p->boots_running);
	kb_json_kv_string(j, "current", p->current);
	kb_json_kv_string(j, "hosts", p->hosts);
	kb_json_kv_number(j, "build_mean_s", p->build_mean_s);
	kb_json_kv_number(j, "boot_mean_s", p->boot_mean_s);
	kb_json_kv_number(j, "elapsed_s", p->elapsed_s);
	kb_json_kv_number(j, "eta_s", p->eta_s);
	kb_json_kv_string(j, "error", p->error);
	kb_json_object_end(j);
}

static const struct kb_opt status_opts[] = {
	KB_OPT_SOCKET,
	KB_OPT_JSON("print an object (with ID) or an array"),
	KB_OPT_END,
};

static int cmd_status(const struct kb_args *args);

const struct cmd cmd_status_entry = {
	.name = "status",
	.rank = 150,
	.args = "[ID]",
	.opts = status_opts,
	.fn = cmd_status,
	.summary = "show how far the daemon's experiments got",
	.help = "For experiment ID, or the daemon's latest experiments: state,\n"
		"variants, builds and boots done of all, the steps running now, the\n"
		"measured mean build and boot times and the time left estimated\n"
		"from them.\n",
	.epilog = "Example:\n  kbisect status 3 --json\n",
};

static int cmd_status(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg req, reply;
	int json = args->json, ret;
	size_t i;

	memset(&req, 0, sizeof(req));
	memset(&reply, 0, sizeof(reply));
	req.type = KB_MSG_STATUS;
	if (args->npos == 1 && cmd_parse_id(args->pos[0], &req.id))
		return cmd_usage_error("status", "'%s' is not an experiment id",
				       args->pos[0]);
	if ((ret = cmd_daemon_ask(args->socket, &req, KB_MSG_PROGRESS,
				  "a status request", &reply, &err)))
		goto fail;
	if (json) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_json *j = kb_json_new(&b, 1);

		if (req.id && reply.nprogress == 1) {
			cmd_json_progress(j, &reply.progress[0]);
		} else {
			kb_json_array_begin(j);
			for (i = 0; i < reply.nprogress; i++)
				cmd_json_progress(j, &reply.progress[i]);
			kb_json_array_end(j);
		}
		cmd_json_put(j, &b);
	} else if (!reply.nprogress) {
		printf("no experiment was submitted to this kbisectd\n");
	} else {
		for (i = 0; i < reply.nprogress; i++)
			cmd_print_progress(&reply.progress[i], stdout);
	}
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_msg_release(&reply);
	return ret;
}
