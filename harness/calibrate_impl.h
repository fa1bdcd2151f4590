/*
 * calibrate_impl.h - what the calibration's files share (calibrate.c: the
 * single-thread figures and the passes; calibrate_pair.c: the two-thread
 * figures; calibrate_file.c: the table and the cost file; calibrate_fit.c:
 * the workloads' own work and the fitted figures): the measuring context,
 * its clock and the small helpers. Not part of calibrate.h's interface.
 */
#ifndef HARNESS_HARNESS_CALIBRATE_IMPL_H
#define HARNESS_HARNESS_CALIBRATE_IMPL_H

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

/* This thread's CPU clock (a system call, not the vDSO), ns: the clock
 * the threads engine's CPU split reads (CLOCK_THREAD_CPUTIME_ID). */
static inline uint64_t thread_cpu(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static inline double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void say(const struct cal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void say(const struct cal *c, const char *fmt, ...)
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

static inline int pin(int cpu)
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
static inline int start_peer(int cpu, cpu_set_t *old, bool *pinned, pthread_t *th,
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
static inline void end_peer(pthread_t th, const cpu_set_t *old)
{
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof *old, old);
}

static inline long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)uaddr, op, val, NULL, NULL, 0);
}


static inline uint64_t whole_ns(double ns)
{
	return ns >= 1 ? (uint64_t)llround(ns) : 1;	/* NaN too */
}

/* The two-thread figures of one pass (calibrate_pair.c), on CPUs cpu_a and
 * cpu_b (-1: unpinned). 0 or -errno. */
int bench_steal(struct cal *c, struct calibrate_ns *ns, int cpu_owner, int cpu_thief);
int bench_park(struct cal *c, struct calibrate_ns *ns, int cpu_waker, int cpu_parker);
int bench_notify_deep(struct cal *c, struct calibrate_ns *ns, int cpu_waker, int cpu_parker);
int bench_cold(struct cal *c, struct calibrate_ns *ns, int cpu_writer, int cpu_me);
int bench_lock(struct cal *c, struct calibrate_ns *ns, int cpu_pusher, int cpu_me);
int bench_handoff(struct cal *c, struct calibrate_ns *ns, int cpu_holder, int cpu_waiter);
/* Which runs a 2-worker fit took its target from, in words (calibrate_file.c). */
const char *fit_runs_text(const struct calibrate_fit *fit, char *buf, size_t len);

#endif
