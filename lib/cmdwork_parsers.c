/*
 * Known output formats of benchmark commands, read for metrics
 * (workload.command.parser, see cmdwork.h): dd's summary line and
 * UnixBench's index tables.
 */
#include "cmdwork.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "variant.h"
#include "banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The next line of [*p, end): its start, with its length in *len. */
static const char *next_line(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *nl;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	*len = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*p = nl ? nl + 1 : end;
	return s;
}

/* A finite number of at most 63 bytes at @s (@n bytes), or -1. */
static int number(const char *s, size_t n, double *out)
{
	char tmp[64], *end;

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*out = strtod(tmp, &end);
	return (*end || end == tmp || !isfinite(*out)) ? -1 : 0;
}

/* ---- dd ---------------------------------------------------------------- */

/*
 * "N bytes ... copied, S s, ..." or "... copied, S seconds, ...": the
 * bytes and the seconds, or -1 when the line is no such line.
 */
static int dd_line(const char *s, size_t n, double *bytes, double *secs)
{
	const char *end = s + n, *p = s, *c;
	size_t k;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == s || end - p < 7 || memcmp(p, " bytes", 6) ||
	    number(s, (size_t)(p - s), bytes))
		return -1;
	for (c = p; c + 8 <= end && memcmp(c, " copied,", 8); c++)
		;
	if (c + 8 > end)
		return -1;
	c += 8;
	while (c < end && *c == ' ')
		c++;
	for (k = 0; c + k < end && c[k] != ' '; k++)
		;
	if (number(c, k, secs) || *secs < 0)
		return -1;
	c += k;
	if (end - c >= 3 && !memcmp(c, " s,", 3))
		return 0;
	if (end - c >= 9 && !memcmp(c, " seconds,", 9))
		return 0;
	return -1;
}

int kb_cmdwork_parse_dd(const char *text, size_t len, const char *file,
			struct kb_sample *out, struct kb_err *err)
{
	const char *p = text, *end = text + len, *line;
	double bytes = 0, secs = 0, b, t;
	size_t n, found = 0;

	while ((line = next_line(&p, end, &n))) {
		if (dd_line(line, n, &b, &t))
			continue;
		bytes += b;
		secs += t;
		found++;
	}
	if (!found)
		return kb_err_set(err, KB_EINPUT,
				  "%s: no dd summary line ('N bytes ... copied, S s, ...') in the command's output: busybox dd prints one only when built with FEATURE_DD_THIRD_STATUS_LINE (Debian's busybox-static is not); use coreutils' dd, or the command's time (real_s)",
				  file);
	(void)kb_sample_set(out, "dd_bytes", bytes);
	(void)kb_sample_set(out, "dd_s", secs);
	(void)kb_sample_set(out, "dd_mb_per_s",
			    secs > 0 ? bytes / secs / 1e6 : 0);
	return 0;
}

/* ---- UnixBench ------------------------------------------------------------- */

/* UnixBench's test names (its "Run" script) for the index lines. */
static const struct {
	const char *title;
	const char *name;
} ub_tests[] = {
	{ "Dhrystone 2 using register variables", "dhry2reg" },
	{ "Double-Precision Whetstone", "whetstone_double" },
	{ "Execl Throughput", "execl" },
	{ "File Copy 1024 bufsize 2000 maxblocks", "fstime" },
	{ "File Copy 256 bufsize 500 maxblocks", "fsbuffer" },
	{ "File Copy 4096 bufsize 8000 maxblocks", "fsdisk" },
	{ "Pipe Throughput", "pipe" },
	{ "Pipe-based Context Switching", "context1" },
	{ "Process Creation", "spawn" },
	{ "Shell Scripts (1 concurrent)", "shell1" },
	{ "Shell Scripts (8 concurrent)", "shell8" },
	{ "Shell Scripts (16 concurrent)", "shell16" },
	{ "System Call Overhead", "syscall" },
};

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* The short name of test title @s (@n bytes) into @out (@size bytes). */
static void ub_name(const char *s, size_t n, char *out, size_t size)
{
	size_t i, j = 0;

	for (i = 0; i < N(ub_tests); i++) {
		if (strlen(ub_tests[i].title) == n &&
		    !memcmp(ub_tests[i].title, s, n)) {
			snprintf(out, size, "%s", ub_tests[i].name);
			return;
		}
	}
	for (i = 0; i < n && j + 1 < size; i++) {
		char ch = s[i];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			out[j++] = ch;
		else if (j && out[j - 1] != '_')
			out[j++] = '_';
	}
	while (j && out[j - 1] == '_')
		j--;
	out[j] = '\0';
}

/* The last whitespace-separated word of [s, s + *n), cutting it off. */
static const char *last_word(const char *s, size_t *n, size_t *wlen)
{
	size_t e = *n, b;

	while (e && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	b = e;
	while (b && s[b - 1] != ' ' && s[b - 1] != '\t')
		b--;
	*wlen = e - b;
	*n = b;
	return s + b;
}

/* "running M parallel copies of tests" (or "copy"): M, else 0. */
static unsigned ub_copies(const char *s, size_t n)
{
	const char *p;
	size_t i;

	for (i = 0; i + 8 <= n; i++) {
		if (memcmp(s + i, "running ", 8))
			continue;
		p = s + i + 8;
		if (p < s + n && *p >= '1' && *p <= '9') {
			unsigned long m = strtoul(p, NULL, 10);

			return m < 1000000 ? (unsigned)m : 0;
		}
	}
	return 0;
}

static int ub_set(struct kb_sample *out, size_t *count, const char *name,
		  double v, const char *file, struct kb_err *err)
{
	double old;

	if (kb_sample_get(out, name, &old) && ++*count > KB_CMDWORK_UNIXBENCH_MAX)
		return kb_err_set(err, KB_EINPUT,
				  "%s: UnixBench's output has more than %d index values",
				  file, KB_CMDWORK_UNIXBENCH_MAX);
	(void)kb_sample_set(out, name, v);
	return 0;
}

int kb_cmdwork_parse_unixbench(const char *text, size_t len, const char *file,
			       struct kb_sample *out, struct kb_err *err)
{
	const char *p = text, *end = text + len, *line, *w;
	unsigned copies = 1, c; /* "ubM_": M below 10^6 */
	size_t n, wl, count = 0;
	int in_table = 0, scores = 0, ret;
	char test[24], name[KB_METRIC_NAME_MAX + 16];
	double v;

	while ((line = next_line(&p, end, &n))) {
		while (n && line[n - 1] == '\r')
			n--;
		if ((c = ub_copies(line, n))) {
			copies = c;
			continue;
		}
		if (starts(line, n, "System Benchmarks Index Values") ||
		    starts(line, n, "System Benchmarks Partial Index")) {
			in_table = 1;
			continue;
		}
		if (starts(line, n, "System Benchmarks Index Score")) {
			w = last_word(line, &n, &wl);
			if (number(w, wl, &v))
				continue;
			snprintf(name, sizeof(name), "ub%u_index", copies);
			if ((ret = ub_set(out, &count, name, v, file, err)) ||
			    (ret = ub_set(out, &count, "ub_index", v, file,
					  err)))
				return ret;
			scores++;
			in_table = 0;
			continue;
		}
		if (!in_table)
			continue;
		/* TITLE BASELINE RESULT INDEX: the index is the last word */
		w = last_word(line, &n, &wl);
		if (number(w, wl, &v)) /* "---", "========" */
			continue;
		(void)last_word(line, &n, &wl); /* RESULT */
		(void)last_word(line, &n, &wl); /* BASELINE */
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		ub_name(line, n, test, sizeof(test));
		snprintf(name, sizeof(name), "ub%u_%s", copies, test);
		name[KB_METRIC_NAME_MAX - 1] = '\0';
		if ((ret = ub_set(out, &count, name, v, file, err)))
			return ret;
	}
	if (!scores)
		return kb_err_set(err, KB_EINPUT,
				  "%s: no 'System Benchmarks Index Score' line in the command's output: is it UnixBench's Run?",
				  file);
	return 0;
}
