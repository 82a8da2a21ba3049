#ifndef KBISECT_PRINTABLE_H
#define KBISECT_PRINTABLE_H

struct kb_buf;

/*
 * @s as it may be printed on a terminal (printable.c): each control
 * character (lib/ycheck.h's kb_ycheck_control(): ESC, BEL, CR, C1 ...)
 * written as \xHH, \u00HH, \r, \n or \t, except newlines and tabs when
 * @lines is set.  For text the checks of today's matrix did not see:
 * names, labels and errors from the database or the daemon, messages
 * that quote the user's input.  Returns @s itself when it is clean (or
 * NULL), else the escaped text in @b, which the caller releases; @b is
 * reset first.
 */
const char *cmd_printable(const char *s, int lines, struct kb_buf *b);

#endif
