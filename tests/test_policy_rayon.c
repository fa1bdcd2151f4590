/*
 * test_policy_rayon.c - the rayon policy: fib correct on 1, 2, 3 and 8
 * workers; the jobs-event-counter sleep protocol driven by hand through the
 * counters word (announcing sleepy makes the JEC even, a post makes it odd,
 * a sleepy worker whose JEC moved does not sleep but announces again at its
 * next round, rayon-core's wake_partly; nor does one that sees injected
 * jobs); whom posts and finds wake; knobs; the worker limit; and a remote
 * spawn onto sleeping workers picked up by a woken worker, not by a timeout;
 * the CPU yielded by every idle round before a sleep; wake_on_find=0 with
 * rounds_until_sleepy=0 clean under --explore-style runs of open-loop with
 * I/O.
 */
#include <time.h>

#include "core/costs.h"
#include "hand_engine.h"
#include "run_util.h"
#include "sim_util.h"

extern const struct policy policy_rayon;
/* policies/rayon.c's test interface. */
uint64_t rayon_counters_word(const struct runtime *rt);
uint32_t rayon_sleep_flag(const struct runtime *rt, uint32_t worker);

/* The documented layout of the counters word. */
static uint32_t sleeping(uint64_t c)
{
	return (uint32_t)(c & 0xffff);
}
static uint32_t inactive(uint64_t c)
{
	return (uint32_t)((c >> 16) & 0xffff);
}
static uint32_t jec(uint64_t c)
{
	return (uint32_t)(c >> 32);
}

enum { AWAKE = 0, SLEEPING = 1, NOTIFIED = 2 };

static struct runtime *hand_runtime(uint32_t workers, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(&policy_rayon, workers, 1, 0, knobs, e);
}

static void spawn_remote(struct runtime *rt, struct task *t)
{
	task_init(t, &dummy_vt);
	rt_spawn_remote(rt, t);
}

static uint64_t word(struct runtime *rt)
{
	return rayon_counters_word(rt);
}

/* Run worker w's idle rounds by hand: n failed rounds (park says "not
 * yet"). */
static void idle_rounds(struct worker *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t timeout = 0;
		ASSERT(!policy_rayon.park(w, &timeout));
	}
}

/* Put worker w to sleep by hand from the active state: a failed search, 32
 * rounds, the announcement, one more round, the sleep. */
static void put_to_sleep(struct worker *w)
{
	ASSERT(policy_rayon.find_work(w) == NULL);
	idle_rounds(w, 33);
	uint64_t timeout = 0;
	ASSERT(policy_rayon.park(w, &timeout));
	ASSERT_U64_EQ(timeout, PARK_FOREVER);
}

static void jec_protocol(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, NULL, &e);
	const struct policy *p = &policy_rayon;
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct task a, b, c, d;
	uint64_t timeout = 0;

	ASSERT_U64_EQ(word(rt), 0);
	/* A post makes the (even) JEC odd. */
	spawn_dummy(w1, &a);
	ASSERT_EQ(jec(word(rt)), 1);
	/* The owner pops LIFO; a post with the JEC odd leaves it. */
	spawn_dummy(w1, &b);
	ASSERT_EQ(jec(word(rt)), 1);
	ASSERT(p->find_work(w1) == &b);
	ASSERT(p->find_work(w1) == &a);
	ASSERT_EQ(inactive(word(rt)), 0);	/* w1 never looked elsewhere */

	/* w0 finds nothing: inactive. 32 rounds leave the JEC alone. */
	ASSERT(p->find_work(w0) == NULL);
	ASSERT_EQ(inactive(word(rt)), 1);
	idle_rounds(w0, 32);
	ASSERT_EQ(jec(word(rt)), 1);
	/* Round 33 announces sleepy: the JEC becomes even. */
	idle_rounds(w0, 1);
	ASSERT_EQ(jec(word(rt)), 2);
	/* A post makes it odd again... */
	spawn_dummy(w1, &c);
	ASSERT_EQ(jec(word(rt)), 3);
	/* ...so the sleepy worker does not sleep: it searches again. */
	ASSERT(!p->park(w0, &timeout));
	ASSERT_EQ(sleeping(word(rt)), 0);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), AWAKE);
	ASSERT(p->find_work(w0) == &c);		/* stolen from w1 */
	ASSERT_EQ(w0->st.steals, 1);
	ASSERT_EQ(w0->st.tasks_stolen, 1);
	ASSERT_EQ(inactive(word(rt)), 0);	/* found work: active */

	/* Again, with nothing posted: this time it sleeps. The
	 * announcement takes the JEC from 3 to 4. */
	ASSERT(p->find_work(w0) == NULL);
	idle_rounds(w0, 33);
	ASSERT_EQ(jec(word(rt)), 4);
	ASSERT(p->park(w0, &timeout));
	ASSERT_U64_EQ(timeout, PARK_FOREVER);
	ASSERT_EQ(sleeping(word(rt)), 1);
	ASSERT_EQ(inactive(word(rt)), 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), SLEEPING);

	/* A remote spawn: JEC odd, and the sleeper is claimed. */
	spawn_remote(rt, &d);
	ASSERT_EQ(jec(word(rt)), 5);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), NOTIFIED);
	p->unparked(w0, PARK_WOKEN);
	ASSERT_EQ(w0->st.unparks_notify, 1);
	ASSERT_EQ(sleeping(word(rt)), 0);	/* the woken one uncounts itself */
	ASSERT_EQ(inactive(word(rt)), 1);	/* still looking */
	ASSERT_EQ(rayon_sleep_flag(rt, 0), AWAKE);
	ASSERT(p->find_work(w0) == &d);
	ASSERT_EQ(w0->st.global_tasks, 1);
	ASSERT_EQ(inactive(word(rt)), 0);

	/* A task that lands on an inactive worker's own deque (a timer woken
	 * at its tick's start) makes it active when popped. */
	ASSERT(p->find_work(w0) == NULL);
	ASSERT_EQ(inactive(word(rt)), 1);
	spawn_dummy(w0, &a);
	ASSERT(p->find_work(w0) == &a);
	ASSERT_EQ(inactive(word(rt)), 0);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * rayon-core sleep/mod.rs, Sleep::sleep and IdleState::wake_partly: a post
 * between a worker's announcement and its sleep sends it back to just
 * before the announcement, not to round 0. With nothing to find, its next
 * round announces again (the JEC from odd to even) and the one after
 * sleeps; a restart at round 0 would yield rounds_until_sleepy more rounds
 * with the JEC left odd.
 */
static void wake_partly_reannounces(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, NULL, &e);
	const struct policy *p = &policy_rayon;
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct task a;
	uint64_t timeout = 0;

	ASSERT(p->find_work(w0) == NULL);
	idle_rounds(w0, 33);			/* 32 rounds, the announcement */
	ASSERT_EQ(jec(word(rt)), 0);		/* even: sleepy */
	spawn_dummy(w1, &a);			/* the post: odd */
	ASSERT_EQ(jec(word(rt)), 1);
	ASSERT(!p->park(w0, &timeout));		/* the JEC moved: no sleep */
	ASSERT_EQ(sleeping(word(rt)), 0);
	/* Its owner pops the job: w0's search finds nothing. */
	ASSERT(p->find_work(w1) == &a);
	ASSERT(p->find_work(w0) == NULL);
	ASSERT_EQ(inactive(word(rt)), 1);
	/* The next round is the announcement again... */
	ASSERT(!p->park(w0, &timeout));
	ASSERT_EQ(jec(word(rt)), 2);
	/* ...and the one after it the sleep. */
	ASSERT(p->park(w0, &timeout));
	ASSERT_U64_EQ(timeout, PARK_FOREVER);
	ASSERT_EQ(sleeping(word(rt)), 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), SLEEPING);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* A sleepy worker whose JEC did not move still does not sleep if the
 * injector holds jobs (Rayon's guard against a wrapped JEC). */
static void injected_jobs_prevent_sleep(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, NULL, &e);
	struct worker *w0 = &rt->workers[0];
	struct task t;
	uint64_t timeout = 0;
	ASSERT(policy_rayon.find_work(w0) == NULL);
	idle_rounds(w0, 33);
	uint64_t before = word(rt);
	/* Behind the policy's back: queued, but the JEC untouched. */
	task_init(&t, &dummy_vt);
	inject_push(&rt->inject, &t);
	ASSERT(!policy_rayon.park(w0, &timeout));
	ASSERT_U64_EQ(word(rt), before);	/* counted, then uncounted */
	ASSERT_EQ(rayon_sleep_flag(rt, 0), AWAKE);
	/* Back to round 0: 33 more failed rounds before the next sleep. */
	ASSERT(policy_rayon.find_work(w0) == &t);
	ASSERT(policy_rayon.find_work(w0) == NULL);
	idle_rounds(w0, 33);
	ASSERT(policy_rayon.park(w0, &timeout));
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * Whom posts and finds wake. Workers 0..2 asleep, worker 3 active.
 *  - a post on a non-empty deque wakes min(1, sleepers) = 1: worker 0;
 *  - a post on an empty deque with an awake idle thread wakes nobody;
 *  - a worker that finds work (here: by stealing) wakes up to 2.
 */
static void wake_counts(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(5, NULL, &e);
	const struct policy *p = &policy_rayon;
	struct worker *w = rt->workers;
	struct task t[4];
	for (int i = 0; i < 3; i++)
		put_to_sleep(&w[i]);
	ASSERT_EQ(sleeping(word(rt)), 3);
	ASSERT_EQ(inactive(word(rt)), 3);

	/* Worker 3's first push: the deque was empty, no awake idle thread
	 * (inactive 3 = sleeping 3): wake one. */
	spawn_dummy(&w[3], &t[0]);
	ASSERT_EQ(w[3].st.notifies, 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), NOTIFIED);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), SLEEPING);
	/* A second push onto the non-empty deque: wake one more. */
	spawn_dummy(&w[3], &t[1]);
	ASSERT_EQ(w[3].st.notifies, 2);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), NOTIFIED);
	ASSERT_EQ(rayon_sleep_flag(rt, 2), SLEEPING);
	/* Both woken workers come up and steal both tasks. */
	p->unparked(&w[0], PARK_WOKEN);
	p->unparked(&w[1], PARK_WOKEN);
	ASSERT_EQ(sleeping(word(rt)), 1);
	ASSERT_EQ(inactive(word(rt)), 3);
	ASSERT(p->find_work(&w[0]) == &t[0]);	/* the oldest */
	/* Found work with one sleeper left: wakes min(1, 2) = 1 (worker 2). */
	ASSERT_EQ(w[0].st.notifies, 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 2), NOTIFIED);
	ASSERT(p->find_work(&w[1]) == &t[1]);
	ASSERT_EQ(w[1].st.notifies, 0);		/* nobody left to wake */
	p->unparked(&w[2], PARK_WOKEN);
	ASSERT_EQ(sleeping(word(rt)), 0);
	ASSERT_EQ(inactive(word(rt)), 1);	/* worker 2, awake and idle */

	/* Worker 4 goes to sleep too: now 1 asleep, 1 awake idle (w2). */
	put_to_sleep(&w[4]);
	ASSERT_EQ(sleeping(word(rt)), 1);
	ASSERT_EQ(inactive(word(rt)), 2);
	/* A post onto an empty deque: the awake idle worker is counted as
	 * its taker, nobody is woken. */
	spawn_dummy(&w[3], &t[2]);
	ASSERT_EQ(w[3].st.notifies, 2);
	ASSERT_EQ(rayon_sleep_flag(rt, 4), SLEEPING);
	/* A second post, the deque non-empty now: wake the sleeper. */
	spawn_dummy(&w[3], &t[3]);
	ASSERT_EQ(w[3].st.notifies, 3);
	ASSERT_EQ(rayon_sleep_flag(rt, 4), NOTIFIED);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* The knobs reach the mechanism: wake_on_find=0 wakes nobody on a find,
 * rounds_until_sleepy=0 sleeps after one round. */
static void knobs_change_behaviour(void)
{
	static const char *const knobs[] = { "wake_on_find=0", "rounds_until_sleepy=0", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(3, knobs, &e);
	struct worker *w = rt->workers;
	struct task t;
	uint64_t timeout = 0;
	ASSERT(policy_rayon.find_work(&w[0]) == NULL);
	idle_rounds(&w[0], 1);			/* round 0: announce */
	ASSERT(policy_rayon.park(&w[0], &timeout));
	ASSERT(policy_rayon.find_work(&w[1]) == NULL);
	idle_rounds(&w[1], 1);
	ASSERT(policy_rayon.park(&w[1], &timeout));
	ASSERT_EQ(sleeping(word(rt)), 2);
	/* Injected onto an empty injector, no awake idle: wake one (w0). */
	task_init(&t, &dummy_vt);
	rt_spawn_remote(rt, &t);
	ASSERT_EQ(rayon_sleep_flag(rt, 0), NOTIFIED);
	policy_rayon.unparked(&w[0], PARK_WOKEN);
	ASSERT(policy_rayon.find_work(&w[0]) == &t);
	ASSERT_EQ(w[0].st.notifies, 0);		/* wake_on_find = 0 */
	ASSERT_EQ(rayon_sleep_flag(rt, 1), SLEEPING);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * wake_on_find=0 (work_found): a post counted worker 0, awake and idle, as
 * the taker of an injected job; worker 0 then leaves the idle state with a
 * task of its own deque instead (the tick's timer poll put it there), so
 * the sleeper is woken for the job, knob or not. Without that wake the job
 * waits while a worker sleeps and nobody looks: `--explore` found it on
 * every seed of open-loop with I/O.
 */
static void find_elsewhere_wakes_for_injected(void)
{
	static const char *const knobs[] = { "wake_on_find=0", "rounds_until_sleepy=0", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(2, knobs, &e);
	const struct policy *p = &policy_rayon;
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct task inj, own;
	uint64_t timeout = 0;
	ASSERT(p->find_work(w1) == NULL);
	idle_rounds(w1, 1);
	ASSERT(p->park(w1, &timeout));
	ASSERT(p->find_work(w0) == NULL);	/* inactive, awake */
	ASSERT_EQ(sleeping(word(rt)), 1);
	ASSERT_EQ(inactive(word(rt)), 2);
	/* Injected onto an empty injector with one awake idle worker: it is
	 * counted as the taker, nobody is woken. */
	spawn_remote(rt, &inj);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), SLEEPING);
	/* Its own deque's task (counted as taken by itself, the same way). */
	spawn_dummy(w0, &own);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), SLEEPING);
	ASSERT(p->find_work(w0) == &own);
	ASSERT_EQ(inactive(word(rt)), 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), NOTIFIED);	/* woken for the injector */
	ASSERT_EQ(w0->st.notifies, 1);
	p->unparked(w1, PARK_WOKEN);
	ASSERT(p->find_work(w1) == &inj);
	/* With the injector empty, wake_on_find=0 wakes nobody on a find. */
	ASSERT(p->find_work(w1) == NULL);
	idle_rounds(w1, 1);
	ASSERT(p->park(w1, &timeout));
	ASSERT(p->find_work(w0) == NULL);
	spawn_dummy(w0, &own);
	ASSERT(p->find_work(w0) == &own);
	ASSERT_EQ(w0->st.notifies, 1);
	ASSERT_EQ(rayon_sleep_flag(rt, 1), SLEEPING);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * rayon with wake_on_find=0 and rounds_until_sleepy=0 on open-loop with
 * I/O: an awake idle worker counted as an injected job's taker that leaves
 * with another task (its own deque's, put there by its tick's timer poll)
 * must still get a sleeper woken for the job (policies/rayon.c work_found);
 * without that wake every seed found a lost wakeup.
 */
static void explore_rayon_no_wake_on_find_clean(void)
{
	static const char *const knobs[] = { "wake_on_find=0", "rounds_until_sleepy=0", NULL };
	static const char *const params[] = { "requests=200", "io_us=50", NULL };
	uint64_t seeds = SIM_SANITIZED ? 20 : 100;
	for (uint64_t seed = 1; seed <= seeds; seed++) {
		struct sim_out o;
		sim("rayon", knobs, "open-loop", params, seed % 2 ? 4 : 2, seed, &o);
		if (o.rc != 0)
			TEST_FAIL("explore seed %llu: rc %d: %s", (unsigned long long)seed, o.rc,
				  o.why);
	}
}

/* random_start=0: the sweep starts at the next worker after the thief. */
static void fixed_sweep_start(void)
{
	static const char *const knobs[] = { "random_start=0", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(4, knobs, &e);
	struct worker *w = rt->workers;
	struct task a, b;
	spawn_dummy(&w[0], &a);
	spawn_dummy(&w[2], &b);
	ASSERT(policy_rayon.find_work(&w[1]) == &b);	/* 2 before 0 */
	ASSERT_EQ(w[1].st.steal_attempts, 1);
	ASSERT(policy_rayon.find_work(&w[3]) == &a);	/* 0 after 3 */
	ASSERT_EQ(w[3].st.steal_attempts, 1);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/*
 * sleep/mod.rs no_work_found: every idle round before the sleep attempt
 * ends in thread::yield_now, the round that announces sleepy included, so a
 * worker with nothing to do yields rounds_until_sleepy + 1 times and then
 * sleeps; the sleep attempt itself does not yield. A wake starts the rounds
 * over. In the sim each yield is charged one more idle step.
 */
static void idle_rounds_yield(void)
{
	static const uint32_t rounds[] = { 32, 4 };
	for (int i = 0; i < 2; i++) {
		char knob[64];
		snprintf(knob, sizeof knob, "rounds_until_sleepy=%u", rounds[i]);
		const char *const knobs[] = { knob, NULL };
		struct hand_engine *h;
		struct runtime *rt = hand_engine_runtime(&policy_rayon, 2, knobs, &h);
		struct worker *w = &rt->workers[1];
		ASSERT(hand_park_one(h, rt, 1, 1000));
		ASSERT_EQ(h->yields[1], rounds[i] + 1);
		ASSERT_U64_EQ(w->st.parks, 1);
		ASSERT_EQ(h->yields[0], 0);	/* worker 0 never stepped */
		rt->engine->ops->unpark(rt->engine, 1);
		ASSERT(hand_park_one(h, rt, 1, 1000));
		ASSERT_EQ(h->yields[1], 2 * (rounds[i] + 1));
		ASSERT_U64_EQ(w->st.parks, 2);
		rt_destroy(rt);
		h->base.ops->destroy(&h->base);
	}

	/* The sim engine's yield: one idle step on the yielding worker's
	 * clock, nobody else's. */
	struct sim_costs c;
	sim_costs_default(&c);
	c.idle_step = 250;
	struct engine *e = engine_sim_create(2, &c, 0);
	ASSERT(e && e->ops->yield);
	struct worker w0 = { .index = 0 }, w1 = { .index = 1 };
	uint64_t t0 = e->ops->now(e, &w0), t1 = e->ops->now(e, &w1);
	e->ops->yield(e, &w1);
	e->ops->yield(e, &w1);
	ASSERT_U64_EQ(e->ops->now(e, &w1) - t1, 500);
	ASSERT_U64_EQ(e->ops->now(e, &w0), t0);
	e->ops->destroy(e);
}

static void worker_limit(void)
{
	double kv[64];
	knob_defaults(policy_rayon.knobs, policy_rayon.nknobs, kv);
	struct rt_config cfg = { .workers = 65536, .seed = 1, .hist_digits = 3 };
	char err[256] = "";
	ASSERT(policy_rayon.check(&cfg, kv, err, sizeof err) != 0);
	ASSERT(strstr(err, "65535") != NULL);
	cfg.workers = 256;
	ASSERT_EQ(policy_rayon.check(&cfg, kv, err, sizeof err), 0);
}

static void fib_runs(void)
{
	static const uint32_t workers[] = { 1, 2, 3, 8 };
	static const char *const params[] = { "n=25", NULL };
	for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++) {
		struct run_result res;
		run_workload("rayon", "fib", workers[i], NULL, params, &res);
		if (res.verify_rc != 0)
			TEST_FAIL("fib(25) on %u workers: %s", workers[i], res.err);
		ASSERT_U64_EQ(res.tasks, 242785);	/* 2 fib(26) - 1 nodes */
		ASSERT_U64_EQ(res.total.steals, res.total.tasks_stolen);
		ASSERT_U64_EQ(res.total.global_tasks, 1);	/* the root */
		ASSERT_U64_EQ(res.total.local_pushes,
			      res.total.local_pops + res.total.tasks_stolen);
		ASSERT_EQ(res.total.unparks_timeout, 0);	/* no timeout set */
		fprintf(stderr, "    %u workers: %llu steals, %llu parks, %llu notifies\n",
			workers[i], (unsigned long long)res.total.steals,
			(unsigned long long)res.total.parks,
			(unsigned long long)res.total.notifies);
	}
}

/* ---- remote spawn onto sleeping workers ---- */

static uint32_t rayon_sleeping(struct runtime *rt)
{
	return sleeping(word(rt));
}

static void remote_spawn_wakes_sleeper(void)
{
	/* A 10 s sleep limit: only a wake can end this run quickly, and a
	 * timeout would show in the counters. */
	static const char *const knobs[] = { "park_timeout_ns=10000000000", NULL };
	const uint32_t workers = 4;
	struct engine *e;
	struct runtime *rt = hand_runtime(workers, knobs, &e);
	assert_notify_runs_spawn_onto_sleepers(e, rt, rayon_sleeping);
}

int main(void)
{
	RUN(jec_protocol);
	RUN(wake_partly_reannounces);
	RUN(injected_jobs_prevent_sleep);
	RUN(wake_counts);
	RUN(knobs_change_behaviour);
	RUN(find_elsewhere_wakes_for_injected);
	RUN(explore_rayon_no_wake_on_find_clean);
	RUN(fixed_sweep_start);
	RUN(worker_limit);
	RUN(fib_runs);
	RUN(remote_spawn_wakes_sleeper);
	RUN(idle_rounds_yield);
	return 0;
}
