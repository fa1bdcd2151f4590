/*
 * test_volt.c - the volt policy's defining mechanisms: the LIFO cap with
 * its flush, the EWMA interval table, global batch sizes, the worker limit,
 * and a remote spawn onto fully parked workers answered by a notify rather
 * than by the park timeout.
 */
#include <sched.h>
#include <time.h>

#include "policies/volt.h"
#include "run_util.h"

/* A runtime the test thread drives by hand as worker 0's owner. */
static struct runtime *hand_runtime(uint32_t workers, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(&policy_volt, workers, 1, 0, knobs, e);
}

/* Three LIFO polls per tick; the fourth comes from the ring, and the task
 * that was in the slot is flushed into the ring, not lost. */
static void lifo_cap(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(1, NULL, &e);
	struct worker *w = &rt->workers[0];
	const struct policy *p = &policy_volt;
	struct task r0, t[5];

	ASSERT_EQ(p->tick_begin(w), 128);
	spawn_dummy(w, &r0);			/* LIFO: r0 */
	spawn_dummy(w, &t[0]);		/* LIFO: t0, ring: r0 */
	ASSERT_EQ(ring_len(&w->sh->ring), 1);
	ASSERT(p->find_work(w) == &t[0]);
	spawn_dummy(w, &t[1]);
	ASSERT(p->find_work(w) == &t[1]);
	spawn_dummy(w, &t[2]);
	ASSERT(p->find_work(w) == &t[2]);
	ASSERT_EQ(w->st.lifo_polls, 3);
	spawn_dummy(w, &t[3]);		/* into the slot; the cap is reached */
	ASSERT(p->find_work(w) == &r0);	/* 4th poll: from the ring */
	ASSERT_EQ(w->st.lifo_polls, 3);
	ASSERT_EQ(w->st.local_pops, 1);
	ASSERT(w->lifo == NULL);	/* t3 was flushed to the ring... */
	ASSERT(p->find_work(w) == &t[3]);	/* ...and is found there */
	ASSERT_EQ(w->st.local_pops, 2);
	ASSERT(p->find_work(w) == NULL);

	/* A new tick re-opens the slot. */
	p->tick_begin(w);
	spawn_dummy(w, &t[4]);
	ASSERT(p->find_work(w) == &t[4]);
	ASSERT_EQ(w->st.lifo_polls, 4);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* lifo_cap=0 disables the slot: everything is FIFO through the ring. */
static void lifo_disabled(void)
{
	static const char *const knobs[] = { "lifo_cap=0", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(1, knobs, &e);
	struct worker *w = &rt->workers[0];
	struct task t[3];
	policy_volt.tick_begin(w);
	for (int i = 0; i < 3; i++)
		spawn_dummy(w, &t[i]);
	for (int i = 0; i < 3; i++)
		ASSERT(policy_volt.find_work(w) == &t[i]);
	ASSERT_EQ(w->st.lifo_polls, 0);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* The seed notes' table: interval = clamp(1 ms / avg, 8, 255). */
static void ewma_interval_table(void)
{
	static const double avg_ns[] = { 1000, 10000, 50000, 100000, 1000000 };
	static const uint32_t want[] = { 255, 100, 20, 10, 8 };
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(volt_interval_for(avg_ns[i], 1e6, 8, 255), want[i]);

	/* The EWMA, driven through tick_end, starts at 50 us (interval 20)
	 * and settles on the table's value for a steady poll time, from
	 * above and from below. */
	struct engine *e;
	struct runtime *rt = hand_runtime(1, NULL, &e);
	struct worker *w = &rt->workers[0];
	ASSERT_EQ(volt_worker_avg_ns(w), 50000);
	ASSERT_EQ(volt_worker_interval(w), 20);
	for (int i = 0; i < 5; i++) {
		for (int tick = 0; tick < 400; tick++)
			policy_volt.tick_end(w, 128, 128 * (uint64_t)avg_ns[i]);
		/* Truncation stops an average rising from below within
		 * 1/alpha = 10 ns of the sample. */
		ASSERT(volt_worker_avg_ns(w) <= (uint64_t)avg_ns[i]);
		ASSERT(volt_worker_avg_ns(w) + 10 >= (uint64_t)avg_ns[i]);
		ASSERT_EQ(volt_worker_interval(w), want[i]);
	}
	for (int i = 3; i >= 0; i--) {
		for (int tick = 0; tick < 400; tick++)
			policy_volt.tick_end(w, 64, 64 * (uint64_t)avg_ns[i]);
		ASSERT_EQ(volt_worker_avg_ns(w), (uint64_t)avg_ns[i]);	/* exact from above */
		ASSERT_EQ(volt_worker_interval(w), want[i]);
	}
	/* A single outlier tick moves the average by a tenth of the gap. */
	policy_volt.tick_end(w, 1, 1000 + 10000);
	ASSERT_EQ(volt_worker_avg_ns(w), 2000);
	ASSERT_EQ(volt_ewma(50000, 10000, 0.1), 46000);
	rt_destroy(rt);
	e->ops->destroy(e);
}

static void batch_sizes(void)
{
	ASSERT_EQ(volt_batch_size(0, 4, 4, 64), 4);
	ASSERT_EQ(volt_batch_size(40, 4, 4, 64), 10);
	ASSERT_EQ(volt_batch_size(10000, 4, 4, 64), 64);
	ASSERT_EQ(volt_batch_size(7, 1, 4, 64), 7);
}

static void more_than_64_workers_refused(void)
{
	double kv[VOLT_NKNOBS];
	knob_defaults(policy_volt.knobs, policy_volt.nknobs, kv);
	struct rt_config cfg = { .workers = 65, .seed = 1, .hist_digits = 3 };
	char err[256] = "";
	ASSERT(policy_volt.check(&cfg, kv, err, sizeof err) != 0);
	ASSERT(strstr(err, "64") != NULL);
	cfg.workers = 64;
	ASSERT_EQ(policy_volt.check(&cfg, kv, err, sizeof err), 0);
}

/* ---- remote spawn onto fully parked workers ---- */

static void remote_spawn_wakes_parked_worker(void)
{
	/* A 10 s park timeout: only a notify can end this run quickly, and
	 * a timeout wake would show in the counters. */
	static const char *const knobs[] = { "park_timeout_ns=10000000000", NULL };
	const uint32_t workers = 4;
	double kv[VOLT_NKNOBS];
	apply_settings(policy_volt.knobs, policy_volt.nknobs, kv, knobs);
	struct rt_config cfg = { .workers = workers, .seed = 3, .sample_period = 0,
				 .hist_digits = 2 };
	char err[256];
	struct engine *e = engine_threads_create(workers);
	struct runtime *rt;
	ASSERT_EQ(rt_create(&rt, &cfg, &policy_volt, kv, e, err, sizeof err), 0);
	int32_t ran_on;
	uint32_t asleep = spawn_onto_sleepers(e, rt, idle_parked, &ran_on);

	struct worker_stats tot;
	rt_total_stats(rt, &tot);
	ASSERT_EQ(asleep, workers);
	ASSERT(ran_on >= 0);
	ASSERT(tot.unparks_notify >= 1);
	ASSERT_EQ(tot.unparks_timeout, 0);
	/* The task went through the global queue to the claimed worker. */
	ASSERT_EQ(tot.global_tasks, 1);
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* Over a whole run every worker's adaptive interval stays in [8, 255]. */
static void check_intervals(struct runtime *rt, void *arg)
{
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		uint32_t iv = volt_worker_interval(&rt->workers[i]);
		ASSERT(iv >= 8 && iv <= 255);
	}
	*(int *)arg = 1;
}

static void interval_stays_in_range(void)
{
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	int checked = 0;
	run_workload_inspect("volt", "fib", 2, NULL, params, 1, &r, check_intervals, &checked);
	ASSERT_EQ(r.verify_rc, 0);
	ASSERT_EQ(checked, 1);
	/* Long tasks (100 us spins) drive it to the lower clamp. */
	checked = 0;
	static const char *const imb[] = { "t0_ms=5", "t1_ms=5", "t2_ms=5", "t3_ms=5", NULL };
	run_workload_inspect("volt", "imbalanced", 2, NULL, imb, 1, &r, check_intervals, &checked);
	ASSERT_EQ(r.verify_rc, 0);
	ASSERT_EQ(checked, 1);
}

int main(void)
{
	RUN(interval_stays_in_range);
	RUN(lifo_cap);
	RUN(lifo_disabled);
	RUN(ewma_interval_table);
	RUN(batch_sizes);
	RUN(more_than_64_workers_refused);
	RUN(remote_spawn_wakes_parked_worker);
	return 0;
}
