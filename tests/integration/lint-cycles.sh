#!/bin/sh
# tools/file-cycles, lint's check that the calls between files go one way,
# on planted objects: two files that call each other, and three in a
# circle, fail with the files and a symbol per call named; the same files
# calling one way pass; a header circle given as edges fails; and lint
# itself names a planted circle under a $BUILD of its own, and is quiet
# once it goes one way.
# Usage (from the top of the checkout): tests/integration/lint-cycles.sh KBISECT
# (KBISECT is not run: the check reads objects.)
set -u
CC=${CC:-cc}
T=$(mktemp -d /tmp/kb-lint-cycles-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

check() { # NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1)); echo "[       OK ] lint-cycles: $1"
	else
		fail=$((fail + 1)); echo "[  FAILED  ] lint-cycles: $1"
		echo "  output: $(head -c 1500 "$T/out")"
	fi
}
# compile NAME SOURCE: compile SOURCE into $T/NAME.o
compile() {
	printf '%s\n' "$2" >"$T/$1.c" &&
		$CC -c -o "$T/$1.o" "$T/$1.c" 2>"$T/out"
}
has() { grep -q -- "$1" "$T/out"; }

# a.c and b.c call each other
compile a 'int b_twice(int); int a_once(int x) { return x ? b_twice(x - 1) : 0; }' &&
	compile b 'int a_once(int); int b_twice(int x) { return a_once(x) * 2; }' ||
	{ echo "[  FAILED  ] lint-cycles: cannot compile with $CC"; cat "$T/out"; exit 1; }
tools/file-cycles -s "$T/" "$T/a.o" "$T/b.o" >"$T/out" 2>&1
rc=$?
check "two files that call each other fail" $([ $rc -eq 1 ]; echo $?)
check "the circle names both files and a symbol per call" \
	$(has "a.c -> b.c (b_twice) -> a.c (a_once)"; echo $?)

# the same two, b.c calling nothing back
compile b 'int b_twice(int x) { return x * 2; }'
tools/file-cycles -s "$T/" "$T/a.o" "$T/b.o" >"$T/out" 2>&1
rc=$?
check "calls that go one way pass, with nothing said" \
	$([ $rc -eq 0 ] && [ ! -s "$T/out" ]; echo $?)

# three in a circle, and a fourth beside it that only calls in
compile b 'int c_thrice(int); int b_twice(int x) { return c_thrice(x) * 2; }'
compile c 'int a_once(int); int c_thrice(int x) { return a_once(x) * 3; }'
compile d 'int a_once(int); int d_main(void) { return a_once(4); }'
tools/file-cycles -s "$T/" "$T/d.o" "$T/c.o" "$T/b.o" "$T/a.o" >"$T/out" 2>&1
rc=$?
check "three files in a circle fail" $([ $rc -eq 1 ]; echo $?)
check "the circle goes through the three in call order" \
	$(has "a.c -> b.c (b_twice) -> c.c (c_thrice) -> a.c (a_once)"; echo $?)
check "a file that only calls into the circle is not in it" \
	$(! has "d.c"; echo $?)
check "one line for one circle" $([ "$(wc -l <"$T/out")" -eq 1 ]; echo $?)

# d.c calls a.c, which calls b.c, which is not given: a chain, no circle
tools/file-cycles -s "$T/" "$T/d.o" "$T/a.o" >"$T/out" 2>&1
check "a chain of calls passes" $([ $? -eq 0 ]; echo $?)

# include edges from lint: x.h -> y.h -> x.h
printf 'lib/x.h lib/y.h #include\nlib/y.h lib/x.h #include\n' >"$T/edges"
tools/file-cycles -e "$T/edges" "$T/a.o" >"$T/out" 2>&1
rc=$?
check "headers that include each other fail" \
	$([ $rc -eq 1 ] && has "lib/x.h -> lib/y.h (#include) -> lib/x.h (#include)"; echo $?)

# lint itself, on a planted build folder holding lib/ objects that call
# each other (their sources are this tree's, so that none is skipped as
# the object of a removed file)
B=$T/build
mkdir -p "$B/lib" "$B/cmd"
compile b 'int a_once(int); int b_twice(int x) { return a_once(x) * 2; }'
cp "$T/a.o" "$B/lib/trend.o" && cp "$T/b.o" "$B/lib/why.o"
BUILD=$B tools/lint >"$T/out" 2>&1
rc=$?
check "lint fails on the planted circle" $([ $rc -ne 0 ]; echo $?)
check "lint names its files" \
	$(has "lint: files in a circle .*lib/trend.c -> lib/why.c (b_twice) -> lib/trend.c (a_once)"; echo $?)

compile b 'int b_twice(int x) { return x * 2; }'
cp "$T/b.o" "$B/lib/why.o"
BUILD=$B tools/lint >"$T/out" 2>&1
check "lint says nothing of the planted files once they call one way" \
	$(! has "files in a circle"; echo $?)

# a verb file that lends a function to other files: lint refuses it
mkdir -p "$B/cmd/kbisect"
compile v 'const int cmd_history_entry = 1; int cmd_history_helper(void) { return 2; }'
cp "$T/v.o" "$B/cmd/kbisect/history.o"
BUILD=$B tools/lint >"$T/out" 2>&1
rc=$?
check "lint fails on a verb file that defines more than its entry" \
	$([ $rc -ne 0 ] && has "cmd/kbisect/history.c defines 'cmd_history_helper' for other files"; echo $?)
compile v 'const int cmd_history_entry = 1;'
cp "$T/v.o" "$B/cmd/kbisect/history.o"
BUILD=$B tools/lint >"$T/out" 2>&1
check "lint says nothing of a verb file that defines its entry alone" \
	$(! has "cmd/kbisect/history.c defines"; echo $?)

echo "lint-cycles: $pass passed, $fail failed"
[ $fail -eq 0 ]
