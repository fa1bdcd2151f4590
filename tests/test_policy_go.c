/*
 * test_policy_go.c - the go policy: fib computed correctly; runnext polls
 * that leave schedtick alone; the random coprime victim order; the global
 * queue on exactly every 61st schedtick; the global batch size; runnext stolen only on the last
 * steal pass; a runnext chain preempted when its time slice is spent; the
 * idle stack; a yield (Gosched) to the global queue; a thief that waits for
 * a victim another thief holds instead of passing it by.
 */
#include <pthread.h>
#include <time.h>

#include "policies/go.h"
#include "run_util.h"

static enum task_poll done_poll(struct task *t, struct worker *w)
{
	return TASK_DONE;
}

static const struct task_vtable done_vt = { .name = "done", .poll = done_poll };

/* A runtime the test thread drives by hand as the owner of every worker
 * (the engine never runs: unparks only leave permits). */
static struct runtime *hand_runtime(uint32_t workers, const char *const *knobs,
				    struct engine **e)
{
	return hand_runtime_for(&policy_go, workers, 1, 0, knobs, e);
}

static void hand_destroy(struct runtime *rt, struct engine *e)
{
	rt_destroy(rt);
	e->ops->destroy(e);
}

/* ---- whole runs ---- */

static void fib25_on(uint32_t workers)
{
	static const char *const params[] = { "n=25", NULL };
	struct run_result r;
	run_workload("go", "fib", workers, NULL, params, &r);
	if (r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, r.err);
	ASSERT_U64_EQ(r.tasks, 242785);
	ASSERT_U64_EQ(r.total.completions, 242785);
	ASSERT_U64_EQ(r.total.spawns, 242785 - 1);
	/* Internal nodes are polled twice (spawn, then join), leaves once. When
	 * both children finish during the parent's first poll, its join poll
	 * is a repoll (task_poll_end), not an extra poll. */
	ASSERT_U64_EQ(r.total.polls, 242785 + (242785 - 1) / 2);
	/* Every poll came from a runnext slot, the ring, the global queue or
	 * a steal (one task of a steal runs at once, the rest are popped). */
	ASSERT_U64_EQ(r.total.polls, r.total.runnext_polls + r.total.local_pops +
					     r.total.global_batches + r.total.steals);
	ASSERT(r.total.runnext_polls > 0);
	ASSERT(r.total.interval_checks > 0);
	ASSERT_EQ(r.total.lifo_polls, 0);
	fprintf(stderr, "    %u workers: runnext %llu, steals %llu, parks %llu, notifies %llu\n",
		workers, (unsigned long long)r.total.runnext_polls,
		(unsigned long long)r.total.steals, (unsigned long long)r.total.parks,
		(unsigned long long)r.total.notifies);
}

static void fib25_all(void)
{
	static const uint32_t counts[] = { 1, 2, 3, 8 };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		fib25_on(counts[i]);
}

/* ---- schedtick ---- */

/* Runnext polls inherit the time slice: schedtick stays; every other
 * poll starts a new slice: schedtick + 1. */
static void runnext_keeps_schedtick(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(1, NULL, &e);
	struct worker *w = &rt->workers[0];
	const struct policy *p = &policy_go;
	struct task t[4];
	p->tick_begin(w);

	task_init(&t[0], &done_vt);
	rt_spawn(w, &t[0]);			/* runnext: t0 */
	ASSERT(go_runnext(rt, 0) == &t[0]);
	ASSERT(p->find_work(w) == &t[0]);
	worker_run_task(w, &t[0]);
	ASSERT_EQ(go_worker_schedtick(w), 0);
	ASSERT_EQ(w->st.runnext_polls, 1);

	task_init(&t[1], &done_vt);
	task_init(&t[2], &done_vt);
	task_init(&t[3], &done_vt);
	rt_spawn(w, &t[1]);
	rt_spawn(w, &t[2]);			/* runnext: t2; ring: t1 */
	rt_spawn(w, &t[3]);			/* runnext: t3; ring: t1, t2 */
	ASSERT_EQ(ring_len(&w->sh->ring), 2);
	ASSERT(p->find_work(w) == &t[3]);
	worker_run_task(w, &t[3]);
	ASSERT_EQ(go_worker_schedtick(w), 0);	/* runnext: no tick */
	ASSERT(p->find_work(w) == &t[1]);
	worker_run_task(w, &t[1]);
	ASSERT_EQ(go_worker_schedtick(w), 1);	/* ring: a tick */
	ASSERT(p->find_work(w) == &t[2]);
	worker_run_task(w, &t[2]);
	ASSERT_EQ(go_worker_schedtick(w), 2);
	ASSERT(p->find_work(w) == NULL);
	ASSERT_EQ(w->st.runnext_polls, 2);
	ASSERT_EQ(w->st.local_pops, 2);
	ASSERT_EQ(w->st.polls, 4);
	/* Every findRunnable at schedtick 0 looked at the global queue. */
	ASSERT_EQ(w->st.interval_checks, 3);

	/* runnext=0: spawns go to the ring, and every poll ticks. */
	hand_destroy(rt, e);
	static const char *const off[] = { "runnext=0", NULL };
	rt = hand_runtime(1, off, &e);
	w = &rt->workers[0];
	p->tick_begin(w);
	task_init(&t[0], &done_vt);
	task_init(&t[1], &done_vt);
	rt_spawn(w, &t[0]);
	rt_spawn(w, &t[1]);
	ASSERT(go_runnext(rt, 0) == NULL);
	ASSERT(p->find_work(w) == &t[0]);
	ASSERT(p->find_work(w) == &t[1]);
	ASSERT_EQ(go_worker_schedtick(w), 2);
	ASSERT_EQ(w->st.runnext_polls, 0);
	hand_destroy(rt, e);
}

/* With a steady local supply and a non-empty global queue, the global
 * queue gives a task exactly when schedtick % 61 == 0 (schedtick 0, 61,
 * 122, ...: the 1st, 62nd, 123rd task). */
static void global_every_61st_schedtick(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(1, NULL, &e);
	struct worker *w = &rt->workers[0];
	static struct task ring_tasks[250], markers[6];
	for (int i = 0; i < 250; i++) {
		task_init(&ring_tasks[i], &done_vt);
		ASSERT(ring_try_push(&w->sh->ring, &ring_tasks[i]));
	}
	for (int i = 0; i < 6; i++) {
		task_init(&markers[i], &done_vt);
		inject_push(&rt->inject, &markers[i]);
	}
	policy_go.tick_begin(w);
	uint32_t seen = 0;
	for (uint32_t k = 0; k < 250; k++) {
		uint32_t before = go_worker_schedtick(w);
		ASSERT_EQ(before, k);
		struct task *t = policy_go.find_work(w);
		ASSERT(t);
		ASSERT_EQ(go_worker_schedtick(w), k + 1);
		bool marker = t >= markers && t < markers + 6;
		ASSERT_EQ(marker, before % 61 == 0);
		if (marker)
			ASSERT(t == &markers[seen++]);
	}
	ASSERT_EQ(seen, 5);			/* schedtick 0, 61, 122, 183, 244 */
	ASSERT_EQ(w->st.interval_checks, 5);
	ASSERT_EQ(w->st.global_tasks, 5);
	ASSERT_EQ(w->st.local_pops, 245);
	ASSERT_EQ(inject_len(&rt->inject), 1);
	hand_destroy(rt, e);
}

/*
 * globrunqget's batch (Go's proc.go): n = min(len / gomaxprocs + 1, len,
 * 128). The + 1 makes a queue shorter than the worker count still hand out
 * one task per pull, and lets one P take everything on one P.
 */
static void global_batch_size(void)
{
	static const struct { uint64_t len; uint32_t workers, want; } table[] = {
		{ 0, 4, 0 },	{ 1, 4, 1 },	{ 3, 4, 1 },	 { 4, 4, 2 },
		{ 7, 4, 2 },	{ 8, 4, 3 },	{ 5, 1, 5 },	 { 100, 1, 100 },
		{ 127, 1, 127 }, { 128, 1, 128 }, { 1000, 1, 128 }, { 1000, 8, 126 },
		{ 1000, 7, 128 }, { 39, 4, 10 },	{ 2, 64, 1 },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (go_batch_size(table[i].len, table[i].workers, 128) != table[i].want)
			TEST_FAIL("go_batch_size(%llu, %u, 128) = %u, expected %u",
				  (unsigned long long)table[i].len, table[i].workers,
				  go_batch_size(table[i].len, table[i].workers, 128),
				  table[i].want);

	/* Through the policy: 4 Ps, 40 goroutines on the global queue. At
	 * schedtick 0 one is taken (the 61st-tick fairness check); the next
	 * find_work finds the local queue empty and takes a batch of
	 * 39 / 4 + 1 = 10: the first runs, 9 go to the local queue. */
	struct engine *e;
	struct runtime *rt = hand_runtime(4, NULL, &e);
	struct worker *w = &rt->workers[0];
	static struct task g[40];
	for (int i = 0; i < 40; i++) {
		task_init(&g[i], &done_vt);
		inject_push(&rt->inject, &g[i]);
	}
	policy_go.tick_begin(w);
	ASSERT(policy_go.find_work(w) == &g[0]);
	ASSERT_EQ(w->st.global_tasks, 1);
	ASSERT(policy_go.find_work(w) == &g[1]);
	ASSERT_EQ(w->st.global_tasks, 11);
	ASSERT_EQ(ring_len(&w->sh->ring), 9);
	ASSERT_EQ(inject_len(&rt->inject), 29);
	for (int i = 2; i < 11; i++)
		ASSERT(policy_go.find_work(w) == &g[i]);
	ASSERT_EQ(w->st.global_tasks, 11);
	hand_destroy(rt, e);
}

/* ---- stealing ---- */

static uint32_t euler_phi(uint32_t n)
{
	uint32_t r = n;
	for (uint32_t p = 2; p * p <= n; p++)
		if (n % p == 0) {
			while (n % p == 0)
				n /= p;
			r -= r / p;
		}
	if (n > 1)
		r -= r / n;
	return r;
}

/* Every start and every stride: each worker exactly once per pass. */
static void coprime_order_visits_all(void)
{
	ASSERT_EQ(go_gcd(12, 18), 6);
	ASSERT_EQ(go_gcd(7, 1), 1);
	for (uint32_t count = 1; count <= 64; count++) {
		struct go_order o;
		ASSERT_EQ(go_order_init(&o, count), 0);
		ASSERT_EQ(o.ncoprimes, euler_phi(count));
		for (uint32_t j = 0; j < o.ncoprimes; j++)
			ASSERT_EQ(go_gcd(o.coprimes[j], count), 1);
		/* r covers every (start, stride) pair, then some random ones. */
		for (uint32_t r = 0; r < count * o.ncoprimes + 100; r++) {
			uint32_t rr = r < count * o.ncoprimes ? r : r * 2654435761u;
			uint8_t seen[64] = { 0 };
			uint32_t n = 0;
			for (struct go_enum e = go_enum_start(&o, rr); !go_enum_done(&e);
			     go_enum_next(&e)) {
				ASSERT(e.pos < count);
				seen[e.pos]++;
				n++;
			}
			ASSERT_EQ(n, count);
			for (uint32_t i = 0; i < count; i++)
				ASSERT_EQ(seen[i], 1);
		}
		go_order_destroy(&o);
	}
}

/* A victim with an empty ring keeps its runnext through the first three
 * passes and loses it on the fourth. */
static void runnext_stolen_on_last_pass(void)
{
	static const char *const knobs[] = { "runnext_pause_ns=1000", NULL };
	struct engine *e;
	struct runtime *rt = hand_runtime(2, knobs, &e);
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct task t;
	policy_go.tick_begin(w0);
	task_init(&t, &done_vt);
	rt_spawn(w0, &t);
	ASSERT(go_runnext(rt, 0) == &t);
	ASSERT_EQ(ring_len(&w0->sh->ring), 0);

	policy_go.tick_begin(w1);
	ASSERT(policy_go.find_work(w1) == &t);
	ASSERT(go_runnext(rt, 0) == NULL);
	ASSERT_EQ(w1->st.steal_attempts, 4);	/* one per pass, 4 passes */
	ASSERT_EQ(w1->st.steals, 1);
	ASSERT_EQ(w1->st.tasks_stolen, 1);
	ASSERT_EQ(w1->st.searcher_enter, 1);
	ASSERT(!w1->searching);			/* found work: stopped spinning */
	ASSERT_EQ(go_num_spinning(rt), 0);
	ASSERT_EQ(go_worker_schedtick(w1), 1);	/* a stolen task does not inherit */
	/* The owner finds its slot empty. */
	ASSERT(policy_go.find_work(w0) == NULL);
	hand_destroy(rt, e);

	/* A victim with tasks in its ring: half the ring, on the first pass. */
	rt = hand_runtime(2, NULL, &e);
	w0 = &rt->workers[0];
	w1 = &rt->workers[1];
	struct task ts[6];
	policy_go.tick_begin(w0);
	for (int i = 0; i < 6; i++) {
		task_init(&ts[i], &done_vt);
		rt_spawn(w0, &ts[i]);		/* runnext: ts5; ring: ts0..ts4 */
	}
	policy_go.tick_begin(w1);
	ASSERT(policy_go.find_work(w1) == &ts[2]);	/* ceil(5/2) = 3: ts0..ts2 */
	ASSERT_EQ(w1->st.steal_attempts, 1);
	ASSERT_EQ(w1->st.tasks_stolen, 3);
	ASSERT_EQ(ring_len(&w1->sh->ring), 2);
	ASSERT(go_runnext(rt, 0) == &ts[5]);
	hand_destroy(rt, e);
}

/* A steal of two tasks by another thief, in progress on a ring until
 * released (the test plays that thief). */
struct held_steal {
	struct ring *r;
	uint32_t real;		/* the claimed range starts here */
};

static void *release_held_steal(void *arg)
{
	struct held_steal *hs = arg;
	/* Long enough that a thief which passes a busy victim by has
	 * finished all four passes; a thief that waits just waits longer. */
	struct timespec ms20 = { 0, 20000000 };
	nanosleep(&ms20, NULL);
	/* The other thief's copy is done: steal catches up with real.
	 * Release: the thief's acquire load of head then sees a ring whose
	 * claimed slots are no longer in it. */
	atomic_store_explicit(&hs->r->head, ring_pack(hs->real + 2, hs->real + 2),
			      memory_order_release);
	return NULL;
}

/*
 * proc.go runqgrab: a thief that loses its CAS to another thief retries the
 * same victim at once, on half of what the other left; it never passes the
 * victim by. Here the other thief holds worker 0's ring busy while it
 * copies two of its four tasks out; worker 1 waits for it, then steals one
 * of the two left (ceil(2 / 2)), the oldest, on its first pass. A thief that
 * moved on would find nothing in four passes and return empty-handed.
 */
static void thief_waits_for_busy_victim(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(2, NULL, &e);
	struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
	struct ring *r = &w0->sh->ring;
	struct task ts[4];
	for (int i = 0; i < 4; i++) {
		task_init(&ts[i], &done_vt);
		ASSERT(ring_try_push(r, &ts[i]));
	}
	uint64_t h = atomic_load(&r->head);
	ASSERT(ring_steal_idx(h) == ring_real(h));
	struct held_steal hs = { r, ring_real(h) };
	atomic_store(&r->head, ring_pack(hs.real, hs.real + 2));	/* ts0, ts1 claimed */

	pthread_t other;
	ASSERT_EQ(pthread_create(&other, NULL, release_held_steal, &hs), 0);
	policy_go.tick_begin(w1);
	struct task *t = policy_go.find_work(w1);
	ASSERT_EQ(pthread_join(other, NULL), 0);
	ASSERT(t == &ts[2]);
	ASSERT(go_worker_steal_waits(w1) > 0);
	ASSERT_U64_EQ(w1->st.steal_attempts, 1);
	ASSERT_U64_EQ(w1->st.tasks_stolen, 1);
	ASSERT_EQ(ring_len(r), 1);
	ASSERT(policy_go.find_work(w0) == &ts[3]);
	hand_destroy(rt, e);
}

/* ---- the time slice ---- */

struct pp {
	struct task task;
	struct pp *partner;
	bool quiet;		/* the first poll only goes idle */
};

static enum task_poll pp_poll(struct task *t, struct worker *w)
{
	struct pp *p = (struct pp *)t;
	if (p->quiet) {
		p->quiet = false;
		return TASK_PENDING;
	}
	rt_wake(w->rt, w, &p->partner->task);
	return TASK_PENDING;
}

static const struct task_vtable pp_vt = { .name = "ping-pong", .poll = pp_poll };

/* Polls of a third task queued behind a runnext ping-pong pair that has
 * used `used_ns` of one time slice. */
static uint64_t ping_pong(const char *const *knobs, uint64_t used_ns, uint64_t *preempts)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(1, knobs, &e);
	struct worker *w = &rt->workers[0];
	const struct policy *p = &policy_go;
	struct pp a = { .quiet = false }, b = { .quiet = true };
	struct task c;
	a.partner = &b;
	b.partner = &a;

	p->tick_begin(w);
	task_init(&b.task, &pp_vt);
	worker_run_task(w, &b.task);		/* b waits for a wake */
	task_init(&c, &done_vt);
	rt_spawn(w, &c);
	task_init(&a.task, &pp_vt);
	rt_spawn(w, &a.task);			/* runnext: a; ring: c */
	uint64_t before = w->st.completions;
	/* The pair hands runnext back and forth: one slice, no tick, and c
	 * waits in the ring. */
	for (int i = 0; i < 100; i++) {
		struct task *t = p->find_work(w);
		ASSERT(t == &a.task || t == &b.task);
		worker_run_task(w, t);
	}
	ASSERT_EQ(go_worker_schedtick(w), 0);
	ASSERT_EQ(w->st.runnext_polls, 100);
	p->tick_end(w, 100, used_ns);		/* the modeled sysmon looks */
	p->tick_begin(w);
	for (int i = 0; i < 100 && w->st.completions == before; i++)
		worker_run_task(w, p->find_work(w));
	*preempts = go_worker_preempts(w);
	uint64_t c_ran = w->st.completions - before;
	hand_destroy(rt, e);
	return c_ran;
}

static void runnext_chain_preempted(void)
{
	uint64_t preempts;
	/* 20 ms in one 10 ms slice: the next runnext task goes to the
	 * global queue and c runs next, from the ring. */
	ASSERT_EQ(ping_pong(NULL, 20000000, &preempts), 1);
	ASSERT_EQ(preempts, 1);
	/* Within the slice, or with preemption off, c starves. */
	ASSERT_EQ(ping_pong(NULL, 5000000, &preempts), 0);
	ASSERT_EQ(preempts, 0);
	static const char *const off[] = { "time_slice_ns=0", NULL };
	ASSERT_EQ(ping_pong(off, 20000000, &preempts), 0);
	ASSERT_EQ(preempts, 0);
}

/* ---- idle ---- */

/* wakep takes the most recently idled worker, as a spinner; with one
 * spinning, further spawns wake nobody. */
/*
 * Gosched (proc.go goschedImpl): a yielding task goes to the global queue,
 * not to runnext or the local ring, so any worker may take it next.
 * yield_global=0 keeps it local (the ring's tail).
 */
static void yield_goes_global(void)
{
	for (int global = 0; global < 2; global++) {
		const char *const knobs[] = { global ? "yield_global=1" : "yield_global=0", NULL };
		struct engine *e;
		struct runtime *rt = hand_runtime(1, knobs, &e);
		struct worker *w = &rt->workers[0];
		struct task y;
		policy_go.tick_begin(w);
		task_init(&y, &done_vt);
		policy_go.schedule_local(w, &y, SCHED_YIELD);
		ASSERT(go_runnext(rt, 0) == NULL);
		ASSERT_EQ(inject_len(&rt->inject), (global ? 1 : 0));
		ASSERT_EQ(ring_len(&w->sh->ring), (global ? 0 : 1));
		ASSERT(policy_go.find_work(w) == &y);
		ASSERT_EQ(w->st.global_tasks, (global ? 1 : 0));
		ASSERT_EQ(w->st.local_pops, (global ? 0 : 1));
		hand_destroy(rt, e);
	}
	/* The default is Go's. */
	struct engine *e;
	struct runtime *rt = hand_runtime(1, NULL, &e);
	struct task y;
	task_init(&y, &done_vt);
	policy_go.schedule_local(&rt->workers[0], &y, SCHED_YIELD);
	ASSERT_EQ(inject_len(&rt->inject), 1);
	hand_destroy(rt, e);
}

/*
 * The spinning cap (proc.go findRunnable): a worker starts spinning only
 * while 2 * nmspinning < gomaxprocs - npidle. On 4 workers, none idle, the
 * first two spin (and try the others); the third does not steal at all.
 */
static void spinning_cap(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(4, NULL, &e);
	uint32_t spinning = 0;
	for (uint32_t i = 1; i < 4; i++) {
		struct worker *w = &rt->workers[i];
		policy_go.tick_begin(w);
		ASSERT(policy_go.find_work(w) == NULL);
		if (i < 3)
			ASSERT(w->st.steal_attempts > 0);
		else
			ASSERT_EQ(w->st.steal_attempts, 0);
		spinning += w->searching;
	}
	ASSERT_EQ(spinning, 2);
	hand_destroy(rt, e);
}

static void idle_stack_and_wakep(void)
{
	struct engine *e;
	struct runtime *rt = hand_runtime(4, NULL, &e);
	const struct policy *p = &policy_go;
	uint64_t timeout = 0;
	for (uint32_t i = 1; i <= 3; i++) {
		ASSERT(p->park(&rt->workers[i], &timeout));
		ASSERT_U64_EQ(timeout, PARK_FOREVER);
	}
	ASSERT_EQ(go_num_idle(rt), 3);

	struct worker *w0 = &rt->workers[0];
	struct task t[2];
	p->tick_begin(w0);
	task_init(&t[0], &done_vt);
	rt_spawn(w0, &t[0]);
	ASSERT_EQ(w0->st.notifies, 1);
	ASSERT_EQ(go_num_idle(rt), 2);
	ASSERT_EQ(go_num_spinning(rt), 1);
	p->unparked(&rt->workers[3], PARK_WOKEN);
	ASSERT(rt->workers[3].searching);	/* woken as a spinner */
	ASSERT_EQ(rt->workers[3].st.unparks_notify, 1);
	/* Worker 2 was not taken: its wake is spurious and it leaves the
	 * idle list by itself, not spinning. */
	p->unparked(&rt->workers[2], PARK_WOKEN);
	ASSERT(!rt->workers[2].searching);
	ASSERT_EQ(rt->workers[2].st.unparks_spurious, 1);
	ASSERT_EQ(go_num_idle(rt), 1);

	task_init(&t[1], &done_vt);
	rt_spawn(w0, &t[1]);
	ASSERT_EQ(w0->st.notifies, 1);		/* somebody spins: no wake */

	/* The spinner steals, stops spinning, and as the last spinner wakes
	 * the next idle worker (1). */
	struct worker *w3 = &rt->workers[3];
	p->tick_begin(w3);
	ASSERT(p->find_work(w3) != NULL);
	ASSERT(!w3->searching);
	ASSERT_EQ(w3->st.last_searcher_notifies, 1);
	ASSERT_EQ(go_num_idle(rt), 0);
	ASSERT_EQ(go_num_spinning(rt), 1);
	p->unparked(&rt->workers[1], PARK_WOKEN);
	ASSERT(rt->workers[1].searching);
	hand_destroy(rt, e);
}


/* A task that sleeps once on a timer due at once (its deadline is the
 * clock when it is polled), then completes. */
static enum task_poll sleep_once_poll(struct task *t, struct worker *w)
{
	static int polls;
	if (polls++ % 2 == 0) {
		rt_sleep_on(w, t, rt_now(w->rt, w));
		return TASK_PENDING;
	}
	return TASK_DONE;
}

static const struct task_vtable sleep_once_vt = { .name = "sleep-once", .poll = sleep_once_poll };

/*
 * Go's timers are per P (proc.go): a timer set by a task goes to the heap
 * of the worker that polled it; that worker's findRunnable runs it first
 * thing (checkTimers on the own P); another worker runs it only on the last
 * pass of stealWork (stealTimersOrRunNextG), after the first three passes
 * found nothing, the task readied onto the thief. An idle worker parks as
 * the netpoller, no longer than the next timer of any P; a second one does
 * not take the role.
 */
static void timers_per_worker(void)
{
	for (int thief = 0; thief < 2; thief++) {
		struct engine *e;
		struct runtime *rt = hand_runtime(2, NULL, &e);
		struct worker *w0 = &rt->workers[0], *w1 = &rt->workers[1];
		struct task t;
		policy_go.tick_begin(w0);
		task_init(&t, &sleep_once_vt);
		worker_run_task(w0, &t);	/* sets its timer on w0 */
		ASSERT(timers_next(&rt->wtimers[0]) != TIMER_NONE);
		ASSERT(timers_next(&rt->wtimers[1]) == TIMER_NONE);
		ASSERT(timers_next(&rt->timers) == TIMER_NONE);
		if (thief) {
			policy_go.tick_begin(w1);
			ASSERT(policy_go.find_work(w1) == &t);
			/* Passes 1 to 3 tried w0's empty ring; pass 4 ran
			 * its timers before trying it. */
			ASSERT_EQ(w1->st.steal_attempts, 3);
			ASSERT_EQ(w1->st.steals, 0);
		} else {
			ASSERT(policy_go.find_work(w0) == &t);
			ASSERT_EQ(w0->st.steal_attempts, 0);
		}
		ASSERT(timers_next(&rt->wtimers[0]) == TIMER_NONE);
		worker_run_task(thief ? w1 : w0, &t);	/* completes */
		hand_destroy(rt, e);
	}

	/* The netpoller role: one parked worker, no longer than the next
	 * timer (1 s away here). */
	struct engine *e;
	struct runtime *rt = hand_runtime(3, NULL, &e);
	struct task t;
	task_init(&t, &done_vt);
	uint64_t at = rt_now(rt, &rt->workers[2]) + 1000000000ull;
	rt_sleep_on(&rt->workers[2], &t, at);
	uint64_t timeout[2];
	for (int i = 0; i < 2; i++) {
		struct worker *w = &rt->workers[i];
		policy_go.tick_begin(w);
		ASSERT(policy_go.find_work(w) == NULL);
		ASSERT(policy_go.park(w, &timeout[i]));
	}
	ASSERT_EQ(atomic_load(&rt->timekeeper), 0);
	ASSERT(timeout[0] <= 1000000000ull);
	ASSERT(timeout[1] == PARK_FOREVER || timeout[1] > 1000000000ull);
	policy_go.unparked(&rt->workers[0], PARK_TIMEOUT);
	ASSERT_EQ(atomic_load(&rt->timekeeper), -1);
	struct task *due[1];
	ASSERT_EQ(timers_expire(&rt->wtimers[2], at, due, 1), 1);
	hand_destroy(rt, e);
}

int main(void)
{
	RUN(runnext_keeps_schedtick);
	RUN(global_every_61st_schedtick);
	RUN(global_batch_size);
	RUN(coprime_order_visits_all);
	RUN(runnext_stolen_on_last_pass);
	RUN(thief_waits_for_busy_victim);
	RUN(runnext_chain_preempted);
	RUN(idle_stack_and_wakep);
	RUN(yield_goes_global);
	RUN(spinning_cap);
	RUN(timers_per_worker);
	RUN(fib25_all);
	return 0;
}
