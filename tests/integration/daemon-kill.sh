#!/bin/sh
# kbisectd survives SIGKILL at any instant (issue 5, "Done when"): start
# the daemon on a temporary socket and database, submit a 40-boot
# experiment on the performance model (4 variants x 10 boots x 2 runs,
# stage times scaled so that it takes about 30 s), kill -9 the daemon at
# random moments (at least 5 times), restart it each time (and once stop
# it with SIGTERM, which lets the running step end), and check that
# the experiment ends done with exactly boots x runs samples per variant,
# no boot or sample twice, every job done once, and no kbisect-* guest
# left.  Also: a bad matrix is refused with exit 2 and the queue stays as
# it was; a second daemon on the same socket or database refuses to start;
# a raw SUBMIT over the caps on a plan is refused, a raised cap accepted.
#
# Usage: tests/integration/daemon-kill.sh KBISECT  (kbisectd next to it)
set -u
KB=${1:-./kbisect}
KBD=$(dirname "$KB")/kbisectd
[ -x "$KBD" ] || KBD=./kbisectd
MATRIX=tests/data/daemon/forty.yaml
MODEL=tests/data/daemon/forty.model.yaml
BOOTS=10 RUNS=2 VARIANTS=4 KILLS=6
T=$(mktemp -d /tmp/kb-daemon-kill-XXXXXX)
SOCK=$T/kbisectd.sock DB=$T/kbisect.db LOG=$T/kbisectd.log
pid=
pass=0 fail=0

cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "  kept $T"; fi
}
trap cleanup EXIT

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] daemon-kill: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] daemon-kill: $1"
		tail -n 15 "$LOG" | sed 's/^/  log: /'
	fi
}

if ! [ -x "$KBD" ]; then
	echo "[  FAILED  ] daemon-kill: no kbisectd binary (make kbisectd)"
	exit 1
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "[  FAILED  ] daemon-kill: the sqlite3 shell is missing (make deps)"
	exit 1
fi

# 1 s per build, 0.6 s per boot with its two runs
export KBISECT_MODEL_TIME_SCALE=0.1
unset KBISECT_SOCKET KBISECT_DB

start() {
	"$KBD" --socket "$SOCK" --db "$DB" --lease 5 --verbose 2>>"$LOG" &
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

# the daemon writes meanwhile: wait for its lock rather than fail
q() { sqlite3 -cmd '.timeout 10000' "$DB" "$1"; }

start
check "kbisectd starts and answers" $?

# a second daemon on the same database, then on the same socket
"$KBD" --socket "$T/other.sock" --db "$DB" >"$T/out" 2>&1
rc=$?
check "a second daemon on the same database refuses (exit $rc)" \
	$([ $rc -ne 0 ] && grep -q "another kbisectd (pid $pid) uses database" "$T/out"; echo $?)
"$KBD" --socket "$SOCK" --db "$T/other.db" >"$T/out" 2>&1
rc=$?
check "a second daemon on the same socket refuses (exit $rc)" \
	$([ $rc -ne 0 ] && grep -q "already listens on" "$T/out"; echo $?)

# a bad matrix never reaches the queue
printf 'name: bad\nfactors: { kconfig: { X: [y, n] } }\nworkload: { fio: { rw: randread } }\nfrobnicate: 1\n' >"$T/bad.yaml"
"$KB" submit "$T/bad.yaml" --model "$MODEL" --socket "$SOCK" >"$T/out" 2>&1
rc=$?
check "a bad matrix exits 2 (got $rc) and names its line" \
	$([ $rc -eq 2 ] && grep -q "bad.yaml:4:1" "$T/out"; echo $?)
check "the queue is unchanged after the bad matrix" \
	$([ "$(q 'select count(*) from experiments') $(q 'select count(*) from jobs')" = "0 0" ]; echo $?)

id=$("$KB" submit "$MATRIX" --model "$MODEL" --socket "$SOCK" --quiet)
check "submit prints the experiment id ($id)" \
	$([ -n "$id" ] && [ "$(q "select count(*) from jobs where experiment_id = $id")" -eq $((VARIANTS * BOOTS + 4)) ]; echo $?)

t0=$(date +%s)
seed=$$
echo "  (kill moments from seed $seed)"
kills=0
k=1
while [ $k -le $KILLS ]; do
	# somewhere in the next 1.5 to 3.5 s: during a build, a boot, a
	# commit or between steps, wherever it falls
	delay=$(awk -v s="$seed" -v k="$k" 'BEGIN { srand(s + k); printf "%.2f", 1.5 + 2 * rand() }')
	sleep "$delay"
	state=$(q "select state from experiments where id = $id")
	[ "$state" = done ] && break
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	kills=$((kills + 1))
	echo "  SIGKILL $kills after ${delay}s: $(q "select count(*) from boots b join variants v on v.id = b.variant_id where v.experiment_id = $id") boots stored, $(q "select count(*) from jobs where experiment_id = $id and state = 'leased'") steps interrupted"
	start || break
	k=$((k + 1))
done
check "the daemon was killed at least 5 times during the experiment ($kills)" \
	$([ $kills -ge 5 ]; echo $?)

# SIGTERM in the middle: the running step ends and is stored, no lease
# is left behind, the daemon exits 0
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
leased=$(q "select count(*) from jobs where experiment_id = $id and state = 'leased'")
check "SIGTERM mid-experiment lets the step finish: exit $rc, $leased leases left" \
	$([ $rc -eq 0 ] && [ "$leased" -eq 0 ] && grep -q "running step.* finish first" "$LOG"; echo $?)
start

timeout 60 "$KB" watch "$id" --socket "$SOCK" >"$T/watch" 2>&1
rc=$?
t1=$(date +%s)
echo "  experiment took $((t1 - t0)) s with $kills kills"
check "watch ends when the experiment is done (exit $rc)" \
	$([ $rc -eq 0 ] && tail -n 1 "$T/watch" | grep -q "done: builds 4/4, boots 40/40"; echo $?)
check "state done" $([ "$(q "select state from experiments where id = $id")" = done ]; echo $?)
# the daemon stores each variant's verdict as the experiment ends, as
# run does (it may come a moment after the state)
i=0
while [ $i -lt 50 ] && ! grep -q "experiment $id: [0-9]* verdicts stored" "$LOG"; do
	sleep 0.2; i=$((i + 1))
done
check "the daemon stored a verdict for each of the $((VARIANTS - 1)) variants (v_verdicts)" \
	$(grep -q "experiment $id: $((VARIANTS - 1)) verdicts stored" "$LOG" &&
	[ "$(q "select count(*) from v_verdicts where experiment_id = $id and verdict not in ('baseline', 'not compared')")" -eq $((VARIANTS - 1)) ]; echo $?)

bad=$(q "select count(*) from (select v.idx, count(b.id) n,
	(select count(*) from samples s join boots b2 on b2.id = s.boot_id
	 where b2.variant_id = v.id and s.metric = 'read_iops') ns
	from variants v left join boots b on b.variant_id = v.id
	where v.experiment_id = $id group by v.id)
	where n != $BOOTS or ns != $((BOOTS * RUNS))")
check "every variant has $BOOTS boots and $((BOOTS * RUNS)) samples" $([ "$bad" -eq 0 ]; echo $?)
check "$((VARIANTS * BOOTS * RUNS)) samples in all" \
	$([ "$(q "select count(*) from samples s join boots b on b.id = s.boot_id join variants v on v.id = b.variant_id where v.experiment_id = $id")" -eq $((VARIANTS * BOOTS * RUNS)) ]; echo $?)
check "no boot stored twice" \
	$([ "$(q "select count(*) from (select variant_id, boot_no from boots group by 1, 2 having count(*) > 1)")" -eq 0 ]; echo $?)
check "no sample stored twice" \
	$([ "$(q "select count(*) from (select boot_id, run_no, metric from samples group by 1, 2, 3 having count(*) > 1)")" -eq 0 ]; echo $?)
check "each build key built once" \
	$([ "$(q "select count(*) from builds")" -eq 4 ]; echo $?)
check "every job done, none leased" \
	$([ "$(q "select count(*) from jobs where experiment_id = $id and state != 'done'")" -eq 0 ]; echo $?)
redone=$(q "select count(*) from jobs where experiment_id = $id and attempts > 1")
echo "  $redone steps were interrupted and redone"
check "interrupted steps were taken back after restarts" \
	$(grep -q "took back" "$LOG"; echo $?)

# The model executor starts no guest; the matrix's host is libvirt's test
# driver, whose guests live only as long as one connection.  Check it all
# the same, so that a guest-starting executor here would be caught.
if command -v virsh >/dev/null 2>&1; then
	left=$(virsh -c test:///default list --all --name 2>/dev/null | grep -c '^kbisect-')
	check "no kbisect-* guest left ($left)" $([ "$left" -eq 0 ]; echo $?)
else
	echo "  (virsh missing: guests not listed; the model executor starts none)"
fi

# the caps on a whole plan (docs/matrix.md "Limits") hold for a raw
# SUBMIT too, and a client can raise them for its submission: 2 variants
# that may reach 1000 boots of 600 runs are 1.2 million samples
printf 'name: big\nfactors: { kconfig: { X: [y, n] } }\nworkload: { fio: { rw: randread } }\nrepeat: { boots: 1, max_boots: 1000, runs_per_boot: 600 }\nhosts: [test:///default]\n' >"$T/big.yaml"
printf 'metric: read_iops\nbase: 1000\n' >"$T/fast.model.yaml"
before=$(q 'select count(*) from experiments')
if command -v python3 >/dev/null 2>&1; then
	python3 - "$SOCK" "$T/big.yaml" "$T/fast.model.yaml" >"$T/out" 2>&1 <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.write(json.dumps({"msg": 1, "version": 1}) + "\n"); f.flush(); f.readline()
f.write(json.dumps({"msg": 10, "matrix": open(sys.argv[2]).read(),
                    "matrix_path": sys.argv[2],
                    "model": open(sys.argv[3]).read()}) + "\n")
f.flush()
r = json.loads(f.readline())
print(r["msg"], r.get("message"))
PY
	check "a raw SUBMIT over the caps is refused, nothing queued" \
		$(grep -q "^30 .*2000 boots x 600 runs per boot = 1200000 samples" "$T/out" &&
		  [ "$(q 'select count(*) from experiments')" -eq "$before" ]; echo $?)
else
	echo "  (python3 missing: no raw SUBMIT sent)"
fi
big=$("$KB" submit "$T/big.yaml" --model "$T/fast.model.yaml" --socket "$SOCK" --quiet --max-samples 1200000)
check "submit --max-samples raises the daemon's cap too ($big)" \
	$([ -n "$big" ] && [ "$(q "select count(*) from jobs where experiment_id = $big")" -eq 4 ]; echo $?)

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM stops the daemon cleanly (exit $rc)" \
	$([ $rc -eq 0 ] && ! [ -e "$SOCK" ]; echo $?)

echo "daemon-kill: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
