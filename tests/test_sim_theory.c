/*
 * test_sim_theory.c - the simulation engine against theory (REFERENCE.md
 * sections 5 to 7). Every figure here is a deterministic function of the
 * seed, so the assertions are exact checks of the model, not timings.
 *
 *  - static-partition with random routing is k independent M/M/1 queues:
 *    p99 response = ln(100) / (mu (1 - rho));
 *  - central-queue is M/M/16: p99 from the Erlang C table;
 *  - the imbalanced example: static partition 750 / (4 * 350) = 53.6%,
 *    a stealing policy at least 95%;
 *  - fib(30) from 2 to 64 workers under volt and steal-one: the makespan
 *    never beats max(T1 / P, Tinf), efficiency T1 / (P makespan) >= 0.8 at
 *    64 workers, and steals grow with P. T1 is the work of the task graph
 *    under the same cost table, measured as its run on one virtual worker
 *    (all of it serial); Tinf is the graph's critical path, a poll and two
 *    spawns per level down and a join poll per level up;
 *  - --explore-style runs: the deliberately broken policy is caught within
 *    100 seeds, the real policies show nothing within 1000.
 */
#include <errno.h>
#include <math.h>

#include "core/costs.h"
#include "run_util.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define EXPLORE_SEEDS 100	/* the sanitizers make each run 10-50x slower */
#else
#define EXPLORE_SEEDS 1000
#endif

struct sim_out {
	uint64_t makespan;
	double util;
	struct worker_stats tot;
	double metric[WL_MAX_METRICS];
	const char *metric_name[WL_MAX_METRICS];
	size_t nmetrics;
	uint64_t p99;		/* end-to-end, when the workload has latencies */
	int rc;
	char why[256];
};

static void sim(const char *policy, const char *const *knobs, const char *workload,
		const char *const *params, uint32_t workers, uint64_t explore, struct sim_out *o)
{
	const struct policy *p = policy_find(policy);
	const struct workload *wl = workload_find(workload);
	if (!p || !wl)
		TEST_FAIL("%s or %s is not registered", policy, workload);
	double kv[64], pv[64];
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	apply_settings(wl->params, wl->nparams, pv, params);
	struct rt_config cfg = { .workers = workers, .seed = 1, .sample_period = 0,
				 .hist_digits = 3, .watchdog_ns = 600000000000ull,
				 .explore = explore != 0 };
	char err[256];
	struct engine *e = engine_sim_create(workers, NULL, explore);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->user = wl->create(pv, workers, 1);
	ASSERT(rt->user);
	if (wl->place) {
		rt->place = run_place;
		rt->place_arg = (void *)wl;
	}
	memset(o, 0, sizeof *o);
	o->rc = e->ops->run(e, rt, run_start, (void *)wl);
	snprintf(o->why, sizeof o->why, "%s", rt->violation);
	if (o->rc == 0) {
		if (wl->verify(rt->user, err, sizeof err) != 0)
			TEST_FAIL("%s under %s: %s", workload, policy, err);
		o->makespan = rt->end_ns - rt->start_ns;
		rt_total_stats(rt, &o->tot);
		o->util = (double)o->tot.busy_ns / ((double)workers * (double)o->makespan);
		struct wl_metric m[WL_MAX_METRICS];
		o->nmetrics = wl->metrics ? wl->metrics(rt->user, m, WL_MAX_METRICS) : 0;
		for (size_t i = 0; i < o->nmetrics; i++) {
			o->metric[i] = m[i].value;
			o->metric_name[i] = m[i].name;
		}
		if (wl->latencies) {
			const uint64_t *lat;
			size_t n = wl->latencies(rt->user, &lat);
			struct hist h;
			ASSERT_EQ(hist_init(&h, 3, HIST_HIGHEST_NS), 0);
			for (size_t i = 0; i < n; i++)
				hist_record(&h, lat[i]);
			o->p99 = hist_percentile(&h, 99);
			hist_destroy(&h);
		}
	}
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* Mean service 1 ms, exponential: the model's costs (tens of ns) and wake
 * latency (5 us) stay well below the 5% tolerance. */
static void open_loop(const char *policy, const char *const *knobs, double rho, struct sim_out *o)
{
	char load[32];
	snprintf(load, sizeof load, "load=%g", rho);
	const char *const params[] = { load, "service_us=1000", "dist=1", "requests=200000", NULL };
	sim(policy, knobs, "open-loop", params, 16, 0, o);
	ASSERT_EQ(o->rc, 0);
}

static const double loads[] = { 0.5, 0.7, 0.9 };

static void partitioned_is_mm1(void)
{
	static const char *const knobs[] = { "routing=1", NULL };	/* random */
	for (int i = 0; i < 3; i++) {
		struct sim_out o;
		open_loop("static-partition", knobs, loads[i], &o);
		double theory = log(100.0) * 1e6 / (1 - loads[i]);
		fprintf(stderr, "    rho %.1f: p99 %.3f ms, M/M/1 %.3f ms (%+.1f%%)\n", loads[i],
			o.p99 / 1e6, theory / 1e6, 100 * (o.p99 - theory) / theory);
		ASSERT_NEAR(o.p99, theory, 0.05 * theory);
	}
}

static void central_is_mmk(void)
{
	static const double table[] = { 4.61, 4.64, 5.27 };	/* REFERENCE.md 6, k = 16 */
	for (int i = 0; i < 3; i++) {
		struct sim_out o;
		open_loop("central-queue", NULL, loads[i], &o);
		double theory = table[i] * 1e6;
		fprintf(stderr, "    rho %.1f: p99 %.3f ms, M/M/16 %.3f ms (%+.1f%%)\n", loads[i],
			o.p99 / 1e6, theory / 1e6, 100 * (o.p99 - theory) / theory);
		ASSERT_NEAR(o.p99, theory, 0.05 * theory);
	}
}

static void imbalanced_utilization(void)
{
	struct sim_out o;
	sim("static-partition", NULL, "imbalanced", NULL, 4, 0, &o);
	ASSERT_EQ(o.rc, 0);
	fprintf(stderr, "    static-partition: %.2f%%\n", 100 * o.util);
	ASSERT_NEAR(o.util, 750.0 / (4 * 350.0), 0.001);
	ASSERT_EQ(o.tot.steals, 0);
	sim("volt", NULL, "imbalanced", NULL, 4, 0, &o);
	ASSERT_EQ(o.rc, 0);
	fprintf(stderr, "    volt: %.2f%%\n", 100 * o.util);
	ASSERT(o.util >= 0.95);
}

/* The critical path of fib(n) under the cost table (see the header). */
static uint64_t fib_span(uint32_t n, const struct sim_costs *c)
{
	return n < 2 ? c->poll : (uint64_t)(n - 1) * (2 * c->poll + 2 * c->spawn) + c->poll;
}

static void fib_scaling(const char *policy)
{
	static const char *const params[] = { "n=30", NULL };
	static const uint32_t counts[] = { 2, 4, 8, 16, 32, 64 };
	struct sim_costs costs;
	sim_costs_default(&costs);
	struct sim_out one, o;
	sim(policy, NULL, "fib", params, 1, 0, &one);
	ASSERT_EQ(one.rc, 0);
	double t1 = (double)one.makespan, tinf = (double)fib_span(30, &costs);
	uint64_t last_steals = 0;
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		uint32_t p = counts[i];
		sim(policy, NULL, "fib", params, p, 0, &o);
		ASSERT_EQ(o.rc, 0);
		double bound = fmax(t1 / p, tinf), eff = t1 / (p * (double)o.makespan);
		fprintf(stderr, "    %s P=%2u: makespan %.3f ms, bound %.3f ms, efficiency %.3f, "
			"%llu steals\n", policy, p, o.makespan / 1e6, bound / 1e6, eff,
			(unsigned long long)o.tot.steals);
		ASSERT((double)o.makespan >= bound);
		ASSERT(o.tot.steals > last_steals);
		last_steals = o.tot.steals;
		if (p == 64)
			ASSERT(eff >= 0.8);
	}
}

static void fib_bounds_volt(void)
{
	fib_scaling("volt");
}

static void fib_bounds_steal_one(void)
{
	fib_scaling("steal-one");
}

/* Small runs that inject from outside (so the sleep protocol matters). */
static const char *const explore_params[] = { "requests=300", "service_us=20", "load=0.8",
					       NULL };

static void explore_finds_broken_policy(void)
{
	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct sim_out o;
		sim("volt-broken", NULL, "open-loop", explore_params, 8, seed, &o);
		if (o.rc != 0) {
			fprintf(stderr, "    seed %llu: %s\n", (unsigned long long)seed, o.why);
			ASSERT_EQ(o.rc, -EPROTO);
			ASSERT(strstr(o.why, "a lost wakeup"));
			return;
		}
	}
	TEST_FAIL("volt-broken survived 100 explore seeds");
}

static void explore_real_policies_clean(void)
{
	for (size_t i = 0; policy_table[i]; i++) {
		const struct policy *p = policy_table[i];
		if (p->test_only)
			continue;
		for (uint64_t seed = 1; seed <= EXPLORE_SEEDS; seed++) {
			struct sim_out o;
			sim(p->name, NULL, "open-loop", explore_params, seed % 2 ? 8 : 3, seed, &o);
			if (o.rc != 0)
				TEST_FAIL("%s, explore seed %llu: rc %d: %s", p->name,
					  (unsigned long long)seed, o.rc, o.why);
		}
		fprintf(stderr, "    %s: %d seeds clean\n", p->name, EXPLORE_SEEDS);
	}
}

int main(void)
{
	RUN(partitioned_is_mm1);
	RUN(central_is_mmk);
	RUN(imbalanced_utilization);
	RUN(fib_bounds_volt);
	RUN(fib_bounds_steal_one);
	RUN(explore_finds_broken_policy);
	RUN(explore_real_policies_clean);
	return 0;
}
