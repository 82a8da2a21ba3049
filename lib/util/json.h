#ifndef KB_JSON_H
#define KB_JSON_H

struct kb_buf;

/*
 * A small streaming JSON writer for the CLI's --json output.  It appends
 * to a caller's struct kb_buf as values are written, and places commas,
 * colons, newlines and indentation itself:
 *
 *	struct kb_json *j = kb_json_new(&buf, 1);
 *	kb_json_object_begin(j);
 *	kb_json_kv_string(j, "name", "xen");
 *	kb_json_key(j, "runs");
 *	kb_json_array_begin(j);
 *	kb_json_int(j, 3);
 *	kb_json_array_end(j);
 *	kb_json_object_end(j);
 *	if (kb_json_finish(j)) ...bug...
 *	kb_json_free(j);
 *
 * The output is valid UTF-8 JSON whatever the strings hold.  This module
 * only writes; json-c (in the fio module) is the parser.
 *
 * Misuse is a programming error and trips an assert(): a value without a
 * key inside an object, a key outside an object or twice in a row, an end
 * that does not match the open container, nesting deeper than
 * KB_JSON_MAX_DEPTH.  Built with NDEBUG, the writer instead ignores that
 * call and every later one, and kb_json_finish() returns -1.
 */

#define KB_JSON_MAX_DEPTH 64

struct kb_json;

/*
 * A writer appending to @out, which the caller owns and must keep alive
 * until kb_json_free().  @pretty nonzero: one value per line, indented by
 * two spaces per level, ": " after keys, empty containers as {} and [];
 * zero: compact, no whitespace at all.  Free with kb_json_free().
 */
struct kb_json *kb_json_new(struct kb_buf *out, int pretty);

/* Free the writer (not the buffer).  NULL is accepted. */
void kb_json_free(struct kb_json *j);

/* Open and close an object or an array. */
void kb_json_object_begin(struct kb_json *j);
void kb_json_object_end(struct kb_json *j);
void kb_json_array_begin(struct kb_json *j);
void kb_json_array_end(struct kb_json *j);

/* Write a member name inside an object; the next call writes its value. */
void kb_json_key(struct kb_json *j, const char *key);

/*
 * Write a NUL-terminated string, or null when @s is NULL.  '"' and '\\'
 * are escaped, as are control characters: \b \f \n \r \t by name, the rest
 * as \u00xx (lowercase hex).  Valid UTF-8 passes through unchanged; each
 * ill-formed sequence (stray byte, overlong form, surrogate, beyond
 * U+10FFFF, truncated sequence: its maximal valid prefix) becomes one
 * U+FFFD, as Unicode 3.9 recommends.  Keys are escaped the same way.
 */
void kb_json_string(struct kb_json *j, const char *s);

/*
 * Write a number.  NaN and infinities, which JSON cannot hold, write null.
 * Integral values below 1e21 in magnitude print as integers without
 * exponent or fraction ("3", "-42", "100000000000000000000"); -0 prints as
 * "0".  Anything else prints as the shortest of %.15g, %.16g and %.17g
 * that reads back as the same double ("0.1", "2.5e-07",
 * "0.30000000000000004"), with a '.' whatever the locale.
 */
void kb_json_number(struct kb_json *j, double v);

/* Write an integer, true/false (@v nonzero/zero), or null. */
void kb_json_int(struct kb_json *j, long long v);
void kb_json_bool(struct kb_json *j, int v);
void kb_json_null(struct kb_json *j);

/* kb_json_key() followed by the matching value writer. */
void kb_json_kv_string(struct kb_json *j, const char *key, const char *s);
void kb_json_kv_number(struct kb_json *j, const char *key, double v);
void kb_json_kv_int(struct kb_json *j, const char *key, long long v);
void kb_json_kv_bool(struct kb_json *j, const char *key, int v);

/*
 * Check that the output is one complete JSON text: every container closed
 * and exactly one top-level value written (several top-level values are
 * written one per line, so the output is still usable, but this fails).
 * Returns 0 and appends a final "\n", or -1 and appends nothing.  Call it
 * once, after the last value.
 */
int kb_json_finish(struct kb_json *j);

#endif
