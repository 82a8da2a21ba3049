#ifndef KB_CMDWORK_H
#define KB_CMDWORK_H

#include <stddef.h>

struct kb_err;
struct kb_sample;

/*
 * Command workloads: what the guest's /init reports after running the
 * user's command once (guests/README.md).  The payload is text:
 *
 *   kbisect-command 1
 *   exit 0
 *   real 12.34
 *   user 10.02
 *   sys 1.50
 *   output 27
 *   <27 bytes: the tail of the command's stdout and stderr>
 *
 * Times are seconds as decimal numbers; "output N" comes last and is
 * followed by exactly N bytes (the guest keeps the last
 * KB_CMDWORK_MAX_OUTPUT bytes of the output).
 */

#define KB_CMDWORK_MAX_OUTPUT (64u << 10)

/*
 * Parse @len bytes at @data (named @file in messages) into @out, which is
 * cleared first: metrics real_s, user_s and sys_s; and when @regex is not
 * NULL (a POSIX ERE with one group), the number its first match's group
 * captures in the output, as metric @metric.  Returns 0, or KB_EINPUT with
 * "FILE: ..." in @err when the payload is malformed, the command exited
 * with a non-zero status, or the regex does not match a number.
 */
int kb_cmdwork_parse_buffer(const char *data, size_t len, const char *file,
			    const char *regex, const char *metric,
			    struct kb_sample *out, struct kb_err *err);

#endif
