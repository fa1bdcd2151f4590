/*
 * volt.c - the Volt design (docs/policies.md; Volt's scheduler design notes and Scheduler.zig).
 *
 * Per tick: a budget of 128 polls, each from find_work in this order:
 *   1. the pre-fetched global batch (owner-private buffer; empty by default)
 *   2. the LIFO slot, at most lifo_cap (3) polls per tick; once the cap is
 *      reached the slot is flushed into the ring, then the ring (FIFO)
 *   3. a global batch, when `interval` polls have passed since the last one
 *   4. steal half from a random victim, wrapping round (searchers only),
 *      running the oldest task taken and moving on after a lost claim;
 *      a searcher whose sweep fails pops one global task (nextRemoteTask)
 *   5. a final global batch
 * After the tick the EWMA of poll time updates the interval:
 * clamp(1 ms / avg, 8, 255). A worker whose tick ran nothing parks: set
 * transitioning_to_park, flush the LIFO slot and the pre-fetch buffer to the
 * ring, re-check ring and global queue, mark itself parked (the last
 * searcher re-checks every queue and notifies if it finds work), then sleep
 * with a 10 ms timeout. Wakes claim the lowest parked worker from the bitmap.
 *
 * Where it follows Volt's code (Scheduler.zig at blitz-io / volt 9959af1)
 * rather than the design notes, and where it departs (docs/policies.md has
 * the table):
 *  - the pre-fetch buffer stays empty (prefetch=0): fetchGlobalBatch pushes
 *    a global batch's surplus into the stealable ring, and pollGlobalBatch
 *    never finds anything; prefetch=N is the design's private N-task buffer;
 *  - a local push never wakes anyone (tryScheduleLocal); notify_local=1 is
 *    the kinder form that wakes a parked worker when the ring gets a task;
 *  - a task woken during its own poll takes the LIFO slot like any other
 *    local schedule (executeTask -> tryScheduleLocal); yield_to_ring=1 sends
 *    it to the ring's tail instead;
 *  - defect (a) fixed: waking from a timeout checks whether a claimer cleared
 *    our bit first (idle_wake_was_claim), so num_parked never wraps;
 *  - defect (c) kept apart: the interval counts polls, the unit the EWMA
 *    measures, not ticks;
 *  - a full ring sheds its 128 oldest tasks to the global queue one lock
 *    each and keeps the new one (WorkStealQueue.push; overflow_batch=1: one
 *    lock for all and the new one); every overflow, a spawn's or a flush's,
 *    is followed by a notify (the code's push does not wake): global work
 *    never waits for a park timeout, which check_idle's invariant needs;
 *  - the last searcher's look before sleeping counts occupied LIFO slots
 *    (notifyIfWorkPending), through worker_shared.lifo_occupied.
 * The initial interval follows the documented 50 us average (interval 20),
 * not the code's 61; set initial_avg_ns to 16393 for the latter.
 */
#include "policies/volt_internal.h"

#include "core/worker_loop.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One table shape for volt, its test-only broken variants (no park timeout;
 * 50 us parks) and its single-mechanism variants (one default changed
 * each). */
#define VOLT_KNOB_TABLE(park, interval, steal) { VOLT_KNOB_ENTRIES(park, interval, steal) }

static const struct knob_def volt_knobs[VOLT_NKNOBS] = VOLT_KNOB_TABLE(1e7, 0, 128);
static const struct knob_def volt_broken_knobs[VOLT_NKNOBS] = VOLT_KNOB_TABLE(0, 0, 128);
static const struct knob_def fixed61_knobs[VOLT_NKNOBS] = VOLT_KNOB_TABLE(1e7, 61, 128);
static const struct knob_def steal_one_knobs[VOLT_NKNOBS] = VOLT_KNOB_TABLE(1e7, 0, 1);
/* The timeout/claim race needs timeouts: 50 us parks, so small runs have
 * many (the race itself does not depend on the length). */
static const struct knob_def timeout_race_knobs[VOLT_NKNOBS] = VOLT_KNOB_TABLE(5e4, 0, 128);

static const struct knob_enum volt_names[] = {
	{ "interval", (const struct knob_name[]){ { "adaptive", 0 }, { NULL, 0 } } },
	{ NULL, NULL },
};

#define PREFETCH_MAX 64
#define CAP_DEN 1000u

/* The phases of a steal (core/ring.h: ring_steal_claim, _copy, _release,
 * _publish), and the orders a steal runs them in. */
enum { PH_CLAIM, PH_COPY, PH_RELEASE, PH_PUBLISH, PH_N };
/* ring_steal_into's: copy the claimed slots out, release them, publish. */
static const uint8_t order_real[PH_N] = { PH_CLAIM, PH_COPY, PH_RELEASE, PH_PUBLISH };
/* Kept for tests (volt-ring-early-release): the claimed slots go back to
 * the owner before they are copied out, so its pushes can reuse them. */
static const uint8_t order_early_release[PH_N] = { PH_CLAIM, PH_RELEASE, PH_COPY, PH_PUBLISH };
/* Kept for tests (volt-ring-early-publish): the thief's tail is published
 * before the copies are in its slots, so a thief of the thief can take
 * slots not yet written. */
static const uint8_t order_early_publish[PH_N] = { PH_CLAIM, PH_PUBLISH, PH_COPY, PH_RELEASE };

/* Exploring, what a ring slot holds while no task is queued in it: the
 * slots a phased steal will fill, from its claim until its copy, and the
 * slots it has copied out. A steal that claims or copies one reports a
 * violation. */
static struct task slot_poison;

struct volt_worker {
	/* One per worker, line-aligned: owner-private, never shared. */
	CACHE_ALIGNED struct task *prefetch[PREFETCH_MAX];
	uint32_t pf_head, pf_len;
	uint32_t lifo_polls;		/* this tick */
	bool timeout_pending;		/* volt-timeout-race: clear our bit next step */
	uint32_t lifo_cap;		/* copies of knobs, on the owner's line */
	bool notify_local, yield_to_ring;
	/* Per enum sched_kind: a local schedule of that kind takes the LIFO
	 * slot (lifo_cap != 0, and not yield_to_ring for SCHED_YIELD) and the
	 * worker is not in its park sequence: one test in schedule_local.
	 * The owner keeps it with transitioning_to_park (lifo_take_set). */
	bool lifo_take[3];
	uint32_t since_global;		/* polls since the last global check */
	uint32_t interval;
	uint64_t avg_ns;		/* EWMA of ns per poll, integer as in Volt */
	/* A steal in phases (steal_from_phased): exploring, and in the
	 * test-only ring variants. */
	const uint8_t *steal_order;	/* order_real, or a broken one */
	bool steal_split;		/* one phase per step (the sim, exploring) */
	uint8_t steal_next;		/* steal_order's next phase; 0: none under way */
	uint32_t steal_victim;
	struct ring_steal steal_st;
	struct task *steal_first;
};

struct volt {
	uint32_t budget, lifo_cap, prefetch, batch_min, batch_max;
	uint32_t fixed_interval, interval_min, interval_max;
	double target_ns, alpha, initial_avg_ns;
	uint32_t steal_max, cap_num;
	uint64_t park_ns;
	bool skip_last_searcher;	/* the broken variant: see policy_volt_broken */
	bool wake_stack;		/* wake=1: the most recently parked first */
	bool fallback_batch;		/* fallback_batch=1: no single pop after a failed sweep */
	bool overflow_batch;		/* overflow_batch=1: one lock for a whole overflow */
	/* wake=1: when each worker last parked (a clock of parks), read by
	 * claimers choosing whom to wake. */
	_Atomic uint64_t park_clock;
	_Atomic uint64_t park_stamp[IDLE_MAX_WORKERS];
	struct volt_worker *vw;		/* [nworkers] */
	/* Exploring: the first ring violation a phased steal saw, reported by
	 * volt_check_idle after the step. */
	char ring_why[200];
	/* The victim loop of volt_find_work_hooked (volt_internal.h); volt's
	 * own find_work never reads these. */
	volt_steal_fn steal_fn;
	void *steal_arg;
};

uint32_t volt_interval_for(double avg_ns, double target_ns, uint32_t lo, uint32_t hi)
{
	double x = avg_ns > 0 ? target_ns / avg_ns : (double)hi;
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return (uint32_t)x;
}

uint64_t volt_ewma(uint64_t avg_ns, uint64_t sample_ns, double alpha)
{
	/* Truncating, like Volt's integer average: converges exactly onto a
	 * steady sample from either side, never below 1. */
	uint64_t next = (uint64_t)(alpha * (double)sample_ns + (1 - alpha) * (double)avg_ns);
	return next ? next : 1;
}

uint32_t volt_batch_size(uint64_t len, uint32_t workers, uint32_t lo, uint32_t hi)
{
	uint64_t n = len / workers;
	if (n < lo)
		n = lo;
	if (n > hi)
		n = hi;
	return (uint32_t)n;
}

static inline struct volt *V(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct volt_worker *VW(const struct worker *w)
{
	return w->pstate;
}

/* lifo_take for a worker in (parking) or out of its park sequence. */
static void lifo_take_set(struct volt_worker *vw, bool parking)
{
	bool slot = vw->lifo_cap != 0 && !parking;
	vw->lifo_take[SCHED_SPAWN] = slot;
	vw->lifo_take[SCHED_WAKE] = slot;
	vw->lifo_take[SCHED_YIELD] = slot && !vw->yield_to_ring;
}

/* The park sequence is over (volt_park found work, or the engine's park
 * returned): local schedules take the slot again. */
static void park_sequence_end(struct worker *w)
{
	atomic_store_explicit(&w->sh->transitioning_to_park, false, memory_order_relaxed);
	lifo_take_set(VW(w), false);
}

uint32_t volt_worker_interval(const struct worker *w)
{
	return VW(w)->interval;
}

uint64_t volt_worker_avg_ns(const struct worker *w)
{
	return VW(w)->avg_ns;
}

int volt_check(const struct rt_config *cfg, const double *k, char *err, size_t len)
{
	if (cfg->workers > IDLE_MAX_WORKERS) {
		snprintf(err, len,
			 "policy volt supports at most %d workers (one 64-bit parked bitmap), got %u",
			 IDLE_MAX_WORKERS, cfg->workers);
		return -EINVAL;
	}
	if (k[VOLT_BATCH_MIN] > k[VOLT_BATCH_MAX]) {
		snprintf(err, len, "policy volt: batch_min %g exceeds batch_max %g",
			 k[VOLT_BATCH_MIN], k[VOLT_BATCH_MAX]);
		return -EINVAL;
	}
	if (k[VOLT_INTERVAL_MIN] > k[VOLT_INTERVAL_MAX]) {
		snprintf(err, len, "policy volt: interval_min %g exceeds interval_max %g",
			 k[VOLT_INTERVAL_MIN], k[VOLT_INTERVAL_MAX]);
		return -EINVAL;
	}
	return 0;
}

int volt_init(struct runtime *rt)
{
	if (rt->nworkers > IDLE_MAX_WORKERS)
		return -EINVAL;
	struct volt *v = calloc(1, sizeof *v);
	if (!v)
		return -ENOMEM;
	const double *k = rt->knobs;
	v->budget = (uint32_t)k[VOLT_BUDGET];
	v->lifo_cap = (uint32_t)k[VOLT_LIFO_CAP];
	v->prefetch = (uint32_t)k[VOLT_PREFETCH];
	v->batch_min = (uint32_t)k[VOLT_BATCH_MIN];
	v->batch_max = (uint32_t)k[VOLT_BATCH_MAX];
	v->fixed_interval = (uint32_t)k[VOLT_INTERVAL];
	v->interval_min = (uint32_t)k[VOLT_INTERVAL_MIN];
	v->interval_max = (uint32_t)k[VOLT_INTERVAL_MAX];
	v->target_ns = k[VOLT_TARGET_NS];
	v->alpha = k[VOLT_EWMA_ALPHA];
	v->initial_avg_ns = k[VOLT_INITIAL_AVG_NS];
	v->steal_max = (uint32_t)k[VOLT_STEAL_MAX];
	v->cap_num = (uint32_t)lround(k[VOLT_SEARCHER_CAP] * CAP_DEN);
	v->park_ns = k[VOLT_PARK_TIMEOUT_NS] ? (uint64_t)k[VOLT_PARK_TIMEOUT_NS] : PARK_FOREVER;
	v->wake_stack = k[VOLT_WAKE] != 0;
	v->fallback_batch = k[VOLT_FALLBACK_BATCH] != 0;
	v->overflow_batch = k[VOLT_OVERFLOW_BATCH] != 0;

	/* sizeof is a multiple of the line (CACHE_ALIGNED member). */
	v->vw = aligned_alloc(CACHE_LINE, rt->nworkers * sizeof(struct volt_worker));
	if (!v->vw) {
		free(v);
		return -ENOMEM;
	}
	memset(v->vw, 0, rt->nworkers * sizeof(struct volt_worker));
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct volt_worker *vw = &v->vw[i];
		vw->avg_ns = (uint64_t)v->initial_avg_ns;
		vw->lifo_cap = v->lifo_cap;
		vw->notify_local = k[VOLT_NOTIFY_LOCAL] != 0;
		vw->yield_to_ring = k[VOLT_YIELD_TO_RING] != 0;
		lifo_take_set(vw, false);
		vw->steal_order = order_real;
		/* Exploring, a steal is one phase per simulated step, so that
		 * other workers' steps fall between its phases. */
		vw->steal_split = rt->cfg.explore;
		vw->interval = v->fixed_interval
				       ? v->fixed_interval
				       : volt_interval_for((double)vw->avg_ns, v->target_ns, v->interval_min,
							   v->interval_max);
		rt->workers[i].pstate = vw;
	}
	rt->pstate = v;
	return 0;
}

void volt_destroy(struct runtime *rt)
{
	struct volt *v = V(rt);
	if (!v)
		return;
	free(v->vw);
	free(v);
	rt->pstate = NULL;
}

/* wake=1: of the parked workers in bm, the one that parked last. */
static int pick_latest(uint64_t bm, const void *arg)
{
	const struct volt *v = arg;
	int best = __builtin_ctzll(bm);
	uint64_t best_stamp = 0;
	for (uint64_t m = bm; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		/* Relaxed: the stamp was stored before the parker's seq_cst RMW
		 * that set its bit, and the claimer read that bit with a
		 * seq_cst load, so the stamp it reads is at least as new. */
		uint64_t stamp = atomic_load_explicit(&v->park_stamp[i], memory_order_relaxed);
		if (stamp > best_stamp) {
			best_stamp = stamp;
			best = i;
		}
	}
	return best;
}

/*
 * Publisher side of the bitmap idle state (rt_idle_notify). wake=1 swaps
 * the lowest-first choice (Volt's wakeWorkerIfNeeded: count trailing zeros
 * of the parked bitmap) for the most recently parked worker, the order in
 * which Tokio pops its sleeper stack (tokio idle.rs, worker_to_notify);
 * the rest of the protocol is the same.
 */
static void notify(struct runtime *rt, struct worker *w)
{
	struct volt *v = V(rt);
	if (__builtin_expect(!v->wake_stack, 1)) {
		rt_idle_notify(rt, w);
		return;
	}
	idle_fence_publish();
	if (idle_should_wake(&rt->idle))
		rt_idle_unpark(rt, w, idle_claim_parked_by(&rt->idle, pick_latest, v));
}

/* After a push into the caller's own ring (rt_idle_notify_local). */
static inline void notify_local(struct worker *w)
{
	if (rt_idle_local_look(&w->rt->idle))
		notify(w->rt, w);
}

static __attribute__((noinline)) void schedule_parking(struct worker *w, struct task *t)
{
	inject_push(&w->rt->inject, t);
	notify(w->rt, w);
}

/*
 * A full ring (t not pushed). Volt's WorkStealQueue.push (Header.zig):
 * while a thief is copying out of the head, t alone goes to the global
 * queue; otherwise the oldest half (128 tasks) is claimed off the head and
 * pushed to the global queue one task at a time, each push its own lock
 * acquisition (GlobalTaskQueue.push), and t then goes into the ring's
 * freed room. overflow_batch=1 moves the 128 and t under one lock instead
 * (rt_push_local_overflow, Tokio's push_overflow and Go's runqputslow).
 * Either way the overflow is announced, so that global work never waits
 * for a park timeout (Volt's push wakes nobody; docs/policies.md). Every
 * overflow of volt comes here: a spawn's, the LIFO-cap flush's and the
 * park flush's.
 */
static __attribute__((noinline)) void push_full_ring(struct worker *w, struct task *t)
{
	if (V(w->rt)->overflow_batch) {
		rt_push_local_overflow(w, t);
	} else {
		struct ring_overflow out;
		struct inject *q = &w->rt->inject;
		switch (ring_push_slow(&w->sh->ring, t, &out)) {
		case RING_PUSHED:	/* a thief freed room meanwhile */
			return;
		case RING_FULL_BUSY:
			inject_push(q, t);
			break;
		case RING_OVERFLOWED:
			/* out holds the claimed half, then t. */
			w->st.overflows++;
			w->st.overflow_tasks += out.n - 1;
			w->st.overflow_locks += out.n - 1;	/* charged so by the sim */
			for (uint32_t i = 0; i + 1 < out.n; i++)
				inject_push(q, out.tasks[i]);
			/* The claimed half's slots are ours again: room. */
			CHECK(ring_try_push(&w->sh->ring, t));
			break;
		}
	}
	notify(w->rt, w);
}

/* A push into the own ring (local_pushes counted by the caller) that
 * overflows the way push_full_ring does. */
static inline void push_local(struct worker *w, struct task *t)
{
	if (__builtin_expect(!ring_try_push(&w->sh->ring, t), 0))
		push_full_ring(w, t);
}

/* rt_push_pop_local with volt's overflow: t joins the ring's tail, then the
 * head is popped. */
static inline struct task *push_pop_local(struct worker *w, struct ring *r, struct task *t)
{
	bool pushed;
	w->st.local_pushes++;
	struct task *head = ring_push_pop(r, t, &pushed);
	if (__builtin_expect(pushed, 1))
		return head;
	push_full_ring(w, t);
	return ring_pop(r);
}

/* The slot's mirror for other workers' looks (worker_shared.lifo_occupied;
 * Volt's lifo_slot is an atomic the last searcher reads). Relaxed: a hint
 * read after the parker's seq_cst fence, as Volt's isEmptyFast-style
 * looks are; nothing is read through it. */
static inline void lifo_mark(struct worker *w, bool occupied)
{
	atomic_store_explicit(&w->sh->lifo_occupied, occupied, memory_order_relaxed);
}

void volt_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	/*
	 * Scheduler.zig tryScheduleLocal: the newest task takes the LIFO slot;
	 * the one it displaces goes to the ring's tail. executeTask reschedules
	 * a task woken during its own poll the same way (yield_to_ring sends it
	 * to the tail instead). A disabled slot sends everything to the ring.
	 * lifo_take says both that and that the worker is not parking.
	 */
	struct volt_worker *vw = VW(w);
	if (__builtin_expect(vw->lifo_take[kind], 1)) {
		struct task *prev = w->lifo;
		w->lifo = t;
		if (!prev) {
			lifo_mark(w, true);
			return;
		}
		t = prev;
	} else if (__builtin_expect(atomic_load_explicit(&w->sh->transitioning_to_park,
							 memory_order_relaxed), 0)) {
		/*
		 * Relaxed: the flag is written by this same thread (the park
		 * sequence), so program order is all the ordering needed. A
		 * local schedule during that sequence would land in a slot the
		 * parking worker has already flushed; it goes to the global
		 * queue instead.
		 */
		schedule_parking(w, t);
		return;
	}
	w->st.local_pushes++;
	if (__builtin_expect(ring_try_push(&w->sh->ring, t), 1)) {
		/* Volt's code wakes nobody here; notify_local does. */
		if (vw->notify_local)
			notify_local(w);
		return;
	}
	push_full_ring(w, t);
}

void volt_schedule_remote(struct runtime *rt, struct task *t)
{
	inject_push(&rt->inject, t);
	notify(rt, NULL);
}

uint32_t volt_tick_begin(struct worker *w)
{
	VW(w)->lifo_polls = 0;
	return V(w->rt)->budget;
}

void volt_tick_end(struct worker *w, uint32_t polls, uint64_t elapsed_ns)
{
	struct volt *v = V(w->rt);
	struct volt_worker *vw = VW(w);
	if (polls == 0 || v->fixed_interval)
		return;
	vw->avg_ns = volt_ewma(vw->avg_ns, elapsed_ns / polls, v->alpha);
	vw->interval = volt_interval_for((double)vw->avg_ns, v->target_ns, v->interval_min,
					 v->interval_max);
}

static struct task *prefetch_pop(struct volt_worker *vw)
{
	if (vw->pf_len == 0)
		return NULL;
	struct task *t = vw->prefetch[vw->pf_head];
	vw->pf_head = (vw->pf_head + 1) % PREFETCH_MAX;
	vw->pf_len--;
	/* The buffer is owner-private: the task after next is ours to read.
	 * Its header was prefetched with the batch; fetch its continuation. */
	if (vw->pf_len > 1)
		task_prefetch_cont(vw->prefetch[(vw->pf_head + 1) % PREFETCH_MAX]);
	return t;
}

/*
 * One lock acquisition: clamp(len / workers, batch_min, batch_max) tasks,
 * bounded by the room we have. The first is returned, the next fill the
 * pre-fetch buffer, the rest go to the ring (where thieves can reach them).
 */
static struct task *global_batch(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct volt *v = V(rt);
	struct volt_worker *vw = VW(w);
	uint64_t len = inject_len(&rt->inject);
	if (len == 0)
		return NULL;

	uint32_t pf_room = v->prefetch > vw->pf_len ? v->prefetch - vw->pf_len : 0;
	uint32_t ring_room = ring_free(&w->sh->ring);
	uint32_t n = volt_batch_size(len, rt->nworkers, v->batch_min, v->batch_max);
	if (n > 1 + pf_room + ring_room)
		n = 1 + pf_room + ring_room;

	struct task *buf[256];
	uint32_t got = (uint32_t)inject_pop_batch(&rt->inject, buf, n);
	if (got == 0)
		return NULL;
	/* Tasks from the global queue are the oldest and coldest: fetch the
	 * whole batch's headers at once. */
	for (uint32_t k = 0; k < got; k++)
		__builtin_prefetch(buf[k], 1);
	w->st.global_batches++;
	w->st.global_tasks += got;

	uint32_t i = 1;
	for (; i < got && vw->pf_len < v->prefetch; i++) {
		vw->prefetch[(vw->pf_head + vw->pf_len) % PREFETCH_MAX] = buf[i];
		vw->pf_len++;
	}
	ring_push_batch(&w->sh->ring, buf + i, got - i);
	w->st.local_pushes += got - i;
	return buf[0];
}

/* One task under the global lock (Scheduler.zig nextRemoteTask,
 * GlobalTaskQueue.pop), counted as a global batch of one. */
static struct task *global_pop_one(struct worker *w)
{
	struct task *t;
	if (!inject_pop_batch(&w->rt->inject, &t, 1))
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks++;
	return t;
}

/* LIFO slot (capped per tick, then flushed to the ring), then the ring.
 * count_pops false: the caller counts the ring pops itself (step_with). */
static inline __attribute__((always_inline)) struct task *
local_pop(struct worker *w, struct volt_worker *vw, bool count_pops)
{
	struct task *t = w->lifo;
	if (t) {
		w->lifo = NULL;
		lifo_mark(w, false);
		if (vw->lifo_polls < vw->lifo_cap) {
			vw->lifo_polls++;
			w->st.lifo_polls++;
			return t;
		}
		/* Cap reached: the slot's task joins the ring's FIFO order
		 * (and becomes stealable) instead of being skipped. */
		t = push_pop_local(w, &w->sh->ring, t);
	} else {
		t = ring_pop(&w->sh->ring);
	}
	if (t && count_pops)
		w->st.local_pops++;
	return t;
}

/* May w steal now? Enters the searching state (soft cap) if needed. */
static inline bool steal_begin(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct volt *v = V(rt);

	if (v->steal_max == 0 || rt->nworkers == 1)
		return false;
	if (!w->searching) {
		if (!idle_try_become_searcher(&rt->idle, v->cap_num, CAP_DEN))
			return false;
		w->searching = true;
		w->st.searcher_enter++;
	}
	return true;
}

/* One steal attempt on victim: half of its ring, at most steal_max. */
static inline struct task *steal_from(struct worker *w, uint32_t victim, uint32_t steal_max)
{
	struct task *t;
	enum steal_outcome why;
	w->st.steal_attempts++;
	/* Volt's stealInto: one claim attempt (a lost race moves on to the
	 * next victim), the oldest task returned (first_task). */
	uint32_t k = ring_steal_into_oldest(&w->rt->shared[victim].ring, &w->sh->ring, steal_max,
					    &t, &why);
	if (!k)
		return NULL;
	w->st.steals++;
	w->st.tasks_stolen += k;
	return t;
}

/* Exploring: the first violation of the run, for volt_check_idle. */
static void ring_violation(struct worker *w, uint32_t victim, const char *act, uint32_t slot,
			   const char *what)
{
	struct volt *v = V(w->rt);
	if (!v->ring_why[0])
		snprintf(v->ring_why, sizeof v->ring_why, "worker %u's steal from worker %u %s slot %u, %s",
			 w->index, victim, act, slot & RING_MASK, what);
}

/*
 * Exploring: do the claimed slots of src hold tasks? Every slot below a
 * ring's published tail does (a push writes the slot before its release
 * store of the tail; a steal copies into the thief's ring before it
 * publishes), and the claim's acquire load of the tail is what lets a
 * thief copy them at once, as it does on threads. A poisoned one was
 * published before it was written: the thief would take no task, or an
 * old one.
 */
static bool steal_slots_hold_tasks(struct worker *w, uint32_t victim, const struct ring *src,
				   const struct ring_steal *st, const char *act)
{
	for (uint32_t i = 0; i < st->k; i++) {
		if (src->buf[(st->real + i) & RING_MASK] == &slot_poison) {
			ring_violation(w, victim, act, st->real + i,
				       "which holds no task (published before it was written)");
			return false;
		}
	}
	return true;
}

/*
 * Exploring, before the copy: are the claimed slots still what was
 * claimed? A push that reused one (the claim released before the copy)
 * would hand the thief a task its owner runs too, and lose the claimed
 * one.
 */
static bool steal_copy_checked(struct worker *w, struct ring *src, const struct ring_steal *st)
{
	uint32_t victim = VW(w)->steal_victim;
	if (ring_steal_overwritten(src, st)) {
		ring_violation(w, victim, "copies", st->real,
			       "which its owner's push has reused since the claim (the task "
			       "claimed there is lost, the new one would run twice)");
		return false;
	}
	return steal_slots_hold_tasks(w, victim, src, st, "copies");
}

/*
 * The next phase of the steal under way, in vw->steal_order: the stolen
 * task to run once the last phase is done, FIND_WORK_BUSY before that
 * (and when the copy saw a violation: the steal is dropped, and the
 * engine stops the run after the step).
 */
static struct task *steal_phase(struct worker *w)
{
	struct volt_worker *vw = VW(w);
	struct ring *src = &w->rt->shared[vw->steal_victim].ring, *dst = &w->sh->ring;
	const struct ring_steal *st = &vw->steal_st;
	switch (vw->steal_order[vw->steal_next]) {
	case PH_COPY:
		if (vw->steal_split && !steal_copy_checked(w, src, st)) {
			vw->steal_next = 0;
			return FIND_WORK_BUSY;
		}
		vw->steal_first = ring_steal_copy_oldest(src, dst, st);
		if (vw->steal_split)	/* taken: poisoned until a push reuses them */
			for (uint32_t i = 0; i < st->k; i++)
				src->buf[(st->real + i) & RING_MASK] = &slot_poison;
		break;
	case PH_RELEASE:
		ring_steal_release(src, st);
		break;
	case PH_PUBLISH:
		ring_steal_publish(dst, st);
		break;
	default:
		CHECK(!"a steal phase");
	}
	if (++vw->steal_next < PH_N)
		return FIND_WORK_BUSY;
	vw->steal_next = 0;
	w->st.steals++;
	w->st.tasks_stolen += st->k;
	return vw->steal_first;
}

/*
 * steal_from as its phases, in vw->steal_order: the claim here (a failed
 * claim is the whole attempt), then the rest at once, or, split, one per
 * step (the thief's next find_work goes on with steal_phase): then this
 * returns FIND_WORK_BUSY, and the victim loop returns it as it would a
 * task. Exploring, the claimed slots must hold tasks, and the slots the
 * steal will fill in the thief's ring are poisoned until its copy, so that
 * a thief of the thief that claims or copies them first sees it.
 */
static struct task *steal_from_phased(struct worker *w, uint32_t victim, uint32_t steal_max)
{
	struct volt_worker *vw = VW(w);
	struct ring *src = &w->rt->shared[victim].ring, *dst = &w->sh->ring;
	enum steal_outcome why;
	w->st.steal_attempts++;
	if (!ring_steal_claim_once(src, dst, steal_max, &vw->steal_st, &why))
		return NULL;
	vw->steal_victim = victim;
	vw->steal_first = NULL;
	/* steal_order[0] is the claim. The thief stays a searcher
	 * (steal_begin) until it has the stolen task, so find_work's fast
	 * path, which would pop its own ring, is not taken meanwhile. */
	vw->steal_next = 1;
	if (vw->steal_split) {
		if (!steal_slots_hold_tasks(w, victim, src, &vw->steal_st, "claims")) {
			vw->steal_next = 0;
			return FIND_WORK_BUSY;
		}
		for (uint32_t i = 0; i + 1 < vw->steal_st.k; i++)
			dst->buf[(vw->steal_st.dst_tail + i) & RING_MASK] = &slot_poison;
		return FIND_WORK_BUSY;
	}
	struct task *t;
	while ((t = steal_phase(w)) == FIND_WORK_BUSY)
		;
	return t;
}

/* Volt's victim loop: a random start, then every other worker once, each
 * with `from` (steal_from, or steal_from_phased). */
static inline __attribute__((always_inline)) struct task *
steal_with(struct worker *w, struct task *(*from)(struct worker *, uint32_t, uint32_t))
{
	if (!steal_begin(w))
		return NULL;
	uint32_t n = w->rt->nworkers, steal_max = V(w->rt)->steal_max;
	uint32_t start = rng_below(&w->rng, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t victim = start + i < n ? start + i : start + i - n;
		if (victim == w->index)
			continue;
		struct task *t = from(w, victim, steal_max);
		if (t)
			return t;
	}
	return NULL;
}

static struct task *steal(struct worker *w)
{
	return steal_with(w, steal_from);
}

static struct task *steal_phased(struct worker *w)
{
	return steal_with(w, steal_from_phased);
}

bool volt_steal_begin(struct worker *w)
{
	return steal_begin(w);
}

struct task *volt_steal_from(struct worker *w, uint32_t victim)
{
	if (__builtin_expect(VW(w)->steal_split, 0))
		return steal_from_phased(w, victim, V(w->rt)->steal_max);
	return steal_from(w, victim, V(w->rt)->steal_max);
}

void volt_set_steal(struct runtime *rt, volt_steal_fn fn, void *arg)
{
	V(rt)->steal_fn = fn;
	V(rt)->steal_arg = arg;
}

void *volt_steal_arg(const struct runtime *rt)
{
	return V(rt)->steal_arg;
}

/* The victim loop an extension set (volt_set_steal). */
static struct task *steal_hooked(struct worker *w)
{
	struct volt *v = V(w->rt);
	return v->steal_fn(w, v->steal_arg);
}

/* A searcher that found work stops searching; the last one wakes another
 * so that work arriving meanwhile still has someone looking for it. */
static void leave_searching(struct worker *w)
{
	w->searching = false;
	if (idle_leave_searching(&w->rt->idle) && !V(w->rt)->skip_last_searcher) {
		uint64_t before = w->st.notifies;
		notify(w->rt, w);
		w->st.last_searcher_notifies += w->st.notifies - before;
	}
}

/* Steps 1 (pre-fetched batch) and 3 to 5 of find_work, and the searcher
 * exit: out of line, so the common local pop stays small. One body for
 * volt's victim loop and an extension's: each instance below calls its
 * steal_fn directly. `phased` (a constant in each instance): the steal may
 * be split into steps (steal_from_phased), so a steal under way goes on
 * before anything else (a thread running the phases back to back does
 * nothing else between them), and FIND_WORK_BUSY goes back to the engine
 * as it is. */
static inline __attribute__((always_inline)) struct task *
find_work_slow_with(struct worker *w, struct task *(*steal_fn)(struct worker *), bool phased)
{
	struct volt_worker *vw = VW(w);
	struct task *t;

	if (phased && vw->steal_next) {
		if ((t = steal_phase(w)) == FIND_WORK_BUSY)
			return t;
		goto found;
	}
	if ((t = prefetch_pop(vw)) || (t = local_pop(w, vw, true)))
		goto found;
	if (vw->since_global >= vw->interval) {
		vw->since_global = 0;
		w->st.interval_checks++;
		if ((t = global_batch(w)))
			goto found;
	}
	if ((t = steal_fn(w))) {
		if (phased && t == FIND_WORK_BUSY)
			return t;
		goto found;
	}
	/* Scheduler.zig tryStealWithLimit: a searcher whose sweep found
	 * nothing pops one task under the global lock (nextRemoteTask);
	 * fallback_batch=1 goes on to a global batch at once. Only a worker
	 * that became a searcher gets there (w->searching: steal_begin
	 * passed); the others go on to findWork's final global batch. */
	if (w->searching && !V(w->rt)->fallback_batch && (t = global_pop_one(w)))
		goto found;
	if ((t = global_batch(w)))
		goto found;
	return NULL;
found:
	vw->since_global++;
	if (w->searching)
		leave_searching(w);
	return t;
}

static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	return find_work_slow_with(w, steal, false);
}

static __attribute__((noinline)) struct task *find_work_slow_hooked(struct worker *w)
{
	return find_work_slow_with(w, steal_hooked, false);
}

/* The instances whose steal goes in phases: volt's and an extension's
 * while exploring, the test-only ring variants' always. */
static __attribute__((noinline)) struct task *find_work_slow_phased(struct worker *w)
{
	return find_work_slow_with(w, steal_phased, true);
}

static __attribute__((noinline)) struct task *find_work_slow_hooked_phased(struct worker *w)
{
	return find_work_slow_with(w, steal_hooked, true);
}

static inline __attribute__((always_inline)) struct task *
find_work_with(struct worker *w, struct task *(*slow)(struct worker *))
{
	struct volt_worker *vw = VW(w);
	/* Fast path, steps 2 only: nothing pre-fetched, not searching, and the
	 * LIFO slot or the ring has a task. */
	if (__builtin_expect(vw->pf_len == 0 && !w->searching, 1)) {
		struct task *t = local_pop(w, vw, true);
		if (t) {
			vw->since_global++;
			return t;
		}
	}
	return slow(w);
}

static struct task *volt_find_work(struct worker *w)
{
	if (__builtin_expect(VW(w)->steal_split, 0))
		return find_work_with(w, find_work_slow_phased);
	return find_work_with(w, find_work_slow);
}

/*
 * The threads engine's tick (policy.h, step): worker_step_with's loop with
 * find_work_with inlined and its fast path's guard hoisted. Nothing a poll
 * does moves the guard (pf_len and searching change only in find_work's
 * slow path and in the park sequence), so it is tested once per run of
 * local pops, and since_global and the ring pops, which nothing reads
 * while tasks run, are counted once per run: the same values at every
 * point where find_work or anyone else reads them. The simulator steps
 * through volt_find_work, which counts each poll.
 *
 * A run of local pops is local_pop in two phases: until a task is found
 * in the slot with the cap reached (the tick's first lifo_cap slot polls
 * are LIFO polls), then from there on, where every slot task is flushed
 * into the ring before the ring's head is popped. Only local_pop moves
 * lifo_polls, so once the cap is reached it stays reached until the tick
 * ends: the second phase, most of a tick under fork-join, has no cap test.
 * The cap is tested only when the slot holds a task, as in local_pop. The
 * budget counts down.
 */
static inline __attribute__((always_inline)) enum step
step_with(struct worker *w, uint64_t *park_timeout_ns, struct task *(*slow)(struct worker *))
{
	if (rt_finished(w->rt))
		return STEP_EXIT;
	if (__builtin_expect(w->tracing, 0))
		return worker_step_traced(w, park_timeout_ns);
	worker_tick_open(w);
	struct volt_worker *vw = VW(w);
	uint32_t left = w->tick_budget;
	while (left) {
		struct task *t;
		if (__builtin_expect(vw->pf_len == 0 && !w->searching, 1)) {
			uint32_t left0 = left, lifo0 = vw->lifo_polls;
			struct ring *r = &w->sh->ring;
			for (;;) {
				if ((t = w->lifo)) {
					if (vw->lifo_polls >= vw->lifo_cap)
						break;
					w->lifo = NULL;
					lifo_mark(w, false);
					vw->lifo_polls++;
					w->st.lifo_polls++;
				} else if (!(t = ring_pop(r))) {
					goto run_done;
				}
				run_task(w, t);
				if (--left == 0)
					goto run_done;
			}
			for (;;) {
				if ((t = w->lifo)) {
					/* Cap reached: the slot's task joins the
					 * ring's FIFO order (and becomes stealable)
					 * instead of being skipped. */
					w->lifo = NULL;
					lifo_mark(w, false);
					t = push_pop_local(w, r, t);
				} else {
					t = ring_pop(r);
				}
				if (!t)
					break;
				run_task(w, t);
				if (--left == 0)
					break;
			}
		run_done:;
			uint32_t n = left0 - left;
			vw->since_global += n;
			w->st.local_pops += n - (vw->lifo_polls - lifo0);
			if (left == 0)
				break;
		}
		if (!(t = slow(w)))
			break;
		run_task(w, t);
		left--;
	}
	uint32_t polls = w->tick_budget - left;
	w->tick_polls = polls;
	w->st.polls += polls;
	return worker_tick_close(w, park_timeout_ns);
}

static enum step volt_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return step_with(w, park_timeout_ns, find_work_slow);
}

struct task *volt_find_work_hooked(struct worker *w)
{
	if (__builtin_expect(VW(w)->steal_split, 0))
		return find_work_with(w, find_work_slow_hooked_phased);
	return find_work_with(w, find_work_slow_hooked);
}

/* The test-only ring variants: every steal in phases, in their order. */
static struct task *volt_find_work_phased(struct worker *w)
{
	return find_work_with(w, find_work_slow_phased);
}

static enum step volt_step_phased(struct worker *w, uint64_t *park_timeout_ns)
{
	return step_with(w, park_timeout_ns, find_work_slow_phased);
}

enum step volt_step_hooked(struct worker *w, uint64_t *park_timeout_ns)
{
	return step_with(w, park_timeout_ns, find_work_slow_hooked);
}

/* Scheduler.zig notifyIfWorkPending: any worker's LIFO slot occupied or
 * ring non-empty, or the global queue non-empty. The slots are not
 * stealable: a worker woken for one finds nothing unless its owner parks
 * and flushes it (as Volt's code does). */
static bool any_queue_nonempty(struct runtime *rt)
{
	if (inject_len(&rt->inject))
		return true;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		/* Relaxed: see lifo_mark. */
		if (atomic_load_explicit(&rt->shared[i].lifo_occupied, memory_order_relaxed) ||
		    !ring_is_empty(&rt->shared[i].ring))
			return true;
	return false;
}

bool volt_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct volt_worker *vw = VW(w);

	/* Relaxed: read by this thread (schedule_local) and by stall
	 * reports, which only show it. */
	atomic_store_explicit(&w->sh->transitioning_to_park, true, memory_order_relaxed);
	lifo_take_set(vw, true);
	/* Make everything we hold stealable before we sleep on it. */
	if (w->lifo) {
		struct task *t = w->lifo;
		w->lifo = NULL;
		lifo_mark(w, false);
		w->st.local_pushes++;
		push_local(w, t);
	}
	struct task *t;
	while ((t = prefetch_pop(vw))) {
		w->st.local_pushes++;
		push_local(w, t);
	}
	if (!ring_is_empty(&w->sh->ring) || inject_len(&rt->inject)) {
		park_sequence_end(w);
		return false;
	}

	if (V(rt)->wake_stack) {
		/* Relaxed: the seq_cst RMW of idle_mark_parked publishes it. */
		uint64_t now = atomic_fetch_add_explicit(&V(rt)->park_clock, 1, memory_order_relaxed);
		atomic_store_explicit(&V(rt)->park_stamp[w->index], now + 1, memory_order_relaxed);
	}
	bool last = idle_mark_parked(&rt->idle, w->index, w->searching);
	w->searching = false;
	if (!V(rt)->skip_last_searcher) {
		/*
		 * Dekker with publishers (idle.h). The last searcher looks once
		 * more: publishers may have seen it searching and stayed quiet.
		 * So does a worker that parks while nobody searches at all (one
		 * worker, or stealing off, where nobody ever becomes a
		 * searcher): a publisher that missed our parked bit relies on
		 * us seeing its task, since no searcher will.
		 */
		idle_fence_recheck();
		if ((last || atomic_load_explicit(&rt->idle.num_searching, memory_order_seq_cst) == 0) &&
		    any_queue_nonempty(rt))
			notify(rt, w);
	}
	*timeout_ns = V(rt)->park_ns;
	return true;
}

void volt_unparked(struct worker *w, enum park_wake how)
{
	park_sequence_end(w);
	rt_idle_unparked(w, how);
}

/* --explore: a ring violation a phased steal saw, else the global-queue
 * invariant of the idle protocol (rt_idle_check_global). */
const char *volt_check_idle(struct runtime *rt)
{
	struct volt *v = V(rt);
	if (v->ring_why[0])
		return v->ring_why;
	return rt_idle_check_global(rt);
}

void volt_dump(struct runtime *rt, FILE *f)
{
	struct volt *v = V(rt);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct volt_worker *vw = &v->vw[i];
		fprintf(f, "  volt worker %u: interval %u, avg poll %llu ns, prefetched %u, %s\n", i,
			vw->interval, (unsigned long long)vw->avg_ns, vw->pf_len,
			rt->workers[i].searching ? "searching" : "not searching");
	}
}

/* The broken variant: volt whose last searcher neither wakes another
 * worker when it finds work nor re-checks the queues before it sleeps. */
static int volt_broken_init(struct runtime *rt)
{
	int rc = volt_init(rt);
	if (rc == 0)
		V(rt)->skip_last_searcher = true;
	return rc;
}

const struct policy policy_volt = {
	.name = "volt",
	.summary = "Volt as its code (Scheduler.zig) runs: LIFO slot capped at 3 polls/tick, "
		   "adaptive EWMA global interval, half-steal, bitmap wake; a global batch's "
		   "surplus goes to the ring, local pushes wake nobody",
	.knobs = volt_knobs,
	.nknobs = VOLT_NKNOBS,
	.knob_names = volt_names,
	.check = volt_check,
	.init = volt_init,
	.destroy = volt_destroy,
	.schedule_local = volt_schedule_local,
	.schedule_remote = volt_schedule_remote,
	.tick_begin = volt_tick_begin,
	.find_work = volt_find_work,
	.step = volt_step,
	.tick_end = volt_tick_end,
	.park = volt_park,
	.unparked = volt_unparked,
	.check_idle = volt_check_idle,
	.dump = volt_dump,
};

/*
 * Kept for tests: a lost-wakeup bug on purpose. The last searcher skips the
 * notify, so work published while it searched can sit queued while every
 * other worker sleeps (parks have no timeout by default, so the stall is
 * permanent and the watchdog must report it).
 */
const struct policy policy_volt_broken = {
	.name = "volt-broken",
	.summary = "volt whose last searcher skips the notify (a lost-wakeup bug on purpose)",
	.test_only = true,
	.knobs = volt_broken_knobs,
	.nknobs = VOLT_NKNOBS,
	.knob_names = volt_names,
	.check = volt_check,
	.init = volt_broken_init,
	.destroy = volt_destroy,
	.schedule_local = volt_schedule_local,
	.schedule_remote = volt_schedule_remote,
	.tick_begin = volt_tick_begin,
	.find_work = volt_find_work,
	.step = volt_step,
	.tick_end = volt_tick_end,
	.park = volt_park,
	.unparked = volt_unparked,
	.check_idle = volt_check_idle,
	.dump = volt_dump,
};

/*
 * Kept for tests: Volt's timeout path as its code has it (Scheduler.zig
 * parkWorker, after park_state.park returns: isWorkerParked, then on a set
 * bit parked_bitmap.fetchAnd and num_parked.fetchSub, the previous value
 * unchecked). A claimer that clears the bit between the test and the clear
 * has already decremented num_parked for this worker and counted it as a
 * searcher: the worker's own decrement makes the count drift (or wrap), and
 * num_searching stays one too high, so no publisher wakes anybody again.
 *
 * The test is the unparked hook; the clear and the decrement come first in
 * the worker's next step (tick_begin, before the timer and I/O polls, which
 * this variant therefore does itself: own_maintenance, the core's order).
 * On threads that follows at once, so the window is the few instructions it
 * is in Volt's code; the simulation engine, exploring, makes the wake path
 * a step of its own, so other workers' steps can fall in between
 * (docs/sim.md).
 */
static void timeout_race_unparked(struct worker *w, enum park_wake how)
{
	park_sequence_end(w);
	if (!idle_is_parked(&w->rt->idle, w->index)) {
		/* Bit clear: claimed; the claimer counted us as a searcher. */
		w->searching = true;
		w->st.unparks_notify++;
		return;
	}
	VW(w)->timeout_pending = true;
	if (how == PARK_TIMEOUT)
		w->st.unparks_timeout++;
	else
		w->st.unparks_spurious++;
}

static uint32_t timeout_race_tick_begin(struct worker *w)
{
	struct volt_worker *vw = VW(w);
	if (vw->timeout_pending) {
		vw->timeout_pending = false;
		struct idle *s = &w->rt->idle;
		uint64_t mask = (uint64_t)1 << w->index;
		/* The defect: neither previous value is looked at (the fixed
		 * path is idle_wake_was_claim). */
		atomic_fetch_and_explicit(&s->parked_bitmap, ~mask, memory_order_seq_cst);
		atomic_fetch_sub_explicit(&s->num_parked, 1, memory_order_seq_cst);
	}
	if (w->index == 0)
		rt_poll_timers(w);
	rt_poll_io(w);
	return volt_tick_begin(w);
}

/* volt_park, and worker 0 sleeps no longer than the next event (what the
 * core does for a policy without own_maintenance). */
static bool timeout_race_park(struct worker *w, uint64_t *timeout_ns)
{
	if (!volt_park(w, timeout_ns))
		return false;
	if (w->index == 0)
		rt_cap_to_next_event(w, timeout_ns);
	return true;
}

const struct policy policy_volt_timeout_race = {
	.name = "volt-timeout-race",
	.summary = "volt whose timeout path tests its parked bit, then clears it and decrements "
		   "the parked count unchecked (Volt's code: a claim in between wraps the count)",
	.test_only = true,
	.own_maintenance = true,
	.knobs = timeout_race_knobs,
	.nknobs = VOLT_NKNOBS,
	.knob_names = volt_names,
	.check = volt_check,
	.init = volt_init,
	.destroy = volt_destroy,
	.schedule_local = volt_schedule_local,
	.schedule_remote = volt_schedule_remote,
	.tick_begin = timeout_race_tick_begin,
	.find_work = volt_find_work,
	.tick_end = volt_tick_end,
	.park = timeout_race_park,
	.unparked = timeout_race_unparked,
	.check_idle = volt_check_idle,
	.dump = volt_dump,
};

/* Single-mechanism variants: volt's ops and knobs, one default changed, so
 * that a difference in a result belongs to that one mechanism. */
#define VOLT_VARIANT_OPS                                                                     \
	.nknobs = VOLT_NKNOBS, .knob_names = volt_names, .check = volt_check,                 \
	.init = volt_init,                                                                   \
	.destroy = volt_destroy, .schedule_local = volt_schedule_local,                      \
	.schedule_remote = volt_schedule_remote, .tick_begin = volt_tick_begin,              \
	.find_work = volt_find_work, .step = volt_step, .tick_end = volt_tick_end,           \
	.park = volt_park,                                                                   \
	.unparked = volt_unparked, .check_idle = volt_check_idle, .dump = volt_dump

const struct policy policy_fixed_interval_61 = {
	.name = "fixed-interval-61",
	.summary = "volt with a fixed global-queue interval of 61 (interval=61), nothing else "
		   "changed: volt checks the global queue only with the LIFO slot and ring "
		   "empty, so this decides only whether such a worker pulls it before or "
		   "after stealing (not Tokio's or Go's fairness tick)",
	.knobs = fixed61_knobs,
	VOLT_VARIANT_OPS,
};

const struct policy policy_steal_one = {
	.name = "steal-one",
	.summary = "volt whose steals move one task (steal_max=1), nothing else changed",
	.knobs = steal_one_knobs,
	VOLT_VARIANT_OPS,
};

/*
 * Kept for tests: two broken orders of a steal's phases (tests/test_ring.c
 * runs every schedule of them; docs/reliability.md). Every steal runs its
 * phases in the variant's order; exploring, one phase per simulated step,
 * where volt_check_idle reports what a claim or a copy finds wrong.
 */
static int volt_ring_order_init(struct runtime *rt, const uint8_t *order)
{
	int rc = volt_init(rt);
	if (rc == 0)
		for (uint32_t i = 0; i < rt->nworkers; i++)
			V(rt)->vw[i].steal_order = order;
	return rc;
}

static int early_release_init(struct runtime *rt)
{
	return volt_ring_order_init(rt, order_early_release);
}

static int early_publish_init(struct runtime *rt)
{
	return volt_ring_order_init(rt, order_early_publish);
}

#define VOLT_RING_VARIANT_OPS                                                                \
	.test_only = true, .knobs = volt_knobs, .nknobs = VOLT_NKNOBS,                       \
	.knob_names = volt_names, .check = volt_check, .destroy = volt_destroy,              \
	.schedule_local = volt_schedule_local, .schedule_remote = volt_schedule_remote,      \
	.tick_begin = volt_tick_begin, .find_work = volt_find_work_phased,                   \
	.step = volt_step_phased, .tick_end = volt_tick_end, .park = volt_park,              \
	.unparked = volt_unparked, .check_idle = volt_check_idle, .dump = volt_dump

const struct policy policy_volt_ring_early_release = {
	.name = "volt-ring-early-release",
	.summary = "volt whose steal releases the claimed ring slots before copying them out "
		   "(a lost and a doubled task on purpose)",
	.init = early_release_init,
	VOLT_RING_VARIANT_OPS,
};

const struct policy policy_volt_ring_early_publish = {
	.name = "volt-ring-early-publish",
	.summary = "volt whose steal publishes the thief's tail before copying the tasks into "
		   "its ring (unwritten slots stealable on purpose)",
	.init = early_publish_init,
	VOLT_RING_VARIANT_OPS,
};
