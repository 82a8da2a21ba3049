/*
 * fio: job text from the matrix, a check with the host's fio, and the
 * metrics read back from fio's JSON output (see fio.h).
 */
#include "fio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "buf.h"
#include "err.h"
#include "program.h"
#include "matrix.h"
#include "mem.h"
#include "variant.h"
#include "ycheck.h"
#include "banned.h"

extern char **environ;

/* Largest fio job file read, and most stderr kept from fio --parse-only. */
#define MAX_JOB_FILE (1u << 20)
#define MAX_FIO_STDERR (64u << 10)

static const char *const dirs[] = { "read", "write", "trim" };
#define NDIRS (sizeof(dirs) / sizeof(dirs[0]))

/* The percentiles reported, fio's key value and our metric suffix. */
static const struct {
	double pct;
	const char *suffix;
} pcts[] = {
	{ 50.0, "lat_p50_us" },
	{ 99.0, "lat_p99_us" },
	{ 99.9, "lat_p999_us" },
};
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

/* What one direction adds up to over the jobs. */
struct dir_sum {
	double iops;
	double bw_kib;
	double ios;         /* I/Os with a completion latency */
	double clat_sum_ns; /* sum of mean * ios, for the weighted mean */
	double pct_ns[NPCTS];
	int have_pct[NPCTS];
};

static int number(json_object *o, double *out)
{
	if (!o || !(json_object_is_type(o, json_type_int) ||
		    json_object_is_type(o, json_type_double)))
		return -1;
	/* json-c reads 4e725 as infinity: refused, and *out untouched */
	if (!isfinite(json_object_get_double(o)))
		return -1;
	*out = json_object_get_double(o);
	return 0;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* A required number @key of @o, or an input error naming it. */
static int need(json_object *o, const char *key, const char *file,
		size_t job, const char *dir, double *out, struct kb_err *err)
{
	if (number(get(o, key), out) < 0 || *out < 0)
		return kb_err_set(err, KB_EINPUT,
				  "%s: job %zu: '%s.%s' is missing or not a non-negative number",
				  file, job, dir, key);
	return 0;
}

/* Fold the percentiles of one job's clat_ns into @s (max over jobs). */
static void add_percentiles(json_object *clat, struct dir_sum *s)
{
	json_object *pct = get(clat, "percentile");
	size_t i;

	if (!pct || !json_object_is_type(pct, json_type_object))
		return;
	json_object_object_foreach(pct, key, val)
	{
		char *end;
		double p = strtod(key, &end), v;

		if (end == key || *end || number(val, &v) < 0 || v < 0)
			continue;
		for (i = 0; i < NPCTS; i++) {
			if (fabs(p - pcts[i].pct) > 1e-6)
				continue;
			if (!s->have_pct[i] || v > s->pct_ns[i])
				s->pct_ns[i] = v;
			s->have_pct[i] = 1;
		}
	}
}

static int add_dir(json_object *job, size_t idx, size_t d, const char *file,
		   struct dir_sum *s, struct kb_err *err)
{
	json_object *o = get(job, dirs[d]), *clat;
	double iops, bw, ios, mean;
	int ret;

	if (!o) {
		if (d == 2) /* old fio versions have no trim */
			return 0;
		return kb_err_set(err, KB_EINPUT,
				  "%s: job %zu has no '%s' section", file, idx,
				  dirs[d]);
	}
	if ((ret = need(o, "iops", file, idx, dirs[d], &iops, err)) ||
	    (ret = need(o, "bw", file, idx, dirs[d], &bw, err)))
		return ret;
	s->iops += iops;
	s->bw_kib += bw;
	if (number(get(o, "total_ios"), &ios) < 0 || ios < 0)
		ios = 0;
	clat = get(o, "clat_ns");
	if (ios == 0 && clat)
		(void)number(get(clat, "N"), &ios);
	if (ios <= 0 || !clat)
		return 0;
	if ((ret = need(clat, "mean", file, idx, "clat_ns", &mean, err)))
		return ret;
	s->ios += ios;
	s->clat_sum_ns += mean * ios;
	add_percentiles(clat, s);
	return 0;
}

/* Set metric DIR_WHAT (DIR_WHAT.SUFFIX with a @suffix); finite numbers
 * can still add up past a double. */
static int set(struct kb_sample *out, const char *dir, const char *what,
	       const char *suffix, double v, const char *file,
	       struct kb_err *err)
{
	char name[KB_METRIC_NAME_MAX];

	snprintf(name, sizeof(name), "%s_%s%s%s", dir, what,
		 suffix ? "." : "", suffix ? suffix : "");
	if (!isfinite(v))
		return kb_err_set(err, KB_EINPUT,
				  "%s: '%s' is out of range: the jobs' numbers add up past what a double holds",
				  file, name);
	if (kb_sample_set(out, name, v))
		return kb_err_set(err, KB_EINPUT,
				  "%s: more metrics than a sample holds (%d)",
				  file, KB_SAMPLE_MAX_METRICS);
	return 0;
}

/* The metrics of @sums (one per direction), named with @suffix. */
static int emit(struct kb_sample *out, struct dir_sum *sums,
		const char *suffix, const char *file, struct kb_err *err)
{
	size_t d, k;
	int ret;

	for (d = 0; d < NDIRS; d++) {
		struct dir_sum *s = &sums[d];

		if (d == 2 && s->ios == 0 && s->iops == 0 && s->bw_kib == 0)
			continue;
		if ((ret = set(out, dirs[d], "iops", suffix, s->iops, file,
			       err)) ||
		    (ret = set(out, dirs[d], "bw_kib", suffix, s->bw_kib, file,
			       err)))
			return ret;
		if (s->ios <= 0)
			continue;
		if ((ret = set(out, dirs[d], "lat_mean_us", suffix,
			       s->clat_sum_ns / s->ios / 1000, file, err)))
			return ret;
		for (k = 0; k < NPCTS; k++)
			if (s->have_pct[k] &&
			    (ret = set(out, dirs[d], pcts[k].suffix, suffix,
				       s->pct_ns[k] / 1000, file, err)))
				return ret;
	}
	return 0;
}

/* The jobs of one device, for per-device metrics. */
struct device {
	char name[KB_FIO_DEVICE_NAME_MAX + 1];
	struct dir_sum sums[NDIRS];
};

/*
 * The device job @job did its I/O on, as a metric qualifier: the last
 * part of its "filename" option (fio shows it with the environment
 * expanded), else its job name; characters other than [a-z0-9_] as _.
 */
static void device_of(json_object *job, char *out)
{
	json_object *o = get(get(job, "job options"), "filename");
	const char *s = NULL, *slash;
	size_t i, j = 0;

	if (o && json_object_is_type(o, json_type_string))
		s = json_object_get_string(o);
	if (!s || !*s) {
		o = get(job, "jobname");
		s = o && json_object_is_type(o, json_type_string)
			    ? json_object_get_string(o)
			    : "job";
	}
	if ((slash = strrchr(s, '/')) && slash[1])
		s = slash + 1;
	for (i = 0; s[i] && j < KB_FIO_DEVICE_NAME_MAX; i++) {
		char ch = s[i];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		out[j++] = ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
				   ? ch
				   : '_';
	}
	if (!j)
		out[j++] = '_';
	out[j] = '\0';
}

static int metrics(json_object *root, const char *file, int per_device,
		   struct kb_sample *out, struct kb_err *err)
{
	struct dir_sum sums[NDIRS];
	struct device *devs = NULL;
	json_object *jobs = get(root, "jobs");
	size_t i, d, n, k, ndevs = 0;
	double e;
	int ret;

	if (!jobs || !json_object_is_type(jobs, json_type_array))
		return kb_err_set(err, KB_EINPUT,
				  "%s: not fio JSON output: no 'jobs' list",
				  file);
	n = json_object_array_length(jobs);
	if (n == 0)
		return kb_err_set(err, KB_EINPUT,
				  "%s: fio output lists no jobs", file);
	memset(sums, 0, sizeof(sums));
	if (per_device)
		devs = kb_calloc(n, sizeof(*devs));
	for (i = 0; i < n; i++) {
		json_object *job = json_object_array_get_idx(jobs, i);
		struct device *dev = NULL;

		if (!job || !json_object_is_type(job, json_type_object)) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: job %zu is not an object", file,
					 i);
			goto out;
		}
		if (number(get(job, "error"), &e) == 0 && e != 0) {
			json_object *o = get(job, "jobname");
			const char *name = "?";

			if (o && json_object_is_type(o, json_type_string))
				name = json_object_get_string(o);
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: fio job '%s' failed with error %.0f",
					 file, name, e);
			goto out;
		}
		if (devs) {
			char name[KB_FIO_DEVICE_NAME_MAX + 1];

			device_of(job, name);
			for (k = 0; k < ndevs && strcmp(devs[k].name, name);
			     k++)
				;
			if (k == ndevs)
				memcpy(devs[ndevs++].name, name, sizeof(name));
			dev = &devs[k];
		}
		for (d = 0; d < NDIRS; d++)
			if ((ret = add_dir(job, i, d, file, &sums[d], err)) ||
			    (dev && (ret = add_dir(job, i, d, file,
						   &dev->sums[d], err))))
				goto out;
	}
	if ((ret = emit(out, sums, NULL, file, err)))
		goto out;
	for (k = 0; k < ndevs; k++)
		if ((ret = emit(out, devs[k].sums, devs[k].name, file, err)))
			goto out;
	ret = 0;
out:
	free(devs);
	return ret;
}

int kb_fio_parse_buffer(const char *data, size_t len, const char *file,
			struct kb_sample *out, struct kb_err *err)
{
	return kb_fio_parse_buffer_devices(data, len, file, 0, out, err);
}

int kb_fio_parse_buffer_devices(const char *data, size_t len,
				const char *file, int per_device,
				struct kb_sample *out, struct kb_err *err)
{
	struct kb_sample *s = kb_calloc(1, sizeof(*s));
	json_tokener *tok = NULL;
	json_object *root = NULL;
	enum json_tokener_error jerr;
	const char *start;
	size_t skip;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len > KB_FIO_MAX_OUTPUT) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: fio output of %zu bytes is larger than the %u byte limit",
				 file, len, KB_FIO_MAX_OUTPUT);
		goto out;
	}
	start = len ? memchr(data, '{', len) : NULL;
	if (!start) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: no JSON object in the fio output (was fio run with --output-format=json?)",
				 file);
		goto out;
	}
	skip = (size_t)(start - data);
	tok = json_tokener_new();
	if (!tok) {
		ret = kb_err_set(err, KB_EFAIL,
				 "%s: cannot allocate a JSON parser", file);
		goto out;
	}
	root = json_tokener_parse_ex(tok, start, (int)(len - skip));
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		size_t at = skip + json_tokener_get_parse_end(tok);

		if (jerr == json_tokener_continue)
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: fio JSON output ends early at byte %zu (truncated?)",
					 file, at);
		else
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: invalid JSON at byte %zu: %s", file,
					 at, json_tokener_error_desc(jerr));
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: fio JSON output is not an object", file);
		goto out;
	}
	if ((ret = metrics(root, file, per_device, s, err)))
		goto out;
	*out = *s;
	ret = 0;
out:
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	free(s);
	return ret;
}

int kb_fio_parse_file(const char *path, struct kb_sample *out,
		      struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = kb_buf_read_file(&b, path, KB_FIO_MAX_OUTPUT, err)))
		goto out;
	ret = kb_fio_parse_buffer(b.buf, b.len, path, out, err);
out:
	kb_buf_release(&b);
	return ret;
}

/* Whether the options already say where the I/O goes. */
static int names_files(const struct kb_workload *w)
{
	size_t i;

	for (i = 0; i < w->nfio; i++)
		if (!strcmp(w->fio[i].key, "filename") ||
		    !strcmp(w->fio[i].key, "directory") ||
		    !strcmp(w->fio[i].key, "filename_format"))
			return 1;
	return 0;
}

int kb_fio_job_text(const struct kb_workload *w, char **out,
		    struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;
	int ret;

	*out = NULL;
	switch (w->kind) {
	case KB_WORKLOAD_FIO:
		kb_buf_adds(&b, w->per_device ? "[global]\n" : "[kbisect]\n");
		for (i = 0; i < w->nfio; i++) {
			const struct kb_option *o = &w->fio[i];
			size_t at, size;

			/* the matrix refuses these where they are written
			 * (kb_ycheck_string()); a workload made otherwise
			 * must not add lines to the job either */
			if (kb_ycheck_control(o->value, strlen(o->value), 0,
					      &at, &size) >= 0) {
				ret = kb_err_set(err, KB_EINPUT,
						 "fio option '%s' (line %u): a value must be one line without control characters",
						 o->key, o->loc.line);
				goto out;
			}
			kb_buf_addf(&b, "%s=%s\n", o->key, o->value);
		}
		if (w->per_device)
			for (i = 1; i <= w->targets_count; i++)
				kb_buf_addf(&b, "[kbisect-%zu]\nfilename=${%s%zu}\n",
					    i, KB_FIO_DISK_ENV, i);
		else if (!names_files(w))
			kb_buf_addf(&b, "filename=${%s}\n", KB_FIO_DISKS_ENV);
		break;
	case KB_WORKLOAD_FIO_JOB:
		if ((ret = kb_buf_read_file(&b, w->fio_job, MAX_JOB_FILE,
					    err)))
			goto out;
		if (memchr(b.buf, '\0', b.len)) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: a fio job file cannot hold NUL bytes",
					 w->fio_job);
			goto out;
		}
		break;
	default:
		ret = kb_err_set(err, KB_EFAIL,
				 "a command workload has no fio job");
		goto out;
	}
	*out = kb_buf_detach(&b);
	ret = 0;
out:
	kb_buf_release(&b);
	return ret;
}

const char *const *kb_fio_args(void)
{
	static const char *const args[] = { "--output-format=json", NULL };

	return args;
}

/* environ with KBISECT_DISKS and KBISECT_DISK1.. set to a harmless
 * value; caller frees the array and the strings from @strings on. */
static char **check_env(size_t ndisks, size_t *strings)
{
	size_t n = 0, i, j = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = kb_calloc(n + ndisks + 2, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], KB_FIO_DISK_ENV,
			    strlen(KB_FIO_DISK_ENV)) != 0)
			env[j++] = environ[i];
	env[j++] = (char *)KB_FIO_DISKS_ENV "=/dev/null";
	*strings = j;
	for (i = 1; i <= ndisks; i++)
		env[j++] = kb_asprintf("%s%zu=/dev/null", KB_FIO_DISK_ENV, i);
	env[j] = NULL;
	return env;
}

/* fio's first line that says what is wrong (not "job x dropped"). */
static char *first_complaint(const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n && !(strstr(p, "dropped") &&
			   (size_t)(strstr(p, "dropped") - p) < n))
			return kb_strndup(p, n);
		if (!nl)
			break;
		p = nl + 1;
	}
	return kb_strdup("fio rejected the job without saying why");
}

/*
 * The option fio complains about in @text: the one whose "key=" appears
 * first after a character that cannot be part of a name ("Bad option
 * <bs=4q>", "failed parsing iodepth=abc").
 */
static const struct kb_option *blamed(const struct kb_workload *w,
				      const char *text)
{
	const struct kb_option *best = NULL;
	const char *best_at = NULL;
	size_t i;

	for (i = 0; i < w->nfio; i++) {
		size_t klen = strlen(w->fio[i].key);
		const char *p = text;

		while ((p = strstr(p, w->fio[i].key))) {
			int before_ok = p == text ||
					!((p[-1] >= 'a' && p[-1] <= 'z') ||
					  (p[-1] >= '0' && p[-1] <= '9') ||
					  p[-1] == '_');

			if (before_ok && p[klen] == '=') {
				if (!best_at || p < best_at) {
					best_at = p;
					best = &w->fio[i];
				}
				break;
			}
			p += klen;
		}
	}
	return best;
}

/* kb_fio_check() of one workload, its {{NAME}} parameters filled. */
static int check_one(const struct kb_workload *w, const char *matrix_file,
		     const char *fio, struct kb_err *err)
{
	struct kb_buf errout = KB_BUF_INIT;
	char *job = NULL, *complaint = NULL, **env = NULL;
	char path[] = "/tmp/kbisect-job-XXXXXX";
	size_t strings = 0, k;
	const struct kb_option *o;
	char *argv[5];
	int fd = -1, status = 0, ret;
	size_t off = 0, len;

	if (w->kind == KB_WORKLOAD_COMMAND)
		return 0;
	if ((ret = kb_fio_job_text(w, &job, err)))
		goto out;
	fd = mkstemp(path);
	if (fd < 0) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot create a temporary job file: %s",
				 strerror(errno));
		path[0] = '\0';
		goto out;
	}
	len = strlen(job);
	while (off < len) {
		ssize_t r = write(fd, job + off, len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = kb_err_set(err, KB_EFAIL, "cannot write '%s': %s",
					 path, strerror(errno));
			goto out;
		}
		off += (size_t)r;
	}
	close(fd);
	fd = -1;
	argv[0] = (char *)(fio ? fio : "fio");
	argv[1] = (char *)"--parse-only";
	argv[2] = (char *)kb_fio_args()[0];
	argv[3] = path;
	argv[4] = NULL;
	env = check_env(w->per_device ? w->targets_count : 0, &strings);
	{
		struct kb_program prog = {
			.argv = (const char *const *)argv,
			.envp = env,
			.out = KB_PROGRAM_NULL,
			.err = KB_PROGRAM_PIPE,
		};

		if ((ret = kb_program_capture(&prog, &errout, MAX_FIO_STDERR,
					      &status, err)))
			goto out;
	}
	if (status == 0)
		goto out;
	if (status == 127) {
		ret = kb_err_set(err, KB_EFAIL, "cannot run '%s'", argv[0]);
		goto out;
	}
	complaint = first_complaint(errout.buf);
	if (w->kind == KB_WORKLOAD_FIO_JOB)
		ret = kb_err_set(err, KB_EINPUT, "%s: fio rejects the job: %s",
				 w->fio_job, complaint);
	else if ((o = blamed(w, errout.buf)))
		ret = kb_err_at(err, matrix_file, o->loc.line, o->loc.col,
				"fio rejects option '%s: %s': %s", o->key,
				o->value, complaint);
	else
		ret = kb_err_at(err, matrix_file, w->loc.line, w->loc.col,
				"fio rejects the workload: %s", complaint);
out:
	if (fd >= 0)
		close(fd);
	if (path[0] && strcmp(path, "/tmp/kbisect-job-XXXXXX") != 0)
		unlink(path);
	for (k = strings; env && env[k]; k++)
		free(env[k]);
	free(env);
	free(complaint);
	free(job);
	kb_buf_release(&errout);
	return ret;
}

int kb_fio_check(const struct kb_workload *w, const char *matrix_file,
		 const char *fio, struct kb_err *err)
{
	struct kb_param *levels;
	struct kb_guest g;
	size_t p, l;
	int ret;

	if (w->kind == KB_WORKLOAD_COMMAND)
		return 0;
	if (!w->nparams)
		return check_one(w, matrix_file, fio, err);
	/* the baseline, then each other level of each parameter once */
	memset(&g, 0, sizeof(g));
	levels = kb_calloc(w->nparams, sizeof(*levels));
	for (p = 0; p < w->nparams; p++) {
		levels[p].name = w->params[p]->name + strlen("workload.");
		levels[p].value = w->params[p]->levels[0].value;
	}
	g.params = levels;
	g.nparams = w->nparams;
	ret = 0;
	for (p = 0; p < w->nparams && !ret; p++) {
		for (l = p ? 1 : 0; l < w->params[p]->nlevels && !ret; l++) {
			struct kb_workload_inst wi;

			levels[p].value = w->params[p]->levels[l].value;
			if (!(ret = kb_workload_instance(w, &g, &wi, err)))
				ret = check_one(&wi.w, matrix_file, fio, err);
			kb_workload_inst_release(&wi);
		}
		levels[p].value = w->params[p]->levels[0].value;
	}
	free(levels);
	return ret;
}
