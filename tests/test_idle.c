/*
 * test_idle.c - the idle state: lowest-parked claim by count-trailing-zeros,
 * the soft searcher cap, the last-searcher signal, the timeout-versus-
 * claim race that must never make the parked count wrap, and a claimer
 * that loses its race while others rely on its searcher count.
 *
 * core/idle.c is compiled into this test with IDLE_CLAIM_LOST defined, so
 * that a test can run other workers' steps between a claimer's lost
 * fetch-and and the undo of its count (a no-op unless a test arms it).
 */
#include <pthread.h>
#include <sched.h>

#include "test.h"

static void claim_lost_hook(void);
#define IDLE_CLAIM_LOST(s) claim_lost_hook()
#include "core/idle.c"

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
#define ROUNDS 20000

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

/*
 * The claimer's lost race, by hand (of the kind of the counterexample the
 * spin model's `undo` check finds, tests/model, where the bit goes to a
 * second claimer; here to the worker's own timeout): two workers, two
 * publishers, one thread running every party's steps in this order:
 *
 *   worker 0 is parked; publisher A queues task a, sees nobody searching
 *   and a parked worker, and claims: it reads the bitmap (worker 0), and
 *   before it counts itself as a searcher, worker 0's park times out (its
 *   own bit cleared, not claimed). A's fetch-and then finds the bit gone:
 *   it has lost, its searcher count still stands. Now, before the undo:
 *   worker 0 runs task a and parks again; worker 1 parks; both see one
 *   searcher (A) and skip the re-check of the queues, as volt_park does when
 *   it is not the last searcher and somebody searches; publisher B queues
 *   task b and, seeing a searcher, wakes nobody. Then A undoes its count,
 *   leaving nobody searching: it must look at the bitmap afresh and claim a
 *   worker, or task b stays queued with every worker asleep for good (the
 *   bitmap its fetch-and returned had no bit set).
 */
struct undo_world {
	struct idle s;
	uint32_t queued;	/* tasks in the (modelled) queues */
	bool armed;		/* the hook runs the steps once */
};

static struct undo_world undo;

/* A worker goes to sleep as volt_park does: parked bit, then the re-check
 * if it was the last searcher or nobody searches. Returns whether it would
 * re-check (and so notice queued work itself). */
static bool park_rechecks(struct idle *s, uint32_t id)
{
	bool last = idle_mark_parked(s, id, false);
	idle_fence_recheck();
	return last || atomic_load_explicit(&s->num_searching, memory_order_seq_cst) == 0;
}

/* A publisher queues a task: does it wake anybody? */
static bool publish_wakes(struct undo_world *u)
{
	u->queued++;
	idle_fence_publish();
	return idle_should_wake(&u->s);
}

/* Publisher A's pick: worker 0's timeout fires between A's read of the
 * bitmap and its claim of the bit. */
static int pick_after_timeout(uint64_t bm, const void *arg)
{
	struct undo_world *u = (struct undo_world *)arg;
	int id = __builtin_ctzll(bm);
	if (u->armed && id == 0)
		ASSERT(!idle_wake_was_claim(&u->s, 0));	/* a timeout, not a claim */
	return id;
}

static void claim_lost_hook(void)
{
	struct undo_world *u = &undo;
	if (!u->armed)
		return;
	u->armed = false;
	/* A counts as a searcher here: the one publishers and parkers see. */
	ASSERT_EQ(atomic_load(&u->s.num_searching), 1);
	u->queued--;				/* worker 0 runs task a */
	ASSERT(!park_rechecks(&u->s, 0));	/* ... and parks again */
	ASSERT(!park_rechecks(&u->s, 1));
	ASSERT(!publish_wakes(u));		/* task b: "A is searching" */
	ASSERT_EQ(u->queued, 1);
}

static void claim_lost_undo_rechecks(void)
{
	struct undo_world *u = &undo;
	idle_init(&u->s, 2);
	u->queued = 0;
	/* Worker 0 parks: nobody searches, so it looks, and nothing is queued. */
	ASSERT(park_rechecks(&u->s, 0));
	ASSERT_EQ(u->queued, 0);
	ASSERT(publish_wakes(u));	/* task a: nobody searches, worker 0 sleeps */
	u->armed = true;
	int woken = idle_claim_parked_by(&u->s, pick_after_timeout, u);
	ASSERT(!u->armed);	/* the claim lost its first race */
	/* Task b is queued and both workers sleep: A, whose undo left nobody
	 * searching, is the only one left to wake a worker. */
	ASSERT_EQ(u->queued, 1);
	ASSERT(woken == 0 || woken == 1);
	ASSERT(!idle_is_parked(&u->s, (uint32_t)woken));
	ASSERT_EQ(atomic_load(&u->s.num_parked), 1);
	ASSERT_EQ(atomic_load(&u->s.num_searching), 1);	/* the woken worker */
}

int main(void)
{
	RUN(claim_lowest_parked);
	RUN(searcher_cap_and_last_searcher);
	RUN(timeout_versus_claim);
	RUN(timeout_claim_race);
	RUN(claim_lost_undo_rechecks);
	return 0;
}
