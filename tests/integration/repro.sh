#!/bin/sh
# kbisect repro, for real: boot the distro kernel with a short command
# workload under QEMU (TCG) on a private libvirtd, once, through `kbisect
# run`; check the evidence stored with the build and the boot (the
# image's sha256 is sha256sum's, the domain XML and workload are there);
# then `kbisect repro` the variant and run the boot.sh it wrote, by hand
# as a kernel developer would: it must boot the guest, print a number for
# the metric, and leave no guest behind.
#
# Usage: tests/integration/repro.sh path/to/kbisect
# Skips (exit 0, "SKIP: ...") only when a component is truly missing.
set -u

KB=${1:?usage: $0 path/to/kbisect}
case $KB in /*) ;; *) KB=$PWD/$KB ;; esac
URI=qemu:///system
T=$(mktemp -d /var/tmp/kbisect-repro.XXXXXX)
chmod 755 "$T"
started=$(date +%s)
NAME=repro
. "$(dirname "$0")/lib/libvirt.sh"
# the guest boot.sh starts (kbisect run's is kbisect-TAG-1-0-1, TAG the
# new database's own: no other run has it)
GUESTS="repro-kbisect-1-0"

cleanup() {
	# never leave the guest boot.sh starts behind, whatever happened
	# (kbisect run destroys its own on every path, a signal included)
	if command -v virsh >/dev/null 2>&1 &&
	   virsh -c "$URI" domstate repro-kbisect-1-0 >/dev/null 2>&1; then
		virsh -c "$URI" destroy repro-kbisect-1-0 >/dev/null 2>&1
	fi
	libvirt_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- components ---------------------------------------------------------
libvirt_need sqlite3 sha256sum

# ---- a private libvirtd (or the one already running) ----------------------
libvirt_start
for d in $GUESTS; do
	virsh -c "$URI" domstate "$d" >/dev/null 2>&1 &&
		{ fail "a guest '$d' runs already: another run of this test?"; exit 1; }
done

export KBISECT_DB="$T/kb.db" XDG_CACHE_HOME="$T/cache" TMPDIR="$T"
q() { sqlite3 "$KBISECT_DB" "$1"; }

# ---- 1. one boot of one variant, through kbisect run -----------------------
cat > "$T/repro.yaml" <<YAML
name: repro-it
source: { kernel: $KERNEL }
guest: { hypervisor: qemu, vcpus: 1, memory_mib: 256, boot_timeout_s: 120 }
workload:
  command:
    run: "i=0; while [ \$i -lt 50 ]; do /bin/busybox true; i=\$((i+1)); done"
  metric: real_s
repeat: { boots: 1, runs_per_boot: 1 }
hosts: [$URI]
YAML
t0=$(date +%s)
if ! "$KB" run "$T/repro.yaml" --quiet > "$T/run.out" 2>&1; then
	fail "kbisect run failed:"
	cat "$T/run.out"
fi
echo "repro: kbisect run took $(($(date +%s) - t0)) s"
status=$(q "SELECT status || ': ' || coalesce(reason, '') FROM boots")
[ "$status" = "ok: " ] || {
	fail "the boot is '$status', expected ok"
	q "SELECT console_tail FROM boots" | tail -30
	exit 1
}

# ---- 2. the evidence stored with the build and the boot -------------------
want=$(sha256sum "$KERNEL" | cut -d' ' -f1)
got=$(q "SELECT image_sha256 FROM builds")
[ "$got" = "$want" ] ||
	fail "the build's image_sha256 is '$got', sha256sum of $KERNEL says '$want'"
version=${KERNEL##*/vmlinuz-}
if [ -f "/boot/config-$version" ]; then
	[ "$(q "SELECT config_text = CAST(readfile('/boot/config-$version') AS TEXT) FROM builds")" = 1 ] ||
		fail "the build's config_text is not /boot/config-$version"
fi
tag=$(q "SELECT substr(value, 1, 6) FROM meta WHERE key = 'database_id'")
[ "$(q "SELECT count(*) FROM boots WHERE domain_xml LIKE '%<domain type=\"qemu\">%'
	AND domain_xml LIKE '%<name>kbisect-$tag-1-0-1</name>%'")" = 1 ] ||
	fail "the boot stored no qemu domain XML named kbisect-$tag-1-0-1"
[ "$(q "SELECT workload_text FROM boots")" = \
  'i=0; while [ $i -lt 50 ]; do /bin/busybox true; i=$((i+1)); done' ] ||
	fail "the boot's workload_text is '$(q "SELECT workload_text FROM boots")'"
[ "$(q "SELECT has_domain_xml || has_workload || has_config FROM v_boot_evidence")" = 111 ] ||
	fail "v_boot_evidence does not show the evidence"

# ---- 3. kbisect repro, then its boot.sh by hand ---------------------------
R=$T/bug
if ! "$KB" repro 1 0 -o "$R" > "$T/repro.out" 2>&1; then
	fail "kbisect repro failed:"
	cat "$T/repro.out"
	exit 1
fi
for f in README boot.sh cmdline config domain.xml initrd kernel workload.sh; do
	[ -s "$R/$f" ] || fail "kbisect repro wrote no '$f'"
done
[ "$(sha256sum < "$R/kernel" | cut -d' ' -f1)" = "$want" ] ||
	fail "the kernel written is not $KERNEL"
# the initramfs is the one the boot used: the only one in the cache
set -- "$T"/cache/kbisect/initramfs/*.cpio.gz
[ $# = 1 ] && cmp -s "$1" "$R/initrd" ||
	fail "the initrd written is not the initramfs the boot used ($*)"
grep -q "<name>repro-kbisect-1-0</name>" "$R/domain.xml" ||
	fail "the domain to boot is not named repro-kbisect-1-0"
grep -q "kbisect-boot-" "$R/domain.xml" &&
	fail "domain.xml still names the boot folder"
t0=$(date +%s)
"$R/boot.sh" > "$T/boot.out" 2> "$T/boot.err"
rc=$?
echo "repro: boot.sh took $(($(date +%s) - t0)) s (exit $rc):"
sed 's/^/  /' "$T/boot.out"
[ $rc = 0 ] || {
	fail "boot.sh exited $rc:"
	cat "$T/boot.err"
	tail -20 "$R/console.log" 2>/dev/null
}
grep -Eq '^run 1: real_s [0-9]+(\.[0-9]+)?$' "$T/boot.out" ||
	fail "boot.sh printed no real_s for run 1"
grep -Eq '^real_s [0-9]+(\.[0-9]+)? \(the mean of 1 run' "$T/boot.out" ||
	fail "boot.sh printed no mean of real_s"
grep -q "repro-kbisect-1-0 is gone" "$T/boot.err" ||
	fail "boot.sh did not say the guest is gone"
virsh -c "$URI" domstate repro-kbisect-1-0 >/dev/null 2>&1 &&
	fail "the guest repro-kbisect-1-0 is still there"
[ -e "$R/scratch.raw" ] && fail "boot.sh left a scratch disk"

echo "repro: $(( $(date +%s) - started )) s in all"
[ $failed = 0 ] || exit 1
echo "repro: ok"
