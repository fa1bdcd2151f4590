/*
 * touch.h - the simulation's cache and migration model (docs/sim.md): which
 * worker last touched a task's data, and when.
 *
 * The sim engine, with the model on, stamps a task whenever a worker
 * touches it: when it hands it to its policy (a spawn, the wake of a join
 * it completed, a re-poll), when it polls it, and when a child it polled
 * arrives at the task's join (task.cont). A poll then pays the cold start
 * if another worker touched the task last (a steal, a task from the global
 * queue that another worker pushed) or if nobody touched it for cold_after
 * ns (its lines are gone from the cache: a long wait in a FIFO ring or the
 * global queue); a join arrival pays a line transfer if another worker
 * touched the parent last. A task no worker has touched yet (injected from
 * outside, or placed before the run) pays nothing on its first poll.
 *
 * The stamp is the task's 32-bit `touch` word, so the model needs no table
 * beside the tasks: the worker's index + 1 in the low TOUCH_WORKER_BITS
 * (0: no worker yet), the time in 1024 ns units in the rest, modulo 2^20
 * units (about 1.07 s; a task untouched for a multiple of that looks
 * warm). The threads engine never stamps.
 */
#ifndef HARNESS_CORE_TOUCH_H
#define HARNESS_CORE_TOUCH_H

#include <stdint.h>

#define TOUCH_WORKER_BITS 12	/* up to 4095 workers (the CLI allows 1024) */
#define TOUCH_UNIT_SHIFT 10	/* 1024 ns */
#define TOUCH_TIME_MASK ((1u << (32 - TOUCH_WORKER_BITS)) - 1)

static inline uint32_t touch_word(uint32_t worker, uint64_t now_ns)
{
	return (worker + 1) |
	       ((uint32_t)(now_ns >> TOUCH_UNIT_SHIFT) & TOUCH_TIME_MASK) << TOUCH_WORKER_BITS;
}

/* The worker's index + 1, 0 if no worker touched it yet. */
static inline uint32_t touch_who(uint32_t word)
{
	return word & ((1u << TOUCH_WORKER_BITS) - 1);
}

/* ns since the stamp, to 1024 ns (modulo 2^20 units). */
static inline uint64_t touch_age(uint32_t word, uint64_t now_ns)
{
	uint32_t then = word >> TOUCH_WORKER_BITS;
	uint32_t units = ((uint32_t)(now_ns >> TOUCH_UNIT_SHIFT) - then) & TOUCH_TIME_MASK;
	return (uint64_t)units << TOUCH_UNIT_SHIFT;
}

#endif
