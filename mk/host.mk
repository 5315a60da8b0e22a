# Host programs: the cmocka tests, the benchmark and the fuzzer, all running the driver against
# the behavioural model (tests/model) through the register seam (-DPL011_IO_HOOKS).

HOST_OUT := $(BUILD)/host
MODEL_SRCS := $(wildcard tests/model/*.c)
# Files in tests/unit/ that are not tests (harness, operations...) are linked into every program.
UNIT_SUPPORT_SRCS := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
UNIT_TESTS := $(sort $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c)))
UNIT_BINS := $(UNIT_TESTS:%=$(HOST_OUT)/%)
TSAN_RING := $(HOST_OUT)/tsan_test_ring_threads
BENCH_BIN := $(HOST_OUT)/bench
BENCH_SINGLE_BIN := $(HOST_OUT)/bench-single-core
FUZZ_BIN := $(HOST_OUT)/fuzz_operations
DRIVER_ON_MODEL_SRCS := $(LIB_SRCS) $(MODEL_SRCS) $(UNIT_SUPPORT_SRCS)

# Each flavour compiles into BUILD/host/objects-<flavour>/ with its own compiler and flags:
# asan for the tests, tsan for the two-thread ring test (ThreadSanitizer reports a missing
# acquire/release as a race even on x86, whose hardware would hide it), bench at -O2 without
# sanitizers, fuzz with clang's libFuzzer, m32 the unit tests again with -m32 (i386: 32-bit
# size_t, pointers and long, as on the 32-bit ARM targets, where x86-64 has 64-bit ones).
HOST_MODEL_FLAGS := -std=c11 -g -DPL011_IO_HOOKS -Iinclude -Ilib -Itests/model -Itests/unit
HOST_CC_asan := $(HOST_CC)
HOST_FLAGS_asan := $(HOST_MODEL_FLAGS) -O1 $(WARNINGS) -fsanitize=address,undefined \
	-fno-sanitize-recover=all
HOST_CC_tsan := $(HOST_CC)
HOST_FLAGS_tsan := -std=c11 -g -O1 $(WARNINGS) -fsanitize=thread -Iinclude -Ilib
HOST_CC_bench := $(HOST_CC)
HOST_FLAGS_bench := $(HOST_MODEL_FLAGS) -O2 $(WARNINGS)
HOST_CC_fuzz := clang
HOST_FLAGS_fuzz := $(HOST_MODEL_FLAGS) -O1 -fsanitize=fuzzer,address,undefined
# UBSan only: the m32 tests run under qemu-i386 (below), where ASan's shadow memory set-up
# hangs; the asan flavour already checks memory on the same code.
HOST_CC_m32 := $(HOST_CC)
HOST_FLAGS_m32 := -m32 $(HOST_MODEL_FLAGS) -O1 $(WARNINGS) -fsanitize=undefined \
	-fno-sanitize-recover=all
# nostats: the asan flavour with PL011_STATS 0 (docs/api.md, "Counters"), for test_stats_off
# and the link test below.
HOST_CC_nostats := $(HOST_CC)
HOST_FLAGS_nostats := $(HOST_FLAGS_asan) -DPL011_STATS=0
# single: the tests built for one core (PL011_SINGLE_CORE, lib/pl011_io.h), with UBSan only
# (the asan flavour checks memory on the same code, and ASan would double make test's cost
# of this build), and bench-single the benchmark so.
HOST_CC_single := $(HOST_CC)
HOST_FLAGS_single := $(HOST_MODEL_FLAGS) -O1 $(WARNINGS) -fsanitize=undefined \
	-fno-sanitize-recover=all -DPL011_SINGLE_CORE=1
HOST_CC_bench-single := $(HOST_CC)
HOST_FLAGS_bench-single := $(HOST_FLAGS_bench) -DPL011_SINGLE_CORE=1
# polledonly: the asan flavour with PL011_INTERRUPTS 0 (the polled-only build, pl011_options.h),
# for test_polled_only.
HOST_CC_polledonly := $(HOST_CC)
HOST_FLAGS_polledonly := $(HOST_FLAGS_asan) -DPL011_INTERRUPTS=0
HOST_FLAVOURS := asan tsan bench fuzz m32 nostats single bench-single polledonly

# $(call host_objs,FLAVOUR,SOURCES): the objects of SOURCES in that flavour.
host_objs = $(patsubst %.c,$(HOST_OUT)/objects-$(1)/%.o,$(2))

# $(call host_flavour,FLAVOUR): its compile rule, and its flags file (see FLAGS_FILE) when a
# goal builds host programs.
define host_flavour
HOST_FLAGS_FILE_$(1) := $(HOST_OUT)/objects-$(1)/flags.txt
HOST_FLAGS_NOW_$(1) := $(HOST_CC_$(1)) $(HOST_FLAGS_$(1))
ifneq ($$(filter unit-test unit-test-32 unit-test-32-quick unit-test-single-core test-full stats-link-test bench bench-smoke fuzz $(HOST_OUT)/%,$$(MAKECMDGOALS)),)
$$(eval $$(call flags_file,HOST_FLAGS_FILE_$(1),HOST_FLAGS_NOW_$(1)))
endif
$(HOST_OUT)/objects-$(1)/%.o: %.c $$(HOST_FLAGS_FILE_$(1))
	@mkdir -p $$(dir $$@)
	@echo "  HOSTCC  $$< ($(1))"
	$$(Q)$$(HOST_CC_$(1)) $$(HOST_FLAGS_$(1)) -MMD -MP -c $$< -o $$@
endef
$(foreach flavour,$(HOST_FLAVOURS),$(eval $(call host_flavour,$(flavour))))

# $(call host_link,FLAVOUR,LIBRARIES): link the objects among the prerequisites.
host_link = $(HOST_CC_$(1)) $(HOST_FLAGS_$(1)) $(filter %.o,$^) $(2) -o $@

$(HOST_OUT)/test_%: $(call host_objs,asan,tests/unit/test_%.c $(DRIVER_ON_MODEL_SRCS))
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,asan,-lcmocka -lpthread)

# Driver, model and test built with PL011_STATS 0 (the explicit rule wins over the pattern
# above); the m32 and coverage builds compile it with the default 1, where it checks that the
# optional counters count.
$(HOST_OUT)/test_stats_off: $(call host_objs,nostats,tests/unit/test_stats_off.c $(DRIVER_ON_MODEL_SRCS))
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,nostats,-lcmocka -lpthread)

# The polled-only build, with the support files that need no interrupt (the explorers do).
$(HOST_OUT)/test_polled_only: $(call host_objs,polledonly,tests/unit/test_polled_only.c \
	$(LIB_SRCS) $(MODEL_SRCS) tests/unit/harness.c)
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,polledonly,-lcmocka -lpthread)

# A program and a library built with different PL011_STATS must not link (pl011_init_named_parts,
# which pl011_init calls, is pl011_init_named_parts_nostats with 0), either way round; built
# alike they link (so the failures are the mismatch's). The same for PL011_INTERRUPTS
# (_polled_only). make unit-test runs it.
STATS_LINK_OUT := $(HOST_OUT)/stats-link
STATS_LINK_ON := $(call host_objs,asan,tests/link/stats_mismatch.c $(LIB_SRCS) $(MODEL_SRCS))
STATS_LINK_OFF := $(call host_objs,nostats,tests/link/stats_mismatch.c $(LIB_SRCS) $(MODEL_SRCS))
STATS_LINK_POLLED := $(call host_objs,polledonly,tests/link/stats_mismatch.c $(LIB_SRCS) \
	$(MODEL_SRCS))
# $(call stats_link_mixed,OBJECTS,SYMBOL): their link must fail for want of SYMBOL.
stats_link_mixed = if $(HOST_CC) $(HOST_FLAGS_asan) $(1) -o $(STATS_LINK_OUT)/mixed \
	> $(STATS_LINK_OUT)/mixed.txt 2>&1; then \
	echo "stats-link-test: linked with a library of the other PL011_STATS"; exit 1; fi; \
	grep -q "undefined reference to .$(2)'" $(STATS_LINK_OUT)/mixed.txt || \
	{ cat $(STATS_LINK_OUT)/mixed.txt; echo "stats-link-test: no undefined $(2)"; exit 1; }
stats-link-test: $(STATS_LINK_ON) $(STATS_LINK_OFF) $(STATS_LINK_POLLED)
	$(Q)mkdir -p $(STATS_LINK_OUT)
	$(Q)$(HOST_CC) $(HOST_FLAGS_asan) $(STATS_LINK_ON) -o $(STATS_LINK_OUT)/same-on
	$(Q)$(HOST_CC) $(HOST_FLAGS_asan) $(STATS_LINK_OFF) -o $(STATS_LINK_OUT)/same-off
	$(Q)$(HOST_CC) $(HOST_FLAGS_asan) $(STATS_LINK_POLLED) -o $(STATS_LINK_OUT)/same-polled
	$(Q)$(call stats_link_mixed,$(firstword $(STATS_LINK_OFF)) $(wordlist 2,999,$(STATS_LINK_ON)),pl011_init_named_parts_nostats)
	$(Q)$(call stats_link_mixed,$(firstword $(STATS_LINK_ON)) $(wordlist 2,999,$(STATS_LINK_OFF)),pl011_init_named_parts)
	$(Q)$(call stats_link_mixed,$(firstword $(STATS_LINK_POLLED)) $(wordlist 2,999,$(STATS_LINK_ON)),pl011_init_named_parts_polled_only)
	$(Q)$(call stats_link_mixed,$(firstword $(STATS_LINK_ON)) $(wordlist 2,999,$(STATS_LINK_POLLED)),pl011_init_named_parts)
	@echo "stats-link-test: a PL011_STATS or PL011_INTERRUPTS mismatch fails to link, both ways"
.PHONY: stats-link-test

## unit tests `make unit-test-32` leaves out (quick: the three slowest under qemu-i386)
UNIT_TESTS_32_SKIP ?=
UNIT_BINS_32 = $(filter-out $(UNIT_TESTS_32_SKIP:%=$(HOST_OUT)/m32/%),$(UNIT_TESTS:%=$(HOST_OUT)/m32/%))
$(HOST_OUT)/m32/test_%: $(call host_objs,m32,tests/unit/test_%.c $(DRIVER_ON_MODEL_SRCS))
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,m32,-lcmocka -lpthread)

$(HOST_OUT)/single/test_%: $(call host_objs,single,tests/unit/test_%.c $(DRIVER_ON_MODEL_SRCS))
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,single,-lcmocka -lpthread)

$(TSAN_RING): $(call host_objs,tsan,tests/unit/test_ring_threads.c lib/pl011_ring.c)
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,tsan,-lcmocka -lpthread)

$(BENCH_BIN): $(call host_objs,bench,tests/bench/bench.c $(DRIVER_ON_MODEL_SRCS))
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,bench)

$(BENCH_SINGLE_BIN): $(call host_objs,bench-single,tests/bench/bench.c $(DRIVER_ON_MODEL_SRCS))
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,bench-single)

$(FUZZ_BIN): $(call host_objs,fuzz,tests/fuzz/fuzz_operations.c $(DRIVER_ON_MODEL_SRCS))
	@echo "  HOSTLD  $@"
	$(Q)$(call host_link,fuzz)

# The tests again with PL011_SINGLE_CORE=1 (lib/pl011_io.h), less those whose second context
# is another core (a second coroutine run beside the first, posted writes, threads) and
# test_regimes (the same cells as the default build): all of them in make test-full, and in
# make unit-test (make test's) those about contexts preempting each other on one core.
UNIT_TESTS_SINGLE_SKIP := test_two_cores test_rx_idle_cores test_call_matrix \
	test_contract_ownership test_tx_lets_go test_ring_threads test_regimes
UNIT_BINS_SINGLE := $(filter-out $(UNIT_TESTS_SINGLE_SKIP:%=$(HOST_OUT)/single/%),\
	$(UNIT_TESTS:%=$(HOST_OUT)/single/%))
UNIT_TESTS_SINGLE_QUICK := test_nested_handlers test_preemption test_stop_preempted test_irq_tx \
	test_irq_rx test_shutdown test_contract_panic test_panic_gives_up test_events
UNIT_BINS_SINGLE_QUICK := $(UNIT_TESTS_SINGLE_QUICK:%=$(HOST_OUT)/single/%)

## how far the long explorers go in `make unit-test`: quick (make test's) or full (tests/unit/depth.h)
PL011_TEST_DEPTH ?= quick
unit-test: $(UNIT_BINS) $(TSAN_RING) $(UNIT_BINS_SINGLE_QUICK) stats-link-test
	$(Q)PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) $(PYTHON) tests/run_unit.py $(UNIT_BINS) $(TSAN_RING) \
		$(UNIT_BINS_SINGLE_QUICK)
unit-test-single-core: $(UNIT_BINS_SINGLE)
	$(Q)PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) $(PYTHON) tests/run_unit.py $(UNIT_BINS_SINGLE)
.PHONY: unit-test-single-core

# The long explorers, whose quick form make unit-test runs (every case on a share of its
# points, seeds or schedules), at full depth: every point, seed and schedule.
LONG_UNIT_TESTS := test_call_matrix test_preemption test_random_ops test_regimes test_shutdown \
	test_stop_preempted test_two_cores
# The SPIN runs make test searches on a smaller instance come here as written, the quick mutant
# set (make mutate-quick), the tests built for 32 bits (make unit-test-32-quick), and the 1 MiB
# echo soak on one QEMU machine per architecture (make test soaks 32 KiB).
test-full: $(LONG_UNIT_TESTS:%=$(HOST_OUT)/%)
	$(Q)PL011_TEST_DEPTH=full $(PYTHON) tests/run_unit.py $(LONG_UNIT_TESTS:%=$(HOST_OUT)/%)
	$(Q)$(MAKE) --no-print-directory spin-check PL011_TEST_DEPTH=full
	$(Q)$(MAKE) --no-print-directory mutate-quick
	$(Q)$(MAKE) --no-print-directory unit-test-32-quick
	$(Q)$(MAKE) --no-print-directory qemu-test-full TEST_BOARDS="versatilepb virt64 lm3s6965" \
		TEST_EXAMPLES=echo
	$(Q)$(MAKE) --no-print-directory unit-test-single-core
	$(Q)$(MAKE) --no-print-directory qemu-test-single-core
.PHONY: test-full

# Run under QEMU's i386 user-mode emulator (-L /: Debian's i386 libraries), everywhere the
# same: some x86-64 hosts (sandboxes, kernels without IA32 emulation) cannot execute i386
# programs. ThreadSanitizer has no 32-bit x86 runtime: the two-thread ring test stays 64-bit.
HOST32_RUN := qemu-i386 -L /
unit-test-32: $(UNIT_BINS_32)
	$(Q)PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) $(PYTHON) tests/run_unit.py --run "$(HOST32_RUN)" $(UNIT_BINS_32)
# make test's share: without the programs that take most of the time under emulation
# (test_shutdown, and the explorers and the call matrix, whose interleavings the 64-bit run covers the same way),
# and test_regimes (82 s of CPU under emulation: the same cells as the 64-bit run; the judge's
# 32-bit arithmetic is test_measured_judge's, which stays), and test_random_ops (over 5 min of
# CPU under emulation since its sequences include pl011_set_line and every point checks the
# invariants: the same seeded sequences as the 64-bit run), and test_stop_preempted (about 240 s
# of CPU under emulation: scripted interleavings the 64-bit run covers the same way).
unit-test-32-quick:
	$(Q)$(MAKE) --no-print-directory unit-test-32 \
		UNIT_TESTS_32_SKIP="test_preemption test_shutdown test_two_cores test_call_matrix test_regimes test_random_ops test_stop_preempted"

# make bench: the tables on stdout and in BUILD/bench.txt, the pictures' data in BUILD/bench/
# and, where gnuplot is installed, the pictures beside it (tools/plot_bench.gp; docs/img/ holds
# the copies docs/benchmarks.md shows). Without gnuplot the tables still come, with a note.
BENCH_DATA := $(BUILD)/bench
bench: $(BENCH_BIN) $(BENCH_SINGLE_BIN)
	$(Q)mkdir -p $(BENCH_DATA)
	$(Q)$< --data $(BENCH_DATA) > $(BUILD)/bench.txt && \
		$(BENCH_SINGLE_BIN) --sync | sed 1,4d >> $(BUILD)/bench.txt; status=$$?; \
		cat $(BUILD)/bench.txt; [ $$status -eq 0 ] || exit $$status; \
		if command -v gnuplot >/dev/null 2>&1; then \
			gnuplot -e "dir='$(BENCH_DATA)'" tools/plot_bench.gp || exit 1; \
			echo "make bench: pictures in $(BENCH_DATA)/*.png"; \
		else \
			echo "make bench: gnuplot not found, so no pictures (Debian package gnuplot-nox; make deps installs it)"; \
		fi

# make test's run of the bench: the TX tables only, every strategy and the reference handler in
# every scenario, each run checking that the wire equals the stream and no FIFO overflowed.
# Correctness only: nothing here compares a time or a count against a bound.
bench-smoke: $(BENCH_BIN)
	$(Q)$< --smoke > $(BUILD)/bench-smoke.txt && tail -n 1 $(BUILD)/bench-smoke.txt
.PHONY: bench-smoke

# libFuzzer: its bytes choose preemption runs (tests/unit/explore.c) and sequences of driver
# calls (tests/unit/operations.c) against the model; a broken invariant aborts. The run closes
# with executions per second and coverage; make test runs 30 s of it (fuzz-quick).
## seconds `make fuzz` runs
FUZZ_SECONDS ?= 60
fuzz: $(FUZZ_BIN)
	$(Q)$(PYTHON) tests/fuzz/run_fuzz.py $(FUZZ_BIN) $(FUZZ_SECONDS) $(BUILD)/fuzz-corpus
fuzz-quick:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30

# Mutation testing and coverage of lib/ by the host tests (docs/testing.md): self-contained
# scripts that build their own copies. MUTANTS= selects mutants by id pattern.
## mutants `make mutate` runs, comma-separated id patterns (default: all; quick: make test's)
MUTANTS ?=
mutate:
	$(Q)$(PYTHON) tools/mutate.py --min-score 90 $(if $(MUTANTS),--mutants '$(MUTANTS)')
mutate-blind:
	$(Q)$(PYTHON) tools/mutate.py --set blind --min-score 90 $(if $(MUTANTS),--mutants '$(MUTANTS)')
# make test's quick subset dies in the first programs: measuring coverage would cost more than it saves.
mutate-quick:
	$(Q)$(PYTHON) tools/mutate.py --mutants quick --no-baseline --all-programs --min-score 100
coverage:
	$(Q)$(PYTHON) tools/coverage.py

HOST_OBJS := $(call host_objs,asan,$(UNIT_TESTS:%=tests/unit/%.c) $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,tsan,tests/unit/test_ring_threads.c lib/pl011_ring.c) \
	$(call host_objs,bench,tests/bench/bench.c $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,fuzz,tests/fuzz/fuzz_operations.c $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,m32,$(UNIT_TESTS:%=tests/unit/%.c) $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,nostats,tests/unit/test_stats_off.c tests/link/stats_mismatch.c \
		$(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,single,$(UNIT_TESTS:%=tests/unit/%.c) $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,bench-single,tests/bench/bench.c $(DRIVER_ON_MODEL_SRCS)) \
	$(call host_objs,asan,tests/link/stats_mismatch.c) \
	$(call host_objs,polledonly,tests/unit/test_polled_only.c tests/link/stats_mismatch.c \
		$(LIB_SRCS) $(MODEL_SRCS) tests/unit/harness.c)
-include $(HOST_OBJS:.o=.d)
