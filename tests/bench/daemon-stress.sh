#!/bin/sh
# The daemon under a crowd and a killer (issue 12, "Done when"): 200
# clients at once (tests/integration/rawclient.py storm) submit a small
# model experiment, poll it and disconnect abruptly — half a submission,
# gone before the answer, gone in the middle of a request — twice each at
# random moments, while kbisectd is SIGKILLed 10 times and restarted.
# Afterwards every acknowledged experiment (its SUBMITTED was read) ends
# done, with exactly its boots and samples, no boot or sample stored
# twice, and each daemon's peak RSS (VmHWM, read before it is killed and
# at the end) stays under RSS_MAX_KIB.
#
# Two to three minutes on two cores, most of it running the experiments
# the storm queued, so it is in `make bench`, not `make test`.
#
# Usage: tests/bench/daemon-stress.sh KBISECT  (kbisectd next to it)
set -u
KB=${1:-./kbisect}
KBD=$(dirname "$KB")/kbisectd
[ -x "$KBD" ] || KBD=./kbisectd
RAW="python3 $(dirname "$0")/../integration/rawclient.py"
CLIENTS=200 ROUNDS=2 STORM=20 KILLS=10
RSS_MAX_KIB=65536 # 64 MiB
BOOTS=2 RUNS=2 VARIANTS=2
T=$(mktemp -d /tmp/kb-daemon-stress-XXXXXX)
SOCK=$T/kbisectd.sock DB=$T/kbisect.db LOG=$T/kbisectd.log
pid= spid=
pass=0 fail=0 peak_kib=0

cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "  kept $T"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] daemon-stress: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] daemon-stress: $1"
		grep -v debug "$LOG" | tail -n 8 | sed 's/^/  log: /'
	fi
}

for need in "$KBD" "$KB"; do
	if ! [ -x "$need" ]; then
		echo "[  FAILED  ] daemon-stress: no $need (make kbisect kbisectd)"
		exit 1
	fi
done
if ! command -v python3 >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
	echo "[  FAILED  ] daemon-stress: python3 and the sqlite3 shell are needed (make deps)"
	exit 1
fi

cat >"$T/m.yaml" <<EOF
name: stress
factors:
  kconfig:
    PARAVIRT_SPINLOCKS: [y, n]
workload:
  fio: { rw: randread, bs: 4k, runtime: 5 }
  metric: read_iops
repeat: { boots: $BOOTS, runs_per_boot: $RUNS }
hosts:
  - uri: test:///default
    capacity: 4
EOF
cat >"$T/model.yaml" <<EOF
metric: read_iops
base: 500000
noise: { boot_cv: 0.03, run_cv: 0.01 }
time: { build_s: 10, boot_s: 2, run_s: 2 }
seed: 7
EOF
# a build 0.1 s, a boot with its runs 0.06 s: short, but long enough to
# be killed in the middle of
export KBISECT_MODEL_TIME_SCALE=0.01
unset KBISECT_SOCKET KBISECT_DB KBISECT_TIMEOUT

q() { sqlite3 -cmd '.timeout 5000' "$DB" "$1"; }
note_peak() {
	k=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$k" ] && [ "$k" -gt "$peak_kib" ] && peak_kib=$k
}

start() {
	"$KBD" --socket "$SOCK" --db "$DB" 2>>"$LOG" &
	pid=$!
	i=0
	while ! [ -S "$SOCK" ] || ! KBISECT_TIMEOUT=60 "$KB" status --socket "$SOCK" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 200 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "kbisectd did not start"; return 1
		fi
		sleep 0.05
	done
}

t0=$(date +%s)
start
check "kbisectd starts" $?
$RAW storm "$SOCK" $CLIENTS "$T/m.yaml" "$T/model.yaml" "$T/acks" $STORM $ROUNDS \
	>"$T/storm" 2>"$T/storm.err" &
spid=$!
seed=$$
echo "  ($CLIENTS clients, kill moments from seed $seed)"
kills=0
while [ $kills -lt $KILLS ]; do
	delay=$(awk -v s="$seed" -v k="$kills" 'BEGIN { srand(s + k); printf "%.2f", 0.8 + 1.2 * rand() }')
	sleep "$delay"
	note_peak
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	kills=$((kills + 1))
	start || break
done
check "the daemon was SIGKILLed $KILLS times under the storm ($kills)" \
	$([ $kills -eq $KILLS ]; echo $?)
wait "$spid"
src=$?
spid=
echo "  storm: $(cat "$T/storm")"
check "every client got through (exit $src, $(wc -l <"$T/storm.err") errors)" \
	$([ $src -eq 0 ] && ! [ -s "$T/storm.err" ]; echo $?)
acked=$(sort -un "$T/acks" | wc -l)
check "submissions were acknowledged ($acked)" $([ "$acked" -gt 0 ]; echo $?)

# let the daemon run what was queued
i=0
while [ "$(q "select count(*) from experiments where state in ('queued', 'running')")" -gt 0 ] &&
      [ $i -lt 600 ]; do
	i=$((i + 1)); sleep 1
	note_peak
done
note_peak
t1=$(date +%s)
echo "  $(q 'select count(*) from experiments') experiments stored, all ended $((t1 - t0)) s after the start"

sort -un "$T/acks" | awk '{ print "insert into acked values (" $1 ");" }' >"$T/acked.sql"
qa() { sqlite3 -cmd '.timeout 5000' "$DB" "create temp table acked (id integer primary key);
	$(cat "$T/acked.sql")
	$1"; }
missing=$(qa "select count(*) from acked where id not in (select id from experiments)")
check "every acknowledged experiment is in the database ($missing missing)" \
	$([ "$missing" -eq 0 ]; echo $?)
notdone=$(qa "select count(*) from acked a join experiments e on e.id = a.id where e.state != 'done'")
check "every acknowledged experiment ended done ($notdone not)" \
	$([ "$notdone" -eq 0 ]; echo $?)
short=$(qa "select count(*) from (select v.id, count(distinct b.id) nb, count(s.id) ns
	from acked a join variants v on v.experiment_id = a.id
	left join boots b on b.variant_id = v.id
	left join samples s on s.boot_id = b.id and s.metric = 'read_iops'
	group by v.id) where nb != $BOOTS or ns != $((BOOTS * RUNS))")
check "each of their variants has $BOOTS boots and $((BOOTS * RUNS)) samples ($short not)" \
	$([ "$short" -eq 0 ]; echo $?)
check "no boot stored twice" \
	$([ "$(q "select count(*) from (select variant_id, boot_no from boots group by 1, 2 having count(*) > 1)")" -eq 0 ]; echo $?)
check "no sample stored twice" \
	$([ "$(q "select count(*) from (select boot_id, run_no, metric from samples group by 1, 2, 3 having count(*) > 1)")" -eq 0 ]; echo $?)
check "every job of them done, none leased" \
	$([ "$(qa "select count(*) from jobs j join acked a on a.id = j.experiment_id where j.state != 'done'")" -eq 0 ]; echo $?)
check "each daemon's peak RSS stayed under $((RSS_MAX_KIB / 1024)) MiB (highest $((peak_kib / 1024)) MiB)" \
	$([ "$peak_kib" -gt 0 ] && [ "$peak_kib" -lt $RSS_MAX_KIB ]; echo $?)

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM stops the daemon cleanly (exit $rc)" $([ $rc -eq 0 ]; echo $?)
echo "daemon-stress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
