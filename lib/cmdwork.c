/*
 * Command workloads: the report /init prints after timing the user's
 * command once (format in cmdwork.h), turned into a sample.
 */
#include "cmdwork.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "variant.h"
#include "banned.h"

#define MAGIC "kbisect-command 1"

struct report {
	int have_exit, have_real, have_user, have_sys;
	long exit_status;
	double real_s, user_s, sys_s;
	const char *output; /* into the payload, not NUL-terminated */
	size_t output_len;
};

/* @n bytes at @s as a non-negative finite decimal number. */
static int parse_double(const char *s, size_t n, double *out)
{
	char tmp[64], *end;
	double v;

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (!((tmp[0] >= '0' && tmp[0] <= '9') || tmp[0] == '.'))
		return -1;
	v = strtod(tmp, &end);
	if (*end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *s, size_t n, size_t *out)
{
	size_t i, v = 0;

	if (n == 0 || n > 12)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_report(const char *data, size_t len, const char *file,
			struct report *r, struct kb_err *err)
{
	const char *p = data, *end = data + len, *nl, *sp;
	unsigned line = 1;
	double d;

	memset(r, 0, sizeof(*r));
	nl = memchr(p, '\n', len);
	if (!nl || (size_t)(nl - p) != strlen(MAGIC) ||
	    memcmp(p, MAGIC, strlen(MAGIC)) != 0)
		return kb_err_set(err, KB_EINPUT,
				  "%s: not a command report: expected '%s' on the first line",
				  file, MAGIC);
	p = nl + 1;
	for (;;) {
		size_t klen, vlen;

		line++;
		if (p >= end)
			return kb_err_set(err, KB_EINPUT,
					  "%s: command report ends before its 'output' line",
					  file);
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return kb_err_set(err, KB_EINPUT,
					  "%s: line %u: command report line without a newline",
					  file, line);
		sp = memchr(p, ' ', (size_t)(nl - p));
		if (!sp)
			return kb_err_set(err, KB_EINPUT,
					  "%s: line %u: expected 'key value'",
					  file, line);
		klen = (size_t)(sp - p);
		vlen = (size_t)(nl - sp - 1);
		if (klen == 6 && !memcmp(p, "output", 6)) {
			if (parse_size(sp + 1, vlen, &r->output_len) ||
			    r->output_len > (size_t)(end - nl - 1))
				return kb_err_set(err, KB_EINPUT,
						  "%s: line %u: bad output length",
						  file, line);
			r->output = nl + 1;
			break;
		}
		if (klen == 4 && !memcmp(p, "exit", 4)) {
			if (parse_double(sp + 1, vlen, &d) || d > 255 ||
			    d != floor(d))
				return kb_err_set(err, KB_EINPUT,
						  "%s: line %u: bad exit status",
						  file, line);
			r->exit_status = (long)d;
			r->have_exit = 1;
		} else if ((klen == 4 && !memcmp(p, "real", 4)) ||
			   (klen == 4 && !memcmp(p, "user", 4)) ||
			   (klen == 3 && !memcmp(p, "sys", 3))) {
			if (parse_double(sp + 1, vlen, &d))
				return kb_err_set(err, KB_EINPUT,
						  "%s: line %u: bad time '%.*s'",
						  file, line,
						  (int)(vlen > 32 ? 32 : vlen),
						  sp + 1);
			if (*p == 'r') {
				r->real_s = d;
				r->have_real = 1;
			} else if (*p == 'u') {
				r->user_s = d;
				r->have_user = 1;
			} else {
				r->sys_s = d;
				r->have_sys = 1;
			}
		}
		/* other keys: left for later versions of /init */
		p = nl + 1;
	}
	if (!r->have_exit || !r->have_real || !r->have_user || !r->have_sys)
		return kb_err_set(err, KB_EINPUT,
				  "%s: command report lacks one of exit, real, user, sys",
				  file);
	return 0;
}

/* The last non-empty line of the output, printable, for messages. */
static void last_line(const struct report *r, char *out, size_t size)
{
	const char *s = r->output, *e = r->output + r->output_len, *b;
	size_t i, j = 0;

	while (e > s && (e[-1] == '\n' || e[-1] == ' '))
		e--;
	b = e;
	while (b > s && b[-1] != '\n')
		b--;
	for (i = 0; b + i < e && j + 1 < size; i++)
		out[j++] = (b[i] >= 0x20 && b[i] < 0x7f) ? b[i] : '?';
	out[j] = '\0';
}

static int take_regex(const struct report *r, const char *file,
		      const char *regex, double *out, struct kb_err *err)
{
	/* workload.command.regex, or a metric of workload.command.metrics */
	regex_t re;
	regmatch_t m[2];
	char *text = kb_strndup(r->output, r->output_len);
	int rc, ret;

	rc = regcomp(&re, regex, REG_EXTENDED);
	if (rc) {
		free(text);
		return kb_err_set(err, KB_EINPUT, "%s: invalid regex '%s'",
				  file, regex);
	}
	if (re.re_nsub < 1) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: the regex '%s' has no (group)", file,
				 regex);
		goto out;
	}
	if (regexec(&re, text, 2, m, 0) != 0 || m[1].rm_so < 0) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: the regex '%s' does not match the command's output",
				 file, regex);
		goto out;
	}
	if (parse_double(text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so),
			 out)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: the regex '%s' matched '%.*s', not a number",
				 file, regex,
				 (int)(m[1].rm_eo - m[1].rm_so > 40
					       ? 40
					       : m[1].rm_eo - m[1].rm_so),
				 text + m[1].rm_so);
		goto out;
	}
	ret = 0;
out:
	regfree(&re);
	free(text);
	return ret;
}

int kb_cmdwork_parse_buffer(const char *data, size_t len, const char *file,
			    const char *regex, const char *metric,
			    struct kb_sample *out, struct kb_err *err)
{
	struct kb_sample s;
	struct report r;
	char last[128];
	double v = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	if ((ret = parse_report(data, len, file, &r, err)))
		return ret;
	if (r.exit_status != 0) {
		last_line(&r, last, sizeof(last));
		return kb_err_set(err, KB_EINPUT,
				  "%s: the command exited with status %ld: %s",
				  file, r.exit_status,
				  last[0] ? last : "(no output)");
	}
	(void)kb_sample_set(&s, "real_s", r.real_s);
	(void)kb_sample_set(&s, "user_s", r.user_s);
	(void)kb_sample_set(&s, "sys_s", r.sys_s);
	if (regex) {
		if ((ret = take_regex(&r, file, regex, &v, err)))
			return ret;
		(void)kb_sample_set(&s, metric ? metric : "value", v);
	}
	*out = s;
	return 0;
}

int kb_cmdwork_parse_workload(const char *data, size_t len, const char *file,
			      const struct kb_workload *w,
			      struct kb_sample *out, struct kb_err *err)
{
	struct kb_sample *s = kb_calloc(1, sizeof(*s));
	struct report r;
	double v = 0;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = kb_cmdwork_parse_buffer(data, len, file, w->regex,
					   w->metric, s, err)) ||
	    (ret = parse_report(data, len, file, &r, err)))
		goto out;
	for (i = 0; i < w->nmetrics; i++) {
		if ((ret = take_regex(&r, file, w->metrics[i].value, &v, err)))
			goto out;
		(void)kb_sample_set(s, w->metrics[i].key, v);
	}
	if (w->parser == KB_PARSER_DD)
		ret = kb_cmdwork_parse_dd(r.output, r.output_len, file, s, err);
	else if (w->parser == KB_PARSER_UNIXBENCH)
		ret = kb_cmdwork_parse_unixbench(r.output, r.output_len, file,
						 s, err);
	if (ret == 0)
		*out = *s;
out:
	free(s);
	return ret;
}
