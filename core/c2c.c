/* c2c.c - core-to-core round-trip probe (c2c.h). Harness-side code: it
 * reads the clock and pins threads, which worker code never does. */
#define _GNU_SOURCE
#include "c2c.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "clock.h"

#define BATCH 100
/* A probe stops after its first batch that ends past C2C_MAX_NS: 20 ms
 * is 10 us per round trip of a 2000-trip probe (a trial's, harness/noise.c)
 * and 1 us of a 20,000-trip one (the run's provenance), 15 and 1.5 times
 * the slowest this machine makes alone (about 60 to 340 ns, 600 at most).
 * Beside busy neighbours, or under ThreadSanitizer (whose atomics take a
 * lock that sleeps when contended), a trip can wait a scheduler slice: a
 * 20,000-trip probe then took tens of seconds, and at a 100 ms cap the
 * probes' spinning was most of the CPU of a small threads run on a loaded
 * machine. The median is then taken over the batches made. */
#define C2C_MAX_NS 20000000ull
/* The prober's word to a responder still waiting for a trip: stop. */
#define C2C_STOP UINT64_MAX

struct probe {
	CACHE_ALIGNED _Atomic uint64_t line;
	int cpu;
	uint32_t total;
};

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The responder turns every odd value into the next even one. */
static void *responder(void *arg)
{
	struct probe *p = arg;
	if (pin(p->cpu) != 0)
		return NULL;
	for (uint64_t v = 1; v < 2ull * p->total; v += 2) {
		/* Acquire/release keep the bounce a true round trip: each
		 * side's store is ordered after it saw the other's. */
		uint64_t x;
		while ((x = atomic_load_explicit(&p->line, memory_order_acquire)) != v) {
			if (x == C2C_STOP)
				return NULL;
			__builtin_ia32_pause();
		}
		atomic_store_explicit(&p->line, v + 1, memory_order_release);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int c2c_probe(int cpu_a, int cpu_b, uint32_t rounds, double *median_ns)
{
	uint32_t batches = rounds / BATCH ? rounds / BATCH : 1;
	struct probe *p = aligned_alloc(CACHE_LINE, sizeof *p);
	double *samples = calloc(batches, sizeof *samples);
	if (!p || !samples) {
		free(p);
		free(samples);
		return -ENOMEM;
	}
	atomic_init(&p->line, 0);
	p->cpu = cpu_b;
	p->total = batches * BATCH;

	cpu_set_t old;
	pthread_getaffinity_np(pthread_self(), sizeof old, &old);
	int rc = pin(cpu_a);
	pthread_t th;
	if (rc == 0)
		rc = pthread_create(&th, NULL, responder, p);
	if (rc != 0) {
		pthread_setaffinity_np(pthread_self(), sizeof old, &old);
		free(p);
		free(samples);
		return -rc;
	}
	uint64_t v = 0, start = mono_ns();
	uint32_t b;
	for (b = 0; b < batches; b++) {
		if (b > 0 && mono_ns() - start > C2C_MAX_NS)
			break;
		uint64_t t0 = mono_ns();
		for (uint32_t i = 0; i < BATCH; i++) {
			atomic_store_explicit(&p->line, v + 1, memory_order_release);
			while (atomic_load_explicit(&p->line, memory_order_acquire) != v + 2)
				__builtin_ia32_pause();
			v += 2;
		}
		samples[b] = (double)(mono_ns() - t0) / BATCH;
	}
	/* Relaxed: the responder needs only to see the value (it is waiting
	 * for v + 1, which never comes); nothing is published with it. The
	 * responder wrote its last value before the prober read it, so this
	 * store cannot be overwritten. */
	if (b < batches)
		atomic_store_explicit(&p->line, C2C_STOP, memory_order_relaxed);
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof old, &old);
	qsort(samples, b, sizeof *samples, cmp_double);
	*median_ns = samples[b / 2];
	free(p);
	free(samples);
	return 0;
}
