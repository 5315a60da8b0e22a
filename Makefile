# pl011: the library, the examples for one BOARD, the host tests and the QEMU tests.
# This file is the map: board selection, the targets and what each does (`make help` prints
# them from the `##` notes below). The rules live in mk/: target.mk (cross build), host.mk
# (host tests, bench, fuzz), qemu.mk (run, debug, QEMU tests), deploy.mk (sdcard, flash),
# check.mk (make test and its checks, the dependency installer).

## the board to build for: a folder of boards/ with a board.mk
BOARD ?= versatilepb
## the example `make run` starts
RUN_EXAMPLE ?= hello
## toolchain prefix; empty: the board's BOARD_CROSS_COMPILE
CROSS_COMPILE ?=
## where everything is built: BUILD/BOARD/ and BUILD/host/
BUILD ?= build
## 1 shows every command
V ?= 0
HOST_CC ?= gcc
PYTHON ?= python3
Q := $(if $(filter 1,$(V)),,@)

# Boards and examples are folders: boards/<name>/board.mk and examples/<name>/main.c.
BOARDS := $(sort $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk)))
EXAMPLES := $(sort $(patsubst examples/%/main.c,%,$(wildcard examples/*/main.c)))
ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error unknown BOARD '$(BOARD)': choose one of $(BOARDS))
endif

# The board.mk interface (docs/porting.md, "board.mk"). Each variable's default is what a
# 32-bit A-profile board with newlib needs; board.mk sets BOARD_CPU_FLAGS, BOARD_SRCS,
# BOARD_LINKER_SCRIPT and BOARD_QEMU_MACHINES, and overrides the rest where it differs.
BOARD_CPU_FLAGS :=
BOARD_SRCS :=
BOARD_LINKER_SCRIPT :=
BOARD_CROSS_COMPILE := arm-none-eabi-
BOARD_COMMON_SRCS := boards/common/vectors.S boards/common/runtime.S boards/common/console.c \
	boards/common/cpu.c boards/common/single_core.c boards/common/newlib_syscalls.c
BOARD_INCLUDES :=
BOARD_LDFLAGS := --specs=nano.specs -nostartfiles
BOARD_LDLIBS := -lgcc
BOARD_QEMU := qemu-system-arm
BOARD_QEMU_MACHINES :=
BOARD_QEMU_FLAGS :=
BOARD_QEMU_SMP :=
BOARD_FIRMWARE_FILES :=
BOARD_KERNEL_IMAGE := kernel.img
BOARD_DEPS :=
# Files `make examples` builds besides the ELFs (rp2040: a .uf2 per example).
BOARD_EXAMPLE_IMAGES :=
include boards/common/pieces.mk
include boards/$(BOARD)/board.mk
# CROSS_COMPILE given on the command line or in the environment wins over the board's.
CROSS_COMPILE := $(or $(CROSS_COMPILE),$(BOARD_CROSS_COMPILE))

# A goal the board cannot do (run without a QEMU machine...) fails saying why: LACKS_<goal>.
# $(call board_can,GOAL,PREREQUISITES): PREREQUISITES, or the rule that explains.
board_can = $(if $(strip $(LACKS_$(1))),board-lacks-$(1),$(2))
board-lacks-%:
	@echo "make $*: board $(BOARD) $(strip $(LACKS_$*))" >&2; exit 1

# Goals that build nothing for BOARD (they leave BUILD alone).
NO_BUILD_GOALS := clean help deps print-qemu print-qemu-machines print-qemu-smp print-board-needs docs-check spin-check \
	openocd-check installer-check print-board-facts board-check mutate mutate-blind mutate-quick coverage \
	fresh-test size size-readme size-check sync-count term
include mk/target.mk mk/host.mk mk/qemu.mk mk/deploy.mk mk/check.mk
.DEFAULT_GOAL := all

# The targets. Recipes are in mk/; a line here without one only names and describes it.
all: lib examples ## the library and every example for BOARD, under BUILD/BOARD/
lib: $(LIBRARY) ## BUILD/BOARD/libpl011.a only (needs only the cross compiler)
examples: $(EXAMPLE_ELFS) $(BOARD_EXAMPLE_IMAGES) ## every example for BOARD: BUILD/BOARD/examples/<name>.elf
run: ## build RUN_EXAMPLE and run it in QEMU; make's exit status is the example's (SERIAL=pty or tcp: a terminal of your own)
term: ## a raw terminal (socat) on the UART of make run SERIAL=tcp, or PTY=/dev/pts/N of SERIAL=pty
debug: ## DEBUG_EXAMPLE in QEMU, halted, with gdb-multiarch attached
test: ## install what is missing, then every check below: the project's test command
test-full: ## the long explorers at full depth and the SPIN runs at full size (make test runs them quick), the one-core build's tests; CI runs it after make test
analyze: ## cppcheck and clang-tidy of lib/; per board (TEST_BOARDS= to pick) cppcheck of its board code and the freestanding check of its libpl011.a
unit-test: ## host cmocka tests: the driver against the behavioural model (and the one-core build's preemption tests)
unit-test-single-core: ## every host test but the two-core ones, built with PL011_SINGLE_CORE=1 (in test-full)
unit-test-32: ## the same cmocka tests built with -m32 (32-bit size_t and pointers), run by qemu-i386
stats-link-test: ## a program and a library built with different PL011_STATS or PL011_INTERRUPTS fail to link (in unit-test)
qemu-test: ## every example on every QEMU machine of every board (TEST_BOARDS= to pick)
qemu-test-full: ## the same, with the 1 MiB echo soak on every machine (docs/testing.md)
qemu-test-single-core: ## the examples built with PL011_SINGLE_CORE=1 (docs/building.md) on versatilepb, virt64, lm3s6965evb (in test-full)
console-test: ## examples/console typed at through make run SERIAL=pty (and tcp), as a terminal does, on three machines
consumer-test: ## the README's ways to use the library (plain make, CMake) and its interrupt-driven firmware with docs/interrupts.md's hook-up on QEMU versatilepb, virt64, lm3s6965evb
docs-check: ## every relative link in *.md resolves; the board tables list every board; the porting guide's facts; README.md's word budget, docs/interrupts.md's 15-line blocks, include/pl011.h's 400 lines and 10-line comments
spin-check: ## docs/tx_owner.pml (the TX owner word), docs/imsc_word.pml (IMSC and the RX pause) and docs/beside_places.pml (panics beside the owner) checked by SPIN, mutants caught
openocd-check: ## every boards/*/openocd.cfg parses (OpenOCD's dummy adapter)
installer-check: ## tools/install-deps.sh against a fake apt-get (lock waits, probes, CROSS_COMPILE)
fresh-test: ## as root: make run and make test in a fresh Debian 12 chroot (not in make test)
bench: ## TX strategies and RX modes measured on the model (docs/benchmarks.md)
fuzz: ## libFuzzer on preemption runs and call sequences, FUZZ_SECONDS long
mutate: ## mutation score of the host tests on lib/ (MUTANTS= id patterns; docs/testing.md)
mutate-blind: ## the same for the blind mutant set (tools/mutants_blind.py), scored separately
coverage: ## line and branch coverage of lib/ by the host tests, and the uncovered lines
board-check: ## (TEST_BOARDS= to pick) each board's FIFO depth, UART clock and interrupt against docs/hardware-bring-up.md and, by examples/probe, the QEMU machines
size: ## the size table of docs/size.md: polled only, interrupt TX with one strategy (MEASURED) + RX, everything, on five targets (tools/size.py)
size-readme: ## write the table make size prints into docs/size.md
sync-count: ## DMBs, LDREX/STREX and __atomic helper calls along pl011_irq_handler's call tree, ARMv7-A and ARMv6-M (static counts, tools/sync_count.py)
layers-check: ## the calls between lib/'s files (nm): the cycles and the calls up a layer (tools/check_layers.py); every atomic access in lib/ passes the seam's atomic point (tools/check_atomic_points.py)
size-check: ## docs/size.md's size table is current; no 64-bit division helper in a polled 32-bit firmware; no firmware links a TX strategy it does not name (nm)
sdcard: ## BUILD/BOARD/sdcard/: kernel.img and config.txt for a Raspberry Pi SD card
flash: ## load and start FLASH_EXAMPLE on a board through OpenOCD (JTAG)
deps: ## install every missing tool with apt-get (as root), or print the command
clean: ## remove BUILD/
	rm -rf $(BUILD)
help: ## this list
	@echo "BOARD=$(BOARD) (boards: $(BOARDS))"
	@echo "examples: $(EXAMPLES)"
	@awk -F' *## *' '/^[a-z0-9-]+:.*## / { sub(/:.*/, "", $$1); printf "  make %-16s %s\n", $$1, $$2 } \
		/^## / { note = substr($$0, 4); next } \
		note && /^[A-Z0-9_]+ \?=/ { sub(/ \?= */, "="); vars = vars "  " (length($$0) > 22 ? \
			$$0 "\n" sprintf("%24s", "") : sprintf("%-22s", $$0)) " " note "\n" } \
		{ note = "" } \
		END { printf "variables (default):\n%s", vars }' $(filter Makefile mk/%,$(MAKEFILE_LIST))

# For scripts: the QEMU command line of QEMU_MACHINE, BOARD's QEMU machines, what it needs.
print-qemu:
	@echo $(QEMU) $(QEMU_FLAGS)
print-qemu-machines:
	@echo $(BOARD_QEMU_MACHINES)
print-qemu-smp:
	@echo $(BOARD_QEMU_SMP)
print-board-needs:
	@echo $(BOARD_NEEDS)
print-board-facts:
	@$(CC) $(filter-out -MMD -MP,$(APP_CFLAGS)) -E -P tests/boards/board_facts.h | grep '^board-fact'

.PHONY: all lib examples run term console-test debug test test-full analyze unit-test unit-test-32 unit-test-32-quick unit-test-single-core qemu-test qemu-test-full qemu-test-single-core consumer-test docs-check layers-check \
	openocd-check installer-check bench fuzz size size-readme size-check sdcard flash deps deps-check clean help print-qemu \
	print-qemu-machines print-qemu-smp print-board-needs print-board-facts freestanding-check mutate mutate-blind mutate-quick \
	coverage board-check fuzz-quick fresh-test qemu-test-self board-analyze sync-count
