/*
 * runtime.h - workers, the runtime that holds them, and the API tasks use.
 *
 * Each worker has two halves on separate cache lines:
 *
 *   struct worker_shared  thief-visible: the local ring and the
 *                         transitioning-to-park flag. Other workers read and
 *                         CAS these.
 *   struct worker         owner-private: LIFO slot, tick, RNG, counters,
 *                         histograms, policy state. Only the owner thread
 *                         touches it while the runtime runs.
 *
 * Tasks talk to the runtime through rt_spawn/rt_wake/rt_finish/rt_compute;
 * the active policy decides where each task goes.
 */
#ifndef HARNESS_CORE_RUNTIME_H
#define HARNESS_CORE_RUNTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "engine.h"
#include "hist.h"
#include "idle.h"
#include "inject.h"
#include "ring.h"
#include "rng.h"
#include "stats.h"
#include "taskpool.h"
#include "timer.h"
#include "trace.h"
#include "task.h"

struct policy;
struct span_graph;

/* Go's semaphore table: semTabSize roots (runtime/sema.go), each a lock
 * and a treap of waiters, a sleeper's root chosen by its address. */
#define RT_SEMA_ROOTS 251

/* Why a task is handed to schedule_local (policies/policy.h). */
enum sched_kind {
	SCHED_SPAWN,	/* a new task */
	SCHED_WAKE,	/* an idle task woken */
	SCHED_YIELD,	/* a task woken during its own poll, to run again */
};

struct worker_shared {
	struct ring ring;
	/* Set by the owner while it runs its park sequence; a local schedule
	 * that sees it goes to the global queue with a notify instead. */
	CACHE_ALIGNED _Atomic bool transitioning_to_park;
	/* Whether w->lifo holds a task, for a policy whose other workers
	 * look at the slot (volt's last searcher: Volt's notifyIfWorkPending
	 * reads every worker's lifo_slot). Written by the owner alone, only
	 * by such a policy; read by others as a hint. */
	_Atomic bool lifo_occupied;
	/* Tasks completed on this worker, published (relaxed) at the end of
	 * every tick for the watchdog, which only compares values. */
	_Atomic uint64_t progress;
};

struct worker {
	/* What every spawn and poll touches, on the first line. */
	CACHE_ALIGNED struct runtime *rt;
	struct worker_shared *sh;
	/* The policy's schedule_local, copied at rt_create: a spawn calls it
	 * without going through rt->policy. */
	void (*sched_local)(struct worker *w, struct task *t, enum sched_kind kind);
	void *pstate;			/* the policy's per-worker state */
	struct task *lifo;		/* the LIFO slot: owner-private, never stolen */
	struct taskpool pool;		/* free task-sized blocks */
	/* Local schedules left until the next one is stamped for the
	 * scheduling-delay sample (rt_sample_due); counts down from the
	 * sample period, and from 2^32 when sampling is off. */
	uint32_t sample_left;
	uint32_t index;
	bool searching;			/* counted in idle.num_searching */
	/* The tick in progress (worker_step_poll spreads one over calls),
	 * and --trace's switch: tested at every simulated step, so on the
	 * line of the first counters rather than past the histogram. */
	bool in_tick;
	bool tracing;
	/* --explore on the sim: the engine sets split_poll before a step to
	 * make the task that step finds wait in `held` for the worker's next
	 * step, which polls it (worker_step_poll); other workers' steps fall
	 * between the take and the poll, as on threads. */
	bool split_poll;
	struct task *held;
	uint32_t tick_budget, tick_polls;
	uint64_t tick;
	/* Read-modify-writes of a policy word that every worker writes
	 * (tokio's idle state, at each notify check), counted by the
	 * policy: the sim's model charges those expected to follow another
	 * worker's (remote_rmws). The worker's own count, read by the sim
	 * engine between steps. */
	uint64_t shared_rmws;
	struct rng rng;
	/* Where the worker records its scheduling-delay samples: its own
	 * sched_delay, or (one thread running every worker, as the sim does)
	 * worker 0's, one histogram's few hot lines for all rather than a
	 * cold line of each worker's. Read with rt_sched_delay_merge. */
	struct hist *sched_hist;
	struct worker_stats st;
	struct hist sched_delay;	/* runnable -> first poll, sampled */
	uint64_t tick_t0;
	/* Declared compute (rt_compute), owner-only, for the run's lower
	 * bound (harness/driver.c): all of it so far, and the longest single
	 * declaration, of the tick in progress (tick_compute0: the sum at its
	 * start) and of the ticks that polled a task, which worker_tick_close
	 * folds in (task_compute_ns, task_compute_max_ns). A tick that
	 * polled nothing declared no task's work: what it computed was the
	 * policy's own (go's runqgrab pause), not the workload's. */
	uint64_t compute_ns, tick_compute0, tick_compute_max;
	uint64_t task_compute_ns, task_compute_max_ns;
	/* The part of this worker's ticks that polled a task after the run's
	 * end (busy_ns stops there): on the sim, steps in flight when the run
	 * ends (rt_finish, at the in-step time of the poll that ends it) are
	 * charged whole; on threads, nothing counted here declares work.
	 * Owner-only. */
	uint64_t busy_after_end_ns;
	/* --trace: the event log, and what a tick started from. */
	struct trace_buf trace;
	uint64_t trace_steals0, trace_global0, park_t0;
	/* The engine's clock when the last tick closed (worker_tick_close):
	 * the threads engine's CPU split takes its busy spans from it
	 * (struct worker_cpu). Owner-only. */
	uint64_t tick_t1;
	/*
	 * Wake latency (struct worker_cpu): the engine arms wake_armed with
	 * the time of the unpark that woke the worker from a sleep; the
	 * worker's next tick that polls a task records its start minus that
	 * time in *wake_hist (NULL: not recorded) and counts wakes_polled; a
	 * park before any such tick counts wakes_empty. Owner-only.
	 */
	bool wake_armed;
	uint64_t wake_ns;
	struct hist *wake_hist;
	uint64_t wakes_polled, wakes_empty;
};

_Static_assert(offsetof(struct worker_shared, ring) == 0, "ring first");
_Static_assert(sizeof(struct worker) % CACHE_LINE == 0, "worker padded to lines");
_Static_assert(sizeof(struct worker_shared) % CACHE_LINE == 0, "shared padded to lines");

struct rt_config {
	uint32_t workers;
	uint64_t seed;
	uint32_t sample_period;	/* sample 1 in N local schedules (power of 2); 0 = none */
	int hist_digits;	/* significant digits of every histogram */
	uint64_t watchdog_ns;	/* stop a run when no task completes this long; 0 = off */
	bool explore;		/* sim: check the policy's idle invariant after every step */
	uint32_t trace_events;	/* per worker, 0 = no trace */
	/* [workers]: the threads engine pins worker i to CPU cpus[i] when it
	 * is >= 0 (core/topo.h places them); NULL: nobody pinned. */
	const int32_t *cpus;
};

/* Noise a worker thread met during one run (threads engine; harness/noise.h
 * judges it). */
struct worker_noise {
	uint64_t switches;		/* involuntary context switches (getrusage) */
	int64_t migrations;		/* se.nr_migrations, -1 if the kernel does not say */
	uint64_t stolen_ns;		/* overruns of spin computes: time the OS took */
	uint64_t kernel_ns;		/* system time of the thread (getrusage) */
};

/*
 * The CPU one worker used over one run, and where it went (docs/results.md,
 * "cpu"), filled by the engine as the worker exits when rt->cpu is set:
 *
 *   cpu_ns     threads: the worker thread's CPU clock
 *              (CLOCK_THREAD_CPUTIME_ID) from its release at the start
 *              barrier to its exit; sim: the modelled time of every step
 *              the worker took, idle and search steps included.
 *   user_ns, sys_ns  threads: the same span's user and system time
 *              (getrusage RUSAGE_THREAD, microseconds); sim: 0.
 *   task_ns    running tasks: the compute they declared (rt_compute) in
 *              ticks that polled one, and in the sim the modelled work
 *              charge of their polls (cost work.NAME). A workload that
 *              declares none (fib, nqueens) has all its work in sched_ns.
 *   sched_ns   the rest of the ticks that polled a task: finding and
 *              handing over work (sim: the modelled time of the steps that
 *              polled, or closed a tick that did, less task_ns and
 *              their notify costs).
 *   search_ns  ticks that polled nothing, the sleep protocol's decision
 *              included.
 *   kernel_ns  parking and unparking. Sim: the park and notify costs.
 *              Threads: the thread's system time (futex calls of parking
 *              and of the global queue's lock, page faults); the rest of
 *              its CPU is shared among task_ns, sched_ns and search_ns as
 *              the wall time of their spans shares the loop's
 *              (engine_threads.c, cpu_acct_end). Never negative.
 *   The four add up to cpu_ns exactly.
 *   parked_ns  time parked (threads: wall time inside the futex park; sim:
 *              from the park to the wake in virtual time).
 */
struct worker_cpu {
	uint64_t cpu_ns, user_ns, sys_ns;
	uint64_t task_ns, sched_ns, search_ns;
	uint64_t kernel_ns;
	uint64_t parked_ns;
};

/* rt->finished */
enum { RT_RUNNING = 0, RT_FINISHED = 1, RT_ABORTED = 2 };

struct runtime {
	uint32_t nworkers;
	const struct policy *policy;
	double *knobs;			/* resolved values, in policy->knobs order */
	void *pstate;			/* the policy's shared state */
	struct engine *engine;
	struct rt_config cfg;
	uint32_t sample_mask;
	bool sample_on;

	struct inject inject;
	struct idle idle;
	struct taskpool_outside outside_pool;
	struct timers timers;
	/* [nworkers] with a policy's per_worker_timers, else NULL. */
	struct timers *wtimers;
	/* An I/O source (a workload's arrival generator, say): poll is called
	 * from workers' I/O poll step and delivers what is due by `now`,
	 * typically with rt_spawn_remote; next returns the time of the next
	 * delivery (TIMER_NONE: none pending). Set before the run starts. */
	size_t (*io_poll)(struct runtime *rt, struct worker *w, uint64_t now, void *arg);
	/* The worker that sleeps no longer than the next event and must be
	 * woken when an earlier timer appears: 0 for the default maintenance;
	 * policies with their own set it (-1: none asleep with that role). */
	_Atomic int32_t timekeeper;
	uint64_t (*io_next)(struct runtime *rt, void *arg);
	void *io_arg;
	struct worker_shared *shared;	/* [nworkers], cache aligned */
	struct worker *workers;		/* [nworkers], cache aligned */

	CACHE_ALIGNED _Atomic uint32_t finished;	/* RT_RUNNING, RT_FINISHED, RT_ABORTED */
	_Atomic uint64_t remote_spawns;		/* tasks injected from outside workers */
	uint64_t start_ns, end_ns;
	void *user;			/* the workload instance */
	FILE *dump_to;			/* where a stall report goes (stderr) */
	/* Called by the engine before any worker runs (untimed), or NULL. */
	void (*place)(struct runtime *rt, void *arg);
	void *place_arg;
	bool started;			/* workers have been started */
	/* The sim's cache and migration model (core/touch.h): set by the sim
	 * engine before the run when its costs turn it on. */
	bool touch_on;
	uint64_t touch_cold_after;	/* ns after which an untouched task is cold */
	/* ... and with cost.sema_table, Go's semaphore table: each root's last
	 * taker (worker index + 1, 0: none yet), set up by the sim engine
	 * (worker.c, sema_take). */
	bool sema_on;
	uint16_t sema_last[RT_SEMA_ROOTS];
	char violation[256];		/* sim --explore: the broken invariant, if any */
	/* The sim's span of the run's task graph (core/span.h): the graph,
	 * set by the sim engine for the run (NULL otherwise), and T_inf once
	 * the run is over (has_span false: none, as on threads). */
	struct span_graph *span;
	uint64_t span_ns;
	bool has_span;
	/* [nworkers] or NULL: what the OS did to each worker thread during
	 * the run, filled by the threads engine as each worker exits. */
	struct worker_noise *noise;
	/* [nworkers] or NULL: each worker's CPU and its split, filled by the
	 * engine at the run's end (struct worker_cpu). */
	struct worker_cpu *cpu;
};

#define HIST_HIGHEST_NS (3600ull * 1000000000ull)	/* an hour */

/*
 * Create a runtime: core structures, then policy->init. `knobs` holds one
 * value per policy knob (copied). Returns 0 or -errno with a message in err.
 */
int rt_create(struct runtime **out, const struct rt_config *cfg, const struct policy *p,
	      const double *knobs, struct engine *e, char *err, size_t errlen);
void rt_destroy(struct runtime *rt);

/* dst += the scheduling delays the workers recorded (each histogram once:
 * see struct worker's sched_hist). 0, or -EINVAL if dst's layout differs. */
int rt_sched_delay_merge(const struct runtime *rt, struct hist *dst);

static inline uint64_t rt_now(struct runtime *rt, struct worker *w)
{
	return rt->engine->ops->now(rt->engine, w);
}

/* The latest ready stamp a steal by `w` may take now (engine.h horizon):
 * UINT64_MAX where every queued task is there (the threads engine). */
static inline uint64_t rt_steal_horizon(struct runtime *rt, struct worker *w)
{
	const struct engine_ops *o = rt->engine->ops;
	return o->horizon ? o->horizon(rt->engine, w) : UINT64_MAX;
}

/*
 * The scheduling-delay sample: 1 in N local schedules stamps the task with
 * the time it became runnable, and its first poll records the delay. A
 * countdown, so that the schedules in between cost one decrement.
 */
void rt_sample_stamp(struct worker *w, struct task *t);

static inline void rt_sample_due(struct worker *w, struct task *t)
{
	if (__builtin_expect(--w->sample_left == 0, 0))
		rt_sample_stamp(w, t);
}

/* Hand a new task (task_init done) to the runtime from code running on w. */
static inline void rt_spawn(struct worker *w, struct task *t)
{
	w->st.spawns++;
	rt_sample_due(w, t);
	w->sched_local(w, t, SCHED_SPAWN);
}

/*
 * Two new tasks from code running on w: rt_spawn(w, a) then rt_spawn(w, b)
 * (a fork-join node's children), with one count and one countdown test
 * when neither is the sampled one.
 */
static inline void rt_spawn2(struct worker *w, struct task *a, struct task *b)
{
	if (__builtin_expect(w->sample_left > 2, 1)) {
		w->st.spawns += 2;
		w->sample_left -= 2;
		w->sched_local(w, a, SCHED_SPAWN);
		w->sched_local(w, b, SCHED_SPAWN);
		return;
	}
	rt_spawn(w, a);
	rt_spawn(w, b);
}

/*
 * Put a new task on worker `index` as if that worker had spawned it: only
 * from rt->place, before any worker runs (the engine's start barrier then
 * orders it before the worker's first step). The policy decides where on
 * the worker it goes.
 */
void rt_place(struct runtime *rt, uint32_t index, struct task *t);
/* Hand a new task to the runtime from outside any worker (any thread). */
void rt_spawn_remote(struct runtime *rt, struct task *t);
/* Wake a task; w is the calling worker, or NULL outside any worker. */
void rt_wake(struct runtime *rt, struct worker *w, struct task *t);
/* Hand a runnable task to the policy from outside any worker (stamped for
 * the scheduling delay when sampling is on). */
void rt_schedule_remote(struct runtime *rt, struct task *t);

/* A child of a TASK_JOIN poll is done; enqueues the parent if it was the
 * last awaited arrival. w is the calling worker, or NULL outside any. */
static inline void rt_join_arrive(struct runtime *rt, struct worker *w, struct task *parent)
{
	if (!task_join_arrive(parent))
		return;
	if (w) {
		rt_sample_due(w, parent);
		w->sched_local(w, parent, SCHED_WAKE);
	} else {
		rt_schedule_remote(rt, parent);
	}
}

/*
 * rt_join_arrive from a child's poll on w that is done once it has arrived:
 * returns TASK_DONE, for the poll to return. The parent's schedule, the
 * last arrival's, is out of line (rt_join_ready) and called last, so that
 * a poll that ends with it keeps no registers of its own across a call.
 */
enum task_poll rt_join_ready(struct worker *w, struct task *parent);

static inline enum task_poll rt_join_arrive_done(struct worker *w, struct task *parent)
{
	if (!task_join_arrive(parent))
		return TASK_DONE;
	return rt_join_ready(w, parent);
}

/*
 * Wake t at `deadline` (engine time): the task returns TASK_PENDING after
 * this call and is polled again once a timer poll finds the deadline past.
 * If the deadline is the new earliest, the timekeeper (rt->timekeeper,
 * which parks no longer than the next event) is unparked to re-arm its
 * sleep.
 */
void rt_sleep_until(struct runtime *rt, struct task *t, uint64_t deadline);
/*
 * The next timer or I/O event may now be earlier than the one the
 * timekeeper planned its sleep for (an I/O source that just started, say):
 * unpark the timekeeper, if one holds the role, so that it re-reads
 * rt_next_event. Publish the event first. Any thread.
 */
void rt_wake_timekeeper(struct runtime *rt);

/*
 * rt_sleep_until from a task w is polling: with a policy's
 * per_worker_timers the timer goes to w's own heap (Go's addtimer on the
 * current P), else to the shared heap.
 */
void rt_sleep_on(struct worker *w, struct task *t, uint64_t deadline);

/* Wake the tasks whose timers expired; returns how many. Called by the
 * worker loop as the policy decides. */
size_t rt_poll_timers(struct worker *w);
/* Per-worker timers: wake, onto w, the tasks whose timers in worker
 * `owner`'s heap expired by `now` (Go's checkTimers on a P, w's own or a
 * victim's); returns how many. */
size_t rt_poll_timers_of(struct worker *w, uint32_t owner, uint64_t now);
/* Poll the I/O source (zero timeout); returns what it delivered. */
size_t rt_poll_io(struct worker *w);
/* The earliest pending timer or I/O delivery, TIMER_NONE if none. */
uint64_t rt_next_event(struct runtime *rt);
/* The timekeeper about to park: shorten *timeout_ns to the time left
 * until rt_next_event (0 if it is due), so that it wakes for it. */
void rt_cap_to_next_event(struct worker *w, uint64_t *timeout_ns);

/* The workload is done: record the end time, stop the workers. */
void rt_finish(struct runtime *rt, struct worker *w);
/*
 * Task memory. Blocks of up to TASKPOOL_BLOCK bytes come from the calling
 * worker's pool (w == NULL: the runtime's outside pool) and live until the
 * runtime is destroyed at the latest; larger ones come from the allocator.
 * Free with the same size, from any worker.
 */
static inline void *rt_task_alloc(struct runtime *rt, struct worker *w, size_t size)
{
	if (size > TASKPOOL_BLOCK) {
		void *b = malloc(size);
		CHECK_MSG(b, "out of memory allocating a %zu-byte task", size);
		return b;
	}
	return w ? taskpool_alloc(&w->pool) : taskpool_outside_alloc(&rt->outside_pool);
}

static inline void rt_task_free(struct worker *w, void *p, size_t size)
{
	if (size > TASKPOOL_BLOCK)
		free(p);
	else
		taskpool_free(&w->pool, p);	/* only workers complete tasks */
}

/* Spend ns of compute in the running task (spin on threads, charge on sim),
 * counted towards the run's declared work. */
static inline void rt_compute(struct worker *w, uint64_t ns)
{
	w->compute_ns += ns;
	if (ns > w->tick_compute_max)
		w->tick_compute_max = ns;
	w->rt->engine->ops->compute(w->rt->engine, w, ns);
}

/* An idle worker gives up the CPU for a moment (engine.h yield). */
static inline void rt_yield(struct worker *w)
{
	struct engine *e = w->rt->engine;
	if (e->ops->yield)
		e->ops->yield(e, w);
}

/* The run is over (finished, or stopped by the watchdog): workers leave
 * their loop at the next step, and a task that waits on another may stop
 * waiting. */
static inline bool rt_finished(struct runtime *rt)
{
	return atomic_load_explicit(&rt->finished, memory_order_acquire) != RT_RUNNING;
}

/* Tasks completed so far, summed over workers (any thread; approximate
 * while the run goes on). */
uint64_t rt_progress(struct runtime *rt);

/*
 * The scheduler state a stall report shows, read through atomics only, so
 * that it can be taken while workers run (the watchdog takes it the moment
 * it sees the stall, before waking anyone to stop them).
 */
struct rt_snapshot {
	size_t global;
	/* The policy's sleep protocol (its idle_state), or the core idle
	 * state (core_idle: then the bitmap is meaningful too). */
	uint32_t searching, parked;
	uint64_t queued_elsewhere;	/* deques, inboxes: the policy's count */
	bool core_idle;
	uint64_t bitmap;
	int32_t timekeeper;		/* rt->timekeeper: -1 none */
	/* Read field by field while worker threads ran (threads engine):
	 * the idle state and the worker lines may come from different
	 * instants. The sim's one thread reads it whole. */
	bool moving;
	struct rt_worker_snapshot {
		uint64_t head;
		uint32_t tail;
		bool transitioning;
		uint64_t progress;
	} *w;			/* [nworkers] */
};

int rt_snapshot_take(struct runtime *rt, struct rt_snapshot *snap);
void rt_snapshot_free(struct rt_snapshot *snap);

/*
 * Write the stall report: the snapshot (queue lengths, parked bitmap,
 * searching and parked counts), and, once the workers have stopped
 * (`stopped`), each worker's LIFO slot and counters; then a diagnosis.
 */
void rt_dump(struct runtime *rt, FILE *f, const struct rt_snapshot *snap, bool stopped);

/* One tick of the worker loop: the engine calls this until it returns
 * STEP_EXIT, parking when it returns STEP_PARK. */
enum step { STEP_RAN, STEP_IDLE, STEP_PARK, STEP_EXIT, STEP_POLLED };
enum step worker_step(struct worker *w, uint64_t *park_timeout_ns);
/* The same tick one poll at a time, for an engine that interleaves workers
 * at poll granularity: STEP_POLLED after a poll inside the tick, STEP_IDLE
 * inside the tick after a find_work that returned FIND_WORK_BUSY, otherwise
 * what worker_step returns when the tick ends. */
enum step worker_step_poll(struct worker *w, uint64_t *park_timeout_ns);

/*
 * What find_work returns, on the simulation engine while exploring only,
 * after one step of shared-memory work that is not a poll (a phase of a
 * steal: policies/volt.c). The step counts as an idle one and the tick
 * stays open, so the worker's next step goes straight back to find_work,
 * with no maintenance, tick_end or park in between. Never a task.
 */
extern struct task find_work_busy;
#define FIND_WORK_BUSY (&find_work_busy)
/* The engine's park returned. */
void worker_unparked(struct worker *w, enum park_wake how);

/* Poll one task and handle its result (used by worker_step; exposed for
 * tests that drive a policy by hand). */
void worker_run_task(struct worker *w, struct task *t);

/*
 * Push a task into the calling worker's own ring; a full ring sheds its
 * older half plus t to the global queue in one lock acquisition (t alone
 * while a thief is copying), counting local_pushes and overflows. The
 * mechanism of volt, tokio and go (Go's runqput / runqputslow).
 */
void rt_push_local_overflow(struct worker *w, struct task *t);

static inline void rt_push_local(struct worker *w, struct task *t)
{
	w->st.local_pushes++;
	if (!ring_try_push(&w->sh->ring, t))
		rt_push_local_overflow(w, t);
}

/* rt_push_local, then ring_pop of the own ring r (w's): one pass over the
 * ring's head and tail when it has room. */
static inline struct task *rt_push_pop_local(struct worker *w, struct ring *r, struct task *t)
{
	bool pushed;
	w->st.local_pushes++;
	struct task *head = ring_push_pop(r, t, &pushed);
	if (__builtin_expect(pushed, 1))
		return head;
	rt_push_local_overflow(w, t);
	return ring_pop(r);
}

/*
 * The wake side of the bitmap idle state (idle.h), for policies that use it
 * (volt, locality, steal-one):
 *
 *   rt_idle_notify        publisher side of the Dekker pair: after making a
 *                         task visible, wake the lowest parked worker if
 *                         nobody searches (it counts as a searcher from the
 *                         claim on). w is the caller, or NULL outside workers.
 *   rt_idle_notify_local  after a push into the caller's own queue: the
 *                         pushing worker runs the task if nobody else does,
 *                         so this wake is for parallelism, not correctness;
 *                         a relaxed look skips the fence when nobody sleeps
 *                         or somebody already searches (a stale look is made
 *                         good by a later push or a searcher's chain).
 *   rt_idle_unparked      after the engine's park returns: claimed (the
 *                         claimer counted us as a searcher), or a timeout, or
 *                         a stale permit, as the unpark counters record.
 *   rt_idle_check_global  the invariant this protocol keeps, for a policy's
 *                         check_idle (--explore, between simulated steps):
 *                         NULL, or one line saying that tasks wait in the
 *                         global queue while workers sleep and none
 *                         searches (a lost wakeup), or that the parked
 *                         count differs from the parked bitmap's bits (a
 *                         timeout that raced a claim). Rings and deques are
 *                         left out: their owner runs what it pushed.
 */
void rt_idle_notify(struct runtime *rt, struct worker *w);

/*
 * The two halves policies with their own choice of sleeper share:
 *
 *   rt_idle_local_look    rt_idle_notify_local's relaxed look: true when a
 *                         wake may be wanted (somebody sleeps and nobody
 *                         searches). Relaxed: a stale answer only delays
 *                         parallelism until the next push or a searcher's
 *                         chain, never strands the caller's own task.
 *   rt_idle_unpark        after a claim (idle_claim_parked*, or a policy's
 *                         own): count the notify for w and unpark worker
 *                         id; id < 0 (nobody claimed) does nothing. With w
 *                         NULL (a remote schedule) it counts for the
 *                         worker running on the calling thread
 *                         (rt_running), if any: the thread that makes the
 *                         futex wake pays for it, also from its I/O poll
 *                         (an arrival it delivers).
 */
static inline bool rt_idle_local_look(const struct idle *s)
{
	return __builtin_expect(atomic_load_explicit(&s->num_parked, memory_order_relaxed) != 0 &&
				atomic_load_explicit(&s->num_searching, memory_order_relaxed) == 0, 0);
}

void rt_idle_unpark(struct runtime *rt, struct worker *w, int id);

/*
 * The worker running on this thread, NULL on any other thread (the
 * harness's) and in the sim between steps. The engines set it: the
 * threads engine once per worker thread, the sim around each step. Read
 * only to say whose notify a wake made without a worker at hand is
 * (rt_idle_unpark); a thread-local, so no ordering is involved.
 */
extern _Thread_local struct worker *rt_running;

static inline void rt_idle_notify_local(struct worker *w)
{
	if (rt_idle_local_look(&w->rt->idle))
		rt_idle_notify(w->rt, w);
}

void rt_idle_unparked(struct worker *w, enum park_wake how);
const char *rt_idle_check_global(struct runtime *rt);

/* n zeroed objects of `size` in whole cache lines, cache-line aligned. */
void *rt_alloc_lines(size_t n, size_t size);

/* Sum of all workers' counters. */
void rt_total_stats(const struct runtime *rt, struct worker_stats *out);

#endif
