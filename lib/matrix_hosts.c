/*
 * What a host's libvirt URI makes this machine do (lib/matrix.h): which
 * transport reaches it, and which URIs a matrix may not name unless it
 * is trusted.  libvirt's remote driver runs programs and reads files
 * that a URI names (libvirt's docs/uri.rst, "Transport configuration"):
 * the ext transport runs ?command=, ssh runs ?command= as its ssh client
 * and ?netcat= on the far side, and ?keyfile=, ?pkipath=, ?known_hosts=,
 * ?socket= name this machine's key files, certificates and sockets;
 * libvirt passes any parameter it does not know to the driver.  A matrix
 * is input (another user's submission to kbisectd, a file from a bug
 * report), so only the parameters that name nothing here are accepted.
 */
#include "matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* The parameters that name no program, file or socket (libvirt's
 * uri.rst): which daemon (mode), which proxy binary libvirt's own
 * (proxy), ssh's authentication order, GnuTLS's priorities, no tty. */
static const char *const safe_params[] = { "mode", "proxy", "sshauth",
					   "tls_priority", "no_tty" };

/* What each refused parameter would do here. */
static const struct {
	const char *name, *why;
} refused_params[] = {
	{ "command", "names a program that this machine runs" },
	{ "netcat", "names a program that the far side runs as this machine's ssh user" },
	{ "socket", "names a socket that this machine connects to" },
	{ "keyfile", "names a private key file of this machine" },
	{ "pkipath", "names this machine's certificate folder" },
	{ "known_hosts", "names a file of this machine that libssh reads and writes" },
	{ "known_hosts_verify", "turns off the check of the host's key" },
	{ "no_verify", "turns off the check of the host's certificate or key" },
	{ "name", "chooses what the far side's libvirtd opens" },
};

int kb_host_trusted(void)
{
	const char *e = getenv("KBISECT_TRUST_MATRIX");

	return e && !strcmp(e, "1");
}

static int hex(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* @n bytes at @s, %XX escapes decoded (libvirt unescapes a parameter's
 * name before it looks at it), into @out of @size. */
static void unescape(const char *s, size_t n, char *out, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < size; i++) {
		if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 &&
		    hex(s[i + 2]) >= 0) {
			out[o++] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

void kb_host_route(const char *uri, struct kb_host_route *r)
{
	const char *colon = strstr(uri, "://"), *plus, *h, *end;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!colon)
		return;
	plus = memchr(uri, '+', (size_t)(colon - uri));
	h = colon + 3;
	if (*h && *h != '/') {
		const char *at;

		end = h + strcspn(h, "/?#");
		at = memchr(h, '@', (size_t)(end - h));
		if (at)
			h = at + 1;
		n = (size_t)(end - h);
		if (*h == '[') /* [::1]:16509 */
			n = strcspn(h, "]") + (h[strcspn(h, "]")] == ']');
		else
			n = strcspn(h, ":/?#");
		if (n >= sizeof(r->host))
			n = sizeof(r->host) - 1;
		memcpy(r->host, h, n);
	}
	if (plus) {
		n = (size_t)(colon - plus - 1);
		if (n >= sizeof(r->transport))
			n = sizeof(r->transport) - 1;
		memcpy(r->transport, plus + 1, n);
	} else {
		/* libvirt's default: the local socket, else TLS */
		snprintf(r->transport, sizeof(r->transport), "%s",
			 r->host[0] ? "tls" : "unix");
	}
}

const char *kb_host_uri_refused(const char *uri, char *buf, size_t size)
{
	struct kb_host_route r;
	const char *q = strchr(uri, '?'), *p;
	size_t i;

	kb_host_route(uri, &r);
	if (!strcmp(r.transport, "ext")) {
		snprintf(buf, size,
			 "the ext transport runs a program on this machine (its ?command=)");
		return buf;
	}
	for (p = q ? q + 1 : NULL; p && *p;) {
		size_t len = strcspn(p, "&;#"), klen = strcspn(p, "=&;#");
		char key[64];
		int safe = 0;

		if (klen > len)
			klen = len;
		unescape(p, klen, key, sizeof(key));
		for (i = 0; i < sizeof(safe_params) / sizeof(*safe_params); i++)
			if (!strcmp(key, safe_params[i]))
				safe = 1;
		if (!safe && klen) {
			const char *why = "is not one kbisect knows to name nothing on this machine (libvirt passes it on to the driver)";

			for (i = 0; i < sizeof(refused_params) /
					       sizeof(*refused_params);
			     i++)
				if (!strcmp(key, refused_params[i].name))
					why = refused_params[i].why;
			snprintf(buf, size, "its parameter '%s' %s", key, why);
			return buf;
		}
		p += len;
		if (*p == '#')
			break;
		if (*p)
			p++;
	}
	return NULL;
}
