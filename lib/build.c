#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "program.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "banned.h"


#define LOG_TAIL_LINES 50
#define MAX_LOG (256u << 20)    /* build logs read back at most this big */
#define MAX_CMD_FILE (8u << 20) /* one .cmd file */
#define MAX_SCAN_DEPTH 32

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *kb_build_default_cache_dir(void)
{
	return kb_cache_dir("builds");
}

char *kb_build_default_objdir(const char *tree_id)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	char *sub, *dir;

	kb_sha256_hex(tree_id, strlen(tree_id), hex);
	hex[16] = '\0';
	sub = kb_asprintf("objdirs/%s", hex);
	dir = kb_cache_dir(sub);
	free(sub);
	return dir;
}

/* ---- keys ------------------------------------------------------------- */

/* ---- running programs ------------------------------------------------- */

/*
 * Start @argv (make, or the compiler) in make's environment with stdin
 * from /dev/null and stdout+stderr into a pipe whose read end is returned
 * in *@fd.
 */
static int spawn_piped(char *const argv[], pid_t *pid, int *fd,
		       struct kb_err *err)
{
	char **env = kb_program_make_env();
	struct kb_program prog = {
		.argv = (const char *const *)argv,
		.envp = env,
		.out = KB_PROGRAM_PIPE,
		.err = KB_PROGRAM_PIPE,
	};
	int ret = kb_program_start(&prog, pid, fd, err);

	free(env);
	return ret;
}

/* ---- weights ---------------------------------------------------------- */

struct weight {
	char *sym;
	size_t len; /* strlen(sym) */
	unsigned units;
};

struct kb_build_weights {
	struct weight *slots; /* open addressing, nslots a power of two */
	size_t nslots, n;
};

static size_t hash_str(const char *s, size_t len)
{
	size_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

struct kb_build_weights *kb_build_weights_new(void)
{
	struct kb_build_weights *w = kb_calloc(1, sizeof(*w));

	w->nslots = 256;
	w->slots = kb_calloc(w->nslots, sizeof(*w->slots));
	return w;
}

void kb_build_weights_free(struct kb_build_weights *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nslots; i++)
		free(w->slots[i].sym);
	free(w->slots);
	free(w);
}

static struct weight *find_slot(const struct kb_build_weights *w,
				const char *sym, size_t len)
{
	size_t i = hash_str(sym, len) & (w->nslots - 1);

	while (w->slots[i].sym && (w->slots[i].len != len ||
				   memcmp(w->slots[i].sym, sym, len)))
		i = (i + 1) & (w->nslots - 1);
	return &w->slots[i];
}

static void grow(struct kb_build_weights *w)
{
	struct weight *old = w->slots;
	size_t i, n = w->nslots;

	w->nslots *= 2;
	w->slots = kb_calloc(w->nslots, sizeof(*w->slots));
	for (i = 0; i < n; i++)
		if (old[i].sym)
			*find_slot(w, old[i].sym, old[i].len) = old[i];
	free(old);
}

/* The slot of @sym (@len bytes), created with 0 units when new. */
static struct weight *weight_at(struct kb_build_weights *w, const char *sym,
				size_t len)
{
	struct weight *s;

	if ((w->n + 1) * 2 > w->nslots)
		grow(w);
	s = find_slot(w, sym, len);
	if (!s->sym) {
		s->sym = kb_strndup(sym, len);
		s->len = len;
		s->units = 0;
		w->n++;
	}
	return s;
}

void kb_build_weights_set(struct kb_build_weights *w, const char *sym,
			  unsigned units)
{
	weight_at(w, sym, strlen(sym))->units = units;
}

unsigned kb_build_weights_get(const struct kb_build_weights *w,
			      const char *sym)
{
	const struct weight *s;

	if (!w)
		return 1;
	s = find_slot(w, sym, strlen(sym));
	return s->sym && s->units > 1 ? s->units : 1;
}

size_t kb_build_weights_count(const struct kb_build_weights *w)
{
	return w->n;
}

static int is_sym_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       (c >= 'a' && c <= 'z');
}

/* Count the include/config/SYM dependencies of one .cmd file. */
static void scan_cmd_file(struct kb_build_weights *w, const char *text)
{
	static const char marker[] = "include/config/";
	const char *p = text;

	/* fixdep lists each symbol once per unit */
	while ((p = strstr(p, marker))) {
		const char *s = p + sizeof(marker) - 1, *e = s;

		while (is_sym_char(*e))
			e++;
		if (e > s && (*e == ')' || *e == ' ' || *e == '\n'))
			weight_at(w, s, (size_t)(e - s))->units++;
		p = e;
	}
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int scan_dir(struct kb_build_weights *w, const char *dir,
		    unsigned depth, struct kb_err *err)
{
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (depth > MAX_SCAN_DEPTH || !(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* include/config holds only the stamps themselves */
		if (depth == 0 && !strcmp(e->d_name, "include"))
			continue;
		path = kb_asprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				ret = scan_dir(w, path, depth + 1, err);
			} else if (S_ISREG(st.st_mode) && e->d_name[0] == '.' &&
				   has_suffix(e->d_name, ".o.cmd")) {
				struct kb_buf b = KB_BUF_INIT;

				if (kb_buf_read_file(&b, path, MAX_CMD_FILE,
						     err) == 0)
					scan_cmd_file(w, b.buf);
				else
					kb_err_clear(err);
				kb_buf_release(&b);
			}
		}
		free(path);
	}
	closedir(d);
	return ret;
}

int kb_build_weights_scan(const char *objdir, struct kb_build_weights **out,
			  struct kb_err *err)
{
	struct kb_build_weights *w = kb_build_weights_new();
	int ret;

	*out = NULL;
	if ((ret = scan_dir(w, objdir, 0, err))) {
		kb_build_weights_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* ---- distance and order ---------------------------------------------- */

/* One line of a config: the symbol it sets, if any. */
struct line {
	const char *name, *val; /* into the text; name NULL: no symbol */
	size_t nlen, vlen;
};

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!is_sym_char(s[i]))
			return 0;
	return 1;
}

/*
 * Read the line at *@p into @l and move *@p past it; 0 at the end of the
 * text.  "CONFIG_X=v" and "X=v" set X to v, "# CONFIG_X is not set" sets
 * it to "n"; other lines set nothing.
 */
static int next_line(const char **p, struct line *l)
{
	static const char unset[] = " is not set";
	const char *s = *p, *e, *eq;
	size_t len;

	if (!s || !*s)
		return 0;
	e = strchr(s, '\n');
	len = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + len;
	l->name = NULL;
	if (len >= 9 + sizeof(unset) - 1 && !strncmp(s, "# CONFIG_", 9) &&
	    !memcmp(s + len - (sizeof(unset) - 1), unset, sizeof(unset) - 1)) {
		l->name = s + 9;
		l->nlen = len - 9 - (sizeof(unset) - 1);
		l->val = "n";
		l->vlen = 1;
	} else if (*s != '#' && (eq = memchr(s, '=', len))) {
		l->name = s;
		l->nlen = (size_t)(eq - s);
		if (l->nlen >= 7 && !strncmp(s, "CONFIG_", 7)) {
			l->name += 7;
			l->nlen -= 7;
		}
		l->val = eq + 1;
		l->vlen = len - (size_t)(eq + 1 - s);
	}
	if (l->name && !valid_name(l->name, l->nlen))
		l->name = NULL;
	return 1;
}

/* A value that no config has (for the start config's). */
#define VAL_OTHER UINT32_MAX

struct kb_build_configs {
	struct kb_build_weights *syms; /* name -> 1 + symbol number */
	struct kb_build_weights *vals; /* value -> its number, from 1 */
	const char **names;            /* symbol number -> name, in @syms */
	size_t nsyms, names_alloc;
	unsigned *col;                 /* symbol number -> 1 + column; 0:
					* the same in every config */
	size_t n, ncols;               /* configs; symbols that differ */
	const char **col_name;         /* column -> name, in @syms */
	uint32_t *x;                   /* @n rows of @ncols values */
};

/*
 * The tables of struct kb_build_weights double as interning tables: a
 * string's units are its number, from 1, in the order strings came.
 */
static unsigned intern(struct kb_build_weights *t, const char *s, size_t len)
{
	struct weight *slot = weight_at(t, s, len);

	if (!slot->units)
		slot->units = (unsigned)t->n;
	return slot->units;
}

/* @s's number in @t, 0 when it has none. */
static unsigned lookup(const struct kb_build_weights *t, const char *s,
		       size_t len)
{
	const struct weight *slot = find_slot(t, s, len);

	return slot->sym ? slot->units : 0;
}

/* "n", "" and no line at all are one value, 0. */
static int is_n(const struct line *l)
{
	return l->vlen == 0 || (l->vlen == 1 && l->val[0] == 'n');
}

/* The number of @l's symbol, numbering it when new. */
static size_t sym_number(struct kb_build_configs *c, const struct line *l)
{
	unsigned id = intern(c->syms, l->name, l->nlen);

	if (id > c->nsyms) {
		if (c->nsyms == c->names_alloc) {
			c->names_alloc = c->names_alloc ? 2 * c->names_alloc
							: 256;
			c->names = kb_reallocarray(c->names, c->names_alloc,
						   sizeof(*c->names));
		}
		c->names[c->nsyms++] =
			find_slot(c->syms, l->name, l->nlen)->sym;
	}
	return id - 1;
}

/* Two rows of values by symbol number, grown together as symbols come. */
struct rows {
	uint32_t *ref, *row;
	size_t alloc;
};

static void rows_fit(struct rows *r, size_t nsyms)
{
	size_t old = r->alloc;

	if (nsyms <= old)
		return;
	r->alloc = nsyms > 2 * old ? nsyms : 2 * old;
	r->ref = kb_reallocarray(r->ref, r->alloc, sizeof(*r->ref));
	r->row = kb_reallocarray(r->row, r->alloc, sizeof(*r->row));
	memset(r->ref + old, 0, (r->alloc - old) * sizeof(*r->ref));
	memset(r->row + old, 0, (r->alloc - old) * sizeof(*r->row));
}

/* Parse @text into r->ref (@into_ref) or r->row: the last line wins. */
static void parse_row(struct kb_build_configs *c, const char *text,
		      struct rows *r, int into_ref)
{
	struct line l;

	while (next_line(&text, &l)) {
		size_t s;
		uint32_t v;

		if (!l.name)
			continue;
		s = sym_number(c, &l);
		v = is_n(&l) ? 0 : intern(c->vals, l.val, l.vlen);
		rows_fit(r, c->nsyms);
		(into_ref ? r->ref : r->row)[s] = v;
	}
}

struct diff {
	size_t sym;
	uint32_t val;
};

struct kb_build_configs *kb_build_configs_new(const char *const *configs,
					      size_t n)
{
	struct kb_build_configs *c = kb_calloc(1, sizeof(*c));
	size_t *from = kb_calloc(n + 1, sizeof(*from));
	struct rows r = { NULL, NULL, 0 };
	struct diff *d = NULL;
	size_t nd = 0, d_alloc = 0, i, s, k;

	c->syms = kb_build_weights_new();
	c->vals = kb_build_weights_new();
	c->n = n;
	/* configs[0] is the reference; the others are kept as the symbols
	 * where they differ from it */
	for (i = 0; i < n; i++) {
		from[i] = nd;
		if (i == 0) {
			parse_row(c, configs[0], &r, 1);
			continue;
		}
		if (r.alloc)
			memset(r.row, 0, r.alloc * sizeof(*r.row));
		parse_row(c, configs[i], &r, 0);
		for (s = 0; s < c->nsyms; s++) {
			if (r.row[s] == r.ref[s])
				continue;
			if (nd == d_alloc) {
				d_alloc = d_alloc ? 2 * d_alloc : 256;
				d = kb_reallocarray(d, d_alloc, sizeof(*d));
			}
			d[nd].sym = s;
			d[nd++].val = r.row[s];
		}
	}
	from[n] = nd;
	/* a column for each symbol that differs somewhere */
	c->col = kb_calloc(c->nsyms + 1, sizeof(*c->col));
	for (k = 0; k < nd; k++)
		c->col[d[k].sym] = 1;
	c->col_name = kb_calloc(c->nsyms + 1, sizeof(*c->col_name));
	for (s = 0; s < c->nsyms; s++) {
		if (!c->col[s])
			continue;
		c->col_name[c->ncols] = c->names[s];
		c->col[s] = (unsigned)++c->ncols;
	}
	c->x = kb_calloc(n * c->ncols + 1, sizeof(*c->x));
	for (i = 0; i < n; i++) {
		uint32_t *x = c->x + i * c->ncols;

		for (s = 0; s < c->nsyms; s++)
			if (c->col[s])
				x[c->col[s] - 1] = r.ref[s];
		for (k = from[i]; k < from[i + 1]; k++)
			x[c->col[d[k].sym] - 1] = d[k].val;
	}
	free(r.ref);
	free(r.row);
	free(from);
	free(d);
	return c;
}

void kb_build_configs_free(struct kb_build_configs *c)
{
	if (!c)
		return;
	kb_build_weights_free(c->syms);
	kb_build_weights_free(c->vals);
	free(c->names);
	free(c->col);
	free(c->col_name);
	free(c->x);
	free(c);
}

/*
 * @text's values in the columns of @c, into @row: its other symbols are
 * the same in every config of @c, so they add the same to each distance.
 */
static void project(const struct kb_build_configs *c, const char *text,
		    uint32_t *row)
{
	struct line l;

	memset(row, 0, c->ncols * sizeof(*row));
	while (next_line(&text, &l)) {
		unsigned s, v;

		if (!l.name || !(s = lookup(c->syms, l.name, l.nlen)) ||
		    !c->col[s - 1])
			continue;
		v = is_n(&l) ? 0 : lookup(c->vals, l.val, l.vlen);
		row[c->col[s - 1] - 1] = is_n(&l) || v ? v : VAL_OTHER;
	}
}

/* Each column's weight under @w.  Caller frees. */
static unsigned long *col_weights(const struct kb_build_configs *c,
				  const struct kb_build_weights *w)
{
	unsigned long *wt = kb_calloc(c->ncols + 1, sizeof(*wt));
	size_t k;

	for (k = 0; k < c->ncols; k++)
		wt[k] = kb_build_weights_get(w, c->col_name[k]);
	return wt;
}

/* The distance from values @a to config @i of @c. */
static unsigned long row_distance(const struct kb_build_configs *c,
				  const uint32_t *a, size_t i,
				  const unsigned long *wt)
{
	const uint32_t *b = c->x + i * c->ncols;
	unsigned long d = 0;
	size_t k;

	for (k = 0; k < c->ncols; k++)
		if (a[k] != b[k])
			d += wt[k];
	return d;
}

size_t kb_build_configs_nearest(const struct kb_build_configs *c,
				const char *start,
				const struct kb_build_weights *w,
				const unsigned char *skip)
{
	uint32_t *row;
	unsigned long *wt, bestd = 0;
	size_t i, best = c->n;

	if (!start) {
		for (i = 0; i < c->n && skip && skip[i]; i++)
			;
		return i;
	}
	row = kb_calloc(c->ncols + 1, sizeof(*row));
	wt = col_weights(c, w);
	project(c, start, row);
	for (i = 0; i < c->n; i++) {
		unsigned long d;

		if (skip && skip[i])
			continue;
		d = row_distance(c, row, i, wt);
		if (best == c->n || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	free(wt);
	free(row);
	return best;
}

/*
 * Greedy nearest neighbour over @c (see kb_build_order).  dist[i] is the
 * distance from the last config placed to config i; placing the next one
 * corrects it only in the columns where the two differ.
 */
static void order_greedy(const struct kb_build_configs *c, const char *start,
			 const struct kb_build_weights *w, size_t *order)
{
	size_t n = c->n, m = c->ncols, i, j, k, nd;
	unsigned long *wt = col_weights(c, w);
	unsigned long *dist = kb_calloc(n + 1, sizeof(*dist));
	unsigned char *done = kb_calloc(n + 1, 1);
	size_t *diff = kb_calloc(m + 1, sizeof(*diff));
	uint32_t *first = kb_calloc(m + 1, sizeof(*first));
	const uint32_t *cur = c->x; /* no start: configs[0], at 0 */

	if (start) {
		project(c, start, first);
		cur = first;
	}
	for (i = 0; i < n; i++)
		dist[i] = row_distance(c, cur, i, wt);
	for (k = 0; k < n; k++) {
		const uint32_t *next;
		size_t best = n;

		for (i = 0; i < n; i++)
			if (!done[i] && (best == n || dist[i] < dist[best]))
				best = i;
		order[k] = best;
		done[best] = 1;
		next = c->x + best * m;
		for (j = 0, nd = 0; j < m; j++)
			if (cur[j] != next[j])
				diff[nd++] = j;
		for (i = 0; nd && i < n; i++) {
			const uint32_t *x = c->x + i * m;

			if (done[i])
				continue;
			for (j = 0; j < nd; j++) {
				size_t col = diff[j];

				if (x[col] == cur[col])
					dist[i] += wt[col];
				else if (x[col] == next[col])
					dist[i] -= wt[col];
			}
		}
		cur = next;
	}
	free(first);
	free(diff);
	free(done);
	free(dist);
	free(wt);
}

unsigned long kb_build_distance(const char *a, const char *b,
				const struct kb_build_weights *w)
{
	const char *const pair[2] = { a, b };
	struct kb_build_configs *c = kb_build_configs_new(pair, 2);
	unsigned long *wt = col_weights(c, w), d = 0;
	size_t k;

	/* with two configs, a column is a symbol where they differ */
	for (k = 0; k < c->ncols; k++)
		d += wt[k];
	free(wt);
	kb_build_configs_free(c);
	return d;
}

void kb_build_order(const char *const *configs, size_t n, const char *start,
		    const struct kb_build_weights *w, size_t *order)
{
	struct kb_build_configs *c = kb_build_configs_new(configs, n);

	order_greedy(c, start, w, order);
	kb_build_configs_free(c);
}

/* ---- logs -------------------------------------------------------------- */

char *kb_build_tail(const char *text, size_t len, unsigned n)
{
	size_t i = len;
	unsigned lines = 0;

	if (i && text[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (text[i - 1] == '\n' && ++lines == n)
			break;
		i--;
	}
	return kb_strndup(text + i, len - i);
}

static int is_unit_line(const char *s, size_t len)
{
	return len >= 5 && !memcmp(s, "  CC ", 5);
}

unsigned kb_build_count_units(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		n += is_unit_line(p, l);
		p += l + 1;
	}
	return n;
}

/* ---- artifacts ------------------------------------------------------------ */

/* The value of "KEY value" line @key in the record text, or NULL. */
static char *record_get(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');

		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return nl ? kb_strndup(p + klen + 1,
					       (size_t)(nl - p - klen - 1))
				  : kb_strdup(p + klen + 1);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static const char *srcarch(const char *arch)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i386"))
		return "x86";
	return arch;
}

static void fill_paths(const char *dir, struct kb_build_info *info)
{
	info->artifacts_dir = kb_strdup(dir);
	info->config_path = kb_asprintf("%s/.config", dir);
	info->log_path = kb_asprintf("%s/build.log", dir);
}

/* An ok build of this key already in the cache? */
static int from_cache(const char *dir, const char *target,
		      struct kb_build_result *out, struct kb_build_info *info)
{
	struct kb_buf rec = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/kbisect-build.txt", dir);
	char *status = NULL, *v;
	int found = 0;

	if (kb_buf_read_file(&rec, path, 65536, &ignored))
		goto out;
	status = record_get(rec.buf, "status");
	if (!status || strcmp(status, "ok"))
		goto out;
	memset(out, 0, sizeof(*out));
	out->status = KB_BUILD_OK;
	out->image = kb_asprintf("%s/%s", dir, target);
	if (!is_file(out->image)) {
		kb_build_result_release(out);
		goto out;
	}
	if ((v = record_get(rec.buf, "duration_s"))) {
		out->duration_s = strtod(v, NULL);
		free(v);
	}
	fill_paths(dir, info);
	if ((v = record_get(rec.buf, "units"))) {
		info->units_compiled = (unsigned)strtoul(v, NULL, 10);
		free(v);
	}
	if ((v = record_get(rec.buf, "full"))) {
		info->full = !strcmp(v, "1");
		free(v);
	}
	if ((v = record_get(rec.buf, "objdir"))) {
		info->objdir = v;
	}
	info->cached = 1;
	found = 1;
out:
	free(status);
	free(path);
	kb_buf_release(&rec);
	return found;
}

int kb_build_cached_image(const char *cache_dir, const char *key,
			  const char *target, char **image)
{
	struct kb_build_result r;
	struct kb_build_info info;
	char *cache = cache_dir ? kb_strdup(cache_dir)
				: kb_build_default_cache_dir();
	char *dir = kb_asprintf("%s/%s", cache, key);
	int found;

	*image = NULL;
	memset(&info, 0, sizeof(info));
	found = from_cache(dir, target ? target : "bzImage", &r, &info);
	if (found) {
		*image = r.image;
		r.image = NULL;
		kb_build_result_release(&r);
		kb_build_info_release(&info);
	}
	free(dir);
	free(cache);
	return found;
}

size_t kb_build_plan_cached(const struct kb_plan *p, const char *cache_dir)
{
	size_t i, j, n = 0;

	if (!kb_plan_is_resolved(p))
		return 0;
	for (i = 0; i < kb_plan_nvariants(p); i++) {
		const char *key = kb_plan_variant(p, i)->build_key;
		char *image;

		for (j = 0; key && j < i; j++)
			if (kb_plan_variant(p, j)->build_key &&
			    !strcmp(kb_plan_variant(p, j)->build_key, key))
				break;
		if (!key || j < i || !kb_build_cached_image(cache_dir, key, NULL, &image))
			continue;
		free(image);
		n++;
	}
	return n;
}

void kb_build_info_release(struct kb_build_info *i)
{
	if (!i)
		return;
	free(i->artifacts_dir);
	free(i->config_path);
	free(i->log_path);
	free(i->objdir);
	memset(i, 0, sizeof(*i));
}

/* Write @config as objdir/.config unless it already holds exactly that. */
static int put_config(const char *objdir, const char *config,
		      struct kb_err *err)
{
	struct kb_buf old = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/.config", objdir);
	int ret = 0;

	if (kb_buf_read_file(&old, path, 64u << 20, &ignored) ||
	    strcmp(old.buf, config))
		ret = kb_write_atomic_text(path, config, err);
	kb_buf_release(&old);
	free(path);
	return ret;
}

static unsigned read_units_full(const char *objdir)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/.kbisect-units-full", objdir);
	unsigned n = 0;

	if (kb_buf_read_file(&b, path, 64, &ignored) == 0)
		n = (unsigned)strtoul(b.buf, NULL, 10);
	kb_buf_release(&b);
	free(path);
	return n;
}

/*
 * make ended by a signal (a user's ^C, a kill, the OOM killer's SIGKILL,
 * a hang-up, a ^\\, a crash): what was asked of the config is unknown,
 * so it is no failure of the config to record.  kb_program_wait() says
 * 128 + the signal.
 */
static int stopped_by_signal(int status)
{
	return status > 128 && status < 128 + 65;
}

/*
 * The signal make says ended one of its jobs, from the end of build log
 * @log: GNU make reports a recipe killed by a signal as
 * "make[N]: *** [FILE:LINE: TARGET] Interrupt" (the signal's
 * description where an exit status says "Error N"), and a recipe's shell
 * whose command was killed exits 128 + the signal ("Error 130").  Such a
 * make exits 2 as if the config failed; it did not.  Returns the
 * description, or NULL.
 */
static const char *job_killed(const char *log, size_t len)
{
	static const char *const why[] = {
		"Interrupt", "Terminated", "Killed", "Hangup", "Quit",
		"Error 129", "Error 130", "Error 131", "Error 137", "Error 143",
	};
	const char *p = log + len, *line, *at;
	char buf[512];
	size_t k, n, lines;

	/* the last lines: make says it as it stops */
	for (lines = 0; p > log && lines < 40; lines++) {
		for (line = p; line > log && line[-1] != '\n'; line--)
			;
		n = (size_t)(p - line);
		p = line > log ? line - 1 : log;
		if (n >= sizeof(buf))
			continue; /* no make message is that long */
		memcpy(buf, line, n);
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			     buf[n - 1] == ' '))
			n--;
		buf[n] = 0;
		if (!strstr(buf, "*** ["))
			continue;
		for (k = 0; k < sizeof(why) / sizeof(why[0]); k++) {
			at = strrchr(buf, ']');
			if (at && !strncmp(at + 1, " ", 1) &&
			    !strncmp(at + 2, why[k], strlen(why[k])) &&
			    (!at[2 + strlen(why[k])] ||
			     !strcmp(at + 2 + strlen(why[k]), " (core dumped)")))
				return why[k];
		}
	}
	return NULL;
}

/* Run make, teeing its output into @log_fd and reporting progress. */
static int run_make(const struct kb_build_opts *o, char *const argv[],
		    int log_fd, const char *key, const char *label,
		    unsigned units_full, int *status, unsigned *units,
		    double *seconds, struct kb_err *err)
{
	struct kb_build_progress ev;
	char chunk[8192], line[512];
	size_t linelen = 0;
	double t0 = kb_monotime(), last = 0;
	pid_t pid;
	int fd, ret;

	memset(&ev, 0, sizeof(ev));
	ev.label = label;
	ev.key = key;
	ev.units_full = units_full;
	*units = 0;
	if ((ret = spawn_piped(argv, &pid, &fd, err)))
		return ret;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r = 0, i;
		int pr = poll(&pfd, 1, 1000);

		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			r = read(fd, chunk, sizeof(chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (write(log_fd, chunk, (size_t)r) != r)
				ret = kb_err_set(err, KB_EFAIL,
						 "cannot write the build log: %s",
						 strerror(errno));
			for (i = 0; i < r; i++) {
				if (chunk[i] != '\n') {
					if (linelen < sizeof(line))
						line[linelen++] = chunk[i];
					continue;
				}
				*units += is_unit_line(line, linelen);
				linelen = 0;
			}
		}
		if (o->progress && kb_monotime() - last >= 1.0) {
			last = kb_monotime();
			ev.elapsed_s = last - t0;
			ev.units = *units;
			o->progress(&ev, o->arg);
		}
	}
	*units += is_unit_line(line, linelen);
	close(fd);
	*status = kb_program_wait(pid);
	*seconds = kb_monotime() - t0;
	if (o->progress) {
		ev.elapsed_s = *seconds;
		ev.units = *units;
		ev.done = 1;
		o->progress(&ev, o->arg);
	}
	return ret;
}

static char **make_argv(const struct kb_build_opts *o, const char *objdir,
			const char *arch)
{
	char **argv = kb_calloc(o->nmake_args + 8, sizeof(*argv));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = o->jobs ? o->jobs : cpus > 0 ? (unsigned)cpus : 1;
	size_t n = 0, i;

	argv[n++] = kb_strdup(o->make ? o->make : "make");
	argv[n++] = kb_asprintf("-C%s", o->tree);
	argv[n++] = kb_asprintf("O=%s", objdir);
	argv[n++] = kb_asprintf("ARCH=%s", arch);
	argv[n++] = kb_asprintf("-j%u", jobs);
	for (i = 0; i < o->nmake_args; i++)
		argv[n++] = kb_strdup(o->make_args[i]);
	argv[n++] = kb_strdup(o->target ? o->target : "bzImage");
	argv[n] = NULL;
	return argv;
}

static void free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Copy what the build made into @dir and write its record last. */
static int keep_artifacts(const struct kb_build_opts *o, const char *objdir,
			  const char *dir, const char *key, const char *image,
			  const char *target, const struct kb_build_info *info,
			  double seconds, struct kb_err *err)
{
	char *to = kb_asprintf("%s/%s", dir, target);
	char *cfg = kb_asprintf("%s/.config", objdir);
	char *map = kb_asprintf("%s/System.map", objdir);
	char *mapto = kb_asprintf("%s/System.map", dir);
	char *rec = NULL, *recpath = NULL;
	int ret;

	if ((ret = kb_copy_atomic(image, to, err)) ||
	    (ret = kb_copy_atomic(cfg, info->config_path, err)))
		goto out;
	if (is_file(map) && (ret = kb_copy_atomic(map, mapto, err)))
		goto out;
	rec = kb_asprintf("status ok\nkey %s\ntree_id %s\nunits %u\n"
			  "duration_s %.3f\nfull %d\nobjdir %s\n",
			  key, o->tree_id, info->units_compiled, seconds,
			  info->full, objdir);
	recpath = kb_asprintf("%s/kbisect-build.txt", dir);
	ret = kb_write_atomic_text(recpath, rec, err);
out:
	free(rec);
	free(recpath);
	free(to);
	free(cfg);
	free(map);
	free(mapto);
	return ret;
}

/* The evidence of a build (db/0007): the config it was built from and,
 * when ok, its image's SHA-256. */
static int keep_evidence(const char *config, struct kb_build_result *out,
			 struct kb_err *err)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	int ret;

	out->config_text = config ? kb_strdup(config) : NULL;
	if (out->status != KB_BUILD_OK || !out->image)
		return 0;
	if ((ret = kb_sha256_file(out->image, hex, err)))
		return ret;
	out->image_sha256 = kb_strdup(hex);
	return 0;
}

int kb_build_run(const struct kb_build_opts *o, const char *key,
		 const char *config, const char *label,
		 struct kb_build_result *out, struct kb_build_info *info,
		 struct kb_err *err)
{
	const char *arch = o->arch ? o->arch : "x86_64";
	const char *target = o->target ? o->target : "bzImage";
	char *cache = NULL, *dir = NULL, *objdir = NULL, *image = NULL;
	char *vmlinux = NULL, *full_path = NULL, **argv = NULL;
	struct kb_buf log = KB_BUF_INIT;
	unsigned units_full;
	double seconds = 0;
	int ret, lock = -1, log_fd = -1, status = 0;

	memset(out, 0, sizeof(*out));
	memset(info, 0, sizeof(*info));
	cache = o->cache_dir ? kb_strdup(o->cache_dir)
			     : kb_build_default_cache_dir();
	dir = kb_asprintf("%s/%s", cache, key);
	if (from_cache(dir, target, out, info)) {
		ret = 0;
		goto out;
	}
	objdir = o->objdir ? kb_strdup(o->objdir)
			   : kb_build_default_objdir(o->tree_id);
	if ((ret = kb_mkdir_p(dir, err)) || (ret = kb_mkdir_p(objdir, err)) ||
	    (ret = kb_lock_dir(objdir, &lock, err)) ||
	    (ret = put_config(objdir, config, err)))
		goto out;
	fill_paths(dir, info);
	info->objdir = kb_strdup(objdir);
	vmlinux = kb_asprintf("%s/vmlinux", objdir);
	info->full = !is_file(vmlinux);
	units_full = read_units_full(objdir);
	log_fd = open(info->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log_fd < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot create '%s': %s",
				 info->log_path, strerror(errno));
		goto out;
	}
	argv = make_argv(o, objdir, arch);
	if ((ret = run_make(o, argv, log_fd, key, label, units_full, &status,
			    &info->units_compiled, &seconds, err)))
		goto out;
	close(log_fd);
	log_fd = -1;
	if (stopped_by_signal(status)) {
		ret = kb_err_set(err, KB_EFAIL,
				 "the build of %s was stopped by signal %d: no result is recorded, it builds again when asked (log: %s)",
				 label, status - 128, info->log_path);
		goto out;
	}
	if (status != 0) {
		struct kb_err ignored = KB_ERR_INIT;
		const char *killed = NULL;

		if (kb_buf_read_file(&log, info->log_path, MAX_LOG,
				     &ignored) == 0)
			killed = job_killed(log.buf, log.len);
		if (killed) {
			ret = kb_err_set(err, KB_EFAIL,
					 "the build of %s was stopped: make says a job ended by a signal (\"%s\"): no result is recorded, it builds again when asked (log: %s)",
					 label, killed, info->log_path);
			goto out;
		}
	}
	out->duration_s = seconds;
	image = !strcmp(target, "vmlinux")
			? kb_asprintf("%s/vmlinux", objdir)
			: kb_asprintf("%s/arch/%s/boot/%s", objdir,
				      srcarch(arch), target);
	if (status != 0 || !is_file(image)) {
		struct kb_err ignored = KB_ERR_INIT;

		out->status = KB_BUILD_FAILED;
		out->reason = status ? kb_asprintf("make exited with status %d (log: %s)",
						   status, info->log_path)
				     : kb_asprintf("make made no '%s'", image);
		if (log.buf || kb_buf_read_file(&log, info->log_path,
						MAX_LOG, &ignored) == 0)
			out->log_tail = kb_build_tail(log.buf, log.len,
						      LOG_TAIL_LINES);
		ret = 0;
		goto out;
	}
	if (info->full) {
		char n[32];

		snprintf(n, sizeof(n), "%u\n", info->units_compiled);
		full_path = kb_asprintf("%s/.kbisect-units-full", objdir);
		if ((ret = kb_write_atomic_text(full_path, n, err)))
			goto out;
	}
	if ((ret = keep_artifacts(o, objdir, dir, key, image, target, info,
				  seconds, err)))
		goto out;
	out->status = KB_BUILD_OK;
	out->image = kb_asprintf("%s/%s", dir, target);
out:
	if (ret == 0)
		ret = keep_evidence(config, out, err);
	if (log_fd >= 0)
		close(log_fd);
	kb_unlock(lock);
	if (ret) {
		kb_build_result_release(out);
		kb_build_info_release(info);
	}
	free_argv(argv);
	kb_buf_release(&log);
	free(full_path);
	free(vmlinux);
	free(image);
	free(objdir);
	free(dir);
	free(cache);
	return ret;
}

/* ---- variants of a matrix ------------------------------------------------- */

void kb_build_opts_from_matrix(const struct kb_matrix *m, const char *tree,
			       const char *tree_id, struct kb_build_opts *o)
{
	const struct kb_build_cfg *b = kb_matrix_build(m);

	o->tree = tree;
	o->tree_id = tree_id;
	o->jobs = b->jobs;
	o->nmake_args = b->nmake_args;
	o->make_args = b->make_args;
}

int kb_build_plan_variant(const struct kb_plan *p, size_t i, const char *label,
			  void (*progress)(const struct kb_build_progress *bp,
					   void *arg),
			  void *arg, struct kb_build_result *out,
			  struct kb_build_info *info, struct kb_err *err)
{
	const struct kb_variant *v = kb_plan_variant(p, i);
	const struct kb_plan_tree *t = kb_plan_variant_tree(p, i);
	const struct kb_kconfig_resolution *res = kb_plan_resolution(p, i);
	struct kb_build_opts bo = KB_BUILD_OPTS_INIT;
	struct kb_build_info own;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!v || !t || !res)
		return kb_err_set(err, KB_EINPUT,
				  "%s: variant %zu is not resolved against a kernel tree: nothing to build it from",
				  kb_matrix_file(kb_plan_matrix(p)), i);
	kb_build_opts_from_matrix(kb_plan_matrix(p), t->dir, t->id, &bo);
	bo.progress = progress;
	bo.arg = arg;
	if (!info)
		info = &own;
	ret = kb_build_run(&bo, v->build_key, res->config_text,
			   label ? label : v->label, out, info, err);
	if (ret == 0)
		out->cached = info->cached;
	if (info == &own && ret == 0)
		kb_build_info_release(&own);
	return ret;
}

/* Order the @n variants @idx of one tree; appends to @order at *@k. */
static void order_tree(const struct kb_plan *p, const char *tree_id,
		       const size_t *idx, size_t n, size_t *order, size_t *k)
{
	const char **configs = kb_calloc(n + 1, sizeof(*configs));
	size_t *sub = kb_calloc(n + 1, sizeof(*sub));
	struct kb_build_weights *w = NULL;
	struct kb_buf start = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *objdir = kb_build_default_objdir(tree_id);
	char *path = kb_asprintf("%s/.config", objdir);
	int have_start;
	size_t i;

	for (i = 0; i < n; i++)
		configs[i] = kb_plan_resolution(p, idx[i])->config_text;
	have_start = kb_buf_read_file(&start, path, 64u << 20, &ignored) == 0;
	kb_err_clear(&ignored);
	if (kb_build_weights_scan(objdir, &w, &ignored))
		w = NULL;
	kb_build_order(configs, n, have_start ? start.buf : NULL, w, sub);
	for (i = 0; i < n; i++)
		order[(*k)++] = idx[sub[i]];
	kb_build_weights_free(w);
	kb_buf_release(&start);
	free(path);
	free(objdir);
	free(sub);
	free(configs);
}

void kb_build_plan_order(const struct kb_plan *p, size_t *order)
{
	size_t i, j, n = kb_plan_nvariants(p), k = 0;
	size_t *idx;
	unsigned char *placed;

	if (!kb_plan_is_resolved(p)) {
		for (i = 0; i < n; i++)
			order[i] = i;
		return;
	}
	idx = kb_calloc(n + 1, sizeof(*idx));
	placed = kb_calloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		const struct kb_plan_tree *t = kb_plan_variant_tree(p, i);
		size_t m = 0;

		if (placed[i])
			continue;
		for (j = i; j < n; j++) {
			if (placed[j] || kb_plan_variant_tree(p, j) != t)
				continue;
			idx[m++] = j;
			placed[j] = 1;
		}
		order_tree(p, t->id, idx, m, order, &k);
	}
	free(placed);
	free(idx);
}
