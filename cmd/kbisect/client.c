/*
 * The daemon's client (client.h): what submit, status, cancel and watch
 * say to kbisectd.
 */
#include <stdlib.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "protocol.h"
#include "banned.h"

int cmd_daemon_connect(const char *socket_path, int *fd,
		       struct kb_protocol_reader **r, struct kb_err *err)
{
	char *def = NULL;
	int ret;

	if (!socket_path)
		socket_path = def = kb_protocol_default_socket();
	ret = kb_protocol_connect(socket_path, fd, r, err);
	free(def);
	return ret;
}

int cmd_daemon_ask(const char *socket_path, const struct kb_msg *req,
		   enum kb_msg_type expect, const char *what,
		   struct kb_msg *reply, struct kb_err *err)
{
	struct kb_protocol_reader *r = NULL;
	int fd = -1, ret;

	if ((ret = cmd_daemon_connect(socket_path, &fd, &r, err)) ||
	    (ret = kb_protocol_call(fd, r, req, reply, err)))
		goto out;
	if (reply->type != expect)
		ret = kb_err_set(err, KB_EFAIL, "kbisectd answered '%s' to %s",
				 kb_msg_type_name(reply->type), what);
out:
	kb_protocol_reader_free(r);
	if (fd >= 0)
		close(fd);
	return ret;
}
