#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testfs.h"
#include "build.h"
#include "err.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"

#define FILE_NAME KB_TEST_DATA "/matrix/t.yaml"
#define W "workload: { fio: { rw: randread } }\n"

struct fixture {
	struct kb_matrix *m;
	struct kb_plan *p;
};

static void make(struct fixture *f, const char *text)
{
	struct kb_err err = KB_ERR_INIT;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &f->m, &err))
		fail_msg("matrix: %s", err.msg);
	if (kb_plan_new(f->m, &f->p, &err))
		fail_msg("plan: %s", err.msg);
}

static void release(struct fixture *f)
{
	kb_plan_free(f->p);
	kb_matrix_free(f->m);
}

static void bad(const char *text, const char *where, const char *expect)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;

	if (kb_matrix_parse_buffer(text, strlen(text), FILE_NAME, &m, &err))
		fail_msg("matrix: %s", err.msg);
	assert_int_equal(kb_plan_new(m, &p, &err), KB_EINPUT);
	assert_null(p);
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("message \"%s\" does not start with \"%s\"", err.msg,
			 where);
	assert_msg_contains(err.msg, expect);
	kb_matrix_free(m);
}

/* 4096 variants x 1000 boots x 1000 runs: each part within its limit,
 * the whole 4 billion runs (600 MB in 30 s before it was capped). */
#define HUGE_FACTORS                                                    \
	"factors:\n  kconfig:\n"                                        \
	"    A: [n, y]\n    B: [n, y]\n    C: [n, y]\n    D: [n, y]\n" \
	"    E: [n, y]\n    F: [n, y]\n    G: [n, y]\n    H: [n, y]\n" \
	"    I: [n, y]\n    J: [n, y]\n    K: [n, y]\n    L: [n, y]\n"

static void test_plan__whole_plan_is_capped_in_boots_and_samples(
	void **state)
{
	struct kb_plan_limits lim = KB_PLAN_LIMITS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct fixture f;

	(void)state;
	make(&f, W HUGE_FACTORS
	     "repeat: { boots: 1000, runs_per_boot: 1000 }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 4096);
	assert_int_equal(kb_plan_check_limits(f.p, NULL, &err), KB_EINPUT);
	assert_string_equal(err.msg,
			    FILE_NAME ": 4096 variants x 1000 boots (repeat.max_boots) = 4096000 boots, more than the limit of 100000: use fewer variants or boots, or raise the limit with --max-boots 4096000");
	kb_err_clear(&err);
	/* boots raised: the samples are over theirs */
	lim.max_boots = 4096000;
	assert_int_equal(kb_plan_check_limits(f.p, &lim, &err), KB_EINPUT);
	assert_string_equal(err.msg,
			    FILE_NAME ": 4096000 boots x 1000 runs per boot = 4096000000 samples (workload runs), more than the limit of 1000000: use fewer boots or runs, or raise the limit with --max-samples 4096000000");
	kb_err_clear(&err);
	lim.max_samples = 4096000000ULL;
	assert_int_equal(kb_plan_check_limits(f.p, &lim, &err), 0);
	release(&f);

	/* max_boots counts, not boots: adaptive sampling may reach it */
	make(&f, W "factors: { kconfig: { A: [n, y] } }\n"
		   "repeat: { boots: 1, max_boots: 1000, runs_per_boot: 600 }\n");
	assert_int_equal(kb_plan_check_limits(f.p, NULL, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "2000 boots x 600 runs per boot = 1200000 samples");
	release(&f);
	/* the examples are far below */
	make(&f, W HUGE_FACTORS);
	assert_int_equal(kb_plan_check_limits(f.p, NULL, &err), 0);
	release(&f);
}

static void test_plan__labels_and_baseline(void **state)
{
	struct fixture f;
	const struct kb_variant *v;

	(void)state;
	make(&f, W "factors:\n  kconfig:\n    PARAVIRT_SPINLOCKS: [y, n]\n"
		   "    DEBUG_SPINLOCK: [n, y]\n    CMDLINE: [\"quiet\"]\n");
	assert_int_equal(kb_plan_nvariants(f.p), 4);
	v = kb_plan_variant(f.p, 0);
	assert_int_equal(v->idx, 0);
	assert_string_equal(v->label,
			    "PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=n CMDLINE=\"quiet\"");
	assert_string_equal(kb_variant_get(v, "DEBUG_SPINLOCK"), "n");
	v = kb_plan_variant(f.p, 3);
	assert_string_equal(v->label,
			    "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=y CMDLINE=\"quiet\"");
	assert_int_equal(kb_plan_nbuilds(f.p), 4);
	assert_int_equal(kb_plan_nboots(f.p), 12);
	assert_int_equal(kb_plan_nruns(f.p), 12);
	release(&f);
}

static void test_plan__no_factors_is_an_aa_run(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "repeat: { boots: 5, runs_per_boot: 2 }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 1);
	assert_string_equal(kb_plan_variant(f.p, 0)->label, "baseline");
	assert_int_equal(kb_plan_nbuilds(f.p), 1);
	assert_int_equal(kb_plan_nboots(f.p), 5);
	assert_int_equal(kb_plan_nruns(f.p), 10);
	release(&f);
}

/* repeat.sentinel: one more variant, the baseline again under its own
 * label, its build shared (never built twice), its boots counted */
static void test_plan__sentinel_is_the_baseline_again(void **state)
{
	struct fixture f;
	const struct kb_variant *b, *s;

	(void)state;
	make(&f, W "factors:\n  kconfig: { A: [y, n], B: [n, y] }\n"
		   "  guest: { vcpus: [1, 2] }\n"
		   "repeat: { boots: 4, sentinel: true }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 9);
	assert_int_equal(kb_plan_sentinel(f.p), 8);
	assert_int_equal(kb_plan_nbuilds(f.p), 4);
	assert_int_equal(kb_plan_nboots(f.p), 36);
	b = kb_plan_variant(f.p, 0);
	s = kb_plan_variant(f.p, 8);
	assert_int_equal(s->idx, 8);
	assert_true(s->sentinel);
	assert_false(b->sentinel);
	assert_string_equal(s->label, "sentinel");
	assert_string_equal(s->build_key, b->build_key);
	assert_int_equal(s->nsettings, b->nsettings);
	assert_string_equal(kb_variant_get(s, "A"), "y");
	assert_string_equal(kb_variant_get(s, "B"), "n");
	assert_int_equal(s->guest.vcpus, 1);
	release(&f);
	make(&f, W "repeat: { boots: 8, sentinel: true }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 2);
	assert_int_equal(kb_plan_sentinel(f.p), 1);
	assert_int_equal(kb_plan_nbuilds(f.p), 1);
	assert_int_equal(kb_plan_nboots(f.p), 16);
	release(&f);
	make(&f, W "factors:\n  kconfig: { A: [y, n] }\n");
	assert_int_equal(kb_plan_sentinel(f.p), -1);
	release(&f);
}

static void test_plan__guest_factors_share_builds(void **state)
{
	struct fixture f;
	const struct kb_variant *a, *b;

	(void)state;
	make(&f, W "factors:\n  kconfig: { A: [y, n] }\n"
		   "  guest: { vcpus: [1, 4], memory_mib: [512, 1024] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 8);
	assert_int_equal(kb_plan_nbuilds(f.p), 2);
	a = kb_plan_variant(f.p, 0);
	b = kb_plan_variant(f.p, 3);
	assert_string_equal(b->label, "A=y guest.vcpus=4 guest.memory_mib=1024");
	assert_string_equal(a->build_key, b->build_key);
	assert_int_equal(b->guest.vcpus, 4);
	assert_int_equal(b->guest.memory_mib, 1024);
	assert_int_equal(a->guest.vcpus, 1);
	b = kb_plan_variant(f.p, 4);
	assert_string_not_equal(a->build_key, b->build_key);
	assert_int_equal(strlen(a->build_key), 64);
	release(&f);
}

static void test_plan__build_key_is_stable(void **state)
{
	struct fixture f, g;

	(void)state;
	make(&f, W "factors: { kconfig: { A: [y, n] } }\n");
	make(&g, W "factors: { kconfig: { CONFIG_A: [y, n] } }\nrepeat: { boots: 7 }\n");
	assert_string_equal(kb_plan_variant(f.p, 1)->build_key,
			    kb_plan_variant(g.p, 1)->build_key);
	release(&f);
	release(&g);
}

/*
 * The plan an analysis rebuilds from a stored matrix has the labels and
 * build keys of the plan that ran, also after the files it names are gone
 * (issue 10).
 */
static void test_plan__from_stored_matches_the_run_without_its_files(
	void **state)
{
	static const char text[] =
		W "source: { base: base.config, fragments: [a.fragment] }\n"
		"factors: { kernel: { image: [a.img, b.img] },\n"
		"           guest: { vcpus: [1, 2] } }\n";
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL, *ms = NULL;
	struct kb_plan *p = NULL, *ps = NULL;
	char *dir = kb_test_tmpdir("plan-stored"), *path;
	const char *files[] = { "base.config", "a.fragment", "a.img",
				"b.img" };
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		kb_test_put(dir, files[i], "x\n");
	path = kb_asprintf("%s/m.yaml", dir);
	if (kb_plan_from_text(text, path, &m, &p, &err))
		fail_msg("%s", err.msg);
	kb_test_rm_rf(dir);
	assert_int_equal(kb_plan_from_text(text, path, &ms, &ps, &err),
			 KB_EINPUT);
	assert_null(ms);
	assert_null(ps);
	if (kb_plan_from_stored(text, path, &ms, &ps, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kb_plan_nvariants(ps), 4);
	for (i = 0; i < 4; i++) {
		assert_string_equal(kb_plan_variant(ps, i)->label,
				    kb_plan_variant(p, i)->label);
		assert_string_equal(kb_plan_variant(ps, i)->build_key,
				    kb_plan_variant(p, i)->build_key);
	}
	assert_non_null(strstr(kb_plan_variant(ps, 2)->label, "/b.img"));
	assert_int_equal(kb_plan_nbuilds(ps), 2);
	kb_plan_free(ps);
	kb_matrix_free(ms);
	kb_plan_free(p);
	kb_matrix_free(m);
	free(path);
	free(dir);
}

static void test_plan__pins_follow_vcpus_per_variant(void **state)
{
	struct fixture f;
	const struct kb_variant *v;

	(void)state;
	make(&f, W "guest: { vcpus: 4 }\nfactors:\n  guest:\n    pin: [none, [0, 0, 1, 1]]\n");
	v = kb_plan_variant(f.p, 1);
	assert_int_equal(v->guest.npin, 4);
	assert_int_equal(v->guest.pin[2], 1);
	assert_int_equal(kb_plan_variant(f.p, 0)->guest.npin, 0);
	release(&f);
	bad(W "guest: { pin: [0, 1] , vcpus: 2 }\nfactors:\n  guest:\n    vcpus: [2, 4]\n",
	    FILE_NAME ":2:15: ",
	    "variant 'guest.vcpus=4' pins 2 vCPUs but has 4");
	bad(W "guest: { vcpus: 2 }\nfactors:\n  guest:\n    pin: [[0, 1], [0, 0, 0]]\n",
	    FILE_NAME ":5:19: ", "pins 3 vCPUs but has 2");
}

static void test_plan__fractional_errors_name_the_factor(void **state)
{
	(void)state;
	bad(W "design: fractional\nfactors:\n  kconfig:\n    A: [y, n]\n"
	      "    B: [y, n, m]\n    C: [y, n]\n    D: [y, n]\n",
	    FILE_NAME ":6:5: ",
	    "a fractional design needs two-level factors, and B has 3 levels");
	bad(W "design: fractional\nfactors:\n  kconfig: { A: [y, n], B: [y, n], "
	      "C: [y, n], D: [y, n], E: [y, n], F: [y, n], G: [y, n], "
	      "H: [y, n], I: [y, n], J: [y, n], K: [y, n], L: [y, n], "
	      "M: [y, n], N: [y, n], O: [y, n], P: [y, n], Q: [y, n] }\n",
	    FILE_NAME ":4:",
	    "at most 16 two-level factors, and Q is the 17th: use design: plackett-burman");
}

static void test_plan__plackett_burman_errors_name_the_factor(void **state)
{
	(void)state;
	bad(W "design: plackett-burman\nfactors:\n  kconfig:\n    A: [y, n]\n"
	      "    B: [y, n, m]\n",
	    FILE_NAME ":6:5: ",
	    "a plackett-burman design needs two-level factors, and B has 3 levels");
	bad(W "design: plackett-burman\nfactors:\n  kconfig: { A: [y, n], "
	      "B: [y, n], C: [y, n], D: [y, n], E: [y, n], F: [y, n], "
	      "G: [y, n], H: [y, n], I: [y, n], J: [y, n], K: [y, n], "
	      "L: [y, n], M: [y, n], N: [y, n], O: [y, n], P: [y, n], "
	      "Q: [y, n], R: [y, n], S: [y, n], T: [y, n], U: [y, n], "
	      "V: [y, n], W: [y, n], X: [y, n] }\n",
	    FILE_NAME ":4:",
	    "at most 23 two-level factors, and X is the 24th");
}

static void test_plan__plackett_burman_of_twelve_factors_has_twenty_runs(
	void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "design: plackett-burman\nfactors:\n  kconfig: { A: [y, n], "
		   "B: [y, n], C: [y, n], D: [y, n], E: [y, n], F: [y, n], "
		   "G: [y, n], H: [y, n], I: [y, n], J: [y, n], K: [y, n], "
		   "L: [y, n] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 20);
	assert_string_equal(kb_plan_variant(f.p, 0)->label,
			    "A=y B=y C=y D=y E=y F=y G=y H=y I=y J=y K=y L=y");
	assert_null(kb_design_generators(kb_plan_design(f.p)));
	assert_int_equal(kb_design_resolution(kb_plan_design(f.p)), 3);
	release(&f);
}

static void test_plan__fractional_has_sixteen_runs(void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "design: fractional\nfactors:\n  kconfig: { A: [y, n], B: [y, n], "
		   "C: [y, n], D: [y, n], E: [y, n], F: [y, n] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 16);
	assert_string_equal(kb_plan_variant(f.p, 0)->label,
			    "A=y B=y C=y D=y E=y F=y");
	assert_non_null(kb_design_generators(kb_plan_design(f.p)));
	release(&f);
}

static void test_plan__oversize_design_is_refused(void **state)
{
	(void)state;
	bad(W "factors:\n  kconfig:\n    A: [1, 2, 3, 4, 5, 6, 7, 8]\n"
	      "    B: [1, 2, 3, 4, 5, 6, 7, 8]\n    C: [1, 2, 3, 4, 5, 6, 7, 8]\n"
	      "    D: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
	    FILE_NAME ":4:5: ", "more than 4096 variants");
}

/* ---- resolution per revision (a git repository of fake kernel trees) ---- */

static char *tmp, *old_cache;

/* `git rev-parse REV` of @repo, newly allocated. */
static char *rev_parse(const char *repo, const char *rev)
{
	char *out = kb_asprintf("%s/rev-parse.out", tmp);
	char *argv[] = { "sh", "-c", "git -C \"$1\" rev-parse \"$2\" > \"$3\"",
			 "sh", (char *)repo, (char *)rev, out, NULL };
	char buf[128] = "";
	FILE *f;

	assert_int_equal(kb_test_run(argv), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	free(out);
	buf[strcspn(buf, "\n")] = '\0';
	return kb_strdup(buf);
}

static int setup_tmp(void **state)
{
	char templ[] = "/tmp/kb-plan-XXXXXX";
	char *cache;

	(void)state;
	assert_non_null(mkdtemp(templ));
	tmp = kb_strdup(templ);
	old_cache = getenv("XDG_CACHE_HOME") ? kb_strdup(getenv("XDG_CACHE_HOME"))
					     : NULL;
	/* checkouts, resolution work folders and the config cache */
	cache = kb_asprintf("%s/cache", tmp);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	return 0;
}

static int teardown_tmp(void **state)
{
	char *argv[] = { "rm", "-rf", tmp, NULL };

	(void)state;
	kb_test_run(argv);
	if (old_cache)
		setenv("XDG_CACHE_HOME", old_cache, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(old_cache);
	free(tmp);
	tmp = NULL;
	old_cache = NULL;
	return 0;
}

/*
 * A git repository at tmp/repo whose two commits, tags A and B (HEAD),
 * are tiny kernel trees: make olddefconfig keeps the .config at A, and at
 * B also turns on LOOP, a symbol only B has.
 */
static char *make_repo(void)
{
	char *dir = kb_asprintf("%s/repo", tmp);

	assert_int_equal(mkdir(dir, 0755), 0);
	kb_test_git(dir, "init", "-q", NULL, NULL);
	kb_test_put(dir, "Kconfig", "config SPIN\n\tbool \"spin\"\n");
	kb_test_put(dir, "Makefile", "olddefconfig:\n\t@true\n");
	kb_test_git(dir, "add", "-A", NULL, NULL);
	kb_test_git(dir, "commit", "-q", "-m", "A");
	kb_test_git(dir, "tag", "A", NULL, NULL);
	kb_test_put(dir, "Kconfig",
	    "config SPIN\n\tbool \"spin\"\n\nconfig LOOP\n\tbool \"loop\"\n");
	kb_test_put(dir, "Makefile",
	    "olddefconfig:\n\t@echo CONFIG_LOOP=y >> $(O)/.config\n");
	kb_test_git(dir, "commit", "-q", "-am", "B");
	kb_test_git(dir, "tag", "B", NULL, NULL);
	return dir;
}

/* Plan (into @f) and resolve the matrix of @repo with @rest after it. */
static void make_resolved(struct fixture *f, const char *source,
			  const char *rest)
{
	struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	char *text = kb_asprintf(W "source: { %s }\n%s", source, rest);

	make(f, text);
	if (kb_plan_resolve(f->p, &o, &err))
		fail_msg("resolve: %s", err.msg);
	free(text);
}

static void test_plan__each_revision_resolves_against_its_own_tree(void **state)
{
	char *repo = make_repo(), *source = kb_asprintf("tree: %s", repo);
	char *a = rev_parse(repo, "A^{tree}"), *b = rev_parse(repo, "B^{tree}");
	const struct kb_plan_tree *ta, *tb;
	const struct kb_variant *va, *vb;
	struct fixture f;

	(void)state;
	make_resolved(&f, source,
		      "factors:\n  kconfig: { SPIN: [y] }\n"
		      "  kernel: { rev: [A, B] }\n");
	assert_int_equal(kb_plan_nvariants(f.p), 2);
	assert_int_equal(kb_plan_nbuilds(f.p), 2);
	assert_int_equal(kb_plan_ntrees(f.p), 2);
	va = kb_plan_variant(f.p, 0);
	vb = kb_plan_variant(f.p, 1);
	assert_string_not_equal(va->build_key, vb->build_key);
	ta = kb_plan_variant_tree(f.p, 0);
	tb = kb_plan_variant_tree(f.p, 1);
	assert_ptr_equal(ta, kb_plan_tree(f.p, 0));
	assert_ptr_equal(tb, kb_plan_tree(f.p, 1));
	assert_string_equal(ta->rev, "A");
	assert_string_equal(tb->rev, "B");
	assert_string_equal(ta->id + 4, a);
	assert_string_equal(tb->id + 4, b);
	assert_string_not_equal(ta->dir, tb->dir);
	/* each config came from its own tree's olddefconfig */
	assert_null(strstr(kb_plan_resolution(f.p, 0)->config_text,
			   "CONFIG_LOOP=y"));
	assert_non_null(strstr(kb_plan_resolution(f.p, 1)->config_text,
			       "CONFIG_LOOP=y"));
	assert_non_null(kb_plan_compiler(f.p));
	release(&f);
	free(a);
	free(b);
	free(source);
	free(repo);
}

static void test_plan__without_kernel_rev_variants_use_source_rev(void **state)
{
	char *repo = make_repo(), *source = kb_asprintf("tree: %s, rev: A", repo);
	char *a = rev_parse(repo, "A^{tree}");
	struct fixture f;

	(void)state;
	make_resolved(&f, source, "factors:\n  kconfig: { SPIN: [y, n] }\n");
	assert_int_equal(kb_plan_ntrees(f.p), 1);
	assert_int_equal(kb_plan_nbuilds(f.p), 2);
	assert_ptr_equal(kb_plan_variant_tree(f.p, 0),
			 kb_plan_variant_tree(f.p, 1));
	assert_string_equal(kb_plan_variant_tree(f.p, 1)->id + 4, a);
	assert_null(strstr(kb_plan_resolution(f.p, 1)->config_text,
			   "CONFIG_LOOP"));
	release(&f);
	free(a);
	free(source);
	free(repo);
}

static void test_plan__a_variant_alone_resolves_as_in_its_plan(void **state)
{
	char *repo = make_repo(), *source = kb_asprintf("tree: %s", repo);
	struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_plan *alone = NULL;
	struct kb_variant v;
	struct fixture f;

	(void)state;
	make_resolved(&f, source,
		      "factors:\n  kconfig: { SPIN: [y, n] }\n"
		      "  kernel: { rev: [A, B] }\n");
	assert_int_equal(kb_plan_nbuilds(f.p), 4);
	/* a probe such as bisection makes: the settings of variant 3 */
	v = *kb_plan_variant(f.p, 3);
	v.idx = 7;
	v.build_key = "not resolved";
	assert_int_equal(kb_plan_new_variant(f.m, &v, &alone, &err), 0);
	assert_int_equal(kb_plan_nvariants(alone), 1);
	assert_false(kb_plan_is_resolved(alone));
	if (kb_plan_resolve(alone, &o, &err))
		fail_msg("resolve: %s", err.msg);
	assert_int_equal(kb_plan_variant(alone, 0)->idx, 0);
	assert_string_equal(kb_plan_variant(alone, 0)->build_key,
			    kb_plan_variant(f.p, 3)->build_key);
	assert_string_equal(kb_plan_variant_tree(alone, 0)->id,
			    kb_plan_variant_tree(f.p, 3)->id);
	kb_plan_free(alone);
	release(&f);
	free(source);
	free(repo);
}

static void test_plan__builds_are_ordered_tree_by_tree(void **state)
{
	char *repo = make_repo(), *source = kb_asprintf("tree: %s", repo);
	size_t order[4];
	struct fixture f;

	(void)state;
	/* plan order: SPIN=y at A, y at B, n at A, n at B */
	make_resolved(&f, source,
		      "factors:\n  kconfig: { SPIN: [y, n] }\n"
		      "  kernel: { rev: [A, B] }\n");
	kb_build_plan_order(f.p, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	release(&f);
	free(source);
	free(repo);
}

static void test_plan__a_given_tree_refuses_kernel_rev(void **state)
{
	char *repo = make_repo(), *source = kb_asprintf("tree: %s", repo);
	char *text = kb_asprintf(W "source: { %s }\nfactors:\n"
				   "  kernel: { rev: [A, B] }\n",
				 source);
	struct kb_plan_resolve_opts o = KB_PLAN_RESOLVE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct fixture f;

	(void)state;
	make(&f, text);
	o.tree = repo;
	assert_int_equal(kb_plan_resolve(f.p, &o, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "kernel.rev 'A'");
	assert_false(kb_plan_is_resolved(f.p));
	assert_int_equal(kb_plan_ntrees(f.p), 0);
	assert_null(kb_plan_variant_tree(f.p, 0));
	release(&f);
	free(text);
	free(source);
	free(repo);
}


/* Workload, cmdline and sysctl factors: in every design, in the guest
 * shape, never in a build key (issue 13). */
#define RUNTIME                                                           \
	"  workload: { copies: [1, 2], bs: [4k, 64k] }\n"                 \
	"  cmdline: { xen_nopvspin: [off, on] }\n"                        \
	"  sysctl: { kernel.sched_min_granularity_ns: [3000000, 10000000] }\n"
#define RUNTIME_W "workload: { fio: { rw: randread, bs: '{{bs}}' } }\n"

static void test_plan__runtime_factors_full_design(void **state)
{
	struct fixture f;
	const struct kb_variant *v;
	size_t i;

	(void)state;
	make(&f, "factors:\n  kconfig: { PREEMPT: [n, y] }\n" RUNTIME
		 RUNTIME_W);
	assert_int_equal(kb_plan_nvariants(f.p), 32);
	/* the workload, cmdline and sysctl levels never change the kernel */
	assert_int_equal(kb_plan_nbuilds(f.p), 2);
	for (i = 0; i < 32; i++) {
		v = kb_plan_variant(f.p, i);
		assert_string_equal(v->build_key,
				    kb_plan_variant(f.p, i < 16 ? 0 : 16)
					    ->build_key);
	}
	v = kb_plan_variant(f.p, 0);
	assert_string_equal(v->label,
			    "PREEMPT=n workload.copies=1 workload.bs=4k cmdline.xen_nopvspin=off sysctl.kernel.sched_min_granularity_ns=3000000");
	assert_int_equal(v->guest.copies, 1);
	assert_null(v->guest.cmdline);
	assert_int_equal(v->guest.nparams, 1);
	assert_string_equal(v->guest.params[0].name, "bs");
	assert_string_equal(v->guest.params[0].value, "4k");
	assert_int_equal(v->guest.nsysctl, 1);
	assert_string_equal(v->guest.sysctl[0].name,
			    "kernel.sched_min_granularity_ns");
	assert_string_equal(v->guest.sysctl[0].value, "3000000");
	v = kb_plan_variant(f.p, 15);
	assert_string_equal(v->label,
			    "PREEMPT=n workload.copies=2 workload.bs=64k cmdline.xen_nopvspin=on sysctl.kernel.sched_min_granularity_ns=10000000");
	assert_int_equal(v->guest.copies, 2);
	assert_string_equal(v->guest.cmdline, "xen_nopvspin");
	assert_string_equal(v->guest.params[0].value, "64k");
	assert_string_equal(v->guest.sysctl[0].value, "10000000");
	/* the matrix's own guest section stays bare */
	assert_int_equal(kb_matrix_guest(f.m)->copies, 0);
	assert_null(kb_matrix_guest(f.m)->cmdline);
	release(&f);
}

static void test_plan__runtime_factors_fractional_design(void **state)
{
	struct fixture f;
	size_t i, j, builds = 0;

	(void)state;
	/* 6 two-level factors: 2^(6-2), 16 variants, 4 of them kernels */
	make(&f, "design: fractional\n"
		 "factors:\n  kconfig: { A: [n, y], B: [n, y] }\n" RUNTIME
		 RUNTIME_W);
	assert_int_equal(kb_plan_nvariants(f.p), 16);
	assert_int_equal(kb_plan_nbuilds(f.p), 4);
	for (i = 0; i < 16; i++) {
		const struct kb_variant *v = kb_plan_variant(f.p, i);
		const char *copies = kb_variant_get(v, "workload.copies");

		assert_non_null(copies);
		assert_int_equal(v->guest.copies, (unsigned)atoi(copies));
		for (j = 0; j < i; j++)
			if (!strcmp(kb_plan_variant(f.p, j)->build_key,
				    v->build_key))
				break;
		builds += j == i;
		/* the same Kconfig levels, the same build */
		for (j = 0; j < i; j++)
			if (!strcmp(kb_variant_get(kb_plan_variant(f.p, j), "A"),
				    kb_variant_get(v, "A")) &&
			    !strcmp(kb_variant_get(kb_plan_variant(f.p, j), "B"),
				    kb_variant_get(v, "B")))
				assert_string_equal(
					kb_plan_variant(f.p, j)->build_key,
					v->build_key);
	}
	assert_int_equal(builds, 4);
	release(&f);
}

static void test_plan__variant_workload_fills_parameters(void **state)
{
	struct fixture f;
	struct kb_workload_inst wi;
	struct kb_err err = KB_ERR_INIT;
	struct kb_guest g;
	const struct kb_variant *v;

	(void)state;
	make(&f, "factors: { workload: { copies: [1, 3], bs: [4k, 64k] } }\n"
		 "workload:\n  command: { run: 'dd bs={{bs}} count=1 # {{bs}}' }\n");
	v = kb_plan_variant(f.p, 3);
	assert_int_equal(kb_workload_instance(kb_matrix_workload(f.m),
					      &v->guest, &wi, &err),
			 0);
	assert_string_equal(wi.w.command, "dd bs=64k count=1 # 64k");
	assert_int_equal(wi.w.copies, 3);
	kb_workload_inst_release(&wi);
	/* the matrix's workload has no levels to fill */
	memset(&g, 0, sizeof(g));
	assert_int_equal(kb_workload_instance(kb_matrix_workload(f.m), &g, &wi,
					      &err),
			 KB_EINPUT);
	assert_msg_contains(err.msg, "workload parameter '{{bs}}' has no level");
	kb_workload_inst_release(&wi);
	release(&f);
}

/* With conditions, a variant is judged against the baseline at its own
 * level of them; without, against the baseline; the sentinel against
 * the baseline; none when the design lacks it (one-at-a-time). */
static void test_plan__reference_is_the_baseline_at_the_conditions_level(
	void **state)
{
	struct fixture f;

	(void)state;
	make(&f, W "factors:\n  kconfig: { A: [n, y] }\n"
		 "  guest: { vcpus: { levels: [1, 4], condition: true } }\n"
		 "repeat: { sentinel: true }\n");
	/* 0 A=n v1, 1 A=n v4, 2 A=y v1, 3 A=y v4, 4 the sentinel */
	assert_int_equal(kb_plan_nvariants(f.p), 5);
	assert_int_equal(kb_plan_reference(f.p, 0, 0), 0);
	assert_int_equal(kb_plan_reference(f.p, 0, 1), 1);
	assert_int_equal(kb_plan_reference(f.p, 0, 2), 0);
	assert_int_equal(kb_plan_reference(f.p, 0, 3), 1);
	assert_int_equal(kb_plan_reference(f.p, 0, 4), 0);
	assert_int_equal(kb_plan_reference(f.p, 2, 1), 3);
	assert_int_equal(kb_plan_reference(f.p, 0, 9), -1);
	release(&f);

	make(&f, W "factors:\n  kconfig: { A: [n, y] }\n"
		 "  guest: { vcpus: [1, 4] }\n");
	assert_int_equal(kb_plan_reference(f.p, 0, 3), 0);
	release(&f);

	make(&f, W "design: one-at-a-time\nfactors:\n  kconfig: { A: [n, y] }\n"
		 "  guest: { vcpus: { levels: [1, 4], condition: true } }\n");
	/* 0 baseline, 1 A=y, 2 vcpus=4 (its own reference); no A=y at
	 * vcpus=4 */
	assert_int_equal(kb_plan_reference(f.p, 0, 2), 2);
	assert_int_equal(kb_plan_reference(f.p, 0, 1), 0);
	assert_int_equal(kb_plan_reference(f.p, 1, 2), -1);
	release(&f);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_plan__reference_is_the_baseline_at_the_conditions_level),
	cmocka_unit_test(test_plan__runtime_factors_full_design),
	cmocka_unit_test(test_plan__runtime_factors_fractional_design),
	cmocka_unit_test(test_plan__variant_workload_fills_parameters),
	cmocka_unit_test(test_plan__labels_and_baseline),
	cmocka_unit_test(test_plan__whole_plan_is_capped_in_boots_and_samples),
	cmocka_unit_test(test_plan__no_factors_is_an_aa_run),
	cmocka_unit_test(test_plan__sentinel_is_the_baseline_again),
	cmocka_unit_test(test_plan__guest_factors_share_builds),
	cmocka_unit_test(test_plan__build_key_is_stable),
	cmocka_unit_test(
		test_plan__from_stored_matches_the_run_without_its_files),
	cmocka_unit_test(test_plan__pins_follow_vcpus_per_variant),
	cmocka_unit_test(test_plan__fractional_errors_name_the_factor),
	cmocka_unit_test(test_plan__fractional_has_sixteen_runs),
	cmocka_unit_test(test_plan__plackett_burman_errors_name_the_factor),
	cmocka_unit_test(test_plan__plackett_burman_of_twelve_factors_has_twenty_runs),
	cmocka_unit_test(test_plan__oversize_design_is_refused),
	cmocka_unit_test_setup_teardown(
		test_plan__each_revision_resolves_against_its_own_tree,
		setup_tmp, teardown_tmp),
	cmocka_unit_test_setup_teardown(
		test_plan__without_kernel_rev_variants_use_source_rev,
		setup_tmp, teardown_tmp),
	cmocka_unit_test_setup_teardown(
		test_plan__a_variant_alone_resolves_as_in_its_plan,
		setup_tmp, teardown_tmp),
	cmocka_unit_test_setup_teardown(
		test_plan__builds_are_ordered_tree_by_tree, setup_tmp,
		teardown_tmp),
	cmocka_unit_test_setup_teardown(
		test_plan__a_given_tree_refuses_kernel_rev, setup_tmp,
		teardown_tmp),
};

KB_TEST_MAIN(tests)
