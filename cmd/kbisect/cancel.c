/*
 * kbisect cancel: ask kbisectd to stop an experiment after the steps
 * running now; what was measured stays.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "protocol.h"
#include "banned.h"

static const struct kb_opt cancel_opts[] = {
	KB_OPT_SOCKET,
	KB_OPT_END,
};

static int cmd_cancel(const struct kb_args *args);

const struct cmd cmd_cancel_entry = {
	.name = "cancel",
	.rank = 160,
	.args = "ID",
	.opts = cancel_opts,
	.fn = cmd_cancel,
	.summary = "stop a queued or running experiment after its running step",
	.help = "No new step of the experiment starts; the steps running now end\n"
		"and are stored, then the experiment is marked cancelled.  Every\n"
		"sample measured stays in the database.\n",
	.epilog = "Example:\n  kbisect cancel 3\n",
};

static int cmd_cancel(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg req, reply;
	int ret;

	memset(&req, 0, sizeof(req));
	memset(&reply, 0, sizeof(reply));
	req.type = KB_MSG_CANCEL;
	if (cmd_parse_id(args->pos[0], &req.id))
		return cmd_usage_error("cancel", "'%s' is not an experiment id",
				       args->pos[0]);
	if ((ret = cmd_daemon_ask(args->socket, &req, KB_MSG_CANCELLING,
				  "a cancel request", &reply, &err)))
		goto fail;
	if (reply.state && !strcmp(reply.state, "cancelled"))
		printf("experiment %lld cancelled; its samples are kept\n",
		       (long long)reply.id);
	else
		printf("experiment %lld stops after its running step; its samples are kept\n",
		       (long long)reply.id);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_msg_release(&reply);
	return ret;
}
