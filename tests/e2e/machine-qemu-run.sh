#!/bin/sh
# kbisect's machine executor on a real (emulated) machine: tools/machine-qemu
# as a `machine` host (docs/machines.md) with the distro kernel.
#
#  1. 2 boots x 2 runs of a command workload: 4 samples, both boots ok on
#     machine:qemu1, the machine left off;
#  1b. the same kernel natively and as Xen 4.17's dom0 (factors.machine):
#     both ok, Xen on the console; kbisect repro's boot.sh boots the dom0
#     variant again and prints its metric;
#  2. a workload that hangs past workload.timeout_s: stored as
#     workload-timeout, the machine booted back into its known-good boot
#     (Debian's initramfs at break=top, ready text "(initramfs)") and left
#     off.
#
# Usage: tests/e2e/machine-qemu-run.sh path/to/kbisect
# Exit status: 0 passed or skipped ("SKIP: " and the reason on stdout), 1 failed.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
cd "$(dirname "$0")/../.." || exit 1
skip() { echo "machine-qemu-run: SKIP: $*"; exit 0; }
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

xen=$("$MQ" xen "$M") || skip "no Xen image (tools/machine-qemu xen)"

# matrix NAME WORKLOAD BOOTS RUNS [FACTORS]
matrix() {
	cat > "$T/$1.yaml" <<YAML
name: $1
source: { kernel: $kernel }
${5:-}
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
      xen: $xen
      xen_cmdline: "dom0_max_vcpus=2 dom0_vcpus_pin"
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

# ---- 1b. the same kernel natively and as Xen's dom0 (factors.machine) ------
matrix dom0 '{ command: { run: "grep -c ^processor /proc/cpuinfo; cat /sys/hypervisor/type 2>/dev/null || echo none" } }' 1 1 \
	'factors: { machine: { hypervisor: [none, xen] } }'
s=$(date +%s)
"$KB" run "$T/dom0.yaml" --db "$T/dom0.db" > "$T/dom0.out" 2>&1 ||
	die "run dom0.yaml: $(tail -5 "$T/dom0.out")"
dom0_s=$(($(date +%s) - s))
b=$(q dom0 "SELECT group_concat(x, ', ') FROM (SELECT v.label || ' ' || b.status || ' ' ||
	json_extract(b.environment, '$.hypervisor') x
	FROM boots b JOIN variants v ON v.id = b.variant_id ORDER BY v.idx)")
[ "$b" = "machine.hypervisor=none ok none, machine.hypervisor=xen ok xen" ] || die "dom0: boots '$b'"
n=$(q dom0 "SELECT count(*) FROM samples WHERE metric = 'real_s'")
[ "$n" = 2 ] || die "dom0: $n real_s samples, want 2"
grep -q "Xen version 4.17" "$M/serial.log" || die "dom0: Xen did not boot (no 'Xen version 4.17' on the console)"
# the command's output: dom0 runs under Xen (/sys/hypervisor/type), natively none
tail_of() {
	q dom0 "SELECT b.console_tail FROM boots b JOIN variants v ON v.id = b.variant_id
		WHERE v.label = 'machine.hypervisor=$1'" | tr -d '\r'
}
tail_of none | grep -qx none || die "dom0: the native boot's workload saw a hypervisor: $(tail_of none | tail -5)"
tail_of xen | grep -qx xen || die "dom0: the dom0 boot's workload saw no Xen: $(tail_of xen | tail -5)"
# kbisect repro of the dom0 boot: boot.sh boots it again, as dom0
v=$(q dom0 "SELECT idx FROM variants WHERE label = 'machine.hypervisor=xen'")
"$KB" repro 1 "$v" --db "$T/dom0.db" -o "$T/rep" > "$T/rep.out" 2>&1 ||
	die "repro of the dom0 boot: $(cat "$T/rep.out")"
: > "$M/serial.log"
(cd "$T/rep" && ./boot.sh) > "$T/rep-boot.out" 2>&1 ||
	die "repro: boot.sh failed: $(tail -5 "$T/rep-boot.out")"
grep -q "^real_s [0-9.]* (the mean of 1 run" "$T/rep-boot.out" ||
	die "repro: boot.sh printed $(cat "$T/rep-boot.out")"
grep -q "Xen version 4.17" "$T/rep/console.log" || die "repro: boot.sh did not boot Xen"
off dom0

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

echo "machine-qemu-run: PASS (2 boots x 2 runs in $ok_s s; native and dom0 in $dom0_s s; a hang stored and the machine recovered in $hang_s s)"
