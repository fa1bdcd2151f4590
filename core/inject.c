/* inject.c - the global injection queue (see inject.h). */
#include "inject.h"

void inject_init(struct inject *q)
{
	CHECK(pthread_mutex_init(&q->lock, NULL) == 0);
	q->head = q->tail = NULL;
	atomic_init(&q->len, 0);
	q->lock_acquisitions = 0;
}

void inject_destroy(struct inject *q)
{
	pthread_mutex_destroy(&q->lock);
}

void inject_push(struct inject *q, struct task *t)
{
	struct task_list l;
	task_list_init(&l);
	task_list_push(&l, t);
	inject_push_list(q, &l);
}

void inject_push_list(struct inject *q, struct task_list *l)
{
	if (l->len == 0)
		return;
	pthread_mutex_lock(&q->lock);
	q->lock_acquisitions++;
	if (q->tail)
		q->tail->next = l->head;
	else
		q->head = l->head;
	q->tail = l->tail;
	/* The mutex orders the list itself; len is only a hint outside it. */
	atomic_store_explicit(&q->len, atomic_load_explicit(&q->len, memory_order_relaxed) + l->len,
			      memory_order_relaxed);
	pthread_mutex_unlock(&q->lock);
	task_list_init(l);
}

size_t inject_pop_batch(struct inject *q, struct task **out, size_t max)
{
	if (max == 0 || inject_len(q) == 0)
		return 0;
	pthread_mutex_lock(&q->lock);
	q->lock_acquisitions++;
	size_t n = 0;
	while (n < max && q->head) {
		struct task *t = q->head;
		q->head = t->next;
		t->next = NULL;
		out[n++] = t;
	}
	if (!q->head)
		q->tail = NULL;
	atomic_store_explicit(&q->len, atomic_load_explicit(&q->len, memory_order_relaxed) - n,
			      memory_order_relaxed);
	pthread_mutex_unlock(&q->lock);
	return n;
}
