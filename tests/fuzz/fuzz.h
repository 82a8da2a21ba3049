/*
 * What every libFuzzer harness here shares: the entry point libFuzzer
 * calls, check() (a broken invariant traps, which libFuzzer reports as a
 * crash) and the contract of a refused input.  See tests/fuzz/README.md.
 */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond)                      \
	do {                             \
		if (!(cond))             \
			__builtin_trap(); \
	} while (0)

/*
 * A parser refused its input with @ret: a negative code, the code of
 * @err, whose message starts with @prefix (the input's name).
 */
static inline void check_refused(int ret, const struct kb_err *err,
				 const char *prefix)
{
	check(ret < 0);
	check(err->code == ret);
	check(err->msg[0] != '\0');
	check(strncmp(err->msg, prefix, strlen(prefix)) == 0);
}

/*
 * A parser's answer @ret with its @result (NULL when none) and @err: a
 * refusal as check_refused() says and no result, or 0 with a result and
 * no error.  Returns whether there is a result to check.
 */
static inline int check_parsed(int ret, const struct kb_err *err,
			       const void *result, const char *prefix)
{
	if (ret < 0) {
		check(result == NULL);
		check_refused(ret, err, prefix);
		return 0;
	}
	check(ret == 0 && result != NULL && err->code == 0);
	return 1;
}

#endif
