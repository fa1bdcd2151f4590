/*
 * taskpool.h - a per-worker cache of task-sized memory blocks.
 *
 * Fork-join workloads allocate one small task per node and free it on
 * whichever worker completes it. The general allocator (jemalloc) handles
 * that correctly but spends about a hundred instructions per pair once its
 * thread cache starts filling and flushing, which is more than a fib node's
 * whole scheduling cost. Like the per-worker task free lists of Cilk and
 * TBB, each worker keeps a LIFO list of free blocks of one size class
 * (TASKPOOL_BLOCK bytes, cache-line aligned); a block freed on another
 * worker joins that worker's list. Lists are bounded, the excess goes back
 * to the allocator, and every policy pays the same, so the cache moves no
 * comparison, only the floor under all of them.
 *
 * Owner thread only: w is the calling worker. Outside a worker (w == NULL)
 * the calls go straight to the allocator.
 */
#ifndef HARNESS_CORE_TASKPOOL_H
#define HARNESS_CORE_TASKPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define TASKPOOL_BLOCK 64u
#define TASKPOOL_MAX_FREE 8192u

struct taskpool {
	void *free;		/* singly linked through the blocks' first word */
	uint32_t nfree;
};

static inline void *taskpool_alloc(struct taskpool *p, size_t size)
{
	if (p && size <= TASKPOOL_BLOCK && p->free) {
		void *b = p->free;
		p->free = *(void **)b;
		p->nfree--;
		return b;
	}
	void *b = aligned_alloc(CACHE_LINE, size <= TASKPOOL_BLOCK ? TASKPOOL_BLOCK
								   : (size + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1));
	CHECK_MSG(b, "out of memory allocating a %zu-byte task", size);
	return b;
}

static inline void taskpool_free(struct taskpool *p, void *b, size_t size)
{
	if (p && size <= TASKPOOL_BLOCK && p->nfree < TASKPOOL_MAX_FREE) {
		*(void **)b = p->free;
		p->free = b;
		p->nfree++;
		return;
	}
	free(b);
}

static inline void taskpool_drain(struct taskpool *p)
{
	while (p->free) {
		void *b = p->free;
		p->free = *(void **)b;
		free(b);
	}
	p->nfree = 0;
}

#endif
