# pl011: build the library, the examples for one BOARD, the host tests and the QEMU tests.
# `make help` lists the targets. V=1 shows the commands. Objects go under build/.

BOARD ?= versatilepb
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
# What a board.mk may set besides BOARD_CPU_FLAGS, BOARD_SRCS, BOARD_LINKER_SCRIPT and
# BOARD_QEMU_MACHINES / BOARD_QEMU_FLAGS: each has the 32-bit A-profile default below.
BOARD_CROSS_COMPILE := arm-none-eabi-
BOARD_QEMU := qemu-system-arm
BOARD_COMMON_SRCS := boards/common/vectors.S boards/common/runtime.S boards/common/console.c \
	boards/common/cpu.c boards/common/newlib_syscalls.c
BOARD_LDFLAGS := --specs=nano.specs -nostartfiles
BOARD_LDLIBS := -lgcc
BOARD_INCLUDES :=
BOARD_KERNEL_IMAGE := kernel.img
include boards/$(BOARD)/board.mk
# A CROSS_COMPILE given on the command line or in the environment wins over the board's.
CROSS_COMPILE ?= $(BOARD_CROSS_COMPILE)

CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
OBJCOPY := $(CROSS_COMPILE)objcopy
SIZE := $(CROSS_COMPILE)size

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes
TARGET_CFLAGS := $(BOARD_CPU_FLAGS) -std=c11 -O2 -g $(WARNINGS) -ffunction-sections -fdata-sections
LIB_CFLAGS := $(TARGET_CFLAGS) -ffreestanding -Iinclude -Ilib
APP_CFLAGS := $(TARGET_CFLAGS) -Iinclude -Iboards/$(BOARD) $(BOARD_INCLUDES) -Iboards/common
LDFLAGS := $(BOARD_CPU_FLAGS) $(BOARD_LDFLAGS) -Wl,--gc-sections \
	-T $(BOARD_LINKER_SCRIPT)

OUT := $(BUILD)/$(BOARD)
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(OUT)/%.o)
LIBRARY := $(OUT)/libpl011.a
COMMON_SRCS := $(BOARD_COMMON_SRCS)
BOARD_OBJS := $(patsubst %,$(OUT)/%.o,$(BOARD_SRCS) $(COMMON_SRCS))
EXAMPLES := $(sort $(patsubst examples/%/main.c,%,$(wildcard examples/*/main.c)))
EXAMPLE_ELFS := $(EXAMPLES:%=$(OUT)/examples/%.elf)
RUN_EXAMPLE ?= hello

# QEMU: no audio, no graphics; semihosting carries the exit status.
QEMU := $(BOARD_QEMU)
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

.PHONY: qemu-test-full fuzz print-qemu print-qemu-machines all lib examples run test unit-test qemu-test bench size clean help deps flash debug sdcard \
	openocd-check analyze

all: lib examples

help:
	@echo "pl011 make targets (BOARD=$(BOARD); boards: $(BOARDS))"
	@echo "  make [all]        library and every example for BOARD, under $(OUT)/"
	@echo "  make lib          $(LIBRARY) only"
	@echo "  make run          build and run RUN_EXAMPLE (default hello) in QEMU; exit status is its own"
	@echo "  make test         deps, static checks, host tests, every example on every QEMU board, OpenOCD"
	@echo "  make unit-test    host cmocka tests (ring, baud, config, model, driver on the model)"
	@echo "  make qemu-test    every example on every QEMU machine of every board (long echo soak on four)"
	@echo "  make qemu-test-full  the same with the 1 MiB echo soak on every machine"
	@echo "  make fuzz         libFuzzer on random driver call sequences (FUZZ_SECONDS=$(FUZZ_SECONDS))"
	@echo "  make bench        TX strategies and RX modes measured on the model (docs/benchmarks.md)"
	@echo "  make analyze      cppcheck, clang-tidy and the freestanding check of lib/"
	@echo "  make size         code and data size of the library for BOARD"
	@echo "  make flash        load and start FLASH_EXAMPLE (hello) on a Raspberry Pi through OpenOCD (JTAG)"
	@echo "  make sdcard       $(OUT)/sdcard/: kernel.img and config.txt for a FAT SD card (Raspberry Pi boards)"
	@echo "  make debug        DEBUG_EXAMPLE in QEMU halted with a gdb server, gdb-multiarch attached"
	@echo "  make deps         install missing tools with apt-get (root), or print the command"
	@echo "  make clean        remove build/"
	@echo "Variables: BOARD=, RUN_EXAMPLE=, CROSS_COMPILE=$(CROSS_COMPILE), V=1 for commands"
	@echo "  Pi: FLASH_EXAMPLE=, SDCARD_EXAMPLE=, OPENOCD_INTERFACE=$(OPENOCD_INTERFACE), OPENOCD_CHIP=bcm2837 (Pi 3),"
	@echo "      BOARD_UART_CLOCK_HZ= (skip the firmware mailbox); debug: DEBUG_EXAMPLE=, GDB_PORT=$(GDB_PORT), DEBUG_SERIAL="

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

$(OUT)/boards/%.c.o: boards/%.c $(wildcard include/*.h boards/*/*.h) | deps-stamp
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
		$(LIBRARY) $(BOARD_LDLIBS) -o $@

# For scripts: the QEMU command line of QEMU_MACHINE (without display and serial options), and the QEMU machines of BOARD.
print-qemu:
	@echo $(QEMU) $(QEMU_FLAGS)
print-qemu-machines:
	@echo $(BOARD_QEMU_MACHINES)

ifeq ($(strip $(BOARD_QEMU_MACHINES)),)
run:
	@echo "make run: board $(BOARD) has no QEMU machine; build with 'make BOARD=$(BOARD)' and use 'make sdcard' or 'make flash'" >&2
	@exit 1
else
run: $(OUT)/examples/$(RUN_EXAMPLE).elf
	$(Q)$(QEMU) $(QEMU_FLAGS) -nographic -kernel $<
endif

size: $(LIBRARY)
	$(Q)$(SIZE) -t $(LIBRARY)

# Host side -------------------------------------------------------------------------------

$(HOST_OUT)/%.o: %.c $(wildcard include/*.h lib/*.h tests/model/*.h tests/unit/*.h) | deps-stamp
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(HOST_OUT)/test_%: $(HOST_OUT)/tests/unit/test_%.o $(HOST_LIB_OBJS) $(MODEL_OBJS) $(UNIT_SUPPORT_OBJS)
	@echo "  HOSTLD  $@"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $^ -lcmocka -lpthread -o $@

# The two-thread ring test again under ThreadSanitizer, which reports a missing
# acquire/release as a data race even on x86, where the hardware would hide it.
TSAN_RING := $(HOST_OUT)/tsan_test_ring_threads
$(TSAN_RING): tests/unit/test_ring_threads.c lib/pl011_ring.c $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (thread sanitizer)"
	$(Q)$(HOST_CC) -std=c11 -g -O1 $(WARNINGS) -fsanitize=thread -Iinclude -Ilib \
		tests/unit/test_ring_threads.c lib/pl011_ring.c -lcmocka -lpthread -o $@

unit-test: $(UNIT_BINS) $(TSAN_RING)
	$(Q)$(PYTHON) tests/run_unit.py $(UNIT_BINS) $(TSAN_RING)

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

# The same with the 1 MiB echo soak on every machine (make test runs it on four: README).
qemu-test-full: deps-stamp
	$(Q)$(PYTHON) tests/qemu/run_qemu_tests.py --full-soak $(if $(filter 1,$(V)),--verbose)

openocd-check: deps-stamp
	$(Q)sh tests/openocd/check_configs.sh

# libFuzzer: the fuzzer's bytes choose sequences of driver calls against the model
# (tests/unit/operations.c) and any broken invariant aborts. Not part of make test: it is
# open-ended. FUZZ_SECONDS bounds a run; the corpus is kept under build/.
FUZZ_SECONDS ?= 60
FUZZ_BIN := $(HOST_OUT)/fuzz_operations
$(FUZZ_BIN): tests/fuzz/fuzz_operations.c tests/unit/operations.c tests/unit/harness.c \
		$(wildcard tests/model/*.c tests/model/*.h tests/unit/*.h lib/*.c lib/*.h include/*.h)
	@mkdir -p $(dir $@)
	@echo "  CLANG   $@ (libFuzzer)"
	$(Q)clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -DPL011_IO_HOOKS \
		-Iinclude -Ilib -Itests/model -Itests/unit tests/fuzz/fuzz_operations.c \
		tests/unit/operations.c tests/unit/harness.c $(wildcard tests/model/*.c) $(LIB_SRCS) -o $@
fuzz: deps-stamp $(FUZZ_BIN)
	@mkdir -p $(BUILD)/fuzz-corpus
	$(Q)$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=60 \
		$(BUILD)/fuzz-corpus

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

# Raspberry Pi and debugging: kernel images, SD card folder, OpenOCD load, QEMU + gdb -----------
FLASH_EXAMPLE ?= hello
SDCARD_EXAMPLE ?= $(FLASH_EXAMPLE)
DEBUG_EXAMPLE ?= $(RUN_EXAMPLE)
OPENOCD ?= openocd
# The JTAG adapter's OpenOCD script. Default: a SEGGER J-Link. Others, e.g.:
# interface/ftdi/olimex-arm-usb-tiny-h.cfg, interface/cmsis-dap.cfg, interface/raspberrypi2-native.cfg.
OPENOCD_INTERFACE ?= interface/jlink.cfg
# rpi2 only: bcm2837 for a Pi 3 or a Pi 2 v1.2 (default bcm2836, the Pi 2 v1.1).
OPENOCD_CHIP ?=
GDB ?= gdb-multiarch
GDB_PORT ?= 1234
# Where the UART goes during `make debug` (any QEMU -serial value, e.g. pty or tcp::4555,server=on).
DEBUG_SERIAL ?= file:$(OUT)/debug-uart.log
FIRMWARE_URL := https://github.com/raspberrypi/firmware/tree/master/boot
BOARD_OPENOCD_CFG := $(wildcard boards/$(BOARD)/openocd.cfg)
BOARD_SDCARD_CONFIG := $(wildcard boards/$(BOARD)/config.txt)
FLASH_BOARDS := $(patsubst boards/%/openocd.cfg,%,$(wildcard boards/*/openocd.cfg))
SDCARD_BOARDS := $(patsubst boards/%/config.txt,%,$(wildcard boards/*/config.txt))
SDCARD_DIR := $(OUT)/sdcard

# Board objects rebuild when the board's flags change (make BOARD_UART_CLOCK_HZ=... adds a
# define), and start-up files when any start-up file changes (rpi4 includes rpi2's).
BOARD_FLAGS_FILE := $(OUT)/board-flags.txt
$(BOARD_FLAGS_FILE): pl011-always
	@mkdir -p $(dir $@)
	@echo '$(BOARD_CPU_FLAGS)' | cmp -s - $@ || echo '$(BOARD_CPU_FLAGS)' > $@
$(BOARD_OBJS) $(LIB_OBJS): $(BOARD_FLAGS_FILE)
$(filter %.S.o,$(BOARD_OBJS)): $(wildcard boards/*/*.S boards/common/*.inc)
.PHONY: pl011-always
pl011-always:

# The raw image the Raspberry Pi firmware loads at 0x8000 (kernel.img).
$(OUT)/examples/%.img: $(OUT)/examples/%.elf
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY) -O binary $< $@

ifeq ($(BOARD_SDCARD_CONFIG),)
sdcard:
	@echo "make sdcard: board $(BOARD) does not boot from an SD card (no boards/$(BOARD)/config.txt); boards that do: $(SDCARD_BOARDS)" >&2
	@exit 1
else
sdcard: $(OUT)/examples/$(SDCARD_EXAMPLE).img $(BOARD_SDCARD_CONFIG)
	$(Q)rm -rf $(SDCARD_DIR) && mkdir -p $(SDCARD_DIR)
	$(Q)cp $< $(SDCARD_DIR)/$(BOARD_KERNEL_IMAGE)
	$(Q)cp $(BOARD_SDCARD_CONFIG) $(SDCARD_DIR)/config.txt
	@printf '%s\n' "$(SDCARD_EXAMPLE) for $(BOARD): copy every file here to the root of a FAT32 SD card," \
		"together with these files from $(FIRMWARE_URL):" "  $(BOARD_FIRMWARE_FILES)" \
		"The UART is on GPIO 14 (TX, header pin 8) and 15 (RX, pin 10), 115200 8N1." \
		> $(SDCARD_DIR)/README.txt
	@echo "  SDCARD  $(SDCARD_DIR)/: $(BOARD_KERNEL_IMAGE) ($(SDCARD_EXAMPLE)), config.txt, README.txt"
	@echo "          add from $(FIRMWARE_URL): $(BOARD_FIRMWARE_FILES)"
endif

ifeq ($(BOARD_OPENOCD_CFG),)
flash:
	@echo "make flash: board $(BOARD) has no boards/$(BOARD)/openocd.cfg; boards with one: $(FLASH_BOARDS)" >&2
	@exit 1
else
flash: $(OUT)/examples/$(FLASH_EXAMPLE).elf
	@entry=$$($(CROSS_COMPILE)readelf -h $< | awk '/Entry point address/ { print $$4 }'); \
	echo "  OPENOCD $< at $$entry through $(OPENOCD_INTERFACE)"; \
	$(OPENOCD) -f $(OPENOCD_INTERFACE) $(if $(OPENOCD_CHIP),-c "set RPI_CHIP $(OPENOCD_CHIP)") \
		-f $(BOARD_OPENOCD_CFG) -c init -c "pl011_load_and_start $< $$entry" -c shutdown
endif

# QEMU halted at the entry point (-S) with its gdb server on GDB_PORT (-s is the same on 1234);
# gdb-multiarch attaches with the ELF's symbols and a breakpoint at main. QEMU runs in its own
# session so that Ctrl-C in gdb interrupts the target instead of killing QEMU; it is stopped when
# gdb exits. Without a terminal (or with CI=true) gdb runs in batch mode instead: it checks the
# stub by running to main, then ends QEMU.
ifeq ($(BOARD_QEMU_MACHINES),)
debug:
	@echo "make debug: board $(BOARD) has no QEMU machine (BOARD_QEMU_MACHINES is empty); debug it on hardware through OpenOCD's gdb server (docs/porting.md)" >&2
	@exit 1
else
debug: $(OUT)/examples/$(DEBUG_EXAMPLE).elf
	@echo "  QEMU    $(QEMU_MACHINE), halted; gdb server on localhost:$(GDB_PORT); UART to $(DEBUG_SERIAL)"
	$(Q)setsid $(QEMU) $(QEMU_FLAGS) -display none -monitor none -serial $(DEBUG_SERIAL) \
		-gdb tcp:localhost:$(GDB_PORT) -S -kernel $< & qemu=$$!; \
	trap 'kill $$qemu 2>/dev/null; wait $$qemu 2>/dev/null' EXIT; trap '' INT; \
	tries=0; until $(PYTHON) -c "import socket, sys; \
		sys.exit(socket.socket().connect_ex(('localhost', $(GDB_PORT))))"; do \
		tries=$$((tries + 1)); sleep 0.1; [ $$tries -lt 100 ] || \
		{ echo "make debug: no gdb server on port $(GDB_PORT) after 10 s" >&2; exit 1; }; \
	done; \
	if [ "$${CI:-}" = true ] || [ ! -t 0 ]; then \
		echo "  GDB     batch mode (CI=true or no terminal): run to main, show where, stop"; \
		timeout 60 $(GDB) -q -nx -batch -ex "target remote localhost:$(GDB_PORT)" \
			-ex "break main" -ex continue -ex "info registers pc" -ex kill $<; \
	else \
		$(GDB) -q -ex "target remote localhost:$(GDB_PORT)" -ex "break main" $<; \
	fi

endif

clean:
	rm -rf $(BUILD)
