/*
 * The matrix's workload section (docs/matrix.md): fio, fio_job or
 * command with its regex, metrics and parser, metric, timeout_s, better,
 * files, targets, targets_count and per_device; the {{NAME}} parameters
 * against the workload.NAME factors; and a variant's workload made from
 * the matrix's (kb_workload_instance()).  Called by the sections (lib/
 * matrix.c lists the files); calls lib/matrix_factors.c and lib/matrix.c.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "matrix_int.h"
#include "mem.h"
#include "paths.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

/* Most workload.command.metrics. */
#define MAX_NAMED_METRICS 32
#define MAX_TARGET_GLOBS 16
#define MAX_TARGET_GLOB 64
/* What the output parsers yield at most (lib/cmdwork.h). */
#define DD_METRICS 3
#define UNIXBENCH_METRICS 32

#define N(a) (sizeof(a) / sizeof((a)[0]))

int kb_metric_name_valid(const char *s)
{
	const char *p = s;

	if (!*s || strlen(s) >= KB_METRIC_NAME_MAX || !(*s >= 'a' && *s <= 'z'))
		return 0;
	for (; *p; p++) {
		if (*p == '.') {
			/* a qualifier: not empty, and no trailing dot */
			if (p[1] == '\0' || p[1] == '.')
				return 0;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	}
	return 1;
}

/* ---- {{NAME}} references --------------------------------------------- */

/*
 * The next reference at or after @s: "{{" then letters, digits, _ or
 * spaces, then "}}".  Returns its start with the text inside in
 * @name/@len and the first byte after it in *@end; NULL when there is
 * none.  Other "{{" (a shell or awk brace) are no references.
 */
static const char *next_ref(const char *s, const char **name, size_t *len,
			    const char **end)
{
	const char *p;

	for (; (s = strstr(s, "{{")); s++) {
		for (p = s + 2; (*p >= 'a' && *p <= 'z') ||
				(*p >= 'A' && *p <= 'Z') ||
				(*p >= '0' && *p <= '9') || *p == '_' ||
				*p == ' ';
		     p++)
			;
		if (p > s + 2 && p[0] == '}' && p[1] == '}') {
			*name = s + 2;
			*len = (size_t)(p - s - 2);
			*end = p + 2;
			return s;
		}
	}
	return NULL;
}

/* The workload.NAME factor @name (@len bytes), or NULL. */
static const struct kb_factor *param_factor(const struct kb_matrix *m,
					    const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < m->nfactors; i++) {
		const struct kb_factor *f = &m->factors[i];

		if (f->kind == KB_FACTOR_WORKLOAD &&
		    strlen(f->name) == 9 + len &&
		    !strncmp(f->name + 9, name, len) &&
		    strcmp(f->name, "workload.copies"))
			return f;
	}
	return NULL;
}

/* Check the references of scalar @n; mark the factors used in @used. */
static int check_refs(struct ctx *c, const struct kb_ynode *n,
		      unsigned char *used)
{
	const char *s = n->str, *name, *end;
	size_t len;

	while ((s = next_ref(s, &name, &len, &end))) {
		const struct kb_factor *f = param_factor(c->m, name, len);

		if (!f)
			return fail(c, n,
				    "unknown workload parameter '{{%.*s}}': a {{NAME}} is filled from the factor workload.NAME (factors: { workload: { NAME: [levels] } }), and there is none called '%.*s'",
				    (int)len, name, (int)len, name);
		used[f - c->m->factors] = 1;
		s = end;
	}
	return 0;
}

/* Fill the references of @s from @g's parameters; caller frees. */
static int fill(const char *s, const struct kb_guest *g, char **out,
		struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *name, *end, *at;
	size_t len, i;

	*out = NULL;
	while ((at = next_ref(s, &name, &len, &end))) {
		for (i = 0; i < g->nparams; i++)
			if (strlen(g->params[i].name) == len &&
			    !strncmp(g->params[i].name, name, len))
				break;
		if (i == g->nparams) {
			kb_buf_release(&b);
			return kb_err_set(err, KB_EINPUT,
					  "workload parameter '{{%.*s}}' has no level in this variant",
					  (int)len, name);
		}
		kb_buf_add(&b, s, (size_t)(at - s));
		kb_buf_adds(&b, g->params[i].value);
		s = end;
	}
	kb_buf_adds(&b, s);
	*out = kb_buf_detach(&b);
	return 0;
}

int kb_workload_instance(const struct kb_workload *w, const struct kb_guest *g,
			 struct kb_workload_inst *out, struct kb_err *err)
{
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->w = *w;
	out->w.copies = g->copies ? g->copies : 1;
	out->w.copies_factor = g->copies != 0;
	out->w.nsysctl = g->nsysctl;
	out->w.sysctl = g->sysctl;
	if (w->command) {
		if ((ret = fill(w->command, g, &out->command, err)))
			return ret;
		out->w.command = out->command;
	}
	if (w->nfio) {
		out->fio = kb_calloc(w->nfio, sizeof(*out->fio));
		for (i = 0; i < w->nfio; i++) {
			char *v;

			out->fio[i] = w->fio[i];
			out->fio[i].value = NULL;
			if ((ret = fill(w->fio[i].value, g, &v, err)))
				return ret;
			out->fio[i].value = v;
		}
		out->w.fio = out->fio;
	}
	return 0;
}

void kb_workload_inst_release(struct kb_workload_inst *wi)
{
	size_t i;

	if (!wi)
		return;
	free(wi->command);
	for (i = 0; wi->fio && i < wi->w.nfio; i++)
		free((char *)wi->fio[i].value);
	free(wi->fio);
	memset(wi, 0, sizeof(*wi));
}

/* ---- regexes ----------------------------------------------------------- */

/*
 * glibc's regcomp() expands counted repetitions, so "(a{,1100}){100}"
 * takes gigabytes to compile, and a repetition of a repetition doubles
 * its memory each time ("a+++...": 20 of them take 1 GB, found by make
 * fuzz-run), as does a repeated group in a repeated group
 * ("((a+)+)+"...: 20 deep take 16 GB): keep regexes short, their counts
 * small, their repetitions single (POSIX leaves "a++" undefined anyway)
 * and their groups at most REGEX_MAX_DEPTH deep.
 */
#define REGEX_MAX_LEN 256
#define REGEX_MAX_COUNT 16
#define REGEX_MAX_COUNTED 2
#define REGEX_MAX_DEPTH 4

static int regex_bounded(struct ctx *c, const struct kb_ynode *n,
			 const char *what)
{
	const char *p;
	unsigned counted = 0;

	if (n->len > REGEX_MAX_LEN)
		return fail(c, n, "%s is longer than %d characters",
			    what, REGEX_MAX_LEN);
	int after_rep = 0; /* the previous item was a repetition */
	int depth = 0;     /* of parentheses */

	for (p = n->str; *p; p++) {
		const char *q;
		int is_rep = *p == '*' || *p == '+' || *p == '?' || *p == '{';

		if (is_rep && after_rep)
			return fail(c, n,
				    "%s repeats a repetition ('%.2s'): write one of them",
				    what, p - 1);
		after_rep = is_rep;
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '(' && ++depth > REGEX_MAX_DEPTH)
			return fail(c, n,
				    "%s nests groups more than %d deep",
				    what, REGEX_MAX_DEPTH);
		if (*p == ')' && depth > 0)
			depth--;
		if (*p == '[') {
			/* a bracket expression: its characters are literal;
			 * "]" first (after an optional "^") is one of them */
			q = p + 1 + (p[1] == '^');
			q += *q == ']';
			while (*q && *q != ']')
				q++;
			if (!*q)
				break; /* unmatched: regcomp refuses it */
			p = q;
			continue;
		}
		if (*p != '{')
			continue;
		if (++counted > REGEX_MAX_COUNTED)
			return fail(c, n,
				    "%s has more than %d counted repetitions {m,n}: use + or * instead",
				    what, REGEX_MAX_COUNTED);
		for (q = p + 1; *q && *q != '}'; q++) {
			if (*q >= '0' && *q <= '9') {
				char *end;
				unsigned long v = strtoul(q, &end, 10);

				q = end - 1;
				if (v > REGEX_MAX_COUNT)
					return fail(c, n,
						    "%s repeats something %lu times: counts above %d are refused (they make the regex huge)",
						    what, v, REGEX_MAX_COUNT);
			} else if (*q == ',' && (q[1] == '}')) {
				return fail(c, n,
					    "%s has an open count {m,}: use + or * instead",
					    what);
			}
		}
		if (p[1] == ',')
			return fail(c, n,
				    "%s has a count {,n} without a minimum: write {0,n}",
				    what);
		if (*q == '}')
			p = q; /* the count is one repetition, read */
	}
	return 0;
}

/*
 * Scalar @n is an extended regular expression @what that glibc compiles
 * in bounded time and memory, with exactly one (group).
 */
static int regex_one_group(struct ctx *c, const struct kb_ynode *n,
			   const char *what)
{
	regex_t re;
	int rc, ret;

	if ((ret = regex_bounded(c, n, what)))
		return ret;
	rc = regcomp(&re, n->str, REG_EXTENDED);
	if (rc) {
		char msg[128];

		regerror(rc, &re, msg, sizeof(msg));
		return fail(c, n, "invalid regex: %s", msg);
	}
	if (re.re_nsub != 1) {
		regfree(&re);
		return fail(c, n,
			    "the regex must have exactly one (group) around the number to take, found %zu",
			    re.re_nsub);
	}
	regfree(&re);
	return 0;
}


/* ---- the workload keys ----------------------------------------------------- */

/* A /dev glob of /init's: /dev/NAME, NAME of [a-z0-9] and glob syntax. */
static int glob_valid(const char *s)
{
	const char *p;

	if (strncmp(s, "/dev/", 5) || !s[5] || strlen(s) > MAX_TARGET_GLOB)
		return 0;
	for (p = s + 5; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      strchr("*?[]!^-_", *p)))
			return 0;
	return 1;
}

static int targets(struct ctx *c, const struct kb_ynode *n)
{
	struct kb_workload *w = &c->m->workload;
	const struct kb_ynode *const *items = &n;
	const char **globs;
	size_t count = 1, i;
	int ret;

	if (n->type == KB_Y_SEQ) {
		if (n->n == 0 || n->n > MAX_TARGET_GLOBS)
			return fail(c, n,
				    "workload.targets lists %zu globs: give 1 to %d",
				    n->n, MAX_TARGET_GLOBS);
		items = (const struct kb_ynode *const *)n->items;
		count = n->n;
	}
	globs = kb_matrix__keep(c->m, kb_calloc(count + 1, sizeof(*globs)));
	for (i = 0; i < count; i++) {
		if ((ret = kb_ycheck_string(&c->y, items[i],
					    "a workload.targets glob",
					    &globs[i])))
			return ret;
		if (!glob_valid(globs[i]))
			return fail(c, items[i],
				    "invalid workload.targets glob '%s': expected /dev/ and a device name pattern of a-z, 0-9, *, ?, [ ] ranges, such as /dev/vd[b-c] or /dev/sd[a-p]",
				    globs[i]);
	}
	w->targets = globs;
	w->ntargets = count;
	return 0;
}

/* workload.command.metrics: name -> regex. */
static int named_metrics(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const reserved[] = { "real_s", "user_s", "sys_s" };
	struct kb_workload *w = &c->m->workload;
	struct kb_option *opts;
	size_t i, j;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP,
				  "workload.command.metrics")))
		return ret;
	if (n->n == 0 || n->n > MAX_NAMED_METRICS)
		return fail(c, n,
			    "workload.command.metrics names %zu metrics: give 1 to %d, such as { ops: \"([0-9.]+) ops/s\" }",
			    n->n, MAX_NAMED_METRICS);
	opts = kb_matrix__keep(c->m, kb_calloc(n->n, sizeof(*opts)));
	for (i = 0; i < n->n; i++) {
		const struct kb_ynode *key = n->keys[i];
		char *what;

		if (!kb_matrix__lower_word(key->str, KB_METRIC_NAME_MAX))
			return fail(c, key,
				    "invalid metric name '%s': expected lower case letters, digits and _, starting with a letter, such as ops",
				    key->str);
		for (j = 0; j < N(reserved); j++)
			if (!strcmp(key->str, reserved[j]))
				return fail(c, key,
					    "metric '%s' is the command's own time: name the regex's number otherwise",
					    key->str);
		if (w->regex && !strcmp(key->str, w->metric))
			return fail(c, key,
				    "metric '%s' is taken by workload.command.regex already",
				    key->str);
		what = kb_matrix__keep(
			c->m, kb_asprintf("workload.command.metrics.%s",
					  key->str));
		if ((ret = kb_ycheck_string(&c->y, n->items[i], what,
					    &opts[i].value)) ||
		    (ret = regex_one_group(c, n->items[i], what)))
			return ret;
		opts[i].key = key->str;
		opts[i].loc.line = key->line;
		opts[i].loc.col = key->col;
	}
	w->metrics = opts;
	w->nmetrics = n->n;
	return 0;
}

/* Whether the fio options say where the I/O goes themselves. */
static const struct kb_option *names_files(const struct kb_workload *w)
{
	size_t i;

	for (i = 0; i < w->nfio; i++)
		if (!strcmp(w->fio[i].key, "filename") ||
		    !strcmp(w->fio[i].key, "directory") ||
		    !strcmp(w->fio[i].key, "filename_format"))
			return &w->fio[i];
	return NULL;
}

/* The {{NAME}} parameters: each used, each reference known. */
static int params(struct ctx *c, const struct kb_ynode *n,
		  const struct kb_ynode *cmd)
{
	struct kb_matrix *m = c->m;
	struct kb_workload *w = &m->workload;
	unsigned char used[KB_MATRIX_MAX_FACTORS] = { 0 };
	const struct kb_factor **list;
	const struct kb_ynode *v;
	size_t i, k = 0;
	int ret;

	if (cmd && (v = kb_ynode_get(cmd, "run")) &&
	    (ret = check_refs(c, v, used)))
		return ret;
	if (w->kind == KB_WORKLOAD_FIO && (v = kb_ynode_get(n, "fio")))
		for (i = 0; i < v->n; i++)
			if ((ret = check_refs(c, v->items[i], used)))
				return ret;
	list = kb_matrix__keep(m, kb_calloc(m->nfactors + 1, sizeof(*list)));
	for (i = 0; i < m->nfactors; i++) {
		const struct kb_factor *f = &m->factors[i];

		if (f->kind != KB_FACTOR_WORKLOAD ||
		    !strcmp(f->name, "workload.copies"))
			continue;
		if (w->kind == KB_WORKLOAD_FIO_JOB)
			return kb_err_at(c->y.err, m->file, f->loc.line,
					 f->loc.col,
					 "factor %s cannot fill a fio_job file: a parameter fills {{%s}} in workload.command.run or in workload.fio values; write the job's options under workload.fio",
					 f->name, f->name + 9);
		if (!used[i])
			return kb_err_at(c->y.err, m->file, f->loc.line,
					 f->loc.col,
					 "factor %s is not used: write {{%s}} where its level goes, in %s",
					 f->name, f->name + 9,
					 w->kind == KB_WORKLOAD_COMMAND
						 ? "workload.command.run"
						 : "a workload.fio value");
		list[k++] = f;
	}
	w->params = list;
	w->nparams = k;
	return 0;
}

/* The metrics one fio run yields at most (lib/fio.h): read_ and write_
 * always, trim_ when the job trims or is the user's own file. */
static size_t fio_yield(const struct kb_workload *w)
{
	size_t i;

	if (w->kind == KB_WORKLOAD_FIO_JOB)
		return 18;
	for (i = 0; i < w->nfio; i++)
		if ((!strcmp(w->fio[i].key, "rw") ||
		     !strcmp(w->fio[i].key, "readwrite")) &&
		    strstr(w->fio[i].value, "trim"))
			return 18;
	return 12;
}

/* A run's metrics must fit in a sample: refused where they come from. */
static int metric_count(struct ctx *c, const struct kb_ynode *n)
{
	struct kb_matrix *m = c->m;
	const struct kb_workload *w = &m->workload;
	const struct kb_factor *copies =
	    kb_matrix_find_factor(m, "workload.copies");
	size_t base, devices = 0, total, i;
	unsigned maxc = 1;

	if (w->kind == KB_WORKLOAD_COMMAND)
		base = 3 + (w->regex != NULL) + w->nmetrics +
		       (w->parser == KB_PARSER_DD	   ? DD_METRICS
			: w->parser == KB_PARSER_UNIXBENCH ? UNIXBENCH_METRICS
							   : 0);
	else
		base = fio_yield(w);
	if (w->per_device)
		devices = w->targets_count;
	for (i = 0; copies && i < copies->nlevels; i++) {
		unsigned v = (unsigned)strtoul(copies->levels[i].value, NULL,
					       10);

		if (v > maxc)
			maxc = v;
	}
	/* each metric per copy, with its sum, mean, max and the aggregate;
	 * per device the aggregate alone */
	total = maxc > 1 ? base * (maxc + 4) : base;
	total += devices * base;
	if (total <= KB_MATRIX_MAX_METRICS)
		return 0;
	if (copies)
		return kb_err_at(c->y.err, m->file, copies->loc.line,
				 copies->loc.col,
				 "a run of this workload may yield %zu metrics (%zu per copy%s, %u copies with their sum, mean, max and aggregate), more than %d: use fewer copies%s",
				 total, base,
				 devices ? " and per device" : "", maxc,
				 KB_MATRIX_MAX_METRICS,
				 devices ? " or devices" : " or named metrics");
	return fail(c, n,
		    "a run of this workload may yield %zu metrics (%zu per device), more than %d: use fewer devices",
		    total, base, KB_MATRIX_MAX_METRICS);
}

/*
 * The workload keys beyond fio, fio_job, command and metric, once those
 * are read: command.metrics and command.parser (@cmd, the command
 * mapping, or NULL), targets, targets_count and per_device (in @n, the
 * workload); then the {{NAME}} parameters against the workload.NAME
 * factors, and the metrics a run may yield against the sample's cap.
 */
static int workload_more(struct ctx *c, const struct kb_ynode *n,
			 const struct kb_ynode *cmd)
{
	static const char *const parsers[] = { "dd", "unixbench" };
	static const char *const bools[] = { "false", "true" };
	struct kb_workload *w = &c->m->workload;
	const struct kb_ynode *v, *count = NULL, *per = NULL;
	const struct kb_option *o;
	size_t which;
	int ret;

	if (cmd && (v = kb_ynode_get(cmd, "metrics")) &&
	    (ret = named_metrics(c, v)))
		return ret;
	if (cmd && (v = kb_ynode_get(cmd, "parser"))) {
		if ((ret = kb_ycheck_choice(&c->y, v, "workload.command.parser",
					    parsers, N(parsers), &which)))
			return ret;
		w->parser = which ? KB_PARSER_UNIXBENCH : KB_PARSER_DD;
	}
	if ((v = kb_ynode_get(n, "targets")) && (ret = targets(c, v)))
		return ret;
	if ((count = kb_ynode_get(n, "targets_count"))) {
		uint64_t k;

		if ((ret = kb_ycheck_uint(&c->y, count, "workload.targets_count",
					  1, KB_MATRIX_MAX_TARGETS, &k)))
			return ret;
		if (!w->ntargets)
			return fail(c, count,
				    "workload.targets_count needs workload.targets: the devices to count, such as /dev/vd[b-c]");
		w->targets_count = (unsigned)k;
	}
	if ((per = kb_ynode_get(n, "per_device"))) {
		if ((ret = kb_ycheck_choice(&c->y, per, "workload.per_device",
					    bools, N(bools), &which)))
			return ret;
		w->per_device = (int)which;
	}
	if (w->per_device) {
		if (w->kind != KB_WORKLOAD_FIO)
			return fail(c, per,
				    "workload.per_device needs workload.fio: kbisect writes one job per device from its options");
		if (!w->targets_count)
			return fail(c, per,
				    "workload.per_device needs workload.targets_count: the number of devices, one fio job each");
		if ((o = names_files(w)))
			return kb_err_at(c->y.err, c->m->file, o->loc.line,
					 o->loc.col,
					 "fio option '%s' names the files, and workload.per_device gives each job a target device: drop one of them",
					 o->key);
	}
	if ((ret = params(c, n, cmd)))
		return ret;
	return metric_count(c, n);
}

/* ---- the section --------------------------------------------------------- */

static int word_valid(const char *s, size_t max)
{
	const char *p;

	if (!*s || strlen(s) >= max)
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

/*
 * The metric a fio job is about when the matrix does not say: fio's rw
 * (default read) tells the direction; mixed directions have no default.
 */
static const char *fio_default_metric(const struct kb_workload *w)
{
	static const char *const map[][2] = {
		{ "read", "read_iops" },   { "randread", "read_iops" },
		{ "write", "write_iops" }, { "randwrite", "write_iops" },
		{ "trim", "trim_iops" },   { "randtrim", "trim_iops" },
	};
	const char *rw = "read";
	size_t i, len;

	for (i = 0; i < w->nfio; i++)
		if (!strcmp(w->fio[i].key, "rw") ||
		    !strcmp(w->fio[i].key, "readwrite"))
			rw = w->fio[i].value;
	len = strcspn(rw, ":"); /* rw=randread:8 */
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i][0]) == len && !strncmp(rw, map[i][0], len))
			return map[i][1];
	return NULL;
}

/*
 * workload.files: host files copied into guest.image as /data/NAME, so
 * two may not share a name.  guest is parsed first.
 */
static int workload_files(struct ctx *c, const struct kb_ynode *n)
{
	const struct kb_ynode *v = kb_ynode_get(n, "files");
	struct kb_workload *w = &c->m->workload;
	const char **files;
	size_t i, j;
	int ret;

	if (!v)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ, "workload.files")))
		return ret;
	if (!c->m->guest.image)
		return fail(c, v,
			    "workload.files needs guest.image: the files are copied into the guest's image as /data/NAME");
	files = kb_matrix__keep(c->m, kb_calloc(v->n + 1, sizeof(*files)));
	for (i = 0; i < v->n; i++) {
		if ((ret = kb_matrix__file(c, v->items[i], "workload file",
				    &files[i])))
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(kb_path_base(files[i]),
				    kb_path_base(files[j])))
				return fail(c, v->items[i],
					    "workload file '%s' has the same name as '%s': both would be /data/%s in the image",
					    files[i], files[j],
					    kb_path_base(files[i]));
	}
	w->files = files;
	w->nfiles = v->n;
	return 0;
}

/*
 * workload.monitors: a list of the guest's monitor sources (lib/monitor.h),
 * [] for none; every one when absent.
 */
static const char *const monitor_names[KB_MONITOR_SOURCES] = {
	"vmstat", "interrupts", "schedstat", "lock_stat", "perf",
};

const char *kb_workload_monitor_name(unsigned i)
{
	return i < KB_MONITOR_SOURCES ? monitor_names[i] : NULL;
}

static int monitors(struct ctx *c, const struct kb_ynode *n)
{
	const char *const *names = monitor_names;
	const struct kb_ynode *v = kb_ynode_get(n, "monitors");
	struct kb_workload *w = &c->m->workload;
	size_t i, which;
	int ret;

	w->monitors = KB_MONITOR_DEFAULT;
	if (!v)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_SEQ, "workload.monitors")))
		return ret;
	w->monitors = 0;
	for (i = 0; i < v->n; i++) {
		if ((ret = kb_ycheck_choice(&c->y, v->items[i],
					    "workload.monitors source", names,
					    KB_MONITOR_SOURCES, &which)))
			return ret;
		if (w->monitors & 1u << which)
			return fail(c, v->items[i],
				    "workload.monitors names '%s' twice",
				    names[which]);
		w->monitors |= 1u << which;
	}
	return 0;
}

/*
 * workload.profile: { frequency: HZ }, a perf record of the guest's
 * stacks around each run (lib/profile.h); {} samples at
 * KB_PROFILE_DEFAULT_HZ; absent, none.
 */
static int profile(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "frequency" };
	const struct kb_ynode *v = kb_ynode_get(n, "profile"), *f;
	struct kb_workload *w = &c->m->workload;
	uint64_t hz = KB_PROFILE_DEFAULT_HZ;
	int ret;

	w->profile_hz = 0;
	if (!v)
		return 0;
	if ((ret = kb_ycheck_type(&c->y, v, KB_Y_MAP, "workload.profile")) ||
	    (ret = kb_ycheck_keys(&c->y, v, "'workload.profile'", keys, 1)))
		return ret;
	if ((f = kb_ynode_get(v, "frequency")) &&
	    (ret = kb_ycheck_uint(&c->y, f, "workload.profile.frequency", 1,
				  KB_PROFILE_MAX_HZ, &hz)))
		return ret;
	w->profile_hz = (unsigned)hz;
	return 0;
}

int kb_matrix__workload(struct ctx *c, const struct kb_ynode *n)
{
	static const char *const keys[] = { "fio", "fio_job", "command",
					    "metric", "timeout_s", "better",
					    "targets", "targets_count",
					    "per_device", "files",
					    "monitors", "profile" };
	static const char *const betters[] = { "higher", "lower" };
	static const char *const cmd_keys[] = { "run", "regex", "metrics",
						"parser" };
	struct kb_workload *w = &c->m->workload;
	const struct kb_ynode *v, *kind = NULL;
	struct kb_option *opts;
	size_t i, nkinds = 0;
	int ret;

	if (!n)
		return fail(c, kb_ydoc_root(c->m->doc),
			    "missing required key 'workload': say what to measure (fio, fio_job or command)");
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "'workload'")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "'workload'", keys, 12)) ||
	    (ret = workload_files(c, n)) || (ret = monitors(c, n)) ||
	    (ret = profile(c, n)))
		return ret;
	if ((v = kb_ynode_get(n, "better"))) {
		size_t which;

		if ((ret = kb_ycheck_choice(&c->y, v, "workload.better",
					    betters, 2, &which)))
			return ret;
		w->better = which ? KB_BETTER_LOWER : KB_BETTER_HIGHER;
	}
	if ((v = kb_ynode_get(n, "timeout_s")) &&
	    (ret = kb_matrix__uint(c, v, "workload.timeout_s", 1, 7 * 86400,
			    &w->timeout_s)))
		return ret;
	w->loc.line = n->line;
	w->loc.col = n->col;
	for (i = 0; i < 3; i++) {
		if ((v = kb_ynode_get(n, keys[i]))) {
			if (nkinds++)
				return fail(c, v,
					    "workload has both '%s' and '%s': give only one of fio, fio_job and command",
					    kind == kb_ynode_get(n, "fio")
						    ? "fio"
						    : "fio_job",
					    keys[i]);
			kind = v;
			w->kind = (enum kb_workload_kind)i;
		}
	}
	if (!kind)
		return fail(c, n,
			    "workload needs one of 'fio', 'fio_job' or 'command'");
	switch (w->kind) {
	case KB_WORKLOAD_FIO:
		if ((ret = kb_ycheck_type(&c->y, kind, KB_Y_MAP,
					  "workload.fio")))
			return ret;
		if (kind->n == 0)
			return fail(c, kind,
				    "workload.fio is empty: give fio options such as { rw: randread, bs: 4k }");
		opts = kb_matrix__keep(c->m, kb_calloc(kind->n, sizeof(*opts)));
		for (i = 0; i < kind->n; i++) {
			if ((ret = kb_ycheck_string(&c->y, kind->items[i],
						    "a fio option value",
						    &opts[i].value)))
				return ret;
			opts[i].key = kind->keys[i]->str;
			opts[i].loc.line = kind->keys[i]->line;
			opts[i].loc.col = kind->keys[i]->col;
			if (!word_valid(opts[i].key, 64))
				return fail(c, kind->keys[i],
					    "invalid fio option name '%s'",
					    opts[i].key);
		}
		w->fio = opts;
		w->nfio = kind->n;
		break;
	case KB_WORKLOAD_FIO_JOB:
		if ((ret =
			 kb_matrix__file(c, kind, "fio job file", &w->fio_job)))
			return ret;
		break;
	case KB_WORKLOAD_COMMAND:
		if ((ret = kb_ycheck_type(&c->y, kind, KB_Y_MAP,
					  "workload.command")))
			return ret;
		for (i = 0; i < kind->n; i++)
			if (!strcmp(kind->keys[i]->str, "metric"))
				return fail(c, kind->keys[i],
					    "unknown key 'metric' in 'workload.command': the metric verdicts are about is workload.metric, beside command (workload.command.metrics names more numbers of the output)");
		if ((ret = kb_ycheck_keys(&c->y, kind, "'workload.command'",
					  cmd_keys, 4)))
			return ret;
		if (!(v = kb_ynode_get(kind, "run")))
			return fail(c, kind,
				    "workload.command needs 'run': the command line to time");
		if ((ret = kb_ycheck_script(&c->y, v, "workload.command.run",
					    &w->command)))
			return ret;
		if ((v = kb_ynode_get(kind, "regex")) &&
		    ((ret = kb_ycheck_string(&c->y, v, "workload.command.regex",
					     &w->regex)) ||
		     (ret = regex_one_group(
			      c, v, "workload.command.regex"))))
			return ret;
		break;
	}
	if ((v = kb_ynode_get(n, "metric"))) {
		if ((ret = kb_ycheck_string(&c->y, v, "workload.metric",
					    &w->metric)))
			return ret;
		if (!kb_metric_name_valid(w->metric))
			return fail(c, v,
				    "invalid metric name '%s': expected lower case letters, digits and _, such as read_iops",
				    w->metric);
		return workload_more(
			c, n, w->kind == KB_WORKLOAD_COMMAND ? kind : NULL);
	}
	if (w->kind == KB_WORKLOAD_COMMAND && !w->regex)
		w->metric = "real_s";
	else if (w->kind == KB_WORKLOAD_FIO &&
		 !(w->metric = fio_default_metric(w)))
		return fail(c, n,
			    "workload.fio mixes reads and writes: give 'metric', such as read_iops or write_iops");
	if (!w->metric)
		return fail(c, n,
			    "workload needs 'metric': the metric verdicts are about, such as read_iops or real_s");
	return workload_more(c, n,
			     w->kind == KB_WORKLOAD_COMMAND ? kind : NULL);
}
