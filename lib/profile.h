#ifndef KB_PROFILE_H
#define KB_PROFILE_H

#include <stddef.h>

struct kb_err;

/*
 * Profiles: where the guest's CPUs spent the workload's time
 * (workload.profile, docs/matrix.md), sampled by `perf record -a -g`
 * around each workload run and folded to stacks, one line a distinct
 * stack, as Brendan Gregg's stackcollapse scripts fold them:
 *
 *   kbisect-profile 1
 *   FRAME;FRAME;...;FRAME COUNT
 *   ...
 *
 * the outermost frame first, the sampled function last, COUNT the
 * samples (a decimal integer > 0) that had that stack.  The guest's
 * /init prints the payload in a frame of its own before the run's
 * result frame (lib/console.h, KBISECT-PROFILE), as it prints monitors.
 * A frame is a function's name ([A-Za-z0-9_.:@$+-], at most
 * KB_PROFILE_FRAME_MAX - 1 bytes; "[unknown]" for what perf could not
 * name); a stack has at most KB_PROFILE_MAX_DEPTH frames (deeper ones
 * keep their innermost frames).  Stacks of one text are summed.
 *
 * Parsing (profile.c) and the differential profile (profile_diff.c) are
 * separate: the model executor (docs/model.md, "profile") yields stacks
 * without a frame.
 */

#define KB_PROFILE_FRAME_MAX 128      /* bytes of one frame, with its NUL */
#define KB_PROFILE_MAX_DEPTH 128      /* frames of one stack */
#define KB_PROFILE_MAX_STACKS 65536   /* distinct stacks of one run */

/* One folded stack of one run. */
struct kb_profile_stack {
	unsigned run;              /* the run, from 1 */
	char *stack;               /* "start_kernel;...;do_idle" (owned) */
	unsigned long long samples;
};

/*
 * Parse the profile frame of run @run (@len bytes at @data, named @file
 * in messages) and append its stacks to *@v (*@n entries; the array is
 * grown, the caller frees it with kb_profile_stacks_free()), sorted by
 * stack within the run, equal stacks summed.  Returns 0, or KB_EINPUT
 * with "FILE:LINE: ..." when the frame is malformed (*@v and *@n are
 * then as they were) or holds more than KB_PROFILE_MAX_STACKS.
 */
int kb_profile_parse_buffer(const char *data, size_t len, const char *file,
			    unsigned run, struct kb_profile_stack **v,
			    size_t *n, struct kb_err *err);

/* Free @n stacks at @v and @v itself (NULL is fine). */
void kb_profile_stacks_free(struct kb_profile_stack *v, size_t n);

#endif
