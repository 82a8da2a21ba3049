#!/bin/sh
# The series of docs/guide.md and docs/analysis.md ("Trends"): twelve
# nightly model runs of a matrix named `nightly` over tags v1..v12 of a
# scratch repository (one commit a day, fixed dates and author, so the
# commit ids are the same everywhere), the model's value 8% lower from v7
# on.  Usage: tests/data/trend/nightly.sh KBISECT DIR DB
# (DIR gets repo/, nightly.yaml and model.yaml; the experiments go into DB).
set -eu
KB=$1 D=$2 DB=$3
mkdir -p "$D/repo"
(cd "$D/repo" && git init -q && for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	echo "$k" >version && git add version &&
	GIT_COMMITTER_DATE="2024-02-$((k + 10))T10:00:00Z" \
	GIT_AUTHOR_DATE="2024-02-$((k + 10))T10:00:00Z" \
	git -c user.name=t -c user.email=t@t commit -qm "c$k" && git tag "v$k"
done) >/dev/null
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	printf "name: nightly\nsource: { tree: %s, rev: v%s }\nworkload:\n  command: { run: bench, regex: '([0-9.]+) ops/s' }\n  metric: ops_per_s\nrepeat: { boots: 3 }\n" \
		"$D/repo" "$k" >"$D/nightly.yaml"
	base=1000; [ "$k" -ge 7 ] && base=920
	printf 'metric: ops_per_s\nbase: %s\nnoise: { boot_cv: 0.02 }\nseed: %s\n' "$base" "$k" >"$D/model.yaml"
	KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$D/nightly.yaml" --model "$D/model.yaml" --db "$DB" -q >/dev/null 2>&1
done
