/*
 * test_ring.c - the local ring: FIFO order, steal-half amounts, overflow,
 * refusal during a steal, every schedule of one steal's phases against the
 * owner and two more thieves, one owner against three thieves on a
 * million tasks with every task taken exactly once, and batches pushed by
 * one thread and stolen by another (a data race under ThreadSanitizer if
 * the batch's tail is not published with release).
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

/* ---- every schedule of one steal's phases ---- */

/*
 * One thief steals from the owner's ring `src` in ring_steal_into's four
 * phases (ring.h); between any two of them the owner pushes or pops, a
 * second thief steals from src, or a third steals from the first thief's
 * ring `dst`. Every interleaving of up to SCHED_OPS such operations with
 * the four phases runs from the same start (src holding `fill` tasks); then
 * every ring is drained and each task must have been taken exactly once
 * (a task the owner could not push, overflowed, counts as taken: in the
 * runtime it goes to the global queue). The phases' order is a parameter:
 * the real one passes every schedule; the broken orders below, which
 * publish before the copy, must fail some.
 */
enum phase { PH_CLAIM, PH_COPY, PH_RELEASE, PH_PUBLISH, NPHASES };
enum sched_op { OP_PUSH, OP_POP, OP_STEAL_SRC, OP_STEAL_DST, NOPS };
#define SCHED_OPS 3
#define SCHED_TASKS (RING_CAP + SCHED_OPS + 1)

static const enum phase real_order[NPHASES] = { PH_CLAIM, PH_COPY, PH_RELEASE, PH_PUBLISH };
/* Kept for the test: the claimed slots go back to the owner before they are
 * copied out, so the owner's next pushes can overwrite them. */
static const enum phase release_first[NPHASES] = { PH_CLAIM, PH_RELEASE, PH_COPY, PH_PUBLISH };
/* Kept for the test: dst's tail is published before the copies are in its
 * slots, so a thief of dst can take what is not there yet. */
static const enum phase publish_first[NPHASES] = { PH_CLAIM, PH_PUBLISH, PH_COPY, PH_RELEASE };

struct sched_world {
	struct ring *src, *dst, *other_src, *other_dst;
	struct item items[SCHED_TASKS];
	struct item poison;	/* what an unwritten slot holds */
	uint32_t next;		/* the next task the owner pushes */
	uint32_t bad;		/* unwritten slots taken */
};

static void sched_take(struct sched_world *w, struct task *t)
{
	struct item *it = (struct item *)t;
	if (it < w->items || it >= w->items + w->next)
		w->bad++;
	else
		atomic_fetch_add_explicit(&it->taken, 1, memory_order_relaxed);
}

static void sched_owner_op(struct sched_world *w, enum sched_op op)
{
	struct task *first;
	enum steal_outcome why;
	struct ring_overflow out;
	switch (op) {
	case OP_PUSH:
		if (ring_push(w->src, &w->items[w->next++].task, &out) != RING_PUSHED)
			for (uint32_t k = 0; k < out.n; k++)
				sched_take(w, out.tasks[k]);
		break;
	case OP_POP:
		if ((first = ring_pop(w->src)))
			sched_take(w, first);
		break;
	case OP_STEAL_SRC:
	case OP_STEAL_DST:
		if (ring_steal_into(op == OP_STEAL_SRC ? w->src : w->dst,
				    op == OP_STEAL_SRC ? w->other_src : w->other_dst,
				    RING_STEAL_MAX, &first, &why))
			sched_take(w, first);
		break;
	default:
		TEST_FAIL("op %d", (int)op);
	}
}

/*
 * Run one schedule: ops[0..nops) interleaved with the phases, where bit i
 * of `where` (over nops + NPHASES positions) set means "position i is the
 * thief's next phase". Returns true if every task was taken exactly once.
 */
static bool sched_run(struct sched_world *w, const enum phase *order, uint32_t fill,
		      const enum sched_op *ops, uint32_t nops, uint32_t where)
{
	struct ring *all[] = { w->src, w->dst, w->other_src, w->other_dst };
	for (size_t r = 0; r < sizeof all / sizeof all[0]; r++) {
		ring_init(all[r]);
		for (uint32_t i = 0; i < RING_CAP; i++)
			all[r]->buf[i] = &w->poison.task;
	}
	for (uint32_t i = 0; i < SCHED_TASKS; i++)
		atomic_store(&w->items[i].taken, 0);
	w->next = 0;
	w->bad = 0;
	while (w->next < fill)
		sched_owner_op(w, OP_PUSH);

	struct ring_steal st;
	struct task *first = NULL;
	enum steal_outcome why;
	bool claimed = false;
	uint32_t phase = 0, op = 0;
	for (uint32_t pos = 0; pos < nops + NPHASES; pos++) {
		if (!(where >> pos & 1)) {
			sched_owner_op(w, ops[op++]);
			continue;
		}
		switch (order[phase++]) {
		case PH_CLAIM:
			claimed = ring_steal_claim(w->src, w->dst, RING_STEAL_MAX, &st, &why);
			break;
		case PH_COPY:
			if (claimed)
				first = ring_steal_copy(w->src, w->dst, &st);
			break;
		case PH_RELEASE:
			if (claimed)
				ring_steal_release(w->src, &st);
			break;
		case PH_PUBLISH:
			if (claimed)
				ring_steal_publish(w->dst, &st);
			break;
		default:
			TEST_FAIL("phase");
		}
	}
	if (first)
		sched_take(w, first);
	for (size_t r = 0; r < sizeof all / sizeof all[0]; r++) {
		struct task *t;
		while ((t = ring_pop(all[r])))
			sched_take(w, t);
	}
	if (w->bad)
		return false;
	for (uint32_t i = 0; i < w->next; i++)
		if (atomic_load(&w->items[i].taken) != 1)
			return false;
	return true;
}

/* Every schedule of the phases in `order` against 0..SCHED_OPS operations,
 * from src holding 4, 255 and 256 tasks: how many ran, how many lost or
 * duplicated a task. */
static void sched_all(const enum phase *order, uint32_t *runs, uint32_t *failed)
{
	static const uint32_t fills[] = { 4, RING_CAP - 1, RING_CAP };
	struct sched_world *w = calloc(1, sizeof *w);
	ASSERT(w);
	w->src = ring_new();
	w->dst = ring_new();
	w->other_src = ring_new();
	w->other_dst = ring_new();
	*runs = *failed = 0;
	for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
		for (uint32_t nops = 0; nops <= SCHED_OPS; nops++) {
			uint32_t nseq = 1;
			for (uint32_t i = 0; i < nops; i++)
				nseq *= NOPS;
			for (uint32_t seq = 0; seq < nseq; seq++) {
				enum sched_op ops[SCHED_OPS];
				for (uint32_t i = 0, x = seq; i < nops; i++, x /= NOPS)
					ops[i] = (enum sched_op)(x % NOPS);
				/* Every placement of the NPHASES phases among
				 * the nops + NPHASES positions. */
				for (uint32_t where = 0; where < 1u << (nops + NPHASES); where++) {
					if (__builtin_popcount(where) != NPHASES)
						continue;
					(*runs)++;
					if (!sched_run(w, order, fills[f], ops, nops, where))
						(*failed)++;
				}
			}
		}
	}
	free(w->src);
	free(w->dst);
	free(w->other_src);
	free(w->other_dst);
	free(w);
}

static void steal_phases_every_schedule(void)
{
	uint32_t runs, failed;
	sched_all(real_order, &runs, &failed);
	fprintf(stderr, "    real order: %u schedules, %u lose or duplicate a task\n", runs, failed);
	ASSERT(runs > 1000);
	ASSERT_EQ(failed, 0);

	sched_all(release_first, &runs, &failed);
	fprintf(stderr, "    release before the copy: %u of %u schedules fail\n", failed, runs);
	ASSERT(failed > 0);

	sched_all(publish_first, &runs, &failed);
	fprintf(stderr, "    publish before the copy: %u of %u schedules fail\n", failed, runs);
	ASSERT(failed > 0);
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

/* ---- a batch pushed, then stolen by another thread ---- */

/*
 * ring_push_batch (a global batch's surplus going to the stealable ring)
 * must publish its slots, and the tasks written before them, with the tail:
 * a thief that sees the new tail must see what the owner wrote. Each round
 * the owner writes BATCH_TASKS tasks' payloads (plain stores), pushes them
 * in one batch, and waits until a thief has stolen and checked them all;
 * nothing but the ring orders the owner's writes before the thief's reads
 * (the round's handshake runs the other way), so under ThreadSanitizer a
 * tail published with a relaxed store is a data race on the slots, reported
 * whatever the timing. The thief retries until it has every task: no time
 * decides the test.
 */
#define BATCH_ROUNDS 2000u
#define BATCH_TASKS 3u

struct batch_item {
	struct task task;
	uint64_t value;		/* plain: ordered by the ring alone */
};

struct batch_world {
	struct ring *src, *dst;
	struct batch_item items[BATCH_ROUNDS][BATCH_TASKS];
	/* Rounds the thief has finished. Release by the thief, acquire by the
	 * owner: its next round's writes come after the thief's reads. */
	_Atomic uint32_t finished;
};

static void *batch_thief(void *arg)
{
	struct batch_world *w = arg;
	for (uint32_t r = 0; r < BATCH_ROUNDS; r++) {
		uint32_t got = 0;
		while (got < BATCH_TASKS) {
			struct task *first, *t;
			enum steal_outcome why;
			if (!ring_steal_into(w->src, w->dst, RING_STEAL_MAX, &first, &why)) {
				__builtin_ia32_pause();
				continue;
			}
			for (t = first; t; t = ring_pop(w->dst)) {
				struct batch_item *it = (struct batch_item *)t;
				uint32_t i = (uint32_t)(it - w->items[r]);
				if (i >= BATCH_TASKS || it->value != (uint64_t)r * BATCH_TASKS + i + 1)
					TEST_FAIL("round %u: stole a task not of this round's batch", r);
				got++;
			}
		}
		if (got != BATCH_TASKS)
			TEST_FAIL("round %u: %u tasks stolen of %u", r, got, BATCH_TASKS);
		atomic_store_explicit(&w->finished, r + 1, memory_order_release);
	}
	return NULL;
}

static void batch_push_then_steal(void)
{
	struct batch_world *w = calloc(1, sizeof *w);
	ASSERT(w);
	w->src = ring_new();
	w->dst = ring_new();
	atomic_init(&w->finished, 0);
	pthread_t th;
	ASSERT_EQ(pthread_create(&th, NULL, batch_thief, w), 0);
	for (uint32_t r = 0; r < BATCH_ROUNDS; r++) {
		struct task *ts[BATCH_TASKS];
		while (atomic_load_explicit(&w->finished, memory_order_acquire) != r)
			__builtin_ia32_pause();
		for (uint32_t i = 0; i < BATCH_TASKS; i++) {
			w->items[r][i].value = (uint64_t)r * BATCH_TASKS + i + 1;
			ts[i] = &w->items[r][i].task;
		}
		ring_push_batch(w->src, ts, BATCH_TASKS);
	}
	pthread_join(th, NULL);
	ASSERT_EQ(atomic_load(&w->finished), BATCH_ROUNDS);
	ASSERT_EQ(ring_len(w->src), 0);
	ASSERT_EQ(ring_len(w->dst), 0);
	free(w->src);
	free(w->dst);
	free(w);
}

int main(void)
{
	RUN(fifo_order);
	RUN(steal_half_amounts);
	RUN(steal_bounded_by_thief_room_and_max);
	RUN(steal_empty);
	RUN(overflow_moves_129);
	RUN(refuse_during_steal);
	RUN(steal_phases_every_schedule);
	RUN(owner_and_three_thieves);
	RUN(batch_push_then_steal);
	return 0;
}
