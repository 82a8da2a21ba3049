#!/bin/sh
# kbisectd under hostile and careless clients (issue 12, "Done when"):
# start the daemon on a temporary socket and database (model executor,
# --client-timeout 2) and check that
#  - 64 connections holding half-sent or no requests (an idle flood) do
#    not lock other clients out, and are dropped after the timeout;
#  - a client that pipelines requests and never reads is dropped, and the
#    daemon's memory does not grow with what it was sent;
#  - 200,000 requests sent at once are all answered, in linear time;
#  - a line over 4 MiB is refused with an error and the connection closed;
#  - a second daemon reaching the database through a symlink or a hard
#    link is refused (the lock is on the file), while sqlite still locks
#    it as usual beside the daemon;
#  - the fallback socket folder /tmp/kbisect-UID is refused by the daemon
#    and the clients when someone else owns it, when it is open to others
#    or a symlink, and made 0700 when missing (run as uid 65534 via
#    setpriv when root; only the cases a user can set up otherwise);
#  - clients give up on a stopped (SIGSTOP) daemon after KBISECT_TIMEOUT,
#    and the daemon's stall is not held against a client mid-request;
#  - a watcher hears from the daemon at least every heartbeat (10 s) even
#    when nothing changes;
#  - 64 watchers do not lock out status and cancel: 16 slots are kept for
#    requests, and one user has at most 16 watchers (issue 28);
#  - a repeated member, an id past 2^63-1 and a lone surrogate are refused
#    with ERROR input, as is a cap raised past the daemon's ceiling, and
#    a refused submission's newline and ESC are escaped in the log.
# About 45 s.
#
# Usage: tests/integration/daemon-hostile.sh KBISECT  (kbisectd next to it)
set -u
KB=${1:-./kbisect}
KBD=$(dirname "$KB")/kbisectd
[ -x "$KBD" ] || KBD=./kbisectd
RAW="python3 $(dirname "$0")/rawclient.py"
MATRIX=tests/data/daemon/forty.yaml
MODEL=tests/data/daemon/forty.model.yaml
CT=2 # --client-timeout
T=$(mktemp -d /tmp/kb-daemon-hostile-XXXXXX)
SOCK=$T/kbisectd.sock DB=$T/kbisect.db LOG=$T/kbisectd.log
pid= other= made_dir=
pass=0 fail=0

cleanup() {
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	[ -n "$other" ] && kill -9 "$other" 2>/dev/null
	[ -n "$made_dir" ] && rm -rf "$made_dir"
	if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "  kept $T"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] daemon-hostile: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] daemon-hostile: $1"
		tail -n 8 "$LOG" | sed 's/^/  log: /'
	fi
}

for need in "$KBD" "$KB"; do
	if ! [ -x "$need" ]; then
		echo "[  FAILED  ] daemon-hostile: no $need (make kbisect kbisectd)"
		exit 1
	fi
done
if ! command -v python3 >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
	echo "[  FAILED  ] daemon-hostile: python3 and the sqlite3 shell are needed (make deps)"
	exit 1
fi

# builds of 20 s: the third experiment stays queued, unchanged, long
# enough to hear the heartbeat
export KBISECT_MODEL_TIME_SCALE=2
unset KBISECT_SOCKET KBISECT_DB KBISECT_TIMEOUT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
kib() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/$pid/status"; }

start() {
	"$KBD" --socket "$SOCK" --db "$DB" --client-timeout $CT --verbose \
		2>>"$LOG" &
	pid=$!
	i=0
	while ! [ -S "$SOCK" ] || ! "$KB" status --socket "$SOCK" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "kbisectd did not start"; return 1
		fi
		sleep 0.05
	done
}

start
check "kbisectd starts and answers" $?
for k in 1 2 3; do
	"$KB" submit "$MATRIX" --model "$MODEL" --socket "$SOCK" --quiet >/dev/null
done
check "three experiments submitted" \
	$([ "$(sqlite3 "$DB" 'select count(*) from experiments')" -eq 3 ]; echo $?)

# ---- an idle flood: every client slot held by a half-sent or no request
$RAW flood "$SOCK" 64 $((CT + 8)) >"$T/flood" 2>&1 &
fpid=$!
i=0
while ! grep -q "opened=64" "$T/flood" && [ $i -lt 100 ]; do
	i=$((i + 1)); sleep 0.05
done
t0=$(now)
KBISECT_TIMEOUT=20 "$KB" status --socket "$SOCK" >"$T/out" 2>&1
rc=$?
el=$(since "$t0")
check "a client is answered while 64 connections hold every slot (exit $rc after ${el}s)" \
	$([ $rc -eq 0 ] && lt "$el" $((CT + 3)); echo $?)
wait $fpid
check "the 64 stalled connections are dropped after --client-timeout ($(cat "$T/flood" | tail -n 1))" \
	$(grep -q "closed=64 of=64" "$T/flood" && grep -q "did not say hello after $CT s" "$LOG" &&
	  grep -q "it is idle after $CT s" "$LOG"; echo $?)

# ---- a client that pipelines requests and never reads its answers
hwm0=$(kib VmHWM)
$RAW noread "$SOCK" $((CT + 10)) >"$T/noread" 2>&1
hwm1=$(kib VmHWM)
check "a client that never reads is dropped ($(cat "$T/noread"))" \
	$(grep -q "dropped=[0-9]" "$T/noread" && grep -q "does not read its answers" "$LOG"; echo $?)
check "the daemon's peak memory grew by under 6 MiB meanwhile ($hwm0 -> $hwm1 KiB)" \
	$([ $((hwm1 - hwm0)) -lt 6144 ]; echo $?)

# ---- many requests at once: all answered, in linear time
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; } # in ticks
c0=$(cpu)
$RAW pipeline "$SOCK" 200000 >"$T/pipe" 2>&1
c1=$(cpu)
check "200000 pipelined requests all answered ($(cat "$T/pipe"), daemon CPU $((c1 - c0)) ticks)" \
	$(grep -q "replies=200000 of=200000" "$T/pipe" &&
	  lt "$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$T/pipe")" 15; echo $?)

# ---- a line longer than the protocol allows
hwm0=$(kib VmHWM)
$RAW bigline "$SOCK" 16 >"$T/big" 2>&1
hwm1=$(kib VmHWM)
check "a line over 4 MiB is refused and its connection closed ($(cat "$T/big"))" \
	$(grep -q "error=line_longer_than_4194304_bytes eof=yes" "$T/big"; echo $?)
check "it cost the daemon under 16 MiB ($hwm0 -> $hwm1 KiB)" \
	$([ $((hwm1 - hwm0)) -lt 16384 ]; echo $?)
"$KB" status --socket "$SOCK" >/dev/null 2>&1
check "the daemon answers after all that" $?

# ---- watchers: never idle, they may not hold the slots kept for
# requests, nor one user more than 16 of them
cid=$("$KB" submit "$MATRIX" --model "$MODEL" --socket "$SOCK" --quiet)
$RAW watchers "$SOCK" 64 3 8 >"$T/watchers" 2>&1 &
wpid=$!
i=0
while ! grep -q "watching=" "$T/watchers" && [ $i -lt 200 ]; do
	i=$((i + 1)); sleep 0.05
done
t0=$(now)
KBISECT_TIMEOUT=4 "$KB" status --socket "$SOCK" >"$T/out" 2>&1
rc=$?
el=$(since "$t0")
KBISECT_TIMEOUT=4 "$KB" cancel "$cid" --socket "$SOCK" >"$T/out2" 2>&1
rc2=$?
wait $wpid
check "64 watchers leave room for status and cancel (status exit $rc after ${el}s, cancel exit $rc2; $(head -n 1 "$T/watchers"))" \
	$([ $rc -eq 0 ] && [ $rc2 -eq 0 ] && lt "$el" 2 &&
	  grep -q "watching=16 refused=48" "$T/watchers" &&
	  grep -q "why=uid_$(id -u)_has_16_watchers,_as_many_as_one_user_may_have_at_once" "$T/watchers"; echo $?)

# ---- a second daemon through another name of the database
ln -s kbisect.db "$T/sym.db"
ln "$DB" "$T/hard.db"
for name in sym hard; do
	timeout 5 "$KBD" --socket "$T/$name.sock" --db "$T/$name.db" >"$T/out" 2>&1
	rc=$?
	check "a second daemon on a $name link of the database refuses (exit $rc)" \
		$([ $rc -eq 1 ] && grep -q "another kbisectd (pid $pid) uses database '$T/$name.db'" "$T/out"; echo $?)
done
sqlite3 "$DB" 'begin exclusive; commit;' >"$T/out" 2>&1
check "sqlite's own locks are unaffected by the daemon's flock" $?

# ---- the fallback socket folder, /tmp/kbisect-UID
folder_cases() { # RUN-AS-PREFIX UID FOREIGN
	u=$2 d=/tmp/kbisect-$2
	if [ -e "$d" ] || [ -L "$d" ]; then
		echo "  ($d exists: its cases are left out, not to touch it)"
		return
	fi
	made_dir=$d
	if [ "$3" = foreign ]; then
		# made by someone else (root), open to all as /tmp is; a
		# socket of theirs inside, waiting for the victim's matrix
		mkdir -m 1777 "$d"
		$RAW listen "$d/kbisectd.sock" "$T/stolen" 4 >"$T/listen" &
		lpid=$!
		i=0
		while ! grep -q listening "$T/listen" && [ $i -lt 100 ]; do
			i=$((i + 1)); sleep 0.05
		done
		timeout 10 $1 "$T/bin/kbisect" submit "$T/bin/m.yaml" \
			--model "$T/bin/model.yaml" >"$T/out" 2>&1
		rc=$?
		check "a client refuses a socket folder someone else owns (exit $rc)" \
			$([ $rc -eq 1 ] && grep -q "unsafe socket folder: folder '$d' is owned by uid 0, not by uid $u" "$T/out" &&
			  ! [ -s "$T/stolen" ]; echo $?)
		kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null
		rm -f "$d/kbisectd.sock"
		timeout 5 $1 "$T/bin/kbisectd" --db "$T/home/k.db" >"$T/out" 2>&1
		rc=$?
		check "kbisectd refuses a socket folder someone else owns (exit $rc)" \
			$([ $rc -eq 1 ] && grep -q "owned by uid 0, not by uid $u" "$T/out"; echo $?)
		rm -rf "$d"
	fi
	$1 mkdir -m 700 "$d" && $1 chmod 755 "$d"
	timeout 5 $1 "$T/bin/kbisectd" --db "$T/home/k.db" >"$T/out" 2>&1
	rc=$?
	check "kbisectd refuses its socket folder open to others (exit $rc)" \
		$([ $rc -eq 1 ] && grep -q "folder '$d' has mode 0755" "$T/out"; echo $?)
	rm -rf "$d"
	$1 mkdir -m 700 "$T/home/real"
	$1 ln -s "$T/home/real" "$d"
	timeout 5 $1 "$T/bin/kbisectd" --db "$T/home/k.db" >"$T/out" 2>&1
	rc=$?
	check "kbisectd refuses a symlink as its socket folder (exit $rc)" \
		$([ $rc -eq 1 ] && grep -q "'$d' is a symbolic link" "$T/out"; echo $?)
	rm -f "$d"
	$1 "$T/bin/kbisectd" --db "$T/home/k.db" 2>"$T/own.log" &
	other=$!
	i=0
	while ! [ -S "$d/kbisectd.sock" ] && [ $i -lt 100 ]; do
		i=$((i + 1)); sleep 0.05
	done
	$1 "$T/bin/kbisect" status >"$T/out" 2>&1
	rc=$?
	check "a missing socket folder is made 0700 and used ($(stat -c '%a %u' "$d"), status exit $rc)" \
		$([ "$(stat -c '%a %u' "$d")" = "700 $u" ] && [ $rc -eq 0 ]; echo $?)
	kill "$other"; wait "$other"; other=
	rm -rf "$d"; made_dir=
}
mkdir -p "$T/bin" "$T/home"
cp "$KBD" "$KB" "$T/bin/"
cp "$MATRIX" "$T/bin/m.yaml"
cp "$MODEL" "$T/bin/model.yaml"
chmod 755 "$T" "$T/bin"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chown 65534:65534 "$T/home"
	folder_cases "setpriv --reuid=65534 --regid=65534 --clear-groups env -u XDG_RUNTIME_DIR -u KBISECT_SOCKET HOME=$T/home" 65534 foreign
else
	echo "  (not root: the someone-else's-folder case is left to tests/unit/fsutil.c)"
	folder_cases "env -u XDG_RUNTIME_DIR -u KBISECT_SOCKET" "$(id -u)" own
fi

# ---- a stopped daemon: its clients give up; a client's time does not
# run while the daemon is stopped
$RAW halfway "$SOCK" $((CT + 3)) >"$T/half" 2>&1 &
hpid=$!
i=0
while ! grep -q sent-half "$T/half" && [ $i -lt 100 ]; do
	i=$((i + 1)); sleep 0.05
done
sleep 0.2
kill -STOP "$pid"
t_stop=$(now)
t0=$(now)
KBISECT_TIMEOUT=1 timeout 20 "$KB" status --socket "$SOCK" >"$T/out" 2>&1
rc=$?
el=$(since "$t0")
check "status gives up on a stopped daemon after KBISECT_TIMEOUT (exit $rc after ${el}s)" \
	$([ $rc -eq 1 ] && lt "$el" 4 && grep -q "did not answer within 1 s" "$T/out"; echo $?)
KBISECT_TIMEOUT=1 timeout 20 "$KB" submit "$MATRIX" --model "$MODEL" --socket "$SOCK" >"$T/out" 2>&1
rc=$?
check "so does submit (exit $rc)" \
	$([ $rc -eq 1 ] && grep -q "did not answer within 1 s" "$T/out"; echo $?)
while lt "$(since "$t_stop")" $((CT + 2)); do sleep 0.2; done
kill -CONT "$pid"
wait $hpid
check "a request begun before a stop longer than --client-timeout is answered after it ($(tail -n 1 "$T/half"))" \
	$(grep -q "answered=yes" "$T/half"; echo $?)
"$KB" status --socket "$SOCK" >/dev/null 2>&1
check "the daemon answers again once continued" $?

# ---- the heartbeat: experiment 3 waits, unchanged, behind two builds
$RAW watch "$SOCK" 3 12 >"$T/watch" 2>&1
check "a watcher hears from the daemon at least every 10 s ($(cat "$T/watch"))" \
	$(grep -q "lines=[2-9]" "$T/watch" &&
	  lt "$(sed -n 's/.*maxgap=\([0-9.]*\).*/\1/p' "$T/watch")" 11; echo $?)

# ---- what the protocol refuses, and the log does not print raw
$RAW send "$SOCK" '{"msg":11,"msg":12,"id":1}' \
	'{"msg":13,"id":9223372036854775808}' \
	'{"msg":10,"matrix":"name: x\ud800"}' >"$T/sent" 2>&1
check "a repeated member, an id past 2^63-1 and a lone surrogate are refused with ERROR input ($(tr '\n' ';' <"$T/sent"))" \
	$([ "$(grep -c "msg=30 code=input" "$T/sent")" = 3 ] &&
	  grep -q "repeats a member" "$T/sent" &&
	  grep -q "integer out of range" "$T/sent" &&
	  grep -q "lone surrogate" "$T/sent" &&
	  [ "$(sqlite3 "$DB" 'select cancel_requested from experiments where id = 1')" = 0 ]; echo $?)
$RAW send "$SOCK" "$(python3 -c 'import json, sys
print(json.dumps({"msg": 10, "matrix": open(sys.argv[1]).read(),
                  "model": open(sys.argv[2]).read(), "max_boots": 10**12}))' "$MATRIX" "$MODEL")" >"$T/sent" 2>&1
check "a cap raised past the daemon's ceiling is refused ($(cat "$T/sent"))" \
	$(grep -q "msg=30 code=input message=a cap of 1000000000000 boots is above this kbisectd's ceiling of 1000000 (kbisectd --max-boots)" "$T/sent"; echo $?)
forged="2026-01-01T00:00:00Z kbisectd[1] info: experiment 1 cancelled"
$RAW send "$SOCK" "$(python3 -c 'import json, sys
print(json.dumps({"msg": 10, "matrix": "name: x\n\"k\\n%s\\e[2J\": 1\n" % sys.argv[1]}))' "$forged")" >"$T/sent" 2>&1
check "a refused key's newline and ESC are escaped in the log, as \\\\n and \\\\x1b" \
	$(grep -q "msg=30 code=input" "$T/sent" && ! grep -q "^$forged" "$LOG" &&
	  ! grep -q "$(printf '\033')" "$LOG" &&
	  grep -q 'submission refused: .*k\\n2026-01-01T00:00:00Z kbisectd\[1\] info: experiment 1 cancelled\\x1b\[2J' "$LOG"; echo $?)

kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
echo "daemon-hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
