#!/bin/sh
# A libvirt connection idle for longer than libvirtd's keepalive allows
# (5 pings x 5 s by default: a kernel build between two boots) is dropped
# by the daemon; every call kbisect then makes on the host -- the
# environment its executor reads, the guests, a kernel shipped into the
# storage pool, a volume made, the pool trimmed -- must reconnect, not
# fail (three times, draining the host) or die of SIGPIPE
# (lib/exec/guest.c, guest_pool.c).  The host is tools/libvirtd-remote
# with a keepalive of 1 s x 1 (it drops an idle client after 2 s), held
# idle 5 s; the helper checks that a plain connection beside kbisect's
# was dropped meanwhile, so that the test proves something.  Then a big
# upload is cut: kbisect reaches libvirtd through a socat proxy whose
# child for each connection is killed mid-stream, a peer gone as a
# network or a dying client leaves it.  (virt-admin client-disconnect
# would be the daemon's own cut, but Debian 12's libvirtd 9.0 segfaults
# on it about one run in three while a stream is open.)  ~15 s.
#
# Usage: tests/integration/libvirt-idle.sh [KBISECT]   (from the checkout)
# Env: KBISECT_LIBKB (default build/libkb.a).  Skips without root/libvirt.
set -u
cd "$(dirname "$0")/../.." || exit 1
PATH=$PATH:/usr/sbin:/sbin
skip() { echo "SKIP: libvirt-idle: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root to start libvirtd"
command -v libvirtd >/dev/null 2>&1 || skip "libvirtd is not installed"
command -v unshare >/dev/null 2>&1 || skip "unshare is not installed"
command -v socat >/dev/null 2>&1 || skip "socat is not installed (make deps)"
libkb=${KBISECT_LIBKB:-build/libkb.a}
if [ ! -f "$libkb" ]; then
	make --no-print-directory -s "$libkb" || exit 1
fi
T=$(mktemp -d /var/tmp/kbisect-libvirt-idle.XXXXXX) || exit 1
# the private libvirtd's URI names a socket of this machine (?socket=),
# which kbisect connects to only when trusted (docs/matrix.md "Hosts")
export KBISECT_TRUST_MATRIX=1
# the host's folder: not under one it hides (/tmp, /var/tmp)
R=$(mktemp -d /run/kbisect-idle.XXXXXX) || skip "cannot make a folder in /run"
proxy=
trap '[ -n "$proxy" ] && kill "$proxy" 2>/dev/null
	tools/libvirtd-remote stop "$R"; rm -rf "$R" "$T"' EXIT
trap 'exit 1' INT TERM

pkgs="yaml-0.1 sqlite3 json-c libxml-2.0 libvirt libgit2"
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Ilib -Ilib/util -Ilib/store -Ilib/exec $(pkg-config --cflags $pkgs) \
	-o "$T/helper" tests/integration/libvirt-idle.c "$libkb" \
	$(pkg-config --libs $pkgs) -lm || { echo "FAIL: libvirt-idle: cc"; exit 1; }
URI=$(KBISECT_LIBVIRTD_CONF="keepalive_interval = 1
keepalive_count = 1" tools/libvirtd-remote start "$R")
case $? in
0) ;;
2) skip "a libvirtd in a mount namespace cannot start here (see above)" ;;
*) echo "FAIL: libvirt-idle: libvirtd did not answer"; exit 1 ;;
esac
mkdir -p "$R/pool"
# kbisect's connections go through the proxy; the daemon's own keepalive
# still sees each of them, one socat child apiece
socat "UNIX-LISTEN:$R/proxy-sock,fork" "UNIX-CONNECT:$R/sock/libvirt-sock" &
proxy=$!
i=0
while [ ! -S "$R/proxy-sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$R/proxy-sock" ] || { echo "FAIL: libvirt-idle: socat did not listen"; exit 1; }
URI="qemu:///system?socket=$R/proxy-sock"
# a file that takes a while to upload, not sparse
yes kbisect | head -c $((512 << 20)) >"$T/big"
TMPDIR=$T "$T/helper" "$URI" 5 "$R/pool" kb-libvirt-idle "$T/big" >"$T/out" &
hpid=$!
# once the big upload runs, every connection through the proxy is cut
cut=0 i=0
while kill -0 "$hpid" 2>/dev/null && [ $i -lt 600 ]; do
	# what is written of it (the volume has its full size at once)
	size=$(($(stat -c %b "$R/pool/kb-idle-big" 2>/dev/null || echo 0) * 512))
	if [ "$size" -gt 0 ] && [ "$size" -lt $((400 << 20)) ] &&
	   grep -q '^shipping' "$T/out"; then
		for c in $(pgrep -P "$proxy"); do
			kill "$c" 2>/dev/null && cut=$((cut + 1))
		done
		break
	fi
	sleep 0.02
	i=$((i + 1))
done
wait "$hpid"
rc=$?
[ $rc = 0 ] || { echo "FAIL: libvirt-idle: helper exit $rc (141: SIGPIPE; 3: the keepalive did not drop an idle client)"; exit 1; }
[ "$cut" -gt 0 ] || { echo "FAIL: libvirt-idle: the upload ended before its connection could be closed (nothing tested)"; exit 1; }
cmp -s "$T/big" "$R/pool/kb-idle-big" ||
	{ echo "FAIL: libvirt-idle: the big volume is not whole after the retry"; exit 1; }
pid=$(cat "$R/libvirtd.pid")
kill -0 "$pid" 2>/dev/null || { echo "FAIL: libvirt-idle: libvirtd $pid died"; exit 1; }
echo "libvirt-idle: ok (idle 5 s past a 2 s keepalive; an upload cut mid-stream made again on a new connection)"
