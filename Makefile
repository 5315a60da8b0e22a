# pl011: build the library, the examples for one BOARD, the host tests and the QEMU tests.
# `make help` lists the targets. V=1 shows the commands. Objects go under build/.

BOARD ?= versatilepb
CROSS_COMPILE ?= arm-none-eabi-
HOST_CC ?= gcc
PYTHON ?= python3
V ?= 0
BUILD := build

ifeq ($(V),1)
Q :=
else
Q := @
endif

BOARDS := $(sort $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk)))
ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error unknown BOARD '$(BOARD)': choose one of $(BOARDS))
endif
include boards/$(BOARD)/board.mk

CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
OBJCOPY := $(CROSS_COMPILE)objcopy
SIZE := $(CROSS_COMPILE)size

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes
TARGET_CFLAGS := $(BOARD_CPU_FLAGS) -std=c11 -O2 -g $(WARNINGS) -ffunction-sections -fdata-sections
LIB_CFLAGS := $(TARGET_CFLAGS) -ffreestanding -Iinclude -Ilib
APP_CFLAGS := $(TARGET_CFLAGS) -Iinclude -Iboards/$(BOARD) -Iboards/common
LDFLAGS := $(BOARD_CPU_FLAGS) --specs=nano.specs -nostartfiles -Wl,--gc-sections \
	-T $(BOARD_LINKER_SCRIPT)

OUT := $(BUILD)/$(BOARD)
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(OUT)/%.o)
LIBRARY := $(OUT)/libpl011.a
COMMON_SRCS := boards/common/console.c boards/common/cpu.c boards/common/newlib_syscalls.c
BOARD_OBJS := $(patsubst %,$(OUT)/%.o,$(BOARD_SRCS) $(COMMON_SRCS))
EXAMPLES := $(sort $(patsubst examples/%/main.c,%,$(wildcard examples/*/main.c)))
EXAMPLE_ELFS := $(EXAMPLES:%=$(OUT)/examples/%.elf)
RUN_EXAMPLE ?= hello

# QEMU: no audio, no graphics; semihosting carries the exit status.
QEMU := qemu-system-arm
QEMU_MACHINE ?= $(firstword $(BOARD_QEMU_MACHINES))
QEMU_FLAGS := -M $(QEMU_MACHINE) $(BOARD_QEMU_FLAGS) -semihosting -audiodev none,id=noaudio

# Host tests: the driver against the behavioural model, through the register seam.
HOST_OUT := $(BUILD)/host
HOST_CFLAGS := -std=c11 -g -O1 $(WARNINGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
	-DPL011_IO_HOOKS -Iinclude -Ilib -Itests/model -Itests/unit
HOST_LIB_OBJS := $(LIB_SRCS:%.c=$(HOST_OUT)/%.o)
MODEL_OBJS := $(patsubst %.c,$(HOST_OUT)/%.o,$(wildcard tests/model/*.c))
UNIT_SUPPORT_OBJS := $(patsubst %.c,$(HOST_OUT)/%.o,$(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c)))
UNIT_TESTS := $(sort $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c)))
UNIT_BINS := $(UNIT_TESTS:%=$(HOST_OUT)/%)

.PHONY: print-qemu print-qemu-machines all lib examples run test unit-test qemu-test bench size clean help deps flash debug sdcard \
	openocd-check analyze

all: lib examples

help:
	@echo "pl011 make targets (BOARD=$(BOARD); boards: $(BOARDS))"
	@echo "  make [all]        library and every example for BOARD, under $(OUT)/"
	@echo "  make lib          $(LIBRARY) only"
	@echo "  make run          build and run RUN_EXAMPLE (default hello) in QEMU; exit status is its own"
	@echo "  make test         deps, host unit tests, every example on every QEMU board, OpenOCD checks"
	@echo "  make unit-test    host cmocka tests (ring, baud, config, model, driver on the model)"
	@echo "  make qemu-test    every example on every QEMU machine of every board"
	@echo "  make bench        TX strategies and RX modes measured on the model (docs/benchmarks.md)"
	@echo "  make analyze      cppcheck, clang-tidy and the freestanding check of lib/"
	@echo "  make size         code and data size of the library for BOARD"
	@echo "  make flash        load and start an example on a Raspberry Pi through OpenOCD"
	@echo "  make sdcard       files for a FAT SD card (Raspberry Pi boards)"
	@echo "  make debug        QEMU halted with a gdb server, gdb-multiarch attached"
	@echo "  make deps         install missing tools with apt-get (root), or print the command"
	@echo "  make clean        remove build/"
	@echo "Variables: BOARD=, RUN_EXAMPLE=, CROSS_COMPILE=$(CROSS_COMPILE), V=1 for commands"

deps:
	$(Q)sh tools/install-deps.sh

lib: $(LIBRARY)
examples: $(EXAMPLE_ELFS)

$(LIBRARY): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUT)/lib/%.o: lib/%.c $(wildcard include/*.h lib/*.h) | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@

$(OUT)/boards/%.c.o: boards/%.c $(wildcard include/*.h boards/common/*.h boards/$(BOARD)/*.h) | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(APP_CFLAGS) -c $< -o $@

$(OUT)/boards/%.S.o: boards/%.S | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC) $(BOARD_CPU_FLAGS) -c $< -o $@

# Each example is every .c in its folder, linked with the board, newlib and the library.
.SECONDARY:
.SECONDEXPANSION:
$(OUT)/examples/%.elf: $$(wildcard examples/$$*/*.c) $(BOARD_OBJS) $(LIBRARY) $(BOARD_LINKER_SCRIPT)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(APP_CFLAGS) -Iexamples/$* $(LDFLAGS) $(wildcard examples/$*/*.c) $(BOARD_OBJS) \
		$(LIBRARY) -lgcc -o $@

# For scripts: the QEMU command line of QEMU_MACHINE (without display and serial options), and the QEMU machines of BOARD.
print-qemu:
	@echo $(QEMU) $(QEMU_FLAGS)
print-qemu-machines:
	@echo $(BOARD_QEMU_MACHINES)

run: $(OUT)/examples/$(RUN_EXAMPLE).elf
	$(Q)$(QEMU) $(QEMU_FLAGS) -nographic -kernel $<

size: $(LIBRARY)
	$(Q)$(SIZE) -t $(LIBRARY)

# Host side -------------------------------------------------------------------------------

$(HOST_OUT)/%.o: %.c $(wildcard include/*.h lib/*.h tests/model/*.h tests/unit/*.h) | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(HOST_OUT)/test_%: $(HOST_OUT)/tests/unit/test_%.o $(HOST_LIB_OBJS) $(MODEL_OBJS) $(UNIT_SUPPORT_OBJS)
	@echo "  HOSTLD  $@"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $^ -lcmocka -o $@

unit-test: $(UNIT_BINS)
	$(Q)$(PYTHON) tests/run_unit.py $(UNIT_BINS)

# The benchmark is one -O2 program without sanitizers, built from the sources in one step.
$(HOST_OUT)/bench: tests/bench/bench.c $(LIB_SRCS) $(wildcard tests/model/*.c) tests/unit/harness.c \
		$(wildcard include/*.h lib/*.h tests/model/*.h tests/unit/*.h) | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"
	$(Q)$(HOST_CC) $(filter-out -O1 -fsanitize=% -fno-sanitize-recover=%,$(HOST_CFLAGS)) -O2 \
		$(filter %.c,$^) -o $@

bench: $(HOST_OUT)/bench
	$(Q)$< > $(BUILD)/bench.txt; status=$$?; cat $(BUILD)/bench.txt; exit $$status

qemu-test: deps-stamp
	$(Q)$(PYTHON) tests/qemu/run_qemu_tests.py $(if $(filter 1,$(V)),--verbose)

openocd-check: deps-stamp
	$(Q)sh tests/openocd/check_configs.sh

# Static checks of lib/: cppcheck, clang-tidy (memcpy "insecure API" noise off), and that the
# library needs nothing but memcpy/memset and compiler helpers on every board.
TIDY_CHECKS := -*,bugprone-*,clang-analyzer-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling
analyze: deps-stamp
	@echo "  CPPCHECK lib/"
	$(Q)cppcheck --enable=warning,style,performance,portability --std=c11 --error-exitcode=1 \
		--inline-suppr -q -Iinclude -Ilib lib/
	@echo "  TIDY    lib/"
	$(Q)clang-tidy --quiet --warnings-as-errors='*' -checks='$(TIDY_CHECKS)' $(LIB_SRCS) -- \
		-std=c11 -Iinclude -Ilib -ffreestanding 2>&1 | { grep -v "warnings generated" || true; }
	$(Q)for board in $(BOARDS); do \
		$(MAKE) --no-print-directory -s BOARD=$$board lib && \
		sh tools/check-freestanding.sh $(BUILD)/$$board/libpl011.a || exit 1; \
	done

test: deps-stamp
	$(Q)$(MAKE) --no-print-directory analyze
	$(Q)$(MAKE) --no-print-directory unit-test
	$(Q)$(MAKE) --no-print-directory qemu-test
	$(Q)if [ -d tests/openocd ]; then $(MAKE) --no-print-directory openocd-check; fi

# The stamp makes every build depend on the tools being there, checked once per build tree.
deps-stamp: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: tools/install-deps.sh
	$(Q)sh tools/install-deps.sh
	@mkdir -p $(BUILD) && touch $@
.PHONY: deps-stamp

clean:
	rm -rf $(BUILD)
