/*
 * Test-only helper for guest-userland.sh: drives the initramfs builder and
 * the console parser, so the script can boot a real guest in between.
 *
 *   guest-userland initramfs CACHE RUNS MODULES|- KEY=VALUE...
 *       build the initramfs for a fio workload of the given options,
 *       print its path
 *   guest-userland command CACHE RUNS MODULES|- COMMAND
 *       the same for a command workload
 *   guest-userland console FILE RUNS [REGEX METRIC]
 *       judge a captured console as a fio boot (with REGEX: a command
 *       boot) of RUNS runs; print the status, the reason, each run's
 *       metrics and its monitors ("monitor RUN NAME VALUE"); exit 0 when
 *       ok
 *
 *   guest-userland profile FILE RUN
 *       the KBISECT-PROFILE frame of run RUN in a captured console,
 *       parsed with kb_profile_parse_buffer(): print "bytes N",
 *       "stacks N", "samples N" and the stacks ("stack COUNT TEXT");
 *       exit 0 when there is one that parses
 *
 * Both workloads take every monitor (workload.monitors' default), none
 * with GUEST_USERLAND_MONITORS=0 in the environment; a profile
 * (workload.profile) at GUEST_USERLAND_PROFILE Hz when that is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "console.h"
#include "err.h"
#include "initramfs.h"
#include "matrix.h"
#include "mem.h"
#include "monitor.h"
#include "profile.h"
#include "variant.h"

static int build(int argc, char **argv)
{
	struct kb_initramfs_opts o = KB_INITRAMFS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_option opts[32];
	struct kb_workload w;
	struct timespec t0, t1;
	char *path = NULL;
	int i, n = 0;

	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	w.monitors = KB_MONITOR_DEFAULT;
	if (getenv("GUEST_USERLAND_MONITORS") &&
	    !strcmp(getenv("GUEST_USERLAND_MONITORS"), "0"))
		w.monitors = 0;
	if (getenv("GUEST_USERLAND_PROFILE"))
		w.profile_hz = (unsigned)strtoul(getenv("GUEST_USERLAND_PROFILE"),
						 NULL, 10);
	if (!strcmp(argv[0], "command")) {
		w.kind = KB_WORKLOAD_COMMAND;
		w.command = argv[4];
		argc = 4;
	}
	for (i = 4; i < argc && n < 32; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			return 2;
		*eq = '\0';
		opts[n].key = argv[i];
		opts[n].value = eq + 1;
		opts[n].loc.line = (unsigned)i;
		opts[n].loc.col = 1;
		n++;
	}
	w.fio = opts;
	w.nfio = (size_t)n;
	if (strcmp(argv[3], "-"))
		o.modules = argv[3];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (kb_initramfs_build(&w, (unsigned)strtoul(argv[2], NULL, 10), &o,
			       argv[1], &path, &err)) {
		fprintf(stderr, "guest-userland: %s\n", err.msg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "initramfs built in %.1f s\n",
		(double)(t1.tv_sec - t0.tv_sec) +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("%s\n", path);
	free(path);
	return 0;
}

static int judge(char **argv)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_console *c = kb_console_new(0);
	struct kb_boot_result r;
	struct kb_workload w;
	size_t i, j;
	int ret;

	if (kb_buf_read_file(&b, argv[1], 64u << 20, &err)) {
		fprintf(stderr, "guest-userland: %s\n", err.msg);
		return 1;
	}
	kb_console_feed(c, b.buf, b.len);
	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	w.kind = KB_WORKLOAD_FIO;
	if (argv[3]) {
		w.kind = KB_WORKLOAD_COMMAND;
		w.command = "?";
		w.regex = argv[3];
		w.metric = argv[4];
	}
	kb_console_judge(c, &w, (unsigned)strtoul(argv[2], NULL, 10), 0, &r,
			 &err);
	printf("status %s\n", kb_boot_status_name(r.status));
	if (r.reason)
		printf("reason %s\n", r.reason);
	for (i = 0; i < r.nruns; i++)
		for (j = 0; j < r.runs[i].n; j++)
			printf("run %zu %s %g\n", i + 1, r.runs[i].m[j].name,
			       r.runs[i].m[j].value);
	for (i = 0; i < r.nmonitors; i++)
		printf("monitor %u %s %.17g\n", r.monitors[i].run,
		       r.monitors[i].name, r.monitors[i].value);
	ret = r.status == KB_BOOT_OK ? 0 : 1;
	kb_boot_result_release(&r);
	kb_console_free(c);
	kb_buf_release(&b);
	return ret;
}

/* The console with its serial \r before each \n dropped. */
static void strip_cr(struct kb_buf *b)
{
	size_t i, o = 0;

	for (i = 0; i < b->len; i++)
		if (b->buf[i] != '\r')
			b->buf[o++] = b->buf[i];
	b->len = o;
}

static int profile(char **argv)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_profile_stack *v = NULL;
	unsigned run = (unsigned)strtoul(argv[2], NULL, 10);
	unsigned long long samples = 0;
	size_t n = 0, i, len;
	char head[64];
	const char *p;
	int ret = 1;

	if (kb_buf_read_file(&b, argv[1], 64u << 20, &err)) {
		fprintf(stderr, "guest-userland: %s\n", err.msg);
		return 1;
	}
	strip_cr(&b);
	kb_buf_add(&b, "", 1);
	snprintf(head, sizeof(head), "\nKBISECT-PROFILE %u ", run);
	if (!(p = strstr(b.buf, head))) {
		fprintf(stderr, "guest-userland: no profile frame for run %u\n",
			run);
		goto out;
	}
	p += strlen(head);
	len = strtoul(p, NULL, 10);
	p = strchr(p, '\n') + 1;
	if ((size_t)(b.buf + b.len - 1 - p) < len) {
		fprintf(stderr, "guest-userland: short profile frame\n");
		goto out;
	}
	if (kb_profile_parse_buffer(p, len, argv[1], run, &v, &n, &err)) {
		fprintf(stderr, "guest-userland: %s\n", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++)
		samples += v[i].samples;
	printf("bytes %zu\nstacks %zu\nsamples %llu\n", len, n, samples);
	for (i = 0; i < n; i++)
		printf("stack %llu %s\n", v[i].samples, v[i].stack);
	ret = n ? 0 : 1;
out:
	kb_profile_stacks_free(v, n);
	kb_buf_release(&b);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "profile"))
		return profile(argv + 1);
	if (argc >= 5 && !strcmp(argv[1], "initramfs"))
		return build(argc - 1, argv + 1);
	if (argc == 6 && !strcmp(argv[1], "command"))
		return build(argc - 1, argv + 1);
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "console"))
		return judge(argv + 1);
	fprintf(stderr, "usage: guest-userland initramfs CACHE RUNS MODULES|- K=V...\n"
			"       guest-userland command CACHE RUNS MODULES|- COMMAND\n"
			"       guest-userland console FILE RUNS [REGEX METRIC]\n"
			"       guest-userland profile FILE RUN\n");
	return 2;
}
