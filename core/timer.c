/* timer.c - a binary min-heap of timers (timer.h). */
#include "timer.h"

#include <stdlib.h>

void timers_init(struct timers *t)
{
	CHECK(pthread_mutex_init(&t->lock, NULL) == 0);
	t->heap = NULL;
	t->len = t->cap = 0;
	t->seq = 0;
	atomic_init(&t->next, TIMER_NONE);
}

void timers_destroy(struct timers *t)
{
	pthread_mutex_destroy(&t->lock);
	free(t->heap);
	t->heap = NULL;
}

static inline int before(const struct timer_entry *a, const struct timer_entry *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void publish_next(struct timers *t)
{
	atomic_store_explicit(&t->next, t->len ? t->heap[0].deadline : TIMER_NONE,
			      memory_order_relaxed);
}

void timers_add(struct timers *t, uint64_t deadline, struct task *task)
{
	pthread_mutex_lock(&t->lock);
	if (t->len == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct timer_entry *h = realloc(t->heap, cap * sizeof *h);
		CHECK_MSG(h, "out of memory for %zu timers", cap);
		t->heap = h;
		t->cap = cap;
	}
	struct timer_entry e = { deadline, t->seq++, task };
	size_t i = t->len++;
	while (i > 0) {			/* sift up */
		size_t parent = (i - 1) / 2;
		if (!before(&e, &t->heap[parent]))
			break;
		t->heap[i] = t->heap[parent];
		i = parent;
	}
	t->heap[i] = e;
	publish_next(t);
	pthread_mutex_unlock(&t->lock);
}

static void pop_min(struct timers *t)
{
	struct timer_entry last = t->heap[--t->len];
	size_t i = 0;
	for (;;) {			/* sift down */
		size_t c = 2 * i + 1;
		if (c >= t->len)
			break;
		if (c + 1 < t->len && before(&t->heap[c + 1], &t->heap[c]))
			c++;
		if (!before(&t->heap[c], &last))
			break;
		t->heap[i] = t->heap[c];
		i = c;
	}
	if (t->len)
		t->heap[i] = last;
}

size_t timers_expire(struct timers *t, uint64_t now, struct task **out, size_t max)
{
	if (timers_next(t) > now)
		return 0;
	size_t n = 0;
	pthread_mutex_lock(&t->lock);
	while (n < max && t->len && t->heap[0].deadline <= now) {
		out[n++] = t->heap[0].task;
		pop_min(t);
	}
	publish_next(t);
	pthread_mutex_unlock(&t->lock);
	return n;
}
