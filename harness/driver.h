/*
 * driver.h - one measured configuration: a (policy, workload) pair with its
 * resolved knobs and parameters, run as a sequential baseline and as
 * parallel trials on the threads engine, in one seed-shuffled order.
 */
#ifndef HARNESS_DRIVER_H
#define HARNESS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hist.h"
#include "core/costs.h"
#include "core/pctci.h"
#include "harness/noise.h"
#include "core/stats.h"
#include "workloads/workload.h"

struct policy;

struct run_config {
	const struct policy *policy;
	const char *name;		/* the variant's name, e.g. volt[lifo_cap=0] */
	const struct workload *wl;
	const double *knobs;		/* [policy->nknobs], resolved */
	const double *params;		/* [wl->nparams], resolved */
	uint32_t workers;
	uint32_t trials, warmup;
	/* --trials auto (ci_target > 0, a fraction): at least trials_min
	 * measured trials, then more until the median makespan's 95% interval
	 * is within +-ci_target of it, at most `trials` (docs/measuring.md). */
	uint32_t trials_min;
	double ci_target;
	/* --trials-time: no further round once this many seconds of wall
	 * time have passed since the run began (0: no limit). */
	double trials_time_s;
	uint64_t seed;			/* trial i runs with seed + i */
	uint32_t sample_period;
	int hist_digits;
	uint64_t watchdog_ns;		/* 0 = off */
	bool baseline;
	bool sim;			/* the simulation engine, not threads */
	bool real;			/* the real runtime, through its peer (harness/real.h) */
	bool quiet;			/* no progress lines on stderr */
	bool explore;			/* sim: check invariants after every step */
	const char *trace_path;		/* --trace: the first measured trial's timeline */
	FILE *trace_file;		/* ... written here (an open outfile), or NULL */
	uint32_t trace_events;		/* per worker */
	uint64_t explore_seed;		/* sim: perturbs tie-breaking; 0 = none */
	const struct sim_costs *costs;	/* sim only */
	const char *costs_file;		/* sim: the cost file read (--costs), or NULL */
	double costs_age_s;		/* ... its age when read */
	const int32_t *cpus;		/* threads: [workers] CPU per worker (-1 none), or NULL */
	enum noise_mode noise_mode;	/* --noise: what a trial flagged noisy does */
	double c2c_lo, c2c_hi;		/* threads: --c2c-band in ns; c2c_hi 0 = none */
	double speed_lo, speed_hi;	/* threads: --speed-band in ns; speed_hi 0 = none */
};

struct baseline_trial {
	uint64_t ns, tasks;
	double ns_per_task;
};

struct trial_metric {
	char name[48];
	double value;
};

/*
 * Where the workers' CPU went in one trial (struct worker_cpu,
 * docs/results.md "cpu"): per worker, and the process's own beside it.
 */
struct trial_cpu {
	bool measured;			/* threads or sim (not the real engine) */
	struct worker_cpu *w;		/* [workers] */
	/* Threads: the process's user + system time (getrusage RUSAGE_SELF)
	 * over the engine's run, worker threads' start and exit included, so
	 * that it holds every worker's cpu_ns; NAN on the sim. */
	double process_ns;
	uint64_t wakes_polled, wakes_empty;	/* struct worker's, summed */
	/* The workers' awake_notifies and permit_parks (core/stats.h), summed:
	 * the notifies and parks that made no system call, on either engine. */
	uint64_t awake_notifies, permit_parks;
};

struct trial {
	uint64_t makespan_ns, tasks;
	/* sim: T_inf of the graph the trial ran (core/span.h), has_span false
	 * where there is none (threads, real, an aborted run) */
	uint64_t span_ns;
	bool has_span;
	double tasks_per_s, ns_per_task;
	double overhead_ns_per_task;	/* NAN without a baseline */
	double util_total;
	double *util;			/* [workers] busy_ns / makespan */
	struct worker_stats *ws;	/* [workers] */
	/* --engine=real: the counters the runtime reported, a bit per field
	 * of struct worker_stats (its byte offset / 8); the others are 0
	 * because nothing counted them (harness/real.c). */
	uint64_t reported;
	struct trial_metric metrics[WL_MAX_METRICS];
	size_t nmetrics;
	/* This trial's own percentiles (core/pctci.h levels): the batches of
	 * the intervals. sched_samples and e2e_samples count what they are
	 * taken from. */
	double sched_pct[PCT_LEVELS], e2e_pct[PCT_LEVELS];
	uint64_t sched_samples, e2e_samples;
	struct trial_noise noise;	/* threads engine: what the machine did */
	struct trial_cpu cpu;
	/* From cpu (NAN where not measured): every worker's cpu_ns over the
	 * tasks; the CPU not running tasks (cpu_ns - task_ns) over workers x
	 * makespan; all of it over the makespan (cores' worth in use). */
	double cpu_per_task_ns, idle_cpu, cpu_cores;
	int tukey;			/* makespan's Tukey class (tukey_class_name) */
	uint32_t order;			/* place in the process's shuffled run order */
};

/*
 * Medians over the measured trials, each field taken independently (so the
 * median tasks_per_s need not be the reciprocal of the median ns_per_task
 * when the trial count is even). The list drives the struct, the driver and
 * the writers (`key` is the name in the result file).
 */
#define RUN_MEDIANS(X)                                                       \
	X(makespan_ns, "makespan_ns")                                        \
	X(tasks_per_s, "tasks_per_s")                                        \
	X(ns_per_task, "ns_per_task")                                        \
	X(overhead_ns_per_task, "overhead_ns_per_task")                      \
	X(util_total, "utilization_total")                                   \
	X(cpu_per_task_ns, "cpu_per_task_ns")                                \
	X(idle_cpu, "idle_cpu")                                              \
	X(cpu_cores, "cpu_cores")

struct run_medians {
#define X(field, key) double field;
	RUN_MEDIANS(X)
#undef X
};

struct run_result {
	uint32_t ntrials, nworkers;		/* ntrials: measured (--trials auto: as needed) */
	uint32_t nbaseline;			/* baseline trials (--trials auto: trials_min) */
	struct baseline_trial *baseline;	/* [nbaseline], NULL without baseline */
	double baseline_median_ns_per_task;	/* NAN without baseline */
	struct trial *trials;			/* [trials] */
	struct run_medians median;
	struct worker_stats total;		/* all workers, all measured trials */
	struct worker_stats *per_worker;	/* [workers], all measured trials */
	struct hist sched_delay;		/* merged over workers and trials */
	bool has_end_to_end;			/* the workload reports request latencies */
	char peer_version[32];			/* --engine=real: the runtime's version */
	uint64_t reported;			/* --engine=real: its trials' `reported` */
	bool trace_written;
	struct hist end_to_end;			/* every request of every measured trial */
	/* Wake latency: from an unpark to the start of the woken worker's
	 * first tick that polls a task, every worker, every measured trial. */
	struct hist wake_latency;
	/* 95% intervals of the percentiles of both histograms (core/pctci.h). */
	struct pct_ci sched_ci, e2e_ci;
	/* A one-trial run of requests: the percentiles of PCT_CI_SLICES
	 * consecutive slices of its recorded requests (nslices 0 otherwise). */
	double slices[PCT_CI_SLICES][PCT_LEVELS];
	uint32_t nslices;
	/* Noise (harness/noise.h): trials flagged, left out of the medians
	 * (--noise=drop), re-runs (--noise=retry); flags seen, in how many
	 * trials each; the round-trip range over all probes (NAN: none); the
	 * makespans' Tukey classes. */
	uint32_t flagged, dropped, retried;
	uint32_t flag_counts[NOISE_NFLAGS];
	double c2c_min_ns, c2c_max_ns;
	double speed_min_ns, speed_max_ns;	/* the compute probes' range; NAN: none */
	uint32_t tukey[5];
	/* --trials auto: the median makespan's 95% interval half-width over
	 * the median when the trials stopped, and whether the maximum trial
	 * count or the time limit stopped them before the target was met. */
	double auto_halfwidth;
	bool auto_at_max, auto_at_time;
};

/* The exit status of a run the watchdog stopped. */
#define DRIVER_EXIT_STALL 3

/*
 * Called (if set) just before the process leaves through _exit because
 * workers are stuck inside a task: atexit handlers do not run there, and
 * the caller's temporary files must still go (main sets outfile_cleanup).
 * Must be async-signal-safe in spirit: other threads are still running.
 */
extern void (*driver_exit_cleanup)(void);

/*
 * Run cfg's warm-up and measured trials. Returns 0 with res filled (free it
 * with run_result_free), or -errno with one line in err: a workload that
 * computed a wrong answer, a runtime or engine that could not be created,
 * memory exhaustion, or -ETIMEDOUT for a run the watchdog stopped (its stall
 * report is on stderr). Progress goes to stderr.
 */
int driver_run(const struct run_config *cfg, struct run_result *res, char *err, size_t len);
/*
 * The same for ncfg configurations that differ only in policy, knobs and
 * workload parameters: all their trials and the baseline trials (one set
 * per distinct parameters, shared by the configurations that have them)
 * run in one shuffled order, and res[i] gets configuration i's figures
 * (each with its parameters' baseline).
 */
int driver_run_many(const struct run_config *cfgs, size_t ncfg, struct run_result *res,
		    char *err, size_t len);
void run_result_free(struct run_result *res);

/*
 * One simulated run for --explore: cfg with cfg->explore_seed, checked for
 * a wrong answer or a lost or extra task (-EIO), a stall (-ETIMEDOUT) and a
 * broken invariant of the idle protocol or of a ring (-EPROTO), with one
 * line in err. A task run twice aborts the process (the caller runs this
 * in a child).
 */
int driver_explore_one(const struct run_config *cfg, char *err, size_t len);

/* The median of v[0..n) (mean of the middle two for even n); sorts v. */
double median_of(double *v, size_t n);

#endif
