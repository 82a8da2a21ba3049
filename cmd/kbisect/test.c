/*
 * `kbisect test`: is the commit checked out in the matrix's source.tree
 * good or bad against a baseline experiment?  Made for `git bisect run`:
 * exit 0 good, 1 bad, 125 cannot tell (skip), 128 an error (git bisect
 * stops).  Also the executor set-up shared with `bisect commits`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "analysis.h"
#include "bisect.h"
#include "bisect_commits.h"
#include "buf.h"
#include "executor.h"
#include "fio.h"
#include "json.h"
#include "matrix.h"
#include "mem.h"
#include "model.h"
#include "plan.h"
#include "realexec.h"
#include "source.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

/* Exit statuses git bisect run understands. */
#define EXIT_GOOD 0
#define EXIT_BAD 1
#define EXIT_SKIP 125
#define EXIT_ABORT 128

static const char *class_word(enum kb_bisect_class c)
{
	return c == KB_BISECT_UNKNOWN ? "inconclusive" : kb_bisect_class_name(c);
}

static int exit_of(enum kb_bisect_class c)
{
	switch (c) {
	case KB_BISECT_GOOD:
		return EXIT_GOOD;
	case KB_BISECT_BAD:
		return EXIT_BAD;
	default:
		return EXIT_SKIP;
	}
}

/* What the commit was judged against: a good commit booted beside it,
 * or the stored boots of a baseline experiment. */
struct against {
	const struct kb_source_commit *good; /* NULL: baseline */
	int64_t baseline;
};

static void print_json(const struct kb_source_commit *c,
		       const struct against *g,
		       const struct kb_bisect_test_result *r)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 1);

	kb_json_object_begin(j);
	kb_json_kv_string(j, "commit", c->sha);
	kb_json_kv_string(j, "summary", c->summary);
	if (g->good)
		kb_json_kv_string(j, "good", g->good->sha);
	else
		kb_json_kv_int(j, "baseline", g->baseline);
	kb_json_kv_bool(j, "side_by_side", g->good != NULL);
	kb_json_kv_int(j, "experiment", r->experiment);
	kb_json_kv_string(j, "classification", class_word(r->cls));
	kb_json_kv_int(j, "exit", exit_of(r->cls));
	if (r->cls == KB_BISECT_SKIP)
		kb_json_kv_string(j, "reason", r->reason);
	else
		cmd_json_comparison(j, "comparison", &r->cmp);
	kb_json_kv_int(j, "builds", r->builds);
	kb_json_kv_int(j, "boots", r->boots);
	kb_json_object_end(j);
	cmd_json_put(j, &b);
}

static void print_text(const struct kb_source_commit *c,
		       const struct against *g,
		       const struct kb_bisect_test_result *r, double alpha)
{
	const struct kb_comparison *e = &r->cmp;

	printf("%.12s %s: %s", c->sha, c->summary, class_word(r->cls));
	if (r->cls == KB_BISECT_SKIP) {
		printf(" (%s)\n", r->reason ? r->reason : "not measured");
	} else if (g->good) {
		printf(" (%s against good %.12s, booted beside it)\n",
		       kb_verdict_name(e->verdict), g->good->sha);
		printf("  %.6g -> %.6g, %s [%s, %s] (%g%% CI),"
		       " p = %.3g; %zu rounds side by side\n",
		       e->a.mean, e->b.mean, kb_format_pct(e->change_pct, 1).s,
		       kb_format_pct(e->ci_low, 1).s, kb_format_pct(e->ci_high, 1).s,
		       100 * (1 - alpha), e->p, e->npairs);
	} else {
		printf(" (%s against experiment %lld variant 0)\n",
		       kb_verdict_name(e->verdict), (long long)g->baseline);
		printf("  %.6g -> %.6g, %s [%s, %s] (%g%% CI),"
		       " p = %.3g; %zu and %zu boots\n",
		       e->a.mean, e->b.mean, kb_format_pct(e->change_pct, 1).s,
		       kb_format_pct(e->ci_low, 1).s, kb_format_pct(e->ci_high, 1).s,
		       100 * (1 - alpha), e->p, e->a.n, e->b.n);
	}
	printf("  stored as experiment %lld; exit %d\n",
	       (long long)r->experiment, exit_of(r->cls));
}

struct test_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *matrix;
	const char *good;
	const char *baseline;
};

static const struct kb_opt test_opts[] = {
	KB_OPT_STRING_REQUIRED(struct test_args, matrix, "matrix", "M",
			       "the matrix whose baseline variant is built, booted and measured"),
	KB_OPT_STRING(struct test_args, good, 0, "good", "REV",
		      "a good revision of source.tree, built and booted beside HEAD in every round"),
	KB_OPT_STRING(struct test_args, baseline, 0, "baseline", "ID",
		      "instead of --good: the stored boots of variant 0 of experiment ID (not side by side: a host's drift since reads as an effect)"),
	KB_OPT_MODEL("use the performance-model executor (docs/model.md) instead of real kernels and guests"),
	KB_OPT_DB,
	KB_OPT_JSON("print the judgement as JSON"),
	KB_OPT_QUIET("no progress on stderr"),
	KB_OPT_END,
};

static int cmd_test(const struct kb_args *args);

const struct cmd cmd_test_entry = {
	.name = "test",
	.rank = 130,
	.opts = test_opts,
	.size = sizeof(struct test_args),
	.fn = cmd_test,
	.summary = "judge the commit checked out in source.tree, for git bisect run",
	.help = "Builds and boots the committed HEAD of the matrix's source.tree\n"
		"(the matrix's baseline variant with HEAD as kernel.rev; uncommitted\n"
		"changes are not built) and judges it with the matrix's compare\n"
		"thresholds.  With --good REV, REV is built once (the build cache\n"
		"keeps it for every later call) and booted beside HEAD: rounds of the\n"
		"two in a fresh order each, judged on the pairs of boots within\n"
		"rounds, so a host's drift falls on both alike; repeat.boots rounds,\n"
		"then one more at a time while inconclusive (each look at the level\n"
		"calibrated for the looks), up to repeat.max_boots.  With --baseline\n"
		"ID, HEAD's boots are compared with the stored boots of variant 0 of\n"
		"experiment ID, measured earlier: cheaper, but a host that drifted\n"
		"since reads as an effect.  Boots go over every host of the matrix\n"
		"as `bisect` boots (a host that fails 3 boots in a row drained; every\n"
		"host drained is an error).  Stored as an experiment.  Exit status, as git bisect run reads it: 0 good\n"
		"(no regression), 1 bad (a regression), 125 cannot tell (the build\n"
		"or boots failed, or still inconclusive), 128 an error (git bisect\n"
		"stops).  See docs/bisect.md.\n"
		CMD_HELP_MACHINES,
	.epilog = "Example:\n"
		  "  git bisect start BAD GOOD\n"
		  "  git bisect run kbisect test --matrix m.yaml --good GOOD\n",
	.usage_status = EXIT_ABORT,
};

static int cmd_test(const struct kb_args *args)
{
	const struct test_args *o = CMD_ARGS(struct test_args, args);
	struct kb_bisect_opts bo = KB_BISECT_OPTS_INIT;
	struct kb_bisect_test_result r;
	struct kb_err err = KB_ERR_INIT;
	const char *matrix_path = o->matrix, *model_path = args->model;
	const char *db = args->db, *baseline_arg = o->baseline;
	struct kb_matrix *m = NULL;
	struct kb_source_commit *head = NULL, *good = NULL;
	struct kb_bisect_commit commit, good_commit;
	struct cmd_commit_env env;
	struct kb_store *s = NULL;
	struct kb_analysis *a = NULL;
	struct against g = { NULL, 0 };
	const double *values;
	char *good_name = NULL;
	size_t nvalues = 0;
	int json = args->json, quiet = args->quiet, ret;

	memset(&env, 0, sizeof(env));
	memset(&r, 0, sizeof(r));
	if (!matrix_path || !(o->good || baseline_arg) ||
	    (o->good && baseline_arg)) {
		cmd_usage_error("test",
				"test needs --matrix and one of --good REV (booted beside HEAD) or --baseline ID");
		return EXIT_ABORT;
	}
	if (baseline_arg && cmd_parse_id(baseline_arg, &g.baseline)) {
		cmd_usage_error("test",
				"--baseline '%s' is not an experiment id",
				baseline_arg);
		return EXIT_ABORT;
	}
	if ((ret = cmd_matrix_load(matrix_path, &m, &err)) ||
	    (ret = cmd_commit_env_open(m, model_path, NULL, quiet, &env,
					&err)) ||
	    (ret = kb_source_resolve(kb_matrix_source(m)->tree, "HEAD", &head,
				     &err)) ||
	    (o->good && (ret = kb_source_resolve(kb_matrix_source(m)->tree,
						  o->good, &good, &err))) ||
	    (ret = cmd_open_store_as(db, o->good ? KB_STORE_CREATE
						 : KB_STORE_EXISTING,
				     &s, &err)) ||
	    (baseline_arg &&
	     (ret = kb_analysis_open(s, g.baseline, env.metric, &a, &err))))
		goto fail;
	cmd_commit_env_store(&env, s);
	cmd_commit_opts(m, &env, &bo);
	g.good = good;
	if (good)
		good_name = kb_asprintf("good %.12s", good->sha);
	else
		good_name = kb_asprintf("experiment %lld variant 0",
					(long long)g.baseline);
	bo.good_name = good ? good->sha : good_name;
	bo.bad_name = head->sha;
	commit.sha = head->sha;
	commit.summary = head->summary;
	if (!quiet)
		fprintf(stderr, "kbisect test: %.12s %s against %s%s\n",
			head->sha, head->summary, good_name,
			good ? ", booted beside it" : "");
	if (good) {
		good_commit.sha = good->sha;
		good_commit.summary = good->summary;
		ret = kb_bisect_test_beside(s, env.ex, &good_commit, &commit,
					    &bo, &r, &err);
	} else {
		values = kb_analysis_values(a, 0, &nvalues);
		ret = kb_bisect_test(s, env.ex, values, nvalues, &commit, &bo,
				     &r, &err);
	}
	if (ret)
		goto fail;
	if (json)
		print_json(head, &g, &r);
	else
		print_text(head, &g, &r, bo.alpha);
	ret = exit_of(r.cls);
	goto out;
fail:
	cmd_fail(&err);
	ret = EXIT_ABORT;
out:
	kb_bisect_test_result_release(&r);
	free(good_name);
	kb_analysis_free(a);
	kb_store_close(s);
	kb_source_commits_free(head, head ? 1 : 0);
	kb_source_commits_free(good, good ? 1 : 0);
	cmd_commit_env_close(&env);
	kb_matrix_free(m);
	return ret;
}
