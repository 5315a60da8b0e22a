# rp2040: Raspberry Pi RP2040 (Cortex-M0+, ARMv6-M: no LDREX/STREX, atomics by PRIMASK) on the Pico, loaded into SRAM. No QEMU machine.
BOARD_CPU_FLAGS := -mcpu=cortex-m0plus -mthumb -mfloat-abi=soft
include boards/cortex-m/cortex_m.mk
BOARD_SRCS += boards/rp2040/board.c boards/common/atomics_irqmask.c
BOARD_LINKER_SCRIPT := linker/rp2040.ld
# make flash: the Raspberry Pi Debug Probe (or a Pico running debugprobe) is a CMSIS-DAP adapter.
OPENOCD_INTERFACE ?= interface/cmsis-dap.cfg
# A .uf2 of each example for the BOOTSEL drive (tools/elf2uf2.py; Debian has no picotool).
BOARD_EXAMPLE_IMAGES = $(EXAMPLE_ELFS:.elf=.uf2)
$(BUILD)/rp2040/examples/%.uf2: $(BUILD)/rp2040/examples/%.elf tools/elf2uf2.py
	@echo "  UF2     $@"
	$(Q)$(PYTHON) tools/elf2uf2.py $< $@
