/*
 * taskpool.h - per-worker slabs of task-sized memory blocks.
 *
 * Fork-join workloads allocate one small task per node and free it on
 * whichever worker completes it. The general allocator (jemalloc) handles
 * that correctly but spends about a hundred instructions per pair once its
 * thread cache starts filling and flushing, more than a fib node's whole
 * scheduling cost. Like the per-worker task free lists of Cilk and TBB,
 * each worker keeps a LIFO list of free blocks of one size class
 * (TASKPOOL_BLOCK bytes, cache-line aligned), refilled from 64 KiB chunks
 * cut from 2 MiB slabs on transparent huge pages; a block freed on another
 * worker joins that worker's list. (The sim engine, which steps every
 * worker on one thread, passes one pool from each stepped worker to the
 * next instead: engine_sim.c, pool_pass.) Chunks belong to the runtime
 * while it runs; when it is destroyed they go to a reserve the next
 * runtime of the process takes from (taskpool.c), so the process holds its
 * largest run's peak of live tasks. Every policy pays the same, so the pool
 * moves no comparison, only the floor.
 *
 * Larger tasks go straight to the allocator.
 */
#ifndef HARNESS_CORE_TASKPOOL_H
#define HARNESS_CORE_TASKPOOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define TASKPOOL_BLOCK 64u
#define TASKPOOL_CHUNK (64u * 1024u)

struct taskpool {
	void *free;		/* singly linked through the blocks' first word */
	void *chunks;		/* chunks this pool carved, linked through word 0 */
};

/* Blocks allocated outside any worker (roots injected by the harness),
 * owned by the runtime like the chunks. */
struct taskpool_outside {
	pthread_mutex_t lock;
	void *chunks;
	void *free;
};

void taskpool_refill(struct taskpool *p);
void taskpool_drain(struct taskpool *p);
void *taskpool_outside_alloc(struct taskpool_outside *o);
void taskpool_outside_drain(struct taskpool_outside *o);

static inline void *taskpool_alloc(struct taskpool *p)
{
	if (__builtin_expect(!p->free, 0))
		taskpool_refill(p);
	void *b = p->free;
	p->free = *(void **)b;
	return b;
}

static inline void taskpool_free(struct taskpool *p, void *b)
{
	*(void **)b = p->free;
	p->free = b;
}

#endif
