#ifndef KB_MEM_H
#define KB_MEM_H

#include <stddef.h>

/*
 * Allocation that cannot fail: on out-of-memory these print one line to
 * stderr and abort, so that no caller carries an allocation-failure path.
 */
void *kb_malloc(size_t size);
void *kb_calloc(size_t nmemb, size_t size);
void *kb_realloc(void *ptr, size_t size);
/* Grow an array of @nmemb elements of @size bytes, checking overflow. */
void *kb_reallocarray(void *ptr, size_t nmemb, size_t size);
char *kb_strdup(const char *s);
char *kb_strndup(const char *s, size_t n);
/* A newly allocated formatted string. */
char *kb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
