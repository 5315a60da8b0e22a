/* The Raspberry Pi memory map: fixed on the 64-bit boards, the mailbox's on the 32-bit ones. */
#include "bcm283x.h"
#include "board.h"
#include "board_common.h"

/* The 64-bit boards' map, which their start-up enables before C code runs and so before the
 * mailbox can say which RAM is the ARM's: RAM from 0 up to the peripherals, Device from there
 * to the top of the 32-bit space (on BCM2837 that includes the local controller at
 * 0x40000000, on BCM2711 the GIC). The 32-bit boards map from the mailbox's answer
 * (bcm283x_memory_init). */
const struct board_memory_region board_memory_map[] = {
	{0, BOARD_DEVICE_START, BOARD_MEMORY_NORMAL},
	{BOARD_DEVICE_START, 0x100000000u - (uint64_t)BOARD_DEVICE_START, BOARD_MEMORY_DEVICE},
};
const uint32_t board_memory_map_count = sizeof board_memory_map / sizeof board_memory_map[0];

#if defined(__aarch64__)
void bcm283x_memory_init(void)
{
	/* The start-up turned the MMU on from board_memory_map before any C code ran. */
	bcm283x_exclusives_check();
}
#else
/* Linker symbols (linker/common_sections.ld): the image runs from _start to the stack tops. */
extern char _start[];
extern char __svc_stack_top[];

void bcm283x_memory_init(void)
{
	uint32_t image_start = (uint32_t)(uintptr_t)_start;
	uint32_t image_end = (uint32_t)(uintptr_t)__svc_stack_top;
	uint32_t base;
	uint32_t size;
	uint32_t end;
	if (bcm283x_mailbox_arm_memory(&base, &size) && base <= image_start &&
	    image_end - base <= size) {
		end = base + size;
	} else {
		/* No (believable) answer: only what the image itself occupies is known to be RAM. */
		base = 0;
		end = (image_end + BCM283X_SECTION_BYTES - 1u) & ~(BCM283X_SECTION_BYTES - 1u);
		bcm283x_console_warning(
			": the firmware did not report the ARM memory; mapping only the "
			"image's own RAM\r\n");
	}
	/* Whole sections of the ARM's RAM Normal, the peripherals up to 4 GiB Device, the rest
	 * of the space below them (the VideoCore's share of the SDRAM) faulting. */
	const struct board_memory_region map[] = {
		{base, (uint64_t)end - base, BOARD_MEMORY_NORMAL},
		{BOARD_DEVICE_START, 0x100000000u - (uint64_t)BOARD_DEVICE_START, BOARD_MEMORY_DEVICE},
	};
	board_mmu_enable(map, sizeof map / sizeof map[0]);
	bcm283x_exclusives_check();
}
#endif
