# make test and its checks, and the installer of what they need (tools/install-deps.sh).

# Processes a check may run at once (cppcheck, the libraries' builds): the machine's cores.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

# Every check runs even after one failed, so that one run shows every problem.
# The quick mutant set and the 32-bit build of the tests run in make test-full (CI runs both):
# make test stays under 15 minutes.
TEST_CHECKS := docs-check layers-check installer-check analyze unit-test bench-smoke spin-check \
	fuzz-quick qemu-test console-test consumer-test openocd-check board-check size-check
# A line as each check starts and one with its time as it ends: a newcomer sees where it is.
# The last line counts the checks, in the plain "N passed, N failed" form CI reads.
test: deps-check
	$(Q)failed=""; total=0; passed=0; count=0; for check in $(TEST_CHECKS); do \
		echo "== make $$check"; count=$$((count + 1)); started=$$(date +%s); \
		$(MAKE) --no-print-directory $$check DEPS_CHECKED=1 && { result=ok; passed=$$((passed + 1)); } || \
		{ result=FAILED; failed="$$failed $$check"; }; \
		took=$$(($$(date +%s) - started)); total=$$((total + took)); \
		echo "== make $$check: $$result in $$took s"; done; \
	echo "== make test: checks took $$total s"; \
	echo "checks: $$passed passed, $$((count - passed)) failed"; \
	[ -z "$$failed" ] || { echo "make test: failed:$$failed" >&2; exit 1; }

# make analyze and make board-check on these boards only (TEST_BOARDS, as for make qemu-test).
CHECK_BOARDS := $(or $(TEST_BOARDS),$(BOARDS))

# Static checks of lib/: cppcheck, clang-tidy (memcpy "insecure API" noise off; its exit status
# counts, its "N warnings generated" chatter does not), and on every board that the library
# needs nothing but memcpy/memset and compiler helpers and uses no FP/SIMD register.
TIDY_CHECKS := -*,bugprone-*,clang-analyzer-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling
analyze:
	@echo "  CPPCHECK lib/"
	$(Q)cppcheck -j $(JOBS) --enable=warning,style,performance,portability --std=c11 --error-exitcode=1 \
		--inline-suppr -q -Iinclude -Ilib lib/
	@echo "  TIDY    lib/"
	@mkdir -p $(BUILD)
	$(Q)clang-tidy --quiet --warnings-as-errors='*' -checks='$(TIDY_CHECKS)' $(LIB_SRCS) -- \
		-std=c11 -Iinclude -Ilib -ffreestanding >$(BUILD)/clang-tidy.log 2>&1; status=$$?; \
		grep -v "warnings generated" $(BUILD)/clang-tidy.log; exit $$status
	$(Q)status=0; for board in $(CHECK_BOARDS); do \
		$(MAKE) --no-print-directory -s BOARD=$$board board-analyze || status=1; \
		$(MAKE) --no-print-directory -s -j$(JOBS) BOARD=$$board freestanding-check || status=1; done; exit $$status
# The board code of BOARD, each C file with the board's own include path (board.h differs per
# board, so one file is checked once per board that links it).
BOARD_C_SRCS := $(filter %.c,$(BOARD_SRCS) $(BOARD_COMMON_SRCS))
board-analyze:
	@echo "  CPPCHECK boards: $(BOARD)"
	$(Q)cppcheck -j $(JOBS) --enable=warning,style,performance,portability --std=c11 --error-exitcode=1 \
		--inline-suppr -q -Iinclude $(BOARD_CFLAGS) $(BOARD_C_SRCS)
freestanding-check: $(LIBRARY)
	$(Q)NM=$(CROSS_COMPILE)nm sh tools/check-freestanding.sh $(LIBRARY)
	$(Q)OBJDUMP=$(CROSS_COMPILE)objdump sh tools/check-general-regs.sh $(LIBRARY)

consumer-test:
	$(Q)BUILD=$(abspath $(BUILD)) sh tests/consumers/run_consumer_tests.sh

# Not in make test: the DMBs, exclusives and atomic helper calls along pl011_irq_handler's
# call tree in the size firmware with MEASURED, ARMv7-A and ARMv6-M (docs/benchmarks.md).
sync-count:
	$(Q)$(PYTHON) tools/sync_count.py --build $(BUILD)/sync-count
	$(Q)$(PYTHON) tools/sync_count.py --build $(BUILD)/sync-count --single-core

layers-check:
	$(Q)$(PYTHON) tools/check_layers.py
	$(Q)$(PYTHON) tools/check_atomic_points.py && $(PYTHON) tools/check_atomic_points.py --self-test

docs-check:
	$(Q)$(PYTHON) tests/docs/check_links.py && $(PYTHON) tests/docs/check_board_tables.py && \
		$(PYTHON) tests/docs/check_doc_facts.py && $(PYTHON) tests/docs/check_readme_budget.py && \
		$(PYTHON) tests/docs/check_header.py

# make test searches the largest runs on a smaller instance; make test-full as written. The owner
# word's model runs beside the other two (each in its own folder), their reports printed after.
spin-check:
	$(Q)mkdir -p $(BUILD); status=0; \
	PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) sh tests/spin/check_tx_owner.sh docs/tx_owner.pml \
		$(BUILD)/spin >$(BUILD)/spin-tx-owner.log 2>&1 & owner=$$!; \
	PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) sh tests/spin/check_imsc_word.sh docs/imsc_word.pml \
		$(BUILD)/spin-imsc >$(BUILD)/spin-imsc-word.log 2>&1 || status=1; \
	PL011_TEST_DEPTH=$(PL011_TEST_DEPTH) sh tests/spin/check_beside_places.sh \
		docs/beside_places.pml $(BUILD)/spin-beside >$(BUILD)/spin-beside-places.log 2>&1 \
		|| status=1; \
	wait $$owner || status=1; \
	cat $(BUILD)/spin-tx-owner.log $(BUILD)/spin-imsc-word.log \
		$(BUILD)/spin-beside-places.log; exit $$status

openocd-check:
	$(Q)sh tests/openocd/check_configs.sh

installer-check:
	$(Q)sh tests/tools/check_install_deps.sh

# Not in make test: a Debian 12 chroot, the README's commands in a fresh clone (15-40 minutes).
fresh-test:
	$(Q)sh tools/fresh-test.sh

board-check:
	$(Q)$(PYTHON) tests/boards/check_board_facts.py $(foreach board,$(TEST_BOARDS),--board $(board))

# What a goal needs installed, in the words of tools/install-deps.sh. BOARD_NEEDS is what this
# board needs: its compiler, its C library (newlib nano or picolibc, by its specs file) linked
# with its CPU and link flags (the multilib it selects), its QEMU listing its machines, its own
# packages. The needs' words are separated by colons.
colon_list = $(subst $(empty) $(empty),:,$(strip $(1)))
empty :=
BOARD_LIBC_FLAGS := $(filter -m% --specs=%,$(BOARD_CPU_FLAGS) $(BOARD_LDFLAGS))
BOARD_NEEDS := cc=$(CROSS_COMPILE) \
	$(if $(filter --specs=%,$(BOARD_LDFLAGS)),libc=$(call colon_list,$(CROSS_COMPILE) $(BOARD_LIBC_FLAGS))) \
	$(if $(BOARD_QEMU_MACHINES),qemu=$(call colon_list,$(BOARD_QEMU) $(BOARD_QEMU_MACHINES))) \
	$(addprefix pkg=,$(BOARD_DEPS))
EVERY_BOARD_NEEDS = $(sort $(foreach board,$(BOARDS),\
	$(shell $(MAKE) -s --no-print-directory BOARD=$(board) print-board-needs)))
NEEDS_run := $(BOARD_NEEDS)
NEEDS_debug := gdb $(BOARD_NEEDS)
NEEDS_flash := openocd $(BOARD_NEEDS)
NEEDS_openocd-check := openocd
NEEDS_unit-test := host
NEEDS_unit-test-single-core := host
NEEDS_test-full := host
NEEDS_bench := host plot
NEEDS_bench-smoke := host
NEEDS_unit-test-32 := host host32
NEEDS_unit-test-32-quick := host host32
NEEDS_fuzz := host fuzz
NEEDS_fuzz-quick := host fuzz
NEEDS_spin-check := host pkg=spin
NEEDS_mutate := host
NEEDS_mutate-quick := host
NEEDS_mutate-blind := host
NEEDS_coverage := host pkg=lcov
# The size firmwares' compilers and C libraries: those of an M0+, an M3, a Cortex-A9 and an AArch64 board.
SIZE_BOARD_NEEDS = $(filter-out qemu=%,$(sort $(foreach board,rp2040 lm3s6965 vexpress-a9 virt64,\
	$(shell $(MAKE) -s --no-print-directory BOARD=$(board) print-board-needs))))
NEEDS_size = host $(SIZE_BOARD_NEEDS)
NEEDS_size-readme = $(NEEDS_size)
# The size firmware's compilers: those of an M0+ and a Cortex-A9 board.
NEEDS_sync-count = $(NEEDS_size)
NEEDS_size-check = $(NEEDS_size)
NEEDS_board-check = host $(EVERY_BOARD_NEEDS)
NEEDS_analyze = host analyze $(filter-out libc=% qemu=%,$(EVERY_BOARD_NEEDS))
NEEDS_qemu-test = host $(EVERY_BOARD_NEEDS)
NEEDS_qemu-test-full = $(NEEDS_qemu-test)
NEEDS_qemu-test-single-core = $(NEEDS_console-test)
# The console session's machines: versatilepb, virt64, lm3s6965 (tests/qemu/console_session.py).
NEEDS_console-test = host $(sort $(foreach board,versatilepb virt64 lm3s6965,\
	$(shell $(MAKE) -s --no-print-directory BOARD=$(board) print-board-needs)))
NEEDS_term := pkg=socat
# The consumer firmware is built for and run on versatilepb.
NEEDS_consumer-test = cmake $(shell $(MAKE) -s --no-print-directory BOARD=versatilepb print-board-needs)
NEEDS_test = host host32 analyze fuzz gdb openocd cmake pkg=lcov pkg=spin $(EVERY_BOARD_NEEDS)
NEEDS_fresh-test := pkg=debootstrap
NEEDS_deps = $(NEEDS_test) $(NEEDS_fresh-test) plot
INSTALLING_GOALS := $(patsubst NEEDS_%,%,$(filter NEEDS_%,$(.VARIABLES)))

# Only these goals run the installer, before anything is compiled; lib, all and examples never do.
$(INSTALLING_GOALS): deps-check
# DEPS_CHECKED=1: make test's checks, whose needs make test has installed and probed already.
deps-check:
	$(Q)$(if $(DEPS_CHECKED),:,sh tools/install-deps.sh $(sort $(foreach goal,$(MAKECMDGOALS),$(NEEDS_$(goal)))))
ifneq ($(filter $(INSTALLING_GOALS),$(MAKECMDGOALS)),)
$(TARGET_OBJS) $(HOST_OBJS): | deps-check
endif
