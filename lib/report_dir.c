/*
 * The report's folder (lib/report.h): written in full beside the folder
 * asked for, then renamed into place -- in one step over an earlier
 * report (renameat2's RENAME_EXCHANGE), so that the folder holds the old
 * report or the new one, never a part -- and the evidence of each
 * variant written into it as repro/N/.
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE, syncfs */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"

#include "err.h"
#include "evidence.h"
#include "mem.h"
#include "paths.h"
#include "banned.h"

/* What marks an index.html as a report's (lib/report.c writes it). */
#define GENERATOR "<meta name=\"generator\" content=\"kbisect report\"/>"

/* Remove @path and what it holds, without following symbolic links;
 * @depth folders deep at most (a report is 3 deep). */
static void remove_tree(const char *path, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if (depth > 0 && (d = opendir(path))) {
		while ((de = readdir(d))) {
			char *sub;

			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			sub = kb_asprintf("%s/%s", path, de->d_name);
			remove_tree(sub, depth - 1);
			free(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/*
 * What folder @dir holds: 0 nothing, 1 an earlier report (an index.html
 * that kbisect report wrote, and besides it at most a repro folder), 2
 * anything else.
 */
static int holds(const char *dir)
{
	struct dirent *de;
	char head[4096];
	int kind = 0, fd;
	ssize_t n;
	DIR *d = opendir(dir);
	char *index;

	if (!d)
		return 2;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strcmp(de->d_name, "index.html") &&
		    strcmp(de->d_name, "repro")) {
			kind = 2;
			break;
		}
		kind = 1;
	}
	closedir(d);
	if (kind != 1)
		return kind;
	index = kb_asprintf("%s/index.html", dir);
	fd = open(index, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(index);
	if (fd < 0)
		return 2;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	head[n > 0 ? n : 0] = 0;
	return strstr(head, GENERATOR) ? 1 : 2;
}

/* @dir without its trailing slashes, split into parent and name. */
static int split(const char *dir, char **parent, char **name,
		 struct kb_err *err)
{
	size_t len = strlen(dir);
	const char *slash;

	*parent = *name = NULL;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len)
		return kb_err_set(err, KB_EINPUT,
				  "an empty folder name: give -o DIR");
	*name = kb_strndup(dir, len);
	slash = strrchr(*name, '/');
	if (!slash) {
		*parent = kb_strdup(".");
	} else {
		*parent = slash == *name
				  ? kb_strdup("/")
				  : kb_strndup(*name, (size_t)(slash - *name));
		memmove(*name, slash + 1, strlen(slash + 1) + 1);
	}
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return kb_err_set(err, KB_EINPUT,
				  "'%s' names no folder of its own: give -o DIR with a name, such as ./report",
				  dir);
	return 0;
}

int rep_dir_open(struct rep *r, const char *dir, struct kb_err *err)
{
	char *parent = NULL, *name = NULL;
	struct stat st;
	int ret;

	if ((ret = split(dir, &parent, &name, err)))
		goto out;
	if (lstat(dir, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s' is a symbolic link: give the folder itself, or a new one",
					 dir);
		else if (!S_ISDIR(st.st_mode))
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s' is not a folder: give another -o DIR",
					 dir);
		else if (holds(dir) == 2)
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s' holds files that are not a kbisect report: give a new or empty folder (an earlier report there is replaced)",
					 dir);
		if (ret)
			goto out;
	} else if (errno != ENOENT) {
		ret = kb_err_set(err, KB_EINPUT, "cannot write a report to '%s': %s",
				 dir, strerror(errno));
		goto out;
	} else if ((ret = kb_mkdir_p(parent, err))) {
		ret = KB_EINPUT; /* the place given cannot be made */
		if (err)
			err->code = ret;
		goto out;
	}
	r->tmp = kb_asprintf("%s/.%s.kbisect-XXXXXX", parent, name);
	if (!mkdtemp(r->tmp)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "cannot write a report to '%s': cannot make a folder in '%s': %s",
				 dir, parent, strerror(errno));
		free(r->tmp);
		r->tmp = NULL;
		goto out;
	}
	if (chmod(r->tmp, 0755) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot make '%s' 0755: %s",
				 r->tmp, strerror(errno));
		goto out;
	}
out:
	free(parent);
	free(name);
	return ret;
}

/* Make the folders of @rel (a path relative to the report) in r->tmp. */
static int make_parents(struct rep *r, const char *rel, struct kb_err *err)
{
	const char *slash = strrchr(rel, '/');
	char *dir;
	int ret = 0;

	if (!slash)
		return 0;
	dir = kb_asprintf("%s/%.*s", r->tmp, (int)(slash - rel), rel);
	ret = kb_mkdir_p(dir, err);
	free(dir);
	return ret;
}

int rep_put(struct rep *r, const char *name, const char *data, size_t len,
	    struct kb_err *err)
{
	char *path = kb_asprintf("%s/%s", r->tmp, name);
	size_t off = 0;
	ssize_t w;
	int fd = -1, ret;

	if ((ret = make_parents(r, name, err)))
		goto out;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
				 strerror(errno));
		goto out;
	}
	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s",
					 path, strerror(errno));
			goto out;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
				 strerror(errno));
		goto out;
	}
	fd = -1;
	kb_buf_add(&r->files, name, strlen(name) + 1);
	r->nfiles++;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return ret;
}

/* Where kb_evidence_put_text() writes variant idx's evidence: its
 * folder repro/N/ of the report. */
struct repro_sink {
	struct rep *r;
	struct rep_repro *rr;
	unsigned idx;
};

static int put_evidence(void *arg, const char *name, const char *data,
			size_t len, unsigned mode, struct kb_err *err)
{
	struct repro_sink *rs = arg;
	char *rel = kb_asprintf("repro/%u/%s", rs->idx, name);
	int ret = rep_put(rs->r, rel, data, len, err);

	(void)mode; /* rep_put() writes 0644, as the texts are */
	free(rel);
	if (!ret)
		rs->rr->names[rs->rr->n++] = name;
	return ret;
}

int rep_repro(struct rep *r, struct kb_err *err)
{
	static const enum kb_evidence_text texts[] = {
		KB_EVIDENCE_CONFIG, KB_EVIDENCE_DOMAIN, KB_EVIDENCE_WORKLOAD,
	};
	struct kb_store_evidence e;
	struct kb_err missing = KB_ERR_INIT;
	size_t i, k;
	int ret = 0;

	r->repro = kb_calloc(r->nvs ? r->nvs : 1, sizeof(*r->repro));
	for (i = 0; i < r->nvs && !ret; i++) {
		struct rep_repro *rr = &r->repro[i];
		unsigned idx = r->vs[i].idx;
		struct repro_sink rs = { .r = r, .rr = rr, .idx = idx };
		const struct kb_evidence_sink sink = { .put = put_evidence,
						       .arg = &rs };

		kb_err_clear(&missing);
		ret = kb_store_evidence_get(r->s, r->exp, idx, &e, &missing);
		if (ret == KB_ENOTFOUND) {
			ret = 0; /* never booted for real: nothing to show */
			continue;
		}
		if (ret) {
			ret = kb_err_set(err, ret, "%s", missing.msg);
			break;
		}
		rr->boot_no = e.boot_no;
		rr->status = e.status;
		e.status = NULL;
		for (k = 0; k < sizeof(texts) / sizeof(texts[0]) && !ret; k++)
			ret = kb_evidence_put_text(&e, r->m, texts[k], &sink,
						   err);
		kb_store_evidence_release(&e);
	}
	return ret;
}

int rep_dir_commit(struct rep *r, const char *dir, char **abs,
		   int *replaced, struct kb_err *err)
{
	char real[PATH_MAX], *old = NULL;
	struct stat st;
	int fd, ret = 0;

	*abs = NULL;
	*replaced = 0;
	/* what was written reaches the disk before it takes the name */
	if ((fd = open(r->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (syncfs(fd) < 0)
			ret = kb_err_set(err, KB_EFAIL, "cannot sync '%s': %s",
					 r->tmp, strerror(errno));
		close(fd);
	}
	if (ret)
		return ret;
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && holds(dir) == 1) {
		/* an earlier report: swap the two in one step */
		if (renameat2(AT_FDCWD, r->tmp, AT_FDCWD, dir,
			      RENAME_EXCHANGE) == 0) {
			remove_tree(r->tmp, 4);
		} else {
			/* a file system without exchange: two renames */
			old = kb_asprintf("%s.old", r->tmp);
			if (rename(dir, old) < 0) {
				ret = kb_err_set(err, KB_EFAIL,
						 "cannot replace the report in '%s': %s",
						 dir, strerror(errno));
				goto out;
			}
			if (rename(r->tmp, dir) < 0) {
				ret = kb_err_set(err, KB_EFAIL,
						 "cannot replace the report in '%s': %s",
						 dir, strerror(errno));
				rename(old, dir); /* the earlier one back */
				goto out;
			}
			remove_tree(old, 4);
		}
		*replaced = 1;
	} else if (rename(r->tmp, dir) < 0) {
		/* new or empty; anything else appeared since the check */
		ret = kb_err_set(err, errno == ENOTEMPTY || errno == EEXIST ||
					      errno == ENOTDIR
					      ? KB_EINPUT
					      : KB_EFAIL,
				 "cannot move the report to '%s': %s", dir,
				 strerror(errno));
		goto out;
	}
	free(r->tmp);
	r->tmp = NULL;
	if (!realpath(dir, real)) {
		ret = kb_err_set(err, KB_EFAIL, "cannot resolve '%s': %s",
				 dir, strerror(errno));
		goto out;
	}
	*abs = kb_strdup(real);
out:
	free(old);
	return ret;
}

void rep_dir_abandon(struct rep *r)
{
	if (!r->tmp)
		return;
	remove_tree(r->tmp, 4);
	free(r->tmp);
	r->tmp = NULL;
}
