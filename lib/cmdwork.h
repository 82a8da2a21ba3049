#ifndef KB_CMDWORK_H
#define KB_CMDWORK_H

#include <stddef.h>

struct kb_err;
struct kb_sample;
struct kb_workload;

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

/*
 * kb_cmdwork_parse_buffer() for command workload @w, with every metric
 * it names: real_s, user_s and sys_s; w->regex's number as w->metric;
 * each workload.command.metrics regex's number under its name; and what
 * w->parser reads from the output (kb_cmdwork_parse_dd(),
 * kb_cmdwork_parse_unixbench()).  Returns 0, or KB_EINPUT with "FILE:
 * ..." when the report is malformed, the command failed, or a regex or
 * the parser finds no number.
 */
int kb_cmdwork_parse_workload(const char *data, size_t len, const char *file,
			      const struct kb_workload *w,
			      struct kb_sample *out, struct kb_err *err);

/*
 * dd's summary in a command's output (@len bytes at @text): every line
 * "N bytes ... copied, S s, R" (coreutils: "104857600 bytes (105 MB, 100
 * MiB) copied, 0.0035 s, 29.8 GB/s"; busybox built with
 * FEATURE_DD_THIRD_STATUS_LINE: "104857600 bytes (100.0MB) copied,
 * 0.021788 seconds, 4.5GB/s"), added to @out as dd_bytes and dd_s
 * (summed over the lines: dd run several times in one command) and
 * dd_mb_per_s (their ratio, in 10^6 bytes a second).  Returns 0, or
 * KB_EINPUT naming @file when there is no such line (busybox without
 * that feature prints only "N+M records in/out").
 */
int kb_cmdwork_parse_dd(const char *text, size_t len, const char *file,
			struct kb_sample *out, struct kb_err *err);

/*
 * UnixBench's result tables in a command's output (@len bytes at
 * @text), added to @out: per block ("running M parallel copies of
 * tests"; M is 1 when not said) the INDEX column of each line of its
 * "System Benchmarks Index Values" (or "Partial Index") table as
 * ubM_TEST, TEST the test's short name in UnixBench's own words (execl,
 * fstime, fsbuffer, fsdisk, pipe, context1, spawn, shell1, shell8,
 * shell16, syscall, dhry2reg, whetstone_double; others spelt out in
 * lower case), its "System Benchmarks Index Score" as ubM_index; and
 * ub_index, the score of the last block.  Lines without an index
 * ("---") are skipped.  Returns 0, or KB_EINPUT naming @file when no
 * score is found or there are more than KB_CMDWORK_UNIXBENCH_MAX
 * metrics.
 */
#define KB_CMDWORK_UNIXBENCH_MAX 32
int kb_cmdwork_parse_unixbench(const char *text, size_t len, const char *file,
			       struct kb_sample *out, struct kb_err *err);

#endif
