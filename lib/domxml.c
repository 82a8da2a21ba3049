#include "domxml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlstring.h>
#include <libxml/xpath.h>
#include <libxml/xmlwriter.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "banned.h"

/* The writer and whether any call on it failed (checked once at the end). */
struct w {
	xmlTextWriterPtr x;
	int bad;
};

static void start(struct w *w, const char *name)
{
	if (xmlTextWriterStartElement(w->x, BAD_CAST name) < 0)
		w->bad = 1;
}

static void end(struct w *w)
{
	if (xmlTextWriterEndElement(w->x) < 0)
		w->bad = 1;
}

static void attr(struct w *w, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(w->x, BAD_CAST name,
					BAD_CAST value) < 0)
		w->bad = 1;
}

static void attrf(struct w *w, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void attrf(struct w *w, const char *name, const char *fmt, ...)
{
	char v[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	attr(w, name, v);
}

/* <name>text</name>, the text escaped by the writer. */
static void text_elem(struct w *w, const char *name, const char *text)
{
	if (xmlTextWriterWriteElement(w->x, BAD_CAST name, BAD_CAST text) < 0)
		w->bad = 1;
}

static void empty_elem(struct w *w, const char *name)
{
	start(w, name);
	end(w);
}

/* An XML comment cannot hold "--" nor end in "-": space them out. */
static void comment(struct w *w, const char *text)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *p;

	kb_buf_addch(&b, ' ');
	for (p = text; *p; p++) {
		kb_buf_addch(&b, *p);
		if (*p == '-' && (p[1] == '-' || !p[1]))
			kb_buf_addch(&b, ' ');
	}
	kb_buf_addch(&b, ' ');
	if (xmlTextWriterWriteComment(w->x, BAD_CAST b.buf) < 0)
		w->bad = 1;
	kb_buf_release(&b);
}

const char *kb_domxml_type(enum kb_hypervisor hv)
{
	/* libvirt's domain types are the matrix's hypervisor names */
	return kb_hypervisor_name(hv);
}

/* "DDDD:BB:SS.F" -> four numbers; -1 when malformed. */
static int parse_pci(const char *s, unsigned *dom, unsigned *bus,
		     unsigned *slot, unsigned *fn)
{
	char tail;

	if (strlen(s) != 12 ||
	    sscanf(s, "%4x:%2x:%2x.%1u%c", dom, bus, slot, fn, &tail) != 4 ||
	    *fn > 7 || *slot > 0x1f)
		return -1;
	return 0;
}

static int is_xen_pv(const struct kb_guest *g)
{
	return g->hypervisor == KB_HV_XEN && g->mode &&
	       (!strcmp(g->mode, "pv") || !strcmp(g->mode, "pvh"));
}

static void os(struct w *w, const struct kb_domxml *d)
{
	const struct kb_guest *g = d->guest;

	start(w, "os");
	start(w, "type");
	attr(w, "arch", "x86_64");
	if (g->hypervisor == KB_HV_XEN && !strcmp(g->mode, "pv")) {
		attr(w, "machine", "xenpv");
		if (xmlTextWriterWriteString(w->x, BAD_CAST "linux") < 0)
			w->bad = 1;
	} else if (g->hypervisor == KB_HV_XEN && !strcmp(g->mode, "pvh")) {
		attr(w, "machine", "xenpvh");
		if (xmlTextWriterWriteString(w->x, BAD_CAST "xenpvh") < 0)
			w->bad = 1;
	} else {
		if (g->hypervisor == KB_HV_XEN)
			attr(w, "machine", "xenfv");
		if (xmlTextWriterWriteString(w->x, BAD_CAST "hvm") < 0)
			w->bad = 1;
	}
	end(w);
	text_elem(w, "kernel", d->kernel);
	if (d->initrd)
		text_elem(w, "initrd", d->initrd);
	if (d->cmdline)
		text_elem(w, "cmdline", d->cmdline);
	end(w);
}

static void features(struct w *w, const struct kb_domxml *d)
{
	const struct kb_guest *g = d->guest;

	if (is_xen_pv(g)) {
		/* A PV guest with passthrough needs the host's memory map. */
		if (!strcmp(g->mode, "pv") && g->npassthrough) {
			start(w, "features");
			start(w, "xen");
			start(w, "e820_host");
			attr(w, "state", "on");
			end(w);
			end(w);
			end(w);
		}
		return;
	}
	/* ACPI lets the guest power itself off. */
	start(w, "features");
	empty_elem(w, "acpi");
	empty_elem(w, "apic");
	if (g->hypervisor == KB_HV_XEN)
		empty_elem(w, "pae");
	end(w);
}

static void disk(struct w *w, const struct kb_domxml *d, size_t i)
{
	const struct kb_domxml_disk *k = &d->disks[i];
	int xen = d->guest->hypervisor == KB_HV_XEN;
	char dev[16];

	if (i < 26)
		snprintf(dev, sizeof(dev), "%s%c", xen ? "xvd" : "vd",
			 (char)('a' + i));
	else
		snprintf(dev, sizeof(dev), "%s%c%c", xen ? "xvd" : "vd",
			 (char)('a' + i / 26 - 1), (char)('a' + i % 26));
	start(w, "disk");
	attr(w, "type", k->block ? "block" : "file");
	attr(w, "device", "disk");
	start(w, "driver");
	if (xen && k->block) {
		attr(w, "name", "phy");
	} else {
		attr(w, "name", "qemu");
		attr(w, "type", "raw");
		if (!xen) {
			attr(w, "cache", "none");
			attr(w, "io", "native");
		}
	}
	end(w);
	start(w, "source");
	attr(w, k->block ? "dev" : "file", k->path);
	end(w);
	start(w, "target");
	attr(w, "dev", dev);
	attr(w, "bus", xen ? "xen" : "virtio");
	end(w);
	end(w);
}

static void hostdev(struct w *w, const char *pci)
{
	unsigned dom, bus, slot, fn;

	(void)parse_pci(pci, &dom, &bus, &slot, &fn);
	start(w, "hostdev");
	attr(w, "mode", "subsystem");
	attr(w, "type", "pci");
	attr(w, "managed", "yes");
	start(w, "source");
	start(w, "address");
	attrf(w, "domain", "0x%04x", dom);
	attrf(w, "bus", "0x%02x", bus);
	attrf(w, "slot", "0x%02x", slot);
	attrf(w, "function", "0x%x", fn);
	end(w);
	end(w);
	end(w);
}

static void serial_file(struct w *w, const char *path, unsigned port)
{
	start(w, "serial");
	attr(w, "type", "file");
	start(w, "source");
	attr(w, "path", path);
	attr(w, "append", "off");
	end(w);
	start(w, "target");
	attrf(w, "port", "%u", port);
	end(w);
	end(w);
}

static void consoles(struct w *w, const struct kb_domxml *d)
{
	if (is_xen_pv(d->guest)) {
		/* The Xen PV console (hvc0), read with virDomainOpenConsole. */
		start(w, "console");
		attr(w, "type", "pty");
		start(w, "target");
		attr(w, "type", "xen");
		attr(w, "port", "0");
		end(w);
		end(w);
		return;
	}
	if (d->console_log) {
		serial_file(w, d->console_log, 0);
	} else {
		start(w, "serial");
		attr(w, "type", "pty");
		start(w, "target");
		attr(w, "port", "0");
		end(w);
		end(w);
	}
	if (d->results_log)
		serial_file(w, d->results_log, 1);
	start(w, "console");
	attr(w, "type", d->console_log ? "file" : "pty");
	if (d->console_log) {
		start(w, "source");
		attr(w, "path", d->console_log);
		attr(w, "append", "off");
		end(w);
	}
	start(w, "target");
	attr(w, "type", "serial");
	attr(w, "port", "0");
	end(w);
	end(w);
}

static int check(const struct kb_domxml *d, struct kb_err *err)
{
	const struct kb_guest *g = d->guest;
	unsigned a, b, c, e;
	size_t i;

	if (!d->name || !*d->name || !g || !d->kernel || !*d->kernel)
		return kb_err_set(err, KB_EINPUT,
				  "domain XML needs a name, a guest shape and a kernel");
	if (g->hypervisor == KB_HV_XEN &&
	    (!g->mode || (strcmp(g->mode, "pv") && strcmp(g->mode, "pvh") &&
			  strcmp(g->mode, "hvm"))))
		return kb_err_set(err, KB_EINPUT,
				  "invalid xen guest mode '%s': expected pv, pvh or hvm",
				  g->mode ? g->mode : "");
	if (g->hypervisor != KB_HV_XEN && g->mode && strcmp(g->mode, "hvm"))
		return kb_err_set(err, KB_EINPUT,
				  "guest mode '%s' needs hypervisor xen",
				  g->mode);
	if (!g->vcpus)
		return kb_err_set(err, KB_EINPUT, "a guest needs 1 or more vCPUs");
	if (g->npin && g->npin != g->vcpus)
		return kb_err_set(err, KB_EINPUT,
				  "the pin list has %zu CPUs for %u vCPUs",
				  g->npin, g->vcpus);
	for (i = 0; i < g->npassthrough; i++)
		if (parse_pci(g->passthrough[i], &a, &b, &c, &e))
			return kb_err_set(err, KB_EINPUT,
					  "invalid PCI address '%s': expected DDDD:BB:SS.F",
					  g->passthrough[i]);
	if (is_xen_pv(g) && (d->console_log || d->results_log))
		return kb_err_set(err, KB_EINPUT,
				  "a xen %s guest has no serial port to log to a file: use its console",
				  g->mode);
	return 0;
}

int kb_domxml_build(const struct kb_domxml *d, char **out,
		    struct kb_err *err)
{
	const struct kb_guest *g = d->guest;
	struct w w = { NULL, 0 };
	xmlBufferPtr xb = NULL;
	size_t i;
	int ret;

	*out = NULL;
	if ((ret = check(d, err)))
		return ret;
	xb = xmlBufferCreate();
	if (!xb || !(w.x = xmlNewTextWriterMemory(xb, 0))) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot make an XML writer for domain '%s'",
				 d->name);
		goto out;
	}
	if (xmlTextWriterSetIndent(w.x, 1) < 0 ||
	    xmlTextWriterSetIndentString(w.x, BAD_CAST "  ") < 0)
		w.bad = 1;
	if (d->comment)
		comment(&w, d->comment);
	start(&w, "domain");
	attr(&w, "type", kb_domxml_type(g->hypervisor));
	text_elem(&w, "name", d->name);
	if (d->owner) {
		start(&w, "metadata");
		if (xmlTextWriterStartElementNS(w.x, BAD_CAST "kbisect",
						BAD_CAST "owner",
						BAD_CAST KB_DOMXML_OWNER_NS) < 0 ||
		    xmlTextWriterWriteString(w.x, BAD_CAST d->owner) < 0 ||
		    xmlTextWriterEndElement(w.x) < 0)
			w.bad = 1;
		end(&w);
	}
	start(&w, "memory");
	attr(&w, "unit", "MiB");
	if (xmlTextWriterWriteFormatString(w.x, "%u", g->memory_mib) < 0)
		w.bad = 1;
	end(&w);
	start(&w, "vcpu");
	attr(&w, "placement", "static");
	if (xmlTextWriterWriteFormatString(w.x, "%u", g->vcpus) < 0)
		w.bad = 1;
	end(&w);
	if (g->npin) {
		start(&w, "cputune");
		for (i = 0; i < g->npin; i++) {
			start(&w, "vcpupin");
			attrf(&w, "vcpu", "%zu", i);
			attrf(&w, "cpuset", "%u", g->pin[i]);
			end(&w);
		}
		end(&w);
	}
	os(&w, d);
	features(&w, d);
	text_elem(&w, "on_poweroff", "destroy");
	text_elem(&w, "on_reboot", "destroy");
	text_elem(&w, "on_crash", "destroy");
	start(&w, "devices");
	for (i = 0; i < d->ndisks; i++)
		disk(&w, d, i);
	for (i = 0; i < g->npassthrough; i++)
		hostdev(&w, g->passthrough[i]);
	consoles(&w, d);
	if (g->hypervisor != KB_HV_XEN) {
		start(&w, "memballoon");
		attr(&w, "model", "none");
		end(&w);
	}
	end(&w); /* devices */
	end(&w); /* domain */
	if (xmlTextWriterEndDocument(w.x) < 0)
		w.bad = 1;
	xmlFreeTextWriter(w.x); /* flushes into xb */
	w.x = NULL;
	if (w.bad) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot write the XML of domain '%s'",
				 d->name);
		goto out;
	}
	*out = kb_strdup((const char *)xmlBufferContent(xb));
	ret = 0;
out:
	if (w.x)
		xmlFreeTextWriter(w.x);
	if (xb)
		xmlBufferFree(xb);
	return ret;
}

int kb_domxml_host_cpu(const char *caps, char **model, struct kb_err *err)
{
	xmlDocPtr doc = NULL;
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr res = NULL;
	xmlChar *text = NULL;
	size_t len = strlen(caps);
	int ret;

	*model = NULL;
	if (len > (1u << 24) ||
	    !(doc = xmlReadMemory(caps, (int)len, "capabilities.xml", NULL,
				  XML_PARSE_NONET | XML_PARSE_NOERROR |
					  XML_PARSE_NOWARNING))) {
		ret = kb_err_set(err, KB_EFAIL,
				 "the host capabilities are not XML");
		goto out;
	}
	if (!(ctx = xmlXPathNewContext(doc)) ||
	    !(res = xmlXPathEvalExpression(
		      BAD_CAST "/capabilities/host/cpu/model", ctx))) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot search the host capabilities");
		goto out;
	}
	if (!res->nodesetval || res->nodesetval->nodeNr < 1 ||
	    !(text = xmlNodeGetContent(res->nodesetval->nodeTab[0])) ||
	    !*text) {
		ret = kb_err_set(err, KB_ENOTFOUND,
				 "the host capabilities name no CPU model");
		goto out;
	}
	*model = kb_strdup((const char *)text);
	ret = 0;
out:
	xmlFree(text);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return ret;
}
