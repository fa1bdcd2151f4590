/*
 * test_policy_central.c - the central-queue policy: fib correct on 1, 2, 3
 * and 8 workers (and 70, past one bitmap word) with every task taken from
 * the one shared queue and no local queue ever touched; the sleep protocol
 * driven by hand (eager claims, the throttled searcher chain, a parker that
 * takes its bit back); and remote spawns onto fully parked workers answered
 * by a notify, with parks that never time out.
 */
#include <sched.h>
#include <time.h>

#include "run_util.h"

static const struct policy *central(void)
{
	const struct policy *p = policy_find("central-queue");
	ASSERT(p);
	return p;
}

/* ---- whole runs ---- */

static void fib_on(uint32_t workers, const char *const *knobs, const char *n, uint64_t nodes)
{
	const char *params[] = { n, NULL };
	struct run_result r;
	run_workload("central-queue", "fib", workers, knobs, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, r.err);
	ASSERT_U64_EQ(r.tasks, nodes);
	ASSERT_U64_EQ(r.total.completions, nodes);
	/* No local queue, ever. */
	ASSERT_U64_EQ(r.total.local_pops, 0);
	ASSERT_U64_EQ(r.total.local_pushes, 0);
	ASSERT_U64_EQ(r.total.lifo_polls, 0);
	ASSERT_U64_EQ(r.total.steal_attempts, 0);
	ASSERT_U64_EQ(r.total.steals, 0);
	ASSERT_U64_EQ(r.total.overflows, 0);
	/* Every poll took its task from the shared queue, one at a time. */
	ASSERT_U64_EQ(r.total.global_tasks, r.total.polls);
	ASSERT_U64_EQ(r.total.global_batches, r.total.polls);
	/* Internal nodes are polled twice (spawn, then join), leaves once; a
	 * join completed during the parent's own poll re-polls it (repolls)
	 * instead of an arrival enqueueing it, which is the same second poll. */
	ASSERT_U64_EQ(r.total.polls, nodes + (nodes - 1) / 2);
	/* Parks have no timeout by default: every wake-up is a notify or the
	 * final stop's permit. */
	ASSERT_U64_EQ(r.total.unparks_timeout, 0);
	fprintf(stderr, "    %u workers: parks %llu, notifies %llu\n", workers,
		(unsigned long long)r.total.parks, (unsigned long long)r.total.notifies);
}

static void fib25_eager(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		fib_on(counts[i], NULL, "n=25", 242785);
}

static void fib25_throttled(void)
{
	static const char *const knobs[] = { "wake=1", NULL };
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		fib_on(counts[i], knobs, "n=25", 242785);
}

/* Past one 64-bit word of sleepers: the policy has no worker limit. */
static void fib_70_workers(void)
{
	double kv[8];
	const struct policy *p = central();
	knob_defaults(p->knobs, p->nknobs, kv);
	struct rt_config cfg = { .workers = 1024, .seed = 1, .hist_digits = 3 };
	char err[256];
	ASSERT(!p->check || p->check(&cfg, kv, err, sizeof err) == 0);
	fib_on(70, NULL, "n=18", 2 * 4181 - 1);
	static const char *const knobs[] = { "wake=1", NULL };
	fib_on(70, knobs, "n=18", 2 * 4181 - 1);
}

/* ---- the sleep protocol, by hand ---- */

/* A runtime the test thread drives by hand, as the owner of every worker
 * in turn (the engine's threads never start). */
static struct runtime *hand_runtime(uint32_t workers, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(central(), workers, 1, 20000000000ull, knobs, e);
}

static uint32_t parked(struct runtime *rt)
{
	return atomic_load(&rt->idle.num_parked);
}

/* Spawns from one worker are taken, in order, by any worker. */
static void one_shared_fifo(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(3, NULL, &e);
	const struct policy *p = rt->policy;
	struct task t[4];
	for (int i = 0; i < 4; i++) {
		task_init(&t[i], &dummy_vt);
		rt_spawn(&rt->workers[1], &t[i]);
	}
	ASSERT_EQ(inject_len(&rt->inject), 4);
	ASSERT(p->find_work(&rt->workers[2]) == &t[0]);
	ASSERT(p->find_work(&rt->workers[0]) == &t[1]);
	ASSERT(p->find_work(&rt->workers[1]) == &t[2]);
	ASSERT(p->find_work(&rt->workers[2]) == &t[3]);
	ASSERT(p->find_work(&rt->workers[0]) == NULL);
	ASSERT_EQ(ring_len(&rt->shared[1].ring), 0);
	ASSERT(rt->workers[1].lifo == NULL);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* Eager: while anybody sleeps, each push claims one sleeper, lowest first. */
static void eager_claims_one_per_push(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(4, NULL, &e);
	const struct policy *p = rt->policy;
	uint64_t timeout = 0;
	for (uint32_t i = 1; i < 4; i++)
		ASSERT(p->park(&rt->workers[i], &timeout));
	ASSERT_U64_EQ(timeout, PARK_FOREVER);
	ASSERT_EQ(parked(rt), 3);
	char text[256];
	FILE *f = fmemopen(text, sizeof text, "w");
	ASSERT(f);
	p->dump(rt, f);
	fclose(f);
	ASSERT(strstr(text, "wake eager, sleepers: 1 2 3\n") != NULL);

	struct task t[4];
	for (int i = 0; i < 4; i++)
		task_init(&t[i], &dummy_vt);
	rt_spawn_remote(rt, &t[0]);
	ASSERT_EQ(parked(rt), 2);
	rt_spawn(&rt->workers[0], &t[1]);	/* a worker's push wakes too */
	ASSERT_EQ(parked(rt), 1);
	ASSERT_U64_EQ(rt->workers[0].st.notifies, 1);
	rt_spawn_remote(rt, &t[2]);
	ASSERT_EQ(parked(rt), 0);
	rt_spawn_remote(rt, &t[3]);		/* nobody left to wake */
	ASSERT_EQ(parked(rt), 0);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 0);

	/* Each claimed worker sees the claim when its park returns. */
	for (uint32_t i = 1; i < 4; i++) {
		p->unparked(&rt->workers[i], PARK_WOKEN);
		ASSERT_U64_EQ(rt->workers[i].st.unparks_notify, 1);
		ASSERT(!rt->workers[i].searching);
	}
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* Throttled: one searcher at a time; the last searcher to find a task
 * wakes the next sleeper. */
static void throttled_searcher_chain(void)
{
	static const char *const knobs[] = { "wake=1", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	const struct policy *p = rt->policy;
	struct worker *w = rt->workers;
	uint64_t timeout = 0;
	for (uint32_t i = 1; i < 4; i++)
		ASSERT(p->park(&w[i], &timeout));

	struct task t[3];
	for (int i = 0; i < 3; i++)
		task_init(&t[i], &dummy_vt);
	rt_spawn_remote(rt, &t[0]);		/* claims worker 1, as a searcher */
	ASSERT_EQ(parked(rt), 2);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 1);
	rt_spawn_remote(rt, &t[1]);		/* somebody searches: no wake */
	rt_spawn_remote(rt, &t[2]);
	ASSERT_EQ(parked(rt), 2);

	p->unparked(&w[1], PARK_WOKEN);
	ASSERT(w[1].searching);
	ASSERT(p->find_work(&w[1]) == &t[0]);	/* found: leaves, wakes worker 2 */
	ASSERT(!w[1].searching);
	ASSERT_U64_EQ(w[1].st.last_searcher_notifies, 1);
	ASSERT_EQ(parked(rt), 1);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 1);

	p->unparked(&w[2], PARK_WOKEN);
	ASSERT(w[2].searching);
	ASSERT(p->find_work(&w[2]) == &t[1]);	/* wakes worker 3 */
	ASSERT_EQ(parked(rt), 0);
	p->unparked(&w[3], PARK_WOKEN);
	ASSERT(p->find_work(&w[3]) == &t[2]);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 0);
	ASSERT_U64_EQ(w[3].st.last_searcher_notifies, 0);	/* nobody left */

	/* A searcher that finds nothing stops searching when it parks, so the
	 * next push can wake somebody again. */
	ASSERT(p->park(&w[1], &timeout));
	ASSERT(p->park(&w[2], &timeout));
	rt_spawn_remote(rt, &t[0]);		/* claims worker 1 */
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 1);
	p->unparked(&w[1], PARK_WOKEN);
	ASSERT(p->find_work(&w[0]) == &t[0]);	/* a running worker takes it first */
	ASSERT(p->find_work(&w[1]) == NULL);
	ASSERT(w[1].searching);
	ASSERT(p->park(&w[1], &timeout));
	ASSERT(!w[1].searching);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 0);
	ASSERT_EQ(parked(rt), 2);
	rt_spawn_remote(rt, &t[1]);		/* wakes again */
	ASSERT_EQ(parked(rt), 1);
	ASSERT_EQ(atomic_load(&rt->idle.num_searching), 1);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* A worker whose re-check after publishing its bit finds a task takes the
 * bit back and runs another tick instead of sleeping; a timeout wake-up
 * undoes its own parked count. */
static void parker_rechecks(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, NULL, &e);
	const struct policy *p = rt->policy;
	struct worker *w = &rt->workers[1];
	struct task t;
	task_init(&t, &dummy_vt);
	/* The push lands while nobody sleeps (no notify possible)... */
	rt_spawn_remote(rt, &t);
	uint64_t timeout = 0;
	/* ...so the parker's own re-check must see it. */
	ASSERT(!p->park(w, &timeout));
	ASSERT_EQ(parked(rt), 0);
	ASSERT(p->find_work(w) == &t);

	ASSERT(p->park(w, &timeout));
	ASSERT_EQ(parked(rt), 1);
	p->unparked(w, PARK_TIMEOUT);
	ASSERT_EQ(parked(rt), 0);
	ASSERT_U64_EQ(w->st.unparks_timeout, 1);
	ASSERT_U64_EQ(w->st.unparks_notify, 0);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* ---- remote spawn onto fully parked workers, real threads ---- */

static void remote_spawn_wakes_parked(uint32_t workers, const char *const *knobs)
{
	const struct policy *p = central();
	double kv[8];
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	struct rt_config cfg = { .workers = workers, .seed = 3, .sample_period = 0,
				 .hist_digits = 2,
				 .watchdog_ns = 20000000000ull };
	char err[256];
	struct engine *e = engine_threads_create(workers);
	struct runtime *rt;
	ASSERT_EQ(rt_create(&rt, &cfg, p, kv, e, err, sizeof err), 0);
	/* Parks never time out: only a notify can run the task (a lost
	 * wakeup ends the run through the watchdog, and run returns -ETIMEDOUT). */
	assert_notify_runs_spawn_onto_sleepers(e, rt, parked);
}

static void remote_spawn_wakes_parked_workers(void)
{
	static const char *const throttled[] = { "wake=1", NULL };
	remote_spawn_wakes_parked(4, NULL);
	remote_spawn_wakes_parked(4, throttled);
	remote_spawn_wakes_parked(70, NULL);
}

int main(void)
{
	RUN(fib25_eager);
	RUN(fib25_throttled);
	RUN(fib_70_workers);
	RUN(one_shared_fifo);
	RUN(eager_claims_one_per_push);
	RUN(throttled_searcher_chain);
	RUN(parker_rechecks);
	RUN(remote_spawn_wakes_parked_workers);
	return 0;
}
