/*
 * timer.h - the runtime's timers: a binary min-heap of (deadline, task)
 * under one mutex. Insert and expiry are O(log n); the earliest deadline is
 * readable without the lock (for park timeouts). A task waiting on a timer
 * is woken (rt_wake) by whichever worker polls the timers after its
 * deadline, as the policy decides (volt: worker 0 every tick).
 */
#ifndef HARNESS_CORE_TIMER_H
#define HARNESS_CORE_TIMER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "task.h"

#define TIMER_NONE UINT64_MAX

struct timer_entry {
	uint64_t deadline;
	uint64_t seq;		/* insertion order: equal deadlines expire FIFO */
	struct task *task;
};

struct timers {
	pthread_mutex_t lock;
	struct timer_entry *heap;	/* under lock */
	size_t len, cap;		/* under lock */
	uint64_t seq;			/* under lock */
	/* The earliest deadline, TIMER_NONE when empty: written under lock,
	 * read anywhere as a hint (a stale value only delays a poll). */
	CACHE_ALIGNED _Atomic uint64_t next;
};

void timers_init(struct timers *t);
void timers_destroy(struct timers *t);
void timers_add(struct timers *t, uint64_t deadline, struct task *task);

/* Pop up to max tasks whose deadline is <= now into out[]; returns count. */
size_t timers_expire(struct timers *t, uint64_t now, struct task **out, size_t max);

static inline uint64_t timers_next(const struct timers *t)
{
	return atomic_load_explicit(&((struct timers *)t)->next, memory_order_relaxed);
}

static inline size_t timers_len_locked(const struct timers *t)
{
	return t->len;
}

#endif
