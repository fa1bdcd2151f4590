/*
 * ring.c - the cold paths of the local ring: overflow, batch push, steal.
 * The protocol is described in ring.h.
 */
#include "ring.h"

#include <string.h>

void ring_init(struct ring *r)
{
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	memset(r->buf, 0, sizeof r->buf);
}

enum ring_push_result ring_push_slow(struct ring *r, struct task *t,
				     struct ring_overflow *out)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	out->n = 0;
	for (;;) {
		uint32_t steal = ring_steal_idx(h), real = ring_real(h);
		if (tail - steal < RING_CAP) {
			/* A thief finished meanwhile and freed slots. */
			r->buf[tail & RING_MASK] = t;
			atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
			return RING_PUSHED;
		}
		if (steal != real) {
			/* A thief is copying out of the head: the oldest half
			 * is not ours to move. Only the new task goes. */
			out->tasks[out->n++] = t;
			return RING_FULL_BUSY;
		}
		CHECK(tail - real == RING_CAP);
		/*
		 * Claim the oldest half before reading it. Only this thread
		 * writes slots, so the claimed slots stay stable while we copy
		 * them out. The CAS races with thieves claiming the same
		 * head: on failure (acquire) we see their claim and retry,
		 * most likely finding free space. Release on success orders
		 * nothing we need; acquire keeps the reads below after it.
		 */
		uint32_t next_real = real + RING_OVERFLOW_BATCH;
		if (atomic_compare_exchange_strong_explicit(
			    &r->head, &h, ring_pack(next_real, next_real),
			    memory_order_acquire, memory_order_acquire)) {
			for (uint32_t i = real; i != next_real; i++)
				out->tasks[out->n++] = r->buf[i & RING_MASK];
			out->tasks[out->n++] = t;
			return RING_OVERFLOWED;
		}
	}
}

void ring_push_batch(struct ring *r, struct task *const *ts, uint32_t n)
{
	if (n == 0)
		return;
	CHECK(n <= ring_free(r));
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++)
		r->buf[(tail + i) & RING_MASK] = ts[i];
	/* Release: pairs with thieves' acquire load of tail. */
	atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}

uint32_t ring_steal_into(struct ring *src, struct ring *dst, uint32_t max,
			 struct task **first, enum steal_outcome *why)
{
	struct ring_steal st;
	if (!ring_steal_claim(src, dst, max, &st, why)) {
		*first = NULL;
		return 0;
	}
	/* The order is the protocol: copy the claimed slots out before
	 * releasing them to the owner, and publish the copies last. */
	*first = ring_steal_copy(src, dst, &st);
	ring_steal_release(src, &st);
	ring_steal_publish(dst, &st);
	*why = STEAL_OK;
	return st.k;
}

uint32_t ring_steal_into_oldest(struct ring *src, struct ring *dst, uint32_t max,
				struct task **first, enum steal_outcome *why)
{
	struct ring_steal st;
	if (!ring_steal_claim_once(src, dst, max, &st, why)) {
		*first = NULL;
		return 0;
	}
	/* The protocol's order, as in ring_steal_into. */
	*first = ring_steal_copy_oldest(src, dst, &st);
	ring_steal_release(src, &st);
	ring_steal_publish(dst, &st);
	*why = STEAL_OK;
	return st.k;
}
