# What why and compare --adaptive may spend (issue 29, item 2): the boots
# and time said before the first, --max-added-boots honoured, and on a
# terminal a question before more than 20 that take time.  Sourced by
# tests/cli/run.sh (its run, check, has, $KB, $MATRIX, $MODEL and $T).

boots_in() { sqlite3 "$1" "select count(*) from boots"; }

"$KB" run "$MATRIX" --model "$MODEL" --db "$T/bud.db" -q >/dev/null 2>&1
cp "$T/bud.db" "$T/bud0.db"
run "$KB" why 1 --max-added-boots 0 --db "$T/bud0.db"
check "why --max-added-boots 0: says so, adds none and answers from the stored boots" $([ $rc -eq 0 ] &&
	has "^kbisect: why may add up to 0 boots (at once: the model has no time:); --max-added-boots caps it$" "$T/err" &&
	[ "$(boots_in "$T/bud0.db")" = "$(boots_in "$T/bud.db")" ] &&
	has "the boot budget, --max-added-boots, has too few for a confirmation" "$T/out"; echo $?)
cp "$T/bud.db" "$T/bud1.db"
run "$KB" why 1 --db "$T/bud1.db"
added=$(( $(boots_in "$T/bud1.db") - $(boots_in "$T/bud.db") ))
check "why says the plan's 56 boots before the first, and adds no more ($added)" $([ $rc -eq 0 ] &&
	has "^kbisect: why may add up to 56 boots (at once: the model has no time:); --max-added-boots N caps it, --no-boots adds none$" "$T/err" &&
	[ "$added" -gt 0 ] && [ "$added" -le 56 ]; echo $?)
cp "$T/bud.db" "$T/bud2.db"
run "$KB" why 1 --max-added-boots 7 --db "$T/bud2.db"
added=$(( $(boots_in "$T/bud2.db") - $(boots_in "$T/bud.db") ))
check "why --max-added-boots 7 adds 7 at most ($added) and says when it stopped short" $([ $rc -eq 0 ] &&
	[ "$added" -le 7 ] && { [ "$added" -lt 6 ] || has "stopped adding boots at its budget of 7" "$T/err"; }; echo $?)
run "$KB" why 1 --max-added-boots -1 --db "$T/bud2.db"
check "why --max-added-boots -1: exit 2" $([ $rc -eq 2 ] &&
	has "is not a number of boots from 0 to 1000000" "$T/err"; echo $?)
run "$KB" compare 1 0 3 --max-added-boots 4 --db "$T/bud2.db"
check "compare --max-added-boots without --adaptive: exit 2" $([ $rc -eq 2 ] &&
	has "give --adaptive too" "$T/err"; echo $?)
cp "$T/bud.db" "$T/bud3.db"
run "$KB" compare 1 0 3 --adaptive --max-added-boots 2 --db "$T/bud3.db"
added=$(( $(boots_in "$T/bud3.db") - $(boots_in "$T/bud.db") ))
check "compare --adaptive --max-added-boots 2: says 2, adds 2 at most ($added)" $([ $rc -eq 0 ] &&
	has "^kbisect: compare --adaptive may add up to 2 boots" "$T/err" && [ "$added" -le 2 ]; echo $?)

# a model with time: (run at once here) on a terminal: asked, and a no adds none
{ cat "$MODEL"; echo 'time: { build_s: 420, boot_s: 25, run_s: 30 }'; } >"$T/bt-timed.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$MATRIX" --model "$T/bt-timed.model.yaml" --db "$T/bt-timed.db" -q >/dev/null 2>&1
before=$(boots_in "$T/bt-timed.db")
if command -v script >/dev/null 2>&1; then
	echo n | KBISECT_MODEL_TIME_SCALE=0 script -qec "$KB why 1 --db $T/bt-timed.db" /dev/null >"$T/tty.out" 2>&1
	check "why on a terminal asks before 56 boots of 85 s, and a no adds none" $(
		has "why may add up to 56 boots, up to 79.3 min (the model's time:" "$T/tty.out" &&
		has "add them? \[y/N\] kbisect: adding no boots: why answers from the stored ones" "$T/tty.out" &&
		[ "$(boots_in "$T/bt-timed.db")" = "$before" ]; echo $?)
else
	echo "  (script missing: the terminal's question not checked)"
fi
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" why 1 --db "$T/bt-timed.db" </dev/null
check "... and without a terminal it goes on, having said the cost" $([ $rc -eq 0 ] &&
	has "why may add up to 56 boots, up to 79.3 min" "$T/err" &&
	[ "$(boots_in "$T/bt-timed.db")" -gt "$before" ]; echo $?)
