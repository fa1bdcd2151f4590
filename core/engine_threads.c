/*
 * engine_threads.c - the threads engine: one pthread per worker, the real
 * monotonic clock, and a futex-based parker per worker.
 *
 * The parker is a permit with three states:
 *
 *   EMPTY     no permit, nobody waiting
 *   PARKED    the worker sleeps (or is about to) on the futex word
 *   NOTIFIED  a permit: the next park returns at once
 *
 * unpark swaps in NOTIFIED and issues FUTEX_WAKE only if it replaced PARKED,
 * so unparking a running worker costs one atomic swap. park consumes a
 * permit if there is one, otherwise moves EMPTY -> PARKED and waits while
 * the word still reads PARKED. FUTEX_WAIT compares the word atomically with
 * the sleep, so an unpark between the CAS and the wait is never lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "runtime.h"

enum { P_EMPTY = 0, P_PARKED = 1, P_NOTIFIED = 2 };

struct parker {
	CACHE_ALIGNED _Atomic uint32_t state;
	/* Owner-only: compute time the OS took from this worker (a spin that
	 * ended past its deadline), repaid by its later computes; and all of
	 * it over the run (rt->noise). */
	uint64_t compute_debt_ns;
	uint64_t stolen_ns;
	/* The engine clock at the latest unpark (te_unpark), which the woken
	 * worker's wake latency is measured from (struct worker's wake_ns). */
	_Atomic uint64_t notify_ns;
};

struct threads_engine {
	struct engine base;
	uint32_t n;
	struct parker *parkers;
	pthread_t *threads;
	struct runtime *rt;
	pthread_barrier_t barrier;
	CACHE_ALIGNED _Atomic uint32_t done;
};

struct thread_arg {
	struct threads_engine *te;
	uint32_t id;
};

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, ts, NULL, 0);
}

/*
 * The clock. Where the TSC is invariant (constant and non-stop, as the
 * kernel reports it) it is read directly and converted with a multiplier
 * calibrated once per process against CLOCK_MONOTONIC over 20 ms, which
 * costs a few ns instead of the vDSO's ~20 in a virtual machine. Elsewhere
 * CLOCK_MONOTONIC is used as it is. Either way the clock is monotonic and
 * common to all cores.
 */
static struct {
	bool tsc;
	uint64_t tsc0, ns0;
	uint64_t mult;			/* ns per tick, 32.32 fixed point */
} clk;
static pthread_once_t clk_once = PTHREAD_ONCE_INIT;

static bool tsc_invariant(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool constant = false, nonstop = false;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

static void clk_calibrate(void)
{
	if (!tsc_invariant())
		return;
	uint64_t n0 = mono_ns(), t0 = __builtin_ia32_rdtsc();
	uint64_t n1, t1;
	do {
		n1 = mono_ns();
		t1 = __builtin_ia32_rdtsc();
	} while (n1 - n0 < 20000000);
	if (t1 <= t0)
		return;
	clk.mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	clk.tsc0 = t1;
	clk.ns0 = n1;
	clk.tsc = clk.mult != 0;
}

static uint64_t te_now(struct engine *e, struct worker *w)
{
	if (!clk.tsc)
		return mono_ns();
	uint64_t d = __builtin_ia32_rdtsc() - clk.tsc0;
	return clk.ns0 + (uint64_t)(((unsigned __int128)d * clk.mult) >> 32);
}

static bool te_unpark(struct engine *e, uint32_t id)
{
	struct threads_engine *te = (struct threads_engine *)e;
	struct parker *p = &te->parkers[id];
	/* Relaxed: the release exchange below orders this stamp before the
	 * permit, and the parker reads it after its acquire load that sees
	 * NOTIFIED, so it sees this stamp or a later unpark's (a later one
	 * makes the latency shorter by the gap between the two, never wrong
	 * in sign). */
	atomic_store_explicit(&p->notify_ns, te_now(e, NULL), memory_order_relaxed);
	/* Release pairs with the parker's acquire when it consumes the permit:
	 * whatever the unparker published first (a queued task, a claim in the
	 * idle state) is visible to the woken worker. */
	uint32_t prev = atomic_exchange_explicit(&p->state, P_NOTIFIED, memory_order_release);
	if (prev != P_PARKED)
		return false;
	futex(&p->state, FUTEX_WAKE_PRIVATE, 1, NULL);
	return true;
}

/* *slept: whether the worker went to sleep on the futex word (false when
 * a permit was waiting: a notify that found it awake). */
static enum park_wake te_park(struct threads_engine *te, uint32_t id, uint64_t timeout_ns,
			      bool *slept)
{
	struct parker *p = &te->parkers[id];
	uint32_t expect = P_NOTIFIED;

	*slept = false;
	/* A permit already waiting: consume it (acquire pairs with unpark). */
	if (atomic_compare_exchange_strong_explicit(&p->state, &expect, P_EMPTY,
						    memory_order_acquire, memory_order_relaxed))
		return PARK_WOKEN;
	expect = P_EMPTY;
	if (!atomic_compare_exchange_strong_explicit(&p->state, &expect, P_PARKED,
						     memory_order_acquire, memory_order_acquire)) {
		/* An unpark slipped in between the two CASes. */
		atomic_store_explicit(&p->state, P_EMPTY, memory_order_relaxed);
		return PARK_WOKEN;
	}

	*slept = true;
	bool forever = timeout_ns == PARK_FOREVER;
	uint64_t deadline = forever ? UINT64_MAX : mono_ns() + timeout_ns;
	for (;;) {
		uint64_t now = mono_ns();
		if (forever) {
			futex(&p->state, FUTEX_WAIT_PRIVATE, P_PARKED, NULL);
		} else if (now < deadline) {
			uint64_t left = deadline - now;
			struct timespec ts = { .tv_sec = (time_t)(left / 1000000000ull),
					       .tv_nsec = (long)(left % 1000000000ull) };
			futex(&p->state, FUTEX_WAIT_PRIVATE, P_PARKED, &ts);
		}
		if (atomic_load_explicit(&p->state, memory_order_acquire) == P_NOTIFIED) {
			atomic_store_explicit(&p->state, P_EMPTY, memory_order_relaxed);
			return PARK_WOKEN;
		}
		if (mono_ns() >= deadline) {
			expect = P_PARKED;
			/* Withdraw; losing this CAS means an unpark just came. */
			if (atomic_compare_exchange_strong_explicit(&p->state, &expect, P_EMPTY,
								    memory_order_acquire,
								    memory_order_acquire))
				return PARK_TIMEOUT;
			atomic_store_explicit(&p->state, P_EMPTY, memory_order_relaxed);
			return PARK_WOKEN;
		}
		/* Spurious futex return (signal, EAGAIN): wait again. */
	}
}

/*
 * Spend ns of wall time in the running task. With more workers than cores
 * the OS takes the CPU away in the middle of spins, which would stretch a
 * worker's work; the overrun past a deadline is therefore recorded and
 * repaid from the worker's later computes, so that a worker's compute adds
 * up to what its tasks declared whenever the machine lets it catch up.
 */
static uint64_t mono_now(struct threads_engine *te)
{
	return te_now(&te->base, NULL);
}

static void te_compute(struct engine *e, struct worker *w, uint64_t ns)
{
	struct parker *p = &((struct threads_engine *)e)->parkers[w->index];
	uint64_t repay = p->compute_debt_ns < ns ? p->compute_debt_ns : ns;
	p->compute_debt_ns -= repay;
	uint64_t end = te_now(e, w) + (ns - repay), now;
	while ((now = te_now(e, w)) < end)
		__builtin_ia32_pause();
	p->compute_debt_ns += now - end;
	p->stolen_ns += now - end;
}

/* This thread's migrations so far (se.nr_migrations), -1 if not exposed. */
static int64_t thread_migrations(void)
{
	FILE *f = fopen("/proc/thread-self/sched", "r");
	char line[256];
	long long v = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "se.nr_migrations", 16) == 0) {
			char *colon = strchr(line, ':');
			v = colon ? atoll(colon + 1) : -1;
			break;
		}
	fclose(f);
	return v;
}

/*
 * The calling thread's involuntary context switches and system time so
 * far (what the kernel spent on its behalf: futex calls of the lock and of
 * parking, page faults; sampled at the scheduler's tick and apportioned by
 * the kernel, coarse over a run of a few ms); both 0 if they cannot be read.
 */
static void thread_usage(uint64_t *switches, uint64_t *kernel_ns)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0) {
		*switches = *kernel_ns = 0;
		return;
	}
	*switches = (uint64_t)ru.ru_nivcsw;
	*kernel_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

/* The calling thread's CPU time so far (its CPU clock), 0 if unreadable. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's user and system time so far (getrusage), in ns. */
static void thread_times(uint64_t *user_ns, uint64_t *sys_ns)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0) {
		*user_ns = *sys_ns = 0;
		return;
	}
	*user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000;
	*sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

/*
 * The CPU split of one worker (struct worker_cpu), from the timestamps the
 * loop has anyway: each tick's end (worker_tick_close's clock read, kept in
 * tick_t1), and, off the busy path, a clock read after a step that polled
 * nothing and around each park. Spans run from one boundary to the next,
 * so that every instant from the release to the exit lies in exactly one:
 * a tick that polled (its maintenance before it included), one that did
 * not (with its sleep decision), or a park. A per-tick read of the thread's
 * CPU clock (a system call) would cost more than a fib tick, so the spans
 * are wall time, and they only apportion the CPU: the system time is the
 * kernel's part, and the rest of the thread's CPU is shared among the
 * task, scheduling and search parts as their spans share the wall time
 * (on a machine that preempts the workers, a preempted span gets CPU it
 * did not use). The parts add up to the thread's CPU exactly.
 */
struct cpu_acct {
	uint64_t b;			/* the last boundary (engine clock) */
	uint64_t busy, search, parked;	/* wall time of each kind of span */
	uint64_t cpu0, user0, sys0;
};

static void cpu_acct_end(struct cpu_acct *a, const struct worker *w, struct worker_cpu *out)
{
	uint64_t user, sys;
	thread_times(&user, &sys);
	out->cpu_ns = thread_cpu_ns() - a->cpu0;
	out->user_ns = user - a->user0;
	out->sys_ns = sys - a->sys0;
	/* getrusage's times are sampled at the scheduler tick: the system
	 * time is capped at the CPU clock's figure. */
	uint64_t kernel = out->sys_ns < out->cpu_ns ? out->sys_ns : out->cpu_ns;
	uint64_t rest = out->cpu_ns - kernel;
	/* A compute that repaid time the OS took before (te_compute) spins
	 * less than it declares: the busy spans hold the part spun. */
	uint64_t task_w = w->task_compute_ns < a->busy ? w->task_compute_ns : a->busy;
	uint64_t sched_w = a->busy - task_w, wall = a->busy + a->search;
	out->task_ns = wall ? (uint64_t)((unsigned __int128)rest * task_w / wall) : 0;
	out->sched_ns = wall ? (uint64_t)((unsigned __int128)rest * sched_w / wall) : 0;
	out->search_ns = rest - out->task_ns - out->sched_ns;
	out->kernel_ns = kernel;
	out->parked_ns = a->parked;
}

static void *worker_main(void *argp)
{
	struct thread_arg *arg = argp;
	struct threads_engine *te = arg->te;
	struct worker *w = &te->rt->workers[arg->id];
	rt_running = w;		/* this thread's worker, for the whole run */

	/* Park timeouts wake workers for timers and arrivals: the default 50 us
	 * of timer slack would show up in every latency they deliver. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* The thread lives for this run only: its counters start here. */
	struct worker_noise *noise = te->rt->noise ? &te->rt->noise[arg->id] : NULL;
	uint64_t switches0 = 0, kernel0 = 0;
	if (noise)
		thread_usage(&switches0, &kernel0);
	int64_t migrations0 = noise ? thread_migrations() : -1;
	struct worker_cpu *cpu = te->rt->cpu ? &te->rt->cpu[arg->id] : NULL;
	struct cpu_acct acct = { 0 };
	pthread_barrier_wait(&te->barrier);
	if (cpu) {
		acct.cpu0 = thread_cpu_ns();
		thread_times(&acct.user0, &acct.sys0);
		acct.b = te_now(&te->base, w);
	}
	for (;;) {
		uint64_t timeout = 0;
		enum step s = worker_step(w, &timeout);
		if (cpu) {
			if (s == STEP_RAN) {
				acct.busy += w->tick_t1 - acct.b;
				acct.b = w->tick_t1;
			} else {
				uint64_t now = te_now(&te->base, w);
				acct.search += now - acct.b;
				acct.b = now;
			}
		}
		if (s == STEP_EXIT)
			break;
		if (s == STEP_PARK) {
			bool slept;
			enum park_wake how = te_park(te, arg->id, timeout, &slept);
			if (!slept)
				w->st.permit_parks++;	/* a permit: no futex wait */
			if (how == PARK_WOKEN && slept) {
				/* Relaxed: the acquire that saw NOTIFIED in
				 * te_park orders it (te_unpark). */
				w->wake_ns = atomic_load_explicit(&te->parkers[arg->id].notify_ns,
								  memory_order_relaxed);
				w->wake_armed = true;
			}
			if (cpu) {
				uint64_t now = te_now(&te->base, w);
				acct.parked += now - acct.b;
				acct.b = now;
			}
			worker_unparked(w, how);
		}
	}
	if (cpu)
		cpu_acct_end(&acct, w, cpu);
	rt_running = NULL;
	if (noise) {
		/* Read by the harness thread after pthread_join, which orders it. */
		int64_t m = thread_migrations();
		uint64_t sw, k;
		thread_usage(&sw, &k);
		noise->switches = sw - switches0;
		noise->kernel_ns = k > kernel0 ? k - kernel0 : 0;
		noise->migrations = m >= 0 && migrations0 >= 0 ? m - migrations0 : -1;
		noise->stolen_ns = te->parkers[arg->id].stolen_ns;
	}
	return NULL;
}

static bool watch(struct threads_engine *te, struct runtime *rt);
static int stop_stalled(struct threads_engine *te, struct runtime *rt);

static int te_run(struct engine *e, struct runtime *rt,
		  void (*start)(struct runtime *rt, void *arg), void *arg)
{
	struct threads_engine *te = (struct threads_engine *)e;
	CHECK(rt->nworkers == te->n);
	te->rt = rt;
	atomic_store_explicit(&te->done, 0, memory_order_relaxed);
	for (uint32_t i = 0; i < te->n; i++) {
		atomic_store_explicit(&te->parkers[i].state, P_EMPTY, memory_order_relaxed);
		te->parkers[i].compute_debt_ns = 0;
		te->parkers[i].stolen_ns = 0;
	}

	struct thread_arg *args = calloc(te->n, sizeof *args);
	if (!args)
		return -ENOMEM;
	/* Placement happens-before every worker's first step: pthread_create
	 * orders it for the new threads. */
	if (rt->place)
		rt->place(rt, rt->place_arg);
	rt->started = true;
	if (pthread_barrier_init(&te->barrier, NULL, te->n + 1) != 0) {
		free(args);
		return -EAGAIN;
	}
	uint32_t started = 0;
	int rc = 0;
	for (; started < te->n; started++) {
		args[started] = (struct thread_arg){ .te = te, .id = started };
		/* A pinned worker starts on its CPU (--pin, core/topo.h). */
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		int32_t cpu = rt->cfg.cpus ? rt->cfg.cpus[started] : -1;
		if (cpu >= 0 && cpu < CPU_SETSIZE) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof set, &set);
		}
		rc = pthread_create(&te->threads[started], &attr, worker_main, &args[started]);
		pthread_attr_destroy(&attr);
		if (rc != 0)
			break;
	}
	CHECK_MSG(rc == 0, "cannot start worker thread %u: %s", started, strerror(rc));

	/* All workers exist before the clock starts; the start time is
	 * written before they are released (placed tasks may run at once,
	 * and the barrier orders this write before their reads). */
	rt->start_ns = mono_now(te);
	pthread_barrier_wait(&te->barrier);
	start(rt, arg);
	bool stalled = watch(te, rt);
	if (stalled)
		rc = stop_stalled(te, rt);
	else
		for (uint32_t i = 0; i < te->n; i++)
			pthread_join(te->threads[i], NULL);
	pthread_barrier_destroy(&te->barrier);
	if (rc != -EDEADLK)
		free(args);	/* workers still running read their args */
	te->rt = NULL;
	return rc;
}

/*
 * Wait for the run to finish. With a watchdog, wake every quarter period
 * (at most 100 ms) and compare the completed-task count with the last
 * look: a run where no task completes for a whole period has stalled (a
 * lost wakeup, a lost task). Returns true on a stall.
 */
static bool watch(struct threads_engine *te, struct runtime *rt)
{
	uint64_t period = rt->cfg.watchdog_ns;
	uint64_t step = period / 4 < 100000000ull ? period / 4 : 100000000ull;
	uint64_t seen = 0, since = mono_ns();

	while (atomic_load_explicit(&te->done, memory_order_acquire) == 0) {
		if (!period) {
			futex(&te->done, FUTEX_WAIT_PRIVATE, 0, NULL);
			continue;
		}
		struct timespec ts = { .tv_sec = (time_t)(step / 1000000000ull),
				       .tv_nsec = (long)(step % 1000000000ull) };
		futex(&te->done, FUTEX_WAIT_PRIVATE, 0, &ts);
		uint64_t p = rt_progress(rt), now = mono_ns();
		if (p != seen) {
			seen = p;
			since = now;
		} else if (now - since >= period &&
			   atomic_load_explicit(&te->done, memory_order_acquire) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * A stalled run: mark it aborted, wake every worker so that it leaves its
 * loop, give them a second to stop, and write the stall report. Workers
 * stuck inside a task poll cannot be stopped; the report then says it read
 * moving state, and the caller must not free the runtime.
 */
static int stop_stalled(struct threads_engine *te, struct runtime *rt)
{
	/* The state as the stall left it: stopping the workers wakes them,
	 * which clears their parked bits. */
	struct rt_snapshot snap;
	bool have_snap = rt_snapshot_take(rt, &snap) == 0;
	atomic_store_explicit(&rt->finished, RT_ABORTED, memory_order_release);
	for (uint32_t i = 0; i < te->n; i++)
		te_unpark(&te->base, i);
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 1;
	bool all = true;
	/* A worker not joined by the deadline is detached: one that leaves its
	 * task after it would otherwise be a finished, unjoined thread when
	 * the caller _exits, which TSan reports as a leak (exit 66, not 3). */
	for (uint32_t i = 0; i < te->n; i++)
		if (pthread_timedjoin_np(te->threads[i], NULL, &deadline) != 0) {
			pthread_detach(te->threads[i]);
			all = false;
		}
	if (have_snap) {
		rt_dump(rt, rt->dump_to ? rt->dump_to : stderr, &snap, all);
		rt_snapshot_free(&snap);
	}
	return all ? -ETIMEDOUT : -EDEADLK;
}

static void te_finish(struct engine *e, struct runtime *rt)
{
	struct threads_engine *te = (struct threads_engine *)e;
	/* Workers see rt->finished at their next step; parked ones need a
	 * permit to get there. */
	for (uint32_t i = 0; i < te->n; i++)
		te_unpark(e, i);
	atomic_store_explicit(&te->done, 1, memory_order_release);
	futex(&te->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

static void te_destroy(struct engine *e)
{
	struct threads_engine *te = (struct threads_engine *)e;
	if (!te)
		return;
	free(te->parkers);
	free(te->threads);
	free(te);
}

/* An idle round's yield (thread::yield_now in Rust's std is sched_yield). */
static void te_yield(struct engine *e, struct worker *w)
{
	(void)e;
	(void)w;
	sched_yield();
}

static const struct engine_ops threads_ops = {
	.name = "threads",
	.now = te_now,
	.unpark = te_unpark,
	.compute = te_compute,
	.yield = te_yield,
	.run = te_run,
	.finish = te_finish,
	.destroy = te_destroy,
};

uint32_t engine_threads_sleeping(const struct engine *e)
{
	const struct threads_engine *te = (const struct threads_engine *)e;
	uint32_t n = 0;
	for (uint32_t i = 0; i < te->n; i++)
		/* Relaxed: a count a test's probe polls until it holds; it
		 * orders nothing (the run's own loads do that). */
		n += atomic_load_explicit(&te->parkers[i].state, memory_order_relaxed) == P_PARKED;
	return n;
}

struct engine *engine_threads_create(uint32_t nworkers)
{
	pthread_once(&clk_once, clk_calibrate);
	struct threads_engine *te = calloc(1, sizeof *te);
	if (!te)
		return NULL;
	te->base.ops = &threads_ops;
	te->n = nworkers;
	te->parkers = aligned_alloc(CACHE_LINE, nworkers * sizeof(struct parker));
	te->threads = calloc(nworkers, sizeof(pthread_t));
	if (!te->parkers || !te->threads) {
		te_destroy(&te->base);
		return NULL;
	}
	memset(te->parkers, 0, nworkers * sizeof(struct parker));
	return &te->base;
}
