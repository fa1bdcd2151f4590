/*
 * inject.h - the global injection queue: an intrusive FIFO of tasks under
 * one mutex. Remote spawns, ring overflows and (for some policies) every
 * task go here. Batch operations take the lock once for many tasks.
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
#include "task.h"

struct inject {
	CACHE_ALIGNED pthread_mutex_t lock;
	struct task *head, *tail;	/* under lock */
	_Atomic size_t len;		/* written under lock, read anywhere */
	uint64_t lock_acquisitions;	/* under lock */
};

void inject_init(struct inject *q);
void inject_destroy(struct inject *q);

static inline size_t inject_len(const struct inject *q)
{
	/* Relaxed: a hint. Where a stale zero would lose a wakeup, the
	 * caller orders this load with a seq_cst fence (idle.h). */
	return atomic_load_explicit(&((struct inject *)q)->len, memory_order_relaxed);
}

void inject_push(struct inject *q, struct task *t);
/* Append a whole list in one lock acquisition. */
void inject_push_list(struct inject *q, struct task_list *l);
/* Pop up to max tasks into out[] in one lock acquisition; returns count. */
size_t inject_pop_batch(struct inject *q, struct task **out, size_t max);

#endif
