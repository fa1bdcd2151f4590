/*
 * engine.h - what drives the workers.
 *
 * Worker, policy and workload code never read a clock, block or sleep on
 * their own: they reach time, unparking and "consume N ns of compute" only
 * through these ops, and parking happens outside the worker step (the step
 * returns STEP_PARK and the engine decides what waiting means). The threads
 * engine runs one pthread per worker with a real clock and futexes; a
 * simulation engine can run the same code in virtual time.
 */
#ifndef HARNESS_CORE_ENGINE_H
#define HARNESS_CORE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

struct runtime;
struct worker;
struct engine;
struct task;

/* A park timeout meaning "until unparked". */
#define PARK_FOREVER UINT64_MAX

enum park_wake {
	PARK_WOKEN = 0,		/* an unpark arrived (now or before the park) */
	PARK_TIMEOUT,		/* the timeout expired first */
};

struct engine_ops {
	const char *name;
	/* Every worker's step runs on one thread (a simulation engine), so
	 * state that only its owner writes may be shared among workers. */
	bool one_thread;
	/* Monotonic time in ns. Any thread; `w` is the calling worker or
	 * NULL outside a worker. */
	uint64_t (*now)(struct engine *e, struct worker *w);
	/* Make worker `id` return from its park, or from its next park if it
	 * is not parked now (a permit). Any thread; never blocks. Returns
	 * whether it woke a sleeping worker (on threads, a futex wake); false
	 * for a permit left to a worker awake or already woken. */
	bool (*unpark)(struct engine *e, uint32_t id);
	/* Spend `ns` of compute on behalf of the task running on `w` (the
	 * threads engine spins, repaying time the OS took from earlier spins;
	 * a simulation engine charges virtual time). */
	void (*compute)(struct engine *e, struct worker *w, uint64_t ns);
	/* Give up the CPU for a moment on behalf of idle worker `w` (a policy
	 * whose idle rounds yield, as rayon's do): the threads engine calls
	 * sched_yield, a simulation engine charges one idle step. Owner
	 * thread; optional (NULL: nothing happens). */
	void (*yield)(struct engine *e, struct worker *w);
	/* Worker `w` is about to poll `t`: an engine that runs a whole step
	 * at once (the simulation) lets the worker's clock reach the time t
	 * became runnable (t->ready_ns, stamped at its schedule), and returns
	 * the ns it waited; those are idle, not the tick's. Owner thread;
	 * optional (NULL: the engine's clocks are causal already). */
	uint64_t (*await_ready)(struct engine *e, struct worker *w, const struct task *t);
	/* The latest stamp (t->ready_ns) of a task that worker `w`, stepping
	 * now, may steal: an engine that places a whole step in the queues at
	 * once (the simulation) holds tasks that a step made later in virtual
	 * time than a thief's own clock, which a real thief would not find
	 * yet (docs/sim.md, "Time within a step"). Owner thread; optional
	 * (NULL: every queued task is there, rt_steal_horizon's UINT64_MAX). */
	uint64_t (*horizon)(struct engine *e, struct worker *w);
	/*
	 * Harness thread: call rt->place(rt, rt->place_arg) if set, before any
	 * worker runs (it may put tasks on workers with rt_place), start the
	 * runtime's workers, record rt->start_ns, call start(rt, arg) (which
	 * injects the root tasks), return
	 * when the runtime has finished and its workers have stopped.
	 * Returns 0 or -errno: -ETIMEDOUT if the watchdog (rt_config's
	 * watchdog_ns) stopped a stalled run (a stall report was written),
	 * -EDEADLK if it could not even stop the workers (the runtime must
	 * then be leaked, not destroyed), -EPROTO if the simulation engine,
	 * exploring, found the policy's idle invariant broken (rt->violation
	 * says how).
	 */
	int (*run)(struct engine *e, struct runtime *rt,
		   void (*start)(struct runtime *rt, void *arg), void *arg);
	/* The runtime finished (rt_finish): stop the workers. Any thread. */
	void (*finish)(struct engine *e, struct runtime *rt);
	void (*destroy)(struct engine *e);
};

struct engine {
	const struct engine_ops *ops;
};

/* The threads engine: one pthread per worker, the TSC or CLOCK_MONOTONIC,
 * futex park. */
struct engine *engine_threads_create(uint32_t nworkers);
/* How many of the threads engine's workers are committed to sleep now:
 * past their policy's last look, in (or entering) the futex wait. For a
 * test's probe that waits for every worker to be asleep; any thread. */
uint32_t engine_threads_sleeping(const struct engine *e);

struct sim_costs;
/* The simulation engine (engine_sim.c): virtual workers in virtual time,
 * deterministic for a seed. costs NULL: the defaults. explore_seed
 * perturbs tie-breaking (0 for the plain run). */
struct engine *engine_sim_create(uint32_t nworkers, const struct sim_costs *costs,
				 uint64_t explore_seed);
/* Worker steps (polls and tick ends) the last sim run took. */
uint64_t engine_sim_steps(const struct engine *e);
/* Worker id's virtual clock where the last sim run left it (its exit). */
uint64_t engine_sim_clock(const struct engine *e, uint32_t id);
/* Polls of the last run that waited for their task's stamp (engine_sim.c
 * sim_await_ready): tasks taken before the step that made them reached
 * them in virtual time. */
uint64_t engine_sim_waits(const struct engine *e);

#endif
