#!/bin/sh
# End to end: real, cached, incremental kernel builds (docs/builds.md).
#
#   tests/e2e/builds.sh ./kbisect        (make e2e runs it; ~20 min on 2 cores)
#
# Extracts linux-source-6.1 (cached by tools/kernel-tree), then on the tiny
# bootable x86-64 fragment (guests/tiny-x86_64.fragment) builds a 2x2
# matrix for real: PARAVIRT_SPINLOCKS (touches nearly every unit) x
# BLK_DEV_LOOP (a leaf driver).  Checks the dropped-option report, build
# dedup, the cache hits of a second plan and build, and that the build
# order puts the narrow flips between the broad ones (units compiled).
#
# Everything it makes is under $KBISECT_E2E_DIR (default build/e2e/builds):
# the database kbisect.db (read by `make bench`), the build cache and the
# O= folders.  Builds start from scratch each run (the cache is wiped)
# unless KBISECT_E2E_KEEP=1.
set -eu
kbisect=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${KBISECT_E2E_DIR:-$top/build/e2e/builds}
fail() { echo "builds.sh: FAIL: $*" >&2; exit 1; }
say() { echo "builds.sh: $*"; }

tree=$("$top/tools/kernel-tree") || fail "no kernel tree (tools/kernel-tree)"
say "kernel tree $tree"

if [ "${KBISECT_E2E_KEEP:-0}" != 1 ]; then
	rm -rf "$work"
fi
mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
db=$work/kbisect.db

frag=$top/guests/tiny-x86_64.fragment
[ -f "$frag" ] || fail "no $frag"

matrix() { # name, extra factor lines, fragment line
	cat <<EOF
name: $1
source:
  tree: $tree
  base: tinyconfig
$3
factors:
  kconfig:
    PARAVIRT_SPINLOCKS: [y, n]
    BLK_DEV_LOOP: [n, y]
$2
design: full
build:
  jobs: 2
workload:
  command: { run: "true" }
repeat:
  boots: 1
EOF
}
matrix e2e-builds "" "  fragments: [$frag]" >"$work/builds.yaml"
matrix e2e-builds-dedup "  guest:
    vcpus: [1, 2]" "  fragments: [$frag]" >"$work/dedup.yaml"
matrix e2e-builds-dropped "" "" >"$work/dropped.yaml"

# 1. The dropped-option report: tinyconfig alone leaves SMP and PARAVIRT
# off, so PARAVIRT_SPINLOCKS=y cannot hold and the variants collapse.
say "1. dropped options (tinyconfig without the fragment)"
set +e
"$kbisect" build "$work/dropped.yaml" --db "$db" >"$work/dropped.out" 2>&1
rc=$?
set -e
cat "$work/dropped.out"
[ $rc -eq 2 ] || fail "a collapsing matrix should exit 2, not $rc"
grep -q 'PARAVIRT_SPINLOCKS=y did not hold' "$work/dropped.out" ||
	fail "no dropped-option report for PARAVIRT_SPINLOCKS"
grep -q 'PARAVIRT' "$work/dropped.out" && grep -q 'SMP' "$work/dropped.out" ||
	fail "the report does not name the unmet PARAVIRT and SMP"
grep -q 'allow-dropped' "$work/dropped.out" || fail "no hint at --allow-dropped"

# 2. Build the 2x2 for real.
say "2. building 4 variants (nice -n 10, one build at a time)"
start=$(date +%s)
nice -n 10 "$kbisect" build "$work/builds.yaml" --db "$db" \
	>"$work/build1.out" || fail "kbisect build failed"
end=$(date +%s)
cat "$work/build1.out"
say "first build run: $((end - start)) s"
grep -q '^4 variants, 4 builds: 4 built, 0 reused, 0 failed' \
	"$work/build1.out" || fail "expected 4 builds, all built"
# the table: order key outcome time s units variants
awk '$3 == "built" { print $1, $6, $7 }' "$work/build1.out" | sort -n \
	>"$work/order.txt"
cat "$work/order.txt"
set -- $(awk '{ print $2 }' "$work/order.txt")
[ $# -eq 4 ] || fail "expected 4 built rows in the table"
full=$1 narrow1=$2 broad=$3 narrow2=$4
say "units: full $full, narrow $narrow1, broad $broad, narrow $narrow2"
[ "$full" -gt 500 ] || fail "the first build should be full, compiled $full units"
# narrow flips (BLK_DEV_LOOP) recompile a handful of units, the broad one
# (PARAVIRT_SPINLOCKS) nearly all: the order puts narrow ones around it
[ $((narrow1 * 10)) -lt "$full" ] || fail "build 2 is not a narrow flip ($narrow1 units)"
[ $((narrow2 * 10)) -lt "$full" ] || fail "build 4 is not a narrow flip ($narrow2 units)"
[ $((broad * 2)) -gt "$full" ] || fail "build 3 should be the broad flip ($broad units)"
n_images=$(ls "$XDG_CACHE_HOME"/kbisect/builds/*/bzImage | wc -l)
[ "$n_images" -eq 4 ] || fail "expected 4 bzImages in the cache, found $n_images"

# 3. Cache hits: the same matrix again builds nothing.
say "3. second build: nothing rebuilt"
"$kbisect" build "$work/builds.yaml" --db "$db" >"$work/build2.out" ||
	fail "second kbisect build failed"
cat "$work/build2.out"
grep -q '^4 variants, 4 builds: 0 built, 4 reused, 0 failed' \
	"$work/build2.out" || fail "the second build rebuilt something"

# ... also with a fresh database: the build cache answers
"$kbisect" build "$work/builds.yaml" --db "$work/fresh.db" \
	>"$work/build3.out" || fail "kbisect build with a fresh db failed"
grep -q '^4 variants, 4 builds: 0 built, 4 reused, 0 failed' \
	"$work/build3.out" || fail "a fresh database rebuilt something"

# 4. Dedup: guest factors double the variants, not the builds.
say "4. dedup: 8 variants, 4 builds"
"$kbisect" build "$work/dedup.yaml" --db "$db" >"$work/dedup.out" ||
	fail "kbisect build of the dedup matrix failed"
cat "$work/dedup.out"
grep -q '^8 variants, 4 builds: 0 built, 4 reused, 0 failed' \
	"$work/dedup.out" || fail "expected 8 variants sharing 4 builds"

# 5. A second plan reads resolved configs from the cache (1 boot a side
#    decides nothing: accepted, this is about builds).
say "5. second plan"
start=$(date +%s)
"$kbisect" plan "$work/builds.yaml" --json --allow-undecidable >"$work/plan.json" ||
	fail "kbisect plan failed"
end=$(date +%s)
grep -q '"builds": 4' "$work/plan.json" || fail "plan should count 4 builds"
say "second plan: $((end - start)) s"

echo "builds.sh: ok (database $db)"
