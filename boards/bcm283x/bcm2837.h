/* BCM2836/BCM2837 (Pi 2, Pi 3, Zero 2 W) addresses, for the 32-bit rpi2 and the 64-bit rpi3 boards. */
#ifndef BCM2837_H
#define BCM2837_H

/* ARM physical address of the peripherals (bus address 0x7E000000, moved for BCM2836). */
#define BOARD_PERIPHERAL_BASE 0x3F000000u
#define BOARD_UART0_BASE 0x3F201000u /* PL011 */
/* BCM2836/7: the ARM's RAM is the VideoCore's uncached alias, so mailbox buffers are passed
 * as 0xC0000000 | address. */
#define BOARD_MAILBOX_BUS_ALIAS 0xC0000000u
/* Everything from the peripherals up is mapped Device; below them RAM, Normal cacheable. */
#define BOARD_DEVICE_START 0x3F000000u
#define BOARD_TIMER_HZ 1000000u /* system timer */
/* The BCM2836 local controller (0x40000000) routes GPU interrupts to core 0 from reset
 * (QA7 rev 3.4, "GPU interrupts routing"), the only core that runs: nothing to set there. */
/* ARM-local peripherals (per-core timers, mailboxes, interrupt routing): QA7 rev 3.4 (BCM2836 ARM-local peripherals) 1.2. */
#define BOARD_LOCAL_BASE 0x40000000u

#endif
