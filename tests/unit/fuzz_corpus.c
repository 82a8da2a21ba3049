/*
 * Replays the fuzzing corpora (tests/fuzz/corpus/<harness>/) through the
 * parsers they were made for, as ordinary tests: every file must either
 * parse or be refused with a message that starts with the file name, and
 * nothing may crash.  Under `make check` this runs with ASan and UBSan,
 * so a corpus file that once crashed a harness stays a regression test.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "ydoc.h"

#define CORPUS "tests/fuzz/corpus"

/* Larger than any parser accepts, so that the size cap is replayed too. */
#define MAX_INPUT (2 * KB_YDOC_MAX_FILE)

/*
 * CPU seconds one input may take.  The inputs are a few KB and parse in
 * milliseconds, even under ASan; an input that takes seconds (and usually
 * gigabytes) is a resource-exhaustion bug that the fuzzer reports as a
 * timeout or out-of-memory, and it must fail here too rather than pass slowly.
 */
#define MAX_CPU_S 1.0

static int parse_matrix(const char *data, size_t len, const char *file,
			struct kb_err *err)
{
	struct kb_matrix *m = NULL;
	size_t i, j;
	int ret;

	ret = kb_matrix_parse_buffer(data, len, file, &m, err);
	if (ret)
		return ret;
	assert_non_null(m);
	assert_non_null(kb_matrix_name(m));
	assert_string_equal(kb_matrix_file(m), file);
	assert_int_equal(strlen(kb_matrix_text(m)), len);
	assert_in_range(kb_matrix_nfactors(m), 0, KB_MATRIX_MAX_FACTORS);
	for (i = 0; i < kb_matrix_nfactors(m); i++) {
		const struct kb_factor *f = kb_matrix_factor(m, i);

		assert_in_range(f->nlevels, 1, KB_MATRIX_MAX_LEVELS);
		/* only a quoted string level may be empty (CONFIG_S="") */
		for (j = 0; j < f->nlevels; j++)
			assert_true(strlen(f->levels[j].value) > 0 ||
				    (f->kind == KB_FACTOR_KCONFIG &&
				     f->levels[j].quoted));
	}
	assert_non_null(kb_matrix_workload(m)->metric);
	assert_true(kb_matrix_nhosts(m) >= 1);
	kb_matrix_free(m);
	return 0;
}

static int parse_model(const char *data, size_t len, const char *file,
		       struct kb_err *err)
{
	struct kb_model *m = NULL;
	int ret;

	ret = kb_model_parse_buffer(data, len, file, &m, err);
	if (ret)
		return ret;
	assert_non_null(m);
	assert_true(strlen(kb_model_metric(m)) > 0);
	assert_int_equal(strlen(kb_model_text(m)), len);
	kb_model_free(m);
	return 0;
}

static int parse_kconfig(const char *data, size_t len, const char *file,
			 struct kb_err *err)
{
	struct kb_kconfig *c = NULL;
	int ret;

	ret = kb_kconfig_parse_buffer(data, len, file, &c, err);
	if (ret)
		return ret;
	assert_non_null(c);
	kb_kconfig_free(c);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths of the regular files in @dir (dot files left out), sorted so
 * that a failure names the same file on every run.  Returns the count;
 * the caller frees each path and the array.
 */
static size_t list_files(const char *dir, char ***out)
{
	char **paths = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		fail_msg("cannot open corpus folder '%s' (run from the top of the checkout)",
			 dir);
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (de->d_name[0] == '.')
			continue;
		path = kb_asprintf("%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		paths = kb_reallocarray(paths, n + 1, sizeof(*paths));
		paths[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(paths, n, sizeof(*paths), by_name);
	*out = paths;
	return n;
}

struct tally {
	size_t files;
	size_t accepted;
	size_t refused;
	struct kb_buf problems; /* one line per file that broke the contract */
};

static void problem(struct tally *t, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct tally *t, const char *path, const char *fmt, ...)
{
	va_list ap;

	kb_buf_addf(&t->problems, "\n  '%s': ", path);
	va_start(ap, fmt);
	kb_buf_vaddf(&t->problems, fmt, ap);
	va_end(ap);
}

/*
 * Replay every file of corpus @name through @parse, which parses @len
 * bytes as @file and, on success, checks the result and frees it.  Every
 * file is replayed even after one breaks the contract, so that one run
 * names them all; the caller releases t->problems.
 */
static void replay(const char *name,
		   int (*parse)(const char *data, size_t len,
				const char *file, struct kb_err *err),
		   struct tally *t)
{
	char *dir = kb_asprintf("%s/%s", CORPUS, name);
	char **paths = NULL;
	size_t i, n;

	memset(t, 0, sizeof(*t));
	kb_buf_init(&t->problems);
	n = list_files(dir, &paths);
	for (i = 0; i < n; i++) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_err err = KB_ERR_INIT;
		const char *path = paths[i];
		clock_t start;
		double cpu_s;
		int ret;

		t->files++;
		if (kb_buf_read_file(&b, path, MAX_INPUT, &err)) {
			problem(t, path, "cannot read: %s", err.msg);
			goto next;
		}
		start = clock();
		ret = parse(b.buf, b.len, path, &err);
		cpu_s = (double)(clock() - start) / CLOCKS_PER_SEC;
		if (ret > 0) {
			problem(t, path, "positive return %d", ret);
		} else if (ret < 0) {
			t->refused++;
			if (err.code != ret)
				problem(t, path, "returned %d but recorded %d",
					ret, err.code);
			else if (!err.msg[0])
				problem(t, path, "refused without a message");
			else if (strncmp(err.msg, path, strlen(path)) != 0)
				problem(t, path,
					"message does not start with the file name: %s",
					err.msg);
		} else {
			t->accepted++;
			if (err.code != 0 || err.msg[0])
				problem(t, path,
					"accepted but left an error: %s",
					err.msg);
		}
		if (cpu_s > MAX_CPU_S)
			problem(t, path,
				"took %.1f s of CPU, more than %.0f: a resource-exhaustion bug",
				cpu_s, MAX_CPU_S);
next:
		kb_buf_release(&b);
		free(paths[i]);
	}
	free(paths);
	free(dir);
}

/* Fail, naming every file that broke the contract, or pass. */
static void assert_no_problems(struct tally *t)
{
	char msg[4096];

	if (!t->problems.len) {
		kb_buf_release(&t->problems);
		return;
	}
	snprintf(msg, sizeof(msg), "%s", t->problems.buf);
	kb_buf_release(&t->problems);
	fail_msg("corpus files broke the parser's contract:%s", msg);
}

static void test_fuzz_corpus__matrix_files_parse_or_fail_cleanly(void **state)
{
	struct tally t;

	(void)state;
	replay("matrix", parse_matrix, &t);
	assert_no_problems(&t);
	assert_true(t.files > 0);
	assert_int_equal(t.accepted + t.refused, t.files);
}

static void test_fuzz_corpus__model_files_parse_or_fail_cleanly(void **state)
{
	struct tally t;

	(void)state;
	replay("model", parse_model, &t);
	assert_no_problems(&t);
	assert_true(t.files > 0);
	assert_int_equal(t.accepted + t.refused, t.files);
}

static void test_fuzz_corpus__kconfig_files_parse_or_fail_cleanly(void **state)
{
	struct tally t;

	(void)state;
	replay("kconfig", parse_kconfig, &t);
	assert_no_problems(&t);
	assert_true(t.files > 0);
	assert_int_equal(t.accepted + t.refused, t.files);
}

/* A corpus of only refusals would never reach the validators' far end. */
static void test_fuzz_corpus__each_corpus_has_accepted_and_refused_inputs(
	void **state)
{
	struct tally m, d;

	(void)state;
	replay("matrix", parse_matrix, &m);
	kb_buf_release(&m.problems);
	replay("model", parse_model, &d);
	kb_buf_release(&d.problems);
	assert_true(m.accepted >= 3);
	assert_true(m.refused >= 3);
	assert_true(d.accepted >= 3);
	assert_true(d.refused >= 3);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_fuzz_corpus__matrix_files_parse_or_fail_cleanly),
	cmocka_unit_test(test_fuzz_corpus__model_files_parse_or_fail_cleanly),
	cmocka_unit_test(test_fuzz_corpus__kconfig_files_parse_or_fail_cleanly),
	cmocka_unit_test(
		test_fuzz_corpus__each_corpus_has_accepted_and_refused_inputs),
};

KB_TEST_MAIN(tests)
