#ifndef KB_DOMXML_H
#define KB_DOMXML_H

#include <stddef.h>

#include "matrix.h"

struct kb_err;

/*
 * Domain XML: the libvirt description of one guest, made from a variant's
 * guest shape (struct kb_guest), the kernel and initramfs to boot
 * directly, the kernel command line, the disks the workload uses and
 * where the console goes.  This is the only module that includes libxml2;
 * every value goes through its writer and is escaped there.
 *
 * The shapes (docs/guests.md):
 *   xen pv   <domain type='xen'>, <type machine='xenpv'>linux</type>,
 *            console on the Xen PV console (pty)
 *   xen pvh  <type machine='xenpvh'>xenpvh</type>, Xen console (pty)
 *   xen hvm  <type machine='xenfv'>hvm</type>, serial port 0 (pty)
 *   kvm/qemu <domain type='kvm'|'qemu'>, <type>hvm</type>, virtio disks,
 *            serial port 0 as the console (pty, or a file)
 * All: direct kernel boot, <vcpu>, <cputune><vcpupin> from the pin list,
 * <memory unit='MiB'>, a managed PCI <hostdev> per passthrough address,
 * and on_poweroff/on_reboot/on_crash "destroy" so that a guest that stops
 * is gone.
 */

/* A disk for the workload: an image file or a host block device. */
struct kb_domxml_disk {
	const char *path;
	int block;          /* a block device (<disk type='block'>), else a
			     * file */
	const char *format; /* a file's format: NULL "raw", or "qcow2" (a
			     * copy-on-write overlay) */
};

struct kb_domxml {
	const char *name;            /* domain name (any text) */
	const struct kb_guest *guest;
	const char *kernel;          /* kernel image path */
	const char *initrd;          /* initramfs path, or NULL */
	const char *cmdline;         /* kernel command line, or NULL */
	size_t ndisks;
	const struct kb_domxml_disk *disks; /* vda, vdb, ... (xen: xvda...) */
	/*
	 * kvm/qemu and xen hvm: write serial port 0 (the console) to this
	 * file instead of a pty that virDomainOpenConsole reads.  NULL: pty.
	 */
	const char *console_log;
	/* kvm/qemu and xen hvm: a second serial port (port 1) logged to this
	 * file, a channel without kernel messages; NULL: none. */
	const char *results_log;
	const char *comment;         /* an XML comment before <domain>, or NULL */
	/*
	 * Who started the guest (kb_guest_owner_self()), written as
	 * <metadata><kbisect:owner xmlns:kbisect=KB_DOMXML_OWNER_NS>; orphan
	 * clean-up spares the guests of a live owner.  NULL: no metadata.
	 */
	const char *owner;
};
#define KB_DOMXML_INIT { .guest = NULL, .ndisks = 0, .owner = NULL }

/* The XML namespace of kbisect's domain metadata. */
#define KB_DOMXML_OWNER_NS "https://kbisect.invalid/xmlns/owner/1"

/*
 * Write the domain XML for @d into *@out (NUL-terminated, the caller
 * frees).  Returns 0, KB_EINPUT when @d asks for something the guest
 * cannot have (a file console on a Xen PV/PVH guest, a pin list that does
 * not match the vCPUs, a malformed PCI address), or KB_EFAIL when libxml2
 * fails.
 */
int kb_domxml_build(const struct kb_domxml *d, char **out,
		    struct kb_err *err);

/*
 * The host CPU model in libvirt capabilities XML @caps
 * (/capabilities/host/cpu/model): 0 with a string the caller frees in
 * *@model, KB_ENOTFOUND when the capabilities name none, or KB_EFAIL
 * when @caps is not XML.
 */
int kb_domxml_host_cpu(const char *caps, char **model, struct kb_err *err);

/* The libvirt domain type for @hv: "xen", "kvm" or "qemu". */
const char *kb_domxml_type(enum kb_hypervisor hv);

/* ---- a stored domain booted again by hand (`kbisect repro`) ---------- */

/* How kb_domxml_relocate() rewrites a domain. */
struct kb_domxml_move {
	const char *name;    /* the new domain name */
	const char *dir;     /* the folder its files move to (absolute) */
	const char *comment; /* an XML comment before <domain>, or NULL */
};

/* What it made of it. */
struct kb_domxml_moved {
	char *xml;         /* the rewritten domain XML */
	char *type;        /* <domain type>: "qemu", "kvm", "xen" */
	char *cmdline;     /* <os><cmdline>, or NULL */
	char *console_log; /* the file serial port 0 (the console) logs to,
			    * DIR/console.log; NULL: a Xen PV or PVH
			    * console, a pty only `virsh console` reads */
	size_t nscratch;
	char **scratch;    /* the disk images of the boot folder, now
			    * DIR/NAME: made empty before each boot */
	size_t noverlays;
	char **overlays;   /* its qcow2 disks (guest.image's root disk
			    * overlay), now DIR/NAME: made again over the
			    * image before each boot */
};
void kb_domxml_moved_release(struct kb_domxml_moved *m);

/*
 * Rewrite domain XML @xml, as a boot created its guest (a boot folder
 * holding "kernel", "initrd", the console log and a scratch disk, the
 * folder of <os><kernel>), so that it boots from @mv->dir: the domain is
 * renamed @mv->name and loses kbisect's owner metadata (no kbisect run
 * takes it for its own); <kernel> and <initrd> become DIR/kernel and
 * DIR/initrd; every disk image, serial and console file of the boot
 * folder moves to DIR under its name; a pty serial port 0 and its
 * console (kvm, Xen HVM) log to the file DIR/console.log instead, so
 * that a script can read it.  Everything else stays as it was: the
 * guest shape, the command line, disks and devices outside the boot
 * folder.  Returns 0 with *@out filled (caller releases), KB_EINPUT when
 * @xml is not a domain with a kernel, or KB_EFAIL when libxml2 fails.
 */
int kb_domxml_relocate(const char *xml, const struct kb_domxml_move *mv,
		       struct kb_domxml_moved *out, struct kb_err *err);

#endif
