#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kbisect.h"
#include "buf.h"
#include "json.h"
#include "mem.h"
#include "store.h"
#include "trend.h"
#include "banned.h"

/*
 * `kbisect trend NAME`: one metric of one variant across the experiments
 * of a matrix name, and its change points (lib/trend.h); `--bisect N`
 * hands the N-th change point to `kbisect bisect commits`.
 */

struct trend_args {
	struct kb_args common;
	const char *variant;
	const char *metric;
	const char *by;
	const char *bisect;
	const char *permutations;
	const char *max_p;
	const char *seed;
};

/* A whole number from @min to @max, or -1. */
static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno == ERANGE || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* "2024-05-01" for committer time @t (UTC). */
static void date_of(int64_t t, char *s, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(s, size, "%Y-%m-%d", &tm))
		snprintf(s, size, "?");
}

/* A point's revision in a line: "v6.1 (1a2b3c4d5e6f, 2024-05-01)". */
static void rev_text(const struct kb_trend_point *p, struct kb_buf *b)
{
	struct kb_buf e = KB_BUF_INIT;
	char date[32];

	kb_buf_reset(b);
	if (!p->rev) {
		kb_buf_adds(b, "-");
		return;
	}
	kb_buf_adds(b, cmd_printable(p->rev, 0, &e));
	if (p->commit) {
		date_of(p->commit_time, date, sizeof(date));
		kb_buf_addf(b, " (%.12s, %s)", p->commit, date);
	}
	kb_buf_release(&e);
}

/* The revision of point @p to bisect from: the commit it named when
 * read (by revision), else the revision as the matrix gave it. */
static const char *bisect_rev(const struct kb_trend_point *p)
{
	return p->commit ? p->commit : p->rev;
}

/* Is @s safe in a shell word without quotes? */
static int shell_plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-+=./:,@%^", *s))
			return 0;
	return 1;
}

/* @argv as one line for a POSIX shell. */
static void shell_line(const char *const *argv, size_t n, struct kb_buf *b)
{
	const char *p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			kb_buf_addch(b, ' ');
		if (shell_plain(argv[i])) {
			kb_buf_adds(b, argv[i]);
			continue;
		}
		kb_buf_addch(b, '\'');
		for (p = argv[i]; *p; p++) {
			if (*p == '\'')
				kb_buf_adds(b, "'\\''");
			else
				kb_buf_addch(b, *p);
		}
		kb_buf_addch(b, '\'');
	}
}

static const char *by_name(enum kb_trend_by by)
{
	return by == KB_TREND_BY_REVISION ? "revision" : "time";
}

static void point_json(struct kb_json *j, const char *key,
		       const struct kb_trend_point *p, size_t index)
{
	size_t i;

	if (key)
		kb_json_key(j, key);
	kb_json_object_begin(j);
	kb_json_kv_int(j, "index", (long long)index);
	kb_json_kv_int(j, "experiment", p->experiment);
	kb_json_kv_string(j, "created_at", p->created_at);
	kb_json_kv_int(j, "variant", p->variant_idx);
	kb_json_kv_string(j, "label", p->label);
	kb_json_kv_string(j, "revision", p->rev);
	kb_json_kv_string(j, "commit", p->commit);
	if (p->commit)
		kb_json_kv_int(j, "commit_time", p->commit_time);
	kb_json_kv_number(j, "mean", p->mean);
	kb_json_key(j, "boots");
	kb_json_array_begin(j);
	for (i = 0; i < p->nboots; i++)
		kb_json_number(j, p->boots[i]);
	kb_json_array_end(j);
	kb_json_object_end(j);
}

static void trend_json(const struct kb_trend_series *t,
		       const struct kb_trend_opts *o,
		       const struct kb_trend_change *c, size_t nc)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	char seed_text[32];
	size_t i;

	snprintf(seed_text, sizeof(seed_text), "%llu",
		 (unsigned long long)o->seed);
	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", t->name);
	kb_json_kv_string(j, "metric", t->metric);
	kb_json_kv_string(j, "by", by_name(t->by));
	kb_json_key(j, "method");
	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", "e-divisive-means");
	kb_json_kv_number(j, "alpha", 1);
	kb_json_kv_int(j, "permutations", o->permutations);
	kb_json_kv_number(j, "max_p", o->max_p);
	if (o->seed <= INT64_MAX)
		kb_json_kv_int(j, "seed", (long long)o->seed);
	else /* past what a JSON reader keeps exact as a number */
		kb_json_kv_string(j, "seed", seed_text);
	kb_json_object_end(j);
	kb_json_key(j, "points");
	kb_json_array_begin(j);
	for (i = 0; i < t->n; i++)
		point_json(j, NULL, &t->points[i], i);
	kb_json_array_end(j);
	kb_json_key(j, "skipped");
	kb_json_array_begin(j);
	for (i = 0; i < t->nskipped; i++) {
		kb_json_object_begin(j);
		kb_json_kv_int(j, "experiment", t->skipped[i].experiment);
		kb_json_kv_string(j, "reason", t->skipped[i].reason);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_key(j, "change_points");
	kb_json_array_begin(j);
	for (i = 0; i < nc; i++) {
		kb_json_object_begin(j);
		kb_json_kv_int(j, "number", (long long)i + 1);
		kb_json_kv_int(j, "index", (long long)c[i].index);
		kb_json_kv_int(j, "order_found", c[i].order);
		point_json(j, "before", &t->points[c[i].index - 1],
			   c[i].index - 1);
		point_json(j, "after", &t->points[c[i].index], c[i].index);
		kb_json_kv_number(j, "mean_before", c[i].before);
		kb_json_kv_number(j, "mean_after", c[i].after);
		kb_json_kv_int(j, "points_before",
			       (long long)(c[i].index - c[i].from));
		kb_json_kv_int(j, "points_after",
			       (long long)(c[i].to - c[i].index));
		kb_json_kv_number(j, "change_pct", c[i].change_pct);
		kb_json_kv_number(j, "q", c[i].q);
		kb_json_kv_number(j, "p_value", c[i].p);
		kb_json_object_end(j);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/*
 * The experiments left out, one line per reason with their ids (a
 * nightly series can leave out dozens for the same one).
 */
static void skipped_text(const struct kb_trend_series *t)
{
	struct kb_buf ids = KB_BUF_INIT, e = KB_BUF_INIT;
	unsigned char *done = kb_calloc(t->nskipped + 1, 1);
	size_t i, k, n;

	for (i = 0; i < t->nskipped; i++) {
		if (done[i])
			continue;
		kb_buf_reset(&ids);
		for (k = i, n = 0; k < t->nskipped; k++) {
			if (done[k] || strcmp(t->skipped[k].reason,
					      t->skipped[i].reason))
				continue;
			done[k] = 1;
			kb_buf_addf(&ids, "%s%lld", n++ ? ", " : "",
				    (long long)t->skipped[k].experiment);
		}
		if (n == 1)
			printf("%6s %10s  left out: %s\n", "", ids.buf,
			       cmd_printable(t->skipped[i].reason, 0, &e));
		else
			printf("%6s %10s  left out %zu: %s (experiments %s)\n",
			       "", "", n,
			       cmd_printable(t->skipped[i].reason, 0, &e),
			       ids.buf);
	}
	free(done);
	kb_buf_release(&ids);
	kb_buf_release(&e);
}

static void trend_text(const struct kb_trend_series *t,
		       const struct kb_trend_opts *o,
		       const struct kb_trend_change *c, size_t nc)
{
	struct kb_buf b = KB_BUF_INIT, rv = KB_BUF_INIT, e = KB_BUF_INIT;
	size_t i, k = 0;
	int w = 8;

	printf("trend of %s in '%s', ", t->metric ? t->metric : "?",
	       cmd_printable(t->name, 0, &e));
	if (t->n)
		printf("variant '%s', ",
		       cmd_printable(t->points[t->n - 1].label, 0, &e));
	printf("%zu experiment%s by %s\n\n", t->n, t->n == 1 ? "" : "s",
	       by_name(t->by));
	for (i = 0; i < t->n; i++) {
		rev_text(&t->points[i], &rv);
		if (rv.len > (size_t)w)
			w = (int)rv.len;
	}
	printf("%6s %10s  %-20s  %-*s %5s %14s\n", "point", "experiment",
	       "created (UTC)", w, "revision", "boots", "mean");
	for (i = 0; i < t->n; i++) {
		const struct kb_trend_point *p = &t->points[i];

		if (k < nc && c[k].index == i) {
			printf("%6s ---- change %zu: %s (%.6g -> %.6g), p = %.3g\n",
			       "", k + 1, kb_format_pct(c[k].change_pct, 1).s,
			       c[k].before, c[k].after, c[k].p);
			k++;
		}
		rev_text(p, &rv);
		printf("%6zu %10lld  %-20s  %-*s %5zu %14.6g\n", i,
		       (long long)p->experiment, p->created_at, w, rv.buf,
		       p->nboots, p->mean);
	}
	skipped_text(t);
	printf("\nchange points by E-Divisive means (alpha 1; %u permutations, p <= %g, seed %llu):",
	       o->permutations, o->max_p, (unsigned long long)o->seed);
	if (!nc)
		printf(" none\n");
	else
		printf("\n");
	for (i = 0; i < nc; i++) {
		const struct kb_trend_point *a = &t->points[c[i].index - 1];
		const struct kb_trend_point *z = &t->points[c[i].index];

		printf("  %zu. at point %zu: %.6g -> %.6g (%s), p = %.3g\n",
		       i + 1, c[i].index, c[i].before, c[i].after,
		       kb_format_pct(c[i].change_pct, 1).s, c[i].p);
		kb_buf_reset(&b);
		rev_text(a, &rv);
		kb_buf_addf(&b, "experiment %lld", (long long)a->experiment);
		if (a->rev)
			kb_buf_addf(&b, " at %s", rv.buf);
		rev_text(z, &rv);
		kb_buf_addf(&b, " -> experiment %lld", (long long)z->experiment);
		if (z->rev)
			kb_buf_addf(&b, " at %s", rv.buf);
		printf("     %s\n", b.buf);
	}
	if (nc)
		printf("\nto bisect change N: this command with --bisect N\n");
	kb_buf_release(&b);
	kb_buf_release(&rv);
	kb_buf_release(&e);
}

/*
 * Print the `kbisect bisect commits` line for change point @k (1-based)
 * of @t, or its JSON; or say why there is none (exit status 2).  Returns
 * the exit status.
 */
static int print_bisect(const struct trend_args *o,
			const struct kb_trend_series *t,
			const struct kb_trend_change *c, size_t nc, uint64_t k)
{
	const struct kb_trend_point *a, *z;
	struct kb_err err = KB_ERR_INIT;
	const char *argv[16];
	struct kb_buf b = KB_BUF_INIT;
	size_t n = 0, i;
	int model;

	if (k > nc) {
		kb_err_set(&err, KB_EINPUT,
			   "change point %llu asked for, but the trend of '%s' has %zu",
			   (unsigned long long)k, t->name, nc);
		return cmd_fail(&err);
	}
	a = &t->points[c[k - 1].index - 1];
	z = &t->points[c[k - 1].index];
	if (!bisect_rev(a) || !bisect_rev(z)) {
		kb_err_set(&err, KB_EINPUT,
			   "experiment %lld has no kernel revision (no source.rev, no kernel.rev factor): there are no commits to bisect",
			   (long long)(bisect_rev(a) ? z : a)->experiment);
		return cmd_fail(&err);
	}
	if (!strcmp(bisect_rev(a), bisect_rev(z))) {
		kb_err_set(&err, KB_EINPUT,
			   "experiments %lld and %lld either side of change point %llu ran the same revision '%s': the change is not in the kernel's commits (the host, the guest or the workload changed?)",
			   (long long)a->experiment, (long long)z->experiment,
			   (unsigned long long)k, bisect_rev(a));
		return cmd_fail(&err);
	}
	if (!t->matrix_path) {
		kb_err_set(&err, KB_EINPUT,
			   "experiment %lld was stored without the path of its matrix: give `kbisect bisect commits --good %s --bad %s` a matrix",
			   (long long)z->experiment, bisect_rev(a), bisect_rev(z));
		return cmd_fail(&err);
	}
	model = t->executor && !strcmp(t->executor, "model");
	argv[n++] = "kbisect";
	argv[n++] = "bisect";
	argv[n++] = "commits";
	argv[n++] = "--good";
	argv[n++] = bisect_rev(a);
	argv[n++] = "--bad";
	argv[n++] = bisect_rev(z);
	argv[n++] = "--matrix";
	argv[n++] = t->matrix_path;
	if (model) {
		argv[n++] = "--model";
		argv[n++] = "MODEL";
	}
	if (o->common.db) {
		argv[n++] = "--db";
		argv[n++] = o->common.db;
	}
	shell_line(argv, n, &b);
	if (o->common.json) {
		struct kb_buf jb = KB_BUF_INIT;
		struct kb_json *j = kb_json_new(&jb, 1);

		kb_json_object_begin(j);
		kb_json_kv_int(j, "change_point", (long long)k);
		kb_json_kv_string(j, "good", bisect_rev(a));
		kb_json_kv_string(j, "bad", bisect_rev(z));
		kb_json_kv_int(j, "good_experiment", a->experiment);
		kb_json_kv_int(j, "bad_experiment", z->experiment);
		kb_json_kv_number(j, "change_pct", c[k - 1].change_pct);
		kb_json_key(j, "argv");
		kb_json_array_begin(j);
		for (i = 0; i < n; i++)
			kb_json_string(j, argv[i]);
		kb_json_array_end(j);
		kb_json_kv_string(j, "command", b.buf);
		kb_json_kv_bool(j, "needs_model", model);
		kb_json_object_end(j);
		cmd_json_put(j, &jb);
	} else {
		printf("%s\n", b.buf);
	}
	if (model)
		fprintf(stderr,
			"kbisect: the experiments ran on the performance model: put its file in place of MODEL (its text is stored with experiment %lld)\n",
			(long long)z->experiment);
	kb_buf_release(&b);
	return 0;
}

static const struct kb_opt trend_opts[] = {
	KB_OPT_STRING(struct trend_args, variant, 0, "variant", "LABEL",
		      "the variant with this exact label in each experiment (default: each one's baseline, #0)"),
	KB_OPT_STRING(struct trend_args, metric, 0, "metric", "M",
		      "the metric (default: the newest experiment's)"),
	KB_OPT_STRING(struct trend_args, by, 0, "by", "time|revision",
		      "order the experiments by creation (default) or by the committer date of their kernel revision"),
	KB_OPT_STRING(struct trend_args, bisect, 0, "bisect", "N",
		      "print the `kbisect bisect commits` command line for the N-th change point (1 is the earliest) instead of the trend"),
	KB_OPT_STRING(struct trend_args, permutations, 0, "permutations", "N",
		      "shuffles of each permutation test (default: 199)"),
	KB_OPT_STRING(struct trend_args, max_p, 0, "max-pvalue", "P",
		      "a change point needs p <= P (default: 0.01)"),
	KB_OPT_STRING(struct trend_args, seed, 0, "seed", "N",
		      "seed of the shuffles (default: 1): the same seed gives the same answer"),
	KB_OPT_DB,
	KB_OPT_JSON("print the series and its change points as JSON"),
	KB_OPT_END,
};

static int cmd_trend(const struct kb_args *args);

const struct cmd cmd_trend_entry = {
	.name = "trend",
	.rank = 72,
	.args = "NAME",
	.opts = trend_opts,
	.size = sizeof(struct trend_args),
	.fn = cmd_trend,
	.summary = "a metric across the experiments of a matrix, and where it changed",
	.help = "One point per experiment named NAME (the matrix's name; the\n"
		"experiments of bisections and `kbisect test` are left out): the\n"
		"mean of the variant's ok boots, each boot being the mean of its\n"
		"runs.  Change points are found by E-Divisive means (Matteson and\n"
		"James 2014, as MongoDB and Apache Otava use it on performance\n"
		"series): the split of the series with the largest energy\n"
		"divergence (exponent 1), then recursively within each part, each\n"
		"candidate kept only when a permutation test gives p <= the\n"
		"largest p-value.  Each side of a change needs two points at least.\n"
		"The shuffles are seeded: the same data and seed give the same\n"
		"change points and p-values.\n"
		"\n"
		"By revision, each experiment's kernel revision (its variant's\n"
		"kernel.rev, else the matrix's source.rev) is resolved in its\n"
		"source.tree with libgit2, as it names a commit now, and the\n"
		"points are ordered by that commit's committer date.\n"
		"\n"
		"--bisect N prints the command line of `kbisect bisect commits`\n"
		"between the revisions of the two experiments either side of the\n"
		"N-th change point, with the newest experiment's matrix; it does\n"
		"not run it (a bisection builds and boots kernels for hours): run\n"
		"the line it prints.\n"
		"\n"
		"Exit status, for a cron job: 0 no change point, 1 a change point\n"
		"found, 2 when it cannot tell: fewer than four points (each side of\n"
		"a change needs two), no experiment of the name, or an error.\n"
		"Experiments left out are listed once per reason.\n",
	.epilog = "Examples:\n"
		  "  kbisect trend nightly-fio\n"
		  "  kbisect trend nightly-fio --by revision --metric lat_p99_us\n"
		  "  kbisect trend nightly-fio --by revision --bisect 1\n",
};

static int cmd_trend(const struct kb_args *args)
{
	const struct trend_args *o = CMD_ARGS(struct trend_args, args);
	struct kb_trend_series_opts so = KB_TREND_SERIES_OPTS_INIT;
	struct kb_trend_opts to = KB_TREND_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_trend_series *t = NULL;
	struct kb_trend_change *c = NULL;
	double *x = NULL;
	uint64_t v, nth = 0;
	size_t nc = 0;
	char *end;
	int ret;

	if ((ret = cmd_trend_series_opts("trend", o->variant, o->metric,
					 o->by, &so)))
		return ret;
	if (o->bisect && parse_u64(o->bisect, 1, UINT32_MAX, &nth) < 0)
		return cmd_usage_error("trend",
				       "--bisect '%s': give the number of a change point, 1 for the earliest",
				       o->bisect);
	if (o->permutations) {
		if (parse_u64(o->permutations, 1, KB_TREND_MAX_PERMUTATIONS,
			      &v) < 0)
			return cmd_usage_error("trend",
					       "--permutations '%s': give a whole number from 1 to %d",
					       o->permutations,
					       KB_TREND_MAX_PERMUTATIONS);
		to.permutations = (unsigned)v;
	}
	if (o->max_p) {
		errno = 0;
		to.max_p = strtod(o->max_p, &end);
		if (end == o->max_p || *end || errno ||
		    !(to.max_p > 0 && to.max_p < 1))
			return cmd_usage_error("trend",
					       "--max-pvalue '%s': give a number between 0 and 1",
					       o->max_p);
	}
	if (o->seed) {
		if (parse_u64(o->seed, 0, UINT64_MAX, &v) < 0)
			return cmd_usage_error("trend",
					       "--seed '%s': give a whole number from 0 to 18446744073709551615",
					       o->seed);
		to.seed = v;
	}

	if ((ret = cmd_open_store_as(args->db, KB_STORE_READ_ONLY, &s, &err)) ||
	    (ret = kb_trend_series_load(s, args->pos[0], &so, &t, &err)))
		goto fail;
	x = kb_trend_series_values(t);
	if ((ret = kb_trend_changes(x, t->n, &to, &c, &nc, &err)))
		goto fail;
	if (nth) {
		ret = print_bisect(o, t, c, nc, nth);
		goto out;
	}
	if (args->json)
		trend_json(t, &to, c, nc);
	else
		trend_text(t, &to, c, nc);
	/* for cron: 1 a change, 0 none, 2 a series too short to tell */
	ret = nc ? 1 : 0;
	if (t->n < 2 * to.min_size) {
		fprintf(stderr,
			"kbisect: trend: %zu point%s of '%s' (%zu left out): a change point needs %zu on each side, so none can be found yet\n",
			t->n, t->n == 1 ? "" : "s", t->name, t->nskipped,
			to.min_size);
		ret = 2;
	}
	goto out;
fail:
	/* 1 is a change found: any failure to tell, a name without
	 * experiments too, is 2 */
	cmd_fail(&err);
	ret = 2;
out:
	free(c);
	free(x);
	kb_trend_series_free(t);
	kb_store_close(s);
	return ret;
}
