#ifndef KB_ERR_H
#define KB_ERR_H

#include <stddef.h>

/*
 * Errors: functions return 0 on success and a negative KB_E* code on
 * failure, with a message in a caller-provided struct kb_err.  The message
 * is set once, at the lowest level that knows what went wrong, and never
 * overwritten on the way up: a second kb_err_set() on an error that already
 * holds a message is ignored.
 *
 * Messages are lowercase, without a trailing full stop, and quote their
 * subject ("cannot open 'x.yaml': No such file or directory").  Input
 * errors carry "file:line:column: " in front of the message.
 */

enum kb_err_code {
	KB_OK = 0,
	KB_EFAIL = -1,     /* something failed (I/O, a program, a library) */
	KB_EINPUT = -2,    /* the user's input is malformed: exit status 2 */
	KB_ENOTFOUND = -3, /* the thing asked for does not exist */
	KB_EEXISTS = -4,   /* the thing to create already exists */
	KB_ELOCAL = -5,    /* work on this machine for a remote step failed
			    * (a boot's initramfs, image, disks): the step's
			    * own, never the host's (executor.h) */
};

#define KB_ERR_MSG_MAX 1024

struct kb_err {
	int code;                  /* one of enum kb_err_code */
	char msg[KB_ERR_MSG_MAX];  /* the message; empty when none was set */
};

#define KB_ERR_INIT { .code = 0, .msg = { 0 } }

/*
 * Record an error unless @err already holds one.  @err may be NULL.
 * Returns @code so that callers can write `return kb_err_set(...)`.
 */
int kb_err_set(struct kb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Record an input error (KB_EINPUT) at a position in a file:
 * "FILE:LINE:COL: message".  Line and column count from 1; a zero line
 * leaves out line and column.  Returns KB_EINPUT.
 */
int kb_err_at(struct kb_err *err, const char *file, unsigned line,
	      unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Forget the recorded error. */
void kb_err_clear(struct kb_err *err);

/* Exit status for an error code: 0 ok, 2 bad input, 1 anything else. */
int kb_err_exit_status(int code);

#endif
