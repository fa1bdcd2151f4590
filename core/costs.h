/*
 * costs.h - the simulation engine's cost model: what each mechanism costs
 * in virtual nanoseconds. Every mechanism is charged through the per-worker
 * counter it already bumps (polls, pushes, pops, global batches, steal
 * attempts, tasks moved, parks, notifies), so a policy needs no code for
 * the simulator. Workload compute is charged what rt_compute declares.
 *
 * The defaults are round figures of the order measured on a current x86
 * core (`harness --calibrate` measures them on this machine); --set
 * cost.NAME=ns overrides one, --costs FILE loads a file of NAME = ns lines.
 */
#ifndef HARNESS_CORE_COSTS_H
#define HARNESS_CORE_COSTS_H

#include <stddef.h>
#include <stdint.h>

#define SIM_COSTS(X)                                                                  \
	X(poll, 20, "a task poll: dispatch and state transitions")                    \
	X(spawn, 10, "creating a task and handing it to the policy")                   \
	X(local_push, 3, "a push into a worker's own queue")                           \
	X(local_pop, 6, "a pop from a worker's own queue (a CAS)")                     \
	X(lifo, 2, "taking the LIFO slot or runnext")                                  \
	X(global_lock, 40, "holding the global-queue lock for one batch or overflow")  \
	X(global_task, 4, "moving one task to or from the global queue")               \
	X(steal_attempt, 40, "one steal attempt on a victim (its queue line misses)")  \
	X(steal_task, 4, "moving one stolen task")                                     \
	X(notify, 150, "waking a parked worker, on the waker's side (a futex wake)")   \
	X(park, 400, "going to sleep (a futex wait)")                                  \
	X(wake_latency, 5000, "from an unpark to the woken worker running")            \
	X(idle_step, 100, "a tick that found nothing and did not park; also each yield of an idle round") \
	X(io_delay, 0, "from an I/O event's due time to its delivery (0: on time)")

struct sim_costs {
#define X(name, def, help) uint64_t name;
	SIM_COSTS(X)
#undef X
};

void sim_costs_default(struct sim_costs *c);
/* Set cost `name` (without the "cost." prefix); -1 if there is no such cost. */
int sim_costs_set(struct sim_costs *c, const char *name, uint64_t ns);
/* "a, b, c": the valid names, for error messages. */
void sim_costs_names(char *buf, size_t len);
/*
 * The largest cost accepted, 10 ms per operation (the default wake latency
 * is 5 us): a run's virtual clock is a 64-bit count of ns, and at this
 * bound it takes more than 10^12 operations to wrap it. Larger figures are
 * not costs of a scheduler mechanism but typos.
 */
#define SIM_COST_MAX_NS 10000000ull
/* The largest cost file read (a calibrated one is about 2 KB). */
#define SIM_COSTS_FILE_MAX 65536

/* A cost as typed: decimal digits only, at most SIM_COST_MAX_NS. 0 or -1. */
int sim_cost_parse(const char *text, uint64_t *out);
/*
 * Load NAME = ns lines ('#' starts a comment, lines of any length) over
 * the current values. Refuses, with the line number where there is one: a
 * directory, an empty file, a file over SIM_COSTS_FILE_MAX bytes (so
 * /dev/zero is read no further), a NUL byte, a file without a cost, an
 * unknown or repeated name, and a value that sim_cost_parse refuses.
 * 0, or -1 with one line in err.
 */
int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t len);

#endif
