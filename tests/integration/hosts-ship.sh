#!/bin/sh
# A "remote" host on one machine (tools/libvirtd-remote: libvirtd in a
# mount namespace that hides the client's files), for real: a kernel copy
# in this test's folder boots there under QEMU (TCG) only because kbisect
# ships it, its initramfs and its scratch disk through the libvirt
# connection into a storage pool (hosts[].pool, lib/exec/guest_pool.c).
#
#   1. without a pool the host cannot find the kernel: libvirt refuses
#      every boot, a failure of the host and not of the kernel, so no
#      boot is stored, the host is drained and the run stops;
#   2. with a pool: every boot ok; the kernel and the initramfs are
#      uploaded once; the domain XML names paths of the pool;
#   3. again: nothing crosses the connection, every boot ok, and no boot
#      volume is left in the pool;
#   4. two hosts, this machine's libvirtd and the namespaced one: the
#      namespaced libvirtd is killed while its guest runs; its host is
#      drained, its failures are not counted, and the experiment
#      completes on the other.
#
# Usage: tests/integration/hosts-ship.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /var/tmp/kbisect-hosts-ship.XXXXXX)
chmod 755 "$T"
started=$(date +%s)
NAME=hosts-ship
URI=qemu:///system
. "$(dirname "$0")/lib/libvirt.sh"
# the remote's folder: not under a folder it hides (/tmp, /var/tmp)
R=

cleanup() {
	[ -n "$R" ] && "$TOP/tools/libvirtd-remote" stop "$R"
	# the QEMU of the guest whose libvirtd step 4 killed lives in a mount
	# namespace of its own (libvirt's), not the daemon's: it is the only
	# process booting from this test's pool
	pkill -f "/var/lib/libvirt/kbisect-it/kb-f-kernel" 2>/dev/null
	[ -n "$R" ] && rm -rf "$R"
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

libvirt_need sqlite3 unshare
R=$(mktemp -d /run/kbisect-remote.XXXXXX) || skip "cannot make a folder in /run"
RURI=$("$TOP/tools/libvirtd-remote" start "$R" "$T")
case $? in
0) ;;
2) skip "a libvirtd in a mount namespace cannot start here (see above)" ;;
*) fail "the namespaced libvirtd did not answer"; exit 1 ;;
esac
# its URI names a socket of this machine (?socket=), which a matrix may
# name only when trusted (docs/matrix.md "Hosts"): this test's own are
export KBISECT_TRUST_MATRIX=1
virsh -c "$RURI" domcapabilities --virttype qemu >/dev/null 2>&1 ||
	skip "libvirt has no qemu (TCG) domains here"

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
q() { sqlite3 "$KBISECT_DB" "$1"; }
cp "$KERNEL" "$T/vmlinuz"

matrix() { # FILE HOSTLINE
	cat > "$1" <<YAML
name: hosts-ship-it
source: { kernel: $T/vmlinuz }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 512, boot_timeout_s: 120 }
workload:
  fio: { rw: randread, bs: 4k, size: 16m, runtime: 1, time_based: 1,
         ioengine: libaio, direct: 1 }
repeat: { boots: 2, runs_per_boot: 1 }
hosts: [$2]
YAML
}
# boots of experiment $1 as "STATUS COUNT" lines
statuses() {
	q "SELECT status || ' ' || count(*) FROM boots b
	   JOIN variants v ON v.id = b.variant_id
	   WHERE v.experiment_id = $1 GROUP BY status"
}

# ---- 1. no pool: the namespaced host sees none of the client's files -------
matrix "$T/local.yaml" "\"$RURI\""
"$KB" run "$T/local.yaml" > "$T/run1.out" 2> "$T/run1.err"
rc=$?
# libvirt cannot start a guest whose kernel it cannot open: a failure of
# the host, never stored as the kernel's boot; 3 of them drain it, and
# with no host left the run stops (kbisect resume would go on)
[ $rc != 0 ] && [ -z "$(statuses 1)" ] &&
	[ "$(q "SELECT count(*) FROM host_events WHERE experiment_id = 1
		AND kind = 'failure'")" = 3 ] &&
	grep -q "drained after 3 infrastructure failures" "$T/run1.err" ||
	fail "without a pool, expected the host drained and no boot stored (exit $rc): $(statuses 1) $(cat "$T/run1.err")"

# ---- 2. a pool: files shipped once, boots ok --------------------------------
matrix "$T/ship.yaml" "{ uri: \"$RURI\", pool: kbisect-it }"
t0=$(date +%s)
"$KB" run "$T/ship.yaml" > "$T/run2.out" 2> "$T/run2.err" ||
	{ fail "kbisect run with a pool failed:"; cat "$T/run2.out" "$T/run2.err"; }
echo "hosts-ship: run with a pool took $(($(date +%s) - t0)) s"
[ "$(statuses 2)" = "ok 2" ] || {
	fail "with a pool, expected 2 ok boots, got: $(statuses 2)"
	q "SELECT console_tail FROM boots" | tail -20
}
[ "$(grep -c "^  shipped $T/vmlinuz to pool kbisect-it" "$T/run2.err")" = 1 ] ||
	fail "the kernel was not shipped exactly once: $(cat "$T/run2.err")"
[ "$(grep -c '^  shipped .*initramfs.*to pool kbisect-it' "$T/run2.err")" = 1 ] ||
	fail "the initramfs was not shipped exactly once: $(cat "$T/run2.err")"
[ "$(q "SELECT count(*) FROM boots b JOIN variants v ON v.id = b.variant_id
	WHERE v.experiment_id = 2
	AND domain_xml LIKE '%<kernel>/var/lib/libvirt/kbisect-it/kb-f-kernel-%'
	AND domain_xml NOT LIKE '%$T%'")" = 2 ] ||
	fail "the domain XML does not name the pool's kernel, or names a client path"

# ---- 3. again: nothing crosses, nothing is left -----------------------------
"$KB" run "$T/ship.yaml" > "$T/run3.out" 2> "$T/run3.err" ||
	{ fail "the second run failed:"; cat "$T/run3.err"; }
[ "$(statuses 3)" = "ok 2" ] || fail "second run: $(statuses 3)"
grep -q "shipped" "$T/run3.err" && fail "the second run shipped again: $(cat "$T/run3.err")"
vols=$(virsh -c "$RURI" vol-list kbisect-it --details 2>/dev/null | awk 'NR > 2 && NF { print $1 }')
echo "$vols" | grep -q '^kb-boot-' && fail "boot volumes left in the pool: $vols"
[ "$(echo "$vols" | grep -c '^kb-f-')" = 4 ] ||
	fail "expected a kernel, an initramfs and their markers in the pool: $vols"
virsh -c "$RURI" list --name | grep -q '^kbisect-' && fail "a guest was left running"

# ---- 4. two hosts, one lost mid-run -----------------------------------------
# this machine's libvirtd (private) and the namespaced one; the boots are
# spread over both; the namespaced libvirtd is killed while a guest of it
# runs: its host is drained, its failures are not the kernel's, and the
# experiment completes on the other host
libvirt_start
cat > "$T/two.yaml" <<YAML
name: hosts-two-it
source: { kernel: $T/vmlinuz }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 512, boot_timeout_s: 120 }
workload:
  fio: { rw: randread, bs: 4k, size: 16m, runtime: 4, time_based: 1,
         ioengine: libaio, direct: 1 }
repeat: { boots: 4, runs_per_boot: 1 }
hosts: ["$URI", { uri: "$RURI", pool: kbisect-it }]
YAML
"$KB" run "$T/two.yaml" > "$T/run4.out" 2> "$T/run4.err" &
runpid=$!
n=0
until virsh -c "$RURI" list --name 2>/dev/null | grep -q '^kbisect-'; do
	n=$((n + 1))
	[ $n -lt 600 ] || break
	sleep 0.2
done
if [ $n -ge 600 ]; then
	fail "no guest started on the namespaced host"
else
	kill -9 "$(cat "$R/libvirtd.pid")"
	echo "hosts-ship: killed the namespaced libvirtd while its guest ran"
fi
wait $runpid
rc=$?
[ $rc = 0 ] || { fail "the two-host run failed ($rc):"; cat "$T/run4.out" "$T/run4.err"; }
[ "$(statuses 4)" = "ok 4" ] ||
	fail "two hosts: expected 4 ok boots (the lost host's not counted), got: $(statuses 4)"
grep -q "host $RURI drained after 3 infrastructure failures" "$T/run4.err" ||
	fail "the lost host was not said to be drained: $(cat "$T/run4.err")"
[ "$(q "SELECT count(*) FROM host_events WHERE experiment_id = 4
	AND host = '$RURI' AND kind = 'failure'")" -ge 3 ] ||
	fail "no infrastructure failures of the lost host stored"
"$KB" hosts 4 > "$T/hosts.out" 2>&1 || fail "kbisect hosts 4 failed: $(cat "$T/hosts.out")"
grep -q "drained" "$T/hosts.out" || fail "kbisect hosts does not show the drained host: $(cat "$T/hosts.out")"
sed 's/^/  /' "$T/hosts.out"

echo "hosts-ship: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "hosts-ship: ok"
