#ifndef KB_BOOTREC_H
#define KB_BOOTREC_H

#include <stddef.h>

struct kb_err;

/*
 * A machine boot's record: what the boot of a machine host chose
 * (lib/exec/machine.c writes it), kept in the boot's evidence
 * (boots.domain_xml, db/0007) and read back by `kbisect repro`
 * (lib/evidence_machine.c).  Its text is a first line
 * "kbisect-machine-boot 1", then one line a value, "KEY VALUE":
 *
 *   machine NAME          machines[].name
 *   method METHOD         kexec, grub-reboot or command
 *   kernel PATH           as the boot method saw them
 *   initrd PATH
 *   cmdline TEXT          the kernel's command line (may be empty)
 *   xen PATH              Xen's image, when the machine booted as dom0,
 *   xen_cmdline TEXT      with Xen's command line (both or neither)
 *   root PATH             the root disk image, when there was one
 *
 * A record may come from someone else's database: a value is one line
 * of printable text of at most KB_BOOTREC_MAX_VALUE bytes, every key
 * but the optional ones is there, and none is there twice.
 */
#define KB_BOOTREC_MAX_VALUE 4096
/* a record is at most its 8 values and their keys */
#define KB_BOOTREC_MAX_TEXT (8 * (KB_BOOTREC_MAX_VALUE + 16) + 32)

/* A record's values; a parsed record owns them (kb_bootrec_free()). */
struct kb_bootrec {
	const char *machine, *method, *kernel, *initrd, *cmdline;
	const char *xen, *xen_cmdline; /* NULL unless booted as Xen's dom0 */
	const char *root;              /* NULL: no root image */
};

/* The text of record @r (caller frees): a NULL xen or root is left
 * out, another NULL value written empty. */
char *kb_bootrec_format(const struct kb_bootrec *r);

/*
 * Parse the @len bytes at @data (named @file in messages): 0 with *@out
 * (kb_bootrec_free()), or KB_EINPUT with *@out NULL and a message
 * "FILE:LINE:COL: ..." that says which line is not a record's.
 */
int kb_bootrec_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_bootrec **out, struct kb_err *err);

void kb_bootrec_free(struct kb_bootrec *r);

#endif
