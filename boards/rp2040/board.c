/* rp2040: resets, XOSC and system PLL to 125 MHz, the 1 MHz TIMER as clock and tick, UART0 on GPIO0/1. */
#include "board.h"
#include "board_common.h"
#include "cortex_m.h"
#include "mmio.h"

/* Every peripheral register has atomic aliases: +0x2000 sets the bits written, +0x3000 clears
 * them (RP2040 datasheet section 2.1.2). */
#define ALIAS_SET 0x2000u
#define ALIAS_CLR 0x3000u

/* RESETS (section 2.14.3): RESET and RESET_DONE, one bit per block. */
#define RESETS_RESET 0x0u
#define RESETS_RESET_DONE 0x8u
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PLL_SYS (1u << 12)
#define RESET_TIMER (1u << 21)
#define RESET_UART0 (1u << 22)

/* XOSC (section 2.16.7). STARTUP.DELAY counts 256 crystal cycles: 47 is 1 ms at 12 MHz. */
#define XOSC_CTRL 0x00u
#define XOSC_STATUS 0x04u
#define XOSC_STARTUP 0x0Cu
#define XOSC_CTRL_ENABLE (0xFABu << 12)
#define XOSC_CTRL_FREQ_RANGE_1_15MHZ 0xAA0u
#define XOSC_STATUS_STABLE (1u << 31)
#define XOSC_STARTUP_DELAY_1MS ((BOARD_XOSC_HZ / 1000u + 255u) / 256u)

/* CLOCKS (section 2.15.7). */
#define CLK_REF_CTRL 0x30u
#define CLK_REF_SELECTED 0x38u
#define CLK_SYS_CTRL 0x3Cu
#define CLK_SYS_SELECTED 0x44u
#define CLK_PERI_CTRL 0x48u
#define CLK_REF_SRC_MASK 0x3u
#define CLK_REF_SRC_XOSC 0x2u
#define CLK_SYS_SRC_AUX 0x1u       /* 0: clk_ref */
#define CLK_SYS_AUXSRC_MASK (7u << 5) /* 0: pll_sys */
#define CLK_PERI_ENABLE (1u << 11)
#define CLK_PERI_AUXSRC_MASK (7u << 5) /* 0: clk_sys */

/* PLL (section 2.18.4). */
#define PLL_CS 0x0u
#define PLL_PWR 0x4u
#define PLL_FBDIV_INT 0x8u
#define PLL_PRIM 0xCu
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD (1u << 0)
#define PLL_PWR_POSTDIVPD (1u << 3)
#define PLL_PWR_VCOPD (1u << 5)
#define PLL_REFDIV 1u
#define PLL_FBDIV 125u
#define PLL_PRIM_125MHZ ((6u << 16) | (2u << 12)) /* POSTDIV1 6, POSTDIV2 2 */

/* WATCHDOG TICK (section 4.7.6): the 1 us tick of the TIMER, CYCLES of clk_ref per tick. */
#define WATCHDOG_TICK 0x2Cu
#define WATCHDOG_TICK_ENABLE (1u << 9)

/* TIMER (section 4.6.5): a 64-bit count of microseconds; alarm 0 matches its low 32 bits. */
#define TIMER_ALARM0 0x10u
#define TIMER_TIMERAWL 0x28u
#define TIMER_INTR 0x34u
#define TIMER_INTE 0x38u
#define TIMER_INTS 0x40u
#define TIMER_ALARM0_BIT (1u << 0)

/* IO_BANK0 GPIOn_CTRL at 0x04 + 8n, FUNCSEL 2 = UART (section 2.19.2: GPIO0 UART0 TX, GPIO1
 * UART0 RX). PADS_BANK0 GPIOn at 0x04 + 4n (section 2.19.6.3): IE bit 6, OD bit 7, PUE bit 3,
 * PDE bit 2. */
#define IO_GPIO_CTRL(n) (0x04u + 8u * (n))
#define IO_FUNCSEL_UART 2u
#define PADS_GPIO(n) (0x04u + 4u * (n))
#define PADS_OD (1u << 7)
#define PADS_IE (1u << 6)
#define PADS_PUE (1u << 3)
#define PADS_PDE (1u << 2)

/* Every hardware wait is bounded in loop passes (before the TIMER runs there is no clock):
 * 100,000 reads take milliseconds even at the ring oscillator's 6 MHz, longer than the 1 ms
 * crystal start-up and the PLL lock. */
#define POLLS 100000u

static int wait_bits(uintptr_t address, uint32_t mask, uint32_t wanted)
{
	for (uint32_t poll = 0; poll < POLLS; poll++) {
		if ((mmio_read(address) & mask) == wanted)
			return 1;
	}
	return 0;
}

static void resets_release(uint32_t blocks)
{
	mmio_write(RP2040_RESETS_BASE + ALIAS_CLR + RESETS_RESET, blocks);
	(void)wait_bits(RP2040_RESETS_BASE + RESETS_RESET_DONE, blocks, blocks);
}

/*
 * Section 2.15.3.2: a glitchless mux may only change while it is not the one selected, so
 * clk_sys goes to clk_ref before the PLL is touched, and clk_ref to the crystal. A PLL that a
 * previous program left running is reset first. Returns clk_sys.
 */
static uint32_t clock_start(void)
{
	uintptr_t clocks = RP2040_CLOCKS_BASE;
	mmio_write(clocks + ALIAS_CLR + CLK_SYS_CTRL, CLK_SYS_SRC_AUX);
	(void)wait_bits(clocks + CLK_SYS_SELECTED, 0x1u, 0x1u);

	mmio_write(RP2040_XOSC_BASE + XOSC_STARTUP, XOSC_STARTUP_DELAY_1MS);
	mmio_write(RP2040_XOSC_BASE + XOSC_CTRL, XOSC_CTRL_ENABLE | XOSC_CTRL_FREQ_RANGE_1_15MHZ);
	if (!wait_bits(RP2040_XOSC_BASE + XOSC_STATUS, XOSC_STATUS_STABLE, XOSC_STATUS_STABLE))
		return BOARD_XOSC_HZ; /* wrong (the ring oscillator runs): garbled text is the hint */
	mmio_write(clocks + CLK_REF_CTRL,
		   (mmio_read(clocks + CLK_REF_CTRL) & ~CLK_REF_SRC_MASK) | CLK_REF_SRC_XOSC);
	(void)wait_bits(clocks + CLK_REF_SELECTED, 1u << CLK_REF_SRC_XOSC, 1u << CLK_REF_SRC_XOSC);

	/* Section 2.18.2: dividers first, then power the PLL and the VCO, lock, then the post
	 * dividers. */
	mmio_write(RP2040_RESETS_BASE + ALIAS_SET + RESETS_RESET, RESET_PLL_SYS);
	resets_release(RESET_PLL_SYS);
	mmio_write(RP2040_PLL_SYS_BASE + PLL_CS, PLL_REFDIV);
	mmio_write(RP2040_PLL_SYS_BASE + PLL_FBDIV_INT, PLL_FBDIV);
	mmio_write(RP2040_PLL_SYS_BASE + ALIAS_CLR + PLL_PWR, PLL_PWR_PD | PLL_PWR_VCOPD);
	if (!wait_bits(RP2040_PLL_SYS_BASE + PLL_CS, PLL_CS_LOCK, PLL_CS_LOCK))
		return BOARD_XOSC_HZ; /* clk_sys stays on clk_ref, the crystal */
	mmio_write(RP2040_PLL_SYS_BASE + PLL_PRIM, PLL_PRIM_125MHZ);
	mmio_write(RP2040_PLL_SYS_BASE + ALIAS_CLR + PLL_PWR, PLL_PWR_POSTDIVPD);

	mmio_write(clocks + ALIAS_CLR + CLK_SYS_CTRL, CLK_SYS_AUXSRC_MASK);
	mmio_write(clocks + ALIAS_SET + CLK_SYS_CTRL, CLK_SYS_SRC_AUX);
	(void)wait_bits(clocks + CLK_SYS_SELECTED, 0x2u, 0x2u);
	return BOARD_CPU_HZ;
}

uint32_t board_now_us(void *context)
{
	(void)context;
	return mmio_read(RP2040_TIMER_BASE + TIMER_TIMERAWL);
}

/* The tick is alarm 0, which matches the absolute time: writing the moment arms it. */
/* SIO CPUID (RP2040 datasheet 2.3.1.1, SIO + 0x000): 0 on core 0, 1 on core 1. */
uint32_t board_core_id(void *context)
{
	(void)context;
	return mmio_read(RP2040_SIO_BASE);
}

static void tick_start(uint32_t period_us)
{
	uint32_t now = board_now_us(0);
	board_tick_schedule(period_us, now);
	mmio_write(RP2040_TIMER_BASE + TIMER_INTR, TIMER_ALARM0_BIT); /* write 1 clears */
	mmio_write(RP2040_TIMER_BASE + TIMER_ALARM0, board_tick_due(now));
	mmio_write(RP2040_TIMER_BASE + ALIAS_SET + TIMER_INTE, TIMER_ALARM0_BIT);
}

static void tick_stop(void)
{
	mmio_write(RP2040_TIMER_BASE + ALIAS_CLR + TIMER_INTE, TIMER_ALARM0_BIT);
}

static bool tick_acknowledge(void)
{
	if ((mmio_read(RP2040_TIMER_BASE + TIMER_INTS) & TIMER_ALARM0_BIT) == 0u)
		return false;
	mmio_write(RP2040_TIMER_BASE + TIMER_INTR, TIMER_ALARM0_BIT);
	board_tick_advance();
	mmio_write(RP2040_TIMER_BASE + TIMER_ALARM0, board_tick_due(board_now_us(0)));
	return true;
}

const struct board_tick_timer board_tick_timer = {
	.start = tick_start,
	.stop = tick_stop,
	.acknowledge = tick_acknowledge,
};

static void uart0_pins(void)
{
	/* GPIO0 = TX: output, no pulls. GPIO1 = RX: input enabled, pulled up to the idle level so a
	 * disconnected wire reads as no data rather than a break. */
	uintptr_t pads = RP2040_PADS_BANK0_BASE;
	mmio_write(pads + ALIAS_CLR + PADS_GPIO(0), PADS_OD | PADS_PUE | PADS_PDE);
	mmio_write(pads + ALIAS_CLR + PADS_GPIO(1), PADS_OD | PADS_PDE);
	mmio_write(pads + ALIAS_SET + PADS_GPIO(1), PADS_IE | PADS_PUE);
	mmio_write(RP2040_IO_BANK0_BASE + IO_GPIO_CTRL(0), IO_FUNCSEL_UART);
	mmio_write(RP2040_IO_BANK0_BASE + IO_GPIO_CTRL(1), IO_FUNCSEL_UART);
}

void board_init(void)
{
	cortex_m_irq_lines_off();
	uint32_t cpu_hz = clock_start();
	/* 1 us ticks for the TIMER, counted in cycles of clk_ref, the crystal. */
	mmio_write(RP2040_WATCHDOG_BASE + WATCHDOG_TICK,
		   WATCHDOG_TICK_ENABLE | (BOARD_XOSC_HZ / 1000000u));
	mmio_write(RP2040_CLOCKS_BASE + CLK_PERI_CTRL, CLK_PERI_ENABLE); /* AUXSRC 0: clk_sys */
	resets_release(RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_TIMER | RESET_UART0);
	uart0_pins();
	board_console_start(RP2040_UART0_BASE, cpu_hz);
}
