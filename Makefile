# wperf-bench: build, test and install.
#
#   make deps     install the Debian packages needed to build, test and run every scenario
#                 (idempotent): make build-deps's, then the tests' and the workloads'
#   make build-deps  only those needed to build the program and its Debian package
#   make          build everything into $(BUILD)/
#   make demo     run the paper's Figure 1 scenario, start to verdict
#   make check-perf  the performance gate over the scenarios tagged ci: against baselines/, or
#                 CHECK_PERF_BASE=REF: base commit REF against the work tree, run in turns
#   make validation  run the synthetic suite and its fixes; writes docs/validation.md
#   make case-studies  run the real servers and their fixes; writes docs/case-studies.md's table
#   make test     run the unit and end-to-end tests (cmocka), the include and size rules,
#                 the shell completion and the man pages
#   make trials   the gate's trials: planted changes judged over many recorded runs a side
#                 (about 3 minutes; .ci/run runs them after make test)
#   make test-core  the tests of libwperf alone (no clang BPF target, bpftool or BPF)
#   make asan     the same tests built with AddressSanitizer and UBSan
#   make valgrind the analyzer under valgrind on a recorded trace
#   make bench    print the recorder's overhead (storm, ZooKeeper, memcached), each of its
#                 programs' cost, whether it keeps up with 1M events/s, and the analyzer's speed
#   make fuzz     run every reader's libFuzzer target (FUZZ_SECONDS each, FUZZ_TARGETS to pick)
#   make man      the man pages, from the commands' tables, into $(BUILD)/man/
#   make completion  bash and zsh completion, from the same tables, into $(BUILD)/completion/
#   make install  PREFIX=/usr/local LIBDIR=PREFIX/lib DESTDIR=
#   make deb      the Debian packages wperf-bench and libwperf-dev, built by dpkg-buildpackage
#                 from a copy of the tree, into $(BUILD)/, checked by lintian
#   make clean

BUILD ?= build
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

PKGS := libbpf libelf zlib libzstd libdw json-c yaml-0.1 libgit2 libcurl libpcre2-8
TEST_PKGS := cmocka

CFLAGS ?= -O2 -g
# What every C file is built with, whatever the optimization and the sanitizers.
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -I$(BUILD)
# Each object and test lists the headers it read (NAME.d beside it): a header
# touched rebuilds what includes it, and nothing else.
DEPFLAGS = -MMD -MP
# CPPFLAGS from the environment too: dpkg-buildflags puts _FORTIFY_SOURCE there.
CFLAGS += $(BASE_CFLAGS) $(CPPFLAGS)
ifdef SANITIZE
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
# -liberty: libiberty-dev's static demangler (it has no pkg-config file).
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liberty -lpthread -lm
TEST_LDLIBS := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

CORE_SRCS := $(wildcard core/*/*.c)
# Programs that use libwperf through its public interface alone (include/wperf),
# as another project would: built by make test, and against the installed
# package by tests/e2e/test_install.c.
EXAMPLE_BINS := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
PUBLIC_HEADERS := $(wildcard include/wperf/*.h)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
LIBWPERF := $(BUILD)/libwperf.a

VMLINUX_H := $(BUILD)/bpf/vmlinux.h
RECORDER_SKEL := $(BUILD)/bpf/recorder.skel.h

# Each command's page (harness/cli/pages/NAME.txt: its summary, synopsis,
# operands and prose) becomes its struct cli_help in one generated file.
CLI_PAGES := $(wildcard harness/cli/pages/*.txt)
CLI_PAGES_C := $(BUILD)/gen/cli_pages.c
HARNESS_SRCS := $(wildcard harness/*/*.c)
HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(BUILD)/%.o) $(CLI_PAGES_C:.c=.o)
# Everything of the program but main, for the harness's unit tests.
LIBHARNESS := $(BUILD)/libharness.a
WPERF_BENCH := $(BUILD)/wperf-bench

SYNTH_SRCS := $(wildcard synthetic/*.c)
SYNTH_BINS := $(SYNTH_SRCS:%.c=$(BUILD)/%)

# The load generators of the real-workload scenarios: scenarios/NAME/*.c, each
# built into $(BUILD)/loads/NAME/ with the client library of its service.
LOAD_SRCS := $(wildcard scenarios/*/*.c)
LOAD_BINS := $(patsubst scenarios/%.c,$(BUILD)/loads/%,$(LOAD_SRCS))
LOAD_LIBS_zookeeper := -lzookeeper_mt
LOAD_LIBS_memcached := $(shell pkg-config --libs libmemcached 2>/dev/null)
LOAD_LIBS_sqlite := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
E2E_SRCS := $(wildcard tests/e2e/test_*.c)
E2E_BINS := $(E2E_SRCS:%.c=$(BUILD)/%)
# The programs that record the machine (e2e_require_bpf) run one at a time;
# the others, a job per CPU, before them. Those of them that assert nothing
# of what else the machine does (their header says "make test runs it
# beside") run one at a time beside the others.
RECORDING_BINS := $(patsubst %.c,$(BUILD)/%,$(shell grep -l 'e2e_require_bpf' $(E2E_SRCS) /dev/null))
BESIDE_BINS := $(patsubst %.c,$(BUILD)/%,$(shell grep -l 'make test runs it beside' $(E2E_SRCS) /dev/null))
ALONE_BINS := $(filter-out $(BESIDE_BINS),$(RECORDING_BINS))
# The gate's trials (tests/trials): each judges planted changes the way a pull
# request is judged, and a vertex new to the bottleneck can fail only from 8
# recorded runs a side, so each takes half a minute to a minute. They record,
# one at a time, alone: make trials, which .ci/run runs after make test.
TRIAL_SRCS := $(wildcard tests/trials/test_*.c)
TRIAL_BINS := $(TRIAL_SRCS:%.c=$(BUILD)/%)
TEST_HELPERS := $(wildcard tests/lib/*.c)
TEST_HELPER_OBJS := $(TEST_HELPERS:%.c=$(BUILD)/%.o)
# The tests of the library alone (they include nothing of harness/ and no
# helper but trace_builder) link only libwperf: they build and run without
# clang's BPF target or bpftool (make test-core).
CORE_TEST_HELPER_OBJS := $(BUILD)/tests/lib/trace_builder.o
HARNESS_TEST_SRCS := $(shell grep -l 'harness/\|tests/lib/e2e.h\|tests/lib/forge.h\|fuzz_readers' \
	$(UNIT_SRCS) $(E2E_SRCS) /dev/null)
CORE_TEST_BINS := $(patsubst %.c,$(BUILD)/%,$(filter-out $(HARNESS_TEST_SRCS),$(UNIT_SRCS) $(E2E_SRCS)))

BENCH_SRCS := $(filter-out %.bpf.c,$(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)
# The benchmarks' own BPF programs (bench/NAME.bpf.c), for bench/NAME.c.
BENCH_SKELS := $(patsubst bench/%.bpf.c,$(BUILD)/bench/%.skel.h,$(wildcard bench/*.bpf.c))

# libFuzzer targets, one per reader (fuzz/NAME.c), built with clang into
# $(FUZZ_BUILD)/NAME over the library, the harness and tests/lib/fuzz_readers.c
# built again for the fuzzer, with ASan and UBSan.
FUZZ_SRCS := $(wildcard fuzz/*.c)
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_CFLAGS := -g -O1 $(BASE_CFLAGS) -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
# The harness as the readers' targets link it: everything but main and the one
# object that needs the BPF skeleton (an archive, so a target pulls in only
# what it calls).
FUZZ_HARNESS_SRCS := $(filter-out harness/cli/main.c harness/record/bpf_recorder.c,$(HARNESS_SRCS))
FUZZ_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(CORE_SRCS) $(FUZZ_HARNESS_SRCS) $(CLI_PAGES_C) \
	tests/lib/fuzz_readers.c)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_SRCS:fuzz/%.c=%)

.PHONY: all deps build-deps deb demo check-perf validation case-studies test trials test-build test-core test-unit test-e2e check-bpf-arm64 asan valgrind bench fuzz man completion install clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(LIBWPERF) $(WPERF_BENCH) $(SYNTH_BINS) $(LOAD_BINS)

# ---- packages ----
deps:
	@bash ci/install-deps.sh

build-deps:
	@bash ci/install-build-deps.sh

# ---- the BPF side ----
$(VMLINUX_H):
	@mkdir -p $(@D)
	@test -r /sys/kernel/btf/vmlinux || { echo "error: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); wperf-bench needs a kernel built with CONFIG_DEBUG_INFO_BTF=y" >&2; exit 1; }
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -Wall -Werror -I. -I/usr/include/$(shell uname -m)-linux-gnu

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/*.h $(VMLINUX_H)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -D__TARGET_ARCH_$(ARCH) -I$(BUILD)/bpf -c $< -o $@
	llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/bench/%.bpf.o: bench/%.bpf.c bpf/*.h $(VMLINUX_H)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -D__TARGET_ARCH_$(ARCH) -I$(BUILD)/bpf -c $< -o $@
	llvm-strip -g $@ 2>/dev/null || true

# The recorder compiled for arm64 on an x86 machine, against this kernel's types
# with arm64's registers (bpf/arm64_vmlinux.sh): a check that it reads them
# only through PT_REGS_*. Compiled, never loaded; part of `make test`.
$(BUILD)/bpf-arm64/vmlinux.h: $(VMLINUX_H) bpf/arm64_vmlinux.sh
	@mkdir -p $(@D)
	sh bpf/arm64_vmlinux.sh $< > $@

$(BUILD)/bpf-arm64/recorder.bpf.o: bpf/recorder.bpf.c bpf/*.h $(BUILD)/bpf-arm64/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -D__TARGET_ARCH_arm64 -I$(BUILD)/bpf-arm64 -c $< -o $@

check-bpf-arm64: $(if $(filter x86,$(ARCH)),$(BUILD)/bpf-arm64/recorder.bpf.o)

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

# ---- libwperf ----
$(BUILD)/core/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIBWPERF): $(CORE_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

# ---- the wperf-bench program ----
$(BUILD)/harness/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(CLI_PAGES_C): harness/cli/pages/pages.awk $(CLI_PAGES)
	@mkdir -p $(@D)
	awk -f harness/cli/pages/pages.awk $(CLI_PAGES) > $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# The one object that includes the BPF skeleton: only it needs clang and bpftool.
$(BUILD)/harness/record/bpf_recorder.o: $(RECORDER_SKEL)

# BUILD/source-tree (the tree's path) marks the folder as make's: a wperf-bench
# that finds it beside itself takes its folder as ${BUILD_DIR} by default.
$(WPERF_BENCH): $(HARNESS_OBJS) $(LIBWPERF)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
	echo '$(CURDIR)' > $(@D)/source-tree

$(LIBHARNESS): $(filter-out $(BUILD)/harness/cli/main.o,$(HARNESS_OBJS))
	rm -f $@ && $(AR) rcs $@ $^

# ---- synthetic programs: one file each; no tail calls, so that stacks show every function ----
$(BUILD)/synthetic/%: synthetic/%.c synthetic/*.h include/*.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -Iinclude $< -lpthread -lm -o $@

# ---- load generators: scenarios/NAME/X.c -> $(BUILD)/loads/NAME/X ----
.SECONDEXPANSION:
$(BUILD)/loads/%: scenarios/%.c scenarios/loadgen.h $$(wildcard scenarios/$$(*D)/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer -Iscenarios -Iscenarios/$(*D) $< $(LOAD_LIBS_$(*D)) -lpthread -lm -o $@

# ---- tests ----
$(BUILD)/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/%.c $(LIBHARNESS) $(LIBWPERF) $(TEST_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $< $(TEST_HELPER_OBJS) $(LIBHARNESS) $(LIBWPERF) $(TEST_LDLIBS) $(LDLIBS) -o $@

$(CORE_TEST_BINS): $(BUILD)/tests/%: tests/%.c $(LIBWPERF) $(CORE_TEST_HELPER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $< $(CORE_TEST_HELPER_OBJS) $(LIBWPERF) $(TEST_LDLIBS) $(LDLIBS) -o $@

test-core: $(CORE_TEST_BINS)
	@bash tests/run.sh $(CORE_TEST_BINS)

test-unit: $(UNIT_BINS)
	@bash tests/run.sh -j $(JOBS) $(UNIT_BINS)

test-e2e: all $(E2E_BINS)
	@WPERF_BUILD=$(BUILD) bash tests/run.sh -j $(JOBS) $(filter-out $(RECORDING_BINS),$(E2E_BINS)) \
		--beside $(BESIDE_BINS) --alone $(ALONE_BINS)

# What the suite needs (and the trials, so that a change that breaks one
# fails to build here), built with a job per CPU; then the checks of the
# source (the slowest, calls.sh, first) and the tests that do not record run a
# job per CPU, and those that record one at a time, as they want the machine
# to themselves.
TEST_BUILD := all man completion $(UNIT_BINS) $(E2E_BINS) $(TRIAL_BINS) $(EXAMPLE_BINS) check-bpf-arm64
JOBS ?= $(shell nproc)
SOURCE_CHECKS := tests/calls.sh tests/completion.sh tests/layers.sh tests/pages.sh tests/sizes.sh

test-build: $(TEST_BUILD)

test:
	@$(MAKE) --no-print-directory -j$(JOBS) test-build
	@WPERF_BUILD=$(BUILD) bash tests/run.sh -j $(JOBS) $(SOURCE_CHECKS) $(UNIT_BINS) \
		$(filter-out $(RECORDING_BINS),$(E2E_BINS)) --beside $(BESIDE_BINS) --alone $(ALONE_BINS)

trials:
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TRIAL_BINS)
	@WPERF_BUILD=$(BUILD) bash tests/run.sh --alone $(TRIAL_BINS)

# The suite, not the trials: they run the same code as the suite's runs, many
# times over, and would add 4 minutes to CI under the sanitizers.
asan:
	$(MAKE) BUILD=build/asan SANITIZE=1 test

# The analyzer under valgrind, on the recorded trace in tests/data, every
# format, and the differential flame graph of two; then the gate (compare, baseline update) on the recorded run sets.
VALGRIND := valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite
valgrind: $(WPERF_BENCH)
	@for f in text json dot folded perfetto; do \
		$(VALGRIND) $(WPERF_BENCH) report -j 2 -f $$f -o /dev/null tests/data/fig1.trace || exit 1; \
	done; echo "valgrind: the analyzer is clean on tests/data/fig1.trace (text json dot folded perfetto)"
	@$(VALGRIND) $(WPERF_BENCH) diff --flame -o /dev/null tests/data/fig1.trace \
		tests/data/fig1-thread.trace && \
		echo "valgrind: diff --flame is clean on tests/data/fig1.trace against fig1-thread.trace"
	@tmp=$$(mktemp -d) && cp -r tests/data/results/fig1-worse $$tmp/ && \
		$(VALGRIND) $(WPERF_BENCH) compare --baseline baselines/synthetic-fig1.yaml \
			--junit $$tmp/junit.xml $$tmp/fig1-worse >/dev/null; rc=$$?; \
		[ $$rc -eq 1 ] && $(VALGRIND) $(WPERF_BENCH) baseline update \
			--baseline $$tmp/b.yaml $$tmp/fig1-worse >/dev/null; rc2=$$?; \
		rm -rf $$tmp; [ $$rc -eq 1 ] && [ $$rc2 -eq 0 ] || { echo "valgrind: compare exit $$rc, baseline update exit $$rc2" >&2; exit 1; }; \
		echo "valgrind: compare and baseline update are clean on tests/data/results/fig1-worse"

# ---- the main job on its embedded default: the paper's Figure 1 ----
# scenarios/synthetic-fig1.yaml: B does 5 ms of work, then writes 4 MiB
# (O_DIRECT: waiting for the device, not copying) and syncs it. Five runs are
# recorded and analyzed, then judged against baselines/synthetic-fig1.yaml.
DEMO_DIR ?= results/demo
demo: all
	@rm -rf $(DEMO_DIR)
	$(WPERF_BENCH) run --gate --results $(DEMO_DIR) scenarios/synthetic-fig1.yaml

# ---- the performance gate: every scenario tagged ci (wperf-bench check-perf --help) ----
# CHECK_PERF_TAG=nightly: the real workloads and the other synthetic scenarios instead.
# CHECK_PERF_BASE=REF: judge the work tree against commit REF, run in turns on
# this machine (what a pull request gets); empty: against baselines/.
CHECK_PERF_DIR ?= $(BUILD)/check-perf
CHECK_PERF_TAG ?= ci
CHECK_PERF_BASE ?=
CHECK_PERF_ARGS ?=
check-perf: all
	$(WPERF_BENCH) check-perf --tag $(CHECK_PERF_TAG) --results $(CHECK_PERF_DIR) \
		--var BUILD_DIR=$(BUILD) $(if $(CHECK_PERF_BASE),--base $(CHECK_PERF_BASE)) \
		$(CHECK_PERF_ARGS)

# ---- the synthetic suite, run and written up in docs/validation.md ----
validation: all
	@WPERF_BENCH=$(WPERF_BENCH) bash bench/validation.sh $(BUILD)/validation

# ---- the real servers with a fix, run and written up in docs/case-studies.md ----
case-studies: all
	@WPERF_BENCH=$(WPERF_BENCH) bash bench/case_studies.sh $(BUILD)/case-studies

# ---- benchmarks ----
$(BUILD)/bench/%: bench/%.c $(LIBHARNESS) $(LIBWPERF) $(BENCH_SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBHARNESS) $(LIBWPERF) $(LDLIBS) -o $@

# The gate simulator is its command (bench/gate_sim.c) and its core
# (bench/gate_sim/*.c), apart to keep each file small.
GATE_SIM_SRCS := $(wildcard bench/gate_sim/*.c)
$(BUILD)/bench/gate_sim: bench/gate_sim.c $(GATE_SIM_SRCS) bench/gate_sim/*.h $(LIBHARNESS) $(LIBWPERF)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(GATE_SIM_SRCS) $(LIBHARNESS) $(LIBWPERF) $(LDLIBS) -o $@

# Its test runs it on a corpus it writes.
$(BUILD)/tests/e2e/test_gate_sim: $(BUILD)/bench/gate_sim

bench: all $(BENCH_BINS)
	@WPERF_BUILD=$(BUILD) bash bench/run.sh
	@WPERF_BUILD=$(BUILD) bash bench/programs.sh
	@WPERF_BUILD=$(BUILD) bash bench/sustained.sh
	@WPERF_BUILD=$(BUILD) bash bench/gate_rates.sh
	@WPERF_BUILD=$(BUILD) bash bench/workloads.sh
	@WPERF_BUILD=$(BUILD) bash bench/analysis.sh

# ---- fuzzing: docs/fuzzing.md ----
$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/libfuzz.a: $(FUZZ_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BUILD)/%: fuzz/%.c fuzz/*.h $(FUZZ_BUILD)/libfuzz.a
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_BUILD)/libfuzz.a $(LDLIBS) -o $@

fuzz: $(FUZZ_BINS)
	@bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- man pages and shell completion, written by the program from its option tables ----
MAN_DIR := $(BUILD)/man
COMPLETION_DIR := $(BUILD)/completion
man: $(WPERF_BENCH)
	@mkdir -p $(MAN_DIR)
	$(WPERF_BENCH) help --man > $(MAN_DIR)/wperf-bench.1
	for c in $$($(WPERF_BENCH) help --list); do \
		$(WPERF_BENCH) help --man $$c > $(MAN_DIR)/wperf-bench-$$c.1 || exit 1; done

completion: $(WPERF_BENCH)
	@mkdir -p $(COMPLETION_DIR)
	$(WPERF_BENCH) help --completion bash > $(COMPLETION_DIR)/wperf-bench
	$(WPERF_BENCH) help --completion zsh > $(COMPLETION_DIR)/_wperf-bench

$(BUILD)/examples/%: examples/%.c $(LIBWPERF) $(PUBLIC_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -I. -I$(BUILD),$(CFLAGS)) -Iinclude $(LDFLAGS) $< $(LIBWPERF) $(LDLIBS) -o $@

# ---- install ----
# libwperf's public interface is include/wperf/ (wperf.h and error.h), the only
# headers installed: #include <wperf/wperf.h>, pkg-config wperf. The
# documents keep their folders too (README.md links docs/NAME.md); the scenarios
# are examples of the schema: the synthetic and real-workload ones run their
# programs from ${BUILD_DIR}, which only a source tree's build has.
VERSION := $(shell sed -n 's/^\#define WPERF_VERSION "\(.*\)"/\1/p' harness/base/version.h)
DOC_DIR = $(DESTDIR)$(PREFIX)/share/doc/wperf-bench
EXAMPLES_DIR = $(DESTDIR)$(PREFIX)/share/wperf-bench/scenarios

install: $(WPERF_BENCH) $(LIBWPERF) man completion
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0755 $(WPERF_BENCH) $(DESTDIR)$(PREFIX)/bin/wperf-bench
	install -m 0644 include/wperf_annotate.h $(DESTDIR)$(PREFIX)/include/wperf_annotate.h
	install -m 0644 $(LIBWPERF) $(DESTDIR)$(LIBDIR)/libwperf.a
	install -d $(DESTDIR)$(PREFIX)/include/wperf
	install -m 0644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/wperf/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		wperf.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/wperf.pc
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(MAN_DIR)/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 $(COMPLETION_DIR)/wperf-bench \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/wperf-bench
	install -D -m 0644 $(COMPLETION_DIR)/_wperf-bench \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_wperf-bench
	install -d $(DOC_DIR)/docs/case-studies $(EXAMPLES_DIR)
	install -m 0644 README.md $(DOC_DIR)/README.md
	install -m 0644 docs/*.md $(DOC_DIR)/docs/
	install -m 0644 docs/case-studies/*.svg $(DOC_DIR)/docs/case-studies/
	install -m 0644 scenarios/*.yaml $(EXAMPLES_DIR)/
	install -D -m 0644 scenarios/nginx/nginx.conf $(EXAMPLES_DIR)/nginx/nginx.conf
	install -D -m 0644 scenarios/caddy/Caddyfile $(EXAMPLES_DIR)/caddy/Caddyfile
	install -D -m 0755 scenarios/zookeeper/slowdisk.sh $(EXAMPLES_DIR)/zookeeper/slowdisk.sh

# ---- the Debian packages: debian/ ----
# dpkg-buildpackage writes the packages beside the tree it builds: it builds a
# copy in $(BUILD)/deb/ (the tree as it is, build/, results/ and .git left out),
# checked by lintian, whose packages are then moved to $(BUILD)/. debian/changelog must name the
# version of harness/base/version.h.
DEB_DIR = $(BUILD)/deb
DEB_TREE = $(DEB_DIR)/wperf-bench-$(VERSION)
DEB_JOBS ?= auto
deb:
	@v=$$(dpkg-parsechangelog -S Version) && [ "$$v" = "$(VERSION)" ] || { echo "error: debian/changelog is at $$v but harness/base/version.h at $(VERSION): add an entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_TREE)
	tar -cf - --exclude=./$(BUILD) --exclude=./build --exclude=./results --exclude=./.git . | tar -xf - -C $(DEB_TREE)
	cd $(DEB_TREE) && dpkg-buildpackage -b -us -uc -J$(DEB_JOBS)
	lintian --info --fail-on error,warning $(DEB_DIR)/*.changes
	mv $(DEB_DIR)/*.deb $(BUILD)/
	@ls $(BUILD)/*_$(VERSION)_*.deb

clean:
	rm -rf build

-include $(shell find $(BUILD) -path $(BUILD)/asan -prune -o -name '*.d' -print 2>/dev/null)
