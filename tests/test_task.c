/*
 * test_task.c - the task state machine: who enqueues on a wake, exactly one
 * more poll for wakes during a poll, nothing after completion, and no wake
 * lost under a concurrent waker.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "core/task.h"
#include "test.h"

static const struct task_vtable vt = { .name = "test" };

static void wake_idle_enqueues_once(void)
{
	struct task t;
	task_init(&t, &vt);
	/* New: scheduled; a wake now must not enqueue a second copy. */
	ASSERT(!task_wake(&t));
	uint32_t b = task_poll_begin(&t);
	/* That wake was before this poll began: it is consumed by it. */
	ASSERT(!task_poll_end(&t, b, 0));
	/* Idle: the first wake enqueues, the next ones do not. */
	ASSERT(task_wake(&t));
	ASSERT(!task_wake(&t));
	ASSERT(!task_wake(&t));
	b = task_poll_begin(&t);
	ASSERT(!task_poll_end(&t, b, 0));
}

/* A wake (or several) during a poll: exactly one more poll, then idle. */
static void wake_during_poll_repolls_once(void)
{
	struct task t;
	task_init(&t, &vt);
	uint32_t b = task_poll_begin(&t);
	ASSERT(!task_wake(&t));		/* running: the runner handles it */
	ASSERT(!task_wake(&t));
	ASSERT(task_poll_end(&t, b, 0));	/* one more poll */
	b = task_poll_begin(&t);		/* still SCHEDULED */
	ASSERT(!task_poll_end(&t, b, 0));	/* and no more */
	ASSERT(task_wake(&t));			/* idle again */
}

static void complete_ignores_wakes(void)
{
	struct task t;
	task_init(&t, &vt);
	(void)task_poll_begin(&t);
	ASSERT(!task_wake(&t));		/* during the final poll */
	task_complete(&t);
	ASSERT(!task_wake(&t));
	ASSERT_EQ(task_state(&t), TASK_COMPLETE);
}

/* TASK_JOIN(2): arrivals after the poll enqueue on the last one. */
static void join_after_poll(void)
{
	struct task t;
	task_init(&t, &vt);
	uint32_t b = task_poll_begin(&t);
	ASSERT(!task_poll_end(&t, b, 2));	/* waiting for two */
	ASSERT_EQ(task_joins(task_state(&t)), 2);
	ASSERT(!task_join_arrive(&t));
	ASSERT(task_join_arrive(&t));		/* the last one enqueues */
	b = task_poll_begin(&t);
	ASSERT_EQ(task_joins(b), 0);
	task_complete(&t);
}

/* Children that finish during the parent's poll: no enqueue by them, and
 * the poll end sees the join complete and asks for one more poll. */
static void join_during_poll(void)
{
	struct task t;
	task_init(&t, &vt);
	uint32_t b = task_poll_begin(&t);
	ASSERT(!task_join_arrive(&t));
	ASSERT(!task_join_arrive(&t));
	ASSERT_EQ(task_joins(task_state(&t)), -2);
	ASSERT(task_poll_end(&t, b, 2));
	ASSERT_EQ(task_joins(task_state(&t)), 0);
	/* One arrived during the poll, one after. */
	b = task_poll_begin(&t);
	ASSERT(!task_join_arrive(&t));
	ASSERT(!task_poll_end(&t, b, 2));
	ASSERT(task_join_arrive(&t));
	/* A plain wake while joins are outstanding enqueues the task too
	 * (it is idle); the join then completes during that poll. */
	b = task_poll_begin(&t);
	ASSERT(!task_poll_end(&t, b, 1));
	ASSERT(task_wake(&t));
	b = task_poll_begin(&t);
	ASSERT(!task_join_arrive(&t));
	ASSERT(task_poll_end(&t, b, 0));	/* the arrival counts as news */
}

/* The wake counter wraps inside its 13 bits without touching the joins. */
static void wake_counter_wraps(void)
{
	struct task t;
	task_init(&t, &vt);
	uint32_t b = task_poll_begin(&t);
	ASSERT(!task_poll_end(&t, b, 3));
	for (int i = 0; i < 70000; i++) {
		if (task_wake(&t)) {
			b = task_poll_begin(&t);
			ASSERT(!task_poll_end(&t, b, 0));
		}
	}
	ASSERT_EQ(task_joins(task_state(&t)), 3);
}

/*
 * A waker thread publishes values and wakes; the poller thread runs the task
 * whenever it is handed over. Every value published before the last wake
 * must be seen by some poll: a lost wake would leave `seen` behind.
 */
#define WAKES 200000u

struct race {
	struct task t;
	_Atomic uint32_t sent;
	_Atomic uint32_t handoff;	/* 1 = the task is "queued" for the poller */
	_Atomic uint32_t waker_done;
	uint32_t seen, polls;
};

static void *waker(void *arg)
{
	struct race *r = arg;
	for (uint32_t i = 1; i <= WAKES; i++) {
		atomic_store_explicit(&r->sent, i, memory_order_relaxed);
		if (task_wake(&r->t)) {
			/* We own the enqueue: hand the task over. */
			ASSERT_EQ(atomic_exchange(&r->handoff, 1), 0);
		}
		if (i % 64 == 0)
			sched_yield();
	}
	atomic_store(&r->waker_done, 1);
	return NULL;
}

static void no_lost_wake_under_race(void)
{
	struct race r;
	task_init(&r.t, &vt);
	atomic_init(&r.sent, 0);
	atomic_init(&r.handoff, 1);	/* a new task starts queued */
	atomic_init(&r.waker_done, 0);
	r.seen = 0;
	r.polls = 0;
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, waker, &r), 0);
	for (;;) {
		if (atomic_load(&r.handoff) == 0) {
			if (atomic_load(&r.waker_done) && atomic_load(&r.handoff) == 0)
				break;
			sched_yield();
			continue;
		}
		atomic_store(&r.handoff, 0);
		bool again;
		do {
			uint32_t b = task_poll_begin(&r.t);
			r.seen = atomic_load_explicit(&r.sent, memory_order_relaxed);
			r.polls++;
			again = task_poll_end(&r.t, b, 0);
		} while (again);
	}
	pthread_join(th, NULL);
	ASSERT_EQ(r.seen, WAKES);
	ASSERT(r.polls >= 2 && r.polls <= WAKES + 1);
	fprintf(stderr, "    %u polls for %u wakes\n", r.polls, WAKES);
}

int main(void)
{
	RUN(wake_idle_enqueues_once);
	RUN(wake_during_poll_repolls_once);
	RUN(complete_ignores_wakes);
	RUN(join_after_poll);
	RUN(join_during_poll);
	RUN(wake_counter_wraps);
	RUN(no_lost_wake_under_race);
	return 0;
}
