#!/bin/sh
# End to end: the Xen lab (tools/xen-lab, docs/xen-lab.md).
#
#   tests/e2e/xen-lab.sh [./kbisect]    (make e2e runs it; ~2-3 min warm,
#                                        ~1 min more for the first image)
#
# Starts the lab in $KBISECT_E2E_DIR (default build/e2e/xen-lab), checks
# that `virsh capabilities` shows a Xen host, ships a Debian kernel and a
# busybox initramfs over the connection (a storage pool and vol-upload, as
# kbisect does for remote hosts), boots a PV domU through libvirt with one
# of the lab's HBAs passed through, checks on its console that it reached
# its /init and saw /dev/sda, and that it wrote a mark onto the HBA's disk
# (a file on this host); boots the same kernel as a PVH domU (without
# passthrough: Xen 4.17 refuses it to PVH) to the end of its /init; then
# stops the lab and prints the timings.
# XEN_LAB_URI=URI XEN_LAB_DIR=DIR: use a lab already running there (not
# stopped afterwards).  Needs root, like the lab.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${KBISECT_E2E_DIR:-$top/build/e2e/xen-lab}
fail() { echo "xen-lab.sh: FAIL: $*" >&2; exit 1; }
say() { echo "xen-lab.sh: $*"; }
now() { date +%s.%N | cut -c1-14; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || fail "needs root (tools/xen-lab)"
for p in virsh script busybox modprobe cpio gzip; do
	command -v "$p" >/dev/null 2>&1 || fail "'$p' is not installed"
done
mkdir -p "$work"
lab=${XEN_LAB_DIR:-$work/lab}
started=0
stop_lab() {
	[ "$started" = 1 ] && "$top/tools/xen-lab" stop "$lab"
	started=0
}
trap stop_lab EXIT
trap 'exit 1' INT TERM

t0=$(now)
if [ -n "${XEN_LAB_URI:-}" ]; then
	uri=$XEN_LAB_URI
else
	started=1
	uri=$("$top/tools/xen-lab" start "$lab" --hbas 2 | tail -1) ||
		fail "the lab does not start"
fi
t_lab=$(secs "$t0" "$(now)")
say "lab up in ${t_lab} s: $uri"

caps=$(virsh -c "$uri" capabilities) || fail "no capabilities from $uri"
echo "$caps" | grep -q '<os_type>xen</os_type>' ||
	fail "the capabilities show no Xen PV guests"
types=$(echo "$caps" | sed -n 's/.*<os_type>\(.*\)<\/os_type>.*/\1/p' |
	sort -u | tr '\n' ' ')
say "guest types: $types"

# ---- the domU: the Debian kernel and a busybox initramfs ----------------
kernel=
for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -rV); do
	[ -d "/lib/modules/${k#/boot/vmlinuz-}" ] && { kernel=$k; break; }
done
[ -n "$kernel" ] || fail "no /boot/vmlinuz-V with /lib/modules/V"
kver=${kernel#/boot/vmlinuz-}
t=$work/initrd.d
rm -rf "$t"
mkdir -p "$t/bin" "$t/mod"
cp "$(command -v busybox)" "$t/bin/busybox"
for m in xen-pcifront megaraid_sas sd_mod; do
	modprobe -S "$kver" --show-depends "$m" | sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | awk '!seen[$0]++' | while read -r f; do
	cp "$f" "$t/mod/" && echo "/mod/${f##*/}"
done > "$t/modules.order"
cat > "$t/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "XEN-LAB-DOMU-INIT $(uname -r)"
while read -r m; do insmod "$m" 2>/dev/null; done < /modules.order
i=0
while [ ! -b /dev/sda ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if [ -b /dev/sda ]; then
	echo "XEN-LAB-DOMU-SDA $(cat /sys/block/sda/size) sectors"
	echo XEN-LAB-MARK | dd of=/dev/sda bs=512 conv=sync,fsync 2>/dev/null
else
	echo "XEN-LAB-DOMU-NO-SDA"; lspci 2>/dev/null; ls /sys/bus/pci/devices
fi
echo XEN-LAB-DOMU-DONE
poweroff -f
EOF
chmod 755 "$t/init"
mkdir -p "$t/proc" "$t/sys" "$t/dev"
(cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"
rm -rf "$t"

# ---- shipped over the connection, as kbisect does for a remote host -----
pool=kbisect
t1=$(now)
virsh -c "$uri" pool-info "$pool" >/dev/null 2>&1 ||
	virsh -c "$uri" pool-create-as "$pool" dir \
		--target /var/lib/libvirt/kbisect --build >/dev/null ||
	fail "cannot create the pool"
for f in "$kernel:vmlinuz" "$work/initrd.gz:initrd.gz"; do
	src=${f%%:*} name=${f##*:}
	virsh -c "$uri" vol-delete "$name" --pool "$pool" >/dev/null 2>&1 || :
	virsh -c "$uri" vol-create-as "$pool" "$name" "$(stat -c %s "$src")" \
		--format raw >/dev/null &&
	virsh -c "$uri" vol-upload "$name" "$src" --pool "$pool" >/dev/null ||
		fail "cannot upload $src"
done
kpath=$(virsh -c "$uri" vol-path vmlinuz --pool "$pool")
ipath=$(virsh -c "$uri" vol-path initrd.gz --pool "$pool")
t_ship=$(secs "$t1" "$(now)")
say "kernel and initramfs shipped in ${t_ship} s"

# the first HBA: its BDF in dom0 and its disk on this host
bdf=$(head -1 "$lab/hbas" 2>/dev/null) || fail "no $lab/hbas"
hbaimg=$lab/hba0.img
bus=$(echo "$bdf" | cut -d: -f2) slot=$(echo "$bdf" | cut -d: -f3 | cut -d. -f1)
fn=${bdf##*.}
dd if=/dev/zero of="$hbaimg" bs=512 count=1 conv=notrunc 2>/dev/null
# boot_domu NAME MACHINE OSTYPE [HOSTDEV-XML]: a transient domain of the
# pool's kernel and initramfs, its console in $work/NAME.log ($con), run
# until it is gone; sets t_boot
boot_domu() {
	name=$1
	cat > "$work/$name.xml" <<EOF
<domain type='xen'>
  <name>$name</name>
  <memory unit='MiB'>256</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='$2'>$3</type>
    <kernel>$kpath</kernel>
    <initrd>$ipath</initrd>
    <cmdline>console=hvc0 panic=-1</cmdline>
  </os>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <console type='pty'><target type='xen' port='0'/></console>
    ${4:-}
  </devices>
</domain>
EOF
	virsh -c "$uri" destroy "$name" >/dev/null 2>&1 || :
	t2=$(now)
	virsh -c "$uri" create "$work/$name.xml" >/dev/null ||
		fail "libvirt does not start $name ($work/$name.xml)"
	# virsh console wants a terminal: script(1) gives it one
	con=$work/$name.log
	: > "$con"
	timeout 300 script -qfec "virsh -c $uri console $name --force" "$con" \
		</dev/null >/dev/null 2>&1 &
	cpid=$!
	i=0
	while ! grep -q 'XEN-LAB-DOMU-DONE' "$con" && [ $i -lt 3000 ]; do
		virsh -c "$uri" domstate "$name" >/dev/null 2>&1 || break
		sleep 0.1
		i=$((i + 1))
	done
	while virsh -c "$uri" domstate "$name" >/dev/null 2>&1 &&
		[ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	t_boot=$(secs "$t2" "$(now)")
	kill "$cpid" 2>/dev/null || :
	wait "$cpid" 2>/dev/null || :
	virsh -c "$uri" destroy "$name" >/dev/null 2>&1 || :
	grep -q 'XEN-LAB-DOMU-INIT' "$con" ||
		fail "$name's console shows no /init: $(tail -5 "$con")"
}

boot_domu kbisect-xenlab-pv xenpv linux "<hostdev mode='subsystem' type='pci' managed='no'>
      <source><address domain='0x0000' bus='0x$bus' slot='0x$slot' function='0x$fn'/></source>
    </hostdev>"
grep -q 'XEN-LAB-DOMU-SDA' "$con" ||
	fail "the domU saw no /dev/sda: $(grep XEN-LAB "$con")"
say "$(grep -a 'XEN-LAB-DOMU-SDA' "$con" | tr -d '\r')"
head -c 12 "$hbaimg" | grep -q XEN-LAB-MARK ||
	fail "the domU's mark is not on the HBA's disk $hbaimg"
say "PV domU with HBA $bdf: boot to gone in ${t_boot} s, mark on the disk"
t_pv=$t_boot

# PVH: the same kernel, no passthrough (libxl 4.17 refuses PCI devices
# to PVH guests); with the lab's AMD CPU it boots
boot_domu kbisect-xenlab-pvh xenpvh xenpvh
grep -q 'XEN-LAB-DOMU-DONE' "$con" ||
	fail "the PVH domU did not reach the end of its /init: $(tail -5 "$con")"
say "PVH domU: boot to gone in ${t_boot} s"

t3=$(now)
stop_lab
say "timings: lab start ${t_lab} s, ship ${t_ship} s, PV domU ${t_pv} s, PVH domU ${t_boot} s, stop $(secs "$t3" "$(now)") s"
say "ok"
