/*
 * workload.h - the workload contract.
 *
 * A workload builds tasks and load, knows its own answer and checks it.
 * One `const struct workload` per file, with a parameter table. The harness
 * drives every workload the same way, per trial:
 *
 *   inst = create(params, workers, seed)   untimed: allocate, precompute
 *   place(inst, rt)                         untimed, optional: tasks put on
 *                                           chosen workers before they run
 *   start(inst, rt)                         timed: spawn the roots (remote)
 *   ... workers run; some task calls rt_finish() when the work is done ...
 *   verify(inst)                            untimed: wrong answer = failure
 *   destroy(inst)
 *
 * and the sequential baseline the same way with run_sequential() in the
 * timed region, so every parallel figure has its denominator.
 *
 * Workload code runs inside task polls: it may call rt_spawn, rt_wake,
 * rt_finish and rt_compute, and must not read a clock or block.
 */
#ifndef HARNESS_WORKLOADS_WORKLOAD_H
#define HARNESS_WORKLOADS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/knob.h"
#include "core/runtime.h"

/* A named figure a workload reports about its run (node count, depth...). */
struct wl_metric {
	const char *name;
	double value;
};

#define WL_MAX_METRICS 16

struct workload {
	const char *name;
	const char *summary;
	const struct knob_def *params;
	size_t nparams;
	/* Names of enumerated parameters' values (knob.h), { NULL } ended; optional. */
	const struct knob_enum *param_names;
	/* Default scheduling-delay sampling: 1 in N local schedules (power of
	 * two). Fine-grained fork-join samples sparsely so that clock reads
	 * stay out of the figures. */
	uint32_t sample_period;
	/* "name=value" settings (NULL-terminated) for a run of well under a
	 * second, used by test suites that run every policy on it. */
	const char *const *quick_params;
	/* Its own work comes with each child it makes rather than with each
	 * poll (UTS hashes a child's state before spawning it): the sim
	 * charges work.NAME per spawn, and the calibration fits it so. */
	bool work_per_spawn;

	/*
	 * Rewrite params into what create() will run (a named preset into the
	 * raw parameters it stands for), so that headers and result files
	 * record the computation itself. given[i] says whether params[i] was
	 * set on the command line; a parameter the rewrite would override is
	 * refused (one line in err, -EINVAL) rather than silently ignored.
	 * Harness thread, after parsing, before check. Optional.
	 */
	int (*resolve)(double *params, const bool *given, char *err, size_t len);
	/* Reject parameter combinations (one line in err). Optional. */
	int (*check)(const double *params, char *err, size_t len);
	/* Untimed. NULL on allocation failure. */
	void *(*create)(const double *params, uint32_t workers, uint64_t seed);
	/* Untimed, harness thread, before any worker runs: put tasks on
	 * chosen workers with rt_place. Optional. */
	void (*place)(void *inst, struct runtime *rt);
	/* Timed, harness thread: inject the root task(s) with rt_spawn_remote. */
	void (*start)(void *inst, struct runtime *rt);
	/* Timed: the same computation with plain calls, no runtime. */
	void (*run_sequential)(void *inst);
	/* Untimed, after either kind of run: 0 if the answer is right, else -1
	 * and a one-line reason. */
	int (*verify)(void *inst, char *err, size_t len);
	/* Tasks the last run polled to completion (ns per task divides by it). */
	uint64_t (*tasks)(void *inst);
	/*
	 * End-to-end latencies of the last parallel run, one per request in ns
	 * (intended arrival to completion), for workloads made of requests.
	 * Each request writes its own slot while the run goes on (no sharing,
	 * no allocation); the driver builds the histogram afterwards. Optional.
	 */
	size_t (*latencies)(void *inst, const uint64_t **out);
	/* Figures about the last run. Optional; returns how many were written. */
	size_t (*metrics)(void *inst, struct wl_metric *out, size_t max);
	void (*destroy)(void *inst);
};

extern const struct workload *const workload_table[];
const struct workload *workload_find(const char *name);
size_t workload_count(void);

#endif
