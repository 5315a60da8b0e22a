# Real hardware: a folder for a Raspberry Pi SD card, and loading an example through OpenOCD.

## the example `make flash` loads and starts
FLASH_EXAMPLE ?= hello
## the example `make sdcard` turns into kernel.img
SDCARD_EXAMPLE ?= $(FLASH_EXAMPLE)
OPENOCD ?= openocd
## the JTAG adapter's OpenOCD script (others: interface/cmsis-dap.cfg, interface/ftdi/...)
OPENOCD_INTERFACE ?= interface/jlink.cfg
## rpi2 only: bcm2837 for a Pi 3 or a Pi 2 v1.2 (default: bcm2836, the Pi 2 v1.1)
OPENOCD_CHIP ?=
BOARD_OPENOCD_CFG := $(wildcard boards/$(BOARD)/openocd.cfg)
BOARD_SDCARD_CONFIG := $(wildcard boards/$(BOARD)/config.txt)
LACKS_flash := $(if $(BOARD_OPENOCD_CFG),,has no boards/$(BOARD)/openocd.cfg; boards with one: \
	$(patsubst boards/%/openocd.cfg,%,$(wildcard boards/*/openocd.cfg)))
LACKS_sdcard := $(if $(BOARD_SDCARD_CONFIG),,does not boot from an SD card (no \
	boards/$(BOARD)/config.txt); boards that do: $(patsubst boards/%/config.txt,%,$(wildcard boards/*/config.txt)))

sdcard: $(call board_can,sdcard,$(OUT)/examples/$(SDCARD_EXAMPLE).img $(BOARD_SDCARD_CONFIG))
	$(Q)sh tools/sdcard.sh $(OUT)/sdcard $(OUT)/examples/$(SDCARD_EXAMPLE).img \
		$(BOARD_SDCARD_CONFIG) "$(SDCARD_EXAMPLE) for $(BOARD)" "$(BOARD_FIRMWARE_FILES)"

flash: $(call board_can,flash,$(OUT)/examples/$(FLASH_EXAMPLE).elf)
	$(Q)OPENOCD="$(OPENOCD)" READELF=$(CROSS_COMPILE)readelf sh tools/flash.sh \
		$(OUT)/examples/$(FLASH_EXAMPLE).elf $(BOARD_OPENOCD_CFG) "$(OPENOCD_INTERFACE)" $(OPENOCD_CHIP)
