/* The build options, each 0 or 1 (default 1), set with -D for the library and every file that
 * includes pl011.h alike (docs/building.md):
 *   PL011_STATS 0       keeps only the counters the promises rest on; the rest read 0.
 *   PL011_INTERRUPTS 0  the polled-only build: polled TX and RX, no interrupt machinery, no
 *                       events, no RS-485; pl011_init refuses the rest with PL011_EINVAL.
 * Both change struct pl011, so the entry points a start calls carry them in their names: a
 * program and a library built with different options fail to link instead of running. */
#ifndef PL011_OPTIONS_H
#define PL011_OPTIONS_H

#ifndef PL011_STATS
#define PL011_STATS 1
#endif
#if PL011_STATS != 0 && PL011_STATS != 1
#error "PL011_STATS must be 0 or 1"
#endif
#ifndef PL011_INTERRUPTS
#define PL011_INTERRUPTS 1
#endif
#if PL011_INTERRUPTS != 0 && PL011_INTERRUPTS != 1
#error "PL011_INTERRUPTS must be 0 or 1"
#endif

#if PL011_STATS == 0 || PL011_INTERRUPTS == 0 /* the default keeps the plain names */
#if PL011_STATS == 0
#define PL011_ABI_STATS _nostats
#else
#define PL011_ABI_STATS
#endif
#if PL011_INTERRUPTS == 0
#define PL011_ABI_INTERRUPTS _polled_only
#else
#define PL011_ABI_INTERRUPTS
#endif
#define PL011_ABI_JOIN(name, stats, interrupts) name##stats##interrupts
#define PL011_ABI_EXPAND(name, stats, interrupts) PL011_ABI_JOIN(name, stats, interrupts)
#define PL011_ABI_NAME(name) PL011_ABI_EXPAND(name, PL011_ABI_STATS, PL011_ABI_INTERRUPTS)
#define pl011_init_port PL011_ABI_NAME(pl011_init_port)
#define pl011_init_parts PL011_ABI_NAME(pl011_init_parts)
#define pl011_init_named_parts PL011_ABI_NAME(pl011_init_named_parts)
#define pl011_restart_port PL011_ABI_NAME(pl011_restart_port)
#endif

#endif
