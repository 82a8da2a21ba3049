#!/bin/sh
# tools/libvirtd-private stops only a libvirtd it started itself: with
# fake virsh, libvirtd and virtlogd first on PATH (no real daemon is
# touched), three cases:
#  1. a libvirtd already answers and DIR holds a stale libvirtd.pid whose
#     number now belongs to another process: start reuses it, stop kills
#     nothing and destroys no guest;
#  2. (root) the libvirtd start launches exits at once because another
#     one took the socket, which answers: start reuses that one, stop
#     destroys none of its guests and leaves it;
#  3. (root) nothing answers: start launches both daemons, stop destroys
#     the kbisect-* guests on them and stops both.
# ~5 s.
#
# Usage: tests/integration/libvirtd-private.sh [KBISECT]  (from the checkout)
set -u
cd "$(dirname "$0")/../.." || exit 1
NAME=libvirtd-private
T=$(mktemp -d /tmp/kbisect-lvp.XXXXXX) || exit 1
others=
cleanup() {
	for p in $others; do kill "$p" 2>/dev/null; done
	[ -f "$T/dir/owned" ] && while read -r _ p _; do
		kill "$p" 2>/dev/null
	done <"$T/dir/owned"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
failed=0
fail() { echo "FAIL: $NAME: $*"; failed=1; }

F=$T/fake
mkdir -p "$F/bin" "$T/dir"
# virsh: answers while $F/answering exists; logs what it destroys
cat >"$F/bin/virsh" <<EOS
#!/bin/sh
[ -e "$F/answering" ] || exit 1
case " \$* " in
*" version "*) exit 0 ;;
*" list "*) echo kbisect-1-0-1 ;;
*" destroy "*) echo "destroy \$*" >>"$F/log" ;;
esac
exit 0
EOS
# a daemon: -d forks a loop, writes --pid-file; $F/libvirtd-mode says
# "die" (exits at once, another one answering instead) or "serve"
for d in libvirtd virtlogd; do
	cat >"$F/bin/$d" <<EOS
#!/bin/sh
if [ "\$1" = -d ]; then
	"\$0" loop "\$3" </dev/null >/dev/null 2>&1 &
	exit 0
fi
echo \$\$ >"\$2"
if [ $d = libvirtd ] && [ "\$(cat "$F/libvirtd-mode")" = die ]; then
	touch "$F/answering"
	exit 1
fi
[ $d = libvirtd ] && touch "$F/answering"
while :; do sleep 0.2; done
EOS
done
chmod +x "$F/bin/"*
LVP() { PATH=$F/bin:$PATH tools/libvirtd-private "$@" 2>>"$T/err"; }
# running, not a zombie (nothing reaps an orphan here)
alive() {
	kill -0 "$1" 2>/dev/null &&
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

# ---- 1. someone else's libvirtd, a stale pid file
sleep 300 & other=$!
others="$others $other"
touch "$F/answering"
echo "$other" >"$T/dir/libvirtd.pid"
LVP start "$T/dir" || fail "1: start did not reuse the running libvirtd"
LVP stop "$T/dir"
alive "$other" || fail "1: stop killed pid $other, a process it never started"
[ -s "$F/log" ] && fail "1: stop destroyed guests of a libvirtd it did not start: $(cat "$F/log")"
rm -f "$F/answering" "$F/log"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: $NAME: cases 2 and 3 need root (the script starts daemons only as root)"
	[ $failed = 0 ] && echo "$NAME: ok (case 1)"
	exit $failed
fi

# ---- 2. ours exits at once, another took the socket and answers
echo die >"$F/libvirtd-mode"
LVP start "$T/dir" || fail "2: start did not fall back on the libvirtd that answers"
grep -q "someone else's" "$T/err" || fail "2: start did not say it uses someone else's libvirtd"
LVP stop "$T/dir"
[ -s "$F/log" ] && fail "2: stop destroyed guests of a libvirtd it did not start: $(cat "$F/log")"
rm -f "$F/answering" "$F/log"

# ---- 3. nothing answers: ours, stopped by stop
echo serve >"$F/libvirtd-mode"
: >"$T/err"
LVP start "$T/dir" || fail "3: start failed: $(cat "$T/err")"
lpid=$(cat "$T/dir/libvirtd.pid" 2>/dev/null)
gpid=$(cat "$T/dir/virtlogd.pid" 2>/dev/null)
{ [ -n "$lpid" ] && alive "$lpid"; } || fail "3: no libvirtd running after start"
LVP stop "$T/dir"
grep -q "destroy .*kbisect-1-0-1" "$F/log" 2>/dev/null ||
	fail "3: stop did not destroy the kbisect-* guest on its own libvirtd"
sleep 0.3
[ -n "$lpid" ] && alive "$lpid" && fail "3: stop left its libvirtd $lpid running"
[ -n "$gpid" ] && alive "$gpid" && fail "3: stop left its virtlogd $gpid running"

[ $failed = 0 ] && echo "$NAME: ok"
exit $failed
