#!/bin/sh
# Option bisection's change groups on the real linux-source-6.1 tree
# (tools/kernel-tree, as tests/integration/kconfig-tree.sh): good is
# tinyconfig + guests/tiny-x86_64.fragment +
# kconfig-matrix/configs/demo-tcg.fragment resolved by the tree's
# olddefconfig (as tests/e2e/bisect-options.sh makes it); bad is good +
# SCHEDSTATS=y SLUB_DEBUG_ON=y KALLSYMS=y PC104=y X86_EXTENDED_PLATFORM=y,
# resolved the same way.  The five are independent (each holds alone),
# but a walk through unchanged symbols used to put them in one group
# (SCHEDSTATS <- LATENCYTOP -> FRAME_POINTER ... STACKDEPOT_ALWAYS_INIT
# -> SLUB_DEBUG_ON; KALLSYMS with SLUB_DEBUG_ON; the four with the others
# in the group of 16 at N = 64).  A helper (bisect-groups.c) scans the
# tree's Kconfig, groups the changes as `bisect options` does on real
# kernels, and bisects them on a model in which only SLUB_DEBUG_ON costs:
# the five must land in five groups, SLUB_DEBUG_ON be probed apart from
# the others, and the answer be SLUB_DEBUG_ON alone, 1-minimal.  About
# 20 s (three make runs).
# Usage (from the top of the checkout): tests/integration/bisect-groups.sh [KBISECT]
set -u
T=$(mktemp -d /tmp/kb-bisect-groups-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

if [ ! -f "${KBISECT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" ]; then
	echo "SKIP bisect-groups: linux-source-6.1 is not installed (make deps)"
	exit 0
fi
TREE=$(tools/kernel-tree) || { echo "[  FAILED  ] bisect-groups: tools/kernel-tree"; exit 1; }

check() { # NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] bisect-groups: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] bisect-groups: $1"
		echo "  output: $(head -c 1500 "$T/out")"
	fi
}
has() { grep -q -- "$1" "$T/out"; }
group() { sed -n "s/^change $1 group //p" "$T/out"; }

libkb=${KBISECT_LIBKB:-build/libkb.a}
if [ ! -f "$libkb" ]; then
	make --no-print-directory -s "$libkb" || exit 1
fi
pkgs="yaml-0.1 sqlite3 json-c libxml-2.0 libvirt libgit2"
# shellcheck disable=SC2046
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Ilib -Ilib/util -Ilib/store -Ilib/exec $(pkg-config --cflags $pkgs) \
	-o "$T/helper" tests/integration/bisect-groups.c "$libkb" \
	$(pkg-config --libs $pkgs) -lm || { echo "[  FAILED  ] bisect-groups: cc"; exit 1; }

# the ends, resolved by the tree (olddefconfig warns of every fragment
# line that overrides tinyconfig)
mkdir -p "$T/o"
make -s -C "$TREE" O="$T/o" ARCH=x86_64 tinyconfig >/dev/null 2>"$T/make.err" &&
	cat guests/tiny-x86_64.fragment kconfig-matrix/configs/demo-tcg.fragment >>"$T/o/.config" &&
	make -s -C "$TREE" O="$T/o" ARCH=x86_64 olddefconfig >/dev/null 2>&1 &&
	cp "$T/o/.config" "$T/good.config" || { echo "[  FAILED  ] bisect-groups: the good config"; exit 1; }
planted="SCHEDSTATS SLUB_DEBUG_ON KALLSYMS PC104 X86_EXTENDED_PLATFORM"
for o in $planted; do
	grep -q "^# CONFIG_$o is not set" "$T/good.config" ||
		{ echo "[  FAILED  ] bisect-groups: the good config does not have $o off"; exit 1; }
done
{
	for o in $planted; do echo "# CONFIG_$o is not set"; done >"$T/off"
	grep -v -x -F -f "$T/off" "$T/good.config"
	for o in $planted; do echo "CONFIG_$o=y"; done
} >"$T/o/.config"
make -s -C "$TREE" O="$T/o" ARCH=x86_64 olddefconfig >/dev/null 2>&1 &&
	cp "$T/o/.config" "$T/bad.config" || { echo "[  FAILED  ] bisect-groups: the bad config"; exit 1; }
held=0
for o in $planted; do grep -q "^CONFIG_$o=y" "$T/bad.config" || held=1; done
check "the bad config holds $planted" $held

"$T/helper" "$TREE" "$T/good.config" "$T/bad.config" SLUB_DEBUG_ON "$T/t.db" >"$T/out" 2>&1
check "the bisection runs" $?
s=$(group SCHEDSTATS) d=$(group SLUB_DEBUG_ON) k=$(group KALLSYMS)
check "SCHEDSTATS and SLUB_DEBUG_ON are in different groups ($s, $d)" $([ -n "$s" ] && [ -n "$d" ] && [ "$s" != "$d" ]; echo $?)
check "KALLSYMS and SLUB_DEBUG_ON are in different groups ($k, $d)" $([ -n "$k" ] && [ "$k" != "$d" ]; echo $?)
groups=$(for o in $planted; do group "$o"; done | sort -u | wc -l)
check "the five planted options are in five groups" $([ "$groups" -eq 5 ]; echo $?)
check "derived options follow (STACKDEPOT_ALWAYS_INIT, SCHED_INFO: no prompt)" $(has "^changes 5 groups 5 derived " &&
	! has "^change STACKDEPOT_ALWAYS_INIT " && ! has "^change SCHED_INFO "; echo $?)
check "SLUB_DEBUG_ON is probed apart from SCHEDSTATS" $(has "^probe [0-9]* bad: SLUB_DEBUG_ON$"; echo $?)
check "the answer is SLUB_DEBUG_ON alone, 1-minimal" $(has "^culprits SLUB_DEBUG_ON$" &&
	has "^minimal 1 unresolved 0$"; echo $?)

echo "bisect-groups: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
