#!/bin/sh
# The pages whose shown outputs are checked by running them
# (tools/doc-transcript): docs/guide.md, docs/analysis.md, docs/matrix.md.
# Then the check itself: a copy of the guide with one shown figure edited,
# and one with a shown line dropped, must fail, naming the command.
# Usage (from the top of the checkout): tests/integration/doc-transcript.sh KBISECT
set -u
KB=${1:-./kbisect}
case $KB in /*) ;; *) KB=$(pwd)/$KB ;; esac
KBDIR=$(dirname "$KB")
T=$(mktemp -d /tmp/kb-doct-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
check() { # NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] doc-transcript: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] doc-transcript: $1"
		sed 's/^/  /' "$T/out" | head -60
	fi
}

for page in docs/guide.md docs/analysis.md docs/matrix.md; do
	tools/doc-transcript --kb "$KBDIR" "$page" >"$T/out" 2>&1; rc=$?
	check "$page prints what it shows ($(tail -1 "$T/out" | sed 's/.*: //'))" $rc
done

# an edited figure: the compare line of the guide
sed 's/-89\.2%\*\*\*     57907\.6/-89.3%***     57907.6/' docs/guide.md >"$T/edited.md"
tools/doc-transcript --kb "$KBDIR" "$T/edited.md" >"$T/out" 2>&1; rc=$?
check "an edited shown figure fails, naming the command" $([ $rc -eq 1 ] &&
	! cmp -s docs/guide.md "$T/edited.md" &&
	grep -q "edited.md:[0-9]*: DIFFERS: ./kbisect compare 1 0 4 --adaptive" "$T/out"; echo $?)
# a shown line dropped: plan's summary line
grep -v '^    8 variants, 8 builds, 24 boots' docs/guide.md >"$T/dropped.md"
tools/doc-transcript --kb "$KBDIR" "$T/dropped.md" >"$T/out" 2>&1; rc=$?
check "a dropped shown line fails" $([ $rc -eq 1 ] &&
	grep -q "dropped.md:[0-9]*: DIFFERS: ./kbisect plan kconfig-matrix/xen-pvops-spinlocks.yaml" "$T/out"; echo $?)
# a directive it does not know: exit 2
printf '<!-- transcript: frobnicate -->\n' >"$T/bad.md"
tools/doc-transcript --kb "$KBDIR" "$T/bad.md" >"$T/out" 2>&1; rc=$?
check "an unknown directive is an error (exit 2)" $([ $rc -eq 2 ] &&
	grep -q "unknown transcript directive 'frobnicate'" "$T/out"; echo $?)

echo "doc-transcript: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
