/*
 * test_sim.c - the simulation engine: the same policies and workloads on
 * virtual workers, verified; the same seed gives the same run, another
 * explore seed another step order; fib(20) up to 64 workers: every task
 * completed once, no speedup above P over the one-worker run (the work
 * bound T_P >= T_1 / P) and some speedup at every P >= 2. (The tight
 * bounds and efficiency of fib(30) are in test_sim_scaling.) The workers
 * share one free list of task blocks, passed from step to step, and no
 * block or chunk is lost or handed out twice on the way. A step's effects
 * happen at their time within it: no task runs before the point of the
 * step that spawned it, and fib(0) and fib(1), one poll each, take time.
 */
#include "core/costs.h"
#include "run_util.h"

struct sim_out {
	uint64_t makespan, steps, tasks;
	struct worker_stats tot;
	int verify;
	char err[256];
};

/* Called on the runtime before the run starts and after it ends (before
 * teardown); NULL for none. */
typedef void (*sim_hook)(struct runtime *rt);

static void sim_run(const char *policy, const char *workload, uint32_t workers,
		    const char *const *params, uint64_t seed, uint64_t explore, struct sim_out *o,
		    sim_hook before, sim_hook after)
{
	const struct policy *p = policy_find(policy);
	const struct workload *wl = workload_find(workload);
	ASSERT(p && wl);
	double kv[64], pv[64];
	apply_settings(p->knobs, p->nknobs, kv, NULL);
	apply_settings(wl->params, wl->nparams, pv, params);
	struct rt_config cfg = { .workers = workers, .seed = seed, .sample_period = 64,
				 .hist_digits = 3, .watchdog_ns = 10000000000ull };
	char err[256];
	struct engine *e = engine_sim_create(workers, NULL, explore);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->user = wl->create(pv, workers, seed);
	if (wl->place) {
		rt->place = run_place;
		rt->place_arg = (void *)wl;
	}
	if (before)
		before(rt);
	ASSERT_EQ(e->ops->run(e, rt, run_start, (void *)wl), 0);
	if (after)
		after(rt);
	memset(o, 0, sizeof *o);
	o->makespan = rt->end_ns - rt->start_ns;
	o->steps = engine_sim_steps(e);
	o->tasks = wl->tasks(rt->user);
	o->verify = wl->verify(rt->user, o->err, sizeof o->err);
	rt_total_stats(rt, &o->tot);
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
}

static void fib_on_many_workers(void)
{
	static const char *const params[] = { "n=20", NULL };
	static const uint32_t counts[] = { 1, 2, 4, 8, 16, 64 };
	uint64_t one = 0;
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		struct sim_out o;
		sim_run("volt", "fib", counts[i], params, 1, 0, &o, NULL, NULL);
		if (o.verify)
			TEST_FAIL("%u workers: %s", counts[i], o.err);
		ASSERT_U64_EQ(o.tot.completions, o.tasks);
		if (counts[i] == 1) {
			one = o.makespan;
		} else {
			ASSERT(o.makespan * counts[i] >= one);
			ASSERT(o.makespan < one);
		}
		fprintf(stderr, "    %2u workers: makespan %8.1f us, %llu steals, %llu steps\n",
			counts[i], o.makespan / 1e3, (unsigned long long)o.tot.steals,
			(unsigned long long)o.steps);
	}
}

static void deterministic(void)
{
	static const char *const params[] = { "n=18", NULL };
	struct sim_out a, b, c;
	sim_run("volt", "fib", 8, params, 7, 0, &a, NULL, NULL);
	sim_run("volt", "fib", 8, params, 7, 0, &b, NULL, NULL);
	ASSERT_U64_EQ(a.makespan, b.makespan);
	ASSERT_U64_EQ(a.steps, b.steps);
	ASSERT(memcmp(&a.tot, &b.tot, sizeof a.tot) == 0);
	/* Another tie-break seed: another interleaving of the same work. */
	sim_run("volt", "fib", 8, params, 7, 99, &c, NULL, NULL);
	ASSERT_U64_EQ(c.tasks, a.tasks);
	ASSERT(c.makespan != a.makespan || memcmp(&a.tot, &c.tot, sizeof a.tot) != 0);
}

/* A pool's chunks and free blocks, walked; the blocks appended to `all`. */
static void pool_walk(const struct taskpool *p, size_t *chunks, size_t *free_blocks,
		      void **all, size_t *nall, size_t cap)
{
	*chunks = *free_blocks = 0;
	for (void *c = p->chunks; c; c = *(void **)c)
		++*chunks;
	for (void *b = p->free; b; b = *(void **)b) {
		++*free_blocks;
		ASSERT(*nall < cap);
		all[(*nall)++] = b;
	}
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return (x > y) - (x < y);
}

static void seed_worker_3_pool(struct runtime *rt)
{
	taskpool_free(&rt->workers[3].pool, taskpool_alloc(&rt->workers[3].pool));
}

static void check_pools(struct runtime *rt)
{
	const uint32_t per_chunk = TASKPOOL_CHUNK / TASKPOOL_BLOCK - 1;
	size_t cap = 1u << 20, nall = 0, chunks, free_blocks;
	void **all = malloc(cap * sizeof *all);
	ASSERT(all);
	size_t with_chunks = 0, seeded = 0, carved = 0, freed = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		pool_walk(&rt->workers[i].pool, &chunks, &free_blocks, all, &nall, cap);
		with_chunks += chunks > 0;
		if (chunks == 1 && free_blocks == per_chunk && !seeded) {
			seeded = 1;	/* worker 3's, untouched */
			continue;
		}
		carved += chunks;
		freed += free_blocks;
	}
	ASSERT_EQ(seeded, 1);
	ASSERT_EQ(with_chunks, 2);
	ASSERT(carved > 0);
	/* The outside pool's blocks given out: fib's one root. */
	struct taskpool outside = { rt->outside_pool.free, rt->outside_pool.chunks };
	size_t out_nall = nall;
	pool_walk(&outside, &chunks, &free_blocks, all, &out_nall, cap);
	ASSERT_EQ(chunks * per_chunk - free_blocks, 1);
	ASSERT_EQ(freed, carved * per_chunk + 1);
	qsort(all, out_nall, sizeof *all, cmp_ptr);
	for (size_t i = 1; i < out_nall; i++)
		ASSERT(all[i] != all[i - 1]);
	free(all);
}

/*
 * The engine passes one task pool from each stepped worker to the next
 * (pool_pass), in exchange for the next one's own. Worker 3 is given a
 * pool of its own before the run (one chunk, its blocks all free): after
 * fib(16) on 8 workers, that pool is still whole in some worker's hands,
 * exactly one other pool holds every chunk the run carved (per-worker
 * pools would leave one per worker that forked), and every block is free
 * once and only once: the blocks carved, plus the root the outside pool
 * gave, less none.
 */
static void one_free_list(void)
{
	static const char *const params[] = { "n=16", NULL };
	struct sim_out o;
	sim_run("volt", "fib", 8, params, 1, 0, &o, seed_worker_3_pool, check_pools);
	if (o.verify)
		TEST_FAIL("fib: %s", o.err);
}

/*
 * spawn-many from=worker on 16 workers: the root's one poll spawns n tasks,
 * the i-th at least i spawn costs into the poll, so no run can end before
 * n x spawn. Steps run whole, so without the in-step clock and the wait
 * for a task's spawn (engine_sim.c sim_await_ready) thieves stepped at
 * their own earlier clocks ran the root's tasks before they were spawned:
 * go, whose thieves take half the root's ring at once, ended at a sixth of
 * that.
 */
static void spawns_are_causal(void)
{
	#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	const uint32_t n = 4000;	/* each step is 10 to 50 times slower */
#else
	const uint32_t n = 20000;
#endif
	char np[32];
	snprintf(np, sizeof np, "n=%u", n);
	const char *const params[] = { np, "from=0", NULL };
	struct sim_costs c;
	sim_costs_default(&c);
	for (size_t i = 0; policy_table[i]; i++) {
		const struct policy *p = policy_table[i];
		if (p->test_only)
			continue;
		struct sim_out o;
		sim_run(p->name, "spawn-many", 16, params, 1, 0, &o, NULL, NULL);
		if (o.verify)
			TEST_FAIL("%s: %s", p->name, o.err);
		if (o.makespan < (uint64_t)n * c.spawn)
			TEST_FAIL("%s: makespan %llu ns below the root's %u spawns (%llu ns)", p->name,
				  (unsigned long long)o.makespan, n,
				  (unsigned long long)n * c.spawn);
	}
}

/* fib(0) and fib(1): the root's one poll finishes the run; it takes the
 * poll's cost, not the zero time a clock that stands still in a step
 * gave (the driver refuses an end time not after the start). */
static void one_poll_runs(void)
{
	static const char *const n0[] = { "n=0", NULL }, *const n1[] = { "n=1", NULL };
	struct sim_costs c;
	sim_costs_default(&c);
	struct sim_out o;
	sim_run("volt", "fib", 4, n0, 1, 0, &o, NULL, NULL);
	ASSERT_EQ(o.verify, 0);
	ASSERT(o.makespan >= c.poll && c.poll > 0);
	sim_run("tokio", "fib", 1, n1, 1, 0, &o, NULL, NULL);
	ASSERT_EQ(o.verify, 0);
	ASSERT(o.makespan >= c.poll);
}

int main(void)
{
	RUN(fib_on_many_workers);
	RUN(deterministic);
	RUN(one_free_list);
	RUN(one_poll_runs);
	RUN(spawns_are_causal);
	return 0;
}
