#!/bin/sh
# Fuzz one harness for a while, then keep in its corpus the new inputs
# that add coverage: what `make fuzz-run` does for each harness
# (tests/fuzz/README.md).  Run from the top of the checkout:
#
#   tests/fuzz/run.sh BINARY NAME SECONDS WORKDIR
#
# BINARY is the harness built by `make fuzz`, NAME its corpus folder
# under tests/fuzz/corpus/, WORKDIR a scratch folder (emptied first) for
# the run's new inputs, its log and any crash, leak or timeout input.
# Extra libFuzzer flags come from $FUZZ_FLAGS.  Exits 1 when the run found
# something (the inputs are left in WORKDIR/artifacts/) or failed.
set -u
if [ $# -ne 4 ]; then
	echo "usage: tests/fuzz/run.sh BINARY NAME SECONDS WORKDIR" >&2
	exit 2
fi
bin=$1 name=$2 secs=$3 work=$4
top=$(pwd)
case $bin in /*) ;; *) bin=$top/$bin ;; esac
case $work in /*) ;; *) work=$top/$work ;; esac
corpus=$top/tests/fuzz/corpus/$name
if [ ! -x "$bin" ] || [ ! -d "$corpus" ]; then
	echo "fuzz-run $name: no harness $bin or no corpus $corpus" >&2
	exit 1
fi
rm -rf "$work"
mkdir -p "$work/new" "$work/artifacts"

# Every harness runs from kconfig-matrix/, so that the matrix seeds'
# configs/ files exist and the fuzzer gets to the end of validation.
# UBSan stops at its first report, as ASan does: both are findings.
fuzz() {
	(cd "$top/kconfig-matrix" &&
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$bin" "$@")
}

# the corpus's files and bytes (what git stores, not disk blocks)
files_before=$(find "$corpus" -type f | wc -l)
bytes_before=$(cat "$corpus"/* | wc -c)
echo "fuzz-run $name: ${secs} s, corpus $files_before files; log in $work/fuzz.log"
# The first folder gets the new inputs; the corpus is only read.
# shellcheck disable=SC2086
fuzz -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	${FUZZ_FLAGS:-} "$work/new" "$corpus" >"$work/fuzz.log" 2>&1
rc=$?
found=$(find "$work/artifacts" -type f | wc -l)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
cov=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
stats="${execs:-?} executions, ${cov:-cov: ?}"
if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
	echo "fuzz-run $name: FOUND something (exit $rc): $stats"
	ls -l "$work/artifacts"
	grep -E '^(==[0-9]+== ?ERROR|SUMMARY|.*runtime error)' "$work/fuzz.log" | head -5
	echo "replay: (cd kconfig-matrix && $bin $work/artifacts/FILE)"
	exit 1
fi

# Keep what adds coverage: -merge=1 adds to the corpus only the new
# inputs that reach code the corpus does not (named by their SHA-1),
# smallest first.  -use_counters=0 counts edges, not how often each edge
# runs: a third of the files for the same code reached.
fuzz -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
	"$corpus" "$work/new" >"$work/merge.log" 2>&1 || {
	echo "fuzz-run $name: the merge failed, see $work/merge.log"
	exit 1
}
files_after=$(find "$corpus" -type f | wc -l)
bytes_after=$(cat "$corpus"/* | wc -c)
edges=$(grep -oE '[0-9]+ new coverage edges' "$work/merge.log" | cut -d' ' -f1)
echo "fuzz-run $name: 0 findings, $stats; corpus +$((files_after - files_before)) files (+$((bytes_after - bytes_before)) bytes) for ${edges:-0} more edges"
