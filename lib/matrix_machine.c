/*
 * A host that is a whole machine (lib/matrix.h, hosts[].machine): its
 * power, console and boot commands, each an argv that this machine would
 * run, and what it is booted back into.  Every command is a YAML list
 * of strings: a scalar where a command belongs is refused rather than
 * split, so that no shell ever reads a matrix's text.  Every boot method
 * is run (lib/exec/machine.h); a kexec machine in a matrix that boots
 * Xen's dom0 is refused where the factors say so (lib/matrix_sections.c).
 */
#include "matrix.h"

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "matrix_int.h"
#include "mem.h"
#include "ycheck.h"
#include "ydoc.h"
#include "banned.h"

/* The most arguments of one command. */
#define MAX_ARGV 256

struct kb_machine {
	const char *name;
	const char *const *power[3]; /* by enum kb_machine_power */
	const char *const *console;
	enum kb_machine_boot method;
	const char *const *ssh, *const *command;
	int has_known_good;
	struct kb_machine_kernel known_good;
	const char *xen, *xen_cmdline;
	unsigned boot_timeout_s;
};

static const char *const methods[] = { "kexec", "grub-reboot", "command" };

const char *kb_machine_boot_name(enum kb_machine_boot b)
{
	return (size_t)b < sizeof(methods) / sizeof(*methods) ? methods[b]
							      : "?";
}

/*
 * A command at @n: a list of 1 to MAX_ARGV strings without control
 * characters, into a NULL-terminated argv kept by the matrix.
 */
static int argv_of(struct ctx *c, const struct kb_ynode *n, const char *what,
		   const char *const **out)
{
	const char **v;
	char item[96];
	size_t i;
	int ret;

	if (n->type == KB_Y_SCALAR)
		return fail(c, n,
			    "%s must be a list of arguments, not a string: write it as a YAML list, such as [ipmitool, -H, bmc1, chassis, power, cycle] (no shell reads it)",
			    what);
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_SEQ, what)))
		return ret;
	if (n->n == 0)
		return fail(c, n,
			    "%s is empty: give the program and its arguments",
			    what);
	if (n->n > MAX_ARGV)
		return fail(c, n, "%s has more than %d arguments", what,
			    MAX_ARGV);
	v = kb_matrix__keep(c->m, kb_calloc(n->n + 1, sizeof(*v)));
	for (i = 0; i < n->n; i++) {
		snprintf(item, sizeof(item), "argument %zu of %s", i + 1, what);
		if ((ret = kb_ycheck_string(&c->y, n->items[i], item, &v[i])))
			return ret;
	}
	*out = v;
	return 0;
}

/* machine.name: as a storage pool name, so that it prints as it is. */
static int machine_name(struct ctx *c, const struct kb_ynode *v,
			const char **out)
{
	int ret = kb_ycheck_string(&c->y, v, "machine.name", out);
	size_t n;

	if (ret)
		return ret;
	n = strlen(*out);
	if (n > 64 || **out == '.' || **out == '-' ||
	    strspn(*out, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return fail(c, v,
			    "invalid machine.name '%s': expected 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'",
			    *out);
	return 0;
}

static int power(struct ctx *c, const struct kb_ynode *n,
		 struct kb_machine *mc)
{
	static const char *const keys[] = { "on", "off", "cycle" };
	static const char *const what[] = { "machine.power.on",
					    "machine.power.off",
					    "machine.power.cycle" };
	const struct kb_ynode *v;
	size_t i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "machine.power")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "machine.power", keys, 3)))
		return ret;
	for (i = 0; i < 3; i++)
		if ((v = kb_ynode_get(n, keys[i])) &&
		    (ret = argv_of(c, v, what[i], &mc->power[i])))
			return ret;
	if (!mc->power[KB_MACHINE_CYCLE] &&
	    !(mc->power[KB_MACHINE_ON] && mc->power[KB_MACHINE_OFF]))
		return fail(c, n,
			    "machine.power needs 'cycle', or 'off' and 'on': how a machine that hangs is restarted");
	return 0;
}

static int boot(struct ctx *c, const struct kb_ynode *n,
		struct kb_machine *mc)
{
	static const char *const keys[] = { "method", "ssh", "command" };
	const struct kb_ynode *v, *ssh, *cmd;
	size_t i;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "machine.boot")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "machine.boot", keys, 3)))
		return ret;
	if (!(v = kb_ynode_get(n, "method")))
		return fail(c, n,
			    "machine.boot needs 'method': kexec, grub-reboot or command");
	if ((ret = kb_ycheck_choice(&c->y, v, "machine.boot.method", methods,
				    3, &i)))
		return ret;
	mc->method = (enum kb_machine_boot)i;
	ssh = kb_ynode_get(n, "ssh");
	cmd = kb_ynode_get(n, "command");
	if (mc->method == KB_MACHINE_COMMAND) {
		if (!cmd)
			return fail(c, n,
				    "boot method command needs 'command': the program that boots the machine, given the kernel, initramfs and command line");
		if (ssh)
			return fail(c, ssh,
				    "machine.boot.ssh is not used by method command (only kexec and grub-reboot run through ssh)");
		return argv_of(c, cmd, "machine.boot.command", &mc->command);
	}
	if (!ssh)
		return fail(c, n,
			    "boot method %s needs 'ssh': the command that reaches the running machine, such as [ssh, root@box1]",
			    methods[i]);
	if (cmd)
		return fail(c, cmd,
			    "machine.boot.command is used by method command only, not by %s",
			    methods[i]);
	return argv_of(c, ssh, "machine.boot.ssh", &mc->ssh);
}

/* A path of known_good: absolute, so that it is never read as an
 * option of kexec, grub or the boot command. */
static int kg_path(struct ctx *c, const struct kb_ynode *v, const char *what,
		   const char **out)
{
	int ret = kb_ycheck_string(&c->y, v, what, out);

	if (ret)
		return ret;
	if (**out != '/')
		return fail(c, v, "%s must be an absolute path, found '%s'",
			    what, *out);
	return 0;
}

static int known_good(struct ctx *c, const struct kb_ynode *n,
		      struct kb_machine *mc)
{
	static const char *const keys[] = { "kernel", "initrd", "cmdline",
					    "xen", "xen_cmdline", "ready" };
	struct kb_machine_kernel *k = &mc->known_good;
	const struct kb_ynode *v;
	int ret;

	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "machine.known_good")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "machine.known_good", keys, 6)))
		return ret;
	if (!(v = kb_ynode_get(n, "kernel")))
		return fail(c, n,
			    "machine.known_good needs 'kernel': the kernel the machine is booted back into after a failed boot");
	if ((ret = kg_path(c, v, "machine.known_good.kernel", &k->kernel)) ||
	    ((v = kb_ynode_get(n, "initrd")) &&
	     (ret = kg_path(c, v, "machine.known_good.initrd", &k->initrd))) ||
	    ((v = kb_ynode_get(n, "xen")) &&
	     (ret = kg_path(c, v, "machine.known_good.xen", &k->xen))) ||
	    ((v = kb_ynode_get(n, "cmdline")) &&
	     (ret = kb_ycheck_string(&c->y, v, "machine.known_good.cmdline",
				     &k->cmdline))) ||
	    ((v = kb_ynode_get(n, "xen_cmdline")) &&
	     (ret = kb_ycheck_string(&c->y, v,
				     "machine.known_good.xen_cmdline",
				     &k->xen_cmdline))) ||
	    ((v = kb_ynode_get(n, "ready")) &&
	     (ret = kb_ycheck_string(&c->y, v, "machine.known_good.ready",
				     &k->ready))))
		return ret;
	if (k->ready && !*k->ready)
		return fail(c, kb_ynode_get(n, "ready"),
			    "machine.known_good.ready must not be empty: the text the console shows once the known-good system is up, such as 'login:'");
	if (k->xen_cmdline && !k->xen)
		return fail(c, kb_ynode_get(n, "xen_cmdline"),
			    "machine.known_good.xen_cmdline needs 'xen', the hypervisor it is the command line of");
	mc->has_known_good = 1;
	return 0;
}

int kb_matrix__machine(struct ctx *c, const struct kb_ynode *n,
		       const struct kb_machine **out)
{
	static const char *const keys[] = { "name",	  "power",
					    "console",	  "boot",
					    "known_good", "boot_timeout_s",
					    "xen",	  "xen_cmdline" };
	struct kb_machine *mc;
	const struct kb_ynode *v;
	int ret;

	*out = NULL;
	if ((ret = kb_ycheck_type(&c->y, n, KB_Y_MAP, "a machine")) ||
	    (ret = kb_ycheck_keys(&c->y, n, "a machine", keys, 8)))
		return ret;
	mc = kb_matrix__keep(c->m, kb_calloc(1, sizeof(*mc)));
	mc->boot_timeout_s = 300;
	if (!(v = kb_ynode_get(n, "name")))
		return fail(c, n, "a machine needs 'name', such as box1");
	if ((ret = machine_name(c, v, &mc->name)))
		return ret;
	if (!(v = kb_ynode_get(n, "power")))
		return fail(c, n,
			    "machine %s needs 'power': its 'cycle' command, or 'off' and 'on'",
			    mc->name);
	if ((ret = power(c, v, mc)))
		return ret;
	if (!(v = kb_ynode_get(n, "console")))
		return fail(c, n,
			    "machine %s needs 'console': the command whose output is its serial line, such as [ipmitool, -H, bmc1, sol, activate]",
			    mc->name);
	if ((ret = argv_of(c, v, "machine.console", &mc->console)))
		return ret;
	if (!(v = kb_ynode_get(n, "boot")))
		return fail(c, n,
			    "machine %s needs 'boot': its method (kexec, grub-reboot or command) and what the method runs",
			    mc->name);
	if ((ret = boot(c, v, mc)))
		return ret;
	if ((v = kb_ynode_get(n, "known_good")) && (ret = known_good(c, v, mc)))
		return ret;
	if (!mc->has_known_good && mc->method == KB_MACHINE_COMMAND)
		return fail(c, n,
			    "machine %s needs 'known_good' with boot method command: the kernel its boot command is given to boot it back after a failed boot",
			    mc->name);
	if ((v = kb_ynode_get(n, "xen")) &&
	    (ret = kg_path(c, v, "machine.xen", &mc->xen)))
		return ret;
	if ((v = kb_ynode_get(n, "xen_cmdline")) &&
	    (ret = kb_ycheck_string(&c->y, v, "machine.xen_cmdline",
				    &mc->xen_cmdline)))
		return ret;
	if (mc->xen_cmdline && !mc->xen)
		return fail(c, kb_ynode_get(n, "xen_cmdline"),
			    "machine.xen_cmdline needs 'xen', the hypervisor it is the command line of");
	if ((v = kb_ynode_get(n, "boot_timeout_s")) &&
	    (ret = kb_matrix__uint(c, v, "machine.boot_timeout_s", 1, 86400,
				   &mc->boot_timeout_s)))
		return ret;
	*out = mc;
	return 0;
}

int kb_matrix_check_runnable_hosts(const struct kb_matrix *m,
				   struct kb_err *err)
{
	/* every boot method is run now (kexec, grub-reboot and command:
	 * lib/exec/machine.h); kept as the one place a verb asks */
	(void)m;
	(void)err;
	return 0;
}

const char *kb_machine_xen(const struct kb_machine *mc)
{
	return mc->xen;
}

const char *kb_machine_xen_cmdline(const struct kb_machine *mc)
{
	return mc->xen_cmdline;
}

const char *kb_machine_name(const struct kb_machine *mc)
{
	return mc->name;
}

const char *const *kb_machine_power(const struct kb_machine *mc,
				    enum kb_machine_power p)
{
	return (size_t)p < 3 ? mc->power[p] : NULL;
}

const char *const *kb_machine_console(const struct kb_machine *mc)
{
	return mc->console;
}

enum kb_machine_boot kb_machine_boot_method(const struct kb_machine *mc)
{
	return mc->method;
}

const char *const *kb_machine_boot_ssh(const struct kb_machine *mc)
{
	return mc->ssh;
}

const char *const *kb_machine_boot_command(const struct kb_machine *mc)
{
	return mc->command;
}

const struct kb_machine_kernel *
kb_machine_known_good(const struct kb_machine *mc)
{
	return mc->has_known_good ? &mc->known_good : NULL;
}

unsigned kb_machine_boot_timeout_s(const struct kb_machine *mc)
{
	return mc->boot_timeout_s;
}
