#!/bin/sh
# kbisect's machine executor on a real (emulated) machine: tools/machine-qemu
# as a `machine` host (docs/machines.md) with the distro kernel.
#
#  1. 2 boots x 2 runs of a command workload: 4 samples, both boots ok on
#     machine:qemu1, the machine left off;
#  2. a workload that hangs past workload.timeout_s: stored as
#     workload-timeout, the machine booted back into its known-good boot
#     (Debian's initramfs at break=top, ready text "(initramfs)") and left
#     off.
#
# Usage: tests/integration/machine-qemu-run.sh path/to/kbisect
# Exit status: 0 passed, 1 failed, 77 skipped (the reason on stdout).
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
cd "$(dirname "$0")/../.." || exit 1
skip() { echo "machine-qemu-run: SKIP: $*"; exit 77; }
die() { echo "machine-qemu-run: FAIL: $*"; exit 1; }

. tests/integration/lib/guest-helper.sh
# shellcheck disable=SC2034 # modules: set by guest_distro_kernel, unused here
kernel='' modules=''
guest_distro_kernel
initrd=/boot/initrd.img-${kernel#/boot/vmlinuz-}
[ -r "$initrd" ] || skip "no $initrd for the known-good boot"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"

MQ=$PWD/tools/machine-qemu
T=$(mktemp -d /var/tmp/kbisect-machine-qemu-run.XXXXXX) || exit 1
chmod 755 "$T"
M=$T/m
cleanup() {
	"$MQ" power off "$M" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export KBISECT_TRUST_MATRIX=1 KBISECT_LOCK_DIR="$T" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"

"$MQ" init "$M" || die "init failed"

# matrix NAME WORKLOAD BOOTS RUNS
matrix() {
	cat > "$T/$1.yaml" <<YAML
name: $1
source: { kernel: $kernel }
workload: $2
repeat: { boots: $3, runs_per_boot: $4 }
hosts:
  - machine:
      name: qemu1
      power:
        on: [$MQ, power, on, $M]
        off: [$MQ, power, off, $M]
        cycle: [$MQ, power, cycle, $M]
      console: [$MQ, console, $M]
      boot: { method: command, command: [$MQ, boot, $M] }
      known_good:
        kernel: $kernel
        initrd: $initrd
        cmdline: "console=ttyS0,115200 break=top"
        ready: "(initramfs)"
      boot_timeout_s: 180
YAML
}
q() { sqlite3 "$T/$1.db" "$2"; }
off() { [ ! -s "$M/qemu.pid" ] || die "$1: the machine was left on (pid $(cat "$M/qemu.pid"))"; }

# ---- 1. samples ------------------------------------------------------------
matrix ok '{ command: { run: "echo hello" } }' 2 2
s=$(date +%s)
"$KB" run "$T/ok.yaml" --db "$T/ok.db" > "$T/ok.out" 2>&1 ||
	die "run ok.yaml: $(tail -5 "$T/ok.out")"
ok_s=$(($(date +%s) - s))
n=$(q ok "SELECT count(*) FROM samples WHERE metric = 'real_s'")
[ "$n" = 4 ] || die "ok: $n real_s samples, want 4"
b=$(q ok "SELECT group_concat(host || ' ' || status, ', ') FROM boots")
[ "$b" = "machine:qemu1 ok, machine:qemu1 ok" ] || die "ok: boots '$b'"
off ok

# ---- 2. a hang: the variant's failure, the machine back and off ------------
matrix hang '{ command: { run: "sleep 600" }, timeout_s: 20 }' 1 1
s=$(date +%s)
"$KB" run "$T/hang.yaml" --db "$T/hang.db" > "$T/hang.out" 2>&1 ||
	die "run hang.yaml: $(tail -5 "$T/hang.out")"
hang_s=$(($(date +%s) - s))
b=$(q hang "SELECT host || ' ' || status || ' ' || coalesce(reason, '') FROM boots")
case $b in
"machine:qemu1 workload-timeout "*"booted back into its known-good kernel") ;;
*) die "hang: boots '$b'" ;;
esac
grep -q '(initramfs)' "$M/serial.log" || die "hang: no known-good boot on the console"
off hang

echo "machine-qemu-run: PASS (2 boots x 2 runs in $ok_s s; a hang stored and the machine recovered in $hang_s s)"
