/*
 * worker_loop.h - the tick loop of the worker step, for worker.c and for a
 * policy that instantiates it with its own find_work inlined (policy.h,
 * .step): the same loop, without an indirect call per poll.
 */
#ifndef HARNESS_CORE_WORKER_LOOP_H
#define HARNESS_CORE_WORKER_LOOP_H

#include "runtime.h"

/* Out of line in worker.c: per tick, or rare. */
__attribute__((noinline)) void worker_poll_unplain(struct worker *w, struct task *t,
						   uint32_t begin);
void worker_tick_open(struct worker *w);
enum step worker_tick_close(struct worker *w, uint64_t *park_timeout_ns);
/* The tick loop with a trace point around every poll (--trace). */
__attribute__((noinline)) enum step worker_step_traced(struct worker *w,
						       uint64_t *park_timeout_ns);

/*
 * A poll begins (task_poll_begin): the state word, read with acquire. One
 * test covers the common case (SCHEDULED, not COMPLETE, not SAMPLED); the
 * rest, out of line, aborts on a task polled twice or after completing,
 * and records the scheduling-delay sample of a stamped task (1 in N
 * schedules) and clears its flag.
 */
static inline __attribute__((always_inline)) uint32_t worker_poll_begin(struct worker *w,
									struct task *t)
{
	uint32_t begin = atomic_load_explicit(&t->state, memory_order_acquire);
	if (__builtin_expect(!task_poll_plain(begin), 0))
		worker_poll_unplain(w, t, begin);
	return begin;
}

/* A poll returned pending (r is TASK_PENDING or TASK_JOIN(k)): the task
 * goes idle, or is scheduled once more if it was woken or joined while it
 * ran. */
static inline void poll_pending(struct worker *w, struct task *t, uint32_t begin,
				enum task_poll r)
{
	bool again;
	/* Two instances of task_poll_end, each simplified for its case. */
	if (r >= TASK_JOIN_BASE + 1) {
		uint32_t joins = (uint32_t)r - TASK_JOIN_BASE;
		CHECK(joins <= TASK_JOIN_MAX);
		again = task_poll_end(t, begin, joins);
	} else {
		again = task_poll_end(t, begin, 0);	/* TASK_PENDING, TASK_JOIN(0) */
	}
	if (again) {
		/* Woken, or joined, while it ran: exactly one more poll. */
		w->st.repolls++;
		rt_sample_due(w, t);
		w->sched_local(w, t, SCHED_YIELD);
	}
}

/*
 * A task is done: mark it complete and give its memory back (the pool block
 * inline, or the workload's drop). A pool block goes back to this worker's
 * pool at once, where its first word becomes the free list's link, so the
 * COMPLETE store would be overwritten before anyone could read it: a pooled
 * task is freed without it (nobody holds a pooled task past its last poll;
 * its parent's join was its last use of anything shared).
 */
static inline void complete_task(struct worker *w, struct task *t)
{
	const struct task_vtable *vt = t->vt;
	if (vt->pooled) {
		taskpool_free(&w->pool, t);
		return;
	}
	task_complete(t);
	if (vt->drop)
		vt->drop(t, w);
}

/*
 * One poll and what its result asks for, inlined into the step loops. It
 * does not count the poll (the callers do: per tick in worker_step, per
 * poll elsewhere) nor publish progress (per tick), and it has no trace
 * points (worker_run_task has them).
 */
static inline __attribute__((always_inline)) void run_task(struct worker *w, struct task *t)
{
	uint32_t begin = worker_poll_begin(w, t);
	enum task_poll r = t->vt->poll(t, w);
	if (__builtin_expect(r == TASK_DONE, 1)) {
		w->st.completions++;
		complete_task(w, t);
		return;
	}
	poll_pending(w, t, begin, r);
}

/* Relaxed: the watchdog only compares successive values. */
static inline void publish_progress(struct worker *w)
{
	atomic_store_explicit(&w->sh->progress, w->st.completions, memory_order_relaxed);
}

/*
 * One tick of worker_step with find_work given: inlined when a policy
 * passes its own static find_work (its .step), an indirect call per poll
 * otherwise. The find_work and the budget stay in registers for the tick;
 * polls are counted once, at its end.
 */
static inline __attribute__((always_inline)) enum step
worker_step_with(struct worker *w, uint64_t *park_timeout_ns,
		 struct task *(*find_work)(struct worker *))
{
	if (rt_finished(w->rt))
		return STEP_EXIT;
	if (__builtin_expect(w->tracing, 0))
		return worker_step_traced(w, park_timeout_ns);
	worker_tick_open(w);
	uint32_t budget = w->tick_budget, polls = 0;
	while (polls < budget) {
		struct task *t = find_work(w);
		if (!t)
			break;
		run_task(w, t);
		polls++;
	}
	w->tick_polls = polls;
	w->st.polls += polls;
	return worker_tick_close(w, park_timeout_ns);
}

#endif
