/*
 * lock.h - a small mutex for the global queue: one word, a CAS to take it
 * and an exchange to release it when nobody waits, a futex otherwise
 * (the three-state mutex of Drepper, "Futexes Are Tricky", 2011, mutex 2).
 *
 *   0  free
 *   1  held, nobody waiting
 *   2  held, and somebody may be waiting in the kernel
 *
 * Lock: CAS 0 -> 1; if that fails, spin a little (up to HLOCK_SPIN reads
 * while the word is 1) and take it as uncontended if it came free, else
 * swap in 2 and sleep on the word while the swap returns non-zero, spinning
 * again after each wake-up. Unlock: swap in 0; if the old value was 2,
 * wake one sleeper. It is Rust std's futex mutex (library/std/src/sys/
 * sync/mutex/futex.rs, under tokio's inject queue), which spins 100 rounds
 * before it sleeps; Go's runtime lock under sched.lock (runtime/
 * lock_futex.go, `lock2`, Linux's before Go 1.24) spins 4 rounds of 30
 * pauses and yields once (docs/policies.md). Without the spin, every
 * taking that met the other worker's went to the kernel: central-queue's
 * fib(30) on 2 workers made 1.2 to 1.6 million futex calls per trial and
 * spent as long in the kernel as in its own code; with it, 0.5 to 0.8
 * million (and fib(27)'s workers 2 to 8% of their time in the kernel).
 * Not fair; the uncontended pair costs a few instructions instead of a
 * call each way through the pthread layer, which at one lock per task
 * (central-queue) or per schedule (go's wakep) was a large part of the
 * per-task cost.
 */
#ifndef HARNESS_CORE_LOCK_H
#define HARNESS_CORE_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct hlock {
	_Atomic uint32_t v;
};

/* Pauses while the word reads 1 before sleeping (Rust std's figure; what
 * they add up to depends on the CPU's PAUSE, from well under a microsecond
 * to a few). */
#define HLOCK_SPIN 100

#define HLOCK_INIT { 0 }

static inline void hlock_init(struct hlock *l)
{
	atomic_init(&l->v, 0);
}

void hlock_lock_slow(struct hlock *l);
void hlock_wake(struct hlock *l);

static inline void hlock_lock(struct hlock *l)
{
	uint32_t c = 0;
	/* Acquire pairs with the release in hlock_unlock: the previous
	 * holder's writes under the lock are visible to this one. */
	if (__builtin_expect(atomic_compare_exchange_strong_explicit(&l->v, &c, 1,
								     memory_order_acquire,
								     memory_order_relaxed), 1))
		return;
	hlock_lock_slow(l);
}

/* Does the word read 2: held, and marked that somebody may sleep on it?
 * For a holder with no other thread after the lock, that says whether it
 * took the lock by the contended path (the exchange to 2, after which it
 * may have slept in the kernel) or by a CAS from 0. Relaxed: a look at the
 * word, ordering nothing. */
static inline bool hlock_marked(struct hlock *l)
{
	return atomic_load_explicit(&l->v, memory_order_relaxed) == 2;
}

static inline void hlock_unlock(struct hlock *l)
{
	/* Release pairs with the next holder's acquire (CAS or exchange). */
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 0, memory_order_release) == 2, 0))
		hlock_wake(l);
}

#endif
