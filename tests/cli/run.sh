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

# options come from one table per verb (lib/cmdopt.h): -q wherever
# --quiet is, one message per usage error, usage lines from the table
run "$KB" build -q
check "build -q is accepted (only the matrix is missing)" $([ $rc -eq 2 ] &&
	[ "$(wc -l <"$T/err")" -eq 2 ] && has "^kbisect build: missing MATRIX$" "$T/err" &&
	has "^usage: kbisect build " "$T/err"; echo $?)
run "$KB" plan -q "$MATRIX"
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
	[ "$(head -1 "$T/out")" = "usage: kbisect run MATRIX [--model MODEL] [--db PATH] [--json] [--quiet] [--allow-dropped]" ] &&
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
	run "$KB" plan "$m"
	check "example $m plans" $([ $rc -eq 0 ] && has "variants, " "$T/out"; echo $?)
done

run "$KB" plan --json "$MATRIX"
check "plan --json has variants, builds and boots" $([ $rc -eq 0 ] &&
	has '"variants"' "$T/out" && has '"builds": 8' "$T/out" &&
	has '"boots": 24' "$T/out" && has '"PARAVIRT_SPINLOCKS": "y"' "$T/out" &&
	json_ok "$T/out"; echo $?)

# bad input: exit 2, file:line:col, and no database written
cat >"$T/bad.yaml" <<'Y'
workload: { fio: { rw: randread } }
factors:
  kconfig:
    DEBUG_SPINLOCK: [n, yes]
Y
run "$KB" plan "$T/bad.yaml"
check "bad level: exit 2 with file:line:col" $([ $rc -eq 2 ] && has "$T/bad.yaml:4:25: invalid level 'yes'" "$T/err"; echo $?)
run "$KB" run "$T/bad.yaml" --model "$MODEL" --db "$T/bad.db"
check "run with a bad matrix writes no database" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ]; echo $?)
printf 'metric: read_iops\nbase: -1\n' >"$T/bad-model.yaml"
run "$KB" run "$MATRIX" --model "$T/bad-model.yaml" --db "$T/bad.db"
check "run with a bad model: exit 2, no database" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ] && has "bad-model.yaml:2:7" "$T/err"; echo $?)
printf 'metric: write_iops\nbase: 1\n' >"$T/other-model.yaml"
run "$KB" run "$MATRIX" --model "$T/other-model.yaml" --db "$T/bad.db"
check "model and matrix metrics must agree" $([ $rc -eq 2 ] && [ ! -e "$T/bad.db" ] && has "produces 'write_iops'" "$T/err"; echo $?)

# a real run needs its tree
printf 'source: { tree: /nonexistent/kbisect-tree }\nfactors: { kconfig: { A: [n, y] } }\nworkload: { fio: { rw: randread } }\n' >"$T/notree.yaml"
run "$KB" run "$T/notree.yaml" --db "$T/notree.db"
check "a real run with a missing source.tree: exit 2, no database" $([ $rc -eq 2 ] && [ ! -e "$T/notree.db" ] && has "does not exist" "$T/err"; echo $?)

# a real run on the model
run "$KB" run "$MATRIX" --model "$MODEL" --db "$T/k.db"
check "run on the seed-000 model" $([ $rc -eq 0 ] && has "PARAVIRT_SPINLOCKS=n DEBUG_SPINLOCK=n DEBUG_KMEMLEAK=n" "$T/out"; echo $?)
n=$(sqlite3 "$T/k.db" "select count(*) from samples")
check "one sample per run stored (48)" $([ "$n" = 48 ]; echo $?)
n=$(sqlite3 "$T/k.db" "select count(*) from v_variant_summary where n = 3")
check "v_variant_summary shows 8 variants of 3 boots" $([ "$n" = 8 ]; echo $?)
run "$KB" results 1 --db "$T/k.db" --json
check "results --json" $([ $rc -eq 0 ] && has '"change_pct"' "$T/out" && json_ok "$T/out"; echo $?)
run env KBISECT_DB="$T/k.db" "$KB" history
check "history through KBISECT_DB" $([ $rc -eq 0 ] && has "xen-pvops-spinlocks" "$T/out"; echo $?)
run "$KB" history --json --db "$T/k.db"
check "history --json" $([ $rc -eq 0 ] && has '"samples": 48' "$T/out" && json_ok "$T/out"; echo $?)
run "$KB" results 7 --db "$T/k.db"
check "results of a missing experiment: exit 1" $([ $rc -eq 1 ] && has "7" "$T/err"; echo $?)
run "$KB" results seven --db "$T/k.db"
check "results with a bad id: exit 2" $([ $rc -eq 2 ]; echo $?)
run env KBISECT_DB="$T/x.db" "$KB" db
check "db prints KBISECT_DB" $([ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$T/x.db" ]; echo $?)
run env -u KBISECT_DB XDG_DATA_HOME="$T/xdg" "$KB" db
check "db defaults under XDG_DATA_HOME" $([ "$(cat "$T/out")" = "$T/xdg/kbisect/kbisect.db" ]; echo $?)

# analysis of the seed-000 experiment
run "$KB" why 1 --db "$T/k.db"
check "why names PARAVIRT_SPINLOCKS, its dependence and KMEMLEAK" $([ $rc -eq 0 ] &&
	has "PARAVIRT_SPINLOCKS n -> y" "$T/out" && has "its effect depends on" "$T/out" &&
	has "DEBUG_SPINLOCK=y" "$T/out" && has "an independent regression" "$T/out"; echo $?)
run "$KB" why 1 --json --db "$T/k.db"
check "why --json lists culprits" $([ $rc -eq 0 ] && has '"culprits"' "$T/out" &&
	has '"option": "PARAVIRT_SPINLOCKS"' "$T/out" && json_ok "$T/out"; echo $?)
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
n=$(sqlite3 "$T/k.db" "select count(*) from analyses where kind in ('why', 'compare', 'main-effect', 'interaction')")
check "analyses are stored" $([ "$n" -ge 8 ]; echo $?)

# results from different environments are never compared silently
run "$KB" compare 1 0 4 --db "$T/k.db"
check "one environment: no warning" $([ $rc -eq 0 ] && ! has "different environments" "$T/err"; echo $?)
sqlite3 "$T/k.db" "update boots set environment = '{\"uri\":\"qemu:///a\"}' where boot_no % 2 = 0; update boots set environment = '{\"uri\":\"qemu:///b\"}' where boot_no % 2 = 1"
run "$KB" compare 1 0 4 --db "$T/k.db" --json
check "boots from two environments: compare warns" $([ $rc -eq 0 ] && has "ran in 2 different environments" "$T/err" && has '"environments": 2' "$T/out"; echo $?)
run "$KB" results 1 --db "$T/k.db"
check "... and so does results" $([ $rc -eq 0 ] && has "different environments" "$T/err"; echo $?)

sqlite3 "$T/k.db" "pragma user_version = 99"
run "$KB" history --db "$T/k.db"
check "a database from a newer kbisect is refused" $([ $rc -eq 1 ] && has "newer than this kbisect" "$T/err"; echo $?)

echo "cli tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
