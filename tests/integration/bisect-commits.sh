#!/bin/sh
# `kbisect bisect commits` and `kbisect test` (under `git bisect run`) on
# the performance model, with a generated git repository of 24 commits
# whose regression starts at "change 15" and where "change 12" does not
# build: the first bad commit, the skip, --json, the stored bisection,
# exit statuses, and the refusals.
#   tests/integration/bisect-commits.sh ./kbisect
set -u
KB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/kb-bisect-commits-XXXXXX)
trap 'rm -rf "$T"' EXIT
export KBISECT_MODEL_TIME_SCALE=0
pass=0 fail=0

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] bisect-commits: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] bisect-commits: $1"
		echo "  stdout: $(head -c 800 "$T/out")"
		echo "  stderr: $(head -c 800 "$T/err")"
	fi
}
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "${2:-$T/out}"; }

if ! command -v git >/dev/null || ! command -v python3 >/dev/null; then
	echo "bisect-commits: SKIPPED: needs git and python3"
	exit 1
fi

# the repository: fixed dates and no user configuration, so the commit
# ids (and the model's noise, seeded by labels holding them) are stable
export GIT_AUTHOR_DATE=2024-01-01T00:00:00Z GIT_COMMITTER_DATE=2024-01-01T00:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
R=$T/repo
g() { git -C "$R" -c user.name=t -c user.email=t@example.org "$@"; }
mkdir "$R" && g init -q && g commit -q --allow-empty -m base
for i in $(seq 1 24); do g commit -q --allow-empty -m "change $i"; done
g rev-list --reverse HEAD >"$T/shas"
sha() { sed -n "$(($1 + 1))p" "$T/shas"; }  # sha N: "change N" (0: base)
GOOD=$(sha 0) BAD=$(sha 24)

cat >"$T/m.yaml" <<EOF2
name: commits-demo
source:
  tree: repo
workload:
  fio: { rw: randread, bs: 4k, runtime: 5 }
  metric: read_iops
repeat: { boots: 10, runs_per_boot: 1, max_boots: 20 }
compare: { threshold_pct: 10, alpha: 0.05 }
EOF2
{
	printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.05 }\nseed: 3\n'
	printf 'effects:\n  - when: { kernel.rev: ['
	for i in $(seq 15 24); do printf '%s%s' "$([ $i -gt 15 ] && echo ', ')" "$(sha $i)"; done
	printf '] }\n    factor: 0.7\n'
	printf 'failures:\n  - when: { kernel.rev: %s }\n    stage: build\n' "$(sha 12 | cut -c1-12)"
} >"$T/model.yaml"
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.05 }\n' >"$T/flat.yaml"

run "$KB" bisect commits --good "$GOOD" --bad HEAD --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/a.db"
check "finds the first bad commit" $([ $rc -eq 0 ] &&
	has "first bad commit: $(sha 15) change 15" &&
	has "24 commits, metric read_iops" &&
	has "effect against $(sha 14 | cut -c1-12) (the last good commit): -[23][0-9]\.[0-9]%" &&
	has "skip.*change 12: build-failed"; echo $?)
check "probes are printed on stderr as they go" $(has "step  class" "$T/err" &&
	has "bad.*change 24" "$T/err"; echo $?)

run "$KB" bisect commits --good "$GOOD" --bad "$BAD" --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/a.db" --json --quiet
cat >"$T/keys.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
want, skipped = sys.argv[2], sys.argv[3]
assert j["reproduces"] is True and j["commits"] == 24
assert j["first_bad"] == {"commit": want, "summary": "change 15"}, j["first_bad"]
assert -36 < j["change_pct"] < -24 and len(j["ci_pct"]) == 2
assert j["confirmed"] is True and j["effect_boots"] >= 10, j["effect_boots"]
assert j["ci_pct"][0] <= j["change_pct"] <= j["ci_pct"][1]
assert j["builds"] == 0, j["builds"]  # every build is in the database
assert j["boots"] > 0 and isinstance(j["boots"], int)
assert 5 <= len(j["probes"]) <= 8, len(j["probes"])
for p in j["probes"]:
    assert p["classification"] in ("good", "bad", "unknown", "skip")
    assert len(p["commit"]) == 40 and "change_pct" in p
assert [p["commit"] for p in j["probes"] if p["classification"] == "skip"] == [skipped]
PY
check "--json has first_bad, change_pct, ci_pct, builds, boots, probes" $([ $rc -eq 0 ] &&
	[ ! -s "$T/err" ] && python3 "$T/keys.py" "$T/out" "$(sha 15)" "$(sha 12)"; echo $?)

run sqlite3 "$T/a.db" "select kind, state, substr(result, 1, 57) from bisections where id = 2;
	select classification from v_bisection where bisection_id = 2 and step_no = 1;
	select design from experiments where id = 2"
check "the bisection and its steps are stored" $([ $rc -eq 0 ] &&
	[ "$(tr '\n' ' ' <"$T/out")" = "commits|done|first bad commit $(sha 15) bad bisect-commits " ]; echo $?)

# the same bisection again: the stored answer, nothing built or booted
# (docs/bisect.md "Running it again"); --fresh boots it all again
boots=$(sqlite3 "$T/a.db" "select count(*) from boots")
run "$KB" bisect commits --good "$GOOD" --bad "$BAD" --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/a.db" --quiet
check "the same bisection again answers from the stored one" $([ $rc -eq 0 ] &&
	has "^bisection 2 (experiment 2): " && has "first bad commit: $(sha 15) change 15" &&
	has "^stored answer: bisection 2 of .*, nothing built or booted now (--fresh bisects again); what it spent:$" &&
	[ "$(sqlite3 "$T/a.db" "select count(*) from boots")" = "$boots" ] &&
	[ "$(sqlite3 "$T/a.db" "select count(*) from bisections")" = 2 ]; echo $?)
run "$KB" bisect commits --good "$GOOD" --bad "$BAD" --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/a.db" --quiet --json --fresh
check "--fresh boots it all again" $([ $rc -eq 0 ] &&
	has '"bisection": 3,' && has '"stored_at": null' && has '"builds": 0,' &&
	[ "$(sqlite3 "$T/a.db" "select count(*) from boots")" -gt "$boots" ]; echo $?)

run "$KB" bisect commits --good "$GOOD" --bad "$BAD" --matrix "$T/m.yaml" \
	--model "$T/flat.yaml" --db "$T/b.db" --json --quiet
check "a regression that does not reproduce is reported" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["reproduces"] is False and j["first_bad"] is None and j["probes"] == []' "$T/out"; echo $?)

run "$KB" bisect commits --good nosuchrev --bad HEAD --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/c.db"
check "an unknown revision is refused" $([ $rc -eq 2 ] &&
	has "unknown revision 'nosuchrev'" "$T/err" && [ ! -e "$T/c.db" ]; echo $?)
run "$KB" bisect commits --good HEAD --bad "$GOOD" --matrix "$T/m.yaml" \
	--model "$T/model.yaml" --db "$T/c.db"
check "bad not descending from good is refused" $([ $rc -eq 2 ] &&
	has "does not descend from the good revision 'HEAD'" "$T/err"; echo $?)
run "$KB" bisect commits --good HEAD~3 --bad HEAD --model "$T/model.yaml"
check "--matrix is required" $([ $rc -eq 2 ] && has "needs --good REV" "$T/err"; echo $?)

# kbisect test: the baseline is a run of the matrix (no kernel.rev: the
# model's base), then each checkout is judged against its variant 0
run "$KB" run "$T/m.yaml" --model "$T/model.yaml" --db "$T/t.db" --quiet
check "the baseline experiment runs" $([ $rc -eq 0 ]; echo $?)
kt() { "$KB" test --matrix "$T/m.yaml" --baseline 1 --model "$T/model.yaml" --db "$T/t.db" "$@"; }
g checkout -q "$(sha 20)"
run kt --quiet
check "test: a regressed checkout exits 1" $([ $rc -eq 1 ] && has "change 20: bad" &&
	has "regression against experiment 1 variant 0"; echo $?)
g checkout -q "$(sha 5)"
run kt --json --quiet
check "test: a good checkout exits 0, --json" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["classification"] == "good" and j["exit"] == 0 and j["commit"] == sys.argv[2] and j["comparison"]["verdict"] != "regression"' "$T/out" "$(sha 5)"; echo $?)
g checkout -q "$(sha 12)"
run kt --quiet
check "test: a checkout that does not build exits 125" $([ $rc -eq 125 ] &&
	has "change 12: skip (build-failed: model: build fails"; echo $?)
run "$KB" test --matrix "$T/m.yaml" --baseline 99 --model "$T/model.yaml" --db "$T/t.db"
check "test: an error exits 128 (git bisect run stops)" $([ $rc -eq 128 ] &&
	has "99" "$T/err"; echo $?)

# kbisect test --good: the good commit booted beside each checkout, on a
# host that slows by 30% over each test's 20 boots
{ cat "$T/model.yaml"; printf 'drift: { linear: -0.3, over: 20 }\n'; } >"$T/drift.yaml"
kg() { "$KB" test --matrix "$T/m.yaml" --model "$T/drift.yaml" --db "$T/g.db" "$@"; }
g checkout -q "$(sha 5)"
run kg --good "$GOOD" --json --quiet
check "test --good under drift: a good checkout exits 0, side by side" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); c=j["comparison"]; assert j["classification"] == "good" and j["good"] == sys.argv[2] and j["side_by_side"] is True and c["pairs"] >= 10 and c["unpaired_boots"] == 0, j' "$T/out" "$GOOD"; echo $?)
g checkout -q "$(sha 20)"
run kg --good "$GOOD" --quiet
check "test --good: a regressed checkout exits 1" $([ $rc -eq 1 ] &&
	has "change 20: bad (regression against good $(echo "$GOOD" | cut -c1-12), booted beside it)" &&
	has "rounds side by side"; echo $?)
run kg --good "$GOOD" --baseline 1 --quiet
check "test: --good and --baseline together are refused (128)" $([ $rc -eq 128 ] &&
	has "one of --good REV" "$T/err"; echo $?)

g checkout -q "$BAD"
g bisect start "$BAD" "$GOOD" >/dev/null
run g bisect run "$KB" test --matrix "$T/m.yaml" --good "$GOOD" \
	--model "$T/drift.yaml" --db "$T/g.db" --quiet
check "git bisect run kbisect test --good finds change 15 under drift" $([ $rc -eq 0 ] &&
	has "$(sha 15) is the first bad commit"; echo $?)
g bisect reset -q 2>/dev/null || g bisect reset >/dev/null 2>&1

g checkout -q "$BAD"
g bisect start "$BAD" "$GOOD" >/dev/null
run g bisect run "$KB" test --matrix "$T/m.yaml" --baseline 1 \
	--model "$T/model.yaml" --db "$T/t.db" --quiet
check "git bisect run kbisect test finds change 15" $([ $rc -eq 0 ] &&
	has "$(sha 15) is the first bad commit"; echo $?)
g bisect reset -q 2>/dev/null || g bisect reset >/dev/null 2>&1

echo "bisect-commits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
