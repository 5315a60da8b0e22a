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

## where `make run` puts the console UART: stdio (this terminal; Ctrl-A X quits), pty, tcp, or any QEMU -serial value
SERIAL ?= stdio
## the port of `make run SERIAL=tcp` (a server on 127.0.0.1) and of `make term`
SERIAL_PORT ?= 4555
## the /dev/pts/N `make term` attaches to (QEMU names it at `make run SERIAL=pty`); empty: tcp on SERIAL_PORT
PTY ?=
# Beside stdio the QEMU monitor keeps this terminal ((qemu) prompt: quit ends QEMU), and the
# firmware must not start before the terminal is attached, or its first lines go nowhere: a
# TCP server waits for its client (wait=on); QEMU drops what is written to a pty nobody has
# open, so there it starts halted (-S) until `c` at the monitor.
RUN_SERIAL_FLAGS = $(if $(filter stdio,$(SERIAL)),-nographic,-display none -monitor stdio -serial \
	$(if $(filter pty,$(SERIAL)),pty -S,$(if $(filter tcp,$(SERIAL)),tcp:127.0.0.1:$(SERIAL_PORT)$(COMMA)server=on$(COMMA)wait=on,$(SERIAL))))
COMMA := ,
RUN_SERIAL_HINT_pty := QEMU starts halted: attach a terminal to the /dev/pts/N it names below \
	(make term PTY=/dev/pts/N, or picocom -b 115200 /dev/pts/N), then type c and Enter at (qemu)
RUN_SERIAL_HINT_tcp := QEMU waits for a client on 127.0.0.1:$(SERIAL_PORT): make term SERIAL_PORT=$(SERIAL_PORT) \
	in another terminal (Ctrl-] leaves it)
run: $(call board_can,run,$(OUT)/examples/$(RUN_EXAMPLE).elf)
	$(if $(filter-out stdio,$(SERIAL)),@echo "make run: $(or $(RUN_SERIAL_HINT_$(SERIAL)),console UART on -serial $(SERIAL)); \
		quit at (qemu) ends QEMU")
	$(Q)$(QEMU) $(QEMU_FLAGS) $(RUN_SERIAL_FLAGS) -kernel $(OUT)/examples/$(RUN_EXAMPLE).elf

# A terminal on the UART of `make run SERIAL=tcp` or SERIAL=pty: raw, so that each key goes
# as it is typed (Enter as CR, Backspace as DEL) and the firmware does the echo.
TERM_TARGET = $(if $(PTY),$(PTY)$(COMMA)rawer,TCP:127.0.0.1:$(SERIAL_PORT))
term:
	@echo "make term: attached to $(or $(PTY),127.0.0.1:$(SERIAL_PORT)); Ctrl-] leaves"
	$(Q)socat STDIO$(COMMA)rawer$(COMMA)escape=0x1d $(TERM_TARGET)

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
# make test soaks 64 KiB on every machine and make test-full 1 MiB on one per architecture
# (tests/qemu/examples.py); this runs the 1 MiB soak everywhere.
qemu-test-full: qemu-test-self
	$(Q)BUILD=$(BUILD) $(PYTHON) -u tests/qemu/run_qemu_tests.py --full-soak $(QEMU_TEST_ARGS)
# The examples built with PL011_SINGLE_CORE=1 (docs/building.md, "One core") on one machine
# per architecture: its masked sections (CPSR, DAIF, PRIMASK) on a running core. Not smp,
# which calls the driver from two cores. make test-full runs it.
SINGLE_CORE_EXAMPLES := console early echo hello multiport packets probe rt_loop rtos_wait \
	shutdown_drain tx_cost
qemu-test-single-core:
	$(Q)$(MAKE) --no-print-directory qemu-test BUILD=$(BUILD)/single-core PL011_SINGLE_CORE=1 \
		TEST_BOARDS="versatilepb virt64 lm3s6965" TEST_EXAMPLES="$(SINGLE_CORE_EXAMPLES)"
# examples/console typed at through make run SERIAL=pty and SERIAL=tcp, key by key.
console-test:
	$(Q)BUILD=$(BUILD) $(PYTHON) -u tests/qemu/console_session.py
