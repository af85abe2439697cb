# wperf-bench: build, test and install.
#
#   make deps     install the Debian packages needed to build and run (idempotent)
#   make          build everything into $(BUILD)/
#   make demo     run the paper's Figure 1 scenario, start to verdict
#   make check-perf  the performance gate over the scenarios tagged ci: against baselines/, or
#                 CHECK_PERF_BASE=REF: base commit REF against the work tree, run in turns
#   make validation  run the synthetic suite and its fixes; writes docs/validation.md
#   make test     run the unit and end-to-end tests (cmocka), the include and size rules
#   make test-core  the tests of libwperf alone (no clang BPF target, bpftool or BPF)
#   make asan     the same tests built with AddressSanitizer and UBSan
#   make valgrind the analyzer under valgrind on a recorded trace
#   make bench    print the recorder's overhead (storm, ZooKeeper, memcached), whether it keeps up
#                 with 1M events/s, and the analyzer's speed
#   make fuzz     run every reader's libFuzzer target (FUZZ_SECONDS each, FUZZ_TARGETS to pick)
#   make install  PREFIX=/usr/local DESTDIR=
#   make clean

BUILD ?= build
PREFIX ?= /usr/local
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
CFLAGS += $(BASE_CFLAGS)
ifdef SANITIZE
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
TEST_LDLIBS := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

CORE_SRCS := $(wildcard core/*/*.c)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
LIBWPERF := $(BUILD)/libwperf.a

VMLINUX_H := $(BUILD)/bpf/vmlinux.h
RECORDER_SKEL := $(BUILD)/bpf/recorder.skel.h

HARNESS_SRCS := $(wildcard harness/*/*.c)
HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(BUILD)/%.o)
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

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
E2E_SRCS := $(wildcard tests/e2e/test_*.c)
E2E_BINS := $(E2E_SRCS:%.c=$(BUILD)/%)
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
FUZZ_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(CORE_SRCS) $(FUZZ_HARNESS_SRCS) tests/lib/fuzz_readers.c)
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_SRCS:fuzz/%.c=%)

.PHONY: all deps demo check-perf validation test test-core test-unit test-e2e check-bpf-arm64 asan valgrind bench fuzz install clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(LIBWPERF) $(WPERF_BENCH) $(SYNTH_BINS) $(LOAD_BINS)

# ---- packages ----
deps:
	@bash ci/install-deps.sh

# ---- the BPF side ----
$(VMLINUX_H):
	@mkdir -p $(@D)
	@test -r /sys/kernel/btf/vmlinux || { echo "error: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing); wperf-bench needs a kernel built with CONFIG_DEBUG_INFO_BTF=y" >&2; exit 1; }
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -Wall -Werror -Ibpf -I/usr/include/$(shell uname -m)-linux-gnu

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

# The one object that includes the BPF skeleton: only it needs clang and bpftool.
$(BUILD)/harness/record/bpf_recorder.o: $(RECORDER_SKEL)

$(WPERF_BENCH): $(HARNESS_OBJS) $(LIBWPERF)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

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
	@bash tests/run.sh $(UNIT_BINS)

test-e2e: all $(E2E_BINS)
	@WPERF_BUILD=$(BUILD) bash tests/run.sh $(E2E_BINS)

test: all $(UNIT_BINS) $(E2E_BINS) check-bpf-arm64
	@bash tests/layers.sh
	@bash tests/sizes.sh
	@WPERF_BUILD=$(BUILD) bash tests/run.sh $(UNIT_BINS) $(E2E_BINS)

asan:
	$(MAKE) BUILD=build/asan SANITIZE=1 test

# The analyzer under valgrind, on the recorded trace in tests/data, every
# format; then the gate (compare, baseline update) on the recorded run sets.
VALGRIND := valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite
valgrind: $(WPERF_BENCH)
	@for f in text json dot folded perfetto; do \
		$(VALGRIND) $(WPERF_BENCH) report -j 2 -f $$f -o /dev/null tests/data/fig1.trace || exit 1; \
	done; echo "valgrind: the analyzer is clean on tests/data/fig1.trace (text json dot folded perfetto)"
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
# CHECK_PERF_TAG=nightly: the real workloads (ZooKeeper, memcached) instead.
# CHECK_PERF_BASE=REF: judge the work tree against commit REF, run in turns on
# this machine (what a pull request gets); empty: against baselines/.
CHECK_PERF_DIR ?= $(BUILD)/check-perf
CHECK_PERF_TAG ?= ci
CHECK_PERF_BASE ?=
CHECK_PERF_ARGS ?=
check-perf: all
	$(WPERF_BENCH) check-perf --tag $(CHECK_PERF_TAG) --results $(CHECK_PERF_DIR) \
		$(if $(CHECK_PERF_BASE),--base $(CHECK_PERF_BASE)) $(CHECK_PERF_ARGS)

# ---- the synthetic suite, run and written up in docs/validation.md ----
validation: all
	@WPERF_BENCH=$(WPERF_BENCH) bash bench/validation.sh $(BUILD)/validation

# ---- benchmarks ----
$(BUILD)/bench/%: bench/%.c $(LIBHARNESS) $(LIBWPERF) $(BENCH_SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBHARNESS) $(LIBWPERF) $(LDLIBS) -o $@

bench: all $(BENCH_BINS)
	@WPERF_BUILD=$(BUILD) bash bench/run.sh
	@WPERF_BUILD=$(BUILD) bash bench/sustained.sh
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

# ---- install ----
# libwperf's public headers keep their paths under include/wperf, so that
# they include each other as in the tree; wperf.pc says where they are.
VERSION := $(shell sed -n 's/^\#define WPERF_VERSION "\(.*\)"/\1/p' harness/base/version.h)
PUBLIC_HEADERS := $(filter-out %_internal.h,$(wildcard core/*/*.h)) bpf/wperf_event.h

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(WPERF_BENCH) $(DESTDIR)$(PREFIX)/bin/wperf-bench
	install -m 0644 include/wperf_annotate.h $(DESTDIR)$(PREFIX)/include/wperf_annotate.h
	install -m 0644 $(LIBWPERF) $(DESTDIR)$(PREFIX)/lib/libwperf.a
	for h in $(PUBLIC_HEADERS); do install -D -m 0644 $$h $(DESTDIR)$(PREFIX)/include/wperf/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' wperf.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/wperf.pc

clean:
	rm -rf build

-include $(shell find $(BUILD) -path $(BUILD)/asan -prune -o -name '*.d' -print 2>/dev/null)
