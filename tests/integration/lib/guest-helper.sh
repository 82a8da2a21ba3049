# Sourced by the scripts that boot the distro kernel under plain QEMU (no
# libvirt) with initramfs images of tests/integration/guest-userland.c:
# tests/integration/guest-userland.sh and tests/bench/{monitors,profile}.sh.
# The script defines skip MSG and die MSG first.
#
#   guest_distro_kernel   skip unless qemu-system-x86_64, busybox-static
#                         and a distro kernel are here; set kernel (the
#                         newest /boot/vmlinuz-*) and modules (its
#                         /lib/modules folder, or - without one)
#   guest_helper OUT      build the helper (guest-userland.c against
#                         $KBISECT_LIBKB, default build/libkb.a, made if
#                         missing) as OUT, or die
guest_distro_kernel() {
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed (tools/deps)"
	[ -x /bin/busybox ] || skip "busybox-static is not installed (tools/deps)"
	kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
	[ -n "$kernel" ] || skip "no distro kernel in /boot (linux-image-amd64)"
	modules=/lib/modules/${kernel#/boot/vmlinuz-}
	[ -f "$modules/modules.dep" ] || modules=-
}

guest_helper() {
	libkb=${KBISECT_LIBKB:-build/libkb.a}
	if [ ! -f "$libkb" ]; then
		make --no-print-directory -s "$libkb" || die "cannot build $libkb"
	fi
	pkgs="yaml-0.1 sqlite3 json-c libxml-2.0 libvirt libgit2"
	# shellcheck disable=SC2046
	cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Ilib -Ilib/util -Ilib/store -Ilib/exec $(pkg-config --cflags $pkgs) \
		-o "$1" tests/integration/guest-userland.c "$libkb" \
		$(pkg-config --libs $pkgs) -lm || die "cannot build the helper"
}
