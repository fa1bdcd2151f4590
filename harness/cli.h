/*
 * cli.h - the command line: parse, resolve and validate everything before
 * any work starts.
 *
 * cli_parse() turns argv into a `struct cli` in which every name is looked
 * up, every number is range-checked, every --set and --param is resolved
 * against the chosen policy's knob table and the workload's parameter table,
 * and the policy's and workload's check hooks have accepted the result. A
 * caller that gets 0 back can run without meeting bad input later; on error
 * it gets one line (no newline) in err and should exit 2.
 *
 * Policies are kept as a list of variants, resolved one by one: --policy
 * takes several specs, of different policies or of one policy with its own
 * knobs (`volt,volt:lifo_cap=0`), and a --set value that is a comma list
 * (`lifo_cap=0,1,3`) crosses every spec whose policy has the knob with each
 * value. All variants run interleaved in one process.
 */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/costs.h"
#include "core/topo.h"

struct policy;
struct workload;

#define CLI_MAX_POLICIES 64	/* variants after crossing --set lists */
#define CLI_MAX_ASSIGN 64	/* --set / --param occurrences */
#define CLI_MAX_OWN 16		/* knobs of one variant: its spec's, then crossed values */
#define CLI_MAX_LIST 64		/* values in one --set list */
#define CLI_MAX_WORKERS 1024
#define CLI_NAME_MAX 64

/* --trials auto (docs/measuring.md): the fewest measured trials (6: the
 * fewest whose distribution-free interval of the median covers 95%), the
 * default most, and the default target in percent of the median. */
#define CLI_AUTO_MIN_TRIALS 6
#define CLI_AUTO_MAX_TRIALS 50
#define CLI_AUTO_CI_TARGET_PCT 2
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

/* One `name=value` from --set or --param, as typed. */
struct cli_assign {
	char name[CLI_NAME_MAX];
	const char *value;	/* points into argv */
};

/*
 * A variant: a policy, the knobs that make it this variant (a spec's own,
 * `volt:lifo_cap=0`, then one value of every --set list crossed with it),
 * its name and its resolved knobs (table defaults, then --set, then its
 * own). The name is the policy's, with the own knobs as typed in brackets:
 * `volt`, `volt[lifo_cap=0,interval=61]`.
 */
struct cli_policy {
	const struct policy *policy;
	double *knobs;		/* [policy->nknobs] */
	char name[CLI_NAME_MAX * 3];
	struct cli_assign own[CLI_MAX_OWN];
	size_t nown;
	/* Crossed --param list values (`volt load=0.5`) and the resolved
	 * parameters: NULL when no --param list was given (cli.params then). */
	struct cli_assign pown[CLI_MAX_OWN];
	size_t npown;
	double *params;		/* [wl->nparams] */
};

/* A --set value that is a comma list: one variant per value. */
struct cli_list {
	char *buf;		/* a copy of the value, commas replaced by NULs */
	const char *items[CLI_MAX_LIST];
	size_t n;
};

struct cli {
	bool help, version, list, probe_c2c;
	bool quiet;		/* errors and stall reports only */
	bool check;		/* --check: validate, print the variants, run nothing */
	const char *calibrate_path;	/* --calibrate: measure the sim costs, write them here */

	struct cli_policy policies[CLI_MAX_POLICIES];	/* the variants, in run order */
	size_t npolicies;
	struct cli_policy specs[CLI_MAX_POLICIES];	/* --policy as given, before crossing */
	size_t nspecs;
	char *spec_text;	/* the --policy text, split in place; specs' own values point here */
	const struct workload *wl;
	double *params;		/* [wl->nparams], resolved */

	uint32_t workers;
	uint32_t trials, warmup;
	/* --trials auto / --ci-target (docs/measuring.md): trials resolved to
	 * the most a configuration may take (--trials-max), at least
	 * trials_min, until the median makespan's interval is within
	 * +-ci_target (a fraction) of it. */
	bool trials_auto;
	uint32_t trials_min, trials_max;
	double ci_target;
	double trials_time_s;		/* --trials-time; 0 = no limit */
	uint64_t seed;
	uint32_t sample_period;	/* resolved: --sample or the workload's default */
	int hist_digits;
	uint64_t watchdog_ns;	/* 0 = off */
	bool sim;		/* --engine=sim */
	bool real;		/* --engine=real: the real runtime (harness/real.h) */
	uint32_t explore;	/* --explore N: seeds to try, 0 = off */
	uint64_t explore_seed;	/* --explore-seed S: one seed */
	bool explore_seed_given;
	struct sim_costs costs;	/* defaults, --costs, --set cost.NAME */
	const char *costs_path;	/* as given ("auto": this machine's cached calibration) */
	char costs_file[4096];	/* the file --costs read, resolved */
	double costs_age_s;	/* its age when read (its modification time) */
	const char *json_path;	/* NULL: the default name under the results dir */
	const char *hdr_path;	/* --hdr: percentile distribution, or NULL */
	const char *trace_path;	/* --trace: Chrome trace events, or NULL */
	uint32_t trace_events;	/* --trace-events: per worker */
	bool no_json, no_baseline;
	bool json_indent;	/* --json-indent: 2 spaces a level, else compact */

	/* --pin (core/topo.h): the mode asked for, the CPUs of a list, and the
	 * placement resolved against the machine (threads engine only). */
	enum pin_mode pin, pin_effective;
	int32_t pin_list[CLI_MAX_WORKERS];
	uint32_t npin;
	int32_t cpus[CLI_MAX_WORKERS];	/* [workers], -1 = not pinned */
	bool pinned;			/* some worker has a CPU */
	char pin_note[256];		/* a warning about the placement, or "" */
	int noise_mode;			/* --noise: enum noise_mode (harness/noise.h) */
	double c2c_lo, c2c_hi;		/* --c2c-band in ns; c2c_hi 0 = none */
	double speed_lo, speed_hi;	/* --speed-band in ns; speed_hi 0 = none */

	struct cli_assign sets[CLI_MAX_ASSIGN];
	struct cli_list set_lists[CLI_MAX_ASSIGN];	/* [i].n > 0: sets[i] is a list */
	size_t nsets;
	struct cli_assign param_args[CLI_MAX_ASSIGN];
	struct cli_list param_lists[CLI_MAX_ASSIGN];	/* [i].n > 0: param_args[i] is a list */
	size_t nparam_args;
	uint64_t seen;		/* bit per single-use option, to catch duplicates */
	bool sample_given;
};

/*
 * Parse and validate argv. Returns 0, or -EINVAL (bad input) / -ENOMEM with
 * one line in err. With --help or --list set, nothing beyond the options
 * themselves is required or resolved.
 */
int cli_parse(struct cli *c, int argc, char **argv, char *err, size_t len);
void cli_free(struct cli *c);

void cli_usage(FILE *f);
/* The same text as a man page (roff), for `cmake --install`. */
void cli_man(FILE *f, const char *version);
/* Every policy with its knobs and every workload with its parameters. */
void cli_list(FILE *f);

#endif
