#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "buf.h"
#include "build.h"
#include "err.h"
#include "matrix.h"
#include "mem.h"
#include "rng.h"
#include "store.h"

static char *tmp;

static int setup(void **state)
{
	(void)state;
	tmp = kb_test_tmpdir("build");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kb_test_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

static char *slurp(const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;

	if (kb_buf_read_file(&b, path, 1 << 20, &err))
		fail_msg("%s", err.msg);
	return kb_buf_detach(&b);
}

/* ---- logs ------------------------------------------------------------------ */

static void test_build__units_are_cc_lines(void **state)
{
	const char *log = "  SYNC    include/config/auto.conf\n"
			  "  CC      init/main.o\n"
			  "  HOSTCC  scripts/basic/fixdep\n"
			  "  CC      kernel/fork.o\n"
			  "  AS      arch/x86/entry/entry_64.o\n"
			  "  CC      mm/slub.o";

	(void)state;
	assert_int_equal(kb_build_count_units(log, strlen(log)), 3);
	assert_int_equal(kb_build_count_units("", 0), 0);
}

static void test_build__tail_keeps_the_last_lines(void **state)
{
	char *t;

	(void)state;
	t = kb_build_tail("a\nb\nc\nd\n", 8, 2);
	assert_string_equal(t, "c\nd\n");
	free(t);
	t = kb_build_tail("a\nb", 3, 5);
	assert_string_equal(t, "a\nb");
	free(t);
}

/* ---- distance and order ---------------------------------------------------- */

static void test_build__distance_counts_differing_options(void **state)
{
	(void)state;
	assert_int_equal(kb_build_distance("CONFIG_A=y\nCONFIG_B=y\n",
					   "CONFIG_A=y\nCONFIG_B=y\n", NULL),
			 0);
	assert_int_equal(kb_build_distance("CONFIG_A=y\nCONFIG_B=y\n",
					   "CONFIG_A=n\nCONFIG_C=y\n", NULL),
			 3);
	/* "is not set", n and absent are the same */
	assert_int_equal(kb_build_distance("# CONFIG_A is not set\nB=y\n",
					   "CONFIG_B=y\nCONFIG_A=n\n", NULL),
			 0);
	/* values, not spelling: normalised and .config text compare */
	assert_int_equal(kb_build_distance("CONFIG_X=\"a\"\nN=4\n",
					   "X=\"a\"\nN=5\n", NULL),
			 1);
}

static void test_build__distance_last_duplicate_wins(void **state)
{
	(void)state;
	assert_int_equal(kb_build_distance("A=y\nA=n\n", "", NULL), 0);
	assert_int_equal(kb_build_distance("A=n\nA=y\n", "", NULL), 1);
}

static void test_build__distance_uses_weights(void **state)
{
	struct kb_build_weights *w = kb_build_weights_new();

	(void)state;
	kb_build_weights_set(w, "PARAVIRT_SPINLOCKS", 1044);
	kb_build_weights_set(w, "BLK_DEV_LOOP", 0);
	assert_int_equal(kb_build_weights_get(w, "BLK_DEV_LOOP"), 1);
	assert_int_equal(kb_build_weights_get(w, "UNKNOWN"), 1);
	assert_int_equal(kb_build_distance("PARAVIRT_SPINLOCKS=y\n",
					   "BLK_DEV_LOOP=y\n", w),
			 1045);
	kb_build_weights_free(w);
}

/* The e2e's 2x2: S a broad spinlock option, L a leaf driver. */
static const char *const square[] = {
	"S=n\nL=n\n", /* baseline */
	"S=n\nL=y\n",
	"S=y\nL=n\n",
	"S=y\nL=y\n",
};

static void test_build__order_puts_narrow_flips_between_broad_ones(void **state)
{
	struct kb_build_weights *w = kb_build_weights_new();
	size_t order[4];

	(void)state;
	kb_build_weights_set(w, "S", 1044);
	kb_build_weights_set(w, "L", 4);
	kb_build_order(square, 4, NULL, w, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1); /* narrow */
	assert_int_equal(order[2], 3); /* broad */
	assert_int_equal(order[3], 2); /* narrow */
	kb_build_weights_free(w);
}

static void test_build__order_starts_near_the_objdir(void **state)
{
	struct kb_build_weights *w = kb_build_weights_new();
	size_t order[4];

	(void)state;
	kb_build_weights_set(w, "S", 1044);
	kb_build_weights_set(w, "L", 4);
	kb_build_order(square, 4, "S=y\nL=y\n", w, order);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 0);
	assert_int_equal(order[3], 1);
	kb_build_weights_free(w);
}

static void test_build__order_ties_go_to_the_lower_index(void **state)
{
	size_t order[4];

	(void)state;
	kb_build_order(square, 4, NULL, NULL, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 2);
}

static void test_build__order_is_a_permutation(void **state)
{
	const char *configs[] = { "A=y\n", "A=y\n", "B=y\n", "A=y\nB=y\nC=y\n",
				  "" };
	size_t order[5], i, seen = 0;

	(void)state;
	kb_build_order(configs, 5, "C=y\n", NULL, order);
	for (i = 0; i < 5; i++)
		seen |= (size_t)1 << order[i];
	assert_int_equal(seen, 0x1f);
	/* identical configs follow each other */
	for (i = 0; i < 4; i++)
		if (order[i] == 0)
			assert_int_equal(order[i + 1], 1);
}

/* Lines of symbols A..H in every spelling, some repeated, some left out. */
static char *random_config(struct kb_rng *r)
{
	static const char *const vals[] = { "y", "m", "n", "", "1", "\"s\"" };
	struct kb_buf b = KB_BUF_INIT;
	char sym;

	for (sym = 'A'; sym <= 'H'; sym++) {
		unsigned k, lines = (unsigned)kb_rng_below(r, 3);

		for (k = 0; k < lines; k++) {
			const char *v = vals[kb_rng_below(r, 6)];

			switch (kb_rng_below(r, 4)) {
			case 0:
				kb_buf_addf(&b, "# CONFIG_%c is not set\n", sym);
				break;
			case 1:
				kb_buf_addf(&b, "%c=%s\n", sym, v);
				break;
			default:
				kb_buf_addf(&b, "CONFIG_%c=%s\n", sym, v);
			}
		}
		if (kb_rng_below(r, 8) == 0)
			kb_buf_addf(&b, "# a comment\n");
	}
	return kb_buf_detach(&b);
}

static struct kb_build_weights *random_weights(struct kb_rng *r)
{
	struct kb_build_weights *w = kb_build_weights_new();
	char sym[2] = "A";

	for (sym[0] = 'A'; sym[0] <= 'H'; sym[0]++)
		if (kb_rng_below(r, 4))
			kb_build_weights_set(w, sym,
					     1 + (unsigned)kb_rng_below(r, 40));
	return w;
}

static void test_build__order_is_the_nearest_first_walk(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 0; seed < 200; seed++) {
		struct kb_rng r;
		size_t n, i, k, order[12];
		char *configs[12], *start;
		unsigned char done[12];
		struct kb_build_weights *w;
		const char *cur;

		kb_rng_init(&r, seed);
		n = 1 + (size_t)kb_rng_below(&r, 12);
		for (i = 0; i < n; i++)
			configs[i] = random_config(&r);
		start = kb_rng_below(&r, 3) ? random_config(&r) : NULL;
		w = seed % 4 ? random_weights(&r) : NULL;
		kb_build_order((const char *const *)configs, n, start, w,
			       order);
		/* the definition, one kb_build_distance() at a time */
		memset(done, 0, sizeof(done));
		cur = start;
		for (k = 0; k < n; k++) {
			size_t best = n;
			unsigned long bestd = 0;

			for (i = 0; i < n; i++) {
				unsigned long d;

				if (done[i])
					continue;
				d = cur ? kb_build_distance(cur, configs[i], w)
					: 0;
				if (best == n || d < bestd) {
					best = i;
					bestd = d;
				}
			}
			assert_int_equal(order[k], best);
			done[best] = 1;
			cur = configs[best];
		}
		for (i = 0; i < n; i++)
			free(configs[i]);
		free(start);
		kb_build_weights_free(w);
	}
}

static void test_build__nearest_is_what_the_order_puts_first(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 0; seed < 200; seed++) {
		struct kb_rng r;
		size_t n, i, m = 0, order[12], idx[12];
		char *configs[12], *start;
		const char *left[12];
		unsigned char skip[12];
		struct kb_build_weights *w;
		struct kb_build_configs *c;

		kb_rng_init(&r, 1000 + seed);
		n = 1 + (size_t)kb_rng_below(&r, 12);
		for (i = 0; i < n; i++) {
			configs[i] = random_config(&r);
			skip[i] = kb_rng_below(&r, 3) == 0;
			if (!skip[i]) {
				idx[m] = i;
				left[m++] = configs[i];
			}
		}
		start = kb_rng_below(&r, 4) ? random_config(&r) : NULL;
		w = random_weights(&r);
		c = kb_build_configs_new((const char *const *)configs, n);
		i = kb_build_configs_nearest(c, start, w, skip);
		if (m == 0) {
			assert_int_equal(i, n);
		} else {
			kb_build_order(left, m, start, w, order);
			assert_int_equal(i, idx[order[0]]);
		}
		kb_build_configs_free(c);
		for (i = 0; i < n; i++)
			free(configs[i]);
		free(start);
		kb_build_weights_free(w);
	}
}

static void test_build__nearest_without_a_start_is_the_first_left(void **state)
{
	struct kb_build_configs *c = kb_build_configs_new(square, 4);
	unsigned char skip[4] = { 1, 1, 0, 0 };

	(void)state;
	assert_int_equal(kb_build_configs_nearest(c, NULL, NULL, NULL), 0);
	assert_int_equal(kb_build_configs_nearest(c, NULL, NULL, skip), 2);
	memset(skip, 1, sizeof(skip));
	assert_int_equal(kb_build_configs_nearest(c, NULL, NULL, skip), 4);
	assert_int_equal(kb_build_configs_nearest(c, "S=y\n", NULL, skip), 4);
	kb_build_configs_free(c);
	kb_build_configs_free(NULL);
}

static void test_build__nearest_weighs_only_what_the_configs_differ_in(void **state)
{
	const char *const two[] = { "A=y\nB=y\n", "A=n\nB=y\n" };
	struct kb_build_configs *c = kb_build_configs_new(two, 2);

	(void)state;
	/* Z is in neither, B the same in both, A's 2 in none: a tie */
	assert_int_equal(kb_build_configs_nearest(c, "A=2\nB=n\nZ=y\n", NULL,
						  NULL),
			 0);
	assert_int_equal(kb_build_configs_nearest(c, "# CONFIG_A is not set\n",
						  NULL, NULL),
			 1);
	kb_build_configs_free(c);
}

static void test_build__order_of_nothing_writes_nothing(void **state)
{
	size_t order[1] = { 7 };
	struct kb_build_configs *c = kb_build_configs_new(NULL, 0);

	(void)state;
	kb_build_order(NULL, 0, "A=y\n", NULL, order);
	assert_int_equal(order[0], 7);
	assert_int_equal(kb_build_configs_nearest(c, "A=y\n", NULL, NULL), 0);
	kb_build_configs_free(c);
}

static void test_build__weights_come_from_fixdep_records(void **state)
{
	char *dir = kb_asprintf("%s/obj", tmp), *sub;
	struct kb_build_weights *w = NULL;
	struct kb_err err = KB_ERR_INIT;
	char *p;

	(void)state;
	sub = kb_asprintf("%s/kernel", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	p = kb_test_write(sub, ".fork.o.cmd",
		"deps_kernel/fork.o := \\\n"
		"    $(wildcard include/config/PARAVIRT_SPINLOCKS) \\\n"
		"    $(wildcard include/config/SMP) \\\n",
		0644);
	free(p);
	p = kb_test_write(sub, ".sched.o.cmd",
		"deps := \\\n    $(wildcard include/config/PARAVIRT_SPINLOCKS) \\\n",
		0644);
	free(p);
	/* not a unit's record */
	p = kb_test_write(sub, "notes.txt", "include/config/SMP)\n", 0644);
	free(p);
	assert_int_equal(kb_build_weights_scan(dir, &w, &err), 0);
	assert_int_equal(kb_build_weights_get(w, "PARAVIRT_SPINLOCKS"), 2);
	assert_int_equal(kb_build_weights_get(w, "SMP"), 1);
	assert_int_equal(kb_build_weights_count(w), 2);
	kb_build_weights_free(w);
	free(sub);
	free(dir);
}

static void test_build__weights_of_a_missing_objdir_are_empty(void **state)
{
	struct kb_build_weights *w = NULL;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_build_weights_scan("/nonexistent/obj", &w, &err),
			 0);
	assert_int_equal(kb_build_weights_count(w), 0);
	kb_build_weights_free(w);
}

/* ---- running a build (with a fake make) ------------------------------------ */

/*
 * The fake make: finds O= and ARCH=, appends its argv to tmp/calls,
 * prints one "  CC" line per CONFIG_ line of O/.config, and makes
 * O/arch/x86/boot/bzImage, O/System.map and O/vmlinux; with CONFIG_FAIL=y
 * in the .config it prints 60 lines and fails; with CONFIG_KILLED=y it
 * is killed by SIGTERM (a user's kill), with CONFIG_QUIT=y by SIGQUIT
 * (a ^\\); with CONFIG_JOB_INTERRUPTED=y it says, as GNU make does, that
 * a job ended by SIGINT and exits 2.
 */
static const char fake_make[] =
	"#!/bin/sh\n"
	"for a; do case $a in O=*) o=${a#O=};; esac; done\n"
	"echo \"$* MAKEFLAGS=${MAKEFLAGS-unset}\" >> \"$(dirname \"$0\")/calls\"\n"
	"if grep -q CONFIG_FAIL=y \"$o/.config\"; then\n"
	"  i=0; while [ $i -lt 60 ]; do echo \"error line $i\"; i=$((i+1)); done\n"
	"  exit 2\n"
	"fi\n"
	"if grep -q CONFIG_KILLED=y \"$o/.config\"; then kill -TERM $$; fi\n"
	"if grep -q CONFIG_QUIT=y \"$o/.config\"; then kill -QUIT $$; fi\n"
	"if grep -q CONFIG_JOB_INTERRUPTED=y \"$o/.config\"; then\n"
	"  echo '  CC      kernel/fork.o'\n"
	"  echo 'make[2]: *** [scripts/Makefile.build:244: kernel/fork.o] Interrupt'\n"
	"  echo 'make[1]: *** [Makefile:1944: kernel] Interrupt'\n"
	"  echo 'make: *** [Makefile:234: __sub-make] Interrupt'\n"
	"  exit 2\n"
	"fi\n"
	"grep '^CONFIG_' \"$o/.config\" | while read l; do echo \"  CC      $l.o\"; done\n"
	"echo '  HOSTCC  fixdep'\n"
	"mkdir -p \"$o/arch/x86/boot\"\n"
	"echo image > \"$o/arch/x86/boot/bzImage\"\n"
	"echo map > \"$o/System.map\"\n"
	"echo elf > \"$o/vmlinux\"\n";

struct seen {
	unsigned reports, done, last_units;
};

static void on_progress(const struct kb_build_progress *p, void *arg)
{
	struct seen *s = arg;

	s->reports++;
	s->done += p->done;
	s->last_units = p->units;
}

static void build_opts(struct kb_build_opts *o, char **make, char **objdir,
		       char **cache)
{
	*make = kb_test_write(tmp, "make", fake_make, 0755);
	*objdir = kb_asprintf("%s/obj", tmp);
	*cache = kb_asprintf("%s/cache", tmp);
	o->tree = tmp;
	o->tree_id = "plain:test";
	o->objdir = *objdir;
	o->cache_dir = *cache;
	o->make = *make;
	o->jobs = 3;
}

static unsigned count_calls(void)
{
	char *path = kb_asprintf("%s/calls", tmp), *text;
	unsigned n = 0;
	const char *p;

	if (access(path, F_OK) == 0) {
		text = slurp(path);
		for (p = text; *p; p++)
			n += *p == '\n';
		free(text);
	}
	free(path);
	return n;
}

static void test_build__run_keeps_artifacts_and_counts_units(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	struct seen seen = { 0, 0, 0 };
	char *make, *objdir, *cache, *p, *text;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	o.progress = on_progress;
	o.arg = &seen;
	setenv("MAKEFLAGS", "s", 1);
	assert_int_equal(kb_build_run(&o, "k1", "CONFIG_A=y\nCONFIG_B=y\n",
				      "A=y", &r, &info, &err),
			 0);
	unsetenv("MAKEFLAGS");
	assert_int_equal(r.status, KB_BUILD_OK);
	p = kb_asprintf("%s/k1/bzImage", cache);
	assert_string_equal(r.image, p);
	free(p);
	assert_int_equal(info.units_compiled, 2);
	assert_true(info.full);
	assert_false(info.cached);
	assert_int_equal(seen.done, 1);
	assert_int_equal(seen.last_units, 2);
	text = slurp(info.config_path);
	assert_string_equal(text, "CONFIG_A=y\nCONFIG_B=y\n");
	free(text);
	text = slurp(info.log_path);
	assert_non_null(strstr(text, "  CC      CONFIG_A=y.o\n"));
	free(text);
	/* argv: -C tree, O=, ARCH=, -jN, target; no MAKEFLAGS from us */
	p = kb_asprintf("%s/calls", tmp);
	text = slurp(p);
	free(p);
	p = kb_asprintf("-C%s O=%s ARCH=x86_64 -j3 bzImage MAKEFLAGS=unset\n",
			tmp, objdir);
	assert_string_equal(text, p);
	free(p);
	free(text);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

static void test_build__a_built_key_is_not_built_again(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char *make, *objdir, *cache;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	assert_int_equal(kb_build_run(&o, "k1", "CONFIG_A=y\n", "a", &r, &info,
				      &err),
			 0);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	assert_int_equal(count_calls(), 1);
	assert_int_equal(kb_build_run(&o, "k1", "CONFIG_A=y\n", "a", &r, &info,
				      &err),
			 0);
	assert_int_equal(count_calls(), 1);
	assert_int_equal(r.status, KB_BUILD_OK);
	assert_true(info.cached);
	assert_int_equal(info.units_compiled, 1);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	/* another key in the same O= folder is incremental, not full */
	assert_int_equal(kb_build_run(&o, "k2", "CONFIG_A=y\nCONFIG_C=y\n",
				      "c", &r, &info, &err),
			 0);
	assert_int_equal(count_calls(), 2);
	assert_false(info.full);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

static void test_build__failed_build_is_a_result_with_its_tail(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char *make, *objdir, *cache;
	const char *p;
	unsigned lines = 0;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	assert_int_equal(kb_build_run(&o, "bad", "CONFIG_FAIL=y\n", "fail", &r,
				      &info, &err),
			 0);
	assert_int_equal(r.status, KB_BUILD_FAILED);
	assert_msg_contains(r.reason, "make exited with status 2");
	assert_null(r.image);
	assert_non_null(r.log_tail);
	for (p = r.log_tail; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 50);
	assert_int_equal(strncmp(r.log_tail, "error line 10\n", 14), 0);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	/* a failure is not cached: it is tried again */
	assert_int_equal(kb_build_run(&o, "bad", "CONFIG_FAIL=y\n", "fail", &r,
				      &info, &err),
			 0);
	assert_int_equal(count_calls(), 2);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

/* A make killed (^C, kill, the OOM killer) is no failure of its config:
 * an error, nothing kept, built again next time. */
static void test_build__killed_build_is_an_error_not_a_failure(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char *make, *objdir, *cache;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	assert_int_equal(kb_build_run(&o, "k", "CONFIG_KILLED=y\n", "killed",
				      &r, &info, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "stopped by signal 15");
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	kb_err_clear(&err);
	assert_int_equal(kb_build_run(&o, "k", "CONFIG_KILLED=y\n", "killed",
				      &r, &info, &err),
			 KB_EFAIL);
	assert_int_equal(count_calls(), 2);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

/* make killed by any signal, or saying that one of its jobs was (a ^C
 * reaches the compilers first: make exits 2), is no failure of the
 * config either: nothing is a result, and it builds again. */
static void test_build__a_build_any_signal_ended_is_no_result(void **state)
{
	static const char *const configs[] = { "CONFIG_QUIT=y\n",
					       "CONFIG_JOB_INTERRUPTED=y\n" };
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char *make, *objdir, *cache;
	size_t i;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	for (i = 0; i < 2; i++) {
		assert_int_equal(kb_build_run(&o, configs[i], configs[i], "k",
					      &r, &info, &err),
				 KB_EFAIL);
		assert_msg_contains(err.msg, "no result is recorded");
		assert_msg_contains(err.msg, i ? "\"Interrupt\"" : "signal 3");
		kb_build_result_release(&r);
		kb_build_info_release(&info);
		kb_err_clear(&err);
	}
	/* a job that failed by itself is still a failure */
	assert_int_equal(kb_build_run(&o, "f", "CONFIG_FAIL=y\n", "f", &r,
				      &info, &err),
			 0);
	assert_int_equal(r.status, KB_BUILD_FAILED);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

/* The evidence of a build (db/0007): the config it was built from and its
 * image's digest, also when it comes from the cache; a failed build keeps
 * the config alone. */
static void test_build__a_build_keeps_its_config_and_image_digest(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char want[KB_SHA256_HEX_LEN + 1];
	char *make, *objdir, *cache, *text;
	int round;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	for (round = 0; round < 2; round++) {
		assert_int_equal(kb_build_run(&o, "k1", "CONFIG_A=y\n", "a",
					      &r, &info, &err),
				 0);
		assert_int_equal(info.cached, round);
		assert_string_equal(r.config_text, "CONFIG_A=y\n");
		text = slurp(r.image);
		kb_sha256_hex(text, strlen(text), want);
		free(text);
		assert_non_null(r.image_sha256);
		assert_string_equal(r.image_sha256, want);
		kb_build_result_release(&r);
		kb_build_info_release(&info);
	}
	assert_int_equal(kb_build_run(&o, "bad", "CONFIG_FAIL=y\n", "fail", &r,
				      &info, &err),
			 0);
	assert_int_equal(r.status, KB_BUILD_FAILED);
	assert_string_equal(r.config_text, "CONFIG_FAIL=y\n");
	assert_null(r.image_sha256);
	kb_build_result_release(&r);
	kb_build_info_release(&info);
	free(make);
	free(objdir);
	free(cache);
}

static void test_build__missing_make_is_an_error(void **state)
{
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_build_result r;
	struct kb_build_info info;
	struct kb_err err = KB_ERR_INIT;
	char *make, *objdir, *cache;

	(void)state;
	build_opts(&o, &make, &objdir, &cache);
	o.make = "/nonexistent/make";
	assert_int_equal(kb_build_run(&o, "k", "CONFIG_A=y\n", "a", &r, &info,
				      &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "cannot run '/nonexistent/make'");
	free(make);
	free(objdir);
	free(cache);
}

/* ---- the matrix's build section -------------------------------------------- */

static void test_build__matrix_build_section(void **state)
{
	const char *text = "build:\n  jobs: 3\n"
			   "  make_args: [\"CC=distcc gcc\", V=1]\n"
			   "workload:\n  fio: { rw: randread }\n";
	struct kb_build_opts o = KB_BUILD_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;

	(void)state;
	if (kb_matrix_parse_buffer(text, strlen(text), "t.yaml", &m, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_matrix_build(m)->jobs, 3);
	kb_build_opts_from_matrix(m, "/src", "plain:x", &o);
	assert_int_equal(o.jobs, 3);
	assert_int_equal(o.nmake_args, 2);
	assert_string_equal(o.make_args[0], "CC=distcc gcc");
	assert_string_equal(o.make_args[1], "V=1");
	assert_string_equal(o.tree, "/src");
	kb_matrix_free(m);
}

static void test_build__matrix_build_section_errors(void **state)
{
	const char *bad[][2] = {
		{ "build: { jobs: 0 }\n", "t.yaml:1:16: build.jobs must be an integer from 1 to 1024" },
		{ "build: { make_args: V=1 }\n", "t.yaml:1:21: build.make_args must be a list" },
		{ "build: { job: 2 }\n", "unknown key 'job' in 'build' (did you mean 'jobs'?)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = kb_asprintf("%sworkload:\n  fio: { rw: randread }\n",
					 bad[i][0]);
		struct kb_err err = KB_ERR_INIT;
		struct kb_matrix *m = NULL;

		assert_int_equal(kb_matrix_parse_buffer(text, strlen(text),
							"t.yaml", &m, &err),
				 KB_EINPUT);
		assert_msg_contains(err.msg, bad[i][1]);
		free(text);
	}
}

/* ---- the store's build rows ------------------------------------------------- */

static void put_build(struct kb_store *s, const char *key, double secs,
		      long units, int full, const char *run, int order)
{
	struct kb_build_result r;
	struct kb_store_build_detail d;
	struct kb_store_build_request q;
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;

	memset(&r, 0, sizeof(r));
	r.status = KB_BUILD_OK;
	r.duration_s = secs;
	r.image = "/cache/bzImage";
	if (kb_store_build_put(s, key, "build", &r, &id, &err))
		fail_msg("%s", err.msg);
	memset(&d, 0, sizeof(d));
	d.tree_id = "plain:t";
	d.compiler = "gcc 12";
	d.label = key;
	d.units_compiled = units;
	d.full_build = full;
	if (kb_store_build_detail_put(s, id, &d, &err))
		fail_msg("%s", err.msg);
	memset(&q, 0, sizeof(q));
	q.matrix_name = "m";
	q.run_started_at = run;
	q.variant_idx = (unsigned)order;
	q.variant_label = key;
	q.build_key = key;
	q.build_id = id;
	q.outcome = "built";
	q.build_order = order;
	if (kb_store_build_request_put(s, &q, &err))
		fail_msg("%s", err.msg);
}

static void test_build__store_keeps_builds_in_build_order(void **state)
{
	char *path = kb_asprintf("%s/t.db", tmp);
	struct kb_store *s = NULL;
	struct kb_store_build_row *rows = NULL;
	struct kb_store_build_request q;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	unsigned nv = 0;

	(void)state;
	assert_int_equal(kb_store_open(path, NULL, &s, &err), 0);
	put_build(s, "old", 9, 9, 1, "2026-01-01T00:00:00.000000Z", 1);
	put_build(s, "b", 26, 4, 0, "2026-02-01T00:00:00.000000Z", 2);
	put_build(s, "a", 488, 1132, 1, "2026-02-01T00:00:00.000000Z", 1);
	/* a variant sharing build "a" counts as a variant, not a build */
	memset(&q, 0, sizeof(q));
	q.matrix_name = "m";
	q.run_started_at = "2026-02-01T00:00:00.000000Z";
	q.variant_idx = 7;
	q.variant_label = "shared";
	q.build_key = "a";
	q.outcome = "shared";
	q.build_order = -1;
	assert_int_equal(kb_store_build_request_put(s, &q, &err), 0);
	assert_int_equal(kb_store_build_rows(s, "m", &rows, &n, &nv, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(nv, 3);
	assert_string_equal(rows[0].build_key, "a");
	assert_int_equal(rows[0].units_compiled, 1132);
	assert_int_equal(rows[0].full_build, 1);
	assert_true(rows[0].duration_s == 488);
	assert_string_equal(rows[1].build_key, "b");
	assert_int_equal(rows[1].units_compiled, 4);
	assert_string_equal(rows[1].tree_id, "plain:t");
	for (i = 0; i < n; i++)
		kb_store_build_row_release(&rows[i]);
	free(rows);
	assert_int_equal(kb_store_build_rows(s, "other", &rows, &n, &nv, &err),
			 0);
	assert_int_equal(n, 0);
	free(rows);
	kb_store_close(s);
	free(path);
}

static void test_build__store_detail_of_a_missing_build(void **state)
{
	char *path = kb_asprintf("%s/t.db", tmp);
	struct kb_store *s = NULL;
	struct kb_store_build_detail d;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(kb_store_open(path, NULL, &s, &err), 0);
	assert_int_equal(kb_store_build_detail_put(s, 42, &d, &err),
			 KB_ENOTFOUND);
	kb_store_close(s);
	free(path);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_build__units_are_cc_lines),
	cmocka_unit_test(test_build__tail_keeps_the_last_lines),
	cmocka_unit_test(test_build__distance_counts_differing_options),
	cmocka_unit_test(test_build__distance_last_duplicate_wins),
	cmocka_unit_test(test_build__distance_uses_weights),
	cmocka_unit_test(test_build__order_puts_narrow_flips_between_broad_ones),
	cmocka_unit_test(test_build__order_starts_near_the_objdir),
	cmocka_unit_test(test_build__order_ties_go_to_the_lower_index),
	cmocka_unit_test(test_build__order_is_a_permutation),
	cmocka_unit_test(test_build__order_is_the_nearest_first_walk),
	cmocka_unit_test(test_build__nearest_is_what_the_order_puts_first),
	cmocka_unit_test(test_build__nearest_without_a_start_is_the_first_left),
	cmocka_unit_test(test_build__nearest_weighs_only_what_the_configs_differ_in),
	cmocka_unit_test(test_build__order_of_nothing_writes_nothing),
	T(test_build__weights_come_from_fixdep_records),
	cmocka_unit_test(test_build__weights_of_a_missing_objdir_are_empty),
	T(test_build__run_keeps_artifacts_and_counts_units),
	T(test_build__a_built_key_is_not_built_again),
	T(test_build__failed_build_is_a_result_with_its_tail),
	T(test_build__killed_build_is_an_error_not_a_failure),
	T(test_build__a_build_any_signal_ended_is_no_result),
	T(test_build__a_build_keeps_its_config_and_image_digest),
	T(test_build__missing_make_is_an_error),
	cmocka_unit_test(test_build__matrix_build_section),
	cmocka_unit_test(test_build__matrix_build_section_errors),
	T(test_build__store_keeps_builds_in_build_order),
	T(test_build__store_detail_of_a_missing_build),
};

KB_TEST_MAIN(tests)
