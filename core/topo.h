/*
 * topo.h - the machine's topology, read with hwloc, and worker placement.
 *
 * The CPUs this process may run on (its affinity mask), each with its
 * package, NUMA node, L3 domain, physical core and SMT rank, in hwloc's
 * logical order (package, L3, core, hardware thread). Placement modes turn
 * it into one CPU per worker for the threads engine (`--pin`), and the
 * locality policy takes its domains from the same table.
 */
#ifndef HARNESS_CORE_TOPO_H
#define HARNESS_CORE_TOPO_H

#include <stddef.h>
#include <stdint.h>

struct topo_cpu {
	int32_t os;		/* the kernel's CPU number */
	uint32_t package;	/* logical indices, dense from 0 */
	uint32_t numa;
	uint32_t l3;		/* the package's index when no L3 is reported */
	uint32_t core;
	uint32_t smt;		/* rank among its core's hardware threads */
};

struct topo {
	uint32_t npackages, nnuma, nl3, ncores, npus;
	uint32_t threads_per_core;	/* the most on any core */
	struct topo_cpu *cpu;		/* [npus] */
	char source[64];		/* "hwloc 2.9.0" */
};

/* The process's topology, loaded once (thread-safe); NULL if hwloc fails. */
const struct topo *topo_machine(void);

/* Index in t->cpu of kernel CPU `os`, or -1. */
int topo_find(const struct topo *t, int32_t os);

enum pin_mode {
	PIN_AUTO,	/* compact when workers <= physical cores, else none */
	PIN_NONE,
	PIN_COMPACT,	/* physical cores in order, then their SMT siblings */
	PIN_SCATTER,	/* round robin over packages and L3 domains, then siblings */
	PIN_LIST,	/* the CPUs given, worker i on the i-th (cycling) */
};

/*
 * Parse a --pin value: none, compact, scatter or list:0,2,4-7. Returns 0
 * with *mode (and for a list, the CPUs in list[0..*nlist), at most max),
 * or -1 with a one-line reason in err.
 */
int topo_parse_pin(const char *text, enum pin_mode *mode, int32_t *list, uint32_t max,
		   uint32_t *nlist, char *err, size_t len);

/*
 * One CPU per worker: cpus[0..workers) from t under mode; -1 everywhere
 * for PIN_NONE (and for PIN_AUTO with more workers than physical cores).
 * *effective gets the mode applied (PIN_AUTO resolved). note gets a
 * one-line warning when the placement cannot give a clean figure (more
 * workers than CPUs, SMT siblings shared, PIN_AUTO falling back to none),
 * else "". Returns 0, or -1 with the reason in err (a listed CPU this
 * process may not use).
 */
int topo_place(const struct topo *t, enum pin_mode mode, const int32_t *list, uint32_t nlist,
	       uint32_t workers, int32_t *cpus, enum pin_mode *effective, char *note,
	       size_t notelen, char *err, size_t errlen);

const char *topo_pin_name(enum pin_mode m);

#endif
