#!/bin/sh
# Seed 000 for real on the Xen lab (docs/xen-lab.md, "Seed 000 on the
# lab"): kbisect drives a Xen host under QEMU as a remote host.
#
#   tests/xen-e2e/seed000-lab.sh [./kbisect]    (make xen-e2e; 26 min with
#                                                the kernels built, ~35 more cold)
#
# 1. starts the lab (tools/xen-lab, 2 HBAs, port 16510: the URI the
#    matrices name);
# 2. kconfig-matrix/seed000-lab.yaml: PARAVIRT_SPINLOCKS x DEBUG_KMEMLEAK,
#    PV guests with both HBAs passed through, fio randread on the disks
#    behind them (/dev/sd[a-b]), 3 boots per variant: every boot ok, the
#    kernels and initramfs shipped into the lab's pool, each boot's
#    domain gone and both HBAs back with xen-pciback afterwards;
#    `effects` and `why` answer;
# 3. kconfig-matrix/seed000-lab-modes.yaml: the same kernels as PV and
#    PVH guests (a command workload: PVH takes no passthrough on Xen
#    4.17), 3 boots per variant, every boot ok, `effects` and `why`;
# 4. the domain XML kbisect sent (`kbisect domxml`) validates;
# 5. stops the lab and prints the figures docs/xen-lab.md quotes.
#
# KBISECT_E2E_DIR (default build/xen-e2e) holds the lab and the database;
# the kernel tree is tools/kernel-tree's, linked as build/demo/linux (as
# make demo does).  Needs root, like the lab.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KB=${1:-$top/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
me=seed000-lab.sh
port=16510
. "$top/tests/xen-e2e/lib/lab.sh"
work=${KBISECT_E2E_DIR:-$top/build/xen-e2e}
db=$work/kbisect.db
lab=$work/lab
lab_prepare
mkdir -p "$work"
rm -f "$db" "$db-wal" "$db-shm"

t0=$(date +%s)
lab_start 2

run_matrix seed000-lab.yaml 1 12
hbas_unchanged
vols=$(virsh -c "$uri" vol-list kbisect | grep -c -- '-' || :)
say "the lab's pool holds $vols volumes"

run_matrix seed000-lab-modes.yaml 2 24

for m in seed000-lab.yaml seed000-lab-modes.yaml; do
	"$KB" domxml "$top/kconfig-matrix/$m" --variant 1 > "$work/domain.xml" ||
		fail "kbisect domxml $m"
	virt-xml-validate "$work/domain.xml" domain >/dev/null 2>&1 ||
		fail "the domain XML of $m does not validate"
done
say "the domain XML of both matrices validates"

t3=$(date +%s)
lab_stop
say "stopped in $(($(date +%s) - t3)) s; $(($(date +%s) - t0)) s in all"
say "ok"
