#include "json.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mem.h"
#include "banned.h"

enum frame_type {
	FRAME_OBJECT,
	FRAME_ARRAY,
};

/* One open container. */
struct frame {
	enum frame_type type;
	size_t n;       /* members (object) or items (array) begun so far */
	int want_value; /* object only: a key was written, its value is due */
};

struct kb_json {
	struct kb_buf *out; /* where the text goes (the caller's) */
	int pretty;         /* indent and break lines */
	int broken;         /* a misuse was caught: ignore everything, fail */
	size_t ntop;        /* top-level values begun */
	unsigned depth;     /* open containers: stack[0..depth-1] */
	struct frame stack[KB_JSON_MAX_DEPTH];
};

struct kb_json *kb_json_new(struct kb_buf *out, int pretty)
{
	struct kb_json *j = kb_calloc(1, sizeof(*j));

	assert(out);
	j->out = out;
	j->pretty = !!pretty;
	return j;
}

void kb_json_free(struct kb_json *j)
{
	free(j);
}

/*
 * Record a misuse.  assert() has already fired in debug builds; with
 * NDEBUG the writer stops writing so that finish() can report it.
 */
static int misuse(struct kb_json *j)
{
	j->broken = 1;
	return -1;
}

static void newline_indent(struct kb_json *j, unsigned depth)
{
	unsigned i;

	if (!j->pretty)
		return;
	kb_buf_addch(j->out, '\n');
	for (i = 0; i < depth; i++)
		kb_buf_add(j->out, "  ", 2);
}

/*
 * Get ready for a value: separate it from the previous one, or consume
 * the key it belongs to.  Returns 0, or -1 when no value may go here.
 */
static int begin_value(struct kb_json *j)
{
	struct frame *f;

	if (j->broken)
		return -1;
	if (!j->depth) {
		if (j->ntop++)
			kb_buf_addch(j->out, '\n');
		return 0;
	}
	f = &j->stack[j->depth - 1];
	if (f->type == FRAME_OBJECT) {
		if (!f->want_value) {
			assert(0 && "kb_json: object value without a key");
			return misuse(j);
		}
		f->want_value = 0;
		return 0;
	}
	if (f->n++)
		kb_buf_addch(j->out, ',');
	newline_indent(j, j->depth);
	return 0;
}

/*
 * The length of the well-formed UTF-8 sequence at @p (Unicode table 3-7),
 * or 0 with *skip set to the length of its maximal ill-formed prefix (at
 * least 1).  A NUL ends a sequence like any other non-continuation byte.
 */
static size_t utf8_seq(const unsigned char *p, size_t *skip)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* beyond U+10FFFF */
	} else {
		*skip = 1;
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi) {
			*skip = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

/* The letter of the two-character escape of @c, or 0 if it has none. */
static char short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return '"';
	case '\\':
		return '\\';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	default:
		return 0;
	}
}

static void write_escaped(struct kb_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;
	char esc[6], c;
	size_t n, skip = 1;

	kb_buf_addch(b, '"');
	while (*p) {
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = utf8_seq(p, &skip))) {
			p += n;
			continue;
		}
		kb_buf_add(b, run, (size_t)(p - run));
		if (*p >= 0x80) {
			kb_buf_add(b, "\xef\xbf\xbd", 3); /* U+FFFD */
			p += skip;
			run = p;
			continue;
		}
		if ((c = short_escape(*p))) {
			esc[0] = '\\';
			esc[1] = c;
			kb_buf_add(b, esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 0xf];
			kb_buf_add(b, esc, 6);
		}
		p++;
		run = p;
	}
	kb_buf_add(b, run, (size_t)(p - run));
	kb_buf_addch(b, '"');
}

static void container_begin(struct kb_json *j, enum frame_type type)
{
	struct frame *f;

	if (j->broken)
		return;
	if (j->depth == KB_JSON_MAX_DEPTH) {
		assert(0 && "kb_json: nesting deeper than KB_JSON_MAX_DEPTH");
		misuse(j);
		return;
	}
	if (begin_value(j))
		return;
	f = &j->stack[j->depth++];
	f->type = type;
	f->n = 0;
	f->want_value = 0;
	kb_buf_addch(j->out, type == FRAME_OBJECT ? '{' : '[');
}

static void container_end(struct kb_json *j, enum frame_type type)
{
	struct frame *f;

	if (j->broken)
		return;
	if (!j->depth || j->stack[j->depth - 1].type != type) {
		assert(0 && "kb_json: end does not match the open container");
		misuse(j);
		return;
	}
	f = &j->stack[j->depth - 1];
	if (f->want_value) {
		assert(0 && "kb_json: a key has no value");
		misuse(j);
		return;
	}
	j->depth--;
	if (f->n)
		newline_indent(j, j->depth);
	kb_buf_addch(j->out, type == FRAME_OBJECT ? '}' : ']');
}

void kb_json_object_begin(struct kb_json *j)
{
	container_begin(j, FRAME_OBJECT);
}

void kb_json_object_end(struct kb_json *j)
{
	container_end(j, FRAME_OBJECT);
}

void kb_json_array_begin(struct kb_json *j)
{
	container_begin(j, FRAME_ARRAY);
}

void kb_json_array_end(struct kb_json *j)
{
	container_end(j, FRAME_ARRAY);
}

void kb_json_key(struct kb_json *j, const char *key)
{
	struct frame *f;

	assert(key);
	if (j->broken)
		return;
	f = j->depth ? &j->stack[j->depth - 1] : NULL;
	if (!f || f->type != FRAME_OBJECT || f->want_value || !key) {
		assert(0 && "kb_json: a key must be a member of an object");
		misuse(j);
		return;
	}
	if (f->n++)
		kb_buf_addch(j->out, ',');
	newline_indent(j, j->depth);
	write_escaped(j->out, key);
	kb_buf_adds(j->out, j->pretty ? ": " : ":");
	f->want_value = 1;
}

void kb_json_string(struct kb_json *j, const char *s)
{
	if (begin_value(j))
		return;
	if (s)
		write_escaped(j->out, s);
	else
		kb_buf_adds(j->out, "null");
}

/*
 * Copy the output of printf's %g into @b, turning the locale's decimal
 * point (whatever it is) into '.': in any locale the rest is only digits,
 * signs and 'e'.
 */
static void add_c_number(struct kb_buf *b, const char *s)
{
	while (*s) {
		if (strchr("0123456789+-e", *s)) {
			kb_buf_addch(b, *s++);
			continue;
		}
		kb_buf_addch(b, '.');
		while (*s && !strchr("0123456789+-e", *s))
			s++;
	}
}

void kb_json_number(struct kb_json *j, double v)
{
	char tmp[64];
	int prec;

	if (begin_value(j))
		return;
	if (!isfinite(v)) {
		kb_buf_adds(j->out, "null");
		return;
	}
	if (v == 0) {
		kb_buf_addch(j->out, '0'); /* also -0, as JavaScript does */
		return;
	}
	if (v == trunc(v) && fabs(v) < 1e21) {
		kb_buf_addf(j->out, "%.0f", v);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
	add_c_number(j->out, tmp);
}

void kb_json_int(struct kb_json *j, long long v)
{
	if (begin_value(j))
		return;
	kb_buf_addf(j->out, "%lld", v);
}

void kb_json_bool(struct kb_json *j, int v)
{
	if (begin_value(j))
		return;
	kb_buf_adds(j->out, v ? "true" : "false");
}

void kb_json_null(struct kb_json *j)
{
	if (begin_value(j))
		return;
	kb_buf_adds(j->out, "null");
}

void kb_json_kv_string(struct kb_json *j, const char *key, const char *s)
{
	kb_json_key(j, key);
	kb_json_string(j, s);
}

void kb_json_kv_number(struct kb_json *j, const char *key, double v)
{
	kb_json_key(j, key);
	kb_json_number(j, v);
}

void kb_json_kv_int(struct kb_json *j, const char *key, long long v)
{
	kb_json_key(j, key);
	kb_json_int(j, v);
}

void kb_json_kv_bool(struct kb_json *j, const char *key, int v)
{
	kb_json_key(j, key);
	kb_json_bool(j, v);
}

int kb_json_finish(struct kb_json *j)
{
	if (j->broken || j->depth || j->ntop != 1)
		return -1;
	kb_buf_addch(j->out, '\n');
	return 0;
}
