/*
 * Helper of tests/integration/libvirt-idle.sh: a libvirt connection left
 * idle past libvirtd's keepalive (no event loop runs during a kernel
 * build) must still work afterwards, not kill the process with SIGPIPE.
 *
 *   libvirt-idle URI SECONDS
 *
 * Lists the guests (keeping every one) before and after SECONDS idle.
 * Exit status 0 when both calls succeed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "guest.h"

static int keep_all(const char *name, void *arg)
{
	(void)name;
	(void)arg;
	return 1;
}

int main(int argc, char **argv)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	unsigned n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s URI SECONDS\n", argv[0]);
		return 2;
	}
	if (kb_guest_connect(argv[1], &c, &err) ||
	    kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err)) {
		fprintf(stderr, "libvirt-idle: %s\n", err.msg);
		return 1;
	}
	sleep((unsigned)atoi(argv[2]));
	if (kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err)) {
		fprintf(stderr, "libvirt-idle: after the idle time: %s\n",
			err.msg);
		kb_guest_disconnect(c);
		return 1;
	}
	kb_guest_disconnect(c);
	return 0;
}
