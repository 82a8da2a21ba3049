/*
 * libFuzzer harness for the console frame parser: the bytes are fed to a
 * console twice, once whole through kb_console_parse_buffer() and once
 * split in chunks whose sizes come from the data itself; both must end in
 * the same state with the same frames, and every frame must be one the
 * parser could check (run numbers 1, 2, ... within the announced runs).
 * Then the boot is judged as a fio and as a command workload.  A broken
 * invariant traps, which libFuzzer reports as a crash.  See
 * tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "err.h"
#include "fuzz.h"
#include "matrix.h"
#include "variant.h"

#define FILE_NAME "fuzz.console"

static void judge(const struct kb_console *c, enum kb_workload_kind kind)
{
	struct kb_workload w;
	struct kb_boot_result r;
	size_t i;

	memset(&w, 0, sizeof(w));
	memset(&r, 0, sizeof(r));
	w.kind = kind;
	w.command = "true";
	w.regex = kind == KB_WORKLOAD_COMMAND ? "([0-9]+)" : NULL;
	w.metric = "n";
	check(kb_console_judge(c, &w, kb_console_runs(c) ? kb_console_runs(c)
							  : 1,
			       0, &r, NULL) == 0);
	check(r.console_tail != NULL);
	check(r.status == KB_BOOT_OK ? r.reason == NULL : r.reason != NULL);
	if (r.status == KB_BOOT_OK)
		check(r.nruns == kb_console_nframes(c));
	for (i = 0; i < r.nruns; i++)
		check(r.runs[i].n >= 3);
	kb_boot_result_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_console *whole = NULL, *split;
	size_t i, off = 0, step;
	char *tail;
	int ret;

	ret = kb_console_parse_buffer((const char *)data, size, FILE_NAME,
				      &whole, &err);
	split = kb_console_new(0);
	for (i = 0; off < size; i++) {
		step = 1 + (size_t)data[i % size] % 64;
		if (step > size - off)
			step = size - off;
		kb_console_feed(split, data + off, step);
		off += step;
	}
	if (ret < 0) {
		check(ret == KB_EINPUT && whole == NULL);
		check_refused(ret, &err, FILE_NAME ": ");
		check(kb_console_state(split) == KB_CONSOLE_BAD);
		check(kb_console_reason(split) != NULL);
		kb_console_free(split);
		return 0;
	}
	check(whole != NULL && err.code == 0);
	check(kb_console_state(whole) == kb_console_state(split));
	check(kb_console_nframes(whole) == kb_console_nframes(split));
	for (i = 0; i < kb_console_nframes(whole); i++) {
		const struct kb_console_frame *a = kb_console_frame(whole, i);
		const struct kb_console_frame *b = kb_console_frame(split, i);

		check(a->run == i + 1 && a->run <= kb_console_runs(whole));
		check(a->len == b->len && a->len > 0 &&
		      a->len <= KB_CONSOLE_MAX_FRAME);
		check(memcmp(a->data, b->data, a->len) == 0);
		check(a->data[a->len] == '\0' && a->data[a->len - 1] == '\n');
	}
	check(kb_console_frame(whole, kb_console_nframes(whole)) == NULL);
	if (kb_console_panicked(whole))
		check(kb_console_state(whole) == KB_CONSOLE_PANIC);
	tail = kb_console_tail(whole, 5);
	check(tail != NULL);
	free(tail);
	judge(whole, KB_WORKLOAD_FIO);
	judge(whole, KB_WORKLOAD_COMMAND);
	kb_console_free(whole);
	kb_console_free(split);
	return 0;
}
