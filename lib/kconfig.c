#include "kconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "program.h"
#include "mem.h"
#include "paths.h"
#include "sha256.h"
#include "suggest.h"
#include "variant.h"
#include "banned.h"


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

static int is_name_char(int c)
{
	return isalnum(c) || c == '_';
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

/* Binary search: the index of @name, or -1 with *@at the insert point. */
static long find(const struct kb_kconfig *cfg, const char *name, size_t *at)
{
	size_t lo = 0, hi = cfg ? cfg->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(cfg->e[mid].name, name);

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

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
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
		for (name_len = 0; name + name_len < end &&
				   is_name_char((unsigned char)name[name_len]);
		     name_len++)
			;
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
	for (name_len = 0;
	     name + name_len < end && is_name_char((unsigned char)name[name_len]);
	     name_len++)
		;
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

static int tristate_of(const char *v)
{
	if (!v || !v[0] || v[1])
		return 0;
	return v[0] == 'y' ? 2 : v[0] == 'm' ? 1 : 0;
}

int kb_kconfig_level(const struct kb_kconfig *cfg, const char *sym)
{
	return tristate_of(kb_kconfig_get(cfg, sym));
}

int kb_kconfig_set(struct kb_kconfig *cfg, const char *sym,
		   const char *value, struct kb_err *err)
{
	const char *why = NULL, *s;
	size_t off, at = 0;
	char *v;
	long i;

	for (s = sym; *s && is_name_char((unsigned char)*s); s++)
		;
	if (s == sym || *s)
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

/* Parse a decimal or 0x number; returns 0 on success. */
static int parse_number(const char *s, long long *v)
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
	if (!parse_number(requested, &a) && !parse_number(resolved, &b))
		return a == b;
	return 0;
}

/* ==== string lists ====================================================== */

struct strlist {
	char **v;
	size_t n;
};

static int strlist_has(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

static void strlist_add_owned(struct strlist *l, char *s)
{
	if (strlist_has(l, s)) {
		free(s);
		return;
	}
	l->v = kb_reallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = s;
}

static void strlist_add(struct strlist *l, const char *s)
{
	strlist_add_owned(l, kb_strdup(s));
}

static void strlist_move(struct strlist *dst, struct strlist *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		strlist_add_owned(dst, src->v[i]);
	free(src->v);
	src->v = NULL;
	src->n = 0;
}

static void strlist_release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void strlist_join(const struct strlist *l, const char *sep,
			 struct kb_buf *out)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		kb_buf_addf(out, "%s%s", i ? sep : "", l->v[i]);
}

/* ==== Kconfig expressions =============================================== */

#define EXPR_MAX_DEPTH 100
#define EXPR_MAX_NODES 4096

enum node_kind { N_SYM, N_CONST, N_NOT, N_AND, N_OR, N_CMP };
enum cmp_op { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

struct node {
	enum node_kind kind;
	enum cmp_op op;
	char *text;    /* N_SYM, N_CONST */
	int a, b;      /* children (N_NOT: a); N_CMP: operands */
};

struct expr {
	const char *src, *p;
	struct node *n;
	size_t nn;
	int depth;
	const struct kb_kconfig *cfg;
	struct kb_err *err;
};

static int expr_fail(struct expr *e, const char *what)
{
	size_t len = strlen(e->src);

	return kb_err_set(e->err, KB_EINPUT, "'%.*s%s': column %zu: %s",
			  len > 80 ? 80 : (int)len, e->src,
			  len > 80 ? "..." : "", (size_t)(e->p - e->src) + 1,
			  what);
}

static int new_node(struct expr *e, enum node_kind k, char *text, int a,
		    int b)
{
	if (e->nn == EXPR_MAX_NODES) {
		free(text);
		return -1;
	}
	e->n = kb_reallocarray(e->n, e->nn + 1, sizeof(*e->n));
	e->n[e->nn].kind = k;
	e->n[e->nn].op = C_EQ;
	e->n[e->nn].text = text;
	e->n[e->nn].a = a;
	e->n[e->nn].b = b;
	return (int)e->nn++;
}

static void skip_ws(struct expr *e)
{
	while (*e->p == ' ' || *e->p == '\t')
		e->p++;
}

static int is_const_word(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 1 && (*s == 'y' || *s == 'm' || *s == 'n'))
		return 1;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n && isxdigit((unsigned char)s[i]); i++)
			;
		return i == n;
	}
	if (s[0] == '-')
		i++;
	if (i == n)
		return 0;
	for (; i < n && isdigit((unsigned char)s[i]); i++)
		;
	return i == n;
}

/* A symbol, a constant, a quoted string or a $(macro). */
static int parse_operand(struct expr *e)
{
	const char *s;

	skip_ws(e);
	s = e->p;
	if (*s == '"' || *s == '\'') {
		char q = *s;
		struct kb_buf b = KB_BUF_INIT;

		for (e->p++; *e->p && *e->p != q; e->p++) {
			if (*e->p == '\\' && e->p[1])
				e->p++;
			kb_buf_addch(&b, *e->p);
		}
		if (!*e->p) {
			kb_buf_release(&b);
			return expr_fail(e, "unterminated string");
		}
		e->p++;
		return new_node(e, N_CONST, kb_buf_detach(&b), -1, -1);
	}
	if (s[0] == '$' && s[1] == '(') {
		int depth = 0;

		for (; *e->p; e->p++) {
			if (*e->p == '(')
				depth++;
			else if (*e->p == ')' && --depth == 0)
				break;
		}
		if (!*e->p)
			return expr_fail(e, "unterminated $(...)");
		e->p++;
		/* macros are expanded by Kconfig from the shell: count as y */
		return new_node(e, N_CONST, kb_strdup("y"), -1, -1);
	}
	while (is_name_char((unsigned char)*e->p) || *e->p == '-' ||
	       *e->p == '.')
		e->p++;
	if (e->p == s)
		return expr_fail(e, "expected a symbol");
	return new_node(e,
			is_const_word(s, (size_t)(e->p - s)) ? N_CONST : N_SYM,
			kb_strndup(s, (size_t)(e->p - s)), -1, -1);
}

static int parse_or(struct expr *e);

static int parse_primary(struct expr *e)
{
	int a, b, r;
	enum cmp_op op;

	skip_ws(e);
	if (++e->depth > EXPR_MAX_DEPTH)
		return expr_fail(e, "nested too deeply");
	if (*e->p == '!' && e->p[1] != '=') {
		e->p++;
		if ((a = parse_primary(e)) < 0)
			return a;
		r = new_node(e, N_NOT, NULL, a, -1);
		goto out;
	}
	if (*e->p == '(') {
		e->p++;
		if ((a = parse_or(e)) < 0)
			return a;
		skip_ws(e);
		if (*e->p != ')')
			return expr_fail(e, "expected ')'");
		e->p++;
		r = a;
		goto out;
	}
	if ((a = parse_operand(e)) < 0)
		return a;
	skip_ws(e);
	if (e->p[0] == '=') {
		op = C_EQ;
		e->p += 1;
	} else if (e->p[0] == '!' && e->p[1] == '=') {
		op = C_NE;
		e->p += 2;
	} else if (e->p[0] == '<') {
		op = e->p[1] == '=' ? C_LE : C_LT;
		e->p += e->p[1] == '=' ? 2 : 1;
	} else if (e->p[0] == '>') {
		op = e->p[1] == '=' ? C_GE : C_GT;
		e->p += e->p[1] == '=' ? 2 : 1;
	} else {
		r = a;
		goto out;
	}
	if ((b = parse_operand(e)) < 0)
		return b;
	r = new_node(e, N_CMP, NULL, a, b);
	if (r >= 0)
		e->n[r].op = op;
out:
	e->depth--;
	if (r < 0 && r != KB_EINPUT)
		return expr_fail(e, "expression too large");
	return r;
}

static int parse_and(struct expr *e)
{
	int a, b;

	if ((a = parse_primary(e)) < 0)
		return a;
	for (;;) {
		skip_ws(e);
		if (e->p[0] != '&' || e->p[1] != '&')
			return a;
		e->p += 2;
		if ((b = parse_primary(e)) < 0)
			return b;
		if ((a = new_node(e, N_AND, NULL, a, b)) < 0)
			return expr_fail(e, "expression too large");
	}
}

static int parse_or(struct expr *e)
{
	int a, b;

	if ((a = parse_and(e)) < 0)
		return a;
	for (;;) {
		skip_ws(e);
		if (e->p[0] != '|' || e->p[1] != '|')
			return a;
		e->p += 2;
		if ((b = parse_and(e)) < 0)
			return b;
		if ((a = new_node(e, N_OR, NULL, a, b)) < 0)
			return expr_fail(e, "expression too large");
	}
}

/* The text value of an operand: a symbol's value unquoted, or "n". */
static char *operand_value(const struct expr *e, const struct node *n)
{
	const char *v;
	size_t len;

	if (n->kind == N_CONST)
		return kb_strdup(n->text);
	v = kb_kconfig_get(e->cfg, n->text);
	if (!v)
		return kb_strdup("n");
	len = strlen(v);
	if (len >= 2 && v[0] == '"') {
		struct kb_buf b = KB_BUF_INIT;
		size_t i;

		for (i = 1; i + 1 < len; i++) {
			if (v[i] == '\\' && i + 2 < len)
				i++;
			kb_buf_addch(&b, v[i]);
		}
		return kb_buf_detach(&b);
	}
	return kb_strdup(v);
}

static int eval_node(const struct expr *e, int i)
{
	const struct node *n = &e->n[i];
	int a, b;

	switch (n->kind) {
	case N_SYM:
		return kb_kconfig_level(e->cfg, n->text);
	case N_CONST:
		return tristate_of(n->text);
	case N_NOT:
		return 2 - eval_node(e, n->a);
	case N_AND:
		a = eval_node(e, n->a);
		b = eval_node(e, n->b);
		return a < b ? a : b;
	case N_OR:
		a = eval_node(e, n->a);
		b = eval_node(e, n->b);
		return a > b ? a : b;
	case N_CMP: {
		char *x = operand_value(e, &e->n[n->a]);
		char *y = operand_value(e, &e->n[n->b]);
		long long u, v;
		int c, r = 0;

		if (!parse_number(x, &u) && !parse_number(y, &v))
			c = u < v ? -1 : u > v;
		else
			c = strcmp(x, y);
		switch (n->op) {
		case C_EQ: r = c == 0; break;
		case C_NE: r = c != 0; break;
		case C_LT: r = c < 0; break;
		case C_LE: r = c <= 0; break;
		case C_GT: r = c > 0; break;
		case C_GE: r = c >= 0; break;
		}
		free(x);
		free(y);
		return r ? 2 : 0;
	}
	}
	return 0;
}

static void cmp_text(const struct expr *e, const struct node *n, int negate,
		     struct kb_buf *out)
{
	static const char *const ops[] = { "=", "!=", "<", "<=", ">", ">=" };
	static const char *const neg[] = { "!=", "=", ">=", ">", "<=", "<" };

	kb_buf_addf(out, "%s%s%s", e->n[n->a].text,
		    negate ? neg[n->op] : ops[n->op], e->n[n->b].text);
}

static void unmet_low(const struct expr *e, int i, int max,
		      struct strlist *out);

/* What keeps node @i below @need. */
static void unmet_high(const struct expr *e, int i, int need,
		       struct strlist *out)
{
	const struct node *n = &e->n[i];
	struct kb_buf b = KB_BUF_INIT;

	if (eval_node(e, i) >= need)
		return;
	switch (n->kind) {
	case N_SYM:
		strlist_add(out, n->text);
		break;
	case N_CONST:
		break;
	case N_NOT:
		unmet_low(e, n->a, 2 - need, out);
		break;
	case N_AND:
		unmet_high(e, n->a, need, out);
		unmet_high(e, n->b, need, out);
		break;
	case N_OR: {
		struct strlist x = { NULL, 0 }, y = { NULL, 0 };

		/* the alternative that needs fewer changes */
		unmet_high(e, n->a, need, &x);
		unmet_high(e, n->b, need, &y);
		/* ties go to the side that is closer (higher now) */
		if (y.n && (y.n < x.n || !x.n ||
			    (y.n == x.n &&
			     eval_node(e, n->b) > eval_node(e, n->a)))) {
			strlist_move(out, &y);
			strlist_release(&x);
		} else {
			strlist_move(out, &x);
			strlist_release(&y);
		}
		break;
	}
	case N_CMP:
		cmp_text(e, n, 0, &b);
		strlist_add_owned(out, kb_buf_detach(&b));
		break;
	}
}

/* What keeps node @i above @max. */
static void unmet_low(const struct expr *e, int i, int max,
		      struct strlist *out)
{
	const struct node *n = &e->n[i];
	struct kb_buf b = KB_BUF_INIT;

	if (eval_node(e, i) <= max)
		return;
	switch (n->kind) {
	case N_SYM:
		strlist_add_owned(out, kb_asprintf("!%s", n->text));
		break;
	case N_CONST:
		break;
	case N_NOT:
		unmet_high(e, n->a, 2 - max, out);
		break;
	case N_OR:
		unmet_low(e, n->a, max, out);
		unmet_low(e, n->b, max, out);
		break;
	case N_AND: {
		struct strlist x = { NULL, 0 }, y = { NULL, 0 };

		unmet_low(e, n->a, max, &x);
		unmet_low(e, n->b, max, &y);
		if (y.n && (y.n < x.n || !x.n)) {
			strlist_move(out, &y);
			strlist_release(&x);
		} else {
			strlist_move(out, &x);
			strlist_release(&y);
		}
		break;
	}
	case N_CMP:
		cmp_text(e, n, 1, &b);
		strlist_add_owned(out, kb_buf_detach(&b));
		break;
	}
}

static void expr_release(struct expr *e)
{
	size_t i;

	for (i = 0; i < e->nn; i++)
		free(e->n[i].text);
	free(e->n);
	e->n = NULL;
	e->nn = 0;
}

static int expr_parse(struct expr *e, const char *src,
		      const struct kb_kconfig *cfg, struct kb_err *err)
{
	int root;

	memset(e, 0, sizeof(*e));
	e->src = e->p = src;
	e->cfg = cfg;
	e->err = err;
	root = parse_or(e);
	if (root >= 0) {
		skip_ws(e);
		if (*e->p)
			root = expr_fail(e, "unexpected text after the expression");
	}
	if (root < 0)
		expr_release(e);
	return root;
}

/* The unmet list of @expr as strings; 0 or KB_EINPUT. */
static int expr_unmet(const char *src, const struct kb_kconfig *cfg,
		      int need, int *level, struct strlist *out,
		      struct kb_err *err)
{
	struct expr e;
	int root = expr_parse(&e, src, cfg, err);

	if (root < 0)
		return root;
	*level = eval_node(&e, root);
	if (out && *level < need)
		unmet_high(&e, root, need, out);
	expr_release(&e);
	return 0;
}

int kb_kconfig_eval(const char *expr, const struct kb_kconfig *cfg,
		    int need, int *level, struct kb_buf *unmet,
		    struct kb_err *err)
{
	struct strlist l = { NULL, 0 };
	int ret;

	*level = 0;
	ret = expr_unmet(expr, cfg, need, level, unmet ? &l : NULL, err);
	if (!ret && unmet)
		strlist_join(&l, ", ", unmet);
	strlist_release(&l);
	return ret;
}

/* ==== the symbols of a tree ============================================= */

#define SCAN_MAX_DEPTH 32        /* nested `source` */
#define SCAN_MAX_CONTEXT 64      /* nested if/menu/choice */
#define SCAN_MAX_FILE (4u << 20) /* one Kconfig file */

struct def {
	char *name;
	char *where;    /* "file:line" */
	char *type;     /* "bool", ... or NULL */
	char *dep;      /* own depends && context, or NULL for none */
	int prompt;
	size_t order;
};

struct sel {
	char *target;
	char *by;
	size_t order;
};

struct sym {
	char *name;
	const char *where;
	const char *type;
	char *depends;     /* NULL: none */
	char *selected_by; /* NULL: none */
	int prompt;
};

struct kb_ksyms {
	size_t n;
	struct sym *s;       /* sorted by name */
	const char **names;  /* for kb_suggest */
	struct def *defs;    /* owned strings for where/type */
	size_t ndefs;
};

struct scan {
	const char *tree;
	const char *srcarch;
	const char *arch;
	struct def *defs;
	size_t ndefs, adefs;
	struct sel *sels;
	size_t nsels, asels;
	/* the open if/menu/choice blocks: their conditions (NULL: none) */
	char *ctx[SCAN_MAX_CONTEXT];
	char ctx_kind[SCAN_MAX_CONTEXT]; /* 'i' if, 'm' menu, 'c' choice */
	int nctx;
	struct kb_err *err;
};

/* Join @a and @b with " && ", parenthesising sides that hold "||". */
static char *and_join(const char *a, const char *b)
{
	int pa, pb;

	if (!a || !*a)
		return b ? kb_strdup(b) : NULL;
	if (!b || !*b)
		return kb_strdup(a);
	pa = strstr(a, "||") != NULL;
	pb = strstr(b, "||") != NULL;
	return kb_asprintf("%s%s%s && %s%s%s", pa ? "(" : "", a, pa ? ")" : "",
			   pb ? "(" : "", b, pb ? ")" : "");
}

/* Cut a trailing "# comment" outside quotes and trailing blanks. */
static void cut_comment(char *s)
{
	char q = 0, *p, *end;

	for (p = s; *p; p++) {
		if (q) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == q)
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == '#') {
			*p = '\0';
			break;
		}
	}
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
}

static unsigned indent_of(const char *s)
{
	unsigned col = 0;

	for (; *s == ' ' || *s == '\t'; s++)
		col = *s == '\t' ? (col + 8) & ~7u : col + 1;
	return col;
}

/* Skip a quoted prompt at @s; returns what follows, or NULL if none. */
static const char *skip_quoted(const char *s)
{
	char q;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '"' && *s != '\'')
		return NULL;
	q = *s++;
	for (; *s && *s != q; s++)
		if (*s == '\\' && s[1])
			s++;
	return *s ? s + 1 : s;
}

/* If @s (after blanks) starts with keyword @kw followed by a blank or the
 * end, return what follows it (blanks skipped); else NULL. */
static const char *keyword(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, kw, n) || (s[n] && s[n] != ' ' && s[n] != '\t'))
		return NULL;
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The condition of a trailing "if EXPR" in @s, or NULL. */
static const char *trailing_if(const char *s)
{
	const char *p;

	for (p = s; (p = strstr(p, "if")); p++)
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[2] == ' ' || p[2] == '\t'))
			return keyword(p, "if");
	return NULL;
}

static char *context_dep(const struct scan *sc)
{
	char *d = NULL, *t;
	int i;

	for (i = sc->nctx - 1; i >= 0; i--) {
		if (!sc->ctx[i])
			continue;
		t = and_join(d, sc->ctx[i]);
		free(d);
		d = t;
	}
	return d;
}

static char *expand_path(const struct scan *sc, const char *cur,
			 const char *p, int relative)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *s;

	if (relative) {
		const char *slash = strrchr(cur, '/');

		if (slash)
			kb_buf_add(&b, cur, (size_t)(slash - cur + 1));
	} else {
		kb_buf_addf(&b, "%s/", sc->tree);
	}
	for (s = p; *s; s++) {
		if (!strncmp(s, "$(SRCARCH)", 10)) {
			kb_buf_adds(&b, sc->srcarch);
			s += 9;
		} else if (!strncmp(s, "$(srctree)/", 11)) {
			s += 10;
		} else if (s[0] == '$' && s[1] == '(') {
			kb_buf_release(&b);
			return NULL; /* a variable we do not know */
		} else {
			kb_buf_addch(&b, *s);
		}
	}
	return kb_buf_detach(&b);
}

static int scan_file(struct scan *sc, const char *path, int depth);

/* @s with $(ARCH) and $(SRCARCH) replaced by their values (caller frees). */
static char *expand_vars(const struct scan *sc, const char *s)
{
	struct kb_buf b = KB_BUF_INIT;

	for (; *s; s++) {
		if (!strncmp(s, "$(ARCH)", 7)) {
			kb_buf_adds(&b, sc->arch);
			s += 6;
		} else if (!strncmp(s, "$(SRCARCH)", 10)) {
			kb_buf_adds(&b, sc->srcarch);
			s += 9;
		} else {
			kb_buf_addch(&b, *s);
		}
	}
	return kb_buf_detach(&b);
}

struct entry_state {
	struct def *d;     /* the config entry being read, or NULL */
	char **deps;       /* its own `depends on` so far */
	int in_block;      /* 'm' menu / 'c' choice reading its attributes */
};

static void finish_entry(struct scan *sc, struct entry_state *st)
{
	char *ctx;

	if (st->d) {
		ctx = context_dep(sc);
		if (ctx || st->d->dep) {
			char *t = and_join(st->d->dep, ctx);

			free(st->d->dep);
			st->d->dep = t;
		}
		free(ctx);
	}
	st->d = NULL;
	st->in_block = 0;
}

static void add_dep(char **slot, const char *expr)
{
	char *t = and_join(*slot, expr);

	free(*slot);
	*slot = t;
}

static int scan_line(struct scan *sc, const char *path, const char *rel,
		     unsigned lineno, char *line, struct entry_state *st,
		     int depth)
{
	const char *a;
	char *name;

	if ((a = keyword(line, "config")) || (a = keyword(line, "menuconfig"))) {
		const char *e = a;

		finish_entry(sc, st);
		while (is_name_char((unsigned char)*e))
			e++;
		if (e == a)
			return 0;
		name = kb_strndup(a, (size_t)(e - a));
		if (sc->ndefs == sc->adefs) {
			sc->adefs = sc->adefs ? sc->adefs * 2 : 1024;
			sc->defs = kb_reallocarray(sc->defs, sc->adefs,
						   sizeof(*sc->defs));
		}
		st->d = &sc->defs[sc->ndefs];
		memset(st->d, 0, sizeof(*st->d));
		st->d->name = name;
		st->d->where = kb_asprintf("%s:%u", rel, lineno);
		st->d->order = sc->ndefs++;
		return 0;
	}
	if ((a = keyword(line, "source")) || (a = keyword(line, "osource")) ||
	    (a = keyword(line, "rsource")) || (a = keyword(line, "orsource"))) {
		const char *w = line + strspn(line, " \t");
		int optional = w[0] == 'o';
		int relative = w[0] == 'r' || (w[0] == 'o' && w[1] == 'r');
		const char *end;
		char *q, *full;
		struct stat stt;
		int ret;

		finish_entry(sc, st);
		if (*a != '"' || !(end = strchr(a + 1, '"')))
			return 0;
		q = kb_strndup(a + 1, (size_t)(end - a - 1));
		full = expand_path(sc, path, q, relative);
		free(q);
		if (!full)
			return 0;
		if (stat(full, &stt) < 0) {
			if (optional) {
				free(full);
				return 0;
			}
			ret = kb_err_set(sc->err, KB_EFAIL,
					 "%s:%u: sourced file '%s' does not exist",
					 path, lineno, full);
			free(full);
			return ret;
		}
		ret = scan_file(sc, full, depth + 1);
		free(full);
		return ret;
	}
	if ((a = keyword(line, "if"))) {
		finish_entry(sc, st);
		if (sc->nctx == SCAN_MAX_CONTEXT)
			return kb_err_set(sc->err, KB_EFAIL,
					  "%s:%u: if/menu nested too deeply",
					  path, lineno);
		sc->ctx_kind[sc->nctx] = 'i';
		sc->ctx[sc->nctx++] = *a ? kb_strdup(a) : NULL;
		return 0;
	}
	if (keyword(line, "menu") || keyword(line, "choice")) {
		const char *w = line + strspn(line, " \t");

		finish_entry(sc, st);
		if (sc->nctx == SCAN_MAX_CONTEXT)
			return kb_err_set(sc->err, KB_EFAIL,
					  "%s:%u: if/menu nested too deeply",
					  path, lineno);
		sc->ctx_kind[sc->nctx] = w[0] == 'm' ? 'm' : 'c';
		sc->ctx[sc->nctx++] = NULL;
		st->in_block = w[0] == 'm' ? 'm' : 'c';
		return 0;
	}
	if (keyword(line, "endif") || keyword(line, "endmenu") ||
	    keyword(line, "endchoice")) {
		const char *w = line + strspn(line, " \t");
		char want = w[3] == 'i' ? 'i' : w[3] == 'm' ? 'm' : 'c';

		finish_entry(sc, st);
		if (sc->nctx > 0 && sc->ctx_kind[sc->nctx - 1] == want) {
			sc->nctx--;
			free(sc->ctx[sc->nctx]);
			sc->ctx[sc->nctx] = NULL;
		}
		return 0;
	}
	if (keyword(line, "comment") || keyword(line, "mainmenu")) {
		finish_entry(sc, st);
		return 0;
	}
	if ((a = keyword(line, "depends"))) {
		const char *e = keyword(a, "on");

		if (!e || !*e)
			return 0;
		if (st->d)
			add_dep(&st->d->dep, e);
		else if (st->in_block && sc->nctx > 0)
			add_dep(&sc->ctx[sc->nctx - 1], e);
		return 0;
	}
	if (!st->d)
		return 0;
	{
		static const char *const types[] = { "bool", "tristate",
						     "string", "int", "hex",
						     "def_bool", "def_tristate",
						     "prompt" };
		size_t i;

		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			const char *rest, *after, *cond;

			if (!(a = keyword(line, types[i])))
				continue;
			if (i < 7 && !st->d->type)
				st->d->type = kb_strdup(
					i == 5 ? "bool"
					: i == 6 ? "tristate" : types[i]);
			if (i >= 5 && i < 7)
				return 0; /* def_bool EXPR: no prompt */
			rest = a;
			after = skip_quoted(rest);
			if (!after)
				return 0;
			st->d->prompt = 1;
			cond = trailing_if(after);
			if (cond && *cond)
				add_dep(&st->d->dep, cond);
			return 0;
		}
	}
	if ((a = keyword(line, "select"))) {
		const char *e = a;

		while (is_name_char((unsigned char)*e))
			e++;
		if (e == a)
			return 0;
		if (sc->nsels == sc->asels) {
			sc->asels = sc->asels ? sc->asels * 2 : 1024;
			sc->sels = kb_reallocarray(sc->sels, sc->asels,
						   sizeof(*sc->sels));
		}
		sc->sels[sc->nsels].target = kb_strndup(a, (size_t)(e - a));
		sc->sels[sc->nsels].by = kb_strdup(st->d->name);
		sc->sels[sc->nsels].order = sc->nsels;
		sc->nsels++;
	}
	return 0;
}

static int scan_file(struct scan *sc, const char *path, int depth)
{
	struct kb_buf b = KB_BUF_INIT, line = KB_BUF_INIT;
	struct entry_state st = { NULL, NULL, 0 };
	const char *rel = path;
	size_t pos = 0, tl = strlen(sc->tree);
	unsigned lineno = 0, start = 0, help_indent = 0;
	int ret, in_help = 0, help_first = 0;

	if (depth > SCAN_MAX_DEPTH)
		return kb_err_set(sc->err, KB_EFAIL,
				  "'%s': Kconfig files source each other more than %d deep",
				  path, SCAN_MAX_DEPTH);
	if (!strncmp(path, sc->tree, tl) && path[tl] == '/')
		rel = path + tl + 1;
	if ((ret = kb_buf_read_file(&b, path, SCAN_MAX_FILE, sc->err)))
		goto out;
	while (pos < b.len) {
		const char *s = b.buf + pos;
		const char *nl = memchr(s, '\n', b.len - pos);
		size_t l = nl ? (size_t)(nl - s) : b.len - pos;
		int blank;

		pos += l + 1;
		lineno++;
		if (line.len == 0)
			start = lineno;
		if (line.len) {
			/* a continued line: one blank at the join */
			size_t skip = strspn(s, " \t");

			if (skip > l)
				skip = l;
			kb_buf_addch(&line, ' ');
			s += skip;
			l -= skip;
		}
		kb_buf_add(&line, s, l);
		if (line.len && line.buf[line.len - 1] == '\\' && !in_help) {
			line.buf[--line.len] = '\0';
			while (line.len && (line.buf[line.len - 1] == ' ' ||
					    line.buf[line.len - 1] == '\t'))
				line.buf[--line.len] = '\0';
			continue;
		}
		blank = line.buf[strspn(line.buf, " \t\r")] == '\0';
		if (in_help) {
			unsigned ind = indent_of(line.buf);

			if (blank) {
				kb_buf_reset(&line);
				continue;
			}
			if (help_first) {
				help_first = 0;
				help_indent = ind;
			}
			if (ind >= help_indent && ind > 0) {
				kb_buf_reset(&line);
				continue;
			}
			in_help = 0;
		}
		if (keyword(line.buf, "help") || keyword(line.buf, "---help---")) {
			in_help = 1;
			help_first = 1;
			kb_buf_reset(&line);
			continue;
		}
		cut_comment(line.buf);
		if (strstr(line.buf, "$(")) {
			char *x = expand_vars(sc, line.buf);

			kb_buf_reset(&line);
			kb_buf_adds(&line, x);
			free(x);
		}
		ret = scan_line(sc, path, rel, start, line.buf, &st, depth);
		kb_buf_reset(&line);
		if (ret)
			goto out;
	}
	finish_entry(sc, &st);
	ret = 0;
out:
	kb_buf_release(&line);
	kb_buf_release(&b);
	return ret;
}

static int cmp_def(const void *a, const void *b)
{
	const struct def *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_sel(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;
	int c = strcmp(x->target, y->target);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static const char *srcarch_of(const char *arch)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i386"))
		return "x86";
	if (!strcmp(arch, "sparc64") || !strcmp(arch, "sparc32"))
		return "sparc";
	if (!strcmp(arch, "parisc64"))
		return "parisc";
	if (!strcmp(arch, "sh64"))
		return "sh";
	return arch;
}

static struct sym *lookup(const struct kb_ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks ? ks->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ks->s[mid].name, name);

		if (c == 0)
			return &ks->s[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Fold the per-definition records into one record per symbol. */
static struct kb_ksyms *fold(struct scan *sc)
{
	struct kb_ksyms *ks = kb_calloc(1, sizeof(*ks));
	size_t i, j, k;

	if (sc->ndefs)
		qsort(sc->defs, sc->ndefs, sizeof(*sc->defs), cmp_def);
	if (sc->nsels)
		qsort(sc->sels, sc->nsels, sizeof(*sc->sels), cmp_sel);
	ks->defs = sc->defs;
	ks->ndefs = sc->ndefs;
	sc->defs = NULL;
	sc->ndefs = 0;
	ks->s = kb_calloc(ks->ndefs ? ks->ndefs : 1, sizeof(*ks->s));
	for (i = 0; i < ks->ndefs; i = j) {
		struct sym *s = &ks->s[ks->n++];
		int none = 0, many = 0;
		struct kb_buf b = KB_BUF_INIT;

		s->name = ks->defs[i].name;
		s->where = ks->defs[i].where;
		for (j = i; j < ks->ndefs && !strcmp(ks->defs[j].name, s->name);
		     j++) {
			struct def *d = &ks->defs[j];

			if (!s->type && d->type)
				s->type = d->type;
			s->prompt |= d->prompt;
			/* only definitions with a prompt let the user set it;
			 * without any, every definition counts */
			if (!d->dep)
				none = 1;
			else
				kb_buf_addf(&b, "%s%s%s%s", b.len ? " || " : "",
					    "(", d->dep, ")");
			many += j > i;
		}
		if (!none && b.len) {
			if (!many)
				s->depends = kb_strdup(ks->defs[i].dep);
			else
				s->depends = kb_buf_detach(&b);
		}
		kb_buf_release(&b);
	}
	for (i = 0; i < sc->nsels; i = k) {
		struct sym *s = lookup(ks, sc->sels[i].target);
		struct strlist l = { NULL, 0 };
		struct kb_buf b = KB_BUF_INIT;

		for (k = i; k < sc->nsels &&
			    !strcmp(sc->sels[k].target, sc->sels[i].target);
		     k++)
			strlist_add(&l, sc->sels[k].by);
		if (s) {
			strlist_join(&l, ", ", &b);
			s->selected_by = kb_buf_detach(&b);
		}
		strlist_release(&l);
	}
	ks->names = kb_calloc(ks->n ? ks->n : 1, sizeof(*ks->names));
	for (i = 0; i < ks->n; i++)
		ks->names[i] = ks->s[i].name;
	return ks;
}

int kb_kconfig_tree_scan(const char *tree, const char *arch,
			 struct kb_ksyms **out, struct kb_err *err)
{
	struct scan sc;
	struct stat st;
	char *top = kb_asprintf("%s/Kconfig", tree);
	size_t i;
	int ret;

	*out = NULL;
	memset(&sc, 0, sizeof(sc));
	sc.tree = tree;
	sc.arch = arch ? arch : "x86_64";
	sc.srcarch = srcarch_of(sc.arch);
	sc.err = err;
	if (stat(top, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "'%s' is not a kernel tree: it has no top-level Kconfig",
				 tree);
		goto out;
	}
	if ((ret = scan_file(&sc, top, 0)))
		goto out;
	*out = fold(&sc);
out:
	for (i = 0; i < sc.ndefs; i++) {
		free(sc.defs[i].name);
		free(sc.defs[i].where);
		free(sc.defs[i].type);
		free(sc.defs[i].dep);
	}
	free(sc.defs);
	for (i = 0; i < sc.nsels; i++) {
		free(sc.sels[i].target);
		free(sc.sels[i].by);
	}
	free(sc.sels);
	for (i = 0; i < (size_t)sc.nctx; i++)
		free(sc.ctx[i]);
	free(top);
	return ret;
}

void kb_ksyms_free(struct kb_ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++) {
		free(ks->s[i].depends);
		free(ks->s[i].selected_by);
	}
	for (i = 0; i < ks->ndefs; i++) {
		free(ks->defs[i].name);
		free(ks->defs[i].where);
		free(ks->defs[i].type);
		free(ks->defs[i].dep);
	}
	free(ks->defs);
	free(ks->s);
	free(ks->names);
	free(ks);
}

size_t kb_ksyms_count(const struct kb_ksyms *ks)
{
	return ks->n;
}

int kb_ksyms_has(const struct kb_ksyms *ks, const char *name)
{
	return lookup(ks, name) != NULL;
}

const char *kb_ksyms_suggest(const struct kb_ksyms *ks, const char *name)
{
	return kb_suggest(name, ks->names, ks->n);
}

const char *kb_ksyms_depends(const struct kb_ksyms *ks, const char *name)
{
	const struct sym *s = lookup(ks, name);

	return s ? s->depends : NULL;
}

const char *kb_ksyms_where(const struct kb_ksyms *ks, const char *name)
{
	const struct sym *s = lookup(ks, name);

	return s ? s->where : NULL;
}

const char *kb_ksyms_type(const struct kb_ksyms *ks, const char *name)
{
	const struct sym *s = lookup(ks, name);

	return !s ? NULL : s->type ? s->type : "unknown";
}

int kb_ksyms_has_prompt(const struct kb_ksyms *ks, const char *name)
{
	const struct sym *s = lookup(ks, name);

	return s ? s->prompt : 0;
}

const char *kb_ksyms_selected_by(const struct kb_ksyms *ks,
				 const char *name)
{
	const struct sym *s = lookup(ks, name);

	return s ? s->selected_by : NULL;
}

/* ==== why an option did not hold ======================================== */

/* The selectors of @name that are set in @cfg, comma-separated. */
static void active_selectors(const struct kb_ksyms *ks,
			     const struct kb_kconfig *cfg, const char *name,
			     struct kb_buf *out)
{
	const char *by = kb_ksyms_selected_by(ks, name), *p, *e;
	int n = 0;

	for (p = by; p && *p; p = *e ? e + 2 : e) {
		char *one;

		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		one = kb_strndup(p, (size_t)(e - p));
		if (kb_kconfig_level(cfg, one) > 0)
			kb_buf_addf(out, "%s%s", n++ ? ", " : "", one);
		free(one);
	}
}

void kb_kconfig_explain(const struct kb_ksyms *ks,
			const struct kb_kconfig *resolved, const char *name,
			const char *requested, struct kb_buf *out)
{
	const char *res = kb_kconfig_get(resolved, name);
	const char *dep, *type;
	int want = tristate_of(requested), is_tri, level = 0;
	struct strlist l = { NULL, 0 };
	struct kb_buf b = KB_BUF_INIT;

	if (!res)
		res = "n";
	is_tri = !strcmp(requested, "y") || !strcmp(requested, "m") ||
		 !strcmp(requested, "n");
	if (!ks) {
		kb_buf_addf(out, "resolved to %s", res);
		return;
	}
	if (!kb_ksyms_has(ks, name)) {
		kb_buf_adds(out, "not a Kconfig symbol of this tree");
		return;
	}
	type = kb_ksyms_type(ks, name);
	dep = kb_ksyms_depends(ks, name);
	if (!is_tri || want > 0) {
		int need = is_tri ? want : 2;

		if (dep && !expr_unmet(dep, resolved, need, &level, &l, NULL) &&
		    level < need) {
			kb_buf_addf(out, "depends on %s", dep);
			if (l.n) {
				kb_buf_adds(out, " (unmet: ");
				strlist_join(&l, ", ", out);
				kb_buf_adds(out, ")");
			} else if (level == 1) {
				kb_buf_adds(out, ", which is m: only m or n is possible");
			}
			goto out;
		}
		if (want == 1 && !strcmp(type, "bool")) {
			kb_buf_addf(out, "%s is a bool: m is not possible (resolved to %s)",
				    name, res);
			goto out;
		}
		if (want == 1 && kb_kconfig_level(resolved, "MODULES") == 0) {
			kb_buf_adds(out, "m needs MODULES=y (unmet: MODULES)");
			goto out;
		}
		if (!kb_ksyms_has_prompt(ks, name)) {
			kb_buf_addf(out, "has no prompt: only defaults and selects set it (resolved to %s", res);
			if (kb_ksyms_selected_by(ks, name))
				kb_buf_addf(out, "; selected by %s",
					    kb_ksyms_selected_by(ks, name));
			kb_buf_adds(out, ")");
			goto out;
		}
		if (!is_tri) {
			kb_buf_addf(out, "resolved to %s (a %s: out of its range, or not its type)",
				    res, type);
			goto out;
		}
		kb_buf_addf(out, "resolved to %s (a choice or a select overrode it)",
			    res);
		goto out;
	}
	/* asked for n and it came out set */
	active_selectors(ks, resolved, name, &b);
	if (b.len) {
		kb_buf_addf(out, "selected by %s (resolved to %s)", b.buf, res);
		goto out;
	}
	if (!kb_ksyms_has_prompt(ks, name)) {
		kb_buf_addf(out, "has no prompt: its default sets it (resolved to %s)",
			    res);
		goto out;
	}
	kb_buf_addf(out, "resolved to %s (a choice or an imply set it)", res);
out:
	kb_buf_release(&b);
	strlist_release(&l);
}

#define FIX_MAX_DEPTH 8
#define FIX_MAX_LINES 64

static void fix_walk(const struct kb_ksyms *ks, const struct kb_kconfig *cfg,
		     const char *dep, int need, int depth,
		     struct strlist *seen, struct kb_buf *out)
{
	struct strlist l = { NULL, 0 };
	int level;
	size_t i;

	if (!dep || depth > FIX_MAX_DEPTH || seen->n > FIX_MAX_LINES)
		return;
	if (expr_unmet(dep, cfg, need, &level, &l, NULL) || level >= need)
		goto out;
	for (i = 0; i < l.n; i++) {
		const char *item = l.v[i];
		int neg = item[0] == '!';
		const char *sym = item + neg;

		if (strlist_has(seen, sym) || !kb_ksyms_has(ks, sym))
			continue;
		strlist_add(seen, sym);
		if (neg) {
			kb_buf_addf(out, "# CONFIG_%s is not set\n", sym);
			continue;
		}
		fix_walk(ks, cfg, kb_ksyms_depends(ks, sym), 2, depth + 1,
			 seen, out);
		if (kb_ksyms_has_prompt(ks, sym))
			kb_buf_addf(out, "CONFIG_%s=y\n", sym);
	}
out:
	strlist_release(&l);
}

void kb_kconfig_suggest_fix(const struct kb_ksyms *ks,
			    const struct kb_kconfig *resolved,
			    const char *name, const char *requested,
			    struct kb_buf *out)
{
	struct strlist seen = { NULL, 0 };
	int want = tristate_of(requested);

	if (!ks || !kb_ksyms_has(ks, name))
		return;
	if (!strcmp(requested, "n"))
		return;
	strlist_add(&seen, name);
	fix_walk(ks, resolved, kb_ksyms_depends(ks, name), want ? want : 2, 0,
		 &seen, out);
	strlist_release(&seen);
}

void kb_kconfig_outcome_release(struct kb_kconfig_outcome *o)
{
	free(o->name);
	free(o->requested);
	free(o->resolved);
	free(o->reason);
	free(o->fix);
	memset(o, 0, sizeof(*o));
}

size_t kb_kconfig_compare(const struct kb_setting *settings,
			  size_t nsettings, const struct kb_kconfig *resolved,
			  const struct kb_ksyms *syms,
			  struct kb_kconfig_outcome *out)
{
	size_t i, n = 0;

	for (i = 0; i < nsettings; i++) {
		const struct kb_setting *s = &settings[i];
		struct kb_kconfig_outcome *o;
		const char *res;

		if (s->kind != KB_FACTOR_KCONFIG)
			continue;
		o = &out[n++];
		res = kb_kconfig_get(resolved, s->name);
		memset(o, 0, sizeof(*o));
		o->name = kb_strdup(s->name);
		o->requested = kb_strdup(s->value);
		o->resolved = kb_strdup(res ? res : "n");
		o->held = kb_kconfig_value_matches(s->value, res);
		if (!o->held) {
			struct kb_buf b = KB_BUF_INIT;

			kb_kconfig_explain(syms, resolved, s->name, s->value,
					   &b);
			o->reason = kb_buf_detach(&b);
			kb_kconfig_suggest_fix(syms, resolved, s->name,
					       s->value, &b);
			o->fix = b.len ? kb_buf_detach(&b) : NULL;
			kb_buf_release(&b);
		}
	}
	return n;
}

/* ==== resolution ======================================================== */

#define LOG_TAIL_LINES 20

char *kb_kconfig_default_cache_dir(void)
{
	return kb_cache_dir("configs");
}

void kb_kconfig_resolution_free(struct kb_kconfig_resolution *r)
{
	size_t i;

	if (!r)
		return;
	kb_kconfig_free(r->config);
	free(r->config_text);
	for (i = 0; i < r->noutcomes; i++)
		kb_kconfig_outcome_release(&r->outcomes[i]);
	free(r->outcomes);
	free(r);
}

/* The last @n lines of file @path, into @out. */
static void file_tail(const char *path, unsigned n, struct kb_buf *out)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;
	unsigned seen = 0;

	if (kb_buf_read_file(&b, path, 64u << 20, NULL)) {
		kb_buf_release(&b);
		return;
	}
	for (i = b.len; i > 0; i--)
		if (b.buf[i - 1] == '\n' && i != b.len && ++seen == n)
			break;
	kb_buf_adds(out, b.buf + i);
	kb_buf_release(&b);
}


/*
 * Run @argv with stdin from /dev/null and stdout and stderr appended to
 * @log (or, with @capture, into @capture through a pipe).  Returns 0 when
 * it exits 0, else KB_EFAIL with a message naming @what.
 */
static int run(const char *const *argv, const char *log, struct kb_buf *capture,
	       const char *what, struct kb_err *err)
{
	char **env = kb_program_make_env();
	struct kb_program prog = { argv, env,
				   capture ? KB_PROGRAM_PIPE : KB_PROGRAM_LOG,
				   capture ? KB_PROGRAM_NULL : KB_PROGRAM_LOG,
				   log };
	int status, ret;

	ret = kb_program_capture(&prog, capture, 1u << 20, &status, err);
	free(env);
	if (ret == 0 && status != 0) {
		struct kb_buf tail = KB_BUF_INIT;

		if (log)
			file_tail(log, LOG_TAIL_LINES, &tail);
		ret = kb_err_set(err, KB_EFAIL, "%s failed (%s %d)%s%s%s%s",
				 what, status > 128 ? "signal" : "exit status",
				 status > 128 ? status - 128 : status,
				 log ? "; the end of " : "", log ? log : "",
				 log ? ":\n" : "", tail.buf);
		kb_buf_release(&tail);
	}
	return ret;
}

static int make(const struct kb_kconfig_resolve_opts *o, const char *odir,
		const char *log, const char *target, struct kb_err *err)
{
	char *arch = kb_asprintf("ARCH=%s", o->arch ? o->arch : "x86_64");
	char *oarg = kb_asprintf("O=%s", odir);
	char *what = kb_asprintf("make %s", target);
	const char *argv[] = { o->make ? o->make : "make", "-C", o->tree,
			       oarg, arch, target, NULL };
	int ret = run(argv, log, NULL, what, err);

	free(arch);
	free(oarg);
	free(what);
	return ret;
}

/* The compiler's first --version line (Kconfig reads CC's features). */
static void cc_version(struct kb_buf *out)
{
	const char *cc = getenv("CC");
	const char *argv[] = { cc && *cc ? cc : "gcc", "--version", NULL };
	struct kb_buf b = KB_BUF_INIT;
	char *nl;

	if (!run(argv, NULL, &b, "cc --version", NULL)) {
		nl = strchr(b.buf, '\n');
		kb_buf_add(out, b.buf, nl ? (size_t)(nl - b.buf) : b.len);
	}
	kb_buf_release(&b);
}

/* Add the tree's identity to @b: its id, or its path and Makefile mtime. */
static void tree_identity(const struct kb_kconfig_resolve_opts *o,
			  struct kb_buf *b)
{
	struct stat st;
	char *mk;

	if (o->tree_id) {
		kb_buf_addf(b, "tree-id=%s\n", o->tree_id);
		return;
	}
	mk = kb_asprintf("%s/Makefile", o->tree);
	if (stat(mk, &st) < 0)
		memset(&st, 0, sizeof(st));
	kb_buf_addf(b, "tree-path=%s\nmakefile-mtime=%lld\n", o->tree,
		    (long long)st.st_mtime);
	free(mk);
}

/* Read a base or fragment file, checking its syntax. */
static int read_config_file(const char *path, struct kb_buf *out,
			    struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_kconfig *cfg = NULL;
	int ret;

	if ((ret = kb_buf_read_file(&b, path, KB_KCONFIG_MAX_FILE, err)) ||
	    (ret = kb_kconfig_parse_buffer(b.buf, b.len, path, &cfg, err)))
		goto out;
	kb_buf_add(out, b.buf, b.len);
	if (b.len && b.buf[b.len - 1] != '\n')
		kb_buf_addch(out, '\n');
out:
	kb_kconfig_free(cfg);
	kb_buf_release(&b);
	return ret;
}

static int finish(struct kb_kconfig_resolution *r, const char *text,
		  size_t len, const char *file,
		  const struct kb_setting *settings, size_t nsettings,
		  const struct kb_ksyms *syms, struct kb_err *err)
{
	int ret;

	r->config_text = kb_strndup(text, len);
	if ((ret = kb_kconfig_parse_buffer(text, len, file, &r->config, err)))
		return ret;
	kb_kconfig_digest(r->config, r->digest);
	r->outcomes = kb_calloc(nsettings ? nsettings : 1,
				sizeof(*r->outcomes));
	r->noutcomes = kb_kconfig_compare(settings, nsettings, r->config,
					  syms, r->outcomes);
	return 0;
}

int kb_kconfig_resolve(const struct kb_kconfig_resolve_opts *o,
		       const struct kb_setting *settings, size_t nsettings,
		       const struct kb_ksyms *syms,
		       struct kb_kconfig_resolution **out,
		       struct kb_err *err)
{
	struct kb_kconfig_resolution *r = kb_calloc(1, sizeof(*r));
	struct kb_buf key = KB_BUF_INIT, text = KB_BUF_INIT, res = KB_BUF_INIT;
	struct kb_buf basekey = KB_BUF_INIT;
	char hex[KB_SHA256_HEX_LEN + 1], basehex[KB_SHA256_HEX_LEN + 1];
	char *cache_dir = NULL, *cached = NULL, *base_cached = NULL;
	char *cfgpath = NULL, *log = NULL;
	double t0 = kb_monotime();
	int ret, lockfd = -1;
	size_t i;

	*out = NULL;
	if (!o->cache_dir)
		cache_dir = kb_kconfig_default_cache_dir();
	else if (*o->cache_dir)
		cache_dir = kb_strdup(o->cache_dir);

	/* what decides the result: the cache key */
	kb_buf_adds(&key, "kbisect-kconfig-resolve-v1\n");
	tree_identity(o, &key);
	kb_buf_addf(&key, "arch=%s\ncc=", o->arch ? o->arch : "x86_64");
	cc_version(&key);
	kb_buf_addch(&key, '\n');
	kb_buf_add(&basekey, key.buf, key.len);
	if (o->base && o->base_is_target) {
		kb_buf_addf(&key, "base-target=%s\n", o->base);
		kb_buf_addf(&basekey, "base-target=%s\n", o->base);
	} else if (o->base) {
		kb_buf_adds(&key, "base-file\n");
		if ((ret = read_config_file(o->base, &text, err)))
			goto out;
	}
	for (i = 0; i < o->nfragments; i++)
		if ((ret = read_config_file(o->fragments[i], &text, err)))
			goto out;
	for (i = 0; i < nsettings; i++) {
		const struct kb_setting *s = &settings[i];

		if (s->kind != KB_FACTOR_KCONFIG)
			continue;
		if (!strcmp(s->value, "n"))
			kb_buf_addf(&text, "# CONFIG_%s is not set\n", s->name);
		else
			kb_buf_addf(&text, "CONFIG_%s=%s\n", s->name, s->value);
	}
	kb_buf_addf(&key, "text=%zu\n", text.len);
	kb_buf_add(&key, text.buf, text.len);
	kb_sha256_hex(key.buf, key.len, hex);
	kb_sha256_hex(basekey.buf, basekey.len, basehex);

	if (cache_dir) {
		struct kb_buf c = KB_BUF_INIT;

		cached = kb_asprintf("%s/%s.config", cache_dir, hex);
		if (!kb_buf_read_file(&c, cached, KB_KCONFIG_MAX_FILE, NULL)) {
			ret = finish(r, c.buf, c.len, cached, settings,
				     nsettings, syms, err);
			kb_buf_release(&c);
			if (ret)
				goto out;
			r->cached = 1;
			goto done;
		}
		kb_buf_release(&c);
		base_cached = kb_asprintf("%s/base-%s.config", cache_dir,
					  basehex);
		if ((ret = kb_mkdir_p(cache_dir, err)))
			goto out;
	}

	if ((ret = kb_mkdir_p(o->odir, err)) ||
	    (ret = kb_lock_dir(o->odir, &lockfd, err)))
		goto out;
	cfgpath = kb_asprintf("%s/.config", o->odir);
	log = kb_asprintf("%s/kbisect-kconfig.log", o->odir);
	unlink(log);
	if (o->base && o->base_is_target) {
		struct kb_buf b = KB_BUF_INIT;

		if (!base_cached ||
		    kb_buf_read_file(&b, base_cached, KB_KCONFIG_MAX_FILE,
				     NULL)) {
			kb_buf_reset(&b);
			if ((ret = make(o, o->odir, log, o->base, err)) ||
			    (ret = kb_buf_read_file(&b, cfgpath,
						    KB_KCONFIG_MAX_FILE, err))) {
				kb_buf_release(&b);
				goto out;
			}
			if (base_cached &&
			    (ret = kb_write_atomic(base_cached, b.buf, b.len,
						    0644, err))) {
				kb_buf_release(&b);
				goto out;
			}
		}
		kb_buf_add(&res, b.buf, b.len);
		if (res.len && res.buf[res.len - 1] != '\n')
			kb_buf_addch(&res, '\n');
		kb_buf_release(&b);
	}
	kb_buf_add(&res, text.buf, text.len);
	if ((ret = kb_write_atomic(cfgpath, res.buf, res.len, 0644, err)) ||
	    (ret = make(o, o->odir, log, "olddefconfig", err)))
		goto out;
	kb_buf_reset(&res);
	if ((ret = kb_buf_read_file(&res, cfgpath, KB_KCONFIG_MAX_FILE, err)) ||
	    (ret = finish(r, res.buf, res.len, cfgpath, settings, nsettings,
			  syms, err)))
		goto out;
	if (cached &&
	    (ret = kb_write_atomic(cached, res.buf, res.len, 0644, err)))
		goto out;
	r->seconds = kb_monotime() - t0;
done:
	*out = r;
	r = NULL;
	ret = 0;
out:
	kb_unlock(lockfd);
	kb_kconfig_resolution_free(r);
	kb_buf_release(&key);
	kb_buf_release(&basekey);
	kb_buf_release(&text);
	kb_buf_release(&res);
	free(cache_dir);
	free(cached);
	free(base_cached);
	free(cfgpath);
	free(log);
	return ret;
}
