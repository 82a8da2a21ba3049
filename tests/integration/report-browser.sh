#!/bin/sh
# kbisect report in a real browser: a model experiment (the seed-000
# matrix) and a model option bisection, each written with `kbisect
# report`, then opened in Debian's chromium, headless:
#
# - the page is well-formed: xmllint parses it as XML (strict nesting,
#   every element closed, every entity known) and libxml2's HTML parser
#   takes it with no error but the HTML5 and SVG element names it does
#   not know (it knows HTML 4 only); without xmllint, Python's XML
#   parser and html.parser check the same;
# - no console message: chromium with --enable-logging=stderr --v=0
#   logs every console message of the page -- an uncaught error, a
#   console.error, a Content-Security-Policy violation, a resource that
#   fails -- on stderr as a line with ":CONSOLE" in it (whatever its
#   level), so any such line fails the test.  A canary page that makes
#   two such messages runs first: if this chromium logs them otherwise,
#   the check would pass blindly, and the test fails instead;
# - the DOM chromium built (--dump-dom) has each plot as an <svg> with
#   the circles and lines expected (a dot per ok boot, a point per
#   effect and per probe), no <script>, the CSP, and every link
#   resolves inside the report's folder;
# - the plots read: the strip plots' row labels tell every variant
#   apart (none alike once "#N" is set aside, none cut with an
#   ellipsis: the seed-000 2^3 matrix's were cut to
#   "...DEBUG_KMEMLE..." where its variants differ), and the plots of
#   changes (effects, probes) are on a log-ratio axis: ticks "-90%
#   (10x)" placed at log(1 + change);
# - the answer is on the first screen: laid out at 1400x900 (chromium
#   driven over the DevTools protocol on a pipe, by report_check.py),
#   every verdict of the experiment ends above 900 px and so does the
#   bisection's culprit set; every per-run table is folded in a
#   <details>; and the pages are shorter than they were before the
#   answer came first and the runs were folded (the heights are
#   printed);
# - a --screenshot of it is not blank (Python decodes the PNG).
#
# No libvirtd, no guest: the model executor at time scale 0.
# Usage: tests/integration/report-browser.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when chromium is missing.
set -u
NAME=report-browser
KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$TOP/tests/integration/lib/report_check.py
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
failed=0
started=$(date +%s)

fail() {
	echo "FAIL: $NAME: $*"
	failed=1
}

[ -x "$CHROMIUM" ] ||
	{ echo "SKIP: $NAME: no chromium at $CHROMIUM (apt-get install chromium)"; exit 0; }
command -v python3 >/dev/null 2>&1 ||
	{ echo "FAIL: $NAME: python3 is needed to check the DOM and the screenshot"; exit 1; }

T=$(mktemp -d /tmp/kb-report-browser-XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
export KBISECT_DB="$T/kb.db" KBISECT_MODEL_TIME_SCALE=0 HOME="$T"
DB=$KBISECT_DB

# chrome OUT ERR ARGS...: chromium, headless, its log on stderr in ERR
chrome() {
	out=$1 err=$2
	shift 2
	timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu \
		--no-first-run --hide-scrollbars --user-data-dir="$T/profile" \
		--enable-logging=stderr --v=0 "$@" >"$out" 2>"$err"
}

# ---- 0. the console check catches what it must ----------------------------
cat >"$T/canary.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'"/>
<title>canary</title></head>
<body><p>canary</p>
<script>console.error("canary-console-error"); eval("1");</script>
</body></html>
HTML
chrome "$T/canary.dom" "$T/canary.err" --dump-dom "file://$T/canary.html"
if ! grep -q ':CONSOLE.*canary-console-error' "$T/canary.err" ||
   ! grep -q ':CONSOLE.*Content Security Policy' "$T/canary.err"; then
	fail "chromium did not log the canary's console messages as ':CONSOLE' lines: the console check would pass blindly"
	grep -i console "$T/canary.err" | head -5
fi

# ---- 1. a model experiment and a model bisection --------------------------
cd "$TOP" || exit 1
"$KB" run kconfig-matrix/xen-pvops-spinlocks.yaml \
	--model kconfig-matrix/xen-pvops-spinlocks.model.yaml -q >"$T/run.out" 2>&1 ||
	{ fail "kbisect run failed:"; cat "$T/run.out"; exit 1; }
"$KB" bisect options --good tests/data/bisect/good.config \
	--bad tests/data/bisect/bad.config \
	--model tests/data/bisect/seed000.model.yaml -q >"$T/bisect.out" 2>&1 ||
	{ fail "kbisect bisect options failed:"; cat "$T/bisect.out"; exit 1; }

# the evidence a real boot keeps (db/0007), on boot 1 of variant 3, so
# that the page links repro/3/ files: the model keeps none
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
boot = """SELECT b.id FROM boots b JOIN variants v ON v.id = b.variant_id
	WHERE v.experiment_id = 1 AND v.idx = 3 AND b.boot_no = 1"""
c.execute("UPDATE boots SET domain_xml = ?, workload_text = ? WHERE id = (" +
	boot + ")", ("<domain type=\"qemu\"><name>kbisect-1-3-1</name></domain>\n",
	"[job]\nrw=randread\n"))
c.execute("UPDATE builds SET config_text = ? WHERE id = (SELECT build_id" +
	" FROM boots WHERE id = (" + boot + "))", ("CONFIG_DEBUG_KMEMLEAK=y\n",))
c.commit()' "$DB" || fail "cannot add evidence to the database"

# what the plots must show, from the database (Python's sqlite3)
expect() { # SQL
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$DB" "$1"
}
boots1=$(expect "SELECT count(*) FROM boots b JOIN variants v ON v.id = b.variant_id
	WHERE v.experiment_id = 1 AND b.status = 'ok'")
boots2=$(expect "SELECT count(*) FROM boots b JOIN variants v ON v.id = b.variant_id
	WHERE v.experiment_id = 2 AND b.status = 'ok'")
steps=$(expect "SELECT count(*) FROM bisection_steps s
	JOIN bisections b ON b.id = s.bisection_id WHERE b.experiment_id = 2")
bisection=$(expect "SELECT id FROM bisections WHERE experiment_id = 2")
# 3 main effects and 3 interactions of the 2^3 design
effects=$("$KB" effects 1 --json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["effects"]))')
echo "$NAME: experiment 1: $boots1 ok boots, $effects effects; experiment 2: $boots2 ok boots, bisection $bisection of $steps steps"

# ---- 2. the reports --------------------------------------------------------
"$KB" report 1 -o "$T/exp" >"$T/report1.out" 2>&1 ||
	{ fail "kbisect report 1 failed:"; cat "$T/report1.out"; }
"$KB" report 2 -o "$T/bis" --json >"$T/report2.out" 2>&1 ||
	{ fail "kbisect report 2 failed:"; cat "$T/report2.out"; }
[ "$(tail -1 "$T/report1.out")" = "$T/exp/index.html" ] ||
	fail "kbisect report did not print the page's path: $(cat "$T/report1.out")"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["experiment"] == 2 and j["plots"] == 2, j
assert j["files"][-1]["name"] == "index.html", j["files"]' "$T/report2.out" ||
	fail "kbisect report --json: $(cat "$T/report2.out")"

# the trend of the matrix's name over four runs of it (experiments 1, 3,
# 4, 5: a bisection's experiment is not in it), kbisect report --trend
for i in 3 4 5; do
	"$KB" run kconfig-matrix/xen-pvops-spinlocks.yaml \
		--model kconfig-matrix/xen-pvops-spinlocks.model.yaml -q >"$T/run$i.out" 2>&1 ||
		{ fail "kbisect run $i failed:"; cat "$T/run$i.out"; }
done
tboots=$(expect "SELECT count(*) FROM boots b JOIN variants v ON v.id = b.variant_id
	WHERE v.experiment_id IN (1, 3, 4, 5) AND v.idx = 0 AND b.status = 'ok'")
"$KB" report --trend xen-pvops-spinlocks -o "$T/trend" --json >"$T/trend.out" 2>&1 ||
	{ fail "kbisect report --trend failed:"; cat "$T/trend.out"; }
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["trend"] == "xen-pvops-spinlocks" and j["plots"] == 1, j' "$T/trend.out" ||
	fail "kbisect report --trend --json: $(cat "$T/trend.out")"
"$KB" report --trend no-such-name -o "$T/none" >/dev/null 2>"$T/none.err"
[ $? = 1 ] && [ ! -e "$T/none" ] ||
	fail "report --trend of an unknown name: want exit 1 (as trend) and no folder: $(cat "$T/none.err")"

# a model experiment with a profile: the report's difference flame graph
cat >"$T/prof.model.yaml" <<'YAML'
metric: read_iops
base: 1000
noise: { boot_cv: 0.03 }
effects: [ { when: { X: y }, factor: 0.8 } ]
profile:
  samples: 20000
  noise: { boot_cv: 0.03, run_cv: 0.01 }
  stacks:
    "entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;blk_mq_submit_bio": 30
    "entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;kmem_cache_alloc": 10
    "entry_SYSCALL_64;do_syscall_64;__x64_sys_io_submit;kmem_cache_alloc;check_bytes_and_report": { weight: 0.2, effects: [ { when: { X: y }, factor: 25 } ] }
    "secondary_startup_64;cpu_startup_entry;do_idle;default_idle": 60
seed: 3
YAML
printf 'name: prof\nsource: { tree: ., base: tinyconfig }\nfactors: { kconfig: { X: [n, y] } }\nworkload: { fio: { rw: randread, bs: 4k } }\nrepeat: { boots: 6, runs_per_boot: 2 }\n' >"$T/prof.yaml"
"$KB" run "$T/prof.yaml" --model "$T/prof.model.yaml" --db "$T/prof.db" -q >"$T/prof.out" 2>&1 ||
	{ fail "kbisect run of the profile model failed:"; cat "$T/prof.out"; }
"$KB" report 1 --db "$T/prof.db" -o "$T/prof" >"$T/report-prof.out" 2>&1 ||
	{ fail "kbisect report of the profile model failed:"; cat "$T/report-prof.out"; }

# ---- 3. each page: well-formed, no console message, its plots, drawn ------
# The element names libxml2's HTML 4 parser does not know; any other
# message of it is a failure.
HTML5='header|nav|main|section|figure|figcaption|footer|details|summary|svg|title|circle|line|rect|text|tspan|g'
page() { # NAME DIR LAYOUT-CHECKS SVG-SPEC...
	name=$1 dir=$2 layout=$3
	shift 3
	p=$dir/index.html
	[ -s "$p" ] || { fail "$name: no $p"; return; }
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$p" 2>"$T/$name.xml" ||
			fail "$name: not well-formed XML: $(head -5 "$T/$name.xml")"
		xmllint --html --noout "$p" 2>"$T/$name.html-err"
		grep 'parser error' "$T/$name.html-err" |
			grep -Ev "Tag ($HTML5) invalid\$" >"$T/$name.html-bad"
		[ -s "$T/$name.html-bad" ] &&
			fail "$name: libxml2's HTML parser: $(head -5 "$T/$name.html-bad")"
		echo "$NAME: $name: xmllint: well-formed XML, HTML parser errors only for HTML5/SVG tag names"
	else
		echo "$NAME: $name: xmllint is not installed (libxml2-utils): Python's parsers check it"
		python3 "$CHECK" wellformed "$p" || fail "$name: not well-formed"
	fi
	python3 "$CHECK" html-parser "$p" || fail "$name: bad nesting"

	chrome "$T/$name.dom" "$T/$name.err" --dump-dom "file://$p"
	[ -s "$T/$name.dom" ] || fail "$name: chromium dumped no DOM: $(tail -3 "$T/$name.err")"
	if grep ':CONSOLE' "$T/$name.err" >"$T/$name.console"; then
		fail "$name: console messages:"
		cat "$T/$name.console"
	fi
	python3 "$CHECK" dom "$T/$name.dom" "$dir" "$@" ||
		fail "$name: the DOM lacks what the report must show"

	# shellcheck disable=SC2086 # the checks are words
	python3 "$CHECK" layout "$CHROMIUM" "$T/profile" "$p" \
		"$T/$name.layout-log" $layout ||
		fail "$name: the first screen lacks the answer, or the page is too long"

	chrome /dev/null "$T/$name.shot-err" --window-size=1280,1600 \
		--screenshot="$T/$name.png" "file://$p"
	python3 "$CHECK" png "$T/$name.png" ||
		fail "$name: the screenshot is blank"
}

# strip plot: a dot per ok boot, a mean mark per variant; drift plot: a
# dot per ok boot at its place in the run, the zero line and the fitted
# one; forest plot: a point and an interval (3 lines) per effect, the
# zero line; probes: a point per step; the experiment links variant 3's
# config, domain.xml and workload.fio.  The heights before the answer
# came first and the runs were folded (issue 29), at 1400x900: 7746 px
# for the experiment, 6900 px for the bisection.
page experiment "$T/exp" "verdicts-above:900 folded height-below:6500" \
	files:3 "strip-plot:$boots1:8" labels:strip-plot \
	"drift-plot:$boots1:2" \
	"effects-plot:$effects:$((3 * effects + 1))" ratio-axis:effects-plot
page bisection "$T/bis" "answer-above:bisection:900 folded height-below:5000" \
	"strip-plot:$boots2:8" labels:strip-plot \
	"bisect-plot-$bisection:$steps:$((steps + 1))" \
	"ratio-axis:bisect-plot-$bisection"
# a dot per ok boot of the baseline, a mean mark per experiment
page trend "$T/trend" "" "trend-plot:$tboots:4"
# every frame of the 4 stacks (10 functions) and "all", red and blue
page profile "$T/prof" "verdicts-above:900" flame:flame-1:11

echo "$NAME: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "$NAME: ok"
