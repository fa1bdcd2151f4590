/*
 * ring.h - the per-worker local run queue: 256 slots, owner pushes at the
 * tail and pops at the head (FIFO), thieves take half from the head.
 *
 * The head is one 64-bit word packing two 32-bit indices:
 *
 *   real   the next slot the owner pops; tasks in [real, tail) are queued
 *   steal  equals real when no steal is in progress; while a thief copies
 *          tasks out, steal stays at the old head so the owner cannot reuse
 *          the slots being copied
 *
 * The tail is written only by the owner. Indices are free-running u32 and
 * wrap; slot = index & RING_MASK. Capacity is measured from `steal`, not
 * `real`, so slots still being copied by a thief are never overwritten.
 *
 * A thief claims tasks in two steps: CAS head (steal, real) -> (steal, real+n)
 * claims n tasks and blocks other thieves (steal != real means "busy"); it
 * copies the n slots; then CAS head to (real+n, real+n) releases them. Owner
 * pops move only `real`, so the owner keeps popping during a steal.
 */
#ifndef HARNESS_CORE_RING_H
#define HARNESS_CORE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "task.h"

#define RING_CAP 256u
#define RING_MASK (RING_CAP - 1)
#define RING_STEAL_MAX (RING_CAP / 2)	/* a steal takes at most half */
#define RING_OVERFLOW_BATCH (RING_CAP / 2)	/* a full ring sheds half */
/* Pops ahead at which a queued task's header is prefetched. */
#define RING_PREFETCH_HEADER 4

struct ring {
	/* head and tail share a line: every operation reads both. */
	CACHE_ALIGNED _Atomic uint64_t head;	/* (steal << 32) | real */
	_Atomic uint32_t tail;
	CACHE_ALIGNED struct task *buf[RING_CAP];
};

static inline uint64_t ring_pack(uint32_t steal, uint32_t real)
{
	return ((uint64_t)steal << 32) | real;
}
static inline uint32_t ring_real(uint64_t h) { return (uint32_t)h; }
static inline uint32_t ring_steal_idx(uint64_t h) { return (uint32_t)(h >> 32); }

void ring_init(struct ring *r);

/* Tasks currently queued. Exact for the owner; a hint for anyone else. */
static inline uint32_t ring_len(const struct ring *r)
{
	uint64_t h = atomic_load_explicit(&((struct ring *)r)->head, memory_order_acquire);
	uint32_t t = atomic_load_explicit(&((struct ring *)r)->tail, memory_order_acquire);
	return t - ring_real(h);
}

static inline bool ring_is_empty(const struct ring *r)
{
	return ring_len(r) == 0;
}

/* Free slots, owner only (counts slots a thief is still copying as used). */
static inline uint32_t ring_free(const struct ring *r)
{
	uint64_t h = atomic_load_explicit(&((struct ring *)r)->head, memory_order_acquire);
	uint32_t t = atomic_load_explicit(&((struct ring *)r)->tail, memory_order_relaxed);
	return RING_CAP - (t - ring_steal_idx(h));
}

enum ring_push_result {
	RING_PUSHED = 0,	/* the task is in the ring */
	RING_OVERFLOWED,	/* ring was full: `out` holds 128 tasks + the new one */
	RING_FULL_BUSY,		/* full while a thief copies: `out` holds the new one */
};

/* What a full ring hands to the global queue, oldest first. */
struct ring_overflow {
	uint32_t n;
	struct task *tasks[RING_OVERFLOW_BATCH + 1];
};

/*
 * Owner: push at the tail. When the ring is full the caller must move `out`
 * to the global queue (one lock acquisition for the whole batch).
 */
enum ring_push_result ring_push_slow(struct ring *r, struct task *t,
				     struct ring_overflow *out);

/* Owner: push at the tail if there is room; false if the ring is full. */
static inline bool ring_try_push(struct ring *r, struct task *t)
{
	/* Acquire pairs with a thief's release of the slots it copied (its
	 * final head CAS), so reusing those slots cannot overtake its reads. */
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (__builtin_expect(tail - ring_steal_idx(h) >= RING_CAP, 0))
		return false;
	r->buf[tail & RING_MASK] = t;
	/* Release publishes the slot write to thieves, whose acquire load of
	 * tail pairs with it. */
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	return true;
}

static inline enum ring_push_result ring_push(struct ring *r, struct task *t,
					      struct ring_overflow *out)
{
	if (__builtin_expect(ring_try_push(r, t), 1))
		return RING_PUSHED;
	return ring_push_slow(r, t, out);
}

/*
 * Owner: push n tasks the caller knows fit (n <= ring_free()). One release
 * store of the tail publishes all of them.
 */
void ring_push_batch(struct ring *r, struct task *const *ts, uint32_t n);

/* The owner's pop CAS on head has claimed slot `real`: the task in it. */
static inline struct task *ring_take_at(struct ring *r, uint32_t real)
{
	/* The tasks behind this one are polled soon and may have been queued
	 * long ago (the ring is FIFO): fetch a header a few pops ahead (a
	 * prefetch never faults, and the slot is ours to read; past the tail
	 * it holds an old pointer, which costs a wasted fetch at most). The
	 * continuation is fetched only for the task we now own: a task still
	 * in the ring may be stolen, completed and its memory reused
	 * meanwhile, so its fields are not ours to read. */
	__builtin_prefetch(r->buf[(real + RING_PREFETCH_HEADER) & RING_MASK], 1);
	struct task *t = r->buf[real & RING_MASK];
	task_prefetch_cont(t);
	return t;
}

/* The head word after the owner pops slot `real` of head h. */
static inline uint64_t ring_popped(uint64_t h)
{
	uint32_t real = ring_real(h), steal = ring_steal_idx(h), next_real = real + 1;
	/* With no steal in progress both halves move together; during a
	 * steal only `real` moves (the thief owns `steal`). One select of
	 * the upper half, not of the whole word. */
	uint32_t next_steal = steal == real ? next_real : steal;
	return ring_pack(next_steal, next_real);
}

/* ring_pop's body, from a head and tail the owner has just read. */
static inline struct task *ring_pop_at(struct ring *r, uint64_t h, uint32_t tail)
{
	for (;;) {
		uint32_t real = ring_real(h);
		if (real == tail)
			return NULL;
		/* The CAS races with thieves claiming the same head slot.
		 * Acquire on failure re-reads the thief's claim; success needs
		 * no ordering beyond the owner's own earlier slot write. */
		if (atomic_compare_exchange_weak_explicit(&r->head, &h, ring_popped(h),
							  memory_order_acquire,
							  memory_order_acquire))
			return ring_take_at(r, real);
	}
}

/* Owner: pop the oldest task, or NULL. */
static inline struct task *ring_pop(struct ring *r)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	return ring_pop_at(r, h, tail);
}

/*
 * Owner: push t at the tail, then pop the oldest task: ring_try_push and
 * ring_pop in one pass over head and tail (a LIFO slot flushed into the
 * ring just before the ring is polled). Returns NULL, with t not pushed,
 * only if the ring is full; the caller then sheds as ring_try_push's
 * caller would and pops as usual. Orderings as in those two.
 */
static inline struct task *ring_push_pop(struct ring *r, struct task *t, bool *pushed)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (__builtin_expect(tail - ring_steal_idx(h) >= RING_CAP, 0)) {
		*pushed = false;
		return NULL;
	}
	r->buf[tail & RING_MASK] = t;
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	*pushed = true;
	/* Not empty: h was read before the push, so its head is at most the
	 * old tail. The first CAS needs no emptiness test; if it fails
	 * (thieves moved the head; acquire as in ring_pop_at), ring_pop_at
	 * goes on from the reloaded head, which may be empty by then. */
	uint32_t real = ring_real(h);
	if (__builtin_expect(atomic_compare_exchange_weak_explicit(&r->head, &h, ring_popped(h),
								   memory_order_acquire,
								   memory_order_acquire),
			     1))
		return ring_take_at(r, real);
	return ring_pop_at(r, h, tail + 1);
}

enum steal_outcome {
	STEAL_OK = 0,	/* tasks moved */
	STEAL_EMPTY,	/* victim had nothing */
	STEAL_BUSY,	/* another thief is copying from this victim */
	STEAL_FULL,	/* the thief's ring has no room */
	STEAL_LOST,	/* ring_steal_into_oldest: the claim's CAS lost a race */
};

/*
 * Thief: move ceil(n/2) of the victim's n tasks, at most `max` (<= 128) and
 * at most the thief's free slots, into `dst`. One of them is returned in
 * *first for the thief to run at once (it is not pushed into `dst`); the
 * other moved-1 are appended to `dst`. Returns the number moved (0 on
 * failure) and the outcome in *why.
 */
uint32_t ring_steal_into(struct ring *src, struct ring *dst, uint32_t max,
			 struct task **first, enum steal_outcome *why);

/*
 * ring_steal_into as Volt's WorkStealQueue.stealInto (Header.zig) has it:
 * one claim CAS, and a claim that loses a race to the owner or another
 * thief gives up (STEAL_LOST) so that the thief moves on to its next
 * victim; the oldest claimed task is the one returned (Volt's
 * `first_task`), the newer ones are appended to `dst`. Tokio's and Go's
 * steals (ring_steal_into) retry the claim and return the newest.
 */
uint32_t ring_steal_into_oldest(struct ring *src, struct ring *dst, uint32_t max,
				struct task **first, enum steal_outcome *why);

/* How many tasks a steal takes from a victim holding n (thief empty). */
static inline uint32_t ring_steal_amount(uint32_t n, uint32_t max)
{
	uint32_t k = n - n / 2;		/* ceil(n/2) */
	if (k > RING_STEAL_MAX)
		k = RING_STEAL_MAX;
	if (k > max)
		k = max;
	return k;
}

/*
 * ring_steal_into's four phases, one shared-memory step each, in the order
 * it runs them: claim (CAS of src's head), copy (plain reads of the claimed
 * slots), release (CAS of src's head: steal catches up with real), publish
 * (store of dst's tail). Exposed so that a test can interleave other
 * operations between them (tests/test_ring.c, every schedule).
 */
struct ring_steal {
	uint32_t real;		/* src's head when claimed */
	uint32_t k;		/* tasks claimed */
	uint32_t dst_tail;	/* dst's tail: dst is the thief's own ring */
};

/*
 * Claim up to max of src's tasks (ring_steal_amount, bounded by dst's
 * room) from `prev`, src's head as the thief read it (acquire); false with
 * *why set if there is nothing to claim. `retry`: a CAS that loses a race
 * goes on from the fresh head (Tokio, Go); without it the claim gives up
 * with STEAL_LOST (Volt). ring_steal_claim reads the head itself.
 */
static inline bool ring_steal_claim_from(struct ring *src, struct ring *dst, uint32_t max,
					 uint64_t prev, bool retry, struct ring_steal *st,
					 enum steal_outcome *why)
{
	CHECK(src != dst && max >= 1);
	/* dst is the thief's own ring: its tail is ours alone. */
	uint32_t dst_tail = atomic_load_explicit(&dst->tail, memory_order_relaxed);
	uint64_t dh = atomic_load_explicit(&dst->head, memory_order_acquire);
	uint32_t room = RING_CAP - (dst_tail - ring_steal_idx(dh));
	if (room == 0) {
		*why = STEAL_FULL;
		return false;
	}
	if (max > room)
		max = room;

	for (;;) {
		uint32_t steal = ring_steal_idx(prev), real = ring_real(prev);
		if (steal != real) {
			*why = STEAL_BUSY;
			return false;
		}
		/* Acquire pairs with the owner's release store of tail: the
		 * slots below it hold the tasks it pushed. */
		uint32_t src_tail = atomic_load_explicit(&src->tail, memory_order_acquire);
		uint32_t n = src_tail - real;
		if (n == 0) {
			*why = STEAL_EMPTY;
			return false;
		}
		if (n > RING_CAP) {
			/* Head moved past our stale tail read. */
			prev = atomic_load_explicit(&src->head, memory_order_acquire);
			continue;
		}
		uint32_t k = ring_steal_amount(n, max);
		/*
		 * Claim [real, real+k) and mark the ring busy (steal stays at
		 * real). Races with the owner's pop CAS and other thieves; on
		 * failure we retry with the fresh head. The owner cannot
		 * overwrite the claimed slots: its capacity check counts from
		 * `steal`, which we have not moved yet.
		 */
		if (retry) {
			if (atomic_compare_exchange_weak_explicit(&src->head, &prev,
								  ring_pack(steal, real + k),
								  memory_order_acquire,
								  memory_order_acquire)) {
				*st = (struct ring_steal){ real, k, dst_tail };
				return true;
			}
			continue;
		}
		/* One attempt: strong, so that only a real race (not a
		 * spurious failure of this machine's CAS) gives up. Orderings
		 * as above; on failure nothing is read after it. */
		if (atomic_compare_exchange_strong_explicit(&src->head, &prev,
							    ring_pack(steal, real + k),
							    memory_order_acquire, memory_order_relaxed)) {
			*st = (struct ring_steal){ real, k, dst_tail };
			return true;
		}
		*why = STEAL_LOST;
		return false;
	}
}

static inline bool ring_steal_claim(struct ring *src, struct ring *dst, uint32_t max,
				    struct ring_steal *st, enum steal_outcome *why)
{
	/* Acquire: with the tail's acquire load in the claim, the slots below
	 * the tail and the head word's claims are seen. */
	uint64_t prev = atomic_load_explicit(&src->head, memory_order_acquire);
	return ring_steal_claim_from(src, dst, max, prev, true, st, why);
}

/* Volt's claim (ring_steal_into_oldest): one CAS, a lost race gives up. */
static inline bool ring_steal_claim_once(struct ring *src, struct ring *dst, uint32_t max,
					 struct ring_steal *st, enum steal_outcome *why)
{
	/* Acquire: as in ring_steal_claim. */
	uint64_t prev = atomic_load_explicit(&src->head, memory_order_acquire);
	return ring_steal_claim_from(src, dst, max, prev, false, st, why);
}

/* Copy the claimed tasks but the last into dst's free slots (not yet
 * visible); returns the last, for the thief to run. */
static inline struct task *ring_steal_copy(struct ring *src, struct ring *dst,
					   const struct ring_steal *st)
{
	for (uint32_t i = 0; i < st->k - 1; i++)
		dst->buf[(st->dst_tail + i) & RING_MASK] = src->buf[(st->real + i) & RING_MASK];
	return src->buf[(st->real + st->k - 1) & RING_MASK];
}

/* Volt's copy (Header.zig, stealInto's `first_task`): the oldest claimed
 * task is returned for the thief to run, the newer ones go into dst's free
 * slots (not yet visible). */
static inline struct task *ring_steal_copy_oldest(struct ring *src, struct ring *dst,
						  const struct ring_steal *st)
{
	for (uint32_t i = 1; i < st->k; i++)
		dst->buf[(st->dst_tail + i - 1) & RING_MASK] = src->buf[(st->real + i) & RING_MASK];
	return src->buf[st->real & RING_MASK];
}

/* Hand the claimed slots back to src's owner: steal catches up with real. */
static inline void ring_steal_release(struct ring *src, const struct ring_steal *st)
{
	/*
	 * The owner may have popped meanwhile, so re-read real on failure.
	 * Release pairs with the owner's acquire load of head in ring_push:
	 * our slot reads in ring_steal_copy happen before it reuses them.
	 */
	uint64_t prev = ring_pack(st->real, st->real + st->k);
	for (;;) {
		uint32_t cur_real = ring_real(prev);
		CHECK(ring_steal_idx(prev) == st->real);
		if (atomic_compare_exchange_weak_explicit(&src->head, &prev,
							  ring_pack(cur_real, cur_real),
							  memory_order_release, memory_order_relaxed))
			return;
	}
}

/*
 * Have src's owner's pushes reached the claimed slots since the claim, so
 * that what a copy reads there is no longer the claimed tasks? Never while
 * the thief holds `steal` at the claim (the owner's room counts from it);
 * after the claimed slots are released, pushes may wrap onto them. For a
 * checker between the phases (the simulator, exploring: policies/volt.c),
 * where every worker runs on one thread: relaxed, it orders nothing.
 */
static inline bool ring_steal_overwritten(struct ring *src, const struct ring_steal *st)
{
	return atomic_load_explicit(&src->tail, memory_order_relaxed) - st->real > RING_CAP;
}

/* Publish the k-1 copied tasks to thieves of dst (release: pairs with their
 * acquire load of tail, so they see the copies). */
static inline void ring_steal_publish(struct ring *dst, const struct ring_steal *st)
{
	if (st->k > 1)
		atomic_store_explicit(&dst->tail, st->dst_tail + st->k - 1, memory_order_release);
}

#endif
