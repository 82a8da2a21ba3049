#!/bin/sh
# A libvirt connection idle for longer than libvirtd's keepalive allows
# (5 pings x 5 s by default: a kernel build between two boots) is dropped
# by the daemon; kbisect must reconnect, not die of SIGPIPE on its next
# call, and find its storage pool on the new connection
# (lib/exec/guest.c, guest_pool.c).  Uses tools/libvirtd-private; ~40 s.
#
# Usage: tests/integration/libvirt-idle.sh [KBISECT]   (from the checkout)
# Env: KBISECT_LIBKB (default build/libkb.a).  Skips without root/libvirt.
set -u
cd "$(dirname "$0")/../.." || exit 1
PATH=$PATH:/usr/sbin:/sbin
skip() { echo "SKIP: libvirt-idle: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root to start libvirtd"
command -v libvirtd >/dev/null 2>&1 || skip "libvirtd is not installed"
libkb=${KBISECT_LIBKB:-build/libkb.a}
if [ ! -f "$libkb" ]; then
	make --no-print-directory -s "$libkb" || exit 1
fi
T=$(mktemp -d /var/tmp/kbisect-libvirt-idle.XXXXXX) || exit 1
trap 'tools/libvirtd-private stop "$T"; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

pkgs="yaml-0.1 sqlite3 json-c libxml-2.0 libvirt libgit2"
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Ilib -Ilib/util -Ilib/store -Ilib/exec $(pkg-config --cflags $pkgs) \
	-o "$T/helper" tests/integration/libvirt-idle.c "$libkb" \
	$(pkg-config --libs $pkgs) -lm || { echo "FAIL: libvirt-idle: cc"; exit 1; }
tools/libvirtd-private start "$T"
case $? in
0) ;;
2) skip "libvirtd cannot be started here" ;;
*) echo "FAIL: libvirt-idle: libvirtd did not answer"; exit 1 ;;
esac
mkdir -p "$T/pool"
pool=kb-libvirt-idle-$$
"$T/helper" qemu:///system 40 "$T/pool" "$pool"
rc=$?
# the pool is the libvirtd's, which may be one already running
virsh -c qemu:///system pool-destroy "$pool" >/dev/null 2>&1
virsh -c qemu:///system pool-undefine "$pool" >/dev/null 2>&1
[ $rc = 0 ] || { echo "FAIL: libvirt-idle: helper exit $rc (141: SIGPIPE)"; exit 1; }
echo "libvirt-idle: ok"
