/*
 * kbisect status: how far the daemon's experiments got, from kbisectd
 * (printed as watch prints it: print.c).
 */
#include <stdio.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "protocol.h"
#include "banned.h"

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
