/*
 * libFuzzer harness for the monitors frame parser (lib/monitor.h): the
 * bytes are parsed as one run's monitors frame, appended after a first
 * value.  Refused: the message names the file and the values are as they
 * were.  Accepted: every value added is of that run, named with its
 * source's prefix, not 0 and finite, sorted by name.  Then the values
 * are compared against themselves, which changes nothing.  A broken
 * invariant traps.  See tests/fuzz/README.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fuzz.h"
#include "monitor.h"

#define FILE_NAME "fuzz.monitors"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_monitor_value *v = calloc(1, sizeof(*v));
	struct kb_monitor_row *rows;
	struct kb_monitor_change *c = NULL;
	size_t n = 1, i, nc = 0;
	int ret;

	check(v != NULL);
	v[0].run = 1;
	memcpy(v[0].name, "vmstat.first", 13);
	v[0].value = 1;
	ret = kb_monitor_parse_buffer((const char *)data, size, FILE_NAME, 2,
				      &v, &n, &err);
	if (ret) {
		check_refused(ret, &err, FILE_NAME ": ");
		check(n == 1 && v[0].run == 1);
		free(v);
		return 0;
	}
	check(err.code == 0 && n <= 1 + KB_MONITOR_MAX_VALUES);
	for (i = 1; i < n; i++) {
		check(v[i].run == 2);
		check(memchr(v[i].name, '\0', sizeof(v[i].name)) != NULL);
		check(strchr(v[i].name, '.') != NULL);
		check(v[i].value != 0 && isfinite(v[i].value));
		if (i > 1)
			check(strcmp(v[i - 1].name, v[i].name) < 0);
	}
	rows = calloc(n, sizeof(*rows));
	check(rows != NULL);
	for (i = 0; i < n; i++)
		rows[i] = (struct kb_monitor_row){ (long long)i % 3, v[i].name,
						   v[i].value };
	check(kb_monitor_compare(rows, n, rows, n, 0.05, &c, &nc) == 0);
	free(c);
	free(rows);
	free(v);
	return 0;
}
