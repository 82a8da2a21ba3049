/*
 * One boot at a time on a machine (machlock.h).  Each machine's lock file
 * is opened once in a process and never closed: closing any descriptor
 * of a file drops every record lock the process holds on it, so a thread
 * that gave up waiting must not close its own.
 */
#include "machlock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "mem.h"
#include "banned.h"

/* A machine this process has asked for: its lock file, whether a boot
 * of this process holds it. */
struct kb_machlock {
	char *name;
	char *path;
	int fd;
	int held;
	struct kb_machlock *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct kb_machlock *known;

static char *lock_path(const char *name)
{
	const char *dir = getenv("KBISECT_LOCK_DIR");
	struct stat st;

	if (!dir || !*dir)
		dir = stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode)
			      ? "/run/lock"
			      : "/tmp";
	return kb_asprintf("%s/kbisect-machine-%s.lock", dir, name);
}

/* @name's entry, opened when first asked for (mu held); NULL with errno
 * when its file cannot be opened. */
static struct kb_machlock *entry(const char *name)
{
	struct kb_machlock *l;
	char *path;
	int fd;

	for (l = known; l; l = l->next)
		if (!strcmp(l->name, name))
			return l;
	path = lock_path(name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		free(path);
		errno = e;
		return NULL;
	}
	l = kb_calloc(1, sizeof(*l));
	l->name = kb_strdup(name);
	l->path = path;
	l->fd = fd;
	l->next = known;
	known = l;
	return l;
}

static int set_lock(int fd, int cmd, short type, struct flock *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
	return fcntl(fd, cmd, fl);
}

/* Try once (mu held): 1 taken, 0 held by another (*@pid: its process,
 * 0 this one), -1 an error in errno. */
static int try_take(struct kb_machlock *l, long *pid)
{
	struct flock fl;

	*pid = 0;
	if (l->held)
		return 0;
	if (set_lock(l->fd, F_SETLK, F_WRLCK, &fl) == 0) {
		l->held = 1;
		return 1;
	}
	if (errno != EACCES && errno != EAGAIN)
		return -1;
	if (set_lock(l->fd, F_GETLK, F_WRLCK, &fl) == 0 &&
	    fl.l_type != F_UNLCK)
		*pid = (long)fl.l_pid;
	return 0;
}

int kb_machlock_take(const char *name, const volatile sig_atomic_t *stop,
		     void (*wait)(const char *line, void *arg), void *arg,
		     struct kb_machlock **out, struct kb_err *err)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	struct kb_machlock *l;
	int said = 0, got, e = 0;
	long pid;

	*out = NULL;
	for (;;) {
		pthread_mutex_lock(&mu);
		l = entry(name);
		got = l ? try_take(l, &pid) : -1;
		e = errno;
		pthread_mutex_unlock(&mu);
		if (got)
			break;
		if (!said && wait) {
			char *line =
				pid ? kb_asprintf("machine %s is booted by process %ld (lock %s); waiting for it",
						  name, pid, l->path)
				    : kb_asprintf("machine %s is booted by another boot of this process; waiting for it",
						  name);

			wait(line, arg);
			free(line);
		}
		said = 1;
		if (stop && *stop)
			return kb_err_set(err, KB_EFAIL,
					  "stopped while waiting for machine %s",
					  name);
		nanosleep(&nap, NULL);
	}
	if (got < 0) {
		char *path = lock_path(name);
		int ret = kb_err_set(err, KB_EFAIL,
				     "cannot take machine %s's lock %s: %s",
				     name, path, strerror(e));

		free(path);
		return ret;
	}
	*out = l;
	return 0;
}

void kb_machlock_release(struct kb_machlock *l)
{
	struct flock fl;

	if (!l)
		return;
	pthread_mutex_lock(&mu);
	set_lock(l->fd, F_SETLK, F_UNLCK, &fl);
	l->held = 0;
	pthread_mutex_unlock(&mu);
}
