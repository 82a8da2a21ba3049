# kbisect — one non-recursive Makefile.
#
#   make            build ./kbisect
#   make deps       install the Debian packages the project needs (idempotent)
#   make test       deps + build + every unit test (cmocka), with a summary
#   make check      the unit tests under AddressSanitizer and UBSan
#   make fuzz       build the libFuzzer harnesses (clang) into build/fuzz/
#   make fuzz-run   run each harness FUZZ_SECONDS (600) and keep its finds
#   make bench      build and run the benchmarks, printing figures (and
#                   tests/bench/*.sh: the daemon's stress run, ~1 min;
#                   the read verbs at 100k and 1M samples, ~30 s)
#   make e2e        end-to-end checks with real kernel builds (slow)
#   make xen-e2e    seed 000 with kbisect on the Xen lab (slower still)
#   make seeds      the seeds' questions on the Xen lab, twice (hours)
#   make xen-lab    start a Xen host under QEMU in build/xen-lab (prints
#                   its URI; docs/xen-lab.md; stop: tools/xen-lab stop)
#   make lint       house rules that the compiler does not check, and
#                   that each header of lib/store/ compiles alone
#   make format     clang-format every C file
#
# Variables: CC, CFLAGS, BUILD (object folder), SANITIZE=1, V=1.

CC ?= cc
BUILD ?= build
# lib/ and its folders (docs/internals.md): headers are named by their
# file name alone, which lint keeps unique across the folders.
LIB_DIRS := lib lib/util lib/store lib/exec
LIB_INC := $(LIB_DIRS:%=-I%)
PKG_CONFIG ?= pkg-config

PKGS := yaml-0.1 sqlite3 json-c libxml-2.0 libvirt libgit2
TEST_PKGS := cmocka

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) \
	$(LIB_INC) -I$(BUILD)/gen $(shell $(PKG_CONFIG) --cflags $(PKGS)) -MMD -MP
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm

ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

ifneq ($(V),1)
Q := @
endif

LIB_SRC := $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/migrations.o
CMD_SRC := $(sort $(wildcard cmd/kbisect/*.c))
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/%.o)
KBISECTD_SRC := $(sort $(wildcard cmd/kbisectd/*.c))
KBISECTD_OBJ := $(KBISECTD_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/*.c))
TESTS := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
MIGRATIONS := $(sort $(wildcard db/[0-9][0-9][0-9][0-9]-*.sql))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))

.PHONY: all deps test test-run check fuzz fuzz-run bench lint format clean demo demo-run e2e
all: kbisect kbisectd

kbisect $(BUILD)/bin/kbisect: $(CMD_OBJ) $(BUILD)/libkb.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libkb.a $(LIBS)

# The daemon: cmd/kbisectd/*.c with the same library (docs/daemon.md).
kbisectd $(BUILD)/bin/kbisectd: $(KBISECTD_OBJ) $(BUILD)/libkb.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(KBISECTD_OBJ) $(BUILD)/libkb.a $(LIBS)

$(BUILD)/libkb.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The verbs' table: every `const struct cmd cmd_VERB_entry` of
# cmd/kbisect/*.c, so that adding a verb touches its file alone.
$(BUILD)/gen/verbs.h: $(CMD_SRC)
	@mkdir -p $(@D)
	$(Q)sed -n 's/^const struct cmd \(cmd_[a-z0-9_]*_entry\) = {.*/KB_VERB(\1)/p' \
		$(CMD_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/cmd/kbisect/main.o: $(BUILD)/gen/verbs.h

# Migrations are compiled in: db/*.sql become one C array.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(WARN) -O2 -o $@ $<

$(BUILD)/gen/migrations.c: $(MIGRATIONS) $(BUILD)/tools/embed
	@mkdir -p $(@D)
	$(Q)$(BUILD)/tools/embed $(MIGRATIONS) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/migrations.o: $(BUILD)/gen/migrations.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libkb.a
	@mkdir -p $(@D)
	@echo "  TEST    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS)) \
		-Itests/unit -o $@ $< $(BUILD)/libkb.a $(LDFLAGS) $(LIBS) \
		$(shell $(PKG_CONFIG) --libs $(TEST_PKGS))

deps:
	@tools/deps

test: deps
	$(Q)$(MAKE) --no-print-directory test-run

test-run: kbisect kbisectd headers $(TESTS)
	@BUILD=$(BUILD) tools/lint
	@tools/run-tests $(TESTS)
	@tests/cli/run.sh ./kbisect
	@for t in $(sort $(wildcard tests/integration/*.sh)); do \
		echo "== $$t"; $$t ./kbisect || exit 1; done

# A Xen host with libvirtd under QEMU's emulation, started by hand
# (docs/xen-lab.md); `tools/xen-lab stop build/xen-lab` ends it.
.PHONY: xen-lab
xen-lab:
	@tools/xen-lab start build/xen-lab

# Real kernel builds and boots: too slow for every test run.
e2e: deps
	$(Q)$(MAKE) --no-print-directory kbisect
	@for t in $(sort $(wildcard tests/e2e/*.sh)); do \
		echo "== $$t"; $$t ./kbisect || exit 1; done

# Seed 000 for real on the Xen lab: four kernels built, 36 boots in a Xen
# host under QEMU and the boots why adds (docs/xen-lab.md; 26 min with the
# kernels built, ~1 h cold): too slow for e2e.
.PHONY: xen-e2e
xen-e2e: deps
	$(Q)$(MAKE) --no-print-directory kbisect
	@for t in $(sort $(wildcard tests/xen-e2e/*.sh)); do \
		echo "== $$t"; $$t ./kbisect || exit 1; done

.PHONY: seeds
seeds: deps
	$(Q)$(MAKE) --no-print-directory kbisect
	@tests/seeds/xen-lab.sh ./kbisect

# The unit tests and the command-line checks, built with ASan and UBSan.
check: deps
	$(Q)$(MAKE) --no-print-directory BUILD=build/san SANITIZE=1 \
		build/san/bin/kbisect build/san/bin/kbisectd \
		$(TESTS:$(BUILD)/%=build/san/%)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tools/run-tests $(TESTS:$(BUILD)/%=build/san/%)
	@ASAN_OPTIONS=detect_leaks=1 tests/cli/run.sh build/san/bin/kbisect

FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 $(LIB_INC) \
	-fsanitize=fuzzer,address,undefined $(shell $(PKG_CONFIG) --cflags $(PKGS))
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_SRC) $(BUILD)/gen/migrations.c
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(BUILD)/gen/migrations.c $(LIBS)

# Each harness for FUZZ_SECONDS (default 10 minutes) under ASan and UBSan,
# one after another (`make -j2 fuzz-run`: two at a time; `make
# fuzz-run-matrix`: one); the new inputs that add coverage are merged into
# tests/fuzz/corpus/<harness>/, and any finding stops with its input in
# $(BUILD)/fuzz-run/<harness>/artifacts/ (tests/fuzz/README.md).
FUZZ_SECONDS ?= 600
FUZZ_RUNS := $(FUZZ_SRC:tests/fuzz/%.c=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz-run: $(FUZZ_RUNS)

$(FUZZ_RUNS): fuzz-run-%: $(BUILD)/fuzz/%
	@tests/fuzz/run.sh $< $* $(FUZZ_SECONDS) $(BUILD)/fuzz-run/$*

bench: kbisect kbisectd $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
	@for b in $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%); do $$b || exit 1; done
	@for s in $(sort $(wildcard tests/bench/*.sh)); do \
		echo "== $$s"; $$s ./kbisect || exit 1; done

$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libkb.a
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libkb.a $(LDFLAGS) $(LIBS)

# The main job, end to end, for real: kconfig-matrix/demo-tcg.yaml's four
# tiny kernels built, booted under QEMU TCG on a private libvirtd and
# measured (tools/demo, docs/demo.md; ~8 min the first time).
DEMO_DB ?= build/demo/kbisect.db
demo: deps
	$(Q)$(MAKE) --no-print-directory demo-run

demo-run: kbisect
	@tools/demo ./kbisect $(DEMO_DB)

# tools/lint reads the objects for the calls between files (nm): built first.
lint: headers $(LIB_OBJ) $(CMD_OBJ) $(KBISECTD_OBJ)
	@BUILD=$(BUILD) tools/lint

# Each header of lib/store/ compiles alone (lib/store/store.h): code
# includes only the concern headers it needs.  A stamp per header.
STORE_HDR := $(sort $(wildcard lib/store/*.h))
.PHONY: headers
headers: $(STORE_HDR:%=$(BUILD)/hdr/%.ok)

$(BUILD)/hdr/%.h.ok: %.h
	@mkdir -p $(@D)
	@echo "  HDR     $<"
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -MMD -MP -MT $@ \
		-MF $(@:.ok=.d) -fsyntax-only -x c $< && touch $@

format:
	clang-format -i $(LIB_DIRS:%=%/*.[ch]) cmd/kbisect/*.[ch] cmd/kbisectd/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c

clean:
	rm -rf build kbisect

# Install (docs/guide.md): `make install`, or for a package
# `make install PREFIX=/usr DESTDIR=/tmp/pkg`.  The programs, their man
# pages, the guest files the real executor reads at run time (found in
# PREFIX/share/kbisect/guests, or KBISECT_GUESTS), the docs laid out
# as in this tree so that their links hold, and the unit for kbisectd.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MAN1DIR ?= $(PREFIX)/share/man/man1
DATADIR ?= $(PREFIX)/share/kbisect
DOCDIR ?= $(PREFIX)/share/doc/kbisect
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install
INST_DOCS := $(sort $(wildcard docs/*.md))
INST_EXAMPLES := $(sort $(wildcard kconfig-matrix/*.yaml kconfig-matrix/*.md))
INST_CONFIGS := $(sort $(wildcard kconfig-matrix/configs/*))
INST_DB := db/README.md $(MIGRATIONS)

.PHONY: install uninstall
install: kbisect kbisectd
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) \
		$(DESTDIR)$(DATADIR)/guests $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(DOCDIR)/kconfig-matrix/configs \
		$(DESTDIR)$(DOCDIR)/db $(DESTDIR)$(UNITDIR)
	$(INSTALL) -m 755 kbisect kbisectd $(DESTDIR)$(BINDIR)/
	for m in kbisect.1 kbisectd.1; do \
		sed -e 's|/usr/local|$(PREFIX)|g' -e 's|/usr/\\:local|$(PREFIX)|g' \
			docs/$$m > $(DESTDIR)$(MAN1DIR)/$$m && \
		chmod 644 $(DESTDIR)$(MAN1DIR)/$$m || exit 1; done
	$(INSTALL) -m 644 guests/init guests/tiny-x86_64.fragment \
		guests/README.md $(DESTDIR)$(DATADIR)/guests/
	$(INSTALL) -m 644 README.md $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 644 $(INST_DOCS) $(DESTDIR)$(DOCDIR)/docs/
	$(INSTALL) -m 644 $(INST_EXAMPLES) $(DESTDIR)$(DOCDIR)/kconfig-matrix/
	$(INSTALL) -m 644 $(INST_CONFIGS) \
		$(DESTDIR)$(DOCDIR)/kconfig-matrix/configs/
	$(INSTALL) -m 644 $(INST_DB) $(DESTDIR)$(DOCDIR)/db/
	sed 's|/usr/local|$(PREFIX)|g' dist/kbisectd.service \
		> $(DESTDIR)$(UNITDIR)/kbisectd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/kbisectd.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kbisect $(DESTDIR)$(BINDIR)/kbisectd \
		$(DESTDIR)$(MAN1DIR)/kbisect.1 $(DESTDIR)$(MAN1DIR)/kbisectd.1 \
		$(DESTDIR)$(UNITDIR)/kbisectd.service
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
