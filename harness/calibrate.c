/*
 * calibrate.c - measure the simulation's cost table (calibrate.h).
 *
 * Each cost is measured with the mechanism it stands for, on this machine:
 *
 *   local_push, local_pop   ring_try_push and ring_pop, 256 of each in a
 *                           row on one thread (the ring's lines stay here)
 *   lifo                    the LIFO slot's take, as volt's local_pop does
 *                           it (a load, a store, two counters)
 *   global_lock,            inject_push_many + inject_pop_batch pairs of 1
 *   global_task             and of 64 tasks: the per-task part is the
 *                           slope, the per-lock part what is left of a pair
 *                           of 1 (uncontended: the sim adds the waiting)
 *   spawn, poll             a hand-driven 1-worker volt runtime spawning
 *                           128 trivial tasks with rt_spawn and polling
 *                           them through find_work and worker_run_task; the
 *                           pushes, pops and LIFO takes its counters show
 *                           are taken off at the costs measured above, as
 *                           the simulator charges them separately
 *   idle_step               a tick of the same runtime that finds nothing:
 *                           timers, I/O poll, tick_begin, two clock reads,
 *                           find_work on empty queues, tick_end
 *   steal_attempt,          ring_steal_into from a ring whose owner runs on
 *   steal_task              CPU 0, by a thief on CPU 1: steals of 1 task
 *                           (victim holds 2) and of 64 (victim holds 128);
 *                           the slope is the per-task part, the intercept
 *                           the per-attempt part (a cache-line transfer
 *                           dominates it)
 *   notify,                 the threads engine's parker protocol (EMPTY /
 *   wake_latency            PARKED / NOTIFIED on a futex word) between a
 *                           waker on CPU 0 and a parker on CPU 1 asleep in
 *                           the kernel on an idle CPU: the waker's time for
 *                           the unpark, and the time from the unpark to the
 *                           parker running
 *   park                    the same parker sharing CPU 1 with a thread
 *                           that yields in a loop: the time from the start
 *                           of its park to that thread getting the CPU
 *   wake_return,            the parker's own CPU clock over a sleep that
 *   timeout_return          an unpark ends (CPU 1 idle meanwhile) and over
 *                           one that its timeout ends, less park: the
 *                           sleeper's way back from the kernel
 *   notify_deep,            the same waker and parker, the parker woken
 *   halt_poll,              after 2 ms asleep (the waker's time: a wake of
 *   halt_poll_shrink        a CPU the host scheduled out), after series of
 *                           sleeps of one length (the longest whose wakes
 *                           stay cheap: the host's polling window at its
 *                           largest) and after a long sleep that follows
 *                           medium ones (whether the window is then reset
 *                           or halved): calibrate_pair.c, bench_notify_deep
 *   yield                   the caller's CPU clock over sched_yield calls
 *                           in a row: an idle round's yield (rayon)
 *   cold_start,             256 task-sized blocks written on CPU 0, read
 *   line_transfer           and written (or added to) on CPU 1, less the
 *                           same touches again
 *   lock_transfer           256 global queues, one task pushed into each
 *                           on CPU 0 and popped on CPU 1, less the same
 *                           pops after CPU 1's own pushes (the queue's
 *                           lines alone); the figure the sim uses is fitted
 *                           afterwards (calibrate_policies)
 *   lock_wait               a global queue's lock held on CPU 0 while a
 *                           thread on CPU 1 spins for it: from the
 *                           holder's release to the waiter holding it
 *
 * Single-thread figures are per-operation means over long runs of the
 * operation, less the clock reads around them and the bare loop, repeated
 * `reps` times (median). Two-thread figures are medians over 20 * reps
 * single events, each timed between fenced clock reads. All of it is done
 * in `passes` passes a third of a second apart, and each cost is the median
 * over the passes (their range goes into the file). Every thread reads the
 * threads engine's clock (the invariant TSC where the kernel reports one),
 * which is common to all cores. The c2c probe runs before and after: the
 * two-thread figures belong to the regime it shows.
 */
#define _GNU_SOURCE
#include "calibrate_impl.h"

/* ---- the yardsticks: a clock read and a bare loop iteration ---- */

static void measure_overheads(struct cal *c)
{
	enum { N = 4000 };
	for (uint32_t r = 0; r < c->reps; r++) {
		uint64_t t0 = now(c), x = 0;
		for (int i = 0; i < N; i++)
			x += now(c);
		uint64_t t1 = now(c);
		__asm__ volatile("" : : "r"(x));
		c->s[r] = (double)(t1 - t0) / (N + 1);
	}
	c->clock_ns = median(c->s, c->reps);
	for (uint32_t r = 0; r < c->reps; r++) {
		uint64_t t0 = now(c);
		for (int i = 0; i < 100000; i++)
			__asm__ volatile("" : : : "memory");
		c->s[r] = ((double)(now(c) - t0) - c->clock_ns) / 100000;
	}
	c->loop_ns = median(c->s, c->reps);
	say(c, "clock read %.1f ns, bare loop iteration %.2f ns", c->clock_ns, c->loop_ns);
}

/* Mean ns per operation of `ops` operations timed in `reads` intervals. */
static double per_op(const struct cal *c, uint64_t ns, uint64_t ops, uint64_t reads)
{
	return ((double)ns - (double)reads * c->clock_ns) / (double)ops - c->loop_ns;
}

/* ---- local ring ---- */

static int bench_ring(struct cal *c, struct calibrate_ns *ns)
{
	struct ring *r = aligned_alloc(CACHE_LINE, sizeof *r);
	struct task *tasks = calloc(RING_CAP, sizeof *tasks);
	double *pop = calloc(c->reps, sizeof *pop);
	if (!r || !tasks || !pop) {
		free(r);
		free(tasks);
		free(pop);
		return -ENOMEM;
	}
	ring_init(r);
	for (uint32_t rep = 0; rep < c->reps; rep++) {
		uint64_t tpush = 0, tpop = 0;
		for (int round = 0; round < RING_ROUNDS; round++) {
			uint64_t t0 = now(c);
			for (uint32_t i = 0; i < RING_CAP; i++)
				CHECK(ring_try_push(r, &tasks[i]));
			uint64_t t1 = now(c);
			for (uint32_t i = 0; i < RING_CAP; i++)
				CHECK(ring_pop(r) != NULL);
			uint64_t t2 = now(c);
			tpush += t1 - t0;
			tpop += t2 - t1;
		}
		c->s[rep] = per_op(c, tpush, RING_ROUNDS * RING_CAP, RING_ROUNDS);
		pop[rep] = per_op(c, tpop, RING_ROUNDS * RING_CAP, RING_ROUNDS);
	}
	ns->local_push = median(c->s, c->reps);
	ns->local_pop = median(pop, c->reps);
	say(c, "ring: push %.1f ns, pop %.1f ns", ns->local_push, ns->local_pop);
	free(r);
	free(tasks);
	free(pop);
	return 0;
}

/* ---- LIFO slot ---- */

/* Owner-private slot state, as volt keeps it. */
struct slot {
	struct task *lifo;
	uint32_t polls, cap;
	uint64_t lifo_polls;
};

/* Volt's take from the slot (local_pop's first branch). */
static __attribute__((noinline)) struct task *slot_take(struct slot *s)
{
	struct task *t = s->lifo;
	if (t) {
		s->lifo = NULL;
		if (s->polls < s->cap) {
			s->polls++;
			s->lifo_polls++;
			return t;
		}
	}
	return NULL;
}

static __attribute__((noinline)) struct task *slot_none(struct slot *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
	return s->lifo;
}

static void bench_lifo(struct cal *c, struct calibrate_ns *ns)
{
	struct slot s = { .cap = UINT32_MAX };
	struct task t;
	for (uint32_t rep = 0; rep < c->reps; rep++) {
		/* The same loop with a take and with a bare call: the
		 * difference is the take. */
		s.polls = 0;
		uint64_t t0 = now(c);
		for (int i = 0; i < LIFO_OPS; i++) {
			s.lifo = &t;
			CHECK(slot_take(&s) == &t);
		}
		uint64_t t1 = now(c);
		for (int i = 0; i < LIFO_OPS; i++) {
			s.lifo = &t;
			CHECK(slot_none(&s) == &t);
		}
		uint64_t t2 = now(c);
		c->s[rep] = ((double)(t1 - t0) - (double)(t2 - t1)) / LIFO_OPS;
	}
	ns->lifo = median(c->s, c->reps);
	say(c, "LIFO slot take %.2f ns", ns->lifo);
}

/* ---- global queue ---- */

static int bench_inject(struct cal *c, struct calibrate_ns *ns)
{
	enum { BIG = 64 };
	struct inject *q = aligned_alloc(CACHE_LINE, sizeof *q);
	struct task *tasks = calloc(BIG, sizeof *tasks);
	if (!q || !tasks) {
		free(q);
		free(tasks);
		return -ENOMEM;
	}
	inject_init(q);
	struct task *in[BIG], *out[BIG];
	for (int i = 0; i < BIG; i++)
		in[i] = &tasks[i];
	double pair[2];
	static const size_t sizes[2] = { 1, BIG };
	for (int k = 0; k < 2; k++) {
		size_t n = sizes[k];
		for (uint32_t rep = 0; rep < c->reps; rep++) {
			uint64_t t0 = now(c);
			for (int i = 0; i < INJECT_ROUNDS; i++) {
				inject_push_many(q, in, n);
				CHECK(inject_pop_batch(q, out, n) == n);
			}
			c->s[rep] = per_op(c, now(c) - t0, INJECT_ROUNDS, 1);
		}
		pair[k] = median(c->s, c->reps);
	}
	/* A pair of n costs 2 locks + 2n task moves. */
	ns->global_task = (pair[1] - pair[0]) / (2.0 * (BIG - 1));
	ns->global_lock = (pair[0] - 2 * ns->global_task) / 2;
	say(c, "global queue: push+pop of 1 %.1f ns, of %d %.1f ns -> lock %.1f ns, task %.2f ns",
	    pair[0], BIG, pair[1], ns->global_lock, ns->global_task);
	inject_destroy(q);
	free(q);
	free(tasks);
	return 0;
}

/* ---- spawn, poll and the idle tick on a hand-driven volt runtime ---- */

static enum task_poll done_poll(struct task *t, struct worker *w)
{
	return TASK_DONE;
}

static const struct task_vtable cal_vt = { .name = "calibrate", .poll = done_poll };

/* A task in a block of its own, as the task pool hands them out. */
struct cal_task {
	CACHE_ALIGNED struct task t;
};

static int hand_runtime(struct cal *c, struct runtime **rt)
{
	const struct policy *p = policy_find("volt");
	if (!p)
		return -ENOENT;
	double *kv = calloc(p->nknobs ? p->nknobs : 1, sizeof *kv);
	if (!kv)
		return -ENOMEM;
	knob_defaults(p->knobs, p->nknobs, kv);
	struct rt_config cfg = { .workers = 1, .seed = 1, .sample_period = 0, .hist_digits = 2 };
	char err[256];
	int rc = rt_create(rt, &cfg, p, kv, c->e, err, sizeof err);
	free(kv);
	if (rc)
		say(c, "cannot create a volt runtime: %s", err);
	return rc;
}

static int bench_tasks(struct cal *c, struct calibrate_ns *ns)
{
	enum { N = 128 };
	struct runtime *rt;
	int rc = hand_runtime(c, &rt);
	if (rc)
		return rc;
	struct worker *w = &rt->workers[0];
	const struct policy *p = rt->policy;
	struct cal_task *blk = aligned_alloc(CACHE_LINE, N * sizeof *blk);
	double *poll = calloc(c->reps, sizeof *poll);
	if (!blk || !poll) {
		free(blk);
		free(poll);
		rt_destroy(rt);
		return -ENOMEM;
	}

	/* The test thread acts as worker 0's owner (the runtime never runs:
	 * no engine thread touches it). */
	for (uint32_t rep = 0; rep < c->reps; rep++) {
		struct worker_stats a = w->st;
		uint64_t tspawn = 0, tpoll = 0;
		for (int round = 0; round < TASK_ROUNDS; round++) {
			policy_tick_begin(p, w);
			uint64_t t0 = now(c);
			for (int i = 0; i < N; i++) {
				task_init(&blk[i].t, &cal_vt);
				rt_spawn(w, &blk[i].t);
			}
			uint64_t t1 = now(c);
			for (int i = 0; i < N; i++) {
				struct task *t = p->find_work(w);
				CHECK(t != NULL);
				worker_run_task(w, t);
			}
			uint64_t t2 = now(c);
			policy_tick_end(p, w, N, t2 - t1);
			tspawn += t1 - t0;
			tpoll += t2 - t1;
		}
		const struct worker_stats *b = &w->st;
		CHECK(b->polls - a.polls == (uint64_t)TASK_ROUNDS * N);
		CHECK(b->spawns - a.spawns == (uint64_t)TASK_ROUNDS * N);
		/* What the simulator charges apart: pushes into the ring at
		 * spawn; LIFO takes and ring pops at poll. */
		double pushes = (double)(b->local_pushes - a.local_pushes);
		double takes = (double)(b->lifo_polls - a.lifo_polls + b->runnext_polls -
					a.runnext_polls);
		double pops = (double)(b->local_pops - a.local_pops);
		c->s[rep] = per_op(c, tspawn, TASK_ROUNDS * N, TASK_ROUNDS) -
			    pushes * ns->local_push / (TASK_ROUNDS * N);
		poll[rep] = per_op(c, tpoll, TASK_ROUNDS * N, TASK_ROUNDS) -
			    (takes * ns->lifo + pops * ns->local_pop) / (TASK_ROUNDS * N);
	}
	ns->spawn = median(c->s, c->reps);
	ns->poll = median(poll, c->reps);
	say(c, "volt, 1 worker: spawn %.1f ns, poll %.1f ns (less pushes, pops and LIFO takes)",
	    ns->spawn, ns->poll);

	/* The idle tick: every queue is empty now. */
	for (uint32_t rep = 0; rep < c->reps; rep++) {
		uint64_t t0 = now(c);
		for (int i = 0; i < IDLE_TICKS; i++) {
			if (!p->own_maintenance) {
				rt_poll_timers(w);
				rt_poll_io(w);
			}
			policy_tick_begin(p, w);
			uint64_t a = rt_now(rt, w);
			CHECK(p->find_work(w) == NULL);
			uint64_t b = rt_now(rt, w);
			policy_tick_end(p, w, 0, b - a);
		}
		c->s[rep] = per_op(c, now(c) - t0, IDLE_TICKS, 1);
	}
	ns->idle_step = median(c->s, c->reps);
	say(c, "volt, 1 worker: a tick that finds nothing %.1f ns", ns->idle_step);
	free(blk);
	free(poll);
	rt_destroy(rt);
	return 0;
}

/* ---- an idle round's yield ---- */

/*
 * cost.yield: the calling thread's CPU clock over YIELDS sched_yield calls
 * in a row, per call: the system call each idle round of rayon makes
 * (te_yield, as Rayon's thread::yield_now), beyond the idle step measured
 * above. The CPU clock, not the wall clock: where another thread wants
 * this CPU the yield hands it over, and the time away is not the yielder's
 * CPU (on an otherwise idle CPU the two agree). Two clock reads per
 * YIELDS calls, left in (a few ns a call).
 */
static void bench_yield(struct cal *c, struct calibrate_ns *ns)
{
	enum { YIELDS = 256 };
	for (uint32_t r = 0; r < c->reps; r++) {
		uint64_t t0 = thread_cpu();
		for (int i = 0; i < YIELDS; i++)
			sched_yield();
		c->s[r] = (double)(thread_cpu() - t0) / YIELDS;
	}
	ns->yield = median(c->s, c->reps);
	say(c, "an idle round's yield (sched_yield): %.0f ns of the caller's CPU", ns->yield);
}

static void describe_machine(struct calibration *cal)
{
	cal->when = (int64_t)time(NULL);
	costcache_machine(cal->host, sizeof cal->host, cal->cpu, sizeof cal->cpu);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cal->cpus = n > 0 ? (uint32_t)n : 1;
}

/* One pass: every figure once (each the median of c->reps repetitions). */
static int one_pass(struct cal *c, struct calibrate_ns *ns, int cpu_a, int cpu_b)
{
	measure_overheads(c);
	int rc = bench_ring(c, ns);
	if (rc == 0) {
		bench_lifo(c, ns);
		rc = bench_inject(c, ns);
	}
	if (rc == 0)
		rc = bench_tasks(c, ns);
	if (rc == 0)
		bench_yield(c, ns);
	if (rc == 0)
		rc = bench_steal(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_park(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_notify_deep(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_cold(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_lock(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_handoff(c, ns, cpu_a, cpu_b);
	return rc;
}

int calibrate_costs(struct calibration *cal, uint32_t passes, uint32_t reps, FILE *log)
{
	memset(cal, 0, sizeof *cal);
	sim_costs_default(&cal->costs);
	cal->passes = passes ? passes : 1;
	cal->reps = reps ? reps : 1;
	describe_machine(cal);

	struct cal c = { .reps = cal->reps, .log = log };
	struct calibrate_ns *pass = calloc(cal->passes, sizeof *pass);
	double *v = calloc(cal->passes, sizeof *v);
	c.e = engine_threads_create(1);
	c.s = calloc((size_t)cal->reps * EVENTS_PER_REP, sizeof *c.s);
	if (!pass || !v || !c.e || !c.s) {
		if (c.e)
			c.e->ops->destroy(c.e);
		free(c.s);
		free(pass);
		free(v);
		return -ENOMEM;
	}
	/* Two-thread figures on CPUs 0 and 1 (where the c2c probe runs);
	 * with one CPU the threads share it and the figures say little. */
	int cpu_a = cal->cpus >= 2 ? 0 : -1, cpu_b = cal->cpus >= 2 ? 1 : -1;
	c.pinned = cpu_a >= 0;
	if (cpu_a >= 0 && c2c_probe(cpu_a, cpu_b, 10000, &cal->c2c_ns) != 0)
		cal->c2c_ns = 0;
	say(&c, "%s, %u CPUs, %u passes of %u repetitions; c2c round trip %.0f ns", cal->cpu,
	    cal->cpus, cal->passes, cal->reps, cal->c2c_ns);

	/* Passes spread over a few seconds: a machine whose speed drifts
	 * (a virtual one, say) is sampled in more than one of its states. */
	int rc = 0;
	for (uint32_t i = 0; i < cal->passes && rc == 0; i++) {
		if (i) {
			struct timespec pause = { 0, PASS_GAP_NS };
			nanosleep(&pause, NULL);
		}
		say(&c, "pass %u/%u", i + 1, cal->passes);
		rc = one_pass(&c, &pass[i], cpu_a, cpu_b);
	}
	cal->pinned = c.pinned;
	if (rc == 0 && !cal->pinned)
		say(&c, "two-thread figures ran unpinned: they are no core-to-core figures");
	/* The regime can change while we measure (calibrate.h). */
	if (rc == 0 && cpu_a >= 0 && c2c_probe(cpu_a, cpu_b, 10000, &cal->c2c_end_ns) != 0)
		cal->c2c_end_ns = 0;
	if (rc == 0 && cal->c2c_ns > 0 && cal->c2c_end_ns > 0) {
		double hi = fmax(cal->c2c_ns, cal->c2c_end_ns), lo = fmin(cal->c2c_ns, cal->c2c_end_ns);
		say(&c, "c2c round trip %.0f ns at the end%s", cal->c2c_end_ns,
		    hi > 1.5 * lo ? ": the regime changed meanwhile, the two-thread figures may "
				    "mix both" : "");
	}
	/* The median over passes, and their range. A figure below zero is
	 * noise around a cost too small to see; a pass without a figure
	 * (NAN: lock_wait's when the waiter would not spin) does not count,
	 * and no pass with one leaves the default. */
	if (rc == 0) {
		uint32_t m;
#define X(name, def, help)                                                                   \
		m = 0;                                                                       \
		for (uint32_t i = 0; i < cal->passes; i++)                                   \
			if (!isnan(pass[i].name))                                            \
				v[m++] = fmax(pass[i].name, 0);                              \
		cal->ns.name = m ? median(v, m) : 0;                                         \
		cal->lo.name = m ? v[0] : 0;                                                 \
		cal->hi.name = m ? v[m - 1] : 0;                                             \
		cal->costs.name = m ? whole_ns(cal->ns.name) : (def);
		SIM_COSTS(X)
		SIM_MODEL_COSTS(X)
#undef X
		/* A threshold of the model, not a measured cost: the default. */
		struct sim_costs d;
		sim_costs_default(&d);
		cal->costs.cold_after = d.cold_after;
		cal->ns.cold_after = cal->lo.cold_after = cal->hi.cold_after = (double)d.cold_after;
		/* Not a mechanism of this machine but a what-if of the model
		 * (late I/O delivery): calibrated runs deliver on time. */
		cal->ns.io_delay = cal->lo.io_delay = cal->hi.io_delay = 0;
		cal->costs.io_delay = 0;
		/* Fitted on a 2-worker run (calibrate_policies), not measured
		 * here: 0 until then. */
		cal->costs.contended = 0;
	}
	c.e->ops->destroy(c.e);
	free(c.s);
	free(pass);
	free(v);
	return rc;
}

