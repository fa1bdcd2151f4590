/* clock.h - CLOCK_MONOTONIC in ns, one definition for the threads engine,
 * the round-trip and compute probes and the harness's waits. */
#ifndef HARNESS_CORE_CLOCK_H
#define HARNESS_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
