# rp2040: Raspberry Pi RP2040 (two Cortex-M0+, ARMv6-M: no LDREX/STREX, atomics by PRIMASK and an SIO spinlock) on the Pico, loaded into SRAM. No QEMU machine.
BOARD_CPU_FLAGS := -mcpu=cortex-m0plus -mthumb -mfloat-abi=soft
# Two cores without exclusives: the library's ordered accesses get DMBs, and its atomic
# read-modify-writes take SIO spinlock 31 (SIO at 0xd0000000, SPINLOCK0 at +0x100: RP2040
# datasheet 2.3.1.7) with IRQs masked, so both cores may write and panic.
BOARD_CPU_FLAGS += -DPL011_IO_MULTI_CORE -DBOARD_ATOMICS_SPINLOCK=0xD000017Cu
include boards/cortex-m/cortex_m.mk
BOARD_SRCS += boards/rp2040/board.c
BOARD_LINKER_SCRIPT := linker/rp2040.ld
# make flash: the Raspberry Pi Debug Probe (or a Pico running debugprobe) is a CMSIS-DAP adapter.
OPENOCD_INTERFACE ?= interface/cmsis-dap.cfg
# A .uf2 of each example for the BOOTSEL drive (tools/elf2uf2.py; Debian has no picotool).
BOARD_EXAMPLE_IMAGES = $(EXAMPLE_ELFS:.elf=.uf2)
$(BUILD)/rp2040/examples/%.uf2: $(BUILD)/rp2040/examples/%.elf tools/elf2uf2.py
	@echo "  UF2     $@"
	$(Q)$(PYTHON) tools/elf2uf2.py $< $@
