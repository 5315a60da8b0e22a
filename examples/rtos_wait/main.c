/* rtos_wait: two cooperative tasks block on the driver's events (RX data/idle, TX space) and the CPU sleeps in WFI between them. */
#include <stdio.h>
#include <string.h>

#include "board.h"

/*
 * What an RTOS port of the driver does, without an RTOS: a scheduler of a few lines runs
 * tasks that block on counting semaphores, and the driver's event callback (interrupt
 * context) gives them. The consumer blocks until RX data or RX idle, reads what came and
 * hands each finished line to the producer; the producer blocks until it has a line, then
 * sends it back upper-cased, blocking on TX space whenever the TX ring is full. When no task
 * can run the CPU sleeps in WFI, and the time it slept is the idle share printed at the end.
 *
 * One writer, one reader: only the producer writes and only the consumer reads until both
 * are done, then main prints (pl011_write and pl011_read are one-caller functions).
 */

#define TX_BUFFER_BYTES 256u /* small, so that a long line fills it and the producer blocks */
#define RX_BUFFER_BYTES 1024u
#define LINE_MAX 128u
#define LINES_QUEUED 8u /* a power of two */
/* The whole run within this, measured from the first sleep: a missing event ends it. */
#define RUN_BOUND_US 20000000u

struct semaphore {
	uint32_t count; /* atomic: given by the event callback, taken by a task */
};

static void semaphore_give(struct semaphore *s)
{
	__atomic_fetch_add(&s->count, 1u, __ATOMIC_RELEASE);
}

/* Take every pending give at once: a task woken once drains everything there is. */
static bool semaphore_take_all(struct semaphore *s)
{
	return __atomic_exchange_n(&s->count, 0u, __ATOMIC_ACQUIRE) != 0u;
}

static bool semaphore_ready(const struct semaphore *s)
{
	return __atomic_load_n(&s->count, __ATOMIC_ACQUIRE) != 0u;
}

static struct semaphore rx_ready, tx_room, line_ready;

static void on_uart_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)context;
	if (events & (PL011_EVENT_RX_DATA | PL011_EVENT_RX_IDLE))
		semaphore_give(&rx_ready);
	if (events & PL011_EVENT_TX_SPACE)
		semaphore_give(&tx_room);
}

/* ---- the tasks: each step runs until it would block, and names what it blocks on ---- */

struct task {
	const char *name;
	struct semaphore *(*step)(void); /* NULL: finished */
	struct semaphore *blocked_on;
	bool finished;
	uint32_t waits; /* times it blocked */
};

/* Lines from the consumer to the producer. */
static char lines[LINES_QUEUED][LINE_MAX];
static uint32_t line_length[LINES_QUEUED];
static uint32_t lines_in, lines_out; /* one writer each: consumer, producer */
static bool quit_seen;
static uint32_t lines_sent, rx_bytes, tx_bytes, tx_space_waits;

static char current[LINE_MAX];
static uint32_t current_length;

static void line_end(void)
{
	if (current_length == 5u && memcmp(current, "!quit", 5) == 0)
		quit_seen = true;
	memcpy(lines[lines_in % LINES_QUEUED], current, current_length);
	line_length[lines_in % LINES_QUEUED] = current_length;
	lines_in++;
	current_length = 0;
	semaphore_give(&line_ready);
}

static struct semaphore *consumer_step(void)
{
	uint8_t buffer[64];
	for (;;) {
		if (quit_seen)
			return NULL;
		if (lines_in - lines_out == LINES_QUEUED)
			return &line_ready; /* the producer is behind: let it run */
		int n = pl011_read(board_console(), buffer, sizeof buffer, PL011_NO_WAIT);
		if (n <= 0)
			return &rx_ready;
		rx_bytes += (uint32_t)n;
		for (int i = 0; i < n && !quit_seen; i++) {
			if (buffer[i] == '\r')
				continue;
			if (buffer[i] == '\n' || current_length == LINE_MAX - 1u)
				line_end();
			if (buffer[i] != '\n')
				current[current_length++] = (char)buffer[i];
		}
	}
}

/* The line being sent and how far. */
static char outgoing[LINE_MAX + 2u];
static uint32_t outgoing_length, outgoing_done;

static struct semaphore *producer_step(void)
{
	for (;;) {
		if (outgoing_done < outgoing_length) {
			int n = pl011_write(board_console(), outgoing + outgoing_done,
					    outgoing_length - outgoing_done, PL011_NO_WAIT);
			if (n > 0) {
				outgoing_done += (uint32_t)n;
				tx_bytes += (uint32_t)n;
			}
			if (outgoing_done < outgoing_length) {
				tx_space_waits++;
				return &tx_room; /* ring full: TX space comes at half free */
			}
			lines_sent++;
			continue;
		}
		if (lines_out == lines_in)
			return quit_seen ? NULL : &line_ready;
		const char *line = lines[lines_out % LINES_QUEUED];
		uint32_t length = line_length[lines_out % LINES_QUEUED];
		for (uint32_t i = 0; i < length; i++)
			outgoing[i] = line[i] >= 'a' && line[i] <= 'z' ? (char)(line[i] - 'a' + 'A')
								       : line[i];
		outgoing[length] = '\r';
		outgoing[length + 1u] = '\n';
		outgoing_length = length + 2u;
		outgoing_done = 0;
		lines_out++;
		semaphore_give(&line_ready); /* room for the consumer again */
	}
}

static struct task tasks[] = {
	{.name = "consumer", .step = consumer_step},
	{.name = "producer", .step = producer_step},
};
#define TASKS (sizeof tasks / sizeof tasks[0])

/* Run every task that can; returns whether any did. A task blocked on a semaphore runs once
 * something gave it. */
static bool run_ready_tasks(void)
{
	bool ran = false;
	for (uint32_t i = 0; i < TASKS; i++) {
		struct task *t = &tasks[i];
		if (t->finished)
			continue;
		if (t->blocked_on != NULL && !semaphore_take_all(t->blocked_on))
			continue;
		ran = true;
		struct semaphore *wait = t->step();
		t->finished = wait == NULL;
		t->blocked_on = wait;
		if (wait != NULL)
			t->waits++;
	}
	return ran;
}

static bool any_ready(void)
{
	for (uint32_t i = 0; i < TASKS; i++)
		if (!tasks[i].finished && (tasks[i].blocked_on == NULL ||
					   semaphore_ready(tasks[i].blocked_on)))
			return true;
	return false;
}

static bool all_finished(void)
{
	for (uint32_t i = 0; i < TASKS; i++)
		if (!tasks[i].finished)
			return false;
	return true;
}

/* The 1 ms tick only bounds each sleep (a lost event would otherwise sleep for good). */
static void tick(void *context)
{
	(void)context;
}

int main(void)
{
	static uint8_t tx_storage[TX_BUFFER_BYTES];
	static uint8_t rx_storage[RX_BUFFER_BYTES];
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.tx_mode = PL011_TX_MEASURED;
	config.rx_mode = PL011_RX_LOW_LATENCY;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	config.event_mask = PL011_EVENT_RX_DATA | PL011_EVENT_RX_IDLE | PL011_EVENT_TX_SPACE;
	config.event = on_uart_event;
	config.event_driver = &pl011_event_driver;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	board_console_irq_enable(true);
	board_tick_start(1000u, tick, NULL);
	pl011_puts(board_console(), "rtos_wait ready: lines come back upper-cased; !quit ends\n");

	uint32_t start = board_now_us(NULL);
	uint32_t idle_us = 0;
	uint32_t sleeps = 0;
	while (!all_finished()) {
		if (board_now_us(NULL) - start >= RUN_BOUND_US)
			break;
		if (run_ready_tasks())
			continue;
		/* Nothing can run: sleep. IRQs masked across the last look, so that an event
		 * given after it still wakes the WFI (a pending interrupt ends WFI even masked). */
		board_irq_disable();
		if (!any_ready()) {
			uint32_t before = board_now_us(NULL);
			board_wait_for_interrupt();
			idle_us += board_now_us(NULL) - before;
			sleeps++;
		}
		board_irq_enable();
	}
	uint32_t total_us = board_now_us(NULL) - start;
	board_tick_start(0u, NULL, NULL);
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	bool done = all_finished();
	uint32_t permille = total_us != 0 ? (uint32_t)((uint64_t)idle_us * 1000u / total_us) : 0u;
	printf("rtos_wait: lines %lu rx_bytes %lu tx_bytes %lu consumer_waits %lu "
	       "producer_waits %lu (tx_space %lu) sleeps %lu\n",
	       (unsigned long)lines_sent, (unsigned long)rx_bytes, (unsigned long)tx_bytes,
	       (unsigned long)tasks[0].waits, (unsigned long)tasks[1].waits,
	       (unsigned long)tx_space_waits, (unsigned long)sleeps);
	printf("rtos_wait: idle %lu.%lu%% of %lu us%s\n", (unsigned long)(permille / 10u),
	       (unsigned long)(permille % 10u), (unsigned long)total_us,
	       done ? "" : " (run bound reached)");
	return done ? 0 : 3;
}
