/* lock.c - the contended side of the global queue's mutex (lock.h). */
#include "lock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void hlock_lock_slow(struct hlock *l)
{
	/* Mark the lock contended and take it if it came free meanwhile; else
	 * sleep while it stays held and contended. A wake-up swaps 2 in again,
	 * because other sleepers may remain. Acquire as in hlock_lock. */
	while (atomic_exchange_explicit(&l->v, 2, memory_order_acquire) != 0)
		syscall(SYS_futex, (uint32_t *)&l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void hlock_wake(struct hlock *l)
{
	syscall(SYS_futex, (uint32_t *)&l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
