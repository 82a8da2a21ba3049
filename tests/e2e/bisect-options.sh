#!/bin/sh
# End to end: a real option bisection (docs/bisect.md, "On real kernels").
#
#   tests/e2e/bisect-options.sh ./kbisect   (make e2e runs it; ~30 min cold)
#
# good = the demo's baseline config (tinyconfig + guests/tiny-x86_64.fragment
# + kconfig-matrix/configs/demo-tcg.fragment, resolved by the tree's own
# olddefconfig); bad = the same plus SLUB_DEBUG_ON=y, the culprit (+50-70%
# of the demo workload's time under TCG), and six inert leaf options (CRC
# library routines nothing in a tiny kernel calls, and the in-kernel
# .config).  `kbisect bisect options` without --model builds each probe from
# linux-source-6.1, boots it under QEMU TCG through libvirt and times the
# demo's command workload.  Checks that it names SLUB_DEBUG_ON alone as a
# 1-minimal set, with its effect and CI; that each distinct resolved config
# was compiled once (the build cache gains exactly as many kernels as the
# bisection says it compiled); and that a second run of the same
# bisection with --fresh (every boot afresh: without it the stored answer
# is printed, nothing booted) names it too and compiles no config again
# (only probes the first run did not ask, when its boots send the search
# another way).
# Prints the builds, boots and seconds (the figures in docs/bisect.md).
#
# KBISECT_E2E_HOG=1 runs both bisections beside a CPU hog (a busy shell
# loop at nice 0, where the bisection runs at nice 10) that starts and
# stops at random times, 20-120 s apart: the load spikes that made a
# bisection judged against ends measured earlier name innocent options
# (issue 24).  Its on/off times go to $work/hog.log.
#
# Everything is under $KBISECT_E2E_DIR (default build/e2e/bisect): the
# database, the configs, the build cache ($XDG_CACHE_HOME), wiped at the
# start unless KBISECT_E2E_KEEP=1.  KBISECT_E2E_SECOND=0 skips the second
# run.
set -eu
kbisect=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${KBISECT_E2E_DIR:-$top/build/e2e/bisect}
fail() { echo "bisect-options.sh: FAIL: $*" >&2; exit 1; }
say() { echo "bisect-options.sh: $*"; }
PATH=$PATH:/usr/sbin:/sbin
export PATH

tree=$("$top/tools/kernel-tree") || fail "no kernel tree (tools/kernel-tree)"
say "kernel tree $tree"
if [ "${KBISECT_E2E_KEEP:-0}" != 1 ]; then
	rm -rf "$work"
fi
mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
db=$work/kbisect.db

# ---- the ends ----------------------------------------------------------------
# good: what kbisect's own resolution of the demo matrix gives, made here
# with the kernel's make the same way (base target, fragments, olddefconfig)
good=$work/good.config
bad=$work/bad.config
if [ ! -s "$good" ]; then
	o=$work/good-o
	rm -rf "$o"
	mkdir -p "$o"
	make -s -C "$tree" O="$o" ARCH=x86_64 tinyconfig >/dev/null
	cat "$top/guests/tiny-x86_64.fragment" \
		"$top/kconfig-matrix/configs/demo-tcg.fragment" >>"$o/.config"
	# (olddefconfig warns of every fragment line that overrides tinyconfig)
	make -s -C "$tree" O="$o" ARCH=x86_64 olddefconfig >/dev/null 2>&1
	cp "$o/.config" "$good"
	rm -rf "$o"
fi
grep -q '^# CONFIG_SLUB_DEBUG_ON is not set' "$good" ||
	fail "the good config does not have SLUB_DEBUG_ON off"
inert="IKCONFIG CRC_CCITT CRC16 CRC_ITU_T CRC7 CRC8"
{
	grep -v -e '^# CONFIG_SLUB_DEBUG_ON is not set' "$good"
	echo CONFIG_SLUB_DEBUG_ON=y
	for o in $inert; do echo "CONFIG_$o=y"; done
} >"$bad"

# ---- the matrix: the demo's guest, workload and repeat settings ----------------
cat >"$work/bisect.yaml" <<EOF
name: e2e-bisect-options
source:
  tree: $tree
guest:
  hypervisor: qemu
  vcpus: 1
  memory_mib: 256
  boot_timeout_s: 120
workload:
  command:
    run: "i=0; while [ \$i -lt 500 ]; do /bin/busybox true; i=\$((i+1)); done"
  metric: real_s
repeat: { boots: 5, runs_per_boot: 2, max_boots: 8 }
compare: { threshold_pct: 5, alpha: 0.05 }
hosts: [qemu:///system]
EOF

# ---- a private libvirtd ------------------------------------------------------
run_dir=$(mktemp -d /var/tmp/kbisect-e2e.XXXXXX)
chmod 755 "$run_dir"
hog_pid=
cleanup() {
	[ -z "$hog_pid" ] || { kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null; }
	"$top/tools/libvirtd-private" stop "$run_dir"
	rm -rf "$run_dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$top/tools/libvirtd-private" start "$run_dir" || fail "no libvirtd"

# the hog: on and off at random times until killed (its busy child with it)
hog() {
	busy=
	trap '[ -z "$busy" ] || kill "$busy" 2>/dev/null; exit 0' TERM
	while :; do
		sleep $((20 + $(od -An -N1 -tu1 /dev/urandom) % 100))
		if [ -z "$busy" ]; then
			sh -c 'while :; do :; done' & busy=$!
			echo "$(date +%s) on" >>"$work/hog.log"
		else
			kill "$busy"; wait "$busy" 2>/dev/null || :; busy=
			echo "$(date +%s) off" >>"$work/hog.log"
		fi
	done
}
if [ "${KBISECT_E2E_HOG:-0}" = 1 ]; then
	: >"$work/hog.log"
	hog & hog_pid=$!
	say "a CPU hog starts and stops at random times (hog.log)"
fi

bisect() { # output file [--fresh]
	t0=$(date +%s)
	rc=0
	out=$1
	shift
	TMPDIR=$run_dir nice -n 10 "$kbisect" bisect options --good "$good" \
		--bad "$bad" --matrix "$work/bisect.yaml" --db "$db" --json "$@" \
		>"$out" 2>"$out.err" || rc=$?
	secs=$(($(date +%s) - t0))
	[ $rc = 0 ] || { cat "$out.err" >&2; fail "bisect options exited $rc"; }
}
field() { # file, jq-like python expression on j
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

kernels() {
	find "$XDG_CACHE_HOME/kbisect/builds" -mindepth 1 -maxdepth 1 -type d \
		2>/dev/null | wc -l
}

# ---- 1. cold ---------------------------------------------------------------
say "bisecting $(echo $inert | wc -w) inert options and SLUB_DEBUG_ON ($(kernels) kernels in the build cache)"
before=$(kernels)
bisect "$work/first.json"
first_secs=$secs
cat "$work/first.json.err" >&2
culprits=$(field "$work/first.json" "' '.join(c['option'] for c in j['culprits'])")
[ "$culprits" = SLUB_DEBUG_ON ] || fail "culprits '$culprits', want SLUB_DEBUG_ON"
[ "$(field "$work/first.json" "j['minimal']")" = True ] ||
	fail "the answer is not called 1-minimal"
builds=$(field "$work/first.json" "j['builds']")
cached=$(field "$work/first.json" "j['builds_cached']")
added=$(($(kernels) - before))
[ "$builds" = "$added" ] ||
	fail "$builds builds compiled, $added kernels added to the build cache: a config was built twice"
effect=$(field "$work/first.json" "'%+.1f%% [%+.1f%%, %+.1f%%]' % (j['change_pct'], j['ci_pct'][0], j['ci_pct'][1])")
say "answer: SLUB_DEBUG_ON, $effect (95% CI)"
say "first: $builds builds (+$cached from the build cache), $(field "$work/first.json" "j['boots']") boots, $(field "$work/first.json" "len(j['probes'])") probes, $first_secs s"

# ---- 2. the same bisection again, booted afresh -----------------------------
if [ "${KBISECT_E2E_SECOND:-1}" != 0 ]; then
	before=$(kernels)
	bisect "$work/second.json" --fresh
	[ "$(field "$work/second.json" "j['stored_at']")" = None ] ||
		fail "the second run (--fresh) printed the stored answer"
	cat "$work/second.json.err" >&2
	# no config the first run compiled is compiled again; a probe the
	# first run did not ask (the boots, and with them the classes, are
	# new: a noisier host can send the search another way) is built once
	builds=$(field "$work/second.json" "j['builds']")
	added=$(($(kernels) - before))
	[ "$builds" = "$added" ] ||
		fail "the second run compiled $builds kernels, $added added to the build cache: a config was built twice"
	culprits=$(field "$work/second.json" "' '.join(c['option'] for c in j['culprits'])")
	[ "$culprits" = SLUB_DEBUG_ON ] ||
		fail "second run: culprits '$culprits' (candidates: $(field "$work/second.json" "' '.join(c['option'] for c in j['candidates'])"))"
	say "again: $builds builds (probes the first run did not ask), $(field "$work/second.json" "j['boots']") boots, $secs s"
fi
say "ok"
