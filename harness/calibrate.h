/*
 * calibrate.h - measure the simulation's cost table (costs.h) on this
 * machine with the real mechanisms: the threads engine's clock, the real
 * ring, global queue and task poll path of a hand-driven volt runtime, a
 * futex parker with the threads engine's protocol, and steals between two
 * threads on two CPUs. `harness --calibrate PATH` runs it and writes a cost
 * file that `--engine=sim --costs PATH` loads.
 *
 * Harness-side code: it reads the clock, pins threads and blocks, which
 * worker code never does. Every figure is the median of `reps`
 * repetitions; none of them is exact, and the two-thread ones move with
 * the machine's core-to-core regime (recorded with them).
 */
#ifndef HARNESS_HARNESS_CALIBRATE_H
#define HARNESS_HARNESS_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/costs.h"

/* What `harness --calibrate` takes: a few seconds in all. */
#define CALIBRATE_PASSES 5
#define CALIBRATE_REPS 15
#define CALIBRATE_WORK_REPS 3	/* runs of each workload (calibrate_workloads) */

/* One figure per cost, in ns. */
struct calibrate_ns {
#define X(name, def, help) double name;
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
};

/*
 * A workload's own work per poll (core/costs.h, work.NAME), measured with
 * the parameters the validation table runs: the median of a few 1-worker
 * threads runs under volt (at least `reps`, more until they add up to
 * 0.1 s), less the 1-worker sim's makespan of the same run at the
 * measured costs without work (the mechanisms, the lock and the cache
 * model), divided by its polls; so the 1-worker sim of volt reproduces
 * that run. The sequential baseline's time per task goes beside it.
 */
#define CALIBRATE_WORKLOADS 8
struct calibrate_work {
	const char *workload;
	const char *params;		/* "name=value" or NULL: the defaults */
	double seq_ns_per_task;		/* the sequential baseline */
	double run_ns_per_poll;		/* the median 1-worker run's makespan per poll */
	double mech_ns_per_poll;	/* the 1-worker sim's without work, per poll */
	/* per poll, or per spawn for a workload whose work comes with each
	 * child (work_per_spawn): run - mechanisms, at least 0 */
	double ns;
	uint64_t polls;
	bool per_spawn;
};

/*
 * Fitted figures (calibrate_policies, after the workloads): each policy's
 * own per-poll cost, poll.NAME, the median of its 1-worker threads runs of
 * CALIBRATE_FIT_WORKLOAD less the 1-worker sim's of it (volt's is 0 by
 * construction); contended, searched for until the 2-worker sim of volt on
 * the same workload lands on the median of its 2-worker threads runs; then
 * lock_transfer, the same on CALIBRATE_FIT_LOCK_POLICY's. The other
 * workloads' cells are the check.
 */
#define CALIBRATE_POLICIES 16
struct calibrate_work_spec {
	const char *workload, *params;	/* params "name=value" or NULL: the defaults */
};
#define CALIBRATE_FIT_WORKLOAD "fib"
#define CALIBRATE_FIT_PARAMS "n=30"
#define CALIBRATE_FIT_LOCK_POLICY "go"
/*
 * A cost fitted on a policy's 2-worker run. Such a run moves lines between
 * the two CPUs at every migration, join or lock taking, and on a virtual
 * machine what a line costs to move changes by a factor of up to six for
 * seconds to minutes at a time (docs/measuring.md), between regimes that
 * are not ordered by speed (a 30 ns round trip can mean two vCPUs on one
 * core's SMT siblings, fast to share lines and slow to compute): the round
 * trip is probed before and after each run, and the fit targets the
 * median of the runs made in one regime, the most populous one (both
 * probes within CALIBRATE_REGIME_RATIO of its band). The range of those
 * runs' probes is the regime the figure belongs to; the validation
 * compares the sim with threads trials made in it.
 */
#define CALIBRATE_REGIME_RATIO 1.5
/*
 * The same for the host's compute speed, which on this machine takes
 * about two values 1.5 times apart and moves between them within a
 * second, unseen by the round trip (docs/measuring.md): a compute probe
 * (noise_speed_ns) before and after each run, and a run is in the regime
 * when both of its probes also lie within CALIBRATE_SPEED_RATIO of the
 * regime's compute band (any run, where no probe was made).
 */
#define CALIBRATE_SPEED_RATIO 1.1
/* Before its first threads run the calibration probes the host this many
 * times, this far apart, and keeps to the state most probes were in. */
#define CALIBRATE_STATE_SAMPLES 60
/* A fit's threads runs: until those in the regime add up to this, at most
 * CALIBRATE_RUNS_MAX of them: a short run is one preemption away from
 * nonsense on a shared machine. */
#define CALIBRATE_RUNS_MIN_NS 100000000ull
#define CALIBRATE_RUNS_MAX 50
#define CALIBRATE_STATE_GAP_NS 40000000ull
struct calibrate_fit {
	bool fitted;
	const char *policy;
	double run_ns, sim_ns, sim0_ns;	/* the median run, the sim with and without it */
	/* run_ns is of the runs brought to the machine's speed at the work's
	 * fit, each scaled by volt's 1-worker run then over one just before
	 * it (regime_runs): the median factor, 1 without. */
	double scale;
	uint32_t runs;			/* runs made */
	uint32_t kept;			/* of them in the regime (0: none probed, all used) */
	double c2c_lo, c2c_hi;		/* the kept runs' probes; 0: not probed */
	double speed_lo, speed_hi;	/* the kept runs' compute probes; 0: none made */
};

/* A 2-worker run and the round trips probed around it (NAN: not probed). */
struct calibrate_probed_run {
	double ns, c2c_before, c2c_after;
	/* The compute probes around it (noise_speed_ns); 0 or NAN: not made. */
	double speed_before, speed_after;
};

/*
 * The fit's target among `n` runs: the median of those in the band prefer_lo ..
 * prefer_hi and the compute band prefer_slo .. prefer_shi (an earlier fit's
 * regime; a run is in a band when both its probes are within
 * CALIBRATE_REGIME_RATIO of it, and in the compute band when both its
 * compute probes are within CALIBRATE_SPEED_RATIO of it or none was made
 * or prefer_shi is 0) if prefer_hi > 0 and a run is; else of those in the
 * most populous regime (of the bands centred on each run whose two probes
 * agree, and whose compute probes agree where made, the one holding the
 * most runs; a tie, the one with the faster median). fit->run_ns, kept, c2c_lo
 * and c2c_hi set, and speed_lo..speed_hi to the range of the kept runs'
 * compute probes (0 if none was made); with no probed run, the median of
 * all and kept 0 (and the compute probes of all). 0 or -ENOMEM.
 */
int calibrate_select_regime(const struct calibrate_probed_run *r, uint32_t n, double prefer_lo,
			    double prefer_hi, double prefer_slo, double prefer_shi,
			    struct calibrate_fit *fit);
/*
 * A run of `ns` brought to the machine's speed at the work's fit, when
 * volt's run then took `scale` times its time now: with `share` 0 all of
 * it (ns * scale); else only the share the compute speed governs, `share`
 * ns at that speed (at most the whole), the rest left as it is.
 */
double calibrate_at_fit_speed(double ns, double scale, double share);

struct calibrate_policy {
	const char *policy;
	double run_ns_per_poll;		/* the median 1-worker run's makespan per poll */
	/* Volt's 1-worker run of the same workload beside the runs, per poll
	 * (0: not made), and the runs brought to the machine's speed at the
	 * work's fit, each scaled by volt's at the fit over volt's just before
	 * it: their median (run and volt's are that over the median factor). */
	double volt_ns_per_poll;
	double target_ns_per_poll;
	double sim_ns_per_poll;		/* the 1-worker sim's without the figure */
	double ns;			/* target - sim, negative when the policy's poll does less */
};

struct calibration {
	struct sim_costs costs;		/* whole ns, each at least 1 */
	struct calibrate_ns ns;		/* the measured figures before rounding */
	struct calibrate_ns lo, hi;	/* their range over the passes */
	double c2c_ns;			/* CPU 0 <-> 1 round trip before; 0: not measured */
	double c2c_end_ns;		/* ... and after the measurements */
	bool pinned;			/* two-thread figures ran on CPUs 0 and 1 */
	uint32_t passes, reps, cpus;
	int64_t when;			/* Unix time of the measurement */
	char host[64];
	char cpu[128];
	uint32_t nwork;
	struct calibrate_work work[CALIBRATE_WORKLOADS];
	uint32_t npolicy;
	struct calibrate_policy policy[CALIBRATE_POLICIES];
	struct calibrate_work_spec fit;	/* the workload the figures are fitted on */
	struct sim_costs poll_base;	/* the costs poll.NAME was fitted against (the
					 * 2-worker fits change some afterwards) */
	double regime_lo, regime_hi;	/* the round trips (ns) of the calibration's threads
					 * runs' regime: the first chosen (0: none yet) */
	/* The regime's compute speed (ns), per worker count: [0] for 1-worker
	 * runs (their CPU alone), [1] for 2-worker runs (the slower of the
	 * two): a state where one CPU is slow leaves the other free to be
	 * either. 0: none found. */
	double speed_lo[2], speed_hi[2];
	uint32_t state_kept;		/* probes of the host's common state found before
					 * the runs, which set the regime (0: not probed) */
	bool lock_fitted;		/* lock_transfer is the fit, not the measurement */
	struct calibrate_fit contended_fit;	/* contended, on volt's 2-worker run */
	struct calibrate_fit lock_fit;	/* lock_transfer, on the lock policy's */
	/* How many threads runs the fits make (calibrate_workloads_of,
	 * calibrate_policies_of), 0 for the defaults: runs until those in the
	 * regime add up to runs_min_ns (CALIBRATE_RUNS_MIN_NS) or runs_max are
	 * made (CALIBRATE_RUNS_MAX), after state_samples probes of the host's
	 * common state (CALIBRATE_STATE_SAMPLES, at most that). Set between
	 * calibrate_costs and the fits; the test suite makes them small, as it
	 * checks how the runs are used, not how many are enough. */
	uint32_t runs_max;
	uint64_t runs_min_ns;
	uint32_t state_samples;
};

/*
 * Measure the workloads' work (calibrate_work above) against the costs in
 * cal->costs (measured first); `reps` runs of each, the median. 0 or
 * -errno.
 */
int calibrate_workloads(struct calibration *cal, uint32_t reps, FILE *log);

/* The same for the workloads and parameters given (at most
 * CALIBRATE_WORKLOADS; a test's small sizes). */
int calibrate_workloads_of(struct calibration *cal, uint32_t reps, FILE *log,
			   const struct calibrate_work_spec *spec, uint32_t n);

/* The fitted figures above, into cal->costs (after the workloads' work).
 * 0 or -errno. */
int calibrate_policies(struct calibration *cal, uint32_t reps, FILE *log);
/* The same on workload `fit`, for the `policies` named (NULL-terminated;
 * NULL: all), the lock on `lock_policy`'s run (NULL: not fitted; a test's
 * small sizes). */
int calibrate_policies_of(struct calibration *cal, uint32_t reps, FILE *log,
			  const struct calibrate_work_spec *fit, const char *const *policies,
			  const char *lock_policy);
/* A run of `spec` under `policy` on `workers` workers on the sim with
 * `costs` (its work.NAME entry resolved): makespan and polls. */
int calibrate_policy_sim_run(const struct calibrate_work_spec *spec, const char *policy,
			     uint32_t workers, const struct sim_costs *costs, uint64_t *ns,
			     uint64_t *polls);

/* A 1-worker run of `spec` under volt on the sim with `costs`: its
 * makespan and polls. 0 or -errno. */
int calibrate_sim_run(const struct calibrate_work_spec *spec, const struct sim_costs *costs,
		      uint64_t *ns, uint64_t *polls);

/*
 * Measure every cost; progress to `log` (NULL: none). Every figure is
 * measured in each of `passes` passes, a third of a second apart, each
 * taking the median of `reps` repetitions (single-thread loops) or of 20 *
 * reps events (two threads); the result is the median over the passes.
 * Fewer is faster and noisier; at least 1 of each. Returns 0, or -errno if
 * a runtime or a thread could not be created.
 */
int calibrate_costs(struct calibration *cal, uint32_t passes, uint32_t reps, FILE *log);

/* The measured table beside the defaults, with each cost's meaning. */
void calibrate_print(const struct calibration *cal, FILE *f);

/*
 * The cost file's text: a header naming the machine and `path` (for the
 * --costs hint), then one `name = ns` line per cost.
 */
void calibrate_print_costs(FILE *f, const char *path, const struct calibration *cal);

/*
 * A cost file written atomically: open creates a temporary file next to
 * `path` (so that an unwritable place is reported before any measuring),
 * commit writes the header and one `name = ns` line per cost and renames
 * it over `path`, abort removes it. 0, or -1 with one line in err.
 */
struct calibrate_file {
	const char *path;
	char tmp[4096 + 32];
	FILE *f;
};

int calibrate_file_open(struct calibrate_file *cf, const char *path, char *err, size_t len);
int calibrate_file_commit(struct calibrate_file *cf, const struct calibration *cal, char *err,
			  size_t len);
void calibrate_file_abort(struct calibrate_file *cf);

/* open + commit. */
int calibrate_write(const char *path, const struct calibration *cal, char *err, size_t len);

#endif
