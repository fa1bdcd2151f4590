/*
 * c2c.h - a core-to-core round-trip probe: two threads pinned to two CPUs
 * bounce one cache line; the median round trip is reported. On a virtual
 * machine this moves between regimes over minutes (here between about 60
 * and 340 ns), and every multi-worker figure depends on it, so results
 * carry it.
 */
#ifndef HARNESS_CORE_C2C_H
#define HARNESS_CORE_C2C_H

#include <stdint.h>

/* Median round trip in ns between cpu_a and cpu_b over `rounds` bounces
 * (taken in batches of 100; fewer when the batches made already took
 * 100 ms); returns 0 on success, -errno if the CPUs cannot be used. */
int c2c_probe(int cpu_a, int cpu_b, uint32_t rounds, double *median_ns);

#endif
