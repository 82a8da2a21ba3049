#ifndef KB_TOOLCHAIN_H
#define KB_TOOLCHAIN_H

#include <stddef.h>

#include "sha256.h"

struct kb_err;

/*
 * The toolchain a kernel is configured and built with, and the key that
 * names a build.  Below both the plan and the build stages: it includes
 * neither (docs/internals.md).
 *
 * The compiler is named once, by build.make_args, as the kernel's
 * Makefile names it: what `make olddefconfig` (Kconfig reads the
 * compiler's features), the build and the key all use.
 */

/*
 * The compiler command make will use with @make_args: the value of their
 * last "CC=..." item; else, with LLVM=1 (or LLVM=PREFIX/, LLVM=-SUFFIX)
 * among them or in the environment, clang (PREFIX/clang, clang-SUFFIX);
 * else CROSS_COMPILE (make_args, else the environment) followed by "gcc".
 * $CC is not read: the kernel's Makefile sets CC over the environment's.
 * Caller frees.
 */
char *kb_toolchain_cc(const char *const *make_args, size_t nargs);

/*
 * The compiler's version: the first line of `CC --version`, CC being
 * kb_toolchain_cc() split on spaces (so "CC=distcc gcc" runs `distcc gcc
 * --version`).  On success *@out is the caller's.  KB_EFAIL when it
 * cannot be run or says nothing; KB_EINPUT for an empty CC.
 */
int kb_toolchain_cc_version(const char *const *make_args, size_t nargs,
			    char **out, struct kb_err *err);

/*
 * The build key of (@tree_id, @config — the normalised resolved .config
 * text, @config_len bytes —, @compiler — the compiler's version line) as
 * 64 hex digits and a NUL in @out.  Stable: the same inputs always give
 * the same key; any change to one of them gives another.
 */
void kb_toolchain_build_key(const char *tree_id, const char *config,
			    size_t config_len, const char *compiler,
			    char out[KB_SHA256_HEX_LEN + 1]);

#endif
