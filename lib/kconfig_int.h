#ifndef KB_KCONFIG_INT_H
#define KB_KCONFIG_INT_H

#include <stddef.h>

struct kb_buf;
struct kb_err;
struct kb_kconfig;

/*
 * What the parts of the kconfig module share and no other module uses.
 * Include it only from lib/kconfig*.c; the API is lib/kconfig.h.
 * Implemented in lib/kconfig.c, except kconfig_expr_unmet()
 * (lib/kconfig_expr.c).
 */

/* Whether @c may be part of a symbol name: a letter, a digit or '_'. */
int kconfig_is_name_char(int c);

/* The tristate level of value @v: 2 for "y", 1 for "m", else 0. */
int kconfig_tristate(const char *v);

/*
 * Parse @s, a decimal ("-1") or 0x number ("0x3e8"), into *@v.  Returns 0,
 * or -1 when @s (which may be NULL) is not one.
 */
int kconfig_parse_number(const char *s, long long *v);

/*
 * Binary search of @n records of @size bytes at @records, sorted by
 * strcmp() of their first member, a char * name: the index of @name, or
 * -1 with *@at (when not NULL) the index it would go to.
 */
long kconfig_find_name(const void *records, size_t n, size_t size,
		       const char *name, size_t *at);

/* Order by name (strcmp), then by position in the input. */
int kconfig_cmp_name_order(const char *a, size_t a_order, const char *b,
			   size_t b_order);

/* A list of distinct strings in the order first added; it owns them. */
struct kconfig_strlist {
	char **v;
	size_t n;
};
#define KCONFIG_STRLIST_INIT { .v = NULL, .n = 0 }

/* Whether @s is in @l. */
int kconfig_strlist_has(const struct kconfig_strlist *l, const char *s);

/* Add @s (taken over; freed at once when @l has it already). */
void kconfig_strlist_add_owned(struct kconfig_strlist *l, char *s);

/* Add a copy of @s unless @l has it already. */
void kconfig_strlist_add(struct kconfig_strlist *l, const char *s);

/* Add every string of @src to @dst (taken over); @src is left empty. */
void kconfig_strlist_move(struct kconfig_strlist *dst,
			  struct kconfig_strlist *src);

/* Free the strings of @l and empty it. */
void kconfig_strlist_release(struct kconfig_strlist *l);

/* Append the strings of @l to @out, separated by @sep. */
void kconfig_strlist_join(const struct kconfig_strlist *l, const char *sep,
			  struct kb_buf *out);

/*
 * Evaluate Kconfig expression @src against @cfg into *@level (2, 1 or 0)
 * and, when @out is not NULL and *@level is below @need, add to @out what
 * keeps it there (as kb_kconfig_eval() words it).  Returns 0, or KB_EINPUT
 * with a message in @err (may be NULL) when @src does not parse.
 */
int kconfig_expr_unmet(const char *src, const struct kb_kconfig *cfg,
		       int need, int *level, struct kconfig_strlist *out,
		       struct kb_err *err);

#endif
