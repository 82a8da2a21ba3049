#!/bin/sh
# Config resolution against the real linux-source-6.1 tree (tools/kernel-tree
# extracts it once, ~11 s; later runs reuse it): a PARAVIRT_SPINLOCKS=y that
# tinyconfig cannot hold is reported with its dependency, identical resolved
# configs are one build, the resolution cache makes a second plan fast, an
# unknown symbol gets a "did you mean", exit statuses are right, and
# `bisect options --model` on the tree resolves and groups with it.
# Usage (from the top of the checkout): tests/integration/kconfig-tree.sh KBISECT
set -u
KB=${1:-./kbisect}
case $KB in /*) ;; *) KB=$(pwd)/$KB ;; esac
T=$(mktemp -d /tmp/kb-kconfig-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

if [ ! -f "${KBISECT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" ]; then
	echo "SKIP kconfig-tree: linux-source-6.1 is not installed (make deps)"
	exit 0
fi
t0=$(date +%s)
TREE=$(tools/kernel-tree) || { echo "[  FAILED  ] kconfig-tree: tools/kernel-tree"; exit 1; }
echo "kconfig-tree: tree $TREE ready in $(( $(date +%s) - t0 )) s"

check() { # NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] kconfig-tree: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] kconfig-tree: $1"
		echo "  stdout: $(head -c 1500 "$T/out")"
		echo "  stderr: $(head -c 1500 "$T/err")"
	fi
}
# run CMD...: sets $rc and $secs, output in $T/out and $T/err; a fresh
# resolution cache under $T/cache (the tree stays where it is)
run() {
	s=$(date +%s)
	XDG_CACHE_HOME=$T/cache "$@" >"$T/out" 2>"$T/err"; rc=$?
	secs=$(( $(date +%s) - s ))
}
has() { grep -q -- "$1" "$2"; }

matrix() { # FILE FACTORS-YAML [FRAGMENT]
	{
		echo "name: kconfig-tree-test"
		echo "source:"
		echo "  tree: $TREE"
		echo "  base: tinyconfig"
		[ -n "${3:-}" ] && echo "  fragments: [$3]"
		echo "factors:"
		echo "  kconfig:"
		printf '%s\n' "$2"
		echo "workload: { command: { run: \"true\" } }"
	} >"$1"
}

matrix "$T/spin.yaml" "    PARAVIRT_SPINLOCKS: [y, n]
    DEBUG_SPINLOCK: [n, y]"

run "$KB" plan "$T/spin.yaml"
cold=$secs
check "an option tinyconfig cannot hold fails the plan (exit 1)" $([ $rc -eq 1 ]; echo $?)
check "it is reported with its dependency and unmet symbols" $(
	has "PARAVIRT_SPINLOCKS=y did not hold (resolved n): depends on PARAVIRT && SMP" "$T/out" &&
	has "unmet: PARAVIRT, SMP" "$T/out" &&
	has "add to a fragment: .*CONFIG_PARAVIRT=y" "$T/out"; echo $?)
check "the collapse is said prominently" $(
	has "PARAVIRT_SPINLOCKS=y NEVER held (2 of 2 variants)" "$T/err" &&
	has "pass --allow-dropped" "$T/err"; echo $?)
check "variants that resolve identically are one build" $(
	has "4 variants, 2 builds" "$T/out" &&
	has "one build (.*) for variants 0, 2" "$T/out"; echo $?)
check "progress is shown while resolving" $(has "resolved config 4/4" "$T/err"; echo $?)

run "$KB" plan --json --allow-dropped "$T/spin.yaml"
warm=$secs
check "--allow-dropped accepts it (exit 0), from the cache" $([ $rc -eq 0 ] &&
	has "from the cache" "$T/err" && ! grep -q "resolved config [0-9]/4 (#[0-9])," "$T/err"; echo $?)
check "--json has resolved, held and shared build keys" $(python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["variants"]
ok = (d["builds"] == 2 and d["dropped"] == 2
      and v[0]["held"] == {"PARAVIRT_SPINLOCKS": False, "DEBUG_SPINLOCK": True}
      and v[0]["resolved"]["PARAVIRT_SPINLOCKS"] == "n"
      and v[0]["build_key"] == v[2]["build_key"]
      and v[1]["build_key"] == v[3]["build_key"]
      and v[0]["build_key"] != v[1]["build_key"]
      and d["tree_id"].startswith("plain:"))
sys.exit(0 if ok else 1)
P
echo $?)
check "a second plan is fast (${warm} s against ${cold} s)" $([ "$warm" -le 3 ]; echo $?)

printf 'CONFIG_HYPERVISOR_GUEST=y\nCONFIG_PARAVIRT=y\nCONFIG_SMP=y\n' >"$T/pv.fragment"
matrix "$T/pv.yaml" "    PARAVIRT_SPINLOCKS: [y, n]
    DEBUG_SPINLOCK: [n, y]" "$T/pv.fragment"
run "$KB" plan "$T/pv.yaml"
check "with its dependencies in a fragment it holds: 4 builds, exit 0" $([ $rc -eq 0 ] &&
	has "4 variants, 4 builds" "$T/out" && ! has "did not hold" "$T/out"; echo $?)

matrix "$T/typo.yaml" "    KMEMLEAK: [n, y]"
run "$KB" plan "$T/typo.yaml"
check "an unknown symbol is bad input with a suggestion (exit 2)" $([ $rc -eq 2 ] &&
	has "typo.yaml:7:5: 'KMEMLEAK' is not a Kconfig symbol of" "$T/err" &&
	has "did you mean 'DEBUG_KMEMLEAK'" "$T/err"; echo $?)

sed "s|tree: .*|tree: $T|" "$T/spin.yaml" >"$T/notree.yaml"
run "$KB" plan "$T/notree.yaml"
check "a folder that is not a kernel tree is bad input (exit 2)" $([ $rc -eq 2 ] &&
	has "is not a kernel tree" "$T/err"; echo $?)

# workload.profile on kernels that cannot name functions: plan says so
# (tinyconfig has no KALLSYMS; x86 selects PERF_EVENTS, the same check),
# and not once a fragment sets it
prof() { # FILE [FRAGMENT]
	matrix "$1" "    SLUB_DEBUG_ON: [n, y]" "${2:-}"
	sed -i 's/^workload: .*/workload: { command: { run: "true" }, profile: { frequency: 99 } }/' "$1"
}
frags="$(pwd)/guests/tiny-x86_64.fragment, $(pwd)/kconfig-matrix/configs/demo-tcg.fragment"
prof "$T/prof.yaml" "$frags"
run "$KB" plan "$T/prof.yaml"
# the line docs/matrix.md ("Profiles") shows
check "plan: a profile on kernels without KALLSYMS is warned of" $([ $rc -eq 0 ] &&
	grep -qxF "kbisect: warning: workload.profile: 2 of 2 variants (#0 SLUB_DEBUG_ON=n, ...) build kernels without CONFIG_KALLSYMS: their profiles name no function, only [unknown]; add CONFIG_KALLSYMS=y to a fragment (source.fragments)" "$T/err" &&
	grep -qxF "$(grep '^    kbisect: warning: workload.profile' docs/matrix.md | sed 's/^    //')" "$T/err"; echo $?)
printf 'CONFIG_PERF_EVENTS=y\nCONFIG_KALLSYMS=y\n' >"$T/perf.fragment"
prof "$T/prof2.yaml" "$frags, $T/perf.fragment"
run "$KB" plan "$T/prof2.yaml"
check "plan: no profile warning once a fragment sets PERF_EVENTS and KALLSYMS" $([ $rc -eq 0 ] &&
	! has "workload.profile" "$T/err"; echo $?)

run "$KB" run "$T/spin.yaml" --db "$T/run.db" --quiet
check "run refuses the same matrix (exit 1) and writes nothing" $([ $rc -eq 1 ] &&
	has "NEVER held" "$T/err" && [ ! -e "$T/run.db" ]; echo $?)

# ---- bisect options --model on the tree ------------------------------------
# The model builds and boots; the tree resolves both ends and each probe
# and groups the changes (docs/bisect.md, "On the model with a tree").
# good: the demo's baseline (tinyconfig + the guest fragments, resolved by
# the tree's make); bad: the same plus SLUB_DEBUG_ON=y (it selects the
# prompt-less STACKDEPOT_ALWAYS_INIT), three inert CRC routines and
# INET=y, which cannot hold without NET.  The model is slow
# only when SLUB_DEBUG_ON=y and STACKDEPOT_ALWAYS_INIT=y: the second is in
# neither file, so the regression shows only when the model is given the
# resolved configs.
mkdir -p "$T/good-o"
make -s -C "$TREE" O="$T/good-o" ARCH=x86_64 tinyconfig >/dev/null 2>&1 &&
	cat guests/tiny-x86_64.fragment kconfig-matrix/configs/demo-tcg.fragment \
		>>"$T/good-o/.config" &&
	make -s -C "$TREE" O="$T/good-o" ARCH=x86_64 olddefconfig >/dev/null 2>&1 &&
	cp "$T/good-o/.config" "$T/good.config"
rm -rf "$T/good-o"
{
	grep -v '^# CONFIG_SLUB_DEBUG_ON is not set' "$T/good.config"
	printf 'CONFIG_SLUB_DEBUG_ON=y\nCONFIG_CRC16=y\nCONFIG_CRC7=y\nCONFIG_CRC8=y\nCONFIG_INET=y\n'
} >"$T/bad.config"
cat >"$T/slub.model.yaml" <<'M'
metric: real_s
base: 10
noise: { boot_cv: 0.03, run_cv: 0.01 }
effects:
  - when: { SLUB_DEBUG_ON: y, STACKDEPOT_ALWAYS_INIT: y }
    factor: 1.5
seed: 1
M
cat >"$T/bisect.yaml" <<M
name: kconfig-tree-bisect
source:
  tree: $TREE
workload: { command: { run: "true" }, metric: real_s }
repeat: { boots: 3, max_boots: 8 }
M
configs() { ls "$T/cache/kbisect/configs" 2>/dev/null | grep -c '^[0-9a-f]*\.config$'; }
before=$(configs)
run env KBISECT_MODEL_TIME_SCALE=0 "$KB" bisect options --model "$T/slub.model.yaml" \
	--matrix "$T/bisect.yaml" --good "$T/good.config" --bad "$T/bad.config" \
	--db "$T/bisect.db" --json
bisect_secs=$secs
resolved=$(( $(configs) - before ))
check "bisect options --model on the tree resolves both ends, says what did not hold" $(
	[ $rc -eq 0 ] && has "resolving $T/bad.config with the tree's Kconfig (olddefconfig)" "$T/err" &&
	has "bad.config: the tree's Kconfig sets 1 of its options otherwise (INET=y->n)" "$T/err"; echo $?)
check "it names SLUB_DEBUG_ON alone, with the tree's changes and derived options" $(python3 - "$T/out" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
names = lambda k: [c["option"] for c in d[k]]
ok = (names("culprits") == ["SLUB_DEBUG_ON"] and d["minimal"]
      and d["changes"] == 4
      and "STACKDEPOT_ALWAYS_INIT" in names("derived")
      and "INET" not in names("derived"))
sys.exit(0 if ok else 1)
P
echo $?)
check "each end and probe was resolved by olddefconfig and built from that ($resolved resolutions, ${bisect_secs} s)" $(python3 - "$T/out" "$T/bisect.db" "$resolved" <<'P'
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
n, sel = db.execute("SELECT count(*), sum(config_text LIKE '%CONFIG_STACKDEPOT_ALWAYS_INIT=y%')"
                    " FROM builds WHERE config_text LIKE '%CONFIG_CRC32=y%'").fetchone()
# the two ends alone, then one resolution per build, each stored with it
ok = (d["builds"] >= 3 and n == d["builds"] and (sel or 0) >= 1
      and int(sys.argv[3]) == 2 + d["builds"])
sys.exit(0 if ok else 1)
P
echo $?)

echo "kconfig-tree: $pass passed, $fail failed (first plan ${cold} s, cached ${warm} s, total $(( $(date +%s) - t0 )) s)"
[ "$fail" -eq 0 ]
