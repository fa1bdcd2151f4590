/* noise.c - noise accounting of threads-engine trials (noise.h). */
#define _GNU_SOURCE
#include "noise.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/c2c.h"
#include "core/clock.h"

int noise_alloc(struct trial_noise *n, uint32_t workers)
{
	memset(n, 0, sizeof *n);
	n->switches = calloc(workers, sizeof *n->switches);
	n->migrations = calloc(workers, sizeof *n->migrations);
	n->stolen_ns = calloc(workers, sizeof *n->stolen_ns);
	n->kernel_ns = calloc(workers, sizeof *n->kernel_ns);
	n->steal_ns = n->c2c_before_ns = n->c2c_after_ns = NAN;
	n->speed_before_ns = n->speed_after_ns = NAN;
	return n->switches && n->migrations && n->stolen_ns && n->kernel_ns ? 0 : -ENOMEM;
}

void noise_free(struct trial_noise *n)
{
	free(n->switches);
	free(n->migrations);
	free(n->stolen_ns);
	free(n->kernel_ns);
	n->switches = NULL;
	n->migrations = NULL;
	n->stolen_ns = NULL;
	n->kernel_ns = NULL;
}

/* The `cpu` line of /proc/stat: user nice system idle iowait irq softirq
 * steal ..., in clock ticks. */
double noise_host_steal_ns(void)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	if (!f)
		return NAN;
	int k = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		       &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (k != 8 || hz <= 0)
		return NAN;
	return (double)v[7] * 1e9 / (double)hz;
}

double noise_c2c_ns(const int32_t *cpus, uint32_t workers)
{
	int a = 0, b = 1;
	double ns;
	if (cpus && workers >= 2 && cpus[0] >= 0 && cpus[1] >= 0 && cpus[0] != cpus[1]) {
		a = cpus[0];
		b = cpus[1];
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || c2c_probe(a, b, NOISE_C2C_TRIPS, &ns) != 0)
		return NAN;
	return ns;
}

/* Calls and returns, adds and a branch each: the shape of a task runtime's
 * own work, in L1. Not inlined into the probe and fed a volatile n, so the
 * compiler cannot fold it. */
__attribute__((noinline)) static uint64_t probe_fib(uint32_t n)
{
	return n < 2 ? n : probe_fib(n - 1) + probe_fib(n - 2);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The probe on one CPU: the median of NOISE_SPEED_REPS timings; NAN if
 * the thread cannot run there. */
static double speed_on(int cpu)
{
	volatile uint32_t n = NOISE_SPEED_N;
	volatile uint64_t sink;
	double t[NOISE_SPEED_REPS];
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
		return NAN;
	for (int i = 0; i < NOISE_SPEED_REPS; i++) {
		uint64_t t0 = mono_ns();
		sink = probe_fib(n);
		t[i] = (double)(mono_ns() - t0);
	}
	(void)sink;
	qsort(t, NOISE_SPEED_REPS, sizeof t[0], cmp_dbl);
	return t[NOISE_SPEED_REPS / 2];
}

double noise_speed_ns(const int32_t *cpus, uint32_t workers)
{
	static bool warned;
	cpu_set_t old;
	int cpu[2] = { 0, 1 };
	int n = workers < 2 || sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2;
	double slowest = 0;
	if (cpus && cpus[0] >= 0)
		cpu[0] = cpus[0];
	if (cpus && workers >= 2 && cpus[1] >= 0 && cpus[1] != cpu[0])
		cpu[1] = cpus[1];
	if (pthread_getaffinity_np(pthread_self(), sizeof old, &old) != 0)
		return NAN;
	for (int k = 0; k < n; k++) {
		double ns = speed_on(cpu[k]);
		if (!isfinite(ns)) {
			slowest = NAN;
			break;
		}
		slowest = fmax(slowest, ns);
	}
	/* The harness thread's mask is what the unpinned workers inherit. */
	if (pthread_setaffinity_np(pthread_self(), sizeof old, &old) != 0) {
		if (!warned)
			fprintf(stderr, "harness: cannot restore the CPU affinity after the compute "
					"probe; unpinned workers may share one CPU\n");
		warned = true;
		return NAN;
	}
	return slowest > 0 ? slowest : NAN;
}

/* Did a probe move by more than `ratio`, either way, from before to after
 * (both made)? */
static bool moved(double before, double after, double ratio)
{
	if (!(isfinite(before) && isfinite(after) && before > 0 && after > 0))
		return false;
	double r = after / before;
	return r > ratio || r < 1 / ratio;
}

uint32_t noise_flags(const struct trial_noise *n, uint32_t workers, uint64_t makespan_ns,
		     long ncpus)
{
	double s = (double)makespan_ns / 1e9, stolen = 0;
	uint32_t f = 0;
	if (!n->measured)
		return 0;
	for (uint32_t i = 0; i < workers; i++) {
		if ((double)n->switches[i] > NOISE_SWITCH_BASE + NOISE_SWITCH_PER_S * s)
			f |= NOISE_SWITCHES;
		if (n->migrations[i] >= 0 &&
		    (double)n->migrations[i] > NOISE_MIGRATION_BASE + NOISE_MIGRATION_PER_S * s)
			f |= NOISE_MIGRATIONS;
		stolen += (double)n->stolen_ns[i];
	}
	if (stolen > NOISE_STOLEN_SHARE * (double)workers * (double)makespan_ns)
		f |= NOISE_STOLEN;
	if (isfinite(n->steal_ns) &&
	    n->steal_ns > NOISE_STEAL_SHARE * (double)(ncpus > 0 ? ncpus : 1) * (double)makespan_ns)
		f |= NOISE_STEAL;
	if (moved(n->c2c_before_ns, n->c2c_after_ns, NOISE_C2C_RATIO))
		f |= NOISE_C2C;
	if (moved(n->speed_before_ns, n->speed_after_ns, NOISE_SPEED_RATIO))
		f |= NOISE_SPEED;
	return f;
}

bool noise_c2c_in_band(double ns, double lo, double hi)
{
	return hi <= 0 || !isfinite(ns) || (ns >= lo && ns <= hi);
}

/* `flag` if a measured trial's probe before or after lies outside [lo, hi]. */
static uint32_t outside(const struct trial_noise *n, double before, double after, double lo,
			double hi, uint32_t flag)
{
	if (!n->measured)
		return 0;
	return noise_c2c_in_band(before, lo, hi) && noise_c2c_in_band(after, lo, hi) ? 0 : flag;
}

uint32_t noise_band_flag(const struct trial_noise *n, double lo, double hi)
{
	return outside(n, n->c2c_before_ns, n->c2c_after_ns, lo, hi, NOISE_C2C_BAND);
}

uint32_t noise_speed_band_flag(const struct trial_noise *n, double lo, double hi)
{
	return outside(n, n->speed_before_ns, n->speed_after_ns, lo, hi, NOISE_SPEED_BAND);
}

bool noise_band_rerun(uint32_t flags, uint32_t retries, uint64_t spent_ns)
{
	return (flags & (NOISE_C2C_BAND | NOISE_SPEED_BAND)) && retries < NOISE_BAND_RETRIES &&
	       spent_ns < NOISE_BAND_BUDGET_NS;
}

const char *noise_flag_text(enum noise_flag f)
{
	switch (f) {
	case NOISE_SWITCHES:
		return "involuntary switches";
	case NOISE_MIGRATIONS:
		return "migrations";
	case NOISE_STOLEN:
		return "OS time in compute";
	case NOISE_STEAL:
		return "host steal";
	case NOISE_C2C:
		return "round trip moved";
	case NOISE_C2C_BAND:
		return "round trip outside the band";
	case NOISE_SPEED:
		return "compute speed moved";
	case NOISE_SPEED_BAND:
		return "compute speed outside the band";
	}
	return "?";
}

const char *noise_flag_key(enum noise_flag f)
{
	switch (f) {
	case NOISE_SWITCHES:
		return "involuntary_switches";
	case NOISE_MIGRATIONS:
		return "migrations";
	case NOISE_STOLEN:
		return "os_stolen";
	case NOISE_STEAL:
		return "host_steal";
	case NOISE_C2C:
		return "c2c_moved";
	case NOISE_C2C_BAND:
		return "c2c_band";
	case NOISE_SPEED:
		return "speed_moved";
	case NOISE_SPEED_BAND:
		return "speed_band";
	}
	return "?";
}

void noise_print_flags(FILE *f, uint32_t flags)
{
	const char *sep = "";
	for (uint32_t b = 0; b < NOISE_NFLAGS; b++)
		if (flags & (1u << b)) {
			fprintf(f, "%s%s", sep, noise_flag_text((enum noise_flag)(1u << b)));
			sep = ", ";
		}
}

const char *noise_mode_name(enum noise_mode m)
{
	return m == NOISE_DROP ? "drop" : m == NOISE_RETRY ? "retry" : "report";
}

const char *const tukey_class_name[5] = { "low-severe", "low-mild", "normal", "high-mild",
					  "high-severe" };

/* Quantile q of sorted s[0..n) by linear interpolation (R type 7). */
static double quantile(const double *s, uint32_t n, double q)
{
	double h = (n - 1) * q;
	uint32_t lo = (uint32_t)floor(h);
	uint32_t hi = lo + 1 < n ? lo + 1 : lo;
	return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

void tukey_classify(const double *v, uint32_t n, int *cls, uint32_t counts[5])
{
	memset(counts, 0, 5 * sizeof *counts);
	double *s = malloc((n ? n : 1) * sizeof *s);
	if (!s || n == 0) {
		free(s);
		return;
	}
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_dbl);
	double q1 = quantile(s, n, 0.25), q3 = quantile(s, n, 0.75), iqr = q3 - q1;
	free(s);
	for (uint32_t i = 0; i < n; i++) {
		int c = 2;
		if (v[i] < q1 - 3 * iqr)
			c = 0;
		else if (v[i] < q1 - 1.5 * iqr)
			c = 1;
		else if (v[i] > q3 + 3 * iqr)
			c = 4;
		else if (v[i] > q3 + 1.5 * iqr)
			c = 3;
		counts[c]++;
		if (cls)
			cls[i] = c;
	}
}
