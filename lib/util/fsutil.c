/* flock(2) and the passwd entry are outside POSIX's strict namespace */
#define _DEFAULT_SOURCE
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "mem.h"
#include "banned.h"

double kb_monotime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void kb_now_iso(char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char s[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06ldZ", s, (long)tv.tv_usec);
}

/* ---- processes -------------------------------------------------------- */

void kb_host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) < 0)
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

/* This boot's id into @buf ("" when unknown). */
static void boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

unsigned long long kb_proc_start_ticks(long pid)
{
	char path[64], line[1024], *p;
	unsigned long long v = 0;
	FILE *f;
	int field;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	/* the command name (field 2) may hold spaces and ')': count the
	 * fields after the last ')' */
	p = strrchr(line, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0; /* gone, or a zombie */
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field == 22)
		v = strtoull(p, NULL, 10);
	return v;
}

void kb_proc_self(struct kb_proc_id *out)
{
	memset(out, 0, sizeof(*out));
	kb_host_name(out->host, sizeof(out->host));
	out->pid = (long)getpid();
	out->start = kb_proc_start_ticks(out->pid);
	boot_id(out->boot, sizeof(out->boot));
}

int kb_proc_alive(const struct kb_proc_id *id)
{
	char host[256], boot[40];
	unsigned long long start;

	kb_host_name(host, sizeof(host));
	if (strcmp(id->host, host))
		return 1; /* cannot tell */
	boot_id(boot, sizeof(boot));
	if (id->boot[0] && boot[0] && strcmp(id->boot, boot))
		return 0; /* the machine rebooted since */
	if (!kb_proc_start_ticks((long)getpid()))
		return 1; /* no /proc here: cannot tell */
	start = kb_proc_start_ticks(id->pid);
	return start && (!id->start || start == id->start);
}

/* ---- locks ------------------------------------------------------------ */

/*
 * flock(2) locks belong to the open file description: each kb_lock opens
 * the file anew, so a second open in the same process (another thread)
 * conflicts with the first.  fcntl(F_SETLK) record locks belong to the
 * process, and two threads would both "hold" them.
 */
int kb_lock(const char *path, unsigned flags, int *fd, struct kb_err *err)
{
	int op = LOCK_EX | (flags & KB_LOCK_TRY ? LOCK_NB : 0);
	int f;

	*fd = -1;
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0)
		return kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", path,
				  strerror(errno));
	while (flock(f, op) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		close(f);
		if (e == EWOULDBLOCK)
			return KB_EEXISTS;
		return kb_err_set(err, KB_EFAIL, "cannot lock '%s': %s", path,
				  strerror(e));
	}
	*fd = f;
	return 0;
}

int kb_lock_dir(const char *dir, int *fd, struct kb_err *err)
{
	char *path = kb_asprintf("%s/.kbisect-lock", dir);
	int ret = kb_lock(path, KB_LOCK_WAIT, fd, err);

	free(path);
	return ret;
}

void kb_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * /proc/locks has a line per lock: "ID: [-> ]FLOCK  ADVISORY  WRITE PID
 * MAJ:MIN:INODE START END" (fs/locks.c), "->" marking one that waits;
 * the numbers of the device are hex.
 */
long kb_lock_holder(const char *path)
{
	char line[256], want[64];
	struct stat st;
	FILE *f;
	long pid = 0;

	if (stat(path, &st) < 0)
		return 0;
	snprintf(want, sizeof(want), "%02x:%02x:%lu", major(st.st_dev),
		 minor(st.st_dev), (unsigned long)st.st_ino);
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		char *tok[7], *save = NULL, *s = line;
		int n = 0;

		while (n < 7 && (tok[n] = strtok_r(s, " \t\n", &save))) {
			s = NULL;
			if (n == 1 && !strcmp(tok[n], "->"))
				break; /* a waiter, not the holder */
			n++;
		}
		if (n == 7 && !strcmp(tok[1], "FLOCK") &&
		    !strcmp(tok[3], "WRITE") && !strcmp(tok[5], want))
			pid = strtol(tok[4], NULL, 10);
	}
	fclose(f);
	return pid > 0 ? pid : 0;
}

/* ---- atomic writes ---------------------------------------------------- */

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Open a fresh temporary file beside @path (unique per call, so threads
 * and processes writing the same path never share one).
 */
static int open_temp(const char *path, unsigned mode, char **tmp,
		     struct kb_err *err)
{
	int fd;

	*tmp = kb_asprintf("%s.tmp-XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0 || fchmod(fd, (mode_t)mode) < 0) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(*tmp);
		}
		kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
			   strerror(e));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	return fd;
}

/* Sync, close and rename temporary @tmp (open as @fd) over @path. */
static int commit_temp(int fd, const char *tmp, const char *path,
		       struct kb_err *err)
{
	int ret = 0;

	if (fsync(fd) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
				 strerror(errno));
		close(fd);
	} else if (close(fd) < 0 || rename(tmp, path) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
				 strerror(errno));
	}
	if (ret)
		unlink(tmp);
	return ret;
}

int kb_write_atomic(const char *path, const void *data, size_t len,
		    unsigned mode, struct kb_err *err)
{
	char *tmp = NULL;
	int fd, ret;

	if ((fd = open_temp(path, mode, &tmp, err)) < 0)
		return KB_EFAIL;
	if (write_all(fd, data, len) < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s", path,
				 strerror(errno));
		close(fd);
		unlink(tmp);
	} else {
		ret = commit_temp(fd, tmp, path, err);
	}
	free(tmp);
	return ret;
}

int kb_write_atomic_text(const char *path, const char *text,
			 struct kb_err *err)
{
	return kb_write_atomic(path, text, strlen(text), 0644, err);
}

/* kb_copy_atomic(), the copy's mode 0644, or with @keep the source's
 * permission bits within 0644. */
static int copy_atomic(const char *from, const char *to, int keep,
		       struct kb_err *err)
{
	char buf[65536];
	char *tmp = NULL;
	int in, o = -1, ret = 0;
	unsigned mode = 0644;
	struct stat st;
	ssize_t r;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", from,
				  strerror(errno));
	if (keep) {
		if (fstat(in, &st) < 0) {
			ret = kb_err_set(err, KB_EFAIL, "cannot stat '%s': %s",
					 from, strerror(errno));
			close(in);
			return ret;
		}
		mode = (unsigned)st.st_mode & 0644;
	}
	if ((o = open_temp(to, mode, &tmp, err)) < 0) {
		ret = KB_EFAIL;
		goto out;
	}
	while ((r = read(in, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || write_all(o, buf, (size_t)r) < 0) {
			ret = kb_err_set(err, KB_EFAIL,
					 "cannot copy '%s' to '%s': %s", from,
					 to, strerror(errno));
			close(o);
			unlink(tmp);
			goto out;
		}
	}
	ret = commit_temp(o, tmp, to, err);
out:
	close(in);
	free(tmp);
	return ret;
}

int kb_copy_atomic(const char *from, const char *to, struct kb_err *err)
{
	return copy_atomic(from, to, 0, err);
}

int kb_copy_atomic_keep(const char *from, const char *to, struct kb_err *err)
{
	return copy_atomic(from, to, 1, err);
}

/* ---- where things live ------------------------------------------------ */

int kb_dir_private(const char *dir, int create, struct kb_err *err)
{
	struct stat st;
	unsigned long uid = (unsigned long)geteuid();

	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return kb_err_set(err, KB_EFAIL, "cannot make folder '%s': %s",
				  dir, strerror(errno));
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT && !create)
			return kb_err_set(err, KB_ENOTFOUND,
					  "folder '%s' does not exist", dir);
		return kb_err_set(err, KB_EFAIL, "cannot check folder '%s': %s",
				  dir, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return kb_err_set(err, KB_EFAIL,
				  "'%s' is a symbolic link, not a folder of uid %lu's own",
				  dir, uid);
	if (!S_ISDIR(st.st_mode))
		return kb_err_set(err, KB_EFAIL, "'%s' is not a folder", dir);
	if ((unsigned long)st.st_uid != uid)
		return kb_err_set(err, KB_EFAIL,
				  "folder '%s' is owned by uid %lu, not by uid %lu",
				  dir, (unsigned long)st.st_uid, uid);
	if (st.st_mode & 077)
		return kb_err_set(err, KB_EFAIL,
				  "folder '%s' has mode %04o: others may use it (it must be 0700)",
				  dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

char *kb_home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h == '/')
		return kb_strdup(h);
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir == '/')
		return kb_strdup(pw->pw_dir);
	return kb_strdup("/tmp");
}

char *kb_cache_dir(const char *sub)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *sep = sub && *sub ? "/" : "";
	char *home, *dir;

	if (!sub)
		sub = "";
	if (x && *x == '/')
		return kb_asprintf("%s/kbisect%s%s", x, sep, sub);
	home = kb_home_dir();
	dir = kb_asprintf("%s/.cache/kbisect%s%s", home, sep, sub);
	free(home);
	return dir;
}
