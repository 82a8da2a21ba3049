#include "ycheck.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "suggest.h"
#include "banned.h"

const char *kb_kconfig_name(const char *name)
{
	if (strncmp(name, "CONFIG_", 7) == 0 && name[7])
		return name + 7;
	return name;
}

int kb_kconfig_name_valid(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > 128 || !strcmp(name, "CONFIG_"))
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

int kb_ycheck_fail(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *fmt, ...)
{
	char msg[KB_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kb_err_at(y->err, y->file, n ? n->line : 0, n ? n->col : 0,
			 "%s", msg);
}

int kb_ycheck_type(const struct kb_ycheck *y, const struct kb_ynode *n,
		   enum kb_ynode_type type, const char *what)
{
	static const char *const kinds[] = { "a scalar", "a list",
					     "a mapping" };

	if (n->type == type)
		return 0;
	return kb_ycheck_fail(y, n, "%s must be %s, found %s", what,
			      kinds[type], kb_ynode_kind(n));
}

/* @words joined by ", ", the last two by @last: "A, B or C". */
static void join(struct kb_buf *b, const char *const *words, size_t n,
		 const char *last)
{
	size_t i;

	for (i = 0; i < n; i++)
		kb_buf_addf(b, "%s%s", !i ? "" : i + 1 < n ? ", " : last,
			    words[i]);
}

int kb_ycheck_keys(const struct kb_ycheck *y, const struct kb_ynode *map,
		   const char *where, const char *const *allowed, size_t n)
{
	size_t i, k;

	for (i = 0; i < map->n; i++) {
		const char *key = map->keys[i]->str;
		const char *hint;
		struct kb_buf b = KB_BUF_INIT;
		int ret;

		for (k = 0; k < n; k++)
			if (!strcmp(key, allowed[k]))
				break;
		if (k < n)
			continue;
		hint = kb_suggest(key, allowed, n);
		if (hint)
			return kb_ycheck_fail(y, map->keys[i],
					      "unknown key '%s' in %s (did you mean '%s'?)",
					      key, where, hint);
		join(&b, allowed, n, ", ");
		ret = kb_ycheck_fail(y, map->keys[i],
				     "unknown key '%s' in %s: expected one of %s",
				     key, where, b.buf);
		kb_buf_release(&b);
		return ret;
	}
	return 0;
}

/*
 * The format characters that reorder or break a line on a terminal, at
 * the 3-byte UTF-8 sequence at @s (@len bytes left): Unicode's
 * Bidi_Control characters (U+061C, U+200E, U+200F, U+202A to U+202E,
 * U+2066 to U+2069; an override makes "abc" read as "cba") and the line
 * and paragraph separators U+2028 and U+2029.  Returns the code point
 * and its length, or -1.
 */
static long format_char(const unsigned char *s, size_t len, size_t *size)
{
	long c;

	if (len >= 2 && s[0] == 0xd8 && s[1] == 0x9c) {
		*size = 2;
		return 0x061c;
	}
	if (len < 3 || s[0] != 0xe2 || (s[1] != 0x80 && s[1] != 0x81) ||
	    (s[2] & 0xc0) != 0x80)
		return -1;
	c = 0x2000 | (long)(s[1] & 0x3f) << 6 | (long)(s[2] & 0x3f);
	if (c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069)) {
		*size = 3;
		return c;
	}
	return -1;
}

long kb_ycheck_control(const char *s, size_t len, int lines, size_t *at,
		       size_t *size)
{
	size_t i;
	long c;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && !(lines && (ch == '\n' || ch == '\t'))) ||
		    ch == 0x7f) {
			*at = i;
			*size = 1;
			return ch;
		}
		if (ch == 0xc2 && i + 1 < len &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			*at = i;
			*size = 2;
			return (unsigned char)s[i + 1];
		}
		if ((ch == 0xd8 || ch == 0xe2) &&
		    (c = format_char((const unsigned char *)s + i, len - i,
				     size)) >= 0) {
			*at = i;
			return c;
		}
	}
	return -1;
}

const char *kb_ycheck_printable(const char *s, int lines, struct kb_buf *b)
{
	size_t len, at, size;
	long c;

	kb_buf_reset(b);
	if (!s)
		return NULL;
	len = strlen(s);
	if (kb_ycheck_control(s, len, lines, &at, &size) < 0)
		return s;
	while ((c = kb_ycheck_control(s, len, lines, &at, &size)) >= 0) {
		kb_buf_add(b, s, at);
		if (c == '\n' || c == '\t' || c == '\r')
			kb_buf_adds(b, c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r");
		else if (size == 1)
			kb_buf_addf(b, "\\x%02lx", (unsigned long)c);
		else
			kb_buf_addf(b, "\\u%04lx", (unsigned long)c);
		s += at + size;
		len -= at + size;
	}
	kb_buf_add(b, s, len);
	return b->buf;
}

/* "U+000A, a newline" for the control characters users meet. */
static const char *control_name(long c)
{
	switch (c) {
	case '\t':
		return ", a tab";
	case '\n':
		return ", a newline";
	case '\r':
		return ", a carriage return";
	case 0x07:
		return ", BEL";
	case 0x1b:
		return ", ESC";
	case 0x9b:
		return ", CSI";
	case 0x202e:
		return ", a right-to-left override";
	case 0x061c:
	case 0x200e:
	case 0x200f:
	case 0x202a:
	case 0x202b:
	case 0x202c:
	case 0x202d:
	case 0x2066:
	case 0x2067:
	case 0x2068:
	case 0x2069:
		return ", a bidirectional control";
	case 0x2028:
		return ", a line separator";
	case 0x2029:
		return ", a paragraph separator";
	}
	return "";
}

static int string(const struct kb_ycheck *y, const struct kb_ynode *n,
		  const char *what, int lines, const char **out)
{
	size_t at, size;
	long c;
	int ret = kb_ycheck_type(y, n, KB_Y_SCALAR, what);

	if (ret)
		return ret;
	if (n->len == 0)
		return kb_ycheck_fail(y, n, "%s must not be empty", what);
	if (strlen(n->str) != n->len)
		return kb_ycheck_fail(y, n, "%s contains a NUL byte", what);
	if ((c = kb_ycheck_control(n->str, n->len, lines, &at, &size)) >= 0)
		return kb_ycheck_fail(y, n,
				      "%s contains a control character (U+%04lX%s)",
				      what, (unsigned long)c, control_name(c));
	*out = n->str;
	return 0;
}

int kb_ycheck_string(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char **out)
{
	return string(y, n, what, 0, out);
}

int kb_ycheck_script(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char **out)
{
	return string(y, n, what, 1, out);
}

int kb_ycheck_uint(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *what, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	unsigned long long v;
	char *end;
	int ret = kb_ycheck_type(y, n, KB_Y_SCALAR, what);

	if (ret)
		return ret;
	if (n->quoted)
		return kb_ycheck_fail(y, n,
				      "%s must be an integer from %llu to %llu, found the string \"%s\"",
				      what, (unsigned long long)min,
				      (unsigned long long)max, n->str);
	if (n->len && strspn(n->str, "0123456789") == n->len) {
		errno = 0;
		v = strtoull(n->str, &end, 10);
		if (!*end && errno != ERANGE && v >= min && v <= max) {
			*out = (uint64_t)v;
			return 0;
		}
	}
	return kb_ycheck_fail(y, n,
			      "%s must be an integer from %llu to %llu, found '%s'",
			      what, (unsigned long long)min,
			      (unsigned long long)max, n->str);
}

int kb_ycheck_number(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, double *out)
{
	char *end;
	double d;
	int ret = kb_ycheck_type(y, n, KB_Y_SCALAR, what);

	if (ret)
		return ret;
	if (n->quoted)
		return kb_ycheck_fail(y, n,
				      "%s must be a number, found the string \"%s\"",
				      what, n->str);
	if (!n->len || strspn(n->str, "0123456789+-.eE") != n->len)
		return kb_ycheck_fail(y, n, "%s must be a number, found '%s'",
				      what, n->str);
	errno = 0;
	d = strtod(n->str, &end);
	if (end == n->str || *end || errno == ERANGE || !isfinite(d))
		return kb_ycheck_fail(y, n, "%s must be a number, found '%s'",
				      what, n->str);
	*out = d;
	return 0;
}

int kb_ycheck_choice(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char *const *choices,
		     size_t nchoices, size_t *out)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *s, *hint;
	size_t i;
	int ret = kb_ycheck_string(y, n, what, &s);

	if (ret)
		return ret;
	for (i = 0; i < nchoices; i++) {
		if (!strcmp(s, choices[i])) {
			*out = i;
			return 0;
		}
	}
	hint = kb_suggest(s, choices, nchoices);
	if (hint)
		return kb_ycheck_fail(y, n,
				      "invalid %s '%s' (did you mean '%s'?)",
				      what, s, hint);
	join(&b, choices, nchoices, " or ");
	ret = kb_ycheck_fail(y, n, "invalid %s '%s': expected %s", what, s,
			     b.buf);
	kb_buf_release(&b);
	return ret;
}

int kb_ycheck_kconfig_name(const struct kb_ycheck *y,
			   const struct kb_ynode *key, const char **out)
{
	const char *name = kb_kconfig_name(key->str);
	char *up, *p;
	int ret;

	if (kb_kconfig_name_valid(name)) {
		*out = name;
		return 0;
	}
	up = kb_strdup(name);
	for (p = up; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
		else if (*p == '-')
			*p = '_';
	if (kb_kconfig_name_valid(up))
		ret = kb_ycheck_fail(y, key,
				     "invalid option name '%s': Kconfig symbols are upper case letters, digits and _ (did you mean '%s'?)",
				     key->str, kb_kconfig_name(up));
	else
		ret = kb_ycheck_fail(y, key,
				     "invalid option name '%s': Kconfig symbols are upper case letters, digits and _, such as DEBUG_SPINLOCK",
				     key->str);
	free(up);
	return ret;
}

/* A Kconfig int or hex value: -?[0-9]+ or 0x[0-9a-fA-F]+. */
static int is_kconfig_number(const char *s)
{
	size_t len = strlen(s);

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		return len > 2 &&
		       strspn(s + 2, "0123456789abcdefABCDEF") == len - 2;
	if (*s == '-')
		s++, len--;
	return len > 0 && strspn(s, "0123456789") == len;
}

int kb_ycheck_kconfig_level(const struct kb_ycheck *y,
			    const struct kb_ynode *n, const char *option)
{
	const char *s, *write = NULL;
	int ret = kb_ycheck_type(y, n, KB_Y_SCALAR, "a Kconfig level");

	if (ret)
		return ret;
	s = n->str;
	if (n->quoted) {
		size_t at, size;
		long c;

		if (strlen(s) != n->len || strpbrk(s, "\n\r\"\\"))
			return kb_ycheck_fail(y, n,
					      "invalid string level for %s: it must not contain quotes, backslashes, newlines or NUL bytes",
					      option);
		if ((c = kb_ycheck_control(s, n->len, 0, &at, &size)) >= 0)
			return kb_ycheck_fail(y, n,
					      "invalid string level for %s: it contains a control character (U+%04lX%s)",
					      option, (unsigned long)c,
					      control_name(c));
		return 0;
	}
	if ((strlen(s) == 1 && strchr("ynm", s[0])) || is_kconfig_number(s))
		return 0;
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on") ||
	    !strcmp(s, "Y"))
		write = "y";
	if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") ||
	    !strcmp(s, "N"))
		write = "n";
	if (write)
		return kb_ycheck_fail(y, n,
				      "invalid level '%s' for %s: Kconfig levels are y, n, m, a number or a quoted string (write %s)",
				      s, option, write);
	return kb_ycheck_fail(y, n,
			      "invalid level '%s' for %s: expected y, n, m, a number, or a quoted string such as \"%s\"",
			      s, option, s);
}

int kb_ycheck_pins(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *what, unsigned **pins, size_t *npins)
{
	unsigned *p;
	uint64_t u;
	size_t i;
	int ret;

	*pins = NULL;
	*npins = 0;
	if (kb_ynode_is_null(n) ||
	    (n->type == KB_Y_SCALAR && !n->quoted && !strcmp(n->str, "none")))
		return 0;
	if (n->type != KB_Y_SEQ)
		return kb_ycheck_fail(y, n,
				      "%s must be a list of physical CPU numbers such as [0, 0, 1, 1], or none, found %s",
				      what, kb_ynode_kind(n));
	if (n->n == 0 || n->n > KB_YCHECK_MAX_VCPUS)
		return kb_ycheck_fail(y, n, "%s must list from 1 to %d CPUs",
				      what, KB_YCHECK_MAX_VCPUS);
	p = kb_calloc(n->n, sizeof(*p));
	for (i = 0; i < n->n; i++) {
		if ((ret = kb_ycheck_uint(y, n->items[i],
					  "a physical CPU number", 0, 65535,
					  &u))) {
			free(p);
			return ret;
		}
		p[i] = (unsigned)u;
	}
	*pins = p;
	*npins = n->n;
	return 0;
}

int kb_ycheck_guest_level(const struct kb_ycheck *y, const struct kb_ynode *n,
			  const char *factor, char **out)
{
	static const char *const modes[] = { "pv", "pvh", "hvm" };
	struct kb_buf b = KB_BUF_INIT;
	unsigned *pins;
	uint64_t u;
	size_t i, npins;
	int ret;

	*out = NULL;
	if (!strcmp(factor, "guest.mode")) {
		if ((ret = kb_ycheck_choice(y, n, "guest mode", modes, 3, &i)))
			return ret;
		*out = kb_strdup(modes[i]);
		return 0;
	}
	if (!strcmp(factor, "guest.vcpus")) {
		if ((ret = kb_ycheck_uint(y, n, "a guest.vcpus level", 1,
					  KB_YCHECK_MAX_VCPUS, &u)))
			return ret;
		*out = kb_asprintf("%llu", (unsigned long long)u);
		return 0;
	}
	if (!strcmp(factor, "guest.memory_mib")) {
		if ((ret = kb_ycheck_uint(y, n, "a guest.memory_mib level", 16,
					  16u << 20, &u)))
			return ret;
		*out = kb_asprintf("%llu", (unsigned long long)u);
		return 0;
	}
	if (strcmp(factor, "guest.pin"))
		return kb_ycheck_fail(y, n, "unknown guest factor '%s'",
				      factor);
	if ((ret = kb_ycheck_pins(y, n, "a guest.pin level", &pins, &npins)))
		return ret;
	kb_buf_adds(&b, npins ? "" : "none");
	for (i = 0; i < npins; i++)
		kb_buf_addf(&b, "%s%u", i ? "," : "", pins[i]);
	free(pins);
	*out = kb_buf_detach(&b);
	return 0;
}
