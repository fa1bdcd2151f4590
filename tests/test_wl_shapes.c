/*
 * test_wl_shapes.c - Tokio's benchmark shapes (spawn-many, chained-spawn,
 * yield-many, ping-pong) under volt on 1, 2 and 4 workers: each run
 * verified by the workload, and the exact task, spawn, injection and poll
 * counts each shape implies checked against the core's counters. Then the
 * ping-pong starvation probe: on one worker a single pair ping-pongs many
 * rounds with its third task queued behind it, and the round at which the
 * third task ran shows whether the LIFO cap let it in.
 */
#include "run_util.h"

struct shape_run {
	const struct workload *wl;
	struct run_result r;
	uint64_t remote;
	struct wl_metric m[WL_MAX_METRICS];
	size_t nm;
};

static void grab(struct runtime *rt, void *arg)
{
	struct shape_run *s = arg;
	s->remote = atomic_load(&rt->remote_spawns);
	/* The names are the workload's string literals: they outlive it. */
	s->nm = s->wl->metrics(rt->user, s->m, WL_MAX_METRICS);
}

static void run_shape(const char *wl, uint32_t workers, const char *const *knobs,
		      const char *const *params, struct shape_run *s)
{
	memset(s, 0, sizeof *s);
	s->wl = workload_find(wl);
	ASSERT(s->wl);
	run_workload_inspect("volt", wl, workers, knobs, params, 7, &s->r, grab, s);
	if (s->r.verify_rc != 0)
		TEST_FAIL("%s on %u workers: %s", wl, workers, s->r.err);
	/* Every task created completed once, and the workload counted it. */
	ASSERT_U64_EQ(s->r.total.completions, s->r.total.spawns + s->remote);
	ASSERT_U64_EQ(s->r.tasks, s->r.total.completions);
}

static double metric(const struct shape_run *s, const char *name)
{
	for (size_t i = 0; i < s->nm; i++)
		if (strcmp(s->m[i].name, name) == 0)
			return s->m[i].value;
	TEST_FAIL("%s reports no metric %s", s->wl->name, name);
}

static const uint32_t counts[] = { 1, 2, 4 };
#define NCOUNTS (sizeof counts / sizeof counts[0])

static void spawn_many_from_inside(void)
{
	static const char *const params[] = { "n=5000", "from=0", NULL };
	for (size_t i = 0; i < NCOUNTS; i++) {
		struct shape_run s;
		run_shape("spawn-many", counts[i], NULL, params, &s);
		/* One injected root spawned every task from inside a worker;
		 * nothing yields or waits, so each task is polled once. */
		ASSERT_U64_EQ(s.remote, 1);
		ASSERT_U64_EQ(s.r.total.spawns, 5000);
		ASSERT_U64_EQ(s.r.total.polls, 5001);
		ASSERT_U64_EQ(s.r.total.repolls, 0);
		ASSERT_EQ(metric(&s, "leaves"), 5000);
		if (counts[i] == 1)
			ASSERT_EQ(metric(&s, "busiest_share"), 1);
		fprintf(stderr, "    %u workers: busiest worker ran %.0f%%, steals %llu\n",
			counts[i], 100 * metric(&s, "busiest_share"),
			(unsigned long long)s.r.total.steals);
	}
}

static void spawn_many_from_outside(void)
{
	static const char *const params[] = { "n=5000", "from=1", NULL };
	for (size_t i = 0; i < NCOUNTS; i++) {
		struct shape_run s;
		run_shape("spawn-many", counts[i], NULL, params, &s);
		/* Every task injected by the harness thread, none spawned. */
		ASSERT_U64_EQ(s.remote, 5000);
		ASSERT_U64_EQ(s.r.total.spawns, 0);
		ASSERT_U64_EQ(s.r.total.polls, 5000);
		ASSERT(s.r.total.global_tasks > 0);
		ASSERT_EQ(metric(&s, "leaves"), 5000);
	}
}

static void spawn_many_with_work(void)
{
	static const char *const params[] = { "n=200", "work_ns=10000", NULL };
	struct shape_run s;
	run_shape("spawn-many", 2, NULL, params, &s);
	ASSERT_U64_EQ(s.r.total.polls, 201);
}

static void chained_spawn(void)
{
	static const char *const params[] = { "n=1000", NULL };
	for (size_t i = 0; i < NCOUNTS; i++) {
		struct shape_run s;
		run_shape("chained-spawn", counts[i], NULL, params, &s);
		/* Link 0 injected, each other link spawned by its predecessor. */
		ASSERT_U64_EQ(s.remote, 1);
		ASSERT_U64_EQ(s.r.total.spawns, 999);
		ASSERT_U64_EQ(s.r.total.polls, 1000);
		ASSERT_EQ(metric(&s, "links"), 1000);
		if (counts[i] == 1)
			ASSERT_EQ(metric(&s, "migrations"), 0);
	}
}

static void yield_many(void)
{
	static const char *const params[] = { "tasks=50", "yields=300", NULL };
	for (size_t i = 0; i < NCOUNTS; i++) {
		struct shape_run s;
		run_shape("yield-many", counts[i], NULL, params, &s);
		ASSERT_U64_EQ(s.remote, 50);
		ASSERT_U64_EQ(s.r.total.spawns, 0);
		/* Each task polled yields + 1 times; each yield is a wake
		 * during the task's own poll, which the core re-polls once. */
		ASSERT_U64_EQ(s.r.total.polls, 50 * 301);
		ASSERT_U64_EQ(s.r.total.repolls, 50 * 300);
		ASSERT_EQ(metric(&s, "yields"), 50 * 300);
		ASSERT_EQ(metric(&s, "polls"), 50 * 301);
		if (counts[i] == 1)
			ASSERT_EQ(metric(&s, "migrations"), 0);
	}
}

static void ping_pong(void)
{
	static const char *const params[] = { "pairs=200", "rounds=20", NULL };
	for (size_t i = 0; i < NCOUNTS; i++) {
		struct shape_run s;
		run_shape("ping-pong", counts[i], NULL, params, &s);
		/* The root spawns a third task and a ping per pair; each ping
		 * spawns its pong. */
		ASSERT_U64_EQ(s.remote, 1);
		ASSERT_U64_EQ(s.r.total.spawns, 200 * 3);
		/* Root 1; per pair: ping 21, pong 20, third 1. */
		ASSERT_U64_EQ(s.r.total.polls, 1 + 200 * (21 + 20 + 1));
		ASSERT_EQ(metric(&s, "rounds"), 200 * 20);
		ASSERT_EQ(metric(&s, "messages"), 2 * 200 * 20);
		fprintf(stderr, "    %u workers: %.0f of 200 third tasks ran before their pair "
			"ended\n", counts[i], metric(&s, "third_early"));
	}

	static const char *const bare[] = { "pairs=50", "rounds=7", "third=0", NULL };
	struct shape_run s;
	run_shape("ping-pong", 2, NULL, bare, &s);
	ASSERT_U64_EQ(s.r.total.spawns, 50 * 2);
	ASSERT_U64_EQ(s.r.total.polls, 1 + 50 * (8 + 7));
	ASSERT_EQ(metric(&s, "rounds"), 50 * 7);
}

/*
 * One worker, one pair of 1,000 rounds, its third task queued in the ring
 * behind the pair's ping. Returns the rounds the pair had completed when
 * the third task ran.
 */
static uint32_t third_task_round(const char *lifo_cap)
{
	static const char *const params[] = { "pairs=1", "rounds=1000", "third=1", NULL };
	const char *const knobs[] = { lifo_cap, NULL };
	struct shape_run s;
	run_shape("ping-pong", 1, knobs, params, &s);
	ASSERT_EQ(metric(&s, "third_round_min"), metric(&s, "third_round_max"));
	uint32_t round = (uint32_t)metric(&s, "third_round_max");
	ASSERT_EQ(metric(&s, "third_early"), round < 1000);
	fprintf(stderr, "    %s: the third task ran after round %u of 1000 (%llu LIFO polls)\n",
		lifo_cap, round, (unsigned long long)s.r.total.lifo_polls);
	return round;
}

static void ping_pong_lifo_cap(void)
{
	/* Volt's cap: ping, pong, ping from the slot (round 1 done), then
	 * the slot is flushed behind the third task, which runs next. */
	ASSERT(third_task_round("lifo_cap=3") <= 2);
	/* A cap that never triggers: the pair keeps the slot, tick after
	 * tick, until it is done. The probe can fail. */
	ASSERT_EQ(third_task_round("lifo_cap=1000000000"), 1000);
	/* No slot: FIFO order, the third task was queued first. */
	ASSERT_EQ(third_task_round("lifo_cap=0"), 0);
}

/* The baselines compute the same answers with plain calls. */
static void sequential_baselines(void)
{
	static const char *const names[] = { "spawn-many", "chained-spawn", "yield-many",
					     "ping-pong" };
	static const uint64_t tasks[] = { 2001, 300, 20, 1 + 100 * 3 };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct workload *wl = workload_find(names[i]);
		ASSERT(wl && wl->nparams <= 64);
		double pv[64];
		char err[256] = "";
		apply_settings(wl->params, wl->nparams, pv, wl->quick_params);
		void *inst = wl->create(pv, 1, 1);
		ASSERT(inst);
		wl->run_sequential(inst);
		if (wl->verify(inst, err, sizeof err) != 0)
			TEST_FAIL("%s baseline: %s", names[i], err);
		ASSERT_U64_EQ(wl->tasks(inst), tasks[i]);
		wl->destroy(inst);
	}
	/* The baseline's compute path: 10 tasks of 1 ms each. */
	static const char *const slow[] = { "n=10", "work_ns=1000000", NULL };
	const struct workload *wl = workload_find("spawn-many");
	double pv[64];
	char err[256] = "";
	apply_settings(wl->params, wl->nparams, pv, slow);
	void *inst = wl->create(pv, 1, 1);
	ASSERT(inst);
	wl->run_sequential(inst);
	ASSERT_EQ(wl->verify(inst, err, sizeof err), 0);
	ASSERT_U64_EQ(wl->tasks(inst), 11);
	wl->destroy(inst);
}

int main(void)
{
	RUN(spawn_many_from_inside);
	RUN(spawn_many_from_outside);
	RUN(spawn_many_with_work);
	RUN(chained_spawn);
	RUN(yield_many);
	RUN(ping_pong);
	RUN(ping_pong_lifo_cap);
	RUN(sequential_baselines);
	return 0;
}
