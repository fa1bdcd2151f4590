/*
 * test_deque.c - the Chase-Lev deque: LIFO for the owner and FIFO for
 * thieves; growth from 64 slots through several doublings with every task
 * kept in order (also with the indices wrapped round the buffer); one owner
 * pushing and popping a million tasks against three thieves, growing during
 * the race, with every task taken exactly once; and the last-element race,
 * owner pop against thief steal, where exactly one side wins every time.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/deque.h"
#include "core/rng.h"
#include "test.h"

struct item {
	struct task task;
	_Atomic uint32_t taken;
};

static struct item *items_new(uint32_t n)
{
	struct item *it = calloc(n, sizeof *it);
	ASSERT(it);
	for (uint32_t i = 0; i < n; i++)
		atomic_init(&it[i].taken, 0);
	return it;
}

static struct deque *deque_new(void)
{
	struct deque *d = aligned_alloc(CACHE_LINE, sizeof *d);
	ASSERT(d);
	deque_init(d);
	return d;
}

static void deque_free(struct deque *d)
{
	deque_destroy(d);
	free(d);
}

static struct task *steal_one(struct deque *d)
{
	struct task *t = NULL;
	enum deque_steal r = deque_steal(d, &t);
	/* Single-threaded: nobody to lose a race to. */
	ASSERT(r != DEQUE_RETRY);
	return r == DEQUE_STOLEN ? t : NULL;
}

static void lifo_owner_fifo_thief(void)
{
	struct deque *d = deque_new();
	struct item *it = items_new(10);
	ASSERT(deque_pop(d) == NULL);
	ASSERT(steal_one(d) == NULL);
	for (int i = 0; i < 10; i++)
		deque_push(d, &it[i].task);
	ASSERT_EQ(deque_len(d), 10);
	ASSERT(deque_looks_nonempty(d));
	ASSERT(deque_pop(d) == &it[9].task);	/* newest to the owner */
	ASSERT(steal_one(d) == &it[0].task);	/* oldest to a thief */
	ASSERT(steal_one(d) == &it[1].task);
	ASSERT(deque_pop(d) == &it[8].task);
	deque_push(d, &it[8].task);		/* pushed back: newest again */
	ASSERT(deque_pop(d) == &it[8].task);
	ASSERT_EQ(deque_len(d), 6);
	for (int i = 7; i >= 3; i--)
		ASSERT(deque_pop(d) == &it[i].task);
	ASSERT(steal_one(d) == &it[2].task);	/* the last one, by a thief */
	ASSERT(deque_pop(d) == NULL);
	ASSERT(steal_one(d) == NULL);
	ASSERT_EQ(deque_len(d), 0);
	ASSERT(!deque_looks_nonempty(d));
	/* The last one by the owner, through the CAS path. */
	deque_push(d, &it[0].task);
	ASSERT(deque_pop(d) == &it[0].task);
	ASSERT(deque_pop(d) == NULL);
	ASSERT_EQ(deque_capacity(d), DEQUE_MIN_CAP);
	ASSERT_EQ(d->grows, 0);
	free(it);
	deque_free(d);
}

/* 64 -> 128 -> ... -> 2048: five doublings; the retired buffers hold
 * 64 + ... + 1024 = 1984 slots, less than the live 2048. */
static void growth_keeps_order(void)
{
	const uint32_t n = 1500;
	struct deque *d = deque_new();
	struct item *it = items_new(n);
	for (uint32_t i = 0; i < n; i++) {
		deque_push(d, &it[i].task);
		ASSERT_EQ(deque_len(d), i + 1);
	}
	ASSERT_EQ(deque_capacity(d), 2048);
	ASSERT_EQ(d->grows, 5);
	ASSERT_EQ(deque_retired_slots(d), 1984);
	ASSERT(deque_retired_slots(d) < deque_capacity(d));
	/* Thieves see the oldest in push order, the owner the newest. */
	for (uint32_t i = 0; i < 500; i++)
		ASSERT(steal_one(d) == &it[i].task);
	for (uint32_t i = n; i-- > 500;)
		ASSERT(deque_pop(d) == &it[i].task);
	ASSERT(deque_pop(d) == NULL);
	ASSERT(steal_one(d) == NULL);
	free(it);
	deque_free(d);
}

/* Growth while top is far from 0, so [top, bottom) wraps round the old
 * buffer and lands at different offsets in the new one. */
static void growth_with_wrapped_indices(void)
{
	const uint32_t n = 4000;
	struct deque *d = deque_new();
	struct item *it = items_new(n);
	uint32_t pushed = 0, next_steal = 0;
	/* Slide a window of 40 tasks along: top reaches 1000, in a 64-slot
	 * buffer that never grew. */
	for (; pushed < 1040; pushed++) {
		deque_push(d, &it[pushed].task);
		if (pushed >= 40) {
			ASSERT(steal_one(d) == &it[next_steal].task);
			next_steal++;
		}
	}
	ASSERT_EQ(deque_capacity(d), 64);
	ASSERT_EQ(deque_len(d), 40);
	/* Now fill well past 64 with top at 1000 (offset 1000 & 63 = 40):
	 * three doublings with the live range straddling the wrap. */
	for (; pushed < 1040 + 400; pushed++)
		deque_push(d, &it[pushed].task);
	ASSERT_EQ(deque_capacity(d), 512);
	ASSERT_EQ(d->grows, 3);
	ASSERT_EQ(deque_len(d), 440);
	/* Alternate thief and owner: both ends stay in order. */
	uint32_t lo = next_steal, hi = pushed;
	while (lo < hi) {
		ASSERT(steal_one(d) == &it[lo++].task);
		if (lo < hi)
			ASSERT(deque_pop(d) == &it[--hi].task);
	}
	ASSERT(deque_pop(d) == NULL);
	free(it);
	deque_free(d);
}

/* ---- one owner, three thieves ---- */

#define STRESS_TASKS 1000000u
#define THIEVES 3

struct stress {
	struct deque *d;
	struct item *items;
	_Atomic uint32_t done;
	_Atomic uint64_t taken_total;
	_Atomic uint64_t steals;
	_Atomic uint64_t retries;
};

static void take(struct stress *s, struct task *t)
{
	struct item *it = (struct item *)t;
	uint32_t prev = atomic_fetch_add_explicit(&it->taken, 1, memory_order_relaxed);
	if (prev != 0)
		TEST_FAIL("task %ld taken twice", (long)(it - s->items));
	atomic_fetch_add_explicit(&s->taken_total, 1, memory_order_relaxed);
}

static void *thief_main(void *arg)
{
	struct stress *s = arg;
	uint64_t retries = 0;
	for (;;) {
		bool done = atomic_load_explicit(&s->done, memory_order_acquire);
		struct task *t;
		enum deque_steal r = deque_steal(s->d, &t);
		if (r == DEQUE_STOLEN) {
			take(s, t);
			atomic_fetch_add_explicit(&s->steals, 1, memory_order_relaxed);
		} else if (r == DEQUE_RETRY) {
			retries++;
		} else if (done) {
			/* The owner finished pushing before we saw it empty. */
			break;
		}
	}
	atomic_fetch_add_explicit(&s->retries, retries, memory_order_relaxed);
	return NULL;
}

static void wait_for_steals(struct stress *s, uint64_t at_least)
{
	for (long spins = 0; atomic_load(&s->steals) < at_least; spins++) {
		if (spins > 100000000L)
			TEST_FAIL("thieves stole only %llu tasks",
				  (unsigned long long)atomic_load(&s->steals));
		sched_yield();
	}
}

static void owner_and_three_thieves(void)
{
	struct stress s;
	s.d = deque_new();
	s.items = items_new(STRESS_TASKS);
	atomic_init(&s.done, 0);
	atomic_init(&s.taken_total, 0);
	atomic_init(&s.steals, 0);
	atomic_init(&s.retries, 0);

	pthread_t th[THIEVES];
	for (int i = 0; i < THIEVES; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, thief_main, &s), 0);

	uint32_t i = 0;
	/* Phase 1: keep the deque short (push 2, pop 1) until thieves are
	 * stealing, so growth below happens while they race. */
	for (; i < 1000; i++) {
		deque_push(s.d, &s.items[i].task);
		if (i % 2 == 1) {
			struct task *t = deque_pop(s.d);
			if (t)
				take(&s, t);
		}
	}
	wait_for_steals(&s, 1);
	uint32_t grows_before = s.d->grows;
	int64_t cap_before = deque_capacity(s.d);
	/* Phase 2: push 3, pop 1. The owner outruns single-task steals, so
	 * the deque grows while thieves read from it. */
	for (; i < STRESS_TASKS; i++) {
		/* Some steals must interleave with the later growth too: at
		 * the middle, wait for one more steal than were counted before
		 * this push. Counted after it, the thieves could have taken
		 * every task already, leaving the wait nothing to steal (it
		 * hung so, under ASan beside another job). */
		uint64_t before = i == STRESS_TASKS / 2 ? atomic_load(&s.steals) : 0;
		deque_push(s.d, &s.items[i].task);
		if (i == STRESS_TASKS / 2)
			wait_for_steals(&s, before + 1);
		if (i % 3 == 0) {
			struct task *t = deque_pop(s.d);
			if (t)
				take(&s, t);
		}
	}
	uint32_t grows_during = s.d->grows - grows_before;
	/* Phase 3: drain from the bottom while thieves drain the top. */
	struct task *t;
	while ((t = deque_pop(s.d)))
		take(&s, t);
	atomic_store_explicit(&s.done, 1, memory_order_release);
	for (int k = 0; k < THIEVES; k++)
		pthread_join(th[k], NULL);

	ASSERT_U64_EQ(atomic_load(&s.taken_total), STRESS_TASKS);
	for (uint32_t k = 0; k < STRESS_TASKS; k++)
		if (atomic_load(&s.items[k].taken) != 1)
			TEST_FAIL("task %u taken %u times", k, atomic_load(&s.items[k].taken));
	ASSERT_EQ(deque_len(s.d), 0);
	ASSERT(atomic_load(&s.steals) > 0);
	/* Growth happened after the thieves were already stealing. */
	ASSERT(grows_during > 0);
	ASSERT(deque_capacity(s.d) > cap_before);
	ASSERT(deque_retired_slots(s.d) < deque_capacity(s.d));
	fprintf(stderr, "    %llu steals, %llu lost races, capacity %lld after %u doublings\n",
		(unsigned long long)atomic_load(&s.steals),
		(unsigned long long)atomic_load(&s.retries), (long long)deque_capacity(s.d),
		s.d->grows);
	deque_free(s.d);
	free(s.items);
}

/* ---- the last-element race ---- */

#define RACE_ROUNDS 20000u

struct last {
	struct deque *d;
	struct item *items;
	_Atomic uint32_t go;		/* round the thief may start */
	_Atomic uint32_t ready;		/* round whose steal the thief is starting */
	_Atomic uint32_t delay;		/* the thief's delay steps before it steals */
	_Atomic uint32_t finished;	/* round the thief has finished */
	_Atomic uint32_t thief_won;	/* per round: 1 if the thief took it */
	uint64_t retries, empties;	/* thief-private until joined */
};

static void spin_until(_Atomic uint32_t *v, uint32_t want)
{
	for (uint32_t n = 0; atomic_load_explicit(v, memory_order_acquire) != want; n++)
		if (n % 64 == 63)
			sched_yield();
}

static void *last_thief(void *arg)
{
	struct last *l = arg;
	for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
		spin_until(&l->go, r);
		atomic_store_explicit(&l->ready, r, memory_order_release);
		for (uint32_t k = atomic_load_explicit(&l->delay, memory_order_relaxed); k; k--)
			__asm__ __volatile__("" ::: "memory");
		struct task *t = NULL;
		enum deque_steal out = deque_steal(l->d, &t);
		uint32_t won = 0;
		if (out == DEQUE_STOLEN) {
			ASSERT(t == &l->items[r - 1].task);
			atomic_fetch_add_explicit(&l->items[r - 1].taken, 1, memory_order_relaxed);
			won = 1;
		} else if (out == DEQUE_RETRY) {
			l->retries++;
		} else {
			l->empties++;
		}
		atomic_store_explicit(&l->thief_won, won, memory_order_relaxed);
		atomic_store_explicit(&l->finished, r, memory_order_release);
	}
	return NULL;
}

static void last_element_race(void)
{
	struct last l;
	l.d = deque_new();
	l.items = items_new(RACE_ROUNDS);
	atomic_init(&l.go, 0);
	atomic_init(&l.ready, 0);
	atomic_init(&l.delay, 0);
	atomic_init(&l.finished, 0);
	atomic_init(&l.thief_won, 0);
	l.retries = l.empties = 0;
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, last_thief, &l), 0);

	struct rng rng;
	rng_seed(&rng, 11, 0);
	uint32_t owner_wins = 0, thief_wins = 0, close_owner = 0, close_thief = 0;
	/*
	 * A quarter of the rounds has the owner pop before the thief may
	 * start, a quarter the thief steal before the owner pops: each side
	 * takes the last element alone, and the other finds the deque empty,
	 * whatever the scheduler does. In the other half the owner pops as
	 * soon as it sees the thief start (so the thief is on a CPU, even on
	 * a loaded machine), and the thief first waits [0, 2 span) delay
	 * steps, span adapting towards the point where each side wins half of
	 * these rounds, whatever the machine's (or the sanitizer's) speed:
	 * there the two sides' CASes collide, as often as the scheduler lets
	 * them, and exactly one side must win each round.
	 */
	uint32_t span = 16;
	for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
		struct item *it = &l.items[r - 1];
		uint32_t mode = r % 4;	/* 0: the owner first, 1: the thief first, else close */
		bool close = mode >= 2;
		atomic_store_explicit(&l.delay, close ? rng_below(&rng, 2 * span) : 0,
				      memory_order_relaxed);
		deque_push(l.d, &it->task);
		struct task *t = NULL;
		if (mode == 0)
			t = deque_pop(l.d);
		atomic_store_explicit(&l.go, r, memory_order_release);
		if (mode == 1)
			spin_until(&l.finished, r);
		else if (close)
			spin_until(&l.ready, r);
		if (mode != 0)
			t = deque_pop(l.d);
		spin_until(&l.finished, r);
		uint32_t thief = atomic_load_explicit(&l.thief_won, memory_order_relaxed);
		if (t) {
			ASSERT(t == &it->task);
			atomic_fetch_add_explicit(&it->taken, 1, memory_order_relaxed);
		}
		if ((t != NULL) + thief != 1 || (mode == 0 && !t) || (mode == 1 && !thief))
			TEST_FAIL("round %u (%s): owner %s, thief %s", r,
				  mode == 0 ? "owner first" : mode == 1 ? "thief first" : "close",
				  t ? "won" : "lost", thief ? "won" : "lost");
		ASSERT_EQ(atomic_load(&it->taken), 1);
		owner_wins += t != NULL;
		thief_wins += thief;
		close_owner += close && t;
		close_thief += close && thief;
		if (close && t && span > 1)
			span -= span / 16 + 1;	/* the thief was too late */
		else if (close && !t && span < (1u << 16))
			span += span / 16 + 1;	/* the thief was too early */
		ASSERT_EQ(deque_len(l.d), 0);
	}
	pthread_join(th, NULL);
	ASSERT_EQ(owner_wins + thief_wins, RACE_ROUNDS);
	/* How often the close rounds collided is the scheduler's business:
	 * reported, not asserted. */
	fprintf(stderr, "    owner won %u, thief won %u; of the close rounds the owner %u, the "
		"thief %u (thief lost: %llu CAS, %llu empty)\n", owner_wins, thief_wins, close_owner,
		close_thief, (unsigned long long)l.retries, (unsigned long long)l.empties);
	ASSERT_EQ(deque_capacity(l.d), DEQUE_MIN_CAP);
	deque_free(l.d);
	free(l.items);
}

int main(void)
{
	RUN(lifo_owner_fifo_thief);
	RUN(growth_keeps_order);
	RUN(growth_with_wrapped_indices);
	RUN(owner_and_three_thieves);
	RUN(last_element_race);
	return 0;
}
