/*
 * chained_spawn.c - a chain of tasks, each spawning the next and completing
 * (Tokio's benches/rt_multi_threaded.rs: chained_spawn, 1,000 links).
 *
 * Only one task of the chain is runnable at any time, so the figure is the
 * latency of one spawn-to-poll hand-off, the case a LIFO slot is made for:
 * the next link should run on the worker that spawned it, at once, while
 * its memory is still in that worker's cache. Link 0 is injected by the
 * harness; link i spawns link i + 1 and completes; the last link finishes
 * the run. Each link carries its depth, so verify checks the chain's length
 * both by the count of links polled and by the depth of the last one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

enum { P_N, P_COUNT };

static const struct knob_def cs_params[P_COUNT] = {
	[P_N] = { "n", 1000, 1, 1e9, true, "links in the chain (tasks, one after another)" },
};

struct cs_link {
	struct task task;
	uint32_t depth;			/* 0 for the first link */
	uint32_t spawner;		/* worker that spawned it (UINT32_MAX: outside) */
};

_Static_assert(sizeof(struct cs_link) <= TASKPOOL_BLOCK, "a link fits one block");

/* Owner-written per-worker figures, one line each. */
struct cs_counter {
	CACHE_ALIGNED uint64_t links;	/* links polled on this worker */
	uint64_t migrations;		/* ... that a different worker had spawned */
};

struct chained {
	uint32_t n, workers;
	struct cs_counter *per;		/* [workers] */
	uint32_t last_depth;		/* written by the last link */
	bool last_ran;
	uint64_t seq_links;		/* links of the last sequential run */
	bool parallel_ran;
};

static const struct task_vtable cs_link_vt;

static struct cs_link *link_new(struct runtime *rt, struct worker *w, uint32_t depth)
{
	struct cs_link *l = rt_task_alloc(rt, w, sizeof *l);
	task_init(&l->task, &cs_link_vt);
	l->depth = depth;
	l->spawner = w ? w->index : UINT32_MAX;
	return l;
}

static enum task_poll cs_link_poll(struct task *t, struct worker *w)
{
	struct cs_link *l = (struct cs_link *)t;
	struct chained *c = w->rt->user;
	struct cs_counter *me = &c->per[w->index];

	me->links++;
	me->migrations += l->spawner != UINT32_MAX && l->spawner != w->index;
	if (l->depth + 1 < c->n) {
		rt_spawn(w, &link_new(w->rt, w, l->depth + 1)->task);
		return TASK_DONE;
	}
	/* The last link. Verify reads these after the engine joined the workers. */
	c->last_depth = l->depth;
	c->last_ran = true;
	rt_finish(w->rt, w);
	return TASK_DONE;
}

static void cs_link_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct cs_link));
}

static const struct task_vtable cs_link_vt = {
	.name = "chained-spawn-link",
	.poll = cs_link_poll,
	.drop = cs_link_drop,
};

static void *cs_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct chained *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->n = (uint32_t)p[P_N];
	c->workers = workers ? workers : 1;
	c->per = aligned_alloc(CACHE_LINE, c->workers * sizeof *c->per);
	if (!c->per) {
		free(c);
		return NULL;
	}
	memset(c->per, 0, c->workers * sizeof *c->per);
	return c;
}

static void cs_start(void *inst, struct runtime *rt)
{
	struct chained *c = inst;
	c->parallel_ran = true;
	rt_spawn_remote(rt, &link_new(rt, NULL, 0)->task);
}

/* One link as a plain call: out of line, so the loop stays n calls. */
static __attribute__((noinline)) uint32_t seq_link(struct chained *c, uint32_t depth)
{
	c->seq_links++;
	return depth + 1;
}

static void cs_run_sequential(void *inst)
{
	struct chained *c = inst;
	uint32_t depth = 0, next;
	c->seq_links = 0;
	while ((next = seq_link(c, depth)) < c->n)
		depth = next;
	c->last_depth = depth;
	c->last_ran = true;
}

static uint64_t cs_links(const struct chained *c)
{
	if (!c->parallel_ran)
		return c->seq_links;
	uint64_t total = 0;
	for (uint32_t i = 0; i < c->workers; i++)
		total += c->per[i].links;
	return total;
}

static uint64_t cs_tasks(void *inst)
{
	return cs_links(inst);
}

static int cs_verify(void *inst, char *err, size_t len)
{
	struct chained *c = inst;
	uint64_t links = cs_links(c);
	if (!c->last_ran || c->last_depth != c->n - 1) {
		snprintf(err, len, "chained-spawn: the last link %s depth %u, expected %u",
			 c->last_ran ? "has" : "never ran; ", c->last_depth, c->n - 1);
		return -1;
	}
	if (links != c->n) {
		snprintf(err, len, "chained-spawn: %llu links polled, expected a chain of %u",
			 (unsigned long long)links, c->n);
		return -1;
	}
	return 0;
}

static size_t cs_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct chained *c = inst;
	size_t k = 0;
	uint64_t migrations = 0;
	if (c->parallel_ran)
		for (uint32_t i = 0; i < c->workers; i++)
			migrations += c->per[i].migrations;
	if (k < max)
		out[k++] = (struct wl_metric){ "links", (double)cs_links(c) };
	/* Links polled on another worker than their spawner's. */
	if (k < max)
		out[k++] = (struct wl_metric){ "migrations", (double)migrations };
	return k;
}

static void cs_destroy(void *inst)
{
	struct chained *c = inst;
	free(c->per);
	free(c);
}

static const char *const cs_quick[] = { "n=300", NULL };

const struct workload workload_chained_spawn = {
	.name = "chained-spawn",
	.summary = "a chain of n tasks, each spawning the next; Tokio's chained_spawn",
	.params = cs_params,
	.nparams = P_COUNT,
	.sample_period = 64,
	.quick_params = cs_quick,
	.create = cs_create,
	.start = cs_start,
	.run_sequential = cs_run_sequential,
	.verify = cs_verify,
	.tasks = cs_tasks,
	.metrics = cs_metrics,
	.destroy = cs_destroy,
};
