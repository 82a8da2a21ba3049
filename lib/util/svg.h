#ifndef KB_SVG_H
#define KB_SVG_H

#include <stddef.h>

/*
 * Plots as plain SVG text, for reports that a browser shows without any
 * script or network (lib/report.c): a value axis with ticks at nice
 * numbers (linear, logarithmic for values that span decades, or a
 * log-ratio axis for changes in percent), and a
 * *row chart* on it -- one row per item (a variant, an effect, a probe),
 * values along the x axis: points, marks, intervals, a band and lines
 * across every row.  The strip plot of boot means and the forest plot of
 * effects are both row charts.
 *
 * The SVG is appended to a struct kb_buf, so it can be inlined in an
 * HTML page or written to a file.  Elements carry class names ("point",
 * "mark", "interval", "band", "line", "axis", "tick", "label") plus the
 * caller's, for a stylesheet to draw them; sizes and positions are
 * attributes, so the SVG also reads without one.  Every text is escaped
 * (kb_svg_escape()).  A value that is not a finite number (NaN, an
 * infinity), not positive on a log axis or not above -100% on a
 * log-ratio axis, is refused with KB_EINPUT and draws nothing: a plot
 * never shows a point where there is none.
 */

struct kb_buf;
struct kb_err;

/*
 * Append @s to @b as XML text, fit for element content and quoted
 * attribute values alike: & < > " ' as entities; control characters
 * (C0 but tab and newline, DEL, C1), which XML 1.0 and HTML forbid or
 * warn about, written visibly as \xHH, \r or \u00HH, as `kbisect`
 * prints them on a terminal; bytes that are not UTF-8 as U+FFFD.  NULL
 * appends nothing.
 */
void kb_svg_escape(struct kb_buf *b, const char *s);

/* The most ticks an axis has. */
#define KB_SVG_MAX_TICKS 24

/* A value axis: its domain and the ticks labelled on it. */
struct kb_svg_axis {
	int log;          /* logarithmic (base 10) */
	int ratio;        /* log-ratio: the values are changes in percent,
			   * each drawn at log(1 + v / 100) */
	double lo, hi;    /* the domain, lo < hi: the outer ticks (on a
			   * log-ratio axis, in percent too) */
	size_t nticks;
	double ticks[KB_SVG_MAX_TICKS]; /* increasing, lo and hi among them */
	double step;      /* linear, and log-ratio with ticks at steps of
			   * percent: between ticks; else 0 */
};

/*
 * A linear axis for values from @min to @max (min <= max) with about
 * @want ticks (2 to KB_SVG_MAX_TICKS - 1): nice numbers (Heckbert), a
 * step of 1, 2 or 5 times a power of ten nearest (max - min) / (want -
 * 1), the domain widened to whole steps around the data.  Equal ends
 * are widened by a tenth of their size (0 to [-1, 1]).  KB_EINPUT for
 * ends that are not finite or not in order, or a domain too wide (or
 * narrow) for a double, with a message.
 */
int kb_svg_axis_linear(double min, double max, size_t want,
		       struct kb_svg_axis *out, struct kb_err *err);

/*
 * A logarithmic axis for positive values from @min to @max: the domain
 * from the largest 1, 2 or 5 times a power of ten at or below @min to
 * the smallest at or above @max (never a single value), ticks at those
 * numbers when the domain spans at most two decades, else at powers of
 * ten (every few when there are too many).  KB_EINPUT for ends that are
 * not finite, not positive or not in order.
 */
int kb_svg_axis_log(double min, double max, struct kb_svg_axis *out,
		    struct kb_err *err);

/*
 * A log axis when every value is positive and they span more than
 * @decades decades (max / min > 10^decades), else a linear one with
 * about 6 ticks.  @v[0..n) are the values; the non-finite ones are left
 * out (an empty set gives the linear axis of [0, 1]).
 */
int kb_svg_axis_auto(const double *v, size_t n, double decades,
		     struct kb_svg_axis *out, struct kb_err *err);

/*
 * A log-ratio axis for changes in percent @v[0..n) (the non-finite ones,
 * and those at or below -100%, are left out; 0 is always on it): each
 * drawn at log(1 + v / 100), so that halving and doubling (-50% and
 * +100%) lie as far from 0 as each other, and -89%, -94% and -99% (9x,
 * 17x, 150x) lie apart.  Ticks at the ratios 1, 2, 5 times a power of
 * ten (-99%, -98%, -95%, -90%, -80%, -50%, 0, +100%, +400%, +900%, as
 * kb_svg_axis_log() places them on the ratio), or, when the values lie
 * within a factor of 3, at nice steps of percent.  Labels say the
 * percent and, from 2x on, the factor: "-90% (10x)", "+100% (2x)", "0".
 */
int kb_svg_axis_ratio(const double *v, size_t n, struct kb_svg_axis *out,
		      struct kb_err *err);

/* Whether @v can be drawn on axis @a: finite, positive on a log axis,
 * above -100% on a log-ratio one. */
int kb_svg_axis_takes(const struct kb_svg_axis *a, double v);

/* Where value @v lies on axis @a, 0 at lo and 1 at hi (beyond: < 0 or
 * > 1); NaN for a non-finite @v, or one not positive on a log axis. */
double kb_svg_axis_frac(const struct kb_svg_axis *a, double v);

/*
 * A tick's label into @buf of @len bytes: as many decimals as the step
 * needs ("0.25", "-10", "1.5"), thousands and millions as "250k" and
 * "1.2M" when the ticks are that large.
 */
void kb_svg_tick_label(const struct kb_svg_axis *a, double v, char *buf,
		       size_t len);

/* ---- a row chart ------------------------------------------------------ */

struct kb_svg_rows_opts {
	const char *id;      /* the <svg> element's id (required) */
	const char *title;   /* its <title>, for screen readers and tooltips */
	const char *x_label; /* under the axis, or NULL */
	size_t nrows;        /* 0 draws the axis alone */
	double width;        /* of the whole drawing, px (0: 900) */
	double row_height;   /* px (0: 22) */
	double label_width;  /* left of the plot area, for the row labels
			      * (0: 260) */
};
#define KB_SVG_ROWS_OPTS_INIT                                     \
	{ .id = NULL, .title = NULL, .x_label = NULL, .nrows = 0, \
	  .width = 0, .row_height = 0, .label_width = 0 }

struct kb_svg;

/*
 * Start a row chart on axis @x (copied), appending to @out, which must
 * outlive it.  Rows are numbered from 0 at the top.  Draw with the
 * functions below, then kb_svg_rows_end(), which writes the axis and
 * closes the element.  KB_EINPUT without an id or with a bad size.
 * *@svg is the caller's: kb_svg_rows_end() or kb_svg_free() frees it.
 */
int kb_svg_rows_begin(struct kb_buf *out, const struct kb_svg_rows_opts *o,
		      const struct kb_svg_axis *x, struct kb_svg **svg,
		      struct kb_err *err);

/* The label of row @row, left of the plot area, with @tooltip (may be
 * NULL) as its <title>; a label too long for the room is cut, "...",
 * after its last whole word that fits when there is one (see
 * kb_svg_short_labels() for labels that need not be cut). */
int kb_svg_row_label(struct kb_svg *s, size_t row, const char *text,
		     const char *tooltip, struct kb_err *err);

/* How many characters a row label of a chart @label_width px wide shows
 * uncut. */
size_t kb_svg_label_room(double label_width);

/*
 * Row labels that fit in @room characters and still tell the rows
 * apart, for a chart whose rows are labelled by settings ("A=n B=y
 * C=n"): words are split at spaces outside double quotes.  Fills
 * @out[0..n) with new strings (the caller frees each), from the first
 * of these that fits, leaves no two labels alike and none empty that
 * was not (else from the last that does all but fit):
 *
 * 1. @labels as they are;
 * 2. without the words every label has (settings shared by all rows);
 * 3. when @base < n: only the words in which each differs from label
 *    @base, which reads @base_text (NULL: as it is);
 * 4. the words of the last distinct form that fit, and "+K more" for
 *    the K left out, never a word cut in two.
 *
 * NULL labels read as "".
 */
void kb_svg_short_labels(const char *const *labels, size_t n, size_t room,
			 size_t base, const char *base_text, char **out);

/*
 * A point (circle of radius @r px) at value @v on row @row, moved @dy px
 * down from the row's middle (to spread points of equal value), of class
 * "point @cls", with @tooltip (may be NULL) as its <title>.
 */
int kb_svg_point(struct kb_svg *s, size_t row, double v, double dy, double r,
		 const char *cls, const char *tooltip, struct kb_err *err);

/* A short vertical mark at @v on row @row (a mean), class "mark @cls". */
int kb_svg_mark(struct kb_svg *s, size_t row, double v, const char *cls,
		const char *tooltip, struct kb_err *err);

/* A horizontal interval from @lo to @hi on row @row, with end ticks
 * (a confidence interval), class "interval @cls". */
int kb_svg_interval(struct kb_svg *s, size_t row, double lo, double hi,
		    const char *cls, const char *tooltip, struct kb_err *err);

/* A band from @lo to @hi across every row (a baseline's interval), class
 * "band @cls", labelled @label at its top (may be NULL). */
int kb_svg_band(struct kb_svg *s, double lo, double hi, const char *cls,
		const char *label, struct kb_err *err);

/* A vertical line at @v across every row (zero, a threshold), class
 * "line @cls", labelled @label at its top (may be NULL). */
int kb_svg_line(struct kb_svg *s, double v, const char *cls,
		const char *label, struct kb_err *err);

/*
 * Draw the x axis (a line, the ticks with their labels and grid lines,
 * the axis label), close the <svg> element and free @s.  After a failed
 * draw the chart is still whole: the drawing that failed left nothing.
 */
void kb_svg_rows_end(struct kb_svg *s);

/* Free @s without ending it (what it appended stays); NULL is fine. */
void kb_svg_free(struct kb_svg *s);

/* ---- a scatter: values against values --------------------------------- */

/*
 * An x-y chart: points at (x, y) on two value axes and straight segments
 * between two of them (a fitted line, a zero line), for what a row chart
 * cannot show — the residuals of boots against their place in the run.
 * The same classes as a row chart ("point", "line", "axis", "tick",
 * "label", "grid"), so one stylesheet draws both.
 */
struct kb_svg_xy_opts {
	const char *id;      /* the <svg> element's id (required) */
	const char *title;   /* its <title> */
	const char *x_label; /* under the x axis, or NULL */
	const char *y_label; /* beside the y axis, or NULL */
	double width;        /* px (0: 900) */
	double height;       /* of the plot area, px (0: 260) */
};
#define KB_SVG_XY_OPTS_INIT                                           \
	{ .id = NULL, .title = NULL, .x_label = NULL, .y_label = NULL, \
	  .width = 0, .height = 0 }

/*
 * Start an x-y chart on axes @x and @y (copied; made with
 * kb_svg_axis_*()), appending to @out, which must outlive it.  Draw with
 * kb_svg_xy_point() and kb_svg_xy_segment(), then end it with
 * kb_svg_rows_end(), which draws both axes; kb_svg_free() frees it
 * unended.  The row-chart functions refuse it (it has no rows).
 */
int kb_svg_xy_begin(struct kb_buf *out, const struct kb_svg_xy_opts *o,
		    const struct kb_svg_axis *x, const struct kb_svg_axis *y,
		    struct kb_svg **svg, struct kb_err *err);

/* A point (radius @r px) at (@x, @y), class "point @cls", with @tooltip
 * (may be NULL) as its <title>.  Outside the axes it is kept at their
 * edge. */
int kb_svg_xy_point(struct kb_svg *s, double x, double y, double r,
		    const char *cls, const char *tooltip, struct kb_err *err);

/* A segment from (@x0, @y0) to (@x1, @y1), class "line @cls" (behind the
 * points), with @tooltip (may be NULL). */
int kb_svg_xy_segment(struct kb_svg *s, double x0, double y0, double x1,
		      double y1, const char *cls, const char *tooltip,
		      struct kb_err *err);

#endif
