#ifndef KB_GUEST_INT_H
#define KB_GUEST_INT_H

/* The guest module's own: shared by lib/exec/guest.c and lib/exec/guest_pool.c. */

#include <libvirt/libvirt.h>

struct kb_guest_conn {
	virConnectPtr conn;
	char *uri;
	virStoragePoolPtr pool; /* kb_guest_pool_open()'s, or NULL */
	char *pool_name;
};

struct kb_err;

/* Set @err from libvirt's last error: "WHAT 'SUBJECT': libvirt's
 * message".  Returns KB_EFAIL. */
int kb_guest__lverr(struct kb_err *err, const char *what,
		    const char *subject);

/*
 * Reopens @c when libvirtd has dropped it, and its storage pool on the
 * new connection.  An idle client does not answer libvirtd's keepalive
 * pings (no event loop runs between boots), so after ~30 s -- a kernel
 * build -- the daemon closes the connection, and virConnectIsAlive does
 * not notice: a cheap call does.  Every call on the host's connection
 * (a guest, a volume, the environment) makes it first.
 */
int kb_guest__revive(struct kb_guest_conn *c, struct kb_err *err);

/*
 * After a call on @c failed (its message in @err): whether to make it
 * again, because the connection was lost meanwhile (libvirtd closed it
 * between kb_guest__revive()'s probe and the call, or it broke).  Then
 * @c is open again on a new connection, its pool looked up there, @err
 * cleared, and 1 returned: the caller tries once more, so that a dead
 * connection is never what counts against the host.  0 otherwise (also
 * when the new connection cannot be made: @err then says so).
 */
int kb_guest__again(struct kb_guest_conn *c, struct kb_err *err);

#endif
