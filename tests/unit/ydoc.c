#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "ydoc.h"

static struct kb_ydoc *parse_ok(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ydoc *doc = NULL;

	if (kb_ydoc_parse_buffer(text, strlen(text), "t.yaml", &doc, &err))
		fail_msg("unexpected error: %s", err.msg);
	return doc;
}

static void parse_err(const char *text, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ydoc *doc = NULL;

	assert_int_equal(kb_ydoc_parse_buffer(text, strlen(text), "t.yaml",
					      &doc, &err),
			 KB_EINPUT);
	assert_null(doc);
	assert_msg_contains(err.msg, expect);
}

static void test_ydoc__positions_are_one_based(void **state)
{
	struct kb_ydoc *doc = parse_ok("a: 1\nb:\n  - x\n  - 'y'\n");
	const struct kb_ynode *root = kb_ydoc_root(doc), *b;

	(void)state;
	assert_int_equal(root->type, KB_Y_MAP);
	b = kb_ynode_get(root, "b");
	assert_non_null(b);
	assert_int_equal(b->type, KB_Y_SEQ);
	assert_int_equal(b->n, 2);
	assert_int_equal(b->items[1]->line, 4);
	assert_int_equal(b->items[1]->col, 5);
	assert_false(b->items[0]->quoted);
	assert_true(b->items[1]->quoted);
	assert_string_equal(b->items[1]->str, "y");
	kb_ydoc_free(doc);
}

static void test_ydoc__syntax_error_has_position(void **state)
{
	(void)state;
	parse_err("a: [1, 2\nb: 3\n", "t.yaml:");
	parse_err("a: b: c\n", "t.yaml:1:5: YAML syntax error");
}

static void test_ydoc__duplicate_key_is_refused(void **state)
{
	(void)state;
	parse_err("a: 1\nb: 2\na: 3\n",
		  "t.yaml:3:1: duplicate key 'a' (first at line 1)");
}

/*
 * Many keys (the check is a search tree, not a scan of the earlier keys):
 * every key kept in order, and a repeat of one far back found at its own
 * line, naming the first.  Speed is measured by tests/bench/ydoc.c.
 */
static void test_ydoc__duplicate_among_many_keys_has_its_position(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_ydoc *doc;
	const struct kb_ynode *root;
	char want[32];
	size_t i;

	(void)state;
	for (i = 0; i < 20000; i++)
		kb_buf_addf(&b, "k%zu: %zu\n", (i * 7919) % 20000, i);
	doc = parse_ok(b.buf);
	root = kb_ydoc_root(doc);
	assert_int_equal(root->n, 20000);
	for (i = 0; i < 20000; i += 997) {
		snprintf(want, sizeof(want), "k%zu", (i * 7919) % 20000);
		assert_string_equal(root->keys[i]->str, want);
		assert_int_equal(root->keys[i]->line, i + 1);
		snprintf(want, sizeof(want), "%zu", i);
		assert_string_equal(kb_ynode_get(root, root->keys[i]->str)->str,
				    want);
	}
	kb_ydoc_free(doc);
	/* line 12346 wrote key k((12345 * 7919) % 20000) = k55 */
	kb_buf_adds(&b, "k55: again\n");
	parse_err(b.buf,
		  "t.yaml:20001:1: duplicate key 'k55' (first at line 12346)");
	kb_buf_release(&b);
}

static void test_ydoc__same_key_in_other_mappings_is_no_duplicate(void **state)
{
	struct kb_ydoc *doc = parse_ok("a: { a: 1, b: { a: 2, b: 3 } }\n"
				       "b: [ { a: 4 }, { a: 5, b: 6 } ]\n");

	(void)state;
	assert_int_equal(kb_ydoc_root(doc)->n, 2);
	kb_ydoc_free(doc);
	parse_err("a: { a: 1, b: { a: 2, b: 3, a: 4 } }\n",
		  "t.yaml:1:29: duplicate key 'a' (first at line 1)");
	parse_err("x: [ { a: 4 }, { a: 5, b: 6, b: 7 } ]\n",
		  "t.yaml:1:30: duplicate key 'b' (first at line 1)");
}

static void test_ydoc__long_list_keeps_every_item_in_order(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_ydoc *doc;
	const struct kb_ynode *root;
	char want[32];
	size_t i;

	(void)state;
	for (i = 0; i < 50000; i++)
		kb_buf_addf(&b, "- %zu\n", i);
	doc = parse_ok(b.buf);
	root = kb_ydoc_root(doc);
	assert_int_equal(root->type, KB_Y_SEQ);
	assert_int_equal(root->n, 50000);
	for (i = 0; i < 50000; i++) {
		snprintf(want, sizeof(want), "%zu", i);
		assert_string_equal(root->items[i]->str, want);
	}
	assert_null(root->keys);
	kb_ydoc_free(doc);
	kb_buf_release(&b);
}

static void test_ydoc__aliases_are_refused(void **state)
{
	(void)state;
	parse_err("a: &x [1]\nb: *x\n", "t.yaml:2:4: YAML aliases");
}

static void test_ydoc__depth_is_capped(void **state)
{
	char text[256];
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		text[i] = '[';
	for (; i < 80; i++)
		text[i] = ']';
	text[i] = '\0';
	parse_err(text, "nesting deeper than");
}

static void test_ydoc__empty_stream_has_no_root(void **state)
{
	struct kb_ydoc *doc = parse_ok("# only a comment\n");

	(void)state;
	assert_null(kb_ydoc_root(doc));
	kb_ydoc_free(doc);
}

static void test_ydoc__two_documents_are_refused(void **state)
{
	(void)state;
	parse_err("a: 1\n---\nb: 2\n", "only one YAML document");
}

static void test_ydoc__nul_byte_is_refused(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ydoc *doc = NULL;

	(void)state;
	assert_int_equal(kb_ydoc_parse_buffer("a: 1\0b", 6, "t.yaml", &doc,
					      &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "NUL byte");
}

static void test_ydoc__missing_file_is_not_found(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_ydoc *doc = NULL;

	(void)state;
	assert_int_equal(kb_ydoc_load_file("tests/data/nonexistent.yaml", &doc,
					   &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "'tests/data/nonexistent.yaml'");
}

static void test_ydoc__null_is_an_unquoted_null_scalar(void **state)
{
	struct kb_ydoc *doc = parse_ok("a:\nb: ~\nc: null\nd: Null\ne: NULL\n"
				       "f: 'null'\ng: \"\"\nh: nil\ni: []\n");
	const struct kb_ynode *root = kb_ydoc_root(doc);
	const char *yes = "abcde", *no = "fghi", *p;
	char key[2] = "";

	(void)state;
	for (p = yes; *p; p++) {
		key[0] = *p;
		assert_true(kb_ynode_is_null(kb_ynode_get(root, key)));
	}
	for (p = no; *p; p++) {
		key[0] = *p;
		assert_false(kb_ynode_is_null(kb_ynode_get(root, key)));
	}
	assert_false(kb_ynode_is_null(root));
	kb_ydoc_free(doc);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_ydoc__positions_are_one_based),
	cmocka_unit_test(test_ydoc__syntax_error_has_position),
	cmocka_unit_test(test_ydoc__duplicate_key_is_refused),
	cmocka_unit_test(test_ydoc__duplicate_among_many_keys_has_its_position),
	cmocka_unit_test(test_ydoc__same_key_in_other_mappings_is_no_duplicate),
	cmocka_unit_test(test_ydoc__long_list_keeps_every_item_in_order),
	cmocka_unit_test(test_ydoc__aliases_are_refused),
	cmocka_unit_test(test_ydoc__depth_is_capped),
	cmocka_unit_test(test_ydoc__empty_stream_has_no_root),
	cmocka_unit_test(test_ydoc__two_documents_are_refused),
	cmocka_unit_test(test_ydoc__nul_byte_is_refused),
	cmocka_unit_test(test_ydoc__missing_file_is_not_found),
	cmocka_unit_test(test_ydoc__null_is_an_unquoted_null_scalar),
};

KB_TEST_MAIN(tests)
