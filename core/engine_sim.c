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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "engine.h"
#include "rng.h"
#include "runtime.h"
#include "policies/policy.h"

enum { W_RUNNABLE, W_PARKED, W_EXITED };

struct sim_worker {
	uint64_t clock;			/* virtual ns */
	uint32_t state;
	uint32_t gen;			/* invalidates stale heap entries */
	bool permit;			/* an unpark arrived while not parked */
	bool timed;			/* parked with a timeout */
	bool woken;			/* unparked; told so when next dispatched */
	struct worker_stats last;	/* counters at the last charge */
};

struct sim_event {
	uint64_t time, tie;
	uint32_t id, gen;
};

struct sim_engine {
	struct engine base;
	uint32_t n;
	struct sim_costs costs;
	struct sim_worker *w;
	struct sim_event *heap;
	size_t len, cap;
	struct rng rng;
	uint64_t now;			/* the clock of the worker being stepped */
	uint64_t lock_free_at;		/* the global-queue lock, as a resource */
	struct runtime *rt;
	uint64_t steps;
	/* --explore: a seed perturbing tie-breaks and step costs (0: none) */
	uint64_t seed;
};

static inline bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->tie < b->tie);
}

static void heap_push(struct sim_engine *s, uint32_t id, uint64_t time)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->heap = realloc(s->heap, s->cap * sizeof *s->heap);
		CHECK_MSG(s->heap, "out of memory for simulation events");
	}
	struct sim_event e = { time, rng_next(&s->rng) | ((uint64_t)rng_next(&s->rng) << 32), id,
			       s->w[id].gen };
	size_t i = s->len++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_before(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct sim_event heap_pop(struct sim_engine *s)
{
	struct sim_event top = s->heap[0], last = s->heap[--s->len];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->len)
			break;
		if (c + 1 < s->len && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->len)
		s->heap[i] = last;
	return top;
}

static uint64_t sim_now(struct engine *e, struct worker *w)
{
	struct sim_engine *s = (struct sim_engine *)e;
	return w ? s->w[w->index].clock : s->now;
}

static void sim_compute(struct engine *e, struct worker *w, uint64_t ns)
{
	struct sim_engine *s = (struct sim_engine *)e;
	s->w[w->index].clock += ns;
	s->now = s->w[w->index].clock;
}

/* Make a parked worker runnable at the waker's time plus the wake latency. */
static void sim_unpark(struct engine *e, uint32_t id)
{
	struct sim_engine *s = (struct sim_engine *)e;
	struct sim_worker *sw = &s->w[id];
	if (sw->state != W_PARKED) {
		if (sw->state == W_RUNNABLE)
			sw->permit = true;
		return;
	}
	if (sw->woken)
		return;		/* already on its way */
	uint64_t at = s->now + s->costs.wake_latency;
	sw->clock = at > sw->clock ? at : sw->clock;
	sw->woken = true;
	sw->gen++;
	heap_push(s, id, sw->clock);
}

/* Take the global-queue lock `n` times at the worker's clock: wait while
 * another holds it, then hold it for the modeled time. */
static uint64_t lock_cost(struct sim_engine *s, uint64_t clock, uint64_t n)
{
	uint64_t t = clock;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t start = t > s->lock_free_at ? t : s->lock_free_at;
		t = start + s->costs.global_lock;
		s->lock_free_at = t;
	}
	return t - clock;
}

/*
 * Charge what the worker did since the last charge, from its counters. The
 * global lock is modeled at `start`, the clock when the step began: a step
 * takes it to find (or shed) work before the task it runs computes, so
 * placing the hold after the compute would block every other worker for
 * the length of a task.
 */
static bool charge(struct sim_engine *s, uint32_t id, uint64_t start)
{
	struct worker_stats *now = &s->rt->workers[id].st, *was = &s->w[id].last;
	const struct sim_costs *c = &s->costs;
#define D(f) (now->f - was->f)
	uint64_t cost = D(polls) * c->poll + D(spawns) * c->spawn +
			D(local_pushes) * c->local_push + D(local_pops) * c->local_pop +
			(D(lifo_polls) + D(runnext_polls)) * c->lifo +
			(D(global_tasks) + D(overflow_tasks)) * c->global_task +
			D(steal_attempts) * c->steal_attempt + D(tasks_stolen) * c->steal_task +
			D(notifies) * c->notify + D(parks) * c->park;
	uint64_t locks = D(global_batches) + D(overflows);
	bool progressed = D(completions) != 0;
#undef D
	struct sim_worker *sw = &s->w[id];
	if (s->seed) {
		/* Exploring: stretch or shrink each step by a seeded factor in
		 * [0.5, 1.5) so that other seeds reach other interleavings, not
		 * only other tie-breaks. */
		cost = cost / 2 + (uint64_t)(((unsigned __int128)cost * rng_next(&s->rng)) >> 32);
	}
	sw->clock += cost;
	if (locks)
		sw->clock += lock_cost(s, start, locks);
	*was = *now;
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

static int sim_run(struct engine *e, struct runtime *rt,
		   void (*start)(struct runtime *rt, void *arg), void *arg)
{
	struct sim_engine *s = (struct sim_engine *)e;
	CHECK(rt->nworkers == s->n);
	s->rt = rt;
	s->len = 0;
	s->now = 0;
	s->lock_free_at = 0;
	s->steps = 0;
	rng_seed(&s->rng, rt->cfg.seed ^ s->seed, 0x73696dull);
	memset(s->w, 0, s->n * sizeof *s->w);

	if (rt->place)
		rt->place(rt, rt->place_arg);
	rt->started = true;
	for (uint32_t i = 0; i < s->n; i++)
		heap_push(s, i, 0);
	rt->start_ns = 0;
	start(rt, arg);

	uint64_t watchdog = rt->cfg.watchdog_ns, since = 0;
	int rc = 0;
	for (;;) {
		/*
		 * I/O is delivered at its due time, as a device interrupt would:
		 * before stepping any worker past it, and even while every
		 * worker sleeps. (The threads engine has no spare core for that
		 * and delivers through the workers' own I/O poll; see
		 * docs/sim.md.)
		 */
		uint64_t next_step = s->len ? s->heap[0].time : TIMER_NONE;
		if (rt->io_next && !rt_finished(rt)) {
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
		if (!s->len)
			break;
		struct sim_event ev = heap_pop(s);
		struct sim_worker *sw = &s->w[ev.id];
		if (ev.gen != sw->gen || sw->state == W_EXITED)
			continue;	/* stale: the worker was woken meanwhile */
		struct worker *w = &rt->workers[ev.id];
		if (sw->state == W_PARKED) {
			/* Woken by an unpark, or its park timed out. */
			sw->clock = ev.time > sw->clock ? ev.time : sw->clock;
			sw->state = W_RUNNABLE;
			s->now = sw->clock;
			worker_unparked(w, sw->woken ? PARK_WOKEN : PARK_TIMEOUT);
			sw->woken = false;
		}
		s->now = sw->clock;
		uint64_t t_step = sw->clock, timeout = 0;
		enum step st = worker_step_poll(w, &timeout);
		s->steps++;
		bool progressed = charge(s, ev.id, t_step);
		if (rt->cfg.explore && rt->policy->check_idle && !rt_finished(rt)) {
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
			continue;
		case STEP_IDLE:
			sw->clock += s->costs.idle_step;
			break;
		case STEP_PARK:
			if (sw->permit) {
				sw->permit = false;
				worker_unparked(w, PARK_WOKEN);
				break;
			}
			sw->state = W_PARKED;
			sw->gen++;
			sw->timed = timeout != PARK_FOREVER;
			if (sw->timed)
				heap_push(s, ev.id, sw->clock + timeout);
			if ((s->len == 0 || deadlocked(s)) &&
			    !(rt->io_next && rt->io_next(rt, rt->io_arg) != TIMER_NONE)) {
				if (!rt_finished(rt))
					rc = stall(s, rt);
				goto out;
			}
			continue;
		default:
			break;
		}
		if (watchdog) {
			if (progressed) {
				since = sw->clock;
			} else if (sw->clock > since + watchdog && !rt_finished(rt)) {
				rc = stall(s, rt);
				goto out;
			}
		}
		heap_push(s, ev.id, sw->clock);
	}
out:
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
	free(s->heap);
	free(s);
}

static const struct engine_ops sim_ops = {
	.name = "sim",
	.now = sim_now,
	.unpark = sim_unpark,
	.compute = sim_compute,
	.run = sim_run,
	.finish = sim_finish,
	.destroy = sim_destroy,
};

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
	s->w = calloc(nworkers, sizeof *s->w);
	if (!s->w) {
		free(s);
		return NULL;
	}
	return &s->base;
}

uint64_t engine_sim_steps(const struct engine *e)
{
	return ((const struct sim_engine *)e)->steps;
}
