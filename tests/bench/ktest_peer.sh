#!/bin/sh
# The peer of tests/bench/bisect_tree.c (docs/bisect.md, "Compared with
# ktest"): the kernel's own tools/testing/ktest/config-bisect.pl on the
# same linux 6.1 configs — the good end (tinyconfig + the guest and demo
# fragments, resolved by olddefconfig), the bad end with the first N of
# the bench's pool[] set y, N = 8, 16, 32, 64 — and the same cases (one
# culprit first, in the middle or last by name, or a pair that only
# together costs), each verdict from a perfect oracle (bad when every
# planted option is y in the config it asks for), since config-bisect.pl
# takes the user's word and has no noise to handle.  Prints per case the
# steps (configs tested: one build and one test each) and what it names.
#
#   tests/bench/ktest_peer.sh      (~12 min on two cores; not in make bench)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$("$top/tools/kernel-tree") || { echo "ktest_peer: no kernel tree (tools/kernel-tree)"; exit 1; }
w=$(mktemp -d /tmp/kb-ktest-peer-XXXXXX)
trap 'rm -rf "$w"' EXIT
# the pool, in its order, from the bench
awk '/^#define POOL_MORE/ { more = 1; next }
	/^static const char \*const pool\[NMAX\]/ { on = 1; next }
	(more || on) { while (match($0, /"[A-Z0-9_]+"/)) {
		print substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }
	more && !/\\$/ { more = 0 }
	on && /^};/ { on = 0 }' "$top/tests/bench/bisect_tree.c" >"$w/pool.txt"
# the pool's sixteen come first in the array, the 48 (POOL_MORE) after
{ sed -n '49,$p' "$w/pool.txt" | head -16; sed -n '1,48p' "$w/pool.txt"; } >"$w/order.txt"
mkdir "$w/g"
make -s -C "$tree" O="$w/g" ARCH=x86_64 tinyconfig >/dev/null 2>&1
cat "$top/guests/tiny-x86_64.fragment" \
	"$top/kconfig-matrix/configs/demo-tcg.fragment" >>"$w/g/.config"
make -s -C "$tree" O="$w/g" ARCH=x86_64 olddefconfig >/dev/null 2>&1
cp "$w/g/.config" "$w/good.config"

one() { # N CULPRIT...
	n=$1; shift
	r=$w/run; rm -rf "$r"; mkdir -p "$r/o"
	cp "$w/good.config" "$r/good.config"
	{ cat "$w/good.config"; head -n "$n" "$w/order.txt" | sed 's/.*/CONFIG_&=y/'; } >"$r/bad.config"
	res= steps=0
	while :; do
		out=$(cd "$tree" && perl tools/testing/ktest/config-bisect.pl -r \
			-l "$tree" -b "$r/o" "$r/good.config" "$r/bad.config" $res 2>&1) && rc=0 || rc=$?
		if [ $rc -ne 0 ] || echo "$out" | grep -q "Difference between"; then
			break
		fi
		steps=$((steps + 1))
		res=bad
		for c in "$@"; do grep -q "^CONFIG_$c=y" "$r/o/.config" || res=good; done
		[ $steps -le 64 ] || break
	done
	named=$(echo "$out" | sed -n '/Difference between/,/See good/p' |
		awk '/^ [A-Z0-9_]+ / { print $1 }' | sort | tr '\n' ' ')
	printf '  %2s  %-40s %5s  %s\n' "$n" "$*" "$steps" "$named"
}
printf '   N  %-40s %5s  %s\n' "planted" "steps" "named"
for n in 8 16 32 64; do
	set -- $(head -n "$n" "$w/order.txt" | sort)
	eval "first=\$1 mid=\${$((n / 2 + 1))} last=\${$n} p1=\$4 p2=\${$((n - 2))}"
	one "$n" "$first"
	one "$n" "$mid"
	one "$n" "$last"
	one "$n" "$p1" "$p2"
done
