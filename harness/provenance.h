/*
 * provenance.h - where a result came from: the build (build_info.h), the
 * machine, the allocator actually in use, the time and the command line.
 */
#ifndef HARNESS_PROVENANCE_H
#define HARNESS_PROVENANCE_H

#include <stdbool.h>
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
};

/* Returns 0 or -ENOMEM. Fields that cannot be read say "unknown". Takes
 * the core-to-core round-trip probe (a few ms) on machines with 2+ CPUs. */
int provenance_collect(struct provenance *pv, int argc, char **argv, bool probe_c2c);
void provenance_free(struct provenance *pv);

/* The start time as yyyymmddThhmmssZ, for default result file names. */
void provenance_stamp(const struct provenance *pv, char *buf, size_t len);

#endif
