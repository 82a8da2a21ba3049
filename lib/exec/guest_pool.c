/* SEEK_DATA, SEEK_HOLE */
#define _GNU_SOURCE
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "buf.h"
#include "err.h"
#include "guest_int.h"
#include "mem.h"
#include "banned.h"

/* Beside each shipped file, an empty volume saying its upload ended. */
#define DONE_SUFFIX ".done"

static int valid_name(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < 200 && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int pool_open_once(struct kb_guest_conn *c, const char *name,
			  const char *dir, struct kb_err *err)
{
	virStoragePoolPtr pool;
	struct kb_buf xml = KB_BUF_INIT;
	char *target = NULL;
	int active, ret = 0;

	if (!valid_name(name))
		return kb_err_set(err, KB_EINPUT,
				  "invalid storage pool name '%s': expected letters, digits, '.', '_' and '-'",
				  name);
	if (c->pool && !strcmp(c->pool_name, name))
		return 0;
	if ((ret = kb_guest__revive(c, err)))
		return ret;
	pool = virStoragePoolLookupByName(c->conn, name);
	if (!pool) {
		target = dir ? kb_strdup(dir)
			     : kb_asprintf("/var/lib/libvirt/%s", name);
		kb_buf_addf(&xml,
			    "<pool type='dir'><name>%s</name>"
			    "<target><path>%s</path></target></pool>",
			    name, target);
		pool = virStoragePoolDefineXML(c->conn, xml.buf, 0);
		if (!pool) /* another run defined it meanwhile? */
			pool = virStoragePoolLookupByName(c->conn, name);
		else if (virStoragePoolBuild(pool, 0) < 0) {
			ret = kb_guest__lverr(err, "cannot build storage pool",
					      name);
			goto out;
		}
		if (!pool) {
			ret = kb_guest__lverr(err, "cannot define storage pool",
					      name);
			goto out;
		}
		virStoragePoolSetAutostart(pool, 1);
	}
	/* a pool defined before whose folder is gone (another boot of the
	 * host, a tmpfs) is built again as it starts */
	active = virStoragePoolIsActive(pool);
	if (active == 0 &&
	    virStoragePoolCreate(pool, VIR_STORAGE_POOL_CREATE_WITH_BUILD) <
		    0 &&
	    virStoragePoolCreate(pool, 0) < 0 && /* drivers without the flag */
	    virStoragePoolIsActive(pool) != 1) {
		ret = kb_guest__lverr(err, "cannot start storage pool", name);
		goto out;
	}
	if (virStoragePoolRefresh(pool, 0) < 0) {
		ret = kb_guest__lverr(err, "cannot refresh storage pool", name);
		goto out;
	}
	if (c->pool)
		virStoragePoolFree(c->pool);
	free(c->pool_name);
	c->pool = pool;
	c->pool_name = kb_strdup(name);
	pool = NULL;
out:
	if (pool)
		virStoragePoolFree(pool);
	kb_buf_release(&xml);
	free(target);
	return ret;
}

/* An open pool on a live connection (kb_guest__revive()). */
static int need_pool(struct kb_guest_conn *c, struct kb_err *err)
{
	if (!c->pool)
		return kb_err_set(err, KB_EFAIL,
				  "no storage pool open on '%s' (kb_guest_pool_open)",
				  c->uri);
	return kb_guest__revive(c, err);
}

static virStorageVolPtr lookup(const struct kb_guest_conn *c,
			       const char *name)
{
	return virStorageVolLookupByName(c->pool, name);
}

static int path_of(virStorageVolPtr vol, const char *name, char **path,
		   struct kb_err *err)
{
	char *p = virStorageVolGetPath(vol);

	if (!p)
		return kb_guest__lverr(err, "no path for volume", name);
	*path = kb_strdup(p);
	free(p);
	return 0;
}

/* Delete volume @name if it is there. */
static void delete_if_there(const struct kb_guest_conn *c, const char *name)
{
	virStorageVolPtr vol = lookup(c, name);

	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
}

/* ---- a file's upload: its data and holes (a sparse image stays so) ---- */

static int send_data(virStreamPtr st, char *data, size_t n, void *opaque)
{
	int fd = *(int *)opaque;
	ssize_t got;

	(void)st;
	do
		got = read(fd, data, n);
	while (got < 0 && errno == EINTR);
	return (int)got;
}

static int in_data(virStreamPtr st, int *data, long long *length,
		   void *opaque)
{
	int fd = *(int *)opaque;
	off_t cur = lseek(fd, 0, SEEK_CUR), next;

	(void)st;
	if (cur < 0)
		return -1;
	next = lseek(fd, cur, SEEK_DATA);
	if (next < 0 && errno == ENXIO) { /* a hole to the end */
		off_t end = lseek(fd, 0, SEEK_END);

		*data = 0;
		*length = end - cur;
		return lseek(fd, cur, SEEK_SET) < 0 ? -1 : 0;
	}
	if (next < 0)
		return -1;
	if (next > cur) {
		*data = 0;
		*length = next - cur;
	} else {
		off_t hole = lseek(fd, cur, SEEK_HOLE);

		if (hole < 0)
			return -1;
		*data = 1;
		*length = hole - cur;
	}
	return lseek(fd, cur, SEEK_SET) < 0 ? -1 : 0;
}

static int skip_hole(virStreamPtr st, long long length, void *opaque)
{
	int fd = *(int *)opaque;

	(void)st;
	return lseek(fd, (off_t)length, SEEK_CUR) < 0 ? -1 : 0;
}

static int upload(struct kb_guest_conn *c, virStorageVolPtr vol,
		  const char *local, const char *name, struct kb_err *err)
{
	virStreamPtr st = NULL;
	int fd = open(local, O_RDONLY | O_CLOEXEC), ret = 0;
	struct stat sb;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", local,
				 strerror(errno));
		goto out;
	}
	st = virStreamNew(c->conn, 0);
	if (!st ||
	    virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size,
				VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM) < 0) {
		ret = kb_guest__lverr(err, "cannot upload to volume", name);
		goto out;
	}
	if (virStreamSparseSendAll(st, send_data, in_data, skip_hole, &fd) <
		    0 ||
	    virStreamFinish(st) < 0) {
		virStreamAbort(st);
		ret = kb_guest__lverr(err, "upload failed for volume", name);
	}
out:
	if (st)
		virStreamFree(st);
	if (fd >= 0)
		close(fd);
	return ret;
}

static virStorageVolPtr create(struct kb_guest_conn *c, const char *name,
			       unsigned long long bytes, const char *format,
			       const char *backing)
{
	struct kb_buf xml = KB_BUF_INIT;
	virStorageVolPtr vol;

	kb_buf_addf(&xml,
		    "<volume><name>%s</name>"
		    "<capacity unit='bytes'>%llu</capacity>"
		    "<allocation unit='bytes'>0</allocation>"
		    "<target><format type='%s'/>"
		    "<permissions><mode>0644</mode></permissions></target>",
		    name, bytes, format);
	if (backing)
		kb_buf_addf(&xml,
			    "<backingStore><path>%s</path>"
			    "<format type='raw'/></backingStore>",
			    backing);
	kb_buf_adds(&xml, "</volume>");
	vol = virStorageVolCreateXML(c->pool, xml.buf, 0);
	kb_buf_release(&xml);
	return vol;
}

static int ship_once(struct kb_guest_conn *c, const char *local,
		     const char *name, char **path, int *shipped,
		     struct kb_err *err)
{
	virStorageVolPtr vol = NULL, done = NULL;
	char *done_name = NULL;
	struct stat sb;
	int ret;

	*path = NULL;
	*shipped = 0;
	if ((ret = need_pool(c, err)))
		return ret;
	if (!valid_name(name))
		return kb_err_set(err, KB_EINPUT, "invalid volume name '%s'",
				  name);
	done_name = kb_asprintf("%s%s", name, DONE_SUFFIX);
	vol = lookup(c, name);
	done = lookup(c, done_name);
	if (vol && done) {
		ret = path_of(vol, name, path, err);
		goto out;
	}
	/* an upload that did not end (no marker): start again */
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
		vol = NULL;
	}
	if (stat(local, &sb) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot stat '%s': %s", local,
				 strerror(errno));
		goto out;
	}
	if (!(vol = create(c, name, (unsigned long long)sb.st_size, "raw",
			   NULL))) {
		ret = kb_guest__lverr(err, "cannot create volume", name);
		goto out;
	}
	if ((ret = upload(c, vol, local, name, err))) {
		virStorageVolDelete(vol, 0);
		goto out;
	}
	if (!done && !(done = create(c, done_name, 0, "raw", NULL))) {
		ret = kb_guest__lverr(err, "cannot create volume", done_name);
		goto out;
	}
	if ((ret = path_of(vol, name, path, err)))
		goto out;
	*shipped = 1;
out:
	if (vol)
		virStorageVolFree(vol);
	if (done)
		virStorageVolFree(done);
	free(done_name);
	return ret;
}

static int volume_new_once(struct kb_guest_conn *c, const char *name,
			   unsigned long long bytes, const char *backing,
			   char **path, struct kb_err *err)
{
	virStorageVolPtr vol;
	int ret;

	*path = NULL;
	if ((ret = need_pool(c, err)))
		return ret;
	if (!valid_name(name))
		return kb_err_set(err, KB_EINPUT, "invalid volume name '%s'",
				  name);
	delete_if_there(c, name); /* left by a run that died */
	vol = create(c, name, bytes, backing ? "qcow2" : "raw", backing);
	if (!vol)
		return kb_guest__lverr(err, "cannot create volume", name);
	ret = path_of(vol, name, path, err);
	virStorageVolFree(vol);
	return ret;
}

static int volume_delete_once(struct kb_guest_conn *c, const char *name,
			      struct kb_err *err)
{
	virStorageVolPtr vol;
	int ret = 0;

	if ((ret = need_pool(c, err)))
		return ret;
	if (!(vol = lookup(c, name)))
		return 0;
	if (virStorageVolDelete(vol, 0) < 0)
		ret = kb_guest__lverr(err, "cannot delete volume", name);
	virStorageVolFree(vol);
	return ret;
}

static int kept(const char *name, const char *const *keep, size_t nkeep)
{
	size_t i;

	for (i = 0; i < nkeep; i++)
		if (keep[i] && !strcmp(name, keep[i]))
			return 1;
	return 0;
}

/* What a volume takes: its allocation, or where the pool reports none
 * (libvirt's test driver), its capacity. */
static unsigned long long size_of(const virStorageVolInfo *info)
{
	return info->allocation ? info->allocation : info->capacity;
}

static int trim_once(struct kb_guest_conn *c, const char *prefix,
		     unsigned long long max_bytes, const char *const *keep,
		     size_t nkeep, unsigned *removed, struct kb_err *err)
{
	virStorageVolPtr *vols = NULL;
	unsigned long long total = 0;
	int n, i, ret;

	*removed = 0;
	if ((ret = need_pool(c, err)))
		return ret;
	virStoragePoolRefresh(c->pool, 0);
	n = virStoragePoolListAllVolumes(c->pool, &vols, 0);
	if (n < 0)
		return kb_guest__lverr(err, "cannot list the volumes of pool",
				       c->pool_name);
	for (i = 0; i < n; i++) {
		virStorageVolInfo info;
		const char *name = virStorageVolGetName(vols[i]);

		if (name && !strncmp(name, prefix, strlen(prefix)) &&
		    virStorageVolGetInfo(vols[i], &info) == 0)
			total += size_of(&info);
	}
	/* over the bound: the shipped files no boot of this run uses */
	for (i = 0; i < n && total > max_bytes; i++) {
		virStorageVolInfo info;
		const char *name = virStorageVolGetName(vols[i]);
		size_t len = name ? strlen(name) : 0;
		char *done;

		if (!name || strncmp(name, prefix, strlen(prefix)) ||
		    (len > strlen(DONE_SUFFIX) &&
		     !strcmp(name + len - strlen(DONE_SUFFIX), DONE_SUFFIX)) ||
		    kept(name, keep, nkeep) ||
		    virStorageVolGetInfo(vols[i], &info) < 0)
			continue;
		done = kb_asprintf("%s%s", name, DONE_SUFFIX);
		delete_if_there(c, done); /* first: never a marker alone */
		free(done);
		if (virStorageVolDelete(vols[i], 0) == 0) {
			total -= size_of(&info) < total ? size_of(&info) : total;
			(*removed)++;
		}
	}
	for (i = 0; i < n; i++)
		virStorageVolFree(vols[i]);
	free(vols);
	return 0;
}

/* ---- each call once more on a new connection when it lost its own ---- */

int kb_guest_pool_open(struct kb_guest_conn *c, const char *name,
		       const char *dir, struct kb_err *err)
{
	int ret = pool_open_once(c, name, dir, err);

	if (ret == KB_EFAIL && kb_guest__again(c, err))
		ret = pool_open_once(c, name, dir, err);
	return ret;
}

int kb_guest_ship(struct kb_guest_conn *c, const char *local,
		  const char *name, char **path, int *shipped,
		  struct kb_err *err)
{
	int ret = ship_once(c, local, name, path, shipped, err);

	if (ret == KB_EFAIL && kb_guest__again(c, err))
		ret = ship_once(c, local, name, path, shipped, err);
	return ret;
}

int kb_guest_volume_new(struct kb_guest_conn *c, const char *name,
			unsigned long long bytes, const char *backing,
			char **path, struct kb_err *err)
{
	int ret = volume_new_once(c, name, bytes, backing, path, err);

	if (ret == KB_EFAIL && kb_guest__again(c, err))
		ret = volume_new_once(c, name, bytes, backing, path, err);
	return ret;
}

int kb_guest_volume_delete(struct kb_guest_conn *c, const char *name,
			   struct kb_err *err)
{
	int ret = volume_delete_once(c, name, err);

	if (ret == KB_EFAIL && kb_guest__again(c, err))
		ret = volume_delete_once(c, name, err);
	return ret;
}

int kb_guest_pool_trim(struct kb_guest_conn *c, const char *prefix,
		       unsigned long long max_bytes, const char *const *keep,
		       size_t nkeep, unsigned *removed, struct kb_err *err)
{
	int ret = trim_once(c, prefix, max_bytes, keep, nkeep, removed, err);

	if (ret == KB_EFAIL && kb_guest__again(c, err))
		ret = trim_once(c, prefix, max_bytes, keep, nkeep, removed,
				err);
	return ret;
}
