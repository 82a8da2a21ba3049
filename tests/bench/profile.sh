#!/bin/sh
# What a profile (workload.profile, lib/profile.h: perf record -a -g
# around each run, folded by /init into a KBISECT-PROFILE frame) costs per
# boot, on real boots: the distro kernel under plain QEMU TCG with a
# command workload (a dd/cat loop, 3 runs a boot), BOOTS boots with a
# profile at 99 Hz and BOOTS without, alternating.  The profile's
# initramfs brings the host's perf and its libraries (lib/exec/initramfs.h);
# the other gets the same as a second archive, so that only the profile
# differs.  Prints per boot the seconds from start to power-off, the bytes
# of profile frames on the console, the stacks and samples they hold and
# the bytes those stacks add in sqlite (db/0019's two tables, filled boot
# by boot), and the primary metric's (real_s) mean and boot-to-boot CV
# with and without.  Fails when a profiled boot's run has no profile
# frame that parses, or a boot without one prints one.
#
# Usage: tests/bench/profile.sh [KBISECT]  (from the checkout); BOOTS=3,
# KEEP=1 keeps the scratch folder with each boot's console.
# Skips when qemu, busybox-static, a distro kernel or perf is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
skip() { echo "profile bench: SKIP: $*"; exit 0; }
die() { echo "profile bench: FAIL: $*"; exit 1; }
. tests/integration/lib/guest-helper.sh
guest_distro_kernel
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v cpio >/dev/null || skip "cpio is not installed"
perf=$(command -v perf_6.1 || command -v perf)
if [ -z "$perf" ] || ! "$perf" --version >/dev/null 2>&1; then
	skip "perf is not installed (linux-perf)"
fi
boots=${BOOTS:-3}
hz=99
runs=3
tmp=$(mktemp -d /tmp/kbisect-profile-bench.XXXXXX) || exit 1
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	if [ "${KEEP:-0}" = 1 ]; then echo "profile bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT INT TERM
guest_helper "$tmp/helper"
# kernel work: writes and reads of the page cache, as guest-userland.sh's
cmd='i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=/tmp/z bs=64k count=64 2>/dev/null; cat /tmp/z >/dev/null; i=$((i + 1)); done; echo "n 1"'
on=$(GUEST_USERLAND_PROFILE=$hz "$tmp/helper" command "$tmp/cache" $runs "$modules" "$cmd" 2>/dev/null) || die "initramfs"
off=$("$tmp/helper" command "$tmp/cache" $runs "$modules" "$cmd" 2>/dev/null) || die "initramfs"
mkdir -p "$tmp/perfroot/usr/bin"
cp "$perf" "$tmp/perfroot/usr/bin/perf" || die "cannot copy $perf"
for lib in $(ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
	mkdir -p "$tmp/perfroot$(dirname "$lib")"
	cp -L "$lib" "$tmp/perfroot$lib" || die "cannot copy $lib"
done
(cd "$tmp/perfroot" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/perf.cpio.gz" ||
	die "cannot archive perf"
cp "$on" "$tmp/on.img" || die "cannot copy the initramfs"
cat "$off" "$tmp/perf.cpio.gz" >"$tmp/off.img" || die "cannot append perf to the initramfs"

# boot IMAGE LOG: seconds from start to power-off on stdout
boot() {
	t0=$(date +%s.%N)
	timeout 300 qemu-system-x86_64 -machine pc -accel tcg -cpu qemu64 -m 768 -smp 1 \
		-display none -monitor none -no-reboot -serial "file:$2" \
		-kernel "$kernel" -initrd "$1" \
		-append "console=ttyS0 panic=-1 loglevel=4" &
	qpid=$!
	wait "$qpid"
	qpid=
	echo "$(date +%s.%N) $t0" | awk '{ printf "%.2f\n", $1 - $2 }'
}
# pages DB: the bytes of DB's pages, after a VACUUM drops the free ones
pages() {
	sqlite3 "$1" "VACUUM;" &&
		echo "$(sqlite3 "$1" 'PRAGMA page_count;') $(sqlite3 "$1" 'PRAGMA page_size;')" |
		awk '{ print $1 * $2 }'
}
# db/0019's tables (the boots they reference are not made: foreign keys
# are off in sqlite3)
sqlite3 "$tmp/p.db" "CREATE TABLE profile_stacks (id INTEGER PRIMARY KEY, stack TEXT NOT NULL UNIQUE);
CREATE TABLE profiles (boot_id INTEGER NOT NULL, run_no INTEGER NOT NULL, stack_id INTEGER NOT NULL,
 samples INTEGER NOT NULL CHECK (samples > 0), PRIMARY KEY (boot_id, run_no, stack_id)) WITHOUT ROWID;" ||
	die "sqlite"
db0=$(pages "$tmp/p.db") || die "sqlite"
dbprev=$db0
: >"$tmp/rows"
k=1
while [ $k -le "$boots" ]; do
	for mode in on off; do
		img=$tmp/$mode.img
		s=$(boot "$img" "$tmp/c.log")
		[ "${KEEP:-0}" = 1 ] && cp "$tmp/c.log" "$tmp/console-$k-$mode.log"
		out=$("$tmp/helper" console "$tmp/c.log" $runs 'n ([0-9]+)' n) ||
			die "boot $k (profile $mode) did not judge ok: $out"
		real=$(echo "$out" | awk '$1 == "run" && $3 == "real_s" { s += $4; n++ } END { printf "%.4f", s / n }')
		bytes=$(tr -d '\r' <"$tmp/c.log" | awk '/^KBISECT-PROFILE / { s += $3 } END { print s + 0 }')
		nst=0 nsa=0 dadd=0
		if [ $mode = on ]; then
			: >"$tmp/ins.sql"
			r=1
			while [ $r -le $runs ]; do
				pout=$("$tmp/helper" profile "$tmp/c.log" $r 2>&1) || {
					tr -d '\r' <"$tmp/c.log" | tail -n 20
					die "boot $k with a profile: run $r has no profile frame that parses: $pout"
				}
				nst=$((nst + $(echo "$pout" | awk '$1 == "stacks" { print $2 }')))
				nsa=$((nsa + $(echo "$pout" | awk '$1 == "samples" { print $2 }')))
				# each stack's text once, then the run's id and count
				# a stack, as the store fills them
				echo "$pout" | awk -v b=$k -v r=$r '$1 == "stack" {
					printf "INSERT OR IGNORE INTO profile_stacks (stack) VALUES ('\''%s'\'');\n", $3
					printf "INSERT INTO profiles SELECT %d, %d, id, %d FROM profile_stacks WHERE stack = '\''%s'\'';\n", b, r, $2, $3
				}' >>"$tmp/ins.sql"
				r=$((r + 1))
			done
			{ echo "BEGIN;"; cat "$tmp/ins.sql"; echo "COMMIT;"; } | sqlite3 "$tmp/p.db" || die "sqlite"
			dbnow=$(pages "$tmp/p.db") || die "sqlite"
			dadd=$((dbnow - dbprev))
			dbprev=$dbnow
		elif [ "$bytes" -ne 0 ]; then
			die "boot $k without a profile printed profile frames ($bytes bytes)"
		fi
		echo "$mode $k $s $real $bytes $nst $nsa $dadd" >>"$tmp/rows"
		echo "profile bench: boot $k profile $mode: ${s} s, real_s $real, $bytes console bytes, $nst stacks, $nsa samples, +$dadd sqlite bytes"
	done
	k=$((k + 1))
done
nstk=$(sqlite3 "$tmp/p.db" "SELECT count(*) FROM profile_stacks;")
nrow=$(sqlite3 "$tmp/p.db" "SELECT count(*) FROM profiles;")
awk -v boots="$boots" -v hz=$hz -v db0="$db0" -v db="$dbprev" -v nstk="$nstk" -v nrow="$nrow" '
	{ n[$1]++; s[$1] += $3; r[$1] += $4; r2[$1] += $4 * $4; b[$1] += $5; st[$1] += $6; sa[$1] += $7 }
	END {
		for (k in n) {
			mean = r[k] / n[k]
			sd = n[k] > 1 ? sqrt((r2[k] - n[k] * mean * mean) / (n[k] - 1)) : 0
			printf "profile bench: profile %-3s %d boots: %.2f s a boot, real_s %.4f ± %.1f%% (boot CV), %.0f console bytes, %.0f stacks, %.0f samples a boot\n",
			       k, n[k], s[k] / n[k], mean, 100 * sd / mean, b[k] / n[k], st[k] / n[k], sa[k] / n[k]
		}
		printf "profile bench: stored: %.0f bytes a boot in sqlite (db/0019 tables of %d profiled boots: %d bytes of pages over the empty tables; %d distinct stacks, %d rows)\n",
		       (db - db0) / boots, boots, db - db0, nstk, nrow
		printf "profile bench: seconds added a boot by a profile at %d Hz: %+.2f\n", hz, s["on"] / n["on"] - s["off"] / n["off"]
	}' "$tmp/rows"
