/*
 * spawn_many.c - many small independent tasks, spawned from inside a worker
 * or injected from outside (Tokio's benches/rt_multi_threaded.rs:
 * spawn_many_local and spawn_many_remote_idle, 10,000 tasks).
 *
 *   from=0  one root task, injected by the harness, spawns all n tasks
 *           from inside a worker: every spawn takes the policy's local
 *           path (LIFO slot, ring, overflow to the global queue), and the
 *           other workers get their share by stealing.
 *   from=1  the harness thread injects all n tasks with rt_spawn_remote,
 *           one at a time, while the workers already run them: every
 *           spawn takes the remote path (global queue and a notify).
 *
 * Each task spends work_ns of compute (Tokio's busy variants stall 10 us),
 * marks its own slot in a per-task array and counts down a shared counter;
 * the task that brings it to zero finishes the run, as Tokio's benchmark
 * does. Verify checks that every slot was marked exactly once and that the
 * per-worker completion counts add up, so a lost or doubled task fails it.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_N, P_WORK_NS, P_FROM, P_COUNT };

enum { FROM_WORKER = 0, FROM_OUTSIDE = 1 };

static const struct knob_def sm_params[P_COUNT] = {
	[P_N] = { "n", 10000, 1, 1e8, true, "tasks to spawn" },
	[P_WORK_NS] = { "work_ns", 0, 0, 1e9, true,
			"compute per task in ns (Tokio's stall is 10000)" },
	[P_FROM] = { "from", FROM_WORKER, 0, 1, true,
		     "0 = one root task spawns all from inside a worker (spawn_many_local); "
		     "1 = the harness thread injects each (spawn_many_remote_idle)" },
};

static const struct knob_enum sm_names[] = {
	{ "from", (const struct knob_name[]){ { "worker", FROM_WORKER }, { "outside", FROM_OUTSIDE },
					       { NULL, 0 } } },
	{ NULL, NULL },
};

struct sm_leaf {
	struct task task;
	uint32_t index;
};

struct sm_root {
	struct task task;
};

_Static_assert(sizeof(struct sm_leaf) <= TASKPOOL_BLOCK, "a leaf fits one block");
_Static_assert(sizeof(struct sm_root) <= TASKPOOL_BLOCK, "a root fits one block");

/* Owner-written per-worker figures, one line each. */
struct sm_counter {
	CACHE_ALIGNED uint64_t leaves;	/* leaf tasks run on this worker */
	uint64_t roots;			/* the root task, if it ran here */
};

struct spawn_many {
	/* Read by every task; written only before the run. */
	uint32_t n, from, workers;
	uint64_t work_ns;
	uint8_t *ran;			/* [n]: times each task ran */
	struct sm_counter *per;		/* [workers] */
	uint64_t seq_tasks;		/* tasks of the last sequential run, 0 if none */
	/* With work_ns, the baseline spins through a one-worker threads
	 * engine's compute: the same clock and overrun repayment as the
	 * workers', and no clock read in workload code. */
	struct engine *seq_engine;
	struct worker *seq_worker;
	bool parallel_ran;
	/* The countdown every task hits once: its own line, away from the
	 * read-mostly fields above. */
	CACHE_ALIGNED _Atomic uint64_t remaining;
};

static const struct task_vtable sm_leaf_vt, sm_root_vt;

/* One task's work: the compute, then its mark. */
static inline void leaf_body(struct spawn_many *s, struct worker *w, uint32_t index)
{
	if (s->work_ns)
		rt_compute(w, s->work_ns);
	s->ran[index]++;
}

static enum task_poll sm_leaf_poll(struct task *t, struct worker *w)
{
	struct sm_leaf *l = (struct sm_leaf *)t;
	struct spawn_many *s = w->rt->user;

	leaf_body(s, w, l->index);
	s->per[w->index].leaves++;
	/*
	 * Relaxed: the count only elects the task that finishes the run. The
	 * marks and counters of every task reach verify through the engine's
	 * join of the worker threads, not through this counter.
	 */
	if (atomic_fetch_sub_explicit(&s->remaining, 1, memory_order_relaxed) == 1)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static const struct task_vtable sm_leaf_vt = {
	.name = "spawn-many-leaf",
	.poll = sm_leaf_poll,
	.pooled = true,		/* a TASKPOOL_BLOCK block, freed by the core */
};

static struct sm_leaf *leaf_new(struct runtime *rt, struct worker *w, uint32_t index)
{
	struct sm_leaf *l = rt_task_alloc(rt, w, sizeof *l);
	task_init(&l->task, &sm_leaf_vt);
	l->index = index;
	return l;
}

/* spawn_many_local: one poll spawns every task, as Tokio's block_on loop. */
static enum task_poll sm_root_poll(struct task *t, struct worker *w)
{
	struct spawn_many *s = w->rt->user;
	(void)t;

	s->per[w->index].roots++;
	for (uint32_t i = 0; i < s->n; i++)
		rt_spawn(w, &leaf_new(w->rt, w, i)->task);
	return TASK_DONE;
}

static const struct task_vtable sm_root_vt = {
	.name = "spawn-many-root",
	.poll = sm_root_poll,
	.pooled = true,		/* a TASKPOOL_BLOCK block, freed by the core */
};

static uint64_t expected_tasks(const struct spawn_many *s)
{
	return (uint64_t)s->n + (s->from == FROM_WORKER);
}

static void sm_destroy(void *inst)
{
	struct spawn_many *s = inst;
	if (s->seq_engine)
		s->seq_engine->ops->destroy(s->seq_engine);
	free(s->seq_worker);
	free(s->ran);
	free(s->per);
	free(s);
}

static void *sm_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct spawn_many *s = aligned_alloc(CACHE_LINE, sizeof *s);
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);
	s->n = (uint32_t)p[P_N];
	s->work_ns = (uint64_t)p[P_WORK_NS];
	s->from = (uint32_t)p[P_FROM];
	s->workers = workers ? workers : 1;
	atomic_init(&s->remaining, s->n);
	s->ran = calloc(s->n, 1);
	s->per = aligned_alloc(CACHE_LINE, s->workers * sizeof *s->per);
	if (!s->ran || !s->per)
		goto fail;
	memset(s->per, 0, s->workers * sizeof *s->per);
	if (s->work_ns) {
		s->seq_engine = engine_threads_create(1);
		s->seq_worker = aligned_alloc(CACHE_LINE, sizeof *s->seq_worker);
		if (!s->seq_engine || !s->seq_worker)
			goto fail;
		memset(s->seq_worker, 0, sizeof *s->seq_worker);	/* worker 0 of its engine */
	}
	return s;
fail:
	sm_destroy(s);
	return NULL;
}

static void sm_start(void *inst, struct runtime *rt)
{
	struct spawn_many *s = inst;
	s->parallel_ran = true;
	if (s->from == FROM_WORKER) {
		struct sm_root *r = rt_task_alloc(rt, NULL, sizeof *r);
		task_init(&r->task, &sm_root_vt);
		rt_spawn_remote(rt, &r->task);
		return;
	}
	/* spawn_many_remote_idle: each task allocated and injected in turn,
	 * the workers taking them while the rest are still coming. */
	for (uint32_t i = 0; i < s->n; i++)
		rt_spawn_remote(rt, &leaf_new(rt, NULL, i)->task);
}

/* One task's work as a plain call; out of line, so that the loop below
 * stays n calls rather than one vectorised pass over the marks. */
static __attribute__((noinline)) void seq_leaf(struct spawn_many *s, uint32_t index)
{
	if (s->work_ns)
		s->seq_engine->ops->compute(s->seq_engine, s->seq_worker, s->work_ns);
	s->ran[index]++;
}

/* The baseline: the same n units of work in a loop, no runtime. */
static void sm_run_sequential(void *inst)
{
	struct spawn_many *s = inst;
	for (uint32_t i = 0; i < s->n; i++)
		seq_leaf(s, i);
	s->seq_tasks = expected_tasks(s);
}

static uint64_t sm_leaves(const struct spawn_many *s)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < s->workers; i++)
		total += s->per[i].leaves;
	return total;
}

static uint64_t sm_tasks(void *inst)
{
	struct spawn_many *s = inst;
	if (!s->parallel_ran)
		return s->seq_tasks;
	uint64_t total = sm_leaves(s);
	for (uint32_t i = 0; i < s->workers; i++)
		total += s->per[i].roots;
	return total;
}

static int sm_verify(void *inst, char *err, size_t len)
{
	struct spawn_many *s = inst;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->ran[i] != 1) {
			snprintf(err, len, "spawn-many: task %u of %u ran %u times", i, s->n,
				 (unsigned)s->ran[i]);
			return -1;
		}
	uint64_t tasks = sm_tasks(s);
	if (tasks != expected_tasks(s)) {
		snprintf(err, len, "spawn-many: %llu tasks completed, expected %llu",
			 (unsigned long long)tasks, (unsigned long long)expected_tasks(s));
		return -1;
	}
	return 0;
}

static size_t sm_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct spawn_many *s = inst;
	size_t k = 0;
	uint64_t most = s->parallel_ran ? 0 : s->n;
	if (s->parallel_ran)
		for (uint32_t i = 0; i < s->workers; i++)
			if (s->per[i].leaves > most)
				most = s->per[i].leaves;
	if (k < max)
		out[k++] = (struct wl_metric){ "leaves", (double)(s->parallel_ran ? sm_leaves(s)
										  : s->n) };
	/* How evenly the tasks spread: 1 means one worker ran them all. */
	if (k < max)
		out[k++] = (struct wl_metric){ "busiest_share", (double)most / (double)s->n };
	return k;
}


static const char *const sm_quick[] = { "n=2000", NULL };

const struct workload workload_spawn_many = {
	.name = "spawn-many",
	.summary = "n independent tasks spawned by one root task (from=0) or injected from "
		   "outside (from=1); Tokio's spawn_many_local / spawn_many_remote_idle",
	.params = sm_params,
	.nparams = P_COUNT,
	.param_names = sm_names,
	.sample_period = 64,
	.quick_params = sm_quick,
	.create = sm_create,
	.start = sm_start,
	.run_sequential = sm_run_sequential,
	.verify = sm_verify,
	.tasks = sm_tasks,
	.metrics = sm_metrics,
	.destroy = sm_destroy,
};
