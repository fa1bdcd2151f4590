/*
 * task.h - the task header and its state machine.
 *
 * A task is a poll function plus state (DESIGN.md, "The task model"). Poll
 * returns TASK_DONE or TASK_PENDING; a pending task runs again only after
 * something wakes it. Workloads embed `struct task` as the first member of
 * their own task structs.
 *
 * The state word holds two flags and a wake counter:
 *
 *   SCHEDULED  the task is queued or being polled: exactly one party (a
 *              queue, or the worker polling it) owns the duty to run it
 *   COMPLETE   poll() returned TASK_DONE; it is never polled again
 *   wakes      bits 2..31 count wakes (modulo 2^30)
 *
 *   wake():        idle -> SCHEDULED, wakes+1: the caller enqueues the task
 *                  SCHEDULED -> wakes+1: nothing else (queued or running)
 *                  COMPLETE: nothing
 *   poll begins:   read the word (acquire); it must be SCHEDULED
 *   poll pending:  CAS the word read at begin -> idle. If the CAS fails, a
 *                  wake arrived during the poll: the task stays SCHEDULED
 *                  and the runner schedules it again, once, however many
 *                  wakes came.
 *   poll done:     store COMPLETE
 *
 * Invariants: no task lost (a wake either makes the waker enqueue an idle
 * task, or bumps the counter of a queued or running one, and a running
 * task's runner sees the bump at poll end); none run twice (only the single
 * idle -> SCHEDULED transition, or the runner itself, enqueues a task, so it
 * is in at most one queue or one worker at a time; polling a task that is
 * not SCHEDULED aborts, also under NDEBUG); a wake during a poll causes
 * exactly one more poll.
 *
 * Cost: poll begin is a plain load, so a poll that completes costs no
 * atomic read-modify-write at all, and a pending poll costs one CAS. Wakers
 * pay one CAS. A waker whose bump the runner's begin-load did not observe
 * still gets its writes seen: the runner's end CAS fails, acquires the
 * waker's release, and the extra poll sees them.
 */
#ifndef HARNESS_CORE_TASK_H
#define HARNESS_CORE_TASK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

struct worker;
struct task;

enum task_poll { TASK_PENDING = 0, TASK_DONE = 1 };

enum {
	TASK_SCHEDULED = 1u << 0,
	TASK_COMPLETE = 1u << 1,
	TASK_WAKE_ONE = 1u << 2,
};

struct task_vtable {
	const char *name;
	/* Called by the worker that polls; never concurrently with itself. */
	enum task_poll (*poll)(struct task *t, struct worker *w);
	/* Called once, by the worker whose poll returned TASK_DONE, after the
	 * task is marked complete. Frees the task (may be NULL). */
	void (*drop)(struct task *t, struct worker *w);
};

struct task {
	_Atomic uint32_t state;
	uint32_t flags;			/* owner-defined, unused by core */
	const struct task_vtable *vt;
	uint64_t ready_ns;		/* when made runnable, if sampled; else 0 */
};

/* A new task starts scheduled: whoever creates it must hand it to a queue. */
static inline void task_init(struct task *t, const struct task_vtable *vt)
{
	atomic_init(&t->state, TASK_SCHEDULED);
	t->flags = 0;
	t->vt = vt;
	t->ready_ns = 0;
}

/*
 * Wake: returns true if the caller now owns the duty to enqueue the task.
 * Release: the waker's prior writes (a child's result, say) reach the poll
 * that consumes this wake: through the queue if the task was idle, through
 * the runner's poll-end CAS (acquire) if it was running, through the next
 * poll's begin-load (acquire) if it was queued.
 */
static inline bool task_wake(struct task *t)
{
	uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
	for (;;) {
		if (old & TASK_COMPLETE)
			return false;
		uint32_t next = (old + TASK_WAKE_ONE) | TASK_SCHEDULED;
		if (atomic_compare_exchange_weak_explicit(&t->state, &old, next,
							  memory_order_release,
							  memory_order_relaxed))
			return !(old & TASK_SCHEDULED);
	}
}

/*
 * Poll begins. Acquire pairs with the release of every wake this poll
 * consumes. A task polled while not SCHEDULED was lost and resurrected, or
 * is being run twice: abort loudly. Returns the word for task_poll_end_pending.
 */
static inline uint32_t task_poll_begin(struct task *t)
{
	uint32_t s = atomic_load_explicit(&t->state, memory_order_acquire);
	CHECK_MSG((s & (TASK_SCHEDULED | TASK_COMPLETE)) == TASK_SCHEDULED,
		  "task polled in state %#x (run twice, or after completing?)", (unsigned)s);
	return s;
}

/*
 * Poll returned pending: go idle unless a wake arrived since `begin` was
 * read. Returns true if one did; the task then stays SCHEDULED and the
 * caller must schedule it again (exactly one more poll). Release publishes
 * this poll's writes to the next waker; acquire on failure takes in the
 * writes of the wakes that arrived during the poll.
 */
static inline bool task_poll_end_pending(struct task *t, uint32_t begin)
{
	return !atomic_compare_exchange_strong_explicit(&t->state, &begin,
							 begin & ~(uint32_t)TASK_SCHEDULED,
							 memory_order_release,
							 memory_order_acquire);
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
