#include "kconfig.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "kconfig_int.h"
#include "mem.h"
#include "sha256.h"
#include "banned.h"

/*
 * The .config reader and writer (kb_kconfig_*), and what the other parts
 * of the module share (kconfig_int.h).  Expressions are in
 * kconfig_expr.c, the symbols of a tree and why an option did not hold in
 * kconfig_syms.c, resolution in kconfig_resolve.c.
 */

/* ==== .config files ===================================================== */

struct entry {
	char *name;
	char *value;
	size_t order; /* position in the input, for "last one wins" */
};

struct kb_kconfig {
	size_t n, alloc;
	struct entry *e; /* sorted by name, unique */
};

struct kb_kconfig *kb_kconfig_new(void)
{
	return kb_calloc(1, sizeof(struct kb_kconfig));
}

void kb_kconfig_free(struct kb_kconfig *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->n; i++) {
		free(cfg->e[i].name);
		free(cfg->e[i].value);
	}
	free(cfg->e);
	free(cfg);
}

int kconfig_is_name_char(int c)
{
	return isalnum(c) || c == '_';
}

/* The length of the symbol name at @s, which ends at @end at the latest. */
static size_t name_len_at(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && kconfig_is_name_char((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

static void push_entry(struct kb_kconfig *cfg, char *name, char *value,
		       size_t at)
{
	if (cfg->n == cfg->alloc) {
		cfg->alloc = cfg->alloc ? cfg->alloc * 2 : 64;
		cfg->e = kb_reallocarray(cfg->e, cfg->alloc, sizeof(*cfg->e));
	}
	memmove(&cfg->e[at + 1], &cfg->e[at], (cfg->n - at) * sizeof(*cfg->e));
	cfg->e[at].name = name;
	cfg->e[at].value = value;
	cfg->e[at].order = cfg->n;
	cfg->n++;
}

long kconfig_find_name(const void *records, size_t n, size_t size,
		       const char *name, size_t *at)
{
	const char *base = records;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(*(char *const *)(base + mid * size), name);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return -1;
}

int kconfig_cmp_name_order(const char *a, size_t a_order, const char *b,
			   size_t b_order)
{
	int c = strcmp(a, b);

	if (c)
		return c;
	return a_order < b_order ? -1 : a_order > b_order;
}

/* Binary search: the index of @name, or -1 with *@at the insert point. */
static long find(const struct kb_kconfig *cfg, const char *name, size_t *at)
{
	_Static_assert(offsetof(struct entry, name) == 0,
		       "kconfig_find_name needs the name first");
	return kconfig_find_name(cfg ? cfg->e : NULL, cfg ? cfg->n : 0,
				 sizeof(struct entry), name, at);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return kconfig_cmp_name_order(x->name, x->order, y->name, y->order);
}

/* Sort appended entries and keep the last of each name. */
static void settle(struct kb_kconfig *cfg)
{
	size_t i, o = 0;

	if (cfg->n)
		qsort(cfg->e, cfg->n, sizeof(*cfg->e), cmp_entry);
	for (i = 0; i < cfg->n; i++) {
		if (i + 1 < cfg->n && !strcmp(cfg->e[i].name, cfg->e[i + 1].name)) {
			free(cfg->e[i].name);
			free(cfg->e[i].value);
			continue;
		}
		cfg->e[o++] = cfg->e[i];
	}
	cfg->n = o;
}

/*
 * Parse the value at @s (up to @end, trailing blanks already cut) into a
 * canonical value.  Returns NULL with *@why and *@col_off set when it is
 * not a .config value.
 */
static char *parse_value(const char *s, const char *end, const char **why,
			 size_t *col_off)
{
	const char *p;
	struct kb_buf b = KB_BUF_INIT;

	*col_off = 0;
	if (s == end) {
		*why = "missing value after '='";
		return NULL;
	}
	if (*s == '"') {
		kb_buf_addch(&b, '"');
		for (p = s + 1; p < end && *p != '"'; p++) {
			if (*p == '\\') {
				if (++p == end)
					break;
			}
			if (*p == '"' || *p == '\\')
				kb_buf_addch(&b, '\\');
			kb_buf_addch(&b, *p);
		}
		if (p >= end) {
			kb_buf_release(&b);
			*why = "unterminated string";
			*col_off = (size_t)(end - s);
			return NULL;
		}
		if (p + 1 != end) {
			kb_buf_release(&b);
			*why = "text after the closing quote";
			*col_off = (size_t)(p + 1 - s);
			return NULL;
		}
		kb_buf_addch(&b, '"');
		return kb_buf_detach(&b);
	}
	if (end - s == 1 && (*s == 'y' || *s == 'm' || *s == 'n'))
		return kb_strndup(s, 1);
	p = s;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (p = s + 2; p < end && isxdigit((unsigned char)*p); p++)
			;
	} else {
		if (*p == '-')
			p++;
		if (p < end && isdigit((unsigned char)*p))
			while (p < end && isdigit((unsigned char)*p))
				p++;
		else
			p = s;
	}
	if (p == end && p != s)
		return kb_strndup(s, (size_t)(end - s));
	*why = "expected y, m, n, a number, 0x hex or a quoted string";
	return NULL;
}

static int parse_line(struct kb_kconfig *cfg, const char *s, size_t len,
		      const char *file, unsigned line, struct kb_err *err)
{
	const char *end = s + len, *p, *name, *why = NULL;
	char *value;
	size_t name_len, off;
	static const char not_set[] = " is not set";

	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	p = s;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return 0;
	if (memchr(s, '\0', len))
		return kb_err_at(err, file, line,
				 (unsigned)((const char *)memchr(s, '\0', len) -
					    s) + 1,
				 "NUL byte in a .config line");
	if (*p == '#') {
		/* "# CONFIG_X is not set" sets n; any other comment is ignored */
		if ((size_t)(end - p) <= 9 + sizeof(not_set) - 1 ||
		    strncmp(p, "# CONFIG_", 9) != 0)
			return 0;
		name = p + 9;
		name_len = name_len_at(name, end);
		if (name_len == 0 ||
		    (size_t)(end - name - name_len) != sizeof(not_set) - 1 ||
		    memcmp(name + name_len, not_set, sizeof(not_set) - 1))
			return 0;
		push_entry(cfg, kb_strndup(name, name_len), kb_strdup("n"),
			   cfg->n);
		return 0;
	}
	if ((size_t)(end - p) < 7 || strncmp(p, "CONFIG_", 7) != 0)
		return kb_err_at(err, file, line, (unsigned)(p - s) + 1,
				 "expected 'CONFIG_NAME=value', '# CONFIG_NAME is not set' or a comment");
	name = p + 7;
	name_len = name_len_at(name, end);
	if (name_len == 0)
		return kb_err_at(err, file, line, (unsigned)(name - s) + 1,
				 "expected a symbol name after 'CONFIG_'");
	p = name + name_len;
	if (p == end || *p != '=')
		return kb_err_at(err, file, line, (unsigned)(p - s) + 1,
				 "expected '=' after 'CONFIG_%.*s'",
				 (int)(name_len > 128 ? 128 : name_len), name);
	p++;
	value = parse_value(p, end, &why, &off);
	if (!value)
		return kb_err_at(err, file, line, (unsigned)(p - s + off) + 1,
				 "CONFIG_%.*s: %s",
				 (int)(name_len > 128 ? 128 : name_len), name,
				 why);
	push_entry(cfg, kb_strndup(name, name_len), value, cfg->n);
	return 0;
}

int kb_kconfig_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_kconfig **out, struct kb_err *err)
{
	struct kb_kconfig *cfg = kb_kconfig_new();
	size_t pos = 0;
	unsigned line = 0;
	int ret = 0;

	*out = NULL;
	if (len > KB_KCONFIG_MAX_FILE) {
		ret = kb_err_set(err, KB_EINPUT, "%s: larger than %u bytes",
				 file, KB_KCONFIG_MAX_FILE);
		goto out;
	}
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (data + pos)) : len - pos;

		line++;
		if (l > KB_KCONFIG_MAX_LINE) {
			ret = kb_err_at(err, file, line, 1,
					"line longer than %d bytes",
					KB_KCONFIG_MAX_LINE);
			goto out;
		}
		if ((ret = parse_line(cfg, data + pos, l, file, line, err)))
			goto out;
		pos += l + 1;
	}
	settle(cfg);
	*out = cfg;
	cfg = NULL;
out:
	kb_kconfig_free(cfg);
	return ret;
}

int kb_kconfig_load(const char *path, struct kb_kconfig **out,
		    struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	*out = NULL;
	ret = kb_buf_read_file(&b, path, KB_KCONFIG_MAX_FILE, err);
	if (!ret)
		ret = kb_kconfig_parse_buffer(b.buf, b.len, path, out, err);
	kb_buf_release(&b);
	return ret;
}

const char *kb_kconfig_get(const struct kb_kconfig *cfg, const char *sym)
{
	long i = find(cfg, sym, NULL);

	return i < 0 ? NULL : cfg->e[i].value;
}

int kconfig_tristate(const char *v)
{
	if (!v || !v[0] || v[1])
		return 0;
	return v[0] == 'y' ? 2 : v[0] == 'm' ? 1 : 0;
}

int kb_kconfig_level(const struct kb_kconfig *cfg, const char *sym)
{
	return kconfig_tristate(kb_kconfig_get(cfg, sym));
}

int kb_kconfig_set(struct kb_kconfig *cfg, const char *sym,
		   const char *value, struct kb_err *err)
{
	const char *why = NULL;
	size_t off, at = 0, len = strlen(sym);
	char *v;
	long i;

	if (len == 0 || name_len_at(sym, sym + len) != len)
		return kb_err_set(err, KB_EINPUT,
				  "'%s' is not a Kconfig symbol name", sym);
	v = parse_value(value, value + strlen(value), &why, &off);
	if (!v)
		return kb_err_set(err, KB_EINPUT, "%s=%s: %s", sym, value,
				  why);
	i = find(cfg, sym, &at);
	if (i >= 0) {
		free(cfg->e[i].value);
		cfg->e[i].value = v;
		return 0;
	}
	push_entry(cfg, kb_strdup(sym), v, at);
	return 0;
}

size_t kb_kconfig_count(const struct kb_kconfig *cfg)
{
	return cfg->n;
}

const char *kb_kconfig_name_at(const struct kb_kconfig *cfg, size_t i,
			       const char **value)
{
	if (i >= cfg->n)
		return NULL;
	if (value)
		*value = cfg->e[i].value;
	return cfg->e[i].name;
}

void kb_kconfig_normalised(const struct kb_kconfig *cfg, struct kb_buf *out)
{
	size_t i;

	for (i = 0; i < cfg->n; i++)
		kb_buf_addf(out, "%s=%s\n", cfg->e[i].name, cfg->e[i].value);
}

void kb_kconfig_digest(const struct kb_kconfig *cfg,
		       char hex[KB_SHA256_HEX_LEN + 1])
{
	struct kb_buf b = KB_BUF_INIT;

	kb_kconfig_normalised(cfg, &b);
	kb_sha256_hex(b.buf, b.len, hex);
	kb_buf_release(&b);
}

void kb_kconfig_write(const struct kb_kconfig *cfg, struct kb_buf *out)
{
	size_t i;

	for (i = 0; i < cfg->n; i++) {
		if (!strcmp(cfg->e[i].value, "n"))
			kb_buf_addf(out, "# CONFIG_%s is not set\n",
				    cfg->e[i].name);
		else
			kb_buf_addf(out, "CONFIG_%s=%s\n", cfg->e[i].name,
				    cfg->e[i].value);
	}
}

int kconfig_parse_number(const char *s, long long *v)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		*v = (long long)strtoull(s + 2, &end, 16);
	else
		*v = strtoll(s, &end, 10);
	return errno || *end || end == s ? -1 : 0;
}

int kb_kconfig_value_matches(const char *requested, const char *resolved)
{
	long long a, b;

	if (!resolved)
		resolved = "n";
	if (!strcmp(requested, resolved))
		return 1;
	if (!kconfig_parse_number(requested, &a) &&
	    !kconfig_parse_number(resolved, &b))
		return a == b;
	return 0;
}

/* ==== string lists ====================================================== */

int kconfig_strlist_has(const struct kconfig_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

void kconfig_strlist_add_owned(struct kconfig_strlist *l, char *s)
{
	if (kconfig_strlist_has(l, s)) {
		free(s);
		return;
	}
	l->v = kb_reallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = s;
}

void kconfig_strlist_add(struct kconfig_strlist *l, const char *s)
{
	kconfig_strlist_add_owned(l, kb_strdup(s));
}

void kconfig_strlist_move(struct kconfig_strlist *dst,
			  struct kconfig_strlist *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		kconfig_strlist_add_owned(dst, src->v[i]);
	free(src->v);
	src->v = NULL;
	src->n = 0;
}

void kconfig_strlist_release(struct kconfig_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void kconfig_strlist_join(const struct kconfig_strlist *l, const char *sep,
			  struct kb_buf *out)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		kb_buf_addf(out, "%s%s", i ? sep : "", l->v[i]);
}
