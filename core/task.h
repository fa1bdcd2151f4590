/*
 * task.h - the task header and its state machine.
 *
 * A task is a poll function plus state (DESIGN.md, "The task model"). Poll
 * returns TASK_DONE or TASK_PENDING; a pending task runs again only after
 * something wakes it. Workloads embed `struct task` as the first member of
 * their own task structs.
 *
 * The state word holds three flags, a wake counter and a join count:
 *
 *   SCHEDULED  the task is queued or being polled: exactly one party (a
 *              queue, or the worker polling it) owns the duty to run it
 *   COMPLETE   poll() returned TASK_DONE; it is never polled again
 *   SAMPLED    ready_ns holds a stamp for the scheduling-delay sample
 *              (task_mark_sampled), so that a poll's begin tests one word
 *              for both the state check and the sample
 *   wakes      bits 3..15 count wakes (modulo 2^13)
 *   joins      bits 16..31, signed: arrivals still awaited (see below)
 *
 *   wake():        idle -> SCHEDULED, wakes+1: the caller enqueues the task
 *                  SCHEDULED -> wakes+1: nothing else (queued or running)
 *                  COMPLETE: nothing
 *   poll begins:   read the word (acquire); it must be SCHEDULED
 *   poll pending:  CAS the word read at begin -> idle. If the CAS fails, a
 *                  wake arrived during the poll: the task stays SCHEDULED
 *                  and the runner schedules it again, once, however many
 *                  wakes came.
 *   poll done:     store COMPLETE (a task in a pool block goes back to
 *                  the pool at once instead: core/worker_loop.h)
 *
 * Invariants: no task lost (a wake either makes the waker enqueue an idle
 * task, or bumps the counter of a queued or running one, and a running
 * task's runner sees the bump at poll end); none run twice (only the single
 * idle -> SCHEDULED transition, or the runner itself, enqueues a task, so it
 * is in at most one queue or one worker at a time; polling a task that is
 * not SCHEDULED aborts, also under NDEBUG); a wake during a poll causes
 * exactly one more poll.
 *
 * Joins (fork-join in continuation-passing style): a poll that spawned k
 * children returns TASK_JOIN(k); each child, when done, calls
 * task_join_arrive on the parent. Arrivals during the parent's poll drive
 * the count negative; the poll's end adds k. Whoever brings it to zero
 * while the parent is not SCHEDULED makes it SCHEDULED and enqueues it, in
 * the same CAS; if the count reaches zero at poll end, the parent is polled
 * again at once. A join therefore costs one CAS per child and no extra
 * wake.
 *
 * Cost: poll begin is a plain load, so a poll that completes costs no
 * atomic read-modify-write at all, and a pending poll costs one CAS. Wakers
 * pay one CAS. A waker whose bump the runner's begin-load did not observe
 * still gets its writes seen: the runner's end CAS fails, and its retry, an
 * RMW, continues the waker's release sequence, which the extra poll's
 * begin-load (acquire) reads (C11 5.1.2.4: every RMW continues one).
 */
#ifndef HARNESS_CORE_TASK_H
#define HARNESS_CORE_TASK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

struct worker;
struct task;

/*
 * What a poll returns: TASK_DONE, TASK_PENDING (run again after a wake), or
 * TASK_JOIN(k) (run again after k task_join_arrive calls, or a wake).
 */
enum task_poll { TASK_PENDING = 0, TASK_DONE = 1, TASK_JOIN_BASE = 2 };
#define TASK_JOIN_MAX 32767u
#define TASK_JOIN(k) ((enum task_poll)(TASK_JOIN_BASE + (k)))

enum {
	TASK_SCHEDULED = 1u << 0,
	TASK_COMPLETE = 1u << 1,
	TASK_SAMPLED = 1u << 2,
	TASK_WAKE_ONE = 1u << 3,
	TASK_WAKE_MASK = 0xfff8u,
	TASK_JOIN_SHIFT = 16,
};

/* The signed join count of a state word. */
static inline int32_t task_joins(uint32_t s)
{
	return (int16_t)(s >> TASK_JOIN_SHIFT);
}

/* s with its join count moved by d (wrapping within its 16 bits: the
 * field is the top of the word, so a carry or borrow leaves the word). */
static inline uint32_t task_joins_add(uint32_t s, int32_t d)
{
	return s + ((uint32_t)d << TASK_JOIN_SHIFT);
}

/* The join count of s is zero. */
static inline bool task_joins_zero(uint32_t s)
{
	return s < (1u << TASK_JOIN_SHIFT);
}

struct task_vtable {
	const char *name;
	/* Called by the worker that polls; never concurrently with itself. */
	enum task_poll (*poll)(struct task *t, struct worker *w);
	/* Called once, by the worker whose poll returned TASK_DONE, after the
	 * task is marked complete. Frees the task (may be NULL). */
	void (*drop)(struct task *t, struct worker *w);
	/* Instead of a drop: the task is one task-pool block (rt_task_alloc
	 * of at most TASKPOOL_BLOCK bytes), which the core hands back to the
	 * completing worker's pool itself, without a call. */
	bool pooled;
};

struct task {
	_Atomic uint32_t state;
	/* The simulation's cache model only (core/touch.h): the worker that
	 * last touched the task's data and when; 0 while no worker has. */
	uint32_t touch;
	const struct task_vtable *vt;
	uint64_t ready_ns;		/* when made runnable, if SAMPLED */
	/* The task this one resumes when it completes (its parent in a
	 * fork-join), or NULL. The core only prefetches it a few polls ahead:
	 * under FIFO-heavy policies a parent is usually cold by then. */
	struct task *cont;
};

_Static_assert(sizeof(_Atomic uint32_t) == 4 && offsetof(struct task, touch) == 4,
	       "task_init writes state and touch as two adjacent 32-bit words");

/* A new task starts scheduled: whoever creates it must hand it to a queue. */
static inline void task_init(struct task *t, const struct task_vtable *vt)
{
	/* The state and touch words in one store: the task is not shared
	 * yet, so its state needs no atomic write (as atomic_init). */
	struct {
		uint32_t state, touch;
	} head = { TASK_SCHEDULED, 0 };
	memcpy(t, &head, sizeof head);
	t->vt = vt;
	t->cont = NULL;
}

/* Start fetching the continuation a task's poll will touch. Only for a task
 * the caller owns (popped, or in an owner-private buffer): its fields are
 * not stable otherwise. */
static inline void task_prefetch_cont(const struct task *t)
{
	if (t->cont)
		__builtin_prefetch(t->cont, 1);
}

/*
 * Wake: returns true if the caller now owns the duty to enqueue the task.
 * Release: the waker's prior writes (a child's result, say) reach the poll
 * that consumes this wake: through the queue if the task was idle, and
 * through that poll's begin-load (acquire) if it was queued or running (the
 * runner's poll-end CAS, an RMW after this one, continues the release
 * sequence that load reads).
 */
static inline bool task_wake(struct task *t)
{
	uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
	for (;;) {
		if (old & TASK_COMPLETE)
			return false;
		uint32_t next = (old & ~(uint32_t)TASK_WAKE_MASK) |
				((old + TASK_WAKE_ONE) & TASK_WAKE_MASK) | TASK_SCHEDULED;
		if (atomic_compare_exchange_weak_explicit(&t->state, &old, next,
							  memory_order_release,
							  memory_order_relaxed))
			return !(old & TASK_SCHEDULED);
	}
}

/*
 * The scheduling-delay sample stamped t (ready_ns): whoever is about to
 * enqueue t, before it does. Relaxed: only the worker that polls t reads
 * the flag, with the acquire load of its poll begin, after the enqueue's
 * release; the RMW keeps concurrent wakes' and arrivals' bumps.
 */
static inline void task_mark_sampled(struct task *t)
{
	atomic_fetch_or_explicit(&t->state, TASK_SAMPLED, memory_order_relaxed);
}

/*
 * The poll that took the sample clears the flag, so later polls of the task
 * do not record it again. Relaxed, as task_mark_sampled. The word read at
 * the poll's begin keeps the flag: the poll's end CAS then fails once and
 * retries from the current word (the flag is not in the bits it compares).
 */
static inline void task_clear_sampled(struct task *t)
{
	atomic_fetch_and_explicit(&t->state, ~(uint32_t)TASK_SAMPLED, memory_order_relaxed);
}

/* The word a poll begins with says: SCHEDULED, not COMPLETE, not SAMPLED
 * (the common case, one test); otherwise task_poll_check and the sample. */
static inline bool task_poll_plain(uint32_t s)
{
	/* (s & 7) == SCHEDULED, as s - SCHEDULED with its three low bits
	 * clear (a borrow sets them when SCHEDULED is clear): one subtract
	 * and one test, where a mask and a compare need a copy of s too. */
	return ((s - TASK_SCHEDULED) & (TASK_SCHEDULED | TASK_COMPLETE | TASK_SAMPLED)) == 0;
}

/* A task polled while not SCHEDULED was lost and resurrected, or is being
 * run twice: abort loudly. */
static inline void task_poll_check(uint32_t s)
{
	CHECK_MSG((s & (TASK_SCHEDULED | TASK_COMPLETE)) == TASK_SCHEDULED,
		  "task polled in state %#x (run twice, or after completing?)", (unsigned)s);
}

/*
 * Poll begins. Acquire pairs with the release of every wake this poll
 * consumes. A task polled while not SCHEDULED was lost and resurrected, or
 * is being run twice: abort loudly. Returns the word for task_poll_end.
 */
static inline uint32_t task_poll_begin(struct task *t)
{
	uint32_t s = atomic_load_explicit(&t->state, memory_order_acquire);
	task_poll_check(s);
	return s;
}

/*
 * Poll returned pending, awaiting `joins` more arrivals (0: a plain pending).
 * Goes idle unless a wake arrived since `begin` was read, or the join count
 * reached zero during the poll. Returns true in those cases; the task
 * then stays SCHEDULED and the caller must schedule it again (exactly one
 * more poll). The CAS races with wakes and join arrivals (release RMWs on
 * the word). Release publishes this poll's writes to the task's next poll,
 * on whatever worker: its begin-load (acquire) reads this CAS's word or a
 * later wake's or arrival's RMW, all in this release sequence. A failure
 * needs no acquire: the CAS that then succeeds is an RMW after the wakes
 * and arrivals that came during the poll, so it continues their release
 * sequences, and the extra poll's begin-load (acquire) reads it and takes
 * in their writes (tests/test_task.c, arrival_during_poll_publishes).
 */
static inline bool task_poll_end(struct task *t, uint32_t begin, uint32_t joins)
{
	/* The first attempt expects the word read at begin: no wake or
	 * arrival came meanwhile, so only this poll's own joins can make it
	 * run again (none left to await). It is the loop's first pass, with
	 * its orderings (above): release pairs with the next poll's
	 * begin-load; a failure (relaxed) reads the word the racing wakes
	 * and arrivals left, and the loop goes on from it. */
	uint32_t cur = begin, first = task_joins_add(begin, (int32_t)joins);
	bool first_again = joins && task_joins_zero(first);
	if (!first_again)
		first &= ~(uint32_t)TASK_SCHEDULED;
	if (__builtin_expect(atomic_compare_exchange_weak_explicit(&t->state, &cur, first,
								   memory_order_release,
								   memory_order_relaxed),
			     1))
		return first_again;
	for (;;) {
		uint32_t next = task_joins_add(cur, (int32_t)joins);
		/* Again if woken meanwhile, or if the join count is zero now
		 * and was not zero at the start (arrivals completed it during
		 * the poll) or this poll awaited a join. */
		bool joined = task_joins_zero(next) &&
			      (joins || ((cur ^ begin) >> TASK_JOIN_SHIFT) != 0);
		bool again = ((cur ^ begin) & TASK_WAKE_MASK) != 0 || joined;
		if (!again)
			next &= ~(uint32_t)TASK_SCHEDULED;
		if (atomic_compare_exchange_weak_explicit(&t->state, &cur, next,
							  memory_order_release,
							  memory_order_relaxed))
			return again;
	}
}

/*
 * A child of a TASK_JOIN poll is done. Returns true if the caller must
 * enqueue the parent: this was the last awaited arrival and the parent's
 * poll has ended. Release publishes the child's result to the parent's next
 * poll (whose begin-load reads this RMW or a later one in its release
 * sequence).
 */
static inline bool task_join_arrive(struct task *t)
{
	uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
	for (;;) {
		CHECK_MSG(!(old & TASK_COMPLETE), "join arrival on a completed task");
		uint32_t next = task_joins_add(old, -1);
		bool enqueue = task_joins_zero(next) && !(old & TASK_SCHEDULED);
		if (enqueue)
			next |= TASK_SCHEDULED;
		if (__builtin_expect(atomic_compare_exchange_weak_explicit(&t->state, &old, next,
									   memory_order_release,
									   memory_order_relaxed),
				     1))
			return enqueue;
	}
}

/* Poll returned done. Wakes that race with this store bump a counter
 * nobody reads again; wakes after it see COMPLETE and do nothing. */
static inline void task_complete(struct task *t)
{
	atomic_store_explicit(&t->state, TASK_COMPLETE, memory_order_release);
}

static inline uint32_t task_state(const struct task *t)
{
	return atomic_load_explicit(&((struct task *)t)->state, memory_order_relaxed);
}

#endif
