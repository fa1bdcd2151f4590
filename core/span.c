/*
 * span.c - the span of a simulated run's task graph (span.h).
 *
 * The ready times sit in shadow arrays beside the tasks' memory: one word
 * per 64-byte granule of each 2 MiB region of the address space that holds
 * a task (pool blocks are 64 bytes in 2 MiB slabs, core/taskpool.c; a
 * larger task from the allocator is at least as large, so no two live
 * tasks start in one granule). A task's word is its region's shadow at the
 * granule of its address: one load, near the words of the tasks allocated
 * beside it, where a hash table keyed by the address cost the sim more
 * than half its speed (a probe and often a miss per access, and a table
 * that grows with the live tasks). The regions' shadows are found through
 * a small open-addressing table of regions, with the last one used cached.
 * A completed task's word goes back to 0, so a block used again by a task
 * spawned from outside the workers reads no stale time. The sim engine
 * runs every worker on one thread, so nothing here is shared.
 */
#include "span.h"

#include <stdlib.h>
#include <string.h>

#define REGIONS0 64u

static inline uint64_t slot_of(uint64_t region, uint64_t cap)
{
	return (region * 0x9e3779b97f4a7c15ull) >> 32 & (cap - 1);
}

/* The shadow of `region`, made (zeroed) on first use; NULL without memory. */
uint64_t *span_shadow_slow(struct span_graph *g, uint64_t region)
{
	for (uint64_t i = slot_of(region, g->cap);; i = (i + 1) & (g->cap - 1)) {
		struct span_region *r = &g->regions[i];
		if (r->shadow && r->region == region) {
			g->last_region = region;
			g->last_shadow = r->shadow;
			return r->shadow;
		}
		if (!r->shadow)
			break;
	}
	if (2 * (g->count + 1) > g->cap) {
		uint64_t ocap = g->cap;
		struct span_region *old = g->regions, *tab = calloc(2 * ocap, sizeof *tab);
		if (!tab)
			return NULL;
		g->regions = tab;
		g->cap = 2 * ocap;
		for (uint64_t i = 0; i < ocap; i++) {
			if (!old[i].shadow)
				continue;
			uint64_t j = slot_of(old[i].region, g->cap);
			while (tab[j].shadow)
				j = (j + 1) & (g->cap - 1);
			tab[j] = old[i];
		}
		free(old);
	}
	uint64_t *shadow = calloc(SPAN_REGION_WORDS, sizeof *shadow);
	if (!shadow)
		return NULL;
	uint64_t j = slot_of(region, g->cap);
	while (g->regions[j].shadow)
		j = (j + 1) & (g->cap - 1);
	g->regions[j].region = region;
	g->regions[j].shadow = shadow;
	g->count++;
	g->last_region = region;
	g->last_shadow = shadow;
	return shadow;
}

struct span_graph *span_create(uint32_t nworkers)
{
	struct span_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->nworkers = nworkers;
	g->poll = calloc(nworkers, sizeof *g->poll);
	g->cap = REGIONS0;
	g->regions = calloc(g->cap, sizeof *g->regions);
	if (!g->poll || !g->regions) {
		span_destroy(g);
		return NULL;
	}
	return g;
}

void span_destroy(struct span_graph *g)
{
	if (!g)
		return;
	for (uint64_t i = 0; g->regions && i < g->cap; i++)
		free(g->regions[i].shadow);
	free(g->regions);
	free(g->poll);
	free(g);
}

void span_start(struct span_graph *g, struct runtime *rt, uint64_t per_poll, uint64_t per_spawn)
{
	/* Every word back to 0: a block of an earlier run's task may be a
	 * root of this one. */
	for (uint64_t i = 0; i < g->cap; i++)
		if (g->regions[i].shadow)
			memset(g->regions[i].shadow, 0, SPAN_REGION_WORDS * sizeof(uint64_t));
	g->failed = false;
	g->per_poll = per_poll;
	g->per_spawn = per_spawn;
	g->ended = false;
	g->end = 0;
	memset(g->poll, 0, g->nworkers * sizeof *g->poll);
	rt->span = g;
}

bool span_result(const struct span_graph *g, uint64_t *out)
{
	*out = g->end;
	return g->ended && !g->failed;
}
