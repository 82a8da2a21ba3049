/*
 * kbisect repro ID VARIANT [-o DIR]: write out what one variant of an
 * experiment booted (db/0007's evidence) as a folder a kernel developer
 * can boot by hand and attach to a bug report: the .config, the kernel
 * (checked against its recorded SHA-256), the initramfs, the workload,
 * the kernel command line, the domain XML moved into the folder, a
 * boot.sh that boots it once with virsh and prints the metric, and a
 * README.  lib/evidence.h reads and writes it; this file holds the
 * verb's options and what it prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "evidence.h"
#include "json.h"
#include "mem.h"
#include "store.h"
#include "banned.h"

struct repro_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *dir;
	int force;
};

static const struct kb_opt repro_opts[] = {
	KB_OPT_STRING(struct repro_args, dir, 'o', "output", "DIR",
		      "the folder to write (default: ./kbisect-repro-ID-VARIANT)"),
	KB_OPT_BOOL(struct repro_args, force, 0, "force",
		    "write into DIR even when it is not empty, replacing the files kbisect repro writes"),
	KB_OPT_DB,
	KB_OPT_JSON("print what was written as JSON"),
	KB_OPT_QUIET("nothing on stderr but errors"),
	KB_OPT_END,
};

static int cmd_repro(const struct kb_args *args);

const struct cmd cmd_repro_entry = {
	.name = "repro",
	.rank = 65,
	.args = "EXPERIMENT VARIANT",
	.opts = repro_opts,
	.size = sizeof(struct repro_args),
	.fn = cmd_repro,
	.summary = "write out a variant's boot as a folder that boots by hand",
	.help = "Writes what VARIANT (a number from `kbisect results`, or an exact\n"
		"label) of EXPERIMENT booted, from the evidence the database keeps\n"
		"with every boot and build, as a folder to boot once more by hand and\n"
		"to attach to a bug report:\n"
		"\n"
		"  config       the resolved .config the kernel was built from (a\n"
		"               distro kernel's /boot/config-VERSION; none when not\n"
		"               known)\n"
		"  kernel       the kernel image, copied from the build (its mode\n"
		"               kept within 0644) and checked against the SHA-256\n"
		"               recorded when it was built\n"
		"  initrd       the initramfs, made again from the stored workload\n"
		"               with the variant's copies and sysctls\n"
		"  workload.fio the fio job file the guest ran (or workload.sh: the\n"
		"               command, run with sh)\n"
		"  cmdline      the kernel command line\n"
		"  domain.xml   the libvirt domain as booted, its kernel, initramfs,\n"
		"               console log and scratch disk moved into DIR\n"
		"  boot.sh      boots domain.xml once with virsh on the boot's host\n"
		"               (this machine when the boot's files were shipped\n"
		"               into the host's pool; or $LIBVIRT_DEFAULT_URI, or\n"
		"               its argument), waits until the guest is gone and\n"
		"               prints the metric\n"
		"  README       the experiment, variant, settings, build key and\n"
		"               the metric kbisect measured (mean and sd)\n"
		"\n"
		"The boot is the variant's latest that ended ok, else its latest\n"
		"(a panic or a timeout is worth reproducing too).  A variant with no\n"
		"stored domain XML -- never booted, an experiment on the model\n"
		"executor, boots stored before kbisect kept their evidence -- has\n"
		"nothing to reproduce: exit status 2 and nothing is written.  A\n"
		"kernel image that is gone, differs from the one booted or has no\n"
		"recorded SHA-256 (the database names the file: only what its digest\n"
		"confirms is copied) is an error naming it (exit status 1), and so\n"
		"is a recorded host that is not a libvirt URI (exit status 2), both\n"
		"before anything is written.\n"
		"A boot on a machine host (hosts[].machine) has no domain.xml: its\n"
		"boot.sh runs the machine's own console, boot and power commands\n"
		"from the experiment's matrix (quoted, for you to read before you\n"
		"run it) with DIR's kernel, initrd and cmdline (xen_cmdline for a\n"
		"boot as Xen's dom0), waits for the workload's end and powers the\n"
		"machine off.  kbisect repro itself runs none of them.\n"
		"DIR must be empty or new unless --force.  Keep it off tmpfs: the\n"
		"scratch disk is opened with O_DIRECT.\n",
	.epilog = "Example:\n"
		  "  kbisect repro 7 3 -o /var/tmp/bug-42 && /var/tmp/bug-42/boot.sh\n",
};

/* ---- output ----------------------------------------------------------- */

static void print_text(const struct kb_evidence_info *r)
{
	struct kb_buf b = KB_BUF_INIT, l = KB_BUF_INIT;
	const char *f = r->files;
	const char *dir = cmd_printable(r->dir, 0, &b);
	size_t i;

	printf("wrote %s: experiment %lld variant #%u \"%s\", boot %u (%s)\n",
	       dir, (long long)r->exp, r->variant,
	       cmd_printable(r->label, 0, &l), r->boot_no, r->status);
	for (i = 0; i < r->nfiles; i++, f += strlen(f) + 1)
		printf("  %s\n", f);
	printf("boot it once: %s/boot.sh\n", dir);
	kb_buf_release(&b);
	kb_buf_release(&l);
}

static void print_json(const struct kb_evidence_info *r)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);
	const char *f = r->files;
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "experiment", r->exp);
	kb_json_kv_int(j, "variant", r->variant);
	kb_json_kv_string(j, "label", r->label);
	kb_json_kv_int(j, "boot", r->boot_no);
	kb_json_kv_string(j, "status", r->status);
	kb_json_kv_string(j, "host", r->host);
	kb_json_kv_string(j, "domain", r->domain);
	kb_json_kv_string(j, "build_key", r->build_key);
	kb_json_kv_string(j, "image_sha256", r->kernel_sha256);
	kb_json_kv_bool(j, "sha256_checked", r->sha256_checked);
	kb_json_kv_string(j, "dir", r->dir);
	kb_json_key(j, "files");
	kb_json_array_begin(j);
	for (i = 0; i < r->nfiles; i++, f += strlen(f) + 1) {
		char *path = kb_asprintf("%s/%s", r->dir, f);

		kb_json_object_begin(j);
		kb_json_kv_string(j, "name", f);
		kb_json_kv_string(j, "path", path);
		kb_json_object_end(j);
		free(path);
	}
	kb_json_array_end(j);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

/* The library's progress, on stderr. */
static void on_progress(const char *what, void *arg)
{
	(void)arg;
	fprintf(stderr, "kbisect: %s\n", what);
}

static int cmd_repro(const struct kb_args *args)
{
	const struct repro_args *a = CMD_ARGS(struct repro_args, args);
	struct kb_evidence_write_opts o = KB_EVIDENCE_WRITE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_evidence *ev = NULL;
	struct kb_evidence_info info;
	char *dir = NULL;
	int64_t exp;
	int ret;

	if (cmd_parse_id(args->pos[0], &exp) < 0)
		return cmd_usage_error("repro",
				       "'%s' is not an EXPERIMENT id (a number from 1 to 9223372036854775807; see kbisect history)",
				       args->pos[0]);
	if (a->dir && !*a->dir)
		return cmd_usage_error("repro", "-o needs a folder, not ''");
	if ((ret = cmd_open_store_as(args->db, KB_STORE_READ_ONLY, &s,
				     &err)) ||
	    (ret = kb_evidence_load(s, exp, args->pos[1], &ev, &err)))
		goto fail;
	kb_evidence_info(ev, &info);
	dir = a->dir ? kb_strdup(a->dir)
		     : kb_asprintf("kbisect-repro-%lld-%u", (long long)exp,
				   info.variant);
	o.force = a->force;
	o.progress = args->quiet ? NULL : on_progress;
	if ((ret = kb_evidence_write(ev, dir, &o, &err)))
		goto fail;
	kb_evidence_info(ev, &info);
	if (args->json)
		print_json(&info);
	else
		print_text(&info);
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(dir);
	kb_evidence_free(ev);
	kb_store_close(s);
	return ret;
}
