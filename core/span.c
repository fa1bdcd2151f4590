/*
 * span.c - the span of a simulated run's task graph (span.h).
 *
 * The ready times sit in an open-addressing table with linear probing, at
 * most half full, keyed by the task's address; a completed task's entry is
 * removed by shifting the entries after it back (no tombstones), so that
 * the table holds the live tasks only, however many a run makes. The sim
 * engine runs every worker on one thread, so nothing here is shared.
 */
#include "span.h"

#include <stdlib.h>
#include <string.h>

#define SPAN_CAP0 1024u

static inline uint64_t slot_of(const struct span_graph *g, const struct task *t)
{
	/* Fibonacci hashing of the block address (blocks are 64-byte aligned:
	 * the low bits carry nothing). */
	uint64_t h = ((uint64_t)(uintptr_t)t >> 6) * 0x9e3779b97f4a7c15ull;
	return h >> 32 & (g->cap - 1);
}

static struct span_entry *find(const struct span_graph *g, const struct task *t)
{
	for (uint64_t i = slot_of(g, t);; i = (i + 1) & (g->cap - 1)) {
		struct span_entry *e = &g->tab[i];
		if (e->key == t || !e->key)
			return e;
	}
}

static uint64_t get(const struct span_graph *g, const struct task *t)
{
	const struct span_entry *e = find(g, t);
	return e->key ? e->ready : 0;
}

static bool grow(struct span_graph *g)
{
	struct span_entry *old = g->tab;
	uint64_t ocap = g->cap;
	struct span_entry *tab = calloc(ocap * 2, sizeof *tab);
	if (!tab)
		return false;
	g->tab = tab;
	g->cap = ocap * 2;
	for (uint64_t i = 0; i < ocap; i++)
		if (old[i].key)
			*find(g, old[i].key) = old[i];
	free(old);
	return true;
}

/* t's ready time becomes `at`, or the later of it and the one it has. */
static void put(struct span_graph *g, const struct task *t, uint64_t at, bool later)
{
	if (g->failed)
		return;
	struct span_entry *e = find(g, t);
	if (e->key) {
		e->ready = later && e->ready > at ? e->ready : at;
		return;
	}
	if (2 * (g->count + 1) > g->cap) {
		if (!grow(g)) {
			g->failed = true;
			return;
		}
		e = find(g, t);
	}
	e->key = t;
	e->ready = at;
	g->count++;
}

/* Remove t's entry: the entries after it in its run move back into the
 * hole when their home slot does not lie between the hole and them. */
static void del(struct span_graph *g, const struct task *t)
{
	struct span_entry *e = find(g, t);
	if (!e->key)
		return;
	uint64_t mask = g->cap - 1, hole = (uint64_t)(e - g->tab);
	for (uint64_t j = (hole + 1) & mask; g->tab[j].key; j = (j + 1) & mask) {
		uint64_t home = slot_of(g, g->tab[j].key);
		/* Movable unless home lies cyclically in (hole, j]. */
		bool stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
		if (!stays) {
			g->tab[hole] = g->tab[j];
			hole = j;
		}
	}
	g->tab[hole].key = NULL;
	g->count--;
}

struct span_graph *span_create(uint32_t nworkers)
{
	struct span_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->nworkers = nworkers;
	g->poll = calloc(nworkers, sizeof *g->poll);
	g->inner = calloc(nworkers, sizeof *g->inner);
	if (!g->poll || !g->inner) {
		span_destroy(g);
		return NULL;
	}
	return g;
}

void span_destroy(struct span_graph *g)
{
	if (!g)
		return;
	free(g->tab);
	free(g->poll);
	free(g->inner);
	free(g);
}

/* A task handed to the policy by a worker (core/runtime.h): note its ready
 * time if a poll is in progress there, then hand it on. */
static void span_sched_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	struct span_graph *g = w->rt->span;
	const struct span_poll *p = &g->poll[w->index];
	if (p->on)
		put(g, t, p->start + (w->compute_ns - p->compute0), kind != SCHED_SPAWN);
	g->inner[w->index](w, t, kind);
}

void span_start(struct span_graph *g, struct runtime *rt, uint64_t per_poll, uint64_t per_spawn)
{
	free(g->tab);
	g->cap = SPAN_CAP0;
	g->count = 0;
	g->tab = calloc(g->cap, sizeof *g->tab);
	g->failed = !g->tab;
	if (g->failed)
		g->cap = 0;
	g->per_poll = per_poll;
	g->per_spawn = per_spawn;
	g->ended = false;
	g->end = 0;
	memset(g->poll, 0, g->nworkers * sizeof *g->poll);
	if (g->failed)
		return;
	rt->span = g;
	for (uint32_t i = 0; i < g->nworkers; i++) {
		g->inner[i] = rt->workers[i].sched_local;
		rt->workers[i].sched_local = span_sched_local;
	}
}

bool span_result(const struct span_graph *g, uint64_t *out)
{
	*out = g->end;
	return g->ended && !g->failed;
}

void span_poll_begin(struct span_graph *g, struct worker *w, struct task *t)
{
	struct span_poll *p = &g->poll[w->index];
	p->start = g->failed ? 0 : get(g, t);
	p->compute0 = w->compute_ns;
	p->spawns0 = w->st.spawns;
	p->on = true;
}

void span_poll_end(struct span_graph *g, struct worker *w, struct task *t, struct task *parent,
		   bool done)
{
	struct span_poll *p = &g->poll[w->index];
	uint64_t compute = w->compute_ns - p->compute0;
	uint64_t finish = p->start + g->per_poll + (w->st.spawns - p->spawns0) * g->per_spawn +
			  compute;
	p->on = false;
	/* The run ends once every root is done: the poll that completes a
	 * root (a task without a continuation), and the one that calls
	 * rt_finish, at its start plus its compute (span.h). Relaxed: the sim
	 * runs every worker on this one thread. */
	bool finishing = !g->ended &&
			 atomic_load_explicit(&w->rt->finished, memory_order_relaxed) == RT_FINISHED;
	if (finishing || (done && !parent)) {
		uint64_t at = p->start + compute;
		g->end = at > g->end ? at : g->end;
		g->ended |= finishing;
	}
	if (g->failed)
		return;
	if (done) {
		del(g, t);
		if (parent)
			put(g, parent, finish, true);
	} else {
		put(g, t, finish, true);
	}
}
