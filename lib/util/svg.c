/*
 * Plain SVG plots (lib/util/svg.h): nice-number axes, linear and logarithmic,
 * and the row chart that the report's strip and forest plots are made
 * of.  Nothing here reads or writes a file.
 */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "banned.h"

/* ---- text ------------------------------------------------------------- */

/* The length of the UTF-8 sequence at @s (1 to 4), or 0 when it is not
 * one (a stray continuation byte, an overlong form, a surrogate, past
 * U+10FFFF, cut short). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void kb_svg_escape(struct kb_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s)
		return;
	while (*p) {
		switch (*p) {
		case '&':
			kb_buf_adds(b, "&amp;");
			break;
		case '<':
			kb_buf_adds(b, "&lt;");
			break;
		case '>':
			kb_buf_adds(b, "&gt;");
			break;
		case '"':
			kb_buf_adds(b, "&quot;");
			break;
		case '\'':
			kb_buf_adds(b, "&#39;");
			break;
		case '\t':
		case '\n':
			kb_buf_addch(b, (char)*p);
			break;
		case '\r':
			kb_buf_adds(b, "\\r");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				kb_buf_addf(b, "\\x%02x", *p);
				break;
			}
			n = utf8_len(p);
			if (!n) {
				kb_buf_adds(b, "&#xfffd;");
				break;
			}
			/* C1 controls, U+0080 to U+009F */
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
				kb_buf_addf(b, "\\u%04x", p[1]);
				p += 2;
				continue;
			}
			kb_buf_add(b, p, n);
			p += n;
			continue;
		}
		p++;
	}
}

/* ---- axes ------------------------------------------------------------- */

/* Heckbert's nice number near @x > 0: 1, 2, 5 or 10 times a power of
 * ten, rounded to the nearest when @round, else the next above. */
static double nice_num(double x, int round)
{
	double e = floor(log10(x)), f = x / pow(10, e), nf;

	if (round)
		nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nf * pow(10, e);
}

static int check_ends(double min, double max, int positive,
		      struct kb_err *err)
{
	if (!isfinite(min) || !isfinite(max))
		return kb_err_set(err, KB_EINPUT,
				  "an axis from %g to %g: its ends must be finite numbers",
				  min, max);
	if (min > max)
		return kb_err_set(err, KB_EINPUT,
				  "an axis from %g to %g: its ends are not in order",
				  min, max);
	if (positive && min <= 0)
		return kb_err_set(err, KB_EINPUT,
				  "a log axis from %g to %g: its values must be positive",
				  min, max);
	return 0;
}

int kb_svg_axis_linear(double min, double max, size_t want,
		       struct kb_svg_axis *out, struct kb_err *err)
{
	double step, lo, hi, t;
	size_t i, n;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = check_ends(min, max, 0, err)))
		return ret;
	if (want < 2 || want >= KB_SVG_MAX_TICKS)
		return kb_err_set(err, KB_EINPUT,
				  "an axis of %zu ticks: ask for 2 to %d",
				  want, KB_SVG_MAX_TICKS - 1);
	if (min == max) {
		double pad = min ? fabs(min) / 10 : 1;

		min -= pad;
		max += pad;
	}
	step = nice_num((max - min) / (double)(want - 1), 1);
	for (;;) {
		lo = floor(min / step) * step;
		hi = ceil(max / step) * step;
		if (!isfinite(step) || step <= 0 || !isfinite(lo) ||
		    !isfinite(hi) || !isfinite(hi - lo) || !(lo < hi))
			return kb_err_set(err, KB_EINPUT,
					  "an axis from %g to %g: too wide or too narrow for a double",
					  min, max);
		n = (size_t)llround((hi - lo) / step) + 1;
		if (n <= KB_SVG_MAX_TICKS)
			break;
		/* rounding asked for more steps than the room */
		step = nice_num(step * 1.5, 0);
	}
	out->log = 0;
	out->lo = lo;
	out->hi = hi;
	out->step = step;
	for (i = 0; i < n; i++) {
		t = lo + (double)i * step;
		if (fabs(t) < step * 1e-9)
			t = 0; /* not 1.2e-17, nor -0 */
		out->ticks[i] = t;
	}
	out->ticks[n - 1] = hi;
	out->nticks = n;
	return 0;
}

/* The 1-2-5 numbers: index k is m * 10^e with e = floor(k / 3) and m
 * the (k mod 3)-th of 1, 2, 5. */
static double seq125(long k)
{
	static const double m[3] = { 1, 2, 5 };
	long e = k >= 0 ? k / 3 : -((-k + 2) / 3);

	return m[k - 3 * e] * pow(10, (double)e);
}

/* The index of the largest 1-2-5 number at or below @v > 0. */
static long seq125_floor(double v)
{
	long k = 3 * (long)floor(log10(v));

	while (seq125(k + 1) <= v * (1 + 1e-12))
		k++;
	while (seq125(k) > v * (1 + 1e-12))
		k--;
	return k;
}

int kb_svg_axis_log(double min, double max, struct kb_svg_axis *out,
		    struct kb_err *err)
{
	long klo, khi, k, e0, e1, e, every;
	size_t n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = check_ends(min, max, 1, err)))
		return ret;
	klo = seq125_floor(min);
	khi = seq125_floor(max);
	if (seq125(khi) < max * (1 - 1e-12))
		khi++;
	if (khi == klo)
		khi++;
	out->log = 1;
	out->lo = seq125(klo);
	out->hi = seq125(khi);
	if (!isfinite(out->hi) || out->lo <= 0)
		return kb_err_set(err, KB_EINPUT,
				  "a log axis from %g to %g: too wide for a double",
				  min, max);
	if (khi - klo <= 6) {
		/* two decades at most: every 1-2-5 number */
		for (k = klo; k <= khi; k++)
			out->ticks[n++] = seq125(k);
		out->nticks = n;
		return 0;
	}
	/* powers of ten between the ends, every @every decades */
	e0 = (long)ceil(log10(out->lo) - 1e-12);
	e1 = (long)floor(log10(out->hi) + 1e-12);
	every = (e1 - e0) / (KB_SVG_MAX_TICKS - 3) + 1;
	if (out->lo < pow(10, (double)e0) * (1 - 1e-12))
		out->ticks[n++] = out->lo;
	for (e = e0; e <= e1; e += every)
		out->ticks[n++] = pow(10, (double)e);
	if (out->ticks[n - 1] < out->hi * (1 - 1e-12))
		out->ticks[n++] = out->hi;
	out->nticks = n;
	return 0;
}

int kb_svg_axis_auto(const double *v, size_t n, double decades,
		     struct kb_svg_axis *out, struct kb_err *err)
{
	double min = INFINITY, max = -INFINITY;
	size_t i, finite = 0;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		finite++;
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	if (!finite)
		return kb_svg_axis_linear(0, 1, 6, out, err);
	if (min > 0 && max / min > pow(10, decades))
		return kb_svg_axis_log(min, max, out, err);
	return kb_svg_axis_linear(min, max, 6, out, err);
}

int kb_svg_axis_ratio(const double *v, size_t n, struct kb_svg_axis *out,
		      struct kb_err *err)
{
	struct kb_svg_axis l;
	double min = 0, max = 0; /* 0 is always on it */
	long klo, khi, k;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] <= -100)
			continue;
		min = fmin(min, v[i]);
		max = fmax(max, v[i]);
	}
	/* within a factor of 3 the log ratio is near enough to linear for
	 * ticks at steps of percent, unless the step reaches -100% */
	if ((1 + max / 100) / (1 + min / 100) <= 3) {
		if ((ret = kb_svg_axis_linear(min, max, 6, &l, err)))
			return ret;
		if (l.lo > -100) {
			*out = l;
			out->ratio = 1;
			return 0;
		}
	}
	/* the ratios 1, 2, 5 times a power of ten, as on a log axis: the
	 * 1-2-5 numbers are their own reciprocals (1/2, 1/5, 1/10), so the
	 * ticks are the same factors either way of 0; every one of them
	 * over three decades (two-line labels leave room), else the powers
	 * of ten of kb_svg_axis_log() */
	if ((ret = kb_svg_axis_log(1 + min / 100, 1 + max / 100, &l, err)))
		return ret;
	klo = seq125_floor(l.lo);
	khi = seq125_floor(l.hi);
	if (khi - klo <= 9) {
		l.nticks = 0;
		for (k = klo; k <= khi; k++)
			l.ticks[l.nticks++] = seq125(k);
	}
	out->ratio = 1;
	out->lo = (l.lo - 1) * 100;
	out->hi = (l.hi - 1) * 100;
	out->nticks = l.nticks;
	for (i = 0; i < l.nticks; i++)
		out->ticks[i] = (l.ticks[i] - 1) * 100;
	return 0;
}

int kb_svg_axis_takes(const struct kb_svg_axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0) && (!a->ratio || v > -100);
}

double kb_svg_axis_frac(const struct kb_svg_axis *a, double v)
{
	if (!kb_svg_axis_takes(a, v))
		return NAN;
	if (a->ratio)
		return (log1p(v / 100) - log1p(a->lo / 100)) /
		       (log1p(a->hi / 100) - log1p(a->lo / 100));
	if (a->log)
		return (log10(v) - log10(a->lo)) /
		       (log10(a->hi) - log10(a->lo));
	return (v - a->lo) / (a->hi - a->lo);
}

/*
 * A log-ratio tick's two parts: the change, "-90%" ("0" at none), into
 * @pct, and the factor from 2x on, "10x", into @fold ("" below 2x).
 */
static void ratio_label(const struct kb_svg_axis *a, double v, char *pct,
			size_t plen, char *fold, size_t flen)
{
	double f = v >= 0 ? 1 + v / 100 : 1 / (1 + v / 100), t;
	int d = 0;

	*fold = 0;
	if (fabs(v) < 1e-9) {
		snprintf(pct, plen, "0");
		return;
	}
	if (a->step > 0) {
		if (a->step < 1)
			d = (int)ceil(-log10(a->step) - 1e-9);
	} else {
		/* a 1-2-5 ratio: as many decimals as -99.5% or -99.99%
		 * take */
		for (t = v; d < 6 && fabs(t - round(t)) > 1e-6 * fmax(1, fabs(t));
		     d++)
			t *= 10;
	}
	snprintf(pct, plen, "%+.*f%%", d > 12 ? 12 : d, v);
	if (!(f >= 2 - 1e-9) || !isfinite(f))
		return;
	if (f < 99.5)
		snprintf(fold, flen, "%.2gx", f);
	else if (f < 1e6)
		snprintf(fold, flen, "%.0fx", f);
	else
		snprintf(fold, flen, "%.0ex", f);
}

void kb_svg_tick_label(const struct kb_svg_axis *a, double v, char *buf,
		       size_t len)
{
	double big = fmax(fabs(a->lo), fabs(a->hi));
	double unit = 1, step = a->step;
	const char *suffix = "";
	int decimals = 0;

	if (a->ratio) {
		char pct[40], fold[24];

		ratio_label(a, v, pct, sizeof(pct), fold, sizeof(fold));
		if (*fold)
			snprintf(buf, len, "%s (%s)", pct, fold);
		else
			snprintf(buf, len, "%s", pct);
		return;
	}
	if (a->log) {
		/* 1-2-5 numbers: %g is exact for them */
		if (v >= 1e6 && v < 1e15) {
			unit = 1e6;
			suffix = "M";
		} else if (v >= 1e3 && v < 1e6) {
			unit = 1e3;
			suffix = "k";
		} else if (v < 1e-4 || v >= 1e15) {
			snprintf(buf, len, "%.0e", v);
			return;
		}
		snprintf(buf, len, "%g%s", v / unit, suffix);
		return;
	}
	if (big >= 1e6 && step >= 1e5) {
		unit = 1e6;
		suffix = "M";
	} else if (big >= 1e4 && step >= 1e2) {
		unit = 1e3;
		suffix = "k";
	}
	if (fabs(v) < step * 1e-9)
		v = 0; /* "0", never "-0.0" */
	step /= unit;
	if (step < 1)
		decimals = (int)ceil(-log10(step) - 1e-9);
	if (decimals > 12 || big >= 1e15) {
		snprintf(buf, len, "%g", v);
		return;
	}
	snprintf(buf, len, "%.*f%s", decimals, v / unit, suffix);
}

/* ---- the row chart ---------------------------------------------------- */

#define TOP 26    /* room above the rows: band and line labels */
#define BOTTOM 44 /* room below: the axis, its labels and its name */
#define FOLD_LINE 14 /* and a second line of tick labels, for the
		      * factors of a log-ratio axis */
#define RIGHT 24  /* room right of the plot area for the last label */

struct kb_svg {
	struct kb_buf *out;
	struct kb_buf back;  /* grid, bands and lines: behind the data */
	struct kb_buf front; /* labels, points, marks, intervals */
	struct kb_svg_axis x;
	char *x_label;
	size_t nrows;
	double width, row_h, label_w, plot_w, height;
	double bottom_room; /* below the rows: BOTTOM, and FOLD_LINE on a
			     * log-ratio axis */
	/* an x-y chart (kb_svg_xy_begin()): its y axis and the plot area's
	 * height; the rows are none */
	int xy;
	struct kb_svg_axis y;
	char *y_label;
	double plot_h;
};

static double px(const struct kb_svg *s, double v)
{
	return s->label_w + kb_svg_axis_frac(&s->x, v) * s->plot_w;
}

static double row_y(const struct kb_svg *s, size_t row)
{
	return TOP + ((double)row + 0.5) * s->row_h;
}

/* Refuse @v where it cannot be drawn. */
static int check_value(const struct kb_svg *s, double v, const char *what,
		       struct kb_err *err)
{
	if (!isfinite(v))
		return kb_err_set(err, KB_EINPUT,
				  "%s of '%s' at %g: not a finite number",
				  what, s->x_label ? s->x_label : "?", v);
	if (s->x.log && v <= 0)
		return kb_err_set(err, KB_EINPUT,
				  "%s of '%s' at %g: not positive, on a log axis",
				  what, s->x_label ? s->x_label : "?", v);
	if (s->x.ratio && v <= -100)
		return kb_err_set(err, KB_EINPUT,
				  "%s of '%s' at %g%%: not above -100%%, on a log-ratio axis",
				  what, s->x_label ? s->x_label : "?", v);
	return 0;
}

static int check_row(const struct kb_svg *s, size_t row, struct kb_err *err)
{
	if (s->xy)
		return kb_err_set(err, KB_EINPUT,
				  "row %zu of an x-y chart, which has none", row);
	if (row >= s->nrows)
		return kb_err_set(err, KB_EINPUT,
				  "row %zu of a chart of %zu rows", row,
				  s->nrows);
	return 0;
}

/* @v's x, kept inside the plot area (an interval may reach past it). */
static double clamp_x(const struct kb_svg *s, double v)
{
	double x = px(s, v);

	return fmin(fmax(x, s->label_w), s->label_w + s->plot_w);
}

/* " class=\"@base @cls\"" */
static void add_class(struct kb_buf *b, const char *base, const char *cls)
{
	kb_buf_addf(b, " class=\"%s", base);
	if (cls && *cls) {
		kb_buf_addch(b, ' ');
		kb_svg_escape(b, cls);
	}
	kb_buf_addch(b, '"');
}

/* Close an element: "/>" or "><title>...</title></@name>". */
static void close_el(struct kb_buf *b, const char *name, const char *tooltip)
{
	if (!tooltip) {
		kb_buf_adds(b, "/>\n");
		return;
	}
	kb_buf_adds(b, "><title>");
	kb_svg_escape(b, tooltip);
	kb_buf_addf(b, "</title></%s>\n", name);
}

int kb_svg_rows_begin(struct kb_buf *out, const struct kb_svg_rows_opts *o,
		      const struct kb_svg_axis *x, struct kb_svg **svg,
		      struct kb_err *err)
{
	struct kb_svg *s;

	*svg = NULL;
	if (!o->id || !*o->id)
		return kb_err_set(err, KB_EINPUT, "a chart without an id");
	if (o->width < 0 || o->row_height < 0 || o->label_width < 0 ||
	    !isfinite(o->width + o->row_height + o->label_width) ||
	    o->nrows > 100000)
		return kb_err_set(err, KB_EINPUT,
				  "chart '%s': a size is out of range", o->id);
	if (!(x->lo < x->hi) || !x->nticks || (x->log && x->lo <= 0) ||
	    (x->ratio && !(x->lo > -100)))
		return kb_err_set(err, KB_EINPUT,
				  "chart '%s': its axis is not one (make it with kb_svg_axis_*())",
				  o->id);
	s = kb_calloc(1, sizeof(*s));
	s->out = out;
	kb_buf_init(&s->back);
	kb_buf_init(&s->front);
	s->x = *x;
	s->x_label = o->x_label ? kb_strdup(o->x_label) : NULL;
	s->nrows = o->nrows;
	s->width = o->width ? o->width : 900;
	s->row_h = o->row_height ? o->row_height : 22;
	s->label_w = o->label_width ? o->label_width : 260;
	if (s->label_w + RIGHT + 100 > s->width)
		s->width = s->label_w + RIGHT + 100;
	s->plot_w = s->width - s->label_w - RIGHT;
	s->bottom_room = BOTTOM + (x->ratio ? FOLD_LINE : 0);
	s->height = TOP + (double)s->nrows * s->row_h + s->bottom_room;
	kb_buf_adds(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"");
	kb_svg_escape(out, o->id);
	kb_buf_addf(out,
		    "\" class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"",
		    s->width, s->height, s->width, s->height);
	if (o->title) {
		kb_buf_adds(out, " aria-label=\"");
		kb_svg_escape(out, o->title);
		kb_buf_adds(out, "\"><title>");
		kb_svg_escape(out, o->title);
		kb_buf_adds(out, "</title>\n");
	} else {
		kb_buf_adds(out, ">\n");
	}
	*svg = s;
	return 0;
}

size_t kb_svg_label_room(double label_width)
{
	/* about 7 px a character at the stylesheet's 12 px, 8 for
	 * capitals: room for the widest */
	return (size_t)fmax((label_width - 12) / 8, 4);
}

int kb_svg_row_label(struct kb_svg *s, size_t row, const char *text,
		     const char *tooltip, struct kb_err *err)
{
	size_t room = kb_svg_label_room(s->label_w), len, cut, k;
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	if ((ret = check_row(s, row, err)))
		return ret;
	if (!text)
		text = "";
	kb_buf_addf(&s->front,
		    "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\"",
		    s->label_w - 8, row_y(s, row));
	len = strlen(text);
	if (len > room) {
		/* cut after a word when one ends in the second half of
		 * the room, else on a character, not inside a UTF-8
		 * sequence */
		cut = room - 3;
		for (k = cut; k > cut / 2 && text[k] != ' '; k--)
			;
		if (k > cut / 2)
			cut = k;
		while (cut && ((unsigned char)text[cut] & 0xc0) == 0x80)
			cut--;
		kb_buf_add(&b, text, cut);
		kb_buf_adds(&b, "...");
		text = b.buf;
	}
	if (tooltip) {
		kb_buf_adds(&s->front, "><title>");
		kb_svg_escape(&s->front, tooltip);
		kb_buf_adds(&s->front, "</title>");
	} else {
		kb_buf_addch(&s->front, '>');
	}
	kb_svg_escape(&s->front, text);
	kb_buf_adds(&s->front, "</text>\n");
	kb_buf_release(&b);
	return 0;
}

/* ---- short labels ----------------------------------------------------- */

/* The words of a label: split at spaces outside double quotes. */
struct words {
	size_t n;
	char **w;
};

static void split_words(const char *s, struct words *out)
{
	const char *p = s ? s : "", *start;
	int quoted;

	memset(out, 0, sizeof(*out));
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		start = p;
		for (quoted = 0; *p && (quoted || *p != ' '); p++)
			if (*p == '"' && (p == start || p[-1] != '\\'))
				quoted = !quoted;
		out->w = kb_realloc(out->w, (out->n + 1) * sizeof(*out->w));
		out->w[out->n++] = kb_strndup(start, (size_t)(p - start));
	}
}

static void free_words(struct words *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
}

static int has_word(const struct words *ws, const char *w)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i], w))
			return 1;
	return 0;
}

static int by_string(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* No two of @l[0..n) alike. */
static int distinct(char **l, size_t n)
{
	char **c = kb_calloc(n ? n : 1, sizeof(*c));
	size_t i;
	int ok = 1;

	memcpy(c, l, n * sizeof(*c));
	qsort(c, n, sizeof(*c), by_string);
	for (i = 1; ok && i < n; i++)
		ok = strcmp(c[i - 1], c[i]) != 0;
	free(c);
	return ok;
}

/* Labels @l[0..n) that tell the rows apart, none left empty that was
 * not (in @orig). */
static int usable(char **l, char **orig, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!*l[i] && *orig[i])
			return 0;
	return distinct(l, n);
}

static size_t longest(char **l, size_t n)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (strlen(l[i]) > m)
			m = strlen(l[i]);
	return m;
}

static void free_form(char **l, size_t n)
{
	size_t i;

	for (i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

/* The words of @ws that @keep (NULL: all), joined by spaces. */
static char *join_words(const struct words *ws, const unsigned char *keep)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	kb_buf_adds(&b, "");
	for (i = 0; i < ws->n; i++) {
		if (keep && !keep[i])
			continue;
		if (b.len)
			kb_buf_addch(&b, ' ');
		kb_buf_adds(&b, ws->w[i]);
	}
	return kb_buf_detach(&b);
}

/* As many leading words of @s as fit in @room with " +K more" for the
 * K left out; the first word always. */
static char *fit_words(const char *s, size_t room)
{
	struct kb_buf b = KB_BUF_INIT;
	struct words ws;
	char more[32];
	size_t j, len;

	split_words(s, &ws);
	kb_buf_adds(&b, "");
	for (j = 0, len = 0; j < ws.n; j++) {
		size_t add = (j ? 1 : 0) + strlen(ws.w[j]);

		snprintf(more, sizeof(more), " +%zu more", ws.n - j - 1);
		if (j && len + add + (j + 1 < ws.n ? strlen(more) : 0) > room)
			break;
		len += add;
	}
	for (size_t k = 0; k < j; k++) {
		if (k)
			kb_buf_addch(&b, ' ');
		kb_buf_adds(&b, ws.w[k]);
	}
	if (j < ws.n)
		kb_buf_addf(&b, " +%zu more", ws.n - j);
	free_words(&ws);
	return kb_buf_detach(&b);
}

void kb_svg_short_labels(const char *const *labels, size_t n, size_t room,
			 size_t base, const char *base_text, char **out)
{
	struct words *ws = kb_calloc(n ? n : 1, sizeof(*ws)), common;
	unsigned char *keep;
	char **form[4] = { NULL, NULL, NULL, NULL }, **pick = NULL;
	size_t i, k, f, nforms = 0, last = 0;

	for (i = 0; i < n; i++)
		split_words(labels[i], &ws[i]);
	/* 1. as they are */
	form[nforms] = kb_calloc(n ? n : 1, sizeof(char *));
	for (i = 0; i < n; i++)
		form[nforms][i] = kb_strdup(labels[i] ? labels[i] : "");
	nforms++;
	/* 2. without the words every label has: those of the first that
	 * all the others have too */
	memset(&common, 0, sizeof(common));
	for (k = 0; n && k < ws[0].n; k++) {
		size_t j;

		for (j = 1; j < n && has_word(&ws[j], ws[0].w[k]); j++)
			;
		if (j == n) {
			common.w = kb_realloc(common.w, (common.n + 1) *
							sizeof(*common.w));
			common.w[common.n++] = kb_strdup(ws[0].w[k]);
		}
	}
	form[nforms] = kb_calloc(n ? n : 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		keep = kb_calloc(ws[i].n + 1, 1);
		for (k = 0; k < ws[i].n; k++)
			keep[k] = !has_word(&common, ws[i].w[k]);
		form[nforms][i] = join_words(&ws[i], keep);
		free(keep);
	}
	free_words(&common);
	nforms++;
	/* 3. only where each differs from the base */
	if (base < n) {
		form[nforms] = kb_calloc(n, sizeof(char *));
		for (i = 0; i < n; i++) {
			if (i == base) {
				form[nforms][i] = kb_strdup(
					base_text ? base_text
						  : form[0][base]);
				continue;
			}
			keep = kb_calloc(ws[i].n + 1, 1);
			for (k = 0; k < ws[i].n; k++)
				keep[k] = !has_word(&ws[base], ws[i].w[k]);
			form[nforms][i] = join_words(&ws[i], keep);
			free(keep);
		}
		nforms++;
	}
	for (f = 0; f < nforms; f++) {
		if (!usable(form[f], form[0], n))
			continue;
		last = f;
		if (longest(form[f], n) <= room) {
			pick = form[f];
			break;
		}
	}
	/* 4. the words of the last distinct form that fit */
	if (!pick) {
		form[nforms] = kb_calloc(n ? n : 1, sizeof(char *));
		for (i = 0; i < n; i++)
			form[nforms][i] = fit_words(form[last][i], room);
		pick = usable(form[nforms], form[0], n) ? form[nforms]
							 : form[last];
		nforms++;
	}
	for (i = 0; i < n; i++) {
		out[i] = pick[i];
		pick[i] = NULL;
	}
	for (f = 0; f < nforms; f++)
		free_form(form[f], n);
	for (i = 0; i < n; i++)
		free_words(&ws[i]);
	free(ws);
}

int kb_svg_point(struct kb_svg *s, size_t row, double v, double dy, double r,
		 const char *cls, const char *tooltip, struct kb_err *err)
{
	int ret;

	if ((ret = check_row(s, row, err)) ||
	    (ret = check_value(s, v, "a point", err)))
		return ret;
	if (!isfinite(dy) || !isfinite(r) || r <= 0)
		return kb_err_set(err, KB_EINPUT,
				  "a point of radius %g moved by %g", r, dy);
	kb_buf_addf(&s->front, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"",
		    clamp_x(s, v), row_y(s, row) + dy, r);
	add_class(&s->front, "point", cls);
	close_el(&s->front, "circle", tooltip);
	return 0;
}

int kb_svg_mark(struct kb_svg *s, size_t row, double v, const char *cls,
		const char *tooltip, struct kb_err *err)
{
	double x, y, h;
	int ret;

	if ((ret = check_row(s, row, err)) ||
	    (ret = check_value(s, v, "a mark", err)))
		return ret;
	x = clamp_x(s, v);
	y = row_y(s, row);
	h = s->row_h * 0.4;
	kb_buf_addf(&s->front,
		    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
		    x, y - h, x, y + h);
	add_class(&s->front, "mark", cls);
	close_el(&s->front, "line", tooltip);
	return 0;
}

int kb_svg_interval(struct kb_svg *s, size_t row, double lo, double hi,
		    const char *cls, const char *tooltip, struct kb_err *err)
{
	double x0, x1, y, h;
	int ret;

	if ((ret = check_row(s, row, err)) ||
	    (ret = check_value(s, lo, "an interval", err)) ||
	    (ret = check_value(s, hi, "an interval", err)))
		return ret;
	if (lo > hi)
		return kb_err_set(err, KB_EINPUT,
				  "an interval from %g to %g: its ends are not in order",
				  lo, hi);
	x0 = clamp_x(s, lo);
	x1 = clamp_x(s, hi);
	y = row_y(s, row);
	h = s->row_h * 0.2;
	kb_buf_adds(&s->front, "<g");
	add_class(&s->front, "interval", cls);
	kb_buf_adds(&s->front, ">");
	if (tooltip) {
		kb_buf_adds(&s->front, "<title>");
		kb_svg_escape(&s->front, tooltip);
		kb_buf_adds(&s->front, "</title>");
	}
	kb_buf_addf(&s->front,
		    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
		    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
		    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
		    "</g>\n",
		    x0, y, x1, y, x0, y - h, x0, y + h, x1, y - h, x1, y + h);
	return 0;
}

/* A label at the top of the plot area, at @x. */
static void top_label(struct kb_svg *s, double x, const char *label)
{
	if (!label)
		return;
	kb_buf_addf(&s->back,
		    "<text class=\"label top\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">",
		    x, TOP - 8);
	kb_svg_escape(&s->back, label);
	kb_buf_adds(&s->back, "</text>\n");
}

int kb_svg_band(struct kb_svg *s, double lo, double hi, const char *cls,
		const char *label, struct kb_err *err)
{
	double x0, x1;
	int ret;

	if ((ret = check_value(s, lo, "a band", err)) ||
	    (ret = check_value(s, hi, "a band", err)))
		return ret;
	if (lo > hi)
		return kb_err_set(err, KB_EINPUT,
				  "a band from %g to %g: its ends are not in order",
				  lo, hi);
	x0 = clamp_x(s, lo);
	x1 = clamp_x(s, hi);
	kb_buf_addf(&s->back,
		    "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%.2f\"",
		    x0, TOP, fmax(x1 - x0, 1), (double)s->nrows * s->row_h);
	add_class(&s->back, "band", cls);
	close_el(&s->back, "rect", NULL);
	top_label(s, (x0 + x1) / 2, label);
	return 0;
}

int kb_svg_line(struct kb_svg *s, double v, const char *cls,
		const char *label, struct kb_err *err)
{
	double x;
	int ret;

	if ((ret = check_value(s, v, "a line", err)))
		return ret;
	x = clamp_x(s, v);
	kb_buf_addf(&s->back,
		    "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\"", x,
		    TOP, x, TOP + (double)s->nrows * s->row_h);
	add_class(&s->back, "line", cls);
	close_el(&s->back, "line", NULL);
	top_label(s, x, label);
	return 0;
}

/* ---- a scatter -------------------------------------------------------- */

/* @y's height in an x-y chart, kept inside the plot area. */
static double py(const struct kb_svg *s, double y)
{
	double f = kb_svg_axis_frac(&s->y, y);

	return TOP + (1 - fmin(fmax(f, 0), 1)) * s->plot_h;
}

/* Refuse (@x, @y) where it cannot be drawn in x-y chart @s. */
static int check_xy(const struct kb_svg *s, double x, double y,
		    const char *what, struct kb_err *err)
{
	int ret;

	if (!s->xy)
		return kb_err_set(err, KB_EINPUT,
				  "%s at (%g, %g) on a row chart", what, x, y);
	if ((ret = check_value(s, x, what, err)))
		return ret;
	if (!kb_svg_axis_takes(&s->y, y))
		return kb_err_set(err, KB_EINPUT,
				  "%s of '%s' at %g: not a finite number%s",
				  what, s->y_label ? s->y_label : "?", y,
				  s->y.log     ? " above 0, on a log axis"
				  : s->y.ratio ? " above -100, on a log-ratio axis"
					       : "");
	return 0;
}

int kb_svg_xy_begin(struct kb_buf *out, const struct kb_svg_xy_opts *o,
		    const struct kb_svg_axis *x, const struct kb_svg_axis *y,
		    struct kb_svg **svg, struct kb_err *err)
{
	struct kb_svg_rows_opts ro = KB_SVG_ROWS_OPTS_INIT;
	struct kb_svg *s;
	int ret;

	*svg = NULL;
	if (o->height < 0 || !isfinite(o->height) || o->height > 10000)
		return kb_err_set(err, KB_EINPUT,
				  "chart '%s': a size is out of range",
				  o->id ? o->id : "?");
	if (!(y->lo < y->hi) || !y->nticks || (y->log && y->lo <= 0) ||
	    (y->ratio && !(y->lo > -100)))
		return kb_err_set(err, KB_EINPUT,
				  "chart '%s': its y axis is not one (make it with kb_svg_axis_*())",
				  o->id ? o->id : "?");
	ro.id = o->id;
	ro.title = o->title;
	ro.x_label = o->x_label;
	ro.width = o->width;
	/* the y ticks and the y axis's name; "-99.5% (200x)" on a
	 * log-ratio axis */
	ro.label_width = y->ratio ? 100 : 70;
	ro.row_height = o->height ? o->height : 260;
	ro.nrows = 1;
	if ((ret = kb_svg_rows_begin(out, &ro, x, &s, err)))
		return ret;
	s->xy = 1;
	s->y = *y;
	s->y_label = o->y_label ? kb_strdup(o->y_label) : NULL;
	s->plot_h = s->row_h;
	*svg = s;
	return 0;
}

int kb_svg_xy_point(struct kb_svg *s, double x, double y, double r,
		    const char *cls, const char *tooltip, struct kb_err *err)
{
	int ret;

	if ((ret = check_xy(s, x, y, "a point", err)))
		return ret;
	if (!isfinite(r) || r <= 0)
		return kb_err_set(err, KB_EINPUT, "a point of radius %g", r);
	kb_buf_addf(&s->front, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"",
		    clamp_x(s, x), py(s, y), r);
	add_class(&s->front, "point", cls);
	close_el(&s->front, "circle", tooltip);
	return 0;
}

int kb_svg_xy_segment(struct kb_svg *s, double x0, double y0, double x1,
		      double y1, const char *cls, const char *tooltip,
		      struct kb_err *err)
{
	int ret;

	if ((ret = check_xy(s, x0, y0, "a segment", err)) ||
	    (ret = check_xy(s, x1, y1, "a segment", err)))
		return ret;
	kb_buf_addf(&s->back,
		    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
		    clamp_x(s, x0), py(s, y0), clamp_x(s, x1), py(s, y1));
	add_class(&s->back, "line", cls);
	close_el(&s->back, "line", tooltip);
	return 0;
}

/* The y axis of x-y chart @s: its line, ticks, labels and name. */
static void y_axis(const struct kb_svg *s, struct kb_buf *o)
{
	char label[64];
	double y;
	size_t i;

	kb_buf_addf(o,
		    "<g class=\"axis y\"><line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    s->label_w, TOP, s->label_w, TOP + s->plot_h);
	for (i = 0; i < s->y.nticks; i++) {
		y = py(s, s->y.ticks[i]);
		kb_svg_tick_label(&s->y, s->y.ticks[i], label, sizeof(label));
		kb_buf_addf(o,
			    "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
			    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" dominant-baseline=\"middle\">",
			    s->label_w - 5, y, s->label_w, y, s->label_w - 8, y);
		kb_svg_escape(o, label);
		kb_buf_adds(o, "</text>\n");
	}
	if (s->y_label) {
		kb_buf_addf(o,
			    "<text class=\"label axis-label\" transform=\"translate(14 %.2f) rotate(-90)\" text-anchor=\"middle\">",
			    TOP + s->plot_h / 2);
		kb_svg_escape(o, s->y_label);
		if (s->y.log)
			kb_buf_adds(o, " (log scale)");
		else if (s->y.ratio)
			kb_buf_adds(o, " (log-ratio scale)");
		kb_buf_adds(o, "</text>\n");
	}
	kb_buf_adds(o, "</g>\n");
}

void kb_svg_rows_end(struct kb_svg *s)
{
	double bottom = TOP + (double)s->nrows * s->row_h, x;
	struct kb_buf *o = s->out;
	char label[64];
	size_t i;

	/* grid behind everything, then bands and lines, then the data */
	kb_buf_adds(o, "<g class=\"grid\">");
	for (i = 0; i < s->x.nticks; i++) {
		x = px(s, s->x.ticks[i]);
		kb_buf_addf(o,
			    "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\"/>",
			    x, TOP, x, bottom);
	}
	for (i = 0; s->xy && i < s->y.nticks; i++)
		kb_buf_addf(o,
			    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>",
			    s->label_w, py(s, s->y.ticks[i]),
			    s->label_w + s->plot_w, py(s, s->y.ticks[i]));
	kb_buf_adds(o, "</g>\n");
	kb_buf_add(o, s->back.buf, s->back.len);
	kb_buf_add(o, s->front.buf, s->front.len);
	if (s->xy)
		y_axis(s, o);
	kb_buf_addf(o,
		    "<g class=\"axis\"><line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    s->label_w, bottom, s->label_w + s->plot_w, bottom);
	for (i = 0; i < s->x.nticks; i++) {
		x = px(s, s->x.ticks[i]);
		kb_buf_addf(o,
			    "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
			    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
			    x, bottom, x, bottom + 5, x, bottom + 18);
		if (s->x.ratio) {
			/* the change, and its factor under it: two short
			 * lines where one long one would run into the next */
			char fold[24];

			ratio_label(&s->x, s->x.ticks[i], label,
				    sizeof(label), fold, sizeof(fold));
			kb_svg_escape(o, label);
			if (*fold) {
				kb_buf_addf(o,
					    "<tspan class=\"fold\" x=\"%.2f\" dy=\"%d\"> (",
					    x, FOLD_LINE);
				kb_svg_escape(o, fold);
				kb_buf_adds(o, ")</tspan>");
			}
		} else {
			kb_svg_tick_label(&s->x, s->x.ticks[i], label,
					  sizeof(label));
			kb_svg_escape(o, label);
		}
		kb_buf_adds(o, "</text>\n");
	}
	if (s->x_label) {
		kb_buf_addf(o,
			    "<text class=\"label axis-label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
			    s->label_w + s->plot_w / 2,
			    bottom + s->bottom_room - 8);
		kb_svg_escape(o, s->x_label);
		if (s->x.log)
			kb_buf_adds(o, " (log scale)");
		else if (s->x.ratio)
			kb_buf_adds(o, " (log-ratio scale)");
		kb_buf_adds(o, "</text>\n");
	}
	kb_buf_adds(o, "</g>\n</svg>\n");
	kb_svg_free(s);
}

void kb_svg_free(struct kb_svg *s)
{
	if (!s)
		return;
	kb_buf_release(&s->back);
	kb_buf_release(&s->front);
	free(s->x_label);
	free(s->y_label);
	free(s);
}
