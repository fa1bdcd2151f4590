/*
 * noise.h - what the machine did to a threads-engine trial, and whether
 * the trial can be trusted (docs/measuring.md).
 *
 * Per trial and per worker: involuntary context switches (the OS took the
 * worker's CPU), migrations (it moved the worker), the time the OS took
 * from spin compute (engine_threads.c measures a spin's overrun); per
 * trial: the host's steal time (a hypervisor ran someone else on our CPUs),
 * the core-to-core round trip and the compute speed before and after (short
 * probes). A trial crossing any threshold below is flagged noisy. Per worker
 * too, not judged: its thread's system time (kernel_ns).
 */
#ifndef HARNESS_NOISE_H
#define HARNESS_NOISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Thresholds (docs/measuring.md): per worker, rates per second of makespan
 * plus a constant for short trials; shares of the trial's CPU time. */
#define NOISE_SWITCH_BASE 2.0		/* involuntary switches per worker ... */
#define NOISE_SWITCH_PER_S 20.0		/* ... plus this many per second */
#define NOISE_MIGRATION_BASE 2.0
#define NOISE_MIGRATION_PER_S 20.0
#define NOISE_STOLEN_SHARE 0.01		/* OS time in spins / (workers x makespan) */
#define NOISE_STEAL_SHARE 0.01		/* host steal / (online CPUs x makespan) */
#define NOISE_C2C_RATIO 1.5		/* after / before round trip, either way */
#define NOISE_SPEED_RATIO 1.25		/* after / before compute probe, either way */
#define NOISE_C2C_TRIPS 2000		/* round trips per probe */
#define NOISE_SPEED_N 17		/* the compute probe: fib(17), 5,167 calls ... */
#define NOISE_SPEED_REPS 9		/* ... timed this many times, the median kept */
#define NOISE_RETRIES 2			/* --noise=retry: re-runs per trial, at most */
#define NOISE_BAND_RETRIES 4		/* --c2c-band: re-runs per trial outside it, at most */
#define NOISE_BAND_WAIT_PROBES 25	/* --c2c-band: probes before a trial, at most ... */
#define NOISE_BAND_WAIT_NS 20000000ull	/* ... this far apart, until one is in the band */
#define NOISE_BAND_BUDGET_NS 10000000000ull	/* --c2c-band: waits and re-runs, per process */

enum noise_flag {
	NOISE_SWITCHES = 1u << 0,
	NOISE_MIGRATIONS = 1u << 1,
	NOISE_STOLEN = 1u << 2,
	NOISE_STEAL = 1u << 3,
	NOISE_C2C = 1u << 4,
	NOISE_C2C_BAND = 1u << 5,
	NOISE_SPEED = 1u << 6,
	NOISE_SPEED_BAND = 1u << 7,
};
#define NOISE_NFLAGS 8

enum noise_mode { NOISE_REPORT, NOISE_DROP, NOISE_RETRY };

struct trial_noise {
	bool measured;			/* a threads-engine trial */
	uint64_t *switches;		/* [workers] involuntary context switches */
	int64_t *migrations;		/* [workers], -1 if the kernel does not say */
	uint64_t *stolen_ns;		/* [workers] OS time inside spin computes */
	uint64_t *kernel_ns;		/* [workers] system time of the worker thread */
	double steal_ns;		/* host steal over the trial, NAN if unknown */
	double c2c_before_ns, c2c_after_ns;	/* NAN if not probed */
	double speed_before_ns, speed_after_ns;	/* the compute probe; NAN if not made */
	uint32_t flags;			/* enum noise_flag bits */
	uint32_t retries;		/* --noise=retry: re-runs it took */
};

int noise_alloc(struct trial_noise *n, uint32_t workers);
void noise_free(struct trial_noise *n);

/* The host's steal time so far, summed over CPUs (/proc/stat), in ns; NAN
 * if not available. */
double noise_host_steal_ns(void);

/* A short core-to-core round trip between the CPUs of workers 0 and 1
 * (cpus NULL: CPUs 0 and 1); NAN with fewer than two CPUs. */
double noise_c2c_ns(const int32_t *cpus, uint32_t workers);

/* The compute probe: the median time of a plain recursive fib(17) on the
 * CPU of each of the first two workers (cpus NULL: CPUs 0 and 1; one
 * worker, or a one-CPU machine: the first alone), in ns, the slower; NAN
 * if a CPU cannot be used. This machine's compute speed moves by 1.5 times
 * within a second (docs/measuring.md), CPU by CPU, and the round-trip
 * probe does not see it: a 1-worker run is judged by its own CPU only. */
double noise_speed_ns(const int32_t *cpus, uint32_t workers);

/* The thresholds crossed by a trial of `workers` workers lasting
 * makespan_ns on a machine of ncpus online CPUs. */
uint32_t noise_flags(const struct trial_noise *n, uint32_t workers, uint64_t makespan_ns,
		     long ncpus);

/* Is a round trip of ns inside [lo, hi]? A band with hi 0 holds
 * everything, and so does a probe that could not be made (NAN). */
bool noise_c2c_in_band(double ns, double lo, double hi);

/* NOISE_C2C_BAND if the trial's round trip before or after lies outside
 * [lo, hi] (--c2c-band), else 0. */
uint32_t noise_band_flag(const struct trial_noise *n, double lo, double hi);

/* NOISE_SPEED_BAND if the trial's compute probe before or after lies
 * outside [lo, hi] (--speed-band), else 0. */
uint32_t noise_speed_band_flag(const struct trial_noise *n, double lo, double hi);

/* --c2c-band, --speed-band: whether a trial with these flags, run again
 * `retries` times so far, runs once more, the process having spent
 * spent_ns on the bands' waits and re-runs: only one flagged outside a
 * band, fewer than NOISE_BAND_RETRIES times, and with spent_ns below
 * NOISE_BAND_BUDGET_NS. */
bool noise_band_rerun(uint32_t flags, uint32_t retries, uint64_t spent_ns);

/* "involuntary switches", "migrations", "OS time in compute", "host steal",
 * "round trip moved", "round trip outside the band", "compute speed moved",
 * "compute speed outside the band"; key: the JSON name. */
const char *noise_flag_text(enum noise_flag f);
const char *noise_flag_key(enum noise_flag f);
const char *noise_mode_name(enum noise_mode m);
/* The flags as text: "involuntary switches, round trip moved". */
void noise_print_flags(FILE *f, uint32_t flags);

/*
 * Tukey's fences on v[0..n) (the classification Criterion reports): below
 * Q1 - 3 IQR severe low (0), below Q1 - 1.5 IQR mild low (1), inside
 * normal (2), above Q3 + 1.5 IQR mild high (3), above Q3 + 3 IQR severe
 * high (4); quartiles by linear interpolation. cls may be NULL; counts[5]
 * gets the number in each class.
 */
void tukey_classify(const double *v, uint32_t n, int *cls, uint32_t counts[5]);
extern const char *const tukey_class_name[5];

#endif
