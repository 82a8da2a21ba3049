#!/bin/sh
# The seeds' own questions on the Xen lab, each asked twice on a fresh lab
# (docs/xen-lab.md, "The seeds on the lab"; make seeds):
#
#   tests/seeds/xen-lab.sh [./kbisect] [RUN...]    (default runs: 1 2)
#
# For each RUN: start a fresh lab (tools/xen-lab, 4 HBAs, port 16510: the
# URI the matrices name), boot tests/seeds/lab-warmup.yaml once (the lab's
# first guest is slow; its database is kept apart), then
#   kconfig-matrix/seed000-lab-full.yaml  PARAVIRT_SPINLOCKS x DEBUG_SPINLOCK
#       x DEBUG_KMEMLEAK, 4-vCPU PV guests on 2 pCPUs, fio randread on the
#       disks of 4 passed-through HBAs, 5 boots a variant in rounds;
#   kconfig-matrix/seed002-lab.yaml  PARAVIRT_SPINLOCKS x pinning x 1/2/4
#       copies of dd | cat (a condition), 14 boots of 4 runs a variant
#       in rounds;
#   kconfig-matrix/seed002-lab-make.yaml  PARAVIRT_SPINLOCKS x pinning,
#       make -j4 of six of Linux's host programs (the reviewer's "real
#       benchmark") from a Debian guest image, 5 boots a variant in rounds;
# each with its sentinel (the lab start's A/A): every boot ok on the lab,
# `effects` and `why` answer, no guest left, the HBAs back with pciback;
# stop the lab.  Then, when two runs or more are stored, tests/seeds/
# agree.py prints their effects side by side and fails unless each matrix
# calls the same set at Holm's level in every run and no sentinel differs.
#
# KBISECT_SEEDS_DIR (default build/seeds) holds run-N/ (the lab) and
# run-N/MATRIX/ (its database kbisect.db, experiment 1, and every output);
# a run given again starts that matrix afresh, unless SEEDS_RESUME=1: then
# a matrix whose experiment was stopped (the lab or the machine went down)
# is resumed on the fresh lab (`kbisect resume`), and one that is done
# only analysed again.  SEEDS_MATRICES (default
# "seed000-lab-full seed002-lab seed002-lab-make") which of them,
# SEEDS_HBAS (default 4) the lab's HBAs, SEEDS_WHY_BOOTS (default: as
# many as plan says) the boots each `why` may add.  A matrix with a guest image
# (guest.image) needs QEMU's qdisk in dom0 to serve its root disk, so a
# run that holds one starts the lab with XEN_LAB_HVM=1, for every matrix
# of that run.  Needs root, like the lab.  With the kernels built, a run
# takes about 100 minutes here for seed 000, 100 to 110 for seed002-lab
# (its runs 5 and 6: 6020 and 6498 s in `kbisect run`) and 25 for
# seed002-lab-make.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KB=$top/kbisect
case ${1:-} in ''|[0-9]*) ;; *) KB=$1; shift ;; esac
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
me=seeds
port=16510
. "$top/tests/xen-e2e/lib/lab.sh"
base=${KBISECT_SEEDS_DIR:-$top/build/seeds}
hbas=${SEEDS_HBAS:-4}
WHY_MAX_BOOTS=${SEEDS_WHY_BOOTS:-}
RESUME=${SEEDS_RESUME:-0}
runs=${*:-1 2}
matrices=${SEEDS_MATRICES:-seed000-lab-full seed002-lab seed002-lab-make}
lab_prepare
"$top/tools/seed001-data" || fail "tools/seed001-data: the make benchmark's files"
for m in $matrices; do
	image=$("$KB" plan "$top/kconfig-matrix/$m.yaml" --json |
		python3 -c 'import json, sys
print(json.load(sys.stdin)["guest_image"] is not None)') ||
		fail "kbisect plan $m.yaml"
	[ "$image" = True ] && export XEN_LAB_HVM=1
done

for r in $runs; do
	case $r in *[!0-9]*|'') fail "a run is a number, not '$r'" ;; esac
	lab=$base/run-$r/lab
	[ "${SEEDS_RESUME:-0}" = 1 ] ||
		for m in $matrices; do rm -rf "$base/run-$r/$m"; done
	mkdir -p "$base/run-$r"
	t0=$(date +%s)
	say "run $r: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	lab_start "$hbas"
	virsh -c "$uri" nodeinfo > "$base/run-$r/nodeinfo"
	say "the lab's Xen host: $(awk '/^CPU\(s\)/ { print $2 " pCPUs" }' "$base/run-$r/nodeinfo")"
	# the lab's first guest is slower than the rest (docs/xen-lab.md,
	# "Seed 002 on the lab"): one boot of tests/seeds/lab-warmup.yaml
	# first, stored apart, so that no matrix's first variant pays it
	rm -f "$base/run-$r/warmup.db"
	"$KB" run "$top/tests/seeds/lab-warmup.yaml" --db "$base/run-$r/warmup.db" \
		> "$base/run-$r/warmup.out" 2>&1 ||
		fail "the warm-up boot: $(tail -3 "$base/run-$r/warmup.out")"
	say "warm-up boot: $(sqlite3 "$base/run-$r/warmup.db" \
		"select status || ', ' || round(duration_s, 1) || ' s' from boots")"
	for m in $matrices; do
		work=$base/run-$r/$m
		db=$work/kbisect.db
		mkdir -p "$work"
		[ -f "$top/kconfig-matrix/$m.yaml" ] || fail "no such seed matrix: $m"
		boots=$("$KB" plan "$top/kconfig-matrix/$m.yaml" --json 2>/dev/null |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["boots"])') ||
			fail "kbisect plan $m.yaml"
		run_matrix "$m.yaml" 1 "$boots"
		hbas_unchanged
	done
	lab_stop
	say "run $r: $(($(date +%s) - t0)) s in all"
done

rc=0
for m in $matrices; do
	set --
	for d in "$base"/run-*/"$m"; do
		[ -f "$d/effects-1.json" ] && set -- "$@" "$d"
	done
	if [ $# -lt 2 ]; then
		say "$m: $# complete run(s) stored: agreement needs two"
		continue
	fi
	"$top/tests/seeds/agree.py" "$@" 1="$m" || rc=1
done
[ "$rc" = 0 ] || fail "the runs do not agree"
say "ok"
