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

#endif
