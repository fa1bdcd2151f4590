/*
 * haltpoll.h - a virtual machine host's polling of a halted virtual CPU,
 * as KVM does it (virt/kvm/kvm_main.c, kvm_vcpu_halt): the host polls a
 * halted vCPU for the vCPU's window before it schedules the vCPU out, and
 * after each halt adapts the window to it. A halt no longer than the
 * window leaves it as it is; a longer one, if no longer than the maximum
 * (halt_poll_ns), grows it (grow_halt_poll_ns: twice itself, at least
 * halt_poll_ns_grow_start, at most the maximum); one longer than the
 * maximum shrinks a window that is not 0 (shrink_halt_poll_ns: to 0 when
 * halt_poll_ns_shrink is 0, else to that fraction of itself). The sim
 * uses it for its deep notify (core/costs.h, notify_deep): a wake that
 * comes after the window finds the vCPU scheduled out.
 */
#ifndef HARNESS_CORE_HALTPOLL_H
#define HARNESS_CORE_HALTPOLL_H

#include <stdint.h>

/* KVM's halt_poll_ns_grow_start (10 us) and halt_poll_ns_grow (2). */
#define HALT_POLL_GROW_START_NS 10000ull
#define HALT_POLL_GROW 2

/* The window after a halt of `halt` ns, for a maximum `max` and a shrink
 * divisor `shrink` (0: reset). */
static inline uint64_t halt_poll_next(uint64_t window, uint64_t halt, uint64_t max,
				      uint64_t shrink)
{
	if (halt <= window)
		return window;
	if (window && halt > max)
		return shrink ? window / shrink : 0;
	if (window < max && halt <= max) {
		uint64_t v = HALT_POLL_GROW * window;
		v = v < HALT_POLL_GROW_START_NS ? HALT_POLL_GROW_START_NS : v;
		return v > max ? max : v;
	}
	return window;
}

#endif
