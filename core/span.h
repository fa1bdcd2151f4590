/*
 * span.h - the span T_inf of the task graph a simulated run executed, under
 * the run's own cost model (docs/sim.md, "The span").
 *
 * Every poll is a node of the graph. A poll of task t starts at t's ready
 * time (0 for a task no poll made: a root injected from outside, a placed
 * task) and is charged its own work only: the cost table's `poll` (plus
 * the policy's `poll.NAME` and the workload's `work.NAME` where it is
 * charged per poll), `spawn` (plus `work.NAME` where it is charged per
 * spawn) for each task it spawns, and the compute it declares. What a
 * schedule adds (pushes, pops, steals, the global queue, parks, the cache
 * model's migrations) is left out, so that the figure is the graph's, the
 * same for every policy and worker count that runs the same graph.
 *
 * Edges:
 *  - spawn: a child is ready at the parent poll's time at its spawn: the
 *    poll's start, its own charge, the charges of its spawns so far (this
 *    one's included) and the compute it declared before, as the sim's time
 *    within a step makes the child runnable then (docs/sim.md);
 *  - join: a child that completes arrives at its continuation (task.cont,
 *    as the cache model takes it, core/touch.h) at its finish, and the
 *    continuation's next poll is ready at the latest of its own previous
 *    poll's finish and its children's arrivals;
 *  - wake and re-poll: a task handed back to the policy during a poll is
 *    ready no earlier than the waker's time then.
 *
 * T_inf is the earliest time the run could end: the latest of the finish
 * of a poll that completes a root (a task without a continuation) and of
 * the one that calls rt_finish, whose charges all come before the call, as
 * the sim's time within a step puts rt->end_ns after them. A run of several roots (imbalanced's
 * partitions) ends once all are done, whatever counter tells it so. So
 * T_P >= T_inf for a causal schedule.
 *
 * The sim engine keeps one span_graph per engine and turns it on for a run
 * (span_start) unless `--set cost.span=0` turns the recording off;
 * worker_step_poll, the sim's per-poll step, brackets each poll with
 * span_poll_begin and span_poll_end; spawns and wakes are noted
 * (span_note) by the sim's own sched_local wrapper, the one that stamps
 * their ready time (engine_sim.c sim_sched_local), so that a task handed
 * to the policy goes through one wrapper, not two. The threads engine and
 * struct task are untouched: the ready times live in shadow arrays beside
 * the tasks' memory, a word per 64-byte granule (span.c), cleared when its
 * task completes (its block may be a new task's next).
 */
#ifndef HARNESS_CORE_SPAN_H
#define HARNESS_CORE_SPAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"

/* A 2 MiB region of the address space holding tasks, and its shadow: one
 * ready time (virtual ns from the run's start) per 64-byte granule. */
struct span_region {
	uint64_t region;	/* address >> 21 */
	uint64_t *shadow;	/* NULL: an empty slot */
};

/* The poll in progress on one worker. */
struct span_poll {
	uint64_t start, compute0, spawns0;
	bool on;
};

struct span_graph {
	struct span_region *regions;
	uint64_t cap, count;		/* cap a power of 2, count <= cap / 2 */
	uint64_t last_region;		/* the region used last, and its shadow */
	uint64_t *last_shadow;
	uint32_t nworkers;
	struct span_poll *poll;		/* [nworkers] */
	uint64_t per_poll, per_spawn;	/* each poll's and each spawn's charge */
	uint64_t end;			/* T_inf, once ended */
	bool ended;
	bool failed;			/* out of memory: no figure */
};

/* A graph for nworkers workers, off until span_start; NULL without memory. */
struct span_graph *span_create(uint32_t nworkers);
void span_destroy(struct span_graph *g);
/*
 * Turn the graph on for a run of rt (before its first step): an empty
 * table, rt->span set (the sim engine clears it after the run). per_poll and per_spawn are the charges
 * above (modulo 2^64: a negative poll.NAME is stored two's complement, and
 * a poll's whole charge is never negative).
 */
void span_start(struct span_graph *g, struct runtime *rt, uint64_t per_poll, uint64_t per_spawn);
/* After the run: T_inf into *out; false if the run did not end by a poll's
 * rt_finish (aborted, stalled) or the table ran out of memory. */
bool span_result(const struct span_graph *g, uint64_t *out);

/* The shadow of a region, made on first use (span.c); NULL without memory. */
uint64_t *span_shadow_slow(struct span_graph *g, uint64_t region);

#define SPAN_REGION_SHIFT 21	/* 2 MiB, a task pool's slab */
#define SPAN_GRANULE_SHIFT 6	/* 64 bytes, a pool block */
#define SPAN_REGION_WORDS (1u << (SPAN_REGION_SHIFT - SPAN_GRANULE_SHIFT))

/* t's word, NULL without memory (the graph then fails: no figure). */
static inline uint64_t *span_word(struct span_graph *g, const struct task *t)
{
	uint64_t a = (uint64_t)(uintptr_t)t, region = a >> SPAN_REGION_SHIFT;
	uint64_t *shadow = region == g->last_region && g->last_shadow ? g->last_shadow
								     : span_shadow_slow(g, region);
	if (__builtin_expect(!shadow, 0)) {
		g->failed = true;
		return NULL;
	}
	return &shadow[a >> SPAN_GRANULE_SHIFT & (SPAN_REGION_WORDS - 1)];
}

static inline uint64_t span_get(struct span_graph *g, const struct task *t)
{
	uint64_t *w = span_word(g, t);
	return w ? *w : 0;
}

/* t's ready time becomes `at`, or the later of it and the one it has. */
static inline void span_put(struct span_graph *g, const struct task *t, uint64_t at, bool later)
{
	uint64_t *w = span_word(g, t);
	if (w)
		*w = later && *w > at ? *w : at;
}

/*
 * Around one poll of t on w (worker_step_poll), inline there: `parent` is
 * t->cont read before the poll, `done` whether the poll completed t (t may
 * be freed).
 */
static inline void span_poll_begin(struct span_graph *g, struct worker *w, struct task *t)
{
	struct span_poll *p = &g->poll[w->index];
	p->start = span_get(g, t);
	p->compute0 = w->compute_ns;
	p->spawns0 = w->st.spawns;
	p->on = true;
}

/* The time within w's poll in progress: its start, its own charge, its
 * spawns' so far and the compute it declared so far. */
static inline uint64_t span_now(const struct span_graph *g, const struct span_poll *p,
				const struct worker *w)
{
	return p->start + g->per_poll + (w->st.spawns - p->spawns0) * g->per_spawn +
	       (w->compute_ns - p->compute0);
}

/* A task handed to the policy by w (a spawn, a wake, a re-schedule: the
 * sim's sched_local): its ready time, if a poll is in progress there, is
 * the time within that poll; a spawn's is set, a wake's the later of it
 * and the one it has (its other children's arrivals). */
static inline void span_note(struct span_graph *g, struct worker *w, struct task *t,
			     enum sched_kind kind)
{
	const struct span_poll *p = &g->poll[w->index];
	if (p->on)
		span_put(g, t, span_now(g, p, w), kind != SCHED_SPAWN);
}

static inline void span_poll_end(struct span_graph *g, struct worker *w, struct task *t,
				 struct task *parent, bool done)
{
	struct span_poll *p = &g->poll[w->index];
	uint64_t finish = span_now(g, p, w);
	p->on = false;
	/* The run ends once every root is done: the poll that completes a
	 * root (a task without a continuation), and the one that calls
	 * rt_finish, at its finish (above). Relaxed: the sim runs every
	 * worker on this one thread. */
	bool finishing = !g->ended &&
			 atomic_load_explicit(&w->rt->finished, memory_order_relaxed) == RT_FINISHED;
	if (finishing || (done && !parent)) {
		g->end = finish > g->end ? finish : g->end;
		g->ended |= finishing;
	}
	if (g->failed)
		return;
	if (done) {
		uint64_t *slot = span_word(g, t);	/* the address only: t may be freed */
		if (slot)
			*slot = 0;
		if (parent)
			span_put(g, parent, finish, true);
	} else {
		span_put(g, t, finish, true);
	}
}

#endif
