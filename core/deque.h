/*
 * deque.h - a growable Chase-Lev work-stealing deque of task pointers.
 *
 * The owner pushes and pops at the bottom (LIFO); thieves take one task at
 * a time from the top (FIFO, the oldest). Indices are signed 64-bit and
 * never wrap in practice; the tasks are those in [top, bottom), slot =
 * index & (capacity - 1) in a circular buffer of a power-of-two capacity.
 *
 *   top      the oldest task; only ever increases, by CAS (thieves, and
 *            the owner when it takes the last task)
 *   bottom   one past the newest task; written only by the owner
 *   buf      the current buffer; replaced only by the owner, when a push
 *            finds it full (64 slots at first, doubling, as crossbeam-deque)
 *
 * Orderings are those of Le, Pop, Cohen and Zappa Nardelli, "Correct and
 * efficient work-stealing for weak memory models" (PPoPP 2013), which
 * proves this exact algorithm (with growth) in the C11 model:
 *
 *   push   relaxed store of the slot; release fence; relaxed store of
 *          bottom. The fence publishes the slot to any thief whose acquire
 *          load of bottom reads this store or a later store of bottom.
 *          Top is read with acquire: a slot is overwritten only after top
 *          has passed it, and the acquire pairs with the thief's successful
 *          CAS, so the thief's read of that slot happens before the
 *          overwrite.
 *   pop    store bottom - 1; seq_cst fence; load top; if that was the last
 *          task, CAS top (seq_cst) to claim it against thieves, then
 *          restore bottom. The fence and the thief's fence form a
 *          store-buffering pair: either the owner's top load sees the
 *          thief's claim, or the thief's bottom load sees the decrement.
 *          Without it the owner and a thief can both take the same task.
 *   steal  acquire load of top; seq_cst fence; acquire load of bottom; if
 *          non-empty, acquire load of buf, relaxed read of the slot, CAS
 *          top (seq_cst). A failed CAS means another thief or the owner
 *          took that task: the outcome is DEQUE_RETRY, not EMPTY.
 *
 * Slots are atomics, read and written relaxed: after a failed CAS a thief
 * may have read a slot the owner is overwriting, and that read must not be
 * a data race (its value is then discarded).
 *
 * Growth and reclamation. The owner copies [top, bottom) into a buffer of
 * twice the size and publishes it with a release store of buf (thieves load
 * buf with acquire after bottom, so a thief that sees a task pushed after
 * the growth also sees the new buffer and the copied slots). A thief that
 * loaded the old buffer may still read from it, and nothing tells the owner
 * when it stops: the replaced buffer is never written again and is kept on
 * a list owned by the deque, freed only by deque_destroy. Since every
 * buffer is twice the one it replaced, the retired buffers together hold
 * 64 + 128 + ... + cap/2 = cap - 64 slots: less than the live buffer, so
 * the waste is under 2x the high-water capacity. The deque never shrinks.
 *
 * ThreadSanitizer. GCC rejects atomic_thread_fence under -fsanitize=thread
 * (-Werror=tsan) and TSan does not model fences anyway. Under TSan:
 *  - the seq_cst fence pair (pop, steal) becomes an acq_rel fetch_add of 0
 *    on a word of this deque. RMWs on one word are totally ordered, so the
 *    later of the two reads the earlier's value and synchronizes with it:
 *    the earlier side's store (pop: bottom; steal: the top it read, via
 *    the CAS it acquired) happens before the later side's load. That is
 *    the store-buffering guarantee the fences give, made stronger (it also
 *    orders everything else), and visible to the race detector. The word
 *    is per deque because only the owner and thieves of one deque need to
 *    agree; a global word would add edges that hide races elsewhere.
 *  - the release fence in push becomes release on every store of bottom.
 *    A release fence followed by a relaxed store of bottom synchronizes
 *    with an acquire load reading that store or any later store of bottom
 *    by the owner; making each of those stores a release store gives the
 *    same edge directly (x86 compiles both to plain stores).
 */
#ifndef HARNESS_CORE_DEQUE_H
#define HARNESS_CORE_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "task.h"

#define DEQUE_MIN_CAP 64

#if defined(__SANITIZE_THREAD__)
#define DEQUE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DEQUE_TSAN 1
#endif
#endif

struct deque_buf {
	int64_t mask;			/* capacity - 1, capacity a power of two */
	struct deque_buf *retired_next;	/* owner-private: the retired list */
	_Atomic(struct task *) slot[];
};

struct deque {
	/* Thieves CAS top; the owner reads it. Its own line, so a steal does
	 * not take the owner's bottom line away. */
	CACHE_ALIGNED _Atomic int64_t top;
	/* Owner-written, thief-read; buf shares the line: every operation
	 * reads both. */
	CACHE_ALIGNED _Atomic int64_t bottom;
	_Atomic(struct deque_buf *) buf;
	struct deque_buf *retired;	/* owner-private, freed at destroy */
	uint32_t grows;			/* owner-private: buffer doublings */
#ifdef DEQUE_TSAN
	_Atomic uint64_t tsan_fence;
#endif
};

_Static_assert(sizeof(struct deque) % CACHE_LINE == 0, "deque padded to lines");

/* Allocates the first buffer (aborts on out of memory). */
void deque_init(struct deque *d);
/* Frees the live and the retired buffers. No thread may use d after. */
void deque_destroy(struct deque *d);

/* Owner: replace a full buffer by one twice the size; returns it. */
struct deque_buf *deque_grow(struct deque *d, int64_t top, int64_t bottom);

#ifdef DEQUE_TSAN
#define DEQUE_BOTTOM_ORDER memory_order_release
static inline void deque_fence_sc(struct deque *d)
{
	atomic_fetch_add_explicit(&d->tsan_fence, 0, memory_order_acq_rel);
}
static inline void deque_fence_release(void)
{
}
#else
#define DEQUE_BOTTOM_ORDER memory_order_relaxed
static inline void deque_fence_sc(struct deque *d)
{
	(void)d;
	atomic_thread_fence(memory_order_seq_cst);
}
static inline void deque_fence_release(void)
{
	atomic_thread_fence(memory_order_release);
}
#endif

/* Owner: push t at the bottom. Never fails (grows when full). */
static inline void deque_push(struct deque *d, struct task *t)
{
	int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
	/* Acquire pairs with the CAS of the thief that last moved top: its
	 * read of the slot we may be about to reuse happened before. */
	int64_t tp = atomic_load_explicit(&d->top, memory_order_acquire);
	struct deque_buf *a = atomic_load_explicit(&d->buf, memory_order_relaxed);
	if (__builtin_expect(b - tp > a->mask, 0))
		a = deque_grow(d, tp, b);
	atomic_store_explicit(&a->slot[b & a->mask], t, memory_order_relaxed);
	/* Publishes the slot (and the task's contents, written before the
	 * push) to thieves whose acquire load of bottom sees b + 1. */
	deque_fence_release();
	atomic_store_explicit(&d->bottom, b + 1, DEQUE_BOTTOM_ORDER);
}

/* Owner: pop the newest task, or NULL if the deque is empty (or a thief
 * took the last task first). */
static inline struct task *deque_pop(struct deque *d)
{
	int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
	/* Empty for sure: top only grows, so a stale top only makes the
	 * deque look longer. Skips the fence when there is nothing to pop. */
	if (b <= atomic_load_explicit(&d->top, memory_order_relaxed))
		return NULL;
	b--;
	struct deque_buf *a = atomic_load_explicit(&d->buf, memory_order_relaxed);
	atomic_store_explicit(&d->bottom, b, DEQUE_BOTTOM_ORDER);
	/* Store-buffering pair with deque_steal's fence (header comment). */
	deque_fence_sc(d);
	int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
	if (t > b) {
		/* Thieves emptied it since the check above. */
		atomic_store_explicit(&d->bottom, b + 1, DEQUE_BOTTOM_ORDER);
		return NULL;
	}
	struct task *x = atomic_load_explicit(&a->slot[b & a->mask], memory_order_relaxed);
	if (t == b) {
		/* The last task: a thief may be taking it. Whoever moves top
		 * from t wins; either way the deque is empty after, and
		 * bottom goes back to t + 1 == top. */
		if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
							     memory_order_seq_cst,
							     memory_order_relaxed))
			x = NULL;
		atomic_store_explicit(&d->bottom, b + 1, DEQUE_BOTTOM_ORDER);
	}
	return x;
}

enum deque_steal {
	DEQUE_STOLEN = 0,	/* *out holds the oldest task */
	DEQUE_EMPTY,		/* nothing to steal */
	DEQUE_RETRY,		/* lost a race for the top task: it may be worth retrying */
};

/* Thief (any thread but the owner): take the oldest task. */
enum deque_steal deque_steal(struct deque *d, struct task **out);

/*
 * deque_steal for a thief that may take only a task made runnable by
 * `horizon` (its ready_ns; rt_steal_horizon): one whose stamp is later is
 * not in the deque yet at the thief's time, which sees the deque empty
 * (DEQUE_EMPTY), as it was then. UINT64_MAX (the threads engine) is
 * deque_steal, which never reads the task. Only the simulation engine,
 * one thread for every worker, passes anything else: the task it reads
 * is queued and nobody else runs meanwhile.
 */
enum deque_steal deque_steal_before(struct deque *d, struct task **out, uint64_t horizon);

/* Tasks queued: exact for the owner. */
static inline int64_t deque_len(const struct deque *d)
{
	struct deque *m = (struct deque *)d;
	int64_t b = atomic_load_explicit(&m->bottom, memory_order_relaxed);
	int64_t t = atomic_load_explicit(&m->top, memory_order_relaxed);
	return b > t ? b - t : 0;
}

/*
 * Any thread: does the deque look non-empty? A hint, as a steal's emptiness
 * test (top, then bottom, both acquire). A caller that must not miss a push
 * (a parking worker's re-check) orders it with a seq_cst fence against the
 * pusher's fence, as core/idle.h describes.
 */
static inline bool deque_looks_nonempty(const struct deque *d)
{
	struct deque *m = (struct deque *)d;
	int64_t t = atomic_load_explicit(&m->top, memory_order_acquire);
	int64_t b = atomic_load_explicit(&m->bottom, memory_order_acquire);
	return b > t;
}

/* Owner (or tests): current capacity, and slots held by retired buffers. */
static inline int64_t deque_capacity(const struct deque *d)
{
	return atomic_load_explicit(&((struct deque *)d)->buf, memory_order_relaxed)->mask + 1;
}
int64_t deque_retired_slots(const struct deque *d);

#endif
