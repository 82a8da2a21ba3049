#!/bin/sh
# What this machine makes for a boot is never the host's failure
# (lib/exec/realexec.c KB_ELOCAL, docs/guests.md "Draining"), for real:
# a fio workload whose scratch disk cannot be sized here (size: 900t, past
# ext4's 16 TiB files) on a private libvirtd.  `kbisect run` stops at once
# with the scratch disk's message (exit 1, the experiment failed), no host
# failure is recorded and no host drained; another experiment on the same
# URI right after boots ok.  ~30 s.
#
# Usage: tests/integration/hosts-local.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
URI=qemu:///system
T=$(mktemp -d /var/tmp/kbisect-hosts-local.XXXXXX)
chmod 755 "$T"
NAME=hosts-local
. "$(dirname "$0")/lib/libvirt.sh"

cleanup() {
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

libvirt_need sqlite3 fio
libvirt_start
[ "$(stat -f -c %T "$T" 2>/dev/null)" = ext2/ext3 ] ||
	skip "$T is not on ext4, whose 16 TiB file limit the test relies on"

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
q() { sqlite3 "$KBISECT_DB" "$1"; }

cat >"$T/huge.yaml" <<YAML
name: hosts-local-huge
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 256 }
workload:
  fio: { rw: randread, bs: 4k, size: 900t, runtime: 1, time_based: 1 }
repeat: { boots: 2, runs_per_boot: 1 }
hosts: [$URI]
YAML
"$KB" run "$T/huge.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "run with a scratch disk this machine cannot make: exit $rc, not 1"
grep -q "cannot size scratch disk" "$T/err" ||
	fail "run did not say the scratch disk could not be made: $(tail -3 "$T/err")"
grep -q "drained\|infrastructure failure\|libvirt-error" "$T/err" &&
	fail "run blamed the host for this machine's failure: $(grep 'drained\|infrastructure\|libvirt-error' "$T/err" | head -3)"
[ "$(q "SELECT count(*) FROM host_events")" = 0 ] ||
	fail "host events recorded for this machine's failure: $(q "SELECT kind, reason FROM host_events")"
[ "$(q "SELECT state FROM experiments WHERE id = 1")" = failed ] ||
	fail "the experiment is $(q "SELECT state FROM experiments WHERE id = 1"), not failed"
[ $failed = 0 ] && echo "hosts-local: the scratch disk's failure stopped the run, no host blamed"

cat >"$T/fine.yaml" <<YAML
name: hosts-local-fine
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 256, boot_timeout_s: 120 }
workload: { command: { run: "true" }, metric: real_s }
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
"$KB" run "$T/fine.yaml" >"$T/out" 2>"$T/err" ||
	fail "an experiment on the same URI right after failed: $(tail -3 "$T/err")"
[ "$(q "SELECT count(*) FROM boots WHERE status = 'ok'")" = 1 ] ||
	fail "the experiment on the same URI did not boot ok"
[ $failed = 0 ] && echo "hosts-local: ok"
exit $failed
