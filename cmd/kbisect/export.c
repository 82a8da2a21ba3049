#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "fsutil.h"
#include "json.h"
#include "store.h"
#include "banned.h"

/*
 * `kbisect export ID`: every sample of an experiment, one row each, as
 * CSV (RFC 4180) or JSON, for a spreadsheet, pandas or R.
 */

/* Output is written to stdout in pieces of about this size. */
#define EXPORT_FLUSH (1 << 20)

enum format { FORMAT_CSV, FORMAT_JSON };

struct export {
	enum format format;
	int64_t exp;
	int to_stdout;            /* else everything is kept for -o */
	struct kb_buf out;
	struct kb_buf row;        /* one JSON object */
	char **factors;           /* the header's, borrowed from the store
				   * for the time of the export */
	size_t nfactors;
	unsigned long long rows;
	int profile;              /* --profile: stacks, not samples */
	struct kb_err *err;
};

/* The columns before the factors, and after them. */
static const char *const head_cols[] = { "experiment_id", "variant_idx",
					 "variant_label" };
static const char *const tail_cols[] = { "boot_id", "boot_no", "boot_status",
					 "host", "run_no", "metric", "value" };
#define NHEAD (sizeof(head_cols) / sizeof(head_cols[0]))
/* the last two of tail_cols, for --profile */
static const char *const profile_cols[] = { "stack", "samples" };
#define NTAIL (sizeof(tail_cols) / sizeof(tail_cols[0]))

/* Whether @s is a plain decimal number: -1, +2.5, .5, 1e-3. */
static int plain_number(const char *s)
{
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/*
 * Whether a spreadsheet would read @s as a formula: a cell that starts
 * with =, +, -, @, a tab or a carriage return (OWASP, "CSV Injection"),
 * unless it is a plain number such as -1.  Levels are free text
 * (workload parameters, sysctls, string Kconfig levels), and the guide
 * offers the CSV to spreadsheets.
 */
static int formula(const char *s)
{
	return strchr("=+-@\t\r", *s) && *s && !plain_number(s);
}

/* A CSV field: quoted when it holds a comma, a quote, CR or LF, with
 * each quote doubled (RFC 4180 2.6, 2.7); NULL is an empty field.  A
 * text a spreadsheet would take for a formula gets a leading ' and is
 * quoted, which the spreadsheet shows as text and pandas reads as the
 * text with the ' in front (docs/guide.md, "Export"). */
static void csv_field(struct kb_buf *b, const char *s, int first)
{
	const char *p;
	int neutral;

	if (!first)
		kb_buf_addch(b, ',');
	if (!s)
		return;
	neutral = formula(s);
	if (!neutral && !strpbrk(s, ",\"\r\n")) {
		kb_buf_adds(b, s);
		return;
	}
	kb_buf_addch(b, '"');
	if (neutral)
		kb_buf_addch(b, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			kb_buf_addch(b, '"');
		kb_buf_addch(b, *p);
	}
	kb_buf_addch(b, '"');
}

/* The shortest of %.15g, %.16g and %.17g that reads back as @v. */
static void number(char *s, size_t size, double v)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(s, size, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			return;
	}
	snprintf(s, size, "%.17g", v);
}

static int flush(struct export *e)
{
	if (!e->to_stdout || e->out.len < EXPORT_FLUSH)
		return 0;
	if (fwrite(e->out.buf, 1, e->out.len, stdout) != e->out.len)
		return kb_err_set(e->err, KB_EFAIL,
				  "cannot write the export to stdout");
	kb_buf_reset(&e->out);
	return 0;
}

static int on_header(void *arg, const char *const *factors, size_t n)
{
	struct export *e = arg;
	size_t i;

	e->factors = (char **)factors;
	e->nfactors = n;
	if (e->format == FORMAT_JSON) {
		kb_buf_adds(&e->out, "[");
		return 0;
	}
	for (i = 0; i < NHEAD; i++)
		csv_field(&e->out, head_cols[i], i == 0);
	for (i = 0; i < n; i++)
		csv_field(&e->out, factors[i], 0);
	for (i = 0; i < NTAIL; i++)
		csv_field(&e->out, e->profile && i >= NTAIL - 2
					   ? profile_cols[i - (NTAIL - 2)]
					   : tail_cols[i],
			  0);
	kb_buf_adds(&e->out, "\r\n");
	return 0;
}

static void row_csv(struct export *e, const struct kb_store_sample_row *r)
{
	char num[64];
	size_t i;

	kb_buf_addf(&e->out, "%lld,%u", (long long)e->exp, r->variant_idx);
	csv_field(&e->out, r->label, 0);
	for (i = 0; i < e->nfactors; i++)
		csv_field(&e->out, r->levels[i], 0);
	kb_buf_addf(&e->out, ",%lld,%u", (long long)r->boot_id, r->boot_no);
	csv_field(&e->out, r->boot_status, 0);
	csv_field(&e->out, r->host, 0);
	kb_buf_addf(&e->out, ",%u", r->run_no);
	csv_field(&e->out, r->metric, 0);
	if (e->profile)
		snprintf(num, sizeof(num), "%.0f", r->value);
	else
		number(num, sizeof(num), r->value);
	kb_buf_addf(&e->out, ",%s\r\n", num);
}

static void row_json(struct export *e, const struct kb_store_sample_row *r)
{
	struct kb_json *j;
	size_t i;

	kb_buf_reset(&e->row);
	j = kb_json_new(&e->row, 0);
	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment_id", e->exp);
	kb_json_kv_int(j, "variant_idx", r->variant_idx);
	kb_json_kv_string(j, "variant_label", r->label);
	for (i = 0; i < e->nfactors; i++)
		kb_json_kv_string(j, e->factors[i], r->levels[i]);
	kb_json_kv_int(j, "boot_id", r->boot_id);
	kb_json_kv_int(j, "boot_no", r->boot_no);
	kb_json_kv_string(j, "boot_status", r->boot_status);
	kb_json_kv_string(j, "host", r->host);
	kb_json_kv_int(j, "run_no", r->run_no);
	if (e->profile) {
		kb_json_kv_string(j, "stack", r->metric);
		kb_json_kv_int(j, "samples", (long long)r->value);
	} else {
		kb_json_kv_string(j, "metric", r->metric);
		kb_json_kv_number(j, "value", r->value);
	}
	kb_json_object_end(j);
	kb_json_free(j);
	/* one object a line, inside one array */
	kb_buf_adds(&e->out, e->rows ? ",\n" : "\n");
	kb_buf_add(&e->out, e->row.buf, e->row.len);
}

static int on_row(void *arg, const struct kb_store_sample_row *r)
{
	struct export *e = arg;

	if (e->format == FORMAT_JSON)
		row_json(e, r);
	else
		row_csv(e, r);
	e->rows++;
	return flush(e);
}

struct export_args {
	struct kb_args common;
	const char *format;
	const char *output;
	int profile;
};

static const struct kb_opt export_opts[] = {
	KB_OPT_STRING(struct export_args, format, 0, "format", "csv|json",
		      "csv (the default: RFC 4180, a header row, CRLF line ends) or json (an array of objects, one a sample)"),
	KB_OPT_STRING(struct export_args, output, 'o', "output", "FILE",
		      "write FILE (replaced whole, or not at all) instead of stdout; a pipe, a FIFO or a terminal (/dev/stdout) is written into, never replaced"),
	KB_OPT_BOOL(struct export_args, profile, 0, "profile",
		    "the profiles' stacks instead of the samples: one row per folded stack of each run, its samples as the last column (workload.profile)"),
	KB_OPT_DB,
	KB_OPT_END,
};

static int cmd_export(const struct kb_args *args);

const struct cmd cmd_export_entry = {
	.name = "export",
	.rank = 75,
	.args = "EXPERIMENT",
	.opts = export_opts,
	.size = sizeof(struct export_args),
	.fn = cmd_export,
	.summary = "write every sample of an experiment as CSV or JSON",
	.help = "One row per sample: the experiment, the variant's index and\n"
		"label, one column per factor with the variant's level (Kconfig\n"
		"options, kernel.rev, guest.* ...; empty where a variant does not\n"
		"set it), the boot's row id, number, status and host, the run\n"
		"number, the metric and its value (the shortest decimal that\n"
		"reads back as the stored double).  Rows come by variant, boot,\n"
		"run and metric; samples of failed boots are included with their\n"
		"status.  JSON is an array of objects with the same keys, one\n"
		"object a line; a missing level or host is null.\n"
		"With --profile the rows are the profiles' instead (workload.profile):\n"
		"one per folded stack of each run, its last columns stack (frames\n"
		"joined by ';', outermost first, as flamegraph.pl reads them) and\n"
		"samples, by variant, boot, run and stack.\n",
	.epilog = "Examples:\n"
		  "  kbisect export 7 > exp7.csv\n"
		  "  kbisect export 7 --format json -o exp7.json\n"
		  "  kbisect export 7 --profile > exp7-stacks.csv\n"
		  "  python3 -c 'import pandas; print(pandas.read_csv(\"exp7.csv\"))'\n",
};

static int cmd_export(const struct kb_args *args)
{
	const struct export_args *o = CMD_ARGS(struct export_args, args);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct export e;
	struct kb_store_export_cb cb = { .header = on_header, .row = on_row };
	int ret;

	memset(&e, 0, sizeof(e));
	kb_buf_init(&e.out);
	kb_buf_init(&e.row);
	e.err = &err;
	e.to_stdout = !o->output;
	e.profile = o->profile;
	cb.arg = &e;
	if (cmd_parse_id(args->pos[0], &e.exp) < 0)
		return cmd_usage_error("export",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if (!o->format || !strcmp(o->format, "csv"))
		e.format = FORMAT_CSV;
	else if (!strcmp(o->format, "json"))
		e.format = FORMAT_JSON;
	else
		return cmd_usage_error("export",
				       "unknown format '%s': give csv or json",
				       o->format);
	if (o->output && !*o->output)
		return cmd_usage_error("export", "--output needs a file name");

	if ((ret = cmd_open_store_as(args->db, KB_STORE_READ_ONLY, &s, &err)) ||
	    (ret = e.profile ? kb_store_export_profile(s, e.exp, &cb, &err)
			     : kb_store_export(s, e.exp, &cb, &err)))
		goto fail;
	if (e.format == FORMAT_JSON)
		kb_buf_adds(&e.out, e.rows ? "\n]\n" : "]\n");
	if (o->output) {
		if ((ret = kb_write_output(o->output, e.out.buf, e.out.len,
					   0644, &err)))
			goto fail;
	} else if (fwrite(e.out.buf, 1, e.out.len, stdout) != e.out.len ||
		   fflush(stdout)) {
		ret = kb_err_set(&err, KB_EFAIL,
				 "cannot write the export to stdout");
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_buf_release(&e.out);
	kb_buf_release(&e.row);
	kb_store_close(s);
	return ret;
}
