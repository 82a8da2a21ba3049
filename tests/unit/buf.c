#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "buf.h"

/* Appends keep a NUL after the bytes; detach hands them over. */
static void test_buf__appends_and_detaches(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	char *s;

	(void)state;
	assert_int_equal(b.len, 0);
	assert_string_equal(b.buf, "");
	kb_buf_adds(&b, "ab");
	kb_buf_addch(&b, 'c');
	kb_buf_addf(&b, "%d", 42);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.buf, "abc42");
	s = kb_buf_detach(&b);
	assert_string_equal(s, "abc42");
	assert_int_equal(b.len, 0);
	free(s);
	kb_buf_release(&b);
}

/* Truncating undoes what came after a mark; a mark at or past the end,
 * or on a buffer never written, changes nothing. */
static void test_buf__truncate_undoes_after_a_mark(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t mark;

	(void)state;
	kb_buf_truncate(&b, 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.buf, "");
	kb_buf_adds(&b, "<p>kept</p>");
	mark = b.len;
	kb_buf_adds(&b, "<section>dropped</section>");
	kb_buf_truncate(&b, mark);
	assert_int_equal(b.len, mark);
	assert_string_equal(b.buf, "<p>kept</p>");
	kb_buf_truncate(&b, mark + 100);
	assert_string_equal(b.buf, "<p>kept</p>");
	kb_buf_adds(&b, "!");
	assert_string_equal(b.buf, "<p>kept</p>!");
	kb_buf_truncate(&b, 0);
	assert_string_equal(b.buf, "");
	kb_buf_release(&b);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_buf__appends_and_detaches),
	cmocka_unit_test(test_buf__truncate_undoes_after_a_mark),
};

KB_TEST_MAIN(tests)
