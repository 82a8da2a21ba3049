#define _DEFAULT_SOURCE /* gethostname */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "console.h"
#include "domxml.h"
#include "err.h"
#include "guest.h"
#include "mem.h"
#include "matrix.h"
#include "monitor.h"

/*
 * libvirt's test driver (test:///default) keeps its domains only as long
 * as one connection: each test opens its own.  It starts any domain
 * without running anything, so consoles here are files the test writes.
 */
#define TEST_URI "test:///default"

static const char *const pci[] = { "0000:04:00.0", "0000:05:00.1" };
static const unsigned pins[] = { 0, 1 };

static struct kb_guest_conn *conn(void)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;

	if (kb_guest_connect(TEST_URI, &c, &err))
		fail_msg("cannot connect: %s", err.msg);
	return c;
}

/* Xen PV domain XML named @name, with two PCI hostdevs and pinning. */
static const char *xml_owner; /* domxml's owner for the next xen_xml() */

static char *xen_xml(const char *name, const char *console_log)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_domxml d = KB_DOMXML_INIT;
	struct kb_guest g;
	char *xml = NULL;

	memset(&g, 0, sizeof(g));
	g.hypervisor = console_log ? KB_HV_QEMU : KB_HV_XEN;
	g.mode = console_log ? "hvm" : "pv";
	g.vcpus = 2;
	g.memory_mib = 256;
	g.npin = 2;
	g.pin = pins;
	g.npassthrough = console_log ? 0 : 2;
	g.passthrough = pci;
	d.name = name;
	d.guest = &g;
	d.kernel = "/boot/vmlinuz-test";
	d.initrd = "/boot/initrd-test";
	d.cmdline = "console=hvc0";
	d.console_log = console_log;
	d.owner = xml_owner;
	if (kb_domxml_build(&d, &xml, &err))
		fail_msg("domxml: %s", err.msg);
	return xml;
}

static struct kb_guest_dom *start(struct kb_guest_conn *c, const char *name)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *d = NULL;
	char *xml = xen_xml(name, NULL);

	if (kb_guest_start(c, xml, 0, &d, &err))
		fail_msg("cannot start '%s': %s", name, err.msg);
	free(xml);
	return d;
}

static void test_guest__xen_domain_lifecycle_keeps_hostdevs(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *d = start(c, "kbisect-1-0-1");
	unsigned n = 99;
	char *live;

	(void)state;
	assert_int_equal(kb_guest_active(d, &err), 1);
	live = kb_guest_xml(d, &err);
	assert_non_null(live);
	assert_non_null(strstr(live, "type='xen'"));
	assert_non_null(strstr(live, "<hostdev mode='subsystem' type='pci' managed='yes'>"));
	assert_non_null(strstr(live, "bus='0x04'"));
	assert_non_null(strstr(live, "bus='0x05'"));
	assert_non_null(strstr(live, "<vcpupin vcpu='1' cpuset='1'/>"));
	free(live);
	assert_int_equal(kb_guest_destroy(d, &err), 0);
	/* gone: nothing named kbisect-* is left to destroy */
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	kb_guest_disconnect(c);
}

/* A boot's retry finds its own name still running (an earlier attempt
 * whose destroy gave up): that guest goes and the retry starts; a guest
 * of another name form is never touched. */
static void test_guest__a_retry_takes_back_its_own_name(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *old = start(c, "kbisect-ab12-3-1-2"), *d = NULL;
	char *xml = xen_xml("kbisect-ab12-3-1-2", NULL);

	(void)state;
	assert_int_equal(kb_guest_start(c, xml, 0, &d, &err), 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(kb_guest_active(d, &err), 1);
	assert_int_equal(kb_guest_destroy(d, &err), 0);
	/* the old handle's domain is gone already */
	assert_int_equal(kb_guest_destroy(old, &err), 0);
	free(xml);

	old = start(c, "someone-elses-guest");
	xml = xen_xml("someone-elses-guest", NULL);
	assert_int_equal(kb_guest_start(c, xml, 0, &d, &err), KB_EFAIL);
	assert_null(d);
	assert_msg_contains(err.msg, "already exists");
	assert_int_equal(kb_guest_active(old, &err), 1);
	assert_int_equal(kb_guest_destroy(old, &err), 0);
	free(xml);
	kb_guest_disconnect(c);
}

static int keep_two(const char *name, void *arg)
{
	(*(unsigned *)arg)++;
	return !strcmp(name, "kbisect-2-0-1");
}

static void test_guest__orphans_are_destroyed_and_others_left(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *a = start(c, "kbisect-1-0-1");
	struct kb_guest_dom *b = start(c, "kbisect-2-0-1");
	struct kb_guest_dom *o = start(c, "other-guest");
	struct kb_guest_dom *p = start(c, "kbisect");
	unsigned n = 0, asked = 0;

	(void)state;
	assert_int_equal(kb_guest_destroy_orphans(c, keep_two, &asked, &n,
						  &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(asked, 2);
	assert_int_equal(kb_guest_active(a, &err), 0);
	assert_int_equal(kb_guest_active(b, &err), 1);
	assert_int_equal(kb_guest_active(o, &err), 1);
	assert_int_equal(kb_guest_active(p, &err), 1);
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kb_guest_active(b, &err), 0);
	assert_int_equal(kb_guest_active(o, &err), 1);
	/* destroying what is already gone is fine */
	assert_int_equal(kb_guest_destroy(a, &err), 0);
	assert_int_equal(kb_guest_destroy(b, &err), 0);
	assert_int_equal(kb_guest_destroy(o, &err), 0);
	assert_int_equal(kb_guest_destroy(p, &err), 0);
	assert_int_equal(kb_guest_destroy(NULL, &err), 0);
	kb_guest_disconnect(c);
}

static void test_guest__live_owners_guests_are_not_orphans(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *mine, *dead, *remote;
	char *self = kb_guest_owner_self(), host[300], *other;
	unsigned n = 0;

	(void)state;
	/* a pid that is running but started at another time is a dead owner */
	assert_non_null(strstr(self, " pid="));
	snprintf(host, sizeof(host), "%.*s", (int)(strstr(self, " pid=") - self),
		 self);
	other = kb_asprintf("%s pid=1 start=1", host);
	assert_true(kb_guest_owner_alive(self));
	assert_false(kb_guest_owner_alive(other));
	assert_true(kb_guest_owner_alive("host=elsewhere.invalid pid=1 start=1"));
	assert_false(kb_guest_owner_alive("garbage"));

	xml_owner = self;
	mine = start(c, "kbisect-1-0-1");
	xml_owner = other;
	dead = start(c, "kbisect-2-0-1");
	xml_owner = "host=elsewhere.invalid pid=1 start=1";
	remote = start(c, "kbisect-3-0-1");
	xml_owner = NULL;
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kb_guest_active(mine, &err), 1);
	assert_int_equal(kb_guest_active(dead, &err), 0);
	assert_int_equal(kb_guest_active(remote, &err), 1);
	kb_guest_destroy(mine, &err);
	kb_guest_destroy(dead, &err);
	kb_guest_destroy(remote, &err);
	free(other);
	free(self);
	kb_guest_disconnect(c);
}

static void test_guest__environment_names_host_and_versions(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	char *env = NULL;

	(void)state;
	assert_int_equal(kb_guest_environment(c, &env, &err), 0);
	assert_non_null(strstr(env, "{\"uri\":\"test:///default\","));
	assert_non_null(strstr(env, "\"hypervisor\":\"TEST\""));
	assert_non_null(strstr(env, "\"hypervisor_version\":\""));
	assert_non_null(strstr(env, "\"libvirt_version\":\"9."));
	assert_non_null(strstr(env, "\"host_kernel\":\"Linux "));
	assert_non_null(strstr(env, "\"host_cpu\":"));
	assert_int_equal(env[strlen(env) - 1], '}');
	free(env);
	kb_guest_disconnect(c);
}

static void test_guest__name_has_database_experiment_variant_boot(
	void **state)
{
	char *n = kb_guest_name("1a2b3c", 12, 3, 4);

	(void)state;
	assert_string_equal(n, "kbisect-1a2b3c-12-3-4");
	free(n);
	/* a database before db/0012 (and domxml's preview): the old form */
	n = kb_guest_name(NULL, 12, 3, 4);
	assert_string_equal(n, "kbisect-12-3-4");
	free(n);
	n = kb_guest_name("", 12, 3, 4);
	assert_string_equal(n, "kbisect-12-3-4");
	free(n);
}

/* Two databases each run experiment 1 on one libvirtd: their guests'
 * names differ by the database's tag, so both boot at once. */
static void test_guest__two_databases_boot_the_same_numbers_at_once(
	void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	char *na = kb_guest_name("aaaaaa", 1, 0, 1);
	char *nb = kb_guest_name("bbbbbb", 1, 0, 1);
	char *self = kb_guest_owner_self();
	struct kb_guest_dom *a, *b;
	unsigned n = 99;

	(void)state;
	xml_owner = self;
	a = start(c, na);
	b = start(c, nb);
	xml_owner = NULL;
	assert_int_equal(kb_guest_active(a, &err), 1);
	assert_int_equal(kb_guest_active(b, &err), 1);
	/* either one's sweep leaves both: their owner runs */
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(kb_guest_destroy(a, &err), 0);
	assert_int_equal(kb_guest_destroy(b, &err), 0);
	free(self);
	free(nb);
	free(na);
	kb_guest_disconnect(c);
}

/* The sweep: a guest whose owner is gone goes, of whatever database; a
 * guest without an owner goes only in the old untagged form (it cannot
 * be told dead otherwise); a live owner's stays. */
static void test_guest__sweep_by_owner_and_name_form(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_dom *old, *tagged, *dead, *live;
	char *self = kb_guest_owner_self(), host[300], *other;
	unsigned n = 0;

	(void)state;
	snprintf(host, sizeof(host), "%.*s", (int)(strstr(self, " pid=") - self),
		 self);
	other = kb_asprintf("%s pid=1 start=1", host);
	xml_owner = NULL;
	old = start(c, "kbisect-4-0-1");
	tagged = start(c, "kbisect-cccccc-4-0-2");
	xml_owner = other;
	dead = start(c, "kbisect-dddddd-4-0-3");
	xml_owner = self;
	live = start(c, "kbisect-eeeeee-4-0-4");
	xml_owner = NULL;
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(kb_guest_active(old, &err), 0);
	assert_int_equal(kb_guest_active(tagged, &err), 1);
	assert_int_equal(kb_guest_active(dead, &err), 0);
	assert_int_equal(kb_guest_active(live, &err), 1);
	kb_guest_destroy(old, &err);
	kb_guest_destroy(tagged, &err);
	kb_guest_destroy(dead, &err);
	kb_guest_destroy(live, &err);
	free(other);
	free(self);
	kb_guest_disconnect(c);
}

static void test_guest__connect_failure_names_uri(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = (struct kb_guest_conn *)&err;

	(void)state;
	assert_int_equal(kb_guest_connect("nosuchdriver:///x", &c, &err),
			 KB_EFAIL);
	assert_null(c);
	assert_msg_contains(err.msg, "'nosuchdriver:///x'");
}

/* A URI that runs a program here is refused before libvirt sees it,
 * whatever named it (a stored experiment, the queue); a trusted one is
 * connected with. */
static void test_guest__connect_refuses_a_uri_that_runs_a_program(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_conn *c = NULL;
	char dir[] = "/tmp/kb-guest-ext-XXXXXX", *prog, *ran, *uri, *text;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	prog = kb_asprintf("%s/prog", dir);
	ran = kb_asprintf("%s/ran", dir);
	text = kb_asprintf("#!/bin/sh\ntouch '%s'\nexit 1\n", ran);
	f = fopen(prog, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(prog, 0755), 0);
	uri = kb_asprintf("test+ext:///default?command=%s", prog);
	unsetenv("KBISECT_TRUST_MATRIX");
	assert_int_equal(kb_guest_connect(uri, &c, &err), KB_EINPUT);
	assert_null(c);
	assert_msg_contains(err.msg, "not connecting to libvirt at 'test+ext:///default?command=");
	assert_msg_contains(err.msg, "the ext transport runs a program on this machine");
	assert_int_not_equal(access(ran, F_OK), 0);
	kb_err_clear(&err);
	/* trusted: libvirt runs it (it fails: no libvirt protocol) */
	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "1", 1), 0);
	assert_int_equal(kb_guest_connect(uri, &c, &err), KB_EFAIL);
	unsetenv("KBISECT_TRUST_MATRIX");
	assert_int_equal(access(ran, F_OK), 0);
	unlink(ran);
	unlink(prog);
	rmdir(dir);
	free(prog);
	free(ran);
	free(uri);
	free(text);
}

/* Boot on the test driver with @text already in the console file. */
static void run_with_console(const char *text, double boot_s, double wl_s,
			     enum kb_guest_end *end, struct kb_console *con,
			     struct kb_guest_usage *usage)
{
	char path[] = "/tmp/kb-guest-console-XXXXXX";
	struct kb_guest_run_opts o = KB_GUEST_RUN_OPTS_INIT;
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	double dur = -1;
	unsigned n = 9;
	char *xml;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	xml = xen_xml("kbisect-7-1-2", path);
	o.console_file = path;
	o.boot_timeout_s = boot_s;
	o.workload_timeout_s = wl_s;
	o.usage = usage;
	if (kb_guest_run(c, xml, &o, con, end, &dur, &err))
		fail_msg("run: %s", err.msg);
	assert_true(dur >= 0 && dur < 10);
	/* destroyed in every case */
	assert_int_equal(kb_guest_destroy_orphans(c, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	free(xml);
	unlink(path);
	kb_guest_disconnect(c);
}

static void test_guest__run_stops_at_a_final_console(void **state)
{
	struct kb_console *con = kb_console_new(0);
	enum kb_guest_end end = KB_GUEST_END_BOOT_TIMEOUT;

	(void)state;
	run_with_console("Linux version 6.1\nKBISECT-START 1\n"
			 "KBISECT-ERROR 1 fio failed\n",
			 5, 5, &end, con, NULL);
	assert_int_equal(end, KB_GUEST_END_CONSOLE);
	assert_int_equal(kb_console_state(con), KB_CONSOLE_BAD);
	kb_console_free(con);
}

static void test_guest__boot_timeout_before_the_workload(void **state)
{
	struct kb_console *con = kb_console_new(0);
	enum kb_guest_end end = KB_GUEST_END_CONSOLE;

	(void)state;
	run_with_console("Linux version 6.1\n", 0.3, 5, &end, con, NULL);
	assert_int_equal(end, KB_GUEST_END_BOOT_TIMEOUT);
	assert_false(kb_console_started(con));
	kb_console_free(con);
}

static void test_guest__workload_timeout_after_start(void **state)
{
	struct kb_console *con = kb_console_new(0);
	enum kb_guest_end end = KB_GUEST_END_CONSOLE;

	(void)state;
	run_with_console("Linux version 6.1\nKBISECT-START 1\n", 5, 0.3, &end,
			 con, NULL);
	assert_int_equal(end, KB_GUEST_END_WORKLOAD_TIMEOUT);
	assert_true(kb_console_started(con));
	kb_console_free(con);
}

static void test_guest__refused_domain_is_an_error(void **state)
{
	struct kb_console *con = kb_console_new(0);
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	enum kb_guest_end end;
	double dur;

	(void)state;
	assert_int_equal(kb_guest_run(c, "<domain type='nonsense'/>", NULL,
				      con, &end, &dur, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "cannot start a guest on 'test:///default'");
	kb_console_free(con);
	kb_guest_disconnect(c);
}

/* What the host saw of a boot: the test driver's domain CPU time is its
 * clock (it runs nothing), its host CPU totals never move (left out: no
 * interval), and test:/// is this machine (load averages). */
static void test_guest__run_reads_what_the_host_saw(void **state)
{
	struct kb_console *con = kb_console_new(0);
	enum kb_guest_end end = KB_GUEST_END_CONSOLE;
	struct kb_guest_usage u;

	(void)state;
	memset(&u, 0xff, sizeof(u));
	run_with_console("Linux version 6.1\nKBISECT-START 1\n", 5, 0.8, &end,
			 con, &u);
	assert_int_equal(end, KB_GUEST_END_WORKLOAD_TIMEOUT);
	assert_int_equal(u.guest_ok, 1);
	/* read every 0.25 s and before the destroy: the whole 0.8 s */
	assert_true(u.guest_cpu_s >= 0.7 && u.guest_cpu_s < 10);
	assert_int_equal(u.host_ok, 0);
	assert_int_equal(u.load_ok, 1);
	assert_true(u.load_start >= 0 && u.load_end >= 0);
	kb_console_free(con);
}

/* A guest libvirt refuses still has the host's readings around it. */
static void test_guest__refused_domain_still_fills_usage(void **state)
{
	struct kb_guest_run_opts o = KB_GUEST_RUN_OPTS_INIT;
	struct kb_console *con = kb_console_new(0);
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest_usage u;
	enum kb_guest_end end;
	double dur;

	(void)state;
	memset(&u, 0xff, sizeof(u));
	o.usage = &u;
	assert_int_equal(kb_guest_run(c, "<domain type='nonsense'/>", &o, con,
				      &end, &dur, &err),
			 KB_EFAIL);
	assert_int_equal(u.guest_ok, 0);
	assert_int_equal(u.host_ok, 0);
	assert_int_equal(u.load_ok, 1);
	kb_console_free(con);
	kb_guest_disconnect(c);
}

static double run0(const struct kb_monitor_value *v, size_t n,
		   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].run == 0 && !strcmp(v[i].name, name))
			return v[i].value;
	return NAN;
}

/* The usage as run-0 monitors, before the guest's runs, by name; what
 * was not read is left out. */
static void test_guest__usage_becomes_run_zero_monitors(void **state)
{
	struct kb_guest_usage u = { .host_ok = 1, .host_busy_s = 3,
				    .host_total_s = 10, .guest_ok = 1,
				    .guest_cpu_s = 1, .load_ok = 1,
				    .load_start = 0, .load_end = 1.5 };
	struct kb_monitor_value *v = kb_calloc(1, sizeof(*v));
	size_t n = 1, i;

	(void)state;
	v[0].run = 1;
	snprintf(v[0].name, sizeof(v[0].name), "vmstat.pgfault");
	v[0].value = 7;
	assert_int_equal(kb_guest_usage_monitors(&u, &v, &n), 5);
	assert_int_equal(n, 6);
	for (i = 0; i < 5; i++) {
		assert_int_equal(v[i].run, 0);
		assert_true(kb_monitor_is_host(v[i].name));
		if (i)
			assert_true(strcmp(v[i - 1].name, v[i].name) < 0);
	}
	assert_int_equal(v[5].run, 1);
	assert_string_equal(v[5].name, "vmstat.pgfault");
	assert_true(fabs(run0(v, n, "host.cpu_busy_pct") - 30) < 1e-9);
	assert_true(fabs(run0(v, n, "host.other_busy_pct") - 20) < 1e-9);
	assert_true(run0(v, n, "host.guest_cpu_s") == 1);
	assert_true(run0(v, n, "host.loadavg_start") == 0);
	assert_true(run0(v, n, "host.loadavg_end") == 1.5);
	free(v);

	/* a guest that took more than the host counted: other is 0; no
	 * host totals, no load: only the guest's time */
	v = NULL;
	n = 0;
	u.guest_cpu_s = 4;
	assert_int_equal(kb_guest_usage_monitors(&u, &v, &n), 5);
	assert_true(run0(v, n, "host.other_busy_pct") == 0);
	free(v);
	v = NULL;
	n = 0;
	u.host_ok = 0;
	u.load_ok = 0;
	assert_int_equal(kb_guest_usage_monitors(&u, &v, &n), 1);
	assert_string_equal(v[0].name, "host.guest_cpu_s");
	free(v);
	v = NULL;
	n = 0;
	u.guest_ok = 0;
	assert_int_equal(kb_guest_usage_monitors(&u, &v, &n), 0);
	assert_null(v);
}

/* Load averages are read only where the host is this machine. */
static void test_guest__uri_local_is_this_machine(void **state)
{
	static const char *const local[] = {
		"test:///default", "qemu:///system",
		"qemu:///system?socket=/tmp/x/libvirt-sock",
		"qemu+ssh://localhost/system",
		"qemu+tcp://root@127.0.0.1:16509/system",
		"qemu+tcp://[::1]:16509/system",
	};
	static const char *const remote[] = {
		"qemu+ssh://build-box.example/system", "xen+ssh://root@far/",
		"qemu+tcp://[2001:db8::1]/system", "qemu", NULL,
	};
	char me[256], *uri;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (!kb_guest_uri_local(local[i]))
			fail_msg("'%s' is this machine", local[i]);
	for (i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (kb_guest_uri_local(remote[i]))
			fail_msg("'%s' is another machine", remote[i]);
	gethostname(me, sizeof(me));
	me[sizeof(me) - 1] = '\0';
	uri = kb_asprintf("qemu+ssh://%s/system", me);
	assert_true(kb_guest_uri_local(uri));
	free(uri);
}

/* A storage pool on the test driver: defined when missing, volumes made
 * and deleted, and the cache bound spares what a run still uses.  (The
 * test driver takes no upload: tests/integration/hosts-ship.sh ships for
 * real.) */
static void test_guest__pool_volumes_and_trim(void **state)
{
	struct kb_guest_conn *c = conn();
	struct kb_err err = KB_ERR_INIT;
	char *a = NULL, *b = NULL, *o = NULL, *bad = NULL;
	const char *keep[] = { "kb-b" };
	unsigned removed = 9;

	(void)state;
	assert_int_equal(kb_guest_pool_open(c, "bad name", NULL, &err),
			 KB_EINPUT);
	kb_err_clear(&err);
	assert_int_equal(kb_guest_volume_new(c, "kb-a", 1024, NULL, &a, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "no storage pool open");
	kb_err_clear(&err);
	if (kb_guest_pool_open(c, "kbisect-test", "/kbisect-test-pool", &err))
		fail_msg("%s", err.msg);
	/* open again: the same pool, nothing defined twice */
	assert_int_equal(kb_guest_pool_open(c, "kbisect-test", NULL, &err), 0);
	if (kb_guest_volume_new(c, "kb-a", 1u << 20, NULL, &a, &err) ||
	    kb_guest_volume_new(c, "kb-b", 1u << 20, NULL, &b, &err) ||
	    kb_guest_volume_new(c, "other", 1u << 20, NULL, &o, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(a, "/kbisect-test-pool/kb-a");
	assert_int_equal(kb_guest_volume_new(c, "../x", 1, NULL, &bad, &err),
			 KB_EINPUT);
	assert_null(bad);
	/* within the bound: nothing goes */
	assert_int_equal(kb_guest_pool_trim(c, "kb-", 16u << 20, keep, 1,
					    &removed, &err),
			 0);
	assert_int_equal(removed, 0);
	/* over it: kb-a goes, kb-b is kept, "other" is not ours */
	assert_int_equal(kb_guest_pool_trim(c, "kb-", 0, keep, 1, &removed,
					    &err),
			 0);
	assert_int_equal(removed, 1);
	assert_int_equal(kb_guest_volume_delete(c, "kb-a", &err), 0); /* gone */
	assert_int_equal(kb_guest_volume_delete(c, "kb-b", &err), 0);
	assert_int_equal(kb_guest_volume_delete(c, "other", &err), 0);
	free(a);
	free(b);
	free(o);
	kb_guest_disconnect(c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_guest__pool_volumes_and_trim),
	cmocka_unit_test(test_guest__xen_domain_lifecycle_keeps_hostdevs),
	cmocka_unit_test(test_guest__a_retry_takes_back_its_own_name),
	cmocka_unit_test(test_guest__orphans_are_destroyed_and_others_left),
	cmocka_unit_test(test_guest__live_owners_guests_are_not_orphans),
	cmocka_unit_test(test_guest__environment_names_host_and_versions),
	cmocka_unit_test(test_guest__name_has_database_experiment_variant_boot),
	cmocka_unit_test(test_guest__two_databases_boot_the_same_numbers_at_once),
	cmocka_unit_test(test_guest__sweep_by_owner_and_name_form),
	cmocka_unit_test(test_guest__connect_failure_names_uri),
	cmocka_unit_test(test_guest__connect_refuses_a_uri_that_runs_a_program),
	cmocka_unit_test(test_guest__run_stops_at_a_final_console),
	cmocka_unit_test(test_guest__boot_timeout_before_the_workload),
	cmocka_unit_test(test_guest__workload_timeout_after_start),
	cmocka_unit_test(test_guest__refused_domain_is_an_error),
	cmocka_unit_test(test_guest__run_reads_what_the_host_saw),
	cmocka_unit_test(test_guest__refused_domain_still_fills_usage),
	cmocka_unit_test(test_guest__usage_becomes_run_zero_monitors),
	cmocka_unit_test(test_guest__uri_local_is_this_machine),
};

KB_TEST_MAIN(tests)
