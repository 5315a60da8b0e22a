/* packets: frames each burst received into a packet at RX idle and answers with its length and checksum. */
#include <stdio.h>
#include <string.h>

#include "board.h"

/*
 * A packet protocol without delimiters (Modbus RTU's framing): a packet is a burst of bytes,
 * and the line going quiet ends it. The driver's PL011_EVENT_RX_IDLE says when: from the
 * PL011's receive timeout where it comes, and from config.event_timer's tick 5 character
 * times after the last byte where it does not (QEMU's PL011 has no receive timeout, and on
 * silicon a burst whose last drain emptied the FIFO gets none). The timer here is a one-shot
 * kept on the board's periodic tick.
 *
 * The line runs at 1,200 baud: 5 character times are then about 42 ms, longer than the pauses
 * a busy host puts between the bytes of one burst under QEMU (QEMU delivers received bytes as
 * the host sends them, not at the programmed rate, and its clock is the host's). Set the
 * terminal to 1,200 8N1 on a real board. A packet of "!quit" ends the run.
 */

#define BAUD 1200u
#define TICK_US 500u
#define PACKET_MAX 256u
/* The whole run within this: a missing RX idle ends it. */
#define RUN_BOUND_US 30000000u

static uint8_t tx_storage[1024];
static uint8_t rx_storage[1024];

/* Given by the event callback (the UART or the tick interrupt), taken by main. */
static uint32_t idle_events;

static void on_uart_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)context;
	if (events & PL011_EVENT_RX_IDLE)
		__atomic_fetch_add(&idle_events, 1u, __ATOMIC_RELEASE);
}

/* The one-shot timer of config.event_timer on the periodic tick: armed from the UART's
 * interrupt or from the tick itself, which do not preempt each other. */
static uint32_t timer_armed;
static uint32_t timer_due_us;

static void arm_one_shot(uint32_t delay_us, void *context)
{
	(void)context;
	__atomic_store_n(&timer_due_us, board_now_us(NULL) + delay_us, __ATOMIC_RELAXED);
	__atomic_store_n(&timer_armed, 1u, __ATOMIC_RELEASE);
}

static void tick(void *context)
{
	(void)context;
	if (__atomic_load_n(&timer_armed, __ATOMIC_ACQUIRE) == 0u)
		return;
	uint32_t due = __atomic_load_n(&timer_due_us, __ATOMIC_RELAXED);
	if ((int32_t)(board_now_us(NULL) - due) < 0)
		return;
	__atomic_store_n(&timer_armed, 0u, __ATOMIC_RELAXED);
	pl011_event_tick(board_console()); /* may arm again */
}

/* CRC-16/MODBUS (poly 0xA001 reflected, initial 0xFFFF), as such a packet would carry. */
static uint16_t crc16(const uint8_t *data, size_t length)
{
	uint16_t crc = 0xFFFFu;
	for (size_t i = 0; i < length; i++) {
		crc ^= data[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc & 1u) ? (uint16_t)((crc >> 1) ^ 0xA001u) : (uint16_t)(crc >> 1);
	}
	return crc;
}

int main(void)
{
	static struct pl011_config config; /* read in place while the port runs */
	config = *board_console_config();
	config.baud = BAUD;
	config.tx_mode = PL011_TX_HALF_FIFO;
	config.rx_mode = PL011_RX_LOW_LATENCY;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	config.event_mask = PL011_EVENT_RX_IDLE;
	config.event = on_uart_event;
	config.event_timer = arm_one_shot; /* with config.clock (the board's): RX idle without RT */
	config.event_driver = &pl011_event_driver;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	board_console_irq_enable(true);
	board_tick_start(TICK_US, tick, NULL);
	pl011_puts(board_console(), "packets ready: each burst is a packet; !quit ends\n");

	static uint8_t packet[PACKET_MAX];
	uint32_t packets = 0;
	uint32_t idle_seen = 0;
	bool quit = false;
	uint32_t start = board_now_us(NULL);
	while (!quit && board_now_us(NULL) - start < RUN_BOUND_US) {
		board_irq_disable();
		if (__atomic_load_n(&idle_events, __ATOMIC_ACQUIRE) == idle_seen)
			board_wait_for_interrupt(); /* a pending interrupt ends WFI even masked */
		board_irq_enable();
		uint32_t idle_now = __atomic_load_n(&idle_events, __ATOMIC_ACQUIRE);
		if (idle_now == idle_seen)
			continue;
		idle_seen = idle_now;
		/* The burst the line went quiet after: everything the ring holds now. */
		size_t length = 0;
		for (;;) {
			int n = pl011_read(board_console(), packet + length, PACKET_MAX - length,
					   PL011_NO_WAIT);
			if (n <= 0 || (length += (size_t)n) == PACKET_MAX)
				break;
		}
		if (length == 0)
			continue;
		quit = length == 5u && memcmp(packet, "!quit", 5) == 0;
		printf("packet %lu: %lu bytes, crc %04X\n", (unsigned long)++packets,
		       (unsigned long)length, (unsigned)crc16(packet, length));
	}
	board_tick_start(0u, NULL, NULL);
	struct pl011_stats stats;
	pl011_get_stats(board_console(), &stats);
	printf("packets: %lu packets, %lu RX idle events, %lu bytes, %lu receive timeouts%s\n",
	       (unsigned long)packets, (unsigned long)idle_seen, (unsigned long)stats.rx_bytes,
	       (unsigned long)stats.irq_rt, quit ? "" : " (run bound reached)");
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	return quit ? 0 : 3;
}
