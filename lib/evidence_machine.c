/*
 * A machine boot's repro folder (lib/evidence.h): its boot record read
 * back, and boot.sh, which boots the machine once through the matrix's
 * own commands (its console, boot.command, power), and the README.
 * Nothing here runs a command: boot.sh holds them, quoted, for whoever
 * reads it and runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence_int.h"

#include "bootrec.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "realexec.h"
#include "banned.h"

int ev_is_machine(const char *uri)
{
	return uri && !strncmp(uri, "machine:", 8);
}

int ev_machine_load(struct kb_evidence *r, struct kb_err *err)
{
	const char *rec = r->e.domain_xml;
	struct kb_err why = KB_ERR_INIT;
	size_t h;

	if (!rec || strncmp(rec, "kbisect-machine-boot ", 21))
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld ran on %s and kept no machine boot record: kbisect repro cannot say how it was booted",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  r->e.host);
	for (h = 0; h < kb_matrix_nhosts(r->m); h++)
		if (!strcmp(kb_matrix_host(r->m, h)->uri, r->e.host))
			r->mc = kb_matrix_host(r->m, h)->machine;
	if (!r->mc)
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld ran on %s, which the experiment's matrix has no machine host of",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  r->e.host);
	/* boot.sh runs the matrix's commands; an ssh method's steps
	 * (ship, kexec or grub-reboot, read the console) are not written */
	if (kb_machine_boot_method(r->mc) != KB_MACHINE_COMMAND)
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld was booted by boot method %s: kbisect repro's boot.sh covers boot method command only (lib/exec/machine.h says the steps to do by hand)",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  kb_machine_boot_name(kb_machine_boot_method(r->mc)));
	if (kb_bootrec_parse_buffer(rec, strlen(rec), "boots.domain_xml",
				    &r->rec, &why))
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld: its machine boot record is not one kbisect wrote: %s",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  why.msg);
	if (strcmp(r->rec->machine, kb_machine_name(r->mc)))
		return kb_err_set(err, KB_EINPUT,
				  "boot %u of variant %u of experiment %lld: its machine boot record names machine '%s', not the matrix's %s",
				  r->e.boot_no, r->v->idx, (long long)r->exp,
				  r->rec->machine, kb_machine_name(r->mc));
	return 0;
}

/* A machine command as a line of sh: each argument quoted, then @more
 * (text of sh, may be NULL). */
static void command(struct kb_buf *b, const char *const *argv,
		    const char *more)
{
	size_t i;

	for (i = 0; argv[i]; i++) {
		if (i)
			kb_buf_addch(b, ' ');
		ev_sh_quote(b, argv[i]);
	}
	if (more)
		kb_buf_adds(b, more);
}

/* A shell function @name running power command @p (":" without one). */
static void power_fn(const struct kb_evidence *r, struct kb_buf *b,
		     const char *name, enum kb_machine_power p)
{
	const char *const *argv = kb_machine_power(r->mc, p);

	kb_buf_addf(b, "%s() { ", name);
	if (argv)
		command(b, argv, " >/dev/null 2>&1");
	else
		kb_buf_adds(b, ":");
	kb_buf_adds(b, "; }\n");
}

void ev_machine_boot_sh(const struct kb_evidence *r, struct kb_buf *b)
{
	const char *name = kb_machine_name(r->mc);
	int off_on = kb_machine_power(r->mc, KB_MACHINE_ON) &&
		     kb_machine_power(r->mc, KB_MACHINE_OFF);

	kb_buf_addf(b, "#!/bin/sh\n"
		       "# Boot variant #%u of kbisect experiment %lld once on machine %s, as\n"
		       "# its boot %u booted (%s), and print its %s the way kbisect reads it.\n"
		       "# Written by `kbisect repro`: README says what each file is.\n"
		       "#\n"
		       "#   ./boot.sh\n"
		       "#\n"
		       "# It runs the machine's own commands, from the experiment's matrix:\n"
		       "# its console, its boot command and its power.  Read them below\n"
		       "# before you run it.  Exit status 0 when every run printed the metric.\n"
		       "set -u\n"
		       "here=$(cd \"$(dirname \"$0\")\" && pwd -P) || exit 1\n"
		       "cd \"$here\" || exit 1\n",
		    r->v->idx, (long long)r->exp, name, r->e.boot_no,
		    r->e.status, r->info.metric);
	ev_vars(r, b, kb_machine_boot_timeout_s(r->mc),
		"machine.boot_timeout_s");
	ev_sh_var(b, "cmdline", r->rec->cmdline);
	if (r->rec->xen) {
		ev_sh_var(b, "xen", r->rec->xen);
		ev_sh_var(b, "xen_cmdline", r->rec->xen_cmdline);
	}
	kb_buf_adds(b, "\nsay() { echo \"boot.sh: $*\" >&2; }\n");
	power_fn(r, b, "power_on", KB_MACHINE_ON);
	power_fn(r, b, "power_off", KB_MACHINE_OFF);
	power_fn(r, b, "power_cycle", KB_MACHINE_CYCLE);
	kb_buf_addf(b, "power_up() { %s; }\n\n",
		    off_on ? "power_off && power_on" : "power_cycle");
	ev_value_fn(r, b);
	kb_buf_adds(b, "\n# -- the machine's console, read into console.log for the boot\n"
		       "rm -f console.log run-*.out run-*.json\n");
	command(b, kb_machine_console(r->mc),
		" >console.log 2>/dev/null </dev/null &\n");
	kb_buf_adds(b, "console=$!\n"
		       "end() { power_off; kill $console 2>/dev/null; wait $console 2>/dev/null; }\n"
		       "trap 'end; exit 130' INT\n"
		       "trap 'end; exit 143' TERM\n"
		       "sleep 1\n"
		       "\n# -- choose the next boot (the boot command starts nothing), then power up\n");
	command(b, kb_machine_boot_command(r->mc), NULL);
	kb_buf_adds(b, " --kernel \"$here/kernel\" --initrd \"$here/initrd\" --cmdline \"$cmdline\"");
	if (r->rec->root)
		kb_buf_adds(b, " --root \"$here/root.img\"");
	if (r->rec->xen)
		kb_buf_adds(b, " --xen \"$xen\" --xen-cmdline \"$xen_cmdline\"");
	kb_buf_addf(b, " ||\n"
		       "\t{ say \"the boot command failed\"; end; exit 1; }\n"
		       "power_up || { say \"cannot power machine %s up\"; end; exit 1; }\n"
		       "say \"machine %s booting; its console goes to $here/console.log\"\n"
		       "t=0 started=\n"
		       "until grep -q -e '^KBISECT-DONE' -e 'Kernel panic - not syncing' console.log 2>/dev/null; do\n"
		       "\tif [ -z \"$started\" ] && grep -q '^KBISECT-START' console.log; then\n"
		       "\t\tstarted=$t\n"
		       "\tfi\n"
		       "\tif [ -z \"$started\" ] && [ $t -ge $boot_timeout ]; then\n"
		       "\t\tsay \"no workload after $boot_timeout s\"\n"
		       "\t\tbreak\n"
		       "\telif [ -n \"$started\" ] && [ $((t - started)) -ge $workload_timeout ]; then\n"
		       "\t\tsay \"the workload ran over $workload_timeout s\"\n"
		       "\t\tbreak\n"
		       "\tfi\n"
		       "\tsleep 1\n"
		       "\tt=$((t + 1))\n"
		       "done\n"
		       "end\n"
		       "say \"machine %s powered off (a machine without power.off is left as it is)\"\n",
		    name, name, name);
	ev_results(r, b);
	kb_buf_adds(b, "\nexit $status\n");
}

void ev_machine_readme(const struct kb_evidence *r, struct kb_buf *b)
{
	const struct kb_workload *w = kb_matrix_workload(r->m);
	int fio = w->kind != KB_WORKLOAD_COMMAND;

	kb_buf_addf(b, "kbisect repro: experiment %lld \"%s\", variant #%u\n"
		       "==========================================================\n\n"
		       "Boot %u of this variant (status %s%s%s) on machine %s, as kbisect\n"
		       "booted it, ready to boot once more by hand:\n\n"
		       "    ./boot.sh\n\n"
		       "It runs the machine's own console, boot and power commands from the\n"
		       "experiment's matrix (read boot.sh first), and prints %s for each\n"
		       "of the %u run%s and their mean.\n\n",
		    (long long)r->exp, r->info.name, r->v->idx, r->e.boot_no,
		    r->e.status, r->e.reason ? ": " : "",
		    r->e.reason ? r->e.reason : "", kb_machine_name(r->mc),
		    r->info.metric, r->info.runs_per_boot,
		    r->info.runs_per_boot == 1 ? "" : "s");
	kb_buf_adds(b, "Measured by kbisect: ");
	ev_measured(r, b);
	kb_buf_addf(b, ".\n\n"
		       "Variant     #%u %s\n"
		       "Kernel      %s\n"
		       "            sha256 %s (checked against the build's record)\n"
		       "Machine     %s, boot method %s, %s\n\n",
		    r->v->idx, r->v->label ? r->v->label : "", r->e.image,
		    r->kernel_sha, kb_machine_name(r->mc),
		    kb_machine_boot_name(kb_machine_boot_method(r->mc)),
		    r->rec->xen ? "as Xen's dom0" : "natively");
	ev_template_note(r, b);
	kb_buf_adds(b, "Files\n-----\n\n"
		       "boot.sh       starts the console into console.log, gives the boot\n"
		       "              command this folder's kernel, initramfs and command\n"
		       "              line, powers the machine up, waits for /init's end (or a\n"
		       "              panic, or the timeouts), powers it off, then prints the\n"
		       "              metric of each run from the result frames\n"
		       "kernel        the kernel image booted\n"
		       "initrd        the initramfs, made again from the stored workload\n");
	if (r->e.config_text)
		kb_buf_adds(b, "config        the .config the kernel was built from\n");
	kb_buf_adds(b, "cmdline       the kernel command line\n");
	if (r->rec->xen)
		kb_buf_addf(b, "xen_cmdline   Xen's command line; Xen itself is %s, as the\n"
			       "              boot command saw it (not copied)\n",
			    r->rec->xen);
	if (r->rec->root)
		kb_buf_adds(b, "root.img      the root disk image (guest.image), never written\n");
	kb_buf_adds(b, fio ? "workload.fio  the fio job file /init runs\n"
			   : "workload.sh   the command /init runs, with sh, timed\n");
	kb_buf_adds(b, "console.log   written by boot.sh: the machine's console\n");
}
