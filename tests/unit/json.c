#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "json.h"

#define FFFD "\xef\xbf\xbd"

/* A nested document exercising every value writer. */
static void write_sample(struct kb_json *j)
{
	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", "xen");
	kb_json_key(j, "runs");
	kb_json_array_begin(j);
	kb_json_int(j, 1);
	kb_json_number(j, 2.5);
	kb_json_object_begin(j);
	kb_json_kv_bool(j, "ok", 1);
	kb_json_object_end(j);
	kb_json_array_end(j);
	kb_json_key(j, "empty");
	kb_json_object_begin(j);
	kb_json_object_end(j);
	kb_json_key(j, "none");
	kb_json_array_begin(j);
	kb_json_array_end(j);
	kb_json_kv_string(j, "null", NULL);
	kb_json_kv_int(j, "n", -7);
	kb_json_kv_number(j, "x", 0.25);
	kb_json_object_end(j);
}

static void test_json__compact_nested_output(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	write_sample(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf,
			    "{\"name\":\"xen\",\"runs\":[1,2.5,{\"ok\":true}],"
			    "\"empty\":{},\"none\":[],\"null\":null,"
			    "\"n\":-7,\"x\":0.25}\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__pretty_nested_output(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);

	(void)state;
	write_sample(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "{\n"
				   "  \"name\": \"xen\",\n"
				   "  \"runs\": [\n"
				   "    1,\n"
				   "    2.5,\n"
				   "    {\n"
				   "      \"ok\": true\n"
				   "    }\n"
				   "  ],\n"
				   "  \"empty\": {},\n"
				   "  \"none\": [],\n"
				   "  \"null\": null,\n"
				   "  \"n\": -7,\n"
				   "  \"x\": 0.25\n"
				   "}\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__scalar_top_level_value(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);

	(void)state;
	kb_json_bool(j, 0);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "false\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__appends_to_existing_buffer(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j;

	(void)state;
	kb_buf_adds(&b, "x=");
	j = kb_json_new(&b, 0);
	kb_json_array_begin(j);
	kb_json_null(j);
	kb_json_array_end(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "x=[null]\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__nests_to_max_depth(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);
	int i;

	(void)state;
	for (i = 0; i < KB_JSON_MAX_DEPTH; i++)
		kb_json_array_begin(j);
	for (i = 0; i < KB_JSON_MAX_DEPTH; i++)
		kb_json_array_end(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_int_equal(b.len, 2 * KB_JSON_MAX_DEPTH + 1);
	assert_int_equal(b.buf[KB_JSON_MAX_DEPTH - 1], '[');
	assert_int_equal(b.buf[KB_JSON_MAX_DEPTH], ']');
	kb_json_free(j);
	kb_buf_release(&b);
}

/* The compact JSON text of one string value, without the final newline. */
static char *str_json(const char *s)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	kb_json_string(j, s);
	assert_int_equal(kb_json_finish(j), 0);
	kb_json_free(j);
	b.buf[--b.len] = '\0';
	return kb_buf_detach(&b);
}

static void check_str(const char *in, const char *expect)
{
	char *out = str_json(in);

	assert_string_equal(out, expect);
	free(out);
}

static void test_json__escapes_quotes_backslash_and_controls(void **state)
{
	(void)state;
	check_str("say \"hi\"", "\"say \\\"hi\\\"\"");
	check_str("C:\\dir\\", "\"C:\\\\dir\\\\\"");
	check_str("a\nb\tc\rd", "\"a\\nb\\tc\\rd\"");
	check_str("\b\f", "\"\\b\\f\"");
	check_str("\x01\x1f\x1b[0m", "\"\\u0001\\u001f\\u001b[0m\"");
	check_str("/ and \x7f stay", "\"/ and \x7f stay\"");
	check_str("", "\"\"");
}

static void test_json__keys_are_escaped(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	kb_json_object_begin(j);
	kb_json_kv_int(j, "a\"b\n\xff", 1);
	kb_json_object_end(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "{\"a\\\"b\\n" FFFD "\":1}\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__null_string_writes_null(void **state)
{
	(void)state;
	check_str(NULL, "null");
}

static void test_json__valid_utf8_passes_through(void **state)
{
	(void)state;
	check_str("caf\xc3\xa9", "\"caf\xc3\xa9\"");                /* é */
	check_str("\xe2\x82\xac 5", "\"\xe2\x82\xac 5\"");          /* € */
	check_str("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");      /* 😀 */
	check_str("\xed\x9f\xbf\xee\x80\x80", /* U+D7FF U+E000 */
		  "\"\xed\x9f\xbf\xee\x80\x80\"");
	check_str("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");      /* max */
	check_str("\xef\xbf\xbd", "\"" FFFD "\"");
}

static void test_json__invalid_utf8_becomes_replacement(void **state)
{
	(void)state;
	/* stray continuation and bytes that never occur */
	check_str("a\x80z", "\"a" FFFD "z\"");
	check_str("\xff\xfe", "\"" FFFD FFFD "\"");
	check_str("\xf5\x80", "\"" FFFD FFFD "\"");
	/* overlong forms */
	check_str("\xc0\x80", "\"" FFFD FFFD "\"");
	check_str("\xc1\xbf", "\"" FFFD FFFD "\"");
	check_str("\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"");
	check_str("\xf0\x8f\xbf\xbf", "\"" FFFD FFFD FFFD FFFD "\"");
	/* a surrogate, and beyond U+10FFFF */
	check_str("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");
	check_str("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"");
	/* truncated: the valid prefix is one replacement */
	check_str("\xe2\x82x", "\"" FFFD "x\"");
	check_str("\xf0\x9f\x98", "\"" FFFD "\"");
	check_str("\xc3", "\"" FFFD "\"");
	check_str("\xe2\x82\"", "\"" FFFD "\\\"\"");
}

/*
 * An independent decoder (code-point arithmetic rather than the writer's
 * byte ranges): 1 when @s[0..len) is well-formed UTF-8.
 */
static int is_utf8(const unsigned char *s, size_t len)
{
	static const unsigned long min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t i = 0, n, k;
	unsigned long cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0)
			n = 2;
		else if ((s[i] & 0xf0) == 0xe0)
			n = 3;
		else if ((s[i] & 0xf8) == 0xf0)
			n = 4;
		else
			return 0;
		if (i + n > len)
			return 0;
		cp = s[i] & (0x7fu >> n);
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min[n] || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n;
	}
	return 1;
}

static void check_any(const unsigned char *in, size_t len)
{
	char text[8];
	char *out;
	size_t i, olen;
	int plain = 1;

	memcpy(text, in, len);
	text[len] = '\0';
	for (i = 0; i < len; i++)
		if (in[i] < 0x20 || in[i] == '"' || in[i] == '\\')
			plain = 0;
	out = str_json(text);
	olen = strlen(out);
	if (!is_utf8((const unsigned char *)out, olen))
		fail_msg("invalid UTF-8 out of %02x %02x %02x %02x (len %zu)",
			 in[0], len > 1 ? in[1] : 0, len > 2 ? in[2] : 0,
			 len > 3 ? in[3] : 0, len);
	for (i = 0; i < olen; i++)
		assert_true((unsigned char)out[i] >= 0x20);
	if (plain && is_utf8(in, len)) {
		assert_int_equal(olen, len + 2);
		assert_memory_equal(out + 1, in, len);
	}
	free(out);
}

static void test_json__any_bytes_give_valid_utf8(void **state)
{
	static const unsigned char pick[] = {
		0x01, 0x22, 0x41, 0x5c, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
		0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
		0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
	};
	const size_t np = sizeof(pick);
	unsigned char in[4];
	size_t a, b, c, d;

	(void)state;
	for (a = 1; a < 256; a++) {
		in[0] = (unsigned char)a;
		check_any(in, 1);
		for (b = 1; b < 256; b++) {
			in[1] = (unsigned char)b;
			check_any(in, 2);
		}
	}
	for (a = 0; a < np; a++)
		for (b = 0; b < np; b++)
			for (c = 0; c < np; c++)
				for (d = 0; d < np; d++) {
					in[0] = pick[a];
					in[1] = pick[b];
					in[2] = pick[c];
					in[3] = pick[d];
					check_any(in, 3);
					check_any(in, 4);
				}
}

/* The compact JSON text of one number, without the final newline. */
static void check_num(double v, const char *expect)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	kb_json_number(j, v);
	assert_int_equal(kb_json_finish(j), 0);
	b.buf[--b.len] = '\0';
	assert_string_equal(b.buf, expect);
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__integers_print_without_exponent(void **state)
{
	(void)state;
	check_num(3, "3");
	check_num(-42, "-42");
	check_num(511000, "511000");
	check_num(1e15, "1000000000000000");
	check_num(9007199254740993.0, "9007199254740992");
	check_num(1e20, "100000000000000000000");
	check_num(1e21, "1e+21");
	check_num(-1e300, "-1e+300");
}

static void test_json__fractions_are_shortest_round_trip(void **state)
{
	(void)state;
	check_num(0.1, "0.1");
	check_num(2.5, "2.5");
	check_num(-0.001, "-0.001");
	check_num(2.5e-7, "2.5e-07");
	check_num(1.0 / 3.0, "0.3333333333333333");
	check_num(0.1 + 0.2, "0.30000000000000004");
	check_num(5e-324, "4.94065645841247e-324");
}

static void test_json__nan_and_inf_write_null(void **state)
{
	(void)state;
	check_num(NAN, "null");
	check_num(INFINITY, "null");
	check_num(-INFINITY, "null");
}

static void test_json__negative_zero_writes_zero(void **state)
{
	(void)state;
	check_num(-0.0, "0");
	check_num(0.0, "0");
}

static void test_json__int_bool_null(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	kb_json_array_begin(j);
	kb_json_int(j, 9223372036854775807LL);
	kb_json_int(j, -9223372036854775807LL - 1);
	kb_json_bool(j, 2);
	kb_json_bool(j, 0);
	kb_json_null(j);
	kb_json_array_end(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "[9223372036854775807,"
				   "-9223372036854775808,true,false,null]\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__finish_detects_unclosed_container(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	kb_json_object_begin(j);
	kb_json_key(j, "a");
	kb_json_array_begin(j);
	kb_json_array_end(j);
	assert_int_equal(kb_json_finish(j), -1);
	assert_string_equal(b.buf, "{\"a\":[]");
	kb_json_object_end(j);
	assert_int_equal(kb_json_finish(j), 0);
	assert_string_equal(b.buf, "{\"a\":[]}\n");
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__finish_detects_dangling_key(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	kb_json_object_begin(j);
	kb_json_key(j, "a");
	assert_int_equal(kb_json_finish(j), -1);
	kb_json_free(j);
	kb_buf_release(&b);
}

static void test_json__finish_needs_exactly_one_value(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);

	(void)state;
	assert_int_equal(kb_json_finish(j), -1);
	assert_int_equal(b.len, 0);
	kb_json_int(j, 1);
	kb_json_int(j, 2);
	assert_int_equal(kb_json_finish(j), -1);
	assert_string_equal(b.buf, "1\n2");
	kb_json_free(j);
	kb_buf_release(&b);
}

/*
 * Run @fn in a child; misuse must abort there (assert), or, in an NDEBUG
 * build, make kb_json_finish() fail (exit status 3).
 */
static void check_misuse(void (*fn)(struct kb_json *))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_json *j = kb_json_new(&b, 0);

		if (!freopen("/dev/null", "w", stderr))
			_exit(5);
		fn(j);
		_exit(kb_json_finish(j) == -1 ? 3 : 4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status))
		assert_int_equal(WEXITSTATUS(status), 3);
	else
		assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void value_without_key(struct kb_json *j)
{
	kb_json_object_begin(j);
	kb_json_int(j, 1);
	kb_json_object_end(j);
}

static void key_in_array(struct kb_json *j)
{
	kb_json_array_begin(j);
	kb_json_key(j, "a");
	kb_json_int(j, 1);
	kb_json_array_end(j);
}

static void mismatched_end(struct kb_json *j)
{
	kb_json_array_begin(j);
	kb_json_object_end(j);
}

static void too_deep(struct kb_json *j)
{
	int i;

	for (i = 0; i <= KB_JSON_MAX_DEPTH; i++)
		kb_json_array_begin(j);
	for (i = 0; i <= KB_JSON_MAX_DEPTH; i++)
		kb_json_array_end(j);
}

static void test_json__misuse_is_caught(void **state)
{
	(void)state;
	check_misuse(value_without_key);
	check_misuse(key_in_array);
	check_misuse(mismatched_end);
	check_misuse(too_deep);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_json__compact_nested_output),
	cmocka_unit_test(test_json__pretty_nested_output),
	cmocka_unit_test(test_json__scalar_top_level_value),
	cmocka_unit_test(test_json__appends_to_existing_buffer),
	cmocka_unit_test(test_json__nests_to_max_depth),
	cmocka_unit_test(test_json__escapes_quotes_backslash_and_controls),
	cmocka_unit_test(test_json__keys_are_escaped),
	cmocka_unit_test(test_json__null_string_writes_null),
	cmocka_unit_test(test_json__valid_utf8_passes_through),
	cmocka_unit_test(test_json__invalid_utf8_becomes_replacement),
	cmocka_unit_test(test_json__any_bytes_give_valid_utf8),
	cmocka_unit_test(test_json__integers_print_without_exponent),
	cmocka_unit_test(test_json__fractions_are_shortest_round_trip),
	cmocka_unit_test(test_json__nan_and_inf_write_null),
	cmocka_unit_test(test_json__negative_zero_writes_zero),
	cmocka_unit_test(test_json__int_bool_null),
	cmocka_unit_test(test_json__finish_detects_unclosed_container),
	cmocka_unit_test(test_json__finish_detects_dangling_key),
	cmocka_unit_test(test_json__finish_needs_exactly_one_value),
	cmocka_unit_test(test_json__misuse_is_caught),
};

KB_TEST_MAIN(tests)
