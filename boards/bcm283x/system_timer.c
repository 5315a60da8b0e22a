/* BCM283x system timer: the 1 MHz clock the driver's waits read, the tick on compare channel 1. */
#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* System timer (BCM 12.1): CS holds the match flags M0..M3 (write 1 to clear), CLO the low
 * word of the 1 MHz counter, C0..C3 the compare values; a channel matches when CLO == Cn. */
#define TIMER_CS BCM283X_PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x00u)
#define TIMER_CLO BCM283X_PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x04u)
#define TIMER_COMPARE(channel) \
	BCM283X_PERIPHERAL(BCM283X_SYSTEM_TIMER_OFFSET + 0x0Cu + 4u * (channel))
#define TICK_MATCH (1u << BCM283X_TICK_CHANNEL)
/* Tries to set a compare value that is still ahead once written (tick_compare_set). */
#define TICK_SET_ATTEMPTS 4u

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
