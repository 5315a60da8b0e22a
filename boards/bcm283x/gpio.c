/* BCM283x pins: the PL011 on GPIO 14/15 (ALT0), taken back from the Bluetooth pins; its pulls. */
#include "bcm283x.h"
#include "board.h"
#include "mmio.h"

/* GPIO (BCM 6.1). GPFSELn holds pins 10n..10n+9, three bits each (BCM 6.2): 0b000 input,
 * 0b100 ALT0, 0b111 ALT3. */
#define GPIO_GPFSEL(n) BCM283X_PERIPHERAL(BCM283X_GPIO_OFFSET + 4u * (n))
#define GPIO_GPPUD BCM283X_PERIPHERAL(BCM283X_GPIO_OFFSET + 0x94u)
#define GPIO_GPPUDCLK0 BCM283X_PERIPHERAL(BCM283X_GPIO_OFFSET + 0x98u)
#define GPIO_PUP_PDN_CNTRL_REG0 BCM283X_PERIPHERAL(BCM283X_GPIO_OFFSET + 0xE4u) /* BCM2711 only */
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
	/* TXD: GPIO_PUP_PDN_NONE, 00, which the clear above left. */
	pulls |= GPIO_PUP_PDN_UP << (2u * GPIO_UART0_RXD);
	mmio_write(GPIO_PUP_PDN_CNTRL_REG0, pulls);
	bcm283x_barrier();
}
