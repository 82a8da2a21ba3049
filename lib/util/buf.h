#ifndef KB_BUF_H
#define KB_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable, always NUL-terminated byte buffer (after git's strbuf).
 * Embed it and set it up with KB_BUF_INIT or kb_buf_init(); release with
 * kb_buf_release().  `buf` is never NULL once initialised.
 */
struct kb_buf {
	char *buf;    /* the bytes, NUL-terminated */
	size_t len;   /* bytes used, not counting the NUL */
	size_t alloc; /* bytes allocated; 0 while buf points at a shared "" */
};

extern char kb_buf_empty[];
#define KB_BUF_INIT { .buf = kb_buf_empty, .len = 0, .alloc = 0 }

void kb_buf_init(struct kb_buf *b);
void kb_buf_release(struct kb_buf *b);
void kb_buf_reset(struct kb_buf *b);
/* Drop what comes after the first @len bytes (nothing when @len is not
 * shorter): undoes what was added since b->len was @len. */
void kb_buf_truncate(struct kb_buf *b, size_t len);
void kb_buf_add(struct kb_buf *b, const void *data, size_t len);
void kb_buf_adds(struct kb_buf *b, const char *s);
void kb_buf_addch(struct kb_buf *b, char c);
void kb_buf_addf(struct kb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kb_buf_vaddf(struct kb_buf *b, const char *fmt, va_list ap);
/* Hand over the string; the buffer is left empty.  Caller frees. */
char *kb_buf_detach(struct kb_buf *b);

/*
 * Read a whole file into @b, refusing files larger than @max bytes.
 * Returns 0, or a negative KB_E* code with a message in @err naming @path.
 */
struct kb_err;
int kb_buf_read_file(struct kb_buf *b, const char *path, size_t max,
		     struct kb_err *err);

#endif
