#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "banned.h"

char kb_buf_empty[1];

void kb_buf_init(struct kb_buf *b)
{
	b->buf = kb_buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void kb_buf_release(struct kb_buf *b)
{
	if (b->alloc)
		free(b->buf);
	kb_buf_init(b);
}

void kb_buf_reset(struct kb_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

void kb_buf_truncate(struct kb_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->buf[len] = '\0';
}

static void grow(struct kb_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t n;

	if (need < b->len)
		abort();
	if (need <= b->alloc)
		return;
	n = b->alloc ? b->alloc : 64;
	while (n < need)
		n *= 2;
	if (!b->alloc) {
		b->buf = kb_malloc(n);
		b->buf[0] = '\0';
	} else {
		b->buf = kb_realloc(b->buf, n);
	}
	b->alloc = n;
}

void kb_buf_add(struct kb_buf *b, const void *data, size_t len)
{
	grow(b, len);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void kb_buf_adds(struct kb_buf *b, const char *s)
{
	kb_buf_add(b, s, strlen(s));
}

void kb_buf_addch(struct kb_buf *b, char c)
{
	kb_buf_add(b, &c, 1);
}

void kb_buf_vaddf(struct kb_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	grow(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void kb_buf_addf(struct kb_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *kb_buf_detach(struct kb_buf *b)
{
	char *s = b->alloc ? b->buf : kb_strdup("");

	kb_buf_init(b);
	return s;
}

int kb_buf_read_file(struct kb_buf *b, const char *path, size_t max,
		     struct kb_err *err)
{
	char chunk[8192];
	FILE *f;
	size_t n;
	int ret = 0;

	f = fopen(path, "rb");
	if (!f)
		return kb_err_set(err, errno == ENOENT ? KB_ENOTFOUND : KB_EFAIL,
				  "cannot open '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b->len + n > max) {
			ret = kb_err_set(err, KB_EINPUT,
					 "'%s' is larger than %zu bytes", path,
					 max);
			goto out;
		}
		kb_buf_add(b, chunk, n);
	}
	if (ferror(f))
		ret = kb_err_set(err, KB_EFAIL, "cannot read '%s': %s", path,
				 strerror(errno));
out:
	fclose(f);
	return ret;
}
