/*
 * costcache.h - where a calibration of this machine is kept for
 * `--calibrate auto` and `--costs auto` (docs/sim.md, "Calibrating"):
 * $XDG_CACHE_HOME/harness (else ~/.cache/harness), one file per machine,
 * costs-HOST-CPU.txt, keyed by the host name and the CPU model.
 */
#ifndef HARNESS_HARNESS_COSTCACHE_H
#define HARNESS_HARNESS_COSTCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The host name and the CPU model ("unknown" where there is none). */
void costcache_machine(char *host, size_t hlen, char *cpu, size_t clen);

/*
 * This machine's entry: HOST and CPU with every character other than a
 * letter, a digit, '.' or '-' as '_'. With `make` the directory is
 * created. 0, or -1 with one line in err.
 */
int costcache_path(char *buf, size_t len, bool make, char *err, size_t errlen);

#endif
