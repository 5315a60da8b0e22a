/* Two cores on one model: two coroutines that switch at the driver's preemption points. */
#ifndef TEST_CORES_H
#define TEST_CORES_H

#include <stdbool.h>
#include <stdint.h>

#include "pl011_model.h"

/*
 * How the cores interleave. switch_one_in > 0: at every point switch with probability
 * 1 / switch_one_in (xorshift32 seeded with seed). 0: scripted: core 0 runs first_slice
 * points, then the cores alternate every slice points (a slice of 0 means 1).
 */
struct cores_plan {
	uint32_t switch_one_in;
	uint32_t seed;
	uint64_t first_slice;
	uint64_t slice;
	/* Called at every point before the switch decision (invariant checks), or NULL. */
	void (*at_point)(void *context);
	void *context;
	/* A stopped core (a debugger, a hypervisor; on one core, a task preempted by a higher
	 * one's whole call): at its point stall_at (0: never) core stall_core stops, and runs again
	 * only once the other has finished, whatever that one waits for meanwhile. */
	uint64_t stall_at;
	int stall_core;
};

/* The body runs once on each core (core 0 and core 1) until both returned. Installs itself as
 * the model's preemption hook for the run and removes it after. */
void cores_run(const struct cores_plan *plan, void (*body)(int core, void *context),
	       void *context);

/* The core running now (0 when no run is going on). */
int cores_current(void);
/* Points the core has passed in this run. */
uint64_t cores_points(int core);
/* Whether the core's body has returned. */
bool cores_finished(int core);
/* Whether the core is stopped (cores_plan.stall_at) and the other still runs. */
bool cores_stalled(int core);
/* Let the other core run now (an idle core's loop), unless it has finished. */
void cores_yield(void);

/*
 * A step of a waiting core (a wait hook, an idle loop). Both cores share the model's one
 * clock, so a step that let time pass while the other core has work would stall that core in
 * simulated time: the step hands the CPU over, and step_ns pass only while both cores wait
 * (or the other has finished, or no run is going on).
 */
void cores_idle_step(struct pl011_model *model, uint64_t step_ns);

#endif
