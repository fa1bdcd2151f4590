/*
 * test_task.c - the task state machine: who enqueues on a wake, exactly one
 * more poll for wakes during a poll, nothing after completion, no wake
 * lost under a concurrent waker, and a child's result seen by the parent's
 * next poll whichever of them schedules it (under TSan: the orderings).
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

/*
 * A child thread writes its result (a plain write) and arrives on a parent
 * the main thread is polling (TASK_JOIN(1)), round after round. Either the
 * arrival finds the parent idle and hands it over (its own release and
 * acquire, as a queue would), or it lands during the poll and the poll's
 * end asks for one more poll at once: then the only path from the child's
 * write to that poll's read is the state word (the arrival's release, the
 * end CAS after it, an RMW, and the next poll's begin-load). TSan reports
 * the read if that path orders nothing; the value is checked too.
 */
#define ROUNDS 20000u

struct jrace {
	struct task t;
	uint64_t result;		/* plain: published by the arrival */
	_Atomic uint32_t go, handoff, done;
};

static void *child(void *arg)
{
	struct jrace *r = arg;
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		while (atomic_load_explicit(&r->go, memory_order_acquire) != i)
			sched_yield();
		r->result = i;
		if (task_join_arrive(&r->t))
			atomic_store_explicit(&r->handoff, i, memory_order_release);
		atomic_store_explicit(&r->done, i, memory_order_release);
	}
	return NULL;
}

static void arrival_during_poll_publishes(void)
{
	static struct jrace r;
	atomic_init(&r.go, 0);
	atomic_init(&r.handoff, 0);
	atomic_init(&r.done, 0);
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, child, &r), 0);
	uint32_t during = 0;
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		/* The child is done with the last round's task (done, acquire). */
		task_init(&r.t, &vt);
		atomic_store_explicit(&r.go, i, memory_order_release);
		uint32_t b = task_poll_begin(&r.t);
		/* An odd round's poll lasts until the arrival is in, or a
		 * while (relaxed reads, which order nothing); an even one's
		 * ends at once, so that the arrival often comes after it. */
		for (uint32_t k = 0; k < (i & 1 ? 1000u : 0u) && task_joins(task_state(&r.t)) == 0; k++)
			if (k % 64 == 63)
				sched_yield();
		if (task_poll_end(&r.t, b, 1)) {
			during++;
		} else {
			while (atomic_load_explicit(&r.handoff, memory_order_acquire) != i)
				sched_yield();
		}
		b = task_poll_begin(&r.t);
		ASSERT_EQ(task_joins(b), 0);
		ASSERT_EQ(r.result, (uint64_t)i);
		task_complete(&r.t);
		while (atomic_load_explicit(&r.done, memory_order_acquire) != i)
			sched_yield();
	}
	pthread_join(th, NULL);
	fprintf(stderr, "    %u of %u arrivals during the poll\n", during, ROUNDS);
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
	RUN(arrival_during_poll_publishes);
	return 0;
}
