#!/bin/sh
# The guest userland for real: build the fio initramfs (lib/exec/initramfs.c,
# guests/init), boot the distro kernel with it under plain QEMU TCG (no
# libvirt) with a raw scratch disk on virtio, capture the serial console,
# and check that the result frames parse into non-zero read IOPS
# (lib/console.c, lib/fio.c).
#
# Usage: tests/integration/guest-userland.sh [KBISECT]  (from the checkout)
# Env: KBISECT_LIBKB (default build/libkb.a), KEEP=1 keeps the scratch folder.
set -u
cd "$(dirname "$0")/../.." || exit 1

skip() { echo "guest-userland: SKIP: $*"; exit 0; }
die() { echo "guest-userland: FAIL: $*"; exit 1; }

# -- kbisect fio-metrics on saved fio outputs (no guest needed)
kbisect=${1:-./kbisect}
out=$("$kbisect" fio-metrics tests/data/fio/randrw-libaio.json) ||
	die "fio-metrics refused a good file"
echo "$out" | grep -q '^read_iops  *12562.219$' || die "fio-metrics: $out"
echo "$out" | grep -q '^write_lat_p99_us  *3424.256$' || die "fio-metrics: $out"
"$kbisect" fio-metrics tests/data/fio/numjobs2.json --json |
	grep -q '"read_bw_kib": 186552' || die "fio-metrics --json"
err=$("$kbisect" fio-metrics tests/fuzz/corpus/fio/truncated.json 2>&1)
[ $? -eq 2 ] || die "fio-metrics on a truncated file: want exit status 2"
echo "$err" | grep -q 'truncated.json' || die "fio-metrics error lacks the file: $err"

. tests/integration/lib/guest-helper.sh
guest_distro_kernel
command -v fio >/dev/null || skip "fio is not installed (tools/deps)"

tmp=$(mktemp -d /tmp/kbisect-guest-userland.XXXXXX) || exit 1
qpid=
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	[ "${KEEP:-0}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

guest_helper "$tmp/helper"

start=$(date +%s)
img=$("$tmp/helper" initramfs "$tmp/cache" 2 "$modules" \
	rw=randread bs=4k ioengine=libaio iodepth=4 direct=1 size=32M \
	runtime=2 time_based=1) || die "cannot build the initramfs"
size=$(stat -c %s "$img")
echo "guest-userland: initramfs $size bytes ($((size / 1048576)) MiB gzipped)"

# the cache hands back the same archive without rebuilding
img2=$("$tmp/helper" initramfs "$tmp/cache" 2 "$modules" \
	rw=randread bs=4k ioengine=libaio iodepth=4 direct=1 size=32M \
	runtime=2 time_based=1 2>/dev/null) || die "cache lookup failed"
[ "$img" = "$img2" ] || die "the cache built a second archive: $img2"

truncate -s 64M "$tmp/disk.img"

# boot IMAGE CONSOLE: boot the distro kernel with IMAGE until it powers off
# (or the time limit); the serial console goes to CONSOLE
boot() {
	boot0=$(date +%s)
	qemu-system-x86_64 -machine pc -accel tcg -cpu qemu64 -m 768 -smp 1 \
		-display none -monitor none -no-reboot \
		-serial "file:$2" \
		-kernel "$kernel" -initrd "$1" \
		-append "console=ttyS0 panic=-1 loglevel=4" \
		-drive "file=$tmp/disk.img,format=raw,if=virtio,cache=unsafe" &
	qpid=$!
	limit=120
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $(($(date +%s) - boot0)) -ge $limit ]; then
			tail -n 30 "$2"
			die "the guest did not finish in $limit s"
		fi
		grep -q 'KBISECT-DONE\|KBISECT-ERROR\|Kernel panic' "$2" 2>/dev/null &&
			sleep 2 && break
		sleep 0.5
	done
	if kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid"
	fi
	wait "$qpid" 2>/dev/null
	qpid=
	echo "guest-userland: boot took $(($(date +%s) - boot0)) s"
}

console=$tmp/console.log
boot "$img" "$console"

out=$("$tmp/helper" console "$console" 2)
rc=$?
echo "$out" | sed 's/^/guest-userland: /'
if [ $rc -ne 0 ]; then
	tail -n 40 "$console"
	die "the console did not judge ok"
fi
for run in 1 2; do
	iops=$(echo "$out" | awk -v r="$run" '$1 == "run" && $2 == r && $3 == "read_iops" { print $4 }')
	[ -n "$iops" ] || die "run $run has no read_iops"
	awk -v v="$iops" 'BEGIN { exit !(v > 0) }' || die "run $run: read_iops is $iops"
done

# -- a command workload: timed, and a number taken from its output
cimg=$("$tmp/helper" command "$tmp/cache" 2 "$modules" \
	'echo "warming up"; echo "rate: 42.5 ops/s"; sleep 0.3') ||
	die "cannot build the command initramfs"
boot "$cimg" "$tmp/command.log"
out=$("$tmp/helper" console "$tmp/command.log" 2 'rate: ([0-9.]+)' ops)
rc=$?
echo "$out" | sed 's/^/guest-userland: /'
if [ $rc -ne 0 ]; then
	tail -n 40 "$tmp/command.log"
	die "the command console did not judge ok"
fi
echo "$out" | grep -q '^run 2 ops 42.5$' || die "run 2 has no ops metric"
# the monitors of each run (workload.monitors, lib/monitor.h): the page
# faults of the command, the timer and the console's interrupts, the
# scheduler's time; the metrics above are the same with them
for run in 1 2; do
	for m in vmstat.pgfault schedstat.cpu_time; do
		echo "$out" | awk -v r="$run" -v m="$m" '$1 == "monitor" && $2 == r && $3 == m && $4 > 0 { f = 1 } END { exit !f }' ||
			die "run $run has no monitor $m above 0"
	done
	echo "$out" | grep -q "^monitor $run irq\." || die "run $run has no interrupt monitor"
done
mbytes=$(tr -d '\r' <"$tmp/command.log" | awk '/^KBISECT-MONITORS / { s += $3 } END { print s + 0 }')
echo "guest-userland: $(echo "$out" | grep -c '^monitor 1 ') monitors in run 1 ($mbytes bytes of monitors frames on the console over 2 runs), e.g. $(echo "$out" | grep '^monitor 1 vmstat.pgfault ')"
real=$(echo "$out" | awk '$1 == "run" && $2 == 1 && $3 == "real_s" { print $4 }')
awk -v v="$real" 'BEGIN { exit !(v >= 0.3 && v < 10) }' ||
	die "run 1: real_s is '$real', expected about 0.3"
# -- a profile (workload.profile, lib/profile.h): perf record -a -g around
# each run, folded into a KBISECT-PROFILE frame.  The distro kernel has
# PERF_EVENTS and KALLSYMS; without a guest image the initramfs brings the
# host's perf (linux-perf) and its libraries (lib/exec/initramfs.h).  The
# same boot without a profile gives the seconds the profile adds.
perf=$(command -v perf)
if [ -z "$perf" ] || ! "$perf" --version >/dev/null 2>&1; then
	skip "perf is not installed (linux-perf): no profile check"
fi
pcmd='i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=/tmp/z bs=64k count=64 2>/dev/null; cat /tmp/z >/dev/null; i=$((i + 1)); done'
noimg=$("$tmp/helper" command "$tmp/cache" 1 "$modules" "$pcmd" 2>/dev/null) ||
	die "cannot build the command initramfs without a profile"
pimg=$(GUEST_USERLAND_PROFILE=199 "$tmp/helper" command "$tmp/cache" 1 "$modules" "$pcmd") ||
	die "cannot build the profile initramfs"
cp "$noimg" "$tmp/noprof.img"
cp "$pimg" "$tmp/prof.img"
echo "guest-userland: profile initramfs $(stat -c %s "$pimg") bytes, $(stat -c %s "$noimg") without"
boot "$tmp/noprof.img" "$tmp/noprof.log"
t_noprof=$(($(date +%s) - boot0))
grep -q 'KBISECT-PROFILE' "$tmp/noprof.log" && die "a boot without workload.profile printed a profile frame"
boot "$tmp/prof.img" "$tmp/prof.log"
t_prof=$(($(date +%s) - boot0))
grep -q 'KBISECT-DONE 1' "$tmp/prof.log" || { tail -n 40 "$tmp/prof.log"; die "the profile boot did not finish its run"; }
# the frame comes before the run's monitors and result frames
order=$(tr -d '\r' <"$tmp/prof.log" | awk '/^KBISECT-(PROFILE|MONITORS|BEGIN) 1 / { printf "%s ", $1 }')
[ "$order" = "KBISECT-PROFILE KBISECT-MONITORS KBISECT-BEGIN " ] ||
	die "frames come as '$order', want the profile, the monitors, the result"
pout=$("$tmp/helper" profile "$tmp/prof.log" 1) || { tail -n 40 "$tmp/prof.log"; die "no profile frame that parses"; }
stacks=$(echo "$pout" | awk '$1 == "stacks" { print $2 }')
# kernel functions by name: the idle loop or the syscall entry
echo "$pout" | grep -Eq '^stack [0-9]+ .*(entry_SYSCALL_64|do_syscall_64|do_idle|default_idle)' ||
	die "the profile names no kernel function: $(echo "$pout" | head -5)"
echo "guest-userland: profile: $(echo "$pout" | awk '$1 == "bytes" { print $2 }') bytes, $stacks stacks, $(echo "$pout" | awk '$1 == "samples" { print $2 }') samples; boot $t_prof s with it, $t_noprof s without"
echo "guest-userland: profile's top stack: $(echo "$pout" | awk '$1 == "stack"' | sort -k2,2nr | head -1 | cut -c1-200)"
echo "guest-userland: ok: all in $(($(date +%s) - start)) s"
