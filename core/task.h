/*
 * task.h - the task header and its state machine.
 *
 * A task is a poll function plus state (DESIGN.md, "The task model"). Poll
 * returns TASK_DONE or TASK_PENDING; a pending task runs again only after
 * something wakes it. Workloads embed `struct task` as the first member of
 * their own task structs.
 *
 * The state word has three bits:
 *
 *   NOTIFIED  the task is runnable: it sits in some queue, or must be put in
 *             one by whoever set the bit on an idle task
 *   RUNNING   a worker is inside poll()
 *   COMPLETE  poll() returned TASK_DONE; the task is never polled again
 *
 *   state              meaning                 wake() does
 *   0                  idle (waiting)          -> NOTIFIED, caller enqueues
 *   NOTIFIED           scheduled (queued)      nothing
 *   RUNNING            being polled            -> RUNNING|NOTIFIED
 *   RUNNING|NOTIFIED   polled, woken meanwhile nothing
 *   COMPLETE           done                    nothing
 *
 * Invariants this gives:
 *  - no task lost: a wake either finds the task idle and the waker enqueues
 *    it, or finds it queued/running, and the queue or the runner will poll it;
 *  - none run twice: poll begins only from NOTIFIED-without-RUNNING, checked
 *    with an assertion that survives NDEBUG;
 *  - a wake that arrives while the task is being polled causes exactly one
 *    more poll: RUNNING|NOTIFIED becomes NOTIFIED at the end of the poll and
 *    the runner re-schedules it, however many wakes arrived meanwhile.
 *
 * Every transition is a single atomic read-modify-write. Because RMWs always
 * read the latest value and extend release sequences, a chain of wakes and
 * polls on one task is totally ordered and each poll sees the writes that
 * preceded every wake it consumes.
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
	TASK_NOTIFIED = 1u << 0,
	TASK_RUNNING = 1u << 1,
	TASK_COMPLETE = 1u << 2,
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
	struct task *next;		/* link while in the global queue */
	uint64_t ready_ns;		/* when made runnable, if sampled; else 0 */
};

/* A new task starts scheduled: whoever creates it must hand it to a queue. */
static inline void task_init(struct task *t, const struct task_vtable *vt)
{
	atomic_init(&t->state, TASK_NOTIFIED);
	t->flags = 0;
	t->vt = vt;
	t->next = NULL;
	t->ready_ns = 0;
}

/*
 * Wake: returns true if the caller now owns the duty to enqueue the task.
 * Release: the waker's prior writes (a child's result, say) reach the poll
 * that consumes this wake, whose poll_begin exchange is an acquire at the end
 * of this RMW's release sequence.
 */
static inline bool task_wake(struct task *t)
{
	uint32_t prev = atomic_fetch_or_explicit(&t->state, TASK_NOTIFIED,
						 memory_order_release);
	return prev == 0;
}

/*
 * Poll begins: NOTIFIED -> RUNNING. Acquire pairs with the release of every
 * wake and of the previous poll's end. A task that is not exactly NOTIFIED
 * here is being run twice or was lost and resurrected: abort loudly.
 */
static inline void task_poll_begin(struct task *t)
{
	uint32_t prev = atomic_exchange_explicit(&t->state, TASK_RUNNING,
						 memory_order_acquire);
	CHECK_MSG(prev == TASK_NOTIFIED, "task polled in state %u (double run?)",
		  (unsigned)prev);
}

/*
 * Poll returned pending: clear RUNNING. Returns true if a wake arrived during
 * the poll, in which case the state is now NOTIFIED and the caller must
 * schedule the task again (exactly one more poll). Release publishes this
 * poll's writes to the next waker and the next poll.
 */
static inline bool task_poll_end_pending(struct task *t)
{
	uint32_t prev = atomic_fetch_and_explicit(&t->state, ~(uint32_t)TASK_RUNNING,
						  memory_order_release);
	return (prev & TASK_NOTIFIED) != 0;
}

/* Poll returned done. A wake racing with this store is harmless: a wake that
 * sees COMPLETE, or whose NOTIFIED bit is overwritten here, has nothing left
 * to run. */
static inline void task_complete(struct task *t)
{
	atomic_store_explicit(&t->state, TASK_COMPLETE, memory_order_release);
}

static inline uint32_t task_state(const struct task *t)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed);
}

/* A singly linked batch of tasks, linked through task->next. */
struct task_list {
	struct task *head, *tail;
	uint32_t len;
};

static inline void task_list_init(struct task_list *l)
{
	l->head = l->tail = NULL;
	l->len = 0;
}

static inline void task_list_push(struct task_list *l, struct task *t)
{
	t->next = NULL;
	if (l->tail)
		l->tail->next = t;
	else
		l->head = t;
	l->tail = t;
	l->len++;
}

#endif
