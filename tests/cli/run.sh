#!/bin/sh
# End-to-end checks of the kbisect command line on the model executor:
# exit statuses, messages, --json, and that bad input never writes the
# database.  Run from the top of the checkout: tests/cli/run.sh [KBISECT]
set -u
KB=${1:-./kbisect}
T=$(mktemp -d /tmp/kb-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
MATRIX=kconfig-matrix/xen-pvops-spinlocks.yaml
MODEL=kconfig-matrix/xen-pvops-spinlocks.model.yaml
pass=0 fail=0

check() { # NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] cli: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] cli: $1"
		echo "  stdout: $(head -c 600 "$T/out")"
		echo "  stderr: $(head -c 600 "$T/err")"
	fi
}

# run CMD...: sets $rc, output in $T/out and $T/err
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

has() { grep -q -- "$1" "$2"; }

json_ok() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"
	else
		echo "  (python3 missing: JSON syntax not checked)"; return 0
	fi
}

run "$KB" --help
check "--help exits 0 and lists verbs" $([ $rc -eq 0 ] && has "history" "$T/out"; echo $?)
run "$KB" frobnicate
check "unknown verb exits 2" $([ $rc -eq 2 ] && has "unknown verb 'frobnicate'" "$T/err"; echo $?)
run "$KB" plan
check "plan without a matrix is a usage error" $([ $rc -eq 2 ] && has "usage: kbisect plan" "$T/err"; echo $?)
run "$KB" run --help
check "run --help teaches with an example" $([ $rc -eq 0 ] && has "Example:" "$T/out"; echo $?)

# options come from one table per verb (lib/util/cmdopt.h): -q wherever
# --quiet is, one message per usage error, usage lines from the table
run "$KB" build -q
check "build -q is accepted (only the matrix is missing)" $([ $rc -eq 2 ] &&
	[ "$(wc -l <"$T/err")" -eq 2 ] && has "^kbisect build: missing MATRIX$" "$T/err" &&
	has "^usage: kbisect build " "$T/err"; echo $?)
run "$KB" plan -q "$MATRIX" --model "$MODEL"
check "plan -q is --quiet" $([ $rc -eq 0 ] && has "variants, " "$T/out"; echo $?)
run "$KB" results -q 1
check "an unknown option: one error line, the usage, exit 2" $([ $rc -eq 2 ] &&
	[ "$(wc -l <"$T/err")" -eq 2 ] &&
	[ "$(head -1 "$T/err")" = "kbisect results: unknown option '-q'" ] &&
	has "^usage: kbisect results EXPERIMENT " "$T/err"; echo $?)
run "$KB" history --frob
check "an unknown long option is named" $([ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 2 ] &&
	has "^kbisect history: unknown option '--frob'$" "$T/err"; echo $?)
run "$KB" results --db
check "an option without its value" $([ $rc -eq 2 ] &&
	has "^kbisect results: option '--db' needs a value$" "$T/err"; echo $?)
run "$KB" test --frob
check "test's usage errors exit 128 (git bisect run stops)" $([ $rc -eq 128 ] &&
	[ "$(wc -l <"$T/err")" -eq 2 ] && has "^usage: kbisect test " "$T/err"; echo $?)
run "$KB" run --help
check "the usage line lists the table's options in order" $([ $rc -eq 0 ] &&
	[ "$(head -1 "$T/out")" = "usage: kbisect run MATRIX [--model MODEL] [--db PATH] [--json] [--quiet] [--allow-dropped] [--max-boots N] [--max-samples N]" ] &&
	has "^  -q, --quiet " "$T/out" && has "^  --db PATH " "$T/out"; echo $?)
run "$KB" bisect --help
check "a verb with sub-verbs has a usage line for each" $([ $rc -eq 0 ] &&
	has "^usage: kbisect bisect options --good G.config --bad B.config \[--matrix M\]" "$T/out" &&
	has "^       kbisect bisect commits --good REV --bad REV --matrix M " "$T/out"; echo $?)
run "$KB" bisect frob
check "an unknown sub-verb is a usage error" $([ $rc -eq 2 ] &&
	has "expected 'options' or 'commits', not 'frob'" "$T/err"; echo $?)
run "$KB" run "$MATRIX" --frob --help
check "--help wins over a bad option" $([ $rc -eq 0 ] && has "^usage: kbisect run " "$T/out"; echo $?)

for m in kconfig-matrix/xen-pvops-spinlocks.yaml kconfig-matrix/dom0-vs-native.yaml kconfig-matrix/vcpu-pinning.yaml; do
	printf 'metric: %s\nbase: 1\n' "$(sed -n 's/^  metric: *\([a-z_.]*\).*/\1/p' "$m")" >"$T/example.model.yaml"
	run "$KB" plan "$m" --model "$T/example.model.yaml"
	check "example $m plans on the model" $([ $rc -eq 0 ] && has "variants, " "$T/out"; echo $?)
done

run "$KB" plan --json "$MATRIX" --model "$MODEL"
check "plan --json has variants, builds and boots" $([ $rc -eq 0 ] &&
	has '"variants"' "$T/out" && has '"builds": 8' "$T/out" &&
	has '"boots": 24' "$T/out" && has '"PARAVIRT_SPINLOCKS": "y"' "$T/out" &&
	has '"guest_image": null' "$T/out" && json_ok "$T/out"; echo $?)
printf 'guest:\n  image: { packages: [sysbench, tar], suite: bookworm }\nworkload: { command: { run: "true" } }\n' > "$T/img-ok.yaml"
printf 'metric: real_s\nbase: 1\n' > "$T/real-model.yaml"
run "$KB" plan --json "$T/img-ok.yaml" --model "$T/real-model.yaml"
check "plan --json: guest_image, its packages and suite" $([ $rc -eq 0 ] &&
	python3 -c 'import json, sys
i = json.load(open(sys.argv[1]))["guest_image"]
sys.exit(i != {"packages": ["sysbench", "tar"], "suite": "bookworm", "size_mib": 0})' "$T/out"; echo $?)

# bad input: exit 2, file:line:col, and no database written
cat >"$T/bad.yaml" <<'Y'
workload: { fio: { rw: randread } }
factors:
  kconfig:
    DEBUG_SPINLOCK: [n, yes]
Y
run "$KB" plan "$T/bad.yaml"
check "bad level: exit 2 with file:line:col" $([ $rc -eq 2 ] && has "$T/bad.yaml:4:25: invalid level 'yes'" "$T/err"; echo $?)
printf 'guest:\n  image: { packages: [sysbench, "fio;x"] }\nworkload: { command: { run: "true" } }\n' > "$T/img.yaml"
run "$KB" plan "$T/img.yaml"
check "guest.image: a bad package name, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/img.yaml:2:33: invalid Debian package name 'fio;x'" "$T/err"; echo $?)
printf 'workload: { command: { run: "true" } }\nhosts: [{ uri: "qemu:///system", pool: "../x" }]\n' > "$T/pool.yaml"
run "$KB" plan "$T/pool.yaml"
check "hosts[].pool: a bad pool name, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/pool.yaml:2:40: invalid storage pool name '../x'" "$T/err"; echo $?)
printf 'workload: { command: { run: "true" }, files: [img.yaml] }\n' > "$T/files.yaml"
run "$KB" plan "$T/files.yaml"
check "workload.files without guest.image: exit 2" $([ $rc -eq 2 ] &&
	has "$T/files.yaml:1:46: workload.files needs guest.image" "$T/err"; echo $?)
run "$KB" run "$T/bad.yaml" --model "$MODEL" --db "$T/bad.db"
check "run with a bad matrix writes no database" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ]; echo $?)
printf 'metric: read_iops\nbase: -1\n' >"$T/bad-model.yaml"
run "$KB" run "$MATRIX" --model "$T/bad-model.yaml" --db "$T/bad.db"
check "run with a bad model: exit 2, no database" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ] && has "bad-model.yaml:2:7" "$T/err"; echo $?)
printf 'metric: write_iops\nbase: 1\n' >"$T/other-model.yaml"
run "$KB" run "$MATRIX" --model "$T/other-model.yaml" --db "$T/bad.db"
check "model and matrix metrics must agree" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ] && has "produces 'write_iops'" "$T/err"; echo $?)

# caps on the whole plan, not only on each part (issue 12): 4096 variants
# x 1000 boots x 1000 runs was accepted and wrote 600 MB in 30 s
{ printf 'name: huge\nworkload: { fio: { rw: randread } }\nrepeat: { boots: 1000, runs_per_boot: 1000 }\nfactors:\n  kconfig:\n'
  for o in A B C D E F G H I J K L; do printf '    %s: [n, y]\n' $o; done; } >"$T/huge.yaml"
run "$KB" plan "$T/huge.yaml"
check "plan over the cap: exit 2 naming the file and the numbers" $([ $rc -eq 2 ] &&
	has "^kbisect: $T/huge.yaml: 4096 variants x 1000 boots (repeat.max_boots) = 4096000 boots, more than the limit of 100000" "$T/err" &&
	has "raise the limit with --max-boots 4096000" "$T/err"; echo $?)
run "$KB" run "$T/huge.yaml" --model "$MODEL" --db "$T/huge.db" --max-boots 4096000
check "run over the cap: exit 2 naming the samples, no database" $([ $rc -eq 2 ] && [ ! -e "$T/huge.db" ] &&
	has "4096000 boots x 1000 runs per boot = 4096000000 samples (workload runs), more than the limit of 1000000" "$T/err"; echo $?)
run "$KB" submit "$T/huge.yaml" --model "$MODEL" --socket "$T/no.sock"
check "submit over the cap: exit 2 before asking the daemon" $([ $rc -eq 2 ] && has "more than the limit of 100000" "$T/err"; echo $?)
printf 'name: big\nworkload: { fio: { rw: randread } }\nfactors: { kconfig: { A: [n, y] } }\nrepeat: { boots: 2, max_boots: 1000, runs_per_boot: 600 }\n' >"$T/big.yaml"
run "$KB" plan "$T/big.yaml" --max-samples 1200000 --model "$MODEL"
check "--max-samples raises the cap" $([ $rc -eq 0 ] && has "2 variants" "$T/out"; echo $?)
run "$KB" plan "$T/big.yaml" --max-samples 12e5
check "--max-samples takes a count" $([ $rc -eq 2 ] && has "^kbisect plan: --max-samples '12e5' is not a number" "$T/err"; echo $?)

# a real run needs its tree
printf 'source: { tree: /nonexistent/kbisect-tree }\nfactors: { kconfig: { A: [n, y] } }\nworkload: { fio: { rw: randread } }\n' >"$T/notree.yaml"
run "$KB" run "$T/notree.yaml" --db "$T/notree.db"
check "a real run with a missing source.tree: exit 2, no database" $([ $rc -eq 2 ] && [ ! -e "$T/notree.db" ] && has "does not exist" "$T/err"; echo $?)

# a newline in a fio value would add lines to fio's job file: refused
# where it was written by every verb that loads a matrix (the daemon
# loads a raw SUBMIT through the same loader: tests/unit/queue.c)
printf 'workload:\n  fio:\n    rw: "randread\\nexec_prerun=touch /tmp/x"\n' >"$T/nl.yaml"
NL_MSG="$T/nl.yaml:3:9: a fio option value contains a control character (U+000A, a newline)"
run "$KB" plan "$T/nl.yaml"
check "plan: a newline in a fio value, exit 2 with file:line:col" $([ $rc -eq 2 ] && has "$NL_MSG" "$T/err"; echo $?)
run "$KB" run "$T/nl.yaml" --model "$MODEL" --db "$T/nl.db"
check "run: the same refusal, no database" $([ $rc -eq 2 ] && has "$NL_MSG" "$T/err" && [ ! -e "$T/nl.db" ]; echo $?)
run "$KB" submit "$T/nl.yaml" --model "$MODEL" --socket "$T/none.sock"
check "submit: the same refusal before any daemon" $([ $rc -eq 2 ] && has "$NL_MSG" "$T/err"; echo $?)

# a prebuilt image has its own config and revision: Kconfig and kernel.rev
# factors cannot apply to it, so the mix is refused where the image is named
: >"$T/bzImage"
printf 'workload: { fio: { rw: randread } }\nfactors:\n  kconfig: { A: [n, y] }\n  kernel: { image: [bzImage] }\n' >"$T/image.yaml"
run "$KB" plan "$T/image.yaml"
check "plan: kernel.image with a Kconfig factor, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/image.yaml:4:13: factor kernel.image cannot be mixed with the Kconfig factor A (line 3)" "$T/err"; echo $?)
printf 'source: { kernel: bzImage }\nfactors: { kernel: { rev: [v1, v2] } }\nworkload: { fio: { rw: randread } }\n' >"$T/image2.yaml"
run "$KB" plan "$T/image2.yaml"
check "plan: source.kernel with kernel.rev and no tree, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/image2.yaml:1:19: source.kernel cannot be mixed with factor kernel.rev (line 2)" "$T/err" &&
	has "build from source.tree instead of source.kernel" "$T/err"; echo $?)

# Xen's toolstack refuses PCI passthrough to a PVH guest: the model runs
# it, plan warns, a real run and submit refuse it before anything starts
printf 'source: { kernel: bzImage }\nguest: { hypervisor: xen, mode: pvh, passthrough: ["0000:01:00.0"] }\nfactors: { guest: { vcpus: [1, 2] } }\nworkload: { fio: { rw: randread } }\n' >"$T/pvhpt.yaml"
PVH_MSG="variant 0 is a Xen PVH guest with 1 PCI passthrough device: Xen's toolstack refuses that"
run "$KB" plan "$T/pvhpt.yaml"
check "plan: PVH with passthrough, exit 2 with file:line:col, as run refuses it" $([ $rc -eq 2 ] && has "^kbisect: $T/pvhpt.yaml:2:51: $PVH_MSG" "$T/err" && [ ! -s "$T/out" ]; echo $?)
run "$KB" plan "$T/pvhpt.yaml" --model "$MODEL"
check "plan --model: PVH with passthrough warns, exit 0" $([ $rc -eq 0 ] && has "warning: $T/pvhpt.yaml:2:51: $PVH_MSG" "$T/err" && has "give the passthrough to guest.mode pv" "$T/err"; echo $?)
run "$KB" run "$T/pvhpt.yaml" --db "$T/pvhpt.db"
check "run: PVH with passthrough, exit 2 with file:line:col before any boot, no database" $([ $rc -eq 2 ] && has "$T/pvhpt.yaml:2:51: $PVH_MSG" "$T/err" && [ ! -e "$T/pvhpt.db" ]; echo $?)
run "$KB" submit "$T/pvhpt.yaml" --socket "$T/none.sock"
check "submit: the same refusal before any daemon" $([ $rc -eq 2 ] && has "$PVH_MSG" "$T/err"; echo $?)

# control characters never reach the terminal: refused in the matrix,
# escaped in messages that quote the input
ESC=$(printf '\033')
printf 'factors:\n  kconfig:\n    CMDLINE: ["", "\\e]0;owned\\a"]\nworkload: { fio: { rw: read } }\n' >"$T/esc.yaml"
run "$KB" plan "$T/esc.yaml"
check "plan: ESC in a quoted level, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/esc.yaml:3:19: invalid string level for CMDLINE: it contains a control character (U+001B, ESC)" "$T/err"; echo $?)
printf 'workload: { fio: { rw: read } }\nrepeat: { boots: "\\e[2J" }\n' >"$T/esc2.yaml"
run "$KB" plan "$T/esc2.yaml"
check "an error quoting ESC prints it escaped" $([ $rc -eq 2 ] && has 'found the string "\\x1b\[2J"' "$T/err" &&
	! grep -q "$ESC" "$T/err"; echo $?)

# plan says what the design's verdicts can decide (issue 29), and
# refuses one whose tests can never reach alpha
# (a real plan: a prebuilt kernel, the guest's shape varied)
: >"$T/bzImage"
printf 'name: one\nsource: { kernel: bzImage }\nguest: { hypervisor: xen }\nworkload: { fio: { rw: randread }, metric: read_iops }\nfactors: { guest: { vcpus: [1, 2], memory_mib: [512, 1024] } }\nrepeat: { boots: 1 }\n' >"$T/one.yaml"
sed 's/boots: 1 }/boots: 3, max_boots: 10 }/' "$T/one.yaml" >"$T/three.yaml"
run "$KB" plan "$T/one.yaml"
check "plan of 1 boot a side: which comparisons cannot decide, exit 2" $([ $rc -eq 2 ] &&
	has "^verdicts: #1 to #3, each against the baseline #0 on read_iops, 1 boot a side" "$T/out" &&
	has "^  CANNOT DECIDE: with 1 boot a side no test can reach alpha 0.05" "$T/out" &&
	has "^kbisect: the design cannot decide: with 1 boot a side no comparison can reach alpha 0.05; raise repeat.boots to 2 or more (3 to pair within rounds), or pass --allow-undecidable$" "$T/err"; echo $?)
run "$KB" plan "$T/one.yaml" --allow-undecidable --json
check "plan --allow-undecidable goes on, and --json says it cannot decide" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"can_decide": false' "$T/out" && has "accepted with --allow-undecidable" "$T/err"; echo $?)
run "$KB" plan "$T/three.yaml" -q
check "plan of 3 boots a side: the smallest change at three noise levels" $([ $rc -eq 0 ] &&
	has "^verdicts: #1 to #3, each against the baseline #0 on read_iops, 3 boots a side paired within rounds: the paired t test of the log ratios and its interval, at alpha 0.05$" "$T/out" &&
	has "^  each calls a change of 7.3% or more at 2% noise, 19.2% or more at 5% noise, 42.0% or more at 10% noise (the threshold is 5%)$" "$T/out"; echo $?)
run "$KB" plan "$MATRIX" --model "$MODEL" -q
check "plan --model: the model's noise, the change it calls, what max_boots reaches" $([ $rc -eq 0 ] &&
	has "^  noise a boot expected: 3.1%, the model's noise.boot_cv 3% and run_cv 1% over 2 runs a boot$" "$T/out" &&
	has "^  each calls a change of 11.4% or more (the interval expected ±11.4%, the threshold 5%); no-change: not at this noise" "$T/out" &&
	has "^  with up to 10 boots a side (compare --adaptive, why), each look at 0.0123: 5.0% or more; no-change: yes$" "$T/out"; echo $?)

# the cost before the time is spent (issue 29): the model's time:, or
# what earlier boots on the hosts took
run "$KB" plan "$MATRIX" --model tests/data/model/seed000.yaml -q
check "plan --model: the time a run is expected to take, and what adaptive sampling may add" $([ $rc -eq 0 ] &&
	has "^time expected: 1.5 h: 8 builds of 7.0 min one after another, 24 boots of 85 s, 1 at a time (the model's time:, in real time unless KBISECT_MODEL_TIME_SCALE says); compare --adaptive and why may add up to 56 boots, 79.3 min more$" "$T/out"; echo $?)
run "$KB" plan "$MATRIX" --model "$MODEL" -q
check "plan --model of a model without time: says it runs at once" $([ $rc -eq 0 ] &&
	has "^time expected: none, the model has no time: and runs at once; compare --adaptive and why may add up to 56 boots$" "$T/out"; echo $?)
run "$KB" plan "$T/three.yaml" -q
check "plan without --model or --db: the time is not known, and says what would tell" $([ $rc -eq 0 ] &&
	has "^time: not known (--model MODEL with time:, or --db PATH of earlier experiments on these hosts, says); compare --adaptive and why may add up to 28 boots$" "$T/out"; echo $?)
{ cat "$MODEL"; printf 'time: { build_s: 0.01, boot_s: 0.01, run_s: 0.01 }\n'; } >"$T/timed.model.yaml"
run env -u KBISECT_MODEL_TIME_SCALE "$KB" run "$MATRIX" --model "$T/timed.model.yaml" --db "$T/timed.db" -q
check "run of a model with time: and no time scale says it runs in real time, and how long" $([ $rc -eq 0 ] &&
	has "^kbisect: note: the model's time: runs in real time, about 1 s for this plan; KBISECT_MODEL_TIME_SCALE=0 runs it at once" "$T/err"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$MATRIX" --model "$T/timed.model.yaml" --db "$T/timed.db" -q
check "run with a time scale says nothing of it" $([ $rc -eq 0 ] && ! has "runs in real time" "$T/err"; echo $?)

# a real run on the model
run "$KB" run "$MATRIX" --model "$MODEL" --db "$T/k.db"
check "run on the seed-000 model" $([ $rc -eq 0 ] && has "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n" "$T/out"; echo $?)
n=$(sqlite3 "$T/k.db" "select count(*) from samples")
check "one sample per run stored (48)" $([ "$n" = 48 ]; echo $?)
n=$(sqlite3 "$T/k.db" "select count(*) from v_variant_summary where n = 3")
check "v_variant_summary shows 8 variants of 3 boots" $([ "$n" = 8 ]; echo $?)
run "$KB" results 1 --db "$T/k.db" --json
check "results --json" $([ $rc -eq 0 ] && has '"change_pct"' "$T/out" && json_ok "$T/out"; echo $?)
# the noise of earlier experiments on the matrix's hosts (here the
# model's boots, moved to the matrix's host)
cp "$T/k.db" "$T/hosts.db"
sqlite3 "$T/hosts.db" "update boots set host = 'xen:///system'"
run "$KB" plan "$T/three.yaml" --db "$T/hosts.db" -q
check "plan --db: the noise the hosts' earlier boots had" $([ $rc -eq 0 ] &&
	has "^  noise a boot expected: 2.7%, that of 24 boots of 1 earlier experiment on these hosts, in the database$" "$T/out" &&
	has "^  each calls a change of 9.9% or more" "$T/out" &&
	has "^time expected: .* 12 boots of .*, 1 at a time (measured: 24 boots of 2 runs on these hosts, not 1, and 0 builds in the database)" "$T/out"; echo $?)
# a boot's time grows with its runs: the model's boots of 2 runs hold for
# a plan of 2 runs, and boots of 1 and 2 runs give a line (10 s and 12 s:
# 8 s + 2 s a run) that a plan of 4 runs reads 16 s from
sed 's/boots: 3, max_boots: 10 }/boots: 3, runs_per_boot: 2, max_boots: 10 }/' "$T/three.yaml" >"$T/two-runs.yaml"
run "$KB" plan "$T/two-runs.yaml" --db "$T/hosts.db" -q
check "plan --db of boots with this plan's runs: their mean" $([ $rc -eq 0 ] &&
	has "^time expected: .* (measured: 24 boots on these hosts and 0 builds in the database)" "$T/out"; echo $?)
sed 's/boots: 3, max_boots: 10 }/boots: 3, runs_per_boot: 4, max_boots: 10 }/' "$T/three.yaml" >"$T/four-runs.yaml"
cp "$T/hosts.db" "$T/lines.db"
sqlite3 "$T/lines.db" "update boots set duration_s = 12; update boots set duration_s = 10 where id % 2 = 0; delete from samples where run_no = 2 and boot_id % 2 = 0"
run "$KB" plan "$T/four-runs.yaml" --db "$T/lines.db" -q --json
check "plan --db fits a boot's time to its runs and expects 4 runs' worth" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cost"]
assert abs(c["boot_s"] - 16) < 1e-6, c
assert "24 boots on these hosts, 8.0 s + 2.0 s a run," in c["source"], c' "$T/out"; echo $?)
run env KBISECT_DB="$T/k.db" "$KB" history
check "history through KBISECT_DB, with the executor that ran each" $([ $rc -eq 0 ] && has "xen-pvops-spinlocks" "$T/out" &&
	has "^ *id  created (UTC) *state *executor *design" "$T/out" && has "^ *1  .*  done  *model  " "$T/out"; echo $?)
run "$KB" history --json --db "$T/k.db"
check "history --json" $([ $rc -eq 0 ] && has '"samples": 48' "$T/out" && json_ok "$T/out"; echo $?)
run "$KB" results 7 --db "$T/k.db"
check "results of a missing experiment: exit 1" $([ $rc -eq 1 ] && has "7" "$T/err"; echo $?)
run "$KB" results seven --db "$T/k.db"
check "results with a bad id: exit 2" $([ $rc -eq 2 ]; echo $?)

# exit statuses (docs/kbisect.1): 2 when what the command says is wrong,
# 1 when what it names (a file, the database, an experiment) is not there
big=9223372036854775808
for v in "results $big" "compare $big 0 4" "effects $big" "why $big"; do
	run "$KB" $v --db "$T/k.db"
	check "$v: an id past int64 is bad input, not clamped (exit 2)" $([ $rc -eq 2 ] &&
		has "'$big' is not an" "$T/err" && ! has "9223372036854775807'" "$T/err"; echo $?)
done
for v in "status $big" "cancel $big" "watch $big"; do
	run "$KB" $v --socket "$T/none.sock"
	check "$v: an id past int64 is bad input (exit 2)" $([ $rc -eq 2 ] &&
		has "'$big' is not an experiment id" "$T/err"; echo $?)
done
run "$KB" test --matrix "$MATRIX" --baseline $big --model "$MODEL" --db "$T/k.db"
check "test --baseline past int64: a usage error, exit 128" $([ $rc -eq 128 ] &&
	has "'$big' is not an experiment id" "$T/err"; echo $?)
for v in "results 7" "compare 7 0 4" "effects 7" "why 7"; do
	run "$KB" $v --db "$T/k.db"
	check "$v: an experiment not in the database exits 1" $([ $rc -eq 1 ] &&
		has "no experiment 7 in" "$T/err"; echo $?)
done
for v in "plan $T/none.yaml" "run $T/none.yaml --db $T/none.db" \
	"run $MATRIX --model $T/none.model.yaml --db $T/none.db" \
	"build $T/none.yaml --db $T/none.db" "submit $T/none.yaml --socket $T/none.sock" \
	"domxml $T/none.yaml" "fio-metrics $T/none.json" \
	"bisect options --good $T/none.config --bad $T/none.config --model $MODEL --db $T/none.db" \
	"bisect commits --good a --bad b --matrix $T/none.yaml --model $MODEL --db $T/none.db"; do
	run "$KB" $v
	check "$(echo "$v" | sed "s|$T/||g; s| --.*||"): a file that does not exist exits 1" $([ $rc -eq 1 ] &&
		has "cannot open '$T/none\." "$T/err" && has "No such file" "$T/err" &&
		[ ! -e "$T/none.db" ]; echo $?)
done
run "$KB" test --matrix "$T/none.yaml" --baseline 1 --model "$MODEL" --db "$T/k.db"
check "test: a file that does not exist is an error, exit 128" $([ $rc -eq 128 ] &&
	has "No such file" "$T/err"; echo $?)
KBD=$(dirname "$KB")/kbisectd
if [ -x "$KBD" ]; then
	cp "$T/k.db" "$T/d.db"
	"$KBD" --socket "$T/d.sock" --db "$T/d.db" --log "$T/d.log" &
	dpid=$!
	i=0
	while [ ! -S "$T/d.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	for v in "status 7" "cancel 7" "watch 7"; do
		run "$KB" $v --socket "$T/d.sock"
		check "$v: an experiment the daemon does not have exits 1" $([ $rc -eq 1 ] &&
			has "no experiment 7 in" "$T/err"; echo $?)
	done
	# without --db and KBISECT_DB, the verbs read the daemon's database
	nodb="env -u KBISECT_DB XDG_DATA_HOME=$T/xdg KBISECT_SOCKET=$T/d.sock"
	run $nodb "$KB" db
	check "db prints the database of the daemon at KBISECT_SOCKET" $([ $rc -eq 0 ] &&
		[ "$(cat "$T/out")" = "$T/d.db" ]; echo $?)
	run $nodb "$KB" results 1
	check "results reads the daemon's database" $([ $rc -eq 0 ] &&
		has "PARAVIRT_SPINLOCKS" "$T/out"; echo $?)
	kill -STOP "$dpid"
	run $nodb "$KB" db
	check "... and passes over a stopped daemon" $([ $rc -eq 0 ] &&
		[ "$(cat "$T/out")" = "$T/xdg/kbisect/kbisect.db" ]; echo $?)
	kill -CONT "$dpid"
	kill "$dpid"; wait "$dpid"
	run $nodb "$KB" db
	check "... and a socket no daemon listens on" $([ $rc -eq 0 ] &&
		[ "$(cat "$T/out")" = "$T/xdg/kbisect/kbisect.db" ]; echo $?)
else
	fail=$((fail + 1)); echo "[  FAILED  ] cli: no kbisectd beside $KB (make kbisectd)"
fi
run env KBISECT_DB="$T/x.db" "$KB" db
check "db prints KBISECT_DB" $([ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$T/x.db" ]; echo $?)
. tests/cli/export-trend.sh
. tests/cli/input.sh
. tests/cli/budget.sh
. tests/cli/profile.sh
run env -u KBISECT_DB XDG_DATA_HOME="$T/xdg" "$KB" db
check "db defaults under XDG_DATA_HOME" $([ "$(cat "$T/out")" = "$T/xdg/kbisect/kbisect.db" ]; echo $?)

# analysis of the seed-000 experiment
run "$KB" why 1 --db "$T/k.db"
check "why names PARAVIRT_SPINLOCKS, its dependence and KMEMLEAK" $([ $rc -eq 0 ] &&
	has "PARAVIRT_SPINLOCKS n -> y" "$T/out" && has "its effect depends on" "$T/out" &&
	has "DEBUG_SPINLOCK=y" "$T/out" && has "an independent regression" "$T/out" &&
	has "^  (confirmed in [0-9]* fresh rounds with #0 (blocks): each round booted #0 and #5 in a drawn order" "$T/out"; echo $?)
run "$KB" why 1 --json --db "$T/k.db"
check "why --json lists culprits and its fresh rounds" $([ $rc -eq 0 ] && has '"culprits"' "$T/out" &&
	has '"option": "PARAVIRT_SPINLOCKS"' "$T/out" && has '"used": "fresh-rounds"' "$T/out" &&
	json_ok "$T/out"; echo $?)
run "$KB" why 1 --good 99 --db "$T/k.db"
check "why with an unknown variant: exit 2" $([ $rc -eq 2 ] && has "no variant '99'" "$T/err"; echo $?)
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02 }\neffects:\n  - when: { A: y }\n    factor: 1.5\n' >"$T/up.model.yaml"
printf 'workload: { fio: { rw: randread } }\nfactors: { kconfig: { A: [n, y] } }\n' >"$T/up.yaml"
run "$KB" run "$T/up.yaml" --model "$T/up.model.yaml" --db "$T/up.db" --quiet
run "$KB" why 1 --db "$T/up.db"
check "why with the baseline worst: says so and exits 0" $([ $rc -eq 0 ] &&
	has "No variant is worse than #0" "$T/out" && ! has "#0 and #0" "$T/err"; echo $?)
run "$KB" why 1 --json --db "$T/up.db"
check "... and so does why --json" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"answer": "nothing-worse"' "$T/out" && has '"culprits": \[\]' "$T/out"; echo $?)
run "$KB" effects 1 --json --db "$T/k.db"
check "effects --json ranks KMEMLEAK first" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	grep -m1 '"name"' "$T/out" | grep -q '"DEBUG_KMEMLEAK"' &&
	has '"name": "PARAVIRT_SPINLOCKS:DEBUG_SPINLOCK"' "$T/out"; echo $?)
run "$KB" compare 1 0 4 --db "$T/k.db"
check "compare prints a verdict" $([ $rc -eq 0 ] && has "read_iops" "$T/out" && has "regression\|inconclusive" "$T/out"; echo $?)
run "$KB" run "$MATRIX" --model "$MODEL" --db "$T/guide.db" --quiet
run "$KB" compare 1 0 4 --adaptive --db "$T/guide.db"
check "compare --adaptive as docs/guide.md shows it: paired within 3 rounds, a regression at the first look" $([ $rc -eq 0 ] &&
	has "regression    read_iops" "$T/out" && has "n = 3 vs 3 boots, 98.8% CI of the change \[-90.6%, -87.4%\], paired t p = 5.53e-05" "$T/out" &&
	has "paired within 3 rounds: the paired t test of the log ratios" "$T/out"; echo $?)
# docs/guide.md's why is what why prints after that compare (effects,
# between them there, boots nothing)
"$KB" why 1 --db "$T/guide.db" >"$T/why.out" 2>/dev/null
awk '/^    \$ \.\/kbisect why 1 --db \/tmp\/x.db$/ { on = 1; next }
	on && /^[^ ]/ { exit } on { sub(/^    /, ""); print }' docs/guide.md |
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$T/why.doc"
check "docs/guide.md's why is what why prints, interactions within rounds" $(cmp -s "$T/why.doc" "$T/why.out" &&
	has "within 3 rounds)$" "$T/why.out"; echo $?)
n=$(sqlite3 "$T/k.db" "select count(*) from analyses where kind in ('why', 'compare', 'main-effect', 'interaction')")
check "analyses are stored" $([ "$n" -ge 8 ]; echo $?)
# the database as a browser reads it (sqlite3 -readonly): every view
# answers; run stored a verdict for every variant, named by its whole
# label and rounded as the tables print it; effects and why are there
# (a copy: a reader of a WAL database leaves its -wal beside it)
cp "$T/k.db" "$T/browse.db"
views=$(sqlite3 -readonly "$T/browse.db" "select name from sqlite_master where type = 'view' order by name")
bad=0
for v in $views; do
	sqlite3 -readonly "$T/browse.db" "select * from $v" >/dev/null 2>"$T/err" && [ ! -s "$T/err" ] || bad=1
done
check "sqlite3 -readonly reads every view ($(echo $views | wc -w) of them)" $([ $bad -eq 0 ] &&
	echo "$views" | grep -qx v_verdicts && echo "$views" | grep -qx v_effects &&
	echo "$views" | grep -qx v_why; echo $?)
run sqlite3 -readonly -separator '|' "$T/browse.db" "select variant_idx, variant, change_pct, ci_low_pct, ci_high_pct, p, verdict from v_verdicts where experiment_id = 1"
check "v_verdicts: the baseline and a verdict for each of the 7 others, by label, rounded" $([ $rc -eq 0 ] &&
	[ "$(wc -l <"$T/out")" = 8 ] && [ "$(grep -v '^0|' "$T/out" | grep -c '||')" = 0 ] &&
	has "^0|PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n|||||baseline$" "$T/out" &&
	has "^1|PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=y|-94.0|-94.4|-93.7|2.21e-05|regression$" "$T/out" &&
	awk -F'|' '$7 != "baseline" && ($3 !~ /^-?[0-9]+\.[0-9]$/ || $4 !~ /^-?[0-9]+\.[0-9]$/ || $5 !~ /^-?[0-9]+\.[0-9]$/ || length($6) > 8) { bad = 1 } END { exit bad }' "$T/out"; echo $?)
run sqlite3 -readonly -separator '|' "$T/browse.db" "select effect, change_pct, significant from v_effects where experiment_id = 1"
check "v_effects: the effects by name, rounded, with their call" $([ $rc -eq 0 ] &&
	has "^DEBUG_KMEMLEAK|-[0-9]*\.[0-9]|1$" "$T/out" &&
	awk -F'|' '$2 !~ /^-?[0-9]+\.[0-9]$/ { bad = 1 } END { exit bad }' "$T/out"; echo $?)
run sqlite3 -readonly -separator '|' "$T/browse.db" "select good, bad, verdict from v_why where experiment_id = 1"
check "v_why: why's answer by the variants' labels" $([ $rc -eq 0 ] && [ "$(wc -l <"$T/out")" = 1 ] &&
	has "^PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n|PARAVIRT_SPINLOCKS=y DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=y|regression$" "$T/out"; echo $?)
# what works on model experiments only says so and exits 2 on others
cp "$T/k.db" "$T/real.db"
sqlite3 "$T/real.db" "update experiments set model_yaml = NULL, executor = 'libvirt'"
run "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config --db "$T/real.db"
check "bisect options without --model or --matrix: exit 2, says what it needs" $([ $rc -eq 2 ] &&
	has "on real kernels needs --matrix M" "$T/err"; echo $?)
printf 'workload: { fio: { rw: read } }\n' >"$T/notree.yaml"
run "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config --matrix "$T/notree.yaml" --db "$T/nt.db"
check "bisect options on real kernels without source.tree: exit 2, nothing stored" $([ $rc -eq 2 ] &&
	has "notree.yaml: bisecting options on real kernels needs source.tree" "$T/err" &&
	[ ! -e "$T/nt.db" ]; echo $?)
printf 'source: { tree: %s }\nworkload: { fio: { rw: read } }\n' "$T/no-such-tree" >"$T/gone.yaml"
run "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config --matrix "$T/gone.yaml" --db "$T/nt.db"
check "bisect options with a missing source.tree: exit 1, names it, nothing stored" $([ $rc -eq 1 ] &&
	has "no-such-tree" "$T/err" && [ ! -e "$T/nt.db" ]; echo $?)

# verbs that read never create a database, never change one they refuse,
# and read one they cannot write
for v in "results 1" "history" "compare 1 0 4" "effects 1" "why 1"; do
	run "$KB" $v --db "$T/nowhere/x.db"
	check "${v%% *} on a missing database: exit 1, nothing created" $([ $rc -eq 1 ] &&
		has "no database at '$T/nowhere/x.db'" "$T/err" && [ ! -e "$T/nowhere" ]; echo $?)
done
sqlite3 "$T/other.db" "create table contacts (name text); insert into contacts values ('ada')"
sum=$(cksum <"$T/other.db")
for v in "results 1" "history" "compare 1 0 4" "effects 1" "why 1" \
	"run $MATRIX --model $MODEL"; do
	run "$KB" $v --db "$T/other.db"
	check "${v%% *} refuses another program's database and leaves it as it was" $([ $rc -eq 1 ] &&
		has "another program" "$T/err" && [ "$(cksum <"$T/other.db")" = "$sum" ] &&
		[ "$(sqlite3 "$T/other.db" "pragma journal_mode")" = delete ] &&
		[ ! -e "$T/other.db-wal" ]; echo $?)
done
# a WAL database closed cleanly, 0444 in a 0555 folder; root writes
# whatever the modes say, so read it as nobody too
[ ! -e "$T/k.db-wal" ] && mkdir "$T/ro" && cp "$T/k.db" "$T/ro/k.db" &&
	chmod 0444 "$T/ro/k.db" && chmod 0555 "$T/ro" && chmod 0755 "$T"
was=$(cksum <"$T/ro/k.db"; stat -c %y "$T/ro/k.db"; ls "$T/ro")
for v in "results 1" "history"; do
	run "$KB" $v --db "$T/ro/k.db"
	check "${v%% *} writes nothing to the database" $([ $rc -eq 0 ] &&
		[ "$(cksum <"$T/ro/k.db"; stat -c %y "$T/ro/k.db"; ls "$T/ro")" = "$was" ]; echo $?)
done
reader=
if [ "$(id -u)" != 0 ]; then
	reader=self
elif id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
	reader=nobody
fi
as_reader() {
	if [ "$reader" = nobody ]; then
		setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups "$@"
	else
		"$@"
	fi
}
if [ -n "$reader" ] && as_reader test -x "$KB" && ! as_reader test -w "$T/ro/k.db"; then
	for v in "results 1" "history" "compare 1 0 4" "effects 1" "why 1"; do
		run as_reader "$KB" $v --db "$T/ro/k.db"
		check "${v%% *} reads a read-only database (as $reader)" $([ $rc -eq 0 ] &&
			! has "readonly database" "$T/err" &&
			[ "$(cksum <"$T/ro/k.db"; stat -c %y "$T/ro/k.db"; ls "$T/ro")" = "$was" ]; echo $?)
	done
	check "... and says its answer is not stored" $(has "not stored" "$T/err"; echo $?)
	run as_reader "$KB" compare 1 0 4 --adaptive --db "$T/ro/k.db"
	check "compare --adaptive on a read-only database: exit 1, says why" $([ $rc -eq 1 ] &&
		has "adds boots, but the database cannot be written here" "$T/err"; echo $?)
else
	echo "[  SKIPPED ] cli: no user to read a read-only database as (root ignores file modes)"
fi
chmod 0755 "$T/ro"

# text stored before these checks (or by another tool) is escaped
# when printed: a name and a label with ESC, a failure with BEL
cp "$T/k.db" "$T/esc.db"
sqlite3 "$T/esc.db" "update experiments set name = 'x' || char(27) || '[2J' where id = 1;
update variants set label = label || char(27) || ']0;owned' || char(7) where idx = 1;"
run "$KB" history --db "$T/esc.db"
check "history escapes a stored name" $([ $rc -eq 0 ] && has 'x\\x1b\[2J' "$T/out" && ! grep -q "$ESC" "$T/out"; echo $?)
run "$KB" results 1 --db "$T/esc.db"
check "results escapes a stored name and label" $([ $rc -eq 0 ] && has 'experiment 1 "x\\x1b\[2J"' "$T/out" &&
	has '\\x1b\]0;owned\\x07' "$T/out" && ! grep -q "$ESC" "$T/out" && ! grep -q "$(printf '\007')" "$T/out"; echo $?)

# results from different environments are never compared silently
run "$KB" compare 1 0 4 --db "$T/k.db"
check "one environment: no warning" $([ $rc -eq 0 ] && ! has "different environments" "$T/err"; echo $?)
sqlite3 "$T/k.db" "update boots set environment = '{\"uri\":\"qemu:///a\"}' where boot_no % 2 = 0; update boots set environment = '{\"uri\":\"qemu:///b\"}' where boot_no % 2 = 1"
run "$KB" compare 1 0 4 --db "$T/k.db" --json
check "boots from two environments: compare warns" $([ $rc -eq 0 ] && has "ran in 2 different environments" "$T/err" && has '"environments": 2' "$T/out"; echo $?)
run "$KB" results 1 --db "$T/k.db"
check "... and so does results" $([ $rc -eq 0 ] && has "different environments" "$T/err"; echo $?)

# a metric that only other variants measured (a command's copy 4 beside
# variants of 2 copies) is left out of compare's rows, not shown as nan
cp "$T/k.db" "$T/absent.db"
sqlite3 "$T/absent.db" "insert into samples (boot_id, run_no, metric, value) select b.id, 1, 'extra', 1.5 + b.boot_no from boots b join variants v on v.id = b.variant_id where v.idx = 2"
run "$KB" compare 1 0 4 --db "$T/absent.db"
check "compare leaves out a metric neither variant measured, and says so" $([ $rc -eq 0 ] &&
	! has "nan" "$T/out" && ! has " extra$" "$T/out" &&
	has "^(1 metric of the experiment measured in neither variant left out)$" "$T/out"; echo $?)
run "$KB" compare 1 0 2 --db "$T/absent.db"
check "... and shows it where one variant has it, '-' on the other side" $([ $rc -eq 0 ] &&
	has "^ *- *- *- *[0-9.]* .* extra$" "$T/out" && ! has "nan" "$T/out" &&
	! has "measured in neither variant" "$T/out"; echo $?)

# a metric that is 0 in every boot of both variants (a read job's
# write_iops) is left out of compare's rows and counted; where one
# variant has a value it is shown
cp "$T/k.db" "$T/zeroes.db"
sqlite3 "$T/zeroes.db" "insert into samples (boot_id, run_no, metric, value) select b.id, 1, 'zeroes', case when v.idx = 2 then 1 else 0 end from boots b join variants v on v.id = b.variant_id"
run "$KB" compare 1 0 4 --db "$T/zeroes.db"
check "compare leaves out a metric 0 in every boot of both, and says so" $([ $rc -eq 0 ] &&
	! has " zeroes$" "$T/out" &&
	has "^(1 metric 0 in every boot of both variants left out)$" "$T/out"; echo $?)
run "$KB" compare 1 0 2 --db "$T/zeroes.db"
check "... and shows it where one variant is not 0" $([ $rc -eq 0 ] && has " zeroes$" "$T/out" &&
	! has "0 in every boot" "$T/out"; echo $?)

# a change that is not a number (a mean of 0) prints "-", never "nan%"
cp "$T/k.db" "$T/zero.db"
sqlite3 "$T/zero.db" "update samples set value = 0 where boot_id in (select b.id from boots b join variants v on v.id = b.variant_id where v.idx = 0)"
run "$KB" compare 1 0 4 --db "$T/zero.db"
check "compare against a mean of 0 prints '-', not nan" $([ $rc -eq 0 ] &&
	! has "nan" "$T/out" && has "CI of the change \[-, -\]" "$T/out"; echo $?)
run "$KB" results 1 --db "$T/zero.db"
check "... and so does results" $([ $rc -eq 0 ] && ! has "nan" "$T/out"; echo $?)
# a model whose values overflow is refused before anything is stored
printf 'metric: read_iops\nbase: 1e308\n' >"$T/huge-model.yaml"
run "$KB" run "$MATRIX" --model "$T/huge-model.yaml" --db "$T/huge.db"
check "a model overflowing to infinity: exit 2, no database" $([ $rc -eq 2 ] && [ ! -e "$T/huge.db" ] &&
	has "huge-model.yaml:2:7: 'base' 1e308" "$T/err" && has "overflow to infinity" "$T/err"; echo $?)

# an interrupted run is never left running; resume loses no boot and
# runs none twice (issue 12).  Model boots of 0.2 s (docs/model.md).
printf 'metric: read_iops\nbase: 522000\nnoise: { boot_cv: 0.03 }\ntime: { boot_s: 0.2 }\n' >"$T/slow.yaml"
# wait_boots DB N: until DB holds N boots (at most 20 s)
wait_boots() {
	i=0
	while [ $i -lt 200 ]; do
		if [ -e "$1" ] && [ "$(sqlite3 "$1" "select count(*) from boots" 2>/dev/null)" -ge "$2" ] 2>/dev/null; then
			return 0
		fi
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
KBISECT_MODEL_TIME_SCALE=1 "$KB" run "$MATRIX" --model "$T/slow.yaml" --db "$T/int.db" >"$T/out" 2>"$T/err" &
pid=$!
wait_boots "$T/int.db" 3
kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM: exit 143, interrupted, says kbisect resume" $([ $rc -eq 143 ] &&
	has "experiment 1 interrupted by SIGTERM after [0-9]* of 24 boots" "$T/err" &&
	has "'kbisect resume 1 --db $T/int.db' carries it on" "$T/err" &&
	[ "$(sqlite3 "$T/int.db" "select state from experiments where id = 1")" = interrupted ]; echo $?)
KBISECT_MODEL_TIME_SCALE=1 "$KB" run "$MATRIX" --model "$T/slow.yaml" --db "$T/int.db" >"$T/out" 2>"$T/err" &
pid=$!
wait_boots "$T/int.db" "$(($(sqlite3 "$T/int.db" "select count(*) from boots") + 2))"
kill -KILL $pid; wait $pid 2>/dev/null
run "$KB" history --db "$T/int.db"
check "SIGKILL: history shows it interrupted, writing nothing" $([ $rc -eq 0 ] &&
	grep -q "^   2  .*  interrupted  " "$T/out" &&
	[ "$(sqlite3 "$T/int.db" "select state from experiments where id = 2")" = running ]; echo $?)
run "$KB" results 2 --db "$T/int.db"
check "results of a killed run says how to resume it" $([ $rc -eq 0 ] &&
	has "interrupted: .*'kbisect resume 2' carries it on" "$T/out"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" resume 1 --db "$T/int.db" --json
check "resume completes the interrupted run" $([ $rc -eq 0 ] && has '"state": "done"' "$T/out" && json_ok "$T/out"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" resume 2 --db "$T/int.db" -q
check "resume completes the killed run" $([ $rc -eq 0 ] && has "\"xen-pvops-spinlocks\": done" "$T/out"; echo $?)
n=$(sqlite3 "$T/int.db" "select count(*) || ' ' || count(distinct b.variant_id || '/' || b.boot_no) from boots b join variants v on v.id = b.variant_id group by v.experiment_id" | sort -u)
m=$(sqlite3 "$T/int.db" "select count(*) from samples")
check "no boot lost or duplicated: 24 boots each, 48 samples each" $([ "$n" = "24 24" ] && [ "$m" = 96 ]; echo $?)
run "$KB" resume 1 --db "$T/int.db"
check "resume refuses a done experiment" $([ $rc -eq 2 ] && has "experiment 1 is done" "$T/err"; echo $?)
run "$KB" resume 9 --db "$T/int.db"
check "resume of an unknown experiment: exit 1" $([ $rc -eq 1 ] && has "no experiment 9" "$T/err"; echo $?)

# the metric's direction is declared (workload.better), not guessed
run "$KB" plan "$MATRIX" --model "$MODEL"
check "plan shows the metric's direction" $([ $rc -eq 0 ] && has "^read_iops: higher is better" "$T/out"; echo $?)
cat >"$T/ops.yaml" <<'Y'
workload:
  command: { run: bench, regex: "([0-9.]+) ops/s" }
  metric: ops_per_s
  better: higher
factors: { kconfig: { A: [n, y], B: [n, y] } }
Y
printf 'metric: ops_per_s\nbase: 1000\nnoise: { boot_cv: 0.03 }\neffects:\n  - when: { A: y }\n    factor: 0.79\n' >"$T/ops.model.yaml"
run "$KB" plan "$T/ops.yaml" --model "$T/ops.model.yaml"
check "plan shows a declared direction" $([ $rc -eq 0 ] && has "^ops_per_s: higher is better (workload.better)" "$T/out"; echo $?)
sed '/better:/d' "$T/ops.yaml" >"$T/ops-guess.yaml"
run "$KB" plan --json "$T/ops-guess.yaml" --model "$T/ops.model.yaml"
check "plan says when it guessed the direction" $([ $rc -eq 0 ] && has '"better_source": "guessed"' "$T/out" &&
	has "guessed from the name: declare workload.better" "$T/err"; echo $?)
sed 's/better: higher/better: up/' "$T/ops.yaml" >"$T/ops-bad.yaml"
run "$KB" plan "$T/ops-bad.yaml"
check "workload.better is higher or lower" $([ $rc -eq 2 ] && has "ops-bad.yaml:4:11: invalid workload.better 'up'" "$T/err"; echo $?)
run "$KB" run "$T/ops.yaml" --model "$T/ops.model.yaml" --db "$T/ops.db"
run "$KB" compare 1 0 2 --adaptive --db "$T/ops.db"
check "a 21% loss of declared throughput is a regression" $([ $rc -eq 0 ] && has "regression *ops_per_s" "$T/out" &&
	has "higher is better (workload.better)" "$T/out" && has "level for each of 8 looks (Pocock's boundary calibrated for it)" "$T/out"; echo $?)
check "compare pairs the boots of a blocks experiment within its rounds" $([ $rc -eq 0 ] &&
	has "paired within [0-9]* rounds" "$T/out" && has "paired t p = " "$T/out"; echo $?)
run "$KB" compare 1 0 2 --json --db "$T/ops.db"
check "compare --json says it paired, with which test" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"pairing": "paired"' "$T/out" && has '"test": "paired-t"' "$T/out" && has '"futile": false' "$T/out"; echo $?)
{ cat "$T/ops.yaml"; echo "repeat: { order: sequential }"; } >"$T/ops-seq.yaml"
run "$KB" run "$T/ops-seq.yaml" --model "$T/ops.model.yaml" --db "$T/ops-seq.db" --quiet
run "$KB" compare 1 0 2 --db "$T/ops-seq.db"
check "compare of a sequential experiment is unpaired, and says why" $([ $rc -eq 0 ] &&
	has "unpaired: no round holds boots of both" "$T/out" && has "Welch t on the logs p = " "$T/out"; echo $?)
printf 'metric: ops_per_s\nbase: 1000\nnoise: { boot_cv: 0.05 }\nseed: 4\n' >"$T/ops-null.model.yaml"
run "$KB" run "$T/ops.yaml" --model "$T/ops-null.model.yaml" --db "$T/ops-null.db" --quiet
run "$KB" compare 1 0 2 --adaptive --db "$T/ops-null.db"
check "compare --adaptive of no change stops before max_boots (3 + 7 a side)" $([ $rc -eq 0 ] &&
	has "inconclusive\|no-change" "$T/out" && [ "$(sqlite3 "$T/ops-null.db" "select count(*) from boots")" -lt 26 ]; echo $?)
run "$KB" effects 1 --db "$T/ops.db"
check "effects show the direction and Holm-adjusted p" $([ $rc -eq 0 ] && has "^ops_per_s: higher is better" "$T/out" &&
	has "p Holm" "$T/out"; echo $?)
run "$KB" effects 1 --json --db "$T/ops.db"
check "effects --json has p_adjusted" $([ $rc -eq 0 ] && has '"p_adjusted"' "$T/out" && has '"adjustment": "holm"' "$T/out" &&
	has '"better": "higher"' "$T/out" && json_ok "$T/out"; echo $?)
run "$KB" results 1 --json --db "$T/ops.db"
check "results --json reads the declared direction" $([ $rc -eq 0 ] && has '"better_source": "declared"' "$T/out"; echo $?)

# screening designs (issue 16): Plackett-Burman and 32-run fractions,
# with their alias tables in plan and their aliases in effects
opts() { i=1 s=; while [ $i -le "$1" ]; do s="$s${s:+, }O$i: [n, y]"; i=$((i + 1)); done; echo "$s"; }
screen_matrix() { # DESIGN NFACTORS FILE
	printf 'workload: { fio: { rw: randread } }\ndesign: %s\nfactors: { kconfig: { %s } }\nrepeat: { boots: 2 }\n' \
		"$1" "$(opts "$2")" >"$3"
}
screen_matrix plackett-burman 12 "$T/pb.yaml"
run "$KB" plan "$T/pb.yaml" --model "$MODEL"
check "plan of a Plackett-Burman design: 20 runs, letters, the caveat and the alias table" $([ $rc -eq 0 ] &&
	has "^plackett-burman design: 20 runs for 12 two-level factors, resolution III" "$T/out" &&
	has "^  J = O9$" "$T/out" && has "^main effects are clear of each other but partially aliased" "$T/out" &&
	has "^  A  -3/5: BJ CF GL +1/5: " "$T/out" && has "^20 variants" "$T/out"; echo $?)
run "$KB" plan --json "$T/pb.yaml" --model "$MODEL"
check "plan --json gives letters and each alias with its coefficient" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"letter": "J"' "$T/out" && has '"fraction": "-3/5"' "$T/out"; echo $?)
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02 }\nseed: 3\neffects:\n  - when: { O2: y }\n    factor: 0.5\n' >"$T/pb.model.yaml"
run "$KB" run "$T/pb.yaml" --model "$T/pb.model.yaml" --db "$T/pb.db" --quiet
run "$KB" effects 1 --db "$T/pb.db"
check "effects of a Plackett-Burman design: main effects only, partial aliases stated" $([ $rc -eq 0 ] &&
	has "^   1  O2 .* partially aliased with 55 two-way interactions (±1/5 or ±3/5 each)$" "$T/out" &&
	! has "^ *[0-9][0-9]*  O[0-9]*:" "$T/out" && has "^Plackett-Burman design: main effects only" "$T/out"; echo $?)
run "$KB" history --db "$T/pb.db"
check "history: plackett-burman fits its column, the metric under its heading" $([ $rc -eq 0 ] &&
	has "  plackett-burman  read_iops " "$T/out" &&
	[ "$(awk 'NR == 1 { h = index($0, "metric") } NR == 2 { print (index($0, "read_iops") == h) }' "$T/out")" = 1 ]; echo $?)
run "$KB" effects 1 --json --db "$T/pb.db"
check "effects --json lists the aliases with their coefficients" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"design": "plackett-burman"' "$T/out" && has '"effect": "O1:O3"' "$T/out" &&
	has '"fraction": "-1/5"' "$T/out"; echo $?)
screen_matrix fractional 16 "$T/f16.yaml"
run "$KB" plan "$T/f16.yaml" --model "$MODEL"
check "plan of 16 factors: 2^(16-11) IV in 32 runs with its alias chains" $([ $rc -eq 0 ] &&
	has "^fractional 2^(16-11) design, resolution IV, generators F=ABC G=ABD" "$T/out" &&
	has "^  AB = CF = DG = EH = JM = KN = LO = PQ$" "$T/out" && has "^32 variants" "$T/out"; echo $?)
screen_matrix fractional 17 "$T/f17.yaml"
run "$KB" plan "$T/f17.yaml"
check "a fractional design of 17 factors: exit 2, points at plackett-burman" $([ $rc -eq 2 ] &&
	has "f17.yaml:3:.*: a fractional design takes at most 16 two-level factors, and O17 is the 17th: use design: plackett-burman" "$T/err"; echo $?)

# analysis verbs read the database alone (issue 10): the same bytes from
# another folder, and on a copy after the matrix and every file it names
# are gone.  The run is from $T with a relative matrix path, stored
# absolute; the metric's direction is declared against its name's guess.
KBA=$(cd "$(dirname "$KB")" && pwd)/$(basename "$KB")
mkdir -p "$T/mv/exp/tree" "$T/mv/exp/frag" "$T/mv/other"
printf 'CONFIG_X=y\n' >"$T/mv/exp/frag/a.config"
: >"$T/mv/exp/disk.img"
cat >"$T/mv/exp/m.yaml" <<'Y'
source: { tree: tree, fragments: [frag/a.config] }
factors: { kconfig: { A: [n, y], B: [n, y] } }
guest: { disks: [disk.img] }
workload:
  command: { run: bench, regex: "([0-9.]+) ops/s" }
  metric: ops_per_s
  better: lower
repeat: { boots: 3, max_boots: 6 }
Y
printf 'metric: ops_per_s\nbase: 1000\nnoise: { boot_cv: 0.03 }\neffects:\n  - when: { A: y }\n    factor: 1.3\n' >"$T/mv/exp/m.model.yaml"
(cd "$T/mv" && KBISECT_MODEL_TIME_SCALE=0 "$KBA" run exp/m.yaml --model exp/m.model.yaml --db "$T/mv/k.db" -q) >"$T/out" 2>"$T/err"
rc=$?
check "run stores the matrix's path absolute" $([ $rc -eq 0 ] &&
	[ "$(sqlite3 "$T/mv/k.db" "select matrix_path from experiments")" = "$T/mv/exp/m.yaml" ]; echo $?)
i=0
for v in "results 1" "results 1 --json" "compare 1 0 3" "compare 1 0 3 --json" \
	"compare 1 0 1 --adaptive" "effects 1" "effects 1 --json" "why 1" "why 1 --json"; do
	i=$((i + 1))
	cp "$T/mv/k.db" "$T/mv/here$i.db"
	cp "$T/mv/k.db" "$T/mv/other$i.db"
	(cd "$T/mv" && "$KBA" $v --db "$T/mv/here$i.db") >"$T/mv/here$i.out" 2>"$T/err"
	rc=$?
	(cd / && "$KBA" $v --db "$T/mv/other$i.db") >"$T/out" 2>>"$T/err"
	check "$v: the same output from another folder" $([ $rc -eq 0 ] &&
		cmp -s "$T/mv/here$i.out" "$T/out"; echo $?)
done
rm -rf "$T/mv/exp"
i=0
for v in "results 1" "results 1 --json" "compare 1 0 3" "compare 1 0 3 --json" \
	"compare 1 0 1 --adaptive" "effects 1" "effects 1 --json" "why 1" "why 1 --json"; do
	i=$((i + 1))
	cp "$T/mv/k.db" "$T/mv/other/copy.db"
	(cd "$T/mv/other" && "$KBA" $v --db copy.db) >"$T/out" 2>"$T/err"
	rc=$?
	check "$v: the same output on a copy, the files it names removed" $([ $rc -eq 0 ] &&
		cmp -s "$T/mv/here$i.out" "$T/out"; echo $?)
done
check "... and the declared direction stands" $(has '"better_source": "declared"' "$T/mv/here2.out" &&
	has "lower is better (workload.better)" "$T/mv/here3.out"; echo $?)

# real experiments (executor libvirt) add boots through the real executor,
# here libvirt's test driver (in process): the stored builds have no
# kernel image, so each added boot is stored as a failure, which stops
# the sampling (issue 10)
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/ops.yaml" --model "$T/ops.model.yaml" --db "$T/lv.db" -q >/dev/null
sqlite3 "$T/lv.db" "update experiments set model_yaml = NULL, executor = 'libvirt', matrix_yaml = matrix_yaml || 'hosts: [test:///default]
guest: { hypervisor: qemu, boot_timeout_s: 1 }
'"
run "$KB" compare 1 0 1 --adaptive --db "$T/lv.db"
check "compare --adaptive on a real experiment boots through libvirt" $([ $rc -eq 0 ] &&
	has "inconclusive *ops_per_s" "$T/out" &&
	has "^kbisect: booting #0 A=n B=n again (boot 4)$" "$T/err" &&
	has "^kbisect: boot 4 of #1: boot-failed: the build has no kernel image$" "$T/err" &&
	[ "$(sqlite3 "$T/lv.db" "select group_concat(v.idx || '/' || b.boot_no || '/' || b.status, ' ') from boots b join variants v on v.id = b.variant_id where b.boot_no > 3")" = "0/4/boot-failed 1/4/boot-failed" ]; echo $?)
run "$KB" results 1 --db "$T/lv.db"
check "... its boots are in the results" $([ $rc -eq 0 ] &&
	has "1 failed boot: boot-failed: the build has no kernel image" "$T/out"; echo $?)
run "$KB" why 1 --db "$T/lv.db"
# (round 4: the round compare --adaptive added; why's are 5 to 7)
check "why on a real experiment: the worst's fresh boots fail, exit 1" $([ $rc -eq 1 ] &&
	has "the worst variant, was booted 3 times afresh" "$T/err" &&
	[ "$(sqlite3 "$T/lv.db" "select count(*) from boots where boot_no > 3")" = 8 ] &&
	[ "$(sqlite3 "$T/lv.db" "select count(distinct round) || '/' || count(*) from boots where round > 4")" = 3/6 ] &&
	[ "$(sqlite3 "$T/lv.db" "select count(*) from boots where round = 4")" = 2 ]; echo $?)
run "$KB" why 1 --no-boots --json --db "$T/lv.db"
check "why --no-boots answers from the stored boots" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"set_aside": 0' "$T/out" && has '"boots_added": 0' "$T/out" &&
	has '"used": "stored"' "$T/out" && has "the comparison is against the run's boots, in its 3 rounds, and may carry drift" "$T/out" &&
	[ "$(sqlite3 "$T/lv.db" "select count(*) from boots where boot_no > 3")" = 8 ]; echo $?)
sqlite3 "$T/lv.db" "update experiments set executor = 'other'"
run "$KB" compare 1 0 1 --adaptive --db "$T/lv.db"
check "compare --adaptive on another executor: exit 2, says why" $([ $rc -eq 2 ] &&
	has "ran on the 'other' executor, which cannot boot again" "$T/err"; echo $?)
run "$KB" why 1 --db "$T/lv.db"
check "why on another executor says it adds no boots" $([ $rc -eq 0 ] &&
	has "note: experiment 1 ran on the 'other' executor, which cannot boot again: answering from the stored boots" "$T/err"; echo $?)

# kbisect repro: what a variant booted, as a folder that boots by hand.
# Model experiments have no domain XML; a "real" one is made of a model
# run by giving it the evidence a libvirt boot stores (db/0007).
run "$KB" repro 1 0 --db "$T/k.db" -o "$T/rp-model"
check "repro of a model experiment: exit 2, says why, writes nothing" $([ $rc -eq 2 ] &&
	has "ran on the model executor: nothing was booted, so there is no domain XML" "$T/err" &&
	[ ! -e "$T/rp-model" ]; echo $?)
run "$KB" repro 9 0 --db "$T/k.db" -o "$T/rp-none"
check "repro of an unknown experiment: exit 1" $([ $rc -eq 1 ] && has "no experiment 9 in" "$T/err" &&
	[ ! -e "$T/rp-none" ]; echo $?)
run "$KB" repro nine 0 --db "$T/k.db"
check "repro with a bad id: a usage error, exit 2" $([ $rc -eq 2 ] && has "'nine' is not an EXPERIMENT id" "$T/err" &&
	has "^usage: kbisect repro EXPERIMENT VARIANT" "$T/err"; echo $?)
cat >"$T/rp.yaml" <<Y
name: rp
source: { kernel: $T/vmlinuz-9.9 }
guest: { hypervisor: qemu, memory_mib: 256 }
workload: { command: { run: "echo hi" }, metric: real_s }
factors: { guest: { vcpus: [1, 2] } }
repeat: { boots: 2, runs_per_boot: 1 }
Y
printf 'kernel\n' >"$T/vmlinuz-9.9"
printf 'CONFIG_X=y\n' >"$T/config-9.9"
printf 'metric: real_s\nbase: 2\nnoise: { boot_cv: 0.02 }\n' >"$T/rp.model.yaml"
run "$KB" run "$T/rp.yaml" --model "$T/rp.model.yaml" --db "$T/rp.db" --quiet
"$KB" domxml "$T/rp.yaml" | sed "s|/KBISECT-BOOT-DIR|/var/tmp/kbisect-boot-x|g;
	s|$T/vmlinuz-9.9|/var/tmp/kbisect-boot-x/kernel|;
	s|/KBISECT-INITRAMFS/initramfs.cpio.gz|/var/tmp/kbisect-boot-x/initrd|" >"$T/rp.xml"
sqlite3 "$T/rp.db" "update experiments set executor = 'libvirt', model_yaml = NULL;
	update builds set image_path = '$T/vmlinuz-9.9', config_text = 'CONFIG_X=y' || char(10),
		image_sha256 = '$(sha256sum "$T/vmlinuz-9.9" | cut -d' ' -f1)';
	update boots set host = 'qemu:///system', workload_text = 'echo hi' || char(10),
		domain_xml = CAST(readfile('$T/rp.xml') AS TEXT)
	where variant_id = (select id from variants where idx = 0)"
mkdir "$T/rp-full" && echo mine >"$T/rp-full/notes"
run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-full"
check "repro into a folder that is not empty: exit 2, nothing written" $([ $rc -eq 2 ] &&
	has "'$T/rp-full' is not empty: give another -o DIR, or --force" "$T/err" &&
	[ "$(ls "$T/rp-full")" = notes ] && [ "$(cat "$T/rp-full/notes")" = mine ]; echo $?)
run "$KB" repro 1 1 --db "$T/rp.db" -o "$T/rp-1"
check "repro of a variant without domain XML: exit 2, nothing written" $([ $rc -eq 2 ] &&
	has "variant 1 of experiment 1 has no boot with a domain XML" "$T/err" && [ ! -e "$T/rp-1" ]; echo $?)
run "$KB" repro 1 7 --db "$T/rp.db" -o "$T/rp-7"
check "repro of an unknown variant: exit 2 with a hint" $([ $rc -eq 2 ] &&
	has "no variant '7' in experiment 1: give a number from kbisect results or an exact label" "$T/err"; echo $?)
if [ -x /bin/busybox ]; then
	run "$KB" repro 1 guest.vcpus=1 --db "$T/rp.db" -o "$T/rp-ok" --json
	check "repro by label writes the folder and lists it (--json)" $([ $rc -eq 0 ] && json_ok "$T/out" &&
		has '"name": "boot.sh"' "$T/out" && has '"sha256_checked": true' "$T/out" &&
		[ -x "$T/rp-ok/boot.sh" ] && [ "$(cat "$T/rp-ok/config")" = CONFIG_X=y ] &&
		[ "$(cat "$T/rp-ok/workload.sh")" = "echo hi" ] && cmp -s "$T/rp-ok/kernel" "$T/vmlinuz-9.9" &&
		[ -s "$T/rp-ok/initrd" ] && has "<kernel>$T/rp-ok/kernel</kernel>" "$T/rp-ok/domain.xml" &&
		has "<name>repro-kbisect-1-0</name>" "$T/rp-ok/domain.xml" &&
		! has "kbisect-boot-x" "$T/rp-ok/domain.xml" &&
		[ "$(cat "$T/rp-ok/cmdline")" = "console=ttyS0 panic=-1 quiet" ] &&
		has "^Build key " "$T/rp-ok/README" && has "real_s [0-9.]* +- [0-9.]* over 2 boots" "$T/rp-ok/README" &&
		sh -n "$T/rp-ok/boot.sh"; echo $?)
	run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-ok" --force
	check "repro --force writes into a folder it wrote" $([ $rc -eq 0 ] && has "^boot it once: $T/rp-ok/boot.sh" "$T/out"; echo $?)
	# a kernel only its owner may read is not made readable to all
	chmod 600 "$T/vmlinuz-9.9"
	run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-mode"
	check "repro keeps the kernel's own mode (0600 stays 0600)" $([ $rc -eq 0 ] &&
		[ "$(stat -c %a "$T/rp-mode/kernel")" = 600 ] && cmp -s "$T/rp-mode/kernel" "$T/vmlinuz-9.9"; echo $?)
	chmod 644 "$T/vmlinuz-9.9"
	# the bundle boots the variant's workload: its copies and sysctls
	# (not the matrix's template), and a boot shipped into its host's
	# pool says it boots here
	cat >"$T/rp2.yaml" <<Y
name: rp2
source: { kernel: $T/vmlinuz-9.9 }
guest: { hypervisor: qemu, memory_mib: 256 }
workload: { command: { run: "echo hi" }, metric: real_s }
factors:
  workload: { copies: [1, 3] }
  sysctl: { vm.dirty_ratio: [20, 5] }
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [qemu+ssh://bench2/system]
Y
	run "$KB" run "$T/rp2.yaml" --model "$T/rp.model.yaml" --db "$T/rp2.db" --quiet
	v=$(sqlite3 "$T/rp2.db" "select idx from variants where label like '%copies=3%' and label like '%dirty_ratio=5%'")
	sqlite3 "$T/rp2.db" "update experiments set executor = 'libvirt', model_yaml = NULL;
		update builds set image_path = '$T/vmlinuz-9.9',
			image_sha256 = '$(sha256sum "$T/vmlinuz-9.9" | cut -d' ' -f1)';
		update boots set host = 'qemu+ssh://bench2/system', workload_text = 'echo hi' || char(10),
			domain_xml = CAST(readfile('$T/rp.xml') AS TEXT)
		where variant_id = (select id from variants where idx = $v)"
	run "$KB" repro 1 "$v" --db "$T/rp2.db" -o "$T/rp-var"
	mkdir -p "$T/rp-var/x" && (cd "$T/rp-var/x" && zcat ../initrd | cpio -id --quiet kbisect/workload.conf 2>/dev/null)
	check "repro's initramfs runs the variant's copies and sysctls" $([ $rc -eq 0 ] &&
		has '^copies=3$' "$T/rp-var/x/kbisect/workload.conf" &&
		has '^sysctl=vm.dirty_ratio=5$' "$T/rp-var/x/kbisect/workload.conf"; echo $?)
	check "repro of a boot shipped into a pool boots here and says so" $([ $rc -eq 0 ] &&
		has "^host='qemu:///system'$" "$T/rp-var/boot.sh" &&
		has "cannot carry" "$T/rp-var/README" && has "pool 'kbisect'" "$T/err" &&
		sh -n "$T/rp-var/boot.sh"; echo $?)
else
	echo "[  SKIPPED ] cli: repro writing a folder: no /bin/busybox for the initramfs (busybox-static)"
fi
# what the database names is checked, not trusted: a kernel without a
# recorded sha256 is not copied, nor is a host that is no libvirt URI
# written into boot.sh
sqlite3 "$T/rp.db" "update builds set image_sha256 = NULL"
run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-nosha"
check "repro of a kernel with no recorded sha256: exit 1, refused, nothing written" $([ $rc -eq 1 ] &&
	has "recorded no sha256 of the kernel image '$T/vmlinuz-9.9'" "$T/err" &&
	has "copies only a kernel its recorded sha256 confirms" "$T/err" && [ ! -e "$T/rp-nosha" ]; echo $?)
sqlite3 "$T/rp.db" "update builds set image_sha256 = '$(sha256sum "$T/vmlinuz-9.9" | cut -d' ' -f1)'"
for h in "qemu:///system'\$(touch $T/pwned)'" 'qemu+ext:///system?command=/bin/true' 'qemu:///sys tem'; do
	sqlite3 "$T/rp.db" "update boots set host = '$(printf '%s' "$h" | sed "s/'/''/g")' where domain_xml is not null"
	run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-host"
	check "repro of a recorded host that is no libvirt URI ($h): exit 2, nothing written" $([ $rc -eq 2 ] &&
		has "which is not a libvirt URI" "$T/err" && [ ! -e "$T/rp-host" ] && [ ! -e "$T/pwned" ]; echo $?)
done
sqlite3 "$T/rp.db" "update boots set host = 'qemu:///system' where domain_xml is not null"
printf 'another kernel\n' >"$T/vmlinuz-9.9"
run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-changed"
check "repro of a kernel that changed: exit 1 naming both digests, nothing written" $([ $rc -eq 1 ] &&
	has "is not the one boot 2 booted: its sha256 is $(sha256sum "$T/vmlinuz-9.9" | cut -d' ' -f1)" "$T/err" &&
	[ ! -e "$T/rp-changed" ]; echo $?)
rm "$T/vmlinuz-9.9"
run "$KB" repro 1 0 --db "$T/rp.db" -o "$T/rp-gone"
check "repro of a kernel that is gone: exit 1, says what to do" $([ $rc -eq 1 ] &&
	has "the kernel image '$T/vmlinuz-9.9' that boot 2 booted (build .*) is gone: put that kernel back" "$T/err" &&
	[ ! -e "$T/rp-gone" ]; echo $?)

# kbisect report: the experiment as an HTML page (tests/integration/
# report-browser.sh opens it in chromium)
run "$KB" report 1 --db "$T/k.db" -o "$T/rep" --json
check "report writes the page and lists it (--json)" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"index": "'"$T"'/rep/index.html"' "$T/out" && has '"replaced": false' "$T/out" &&
	has 'id="strip-plot"' "$T/rep/index.html" && has 'id="effects-plot"' "$T/rep/index.html"; echo $?)
run "$KB" report 1 --db "$T/k.db" -o "$T/rep"
check "report again replaces the earlier one and prints the page's path" $([ $rc -eq 0 ] &&
	has "(the earlier report replaced)" "$T/out" && [ "$(tail -1 "$T/out")" = "$T/rep/index.html" ]; echo $?)
run "$KB" report 9 --db "$T/k.db" -o "$T/rep-none"
check "report of an unknown experiment: exit 1 (as results), says so, no folder" $([ $rc -eq 1 ] &&
	has "no experiment 9 in" "$T/err" && [ ! -e "$T/rep-none" ]; echo $?)
run "$KB" report nine --db "$T/k.db"
check "report with a bad id: a usage error, exit 2" $([ $rc -eq 2 ] &&
	has "^usage: kbisect report \[EXPERIMENT\]" "$T/err"; echo $?)
mkdir "$T/rep-mine" && echo mine >"$T/rep-mine/notes"
run "$KB" report 1 --db "$T/k.db" -o "$T/rep-mine"
check "report into a folder of other files: exit 2, they stay" $([ $rc -eq 2 ] &&
	has "not a kbisect report" "$T/err" && [ "$(cat "$T/rep-mine/notes")" = mine ]; echo $?)
run "$KB" report 1 --db "$T/k.db" -o "$T/rep-mine/notes/x"
check "report where no folder can be made: exit 2" $([ $rc -eq 2 ] &&
	has "cannot write a report to" "$T/err"; echo $?)

sqlite3 "$T/k.db" "pragma user_version = 99"
run "$KB" history --db "$T/k.db"
check "a database from a newer kbisect is refused" $([ $rc -eq 1 ] && has "newer than this kbisect" "$T/err"; echo $?)


# workload, cmdline and sysctl factors, named metrics, target devices
# (issue 13): each bad key is exit 2 with file:line:col, nothing written
wl_bad() { # NAME FILE-TEXT MESSAGE
	printf '%s' "$2" >"$T/wl.yaml"
	run "$KB" plan "$T/wl.yaml"
	check "plan: $1, exit 2 with file:line:col" $([ $rc -eq 2 ] && has "$T/wl.yaml:$3" "$T/err"; echo $?)
}
wl_bad "an unknown {{NAME}}" \
	"factors: { workload: { bs: [4k] } }
workload: { fio: { rw: randread, bs: '{{bs}}', iodepth: '{{depth}}' } }
" "2:57: unknown workload parameter '{{depth}}'"
wl_bad "a workload parameter no text uses" \
	"factors: { workload: { bs: [4k], depth: [1] } }
workload: { fio: { rw: randread, bs: '{{bs}}' } }
" "1:34: factor workload.depth is not used: write {{depth}}"
wl_bad "a workload parameter with a fio_job" \
	"factors: { workload: { bs: [4k] } }
workload: { fio_job: $PWD/$MATRIX, metric: read_iops }
" "1:24: factor workload.bs cannot fill a fio_job file"
wl_bad "a bad workload parameter name" \
	"factors: { workload: { BS: [4k] } }
workload: { command: { run: 'dd bs={{BS}}' } }
" "1:24: invalid workload parameter name 'BS'"
wl_bad "too many copies" \
	"factors: { workload: { copies: [1, 100] } }
workload: { command: { run: x } }
" "1:36: workload.copies must be an integer from 1 to 64, found '100'"
wl_bad "a cmdline level that would break the command line" \
	"factors: { cmdline: { quiet: [off, 'a\"b'] } }
workload: { command: { run: x } }
" "1:36: invalid level 'a\"b' for cmdline.quiet"
wl_bad "a bad kernel parameter name" \
	"factors: { cmdline: { 'a/b': [on] } }
workload: { command: { run: x } }
" "1:23: invalid kernel parameter name 'a/b'"
wl_bad "a bad sysctl name" \
	"factors: { sysctl: { 'kernel/x': [1] } }
workload: { command: { run: x } }
" "1:22: invalid sysctl name 'kernel/x'"
wl_bad "a sysctl value of two lines" \
	"factors: { sysctl: { kernel.x: [\"1\\n2\"] } }
workload: { command: { run: x } }
" "1:33: a level contains a control character (U+000A, a newline)"
wl_bad "a named metric's regex with two groups" \
	"workload: { command: { run: b, metrics: { ops: '(a)(b)' } } }
" "1:48: the regex must have exactly one (group)"
wl_bad "a named metric that is the command's time" \
	"workload: { command: { run: b, metrics: { real_s: '(a)' } } }
" "1:43: metric 'real_s' is the command's own time"
wl_bad "an unknown parser" \
	"workload: { command: { run: b, parser: iozone } }
" "1:40: invalid workload.command.parser 'iozone'"
wl_bad "a target glob outside /dev" \
	"workload: { fio: { rw: read }, targets: /tmp/x }
" "1:41: invalid workload.targets glob '/tmp/x'"
wl_bad "targets_count without targets" \
	"workload: { fio: { rw: read }, targets_count: 2 }
" "1:47: workload.targets_count needs workload.targets"
wl_bad "per_device without targets_count" \
	"workload: { fio: { rw: read }, targets: /dev/vdb, per_device: true }
" "1:63: workload.per_device needs workload.targets_count"
wl_bad "per_device with a command" \
	"workload: { command: { run: x }, targets: /dev/vdb, targets_count: 1, per_device: true }
" "1:83: workload.per_device needs workload.fio"
wl_bad "per_device with a filename" \
	"workload: { fio: { rw: read, filename: /dev/vdb }, targets: /dev/vdb, targets_count: 1, per_device: true }
" "1:30: fio option 'filename' names the files"
wl_bad "more metrics than a sample holds" \
	"factors: { workload: { copies: [1, 4] } }
workload: { command: { run: b, parser: unixbench } }
" "1:24: a run of this workload may yield 280 metrics"
wl_bad "scratch disks on Xen" \
	"guest: { scratch_disks: 2 }
workload: { fio: { rw: read } }
" "1:25: guest.scratch_disks needs hypervisor kvm or qemu"
wl_bad "an invalid derived metric name" \
	"workload: { command: { run: b }, metric: 'real_s..max' }
" "1:42: invalid metric name 'real_s..max'"
run "$KB" run "$T/wl.yaml" --model "$MODEL" --db "$T/wl.db"
check "run: a bad workload key writes no database" $([ $rc -eq 2 ] && [ ! -e "$T/wl.db" ]; echo $?)

# seed 002 on the model: pinning x copies, one build, effects by name
cat >"$T/seed002.yaml" <<'Y'
name: seed002-pinning-copies
factors:
  guest: { pin: [none, [0, 0, 0, 0]] }
  workload: { copies: [1, 2] }
  sysctl: { kernel.sched_min_granularity_ns: [3000000, 10000000] }
guest: { hypervisor: qemu, vcpus: 4 }
workload:
  command: { run: 'dd if=/dev/urandom count=1M | cat >/dev/null' }
  metric: real_s.sum
repeat: { boots: 3 }
Y
cat >"$T/seed002.model.yaml" <<'Y'
metric: real_s.sum
base: 79.92
noise: { boot_cv: 0.01 }
seed: 5
effects:
  - when: { workload.copies: 2 }
    factor: 3.394
  - when: { guest.pin: [0, 0, 0, 0] }
    factor: 5.012
  - when: { guest.pin: [0, 0, 0, 0], workload.copies: 2 }
    factor: 0.9347
Y
run "$KB" plan "$T/seed002.yaml" --model "$T/seed002.model.yaml"
check "plan: workload and sysctl factors share one build" $([ $rc -eq 0 ] &&
	has "8 variants, 1 build" "$T/out" &&
	has "guest.pin=0,0,0,0 workload.copies=2 sysctl.kernel.sched_min_granularity_ns=3000000" "$T/out"; echo $?)
run "$KB" plan "$T/seed002.yaml" --json --model "$T/seed002.model.yaml"
check "plan --json names the new factor kinds" $([ $rc -eq 0 ] && has '"kind": "workload"' "$T/out" &&
	has '"kind": "sysctl"' "$T/out" && json_ok "$T/out"; echo $?)
KBISECT_MODEL_TIME_SCALE=0 run "$KB" run -q "$T/seed002.yaml" --model "$T/seed002.model.yaml" --db "$T/seed002.db"
check "run: a model keyed by workload.copies and guest.pin" $([ $rc -eq 0 ]; echo $?)
run "$KB" effects 1 --db "$T/seed002.db"
check "effects: workload.copies, guest.pin and their interaction" $([ $rc -eq 0 ] &&
	has "workload.copies" "$T/out" && has "guest.pin:workload.copies" "$T/out"; echo $?)
# conditions (docs/matrix.md "Conditions"): copies=4 multiplies the time
# by 5 and DEBUG_X costs 30% at copies=4 only; copies is a load level to
# compare within, never ranked as a cause nor called a regression
cat >"$T/cond.yaml" <<'Y'
name: conditions
factors:
  kconfig: { DEBUG_X: [n, y] }
  workload:
    copies: { levels: [1, 4], condition: true }
workload: { command: { run: 'true' }, metric: real_s }
repeat: { boots: 4 }
Y
cat >"$T/cond.model.yaml" <<'Y'
metric: real_s
base: 10
noise: { boot_cv: 0.02 }
seed: 7
effects:
  - { when: { workload.copies: 4 }, factor: 5 }
  - { when: { DEBUG_X: y, workload.copies: 4 }, factor: 1.3 }
Y
run "$KB" plan "$T/cond.yaml" --model "$T/cond.model.yaml"
check "plan names the conditions" $([ $rc -eq 0 ] &&
	has "^condition, compared within each level and never a suspect: workload.copies$" "$T/out"; echo $?)
run "$KB" plan "$T/cond.yaml" --json --model "$T/cond.model.yaml"
check "plan --json marks a factor a condition" $([ $rc -eq 0 ] && has '"condition": true' "$T/out" && json_ok "$T/out"; echo $?)
KBISECT_MODEL_TIME_SCALE=0 run "$KB" run -q "$T/cond.yaml" --model "$T/cond.model.yaml" --db "$T/cond.db"
check "run: a matrix with a condition" $([ $rc -eq 0 ]; echo $?)
run "$KB" effects 1 --db "$T/cond.db"
check "effects: copies is not ranked, DEBUG_X is given at each level and depends on it" $([ $rc -eq 0 ] &&
	! grep -q "^ *[0-9]*  workload.copies" "$T/out" &&
	grep -q "^   1  DEBUG_X " "$T/out" &&
	grep -q "^DEBUG_X  workload.copies=1  *[+-][0-9.]*% .*[0-9] *$" "$T/out" &&
	grep -q "^DEBUG_X  workload.copies=4  *+29.0% .*\*\*\*$" "$T/out" &&
	has "depends on the level: yes, +26.3% .* at workload.copies=4 vs workload.copies=1" "$T/out"; echo $?)
run "$KB" effects 1 --db "$T/cond.db" --json
check "effects --json: conditions, within, depends" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	has '"conditions": \[' "$T/out" && has '"changes_with_level": true' "$T/out" &&
	! grep -q '"name": "workload.copies' "$T/out"; echo $?)
run "$KB" why 1 --db "$T/cond.db"
check "why: the worst is judged against the baseline at copies=4, DEBUG_X explains it" $([ $rc -eq 0 ] &&
	has "^  good #1 DEBUG_X=n workload.copies=4$" "$T/out" &&
	has "^  bad  #3 DEBUG_X=y workload.copies=4$" "$T/out" &&
	has "^1 of the 1 differing factor explains it: DEBUG_X n->y$" "$T/out" &&
	! grep -q "workload.copies [0-9]*->" "$T/out"; echo $?)
run "$KB" why 1 --good 0 --bad 3 --db "$T/cond.db" --no-boots
check "why: good and bad at two levels of a condition is refused" $([ $rc -eq 2 ] &&
	has "differ in workload.copies, a condition" "$T/err"; echo $?)
# several hosts (docs/guests.md "Several hosts"): boots spread over them,
# a lost host drained and its failures not counted, `kbisect hosts`; in
# blocks each round is one host's, and a drained host's rounds move whole
# (c ran 2 of its first round: the rest of it went to a, its second to b)
cat >"$T/h.yaml" <<'EOF2'
name: three-hosts
factors:
  kconfig:
    A: [n, y]
    B: [n, y]
workload:
  fio: { rw: randread }
  metric: read_iops
repeat: { boots: 6, runs_per_boot: 1 }
hosts:
  - { uri: "qemu+ssh://a/system", capacity: 2 }
  - qemu+ssh://b/system
  - qemu+ssh://c/system
EOF2
cat >"$T/h.model.yaml" <<'EOF2'
metric: read_iops
base: 1000
noise: { boot_cv: 0.02 }
effects:
  - { when: { A: y }, factor: 0.5 }
hosts:
  "qemu+ssh://b/system": 0.8
  "qemu+ssh://c/system": { factor: 0.9, fail_after: 2 }
seed: 4
EOF2
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/h.yaml" --model "$T/h.model.yaml" --db "$T/h.db"
check "run spreads boots over every host and drains a lost one" $([ $rc -eq 0 ] &&
	has "host qemu+ssh://c/system drained after 3 infrastructure failures: model: host qemu+ssh://c/system is lost after 2 boots (fail_after); its boots go to the other hosts" "$T/err" &&
	has "^boots per host: qemu+ssh://a/system 10, qemu+ssh://b/system 12, qemu+ssh://c/system 2 (drained, 3 failures of its own, not counted); see kbisect hosts 1$" "$T/out" &&
	[ "$(sqlite3 "$T/h.db" "select count(*), sum(status = 'ok') from boots")" = "24|24" ] &&
	[ "$(sqlite3 "$T/h.db" "select count(*) from host_events where kind = 'failure'")" = 3 ]; echo $?)
run "$KB" hosts 1 --db "$T/h.db"
check "hosts shows each host's boots, failures and difference" $([ $rc -eq 0 ] &&
	has "^  qemu+ssh://c/system  *2  *2  *0  *3  .*drained$" "$T/out" &&
	has "^  qemu+ssh://a/system  *10 (the first)$" "$T/out" &&
	has "^  qemu+ssh://b/system  *12  *-2[0-9]\.[0-9]%  \[" "$T/out" &&
	has "was drained; its last failure: model: host qemu+ssh://c/system is lost" "$T/out"; echo $?)
run "$KB" hosts 1 --db "$T/h.db" --json
check "hosts --json lists the hosts and their differences" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); h=d["hosts"]; f=d["differences"]
assert [x["host"] for x in h] == ["qemu+ssh://a/system", "qemu+ssh://b/system", "qemu+ssh://c/system"]
assert h[2]["drained"] and h[2]["host_failures"] == 3 and h[0]["boots"] == 10
assert abs(f[1]["change_pct"] + 20) < 3 and f[1]["ci_pct"][0] < -20 < f[1]["ci_pct"][1]' "$T/out"; echo $?)
run "$KB" effects 1 --db "$T/h.db"
check "effects fits the hosts (and the rounds of the run order) as blocks" $([ $rc -eq 0 ] &&
	has "the 6 rounds on 3 hosts a block each" "$T/out" && has "^  qemu+ssh://b/system " "$T/out"; echo $?)
run "$KB" hosts 9 --db "$T/h.db"
check "hosts of an unknown experiment: exit 1" $([ $rc -eq 1 ] && has "no experiment 9" "$T/err"; echo $?)
run "$KB" hosts x --db "$T/h.db"
check "hosts with a bad id: exit 2" $([ $rc -eq 2 ] && has "'x' is not an experiment id" "$T/err"; echo $?)
run "$KB" hosts 1 --db "$T/h.db" --metric nope
check "hosts of a metric never measured lists no mean" $([ $rc -eq 0 ] && has "qemu+ssh://a/system" "$T/out"; echo $?)
cat >"$T/h2.model.yaml" <<'EOF2'
metric: read_iops
base: 1000
hosts:
  "qemu+ssh://a/system": { fail_after: 6 }
  "qemu+ssh://b/system": { fail_after: 3 }
  "qemu+ssh://c/system": { fail_after: 3 }
EOF2
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/h.yaml" --model "$T/h2.model.yaml" --db "$T/h2.db"
check "every host drained: exit 1, what finished is stored, says resume" $([ $rc -eq 1 ] &&
	has "every host is drained" "$T/err" && has "'kbisect resume 1 --db $T/h2.db' carries it on" "$T/err" &&
	[ "$(sqlite3 "$T/h2.db" "select count(*) from boots")" = 12 ]; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" resume 1 --db "$T/h2.db" -q
check "resume after every host was drained: no boot lost or doubled" $([ $rc -eq 0 ] &&
	[ "$(sqlite3 "$T/h2.db" "select count(*), count(distinct variant_id || '-' || boot_no) from boots")" = "24|24" ] &&
	[ "$(sqlite3 "$T/h2.db" "select state from experiments")" = done ]; echo $?)
run env KBISECT_OVERLAP=often KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/h.yaml" --model "$T/h.model.yaml" --db "$T/h3.db"
check "KBISECT_OVERLAP takes yes, no or auto: exit 2" $([ $rc -eq 2 ] && has "KBISECT_OVERLAP='often' is not yes, no or auto" "$T/err" &&
	[ ! -e "$T/h3.db" ]; echo $?)
run env KBISECT_OVERLAP=no KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/h.yaml" --model "$T/h.model.yaml" --db "$T/h4.db" -q
check "KBISECT_OVERLAP=no runs builds and boots apart" $([ $rc -eq 0 ] &&
	[ "$(sqlite3 "$T/h4.db" "select overlap_s from experiments")" = 0.0 ]; echo $?)
# the boots added after a run and the probes of a bisection go over every
# host too, one at a time (docs/guests.md "One boot at a time"): a lost
# host drained as run drains it, its failures no boots
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" why 1 --db "$T/h.db"
check "why's fresh boots go over the hosts, the lost one drained, each round on one host" $([ $rc -eq 0 ] &&
	has "^kbisect: host qemu+ssh://c/system drained after 3 infrastructure failures: model: host qemu+ssh://c/system is lost after 2 boots (fail_after); its boots go to the other hosts$" "$T/err" &&
	has "^#[02] A=[ny] B=n: boot [0-9]* on qemu+ssh://c/system: libvirt-error, the host's (run again, not counted): " "$T/err" &&
	[ "$(sqlite3 "$T/h.db" "select count(*), sum(status = 'ok'), count(distinct host) from boots")" = "36|36|3" ] &&
	[ "$(sqlite3 "$T/h.db" "select count(*) from (select round from boots where round > 6 group by round having count(distinct host) > 1)")" = 0 ] &&
	[ "$(sqlite3 "$T/h.db" "select count(*) from host_events where kind = 'failure'")" = 6 ]; echo $?)
cat >"$T/bh.yaml" <<'EOF2'
name: bisect-hosts
workload:
  fio: { rw: randread }
  metric: read_iops
hosts: [ "qemu+ssh://a/system", "qemu+ssh://b/system" ]
EOF2
{ cat tests/data/bisect/seed000.model.yaml
  printf 'hosts:\n  "qemu+ssh://b/system": { fail_after: 4 }\n'; } >"$T/bh.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config \
	--model tests/data/bisect/seed000.model.yaml --db "$T/b1.db" -q >"$T/b1.out" 2>/dev/null
# docs/bisect.md's example is what the command prints (its first line
# shortened there)
awk '/^    bisection 1 \(experiment 1\): \.\.\. 15 options/ { on = 1 }
	on && /^[^ ]/ { exit } on { sub(/^    /, ""); print }' docs/bisect.md |
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$T/b1.doc"
sed '1s|tests/data/bisect/good.config -> tests/data/bisect/bad.config, |... |' "$T/b1.out" >"$T/b1.cut"
check "docs/bisect.md's example is what bisect options prints" $(cmp -s "$T/b1.doc" "$T/b1.cut"; echo $?)
# the same bisection again answers from the one stored: nothing built or
# booted, the same answer with a line saying so (docs/bisect.md "Running
# it again" shows it); --fresh boots it all again
B1="bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config --model tests/data/bisect/seed000.model.yaml --db $T/b1.db"
b1boots=$(sqlite3 "$T/b1.db" "select count(*) from boots")
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $B1 -q
grep -v '^stored answer: ' "$T/out" >"$T/b1.again"
awk '/^    stored answer: bisection 1 of / { on = 1 } on && !/^    / { exit }
	on { sub(/^    /, ""); print }' docs/bisect.md | sed 's/ of [0-9T:Z-]*,/ of DATE,/' >"$T/b1.sdoc"
grep -A1 '^stored answer: ' "$T/out" | sed 's/ of [0-9T:Z-]*,/ of DATE,/' >"$T/b1.scut"
check "bisect options again: the stored answer, said so, nothing built or booted" $([ $rc -eq 0 ] &&
	cmp -s "$T/b1.again" "$T/b1.out" &&
	has "^stored answer: bisection 1 of 20[0-9-]*T[0-9:]*Z, nothing built or booted now (--fresh bisects again); what it spent:$" "$T/out" &&
	[ -s "$T/b1.sdoc" ] && cmp -s "$T/b1.sdoc" "$T/b1.scut" &&
	[ "$(sqlite3 "$T/b1.db" "select count(*) from boots")" = "$b1boots" ] &&
	[ "$(sqlite3 "$T/b1.db" "select count(*) from experiments")" = 1 ]; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $B1 -q --json
check "bisect options --json again: stored_at, the first bisection's counts" $([ $rc -eq 0 ] &&
	has '"stored_at": "20[0-9-]*T[0-9:]*Z"' "$T/out" && has '"bisection": 1,' "$T/out" &&
	has '"boots": 74,' "$T/out" &&
	[ "$(sqlite3 "$T/b1.db" "select count(*) from boots")" = "$b1boots" ]; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $B1 -q --fresh
sed '1s|^bisection 2 (experiment 2)|bisection 1 (experiment 1)|; s|^spent: 0 builds|spent: 7 builds|' "$T/out" >"$T/b1.fresh"
check "bisect options --fresh: boots it all again, the builds from the store" $([ $rc -eq 0 ] &&
	! has "^stored answer" "$T/out" && has "^spent: 0 builds, 74 boots" "$T/out" && cmp -s "$T/b1.fresh" "$T/b1.out" &&
	[ "$(sqlite3 "$T/b1.db" "select count(*) from boots")" = $((b1boots + 74)) ]; echo $?)
sqlite3 "$T/b1.db" "update bisections set answer = substr(answer, 1, 300)"
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $B1 -q
check "bisect options with a damaged stored answer: exit 2, says so, prints nothing" $([ $rc -eq 2 ] &&
	[ ! -s "$T/out" ] &&
	has "^kbisect: bisection 2 in '$T/b1.db': its stored answer is damaged (not an answer this kbisect wrote); --fresh bisects again$" "$T/err" &&
	[ "$(sqlite3 "$T/b1.db" "select count(*) from boots")" = $((b1boots + 74)) ]; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config \
	--model "$T/bh.model.yaml" --matrix "$T/bh.yaml" --db "$T/bh.db" -q
check "bisect options over two hosts, one lost: the answer of one host" $([ $rc -eq 0 ] &&
	cmp -s "$T/out" "$T/b1.out" &&
	[ "$(sqlite3 "$T/bh.db" "select host, count(*), sum(status = 'ok') from boots group by host")" = "qemu+ssh://a/system|70|70
qemu+ssh://b/system|4|4" ] &&
	[ "$(sqlite3 "$T/bh.db" "select group_concat(kind) from host_events")" = "failure,failure,failure,drained" ]; echo $?)
{ cat tests/data/bisect/seed000.model.yaml
  printf 'hosts:\n  "qemu+ssh://a/system": { fail_after: 0 }\n  "qemu+ssh://b/system": { fail_after: 1 }\n'; } >"$T/bl.model.yaml"
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config \
	--model "$T/bl.model.yaml" --matrix "$T/bh.yaml" --db "$T/bl.db"
check "bisect options with every host drained: exit 1, says so, marked failed" $([ $rc -eq 1 ] &&
	has "^kbisect: every host is drained (the last: host qemu+ssh://[ab]/system drained after 3 infrastructure failures: " "$T/err" &&
	[ "$(sqlite3 "$T/bl.db" "select state from bisections")" = failed ] &&
	[ "$(sqlite3 "$T/bl.db" "select count(*) from boots")" = 1 ]; echo $?)

# the sentinel (repeat.sentinel, docs/analysis.md "A/A: the sentinel"):
# the baseline's kernel again in every round, built once, its boots
# counted; results says its comparison with the baseline, the
# experiment's own A/A, and warns when it differs (here the sequential
# order puts all its boots after the baseline's on a drifting host)
cat >"$T/aa.yaml" <<'EOF2'
name: aa
workload: { fio: { rw: randread }, metric: read_iops }
repeat: { boots: 8, sentinel: true }
EOF2
sed 's/sentinel: true/sentinel: true, order: sequential/' "$T/aa.yaml" >"$T/aaseq.yaml"
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.03 }\nseed: 5\n' >"$T/aa.model.yaml"
{ cat "$T/aa.model.yaml"; printf 'drift: { linear: -0.3 }\n'; } >"$T/aadrift.model.yaml"
# (docs/matrix.md's A/A plan with its sentinel: tools/doc-transcript)
run "$KB" plan "$T/aa.yaml" --json --model "$T/aa.model.yaml"
check "plan --json marks the sentinel" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert [(v["label"], v["sentinel"]) for v in d["variants"]] == [("baseline", False), ("sentinel", True)], d["variants"]' "$T/out"; echo $?)
run "$KB" plan "$T/aa.yaml" --model "$T/aa.model.yaml"
check "plan: the sentinel is a variant of its own, built with the baseline, its boots counted" $([ $rc -eq 0 ] &&
	has "^  1  sentinel  (the baseline's kernel again: the experiment's own A/A)$" "$T/out" &&
	has "^2 variants, 1 build, 16 boots (8 per variant)" "$T/out"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/aa.yaml" --model "$T/aa.model.yaml" --db "$T/aa.db" -q
run "$KB" results 1 --db "$T/aa.db"
check "results says the sentinel's A/A: no change" $([ $rc -eq 0 ] &&
	has "^sentinel: +1.2% \[-1.2%, +3.7%\], no change (the experiment's own A/A)$" "$T/out" &&
	! has "warning" "$T/err" && ! has "^drift:" "$T/out" &&
	[ "$(sqlite3 "$T/aa.db" "select group_concat(sentinel) from variants")" = "0,1" ] &&
	[ "$(sqlite3 "$T/aa.db" "select count(distinct build_id) from boots")" = 1 ] &&
	[ "$(sqlite3 "$T/aa.db" "select count(distinct round) from boots b join variants v on v.id = b.variant_id where v.sentinel = 1")" = 8 ]; echo $?)
run "$KB" results 1 --db "$T/aa.db" --json
check "results --json: the sentinel marked, its comparison and the drift check" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["sentinel"]; v=d["variants"]
assert s["variant"] == 1 and not s["differs"] and s["against_baseline"]["verdict"] == "no-change"
assert [x["sentinel"] for x in v] == [False, True]
assert not d["drift"]["flagged"]' "$T/out"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/aa.yaml" --model "$T/aadrift.model.yaml" --db "$T/aa.db" -q
check "results says a drift the rounds kept out of the A/A" $([ $rc -eq 0 ] &&
	has "^drift: the boots changed by -27.6% " "$T/out" &&
	has "^sentinel: +1.3% \[-1.1%, +3.7%\], no change (the experiment's own A/A)$" "$T/out" &&
	! has "warning" "$T/err"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/aaseq.yaml" --model "$T/aadrift.model.yaml" --db "$T/aa.db" -q
check "a sentinel that differs: said, and the false alarms warned of" $([ $rc -eq 0 ] &&
	has "^sentinel: -15.4% \[-20.2%, -10.2%\], differs from the baseline, p 2.9e-05 (the experiment's own A/A)$" "$T/out" &&
	has "^kbisect: warning: the sentinel, the baseline's kernel booted again, differs from the baseline (p 2.9e-05 < 0.05): this experiment's false alarms are above their nominal level, so do not trust its verdicts" "$T/err"; echo $?)
# compare (the baseline a side) and effects say the sentinel's A/A too;
# it is no level of a factor, and no side but the baseline's brings it
printf 'name: ab\nworkload: { fio: { rw: randread }, metric: read_iops }\nfactors: { kconfig: { A: [n, y], B: [n, y] } }\nrepeat: { boots: 6, sentinel: true }\n' >"$T/ab.yaml"
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.03 }\nseed: 8\neffects:\n  - { when: { A: y }, factor: 0.8 }\n' >"$T/ab.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/ab.yaml" --model "$T/ab.model.yaml" --db "$T/ab.db" -q >/dev/null 2>&1
AA="sentinel: +0.5% \[-3.9%, +5.1%\], inconclusive (the experiment's own A/A)"
run "$KB" compare 1 0 1 --db "$T/ab.db"
check "compare against the baseline says the sentinel's A/A" $([ $rc -eq 0 ] && has "^$AA\$" "$T/out"; echo $?)
run "$KB" compare 1 1 2 --db "$T/ab.db"
check "compare without the baseline does not" $([ $rc -eq 0 ] && ! has "^sentinel:" "$T/out"; echo $?)
run "$KB" effects 1 --db "$T/ab.db"
check "effects says the sentinel's A/A, apart from the effects" $([ $rc -eq 0 ] && has "^$AA\$" "$T/out" &&
	! has "^ *[0-9]  sentinel" "$T/out"; echo $?)
run "$KB" effects 1 --db "$T/ab.db" --json
check "effects --json: the design's effects alone, the sentinel apart" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert sorted(e["name"] for e in d["effects"]) == ["A", "A:B", "B"], d["effects"]
assert d["sentinel"]["variant"] == 4 and not d["sentinel"]["differs"]' "$T/out"; echo $?)

echo "cli tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
