/*
 * The matrix's run-time factors and the workload keys that go with them
 * (docs/matrix.md): workload.copies and workload.NAME parameters filled
 * into the command or the fio options as {{NAME}}, cmdline.NAME (text on
 * the kernel command line), sysctl.NAME (written to /proc/sys by the
 * guest's /init); workload.command.metrics and .parser, workload.targets,
 * .targets_count and .per_device; and a variant's workload made from the
 * matrix's (kb_workload_instance()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "matrix_int.h"
#include "mem.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

/* Most workload.command.metrics, cmdline level text, sysctl value. */
#define MAX_NAMED_METRICS 32
#define MAX_CMDLINE_LEVEL 256
#define MAX_SYSCTL_NAME 128
#define MAX_SYSCTL_VALUE 256
#define MAX_TARGET_GLOBS 16
#define MAX_TARGET_GLOB 64
/* What the output parsers yield at most (lib/cmdwork.h). */
#define DD_METRICS 3
#define UNIXBENCH_METRICS 32

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int lower_word(const char *s, size_t max)
{
	const char *p;

	if (!(*s >= 'a' && *s <= 'z') || strlen(s) >= max)
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

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

/* ---- the factors --------------------------------------------------------- */

/* A kernel parameter's name: letters, digits, _, - and . */
static int cmdline_name_valid(const char *s)
{
	const char *p;

	if (!*s || strlen(s) > 64 || *s == '-' || *s == '.')
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.'))
			return 0;
	return 1;
}

/* A sysctl: words of [a-z0-9_] joined by dots, as /proc/sys/A/B names. */
static int sysctl_name_valid(const char *s)
{
	const char *p;

	if (!*s || strlen(s) > MAX_SYSCTL_NAME || *s == '.')
		return 0;
	for (p = s; *p; p++) {
		if (*p == '.' && (p[1] == '.' || p[1] == '\0'))
			return 0;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.'))
			return 0;
	}
	return 1;
}

int kb_runtime_factor_name_valid(const char *name)
{
	if (!strncmp(name, "workload.", 9))
		return !strcmp(name + 9, "copies") ||
		       lower_word(name + 9, KB_METRIC_NAME_MAX);
	if (!strncmp(name, "cmdline.", 8))
		return cmdline_name_valid(name + 8);
	if (!strncmp(name, "sysctl.", 7))
		return sysctl_name_valid(name + 7);
	return 0;
}

/* @s lower-cased, for "did you mean"; caller frees. */
static char *lowered(const char *s)
{
	char *t = kb_strdup(s), *p;

	for (p = t; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
		else if (*p == '-')
			*p = '_';
	return t;
}

static int bad_name(struct ctx *c, const struct kb_ynode *key,
		    const char *what, const char *expect, int ok_lowered)
{
	char *low = lowered(key->str);
	int ret;

	if (ok_lowered && strcmp(low, key->str))
		ret = fail(c, key, "invalid %s name '%s': %s (did you mean '%s'?)",
			   what, key->str, expect, low);
	else
		ret = fail(c, key, "invalid %s name '%s': %s", what, key->str,
			   expect);
	free(low);
	return ret;
}

int kb_matrix__runtime_group(struct ctx *c, const char *group,
			     const struct kb_ynode *grp)
{
	enum kb_factor_kind kind;
	size_t i;
	int ret;

	kind = !strcmp(group, "workload")  ? KB_FACTOR_WORKLOAD
	       : !strcmp(group, "cmdline") ? KB_FACTOR_CMDLINE
					   : KB_FACTOR_SYSCTL;
	for (i = 0; i < grp->n; i++) {
		const struct kb_ynode *key = grp->keys[i];
		const char *s = key->str;
		char *name;

		if (kind == KB_FACTOR_WORKLOAD && strcmp(s, "copies") &&
		    !lower_word(s, KB_METRIC_NAME_MAX)) {
			char *low = lowered(s);
			int fixable = lower_word(low, KB_METRIC_NAME_MAX);

			free(low);
			return bad_name(c, key, "workload parameter",
					"expected lower case letters, digits and _, starting with a letter, at most 31",
					fixable);
		}
		if (kind == KB_FACTOR_CMDLINE && !cmdline_name_valid(s))
			return bad_name(c, key, "kernel parameter",
					"expected letters, digits, _, - and ., at most 64",
					0);
		if (kind == KB_FACTOR_SYSCTL && !sysctl_name_valid(s)) {
			char *low = lowered(s);
			int fixable = sysctl_name_valid(low);

			free(low);
			return bad_name(c, key, "sysctl",
					"expected lower case words of letters, digits and _ joined by dots, such as kernel.sched_min_granularity_ns",
					fixable);
		}
		name = kb_matrix__keep(c->m, kb_asprintf("%s.%s", group, s));
		if ((ret = kb_matrix__add_factor(c, kind, name, key,
						 grp->items[i])))
			return ret;
	}
	return 0;
}

/* A cmdline level's characters: none that the command line, the shell
 * of /init or a reader of the domain XML could take for syntax. */
static int cmdline_text_valid(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(" _.,:=+/@%-", *s)))
			return 0;
	return 1;
}

int kb_matrix__runtime_level(struct ctx *c, const struct kb_factor *f,
			     const struct kb_ynode *n, struct kb_level *out)
{
	const char *s;
	int ret;

	if (!strcmp(f->name, "workload.copies")) {
		uint64_t v;

		if ((ret = kb_ycheck_uint(&c->y, n, "workload.copies", 1,
					  KB_MATRIX_MAX_COPIES, &v)))
			return ret;
		out->value = kb_matrix__keep(c->m,
					     kb_asprintf("%llu",
							 (unsigned long long)v));
		return 0;
	}
	if ((ret = kb_ycheck_string(&c->y, n, "a level", &s)))
		return ret;
	if (f->kind == KB_FACTOR_CMDLINE) {
		if (strlen(s) > MAX_CMDLINE_LEVEL)
			return fail(c, n,
				    "a level of %s is longer than %d characters",
				    f->name, MAX_CMDLINE_LEVEL);
		if (!cmdline_text_valid(s) || s[0] == ' ' ||
		    s[strlen(s) - 1] == ' ')
			return fail(c, n,
				    "invalid level '%s' for %s: kernel command-line text is letters, digits, spaces between parameters and _ . , : = + / @ %% -, such as on, off, 2 or nosmt=force",
				    s, f->name);
	}
	if (f->kind == KB_FACTOR_SYSCTL && strlen(s) > MAX_SYSCTL_VALUE)
		return fail(c, n, "a level of %s is longer than %d characters",
			    f->name, MAX_SYSCTL_VALUE);
	out->value = s;
	return 0;
}

char *kb_cmdline_level_text(const char *factor, const char *level)
{
	const char *name = strncmp(factor, "cmdline.", 8) ? factor
							  : factor + 8;

	if (!strcmp(level, "off"))
		return NULL;
	if (!strcmp(level, "on"))
		return kb_strdup(name);
	if (strpbrk(level, "= "))
		return kb_strdup(level);
	return kb_asprintf("%s=%s", name, level);
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

		if (!lower_word(key->str, KB_METRIC_NAME_MAX))
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
		    (ret = kb_matrix__regex_one_group(c, n->items[i], what)))
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

int kb_matrix__workload_more(struct ctx *c, const struct kb_ynode *n,
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
