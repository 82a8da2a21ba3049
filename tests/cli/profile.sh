# Profiles on the model (issue 27): stored per boot, each stack's text
# once; compare's differential profile with intervals, in --json too;
# nothing printed without profiles; a bad model profile is refused with
# file:line:col.  Sourced by tests/cli/run.sh (its run, check, has,
# json_ok, $KB and $T).

cat >"$T/pr.model.yaml" <<'YAML'
metric: read_iops
base: 1000
noise: { boot_cv: 0.03 }
profile:
  samples: 20000
  noise: { boot_cv: 0.03, run_cv: 0.01 }
  stacks:
    "entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;kmem_cache_alloc": 10
    "entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;kmem_cache_alloc;check_bytes_and_report": { weight: 0.2, effects: [ { when: { X: y }, factor: 25 } ] }
    "secondary_startup_64;cpu_startup_entry;do_idle;default_idle": 60
seed: 5
YAML
printf 'name: pr\nsource: { tree: ., base: tinyconfig }\nfactors: { kconfig: { X: [n, y] } }\nworkload: { fio: { rw: randread, bs: 4k } }\nrepeat: { boots: 6, runs_per_boot: 2 }\n' >"$T/pr.yaml"
run "$KB" run "$T/pr.yaml" --model "$T/pr.model.yaml" --db "$T/pr.db" -q
check "a model with a profile runs, and stores each stack's text once" $([ $rc -eq 0 ] &&
	[ "$(sqlite3 "$T/pr.db" 'select count(*) from profile_stacks')" = 3 ] &&
	[ "$(sqlite3 "$T/pr.db" 'select count(distinct boot_id || "." || run_no) from profiles')" = 24 ]; echo $?)
run "$KB" compare 1 0 1 --db "$T/pr.db"
check "compare: the slab checking path leads the changed functions, with its interval" $([ $rc -eq 0 ] &&
	has "^profile: [0-9]* of 9 functions changed their share of the samples" "$T/out" &&
	has "6 vs 6 boots with a profile" "$T/out" &&
	[ "$(sed -n '/A share/{n;p;}' "$T/out" | awk '{print $NF}')" = check_bytes_and_report ] &&
	sed -n '/A share/{n;p;}' "$T/out" | grep -q '+[0-9.]* \[+[0-9.]*, +[0-9.]*\]'; echo $?)
run "$KB" compare 1 0 1 --json --db "$T/pr.db"
check "compare --json: profile with every changed function" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; c=p["changed"][0]
assert p["boots_a"] == 6 and p["tested"] == 9 and p["adjust"] == "holm"
assert c["function"] == "check_bytes_and_report" and c["diff_low"] > 0 and c["p_holm"] < 0.05' "$T/out"; echo $?)
run "$KB" compare 1 0 1 --db "$T/bud.db"
check "compare without profiles prints no profile line" $([ $rc -eq 0 ] && ! has "^profile:" "$T/out"; echo $?)
printf 'metric: read_iops\nbase: 1\nprofile:\n  stacks: { "a;;b": 1 }\n' >"$T/pr-bad.model.yaml"
run "$KB" run "$T/pr.yaml" --model "$T/pr-bad.model.yaml" --db "$T/pr-bad.db"
check "a model profile with an empty frame: exit 2 with file:line:col, no database" $([ $rc -eq 2 ] &&
	[ ! -e "$T/pr-bad.db" ] && has "pr-bad.model.yaml:4:13: invalid stack 'a;;b': an empty frame" "$T/err"; echo $?)
# why: the bad variant's profile against the good one's, after its answer
sed 's/^noise: { boot_cv: 0.03 }$/noise: { boot_cv: 0.03 }\neffects: [ { when: { X: y }, factor: 0.7 } ]/' "$T/pr.model.yaml" >"$T/pr-slow.model.yaml"
"$KB" run "$T/pr.yaml" --model "$T/pr-slow.model.yaml" --db "$T/pr-slow.db" -q >/dev/null 2>&1
run "$KB" why 1 --no-boots --db "$T/pr-slow.db"
check "why: the differential profile of good and bad, the checking path first" $([ $rc -eq 0 ] &&
	has "^profile: [0-9]* of 9 functions changed" "$T/out" &&
	[ "$(sed -n '/A share/{n;p;}' "$T/out" | awk '{print $NF}')" = check_bytes_and_report ]; echo $?)
run "$KB" why 1 --no-boots --json --db "$T/pr-slow.db"
check "why --json carries the profile" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["profile"]["changed"][0]["function"] == "check_bytes_and_report"' "$T/out"; echo $?)
# export --profile: the stored stacks, one row a stack of a run
run "$KB" export 1 --profile --db "$T/pr.db"
check "export --profile: a row per stored stack of each run, stack and samples last" $([ $rc -eq 0 ] &&
	[ "$(head -1 "$T/out")" = "$(printf 'experiment_id,variant_idx,variant_label,X,boot_id,boot_no,boot_status,host,run_no,stack,samples\r')" ] &&
	[ $(( $(wc -l <"$T/out") - 1 )) = "$(sqlite3 "$T/pr.db" 'select count(*) from profiles')" ] &&
	[ "$(awk -F, 'NR > 1 { s += $NF } END { print s }' "$T/out")" = "$(sqlite3 "$T/pr.db" 'select sum(samples) from profiles')" ]; echo $?)
run "$KB" export 1 --profile --format json --db "$T/pr.db"
check "export --profile --format json: stack and samples keys" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r and all(isinstance(x["samples"], int) and ";" in x["stack"] for x in r)' "$T/out"; echo $?)
run "$KB" export 1 --profile --db "$T/bud.db"
check "export --profile of an experiment without profiles: the header alone" $([ $rc -eq 0 ] && [ "$(wc -l <"$T/out")" = 1 ]; echo $?)
# bisect options: the culprit's two sides profiled after the answer, the
# good end against the culprit alone on it; one option of five makes
# the slab's checking path 25 times heavier and costs 30%
sed 's/^noise: { boot_cv: 0.03 }$/noise: { boot_cv: 0.03 }\neffects: [ { when: { SLUB_DEBUG_ON: y }, factor: 0.7 } ]/; s/when: { X: y }, factor: 25/when: { SLUB_DEBUG_ON: y }, factor: 25/' \
	"$T/pr.model.yaml" >"$T/bp.model.yaml"
for o in A B SLUB_DEBUG_ON C D; do printf '# CONFIG_%s is not set\n' $o; done >"$T/bp-good.config"
for o in A B SLUB_DEBUG_ON C D; do printf 'CONFIG_%s=y\n' $o; done >"$T/bp-bad.config"
BP="bisect options --good $T/bp-good.config --bad $T/bp-bad.config -q"
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $BP --model "$T/bp.model.yaml" --db "$T/bp.db"
check "bisect options: the culprit's profile, good end against the culprit alone, the checking path first" $([ $rc -eq 0 ] &&
	has "^  SLUB_DEBUG_ON  *n -> y$" "$T/out" &&
	has "^profile: [0-9]* of 9 functions changed their share of the samples" "$T/out" &&
	has "^A = variant 0, the good end ($T/bp-good.config); B = variant [2-9], the culprits alone on the good end (step [2-9])$" "$T/out" &&
	[ "$(sed -n '/A share/{n;p;}' "$T/out" | awk '{print $NF}')" = check_bytes_and_report ] &&
	sed -n '/A share/{n;p;}' "$T/out" | grep -q '+[0-9.]* \[+[0-9.]*, +[0-9.]*\]' &&
	[ "$(sed -n 's/^A = variant 0, .*; B = variant \([0-9]*\), .*/\1/p' "$T/out")" = \
	  "$(sqlite3 "$T/bp.db" "select idx from variants where label = 'SLUB_DEBUG_ON=y'")" ]; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $BP --json --model "$T/bp.model.yaml" --db "$T/bp.db"
check "bisect options --json: the profile of its two sides, the planted function first" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["profile"]; c=p["changed"][0]
assert [x["option"] for x in d["culprits"]] == ["SLUB_DEBUG_ON"]
assert p["a_variant"] == 0 and p["a"].startswith("the good end (")
probe = [x for x in d["probes"] if x["variant"] == p["b_variant"]][0]
assert probe["options"] == ["SLUB_DEBUG_ON"] and probe["classification"] == "bad"
assert p["b"] == "the culprits alone on the good end (step %d)" % probe["step"]
assert c["function"] == "check_bytes_and_report" and c["diff_low"] > 0 and c["p_holm"] < 0.05' "$T/out"; echo $?)
# no profile, or no culprit: nothing more than the answer
grep -v '^profile:\|^  \(samples\|noise\|stacks\)\|^    "' "$T/bp.model.yaml" >"$T/bp-none.model.yaml"
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $BP --model "$T/bp-none.model.yaml" --db "$T/bp-none.db"
check "bisect options on a model without profile: the culprit, no profile section" $([ $rc -eq 0 ] &&
	has "^  SLUB_DEBUG_ON  *n -> y$" "$T/out" && ! has "^profile:" "$T/out" && ! has "^A = variant" "$T/out"; echo $?)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $BP --json --model "$T/bp-none.model.yaml" --db "$T/bp-none.db"
check "bisect options --json on a model without profile: no profile key" $([ $rc -eq 0 ] && json_ok "$T/out" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["culprits"] and "profile" not in d' "$T/out"; echo $?)
sed 's/factor: 0.7 }/factor: 0.99 }/' "$T/bp.model.yaml" >"$T/bp-flat.model.yaml"
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" $BP --model "$T/bp-flat.model.yaml" --db "$T/bp-flat.db"
check "bisect options that does not reproduce: no culprit, no profile although the boots carry one" $([ $rc -eq 0 ] &&
	has "^the regression does not reproduce" "$T/out" && ! has "^profile:" "$T/out" &&
	[ "$(sqlite3 "$T/bp-flat.db" 'select count(*) from profiles')" -gt 0 ]; echo $?)

# /init's fold of perf script's samples (guests/init, fold_stacks), under
# the guest's own shell and awk (busybox): the outermost frame first,
# offsets and modules dropped, a run of frames perf could not name (a
# stripped program's) one frame, so the same kernel path folds to one
# stack; a name's odd characters become '_'
if [ -x /bin/busybox ]; then
	sed -n '/^fold_stacks() {/,/^}/p' guests/init >"$T/fold.sh"
	run /bin/busybox sh -c ". '$T/fold.sh'; fold_stacks" <tests/data/profile/perf-script.txt
	check "guests/init folds perf script's samples, a run of [unknown] frames as one" $([ $rc -eq 0 ] &&
		[ "$(cat "$T/out")" = "kbisect-profile 1
[unknown];entry_SYSCALL_64_after_hwframe;do_syscall_64;memset_orig 2
do_idle;set_track_update.isra.0;default_idle 1" ]; echo $?)
fi
