#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "domxml.h"
#include "err.h"
#include "matrix.h"

extern char **environ;

/* Run virt-xml-validate on @xml; fail the test with its output if invalid. */
static void validate(const char *xml)
{
	char path[] = "/tmp/kb-domxml-XXXXXX";
	char log[] = "/tmp/kb-domxml-log-XXXXXX";
	char *argv[] = { "virt-xml-validate", path, "domain", NULL };
	posix_spawn_file_actions_t fa;
	struct kb_buf out = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	int fd, lfd, status = 0;
	pid_t pid;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	lfd = mkstemp(log);
	assert_true(lfd >= 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, lfd, 1);
	posix_spawn_file_actions_adddup2(&fa, lfd, 2);
	assert_int_equal(posix_spawnp(&pid, "virt-xml-validate", &fa, NULL,
				      argv, environ),
			 0);
	posix_spawn_file_actions_destroy(&fa);
	close(lfd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	kb_buf_read_file(&out, log, 1 << 20, &err);
	unlink(path);
	unlink(log);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("virt-xml-validate refused:\n%s\n%s", out.buf, xml);
	kb_buf_release(&out);
}

static char *build_ok(const struct kb_domxml *d)
{
	struct kb_err err = KB_ERR_INIT;
	char *xml = NULL;

	if (kb_domxml_build(d, &xml, &err))
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(xml);
	return xml;
}

static void assert_has(const char *xml, const char *needle)
{
	if (!strstr(xml, needle))
		fail_msg("XML lacks \"%s\":\n%s", needle, xml);
}

static void assert_lacks(const char *xml, const char *needle)
{
	if (strstr(xml, needle))
		fail_msg("XML has \"%s\":\n%s", needle, xml);
}

static const unsigned pins[] = { 2, 3 };
static const char *const pci[] = { "0000:04:00.0", "0000:0a:1f.7" };

static struct kb_guest xen_guest(const char *mode)
{
	struct kb_guest g;

	memset(&g, 0, sizeof(g));
	g.hypervisor = KB_HV_XEN;
	g.mode = mode;
	g.vcpus = 2;
	g.memory_mib = 1024;
	g.npin = 2;
	g.pin = pins;
	g.npassthrough = 2;
	g.passthrough = pci;
	return g;
}

static struct kb_domxml xen_dom(const struct kb_guest *g)
{
	struct kb_domxml d = KB_DOMXML_INIT;

	d.name = "kbisect-1-0-1";
	d.guest = g;
	d.kernel = "/var/lib/kbisect/builds/abc/bzImage";
	d.initrd = "/var/lib/kbisect/initramfs/fio.cpio.gz";
	d.cmdline = "console=hvc0 quiet kbisect.runs=3";
	return d;
}

/* Passthrough and pinning are common to every Xen mode. */
static void assert_xen_common(const char *xml)
{
	assert_has(xml, "<domain type=\"xen\">");
	assert_has(xml, "<vcpu placement=\"static\">2</vcpu>");
	assert_has(xml, "<vcpupin vcpu=\"0\" cpuset=\"2\"/>");
	assert_has(xml, "<vcpupin vcpu=\"1\" cpuset=\"3\"/>");
	assert_has(xml, "<memory unit=\"MiB\">1024</memory>");
	assert_has(xml, "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"yes\">");
	assert_has(xml, "<address domain=\"0x0000\" bus=\"0x04\" slot=\"0x00\" function=\"0x0\"/>");
	assert_has(xml, "<address domain=\"0x0000\" bus=\"0x0a\" slot=\"0x1f\" function=\"0x7\"/>");
	assert_has(xml, "<kernel>/var/lib/kbisect/builds/abc/bzImage</kernel>");
	assert_has(xml, "<initrd>/var/lib/kbisect/initramfs/fio.cpio.gz</initrd>");
	assert_has(xml, "<cmdline>console=hvc0 quiet kbisect.runs=3</cmdline>");
	assert_has(xml, "<on_poweroff>destroy</on_poweroff>");
	assert_has(xml, "<on_crash>destroy</on_crash>");
}

static void test_domxml__xen_pv_validates(void **state)
{
	struct kb_guest g = xen_guest("pv");
	struct kb_domxml d = xen_dom(&g);
	char *xml = build_ok(&d);

	(void)state;
	assert_xen_common(xml);
	assert_has(xml, "machine=\"xenpv\">linux</type>");
	assert_has(xml, "<e820_host state=\"on\"/>");
	assert_has(xml, "<console type=\"pty\">");
	assert_has(xml, "<target type=\"xen\" port=\"0\"/>");
	assert_lacks(xml, "<serial");
	validate(xml);
	free(xml);
}

static void test_domxml__xen_pvh_validates(void **state)
{
	struct kb_guest g = xen_guest("pvh");
	struct kb_domxml d = xen_dom(&g);
	char *xml = build_ok(&d);

	(void)state;
	assert_xen_common(xml);
	assert_has(xml, "machine=\"xenpvh\">xenpvh</type>");
	assert_has(xml, "<target type=\"xen\" port=\"0\"/>");
	assert_lacks(xml, "e820_host");
	validate(xml);
	free(xml);
}

static void test_domxml__xen_hvm_validates(void **state)
{
	struct kb_guest g = xen_guest("hvm");
	struct kb_domxml d = xen_dom(&g);
	struct kb_domxml_disk disks[] = { { "/dev/nvme0n1", 1, NULL },
					  { "/srv/img.raw", 0, NULL } };
	char *xml;

	(void)state;
	d.ndisks = 2;
	d.disks = disks;
	xml = build_ok(&d);
	assert_xen_common(xml);
	assert_has(xml, "machine=\"xenfv\">hvm</type>");
	assert_has(xml, "<acpi/>");
	assert_has(xml, "<serial type=\"pty\">");
	assert_has(xml, "<target type=\"serial\" port=\"0\"/>");
	assert_has(xml, "<source dev=\"/dev/nvme0n1\"/>");
	assert_has(xml, "<target dev=\"xvda\" bus=\"xen\"/>");
	assert_has(xml, "<target dev=\"xvdb\" bus=\"xen\"/>");
	validate(xml);
	free(xml);
}

static void test_domxml__kvm_virtio_disks_validate(void **state)
{
	struct kb_guest g;
	struct kb_domxml d = KB_DOMXML_INIT;
	struct kb_domxml_disk disks[] = { { "/srv/a.raw", 0, NULL },
					  { "/dev/sdb", 1, NULL },
					  { "/srv/root.qcow2", 0, "qcow2" } };
	char *xml;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.hypervisor = KB_HV_KVM;
	g.mode = "hvm";
	g.vcpus = 4;
	g.memory_mib = 512;
	d.name = "kbisect-2-3-4";
	d.guest = &g;
	d.kernel = "/boot/vmlinuz";
	d.ndisks = 3;
	d.disks = disks;
	xml = build_ok(&d);
	assert_has(xml, "<domain type=\"kvm\">");
	/* a guest image's overlay (guest.image): qcow2, the last disk */
	assert_has(xml, "<driver name=\"qemu\" type=\"qcow2\" cache=\"none\" io=\"native\"/>\n"
			"      <source file=\"/srv/root.qcow2\"/>\n"
			"      <target dev=\"vdc\" bus=\"virtio\"/>");
	assert_has(xml, "<driver name=\"qemu\" type=\"raw\" cache=\"none\" io=\"native\"/>");
	assert_has(xml, "<disk type=\"file\" device=\"disk\">");
	assert_has(xml, "<source file=\"/srv/a.raw\"/>");
	assert_has(xml, "<target dev=\"vda\" bus=\"virtio\"/>");
	assert_has(xml, "<disk type=\"block\" device=\"disk\">");
	assert_has(xml, "<target dev=\"vdb\" bus=\"virtio\"/>");
	assert_has(xml, "<serial type=\"pty\">");
	assert_lacks(xml, "<cputune>");
	assert_lacks(xml, "<initrd>");
	validate(xml);
	free(xml);
}

static void test_domxml__qemu_file_serial_logs_validate(void **state)
{
	struct kb_guest g;
	struct kb_domxml d = KB_DOMXML_INIT;
	struct kb_domxml_disk disk = { "/var/tmp/scratch.raw", 0, NULL };
	char *xml;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.hypervisor = KB_HV_QEMU;
	g.mode = "hvm";
	g.vcpus = 1;
	g.memory_mib = 256;
	d.name = "kbisect-1-0-1";
	d.guest = &g;
	d.kernel = "/boot/vmlinuz-6.1.0-57-amd64";
	d.initrd = "/var/cache/kbisect/i.cpio.gz";
	d.cmdline = "console=ttyS0";
	d.ndisks = 1;
	d.disks = &disk;
	d.console_log = "/var/tmp/kb/console.log";
	d.results_log = "/var/tmp/kb/results.log";
	xml = build_ok(&d);
	assert_has(xml, "<domain type=\"qemu\">");
	assert_has(xml, "<serial type=\"file\">");
	assert_has(xml, "<source path=\"/var/tmp/kb/console.log\" append=\"off\"/>");
	assert_has(xml, "<source path=\"/var/tmp/kb/results.log\" append=\"off\"/>");
	assert_has(xml, "<target port=\"1\"/>");
	assert_has(xml, "<console type=\"file\">");
	assert_has(xml, "<memballoon model=\"none\"/>");
	validate(xml);
	free(xml);
}

static void test_domxml__special_characters_are_escaped(void **state)
{
	struct kb_guest g = xen_guest("pvh");
	struct kb_guest q;
	struct kb_domxml d = xen_dom(&g);
	struct kb_domxml_disk disk = { "/srv/a&b<c>'d\".raw", 0, NULL };
	char *xml;

	(void)state;
	d.name = "kbisect-<&>'\"";
	d.kernel = "/srv/k&<>'\"/bzImage";
	d.initrd = "/srv/i&'/init.cpio";
	d.cmdline = "a=\"b c\" d='&' e=<x>";
	d.comment = "placeholder -- paths <&> are not built yet-";
	xml = build_ok(&d);
	assert_has(xml, "<name>kbisect-&lt;&amp;&gt;'&quot;</name>");
	assert_has(xml, "<kernel>/srv/k&amp;&lt;&gt;'&quot;/bzImage</kernel>");
	assert_has(xml, "<cmdline>a=&quot;b c&quot; d='&amp;' e=&lt;x&gt;</cmdline>");
	assert_has(xml, "<!-- placeholder - - paths <&> are not built yet-  -->");
	assert_lacks(xml, "<&>'\"<");
	validate(xml);
	free(xml);

	memset(&q, 0, sizeof(q));
	q.hypervisor = KB_HV_QEMU;
	q.mode = "hvm";
	q.vcpus = 1;
	q.memory_mib = 128;
	d.guest = &q;
	d.ndisks = 1;
	d.disks = &disk;
	d.console_log = "/tmp/a&b/<c>.log";
	xml = build_ok(&d);
	assert_has(xml, "<source file=\"/srv/a&amp;b&lt;c&gt;'d&quot;.raw\"/>");
	assert_has(xml, "<source path=\"/tmp/a&amp;b/&lt;c&gt;.log\" append=\"off\"/>");
	validate(xml);
	free(xml);
}

static void test_domxml__refuses_what_the_guest_cannot_have(void **state)
{
	struct kb_guest g = xen_guest("pv");
	struct kb_domxml d = xen_dom(&g);
	struct kb_err err = KB_ERR_INIT;
	static const char *const bad_pci[] = { "0000:04:00.9" };
	char *xml = (char *)"x";

	(void)state;
	d.console_log = "/tmp/c.log";
	assert_int_equal(kb_domxml_build(&d, &xml, &err), KB_EINPUT);
	assert_null(xml);
	assert_msg_contains(err.msg, "xen pv guest has no serial port");

	kb_err_clear(&err);
	d.console_log = NULL;
	g.vcpus = 3;
	assert_int_equal(kb_domxml_build(&d, &xml, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "pin list has 2 CPUs for 3 vCPUs");

	kb_err_clear(&err);
	g.vcpus = 2;
	g.passthrough = bad_pci;
	g.npassthrough = 1;
	assert_int_equal(kb_domxml_build(&d, &xml, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "invalid PCI address '0000:04:00.9'");

	kb_err_clear(&err);
	g.npassthrough = 0;
	g.hypervisor = KB_HV_QEMU;
	assert_int_equal(kb_domxml_build(&d, &xml, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "guest mode 'pv' needs hypervisor xen");
}

/* ---- relocation (kbisect repro) ------------------------------------- */

static struct kb_guest vm_guest(enum kb_hypervisor hv)
{
	struct kb_guest g;

	memset(&g, 0, sizeof(g));
	g.hypervisor = hv;
	g.mode = "hvm";
	g.vcpus = 2;
	g.memory_mib = 512;
	g.npin = 2;
	g.pin = pins;
	return g;
}

/* A domain as a boot made it: its files in boot folder @bootdir. */
static char *as_booted(const struct kb_guest *g, const char *bootdir,
		       int console_file)
{
	struct kb_domxml d = KB_DOMXML_INIT;
	struct kb_domxml_disk disks[2] = { { NULL, 0, NULL }, { NULL, 0, NULL } };
	char kernel[256], initrd[256], scratch[256], log[256];

	snprintf(kernel, sizeof(kernel), "%s/kernel", bootdir);
	snprintf(initrd, sizeof(initrd), "%s/initrd", bootdir);
	snprintf(scratch, sizeof(scratch), "%s/scratch.raw", bootdir);
	snprintf(log, sizeof(log), "%s/console.log", bootdir);
	disks[0].path = scratch;
	disks[0].block = 0;
	disks[1].path = "/srv/data.raw";
	disks[1].block = 0;
	d.name = "kbisect-7-1-2";
	d.guest = g;
	d.kernel = kernel;
	d.initrd = initrd;
	d.cmdline = "console=ttyS0 panic=-1 quiet";
	d.ndisks = g->hypervisor == KB_HV_XEN ? 0 : 2;
	d.disks = disks;
	d.console_log = console_file ? log : NULL;
	d.owner = "host=h pid=42 start=7";
	return build_ok(&d);
}

static void relocate_ok(const char *xml, const char *dir,
			struct kb_domxml_moved *out)
{
	struct kb_domxml_move mv = { .name = "repro-kbisect-7-1-2",
				     .dir = dir,
				     .comment = "kbisect repro -- as booted" };
	struct kb_err err = KB_ERR_INIT;

	if (kb_domxml_relocate(xml, &mv, out, &err))
		fail_msg("relocate: %s\n%s", err.msg, xml);
	assert_non_null(out->xml);
}

/* qemu (TCG): every file of the boot folder moves; what is not in it,
 * the shape and the command line stay; the owner goes. */
static void test_domxml__relocate_moves_the_boot_folder(void **state)
{
	struct kb_guest g = vm_guest(KB_HV_QEMU);
	struct kb_domxml_moved m;
	char *xml = as_booted(&g, "/var/tmp/kbisect-boot-AbC123", 1);

	(void)state;
	relocate_ok(xml, "/home/dev/bug 42", &m);
	assert_string_equal(m.type, "qemu");
	assert_string_equal(m.cmdline, "console=ttyS0 panic=-1 quiet");
	assert_string_equal(m.console_log, "/home/dev/bug 42/console.log");
	assert_int_equal(m.nscratch, 1);
	assert_string_equal(m.scratch[0], "/home/dev/bug 42/scratch.raw");
	assert_has(m.xml, "<!-- kbisect repro - - as booted -->\n<domain type=\"qemu\">");
	assert_has(m.xml, "<name>repro-kbisect-7-1-2</name>");
	assert_has(m.xml, "<kernel>/home/dev/bug 42/kernel</kernel>");
	assert_has(m.xml, "<initrd>/home/dev/bug 42/initrd</initrd>");
	assert_has(m.xml, "<cmdline>console=ttyS0 panic=-1 quiet</cmdline>");
	assert_has(m.xml, "<source file=\"/home/dev/bug 42/scratch.raw\"/>");
	assert_has(m.xml, "<source file=\"/srv/data.raw\"/>");
	assert_has(m.xml, "<source path=\"/home/dev/bug 42/console.log\" append=\"off\"/>");
	assert_has(m.xml, "<vcpupin vcpu=\"1\" cpuset=\"3\"/>");
	assert_has(m.xml, "<on_poweroff>destroy</on_poweroff>");
	assert_lacks(m.xml, "kbisect-boot-");
	assert_lacks(m.xml, "metadata");
	assert_lacks(m.xml, "pid=42");
	assert_lacks(m.xml, "<?xml");
	validate(m.xml);
	kb_domxml_moved_release(&m);
	assert_null(m.xml);
	kb_domxml_moved_release(NULL);
	free(xml);
}

/* kvm reads its console from a pty: the copy logs it to a file, which a
 * script can read without a terminal. */
static void test_domxml__relocate_turns_a_pty_console_into_a_file(void **state)
{
	struct kb_guest g = vm_guest(KB_HV_KVM);
	struct kb_domxml_moved m;
	char *xml = as_booted(&g, "/tmp/kbisect-boot-x", 0);

	(void)state;
	assert_has(xml, "<serial type=\"pty\">");
	relocate_ok(xml, "/r", &m);
	assert_string_equal(m.type, "kvm");
	assert_string_equal(m.console_log, "/r/console.log");
	assert_has(m.xml, "<serial type=\"file\">");
	assert_has(m.xml, "<console type=\"file\">");
	assert_lacks(m.xml, "pty");
	validate(m.xml);
	kb_domxml_moved_release(&m);
	free(xml);
}

/* The Xen PV console is a pty only: it stays one. */
static void test_domxml__relocate_keeps_the_xen_pv_console(void **state)
{
	struct kb_guest g = xen_guest("pv");
	struct kb_domxml_moved m;
	char *xml = as_booted(&g, "/var/tmp/kbisect-boot-y", 0);

	(void)state;
	relocate_ok(xml, "/r", &m);
	assert_string_equal(m.type, "xen");
	assert_null(m.console_log);
	assert_int_equal(m.nscratch, 0);
	assert_has(m.xml, "<console type=\"pty\">");
	assert_has(m.xml, "<kernel>/r/kernel</kernel>");
	assert_has(m.xml, "<address domain=\"0x0000\" bus=\"0x04\" slot=\"0x00\" function=\"0x0\"/>");
	validate(m.xml);
	kb_domxml_moved_release(&m);
	free(xml);
}

/* Paths and names with XML's special characters come out escaped, and
 * what is not a domain with a kernel is refused. */
static void test_domxml__relocate_escapes_and_refuses(void **state)
{
	struct kb_guest g = vm_guest(KB_HV_QEMU);
	struct kb_domxml_move mv = { .name = "a&b", .dir = "/r/<x>&'y'",
				     .comment = NULL };
	struct kb_domxml_moved m;
	struct kb_err err = KB_ERR_INIT;
	char *xml = as_booted(&g, "/var/tmp/b&o\"t", 1);

	(void)state;
	assert_int_equal(kb_domxml_relocate(xml, &mv, &m, &err), 0);
	assert_has(m.xml, "<name>a&amp;b</name>");
	assert_has(m.xml, "<kernel>/r/&lt;x&gt;&amp;'y'/kernel</kernel>");
	assert_has(m.xml, "/r/&lt;x&gt;&amp;'y'/scratch.raw\"");
	assert_string_equal(m.scratch[0], "/r/<x>&'y'/scratch.raw");
	assert_lacks(m.xml, "b&amp;o");
	validate(m.xml);
	kb_domxml_moved_release(&m);
	free(xml);
	assert_int_equal(kb_domxml_relocate("<capabilities/>", &mv, &m, &err),
			 KB_EINPUT);
	assert_null(m.xml);
	kb_err_clear(&err);
	assert_int_equal(kb_domxml_relocate("<domain type='qemu'><os/></domain>",
					    &mv, &m, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "no <os><kernel>");
	kb_err_clear(&err);
	assert_int_equal(kb_domxml_relocate("not xml", &mv, &m, &err),
			 KB_EINPUT);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_domxml__xen_pv_validates),
	cmocka_unit_test(test_domxml__xen_pvh_validates),
	cmocka_unit_test(test_domxml__xen_hvm_validates),
	cmocka_unit_test(test_domxml__kvm_virtio_disks_validate),
	cmocka_unit_test(test_domxml__qemu_file_serial_logs_validate),
	cmocka_unit_test(test_domxml__special_characters_are_escaped),
	cmocka_unit_test(test_domxml__refuses_what_the_guest_cannot_have),
	cmocka_unit_test(test_domxml__relocate_moves_the_boot_folder),
	cmocka_unit_test(test_domxml__relocate_turns_a_pty_console_into_a_file),
	cmocka_unit_test(test_domxml__relocate_keeps_the_xen_pv_console),
	cmocka_unit_test(test_domxml__relocate_escapes_and_refuses),
};

KB_TEST_MAIN(tests)
