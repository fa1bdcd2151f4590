/*
 * idle.h - the idle state: how many workers search, how many are parked,
 * and which ones (a 64-bit bitmap, so at most 64 workers use it).
 *
 * The lost-wakeup argument. A task publisher and a worker going to sleep
 * form a store-buffering (Dekker) pair:
 *
 *   publisher                         parking worker
 *   push task (queue store)           mark parked, leave searching (RMWs)
 *   idle_fence_publish()  (seq_cst)   idle_fence_recheck()  (seq_cst)
 *   read num_searching, num_parked    if it was the last searcher:
 *   -> wake someone if none search       re-read every queue
 *
 * With a seq_cst fence on both sides, at least one side sees the other's
 * store: either the publisher sees no searcher and a parked worker (and
 * claims one), or the last searcher sees the task (and notifies). Marking
 * parked *before* leaving the searching state matters: a publisher that sees
 * num_searching == 0 then also sees the parked bit it must claim.
 *
 * Workers that leave the searching state after finding work and were the
 * last searcher wake one more worker ("last searcher must notify"), so work
 * that arrives while they run is still picked up by a chain of searchers.
 *
 * All idle-state RMWs are seq_cst: they are off the hot path (a worker that
 * keeps finding work never touches them), and they take part in the
 * argument above.
 */
#ifndef HARNESS_CORE_IDLE_H
#define HARNESS_CORE_IDLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

#define IDLE_MAX_WORKERS 64

struct idle {
	CACHE_ALIGNED _Atomic uint32_t num_searching;
	_Atomic uint32_t num_parked;
	_Atomic uint64_t parked_bitmap;	/* bit i set: worker i parked, unclaimed */
	uint32_t num_workers;
};

void idle_init(struct idle *s, uint32_t num_workers);

#if defined(__SANITIZE_THREAD__)
#define IDLE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IDLE_TSAN 1
#endif
#endif

#ifdef IDLE_TSAN
/*
 * ThreadSanitizer does not model standalone fences. Under it, both sides
 * of the Dekker pair do an acq_rel RMW on one shared word instead: RMWs on
 * one location are totally ordered, so whichever side comes second
 * synchronizes with the first and sees its store. Correct, stronger than
 * needed, and visible to the race detector.
 */
extern _Atomic uint64_t idle_tsan_fence_word;
static inline void idle_fence(void)
{
	atomic_fetch_add_explicit(&idle_tsan_fence_word, 0, memory_order_acq_rel);
}
#else
static inline void idle_fence(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}
#endif

/* Publisher side of the Dekker pair: after making a task visible, before
 * reading the idle state. */
static inline void idle_fence_publish(void)
{
	idle_fence();
}

/* Parking side: after the parking RMWs, before re-reading the queues. */
static inline void idle_fence_recheck(void)
{
	idle_fence();
}

/* Should a publisher wake a worker? Only if nobody searches and somebody
 * sleeps. Call after idle_fence_publish(). */
static inline bool idle_should_wake(struct idle *s)
{
	return atomic_load_explicit(&s->num_searching, memory_order_seq_cst) == 0 &&
	       atomic_load_explicit(&s->num_parked, memory_order_seq_cst) > 0;
}

/*
 * Become a searcher unless `cap_num/cap_den` of the workers already search
 * (soft: load then add, so it can briefly overshoot; that costs a little
 * wasted searching, never correctness).
 */
bool idle_try_become_searcher(struct idle *s, uint32_t cap_num, uint32_t cap_den);

/* Leave the searching state; returns true if this was the last searcher. */
bool idle_leave_searching(struct idle *s);

/*
 * Claim the lowest parked worker: account for it as a searcher on its
 * behalf, then clear its bit (count trailing zeros, then fetch-and; a lost
 * race undoes the count and retries with the next bit, or with a fresh
 * look at the bitmap if the undo left nobody searching). Returns its index
 * or -1 if none is parked.
 */
int idle_claim_parked(struct idle *s);

/*
 * The same claim with the choice made by pick(bm, arg), which returns the
 * index of a set bit of the parked bitmap bm (a policy's wake order: e.g.
 * the most recently parked first, as Tokio's sleeper stack wakes).
 */
typedef int (*idle_pick_fn)(uint64_t bm, const void *arg);
int idle_claim_parked_by(struct idle *s, idle_pick_fn pick, const void *arg);

/*
 * Mark worker `id` parked. If it was searching, it leaves the searching
 * state in the same step, after the bit is set; returns true if it was the
 * last searcher (it must then re-check every queue).
 */
bool idle_mark_parked(struct idle *s, uint32_t id, bool was_searching);

/*
 * After waking: was this worker claimed by a notifier? Clears its own bit;
 * if the bit was already clear, a claimer got there first (and counted it
 * as a searcher), so it returns true. Otherwise (timeout or spurious wake)
 * it undoes its own parked count and returns false. Checking the previous
 * value here closes the timeout-versus-claim race that lets the parked count
 * wrap (docs/policies.md, volt: the timeout/claim race).
 */
bool idle_wake_was_claim(struct idle *s, uint32_t id);

static inline bool idle_is_parked(struct idle *s, uint32_t id)
{
	return (atomic_load_explicit(&s->parked_bitmap, memory_order_seq_cst) >> id) & 1;
}

#endif
