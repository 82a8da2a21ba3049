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
