/*
 * Commit bisection (lib/bisect_commits.h) and
 * the commit ranges of lib/source.h, on a small git repository made with
 * the git CLI in a temporary folder, against performance models whose
 * regression starts at a known commit: 5% boot noise, fixed seeds.
 */
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "bisect.h"
#include "bisect_commits.h"
#include "buf.h"
#include "err.h"
#include "executor.h"
#include "mem.h"
#include "model.h"
#include "source.h"
#include "store.h"
#include "variant.h"

extern char **environ;

#define NCOMMITS 32 /* "change 1" .. "change 32" after "base" */

struct fixture {
	char dir[64];
	char repo[96];
	char db[96];
	struct kb_store *s;
	struct kb_source_commit *list; /* base, change 1 .. change 32 */
	size_t n;
	struct kb_bisect_commit *commits;
	struct kb_model *model;
	struct kb_executor *ex;
	struct kb_bisect_commits_result *r;
	const char *drift; /* the model's drift: line, or NULL */
	int fresh; /* opts.fresh of run() */
};

/* Run git with @argv (NULL-terminated, without "git") in @repo. */
static void git(const char *repo, const char *const *argv)
{
	const char *args[16] = { "git", "-C", repo, "-c", "user.name=t",
				 "-c", "user.email=t@example.org" };
	posix_spawn_file_actions_t fa;
	size_t n = 7;
	pid_t pid;
	int status;

	while (*argv && n < 15)
		args[n++] = *argv++;
	args[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "git", &fa, NULL, (char *const *)args,
			 environ))
		fail_msg("cannot run git");
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("git %s failed", args[7]);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct kb_err err = KB_ERR_INIT;
	const char *init[] = { "init", "-q", NULL };
	const char *base[] = { "commit", "-q", "--allow-empty", "-m", "base",
			       NULL };
	char msg[32];
	const char *change[] = { "commit", "-q", "--allow-empty", "-m", msg,
				 NULL };
	size_t i;

	/* fixed dates and no user configuration: the same commit ids (and
	 * so the same model noise, seeded by labels holding them) each run */
	setenv("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z", 1);
	setenv("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	snprintf(f->dir, sizeof(f->dir), "/tmp/kb-bcommits-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->repo, sizeof(f->repo), "%s/repo", f->dir);
	snprintf(f->db, sizeof(f->db), "%s/t.db", f->dir);
	assert_int_equal(mkdir(f->repo, 0700), 0);
	git(f->repo, init);
	git(f->repo, base);
	for (i = 1; i <= NCOMMITS; i++) {
		snprintf(msg, sizeof(msg), "change %zu", i);
		git(f->repo, change);
	}
	if (kb_source_commits(f->repo, "HEAD~32", "HEAD", &f->list, &f->n,
			      &err))
		fail_msg("commits: %s", err.msg);
	f->commits = kb_calloc(f->n, sizeof(*f->commits));
	for (i = 0; i < f->n; i++) {
		f->commits[i].sha = f->list[i].sha;
		f->commits[i].summary = f->list[i].summary;
	}
	if (kb_store_open(f->db, NULL, &f->s, &err))
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static void remove_tree(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, "rm", NULL, NULL, (char *const *)argv,
			 environ) == 0)
		waitpid(pid, &status, 0);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_bisect_commits_result_free(f->r);
	kb_executor_free(f->ex);
	kb_model_free(f->model);
	kb_store_close(f->s);
	free(f->commits);
	kb_source_commits_free(f->list, f->n);
	remove_tree(f->dir);
	free(f);
	return 0;
}

/*
 * A model of 1000 read_iops with 5% boot noise where the commits from
 * index @first on cost 30%, and the commits at the indexes in @broken
 * (-1 terminated) fail to build.
 */
static void load_model(struct fixture *f, long first, const long *broken)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	size_t i;

	kb_buf_adds(&b, "metric: read_iops\nbase: 1000\n"
			"noise: { boot_cv: 0.05 }\nseed: 11\n");
	if (f->drift)
		kb_buf_addf(&b, "drift: %s\n", f->drift);
	if (first >= 0) {
		kb_buf_adds(&b, "effects:\n  - when: { kernel.rev: [");
		for (i = (size_t)first; i < f->n; i++)
			kb_buf_addf(&b, "%s%s", i > (size_t)first ? ", " : "",
				    f->commits[i].sha);
		kb_buf_adds(&b, "] }\n    factor: 0.7\n");
	}
	if (broken && *broken >= 0) {
		kb_buf_adds(&b, "failures:\n");
		for (; *broken >= 0; broken++)
			kb_buf_addf(&b,
				    "  - when: { kernel.rev: %.12s }\n"
				    "    stage: build\n",
				    f->commits[*broken].sha);
	}
	if (kb_model_parse_buffer(b.buf, b.len, "m.yaml", &f->model, &err))
		fail_msg("model: %s\n%s", err.msg, b.buf);
	kb_buf_release(&b);
	assert_int_equal(kb_model_executor_new(f->model, 0, &f->ex), 0);
}

static void opts(const struct fixture *f, struct kb_bisect_opts *o)
{
	o->metric = "read_iops";
	o->higher_is_better = 1;
	o->good_name = "HEAD~32";
	o->bad_name = "HEAD";
	o->model_text = kb_model_text(f->model);
	o->build_salt = kb_model_text(f->model);
}

static void run(struct fixture *f)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;

	opts(f, &o);
	o.fresh = f->fresh;
	kb_bisect_commits_result_free(f->r);
	f->r = NULL;
	if (kb_bisect_commits(f->s, f->ex, f->commits, f->n, &o, &f->r, &err))
		fail_msg("bisect: %s", err.msg);
}

static void dump(const struct fixture *f)
{
	size_t i;

	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_bisect_probe *p = &f->r->probes[i];

		print_message("probe %u: %s %-7s %+6.1f%% %u boots\n", p->step,
			      f->commits[p->commit].summary,
			      kb_bisect_class_name(p->cls), p->change_pct,
			      p->boots);
	}
}

static void test_bisect_commits__source_lists_range_oldest_first(
	void **state)
{
	struct fixture *f = *state;
	struct kb_source_commit *l = NULL, *one = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	char want[32];

	assert_int_equal(f->n, NCOMMITS + 1);
	assert_string_equal(f->list[0].summary, "base");
	for (i = 1; i < f->n; i++) {
		snprintf(want, sizeof(want), "change %zu", i);
		assert_string_equal(f->list[i].summary, want);
		assert_int_equal(strlen(f->list[i].sha), 40);
	}
	assert_int_equal(kb_source_commits(f->repo, "HEAD~5", "HEAD~1", &l,
					   &n, &err),
			 0);
	assert_int_equal(n, 5);
	assert_string_equal(l[0].summary, "change 27");
	assert_string_equal(l[4].summary, "change 31");
	assert_string_equal(l[4].sha, f->list[31].sha);
	kb_source_commits_free(l, n);

	assert_int_equal(kb_source_resolve(f->repo, "HEAD~2", &one, &err), 0);
	assert_string_equal(one->sha, f->list[30].sha);
	assert_string_equal(one->summary, "change 30");
	kb_source_commits_free(one, 1);
}

static void test_bisect_commits__source_refuses_bad_ranges(void **state)
{
	struct fixture *f = *state;
	struct kb_source_commit *l = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 7;

	assert_int_equal(kb_source_commits(f->repo, "nosuchrev", "HEAD", &l,
					   &n, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "unknown revision 'nosuchrev'");
	assert_null(l);
	assert_int_equal(n, 0);
	kb_err_clear(&err);
	assert_int_equal(kb_source_commits(f->repo, "HEAD", "HEAD~3", &l, &n,
					   &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "the bad revision 'HEAD~3' does not descend from the good revision 'HEAD'");
	kb_err_clear(&err);
	assert_int_equal(kb_source_commits(f->repo, "HEAD", "HEAD", &l, &n,
					   &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "are the same commit");
	kb_err_clear(&err);
	assert_int_equal(kb_source_commits(f->dir, "HEAD~1", "HEAD", &l, &n,
					   &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "is not a git repository");
}

static void test_bisect_commits__finds_first_bad_in_log2_probes(
	void **state)
{
	struct fixture *f = *state;
	size_t i;

	load_model(f, 20, NULL);
	run(f);
	assert_true(f->r->reproduced);
	if (f->r->first_bad != 20) {
		dump(f);
		fail_msg("first bad %ld, expected 20", f->r->first_bad);
	}
	assert_true(f->r->complete);
	assert_int_equal(f->r->last_good, 19);
	/* 32 commits between: log2(32) = 5 probes when all classify */
	assert_in_range(f->r->nprobes, 5, 7);
	for (i = 0; i < f->r->nprobes; i++)
		assert_true(f->r->probes[i].cls == KB_BISECT_GOOD ||
			    f->r->probes[i].cls == KB_BISECT_BAD);
	/* its effect against its parent: -30%, with an interval */
	assert_true(fabs(f->r->change_pct + 30) < 6);
	assert_true(f->r->ci_low <= f->r->change_pct &&
		    f->r->change_pct <= f->r->ci_high);
	assert_true(f->r->ci_low < -30 + 1 && f->r->ci_high > -30 - 1);
	assert_int_equal(f->r->effect_boots, 10);
	assert_int_equal(f->r->builds, f->r->nprobes + 2);
	assert_int_equal(f->r->runs, f->r->boots);
}

static void test_bisect_commits__commit_that_fails_to_build_is_skipped(
	void **state)
{
	struct fixture *f = *state;
	const long broken[] = { 16, -1 };
	size_t i, skips = 0;

	load_model(f, 20, broken);
	run(f);
	for (i = 0; i < f->r->nprobes; i++) {
		if (f->r->probes[i].cls != KB_BISECT_SKIP)
			continue;
		skips++;
		assert_int_equal(f->r->probes[i].commit, 16);
		assert_non_null(f->r->probes[i].reason);
		assert_msg_contains(f->r->probes[i].reason, "build fails");
	}
	assert_int_equal(skips, 1);
	assert_int_equal(f->r->first_bad, 20);
	/* the skip costs one probe */
	assert_in_range(f->r->nprobes, 6, 8);
}

static void test_bisect_commits__skipped_culprit_is_ambiguous(void **state)
{
	struct fixture *f = *state;
	const long broken[] = { 20, -1 };

	load_model(f, 20, broken);
	run(f);
	assert_true(f->r->reproduced);
	/* like git bisect: "the first bad commit could be any of" 20, 21 */
	assert_int_equal(f->r->first_bad, -1);
	assert_int_equal(f->r->cand_first, 20);
	assert_int_equal(f->r->cand_last, 21);
	assert_int_equal(f->r->last_good, 19);
	assert_true(f->r->complete);
	assert_true(fabs(f->r->change_pct + 30) < 6);
}

static void test_bisect_commits__regression_that_does_not_reproduce(
	void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_err err = KB_ERR_INIT;

	load_model(f, -1, NULL);
	run(f);
	assert_false(f->r->reproduced);
	assert_int_equal(f->r->nprobes, 0);
	assert_int_equal(f->r->first_bad, -1);
	assert_true(isnan(f->r->change_pct));
	assert_int_not_equal(f->r->ends.verdict, KB_VERDICT_REGRESSION);
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_non_null(strstr(sb.result, "does not reproduce"));
	assert_int_equal(sb.nsteps, 1);
	kb_store_bisection_release(&sb);
}

static void test_bisect_commits__stores_bisection_and_steps(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection sb;
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t i, n = 0;
	char want[128];

	load_model(f, 9, NULL);
	run(f);
	assert_int_equal(f->r->first_bad, 9);
	assert_int_equal(kb_store_bisection_get(f->s, f->r->bisection, &sb,
						&err),
			 0);
	assert_string_equal(sb.kind, "commits");
	assert_string_equal(sb.state, "done");
	assert_string_equal(sb.good, "HEAD~32");
	assert_string_equal(sb.bad, "HEAD");
	snprintf(want, sizeof(want), "first bad commit %s change 9",
		 f->commits[9].sha);
	assert_string_equal(sb.result, want);
	assert_int_equal(sb.nsteps, f->r->nprobes + 1);
	assert_string_equal(sb.steps[0].classification, "bad");
	for (i = 0; i < f->r->nprobes; i++) {
		const struct kb_store_bisection_step *st = &sb.steps[i + 1];
		const struct kb_bisect_probe *p = &f->r->probes[i];

		assert_int_equal(st->variant_idx, p->variant_idx);
		assert_string_equal(st->classification,
				    kb_bisect_class_name(p->cls));
		assert_int_equal(strncmp(st->probe, f->commits[p->commit].sha,
					 40),
				 0);
	}
	kb_store_bisection_release(&sb);

	/* the ends and a variant per probe, each built at its commit */
	assert_int_equal(kb_store_variants(f->s, f->r->experiment, "read_iops",
					   &vs, &n, &err),
			 0);
	assert_int_equal(n, f->r->nprobes + 2);
	snprintf(want, sizeof(want), "good %.12s", f->commits[0].sha);
	assert_string_equal(vs[0].label, want);
	snprintf(want, sizeof(want), "bad %.12s", f->commits[32].sha);
	assert_string_equal(vs[1].label, want);
	/* the ends: max_boots rounds of their own, then one beside each
	 * boot of every probe */
	for (i = 0; i < 2; i++)
		assert_true(vs[i].nboots >= 10 + 3 * f->r->nprobes);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&vs[i]);
	free(vs);
}

/* Per-boot values of the model at no kernel.rev: the baseline. */
static void baseline(const struct fixture *f, double *v, size_t n)
{
	struct kb_variant base;
	size_t i;

	memset(&base, 0, sizeof(base));
	base.label = "baseline";
	for (i = 0; i < n; i++)
		v[i] = kb_model_sample(f->model, &base, (unsigned)i + 1, 1);
}

static enum kb_bisect_class test_commit(struct fixture *f, size_t i,
					struct kb_bisect_test_result *r)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	double base[20];

	baseline(f, base, 20);
	opts(f, &o);
	o.max_boots = 20;
	o.good_name = "baseline";
	o.bad_name = f->commits[i].sha;
	if (kb_bisect_test(f->s, f->ex, base, 20, &f->commits[i], &o, r,
			   &err))
		fail_msg("test: %s", err.msg);
	return r->cls;
}

static void test_bisect_commits__test_judges_good_bad_and_skip(void **state)
{
	struct fixture *f = *state;
	const long broken[] = { 7, -1 };
	struct kb_bisect_test_result r;

	load_model(f, 20, broken);
	assert_int_equal(test_commit(f, 25, &r), KB_BISECT_BAD);
	assert_int_equal(r.cmp.verdict, KB_VERDICT_REGRESSION);
	assert_true(fabs(r.cmp.change_pct + 30) < 8);
	assert_int_equal(r.builds, 1);
	assert_true(r.experiment > 0);
	kb_bisect_test_result_release(&r);

	assert_int_equal(test_commit(f, 3, &r), KB_BISECT_GOOD);
	assert_int_not_equal(r.cmp.verdict, KB_VERDICT_REGRESSION);
	assert_true(r.cmp.ci_low > -5);
	kb_bisect_test_result_release(&r);

	assert_int_equal(test_commit(f, 7, &r), KB_BISECT_SKIP);
	assert_msg_contains(r.reason, "build fails");
	assert_int_equal(r.boots, 0);
	kb_bisect_test_result_release(&r);
}

static enum kb_bisect_class test_beside(struct fixture *f, size_t i,
					struct kb_bisect_test_result *r)
{
	struct kb_bisect_opts o = KB_BISECT_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;

	opts(f, &o);
	o.max_boots = 20;
	o.good_name = f->commits[0].sha;
	o.bad_name = f->commits[i].sha;
	if (kb_bisect_test_beside(f->s, f->ex, &f->commits[0], &f->commits[i],
				  &o, r, &err))
		fail_msg("test: %s", err.msg);
	return r->cls;
}

/* The number of boots rows of experiment @exp. */
static long boots_of(const struct fixture *f, int64_t exp)
{
	struct kb_store_variant *vs = NULL;
	struct kb_err err = KB_ERR_INIT;
	size_t n = 0, i;
	long total = 0;

	assert_int_equal(kb_store_variants(f->s, exp, "read_iops", &vs, &n,
					   &err),
			 0);
	for (i = 0; i < n; i++) {
		total += (long)vs[i].nboots;
		kb_store_variant_release(&vs[i]);
	}
	free(vs);
	return total;
}

/*
 * Side by side, the good commit in every round: under a drift of -30%
 * over the test's 20 boots a good commit stays good (against the
 * baseline's earlier boots the drift reads as a regression), a bad one
 * is bad, and a commit that does not build is a skip; the good commit
 * is built once over all the calls.
 */
static void test_bisect_commits__test_beside_judges_within_rounds(void **state)
{
	struct fixture *f = *state;
	const long broken[] = { 7, -1 };
	struct kb_bisect_test_result r;

	f->drift = "{ linear: -0.3, over: 20 }";
	load_model(f, 20, broken);
	assert_int_equal(test_commit(f, 3, &r), KB_BISECT_BAD);
	kb_bisect_test_result_release(&r);

	assert_int_equal(test_beside(f, 3, &r), KB_BISECT_GOOD);
	assert_int_not_equal(r.cmp.verdict, KB_VERDICT_REGRESSION);
	assert_true(r.cmp.npairs >= 3);
	assert_int_equal(r.cmp.unpaired, 0);
	assert_int_equal(r.builds, 1); /* the good commit's build is new */
	assert_int_equal(boots_of(f, r.experiment), (long)r.boots);
	assert_int_equal(r.boots, 2 * r.cmp.npairs);
	kb_bisect_test_result_release(&r);

	assert_int_equal(test_beside(f, 25, &r), KB_BISECT_BAD);
	assert_int_equal(r.cmp.verdict, KB_VERDICT_REGRESSION);
	assert_true(fabs(r.cmp.change_pct + 30) < 8);
	assert_int_equal(r.builds, 1); /* the commit's; good's is stored */
	kb_bisect_test_result_release(&r);

	assert_int_equal(test_beside(f, 7, &r), KB_BISECT_SKIP);
	assert_msg_contains(r.reason, "build fails");
	kb_bisect_test_result_release(&r);
}

static void test_bisect_commits__model_any_of_levels(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_setting set = { "kernel.rev", NULL, KB_FACTOR_KERNEL };
	struct kb_variant v;
	struct kb_buf b = KB_BUF_INIT;
	static const char bad_list[] = "metric: m\nbase: 10\neffects:\n"
				       "  - when: { kernel.rev: [] }\n"
				       "    factor: 2\n";

	kb_buf_addf(&b,
		    "metric: m\nbase: 10\neffects:\n"
		    "  - when: { kernel.rev: [%s, %.7s] }\n    factor: 2\n"
		    "  - when: { guest.vcpus: [2, 4] }\n    factor: 3\n",
		    f->commits[1].sha, f->commits[2].sha);
	if (kb_model_parse_buffer(b.buf, b.len, "m.yaml", &f->model, &err))
		fail_msg("model: %s", err.msg);
	memset(&v, 0, sizeof(v));
	v.label = "v";
	v.nsettings = 1;
	v.settings = &set;
	set.value = f->commits[1].sha; /* listed in full */
	assert_true(fabs(kb_model_expected(f->model, &v) - 20) < 1e-9);
	set.value = f->commits[2].sha; /* listed abbreviated */
	assert_true(fabs(kb_model_expected(f->model, &v) - 20) < 1e-9);
	set.value = f->commits[3].sha; /* not listed */
	assert_true(fabs(kb_model_expected(f->model, &v) - 10) < 1e-9);
	set.name = "guest.vcpus";
	set.kind = KB_FACTOR_GUEST;
	set.value = "4";
	assert_true(fabs(kb_model_expected(f->model, &v) - 30) < 1e-9);
	set.value = "3";
	assert_true(fabs(kb_model_expected(f->model, &v) - 10) < 1e-9);
	kb_buf_release(&b);

	kb_model_free(f->model);
	f->model = NULL;
	assert_int_equal(kb_model_parse_buffer(bad_list, strlen(bad_list),
					       "m.yaml", &f->model, &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "m.yaml:4:25: an empty list of levels for 'kernel.rev'");
}

/* The boots stored in the fixture's database (a second connection). */
static long long stored_boots(const struct fixture *f)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_open(f->db, &db) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM boots", -1, &st,
			       NULL) != SQLITE_OK)
		fail_msg("cannot read '%s'", f->db);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void test_bisect_commits__rerun_answers_from_the_store(void **state)
{
	struct fixture *f = *state;
	const long broken[] = { 16, -1 };
	struct kb_bisect_commits_result *one;
	long long boots;
	size_t i;

	load_model(f, 20, broken);
	run(f);
	one = f->r;
	f->r = NULL;
	assert_null(one->stored_at);
	boots = stored_boots(f);
	/* the same commits again: the stored answer, nothing booted */
	run(f);
	assert_non_null(f->r->stored_at);
	assert_int_equal(stored_boots(f), boots);
	assert_int_equal(f->r->bisection, one->bisection);
	assert_int_equal(f->r->experiment, one->experiment);
	assert_int_equal(f->r->first_bad, 20);
	assert_int_equal(f->r->last_good, one->last_good);
	assert_int_equal(f->r->cand_first, one->cand_first);
	assert_int_equal(f->r->cand_last, one->cand_last);
	assert_true(f->r->change_pct == one->change_pct);
	assert_int_equal(f->r->effect_boots, one->effect_boots);
	assert_int_equal(f->r->confirmed, one->confirmed);
	assert_int_equal(f->r->boots, one->boots);
	assert_int_equal(f->r->builds, one->builds);
	assert_int_equal(f->r->nprobes, one->nprobes);
	for (i = 0; i < one->nprobes; i++) {
		assert_int_equal(f->r->probes[i].commit, one->probes[i].commit);
		assert_int_equal(f->r->probes[i].cls, one->probes[i].cls);
		if (one->probes[i].reason)
			assert_string_equal(f->r->probes[i].reason,
					    one->probes[i].reason);
		else
			assert_null(f->r->probes[i].reason);
	}
	assert_int_equal(f->r->end.commit, one->end.commit);
	/* --fresh: booted again, the builds from the store */
	f->fresh = 1;
	run(f);
	assert_null(f->r->stored_at);
	assert_true(f->r->bisection > one->bisection);
	assert_int_equal(f->r->builds, 0);
	/* the same probes booted again, each boot stored as before */
	assert_int_equal(stored_boots(f), 2 * boots);
	assert_int_equal(f->r->first_bad, 20);
	kb_bisect_commits_result_free(one);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(test_bisect_commits__source_lists_range_oldest_first),
	T(test_bisect_commits__source_refuses_bad_ranges),
	T(test_bisect_commits__finds_first_bad_in_log2_probes),
	T(test_bisect_commits__commit_that_fails_to_build_is_skipped),
	T(test_bisect_commits__skipped_culprit_is_ambiguous),
	T(test_bisect_commits__regression_that_does_not_reproduce),
	T(test_bisect_commits__stores_bisection_and_steps),
	T(test_bisect_commits__test_judges_good_bad_and_skip),
	T(test_bisect_commits__test_beside_judges_within_rounds),
	T(test_bisect_commits__model_any_of_levels),
	T(test_bisect_commits__rerun_answers_from_the_store),
};

KB_TEST_MAIN(tests)
