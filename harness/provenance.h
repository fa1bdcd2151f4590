/*
 * provenance.h - where a result came from: the build (build_info.h), the
 * machine, the allocator actually in use, the time and the command line.
 */
#ifndef HARNESS_PROVENANCE_H
#define HARNESS_PROVENANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct provenance {
	char git_revision[96];
	char compiler[96];
	char cflags[512];
	char build_type[32];
	char sanitize[64];
	char allocator[128];
	char cpu_model[256];
	long cores_online;
	double c2c_ns;			/* median CPU0<->CPU1 round trip, < 0 if not measured */
	char kernel[160];
	char hostname[256];
	time_t start;			/* when the run started */
	char timestamp_utc[32];		/* start as 2024-01-31T12:00:00Z */
	char *command_line;		/* argv, shell-quoted where needed */

	/* The machine right before the run (docs/results.md, provenance). */
	bool has_topology;		/* hwloc read it (core/topo.h) */
	uint32_t packages, numa_nodes, l3_domains, cores, cpus, threads_per_core;
	char topology_source[64];
	char governor[128];		/* scaling governors in use, "" = not exposed */
	int turbo;			/* 1 on, 0 off, -1 not exposed */
	char isolated[256];		/* the kernel's isolated CPUs, "" = none */
	double loadavg[3];		/* 1, 5, 15 min; < 0 if unknown */
	/* The placement (set by the caller): --pin as applied, worker i's CPU
	 * or -1. */
	const char *pin;
	const int32_t *worker_cpus;
	uint32_t nworkers;
};

/* Returns 0 or -ENOMEM. Fields that cannot be read say "unknown". Takes
 * the core-to-core round-trip probe (a few ms) on machines with 2+ CPUs. */
int provenance_collect(struct provenance *pv, int argc, char **argv, bool probe_c2c);
void provenance_free(struct provenance *pv);

/* The start time as yyyymmddThhmmssZ, for default result file names. */
void provenance_stamp(const struct provenance *pv, char *buf, size_t len);

#endif
