#include "domxml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlsave.h>
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
static void comment_text(struct kb_buf *b, const char *text)
{
	const char *p;

	kb_buf_addch(b, ' ');
	for (p = text; *p; p++) {
		kb_buf_addch(b, *p);
		if (*p == '-' && (p[1] == '-' || !p[1]))
			kb_buf_addch(b, ' ');
	}
	kb_buf_addch(b, ' ');
}

static void comment(struct w *w, const char *text)
{
	struct kb_buf b = KB_BUF_INIT;

	comment_text(&b, text);
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
		attr(w, "type", k->format && !k->block ? k->format : "raw");
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

/* ---- a stored domain booted again by hand (kbisect repro) ------------- */

void kb_domxml_moved_release(struct kb_domxml_moved *m)
{
	size_t i;

	if (!m)
		return;
	free(m->xml);
	free(m->type);
	free(m->cmdline);
	free(m->console_log);
	for (i = 0; i < m->noverlays; i++)
		free(m->overlays[i]);
	free(m->overlays);
	for (i = 0; i < m->nscratch; i++)
		free(m->scratch[i]);
	free(m->scratch);
	memset(m, 0, sizeof(*m));
}

/* The first element child of @n named @name, or NULL. */
static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    !xmlStrcmp(n->name, BAD_CAST name))
			return n;
	return NULL;
}

/* The text of @n, or NULL; the caller frees. */
static char *text_of(xmlNodePtr n)
{
	xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
	char *s = t ? kb_strdup((const char *)t) : NULL;

	xmlFree(t);
	return s;
}

/* Attribute @name of @n, or NULL; the caller frees. */
static char *attr_of(xmlNodePtr n, const char *name)
{
	xmlChar *v = n ? xmlGetProp(n, BAD_CAST name) : NULL;
	char *s = v ? kb_strdup((const char *)v) : NULL;

	xmlFree(v);
	return s;
}

/* Is attribute @name of @n @value? */
static int attr_is(xmlNodePtr n, const char *name, const char *value)
{
	char *v = attr_of(n, name);
	int is = v && !strcmp(v, value);

	free(v);
	return is;
}

/* Make @s the text of @n: a text node, escaped when written (setting the
 * content would read entity references in it). */
static void set_text(xmlNodePtr n, const char *s)
{
	xmlNodeSetContent(n, NULL);
	xmlNodeAddContent(n, BAD_CAST s);
}

/* The rewrite in progress. */
struct move {
	const struct kb_domxml_move *mv;
	char *bootdir;               /* the folder of the old <kernel> */
	struct kb_domxml_moved *out;
	int bad;                     /* a libxml2 call failed */
};

/* Where @path moves: DIR/NAME when it lies in the boot folder, else NULL
 * (caller frees). */
static char *moved_path(const struct move *m, const char *path)
{
	size_t n = m->bootdir ? strlen(m->bootdir) : 0;

	if (!path || !m->bootdir || strncmp(path, m->bootdir, n) ||
	    path[n] != '/' || !path[n + 1] || strchr(path + n + 1, '/'))
		return NULL;
	return kb_asprintf("%s/%s", m->mv->dir, path + n + 1);
}

static void set_attr(struct move *m, xmlNodePtr n, const char *name,
		     const char *value)
{
	if (!xmlSetProp(n, BAD_CAST name, BAD_CAST value))
		m->bad = 1;
}

/* A disk image of the boot folder moves to DIR, and is listed. */
static void move_disk(struct move *m, xmlNodePtr disk)
{
	xmlNodePtr src = child(disk, "source");
	char *file = attr_of(src, "file");
	char *to = attr_is(disk, "type", "file") ? moved_path(m, file) : NULL;
	struct kb_domxml_moved *o = m->out;

	if (to && attr_is(child(disk, "driver"), "type", "qcow2")) {
		set_attr(m, src, "file", to);
		o->overlays = kb_reallocarray(o->overlays, o->noverlays + 1,
					      sizeof(*o->overlays));
		o->overlays[o->noverlays++] = to;
	} else if (to) {
		set_attr(m, src, "file", to);
		o->scratch = kb_reallocarray(o->scratch, o->nscratch + 1,
					     sizeof(*o->scratch));
		o->scratch[o->nscratch++] = to;
	}
	free(file);
}

/* Whether serial (or console) @n is port 0: its target says so, or it
 * names no port. */
static int port0(xmlNodePtr n)
{
	xmlNodePtr t = child(n, "target");
	char *port = attr_of(t, "port");
	int zero = !port || !strcmp(port, "0");

	free(port);
	return zero;
}

/* Make serial or console @n a file at @path (append off), keeping its
 * target. */
static void to_file(struct move *m, xmlNodePtr n, const char *path)
{
	xmlNodePtr src = child(n, "source");

	if (!src) {
		src = xmlNewNode(NULL, BAD_CAST "source");
		if (!src || !(n->children ? xmlAddPrevSibling(n->children, src)
					  : xmlAddChild(n, src))) {
			xmlFreeNode(src);
			m->bad = 1;
			return;
		}
	}
	set_attr(m, n, "type", "file");
	set_attr(m, src, "path", path);
	if (!xmlHasProp(src, BAD_CAST "append"))
		set_attr(m, src, "append", "off");
}

/*
 * Serial port @n: a file of the boot folder moves to DIR; port 0 as a pty
 * becomes the file DIR/console.log.  Records the console log.
 */
static void move_serial(struct move *m, xmlNodePtr n)
{
	xmlNodePtr src = child(n, "source");
	char *path = attr_of(src, "path");
	char *to = NULL;

	if (attr_is(n, "type", "file")) {
		to = moved_path(m, path);
		if (to)
			set_attr(m, src, "path", to);
	} else if (attr_is(n, "type", "pty") && port0(n)) {
		to = kb_asprintf("%s/console.log", m->mv->dir);
		to_file(m, n, to);
	}
	if (port0(n) && !m->out->console_log && (to || path)) {
		m->out->console_log = to ? to : path;
		if (to)
			to = NULL;
		else
			path = NULL;
	}
	free(to);
	free(path);
}

/*
 * A console on serial port 0 follows that port: to its file (libvirt
 * wants them alike), or to DIR/console.log when there is no serial
 * element.  The Xen PV console (target type 'xen') stays a pty.
 */
static void move_console(struct move *m, xmlNodePtr n)
{
	xmlNodePtr t = child(n, "target");
	char *type = attr_of(t, "type");
	int serial = (!type || !strcmp(type, "serial")) && port0(n);

	free(type);
	if (!serial)
		return;
	if (!m->out->console_log)
		m->out->console_log = kb_asprintf("%s/console.log", m->mv->dir);
	to_file(m, n, m->out->console_log);
}

/* Drop kbisect's owner metadata; <metadata> goes too when nothing else is
 * left in it. */
static void drop_owner(xmlNodePtr root)
{
	xmlNodePtr meta = child(root, "metadata"), n, next;
	int others = 0;

	if (!meta)
		return;
	for (n = meta->children; n; n = next) {
		next = n->next;
		if (n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
		    !xmlStrcmp(n->ns->href, BAD_CAST KB_DOMXML_OWNER_NS)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		} else if (n->type == XML_ELEMENT_NODE) {
			others = 1;
		}
	}
	if (!others) {
		xmlUnlinkNode(meta);
		xmlFreeNode(meta);
	}
}

/* Write @doc without an XML declaration, indented, into *@out. */
static int save(xmlDocPtr doc, char **out)
{
	xmlBufferPtr xb = xmlBufferCreate();
	xmlSaveCtxtPtr sc = NULL;
	int ret = -1;

	if (xb && (sc = xmlSaveToBuffer(xb, "UTF-8",
					XML_SAVE_FORMAT | XML_SAVE_NO_DECL))) {
		if (xmlSaveDoc(sc, doc) >= 0 && xmlSaveClose(sc) >= 0) {
			*out = kb_strdup((const char *)xmlBufferContent(xb));
			ret = 0;
		}
		sc = NULL;
	}
	if (xb)
		xmlBufferFree(xb);
	return ret;
}

int kb_domxml_relocate(const char *xml, const struct kb_domxml_move *mv,
		       struct kb_domxml_moved *out, struct kb_err *err)
{
	struct move m = { .mv = mv, .bootdir = NULL, .out = out, .bad = 0 };
	xmlNodePtr root, os, kernel, n;
	xmlDocPtr doc = NULL;
	size_t len = strlen(xml);
	char *old = NULL, *to = NULL, *slash;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len > (1u << 24) ||
	    !(doc = xmlReadMemory(xml, (int)len, "domain.xml", NULL,
				  XML_PARSE_NONET | XML_PARSE_NOBLANKS |
					  XML_PARSE_NOERROR |
					  XML_PARSE_NOWARNING)) ||
	    !(root = xmlDocGetRootElement(doc)) ||
	    xmlStrcmp(root->name, BAD_CAST "domain")) {
		ret = kb_err_set(err, KB_EINPUT,
				 "the stored domain XML is not a <domain>");
		goto out;
	}
	os = child(root, "os");
	kernel = child(os, "kernel");
	old = text_of(kernel);
	if (!old || !*old) {
		ret = kb_err_set(err, KB_EINPUT,
				 "the stored domain XML boots no <os><kernel>");
		goto out;
	}
	if ((slash = strrchr(old, '/')) && slash > old)
		m.bootdir = kb_strndup(old, (size_t)(slash - old));
	out->type = attr_of(root, "type");
	out->cmdline = text_of(child(os, "cmdline"));
	if ((n = child(root, "name")))
		set_text(n, mv->name);
	drop_owner(root);
	to = kb_asprintf("%s/kernel", mv->dir);
	set_text(kernel, to);
	free(to);
	to = NULL;
	if ((n = child(os, "initrd"))) {
		to = kb_asprintf("%s/initrd", mv->dir);
		set_text(n, to);
		free(to);
		to = NULL;
	}
	for (n = child(root, "devices") ? child(root, "devices")->children
					: NULL;
	     n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!xmlStrcmp(n->name, BAD_CAST "disk"))
			move_disk(&m, n);
		else if (!xmlStrcmp(n->name, BAD_CAST "serial"))
			move_serial(&m, n);
	}
	for (n = child(root, "devices") ? child(root, "devices")->children
					: NULL;
	     n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    !xmlStrcmp(n->name, BAD_CAST "console"))
			move_console(&m, n);
	if (mv->comment) {
		struct kb_buf b = KB_BUF_INIT;
		xmlNodePtr c;

		comment_text(&b, mv->comment);
		c = xmlNewDocComment(doc, BAD_CAST b.buf);
		kb_buf_release(&b);
		if (!c || !xmlAddPrevSibling(root, c)) {
			xmlFreeNode(c);
			m.bad = 1;
		}
	}
	if (m.bad || save(doc, &out->xml)) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot write the domain XML of '%s'",
				 mv->name);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		kb_domxml_moved_release(out);
	free(m.bootdir);
	free(old);
	xmlFreeDoc(doc);
	return ret;
}
