/*
 * Text from elsewhere (the database, the daemon, an error message quoting
 * the user's input) made safe to print on a terminal: see printable.h.
 * The escape itself is lib/ycheck.h's, which kbisectd's log uses too.
 */
#include "printable.h"
#include "ycheck.h"
#include "banned.h"

const char *cmd_printable(const char *s, int lines, struct kb_buf *b)
{
	return kb_ycheck_printable(s, lines, b);
}
