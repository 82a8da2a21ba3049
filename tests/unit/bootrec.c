/*
 * The machine boot record (lib/bootrec.h): what the machine executor
 * writes parses back to the same values, and a record that is not one
 * kbisect wrote (it may come from someone else's database) is refused
 * with the line that is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testcorpus.h"
#include "bootrec.h"
#include "buf.h"
#include "err.h"

static struct kb_bootrec *parse(const char *text, int want,
				struct kb_err *err)
{
	struct kb_bootrec *r = NULL;

	assert_int_equal(kb_bootrec_parse_buffer(text, strlen(text), "rec",
						 &r, err),
			 want);
	if (want)
		assert_null(r);
	else
		assert_non_null(r);
	return r;
}

static void test_bootrec__written_parses_back(void **state)
{
	const struct kb_bootrec dom0 = {
		.machine = "dl380",
		.method = "kexec",
		.kernel = "/boot/kb/bzImage",
		.initrd = "/boot/kb/initrd",
		.cmdline = "console=hvc0 quiet",
		.xen = "/boot/kb/xen.gz",
		.xen_cmdline = "dom0_mem=2048M",
		.root = "/var/lib/kb/root.qcow2",
	};
	const struct kb_bootrec native = {
		.machine = "box1",
		.method = "command",
		.kernel = "k",
		.initrd = "i",
		.cmdline = "",
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_bootrec *r;
	char *text;

	(void)state;
	text = kb_bootrec_format(&dom0);
	assert_string_equal(text, "kbisect-machine-boot 1\nmachine dl380\n"
				  "method kexec\nkernel /boot/kb/bzImage\n"
				  "initrd /boot/kb/initrd\n"
				  "cmdline console=hvc0 quiet\n"
				  "xen /boot/kb/xen.gz\n"
				  "xen_cmdline dom0_mem=2048M\n"
				  "root /var/lib/kb/root.qcow2\n");
	r = parse(text, 0, &err);
	assert_string_equal(r->machine, "dl380");
	assert_string_equal(r->method, "kexec");
	assert_string_equal(r->kernel, "/boot/kb/bzImage");
	assert_string_equal(r->initrd, "/boot/kb/initrd");
	assert_string_equal(r->cmdline, "console=hvc0 quiet");
	assert_string_equal(r->xen, "/boot/kb/xen.gz");
	assert_string_equal(r->xen_cmdline, "dom0_mem=2048M");
	assert_string_equal(r->root, "/var/lib/kb/root.qcow2");
	kb_bootrec_free(r);
	free(text);
	/* no Xen, no root, an empty command line */
	text = kb_bootrec_format(&native);
	r = parse(text, 0, &err);
	assert_string_equal(r->cmdline, "");
	assert_null(r->xen);
	assert_null(r->xen_cmdline);
	assert_null(r->root);
	kb_bootrec_free(r);
	free(text);
}

#define HEAD "kbisect-machine-boot 1\n"
#define BODY "machine box1\nmethod command\nkernel k\ninitrd i\ncmdline a\n"

static void test_bootrec__not_ours_is_refused_with_its_line(void **state)
{
	static const char *const bad[][2] = {
		{ "", "rec:1:1: not a machine boot record" },
		{ "<domain/>\n", "rec:1:1: not a machine boot record" },
		{ "kbisect-machine-boot 2\n" BODY, "rec:1:1: not a machine" },
		{ "kbisect-machine-boot 10\n" BODY, "rec:1:1: not a machine" },
		{ HEAD BODY "\n", "rec:7:1: not \"KEY VALUE\"" },
		{ HEAD "machine box1\nmachine box2\n", "rec:3:1: 'machine' a second time" },
		{ HEAD BODY "shell rm -rf /\n", "rec:7:1: not a key of a machine boot record" },
		{ HEAD BODY "root a\tb\n", "rec:7:7: a control character (0x09)" },
		{ HEAD "machine box1\nmethod command\nkernel k\ninitrd i\n",
		  "rec: no 'cmdline' in the machine boot record" },
		{ HEAD BODY "xen /x\n", "rec: no 'xen_cmdline'" },
		{ HEAD BODY "xen_cmdline a\n", "rec: no 'xen' in" },
	};
	struct kb_buf big = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		kb_err_clear(&err);
		parse(bad[i][0], KB_EINPUT, &err);
		assert_msg_contains(err.msg, bad[i][1]);
	}
	/* a value over the cap, and a NUL inside one */
	kb_buf_addf(&big, HEAD BODY "root ");
	for (i = 0; i <= KB_BOOTREC_MAX_VALUE; i++)
		kb_buf_add(&big, "x", 1);
	kb_err_clear(&err);
	parse(big.buf, KB_EINPUT, &err);
	assert_msg_contains(err.msg, "rec:7:6: a value longer than 4096 bytes");
	kb_buf_release(&big);
	{
		static const char nul[] = HEAD BODY "root a\0b\n";
		struct kb_bootrec *r = NULL;

		kb_err_clear(&err);
		assert_int_equal(kb_bootrec_parse_buffer(nul, sizeof(nul) - 1,
							 "rec", &r, &err),
				 KB_EINPUT);
		assert_null(r);
		assert_msg_contains(err.msg, "rec:7:7: a control character (0x00)");
	}
}

static int parse_corpus(const char *data, size_t len, const char *path,
			struct kb_err *err)
{
	struct kb_bootrec *r = NULL;
	int ret = kb_bootrec_parse_buffer(data, len, path, &r, err);

	if (ret)
		assert_null(r);
	kb_bootrec_free(r);
	return ret;
}

static void test_bootrec__fuzz_corpus_replays(void **state)
{
	(void)state;
	kb_test_replay_corpus("bootrec", 1 << 20, parse_corpus, 3, 4);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_bootrec__written_parses_back),
	cmocka_unit_test(test_bootrec__not_ours_is_refused_with_its_line),
	cmocka_unit_test(test_bootrec__fuzz_corpus_replays),
};

KB_TEST_MAIN(tests)
