#ifndef KB_FSUTIL_H
#define KB_FSUTIL_H

#include <stddef.h>

struct kb_err;

/*
 * Small file-system mechanisms every stage needs, each in one place: the
 * monotonic clock, who a process is and whether it still runs, an
 * exclusive lock on a file, a write that is all or nothing, and the
 * per-user cache folder.  (OpenSSH's monotime(), git's
 * lockfile.c.)
 */

/* Seconds on the monotonic clock: for durations, never for dates. */
double kb_monotime(void);

/* The wall clock now as ISO 8601 UTC to the microsecond,
 * "2026-12-01T19:04:40.123456Z", into @out (@len bytes, 32 hold it):
 * when something happened, for the record (durations: kb_monotime()). */
void kb_now_iso(char *out, size_t len);

/* ---- processes -------------------------------------------------------- */

/*
 * Who a process is, so that another process can later tell whether it
 * still runs: a pid alone may have been reused, so its start time and the
 * machine's boot id come with it.
 */
struct kb_proc_id {
	char host[256];           /* gethostname() */
	long pid;
	unsigned long long start; /* field 22 of /proc/PID/stat: clock ticks
				   * after boot; 0: unknown */
	char boot[40];            /* /proc/sys/kernel/random/boot_id; "":
				   * unknown */
};

/* Fill @out with this process's identity. */
void kb_proc_self(struct kb_proc_id *out);

/*
 * Whether the process @id names still runs: 1, or 0 when it is gone (no
 * such pid, a pid with another start time or reused after a reboot, or a
 * zombie that can do nothing more).  A process on another host, or any
 * process where /proc cannot be read, cannot be checked and counts as
 * alive.
 */
int kb_proc_alive(const struct kb_proc_id *id);

/* The start time of live (not zombie) process @pid, field 22 of
 * /proc/PID/stat in clock ticks after boot; 0 when there is none. */
unsigned long long kb_proc_start_ticks(long pid);

/* This machine's host name (gethostname(), else "localhost") in @buf. */
void kb_host_name(char *buf, size_t len);

/* ---- locks ------------------------------------------------------------ */

enum kb_lock_flags {
	KB_LOCK_WAIT = 0,      /* block until the lock is free */
	KB_LOCK_TRY = 1 << 0,  /* fail with KB_EEXISTS when it is held */
};

/*
 * Take an exclusive lock on file @path (created 0644 if missing), held
 * until *@fd is closed (kb_unlock).  The lock belongs to this open of
 * the file, not to the process: two threads of one process, each with
 * its own kb_lock, exclude each other as two processes do, and closing
 * another descriptor of the file does not drop it.  The descriptor is
 * close-on-exec.  With KB_LOCK_TRY a held lock is KB_EEXISTS, with no
 * message set (the caller says who holds what); other failures are
 * KB_EFAIL with a message naming @path.
 */
int kb_lock(const char *path, unsigned flags, int *fd, struct kb_err *err);

/*
 * The lock of folder @dir: kb_lock on @dir/.kbisect-lock, waiting.  Held
 * by whoever writes in the folder (a build in an O= folder, a config
 * resolution in its work folder).
 */
int kb_lock_dir(const char *dir, int *fd, struct kb_err *err);

/* Release a lock taken by kb_lock (closes @fd; -1 is ignored). */
void kb_unlock(int fd);

/*
 * The pid of the process holding a kb_lock on file @path, read from
 * /proc/locks by the file's device and inode (so through any name of
 * the file, as lslocks(8) does), or 0 when it cannot be told.
 */
long kb_lock_holder(const char *path);

/* ---- atomic writes ---------------------------------------------------- */

/*
 * Write @len bytes of @data to @path through a temporary file in the same
 * folder, fsync'd and renamed over @path: readers see the old content or
 * the new, never a part.  The file gets exactly @mode.  On any
 * failure (a full disk included) @path is untouched, the temporary file
 * is removed and KB_EFAIL names the file and the reason.
 */
int kb_write_atomic(const char *path, const void *data, size_t len,
		    unsigned mode, struct kb_err *err);

/* As kb_write_atomic, with a NUL-terminated @text and mode 0644. */
int kb_write_atomic_text(const char *path, const char *text,
			 struct kb_err *err);

/* Copy file @from to @to as kb_write_atomic writes it, keeping the mode
 * 0644.  KB_EFAIL names the file that could not be read or written. */
int kb_copy_atomic(const char *from, const char *to, struct kb_err *err);

/* As kb_copy_atomic, the copy's mode the source's permission bits within
 * 0644: a file only its owner may read (0600) stays so, never widened to
 * what others may read. */
int kb_copy_atomic_keep(const char *from, const char *to, struct kb_err *err);

/* ---- where things live ------------------------------------------------ */

/*
 * Make sure @dir is a folder of this user's alone, as tmux and ssh-agent
 * check theirs in /tmp: when it is missing and @create is set, make it
 * with mode 0700; then lstat(2) it and refuse it (KB_EFAIL, naming it
 * and what is wrong) unless it is a folder, not a symlink, owned by the
 * effective user, with no permission for group or others.  Missing and
 * not @create: KB_ENOTFOUND with a message.
 */
int kb_dir_private(const char *dir, int create, struct kb_err *err);

/*
 * The user's home folder: $HOME when it is an absolute path, else the
 * passwd entry's, else "/tmp".  Caller frees.
 */
char *kb_home_dir(void);

/*
 * The cache folder @sub of kbisect: $XDG_CACHE_HOME/kbisect/@sub when
 * XDG_CACHE_HOME is an absolute path, else HOME/.cache/kbisect/@sub
 * (kb_home_dir).  @sub may be NULL or "" for the top.  Not created.
 * Caller frees.
 */
char *kb_cache_dir(const char *sub);

#endif
