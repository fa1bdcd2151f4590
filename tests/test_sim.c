/*
 * test_sim.c - the simulation engine: the same policies and workloads on
 * virtual workers, verified; the same seed gives the same run, another
 * explore seed another step order; fib(20) up to 64 workers: every task
 * completed once, no speedup above P over the one-worker run (the work
 * bound T_P >= T_1 / P) and some speedup at every P >= 2. (The tight
 * bounds and efficiency of fib(30) are in test_sim_scaling.)
 */
#include "core/costs.h"
#include "run_util.h"

struct sim_out {
	uint64_t makespan, steps, tasks;
	struct worker_stats tot;
	int verify;
	char err[256];
};

static void sim_run(const char *policy, const char *workload, uint32_t workers,
		    const char *const *params, uint64_t seed, uint64_t explore, struct sim_out *o)
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
	ASSERT_EQ(e->ops->run(e, rt, run_start, (void *)wl), 0);
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
		sim_run("volt", "fib", counts[i], params, 1, 0, &o);
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
	sim_run("volt", "fib", 8, params, 7, 0, &a);
	sim_run("volt", "fib", 8, params, 7, 0, &b);
	ASSERT_U64_EQ(a.makespan, b.makespan);
	ASSERT_U64_EQ(a.steps, b.steps);
	ASSERT(memcmp(&a.tot, &b.tot, sizeof a.tot) == 0);
	/* Another tie-break seed: another interleaving of the same work. */
	sim_run("volt", "fib", 8, params, 7, 99, &c);
	ASSERT_U64_EQ(c.tasks, a.tasks);
	ASSERT(c.makespan != a.makespan || memcmp(&a.tot, &c.tot, sizeof a.tot) != 0);
}

int main(void)
{
	RUN(fib_on_many_workers);
	RUN(deterministic);
	return 0;
}
