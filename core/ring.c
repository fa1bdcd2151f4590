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
	CHECK(src != dst && max >= 1);
	*first = NULL;

	/* dst is the thief's own ring: its tail is ours alone. */
	uint32_t dst_tail = atomic_load_explicit(&dst->tail, memory_order_relaxed);
	uint64_t dh = atomic_load_explicit(&dst->head, memory_order_acquire);
	uint32_t room = RING_CAP - (dst_tail - ring_steal_idx(dh));
	if (room == 0) {
		*why = STEAL_FULL;
		return 0;
	}
	if (max > room)
		max = room;

	uint64_t prev = atomic_load_explicit(&src->head, memory_order_acquire);
	uint32_t real, k;
	for (;;) {
		uint32_t steal = ring_steal_idx(prev);
		real = ring_real(prev);
		if (steal != real) {
			*why = STEAL_BUSY;
			return 0;
		}
		/* Acquire pairs with the owner's release store of tail: the
		 * slots below it hold the tasks it pushed. */
		uint32_t src_tail = atomic_load_explicit(&src->tail, memory_order_acquire);
		uint32_t n = src_tail - real;
		if (n == 0 || n > RING_CAP) {
			/* n > CAP: head moved past our stale tail read. */
			if (n == 0) {
				*why = STEAL_EMPTY;
				return 0;
			}
			prev = atomic_load_explicit(&src->head, memory_order_acquire);
			continue;
		}
		k = ring_steal_amount(n, max);
		/*
		 * Claim [real, real+k) and mark the ring busy (steal stays at
		 * real). Races with the owner's pop CAS and other thieves; on
		 * failure we retry with the fresh head. The owner cannot
		 * overwrite the claimed slots: its capacity check counts from
		 * `steal`, which we have not moved yet.
		 */
		if (atomic_compare_exchange_weak_explicit(
			    &src->head, &prev, ring_pack(steal, real + k),
			    memory_order_acquire, memory_order_acquire))
			break;
	}

	for (uint32_t i = 0; i < k - 1; i++)
		dst->buf[(dst_tail + i) & RING_MASK] = src->buf[(real + i) & RING_MASK];
	*first = src->buf[(real + k - 1) & RING_MASK];

	/*
	 * Release the claimed slots: steal catches up with real. The owner may
	 * have popped meanwhile, so re-read real on failure. Release pairs
	 * with the owner's acquire load of head in ring_push: our slot reads
	 * above happen before it reuses those slots.
	 */
	prev = ring_pack(real, real + k);
	for (;;) {
		uint32_t cur_real = ring_real(prev);
		CHECK(ring_steal_idx(prev) == real);
		if (atomic_compare_exchange_weak_explicit(
			    &src->head, &prev, ring_pack(cur_real, cur_real),
			    memory_order_release, memory_order_relaxed))
			break;
	}

	/* Publish the k-1 copied tasks to thieves of our own ring. */
	if (k > 1)
		atomic_store_explicit(&dst->tail, dst_tail + k - 1, memory_order_release);
	*why = STEAL_OK;
	return k;
}
