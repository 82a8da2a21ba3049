#!/bin/sh
# Real guests through libvirt: boot the distro kernel with kbisect's
# generated initramfs under QEMU (TCG) on a private libvirtd, run a short
# fio job on a scratch virtio disk and check that real IOPS are stored,
# with what the host saw of the boot (host.* monitors, run 0);
# then a guest whose workload hangs must be killed at workload.timeout_s
# and stored as workload-timeout.  No guest of its database
# (kbisect-TAG-*) may be left.
#
# Usage: tests/integration/libvirt-boot.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
URI=qemu:///system
T=$(mktemp -d /var/tmp/kbisect-libvirt-boot.XXXXXX)
chmod 755 "$T"
started=$(date +%s)
NAME=libvirt-boot
. "$(dirname "$0")/lib/libvirt.sh"

# Our guests: kbisect-TAG-*, TAG our database's (docs/guests.md); a
# libvirtd reused from someone else may run guests of other databases,
# never touched here.  Nothing while the database is not made yet.
ours() {
	tag=$(sqlite3 "$T/kb.db" "SELECT substr(value, 1, 6) FROM meta
		WHERE key = 'database_id'" 2>/dev/null)
	[ -n "$tag" ] || return 0
	virsh -c "$URI" list --all --name 2>/dev/null | grep "^kbisect-$tag-"
}

# (cleanup, on exit, stops a libvirtd we started and removes $T)
cleanup() {
	# never leave a guest behind, whatever happened
	if command -v virsh >/dev/null 2>&1; then
		for d in $(ours); do
			virsh -c "$URI" destroy "$d" >/dev/null 2>&1
		done
	fi
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- components ---------------------------------------------------------
libvirt_need fio sqlite3

# ---- a private libvirtd (or the one already running) ----------------------
libvirt_start

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"

# ---- 1. a fio job: real IOPS come back and are stored ---------------------
cat > "$T/fio.yaml" <<YAML
name: libvirt-boot-fio
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 512, boot_timeout_s: 120 }
workload:
  fio: { rw: randread, bs: 4k, size: 32m, runtime: 3, time_based: 1,
         ioengine: libaio, direct: 1, iodepth: 8 }
  metric: read_iops
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
t0=$(date +%s)
if ! "$KB" run "$T/fio.yaml" --quiet > "$T/fio.out" 2>&1; then
	fail "kbisect run (fio) failed:"
	cat "$T/fio.out"
fi
t1=$(date +%s)
q() { sqlite3 "$KBISECT_DB" "$1"; }
status=$(q "SELECT status || ': ' || coalesce(reason, '') FROM boots")
[ "$status" = "ok: " ] || {
	fail "the fio boot is '$status', expected ok"
	q "SELECT console_tail FROM boots" | tail -30
}
iops=$(q "SELECT value FROM samples WHERE metric = 'read_iops'")
case $iops in
'' | 0 | 0.0) fail "no read_iops stored (got '$iops')" ;;
*) echo "libvirt-boot: read_iops $iops (boot+fio $((t1 - t0)) s)" ;;
esac
env=$(q "SELECT json_extract(environment, '\$.hypervisor') || ' ' ||
	    json_extract(environment, '\$.libvirt_version') FROM boots")
case $env in
QEMU\ 9.*) ;;
*) fail "the boot's environment is '$env', expected QEMU and libvirt 9.x" ;;
esac
[ "$(q "SELECT executor FROM experiments")" = libvirt ] ||
	fail "the experiment's executor is not 'libvirt'"
# what the host saw of the boot: run 0's host.* monitors (lib/monitor.h)
host=$(q "SELECT group_concat(name || '=' || round(value, 3), ' ') FROM
	  (SELECT name, value FROM monitors WHERE run_no = 0 ORDER BY name)")
echo "libvirt-boot: host monitors: $host"
for m in host.cpu_busy_pct host.loadavg_start host.loadavg_end; do
	case " $host" in *" $m="*) ;; *) fail "no $m stored for the boot" ;; esac
done
# the guest's CPU time is read while it runs (virDomainGetInfo every
# 0.25 s); a fresh-clone CI once stored none for this boot and the same
# for the hanging one below, which must have it.  Said, not failed, here.
case " $host" in
*" host.guest_cpu_s="*) ;;
*) echo "libvirt-boot: note: no host.guest_cpu_s for the fio boot" ;;
esac
[ "$(q "SELECT count(*) FROM monitors WHERE run_no = 0 AND
	(name = 'host.cpu_busy_pct' AND (value <= 0 OR value > 100) OR
	 name = 'host.guest_cpu_s' AND value <= 0)")" = 0 ] ||
	fail "a host monitor is out of its range: $host"

# ---- 2. a hanging workload is killed at its timeout -----------------------
cat > "$T/hang.yaml" <<YAML
name: libvirt-boot-hang
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, memory_mib: 512 }
workload:
  command: { run: sleep 1000 }
  timeout_s: 5
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
t0=$(date +%s)
# this one reads libvirt's console stream instead of the serial log file
KBISECT_GUEST_CONSOLE=stream "$KB" run "$T/hang.yaml" --quiet \
	> "$T/hang.out" 2>&1
t1=$(date +%s)
status=$(q "SELECT b.status FROM boots b JOIN variants v ON v.id = b.variant_id
	    JOIN experiments e ON e.id = v.experiment_id
	    WHERE e.name = 'libvirt-boot-hang'")
[ "$status" = workload-timeout ] || {
	fail "the hanging boot is '$status', expected workload-timeout"
	cat "$T/hang.out"
}
[ $((t1 - t0)) -lt 100 ] || fail "the hanging boot took $((t1 - t0)) s"
# the stream console polls the guest's CPU time too; a destroyed guest
# had it read before the destroy
cpu=$(q "SELECT round(m.value, 3) FROM monitors m JOIN boots b ON b.id = m.boot_id
	 JOIN variants v ON v.id = b.variant_id
	 JOIN experiments e ON e.id = v.experiment_id
	 WHERE e.name = 'libvirt-boot-hang' AND m.name = 'host.guest_cpu_s'")
case $cpu in
'' | 0 | 0.0) fail "no host.guest_cpu_s for the hanging boot" ;;
*) echo "libvirt-boot: the hanging boot's guest CPU: $cpu s" ;;
esac
echo "libvirt-boot: hanging workload stopped as '$status' in $((t1 - t0)) s"

# ---- no guest left ---------------------------------------------------------
left=$(ours)
[ -z "$left" ] || fail "guests left running: $left"
ls -d "$T"/kbisect-boot-* >/dev/null 2>&1 &&
	fail "boot folders left: $(ls -d "$T"/kbisect-boot-*)"

echo "libvirt-boot: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "libvirt-boot: ok"
