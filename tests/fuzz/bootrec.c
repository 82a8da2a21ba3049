/*
 * libFuzzer harness for the machine boot record's parser (lib/bootrec.h):
 * the bytes are parsed as a record read back from a database.  Refused:
 * the message names the file and there is no record.  Accepted: every
 * value a record must have is there, each is one line of printable text
 * no longer than the cap, Xen's two are both there or neither, and the
 * record written again parses to the same values.  A broken invariant
 * traps.  See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bootrec.h"
#include "err.h"
#include "fuzz.h"

#define FILE_NAME "fuzz.bootrec"

static void check_value(const char *v)
{
	size_t i, n;

	if (!v)
		return;
	n = strlen(v);
	check(n <= KB_BOOTREC_MAX_VALUE);
	for (i = 0; i < n; i++)
		check((unsigned char)v[i] >= 0x20 && v[i] != 0x7f);
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_bootrec *r = NULL, *again = NULL;
	char *text;
	int ret;

	ret = kb_bootrec_parse_buffer((const char *)data, size, FILE_NAME, &r,
				      &err);
	if (!check_parsed(ret, &err, r, FILE_NAME))
		return 0;
	check(r->machine && r->method && r->kernel && r->initrd && r->cmdline);
	check(!r->xen == !r->xen_cmdline);
	check_value(r->machine);
	check_value(r->method);
	check_value(r->kernel);
	check_value(r->initrd);
	check_value(r->cmdline);
	check_value(r->xen);
	check_value(r->xen_cmdline);
	check_value(r->root);
	text = kb_bootrec_format(r);
	check(kb_bootrec_parse_buffer(text, strlen(text), FILE_NAME, &again,
				      &err) == 0);
	check(same(r->machine, again->machine) &&
	      same(r->method, again->method) &&
	      same(r->kernel, again->kernel) &&
	      same(r->initrd, again->initrd) &&
	      same(r->cmdline, again->cmdline) && same(r->xen, again->xen) &&
	      same(r->xen_cmdline, again->xen_cmdline) &&
	      same(r->root, again->root));
	free(text);
	kb_bootrec_free(again);
	kb_bootrec_free(r);
	return 0;
}
