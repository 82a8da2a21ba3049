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
work=${KBISECT_E2E_DIR:-$top/build/xen-e2e}
port=16510
uri=xen+tcp://127.0.0.1:$port/system
fail() { echo "seed000-lab.sh: FAIL: $*" >&2; exit 1; }
say() { echo "seed000-lab.sh: $*"; }

[ "$(id -u)" = 0 ] || fail "needs root (tools/xen-lab)"
for p in virsh sqlite3 virt-xml-validate; do
	command -v "$p" >/dev/null 2>&1 || fail "'$p' is not installed"
done
mkdir -p "$work" "$top/build/demo"
tree=$("$top/tools/kernel-tree") || fail "no kernel tree (tools/kernel-tree)"
ln -sfn "$tree" "$top/build/demo/linux"
db=$work/kbisect.db
rm -f "$db" "$db-wal" "$db-shm"
lab=$work/lab
started=0
stop_lab() {
	[ "$started" = 1 ] && "$top/tools/xen-lab" stop "$lab"
	started=0
}
trap stop_lab EXIT
trap 'exit 1' INT TERM

t0=$(date +%s)
started=1
got=$("$top/tools/xen-lab" start "$lab" --hbas 2 --port "$port" | tail -1) ||
	fail "the lab does not start"
[ "$got" = "$uri" ] || fail "the lab answers at $got, not $uri"
say "lab up in $(($(date +%s) - t0)) s: $uri"

# the HBAs' driver in dom0, as libvirt sees it
hba_drivers() {
	for bdf in $(cat "$lab/hbas"); do
		dev=pci_$(echo "$bdf" | tr ':.' '__')
		virsh -c "$uri" nodedev-dumpxml "$dev" | awk '/<driver>/ { d = 1 }
			d && /<name>/ { gsub(/.*<name>|<\/name>.*/, ""); print; exit }'
	done | sort -u | tr '\n' ' ' | sed 's/ $//'
}
before=$(hba_drivers)
case $before in *pciback*) ;; *) fail "the HBAs are not with xen-pciback before the run: $before" ;; esac

# experiment: every boot ok, on the lab.  One exception, measured and
# explained in docs/xen-lab.md: now and then (1 of 36 PVH boots here) a
# PVH guest dies in its first second with Xen logging "Triple fault" on
# the lab's console, a fault of the nested emulation (QEMU's SVM under
# TCG) that kbisect stores, rightly from where it stands, as the
# variant's boot-failed.  Such boots are allowed, as many as Xen logged.
check_experiment() { # ID NAME BOOTS
	n=$(sqlite3 "$db" "select count(*) from boots b join variants v on v.id = b.variant_id where v.experiment_id = $1")
	ok=$(sqlite3 "$db" "select count(*) from boots b join variants v on v.id = b.variant_id where v.experiment_id = $1 and b.status = 'ok' and b.host = '$uri'")
	[ "$n" -ge "$3" ] || fail "$2: $n boots stored, expected $3"
	[ "$ok" = "$n" ] && { say "$2: $n boots, every one ok on the lab"; return 0; }
	bad=$(sqlite3 "$db" "select count(*) from boots b join variants v on v.id = b.variant_id where v.experiment_id = $1 and b.status != 'ok'")
	faults=$(sqlite3 "$db" "select count(*) from boots b join variants v on v.id = b.variant_id join variant_options o on o.variant_id = v.id and o.factor = 'guest.mode' and o.level = 'pvh' where v.experiment_id = $1 and b.status = 'boot-failed' and b.duration_s < 10 and coalesce(b.console_tail, '') = ''")
	logged=$(grep -a -c 'Triple fault' "$lab/console.log" || :)
	if [ "$ok" = "$((n - bad))" ] && [ "$faults" = "$bad" ] &&
	   [ "$logged" -ge "$bad" ]; then
		say "$2: $n boots, $ok ok on the lab; $bad PVH boot(s) died at once with a triple fault Xen logged (docs/xen-lab.md)"
		return 0
	fi
	sqlite3 "$db" "select b.status, b.reason from boots b join variants v on v.id = b.variant_id where v.experiment_id = $1 and b.status != 'ok'" >&2
	fail "$2: $ok of $n boots ok on $uri"
}

run_matrix() { # MATRIX ID BOOTS
	t=$(date +%s)
	"$KB" run "$top/kconfig-matrix/$1" --db "$db" > "$work/run-$2.out" ||
		fail "kbisect run $1 (exit $?): $(tail -5 "$work/run-$2.out")"
	cat "$work/run-$2.out"
	say "$1: kbisect run took $(($(date +%s) - t)) s"
	check_experiment "$2" "$1" "$3"
	"$KB" effects "$2" --db "$db" > "$work/effects-$2.out" ||
		fail "kbisect effects $2 (exit $?)"
	cat "$work/effects-$2.out"
	rc=0
	"$KB" why "$2" --db "$db" > "$work/why-$2.out" || rc=$?
	# why: 0 an answer, 1 no answer (the worst variant is the baseline)
	[ "$rc" -le 1 ] || fail "kbisect why $2 (exit $rc)"
	cat "$work/why-$2.out"
	[ -z "$(virsh -c "$uri" list --name | grep kbisect-)" ] ||
		fail "a kbisect guest is still running on the lab"
}

run_matrix seed000-lab.yaml 1 12
after=$(hba_drivers)
[ "$after" = "$before" ] ||
	fail "the HBAs' driver changed over the run: $before -> $after"
say "HBAs with $after after every boot"
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
stop_lab
say "stopped in $(($(date +%s) - t3)) s; $(($(date +%s) - t0)) s in all"
say "ok"
