/*
 * run_util.h - run a workload under a policy on the threads engine, for
 * tests that need a whole run (the harness binary does the same with
 * trials, baselines and reports).
 */
#ifndef HARNESS_TESTS_RUN_UTIL_H
#define HARNESS_TESTS_RUN_UTIL_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/runtime.h"
#include "policies/policy.h"
#include "test.h"
#include "workloads/workload.h"

struct run_result {
	uint64_t makespan_ns;
	uint64_t tasks;
	int verify_rc;
	char err[256];
	struct worker_stats total;
};

/* "name=value" settings applied over the defaults of a knob table. */
static inline void apply_settings(const struct knob_def *defs, size_t n, double *vals,
				  const char *const *settings)
{
	knob_defaults(defs, n, vals);
	for (; settings && *settings; settings++) {
		char name[64], err[256];
		const char *eq = strchr(*settings, '=');
		ASSERT(eq && (size_t)(eq - *settings) < sizeof name);
		memcpy(name, *settings, (size_t)(eq - *settings));
		name[eq - *settings] = '\0';
		int i = knob_find(defs, n, name);
		if (i < 0)
			TEST_FAIL("unknown setting %s", *settings);
		if (knob_parse(&defs[i], eq + 1, &vals[i], err, sizeof err) != 0)
			TEST_FAIL("%s", err);
	}
}

/*
 * A runtime the test thread drives by hand, acting as the owner of its
 * workers (worker_run_task, policy ops called directly), or runs with
 * e->ops->run. The policy's check must accept the configuration.
 */
static inline struct runtime *hand_runtime_for(const struct policy *p, uint32_t workers,
					       uint64_t seed, uint64_t watchdog_ns,
					       const char *const *knobs, struct engine **e)
{
	double kv[64];
	ASSERT(p->nknobs <= 64);
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	struct rt_config cfg = { .workers = workers, .seed = seed, .sample_period = 0,
				 .hist_digits = 2, .watchdog_ns = watchdog_ns };
	char err[256];
	if (p->check && p->check(&cfg, kv, err, sizeof err) != 0)
		TEST_FAIL("%s check: %s", p->name, err);
	*e = engine_threads_create(workers);
	ASSERT(*e);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, *e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	return rt;
}

static const struct task_vtable dummy_vt = { .name = "dummy" };

/* Spawn a task that is never polled, to watch where the policy puts it. */
static inline void spawn_dummy(struct worker *w, struct task *t)
{
	task_init(t, &dummy_vt);
	rt_spawn(w, t);
}

static void run_start(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->start(rt->user, rt);	/* the engine recorded start_ns */
}

static void run_place(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->place(rt->user, rt);
}

/* Set by a test to run whole workloads on the simulation engine, and the
 * sim's costs (NULL: the default table). */
static bool run_util_use_sim;
static const struct sim_costs *run_util_costs;

/* Optional hook: called with the runtime after the run, before teardown. */
typedef void (*run_inspect_fn)(struct runtime *rt, void *arg);

static inline void run_workload_inspect(const char *policy, const char *workload,
					uint32_t workers, const char *const *knobs,
					const char *const *params, uint64_t seed,
					struct run_result *out, run_inspect_fn inspect, void *arg)
{
	const struct policy *p = policy_find(policy);
	const struct workload *wl = workload_find(workload);
	ASSERT(p && wl);
	double kv[64], pv[64];
	ASSERT(p->nknobs <= 64 && wl->nparams <= 64);
	apply_settings(p->knobs, p->nknobs, kv, knobs);
	apply_settings(wl->params, wl->nparams, pv, params);

	/* A lost wakeup fails the test with a stall report, never hangs it. */
	struct rt_config cfg = { .workers = workers, .seed = seed, .sample_period = 64,
				 .hist_digits = 3, .watchdog_ns = 20000000000ull };
	char err[256];
	if (p->check)
		ASSERT_EQ(p->check(&cfg, kv, err, sizeof err), 0);
	struct engine *e = run_util_use_sim ? engine_sim_create(workers, run_util_costs, 0)
					    : engine_threads_create(workers);
	ASSERT(e);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->user = wl->create(pv, workers, seed);
	ASSERT(rt->user);
	if (wl->place) {
		rt->place = run_place;
		rt->place_arg = (void *)wl;
	}
	ASSERT_EQ(e->ops->run(e, rt, run_start, (void *)wl), 0);

	memset(out, 0, sizeof *out);
	out->makespan_ns = rt->end_ns - rt->start_ns;
	out->tasks = wl->tasks(rt->user);
	out->verify_rc = wl->verify(rt->user, out->err, sizeof out->err);
	rt_total_stats(rt, &out->total);
	if (inspect)
		inspect(rt, arg);
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
}

static inline void run_workload(const char *policy, const char *workload, uint32_t workers,
				const char *const *knobs, const char *const *params,
				struct run_result *out)
{
	run_workload_inspect(policy, workload, workers, knobs, params, 1, out, NULL, NULL);
}

/* ---- a remote spawn onto sleeping workers ---- */

/* A task that records which worker polled it and ends the run. */
struct one_shot {
	struct task task;
	_Atomic int32_t ran_on;	/* -1 until polled */
};

static inline enum task_poll one_shot_poll(struct task *t, struct worker *w)
{
	struct one_shot *o = (struct one_shot *)t;
	atomic_store(&o->ran_on, (int32_t)w->index);
	rt_finish(w->rt, w);
	return TASK_DONE;
}

static const struct task_vtable one_shot_vt = { .name = "one-shot", .poll = one_shot_poll };

struct sleepers_probe {
	uint32_t (*asleep)(struct runtime *rt);	/* how many workers sleep now */
	struct one_shot task;
	uint32_t asleep_seen;
};

/* Engine start callback: wait until every worker sleeps (bounded, and
 * waiting for a state, not timing anything), then inject the task. */
static inline void start_when_all_asleep(struct runtime *rt, void *arg)
{
	struct sleepers_probe *p = arg;
	struct timespec ms = { 0, 1000000 };
	ASSERT(!rt->engine->ops->one_thread);	/* engine_threads_sleeping's */
	/* Asleep by the policy's count and by the engine's: a worker counted
	 * parked may not have published itself to a notifier yet (central's
	 * count comes before its bit), and one that is sleeping has (its
	 * policy's last look is behind it). */
	for (int i = 0; i < 10000 && (p->asleep(rt) < rt->nworkers ||
				       engine_threads_sleeping(rt->engine) < rt->nworkers); i++)
		nanosleep(&ms, NULL);
	p->asleep_seen = p->asleep(rt);
	rt->start_ns = rt_now(rt, NULL);
	task_init(&p->task.task, &one_shot_vt);
	rt_spawn_remote(rt, &p->task.task);
}

/*
 * Run rt (on engine e) until a task injected while every worker sleeps has
 * run. Returns how many workers were asleep at the injection; *ran_on is
 * the worker that polled the task (-1 if none did).
 */
static inline uint32_t spawn_onto_sleepers(struct engine *e, struct runtime *rt,
					   uint32_t (*asleep)(struct runtime *rt), int32_t *ran_on)
{
	struct sleepers_probe p = { .asleep = asleep };
	atomic_init(&p.task.ran_on, -1);
	ASSERT_EQ(e->ops->run(e, rt, start_when_all_asleep, &p), 0);
	*ran_on = atomic_load(&p.task.ran_on);
	return p.asleep_seen;
}

/*
 * The check every sleeping policy's test makes with it: a task injected
 * while all of rt's workers sleep is run by a worker that a notify woke,
 * no park timed out, and the task went through the global queue once.
 * Tears rt and e down.
 */
static inline void assert_notify_runs_spawn_onto_sleepers(struct engine *e, struct runtime *rt,
							  uint32_t (*asleep)(struct runtime *rt))
{
	int32_t ran_on;
	uint32_t seen = spawn_onto_sleepers(e, rt, asleep, &ran_on);
	struct worker_stats tot;
	rt_total_stats(rt, &tot);
	ASSERT_EQ(seen, rt->nworkers);
	ASSERT(ran_on >= 0);
	ASSERT(tot.unparks_notify >= 1);
	ASSERT_U64_EQ(tot.unparks_timeout, 0);
	ASSERT_U64_EQ(tot.global_tasks, 1);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* Sleepers in the core idle state (the bitmap's parked count). */
static inline uint32_t idle_parked(struct runtime *rt)
{
	return atomic_load(&rt->idle.num_parked);
}

#endif
