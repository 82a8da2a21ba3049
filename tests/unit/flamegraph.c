#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "test.h"

#include "buf.h"
#include "err.h"
#include "flamegraph.h"
#include "profile.h"

#define DASH " \xe2\x80\x94 "

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

#define assert_has(hay, needle)                                        \
	do {                                                           \
		if (!strstr((hay), (needle)))                          \
			fail_msg("the SVG lacks \"%s\":\n%s", (needle), \
				 (hay));                               \
	} while (0)

/* The graph of @v[0..n) with options @o, checked to be well-formed XML. */
static void draw(const struct kb_flame_stack *v, size_t n,
		 const struct kb_flame_opts *o, struct kb_buf *out)
{
	struct kb_err err = KB_ERR_INIT;
	xmlDocPtr doc;

	kb_buf_reset(out);
	if (kb_flamegraph_svg(v, n, o, out, &err))
		fail_msg("kb_flamegraph_svg: %s", err.msg);
	doc = xmlReadMemory(out->buf, (int)out->len, "flame.svg", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	if (!doc)
		fail_msg("not well-formed XML:\n%s", out->buf);
	if (strcmp((const char *)xmlDocGetRootElement(doc)->name, "svg"))
		fail_msg("the root element is not <svg>");
	xmlFreeDoc(doc);
}

static void test_flamegraph__shared_prefix_is_one_frame_of_summed_width(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "main;g", .a = 0.2, .b = 0.2 },
		{ .stack = "other", .a = 0.5, .b = 0.5 },
		{ .stack = "main;f", .a = 0.3, .b = 0.3 },
	};
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	draw(v, 3, NULL, &out);
	/* 1200 px wide, 1180 to draw in; depth 2 at the top (y 46) */
	assert_int_equal(count(out.buf, "<title>main" DASH), 1);
	assert_has(out.buf, "<title>main" DASH "A 50.0%, B 50.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\" y=\"62.0\" width=\"590.00\"");
	assert_has(out.buf, "<title>f" DASH "A 30.0%, B 30.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\" y=\"46.0\" width=\"354.00\"");
	assert_has(out.buf, "<title>g" DASH "A 20.0%, B 20.0%, change 0.0 pts</title>"
			    "<rect x=\"364.00\" y=\"46.0\" width=\"236.00\"");
	assert_has(out.buf, "<title>other" DASH "A 50.0%, B 50.0%, change 0.0 pts</title>"
			    "<rect x=\"600.00\" y=\"62.0\" width=\"590.00\"");
	assert_has(out.buf, "<title>all" DASH "A 100.0%, B 100.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\" y=\"78.0\" width=\"1180.00\"");
	assert_int_equal(count(out.buf, "<g class=\"frame"), 5);
	assert_has(out.buf, "5 frames drawn</text>");
	kb_buf_release(&out);
}

static void test_flamegraph__own_samples_lie_right_of_the_children(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "main", .a = 0.5, .b = 0.5 },
		{ .stack = "main;f", .a = 0.5, .b = 0.5 },
	};
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	draw(v, 2, NULL, &out);
	assert_has(out.buf, "<title>main" DASH "A 100.0%, B 100.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\" y=\"62.0\" width=\"1180.00\"");
	assert_has(out.buf, "<title>f" DASH "A 50.0%, B 50.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\" y=\"46.0\" width=\"590.00\"");
	kb_buf_release(&out);
}

static void test_flamegraph__red_grew_blue_shrank_grey_unchanged(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "k;grows", .a = 0.1, .b = 0.4 },
		{ .stack = "k;shrinks", .a = 0.6, .b = 0.3 },
		{ .stack = "k;stays", .a = 0.3, .b = 0.3002 },
		{ .stack = "k;up_a_bit", .a = 0, .b = 0.003 },
		{ .stack = "k;down_a_bit", .a = 0.003, .b = 0 },
	};
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	draw(v, 5, NULL, &out);
	/* the largest change (30 points either way) at full colour */
	assert_has(out.buf, "<g class=\"frame grew\"><title>grows" DASH
			    "A 10.0%, B 40.0%, change +30.0 pts</title>");
	assert_has(out.buf, "<g class=\"frame shrank\"><title>shrinks" DASH
			    "A 60.0%, B 30.0%, change -30.0 pts</title>");
	assert_has(out.buf, "<g class=\"frame same\"><title>stays" DASH
			    "A 30.0%, B 30.0%, change 0.0 pts</title>");
	assert_has(out.buf, "<g class=\"frame grew\"><title>up_a_bit" DASH
			    "A 0.0%, B 0.3%, change +0.3 pts</title>");
	assert_int_equal(count(out.buf, "fill=\"rgb(255,40,40)\""), 1);
	assert_int_equal(count(out.buf, "fill=\"rgb(40,40,255)\""), 1);
	/* a small change is pale: 0.3 of 30 points; "k" and "all" did
	 * not change */
	assert_int_equal(count(out.buf, "fill=\"rgb(255,233,233)\""), 1);
	assert_has(out.buf, "(full colour: +30.0 pts)");
	kb_buf_release(&out);
}

static void test_flamegraph__small_changes_are_not_drawn_full(void **state)
{
	/* the largest change is 0.2 points: drawn against 1 point */
	const struct kb_flame_stack v[] = {
		{ .stack = "x", .a = 0.5, .b = 0.502 },
		{ .stack = "y", .a = 0.5, .b = 0.498 },
	};
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	draw(v, 2, NULL, &out);
	assert_has(out.buf, "(full colour: +1.0 pts)");
	assert_has(out.buf, "<g class=\"frame grew\"><title>x" DASH);
	assert_int_equal(count(out.buf, "fill=\"rgb(255,196,196)\""), 1);
	assert_int_equal(count(out.buf, "fill=\"rgb(196,196,255)\""), 1);
	kb_buf_release(&out);
}

static void test_flamegraph__names_and_title_are_escaped(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "a<b&c\"d'e>;x]]>", .a = 0.4, .b = 0.6 },
		{ .stack = "z", .a = 0.6, .b = 0.4 },
	};
	struct kb_flame_opts o = KB_FLAME_OPTS_INIT;
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	o.id = "fg\"1";
	o.title = "A <old> & B \"new\"";
	draw(v, 2, &o, &out);
	assert_has(out.buf, "id=\"fg&quot;1\"");
	assert_has(out.buf, "<title>A &lt;old&gt; &amp; B &quot;new&quot;</title>");
	assert_has(out.buf, "<title>a&lt;b&amp;c&quot;d&#39;e&gt;" DASH
			    "A 40.0%, B 60.0%, change +20.0 pts</title>");
	assert_has(out.buf, ">a&lt;b&amp;c&quot;d&#39;e&gt;</text>");
	assert_has(out.buf, "<title>x]]&gt;" DASH);
	assert_null(strstr(out.buf, "a<b"));
	assert_null(strstr(out.buf, "c\"d"));
	kb_buf_release(&out);
}

static void test_flamegraph__output_does_not_depend_on_input_order(void **state)
{
	struct kb_flame_stack v[] = {
		{ .stack = "s;b;c", .a = 0.1, .b = 0.2 },
		{ .stack = "s;a", .a = 0.2, .b = 0.1 },
		{ .stack = "t", .a = 0.3, .b = 0.3 },
		{ .stack = "s;b", .a = 0.1, .b = 0.1 },
		{ .stack = "s.x;q", .a = 0.2, .b = 0.2 },
		{ .stack = "s;a", .a = 0.1, .b = 0.1 },
	};
	struct kb_flame_stack w[6];
	struct kb_buf one = KB_BUF_INIT, two = KB_BUF_INIT;
	size_t i;

	(void)state;
	draw(v, 6, NULL, &one);
	for (i = 0; i < 6; i++)
		w[i] = v[5 - i];
	draw(w, 6, NULL, &two);
	assert_string_equal(one.buf, two.buf);
	/* equal stacks summed: "s;a" once, 20% of B; s then s.x by name */
	assert_int_equal(count(one.buf, "<title>a" DASH), 1);
	assert_has(one.buf, "<title>a" DASH "A 30.0%, B 20.0%, change -10.0 pts");
	assert_has(one.buf, "<title>s" DASH "A 50.0%, B 50.0%, change 0.0 pts</title>"
			    "<rect x=\"10.00\"");
	assert_has(one.buf, "<title>s.x" DASH "A 20.0%, B 20.0%, change 0.0 pts</title>"
			    "<rect x=\"600.00\"");
	assert_true(strstr(one.buf, "<title>s" DASH) <
		    strstr(one.buf, "<title>s.x" DASH));
	kb_buf_release(&one);
	kb_buf_release(&two);
}

static void test_flamegraph__frames_past_the_cap_are_counted_not_drawn(void **state)
{
	struct kb_flame_stack *v = calloc(3000, sizeof(*v));
	char (*names)[16] = calloc(3000, sizeof(*names));
	struct kb_flame_opts o = KB_FLAME_OPTS_INIT;
	struct kb_buf out = KB_BUF_INIT;
	size_t i;

	(void)state;
	assert_non_null(v);
	assert_non_null(names);
	for (i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof(names[i]), "f%04zu", i);
		v[i].stack = names[i];
		v[i].a = 1.0 / 3000;
		/* the first ones widest */
		v[i].b = (double)(6000 - i) / (4500.0 * 3000 + 1500);
	}
	o.width = 100000; /* every frame wide enough */
	draw(v, 3000, &o, &out);
	assert_int_equal(count(out.buf, "<g class=\"frame"), KB_FLAME_MAX_FRAMES);
	assert_has(out.buf, "2000 frames drawn, 1001 narrower not drawn</text>");
	assert_has(out.buf, "<title>f0000" DASH);
	assert_has(out.buf, "<title>f1998" DASH);
	assert_null(strstr(out.buf, "<title>f1999" DASH));
	assert_true(out.len < 2000 * 600);

	/* a cap of 3: "all" and the two widest */
	o.max_frames = 3;
	draw(v, 3000, &o, &out);
	assert_int_equal(count(out.buf, "<g class=\"frame"), 3);
	assert_has(out.buf, "<title>f0001" DASH);
	assert_has(out.buf, "3 frames drawn, 2998 narrower not drawn</text>");
	free(v);
	free(names);
	kb_buf_release(&out);
}

static void test_flamegraph__narrow_frames_and_frames_only_in_a_are_counted(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "big;child", .a = 0.5, .b = 0.9999 },
		{ .stack = "tiny;deeper", .a = 0.1, .b = 0.0001 },
		{ .stack = "gone", .a = 0.4, .b = 0 },
	};
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	draw(v, 3, NULL, &out);
	assert_int_equal(count(out.buf, "<g class=\"frame"), 3);
	assert_null(strstr(out.buf, "<title>tiny"));
	assert_null(strstr(out.buf, "<title>gone"));
	assert_has(out.buf, "3 frames drawn, 3 narrower not drawn</text>");
	kb_buf_release(&out);
}

static void test_flamegraph__depth_is_capped(void **state)
{
	struct kb_flame_stack v = { .a = 1, .b = 1 };
	struct kb_buf s = KB_BUF_INIT, out = KB_BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++)
		kb_buf_addf(&s, "%sf%zu", i ? ";" : "", i);
	v.stack = s.buf;
	draw(&v, 1, NULL, &out);
	assert_int_equal(count(out.buf, "<g class=\"frame"),
			 KB_PROFILE_MAX_DEPTH + 1);
	assert_has(out.buf, "<title>f127" DASH);
	assert_null(strstr(out.buf, "<title>f128" DASH));
	kb_buf_release(&s);
	kb_buf_release(&out);
}

static void test_flamegraph__long_names_are_cut(void **state)
{
	struct kb_flame_stack v = { .a = 1, .b = 1 };
	char name[400];

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	v.stack = name;
	{
		struct kb_buf out = KB_BUF_INIT;
		char want[200];

		draw(&v, 1, NULL, &out);
		memset(want, 'n', KB_FLAME_NAME_MAX - 3);
		memcpy(want + KB_FLAME_NAME_MAX - 3, "..." DASH,
		       sizeof("..." DASH));
		assert_has(out.buf, want);
		kb_buf_release(&out);
	}
}

static void test_flamegraph__no_samples_says_so(void **state)
{
	const struct kb_flame_stack v[] = {
		{ .stack = "only_a", .a = 1, .b = 0 },
	};
	struct kb_flame_opts o = KB_FLAME_OPTS_INIT;
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	o.title = "profile";
	draw(NULL, 0, &o, &out);
	assert_has(out.buf, ">no profile samples</text>");
	assert_has(out.buf, "<title>profile</title>");
	assert_null(strstr(out.buf, "<g class=\"frame"));
	draw(v, 1, NULL, &out);
	assert_has(out.buf, ">no profile samples in B</text>");
	kb_buf_release(&out);
}

static void test_flamegraph__bad_input_is_refused_and_writes_nothing(void **state)
{
	struct kb_flame_stack v[] = {
		{ .stack = "ok", .a = 0.5, .b = 0.5 },
		{ .stack = "a;;b", .a = 0.5, .b = 0.5 },
	};
	struct kb_flame_opts o = KB_FLAME_OPTS_INIT;
	struct kb_buf out = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	kb_buf_adds(&out, "before");
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "stack 'a;;b': an empty frame");
	v[1].stack = "a;";
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	v[1].stack = "";
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "stack 2 of the flame graph is empty");
	v[1].stack = NULL;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	v[1].stack = "b";
	v[1].b = NAN;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "stack 'b': shares 0.5 and nan, not from 0 to 1");
	v[1].b = 0.5;
	v[1].a = -0.1;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	v[1].a = 1.5;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, NULL, &out, &err), KB_EINPUT);
	v[1].a = 0.5;
	o.width = 50;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, &o, &out, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "50 px wide");
	o.width = NAN;
	kb_err_clear(&err);
	assert_int_equal(kb_flamegraph_svg(v, 2, &o, &out, &err), KB_EINPUT);
	assert_string_equal(out.buf, "before");
	kb_buf_release(&out);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_flamegraph__shared_prefix_is_one_frame_of_summed_width),
	cmocka_unit_test(test_flamegraph__own_samples_lie_right_of_the_children),
	cmocka_unit_test(test_flamegraph__red_grew_blue_shrank_grey_unchanged),
	cmocka_unit_test(test_flamegraph__small_changes_are_not_drawn_full),
	cmocka_unit_test(test_flamegraph__names_and_title_are_escaped),
	cmocka_unit_test(test_flamegraph__output_does_not_depend_on_input_order),
	cmocka_unit_test(test_flamegraph__frames_past_the_cap_are_counted_not_drawn),
	cmocka_unit_test(test_flamegraph__narrow_frames_and_frames_only_in_a_are_counted),
	cmocka_unit_test(test_flamegraph__depth_is_capped),
	cmocka_unit_test(test_flamegraph__long_names_are_cut),
	cmocka_unit_test(test_flamegraph__no_samples_says_so),
	cmocka_unit_test(test_flamegraph__bad_input_is_refused_and_writes_nothing),
};

KB_TEST_MAIN(tests)
