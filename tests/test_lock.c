/*
 * test_lock.c - the global queue's mutex (core/lock.h): mutual exclusion
 * and the hand-over between holders under contention, including the
 * futex path (more threads than cores, so holders get preempted and
 * waiters sleep).
 */
#include <pthread.h>
#include <unistd.h>

#include "core/lock.h"
#include "test.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ROUNDS 20000
#else
#define ROUNDS 200000
#endif
#define THREADS 4

static struct hlock lock = HLOCK_INIT;
/* Plain fields, written only under the lock: a lost exclusion shows up as
 * a lost update, or as a holder seeing another holder inside. */
static uint64_t counter;
static int inside;
static int overlaps;
static pthread_barrier_t go;

static void *hammer(void *arg)
{
	pthread_barrier_wait(&go);
	for (int i = 0; i < ROUNDS; i++) {
		hlock_lock(&lock);
		if (inside++)
			overlaps++;
		/* A read-modify-write stretched over a few hundred ns: two
		 * holders at once would lose increments. */
		uint64_t c = counter;
		for (volatile int k = 0; k < 50; k++)
			;
		counter = c + 1;
		/* Now and then the holder sleeps while it holds the lock, so
		 * that the others find it taken and sleep on it (an unlock that
		 * forgot to wake them hangs the test; a lock that let them in
		 * shows as an overlap). */
		if ((i & 255) == 0)
			usleep(20);
		inside--;
		hlock_unlock(&lock);
	}
	return arg;
}

static void exclusion_under_contention(void)
{
	pthread_t th[THREADS];
	ASSERT(pthread_barrier_init(&go, NULL, THREADS) == 0);
	for (int i = 0; i < THREADS; i++)
		ASSERT(pthread_create(&th[i], NULL, hammer, NULL) == 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	ASSERT_EQ(overlaps, 0);
	ASSERT_U64_EQ(counter, (uint64_t)THREADS * ROUNDS);
	/* Free again, with nobody marked waiting. */
	ASSERT_EQ(atomic_load(&lock.v), 0);
}

static void uncontended_states(void)
{
	struct hlock l;
	hlock_init(&l);
	hlock_lock(&l);
	ASSERT_EQ(atomic_load(&l.v), 1);	/* held, nobody waiting */
	hlock_unlock(&l);
	ASSERT_EQ(atomic_load(&l.v), 0);
}

int main(void)
{
	alarm(50);	/* a lost wake-up fails the test instead of hanging it */
	RUN(uncontended_states);
	RUN(exclusion_under_contention);
	return 0;
}
