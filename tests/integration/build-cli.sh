#!/bin/sh
# `kbisect build` on a fake kernel tree whose Makefile stands in for
# Kbuild (olddefconfig keeps the .config; bzImage prints one "  CC" line
# per enabled option and makes an image; CONFIG_BROKEN=y fails).  Fast:
# checks the command's rows, reuse from the database and the cache, dedup,
# a failed build, and a git source at a tag.  Real builds: tests/e2e/builds.sh.
#   tests/integration/build-cli.sh ./kbisect
set -u
kb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/kb-build-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache"
pass=0 fail=0

check() { # NAME STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] build-cli: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] build-cli: $1"
		echo "  stdout: $(head -c 800 "$T/out")"
		echo "  stderr: $(head -c 800 "$T/err")"
	fi
}
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "$T/out"; }

tree=$T/linux
mkdir -p "$tree"
cat >"$tree/Kconfig" <<'EOF'
config SPIN
	bool "broad option"

config LOOP
	bool "narrow option"

config BROKEN
	bool "breaks the build"
EOF
cat >"$tree/Makefile" <<'EOF'
# A stand-in for Kbuild, for tests/integration/build-cli.sh.
olddefconfig:
	@true
bzImage:
	@if grep -q '^CONFIG_BROKEN=y' $(O)/.config; then echo 'error: broken'; exit 2; fi
	@grep '^CONFIG_.*=y' $(O)/.config | sed 's/^/  CC      /; s/$$/.o/'
	@mkdir -p $(O)/arch/x86/boot
	@echo image > $(O)/arch/x86/boot/bzImage
	@echo map > $(O)/System.map
	@echo elf > $(O)/vmlinux
EOF

matrix() { # FILE NAME EXTRA-FACTORS [SOURCE-LINES]
	cat >"$1" <<EOF
name: $2
source:
${4:-  tree: $tree}
factors:
  kconfig:
    SPIN: [n, y]
    LOOP: [n, y]
$3
build:
  jobs: 1
workload:
  command: { run: "true" }
EOF
}
matrix "$T/m.yaml" cli-builds ""
matrix "$T/dedup.yaml" cli-dedup "  guest:
    vcpus: [1, 2]"
matrix "$T/broken.yaml" cli-broken "    BROKEN: [n, y]"

run "$kb" build "$T/m.yaml" --db "$T/db"
check "builds every variant" $([ $rc -eq 0 ] &&
	has '^4 variants, 4 builds: 4 built, 0 reused, 0 failed' && echo 0 || echo 1)
check "counts units (CC lines)" $(awk '$3 == "built" && $7 == "#3" { print $6 }' "$T/out" |
	grep -qx 2 && echo 0 || echo 1)
check "orders builds by nearest config" $(awk '$3 == "built" { print $1, $7 }' "$T/out" |
	sort -n | tr '\n' ' ' | grep -q '^1 #0 2 #1 3 #3 4 #2 $' && echo 0 || echo 1)
check "prints the images" $(has 'builds/.*/bzImage$' && echo 0 || echo 1)

run "$kb" plan "$T/m.yaml" -q --json
check "plan counts the builds the cache holds" $([ $rc -eq 0 ] &&
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["cost"]["builds_cached"] == 4' "$T/out" &&
	echo 0 || echo 1)

run "$kb" build "$T/m.yaml" --db "$T/db"
check "a second build reuses the database" $([ $rc -eq 0 ] &&
	has '^4 variants, 4 builds: 0 built, 4 reused, 0 failed' && echo 0 || echo 1)

run "$kb" build "$T/m.yaml" --db "$T/fresh.db" --json
check "a fresh database reuses the cache" $([ $rc -eq 0 ] &&
	[ "$(grep -c '"outcome": "reused"' "$T/out")" -eq 4 ] && echo 0 || echo 1)

run "$kb" build "$T/dedup.yaml" --db "$T/db"
check "guest factors share builds" $([ $rc -eq 0 ] &&
	has '^8 variants, 4 builds: 0 built, 4 reused, 0 failed' && echo 0 || echo 1)

run "$kb" build "$T/broken.yaml" --db "$T/db"
check "a failed build is reported and the others go on" $([ $rc -eq 1 ] &&
	has '^8 variants, 8 builds: 4 built, 0 reused, 4 failed' &&
	grep -q 'make exited with status 2' "$T/err" && echo 0 || echo 1)
if command -v sqlite3 >/dev/null 2>&1; then
	check "a failed build keeps its log's end" $([ "$(sqlite3 "$T/db" \
		"SELECT count(*) FROM builds WHERE status = 'failed' AND log_tail LIKE '%error: broken%'")" = 4 ] &&
		echo 0 || echo 1)
else
	echo "[  SKIPPED ] build-cli: log tail check needs the sqlite3 shell"
fi

# an option olddefconfig drops: the report goes to stderr, the answer
# (the table, or the JSON) alone to stdout
drop=$T/dropping
mkdir -p "$drop"
cp "$tree/Kconfig" "$drop/Kconfig"
{
	printf 'olddefconfig:\n\t@sed -i "s/^CONFIG_LOOP=y/# CONFIG_LOOP is not set/" $(O)/.config\n'
	sed '1,3d' "$tree/Makefile"
} >"$drop/Makefile"
matrix "$T/drop.yaml" cli-drop "" "  tree: $drop"
run "$kb" build "$T/drop.yaml" --db "$T/db"
check "a collapse from a dropped option is refused" $([ $rc -eq 2 ] &&
	grep -q '^#1: LOOP=y did not hold' "$T/err" &&
	grep -q 'pass --allow-dropped' "$T/err" && [ ! -s "$T/out" ] && echo 0 || echo 1)
run "$kb" build "$T/drop.yaml" --db "$T/db" --allow-dropped --json
check "build --json with a dropped option prints only JSON" $([ $rc -eq 0 ] &&
	python3 -m json.tool "$T/out" >/dev/null &&
	grep -q '^#1: LOOP=y did not hold' "$T/err" &&
	grep -q 'resolve to the same .config: one build' "$T/err" && echo 0 || echo 1)
run "$kb" build "$T/drop.yaml" --db "$T/db" --allow-dropped
check "... and the table alone" $([ $rc -eq 0 ] &&
	has '^4 variants, 2 builds: 0 built, 2 reused, 0 failed' &&
	! grep -q 'did not hold' "$T/out" && echo 0 || echo 1)

# a build a signal stopped is no result: the recipe's shell killed by
# SIGINT alone (make says "Interrupt" and exits 2), then a ^C to the
# whole process group as a terminal sends it (kbisect, make, the
# recipe); neither is stored, and each builds again when asked
sig=$T/signalled
mkdir -p "$sig"
cp "$tree/Kconfig" "$sig/Kconfig"
{
	printf 'olddefconfig:\n\t@true\n'
	printf 'bzImage:\n'
	printf '\t@if [ -e %s/selfkill ]; then kill -INT $$$$; fi\n' "$T"
	printf '\t@if [ -e %s/hang ]; then touch %s/hanging; sleep 30; fi\n' "$T" "$T"
	sed -n '/^bzImage:/,$p' "$tree/Makefile" | sed 1d
} >"$sig/Makefile"
cat >"$T/sig.yaml" <<EOF
name: cli-signal
source: { tree: $sig }
build: { jobs: 1 }
workload:
  command: { run: "true" }
EOF
touch "$T/selfkill"
run "$kb" build "$T/sig.yaml" --db "$T/sig.db"
check "a build whose job a signal killed is an error, not a failure" $([ $rc -eq 1 ] &&
	grep -q 'no result is recorded' "$T/err" && echo 0 || echo 1)
rm -f "$T/selfkill"
run "$kb" build "$T/sig.yaml" --db "$T/sig.db"
check "... and builds again when asked" $([ $rc -eq 0 ] &&
	has '^1 variant, 1 build: 1 built, 0 reused, 0 failed' && echo 0 || echo 1)
rm -rf "$XDG_CACHE_HOME/kbisect/builds" "$T/sig.db"
touch "$T/hang"
setsid "$kb" build "$T/sig.yaml" --db "$T/sig.db" >"$T/out" 2>"$T/err" &
kpid=$!
i=0
while [ ! -e "$T/hanging" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pgid=$(ps -o pgid= -p "$kpid" | tr -d ' ')
[ -n "$pgid" ] && kill -INT "-$pgid"
wait "$kpid"
rc=$?
rm -f "$T/hang"
check "a ^C during a build stores no result" $([ $rc -eq 130 ] && [ -e "$T/hanging" ] &&
	{ ! command -v sqlite3 >/dev/null 2>&1 ||
	  [ "$(sqlite3 "$T/sig.db" 'SELECT count(*) FROM builds' 2>/dev/null || echo 0)" = 0 ]; } &&
	echo 0 || echo 1)
run "$kb" build "$T/sig.yaml" --db "$T/sig.db"
check "... and the build runs again after it" $([ $rc -eq 0 ] &&
	has '^1 variant, 1 build: 1 built, 0 reused, 0 failed' && echo 0 || echo 1)

run "$kb" build "$T/nowhere.yaml" --db "$T/db"
check "a missing matrix is refused" $([ $rc -eq 1 ] &&
	grep -q "cannot open '.*nowhere.yaml'" "$T/err" && echo 0 || echo 1)

# a git source at a tag, checked out into the cache
git -C "$tree" init -q && git -C "$tree" add -A &&
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm one &&
	git -C "$tree" tag v1
matrix "$T/git.yaml" cli-git "" "  tree: $tree
  rev: v1"
run "$kb" build "$T/git.yaml" --db "$T/db"
check "builds a git revision from its checkout" $([ $rc -eq 0 ] &&
	has '^4 variants, 4 builds: 4 built, 0 reused, 0 failed' &&
	[ -f "$XDG_CACHE_HOME/kbisect/trees/$(git -C "$tree" rev-parse 'v1^{tree}')/Makefile" ] &&
	echo 0 || echo 1)
# a kernel.rev factor: each revision from its own tree, with its own keys
git -C "$tree" tag -d v1 >/dev/null
git -C "$tree" tag v1
echo two >"$tree/VERSION"
git -C "$tree" add VERSION &&
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm two &&
	git -C "$tree" tag v2
matrix "$T/revs.yaml" cli-revs "  kernel:
    rev: [v1, v2]"
run "$kb" build "$T/revs.yaml" --db "$T/db"
check "each kernel.rev is built from its own tree" $([ $rc -eq 0 ] &&
	has '^8 variants, 8 builds: 4 built, 4 reused, 0 failed' &&
	[ -f "$XDG_CACHE_HOME/kbisect/trees/$(git -C "$tree" rev-parse 'v2^{tree}')/VERSION" ] &&
	echo 0 || echo 1)
run "$kb" build "$T/revs.yaml" --db "$T/db" --json
check "... and names two trees" $([ $rc -eq 0 ] &&
	[ "$(python3 -c 'import json,sys; print(len({b["tree_id"] for b in json.load(open(sys.argv[1]))["builds"]}))' "$T/out")" = 2 ] &&
	echo 0 || echo 1)
echo dirt >>"$tree/Kconfig"
matrix "$T/dirty.yaml" cli-dirty ""
run "$kb" build "$T/dirty.yaml" --db "$T/db"
check "a dirty worktree without rev is refused" $([ $rc -eq 2 ] &&
	grep -q 'uncommitted changes' "$T/err" && echo 0 || echo 1)

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
