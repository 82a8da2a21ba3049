/*
 * kbisect cancel: ask kbisectd to stop an experiment after the steps
 * running now; what was measured stays.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "protocol.h"
#include "banned.h"

int cmd_cancel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_protocol_reader *r = NULL;
	struct kb_msg req, reply;
	const char *sock = NULL;
	int fd = -1, c, ret;

	memset(&req, 0, sizeof(req));
	memset(&reply, 0, sizeof(reply));
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			sock = optarg;
		else
			return cmd_usage_error("cancel", "unknown option");
	}
	if (argc - optind != 1)
		return cmd_usage_error("cancel", "expected one experiment ID");
	req.type = KB_MSG_CANCEL;
	if (cmd_parse_id(argv[optind], &req.id))
		return cmd_usage_error("cancel", "'%s' is not an experiment id",
				       argv[optind]);
	if ((ret = cmd_daemon_connect(sock, &fd, &r, &err)) ||
	    (ret = kb_protocol_call(fd, r, &req, &reply, &err)))
		goto fail;
	if (reply.type != KB_MSG_CANCELLING) {
		ret = kb_err_set(&err, KB_EFAIL,
				 "kbisectd answered '%s' to a cancel request",
				 kb_msg_type_name(reply.type));
		goto fail;
	}
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
	kb_protocol_reader_free(r);
	if (fd >= 0)
		close(fd);
	return ret;
}
