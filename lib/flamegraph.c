/*
 * Differential flame graphs (flamegraph.h).  The stacks are sorted frame
 * by frame, so that the stacks under one frame lie together and a
 * frame's children come in the order of their names; one pass over them
 * then keeps the path of open frames (at most KB_PROFILE_MAX_DEPTH) and
 * closes a frame, its sums final, where the next stack leaves it.  No
 * tree is built: only the frames wide enough to draw are kept, at most
 * the plot's width / KB_FLAME_MIN_WIDTH of them at each depth.
 */
#include "flamegraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "profile.h"
#include "svg.h"
#include "banned.h"

#define PAD 10         /* px left and right of the graph */
#define FRAME_H 16     /* px of a frame */
#define HEAD 46        /* px above the graph: the title and the note */
#define CHAR_W 7       /* px of a character of the 11 px label */
#define SAME 0.0005    /* a change in share below this is none */
#define SHARE_SLACK 1e-9 /* a share may exceed 1 by rounding */

/* A frame of a stack: its name, not NUL-terminated. */
struct frame {
	const char *name;
	size_t len;
};

/* A frame of the graph. */
struct node {
	const char *name; /* into the caller's stack (or "all") */
	size_t len;
	size_t depth;     /* 0 for "all" */
	double x0;        /* B's share of the stacks left of it */
	double a, b;      /* its subtree's shares */
};

struct build {
	double total_b;    /* the sum of the stacks' b */
	double min_share;  /* of B: the narrowest frame drawn */
	struct node open[KB_PROFILE_MAX_DEPTH + 1]; /* [1..nopen] */
	size_t nopen;
	struct node *keep;
	size_t nkeep, alloc;
	size_t omitted;    /* frames too narrow */
};

/* The next frame of @s from *@p: returns 0 at the end of the stack. */
static int next_frame(const char *s, size_t *p, struct frame *f)
{
	size_t i = *p, j;

	if (i == (size_t)-1)
		return 0;
	for (j = i; s[j] && s[j] != ';'; j++)
		;
	f->name = s + i;
	f->len = j - i;
	*p = s[j] ? j + 1 : (size_t)-1;
	return 1;
}

static int name_cmp(const struct frame *x, const struct frame *y)
{
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Stacks (pointers into one array) frame by frame, a frame's own
 * samples (the shorter stack) after its children; equal stacks by their
 * shares, so that they are summed in one order whatever the input's. */
static int stack_cmp(const void *pa, const void *pb)
{
	const struct kb_flame_stack *sa = *(const struct kb_flame_stack *const *)pa;
	const struct kb_flame_stack *sb = *(const struct kb_flame_stack *const *)pb;
	const char *x = sa->stack, *y = sb->stack;
	size_t px = 0, py = 0, d;
	struct frame fx, fy;
	int hx, hy, c;

	for (d = 0; d < KB_PROFILE_MAX_DEPTH; d++) {
		hx = next_frame(x, &px, &fx);
		hy = next_frame(y, &py, &fy);
		if (!hx || !hy) {
			if (hx != hy)
				return hx ? -1 : 1;
			break;
		}
		if ((c = name_cmp(&fx, &fy)))
			return c;
	}
	if (sa->b != sb->b)
		return sa->b < sb->b ? -1 : 1;
	if (sa->a != sb->a)
		return sa->a < sb->a ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

static void close_frame(struct build *bd, const struct node *f)
{
	if (f->b < bd->min_share) {
		bd->omitted++;
		return;
	}
	if (bd->nkeep == bd->alloc) {
		bd->alloc = bd->alloc ? 2 * bd->alloc : 256;
		bd->keep = kb_reallocarray(bd->keep, bd->alloc,
					   sizeof(*bd->keep));
	}
	bd->keep[bd->nkeep++] = *f;
}

/* Add stack @s (its frames in @fr[0..m)) with shares @a, @b. */
static void add_stack(struct build *bd, const struct frame *fr, size_t m,
		      double a, double b, double *x)
{
	size_t k = 0, d;

	while (k < m && k < bd->nopen && fr[k].len == bd->open[k + 1].len &&
	       !memcmp(fr[k].name, bd->open[k + 1].name, fr[k].len))
		k++;
	while (bd->nopen > k)
		close_frame(bd, &bd->open[bd->nopen--]);
	for (d = k; d < m; d++) {
		bd->open[d + 1] = (struct node){ .name = fr[d].name,
						 .len = fr[d].len,
						 .depth = d + 1, .x0 = *x };
	}
	bd->nopen = m;
	for (d = 1; d <= m; d++) {
		bd->open[d].a += a;
		bd->open[d].b += b;
	}
	*x += b;
}

/* Widest first; of equal width the shallower (a parent before its
 * child, so that a kept frame's parent is kept), then the left one. */
static int width_cmp(const void *pa, const void *pb)
{
	const struct node *x = pa, *y = pb;

	if (x->b != y->b)
		return x->b > y->b ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->x0 < y->x0 ? -1 : x->x0 > y->x0;
}

/* Drawing order: by depth, then left to right. */
static int place_cmp(const void *pa, const void *pb)
{
	const struct node *x = pa, *y = pb;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->x0 < y->x0 ? -1 : x->x0 > y->x0;
}

/* @len bytes of @name, escaped, cut to @room bytes with "..." (never
 * inside a UTF-8 sequence). */
static void add_name(struct kb_buf *out, const char *name, size_t len,
		     size_t room)
{
	struct kb_buf t = KB_BUF_INIT;
	size_t cut = len;

	if (len > room) {
		cut = room > 3 ? room - 3 : 0;
		while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
			cut--;
	}
	kb_buf_add(&t, name, cut);
	if (cut < len)
		kb_buf_adds(&t, cut ? "..." : "..");
	kb_svg_escape(out, t.buf);
	kb_buf_release(&t);
}

static void svg_open(struct kb_buf *out, const struct kb_flame_opts *o,
		     double width, double height)
{
	kb_buf_adds(out, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	if (o->id) {
		kb_buf_adds(out, " id=\"");
		kb_svg_escape(out, o->id);
		kb_buf_addch(out, '"');
	}
	kb_buf_addf(out,
		    " class=\"chart flame\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"system-ui,sans-serif\" font-size=\"12\"",
		    width, height, width, height);
	if (o->title) {
		kb_buf_adds(out, " aria-label=\"");
		kb_svg_escape(out, o->title);
		kb_buf_adds(out, "\"><title>");
		kb_svg_escape(out, o->title);
		kb_buf_adds(out, "</title>\n");
		kb_buf_addf(out,
			    "<text class=\"label title\" x=\"%.2f\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">",
			    width / 2);
		kb_svg_escape(out, o->title);
		kb_buf_adds(out, "</text>\n");
	} else {
		kb_buf_adds(out, ">\n");
	}
}

/* A frame's class and fill: red where its share grew, blue where it
 * shrank, by @scale the change drawn at full colour. */
static const char *frame_colour(double delta, double scale, char *fill,
				size_t len)
{
	double f;
	int c;

	if (fabs(delta) < SAME) {
		snprintf(fill, len, "rgb(224,224,224)");
		return "same";
	}
	f = fmin(fabs(delta) / scale, 1);
	c = (int)lround(235 - 195 * f);
	if (delta > 0) {
		snprintf(fill, len, "rgb(255,%d,%d)", c, c);
		return "grew";
	}
	snprintf(fill, len, "rgb(%d,%d,255)", c, c);
	return "shrank";
}

static void draw_frame(struct kb_buf *out, const struct node *f,
		       double total_b, double plot_w, double y, double scale)
{
	double x = PAD + f->x0 / total_b * plot_w;
	double w = f->b / total_b * plot_w;
	double delta = f->b - f->a;
	size_t room;
	char fill[32];
	const char *cls = frame_colour(delta, scale, fill, sizeof(fill));

	kb_buf_addf(out, "<g class=\"frame %s\"><title>", cls);
	add_name(out, f->name, f->len, KB_FLAME_NAME_MAX);
	/* " — " */
	kb_buf_addf(out, " \xe2\x80\x94 A %.1f%%, B %.1f%%, change ",
		    f->a * 100, f->b * 100);
	if (fabs(delta) < SAME)
		kb_buf_adds(out, "0.0 pts");
	else
		kb_buf_addf(out, "%+.1f pts", delta * 100);
	kb_buf_addf(out,
		    "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
		    x, y, w, FRAME_H - 1, fill);
	room = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;
	if (room >= 3) {
		kb_buf_addf(out,
			    "<text x=\"%.2f\" y=\"%.1f\" font-size=\"11\" fill=\"#1b1f24\">",
			    x + 3, y + FRAME_H - 4.5);
		add_name(out, f->name, f->len,
			 room < KB_FLAME_NAME_MAX ? room : KB_FLAME_NAME_MAX);
		kb_buf_adds(out, "</text>");
	}
	kb_buf_adds(out, "</g>\n");
}

static int check_input(const struct kb_flame_stack *v, size_t n,
		       const struct kb_flame_opts *o, struct kb_err *err)
{
	size_t i, p;
	struct frame f;

	if (n > KB_FLAME_MAX_STACKS)
		return kb_err_set(err, KB_EINPUT,
				  "a flame graph of %zu stacks: at most %d",
				  n, KB_FLAME_MAX_STACKS);
	if (o->width && (!(o->width >= 200) || !(o->width <= 100000)))
		return kb_err_set(err, KB_EINPUT,
				  "a flame graph %g px wide: 200 to 100000",
				  o->width);
	for (i = 0; i < n; i++) {
		if (!v[i].stack || !*v[i].stack)
			return kb_err_set(err, KB_EINPUT,
					  "stack %zu of the flame graph is empty",
					  i + 1);
		if (!(v[i].a >= 0 && v[i].a <= 1 + SHARE_SLACK) ||
		    !(v[i].b >= 0 && v[i].b <= 1 + SHARE_SLACK))
			return kb_err_set(err, KB_EINPUT,
					  "stack '%.200s': shares %g and %g, not from 0 to 1",
					  v[i].stack, v[i].a, v[i].b);
		for (p = 0; next_frame(v[i].stack, &p, &f);)
			if (!f.len)
				return kb_err_set(err, KB_EINPUT,
						  "stack '%.200s': an empty frame",
						  v[i].stack);
	}
	return 0;
}

int kb_flamegraph_svg(const struct kb_flame_stack *v, size_t n,
		      const struct kb_flame_opts *o, struct kb_buf *out,
		      struct kb_err *err)
{
	static const struct kb_flame_opts defaults = KB_FLAME_OPTS_INIT;
	struct frame fr[KB_PROFILE_MAX_DEPTH];
	struct build bd = { .nopen = 0 };
	struct node root = { .name = "all", .len = 3 };
	double width, plot_w, height, x = 0, scale = KB_FLAME_FULL_CHANGE,
	       top;
	const struct kb_flame_stack **idx = NULL;
	size_t i, m, p, cap, maxd = 0, drawn;
	int ret;

	if (!o)
		o = &defaults;
	if ((ret = check_input(v, n, o, err)))
		return ret;
	width = o->width ? o->width : 1200;
	plot_w = width - 2 * PAD;
	cap = o->max_frames ? o->max_frames : KB_FLAME_MAX_FRAMES;
	for (i = 0; i < n; i++) {
		root.a += v[i].a;
		root.b += v[i].b;
	}
	bd.total_b = root.b;
	if (!(root.b > 0)) {
		svg_open(out, o, width, HEAD + 30);
		kb_buf_addf(out,
			    "<text class=\"note\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">no profile samples%s</text>\n</svg>\n",
			    width / 2, HEAD + 10, n ? " in B" : "");
		return 0;
	}
	bd.min_share = KB_FLAME_MIN_WIDTH / plot_w * root.b;

	idx = kb_reallocarray(NULL, n, sizeof(*idx));
	for (i = 0; i < n; i++)
		idx[i] = &v[i];
	qsort(idx, n, sizeof(*idx), stack_cmp);
	for (i = 0; i < n; i++) {
		const struct kb_flame_stack *s = idx[i];

		if (s->a == 0 && s->b == 0)
			continue;
		for (m = 0, p = 0;
		     m < KB_PROFILE_MAX_DEPTH && next_frame(s->stack, &p, &fr[m]);
		     m++)
			;
		add_stack(&bd, fr, m, s->a, s->b, &x);
	}
	while (bd.nopen)
		close_frame(&bd, &bd.open[bd.nopen--]);

	/* the widest cap - 1 frames beside "all" */
	if (bd.nkeep > cap - 1) {
		qsort(bd.keep, bd.nkeep, sizeof(*bd.keep), width_cmp);
		bd.omitted += bd.nkeep - (cap - 1);
		bd.nkeep = cap - 1;
	}
	qsort(bd.keep, bd.nkeep, sizeof(*bd.keep), place_cmp);
	for (i = 0; i < bd.nkeep; i++) {
		if (bd.keep[i].depth > maxd)
			maxd = bd.keep[i].depth;
		scale = fmax(scale, fabs(bd.keep[i].b - bd.keep[i].a));
	}
	scale = fmax(scale, fabs(root.b - root.a));

	height = HEAD + (double)(maxd + 1) * FRAME_H + PAD;
	svg_open(out, o, width, height);
	drawn = bd.nkeep + 1;
	kb_buf_addf(out,
		    "<text class=\"note\" x=\"%d\" y=\"36\" font-size=\"11\" fill=\"#57606a\">width: share of B's samples; red: grew from A to B, blue: shrank (full colour: %+.1f pts); %zu frame%s drawn",
		    PAD, scale * 100, drawn, drawn == 1 ? "" : "s");
	if (bd.omitted)
		kb_buf_addf(out,
			    ", %zu narrower not drawn", bd.omitted);
	kb_buf_adds(out, "</text>\n");
	top = HEAD + (double)maxd * FRAME_H;
	draw_frame(out, &root, root.b, plot_w, top, scale);
	for (i = 0; i < bd.nkeep; i++)
		draw_frame(out, &bd.keep[i], root.b, plot_w,
			   top - (double)bd.keep[i].depth * FRAME_H, scale);
	kb_buf_adds(out, "</svg>\n");
	free(bd.keep);
	free(idx);
	return 0;
}
