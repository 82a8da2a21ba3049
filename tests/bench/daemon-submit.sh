#!/bin/sh
# How long the worst SUBMITs hold kbisectd's loop (issue 12, item 9), and
# how long another client waits for a STATUS meanwhile:
#  - the largest matrix ydoc takes (1 MiB) as one mapping of ~50,000
#    keys, refused after the parse (the duplicate-key check is the cost);
#  - the same keys in mappings of 50 (the parse alone);
#  - a valid matrix with the largest model (1 MiB, ~50,000 keys);
#  - a valid matrix of 4096 variants x 10 boots: planning it and storing
#    its 45,056 jobs in one transaction.
# Then the scheduler under bursts (issue 16, item 2): for each N of
# $BURSTS (default 50 200 800), $ROUNDS times (default 3), a fresh daemon
# and database, N tiny model experiments (2 variants, 1 boot of 1 run,
# instant steps) submitted as fast as 4 connections take them while a
# fifth asks STATUS every 10 ms: the experiments ended per second from
# the first submission to the last end, and the p50/p99 SUBMIT and p99
# STATUS latencies, of the round of median rate.
# Prints the figures (docs/daemon.md, "Limits" and "Scheduling", has
# them); fails only when the daemon does not answer or a burst does not
# end done.
#
# Usage: tests/bench/daemon-submit.sh KBISECT  (kbisectd next to it)
#        WORST=0 BURSTS="50 800" tests/bench/daemon-submit.sh KBISECT
set -u
KB=${1:-./kbisect}
KBD=$(dirname "$KB")/kbisectd
[ -x "$KBD" ] || KBD=./kbisectd
RAW="python3 $(dirname "$0")/../integration/rawclient.py"
T=$(mktemp -d /tmp/kb-daemon-submit-XXXXXX)
SOCK=$T/kbisectd.sock DB=$T/kbisect.db LOG=$T/kbisectd.log
pid=
fail=0
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

if ! [ -x "$KBD" ] || ! command -v python3 >/dev/null 2>&1; then
	echo "[  FAILED  ] daemon-submit: kbisectd and python3 are needed"
	exit 1
fi
python3 - "$T" <<'EOF'
import sys
t = sys.argv[1]
def keys(prefix, per_map):
    out, n, i = [prefix], len(prefix), 0
    while True:
        if per_map and i % per_map == 0:
            head = "  g%05d:\n" % (i // per_map)
            out.append(head)
            n += len(head)
        line = ("    " if per_map else "  ") + "k%06d: %d\n" % (i, i)
        if n + len(line) > 1 << 20 or i >= 49000:
            return "".join(out)
        out.append(line)
        n += len(line)
        i += 1
head = "name: keys\nworkload: { fio: { rw: randread } }\nx:\n"
open(t + "/flat.yaml", "w").write(keys(head, 0))
open(t + "/spread.yaml", "w").write(keys(head, 50))
model = "metric: read_iops\nbase: 500000\ntime: { build_s: 10, boot_s: 2, run_s: 2 }\nseed: 7\n"
open(t + "/model.yaml", "w").write(model)
open(t + "/bigmodel.yaml", "w").write(keys(model + "x:\n", 0))
opts = "".join("    OPT_%02d: [y, n]\n" % i for i in range(12))
open(t + "/small.yaml", "w").write(
    "name: small\nfactors:\n  kconfig:\n    A: [y, n]\n"
    "workload: { fio: { rw: randread } }\nrepeat: { boots: 1 }\n")
open(t + "/wide.yaml", "w").write(
    "name: wide\nfactors:\n  kconfig:\n" + opts +
    "workload: { fio: { rw: randread } }\nrepeat: { boots: 10 }\n")
EOF

unset KBISECT_SOCKET KBISECT_DB KBISECT_TIMEOUT
start() { # DB SOCKET LOG TIME_SCALE: a daemon, waited for
	KBISECT_MODEL_TIME_SCALE=$4 "$KBD" --socket "$2" --db "$1" 2>"$3" &
	pid=$!
	i=0
	while ! [ -S "$2" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
}

measure() { # WHAT MATRIX MODEL
	r=$($RAW timesubmit "$SOCK" "$T/$2" "$T/$3" 2>&1)
	echo "  daemon-submit: $1: $r"
	case $r in *answer=submitted*|*answer=refused*) ;; *) fail=1 ;; esac
}
if [ "${WORST:-1}" != 0 ]; then
	# slow steps: the daemon is idle but for the submissions
	start "$DB" "$SOCK" "$LOG" 1
	measure "1 MiB matrix, one mapping of 49,000 keys" flat.yaml model.yaml
	measure "1 MiB matrix, 49,000 keys in mappings of 50" spread.yaml model.yaml
	measure "a valid matrix with a 1 MiB model of 49,000 keys" small.yaml bigmodel.yaml
	measure "4096 variants x 10 boots (45,056 jobs)" wide.yaml model.yaml
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	pid=
	[ "$fail" -eq 0 ] || echo "[  FAILED  ] daemon-submit: a submission got no answer"
fi

# bursts of tiny experiments, each on a fresh daemon and database
cat >"$T/tiny.yaml" <<EOF
name: tiny
factors:
  kconfig:
    PARAVIRT_SPINLOCKS: [y, n]
workload:
  fio: { rw: randread }
  metric: read_iops
repeat: { boots: 1, runs_per_boot: 1 }
hosts:
  - uri: test:///default
    capacity: 4
EOF
BURSTS=${BURSTS-50 200 800}
# each size ROUNDS times (default 3), interleaved (a load that comes and
# goes on a shared machine hits every size alike); the round of median
# rate is printed, with every round's rate
ROUNDS=${ROUNDS:-3}
r=1
while [ $r -le "$ROUNDS" ]; do
	for n in $BURSTS; do
		b=$T/burst-$n-$r
		mkdir "$b" || exit 1
		start "$b/kbisect.db" "$b/sock" "$b/log" 0
		$RAW burst "$b/sock" "$n" "$T/tiny.yaml" "$T/model.yaml" \
			"$b/kbisect.db" 4 >"$b/result" 2>&1
		kill -TERM "$pid"
		wait "$pid" 2>/dev/null
		pid=
		case $(cat "$b/result") in "n=$n done=$n errors=0 "*) ;; *)
			echo "[  FAILED  ] daemon-submit: a burst of $n did not end done: $(cat "$b/result")"
			fail=1 ;;
		esac
	done
	r=$((r + 1))
done
first=
for n in $BURSTS; do
	rates=$(cat "$T"/burst-"$n"-*/result | sed -n 's/.* rate=\([0-9.]*\).*/\1/p' | sort -n | tr '\n' ' ')
	med=$(echo "$rates" | awk '{ print $(int((NF + 1) / 2)) }')
	line=$(grep -h " rate=$med " "$T"/burst-"$n"-*/result | head -n 1)
	[ -n "$first" ] || first=$med
	rel=$(awk -v a="${med:-0}" -v b="${first:-0}" -v n0="${BURSTS%% *}" \
		'BEGIN { if (b > 0) printf "%.0f%% of the rate of %s", 100 * a / b, n0 }')
	echo "  daemon-submit: burst of $n: $line ($rel; rates ${rates% })"
done
[ "$fail" -eq 0 ]
