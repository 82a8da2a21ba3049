#define _GNU_SOURCE
#include "mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static void oom(size_t size)
{
	fprintf(stderr, "kbisect: out of memory allocating %zu bytes\n", size);
	abort();
}

void *kb_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *kb_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *kb_realloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *kb_reallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return kb_realloc(ptr, nmemb * size);
}

char *kb_strdup(const char *s)
{
	return kb_strndup(s, strlen(s));
}

char *kb_strndup(const char *s, size_t n)
{
	char *p = kb_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kb_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}
