/*
 * kbisect: kernel config bisection and A/B testing.  This file holds the
 * table of verbs and the dispatch; each verb lives in its own file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbisect.h"
#include "buf.h"
#include "paths.h"
#include "store.h"
#include "banned.h"

#define KBISECT_VERSION "0.1.0"

static const struct cmd commands[] = {
	{ "plan", cmd_plan, "plan MATRIX [--json] [--allow-dropped] [--quiet]",
	  "validate a matrix and show its variants, builds and boots",
	  "Reads MATRIX (YAML, see docs/matrix.md), expands its design and\n"
	  "prints every variant with its factor levels, how many kernels must\n"
	  "be built and how many guests booted.  Writes nothing.\n\n"
	  "  --json   print an object with variants, builds and boots\n"
	  "  --allow-dropped  accept requested options that do not hold\n"
	  "  --quiet  no progress on stderr\n\n"
	  "With source.tree, every variant's config is resolved with the\n"
	  "tree's Kconfig (make olddefconfig): options that did not hold are\n"
	  "shown with why, and the plan exits 1 (docs/kconfig.md).\n\n"
	  "Example:\n"
	  "  kbisect plan kconfig-matrix/xen-pvops-spinlocks.yaml\n" },
	{ "run", cmd_run,
	  "run MATRIX [--model MODEL] [--db PATH] [--json] [--quiet] [--allow-dropped]",
	  "run an experiment in this process and print its results",
	  "Plans MATRIX, then builds, boots and measures every variant for\n"
	  "repeat.boots boots of repeat.runs_per_boot runs each, storing every\n"
	  "boot and its samples as it ends.  A failed build or boot is stored\n"
	  "with its reason and the run goes on.  Prints a results table.\n\n"
	  "  --model MODEL  use the performance-model executor (docs/model.md)\n"
	  "                 instead of real kernels and guests; without it,\n"
	  "                 guests boot through libvirt on the matrix's first\n"
	  "                 host (docs/guests.md), after any kbisect-* guest\n"
	  "                 left running there is destroyed\n"
	  "  --db PATH      database (default: $KBISECT_DB, else\n"
	  "                 $XDG_DATA_HOME/kbisect/kbisect.db)\n"
	  "  --json         print the results as JSON\n"
	  "  --allow-dropped  run even when requested options do not hold\n"
	  "  --quiet        no progress on stderr\n\n"
	  "Example:\n"
	  "  kbisect run kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
	  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n" },
	{ "results", cmd_results, "results EXPERIMENT [--db PATH] [--json]",
	  "print an experiment's results from the database",
	  "Per variant: boots measured (n), mean of the per-boot means,\n"
	  "relative standard deviation, and the change against the baseline\n"
	  "variant (#0).  Failed builds and boots are listed with their\n"
	  "reason.\n" },
	{ "compare", cmd_compare,
	  "compare EXPERIMENT A B [--adaptive] [--db PATH] [--json]",
	  "compare two variants of an experiment, metric by metric",
	  "A and B are variant numbers (see kbisect results) or exact labels.\n"
	  "Per metric: each side's mean and relative standard deviation over\n"
	  "boots, the change of B against A with a bootstrap confidence\n"
	  "interval, a Mann-Whitney U test, and a verdict: regression or\n"
	  "improvement (significant and at least compare.threshold_pct),\n"
	  "no-change (the interval inside the threshold) or inconclusive.\n\n"
	  "  --adaptive  boot inconclusive variants again, up to\n"
	  "              repeat.max_boots (model experiments)\n\n"
	  "Example:\n  kbisect compare 1 0 4\n" },
	{ "effects", cmd_effects,
	  "effects EXPERIMENT [--metric M] [--db PATH] [--json]",
	  "main effects and two-way interactions of a two-level design",
	  "For full and fractional designs of two-level factors: every\n"
	  "factor's main effect and every pair's interaction, multiplicative\n"
	  "(estimated on the log scale), with confidence intervals and\n"
	  "p-values, ranked by size.  Aliased effects of a fractional design\n"
	  "are named.\n\nExample:\n  kbisect effects 1\n" },
	{ "why", cmd_why,
	  "why EXPERIMENT [--good VARIANT] [--bad VARIANT] [--db PATH] [--json]",
	  "explain a regression: which factor changes cause it",
	  "By default the baseline (#0) is good and the worst variant bad.\n"
	  "Finds the smallest set of the factors in which they differ whose\n"
	  "change alone reproduces the regression; for each, its effect with\n"
	  "a confidence interval and how other factors change it\n"
	  "(interactions).  Inconclusive comparisons get more boots, up to\n"
	  "repeat.max_boots, when the experiment can run again.\n\n"
	  "Example:\n  kbisect why 1\n" },
	{ "history", cmd_history, "history [--db PATH] [--json]",
	  "list the experiments in the database, newest first", "" },
	{ "db", cmd_db, "db [--db PATH]",
	  "print the path of the database kbisect uses",
	  "Open it with the sqlite3 shell or DB Browser for SQLite; start\n"
	  "with the views v_history and v_variant_summary.\n" },
	{ "fio-metrics", cmd_fio_metrics, "fio-metrics FILE [--json]",
	  "print the metrics kbisect takes from a fio JSON output file",
	  "Reads FILE, the output of `fio --output-format=json` (notes fio\n"
	  "prints before the JSON are skipped), and prints per direction\n"
	  "(read, write; trim when fio trimmed) the IOPS and bandwidth (KiB/s)\n"
	  "summed over jobs, the completion latency mean (us, weighted by each\n"
	  "job's I/Os) and p50/p99/p99.9 (us, the largest over jobs), as a\n"
	  "workload run stores them.  A file that is not fio JSON output is\n"
	  "an error naming it (exit status 2).\n\n"
	  "  --json   print an object {\"file\": ..., \"metrics\": {...}}\n\n"
	  "Example:\n  kbisect fio-metrics results/randread.json\n" },
	{ "domxml", cmd_domxml, "domxml MATRIX [--variant N]",
	  "print the libvirt domain XML a variant would boot with",
	  "Plans MATRIX and prints the domain XML of variant N (default 0,\n"
	  "the baseline) as `kbisect run` would start it: hypervisor and\n"
	  "mode, vCPUs and pinning, memory, PCI passthrough, disks, console.\n"
	  "What is made at boot time (the initramfs, the boot folder with the\n"
	  "scratch disk and console log, a kernel not built yet) has a\n"
	  "placeholder path, said in a comment at the top.  See docs/guests.md.\n\n"
	  "Example:\n"
	  "  kbisect domxml kconfig-matrix/xen-pvops-spinlocks.yaml --variant 3\n" },
	{ "build", cmd_build,
	  "build MATRIX [--db PATH] [--json] [--quiet] [--allow-dropped]",
	  "build every variant's kernel without booting anything",
	  "Resolves each variant's config against source.tree (at source.rev)\n"
	  "and builds every distinct one with `make O=DIR bzImage` in a\n"
	  "persistent O= folder per tree, nearest config first, so that Kbuild\n"
	  "recompiles only what changed.  A build key already in the database\n"
	  "or the build cache is not built again; a failed build is stored\n"
	  "with its log's end and the others go on.  Prints what was built,\n"
	  "reused or failed, with times and units compiled.  See docs/builds.md.\n\n"
	  "  --db PATH        database (default: $KBISECT_DB, else the XDG one)\n"
	  "  --json           print the builds as JSON\n"
	  "  --quiet          no progress on stderr\n"
	  "  --allow-dropped  build even when variants collapse into one build\n\n"
	  "Exit status 1 when a build failed.\n\n"
	  "Example:\n"
	  "  kbisect build kconfig-matrix/xen-pvops-spinlocks.yaml\n" },
	{ "bisect", cmd_bisect,
	  "bisect options --good G.config --bad B.config [--matrix M] [--model MODEL] [--db PATH] [--json] [--quiet]\n"
	  "       kbisect bisect commits --good REV --bad REV --matrix M [--model MODEL] [--db PATH] [--json] [--quiet]",
	  "find the option changes that cause a regression",
	  "The options whose levels differ between the good and the bad\n"
	  ".config are the change set; an option moves together with the\n"
	  "changed options it depends on.  Each probe is the good config with\n"
	  "some changes applied, built, booted and measured, and classified\n"
	  "against both ends (more boots while it is inconclusive, up to\n"
	  "repeat.max_boots).  First checks that the ends really differ, then\n"
	  "finds a 1-minimal set of changes that reproduces the regression\n"
	  "(delta debugging): single culprits in about log2(N) probes,\n"
	  "interacting pairs and triples as sets.  Everything is stored as an\n"
	  "experiment with a bisection and its steps (view v_bisection).  See\n"
	  "docs/bisect.md.\n\n"
	  "  --good, --bad  the .config files of the two ends\n"
	  "  --matrix M     repeat, compare and workload.metric settings\n"
	  "                 (default: 3 boots, up to 10, threshold 5%,\n"
	  "                 alpha 0.05, the model's metric)\n"
	  "  --model MODEL  run on the performance-model executor\n"
	  "                 (docs/model.md); required in this version\n"
	  "  --db PATH      database (default: $KBISECT_DB, else the XDG one)\n"
	  "  --json         print the answer and the probes as JSON\n"
	  "  --quiet        no progress on stderr\n\n"
	  "Example:\n"
	  "  kbisect bisect options --good good.config --bad bad.config \\\n"
	  "      --model tests/data/bisect/spinlocks.model.yaml\n\n"
	  "'bisect commits' lists the commits from --good to --bad in the\n"
	  "git repository source.tree (libgit2, topological order), builds\n"
	  "and boots the matrix's baseline variant at each probe (the commit\n"
	  "as kernel.rev) and binary-searches for the first bad commit, as\n"
	  "git bisect does: a probe that cannot be built or measured, or\n"
	  "stays inconclusive, is set aside and the nearest untested commit\n"
	  "tried instead.  The answer is the first bad commit with its\n"
	  "effect against its parent, or the range of candidates.  Without\n"
	  "--model, kernels are built from source and booted through libvirt.\n\n"
	  "Example:\n"
	  "  kbisect bisect commits --good v6.1 --bad v6.2 --matrix m.yaml\n" },
	{ "test", cmd_test,
	  "test --matrix M --baseline ID [--model MODEL] [--db PATH] [--json] [--quiet]",
	  "judge the commit checked out in source.tree, for git bisect run",
	  "Builds and boots the committed HEAD of the matrix's source.tree\n"
	  "(the matrix's baseline variant with HEAD as kernel.rev; uncommitted\n"
	  "changes are not built) and compares it with variant 0 of\n"
	  "experiment ID, boot by boot, with the matrix's compare thresholds;\n"
	  "while inconclusive it boots again, up to repeat.max_boots.  Stored\n"
	  "as an experiment.  Exit status, as git bisect run reads it: 0 good\n"
	  "(no regression), 1 bad (a regression), 125 cannot tell (the build\n"
	  "or boots failed, or still inconclusive), 128 an error (git bisect\n"
	  "stops).  See docs/bisect.md.\n\n"
	  "Example:\n"
	  "  kbisect run m.yaml            # on a good kernel: experiment 7\n"
	  "  git bisect start BAD GOOD\n"
	  "  git bisect run kbisect test --matrix m.yaml --baseline 7\n" },
	{ "submit", cmd_submit,
	  "submit MATRIX [--model MODEL] [--socket PATH] [--json] [--quiet] [--allow-dropped]",
	  "queue an experiment on kbisectd and print its id",
	  "Validates MATRIX (and MODEL) as `run` does, then sends their texts\n"
	  "to the daemon, which stores the experiment and one job per build\n"
	  "and boot before it answers: once the id is printed, the experiment\n"
	  "survives any crash of the daemon.  A bad matrix is refused here\n"
	  "(exit status 2) and never reaches the queue.  See docs/daemon.md.\n\n"
	  "  --model MODEL  run it on the performance model (docs/model.md)\n"
	  "  --socket PATH  the daemon's socket (default: $KBISECT_SOCKET,\n"
	  "                 else $XDG_RUNTIME_DIR/kbisect/kbisectd.sock)\n"
	  "  --json         print {\"id\": N}\n"
	  "  --allow-dropped  submit even when requested options do not hold\n"
	  "  --quiet        no note on stderr\n\n"
	  "Example:\n"
	  "  kbisect submit kconfig-matrix/xen-pvops-spinlocks.yaml \\\n"
	  "      --model kconfig-matrix/xen-pvops-spinlocks.model.yaml\n" },
	{ "status", cmd_status, "status [ID] [--socket PATH] [--json]",
	  "show how far the daemon's experiments got",
	  "For experiment ID, or the daemon's latest experiments: state,\n"
	  "variants, builds and boots done of all, the steps running now, the\n"
	  "measured mean build and boot times and the time left estimated\n"
	  "from them.\n\n"
	  "  --socket PATH  the daemon's socket\n"
	  "  --json         print an object (with ID) or an array\n\n"
	  "Example:\n  kbisect status 3 --json\n" },
	{ "cancel", cmd_cancel, "cancel ID [--socket PATH]",
	  "stop a queued or running experiment after its running step",
	  "No new step of the experiment starts; the steps running now end\n"
	  "and are stored, then the experiment is marked cancelled.  Every\n"
	  "sample measured stays in the database.\n\n"
	  "Example:\n  kbisect cancel 3\n" },
	{ "watch", cmd_watch, "watch ID [--socket PATH]",
	  "follow an experiment's progress until it ends",
	  "A progress bar per phase (builds, boots) with counts, elapsed time\n"
	  "and the time left, redrawn in place on a terminal; otherwise one\n"
	  "line per change.  Exit status 0 when the experiment ends done, 1\n"
	  "when it failed or was cancelled.\n\n"
	  "Example:\n  kbisect watch 3\n" },
};

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void cmd_usage(const struct cmd *c, FILE *f)
{
	fprintf(f, "usage: kbisect %s\n\n%s.\n", c->usage, c->summary);
	if (c->help && *c->help)
		fprintf(f, "\n%s", c->help);
}

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: kbisect VERB [OPTIONS] [ARGS]\n\n"
	      "Find which kernel config option costs performance: describe a\n"
	      "matrix of options, kernels and guest shapes; kbisect builds, boots\n"
	      "and measures every variant and stores every sample in sqlite.\n\n"
	      "verbs:\n",
	      f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\n'kbisect VERB --help' shows a verb's options and examples.\n"
	      "Exit status: 0 ok, 1 failure, 2 bad input or usage.\n",
	      f);
}

int cmd_fail(const struct kb_err *err)
{
	fprintf(stderr, "kbisect: %s\n",
		err->msg[0] ? err->msg : "unknown error");
	return kb_err_exit_status(err->code ? err->code : KB_EFAIL);
}

int cmd_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kbisect %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: kbisect %s\n", cmd_find(verb)->usage);
	return 2;
}

int cmd_open_store(const char *path, struct kb_store **out,
		   struct kb_err *err)
{
	char *def = NULL;
	int ret;

	if (!path)
		path = def = kb_paths_default_db();
	ret = kb_store_open(path, NULL, out, err);
	free(def);
	return ret;
}

int cmd_parse_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	if (*end || v <= 0)
		return -1;
	*out = v;
	return 0;
}

void cmd_put(const struct kb_buf *b)
{
	fwrite(b->buf, 1, b->len, stdout);
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && (c = cmd_find(argv[2]))) {
			cmd_usage(c, stdout);
			return 0;
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbisect %s\n", KBISECT_VERSION);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "kbisect: unknown verb '%s'\n\n", argv[1]);
		usage(stderr);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--")) 
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_usage(c, stdout);
			return 0;
		}
	}
	return c->fn(argc - 1, argv + 1);
}
