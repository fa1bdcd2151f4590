/* lock.c - the contended side of the global queue's mutex (lock.h). */
#include "lock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Wait a little for a holder that nobody waits behind to let go: loads of
 * the word while it reads 1, with up to HLOCK_SPIN pauses between them.
 * Returns the last value read. Relaxed: a read to decide whether to try,
 * the CAS or exchange that follows does the acquiring. (Rust std's futex
 * mutex, library/std/src/sys/sync/mutex/futex.rs, `spin`: 100 rounds of
 * spin_loop while the state is LOCKED.) */
static uint32_t spin(struct hlock *l)
{
	uint32_t v;
	for (int i = 0;; i++) {
		v = atomic_load_explicit(&l->v, memory_order_relaxed);
		if (v != 1 || i == HLOCK_SPIN)
			return v;
		__builtin_ia32_pause();
	}
}

void hlock_lock_slow(struct hlock *l)
{
	/* Spin first: a holder in the middle of a short critical section
	 * is usually out by the time a trip through the kernel would have
	 * begun. Free then: take it as uncontended (CAS 0 -> 1, acquire as in
	 * hlock_lock), so that its release need not wake anybody. (Rust std,
	 * futex.rs `lock_contended`; Go's runtime lock, lock_futex.go
	 * `lock2`, spins likewise before it sleeps.) */
	uint32_t v = spin(l);
	if (v == 0) {
		uint32_t c = 0;
		if (atomic_compare_exchange_strong_explicit(&l->v, &c, 1, memory_order_acquire,
							    memory_order_relaxed))
			return;
		v = c;
	}
	for (;;) {
		/* Mark the lock contended and take it if it came free
		 * meanwhile (acquire as in hlock_lock); else sleep while it
		 * stays held and contended. Not written when already 2, to
		 * leave the line shared with the other waiters. The kernel
		 * sleeps only if the word still reads 2, which closes the race
		 * with a release between the read and the sleep (the release's
		 * exchange to 0 is seen, or its wake finds us asleep). A
		 * wake-up spins again, then swaps 2 in unless it reads 2 (other
		 * sleepers may remain, so it takes the lock marked). */
		if (v != 2 && atomic_exchange_explicit(&l->v, 2, memory_order_acquire) == 0)
			return;
		syscall(SYS_futex, (uint32_t *)&l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		v = spin(l);
	}
}

void hlock_wake(struct hlock *l)
{
	syscall(SYS_futex, (uint32_t *)&l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
