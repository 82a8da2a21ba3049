#!/bin/sh
# A guest image made from Debian packages, for real (guest.image,
# lib/exec/guestimage.c): mmdebstrap builds a root filesystem with sysbench and
# a workload file from the host into an ext4 image; the distro kernel
# boots with it under QEMU (TCG) on a private libvirtd and runs sysbench,
# a program the initramfs does not have, from the image.  Then the same
# matrix again: the image comes from the cache, unchanged, and the boot
# sees none of the first boot's writes (each boot has its own overlay).
#
# Usage: tests/integration/guest-image.sh path/to/kbisect
# Needs Debian's package registry (mmdebstrap downloads ~30 MB once).
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
URI=qemu:///system
T=$(mktemp -d /var/tmp/kbisect-guest-image.XXXXXX)
chmod 755 "$T"
started=$(date +%s)
NAME=guest-image
. "$(dirname "$0")/lib/libvirt.sh"

cleanup() {
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

libvirt_need sqlite3 sha256sum mmdebstrap qemu-img
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is missing (e2fsprogs)"
libvirt_start

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
q() { sqlite3 "$KBISECT_DB" "$1"; }

echo 42 > "$T/answer.txt"
# the command fails (no number) unless the file is in the image and no
# earlier boot's mark is there
cat > "$T/image.yaml" <<YAML
name: guest-image-it
source: { kernel: $KERNEL }
guest:
  hypervisor: qemu
  vcpus: 1
  memory_mib: 512
  boot_timeout_s: 180
  image: { packages: [sysbench] }
workload:
  command:
    run: |
      test "\$(cat /data/answer.txt)" = 42 || exit 1
      test ! -e /var/boot-mark || exit 1
      touch /var/boot-mark
      sysbench cpu --cpu-max-prime=2000 --time=2 run
    regex: "events per second: *([0-9.]+)"
  files: [answer.txt]
  metric: events_per_s
  better: higher
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML

# run NO: kbisect run, one boot that must be ok
run() {
	t0=$(date +%s)
	"$KB" run "$T/image.yaml" > "$T/run$1.out" 2> "$T/run$1.err" ||
		{ fail "kbisect run $1 failed:"; cat "$T/run$1.out" "$T/run$1.err"; }
	echo "guest-image: run $1 took $(($(date +%s) - t0)) s"
	status=$(q "SELECT status || ': ' || coalesce(reason, '') FROM boots
		    JOIN variants v ON v.id = variant_id
		    WHERE v.experiment_id = $1")
	[ "$status" = "ok: " ] || {
		fail "run $1: the boot is '$status', expected ok"
		q "SELECT console_tail FROM boots" | tail -30
		exit 1
	}
	v=$(q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id
	       JOIN variants v ON v.id = b.variant_id
	       WHERE v.experiment_id = $1 AND s.metric = 'events_per_s'
	       AND s.value > 0")
	[ "$v" = 1 ] || fail "run $1: no events_per_s sample from sysbench"
}

run 1
grep -q "guest image built in" "$T/run1.err" ||
	fail "run 1 did not say it built the image: $(cat "$T/run1.err")"
set -- "$T"/cache/kbisect/images/*.ext4
[ $# = 1 ] && [ -f "$1" ] || { fail "no single image in the cache: $*"; exit 1; }
image=$1
sum=$(sha256sum < "$image")

run 2
grep -q "guest image from the cache" "$T/run2.err" ||
	fail "run 2 did not take the image from the cache: $(cat "$T/run2.err")"
[ "$(sha256sum < "$image")" = "$sum" ] || fail "a boot changed the cached image"
ls "$T"/kbisect-boot-* >/dev/null 2>&1 && fail "a boot folder was left behind"

# kbisect repro of a boot with an image: root.img from the cache, a new
# overlay over it made by boot.sh, which boots and prints the metric
R=$T/bug
if "$KB" repro 1 0 -o "$R" > "$T/repro.out" 2>&1; then
	[ -s "$R/root.img" ] || fail "kbisect repro wrote no root.img"
	grep -q "root.qcow2" "$R/domain.xml" || fail "domain.xml has no root overlay"
	"$R/boot.sh" > "$T/boot.out" 2> "$T/boot.err" ||
		{ fail "boot.sh failed:"; cat "$T/boot.err"; tail -20 "$R/console.log"; }
	grep -Eq '^run 1: events_per_s [0-9]+(\.[0-9]+)?$' "$T/boot.out" ||
		fail "boot.sh printed no events_per_s: $(cat "$T/boot.out")"
	[ -e "$R/root.qcow2" ] && fail "boot.sh left its overlay"
	[ "$(sha256sum < "$image")" = "$sum" ] || fail "boot.sh changed the cached image"
	virsh -c "$URI" domstate repro-kbisect-1-0 >/dev/null 2>&1 &&
		{ virsh -c "$URI" destroy repro-kbisect-1-0 >/dev/null 2>&1;
		  fail "boot.sh left its guest"; }
else
	fail "kbisect repro failed:"
	cat "$T/repro.out"
fi

echo "guest-image: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "guest-image: ok"
