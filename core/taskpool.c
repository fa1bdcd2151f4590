/* taskpool.c - chunk refill and teardown of the task block pools. */
#include "taskpool.h"

#include <string.h>

/* Carve a fresh chunk: block 0 links the chunk list, the rest go free. */
static void *carve(void **chunks, void *free_list)
{
	char *c = aligned_alloc(CACHE_LINE, TASKPOOL_CHUNK);
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

static void free_chunks(void *c)
{
	while (c) {
		void *next = *(void **)c;
		free(c);
		c = next;
	}
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
