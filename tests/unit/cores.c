/* Two cores on one model as coroutines switched at preemption points (cores.h). */
#include "cores.h"

#include <stddef.h>
#include <ucontext.h>

#include "harness.h"

#define STACK_BYTES (256u * 1024u)

static ucontext_t caller, context_of[2];
static char stack_of[2][STACK_BYTES];
static const struct cores_plan *plan;
static void (*run_body)(int core, void *context);
static void *run_context;
static int current;
static uint64_t points[2];
static bool finished[2];
static uint32_t random_state;
static bool running, waiting[2], stalled[2];
static uint64_t slice_left;

static void switch_to(int core)
{
	int from = current;
	current = core;
	swapcontext(&context_of[from], &context_of[core]);
}

void cores_yield(void)
{
	if (!finished[1 - current] && !stalled[1 - current])
		switch_to(1 - current);
}

static bool time_to_switch(void)
{
	if (plan->switch_one_in != 0)
		return harness_random(&random_state) % plan->switch_one_in == 0;
	if (--slice_left != 0)
		return false;
	slice_left = plan->slice != 0 ? plan->slice : 1u;
	return true;
}

static void at_point(void *unused)
{
	(void)unused;
	points[current]++;
	if (plan->at_point != NULL)
		plan->at_point(plan->context);
	if (plan->stall_at != 0 && current == plan->stall_core && points[current] == plan->stall_at &&
	    !finished[1 - current]) {
		stalled[current] = true;
		switch_to(1 - current);
		return;
	}
	if (time_to_switch())
		cores_yield();
}

static void core_entry(int core)
{
	run_body(core, run_context);
	finished[core] = true;
	stalled[1 - core] = false; /* the stopped core runs again, alone */
	if (!finished[1 - core])
		switch_to(1 - core);
	/* uc_link: back to cores_run once both are done */
}

static void core0_entry(void)
{
	core_entry(0);
}

static void core1_entry(void)
{
	core_entry(1);
}

static void prepare(int core, void (*entry)(void))
{
	getcontext(&context_of[core]);
	context_of[core].uc_stack.ss_sp = stack_of[core];
	context_of[core].uc_stack.ss_size = STACK_BYTES;
	context_of[core].uc_link = &caller;
	makecontext(&context_of[core], entry, 0);
}

void cores_run(const struct cores_plan *p, void (*body)(int core, void *context), void *context)
{
	plan = p;
	run_body = body;
	run_context = context;
	points[0] = points[1] = 0;
	finished[0] = finished[1] = false;
	random_state = p->seed != 0 ? p->seed : 1u;
	slice_left = p->first_slice != 0 ? p->first_slice : 1u;
	prepare(0, core0_entry);
	prepare(1, core1_entry);
	current = 0;
	waiting[0] = waiting[1] = false;
	stalled[0] = stalled[1] = false;
	running = true;
	pl011_model_set_preempt_hook(at_point, NULL);
	swapcontext(&caller, &context_of[0]);
	pl011_model_set_preempt_hook(NULL, NULL);
	running = false;
	current = 0;
}

void cores_idle_step(struct pl011_model *model, uint64_t step_ns)
{
	int core = current;
	if (!running || finished[1 - core] || stalled[1 - core]) {
		pl011_model_advance(model, step_ns);
		return;
	}
	waiting[core] = true;
	if (waiting[1 - core])
		pl011_model_advance(model, step_ns);
	cores_yield();
	waiting[core] = false;
}

int cores_current(void)
{
	return current;
}

uint64_t cores_points(int core)
{
	return points[core];
}

bool cores_finished(int core)
{
	return finished[core];
}

bool cores_stalled(int core)
{
	return stalled[core];
}
