/* Broadcom BCM2835/6/7 and BCM2711 peripherals shared by the Raspberry Pi boards. */
#ifndef BCM283X_H
#define BCM283X_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Offsets from the ARM peripheral base (BOARD_PERIPHERAL_BASE: 0x20000000 on BCM2835,
 * 0x3F000000 on BCM2836/7, 0xFE000000 on BCM2711 in low-peripheral mode). "BCM" below is the
 * "BCM2835 ARM Peripherals" document; BCM2836/7 and BCM2711 keep these blocks unchanged
 * except where noted.
 */
#define BCM283X_SYSTEM_TIMER_OFFSET 0x003000u /* BCM 12.1 */
#define BCM283X_INTERRUPT_OFFSET 0x00B200u    /* BCM 7.5 (0x7E00B200 on the bus) */
#define BCM283X_MAILBOX_OFFSET 0x00B880u      /* VideoCore mailbox 0 / 1 */
#define BCM283X_GPIO_OFFSET 0x200000u         /* BCM 6.1 */
#define BCM283X_UART0_OFFSET 0x201000u        /* BCM 13.4: the PL011 */
#define BCM283X_PERIPHERAL(offset) ((uintptr_t)BOARD_PERIPHERAL_BASE + (offset))

/* GPU interrupt numbers (BCM 7.5, "ARM peripherals interrupts table"). System timer channels
 * 0 and 2 are taken by the VideoCore firmware; the ARM may use 1 and 3. */
#define BCM283X_GPU_IRQ_TIMER1 1u
#define BCM283X_GPU_IRQ_TIMER3 3u
#define BCM283X_GPU_IRQ_UART0 57u
/* The tick: system timer channel 1, so GPU IRQ 1 (GIC ID 97 on BCM2711). */
#define BCM283X_TICK_CHANNEL 1u
#define BCM283X_GPU_IRQ_TICK BCM283X_GPU_IRQ_TIMER1

/* The PL011 UART clock id of the firmware's clock tags, and the rate assumed when neither the
 * build (BOARD_UART_CLOCK_HZ) nor the firmware says otherwise: current firmware sets 48 MHz
 * (older firmware 3 MHz; config.txt init_uart_clock= changes it). */
#define BCM283X_CLOCK_ID_UART 2u
#define BCM283X_UART_CLOCK_FALLBACK_HZ 48000000u
/* How long the firmware gets to answer a mailbox request (it answers in well under 1 ms). */
#define BCM283X_MAILBOX_TIMEOUT_US 100000u

/*
 * Memory barrier for switching peripherals. BCM 1.3: reads from different peripherals may
 * return out of order, so put one before the first access to a peripheral and after the last
 * read from it. ARMv6 has no DMB instruction: CP15 c7, c10, 5 is its data memory barrier.
 */
static inline void bcm283x_barrier(void)
{
#if __ARM_ARCH >= 7
	__asm__ volatile("dmb sy" ::: "memory");
#else
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 5" : : "r"(0) : "memory");
#endif
}

/* Data synchronization barrier: memory writes complete before the next instruction (used
 * around the mailbox, whose buffer the VideoCore reads and writes in RAM). */
static inline void bcm283x_sync(void)
{
#if __ARM_ARCH >= 7
	__asm__ volatile("dsb sy" ::: "memory");
#else
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4" : : "r"(0) : "memory");
#endif
}

/* The system timer's free-running 1 MHz counter (low word), with the BCM 1.3 barriers. */
uint32_t bcm283x_timer_now_us(void);

/*
 * The tick on system timer compare channel BCM283X_TICK_CHANNEL. start arms
 * the first match one period from now; stop disarms it. bcm283x_tick_acknowledge, called from
 * the interrupt, returns true if the channel matched, clears the match and arms the next one
 * a whole period after the previous match (no drift), skipping periods already missed.
 */
void bcm283x_tick_timer_start(uint32_t period_us);
void bcm283x_tick_timer_stop(void);
bool bcm283x_tick_acknowledge(void);

/* GPIO 30-33 back to inputs where the firmware left them in ALT3 (the PL011, for Bluetooth),
 * then GPIO 14 (TXD0) and 15 (RXD0) to ALT0, the PL011 (BCM 6.2). */
void bcm283x_uart0_pins_alt0(void);
/* Resistors on GPIO 14/15: none on TXD, pull-up on RXD. BCM2835-7 by the GPPUD/GPPUDCLK0
 * sequence (BCM 6.1, GPPUDCLKn) timed by the system timer, BCM2711 by
 * GPIO_PUP_PDN_CNTRL_REG0 (BCM2711 ARM Peripherals 5.2). */
void bcm2835_uart0_pins_pulls(void);
void bcm2711_uart0_pins_pulls(void);

/*
 * Ask the firmware for a clock rate through the mailbox property channel (tag 0x00030002
 * "get clock rate"). Bounded by BCM283X_MAILBOX_TIMEOUT_US. Returns true and sets *rate_hz
 * only for a complete, plausible answer.
 */
bool bcm283x_mailbox_clock_rate(uint32_t clock_id, uint32_t *rate_hz);

/* Where the UART clock came from. */
enum bcm283x_clock_source {
	BCM283X_CLOCK_FROM_BUILD,    /* BOARD_UART_CLOCK_HZ given at build time */
	BCM283X_CLOCK_FROM_FIRMWARE, /* the mailbox answered */
	BCM283X_CLOCK_FALLBACK,      /* no answer: BCM283X_UART_CLOCK_FALLBACK_HZ */
};

/* The PL011 clock: the build override, else the firmware's answer, else the fallback. */
uint32_t bcm283x_uart_clock_hz(enum bcm283x_clock_source *source);

/*
 * Probe whether LDREX/STREX (LDXR/STXR on AArch64) succeed on this memory system (bounded: a few attempts). With the
 * MMU and caches off, exclusives go out on the bus, and an interconnect without an exclusive
 * monitor makes every STREX fail; the driver's TX lock would then spin. QEMU always passes.
 */
bool bcm283x_exclusives_work(void);
/* Warn on the console if bcm283x_exclusives_work fails (call after board_mmu_enable). */
void bcm283x_exclusives_check(void);

/*
 * Ask the firmware which RAM belongs to the ARM (mailbox property tag 0x00010005 "get ARM
 * memory": base and size in bytes; the rest of the SDRAM belongs to the VideoCore). Bounded
 * like the clock query; true only for a complete answer.
 */
bool bcm283x_mailbox_arm_memory(uint32_t *base, uint32_t *size);

/* The MMU maps in 1 MiB sections. */
#define BCM283X_SECTION_BYTES 0x100000u

/*
 * After the console is up: map the ARM's RAM as the firmware reports it (or, without an
 * answer, only the image's own sections, with a warning), everything else below
 * BOARD_DEVICE_START faulting, turn the MMU and caches on (board_mmu_enable), then
 * bcm283x_exclusives_check.
 */
void bcm283x_memory_init(void);

/*
 * Board start of the console: GPIO 14/15 to ALT0, their resistors by pulls (the SoC's scheme),
 * UART clock by bcm283x_uart_clock_hz, then the polled console on UART0. Prints a warning line
 * only when something will not work as expected (clock fallback used, exclusives failing).
 */
void bcm283x_console_init(void (*pulls)(void));
/* board_name() then `text` on the console: the boards' one way to say something will not work. */
void bcm283x_console_warning(const char *text);

/* BCM2835 interrupt controller (BCM 7.5), used by BCM2835/6/7 (BCM2711 boards use the GIC). */
void bcm2835_irq_controller_init(void);
void bcm2835_irq_line_enable(uint32_t gpu_irq, bool enable);
/* Dispatch pending GPU interrupts: the console UART, then the tick. Called with IRQs masked. */
void bcm2835_irq_dispatch(void);

/* The GPU interrupts (0-63) asserted now, for board_irq_lines_asserted; leaves all disabled. */
uint32_t bcm2835_irq_lines_asserted(uint32_t *lines, uint32_t max);

#endif
