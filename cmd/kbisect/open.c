/*
 * What several verbs open, parse and resolve before their work (open.h):
 * the database, an experiment for analysis, ids and variants given on
 * the command line, a matrix, a plan resolved against its tree and the
 * caps on it, a trend's series.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "open.h"
#include "kbisect.h"
#include "analysis.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "protocol.h"
#include "store.h"
#include "trend.h"
#include "variant.h"
#include "banned.h"

/* ---- the database and what the command line names ------------------------ */

/* how long a read verb waits for the daemon to say its database */
#define DAEMON_DB_WAIT_MS 2000

char *cmd_default_db(void)
{
	const char *env = getenv("KBISECT_DB");
	struct kb_err err = KB_ERR_INIT;
	struct stat st;
	char *sock, *db = NULL;

	if (env && *env)
		return kb_paths_default_db();
	sock = kb_protocol_default_socket();
	/* no socket, no daemon: not even a connect */
	if (!stat(sock, &st) && S_ISSOCK(st.st_mode) &&
	    !kb_protocol_daemon_db(sock, DAEMON_DB_WAIT_MS, &db, &err) &&
	    db && *db == '/') {
		free(sock);
		return db;
	}
	free(db);
	free(sock);
	return kb_paths_default_db();
}

int cmd_open_store(const char *path, struct kb_store **out,
		   struct kb_err *err)
{
	return cmd_open_store_as(path, KB_STORE_CREATE, out, err);
}

int cmd_open_store_as(const char *path, enum kb_store_access access,
		      struct kb_store **out, struct kb_err *err)
{
	struct kb_store_opts opts = KB_STORE_OPTS_INIT;
	char *def = NULL;
	int ret;

	if (!path)
		path = def = cmd_default_db();
	opts.access = access;
	ret = kb_store_open(path, &opts, out, err);
	free(def);
	return ret;
}

int cmd_parse_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	/* past INT64_MAX strtoll says ERANGE and clamps: not an id */
	if (*end || errno == ERANGE || v <= 0)
		return -1;
	*out = v;
	return 0;
}

int cmd_matrix_load(const char *path, struct kb_matrix **m,
		    struct kb_err *err)
{
	char *abs = kb_path_absolute(path);
	int ret = kb_matrix_load(abs, m, err);

	free(abs);
	/* every verb that loads a matrix here boots its hosts (run, test,
	 * bisect): none boots a machine yet */
	if (!ret && (ret = kb_matrix_check_runnable_hosts(*m, err))) {
		kb_matrix_free(*m);
		*m = NULL;
	}
	return ret;
}

/* ---- an experiment for the analysis verbs -------------------------------- */

int cmd_open_analysis(const char *db, const char *id, const char *metric,
		      struct kb_store **s, struct kb_analysis **a,
		      struct kb_err *err)
{
	int64_t exp;
	int ret;

	*s = NULL;
	*a = NULL;
	if (cmd_parse_id(id, &exp) < 0)
		return kb_err_set(err, KB_EINPUT,
				  "'%s' is not an experiment id (a number from 1 to 9223372036854775807; see kbisect history)",
				  id);
	/* the answer is stored where the database can be written */
	if ((ret = cmd_open_store_as(db, KB_STORE_EXISTING, s, err)))
		return ret;
	return kb_analysis_open(*s, exp, metric, a, err);
}

int cmd_store_writable(const struct kb_store *s)
{
	if (!kb_store_read_only(s))
		return 1;
	fprintf(stderr,
		"kbisect: note: the database cannot be written here: this answer is not stored in it\n");
	return 0;
}

int cmd_store_analyses(struct kb_store *s, int64_t exp,
		       const struct kb_store_analysis *rows, size_t n,
		       struct kb_err *err)
{
	if (!cmd_store_writable(s))
		return 0;
	return kb_store_analyses_put(s, exp, rows, n, err);
}

int cmd_parse_variant(const struct kb_analysis *a, const char *s, int *out)
{
	const struct kb_plan *p = kb_analysis_plan(a);
	size_t i;
	char *end;
	long v;

	if (*s == '#')
		s++;
	v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0 && (size_t)v < kb_plan_nvariants(p)) {
		*out = (int)v;
		return 0;
	}
	for (i = 0; i < kb_plan_nvariants(p); i++) {
		if (!strcmp(kb_plan_variant(p, i)->label, s)) {
			*out = (int)i;
			return 0;
		}
	}
	return -1;
}

/* ---- a plan (plan, run, resume, submit) ---------------------------------- */

struct resolve_progress {
	int tty;
};

static void on_resolve(const struct kb_plan_resolve_event *ev, void *arg)
{
	struct resolve_progress *rp = arg;

	if (rp->tty) {
		fprintf(stderr, "\r\033[Kresolving config %zu/%zu (#%u %s), %.1f s",
			ev->i, ev->n, ev->variant->idx, ev->variant->label,
			ev->elapsed_s);
		if (ev->done && ev->i == ev->n)
			fputs("\r\033[K", stderr);
	} else if (ev->done) {
		fprintf(stderr, "kbisect: resolved config %zu/%zu (#%u)%s, %.1f s\n",
			ev->i, ev->n, ev->variant->idx,
			ev->cached ? " from the cache" : "", ev->elapsed_s);
	}
}

/*
 * workload.profile on kernels without CONFIG_@sym: said on stderr, with
 * the variants, even when quiet (a profile left empty is a result lost).
 */
static void say_profile_lacks(const struct kb_plan *p, const char *sym,
			      const char *what)
{
	size_t i, k = 0, n = kb_plan_nvariants(p);
	const struct kb_variant *first = NULL;

	for (i = 0; i < n; i++) {
		const struct kb_kconfig_resolution *r = kb_plan_resolution(p, i);
		const char *v = r ? kb_kconfig_get(r->config, sym) : NULL;

		if (!r || (v && strcmp(v, "n")))
			continue;
		if (!k++)
			first = kb_plan_variant(p, i);
	}
	if (!k)
		return;
	fprintf(stderr,
		"kbisect: warning: workload.profile: %zu of %zu variants (#%u %s%s) build kernels without CONFIG_%s: %s; add CONFIG_%s=y to a fragment (source.fragments)\n",
		k, n, first->idx, first->label, k > 1 ? ", ..." : "", sym, what,
		sym);
}

int cmd_plan_resolve(struct kb_plan *p, int quiet, struct kb_err *err)
{
	const struct kb_source *src = kb_matrix_source(kb_plan_matrix(p));
	struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
	struct resolve_progress rp = { 0 };
	struct stat st;
	int ret;

	if (!src->tree)
		return 0;
	if (stat(src->tree, &st) < 0) {
		/* The examples name a tree this machine may not have: plan
		 * them as written rather than refuse. */
		fprintf(stderr,
			"kbisect: note: source.tree '%s' does not exist: Kconfig options are not checked and builds are counted from the matrix\n",
			src->tree);
		return 0;
	}
	rp.tty = isatty(STDERR_FILENO);
	if (!quiet) {
		o.progress = on_resolve;
		o.arg = &rp;
	}
	if ((ret = kb_plan_resolve(p, &o, err)))
		return ret;
	if (kb_matrix_workload(kb_plan_matrix(p))->profile_hz) {
		say_profile_lacks(p, "PERF_EVENTS",
				  "their boots can take no profile");
		say_profile_lacks(p, "KALLSYMS",
				  "their profiles name no function, only [unknown]");
	}
	return 0;
}

void cmd_plan_report_dropped(const struct kb_plan *p, FILE *out)
{
	const struct kb_matrix *m = kb_plan_matrix(p);
	size_t i, k, n = kb_plan_nvariants(p);

	if (!kb_plan_is_resolved(p) || !kb_plan_ndropped(p))
		return;
	fprintf(out, "\n*** %zu requested option%s did not hold: these variants are not the kernels their labels name ***\n",
		kb_plan_ndropped(p), kb_plan_ndropped(p) == 1 ? "" : "s");
	for (i = 0; i < kb_matrix_nfactors(m); i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);
		size_t l;

		if (f->kind != KB_FACTOR_KCONFIG)
			continue;
		for (l = 0; l < f->nlevels; l++) {
			size_t asked = 0, held = 0;
			const char *why = NULL;

			for (k = 0; k < n; k++) {
				const struct kb_kconfig_resolution *r =
					kb_plan_resolution(p, k);
				const struct kb_setting *s =
					&kb_plan_variant(p, k)->settings[i];
				const char *lv = f->levels[l].value;
				size_t o;

				/* quoted levels keep their quotes in settings */
				if (f->levels[l].quoted
					    ? strncmp(s->value + 1, lv,
						      strlen(lv)) ||
						      s->value[strlen(lv) + 1] != '"'
					    : strcmp(s->value, lv))
					continue;
				for (o = 0; o < r->noutcomes; o++) {
					if (strcmp(r->outcomes[o].name, f->name))
						continue;
					asked++;
					held += r->outcomes[o].held;
					if (!r->outcomes[o].held && !why)
						why = r->outcomes[o].reason;
				}
			}
			if (asked && held < asked)
				fprintf(out, "  %s=%s %s (%zu of %zu variants): %s\n",
					f->name, f->levels[l].value,
					held ? "did not always hold"
					     : "NEVER held",
					asked - held, asked, why);
		}
	}
	fprintf(out, "  %zu variant%s, %zu distinct build%s\n", n,
		n == 1 ? "" : "s", kb_plan_nbuilds(p),
		kb_plan_nbuilds(p) == 1 ? "" : "s");
}

const char **cmd_host_uris(const struct kb_matrix *m)
{
	size_t i, n = kb_matrix_nhosts(m);
	const char **hosts = kb_calloc(n ? n : 1, sizeof(*hosts));

	for (i = 0; i < n; i++)
		hosts[i] = kb_matrix_host(m, i)->uri;
	return hosts;
}

int cmd_parse_count(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p;

	if (!s || !*s)
		return -1;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' || p - s >= 15)
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cmd_plan_limits(const char *verb, const struct kb_args *a,
		    struct kb_plan_limits *out)
{
	struct kb_plan_limits l = KB_PLAN_LIMITS_INIT;

	if (a->max_boots && cmd_parse_count(a->max_boots, 1, KB_COUNT_MAX, &l.max_boots))
		return cmd_usage_error(verb,
				       "--max-boots '%s' is not a number of boots from 1",
				       a->max_boots);
	if (a->max_samples && cmd_parse_count(a->max_samples, 1, KB_COUNT_MAX, &l.max_samples))
		return cmd_usage_error(verb,
				       "--max-samples '%s' is not a number of samples from 1",
				       a->max_samples);
	*out = l;
	return 0;
}

/* ---- a trend's series (trend, report --trend) ---------------------------- */

int cmd_trend_series_opts(const char *verb, const char *variant,
			  const char *metric, const char *by,
			  struct kb_trend_series_opts *so)
{
	so->label = variant;
	so->metric = metric;
	if (!by || !strcmp(by, "time"))
		so->by = KB_TREND_BY_TIME;
	else if (!strcmp(by, "revision"))
		so->by = KB_TREND_BY_REVISION;
	else
		return cmd_usage_error(verb, "--by '%s': give time or revision",
				       by);
	return 0;
}
