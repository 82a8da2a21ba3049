#ifndef KB_PROGRAM_H
#define KB_PROGRAM_H

#include <stddef.h>
#include <sys/types.h>

struct kb_buf;
struct kb_err;

/*
 * Running programs: always with an argv (posix_spawnp), never through a
 * shell, stdin from /dev/null or a file (`in`), each output stream to
 * /dev/null, to a pipe the caller reads, or appended to a log file.
 */

enum kb_program_to {
	KB_PROGRAM_NULL, /* /dev/null */
	KB_PROGRAM_PIPE, /* the pipe whose read end kb_program_start returns */
	KB_PROGRAM_LOG,  /* appended to the file named by `log` */
};

struct kb_program {
	const char *const *argv; /* argv[0] is looked up in PATH */
	char *const *envp;       /* NULL: the caller's environment */
	enum kb_program_to out;    /* where stdout goes */
	enum kb_program_to err;    /* where stderr goes */
	const char *log;         /* the file for KB_PROGRAM_LOG */
	const char *in;          /* the file stdin reads; NULL: /dev/null */
};

/*
 * Start @s.  Sets *@pid, and *@fd to the read end of the pipe when stdout
 * or stderr goes to one (the caller reads and closes it), else -1.
 * Returns 0, or KB_EFAIL naming the program when it cannot be started.
 */
int kb_program_start(const struct kb_program *s, pid_t *pid, int *fd,
		   struct kb_err *err);

/* Wait for @pid: its exit status, 128 + the signal that ended it, or -1. */
int kb_program_wait(pid_t pid);

/*
 * Run @s to its end, reading its pipe into @out (at most @max bytes are
 * kept; the rest is read and dropped so the program never blocks).
 * Returns 0 with the exit status (as kb_program_wait) in *@status, or
 * KB_EFAIL when the program cannot be started.
 */
int kb_program_capture(const struct kb_program *s, struct kb_buf *out,
		     size_t max, int *status, struct kb_err *err);

/*
 * The environment to run make in: the caller's, without the variables a
 * calling make passes down (MAKEFLAGS, MAKELEVEL, MFLAGS, MAKEOVERRIDES)
 * and with LC_ALL=C so that output can be parsed.  The caller frees the
 * array (not the strings).
 */
char **kb_program_make_env(void);

#endif
