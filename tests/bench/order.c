/*
 * Build order benchmark (lib/build.h, kb_build_order): the greedy
 * nearest-neighbour order of n configs of 2000 symbols, n = 256 and 1024,
 * as lib/build.c computes it now ("after") and as it did before
 * ("before", the plain walk that measured every pair again with string
 * compares, kept verbatim below), on generated inputs:
 *
 *   - 2^k: every combination of k options (k = 8, 10), each option
 *     pulling 0-3 other symbols along when on, as olddefconfig does, in
 *     plan order;
 *   - subsets: random subsets of 24 such options;
 *   - wide: configs each differing from the base in ~5% of its symbols,
 *     about 100 symbols (the hard case for the new walk: consecutive
 *     picks differ in many symbols).
 *
 * Symbols weigh 1 to 1100 units, most of them a few (a draw that is
 * heavy-tailed as fixdep records are).  Each order starts from the base
 * config, as from an O= folder holding it.  For each input it prints both
 * times, the time of every pick of a `kbisect build` (the next build
 * chosen after each one: kb_build_configs_nearest on configs parsed
 * once), and the order's cost: the units rebuilt along it, from the base
 * (the sum of the weighted distances between consecutive configs).  For
 * comparison, the cost of a cheaper order that was not taken: a sort by
 * the Gray-code rank of the options that are on, heaviest option first.
 * Times are CPU seconds of the process.  Exits 1 when the new order or
 * the picks differ from the old order.
 *
 *   KBISECT_BENCH_ORDER_SIZES  sizes to run, e.g. "256" (default
 *                              "256,1024")
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "build.h"
#include "mem.h"
#include "rng.h"

#define NSYMS 2000
#define NOPTS_SUBSETS 24
#define WIDE_P 0.05

/* ---- before: lib/build.c's greedy walk as it was ---------------------- */

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

struct opt {
	const char *name, *value; /* into the parsed copy */
	size_t idx;               /* line order, so that the last one wins */
};

struct parsed {
	char *text;
	struct opt *opts;
	size_t n;
};

static int cmp_opt(const void *a, const void *b)
{
	const struct opt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      (s[i] >= 'a' && s[i] <= 'z')))
			return 0;
	return 1;
}

static void parse_config(const char *text, struct parsed *p)
{
	char *line, *next;
	size_t alloc = 0, i, j;

	memset(p, 0, sizeof(*p));
	p->text = kb_strdup(text ? text : "");
	for (line = p->text; line && *line; line = next) {
		char *eq, *name = NULL, *value = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "# CONFIG_", 9) &&
		    has_suffix(line, " is not set")) {
			name = line + 9;
			line[strlen(line) - 11] = '\0';
			value = "n";
		} else if (*line != '#' && (eq = strchr(line, '='))) {
			*eq = '\0';
			name = line;
			if (!strncmp(name, "CONFIG_", 7))
				name += 7;
			value = eq + 1;
		}
		if (!name || !valid_name(name, strlen(name)))
			continue;
		if (p->n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			p->opts = kb_reallocarray(p->opts, alloc,
						  sizeof(*p->opts));
		}
		p->opts[p->n].name = name;
		p->opts[p->n].value = value;
		p->opts[p->n].idx = p->n;
		p->n++;
	}
	/* sort by name, then line: the last of duplicates wins */
	if (p->n)
		qsort(p->opts, p->n, sizeof(*p->opts), cmp_opt);
	for (i = 0, j = 0; i < p->n; i++) {
		if (j && !strcmp(p->opts[j - 1].name, p->opts[i].name))
			p->opts[j - 1] = p->opts[i];
		else
			p->opts[j++] = p->opts[i];
	}
	p->n = j;
}

static void parsed_release(struct parsed *p)
{
	free(p->text);
	free(p->opts);
}

static int is_n(const char *v)
{
	return !v || !strcmp(v, "n") || !*v;
}

static unsigned long distance(const struct parsed *a, const struct parsed *b,
			      const struct kb_build_weights *w)
{
	unsigned long d = 0;
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		int c = i == a->n   ? 1
			: j == b->n ? -1
				    : strcmp(a->opts[i].name, b->opts[j].name);
		const char *name, *va, *vb;

		if (c < 0) {
			name = a->opts[i].name;
			va = a->opts[i++].value;
			vb = NULL;
		} else if (c > 0) {
			name = b->opts[j].name;
			va = NULL;
			vb = b->opts[j++].value;
		} else {
			name = a->opts[i].name;
			va = a->opts[i++].value;
			vb = b->opts[j++].value;
		}
		if (is_n(va) && is_n(vb))
			continue;
		if (va && vb && !strcmp(va, vb))
			continue;
		d += kb_build_weights_get(w, name);
	}
	return d;
}

static void old_order(const char *const *configs, size_t n, const char *start,
		      const struct kb_build_weights *w, size_t *order)
{
	struct parsed *p = kb_calloc(n + 1, sizeof(*p));
	unsigned char *done = kb_calloc(n + 1, 1);
	size_t i, k, cur = n; /* p[n] is the start config */

	for (i = 0; i < n; i++)
		parse_config(configs[i], &p[i]);
	parse_config(start, &p[n]);
	for (k = 0; k < n; k++) {
		size_t best = n;
		unsigned long bestd = 0;

		if (cur == n && !start) {
			best = 0;
		} else {
			for (i = 0; i < n; i++) {
				unsigned long d;

				if (done[i])
					continue;
				d = distance(&p[cur], &p[i], w);
				if (best == n || d < bestd) {
					best = i;
					bestd = d;
				}
			}
		}
		order[k] = best;
		done[best] = 1;
		cur = best;
	}
	for (i = 0; i <= n; i++)
		parsed_release(&p[i]);
	free(p);
	free(done);
}

/* ---- inputs ------------------------------------------------------------ */

enum { V_N, V_Y, V_M, V_NUM };

struct input {
	const char *name;
	size_t n;
	char **configs;       /* @n texts */
	char *start;          /* the base */
	size_t nbits;         /* options (wide: symbols) */
	unsigned char *bits;  /* @n rows of @nbits: on (flipped) or not */
	unsigned long *bitw;  /* units an option's flip rebuilds */
	struct kb_build_weights *w;
};

struct base {
	unsigned char val[NSYMS];
	unsigned num[NSYMS];
	unsigned weight[NSYMS];
	int opt[NSYMS]; /* 1 + the option a symbol belongs to, 0: none */
};

/* CPU seconds of this process: steadier than wall time on a shared host. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_base(struct kb_rng *r, struct base *b,
		      struct kb_build_weights *w)
{
	size_t s;

	memset(b, 0, sizeof(*b));
	for (s = 0; s < NSYMS; s++) {
		double u = kb_rng_uniform(r);
		char name[16];

		b->val[s] = u < 0.55 ? V_Y : u < 0.70 ? V_M : u < 0.95 ? V_N
								      : V_NUM;
		b->num[s] = (unsigned)kb_rng_below(r, 65536);
		u = kb_rng_uniform(r);
		b->weight[s] = (unsigned)exp(u * u * log(1100.0));
		snprintf(name, sizeof(name), "SYM%04zu", s);
		kb_build_weights_set(w, name, b->weight[s]);
	}
}

static char *config_text(const unsigned char *val, const unsigned *num)
{
	struct kb_buf t = KB_BUF_INIT;
	size_t s;

	for (s = 0; s < NSYMS; s++) {
		switch (val[s]) {
		case V_N:
			kb_buf_addf(&t, "# CONFIG_SYM%04zu is not set\n", s);
			break;
		case V_Y:
			kb_buf_addf(&t, "CONFIG_SYM%04zu=y\n", s);
			break;
		case V_M:
			kb_buf_addf(&t, "CONFIG_SYM%04zu=m\n", s);
			break;
		default:
			kb_buf_addf(&t, "CONFIG_SYM%04zu=0x%x\n", s, num[s]);
		}
	}
	return kb_buf_detach(&t);
}

/* @k options among the symbols the base leaves off, each with 0-3 more. */
static void pick_options(struct kb_rng *r, struct base *b, size_t k,
			 unsigned long *bitw)
{
	size_t j, d;

	for (j = 0; j < k; j++) {
		size_t ndeps = 1 + (size_t)kb_rng_below(r, 4);

		for (d = 0; d < ndeps; d++) {
			size_t s;

			do
				s = (size_t)kb_rng_below(r, NSYMS);
			while (b->val[s] != V_N || b->opt[s]);
			b->opt[s] = (int)j + 1;
			bitw[j] += b->weight[s];
		}
	}
}

static void make_input(const char *name, size_t n, struct input *in)
{
	struct kb_rng r;
	struct base b;
	unsigned char val[NSYMS];
	size_t i, j, s;

	memset(in, 0, sizeof(*in));
	in->name = name;
	in->n = n;
	in->w = kb_build_weights_new();
	kb_rng_init(&r, 20261130 + n);
	make_base(&r, &b, in->w);
	in->start = config_text(b.val, b.num);
	if (!strcmp(name, "2^k"))
		for (in->nbits = 0; ((size_t)1 << in->nbits) < n; in->nbits++)
			;
	else if (!strcmp(name, "subsets"))
		in->nbits = NOPTS_SUBSETS;
	else
		in->nbits = NSYMS;
	in->bits = kb_calloc(n * in->nbits + 1, 1);
	in->bitw = kb_calloc(in->nbits + 1, sizeof(*in->bitw));
	if (in->nbits < NSYMS)
		pick_options(&r, &b, in->nbits, in->bitw);
	else
		for (s = 0; s < NSYMS; s++)
			in->bitw[s] = b.weight[s];
	in->configs = kb_calloc(n, sizeof(*in->configs));
	for (i = 0; i < n; i++) {
		unsigned char *bits = in->bits + i * in->nbits;

		for (j = 0; j < in->nbits; j++) {
			if (!strcmp(name, "2^k"))
				bits[j] = (i >> j) & 1;
			else if (!strcmp(name, "subsets"))
				bits[j] = kb_rng_below(&r, 2) != 0;
			else
				bits[j] = kb_rng_uniform(&r) < WIDE_P;
		}
		memcpy(val, b.val, sizeof(val));
		for (s = 0; s < NSYMS; s++) {
			if (in->nbits == NSYMS && bits[s])
				val[s] = val[s] == V_Y ? V_N : V_Y;
			else if (in->nbits < NSYMS && b.opt[s] &&
				 bits[b.opt[s] - 1])
				val[s] = V_Y;
		}
		in->configs[i] = config_text(val, b.num);
	}
}

static void free_input(struct input *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		free(in->configs[i]);
	free(in->configs);
	free(in->start);
	free(in->bits);
	free(in->bitw);
	kb_build_weights_free(in->w);
}

/* ---- a cheaper order, for comparison: Gray-code rank ------------------- */

static size_t gray_nbits;

struct ranked {
	const unsigned char *rank;
	size_t idx;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = memcmp(x->rank, y->rank, gray_nbits);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const unsigned long *heavy_w;

static int cmp_heavy(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (heavy_w[x] != heavy_w[y])
		return heavy_w[x] > heavy_w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Sort by the rank in the reflected Gray code of the bits, heaviest
 * first: over all 2^k combinations, the heaviest option flips once, the
 * next twice, ... (the best order of a full hypercube).
 */
static void gray_order(const struct input *in, size_t *order)
{
	size_t nb = in->nbits, i, j;
	size_t *perm = kb_calloc(nb + 1, sizeof(*perm));
	unsigned char *rank = kb_calloc(in->n * nb + 1, 1);
	struct ranked *rk = kb_calloc(in->n + 1, sizeof(*rk));

	for (j = 0; j < nb; j++)
		perm[j] = j;
	heavy_w = in->bitw;
	qsort(perm, nb, sizeof(*perm), cmp_heavy);
	for (i = 0; i < in->n; i++) {
		const unsigned char *bits = in->bits + i * nb;
		unsigned char *rw = rank + i * nb, acc = 0;

		for (j = 0; j < nb; j++)
			rw[j] = acc ^= bits[perm[j]];
		rk[i].rank = rw;
		rk[i].idx = i;
	}
	gray_nbits = nb;
	qsort(rk, in->n, sizeof(*rk), cmp_ranked);
	for (i = 0; i < in->n; i++)
		order[i] = rk[i].idx;
	free(rk);
	free(rank);
	free(perm);
}

/* ---- the run ------------------------------------------------------------ */

/* Units rebuilt along @order from the start (the old distance). */
static unsigned long cost(const struct parsed *p, const struct parsed *start,
			  const size_t *order, size_t n,
			  const struct kb_build_weights *w)
{
	unsigned long c = 0;
	size_t k;

	for (k = 0; k < n; k++)
		c += distance(k ? &p[order[k - 1]] : start, &p[order[k]], w);
	return c;
}

static int run(const char *name, size_t n)
{
	struct input in;
	struct parsed *p, start;
	struct kb_build_configs *c;
	size_t *before = kb_calloc(n, sizeof(*before));
	size_t *after = kb_calloc(n, sizeof(*after));
	size_t *gray = kb_calloc(n, sizeof(*gray));
	unsigned char *skip = kb_calloc(n, 1);
	const char *const *configs;
	double t0, t_before, t_after, t_parse, t_picks;
	unsigned long c_greedy, c_gray;
	size_t i, k;
	int same = 1, picks_same = 1;

	make_input(name, n, &in);
	configs = (const char *const *)in.configs;
	t0 = now_s();
	old_order(configs, n, in.start, in.w, before);
	t_before = now_s() - t0;
	t0 = now_s();
	kb_build_order(configs, n, in.start, in.w, after);
	t_after = now_s() - t0;
	t0 = now_s();
	c = kb_build_configs_new(configs, n);
	t_parse = now_s() - t0;
	kb_build_configs_free(c);
	/* `kbisect build`: the next build after each one, from the one built */
	t0 = now_s();
	c = kb_build_configs_new(configs, n);
	for (k = 0, i = n; k < n; k++) {
		i = kb_build_configs_nearest(c, k ? configs[i] : in.start,
					     in.w, skip);
		picks_same &= i == before[k];
		skip[i] = 1;
	}
	kb_build_configs_free(c);
	t_picks = now_s() - t0;
	for (k = 0; k < n; k++)
		same &= before[k] == after[k];
	gray_order(&in, gray);
	p = kb_calloc(n, sizeof(*p));
	for (i = 0; i < n; i++)
		parse_config(configs[i], &p[i]);
	parse_config(in.start, &start);
	c_greedy = cost(p, &start, after, n, in.w);
	c_gray = cost(p, &start, gray, n, in.w);
	printf("%-8s %5zu  %8.3f s  %8.4f s  %8.4f s  %7.0fx  %8.4f s  %9.1f s  %10lu  %10lu (%+.1f%%)  %s\n",
	       name, n, t_before, t_after, t_parse, t_before / t_after, t_picks,
	       t_before * (double)n / 3, c_greedy, c_gray,
	       c_greedy ? 100.0 * ((double)c_gray - (double)c_greedy) /
				  (double)c_greedy
			: 0.0,
	       same && picks_same ? "yes" : "NO");
	for (i = 0; i < n; i++)
		parsed_release(&p[i]);
	parsed_release(&start);
	free(p);
	free_input(&in);
	free(skip);
	free(gray);
	free(after);
	free(before);
	return same && picks_same ? 0 : 1;
}

int main(void)
{
	static const char *const cases[] = { "2^k", "subsets", "wide" };
	const char *sizes = getenv("KBISECT_BENCH_ORDER_SIZES");
	char *list, *tok, *save = NULL;
	size_t i;
	int ret = 0;

	if (!sizes || !*sizes)
		sizes = "256,1024";
	printf("== build order: n configs of %d symbols, before and after (lib/build.h), CPU seconds\n",
	       NSYMS);
	printf("%-8s %5s  %10s  %10s  %10s  %8s  %10s  %11s  %10s  %19s  %s\n",
	       "input", "n", "before", "after", "(parse)", "speedup", "picks",
	       "picks bef.", "cost", "Gray-sort cost", "same");
	list = kb_strdup(sizes);
	for (tok = strtok_r(list, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		size_t n = strtoul(tok, NULL, 10);

		if (n == 0 || n > 4096) {
			fprintf(stderr, "bench order: size '%s' is not 1..4096\n",
				tok);
			ret = 1;
			break;
		}
		for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
			ret |= run(cases[i], n);
	}
	free(list);
	printf("(parse): of after, parsing the configs.  picks: every pick of a `kbisect build` of the n configs, weights fixed, after; picks bef.: the same before, estimated as n/3 orders (each pick was a whole order of the configs left).  cost: units rebuilt along the greedy order, the same before and after.  same: the orders and the picks are the same before and after\n");
	return ret;
}
