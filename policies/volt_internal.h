/*
 * volt_internal.h - Volt's mechanisms, for policies built on it (private to
 * policies/; volt.h is the public side).
 *
 * A policy that extends Volt reuses Volt's knob table and ops as they are
 * and replaces only the victim selection of a steal: its init calls
 * volt_init, then volt_set_steal with its own victim loop, and its vtable
 * names volt_find_work_hooked, which is Volt's find_work with the steal
 * step calling that loop. Volt's own find_work keeps a direct call to its
 * random-victim loop: the two are instances of one inlined body, so Volt
 * pays nothing for the hook, and the hooked variant pays one indirect call
 * on the steal path only (its fast path is Volt's, byte for byte).
 *
 * A replacement victim loop calls volt_steal_begin once (the searcher
 * entry and the "may this worker steal" test), then volt_steal_from for
 * each victim it tries, in its own order.
 */
#ifndef HARNESS_POLICIES_VOLT_INTERNAL_H
#define HARNESS_POLICIES_VOLT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policies/volt.h"

/* Volt's knob table entries, in enum volt_knob order (designated
 * initializers): an extension's table starts with them, so volt_init and
 * volt_check read the same indices, and appends its own after
 * VOLT_NKNOBS. A single-mechanism variant differs in one default. */
#define VOLT_KNOB_ENTRIES(park_default, interval_default, steal_default)                     \
	[VOLT_BUDGET] = { "budget", 128, 1, 65536, true, "task polls per tick" },            \
	[VOLT_LIFO_CAP] = { "lifo_cap", 3, 0, 1e9, true,                                     \
			    "LIFO-slot polls per tick before the slot is flushed to "        \
			    "the ring; 0 disables the slot; >= budget is unbounded" },       \
	[VOLT_PREFETCH] = { "prefetch", 0, 0, 64, true,                                      \
			    "owner-private buffer for a global batch's surplus (the "        \
			    "design's 32); 0 = Volt's code: the surplus goes to the ring" }, \
	[VOLT_BATCH_MIN] = { "batch_min", 4, 1, 256, true,                                   \
			     "lower clamp of a global batch (len/workers)" },                \
	[VOLT_BATCH_MAX] = { "batch_max", 64, 1, 256, true,                                  \
			     "upper clamp of a global batch" },                              \
	[VOLT_INTERVAL] = { "interval", interval_default, 0, 1e9, true,                      \
			    "polls between global-queue checks; 0 = adaptive (EWMA)" },      \
	[VOLT_INTERVAL_MIN] = { "interval_min", 8, 1, 1e9, true,                             \
				"lower clamp of the adaptive interval" },                    \
	[VOLT_INTERVAL_MAX] = { "interval_max", 255, 1, 1e9, true,                           \
				"upper clamp of the adaptive interval" },                    \
	[VOLT_TARGET_NS] = { "target_ns", 1e6, 1, 1e12, false,                               \
			     "target global-queue latency: interval = target / "             \
			     "EWMA poll time" },                                             \
	[VOLT_EWMA_ALPHA] = { "ewma_alpha", 0.1, 0.0001, 1, false,                           \
			      "weight of a new tick's mean poll time" },                     \
	[VOLT_INITIAL_AVG_NS] = { "initial_avg_ns", 50000, 1, 1e12, true,                    \
				  "EWMA seed (50 us gives interval 20)" },                   \
	[VOLT_STEAL_MAX] = { "steal_max", steal_default, 0, 128, true,                       \
			     "most tasks one steal moves (half, capped); 1 = steal "         \
			     "one; 0 = no stealing" },                                       \
	[VOLT_SEARCHER_CAP] = { "searcher_cap", 0.5, 0.001, 1, false,                        \
				"fraction of workers that may search at once (soft)" },      \
	[VOLT_PARK_TIMEOUT_NS] = { "park_timeout_ns", park_default, 0, 1e11, true,           \
				   "longest park before a re-check; 0 = none" },             \
	[VOLT_NOTIFY_LOCAL] = { "notify_local", 0, 0, 1, true,                               \
				"1 = a local push into the ring (a LIFO displacement) wakes "\
				"a parked worker; 0 = Volt's code: never" },                 \
	[VOLT_YIELD_TO_RING] = { "yield_to_ring", 0, 0, 1, true,                             \
				 "1 = a task woken during its own poll goes to the ring's "  \
				 "tail; 0 = Volt's code: the LIFO slot" },                   \
	[VOLT_WAKE] = { "wake", 0, 0, 1, true,                                               \
			"which parked worker a notify wakes: 0 = the lowest in the "         \
			"parked bitmap (Volt); 1 = the most recently parked (Tokio's "       \
			"sleeper stack)" },                                                  \
	[VOLT_FALLBACK_BATCH] = { "fallback_batch", 0, 0, 1, true,                           \
				  "after a failed steal sweep: 0 = Volt's code: one task "   \
				  "under the global lock (nextRemoteTask); 1 = a global "    \
				  "batch (the former harness)" },                            \
	[VOLT_OVERFLOW_BATCH] = { "overflow_batch", 0, 0, 1, true,                           \
				  "a full ring's overflow: 0 = Volt's code: 128 tasks to "   \
				  "the global queue, one lock each, the new task stays in "  \
				  "the ring; 1 = 128 plus the new task under one lock" }

/* Volt's ops (policy.h documents who calls each). */
int volt_check(const struct rt_config *cfg, const double *knobs, char *err, size_t len);
int volt_init(struct runtime *rt);
void volt_destroy(struct runtime *rt);
void volt_schedule_local(struct worker *w, struct task *t, enum sched_kind kind);
void volt_schedule_remote(struct runtime *rt, struct task *t);
uint32_t volt_tick_begin(struct worker *w);
void volt_tick_end(struct worker *w, uint32_t polls, uint64_t elapsed_ns);
bool volt_park(struct worker *w, uint64_t *timeout_ns);
void volt_unparked(struct worker *w, enum park_wake how);
void volt_dump(struct runtime *rt, FILE *f);

/* A victim loop: returns a stolen task (the others it moved are in w's
 * ring) or NULL. Called by the owner of w from find_work's steal step. */
typedef struct task *(*volt_steal_fn)(struct worker *w, void *arg);

/* After volt_init: the steal step of volt_find_work_hooked calls fn(w, arg). */
void volt_set_steal(struct runtime *rt, volt_steal_fn fn, void *arg);
void *volt_steal_arg(const struct runtime *rt);

/* Volt's find_work whose steal step calls the loop set by volt_set_steal. */
struct task *volt_find_work_hooked(struct worker *w);
/* The threads engine's tick with volt_find_work_hooked inlined (policy.h,
 * step). */
enum step volt_step_hooked(struct worker *w, uint64_t *park_timeout_ns);

/* May w steal now? False when stealing is off or w is alone, or when w is
 * not searching and the searcher cap keeps it out; otherwise w is (now)
 * searching. Call once per steal step, before any volt_steal_from. */
bool volt_steal_begin(struct worker *w);

/* One steal attempt on `victim` (never w itself): half of its ring, at most
 * steal_max, with the counters steal_attempts, steals and tasks_stolen. */
struct task *volt_steal_from(struct worker *w, uint32_t victim);

/* check_idle of volt and its extensions: what a phased steal's copy found
 * wrong (exploring: core/ring.h's phases one per simulated step), else
 * rt_idle_check_global. */
const char *volt_check_idle(struct runtime *rt);

/* ---- locality (policies/locality.c): Volt with domain-ordered victims ---- */

extern const struct policy policy_locality;

enum locality_knob {
	LOC_DOMAIN_SIZE = VOLT_NKNOBS,
	LOC_TOPOLOGY,
	LOC_NKNOBS
};

/* Where domains come from (knob `topology`). */
enum locality_topology {
	LOC_TOPO_OFF = 0,	/* domain_size only */
	LOC_TOPO_AUTO = 1,	/* L3 caches, else NUMA nodes, else domain_size */
	LOC_TOPO_NUMA = 2,	/* NUMA nodes, else domain_size */
};

/* Which machine structure groups CPUs (locality_cpu_domains). */
enum locality_level { LOC_LEVEL_L3, LOC_LEVEL_NODE };

/*
 * The domain of each online CPU, read from a sysfs tree rooted at `root`
 * ("/sys/devices/system"): dom[j] for the j-th CPU of cpu/online, numbered
 * 0, 1, ... in order of first appearance. Returns the number of CPUs
 * filled (at most max), or -1 if the tree does not say.
 */
int locality_cpu_domains(const char *root, enum locality_level level, uint32_t *dom,
			 uint32_t max);

/* The domain of worker i, and how many domains the runtime has. */
uint32_t locality_domain_of(const struct runtime *rt, uint32_t worker);
uint32_t locality_domain_count(const struct runtime *rt);

#endif
