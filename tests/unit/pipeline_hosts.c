#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testfs.h"
#include "analysis.h"
#include "compare.h"
#include "effects.h"
#include "err.h"
#include "executor.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "pipeline.h"
#include "plan.h"
#include "spread.h"
#include "store.h"
#include "why.h"

/*
 * The pipeline over several hosts (kb_pipeline_opts.hosts, docs/guests.md
 * "Several hosts") on performance models with hosts: (docs/model.md), at
 * time scale 0 unless a test times the overlap: every variant's boots on
 * every host, a host drained after its own failures with none of them
 * counted as the variant's, every host drained and the run resumed
 * without a boot lost or doubled, builds overlapping boots or not, and
 * effects with the host as a block.  And the boots added after the run
 * (adaptive sampling, why: kb_pipeline_hosts_executor()): over every
 * host as evenly, a lost host drained with none of its failures the
 * variant's, and every host drained an error that stores nothing.
 */

#define NHOSTS 3
#define H1 "qemu+ssh://a/system"
#define H2 "qemu+ssh://b/system"
#define H3 "qemu+ssh://c/system"

/* 8 variants (2^3), 6 boots each, 3 hosts, the first of capacity 2;
 * in blocks (the default) or in the order given */
#define MATRIX_TEXT(order) \
	"name: spread\n" \
	"factors:\n" \
	"  kconfig:\n" \
	"    A: [n, y]\n" \
	"    B: [n, y]\n" \
	"    C: [n, y]\n" \
	"workload:\n" \
	"  fio: { rw: randread }\n" \
	"  metric: read_iops\n" \
	"repeat: { boots: 6, runs_per_boot: 2" order " }\n" \
	"compare: { threshold_pct: 5, alpha: 0.05 }\n" \
	"hosts:\n" \
	"  - { uri: \"" H1 "\", capacity: 2 }\n" \
	"  - " H2 "\n" \
	"  - " H3 "\n"
static const char matrix_text[] = MATRIX_TEXT("");

#define MODEL_HEAD                                                     \
	"metric: read_iops\n"                                          \
	"base: 1000\n"                                                 \
	"noise: { boot_cv: 0.03, run_cv: 0.01 }\n"                     \
	"effects:\n"                                                   \
	"  - { when: { A: y }, factor: 0.5 }\n"                        \
	"  - { when: { B: y }, factor: 0.9 }\n"                        \
	"  - { when: { A: y, C: y }, factor: 1.2 }\n"                  \
	"seed: 11\n"

struct rig {
	struct kb_model *model;
	struct kb_executor *builder;
	struct kb_executor *ex[NHOSTS];
	struct kb_executor *slots[NHOSTS][2];
	struct kb_pipeline_host hosts[NHOSTS];
};

struct fixture {
	char dir[64], db[128];
	struct kb_store *s;
	struct kb_matrix *m;
	struct kb_plan *p;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;

	setenv("KBISECT_MODEL_TIME_SCALE", "0", 1);
	kb_test_scratch_db("phosts", f->dir, sizeof(f->dir), f->db,
			   sizeof(f->db));
	if (kb_store_open(f->db, NULL, &f->s, &err) ||
	    kb_matrix_parse_buffer(matrix_text, strlen(matrix_text),
				   "spread.yaml", &f->m, &err) ||
	    kb_plan_new(f->m, &f->p, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	kb_store_close(f->s);
	kb_test_rm_rf(f->dir);
	free(f);
	return 0;
}

/* The model MODEL_HEAD + @hosts (a "hosts:" section or ""), and an
 * executor per matrix host, as `kbisect run` makes them. */
static void rig_up(struct rig *r, const struct kb_matrix *m,
		   const char *hosts, double scale)
{
	struct kb_err err = KB_ERR_INIT;
	char text[2048];
	size_t h, k;

	memset(r, 0, sizeof(*r));
	snprintf(text, sizeof(text), "%s%s", MODEL_HEAD, hosts);
	if (kb_model_parse_buffer(text, strlen(text), "m.yaml", &r->model,
				  &err))
		fail_msg("model: %s", err.msg);
	assert_int_equal(kb_model_executor_new(r->model, scale, &r->builder),
			 0);
	for (h = 0; h < NHOSTS; h++) {
		const struct kb_host *host = kb_matrix_host(m, h);

		assert_int_equal(kb_model_executor_on(r->model, scale,
						      host->uri, &r->ex[h]),
				 0);
		for (k = 0; k < host->capacity; k++)
			r->slots[h][k] = r->ex[h];
		r->hosts[h].uri = host->uri;
		r->hosts[h].nslots = host->capacity;
		r->hosts[h].slots = r->slots[h];
	}
}

static void rig_down(struct rig *r)
{
	size_t h;

	for (h = 0; h < NHOSTS; h++)
		kb_executor_free(r->ex[h]);
	kb_executor_free(r->builder);
	kb_model_free(r->model);
}

/* What the progress callback saw. */
struct seen {
	unsigned drained, host_failures, boots_done;
	unsigned builds_running, boots_running;
	int overlapped;        /* a boot started while a build ran, or back */
	char drained_msg[512];
	double failed_at[8];   /* when the first host failures were told */
};

static void on_progress(const struct kb_progress *ev, void *arg)
{
	struct seen *s = arg;

	switch (ev->kind) {
	case KB_PROGRESS_BUILD_START:
		s->overlapped |= s->boots_running > 0;
		s->builds_running++;
		break;
	case KB_PROGRESS_BUILD_DONE:
		s->builds_running--;
		break;
	case KB_PROGRESS_BOOT_START:
		s->overlapped |= s->builds_running > 0;
		s->boots_running++;
		assert_non_null(ev->host);
		break;
	case KB_PROGRESS_BOOT_DONE:
		s->boots_running--;
		s->boots_done++;
		break;
	case KB_PROGRESS_HOST_FAILURE:
		s->boots_running--;
		if (s->host_failures < 8)
			s->failed_at[s->host_failures] = ev->elapsed_s;
		s->host_failures++;
		assert_string_equal(ev->status, "libvirt-error");
		break;
	case KB_PROGRESS_HOST_DRAINED:
		s->drained++;
		snprintf(s->drained_msg, sizeof(s->drained_msg), "%s",
			 ev->reason);
		break;
	default:
		break;
	}
}

/* kb_pipeline_opts.retry_s of go()'s runs: 0, no back-off, unless a
 * test times it */
static double go_retry_s;

static int go(struct fixture *f, struct rig *r, int overlap, int64_t *exp,
	      struct seen *seen, double *overlap_s, struct kb_err *err)
{
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;

	o.retry_s = go_retry_s;
	o.model_text = kb_model_text(r->model);
	o.hosts = r->hosts;
	o.nhosts = NHOSTS;
	o.overlap = overlap;
	o.progress = on_progress;
	o.arg = seen;
	o.overlap_s = overlap_s;
	if (*exp)
		return kb_pipeline_resume(f->s, *exp, f->p, r->builder, &o,
					  err);
	return kb_pipeline_run(f->s, f->p, r->builder, &o, exp, err);
}

/* The boots of @exp per variant (by idx) and host index, and the hosts'
 * boots that did not end ok or had no host of the matrix. */
static void count(struct fixture *f, int64_t exp, unsigned c[8][NHOSTS],
		  unsigned *not_ok, unsigned *rows)
{
	struct kb_store_boot_host *b = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i, h;

	memset(c, 0, sizeof(unsigned) * 8 * NHOSTS);
	*not_ok = 0;
	if (kb_store_boot_hosts(f->s, exp, &b, &n, &err))
		fail_msg("%s", err.msg);
	*rows = (unsigned)n;
	for (i = 0; i < n; i++) {
		*not_ok += !b[i].ok;
		for (h = 0; h < NHOSTS; h++)
			if (b[i].host &&
			    !strcmp(b[i].host, kb_matrix_host(f->m, h)->uri))
				break;
		assert_true(h < NHOSTS);
		assert_true(b[i].variant_idx < 8);
		c[b[i].variant_idx][h]++;
	}
	kb_store_boot_hosts_free(b, n);
}

static void test_pipeline_hosts__every_variant_on_every_host(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct seen seen;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows, tot[NHOSTS] = { 0 };
	int64_t exp = 0;
	size_t v, h;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(not_ok, 0);
	for (v = 0; v < 8; v++)
		for (h = 0; h < NHOSTS; h++) {
			/* 6 boots over 3 hosts: 2 on each, whatever the
			 * capacities */
			assert_int_equal(c[v][h], 2);
			tot[h] += c[v][h];
		}
	assert_int_equal(tot[0], 16);
	assert_int_equal(seen.boots_done, 48);
	assert_int_equal(seen.drained, 0);
	rig_down(&r);
}

static void test_pipeline_hosts__same_matrix_spreads_alike(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_boot_host *a = NULL, *b = NULL;
	struct seen seen;
	struct rig r;
	int64_t e1 = 0, e2 = 0;
	size_t na = 0, nb = 0, i;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 0, &e1, &seen, NULL, &err) ||
	    go(f, &r, 1, &e2, &seen, NULL, &err) ||
	    kb_store_boot_hosts(f->s, e1, &a, &na, &err) ||
	    kb_store_boot_hosts(f->s, e2, &b, &nb, &err))
		fail_msg("%s", err.msg);
	/* the spread is seeded by the matrix: reproducible, with or
	 * without overlap */
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_int_equal(a[i].variant_idx, b[i].variant_idx);
		assert_int_equal(a[i].boot_no, b[i].boot_no);
		assert_string_equal(a[i].host, b[i].host);
	}
	kb_store_boot_hosts_free(a, na);
	kb_store_boot_hosts_free(b, nb);
	rig_down(&r);
}

static void test_pipeline_hosts__lost_host_is_drained_and_not_counted(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_store_variant *vs = NULL;
	struct seen seen;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows;
	size_t nhc = 0, nv = 0, i, v;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m,
	       "hosts:\n"
	       "  \"" H3 "\": { fail_after: 2 }\n",
	       0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	/* every boot stored, ok: the host's failures are none of them */
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(not_ok, 0);
	/* c ran its 2 boots, then failed 3 in a row and was drained */
	for (v = 0, i = 0; v < 8; v++)
		i += c[v][2];
	assert_int_equal(i, 2);
	assert_int_equal(seen.host_failures, 3);
	assert_int_equal(seen.drained, 1);
	assert_msg_contains(seen.drained_msg,
			    "host " H3 " drained after 3 infrastructure failures: model: host " H3 " is lost after 2 boots");
	/* its boots went to a and b, each variant's spread over them */
	for (v = 0; v < 8; v++) {
		assert_int_equal(c[v][0] + c[v][1] + c[v][2], 6);
		assert_true(abs((int)c[v][0] - (int)c[v][1]) <= 1);
	}
	/* the store says so, and the variants show no failure */
	if (kb_store_host_counts(f->s, exp, &hc, &nhc, &err) ||
	    kb_store_variants(f->s, exp, "read_iops", &vs, &nv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(nhc, 3);
	assert_string_equal(hc[2].host, H3);
	assert_int_equal(hc[2].boots, 2);
	assert_int_equal(hc[2].failures, 3);
	assert_true(hc[2].drained);
	assert_false(hc[0].drained);
	assert_int_equal(hc[0].failures, 0);
	for (v = 0; v < nv; v++) {
		assert_int_equal(vs[v].nboots, 6);
		assert_int_equal(vs[v].nfailed, 0);
		kb_store_variant_release(&vs[v]);
	}
	free(vs);
	kb_store_host_counts_free(hc, nhc);
	rig_down(&r);
}

/* A host that failed a boot backs off before the next, doubling: it is
 * drained after 3 failures in a row, but not in the same second. */
static void test_pipeline_hosts__a_failed_host_backs_off_before_its_next_boot(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct seen seen;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m,
	       "hosts:\n"
	       "  \"" H3 "\": { fail_after: 2 }\n",
	       0);
	go_retry_s = 0.1;
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	go_retry_s = 0;
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(not_ok, 0);
	assert_int_equal(seen.host_failures, 3);
	assert_int_equal(seen.drained, 1);
	/* 0.1 s after the first failure, 0.2 s after the second */
	assert_true(seen.failed_at[1] - seen.failed_at[0] >= 0.1);
	assert_true(seen.failed_at[2] - seen.failed_at[1] >= 0.2);
	rig_down(&r);
}

/* What this machine makes for a boot (KB_ELOCAL: a scratch disk that
 * cannot be sized, a guest image that does not build) is no failure of
 * a host: the run stops with it, and no host is blamed or drained. */
static int local_fail_build(void *self, const struct kb_variant *v,
			    struct kb_build_result *out, struct kb_err *err)
{
	(void)self;
	(void)v;
	(void)out;
	return kb_err_set(err, KB_EFAIL, "no builds here");
}

static int local_fail_boot(void *self, const struct kb_variant *v,
			   const struct kb_build_result *build,
			   unsigned boot_no, unsigned runs,
			   struct kb_boot_result *out, struct kb_err *err)
{
	(void)self;
	(void)v;
	(void)build;
	(void)boot_no;
	(void)runs;
	memset(out, 0, sizeof(*out));
	return kb_err_set(err, KB_ELOCAL,
			  "cannot size scratch disk '/var/tmp/b/scratch.raw' to 989560464998400 bytes: File too large");
}

static const struct kb_executor_ops local_fail_ops = {
	.name = "libvirt",
	.build = local_fail_build,
	.boot = local_fail_boot,
	.free = NULL,
};

static void test_pipeline_hosts__this_machines_failure_blames_no_host(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_store_info info;
	struct kb_executor *local;
	struct seen seen;
	struct rig r;
	size_t nhc = 0, h, k;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	local = kb_executor_new(&local_fail_ops, NULL);
	for (k = 0; k < r.hosts[2].nslots; k++)
		r.slots[2][k] = local;
	assert_int_equal(go(f, &r, 1, &exp, &seen, NULL, &err), KB_ELOCAL);
	assert_msg_contains(err.msg, "cannot size scratch disk");
	assert_int_equal(seen.host_failures, 0);
	assert_int_equal(seen.drained, 0);
	if (kb_store_host_counts(f->s, exp, &hc, &nhc, &err))
		fail_msg("%s", err.msg);
	for (h = 0; h < nhc; h++) {
		assert_int_equal(hc[h].failures, 0);
		assert_false(hc[h].drained);
	}
	kb_store_host_counts_free(hc, nhc);
	assert_int_equal(kb_store_experiment_get(f->s, exp, &info, &err), 0);
	assert_string_equal(info.state, "failed");
	assert_msg_contains(info.error, "cannot size scratch disk");
	kb_store_info_release(&info);
	kb_executor_free(local);
	rig_down(&r);
}

static void test_pipeline_hosts__every_host_drained_stops_and_resumes(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_info info;
	struct seen seen;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows, first;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m,
	       "hosts:\n"
	       "  \"" H1 "\": { fail_after: 5 }\n"
	       "  \"" H2 "\": { fail_after: 3 }\n"
	       "  \"" H3 "\": { fail_after: 4 }\n",
	       0);
	assert_int_equal(go(f, &r, 1, &exp, &seen, NULL, &err), KB_EFAIL);
	assert_true(exp > 0);
	assert_msg_contains(err.msg, "every host is drained");
	assert_int_equal(seen.drained, 3);
	count(f, exp, c, &not_ok, &rows);
	/* what the hosts ran before they were lost is stored, ok */
	assert_int_equal(rows, 5 + 3 + 4);
	assert_int_equal(not_ok, 0);
	first = rows;
	assert_int_equal(kb_store_experiment_get(f->s, exp, &info, &err), 0);
	assert_string_equal(info.state, "failed");
	assert_msg_contains(info.error, "every host is drained");
	kb_store_info_release(&info);
	rig_down(&r);

	/* the hosts are back: resume runs the rest, none twice */
	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	kb_err_clear(&err);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen.boots_done, 48 - first);
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(not_ok, 0);
	for (size_t v = 0; v < 8; v++) {
		unsigned last;

		/* boot numbers 1..6, each once */
		assert_int_equal(kb_store_last_boot(f->s, exp, (unsigned)v,
						    &last, &err),
				 0);
		assert_int_equal(last, 6);
		assert_int_equal(c[v][0] + c[v][1] + c[v][2], 6);
	}
	assert_int_equal(kb_store_experiment_get(f->s, exp, &info, &err), 0);
	assert_string_equal(info.state, "done");
	assert_int_equal(info.nsamples, 96);
	kb_store_info_release(&info);
	rig_down(&r);
}

/* An executor on a host that forwards to the model's, and at the Nth
 * boot of all (counted over every host) stops the run as a signal would,
 * the guest cut short as a real one is (a libvirt error). */
static atomic_uint boots_begun;
static unsigned stop_at;
static volatile sig_atomic_t stop_flag;

static int s_build(void *self, const struct kb_variant *v,
		   struct kb_build_result *out, struct kb_err *err)
{
	return kb_executor_build(self, v, out, err);
}

static int s_boot(void *self, const struct kb_variant *v,
		  const struct kb_build_result *build, unsigned boot_no,
		  unsigned runs, struct kb_boot_result *out,
		  struct kb_err *err)
{
	if (atomic_fetch_add(&boots_begun, 1) + 1 == stop_at) {
		stop_flag = SIGTERM;
		memset(out, 0, sizeof(*out));
		out->status = KB_BOOT_LIBVIRT_ERROR;
		out->reason = kb_strdup("guest destroyed");
		return 0;
	}
	return kb_executor_boot(self, v, build, boot_no, runs, out, err);
}

static const struct kb_executor_ops stopping_ops = {
	.name = "model",
	.build = s_build,
	.boot = s_boot,
	.free = NULL,
};

static void test_pipeline_hosts__stop_interrupts_and_resume_loses_nothing(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_executor *wrap[NHOSTS];
	struct kb_executor *slots[NHOSTS][2];
	struct kb_pipeline_host hosts[NHOSTS];
	struct kb_store_info info;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows, first, begun;
	size_t h, k, nhc = 0;
	int64_t exp = 0;

	rig_up(&r, f->m, "", 0);
	for (h = 0; h < NHOSTS; h++) {
		wrap[h] = kb_executor_new(&stopping_ops, r.ex[h]);
		hosts[h] = r.hosts[h];
		for (k = 0; k < hosts[h].nslots; k++)
			slots[h][k] = wrap[h];
		hosts[h].slots = slots[h];
	}
	atomic_store(&boots_begun, 0);
	stop_at = 10;
	stop_flag = 0;
	o.model_text = kb_model_text(r.model);
	o.hosts = hosts;
	o.nhosts = NHOSTS;
	o.overlap = 1;
	o.stop = &stop_flag;
	assert_int_equal(kb_pipeline_run(f->s, f->p, r.builder, &o, &exp,
					 &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "interrupted by SIGTERM");
	assert_int_equal(kb_store_experiment_get(f->s, exp, &info, &err), 0);
	assert_string_equal(info.state, "interrupted");
	kb_store_info_release(&info);
	/* what ended ok is stored; the guest the stop cut short is neither
	 * a boot nor a failure of its host */
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(not_ok, 0);
	assert_true(rows >= 9 && rows < 48);
	first = rows;
	/* every boot begun was stored, but the one cut short (boots begun
	 * on other slots before the stop was seen end ok) */
	begun = atomic_load(&boots_begun);
	assert_int_equal(begun, first + 1);
	assert_int_equal(kb_store_host_counts(f->s, exp, &hc, &nhc, &err), 0);
	for (h = 0; h < nhc; h++)
		assert_int_equal(hc[h].failures, 0);
	kb_store_host_counts_free(hc, nhc);

	stop_flag = 0;
	stop_at = 0;
	kb_err_clear(&err);
	assert_int_equal(kb_pipeline_resume(f->s, exp, f->p, r.builder, &o,
					    &err),
			 0);
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(not_ok, 0);
	assert_true(atomic_load(&boots_begun) == begun + (48 - first));
	for (size_t v = 0; v < 8; v++)
		for (h = 0; h < NHOSTS; h++)
			assert_int_equal(c[v][h], 2);
	for (h = 0; h < NHOSTS; h++)
		kb_executor_free(wrap[h]);
	rig_down(&r);
}

static void test_pipeline_hosts__a_host_down_from_the_start(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	size_t nhc = 0;
	struct seen seen;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows;
	int64_t exp = 0;
	size_t v;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	r.hosts[1].down = "cannot connect to " H2;
	r.hosts[1].nslots = 0;
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(seen.drained, 1);
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	for (v = 0; v < 8; v++) {
		assert_int_equal(c[v][1], 0);
		assert_int_equal(c[v][0], 3);
		assert_int_equal(c[v][2], 3);
	}
	/* recorded with the experiment, for kbisect hosts */
	assert_int_equal(kb_store_host_counts(f->s, exp, &hc, &nhc, &err), 0);
	assert_int_equal(nhc, 3);
	assert_string_equal(hc[1].host, H2);
	assert_true(hc[1].drained);
	assert_string_equal(hc[1].last_failure, "cannot connect to " H2);
	kb_store_host_counts_free(hc, nhc);
	rig_down(&r);
}

/* The fixture's matrix in the sequential order, whose builds run between
 * boots (in blocks every kernel is built before the first boot). */
static void sequential(struct fixture *f)
{
	static const char text[] = MATRIX_TEXT(", order: sequential");
	struct kb_err err = KB_ERR_INIT;

	kb_plan_free(f->p);
	kb_matrix_free(f->m);
	f->p = NULL;
	f->m = NULL;
	if (kb_matrix_parse_buffer(text, strlen(text), "spread.yaml", &f->m,
				   &err) ||
	    kb_plan_new(f->m, &f->p, &err))
		fail_msg("%s", err.msg);
}

static void test_pipeline_hosts__builds_overlap_boots_when_asked(
	void **state)
{
	struct fixture *f = *state;

	sequential(f);
	struct kb_err err = KB_ERR_INIT;
	struct seen seen;
	struct rig r;
	double with = -1, without = -1, stored;
	int64_t e1 = 0, e2 = 0;
	char hosts[256];

	/* 20 ms builds, 10 ms boots */
	snprintf(hosts, sizeof(hosts),
		 "time: { build_s: 2, boot_s: 1 }\n");
	rig_up(&r, f->m, hosts, 0.01);
	memset(&seen, 0, sizeof(seen));
	if (go(f, &r, 1, &e2, &seen, &with, &err))
		fail_msg("%s", err.msg);
	assert_true(seen.overlapped);
	assert_true(with > 0);
	/* and it is stored with the experiment */
	assert_int_equal(kb_store_overlap_get(f->s, e2, &stored, &err), 0);
	assert_true(fabs(stored - with) < 1e-9);

	/* again, on a database that has none of the kernels */
	kb_store_close(f->s);
	f->s = NULL;
	snprintf(f->db, sizeof(f->db), "%s/again.db", f->dir);
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	memset(&seen, 0, sizeof(seen));
	if (go(f, &r, 0, &e1, &seen, &without, &err))
		fail_msg("%s", err.msg);
	/* never a build and a boot at once */
	assert_false(seen.overlapped);
	assert_true(without == 0);
	assert_int_equal(kb_store_overlap_get(f->s, e1, &stored, &err), 0);
	assert_true(stored == 0);
	rig_down(&r);
}

/* Effects of experiment @exp: estimates (log), significance and the
 * hosts, into the caller's arrays (by name order of @names). */
struct fx {
	struct kb_effect *e;
	size_t n;
	double cv, df;
	struct kb_host_effect *h;
	size_t nh;
	double pooled_var; /* the variance without host blocks */
	struct kb_analysis *a;
};

static void effects_of(struct fixture *f, int64_t exp, struct fx *x)
{
	struct kb_err err = KB_ERR_INIT;
	double hdf, df;

	memset(x, 0, sizeof(*x));
	if (kb_analysis_open(f->s, exp, NULL, &x->a, &err) ||
	    kb_effects_estimate(x->a, &x->e, &x->n, &x->cv, &x->df, &err) ||
	    kb_effects_hosts(x->a, &x->h, &x->nh, &hdf, &err))
		fail_msg("%s", err.msg);
	kb_analysis_log_pooled(x->a, &x->pooled_var, &df);
}

static void fx_free(struct fx *x)
{
	free(x->e);
	free(x->h);
	kb_analysis_free(x->a);
}

static const struct kb_effect *named(const struct fx *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].name, name))
			return &x->e[i];
	fail_msg("no effect %s", name);
	return NULL;
}

static void test_pipeline_hosts__host_speeds_leave_the_effects_alone(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct seen seen;
	struct rig r;
	struct fx same, speeds;
	struct kb_comparison ca, cb;
	int64_t e1 = 0, e2 = 0;
	size_t i;

	/* the same experiment on 3 hosts of one speed, and on 3 hosts
	 * of speeds 1, 0.8 and 0.6 */
	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 1, &e1, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	rig_down(&r);
	rig_up(&r, f->m,
	       "hosts:\n"
	       "  \"" H1 "\": 1.0\n"
	       "  \"" H2 "\": 0.8\n"
	       "  \"" H3 "\": { factor: 0.6 }\n",
	       0);
	if (go(f, &r, 1, &e2, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	rig_down(&r);
	effects_of(f, e1, &same);
	effects_of(f, e2, &speeds);

	/* the host differences are found, apart from the variants' */
	assert_int_equal(speeds.nh, 3);
	assert_string_equal(speeds.h[0].host, H1);
	assert_string_equal(speeds.h[1].host, H2);
	assert_string_equal(speeds.h[2].host, H3);
	assert_true(speeds.h[1].log_ci_low < log(0.8) &&
		    speeds.h[1].log_ci_high > log(0.8));
	assert_true(speeds.h[2].log_ci_low < log(0.6) &&
		    speeds.h[2].log_ci_high > log(0.6));
	assert_true(speeds.h[2].p < 0.001);
	/* on hosts of one speed, no difference is significant */
	assert_int_equal(same.nh, 3);
	assert_true(same.h[1].p > 0.001 && same.h[2].p > 0.001);

	/* every effect, its interval, its p and its verdict: unchanged */
	assert_int_equal(same.n, speeds.n);
	for (i = 0; i < same.n; i++) {
		const struct kb_effect *a = &same.e[i];
		const struct kb_effect *b = named(&speeds, a->name);

		assert_true(fabs(a->log_effect - b->log_effect) < 1e-9);
		assert_true(fabs(a->log_ci_low - b->log_ci_low) < 1e-9);
		assert_true(fabs(a->p - b->p) <= 1e-9 * (a->p + 1e-300) ||
			    fabs(a->p - b->p) < 1e-12);
		assert_int_equal(a->significant, b->significant);
	}
	assert_true(fabs(same.cv - speeds.cv) < 1e-9);
	assert_true(named(&speeds, "A")->significant);
	assert_true(fabs(named(&speeds, "A")->log_effect - log(0.5 * 1.1)) <
		    0.05);
	assert_true(named(&speeds, "A:C")->significant);
	assert_false(named(&speeds, "B:C")->significant);
	/* without the block the hosts would be noise: the plain pooled
	 * variance is many times the boots' */
	assert_true(speeds.pooled_var > 10 * same.pooled_var);

	/* and comparing variants, the big change stays a regression */
	for (i = 0; i < kb_plan_nvariants(f->p); i++)
		if (!strcmp(kb_plan_variant(f->p, i)->label, "A=y B=n C=n"))
			break;
	assert_true(i < kb_plan_nvariants(f->p));
	if (kb_analysis_compare(same.a, 0, (unsigned)i, 0, &ca, &err) ||
	    kb_analysis_compare(speeds.a, 0, (unsigned)i, 0, &cb, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(ca.verdict, KB_VERDICT_REGRESSION);
	assert_int_equal(cb.verdict, KB_VERDICT_REGRESSION);
	fx_free(&same);
	fx_free(&speeds);
}


/* ---- boots added after the run: one at a time over the hosts ---------- */

/* The boots of variant @v of @exp on each host (index), and how many are
 * not ok. */
static void count_variant(struct fixture *f, int64_t exp, unsigned v,
			  unsigned on[NHOSTS], unsigned *not_ok)
{
	unsigned c[8][NHOSTS], rows;

	count(f, exp, c, not_ok, &rows);
	memcpy(on, c[v], sizeof(c[v]));
}

/* Every variant's boots over the live hosts @live (a mask) as even as
 * they can be, and none on the others. */
static void assert_balanced(struct fixture *f, int64_t exp, unsigned live)
{
	unsigned c[8][NHOSTS], not_ok, rows, lo, hi;
	size_t v, h;

	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(not_ok, 0);
	for (v = 0; v < 8; v++) {
		lo = ~0u;
		hi = 0;
		for (h = 0; h < NHOSTS; h++) {
			if (!(live & (1u << h))) {
				assert_int_equal(c[v][h], 0);
				continue;
			}
			lo = c[v][h] < lo ? c[v][h] : lo;
			hi = c[v][h] > hi ? c[v][h] : hi;
		}
		if (hi - lo > 1)
			fail_msg("variant %zu: %u, %u and %u boots on the hosts",
				 v, c[v][0], c[v][1], c[v][2]);
	}
}

static void test_pipeline_hosts__added_boots_go_over_every_host(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_analysis *a = NULL;
	struct kb_why w;
	struct seen seen;
	struct rig r;
	unsigned on[NHOSTS], not_ok;
	int64_t exp = 0;
	size_t h, worst;

	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	rig_down(&r);
	/* the model experiment boots again on its stored model, over its
	 * hosts: 6 more boots of #0, 2 on each */
	if (kb_analysis_open(f->s, exp, NULL, &a, &err) ||
	    kb_analysis_add_boots(a, 0, 6, &err))
		fail_msg("%s", err.msg);
	count_variant(f, exp, 0, on, &not_ok);
	assert_int_equal(not_ok, 0);
	for (h = 0; h < NHOSTS; h++)
		assert_int_equal(on[h], 4);
	/* why confirms the worst on 6 fresh boots, spread as evenly */
	worst = (size_t)kb_analysis_worst(a);
	count_variant(f, exp, (unsigned)worst, on, &not_ok);
	if (kb_why_explain(a, 0, -1, &w, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.bad, worst);
	assert_int_equal(w.set_aside, on[0] + on[1] + on[2]);
	{
		unsigned after[NHOSTS];

		count_variant(f, exp, (unsigned)worst, after, &not_ok);
		assert_true(after[0] + after[1] + after[2] >=
			    on[0] + on[1] + on[2] + 6);
		for (h = 0; h < NHOSTS; h++)
			assert_true(after[h] >= on[h] + 1);
	}
	assert_balanced(f, exp, 7);
	kb_analysis_free(a);
}

/* 2 variants of 3 boots, up to 9, on the 3 hosts; 10% boot noise and no
 * effect: no look can decide before max_boots */
static const char noisy_matrix[] =
	"name: noisy\n"
	"factors: { kconfig: { A: [n, y] } }\n"
	"workload:\n"
	"  fio: { rw: randread }\n"
	"  metric: read_iops\n"
	"repeat: { boots: 3, max_boots: 9 }\n"
	"hosts: [\"" H1 "\", \"" H2 "\", \"" H3 "\"]\n";
static const char noisy_model[] =
	"metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.1 }\nseed: 5\n";

static void test_pipeline_hosts__added_rounds_go_over_every_host(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_opts o = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	struct kb_model *model = NULL;
	struct kb_executor *builder = NULL, *ex[NHOSTS];
	struct kb_pipeline_host hosts[NHOSTS];
	struct kb_analysis *a = NULL;
	struct kb_store_variant *vs = NULL;
	unsigned on[NHOSTS], not_ok, last, both[2] = { 0, 1 }, r, round;
	int64_t exp = 0;
	size_t h, v, nv = 0, i, j;

	if (kb_matrix_parse_buffer(noisy_matrix, strlen(noisy_matrix),
				   "noisy.yaml", &m, &err) ||
	    kb_plan_new(m, &p, &err) ||
	    kb_model_parse_buffer(noisy_model, strlen(noisy_model),
				  "m.yaml", &model, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_model_executor_new(model, 0, &builder), 0);
	memset(hosts, 0, sizeof(hosts));
	for (h = 0; h < NHOSTS; h++) {
		assert_int_equal(kb_model_executor_on(model, 0,
						      kb_matrix_host(m, h)->uri,
						      &ex[h]),
				 0);
		hosts[h].uri = kb_matrix_host(m, h)->uri;
		hosts[h].nslots = 1;
		hosts[h].slots = &ex[h];
	}
	o.model_text = kb_model_text(model);
	o.hosts = hosts;
	o.nhosts = NHOSTS;
	if (kb_pipeline_run(f->s, p, builder, &o, &exp, &err) ||
	    kb_analysis_open(f->s, exp, NULL, &a, &err))
		fail_msg("%s", err.msg);
	/* six rounds of both added (as compare --adaptive and why add
	 * them): each round on one host, so that its two boots pair, and
	 * the rounds over every host, each variant's 6 added boots 2 on
	 * each */
	for (r = 0; r < 6; r++)
		if (kb_analysis_add_block(a, both, 2, &round, &err))
			fail_msg("%s", err.msg);
	assert_int_equal(kb_analysis_boots_added(a), 12);
	assert_int_equal(kb_store_variants(f->s, exp, "read_iops", &vs, &nv,
					   &err),
			 0);
	for (i = 0; i < vs[0].nboots; i++)
		for (j = 0; j < vs[1].nboots; j++)
			if (vs[0].boot_rounds[i] > 3 &&
			    vs[0].boot_rounds[i] == vs[1].boot_rounds[j])
				assert_string_equal(vs[0].boot_hosts[i],
						    vs[1].boot_hosts[j]);
	for (i = 0; i < nv; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);
	for (v = 0; v < 2; v++) {
		assert_int_equal(kb_store_last_boot(f->s, exp, (unsigned)v,
						    &last, &err),
				 0);
		assert_int_equal(last, 9);
		count_variant(f, exp, (unsigned)v, on, &not_ok);
		assert_int_equal(not_ok, 0);
		for (h = 0; h < NHOSTS; h++)
			assert_int_equal(on[h], 3);
	}
	kb_analysis_free(a);
	for (h = 0; h < NHOSTS; h++)
		kb_executor_free(ex[h]);
	kb_executor_free(builder);
	kb_model_free(model);
	kb_plan_free(p);
	kb_matrix_free(m);
}


static void test_pipeline_hosts__lost_host_in_added_boots_is_drained(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_store_variant *vs = NULL;
	struct kb_analysis *a = NULL;
	struct seen seen;
	struct rig r;
	unsigned on[NHOSTS], not_ok, last;
	size_t nhc = 0, nv = 0, v;
	int64_t exp = 0;

	/* c is lost from the start: run drains it, its boots on a and b */
	memset(&seen, 0, sizeof(seen));
	rig_up(&r, f->m, "hosts:\n  \"" H3 "\": { fail_after: 0 }\n", 0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	rig_down(&r);
	assert_int_equal(seen.drained, 1);
	/* the stored model is lost on c again: the boots added go to c
	 * first (it has none of #0's), fail 3 times there, and c is
	 * drained; they run on a and b, and none of c's failures is a boot */
	if (kb_analysis_open(f->s, exp, NULL, &a, &err) ||
	    kb_analysis_add_boots(a, 0, 4, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_store_last_boot(f->s, exp, 0, &last, &err), 0);
	assert_int_equal(last, 10);
	count_variant(f, exp, 0, on, &not_ok);
	assert_int_equal(not_ok, 0);
	assert_int_equal(on[0], 5);
	assert_int_equal(on[1], 5);
	assert_int_equal(on[2], 0);
	if (kb_store_host_counts(f->s, exp, &hc, &nhc, &err) ||
	    kb_store_variants(f->s, exp, "read_iops", &vs, &nv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(nhc, 3);
	assert_string_equal(hc[2].host, H3);
	assert_int_equal(hc[2].boots, 0);
	assert_int_equal(hc[2].failures, 3 + 3);
	assert_true(hc[2].drained);
	assert_msg_contains(hc[2].last_failure, "is lost after 0 boots");
	assert_int_equal(hc[0].failures, 0);
	assert_int_equal(vs[0].nboots, 10);
	for (v = 0; v < nv; v++) {
		assert_int_equal(vs[v].nfailed, 0);
		kb_store_variant_release(&vs[v]);
	}
	free(vs);
	kb_store_host_counts_free(hc, nhc);
	kb_analysis_free(a);
}

/* What a hosts executor told. */
struct told {
	unsigned failures, drained;
	char last[512];
};

static void on_host(const struct kb_progress *ev, void *arg)
{
	struct told *t = arg;

	assert_non_null(ev->host);
	if (ev->kind == KB_PROGRESS_HOST_FAILURE) {
		assert_non_null(ev->variant);
		assert_string_equal(ev->status, "libvirt-error");
		t->failures++;
	} else if (ev->kind == KB_PROGRESS_HOST_DRAINED) {
		t->drained++;
		snprintf(t->last, sizeof(t->last), "%s", ev->reason);
	} else {
		fail_msg("told %d", (int)ev->kind);
	}
}

static void test_pipeline_hosts__every_host_drained_adds_no_boot(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_hosts_opts ho = KB_PIPELINE_HOSTS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_executor *hx = NULL;
	struct seen seen;
	struct told told;
	struct rig r;
	unsigned c[8][NHOSTS], not_ok, rows, last;
	size_t nhc = 0, h;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	memset(&told, 0, sizeof(told));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	rig_down(&r);
	/* the hosts are lost since: every one is tried 3 times, drained,
	 * and the boot is an error; nothing of it is stored as a boot */
	rig_up(&r, f->m,
	       "hosts:\n"
	       "  \"" H1 "\": { fail_after: 0 }\n"
	       "  \"" H2 "\": { fail_after: 0 }\n"
	       "  \"" H3 "\": { fail_after: 0 }\n",
	       0);
	ho.hosts = r.hosts;
	ho.nhosts = NHOSTS;
	ho.seed = kb_spread_seed(kb_matrix_text(f->m));
	ho.store = f->s;
	ho.experiment = &exp;
	ho.progress = on_host;
	ho.arg = &told;
	assert_int_equal(kb_pipeline_hosts_executor(r.builder, &ho, &hx, &err),
			 0);
	assert_string_equal(kb_executor_name(hx), "model");
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, f->p, hx, 0, 2, NULL,
					       &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "every host is drained (the last: host ");
	assert_msg_contains(err.msg, " drained after 3 infrastructure failures: model: host ");
	assert_int_equal(told.failures, 9);
	assert_int_equal(told.drained, 3);
	count(f, exp, c, &not_ok, &rows);
	assert_int_equal(rows, 48);
	assert_int_equal(kb_store_last_boot(f->s, exp, 0, &last, &err), 0);
	assert_int_equal(last, 6);
	assert_int_equal(kb_store_host_counts(f->s, exp, &hc, &nhc, &err), 0);
	assert_int_equal(nhc, 3);
	for (h = 0; h < nhc; h++) {
		assert_int_equal(hc[h].boots, 16);
		assert_int_equal(hc[h].failures, 3);
		assert_true(hc[h].drained);
	}
	kb_store_host_counts_free(hc, nhc);
	/* and so does every later boot, at once */
	kb_err_clear(&err);
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, f->p, hx, 1, 1, NULL,
					       &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "every host is drained");
	assert_int_equal(told.failures, 9);
	kb_executor_free(hx);
	rig_down(&r);
}

/* A guest cut short by a stop is the caller's (not stored, the boot
 * interrupted), and no failure of its host. */
static void test_pipeline_hosts__stop_in_added_boots_is_no_host_failure(
	void **state)
{
	struct fixture *f = *state;
	struct kb_pipeline_hosts_opts ho = KB_PIPELINE_HOSTS_OPTS_INIT;
	struct kb_pipeline_opts po = KB_PIPELINE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_host_count *hc = NULL;
	struct kb_executor *wrap[NHOSTS], *hx = NULL;
	struct kb_pipeline_host hosts[NHOSTS];
	struct seen seen;
	struct told told;
	struct rig r;
	unsigned last;
	size_t h, nhc = 0;
	int64_t exp = 0;

	memset(&seen, 0, sizeof(seen));
	memset(&told, 0, sizeof(told));
	rig_up(&r, f->m, "", 0);
	if (go(f, &r, 1, &exp, &seen, NULL, &err))
		fail_msg("%s", err.msg);
	for (h = 0; h < NHOSTS; h++) {
		wrap[h] = kb_executor_new(&stopping_ops, r.ex[h]);
		hosts[h] = r.hosts[h];
		hosts[h].slots = &wrap[h];
	}
	atomic_store(&boots_begun, 0);
	stop_at = 2;
	stop_flag = 0;
	ho.hosts = hosts;
	ho.nhosts = NHOSTS;
	ho.store = f->s;
	ho.experiment = &exp;
	ho.progress = on_host;
	ho.arg = &told;
	ho.stop = &stop_flag;
	po.stop = &stop_flag;
	assert_int_equal(kb_pipeline_hosts_executor(r.builder, &ho, &hx, &err),
			 0);
	assert_int_equal(kb_pipeline_add_boots(f->s, exp, f->p, hx, 0, 3, &po,
					       &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "boot 8 of variant 0 was interrupted");
	assert_int_equal(kb_store_last_boot(f->s, exp, 0, &last, &err), 0);
	assert_int_equal(last, 7);
	assert_int_equal(told.failures, 0);
	assert_int_equal(kb_store_host_counts(f->s, exp, &hc, &nhc, &err), 0);
	for (h = 0; h < nhc; h++)
		assert_int_equal(hc[h].failures, 0);
	kb_store_host_counts_free(hc, nhc);
	stop_flag = 0;
	stop_at = 0;
	kb_executor_free(hx);
	for (h = 0; h < NHOSTS; h++)
		kb_executor_free(wrap[h]);
	rig_down(&r);
}

/* No host, or more than the spread takes: refused. */
static void test_pipeline_hosts__hosts_executor_needs_hosts(void **state)
{
	struct kb_pipeline_hosts_opts ho = KB_PIPELINE_HOSTS_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_executor *hx = (struct kb_executor *)1;

	(void)state;
	assert_int_equal(kb_pipeline_hosts_executor(NULL, &ho, &hx, &err),
			 KB_EINPUT);
	assert_null(hx);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
static const struct CMUnitTest tests[] = {
	T(test_pipeline_hosts__every_variant_on_every_host),
	T(test_pipeline_hosts__same_matrix_spreads_alike),
	T(test_pipeline_hosts__lost_host_is_drained_and_not_counted),
	T(test_pipeline_hosts__a_failed_host_backs_off_before_its_next_boot),
	T(test_pipeline_hosts__this_machines_failure_blames_no_host),
	T(test_pipeline_hosts__every_host_drained_stops_and_resumes),
	T(test_pipeline_hosts__stop_interrupts_and_resume_loses_nothing),
	T(test_pipeline_hosts__a_host_down_from_the_start),
	T(test_pipeline_hosts__builds_overlap_boots_when_asked),
	T(test_pipeline_hosts__host_speeds_leave_the_effects_alone),
	T(test_pipeline_hosts__added_boots_go_over_every_host),
	T(test_pipeline_hosts__added_rounds_go_over_every_host),
	T(test_pipeline_hosts__lost_host_in_added_boots_is_drained),
	T(test_pipeline_hosts__every_host_drained_adds_no_boot),
	T(test_pipeline_hosts__stop_in_added_boots_is_no_host_failure),
	T(test_pipeline_hosts__hosts_executor_needs_hosts),
};

KB_TEST_MAIN(tests)
