/* idle.c - searching and parked counters and the parked bitmap (idle.h). */
#include "idle.h"

#ifdef IDLE_TSAN
_Atomic uint64_t idle_tsan_fence_word;
#endif

/*
 * A claimer has lost its race for a bit and not yet undone its searcher
 * count: nothing here. tests/test_idle.c compiles this file with its own
 * definition, to run other workers' steps at that point.
 */
#ifndef IDLE_CLAIM_LOST
#define IDLE_CLAIM_LOST(s) ((void)0)
#endif

void idle_init(struct idle *s, uint32_t num_workers)
{
	/* More workers than bits is allowed here; policies that use the
	 * bitmap refuse such configurations in their check hook. */
	CHECK(num_workers >= 1);
	atomic_init(&s->num_searching, 0);
	atomic_init(&s->num_parked, 0);
	atomic_init(&s->parked_bitmap, 0);
	s->num_workers = num_workers;
}

bool idle_try_become_searcher(struct idle *s, uint32_t cap_num, uint32_t cap_den)
{
	uint32_t n = atomic_load_explicit(&s->num_searching, memory_order_seq_cst);
	/* Default cap 1/2: search only while 2 * searching < workers. */
	if ((uint64_t)n * cap_den >= (uint64_t)s->num_workers * cap_num)
		return false;
	atomic_fetch_add_explicit(&s->num_searching, 1, memory_order_seq_cst);
	return true;
}

bool idle_leave_searching(struct idle *s)
{
	uint32_t prev = atomic_fetch_sub_explicit(&s->num_searching, 1, memory_order_seq_cst);
	CHECK(prev >= 1);
	return prev == 1;
}

static int pick_lowest(uint64_t bm, const void *arg)
{
	(void)arg;
	return __builtin_ctzll(bm);
}

static inline __attribute__((always_inline)) int claim(struct idle *s, idle_pick_fn pick,
						       const void *arg)
{
	uint64_t bm = atomic_load_explicit(&s->parked_bitmap, memory_order_seq_cst);
	while (bm != 0) {
		int id = pick(bm, arg);
		uint64_t mask = (uint64_t)1 << id;
		/*
		 * Count the worker as a searcher *before* taking its bit: a
		 * worker that wakes by timeout and finds its bit gone treats
		 * itself as claimed and may leave the searching state at once,
		 * so the count must already include it. A lost race undoes
		 * the count; meanwhile publishers merely see one searcher
		 * more and stay quiet while this claimer is waking someone.
		 */
		atomic_fetch_add_explicit(&s->num_searching, 1, memory_order_seq_cst);
		/* Races with other claimers and with the worker's own timeout
		 * path (idle_wake_was_claim): whoever clears the bit first owns
		 * the parked-count decrement. */
		uint64_t prev = atomic_fetch_and_explicit(&s->parked_bitmap, ~mask,
							  memory_order_seq_cst);
		if (prev & mask) {
			uint32_t p = atomic_fetch_sub_explicit(&s->num_parked, 1,
							      memory_order_seq_cst);
			CHECK(p >= 1);
			return id;
		}
		/*
		 * Lost: undo the count. While it stood, a publisher may have
		 * seen a searcher and stayed quiet, and a parking worker may
		 * have skipped its re-check (volt_park: nobody searching)
		 * because of it alone. If this undo leaves nobody searching,
		 * those rely on us: look at the bitmap afresh (seq_cst, after
		 * the RMW: it shows every worker parked before their reads of
		 * our count) rather than at what the fetch-and returned. The
		 * spin model (tests/model) finds the lost wakeup without it.
		 */
		IDLE_CLAIM_LOST(s);
		uint32_t was = atomic_fetch_sub_explicit(&s->num_searching, 1, memory_order_seq_cst);
		bm = was == 1 ? atomic_load_explicit(&s->parked_bitmap, memory_order_seq_cst)
			      : prev & ~mask;
	}
	return -1;
}

int idle_claim_parked(struct idle *s)
{
	return claim(s, pick_lowest, NULL);
}

int idle_claim_parked_by(struct idle *s, idle_pick_fn pick, const void *arg)
{
	return claim(s, pick, arg);
}

bool idle_mark_parked(struct idle *s, uint32_t id, bool was_searching)
{
	CHECK(id < IDLE_MAX_WORKERS);
	uint64_t mask = (uint64_t)1 << id;
	atomic_fetch_add_explicit(&s->num_parked, 1, memory_order_seq_cst);
	uint64_t prev = atomic_fetch_or_explicit(&s->parked_bitmap, mask, memory_order_seq_cst);
	CHECK(!(prev & mask));
	if (!was_searching)
		return false;
	return idle_leave_searching(s);
}

bool idle_wake_was_claim(struct idle *s, uint32_t id)
{
	uint64_t mask = (uint64_t)1 << id;
	uint64_t prev = atomic_fetch_and_explicit(&s->parked_bitmap, ~mask, memory_order_seq_cst);
	if (!(prev & mask))
		return true;	/* claimed: the claimer did the accounting */
	uint32_t p = atomic_fetch_sub_explicit(&s->num_parked, 1, memory_order_seq_cst);
	CHECK(p >= 1);
	return false;
}
