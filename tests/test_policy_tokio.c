/*
 * test_policy_tokio.c - the tokio and tokio-1.28 policies: fib
 * computed correctly; the self-tuning interval (its start at 61, its EWMA
 * arithmetic and dead band, its bounds over a run); the global queue on
 * exactly every 61st tick; the sleeper stack; the LIFO cap against a
 * ping-pong pair; a deferred yield's wake ending its worker's search; a
 * spurious wake that parks again; the steal refused to a
 * thief holding more than half a queue; the search left out of the EWMA; the
 * driver holder whose event came due getting up.
 */
#include <math.h>

#include "hand_engine.h"
#include "policies/tokio.h"
#include "run_util.h"

/* A runtime the test thread drives by hand as the owner of every worker
 * (the engine never runs: unparks only leave permits). */
static struct runtime *hand_runtime(const struct policy *p, uint32_t workers,
				    const char *const *knobs, struct engine **e)
{
	return hand_runtime_for(p, workers, 1, 0, knobs, e);
}

static void hand_destroy(struct runtime *rt, struct engine *e)
{
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* The next task, starting a new core step when the policy ends one (at a
 * maintenance tick, or when local work runs out). */
static struct task *next_task(struct worker *w)
{
	const struct policy *p = w->rt->policy;
	struct task *t = p->find_work(w);
	if (!t) {
		p->tick_begin(w);
		t = p->find_work(w);
	}
	return t;
}

static enum task_poll done_poll(struct task *t, struct worker *w)
{
	(void)t;
	(void)w;
	return TASK_DONE;
}

static const struct task_vtable done_vt_tokio = { .name = "done", .poll = done_poll };

/* ---- whole runs ---- */

struct interval_seen {
	uint32_t lo[8], hi[8], cur[8];
};

static void record_intervals(struct runtime *rt, void *arg)
{
	struct interval_seen *s = arg;
	for (uint32_t i = 0; i < rt->nworkers && i < 8; i++) {
		s->lo[i] = tokio_worker_interval_min(&rt->workers[i]);
		s->hi[i] = tokio_worker_interval_max(&rt->workers[i]);
		s->cur[i] = tokio_worker_interval(&rt->workers[i]);
	}
}

static void fib25_on(const char *policy, uint32_t workers)
{
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	struct interval_seen s;
	run_workload_inspect(policy, "fib", workers, NULL, params, 1, &r, record_intervals, &s);
	if (r.verify_rc != 0)
		TEST_FAIL("%s on %u workers: %s", policy, workers, r.err);
	ASSERT_U64_EQ(r.tasks, 242785);
	ASSERT_U64_EQ(r.total.completions, 242785);
	ASSERT_U64_EQ(r.total.spawns, 242785 - 1);
	/* Internal nodes are polled twice (spawn, then join), leaves once. When
	 * both children finish during the parent's first poll, its join poll
	 * is a repoll (task_poll_end), not an extra poll. */
	ASSERT_U64_EQ(r.total.polls, 242785 + (242785 - 1) / 2);
	/* Every poll came from the LIFO slot, the ring, the global queue or
	 * a steal (a stolen task is run at once, the rest go to the ring). */
	ASSERT_U64_EQ(r.total.polls, r.total.lifo_polls + r.total.local_pops +
					     r.total.global_batches + r.total.steals);
	ASSERT(r.total.lifo_polls > 0);
	ASSERT(r.total.interval_checks > 0);
	for (uint32_t i = 0; i < workers; i++) {
		ASSERT(s.lo[i] >= 2 && s.hi[i] <= 127);
		ASSERT(s.lo[i] <= 61 && s.hi[i] >= 61);	/* every worker starts at 61 */
		ASSERT(s.cur[i] >= s.lo[i] && s.cur[i] <= s.hi[i]);
		if (strcmp(policy, "tokio-1.28") == 0) {
			ASSERT_EQ(s.lo[i], 61);
			ASSERT_EQ(s.hi[i], 61);
		}
	}
	if (run_util_use_sim && strcmp(policy, "tokio") == 0 && workers == 1) {
		/* A fib task and the LIFO polls chained after it (the EWMA
		 * counts them as one poll, as stats.rs does) cost far less than
		 * 200 us / 61 in the sim's model: a retune raises the interval
		 * to the clamp of 127, and nothing lowers it again. On threads
		 * the rise is the clock's to grant (under TSan beside a busy
		 * loop polls can be slower than 3.3 us), so it is asserted only
		 * here; tuning_driven_by_hand pins the rule itself. */
		ASSERT_EQ(s.hi[0], 127);
		ASSERT_EQ(s.cur[0], 127);
		ASSERT_EQ(s.lo[0], 61);
	}
	fprintf(stderr, "    %s %u workers%s: lifo %llu, steals %llu, parks %llu, interval %u..%u\n",
		policy, workers, run_util_use_sim ? " (sim)" : "",
		(unsigned long long)r.total.lifo_polls, (unsigned long long)r.total.steals,
		(unsigned long long)r.total.parks, s.lo[0], s.hi[0]);
}

static void fib25_all(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		fib25_on("tokio", counts[i]);
		fib25_on("tokio-1.28", counts[i]);
	}
	/* The interval's rise over a whole run, in virtual time. */
	run_util_use_sim = true;
	fib25_on("tokio", 1);
	fib25_on("tokio-1.28", 1);
	run_util_use_sim = false;
}

/* ---- the self-tuning interval ---- */

static void ewma_arithmetic(void)
{
	const double seed = 200000.0 / 61;	/* 3278.688524590164 */
	/* One poll: weight 1 - 0.9 = 0.1. */
	ASSERT_NEAR(tokio_ewma(seed, 1, 10000, 0.1), 0.1 * 10000 + 0.9 * seed, 1e-9);
	ASSERT_NEAR(tokio_ewma(seed, 1, 10000, 0.1), 3950.819672131148, 1e-9);
	/* Ten polls, mean 1000 ns: weight 1 - 0.9^10 = 0.6513215599. */
	ASSERT_NEAR(tokio_ewma(seed, 10, 10000, 0.1), 1794.529560227869, 1e-9);
	/* No polls: unchanged. */
	ASSERT_NEAR(tokio_ewma(seed, 0, 123456, 0.1), seed, 0);

	ASSERT_EQ(tokio_tuned_interval(seed, 200000, 2, 127), 61);
	ASSERT_EQ(tokio_tuned_interval(1794.529560227869, 200000, 2, 127), 111);
	ASSERT_EQ(tokio_tuned_interval(1000, 200000, 2, 127), 127);	/* 200 -> clamp */
	ASSERT_EQ(tokio_tuned_interval(1e9, 200000, 2, 127), 2);	/* 0 -> clamp */
	ASSERT_EQ(tokio_tuned_interval(0, 200000, 2, 127), 127);	/* inf saturates */
	ASSERT_EQ(tokio_tuned_interval(NAN, 200000, 2, 127), 2);	/* NaN casts to 0 */

	/* The dead band: a move of 2 or less is jitter. */
	ASSERT_EQ(tokio_retune(61, 63, 2), 61);
	ASSERT_EQ(tokio_retune(61, 59, 2), 61);
	ASSERT_EQ(tokio_retune(61, 64, 2), 64);
	ASSERT_EQ(tokio_retune(61, 58, 2), 58);
	ASSERT_EQ(tokio_retune(61, 61, 0), 61);

	/* Global batches: max(1, min(len / workers + 1, room, 128)). */
	ASSERT_EQ(tokio_batch_size(0, 4, 256, 128), 1);
	ASSERT_EQ(tokio_batch_size(40, 4, 256, 128), 11);
	ASSERT_EQ(tokio_batch_size(100000, 4, 256, 128), 128);
	ASSERT_EQ(tokio_batch_size(100000, 4, 60, 128), 60);
	ASSERT_EQ(tokio_batch_size(100000, 4, 0, 128), 1);
}

/* Fill worker w's ring with n dummy tasks (the test is its owner). */
static void fill_ring(struct worker *w, struct task *ts, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		task_init(&ts[i], &dummy_vt);
		ASSERT(ring_try_push(&w->sh->ring, &ts[i]));
	}
}

static bool is_marker(const struct task *t, const struct task *m, uint32_t nm)
{
	return t >= m && t < m + nm;
}

/*
 * The tuning seen through the policy: tick_end moves the EWMA, and the
 * interval follows only on a global-queue tick and only out of the dead
 * band. The global task then comes on the new interval's multiples.
 */
static void tuning_driven_by_hand(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(&policy_tokio, 1, NULL, &e);
	struct worker *w = &rt->workers[0];
	const struct policy *p = &policy_tokio;
	static struct task ring_tasks[250], markers[4];

	ASSERT_EQ(tokio_worker_interval(w), 61);
	ASSERT_NEAR(tokio_worker_ewma_ns(w), 200000.0 / 61, 1e-9);
	fill_ring(w, ring_tasks, 250);
	for (int i = 0; i < 4; i++) {
		task_init(&markers[i], &dummy_vt);
		inject_push(&rt->inject, &markers[i]);
	}

	/* One poll of 3492 ns: EWMA 3300.02, tuned 60, inside the band. */
	p->tick_end(w, 1, 3492);
	ASSERT_NEAR(tokio_worker_ewma_ns(w), 3300.0196721311477, 1e-6);
	p->tick_begin(w);
	uint32_t marker_ticks[4], nmarkers = 0;
	while (nmarkers < 2) {
		struct task *t = next_task(w);
		ASSERT(t);
		if (is_marker(t, markers, 4))
			marker_ticks[nmarkers++] = tokio_worker_tick(w);
		if (tokio_worker_tick(w) == 100) {
			/* 100 polls at 1 us: weight 1 - 0.9^100, EWMA 1000.06,
			 * tuned 199 -> 127; taken at the next global tick. */
			p->tick_end(w, 100, 100000);
			ASSERT_NEAR(tokio_worker_ewma_ns(w), 1000.0610917399607, 1e-6);
			ASSERT_EQ(tokio_worker_interval(w), 61);
		}
	}
	ASSERT_EQ(marker_ticks[0], 61);		/* 60 is in the band: still 61 */
	ASSERT_EQ(marker_ticks[1], 122);
	ASSERT_EQ(tokio_worker_interval(w), 127);	/* retuned at tick 122 */
	/* The next global tick is the next multiple of 127. */
	while (nmarkers < 3) {
		struct task *t = next_task(w);
		ASSERT(t);
		if (is_marker(t, markers, 4))
			marker_ticks[nmarkers++] = tokio_worker_tick(w);
	}
	ASSERT_EQ(marker_ticks[2], 127);

	/* A very slow batch drives the interval to the lower clamp. */
	p->tick_end(w, 1, 1000000000);
	while (tokio_worker_tick(w) < 254) {
		struct task *t = next_task(w);
		ASSERT(t);
	}
	ASSERT_EQ(tokio_worker_interval(w), 2);	/* retuned at tick 254 */
	ASSERT_EQ(tokio_worker_interval_min(w), 2);
	ASSERT_EQ(tokio_worker_interval_max(w), 127);
	ASSERT_EQ(w->st.interval_checks, 4);	/* ticks 61, 122, 127, 254 */
	hand_destroy(rt, e);
}

/* tokio-1.28: with a steady local supply and a non-empty global
 * queue, the global task comes at exactly ticks 61, 122, 183, 244. */
static void fixed_interval_every_61st_tick(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(&policy_tokio_1_28, 1, NULL, &e);
	struct worker *w = &rt->workers[0];
	static struct task ring_tasks[250], markers[5];
	fill_ring(w, ring_tasks, 250);
	for (int i = 0; i < 5; i++) {
		task_init(&markers[i], &dummy_vt);
		inject_push(&rt->inject, &markers[i]);
	}
	policy_tokio_1_28.tick_begin(w);
	uint32_t seen = 0;
	for (uint32_t k = 1; k <= 250; k++) {
		struct task *t = next_task(w);
		ASSERT(t);
		ASSERT_EQ(tokio_worker_tick(w), k);	/* no LIFO: one tick per task */
		if (is_marker(t, markers, 5)) {
			ASSERT_EQ(k % 61, 0);
			ASSERT(t == &markers[seen]);	/* FIFO global queue */
			seen++;
		} else {
			ASSERT(k % 61 != 0);
		}
	}
	ASSERT_EQ(seen, 250 / 61);
	ASSERT_EQ(w->st.interval_checks, 250 / 61);
	ASSERT_EQ(w->st.global_tasks, 250 / 61);
	ASSERT_EQ(tokio_worker_maintenance(w), 250 / 61);	/* event_interval 61 */
	ASSERT_EQ(tokio_worker_interval(w), 61);
	ASSERT_EQ(inject_len(&rt->inject), 1);
	hand_destroy(rt, e);
}

/* ---- idle: the sleeper stack ---- */

static void sleepers_wake_in_stack_order(void)
{
	/* 256 workers: past any 64-bit bitmap. */
	const uint32_t n = 256;
	struct engine *e;
	struct runtime *rt = hand_runtime(&policy_tokio, n, NULL, &e);
	const struct policy *p = &policy_tokio;
	static const uint32_t order[] = { 5, 1, 9, 200, 255, 70 };
	uint64_t timeout = 0;
	uint32_t list[8];

	for (int i = 0; i < 6; i++) {
		ASSERT(p->park(&rt->workers[order[i]], &timeout));
		ASSERT_U64_EQ(timeout, PARK_FOREVER);
	}
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 6);
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(list[i], order[i]);
	ASSERT_EQ(tokio_num_unparked(rt), n - 6);
	ASSERT_EQ(tokio_num_searching(rt), 0);

	/* A remote spawn wakes the most recently parked worker, counted as
	 * unparked and searching. */
	struct task t1, t2;
	task_init(&t1, &dummy_vt);
	rt_spawn_remote(rt, &t1);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 5);
	ASSERT_EQ(list[4], 255);
	ASSERT_EQ(tokio_num_searching(rt), 1);
	ASSERT_EQ(tokio_num_unparked(rt), n - 5);
	struct worker *w70 = &rt->workers[70];
	p->unparked(w70, PARK_WOKEN);
	ASSERT(w70->searching);
	ASSERT_EQ(w70->st.unparks_notify, 1);

	/* Somebody searches: the next spawn wakes nobody. */
	task_init(&t2, &dummy_vt);
	rt_spawn_remote(rt, &t2);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 5);

	/* The searcher finds a task and, as the last searcher, wakes the
	 * next sleeper down the stack. */
	p->tick_begin(w70);
	ASSERT(p->find_work(w70) == &t1);
	ASSERT(!w70->searching);
	ASSERT_EQ(w70->st.last_searcher_notifies, 1);
	ASSERT_EQ(w70->st.notifies, 1);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 4);
	ASSERT_EQ(list[3], 200);
	p->unparked(&rt->workers[255], PARK_WOKEN);
	ASSERT(rt->workers[255].searching);

	/* A timeout with nothing local: still on the list (is_parked), so the
	 * worker parks again without a poll (transition_from_parked). */
	struct worker *w1 = &rt->workers[1];
	p->unparked(w1, PARK_TIMEOUT);
	ASSERT(!w1->searching);
	ASSERT_EQ(w1->st.unparks_timeout, 1);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 4);
	ASSERT_EQ(list[1], 1);
	ASSERT_EQ(p->tick_begin(w1), 0);
	ASSERT(p->park(w1, &timeout));
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 4);
	ASSERT_EQ(tokio_num_unparked(rt), n - 4);
	/* A timeout with a task of its own takes the worker off the list,
	 * keeping the order (unpark_worker_by_id), not searching. */
	struct task own;
	task_init(&own, &dummy_vt);
	ASSERT(ring_try_push(&rt->shared[9].ring, &own));
	p->unparked(&rt->workers[9], PARK_TIMEOUT);
	ASSERT(!rt->workers[9].searching);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 3);
	ASSERT_EQ(list[0], 5);
	ASSERT_EQ(list[1], 1);
	ASSERT_EQ(list[2], 200);
	ASSERT_EQ(tokio_num_unparked(rt), n - 3);
	ASSERT(p->tick_begin(&rt->workers[9]) != 0);
	hand_destroy(rt, e);

	/* sleeper_fifo=1: the longest parked wakes first. */
	static const char *const fifo[] = { "sleeper_fifo=1", NULL };
	rt = hand_runtime(&policy_tokio, 4, fifo, &e);
	for (uint32_t i = 3; i >= 1; i--)
		ASSERT(p->park(&rt->workers[i], &timeout));
	task_init(&t1, &dummy_vt);
	rt_spawn_remote(rt, &t1);
	ASSERT_EQ(tokio_sleepers(rt, list, 8), 2);
	ASSERT_EQ(list[0], 2);
	ASSERT_EQ(list[1], 1);
	hand_destroy(rt, e);
}

/* ---- the LIFO cap against a ping-pong pair ---- */

struct pp {
	struct task task;
	struct pp *partner;
	uint32_t polls;
	bool quiet;		/* the first poll only goes idle */
};

static enum task_poll pp_poll(struct task *t, struct worker *w)
{
	struct pp *p = (struct pp *)t;
	p->polls++;
	if (p->quiet) {
		p->quiet = false;
		return TASK_PENDING;
	}
	rt_wake(w->rt, w, &p->partner->task);
	return TASK_PENDING;
}

static const struct task_vtable pp_vt = { .name = "ping-pong", .poll = pp_poll };

static uint32_t third_polled;
static enum task_poll third_poll(struct task *t, struct worker *w)
{
	third_polled++;
	return TASK_DONE;
}

static const struct task_vtable third_vt = { .name = "third", .poll = third_poll };

/* Polls until the third task ran (or `limit`); returns how many. */
static uint32_t ping_pong_on(const struct policy *p, const char *const *knobs, uint32_t limit,
			     uint64_t *lifo_polls)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(p, 1, knobs, &e);
	struct worker *w = &rt->workers[0];
	struct pp a = { .partner = NULL }, b = { .partner = NULL };
	struct task c;
	a.partner = &b;
	b.partner = &a;
	third_polled = 0;

	p->tick_begin(w);
	task_init(&b.task, &pp_vt);
	b.quiet = true;
	worker_run_task(w, &b.task);	/* b waits for a wake */
	task_init(&c, &third_vt);
	rt_spawn(w, &c);		/* the slot: c */
	task_init(&a.task, &pp_vt);
	rt_spawn(w, &a.task);		/* the slot: a; c to the ring */
	ASSERT(ring_len(&w->sh->ring) >= 1);

	uint32_t polls = 0;
	while (third_polled == 0 && polls < limit) {
		struct task *t = next_task(w);
		ASSERT(t);
		worker_run_task(w, t);
		polls++;
	}
	*lifo_polls = w->st.lifo_polls;
	hand_destroy(rt, e);
	return polls;
}

static uint32_t ping_pong(const char *const *knobs, uint32_t limit, uint64_t *lifo_polls)
{
	return ping_pong_on(&policy_tokio, knobs, limit, lifo_polls);
}

/*
 * Tokio 1.28 has no LIFO cap: the pair keeps the slot until the coop
 * budget (128 units, one per wake or spawn) is spent; the LIFO task found
 * then goes to the back of the queue, behind c. The set-up's two spawns
 * spend 2 units, each poll's wake one more, so c runs at poll 127 after 126
 * LIFO polls. Without the budget c starves.
 */
static void coop_budget_stops_ping_pong_in_1_28(void)
{
	uint64_t lifo;
	ASSERT_EQ(ping_pong_on(&policy_tokio_1_28, NULL, 1000, &lifo), 127);
	ASSERT_EQ(lifo, 126);
	ASSERT_EQ(third_polled, 1);
	static const char *const half[] = { "coop_budget=64", NULL };
	ASSERT_EQ(ping_pong_on(&policy_tokio_1_28, half, 1000, &lifo), 63);
	static const char *const off[] = { "coop_budget=0", NULL };
	ASSERT_EQ(ping_pong_on(&policy_tokio_1_28, off, 1000, &lifo), 1000);
	ASSERT_EQ(third_polled, 0);
}

static void lifo_cap_stops_ping_pong(void)
{
	uint64_t lifo;
	/* a, b, a from the slot; the third LIFO poll turns the slot off, so
	 * the b it wakes goes behind c, and c is next. */
	ASSERT_EQ(ping_pong(NULL, 1000, &lifo), 4);
	ASSERT_EQ(lifo, 3);
	ASSERT_EQ(third_polled, 1);
	/* With the cap out of reach (and the coop budget off) the pair keeps
	 * the slot and c starves: the cap is what lets c run. */
	static const char *const uncapped[] = { "lifo_cap=1000000", "coop_budget=0", NULL };
	ASSERT_EQ(ping_pong(uncapped, 1000, &lifo), 1000);
	ASSERT_EQ(lifo, 1000);
	ASSERT_EQ(third_polled, 0);
	/* No slot at all: FIFO, c first. */
	static const char *const noslot[] = { "lifo_cap=0", NULL };
	ASSERT_EQ(ping_pong(noslot, 1000, &lifo), 1);
	ASSERT_EQ(lifo, 0);
}

/* The mean EWMA over the workers after a run (an inspect hook). */
static void mean_ewma(struct runtime *rt, void *arg)
{
	double sum = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		sum += tokio_worker_ewma_ns(&rt->workers[i]);
	*(double *)arg = sum / rt->nworkers;
}

/*
 * The EWMA of poll time fed by whole runs (the sim engine: deterministic),
 * as stats.rs computes it: a batch's time over its start_poll count, one
 * per task run_task starts; the LIFO polls chained after a task are in the
 * time but not in the count. On ping-pong a chain is one task and three LIFO
 * polls, so the sample is one ring poll's time plus three LIFO polls':
 * above the EWMA of the same run without the slot (every poll a counted
 * ring poll; 95.4 ns against 28.8 ns under the default sim costs).
 * Counting the LIFO polls would divide the first by four (about 24 ns).
 */
static void ewma_excludes_lifo_polls(void)
{
	static const char *const params[] = { "pairs=64", "rounds=200", NULL };
	/* A weight of 0.002 per counted poll averages over the run's
	 * thousands of batches: Tokio's 0.1 would leave the EWMA at the end
	 * to the last two or three batches, those of the run's tail, where
	 * few pairs are left and the chains are short. */
	static const char *const slot[] = { "ewma_alpha=0.002", NULL };
	static const char *const noslot[] = { "lifo_cap=0", "ewma_alpha=0.002", NULL };
	struct run_result r;
	double with_slot = 0, without = 0;
	run_util_use_sim = true;
	run_workload_inspect("tokio", "ping-pong", 2, slot, params, 1, &r, mean_ewma, &with_slot);
	ASSERT_EQ(r.verify_rc, 0);
	ASSERT(r.total.lifo_polls > r.total.polls / 2);
	run_workload_inspect("tokio", "ping-pong", 2, noslot, params, 1, &r, mean_ewma, &without);
	ASSERT_EQ(r.verify_rc, 0);
	ASSERT_EQ(r.total.lifo_polls, 0);
	run_util_use_sim = false;
	fprintf(stderr, "    EWMA %.1f ns with the slot, %.1f ns without\n", with_slot, without);
	ASSERT(with_slot > 1.3 * without);
}

/*
 * yield_now defers the task (context::defer): it waits, in no queue, until
 * the worker runs out of work (park_yield instead of park) or reaches a
 * maintenance tick, and is then woken through schedule_local (the LIFO
 * slot). defer_yield=0 sends it straight to the ring's back.
 */
static void yield_is_deferred(void)
{
	for (int defer = 0; defer < 2; defer++) {
		const char *const knobs[] = { defer ? "defer_yield=1" : "defer_yield=0", NULL };
		struct engine *e;
		struct runtime *rt = hand_runtime(&policy_tokio, 1, knobs, &e);
		struct worker *w = &rt->workers[0];
		const struct policy *p = &policy_tokio;
		struct task y, a[3];
		uint64_t timeout;
		p->tick_begin(w);
		task_init(&y, &dummy_vt);
		p->schedule_local(w, &y, SCHED_YIELD);
		ASSERT_EQ(ring_len(&w->sh->ring), defer ? 0 : 1);
		ASSERT(w->lifo == NULL);
		fill_ring(w, a, 3);
		if (!defer) {
			ASSERT(next_task(w) == &y);	/* the ring's order */
			hand_destroy(rt, e);
			continue;
		}
		for (int i = 0; i < 3; i++)
			ASSERT(next_task(w) == &a[i]);	/* y waits */
		ASSERT(p->find_work(w) == NULL);
		p->tick_begin(w);
		ASSERT(p->find_work(w) == NULL);	/* nothing to steal: 1 worker */
		ASSERT(!p->park(w, &timeout));		/* park_yield: no sleep */
		ASSERT(w->lifo == &y);			/* woken into the slot */
		ASSERT(next_task(w) == &y);
		hand_destroy(rt, e);
	}
	/* A maintenance tick wakes deferred tasks too: with a steady local
	 * supply y runs right after the maintenance tick at 61. */
	struct engine *e;
	struct runtime *rt = hand_runtime(&policy_tokio, 1, NULL, &e);
	struct worker *w = &rt->workers[0];
	static struct task ring_tasks[100];
	struct task y;
	fill_ring(w, ring_tasks, 100);
	policy_tokio.tick_begin(w);
	task_init(&y, &dummy_vt);
	policy_tokio.schedule_local(w, &y, SCHED_YIELD);
	uint32_t k = 0;
	struct task *t;
	while ((t = next_task(w)) != &y && k < 100)
		k++;
	ASSERT(t == &y);
	ASSERT_EQ(tokio_worker_maintenance(w), 1);
	ASSERT_EQ(k, 60);	/* ticks 1..60 from the ring; tick 61 wakes y */
	hand_destroy(rt, e);
}

/* A task that yields (a wake during its poll) `left` times, then completes. */
struct yielder {
	struct task task;
	uint32_t left;
};

static enum task_poll yielder_poll(struct task *t, struct worker *w)
{
	struct yielder *y = (struct yielder *)t;
	if (y->left == 0)
		return TASK_DONE;
	y->left--;
	rt_wake(w->rt, w, t);
	return TASK_PENDING;
}

static const struct task_vtable yielder_vt = { .name = "yielder", .poll = yielder_poll };

/*
 * worker.rs Context::run and run_task: a worker that ran out of work wakes
 * its deferred tasks (park_timeout(0)), which land in its LIFO slot; the
 * next tick's next_task takes the slot's task and run_task moves the worker
 * out of the searching state, the last searcher waking a parked worker
 * (transition_from_searching, notify_parked). So on 2 workers one yielding
 * task wakes the other, idle worker at every yield the other does not
 * spend searching: here, worker 1 runs between worker 0's steps, wakes,
 * finds nothing, and parks again, once per yield (Tokio 1.24's peer at the
 * tail of yield-many: a park of the idle worker every 6 us while its last
 * task yields, docs/policies.md). Taking the slot as a continued LIFO
 * chain instead leaves the worker searching and the other asleep.
 */
static void deferred_wake_leaves_searching(void)
{
	enum { YIELDS = 20 };
	struct hand_engine *h;
	struct runtime *rt = hand_engine_runtime(&policy_tokio_1_28, 2, NULL, &h);
	for (uint32_t i = 0; i < 2; i++)
		ASSERT(hand_park_one(h, rt, i, 10));
	struct yielder y = { .left = YIELDS };
	task_init(&y.task, &yielder_vt);
	/* Worker 0 is woken with the task in its own queue. */
	ASSERT(ring_try_push(&rt->workers[0].sh->ring, &y.task));
	rt->engine->ops->unpark(rt->engine, 0);
	uint64_t parks1 = rt->workers[1].st.parks;
	for (uint32_t k = 0; k < 20 * YIELDS && y.left; k++) {
		hand_step(h, rt, 0);
		hand_step(h, rt, 1);
	}
	ASSERT_EQ(y.left, 0);
	fprintf(stderr, "    worker 1 woken %u times, parked %llu times over %d yields\n",
		h->unparks[1], (unsigned long long)(rt->workers[1].st.parks - parks1), YIELDS);
	ASSERT(h->unparks[1] >= YIELDS - 1);
	ASSERT_U64_EQ(rt->workers[1].st.polls, 0);
	hand_run(h, rt, false, 10);
	rt_destroy(rt);
	h->base.ops->destroy(&h->base);
}

/*
 * The searcher cap (idle.rs transition_worker_to_searching): a worker may
 * search only while 2 * searching < workers. On 4 idle workers the first
 * two searchers try every other worker; the third does not search at all.
 */
static void searcher_cap(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(&policy_tokio, 4, NULL, &e);
	for (uint32_t i = 1; i < 4; i++) {
		struct worker *w = &rt->workers[i];
		policy_tokio.tick_begin(w);
		ASSERT(policy_tokio.find_work(w) == NULL);
		ASSERT_EQ(w->searching, i < 3);
		ASSERT_EQ(w->st.steal_attempts, (i < 3 ? 3 : 0));
	}
	ASSERT_EQ(tokio_num_searching(rt), 2);
	hand_destroy(rt, e);
}

static uint32_t io_polls;
static size_t count_io_poll(struct runtime *rt, struct worker *w, uint64_t now, void *arg)
{
	io_polls++;
	return 0;
}

/*
 * The maintenance tick polls the driver with a zero timeout only if it can
 * take it (park.rs park_timeout, try_lock): while another worker is parked
 * holding the driver, worker 0's maintenance at tick 61 skips the poll;
 * with nobody holding it, it polls.
 */
static void maintenance_skips_held_driver(void)
{
	for (int held = 0; held < 2; held++) {
		struct engine *e;
		struct runtime *rt = hand_runtime(&policy_tokio, 2, NULL, &e);
		struct worker *w = &rt->workers[0];
		static struct task ring_tasks[70];
		rt->io_poll = count_io_poll;
		io_polls = 0;
		atomic_store(&rt->timekeeper, held ? 1 : -1);
		fill_ring(w, ring_tasks, 70);
		policy_tokio.tick_begin(w);
		for (int k = 0; k < 65; k++)
			ASSERT(next_task(w));
		ASSERT_EQ(tokio_worker_maintenance(w), 1);
		ASSERT_EQ(io_polls, (held ? 0 : 1));
		atomic_store(&rt->timekeeper, -1);
		hand_destroy(rt, e);
	}
}

/*
 * worker.rs Context::park and transition_from_parked: a worker woken with
 * nothing in its own queues while it is still on the sleeper list (is_parked:
 * no notifier popped it) parks again at once. It runs no tick and keeps its
 * place on the stack, so the next notify still pops the worker above it.
 * (Running a tick instead takes it off the list, searches, and pushes it
 * back on top, where the next notify pops it.) A timed-out park does the
 * same.
 */
static void spurious_wake_parks_again(void)
{
	static const char *const knobs[] = { "park_timeout_ns=1000000", NULL };
	struct hand_engine *h;
	struct runtime *rt = hand_engine_runtime(&policy_tokio, 3, knobs, &h);
	for (uint32_t i = 0; i < 3; i++)
		ASSERT(hand_park_one(h, rt, i, 10));
	uint32_t stack[3];
	ASSERT_EQ(tokio_sleepers(rt, stack, 3), 3);
	ASSERT(stack[0] == 0 && stack[1] == 1 && stack[2] == 2);
	ASSERT_EQ(atomic_load(&rt->timekeeper), 0);	/* the first to park */
	ASSERT_EQ(tokio_num_unparked(rt), 0);

	/* A stale permit wakes worker 1, the driver holder 0 is woken to
	 * re-plan its sleep, and worker 2's park times out. */
	struct worker_stats before[3];
	uint32_t ticks[3];
	for (uint32_t i = 0; i < 3; i++) {
		before[i] = rt->workers[i].st;
		ticks[i] = tokio_worker_tick(&rt->workers[i]);
	}
	rt->engine->ops->unpark(rt->engine, 1);
	rt->engine->ops->unpark(rt->engine, 0);
	ASSERT(hand_step(h, rt, 1));
	ASSERT(hand_step(h, rt, 0));
	h->parked[2] = false;
	worker_unparked(&rt->workers[2], PARK_TIMEOUT);
	ASSERT(hand_step(h, rt, 2));
	for (uint32_t i = 0; i < 3; i++) {
		const struct worker *w = &rt->workers[i];
		ASSERT(h->parked[i] && !h->woken[i]);
		ASSERT_U64_EQ(w->st.polls, 0);
		ASSERT_U64_EQ(w->st.steal_attempts, before[i].steal_attempts);
		ASSERT_U64_EQ(w->st.searcher_enter, before[i].searcher_enter);
		ASSERT_U64_EQ(w->st.parks, before[i].parks + 1);
		ASSERT_EQ(tokio_worker_tick(w), ticks[i]);
		ASSERT(!w->searching);
	}
	ASSERT_U64_EQ(rt->workers[0].st.unparks_spurious, before[0].unparks_spurious + 1);
	ASSERT_U64_EQ(rt->workers[1].st.unparks_spurious, before[1].unparks_spurious + 1);
	ASSERT_U64_EQ(rt->workers[2].st.unparks_timeout, before[2].unparks_timeout + 1);
	ASSERT_EQ(tokio_sleepers(rt, stack, 3), 3);
	ASSERT(stack[0] == 0 && stack[1] == 1 && stack[2] == 2);
	ASSERT_EQ(tokio_num_unparked(rt), 0);
	ASSERT_EQ(tokio_num_searching(rt), 0);
	ASSERT_EQ(atomic_load(&rt->timekeeper), 0);	/* parked on the driver again */

	/* A task from outside: the notify pops the top of the stack, 2. */
	struct one_shot o;
	atomic_init(&o.ran_on, -1);
	task_init(&o.task, &one_shot_vt);
	rt_spawn_remote(rt, &o.task);
	ASSERT(h->woken[2] && !h->woken[0] && !h->woken[1]);
	ASSERT(hand_step(h, rt, 2));
	ASSERT_EQ(atomic_load(&o.ran_on), 2);
	ASSERT_U64_EQ(rt->workers[2].st.unparks_notify, 1);
	hand_run(h, rt, false, 10);
	rt_destroy(rt);
	h->base.ops->destroy(&h->base);
}

/*
 * The one wake with nothing local that does not park again: the driver
 * holder whose sleep ended because its next event came due. Tokio's driver
 * hands that event's task to the holder's own queue (the harness delivers
 * arrivals to the global queue), so it gets up: off the sleeper list,
 * counted unparked, not searching, and the driver is free.
 */
static void driver_timeout_gets_up(void)
{
	struct hand_engine *h;
	struct runtime *rt = hand_engine_runtime(&policy_tokio, 2, NULL, &h);
	for (uint32_t i = 0; i < 2; i++)
		ASSERT(hand_park_one(h, rt, i, 10));
	ASSERT_EQ(atomic_load(&rt->timekeeper), 0);
	h->parked[0] = false;
	worker_unparked(&rt->workers[0], PARK_TIMEOUT);
	uint32_t stack[2];
	ASSERT_EQ(tokio_sleepers(rt, stack, 2), 1);
	ASSERT_EQ(stack[0], 1);
	ASSERT_EQ(tokio_num_unparked(rt), 1);
	ASSERT(!rt->workers[0].searching);
	ASSERT_EQ(atomic_load(&rt->timekeeper), -1);
	ASSERT(policy_tokio.tick_begin(&rt->workers[0]) != 0);	/* a tick, not a re-park */
	rt_destroy(rt);
	h->base.ops->destroy(&h->base);
}

/*
 * queue.rs steal_into: a thief whose own queue holds more than half its
 * capacity (128 tasks) steals nothing. The thief's queue can fill between
 * the end of its batch and the search it resumes (here: by hand); with 128
 * tasks it still takes half of the victim's 10, with 129 it takes none.
 */
static void steal_refused_above_half(void)
{
	for (uint32_t held = 128; held <= 129; held++) {
		struct engine *e;
		struct runtime *rt = hand_runtime(&policy_tokio, 2, NULL, &e);
		struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
		const struct policy *p = &policy_tokio;
		static struct task victim[10], own[1], mine[129];
		fill_ring(w0, victim, 10);
		fill_ring(w1, own, 1);
		p->tick_begin(w1);
		ASSERT(p->find_work(w1) == &own[0]);
		ASSERT(p->find_work(w1) == NULL);	/* the batch ends before the search */
		ASSERT_U64_EQ(w1->st.steal_attempts, 0);
		fill_ring(w1, mine, held);
		p->tick_begin(w1);
		struct task *t = p->find_work(w1);
		if (held == 128) {
			ASSERT(is_marker(t, victim, 10));
			ASSERT_U64_EQ(w1->st.steal_attempts, 1);
			ASSERT_U64_EQ(w1->st.tasks_stolen, 5);
			ASSERT_EQ(ring_len(&w0->sh->ring), 5);
			ASSERT_EQ(ring_len(&w1->sh->ring), 128 + 4);
		} else {
			ASSERT(t == NULL);
			ASSERT_U64_EQ(w1->st.steal_attempts, 0);
			ASSERT_EQ(ring_len(&w0->sh->ring), 10);
			ASSERT_EQ(ring_len(&w1->sh->ring), 129);
		}
		hand_destroy(rt, e);
	}
}

/* A task that spends a fixed compute and is done. */
#define STOLEN_COMPUTE_NS 50000
static enum task_poll compute_poll(struct task *t, struct worker *w)
{
	(void)t;
	rt_compute(w, STOLEN_COMPUTE_NS);
	return TASK_DONE;
}
static const struct task_vtable compute_vt = { .name = "compute", .poll = compute_poll };

/*
 * worker.rs run: end_processing_scheduled_tasks before steal_work,
 * start_processing_scheduled_tasks after it, so the time of a search is in
 * no batch the EWMA sees (stats.rs). On the hand engine every clock read
 * advances the clock by D: the step that resumes the search reads it at
 * its start, before and after the search, and at its end, around the
 * stolen task's compute C. Its batch is one poll of C + 2D (the search's
 * own D left out); counting the search would make it C + 3D.
 */
static void ewma_leaves_out_the_search(void)
{
	const uint64_t D = 1000;
	struct hand_engine *h;
	struct runtime *rt = hand_engine_runtime(&policy_tokio, 2, NULL, &h);
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct task victim, own;
	task_init(&victim, &compute_vt);
	ASSERT(ring_try_push(&w0->sh->ring, &victim));
	task_init(&own, &done_vt_tokio);
	ASSERT(ring_try_push(&w1->sh->ring, &own));
	h->now_step = D;
	uint64_t timeout;
	/* The own task; local work then runs out, and the step ends. */
	ASSERT_EQ(worker_step(w1, &timeout), STEP_RAN);
	ASSERT_U64_EQ(w1->st.polls, 1);
	ASSERT_U64_EQ(w1->st.steal_attempts, 0);
	double e0 = tokio_worker_ewma_ns(w1);
	/* The next step searches, steals the victim's task and runs it. */
	ASSERT_EQ(worker_step(w1, &timeout), STEP_RAN);
	ASSERT_U64_EQ(w1->st.polls, 2);
	ASSERT_U64_EQ(w1->st.steals, 1);
	double alpha = policy_tokio.knobs[TOKIO_EWMA_ALPHA].def;
	double want = tokio_ewma(e0, 1, STOLEN_COMPUTE_NS + 2 * D, alpha);
	double with_search = tokio_ewma(e0, 1, STOLEN_COMPUTE_NS + 3 * D, alpha);
	fprintf(stderr, "    EWMA %.1f ns (search left out: %.1f, counted: %.1f)\n",
		tokio_worker_ewma_ns(w1), want, with_search);
	ASSERT_NEAR(tokio_worker_ewma_ns(w1), want, 1e-6);
	rt_destroy(rt);
	h->base.ops->destroy(&h->base);
}

static void worker_limit(void)
{
	double kv[TOKIO_NKNOBS];
	knob_defaults(policy_tokio.knobs, policy_tokio.nknobs, kv);
	struct rt_config cfg = { .workers = 65535, .seed = 1, .hist_digits = 3 };
	char err[256] = "";
	ASSERT_EQ(policy_tokio.check(&cfg, kv, err, sizeof err), 0);
	cfg.workers = 65536;
	ASSERT(policy_tokio.check(&cfg, kv, err, sizeof err) != 0);
	ASSERT(strstr(err, "65535") != NULL);
	cfg.workers = 4;
	kv[TOKIO_INTERVAL_MIN] = 200;
	ASSERT(policy_tokio.check(&cfg, kv, err, sizeof err) != 0);
	/* The two versions differ only in the interval's default (PR 5720),
	 * the global batch's (PR 5705: 1.28 pops one task) and the LIFO cap
	 * (PR 5712: none in 1.28). */
	ASSERT_EQ(policy_tokio.nknobs, policy_tokio_1_28.nknobs);
	for (size_t i = 0; i < TOKIO_NKNOBS; i++) {
		ASSERT_STR_EQ(policy_tokio.knobs[i].name, policy_tokio_1_28.knobs[i].name);
		if (i != TOKIO_INTERVAL && i != TOKIO_BATCH_MAX && i != TOKIO_LIFO_CAP)
			ASSERT(policy_tokio.knobs[i].def == policy_tokio_1_28.knobs[i].def);
	}
	ASSERT(policy_tokio.knobs[TOKIO_INTERVAL].def == 0);
	ASSERT(policy_tokio_1_28.knobs[TOKIO_INTERVAL].def == 61);
	ASSERT(policy_tokio.knobs[TOKIO_BATCH_MAX].def == 128);
	ASSERT(policy_tokio_1_28.knobs[TOKIO_BATCH_MAX].def == 1);
	ASSERT(policy_tokio.knobs[TOKIO_LIFO_CAP].def == 3);
	ASSERT(policy_tokio_1_28.knobs[TOKIO_LIFO_CAP].def >= 1e9);
	ASSERT(policy_tokio.knobs[TOKIO_COOP_BUDGET].def == 128);
}

int main(void)
{
	RUN(ewma_arithmetic);
	RUN(tuning_driven_by_hand);
	RUN(fixed_interval_every_61st_tick);
	RUN(sleepers_wake_in_stack_order);
	RUN(lifo_cap_stops_ping_pong);
	RUN(coop_budget_stops_ping_pong_in_1_28);
	RUN(ewma_excludes_lifo_polls);
	RUN(yield_is_deferred);
	RUN(deferred_wake_leaves_searching);
	RUN(searcher_cap);
	RUN(maintenance_skips_held_driver);
	RUN(spurious_wake_parks_again);
	RUN(driver_timeout_gets_up);
	RUN(steal_refused_above_half);
	RUN(ewma_leaves_out_the_search);
	RUN(worker_limit);
	RUN(fib25_all);
	return 0;
}
