/*
 * Helper of tests/integration/libvirt-idle.sh: a libvirt connection left
 * idle past libvirtd's keepalive (no event loop runs during a kernel
 * build) must still work afterwards for every call kbisect makes on a
 * host, not kill the process with SIGPIPE, and so must the storage pool
 * opened before it (kernels are shipped into it after their build: on
 * the Xen lab a first boot after 40 min of builds failed three times
 * with "cannot create volume: client socket is closed" and drained the
 * host).
 *
 *   libvirt-idle URI SECONDS POOLDIR POOL [BIG]
 *
 * Opens a connection as the runner does (the guests listed, keeping
 * every one; the environment read; storage pool POOL opened in POOLDIR,
 * a folder of the host's), and beside it a plain libvirt connection.
 * After SECONDS idle the plain one must be dead (else libvirtd did not
 * drop idle clients, and the test would prove nothing: exit 3); then
 * every call on kbisect's: the environment again (the first boot's
 * executor reads it), the guests, a kernel shipped into the pool, a
 * scratch volume made, the pool trimmed, both volumes deleted.  With
 * BIG, a large file, it then says "shipping BIG" on stdout and ships it
 * as volume kb-idle-big: the caller closes the connection from
 * libvirtd's side while it uploads (virt-admin client-disconnect), and
 * the upload must be made again on a new connection rather than fail.
 * Exit status 0 when every call succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "buf.h"
#include "err.h"
#include "guest.h"

static int keep_all(const char *name, void *arg)
{
	(void)name;
	(void)arg;
	return 1;
}

static void quiet(void *arg, virErrorPtr e)
{
	(void)arg;
	(void)e;
}

int main(int argc, char **argv)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	virConnectPtr plain = NULL;
	struct kb_buf local = KB_BUF_INIT;
	char *path = NULL, *scratch = NULL, *env = NULL;
	const char *step = "";
	unsigned long v;
	unsigned n = 0, removed = 0;
	int shipped = 0, ret = 1;
	FILE *f;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s URI SECONDS POOLDIR POOL [BIG]\n",
			argv[0]);
		return 2;
	}
	kb_buf_addf(&local, "%s/payload-%d", getenv("TMPDIR") ?
		    getenv("TMPDIR") : "/tmp", (int)getpid());
	if (!(f = fopen(local.buf, "w")) || fputs("kernel\n", f) < 0 ||
	    fclose(f)) {
		perror("libvirt-idle: payload");
		return 1;
	}
	if (kb_guest_connect(argv[1], &c, &err) ||
	    kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err) ||
	    kb_guest_environment(c, &env, &err) ||
	    kb_guest_pool_open(c, argv[4], argv[3], &err)) {
		fprintf(stderr, "libvirt-idle: %s\n", err.msg);
		goto out;
	}
	free(env);
	env = NULL;
	/* kb_guest_connect() registered libvirt's event loop, so that this
	 * connection, like kbisect's, takes part in keepalive */
	virSetErrorFunc(NULL, quiet);
	plain = virConnectOpen(argv[1]);
	if (!plain) {
		fprintf(stderr, "libvirt-idle: cannot open a plain connection\n");
		goto out;
	}
	sleep((unsigned)atoi(argv[2]));
	if (virConnectGetLibVersion(plain, &v) == 0) {
		fprintf(stderr,
			"libvirt-idle: libvirtd kept an idle client for %s s: its keepalive is longer, nothing tested\n",
			argv[2]);
		ret = 3;
		goto out;
	}
	if ((step = "the environment",
	     kb_guest_environment(c, &env, &err)) ||
	    (step = "the guests",
	     kb_guest_destroy_orphans(c, keep_all, NULL, &n, &err)) ||
	    (step = "shipping the kernel",
	     kb_guest_ship(c, local.buf, "kb-idle-kernel", &path, &shipped,
			   &err)) ||
	    (step = "a scratch volume",
	     kb_guest_volume_new(c, "kb-idle-scratch", 1 << 20, NULL,
				 &scratch, &err)) ||
	    (step = "trimming the pool",
	     kb_guest_pool_trim(c, "kb-idle-", 1ull << 40, NULL, 0, &removed,
				&err)) ||
	    (step = "deleting the volumes",
	     kb_guest_volume_delete(c, "kb-idle-scratch", &err)) ||
	    kb_guest_volume_delete(c, "kb-idle-kernel", &err) ||
	    kb_guest_volume_delete(c, "kb-idle-kernel.done", &err)) {
		fprintf(stderr, "libvirt-idle: after %s s idle, %s: %s\n",
			argv[2], step, err.msg);
		goto out;
	}
	if (!shipped) {
		fprintf(stderr, "libvirt-idle: the file was not shipped\n");
		goto out;
	}
	if (argc == 6) {
		free(path);
		path = NULL;
		printf("shipping %s\n", argv[5]);
		fflush(stdout);
		if (kb_guest_ship(c, argv[5], "kb-idle-big", &path, &shipped,
				  &err)) {
			fprintf(stderr,
				"libvirt-idle: its connection closed while it shipped '%s': %s\n",
				argv[5], err.msg);
			goto out;
		}
		printf("shipped %s\n", argv[5]);
	}
	ret = 0;
out:
	if (plain)
		virConnectClose(plain);
	unlink(local.buf);
	free(env);
	free(path);
	free(scratch);
	kb_buf_release(&local);
	kb_guest_disconnect(c);
	return ret;
}
