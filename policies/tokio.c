/*
 * tokio.c - the Tokio multi-thread scheduler (docs/policies.md;
 * tokio-rs/tokio, tokio/src/runtime/scheduler/multi_thread/{worker,queue,
 * idle,stats}.rs) in two versions that share every line of code and differ
 * only in knob defaults:
 *
 *   tokio       1.29 and later: the global-queue interval tunes itself,
 *               batch pulls from the global queue
 *   tokio-1.28  before PRs 5705 and 5712: every 61 ticks, no tuning, one
 *               task per pop of the global queue, no LIFO cap (the coop
 *               budget ends a LIFO chain)
 *
 * Tokio's tick is one iteration of its worker loop: tick += 1, maintenance
 * every event_interval ticks, next_task() for one task, run it, then keep
 * running whatever that run put in the LIFO slot (a chain of at most
 * lifo_cap = 3 LIFO polls, which do not tick). find_work returns one task
 * per call, so the loop maps onto it like this:
 *
 *   - a call that finds the LIFO slot filled by a poll continues the
 *     chain: it takes the slot's task without ticking (one filled between
 *     steps is a tick's pick, as any ring task). The third chained poll
 *     clears lifo_enabled, so whatever it wakes goes to the back of the
 *     ring and the chain ends. A call that finds the slot empty ends the chain
 *     (lifo_enabled is set again) and starts a new tick. The slot is the
 *     core's owner-private w->lifo: Tokio never lets it be stolen.
 *   - a tick: if tick % interval == 0, retune the interval, then one task
 *     from the global queue, else the ring; otherwise the ring, then a
 *     global batch of max(1, min(len / workers + 1, free slots, 128)) into
 *     the ring.
 *   - nothing local: steal if allowed to search (2 * searching < workers):
 *     from a random start, each other worker once, half of its ring
 *     (refused while the thief holds more than 128), then one task from
 *     the global queue; else park.
 *
 * The core step is Tokio's batch of polls (Stats::start_/end_processing_
 * scheduled_tasks): tick_end updates the EWMA of poll time once per step.
 * Tokio ends a batch at every maintenance tick and when local work runs out,
 * before stealing; find_work ends the step at exactly those points (it
 * returns NULL after at least one poll) and the next step resumes where it
 * stopped, at the maintenance tick or at the steal, without ticking again.
 * The tick of a failed search and the park that follows it are one tick,
 * as in Tokio.
 *
 * Self-tuning (stats.rs, since 1.29): EWMA seeded at target / 61, updated
 * per batch with weight 1 - 0.9^polls applied to the batch's mean poll
 * time; on each global-queue tick the interval becomes clamp(200 us / EWMA,
 * 2, 127) if that moves it by more than 2. An explicit interval (the
 * `interval` knob) turns tuning off, as Tokio's global_queue_interval
 * setting does.
 *
 * Idle (idle.rs): one atomic word holds (unparked << 16) | searching. A
 * notify wakes a worker only if searching == 0 and unparked < workers, and
 * then pops the sleeper stack, so the most recently parked worker wakes
 * first. The sleeper list lives under the global queue's mutex
 * (rt->inject.lock), as Tokio keeps both in Shared::synced under one mutex.
 * The last searcher to find work notifies another; the last searcher to
 * park re-checks every queue first.
 *
 * The coop budget (task/coop): Tokio counts resource operations inside one
 * scheduled task's poll and its LIFO chain, 128 units, and a LIFO task found
 * with the budget spent goes to the back of the local queue. Harness tasks
 * make no resource operations, so one unit is spent per wake or spawn a
 * task makes (coop_budget; 0 turns it off). With the LIFO cap of 1.29+ the
 * cap ends a chain long before; in 1.28 (no cap) the budget is what ends it.
 *
 * Waking (worker.rs Context::park, Core::transition_from_parked): a worker
 * whose park ends with tasks in its own queues takes itself off the sleeper
 * list and runs them; one that a notifier popped off the list searches; one
 * still on the list with nothing local (a stale permit, the driver woken to
 * re-plan its sleep, a park_timeout_ns timeout) parks again at once, keeping
 * its place on the list and running no tick: tokio_unparked sets repark,
 * tick_begin then grants no poll and park returns straight to sleep. The
 * driver holder woken because its next event came due stays up: Tokio's
 * driver delivers that event's task into the holder's own queue, where the
 * harness delivers arrivals to the global queue (docs/policies.md).
 */
#include "policies/tokio_internal.h"

#include "core/worker_loop.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One table shape for both versions; they differ in knob defaults only. */
#define TOKIO_KNOB_TABLE(INTERVAL_DEFAULT, BATCH_DEFAULT, LIFO_DEFAULT)                      \
	{                                                                                    \
		[TOKIO_LIFO_CAP] = { "lifo_cap", LIFO_DEFAULT, 0, 1e9, true,                 \
				     "LIFO polls chained after one task before woken tasks go "  \
				     "to the ring; 0 disables the slot; 1e9 = no cap (1.28)" },  \
		[TOKIO_INTERVAL] = { "interval", INTERVAL_DEFAULT, 0, 1e9, true,             \
				     "ticks between global-queue-first ticks; 0 = self-tuning" }, \
		[TOKIO_INTERVAL_MIN] = { "interval_min", 2, 1, 1e9, true,                    \
					 "lower clamp of the tuned interval" },              \
		[TOKIO_INTERVAL_MAX] = { "interval_max", 127, 1, 1e9, true,                  \
					 "upper clamp of the tuned interval" },              \
		[TOKIO_TARGET_NS] = { "target_ns", 200000, 1, 1e12, false,                   \
				      "tuned interval = target_ns / EWMA poll time" },           \
		[TOKIO_SEED_INTERVAL] = { "seed_interval", 61, 1, 1e9, true,                 \
					  "EWMA seed = target_ns / seed_interval (the first " \
					  "interval)" },                                      \
		[TOKIO_EWMA_ALPHA] = { "ewma_alpha", 0.1, 0.0001, 1, false,                  \
				       "EWMA weight of one poll; a batch of n weighs "           \
				       "1 - (1 - alpha)^n" },                                    \
		[TOKIO_DEAD_BAND] = { "dead_band", 2, 0, 1e9, true,                          \
				      "retune only if the interval moves by more than this" },   \
		[TOKIO_EVENT_INTERVAL] = { "event_interval", 61, 1, 1e9, true,               \
					   "ticks between maintenance (driver) ticks; each "  \
					   "ends a batch" },                                  \
		[TOKIO_BATCH_MAX] = { "batch_max", BATCH_DEFAULT, 1, 256, true,              \
				      "largest global batch (half the local queue); 1 = one "    \
				      "task per pop (up to 1.28)" },                             \
		[TOKIO_STEAL_MAX] = { "steal_max", 128, 0, 128, true,                        \
				      "most tasks one steal moves (half, capped); 0 = no "       \
				      "stealing" },                                              \
		[TOKIO_STEAL_REFUSE] = { "steal_refuse", 128, 0, 256, true,                  \
					 "a thief holding more than this many tasks does "   \
					 "not steal" },                                      \
		[TOKIO_SEARCHER_CAP] = { "searcher_cap", 0.5, 0.001, 1, false,               \
					 "fraction of workers that may search at once "      \
					 "(soft)" },                                         \
		[TOKIO_SLEEPER_FIFO] = { "sleeper_fifo", 0, 0, 1, true,                      \
					 "0: wake the most recently parked worker (stack); " \
					 "1: the longest parked" },                          \
		[TOKIO_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,             \
					    "park timeout; 0 = none (park until notified)" }, \
		[TOKIO_COOP_BUDGET] = { "coop_budget", 128, 0, 65535, true,                  \
					"coop units per scheduled task and its LIFO chain, "  \
					"one per wake or spawn it makes; a LIFO task found "  \
					"with none left goes to the ring's back; 0 = off" },  \
		[TOKIO_DEFER_YIELD] = { "defer_yield", 1, 0, 1, true,                        \
					"1 = a yielding task waits until the worker runs out " \
					"of work or reaches a maintenance tick (yield_now, "   \
					"context::defer); 0 = straight to the ring's back" },  \
	}

const struct knob_def tokio_knobs[TOKIO_NKNOBS] = TOKIO_KNOB_TABLE(0, 128, 3);
static const struct knob_def tokio_128_knobs[TOKIO_NKNOBS] = TOKIO_KNOB_TABLE(61, 1, 1e9);

/* Both tables: interval 0 is the self-tuning one. */
const struct knob_enum tokio_names[] = {
	{ "interval", (const struct knob_name[]){ { "adaptive", 0 }, { NULL, 0 } } },
	{ "sleeper_fifo", (const struct knob_name[]){ { "stack", 0 }, { "fifo", 1 },
						       { NULL, 0 } } },
	{ NULL, NULL },
};

#define UNPARK_SHIFT 16
#define SEARCH_MASK ((1ull << UNPARK_SHIFT) - 1)
#define UNPARK_ONE (1ull << UNPARK_SHIFT)
#define CAP_DEN 1000u

/* Owner-private, one line per worker. */
struct tokio_worker {
	CACHE_ALIGNED uint32_t tick;
	uint32_t next_global;		/* next tick with tick % interval == 0 */
	uint32_t next_event;		/* next tick with tick % event_interval == 0 */
	uint32_t interval;		/* global_queue_interval */
	uint32_t lifo_polls;		/* LIFO polls chained after this tick's task */
	uint32_t lifo_cap;
	int32_t coop;			/* units left in this task's LIFO chain */
	uint16_t coop_budget;		/* 0: not modeled (coop stays 1) */
	uint8_t coop_step;		/* 1 per wake or spawn; 0: not modeled */
	bool driver;			/* parked holding the I/O and timer driver */
	bool lifo_on;			/* the slot exists (lifo_cap != 0) */
	bool lifo_enabled;
	bool step_fresh;		/* no task returned in this step yet */
	bool resume_steal;		/* this tick found nothing local: steal next */
	uint32_t interval_lo, interval_hi;	/* lowest and highest interval taken */
	double ewma_ns;
	uint64_t maintenance;		/* maintenance ticks run */
	/* Second line, touched once per step or per steal: what this step's
	 * EWMA sample leaves out (stats.rs counts start_poll calls, which LIFO
	 * polls do not make, and its batch timer stops around a search). */
	CACHE_ALIGNED uint32_t lifo_in_step;	/* LIFO polls in this step */
	uint64_t steal_ns;		/* time this step spent searching */
	/* Yielded tasks waiting for the worker to run out of work or reach a
	 * maintenance tick (Defer in scheduler/defer.rs), owner-private. */
	struct task **defer;
	uint32_t ndefer, defer_cap;
	bool defer_on;
	bool repark;			/* woken while still listed, nothing local */
	bool lifo_pick;			/* the slot was filled between steps */
};
_Static_assert(sizeof(struct tokio_worker) == 2 * CACHE_LINE, "two lines per worker");

struct tokio {
	uint32_t fixed_interval, interval_min, interval_max, dead_band;
	uint32_t event_interval, batch_max, steal_max, steal_refuse, cap_num;
	bool sleeper_fifo;
	double target_ns, alpha, seed_ns;
	uint64_t park_ns;
	struct tokio_worker *tw;	/* [nworkers] */
	/* The idle word on its own line: every notify does an RMW on it. */
	CACHE_ALIGNED _Atomic uint64_t state;	/* (unparked << 16) | searching */
	/* Under rt->inject.lock. */
	CACHE_ALIGNED uint32_t *sleepers;	/* bottom of the stack first */
	uint32_t nsleepers;
	bool *listed;			/* [id]: id is on the sleeper list */
	/* tokio-broken (tokio_broken.c): the driver role is held here,
	 * where rt_wake_timekeeper does not look, instead of in
	 * rt->timekeeper. */
	_Atomic int32_t hidden_keeper;
	bool hide_driver;
};

double tokio_ewma(double ewma_ns, uint32_t polls, uint64_t elapsed_ns, double alpha)
{
	if (polls == 0)
		return ewma_ns;
	double n = (double)polls;
	double mean = (double)elapsed_ns / n;
	double a = 1.0 - pow(1.0 - alpha, n);
	return a * mean + (1.0 - a) * ewma_ns;
}

uint32_t tokio_tuned_interval(double ewma_ns, double target_ns, uint32_t lo, uint32_t hi)
{
	/* Rust's f64 -> u32 cast saturates (and maps NaN to 0). */
	double x = target_ns / ewma_ns;
	uint32_t n = !(x > 0) ? 0 : x >= 4294967295.0 ? UINT32_MAX : (uint32_t)x;
	if (n < lo)
		return lo;
	if (n > hi)
		return hi;
	return n;
}

uint32_t tokio_retune(uint32_t cur, uint32_t tuned, uint32_t band)
{
	uint32_t diff = cur > tuned ? cur - tuned : tuned - cur;
	return diff > band ? tuned : cur;
}

uint32_t tokio_batch_size(uint64_t len, uint32_t workers, uint32_t room, uint32_t max)
{
	uint64_t n = len / workers + 1;
	uint32_t cap = room < max ? room : max;
	if (n > cap)
		n = cap;
	return n ? (uint32_t)n : 1;
}

static inline struct tokio *TK(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct tokio_worker *TW(const struct worker *w)
{
	return w->pstate;
}

uint32_t tokio_worker_tick(const struct worker *w) { return TW(w)->tick; }
uint32_t tokio_worker_interval(const struct worker *w) { return TW(w)->interval; }
uint32_t tokio_worker_interval_min(const struct worker *w) { return TW(w)->interval_lo; }
uint32_t tokio_worker_interval_max(const struct worker *w) { return TW(w)->interval_hi; }
double tokio_worker_ewma_ns(const struct worker *w) { return TW(w)->ewma_ns; }
uint64_t tokio_worker_maintenance(const struct worker *w) { return TW(w)->maintenance; }

uint32_t tokio_num_searching(struct runtime *rt)
{
	return (uint32_t)(atomic_load(&TK(rt)->state) & SEARCH_MASK);
}

uint32_t tokio_num_unparked(struct runtime *rt)
{
	return (uint32_t)(atomic_load(&TK(rt)->state) >> UNPARK_SHIFT);
}

uint32_t tokio_sleepers(struct runtime *rt, uint32_t *out, uint32_t max)
{
	struct tokio *tk = TK(rt);
	inject_lock(&rt->inject);
	uint32_t n = tk->nsleepers;
	for (uint32_t i = 0; i < n && i < max; i++)
		out[i] = tk->sleepers[i];
	inject_unlock(&rt->inject);
	return n;
}

/*
 * The first multiple of iv after tick; 0 if it lies past the u32 wrap (the
 * tick reaches 0 there, and 0 is a multiple). A tick equal to it is a tick
 * with tick % iv == 0, without a division per tick.
 */
static inline uint32_t next_multiple(uint32_t tick, uint32_t iv)
{
	uint64_t m = ((uint64_t)tick / iv + 1) * iv;
	return m > UINT32_MAX ? 0 : (uint32_t)m;
}

int tokio_check(const struct rt_config *cfg, const double *k, char *err, size_t len)
{
	if (cfg->workers > TOKIO_MAX_WORKERS) {
		snprintf(err, len,
			 "supports at most %u workers (a 16-bit searching count), got %u",
			 TOKIO_MAX_WORKERS, cfg->workers);
		return -EINVAL;
	}
	if (k[TOKIO_INTERVAL_MIN] > k[TOKIO_INTERVAL_MAX]) {
		snprintf(err, len, "interval_min %g exceeds interval_max %g",
			 k[TOKIO_INTERVAL_MIN], k[TOKIO_INTERVAL_MAX]);
		return -EINVAL;
	}
	return 0;
}

int tokio_init(struct runtime *rt)
{
	uint32_t n = rt->nworkers;
	if (n > TOKIO_MAX_WORKERS)
		return -EINVAL;
	size_t size = (sizeof(struct tokio) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	struct tokio *tk = aligned_alloc(CACHE_LINE, size);
	if (!tk)
		return -ENOMEM;
	memset(tk, 0, size);
	const double *k = rt->knobs;
	tk->fixed_interval = (uint32_t)k[TOKIO_INTERVAL];
	tk->interval_min = (uint32_t)k[TOKIO_INTERVAL_MIN];
	tk->interval_max = (uint32_t)k[TOKIO_INTERVAL_MAX];
	tk->dead_band = (uint32_t)k[TOKIO_DEAD_BAND];
	tk->event_interval = (uint32_t)k[TOKIO_EVENT_INTERVAL];
	tk->batch_max = (uint32_t)k[TOKIO_BATCH_MAX];
	tk->steal_max = (uint32_t)k[TOKIO_STEAL_MAX];
	tk->steal_refuse = (uint32_t)k[TOKIO_STEAL_REFUSE];
	tk->cap_num = (uint32_t)lround(k[TOKIO_SEARCHER_CAP] * CAP_DEN);
	tk->sleeper_fifo = k[TOKIO_SLEEPER_FIFO] != 0;
	tk->target_ns = k[TOKIO_TARGET_NS];
	tk->alpha = k[TOKIO_EWMA_ALPHA];
	tk->seed_ns = k[TOKIO_TARGET_NS] / k[TOKIO_SEED_INTERVAL];
	tk->park_ns = k[TOKIO_PARK_TIMEOUT_NS] == 0 ? PARK_FOREVER
						    : (uint64_t)k[TOKIO_PARK_TIMEOUT_NS];
	/* All workers start unparked, none searching. */
	atomic_init(&tk->state, (uint64_t)n << UNPARK_SHIFT);

	tk->tw = aligned_alloc(CACHE_LINE, n * sizeof(struct tokio_worker));
	tk->sleepers = calloc(n, sizeof *tk->sleepers);
	tk->listed = calloc(n, sizeof *tk->listed);
	if (!tk->tw || !tk->sleepers || !tk->listed) {
		free(tk->tw);
		free(tk->sleepers);
		free(tk->listed);
		free(tk);
		return -ENOMEM;
	}
	memset(tk->tw, 0, n * sizeof(struct tokio_worker));
	uint32_t lifo_cap = (uint32_t)k[TOKIO_LIFO_CAP];
	for (uint32_t i = 0; i < n; i++) {
		struct tokio_worker *tw = &tk->tw[i];
		tw->ewma_ns = tk->seed_ns;
		tw->interval = tk->fixed_interval
				       ? tk->fixed_interval
				       : tokio_tuned_interval(tw->ewma_ns, tk->target_ns,
							      tk->interval_min, tk->interval_max);
		tw->interval_lo = tw->interval_hi = tw->interval;
		tw->next_global = next_multiple(0, tw->interval);
		tw->next_event = next_multiple(0, tk->event_interval);
		tw->lifo_cap = lifo_cap;
		tw->defer_on = k[TOKIO_DEFER_YIELD] != 0;
		tw->coop_budget = (uint16_t)k[TOKIO_COOP_BUDGET];
		tw->coop_step = tw->coop_budget != 0;
		tw->coop = tw->coop_budget ? tw->coop_budget : 1;
		tw->lifo_on = lifo_cap != 0;
		tw->lifo_enabled = tw->lifo_on;
		rt->workers[i].pstate = tw;
	}
	rt->pstate = tk;
	/* The driver is taken by the first worker to park. */
	atomic_store_explicit(&rt->timekeeper, -1, memory_order_relaxed);
	atomic_init(&tk->hidden_keeper, -1);
	return 0;
}

void tokio_hide_driver(struct runtime *rt)
{
	TK(rt)->hide_driver = true;
}

void tokio_destroy(struct runtime *rt)
{
	struct tokio *tk = TK(rt);
	if (!tk)
		return;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		free(tk->tw[i].defer);
	free(tk->tw);
	free(tk->sleepers);
	free(tk->listed);
	free(tk);
	rt->pstate = NULL;
}

/* ---- idle: the (unparked << 16) | searching word and the sleeper list ---- */

static inline bool should_wakeup(struct runtime *rt, uint64_t s)
{
	return (s & SEARCH_MASK) == 0 && (s >> UNPARK_SHIFT) < rt->nworkers;
}

/* Under the lock. */
static uint32_t pop_sleeper(struct tokio *tk)
{
	CHECK(tk->nsleepers > 0);
	uint32_t id;
	if (!tk->sleeper_fifo) {
		id = tk->sleepers[--tk->nsleepers];
	} else {
		id = tk->sleepers[0];
		memmove(tk->sleepers, tk->sleepers + 1, --tk->nsleepers * sizeof *tk->sleepers);
	}
	tk->listed[id] = false;
	return id;
}

/* Under the lock: take `id` off the list if it is on it (idle.rs
 * unpark_worker_by_id). Order-preserving where Tokio swap-removes: the
 * departure only changes which sleeper a later notify pops. */
static bool remove_sleeper(struct tokio *tk, uint32_t id)
{
	if (!tk->listed[id])
		return false;
	uint32_t i = 0;
	while (tk->sleepers[i] != id)
		i++;
	memmove(tk->sleepers + i, tk->sleepers + i + 1,
		(tk->nsleepers - i - 1) * sizeof *tk->sleepers);
	tk->nsleepers--;
	tk->listed[id] = false;
	return true;
}

/*
 * Wake a parked worker if nobody searches (worker_to_notify, then unpark).
 * Returns true if one was woken.
 *
 * The lost-wakeup argument. A publisher makes a task visible (a ring tail
 * store, or a global-queue push under its mutex), then reads the idle word.
 * A searcher that parks or stops searching changes the idle word, then (if
 * it was the last searcher) re-reads every queue. Tokio reads the word with
 * fetch_add(0), an RMW, not a load: both sides then modify one location,
 * and RMWs on one location are totally ordered. If the publisher's RMW comes
 * first, the searcher's later RMW reads from it (or from a later RMW in its
 * release sequence), acquires the publisher's release and its re-check sees
 * the task; if the searcher's comes first, the publisher's RMW reads the
 * decremented word and wakes someone. acq_rel on every idle-word RMW is all
 * this needs, and ThreadSanitizer (which does not model fences) sees it.
 */
static bool tokio_notify(struct runtime *rt, struct worker *w)
{
	struct tokio *tk = TK(rt);
	/* The read-modify-write of the idle state that every worker writes,
	 * at every notify check (tokio idle.rs, notify_should_wakeup): the
	 * sim's model charges it when it follows another worker's. */
	if (w)
		w->shared_rmws++;
	if (!should_wakeup(rt, atomic_fetch_add_explicit(&tk->state, 0, memory_order_acq_rel)))
		return false;
	inject_lock(&rt->inject);
	/*
	 * Again under the lock. The unparked half changes only under it, so
	 * a relaxed load reads it exactly; a searching count read here is at
	 * least as new as the one the RMW above saw, and a searcher that
	 * appeared since is responsible for the work instead.
	 */
	if (!should_wakeup(rt, atomic_load_explicit(&tk->state, memory_order_relaxed))) {
		inject_unlock(&rt->inject);
		return false;
	}
	/* The woken worker counts as unparked and searching from now on. */
	atomic_fetch_add_explicit(&tk->state, UNPARK_ONE | 1, memory_order_acq_rel);
	if (w)
		w->shared_rmws++;
	uint32_t id = pop_sleeper(tk);
	inject_unlock(&rt->inject);
	rt_idle_unpark(rt, w, (int)id);
	return true;
}

/* The last searcher is about to park: wake someone if any queue holds work
 * (notify_if_work_pending). Called after its idle-word RMW. */
static void notify_if_work_pending(struct runtime *rt, struct worker *w)
{
	for (uint32_t i = 0; i < rt->nworkers; i++)
		if (!ring_is_empty(&rt->shared[i].ring)) {
			tokio_notify(rt, w);
			return;
		}
	if (inject_len(&rt->inject))
		tokio_notify(rt, w);
}

/* transition_worker_to_searching: soft cap, load then add. */
static bool try_search(struct runtime *rt, struct tokio *tk)
{
	/* Relaxed: the cap is a soft limit; a stale count lets one searcher
	 * more or fewer through. The add is an idle-word RMW (see above). */
	uint64_t s = atomic_load_explicit(&tk->state, memory_order_relaxed);
	if ((s & SEARCH_MASK) * CAP_DEN >= (uint64_t)rt->nworkers * tk->cap_num)
		return false;
	atomic_fetch_add_explicit(&tk->state, 1, memory_order_acq_rel);
	return true;
}

/* A searcher found work: the last one to stop wakes another, so that work
 * arriving meanwhile still has someone looking for it. */
static void leave_searching(struct worker *w)
{
	struct tokio *tk = TK(w->rt);
	w->searching = false;
	uint64_t prev = atomic_fetch_sub_explicit(&tk->state, 1, memory_order_acq_rel);
	w->shared_rmws++;
	CHECK((prev & SEARCH_MASK) >= 1);
	if ((prev & SEARCH_MASK) == 1 && tokio_notify(w->rt, w))
		w->st.last_searcher_notifies++;
}

/* ---- queues ---- */

/* yield_now (task/yield_now.rs): the task's waker goes to the worker's
 * defer list instead of waking it at once. */
static __attribute__((noinline)) void defer_task(struct tokio_worker *tw, struct task *t)
{
	if (tw->ndefer == tw->defer_cap) {
		uint32_t cap = tw->defer_cap ? 2 * tw->defer_cap : 64;
		struct task **d = realloc(tw->defer, cap * sizeof *d);
		CHECK(d != NULL);
		tw->defer = d;
		tw->defer_cap = cap;
	}
	tw->defer[tw->ndefer++] = t;
}

void tokio_schedule_local(struct worker *w, struct task *t, enum sched_kind kind);

/* Defer::wake: every deferred task is woken, which from the worker
 * schedules it locally (schedule_task -> schedule_local, not a yield).
 * Returns whether there were any. */
static bool wake_deferred(struct worker *w)
{
	struct tokio_worker *tw = TW(w);
	uint32_t n = tw->ndefer;
	tw->ndefer = 0;
	for (uint32_t i = 0; i < n; i++)
		tokio_schedule_local(w, tw->defer[i], SCHED_WAKE);
	return n != 0;
}

void tokio_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	/* A yield, or a disabled slot (capped chain, or no slot at all): the
	 * back of the ring, and a notify. Otherwise the LIFO slot; the task it
	 * displaces goes to the ring and is worth a notify. */
	struct tokio_worker *tw = TW(w);
	/* A wake or spawn spends one coop unit of the running task's budget
	 * (a model: tokio's coop counts resource operations, task/coop). */
	tw->coop -= tw->coop_step;
	if (__builtin_expect(kind == SCHED_YIELD, 0) && tw->defer_on) {
		defer_task(tw, t);
		return;
	}
	if (__builtin_expect(kind != SCHED_YIELD && tw->lifo_enabled, 1)) {
		struct task *prev = w->lifo;
		w->lifo = t;
		if (!prev)
			return;
		t = prev;
	}
	rt_push_local(w, t);
	tokio_notify(w->rt, w);
}

void tokio_schedule_remote(struct runtime *rt, struct task *t)
{
	inject_push(&rt->inject, t);
	tokio_notify(rt, NULL);
}

/* next_remote_task: one task from the global queue. */
static struct task *global_one(struct worker *w)
{
	struct task *t;
	if (inject_len(&w->rt->inject) == 0 || inject_pop_batch(&w->rt->inject, &t, 1) == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks++;
	return t;
}

/* The ring ran dry: one lock acquisition for a batch; the first task is
 * returned, the rest go to the ring. */
static struct task *global_batch(struct worker *w)
{
	struct runtime *rt = w->rt;
	uint64_t len = inject_len(&rt->inject);
	if (len == 0)
		return NULL;
	uint32_t n = tokio_batch_size(len, rt->nworkers, ring_free(&w->sh->ring),
				      TK(rt)->batch_max);
	struct task *buf[RING_CAP];
	uint32_t got = (uint32_t)inject_pop_batch(&rt->inject, buf, n);
	if (got == 0)
		return NULL;
	/* The oldest tasks, and cold: fetch the batch's headers at once. */
	for (uint32_t i = 0; i < got; i++)
		__builtin_prefetch(buf[i], 1);
	w->st.global_batches++;
	w->st.global_tasks += got;
	ring_push_batch(&w->sh->ring, buf + 1, got - 1);
	w->st.local_pushes += got - 1;
	return buf[0];
}

static inline struct task *ring_take(struct worker *w)
{
	struct task *t = ring_pop(&w->sh->ring);
	if (t)
		w->st.local_pops++;
	return t;
}

/* next_local_task: the LIFO slot, then the ring. At a tick's start the
 * slot is empty unless the maintenance tick's driver poll, deferred wakes
 * (at maintenance, or in park when the worker ran out of work) or the
 * timers fired on waking filled it; such a task starts a chain like any
 * ring task. */
static inline struct task *local_take(struct worker *w)
{
	struct task *t = w->lifo;
	if (t) {
		w->lifo = NULL;
		w->st.lifo_polls++;
		return t;
	}
	return ring_take(w);
}

/* steal_work: search (if the cap allows), every other worker once from a
 * random start, then one task from the global queue. */
static struct task *steal_work(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct tokio *tk = TK(rt);
	if (!w->searching) {
		if (!try_search(rt, tk))
			return NULL;
		w->shared_rmws++;
		w->searching = true;
		w->st.searcher_enter++;
	}
	uint32_t n = rt->nworkers;
	/* A thief already holding more than steal_refuse tasks gives up on
	 * every victim (queue.rs steal_into); its ring cannot grow during the
	 * loop, so one look decides for all of them. */
	if (tk->steal_max && RING_CAP - ring_free(&w->sh->ring) <= tk->steal_refuse) {
		uint32_t start = rng_below(&w->rng, n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = start + i < n ? start + i : start + i - n;
			if (v == w->index)
				continue;
			struct task *t;
			enum steal_outcome why;
			w->st.steal_attempts++;
			uint32_t k = ring_steal_into(&rt->shared[v].ring, &w->sh->ring,
						     tk->steal_max, &t, &why);
			if (k) {
				w->st.steals++;
				w->st.tasks_stolen += k;
				return t;
			}
		}
	}
	return global_one(w);
}

/*
 * The maintenance tick (every event_interval ticks). Tokio polls the I/O
 * and timer driver here with a zero timeout, unless another worker holds
 * the driver (parked in it). After the poll Tokio wakes another worker if
 * this one, not searching, holds more than one task (should_notify_others):
 * the driver may have filled its queue.
 */
static __attribute__((noinline)) void maintenance(struct worker *w)
{
	TW(w)->maintenance++;
	/* park.rs park_timeout: the zero-timeout park polls the driver only
	 * if it can take it (try_lock); a worker parked in the driver holds
	 * it, and its events are its to deliver. Relaxed: a stale look only
	 * moves one poll to the next maintenance tick. */
	int32_t holder = atomic_load_explicit(&w->rt->timekeeper, memory_order_relaxed);
	if (holder < 0 || holder == (int32_t)w->index) {
		rt_poll_timers(w);
		rt_poll_io(w);
	}
	/* park_yield: the zero-timeout park is followed by defer.wake(). */
	wake_deferred(w);
	if (!w->searching && (w->lifo != NULL) + ring_len(&w->sh->ring) > 1)
		tokio_notify(w->rt, w);
}

/* On a global-queue tick: move to the tuned interval if it left the dead
 * band, and find the next such tick. */
static void retune(struct tokio *tk, struct tokio_worker *tw)
{
	if (!tk->fixed_interval) {
		uint32_t tuned = tokio_tuned_interval(tw->ewma_ns, tk->target_ns, tk->interval_min,
						      tk->interval_max);
		tw->interval = tokio_retune(tw->interval, tuned, tk->dead_band);
		if (tw->interval < tw->interval_lo)
			tw->interval_lo = tw->interval;
		if (tw->interval > tw->interval_hi)
			tw->interval_hi = tw->interval;
	}
	tw->next_global = next_multiple(tw->tick, tw->interval);
}

/* A tick that is not a plain ring pop: maintenance, the global queue's
 * turn, a global batch, a search, or the resumption of any of them. */
static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct tokio *tk = TK(rt);
	struct tokio_worker *tw = TW(w);
	struct task *t;

	if (tw->resume_steal) {
		/* The previous step ended this tick before stealing. */
		tw->resume_steal = false;
		goto steal;
	}
	uint32_t next = tw->tick + 1;
	if (next == tw->next_event) {
		/* A batch ends at the maintenance tick: end the step here and
		 * run the tick at the start of the next one. */
		if (!tw->step_fresh)
			return NULL;
		tw->next_event = next_multiple(next, tk->event_interval);
		maintenance(w);
	}
	tw->tick = next;
	if (next == tw->next_global) {
		w->st.interval_checks++;
		retune(tk, tw);
		if ((t = global_one(w)) || (t = local_take(w)))
			goto found;
	} else if ((t = local_take(w)) || (t = global_batch(w))) {
		goto found;
	}
	/* Local work ran out: the batch ends before the search. */
	if (!tw->step_fresh) {
		tw->resume_steal = true;
		return NULL;
	}
steal: {
	/* worker.rs run: end_processing_scheduled_tasks before steal_work,
	 * start_processing_scheduled_tasks after it: the search is not part
	 * of any batch's time. */
	uint64_t t0 = rt_now(rt, w);
	t = steal_work(w);
	tw->steal_ns += rt_now(rt, w) - t0;
	if (t)
		goto found;
	}
	/* Nothing: the park that follows belongs to this same tick. */
	tw->resume_steal = true;
	return NULL;
found:
	tw->step_fresh = false;
	if (w->searching)
		leave_searching(w);
	return t;
}

static inline __attribute__((always_inline)) struct task *find_work(struct worker *w)
{
	struct tokio_worker *tw = TW(w);
	struct task *t = w->lifo;
	/*
	 * A chain goes on from a task a poll put in the slot. A slot filled
	 * between steps (lifo_pick: the deferred wakes of a worker that ran
	 * out of work, the timers fired on waking) Tokio takes in its run
	 * loop as next_task's pick: a tick of its own, then run_task, whose
	 * transition_from_searching makes the last searcher wake a parked
	 * worker (worker.rs Context::run, Context::run_task). The slow path
	 * does both.
	 */
	if (t && __builtin_expect(!tw->lifo_pick, 1)) {
		w->lifo = NULL;
		/* worker.rs run_task: with no coop budget left the slot's task
		 * goes to the back of the local queue and the chain ends. */
		if (__builtin_expect(tw->coop <= 0, 0)) {
			rt_push_local(w, t);
			goto chain_over;
		}
		/* The LIFO chain goes on, without a tick. The poll that reaches
		 * the cap turns the slot off until the chain ends. */
		if (++tw->lifo_polls >= tw->lifo_cap)
			tw->lifo_enabled = false;
		w->st.lifo_polls++;
		tw->lifo_in_step++;
		tw->step_fresh = false;
		return t;
	}
chain_over:
	/* The chain is over, or none began (a slot filled between steps is
	 * the tick's pick, below): reset_lifo_enabled, and the next task
	 * starts with a fresh coop budget (coop::budget). */
	tw->lifo_enabled = tw->lifo_on;
	tw->lifo_polls = 0;
	tw->lifo_pick = false;
	tw->coop = tw->coop_budget ? tw->coop_budget : 1;
	/* Fast path: an ordinary tick served by the ring. */
	uint32_t next = tw->tick + 1;
	if (__builtin_expect(next != tw->next_global && next != tw->next_event &&
				     !tw->resume_steal && !w->searching && !w->lifo,
			     1)) {
		t = ring_pop(&w->sh->ring);
		if (t) {
			tw->tick = next;
			w->st.local_pops++;
			tw->step_fresh = false;
			return t;
		}
	}
	return find_work_slow(w);
}

struct task *tokio_find_work(struct worker *w)
{
	return find_work(w);
}

/* The threads engine's tick with find_work inlined (policy.h, step). */
static enum step tokio_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, find_work);
}

uint32_t tokio_tick_begin(struct worker *w)
{
	/* The step ends itself (maintenance tick, local work gone), as
	 * Tokio's batch does; no budget of its own. A worker that must park
	 * again (tokio_unparked) polls nothing and goes back to sleep. */
	struct tokio_worker *tw = TW(w);
	tw->step_fresh = true;
	return tw->repark ? 0 : UINT32_MAX;
}

void tokio_tick_end(struct worker *w, uint32_t polls, uint64_t elapsed_ns)
{
	struct tokio *tk = TK(w->rt);
	struct tokio_worker *tw = TW(w);
	/* stats.rs end_processing_scheduled_tasks: the batch's polls are the
	 * start_poll calls of run_task, one per task run; the LIFO polls that
	 * run_task chains after it do not count, though their time does. The
	 * search time is not the batch's. */
	uint32_t counted = polls - tw->lifo_in_step;
	uint64_t elapsed = elapsed_ns > tw->steal_ns ? elapsed_ns - tw->steal_ns : 0;
	tw->lifo_in_step = 0;
	tw->steal_ns = 0;
	if (counted == 0 || tk->fixed_interval)
		return;
	tw->ewma_ns = tokio_ewma(tw->ewma_ns, counted, elapsed, tk->alpha);
}

/*
 * park_timeout: one parked worker holds the driver: it sleeps no longer
 * than the next timer or I/O event and polls them when it wakes. Taking the
 * role, then a fence, then reading the next deadline pairs with
 * rt_sleep_until's add, fence, read of the keeper.
 */
static void park_on_driver(struct worker *w, struct tokio *tk, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	*timeout_ns = tk->park_ns;
	int32_t none = -1;
	_Atomic int32_t *role = tk->hide_driver ? &tk->hidden_keeper : &rt->timekeeper;
	if (atomic_compare_exchange_strong_explicit(role, &none, (int32_t)w->index,
						    memory_order_relaxed, memory_order_relaxed)) {
		TW(w)->driver = true;
		idle_fence_recheck();
		rt_cap_to_next_event(w, timeout_ns);
	}
}

bool tokio_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct tokio *tk = TK(rt);
	if (TW(w)->repark) {
		/* worker.rs Context::park: is_parked, so park_timeout again.
		 * Still on the sleeper list and counted parked: only the
		 * driver is taken anew. */
		TW(w)->repark = false;
		park_on_driver(w, tk, timeout_ns);
		return true;
	}
	TW(w)->resume_steal = false;
	/* worker.rs run: with deferred tasks the worker does not sleep
	 * (park_yield); waking them fills its queue for the next tick. */
	if (TW(w)->ndefer) {
		wake_deferred(w);
		TW(w)->lifo_pick = w->lifo != NULL;
		return false;
	}
	/* transition_to_parked: a worker holding tasks does not park. */
	if (w->lifo || !ring_is_empty(&w->sh->ring))
		return false;

	bool searching = w->searching;
	inject_lock(&rt->inject);
	/* Parked, and out of the searching state, in one RMW (the parking
	 * side of the argument above tokio_notify). */
	uint64_t prev = atomic_fetch_sub_explicit(&tk->state, UNPARK_ONE + (searching ? 1 : 0),
						  memory_order_acq_rel);
	w->shared_rmws++;
	CHECK((prev >> UNPARK_SHIFT) >= 1);
	CHECK(!searching || (prev & SEARCH_MASK) >= 1);
	CHECK(!tk->listed[w->index]);
	tk->sleepers[tk->nsleepers++] = w->index;
	tk->listed[w->index] = true;
	inject_unlock(&rt->inject);
	w->searching = false;

	/* The last searcher looks once more: publishers may have seen it
	 * searching and stayed quiet. (Its notify may pop this very worker;
	 * the engine's permit then ends the park at once.) */
	if (searching && (prev & SEARCH_MASK) == 1)
		notify_if_work_pending(rt, w);
	park_on_driver(w, tk, timeout_ns);
	return true;
}

void tokio_unparked(struct worker *w, enum park_wake how)
{
	struct runtime *rt = w->rt;
	struct tokio *tk = TK(rt);
	struct tokio_worker *tw = TW(w);
	bool event_due = false;
	if (tw->driver) {
		/* Leaving the driver: give the role back, then poll it. */
		tw->driver = false;
		atomic_store_explicit(tk->hide_driver ? &tk->hidden_keeper : &rt->timekeeper, -1,
				      memory_order_relaxed);
		rt_poll_timers(w);
		rt_poll_io(w);
		event_due = how == PARK_TIMEOUT;
	}
	/* worker.rs transition_from_parked: tasks of its own (the timers it
	 * just fired wake into its LIFO slot) end the park whatever woke it
	 * (unpark_worker_by_id); otherwise a worker still on the sleeper list
	 * (is_parked) parks again. Under the lock: a notifier that pops it
	 * after this look leaves a permit, which ends the next park at once. */
	bool has_tasks = w->lifo || !ring_is_empty(&w->sh->ring);
	tw->lifo_pick = w->lifo != NULL;
	inject_lock(&rt->inject);
	bool listed = tk->listed[w->index];
	bool again = listed && !has_tasks && !event_due;
	if (listed && !again) {
		/* not claimed: count ourselves unparked (unpark_one(0)) */
		remove_sleeper(tk, w->index);
		atomic_fetch_add_explicit(&tk->state, UNPARK_ONE, memory_order_acq_rel);
		w->shared_rmws++;
	}
	inject_unlock(&rt->inject);
	tw->repark = again;
	if (!listed) {
		/* A notifier popped us and counted us as searching. */
		w->searching = true;
		w->st.unparks_notify++;
	} else if (how == PARK_TIMEOUT) {
		w->st.unparks_timeout++;
	} else {
		w->st.unparks_spurious++;
	}
}

/* --explore (between two sim steps): a task in the global queue while a
 * worker sleeps and none searches is a lost wakeup. A remote schedule
 * notifies when nobody searches, and the woken worker counts as
 * searching from the notify on; the last searcher to park re-checks
 * every queue. (Rings are left out: a worker that pulled a batch into its
 * ring runs it without waking anyone.) */
const char *tokio_check_idle(struct runtime *rt)
{
	static char why[160];
	uint64_t s = atomic_load(&TK(rt)->state);
	uint32_t searching = (uint32_t)(s & SEARCH_MASK);
	uint32_t asleep = rt->nworkers - (uint32_t)(s >> UNPARK_SHIFT);
	size_t global = inject_len(&rt->inject);
	if (global && asleep && !searching) {
		snprintf(why, sizeof why,
			 "%zu tasks in the global queue while %u workers sleep and none searches "
			 "(a lost wakeup)", global, asleep);
		return why;
	}
	return NULL;
}

void tokio_idle_state(struct runtime *rt, struct policy_idle *out)
{
	uint64_t s = atomic_load(&TK(rt)->state);
	out->searching = (uint32_t)(s & SEARCH_MASK);
	out->sleeping = rt->nworkers - (uint32_t)(s >> UNPARK_SHIFT);
	out->queued = 0;
}

/* Stall report (workers stopped): the idle word, the sleeper stack, who
 * holds the driver and who searches. */
void tokio_dump(struct runtime *rt, FILE *f)
{
	struct tokio *tk = TK(rt);
	uint64_t s = atomic_load(&tk->state);
	int32_t driver = atomic_load(tk->hide_driver ? &tk->hidden_keeper : &rt->timekeeper);
	fprintf(f, "  tokio idle word: %u unparked, %u searching; driver: ",
		(uint32_t)(s >> UNPARK_SHIFT), (uint32_t)(s & SEARCH_MASK));
	if (driver >= 0)
		fprintf(f, "worker %d (parked on it)%s\n", driver,
			tk->hide_driver ? ", not the timekeeper (tokio-broken)" : "");
	else
		fprintf(f, "nobody\n");
	fprintf(f, "  tokio sleeper stack (bottom first):");
	for (uint32_t i = 0; i < tk->nsleepers; i++)
		fprintf(f, " %u", tk->sleepers[i]);
	fprintf(f, "%s\n", tk->nsleepers ? "" : " empty");
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct tokio_worker *tw = &tk->tw[i];
		fprintf(f, "  tokio worker %u: %s%s%s, tick %u, interval %u, %llu maintenance ticks\n",
			i, tk->listed[i] ? "on the sleeper list" : "unparked",
			rt->workers[i].searching ? ", searching" : "",
			tw->driver ? ", holds the driver" : "", tw->tick, tw->interval,
			(unsigned long long)tw->maintenance);
	}
}

const struct policy policy_tokio = {
	.name = "tokio",
	.summary = "Tokio 1.29 and later (modelled on 1.53): LIFO slot (3 chained polls), "
		   "self-tuning global interval clamp(200us/EWMA, 2, 127), batch pulls, half-steal, "
		   "sleeper stack, deferred yields, coop budget",
	.knobs = tokio_knobs,
	.nknobs = TOKIO_NKNOBS,
	.knob_names = tokio_names,
	.check = tokio_check,
	.init = tokio_init,
	.destroy = tokio_destroy,
	.schedule_local = tokio_schedule_local,
	.schedule_remote = tokio_schedule_remote,
	.own_maintenance = true,
	.tick_begin = tokio_tick_begin,
	.find_work = tokio_find_work,
	.step = tokio_step,
	.tick_end = tokio_tick_end,
	.park = tokio_park,
	.unparked = tokio_unparked,
	.idle_state = tokio_idle_state,
	.check_idle = tokio_check_idle,
	.dump = tokio_dump,
};

/* The same code; knob defaults as Tokio had them up to 1.28. */
const struct policy policy_tokio_1_28 = {
	.name = "tokio-1.28",
	.peer = "tokio",
	.summary = "Tokio 1.28: as tokio, with a fixed global interval of 61 (no tuning), no LIFO "
		   "cap (a chain ends when the coop budget of 128 units is spent: a unit per "
		   "wake or spawn) and one task per global-queue pop",
	.knobs = tokio_128_knobs,
	.nknobs = TOKIO_NKNOBS,
	.knob_names = tokio_names,
	.check = tokio_check,
	.init = tokio_init,
	.destroy = tokio_destroy,
	.schedule_local = tokio_schedule_local,
	.schedule_remote = tokio_schedule_remote,
	.own_maintenance = true,
	.tick_begin = tokio_tick_begin,
	.find_work = tokio_find_work,
	.step = tokio_step,
	.tick_end = tokio_tick_end,
	.park = tokio_park,
	.unparked = tokio_unparked,
	.idle_state = tokio_idle_state,
	.check_idle = tokio_check_idle,
	.dump = tokio_dump,
};
