/*
 * go.h - the Go runtime scheduler policy (go): the random coprime victim
 * order, pure functions and per-worker state, exposed for tests.
 */
#ifndef HARNESS_POLICIES_GO_H
#define HARNESS_POLICIES_GO_H

#include <stdbool.h>
#include <stdint.h>

#include "policies/policy.h"

extern const struct policy policy_go;

/* Knob indices (order of the knob table). */
enum go_knob {
	GO_INTERVAL,
	GO_BATCH_MAX,
	GO_RUNNEXT,
	GO_STEAL_PASSES,
	GO_STEAL_MAX,
	GO_RUNNEXT_PAUSE_NS,
	GO_SPIN_CAP,
	GO_IDLE_PRECHECK,
	GO_TIME_SLICE_NS,
	GO_BUDGET,
	GO_PARK_TIMEOUT_NS,
	GO_YIELD_GLOBAL,
	GO_NKNOBS
};

/*
 * Go's randomOrder / randomEnum: every X coprime with `count` makes
 * pos, pos + X, pos + 2X, ... (mod count) visit each of 0..count-1 once.
 * A random r picks the start (r % count) and the stride
 * (coprimes[r / count % ncoprimes]).
 */
struct go_order {
	uint32_t count, ncoprimes;
	uint32_t *coprimes;		/* the X in [1, count] with gcd(X, count) == 1 */
};

struct go_enum {
	uint32_t i, count, pos, inc;
};

uint32_t go_gcd(uint32_t a, uint32_t b);
/* 0, or -ENOMEM. count >= 1. */
int go_order_init(struct go_order *o, uint32_t count);
void go_order_destroy(struct go_order *o);

static inline struct go_enum go_enum_start(const struct go_order *o, uint32_t r)
{
	return (struct go_enum){
		.i = 0,
		.count = o->count,
		.pos = r % o->count,
		.inc = o->coprimes[r / o->count % o->ncoprimes],
	};
}

static inline bool go_enum_done(const struct go_enum *e)
{
	return e->i == e->count;
}

static inline void go_enum_next(struct go_enum *e)
{
	e->i++;
	/* pos < count and inc <= count: one subtraction is the modulo. */
	e->pos += e->inc;
	if (e->pos >= e->count)
		e->pos -= e->count;
}

/* min(len / workers + 1, max, len): one batch from the global queue
 * (globrunqgetbatch). */
uint32_t go_batch_size(uint64_t len, uint32_t workers, uint32_t max);

/* Per-worker state (the owner, or after a run). */
uint32_t go_worker_schedtick(const struct worker *w);
uint64_t go_worker_preempts(const struct worker *w);	/* modeled sysmon preemptions */
uint64_t go_worker_steal_waits(const struct worker *w);	/* looks at a victim held busy */
/* The thief-visible runnext slot of worker i (a peek; tests). */
struct task *go_runnext(struct runtime *rt, uint32_t i);

uint32_t go_num_spinning(struct runtime *rt);
uint32_t go_num_idle(struct runtime *rt);

#endif
