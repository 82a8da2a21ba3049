#!/bin/sh
# kbisectd stalled, and slowed by what it waits for (issue 28, items 1
# and 3): start the daemon on a temporary socket and database (model
# executor, --lease 3, two build slots) and check that
#  - a daemon stopped (SIGSTOP) longer than its lease while a step runs,
#    a build slot free, does not start that step again once continued:
#    no "attempt 2", no "lease lost", every job leased once;
#  - neither does a forward step of the wall clock that the daemon alone
#    sees (tests/integration/wallstep.c, loaded with LD_PRELOAD, adds an
#    hour to its time(), gettimeofday() and CLOCK_REALTIME): leases are
#    timed by the daemon's monotonic clock;
#  - a restart whose queued libvirt experiment names a host slow to
#    answer (a listener that takes the connection and says nothing for
#    12 s) answers status at once: the orphan sweep runs off the loop,
#    in a child given 10 s;
#  - a SUBMIT of 4096 variants x 10 boots (45,056 jobs, about a second)
#    does not hold status: it is planned and stored off the loop (what
#    is left on it, the scheduler loading the experiment, is ~0.1 s; a
#    status in the loop waits the whole submission).
# About 45 s.
#
# Usage: tests/integration/daemon-stall.sh KBISECT  (kbisectd next to it)
set -u
KB=${1:-./kbisect}
KBD=$(dirname "$KB")/kbisectd
[ -x "$KBD" ] || KBD=./kbisectd
RAW="python3 $(dirname "$0")/rawclient.py"
MATRIX=tests/data/daemon/stall.yaml
MODEL=tests/data/daemon/stall.model.yaml
T=$(mktemp -d /tmp/kb-daemon-stall-XXXXXX)
SOCK=$T/kbisectd.sock DB=$T/kbisect.db LOG=$T/kbisectd.log
pid= lpid=
pass=0 fail=0

cleanup() {
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "  kept $T"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] daemon-stall: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] daemon-stall: $1"
		tail -n 8 "$LOG" | sed 's/^/  log: /'
	fi
}

for need in "$KBD" "$KB"; do
	if ! [ -x "$need" ]; then
		echo "[  FAILED  ] daemon-stall: no $need (make kbisect kbisectd)"
		exit 1
	fi
done
for need in python3 sqlite3 cc; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "[  FAILED  ] daemon-stall: $need is needed (make deps)"
		exit 1
	fi
done
if ! cc -shared -fPIC -O1 -o "$T/wallstep.so" tests/integration/wallstep.c -ldl; then
	echo "[  FAILED  ] daemon-stall: cannot build tests/integration/wallstep.c"
	exit 1
fi

export KBISECT_MODEL_TIME_SCALE=1
unset KBISECT_SOCKET KBISECT_DB KBISECT_TIMEOUT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
q() { sqlite3 -cmd '.timeout 10000' "$DB" "$1"; }

start() { # [EXTRA OPTIONS]
	KB_WALLSTEP_FILE=$T/wallstep LD_PRELOAD=$T/wallstep.so \
		"$KBD" --socket "$SOCK" --db "$DB" --lease 3 --build-jobs 2 \
		--verbose "$@" 2>>"$LOG" &
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

stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# wait until experiment $1's build runs (at most 5 s)
build_runs() {
	i=0
	while [ "$(q "select count(*) from jobs where experiment_id = $1 and kind = 'build' and state = 'leased'")" != 1 ]; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1
		sleep 0.05
	done
}

# wait until experiment $1 has ended (at most 40 s); print its state
ended() {
	i=0
	while :; do
		st=$(q "select state from experiments where id = $1")
		case $st in queued|running) ;; *) echo "$st"; return 0 ;; esac
		i=$((i + 1)); [ $i -gt 400 ] && { echo "$st"; return 1; }
		sleep 0.1
	done
}

# ---- item 1: a stalled daemon never starts its own step again
: >"$T/wallstep"
start
check "kbisectd starts and answers" $?

id=$("$KB" submit "$MATRIX" --model "$MODEL" --socket "$SOCK" --quiet)
build_runs "$id"
check "experiment $id's build runs, a build slot free" $?
kill -STOP "$pid"
sleep 5 # longer than --lease 3
kill -CONT "$pid"
st=$(ended "$id")
attempts=$(q "select group_concat(attempts) from jobs where experiment_id = $id")
check "stopped 5 s past a 3 s lease, the daemon does not start its running build again ($st, attempts $attempts)" \
	$([ "$st" = done ] && [ "$attempts" = "1,1" ] &&
	  ! grep -q "runs again: attempt\|lease lost" "$LOG"; echo $?)

# another kernel: the first one's build is done
sed 's/^workload:/factors:\n  kconfig:\n    HZ_1000: [y]\nworkload:/' "$MATRIX" >"$T/stall2.yaml"
id=$("$KB" submit "$T/stall2.yaml" --model "$MODEL" --socket "$SOCK" --quiet)
build_runs "$id"
check "experiment $id's build runs" $?
sleep 1
echo 3600 >"$T/wallstep" # the daemon's wall clock: an hour on
st=$(ended "$id")
attempts=$(q "select group_concat(attempts) from jobs where experiment_id = $id")
check "its wall clock stepped an hour on, the daemon does not start its running build again ($st, attempts $attempts)" \
	$([ "$st" = done ] && [ "$attempts" = "1,1" ] &&
	  ! grep -q "runs again: attempt\|lease lost" "$LOG"; echo $?)
: >"$T/wallstep"

# ---- item 3: a large SUBMIT is planned and stored off the loop
python3 - "$T" <<'PY'
import sys
opts = "".join("    OPT_%02d: [y, n]\n" % i for i in range(12))
open(sys.argv[1] + "/wide.yaml", "w").write(
    "name: wide\nfactors:\n  kconfig:\n" + opts +
    "workload: { fio: { rw: randread } }\nrepeat: { boots: 10 }\n")
PY
r=$($RAW timesubmit "$SOCK" "$T/wide.yaml" "$MODEL" 2>&1)
took=$(echo "$r" | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')
waited=$(echo "$r" | sed -n 's/.*others_waited=\([0-9.]*\).*/\1/p')
check "4096 variants x 10 boots (45,056 jobs) submitted while another client's status waits under 0.6 times as long ($r)" \
	$(echo "$r" | grep -q "answer=submitted" &&
	  lt "$waited" "$(awk -v t="$took" 'BEGIN { print 0.6 * t }')"; echo $?)
"$KB" cancel "$(q "select max(id) from experiments")" --socket "$SOCK" >/dev/null 2>&1
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=


# ---- item 3: a host slow to answer, swept of orphans at start, holds
# nothing but its own sweep: a listener that takes connections and
# answers none for 12 s, as a host that is slow to answer does
python3 - "$T/port" >"$T/listener.out" 2>&1 <<'PY' &
import socket, sys, threading, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
def hold(c):
    time.sleep(12)
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=hold, args=(c,), daemon=True).start()
PY
lpid=$!
i=0
while ! [ -s "$T/port" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
uri="qemu+tcp://127.0.0.1:$(cat "$T/port")/system"
sed "s|test:///default|$uri|" "$MATRIX" >"$T/slow.yaml"
start
id=$("$KB" submit "$T/slow.yaml" --model "$MODEL" --socket "$SOCK" --quiet)
kill -9 "$pid"
wait "$pid" 2>/dev/null
# the daemon died running it; made a libvirt experiment (as `kbisect
# submit` without --model would, which needs a kernel tree), so that
# the next daemon sweeps its host
q "update experiments set model_yaml = NULL, executor = 'libvirt', state = 'queued' where id = $id;
   update jobs set state = 'queued', lease_owner = NULL, lease_expires_at = NULL where experiment_id = $id"
t0=$(now)
start
el=$(since "$t0")
t1=$(now)
KBISECT_TIMEOUT=10 "$KB" status --socket "$SOCK" >/dev/null 2>&1
rc=$?
el2=$(since "$t1")
check "a restart sweeping a host slow to answer answers status at once (first answer after ${el}s, then exit $rc after ${el2}s)" \
	$([ $rc -eq 0 ] && lt "$el" 3 && lt "$el2" 1; echo $?)

# the sweep ran meanwhile, and was given up after 10 s
i=0
while ! grep -q "cannot look for orphan guests on $uri" "$LOG" && [ $i -lt 200 ]; do
	i=$((i + 1)); sleep 0.1
done
check "the slow host's sweep ran off the loop, and was given up after 10 s ($(grep -o "orphan guests on $uri: no answer within [0-9]* s" "$LOG"))" \
	$(grep -q "cannot look for orphan guests on $uri: no answer within 10 s; its orphans stay until the next start" "$LOG"; echo $?)
stop
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
lpid=

echo "daemon-stall: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
