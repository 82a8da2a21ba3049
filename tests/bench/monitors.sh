#!/bin/sh
# What the guest's monitors (workload.monitors, lib/monitor.h) cost per
# boot, on real boots: the distro kernel under plain QEMU TCG with a
# command workload (a busybox loop, 3 runs a boot), BOOTS boots with every
# monitor and BOOTS without, alternating.  Prints per boot the seconds
# from start to power-off, the bytes of monitors frames on the console,
# the monitors stored (values of 0 are not) and their bytes in sqlite
# (a monitors table as db/0017's, filled with them), and the primary
# metric's (real_s) mean and boot-to-boot CV with and without.
#
# Usage: tests/bench/monitors.sh [KBISECT]  (from the checkout); BOOTS=3
# Skips when qemu, busybox-static or a distro kernel is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
skip() { echo "monitors bench: SKIP: $*"; exit 0; }
die() { echo "monitors bench: FAIL: $*"; exit 1; }
. tests/integration/lib/guest-helper.sh
guest_distro_kernel
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
boots=${BOOTS:-3}
tmp=$(mktemp -d /tmp/kbisect-monitors-bench.XXXXXX) || exit 1
qpid=
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
guest_helper "$tmp/helper"
cmd='i=0; while [ $i -lt 2000 ]; do /bin/busybox true; i=$((i+1)); done; echo "n 1"'
on=$("$tmp/helper" command "$tmp/cache" 3 "$modules" "$cmd" 2>/dev/null) || die "initramfs"
off=$(GUEST_USERLAND_MONITORS=0 "$tmp/helper" command "$tmp/cache" 3 "$modules" "$cmd" 2>/dev/null) || die "initramfs"

# boot IMAGE LOG: seconds from start to power-off on stdout
boot() {
	t0=$(date +%s.%N)
	timeout 300 qemu-system-x86_64 -machine pc -accel tcg -cpu qemu64 -m 512 -smp 1 \
		-display none -monitor none -no-reboot -serial "file:$2" \
		-kernel "$kernel" -initrd "$1" \
		-append "console=ttyS0 panic=-1 loglevel=4" &
	qpid=$!
	wait "$qpid"
	qpid=
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f\n", $1 - $2 }'
}
: >"$tmp/rows"
k=1
while [ $k -le "$boots" ]; do
	for mode in on off; do
		img=$on; [ $mode = off ] && img=$off
		s=$(boot "$img" "$tmp/c.log")
		out=$("$tmp/helper" console "$tmp/c.log" 3 'n ([0-9]+)' n) ||
			die "boot $k ($mode) did not judge ok: $out"
		real=$(echo "$out" | awk '$1 == "run" && $3 == "real_s" { s += $4; n++ } END { printf "%.4f", s / n }')
		nmon=$(echo "$out" | grep -c '^monitor ')
		bytes=$(tr -d '\r' <"$tmp/c.log" | awk '/^KBISECT-MONITORS / { s += $3 } END { print s + 0 }')
		echo "$out" | awk -v b=$k '$1 == "monitor" { print b "|" $2 "|" $3 "|" $4 }' >>"$tmp/rows.$mode"
		echo "$mode $k $s $real $nmon $bytes" >>"$tmp/rows"
		echo "monitors bench: boot $k monitors $mode: ${s} s, real_s $real, $nmon monitors, $bytes console bytes"
	done
	k=$((k + 1))
done
# the bytes the monitors take in sqlite: db/0017's table, filled
sqlite3 "$tmp/m.db" "CREATE TABLE monitors (boot_id INTEGER NOT NULL, run_no INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY (boot_id, run_no, name)) WITHOUT ROWID;" &&
	sqlite3 -separator '|' "$tmp/m.db" ".import $tmp/rows.on monitors" || die "sqlite"
dbytes=$(sqlite3 "$tmp/m.db" "PRAGMA page_count;" | awk -v ps="$(sqlite3 "$tmp/m.db" 'PRAGMA page_size;')" '{ print $1 * ps }')
awk -v boots="$boots" -v db="$dbytes" '
	{ n[$1]++; s[$1] += $3; r[$1] += $4; r2[$1] += $4 * $4; m[$1] += $5; b[$1] += $6 }
	END {
		for (k in n) {
			mean = r[k] / n[k]; sd = sqrt((r2[k] - n[k] * mean * mean) / (n[k] - 1))
			printf "monitors bench: monitors %-3s %d boots: %.2f s a boot, real_s %.4f ± %.1f%% (boot CV), %.0f monitors and %.0f console bytes a boot\n",
			       k, n[k], s[k] / n[k], mean, 100 * sd / mean, m[k] / n[k], b[k] / n[k]
		}
		printf "monitors bench: stored: %.0f bytes a boot in sqlite (a monitors table of %d boots: %d bytes; pages, so an upper bound)\n", db / boots, boots, db
		printf "monitors bench: seconds added a boot: %+.2f\n", s["on"] / n["on"] - s["off"] / n["off"]
	}' "$tmp/rows"
