#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testcorpus.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "mem.h"
#include "model.h"
#include "monitor.h"
#include "variant.h"

#define FIXTURES KB_TEST_DATA "/monitor"

/* Add section SRC PHASE of @text to frame @b. */
static void section(struct kb_buf *b, const char *src, const char *phase,
		    const char *text)
{
	kb_buf_addf(b, "%s %s %zu\n", src, phase, strlen(text));
	kb_buf_adds(b, text);
}

/* Add section SRC PHASE read from tests/data/monitor/SRC.PHASE. */
static void section_file(struct kb_buf *b, const char *src, const char *phase)
{
	struct kb_buf f = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s.%s", FIXTURES, src, phase);
	if (kb_buf_read_file(&f, path, 1 << 20, &err))
		fail_msg("%s", err.msg);
	kb_buf_addf(b, "%s %s %zu\n", src, phase, f.len);
	kb_buf_add(b, f.buf, f.len);
	kb_buf_release(&f);
}

/* The value of monitor @name in @v (n @n) of run @run, or NaN. */
static double value_of(const struct kb_monitor_value *v, size_t n,
		       unsigned run, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].run == run && !strcmp(v[i].name, name))
			return v[i].value;
	return NAN;
}

/* The frame of every fixture: what /init sends after a run. */
static void fixture_frame(struct kb_buf *b)
{
	static const char *const srcs[] = { "vmstat", "interrupts",
					    "schedstat", "lock_stat" };
	size_t i;

	kb_buf_adds(b, "kbisect-monitors 1\n");
	for (i = 0; i < 4; i++) {
		section_file(b, srcs[i], "before");
		section_file(b, srcs[i], "after");
	}
	section_file(b, "perf", "stat");
	kb_buf_adds(b, "\n");
}

static void test_monitor__fixtures_give_deltas_by_name(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_monitor_value *v = NULL;
	size_t n = 0, i;

	(void)state;
	fixture_frame(&b);
	assert_int_equal(kb_monitor_parse_buffer(b.buf, b.len, "f", 2, &v, &n,
						 &err),
			 0);
	/* counters: after - before; the nr_ gauges: after */
	assert_true(value_of(v, n, 2, "vmstat.pgfault") == 42453);
	assert_true(value_of(v, n, 2, "vmstat.nr_free_pages") == 1208395);
	/* interrupts by device, summed over the CPUs; labels as named */
	assert_true(value_of(v, n, 2, "irq.virtio1-req.0") == 5313);
	assert_true(value_of(v, n, 2, "irq.LOC") > 0);
	/* nothing moved: not there */
	assert_true(isnan(value_of(v, n, 2, "irq.virtio0-config")));
	/* schedstat summed over the CPUs, domain lines left out */
	assert_true(value_of(v, n, 2, "schedstat.sched_count") == 1000);
	assert_true(value_of(v, n, 2, "schedstat.cpu_time") == 4e8);
	assert_true(value_of(v, n, 2, "schedstat.run_delay") == 2e6);
	assert_true(value_of(v, n, 2, "schedstat.timeslices") == 600);
	assert_true(isnan(value_of(v, n, 2, "schedstat.yld_count")));
	/* lock_stat totals over the classes, contention points left out */
	assert_true(value_of(v, n, 2, "lock_stat.contentions") == 8);
	assert_true(value_of(v, n, 2, "lock_stat.acquisitions") == 500);
	assert_true(value_of(v, n, 2, "lock_stat.waittime_total") == 15.5);
	assert_true(value_of(v, n, 2, "lock_stat.holdtime_total") == 300);
	/* perf stat as counted, "<not counted>" left out */
	assert_true(value_of(v, n, 2, "perf.task-clock") == 1897.16);
	assert_true(value_of(v, n, 2, "perf.context-switches") == 137);
	assert_true(isnan(value_of(v, n, 2, "perf.cycles")));
	for (i = 0; i < n; i++) {
		assert_int_equal(v[i].run, 2);
		assert_true(v[i].value != 0);
		if (i)
			assert_true(strcmp(v[i - 1].name, v[i].name) < 0);
	}
	free(v);
	kb_buf_release(&b);
}

static void test_monitor__appends_and_skips_unknown_sections(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_monitor_value *v = NULL;
	size_t n = 0;

	(void)state;
	kb_buf_adds(&b, "kbisect-monitors 1\n");
	section(&b, "vmstat", "before", "pgfault 10\nnr_dirty 3\n");
	section(&b, "meminfo", "before", "MemFree: 1 kB\n"); /* a newer guest's */
	section(&b, "vmstat", "during", "pgfault 11\n");
	section(&b, "vmstat", "after", "pgfault 25\nnr_dirty 4\npgnew 2\n");
	section(&b, "interrupts", "before", "  CPU0\n 1: 5 x dev\n"); /* no after */
	assert_int_equal(kb_monitor_parse_buffer(b.buf, b.len, "f", 1, &v, &n,
						 &err),
			 0);
	assert_int_equal(n, 3);
	assert_true(value_of(v, n, 1, "vmstat.pgfault") == 15);
	assert_true(value_of(v, n, 1, "vmstat.nr_dirty") == 4);
	assert_true(value_of(v, n, 1, "vmstat.pgnew") == 2);
	/* a second run's frame appends */
	assert_int_equal(kb_monitor_parse_buffer(b.buf, b.len, "f", 2, &v, &n,
						 &err),
			 0);
	assert_int_equal(n, 6);
	assert_true(value_of(v, n, 2, "vmstat.pgfault") == 15);
	free(v);
	kb_buf_release(&b);
}

/* A machine of 100 CPUs: every count summed, the device still named. */
static void test_monitor__interrupts_of_many_cpus(void **state)
{
	struct kb_buf b = KB_BUF_INIT, before = KB_BUF_INIT, after = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_monitor_value *v = NULL;
	size_t n = 0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		kb_buf_addf(&before, "%s CPU%d", i ? "" : "     ", i);
		kb_buf_addf(&after, "%s CPU%d", i ? "" : "     ", i);
	}
	kb_buf_adds(&before, "\n  5:");
	kb_buf_adds(&after, "\n  5:");
	for (i = 0; i < 100; i++) {
		kb_buf_adds(&before, " 1");
		kb_buf_adds(&after, " 3");
	}
	kb_buf_adds(&before, "  IO-APIC   5-edge      virtio9-req.0\n");
	kb_buf_adds(&after, "  IO-APIC   5-edge      virtio9-req.0\n");
	kb_buf_adds(&b, "kbisect-monitors 1\n");
	section(&b, "interrupts", "before", before.buf);
	section(&b, "interrupts", "after", after.buf);
	assert_int_equal(kb_monitor_parse_buffer(b.buf, b.len, "f", 1, &v, &n,
						 &err),
			 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "irq.virtio9-req.0");
	assert_true(v[0].value == 200);
	free(v);
	kb_buf_release(&b);
	kb_buf_release(&before);
	kb_buf_release(&after);
}

static void test_monitor__malformed_frame_is_refused_untouched(void **state)
{
	static const char *const bad[] = {
		"kbisect-monitors 2\n",
		"kbisect-monitors 1\nvmstat before\n",
		"kbisect-monitors 1\nvmstat before 99\npgfault 1\n",
		"kbisect-monitors 1\nvmstat before x\n",
		"kbisect-monitors 1\nvmstat before 0\nvmstat before 0\n",
	};
	struct kb_monitor_value *v = NULL;
	size_t n = 0, i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kb_err err = KB_ERR_INIT;

		assert_int_equal(kb_monitor_parse_buffer(bad[i], strlen(bad[i]),
							 "run 1", 1, &v, &n,
							 &err),
				 KB_EINPUT);
		assert_msg_contains(err.msg, "run 1: ");
		assert_null(v);
		assert_int_equal(n, 0);
	}
}

/* A row of boot @boot. */
#define ROW(boot, name, value) { (boot), (name), (value) }

static void test_monitor__compare_flags_change_absent_is_zero(void **state)
{
	const struct kb_monitor_row a[] = {
		ROW(1, "vmstat.pgfault", 100), ROW(2, "vmstat.pgfault", 102),
		ROW(3, "vmstat.pgfault", 98),  ROW(4, "vmstat.pgfault", 101),
		ROW(1, "irq.x", 5),            ROW(2, "irq.x", 5),
		ROW(3, "irq.x", 5),            ROW(4, "irq.x", 5),
		ROW(1, "perf.once", 3), /* boots 2 to 4 count 0 */
	};
	const struct kb_monitor_row b[] = {
		ROW(5, "vmstat.pgfault", 150), ROW(6, "vmstat.pgfault", 149),
		ROW(7, "vmstat.pgfault", 152), ROW(8, "vmstat.pgfault", 151),
		ROW(5, "irq.x", 5),            ROW(6, "irq.x", 5),
		ROW(7, "irq.x", 5),            ROW(8, "irq.x", 5),
	};
	struct kb_monitor_change *c = NULL;
	size_t n = 0, changed;

	(void)state;
	changed = kb_monitor_compare(a, 9, b, 8, 0.05, &c, &n);
	assert_int_equal(changed, 1);
	assert_int_equal(n, 3);
	assert_int_equal(kb_monitor_tested(c, n), 3);
	assert_string_equal(c[0].name, "vmstat.pgfault");
	assert_true(c[0].changed && c[0].p_holm < 0.05);
	assert_true(fabs(c[0].change_pct - 50.12) < 0.01);
	/* then by name: equal constants p 1, a one-off not significant */
	assert_string_equal(c[1].name, "irq.x");
	assert_true(c[1].p == 1 && !c[1].changed);
	assert_string_equal(c[2].name, "perf.once");
	assert_true(c[2].a.n == 4 && c[2].a.mean == 0.75 && c[2].b.mean == 0);
	assert_false(c[2].changed);
	free(c);
	/* one boot a side: nothing tested, nothing changed */
	changed = kb_monitor_compare(a, 1, b, 1, 0.05, &c, &n);
	assert_int_equal(changed, 0);
	assert_int_equal(kb_monitor_tested(c, n), 0);
	free(c);
}

/* A host monitor (host.*) a boot lacks was not read: that boot is left
 * out of it, where a guest monitor it lacks counts 0. */
static void test_monitor__compare_host_monitor_absent_is_unmeasured(
	void **state)
{
	const struct kb_monitor_row a[] = {
		ROW(1, "host.cpu_busy_pct", 50),
		ROW(2, "host.cpu_busy_pct", 52),
		ROW(3, "host.cpu_busy_pct", 51),
		ROW(4, "irq.x", 1),
		/* boot 4's host figures could not be read */
	};
	const struct kb_monitor_row b[] = {
		ROW(5, "host.cpu_busy_pct", 50),
		ROW(6, "host.cpu_busy_pct", 51),
		ROW(7, "host.cpu_busy_pct", 52),
		ROW(8, "host.cpu_busy_pct", 50),
		ROW(5, "host.loadavg_end", 0),
		ROW(6, "host.loadavg_end", 0),
	};
	struct kb_monitor_change *c = NULL;
	size_t n = 0, i;

	(void)state;
	assert_true(kb_monitor_is_host("host.cpu_busy_pct"));
	assert_false(kb_monitor_is_host("vmstat.host"));
	assert_false(kb_monitor_is_host("hostx.y"));
	assert_int_equal(kb_monitor_compare(a, 4, b, 6, 0.05, &c, &n), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		if (!strcmp(c[i].name, "host.cpu_busy_pct")) {
			/* 3 boots, mean 51: not 4 with a 0 in them */
			assert_int_equal(c[i].a.n, 3);
			assert_true(c[i].a.mean == 51);
			assert_int_equal(c[i].b.n, 4);
			assert_false(c[i].changed);
		} else if (!strcmp(c[i].name, "host.loadavg_end")) {
			/* none on side A: nothing to test */
			assert_int_equal(c[i].a.n, 0);
			assert_int_equal(c[i].b.n, 2);
			assert_true(isnan(c[i].p));
		} else {
			assert_string_equal(c[i].name, "irq.x");
			assert_int_equal(c[i].a.n, 4);
			assert_int_equal(c[i].b.n, 4);
		}
	}
	free(c);
}

/*
 * The analysis against known truth, on the model's monitors: 20
 * monitors (5% boot noise, 2% run noise, 3 runs a boot), 10 boots a
 * side, 20 seeds.  The same kernel as two variants must flag no monitor
 * after Holm in at least 19 of the 20; a planted 10% change in one
 * counter must be found in at least 16 of the 20 (docs/analysis.md,
 * "Monitors", gives the figures).
 */
#define NMON 20
#define BOOTS 10
#define RUNS 3

static size_t flagged(const struct kb_model *m, const struct kb_variant *va,
		      const struct kb_variant *vb, const char *want,
		      int *found)
{
	static char names[NMON][16];
	struct kb_monitor_row *a, *b;
	struct kb_monitor_change *c = NULL;
	size_t n = 0, k = 0, i, changed;
	unsigned boot, run;

	a = kb_calloc(NMON * BOOTS, sizeof(*a));
	b = kb_calloc(NMON * BOOTS, sizeof(*b));
	for (i = 0; i < NMON; i++) {
		snprintf(names[i], sizeof(names[i]), "%s",
			 kb_model_monitor_name(m, i));
		for (boot = 1; boot <= BOOTS; boot++, k++) {
			double sa = 0, sb = 0;

			for (run = 1; run <= RUNS; run++) {
				sa += kb_model_monitor_sample(m, i, va, boot, run);
				sb += kb_model_monitor_sample(m, i, vb, boot, run);
			}
			a[k] = (struct kb_monitor_row){ boot, names[i], sa / RUNS };
			b[k] = (struct kb_monitor_row){ 100 + boot, names[i],
							sb / RUNS };
		}
	}
	changed = kb_monitor_compare(a, k, b, k, 0.05, &c, &n);
	assert_int_equal(n, NMON);
	*found = 0;
	for (i = 0; i < changed; i++)
		if (want && !strcmp(c[i].name, want))
			*found = 1;
	free(c);
	free(a);
	free(b);
	return changed;
}

static void test_monitor__model_null_and_planted_change(void **state)
{
	const struct kb_setting off = { "X", "n", KB_FACTOR_KCONFIG };
	const struct kb_setting on = { "X", "y", KB_FACTOR_KCONFIG };
	const struct kb_variant a = { .idx = 0, .label = "X=n", .nsettings = 1,
				      .settings = &off };
	const struct kb_variant a2 = { .idx = 1, .label = "X=n again",
				       .nsettings = 1, .settings = &off };
	const struct kb_variant b = { .idx = 1, .label = "X=y", .nsettings = 1,
				      .settings = &on };
	unsigned seed, null_clean = 0, planted_found = 0, planted_only = 0;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		struct kb_buf y = KB_BUF_INIT;
		struct kb_err err = KB_ERR_INIT;
		struct kb_model *m = NULL;
		int found, i;

		kb_buf_addf(&y, "metric: real_s\nbase: 1\nseed: %u\nmonitors:\n",
			    seed);
		for (i = 0; i < NMON; i++)
			kb_buf_addf(&y,
				    "  vmstat.c%02d: { base: %d, noise: { boot_cv: 0.05, run_cv: 0.02 }%s }\n",
				    i, 1000 * (i + 1),
				    i == 7 ? ", effects: [ { when: { X: y }, factor: 1.1 } ]"
					   : "");
		assert_int_equal(kb_model_parse_buffer(y.buf, y.len, "m.yaml",
						       &m, &err),
				 0);
		assert_int_equal(kb_model_nmonitors(m), NMON);
		null_clean += flagged(m, &a, &a2, NULL, &found) == 0;
		i = (int)flagged(m, &a, &b, "vmstat.c07", &found);
		planted_found += (unsigned)found;
		planted_only += found && i == 1;
		kb_model_free(m);
		kb_buf_release(&y);
	}
	print_message("monitors on the model, 20 seeds: null clean %u, planted 10%% found %u (alone %u)\n",
		      null_clean, planted_found, planted_only);
	assert_true(null_clean >= 19);
	assert_true(planted_found >= 16);
}

static void test_monitor__model_executor_yields_monitors(void **state)
{
	static const char y[] =
		"metric: real_s\nbase: 2\nmonitors:\n"
		"  vmstat.pgfault: { base: 1000, effects: [ { when: { X: y }, factor: 1.5 } ] }\n"
		"  irq.LOC: { base: 7 }\n";
	const struct kb_setting on = { "X", "y", KB_FACTOR_KCONFIG };
	const struct kb_variant v = { .idx = 0, .label = "X=y", .nsettings = 1,
				      .settings = &on };
	struct kb_err err = KB_ERR_INIT;
	struct kb_model *m = NULL;
	struct kb_executor *ex = NULL;
	struct kb_build_result br;
	struct kb_boot_result r;

	(void)state;
	memset(&br, 0, sizeof(br));
	memset(&r, 0, sizeof(r));
	assert_int_equal(kb_model_parse_buffer(y, strlen(y), "m.yaml", &m, &err),
			 0);
	assert_int_equal(kb_model_executor_new(m, 0, &ex), 0);
	assert_int_equal(kb_executor_build(ex, &v, &br, &err), 0);
	assert_int_equal(kb_executor_boot(ex, &v, &br, 1, 2, &r, &err), 0);
	assert_int_equal(r.status, KB_BOOT_OK);
	assert_int_equal(r.nmonitors, 4);
	assert_true(value_of(r.monitors, r.nmonitors, 1, "vmstat.pgfault") ==
		    1500);
	assert_true(value_of(r.monitors, r.nmonitors, 2, "irq.LOC") == 7);
	kb_boot_result_release(&r);
	kb_build_result_release(&br);
	kb_executor_free(ex);
	kb_model_free(m);
}

static void test_monitor__model_refuses_bad_monitor(void **state)
{
	static const char *const bad[][2] = {
		{ "metric: x\nbase: 1\nmonitors:\n  pgfault: { base: 1 }\n",
		  "m.yaml:4:3: invalid monitor name 'pgfault'" },
		{ "metric: x\nbase: 1\nmonitors:\n  vmstat.a: { base: 0 }\n",
		  "m.yaml:4:21: a monitor's 'base' must be greater than 0" },
		{ "metric: x\nbase: 1\nmonitors:\n  vmstat.a: { bse: 1 }\n",
		  "m.yaml:4:15: unknown key 'bse'" },
		{ "metric: x\nbase: 1\nmonitors:\n  vmstat.a: { base: 1, noise: { boot_cv: -1 } }\n",
		  "m.yaml:4:42: 'boot_cv' must be" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_model *m = NULL;

		assert_int_equal(kb_model_parse_buffer(bad[i][0],
						       strlen(bad[i][0]),
						       "m.yaml", &m, &err),
				 KB_EINPUT);
		assert_msg_contains(err.msg, bad[i][1]);
		assert_null(m);
	}
}

static int parse_corpus(const char *data, size_t len, const char *path,
			struct kb_err *err)
{
	struct kb_monitor_value *v = NULL;
	size_t n = 0;
	int ret = kb_monitor_parse_buffer(data, len, path, 1, &v, &n, err);

	if (ret)
		assert_null(v);
	free(v);
	return ret;
}

static void test_monitor__fuzz_corpus_replays(void **state)
{
	(void)state;
	kb_test_replay_corpus("monitor", 1 << 24, parse_corpus, 3, 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_monitor__fixtures_give_deltas_by_name),
	cmocka_unit_test(test_monitor__appends_and_skips_unknown_sections),
	cmocka_unit_test(test_monitor__interrupts_of_many_cpus),
	cmocka_unit_test(test_monitor__malformed_frame_is_refused_untouched),
	cmocka_unit_test(test_monitor__compare_flags_change_absent_is_zero),
	cmocka_unit_test(
		test_monitor__compare_host_monitor_absent_is_unmeasured),
	cmocka_unit_test(test_monitor__model_null_and_planted_change),
	cmocka_unit_test(test_monitor__model_executor_yields_monitors),
	cmocka_unit_test(test_monitor__model_refuses_bad_monitor),
	cmocka_unit_test(test_monitor__fuzz_corpus_replays),
};

KB_TEST_MAIN(tests)
