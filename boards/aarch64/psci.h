/* PSCI CPU_ON: start another core at the image's _start, through HVC or SMC as the firmware's device tree says. */
#ifndef PSCI_H
#define PSCI_H

#include <stdint.h>

enum psci_conduit {
	PSCI_HVC, /* QEMU virt without EL2/EL3: QEMU answers HVC itself */
	PSCI_SMC, /* firmware at EL3 (the Pi 5's Trusted Firmware-A) */
};

/* 0 if the firmware accepted, -1 otherwise. */
int psci_cpu_on(uint64_t target_mpidr, enum psci_conduit conduit);

#endif
