#include "program.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "banned.h"

extern char **environ;

static void route(posix_spawn_file_actions_t *fa, int fd,
		  enum kb_program_to to, const char *log, int pipe_w)
{
	switch (to) {
	case KB_PROGRAM_NULL:
		posix_spawn_file_actions_addopen(fa, fd, "/dev/null",
						 O_WRONLY, 0);
		break;
	case KB_PROGRAM_PIPE:
		posix_spawn_file_actions_adddup2(fa, pipe_w, fd);
		break;
	case KB_PROGRAM_LOG:
		posix_spawn_file_actions_addopen(fa, fd, log,
						 O_WRONLY | O_CREAT | O_APPEND,
						 0644);
		break;
	}
}

int kb_program_start(const struct kb_program *s, pid_t *pid, int *fd,
		   struct kb_err *err)
{
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, rc;
	int piped = s->out == KB_PROGRAM_PIPE || s->err == KB_PROGRAM_PIPE;

	*fd = -1;
	if (piped && pipe(p) < 0)
		return kb_err_set(err, KB_EFAIL, "cannot create a pipe: %s",
				  strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, s->in ? s->in : "/dev/null",
					 O_RDONLY, 0);
	route(&fa, 1, s->out, s->log, p[1]);
	if (s->err == KB_PROGRAM_LOG && s->out == KB_PROGRAM_LOG)
		posix_spawn_file_actions_adddup2(&fa, 1, 2); /* one offset */
	else
		route(&fa, 2, s->err, s->log, p[1]);
	if (piped) {
		posix_spawn_file_actions_addclose(&fa, p[0]);
		posix_spawn_file_actions_addclose(&fa, p[1]);
	}
	rc = posix_spawnp(pid, s->argv[0], &fa, NULL,
			  (char *const *)s->argv, s->envp ? s->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	if (piped)
		close(p[1]);
	if (rc) {
		if (piped)
			close(p[0]);
		return kb_err_set(err, KB_EFAIL, "cannot run '%s': %s",
				  s->argv[0], strerror(rc));
	}
	*fd = p[0];
	return 0;
}

int kb_program_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int kb_program_capture(const struct kb_program *s, struct kb_buf *out,
		     size_t max, int *status, struct kb_err *err)
{
	char chunk[8192];
	pid_t pid;
	int fd, ret;

	if ((ret = kb_program_start(s, &pid, &fd, err)))
		return ret;
	while (fd >= 0) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (out && out->len < max)
			kb_buf_add(out, chunk,
				   (size_t)r < max - out->len ? (size_t)r
							      : max - out->len);
	}
	if (fd >= 0)
		close(fd);
	*status = kb_program_wait(pid);
	return 0;
}

char **kb_program_make_env(void)
{
	static const char *const drop[] = { "MAKEFLAGS=", "MAKELEVEL=",
					    "MFLAGS=", "MAKEOVERRIDES=",
					    "LC_ALL=" };
	size_t n = 0, i, j, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = kb_calloc(n + 2, sizeof(*env));
	for (i = 0; i < n; i++) {
		for (j = 0; j < sizeof(drop) / sizeof(drop[0]); j++)
			if (!strncmp(environ[i], drop[j], strlen(drop[j])))
				break;
		if (j == sizeof(drop) / sizeof(drop[0]))
			env[k++] = environ[i];
	}
	env[k++] = (char *)"LC_ALL=C";
	env[k] = NULL;
	return env;
}
