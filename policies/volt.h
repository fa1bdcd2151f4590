/*
 * volt.h - the Volt policy's pure functions, exposed for tests.
 */
#ifndef HARNESS_POLICIES_VOLT_H
#define HARNESS_POLICIES_VOLT_H

#include <stdint.h>

#include "policies/policy.h"

extern const struct policy policy_volt;
extern const struct policy policy_volt_broken;	/* kept for tests */
extern const struct policy policy_volt_timeout_race;	/* kept for tests */
extern const struct policy policy_volt_ring_early_release;	/* kept for tests */
extern const struct policy policy_volt_ring_early_publish;	/* kept for tests */
/* Single-mechanism variants: volt with one knob's default changed. */
extern const struct policy policy_fixed_interval_61;	/* interval=61 */
extern const struct policy policy_steal_one;		/* steal_max=1 */

/* Knob indices (order of the knob table). */
enum volt_knob {
	VOLT_BUDGET,
	VOLT_LIFO_CAP,
	VOLT_PREFETCH,
	VOLT_BATCH_MIN,
	VOLT_BATCH_MAX,
	VOLT_INTERVAL,
	VOLT_INTERVAL_MIN,
	VOLT_INTERVAL_MAX,
	VOLT_TARGET_NS,
	VOLT_EWMA_ALPHA,
	VOLT_INITIAL_AVG_NS,
	VOLT_STEAL_MAX,
	VOLT_SEARCHER_CAP,
	VOLT_PARK_TIMEOUT_NS,
	VOLT_NOTIFY_LOCAL,
	VOLT_YIELD_TO_RING,
	VOLT_WAKE,
	VOLT_FALLBACK_BATCH,
	VOLT_OVERFLOW_BATCH,
	VOLT_NKNOBS
};

/* clamp(target / avg, lo, hi): polls between global-queue checks. */
uint32_t volt_interval_for(double avg_ns, double target_ns, uint32_t lo, uint32_t hi);

/* One EWMA step: alpha * sample + (1 - alpha) * avg, truncated, >= 1. */
uint64_t volt_ewma(uint64_t avg_ns, uint64_t sample_ns, double alpha);

/* clamp(len / workers, lo, hi): the size of one global batch. */
uint32_t volt_batch_size(uint64_t len, uint32_t workers, uint32_t lo, uint32_t hi);

/* The current interval and EWMA of worker w (tests and reports). */
uint32_t volt_worker_interval(const struct worker *w);
uint64_t volt_worker_avg_ns(const struct worker *w);

#endif
