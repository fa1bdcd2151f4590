/*
 * real.h - the real engine (--engine=real): a policy's trial run by the real
 * runtime it models, through its peer program (peers/README.md), instead of
 * by the policy's model. One peer process per trial; its answer verified by
 * the peer, its figures mapped to the harness's (docs/results.md).
 */
#ifndef HARNESS_REAL_H
#define HARNESS_REAL_H

#include <stddef.h>
#include <stdint.h>

struct policy;
struct workload;
struct run_config;
struct trial;

/*
 * Whether `p` has a real runtime the harness can run on `wl` with these
 * parameters: 0, or -EINVAL with one line in err naming what can run.
 */
int real_check(const struct policy *p, const struct workload *wl, const double *params,
	       char *err, size_t len);

/*
 * Run one trial of cfg on its policy's peer (a warm-up trial inside the
 * peer's process first, then the measured one): fills out's makespan,
 * tasks, rates, utilization (from the process's CPU time) and the counters
 * the runtime reports (docs/results.md), and its latency percentiles as
 * metrics; `version` gets the runtime's version. `seed` is the trial's:
 * open-loop's schedule, written for the peer, is drawn from it. 0, or
 * -errno with one line in err (a wrong answer: -EIO).
 */
int real_run_trial(const struct run_config *cfg, uint64_t seed, struct trial *out, char *version,
		   size_t vlen, char *err, size_t len);

/* The peer programs' directory: $HARNESS_PEERS, else peers/ beside the
 * harness's own executable (build/peers after scripts/peers.sh). */
int real_peers_dir(char *buf, size_t len);

#endif
