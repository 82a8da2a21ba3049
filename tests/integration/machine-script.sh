#!/bin/sh
# The machine executor (lib/exec/machine.h) without a machine: a host
# that is a whole machine, whose power, console and boot commands are
# tests/integration/lib/fake-machine, a script that "boots" what a kernel
# file's first line says (ok VALUE, hang, panic, good, dead).  Real
# kbisect runs, real initramfs built, real processes; no hypervisor.
#
#  1. two kernels, 2 boots of 2 runs each: every sample stored, the boot
#     command given the kernel, kbisect's initramfs and command line;
#     kbisect repro's boot.sh boots it again through the same commands;
#     the same kernel natively and as Xen's dom0 (factors.machine);
#  2. a kernel that hangs and one that panics: each power-cycled, the
#     machine booted into its known-good kernel (its "login:"), and the
#     boot stored as the variant's failure with its console tail;
#  3. a machine that does not come back on its known-good kernel: the
#     host drained (run exits 1), nothing stored for the variant, the
#     machine left off;
#  4. two runs asking for one machine at once: one waits, and no two
#     boots ever overlap;
#  5. boot methods kexec and grub-reboot through a fake ssh
#     (tests/integration/lib/fake-ssh: the remote command run in a mount
#     namespace whose /boot and /var/tmp are the test's own): a machine
#     that is off powered up and waited for, the files shipped, kexec'd
#     samples stored, a hang recovered by a power-up, a dom0 variant
#     booted by GRUB's custom.cfg entry (a Xen line GRUB would read as
#     syntax refused), a kexec matrix with a dom0
#     factor refused at its position.
#
# Usage: tests/integration/machine-script.sh path/to/kbisect
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
T=$(mktemp -d /var/tmp/kbisect-machine-script.XXXXXX)
FM=$(cd "$(dirname "$0")" && pwd)/lib/fake-machine
failed=0
fail() { echo "FAIL: $*"; failed=1; }
cleanup() {
	for s in "$T"/st*; do
		[ -d "$s" ] && "$FM" power off "$s"
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for p in sqlite3 gzip tail; do
	command -v $p >/dev/null 2>&1 || { echo "SKIP: no $p"; exit 0; }
done
[ -x /bin/busybox ] || { echo "SKIP: no /bin/busybox (busybox-static) for the initramfs"; exit 0; }

export KBISECT_TRUST_MATRIX=1 KBISECT_LOCK_DIR="$T" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
for k in "ok 1.5:ok-a" "ok 2.5:ok-b" "hang:hang" "panic:panic" "good:good" "dead:dead"; do
	printf '%s\n' "${k%%:*}" >"$T/${k#*:}"
done
q() { sqlite3 "$T/$1.db" "$2"; }

# matrix NAME KERNELS KNOWN_GOOD BOOTS STATE
matrix() {
	cat >"$T/$1.yaml" <<YAML
name: $1
source: { kernel: $T/ok-a }
factors:
  kernel: { image: [$2] }
workload: { command: { run: "true" } }
repeat: { boots: $4, runs_per_boot: 2 }
hosts:
  - machine:
      name: fake1
      power:
        on: [$FM, power, on, $T/$5]
        off: [$FM, power, off, $T/$5]
      console: [$FM, console, $T/$5]
      boot: { method: command, command: [$FM, boot, $T/$5] }
      known_good: { kernel: $T/$3 }
      boot_timeout_s: 3
YAML
}

# ---- 1. every sample of two kernels -------------------------------------
matrix ok "$T/ok-a, $T/ok-b" good 2 st1
"$KB" run "$T/ok.yaml" --db "$T/ok.db" >"$T/ok.out" 2>&1 ||
	{ fail "run ok.yaml: $(cat "$T/ok.out")"; }
n=$(q ok "SELECT count(*) FROM samples WHERE metric = 'real_s'")
[ "$n" = 8 ] || fail "ok: $n real_s samples stored, expected 8 (2 kernels x 2 boots x 2 runs)"
means=$(q ok "SELECT group_concat(m, ' ') FROM (SELECT avg(s.value) m FROM samples s
	JOIN boots b ON b.id = s.boot_id JOIN variants v ON v.id = b.variant_id
	WHERE s.metric = 'real_s' GROUP BY v.idx ORDER BY v.idx)")
[ "$means" = "1.5 2.5" ] || fail "ok: per-kernel means '$means', expected '1.5 2.5'"
hosts=$(q ok "SELECT DISTINCT host || ' ' || status FROM boots")
[ "$hosts" = "machine:fake1 ok" ] || fail "ok: boots '$hosts', expected every one ok on machine:fake1"
env=$(q ok "SELECT DISTINCT environment FROM boots")
[ "$env" = '{"uri":"machine:fake1","machine":"fake1","boot_method":"command","hypervisor":"none"}' ] ||
	fail "ok: environment '$env'"
args=$(tr '\n' ' ' <"$T/st1/args")
case $args in
"--kernel $T/ok-"[ab]" --initrd $T/cache/kbisect/initramfs/initramfs-"*".cpio.gz --cmdline console=ttyS0,115200 panic=-1 ") ;;
*) fail "ok: the boot command's arguments were '$args'" ;;
esac
[ "$(cat "$T/st1/next-runs")" = 2 ] || fail "ok: the initramfs does not say runs=2"
[ ! -s "$T/st1/pid" ] || fail "ok: the machine was left on"

# kbisect repro writes what boots it again by hand: boot.sh runs the
# machine's commands and prints the metric as kbisect read it
"$KB" repro 1 1 --db "$T/ok.db" -o "$T/rep" >"$T/rep.out" 2>&1 ||
	fail "repro of a machine boot: $(cat "$T/rep.out")"
for f in kernel initrd cmdline workload.sh boot.sh README; do
	[ -s "$T/rep/$f" ] || fail "repro: no $f"
done
(cd "$T/rep" && ./boot.sh) >"$T/rep-boot.out" 2>&1 ||
	fail "repro: boot.sh failed: $(cat "$T/rep-boot.out")"
grep -q "^real_s 2.5 (the mean of 2 runs: the boot's value, as kbisect stores it)$" "$T/rep-boot.out" ||
	fail "repro: boot.sh printed $(cat "$T/rep-boot.out")"
[ "$(sed -n 's/^start [0-9]* //p' "$T/st1/events" | tail -n 1)" = "$T/rep/kernel" ] ||
	fail "repro: boot.sh did not boot the folder's kernel"
[ ! -s "$T/st1/pid" ] || fail "repro: boot.sh left the machine on"

# ---- 1b. natively and as Xen's dom0: the same kernel, Xen's files given -
cat >"$T/dom0.yaml" <<YAML
name: dom0
source: { kernel: $T/ok-a }
factors:
  machine: { hypervisor: [none, xen] }
workload: { command: { run: "true" } }
repeat: { boots: 1, runs_per_boot: 1 }
hosts:
  - machine:
      name: fake1
      power: { cycle: [$FM, power, cycle, $T/st5] }
      console: [$FM, console, $T/st5]
      boot: { method: command, command: [$FM, boot, $T/st5] }
      known_good: { kernel: $T/good }
      xen: $T/good
      xen_cmdline: "dom0_max_vcpus=2 dom0_vcpus_pin"
      boot_timeout_s: 3
YAML
"$KB" run "$T/dom0.yaml" --db "$T/dom0.db" >"$T/dom0.out" 2>&1 ||
	fail "run dom0.yaml: $(cat "$T/dom0.out")"
native=$(grep -c "^--kernel|$T/ok-a|--initrd|[^|]*|--cmdline|console=ttyS0,115200 panic=-1|$" "$T/st5/args.all")
dom0=$(grep -c "^--kernel|$T/ok-a|--initrd|[^|]*|--cmdline|console=hvc0 panic=-1|--xen|$T/good|--xen-cmdline|console=com1 com1=115200,8n1 dom0_max_vcpus=2 dom0_vcpus_pin|$" "$T/st5/args.all")
[ "$native" = 1 ] && [ "$dom0" = 1 ] ||
	fail "dom0: boot commands were $(cat "$T/st5/args.all")"
env=$(q dom0 "SELECT group_concat(b.environment, ' ') FROM boots b JOIN variants v ON v.id = b.variant_id ORDER BY v.idx")
case $env in
*'"hypervisor":"none"}'*'"hypervisor":"xen","xen":"'"$T"'/good"}'* | *'"hypervisor":"xen","xen":"'"$T"'/good"}'*'"hypervisor":"none"}'*) ;;
*) fail "dom0: environments '$env'" ;;
esac

v=$(q dom0 "SELECT v.idx FROM variants v WHERE v.label LIKE '%xen%'")
"$KB" repro 1 "$v" --db "$T/dom0.db" -o "$T/rep0" >"$T/rep0.out" 2>&1 ||
	fail "repro of a dom0 boot: $(cat "$T/rep0.out")"
grep -q -- "--xen \"\$xen\" --xen-cmdline \"\$xen_cmdline\"" "$T/rep0/boot.sh" &&
	grep -q "^xen='$T/good'$" "$T/rep0/boot.sh" &&
	[ "$(cat "$T/rep0/xen_cmdline")" = "console=com1 com1=115200,8n1 dom0_max_vcpus=2 dom0_vcpus_pin" ] ||
	fail "repro: the dom0 boot's boot.sh does not boot Xen: $(grep xen "$T/rep0/boot.sh")"

# ---- 2. a hang and a panic: the variant's failures, the machine back ------
matrix fail "$T/ok-a, $T/hang, $T/panic" good 1 st2
"$KB" run "$T/fail.yaml" --db "$T/fail.db" >"$T/fail.out" 2>&1 ||
	fail "run fail.yaml: $(cat "$T/fail.out")"
got=$(q fail "SELECT v.idx || ' ' || b.status || ' ' || coalesce(b.reason, '') FROM boots b
	JOIN variants v ON v.id = b.variant_id ORDER BY v.idx")
want="0 ok 
1 boot-timeout no workload after 3 s (machine.boot_timeout_s); the machine was booted back into its known-good kernel
2 panic kernel panic: Kernel panic - not syncing: fake panic; the machine was booted back into its known-good kernel"
[ "$got" = "$want" ] || fail "fail: boots
$got
expected
$want"
q fail "SELECT console_tail FROM boots b JOIN variants v ON v.id = b.variant_id WHERE v.idx = 1" |
	grep -q "fake: hanging" || fail "fail: the hang's console tail is not stored"
q fail "SELECT console_tail FROM boots b JOIN variants v ON v.id = b.variant_id WHERE v.idx = 2" |
	grep -q "Kernel panic - not syncing: fake panic" || fail "fail: the panic's console tail is not stored"
# each failed boot is followed by a boot of the known-good kernel (the
# boots' order is the run's randomised one)
kernels=$(sed -n 's/^start [0-9]* //p' "$T/st2/events" | sed "s|$T/||" | tr '\n' ' ')
case $kernels in
*"hang good "*) ;;
*) fail "fail: the machine booted '$kernels': no known-good boot after the hang" ;;
esac
case $kernels in
*"panic good "*) ;;
*) fail "fail: the machine booted '$kernels': no known-good boot after the panic" ;;
esac
[ "$(echo "$kernels" | wc -w)" = 5 ] || fail "fail: the machine booted '$kernels', expected 5 boots"
[ ! -s "$T/st2/pid" ] || fail "fail: the machine was left on"

# ---- 3. a machine that does not come back: drained, nothing stored -------
matrix dead "$T/ok-a, $T/hang" dead 1 st3
"$KB" run "$T/dead.yaml" --db "$T/dead.db" >"$T/dead.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "dead: run exited $rc, expected 1"
grep -q "host machine:fake1 drained after 3 infrastructure failures: machine fake1 did not come back on its known-good kernel after boot-timeout" "$T/dead.out" ||
	fail "dead: no drain said: $(cat "$T/dead.out")"
n=$(q dead "SELECT count(*) FROM boots b JOIN variants v ON v.id = b.variant_id WHERE v.idx = 1")
[ "$n" = 0 ] || fail "dead: $n boots stored for the hanging kernel, expected none"
n=$(q dead "SELECT count(*) FROM boots WHERE status != 'ok'")
[ "$n" = 0 ] || fail "dead: $n failed boots stored, expected none (the machine's failures are not the variants')"
# the hang, each time followed by a known-good boot that never came up
n=$(grep -c " $T/dead$" "$T/st3/events")
[ "$n" = 3 ] || fail "dead: $n known-good boots, expected 3 (one after each of the 3 tries)"
[ ! -s "$T/st3/pid" ] || fail "dead: the machine was left on"

# ---- 4. two runs, one machine: one waits, no two boots overlap -----------
matrix two "$T/ok-a, $T/ok-b" good 2 st4
"$KB" run "$T/two.yaml" --db "$T/two-a.db" >"$T/two-a.out" 2>&1 &
a=$!
"$KB" run "$T/two.yaml" --db "$T/two-b.db" >"$T/two-b.out" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "two: the runs exited $ra and $rb"
cat "$T/two-a.out" "$T/two-b.out" |
	grep -q "machine fake1 is booted by process [0-9]* (lock $T/kbisect-machine-fake1.lock); waiting for it" ||
	fail "two: neither run said it waits: $(cat "$T/two-a.out" "$T/two-b.out")"
n=$(( $(q two-a "SELECT count(*) FROM samples WHERE metric = 'real_s'") +
      $(q two-b "SELECT count(*) FROM samples WHERE metric = 'real_s'") ))
[ "$n" = 16 ] || fail "two: $n samples in both databases, expected 16"
# starts and ends alternate: a boot starts only after the last one ended
pattern=$(cut -d' ' -f1 "$T/st4/events" | tr '\n' ' ')
want=$(for i in 1 2 3 4 5 6 7 8; do printf 'start end '; done)
[ "$pattern" = "$want" ] || fail "two: the machine's boots overlapped: $pattern"
sort -c -k2,2n "$T/st4/events" 2>/dev/null || fail "two: events out of order"

# ---- 5. boot methods kexec and grub-reboot, through a fake ssh ---------
if ! unshare -m true 2>/dev/null; then
	echo "SKIP: no unshare -m (root) for the fake ssh: boot methods kexec and grub-reboot untested"
else
	FSSH=$(dirname "$FM")/fake-ssh
	# the fake machine's own /boot and /var/tmp, outside /var/tmp, which
	# the fake ssh binds over
	S=$(mktemp -d /tmp/kbisect-fake-ssh.XXXXXX)
	trap 'cleanup; "$FM" power off "$S/m"; rm -rf "$S"' EXIT
	"$FM" boot "$S/m" --kernel "$T/good" >/dev/null
	# ssh_matrix NAME METHOD KERNELS [MACHINE FACTORS] [HOST LINE]
	ssh_matrix() {
		mf=
		[ -n "${4:-}" ] && mf="
  machine: { $4 }"
		cat >"$T/$1.yaml" <<YAML
name: $1
source: { kernel: $T/ok-a }
factors:
  kernel: { image: [$3] }$mf
workload: { command: { run: "true" } }
repeat: { boots: 1, runs_per_boot: 2 }
hosts:
  - machine:
      name: fake1
      power:
        on: [$FM, power, on, $S/m]
        off: [$FM, power, off, $S/m]
      console: [$FM, console, $S/m]
      boot: { method: $2, ssh: [$FSSH, $S] }
      boot_timeout_s: 6${5:+
      $5}
YAML
	}
	# 5a. kexec: the machine is off, so it is powered up and waited for
	ssh_matrix kx kexec "$T/ok-a, $T/ok-b"
	"$KB" run "$T/kx.yaml" --db "$T/kx.db" >"$T/kx.out" 2>&1 ||
		fail "run kx.yaml: $(cat "$T/kx.out")"
	n=$(q kx "SELECT count(*) FROM samples WHERE metric = 'real_s'")
	[ "$n" = 4 ] || fail "kexec: $n real_s samples stored, expected 4"
	means=$(q kx "SELECT group_concat(m, ' ') FROM (SELECT avg(s.value) m FROM samples s
		JOIN boots b ON b.id = s.boot_id JOIN variants v ON v.id = b.variant_id
		WHERE s.metric = 'real_s' GROUP BY v.idx ORDER BY v.idx)")
	[ "$means" = "1.5 2.5" ] || fail "kexec: per-kernel means '$means', expected '1.5 2.5'"
	env=$(q kx "SELECT DISTINCT environment FROM boots")
	[ "$env" = '{"uri":"machine:fake1","machine":"fake1","boot_method":"kexec","hypervisor":"none"}' ] ||
		fail "kexec: environment '$env'"
	kernels=$(sed -n 's/^start [0-9]* //p' "$S/m/events" | sed "s|$T/||" | tr '\n' ' ')
	[ "$kernels" = "good /var/tmp/kbisect/kernel good /var/tmp/kbisect/kernel good " ] ||
		fail "kexec: the machine booted '$kernels', expected its own system (powered up: it was off) before and after each kexec"
	[ "$(sort -u "$S/m/kexec.log")" = "-l /var/tmp/kbisect/kernel --initrd=/var/tmp/kbisect/initrd --command-line=console=ttyS0,115200 panic=-1" ] ||
		fail "kexec: kexec was run as $(cat "$S/m/kexec.log")"
	cmp -s "$S/var-tmp/kbisect/kernel" "$T/ok-a" || cmp -s "$S/var-tmp/kbisect/kernel" "$T/ok-b" ||
		fail "kexec: the kernel was not shipped to /var/tmp/kbisect/kernel"
	[ -s "$S/var-tmp/kbisect/initrd" ] && [ ! -e "$S/var-tmp/kbisect/kernel.tmp" ] ||
		fail "kexec: the initrd not shipped, or a .tmp left: $(ls "$S/var-tmp/kbisect")"
	[ "$(cat "$S/m/running")" = good ] && [ -s "$S/m/pid" ] ||
		fail "kexec: the machine was not left up on its own system"
	"$KB" repro 1 1 --db "$T/kx.db" -o "$T/repkx" >"$T/repkx.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "was booted by boot method kexec: kbisect repro's boot.sh covers boot method command only" "$T/repkx.out" &&
		[ ! -e "$T/repkx/boot.sh" ] || fail "kexec: repro exited $rc: $(cat "$T/repkx.out")"

	# 5b. a hang under kexec: the variant's failure, recovered by a power-up
	ssh_matrix kxhang kexec "$T/ok-a, $T/hang"
	"$KB" run "$T/kxhang.yaml" --db "$T/kxhang.db" >"$T/kxhang.out" 2>&1 ||
		fail "run kxhang.yaml: $(cat "$T/kxhang.out")"
	got=$(q kxhang "SELECT v.idx || ' ' || b.status || ' ' || coalesce(b.reason, '') FROM boots b
		JOIN variants v ON v.id = b.variant_id ORDER BY v.idx")
	want="0 ok 
1 boot-timeout no workload after 6 s (machine.boot_timeout_s); the machine was powered up back into its own system"
	[ "$got" = "$want" ] || fail "kexec hang: boots
$got
expected
$want"
	[ "$(cat "$S/m/running")" = good ] || fail "kexec hang: the machine is not back on its own system"

	# 5c. grub-reboot, a dom0 variant: Xen's entry in custom.cfg
	ssh_matrix gr grub-reboot "$T/ok-b" "hypervisor: [xen]" "xen: $T/good"
	"$KB" run "$T/gr.yaml" --db "$T/gr.db" >"$T/gr.out" 2>&1 ||
		fail "run gr.yaml: $(cat "$T/gr.out")"
	n=$(q gr "SELECT count(*) FROM samples WHERE metric = 'real_s'")
	[ "$n" = 2 ] || fail "grub-reboot: $n real_s samples stored, expected 2"
	cat >"$T/gr.want" <<'CFG'
# written by kbisect (boot method grub-reboot); chosen once by grub-reboot kbisect
menuentry 'kbisect' {
	if search --no-floppy --set=root --file /boot/kbisect/kernel; then
		set kbdir=/boot/kbisect
	else
		search --no-floppy --set=root --file /kbisect/kernel
		set kbdir=/kbisect
	fi
	multiboot2 $kbdir/xen console=com1 com1=115200,8n1
	module2 $kbdir/kernel console=hvc0 panic=-1
	module2 $kbdir/initrd
}
CFG
	cmp -s "$T/gr.want" "$S/boot/grub/custom.cfg" ||
		fail "grub-reboot: custom.cfg is $(cat "$S/boot/grub/custom.cfg")"
	cmp -s "$S/boot/kbisect/xen" "$T/good" && cmp -s "$S/boot/kbisect/kernel" "$T/ok-b" ||
		fail "grub-reboot: Xen or the kernel not shipped to /boot/kbisect"
	grep -q "^grub-reboot kbisect$" "$S/remote.log" || fail "grub-reboot: grub-reboot kbisect never ran"
	env=$(q gr "SELECT DISTINCT environment FROM boots")
	[ "$env" = '{"uri":"machine:fake1","machine":"fake1","boot_method":"grub-reboot","hypervisor":"xen","xen":"'"$T"'/good"}' ] ||
		fail "grub-reboot: environment '$env'"
	[ "$(sed -n 's/^start [0-9]* //p' "$S/m/events" | tail -n 2 | tr '\n' ' ')" = "/boot/kbisect/kernel $T/good " ] ||
		fail "grub-reboot: the machine did not boot the entry, then its own system"

	# 5c'. a Xen line GRUB would read as syntax: the variant's failure,
	# nothing shipped or booted
	nev=$(wc -l <"$S/m/events")
	ssh_matrix grbad grub-reboot "$T/ok-a" "hypervisor: [xen]" "xen: $T/good
      xen_cmdline: 'a=1; \$x'"
	"$KB" run "$T/grbad.yaml" --db "$T/grbad.db" >"$T/grbad.out" 2>&1 ||
		fail "run grbad.yaml: $(cat "$T/grbad.out")"
	got=$(q grbad "SELECT status || ' ' || reason FROM boots")
	case $got in
	"boot-failed the command line has a character GRUB's menu entry would read as syntax"*) ;;
	*) fail "grub-reboot, a bad Xen line: boots '$got'" ;;
	esac
	[ "$(wc -l <"$S/m/events")" = "$nev" ] || fail "grub-reboot, a bad Xen line: the machine was booted"

	# 5d. kexec cannot boot Xen: refused where the factor says dom0
	ssh_matrix kxdom0 kexec "$T/ok-a" "hypervisor: [none, xen]" "xen: $T/good"
	"$KB" plan "$T/kxdom0.yaml" >"$T/kxdom0.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "^kbisect: $T/kxdom0.yaml:5:33: boot method kexec boots Linux only; Xen's dom0 needs grub-reboot or command$" "$T/kxdom0.out" ||
		fail "kexec dom0: plan exited $rc: $(cat "$T/kxdom0.out")"
	[ ! -e /var/tmp/kbisect ] || fail "this machine's own /var/tmp/kbisect was written"
fi

[ $failed -eq 0 ] && echo "ok: machine-script"
exit $failed
