/*
 * sim_util.h - run a workload under a policy on the simulation engine and
 * collect what the theory tests compare: makespan, utilization, counters,
 * the workload's metrics and its end-to-end p99. Every figure is a
 * deterministic function of the seed and the cost table.
 */
#ifndef HARNESS_TESTS_SIM_UTIL_H
#define HARNESS_TESTS_SIM_UTIL_H

#include <errno.h>
#include <math.h>

#include "core/costs.h"
#include "core/hist.h"
#include "run_util.h"

/* The sanitizers make each simulated step 10 to 50 times slower: tests
 * shrink their sizes under them (never the Release ones). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SIM_SANITIZED 1
#else
#define SIM_SANITIZED 0
#endif

struct sim_out {
	uint64_t makespan;
	double util;
	struct worker_stats tot;
	double metric[WL_MAX_METRICS];
	const char *metric_name[WL_MAX_METRICS];
	size_t nmetrics;
	uint64_t p99;		/* end-to-end, when the workload has latencies */
	uint64_t span;		/* T_inf of the graph the run executed (core/span.h) */
	bool has_span;
	int rc;
	char why[256];
};

/* Called after a successful run, before teardown (may be NULL). */
typedef void (*sim_inspect_fn)(struct runtime *rt, const struct workload *wl, void *arg);

static inline void sim_run_costs(const char *policy, const char *const *knobs,
				 const char *workload, const char *const *params,
				 uint32_t workers, uint64_t explore, const struct sim_costs *costs,
				 struct sim_out *o, sim_inspect_fn inspect, void *arg)
{
	const struct policy *p = policy_find(policy);
	const struct workload *wl = workload_find(workload);
	if (!p || !wl)
		TEST_FAIL("%s or %s is not registered", policy, workload);
	double kv[64], pv[64];
	ASSERT(p->nknobs <= 64 && wl->nparams <= 64);
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	apply_settings(wl->params, wl->nparams, pv, params);
	struct rt_config cfg = { .workers = workers, .seed = 1, .sample_period = 0,
				 .hist_digits = 3, .watchdog_ns = 600000000000ull,
				 .explore = explore != 0 };
	char err[256];
	struct engine *e = engine_sim_create(workers, costs, explore);
	ASSERT(e);
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
		o->has_span = rt->has_span;
		o->span = rt->span_ns;
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
		if (inspect)
			inspect(rt, wl, arg);
	}
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* The default cost table, no inspection. */
static inline void sim(const char *policy, const char *const *knobs, const char *workload,
		       const char *const *params, uint32_t workers, uint64_t explore,
		       struct sim_out *o)
{
	sim_run_costs(policy, knobs, workload, params, workers, explore, NULL, o, NULL, NULL);
}

#endif
