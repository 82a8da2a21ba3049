#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include "buf.h"
#include "err.h"
#include "svg.h"

/* How many times @needle occurs in @hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static void assert_ticks(const struct kb_svg_axis *a, const double *want,
			 size_t n)
{
	size_t i;

	if (a->nticks != n)
		fail_msg("%zu ticks from %g to %g, expected %zu", a->nticks,
			 a->lo, a->hi, n);
	for (i = 0; i < n; i++)
		if (fabs(a->ticks[i] - want[i]) > 1e-9 * fmax(1, fabs(want[i])))
			fail_msg("tick %zu is %.17g, expected %g", i,
				 a->ticks[i], want[i]);
}

static void test_svg__linear_ticks_are_nice_numbers(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;
	const double t1[] = { 0, 20, 40, 60, 80, 100 };
	const double t2[] = { -100, -80, -60, -40, -20, 0, 20 };
	const double t3[] = { 0.1, 0.15, 0.2, 0.25, 0.3, 0.35 };

	(void)state;
	assert_int_equal(kb_svg_axis_linear(3, 97, 6, &a, &err), 0);
	assert_ticks(&a, t1, 6);
	assert_true(a.lo == 0 && a.hi == 100 && a.step == 20 && !a.log);
	/* a forest plot's percentages, across zero: an exact 0 tick */
	assert_int_equal(kb_svg_axis_linear(-97.7, 12.3, 6, &a, &err), 0);
	assert_ticks(&a, t2, 7);
	assert_true(a.ticks[5] == 0 && !signbit(a.ticks[5]));
	assert_int_equal(kb_svg_axis_linear(0.11, 0.34, 6, &a, &err), 0);
	assert_ticks(&a, t3, 6);
}

static void test_svg__log_ticks_span_the_data(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;
	const double t1[] = { 2000, 5000, 10000, 20000, 50000, 100000, 200000 };
	const double t2[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	double v[] = { 3480.76, 534771, 12137.8 };

	(void)state;
	/* two decades: every 1-2-5 number */
	assert_int_equal(kb_svg_axis_log(3000, 150000, &a, &err), 0);
	assert_ticks(&a, t1, 7);
	assert_true(a.log && a.lo == 2000 && a.hi == 200000);
	/* more: powers of ten */
	assert_int_equal(kb_svg_axis_log(1, 999999, &a, &err), 0);
	assert_ticks(&a, t2, 7);
	/* the seed-000 boot means span two decades: log; 3 to 5 do not */
	assert_int_equal(kb_svg_axis_auto(v, 3, 1, &a, &err), 0);
	assert_true(a.log && a.lo <= 3480.76 && a.hi >= 534771);
	v[0] = 3;
	v[1] = 5;
	v[2] = 4;
	assert_int_equal(kb_svg_axis_auto(v, 3, 1, &a, &err), 0);
	assert_false(a.log);
	assert_true(a.lo <= 3 && a.hi >= 5);
}

static void test_svg__scale_maps_the_domain_to_zero_one(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;

	(void)state;
	assert_int_equal(kb_svg_axis_linear(0, 100, 6, &a, &err), 0);
	assert_true(kb_svg_axis_frac(&a, 0) == 0);
	assert_true(kb_svg_axis_frac(&a, 100) == 1);
	assert_true(fabs(kb_svg_axis_frac(&a, 25) - 0.25) < 1e-12);
	assert_true(isnan(kb_svg_axis_frac(&a, NAN)));
	assert_int_equal(kb_svg_axis_log(10, 1000, &a, &err), 0);
	assert_true(fabs(kb_svg_axis_frac(&a, 100) - 0.5) < 1e-12);
	assert_true(isnan(kb_svg_axis_frac(&a, 0)));
	assert_true(isnan(kb_svg_axis_frac(&a, -5)));
}

static void test_svg__tick_labels_say_as_much_as_the_step(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;
	char l[64];

	(void)state;
	assert_int_equal(kb_svg_axis_linear(0.11, 0.34, 6, &a, &err), 0);
	kb_svg_tick_label(&a, a.ticks[1], l, sizeof(l));
	assert_string_equal(l, "0.15");
	assert_int_equal(kb_svg_axis_linear(0, 600000, 6, &a, &err), 0);
	kb_svg_tick_label(&a, 200000, l, sizeof(l));
	assert_string_equal(l, "200k");
	assert_int_equal(kb_svg_axis_linear(0, 3e6, 6, &a, &err), 0);
	kb_svg_tick_label(&a, 1.5e6, l, sizeof(l));
	assert_string_equal(l, "1.5M");
	assert_int_equal(kb_svg_axis_linear(-97.7, 12.3, 6, &a, &err), 0);
	kb_svg_tick_label(&a, a.ticks[5], l, sizeof(l));
	assert_string_equal(l, "0");
	kb_svg_tick_label(&a, a.ticks[0], l, sizeof(l));
	assert_string_equal(l, "-100");
	assert_int_equal(kb_svg_axis_log(3000, 150000, &a, &err), 0);
	kb_svg_tick_label(&a, 5000, l, sizeof(l));
	assert_string_equal(l, "5k");
}

static void test_svg__escaping_keeps_markup_and_controls_out(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_svg_escape(&b, "<script>alert(\"x\" & 'y')</script>");
	assert_string_equal(b.buf,
			    "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
	kb_buf_reset(&b);
	/* ESC, CR and a C1 control shown, tab and newline kept, UTF-8
	 * kept, a stray byte replaced */
	kb_svg_escape(&b, "a\x1b[31m\r\tb\nc \xc2\x9b \xc3\xa9 \xff.");
	assert_string_equal(b.buf,
			    "a\\x1b[31m\\r\tb\nc \\u009b \xc3\xa9 &#xfffd;.");
	kb_buf_reset(&b);
	kb_svg_escape(&b, NULL);
	assert_int_equal(b.len, 0);
	/* a sequence cut short at the end of the text */
	kb_svg_escape(&b, "x\xe2\x82");
	assert_string_equal(b.buf, "x&#xfffd;&#xfffd;");
	kb_buf_release(&b);
}

static void test_svg__empty_data_draws_a_whole_chart(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;

	(void)state;
	assert_int_equal(kb_svg_axis_auto(NULL, 0, 1, &a, &err), 0);
	assert_true(a.lo == 0 && a.hi == 1);
	o.id = "empty";
	o.title = "nothing <yet>";
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	kb_svg_rows_end(s);
	assert_non_null(strstr(b.buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"empty\""));
	assert_non_null(strstr(b.buf, "<title>nothing &lt;yet&gt;</title>"));
	assert_int_equal(count(b.buf, "<circle"), 0);
	assert_int_equal(count(b.buf, "<svg"), 1);
	assert_int_equal(count(b.buf, "</svg>"), 1);
	assert_true(count(b.buf, "<text class=\"tick\"") == a.nticks);
	kb_buf_release(&b);
}

static void test_svg__one_point_gets_an_axis_around_it(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;
	double v = 42, cx;
	const char *c;

	(void)state;
	assert_int_equal(kb_svg_axis_auto(&v, 1, 1, &a, &err), 0);
	assert_true(a.lo < 42 && a.hi > 42);
	o.id = "one";
	o.nrows = 1;
	o.width = 500;
	o.label_width = 100;
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_row_label(s, 0, "#0 base", "the baseline",
					  &err), 0);
	assert_int_equal(kb_svg_point(s, 0, 42, 0, 3, "boot", "42 <ok>",
				      &err), 0);
	assert_int_equal(kb_svg_mark(s, 0, 42, "mean", NULL, &err), 0);
	kb_svg_rows_end(s);
	c = strstr(b.buf, "<circle cx=\"");
	assert_non_null(c);
	cx = strtod(c + strlen("<circle cx=\""), NULL);
	/* 100 px of labels, 376 px of plot (24 px right) */
	assert_true(fabs(cx - (100 + kb_svg_axis_frac(&a, 42) * 376)) < 0.01);
	assert_non_null(strstr(b.buf, "class=\"point boot\"><title>42 &lt;ok&gt;</title></circle>"));
	assert_non_null(strstr(b.buf, "class=\"mark mean\"/>"));
	assert_non_null(strstr(b.buf, ">#0 base</text>"));
	kb_buf_release(&b);
}

static void test_svg__nan_and_infinity_are_refused(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;
	size_t len;

	(void)state;
	assert_int_equal(kb_svg_axis_linear(NAN, 1, 6, &a, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "finite");
	kb_err_clear(&err);
	assert_int_equal(kb_svg_axis_linear(0, INFINITY, 6, &a, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_axis_linear(2, 1, 6, &a, &err), KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_axis_log(0, 10, &a, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "positive");
	kb_err_clear(&err);
	assert_int_equal(kb_svg_axis_log(1, INFINITY, &a, &err), KB_EINPUT);
	kb_err_clear(&err);

	assert_int_equal(kb_svg_axis_linear(-10, 10, 6, &a, &err), 0);
	o.id = "forest";
	o.nrows = 2;
	o.x_label = "change %";
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_line(s, 0, "zero", "0", &err), 0);
	len = b.len;
	assert_int_equal(kb_svg_point(s, 0, NAN, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "a point of 'change %' at nan");
	kb_err_clear(&err);
	assert_int_equal(kb_svg_interval(s, 1, -1, INFINITY, NULL, NULL, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_mark(s, 1, -INFINITY, NULL, NULL, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_band(s, NAN, 1, NULL, NULL, &err), KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_interval(s, 0, 3, -3, NULL, NULL, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_point(s, 2, 1, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "row 2 of a chart of 2 rows");
	kb_err_clear(&err);
	assert_int_equal(kb_svg_interval(s, 0, -3, 3, "ci", "[-3, 3]", &err),
			 0);
	assert_int_equal(b.len, len); /* drawn at the end, and only once */
	kb_svg_rows_end(s);
	assert_int_equal(count(b.buf, "<circle"), 0);
	assert_int_equal(count(b.buf, "class=\"interval ci\""), 1);
	assert_int_equal(count(b.buf, "class=\"line zero\""), 1);
	assert_int_equal(count(b.buf, "nan"), 0);
	assert_int_equal(count(b.buf, "inf"), 0);
	kb_buf_release(&b);
}

static void test_svg__log_chart_refuses_what_is_not_positive(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;

	(void)state;
	assert_int_equal(kb_svg_axis_log(10, 1000, &a, &err), 0);
	o.id = "log";
	o.nrows = 1;
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_point(s, 0, 0, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "not positive, on a log axis");
	kb_svg_rows_end(s);
	kb_buf_release(&b);
}

static void test_svg__long_labels_are_cut_on_a_character(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;
	char label[200];
	size_t i;

	(void)state;
	/* "é" is two bytes: a cut must not fall between them */
	for (i = 0; i + 2 < sizeof(label); i += 2)
		memcpy(label + i, "\xc3\xa9", 2);
	label[i] = 0;
	assert_int_equal(kb_svg_axis_linear(0, 1, 6, &a, &err), 0);
	o.id = "cut";
	o.nrows = 1;
	o.label_width = 100;
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_row_label(s, 0, label, label, &err), 0);
	kb_svg_rows_end(s);
	assert_non_null(strstr(b.buf, "...</text>"));
	assert_null(strstr(b.buf, "&#xfffd;"));
	assert_non_null(strstr(b.buf, label)); /* whole in the tooltip */
	kb_buf_release(&b);
}

static void test_svg__long_labels_are_cut_after_a_word(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;

	(void)state;
	assert_int_equal(kb_svg_axis_linear(0, 1, 6, &a, &err), 0);
	o.id = "cut";
	o.nrows = 1;
	o.label_width = 12 + 8 * 20; /* room for 20 characters */
	assert_int_equal(kb_svg_label_room(o.label_width), 20);
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_row_label(s, 0, "ALPHA=y BETA=y GAMMA_DELTA=y",
					  NULL, &err),
			 0);
	kb_svg_rows_end(s);
	assert_non_null(strstr(b.buf, ">ALPHA=y BETA=y...</text>"));
	kb_buf_release(&b);
}

static void test_svg__a_chart_needs_an_id_and_an_axis(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;

	(void)state;
	memset(&a, 0, sizeof(a));
	o.id = "x";
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), KB_EINPUT);
	assert_null(s);
	kb_err_clear(&err);
	assert_int_equal(kb_svg_axis_linear(0, 1, 6, &a, &err), 0);
	o.id = NULL;
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), KB_EINPUT);
	assert_null(s);
	assert_int_equal(b.len, 0);
	kb_svg_free(NULL);
}

/* An x-y chart: points where their two values put them, a segment
 * behind them, both axes with their names; no rows, and what cannot be
 * drawn refused */
static void test_svg__xy_chart_places_points_on_two_axes(void **state)
{
	struct kb_svg_xy_opts o = KB_SVG_XY_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis x, y;
	struct kb_svg *s = NULL;
	const char *seg, *pt;

	(void)state;
	assert_int_equal(kb_svg_axis_linear(1, 20, 6, &x, &err), 0);
	assert_int_equal(kb_svg_axis_linear(-10, 10, 5, &y, &err), 0);
	o.id = "drift";
	o.title = "residuals";
	o.x_label = "boot";
	o.y_label = "residual, %";
	o.width = 600;
	o.height = 200;
	assert_int_equal(kb_svg_xy_begin(&b, &o, &x, &y, &s, &err), 0);
	assert_int_equal(kb_svg_xy_point(s, 0, 10, 3, "a", "first", &err), 0);
	assert_int_equal(kb_svg_xy_point(s, 20, -10, 3, NULL, NULL, &err), 0);
	assert_int_equal(kb_svg_xy_segment(s, 0, 5, 20, -5, "fit", NULL, &err),
			 0);
	assert_int_equal(kb_svg_xy_point(s, NAN, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_int_equal(kb_svg_xy_point(s, 1, INFINITY, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_int_equal(kb_svg_point(s, 0, 1, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	kb_svg_rows_end(s);
	/* x 0..20 over 70..576 px, y 10..-10 over 26..226 px */
	assert_non_null(strstr(b.buf, "<circle cx=\"70.00\" cy=\"26.00\" r=\"3.0\" class=\"point a\"><title>first</title>"));
	assert_non_null(strstr(b.buf, "<circle cx=\"576.00\" cy=\"226.00\""));
	seg = strstr(b.buf, "<line x1=\"70.00\" y1=\"76.00\" x2=\"576.00\" y2=\"176.00\" class=\"line fit\"/>");
	pt = strstr(b.buf, "<circle");
	assert_non_null(seg);
	assert_true(seg < pt); /* behind the points */
	assert_int_equal(count(b.buf, "<circle"), 2);
	assert_non_null(strstr(b.buf, "<g class=\"axis y\">"));
	assert_non_null(strstr(b.buf, "rotate(-90)\" text-anchor=\"middle\">residual, %</text>"));
	assert_non_null(strstr(b.buf, ">boot</text>"));
	assert_non_null(strstr(b.buf, "</svg>"));
	kb_buf_release(&b);
}

/* A tick's label on axis @a. */
static const char *tick(const struct kb_svg_axis *a, double v)
{
	static char buf[64];

	kb_svg_tick_label(a, v, buf, sizeof(buf));
	return buf;
}

static void test_svg__ratio_axis_spreads_large_drops_apart(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;
	/* the seed-000 effects: -89%, -94% and -99% are 9x, 17x and 150x,
	 * +204% is 3x */
	const double v[] = { -89.2, -94.1, -99.3, 204 };
	const double t[] = { -99.5, -99, -98, -95, -90, -80, -50, 0, 100, 400 };
	double f89, f94, f99, f0, f204;

	(void)state;
	assert_int_equal(kb_svg_axis_ratio(v, 4, &a, &err), 0);
	assert_true(a.ratio && !a.log);
	assert_ticks(&a, t, 10);
	f89 = kb_svg_axis_frac(&a, -89.2);
	f94 = kb_svg_axis_frac(&a, -94.1);
	f99 = kb_svg_axis_frac(&a, -99.3);
	f0 = kb_svg_axis_frac(&a, 0);
	f204 = kb_svg_axis_frac(&a, 204);
	/* on a linear axis from -100% to +250% the three drops lie within
	 * 3% of its width and +204% is the farthest from 0; here the drop
	 * of 150x lies more than twice as far from 0 as +204% */
	assert_true(f89 - f99 > 0.15);
	assert_true(f94 - f99 > 0.1);
	assert_true(f0 - f99 > 2 * (f204 - f0));
	/* halving and doubling: as far from 0 either way */
	assert_int_equal(kb_svg_axis_ratio((double[]){ -50, 100 }, 2, &a, &err),
			 0);
	assert_true(fabs((kb_svg_axis_frac(&a, 0) - kb_svg_axis_frac(&a, -50)) -
			 (kb_svg_axis_frac(&a, 100) - kb_svg_axis_frac(&a, 0))) <
		    1e-9);
}

static void test_svg__ratio_ticks_say_percent_and_factor(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_svg_axis a;
	const double v[] = { -99, 900 };
	const double t[] = { -99, -98, -95, -90, -80, -50, 0, 100, 400, 900 };
	const double narrow[] = { -12.3, 4.1 };
	const double tn[] = { -15, -10, -5, 0, 5 };

	(void)state;
	assert_int_equal(kb_svg_axis_ratio(v, 2, &a, &err), 0);
	assert_ticks(&a, t, 10);
	assert_string_equal(tick(&a, -99), "-99% (100x)");
	assert_string_equal(tick(&a, -90), "-90% (10x)");
	assert_string_equal(tick(&a, -50), "-50% (2x)");
	assert_string_equal(tick(&a, 0), "0");
	assert_string_equal(tick(&a, 100), "+100% (2x)");
	assert_string_equal(tick(&a, 900), "+900% (10x)");
	/* within a factor of 3: steps of percent, a factor from 2x on */
	assert_int_equal(kb_svg_axis_ratio(narrow, 2, &a, &err), 0);
	assert_true(a.ratio && a.step == 5);
	assert_ticks(&a, tn, 5);
	assert_string_equal(tick(&a, -5), "-5%");
	assert_string_equal(tick(&a, 5), "+5%");
	assert_int_equal(kb_svg_axis_ratio((double[]){ -60, 10 }, 2, &a, &err),
			 0);
	assert_string_equal(tick(&a, -60), "-60% (2.5x)");
	/* what cannot be drawn is left out of the axis, and refused */
	assert_int_equal(kb_svg_axis_ratio((double[]){ -100, NAN, 3 }, 3, &a,
					   &err),
			 0);
	assert_true(a.lo > -100 && a.lo <= 0 && a.hi >= 3);
	assert_false(kb_svg_axis_takes(&a, -100));
	assert_true(kb_svg_axis_takes(&a, -99.9));
	assert_true(isnan(kb_svg_axis_frac(&a, -100)));
}

static void test_svg__ratio_chart_writes_two_line_ticks(void **state)
{
	struct kb_svg_rows_opts o = KB_SVG_ROWS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf b = KB_BUF_INIT;
	struct kb_svg_axis a;
	struct kb_svg *s = NULL;

	(void)state;
	assert_int_equal(kb_svg_axis_ratio((double[]){ -90, 100 }, 2, &a, &err),
			 0);
	o.id = "r";
	o.x_label = "change";
	o.nrows = 1;
	assert_int_equal(kb_svg_rows_begin(&b, &o, &a, &s, &err), 0);
	assert_int_equal(kb_svg_point(s, 0, -100, 0, 3, NULL, NULL, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "not above -100%, on a log-ratio axis");
	assert_int_equal(kb_svg_point(s, 0, -89, 0, 3, NULL, NULL, &err), 0);
	kb_svg_rows_end(s);
	assert_non_null(strstr(b.buf, ">-90%<tspan class=\"fold\""));
	assert_non_null(strstr(b.buf, "> (10x)</tspan></text>"));
	assert_non_null(strstr(b.buf, ">0</text>"));
	assert_non_null(strstr(b.buf, ">change (log-ratio scale)</text>"));
	assert_int_equal(count(b.buf, "<circle"), 1);
	kb_buf_release(&b);
}

/* kb_svg_short_labels() of @l[0..n) into @out, checked against @want. */
static void assert_short(const char *const *l, size_t n, size_t room,
			 size_t base, const char *base_text,
			 const char *const *want)
{
	char *out[16];
	size_t i;

	assert_true(n <= 16);
	kb_svg_short_labels(l, n, room, base, base_text, out);
	for (i = 0; i < n; i++) {
		if (strcmp(out[i], want[i]))
			fail_msg("label %zu is \"%s\", expected \"%s\"", i,
				 out[i], want[i]);
		free(out[i]);
	}
}

static void test_svg__short_labels_keep_what_tells_rows_apart(void **state)
{
	/* the seed-000 2^3: cut at its end, every label would read
	 * "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KME..." for two
	 * variants */
	const char *const full[] = {
		"PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n",
		"PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=y",
		"PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n",
		"PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=y DEBUG_KMEMLEAK=y",
	};
	const char *const diff[] = {
		"baseline",
		"DEBUG_KMEMLEAK=y",
		"PARAVIRT_SPINLOCKS=y",
		"PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=y +1 more",
	};
	/* settings every variant shares are left out first */
	const char *const shared[] = {
		"VCPUS=4 A=n B=n", "VCPUS=4 A=n B=y", "VCPUS=4 A=y B=n",
	};
	const char *const unshared[] = { "A=n B=n", "A=n B=y", "A=y B=n" };
	/* a bisection's probes, sets that grow: whole words and a count;
	 * a quoted value is one word */
	const char *const probes[] = {
		"good",
		"BLK_DEV_LOOP=y CMDLINE=\"console=hvc0 quiet\" DEBUG_KERNEL=y DEBUG_KMEMLEAK=y",
		"BLK_DEV_LOOP=y CMDLINE=\"console=hvc0 quiet\" DEBUG_KERNEL=y",
		"BLK_DEV_LOOP=y",
	};
	const char *const counted[] = {
		"good",
		"BLK_DEV_LOOP=y +3 more",
		"BLK_DEV_LOOP=y +2 more",
		"BLK_DEV_LOOP=y",
	};
	/* no label is left empty: "A=n" shares all its words */
	const char *const sub[] = { "A=n", "A=n B=y" };
	const char *const subw[] = { "base", "B=y" };
	/* alike labels stay as they are: nothing tells them apart */
	const char *const same[] = { "A=n B=n", "A=n B=n" };

	(void)state;
	assert_short(full, 4, 60, 0, "baseline", full);
	assert_short(full, 4, 54, 0, "baseline", full);
	/* where each differs from the baseline; whole words and a count
	 * for what still does not fit */
	assert_short(full, 3, 25, 0, "baseline", diff);
	assert_short(full, 4, 53, 0, "baseline", diff);
	assert_short(shared, 3, 10, 0, "baseline", unshared);
	assert_short(probes, 4, 24, 4, NULL, counted);
	assert_short(sub, 2, 3, 0, "base", subw);
	assert_short(same, 2, 4, 0, "baseline", same);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_svg__xy_chart_places_points_on_two_axes),
	cmocka_unit_test(test_svg__linear_ticks_are_nice_numbers),
	cmocka_unit_test(test_svg__log_ticks_span_the_data),
	cmocka_unit_test(test_svg__scale_maps_the_domain_to_zero_one),
	cmocka_unit_test(test_svg__tick_labels_say_as_much_as_the_step),
	cmocka_unit_test(test_svg__escaping_keeps_markup_and_controls_out),
	cmocka_unit_test(test_svg__empty_data_draws_a_whole_chart),
	cmocka_unit_test(test_svg__one_point_gets_an_axis_around_it),
	cmocka_unit_test(test_svg__nan_and_infinity_are_refused),
	cmocka_unit_test(test_svg__log_chart_refuses_what_is_not_positive),
	cmocka_unit_test(test_svg__long_labels_are_cut_on_a_character),
	cmocka_unit_test(test_svg__a_chart_needs_an_id_and_an_axis),
	cmocka_unit_test(test_svg__ratio_axis_spreads_large_drops_apart),
	cmocka_unit_test(test_svg__ratio_ticks_say_percent_and_factor),
	cmocka_unit_test(test_svg__ratio_chart_writes_two_line_ticks),
	cmocka_unit_test(test_svg__short_labels_keep_what_tells_rows_apart),
	cmocka_unit_test(test_svg__long_labels_are_cut_after_a_word),
};

KB_TEST_MAIN(tests)
