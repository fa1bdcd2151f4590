/*
 * deque.c - the cold paths of the Chase-Lev deque: buffers, growth, steal.
 * The protocol and its orderings are described in deque.h.
 */
#include "deque.h"

#include <stdlib.h>

static struct deque_buf *buf_new(int64_t cap)
{
	struct deque_buf *a = malloc(sizeof *a + (size_t)cap * sizeof a->slot[0]);
	CHECK_MSG(a, "out of memory for a %lld-slot deque buffer", (long long)cap);
	a->mask = cap - 1;
	a->retired_next = NULL;
	for (int64_t i = 0; i < cap; i++)
		atomic_init(&a->slot[i], NULL);
	return a;
}

void deque_init(struct deque *d)
{
	atomic_init(&d->top, 0);
	atomic_init(&d->bottom, 0);
	atomic_init(&d->buf, buf_new(DEQUE_MIN_CAP));
	d->retired = NULL;
	d->grows = 0;
#ifdef DEQUE_TSAN
	atomic_init(&d->tsan_fence, 0);
#endif
}

void deque_destroy(struct deque *d)
{
	free(atomic_load_explicit(&d->buf, memory_order_relaxed));
	atomic_store_explicit(&d->buf, NULL, memory_order_relaxed);
	while (d->retired) {
		struct deque_buf *next = d->retired->retired_next;
		free(d->retired);
		d->retired = next;
	}
}

struct deque_buf *deque_grow(struct deque *d, int64_t top, int64_t bottom)
{
	struct deque_buf *old = atomic_load_explicit(&d->buf, memory_order_relaxed);
	int64_t cap = (old->mask + 1) * 2;
	CHECK(bottom - top < cap);
	struct deque_buf *a = buf_new(cap);
	/*
	 * Copy what may still be taken. Thieves may take some of [top, bottom)
	 * meanwhile; they read the old buffer or, once they see the new one,
	 * the copy, and both hold the same task for a given index. Slots below
	 * `top` are gone already: a thief with a stale top fails its CAS.
	 */
	for (int64_t i = top; i < bottom; i++)
		atomic_store_explicit(&a->slot[i & a->mask],
				      atomic_load_explicit(&old->slot[i & old->mask],
							   memory_order_relaxed),
				      memory_order_relaxed);
	/* Thieves holding `old` keep reading it: keep it until destroy. */
	old->retired_next = d->retired;
	d->retired = old;
	d->grows++;
	/* Release: the copied slots are visible to a thief whose acquire
	 * load of buf returns `a`. */
	atomic_store_explicit(&d->buf, a, memory_order_release);
	return a;
}

enum deque_steal deque_steal(struct deque *d, struct task **out)
{
	return deque_steal_before(d, out, UINT64_MAX);
}

enum deque_steal deque_steal_before(struct deque *d, struct task **out, uint64_t horizon)
{
	/* Acquire pairs with the CAS that wrote this top (it ordered that
	 * thief's slot read, which matters to the owner, not to us) and keeps
	 * the loads below after this one. */
	int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
	/* Store-buffering pair with deque_pop's fence (deque.h). */
	deque_fence_sc(d);
	/* Acquire pairs with the push's release fence (or release store under
	 * TSan): the slots below this bottom, and the buffer they are in. */
	int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
	if (b - t <= 0)
		return DEQUE_EMPTY;
	/* After bottom: a task pushed after a growth is seen in the new
	 * buffer (acquire pairs with deque_grow's release). */
	struct deque_buf *a = atomic_load_explicit(&d->buf, memory_order_acquire);
	struct task *x = atomic_load_explicit(&a->slot[t & a->mask], memory_order_relaxed);
	/* Not there yet at the thief's time (deque.h): a plain read of the
	 * task, made only by the one-thread simulation engine (horizon below
	 * UINT64_MAX), where no owner or thief runs between these loads. */
	if (__builtin_expect(horizon != UINT64_MAX, 0) && x->ready_ns > horizon)
		return DEQUE_EMPTY;
	/* Claim index t. Races with other thieves and with the owner's CAS on
	 * the last task; seq_cst as in Le et al. (the release half orders our
	 * slot read before the owner's reuse of the slot, see deque_push). */
	if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
						     memory_order_relaxed))
		return DEQUE_RETRY;
	*out = x;
	return DEQUE_STOLEN;
}

int64_t deque_retired_slots(const struct deque *d)
{
	int64_t n = 0;
	for (const struct deque_buf *a = d->retired; a; a = a->retired_next)
		n += a->mask + 1;
	return n;
}
