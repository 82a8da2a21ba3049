# Sourced by the integration scripts that boot the distro kernel under
# QEMU (TCG) on a private libvirtd (tools/libvirtd-private), or on the one
# already running.  Before sourcing, set NAME (the script's name in
# messages), URI and T (the script's own 0755 folder).
#
#   skip MSG          print "SKIP: NAME: MSG" and exit 0
#   fail MSG          print "FAIL: NAME: MSG" and set failed=1
#   libvirt_need P... skip unless root, the programs P..., busybox-static
#                     and a distro kernel (set as KERNEL) are here
#   libvirt_start     start (or find) libvirtd for $URI, skip where it
#                     cannot run or has no qemu (TCG) domains
#   libvirt_stop      stop the libvirtd libvirt_start started, if any
LIBVIRTD_PRIVATE=$(cd "$(dirname "$0")/../.." && pwd)/tools/libvirtd-private
failed=0

skip() {
	echo "SKIP: $NAME: $*"
	exit 0
}

fail() {
	echo "FAIL: $NAME: $*"
	failed=1
}

libvirt_need() {
	[ "$(id -u)" = 0 ] || skip "needs root to start libvirtd for qemu:///system"
	for p in libvirtd virtlogd virsh qemu-system-x86_64 "$@"; do
		command -v "$p" >/dev/null 2>&1 ||
			PATH=$PATH:/usr/sbin:/sbin command -v "$p" >/dev/null 2>&1 ||
			skip "'$p' is not installed (tools/deps installs it)"
	done
	PATH=$PATH:/usr/sbin:/sbin
	[ -x /bin/busybox ] || skip "/bin/busybox is missing (busybox-static)"
	KERNEL=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
	[ -n "$KERNEL" ] || skip "no distro kernel in /boot (linux-image-amd64)"
}

libvirt_start() {
	# (tools/libvirtd-private: exit 2 cannot start here, 1 did not answer)
	"$LIBVIRTD_PRIVATE" start "$T"
	case $? in
	0) ;;
	2) skip "libvirtd cannot be started here (see above)" ;;
	*) fail "libvirtd did not answer"; exit 1 ;;
	esac
	virsh -c "$URI" domcapabilities --virttype qemu >/dev/null 2>&1 ||
		skip "libvirt has no qemu (TCG) domains here"
}

libvirt_stop() {
	"$LIBVIRTD_PRIVATE" stop "$T"
}
