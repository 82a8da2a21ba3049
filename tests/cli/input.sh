# Matrices and databases as input (issue 28, items 6, 7, 9-12): what is
# refused before anything runs or is written, and what is escaped when a
# database says it.  Sourced by tests/cli/run.sh (its run, check, has,
# json_ok, $KB, $MODEL and $T).

# ---- Unicode format characters: refused as control characters, escaped
# on output (lib/ycheck.h kb_ycheck_control()) -----------------------------
RLO=$(printf '\342\200\256') LSEP=$(printf '\342\200\250') PSEP=$(printf '\342\200\251')
printf 'name: "ab%scd"\nworkload: { fio: { rw: randread } }\n' "$RLO" >"$T/u-name.yaml"
run "$KB" plan "$T/u-name.yaml"
check "plan: U+202E in the name, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/u-name.yaml:1:7: name contains a control character (U+202E, a right-to-left override)" "$T/err" &&
	[ ! -s "$T/out" ]; echo $?)
printf 'workload: { fio: { rw: randread } }\nfactors:\n  sysctl: { vm.swappiness: ["1", "6%s0"] }\n' "$LSEP" >"$T/u-level.yaml"
run "$KB" plan "$T/u-level.yaml"
check "plan: U+2028 in a sysctl level, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/u-level.yaml:3:34: a level contains a control character (U+2028, a line separator)" "$T/err"; echo $?)
printf 'workload: { fio: { rw: randread, bs: "{{bs}}" } }\nfactors:\n  workload: { bs: [4k, "8k%s"] }\n' "$(printf '\342\201\246')" >"$T/u-wl.yaml"
run "$KB" plan "$T/u-wl.yaml"
check "plan: U+2066 in a workload level, exit 2" $([ $rc -eq 2 ] &&
	has "$T/u-wl.yaml:3:24: a level contains a control character (U+2066, a bidirectional control)" "$T/err"; echo $?)
run "$KB" run "$T/u-name.yaml" --model "$MODEL" --db "$T/u.db"
check "run: the same refusal, no database" $([ $rc -eq 2 ] && [ ! -e "$T/u.db" ]; echo $?)
# a database says them (a forged one, or one written before the rule):
# results and history escape them as they escape ESC
printf 'name: bidi\nworkload: { fio: { rw: randread }, metric: read_iops }\nfactors: { kconfig: { A: [n, y] } }\nrepeat: { boots: 2 }\n' >"$T/u.yaml"
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02 }\n' >"$T/u.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/u.yaml" --model "$T/u.model.yaml" --db "$T/u.db" -q >/dev/null 2>&1
sqlite3 "$T/u.db" "update experiments set name = 'bi' || char(8238) || 'di'; update variants set label = 'A=y' || char(8233) || 'x' where idx = 1"
run "$KB" results 1 --db "$T/u.db"
check "results: U+202E and U+2029 from the database are escaped" $([ $rc -eq 0 ] &&
	has '^experiment 1 "bi\\u202edi"' "$T/out" && has '^  1  A=y\\u2029x ' "$T/out" &&
	! grep -q "$RLO\|$PSEP" "$T/out"; echo $?)
run "$KB" history --db "$T/u.db"
check "history: U+202E from the database is escaped" $([ $rc -eq 0 ] &&
	has ' bi\\u202edi$' "$T/out" && ! grep -q "$RLO" "$T/out"; echo $?)

# ---- export -o: a pipe, a FIFO or a device is written into, never
# replaced by a regular file; a killed export's temporary file is swept --
printf 'name: inj\nworkload: { command: { run: "bench {{p}}", regex: "([0-9.]+) ops" }, metric: ops }\nfactors:\n  workload: { p: ["-1", "=1+2", "@SUM(A1)", "+3", "-2+3", "-1.5e3", "-x"] }\n  sysctl: { vm.swappiness: ["1", "=cmd|x"] }\nrepeat: { boots: 1 }\n' >"$T/inj.yaml"
printf 'metric: ops\nbase: 1000\n' >"$T/inj.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/inj.yaml" --model "$T/inj.model.yaml" --db "$T/inj.db" -q >/dev/null 2>&1
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.out" & reader=$!
run "$KB" export 1 --db "$T/inj.db" -o "$T/fifo"
wait "$reader"
check "export -o FIFO: written into, the FIFO stays one" $([ $rc -eq 0 ] && [ -p "$T/fifo" ] &&
	[ "$(wc -l <"$T/fifo.out")" -eq 15 ] && has "^experiment_id," "$T/fifo.out"; echo $?)
ln -s /dev/null "$T/null"
run "$KB" export 1 --db "$T/inj.db" -o "$T/null"
check "export -o a link to a device: the link and the device stay" $([ $rc -eq 0 ] && [ -L "$T/null" ] &&
	[ -c /dev/null ] && [ "$(ls "$T" | grep -c 'null.tmp-')" -eq 0 ]; echo $?)
# /dev/stdout as it is made (a link to /proc/self/fd/1), but ours: a
# build without the fix would replace the system's /dev/stdout as root
ln -s /proc/self/fd/1 "$T/stdout"
"$KB" export 1 --db "$T/inj.db" -o "$T/stdout" | cat >"$T/pipe.out"
check "export -o /dev/stdout into a pipe: the rows reach the pipe, the link stays" $([ "$(wc -l <"$T/pipe.out")" -eq 15 ] &&
	[ -L "$T/stdout" ]; echo $?)
run "$KB" export 1 --db "$T/inj.db" -o "$T"
check "export -o a folder: refused, exit 1, saying what it is" $([ $rc -eq 1 ] &&
	has "cannot write '$T': it is a folder, not a file, a pipe or a terminal" "$T/err"; echo $?)
# what a SIGKILLed export leaves goes the next time; another's does not
: >"$T/sweep.csv.tmp-Ab3xY9"; touch -d '2 hours ago' "$T/sweep.csv.tmp-Ab3xY9"
: >"$T/sweep.csv.tmp-fresh1"
run "$KB" export 1 --db "$T/inj.db" -o "$T/sweep.csv"
check "export -o FILE sweeps a stale FILE.tmp-XXXXXX of its own, not a fresh one" $([ $rc -eq 0 ] &&
	[ ! -e "$T/sweep.csv.tmp-Ab3xY9" ] && [ -e "$T/sweep.csv.tmp-fresh1" ] && [ -f "$T/sweep.csv" ]; echo $?)

# ---- CSV formula injection: a text cell a spreadsheet would run as a
# formula gets a leading ' (OWASP); plain numbers such as -1 stay --------
run "$KB" export 1 --db "$T/inj.db"
check "export: cells starting with = + - @ get a leading quote, numbers do not" $([ $rc -eq 0 ] &&
	has '^1,1,workload.p=-1 sysctl.vm.swappiness==cmd|x,-1,"'"'"'=cmd|x",' "$T/out" &&
	has ',"'"'"'=1+2",1,' "$T/out" && has ',"'"'"'@SUM(A1)",1,' "$T/out" &&
	has ',"'"'"'-2+3",1,' "$T/out" && has ',"'"'"'-x",1,' "$T/out" &&
	has ',+3,1,' "$T/out" && has ',-1.5e3,1,' "$T/out" &&
	! grep -q ',=\|,@\|,-2+3' "$T/out"; echo $?)
sqlite3 "$T/inj.db" "update boots set host = char(9) || '=HYPERLINK(1)' where id = 1; update variants set label = '+A' where idx = 6"
run "$KB" export 1 --db "$T/inj.db"
check "export: a tab or a sign in front of a host or a label from the database too" $([ $rc -eq 0 ] &&
	has ",\"'	=HYPERLINK(1)\"," "$T/out" && has "^1,6,\"'+A\"," "$T/out"; echo $?)
run "$KB" export 1 --db "$T/inj.db" --format json
check "export --format json keeps the text as it is" $([ $rc -eq 0 ] && has '"workload.p":"=1+2"' "$T/out"; echo $?)
