/*
 * costs.h - the simulation engine's cost model: what each mechanism costs
 * in virtual nanoseconds. Every mechanism is charged through the per-worker
 * counter it already bumps (polls, pushes, pops, global batches, steal
 * attempts, tasks moved, parks, notifies), so a policy needs no code for
 * the simulator. Workload compute is charged what rt_compute declares.
 *
 * The defaults are round figures of the order measured on a current x86
 * core (`harness --calibrate` measures them on this machine); --set
 * cost.NAME=ns overrides one, --costs FILE loads a file of NAME = ns lines.
 *
 * wake_return and timeout_return are CPU, not time: a sleeping worker's way
 * back from the kernel (the switch in, the futex wait's return) once it is
 * woken or its park times out. The sim takes them out of the end of the
 * sleep (as much of it as there was) and counts them as the kernel's CPU,
 * so they move no clock and no makespan, only the CPU split
 * (core/engine_sim.c, sim_wake_cpu). 0 in the default table, so that runs
 * with the defaults are as they were before them; a calibration sets them.
 *
 * yield is the system call of an idle round's yield (rt_yield: Rayon's
 * thread::yield_now, sched_yield on the threads engine), charged on top of
 * the idle step each yield already costs: time on the worker's clock and
 * the kernel's CPU, as the threads engine's system time counts it
 * (core/engine_sim.c, sim_yield). 0 in the default table, likewise.
 */
#ifndef HARNESS_CORE_COSTS_H
#define HARNESS_CORE_COSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define SIM_COSTS(X)                                                                  \
	X(poll, 20, "a task poll: dispatch and state transitions")                    \
	X(spawn, 10, "creating a task and handing it to the policy")                   \
	X(local_push, 3, "a push into a worker's own queue")                           \
	X(local_pop, 6, "a pop from a worker's own queue (a CAS)")                     \
	X(lifo, 2, "taking the LIFO slot or runnext")                                  \
	X(global_lock, 40, "holding the global-queue lock for one batch or overflow")  \
	X(global_task, 4, "moving one task to or from the global queue")               \
	X(steal_attempt, 40, "one steal attempt on a victim (its queue line misses)")  \
	X(steal_task, 4, "moving one stolen task")                                     \
	X(notify, 150, "waking a parked worker, on the waker's side (a futex wake)")   \
	X(park, 400, "going to sleep (a futex wait)")                                  \
	X(wake_latency, 5000, "from an unpark to the woken worker running")            \
	X(idle_step, 100, "a tick that found nothing and did not park; also each yield of an idle round") \
	X(io_delay, 0, "from an I/O event's due time to its delivery (0: on time)")               \
	X(wake_return, 0, "CPU of a worker unparked from a sleep on its way back from the kernel (inside wake_latency)") \
	X(timeout_return, 0, "CPU of a worker whose sleep timed out on its way back from the kernel") \
	X(yield, 0, "CPU of an idle round's yield to the kernel (sched_yield), beyond its idle step")

/*
 * The cache and migration model (docs/sim.md, "The cache and migration
 * model"): a poll of a task whose data another worker touched last (it
 * spawned the task, polled it or arrived at its join), or that nobody
 * touched for `cold_after` ns, pays `cold_start`; a join arrival on a
 * parent another worker touched last pays `line_transfer`; a step that
 * takes the global queue's lock last taken by another worker pays
 * `lock_transfer` per taking that followed that worker's, during which
 * the lock is busy; a hold of the lock (a batch or an overflow) that finds
 * another worker's hold or transfer under way starts `lock_wait` after it
 * ends (the handoff to a waiter spinning on the lock's word); a migrated
 * cold start or remote join pays `contended` on top (the transfer while
 * the other worker uses the lines); a task spawned past the run's
 * high-water mark of tasks spawned and not completed pays `spawn_fresh` at
 * its first poll, on the worker that polls it (no finished task left its
 * descriptor warm: Go's newproc1 takes a g from gfget's free lists and,
 * when they are empty, allocates one with malg, runtime/proc.go; the cost
 * is the g's, its stack's and its closure's lines when it first runs); a
 * notify to a worker asleep past its CPU's polling window pays
 * `notify_deep` in place of `notify` (a virtual machine's halted CPU,
 * which the host polls for a window it adapts, up to `halt_poll`, and then
 * schedules out: the waker's interrupt then waits for the host to wake it;
 * core/haltpoll.h, docs/sim.md). Off in the default table (all 0), so
 * that runs with the defaults are what they were before the model; a
 * calibration sets them. Kept apart from SIM_COSTS so that a result names
 * them only when the model is on.
 */
#define SIM_MODEL_COSTS(X)                                                                   \
	X(cold_start, 0, "a poll of a task last touched on another worker or gone cold")     \
	X(cold_after, 1000000, "how long a task's lines stay warm where they were touched")  \
	X(line_transfer, 0, "a join arrival on a parent last touched on another worker")     \
	X(lock_transfer, 0, "taking the global queue's lock last taken by another worker")   \
	X(lock_wait, 0, "the global queue's lock handed over to a worker spinning for it")   \
	X(contended, 0, "a migrated cold start or remote join beyond the uncontended figures") \
	X(spawn_fresh, 0, "the first poll of a task spawned past the run's high-water mark of live tasks (no finished task's descriptor to reuse)") \
	X(notify_deep, 0, "waking a worker whose CPU the host scheduled out, on the waker's side, in place of notify") \
	X(halt_poll, 200000, "the host's longest polling of a halted CPU before it schedules it out (KVM's halt_poll_ns)") \
	X(halt_poll_shrink, 0, "what a halt longer than halt_poll divides the window by, 0: resets it (KVM's halt_poll_ns_shrink)")

/* Per-poll work of a workload, `work.NAME = ns` (at most this many). */
#define SIM_WORK_MAX 32
#define SIM_WORK_NAME 32

/* A cost file's `work.NAME` or `poll.NAME` line. */
struct sim_named_cost {
	char name[SIM_WORK_NAME];
	uint64_t ns;
};

struct sim_costs {
#define X(name, def, help) uint64_t name;
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	/*
	 * The work a poll of the running workload does outside the
	 * scheduler, charged per poll, or per spawn for a workload whose
	 * work comes with each child it makes (its work.NAME entry and its
	 * work_per_spawn, resolved by sim_costs_use_work; 0 if it has
	 * none). Spin-based workloads declare theirs with rt_compute
	 * instead.
	 */
	uint64_t work;
	bool work_per_spawn;
	uint32_t nwork;
	struct sim_named_cost works[SIM_WORK_MAX];
	/*
	 * `poll.NAME = ns`: what a poll under policy NAME costs beyond the
	 * mechanisms its counters show and volt's share of the rest (the
	 * work.NAME entries are measured under volt): a figure a calibration
	 * fits from each policy's 1-worker run (docs/sim.md), charged per
	 * poll like the work. It may be negative (stored two's complement):
	 * a policy whose poll does less than volt's, as rayon's does. The
	 * sim engine resolves the entry of the policy it runs
	 * (sim_costs_policy_poll); 0 if it has none.
	 */
	uint64_t policy_poll;	/* the running policy's, set by the sim engine */
	/*
	 * `causal = 0` (default 1): a task spawned or woken inside a step is
	 * runnable from the step's start, and the clock stands still within
	 * a step, as the sim was before it modelled time within a step
	 * (docs/sim.md, "Time within a step"): for ablations only. Stored
	 * inverted, so that the zeroed table is the causal one.
	 */
	bool acausal;
	/*
	 * `span = 0` (default 1): the sim records no span (trials[].span_ns
	 * null, no check against it: docs/sim.md, "The span"), which it
	 * otherwise records for every run at some cost in speed. Stored
	 * inverted, as acausal is.
	 */
	bool no_span;
	/*
	 * `io_poll = 1` (default 0): I/O reaches the runtime only through
	 * the workers' own I/O polls, as on the threads engine, instead of at
	 * its due time as a device interrupt: the timekeeper sleeps until the
	 * next event, times out and delivers it (docs/sim.md, "Idle CPU
	 * against threads at 2 workers"). What --explore always does.
	 */
	bool io_poll;
	/*
	 * `horizon = 0` (default 1): a thief of a deque sees every task its
	 * victim's steps queued, also those stamped after the thief's own
	 * time, and waits for the stamp of one it takes (engine_sim.c
	 * sim_horizon; docs/sim.md, "Time within a step"): the sim before it
	 * kept a deque as it was at the thief's time, for ablations only.
	 * Stored inverted, as acausal is.
	 */
	bool no_horizon;
	/*
	 * `task_list = 1` (default 0): the runtime keeps its live tasks on
	 * one list under one lock, taken at every spawn and completion
	 * (Tokio's OwnedTasks before its pull request 6001 sharded it;
	 * engine_sim.c, list_lock): with the model on, each taking holds a
	 * lock of its own for global_lock ns and, after another worker's,
	 * pays lock_transfer and lock_wait as the global queue's lock does.
	 * The harness's own runtime has no such list: a switch of a real
	 * runtime's cost file (scripts/runtime_costs.py;
	 * docs/runtime-costs.md).
	 */
	bool task_list;
	/*
	 * `sema_table = 1` (default 0): a join's wait and the arrival that
	 * ends it take a root of Go's semaphore table, as sync.WaitGroup's
	 * do (runtime/sema.go; core/worker.c, sema_take): with the model on,
	 * a taking after another worker's pays lock_transfer. A switch of a
	 * real runtime's cost file, as task_list.
	 */
	bool sema_table;
	uint32_t npolicy;
	struct sim_named_cost policies[SIM_WORK_MAX];
};

/*
 * What pays notify and park: the notifies that woke a sleeping worker and
 * the parks that went to sleep. A notify that finds its worker awake (not
 * parked, or woken and on its way) swaps a permit into the worker's
 * parker word and makes no system call, and the park that takes the
 * permit returns before its futex wait: the threads engine's parker
 * (engine_threads.c, te_unpark and te_park), as Tokio's (tokio/src/
 * runtime/scheduler/multi_thread/park.rs, Inner::unpark: a swap to
 * NOTIFIED that wakes nobody from EMPTY; Inner::park: a NOTIFIED state
 * taken by a compare_exchange returns at once). Both are counted and cost
 * the sim nothing beyond the step they are in.
 */
static inline uint64_t sim_costs_notifies(const struct worker_stats *st)
{
	return st->notifies - st->awake_notifies;
}

static inline uint64_t sim_costs_parks(const struct worker_stats *st)
{
	return st->parks - st->permit_parks;
}

/*
 * What a worker's counters cost at these costs, the global lock's holds
 * and the model's charges apart: every mechanism the sim charges by its
 * counter. Linear in the counters, so the cost of a step is the difference
 * of this before and after it.
 */
static inline uint64_t sim_costs_mechanisms(const struct sim_costs *c,
					    const struct worker_stats *st)
{
	return st->polls * c->poll + st->spawns * c->spawn + st->local_pushes * c->local_push +
	       st->local_pops * c->local_pop + (st->lifo_polls + st->runnext_polls) * c->lifo +
	       (st->global_tasks + st->overflow_tasks) * c->global_task +
	       st->steal_attempts * c->steal_attempt + st->tasks_stolen * c->steal_task +
	       sim_costs_notifies(st) * c->notify + sim_costs_parks(st) * c->park;
}

/* What the work is charged per: the spawns or the polls. */
static inline uint64_t sim_costs_work_units(const struct sim_costs *c,
					    const struct worker_stats *st)
{
	return c->work_per_spawn ? st->spawns : st->polls;
}

/* What pays cold_start: polls of a task another worker touched last, and
 * of one nobody touched for cold_after ns. */
static inline uint64_t sim_costs_cold_starts(const struct worker_stats *st)
{
	return st->cold_migrated + st->cold_aged;
}

/* What pays line_transfer: join arrivals on a parent another worker
 * touched last, and the shared word's writes expected to follow another
 * worker's. */
static inline uint64_t sim_costs_line_transfers(const struct worker_stats *st)
{
	return st->remote_joins + st->remote_rmws;
}

/* What pays lock_transfer: takings of the global queue's lock or the task
 * list's after another worker's, and of a semaphore root. */
static inline uint64_t sim_costs_lock_transfers(const struct worker_stats *st)
{
	return st->remote_locks + st->remote_semas;
}

/* What pays contended: the line transfers, and polls of a task another
 * worker touched last. */
static inline uint64_t sim_costs_contended(const struct worker_stats *st)
{
	return st->cold_migrated + sim_costs_line_transfers(st);
}

/* The work.NAME entry for workload `name` becomes the work, charged per
 * spawn if per_spawn, else per poll. */
void sim_costs_use_work(struct sim_costs *c, const char *name, bool per_spawn);
/* The poll.NAME entry for policy `name`, 0 if there is none; never below
 * -(poll + work), -poll if the work is per spawn, so that a poll's whole
 * charge cannot be negative. */
int64_t sim_costs_policy_poll(const struct sim_costs *c, const char *name);
/* Are any of the model's charges on (cold_start, line_transfer,
 * lock_transfer, lock_wait, contended, spawn_fresh, notify_deep, work, a
 * poll.NAME entry)? */
static inline bool sim_costs_model_on(const struct sim_costs *c)
{
	return c->cold_start || c->line_transfer || c->lock_transfer || c->lock_wait ||
	       c->contended || c->spawn_fresh || c->notify_deep || c->work || c->npolicy;
}

/* What a deep notify (deep_notifies) is charged on top of its notify,
 * which the notifier's notifies count already: notify_deep in its place. */
static inline uint64_t sim_costs_notify_deep_extra(const struct sim_costs *c)
{
	return c->notify_deep > c->notify ? c->notify_deep - c->notify : 0;
}

void sim_costs_default(struct sim_costs *c);
/* Set cost `name` (without the "cost." prefix; work.NAME for a workload's
 * work, poll.NAME for a policy's poll, whose NAME the caller checks); -1 if
 * there is no such cost or the table is full. */
int sim_costs_set(struct sim_costs *c, const char *name, uint64_t ns);
/* "a, b, c": the valid names, for error messages. */
void sim_costs_names(char *buf, size_t len);
/*
 * The largest cost accepted, 10 ms per operation (the default wake latency
 * is 5 us): a run's virtual clock is a 64-bit count of ns, and at this
 * bound it takes more than 10^12 operations to wrap it. Larger figures are
 * not costs of a scheduler mechanism but typos.
 */
#define SIM_COST_MAX_NS 10000000ull
/* The largest cost file read (a calibrated one is about 2 KB). */
#define SIM_COSTS_FILE_MAX 65536

/* A cost as typed: decimal digits only, at most SIM_COST_MAX_NS. 0 or -1. */
int sim_cost_parse(const char *text, uint64_t *out);
/* The value of cost `name` as typed: sim_cost_parse's, and for a poll.NAME
 * cost a leading '-' too (stored two's complement). 0 or -1. */
int sim_cost_parse_for(const char *name, const char *text, uint64_t *out);
/* What sim_cost_parse_for accepts for `name`, for an error message. */
const char *sim_cost_range(const char *name);
/*
 * Load NAME = ns lines ('#' starts a comment, lines of any length) over
 * the current values. Refuses, with the line number where there is one: a
 * directory, an empty file, a file over SIM_COSTS_FILE_MAX bytes (so
 * /dev/zero is read no further), a NUL byte, a file without a cost, an
 * unknown or repeated name, and a value that sim_cost_parse refuses.
 * 0, or -1 with one line in err.
 */
int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t len);

#endif
