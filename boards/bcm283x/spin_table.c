/* Pi 3 / Pi 4 in 64-bit mode: the firmware's armstub holds cores 1-3 in a spin table until a kernel posts an entry address. */
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* armstub8.S (raspberrypi/tools, armstubs; also the "cpu-release-addr" of the Linux
 * bcm2837/bcm2711 device trees): core n polls the 64-bit word at 0xD8 + 8n with WFE and jumps
 * to it once it is non-zero. QEMU's raspi3b starts every core at the image's entry instead,
 * where the start-up parks them in WFI (a WFE loop would spin in QEMU and, under -icount, eat
 * the virtual time of core 0): a mailbox interrupt wakes them. */
#define SPIN_TABLE_BASE 0xD8u
/* ARM local peripherals (QA7 rev 3.4 "Core related interrupts"; BCM2711 ARM Peripherals 6.5,
 * the same block at ARM_LOCAL): per core, mailbox 0 interrupt enable at 0x50 + 4n (bit 0) and
 * mailbox 0 write-set at 0x80 + 16n. */
#define LOCAL_MAILBOX_CONTROL(core) (BOARD_LOCAL_BASE + 0x50u + 4u * (core))
#define LOCAL_MAILBOX0_SET(core) (BOARD_LOCAL_BASE + 0x80u + 16u * (core))

extern char _start[];

int board_core_power_on(uint32_t core)
{
	volatile uint64_t *release = (volatile uint64_t *)(uintptr_t)(SPIN_TABLE_BASE + 8u * core);
	*release = (uint64_t)(uintptr_t)_start;
	/* The stub reads the word with the caches off: push it to memory, then wake it. */
	board_dcache_flush(release, sizeof *release);
	__asm__ volatile("sev" ::: "memory");
	mmio_write(LOCAL_MAILBOX_CONTROL(core), 1u);
	mmio_write(LOCAL_MAILBOX0_SET(core), 1u);
	return 0;
}
