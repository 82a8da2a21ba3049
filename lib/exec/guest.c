#define _DEFAULT_SOURCE /* getloadavg */
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "buf.h"
#include "console.h"
#include "domxml.h"
#include "err.h"
#include "fsutil.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "monitor.h"
#include "guest_int.h"
#include "banned.h"

struct kb_guest_dom {
	virDomainPtr dom;
	char *name;
};

/* libvirt prints every error to stderr unless told otherwise. */
static void quiet(void *arg, virErrorPtr e)
{
	(void)arg;
	(void)e;
}

static int event_impl_ok;

static void setup_once(void)
{
	virSetErrorFunc(NULL, quiet);
	/* libvirt writes to its sockets with write(): on a connection the
	 * daemon has closed, SIGPIPE would kill the process instead of
	 * failing the call (libvirt asks its users to ignore it). */
	signal(SIGPIPE, SIG_IGN);
	/* The console stream's callbacks need an event loop, and it must be
	 * registered before any connection is opened. */
	event_impl_ok = virEventRegisterDefaultImpl() == 0;
}

static void setup(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, setup_once);
}

/* Set @err from libvirt's last error: "WHAT: libvirt's message". */
int kb_guest__lverr(struct kb_err *err, const char *what, const char *subject)
{
	const char *msg = virGetLastErrorMessage();

	return kb_err_set(err, KB_EFAIL, "%s '%s': %s", what, subject,
			  msg && *msg ? msg : "unknown libvirt error");
}

int kb_guest_connect(const char *uri, struct kb_guest_conn **out,
		     struct kb_err *err)
{
	struct kb_guest_conn *c;
	virConnectPtr conn;
	char whybuf[256];
	const char *why;

	*out = NULL;
	/* whatever named the URI (a matrix, the queue, a stored
	 * experiment): it must not run a program or use a key file here */
	if (!kb_host_trusted() &&
	    (why = kb_host_uri_refused(uri, whybuf, sizeof(whybuf))))
		return kb_err_set(err, KB_EINPUT,
				  "not connecting to libvirt at '%s': %s (KBISECT_TRUST_MATRIX=1 trusts it, docs/matrix.md \"Hosts\")",
				  uri, why);
	setup();
	conn = virConnectOpen(uri);
	if (!conn)
		return kb_guest__lverr(err, "cannot connect to libvirt at", uri);
	c = kb_calloc(1, sizeof(*c));
	c->conn = conn;
	c->uri = kb_strdup(uri);
	*out = c;
	return 0;
}

void kb_guest_disconnect(struct kb_guest_conn *c)
{
	if (!c)
		return;
	if (c->pool)
		virStoragePoolFree(c->pool);
	free(c->pool_name);
	virConnectClose(c->conn);
	free(c->uri);
	free(c);
}

const char *kb_guest_uri(const struct kb_guest_conn *c)
{
	return c->uri;
}

static char *version_text(unsigned long v)
{
	return kb_asprintf("%lu.%lu.%lu", v / 1000000, v / 1000 % 1000,
			   v % 1000);
}

/* "model name" from /proc/cpuinfo, or NULL. */
static char *cpuinfo_model(void)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	char *line, *colon, *nl, *model = NULL;

	if (kb_buf_read_file(&b, "/proc/cpuinfo", 4u << 20, &err))
		goto out;
	line = strstr(b.buf, "model name");
	if (!line)
		goto out;
	colon = strchr(line, ':');
	nl = strchr(line, '\n');
	if (!colon || (nl && nl < colon))
		goto out;
	colon++;
	while (*colon == ' ' || *colon == '\t')
		colon++;
	model = nl ? kb_strndup(colon, (size_t)(nl - colon))
		   : kb_strdup(colon);
out:
	kb_buf_release(&b);
	return model;
}

static int environment(struct kb_guest_conn *c, char **json,
		       struct kb_err *err);

int kb_guest_environment(struct kb_guest_conn *c, char **json,
			 struct kb_err *err)
{
	int ret;

	*json = NULL;
	if ((ret = kb_guest__revive(c, err)))
		return ret;
	ret = environment(c, json, err);
	if (ret && kb_guest__again(c, err))
		ret = environment(c, json, err);
	return ret;
}

static int environment(struct kb_guest_conn *c, char **json,
		       struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = NULL;
	struct kb_err ignore = KB_ERR_INIT;
	unsigned long hv = 0, lib = 0;
	const char *type;
	char *caps = NULL, *cpu = NULL, *hvv = NULL, *libv = NULL;
	struct utsname u;
	int ret;

	*json = NULL;
	type = virConnectGetType(c->conn);
	if (!type) {
		ret = kb_guest__lverr(err, "cannot get the hypervisor type of", c->uri);
		goto out;
	}
	if (virConnectGetVersion(c->conn, &hv) < 0 ||
	    virConnectGetLibVersion(c->conn, &lib) < 0) {
		ret = kb_guest__lverr(err, "cannot get the versions of", c->uri);
		goto out;
	}
	hvv = version_text(hv);
	libv = version_text(lib);
	caps = virConnectGetCapabilities(c->conn);
	if (!caps || kb_domxml_host_cpu(caps, &cpu, &ignore))
		cpu = cpuinfo_model();
	j = kb_json_new(&b, 0);
	kb_json_object_begin(j);
	kb_json_kv_string(j, "uri", c->uri);
	kb_json_kv_string(j, "hypervisor", type);
	kb_json_kv_string(j, "hypervisor_version", hvv);
	kb_json_kv_string(j, "libvirt_version", libv);
	kb_json_key(j, "host_kernel");
	if (uname(&u) == 0) {
		char *k = kb_asprintf("%s %s %s", u.sysname, u.release,
				      u.machine);

		kb_json_string(j, k);
		free(k);
	} else {
		kb_json_null(j);
	}
	kb_json_kv_string(j, "host_cpu", cpu);
	kb_json_object_end(j);
	if (kb_json_finish(j)) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot write the environment of '%s'",
				 c->uri);
		goto out;
	}
	/* kb_json_finish() appends a newline: a stored value needs none. */
	if (b.len && b.buf[b.len - 1] == '\n')
		b.buf[--b.len] = '\0';
	*json = kb_buf_detach(&b);
	ret = 0;
out:
	kb_json_free(j);
	kb_buf_release(&b);
	free(caps);
	free(cpu);
	free(hvv);
	free(libv);
	return ret;
}

char *kb_guest_name(const char *tag, long long exp, unsigned variant,
		    unsigned boot)
{
	if (tag && *tag)
		return kb_asprintf(KB_GUEST_PREFIX "%s-%lld-%u-%u", tag, exp,
				   variant, boot);
	return kb_asprintf(KB_GUEST_PREFIX "%lld-%u-%u", exp, variant, boot);
}

/* Whether @name is the old form "kbisect-EXP-VARIANT-BOOT" (three
 * numbers, no database tag). */
static int untagged_name(const char *name)
{
	const char *p = name + strlen(KB_GUEST_PREFIX);
	unsigned parts = 0;

	while (*p) {
		size_t n = strspn(p, "0123456789");

		if (!n)
			return 0;
		parts++;
		p += n;
		if (*p == '-' && p[1])
			p++;
		else if (*p)
			return 0;
	}
	return parts == 3;
}

/* @c on a new connection, its pool looked up there. */
static int reopen(struct kb_guest_conn *c, struct kb_err *err)
{
	virConnectPtr conn;
	virStoragePoolPtr pool;

	conn = virConnectOpen(c->uri);
	if (!conn)
		return kb_guest__lverr(err, "cannot reconnect to libvirt at", c->uri);
	/* the pool's handle was the old connection's */
	if (c->pool) {
		pool = virStoragePoolLookupByName(conn, c->pool_name);
		if (!pool) {
			virConnectClose(conn);
			return kb_guest__lverr(err, "cannot find storage pool",
					       c->pool_name);
		}
		virStoragePoolFree(c->pool);
		c->pool = pool;
	}
	virConnectClose(c->conn);
	c->conn = conn;
	return 0;
}

int kb_guest__revive(struct kb_guest_conn *c, struct kb_err *err)
{
	unsigned long v;

	if (virConnectGetLibVersion(c->conn, &v) == 0)
		return 0;
	return reopen(c, err);
}

int kb_guest__again(struct kb_guest_conn *c, struct kb_err *err)
{
	/* a remote connection that saw its socket close says so; a local
	 * driver's (test:///) is always alive */
	if (virConnectIsAlive(c->conn) != 0)
		return 0;
	kb_err_clear(err);
	return reopen(c, err) == 0;
}

/* The name of kbisect's domain XML @xml (its first <name>, which
 * kb_domxml_build() writes first) when it is of kbisect's form
 * (KB_GUEST_PREFIX, letters, digits and '-' only), into @buf; else 0. */
static int own_name(const char *xml, char *buf, size_t size)
{
	const char *p = strstr(xml, "<name>"), *end;
	size_t n;

	if (!p)
		return 0;
	p += strlen("<name>");
	end = strstr(p, "</name>");
	n = end ? (size_t)(end - p) : 0;
	if (!n || n >= size || strncmp(p, KB_GUEST_PREFIX, strlen(KB_GUEST_PREFIX)) ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return 0;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 1;
}

/* A handle on @dom (taken over) named @name, for kb_guest_destroy(). */
static struct kb_guest_dom *dom_handle(virDomainPtr dom, const char *name)
{
	struct kb_guest_dom *d = kb_calloc(1, sizeof(*d));

	d->dom = dom;
	d->name = kb_strdup(name ? name : "?");
	return d;
}

/* Whether a running domain of @xml's own kbisect name was there and is
 * now destroyed: what is left of an earlier attempt at the same boot. */
static int destroyed_namesake(struct kb_guest_conn *c, const char *xml)
{
	struct kb_err ignored = KB_ERR_INIT;
	virDomainPtr dom;
	char name[256];

	if (!own_name(xml, name, sizeof(name)) ||
	    !(dom = virDomainLookupByName(c->conn, name))) {
		virResetLastError();
		return 0;
	}
	return kb_guest_destroy(dom_handle(dom, name), &ignored) == 0;
}

int kb_guest_start(struct kb_guest_conn *c, const char *xml, int paused,
		   struct kb_guest_dom **out, struct kb_err *err)
{
	virDomainPtr dom;
	int ret;

	*out = NULL;
	if ((ret = kb_guest__revive(c, err)))
		return ret;
	dom = virDomainCreateXML(c->conn, xml,
				 paused ? VIR_DOMAIN_START_PAUSED : 0);
	if (!dom) {
		kb_guest__lverr(err, "cannot start a guest on", c->uri);
		if (destroyed_namesake(c, xml))
			kb_err_clear(err);
		else if (!kb_guest__again(c, err))
			return KB_EFAIL;
		dom = virDomainCreateXML(c->conn, xml,
					 paused ? VIR_DOMAIN_START_PAUSED : 0);
	}
	if (!dom)
		return kb_guest__lverr(err, "cannot start a guest on", c->uri);
	*out = dom_handle(dom, virDomainGetName(dom));
	return 0;
}

char *kb_guest_xml(struct kb_guest_dom *d, struct kb_err *err)
{
	char *x = virDomainGetXMLDesc(d->dom, 0), *copy;

	if (!x) {
		kb_guest__lverr(err, "cannot read the XML of guest", d->name);
		return NULL;
	}
	copy = kb_strdup(x);
	free(x);
	return copy;
}

/* Whether the last libvirt error says the domain does not exist. */
static int gone_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && (e->code == VIR_ERR_NO_DOMAIN ||
		     e->code == VIR_ERR_OPERATION_INVALID);
}

int kb_guest_active(struct kb_guest_dom *d, struct kb_err *err)
{
	int state = 0, reason = 0;

	if (virDomainGetState(d->dom, &state, &reason, 0) < 0) {
		if (gone_error())
			return 0;
		return kb_guest__lverr(err, "cannot get the state of guest", d->name);
	}
	return state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_PAUSED ||
	       state == VIR_DOMAIN_BLOCKED || state == VIR_DOMAIN_PMSUSPENDED;
}

/* Whether the last libvirt error says another job holds the domain. */
static int busy_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->code == VIR_ERR_OPERATION_TIMEOUT;
}

int kb_guest_destroy(struct kb_guest_dom *d, struct kb_err *err)
{
	double until = kb_monotime() + KB_GUEST_DESTROY_WAIT_S;
	int ret = 0;

	if (!d)
		return 0;
	/* A guest that powered itself off is being taken down by the
	 * driver, which holds the domain's job meanwhile: libxl resets
	 * every passed-through device, more than the 30 s a destroy waits
	 * for the job with 4 HBAs under the Xen lab.  Ask again until the
	 * domain is gone, so that a boot's result is kept and its retry
	 * never finds the name still taken. */
	while (virDomainDestroy(d->dom) < 0 && !gone_error()) {
		if (!busy_error() || kb_monotime() >= until) {
			ret = kb_guest__lverr(err, "cannot destroy guest",
					      d->name);
			break;
		}
		sleep(1);
	}
	virDomainFree(d->dom);
	free(d->name);
	free(d);
	return ret;
}

/* ---- what the host saw of a boot ---------------------------------------- */

int kb_guest_uri_local(const char *uri)
{
	const char *h = uri ? strstr(uri, "://") : NULL, *end, *at;
	char name[256], me[256];
	size_t len;

	if (!h)
		return 0; /* an alias or a bare scheme: cannot tell */
	h += 3;
	end = h + strcspn(h, "/?#");
	at = memchr(h, '@', (size_t)(end - h));
	if (at)
		h = at + 1;
	if (*h == '[') { /* [::1]:port */
		const char *close = memchr(h, ']', (size_t)(end - h));

		len = close ? (size_t)(close + 1 - h) : (size_t)(end - h);
	} else {
		const char *colon = memchr(h, ':', (size_t)(end - h));

		len = colon ? (size_t)(colon - h) : (size_t)(end - h);
	}
	if (!len)
		return 1;
	if (len >= sizeof(name))
		return 0;
	memcpy(name, h, len);
	name[len] = '\0';
	kb_host_name(me, sizeof(me));
	return !strcmp(name, "localhost") || !strcmp(name, "127.0.0.1") ||
	       !strcmp(name, "[::1]") || !strcmp(name, me);
}

/* The host's CPU totals in seconds over all CPUs: 0, or -1 when the
 * driver has no user, kernel and idle times (iowait may be missing). */
static int node_cpu(virConnectPtr conn, double *busy, double *total)
{
	virNodeCPUStatsPtr p = NULL;
	double user = -1, kernel = -1, idle = -1, iowait = 0;
	int n = 0, i, ret = -1;

	if (virNodeGetCPUStats(conn, VIR_NODE_CPU_STATS_ALL_CPUS, NULL, &n,
			       0) < 0 || n <= 0 || n > 64)
		goto out;
	p = kb_calloc((size_t)n, sizeof(*p));
	if (virNodeGetCPUStats(conn, VIR_NODE_CPU_STATS_ALL_CPUS, p, &n, 0) <
	    0)
		goto out;
	for (i = 0; i < n; i++) {
		double v = (double)p[i].value / 1e9;

		if (!strcmp(p[i].field, VIR_NODE_CPU_STATS_USER))
			user = v;
		else if (!strcmp(p[i].field, VIR_NODE_CPU_STATS_KERNEL))
			kernel = v;
		else if (!strcmp(p[i].field, VIR_NODE_CPU_STATS_IDLE))
			idle = v;
		else if (!strcmp(p[i].field, VIR_NODE_CPU_STATS_IOWAIT))
			iowait = v;
	}
	if (user < 0 || kernel < 0 || idle < 0)
		goto out;
	*busy = user + kernel;
	*total = user + kernel + idle + iowait;
	ret = 0;
out:
	free(p);
	if (ret)
		virResetLastError();
	return ret;
}

/* The domain's CPU time in seconds, or -1 (gone, or no such figure). */
static double dom_cpu(virDomainPtr dom)
{
	virDomainInfo info;

	if (virDomainGetInfo(dom, &info) < 0) {
		virResetLastError();
		return -1;
	}
	return (double)info.cpuTime / 1e9;
}

/* What is read of a boot as it goes, turned into kb_guest_usage at its
 * end (usage_end()). */
struct usage_run {
	int host0_ok, load0_ok, local;
	double busy0, total0, load0;
	double cpu_first, cpu_last; /* -1 until read */
	double t_cpu;               /* when cpu_last was read */
};

static void usage_start(struct kb_guest_conn *c, struct usage_run *u)
{
	struct kb_err ignore = KB_ERR_INIT;

	/* a connection libvirtd dropped during a build would lose the first
	 * reading: kb_guest_start() revives it anyway, and says so if not */
	(void)kb_guest__revive(c, &ignore);
	memset(u, 0, sizeof(*u));
	u->cpu_first = u->cpu_last = -1;
	u->host0_ok = node_cpu(c->conn, &u->busy0, &u->total0) == 0;
	u->local = kb_guest_uri_local(c->uri);
	u->load0_ok = u->local && getloadavg(&u->load0, 1) == 1;
}

static void usage_dom(struct usage_run *u, struct kb_guest_dom *d, double t)
{
	double cpu = dom_cpu(d->dom);

	u->t_cpu = t;
	if (cpu < 0)
		return;
	if (u->cpu_first < 0)
		u->cpu_first = cpu;
	/* the most seen: a guest on its way out may read less (its
	 * process gone, its cgroup emptied) */
	if (cpu > u->cpu_last)
		u->cpu_last = cpu;
}

static void usage_end(struct kb_guest_conn *c, const struct usage_run *u,
		      struct kb_guest_usage *out)
{
	double busy, total;

	memset(out, 0, sizeof(*out));
	if (u->host0_ok && node_cpu(c->conn, &busy, &total) == 0 &&
	    total - u->total0 > 0 && busy >= u->busy0) {
		out->host_ok = 1;
		out->host_busy_s = busy - u->busy0;
		out->host_total_s = total - u->total0;
	}
	if (u->cpu_first >= 0 && u->cpu_last >= u->cpu_first) {
		out->guest_ok = 1;
		out->guest_cpu_s = u->cpu_last - u->cpu_first;
	}
	if (u->load0_ok && getloadavg(&out->load_end, 1) == 1) {
		out->load_ok = 1;
		out->load_start = u->load0;
	}
}

static void put_monitor(struct kb_monitor_value *m, const char *name,
			double value)
{
	memset(m, 0, sizeof(*m));
	m->run = 0;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
}

size_t kb_guest_usage_monitors(const struct kb_guest_usage *u,
			       struct kb_monitor_value **v, size_t *n)
{
	struct kb_monitor_value add[5];
	size_t k = 0;

	/* by name, as a run's monitors are (kb_monitor_parse_buffer()) */
	if (u->host_ok)
		put_monitor(&add[k++], "host.cpu_busy_pct",
			    100 * u->host_busy_s / u->host_total_s);
	if (u->guest_ok)
		put_monitor(&add[k++], "host.guest_cpu_s", u->guest_cpu_s);
	if (u->load_ok) {
		put_monitor(&add[k++], "host.loadavg_end", u->load_end);
		put_monitor(&add[k++], "host.loadavg_start", u->load_start);
	}
	if (u->host_ok && u->guest_ok) {
		double other = u->host_busy_s - u->guest_cpu_s;

		put_monitor(&add[k++], "host.other_busy_pct",
			    other > 0 ? 100 * other / u->host_total_s : 0);
	}
	if (!k)
		return 0;
	/* run 0 goes before the runs */
	*v = kb_reallocarray(*v, *n + k, sizeof(**v));
	memmove(*v + k, *v, *n * sizeof(**v));
	memcpy(*v, add, k * sizeof(*add));
	*n += k;
	return k;
}

char *kb_guest_owner_self(void)
{
	char host[256];

	kb_host_name(host, sizeof(host));
	return kb_asprintf("host=%s pid=%ld start=%llu", host, (long)getpid(),
			   kb_proc_start_ticks((long)getpid()));
}

int kb_guest_owner_alive(const char *text)
{
	struct kb_proc_id id;
	const char *h = strstr(text, "host="), *p = strstr(text, "pid="),
		   *t = strstr(text, "start=");

	if (!h || !p || !t)
		return 0;
	memset(&id, 0, sizeof(id));
	h += 5;
	snprintf(id.host, sizeof(id.host), "%.*s", (int)strcspn(h, " <"), h);
	id.pid = strtol(p + 4, NULL, 10);
	id.start = strtoull(t + 6, NULL, 10);
	return id.start && kb_proc_alive(&id);
}

/* Whether @dom, named @name, is an orphan: its recorded owner is gone,
 * or it has none and the old untagged name (kb_guest_destroy_orphans). */
static int orphan(virDomainPtr dom, const char *name)
{
	char *meta = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
					  KB_DOMXML_OWNER_NS, 0);
	int alive;

	if (!meta) {
		virResetLastError();
		return untagged_name(name);
	}
	alive = kb_guest_owner_alive(meta);
	free(meta);
	return !alive;
}

int kb_guest_destroy_orphans(struct kb_guest_conn *c,
			     int (*keep)(const char *name, void *arg),
			     void *arg, unsigned *destroyed,
			     struct kb_err *err)
{
	virDomainPtr *doms = NULL;
	unsigned n = 0;
	int i, count, ret = 0;

	if (destroyed)
		*destroyed = 0;
	if ((ret = kb_guest__revive(c, err)))
		return ret;
	count = virConnectListAllDomains(c->conn, &doms,
					 VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (count < 0) {
		kb_guest__lverr(err, "cannot list the guests on", c->uri);
		if (!kb_guest__again(c, err))
			return KB_EFAIL;
		count = virConnectListAllDomains(
			c->conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	}
	if (count < 0)
		return kb_guest__lverr(err, "cannot list the guests on", c->uri);
	for (i = 0; i < count; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (!ret && name &&
		    !strncmp(name, KB_GUEST_PREFIX, strlen(KB_GUEST_PREFIX)) &&
		    !(keep && keep(name, arg)) && orphan(doms[i], name)) {
			if (virDomainDestroy(doms[i]) < 0 && !gone_error())
				ret = kb_guest__lverr(err, "cannot destroy orphan guest",
					    name);
			else
				n++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	if (destroyed)
		*destroyed = n;
	return ret;
}

/* ---- running a boot ------------------------------------------------------ */

struct run {
	struct kb_console *console;
	virStreamPtr st;
	int eof;      /* the stream ended (the guest is gone) */
	int failed;   /* the stream broke */
	char msg[256];
};

static int final(struct kb_console *c)
{
	enum kb_console_state s = kb_console_state(c);

	return s == KB_CONSOLE_DONE || s == KB_CONSOLE_PANIC ||
	       s == KB_CONSOLE_BAD;
}

static void on_stream(virStreamPtr st, int events, void *opaque)
{
	struct run *r = opaque;
	char buf[16384];
	int n;

	if (events & VIR_STREAM_EVENT_READABLE) {
		while ((n = virStreamRecv(st, buf, sizeof(buf))) > 0)
			kb_console_feed(r->console, buf, (size_t)n);
		if (n == 0) {
			r->eof = 1;
		} else if (n == -1) {
			const char *m = virGetLastErrorMessage();

			r->failed = 1;
			snprintf(r->msg, sizeof(r->msg), "%s",
				 m ? m : "console stream error");
		}
	}
	if (events & (VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR))
		r->eof = 1;
	if (r->eof || r->failed)
		virStreamEventRemoveCallback(st);
}

static void on_tick(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

static void nap(double s)
{
	struct timespec ts = { 0, (long)(s * 1e9) };

	nanosleep(&ts, NULL);
}

/* Read what was appended to @fd since the last call. */
static void drain_file(int fd, struct kb_console *console)
{
	char buf[16384];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		kb_console_feed(console, buf, (size_t)n);
}

static enum kb_guest_end deadline(struct kb_console *console,
				  const struct kb_guest_run_opts *o,
				  double t0, double *t_start, double t)
{
	if (kb_console_started(console)) {
		if (*t_start == 0)
			*t_start = t;
		if (t - *t_start > o->workload_timeout_s)
			return KB_GUEST_END_WORKLOAD_TIMEOUT;
	} else if (t - t0 > o->boot_timeout_s) {
		return KB_GUEST_END_BOOT_TIMEOUT;
	}
	return KB_GUEST_END_CONSOLE;
}

int kb_guest_run(struct kb_guest_conn *c, const char *xml,
		 const struct kb_guest_run_opts *opts,
		 struct kb_console *console, enum kb_guest_end *end,
		 double *duration_s, struct kb_err *err)
{
	struct kb_guest_run_opts defaults = KB_GUEST_RUN_OPTS_INIT;
	struct kb_guest_dom *d = NULL;
	struct run r;
	struct usage_run u;
	double t0 = kb_monotime(), t_start = 0, last_check = 0;
	int fd = -1, timer = -1, ret, active;
	enum kb_guest_end e = KB_GUEST_END_CONSOLE;

	memset(&r, 0, sizeof(r));
	memset(&u, 0, sizeof(u));
	r.console = console;
	if (!opts)
		opts = &defaults;
	*end = KB_GUEST_END_CONSOLE;
	*duration_s = 0;
	if (opts->usage)
		usage_start(c, &u);
	if (!opts->console_file && !event_impl_ok) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot read guest consoles: libvirt has no event loop");
		goto out;
	}
	/* A stream only carries what comes after it is opened: start the
	 * guest paused then.  A file keeps everything. */
	if ((ret = kb_guest_start(c, xml, !opts->console_file, &d, err)))
		goto out;
	if (opts->usage)
		usage_dom(&u, d, kb_monotime());
	if (opts->console_file) {
		fd = open(opts->console_file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			ret = kb_err_set(err, KB_EFAIL,
					 "cannot open the console log '%s' of guest '%s': %s",
					 opts->console_file, d->name,
					 strerror(errno));
			goto out;
		}
	} else {
		r.st = virStreamNew(c->conn, VIR_STREAM_NONBLOCK);
		if (!r.st ||
		    virDomainOpenConsole(d->dom, NULL, r.st,
					 VIR_DOMAIN_CONSOLE_FORCE) < 0 ||
		    virStreamEventAddCallback(r.st,
					      VIR_STREAM_EVENT_READABLE |
						      VIR_STREAM_EVENT_HANGUP |
						      VIR_STREAM_EVENT_ERROR,
					      on_stream, &r, NULL) < 0) {
			ret = kb_guest__lverr(err, "cannot open the console of guest",
				    d->name);
			goto out;
		}
		timer = virEventAddTimeout(50, on_tick, NULL, NULL);
	}
	if (!opts->console_file && virDomainResume(d->dom) < 0) {
		ret = kb_guest__lverr(err, "cannot resume guest", d->name);
		goto out;
	}
	for (;;) {
		double t;

		if (fd >= 0) {
			drain_file(fd, console);
			if (!final(console))
				nap(0.05);
		} else if (virEventRunDefaultImpl() < 0) {
			ret = kb_guest__lverr(err, "the event loop failed for guest",
				    d->name);
			goto out;
		}
		if (r.failed) {
			ret = kb_err_set(err, KB_EFAIL,
					 "lost the console of guest '%s': %s",
					 d->name, r.msg);
			goto out;
		}
		if (opts->stop && *opts->stop) {
			ret = kb_err_set(err, KB_EFAIL,
					 "guest '%s' destroyed: kbisect was interrupted",
					 d->name);
			goto out;
		}
		if (final(console)) {
			e = KB_GUEST_END_CONSOLE;
			break;
		}
		if (r.eof) {
			e = KB_GUEST_END_GONE;
			break;
		}
		t = kb_monotime();
		if ((e = deadline(console, opts, t0, &t_start, t)) !=
		    KB_GUEST_END_CONSOLE)
			break;
		if (opts->usage && t - u.t_cpu > 0.25)
			usage_dom(&u, d, t);
		/* A file does not end when the guest does: ask libvirt. */
		if (fd >= 0 && t - last_check > 0.25) {
			last_check = t;
			active = kb_guest_active(d, err);
			if (active < 0) {
				ret = active;
				goto out;
			}
			if (!active) {
				drain_file(fd, console);
				e = final(console) ? KB_GUEST_END_CONSOLE
						   : KB_GUEST_END_GONE;
				break;
			}
		}
	}
	*end = e;
	ret = 0;
out:
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	if (r.st) {
		if (!r.eof && !r.failed)
			virStreamEventRemoveCallback(r.st);
		virStreamAbort(r.st);
		virStreamFree(r.st);
	}
	if (fd >= 0)
		close(fd);
	if (d) {
		struct kb_err derr = KB_ERR_INIT;

		if (opts->usage)
			usage_dom(&u, d, kb_monotime());
		if (kb_guest_destroy(d, &derr) && !ret)
			ret = kb_err_set(err, derr.code, "%s", derr.msg);
	}
	*duration_s = kb_monotime() - t0;
	if (opts->usage)
		usage_end(c, &u, opts->usage);
	return ret;
}
