#!/bin/sh
# The seeds' own questions on the Xen lab, each asked twice on a fresh lab
# (docs/xen-lab.md, "The seeds on the lab"; make seeds):
#
#   tests/seeds/xen-lab.sh [./kbisect] [RUN...]    (default runs: 1 2)
#
# For each RUN: start a fresh lab (tools/xen-lab, 4 HBAs, port 16510: the
# URI the matrices name), then
#   kconfig-matrix/seed000-lab-full.yaml  PARAVIRT_SPINLOCKS x DEBUG_SPINLOCK
#       x DEBUG_KMEMLEAK, 4-vCPU PV guests on 2 pCPUs, fio randread on the
#       disks of 4 passed-through HBAs, 5 boots a variant in rounds;
#   kconfig-matrix/seed002-lab.yaml  PARAVIRT_SPINLOCKS x pinning x 1/2/4
#       copies of dd | cat, 5 boots a variant in rounds;
# each with its sentinel (the lab start's A/A): every boot ok on the lab,
# `effects` and `why` answer, no guest left, the HBAs back with pciback;
# stop the lab.  Then, when two runs or more are stored, tests/seeds/
# agree.py prints their effects side by side and fails unless each matrix
# calls the same set at Holm's level in every run and no sentinel differs.
#
# KBISECT_SEEDS_DIR (default build/seeds) holds run-N/ (the lab, the
# database kbisect.db, every output); a run given again starts afresh.
# SEEDS_HBAS (default 4) the lab's HBAs.  Needs root, like the lab.  With
# the kernels built, a run takes about 100 minutes here.
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
runs=${*:-1 2}
lab_prepare

for r in $runs; do
	case $r in *[!0-9]*|'') fail "a run is a number, not '$r'" ;; esac
	work=$base/run-$r
	db=$work/kbisect.db
	lab=$work/lab
	rm -rf "$work"
	mkdir -p "$work"
	t0=$(date +%s)
	say "run $r: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	lab_start "$hbas"
	virsh -c "$uri" nodeinfo > "$work/nodeinfo"
	say "the lab's Xen host: $(awk '/^CPU\(s\)/ { print $2 " pCPUs" }' "$work/nodeinfo")"
	run_matrix seed000-lab-full.yaml 1 45
	hbas_unchanged
	run_matrix seed002-lab.yaml 2 65
	lab_stop
	say "run $r: $(($(date +%s) - t0)) s in all"
done

set --
for d in "$base"/run-*; do
	[ -f "$d/effects-2.json" ] && set -- "$@" "$d"
done
if [ $# -lt 2 ]; then
	say "ok ($# complete run(s) stored: agreement needs two)"
	exit 0
fi
"$top/tests/seeds/agree.py" "$@" 1=seed000-lab-full 2=seed002-lab ||
	fail "the runs do not agree"
say "ok"
