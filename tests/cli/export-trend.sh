# Checks of `kbisect export` and `kbisect trend`, sourced by
# tests/cli/run.sh (its run, check, has, json_ok, $KB and $T).

# ---- export ----------------------------------------------------------------
printf "name: ex\nguest: { vcpus: 2 }\nworkload:\n  command: { run: bench, regex: '([0-9.]+) ops/s' }\n  metric: ops_per_s\nfactors:\n  kconfig: { A: [n, y] }\n  guest: { pin: [[0, 0], [0, 1]] }\nrepeat: { boots: 2, runs_per_boot: 2 }\n" >"$T/ex.yaml"
printf 'metric: ops_per_s\nbase: 1000\nnoise: { boot_cv: 0.02, run_cv: 0.01 }\n' >"$T/ex.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/ex.yaml" --model "$T/ex.model.yaml" --db "$T/ex.db" -q >/dev/null 2>&1
# a failed boot keeps its row: its samples (none here) and status
sqlite3 "$T/ex.db" "update boots set status = 'panic', reason = 'x' where id = 3"

for id in abc 0 1x 99999999999999999999; do
	run "$KB" export "$id" --db "$T/ex.db"
	check "export '$id': a bad id exits 2 and says what an id is" $([ $rc -eq 2 ] &&
		has "kbisect export: '$id' is not an EXPERIMENT id (a number from 1" "$T/err" &&
		has "^usage: kbisect export EXPERIMENT" "$T/err" && [ ! -s "$T/out" ]; echo $?)
done
run "$KB" export 7 --db "$T/ex.db"
check "export of an experiment not in the database exits 1, as results does" $([ $rc -eq 1 ] &&
	has "no experiment 7 in" "$T/err" && [ ! -s "$T/out" ]; echo $?)
run "$KB" export 1 --format xml --db "$T/ex.db"
check "export --format xml: exit 2" $([ $rc -eq 2 ] && has "unknown format 'xml': give csv or json" "$T/err"; echo $?)
run "$KB" export 1 --db "$T/none.db"
check "export without a database: exit 1, none made" $([ $rc -eq 1 ] && [ ! -e "$T/none.db" ]; echo $?)

run "$KB" export 1 --db "$T/ex.db"
cp "$T/out" "$T/ex.csv"
check "export writes CSV with a header row and CRLF line ends" $([ $rc -eq 0 ] &&
	[ "$(head -1 "$T/ex.csv")" = "$(printf 'experiment_id,variant_idx,variant_label,A,guest.pin,boot_id,boot_no,boot_status,host,run_no,metric,value\r')" ] &&
	has '^1,0,"A=n guest.pin=0,0",n,"0,0",1,1,ok,model,1,ops_per_s,' "$T/ex.csv"; echo $?)
# The round trip: the CSV read back (python3's csv module) holds the
# samples table's rows of the experiment, each once, values to the bit.
roundtrip() { # CSV DB: prints "ok ROWS" or what differs
	python3 - "$1" "$2" <<'EOF'
import csv, sqlite3, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head, body = rows[0], rows[1:]
db = sqlite3.connect(sys.argv[2])
want = db.execute("""
    SELECT v.experiment_id, v.idx, v.label, b.id, b.boot_no, b.status,
           b.host, s.run_no, s.metric, s.value, v.id
    FROM samples s JOIN boots b ON b.id = s.boot_id
    JOIN variants v ON v.id = b.variant_id
    WHERE v.experiment_id = 1""").fetchall()
levels = {}
for vid, factor, level in db.execute("SELECT variant_id, factor, level FROM variant_options"):
    levels[(vid, factor)] = level
factors = head[3:-7]
got = set()
for r in body:
    d = dict(zip(head, r))
    got.add((int(d['experiment_id']), int(d['variant_idx']), d['variant_label'],
             int(d['boot_id']), int(d['boot_no']), d['boot_status'], d['host'],
             int(d['run_no']), d['metric'], float(d['value'])) +
            tuple(d[f] for f in factors))
exp = set(w[:10] + tuple(levels.get((w[10], f), '') for f in factors) for w in want)
if len(body) != len(want) or got != exp:
    print("differ: %d rows, %d samples; only in the CSV %s; only in the table %s"
          % (len(body), len(want), sorted(got - exp)[:2], sorted(exp - got)[:2]))
else:
    print("ok %d" % len(body))
EOF
}
check "export's CSV round-trips: its rows are the samples table's, values to the bit" $(
	[ "$(roundtrip "$T/ex.csv" "$T/ex.db")" = "ok 16" ] &&
	[ "$(sqlite3 "$T/ex.db" "select count(*) from samples")" = 16 ]; echo $?)
run "$KB" export 1 --db "$T/ex.db" -o "$T/ex-o.csv"
check "export -o writes the file and nothing on stdout" $([ $rc -eq 0 ] && [ ! -s "$T/out" ] &&
	cmp -s "$T/ex-o.csv" "$T/ex.csv"; echo $?)
run "$KB" export 1 --db "$T/ex.db" --format json
check "export --format json: an array of objects, one a sample, with the CSV's columns" $([ $rc -eq 0 ] &&
	json_ok "$T/out" && python3 - "$T/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["experiment_id", "variant_idx", "variant_label", "A", "guest.pin",
        "boot_id", "boot_no", "boot_status", "host", "run_no", "metric", "value"]
assert isinstance(d, list) and len(d) == 16, len(d)
assert all(list(r.keys()) == keys for r in d)
assert d[0]["variant_label"] == "A=n guest.pin=0,0" and d[0]["guest.pin"] == "0,0"
assert isinstance(d[0]["value"], float) and d[0]["boot_no"] == 1
EOF
	echo $?)

# ---- trend -----------------------------------------------------------------
# twelve nightly runs of tags v1..v12 of a repository (one a day), the
# model's value 8% lower from v7 on
if command -v git >/dev/null 2>&1; then
	tests/data/trend/nightly.sh "$KB" "$T/tr" "$T/tr.db"
	run "$KB" trend nightly --db "$T/tr.db"
	check "trend finds the step of a 12-run series where it is, exit 1 (a change)" $([ $rc -eq 1 ] &&
		has "12 experiments by time" "$T/out" &&
		has "^  1\. at point 6: .* (-[0-9.]*%), p = 0.005$" "$T/out" &&
		has "experiment 6 at v6 -> experiment 7 at v7" "$T/out" &&
		! has "^  2\." "$T/out"; echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --json
	check "trend --json: the series, its points with their boots, the change points" $([ $rc -eq 1 ] &&
		json_ok "$T/out" && python3 - "$T/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["by", "change_points", "method", "metric", "name", "points", "skipped"], sorted(d)
assert d["name"] == "nightly" and d["metric"] == "ops_per_s" and d["by"] == "time"
assert d["method"] == {"name": "e-divisive-means", "alpha": 1, "permutations": 199,
                       "max_p": 0.01, "seed": 1}, d["method"]
p = d["points"]
assert len(p) == 12 and [q["revision"] for q in p] == ["v%d" % k for k in range(1, 13)]
assert all(len(q["boots"]) == 3 and abs(sum(q["boots"]) / 3 - q["mean"]) < 1e-9 for q in p)
c = d["change_points"]
assert len(c) == 1 and c[0]["index"] == 6 and c[0]["number"] == 1
assert c[0]["before"]["revision"] == "v6" and c[0]["after"]["revision"] == "v7"
assert -12 < c[0]["change_pct"] < -4 and c[0]["p_value"] == 0.005
assert c[0]["points_before"] == 6 and c[0]["points_after"] == 6
EOF
		echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --by revision --bisect 1
	good=$(git -C "$T/tr/repo" rev-parse v6) bad=$(git -C "$T/tr/repo" rev-parse v7)
	check "trend --bisect 1 prints the bisect commits line between the commits either side" $([ $rc -eq 0 ] &&
		[ "$(cat "$T/out")" = "kbisect bisect commits --good $good --bad $bad --matrix $T/tr/nightly.yaml --model MODEL --db $T/tr.db" ] &&
		has "put its file in place of MODEL" "$T/err"; echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --by revision --bisect 1 --json
	check "trend --bisect --json: the revisions and the argv" $([ $rc -eq 0 ] && json_ok "$T/out" &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["argv"][:4] == ["kbisect","bisect","commits","--good"] and d["good"] == sys.argv[2] and d["bad"] == sys.argv[3] and d["needs_model"] is True' "$T/out" "$good" "$bad"; echo $?)
	# the same revision on both sides: not a kernel change
	for k in 1 2 3 4 5 6 7 8; do
		printf "name: samerev\nsource: { tree: %s, rev: v1 }\nworkload:\n  command: { run: bench, regex: '([0-9.]+) ops/s' }\n  metric: ops_per_s\n" \
			"$T/tr/repo" >"$T/tr/same.yaml"
		base=1000; [ "$k" -ge 5 ] && base=700
		printf 'metric: ops_per_s\nbase: %s\nnoise: { boot_cv: 0.01 }\nseed: %s\n' "$base" "$k" >"$T/tr/model.yaml"
		KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/tr/same.yaml" --model "$T/tr/model.yaml" --db "$T/tr.db" -q >/dev/null 2>&1
	done
	run "$KB" trend samerev --db "$T/tr.db" --by revision --bisect 1 --max-pvalue 0.05
	check "trend --bisect of a change on one revision: exit 2, not a kernel change" $([ $rc -eq 2 ] &&
		has "ran the same revision '[0-9a-f]\{40\}': the change is not in the kernel's commits" "$T/err" &&
		[ ! -s "$T/out" ]; echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --bisect 2
	check "trend --bisect past the change points: exit 2" $([ $rc -eq 2 ] &&
		has "change point 2 asked for, but the trend of 'nightly' has 1" "$T/err"; echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --seed 7 --permutations 99 --max-pvalue 0.05 --json
	check "trend's seed, permutations and largest p-value are its options" $([ $rc -eq 1 ] &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["method"]["seed"] == 7 and d["method"]["permutations"] == 99 and d["change_points"][0]["p_value"] == 0.01' "$T/out"; echo $?)
	run "$KB" trend nightly --db "$T/tr.db" --by revision --metric read_iops
	check "trend of a metric no experiment has: left out once per reason, exit 2 (cannot tell)" $([ $rc -eq 2 ] &&
		has "0 experiments by revision" "$T/out" &&
		has "left out 12: no ok boot with read_iops (experiments 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)$" "$T/out" &&
		[ "$(grep -c 'left out' "$T/out")" = 1 ] &&
		has "0 points of 'nightly' (12 left out): a change point needs 2 on each side" "$T/err" &&
		has "seed 1): none$" "$T/out"; echo $?)
	# p <= 0.001 is below what 199 permutations can give (0.005): no change, exit 0
	run "$KB" trend samerev --db "$T/tr.db" --max-pvalue 0.001
	check "trend without a change point exits 0" $([ $rc -eq 0 ] &&
		has "seed 1): none$" "$T/out"; echo $?)
else
	echo "[  SKIPPED ] cli: trend by revision: no git"
fi
run "$KB" trend weekly --db "$T/ex.db"
check "trend of a name no experiment has exits 2 (1 is a change found)" $([ $rc -eq 2 ] &&
	has "no experiment named 'weekly'" "$T/err"; echo $?)
run "$KB" trend ex --db "$T/ex.db" --by revision
check "trend by revision of experiments without a revision: exit 2, says --by time" $([ $rc -eq 2 ] &&
	has "experiment 1 has no kernel revision" "$T/err" && has "(--by time)" "$T/err"; echo $?)
for o in "--by date" "--bisect 0" "--permutations 0" "--max-pvalue 1" "--seed x"; do
	run "$KB" trend ex --db "$T/ex.db" $o
	check "trend $o: a usage error, exit 2" $([ $rc -eq 2 ] &&
		has "^usage: kbisect trend NAME" "$T/err"; echo $?)
done
