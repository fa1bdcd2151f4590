/*
 * tokio.h - the Tokio multi-thread scheduler (tokio) and its 1.28 version
 * (tokio-1.28): pure functions and per-worker state, exposed for tests and
 * reports.
 */
#ifndef HARNESS_POLICIES_TOKIO_H
#define HARNESS_POLICIES_TOKIO_H

#include <stdint.h>

#include "policies/policy.h"

/* Tokio 1.29 and later: self-tuning global-queue interval. */
extern const struct policy policy_tokio;
/* Tokio up to 1.28: the global queue every 61 ticks, one task per pop. */
extern const struct policy policy_tokio_1_28;

/* Knob indices; both policies share this table shape. */
enum tokio_knob {
	TOKIO_LIFO_CAP,
	TOKIO_INTERVAL,
	TOKIO_INTERVAL_MIN,
	TOKIO_INTERVAL_MAX,
	TOKIO_TARGET_NS,
	TOKIO_SEED_INTERVAL,
	TOKIO_EWMA_ALPHA,
	TOKIO_DEAD_BAND,
	TOKIO_EVENT_INTERVAL,
	TOKIO_BATCH_MAX,
	TOKIO_STEAL_MAX,
	TOKIO_STEAL_REFUSE,
	TOKIO_SEARCHER_CAP,
	TOKIO_SLEEPER_FIFO,
	TOKIO_PARK_TIMEOUT_NS,
	TOKIO_COOP_BUDGET,
	TOKIO_DEFER_YIELD,
	TOKIO_NKNOBS
};

/* The idle word holds (unparked << 16) | searching: at most 65535 workers. */
#define TOKIO_MAX_WORKERS 65535u

/*
 * One EWMA step over a batch of `polls` polls that took `elapsed_ns`:
 * weight a = 1 - (1 - alpha)^polls applied to the batch mean
 * elapsed_ns / polls. polls == 0 leaves the average as it is.
 */
double tokio_ewma(double ewma_ns, uint32_t polls, uint64_t elapsed_ns, double alpha);

/* clamp((u32)(target / ewma), lo, hi), the cast saturating as Rust's does. */
uint32_t tokio_tuned_interval(double ewma_ns, double target_ns, uint32_t lo, uint32_t hi);

/* The dead band: move to `tuned` only if it differs from `cur` by more
 * than `band`. */
uint32_t tokio_retune(uint32_t cur, uint32_t tuned, uint32_t band);

/* max(1, min(len / workers + 1, room, max)): one batch from the global queue. */
uint32_t tokio_batch_size(uint64_t len, uint32_t workers, uint32_t room, uint32_t max);

/* Per-worker state (tests and reports; read by the owner, or after a run). */
uint32_t tokio_worker_tick(const struct worker *w);
uint32_t tokio_worker_interval(const struct worker *w);
uint32_t tokio_worker_interval_min(const struct worker *w);	/* lowest ever taken */
uint32_t tokio_worker_interval_max(const struct worker *w);	/* highest ever taken */
double tokio_worker_ewma_ns(const struct worker *w);
uint64_t tokio_worker_maintenance(const struct worker *w);	/* event-interval ticks */

/* The idle word's halves. */
uint32_t tokio_num_searching(struct runtime *rt);
uint32_t tokio_num_unparked(struct runtime *rt);

/* Copy the sleeper list, bottom of the stack first, into out[0..max);
 * returns its length. Takes the list's mutex. */
uint32_t tokio_sleepers(struct runtime *rt, uint32_t *out, uint32_t max);

#endif
