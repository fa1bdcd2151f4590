/*
 * hand_engine.h - an engine the test thread drives by hand, one worker
 * step at a time in a fixed order, with the threads engine's semantics:
 * an unpark of a running worker leaves a permit, a park returns on an
 * unpark or its timeout, and nothing delivers I/O but the workers' own
 * polls. One virtual clock for everybody: compute advances it, and when
 * every worker sleeps it jumps to the earliest park timeout.
 *
 * Unlike the simulation engine it lets a test choose exactly when the
 * workload's start happens relative to the workers' steps, e.g. after every
 * worker has parked, and it records every unpark and every yield. With now_step set, every
 * read of the clock advances it by that much, so that any stretch of code
 * between two reads takes time.
 */
#ifndef HARNESS_TESTS_HAND_ENGINE_H
#define HARNESS_TESTS_HAND_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/engine.h"
#include "core/runtime.h"
#include "run_util.h"
#include "test.h"

#define HAND_MAX 8

struct hand_engine {
	struct engine base;
	uint32_t n;
	uint64_t now;
	uint64_t now_step;		/* added by every read of the clock */
	bool parked[HAND_MAX], woken[HAND_MAX], permit[HAND_MAX], exited[HAND_MAX];
	uint64_t wake_at[HAND_MAX];	/* PARK_FOREVER: until unparked */
	uint32_t unparks[HAND_MAX];	/* unparks received, per worker */
	uint32_t yields[HAND_MAX];	/* yields of idle rounds, per worker */
};

static uint64_t hand_now(struct engine *e, struct worker *w)
{
	(void)w;
	struct hand_engine *h = (struct hand_engine *)e;
	uint64_t t = h->now;
	h->now += h->now_step;
	return t;
}

static bool hand_unpark(struct engine *e, uint32_t id)
{
	struct hand_engine *h = (struct hand_engine *)e;
	ASSERT(id < h->n);
	h->unparks[id]++;
	if (h->parked[id]) {
		h->woken[id] = true;
		return true;
	}
	h->permit[id] = true;
	return false;
}

static void hand_compute(struct engine *e, struct worker *w, uint64_t ns)
{
	(void)w;
	((struct hand_engine *)e)->now += ns;
}

static void hand_yield(struct engine *e, struct worker *w)
{
	((struct hand_engine *)e)->yields[w->index]++;
}

static void hand_finish(struct engine *e, struct runtime *rt)
{
	(void)rt;
	struct hand_engine *h = (struct hand_engine *)e;
	for (uint32_t i = 0; i < h->n; i++)
		hand_unpark(e, i);
}

static void hand_engine_destroy(struct engine *e)
{
	free(e);
}

static const struct engine_ops hand_ops = {
	.name = "hand",
	.now = hand_now,
	.unpark = hand_unpark,
	.compute = hand_compute,
	.yield = hand_yield,
	.finish = hand_finish,
	.destroy = hand_engine_destroy,
};

static inline struct hand_engine *hand_engine_create(uint32_t n)
{
	ASSERT(n <= HAND_MAX);
	struct hand_engine *h = calloc(1, sizeof *h);
	ASSERT(h);
	h->base.ops = &hand_ops;
	h->n = n;
	return h;
}

/* One step of worker i, if it is not asleep: returns false if it sleeps
 * (or has left). */
static inline bool hand_step(struct hand_engine *h, struct runtime *rt, uint32_t i)
{
	struct worker *w = &rt->workers[i];
	if (h->exited[i])
		return false;
	if (h->parked[i]) {
		if (!h->woken[i])
			return false;
		h->parked[i] = h->woken[i] = false;
		worker_unparked(w, PARK_WOKEN);
	}
	uint64_t timeout = 0;
	switch (worker_step(w, &timeout)) {
	case STEP_EXIT:
		h->exited[i] = true;
		return false;
	case STEP_PARK:
		if (h->permit[i]) {
			h->permit[i] = false;
			worker_unparked(w, PARK_WOKEN);
			return true;
		}
		h->parked[i] = true;
		h->wake_at[i] = timeout == PARK_FOREVER ? PARK_FOREVER : h->now + timeout;
		return true;
	default:
		return true;
	}
}

/* Step worker i alone until it sleeps (at most max steps); returns
 * whether it sleeps. */
static inline bool hand_park_one(struct hand_engine *h, struct runtime *rt, uint32_t i,
				 uint32_t max)
{
	for (uint32_t k = 0; k < max; k++)
		if (!hand_step(h, rt, i))
			return h->parked[i];
	return false;
}

/* Is every worker asleep (or gone), none with an unpark on its way? */
static inline bool hand_all_asleep(const struct hand_engine *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (!h->exited[i] && (!h->parked[i] || h->woken[i]))
			return false;
	return true;
}

/*
 * Step the workers round-robin until every one sleeps, at most max_rounds
 * rounds. With time_out set, a time in which everybody sleeps jumps to the
 * earliest timeout, which then expires, until the run finishes or nobody
 * has a timeout. Returns the rounds taken.
 */
static inline uint32_t hand_run(struct hand_engine *h, struct runtime *rt, bool time_out,
				uint32_t max_rounds)
{
	for (uint32_t round = 0; round < max_rounds; round++) {
		for (uint32_t i = 0; i < h->n; i++)
			hand_step(h, rt, i);
		if (!hand_all_asleep(h))
			continue;
		if (!time_out || rt_finished(rt))
			return round;
		uint32_t first = h->n;
		for (uint32_t i = 0; i < h->n; i++)
			if (!h->exited[i] && h->wake_at[i] != PARK_FOREVER &&
			    (first == h->n || h->wake_at[i] < h->wake_at[first]))
				first = i;
		if (first == h->n)
			return round;	/* everybody sleeps for good */
		if (h->wake_at[first] > h->now)
			h->now = h->wake_at[first];
		h->parked[first] = false;
		worker_unparked(&rt->workers[first], PARK_TIMEOUT);
	}
	return max_rounds;
}

/* A runtime on the hand engine with the policy's knobs set as given (its
 * check is not consulted): the test steps its workers. */
static inline struct runtime *hand_engine_runtime(const struct policy *p, uint32_t workers,
					   const char *const *knobs, struct hand_engine **h)
{
	double kv[64];
	ASSERT(p->nknobs <= 64);
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	struct rt_config cfg = { .workers = workers, .seed = 1, .hist_digits = 2 };
	char err[256];
	*h = hand_engine_create(workers);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, &(*h)->base, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->started = true;
	return rt;
}

#endif
