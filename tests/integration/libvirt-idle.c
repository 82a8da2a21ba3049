/*
 * Helper of tests/integration/libvirt-idle.sh: a libvirt connection left
 * idle past libvirtd's keepalive (no event loop runs during a kernel
 * build) must still work afterwards, not kill the process with SIGPIPE,
 * and so must the storage pool opened before it (kernels are shipped
 * into it after their build: on the Xen lab a first boot after 40 min of
 * builds failed three times with "cannot create volume: client socket is
 * closed" and drained the host).
 *
 *   libvirt-idle URI SECONDS POOLDIR POOL
 *
 * Lists the guests (keeping every one) and opens storage pool POOL in
 * POOLDIR before SECONDS idle; after it, lists them again and ships a
 * file into the pool (and deletes it).  Exit status 0 when every call
 * succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"

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

	struct kb_buf local = KB_BUF_INIT;
	char *path = NULL;
	int shipped = 0, ret = 1;
	FILE *f;

	if (argc != 5) {
		fprintf(stderr, "usage: %s URI SECONDS POOLDIR POOL\n",
			argv[0]);
		return 2;
	}
	kb_buf_addf(&local, "%s/payload", argv[3]);
	if (!(f = fopen(local.buf, "w")) || fputs("kernel\n", f) < 0 ||
	    fclose(f)) {
		perror("libvirt-idle: payload");
		return 1;
	}
	if (kb_guest_connect(argv[1], &c, &err) ||
	    kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err) ||
	    kb_guest_pool_open(c, argv[4], argv[3], &err)) {
		fprintf(stderr, "libvirt-idle: %s\n", err.msg);
		goto out;
	}
	sleep((unsigned)atoi(argv[2]));
	if (kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err) ||
	    kb_guest_ship(c, local.buf, "kb-idle", &path, &shipped, &err) ||
	    kb_guest_volume_delete(c, "kb-idle", &err)) {
		fprintf(stderr, "libvirt-idle: after the idle time: %s\n",
			err.msg);
		goto out;
	}
	ret = shipped ? 0 : 1;
	if (!shipped)
		fprintf(stderr, "libvirt-idle: the file was not shipped\n");
out:
	free(path);
	kb_buf_release(&local);
	kb_guest_disconnect(c);
	return ret;
}
