/* BCM283x VideoCore mailbox: property requests for the UART clock and the ARM's memory. */
#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* Mailbox (Raspberry Pi firmware wiki, "Mailboxes"): the ARM reads answers from mailbox 0 and
 * writes requests to mailbox 1; each has its own status word. A message is a 16-byte aligned
 * bus address with the channel number in its low 4 bits. */
#define MAILBOX0_READ BCM283X_PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x00u)
#define MAILBOX0_STATUS BCM283X_PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x18u)
#define MAILBOX1_WRITE BCM283X_PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x20u)
#define MAILBOX1_STATUS BCM283X_PERIPHERAL(BCM283X_MAILBOX_OFFSET + 0x38u)
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
