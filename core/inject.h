/*
 * inject.h - the global injection queue: a FIFO of task pointers in a
 * growable circular array under one mutex. Remote spawns, ring overflows
 * and (for some policies) every task go here. Batch operations take the
 * lock once for many tasks and copy pointers only: moving 129 tasks never
 * touches the tasks themselves, whose memory is usually cold by then.
 *
 * `len` is readable without the lock, as a hint for "is there anything
 * worth locking for" and for the park protocol's re-check (see idle.h for
 * the fence that makes that re-check sound).
 */
#ifndef HARNESS_CORE_INJECT_H
#define HARNESS_CORE_INJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "lock.h"
#include "task.h"

struct inject {
	/* Also sched.lock for policies that keep idle lists under it (go,
	 * tokio): inject_lock / inject_unlock. */
	CACHE_ALIGNED struct hlock lock;
	/* Acquisitions of the lock, modulo 2^32: written under it (a plain
	 * increment on the line the lock's CAS has just taken), read by the
	 * sim engine between steps to see whether a step took the lock, and
	 * so whether its lines came from another worker (docs/sim.md). */
	uint32_t taken;
	struct task **buf;		/* under lock; capacity a power of two */
	size_t cap, head;		/* under lock */
	CACHE_ALIGNED _Atomic size_t len;	/* written under lock, read anywhere */
};

void inject_init(struct inject *q);
void inject_destroy(struct inject *q);

static inline void inject_lock(struct inject *q)
{
	hlock_lock(&q->lock);
	q->taken++;
}

static inline void inject_unlock(struct inject *q)
{
	hlock_unlock(&q->lock);
}

static inline size_t inject_len(const struct inject *q)
{
	/* Relaxed: a hint. Where a stale zero would lose a wakeup, the
	 * caller orders this load with a seq_cst fence (idle.h). */
	return atomic_load_explicit(&((struct inject *)q)->len, memory_order_relaxed);
}

/* Append n tasks, in order, in one lock acquisition. */
void inject_push_many(struct inject *q, struct task *const *ts, size_t n);

static inline void inject_push(struct inject *q, struct task *t)
{
	inject_push_many(q, &t, 1);
}

/* Pop up to max tasks into out[] in one lock acquisition; returns count. */
size_t inject_pop_batch(struct inject *q, struct task **out, size_t max);

#endif
