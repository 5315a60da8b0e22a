/* Raspberry Pi SoC parts shared by rpi1, rpi2 and rpi4: system timer, pins, mailbox clock, IRQs. */
#include <stddef.h>

#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "mmio.h"

#define PERIPHERAL(offset) ((uintptr_t)BOARD_PERIPHERAL_BASE + (offset))

/* System timer (BCM 12.1): CS holds the match flags M0..M3 (write 1 to clear), CLO the low
 * word of the 1 MHz counter, C0..C3 the compare values; a channel matches when CLO == Cn. */
#define TIMER_CS PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x00u)
#define TIMER_CLO PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x04u)
#define TIMER_COMPARE(channel) PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x0Cu + 4u * (channel))
#define TICK_MATCH (1u << BCM283X_TICK_CHANNEL)
/* Tries to set a compare value that is still ahead once written (tick_compare_set). */
#define TICK_SET_ATTEMPTS 4u

/* GPIO (BCM 6.1). GPFSELn holds pins 10n..10n+9, three bits each (BCM 6.2): 0b000 input,
 * 0b100 ALT0, 0b111 ALT3. */
#define GPIO_GPFSEL(n) PERIPHERAL(BCM283X_GPIO_OFFSET + 4u * (n))
#define GPIO_GPPUD PERIPHERAL(BCM283X_GPIO_OFFSET + 0x94u)
#define GPIO_GPPUDCLK0 PERIPHERAL(BCM283X_GPIO_OFFSET + 0x98u)
#define GPIO_PUP_PDN_CNTRL_REG0 PERIPHERAL(BCM283X_GPIO_OFFSET + 0xE4u) /* BCM2711 only */
#define GPIO_FSEL_MASK 7u
#define GPIO_FSEL_INPUT 0u
#define GPIO_FSEL_ALT0 4u
#define GPIO_FSEL_ALT3 7u
#define GPIO_UART0_TXD 14u
#define GPIO_UART0_RXD 15u
/* BCM 6.2: GPIO 30-33 in ALT3 are the PL011's CTS, RTS, TXD and RXD. The firmware routes the
 * PL011 there for the Bluetooth chip on the Pi 3, Zero W and 4 (Linux's bcm283x pinctrl node
 * uart0_ctsrts_gpio30 / uart0_gpio32 and Raspberry Pi's disable-bt overlay move it back). */
#define GPIO_UART0_BT_FIRST 30u
#define GPIO_UART0_BT_LAST 33u
/* GPPUD control values (BCM 6.1): 0 off, 1 pull-down, 2 pull-up. */
#define GPIO_GPPUD_OFF 0u
#define GPIO_GPPUD_UP 2u
/* GPIO_PUP_PDN_CNTRL fields (BCM2711 ARM Peripherals 5.2), two bits per pin: 0 none, 1 up. */
#define GPIO_PUP_PDN_NONE 0u
#define GPIO_PUP_PDN_UP 1u
/* BCM 6.1 (GPPUDCLK): wait 150 cycles of the VideoCore clock to set up the control signal, and
 * again to hold the clock: 0.6 us at the 250 MHz default core clock. Waiting until the 1 MHz
 * counter has moved on twice gives at least 1 us, enough down to a 150 MHz core clock. */
#define GPIO_PULL_WAIT_TICKS 2u
/* Bound of that wait should the system timer not count: far more reads than 2 us take. */
#define GPIO_PULL_WAIT_MAX_READS 100000u

/* Mailbox (Raspberry Pi firmware wiki, "Mailboxes"): the ARM reads answers from mailbox 0 and
 * writes requests to mailbox 1; each has its own status word. A message is a 16-byte aligned
 * bus address with the channel number in its low 4 bits. */
#define MAILBOX0_READ PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x00u)
#define MAILBOX0_STATUS PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x18u)
#define MAILBOX1_WRITE PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x20u)
#define MAILBOX1_STATUS PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x38u)
#define MAILBOX_FULL 0x80000000u
#define MAILBOX_EMPTY 0x40000000u
#define MAILBOX_CHANNEL_MASK 0xFu
#define MAILBOX_CHANNEL_PROPERTY 8u /* property tags, ARM to VideoCore */
/* Property interface ("Mailbox property interface" on the same wiki). */
#define PROPERTY_PROCESS_REQUEST 0x00000000u
#define PROPERTY_RESPONSE_SUCCESS 0x80000000u
#define PROPERTY_TAG_RESPONSE 0x80000000u
#define PROPERTY_TAG_GET_CLOCK_RATE 0x00030002u /* 0x00038002 is "set clock rate" */
#define PROPERTY_TAG_GET_ARM_MEMORY 0x00010005u /* answer: base, size in bytes */
#define PROPERTY_TAG_END 0u
/* Sanity bounds on a reported clock: anything outside is treated as no answer. */
#define CLOCK_PLAUSIBLE_MIN_HZ 1000000u
#define CLOCK_PLAUSIBLE_MAX_HZ 1000000000u

/* BCM2835 interrupt controller registers (BCM 7.5), from periph + 0xB200. */
#define INTERRUPT_PENDING1 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x04u)
#define INTERRUPT_PENDING2 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x08u)
#define INTERRUPT_FIQ_CONTROL PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x0Cu)
#define INTERRUPT_ENABLE1 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x10u)
#define INTERRUPT_ENABLE2 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x14u)
#define INTERRUPT_DISABLE1 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x1Cu)
#define INTERRUPT_DISABLE2 PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x20u)
#define INTERRUPT_DISABLE_BASIC PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x24u)

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

/* ---- system timer ------------------------------------------------------------------- */

uint32_t bcm283x_timer_now_us(void)
{
	/* Called between UART accesses by the driver's bounded waits: fence the switch both
	 * ways (BCM 1.3). */
	bcm283x_barrier();
	uint32_t now = mmio_read(TIMER_CLO);
	bcm283x_barrier();
	return now;
}

uint32_t board_now_us(void *context)
{
	(void)context;
	return bcm283x_timer_now_us();
}

/* Written by start/stop with the tick's interrupt line disabled, and by the interrupt. */
static bool tick_running;

/*
 * Arm the compare for the next moment of the boards' common schedule (board_tick_due: a whole
 * number of periods after the previous match, skipping those already nearly past), and check
 * after the write that it still lies ahead or has matched: a delay between reading CLO and
 * writing the compare (a long bus stall, or an emulator's vCPU thread descheduled on a busy
 * host, seen on QEMU raspi3b) could otherwise leave it behind the counter, and the equality
 * compare would then wait for the 2^32 us wrap (71 minutes). Bounded attempts.
 */
static void tick_compare_set(void)
{
	for (uint32_t attempt = 0; attempt < TICK_SET_ATTEMPTS; attempt++) {
		uint32_t next = board_tick_due(mmio_read(TIMER_CLO));
		mmio_write(TIMER_COMPARE(BCM283X_TICK_CHANNEL), next);
		if ((int32_t)(next - mmio_read(TIMER_CLO)) > 0 || (mmio_read(TIMER_CS) & TICK_MATCH))
			break;
	}
}

void bcm283x_tick_timer_start(uint32_t period_us)
{
	bcm283x_barrier();
	tick_running = true;
	mmio_write(TIMER_CS, TICK_MATCH); /* a stale match from an earlier run */
	board_tick_schedule(period_us, mmio_read(TIMER_CLO));
	tick_compare_set();
	bcm283x_barrier();
}

void bcm283x_tick_timer_stop(void)
{
	bcm283x_barrier();
	tick_running = false;
	mmio_write(TIMER_CS, TICK_MATCH);
	bcm283x_barrier();
}

bool bcm283x_tick_acknowledge(void)
{
	bcm283x_barrier();
	if ((mmio_read(TIMER_CS) & TICK_MATCH) == 0) {
		bcm283x_barrier();
		return false;
	}
	mmio_write(TIMER_CS, TICK_MATCH);
	if (!tick_running) {
		bcm283x_barrier();
		return false;
	}
	board_tick_advance();
	tick_compare_set();
	bcm283x_barrier();
	return true;
}

/* ---- pins --------------------------------------------------------------------------- */

/* Position of `pin`'s three-bit field in its GPFSEL register. */
static uint32_t gpio_fsel_shift(uint32_t pin)
{
	return (pin % 10u) * 3u;
}

static void gpio_set_function(uint32_t pin, uint32_t function)
{
	uintptr_t reg = GPIO_GPFSEL(pin / 10u);
	uint32_t shift = gpio_fsel_shift(pin);
	uint32_t fsel = mmio_read(reg);
	mmio_write(reg, (fsel & ~(GPIO_FSEL_MASK << shift)) | (function << shift));
}

static uint32_t gpio_function(uint32_t pin)
{
	return (mmio_read(GPIO_GPFSEL(pin / 10u)) >> gpio_fsel_shift(pin)) & GPIO_FSEL_MASK;
}

void bcm283x_uart0_pins_alt0(void)
{
	bcm283x_barrier();
	/* Take the PL011 back from the Bluetooth pins first: with both pin pairs selecting it,
	 * which RXD input the UART listens to is not documented. Only pins still in ALT3 are
	 * touched; whatever else uses GPIO 30-33 (a Compute Module's own wiring) is left. */
	for (uint32_t pin = GPIO_UART0_BT_FIRST; pin <= GPIO_UART0_BT_LAST; pin++) {
		if (gpio_function(pin) == GPIO_FSEL_ALT3)
			gpio_set_function(pin, GPIO_FSEL_INPUT);
	}
	gpio_set_function(GPIO_UART0_TXD, GPIO_FSEL_ALT0);
	gpio_set_function(GPIO_UART0_RXD, GPIO_FSEL_ALT0);
	bcm283x_barrier();
}

/* At least (GPIO_PULL_WAIT_TICKS - 1) us, bounded by GPIO_PULL_WAIT_MAX_READS timer reads. */
static void gpio_pull_wait(void)
{
	uint32_t start = bcm283x_timer_now_us();
	for (uint32_t reads = 0; reads < GPIO_PULL_WAIT_MAX_READS; reads++) {
		if (bcm283x_timer_now_us() - start >= GPIO_PULL_WAIT_TICKS)
			return;
	}
}

/* BCM 6.1, GPPUDCLK: write the control, wait, clock it into the chosen pins, wait, then remove
 * the control and the clock. Each write is completed (DSB) before its wait starts: a write
 * still in the write buffer would shorten the wait the GPIO block sees. */
static void bcm2835_gpio_pull(uint32_t pins, uint32_t control)
{
	bcm283x_barrier();
	mmio_write(GPIO_GPPUD, control);
	bcm283x_sync();
	gpio_pull_wait();
	mmio_write(GPIO_GPPUDCLK0, pins);
	bcm283x_sync();
	gpio_pull_wait();
	mmio_write(GPIO_GPPUD, GPIO_GPPUD_OFF);
	mmio_write(GPIO_GPPUDCLK0, 0);
	bcm283x_barrier();
}

void bcm2835_uart0_pins_pulls(void)
{
	/* TXD is driven by the UART: no resistor. RXD gets a pull-up so that an unconnected
	 * line reads idle (mark) instead of floating into framing errors and breaks, as Linux's
	 * Raspberry Pi device trees do (uart0_pins: brcm,pull = <0 2>, RX pulled up). */
	bcm2835_gpio_pull(1u << GPIO_UART0_TXD, GPIO_GPPUD_OFF);
	bcm2835_gpio_pull(1u << GPIO_UART0_RXD, GPIO_GPPUD_UP);
}

void bcm2711_uart0_pins_pulls(void)
{
	/* BCM2711 ARM Peripherals 5.2: two bits per pin, pins 0-15 in REG0; the same choice as
	 * bcm2835_uart0_pins_pulls (TXD none, RXD up) in this register's encoding. */
	bcm283x_barrier();
	uint32_t pulls = mmio_read(GPIO_PUP_PDN_CNTRL_REG0);
	pulls &= ~((3u << (2u * GPIO_UART0_TXD)) | (3u << (2u * GPIO_UART0_RXD)));
	pulls |= (GPIO_PUP_PDN_NONE << (2u * GPIO_UART0_TXD)) |
		 (GPIO_PUP_PDN_UP << (2u * GPIO_UART0_RXD));
	mmio_write(GPIO_PUP_PDN_CNTRL_REG0, pulls);
	bcm283x_barrier();
}

/* ---- mailbox ------------------------------------------------------------------------ */

/* One property request with one tag of two value words: size, code, then the tag (id, value
 * buffer size, request / response code, two values), then the end tag. Both tags used here
 * ("get clock rate": clock id, rate; "get ARM memory": base, size) have that shape. The
 * VideoCore reads and rewrites it in RAM, hence volatile; 16-byte aligned because the low
 * 4 bits of the message are the channel. */
static volatile uint32_t mailbox_message[8] __attribute__((aligned(16)));

static bool mailbox_wait(uintptr_t status, uint32_t busy_bit, uint32_t start_us)
{
	while (mmio_read(status) & busy_bit) {
		if (bcm283x_timer_now_us() - start_us >= BCM283X_MAILBOX_TIMEOUT_US)
			return false;
	}
	return true;
}

/* Send `tag` with values[0..1] and wait (bounded) for the answer; true and values[] replaced
 * by the answer only if the firmware and the tag both report success. The 32-bit boards call
 * it with the data cache off (before board_mmu_enable), the 64-bit ones with it on: the
 * buffer's lines are cleaned and invalidated around the exchange for the latter. */
static bool mailbox_property(uint32_t tag, uint32_t values[2])
{
	mailbox_message[0] = sizeof mailbox_message;
	mailbox_message[1] = PROPERTY_PROCESS_REQUEST;
	mailbox_message[2] = tag;
	mailbox_message[3] = 8u; /* value buffer: two words */
	mailbox_message[4] = 0u; /* request */
	mailbox_message[5] = values[0];
	mailbox_message[6] = values[1];
	mailbox_message[7] = PROPERTY_TAG_END;
	/* The VideoCore sees ARM RAM through a bus alias (BOARD_MAILBOX_BUS_ALIAS). */
	uint32_t message = (uint32_t)(uintptr_t)mailbox_message | BOARD_MAILBOX_BUS_ALIAS;
	uint32_t start = bcm283x_timer_now_us();

	/* The message must be in RAM before the VideoCore is told about it (with the caches on,
	 * as on the 64-bit boards, that takes a clean of its lines). */
	board_dcache_flush(mailbox_message, sizeof mailbox_message);
	bcm283x_sync();
	if (!mailbox_wait(MAILBOX1_STATUS, MAILBOX_FULL, start))
		return false;
	mmio_write(MAILBOX1_WRITE, message | MAILBOX_CHANNEL_PROPERTY);
	bcm283x_barrier();

	/* Answers on other channels (none are expected) are read and dropped. */
	for (;;) {
		if (!mailbox_wait(MAILBOX0_STATUS, MAILBOX_EMPTY, start))
			return false;
		uint32_t answer = mmio_read(MAILBOX0_READ);
		if (answer == (message | MAILBOX_CHANNEL_PROPERTY))
			break;
	}
	bcm283x_sync();
	board_dcache_flush(mailbox_message, sizeof mailbox_message);

	if (mailbox_message[1] != PROPERTY_RESPONSE_SUCCESS ||
	    (mailbox_message[4] & PROPERTY_TAG_RESPONSE) == 0)
		return false;
	values[0] = mailbox_message[5];
	values[1] = mailbox_message[6];
	return true;
}

bool bcm283x_mailbox_clock_rate(uint32_t clock_id, uint32_t *rate_hz)
{
	uint32_t values[2] = {clock_id, 0u};
	if (!mailbox_property(PROPERTY_TAG_GET_CLOCK_RATE, values) || values[0] != clock_id ||
	    values[1] < CLOCK_PLAUSIBLE_MIN_HZ || values[1] > CLOCK_PLAUSIBLE_MAX_HZ)
		return false;
	*rate_hz = values[1];
	return true;
}

bool bcm283x_mailbox_arm_memory(uint32_t *base, uint32_t *size)
{
	uint32_t values[2] = {0u, 0u};
	if (!mailbox_property(PROPERTY_TAG_GET_ARM_MEMORY, values) || values[1] == 0u ||
	    values[0] + values[1] < values[0])
		return false;
	*base = values[0];
	*size = values[1];
	return true;
}

uint32_t bcm283x_uart_clock_hz(enum bcm283x_clock_source *source)
{
#ifdef BOARD_UART_CLOCK_HZ
	/* make BOARD_UART_CLOCK_HZ=<hz>: trust the build, do not ask the firmware. */
	*source = BCM283X_CLOCK_FROM_BUILD;
	return (uint32_t)(BOARD_UART_CLOCK_HZ);
#else
	uint32_t rate;
	if (bcm283x_mailbox_clock_rate(BCM283X_CLOCK_ID_UART, &rate)) {
		*source = BCM283X_CLOCK_FROM_FIRMWARE;
		return rate;
	}
	*source = BCM283X_CLOCK_FALLBACK;
	return BCM283X_UART_CLOCK_FALLBACK_HZ;
#endif
}

/* ---- console ---------------------------------------------------------------------- */

static void console_text(const char *text)
{
	size_t length = 0;
	while (text[length] != '\0')
		length++;
	(void)pl011_write(board_console(), text, length, PL011_WAIT_AUTO);
}

static void console_warning(const char *text)
{
	console_text(board_name());
	console_text(text);
}

void bcm283x_console_init(void (*pulls)(void))
{
	enum bcm283x_clock_source source;
	bcm283x_uart0_pins_alt0();
	pulls();
	uint32_t clock_hz = bcm283x_uart_clock_hz(&source);
	board_console_start(PERIPHERAL(BCM283X_UART0_OFFSET), clock_hz);
	/* If the fallback is wrong this line is garbled, which is itself the hint. */
	if (source == BCM283X_CLOCK_FALLBACK)
		console_warning(": the firmware did not report the UART clock; assuming 48 MHz "
				"(build with BOARD_UART_CLOCK_HZ=<hz> to set it)\r\n");
}

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
		console_warning(": the firmware did not report the ARM memory; mapping only the "
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

void bcm283x_exclusives_check(void)
{
	if (!bcm283x_exclusives_work())
		console_warning(": LDREX/STREX keep failing on this system even with the MMU on; "
				"interrupt-driven TX modes will not work (docs/porting.md)\r\n");
}

/* ---- exclusive monitor probe -------------------------------------------------------- */

bool bcm283x_exclusives_work(void)
{
	static uint32_t probe_word;
	/* A STREX may fail spuriously (an interrupt, a cache eviction) but not every time. */
	for (uint32_t attempt = 0; attempt < 8u; attempt++) {
		uint32_t old;
		uint32_t failed;
#ifdef __aarch64__
		__asm__ volatile("ldxr %w0, [%2]\n\tstxr %w1, %w0, [%2]"
				 : "=&r"(old), "=&r"(failed)
				 : "r"(&probe_word)
				 : "memory");
#else
		__asm__ volatile("ldrex %0, [%2]\n\tstrex %1, %0, [%2]"
				 : "=&r"(old), "=&r"(failed)
				 : "r"(&probe_word)
				 : "memory");
#endif
		if (failed == 0)
			return true;
	}
	return false;
}

/* ---- BCM2835 interrupt controller --------------------------------------------------- */

void bcm2835_irq_controller_init(void)
{
	/* Whatever ran before (the firmware, an earlier image loaded over JTAG) may have left
	 * sources enabled: start from none, and no FIQ. */
	bcm283x_barrier();
	mmio_write(INTERRUPT_FIQ_CONTROL, 0);
	mmio_write(INTERRUPT_DISABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE2, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE_BASIC, 0xFFFFFFFFu);
#ifdef BOARD_LOCAL_CORE0_TIMER_CONTROL
	/* BCM2836/7: the generic timers' interrupts too (the start-up stopped the timers). */
	bcm283x_barrier();
	mmio_write(BOARD_LOCAL_CORE0_TIMER_CONTROL, 0);
#endif
	bcm283x_barrier();
}

void bcm2835_irq_line_enable(uint32_t gpu_irq, bool enable)
{
	uintptr_t reg;
	if (gpu_irq < 32u)
		reg = enable ? INTERRUPT_ENABLE1 : INTERRUPT_DISABLE1;
	else
		reg = enable ? INTERRUPT_ENABLE2 : INTERRUPT_DISABLE2;
	bcm283x_barrier();
	mmio_write(reg, 1u << (gpu_irq & 31u));
	bcm283x_barrier();
}

uint32_t bcm2835_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	/* The pending registers show only enabled GPU interrupts (QEMU hw/intc/bcm2835_ic.c:
	 * level AND enable), so every line is enabled for the read, with IRQs masked at the CPU,
	 * then all are disabled again. */
	bcm283x_barrier();
	mmio_write(INTERRUPT_ENABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_ENABLE2, 0xFFFFFFFFu);
	uint64_t pending = ((uint64_t)mmio_read(INTERRUPT_PENDING2) << 32) | mmio_read(INTERRUPT_PENDING1);
	mmio_write(INTERRUPT_DISABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE2, 0xFFFFFFFFu);
	bcm283x_barrier();
	uint32_t count = 0;
	for (uint32_t line = 0; line < 64u && count < max; line++) {
		if (pending & ((uint64_t)1u << line))
			lines[count++] = line;
	}
	return count;
}

void bcm2835_irq_dispatch(void)
{
	/* Interrupt controller, then UART, then timer: a barrier at every switch (BCM 1.3). */
	bcm283x_barrier();
	uint32_t pending1 = mmio_read(INTERRUPT_PENDING1);
	uint32_t pending2 = mmio_read(INTERRUPT_PENDING2);
	bcm283x_barrier();
	if (pending2 & (1u << (BCM283X_GPU_IRQ_UART0 - 32u))) {
		board_console_irq();
		bcm283x_barrier();
	}
	if ((pending1 & (1u << BCM283X_GPU_IRQ_TICK)) && bcm283x_tick_acknowledge()) {
		board_tick_run();
		bcm283x_barrier();
	}
}
