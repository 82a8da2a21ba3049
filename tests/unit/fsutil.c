#define _DEFAULT_SOURCE /* usleep */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"

static char *make_tmpdir(void)
{
	char *d = kb_strdup("/tmp/kb-fsutil-XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rm_tree(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *e;

	if (!dh)
		return;
	while ((e = readdir(dh))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = kb_asprintf("%s/%s", dir, e->d_name);
		unlink(p);
		free(p);
	}
	closedir(dh);
	rmdir(dir);
}

/* The entries of @dir other than . and .. */
static unsigned count_entries(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(dh);
	while ((e = readdir(dh)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dh);
	return n;
}

static char *slurp(const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	char *s;

	assert_int_equal(kb_buf_read_file(&b, path, 1u << 20, NULL), 0);
	s = kb_strdup(b.buf);
	kb_buf_release(&b);
	return s;
}

/* ---- locks ------------------------------------------------------------ */

struct contender {
	const char *dir;
	int *inside;      /* how many hold the lock now */
	int *overlaps;    /* times someone found another inside */
	pthread_mutex_t *mu;
};

static void *contend(void *arg)
{
	struct contender *c = arg;
	int i;

	for (i = 0; i < 20; i++) {
		struct kb_err err = KB_ERR_INIT;
		int fd;

		if (kb_lock_dir(c->dir, &fd, &err))
			return (void *)1;
		pthread_mutex_lock(c->mu);
		if (++*c->inside > 1)
			++*c->overlaps;
		pthread_mutex_unlock(c->mu);
		usleep(2000);
		pthread_mutex_lock(c->mu);
		--*c->inside;
		pthread_mutex_unlock(c->mu);
		kb_unlock(fd);
	}
	return NULL;
}

/* fcntl record locks belong to the process: two threads of kbisectd
 * --build-jobs 2 both "held" one and ran make in one O= folder */
static void test_fsutil__two_threads_never_hold_a_dir_lock_at_once(void **state)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	char *dir = make_tmpdir();
	int inside = 0, overlaps = 0;
	struct contender c = { dir, &inside, &overlaps, &mu };
	pthread_t a, b;
	void *ra, *rb;

	(void)state;
	assert_int_equal(pthread_create(&a, NULL, contend, &c), 0);
	assert_int_equal(pthread_create(&b, NULL, contend, &c), 0);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	assert_null(ra);
	assert_null(rb);
	assert_int_equal(overlaps, 0);
	rm_tree(dir);
	free(dir);
}

static void test_fsutil__a_held_lock_is_busy_for_another_open(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *path = kb_asprintf("%s/lock", dir);
	int a, b, other;

	(void)state;
	assert_int_equal(kb_lock(path, KB_LOCK_TRY, &a, &err), 0);
	assert_int_equal(kb_lock(path, KB_LOCK_TRY, &b, &err), KB_EEXISTS);
	assert_int_equal(b, -1);
	assert_string_equal(err.msg, "");
	/* closing another descriptor of the file keeps the lock (it does
	 * not with fcntl record locks) */
	other = open(path, O_RDONLY);
	assert_true(other >= 0);
	close(other);
	assert_int_equal(kb_lock(path, KB_LOCK_TRY, &b, &err), KB_EEXISTS);
	kb_unlock(a);
	assert_int_equal(kb_lock(path, KB_LOCK_TRY, &b, &err), 0);
	kb_unlock(b);
	kb_unlock(-1);
	free(path);
	rm_tree(dir);
	free(dir);
}

/* kbisectd locks its database file itself: a second daemon reaching
 * it through a symlink or a hard link must find it held, and be told by
 * whom (issue 12) */
static void test_fsutil__lock_holder_is_found_through_any_name(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *path = kb_asprintf("%s/kbisect.db", dir);
	char *sym = kb_asprintf("%s/sym.db", dir);
	char *hard = kb_asprintf("%s/hard.db", dir);
	int a, b;

	(void)state;
	assert_int_equal(kb_lock(path, KB_LOCK_TRY, &a, &err), 0);
	assert_int_equal(symlink("kbisect.db", sym), 0);
	assert_int_equal(link(path, hard), 0);
	assert_int_equal(kb_lock(sym, KB_LOCK_TRY, &b, &err), KB_EEXISTS);
	assert_int_equal(kb_lock(hard, KB_LOCK_TRY, &b, &err), KB_EEXISTS);
	assert_int_equal(kb_lock_holder(path), (long)getpid());
	assert_int_equal(kb_lock_holder(sym), (long)getpid());
	assert_int_equal(kb_lock_holder(hard), (long)getpid());
	kb_unlock(a);
	assert_int_equal(kb_lock_holder(sym), 0);
	assert_int_equal(kb_lock_holder("/nonexistent/x.db"), 0);
	rm_tree(dir);
	free(path);
	free(sym);
	free(hard);
	free(dir);
}

/* the fallback socket folder in /tmp: anyone can make it first
 * (issue 12), so it is checked as tmux checks /tmp/tmux-UID */
static void test_fsutil__private_dir_is_made_0700_and_checked(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *priv = kb_asprintf("%s/priv", dir);
	char *sym = kb_asprintf("%s/sym", dir);
	char *file = kb_asprintf("%s/file", dir);
	char *other = kb_asprintf("%s/other", dir);
	struct stat st;

	(void)state;
	assert_int_equal(kb_dir_private(priv, 0, &err), KB_ENOTFOUND);
	assert_msg_contains(err.msg, "does not exist");
	kb_err_clear(&err);
	assert_int_equal(kb_dir_private(priv, 1, &err), 0);
	assert_int_equal(lstat(priv, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(kb_dir_private(priv, 1, &err), 0);
	assert_int_equal(kb_dir_private(priv, 0, &err), 0);

	assert_int_equal(chmod(priv, 0755), 0);
	assert_int_equal(kb_dir_private(priv, 1, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "has mode 0755");
	kb_err_clear(&err);
	assert_int_equal(chmod(priv, 01777), 0);
	assert_int_equal(kb_dir_private(priv, 0, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "has mode 1777");
	kb_err_clear(&err);
	assert_int_equal(chmod(priv, 0700), 0);

	assert_int_equal(symlink("priv", sym), 0);
	assert_int_equal(kb_dir_private(sym, 1, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "is a symbolic link");
	kb_err_clear(&err);

	assert_int_equal(close(open(file, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(kb_dir_private(file, 1, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "is not a folder");
	kb_err_clear(&err);

	/* someone else's: root can give it away, others find one of root's */
	if (geteuid() == 0) {
		assert_int_equal(mkdir(other, 0700), 0);
		assert_int_equal(chown(other, 65534, 65534), 0);
		assert_int_equal(kb_dir_private(other, 1, &err), KB_EFAIL);
		assert_msg_contains(err.msg, "is owned by uid 65534, not by uid 0");
		rmdir(other);
	} else {
		assert_int_equal(kb_dir_private("/", 1, &err), KB_EFAIL);
		assert_msg_contains(err.msg, "is owned by uid 0");
	}
	unlink(sym);
	rmdir(priv);
	rm_tree(dir);
	free(priv);
	free(sym);
	free(file);
	free(other);
	free(dir);
}

static void test_fsutil__lock_in_a_missing_folder_names_it(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	int fd;

	(void)state;
	assert_int_equal(kb_lock_dir("/nonexistent/kb", &fd, &err), KB_EFAIL);
	assert_int_equal(fd, -1);
	assert_msg_contains(err.msg, "/nonexistent/kb/.kbisect-lock");
}

/* ---- atomic writes ---------------------------------------------------- */

static void test_fsutil__write_atomic_replaces_the_whole_file(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *path = kb_asprintf("%s/f", dir);
	struct stat st;
	char *s;

	(void)state;
	assert_int_equal(kb_write_atomic_text(path, "old content\n", &err), 0);
	assert_int_equal(kb_write_atomic(path, "new", 3, 0600, &err), 0);
	s = slurp(path);
	assert_string_equal(s, "new");
	free(s);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_entries(dir), 1);
	free(path);
	rm_tree(dir);
	free(dir);
}

/* ---- a file the user names as output (export -o) ----------------------- */

/* A FIFO is written into, never replaced by a file. */
static void test_fsutil__write_output_writes_into_a_fifo(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *fifo = kb_asprintf("%s/fifo", dir), got[16] = "";
	struct stat st;
	pid_t pid;
	int fd, status;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(kb_write_output(fifo, "row\n", 4, 0644, NULL) ? 1 : 0);
	fd = open(fifo, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, got, sizeof(got) - 1), 4);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(got, "row\n");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(count_entries(dir), 1); /* no temporary file */
	(void)err;
	free(fifo);
	rm_tree(dir);
	free(dir);
}

/* A character device (/dev/null, a tty) and a link to one stay what
 * they are; a link to a file keeps the link and replaces the file. */
static void test_fsutil__write_output_keeps_devices_and_links(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *dev = kb_asprintf("%s/null", dir);
	char *file = kb_asprintf("%s/exp7.csv", dir);
	char *link = kb_asprintf("%s/latest.csv", dir);
	char *dangling = kb_asprintf("%s/dangling.csv", dir), *s;
	struct stat st;

	(void)state;
	assert_int_equal(kb_write_output("/dev/null", "x", 1, 0644, &err), 0);
	assert_int_equal(lstat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(symlink("/dev/null", dev), 0);
	assert_int_equal(kb_write_output(dev, "x", 1, 0644, &err), 0);
	assert_int_equal(lstat(dev, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	assert_int_equal(kb_write_atomic_text(file, "old\n", &err), 0);
	assert_int_equal(symlink("exp7.csv", link), 0);
	assert_int_equal(kb_write_output(link, "new\n", 4, 0644, &err), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	s = slurp(file);
	assert_string_equal(s, "new\n");
	free(s);

	/* what the shell would create through a link, or cannot write */
	assert_int_equal(symlink("nothere", dangling), 0);
	assert_int_equal(kb_write_output(dangling, "x", 1, 0644, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "it is a symbolic link to nothing");
	kb_err_clear(&err);
	assert_int_equal(kb_write_output(dir, "x", 1, 0644, &err), KB_EFAIL);
	assert_msg_contains(err.msg, "it is a folder, not a file, a pipe or a terminal");
	kb_err_clear(&err);
	assert_int_equal(count_entries(dir), 4);
	free(dev);
	free(file);
	free(link);
	free(dangling);
	rm_tree(dir);
	free(dir);
}

/* Make @path with @age seconds on its clock. */
static void aged(const char *path, long age)
{
	struct timeval tv[2];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	close(fd);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	assert_int_equal(utimes(path, tv), 0);
}

/* What a SIGKILLed writer left (PATH.tmp-XXXXXX) goes at the next write;
 * nothing else does: a fresh one, one held by a writer, another name,
 * a link, another user's. */
static void test_fsutil__write_output_sweeps_stale_temporary_files(
	void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *out = kb_asprintf("%s/exp.csv", dir);
	char *stale = kb_asprintf("%s/exp.csv.tmp-Ab3xY9", dir);
	char *fresh = kb_asprintf("%s/exp.csv.tmp-fresh1", dir);
	char *held = kb_asprintf("%s/exp.csv.tmp-held01", dir);
	char *other = kb_asprintf("%s/other.csv.tmp-Ab3xY9", dir);
	char *longer = kb_asprintf("%s/exp.csv.tmp-Ab3xY9z", dir);
	char *link = kb_asprintf("%s/exp.csv.tmp-link01", dir);
	char *theirs = kb_asprintf("%s/exp.csv.tmp-theirs", dir);
	int fd, owned_by_other = 0;

	(void)state;
	aged(stale, 3600);
	aged(fresh, 1);
	aged(held, 3600);
	aged(other, 3600);
	aged(longer, 3600);
	assert_int_equal(symlink("exp.csv.tmp-Ab3xY9z", link), 0);
	aged(theirs, 3600);
	if (geteuid() == 0 && chown(theirs, 65534, 65534) == 0)
		owned_by_other = 1;
	fd = open(held, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);

	assert_int_equal(kb_write_output(out, "a\n", 2, 0644, &err), 0);
	assert_int_not_equal(access(stale, F_OK), 0);
	assert_int_equal(access(fresh, F_OK), 0);
	assert_int_equal(access(held, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	assert_int_equal(access(longer, F_OK), 0);
	assert_int_equal(faccessat(AT_FDCWD, link, F_OK, AT_SYMLINK_NOFOLLOW),
			 0);
	if (owned_by_other)
		assert_int_equal(access(theirs, F_OK), 0);
	/* out and the 6 that stay (5: another user's could not be made) */
	assert_int_equal(count_entries(dir), owned_by_other ? 7 : 6);
	close(fd);
	free(out);
	free(stale);
	free(fresh);
	free(held);
	free(other);
	free(longer);
	free(link);
	free(theirs);
	rm_tree(dir);
	free(dir);
}

/*
 * A full disk (here: a file size limit, the same EFBIG/ENOSPC path): an
 * error naming the file, the old content kept, no temporary file left.
 * The copy this replaced called ferror() on a FILE that fclose() had
 * freed: with @size small the data sat in stdio's buffer until fclose.
 */
static void write_past_limit(size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *path = kb_asprintf("%s/f", dir);
	char *data = kb_malloc(size);
	struct rlimit old, lim;
	void (*old_handler)(int);
	char *s;
	int ret;

	memset(data, 'x', size);
	assert_int_equal(kb_write_atomic_text(path, "kept\n", &err), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = size / 2;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ret = kb_write_atomic(path, data, size, 0644, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(ret, KB_EFAIL);
	assert_msg_contains(err.msg, path);
	assert_msg_contains(err.msg, "cannot write");
	s = slurp(path);
	assert_string_equal(s, "kept\n");
	free(s);
	assert_int_equal(count_entries(dir), 1);
	free(data);
	free(path);
	rm_tree(dir);
	free(dir);
}

static void test_fsutil__full_disk_small_write_is_an_error(void **state)
{
	(void)state;
	write_past_limit(100);
}

static void test_fsutil__full_disk_large_write_is_an_error(void **state)
{
	(void)state;
	write_past_limit(1u << 20);
}

static void test_fsutil__write_into_a_missing_folder_fails(void **state)
{
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_write_atomic_text("/nonexistent/kb/f", "x", &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "'/nonexistent/kb/f'");
}

static void test_fsutil__copy_atomic_copies_and_names_a_missing_source(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	char *dir = make_tmpdir();
	char *from = kb_asprintf("%s/a", dir);
	char *to = kb_asprintf("%s/b", dir);
	char *s;

	(void)state;
	assert_int_equal(kb_write_atomic_text(from, "payload\n", &err), 0);
	assert_int_equal(kb_copy_atomic(from, to, &err), 0);
	s = slurp(to);
	assert_string_equal(s, "payload\n");
	free(s);
	unlink(from);
	assert_int_equal(kb_copy_atomic(from, to, &err), KB_EFAIL);
	assert_msg_contains(err.msg, from);
	assert_int_equal(count_entries(dir), 1);
	free(from);
	free(to);
	rm_tree(dir);
	free(dir);
}

/* ---- where things live ------------------------------------------------ */

struct saved_env {
	char *home, *xdg;
};

static void env_save(struct saved_env *e)
{
	const char *h = getenv("HOME"), *x = getenv("XDG_CACHE_HOME");

	e->home = h ? kb_strdup(h) : NULL;
	e->xdg = x ? kb_strdup(x) : NULL;
}

static void env_restore(struct saved_env *e)
{
	if (e->home)
		setenv("HOME", e->home, 1);
	else
		unsetenv("HOME");
	if (e->xdg)
		setenv("XDG_CACHE_HOME", e->xdg, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(e->home);
	free(e->xdg);
}

static void test_fsutil__cache_dir_follows_xdg_then_home(void **state)
{
	struct saved_env e;
	char *d;

	(void)state;
	env_save(&e);
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/h", 1);
	d = kb_cache_dir("builds");
	assert_string_equal(d, "/x/cache/kbisect/builds");
	free(d);
	/* a relative XDG_CACHE_HOME is ignored, as the spec says */
	setenv("XDG_CACHE_HOME", "rel", 1);
	d = kb_cache_dir("trees");
	assert_string_equal(d, "/h/.cache/kbisect/trees");
	free(d);
	d = kb_cache_dir(NULL);
	assert_string_equal(d, "/h/.cache/kbisect");
	free(d);
	env_restore(&e);
}

/* the copies fell back to "." or "/tmp" by chance of the copy; now every
 * cache folder is under the same home, an absolute path */
static void test_fsutil__cache_dir_without_home_is_absolute_and_shared(void **state)
{
	struct saved_env e;
	char *a, *b, *home;

	(void)state;
	env_save(&e);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	home = kb_home_dir();
	assert_true(home[0] == '/');
	a = kb_cache_dir("configs");
	b = kb_cache_dir("initramfs");
	assert_true(a[0] == '/');
	assert_int_equal(strncmp(a, home, strlen(home)), 0);
	assert_int_equal(strncmp(b, home, strlen(home)), 0);
	free(a);
	free(b);
	free(home);
	env_restore(&e);
}

static void test_fsutil__monotime_does_not_go_back(void **state)
{
	double a = kb_monotime(), b;

	(void)state;
	usleep(1000);
	b = kb_monotime();
	assert_true(b > a);
	assert_true(b - a < 10);
}

/* ---- processes -------------------------------------------------------- */

static void test_fsutil__this_process_is_alive(void **state)
{
	struct kb_proc_id me;

	(void)state;
	kb_proc_self(&me);
	assert_int_equal(me.pid, (long)getpid());
	assert_true(me.start > 0);
	assert_true(me.host[0] != '\0');
	assert_int_equal(kb_proc_alive(&me), 1);
}

/* A child that has exited: a zombie until reaped. */
static pid_t dead_child(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	usleep(100 * 1000);
	return pid;
}

static void test_fsutil__an_ended_process_is_gone_zombie_or_reaped(
	void **state)
{
	struct kb_proc_id id;
	pid_t pid = dead_child();

	(void)state;
	kb_proc_self(&id);
	id.pid = pid;
	/* a zombie can do nothing more: gone, not alive */
	id.start = 0;
	assert_int_equal(kb_proc_start_ticks(pid), 0);
	assert_int_equal(kb_proc_alive(&id), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(kb_proc_alive(&id), 0);
}

static void test_fsutil__a_reused_pid_is_another_process(void **state)
{
	struct kb_proc_id id;

	(void)state;
	/* this pid, but a start time it never had: the pid was reused */
	kb_proc_self(&id);
	id.start += 1;
	assert_int_equal(kb_proc_alive(&id), 0);
	/* the same pid and start time, but since another boot */
	kb_proc_self(&id);
	if (id.boot[0]) {
		snprintf(id.boot, sizeof(id.boot), "%s",
			 "00000000-0000-0000-0000-000000000000");
		assert_int_equal(kb_proc_alive(&id), 0);
	}
}

static void test_fsutil__a_process_on_another_host_is_never_gone(
	void **state)
{
	struct kb_proc_id id;

	(void)state;
	kb_proc_self(&id);
	snprintf(id.host, sizeof(id.host), "%s", "kb-no-such-host.invalid");
	id.pid = 999999999;
	id.start = 1;
	assert_int_equal(kb_proc_alive(&id), 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_fsutil__this_process_is_alive),
	cmocka_unit_test(test_fsutil__an_ended_process_is_gone_zombie_or_reaped),
	cmocka_unit_test(test_fsutil__a_reused_pid_is_another_process),
	cmocka_unit_test(test_fsutil__a_process_on_another_host_is_never_gone),
	cmocka_unit_test(test_fsutil__two_threads_never_hold_a_dir_lock_at_once),
	cmocka_unit_test(test_fsutil__a_held_lock_is_busy_for_another_open),
	cmocka_unit_test(test_fsutil__lock_holder_is_found_through_any_name),
	cmocka_unit_test(test_fsutil__private_dir_is_made_0700_and_checked),
	cmocka_unit_test(test_fsutil__lock_in_a_missing_folder_names_it),
	cmocka_unit_test(test_fsutil__write_atomic_replaces_the_whole_file),
	cmocka_unit_test(test_fsutil__write_output_writes_into_a_fifo),
	cmocka_unit_test(test_fsutil__write_output_keeps_devices_and_links),
	cmocka_unit_test(test_fsutil__write_output_sweeps_stale_temporary_files),
	cmocka_unit_test(test_fsutil__full_disk_small_write_is_an_error),
	cmocka_unit_test(test_fsutil__full_disk_large_write_is_an_error),
	cmocka_unit_test(test_fsutil__write_into_a_missing_folder_fails),
	cmocka_unit_test(test_fsutil__copy_atomic_copies_and_names_a_missing_source),
	cmocka_unit_test(test_fsutil__cache_dir_follows_xdg_then_home),
	cmocka_unit_test(test_fsutil__cache_dir_without_home_is_absolute_and_shared),
	cmocka_unit_test(test_fsutil__monotime_does_not_go_back),
};

KB_TEST_MAIN(tests)
