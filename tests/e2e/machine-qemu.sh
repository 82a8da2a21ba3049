#!/bin/sh
# tools/machine-qemu through the machine contract alone (docs/machines.md),
# no kbisect executor: a console follows the machine's serial line all along
# while the distro kernel boots with a busybox initramfs natively, then as
# Xen's dom0; each boot's lines must reach the console whole, byte for byte
# and at line starts (a long payload among them), the root image must come
# up fresh on every boot and never be written, and the machine must go off
# by itself when its kernel powers off.  Then the power and boot commands'
# refusals: power on with no boot chosen, usage errors; power off twice.
# Commas of the kernel's command line reach it, natively and as dom0.  Prints the boot-to-poweroff times.
#
# Usage: tests/e2e/machine-qemu.sh  (from anywhere)
# Exit status: 0 passed or skipped ("SKIP: " and the reason on stdout), 1 failed.
# Env: KEEP=1 keeps the scratch folder; MACHINE_QEMU_TIMEOUT (s, per boot,
# default 300).
set -u
cd "$(dirname "$0")/../.." || exit 1
PATH=$PATH:/usr/sbin:/sbin

skip() { echo "machine-qemu: SKIP: $*"; exit 0; }
die() { echo "machine-qemu: FAIL: $*"; exit 1; }
say() { echo "machine-qemu: $*"; }

. tests/integration/lib/guest-helper.sh
kernel='' modules=''
guest_distro_kernel
for p in qemu-img cpio gzip mkfs.ext4 sha256sum base64; do
	command -v "$p" >/dev/null || skip "$p is not installed (tools/deps)"
done
/bin/busybox --list 2>/dev/null | grep -qx findfs ||
	skip "busybox has no findfs"

mq=$PWD/tools/machine-qemu
timeout=${MACHINE_QEMU_TIMEOUT:-300}
tmp=$(mktemp -d /var/tmp/kbisect-machine-qemu.XXXXXX) || exit 1
chmod 755 "$tmp"
m=$tmp/machine
cpid=
cleanup() {
	"$mq" power off "$m" 2>/dev/null
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the initramfs and the root image --------------------------------------

# a long line of known bytes: every printable ASCII character but space,
# 8 KiB of it
base64 -w 0 < /dev/urandom 2>/dev/null | tr -d '\n' | head -c 6000 > "$tmp/p1"
printf '%s' '!"#$%&()*+,-./:;<=>?@[\]^_`{|}~' >> "$tmp/p1"
head -c 2161 /dev/urandom | base64 -w 0 | head -c 2161 >> "$tmp/p1"
payload=$(cat "$tmp/p1")
[ ${#payload} -ge 8000 ] || die "the payload is ${#payload} bytes"

r=$tmp/initramfs
mkdir -p "$r/bin" "$r/lib/mod" || exit 1
cp /bin/busybox "$r/bin/busybox" || exit 1
cp "$tmp/p1" "$r/payload"
: > "$r/modules.order"
if [ "$modules" != - ]; then
	kver=${kernel#/boot/vmlinuz-}
	for mod in virtio_pci virtio_blk crc32c_generic ext4; do
		modprobe -S "$kver" --show-depends "$mod" 2>/dev/null |
			sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++' | while read -r f; do
		cp "$f" "$r/lib/mod/" && echo "/lib/mod/${f##*/}" >> "$r/modules.order"
	done
fi
cat > "$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /mnt
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
/bin/busybox --install -s /bin
export PATH=/bin
exec </dev/console >/dev/console 2>&1
while read -r m; do
	case $m in *.xz) ;; *) insmod "$m" 2>/dev/null ;; esac
done < /modules.order
echo "KBISECT-START 1"
echo "KBISECT-CMDLINE $(cat /proc/cmdline)"
echo "KBISECT-SHAPE cpus=$(nproc) mem_kb=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo) hypervisor=$(cat /sys/hypervisor/type 2>/dev/null || echo none)"
i=0
while ! dev=$(findfs LABEL=kbisect-root 2>/dev/null) && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$dev" ] && mount -t ext4 "$dev" /mnt; then
	if [ -e /mnt/written ]; then state=dirty; else state=clean; fi
	echo "KBISECT-ROOT $(cat /mnt/hello) $state"
	echo "written by a boot" > /mnt/written
	umount /mnt
else
	echo "KBISECT-ROOT none"
fi
echo "KBISECT-PAYLOAD $(cat /payload)"
echo "KBISECT-DONE 1"
sync
poweroff -f
EOF
chmod 755 "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp/initrd.gz" ||
	die "cannot make the initramfs"

mkdir -p "$tmp/rootfs" && echo hello-from-the-root-image > "$tmp/rootfs/hello"
mkfs.ext4 -q -F -L kbisect-root -d "$tmp/rootfs" "$tmp/root.ext4" 16M > /dev/null ||
	die "cannot make the root image"
chmod 444 "$tmp/root.ext4"
root_sum=$(sha256sum < "$tmp/root.ext4")

# ---- the machine and its console -------------------------------------------

"$mq" init "$m" --mem 1024 --cpus 2 || die "init failed"
"$mq" init "$m" --mem 1024 --cpus 2 || die "init a second time failed"

out=$("$mq" power on "$m" 2>&1)
rc=$?
[ $rc -eq 1 ] || die "power on with no boot chosen: exit $rc, want 1"
echo "$out" | grep -q '^machine-qemu: ' || die "power on with no boot chosen says: $out"

"$mq" console "$m" > "$tmp/console" &
cpid=$!
sleep 0.5
kill -0 "$cpid" 2>/dev/null || die "the console ended at once"

# The console's lines from byte OFFSET on, carriage returns dropped (the
# serial line ends lines with "\r\n", Xen's dom0 with "\r\r\n").
since() { tail -c +"$(($1 + 1))" "$tmp/console" | tr -d '\r'; }

# boot_and_wait NAME POWER: start the chosen boot with `power POWER`, wait
# until KBISECT-DONE and the machine's end; sets secs and off (the new part
# of the console in $tmp/NAME.log)
boot_and_wait() {
	name=$1
	off=$(stat -c %s "$tmp/console")
	t0=$(date +%s.%N)
	"$mq" power "$2" "$m" || die "$name: power $2 failed"
	pid=$(cat "$m/qemu.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "$name: no QEMU runs after power $2"
	"$mq" power on "$m" || die "$name: power on when on failed"
	[ "$(cat "$m/qemu.pid")" = "$pid" ] || die "$name: power on when on started another QEMU"
	while kill -0 "$pid" 2>/dev/null &&
	      [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
		if [ "$(echo "$(date +%s.%N) - $t0 > $timeout" | bc)" = 1 ]; then
			since "$off" | tail -20
			die "$name: the machine is still on after $timeout s"
		fi
		sleep 0.2
	done
	t1=$(date +%s.%N)
	secs=$(printf '%.1f' "$(echo "$t1 - $t0" | bc)")
	sleep 1	# tail -F's last read
	since "$off" > "$tmp/$name.log"
}

# check NAME HYPERVISOR ROOTSTATE: the boot's lines, whole at line starts
check() {
	l=$tmp/$1.log
	for line in "KBISECT-START 1" "KBISECT-DONE 1" \
		    "KBISECT-ROOT hello-from-the-root-image $3" \
		    "KBISECT-PAYLOAD $payload"; do
		n=$(grep -c -x -F -e "$line" "$l")
		[ "$n" = 1 ] || { tail -5 "$l" | cut -c1-200
			die "$1: '$(echo "$line" | cut -c1-40)...' is on $n whole lines of the console, want 1"; }
	done
	grep -q "^KBISECT-SHAPE cpus=2 mem_kb=[0-9]* hypervisor=$2\$" "$l" ||
		die "$1: $(grep KBISECT-SHAPE "$l")"
	say "$1: $(grep '^KBISECT-SHAPE' "$l" | cut -d' ' -f2-), boot to poweroff $secs s"
}

# ---- native ----------------------------------------------------------------

"$mq" boot "$m" --kernel "$kernel" --initrd "$tmp/initrd.gz" \
	--cmdline "console=ttyS0,115200 panic=-1 quiet kbisect.t=a,b" \
	--root "$tmp/root.ext4" ||
	die "boot (native) failed"
boot_and_wait native on
check native none clean
grep -qx 'KBISECT-CMDLINE console=ttyS0,115200 panic=-1 quiet kbisect.t=a,b' "$tmp/native.log" ||
	die "native: the kernel got $(grep KBISECT-CMDLINE "$tmp/native.log")"
native_secs=$secs

# ---- Xen's dom0 ------------------------------------------------------------

xen=$("$mq" xen "$m") || skip "no Xen image (tools/xen-lab xen-image)"
[ -s "$xen" ] || die "xen printed '$xen'"
# the files handed to boot may go at once
cp "$kernel" "$tmp/kernel.copy" && cp "$tmp/initrd.gz" "$tmp/initrd.copy" &&
cp "$xen" "$tmp/xen.copy" || exit 1
"$mq" boot "$m" --kernel "$tmp/kernel.copy" --initrd "$tmp/initrd.copy" \
	--cmdline "console=hvc0 panic=-1 quiet kbisect.t=a,,b,c" \
	--root "$tmp/root.ext4" \
	--xen "$tmp/xen.copy" \
	--xen-cmdline "console=com1 com1=115200,8n1 dom0_max_vcpus=2 dom0_vcpus_pin" ||
	die "boot (Xen) failed"
rm -f "$tmp/kernel.copy" "$tmp/initrd.copy" "$tmp/xen.copy"
boot_and_wait xen cycle
check xen xen clean
grep -qx 'KBISECT-CMDLINE console=hvc0 panic=-1 quiet kbisect.t=a,,b,c' "$tmp/xen.log" ||
	die "xen: dom0 got $(grep KBISECT-CMDLINE "$tmp/xen.log")"
xen_secs=$secs
grep -q '^(XEN) Xen version 4\.17' "$tmp/xen.log" || die "no Xen 4.17 banner on the console"

[ "$(sha256sum < "$tmp/root.ext4")" = "$root_sum" ] || die "the root image was written"

# ---- power off, twice, while on --------------------------------------------

"$mq" power on "$m" || die "power on (third boot) failed"
pid=$(cat "$m/qemu.pid")
"$mq" power off "$m" || die "power off failed"
# a zombie is gone (the reaper here may not be an init system)
kill -0 "$pid" 2>/dev/null &&
	[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] &&
	die "QEMU $pid runs after power off"
"$mq" power off "$m" || die "power off when off failed"

# ---- usage errors ----------------------------------------------------------

for args in "power on" "power sideways $m" "boot $m --kernel $kernel" \
	    "init relative/dir" "init $m --mem lots" "boot $m --bogus x" \
	    "console" "frobnicate $m"; do
	# shellcheck disable=SC2086
	"$mq" $args > /dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || die "'machine-qemu $args': exit $rc, want 2"
done
"$mq" boot "$tmp/none" --kernel "$kernel" --initrd "$tmp/initrd.gz" \
	--cmdline x > /dev/null 2>&1
[ $? -eq 1 ] || die "boot on a folder init did not make: want exit 1"

kill "$cpid" && wait "$cpid" 2>/dev/null
kill -0 "$cpid" 2>/dev/null && die "the console does not end on SIGTERM"
cpid=
say "PASS (native $native_secs s, Xen $xen_secs s boot to poweroff under TCG)"
