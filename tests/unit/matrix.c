#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "err.h"
#include "matrix.h"
#include "plan.h"
#include "variant.h"

/* Matrices are parsed as if they were this file, so relative paths
 * resolve into tests/data/matrix/. */
#define FILE_NAME KB_TEST_DATA "/matrix/t.yaml"

static struct kb_matrix *ok(const char *text)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &m, &err))
		fail_msg("unexpected error: %s", err.msg);
	return m;
}

/* Expect an input error whose message starts with t.yaml:LINE:COL and
 * contains @expect. */
static void bad(const char *text, unsigned line, unsigned col,
		const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	char where[128];

	assert_int_equal(kb_matrix_parse_buffer(text, strlen(text), FILE_NAME,
						&m, &err),
			 KB_EINPUT);
	assert_null(m);
	if (line)
		snprintf(where, sizeof(where), FILE_NAME ":%u:%u: ", line, col);
	else
		snprintf(where, sizeof(where), FILE_NAME ": ");
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("message \"%s\" does not start with \"%s\"", err.msg,
			 where);
	assert_msg_contains(err.msg, expect);
}

#define W "workload: { fio: { rw: randread }, metric: read_iops }\n"

static void test_matrix__full_example_parses(void **state)
{
	struct kb_matrix *m = ok(
		"name: xen-pvops-spinlocks\n"
		"source:\n"
		"  tree: /usr/src/linux\n"
		"  rev: v6.1\n"
		"  base: configs/base.config\n"
		"  fragments: [configs/fio-guest.fragment]\n"
		"factors:\n"
		"  kconfig:\n"
		"    CONFIG_PARAVIRT_SPINLOCKS: [y, n]\n"
		"    DEBUG_SPINLOCK: [n, y]\n"
		"    LOG_BUF_SHIFT: [17, 0x12]\n"
		"    CMDLINE: [\"\", \"quiet\"]\n"
		"  guest:\n"
		"    mode: [pvh, hvm]\n"
		"design: full\n"
		"guest:\n"
		"  hypervisor: xen\n"
		"  vcpus: 4\n"
		"  memory_mib: 1024\n"
		"  pin: [0, 0, 0, 0]\n"
		"  passthrough: [\"0000:04:00.0\", \"0000:1f:1f.7\"]\n"
		"workload:\n"
		"  fio: { rw: randread, bs: 4k, iodepth: 32, direct: 1 }\n"
		"  metric: read_iops\n"
		"repeat: { boots: 3, runs_per_boot: 2, max_boots: 10 }\n"
		"compare: { threshold_pct: 5, alpha: 0.05 }\n"
		"hosts:\n"
		"  - uri: xen:///system\n"
		"  - xen+ssh://root@bench2/system\n");
	const struct kb_factor *f;

	(void)state;
	assert_string_equal(kb_matrix_name(m), "xen-pvops-spinlocks");
	assert_int_equal(kb_matrix_nfactors(m), 5);
	f = kb_matrix_factor(m, 0);
	assert_string_equal(f->name, "PARAVIRT_SPINLOCKS");
	assert_int_equal(f->kind, KB_FACTOR_KCONFIG);
	assert_int_equal(f->nlevels, 2);
	assert_string_equal(f->levels[0].value, "y");
	assert_int_equal(f->loc.line, 9);
	assert_int_equal(f->loc.col, 5);
	f = kb_matrix_find_factor(m, "CMDLINE");
	assert_non_null(f);
	assert_true(f->levels[0].quoted);
	assert_string_equal(f->levels[1].value, "quiet");
	f = kb_matrix_find_factor(m, "guest.mode");
	assert_non_null(f);
	assert_int_equal(f->kind, KB_FACTOR_GUEST);
	assert_string_equal(kb_matrix_source(m)->base,
			    KB_TEST_DATA "/matrix/configs/base.config");
	assert_int_equal(kb_matrix_source(m)->nfragments, 1);
	assert_int_equal(kb_matrix_guest(m)->npin, 4);
	assert_int_equal(kb_matrix_guest(m)->npassthrough, 2);
	assert_int_equal(kb_matrix_workload(m)->nfio, 4);
	assert_int_equal(kb_matrix_repeat(m)->runs_per_boot, 2);
	assert_int_equal(kb_matrix_nhosts(m), 2);
	assert_string_equal(kb_matrix_host(m, 1)->uri,
			    "xen+ssh://root@bench2/system");
	kb_matrix_free(m);
}

static void test_matrix__defaults(void **state)
{
	struct kb_matrix *m = ok(W);

	(void)state;
	assert_string_equal(kb_matrix_name(m), "t");
	assert_int_equal(kb_matrix_design(m), KB_DESIGN_FULL);
	assert_int_equal(kb_matrix_nfactors(m), 0);
	assert_int_equal(kb_matrix_repeat(m)->boots, 3);
	assert_int_equal(kb_matrix_repeat(m)->runs_per_boot, 1);
	assert_int_equal(kb_matrix_repeat(m)->max_boots, 10);
	assert_true(kb_matrix_compare(m)->threshold_pct == 5.0);
	assert_true(kb_matrix_compare(m)->alpha == 0.05);
	assert_int_equal(kb_matrix_guest(m)->hypervisor, KB_HV_XEN);
	assert_string_equal(kb_matrix_guest(m)->mode, "pvh");
	assert_string_equal(kb_matrix_host(m, 0)->uri, "xen:///system");
	kb_matrix_free(m);
}

static void test_matrix__workload_monitors(void **state)
{
	struct kb_matrix *m = ok(W);

	(void)state;
	/* every source when not given; [] none; a list those */
	assert_int_equal(kb_matrix_workload(m)->monitors, KB_MONITOR_DEFAULT);
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: randread }, monitors: [] }\n");
	assert_int_equal(kb_matrix_workload(m)->monitors, 0);
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: randread }, monitors: [perf, vmstat] }\n");
	assert_int_equal(kb_matrix_workload(m)->monitors,
			 KB_MONITOR_PERF | KB_MONITOR_VMSTAT);
	assert_string_equal(kb_workload_monitor_name(3), "lock_stat");
	assert_null(kb_workload_monitor_name(KB_MONITOR_SOURCES));
	kb_matrix_free(m);
	bad("workload: { fio: { rw: randread }, monitors: [vmstat, interupts] }\n",
	    1, 55,
	    "invalid workload.monitors source 'interupts' (did you mean 'interrupts'?)");
	bad("workload: { fio: { rw: randread }, monitors: [perf, perf] }\n", 1,
	    53, "workload.monitors names 'perf' twice");
	bad("workload: { fio: { rw: randread }, monitors: vmstat }\n", 1, 46,
	    "workload.monitors");
}

static void test_matrix__workload_profile(void **state)
{
	struct kb_matrix *m = ok(W);

	(void)state;
	/* off when absent; {} the default rate; a frequency that one */
	assert_int_equal(kb_matrix_workload(m)->profile_hz, 0);
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: randread }, profile: {} }\n");
	assert_int_equal(kb_matrix_workload(m)->profile_hz,
			 KB_PROFILE_DEFAULT_HZ);
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: randread }, profile: { frequency: 997 } }\n");
	assert_int_equal(kb_matrix_workload(m)->profile_hz, 997);
	kb_matrix_free(m);
	bad("workload: { fio: { rw: randread }, profile: { frequency: 0 } }\n",
	    1, 58,
	    "workload.profile.frequency must be an integer from 1 to 10000, found '0'");
	bad("workload: { fio: { rw: randread }, profile: { frequency: 10001 } }\n",
	    1, 58, "workload.profile.frequency");
	bad("workload: { fio: { rw: randread }, profile: { freq: 99 } }\n", 1,
	    47, "unknown key 'freq' in 'workload.profile'");
	bad("workload: { fio: { rw: randread }, profile: 99 }\n", 1, 45,
	    "workload.profile");
}

static void test_matrix__config_prefix_is_normalised(void **state)
{
	struct kb_matrix *m =
		ok("factors: { kconfig: { CONFIG_DEBUG_KMEMLEAK: [n, y] } }\n" W);

	(void)state;
	assert_string_equal(kb_matrix_factor(m, 0)->name, "DEBUG_KMEMLEAK");
	kb_matrix_free(m);
}

static void test_matrix__syntax_error_has_line_and_column(void **state)
{
	(void)state;
	bad("factors:\n  kconfig: [y, n\n" W, 3, 9, "YAML syntax error");
}

static void test_matrix__unknown_key_has_line_and_column(void **state)
{
	(void)state;
	bad(W "factorz:\n  kconfig: {}\n", 2, 1,
	    "unknown key 'factorz' in the matrix (did you mean 'factors'?)");
	bad(W "repeat:\n  boot: 3\n", 3, 3,
	    "unknown key 'boot' in 'repeat' (did you mean 'boots'?)");
	bad(W "zzz: 1\n", 2, 1, "unknown key 'zzz' in the matrix: expected one of name,");
}

static void test_matrix__wrong_type(void **state)
{
	(void)state;
	bad(W "repeat: [3]\n", 2, 9, "'repeat' must be a mapping, found a list");
	bad(W "factors:\n  kconfig:\n    DEBUG_SPINLOCK: y\n", 4, 21,
	    "factor DEBUG_SPINLOCK must be a list of levels");
	bad(W "guest: { vcpus: four }\n", 2, 17,
	    "guest.vcpus must be an integer from 1 to 512, found 'four'");
	bad(W "guest: { vcpus: '4' }\n", 2, 17,
	    "guest.vcpus must be an integer from 1 to 512, found the string \"4\"");
	bad(W "compare: { alpha: \"0.01\" }\n", 2, 19,
	    "compare.alpha must be a number, found the string \"0.01\"");
}

static void test_matrix__empty_factor_list(void **state)
{
	(void)state;
	bad(W "factors:\n  kconfig:\n    DEBUG_SPINLOCK: []\n", 4, 21,
	    "factor DEBUG_SPINLOCK has no levels");
}

static void test_matrix__duplicate_factor(void **state)
{
	(void)state;
	bad(W "factors:\n  kconfig:\n    DEBUG_SPINLOCK: [n, y]\n"
	      "    CONFIG_DEBUG_SPINLOCK: [y]\n",
	    5, 5, "duplicate factor 'DEBUG_SPINLOCK' (first at line 4)");
	bad(W "factors:\n  kconfig:\n    A: [n]\n    A: [y]\n", 5, 5,
	    "duplicate key 'A' (first at line 4)");
}

static void test_matrix__duplicate_level(void **state)
{
	(void)state;
	bad(W "factors: { kconfig: { A: [y, n, y] } }\n", 2, 33,
	    "level 'y' of A is listed twice");
}

static void test_matrix__invalid_option_name(void **state)
{
	(void)state;
	bad(W "factors:\n  kconfig:\n    paravirt_spinlocks: [y, n]\n", 4, 5,
	    "invalid option name 'paravirt_spinlocks': Kconfig symbols are upper case letters, digits and _ (did you mean 'PARAVIRT_SPINLOCKS'?)");
	bad(W "factors:\n  kconfig:\n    \"DEBUG SPINLOCK\": [y]\n", 4, 5,
	    "invalid option name 'DEBUG SPINLOCK'");
	bad(W "factors:\n  kconfig:\n    CONFIG_: [y]\n", 4, 5,
	    "invalid option name 'CONFIG_'");
}

static void test_matrix__invalid_level(void **state)
{
	(void)state;
	bad(W "factors: { kconfig: { A: [y, yes] } }\n", 2, 30,
	    "invalid level 'yes' for A: Kconfig levels are y, n, m, a number or a quoted string (write y)");
	bad(W "factors: { kconfig: { A: [y, maybe] } }\n", 2, 30,
	    "invalid level 'maybe' for A: expected y, n, m, a number, or a quoted string");
	bad(W "factors: { kconfig: { A: [0x] } }\n", 2, 27, "invalid level '0x'");
	bad(W "factors: { kconfig: { A: [[y]] } }\n", 2, 27,
	    "a Kconfig level must be a scalar, found a list");
	bad(W "factors: { guest: { mode: [pvh, hvn] } }\n", 2, 33,
	    "invalid guest mode 'hvn' (did you mean 'hvm'?)");
}

static void test_matrix__bad_pci_address(void **state)
{
	(void)state;
	bad(W "guest:\n  passthrough: [\"04:00.0\"]\n", 3, 17,
	    "invalid PCI address '04:00.0': expected DDDD:BB:SS.F");
	bad(W "guest:\n  passthrough: [\"0000:04:20.0\"]\n", 3, 17,
	    "invalid PCI address '0000:04:20.0'");
	bad(W "guest:\n  passthrough: [\"0000:04:00.8\"]\n", 3, 17,
	    "invalid PCI address");
}

static void test_matrix__pin_length_must_match_vcpus(void **state)
{
	struct kb_matrix *m;

	(void)state;
	bad(W "guest:\n  vcpus: 4\n  pin: [0, 0, 0]\n", 4, 8,
	    "guest.pin lists 3 vCPUs but guest.vcpus is 4");
	bad(W "guest:\n  pin: [0, x]\n", 3, 12,
	    "a physical CPU number must be an integer");
	/* a pin factor overrides the guest section's pin in every variant */
	m = ok(W "guest:\n  vcpus: 2\n  pin: [0]\nfactors:\n  guest:\n"
		 "    pin: [null, [1, 1]]\n");
	assert_string_equal(kb_matrix_factor(m, 0)->levels[0].value, "none");
	kb_matrix_free(m);
}

static void test_matrix__repeats_must_be_positive(void **state)
{
	(void)state;
	bad(W "repeat: { boots: 0 }\n", 2, 18,
	    "repeat.boots must be an integer from 1 to 1000, found '0'");
	bad(W "repeat: { boots: -2 }\n", 2, 18, "found '-2'");
	bad(W "repeat: { runs_per_boot: 0 }\n", 2, 26,
	    "repeat.runs_per_boot must be an integer");
	bad(W "repeat: { boots: 5, max_boots: 4 }\n", 2, 32,
	    "repeat.max_boots (4) is less than repeat.boots (5)");
	bad(W "compare: { alpha: 0.9 }\n", 2, 19,
	    "compare.alpha must be a number greater than 0 and less than 0.5");
}

/* repeat.order: blocks by default, sequential on request, nothing else
 * (lib/order.h) */
static void test_matrix__repeat_order_is_blocks_or_sequential(void **state)
{
	static const char seq[] = W "repeat: { order: sequential }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	(void)state;
	if (kb_matrix_parse_buffer(W, strlen(W), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_matrix_repeat(m)->order, KB_ORDER_BLOCKS);
	kb_matrix_free(m);
	if (kb_matrix_parse_buffer(seq, strlen(seq), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_matrix_repeat(m)->order, KB_ORDER_SEQUENTIAL);
	kb_matrix_free(m);
	bad(W "repeat: { order: random }\n", 2, 18,
	    "invalid repeat.order 'random': expected blocks or sequential");
}

/* repeat.sentinel: off by default, true or false, nothing else (the
 * experiment's own A/A, lib/plan.h) */
static void test_matrix__repeat_sentinel_is_true_or_false(void **state)
{
	static const char on[] = W "repeat: { boots: 8, sentinel: true }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	(void)state;
	if (kb_matrix_parse_buffer(W, strlen(W), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_matrix_repeat(m)->sentinel, 0);
	kb_matrix_free(m);
	if (kb_matrix_parse_buffer(on, strlen(on), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_matrix_repeat(m)->sentinel, 1);
	assert_int_equal(kb_matrix_repeat(m)->boots, 8);
	kb_matrix_free(m);
	bad(W "repeat: { sentinel: yes please }\n", 2, 21,
	    "invalid repeat.sentinel 'yes please': expected false or true");
	bad(W "repeat: { sentinels: true }\n", 2, 11,
	    "unknown key 'sentinels' in 'repeat' (did you mean 'sentinel'?)");
}

static void test_matrix__guest_image(void **state)
{
	struct kb_matrix *m;
	const struct kb_guest_image *im;

	(void)state;
	m = ok(W "guest:\n  image:\n    packages: [sysbench, g++, libc6.1]\n"
		 "    suite: bookworm-backports\n    size_mib: 2048\n");
	im = kb_matrix_guest(m)->image;
	assert_non_null(im);
	assert_int_equal(im->npackages, 3);
	assert_string_equal(im->packages[1], "g++");
	assert_string_equal(im->suite, "bookworm-backports");
	assert_int_equal(im->size_mib, 2048);
	assert_int_equal(kb_matrix_workload(m)->nfiles, 0);
	kb_matrix_free(m);
	m = ok(W);
	assert_null(kb_matrix_guest(m)->image);
	kb_matrix_free(m);

	bad(W "guest:\n  image: [fio]\n", 3, 10,
	    "guest.image must be a mapping");
	bad(W "guest:\n  image: { suite: bookworm }\n", 3, 10,
	    "guest.image needs 'packages'");
	bad(W "guest:\n  image: { packages: [] }\n", 3, 22,
	    "must list 1 to 256 packages, found 0");
	bad(W "guest:\n  image: { packages: [fio, \"fio,evil\"] }\n", 3, 28,
	    "invalid Debian package name 'fio,evil'");
	bad(W "guest:\n  image: { packages: [-fio] }\n", 3, 23,
	    "invalid Debian package name '-fio'");
	bad(W "guest:\n  image: { packages: [fio], suite: \"../x\" }\n", 3,
	    36, "invalid suite '../x'");
	/* the suite is an argument of mmdebstrap: never an option */
	bad(W "guest:\n  image: { packages: [fio], suite: --dry-run }\n", 3,
	    36, "invalid suite '--dry-run': expected a Debian suite such as bookworm");
	bad(W "guest:\n  image: { packages: [fio], suite: \"-v\" }\n", 3,
	    36, "invalid suite '-v'");
	bad(W "guest:\n  image: { packages: [fio], suite: 12 }\n", 3, 36,
	    "invalid suite '12'");
	bad(W "guest:\n  image: { packages: [fio], size_mib: 1 }\n", 3, 39,
	    "guest.image.size_mib must be an integer from 64");
	bad(W "guest:\n  image: { packages: [fio], pkgs: [x] }\n", 3, 29,
	    "unknown key 'pkgs'");
}

/* A host URI of a matrix runs nothing here and names no key file,
 * unless the matrix is trusted (KBISECT_TRUST_MATRIX=1). */
static void test_matrix__host_uris_that_run_programs_are_refused(void **state)
{
	static const struct {
		const char *uri, *why;
	} refused[] = {
		{ "qemu+ext:///system?command=/tmp/prog",
		  "the ext transport runs a program on this machine" },
		{ "qemu+ext:///system", "the ext transport" },
		{ "qemu+ssh://b/system?command=/tmp/ssh",
		  "its parameter 'command' names a program that this machine runs" },
		{ "qemu+ssh://b/system?mode=direct&netcat=/tmp/nc",
		  "its parameter 'netcat' names a program" },
		{ "qemu+ssh://b/system?keyfile=/root/.ssh/id_rsa",
		  "its parameter 'keyfile' names a private key file" },
		{ "xen+tls://b/system?pkipath=/tmp/pki",
		  "its parameter 'pkipath'" },
		{ "qemu+libssh://b/system?known_hosts=/etc/shadow",
		  "its parameter 'known_hosts'" },
		{ "qemu:///system?socket=/tmp/evil.sock",
		  "its parameter 'socket' names a socket" },
		{ "qemu:///system?so%63ket=/tmp/evil.sock",
		  "its parameter 'socket'" },
		{ "qemu+tls://b/system?no_verify=1",
		  "its parameter 'no_verify' turns off the check" },
		{ "qemu+ssh://b/system?mode=direct;command=/tmp/ssh",
		  "its parameter 'command'" },
		{ "qemu:///embed?root=/tmp/x",
		  "its parameter 'root' is not one kbisect knows" },
	};
	static const char *const accepted[] = {
		"qemu:///system",
		"xen:///system",
		"test:///default",
		"xen+ssh://root@bench2/system",
		"qemu+ssh://b:2222/system?mode=direct&no_tty=1&proxy=native",
		"qemu+libssh2://b/system?sshauth=privkey,agent",
		"qemu+tls://b/system?tls_priority=NORMAL",
		"xen+tcp://127.0.0.1:16510/system",
	};
	static const char text[] =
		W "hosts: [\"qemu+ext:///system?command=/tmp/prog\"]\n";
	struct kb_host_route r;
	char buf[256];
	size_t i;

	(void)state;
	unsetenv("KBISECT_TRUST_MATRIX");
	for (i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		const char *why = kb_host_uri_refused(refused[i].uri, buf,
						      sizeof(buf));

		assert_non_null(why);
		assert_msg_contains(why, refused[i].why);
	}
	for (i = 0; i < sizeof(accepted) / sizeof(*accepted); i++)
		assert_null(kb_host_uri_refused(accepted[i], buf, sizeof(buf)));

	/* in a matrix: at the URI, saying how to trust it */
	bad(W "hosts: [\"qemu+ext:///system?command=/tmp/prog\"]\n", 2, 9,
	    "host URI 'qemu+ext:///system?command=/tmp/prog' is refused: the ext transport runs a program on this machine (its ?command=); a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1, docs/matrix.md \"Hosts\")");
	bad(W "hosts:\n  - { uri: \"qemu+ssh://b/system?keyfile=/k\", capacity: 2 }\n",
	    3, 12, "its parameter 'keyfile' names a private key file of this machine");
	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "1", 1), 0);
	kb_matrix_free(ok(text));
	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "yes", 1), 0);
	bad(text, 2, 9, "is refused: the ext transport");
	unsetenv("KBISECT_TRUST_MATRIX");

	kb_host_route("qemu+ssh://root@bench2:2222/system?mode=direct", &r);
	assert_string_equal(r.transport, "ssh");
	assert_string_equal(r.host, "bench2");
	kb_host_route("qemu:///system", &r);
	assert_string_equal(r.transport, "unix");
	assert_string_equal(r.host, "");
	kb_host_route("xen://[::1]:16514/system", &r);
	assert_string_equal(r.transport, "tls");
	assert_string_equal(r.host, "[::1]");
}

static void test_matrix__workload_files(void **state)
{
	struct kb_matrix *m;
	const struct kb_workload *w;

	(void)state;
	m = ok("guest: { image: { packages: [tar] } }\n"
	       "workload:\n  command: { run: \"tar tf /data/job.fio\" }\n"
	       "  files: [job.fio, configs/base.config]\n");
	w = kb_matrix_workload(m);
	assert_int_equal(w->nfiles, 2);
	assert_string_equal(w->files[0], KB_TEST_DATA "/matrix/job.fio");
	kb_matrix_free(m);

	bad("workload:\n  command: { run: \"true\" }\n  files: [job.fio]\n",
	    3, 10, "workload.files needs guest.image");
	bad("guest: { image: { packages: [tar] } }\n"
	    "workload:\n  command: { run: \"true\" }\n  files: [nope.tar]\n",
	    4, 11, "workload file 'nope.tar' does not exist");
	bad("guest: { image: { packages: [tar] } }\n"
	    "workload:\n  command: { run: \"true\" }\n"
	    "  files: [job.fio, configs/../job.fio]\n",
	    4, 20, "both would be /data/job.fio in the image");
	bad("guest: { image: { packages: [tar] } }\n"
	    "workload:\n  command: { run: \"true\" }\n  files: job.fio\n",
	    4, 10, "workload.files must be a list");
}

static void test_matrix__missing_referenced_files(void **state)
{
	(void)state;
	bad(W "source:\n  base: configs/nope.config\n", 3, 9,
	    "base .config 'configs/nope.config' does not exist");
	bad(W "source:\n  fragments:\n    - configs/fio-guest.fragment\n"
	      "    - missing.fragment\n",
	    5, 7, "config fragment 'missing.fragment' does not exist");
	bad("workload: { fio_job: nope.fio }\n", 1, 22,
	    "fio job file 'nope.fio' does not exist");
	bad(W "source:\n  base: configs\n", 3, 9, "is a folder");
}

static void test_matrix__base_may_be_a_make_target(void **state)
{
	struct kb_matrix *m = ok(W "source: { base: tinyconfig }\n");

	(void)state;
	assert_true(kb_matrix_source(m)->base_is_target);
	assert_string_equal(kb_matrix_source(m)->base, "tinyconfig");
	kb_matrix_free(m);
}

/*
 * A matrix stored with an experiment is read back without the disk: the
 * files it names may be gone, and the folder the reader runs in does not
 * matter (issue 10).
 */
static void test_matrix__stored_text_is_read_without_the_disk(void **state)
{
	static const char text[] =
		"source: { tree: linux, base: gone/base.config,\n"
		"          fragments: [gone/a.fragment, /gone/b.fragment],\n"
		"          kernel: gone/bzImage }\n"
		"factors: { kernel: { image: [img/a, img/b] } }\n"
		"guest: { disks: [gone/disk.img] }\n"
		"workload: { fio_job: gone/job.fio, metric: read_iops }\n";
	static const char target[] = W "source: { base: tinyconfig }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	const struct kb_source *src;
	const struct kb_factor *f;

	(void)state;
	/* read from the disk, the first missing file is refused */
	assert_int_equal(kb_matrix_parse_buffer(text, sizeof(text) - 1,
						"/exp/m.yaml", &m, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "does not exist");
	/* stored: every path joined to the matrix's folder, as text */
	kb_err_clear(&err);
	if (kb_matrix_parse_stored(text, sizeof(text) - 1, "/exp/m.yaml", &m,
				   &err))
		fail_msg("%s", err.msg);
	src = kb_matrix_source(m);
	assert_string_equal(src->tree, "/exp/linux");
	assert_string_equal(src->base, "/exp/gone/base.config");
	assert_false(src->base_is_target);
	assert_int_equal(src->nfragments, 2);
	assert_string_equal(src->fragments[0], "/exp/gone/a.fragment");
	assert_string_equal(src->fragments[1], "/gone/b.fragment");
	assert_string_equal(src->kernel, "/exp/gone/bzImage");
	f = kb_matrix_find_factor(m, "kernel.image");
	assert_non_null(f);
	assert_string_equal(f->levels[1].value, "/exp/img/b");
	assert_string_equal(kb_matrix_guest(m)->disks[0], "/exp/gone/disk.img");
	assert_string_equal(kb_matrix_workload(m)->fio_job, "/exp/gone/job.fio");
	kb_matrix_free(m);
	/* a relative matrix path stays relative: the same text and path
	 * give the same paths from any folder */
	if (kb_matrix_parse_stored(text, sizeof(text) - 1, "exp/m.yaml", &m,
				   &err))
		fail_msg("%s", err.msg);
	assert_string_equal(kb_matrix_source(m)->kernel, "exp/gone/bzImage");
	kb_matrix_free(m);
	/* a base that looks like a make target is one */
	if (kb_matrix_parse_stored(target, sizeof(target) - 1, "/exp/m.yaml",
				   &m, &err))
		fail_msg("%s", err.msg);
	assert_true(kb_matrix_source(m)->base_is_target);
	assert_string_equal(kb_matrix_source(m)->base, "tinyconfig");
	kb_matrix_free(m);
	/* every check that does not need the disk still holds */
	assert_int_equal(kb_matrix_parse_stored("workload: {}\n", 13,
						"/exp/m.yaml", &m, &err),
			 KB_EINPUT);
	assert_null(m);
	assert_msg_contains(err.msg, "/exp/m.yaml:1:11: workload needs one of");
}

static void test_matrix__workload_rules(void **state)
{
	struct kb_matrix *m;

	(void)state;
	bad("name: x\n", 1, 1, "missing required key 'workload'");
	bad("workload: {}\n", 1, 11, "workload needs one of 'fio'");
	bad("workload: { fio: { rw: read }, command: { run: ls } }\n", 1, 41,
	    "workload has both 'fio' and 'command'");
	bad("workload: { command: { run: ls, regex: '(a' } }\n", 1, 40,
	    "invalid regex");
	bad("workload: { command: { run: ls, regex: 'a' } }\n", 1, 40,
	    "exactly one (group)");
	bad("workload: { fio: { rw: randrw } }\n", 1, 11,
	    "workload.fio mixes reads and writes: give 'metric'");
	bad("workload: { fio_job: job.fio }\n", 1, 11,
	    "workload needs 'metric'");
	bad("workload: { fio: { rw: read }, metric: 9iops }\n", 1, 40,
	    "invalid metric name '9iops'");
	m = ok("workload: { fio: { bs: 4k } }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "read_iops");
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: \"randtrim:8\" } }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "trim_iops");
	kb_matrix_free(m);
	bad("workload: { fio: { rw: { a: b } }, metric: read_iops }\n", 1, 24,
	    "a fio option value must be a scalar");
	m = ok("workload: { command: { run: \"tar xf /data/a.tar\" } }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "real_s");
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: randwrite } }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "write_iops");
	kb_matrix_free(m);
	m = ok("workload: { fio_job: job.fio, metric: read_iops }\n");
	assert_string_equal(kb_matrix_workload(m)->fio_job,
			    KB_TEST_DATA "/matrix/job.fio");
	kb_matrix_free(m);
}

/*
 * A fio option value is one line of fio's job file: a newline would
 * start options of the matrix's choosing.  The loader refuses it where
 * it was written, for plan, run, submit and the daemon alike (they all
 * load the matrix text through kb_matrix_parse_buffer()).
 */
static void test_matrix__newline_in_fio_value_has_its_position(void **state)
{
	(void)state;
	bad("workload:\n  fio:\n    rw: randread\n"
	    "    bs: \"4k\\nexec_prerun=touch /tmp/x\"\n",
	    4, 9,
	    "a fio option value contains a control character (U+000A, a newline)");
	bad("workload:\n  fio:\n    rw: |\n      randread\n", 3, 9,
	    "a fio option value contains a control character (U+000A, a newline)");
	bad("workload:\n  fio: { rw: \"read\\r\" }\n", 2, 14,
	    "a fio option value contains a control character (U+000D, a carriage return)");
}

/* Every string the tools print or pass on refuses ESC, BEL and the like
 * (lib/ycheck.h's kb_ycheck_string()); a command may span lines. */
static void test_matrix__control_characters_are_refused(void **state)
{
	struct kb_matrix *m;

	(void)state;
	bad("factors:\n  kconfig:\n    CMDLINE: [\"\", \"\\e[2J\"]\n" W, 3, 19,
	    "invalid string level for CMDLINE: it contains a control character (U+001B, ESC)");
	bad("factors:\n  kernel:\n    rev: [v6.1, \"v6.2\\a\"]\n" W, 3, 17,
	    "a kernel.rev level contains a control character (U+0007, BEL)");
	bad("name: \"x\\x01\"\n" W, 1, 7,
	    "name contains a control character (U+0001)");
	bad("name: \"x\\x7f\"\n" W, 1, 7,
	    "name contains a control character (U+007F)");
	bad("name: \"x\\x9b\"\n" W, 1, 7,
	    "name contains a control character (U+009B, CSI)");
	bad("source: { rev: \"main\\e]0;owned\\a\" }\n" W, 1, 16,
	    "source.rev contains a control character (U+001B, ESC)");
	bad(W "hosts: [\"qemu:///system\\e[1A\"]\n", 2, 9,
	    "a host URI contains a control character (U+001B, ESC)");
	bad(W "build: { make_args: [\"V=1\\e[K\"] }\n", 2, 22,
	    "a make argument contains a control character (U+001B, ESC)");
	bad("workload: { fio: { rw: \"read\\e[31m\" } }\n", 1, 24,
	    "a fio option value contains a control character (U+001B, ESC)");
	bad("workload: { command: { run: \"ls\\e[2J\" } }\n", 1, 29,
	    "workload.command.run contains a control character (U+001B, ESC)");
	bad("workload:\n  command: { run: x, regex: \"([0-9]+)\\tMB\" }\n"
	    "  metric: mb_s\n",
	    2, 29,
	    "workload.command.regex contains a control character (U+0009, a tab)");
	m = ok("workload:\n  command:\n    run: |\n      cd /tmp\n"
	       "      \tbusybox true\n");
	assert_string_equal(kb_matrix_workload(m)->command,
			    "cd /tmp\n\tbusybox true\n");
	kb_matrix_free(m);
	m = ok("name: \"caf\\u00e9\"\n" W);
	assert_string_equal(kb_matrix_name(m), "caf\xc3\xa9");
	kb_matrix_free(m);
}

static void test_matrix__regex_size_is_bounded(void **state)
{
	struct kb_matrix *m;

	(void)state;
	/* found by the fuzzer: gigabytes for glibc's regcomp() */
	bad("workload:\n  command: { run: x, regex: \"(a{,1100}){100}\" }\n"
	    "  metric: m\n",
	    2, 29, "repeats something 1100 times");
	bad("workload:\n  command: { run: x, regex: \"(a{0,20}){2}\" }\n"
	    "  metric: m\n",
	    2, 29, "repeats something 20 times");
	bad("workload:\n  command: { run: x, regex: \"(a{1}b{1}c{1})\" }\n"
	    "  metric: m\n",
	    2, 29, "more than 2 counted repetitions");
	/* found by make fuzz-run: each stacked '+' doubled regcomp's memory */
	bad("workload:\n  command: { run: x, regex: \"(an+++++d)\" }\n"
	    "  metric: m\n",
	    2, 29, "repeats a repetition ('++')");
	bad("workload:\n  command: { run: x, regex: \"a{2}*\" }\n"
	    "  metric: m\n",
	    2, 29, "repeats a repetition ('}*')");
	/* and so does a repeated group in a repeated group */
	bad("workload:\n  command: { run: x, regex: \"(((((a+)+)+)+)+)+\" }\n"
	    "  metric: m\n",
	    2, 29, "nests groups more than 4 deep");
	m = ok("workload:\n  command: { run: x, regex: \"([0-9]{1,3}) MB/s\" }\n"
	       "  metric: mb_s\n");
	kb_matrix_free(m);
	/* in a bracket expression, '+' and '{' are characters */
	m = ok("workload:\n  command: { run: x, regex: \"[]+*{]+ ([0-9]+)\" }\n"
	       "  metric: m\n");
	kb_matrix_free(m);
}

static void test_matrix__null_sections_are_absent(void **state)
{
	struct kb_matrix *m = ok(W "guest:\nrepeat: ~\nfactors: null\n");

	(void)state;
	assert_int_equal(kb_matrix_nfactors(m), 0);
	assert_int_equal(kb_matrix_repeat(m)->boots, 3);
	kb_matrix_free(m);
	bad("workload: null\n", 1, 1, "missing required key 'workload'");
}

static void test_matrix__design_names(void **state)
{
	struct kb_matrix *m = ok(W "design: one-at-a-time\n");

	(void)state;
	assert_int_equal(kb_matrix_design(m), KB_DESIGN_ONE_AT_A_TIME);
	kb_matrix_free(m);
	bad(W "design: fractionl\n", 2, 9,
	    "invalid design 'fractionl' (did you mean 'fractional'?)");
}

static void test_matrix__guest_mode_needs_xen(void **state)
{
	(void)state;
	bad(W "guest: { hypervisor: qemu, mode: pv }\n", 2, 34,
	    "guest mode 'pv' needs hypervisor xen");
	bad(W "guest: { hypervisor: kvm }\nfactors: { guest: { mode: [hvm, pvh] } }\n",
	    3, 33, "guest mode 'pvh' needs hypervisor xen");
}

/* Any file serves as a prebuilt image here: job.fio, configs/base.config. */
static void test_matrix__prebuilt_image_refuses_kconfig_and_rev(void **state)
{
	struct kb_matrix *m;

	(void)state;
	/* the kernel.image factor is pointed at, whichever comes first */
	bad(W "factors:\n"
	      "  kconfig:\n"
	      "    PARAVIRT_SPINLOCKS: [y, n]\n"
	      "  kernel:\n"
	      "    image: [job.fio, configs/base.config]\n",
	    6, 5,
	    "factor kernel.image cannot be mixed with the Kconfig factor PARAVIRT_SPINLOCKS (line 4): a prebuilt image has its own config and revision");
	bad(W "factors:\n"
	      "  kernel: { image: [job.fio], rev: [v6.1, v6.6] }\n"
	      "  kconfig: { DEBUG_SPINLOCK: [n, y] }\n",
	    3, 13, "factor kernel.image cannot be mixed with factor kernel.rev (line 3)");
	bad(W "source: { tree: /usr/src/linux }\n"
	    "factors: { kconfig: { A: [n, y] }, kernel: { image: [job.fio] } }\n",
	    3, 46,
	    "drop the Kconfig and kernel.rev factors to compare images");

	/* source.kernel: the image is pointed at */
	bad(W "source:\n  kernel: job.fio\n"
	      "factors: { kconfig: { DEBUG_SPINLOCK: [n, y] } }\n",
	    3, 11,
	    "source.kernel cannot be mixed with the Kconfig factor DEBUG_SPINLOCK (line 4): a prebuilt image has its own config and revision, so Kconfig levels and kernel.rev cannot apply to it; build from source.tree instead");
	bad(W "source: { kernel: job.fio }\n"
	      "factors: { kernel: { rev: [v6.1, v6.6] } }\n",
	    2, 19, "mixed with factor kernel.rev (line 3)");
	/* with a tree too, every variant is built from it: the image is
	 * never booted (lib/exec/realexec.c prebuilt()) */
	bad(W "source: { tree: /usr/src/linux, kernel: job.fio }\n"
	      "factors: { kconfig: { A: [n, y] } }\n",
	    2, 41, "the image is never booted; drop source.kernel");

	/* images mix with guest factors, and with each other */
	m = ok(W "source: { tree: /usr/src/linux, kernel: job.fio }\n"
		 "factors:\n"
		 "  kernel: { image: [job.fio, configs/base.config] }\n"
		 "  guest: { vcpus: [1, 2] }\n");
	assert_int_equal(kb_matrix_nfactors(m), 2);
	kb_matrix_free(m);
	/* Kconfig and kernel.rev factors mix with a tree */
	m = ok(W "source: { tree: /usr/src/linux }\n"
		 "factors: { kconfig: { A: [n, y] }, kernel: { rev: [v1, v2] } }\n");
	kb_matrix_free(m);
}

static void test_matrix__hosts(void **state)
{
	(void)state;
	bad(W "hosts: []\n", 2, 8, "'hosts' is empty");
	bad(W "hosts: [{ url: x }]\n", 2, 11,
	    "unknown key 'url' in a host (did you mean 'uri'?)");
	bad(W "hosts: [localhost]\n", 2, 9, "invalid libvirt URI 'localhost'");
}

/* A machine host (hosts[].machine), in one line: "hosts: [{ machine: {"
 * puts the machine's first key at column 22 of line 2. */
#define MPCB "power: { cycle: [pc] }, console: [con], boot: { method: kexec, ssh: [ssh, root@b] }"

#define MH(body) W "hosts: [{ machine: { " body " } }]\n"

/* A machine as Xen's dom0 or natively: factors.machine, and the Xen a
 * machine boots unless a factor says; the plan's variants carry it. */
#define MX "name: b, power: { cycle: [pc] }, console: [con], boot: { method: command, command: [bc] }, known_good: { kernel: /k }"
static void test_matrix__machine_factors(void **state)
{
	static const char text[] =
	    "factors: { machine: { hypervisor: [none, xen], xen_cmdline: [\"dom0_max_vcpus=2 dom0_vcpus_pin\", sched=credit2] } }\n"
	    W "hosts: [{ machine: { " MX ", xen: /boot/xen.gz, xen_cmdline: dom0_mem=1G } }]\n";
	struct kb_err err = KB_ERR_INIT;
	const struct kb_variant *v;
	struct kb_matrix *m;
	struct kb_plan *p = NULL;
	size_t i, dom0 = 0;

	(void)state;
	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "1", 1), 0);
	m = ok(text);
	assert_string_equal(kb_machine_xen(kb_matrix_machine(m, 0)), "/boot/xen.gz");
	assert_string_equal(kb_machine_xen_cmdline(kb_matrix_machine(m, 0)), "dom0_mem=1G");
	assert_int_equal(kb_plan_new(m, &p, &err), 0);
	assert_int_equal(kb_plan_nvariants(p), 4);
	for (i = 0; i < 4; i++) {
		v = kb_plan_variant(p, i);
		dom0 += v->guest.dom0;
		assert_non_null(v->guest.xen_cmdline);
		assert_null(v->guest.xen);
	}
	assert_int_equal(dom0, 2);
	kb_plan_free(p);
	kb_matrix_free(m);

	/* Xen's own factor alone: every variant is dom0 */
	m = ok("factors: { machine: { xen: [job.fio, valid.yaml] } }\n" W
	       "hosts: [{ machine: { " MX " } }]\n");
	assert_int_equal(kb_plan_new(m, &p, &err), 0);
	for (i = 0; i < 2; i++)
		assert_true(kb_plan_variant(p, i)->guest.dom0);
	/* a level's file, resolved against the matrix's folder */
	assert_string_equal(kb_plan_variant(p, 1)->guest.xen,
			    KB_TEST_DATA "/matrix/valid.yaml");
	kb_plan_free(p);
	kb_matrix_free(m);

	bad("factors: { machine: { hypervisor: [none, xen] } }\n" W
	    "hosts: [qemu:///system]\n", 1, 23,
	    "factor machine.hypervisor changes what a machine boots: every host must be a machine");
	bad("factors: { machine: { hypervisor: [none, xen] } }\n" W
	    "hosts: [{ machine: { " MX " } }]\n", 1, 42,
	    "machine.hypervisor xen needs a Xen image");
	bad("factors: { machine: { xen_cmdline: [a=1, b=2] } }\n" W
	    "hosts: [{ machine: { " MX " } }]\n", 1, 23,
	    "machine.xen_cmdline boots every variant as Xen's dom0, which needs a Xen image");
	bad("factors: { machine: { hypervisor: [none, kvm] } }\n" W
	    "hosts: [{ machine: { " MX " } }]\n", 1, 42, "kvm");
	bad("factors: { machine: { xen_cmdline: [\"a=1\\tb\"] } }\n" W
	    "hosts: [{ machine: { " MX ", xen: /x } }]\n", 1, 37,
	    "a level contains a control character (U+0009, a tab)");
	bad("factors: { machine: { xen_cmdline: [\"a=1; reboot\"] } }\n" W
	    "hosts: [{ machine: { " MX ", xen: /x } }]\n", 1, 37,
	    "invalid level 'a=1; reboot' for machine.xen_cmdline: Xen's command line is letters, digits");
	bad("factors: { machine: { pin: [a] } }\n" W
	    "hosts: [{ machine: { " MX " } }]\n", 1, 23,
	    "unknown key 'pin' in 'factors.machine'");
	bad(W "hosts: [{ machine: { " MX ", xen_cmdline: a=1 } }]\n", 2, 154,
	    "machine.xen_cmdline needs 'xen'");
	/* kexec boots Linux, not Xen: a dom0 variant is refused where the
	 * factors make one, whichever factor does */
	bad("factors: { machine: { hypervisor: [none, xen] } }\n" W
	    "hosts: [{ machine: { name: b, " MPCB ", xen: /x } }]\n", 1, 42,
	    "boot method kexec boots Linux only; Xen's dom0 needs grub-reboot or command");
	bad("factors: { machine: { xen_cmdline: [a=1, b=2] } }\n" W
	    "hosts: [{ machine: { name: b, " MPCB ", xen: /x } }]\n", 1, 23,
	    "boot method kexec boots Linux only; Xen's dom0 needs grub-reboot or command");
	m = ok("factors: { machine: { hypervisor: [none] } }\n" W
	       "hosts: [{ machine: { name: b, " MPCB " } }]\n");
	kb_matrix_free(m);
	unsetenv("KBISECT_TRUST_MATRIX");
}
/* what a machine needs, after its name */
static void test_matrix__machine_hosts_parse(void **state)
{
	static const char text[] =
		W "hosts:\n"
		  "  - qemu:///system\n"
		  "  - machine:\n"
		  "      name: box1\n"
		  "      power:\n"
		  "        on: [ipmitool, -H, bmc1, chassis, power, on]\n"
		  "        off: [ipmitool, -H, bmc1, chassis, power, off]\n"
		  "        cycle: [ipmitool, -H, bmc1, chassis, power, cycle]\n"
		  "      console: [ipmitool, -H, bmc1, sol, activate]\n"
		  "      boot: { method: grub-reboot, ssh: [ssh, root@box1] }\n"
		  "      known_good:\n"
		  "        kernel: /boot/vmlinuz-6.1.0-13-amd64\n"
		  "        initrd: /boot/initrd.img-6.1.0-13-amd64\n"
		  "        cmdline: \"root=/dev/sda1 ro console=ttyS0,115200\"\n"
		  "        xen: /boot/xen-4.17.gz\n"
		  "        xen_cmdline: \"dom0_max_vcpus=4 dom0_vcpus_pin\"\n"
		  "      boot_timeout_s: 600\n"
		  "  - machine:\n"
		  "      name: qemu-box\n"
		  "      power: { off: [tools/machine-qemu, off], on: [tools/machine-qemu, on] }\n"
		  "      console: [tools/machine-qemu, console]\n"
		  "      boot: { method: command, command: [tools/machine-qemu, boot] }\n"
		  "      known_good: { kernel: /srv/known/bzImage }\n";
	const struct kb_machine *mc;
	const struct kb_machine_kernel *k;
	const char *const *v;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m;

	(void)state;
	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "1", 1), 0);
	m = ok(text);
	assert_int_equal(kb_matrix_nhosts(m), 3);
	/* a URI stays a libvirt host */
	assert_string_equal(kb_matrix_host(m, 0)->uri, "qemu:///system");
	assert_null(kb_matrix_host(m, 0)->machine);
	assert_null(kb_matrix_machine(m, 0));
	assert_null(kb_matrix_machine(m, 3));

	mc = kb_matrix_machine(m, 1);
	assert_non_null(mc);
	assert_ptr_equal(kb_matrix_host(m, 1)->machine, mc);
	assert_string_equal(kb_matrix_host(m, 1)->uri, "machine:box1");
	assert_int_equal(kb_matrix_host(m, 1)->capacity, 1);
	assert_null(kb_matrix_host(m, 1)->pool);
	assert_int_equal(kb_matrix_host(m, 1)->loc.line, 4);
	assert_int_equal(kb_matrix_host(m, 1)->loc.col, 5);
	assert_string_equal(kb_machine_name(mc), "box1");
	v = kb_machine_power(mc, KB_MACHINE_CYCLE);
	assert_non_null(v);
	assert_string_equal(v[0], "ipmitool");
	assert_string_equal(v[5], "cycle");
	assert_null(v[6]);
	assert_string_equal(kb_machine_power(mc, KB_MACHINE_ON)[5], "on");
	assert_string_equal(kb_machine_power(mc, KB_MACHINE_OFF)[5], "off");
	v = kb_machine_console(mc);
	assert_string_equal(v[3], "sol");
	assert_null(v[5]);
	assert_int_equal(kb_machine_boot_method(mc), KB_MACHINE_GRUB_REBOOT);
	assert_string_equal(kb_machine_boot_name(KB_MACHINE_GRUB_REBOOT),
			    "grub-reboot");
	assert_string_equal(kb_machine_boot_ssh(mc)[1], "root@box1");
	assert_null(kb_machine_boot_ssh(mc)[2]);
	assert_null(kb_machine_boot_command(mc));
	k = kb_machine_known_good(mc);
	assert_non_null(k);
	assert_string_equal(k->kernel, "/boot/vmlinuz-6.1.0-13-amd64");
	assert_string_equal(k->initrd, "/boot/initrd.img-6.1.0-13-amd64");
	assert_string_equal(k->cmdline, "root=/dev/sda1 ro console=ttyS0,115200");
	assert_string_equal(k->xen, "/boot/xen-4.17.gz");
	assert_string_equal(k->xen_cmdline, "dom0_max_vcpus=4 dom0_vcpus_pin");
	assert_null(k->ready);
	assert_int_equal(kb_machine_boot_timeout_s(mc), 600);

	mc = kb_matrix_machine(m, 2);
	assert_non_null(mc);
	assert_null(kb_machine_power(mc, KB_MACHINE_CYCLE));
	assert_string_equal(kb_machine_power(mc, KB_MACHINE_ON)[1], "on");
	assert_int_equal(kb_machine_boot_method(mc), KB_MACHINE_COMMAND);
	assert_string_equal(kb_machine_boot_command(mc)[1], "boot");
	assert_null(kb_machine_boot_ssh(mc));
	k = kb_machine_known_good(mc);
	assert_string_equal(k->kernel, "/srv/known/bzImage");
	assert_null(k->initrd);
	assert_null(k->cmdline);
	assert_null(k->xen);
	assert_int_equal(kb_machine_boot_timeout_s(mc), 300);

	/* every boot method is run: kexec, grub-reboot and command */
	assert_int_equal(kb_matrix_check_runnable_hosts(m, &err), 0);
	kb_matrix_free(m);

	/* kexec; no known_good: a power cycle boots the machine's default */
	m = ok(MH("name: b, " MPCB));
	mc = kb_matrix_machine(m, 0);
	assert_int_equal(kb_machine_boot_method(mc), KB_MACHINE_KEXEC);
	assert_null(kb_machine_known_good(mc));
	assert_null(kb_machine_power(mc, KB_MACHINE_ON));
	kb_matrix_free(m);

	/* libvirt hosts alone are still runnable */
	m = ok(W "hosts: [qemu:///system, { uri: xen:///system }]\n");
	assert_int_equal(kb_matrix_check_runnable_hosts(m, &err), 0);
	kb_matrix_free(m);
	unsetenv("KBISECT_TRUST_MATRIX");
}

static void test_matrix__machine_hosts_are_refused_where_wrong(void **state)
{
	static const char stored[] = MH("name: b, " MPCB);
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	(void)state;
	/* its commands run here: only a trusted matrix names one */
	unsetenv("KBISECT_TRUST_MATRIX");
	bad(stored, 2, 11,
	    "machine host 'b' is refused: its power, console and boot commands run programs on this machine; a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1, docs/matrix.md \"Machines\")");
	/* a stored matrix is read, never run from here */
	assert_int_equal(kb_matrix_parse_stored(stored, sizeof(stored) - 1,
						"/exp/m.yaml", &m, &err),
			 0);
	assert_non_null(kb_matrix_machine(m, 0));
	kb_matrix_free(m);

	assert_int_equal(setenv("KBISECT_TRUST_MATRIX", "1", 1), 0);
	/* commands are argv lists, never shell strings */
	bad(MH("name: b, power: { cycle: [pc] }, console: \"ipmitool sol activate\", boot: { method: kexec, ssh: [s] }"),
	    2, 64,
	    "machine.console must be a list of arguments, not a string: write it as a YAML list");
	bad(MH("name: b, power: { cycle: ipmitool power cycle }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 47, "machine.power.cycle must be a list of arguments, not a string");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: command, command: \"qemu -kernel\" }"),
	    2, 103, "machine.boot.command must be a list of arguments, not a string");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: kexec, ssh: ssh root@b }"),
	    2, 97, "machine.boot.ssh must be a list of arguments, not a string");
	bad(MH("name: b, power: { cycle: { a: b } }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 47, "machine.power.cycle must be a list, found a mapping");
	/* an empty argv, an argument with a control character */
	bad(MH("name: b, power: { cycle: [] }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 47, "machine.power.cycle is empty: give the program and its arguments");
	bad(MH("name: b, power: { cycle: [pc] }, console: [con, \"-a\\tb\"], boot: { method: kexec, ssh: [s] }"),
	    2, 70, "argument 2 of machine.console contains a control character (U+0009");
	bad(MH("name: b, power: { cycle: [pc] }, console: [con, \"\\e[2J\"], boot: { method: kexec, ssh: [s] }"),
	    2, 70, "argument 2 of machine.console contains a control character (U+001B");
	bad(MH("name: b, power: { cycle: [pc, [x]] }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 52, "argument 2 of machine.power.cycle");
	/* unknown keys, with what was meant */
	bad(MH("name: b, consol: [c], " MPCB), 2, 31,
	    "unknown key 'consol' in a machine (did you mean 'console'?)");
	bad(MH("name: b, power: { cylce: [pc] }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 40, "unknown key 'cylce' in machine.power (did you mean 'cycle'?)");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: kexec, sh: [s] }"),
	    2, 92, "unknown key 'sh' in machine.boot (did you mean 'ssh'?)");
	bad(MH("name: b, " MPCB ", known_good: { kernal: /k }"),
	    2, 130, "unknown key 'kernal' in machine.known_good (did you mean 'kernel'?)");
	bad(W "hosts: [{ machin: { name: b } }]\n", 2, 11,
	    "unknown key 'machin' in a host (did you mean 'machine'?)");
	/* nothing else goes with machine */
	bad(W "hosts: [{ uri: qemu:///system, machine: { name: b, " MPCB " } }]\n",
	    2, 11, "'uri' does not go with 'machine'");
	bad(W "hosts: [{ machine: { name: b, " MPCB " }, capacity: 2 }]\n",
	    2, 118, "'capacity' does not go with 'machine'");
	/* (after a machine that has every key) */
	bad(MH("name: b, " MPCB ", known_good: { kernel: /k }, boot_timeout_s: 5 }, x: { y: 1"),
	    2, 165, "'x' does not go with 'machine'");
	/* power: cycle, or off and on */
	bad(MH("name: b, power: { on: [x] }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 38, "machine.power needs 'cycle', or 'off' and 'on'");
	bad(MH("name: b, power: { off: [x] }, console: [c], boot: { method: kexec, ssh: [s] }"),
	    2, 38, "machine.power needs 'cycle', or 'off' and 'on'");
	/* a boot method and what it needs */
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: kexc, ssh: [s] }"),
	    2, 85, "invalid machine.boot.method 'kexc' (did you mean 'kexec'?)");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: kexec }"),
	    2, 75, "boot method kexec needs 'ssh'");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: grub-reboot }"),
	    2, 75, "boot method grub-reboot needs 'ssh'");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: command }, known_good: { kernel: /k }"),
	    2, 75, "boot method command needs 'command'");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { ssh: [s] }"),
	    2, 75, "machine.boot needs 'method'");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: kexec, ssh: [s], command: [x] }"),
	    2, 111, "machine.boot.command is used by method command only, not by kexec");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: command, command: [x], ssh: [s] }, known_good: { kernel: /k }"),
	    2, 113, "machine.boot.ssh is not used by method command");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c], boot: { method: command, command: [x] }"),
	    2, 20, "machine b needs 'known_good' with boot method command");
	/* what every machine needs */
	bad(MH(MPCB), 2, 20, "a machine needs 'name'");
	bad(MH("name: b, console: [c], boot: { method: kexec, ssh: [s] }"), 2,
	    20, "machine b needs 'power'");
	bad(MH("name: b, power: { cycle: [pc] }, boot: { method: kexec, ssh: [s] }"),
	    2, 20, "machine b needs 'console'");
	bad(MH("name: b, power: { cycle: [pc] }, console: [c]"), 2, 20,
	    "machine b needs 'boot'");
	bad(W "hosts: [{ machine: [a] }]\n", 2, 20,
	    "a machine must be a mapping, found a list");
	/* names, paths, the timeout */
	bad(MH("name: \"b c\", " MPCB), 2, 28, "invalid machine.name 'b c'");
	bad(MH("name: -b, " MPCB), 2, 28, "invalid machine.name '-b'");
	bad(MH("name: b, " MPCB ", known_good: { kernel: boot/vmlinuz }"), 2,
	    138, "machine.known_good.kernel must be an absolute path, found 'boot/vmlinuz'");
	bad(MH("name: b, " MPCB ", known_good: { initrd: /i }"), 2, 128,
	    "machine.known_good needs 'kernel'");
	bad(MH("name: b, " MPCB ", known_good: { kernel: /k, xen_cmdline: \"dom0_mem=1G\\r\" }"),
	    2, 155, "machine.known_good.xen_cmdline contains a control character");
	bad(MH("name: b, " MPCB ", known_good: { kernel: /k, xen_cmdline: dom0_mem=1G }"),
	    2, 155, "machine.known_good.xen_cmdline needs 'xen'");
	bad(MH("name: b, " MPCB ", known_good: { kernel: /k, ready: \"\" }"),
	    2, 149, "machine.known_good.ready must not be empty");
	bad(MH("name: b, " MPCB ", known_good: { kernel: /k, ready: \"log\\tin:\" }"),
	    2, 149, "machine.known_good.ready contains a control character");
	bad(MH("name: b, " MPCB ", boot_timeout_s: 0"), 2, 132,
	    "machine.boot_timeout_s must be an integer from 1 to 86400, found '0'");
	bad(MH("name: b, " MPCB ", boot_timeout_s: -30"), 2, 132,
	    "machine.boot_timeout_s must be an integer from 1 to 86400, found '-30'");
	/* one name, one machine */
	bad(W "hosts:\n"
	      "  - machine: { name: box1, " MPCB " }\n"
	      "  - qemu:///system\n"
	      "  - machine: { name: box1, " MPCB " }\n",
	    5, 22, "duplicate machine name 'box1' (hosts[0] has it)");
	unsetenv("KBISECT_TRUST_MATRIX");
}

static void test_matrix__empty_and_non_mapping(void **state)
{
	(void)state;
	bad("", 0, 0, "the matrix is empty");
	bad("- a\n- b\n", 1, 1, "the matrix must be a mapping, found a list");
}

static void test_matrix__load_reads_file(void **state)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	(void)state;
	assert_int_equal(kb_matrix_load(KB_TEST_DATA "/matrix/none.yaml", &m,
					&err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "none.yaml");
	kb_err_clear(&err);
	assert_int_equal(kb_matrix_load(KB_TEST_DATA "/matrix/valid.yaml", &m,
					&err),
			 0);
	assert_non_null(strstr(kb_matrix_text(m), "PARAVIRT_SPINLOCKS"));
	kb_matrix_free(m);
}

static void test_matrix__workload_better_declares_the_direction(void **state)
{
	static const char cmd[] =
		"workload: { command: { run: b, regex: '([0-9]+) ops/s' },\n"
		"            metric: ops_per_s%s }\n";
	char text[256];
	struct kb_matrix *m;
	struct kb_metric_dir d;

	(void)state;
	/* ops_per_s ends in _s: the name rule once took it for a time */
	snprintf(text, sizeof(text), cmd, ", better: lower");
	m = ok(text);
	assert_int_equal(kb_matrix_workload(m)->better, KB_BETTER_LOWER);
	d = kb_metric_direction(kb_matrix_workload(m), "ops_per_s");
	assert_int_equal(d.higher_is_better, 0);
	assert_int_equal(d.source, KB_METRIC_DECLARED);
	assert_string_equal(kb_metric_dir_text(&d),
			    "lower is better (workload.better)");
	/* it declares the workload's metric only */
	d = kb_metric_direction(kb_matrix_workload(m), "real_s");
	assert_int_equal(d.source, KB_METRIC_KNOWN);
	kb_matrix_free(m);
	snprintf(text, sizeof(text), cmd, ", better: higher");
	m = ok(text);
	d = kb_metric_direction(kb_matrix_workload(m), "ops_per_s");
	assert_int_equal(d.higher_is_better, 1);
	assert_int_equal(d.source, KB_METRIC_DECLARED);
	kb_matrix_free(m);
	/* not declared: a guess, and said to be one */
	snprintf(text, sizeof(text), cmd, "");
	m = ok(text);
	assert_int_equal(kb_matrix_workload(m)->better, KB_BETTER_UNSET);
	d = kb_metric_direction(kb_matrix_workload(m), "ops_per_s");
	assert_int_equal(d.higher_is_better, 1);
	assert_int_equal(d.source, KB_METRIC_GUESSED);
	assert_string_equal(kb_metric_source_name(d.source), "guessed");
	assert_msg_contains(kb_metric_dir_text(&d), "declare workload.better");
	kb_matrix_free(m);
	bad("workload: { fio: { rw: read }, better: hihger }\n", 1, 40,
	    "invalid workload.better 'hihger' (did you mean 'higher'?)");
	bad("workload: { fio: { rw: read }, better: up }\n", 1, 40,
	    "invalid workload.better 'up': expected higher or lower");
}

static void test_matrix__known_metrics_have_their_direction(void **state)
{
	static const char *const higher[] = { "read_iops", "write_bw_kib",
					      "trim_iops" };
	static const char *const lower[] = { "read_lat_p99_us",
					     "write_lat_mean_us", "real_s",
					     "sys_s", "trim_lat_p999_us" };
	struct kb_metric_dir d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(higher) / sizeof(higher[0]); i++) {
		d = kb_metric_direction(NULL, higher[i]);
		assert_int_equal(d.higher_is_better, 1);
		assert_int_equal(d.source, KB_METRIC_KNOWN);
	}
	for (i = 0; i < sizeof(lower) / sizeof(lower[0]); i++) {
		d = kb_metric_direction(NULL, lower[i]);
		assert_int_equal(d.higher_is_better, 0);
		assert_int_equal(d.source, KB_METRIC_KNOWN);
	}
	/* other names: the old name rule, marked as a guess */
	d = kb_metric_direction(NULL, "boot_time");
	assert_true(!d.higher_is_better && d.source == KB_METRIC_GUESSED);
	d = kb_metric_direction(NULL, "ops");
	assert_true(d.higher_is_better && d.source == KB_METRIC_GUESSED);
	assert_int_equal(kb_metric_higher_is_better("pkts_per_sec"), 1);
	assert_int_equal(kb_metric_higher_is_better("compile_s"), 0);
}


/* ---- workload, cmdline and sysctl factors (issue 13) ----------------- */

#define CMD2 "workload:\n  command: { run: 'dd bs={{bs}} count=1' }\n"

static void test_matrix__runtime_factors_parse(void **state)
{
	struct kb_matrix *m;
	const struct kb_factor *f;

	(void)state;
	m = ok("factors:\n"
	       "  guest: { pin: [none, [0, 0]] }\n"
	       "  workload: { copies: [1, 2, 4], bs: [4k, 64k] }\n"
	       "  cmdline: { xen_nopvspin: [off, on], mitigations: [auto, 'mitigations=off'] }\n"
	       "  sysctl: { kernel.sched_min_granularity_ns: [3000000, 10000000] }\n"
	       "guest: { vcpus: 2 }\n" CMD2);
	assert_int_equal(kb_matrix_nfactors(m), 6);
	f = kb_matrix_factor(m, 1);
	assert_string_equal(f->name, "workload.copies");
	assert_int_equal(f->kind, KB_FACTOR_WORKLOAD);
	assert_int_equal(f->nlevels, 3);
	assert_string_equal(f->levels[2].value, "4");
	f = kb_matrix_factor(m, 2);
	assert_string_equal(f->name, "workload.bs");
	assert_string_equal(f->levels[1].value, "64k");
	f = kb_matrix_factor(m, 3);
	assert_string_equal(f->name, "cmdline.xen_nopvspin");
	assert_int_equal(f->kind, KB_FACTOR_CMDLINE);
	f = kb_matrix_factor(m, 5);
	assert_string_equal(f->name, "sysctl.kernel.sched_min_granularity_ns");
	assert_int_equal(f->kind, KB_FACTOR_SYSCTL);
	assert_int_equal(kb_matrix_workload(m)->nparams, 1);
	assert_ptr_equal(kb_matrix_workload(m)->params[0],
			 kb_matrix_factor(m, 2));
	assert_false(kb_factor_kind_builds(KB_FACTOR_WORKLOAD));
	assert_false(kb_factor_kind_builds(KB_FACTOR_CMDLINE));
	assert_false(kb_factor_kind_builds(KB_FACTOR_SYSCTL));
	assert_false(kb_factor_kind_builds(KB_FACTOR_GUEST));
	assert_true(kb_factor_kind_builds(KB_FACTOR_KCONFIG));
	assert_true(kb_factor_kind_builds(KB_FACTOR_KERNEL));
	assert_string_equal(kb_factor_kind_name(KB_FACTOR_SYSCTL), "sysctl");
	kb_matrix_free(m);
}

static void test_matrix__cmdline_levels_become_text(void **state)
{
	char *t;

	(void)state;
	assert_null(kb_cmdline_level_text("cmdline.xen_nopvspin", "off"));
	t = kb_cmdline_level_text("cmdline.xen_nopvspin", "on");
	assert_string_equal(t, "xen_nopvspin");
	free(t);
	t = kb_cmdline_level_text("cmdline.clocksource", "tsc");
	assert_string_equal(t, "clocksource=tsc");
	free(t);
	t = kb_cmdline_level_text("cmdline.mitigations", "mitigations=off");
	assert_string_equal(t, "mitigations=off");
	free(t);
	t = kb_cmdline_level_text("cmdline.smt", "nosmt nopti");
	assert_string_equal(t, "nosmt nopti");
	free(t);
}

static void test_matrix__workload_parameters_are_checked(void **state)
{
	(void)state;
	/* a reference without a factor, at the text that holds it */
	bad("factors: { workload: { bs: [4k] } }\n"
	    "workload:\n  command: { run: 'dd bs={{bs}} count={{cnt}}' }\n",
	    3, 19, "unknown workload parameter '{{cnt}}'");
	bad("workload:\n  fio: { rw: randread, bs: '{{bs}}' }\n", 2, 28,
	    "unknown workload parameter '{{bs}}'");
	/* a factor no text uses, at the factor */
	bad("factors: { workload: { bs: [4k], iodepth: [1, 32] } }\n"
	    "workload:\n  fio: { rw: randread, bs: '{{bs}}' }\n",
	    1, 34, "factor workload.iodepth is not used: write {{iodepth}}");
	bad("factors: { workload: { bs: [4k] } }\n"
	    "workload: { fio_job: job.fio, metric: read_iops }\n",
	    1, 24, "factor workload.bs cannot fill a fio_job file");
	bad("factors: { workload: { Bs: [4k] } }\n" CMD2, 1, 24,
	    "invalid workload parameter name 'Bs': expected lower case letters, digits and _, starting with a letter, at most 31 (did you mean 'bs'?)");
	/* other braces are shell's or awk's, not references */
	kb_matrix_free(ok("workload:\n  command: { run: \"awk '{{print $1}}' f; echo ${HOME}\" }\n"));
}

static void test_matrix__runtime_levels_are_checked(void **state)
{
	(void)state;
	bad("factors: { workload: { copies: [1, 65] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 36, "workload.copies must be an integer from 1 to 64");
	bad("factors: { workload: { copies: [1, 01] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 36, "level '1' of workload.copies is listed twice");
	bad("factors: { cmdline: { quiet: [off, 'a\"b'] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 36, "invalid level 'a\"b' for cmdline.quiet: kernel command-line text is");
	bad("factors: { cmdline: { quiet: [off, 'a<b'] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 36, "invalid level 'a<b' for cmdline.quiet");
	bad("factors: { cmdline: { 'a b': [on] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 23, "invalid kernel parameter name 'a b'");
	bad("factors: { sysctl: { Kernel.X: [1] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 22, "invalid sysctl name 'Kernel.X': expected lower case words of letters, digits and _ joined by dots, such as kernel.sched_min_granularity_ns (did you mean 'kernel.x'?)");
	bad("factors: { sysctl: { kernel..x: [1] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 22, "invalid sysctl name 'kernel..x'");
	bad("factors: { sysctl: { kernel.x: [\"1\\n2\"] } }\n"
	    "workload: { command: { run: x } }\n",
	    1, 33, "contains a control character (U+000A, a newline)");
	bad("factors: { bogus: { x: [1] } }\nworkload: { command: { run: x } }\n",
	    1, 12, "unknown key 'bogus' in 'factors'");
}

static void test_matrix__named_metrics_and_parsers(void **state)
{
	struct kb_matrix *m;
	const struct kb_workload *w;

	(void)state;
	m = ok("workload:\n"
	       "  command:\n"
	       "    run: bench\n"
	       "    metrics: { ops: '([0-9.]+) ops/s', lat_ms: 'lat ([0-9.]+) ms' }\n"
	       "    parser: dd\n"
	       "  metric: ops\n"
	       "  better: higher\n");
	w = kb_matrix_workload(m);
	assert_int_equal(w->nmetrics, 2);
	assert_string_equal(w->metrics[1].key, "lat_ms");
	assert_string_equal(w->metrics[1].value, "lat ([0-9.]+) ms");
	assert_int_equal(w->parser, KB_PARSER_DD);
	assert_string_equal(w->metric, "ops");
	kb_matrix_free(m);
	/* without metric, the command is still timed */
	m = ok("workload: { command: { run: b, metrics: { ops: 'x([0-9]+)' }, parser: unixbench } }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "real_s");
	assert_int_equal(kb_matrix_workload(m)->parser, KB_PARSER_UNIXBENCH);
	kb_matrix_free(m);
	bad("workload: { command: { run: b, metrics: { ops: '(a)(b)' } } }\n",
	    1, 48, "the regex must have exactly one (group) around the number to take, found 2");
	bad("workload: { command: { run: b, metrics: { Ops: '(a)' } } }\n",
	    1, 43, "invalid metric name 'Ops'");
	bad("workload: { command: { run: b, metrics: { real_s: '(a)' } } }\n",
	    1, 43, "metric 'real_s' is the command's own time");
	bad("workload: { command: { run: b, metrics: { x: '(a+++)' } } }\n",
	    1, 46, "workload.command.metrics.x repeats a repetition");
	bad("workload: { command: { run: b, metrics: {} } }\n", 1, 41,
	    "workload.command.metrics names 0 metrics");
	bad("workload: { command: { run: b, parser: ddd } }\n", 1, 40,
	    "invalid workload.command.parser 'ddd' (did you mean 'dd'?)");
	bad("workload: { command: { run: b, metric: real_s } }\n", 1, 32,
	    "unknown key 'metric' in 'workload.command': the metric verdicts are about is workload.metric, beside command");
	bad("workload: { command: { run: b, metrics: { ops: '(a)' }, regex: 'x(1)' }, metric: ops }\n",
	    1, 43, "metric 'ops' is taken by workload.command.regex");
}

static void test_matrix__derived_metric_names(void **state)
{
	struct kb_matrix *m;

	(void)state;
	assert_true(kb_metric_name_valid("real_s"));
	assert_true(kb_metric_name_valid("real_s.max"));
	assert_true(kb_metric_name_valid("read_iops.vdb"));
	assert_true(kb_metric_name_valid("read_iops.vdb.copy2"));
	assert_false(kb_metric_name_valid("real_s."));
	assert_false(kb_metric_name_valid("real_s..max"));
	assert_false(kb_metric_name_valid(".max"));
	assert_false(kb_metric_name_valid("Real_s"));
	assert_false(kb_metric_name_valid("a_metric_name_of_32_characters_x"));
	m = ok("workload: { command: { run: b }, metric: real_s.sum }\n");
	assert_string_equal(kb_matrix_workload(m)->metric, "real_s.sum");
	kb_matrix_free(m);
	bad("workload: { command: { run: b }, metric: 'real_s.' }\n", 1, 42,
	    "invalid metric name 'real_s.'");
}

static void test_matrix__targets_and_devices(void **state)
{
	struct kb_matrix *m;
	const struct kb_workload *w;

	(void)state;
	m = ok("guest: { hypervisor: qemu, scratch_disks: 2 }\n"
	       "workload:\n"
	       "  fio: { rw: randread, bs: 4k }\n"
	       "  targets: /dev/vd[a-c]\n"
	       "  targets_count: 2\n"
	       "  per_device: true\n");
	w = kb_matrix_workload(m);
	assert_int_equal(w->ntargets, 1);
	assert_string_equal(w->targets[0], "/dev/vd[a-c]");
	assert_int_equal(w->targets_count, 2);
	assert_true(w->per_device);
	assert_int_equal(kb_matrix_guest(m)->scratch_disks, 2);
	kb_matrix_free(m);
	m = ok("workload: { fio: { rw: read }, targets: ['/dev/sd[a-p]', /dev/xvdb] }\n");
	assert_int_equal(kb_matrix_workload(m)->ntargets, 2);
	assert_false(kb_matrix_workload(m)->per_device);
	kb_matrix_free(m);
	bad("workload: { fio: { rw: read }, targets: /dev/disk/by-id/x }\n", 1,
	    41, "invalid workload.targets glob '/dev/disk/by-id/x'");
	bad("workload: { fio: { rw: read }, targets: 'vd[b-c]' }\n", 1, 41,
	    "invalid workload.targets glob 'vd[b-c]'");
	bad("workload: { fio: { rw: read }, targets_count: 2 }\n", 1, 47,
	    "workload.targets_count needs workload.targets");
	bad("workload: { fio: { rw: read }, targets: /dev/vdb, targets_count: 65 }\n",
	    1, 66, "workload.targets_count must be an integer from 1 to 64");
	bad("workload: { fio: { rw: read }, targets: /dev/vdb, per_device: true }\n",
	    1, 63, "workload.per_device needs workload.targets_count");
	bad("workload: { fio_job: job.fio, metric: read_iops, targets: /dev/vdb,"
	    " targets_count: 1, per_device: true }\n",
	    1, 99, "workload.per_device needs workload.fio");
	bad("workload: { fio: { rw: read, filename: /dev/vdb }, targets: /dev/vdb,"
	    " targets_count: 1, per_device: true }\n",
	    1, 30, "fio option 'filename' names the files");
	bad("workload: { fio: { rw: read }, per_device: yes }\n", 1, 44,
	    "invalid workload.per_device 'yes'");
	bad("guest: { scratch_disks: 2 }\n" W, 1, 25,
	    "guest.scratch_disks needs hypervisor kvm or qemu");
	bad("guest: { hypervisor: qemu, scratch_disks: 0 }\n" W, 1, 43,
	    "guest.scratch_disks must be an integer from 1 to 64");
}

static void test_matrix__metrics_must_fit_a_sample(void **state)
{
	(void)state;
	/* 18 fio metrics per device and in total, 16 devices: 306 */
	bad("workload: { fio: { rw: randtrim }, targets: '/dev/sd[a-p]',"
	    " targets_count: 16, per_device: true }\n",
	    1, 11, "a run of this workload may yield 306 metrics (18 per device), more than 256: use fewer devices");
	/* unixbench's 35 metrics, 4 copies: 35 x 8 */
	bad("factors: { workload: { copies: [1, 4] } }\n"
	    "workload: { command: { run: b, parser: unixbench } }\n",
	    1, 24, "a run of this workload may yield 280 metrics (35 per copy, 4 copies with their sum, mean, max and aggregate), more than 256");
	kb_matrix_free(ok("factors: { workload: { copies: [1, 3] } }\n"
			  "workload: { command: { run: b, parser: unixbench } }\n"));
}

/* `condition: true` marks a load level (docs/matrix.md, "Conditions"):
 * a factor written as a mapping with its levels under `levels`. */
static void test_matrix__condition_factor_is_a_mapping_with_levels(void **state)
{
	struct kb_matrix *m;
	const struct kb_factor *f;

	(void)state;
	m = ok(W "factors:\n"
		 "  kconfig: { DEBUG_X: [n, y], PREEMPT: { levels: [n, y] } }\n"
		 "  guest: { vcpus: { levels: [1, 4], condition: false } }\n"
		 "  workload: { copies: { condition: true, levels: [1, 4] } }\n");
	assert_int_equal(kb_matrix_nfactors(m), 4);
	assert_int_equal(kb_matrix_nconditions(m), 1);
	f = kb_matrix_find_factor(m, "workload.copies");
	assert_non_null(f);
	assert_true(f->condition);
	assert_int_equal(f->nlevels, 2);
	assert_string_equal(f->levels[1].value, "4");
	assert_int_equal(f->levels[1].loc.line, 5);
	assert_false(kb_matrix_find_factor(m, "DEBUG_X")->condition);
	assert_false(kb_matrix_find_factor(m, "PREEMPT")->condition);
	assert_int_equal(kb_matrix_find_factor(m, "PREEMPT")->nlevels, 2);
	assert_false(kb_matrix_find_factor(m, "guest.vcpus")->condition);
	kb_matrix_free(m);
}

static void test_matrix__condition_factor_mistakes_are_located(void **state)
{
	(void)state;
	bad(W "factors: { workload: { copies: { level: [1, 4] } } }\n", 2, 34,
	    "unknown key 'level' in factor workload.copies (did you mean 'levels'?)");
	bad(W "factors: { workload: { copies: { condition: true } } }\n", 2,
	    32, "factor workload.copies has no 'levels'");
	bad(W "factors: { workload: { copies: { levels: [1, 4], condition: yes } } }\n",
	    2, 61, "invalid workload.copies.condition 'yes': expected false or true");
	bad(W "factors: { workload: { copies: { levels: 4 } } }\n", 2, 42,
	    "factor workload.copies must be a list of levels");
	bad(W "factors: { workload: { copies: { levels: [1, 100] } } }\n", 2,
	    46, "workload.copies");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_matrix__condition_factor_is_a_mapping_with_levels),
	cmocka_unit_test(test_matrix__condition_factor_mistakes_are_located),
	cmocka_unit_test(test_matrix__full_example_parses),
	cmocka_unit_test(test_matrix__defaults),
	cmocka_unit_test(test_matrix__workload_monitors),
	cmocka_unit_test(test_matrix__workload_profile),
	cmocka_unit_test(test_matrix__config_prefix_is_normalised),
	cmocka_unit_test(test_matrix__syntax_error_has_line_and_column),
	cmocka_unit_test(test_matrix__unknown_key_has_line_and_column),
	cmocka_unit_test(test_matrix__wrong_type),
	cmocka_unit_test(test_matrix__empty_factor_list),
	cmocka_unit_test(test_matrix__duplicate_factor),
	cmocka_unit_test(test_matrix__duplicate_level),
	cmocka_unit_test(test_matrix__invalid_option_name),
	cmocka_unit_test(test_matrix__invalid_level),
	cmocka_unit_test(test_matrix__bad_pci_address),
	cmocka_unit_test(test_matrix__pin_length_must_match_vcpus),
	cmocka_unit_test(test_matrix__repeats_must_be_positive),
	cmocka_unit_test(test_matrix__missing_referenced_files),
	cmocka_unit_test(test_matrix__base_may_be_a_make_target),
	cmocka_unit_test(test_matrix__stored_text_is_read_without_the_disk),
	cmocka_unit_test(test_matrix__workload_rules),
	cmocka_unit_test(test_matrix__workload_better_declares_the_direction),
	cmocka_unit_test(test_matrix__known_metrics_have_their_direction),
	cmocka_unit_test(test_matrix__design_names),
	cmocka_unit_test(test_matrix__newline_in_fio_value_has_its_position),
	cmocka_unit_test(test_matrix__control_characters_are_refused),
	cmocka_unit_test(test_matrix__regex_size_is_bounded),
	cmocka_unit_test(test_matrix__null_sections_are_absent),
	cmocka_unit_test(test_matrix__guest_mode_needs_xen),
	cmocka_unit_test(test_matrix__prebuilt_image_refuses_kconfig_and_rev),
	cmocka_unit_test(test_matrix__hosts),
	cmocka_unit_test(test_matrix__machine_hosts_parse),
	cmocka_unit_test(test_matrix__machine_hosts_are_refused_where_wrong),
	cmocka_unit_test(test_matrix__machine_factors),
	cmocka_unit_test(test_matrix__repeat_order_is_blocks_or_sequential),
	cmocka_unit_test(test_matrix__repeat_sentinel_is_true_or_false),
	cmocka_unit_test(test_matrix__guest_image),
	cmocka_unit_test(test_matrix__host_uris_that_run_programs_are_refused),
	cmocka_unit_test(test_matrix__workload_files),
	cmocka_unit_test(test_matrix__empty_and_non_mapping),
	cmocka_unit_test(test_matrix__load_reads_file),
	cmocka_unit_test(test_matrix__runtime_factors_parse),
	cmocka_unit_test(test_matrix__cmdline_levels_become_text),
	cmocka_unit_test(test_matrix__workload_parameters_are_checked),
	cmocka_unit_test(test_matrix__runtime_levels_are_checked),
	cmocka_unit_test(test_matrix__named_metrics_and_parsers),
	cmocka_unit_test(test_matrix__derived_metric_names),
	cmocka_unit_test(test_matrix__targets_and_devices),
	cmocka_unit_test(test_matrix__metrics_must_fit_a_sample),
};

KB_TEST_MAIN(tests)
