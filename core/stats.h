/*
 * stats.h - per-worker counters. Each worker writes only its own, with
 * plain increments (owner-private cache lines); the harness reads them after
 * the worker threads are joined. The X-macro keeps the struct, the JSON
 * writer and the summary printer in step.
 */
#ifndef HARNESS_CORE_STATS_H
#define HARNESS_CORE_STATS_H

#include <stdint.h>

#define WORKER_COUNTERS(X)                                                   \
	X(polls, "task polls")                                               \
	X(lifo_polls, "polls of a task taken from the LIFO slot")            \
	X(local_pops, "tasks popped from the own ring")                     \
	X(local_pushes, "tasks pushed into the own ring")                   \
	X(runnext_polls, "polls of a task taken from a runnext slot")        \
	X(interval_checks, "periodic global-queue checks (interval reached)")\
	X(global_batches, "batches taken from the global queue")             \
	X(global_tasks, "tasks taken from the global queue")                 \
	X(steal_attempts, "steal attempts on a victim")                      \
	X(steals, "successful steals")                                       \
	X(tasks_stolen, "tasks moved by successful steals")                  \
	X(steals_remote, "successful steals from another locality domain")  \
	X(overflows, "ring overflows to the global queue")                   \
	X(overflow_tasks, "tasks moved by overflows")                        \
	X(overflow_locks, "global-queue lock acquisitions of overflows")     \
	X(parks, "times the worker parked")                                  \
	X(unparks_notify, "wake-ups by a notify (claimed)")                  \
	X(unparks_timeout, "wake-ups by the park timeout")                   \
	X(unparks_spurious, "wake-ups by a stale permit")                    \
	X(notifies, "notifies sent (a parked worker claimed)")               \
	X(searcher_enter, "transitions into the searching state")            \
	X(last_searcher_notifies, "notifies sent as the last searcher")      \
	X(spawns, "tasks spawned by this worker")                            \
	X(completions, "tasks completed on this worker")                     \
	X(repolls, "tasks re-polled after a wake during their poll")         \
	X(ticks, "scheduler ticks")                                          \
	X(busy_ns, "ns inside ticks that polled at least one task")

/*
 * The simulation's cache and migration model (core/costs.h): what it
 * charged, counted only by the sim with the model on, and written to a
 * result only then (its "sim_model" counters), so that every other
 * result keeps its form. The last two are counted by every engine and
 * used by the sim's charges whether the model is on or not (the notifies
 * and parks that cost no system call, core/costs.h); they are written
 * with the model's.
 */
#define SIM_MODEL_COUNTERS(X)                                                            \
	X(cold_migrated, "polls of a task another worker touched last (cold_start)")     \
	X(cold_aged, "polls of a task untouched for cold_after ns (cold_start)")          \
	X(remote_joins, "join arrivals on a parent another worker touched last (line_transfer)") \
	X(remote_locks, "takings of the global queue's lock, or of the task list's (cost.task_list), after another worker's (lock_transfer)") \
	X(lock_waits, "holds of the global queue's or the task list's lock that waited for another worker's hold or transfer (lock_wait)") \
	X(sema_takings, "takings of a root of Go's semaphore table, at a join's wait and at the arrival that ends it (cost.sema_table)") \
	X(remote_semas, "takings of a semaphore root after another worker's (lock_transfer)") \
	X(remote_rmws, "read-modify-writes of the policy's shared word expected to follow another worker's (line_transfer, contended)") \
	X(fresh_spawns, "first polls of tasks spawned past the run's high-water mark of tasks spawned or injected and not completed, on the worker that polled them (spawn_fresh)") \
	X(deep_notifies, "unparks of a worker whose CPU the host had scheduled out (notify_deep)") \
	X(awake_notifies, "notifies that found their worker awake or already woken: a permit, no wake (no notify charged)") \
	X(permit_parks, "parks that took a waiting permit and did not sleep (no park charged)")

struct worker_stats {
#define X(name, help) uint64_t name;
	WORKER_COUNTERS(X)
	SIM_MODEL_COUNTERS(X)
#undef X
};

static inline void worker_stats_add(struct worker_stats *dst, const struct worker_stats *src)
{
#define X(name, help) dst->name += src->name;
	WORKER_COUNTERS(X)
	SIM_MODEL_COUNTERS(X)
#undef X
}

#endif
