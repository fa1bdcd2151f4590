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
#include "calibrate.h"
#include "costcache.h"
#include "noise.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/c2c.h"
#include "core/engine.h"
#include "core/inject.h"
#include "core/ring.h"
#include "core/runtime.h"
#include "core/topo.h"
#include "policies/policy.h"
#include "workloads/workload.h"

/* Operations per repetition of the single-thread loops. */
#define RING_ROUNDS 64		/* x 256 pushes and pops */
#define INJECT_ROUNDS 2000	/* push + pop pairs per batch size */
#define TASK_ROUNDS 32		/* x 128 spawns and polls */
#define IDLE_TICKS 2000
#define LIFO_OPS 20000
/* Two-thread events per repetition. */
#define EVENTS_PER_REP 20
/* Between two passes. */
#define PASS_GAP_NS 300000000L
/* How long the waker lets the parker sleep before unparking it: long
 * enough that its CPU has gone idle, as a parked worker's has. */
#define PARK_SETTLE_NS 100000ull
/* Give up waiting for the parker to show as asleep after this long. */
#define PARK_ASLEEP_MAX_NS 5000000ull

enum { P_EMPTY = 0, P_PARKED = 1, P_NOTIFIED = 2 };

struct cal {
	struct engine *e;	/* a threads engine: its clock, and the runtime's */
	uint32_t reps;
	FILE *log;
	double clock_ns;	/* one clock read */
	double loop_ns;		/* one iteration of a bare loop */
	double *s;		/* [reps * EVENTS_PER_REP] samples */
	bool pinned;		/* every two-thread figure ran pinned */
};

static inline uint64_t now(const struct cal *c)
{
	return c->e->ops->now(c->e, NULL);
}

/* The clock for one short event: the fences keep the reads from being
 * reordered with the work between them (the TSC read is not ordered with
 * earlier loads on its own). */
static inline uint64_t now_fenced(const struct cal *c)
{
	__asm__ volatile("mfence; lfence" : : : "memory");
	uint64_t t = now(c);
	__asm__ volatile("lfence" : : : "memory");
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void say(const struct cal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct cal *c, const char *fmt, ...)
{
	if (!c->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("calibrate: ", c->log);
	vfprintf(c->log, fmt, ap);
	fputc('\n', c->log);
	va_end(ap);
	fflush(c->log);
}

/* Wait for a condition another thread sets: pause, and on a machine where
 * both threads may share a CPU, let the other one run now and then. */
static inline void relax(uint32_t *spins)
{
	__builtin_ia32_pause();
	if ((++*spins & 1023) == 0)
		sched_yield();
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/*
 * Pin this thread to `cpu` (if >= 0) and start a peer thread running
 * fn(arg): *old keeps this thread's affinity for end_peer, *pinned says
 * whether the pin held. On failure (-errno) the affinity is restored.
 */
static int start_peer(int cpu, cpu_set_t *old, bool *pinned, pthread_t *th,
		      void *(*fn)(void *), void *arg)
{
	pthread_getaffinity_np(pthread_self(), sizeof *old, old);
	*pinned = cpu < 0 || pin(cpu) == 0;
	int rc = -pthread_create(th, NULL, fn, arg);
	if (rc)
		pthread_setaffinity_np(pthread_self(), sizeof *old, old);
	return rc;
}

/* Join the peer and give this thread back its affinity. */
static void end_peer(pthread_t th, const cpu_set_t *old)
{
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof *old, old);
}

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, NULL, NULL, 0);
}

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

/* ---- steals between two CPUs ---- */

enum { STEAL_KINDS = 3 };
/* Tasks the victim holds: none (a failed attempt, logged only), 2 (a steal
 * moves 1) and 128 (a steal moves 64). */
static const uint32_t steal_victim_len[STEAL_KINDS] = { 0, 2, RING_STEAL_MAX };

struct steal_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* owner -> thief: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* thief -> owner: round number */
	struct ring *src, *dst;
	struct cal *c;
	uint32_t rounds;
	int cpu;
	bool pinned;
	double *ns;		/* [rounds]: the thief's time for each steal */
	uint32_t *moved;	/* [rounds] */
};

static void *thief_main(void *arg)
{
	struct steal_bench *sb = arg;
	sb->pinned = sb->cpu < 0 || pin(sb->cpu) == 0;
	for (uint32_t r = 1; r <= sb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the owner's release of `go`: its pushes
		 * happen before our steal (as the ring's own tail acquire
		 * would order them anyway). */
		while (atomic_load_explicit(&sb->go, memory_order_acquire) != r)
			relax(&spins);
		struct task *first;
		enum steal_outcome why;
		uint64_t t0 = now_fenced(sb->c);
		uint32_t k = ring_steal_into(sb->src, sb->dst, RING_STEAL_MAX, &first, &why);
		uint64_t t1 = now_fenced(sb->c);
		sb->ns[r - 1] = (double)(t1 - t0) - sb->c->clock_ns;
		sb->moved[r - 1] = k;
		while (ring_pop(sb->dst))
			;
		/* Release: our steal (and its release of the slots) happens
		 * before the owner's next pushes. */
		atomic_store_explicit(&sb->done, r, memory_order_release);
	}
	return NULL;
}

static int bench_steal(struct cal *c, struct calibrate_ns *ns, int cpu_owner, int cpu_thief)
{
	uint32_t per_kind = c->reps * EVENTS_PER_REP;
	struct steal_bench sb = { .c = c, .rounds = per_kind * STEAL_KINDS, .cpu = cpu_thief };
	sb.src = aligned_alloc(CACHE_LINE, sizeof *sb.src);
	sb.dst = aligned_alloc(CACHE_LINE, sizeof *sb.dst);
	sb.ns = calloc(sb.rounds, sizeof *sb.ns);
	sb.moved = calloc(sb.rounds, sizeof *sb.moved);
	struct task *tasks = calloc(RING_CAP, sizeof *tasks);
	int rc = 0;
	if (!sb.src || !sb.dst || !sb.ns || !sb.moved || !tasks) {
		rc = -ENOMEM;
		goto out;
	}
	ring_init(sb.src);
	ring_init(sb.dst);
	atomic_init(&sb.go, 0);
	atomic_init(&sb.done, 0);

	cpu_set_t old;
	bool pinned;
	pthread_t th;
	if ((rc = start_peer(cpu_owner, &old, &pinned, &th, thief_main, &sb)))
		goto out;
	for (uint32_t r = 1; r <= sb.rounds; r++) {
		uint32_t n = steal_victim_len[r % STEAL_KINDS];
		/* The owner has just worked on its ring: its lines are in
		 * this core's cache, as a running victim's are. */
		if (n == 0) {
			CHECK(ring_try_push(sb.src, &tasks[0]));
			CHECK(ring_pop(sb.src) == &tasks[0]);
		}
		for (uint32_t i = 0; i < n; i++)
			CHECK(ring_try_push(sb.src, &tasks[i]));
		/* Release pairs with the thief's acquire of `go`. */
		atomic_store_explicit(&sb.go, r, memory_order_release);
		uint32_t spins = 0;
		while (atomic_load_explicit(&sb.done, memory_order_acquire) != r)
			relax(&spins);
		while (ring_pop(sb.src))
			;
	}
	end_peer(th, &old);
	c->pinned = c->pinned && pinned && sb.pinned;

	double med[STEAL_KINDS];
	for (int k = 0; k < STEAL_KINDS; k++) {
		uint32_t m = 0, want = ring_steal_amount(steal_victim_len[k], RING_STEAL_MAX);
		for (uint32_t r = 1; r <= sb.rounds; r++) {
			if (r % STEAL_KINDS != (uint32_t)k)
				continue;
			CHECK_MSG(sb.moved[r - 1] == (steal_victim_len[k] ? want : 0),
				  "steal from %u tasks moved %u", steal_victim_len[k],
				  sb.moved[r - 1]);
			c->s[m++] = sb.ns[r - 1];
		}
		med[k] = median(c->s, m);
	}
	uint32_t big = ring_steal_amount(steal_victim_len[2], RING_STEAL_MAX);
	ns->steal_task = (med[2] - med[1]) / (big - 1);
	ns->steal_attempt = med[1] - ns->steal_task;
	say(c, "steal across CPUs: empty %.0f ns, 1 task %.0f ns, %u tasks %.0f ns -> attempt "
	    "%.1f ns, task %.2f ns", med[0], med[1], big, med[2], ns->steal_attempt,
	    ns->steal_task);
out:
	free(sb.src);
	free(sb.dst);
	free(sb.ns);
	free(sb.moved);
	free(tasks);
	return rc;
}

/* ---- park, notify and wake latency ---- */

/*
 * The threads engine's parker between a waker on one CPU and a parker on
 * another, in two phases of `rounds` parks each:
 *
 *  1. The parker's CPU is idle while it sleeps (as a parked worker's is).
 *     The waker waits until the kernel shows the parker asleep and a
 *     little longer, then unparks it: notify is the waker's time for the
 *     unpark, wake_latency the time from the unpark to the parker running.
 *  2. An observer thread on the parker's CPU yields in a loop and notes
 *     when it gets the CPU back after the parker went to sleep: park is
 *     the time from the start of the parker's park to that moment (its
 *     protocol, the futex wait's way into the kernel, the switch away).
 */
struct park_bench {
	CACHE_ALIGNED _Atomic uint32_t state;	/* the parker word */
	CACHE_ALIGNED _Atomic uint32_t woke;	/* parker -> waker: round number */
	_Atomic uint64_t park_at;		/* the parker's clock as it starts a park */
	_Atomic uint64_t woke_at;		/* ... and as it runs again */
	_Atomic int tid;
	CACHE_ALIGNED _Atomic uint64_t other_ran;	/* observer: got the CPU (0: not yet) */
	_Atomic bool stop;
	struct cal *c;
	uint32_t rounds;
	int cpu;
	bool pinned, observer_pinned;
};

static void *parker_main(void *arg)
{
	struct park_bench *pb = arg;
	pb->pinned = pb->cpu < 0 || pin(pb->cpu) == 0;
	atomic_store_explicit(&pb->tid, (int)syscall(SYS_gettid), memory_order_release);
	for (uint32_t r = 1; r <= 2 * pb->rounds; r++) {
		atomic_store_explicit(&pb->other_ran, 0, memory_order_relaxed);
		atomic_store_explicit(&pb->park_at, now_fenced(pb->c), memory_order_relaxed);
		/* The threads engine's park: consume a permit if there is one
		 * (there never is here: the waker unparks only once it has
		 * seen PARKED), else EMPTY -> PARKED and wait while PARKED.
		 * The acquires pair with the unparker's release exchange; the
		 * release on the second CAS publishes park_at and the reset
		 * of other_ran to whoever sees PARKED. */
		uint32_t expect = P_NOTIFIED;
		CHECK(!atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_EMPTY,
							       memory_order_acquire,
							       memory_order_relaxed));
		expect = P_EMPTY;
		CHECK(atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_PARKED,
							      memory_order_acq_rel,
							      memory_order_acquire));
		while (atomic_load_explicit(&pb->state, memory_order_acquire) == P_PARKED)
			futex(&pb->state, FUTEX_WAIT_PRIVATE, P_PARKED);
		uint64_t ran = now_fenced(pb->c);
		atomic_store_explicit(&pb->state, P_EMPTY, memory_order_relaxed);
		atomic_store_explicit(&pb->woke_at, ran, memory_order_relaxed);
		/* Release: woke_at and the EMPTY state before the waker's next
		 * round. */
		atomic_store_explicit(&pb->woke, r, memory_order_release);
	}
	return NULL;
}

static void *observer_main(void *arg)
{
	struct park_bench *pb = arg;
	pb->observer_pinned = pb->cpu < 0 || pin(pb->cpu) == 0;
	while (!atomic_load_explicit(&pb->stop, memory_order_relaxed)) {
		uint64_t t = now_fenced(pb->c);
		/* On one CPU we run only when the parker does not: seeing it
		 * PARKED means it has gone to sleep (acquire pairs with its
		 * CAS, so the reset of other_ran is visible). */
		if (atomic_load_explicit(&pb->state, memory_order_acquire) == P_PARKED &&
		    atomic_load_explicit(&pb->other_ran, memory_order_relaxed) == 0)
			atomic_store_explicit(&pb->other_ran, t, memory_order_release);
		sched_yield();
	}
	return NULL;
}

/* Is thread `tid` of this process asleep in the kernel ('S' in its stat)? */
static bool asleep(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');	/* the name may hold anything */
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

/* The threads engine's unpark: release pairs with the parker's acquire;
 * the futex wake only if it sleeps. */
static void unpark(struct park_bench *pb)
{
	uint32_t prev = atomic_exchange_explicit(&pb->state, P_NOTIFIED, memory_order_release);
	if (prev == P_PARKED)
		futex(&pb->state, FUTEX_WAKE_PRIVATE, 1);
}

static void wait_woke(struct park_bench *pb, uint32_t r)
{
	uint32_t spins = 0;
	while (atomic_load_explicit(&pb->woke, memory_order_acquire) != r)
		relax(&spins);
}

static void wait_parked(struct park_bench *pb)
{
	uint32_t spins = 0;
	while (atomic_load_explicit(&pb->state, memory_order_acquire) != P_PARKED)
		relax(&spins);
}

static int bench_park(struct cal *c, struct calibrate_ns *ns, int cpu_waker, int cpu_parker)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct park_bench *pb = aligned_alloc(CACHE_LINE, sizeof *pb);
	double *notify = calloc(n, sizeof *notify), *lat = calloc(n, sizeof *lat);
	double *park = calloc(n, sizeof *park), *busy = calloc(n, sizeof *busy);
	int rc = 0;
	if (!pb || !notify || !lat || !park || !busy) {
		rc = -ENOMEM;
		goto out;
	}
	memset(pb, 0, sizeof *pb);
	atomic_init(&pb->state, P_EMPTY);
	atomic_init(&pb->woke, 0);
	atomic_init(&pb->tid, 0);
	atomic_init(&pb->other_ran, 0);
	atomic_init(&pb->stop, false);
	pb->c = c;
	pb->rounds = n;
	pb->cpu = cpu_parker;

	cpu_set_t old;
	bool pinned;
	pthread_t parker, observer;
	if ((rc = start_peer(cpu_waker, &old, &pinned, &parker, parker_main, pb)))
		goto out;
	uint32_t spins = 0, not_asleep = 0, lost = 0, m = 0;
	while (atomic_load_explicit(&pb->tid, memory_order_acquire) == 0)
		relax(&spins);
	int tid = atomic_load_explicit(&pb->tid, memory_order_relaxed);

	/* Phase 1: the parker's CPU idles while it sleeps. */
	for (uint32_t r = 1; r <= n; r++) {
		wait_parked(pb);
		uint64_t t = now(c), since = 0;
		for (;;) {
			uint64_t u = now(c);
			if (!since && asleep(tid))
				since = u;
			if (since && u - since >= PARK_SETTLE_NS)
				break;
			if (!since && u - t >= PARK_ASLEEP_MAX_NS) {
				not_asleep++;
				break;
			}
			sched_yield();
		}
		uint64_t t0 = now_fenced(c);
		unpark(pb);
		uint64_t t1 = now_fenced(c);
		wait_woke(pb, r);
		uint64_t ran = atomic_load_explicit(&pb->woke_at, memory_order_relaxed);
		notify[r - 1] = (double)(t1 - t0) - c->clock_ns;
		lat[r - 1] = ran > t0 ? (double)(ran - t0) : 0;
	}

	/* Phase 2: an observer shares the parker's CPU. */
	rc = -pthread_create(&observer, NULL, observer_main, pb);
	if (rc) {
		atomic_store_explicit(&pb->stop, true, memory_order_relaxed);
		for (uint32_t r = n + 1; r <= 2 * n; r++) {
			wait_parked(pb);
			unpark(pb);
			wait_woke(pb, r);
		}
	}
	for (uint32_t r = n + 1; r <= 2 * n && rc == 0; r++) {
		wait_parked(pb);
		uint64_t start = atomic_load_explicit(&pb->park_at, memory_order_relaxed);
		uint64_t t = now(c), other;
		spins = 0;
		while ((other = atomic_load_explicit(&pb->other_ran, memory_order_acquire)) == 0 &&
		       now(c) - t < PARK_ASLEEP_MAX_NS)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		unpark(pb);
		wait_woke(pb, r);
		uint64_t ran = atomic_load_explicit(&pb->woke_at, memory_order_relaxed);
		busy[r - n - 1] = ran > t0 ? (double)(ran - t0) : 0;
		if (other > start)
			park[m++] = (double)(other - start) - c->clock_ns;
		else
			lost++;
	}
	atomic_store_explicit(&pb->stop, true, memory_order_relaxed);
	if (rc == 0)
		pthread_join(observer, NULL);
	end_peer(parker, &old);
	if (rc)
		goto out;
	c->pinned = c->pinned && pinned && pb->pinned && pb->observer_pinned;
	ns->notify = median(notify, n);
	ns->wake_latency = median(lat, n);
	ns->park = m ? median(park, m) : 0;
	say(c, "parker across CPUs: notify %.0f ns, wake latency %.0f ns (idle CPU; %.0f ns to a "
	    "busy one), park %.0f ns%s%s", ns->notify, ns->wake_latency,
	    median(busy, n), ns->park,
	    not_asleep ? "; the parker did not always show as asleep" : "",
	    lost ? "; some parks went unobserved" : "");
out:
	free(pb);
	free(notify);
	free(lat);
	free(park);
	free(busy);
	return rc;
}

/* ---- task data touched on another core: cold_start, line_transfer ---- */

/* Task-sized blocks per round: the lines of a few hundred queued tasks. */
#define COLD_BLOCKS 256

struct cold_block {
	CACHE_ALIGNED _Atomic uint64_t word;
	uint64_t data[7];
};

struct cold_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* measurer -> writer: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* writer -> measurer: round number */
	struct cold_block *b;
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The chain the touches follow: block (k * 97) mod COLD_BLOCKS, then the
 * next k's (97 is prime to COLD_BLOCKS: every block, in a scattered order
 * that no prefetcher streams). */
static uint32_t cold_next(uint32_t i)
{
	for (uint32_t k = 0; k < COLD_BLOCKS; k++)
		if ((k * 97u) % COLD_BLOCKS == i)
			return ((k + 1) * 97u) % COLD_BLOCKS;
	return 0;
}

/* The writer: every round, write each block whole (as a worker that
 * spawns or polls a task writes its lines), data[0] the next block of the
 * chain. */
static void *cold_writer_main(void *arg)
{
	struct cold_bench *cb = arg;
	cb->pinned = cb->cpu < 0 || pin(cb->cpu) == 0;
	for (uint32_t r = 1; r <= cb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the measurer's release: its touches of
		 * the blocks come before these writes. */
		while (atomic_load_explicit(&cb->go, memory_order_acquire) != r)
			relax(&spins);
		for (uint32_t i = 0; i < COLD_BLOCKS; i++) {
			atomic_store_explicit(&cb->b[i].word, r, memory_order_relaxed);
			cb->b[i].data[0] = cold_next(i);
			for (int k = 1; k < 7; k++)
				cb->b[i].data[k] = r + (uint64_t)k;
		}
		/* Release: the writes above before the measurer's touches. */
		atomic_store_explicit(&cb->done, r, memory_order_release);
	}
	return NULL;
}

/* Touch every block along the chain, each address depending on what the
 * last touch read (a worker finds its next task through the last one it
 * touched), so the misses do not overlap: a task poll's read and write of
 * its block, or a join's RMW. */
static uint64_t cold_touch(struct cold_block *b, bool rmw)
{
	uint64_t sum = 0, i = 0;
	for (uint32_t k = 0; k < COLD_BLOCKS; k++) {
		struct cold_block *x = &b[i];
		uint64_t v = rmw ? atomic_fetch_add_explicit(&x->word, 1, memory_order_relaxed)
				 : atomic_load_explicit(&x->word, memory_order_relaxed);
		if (!rmw)
			x->data[1] = v;
		sum += v;
		i = (x->data[0] + (v >> 63)) % COLD_BLOCKS;	/* v >> 63 is 0: a dependency */
	}
	return sum;
}

static int bench_cold(struct cal *c, struct calibrate_ns *ns, int cpu_writer, int cpu_me)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct cold_bench *cb = aligned_alloc(CACHE_LINE, sizeof *cb);
	struct cold_block *b = aligned_alloc(CACHE_LINE, COLD_BLOCKS * sizeof *b);
	double *cold = calloc(n, sizeof *cold), *xfer = calloc(n, sizeof *xfer);
	int rc = 0;
	if (!cb || !b || !cold || !xfer) {
		rc = -ENOMEM;
		goto out;
	}
	memset(cb, 0, sizeof *cb);
	memset(b, 0, COLD_BLOCKS * sizeof *b);
	atomic_init(&cb->go, 0);
	atomic_init(&cb->done, 0);
	cb->b = b;
	cb->rounds = 2 * n;
	cb->cpu = cpu_writer;

	cpu_set_t old;
	bool pinned;
	pthread_t writer;
	if ((rc = start_peer(cpu_me, &old, &pinned, &writer, cold_writer_main, cb)))
		goto out;
	volatile uint64_t sink = 0;
	for (uint32_t r = 1; r <= 2 * n; r++) {
		bool rmw = r > n;
		uint32_t spins = 0;
		/* Release: our touches of the last round before its writes. */
		atomic_store_explicit(&cb->go, r, memory_order_release);
		while (atomic_load_explicit(&cb->done, memory_order_acquire) != r)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		sink += cold_touch(b, rmw);	/* lines last written by the writer */
		uint64_t t1 = now_fenced(c);
		sink += cold_touch(b, rmw);	/* the same lines, now here */
		uint64_t t2 = now_fenced(c);
		double d = ((double)(t1 - t0) - (double)(t2 - t1)) / COLD_BLOCKS;
		(rmw ? xfer : cold)[(r - 1) % n] = d;
	}
	(void)sink;
	end_peer(writer, &old);
	c->pinned = c->pinned && pinned && cb->pinned;
	ns->cold_start = median(cold, n);
	ns->line_transfer = median(xfer, n);
	ns->cold_after = 0;
	say(c, "task blocks written on another CPU: cold start %.1f ns, line transfer (an RMW) "
	    "%.1f ns per block", ns->cold_start, ns->line_transfer);
out:
	free(cb);
	free(b);
	free(cold);
	free(xfer);
	return rc;
}

/* ---- the global queue's lines taken after another core: lock_transfer ---- */

/* Queues per round: as many lock lines as the cold start's blocks. */
#define LOCK_QUEUES COLD_BLOCKS

struct lock_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* measurer -> pusher: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* pusher -> measurer: round number */
	struct inject *q;
	struct task *t;
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The other worker: every round, push one task into each queue (its lock,
 * its head and length, the slot: the lines a worker's push writes). */
static void *lock_pusher_main(void *arg)
{
	struct lock_bench *lb = arg;
	lb->pinned = lb->cpu < 0 || pin(lb->cpu) == 0;
	for (uint32_t r = 1; r <= lb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the measurer's release: its pops of the
		 * last round come before these pushes (the queues are empty). */
		while (atomic_load_explicit(&lb->go, memory_order_acquire) != r)
			relax(&spins);
		for (uint32_t i = 0; i < LOCK_QUEUES; i++)
			inject_push(&lb->q[i], &lb->t[i]);
		/* Release: the pushes before the measurer's pops. */
		atomic_store_explicit(&lb->done, r, memory_order_release);
	}
	return NULL;
}

/* Pop the one task of every queue, in the scattered order of the cold
 * start's chain (no prefetcher streams it; each pop's locked CAS and
 * exchange keep the next pop's misses from overlapping its own). */
static uintptr_t lock_pop_all(struct inject *q)
{
	uintptr_t sum = 0;
	uint32_t i = 0;
	for (uint32_t k = 0; k < LOCK_QUEUES; k++) {
		struct task *t = NULL;
		CHECK(inject_pop_batch(&q[i], &t, 1) == 1);
		sum += (uintptr_t)t;
		i = ((k + 1) * 97u) % LOCK_QUEUES;
	}
	return sum;
}

/*
 * The measured part of lock_transfer: a pop from a global queue whose
 * lock, head, length and slot another CPU wrote last (its push), less the
 * same pop on lines this CPU wrote last (its own push). What the queue's
 * own lines add to a taking of its lock after another worker, uncontended;
 * calibrate_policies fits the figure the sim uses (docs/sim.md).
 */
static int bench_lock(struct cal *c, struct calibrate_ns *ns, int cpu_pusher, int cpu_me)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct lock_bench *lb = aligned_alloc(CACHE_LINE, sizeof *lb);
	struct inject *q = aligned_alloc(CACHE_LINE, LOCK_QUEUES * sizeof *q);
	struct task *t = calloc(LOCK_QUEUES, sizeof *t);
	double *xfer = calloc(n, sizeof *xfer);
	int rc = 0, inited = 0;
	if (!lb || !q || !t || !xfer) {
		rc = -ENOMEM;
		goto out;
	}
	memset(lb, 0, sizeof *lb);
	for (; inited < LOCK_QUEUES; inited++)
		inject_init(&q[inited]);
	atomic_init(&lb->go, 0);
	atomic_init(&lb->done, 0);
	lb->q = q;
	lb->t = t;
	lb->rounds = n;
	lb->cpu = cpu_pusher;

	cpu_set_t old;
	bool pinned;
	pthread_t pusher;
	if ((rc = start_peer(cpu_me, &old, &pinned, &pusher, lock_pusher_main, lb)))
		goto out;
	volatile uintptr_t sink = 0;
	for (uint32_t r = 1; r <= n; r++) {
		uint32_t spins = 0;
		/* Release: our pops of the last round before its pushes. */
		atomic_store_explicit(&lb->go, r, memory_order_release);
		while (atomic_load_explicit(&lb->done, memory_order_acquire) != r)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		sink += lock_pop_all(q);	/* lines the pusher wrote last */
		uint64_t t1 = now_fenced(c);
		for (uint32_t i = 0; i < LOCK_QUEUES; i++)
			inject_push(&q[i], &t[i]);
		uint64_t t2 = now_fenced(c);
		sink += lock_pop_all(q);	/* the same, now written here */
		uint64_t t3 = now_fenced(c);
		xfer[r - 1] = ((double)(t1 - t0) - (double)(t3 - t2)) / LOCK_QUEUES;
	}
	(void)sink;
	end_peer(pusher, &old);
	c->pinned = c->pinned && pinned && lb->pinned;
	ns->lock_transfer = median(xfer, n);
	say(c, "global queue's lines written on another CPU: %.1f ns more per pop",
	    ns->lock_transfer);
out:
	for (int i = 0; i < inited; i++)
		inject_destroy(&q[i]);
	free(lb);
	free(q);
	free(t);
	free(xfer);
	return rc;
}

/* ---- where and when ---- */

/* ---- the global queue's lock handed to a spinning waiter: lock_wait ---- */

/* How long the holder keeps the lock once the waiter is on its way to it:
 * long enough for the waiter to be spinning on the word, well inside its
 * HLOCK_SPIN pauses (a microsecond or more here). */
#define HANDOFF_HOLD_NS 300

struct handoff_time {
	CACHE_ALIGNED uint64_t ns;
};

struct handoff_bench {
	CACHE_ALIGNED _Atomic uint32_t held;	/* holder -> waiter: round r, it holds the lock */
	CACHE_ALIGNED _Atomic uint32_t coming;	/* waiter -> holder: round r, it goes for the lock */
	CACHE_ALIGNED _Atomic uint32_t done;	/* waiter -> holder: round r measured */
	/* [rounds]: the holder's clock just before its release, a line per
	 * round, written once ahead of the rounds, so that the store before
	 * the release hits (a line the waiter had read would have to come
	 * back first, and the release waits for the store). */
	struct handoff_time *released;
	struct inject *q;
	struct cal *c;
	double *gap;				/* [rounds]: release to the waiter holding, ns */
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The waiter: each round, once the holder has the lock, go for it (the
 * CAS fails and hlock_lock_slow spins on the word), and note how long
 * after the holder's release it got it. */
static void *handoff_waiter_main(void *arg)
{
	struct handoff_bench *hb = arg;
	hb->pinned = hb->cpu < 0 || pin(hb->cpu) == 0;
	for (uint32_t r = 1; r <= hb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the holder's release: it holds the lock. */
		while (atomic_load_explicit(&hb->held, memory_order_acquire) != r)
			relax(&spins);
		/* Relaxed: a signal that publishes nothing; the holder only
		 * starts its hold's last stretch on it. */
		atomic_store_explicit(&hb->coming, r, memory_order_relaxed);
		inject_lock(hb->q);
		uint64_t t = now_fenced(hb->c);
		/* The round's `released` was written before the holder's
		 * unlock, whose release our lock's acquire pairs with. A
		 * lock taken by the contended path (the word swapped to 2,
		 * and perhaps a sleep in the kernel: the spin ran out before
		 * the release) was a futex wake, not a handoff: NAN. Nobody
		 * else goes for the lock, so the word says which path. */
		hb->gap[r - 1] = hlock_marked(&hb->q->lock)
					 ? NAN
					 : (double)(int64_t)(t - hb->released[r - 1].ns) -
						   hb->c->clock_ns;
		inject_unlock(hb->q);
		/* Release: the gap before the holder reads it. */
		atomic_store_explicit(&hb->done, r, memory_order_release);
	}
	return NULL;
}

/*
 * lock_wait: the time from a holder's release of the global queue's lock
 * to a waiter on the other CPU, spinning on its word, holding it; nobody
 * holds the lock meanwhile. The release's exchange takes the word's line
 * from the waiter's cache, the waiter's next read brings it back, and its
 * CAS takes it exclusive. A round in which the waiter's spin ran out and
 * it took the contended path (it finds the word at 2 once it holds it)
 * is a futex wake, not a handoff, and is left out; a pass in which that
 * was most rounds (a CPU whose 100 pauses are shorter than the hold) gives
 * no figure (NAN), and a calibration with no figure keeps the default.
 * The interval holds the holder's exchange and the waiter's CAS as well,
 * which an uncontended hold (global_lock) has too, on lines already here.
 */
static int bench_handoff(struct cal *c, struct calibrate_ns *ns, int cpu_holder, int cpu_waiter)
{
	uint32_t n = c->reps * EVENTS_PER_REP, kept = 0, slept = 0;
	struct handoff_bench *hb = aligned_alloc(CACHE_LINE, sizeof *hb);
	struct inject *q = aligned_alloc(CACHE_LINE, sizeof *q);
	double *gap = calloc(n, sizeof *gap);
	struct handoff_time *rel = aligned_alloc(CACHE_LINE, n * sizeof *rel);
	int rc = 0;
	if (!hb || !q || !gap || !rel) {
		rc = -ENOMEM;
		goto out_free;
	}
	memset(hb, 0, sizeof *hb);
	inject_init(q);
	atomic_init(&hb->held, 0);
	atomic_init(&hb->coming, 0);
	atomic_init(&hb->done, 0);
	hb->q = q;
	hb->c = c;
	hb->gap = gap;
	hb->released = rel;
	hb->rounds = n;
	hb->cpu = cpu_waiter;

	cpu_set_t old;
	bool pinned;
	pthread_t waiter;
	if ((rc = start_peer(cpu_holder, &old, &pinned, &waiter, handoff_waiter_main, hb)))
		goto out;
	for (uint32_t r = 0; r < n; r++)
		rel[r].ns = 0;			/* the lines into this CPU's cache */
	for (uint32_t r = 1; r <= n; r++) {
		uint32_t spins = 0;
		inject_lock(q);
		/* Release: the lock is held before the waiter goes for it. */
		atomic_store_explicit(&hb->held, r, memory_order_release);
		/* Relaxed: orders nothing; the waiter's signal publishes
		 * nothing. */
		while (atomic_load_explicit(&hb->coming, memory_order_relaxed) != r)
			relax(&spins);
		uint64_t t0 = now(c);
		while (now(c) - t0 < HANDOFF_HOLD_NS)
			__builtin_ia32_pause();
		rel[r - 1].ns = now_fenced(c);
		inject_unlock(q);
		spins = 0;
		/* Acquire pairs with the waiter's release: its gap is written. */
		while (atomic_load_explicit(&hb->done, memory_order_acquire) != r)
			relax(&spins);
		if (isnan(gap[r - 1]))
			slept++;
		else
			gap[kept++] = fmax(gap[r - 1], 0);
	}
	end_peer(waiter, &old);
	c->pinned = c->pinned && pinned && hb->pinned;
	/* Fewer than half the rounds handed over: the waiter's spin is
	 * shorter than the hold here, and the figure is not this pass's. */
	ns->lock_wait = kept * 2 >= n ? median(gap, kept) : NAN;
	if (isnan(ns->lock_wait))
		say(c, "global queue's lock handed to a spinning waiter on another CPU: no figure, "
		    "the waiter slept in %u of %u rounds", slept, n);
	else
		say(c, "global queue's lock handed to a spinning waiter on another CPU: %.1f ns%s",
		    ns->lock_wait, slept ? " (rounds whose waiter slept left out)" : "");
out:
	inject_destroy(q);
out_free:
	free(hb);
	free(q);
	free(gap);
	free(rel);
	return rc;
}

static void describe_machine(struct calibration *cal)
{
	cal->when = (int64_t)time(NULL);
	costcache_machine(cal->host, sizeof cal->host, cal->cpu, sizeof cal->cpu);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cal->cpus = n > 0 ? (uint32_t)n : 1;
}

static uint64_t whole_ns(double ns)
{
	return ns >= 1 ? (uint64_t)llround(ns) : 1;	/* NaN too */
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
		rc = bench_steal(c, ns, cpu_a, cpu_b);
	if (rc == 0)
		rc = bench_park(c, ns, cpu_a, cpu_b);
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

void calibrate_print(const struct calibration *cal, FILE *f)
{
	fprintf(f, "%-14s %10s %21s %7s %8s  %s\n", "cost", "measured", "range over passes",
		"file", "default", "meaning");
#define X(name, def, help)                                                                   \
	do {                                                                                 \
		char range[32];                                                              \
		snprintf(range, sizeof range, "%.1f..%.1f", cal->lo.name, cal->hi.name);     \
		fprintf(f, "%-14s %10.1f %21s %7llu %8llu  %s\n", #name, cal->ns.name,      \
			range, (unsigned long long)cal->costs.name, (unsigned long long)(def), \
			help);                                                               \
	} while (0);
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	fprintf(f, "(ns; measured: median over %u passes, each the median of %u repetitions; "
		   "file: what the cost file holds, at least 1)\n", cal->passes, cal->reps);
	for (uint32_t i = 0; i < cal->nwork; i++) {
		const struct calibrate_work *cw = &cal->work[i];
		fprintf(f, "%s%-20s %6.1f ns per %-5s (1-worker run %.1f, sim without work %.1f "
			   "ns per poll; sequential %.1f ns per task; %s)\n", i ? "" : "\n",
			cw->workload, cw->ns, cw->per_spawn ? "spawn" : "poll", cw->run_ns_per_poll,
			cw->mech_ns_per_poll, cw->seq_ns_per_task,
			cw->params ? cw->params : "default parameters");
	}
}

int calibrate_file_open(struct calibrate_file *cf, const char *path, char *err, size_t len)
{
	cf->path = path;
	cf->f = NULL;
	int n = snprintf(cf->tmp, sizeof cf->tmp, "%s.%ld.tmp", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof cf->tmp) {
		snprintf(err, len, "cost file path too long: %.200s", path);
		return -1;
	}
	cf->f = fopen(cf->tmp, "w");
	if (!cf->f) {
		snprintf(err, len, "cannot write %.900s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void calibrate_file_abort(struct calibrate_file *cf)
{
	if (!cf->f)
		return;
	fclose(cf->f);
	cf->f = NULL;
	unlink(cf->tmp);
}

/* Which runs a 2-worker fit took its target from, in words: "the median
 * of 3 runs in the round-trip regime 64.0..75.2 ns (of 5 made)". The
 * validation (scripts/reproduce.sh) reads the regime back from it. */
static const char *fit_runs_text(const struct calibrate_fit *fit, char *buf, size_t len)
{
	if (fit->kept)
		snprintf(buf, len, "the median of %u runs in the round-trip regime %.1f..%.1f ns "
			 "(of %u made)", fit->kept, fit->c2c_lo, fit->c2c_hi, fit->runs);
	else
		snprintf(buf, len, "the median of %u runs (round trip not probed)", fit->runs);
	return buf;
}

/* A figure fitted on a 2-worker run, with what it is and the runs it was
 * fitted on, as a comment and a `name = ns` line. */
static void print_fit(FILE *f, const struct calibration *cal, const struct calibrate_fit *fit,
		      const char *what, const char *name, uint64_t ns, const char *help)
{
	char how[160];
	fprintf(f, "# fitted, not measured: %s\n# that makes the 2-worker sim of %s on %s (%s) land "
		   "on its 2-worker run,\n# %s: run %.2f ms at the work fit's speed (the share of "
		   "each that the sim without it accounts for scaled by volt's 1-worker run just "
		   "before it, median factor %.2f), sim %.2f ms (%.2f ms without it)\n%-13s = "
		   "%-6llu # %s\n", what, fit->policy, cal->fit.workload,
		cal->fit.params ? cal->fit.params : "defaults", fit_runs_text(fit, how, sizeof how),
		fit->run_ns / 1e6, fit->scale, fit->sim_ns / 1e6, fit->sim0_ns / 1e6, name,
		(unsigned long long)ns, help);
}

void calibrate_print_costs(FILE *f, const char *path, const struct calibration *cal)
{
	char when[32];
	time_t t = (time_t)cal->when;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(when, sizeof when, "unknown");

	fprintf(f, "# Simulation costs in ns (name = ns), measured by harness --calibrate.\n"
		   "# Load with: harness --engine=sim --costs %s\n"
		   "# measured %s on host %s, cpu %s, %u online CPUs\n",
		path, when, cal->host, cal->cpu, cal->cpus);
	if (cal->c2c_ns > 0)
		fprintf(f, "# core-to-core round trip (CPU 0 <-> 1, median): %.1f ns before, "
			   "%.1f ns after\n", cal->c2c_ns, cal->c2c_end_ns);
	else
		fprintf(f, "# core-to-core round trip: not measured\n");
	if (cal->state_kept)
		fprintf(f, "# the host's common state before the runs: %u of %u probes %.0f ms apart\n",
			cal->state_kept, CALIBRATE_STATE_SAMPLES, CALIBRATE_STATE_GAP_NS / 1e6);
	if (cal->regime_hi > 0)
		fprintf(f, "# threads runs taken in the round-trip regime %.1f..%.1f ns (probed before "
			   "and after each)\n", cal->regime_lo, cal->regime_hi);
	if (cal->speed_hi[0] > 0 || cal->speed_hi[1] > 0)
		fprintf(f, "# threads runs taken at the compute speed %.0f..%.0f ns on 1 worker (its "
			   "CPU), %.0f..%.0f ns on 2 (the slower CPU; a recursive fib(17), timed before "
			   "and after each)\n", cal->speed_lo[0], cal->speed_hi[0], cal->speed_lo[1],
			cal->speed_hi[1]);
	fprintf(f, "# steals and wakes measured %s\n"
		   "# each figure is the median over %u passes, each the median of %u repetitions;\n"
		   "# after it: its meaning, the default, the measured figure and its range\n",
		cal->pinned ? "between CPUs 0 and 1" : "unpinned", cal->passes, cal->reps);
#define X(name, def, help)                                                                   \
	if ((!cal->lock_fitted || strcmp(#name, "lock_transfer") != 0) &&                    \
	    (!cal->contended_fit.fitted || strcmp(#name, "contended") != 0))                 \
		fprintf(f, "%-13s = %-6llu # %s (default %llu; measured %.2f, %.2f..%.2f)\n", \
			#name, (unsigned long long)cal->costs.name, help,                    \
			(unsigned long long)(def), cal->ns.name, cal->lo.name, cal->hi.name);
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	if (cal->nwork)
		fprintf(f, "# each workload's work per poll outside the scheduler: the median "
			   "1-worker volt run's\n# makespan per poll less the 1-worker sim's without "
			   "work, at the costs above\n# (with the parameters named); per spawn where "
			   "the work comes with each child\n");
	for (uint32_t i = 0; i < cal->nwork; i++) {
		const struct calibrate_work *cw = &cal->work[i];
		char name[64];
		snprintf(name, sizeof name, "work.%s", cw->workload);
		fprintf(f, "%-18s = %-6llu # %s; %srun %.1f, sim without work %.1f ns per poll; "
			   "sequential %.1f ns per task\n", name,
			(unsigned long long)whole_ns(cw->ns), cw->params ? cw->params : "defaults",
			cw->per_spawn ? "per spawn; " : "", cw->run_ns_per_poll, cw->mech_ns_per_poll,
			cw->seq_ns_per_task);
	}
	if (cal->npolicy)
		fprintf(f, "# fitted, not measured: each policy's own cost per poll beyond the "
			   "mechanisms above\n# and volt's share of the work, the median of its "
			   "1-worker %s (%s) runs per poll,\n# brought to the machine's speed at the "
			   "work's fit by volt's runs just before,\n# less the 1-worker sim's (volt: 0 "
			   "by construction; negative: less than volt's)\n", cal->fit.workload,
			   cal->fit.params ? cal->fit.params : "defaults");
	for (uint32_t i = 0; i < cal->npolicy; i++) {
		const struct calibrate_policy *cp = &cal->policy[i];
		char name[64];
		snprintf(name, sizeof name, "poll.%s", cp->policy);
		char beside[128] = "";
		if (cp->volt_ns_per_poll > 0)
			snprintf(beside, sizeof beside, " volt beside it %.1f (%.1f at the work's "
				 "fit), so %.1f;", cp->volt_ns_per_poll, cp->volt_ns_per_poll *
				 cp->target_ns_per_poll / cp->run_ns_per_poll,
				 cp->target_ns_per_poll);
		fprintf(f, "%-22s = %-6lld # run %.1f,%s sim without it %.1f ns per poll\n", name,
			(long long)llround(cp->ns), cp->run_ns_per_poll, beside,
			cp->sim_ns_per_poll);
	}
	if (cal->contended_fit.fitted)
		print_fit(f, cal, &cal->contended_fit, "what a migrated cold start or a remote join "
			  "costs beyond the figures above in a 2-worker run,", "contended",
			  cal->costs.contended,
			  "a migrated cold start or remote join beyond the uncontended figures "
			  "(default 0)");
	if (cal->lock_fitted) {
		char help[192];
		snprintf(help, sizeof help, "taking the global queue's lock last taken by another "
			 "worker (default 0; the queue's lines alone measured %.2f, %.2f..%.2f)",
			 cal->ns.lock_transfer, cal->lo.lock_transfer, cal->hi.lock_transfer);
		print_fit(f, cal, &cal->lock_fit, "the lock transfer, a taking of the global queue's "
			  "lock after another worker,", "lock_transfer",
			  cal->costs.lock_transfer, help);
	}
}

int calibrate_file_commit(struct calibrate_file *cf, const struct calibration *cal, char *err,
			  size_t len)
{
	FILE *f = cf->f;

	calibrate_print_costs(f, cf->path, cal);
	/* On disk before the rename: a reader finds no file or a whole one. */
	int rc = fflush(f) != 0 || ferror(f) ? EIO : 0;
	if (rc == 0 && fsync(fileno(f)) != 0)
		rc = errno;
	if (fclose(f) != 0 && rc == 0)
		rc = errno;
	cf->f = NULL;
	if (rc == 0 && rename(cf->tmp, cf->path) != 0)
		rc = errno;
	if (rc) {
		unlink(cf->tmp);
		snprintf(err, len, "cannot write %.900s: %s", cf->path, strerror(rc));
		return -1;
	}
	return 0;
}

int calibrate_write(const char *path, const struct calibration *cal, char *err, size_t len)
{
	struct calibrate_file cf;
	if (calibrate_file_open(&cf, path, err, len))
		return -1;
	return calibrate_file_commit(&cf, cal, err, len);
}

/* ---- the workloads' own work ---- */

static const struct calibrate_work_spec work_table[CALIBRATE_WORKLOADS] = {
	{ "fib", "n=30" },	{ "nqueens", "n=12" },	 { "uts", "preset=T3-small" },
	{ "sort", NULL },	{ "spawn-many", NULL },	 { "chained-spawn", NULL },
	{ "yield-many", NULL }, { "ping-pong", NULL },
};

static void work_start(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->start(rt->user, rt);
}

static void work_place(struct runtime *rt, void *arg)
{
	const struct workload *wl = arg;
	wl->place(rt->user, rt);
}

/* The parameters: the defaults, `params` (one name=value) and the
 * workload's resolve. */
static int work_params(const struct workload *wl, const char *params, double *pv)
{
	char err[256];
	bool given[64] = { false };
	knob_defaults(wl->params, wl->nparams, pv);
	if (params) {
		const char *eq = strchr(params, '=');
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(eq - params), params);
		int k = knob_find(wl->params, wl->nparams, name);
		CHECK(k >= 0);
		CHECK(knob_parse_named(&wl->params[k], knob_names(wl->param_names, &wl->params[k]),
				       eq + 1, &pv[k], err, sizeof err) == 0);
		given[k] = true;
	}
	return wl->resolve ? wl->resolve(pv, given, err, sizeof err) : 0;
}

/* The CPUs the harness's default placement (--pin, auto) gives `workers`
 * workers, so that a calibration run is placed as the runs it predicts
 * are: NULL when it pins none. */
static const int32_t *default_cpus(uint32_t workers, int32_t *cpus)
{
	enum pin_mode eff;
	char note[256], err[256];
	if (topo_place(topo_machine(), PIN_AUTO, NULL, 0, workers, cpus, &eff, note, sizeof note,
		       err, sizeof err) != 0 || eff == PIN_NONE)
		return NULL;
	return cpus;
}

/* One run of policy `p` on `workers` workers, on the threads engine (its
 * workers placed as the harness places them by default) or (costs given)
 * the sim with those costs: makespan and counters. */
static int policy_run(const struct policy *p, uint32_t workers, const struct workload *wl,
		      const double *pv, const struct sim_costs *costs, uint64_t *ns,
		      struct worker_stats *st)
{
	double kv[64];
	int32_t cpus[64];
	char err[256];
	CHECK(p && p->nknobs <= 64 && workers <= 64);
	knob_defaults(p->knobs, p->nknobs, kv);
	struct rt_config cfg = { .workers = workers, .seed = 1, .sample_period = 0,
				 .hist_digits = 2, .watchdog_ns = 0,
				 .cpus = costs ? NULL : default_cpus(workers, cpus) };
	struct engine *e = costs ? engine_sim_create(workers, costs, 0) :
				   engine_threads_create(workers);
	struct runtime *rt;
	if (!e)
		return -ENOMEM;
	int rc = rt_create(&rt, &cfg, p, kv, e, err, sizeof err);
	if (rc) {
		e->ops->destroy(e);
		return rc;
	}
	rt->user = wl->create(pv, workers, 1);
	if (!rt->user) {
		rt_destroy(rt);
		e->ops->destroy(e);
		return -ENOMEM;
	}
	if (wl->place) {
		rt->place = work_place;
		rt->place_arg = (void *)wl;
	}
	rc = e->ops->run(e, rt, work_start, (void *)wl);
	if (rc == 0 && wl->verify(rt->user, err, sizeof err) != 0)
		rc = -EPROTO;
	*ns = rt->end_ns - rt->start_ns;
	rt_total_stats(rt, st);
	wl->destroy(rt->user);
	rt_destroy(rt);
	e->ops->destroy(e);
	return rc;
}

/* One 1-worker run under volt (the work's reference). */
static int work_run(const struct workload *wl, const double *pv, const struct sim_costs *costs,
		    uint64_t *ns, struct worker_stats *st)
{
	return policy_run(policy_find("volt"), 1, wl, pv, costs, ns, st);
}

/* A 1-worker run shorter than this is repeated until the runs add up to it
 * (at most WORK_REPS_MAX runs): a short run is one preemption away from
 * nonsense on a shared machine. */
#define WORK_MIN_TOTAL_NS 100000000ull
#define WORK_REPS_MAX 50

int calibrate_workloads(struct calibration *cal, uint32_t reps, FILE *log)
{
	return calibrate_workloads_of(cal, reps, log, work_table, CALIBRATE_WORKLOADS);
}

int calibrate_sim_run(const struct calibrate_work_spec *spec, const struct sim_costs *costs,
		      uint64_t *ns, uint64_t *polls)
{
	const struct workload *wl = workload_find(spec->workload);
	double pv[64];
	struct worker_stats st;
	if (!wl || wl->nparams > 64 || work_params(wl, spec->params, pv) != 0)
		return -EINVAL;
	struct sim_costs c = *costs;
	c.work_per_spawn = wl->work_per_spawn;
	int rc = work_run(wl, pv, &c, ns, &st);
	*polls = st.polls;
	return rc;
}

static int regime_runs(const struct cal *c, struct calibration *cal, const struct policy *p,
		       uint32_t workers, const struct workload *wl, const double *pv, uint32_t reps,
		       uint32_t cap, const struct calibrate_work *ref, double share,
		       struct calibrate_fit *fit);

static bool in_band(const struct calibrate_probed_run *r, double lo, double hi);

/*
 * The host's common state, before any threads run is taken: the round trip
 * and the compute probe, CALIBRATE_STATE_SAMPLES times CALIBRATE_STATE_GAP_NS
 * apart, and the state most of them were in (calibrate_select_regime on the
 * samples as if each were a run): the regime every fit then keeps to. Left to
 * the first fit's own runs, the regime was whatever the host was in during
 * that fraction of a second, now and then one it left for minutes (a
 * calibration in the 415 ns regime at the fast compute speed, and not a cell
 * of the part after it in that state).
 */
static void host_state(const struct cal *c, struct calibration *cal)
{
	/* [0]: the compute probe of a 1-worker run (the first CPU), [1]: of a
	 * 2-worker run (the slower of both); the round trip the same in both. */
	struct calibrate_probed_run r[2][CALIBRATE_STATE_SAMPLES];
	struct calibrate_fit fit[2] = { { 0 }, { 0 } };
	int32_t cpus[2];
	const int32_t *place = default_cpus(2, cpus);
	for (uint32_t i = 0; i < CALIBRATE_STATE_SAMPLES; i++) {
		if (i) {
			struct timespec gap = { 0, (long)CALIBRATE_STATE_GAP_NS };
			nanosleep(&gap, NULL);
		}
		double rt = noise_c2c_ns(place, 2);
		for (uint32_t k = 0; k < 2; k++) {
			r[k][i].ns = 0;
			r[k][i].c2c_before = r[k][i].c2c_after = rt;
			r[k][i].speed_before = r[k][i].speed_after = noise_speed_ns(place, k + 1);
		}
	}
	/* The round trip and the 2-worker speed most probes shared; then, of
	 * the probes in that round trip, the 1-worker speed most shared. */
	if (calibrate_select_regime(r[1], CALIBRATE_STATE_SAMPLES, 0, 0, 0, 0, &fit[1]) != 0 ||
	    fit[1].kept == 0)
		return;		/* nothing probed: each fit's own runs decide */
	uint32_t m = 0;
	for (uint32_t i = 0; i < CALIBRATE_STATE_SAMPLES; i++)
		if (in_band(&r[0][i], fit[1].c2c_lo, fit[1].c2c_hi))
			r[0][m++] = r[0][i];
	if (calibrate_select_regime(r[0], m, 0, 0, 0, 0, &fit[0]) != 0)
		fit[0].kept = 0;
	cal->regime_lo = fit[1].c2c_lo;
	cal->regime_hi = fit[1].c2c_hi;
	for (uint32_t k = 0; k < 2; k++) {
		cal->speed_lo[k] = fit[k].kept ? fit[k].speed_lo : 0;
		cal->speed_hi[k] = fit[k].kept ? fit[k].speed_hi : 0;
	}
	cal->state_kept = fit[1].kept;
	say(c, "the host's common state: %u of %u probes %.0f ms apart, round trip %.0f..%.0f ns, "
	    "compute probe %.0f..%.0f ns on 2 CPUs (the slower), and of these %u at %.0f..%.0f "
	    "ns on the first", fit[1].kept, CALIBRATE_STATE_SAMPLES,
	    CALIBRATE_STATE_GAP_NS / 1e6, fit[1].c2c_lo, fit[1].c2c_hi, fit[1].speed_lo,
	    fit[1].speed_hi, fit[0].kept, cal->speed_lo[0], cal->speed_hi[0]);
}

int calibrate_workloads_of(struct calibration *cal, uint32_t reps, FILE *log,
			   const struct calibrate_work_spec *spec, uint32_t nspec)
{
	struct cal c = { .log = log };
	reps = reps ? reps : 1;
	uint32_t cap = reps > WORK_REPS_MAX ? reps : WORK_REPS_MAX;
	double *seq = calloc(reps, sizeof *seq);
	int rc = seq ? 0 : -ENOMEM;
	c.e = rc ? NULL : engine_threads_create(1);
	if (!rc && !c.e)
		rc = -ENOMEM;
	/* What the sim charges a 1-worker run besides the work: the
	 * mechanisms, the lock, the cache model (its aged cold starts). */
	struct sim_costs nowork = cal->costs;
	nowork.work = 0;
	nowork.nwork = 0;
	cal->nwork = 0;
	if (rc == 0 && cal->regime_hi == 0 && cal->cpus >= 2)
		host_state(&c, cal);
	for (uint32_t i = 0; i < nspec && i < CALIBRATE_WORKLOADS && rc == 0; i++) {
		struct calibrate_work *cw = &cal->work[cal->nwork];
		const struct workload *wl = workload_find(spec[i].workload);
		double pv[64];
		CHECK(wl && wl->nparams <= 64);
		memset(cw, 0, sizeof *cw);
		cw->workload = spec[i].workload;
		cw->params = spec[i].params;
		if (work_params(wl, cw->params, pv) != 0)
			continue;
		uint64_t sim_ns = 0;
		uint32_t n = 0;
		struct worker_stats sst;
		/* The sequential baseline, for comparison only: its median. */
		for (; rc == 0 && n < reps; n++) {
			void *inst = wl->create(pv, 1, 1);
			if (!inst) {
				rc = -ENOMEM;
				break;
			}
			uint64_t t0 = now(&c);
			wl->run_sequential(inst);
			uint64_t t1 = now(&c);
			uint64_t tasks = wl->tasks(inst);
			seq[n] = tasks ? (double)(t1 - t0) / (double)tasks : 0;
			wl->destroy(inst);
		}
		/* The median 1-worker run under volt in the calibration's
		 * round-trip regime, as the validation's figure is. */
		struct calibrate_fit rf;
		if (rc == 0)
			rc = regime_runs(&c, cal, policy_find("volt"), 1, wl, pv, reps, cap, NULL, 0,
					 &rf);
		if (rc == 0)
			rc = work_run(wl, pv, &nowork, &sim_ns, &sst);
		if (rc)
			break;
		double polls = sst.polls ? (double)sst.polls : 1;
		cw->polls = sst.polls;
		cw->per_spawn = wl->work_per_spawn;
		cw->seq_ns_per_task = median(seq, n);
		cw->run_ns_per_poll = rf.run_ns / polls;
		cw->mech_ns_per_poll = (double)sim_ns / polls;
		/* The same difference, spread over the spawns instead when the
		 * work comes with each child. */
		double units = cw->per_spawn ? (sst.spawns ? (double)sst.spawns : 1) : polls;
		cw->ns = fmax((rf.run_ns - (double)sim_ns) / units, 0);
		say(&c, "work.%s (%s): %.1f ns per %s (median of %u of %u 1-worker runs in the "
		    "regime %.0f..%.0f ns, compute probe %.0f..%.0f ns, %.1f ns per poll; the sim "
		    "without work %.1f; sequential %.1f ns per task)", cw->workload,
		    cw->params ? cw->params : "defaults", cw->ns, cw->per_spawn ? "spawn" : "poll",
		    rf.kept, rf.runs, rf.c2c_lo, rf.c2c_hi, rf.speed_lo, rf.speed_hi,
		    cw->run_ns_per_poll, cw->mech_ns_per_poll, cw->seq_ns_per_task);
		cal->nwork++;
	}
	if (c.e)
		c.e->ops->destroy(c.e);
	free(seq);
	return rc;
}

/* ---- fitted figures: each policy's own per poll, the lock transfer ---- */

/* Were both of a run's probes within the ratio of the band lo..hi? */
static bool in_band(const struct calibrate_probed_run *r, double lo, double hi)
{
	double a = fmin(r->c2c_before, r->c2c_after), b = fmax(r->c2c_before, r->c2c_after);
	return isfinite(a) && isfinite(b) && a > 0 && a * CALIBRATE_REGIME_RATIO >= lo &&
	       b <= CALIBRATE_REGIME_RATIO * hi;
}

/* Widen the range lo..hi (hi 0: empty) to hold the compute probes a and b
 * where they were made. */
static void speed_range(double *lo, double *hi, double a, double b)
{
	double p[2] = { a, b };
	for (int k = 0; k < 2; k++)
		if (isfinite(p[k]) && p[k] > 0) {
			*lo = *hi > 0 ? fmin(*lo, p[k]) : p[k];
			*hi = fmax(*hi, p[k]);
		}
}

/* Were both of a run's compute probes within CALIBRATE_SPEED_RATIO of the
 * band slo..shi? Yes for any run if shi is 0 (no band), and for a run whose
 * probes were not made. */
static bool in_speed(const struct calibrate_probed_run *r, double slo, double shi)
{
	double lo = 0, hi = 0;
	speed_range(&lo, &hi, r->speed_before, r->speed_after);
	if (shi <= 0 || hi <= 0)
		return true;
	return lo * CALIBRATE_SPEED_RATIO >= slo && hi <= CALIBRATE_SPEED_RATIO * shi;
}

/* The runs in the band lo..hi and the compute band slo..shi: the median of
 * their makespans into fit->run_ns, their number into kept, their probes'
 * range into c2c_lo..c2c_hi and speed_lo..speed_hi; returns the sum of
 * their makespans. `v` holds n. */
static double select_band(const struct calibrate_probed_run *r, uint32_t n, double lo, double hi,
			  double slo, double shi, double *v, struct calibrate_fit *fit)
{
	double sum = 0;
	fit->kept = 0;
	fit->run_ns = fit->c2c_lo = INFINITY;
	fit->c2c_hi = fit->speed_lo = fit->speed_hi = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!in_band(&r[i], lo, hi) || !in_speed(&r[i], slo, shi))
			continue;
		speed_range(&fit->speed_lo, &fit->speed_hi, r[i].speed_before, r[i].speed_after);
		v[fit->kept++] = r[i].ns;
		sum += r[i].ns;
		fit->c2c_lo = fmin(fit->c2c_lo, fmin(r[i].c2c_before, r[i].c2c_after));
		fit->c2c_hi = fmax(fit->c2c_hi, fmax(r[i].c2c_before, r[i].c2c_after));
	}
	if (fit->kept)
		fit->run_ns = median(v, fit->kept);
	return sum;
}

/* The most populous regime: of the bands centred on each run whose two
 * probes agree (within the ratio), and whose two compute probes agree
 * (within theirs), the one holding the most runs (a tie: the one with the
 * faster median). A run without compute probes centres a band only when
 * no run has them (its band would hold every speed); it may still fall in
 * another's. */
static double select_populous(const struct calibrate_probed_run *r, uint32_t n, double *v,
			      struct calibrate_fit *fit)
{
	double sum = 0;
	bool probed = false;
	for (uint32_t i = 0; i < n; i++) {
		double lo = 0, hi = 0;
		speed_range(&lo, &hi, r[i].speed_before, r[i].speed_after);
		probed |= hi > 0;
	}
	fit->kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		double a = fmin(r[i].c2c_before, r[i].c2c_after);
		double b = fmax(r[i].c2c_before, r[i].c2c_after);
		if (!(isfinite(a) && isfinite(b) && a > 0 && b <= CALIBRATE_REGIME_RATIO * a))
			continue;
		double sa = 0, sb = 0, smid = 0;
		speed_range(&sa, &sb, r[i].speed_before, r[i].speed_after);
		if (sb > 0) {
			if (sb > CALIBRATE_SPEED_RATIO * sa)
				continue;	/* its speed moved during it */
			smid = sqrt(sa * sb);
		} else if (probed) {
			continue;	/* a band at every speed: not where others were probed */
		}
		double mid = sqrt(a * b);
		struct calibrate_fit in;
		double s = select_band(r, n, mid, mid, smid, smid, v, &in);
		if (in.kept > fit->kept || (in.kept == fit->kept && in.run_ns < fit->run_ns)) {
			*fit = in;
			sum = s;
		}
	}
	return sum;
}

int calibrate_select_regime(const struct calibrate_probed_run *r, uint32_t n, double prefer_lo,
			    double prefer_hi, double prefer_slo, double prefer_shi,
			    struct calibrate_fit *fit)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	fit->kept = 0;
	if (prefer_hi > 0)
		select_band(r, n, prefer_lo, prefer_hi, prefer_slo, prefer_shi, v, fit);
	if (fit->kept == 0)
		select_populous(r, n, v, fit);
	if (fit->kept == 0) {	/* nothing probed: the median of all */
		fit->speed_lo = fit->speed_hi = 0;
		for (uint32_t i = 0; i < n; i++) {
			v[i] = r[i].ns;
			speed_range(&fit->speed_lo, &fit->speed_hi, r[i].speed_before,
				    r[i].speed_after);
		}
		fit->run_ns = n ? median(v, n) : 0;
		fit->c2c_lo = fit->c2c_hi = 0;
	}
	free(v);
	return 0;
}

double calibrate_at_fit_speed(double ns, double scale, double share)
{
	/* At the work fit's speed the share the compute speed governs took
	 * `part` (scale times its time now); the rest is lines moving
	 * between the cores, which the round-trip band holds. */
	double part = share > 0 ? fmin(share, ns * scale) : ns * scale;
	return ns + part * (1 - 1 / scale);
}

/*
 * The threads runs a figure is taken from, each with the round trip probed
 * before and after (between the CPUs two workers would run on: a slow
 * regime slows a 1-worker run too): until at least `reps` of them in one
 * regime add up to WORK_MIN_TOTAL_NS, or `cap` runs are made. The regime
 * is the calibration's when it has one, else the most populous; at the
 * cap, calibrate_select_regime's choice. The calibration's regime is the
 * first one its runs were taken in: the runs after keep to it where they
 * can.
 *
 * With `ref` (volt's 1-worker run of this workload at the work's fit),
 * each run is brought to the machine's speed then: volt's 1-worker run of
 * the workload is made just before it, between the same probes, and the
 * run is scaled by volt's then over volt's now: all of it, or with `share`
 * (ns, at that speed) only that much of it, the part the compute speed
 * governs (calibrate_at_fit_speed); the rest, lines moving between the
 * cores (a 2-worker run's lock handoffs and transfers), goes with the
 * round trip, which the regime holds. A pair a few hundred ms long sees
 * one state of the host, which drifts by a third over minutes within one
 * regime; the figure is the median of the scaled runs, and fit->scale the
 * median factor.
 */
static int regime_runs(const struct cal *c, struct calibration *cal, const struct policy *p,
		       uint32_t workers, const struct workload *wl, const double *pv, uint32_t reps,
		       uint32_t cap, const struct calibrate_work *ref, double share,
		       struct calibrate_fit *fit)
{
	const double prefer_lo = cal->regime_lo, prefer_hi = cal->regime_hi;
	const int k = workers >= 2;
	const double prefer_slo = cal->speed_lo[k], prefer_shi = cal->speed_hi[k];
	const struct policy *volt = policy_find("volt");
	struct calibrate_probed_run *r = calloc(cap, sizeof *r);
	double *v = calloc(cap, sizeof *v), *scale = calloc(cap, sizeof *scale);
	int32_t cpus[2];
	/* The probe between the CPUs the two workers run on. */
	const int32_t *place = default_cpus(2, cpus);
	int rc = 0;
	uint32_t n = 0;
	double all = 0;
	if (!r || !v || !scale) {
		free(r);
		free(v);
		free(scale);
		return -ENOMEM;
	}
	for (;;) {
		struct worker_stats st;
		uint64_t ns = 0, vns = 0;
		r[n].c2c_before = noise_c2c_ns(place, 2);
		r[n].speed_before = noise_speed_ns(place, workers);
		if (ref)
			rc = policy_run(volt, 1, wl, pv, NULL, &vns, &st);
		if (rc == 0)
			rc = policy_run(p, workers, wl, pv, NULL, &ns, &st);
		r[n].speed_after = noise_speed_ns(place, workers);
		r[n].c2c_after = noise_c2c_ns(place, 2);
		scale[n] = ref && vns ? ref->run_ns_per_poll * (double)ref->polls / (double)vns : 1;
		r[n].ns = calibrate_at_fit_speed((double)ns, scale[n], share);
		all += r[n].ns;
		n++;
		if (rc || n == cap)
			break;
		struct calibrate_fit in;
		double sum = prefer_hi > 0 ? select_band(r, n, prefer_lo, prefer_hi, prefer_slo,
							 prefer_shi, v, &in)
					   : select_populous(r, n, v, &in);
		if (!isfinite(r[n - 1].c2c_before)) {	/* no probe on this machine */
			in.kept = n;
			sum = all;
		}
		if (in.kept >= reps && sum >= WORK_MIN_TOTAL_NS)
			break;
	}
	if (rc == 0)
		rc = calibrate_select_regime(r, n, prefer_lo, prefer_hi, prefer_slo, prefer_shi, fit);
	fit->runs = n;
	fit->scale = n ? median(scale, n) : 1;
	if (rc == 0 && fit->kept < reps)
		say(c, "%s: only %u of %u %u-worker %s runs in one round-trip regime", p->name,
		    fit->kept, n, workers, wl->name);
	if (rc == 0 && cal->regime_hi == 0 && fit->kept) {
		cal->regime_lo = fit->c2c_lo;
		cal->regime_hi = fit->c2c_hi;
	}
	if (rc == 0 && cal->speed_hi[k] == 0 && fit->kept) {
		cal->speed_lo[k] = fit->speed_lo;
		cal->speed_hi[k] = fit->speed_hi;
	}
	free(r);
	free(v);
	free(scale);
	return rc;
}

/*
 * Fit the cost at `off` in cal->costs (a uint64_t of struct sim_costs) so
 * that the 2-worker sim of `p` on the workload lands on the median of its
 * 2-worker threads runs in the calibration's round-trip regime
 * (regime_runs): from 0 (if the sim is as slow as the run already, the cost
 * stays 0) and `first`, secant steps until within 2% (at most 6). The runs
 * are brought to the work fit's speed in the share the sim without the
 * cost accounts for: what the fitted cost is to explain, lines moving
 * between the cores, does not go with the compute speed (go's 2-worker
 * fib is two-thirds lock transfers), and scaling it as well moved the
 * figure by the drift of the host's speed.
 */
static int fit_2w(struct cal *c, struct calibration *cal, const struct policy *p,
		  const struct workload *wl, const double *pv, uint32_t reps, uint32_t cap,
		  size_t off, double first, const struct calibrate_work *ref,
		  struct calibrate_fit *fit)
{
	uint64_t sim;
	struct worker_stats st;
	memset(fit, 0, sizeof *fit);
	struct sim_costs costs = cal->costs;
	sim_costs_use_work(&costs, wl->name, wl->work_per_spawn);
	uint64_t *cost = (uint64_t *)((char *)&costs + off);
	*cost = 0;
	/* The sim without the figure: what the costs measured at the work
	 * fit's speed account for, the share of the runs brought to it. */
	int rc = policy_run(p, 2, wl, pv, &costs, &sim, &st);
	if (rc)
		return rc;
	double x0 = 0, x1 = first, s0 = (double)sim, s1 = s0, x = 0;
	if ((rc = regime_runs(c, cal, p, 2, wl, pv, reps, cap, ref, s0, fit)))
		return rc;
	double run = fit->run_ns;
	fit->sim0_ns = s0;
	if (s0 < run) {
		for (int k = 0; k < 6; k++) {
			*cost = whole_ns(x1);
			if ((rc = policy_run(p, 2, wl, pv, &costs, &sim, &st)))
				return rc;
			s1 = (double)sim;
			x = x1;
			if (fabs(s1 - run) < 0.02 * run || s1 == s0)
				break;
			double next = x1 + (run - s1) * (x1 - x0) / (s1 - s0);
			x0 = x1;
			s0 = s1;
			x1 = fmin(fmax(next, 1), (double)SIM_COST_MAX_NS);
		}
	}
	fit->fitted = true;
	fit->policy = p->name;
	fit->sim_ns = s1;
	*(uint64_t *)((char *)&cal->costs + off) = x < 1 ? 0 : whole_ns(x);
	return 0;
}

int calibrate_policies(struct calibration *cal, uint32_t reps, FILE *log)
{
	static const struct calibrate_work_spec fit = { CALIBRATE_FIT_WORKLOAD,
							CALIBRATE_FIT_PARAMS };
	return calibrate_policies_of(cal, reps, log, &fit, NULL, CALIBRATE_FIT_LOCK_POLICY);
}

int calibrate_policy_sim_run(const struct calibrate_work_spec *spec, const char *policy,
			     uint32_t workers, const struct sim_costs *costs, uint64_t *ns,
			     uint64_t *polls)
{
	const struct workload *wl = workload_find(spec->workload);
	const struct policy *p = policy_find(policy);
	double pv[64];
	struct worker_stats st;
	if (!wl || !p || wl->nparams > 64 || work_params(wl, spec->params, pv) != 0)
		return -EINVAL;
	struct sim_costs c = *costs;
	sim_costs_use_work(&c, wl->name, wl->work_per_spawn);
	int rc = policy_run(p, workers, wl, pv, &c, ns, &st);
	*polls = st.polls;
	return rc;
}

/* Is `name` among `names` (NULL-terminated; NULL: every name)? */
static bool listed(const char *const *names, const char *name)
{
	if (!names)
		return true;
	for (; *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

int calibrate_policies_of(struct calibration *cal, uint32_t reps, FILE *log,
			  const struct calibrate_work_spec *fit, const char *const *policies,
			  const char *lock_policy)
{
	struct cal c = { .log = log };
	const struct workload *wl = workload_find(fit->workload);
	double pv[64];
	reps = reps ? reps : 1;
	uint32_t cap = reps > WORK_REPS_MAX ? reps : WORK_REPS_MAX;
	CHECK(wl && wl->nparams <= 64);
	if (work_params(wl, fit->params, pv) != 0)
		return -EINVAL;
	cal->fit = *fit;
	/* The sim's costs as the file gives them, the workloads' work with
	 * them (whole ns, as written). */
	for (uint32_t i = 0; i < cal->nwork; i++) {
		char name[64];
		snprintf(name, sizeof name, "work.%s", cal->work[i].workload);
		CHECK(sim_costs_set(&cal->costs, name, whole_ns(cal->work[i].ns)) == 0);
	}
	struct sim_costs costs = cal->costs;
	cal->poll_base = cal->costs;
	sim_costs_use_work(&costs, wl->name, wl->work_per_spawn);
	cal->npolicy = 0;
	/* Volt's run at the work's fit, when it was of this very workload:
	 * each policy's run is brought to the machine's speed then, measured
	 * by a volt run just before it (on this machine a 1-worker fib's ns
	 * per poll moves by a third within minutes, within one round-trip
	 * regime), so that poll.NAME holds the policy's difference and not
	 * the machine's. */
	const struct calibrate_work *ref = NULL;
	for (uint32_t i = 0; i < cal->nwork; i++)
		if (strcmp(cal->work[i].workload, wl->name) == 0 &&
		    (cal->work[i].params == fit->params ||
		     (cal->work[i].params && fit->params &&
		      strcmp(cal->work[i].params, fit->params) == 0)) &&
		    cal->work[i].polls && cal->work[i].run_ns_per_poll > 0)
			ref = &cal->work[i];
	int rc = 0;
	for (size_t i = 0; policy_table[i] && rc == 0; i++) {
		const struct policy *p = policy_table[i];
		/* volt's is 0 by construction: the work is measured under it. */
		if (p->test_only || strcmp(p->name, "volt") == 0 || !listed(policies, p->name) ||
		    cal->npolicy == CALIBRATE_POLICIES)
			continue;
		struct calibrate_policy *cp = &cal->policy[cal->npolicy];
		uint64_t sim;
		struct worker_stats st;
		struct calibrate_fit rf;
		memset(cp, 0, sizeof *cp);
		rc = regime_runs(&c, cal, p, 1, wl, pv, reps, cap, ref, 0, &rf);
		if (rc == 0)
			rc = policy_run(p, 1, wl, pv, &costs, &sim, &st);
		if (rc)
			break;
		double polls = st.polls ? (double)st.polls : 1;
		cp->policy = p->name;
		/* The run and volt's beside it, per poll, at the median factor:
		 * what the file shows; the figure is from the scaled runs. */
		cp->target_ns_per_poll = rf.run_ns / polls;
		cp->run_ns_per_poll = cp->target_ns_per_poll / rf.scale;
		cp->volt_ns_per_poll = ref ? ref->run_ns_per_poll / rf.scale : 0;
		cp->sim_ns_per_poll = (double)sim / polls;
		cp->ns = cp->target_ns_per_poll - cp->sim_ns_per_poll;
		char name[64];
		snprintf(name, sizeof name, "poll.%s", p->name);
		CHECK(sim_costs_set(&cal->costs, name, (uint64_t)llround(cp->ns)) == 0);
		char beside[128] = "no volt run of it at the work's fit to scale by";
		if (ref)
			snprintf(beside, sizeof beside, "volt's beside them %.1f, so %.1f at the "
				 "work's fit", cp->volt_ns_per_poll, cp->target_ns_per_poll);
		say(&c, "poll.%s: %.1f ns per poll (median of %u 1-worker %s runs %.1f ns per poll, "
		    "%s; the sim %.1f)", p->name, cp->ns, rf.runs, wl->name, cp->run_ns_per_poll,
		    beside, cp->sim_ns_per_poll);
		cal->npolicy++;
	}
	if (rc || cal->cpus < 2 || !lock_policy)
		return rc;

	/*
	 * contended: volt's 2-worker run, whose tasks migrate through the
	 * global queue and whose joins arrive from the other worker, against
	 * the sim of it at the costs above; then lock_transfer: go's, whose
	 * every schedule takes the global queue's lock (wakep), with the
	 * contended figure just fitted. Each searched for by secant steps
	 * until the sim lands within 2% of the median run in the
	 * calibration's round-trip regime (regime_runs).
	 */
	const struct policy *vp = policy_find("volt");
	/* Runs a 2-worker fit makes at most, looking for `reps` in one regime. */
	uint32_t cap2 = reps * 4 > 12 ? reps * 4 : 12;
	char how[160];
	CHECK(vp);
	/* Each brought to the machine's speed at the work's fit, as poll.NAME:
	 * else the figure takes in how far that moved since, over the few
	 * events it prices (contended came out at 0 to 93 ns in calibrations
	 * of one evening without this). */
	rc = fit_2w(&c, cal, vp, wl, pv, reps, cap2, offsetof(struct sim_costs, contended), 60,
		    ref, &cal->contended_fit);
	if (rc)
		return rc;
	say(&c, "contended: %llu ns per migrated cold start or remote join (%s's 2-worker %s run "
	    "%.1f ms at the work fit's speed, factor %.2f, %s; the sim %.1f ms with it, %.1f ms "
	    "without)", (unsigned long long)cal->costs.contended, vp->name, wl->name,
	    cal->contended_fit.run_ns / 1e6, cal->contended_fit.scale,
	    fit_runs_text(&cal->contended_fit, how, sizeof how),
	    cal->contended_fit.sim_ns / 1e6, cal->contended_fit.sim0_ns / 1e6);
	const struct policy *go = policy_find(lock_policy);
	CHECK(go);
	struct calibrate_fit *lf = &cal->lock_fit;
	rc = fit_2w(&c, cal, go, wl, pv, reps, cap2, offsetof(struct sim_costs, lock_transfer),
		    fmax(cal->ns.lock_transfer, 1) * 4, ref, lf);
	if (rc)
		return rc;
	cal->lock_fitted = true;
	say(&c, "lock_transfer: %llu ns per taking after another worker (%s's 2-worker %s run "
	    "%.1f ms at the work fit's speed, factor %.2f, %s; the sim %.1f ms with it, %.1f ms "
	    "without; the queue's lines alone %.1f ns)", (unsigned long long)cal->costs.lock_transfer,
	    go->name, wl->name, lf->run_ns / 1e6, lf->scale,
	    fit_runs_text(lf, how, sizeof how), lf->sim_ns / 1e6,
	    lf->sim0_ns / 1e6, cal->ns.lock_transfer);
	return 0;
}
