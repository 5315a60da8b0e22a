/* Raspberry Pi 4 (Cortex-A72, AArch32) start-up: the same sequence as the Pi 2/3, shared from boards/rpi2/startup.S. */
/* The A72 in AArch32 runs ARMv7-A code unchanged: MPIDR.Aff0 parks cores 1-3, the firmware's
 * armstub enters in HYP (left by ERET), VBAR points at the table. Keeping one copy of that
 * sequence means a fix in it reaches both boards. */
#include "../rpi2/startup.S"
