/*
 * policy.h - the scheduling-policy contract.
 *
 * A policy decides; core/ provides the mechanisms (rings, LIFO slot, global
 * queue, idle state) and the engine drives the worker step. A policy is one
 * `const struct policy` with designated initializers in its own file, plus a
 * knob table. Only .name, .schedule_local, .schedule_remote and .find_work
 * are required; the core supplies defaults for the rest (policy_* wrappers
 * below).
 *
 * Who calls what, and what it may touch:
 *
 *   check           harness thread, before any work. Reads the resolved
 *                   configuration and knobs; rejects what the policy cannot
 *                   run (one line in err, return -EINVAL). No side effects.
 *   init/destroy    harness thread, runtime not running. Allocates
 *                   rt->pstate and each w->pstate.
 *   schedule_local  the owner thread of w, from inside a task poll (spawn,
 *                   wake) or from the core after a poll (a task woken during
 *                   its own poll: SCHED_YIELD). May touch w's private state,
 *                   its own ring, the global queue and the idle state; never
 *                   another worker's private state. Must not block.
 *   schedule_remote any thread, including threads that are not workers.
 *                   Global queue and idle state only.
 *   tick_begin      owner, at the start of every tick; returns the budget
 *                   (polls allowed this tick).
 *   own_maintenance (a flag) the policy polls timers and I/O itself, at its
 *                   own points (rt_poll_timers, rt_poll_io, rt_next_event).
 *                   Otherwise the core does it the Volt way: at every tick
 *                   worker 0 polls the timers and every worker polls I/O,
 *                   and worker 0 parks no longer than the next event.
 *   find_work       owner; returns the next task to poll or NULL. May steal
 *                   (other workers' rings through ring_steal_into, or its
 *                   phases, ring_steal_*, only). Exploring on the simulation
 *                   engine it may also return FIND_WORK_BUSY (runtime.h):
 *                   one phase of a steal done, the tick goes on next step.
 *   step            owner, optional: one tick of the threads engine's worker
 *                   step with this policy's find_work inlined, always
 *                   worker_step_with(w, timeout, FIND_WORK) of
 *                   core/worker_loop.h (the core's loop, minus an indirect
 *                   call per poll). The simulator's per-poll step calls
 *                   find_work itself.
 *   tick_end        owner, after the tick's polls, with their count and the
 *                   elapsed engine time.
 *   park            owner, after a tick that polled nothing. Returns true to
 *                   park with *timeout_ns set (the engine waits), false to
 *                   run another tick. Runs the policy's sleep protocol.
 *   unparked        owner, when the engine's park returns.
 *   check_idle      the simulation engine, between two steps, when exploring
 *                   schedules (--explore): return NULL if the sleep protocol's
 *                   invariant holds, else one line saying how it is broken
 *                   (e.g. runnable work queued while a worker sleeps and
 *                   nobody searches). Every registered policy has one
 *                   (tests/test_stall.c checks that it sees a lost wakeup).
 *   idle_state      any thread, for a stall report: the sleep protocol's
 *                   counts (struct policy_idle), read through atomics only.
 *                   Optional: without it the report reads the core idle
 *                   state (rt->idle), which a policy with its own protocol
 *                   must then not leave at zero while its workers sleep.
 *   dump            any thread, for a stall report (core/runtime.h rt_dump):
 *                   write policy-specific state. Optional; may read moving
 *                   state, so it reads atomics only unless workers stopped.
 */
#ifndef HARNESS_POLICIES_POLICY_H
#define HARNESS_POLICIES_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/knob.h"
#include "core/runtime.h"

/* enum sched_kind (SCHED_SPAWN, SCHED_WAKE, SCHED_YIELD) is in core/runtime.h. */

/* The sleep protocol's state in common terms, for the stall report's
 * diagnosis (policy idle_state). */
struct policy_idle {
	uint32_t searching;	/* workers looking for work (a claimed wake counts) */
	uint32_t sleeping;	/* workers the protocol counts as asleep */
	uint64_t queued;	/* runnable tasks where the report's ring, LIFO and
				 * global counts do not look (deques, inboxes) */
};

struct policy {
	const char *name;
	const char *summary;
	/* Kept for tests (a deliberately broken variant): listed apart by
	 * --list and left out of --policy=all. */
	bool test_only;
	bool own_maintenance;	/* see above */
	/* The real runtime this policy models, whose peer program
	 * (peers/README.md) --engine=real runs in its place: "tokio", "go",
	 * "rayon", "tbb"; NULL for none. */
	const char *peer;
	/* No model, only a real runtime's name (oneTBB): run by
	 * --engine=real alone, refused by the threads and sim engines, none
	 * of the hooks below set, kept out of policy_table and --policy=all
	 * (policy_real_only). */
	bool real_only;
	/* Timers per worker (Go's per-P timer heaps): a task's timer goes
	 * to the heap of the worker that polled it (rt_sleep_on), and the
	 * policy expires each heap where it decides (rt_poll_timers_of);
	 * needs own_maintenance. Otherwise one shared heap (rt_poll_timers). */
	bool per_worker_timers;
	const struct knob_def *knobs;
	size_t nknobs;
	/* Names of enumerated knobs' values (knob.h), { NULL } ended; optional. */
	const struct knob_enum *knob_names;

	int (*check)(const struct rt_config *cfg, const double *knobs, char *err, size_t len);
	int (*init)(struct runtime *rt);
	void (*destroy)(struct runtime *rt);

	void (*schedule_local)(struct worker *w, struct task *t, enum sched_kind kind);
	void (*schedule_remote)(struct runtime *rt, struct task *t);

	uint32_t (*tick_begin)(struct worker *w);
	struct task *(*find_work)(struct worker *w);
	enum step (*step)(struct worker *w, uint64_t *park_timeout_ns);
	void (*tick_end)(struct worker *w, uint32_t polls, uint64_t elapsed_ns);
	bool (*park)(struct worker *w, uint64_t *timeout_ns);
	void (*unparked)(struct worker *w, enum park_wake how);
	void (*idle_state)(struct runtime *rt, struct policy_idle *out);
	const char *(*check_idle)(struct runtime *rt);
	void (*dump)(struct runtime *rt, FILE *f);
};

/* The registry (policies/registry.c): the models (policy_table,
 * policy_find), and apart the policies with no model (real_only: only
 * the command line's --engine=real takes them), each table NULL-ended. */
extern const struct policy *const policy_table[];
extern const struct policy *const policy_real_only[];
const struct policy *policy_find(const char *name);
const struct policy *policy_find_real_only(const char *name);
size_t policy_count(void);

/* Resolved knob value by index, for policies' init. */
static inline double policy_knob(const struct runtime *rt, size_t i)
{
	return rt->knobs[i];
}

#define POLICY_DEFAULT_BUDGET 128u
#define POLICY_DEFAULT_PARK_NS (10ull * 1000 * 1000)

static inline uint32_t policy_tick_begin(const struct policy *p, struct worker *w)
{
	return p->tick_begin ? p->tick_begin(w) : POLICY_DEFAULT_BUDGET;
}

static inline void policy_tick_end(const struct policy *p, struct worker *w, uint32_t polls,
				   uint64_t elapsed_ns)
{
	if (p->tick_end)
		p->tick_end(w, polls, elapsed_ns);
}

static inline bool policy_park(const struct policy *p, struct worker *w, uint64_t *timeout_ns)
{
	if (!p->park) {
		*timeout_ns = POLICY_DEFAULT_PARK_NS;
		return true;
	}
	return p->park(w, timeout_ns);
}

static inline void policy_unparked(const struct policy *p, struct worker *w, enum park_wake how)
{
	if (p->unparked)
		p->unparked(w, how);
}

#endif
