/* inject.c - the global injection queue (see inject.h). */
#include "inject.h"

#include <stdlib.h>
#include <string.h>

#define INJECT_INITIAL_CAP 1024

void inject_init(struct inject *q)
{
	hlock_init(&q->lock);
	q->taken = 0;
	q->buf = malloc(INJECT_INITIAL_CAP * sizeof *q->buf);
	CHECK_MSG(q->buf, "out of memory for the global queue");
	q->cap = INJECT_INITIAL_CAP;
	q->head = 0;
	atomic_init(&q->len, 0);
}

void inject_destroy(struct inject *q)
{
	free(q->buf);
	q->buf = NULL;
}

/* Under lock: double the array, unwrapping the queue to start at 0. */
static void grow(struct inject *q, size_t len, size_t need)
{
	size_t cap = q->cap;
	while (cap < need)
		cap *= 2;
	struct task **nb = malloc(cap * sizeof *nb);
	CHECK_MSG(nb, "out of memory growing the global queue to %zu tasks", cap);
	size_t first = q->cap - q->head < len ? q->cap - q->head : len;
	memcpy(nb, q->buf + q->head, first * sizeof *nb);
	memcpy(nb + first, q->buf, (len - first) * sizeof *nb);
	free(q->buf);
	q->buf = nb;
	q->cap = cap;
	q->head = 0;
}

void inject_push_many(struct inject *q, struct task *const *ts, size_t n)
{
	if (n == 0)
		return;
	inject_lock(q);
	size_t len = atomic_load_explicit(&q->len, memory_order_relaxed);
	if (len + n > q->cap)
		grow(q, len, len + n);
	size_t mask = q->cap - 1;
	for (size_t i = 0; i < n; i++)
		q->buf[(q->head + len + i) & mask] = ts[i];
	/* The mutex orders the array itself; len is only a hint outside it. */
	atomic_store_explicit(&q->len, len + n, memory_order_relaxed);
	inject_unlock(q);
}

size_t inject_pop_batch(struct inject *q, struct task **out, size_t max)
{
	if (max == 0 || inject_len(q) == 0)
		return 0;
	inject_lock(q);
	size_t len = atomic_load_explicit(&q->len, memory_order_relaxed);
	size_t n = len < max ? len : max;
	size_t mask = q->cap - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = q->buf[(q->head + i) & mask];
	q->head = (q->head + n) & mask;
	atomic_store_explicit(&q->len, len - n, memory_order_relaxed);
	inject_unlock(q);
	return n;
}
