/*
 * test_ring.c - the local ring: FIFO order, steal-half amounts, overflow,
 * refusal during a steal, and one owner against three thieves on a million
 * tasks with every task taken exactly once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/ring.h"
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

static struct ring *ring_new(void)
{
	struct ring *r = aligned_alloc(CACHE_LINE, sizeof *r);
	ASSERT(r);
	ring_init(r);
	return r;
}

static void fill(struct ring *r, struct item *it, uint32_t n)
{
	struct ring_overflow out;
	for (uint32_t i = 0; i < n; i++)
		ASSERT_EQ(ring_push(r, &it[i].task, &out), RING_PUSHED);
}

static void fifo_order(void)
{
	struct ring *r = ring_new();
	struct item *it = items_new(300);
	/* Wrap the indices round the buffer a few times. */
	for (uint32_t round = 0; round < 3; round++) {
		fill(r, it, 200);
		ASSERT_EQ(ring_len(r), 200);
		for (uint32_t i = 0; i < 200; i++)
			ASSERT(ring_pop(r) == &it[i].task);
		ASSERT(ring_pop(r) == NULL);
	}
	free(it);
	free(r);
}

/* A victim holding n tasks loses ceil(n/2), at most 128, to an empty thief. */
static void steal_half_amounts(void)
{
	static const uint32_t n[] = { 1, 2, 3, 255, 256 };
	static const uint32_t want[] = { 1, 1, 2, 128, 128 };
	for (size_t c = 0; c < sizeof n / sizeof n[0]; c++) {
		struct ring *victim = ring_new(), *thief = ring_new();
		struct item *it = items_new(n[c]);
		fill(victim, it, n[c]);
		struct task *first;
		enum steal_outcome why;
		uint32_t k = ring_steal_into(victim, thief, RING_STEAL_MAX, &first, &why);
		ASSERT_EQ(k, want[c]);
		ASSERT_EQ(why, STEAL_OK);
		ASSERT_EQ(ring_steal_amount(n[c], RING_STEAL_MAX), want[c]);
		/* The thief runs the last stolen one; the rest are in its
		 * ring, oldest first, and the victim keeps the newer half. */
		ASSERT(first == &it[k - 1].task);
		ASSERT_EQ(ring_len(thief), k - 1);
		ASSERT_EQ(ring_len(victim), n[c] - k);
		for (uint32_t i = 0; i + 1 < k; i++)
			ASSERT(ring_pop(thief) == &it[i].task);
		for (uint32_t i = k; i < n[c]; i++)
			ASSERT(ring_pop(victim) == &it[i].task);
		free(it);
		free(victim);
		free(thief);
	}
}

static void steal_bounded_by_thief_room_and_max(void)
{
	struct ring *victim = ring_new(), *thief = ring_new();
	struct item *it = items_new(256 + 200);
	fill(victim, it, 256);
	fill(thief, it + 256, 200);
	struct task *first;
	enum steal_outcome why;
	ASSERT_EQ(ring_steal_into(victim, thief, RING_STEAL_MAX, &first, &why), 56);
	ASSERT_EQ(ring_len(thief), 255);
	ASSERT_EQ(ring_steal_into(victim, thief, 1, &first, &why), 1);	/* steal-one */
	ASSERT_EQ(ring_len(thief), 255);
	free(it);
	free(victim);
	free(thief);
}

static void steal_empty(void)
{
	struct ring *victim = ring_new(), *thief = ring_new();
	struct task *first;
	enum steal_outcome why;
	ASSERT_EQ(ring_steal_into(victim, thief, RING_STEAL_MAX, &first, &why), 0);
	ASSERT_EQ(why, STEAL_EMPTY);
	ASSERT(first == NULL);
	free(victim);
	free(thief);
}

/* A full ring moves its oldest 128 tasks plus the new one, in order. */
static void overflow_moves_129(void)
{
	struct ring *r = ring_new();
	struct item *it = items_new(257);
	fill(r, it, 256);
	struct ring_overflow out;
	ASSERT_EQ(ring_push(r, &it[256].task, &out), RING_OVERFLOWED);
	ASSERT_EQ(out.n, 129);
	for (uint32_t i = 0; i < 128; i++)
		ASSERT(out.tasks[i] == &it[i].task);
	ASSERT(out.tasks[128] == &it[256].task);
	ASSERT_EQ(ring_len(r), 128);
	for (uint32_t i = 128; i < 256; i++)
		ASSERT(ring_pop(r) == &it[i].task);
	ASSERT(ring_pop(r) == NULL);
	free(it);
	free(r);
}

/*
 * A steal in progress (claimed, not yet released: steal != real) makes other
 * thieves back off, keeps the owner popping, and makes a full ring send only
 * the new task to the global queue.
 */
static void refuse_during_steal(void)
{
	struct ring *r = ring_new(), *thief = ring_new();
	struct item *it = items_new(257);
	fill(r, it, 256);
	/* Freeze the ring mid-steal: a thief claimed [0, 10). */
	atomic_store(&r->head, ring_pack(0, 10));

	struct task *first;
	enum steal_outcome why;
	ASSERT_EQ(ring_steal_into(r, thief, RING_STEAL_MAX, &first, &why), 0);
	ASSERT_EQ(why, STEAL_BUSY);

	struct ring_overflow out;
	ASSERT_EQ(ring_push(r, &it[256].task, &out), RING_FULL_BUSY);
	ASSERT_EQ(out.n, 1);
	ASSERT(out.tasks[0] == &it[256].task);

	/* The owner still pops after the claimed range. */
	ASSERT(ring_pop(r) == &it[10].task);
	ASSERT_EQ(ring_real(atomic_load(&r->head)), 11);
	ASSERT_EQ(ring_steal_idx(atomic_load(&r->head)), 0);
	free(it);
	free(r);
	free(thief);
}

/* ---- one owner, three thieves ---- */

#define STRESS_TASKS 1000000u
#define THIEVES 3

struct stress {
	struct ring *rings[THIEVES + 1];	/* [0] is the owner's */
	struct item *items;
	_Atomic uint32_t done;
	_Atomic uint64_t taken_total;
	_Atomic uint64_t steals;
};

static void take(struct stress *s, struct task *t)
{
	struct item *it = (struct item *)t;
	uint32_t prev = atomic_fetch_add_explicit(&it->taken, 1, memory_order_relaxed);
	if (prev != 0)
		TEST_FAIL("task %ld taken twice", (long)(it - s->items));
	atomic_fetch_add_explicit(&s->taken_total, 1, memory_order_relaxed);
}

struct thief_arg {
	struct stress *s;
	uint32_t id;
};

static void *thief_main(void *argp)
{
	struct thief_arg *a = argp;
	struct stress *s = a->s;
	struct ring *mine = s->rings[a->id];
	struct rng rng;
	rng_seed(&rng, 7, a->id);
	for (;;) {
		bool done = atomic_load_explicit(&s->done, memory_order_acquire);
		/* Steal from the owner or another thief, then drain own ring
		 * (other thieves may steal from it meanwhile). */
		uint32_t v = rng_below(&rng, THIEVES + 1);
		if (v != a->id) {
			struct task *first;
			enum steal_outcome why;
			if (ring_steal_into(s->rings[v], mine, RING_STEAL_MAX, &first, &why)) {
				atomic_fetch_add_explicit(&s->steals, 1, memory_order_relaxed);
				take(s, first);
			}
		}
		struct task *t;
		while ((t = ring_pop(mine)))
			take(s, t);
		if (done && atomic_load_explicit(&s->taken_total, memory_order_relaxed) ==
				    STRESS_TASKS)
			return NULL;
	}
}

static void owner_and_three_thieves(void)
{
	struct stress s;
	for (int i = 0; i <= THIEVES; i++)
		s.rings[i] = ring_new();
	s.items = items_new(STRESS_TASKS);
	atomic_init(&s.done, 0);
	atomic_init(&s.taken_total, 0);
	atomic_init(&s.steals, 0);

	pthread_t th[THIEVES];
	struct thief_arg args[THIEVES];
	for (uint32_t i = 0; i < THIEVES; i++) {
		args[i] = (struct thief_arg){ &s, i + 1 };
		ASSERT_EQ(pthread_create(&th[i], NULL, thief_main, &args[i]), 0);
	}
	struct ring_overflow out;
	uint64_t overflowed = 0;
	for (uint32_t i = 0; i < STRESS_TASKS; i++) {
		/* Overflowed tasks go to a global queue in the runtime; here
		 * the owner takes them itself. */
		if (ring_push(s.rings[0], &s.items[i].task, &out) != RING_PUSHED) {
			for (uint32_t k = 0; k < out.n; k++)
				take(&s, out.tasks[k]);
			overflowed += out.n;
		}
		if (i % 3 == 0) {
			struct task *t = ring_pop(s.rings[0]);
			if (t)
				take(&s, t);
		}
		/* Under a sanitizer the thieves can be slow to start: make
		 * sure some steals do race with the owner, at least once. */
		if (i == STRESS_TASKS / 2)
			for (long spins = 0; atomic_load(&s.steals) == 0; spins++) {
				if (spins > 100000000L)
					TEST_FAIL("no thief stole anything");
				sched_yield();
			}
	}
	atomic_store_explicit(&s.done, 1, memory_order_release);
	struct task *t;
	while ((t = ring_pop(s.rings[0])))
		take(&s, t);
	for (uint32_t i = 0; i < THIEVES; i++)
		pthread_join(th[i], NULL);

	ASSERT_U64_EQ(atomic_load(&s.taken_total), STRESS_TASKS);
	for (uint32_t i = 0; i < STRESS_TASKS; i++)
		if (atomic_load(&s.items[i].taken) != 1)
			TEST_FAIL("task %u taken %u times", i, atomic_load(&s.items[i].taken));
	for (int i = 0; i <= THIEVES; i++)
		ASSERT_EQ(ring_len(s.rings[i]), 0);
	/* The test is only worth its name if thieves really raced. */
	ASSERT(atomic_load(&s.steals) > 0);
	fprintf(stderr, "    %llu steals, %llu overflowed\n",
		(unsigned long long)atomic_load(&s.steals), (unsigned long long)overflowed);
	for (int i = 0; i <= THIEVES; i++)
		free(s.rings[i]);
	free(s.items);
}

int main(void)
{
	RUN(fifo_order);
	RUN(steal_half_amounts);
	RUN(steal_bounded_by_thief_room_and_max);
	RUN(steal_empty);
	RUN(overflow_moves_129);
	RUN(refuse_during_steal);
	RUN(owner_and_three_thieves);
	return 0;
}
