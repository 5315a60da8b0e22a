# QEMU: run an example, debug one under gdb, and run every example on every QEMU machine.

QEMU := $(BOARD_QEMU)
QEMU_MACHINE ?= $(firstword $(BOARD_QEMU_MACHINES))
# No audio, no graphics; semihosting carries the example's exit status.
QEMU_FLAGS := -M $(QEMU_MACHINE) $(BOARD_QEMU_FLAGS) -semihosting -audiodev none,id=noaudio
# Recursive: the ways onto hardware (mk/deploy.mk, read later) are those the board has, named
# when the message is printed.
LACKS_run = $(if $(BOARD_QEMU_MACHINES),,has no QEMU machine (BOARD_QEMU_MACHINES is empty): \
	build it with make BOARD=$(BOARD)$(if $(HARDWARE_WAYS),; on hardware: $(HARDWARE_WAYS)))
LACKS_debug = $(if $(LACKS_run),$(LACKS_run); debug on hardware through OpenOCD's gdb server (docs/porting.md))
HARDWARE_WAYS = $(if $(LACKS_flash),,make flash)$(if $(LACKS_flash)$(LACKS_sdcard),, or )$(if \
	$(LACKS_sdcard),,make sdcard)$(if $(BOARD_EXAMPLE_IMAGES), (or copy the example's \
	$(suffix $(firstword $(BOARD_EXAMPLE_IMAGES))) file))

run: $(call board_can,run,$(OUT)/examples/$(RUN_EXAMPLE).elf)
	$(Q)$(QEMU) $(QEMU_FLAGS) -nographic -kernel $(OUT)/examples/$(RUN_EXAMPLE).elf

## the example `make debug` starts halted, with a gdb server on GDB_PORT
DEBUG_EXAMPLE ?= $(RUN_EXAMPLE)
GDB ?= gdb-multiarch
GDB_PORT ?= 1234
## where the UART goes during `make debug`: any QEMU -serial value (pty, tcp::4555,server=on)
DEBUG_SERIAL ?= file:$(OUT)/debug-uart.log
debug: $(call board_can,debug,$(OUT)/examples/$(DEBUG_EXAMPLE).elf)
	$(Q)QEMU="$(QEMU) $(QEMU_FLAGS)" GDB="$(GDB)" GDB_PORT=$(GDB_PORT) PYTHON=$(PYTHON) \
		DEBUG_SERIAL="$(DEBUG_SERIAL)" sh tools/debug.sh $(OUT)/examples/$(DEBUG_EXAMPLE).elf

## `make qemu-test`, `make board-check` and `make analyze` only on these boards (default: every board)
TEST_BOARDS ?=
## `make qemu-test` only these examples (default: all)
TEST_EXAMPLES ?=
QEMU_TEST_ARGS = $(if $(filter 1,$(V)),--verbose) $(foreach board,$(TEST_BOARDS),--board $(board)) \
	$(foreach example,$(TEST_EXAMPLES),--example $(example))
# First the checks themselves, without QEMU (tests/qemu/test_examples.py: an empty capture, a
# report with nothing behind it, a QEMU that never starts are FAIL lines, never a traceback).
qemu-test-self:
	$(Q)$(PYTHON) tests/qemu/test_examples.py
qemu-test: qemu-test-self
	$(Q)BUILD=$(BUILD) $(PYTHON) -u tests/qemu/run_qemu_tests.py $(QEMU_TEST_ARGS)
# make test runs the 1 MiB echo soak on one machine per architecture (LONG_SOAK_MACHINES in
# tests/qemu/examples.py), the others a 64 KiB one; this runs the 1 MiB soak everywhere.
qemu-test-full: qemu-test-self
	$(Q)BUILD=$(BUILD) $(PYTHON) -u tests/qemu/run_qemu_tests.py --full-soak $(QEMU_TEST_ARGS)
