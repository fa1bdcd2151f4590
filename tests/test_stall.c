/*
 * test_stall.c - the start-up stalls of issue 10, reproduced step by step
 * on a hand-driven engine (hand_engine.h): every worker parks before the
 * workload starts, then the start comes, then the workers run until the
 * run finishes or every one of them sleeps for good.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "hand_engine.h"
#include "run_util.h"

struct hand_run {
	struct hand_engine *h;
	struct runtime *rt;
	const struct workload *wl;
};

/* A configuration the policy's check refuses may be run on purpose. */
static bool skip_check;

static void hand_open(struct hand_run *r, const char *policy, uint32_t workers,
		      const char *const *knobs, const char *workload, const char *const *params)
{
	const struct policy *p = policy_find(policy);
	r->wl = workload_find(workload);
	ASSERT(p && r->wl);
	double kv[64], pv[64];
	ASSERT(p->nknobs <= 64 && r->wl->nparams <= 64);
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	apply_settings(r->wl->params, r->wl->nparams, pv, params);
	struct rt_config cfg = { .workers = workers, .seed = 1, .hist_digits = 2 };
	char err[256];
	if (!skip_check && p->check && p->check(&cfg, kv, err, sizeof err) != 0)
		TEST_FAIL("%s check: %s", policy, err);
	r->h = hand_engine_create(workers);
	if (rt_create(&r->rt, &cfg, p, kv, &r->h->base, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	r->rt->user = r->wl->create(pv, workers, 1);
	ASSERT(r->rt->user);
	if (r->wl->place)
		r->wl->place(r->rt->user, r->rt);
	r->rt->started = true;
}

/* Park every worker, then start the workload; returns the rounds the
 * workers then needed (the run must finish). */
static void start_after_all_parked(struct hand_run *r, uint32_t max_rounds)
{
	hand_run(r->h, r->rt, false, 1000);
	ASSERT(hand_all_asleep(r->h));
	r->rt->start_ns = r->h->now;
	r->wl->start(r->rt->user, r->rt);
	hand_run(r->h, r->rt, true, max_rounds);
}

static void hand_close(struct hand_run *r)
{
	r->wl->destroy(r->rt->user);
	rt_destroy(r->rt);
	r->h->base.ops->destroy(&r->h->base);
}

/*
 * Stall 1. The first tokio worker to park takes the driver and, with no
 * event due before the workload starts, parks without a timeout. The start
 * must wake the driver holder (the timekeeper), not worker 0: otherwise the
 * notify for request 0 wakes the top of the sleeper stack, which runs it
 * and parks again, and nobody polls the arrival source any more.
 */
static void tokio_start_wakes_driver_holder(void)
{
	const char *const pols[] = { "tokio", "tokio-1.28" };
	const char *const params[] = { "load=0.1", "service_us=5", "requests=50", NULL };
	for (size_t k = 0; k < 2; k++) {
		/* Worker 2 parks first and takes the driver; then workers 1
		 * and 0 park on top of it in the sleeper stack. Request 0's
		 * notify pops worker 0, whose find wakes worker 1 (the last
		 * searcher notifies), which finds nothing and parks: without
		 * the start's own wake, worker 2 sleeps on. */
		struct hand_run r;
		hand_open(&r, pols[k], 3, NULL, "open-loop", params);
		for (uint32_t i = 3; i-- > 0;) {
			ASSERT(hand_park_one(r.h, r.rt, i, 1000));
			ASSERT(r.h->wake_at[i] == PARK_FOREVER);	/* nothing due yet */
		}
		ASSERT_EQ(atomic_load(&r.rt->timekeeper), 2);
		uint32_t before = r.h->unparks[2];
		r.rt->start_ns = r.h->now;
		r.wl->start(r.rt->user, r.rt);
		ASSERT(r.h->unparks[2] > before);
		hand_run(r.h, r.rt, true, 100000);
		ASSERT(rt_finished(r.rt));
		char err[256];
		ASSERT_EQ(r.wl->verify(r.rt->user, err, sizeof err), 0);
		hand_close(&r);
	}
	/* Any number of workers, whoever ends up holding the driver. */
	for (uint32_t n = 1; n <= 4; n++) {
		struct hand_run r;
		hand_open(&r, "tokio", n, NULL, "open-loop", params);
		start_after_all_parked(&r, 100000);
		ASSERT(rt_finished(r.rt));
		hand_close(&r);
	}
}

/*
 * Stall 2. Rayon with wake_on_post=0 wakes nobody for a job injected while
 * every worker sleeps, and without a park timeout nobody ever looks: check
 * refuses that combination. With a timeout, the sleepers' re-check is the
 * fallback and the run finishes.
 */
static void rayon_no_wake_on_post_needs_timeout(void)
{
	const struct policy *p = policy_find("rayon");
	ASSERT(p && p->check);
	const char *const refused[] = { "wake_on_post=0", NULL };
	double kv[64];
	apply_settings(p->knobs, p->nknobs, kv, refused);
	struct rt_config cfg = { .workers = 2, .seed = 1, .hist_digits = 2 };
	char err[256] = "";
	ASSERT_EQ(p->check(&cfg, kv, err, sizeof err), -EINVAL);
	ASSERT(strstr(err, "wake_on_post=0") && strstr(err, "park_timeout_ns"));

	const char *const params[] = { "n=50", NULL };
	const char *const with_timeout[] = { "wake_on_post=0", "park_timeout_ns=1000000", NULL };
	struct hand_run r;
	hand_open(&r, "rayon", 2, with_timeout, "spawn-many", params);
	start_after_all_parked(&r, 100000);
	ASSERT(rt_finished(r.rt));
	ASSERT(r.rt->workers[0].st.unparks_timeout + r.rt->workers[1].st.unparks_timeout > 0);
	hand_close(&r);

	/* The default wakes a sleeper on the post. */
	hand_open(&r, "rayon", 2, NULL, "spawn-many", params);
	start_after_all_parked(&r, 100000);
	ASSERT(rt_finished(r.rt));
	hand_close(&r);
}

/* The stall report of a stopped hand-driven run, in a buffer. */
static char *report(struct runtime *rt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ASSERT(f);
	struct rt_snapshot snap;
	ASSERT_EQ(rt_snapshot_take(rt, &snap), 0);
	rt_dump(rt, f, &snap, true);
	rt_snapshot_free(&snap);
	fclose(f);
	return buf;
}

static void expect_in(const char *text, const char *what)
{
	if (!strstr(text, what))
		TEST_FAIL("stall report lacks \"%s\":\n%s", what, text);
}

/*
 * The stall reports of both stalls read the policy's own idle state and
 * name the driver holder, instead of the core idle state the policy does
 * not use (which read "0 searching, 0 parked" while every worker slept).
 */
static void stall_reports_name_the_roles(void)
{
	const char *const params[] = { "load=0.1", "service_us=5", "requests=50", NULL };
	struct hand_run r;
	hand_open(&r, "tokio-broken", 3, NULL, "open-loop", params);
	for (uint32_t i = 3; i-- > 0;)
		ASSERT(hand_park_one(r.h, r.rt, i, 1000));
	r.rt->start_ns = r.h->now;
	r.wl->start(r.rt->user, r.rt);
	hand_run(r.h, r.rt, true, 100000);
	ASSERT(!rt_finished(r.rt) && hand_all_asleep(r.h));	/* stall 1, on purpose */
	char *text = report(r.rt);
	expect_in(text, "idle state (tokio-broken's own): 0 searching, 3 asleep");
	expect_in(text, "driver: worker 2 (parked on it)");
	expect_in(text, "tokio worker 2: on the sleeper list, holds the driver");
	expect_in(text, "a timer or I/O event is pending");
	free(text);
	hand_close(&r);

	/* Stall 2, with the check bypassed. */
	skip_check = true;
	const char *const knobs[] = { "wake_on_post=0", NULL };
	const char *const sm[] = { "n=50", NULL };
	hand_open(&r, "rayon", 2, knobs, "spawn-many", sm);
	start_after_all_parked(&r, 100000);
	skip_check = false;
	ASSERT(!rt_finished(r.rt) && hand_all_asleep(r.h));
	text = report(r.rt);
	expect_in(text, "idle state (rayon's own): 0 searching, 2 asleep");
	expect_in(text, "1 runnable tasks queued while 2 workers sleep and none searches");
	free(text);
	hand_close(&r);
}

/*
 * Every policy's check_idle (what --explore asks after every step) sees a
 * lost wakeup: with every worker asleep, a task slipped into the global
 * queue without the policy's notify. Before it, the invariant holds.
 * (static-partition routes remote tasks to per-worker inboxes, never to
 * the global queue; test_sim_theory's explore runs cover it.)
 */
static void check_idle_sees_a_lost_wakeup(void)
{
	const char *const params[] = { "n=10", NULL };
	for (size_t k = 0; policy_table[k]; k++) {
		const struct policy *p = policy_table[k];
		ASSERT(p->check_idle);
		ASSERT(p->dump);
		if (strcmp(p->name, "static-partition") == 0)
			continue;
		/* blumofe-leiserson's thieves sleep only if told to. */
		const char *const sleep[] = { "thieves_sleep=1", NULL };
		bool has_sleep = knob_find(p->knobs, p->nknobs, "thieves_sleep") >= 0;
		struct hand_run r;
		hand_open(&r, p->name, 3, has_sleep ? sleep : NULL, "spawn-many", params);
		for (uint32_t i = 0; i < 3; i++)
			if (!hand_park_one(r.h, r.rt, i, 1000))
				TEST_FAIL("%s: worker %u does not park", p->name, i);
		ASSERT(p->check_idle(r.rt) == NULL);
		struct task t;
		task_init(&t, &dummy_vt);
		inject_push(&r.rt->inject, &t);
		const char *why = p->check_idle(r.rt);
		if (!why || !strstr(why, "lost wakeup"))
			TEST_FAIL("%s: check_idle missed a task queued behind sleepers", p->name);
		struct task *back;
		ASSERT_EQ(inject_pop_batch(&r.rt->inject, &back, 1), 1);
		hand_close(&r);
	}
}

int main(void)
{
	RUN(tokio_start_wakes_driver_holder);
	RUN(rayon_no_wake_on_post_needs_timeout);
	RUN(stall_reports_name_the_roles);
	RUN(check_idle_sees_a_lost_wakeup);
	return 0;
}
