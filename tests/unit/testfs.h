#ifndef KB_TESTFS_H
#define KB_TESTFS_H

/*
 * Files, folders and programs for the unit tests that need a scratch
 * folder, a fake tree or a git repository (build, kconfig, plan, source,
 * pipeline, realexec, toolchain).  Include after test.h.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "mem.h"

extern char **environ;

/* Run @argv (looked up in PATH) to its end: its exit status, or -1. */
static inline int kb_test_run(char *const argv[])
{
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A new folder /tmp/kb-@name-XXXXXX (caller frees the path). */
static inline char *kb_test_tmpdir(const char *name)
{
	char *d = kb_asprintf("/tmp/kb-%s-XXXXXX", name);

	assert_non_null(mkdtemp(d));
	return d;
}

/* A new folder /tmp/kb-@name-XXXXXX into @dir (@dsize bytes), and the
 * path of a database "t.db" in it into @db (@dbsize bytes). */
static inline void kb_test_scratch_db(const char *name, char *dir,
				      size_t dsize, char *db, size_t dbsize)
{
	char *d = kb_test_tmpdir(name);

	snprintf(dir, dsize, "%s", d);
	snprintf(db, dbsize, "%s/t.db", dir);
	free(d);
}

/* Remove @dir and all it holds (rm -rf); NULL is ignored. */
static inline void kb_test_rm_rf(const char *dir)
{
	char *argv[] = { "rm", "-rf", (char *)dir, NULL };

	if (dir)
		kb_test_run(argv);
}

/* Write @text to @dir/@name with @mode; its path (caller frees). */
static inline char *kb_test_write(const char *dir, const char *name,
				  const char *text, mode_t mode)
{
	char *p = kb_asprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
	return p;
}

/* Write @text to @dir/@name (mode 0644). */
static inline void kb_test_put(const char *dir, const char *name,
			       const char *text)
{
	free(kb_test_write(dir, name, text, 0644));
}

/* git -C @repo with a test identity and branch "main", then @a..@d
 * (NULL ends them early); the command must succeed. */
static inline void kb_test_git(const char *repo, const char *a,
			       const char *b, const char *c, const char *d)
{
	char *argv[] = { "git", "-C", (char *)repo, "-c", "user.name=t",
			 "-c", "user.email=t@t", "-c",
			 "init.defaultBranch=main", (char *)a, (char *)b,
			 (char *)c, (char *)d, NULL };

	assert_int_equal(kb_test_run(argv), 0);
}

#endif
