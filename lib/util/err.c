#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "banned.h"

static void vset(struct kb_err *err, int code, const char *prefix,
		 const char *fmt, va_list ap)
{
	size_t n;

	if (!err || err->code != 0)
		return;
	err->code = code;
	n = (size_t)snprintf(err->msg, sizeof(err->msg), "%s", prefix);
	if (n >= sizeof(err->msg))
		return;
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
}

int kb_err_set(struct kb_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(err, code, "", fmt, ap);
	va_end(ap);
	return code;
}

int kb_err_at(struct kb_err *err, const char *file, unsigned line,
	      unsigned col, const char *fmt, ...)
{
	char prefix[512];
	va_list ap;

	if (line)
		snprintf(prefix, sizeof(prefix), "%s:%u:%u: ", file, line, col);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", file);
	va_start(ap, fmt);
	vset(err, KB_EINPUT, prefix, fmt, ap);
	va_end(ap);
	return KB_EINPUT;
}

void kb_err_clear(struct kb_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int kb_err_exit_status(int code)
{
	if (code == 0)
		return 0;
	return code == KB_EINPUT ? 2 : 1;
}
