/*
 * tokio_broken.c - kept for tests: tokio whose driver holder is not the
 * runtime's timekeeper (issue 10's start-up stall put back on purpose).
 *
 * The first worker to park takes the driver as in tokio.c, but the role is
 * recorded where rt_wake_timekeeper does not look. A holder that parked
 * before any event existed (before an I/O source started) sleeps without
 * a timeout, and neither the source's start nor a new earliest timer
 * unparks it; a remote schedule's notify wakes the top of the sleeper
 * stack, which need not be the holder. Once every worker sleeps, nobody
 * polls the I/O source again. The simulation engine finds it with
 * --explore: it interleaves the workload's start with the workers' first
 * steps and, exploring, delivers I/O only through the workers' own polls
 * (docs/sim.md). At 2 workers the start cannot strand the holder (the
 * worker the start wakes notifies it as the last searcher); the same
 * defect stalls there when the holder parks with no event left and the
 * other worker's poll then sets an I/O timer, which the sim reaches by
 * taking a task in one step and polling it in the next.
 */
#include "policies/tokio_internal.h"

static int tokio_broken_init(struct runtime *rt)
{
	int rc = tokio_init(rt);
	if (rc == 0)
		tokio_hide_driver(rt);
	return rc;
}

const struct policy policy_tokio_broken = {
	.name = "tokio-broken",
	.summary = "kept for tests: tokio whose driver holder is not the timekeeper, so an "
		   "event source that starts later never wakes it (a start-up stall on purpose)",
	.test_only = true,
	.knobs = tokio_knobs,
	.nknobs = TOKIO_NKNOBS,
	.knob_names = tokio_names,
	.check = tokio_check,
	.init = tokio_broken_init,
	.destroy = tokio_destroy,
	.schedule_local = tokio_schedule_local,
	.schedule_remote = tokio_schedule_remote,
	.own_maintenance = true,
	.tick_begin = tokio_tick_begin,
	.find_work = tokio_find_work,
	.tick_end = tokio_tick_end,
	.park = tokio_park,
	.unparked = tokio_unparked,
	.idle_state = tokio_idle_state,
	.check_idle = tokio_check_idle,
	.dump = tokio_dump,
};
