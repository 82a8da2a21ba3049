#include "kconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "kconfig_int.h"
#include "mem.h"
#include "banned.h"

/*
 * Kconfig expressions: parsed into a node array, evaluated with tristate
 * logic against a configuration, and asked what keeps them below a level.
 */

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
	while (kconfig_is_name_char((unsigned char)*e->p) || *e->p == '-' ||
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
		return kconfig_tristate(n->text);
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

		if (!kconfig_parse_number(x, &u) &&
		    !kconfig_parse_number(y, &v))
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

/*
 * What keeps node @i from @bound: below it (@low 0: the node must reach
 * @bound) or above it (@low 1: the node must come down to @bound).
 * Symbols that must be set are named, "!X" for one that must be off, a
 * comparison by the text that would hold.
 */
static void unmet(const struct expr *e, int i, int bound, int low,
		  struct kconfig_strlist *out)
{
	const struct node *n = &e->n[i];
	struct kconfig_strlist x = KCONFIG_STRLIST_INIT;
	struct kconfig_strlist y = KCONFIG_STRLIST_INIT;
	struct kb_buf b = KB_BUF_INIT;
	int v = eval_node(e, i);

	if (low ? v <= bound : v >= bound)
		return;
	switch (n->kind) {
	case N_SYM:
		kconfig_strlist_add_owned(out, kb_asprintf("%s%s",
							   low ? "!" : "",
							   n->text));
		break;
	case N_CONST:
		break;
	case N_NOT:
		unmet(e, n->a, 2 - bound, !low, out);
		break;
	case N_AND:
	case N_OR:
		if ((n->kind == N_AND) != low) {
			/* raising an && (or lowering an ||) takes both sides */
			unmet(e, n->a, bound, low, out);
			unmet(e, n->b, bound, low, out);
			break;
		}
		/* else either side will do: the one needing fewer changes;
		 * when raising, ties go to the side that is closer (higher) */
		unmet(e, n->a, bound, low, &x);
		unmet(e, n->b, bound, low, &y);
		if (y.n && (y.n < x.n || !x.n ||
			    (!low && y.n == x.n &&
			     eval_node(e, n->b) > eval_node(e, n->a))))
			kconfig_strlist_move(out, &y);
		else
			kconfig_strlist_move(out, &x);
		break;
	case N_CMP:
		cmp_text(e, n, low, &b);
		kconfig_strlist_add_owned(out, kb_buf_detach(&b));
		break;
	}
	kconfig_strlist_release(&x);
	kconfig_strlist_release(&y);
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
int kconfig_expr_unmet(const char *src, const struct kb_kconfig *cfg,
		       int need, int *level, struct kconfig_strlist *out,
		       struct kb_err *err)
{
	struct expr e;
	int root = expr_parse(&e, src, cfg, err);

	if (root < 0)
		return root;
	*level = eval_node(&e, root);
	if (out && *level < need)
		unmet(&e, root, need, 0, out);
	expr_release(&e);
	return 0;
}

int kb_kconfig_eval(const char *expr, const struct kb_kconfig *cfg,
		    int need, int *level, struct kb_buf *unmet,
		    struct kb_err *err)
{
	struct kconfig_strlist l = KCONFIG_STRLIST_INIT;
	int ret;

	*level = 0;
	ret = kconfig_expr_unmet(expr, cfg, need, level, unmet ? &l : NULL,
				 err);
	if (!ret && unmet)
		kconfig_strlist_join(&l, ", ", unmet);
	kconfig_strlist_release(&l);
	return ret;
}
