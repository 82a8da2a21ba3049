#!/bin/sh
# Workload factors, named metrics and target devices on real guests
# (issue 13): the distro kernel under QEMU (TCG) through libvirt, with
# kbisect's initramfs and guests/init.
#
#  1. a command in 1 and 2 copies (workload.copies), two named metrics,
#     a sysctl and a kernel command-line factor: each copy's metrics and
#     their aggregates are stored, the sysctl was written before the
#     command ran and the parameter was on the command line;
#  2. fio over two virtio disks named by workload.targets, one job per
#     disk (per_device): read IOPS per disk and in total are stored;
#  3. targets that never appear: the boot fails, its reason naming the
#     glob.
#
# Usage: tests/integration/workload-factors.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
# It leaves other guests alone: kbisect destroys its own, and only a
# libvirtd this script started is swept when it stops.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
URI=qemu:///system
T=$(mktemp -d /var/tmp/kbisect-workload-factors.XXXXXX)
chmod 755 "$T"
started=$(date +%s)
NAME=workload-factors
. "$(dirname "$0")/lib/libvirt.sh"

cleanup() {
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

libvirt_need fio sqlite3
libvirt_start

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
q() { sqlite3 "$KBISECT_DB" "$1"; }

# Guests are named kbisect-DB-EXPERIMENT-VARIANT-BOOT (DB: the database's
# tag), so another database's experiment 1 on a shared libvirtd no longer
# collides with ours; ours are numbered from far away all the same, for
# a kbisect before the tag sharing the libvirtd.
printf 'workload: { command: { run: x } }\nrepeat: { boots: 1 }\n' >"$T/seed.yaml"
printf 'metric: real_s\nbase: 1\n' >"$T/seed.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run -q "$T/seed.yaml" \
	--model "$T/seed.model.yaml" >/dev/null 2>&1 ||
	{ fail "cannot make the database"; exit 1; }
q "UPDATE experiments SET id = $(( ($$ % 50000) + 10000 ))" ||
	{ fail "cannot renumber the database's experiments"; exit 1; }

# metric VARIANT NAME: the mean of NAME over the variant's runs
metric() {
	q "SELECT round(avg(s.value), 6) FROM samples s
	   JOIN boots b ON b.id = s.boot_id JOIN variants v ON v.id = b.variant_id
	   JOIN experiments e ON e.id = v.experiment_id
	   WHERE e.name = '$EXP' AND v.idx = $1 AND s.metric = '$2'"
}
# expect VARIANT NAME VALUE
expect() {
	got=$(metric "$1" "$2")
	awk -v a="$got" -v b="$3" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' ||
		fail "variant $1: $2 is '$got', expected $3"
}
# positive VARIANT NAME
positive() {
	got=$(metric "$1" "$2")
	case $got in
	'' | 0 | 0.0 | -*) fail "variant $1: $2 is '$got', expected > 0" ;;
	esac
}
boot_status() {
	q "SELECT b.status || ': ' || coalesce(b.reason, '') FROM boots b
	   JOIN variants v ON v.id = b.variant_id
	   JOIN experiments e ON e.id = v.experiment_id
	   WHERE e.name = '$EXP' AND v.idx = $1"
}

# ---- 1. copies, named metrics, a sysctl, the command line ------------------
EXP=wf-copies
cat >"$T/copies.yaml" <<YAML
name: $EXP
source: { kernel: $KERNEL }
factors:
  workload: { copies: [1, 2] }
  sysctl: { kernel.printk_ratelimit: [7] }
  cmdline: { nowatchdog: [on] }
guest: { hypervisor: qemu, vcpus: 2, memory_mib: 512 }
workload:
  command:
    run: |
      k=\${KBISECT_COPY:-1}
      i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done
      echo "bench: \$((1000 + k)) ops/s"
      echo "lat \$k.5 ms"
      echo "ratelimit \$(cat /proc/sys/kernel/printk_ratelimit)"
      echo "watchdog-off \$(grep -c nowatchdog /proc/cmdline)"
    metrics:
      ops: 'bench: ([0-9]+) ops/s'
      lat_ms: 'lat ([0-9.]+) ms'
      ratelimit: 'ratelimit ([0-9]+)'
      cmdline_hits: 'watchdog-off ([0-9]+)'
  metric: real_s
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
t0=$(date +%s)
"$KB" run "$T/copies.yaml" --quiet >"$T/copies.out" 2>&1 ||
	{ fail "kbisect run (copies) failed:"; cat "$T/copies.out"; }
echo "workload-factors: 2 boots with copies in $(( $(date +%s) - t0 )) s"
for v in 0 1; do
	s=$(boot_status $v)
	[ "$s" = "ok: " ] || {
		fail "variant $v's boot is '$s', expected ok"
		q "SELECT console_tail FROM boots" | tail -20
	}
done
# one copy (the factor's level 1): the plain names, and the same per-copy
# and aggregate names as N copies, each its one value
expect 0 ops 1001
expect 0 lat_ms 1.5
expect 0 ratelimit 7
expect 0 cmdline_hits 1
positive 0 real_s
expect 0 ops.copy1 1001
expect 0 ops.sum 1001
expect 0 lat_ms.max 1.5
[ "$(metric 0 real_s.sum)" = "$(metric 0 real_s)" ] ||
	fail "one copy: real_s.sum is not its real_s"
# two copies: each copy's, sum, mean, max, and the aggregate
expect 1 ops.copy1 1001
expect 1 ops.copy2 1002
expect 1 ops 2003
expect 1 ops.sum 2003
expect 1 ops.mean 1001.5
expect 1 ops.max 1002
expect 1 lat_ms 2.5
expect 1 lat_ms.copy1 1.5
expect 1 ratelimit.max 7
expect 1 cmdline_hits.copy2 1
positive 1 real_s.copy1
positive 1 real_s.copy2
positive 1 real_s.sum
[ "$(metric 1 real_s)" = "$(metric 1 real_s.max)" ] ||
	fail "real_s of 2 copies is not their max"

# ---- 2. fio, one job per target disk --------------------------------------
EXP=wf-devices
cat >"$T/devices.yaml" <<YAML
name: $EXP
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, memory_mib: 512, scratch_disks: 2 }
workload:
  fio: { rw: randread, bs: 4k, size: 16m, runtime: 2, time_based: 1,
         ioengine: libaio, direct: 1, iodepth: 4 }
  targets: /dev/vd[a-b]
  targets_count: 2
  per_device: true
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
t0=$(date +%s)
"$KB" run "$T/devices.yaml" --quiet >"$T/devices.out" 2>&1 ||
	{ fail "kbisect run (devices) failed:"; cat "$T/devices.out"; }
echo "workload-factors: fio on 2 disks in $(( $(date +%s) - t0 )) s"
s=$(boot_status 0)
[ "$s" = "ok: " ] || {
	fail "the fio boot is '$s', expected ok"
	q "SELECT console_tail FROM boots" | tail -20
}
positive 0 read_iops
positive 0 read_iops.vda
positive 0 read_iops.vdb
positive 0 read_lat_p99_us.vdb
sum=$(q "SELECT round(sum(value), 3) FROM samples WHERE boot_id =
	 (SELECT max(id) FROM boots) AND metric IN ('read_iops.vda', 'read_iops.vdb')")
tot=$(q "SELECT round(value, 3) FROM samples WHERE boot_id =
	 (SELECT max(id) FROM boots) AND metric = 'read_iops'")
[ -n "$tot" ] && [ "$sum" = "$tot" ] || fail "read_iops '$tot' is not vda + vdb, '$sum'"
echo "workload-factors: read_iops $tot = vda $(metric 0 read_iops.vda) + vdb $(metric 0 read_iops.vdb)"

# ---- 3. targets that never appear -----------------------------------------
EXP=wf-missing
sed -e "s/^name: .*/name: $EXP/" -e 's#/dev/vd\[a-b\]#/dev/vd[c-d]#' \
	"$T/devices.yaml" >"$T/missing.yaml"
"$KB" run "$T/missing.yaml" --quiet >"$T/missing.out" 2>&1
s=$(boot_status 0)
case $s in
"bad-output: the guest reports an error: 1 found 0 of 2 target disks matching /dev/vd[c-d] after 30 s") ;;
*) fail "the boot without its targets is '$s'" ;;
esac

echo "workload-factors: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "workload-factors: ok"
