/*
 * engine_sim.c - the deterministic simulation engine.
 *
 * One OS thread runs every virtual worker of the very same worker, policy
 * and workload code, in virtual time:
 *
 *  - each worker has a virtual clock; the engine always steps the worker
 *    whose clock is earliest, one poll at a time (worker_step_poll), ties
 *    broken by a seeded PRNG drawn when the worker is queued;
 *  - after each step the worker is charged the modeled cost of what it
 *    did, read off the deltas of its counters (core/costs.h), plus the
 *    compute its tasks declared (rt_compute advances its clock at once);
 *  - the global queue's lock is a resource with a busy-until time: a worker
 *    that takes it while another holds it waits in virtual time;
 *  - parking, unparking (with a wake latency) and park timeouts are events
 *    in virtual time, and rt_now returns the stepping worker's clock, so
 *    timers and arrivals run in virtual time too.
 *
 * Given a seed, a run is a pure function of its inputs: the same command
 * gives the same step order, the same counters and the same figures. Any
 * number of workers can be simulated on one core.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "engine.h"
#include "haltpoll.h"
#include "rng.h"
#include "runtime.h"
#include "span.h"
#include "touch.h"
#include "policies/policy.h"

enum { W_RUNNABLE, W_PARKED, W_EXITED };

/* One line per worker: a step reads and writes its own only. */
struct sim_worker {
	CACHE_ALIGNED uint64_t clock;	/* virtual ns */
	uint32_t state;
	bool permit;			/* an unpark arrived while not parked */
	bool timed;			/* parked with a timeout */
	bool woken;			/* unparked; told so when next dispatched */
	/* At the last charge: the counters' cost (a linear function of them,
	 * so a step costs the difference), lock acquisitions and completions. */
	uint64_t last_cost, last_locks, last_completions;
	/* ... and spawns, for the live tasks' high-water mark (fresh_spawn),
	 * and its spawns in the step under way */
	uint64_t last_spawns, step_spawns;
	/* ... and spawns plus completions, the task list's takings
	 * (list_lock) */
	uint64_t last_listed;
	/* The latest in-step time sim_now handed out (step_now): the clock
	 * never falls below it, even where --explore shrinks a step. */
	uint64_t seen;
	/* Waited in this step for a task to exist (sim_await_ready). */
	uint64_t waited;
	/* Charged in this step for yields' system calls (sim_yield). */
	uint64_t yielded;
	/* The policy's schedule_local, which sim_sched_local wraps. */
	void (*sched_local)(struct worker *w, struct task *t, enum sched_kind kind);
};

/*
 * The next event of each worker: when it steps next (runnable), or when
 * its park times out or its wake-up lands (parked). A worker has at most
 * one; a newer one replaces it. Events are ordered by time, ties broken by
 * a seeded PRNG drawn when the event is set: the key (time << 64 | tie),
 * all ones for "no event".
 */
/*
 * A lock as a resource, for the model: when it is next free, the worker
 * that took it last (index + 1; 0: no worker yet), the takings of that
 * worker's step and its clock when that step ended (lock_remote).
 */
struct sim_lock {
	uint64_t free_at;
	uint32_t last, last_n;
	uint64_t last_end;
};

/* A worker's read-modify-writes of the policy's shared word, for the
 * model (shared_word): off the step's own lines, which a plain run keeps
 * to one per worker. */
struct sim_rmw {
	uint64_t seen;		/* struct worker's shared_rmws at the last charge */
	uint64_t mine;		/* its read-modify-writes so far */
	double at;		/* virtual ns of its last one */
	double due;		/* expected remote ones not yet charged whole */
};

/*
 * A worker's CPU in the model (struct worker_cpu): the modelled time of its
 * steps, in those that polled a task or closed a tick that did (busy) and
 * the others (search), with the notify costs of the latter (and of their
 * deep notifies); the notifies counted after its last step. Off the step's
 * own lines: only a run that asks for the figures (rt->cpu) touches it,
 * one line a step.
 */
struct sim_cpu {
	CACHE_ALIGNED uint64_t busy, search, search_notifies, notifies;
	uint64_t search_deep, deep;	/* the same for deep_notifies */
	uint64_t search_awake, awake;	/* the same for awake_notifies */
	uint64_t parked;
	uint64_t wake_kernel;		/* wake_return and timeout_return charged (sim_wake_cpu) */
	uint64_t yield_kernel;		/* cost.yield charged (sim_yield, cpu_step) */
	uint64_t park_at;		/* the clock when it last parked */
	uint64_t notify_at;		/* the unpark that woke it, at the waker's in-step time */
	uint64_t poll_window;		/* its CPU's halt polling window (core/haltpoll.h) */
};

typedef unsigned __int128 sim_key;
#define SIM_NO_EVENT (~(sim_key)0)

/*
 * --explore: one run in SPLIT_RUNS takes each task it finds, with even odds,
 * in one step and polls it in the worker's next (worker_step_poll), so that
 * other workers search, park and read the next event between a take and
 * its poll, as threads do. tokio-broken's stall at 2 workers needs that: the
 * last request's I/O timer is set by its poll after the other worker parked
 * on the driver with no event left to bound its sleep.
 */
#define SPLIT_RUNS 4

struct sim_engine {
	struct engine base;
	uint32_t n;
	struct sim_costs costs;
	struct sim_worker *w;
	/*
	 * A tournament tree over the events. Worker i's event is at time[i],
	 * with tie-break tie[i] (index leaves, and those of leaves past the
	 * last worker, hold none). A node holds the winner's id only:
	 * win[leaves + i] is i, and win[k] the worker whose event is the
	 * earlier of those of win[2k] and win[2k + 1], so win[1] has the next
	 * event. A match reads the sibling's id and its event from three
	 * small arrays that stay in L1 (1.5 KB at 64 workers), indexed by
	 * the id, and writes one word. Setting one event replays its path
	 * towards the root, and stops where the node's winner stays what it
	 * was: log2(n) comparisons at most.
	 */
	uint64_t *time, *tie;
	uint64_t *rank;			/* ev_rank of each event, for prefetch_next */
	uint32_t *win;
	uint32_t leaves;
	uint32_t live;			/* events pending */
	struct rng rng;
	uint64_t now;			/* the clock of the worker being stepped */
	struct worker *cur;		/* the worker being stepped, or NULL */
	/* The global queue's lock, and with the model and cost.task_list on
	 * the task list's (list_lock), as resources. */
	struct sim_lock glock, list;
	/* With the model on: the global-queue lock's acquisition count when
	 * last looked at (struct inject's `taken`). */
	uint32_t lock_seen;
	bool lock_model;
	/* With the model on: each worker's read-modify-writes of the
	 * policy's shared word (shared_word), and all workers' so far. */
	struct sim_rmw *rmw;
	uint64_t rmw_total;
	/* With the model on: the spawns and completions charged so far, over
	 * every worker, and the most tasks ever live at once in this run
	 * (spawned or injected, not completed), for spawn_fresh. */
	uint64_t spawned, completed, live_peak;
	/* ... and the tasks spawned past it whose first poll is to come
	 * (fresh_spawn): open addressing on their addresses, NULL empty. */
	const struct task **fresh;
	size_t fresh_cap, fresh_n;
	struct runtime *rt;
	/* The worker stepped last, whose task pool holds the free blocks
	 * (pool_pass); worker 0 before the run's first step. */
	struct worker *pool_holder;
	uint64_t steps;
	/* Polls that waited for their task's stamp (sim_await_ready). */
	uint64_t waits;
	/* --explore: a seed perturbing tie-breaks and step costs (0: none) */
	uint64_t seed;
	/* --explore: whether this run takes tasks in one step and polls them
	 * in the next (one run in SPLIT_RUNS), and its own stream for those
	 * choices, apart from `rng`, so that the runs that do not split make
	 * the very steps they made before the choice existed. */
	bool split;
	struct rng split_rng;
	/* [n]: each worker's CPU split, kept when rt->cpu asks for it on a
	 * run that does not explore (whose step costs are scaled). */
	struct sim_cpu *cpu;
	bool cpu_on;
	/* The span of each run's task graph (core/span.h); not kept while
	 * exploring, whose runs are never reported. */
	struct span_graph *span;
};

/*
 * An event's place in the order in one word, for prefetch_next's guess
 * only: the time's low 48 bits above the tie-break's top 16. It orders
 * events as their whole keys do while times are below 2^48 ns (78 hours)
 * and two equal times' tie-breaks differ in their top 16 bits; where it
 * does not, the guess may name another worker than the tree would, and the
 * prefetch fetches the wrong lines. A worker without an event ranks last,
 * with any whose clock is past 2^48 ns.
 */
static inline uint64_t ev_rank(uint64_t hi, uint64_t lo)
{
	return hi >> 48 ? UINT64_MAX : hi << 16 | lo >> 48;
}

static inline sim_key ev_key(const struct sim_engine *s, uint32_t id)
{
	return (sim_key)s->time[id] << 64 | s->tie[id];
}

/* Worker id's event is now `key`: replay its matches up the tree. Above a
 * node that neither was nor becomes this worker's, nothing changes. */
static void ev_update(struct sim_engine *s, uint32_t id, sim_key key)
{
	uint32_t *node = s->win;
	uint32_t k = s->leaves + id, win = id;
	s->time[id] = (uint64_t)(key >> 64);
	s->tie[id] = (uint64_t)key;
	s->rank[id] = ev_rank((uint64_t)(key >> 64), (uint64_t)key);
	for (; k > 1; k >>= 1) {
		uint32_t sid = node[k ^ 1];
		sim_key skey = ev_key(s, sid);
		if (skey < key) {
			if (node[k >> 1] != id)
				return;	/* the sibling won before and wins again */
			key = skey;
			win = sid;
		}
		node[k >> 1] = win;
	}
}

/*
 * Worker id's event is now (hi, lo), replaying every match on its path to
 * the root without a branch: the same tree as ev_update (which stops only
 * where the node's winner stays the sibling's, and so leaves what this
 * rewrites as it was), for the worker just stepped, whose path is all its
 * own and which ev_update would replay to the root anyway. A branch per
 * match on which of two clocks is earlier is one that the processor
 * mispredicts about half the time; here a match is a compare and
 * conditional moves.
 */
static inline __attribute__((always_inline)) void ev_replay(struct sim_engine *s, uint32_t id,
							    uint64_t hi, uint64_t lo)
{
	const uint64_t *time = s->time, *tie = s->tie;
	uint32_t *node = s->win;
	uint64_t win = id;
	s->time[id] = hi;
	s->tie[id] = lo;
	s->rank[id] = ev_rank(hi, lo);
	for (uint32_t k = s->leaves + id; k > 1; k >>= 1) {
		uint64_t sid = node[k ^ 1], shi = time[sid], slo = tie[sid];
#if defined(__x86_64__)
		/* The borrow of sibling - event (128 bits) is "the sibling's
		 * event is earlier"; three conditional moves take its event and
		 * id. (The compiler makes a branch of a select of the id.) */
		uint64_t scratch;
		__asm__("cmp %[lo], %[slo]\n\t"
			"mov %[shi], %[scratch]\n\t"
			"sbb %[hi], %[scratch]\n\t"
			"cmovb %[slo], %[lo]\n\t"
			"cmovb %[shi], %[hi]\n\t"
			"cmovb %[sid], %[win]"
			: [lo] "+&r"(lo), [hi] "+&r"(hi), [win] "+&r"(win), [scratch] "=&r"(scratch)
			: [slo] "r"(slo), [shi] "r"(shi), [sid] "r"(sid)
			: "cc");
#else
		/* All ones if the sibling's event is earlier, selecting by
		 * mask; the empty asm hides where the mask comes from, so that
		 * the compiler cannot turn a select back into a branch. */
		uint64_t m = -(uint64_t)(((sim_key)shi << 64 | slo) < ((sim_key)hi << 64 | lo));
		__asm__("" : "+r"(m));
		hi ^= (hi ^ shi) & m;
		lo ^= (lo ^ slo) & m;
		win ^= (win ^ sid) & m;
#endif
		node[k >> 1] = (uint32_t)win;
	}
}

/* Worker id's next event is at `time` (replacing any it had). */
static void ev_set(struct sim_engine *s, uint32_t id, uint64_t time)
{
	uint64_t tie = rng_next(&s->rng) | ((uint64_t)rng_next(&s->rng) << 32);
	s->live += ev_key(s, id) == SIM_NO_EVENT;
	ev_update(s, id, (sim_key)time << 64 | tie);
}

/* ev_set for the worker just stepped (see ev_replay). Its event stayed
 * set while it stepped (only the loop clears a worker's own event), so the
 * count of pending events stays what it was. */
static inline __attribute__((always_inline)) void ev_set_stepped(struct sim_engine *s, uint32_t id,
								 uint64_t time)
{
	uint64_t tie = rng_next(&s->rng) | ((uint64_t)rng_next(&s->rng) << 32);
	DCHECK(ev_key(s, id) != SIM_NO_EVENT);
	ev_replay(s, id, time, tie);
}

/* Worker id has no next event (exited, or parked with no timeout). */
static void ev_clear(struct sim_engine *s, uint32_t id)
{
	if (ev_key(s, id) == SIM_NO_EVENT)
		return;
	s->live--;
	ev_update(s, id, SIM_NO_EVENT);
}

/* The time of worker id's event. */
static inline uint64_t ev_time(const struct sim_engine *s, uint32_t id)
{
	return s->time[id];
}

/*
 * The cache and migration model, the workloads' work and the policy's own
 * per-poll cost (core/touch.h, docs/sim.md): the cost of a worker's model
 * counters and polls, linear like the mechanisms' (0 with the model off:
 * every term is then 0).
 */
static inline uint64_t model_cost(const struct sim_costs *c, const struct worker_stats *st)
{
	return sim_costs_cold_starts(st) * c->cold_start +
	       sim_costs_line_transfers(st) * c->line_transfer +
	       sim_costs_work_units(c, st) * c->work + st->polls * c->policy_poll +
	       sim_costs_contended(st) * c->contended + st->fresh_spawns * c->spawn_fresh +
	       st->deep_notifies * sim_costs_notify_deep_extra(c) +
	       st->remote_semas * c->lock_transfer;
}

/* The fresh set's slot for t: where it is, or the empty one where it
 * would go (linear probing; the set is at most half full). */
static size_t fresh_slot(const struct sim_engine *s, const struct task *t)
{
	size_t mask = s->fresh_cap - 1;
	size_t i = (size_t)(((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ull >> 20) & mask;
	while (s->fresh[i] && s->fresh[i] != t)
		i = (i + 1) & mask;
	return i;
}

static void fresh_add(struct sim_engine *s, const struct task *t)
{
	if (2 * (s->fresh_n + 1) > s->fresh_cap) {
		const struct task **old = s->fresh;
		size_t cap = s->fresh_cap;
		s->fresh_cap = cap ? 2 * cap : 1024;
		s->fresh = calloc(s->fresh_cap, sizeof *s->fresh);
		CHECK_MSG(s->fresh, "out of memory for %zu fresh tasks", s->fresh_n);
		for (size_t k = 0; k < cap; k++)
			if (old[k])
				s->fresh[fresh_slot(s, old[k])] = old[k];
		free(old);
	}
	s->fresh[fresh_slot(s, t)] = t;
	s->fresh_n++;
}

/* Was t spawned fresh and not polled since? Then no longer. */
static bool fresh_take(struct sim_engine *s, const struct task *t)
{
	size_t mask = s->fresh_cap - 1, i = fresh_slot(s, t);
	if (!s->fresh[i])
		return false;
	s->fresh[i] = NULL;
	s->fresh_n--;
	/* Backward shift: move up each later entry of the run whose home
	 * slot is not in (i, j], so that no probe stops at the hole. */
	for (size_t j = (i + 1) & mask; s->fresh[j]; j = (j + 1) & mask) {
		size_t h = fresh_slot(s, s->fresh[j]);
		if (h == j)
			continue;	/* found where it is: at home or past a full run */
		s->fresh[i] = s->fresh[j];
		s->fresh[j] = NULL;
		i = j;
	}
	return true;
}

/*
 * A spawn past the run's high-water mark of live tasks: one that found no
 * finished task's descriptor to reuse. Go's newproc1 (runtime/proc.go,
 * go1.19) takes a g from gfget, the P's free list or a batch from the
 * global one (gfput puts each exiting g there), and only when both are
 * empty allocates one (malg: a new g and stack); a run that keeps k tasks
 * alive at most has made k of them. On Go 1.19 a g reused long after it
 * exited costs about as much as a new one, and Go's 2-worker spawn-many
 * runs in 0.6 of its 1-worker time, so the cost is not the spawner's: it
 * is touching a g, its stack and its closure that no recently finished
 * task left warm, when the task first runs (docs/runtime-costs.md). So the
 * task is marked here and its first poll pays spawn_fresh (sim_await_ready;
 * counted in fresh_spawns on the poller).
 * The live count is the charged steps' (spawned or injected, not
 * completed) plus this step's spawns so far; a step's completions come
 * after its spawns (a task spawns, then returns) and count at its charge
 * (fresh_charged). A task injected from outside the workers counts as
 * live from its injection (rt->remote_spawns) and is never fresh: no
 * worker made it.
 */
static inline void fresh_spawn(struct sim_engine *s, struct worker *w, const struct task *t)
{
	/* Relaxed: the sim steps every worker and injects on this one
	 * thread, so the count is this thread's own writes; no other
	 * memory is read through it. */
	uint64_t injected = atomic_load_explicit(&s->rt->remote_spawns, memory_order_relaxed);
	uint64_t live = injected + s->spawned - s->completed;
	uint64_t level = live + ++s->w[w->index].step_spawns;
	/* Tasks injected since the mark may have raised the count past it
	 * without a worker's spawn. */
	if (level > (live > s->live_peak ? live : s->live_peak)) {
		s->live_peak = level;
		fresh_add(s, t);
	}
}

/* The step's spawns and completions, into the live count (fresh_spawn). */
static inline void fresh_charged(struct sim_engine *s, struct sim_worker *sw,
				 const struct worker_stats *now)
{
	s->spawned += now->spawns - sw->last_spawns;
	s->completed += now->completions - sw->last_completions;
	sw->last_spawns = now->spawns;
	sw->step_spawns = 0;
}

/*
 * The time inside a worker's step. A step runs a whole poll at once, and is
 * charged at its end by the counters it moved (charge); in between, the
 * worker's time is its clock (the step's start plus any compute its tasks
 * declared) plus what the counters moved so far would cost: the step's
 * clock moves with its charges, so that a spawn, a wake or a notify in the
 * middle of a long poll happens in the middle of it, and rt_now read
 * between two steals differs by the first one's cost. The lock's waits and
 * hold, and the shared word's remote writes, are known only at the charge:
 * in-step times leave them out. in_step_time is that time; step_now also
 * records it as handed out (and holds it under causal = 0).
 */
static inline uint64_t in_step_time(const struct sim_engine *s, const struct worker *w)
{
	const struct sim_worker *sw = &s->w[w->index];
	const struct sim_costs *c = &s->costs;
	uint64_t total = sim_costs_mechanisms(c, &w->st) + (s->lock_model ? model_cost(c, &w->st) : 0);
	/* Modulo 2^64 as in charge; each counter's own increment costs
	 * at least 0, so the pending part is never negative. */
	return sw->clock + (total - sw->last_cost);
}

static inline uint64_t step_now(struct sim_engine *s, struct worker *w)
{
	struct sim_worker *sw = &s->w[w->index];
	uint64_t t = in_step_time(s, w);
	if (__builtin_expect(s->costs.acausal, 0))
		t = sw->clock;	/* causal = 0: the clock stands still in a step */
	if (t > sw->seen)
		sw->seen = t;
	return t;
}

static uint64_t sim_now(struct engine *e, struct worker *w)
{
	struct sim_engine *s = (struct sim_engine *)e;
	if (!w)
		w = s->cur;	/* outside any worker, within a step: the step's time */
	return w ? step_now(s, w) : s->now;
}

static void sim_compute(struct engine *e, struct worker *w, uint64_t ns)
{
	struct sim_engine *s = (struct sim_engine *)e;
	s->w[w->index].clock += ns;
	s->now = s->w[w->index].clock;
}

/*
 * An idle round's yield: one more idle step on the worker's clock, and the
 * yield's system call (cost.yield, 0 by default): the threads engine calls
 * sched_yield (te_yield), whose time its CPU split counts as the kernel's
 * (system time), so cpu_step moves it from the step's kind to the kernel.
 */
static void sim_yield(struct engine *e, struct worker *w)
{
	struct sim_engine *s = (struct sim_engine *)e;
	sim_compute(e, w, s->costs.idle_step + s->costs.yield);
	if (s->cpu_on)
		s->w[w->index].yielded += s->costs.yield;
}

/* The model's deep notify (core/costs.h): a notify by w, at its time
 * `from`, to a worker asleep since `since` with its CPU's polling window
 * `window` (core/haltpoll.h; a worker's sleep is its CPU's halt: one
 * worker per virtual CPU, nothing else to run there): past the window the
 * host has scheduled the CPU out, and the waker pays notify_deep. A worker
 * whose step ran past the notifier's time parked after it: it has not
 * slept. */
static inline void deep_notify(struct worker *w, uint64_t from, uint64_t since, uint64_t window)
{
	if (from > since && from - since > window)
		w->st.deep_notifies++;
}

/* Make a parked worker runnable at the waker's time plus the wake latency
 * (the waker's time within its step, when a worker's step wakes it).
 * Returns whether it woke a sleeping worker: a permit for a worker awake,
 * or an unpark of one already woken, wakes nobody, as te_unpark's swap
 * that finds no sleeper (rt_idle_unpark counts it in awake_notifies, which
 * cost no notify). They return before step_now, so no in-step time handed
 * out holds the notify that the counter then takes back. */
static bool sim_unpark(struct engine *e, uint32_t id)
{
	struct sim_engine *s = (struct sim_engine *)e;
	struct sim_worker *sw = &s->w[id];
	if (sw->state != W_PARKED) {
		if (sw->state == W_RUNNABLE)
			sw->permit = true;
		return false;
	}
	if (sw->woken)
		return false;	/* already on its way */
	uint64_t from = s->cur ? step_now(s, s->cur) : s->now, at = from + s->costs.wake_latency;
	/* The notifier: the stepping worker, or one on its wake path
	 * (rt_running is s->cur in a step). */
	if (s->costs.notify_deep && rt_running)
		deep_notify(rt_running, from, s->cpu[id].park_at, s->cpu[id].poll_window);
	sw->clock = at > sw->clock ? at : sw->clock;
	sw->woken = true;
	s->cpu[id].notify_at = from;
	ev_set(s, id, sw->clock);
	return true;
}

/* Take lock `lk` (the global queue's, or the task list's) `n` times at the
 * worker's clock: wait while another holds it, then hold it for the
 * modeled time (global_lock a taking: both are a mutex around a few
 * pointer writes). `xfer` (the model's lock_transfer, or 0) comes first:
 * the lock's lines on their way from the worker that held it last, during
 * which nobody else has it either. With the model on (`model`), a hold
 * that finds another worker's hold or transfer under way starts
 * `lock_wait` after it ends: the release reaching this worker spinning on
 * the lock's word, and its CAS, during which nobody holds it (docs/sim.md).
 * Only the first hold of a step can find it held: the others follow the
 * step's own. */
static uint64_t lock_cost(struct sim_engine *s, struct sim_lock *lk, uint32_t id,
			  uint64_t clock, uint64_t n, uint64_t xfer, bool model)
{
	uint64_t t = clock;
	if (model && n && lk->free_at > clock) {
		s->rt->workers[id].st.lock_waits++;
		t = lk->free_at + s->costs.lock_wait;
		lk->free_at = t;
	}
	if (xfer) {
		t = (t > lk->free_at ? t : lk->free_at) + xfer;
		lk->free_at = t;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t start = t > lk->free_at ? t : lk->free_at;
		t = start + s->costs.global_lock;
		lk->free_at = t;
	}
	return t - clock;
}

/*
 * Every task a worker hands to its policy (a spawn, a join's or a wake's
 * re-schedule, a re-poll) becomes runnable at that point of the worker's
 * step: stamped so (ready_ns, which a scheduling-delay sample stamps the
 * same), and with the cache model on, touched there.
 */
static void sim_sched_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	struct sim_engine *s = (struct sim_engine *)w->rt->engine;
	/* The span's note (span.h) here, in the one wrapper, rather than in a
	 * second one around this (an indirect call more per task). */
	if (w->rt->span)
		span_note(w->rt->span, w, t, kind);
	if (kind == SCHED_SPAWN && s->lock_model)
		fresh_spawn(s, w, t);
	uint64_t now = step_now(s, w);
	t->ready_ns = now;
	if (w->rt->touch_on)
		t->touch = touch_word(w->index, now);
	s->w[w->index].sched_local(w, t, kind);
}

/*
 * A worker is about to poll t. The policy's queues hold every task made
 * runnable in any step so far, and steps run whole: a worker whose clock
 * is behind the step that made t runnable (a thief, stepped at its own
 * earlier time) can find t before that step's virtual time reached it.
 * The poll then waits until t exists: the worker's clock moves to t's
 * stamp, and the wait is idle time, not the tick's (worker_step_poll).
 * What this leaves out: the thief took t from where it would not have
 * been yet, instead of searching on meanwhile (docs/sim.md).
 */
static uint64_t await_stamp(struct sim_engine *s, struct worker *w, const struct task *t)
{
	struct sim_worker *sw = &s->w[w->index];
	if (t->ready_ns <= sw->clock || s->costs.acausal)
		return 0;	/* the in-step time is at least the clock */
	uint64_t now = step_now(s, w);
	if (t->ready_ns <= now)
		return 0;
	uint64_t wait = t->ready_ns - now;
	s->waits++;
	sw->clock += wait;
	sw->waited += wait;	/* a search's time, not the poll's (cpu_step) */
	s->now = sw->clock;
	return wait;
}

/* The wait above, then the poll's own start: the first poll of a task
 * spawned fresh pays spawn_fresh (fresh_spawn), part of the poll's time. */
static uint64_t sim_await_ready(struct engine *e, struct worker *w, const struct task *t)
{
	struct sim_engine *s = (struct sim_engine *)e;
	uint64_t wait = await_stamp(s, w, t);
	if (s->fresh_n && fresh_take(s, t))
		w->st.fresh_spawns++;
	return wait;
}

/*
 * The latest stamp a thief stepping now may steal: its in-step time
 * (in_step_time; step_now's, not recorded as handed out). A task stamped later
 * was made by a step that had not reached it yet in virtual time: a real
 * thief would find its queue as it was before, and search on where
 * sim_await_ready would have it wait (the steals that look through this,
 * deque_steal_before: docs/sim.md, "Time within a step"). Under causal = 0
 * or horizon = 0 every queued task is there, as before.
 */
static uint64_t sim_horizon(struct engine *e, struct worker *w)
{
	struct sim_engine *s = (struct sim_engine *)e;
	if (s->costs.acausal || s->costs.no_horizon)
		return UINT64_MAX;
	return in_step_time(s, w);
}

/*
 * The model's lock transfer (docs/sim.md): worker id's step, from `start`
 * to `end`, took lock `lk` n times; did another worker take it last? Then
 * some of its takings followed another worker's: one, the first, if that
 * worker's step had ended before this one began; if the two steps overlap
 * in virtual time, which on a machine means that their takings
 * interleave, every taking of this step that can follow one of the
 * other's (at most one more than the other step had). Each counts in
 * remote_locks and pays lock_transfer, returned.
 */
static uint64_t lock_remote(struct sim_engine *s, struct sim_lock *lk, uint32_t id, uint64_t n,
			    uint64_t start, uint64_t end)
{
	if (n == 0)
		return 0;
	uint64_t remote = 0;
	if (lk->last != 0 && lk->last != id + 1)
		remote = lk->last_end <= start ? 1 : n < (uint64_t)lk->last_n + 1 ? n : lk->last_n + 1;
	lk->last = id + 1;
	lk->last_n = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	lk->last_end = end;
	s->rt->workers[id].st.remote_locks += remote;
	return remote * s->costs.lock_transfer;
}

/* The global queue's lock, taken by any path (a batch, an overflow, a
 * push, a policy's own use of it as sched.lock): its takings since the
 * last look (struct inject's `taken`). Takings outside any step (the
 * harness's injection) fall into the next step's count. */
static uint64_t lock_transfer(struct sim_engine *s, uint32_t id, uint64_t start, uint64_t end)
{
	uint32_t taken = s->rt->inject.taken, n = taken - s->lock_seen;
	s->lock_seen = taken;
	return lock_remote(s, &s->glock, id, n, start, end);
}

/*
 * cost.task_list = 1: the runtime keeps every live task on one list under
 * one mutex, taken at each spawn to link the task in and at each
 * completion to unlink it, as Tokio did until its pull request 6001 (2023)
 * sharded the list: tokio/src/runtime/task/list.rs, OwnedTasks::bind (from
 * spawn, through the scheduler's bind_new_task) and OwnedTasks::remove
 * (from the worker's release when a task completes). A taking after the
 * other worker's moves the lock's line, the list head and, to unlink, the
 * neighbours' pointers: on two workers spawning and completing tasks at
 * once nearly every taking does, and the lock, held through the transfer,
 * serialises them. The harness's own runtime keeps no such list (each
 * worker frees to its own task pool), so the threads engine has none: a
 * switch of the cost file for a real runtime's fit
 * (scripts/runtime_costs.py), not a policy's mechanism. The takings are
 * the step's spawns and completions by workers; spawns from outside the
 * runtime take none in the sim.
 */
static uint64_t list_lock(struct sim_engine *s, struct sim_worker *sw, uint32_t id,
			  const struct worker_stats *now, uint64_t start)
{
	uint64_t listed = now->spawns + now->completions, n = listed - sw->last_listed;
	sw->last_listed = listed;
	if (n == 0)
		return 0;
	uint64_t xfer = lock_remote(s, &s->list, id, n, start, sw->clock);
	return lock_cost(s, &s->list, id, start, n, xfer, true);
}

/*
 * The model's shared word (docs/sim.md): a read-modify-write of a word
 * every worker writes, such as tokio's idle state at each notify check,
 * finds the word's line on another core if another worker wrote it since
 * this worker's previous one, and pays line_transfer and contended, as a
 * remote join's read-modify-write of its parent does. The sim does not
 * know where in its step a worker's n writes fall, nor where the others'
 * fall in theirs: it spreads them evenly over the step (`dur` ns from
 * `start`: its tasks' compute and its charge) and takes the other
 * workers' as a Poisson stream at their rate so far, so that a write `gap`
 * ns after the worker's previous one follows another's with probability
 * 1 - exp(-rate * gap). Close writes (a burst of spawns) then mostly find
 * the line still here, and writes spread over a long step, or far apart,
 * mostly do not. The expected count gathers in `due`; returns the whole
 * remote writes it holds, which the step pays. (expm1 is the C library's:
 * a run is the same on one machine and library, as the doc says.)
 */
static uint64_t shared_word(struct sim_engine *s, uint32_t id, uint64_t start, uint64_t dur,
			    uint64_t n)
{
	struct sim_rmw *r = &s->rmw[id];
	double spacing = (double)dur / (double)n;
	double rate = start ? (double)(s->rmw_total - r->mine) / (double)start : 0;
	double first = (double)start + spacing / 2 - r->at;
	r->due += -expm1(-rate * first) - (double)(n - 1) * expm1(-rate * spacing);
	uint64_t remote = (uint64_t)r->due;
	r->due -= (double)remote;
	r->mine += n;
	r->at = (double)start + (double)dur - spacing / 2;
	s->rmw_total += n;
	return remote;
}

/*
 * Charge what the worker did since the last charge, from its counters. The
 * global lock is modeled at `start`, the clock when the step began: a step
 * takes it to find (or shed) work before the task it runs computes, so
 * placing the hold after the compute would block every other worker for
 * the length of a task.
 */
static inline __attribute__((always_inline)) bool charge(struct sim_engine *s, uint32_t id,
							  uint64_t start, bool explore, bool model)
{
	struct worker *w = &s->rt->workers[id];
	const struct worker_stats *now = &w->st;
	const struct sim_costs *c = &s->costs;
	struct sim_worker *sw = &s->w[id];
	/* The cost is linear in the counters, so the step's cost is the
	 * difference of the costs of its counters after and before (modulo
	 * 2^64, exactly the sum of each delta times its cost). With the
	 * model off (`model` false) its every term is 0, and no lock
	 * transfer is charged. */
	uint64_t total = sim_costs_mechanisms(c, now) + (model ? model_cost(c, now) : 0);
	/* A model term that sim_costs_model_on does not know of would be
	 * dropped here. */
	DCHECK(model || model_cost(c, now) == 0);
	uint64_t cost = total - sw->last_cost;
	if (model && w->shared_rmws != s->rmw[id].seen) {
		/* The step's span: its tasks' compute, then its charge. */
		uint64_t span = sw->clock - start + cost;
		uint64_t remote = shared_word(s, id, start, span, w->shared_rmws - s->rmw[id].seen);
		s->rmw[id].seen = w->shared_rmws;
		w->st.remote_rmws += remote;
		total += remote * (c->line_transfer + c->contended);
		cost += remote * (c->line_transfer + c->contended);
	}
	if (model)
		fresh_charged(s, sw, now);
	/* Every lock acquisition a policy counts: its global batches and its
	 * overflows' (one per overflow, or one per task as Volt's push
	 * takes them). */
	uint64_t locks = now->global_batches + now->overflow_locks - sw->last_locks;
	bool progressed = now->completions != sw->last_completions;
	sw->last_cost = total;
	sw->last_locks += locks;
	sw->last_completions = now->completions;
	if (explore) {
		/* Exploring: stretch or shrink each step by a seeded factor in
		 * [0.5, 1.5) so that other seeds reach other interleavings, not
		 * only other tie-breaks. */
		cost = cost / 2 + (uint64_t)(((unsigned __int128)cost * rng_next(&s->rng)) >> 32);
	}
	sw->clock += cost;
	/* Exploring may shrink the step below the in-step times it handed
	 * out (step_now): time never runs backwards. */
	if (sw->clock < sw->seen)
		sw->clock = sw->seen;
	bool lock_model = model && s->lock_model;
	uint64_t xfer = lock_model ? lock_transfer(s, id, start, sw->clock) : 0;
	if (locks || xfer)
		sw->clock += lock_cost(s, &s->glock, id, start, locks, xfer, lock_model);
	if (lock_model && s->costs.task_list)
		sw->clock += list_lock(s, sw, id, now, start);
	return progressed;
}

/* Does everybody sleep for good (no runnable worker, no timeout, no wake
 * on its way)? */
static bool deadlocked(struct sim_engine *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const struct sim_worker *sw = &s->w[i];
		if (sw->state == W_RUNNABLE ||
		    (sw->state == W_PARKED && (sw->timed || sw->woken)))
			return false;
	}
	return true;
}

/* Is every worker parked (with a timeout or not)? */
static bool all_parked(const struct sim_engine *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->w[i].state != W_PARKED)
			return false;
	return true;
}

static int stall(struct sim_engine *s, struct runtime *rt)
{
	struct rt_snapshot snap;
	if (rt_snapshot_take(rt, &snap) == 0) {
		rt_dump(rt, rt->dump_to ? rt->dump_to : stderr, &snap, true);
		rt_snapshot_free(&snap);
	}
	atomic_store_explicit(&rt->finished, RT_ABORTED, memory_order_release);
	return -ETIMEDOUT;
}

/*
 * Prefetch what the step after this one is likely to touch first. That
 * step is the worker's whose event is the earliest but for the stepping
 * one's (the earliest of the siblings on its path, by ev_rank), unless
 * this step ends before that event or sets an earlier one: on fib(27) with
 * 64 workers the guess is right in 99.4% of steps. (Compared by time
 * alone, it was right in 78%: the costs are whole nanoseconds, workers
 * that did the same steps have equal clocks, and the tie-break decides.)
 * With many workers stepping in turn a worker's lines have left L1 by its
 * next step; fetched here they arrive while this step runs: its engine
 * state, the first five lines of its struct worker, its ring's head and
 * progress lines, its policy state's first two lines, its LIFO slot's
 * task, its ring's head slot and the task there. (Not its task pool's
 * free blocks: the pool it will use is the one this step uses, passed
 * along by pool_pass.) Loads and prefetches only (a prefetch never
 * faults, and a stale pointer costs a wasted fetch at most): what the run
 * does does not depend on them. Returns the worker guessed, for
 * prefetch_deps.
 */
static inline __attribute__((always_inline)) uint32_t prefetch_next(const struct sim_engine *s,
								    const struct runtime *rt, uint32_t id)
{
	const uint32_t *node = s->win;
	uint64_t best = UINT64_MAX, who = id;
	for (uint32_t k = s->leaves + id; k > 1; k >>= 1) {
		uint64_t sid = node[k ^ 1], t = s->rank[sid];
#if defined(__x86_64__)
		__asm__("cmp %[best], %[t]\n\t"
			"cmovb %[t], %[best]\n\t"
			"cmovb %[sid], %[who]"
			: [best] "+&r"(best), [who] "+&r"(who)
			: [t] "r"(t), [sid] "r"(sid)
			: "cc");
#else
		who = t < best ? sid : who;
		best = t < best ? t : best;
#endif
	}
	const struct worker *w = &rt->workers[who];
	const char *line = (const char *)w;
	__builtin_prefetch(&s->w[who], 1);
	__builtin_prefetch(&s->cpu[who], 1);	/* cpu_step's line */
	for (int i = 0; i < 5; i++)
		__builtin_prefetch(line + i * CACHE_LINE, 1);
	struct worker_shared *sh = &rt->shared[who];
	__builtin_prefetch(&sh->ring.head, 1);
	__builtin_prefetch(&sh->progress, 1);
	__builtin_prefetch(w->pstate, 1);
	__builtin_prefetch((const char *)w->pstate + CACHE_LINE, 1);
	__builtin_prefetch(w->lifo, 1);
	/* Relaxed: the engine runs every worker on this one thread. */
	uint32_t slot = ring_real(atomic_load_explicit(&sh->ring.head, memory_order_relaxed)) & RING_MASK;
	__builtin_prefetch(&sh->ring.buf[slot], 1);
	__builtin_prefetch(sh->ring.buf[slot], 1);
	return (uint32_t)who;
}

/*
 * The second half of prefetch_next, after this step's poll, when the lines
 * it asked for have arrived: what they point to, for worker `who`, asked
 * for now with loads that hit. The continuation of the task in its LIFO
 * slot and of the one at its ring's head (the parent whose result and
 * join a leaf's or a join's completion writes, with an atomic
 * read-modify-write that waits for the line). Reads of live tasks only:
 * the engine runs every worker on this one thread, no steal is under way
 * between two steps, and a task in the LIFO slot or in [head, tail) of a
 * ring is queued, not freed. Prefetches only: what the run does does not
 * depend on them.
 */
static inline __attribute__((always_inline)) void prefetch_deps(struct runtime *rt, uint32_t who)
{
	const struct worker *w = &rt->workers[who];
	struct ring *r = &w->sh->ring;
	/* Relaxed: the engine runs every worker on this one thread. */
	uint32_t real = ring_real(atomic_load_explicit(&r->head, memory_order_relaxed));
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (w->lifo)
		task_prefetch_cont(w->lifo);
	if (real != tail)
		task_prefetch_cont(r->buf[real & RING_MASK]);
}

/*
 * One free list of task blocks for all workers: the worker about to step
 * takes the task pool of the one stepped before, in exchange for its own
 * (empty unless it allocated before the run). Each worker's own LIFO list
 * would hand out the block it freed at its last steps, a round of the
 * other workers' steps before (63 steps at 64 workers), or a never-used one
 * while it forks more than it completes: lines from beyond L2, a wait at
 * each allocation. The list passed along hands out the block freed a few
 * steps before, still in cache. Only the worker being stepped allocates or
 * frees (rt_task_alloc and rt_task_free take the calling worker), and the
 * engine runs every worker on this one thread, so one list does; the
 * threads engine keeps one per worker. An exchange, not a move: every
 * pool's chunks stay in some worker's pool, which rt_destroy drains.
 */
static inline __attribute__((always_inline)) void pool_pass(struct sim_engine *s, struct worker *w)
{
	struct worker *h = s->pool_holder;
	if (h == w)
		return;
	struct taskpool own = w->pool;
	w->pool = h->pool;
	h->pool = own;
	s->pool_holder = w;
}

/*
 * The step worker id just took, from `start` to its clock now (plus the
 * idle step the loop adds after a STEP_IDLE), in its CPU split (struct
 * worker_cpu): a step that polled a task, or closed a tick that did, is
 * busy, any other a search that found nothing. Its notifies are counted
 * by kind of step; its parks come only at the end of a search (a tick
 * that polled nothing). cpu_finish splits the sums.
 */
static inline __attribute__((always_inline)) void cpu_step(struct sim_engine *s,
							   const struct worker *w, uint32_t id,
							   uint64_t start, enum step st)
{
	struct sim_cpu *a = &s->cpu[id];
	/* The yields' system calls are the kernel's, whatever the step. */
	uint64_t yielded = s->w[id].yielded;
	uint64_t dur = s->w[id].clock - start - yielded;
	s->w[id].yielded = 0;
	a->yield_kernel += yielded;
	if (__builtin_expect(st == STEP_POLLED || st == STEP_RAN, 1)) {
		/* A wait for a task found before its spawn (sim_await_ready)
		 * stands for the search the worker would have gone on with. */
		uint64_t wait = s->w[id].waited;
		s->w[id].waited = 0;
		a->busy += dur - wait;
		a->search += wait;
	} else {
		a->search += dur + (st == STEP_IDLE ? s->costs.idle_step : 0);
		a->search_notifies += w->st.notifies - a->notifies;
		a->search_deep += w->st.deep_notifies - a->deep;
		a->search_awake += w->st.awake_notifies - a->awake;
	}
	a->notifies = w->st.notifies;
	a->deep = w->st.deep_notifies;
	a->awake = w->st.awake_notifies;
}

/*
 * The way back from the kernel of worker id's sleep, which its wake or
 * timeout has just ended at its clock: wake_return CPU if an unpark woke it
 * (`woken`), timeout_return if its timeout ran out, charged once per sleep
 * (a park that consumed a permit did not sleep and pays nothing, as on
 * threads, where te_park returns before the futex wait). A woken worker's
 * way back lies inside the wake latency (the calibration times the unpark
 * to the parker running), so it is the end of the sleep, which lasts at
 * least that long; a timed-out worker's comes after its timeout (the
 * timer fires, then the worker returns), so its clock moves by it. The
 * clock it ends at is returned; the CPU split (cpu_on) counts the way back
 * as the kernel's CPU and the rest of the sleep as time parked.
 */
static inline uint64_t sim_wake_cpu(struct sim_engine *s, uint32_t id, bool woken)
{
	struct sim_cpu *a = &s->cpu[id];
	uint64_t clock = s->w[id].clock;
	uint64_t ret = woken ? s->costs.wake_return : s->costs.timeout_return;
	if (!woken)
		clock += ret;
	else if (clock - a->park_at < ret)
		clock = a->park_at + ret;
	if (s->cpu_on) {
		a->parked += clock - a->park_at - ret;
		a->wake_kernel += ret;
	}
	return clock;
}

/*
 * Worker i's CPU split at the run's end. The kernel's part is the park and
 * notify costs its counters charged, the ends of its sleeps
 * (sim_wake_cpu) and its yields' system calls (sim_yield); the task's, the compute its tasks
 * declared in ticks that polled (task_compute_ns, as on threads) and the
 * work charge of its polls, at most the busy steps' time less their
 * notifies (less whatever of a negative per-poll figure the poll's own
 * cost does not cover: no part is negative); scheduling, the rest of the
 * busy steps; search, the rest of the others. The four add up to the
 * modelled time exactly.
 */
static struct worker_cpu cpu_finish(const struct sim_engine *s, const struct worker *w, uint32_t i)
{
	const struct sim_cpu *a = &s->cpu[i];
	const struct sim_costs *c = &s->costs;
	uint64_t deep = sim_costs_notify_deep_extra(c);
	/* The notifies and parks charged: those that woke a sleeper or slept
	 * (core/costs.h, sim_costs_notifies and sim_costs_parks). */
	uint64_t search_notified = a->search_notifies - a->search_awake;
	uint64_t busy_kernel = (sim_costs_notifies(&w->st) - search_notified) * c->notify +
			       (w->st.deep_notifies - a->search_deep) * deep;
	uint64_t search_kernel = sim_costs_parks(&w->st) * c->park + search_notified * c->notify +
				 a->search_deep * deep;
	uint64_t busy = a->busy - busy_kernel;
	uint64_t task = w->task_compute_ns + sim_costs_work_units(c, &w->st) * c->work;
	task = task < busy ? task : busy;
	return (struct worker_cpu){
		.cpu_ns = a->busy + a->search + a->wake_kernel + a->yield_kernel,
		.task_ns = task,
		.sched_ns = busy - task,
		.search_ns = a->search - search_kernel,
		.kernel_ns = busy_kernel + search_kernel + a->wake_kernel + a->yield_kernel,
		.parked_ns = a->parked,
	};
}

/*
 * The event loop, from the first step to the end of the run. Instantiated
 * twice (sim_run): for a plain run, with `explore`, `check` and `model`
 * constant false, so that the start's, the I/O's and the invariant's tests
 * and the model's terms leave the step loop; and for any run, with their
 * values. Both run the same steps in the same order.
 */
static inline __attribute__((always_inline)) int
sim_loop(struct sim_engine *s, struct runtime *rt, void (*start)(struct runtime *rt, void *arg),
	 void *arg, const bool explore, const bool check, const bool model)
{
	/*
	 * Exploring, the workload's start (the harness thread's injection
	 * from outside the workers) comes at a seeded point among the
	 * workers' first steps: before any (one seed in four), once every
	 * worker has parked or after 64n steps (one in four: a policy whose
	 * thieves never sleep never parks), or after 1 to 4n steps, as on
	 * threads, where the workers start before the harness thread
	 * injects. Otherwise it comes before any step.
	 */
	bool pending_start = explore;
	uint64_t start_after = 0;
	if (explore) {
		uint32_t draw = rng_below(&s->rng, 4);
		start_after = draw == 0 ? 0 : draw == 1 ? 64 * (uint64_t)s->n : 1 + rng_below(&s->rng, 4 * s->n);
		/* Placed tasks run from the workers' first steps on: their
		 * run starts then, before the start call, as on threads,
		 * where the start time is taken before the workers are
		 * released (engine_threads.c). */
		if (rt->place)
			rt->start_ns = 0;
	} else {
		rt->start_ns = 0;
		start(rt, arg);
	}
	uint64_t watchdog = rt->cfg.watchdog_ns, since = 0;
	int rc = 0;
	for (;;) {
		if (pending_start && (s->steps >= start_after || !s->live ||
				      (start_after > 4 * (uint64_t)s->n && all_parked(s)))) {
			/* At the latest clock so far: nothing steps back in time,
			 * and no worker runs the start's tasks before it (a worker
			 * whose next event is earlier waits until then). */
			uint64_t t = s->now;
			for (uint32_t i = 0; i < s->n; i++)
				t = s->w[i].clock > t ? s->w[i].clock : t;
			for (uint32_t i = 0; i < s->n; i++) {
				if (ev_key(s, i) != SIM_NO_EVENT && ev_time(s, i) < t) {
					s->w[i].clock = t;
					ev_set(s, i, t);
				}
			}
			s->now = t;
			pending_start = false;
			if (!rt->place)
				rt->start_ns = t;
			start(rt, arg);
			since = t;
		}
		/*
		 * I/O is delivered at its due time, as a device interrupt would:
		 * before stepping any worker past it, and even while every
		 * worker sleeps. The threads engine has no spare core for that
		 * and delivers through the workers' own I/O poll (see
		 * docs/sim.md); exploring, the sim does the same, so that a
		 * policy whose timekeeper sleeps through an event stalls here
		 * as it would there, and so does --set cost.io_poll=1, so that
		 * the timekeeper's sleeps end as there (by their timeout).
		 */
		/* The root holds the worker with the earliest event. */
		uint32_t id = s->win[1];
		uint64_t next_step = s->live ? ev_time(s, id) : TIMER_NONE;
		if (!explore && !s->costs.io_poll && rt->io_next && !rt_finished(rt)) {
			uint64_t due = rt->io_next(rt, rt->io_arg);
			/* cost.io_delay > 0 delivers every event that much late
			 * (an interrupt held off, a NIC's coalescing): what the
			 * workload measures must not hide that delay. */
			if (due != TIMER_NONE && due + s->costs.io_delay <= next_step) {
				s->now = due + s->costs.io_delay;
				rt->io_poll(rt, NULL, s->now, rt->io_arg);
				continue;
			}
		}
		if (!s->live)
			break;
		/* The event stays set while the worker steps; whatever the step
		 * ends in sets the next one or clears it. */
		struct sim_worker *sw = &s->w[id];
		struct worker *w = &rt->workers[id];
		uint32_t who = explore ? id : prefetch_next(s, rt, id);
		pool_pass(s, w);
		if (sw->state == W_PARKED) {
			/* Woken by an unpark, or its park timed out. */
			uint64_t at = next_step;
			sw->clock = at > sw->clock ? at : sw->clock;
			sw->state = W_RUNNABLE;
			if (s->costs.notify_deep)
				s->cpu[id].poll_window = halt_poll_next(
					s->cpu[id].poll_window, sw->clock - s->cpu[id].park_at,
					s->costs.halt_poll, s->costs.halt_poll_shrink);
			/* Its way back from the kernel: the worker steps once back
			 * (a later event if that moved its clock). */
			uint64_t back = sim_wake_cpu(s, id, sw->woken);
			bool later = back != sw->clock;
			sw->clock = back;
			s->now = sw->clock;
			if (s->cpu_on) {
				if (sw->woken) {
					w->wake_ns = s->cpu[id].notify_at;
					w->wake_armed = true;
				}
			}
			/* Its wake path is its thread's (rt_running): a driver
			 * it polls there (tokio's) delivers on its account. */
			rt_running = w;
			worker_unparked(w, sw->woken ? PARK_WOKEN : PARK_TIMEOUT);
			rt_running = NULL;
			sw->woken = false;
			if (later && !explore) {
				ev_set(s, id, sw->clock);
				continue;
			}
			if (explore) {
				/* The wake path (the policy's unparked hook) is a
				 * step of its own: other workers may claim, steal or
				 * publish between its reads and the worker's next
				 * RMWs, which follow after a seeded part of the
				 * futex's cost (the timeout/claim race). */
				sw->clock += rng_below(&s->rng, (uint32_t)s->costs.park + 1);
				ev_set(s, id, sw->clock);
				continue;
			}
		}
		s->now = sw->clock;
		uint64_t t_step = sw->clock, timeout = 0;
		s->cur = w;
		rt_running = w;
		if (explore)
			w->split_poll = s->split && rng_below(&s->split_rng, 2) == 0;
		enum step st = worker_step_poll(w, &timeout);
		/* A park that finds a permit returns before its futex wait (te_park):
		 * counted before the charge, which then charges it no park. */
		if (st == STEP_PARK && sw->permit)
			w->st.permit_parks++;
		if (!explore)
			prefetch_deps(rt, who);
		s->steps++;
		bool progressed = charge(s, id, t_step, explore, model);
		s->cur = NULL;
		rt_running = NULL;
		if (s->cpu_on)
			cpu_step(s, w, id, t_step, st);
		if (check && !rt_finished(rt)) {
			const char *why = rt->policy->check_idle(rt);
			if (why) {
				snprintf(rt->violation, sizeof rt->violation,
					 "after step %llu at %llu ns: %s", (unsigned long long)s->steps,
					 (unsigned long long)sw->clock, why);
				atomic_store_explicit(&rt->finished, RT_ABORTED, memory_order_release);
				rc = -EPROTO;
				goto out;
			}
		}
		switch (st) {
		case STEP_EXIT:
			sw->state = W_EXITED;
			ev_clear(s, id);
			continue;
		case STEP_IDLE:
			sw->clock += s->costs.idle_step;
			if (explore && w->held) {
				/* A task taken, its poll next: the worker is
				 * held up for a seeded while, up to twice the
				 * time a woken worker takes to run, so that
				 * others' searches and parks fit in between. */
				uint64_t most = 2 * s->costs.wake_latency;
				sw->clock += rng_below(&s->split_rng,
						       (uint32_t)(most < UINT32_MAX ? most : UINT32_MAX - 1) + 1);
			}
			break;
		case STEP_PARK:
			if (sw->permit) {
				sw->permit = false;
				rt_running = w;
				worker_unparked(w, PARK_WOKEN);
				rt_running = NULL;
				break;
			}
			sw->state = W_PARKED;
			s->cpu[id].park_at = sw->clock;
			sw->timed = timeout != PARK_FOREVER;
			if (sw->timed)
				ev_set(s, id, sw->clock + timeout);
			else
				ev_clear(s, id);
			if ((s->live == 0 || deadlocked(s)) && !pending_start &&
			    (explore || s->costs.io_poll ||
			     !(rt->io_next && rt->io_next(rt, rt->io_arg) != TIMER_NONE))) {
				if (!rt_finished(rt))
					rc = stall(s, rt);
				goto out;
			}
			continue;
		default:
			break;
		}
		if (watchdog) {
			/* Measured from the step's start: one long fruitless step
			 * (a thief's search of 10^9 attempts) is not a stall while
			 * workers with earlier clocks have yet to step. */
			if (progressed) {
				since = sw->clock;
			} else if (t_step > since + watchdog && !rt_finished(rt)) {
				rc = stall(s, rt);
				goto out;
			}
		}
		ev_set_stepped(s, id, sw->clock);
	}
out:
	return rc;
}

static int sim_run(struct engine *e, struct runtime *rt,
		   void (*start)(struct runtime *rt, void *arg), void *arg)
{
	struct sim_engine *s = (struct sim_engine *)e;
	CHECK(rt->nworkers == s->n);
	s->rt = rt;
	s->now = 0;
	s->cur = NULL;
	memset(&s->glock, 0, sizeof s->glock);
	memset(&s->list, 0, sizeof s->list);
	s->lock_seen = rt->inject.taken;
	s->rmw_total = 0;
	memset(s->rmw, 0, s->n * sizeof *s->rmw);
	s->lock_model = sim_costs_model_on(&s->costs);
	/* Two's complement when negative: the charges are taken modulo 2^64
	 * (charge), and a poll's whole charge is never negative. */
	s->costs.policy_poll = (uint64_t)sim_costs_policy_poll(&s->costs, rt->policy->name);
	s->steps = 0;
	s->waits = 0;
	s->pool_holder = &rt->workers[0];
	rng_seed(&s->rng, rt->cfg.seed ^ s->seed, 0x73696dull);
	rng_seed(&s->split_rng, rt->cfg.seed ^ s->seed, 0x73706c6974ull);
	s->split = s->seed && rng_below(&s->split_rng, SPLIT_RUNS) == 0;
	memset(s->w, 0, s->n * sizeof *s->w);
	for (uint32_t i = 0; i < s->n; i++) {
		s->rmw[i].seen = rt->workers[i].shared_rmws;
		s->w[i].last_listed = rt->workers[i].st.spawns + rt->workers[i].st.completions;
	}
	/* Go's semaphore table (worker.c, sema_take) rides on the touched
	 * poll: with the model on only, as every charge of it. */
	rt->sema_on = s->lock_model && s->costs.sema_table;
	memset(rt->sema_last, 0, sizeof rt->sema_last);
	rt->touch_on = s->costs.cold_start || s->costs.line_transfer || s->costs.contended ||
		       rt->sema_on;
	rt->touch_cold_after = s->costs.cold_after;
	for (uint32_t i = 0; i < s->n; i++) {
		s->w[i].sched_local = rt->policy->schedule_local;	/* as rt_create set it */
		rt->workers[i].sched_local = sim_sched_local;
	}
	s->live = 0;
	s->spawned = s->completed = s->live_peak = 0;
	if (s->fresh_n)		/* a run stopped before their polls */
		memset(s->fresh, 0, s->fresh_cap * sizeof *s->fresh);
	s->fresh_n = 0;
	/* Index leaves holds no event, for nodes not yet played (their
	 * subtrees hold only leaves past the last worker, or workers yet to
	 * have their first event set below): they lose every match. */
	for (uint32_t i = 0; i <= s->leaves; i++)
		s->time[i] = s->tie[i] = s->rank[i] = UINT64_MAX;
	for (uint32_t k = 1; k < 2 * s->leaves; k++)
		s->win[k] = k >= s->leaves ? k - s->leaves : s->leaves;

	rt->has_span = false;
	if (!s->seed && !s->costs.no_span) {
		/* A poll's and a spawn's own charges (span.h): the work.NAME
		 * goes where the workload's work is charged. */
		const struct sim_costs *c = &s->costs;
		span_start(s->span, rt, c->poll + c->policy_poll + (c->work_per_spawn ? 0 : c->work),
			   c->spawn + (c->work_per_spawn ? c->work : 0));
	}
	if (rt->place)
		rt->place(rt, rt->place_arg);
	rt->started = true;
	for (uint32_t i = 0; i < s->n; i++)
		ev_set(s, i, 0);
	bool explore = s->seed != 0;
	bool check = rt->cfg.explore && rt->policy->check_idle;
	bool model = s->lock_model;	/* sim_costs_model_on */
	memset(s->cpu, 0, s->n * sizeof *s->cpu);
	s->cpu_on = rt->cpu && !explore;
	int rc = !explore && !check && !model ? sim_loop(s, rt, start, arg, false, false, false)
					      : sim_loop(s, rt, start, arg, explore, check, true);
	for (uint32_t i = 0; s->cpu_on && i < s->n; i++)
		rt->cpu[i] = cpu_finish(s, &rt->workers[i], i);
	if (rt->span) {
		rt->has_span = rc == 0 && span_result(s->span, &rt->span_ns);
		rt->span = NULL;
	}
	s->rt = NULL;
	return rc;
}

/* The run finished: wake everyone so that each leaves at its next step. */
static void sim_finish(struct engine *e, struct runtime *rt)
{
	struct sim_engine *s = (struct sim_engine *)e;
	for (uint32_t i = 0; i < s->n; i++)
		sim_unpark(e, i);
}

static void sim_destroy(struct engine *e)
{
	struct sim_engine *s = (struct sim_engine *)e;
	if (!s)
		return;
	free(s->w);
	free(s->time);
	free(s->tie);
	free(s->rank);
	free(s->win);
	free(s->rmw);
	free(s->cpu);
	free(s->fresh);
	span_destroy(s->span);
	free(s);
}

static const struct engine_ops sim_ops = {
	.name = "sim",
	.one_thread = true,
	.now = sim_now,
	.unpark = sim_unpark,
	.compute = sim_compute,
	.yield = sim_yield,
	.await_ready = sim_await_ready,
	.horizon = sim_horizon,
	.run = sim_run,
	.finish = sim_finish,
	.destroy = sim_destroy,
};

/* Bytes rounded up to whole lines, as aligned_alloc wants them. */
static size_t lines_for(size_t bytes)
{
	return (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

struct engine *engine_sim_create(uint32_t nworkers, const struct sim_costs *costs,
				 uint64_t explore_seed)
{
	struct sim_engine *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->base.ops = &sim_ops;
	s->n = nworkers;
	s->seed = explore_seed;
	if (costs)
		s->costs = *costs;
	else
		sim_costs_default(&s->costs);
	s->w = aligned_alloc(CACHE_LINE, nworkers * sizeof *s->w);
	if (s->w)
		memset(s->w, 0, nworkers * sizeof *s->w);
	s->leaves = 1;
	while (s->leaves < nworkers)
		s->leaves *= 2;
	s->time = aligned_alloc(CACHE_LINE, lines_for((s->leaves + 1) * sizeof *s->time));
	s->tie = aligned_alloc(CACHE_LINE, lines_for((s->leaves + 1) * sizeof *s->tie));
	s->rank = aligned_alloc(CACHE_LINE, lines_for((s->leaves + 1) * sizeof *s->rank));
	s->win = aligned_alloc(CACHE_LINE, lines_for(2 * s->leaves * sizeof *s->win));
	s->rmw = calloc(nworkers, sizeof *s->rmw);
	s->cpu = aligned_alloc(CACHE_LINE, nworkers * sizeof *s->cpu);
	if (s->cpu)
		memset(s->cpu, 0, nworkers * sizeof *s->cpu);
	s->span = span_create(nworkers);
	if (!s->w || !s->time || !s->tie || !s->rank || !s->win || !s->rmw || !s->cpu || !s->span) {
		sim_destroy(&s->base);
		return NULL;
	}
	return &s->base;
}

uint64_t engine_sim_steps(const struct engine *e)
{
	return ((const struct sim_engine *)e)->steps;
}

uint64_t engine_sim_clock(const struct engine *e, uint32_t id)
{
	return ((const struct sim_engine *)e)->w[id].clock;
}

uint64_t engine_sim_waits(const struct engine *e)
{
	return ((const struct sim_engine *)e)->waits;
}
