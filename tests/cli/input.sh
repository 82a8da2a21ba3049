# Matrices and databases as input (issue 28, items 6, 7, 9-12): what is
# refused before anything runs or is written, and what is escaped when a
# database says it.  Sourced by tests/cli/run.sh (its run, check, has,
# json_ok, $KB, $MODEL and $T).

# ---- Unicode format characters: refused as control characters, escaped
# on output (lib/ycheck.h kb_ycheck_control()) -----------------------------
RLO=$(printf '\342\200\256') LSEP=$(printf '\342\200\250') PSEP=$(printf '\342\200\251')
printf 'name: "ab%scd"\nworkload: { fio: { rw: randread } }\n' "$RLO" >"$T/u-name.yaml"
run "$KB" plan "$T/u-name.yaml"
check "plan: U+202E in the name, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/u-name.yaml:1:7: name contains a control character (U+202E, a right-to-left override)" "$T/err" &&
	[ ! -s "$T/out" ]; echo $?)
printf 'workload: { fio: { rw: randread } }\nfactors:\n  sysctl: { vm.swappiness: ["1", "6%s0"] }\n' "$LSEP" >"$T/u-level.yaml"
run "$KB" plan "$T/u-level.yaml"
check "plan: U+2028 in a sysctl level, exit 2 with file:line:col" $([ $rc -eq 2 ] &&
	has "$T/u-level.yaml:3:34: a level contains a control character (U+2028, a line separator)" "$T/err"; echo $?)
printf 'workload: { fio: { rw: randread, bs: "{{bs}}" } }\nfactors:\n  workload: { bs: [4k, "8k%s"] }\n' "$(printf '\342\201\246')" >"$T/u-wl.yaml"
run "$KB" plan "$T/u-wl.yaml"
check "plan: U+2066 in a workload level, exit 2" $([ $rc -eq 2 ] &&
	has "$T/u-wl.yaml:3:24: a level contains a control character (U+2066, a bidirectional control)" "$T/err"; echo $?)
run "$KB" run "$T/u-name.yaml" --model "$MODEL" --db "$T/u.db"
check "run: the same refusal, no database" $([ $rc -eq 2 ] && [ ! -e "$T/u.db" ]; echo $?)
# a database says them (a forged one, or one written before the rule):
# results and history escape them as they escape ESC
printf 'name: bidi\nworkload: { fio: { rw: randread }, metric: read_iops }\nfactors: { kconfig: { A: [n, y] } }\nrepeat: { boots: 2 }\n' >"$T/u.yaml"
printf 'metric: read_iops\nbase: 1000\nnoise: { boot_cv: 0.02 }\n' >"$T/u.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/u.yaml" --model "$T/u.model.yaml" --db "$T/u.db" -q >/dev/null 2>&1
sqlite3 "$T/u.db" "update experiments set name = 'bi' || char(8238) || 'di'; update variants set label = 'A=y' || char(8233) || 'x' where idx = 1"
run "$KB" results 1 --db "$T/u.db"
check "results: U+202E and U+2029 from the database are escaped" $([ $rc -eq 0 ] &&
	has '^experiment 1 "bi\\u202edi"' "$T/out" && has '^  1  A=y\\u2029x ' "$T/out" &&
	! grep -q "$RLO\|$PSEP" "$T/out"; echo $?)
run "$KB" history --db "$T/u.db"
check "history: U+202E from the database is escaped" $([ $rc -eq 0 ] &&
	has ' bi\\u202edi$' "$T/out" && ! grep -q "$RLO" "$T/out"; echo $?)

# ---- export -o: a pipe, a FIFO or a device is written into, never
# replaced by a regular file; a killed export's temporary file is swept --
printf 'name: inj\nworkload: { command: { run: "bench {{p}}", regex: "([0-9.]+) ops" }, metric: ops }\nfactors:\n  workload: { p: ["-1", "=1+2", "@SUM(A1)", "+3", "-2+3", "-1.5e3", "-x"] }\n  sysctl: { vm.swappiness: ["1", "=cmd|x"] }\nrepeat: { boots: 1 }\n' >"$T/inj.yaml"
printf 'metric: ops\nbase: 1000\n' >"$T/inj.model.yaml"
KBISECT_MODEL_TIME_SCALE=0 "$KB" run "$T/inj.yaml" --model "$T/inj.model.yaml" --db "$T/inj.db" -q >/dev/null 2>&1
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.out" & reader=$!
run "$KB" export 1 --db "$T/inj.db" -o "$T/fifo"
wait "$reader"
check "export -o FIFO: written into, the FIFO stays one" $([ $rc -eq 0 ] && [ -p "$T/fifo" ] &&
	[ "$(wc -l <"$T/fifo.out")" -eq 15 ] && has "^experiment_id," "$T/fifo.out"; echo $?)
ln -s /dev/null "$T/null"
run "$KB" export 1 --db "$T/inj.db" -o "$T/null"
check "export -o a link to a device: the link and the device stay" $([ $rc -eq 0 ] && [ -L "$T/null" ] &&
	[ -c /dev/null ] && [ "$(ls "$T" | grep -c 'null.tmp-')" -eq 0 ]; echo $?)
# /dev/stdout as it is made (a link to /proc/self/fd/1), but ours: a
# build without the fix would replace the system's /dev/stdout as root
ln -s /proc/self/fd/1 "$T/stdout"
"$KB" export 1 --db "$T/inj.db" -o "$T/stdout" | cat >"$T/pipe.out"
check "export -o /dev/stdout into a pipe: the rows reach the pipe, the link stays" $([ "$(wc -l <"$T/pipe.out")" -eq 15 ] &&
	[ -L "$T/stdout" ]; echo $?)
run "$KB" export 1 --db "$T/inj.db" -o "$T"
check "export -o a folder: refused, exit 1, saying what it is" $([ $rc -eq 1 ] &&
	has "cannot write '$T': it is a folder, not a file, a pipe or a terminal" "$T/err"; echo $?)
# what a SIGKILLed export leaves goes the next time; another's does not
: >"$T/sweep.csv.tmp-Ab3xY9"; touch -d '2 hours ago' "$T/sweep.csv.tmp-Ab3xY9"
: >"$T/sweep.csv.tmp-fresh1"
run "$KB" export 1 --db "$T/inj.db" -o "$T/sweep.csv"
check "export -o FILE sweeps a stale FILE.tmp-XXXXXX of its own, not a fresh one" $([ $rc -eq 0 ] &&
	[ ! -e "$T/sweep.csv.tmp-Ab3xY9" ] && [ -e "$T/sweep.csv.tmp-fresh1" ] && [ -f "$T/sweep.csv" ]; echo $?)

# ---- CSV formula injection: a text cell a spreadsheet would run as a
# formula gets a leading ' (OWASP); plain numbers such as -1 stay --------
run "$KB" export 1 --db "$T/inj.db"
check "export: cells starting with = + - @ get a leading quote, numbers do not" $([ $rc -eq 0 ] &&
	has '^1,1,workload.p=-1 sysctl.vm.swappiness==cmd|x,-1,"'"'"'=cmd|x",' "$T/out" &&
	has ',"'"'"'=1+2",1,' "$T/out" && has ',"'"'"'@SUM(A1)",1,' "$T/out" &&
	has ',"'"'"'-2+3",1,' "$T/out" && has ',"'"'"'-x",1,' "$T/out" &&
	has ',+3,1,' "$T/out" && has ',-1.5e3,1,' "$T/out" &&
	! grep -q ',=\|,@\|,-2+3' "$T/out"; echo $?)
sqlite3 "$T/inj.db" "update boots set host = char(9) || '=HYPERLINK(1)' where id = 1; update variants set label = '+A' where idx = 6"
run "$KB" export 1 --db "$T/inj.db"
check "export: a tab or a sign in front of a host or a label from the database too" $([ $rc -eq 0 ] &&
	has ",\"'	=HYPERLINK(1)\"," "$T/out" && has "^1,6,\"'+A\"," "$T/out"; echo $?)
run "$KB" export 1 --db "$T/inj.db" --format json
check "export --format json keeps the text as it is" $([ $rc -eq 0 ] && has '"workload.p":"=1+2"' "$T/out"; echo $?)

# ---- hosts: a URI that runs a program here or names a key file is
# refused unless the matrix is trusted; plan says how each host is
# reached (lib/matrix_hosts.c) -------------------------------------------
printf '#!/bin/sh\ntouch "%s/ext-ran"\nexit 1\n' "$T" >"$T/prog"; chmod +x "$T/prog"
printf 'source: { kernel: bzImage }\nworkload: { command: { run: "true" } }\nhosts: ["test+ext:///default?command=%s"]\n' "$T/prog" >"$T/ext.yaml"
: >"$T/bzImage"
EXT_MSG="host URI 'test+ext:///default?command=$T/prog' is refused: the ext transport runs a program on this machine (its ?command=); a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1"
run "$KB" plan "$T/ext.yaml"
check "plan: the ext transport, exit 2 at the URI, the opt-in named" $([ $rc -eq 2 ] &&
	has "$T/ext.yaml:3:9: $EXT_MSG" "$T/err"; echo $?)
cp "$T/u.db" "$T/hosts.db"; sum0=$(sha256sum <"$T/hosts.db")
run "$KB" run "$T/ext.yaml" --db "$T/hosts.db"
check "run: the ext transport, exit 2, the program never ran, the database untouched" $([ $rc -eq 2 ] &&
	has "$EXT_MSG" "$T/err" && [ ! -e "$T/ext-ran" ] && [ "$(sha256sum <"$T/hosts.db")" = "$sum0" ]; echo $?)
run "$KB" submit "$T/ext.yaml" --socket "$T/none.sock"
check "submit: the same refusal before any daemon" $([ $rc -eq 2 ] && has "$EXT_MSG" "$T/err"; echo $?)
for p in "keyfile=/root/.ssh/id_rsa:a private key file" "pkipath=/tmp/pki:certificate folder" \
	"socket=/tmp/x.sock:a socket" "netcat=/tmp/nc:a program that the far side runs" \
	"command=/tmp/ssh:a program that this machine runs" "no_verify=1:turns off the check" \
	"so%63ket=/tmp/x.sock:'socket' names a socket"; do
	printf 'source: { kernel: bzImage }\nworkload: { command: { run: "true" } }\nhosts:\n  - { uri: "qemu+ssh://bench2/system?%s" }\n' "${p%%:*}" >"$T/param.yaml"
	run "$KB" plan "$T/param.yaml"
	check "plan: URI parameter ${p%%=*} refused at its line" $([ $rc -eq 2 ] &&
		has "$T/param.yaml:4:12: host URI 'qemu+ssh://bench2/system?" "$T/err" && has "${p#*:}" "$T/err"; echo $?)
done
printf 'source: { kernel: bzImage }\nworkload: { command: { run: "true" } }\nhosts:\n  - { uri: "qemu+ssh://root@bench2/system?mode=direct&no_tty=1", capacity: 2 }\n  - "qemu:///system"\n  - "xen+tls://bench3/system"\n' >"$T/hosts.yaml"
run "$KB" plan "$T/hosts.yaml"
check "plan says which hosts a run connects to and how" $([ $rc -eq 0 ] &&
	has "^host qemu+ssh://root@bench2/system?mode=direct&no_tty=1: bench2, by ssh (this machine runs ssh, the host nc or virt-ssh-helper), 2 boots at a time, files shipped to its pool 'kbisect'$" "$T/out" &&
	has "^host qemu:///system: this machine, by its libvirt socket$" "$T/out" &&
	has "^host xen+tls://bench3/system: bench3, by TLS, files shipped to its pool 'kbisect'$" "$T/out"; echo $?)
run "$KB" plan "$T/hosts.yaml" --json
check "plan --json: each host with its transport" $([ $rc -eq 0 ] &&
	python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]
assert [(x["host"], x["transport"], x["connected"]) for x in h] == [("bench2", "ssh", True), (None, "unix", True), ("bench3", "tls", True)], h' "$T/out"; echo $?)
run env KBISECT_TRUST_MATRIX=1 "$KB" plan "$T/ext.yaml"
check "KBISECT_TRUST_MATRIX=1: the matrix is trusted, and plan says a program runs" $([ $rc -eq 0 ] &&
	has "^host test+ext:///default?command=$T/prog: this machine, by a program this machine runs (the ext transport)$" "$T/out"; echo $?)

# ---- hosts: a whole machine (hosts[].machine) is parsed and checked; its
# commands run programs here, so only a trusted matrix names one, and
# kexec boots Linux only: a kexec machine in a matrix that boots Xen's
# dom0 is refused by every verb, exit 2, before anything runs or is
# stored (lib/matrix_sections.c) -----------------------------------------
printf 'source: { kernel: bzImage }\nfactors: { machine: { hypervisor: [none, xen] } }\nworkload: { command: { run: "true" } }\nhosts:\n  - machine:\n      name: box1\n      power: { cycle: ["%s"] }\n      console: ["%s"]\n      boot: { method: kexec, ssh: ["%s"] }\n      xen: /x\n' "$T/prog" "$T/prog" "$T/prog" >"$T/machine.yaml"
MACHINE_MSG="$T/machine.yaml:2:42: boot method kexec boots Linux only; Xen's dom0 needs grub-reboot or command"
run "$KB" plan "$T/machine.yaml"
check "plan: a machine host in an untrusted matrix, exit 2 at its key" $([ $rc -eq 2 ] &&
	has "$T/machine.yaml:5:5: machine host 'box1' is refused: its power, console and boot commands run programs on this machine; a matrix that names it must be trusted (KBISECT_TRUST_MATRIX=1" "$T/err" &&
	[ ! -s "$T/out" ]; echo $?)
run env KBISECT_TRUST_MATRIX=1 "$KB" plan "$T/machine.yaml"
check "plan: a trusted kexec machine with a dom0 factor, exit 2 at the factor's level" $([ $rc -eq 2 ] &&
	has "^kbisect: $MACHINE_MSG$" "$T/err" && [ ! -s "$T/out" ] && [ ! -e "$T/ext-ran" ]; echo $?)
run env KBISECT_TRUST_MATRIX=1 "$KB" plan "$T/machine.yaml" --model "$MODEL"
check "plan --model: the same refusal, not a model run in silence" $([ $rc -eq 2 ] && has "$MACHINE_MSG" "$T/err"; echo $?)
sum0=$(sha256sum <"$T/hosts.db")
run env KBISECT_TRUST_MATRIX=1 "$KB" run "$T/machine.yaml" --model "$MODEL" --db "$T/hosts.db"
check "run --model: a machine host, exit 2, nothing ran, the database untouched" $([ $rc -eq 2 ] &&
	has "$MACHINE_MSG" "$T/err" && [ ! -e "$T/ext-ran" ] && [ "$(sha256sum <"$T/hosts.db")" = "$sum0" ]; echo $?)
run env KBISECT_TRUST_MATRIX=1 "$KB" submit "$T/machine.yaml" --socket "$T/none.sock"
check "submit: a machine host, refused before any daemon" $([ $rc -eq 2 ] && has "$MACHINE_MSG" "$T/err"; echo $?)
run env KBISECT_TRUST_MATRIX=1 "$KB" bisect options --good tests/data/bisect/good.config --bad tests/data/bisect/bad.config \
	--model tests/data/bisect/seed000.model.yaml --matrix "$T/machine.yaml" --db "$T/machine.db"
check "bisect options --model --matrix: a machine host, exit 2, no database" $([ $rc -eq 2 ] &&
	has "$MACHINE_MSG" "$T/err" && [ ! -e "$T/machine.db" ]; echo $?)

# ---- a bad input never writes the database: what a real run needs is
# checked before the experiment is stored, and plan refuses it too ------
printf 'factors: { kconfig: { A: [n, y] } }\nworkload: { fio: { rw: randread } }\nhosts: ["test:///default"]\n' >"$T/nosrc.yaml"
NOSRC_MSG="$T/nosrc.yaml: variant 0 (A=n) needs a kernel built from source, and the matrix has no source.tree"
run "$KB" plan "$T/nosrc.yaml"
check "plan: no source at all, exit 2, as run refuses it" $([ $rc -eq 2 ] && has "$NOSRC_MSG" "$T/err" && [ ! -s "$T/out" ]; echo $?)
rows0=$(sqlite3 "$T/hosts.db" "select count(*) from experiments"); sum0=$(sha256sum <"$T/hosts.db")
run "$KB" run "$T/nosrc.yaml" --db "$T/hosts.db"
check "run: no source, exit 2 before the experiment is stored (the database byte for byte)" $([ $rc -eq 2 ] &&
	has "$NOSRC_MSG" "$T/err" && [ "$(sha256sum <"$T/hosts.db")" = "$sum0" ] &&
	[ "$(sqlite3 "$T/hosts.db" "select count(*) from experiments")" = "$rows0" ]; echo $?)
run "$KB" submit "$T/nosrc.yaml" --socket "$T/none.sock"
check "submit: no source, refused before any daemon" $([ $rc -eq 2 ] && has "$NOSRC_MSG" "$T/err"; echo $?)
run "$KB" plan "$T/nosrc.yaml" --model "$MODEL"
check "plan --model: the model needs no source" $([ $rc -eq 0 ] && has "^2 variants" "$T/out" && ! has "^host " "$T/out"; echo $?)
sed 's|^factors|source: { tree: /nonexistent/linx }\nfactors|' "$T/nosrc.yaml" >"$T/typo.yaml"
run "$KB" plan "$T/typo.yaml"
check "plan: a mistyped source.tree, exit 2 (not a note)" $([ $rc -eq 2 ] &&
	has "$T/typo.yaml: source.tree '/nonexistent/linx' does not exist: a real run builds kernels from it" "$T/err"; echo $?)
run "$KB" run "$T/typo.yaml" --db "$T/hosts.db"
check "run: a mistyped source.tree, exit 2, the database byte for byte" $([ $rc -eq 2 ] &&
	[ "$(sha256sum <"$T/hosts.db")" = "$sum0" ]; echo $?)
