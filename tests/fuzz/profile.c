/*
 * libFuzzer harness for the profile frame parser (lib/profile.h): the
 * bytes are parsed as one run's profile frame, appended after a first
 * stack.  Refused: the message names the file and the stacks are as they
 * were.  Accepted: every stack added is of that run, checks as a frame's
 * stack would, has samples, and they are sorted and distinct.  Then the
 * stacks are compared against themselves as two sides' boots, which
 * changes nothing.  A broken invariant traps.  See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fuzz.h"
#include "mem.h"
#include "profile.h"

#define FILE_NAME "fuzz.profile"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_profile_stack *v = kb_calloc(1, sizeof(*v));
	struct kb_profile_row *rows;
	struct kb_profile_change *c = NULL;
	size_t n = 1, i, nc = 0;
	const char *why;
	int ret;

	v[0].run = 1;
	v[0].stack = kb_strdup("first;stack");
	v[0].samples = 1;
	ret = kb_profile_parse_buffer((const char *)data, size, FILE_NAME, 2,
				      &v, &n, &err);
	if (ret) {
		check_refused(ret, &err, FILE_NAME ":");
		check(n == 1 && v[0].run == 1);
		kb_profile_stacks_free(v, n);
		return 0;
	}
	check(err.code == 0 && n <= 1 + KB_PROFILE_MAX_STACKS);
	for (i = 1; i < n; i++) {
		check(v[i].run == 2 && v[i].samples > 0);
		check(kb_profile_stack_check(v[i].stack, &why) == 0);
		if (i > 1)
			check(strcmp(v[i - 1].stack, v[i].stack) < 0);
	}
	rows = kb_calloc(n, sizeof(*rows));
	for (i = 0; i < n; i++)
		rows[i] = (struct kb_profile_row){ (long long)i % 3, v[i].stack,
						   v[i].samples };
	check(kb_profile_compare(rows, n, rows, n, 0.05, &c, &nc) == 0);
	free(c);
	free(rows);
	kb_profile_stacks_free(v, n);
	return 0;
}
