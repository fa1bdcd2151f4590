/* taskpool.c - chunk refill and teardown of the task block pools. */
#include "taskpool.h"

#include <string.h>
#include <sys/mman.h>

/*
 * Where chunks come from: 2 MiB slabs, aligned and advised for transparent
 * huge pages, cut into chunks; and the chunks of the runtimes destroyed so
 * far, which the next runtime of the process takes first.
 *
 * The huge pages are for the simulator's many workers: fib(30) on 64 of
 * them keeps about 17 MB of tasks live, queued in 64 FIFO rings and the
 * global queue, and a step reaches a handful of them, most beyond L2. On
 * 4 KiB pages nearly each of those lines also missed the TLB; on 2 MiB
 * pages 12 entries cover them all. The reserve keeps a process's trials
 * from paying for fresh pages each: handed back to the allocator, a trial's
 * chunks came back to the next one as pages the kernel zeroes on the first
 * touch, a fault per 4 KiB (4,000 a trial there), or a 2 MiB clear each.
 * A process holds its largest runtime's task memory, rounded up to a slab,
 * until it exits. The threads engine takes its chunks the same way. With
 * huge pages disabled (`transparent_hugepage/enabled` at never) the advice
 * changes nothing.
 */
#define SLAB_BYTES (2u << 20)

static struct {
	pthread_mutex_t lock;
	void *chunks;		/* released chunks, linked through word 0 */
	char *slab;		/* the slab being cut */
	size_t cut;		/* bytes of it handed out */
} reserve = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, SLAB_BYTES };

_Static_assert(SLAB_BYTES % TASKPOOL_CHUNK == 0, "a slab holds whole chunks");

/* A chunk: a released one, else the next of the slab, else a new slab's
 * first; NULL if memory is out. Under the lock: a refill on one worker
 * can race one on another, once per chunk (1023 blocks). */
static char *chunk_get(void)
{
	char *c = NULL;
	pthread_mutex_lock(&reserve.lock);
	if (reserve.chunks) {
		c = reserve.chunks;
		reserve.chunks = *(void **)c;
	} else {
		if (reserve.cut == SLAB_BYTES) {
			char *slab = aligned_alloc(SLAB_BYTES, SLAB_BYTES);
			if (slab) {
				(void)madvise(slab, SLAB_BYTES, MADV_HUGEPAGE);
				reserve.slab = slab;
				reserve.cut = 0;
			}
		}
		if (reserve.cut < SLAB_BYTES) {
			c = reserve.slab + reserve.cut;
			reserve.cut += TASKPOOL_CHUNK;
		}
	}
	pthread_mutex_unlock(&reserve.lock);
	return c;
}

/* Carve a chunk: block 0 links the chunk list, the rest go free. */
static void *carve(void **chunks, void *free_list)
{
	char *c = chunk_get();
	CHECK_MSG(c, "out of memory: no %u-byte chunk for tasks", TASKPOOL_CHUNK);
	*(void **)c = *chunks;
	*chunks = c;
	for (size_t off = TASKPOOL_CHUNK - TASKPOOL_BLOCK; off >= TASKPOOL_BLOCK;
	     off -= TASKPOOL_BLOCK) {
		*(void **)(c + off) = free_list;
		free_list = c + off;
	}
	return free_list;	/* lowest address first: chunks are used in order */
}

void taskpool_refill(struct taskpool *p)
{
	p->free = carve(&p->chunks, p->free);
}

/* Hand a pool's chunk list to the reserve, whole. */
static void free_chunks(void *c)
{
	if (!c)
		return;
	void *last = c;
	while (*(void **)last)
		last = *(void **)last;
	pthread_mutex_lock(&reserve.lock);
	*(void **)last = reserve.chunks;
	reserve.chunks = c;
	pthread_mutex_unlock(&reserve.lock);
}

void taskpool_drain(struct taskpool *p)
{
	free_chunks(p->chunks);
	p->chunks = NULL;
	p->free = NULL;
}

void *taskpool_outside_alloc(struct taskpool_outside *o)
{
	pthread_mutex_lock(&o->lock);
	if (!o->free)
		o->free = carve(&o->chunks, NULL);
	void *b = o->free;
	o->free = *(void **)b;
	pthread_mutex_unlock(&o->lock);
	return b;
}

void taskpool_outside_drain(struct taskpool_outside *o)
{
	free_chunks(o->chunks);
	o->chunks = NULL;
	o->free = NULL;
}
