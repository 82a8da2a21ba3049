/*
 * Monitors: the guest's monitors frame (monitor.h) into named deltas.
 * Each section's file is read into a list of (name, value), the before
 * and after lists of a source are sorted and merged into deltas.
 */
#include "monitor.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "banned.h"

/* A list of named values read from one file. */
struct list {
	size_t n, alloc;
	struct kb_monitor_value *v;
};

static void list_release(struct list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Add PREFIX.NAME = @value to @l; NAME's bytes outside [A-Za-z0-9_.:-]
 * become _ (a name too long is left out).  Returns -1 when @l is full.
 */
static int add(struct list *l, const char *prefix, const char *name,
	       size_t len, double value)
{
	size_t plen = strlen(prefix), i;
	struct kb_monitor_value *m;

	if (!len || plen + 1 + len >= KB_MONITOR_NAME_MAX)
		return 0;
	if (l->n == KB_MONITOR_MAX_VALUES)
		return -1;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 64;
		l->v = kb_reallocarray(l->v, l->alloc, sizeof(*l->v));
	}
	m = &l->v[l->n++];
	memset(m, 0, sizeof(*m));
	memcpy(m->name, prefix, plen);
	m->name[plen] = '.';
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		m->name[plen + 1 + i] =
			(isalnum(ch) || strchr("_.:-", ch)) && ch ? (char)ch
								  : '_';
	}
	m->value = value;
	return 0;
}

static int by_name(const void *x, const void *y)
{
	const struct kb_monitor_value *a = x, *b = y;

	return strcmp(a->name, b->name);
}

/* Sort @l by name and sum the values of equal names into one. */
static void list_fold(struct list *l)
{
	size_t i, j = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), by_name);
	for (i = 1; i < l->n; i++) {
		if (!strcmp(l->v[i].name, l->v[j].name))
			l->v[j].value += l->v[i].value;
		else
			l->v[++j] = l->v[i];
	}
	l->n = j + 1;
}

/* ---- the files ---------------------------------------------------------- */

/* A whole decimal number (digits, a sign, a point, an exponent) in
 * [@s, @s + @len): 0 with *@out, or -1. */
static int number(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	size_t i;

	if (!len || len >= sizeof(buf))
		return -1;
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && !strchr("+-.eE", s[i]))
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return *end || !isfinite(*out) ? -1 : 0;
}

/* The first WORDS_MAX words of one line, as (start, length). */
#define WORDS_MAX 64
struct words {
	size_t n;
	const char *w[WORDS_MAX];
	size_t len[WORDS_MAX];
};

static void split(const char *s, size_t len, struct words *out)
{
	size_t i = 0;

	out->n = 0;
	while (i < len && out->n < WORDS_MAX) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		out->w[out->n] = s + i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		out->len[out->n] = (size_t)(s + i - out->w[out->n]);
		out->n++;
	}
}

typedef int (*line_fn)(struct list *l, const char *s, size_t len,
		       void *state);

/* Call @fn on each line of @data (without its newline); lines too long
 * are skipped.  Returns -1 when @fn does (the list is full). */
static int each_line(const char *data, size_t len, line_fn fn,
		     struct list *l, void *state)
{
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n <= KB_MONITOR_MAX_LINE && fn(l, p, n, state))
			return -1;
		p += n + (nl != NULL);
	}
	return 0;
}

/* /proc/vmstat: "name value" */
static int vmstat_line(struct list *l, const char *s, size_t len, void *st)
{
	struct words w;
	double v;

	(void)st;
	split(s, len, &w);
	if (w.n != 2 || number(w.w[1], w.len[1], &v))
		return 0;
	return add(l, "vmstat", w.w[0], w.len[0], v);
}

/* /proc/interrupts: a header of CPU names, then "IRQ: count... text" */
/* The next word at or after *@p before @end, into (*@w, *@wlen); 0 at
 * the end of the line. */
static int next_word(const char **p, const char *end, const char **w,
		     size_t *wlen)
{
	const char *q = *p;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q == end)
		return 0;
	*w = q;
	while (q < end && *q != ' ' && *q != '\t')
		q++;
	*wlen = (size_t)(q - *w);
	*p = q;
	return 1;
}

static int irq_line(struct list *l, const char *s, size_t len, void *st)
{
	const char *p = s, *end = s + len, *w, *label, *dev = NULL;
	size_t *ncpu = st, wlen, llen, dlen = 0, i, k = 0;
	double sum = 0, v;
	int numbered = 1;

	if (!*ncpu) { /* the header: CPU0 CPU1 ... */
		while (next_word(&p, end, &w, &wlen))
			if (wlen > 3 && !memcmp(w, "CPU", 3))
				++*ncpu;
		return 0;
	}
	if (!next_word(&p, end, &label, &llen) || llen < 2 ||
	    label[llen - 1] != ':')
		return 0;
	for (i = 0; i + 1 < llen; i++)
		if (!isdigit((unsigned char)label[i]))
			numbered = 0;
	/* a count per CPU (fewer on the ERR and MIS lines) */
	while (k < *ncpu) {
		const char *q = p;

		if (!next_word(&q, end, &w, &wlen) || number(w, wlen, &v))
			break;
		sum += v;
		p = q;
		k++;
	}
	if (k == 0)
		return 0;
	/* the device: the line's last word, after the counts */
	while (next_word(&p, end, &w, &wlen)) {
		dev = w;
		dlen = wlen;
	}
	if (numbered && dev)
		return add(l, "irq", dev, dlen, sum);
	return add(l, "irq", label, llen - 1, sum);
}

/* /proc/schedstat: "cpuN" and 9 fields (versions 15 to 17) */
static int sched_line(struct list *l, const char *s, size_t len, void *st)
{
	static const char *const fields[9] = {
		"yld_count",  NULL,         "sched_count", "sched_goidle",
		"ttwu_count", "ttwu_local", "cpu_time",    "run_delay",
		"timeslices",
	};
	struct words w;
	double v;
	size_t i;

	(void)st;
	split(s, len, &w);
	if (w.n < 10 || w.len[0] < 4 || memcmp(w.w[0], "cpu", 3) ||
	    !isdigit((unsigned char)w.w[0][3]))
		return 0;
	for (i = 0; i < 9; i++) {
		if (number(w.w[i + 1], w.len[i + 1], &v))
			return 0;
		if (fields[i] && add(l, "schedstat", fields[i],
				     strlen(fields[i]), v))
			return -1;
	}
	return 0;
}

/* /proc/lock_stat: "class-name: 12 numbers" per class (version 0.4) */
static int lock_line(struct list *l, const char *s, size_t len, void *st)
{
	static const struct {
		size_t col;
		const char *name;
	} cols[] = {
		{ 0, "con_bounces" }, { 1, "contentions" },
		{ 4, "waittime_total" }, { 6, "acq_bounces" },
		{ 7, "acquisitions" }, { 10, "holdtime_total" },
	};
	const char *colon = NULL, *p;
	struct words w;
	double v[12];
	size_t i;

	(void)st;
	for (p = s; p < s + len; p++)
		if (*p == ':' && p + 1 < s + len && (p[1] == ' ' || p[1] == '\t'))
			colon = p;
	if (!colon)
		return 0;
	split(colon + 1, (size_t)(s + len - colon - 1), &w);
	if (w.n != 12)
		return 0;
	for (i = 0; i < 12; i++)
		if (number(w.w[i], w.len[i], &v[i]))
			return 0;
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (add(l, "lock_stat", cols[i].name, strlen(cols[i].name),
			v[cols[i].col]))
			return -1;
	return 0;
}

/* perf stat -x,: "value,unit,event,..."; "<not counted>" is left out */
static int perf_line(struct list *l, const char *s, size_t len, void *st)
{
	const char *c1, *c2, *c3;
	double v;

	(void)st;
	if (!len || s[0] == '#')
		return 0;
	if (!(c1 = memchr(s, ',', len)) ||
	    !(c2 = memchr(c1 + 1, ',', (size_t)(s + len - c1 - 1))))
		return 0;
	c3 = memchr(c2 + 1, ',', (size_t)(s + len - c2 - 1));
	if (!c3)
		c3 = s + len;
	if (number(s, (size_t)(c1 - s), &v))
		return 0;
	return add(l, "perf", c2 + 1, (size_t)(c3 - c2 - 1), v);
}

/* ---- the frame ---------------------------------------------------------- */

enum phase { BEFORE, AFTER, STAT };

struct source {
	const char *name;
	line_fn fn;
	int delta;   /* before and after; else one "stat" section */
	struct list l[2];
	int seen[2];
};

/* Whether vmstat counter @name (without "vmstat.") is a gauge. */
static int gauge(const char *name)
{
	return !strncmp(name, "vmstat.nr_", 10);
}

/* The monitors of @src into @out: after - before, the gauges' after. */
static int merge(struct source *src, struct list *out)
{
	struct list *b = &src->l[BEFORE], *a = &src->l[AFTER];
	size_t i = 0, j = 0;

	if (!src->delta) {
		a = &src->l[0];
		b = NULL;
	} else if (!src->seen[BEFORE] || !src->seen[AFTER]) {
		return 0; /* one side missing: no delta to take */
	}
	list_fold(a);
	if (b)
		list_fold(b);
	for (j = 0; j < a->n; j++) {
		double v = a->v[j].value;
		int c = 1;

		while (b && i < b->n && (c = strcmp(b->v[i].name,
						    a->v[j].name)) < 0)
			i++;
		if (b && c == 0 && !gauge(a->v[j].name))
			v -= b->v[i].value;
		if (v == 0)
			continue;
		if (out->n == KB_MONITOR_MAX_VALUES)
			return -1;
		if (out->n == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 64;
			out->v = kb_reallocarray(out->v, out->alloc,
						 sizeof(*out->v));
		}
		out->v[out->n] = a->v[j];
		out->v[out->n++].value = v;
	}
	return 0;
}

/* A decimal number ending at @stop; advances *@p past the stop. */
static int header_num(const char **p, const char *end, char stop,
		      size_t *out)
{
	const char *s = *p;
	size_t v = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (v > (size_t)1 << 40)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	if (s >= end || *s != stop)
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

static int full(struct kb_err *err, const char *file)
{
	return kb_err_set(err, KB_EINPUT, "%s: more than %d monitors", file,
			  KB_MONITOR_MAX_VALUES);
}

int kb_monitor_parse_buffer(const char *data, size_t len, const char *file,
			    unsigned run, struct kb_monitor_value **v,
			    size_t *n, struct kb_err *err)
{
	static const char magic[] = "kbisect-monitors 1\n";
	static const char *const phases[] = { "before", "after", "stat" };
	/* in the order of KB_MONITOR_* (kb_workload_monitor_name()) */
	struct source src[KB_MONITOR_SOURCES] = {
		{ .fn = vmstat_line, .delta = 1 },
		{ .fn = irq_line, .delta = 1 },
		{ .fn = sched_line, .delta = 1 },
		{ .fn = lock_line, .delta = 1 },
		{ .fn = perf_line, .delta = 0 },
	};
	const char *p = data, *end = data + len;
	struct list out = { 0 };
	size_t i, k, section = 0;
	int ret = 0;

	for (i = 0; i < KB_MONITOR_SOURCES; i++)
		src[i].name = kb_workload_monitor_name((unsigned)i);
	if (len < sizeof(magic) - 1 || memcmp(p, magic, sizeof(magic) - 1))
		return kb_err_set(err, KB_EINPUT,
				  "%s: expected a monitors frame ('kbisect-monitors 1')",
				  file);
	p += sizeof(magic) - 1;
	while (p < end) {
		const char *nl, *hend;
		struct words w;
		size_t flen, ph = 3, si = KB_MONITOR_SOURCES, ncpu = 0;
		struct list *l;

		if (*p == '\n') { /* the newline /init adds at the end */
			p++;
			continue;
		}
		section++;
		nl = memchr(p, '\n', (size_t)(end - p) < 128 ? (size_t)(end - p)
							   : 128);
		if (nl)
			split(p, (size_t)(nl - p), &w);
		if (!nl || w.n != 3 ||
		    (hend = w.w[2], header_num(&hend, nl + 1, '\n', &flen)) ||
		    flen > (size_t)(end - nl - 1)) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: malformed header of section %zu",
					 file, section);
			goto out;
		}
		p = nl + 1;
		for (k = 0; k < KB_MONITOR_SOURCES; k++)
			if (w.len[0] == strlen(src[k].name) &&
			    !memcmp(w.w[0], src[k].name, w.len[0]))
				si = k;
		for (k = 0; k < 3; k++)
			if (w.len[1] == strlen(phases[k]) &&
			    !memcmp(w.w[1], phases[k], w.len[1]))
				ph = k;
		if (si == KB_MONITOR_SOURCES || ph == 3 ||
		    (src[si].delta ? ph == STAT : ph != STAT)) {
			p += flen; /* a source or phase of a newer guest */
			continue;
		}
		l = &src[si].l[src[si].delta ? ph : 0];
		if (src[si].seen[src[si].delta ? ph : 0]) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: section %zu repeats '%s %s'",
					 file, section, src[si].name,
					 phases[ph]);
			goto out;
		}
		src[si].seen[src[si].delta ? ph : 0] = 1;
		if (each_line(p, flen, src[si].fn, l, &ncpu)) {
			ret = full(err, file);
			goto out;
		}
		p += flen;
	}
	for (i = 0; i < KB_MONITOR_SOURCES; i++) {
		if (merge(&src[i], &out)) {
			ret = full(err, file);
			goto out;
		}
	}
	list_fold(&out);
	*v = kb_reallocarray(*v, *n + out.n ? *n + out.n : 1, sizeof(**v));
	for (i = 0; i < out.n; i++) {
		out.v[i].run = run;
		(*v)[*n + i] = out.v[i];
	}
	*n += out.n;
	ret = 0;
out:
	for (i = 0; i < KB_MONITOR_SOURCES; i++) {
		list_release(&src[i].l[0]);
		list_release(&src[i].l[1]);
	}
	list_release(&out);
	return ret;
}
