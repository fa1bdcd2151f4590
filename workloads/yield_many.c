/*
 * yield_many.c - tasks that yield many times before completing (Tokio's
 * benches/rt_multi_threaded.rs: yield_many, 200 tasks x 1,000 yields).
 *
 * The harness injects `tasks` tasks from outside, as Tokio's benchmark
 * spawns them from its own thread. A yield is written the way core/task.h
 * defines it: the task wakes itself during its poll and returns pending, so
 * the core polls it exactly once more, through the policy's yield path
 * (SCHED_YIELD: volt puts the yielded task in the LIFO slot, as Volt's
 * executeTask reschedules it through tryScheduleLocal; tokio in the
 * worker's defer list until it runs out of work or reaches a maintenance
 * tick (yield_now, context::defer); go in the global queue, as Gosched
 * does; docs/policies.md). Each task yields `yields` times and completes on its next
 * poll, so it is polled exactly yields + 1 times; it writes that count into
 * its own slot when it completes, and verify checks every slot and the
 * total of yields, so a lost, doubled or extra poll fails the run.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_TASKS, P_YIELDS, P_COUNT };

static const struct knob_def ym_params[P_COUNT] = {
	[P_TASKS] = { "tasks", 200, 1, 1e7, true, "tasks injected from outside" },
	[P_YIELDS] = { "yields", 1000, 0, 1e9, true, "yields per task before it completes" },
};

struct ym_task {
	struct task task;
	uint32_t index;
	uint32_t polls;			/* so far; the task's own, never shared */
	uint32_t last_worker;		/* worker of the previous poll (UINT32_MAX: none) */
};

_Static_assert(sizeof(struct ym_task) <= TASKPOOL_BLOCK, "a task fits one block");

/* Owner-written per-worker figures, one line each. */
struct ym_counter {
	CACHE_ALIGNED uint64_t yields;
	uint64_t polls;
	uint64_t done;			/* tasks completed here */
	uint64_t migrations;		/* polls on another worker than the task's previous */
};

struct yield_many {
	/* Read by every poll; written only before the run. */
	uint32_t tasks, yields, workers;
	uint32_t *polls;		/* [tasks]: polls of each task, written at completion */
	struct ym_counter *per;		/* [workers] */
	uint64_t seq_yields;		/* yields of the last sequential run */
	bool parallel_ran;
	/* Counted down once per task: its own line. */
	CACHE_ALIGNED _Atomic uint32_t remaining;
};

static const struct task_vtable ym_vt;

static enum task_poll ym_poll(struct task *t, struct worker *w)
{
	struct ym_task *y = (struct ym_task *)t;
	struct yield_many *m = w->rt->user;
	struct ym_counter *me = &m->per[w->index];

	me->polls++;
	me->migrations += y->last_worker != UINT32_MAX && y->last_worker != w->index;
	y->last_worker = w->index;
	if (++y->polls <= m->yields) {
		/* Yield: a wake during the poll means exactly one more poll. */
		me->yields++;
		rt_wake(w->rt, w, t);
		return TASK_PENDING;
	}
	m->polls[y->index] = y->polls;
	me->done++;
	/* Relaxed: it only elects the task that finishes the run; verify reads
	 * the counts after the engine joined the workers. */
	if (atomic_fetch_sub_explicit(&m->remaining, 1, memory_order_relaxed) == 1)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static void ym_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct ym_task));
}

static const struct task_vtable ym_vt = {
	.name = "yield-many",
	.poll = ym_poll,
	.drop = ym_drop,
};

static void *ym_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct yield_many *m = aligned_alloc(CACHE_LINE, sizeof *m);
	if (!m)
		return NULL;
	memset(m, 0, sizeof *m);
	m->tasks = (uint32_t)p[P_TASKS];
	m->yields = (uint32_t)p[P_YIELDS];
	m->workers = workers ? workers : 1;
	atomic_init(&m->remaining, m->tasks);
	m->polls = calloc(m->tasks, sizeof *m->polls);
	m->per = aligned_alloc(CACHE_LINE, m->workers * sizeof *m->per);
	if (!m->polls || !m->per) {
		free(m->polls);
		free(m->per);
		free(m);
		return NULL;
	}
	memset(m->per, 0, m->workers * sizeof *m->per);
	return m;
}

static void ym_start(void *inst, struct runtime *rt)
{
	struct yield_many *m = inst;
	m->parallel_ran = true;
	for (uint32_t i = 0; i < m->tasks; i++) {
		struct ym_task *y = rt_task_alloc(rt, NULL, sizeof *y);
		task_init(&y->task, &ym_vt);
		y->index = i;
		y->polls = 0;
		y->last_worker = UINT32_MAX;
		rt_spawn_remote(rt, &y->task);
	}
}

/* One poll as a plain call: out of line, so that the baseline makes every
 * call instead of summing the counts. Returns true while the task yields. */
static __attribute__((noinline)) bool seq_poll(struct yield_many *m, struct ym_task *y)
{
	if (++y->polls <= m->yields) {
		m->seq_yields++;
		return true;
	}
	m->polls[y->index] = y->polls;
	return false;
}

/* The baseline: every task's yields + 1 polls as plain calls, in turn. */
static void ym_run_sequential(void *inst)
{
	struct yield_many *m = inst;
	m->seq_yields = 0;
	for (uint32_t i = 0; i < m->tasks; i++) {
		struct ym_task y = { .index = i };
		while (seq_poll(m, &y))
			;
	}
}

/* The per-worker figures summed (the run's totals). */
static struct ym_counter ym_total(const struct yield_many *m)
{
	struct ym_counter t = { 0 };
	for (uint32_t i = 0; i < m->workers; i++) {
		t.yields += m->per[i].yields;
		t.polls += m->per[i].polls;
		t.done += m->per[i].done;
		t.migrations += m->per[i].migrations;
	}
	return t;
}

static uint64_t ym_yields(const struct yield_many *m)
{
	return m->parallel_ran ? ym_total(m).yields : m->seq_yields;
}

static uint64_t ym_tasks(void *inst)
{
	struct yield_many *m = inst;
	if (!m->parallel_ran) {
		/* Every task the baseline ran wrote its slot. */
		uint64_t n = 0;
		for (uint32_t i = 0; i < m->tasks; i++)
			n += m->polls[i] != 0;
		return n;
	}
	return ym_total(m).done;
}

static int ym_verify(void *inst, char *err, size_t len)
{
	struct yield_many *m = inst;
	for (uint32_t i = 0; i < m->tasks; i++)
		if (m->polls[i] != m->yields + 1) {
			snprintf(err, len, "yield-many: task %u was polled %u times, expected %u",
				 i, m->polls[i], m->yields + 1);
			return -1;
		}
	uint64_t yields = ym_yields(m), expect = (uint64_t)m->tasks * m->yields;
	if (yields != expect) {
		snprintf(err, len, "yield-many: %llu yields, expected %u x %u = %llu",
			 (unsigned long long)yields, m->tasks, m->yields,
			 (unsigned long long)expect);
		return -1;
	}
	uint64_t tasks = ym_tasks(m);
	if (tasks != m->tasks) {
		snprintf(err, len, "yield-many: %llu tasks completed, expected %u",
			 (unsigned long long)tasks, m->tasks);
		return -1;
	}
	uint64_t polls = m->parallel_ran ? ym_total(m).polls : 0;
	expect = (uint64_t)m->tasks * (m->yields + 1);
	if (m->parallel_ran && polls != expect) {
		snprintf(err, len, "yield-many: %llu polls, expected %llu",
			 (unsigned long long)polls, (unsigned long long)expect);
		return -1;
	}
	return 0;
}

static size_t ym_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct yield_many *m = inst;
	size_t k = 0;
	uint64_t yields = ym_yields(m);
	uint64_t migrations = m->parallel_ran ? ym_total(m).migrations : 0;
	if (k < max)
		out[k++] = (struct wl_metric){ "yields", (double)yields };
	if (k < max)
		out[k++] = (struct wl_metric){ "polls", (double)(yields + ym_tasks(m)) };
	/* Polls that ran on another worker than the same task's previous poll. */
	if (k < max)
		out[k++] = (struct wl_metric){ "migrations", (double)migrations };
	return k;
}

static void ym_destroy(void *inst)
{
	struct yield_many *m = inst;
	free(m->polls);
	free(m->per);
	free(m);
}

static const char *const ym_quick[] = { "tasks=20", "yields=100", NULL };

const struct workload workload_yield_many = {
	.name = "yield-many",
	.summary = "tasks injected from outside, each yielding many times before it completes; "
		   "Tokio's yield_many",
	.params = ym_params,
	.nparams = P_COUNT,
	.sample_period = 64,
	.quick_params = ym_quick,
	.create = ym_create,
	.start = ym_start,
	.run_sequential = ym_run_sequential,
	.verify = ym_verify,
	.tasks = ym_tasks,
	.metrics = ym_metrics,
	.destroy = ym_destroy,
};
