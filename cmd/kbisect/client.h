#ifndef KBISECT_CLIENT_H
#define KBISECT_CLIENT_H

/*
 * The daemon's client (client.c): how submit, status, cancel and watch
 * reach kbisectd (docs/daemon.md).  The messages are lib/protocol.h's.
 */

struct kb_err;
struct kb_msg;
struct kb_protocol_reader;
enum kb_msg_type;

/* Connect to kbisectd at @socket_path, else the default socket
 * (kb_protocol_default_socket), and exchange HELLO: *@fd and *@r are
 * the caller's to close and free.  Returns 0 or an error in @err. */
int cmd_daemon_connect(const char *socket_path, int *fd,
		       struct kb_protocol_reader **r, struct kb_err *err);
/* One request @req and its answer: connect (as cmd_daemon_connect), send,
 * read the reply into @reply (the caller releases it with kb_msg_release,
 * also after a failure) and check that it is of type @expect, else
 * KB_EFAIL "kbisectd answered 'TYPE' to @what". */
int cmd_daemon_ask(const char *socket_path, const struct kb_msg *req,
		   enum kb_msg_type expect, const char *what,
		   struct kb_msg *reply, struct kb_err *err);

#endif
