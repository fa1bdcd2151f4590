/*
 * test_idle.c - the idle state: lowest-parked claim by count-trailing-zeros,
 * the soft searcher cap, the last-searcher signal, and the timeout-versus-
 * claim race that must never make the parked count wrap.
 */
#include <pthread.h>
#include <sched.h>

#include "core/idle.h"
#include "test.h"

static void claim_lowest_parked(void)
{
	struct idle s;
	idle_init(&s, 16);
	ASSERT(!idle_mark_parked(&s, 9, false));
	ASSERT(!idle_mark_parked(&s, 3, false));
	ASSERT(!idle_mark_parked(&s, 5, false));
	ASSERT_EQ(atomic_load(&s.num_parked), 3);
	ASSERT_EQ(idle_claim_parked(&s), 3);
	ASSERT_EQ(idle_claim_parked(&s), 5);
	ASSERT_EQ(atomic_load(&s.num_parked), 1);
	ASSERT_EQ(atomic_load(&s.num_searching), 2);	/* claimed = searching */
	ASSERT_EQ(idle_claim_parked(&s), 9);
	ASSERT_EQ(idle_claim_parked(&s), -1);
	ASSERT_EQ(atomic_load(&s.parked_bitmap), 0);
	/* Worker 63 is the highest bit. */
	ASSERT(!idle_mark_parked(&s, 63, false));
	ASSERT_EQ(idle_claim_parked(&s), 63);
}

static void searcher_cap_and_last_searcher(void)
{
	struct idle s;
	idle_init(&s, 4);
	/* Cap 1/2 of 4 workers: two may search. */
	ASSERT(idle_try_become_searcher(&s, 1, 2));
	ASSERT(idle_try_become_searcher(&s, 1, 2));
	ASSERT(!idle_try_become_searcher(&s, 1, 2));
	ASSERT(!idle_leave_searching(&s));
	ASSERT(idle_leave_searching(&s));	/* the last one */
	/* A searcher that parks leaves searching after setting its bit. */
	ASSERT(idle_try_become_searcher(&s, 1, 2));
	ASSERT(idle_mark_parked(&s, 2, true));
	ASSERT_EQ(atomic_load(&s.num_searching), 0);
	ASSERT(idle_is_parked(&s, 2));
}

static void timeout_versus_claim(void)
{
	struct idle s;
	idle_init(&s, 4);
	/* Timeout with nobody claiming: the worker undoes its own count. */
	idle_mark_parked(&s, 1, false);
	ASSERT(!idle_wake_was_claim(&s, 1));
	ASSERT_EQ(atomic_load(&s.num_parked), 0);
	ASSERT_EQ(atomic_load(&s.num_searching), 0);
	/* A claimer cleared the bit just before the worker's timeout fired:
	 * the worker must take the claim (and its searcher count), not
	 * decrement num_parked a second time. */
	idle_mark_parked(&s, 1, false);
	ASSERT_EQ(idle_claim_parked(&s), 1);
	ASSERT(idle_wake_was_claim(&s, 1));
	ASSERT_EQ(atomic_load(&s.num_parked), 0);
	ASSERT_EQ(atomic_load(&s.num_searching), 1);
}

/* Parkers time out while claimers claim; counts must end balanced. */
#define ROUNDS 100000

struct race {
	struct idle s;
	_Atomic int stop;
	_Atomic long claims_seen;
};

static void *parker(void *arg)
{
	struct race *r = arg;
	long claimed = 0;
	for (int i = 0; i < ROUNDS; i++) {
		idle_mark_parked(&r->s, 0, false);
		if (i % 7)
			sched_yield();
		if (idle_wake_was_claim(&r->s, 0)) {
			claimed++;
			(void)idle_leave_searching(&r->s);
		}
	}
	atomic_fetch_add(&r->claims_seen, claimed);
	return NULL;
}

static void *claimer(void *arg)
{
	struct race *r = arg;
	while (!atomic_load(&r->stop))
		(void)idle_claim_parked(&r->s);
	return NULL;
}

static void timeout_claim_race(void)
{
	static struct race r;
	idle_init(&r.s, 2);
	atomic_init(&r.stop, 0);
	atomic_init(&r.claims_seen, 0);
	pthread_t p, c;
	ASSERT_EQ(pthread_create(&c, NULL, claimer, &r), 0);
	ASSERT_EQ(pthread_create(&p, NULL, parker, &r), 0);
	pthread_join(p, NULL);
	atomic_store(&r.stop, 1);
	pthread_join(c, NULL);
	/* Every claim made the parker a searcher, which it left again. */
	ASSERT_EQ(atomic_load(&r.s.num_parked), 0);
	ASSERT_EQ(atomic_load(&r.s.num_searching), 0);
	ASSERT_EQ(atomic_load(&r.s.parked_bitmap), 0);
	fprintf(stderr, "    %ld of %d parks ended by a claim\n", atomic_load(&r.claims_seen),
		ROUNDS);
}

int main(void)
{
	RUN(claim_lowest_parked);
	RUN(searcher_cap_and_last_searcher);
	RUN(timeout_versus_claim);
	RUN(timeout_claim_race);
	return 0;
}
