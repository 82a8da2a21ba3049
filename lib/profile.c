/*
 * Profiles: the guest's folded stacks (profile.h) into one sorted list a
 * run.  Each line is checked whole before anything is kept, so that a
 * malformed frame leaves the caller's list as it was.
 */
#include "profile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "banned.h"

#define MAGIC "kbisect-profile 1"

void kb_profile_stacks_free(struct kb_profile_stack *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].stack);
	free(v);
}

static int frame_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("_.:@$+-[]", c));
}

/*
 * The stack of one line, [@s, @s + @len) before its count: its frames
 * checked, the outer ones beyond KB_PROFILE_MAX_DEPTH dropped.  Returns
 * the stack (caller frees), or NULL with *@why set.
 */
static char *stack_of(const char *s, size_t len, const char **why)
{
	size_t nframes = 1, i, flen = 0, skip = 0;

	if (!len) {
		*why = "an empty stack";
		return NULL;
	}
	for (i = 0; i < len; i++) {
		if (s[i] == ';') {
			if (!flen) {
				*why = "an empty frame";
				return NULL;
			}
			nframes++;
			flen = 0;
		} else if (!frame_char((unsigned char)s[i])) {
			*why = "a byte that is not part of a function's name";
			return NULL;
		} else if (++flen >= KB_PROFILE_FRAME_MAX) {
			*why = "a frame longer than a function's name may be";
			return NULL;
		}
	}
	if (!flen) {
		*why = "an empty frame";
		return NULL;
	}
	/* keep the innermost frames: drop what lies before the first kept */
	for (i = 0; nframes > KB_PROFILE_MAX_DEPTH && i < len; i++)
		if (s[i] == ';') {
			nframes--;
			skip = i + 1;
		}
	return kb_strndup(s + skip, len - skip);
}

/* COUNT, a decimal integer > 0 in [@s, @s + @len): 0, or -1. */
static int count_of(const char *s, size_t len, unsigned long long *out)
{
	char buf[24], *end;

	if (!len || len >= sizeof(buf) || s[0] == '0')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (strspn(buf, "0123456789") != len)
		return -1;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno || *end ? -1 : 0;
}

static int by_stack(const void *x, const void *y)
{
	const struct kb_profile_stack *a = x, *b = y;

	return strcmp(a->stack, b->stack);
}

int kb_profile_parse_buffer(const char *data, size_t len, const char *file,
			    unsigned run, struct kb_profile_stack **v,
			    size_t *n, struct kb_err *err)
{
	struct kb_profile_stack *got = NULL;
	size_t ngot = 0, alloc = 0, pos = 0, i, j;
	unsigned line = 0;
	int ret = 0;

	while (pos < len) {
		const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos, sp;
		const char *why = NULL;
		unsigned long long count;
		char *stack;

		pos += l + (nl != NULL);
		line++;
		if (line == 1) {
			if (l != strlen(MAGIC) || memcmp(s, MAGIC, l)) {
				ret = kb_err_set(err, KB_EINPUT,
						 "%s:1: not a profile (want \"%s\")",
						 file, MAGIC);
				goto out;
			}
			continue;
		}
		for (sp = l; sp > 0 && s[sp - 1] != ' '; sp--)
			;
		if (!sp || count_of(s + sp, l - sp, &count)) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s:%u: want \"STACK COUNT\", COUNT a whole number above 0",
					 file, line);
			goto out;
		}
		stack = stack_of(s, sp - 1, &why);
		if (!stack) {
			ret = kb_err_set(err, KB_EINPUT, "%s:%u: %s", file,
					 line, why);
			goto out;
		}
		if (ngot == KB_PROFILE_MAX_STACKS) {
			free(stack);
			ret = kb_err_set(err, KB_EINPUT,
					 "%s:%u: more than %d stacks", file,
					 line, KB_PROFILE_MAX_STACKS);
			goto out;
		}
		if (ngot == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			got = kb_reallocarray(got, alloc, sizeof(*got));
		}
		got[ngot].run = run;
		got[ngot].stack = stack;
		got[ngot].samples = count;
		ngot++;
	}
	if (!line) {
		ret = kb_err_set(err, KB_EINPUT, "%s: an empty profile", file);
		goto out;
	}
	if (ngot)
		qsort(got, ngot, sizeof(*got), by_stack);
	for (i = 1, j = 0; i < ngot; i++) {
		if (!strcmp(got[i].stack, got[j].stack)) {
			got[j].samples = got[j].samples + got[i].samples <
						 got[j].samples
						 ? ULLONG_MAX
						 : got[j].samples + got[i].samples;
			free(got[i].stack);
		} else {
			got[++j] = got[i];
		}
	}
	if (ngot)
		ngot = j + 1;
	*v = kb_reallocarray(*v, *n + ngot + 1, sizeof(**v));
	if (ngot)
		memcpy(*v + *n, got, ngot * sizeof(*got));
	*n += ngot;
	free(got);
	return 0;
out:
	kb_profile_stacks_free(got, ngot);
	return ret;
}

int kb_profile_stack_check(const char *stack, const char **why)
{
	char *s = stack_of(stack, strlen(stack), why);

	free(s);
	return s ? 0 : -1;
}
