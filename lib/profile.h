#ifndef KB_PROFILE_H
#define KB_PROFILE_H

#include <stddef.h>

#include "stats.h"

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

/*
 * Whether the NUL-terminated @stack is one a frame may carry (frames of
 * the allowed bytes, none empty, none too long): 0, or -1 with *@why
 * set to what is wrong.  Deeper stacks are accepted (a frame keeps their
 * innermost frames).
 */
int kb_profile_stack_check(const char *stack, const char **why);

/* ---- differential profiles (profile_diff.c) ---------------------------- */

/* One stack's samples in one boot, summed over the boot's runs. */
struct kb_profile_row {
	long long boot;             /* the boot (any key) */
	const char *stack;          /* "a;b;c", outermost first */
	unsigned long long samples;
};

/* One function, A against B. */
struct kb_profile_change {
	char func[KB_PROFILE_FRAME_MAX];
	/* its inclusive share of each boot's samples, in percent (the
	 * stacks it is on, counted once a stack), over each side's boots;
	 * 0 in a boot it is absent from */
	struct kb_summary a, b;
	double self_a, self_b;  /* mean share as the sampled (last) frame */
	double diff;            /* mean B - mean A, in percentage points */
	double lo, hi;          /* its 95% Welch interval (unadjusted) */
	double change_pct;      /* diff / mean A * 100; NaN for A 0 */
	double p;               /* Welch's t test, two-sided; NaN: untested */
	double p_holm;          /* adjusted by Holm over the tested ones */
	int changed;            /* p_holm < alpha */
};

/*
 * The differential profile of two sides, given per boot (@a, @na rows;
 * @b, @nb rows; any order; the boots of a side are those its rows name):
 * each function's inclusive share of a boot's samples is a value per
 * boot, and the boots are the replicates, as for any metric.  A function
 * is tested (Welch's t test on the shares, not on the log scale: shares
 * may be 0) when each side has 2 or more boots and it is present in 2 or
 * more boots of either side, so that one that vanishes from a side is
 * caught; the tested p-values are one family, adjusted by Holm's method
 * (lib/util/stats.h), and a function has changed when its adjusted p is
 * below @alpha.  *@out (*@nout entries, caller frees) lists every
 * function, changed ones first, each group by the size of its change in
 * points, largest first, then by name.  Returns the number that
 * changed.
 */
size_t kb_profile_compare(const struct kb_profile_row *a, size_t na,
			  const struct kb_profile_row *b, size_t nb,
			  double alpha, struct kb_profile_change **out,
			  size_t *nout);

/* How many of @n changes at @c were tested (p not NaN): the family. */
size_t kb_profile_tested(const struct kb_profile_change *c, size_t n);

/* One stack's mean share of each side's boots (0..1), for a picture. */
struct kb_profile_share {
	char *stack;  /* owned */
	double a, b;
};

/*
 * Each distinct stack of @a and @b with its mean share of a boot's
 * samples on each side, sorted by stack, into *@out (*@nout; free with
 * kb_profile_shares_free()).
 */
void kb_profile_shares(const struct kb_profile_row *a, size_t na,
		       const struct kb_profile_row *b, size_t nb,
		       struct kb_profile_share **out, size_t *nout);
void kb_profile_shares_free(struct kb_profile_share *v, size_t n);

#endif
