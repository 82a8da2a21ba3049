#ifndef KB_TESTCORPUS_H
#define KB_TESTCORPUS_H

/*
 * A fuzzing corpus (tests/fuzz/corpus/<harness>/) replayed through its
 * parser as an ordinary test, so that a file that once crashed a harness
 * stays a regression test (tests/fuzz/README.md).  Include after test.h.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "err.h"

/*
 * Parse @len bytes at @data, named @path: the parser's return.  On 0 it
 * has released what it parsed; on a refusal it has asserted that there
 * is no result.
 */
typedef int (*kb_test_corpus_parse)(const char *data, size_t len,
				    const char *path, struct kb_err *err);

/*
 * Every file of tests/fuzz/corpus/@harness/ (at most @max bytes each)
 * parses through @parse or is refused with KB_EINPUT and a message that
 * starts with its path; at least @min_ok parse and @min_bad are refused.
 */
static inline void kb_test_replay_corpus(const char *harness, size_t max,
					 kb_test_corpus_parse parse,
					 size_t min_ok, size_t min_bad)
{
	char dir[256];
	struct dirent *de;
	size_t ok = 0, bad = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", harness);
	if (!(d = opendir(dir)))
		fail_msg("cannot open '%s' (run from the top of the checkout)",
			 dir);
	while ((de = readdir(d))) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_err err = KB_ERR_INIT;
		char path[512];
		int ret;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (kb_buf_read_file(&b, path, max, &err))
			fail_msg("%s", err.msg);
		ret = parse(b.buf, b.len, path, &err);
		if (ret == 0)
			ok++;
		else if (ret == KB_EINPUT &&
			 !strncmp(err.msg, path, strlen(path)))
			bad++;
		else
			fail_msg("%s: %d %s", path, ret, err.msg);
		kb_buf_release(&b);
	}
	closedir(d);
	if (ok < min_ok || bad < min_bad)
		fail_msg("%s: %zu files parse and %zu are refused; the corpus has at least %zu and %zu",
			 dir, ok, bad, min_ok, min_bad);
}

#endif
