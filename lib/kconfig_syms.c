#include "kconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "kconfig_int.h"
#include "mem.h"
#include "suggest.h"
#include "banned.h"

/*
 * The symbols of a kernel tree (a scan of its Kconfig files) and, from
 * them, why a requested option did not hold and what would make it hold.
 */

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
	unsigned choice;  /* the choice block it is in (from 1), or 0 */
};

struct sel {
	char *target;
	char *by;
	char *cond;     /* its `if` condition, or NULL */
	size_t order;
};

/* One symbol that selects another, and under what condition. */
struct selector {
	char *by;
	char *cond;     /* the `if` conditions of its selects joined with
			 * " || ", or NULL when one has none */
};

struct sym {
	char *name;
	const char *where;
	const char *type;
	char *depends;     /* NULL: none */
	char *selected_by; /* NULL: none */
	struct selector *sels; /* those of selected_by, in its order */
	size_t nsels;
	int prompt;
	unsigned choice;   /* its choice block (from 1), or 0 */
	struct kconfig_strlist requires; /* symbols of both, and the other
					  * members of its choice */
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
	unsigned ctx_choice[SCAN_MAX_CONTEXT]; /* choice blocks: their number */
	unsigned nchoices;
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
	/* $(ARCH) and $(SRCARCH) are expanded already (expand_vars) */
	for (s = p; *s; s++) {
		if (!strncmp(s, "$(srctree)/", 11)) {
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

/* Open an if ('i'), menu ('m') or choice ('c') block, of condition @cond. */
static int open_block(struct scan *sc, const char *path, unsigned lineno,
		      char kind, const char *cond)
{
	if (sc->nctx == SCAN_MAX_CONTEXT)
		return kb_err_set(sc->err, KB_EFAIL,
				  "%s:%u: if/menu nested too deeply", path,
				  lineno);
	sc->ctx_kind[sc->nctx] = kind;
	sc->ctx_choice[sc->nctx] = kind == 'c' ? ++sc->nchoices : 0;
	sc->ctx[sc->nctx++] = cond ? kb_strdup(cond) : NULL;
	return 0;
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
		while (kconfig_is_name_char((unsigned char)*e))
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
		if (sc->nctx > 0 && sc->ctx_kind[sc->nctx - 1] == 'c')
			st->d->choice = sc->ctx_choice[sc->nctx - 1];
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
		return open_block(sc, path, lineno, 'i', *a ? a : NULL);
	}
	if (keyword(line, "menu") || keyword(line, "choice")) {
		const char *w = line + strspn(line, " \t");

		finish_entry(sc, st);
		st->in_block = w[0] == 'm' ? 'm' : 'c';
		return open_block(sc, path, lineno, (char)st->in_block, NULL);
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

		while (kconfig_is_name_char((unsigned char)*e))
			e++;
		if (e == a)
			return 0;
		if (sc->nsels == sc->asels) {
			sc->asels = sc->asels ? sc->asels * 2 : 1024;
			sc->sels = kb_reallocarray(sc->sels, sc->asels,
						   sizeof(*sc->sels));
		}
		const char *cond = trailing_if(e);

		sc->sels[sc->nsels].target = kb_strndup(a, (size_t)(e - a));
		sc->sels[sc->nsels].by = kb_strdup(st->d->name);
		sc->sels[sc->nsels].cond = cond && *cond ? kb_strdup(cond)
							 : NULL;
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

static void defs_free(struct def *defs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(defs[i].name);
		free(defs[i].where);
		free(defs[i].type);
		free(defs[i].dep);
	}
	free(defs);
}

static int cmp_def(const void *a, const void *b)
{
	const struct def *x = a, *y = b;

	return kconfig_cmp_name_order(x->name, x->order, y->name, y->order);
}

static int cmp_sel(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;

	return kconfig_cmp_name_order(x->target, x->order, y->target,
				      y->order);
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
	long i;

	_Static_assert(offsetof(struct sym, name) == 0,
		       "kconfig_find_name needs the name first");
	i = kconfig_find_name(ks ? ks->s : NULL, ks ? ks->n : 0,
			      sizeof(struct sym), name, NULL);
	return i < 0 ? NULL : &ks->s[i];
}

/*
 * Add to @l the symbol names in Kconfig expression (or comma list) @expr:
 * runs of name characters that are not a constant (y, m, n, a number),
 * outside quotes and $(...) macros.
 */
static void add_symbols(struct kconfig_strlist *l, const char *expr)
{
	const char *p = expr, *q;
	long long ignored;
	int paren;

	while (p && *p) {
		if (*p == '"' || *p == '\'') {
			char quote = *p++;

			while (*p && *p != quote)
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
		} else if (p[0] == '$' && p[1] == '(') {
			for (paren = 0; *p; p++) {
				paren += *p == '(';
				if (*p == ')' && --paren == 0) {
					p++;
					break;
				}
			}
		} else if (kconfig_is_name_char((unsigned char)*p)) {
			char *name;

			for (q = p; kconfig_is_name_char((unsigned char)*q); q++)
				;
			name = kb_strndup(p, (size_t)(q - p));
			if (strcmp(name, "y") && strcmp(name, "m") &&
			    strcmp(name, "n") &&
			    kconfig_parse_number(name, &ignored))
				kconfig_strlist_add_owned(l, name);
			else
				free(name);
			p = q;
		} else {
			p++;
		}
	}
}

/*
 * Add to each member of a choice block the other members: setting one of
 * them sets the others (exactly one of a bool choice is y).
 */
static void add_choice_members(struct kb_ksyms *ks, unsigned nchoices)
{
	size_t *first, *next, i, k;

	if (!nchoices)
		return;
	/* the members of each choice as a list through next[] */
	first = kb_calloc(nchoices + 1, sizeof(*first));
	next = kb_calloc(ks->n + 1, sizeof(*next));
	for (i = ks->n; i-- > 0;) {
		unsigned c = ks->s[i].choice;

		if (!c || c > nchoices)
			continue;
		next[i] = first[c];
		first[c] = i + 1;
	}
	for (i = 0; i < ks->n; i++) {
		unsigned c = ks->s[i].choice;

		if (!c || c > nchoices)
			continue;
		for (k = first[c]; k; k = next[k - 1])
			if (k - 1 != i)
				kconfig_strlist_add(&ks->s[i].requires,
						    ks->s[k - 1].name);
	}
	free(first);
	free(next);
}

/* Record that @x->by selects @s (under @x->cond): one record per
 * selector, its conditions joined, none once one select has none. */
static void add_selector(struct sym *s, const struct sel *x)
{
	struct selector *r = NULL;
	size_t i;

	for (i = 0; i < s->nsels; i++)
		if (!strcmp(s->sels[i].by, x->by))
			r = &s->sels[i];
	if (!r) {
		s->sels = kb_reallocarray(s->sels, s->nsels + 1,
					  sizeof(*s->sels));
		r = &s->sels[s->nsels++];
		r->by = kb_strdup(x->by);
		r->cond = x->cond ? kb_strdup(x->cond) : NULL;
		return;
	}
	if (r->cond && x->cond) {
		char *j = kb_asprintf("(%s) || (%s)", r->cond, x->cond);

		free(r->cond);
		r->cond = j;
	} else {
		free(r->cond);
		r->cond = NULL;
	}
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
			if (!s->choice)
				s->choice = d->choice;
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
		struct kconfig_strlist l = KCONFIG_STRLIST_INIT;
		struct kb_buf b = KB_BUF_INIT;

		for (k = i; k < sc->nsels &&
			    !strcmp(sc->sels[k].target, sc->sels[i].target);
		     k++) {
			kconfig_strlist_add(&l, sc->sels[k].by);
			if (s)
				add_selector(s, &sc->sels[k]);
		}
		if (s) {
			kconfig_strlist_join(&l, ", ", &b);
			s->selected_by = kb_buf_detach(&b);
		}
		kconfig_strlist_release(&l);
	}
	ks->names = kb_calloc(ks->n ? ks->n : 1, sizeof(*ks->names));
	for (i = 0; i < ks->n; i++) {
		ks->names[i] = ks->s[i].name;
		add_symbols(&ks->s[i].requires, ks->s[i].depends);
		add_symbols(&ks->s[i].requires, ks->s[i].selected_by);
	}
	add_choice_members(ks, sc->nchoices);
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
	defs_free(sc.defs, sc.ndefs);
	for (i = 0; i < sc.nsels; i++) {
		free(sc.sels[i].target);
		free(sc.sels[i].by);
		free(sc.sels[i].cond);
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
		size_t k;

		free(ks->s[i].depends);
		free(ks->s[i].selected_by);
		for (k = 0; k < ks->s[i].nsels; k++) {
			free(ks->s[i].sels[k].by);
			free(ks->s[i].sels[k].cond);
		}
		free(ks->s[i].sels);
		kconfig_strlist_release(&ks->s[i].requires);
	}
	defs_free(ks->defs, ks->ndefs);
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

size_t kb_ksyms_requires(const struct kb_ksyms *ks, const char *name,
			 const char *const **on)
{
	const struct sym *s = lookup(ks, name);

	*on = s ? (const char *const *)s->requires.v : NULL;
	return s ? s->requires.n : 0;
}

/* Condition @cond is n in each of @cfgs: a select under it never fires
 * there (0 when it does not parse: kept). */
static int never_met(const char *cond, const struct kb_kconfig *const *cfgs,
		     size_t ncfgs)
{
	size_t i;

	for (i = 0; i < ncfgs; i++) {
		struct kb_err ignored = KB_ERR_INIT;
		int level;

		if (kb_kconfig_eval(cond, cfgs[i], 2, &level, NULL, &ignored) ||
		    level)
			return 0;
	}
	return 1;
}

size_t kb_ksyms_requires_in(const struct kb_ksyms *ks, const char *name,
			    const struct kb_kconfig *const *cfgs, size_t ncfgs,
			    const char **out)
{
	const struct sym *s = lookup(ks, name);
	struct kconfig_strlist dep = KCONFIG_STRLIST_INIT;
	size_t i, k, n = 0;

	if (!s)
		return 0;
	add_symbols(&dep, s->depends);
	for (i = 0; i < s->requires.n; i++) {
		const char *r = s->requires.v[i];
		int skip = 0;

		for (k = 0; k < s->nsels; k++)
			if (!strcmp(s->sels[k].by, r))
				skip = s->sels[k].cond &&
				       !kconfig_strlist_has(&dep, r) &&
				       never_met(s->sels[k].cond, cfgs, ncfgs);
		if (!skip)
			out[n++] = r;
	}
	kconfig_strlist_release(&dep);
	return n;
}

int kb_ksyms_select_if(const struct kb_ksyms *ks, const char *target,
		       const char *by, const char **cond)
{
	const struct sym *s = lookup(ks, target);
	size_t i;

	*cond = NULL;
	for (i = 0; s && i < s->nsels; i++)
		if (!strcmp(s->sels[i].by, by)) {
			*cond = s->sels[i].cond;
			return 1;
		}
	return 0;
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
	int want = kconfig_tristate(requested), is_tri, level = 0;
	struct kconfig_strlist l = KCONFIG_STRLIST_INIT;
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

		if (dep &&
		    !kconfig_expr_unmet(dep, resolved, need, &level, &l,
					NULL) &&
		    level < need) {
			kb_buf_addf(out, "depends on %s", dep);
			if (l.n) {
				kb_buf_adds(out, " (unmet: ");
				kconfig_strlist_join(&l, ", ", out);
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
	kconfig_strlist_release(&l);
}

#define FIX_MAX_DEPTH 8
#define FIX_MAX_LINES 64

static void fix_walk(const struct kb_ksyms *ks, const struct kb_kconfig *cfg,
		     const char *dep, int need, int depth,
		     struct kconfig_strlist *seen, struct kb_buf *out)
{
	struct kconfig_strlist l = KCONFIG_STRLIST_INIT;
	int level;
	size_t i;

	if (!dep || depth > FIX_MAX_DEPTH || seen->n > FIX_MAX_LINES)
		return;
	if (kconfig_expr_unmet(dep, cfg, need, &level, &l, NULL) ||
	    level >= need)
		goto out;
	for (i = 0; i < l.n; i++) {
		const char *item = l.v[i];
		int neg = item[0] == '!';
		const char *sym = item + neg;

		if (kconfig_strlist_has(seen, sym) || !kb_ksyms_has(ks, sym))
			continue;
		kconfig_strlist_add(seen, sym);
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
	kconfig_strlist_release(&l);
}

void kb_kconfig_suggest_fix(const struct kb_ksyms *ks,
			    const struct kb_kconfig *resolved,
			    const char *name, const char *requested,
			    struct kb_buf *out)
{
	struct kconfig_strlist seen = KCONFIG_STRLIST_INIT;
	int want = kconfig_tristate(requested);

	if (!ks || !kb_ksyms_has(ks, name))
		return;
	if (!strcmp(requested, "n"))
		return;
	kconfig_strlist_add(&seen, name);
	fix_walk(ks, resolved, kb_ksyms_depends(ks, name), want ? want : 2, 0,
		 &seen, out);
	kconfig_strlist_release(&seen);
}
