/*
 * Text from elsewhere (the database, the daemon, an error message quoting
 * the user's input) made safe to print on a terminal: see printable.h.
 */
#include <string.h>

#include "printable.h"
#include "buf.h"
#include "ycheck.h"
#include "banned.h"

const char *cmd_printable(const char *s, int lines, struct kb_buf *b)
{
	size_t len, at, size;
	long c;

	kb_buf_reset(b);
	if (!s)
		return NULL;
	len = strlen(s);
	if (kb_ycheck_control(s, len, lines, &at, &size) < 0)
		return s;
	while ((c = kb_ycheck_control(s, len, lines, &at, &size)) >= 0) {
		kb_buf_add(b, s, at);
		if (c == '\n' || c == '\t' || c == '\r')
			kb_buf_adds(b, c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r");
		else if (size == 1)
			kb_buf_addf(b, "\\x%02lx", (unsigned long)c);
		else
			kb_buf_addf(b, "\\u%04lx", (unsigned long)c);
		s += at + size;
		len -= at + size;
	}
	kb_buf_add(b, s, len);
	return b->buf;
}
