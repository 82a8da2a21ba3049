/*
 * The machine boot record (lib/bootrec.h): written by one function and
 * read by one parser, so that the two cannot drift apart.
 */
#include "bootrec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "banned.h"

#define MAGIC "kbisect-machine-boot 1"

/* The record's values by key, in the order they are written. */
static const char **slot(struct kb_bootrec *r, const char *key, size_t n)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "machine", offsetof(struct kb_bootrec, machine) },
		{ "method", offsetof(struct kb_bootrec, method) },
		{ "kernel", offsetof(struct kb_bootrec, kernel) },
		{ "initrd", offsetof(struct kb_bootrec, initrd) },
		{ "cmdline", offsetof(struct kb_bootrec, cmdline) },
		{ "xen", offsetof(struct kb_bootrec, xen) },
		{ "xen_cmdline", offsetof(struct kb_bootrec, xen_cmdline) },
		{ "root", offsetof(struct kb_bootrec, root) },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == n && !memcmp(keys[i].key, key, n))
			return (const char **)(void *)((char *)r + keys[i].off);
	return NULL;
}

/* A value that must be written: NULL as empty. */
static const char *val(const char *s)
{
	return s ? s : "";
}

char *kb_bootrec_format(const struct kb_bootrec *r)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_addf(&b, MAGIC "\nmachine %s\nmethod %s\n", val(r->machine),
		    val(r->method));
	kb_buf_addf(&b, "kernel %s\ninitrd %s\ncmdline %s\n", val(r->kernel),
		    val(r->initrd), val(r->cmdline));
	if (r->xen)
		kb_buf_addf(&b, "xen %s\nxen_cmdline %s\n", r->xen,
			    val(r->xen_cmdline));
	if (r->root)
		kb_buf_addf(&b, "root %s\n", r->root);
	return kb_buf_detach(&b);
}

void kb_bootrec_free(struct kb_bootrec *r)
{
	if (!r)
		return;
	free((char *)r->machine);
	free((char *)r->method);
	free((char *)r->kernel);
	free((char *)r->initrd);
	free((char *)r->cmdline);
	free((char *)r->xen);
	free((char *)r->xen_cmdline);
	free((char *)r->root);
	free(r);
}

/* Line @no (@p, @n bytes, no newline) after the first: its value into
 * the record's slot for its key. */
static int parse_line(struct kb_bootrec *r, const char *p, size_t n,
		      const char *file, unsigned no, struct kb_err *err)
{
	const char *sp = memchr(p, ' ', n);
	size_t k, i;
	const char **v;

	if (!sp)
		return kb_err_at(err, file, no, 1,
				 "not \"KEY VALUE\" (a machine boot record's line)");
	k = (size_t)(sp - p);
	if (!(v = slot(r, p, k)))
		return kb_err_at(err, file, no, 1,
				 "not a key of a machine boot record (machine, method, kernel, initrd, cmdline, xen, xen_cmdline, root)");
	if (*v)
		return kb_err_at(err, file, no, 1, "'%.*s' a second time",
				 (int)k, p);
	if (n - k - 1 > KB_BOOTREC_MAX_VALUE)
		return kb_err_at(err, file, no, (unsigned)k + 2,
				 "a value longer than %d bytes",
				 KB_BOOTREC_MAX_VALUE);
	for (i = k + 1; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return kb_err_at(err, file, no, (unsigned)i + 1,
					 "a control character (0x%02x) in a value",
					 (unsigned char)p[i]);
	*v = kb_strndup(sp + 1, n - k - 1);
	return 0;
}

int kb_bootrec_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_bootrec **out, struct kb_err *err)
{
	struct kb_bootrec *r;
	const char *p, *end = data + len, *nl;
	const char *missing = NULL;
	unsigned no = 1;
	int ret = 0;

	*out = NULL;
	if (len > KB_BOOTREC_MAX_TEXT)
		return kb_err_at(err, file, 0, 0,
				 "%zu bytes, more than a machine boot record's %d",
				 len, KB_BOOTREC_MAX_TEXT);
	if (len < sizeof(MAGIC) - 1 || memcmp(data, MAGIC, sizeof(MAGIC) - 1) ||
	    (len > sizeof(MAGIC) - 1 && data[sizeof(MAGIC) - 1] != '\n'))
		return kb_err_at(err, file, 1, 1,
				 "not a machine boot record (its first line is \"" MAGIC "\")");
	r = kb_calloc(1, sizeof(*r));
	p = data + sizeof(MAGIC) - 1;
	if (p < end)
		p++;
	while (p < end && !ret) {
		no++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		ret = parse_line(r, p, (size_t)(nl - p), file, no, err);
		p = nl + (nl < end);
	}
	if (!ret) {
		if (!r->machine)
			missing = "machine";
		else if (!r->method)
			missing = "method";
		else if (!r->kernel)
			missing = "kernel";
		else if (!r->initrd)
			missing = "initrd";
		else if (!r->cmdline)
			missing = "cmdline";
		else if (!r->xen != !r->xen_cmdline)
			missing = r->xen ? "xen_cmdline" : "xen";
		if (missing)
			ret = kb_err_at(err, file, 0, 0,
					"no '%s' in the machine boot record",
					missing);
	}
	if (ret) {
		kb_bootrec_free(r);
		return ret;
	}
	*out = r;
	return 0;
}
