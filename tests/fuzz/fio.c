/*
 * libFuzzer harness for the fio JSON parser: any bytes go through
 * kb_fio_parse_buffer() as "fuzz.json".  The parser must either refuse
 * them with an input error that names the file and leave the sample
 * empty, or fill a sample whose metrics are known names with finite,
 * non-negative values.  A broken invariant traps, which libFuzzer reports
 * as a crash.  See tests/fuzz/README.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "fio.h"
#include "fuzz.h"
#include "variant.h"

#define FILE_NAME "fuzz.json"

static int known_metric(const char *name)
{
	static const char *const dirs[] = { "read_", "write_", "trim_" };
	static const char *const what[] = { "iops", "bw_kib", "lat_mean_us",
					    "lat_p50_us", "lat_p99_us",
					    "lat_p999_us" };
	size_t i, j, n;

	for (i = 0; i < 3; i++) {
		n = strlen(dirs[i]);
		if (strncmp(name, dirs[i], n) != 0)
			continue;
		for (j = 0; j < 6; j++)
			if (!strcmp(name + n, what[j]))
				return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_sample s;
	size_t i, j;
	int ret;

	memset(&s, 0xa5, sizeof(s));
	ret = kb_fio_parse_buffer((const char *)data, size, FILE_NAME, &s,
				  &err);
	if (ret < 0) {
		check(ret == KB_EINPUT || ret == KB_EFAIL);
		check_refused(ret, &err, FILE_NAME ": ");
		check(s.n == 0);
		return 0;
	}
	check(ret == 0 && err.code == 0);
	check(s.n >= 4 && s.n <= 18);
	for (i = 0; i < s.n; i++) {
		check(known_metric(s.m[i].name));
		check(isfinite(s.m[i].value) && s.m[i].value >= 0);
		for (j = 0; j < i; j++)
			check(strcmp(s.m[i].name, s.m[j].name) != 0);
	}
	return 0;
}
