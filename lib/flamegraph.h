#ifndef KB_FLAMEGRAPH_H
#define KB_FLAMEGRAPH_H

#include <stddef.h>

/*
 * A differential flame graph as static SVG, for the report (no script):
 * the folded stacks of two sides, A (the older: a baseline, a good end)
 * and B (the newer), merged into one tree of frames, the outermost frame
 * at the bottom ("all", every sample, below it all).  A frame is as wide
 * as its subtree's share of B's samples; its colour says how that share
 * changed from A to B: red where it grew, blue where it shrank, the
 * deeper the larger the change (against the largest change drawn, and
 * never deeper than a change of KB_FLAME_FULL_CHANGE would be), light
 * grey where it did not change (less than 0.05 points).  A frame only
 * in A has no width in B and is not drawn (it is counted in the note).
 *
 * Siblings are ordered by name (bytes), a frame's own samples right of
 * its children; the output depends on the input alone, not on its
 * order, so it can be tested by exact text.  Frames narrower than
 * KB_FLAME_MIN_WIDTH px, and past @max_frames the narrowest, are not
 * drawn; a note line above the graph says how many.  Each frame is a
 * <g class="frame grew|shrank|same"> holding its <title> tooltip
 * ("FUNCTION — A 12.3%, B 15.0%, change +2.7 pts"), a <rect> with its
 * fill as an attribute and, when there is room, its name.  Every text
 * is escaped (kb_svg_escape()).
 */

struct kb_buf;
struct kb_err;

/* One folded stack and its share of each side's samples. */
struct kb_flame_stack {
	const char *stack; /* "start_kernel;...;do_idle", outermost frame
			    * first (profile.h); frames past
			    * KB_PROFILE_MAX_DEPTH are counted in the
			    * last one kept */
	double a, b;       /* its share of side A's and side B's samples,
			    * 0 to 1 (a mean over boots, say); 0 where
			    * that side never had it */
};

#define KB_FLAME_MAX_FRAMES 2000      /* frames drawn, by default */
#define KB_FLAME_MAX_STACKS (1 << 20) /* stacks of one graph */
#define KB_FLAME_MIN_WIDTH 0.5        /* px: narrower is not drawn */
#define KB_FLAME_FULL_CHANGE 0.01     /* a change in share (1 point) that
				       * may be drawn at full colour */
#define KB_FLAME_NAME_MAX 127         /* bytes of a name shown; longer
				       * ones are cut, "..." */

struct kb_flame_opts {
	const char *id;     /* the <svg> element's id, or NULL for none */
	const char *title;  /* its <title> and heading, or NULL */
	double width;       /* of the whole drawing, px (0: 1200; at least
			     * 200, at most 100000) */
	size_t max_frames;  /* frames drawn at most, "all" among them
			     * (0: KB_FLAME_MAX_FRAMES) */
};
#define KB_FLAME_OPTS_INIT \
	{ .id = NULL, .title = NULL, .width = 0, .max_frames = 0 }

/*
 * Append the flame graph of @v[0..n) to @out (@o may be NULL for the
 * defaults).  Stacks of one text are summed.  No stacks, or none with a
 * share in B, draw a small SVG that says "no profile samples" (in B).
 * Returns 0, or KB_EINPUT with a message for a stack that is NULL, empty
 * or has an empty frame, a share that is not a number from 0 to 1, more
 * than KB_FLAME_MAX_STACKS stacks or a width out of range; @out is then
 * as it was.
 */
int kb_flamegraph_svg(const struct kb_flame_stack *v, size_t n,
		      const struct kb_flame_opts *o, struct kb_buf *out,
		      struct kb_err *err);

#endif
