/*
 * test_calibrate.c - `harness --calibrate`'s measurements and cost file: a
 * short calibration gives every cost a well-formed figure (finite, not
 * negative, inside its range over passes, rounded into the file; no upper
 * bound, the figures are timings of a possibly loaded machine), the
 * what-if io_delay stays 0, the file it writes loads back
 * with sim_costs_load to exactly the values measured and appears atomically,
 * and a cost file naming an unknown cost is rejected with the valid names;
 * a workload's calibrated work makes the 1-worker sim of volt reproduce the
 * threads run it was measured on.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/calibrate.h"
#include "core/costs.h"
#include "test.h"

static char dir[64];

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Names of the files in dir, sorted out by the caller; returns the count. */
static int files_in_dir(char names[][256], int max)
{
	DIR *d = opendir(dir);
	ASSERT(d != NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n < max)
			snprintf(names[n], 256, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static struct calibration cal;

static void measures_every_cost(void)
{
	/* Two passes of three repetitions: quick, and enough for sanity
	 * bounds. */
	ASSERT_EQ(calibrate_costs(&cal, 2, 3, stderr), 0);
	ASSERT_EQ(cal.reps, 3);
	ASSERT_EQ(cal.passes, 2);
	ASSERT(cal.cpus >= 1);
	ASSERT(cal.host[0] != '\0');
	ASSERT(cal.cpu[0] != '\0');
	ASSERT(cal.when > 0);
#define X(name, def, help)                                                            \
	do {                                                                          \
		if (!(isfinite(cal.ns.name) && cal.ns.name >= 0))                     \
			TEST_FAIL("cost %s measured %g ns", #name, cal.ns.name);      \
		ASSERT(cal.lo.name <= cal.ns.name && cal.ns.name <= cal.hi.name);     \
		if (strcmp(#name, "io_delay") == 0) {                                 \
			ASSERT_U64_EQ(cal.costs.name, 0);                             \
			break;                                                        \
		}                                                                     \
		/* The file holds the figure rounded (at least 1). */                 \
		ASSERT(cal.costs.name >= 1);                                          \
		ASSERT(fabs((double)cal.costs.name - cal.ns.name) <= 1.0);            \
	} while (0);
	SIM_COSTS(X)
#undef X
	/* The deep notify's three, each pass's the calibration's decision
	 * (calibrate_pair.c, bench_notify_deep): halt_poll one of the sleeps
	 * tried or 0, halt_poll_shrink 0 or 2, notify_deep 0 or above notify
	 * by half; their medians over the passes lie within the same ranges. */
	ASSERT(cal.ns.halt_poll >= 0 && cal.ns.halt_poll <= 400000);
	ASSERT(cal.ns.halt_poll_shrink >= 0 && cal.ns.halt_poll_shrink <= 2);
	ASSERT(cal.lo.halt_poll_shrink == 0 || cal.lo.halt_poll_shrink == 2);
	ASSERT(cal.hi.halt_poll_shrink == 0 || cal.hi.halt_poll_shrink == 2);
	ASSERT(cal.ns.notify_deep >= 0 && isfinite(cal.ns.notify_deep));
	if (cal.cpus >= 2) {
		/* CPUs 0 and 1 exist: the probe ran and the threads were pinned. */
		ASSERT(isfinite(cal.c2c_ns) && cal.c2c_ns > 0);
		ASSERT(isfinite(cal.c2c_end_ns) && cal.c2c_end_ns > 0);
	}
	calibrate_print(&cal, stderr);
	/* The fits after this make few runs: what they are checked for is how
	 * the runs are used (a run whose sim must land on its figure), not how
	 * many a good figure needs, and 50 runs of each of four workloads and
	 * three policies, with their probes, took 40 of this test's 50 s on a
	 * loaded machine. */
	cal.runs_max = 6;
	cal.runs_min_ns = 1;
	cal.state_samples = 8;
}

static void file_loads_back(void)
{
	char path[128], names[4][256], err[1024];
	path_in_dir(path, sizeof path, "costs");
	ASSERT_EQ(calibrate_write(path, &cal, err, sizeof err), 0);
	/* Renamed into place: no temporary file left beside it. */
	ASSERT_EQ(files_in_dir(names, 4), 1);
	ASSERT_STR_EQ(names[0], "costs");

	/* Every cost is in the file: start from values the file must
	 * overwrite, one by one. */
	struct sim_costs got;
#define X(name, def, help) got.name = UINT64_MAX;
	SIM_COSTS(X)
#undef X
	if (sim_costs_load(&got, path, err, sizeof err) != 0)
		TEST_FAIL("%s", err);
#define X(name, def, help) ASSERT_U64_EQ(got.name, cal.costs.name);
	SIM_COSTS(X)
#undef X

	/* The header says where and when: comments the loader skips. */
	FILE *f = fopen(path, "r");
	ASSERT(f != NULL);
	char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	ASSERT(text[0] == '#');
	ASSERT(strstr(text, cal.host) != NULL);
	ASSERT(strstr(text, cal.cpu) != NULL);
	if (cal.c2c_ns > 0)
		ASSERT(strstr(text, "core-to-core round trip") != NULL);

	/* Written again: replaced whole, still one file. */
	struct calibration other = cal;
	other.costs.poll = cal.costs.poll + 1;
	ASSERT_EQ(calibrate_write(path, &other, err, sizeof err), 0);
	ASSERT_EQ(files_in_dir(names, 4), 1);
	sim_costs_default(&got);
	ASSERT_EQ(sim_costs_load(&got, path, err, sizeof err), 0);
	ASSERT_U64_EQ(got.poll, cal.costs.poll + 1);
	unlink(path);
}

static void unwritable_place_and_abort(void)
{
	char path[128], names[4][256], err[1024] = "";
	struct calibrate_file cf;
	path_in_dir(path, sizeof path, "no-such-dir/costs");
	ASSERT(calibrate_file_open(&cf, path, err, sizeof err) != 0);
	ASSERT(strstr(err, "no-such-dir") != NULL);
	ASSERT_EQ(files_in_dir(names, 4), 0);

	/* Opened, then abandoned (a failed calibration): nothing remains. */
	path_in_dir(path, sizeof path, "costs");
	ASSERT_EQ(calibrate_file_open(&cf, path, err, sizeof err), 0);
	ASSERT_EQ(files_in_dir(names, 4), 1);
	calibrate_file_abort(&cf);
	ASSERT_EQ(files_in_dir(names, 4), 0);
}

/* A cost file of `text` at `path`, replaced whole. */
static void put_costs(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ASSERT(f != NULL);
	fputs(text, f);
	ASSERT_EQ(fclose(f), 0);
}

static void unknown_cost_rejected(void)
{
	char path[128], err[1024] = "";
	path_in_dir(path, sizeof path, "bad");
	put_costs(path, "# a comment\npoll = 5\nsteal_atempt = 3   # misspelt\n");
	struct sim_costs c;
	sim_costs_default(&c);
	ASSERT(sim_costs_load(&c, path, err, sizeof err) != 0);
	ASSERT(strstr(err, ":3:") != NULL);		/* the line */
	ASSERT(strstr(err, "steal_atempt") != NULL);	/* the name */
#define X(name, def, help)                                                    \
	if (!strstr(err, #name))                                              \
		TEST_FAIL("the message does not name cost %s: %s", #name, err);
	SIM_COSTS(X)
#undef X
	unlink(path);
}

/* A cost file may set the switches too (a real runtime's fit writes
 * task_list = 1), each once. */
static void switches_load(void)
{
	char path[128], err[1024] = "";
	path_in_dir(path, sizeof path, "switches");
	put_costs(path, "poll = 5\ntask_list = 1\nsema_table = 1\nio_poll = 1\nhorizon = 0\n"
			"span = 0\ncausal = 0\n");
	struct sim_costs c;
	sim_costs_default(&c);
	ASSERT(!c.task_list && !c.sema_table && !c.io_poll && !c.no_horizon && !c.no_span &&
	       !c.acausal);
	if (sim_costs_load(&c, path, err, sizeof err) != 0)
		TEST_FAIL("%s", err);
	ASSERT(c.task_list && c.sema_table && c.io_poll && c.no_horizon && c.no_span && c.acausal);
	ASSERT_U64_EQ(c.poll, 5);
	put_costs(path, "task_list = 1\ntask_list = 0\n");
	ASSERT(sim_costs_load(&c, path, err, sizeof err) != 0);
	ASSERT(strstr(err, ":2:") != NULL && strstr(err, "given twice") != NULL);
	unlink(path);
}

/*
 * Small sizes of four workloads: each one's work is the median 1-worker
 * threads run less the 1-worker sim without work, so the sim with that
 * work per poll (per spawn for UTS) lands on the run (to the rounding of
 * the work to whole ns, and the last poll, whose charge comes after the
 * run's end).
 */
static void work_reproduces_the_run(void)
{
	static const struct calibrate_work_spec spec[] = {
		{ "fib", "n=12" }, { "nqueens", "n=6" }, { "spawn-many", "n=300" },
		{ "uts", "preset=2" },
	};
	ASSERT_EQ(cal.regime_hi, 0);
	ASSERT_EQ(calibrate_workloads_of(&cal, 1, stderr, spec, 4), 0);
	ASSERT_EQ(cal.nwork, 4);
	/* Two CPUs: the host's common state was probed first and set the
	 * regime, both round trip and compute speed. */
	if (cal.cpus >= 2)
		ASSERT(cal.state_kept > 0 && cal.regime_hi >= cal.regime_lo && cal.regime_lo > 0 &&
		       cal.speed_hi[0] >= cal.speed_lo[0] && cal.speed_lo[0] > 0 &&
		       cal.speed_hi[1] >= cal.speed_lo[1] && cal.speed_lo[1] > 0);
	for (uint32_t i = 0; i < 4; i++) {
		const struct calibrate_work *cw = &cal.work[i];
		struct sim_costs c = cal.costs;
		uint64_t ns, polls;
		ASSERT(strcmp(cw->workload, spec[i].workload) == 0);
		ASSERT(cw->polls > 0 && isfinite(cw->ns) && cw->ns >= 0);
		/* UTS's work comes with each child: fitted per spawn. */
		ASSERT_EQ(cw->per_spawn, strcmp(cw->workload, "uts") == 0);
		c.work = 0;
		ASSERT_EQ(calibrate_sim_run(&spec[i], &c, &ns, &polls), 0);
		ASSERT_U64_EQ(polls, cw->polls);
		ASSERT(fabs((double)ns / (double)polls - cw->mech_ns_per_poll) < 1e-9 * (double)ns);
		if (cw->ns == 0)
			continue;	/* the run was faster than the sim's mechanisms */
		/* A run slowed by a loaded machine calibrates a work of
		 * microseconds per poll, and queued tasks then wait past
		 * cold_after and pay aged cold starts the measured run's sim
		 * (without work) never paid: keep them out of this check. And
		 * a slow machine's mechanisms alone can age them (a UTS of a
		 * few thousand polls under ThreadSanitizer): those the sim
		 * without work paid (aged, in ns), the check takes off the
		 * run. */
		uint64_t ns0;
		c.cold_after = UINT64_MAX;
		ASSERT_EQ(calibrate_sim_run(&spec[i], &c, &ns0, &polls), 0);
		ASSERT(ns0 <= ns);
		double aged = (double)(ns - ns0);
		c.work = (uint64_t)llround(cw->ns);
		ASSERT_EQ(calibrate_sim_run(&spec[i], &c, &ns, &polls), 0);
		double run = cw->run_ns_per_poll * (double)polls;
		fprintf(stderr, "    %s: run %.0f ns (%.0f of aged cold starts), sim with work.%s = %llu: "
			"%llu ns\n", cw->workload, run, aged, cw->workload, (unsigned long long)c.work,
			(unsigned long long)ns);
		ASSERT(fabs((double)ns - (run - aged)) <= 0.5 * (double)polls + (double)c.work + 1);
	}
}

/*
 * The fitted figures on a small fib (after work_reproduces_the_run, whose
 * work.fib they build on): each policy's poll.NAME makes its 1-worker sim
 * land on the median run it was fitted on (to the rounding to whole ns);
 * the lock transfer's sim is the one the calibration recorded; and the
 * file gives them back, the lock transfer and the contended figure once.
 */
/* poll.NAME as written (sim_costs_policy_poll gives it held at the floor
 * of the workload set in `c`, and cal.costs has none set). */
static int64_t written_poll(const struct sim_costs *c, const char *policy)
{
	for (uint32_t i = 0; i < c->npolicy; i++)
		if (strcmp(c->policies[i].name, policy) == 0)
			return (int64_t)c->policies[i].ns;
	TEST_FAIL("no poll.%s", policy);
	return 0;
}

static void fitted_figures_reproduce_their_runs(void)
{
	static const struct calibrate_work_spec fit = { "fib", "n=12" };
	static const char *const policies[] = { "go", "central-queue", NULL };
	ASSERT_EQ(calibrate_policies_of(&cal, 1, stderr, &fit, policies, "go"), 0);
	ASSERT_EQ(cal.npolicy, 2);
	for (uint32_t i = 0; i < cal.npolicy; i++) {
		const struct calibrate_policy *cp = &cal.policy[i];
		ASSERT(strcmp(cp->policy, policies[i]) == 0);
		ASSERT(isfinite(cp->ns));
		/* Brought to the machine's speed at the work's fit, when that
		 * was of this workload and size, by volt's runs beside the
		 * policy's: the file's three figures agree. */
		const struct calibrate_work *ref = NULL;
		for (uint32_t k = 0; k < cal.nwork; k++)
			if (strcmp(cal.work[k].workload, "fib") == 0 && cal.work[k].params &&
			    strcmp(cal.work[k].params, fit.params) == 0)
				ref = &cal.work[k];
		ASSERT(ref != NULL);
		ASSERT(cp->volt_ns_per_poll > 0 && cp->run_ns_per_poll > 0);
		ASSERT(fabs(cp->target_ns_per_poll - cp->run_ns_per_poll *
			    ref->run_ns_per_poll / cp->volt_ns_per_poll) <
		       1e-9 * cp->target_ns_per_poll);
		ASSERT(fabs(cp->ns - (cp->target_ns_per_poll - cp->sim_ns_per_poll)) < 1e-9 *
		       cp->target_ns_per_poll);
		int64_t pp = written_poll(&cal.costs, cp->policy);
		uint64_t ns, polls;
		ASSERT(pp == llround(cp->ns));
		/* The costs as they stood when poll.NAME was fitted, with it:
		 * the 2-worker fits change the lock transfer and the contended
		 * figure afterwards, and a 1-worker run pays them too (the
		 * root's injection from outside the workers): a few ns against
		 * milliseconds here, tens of us on a sanitizer build's figures. */
		struct sim_costs c = cal.poll_base;
		char name[64];
		snprintf(name, sizeof name, "poll.%s", cp->policy);
		ASSERT_EQ(sim_costs_set(&c, name, (uint64_t)pp), 0);
		ASSERT_EQ(calibrate_policy_sim_run(&fit, cp->policy, 1, &c, &ns, &polls), 0);
		/* What the sim charged: the figure, or the floor of fib's
		 * run, minus the poll cost and work.fib. */
		struct sim_costs cf = c;
		sim_costs_use_work(&cf, "fib", false);
		int64_t charged = sim_costs_policy_poll(&cf, cp->policy);
		ASSERT(charged == (pp > -(int64_t)(cf.poll + cf.work) ? pp :
				   -(int64_t)(cf.poll + cf.work)));
		fprintf(stderr, "    poll.%s = %lld: run %.0f ns (%.0f at the work's fit), sim "
			"%llu ns\n", cp->policy, (long long)pp, cp->run_ns_per_poll * (double)polls,
			cp->target_ns_per_poll * (double)polls, (unsigned long long)ns);
		/* To the rounding, and within 1%: the fit takes the sim's
		 * makespan as linear in the per-poll figure, which it is but
		 * for a few us when the figure is large (a sanitizer build's:
		 * 0.1 to 0.6% of go's run seen under TSan). A figure held at
		 * the floor (a poll's whole charge 0) does not reach it. */
		double run = cp->target_ns_per_poll * (double)polls;
		if (charged != pp)
			ASSERT((double)ns > run);
		else
			ASSERT(fabs((double)ns - run) <= 0.5 * (double)polls +
						      (double)llabs(pp) + 1 + 0.01 * run);
	}
	if (cal.cpus >= 2) {
		uint64_t ns, polls;
		ASSERT(cal.lock_fitted);
		ASSERT_EQ(calibrate_policy_sim_run(&fit, "go", 2, &cal.costs, &ns, &polls), 0);
		ASSERT(fabs((double)ns - cal.lock_fit.sim_ns) < 1);
		ASSERT(cal.costs.lock_transfer == 0 || cal.lock_fit.sim0_ns < cal.lock_fit.run_ns);
		/* Brought to the work fit's speed as poll.NAME is (fib n=12 was
		 * the work's fit here): a volt run made beside each. */
		ASSERT(cal.lock_fit.scale > 0 && cal.contended_fit.scale > 0);
		ASSERT(cal.contended_fit.fitted);
		ASSERT(cal.costs.contended == 0 ||
		       cal.contended_fit.sim0_ns < cal.contended_fit.run_ns);
	}
	char path[256];
	path_in_dir(path, sizeof path, "fitted.txt");
	FILE *f = fopen(path, "w");
	ASSERT(f != NULL);
	calibrate_print_costs(f, path, &cal);
	fclose(f);
	struct sim_costs back;
	char err[256];
	sim_costs_default(&back);
	if (sim_costs_load(&back, path, err, sizeof err) != 0)
		TEST_FAIL("the fitted file does not load back: %s", err);
	/* The header names the probes made, not the default count. */
	if (cal.state_kept) {
		char text[8192];
		f = fopen(path, "r");
		ASSERT(f != NULL);
		size_t len = fread(text, 1, sizeof text - 1, f);
		fclose(f);
		text[len] = '\0';
		ASSERT(strstr(text, " of 8 probes ") != NULL);
	}
	ASSERT_U64_EQ(back.lock_transfer, cal.costs.lock_transfer);
	ASSERT_U64_EQ(back.contended, cal.costs.contended);
	for (uint32_t i = 0; i < cal.npolicy; i++)
		ASSERT(written_poll(&back, cal.policy[i].policy) ==
		       written_poll(&cal.costs, cal.policy[i].policy));
	unlink(path);
}

/*
 * A 2-worker fit's target on a virtual machine whose round trip moves
 * between about 30, 70 and 400 ns: the median run of the most populous
 * regime, not of all runs (those of another regime can be quicker or
 * slower) nor of the lowest regime (30 ns: SMT siblings, quick to share
 * lines, slow to compute), and never a run whose regime changed during it.
 */
static void fit_targets_one_regime(void)
{
	const struct calibrate_probed_run r[] = {
		{ 200e6, 65, 71, 0, 0 },	/* 70 ns */
		{ 180e6, 410, 400, 0, 0 },	/* 400 ns */
		{ 185e6, 70, 405, 0, 0 },	/* moved during the run */
		{ 196e6, 69, 66, 0, 0 },	/* 70 ns */
		{ 170e6, 29, 30, 0, 0 },	/* 30 ns, the fastest of all */
		{ 235e6, 80, 74, 0, 0 },	/* 70 ns */
		{ 190e6, 380, 74, 0, 0 },	/* moved */
		{ 175e6, 420, 395, 0, 0 },	/* 400 ns */
	};
	struct calibrate_fit f;
	ASSERT_EQ(calibrate_select_regime(r, 8, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 3);
	ASSERT(f.run_ns == 200e6);	/* the median of 196, 200 and 235 */
	ASSERT(f.c2c_lo == 65 && f.c2c_hi == 80);
	/* An earlier fit's regime decides while a run shares it... */
	ASSERT_EQ(calibrate_select_regime(r, 8, 395, 420, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 2);
	ASSERT(f.run_ns == 177.5e6 && f.c2c_lo == 395 && f.c2c_hi == 420);
	/* ...and when none does, the most populous again. */
	ASSERT_EQ(calibrate_select_regime(r, 8, 5, 6, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 3);
	ASSERT(f.run_ns == 200e6);
	/* A tie between regimes: the one with the faster median. */
	const struct calibrate_probed_run tie[] = { { 330e6, 400, 410, 0, 0 }, { 320e6, 70, 72, 0, 0 },
						    { 300e6, 395, 412, 0, 0 }, { 340e6, 66, 71, 0, 0 } };
	ASSERT_EQ(calibrate_select_regime(tie, 4, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 2);
	ASSERT(f.run_ns == 315e6 && f.c2c_lo == 395 && f.c2c_hi == 412);
	/* Nothing probed (one CPU): the median of all, no regime. */
	const struct calibrate_probed_run none[] = { { 5e6, NAN, NAN, 0, 0 }, { 4e6, NAN, NAN, 0, 0 },
						     { 9e6, NAN, NAN, 0, 0 } };
	ASSERT_EQ(calibrate_select_regime(none, 3, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 0);
	ASSERT(f.run_ns == 5e6 && f.c2c_lo == 0 && f.c2c_hi == 0);
	ASSERT(f.speed_lo == 0 && f.speed_hi == 0);
	/* The compute probes: the range of the kept runs' only (not those of
	 * the other round-trip regime, nor of a run whose speed moved during
	 * it; a probe that was not made counts for nothing). */
	const struct calibrate_probed_run sp[] = { { 200e6, 65, 71, 4017, 4030 },
						   { 180e6, 410, 400, 6500, 6100 },
						   { 196e6, 69, 66, 4012, 5900 },
						   { 210e6, 70, 72, NAN, 4040 } };
	ASSERT_EQ(calibrate_select_regime(sp, 4, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 2);
	ASSERT(f.run_ns == 205e6 && f.speed_lo == 4017 && f.speed_hi == 4040);
	const struct calibrate_probed_run sp1[] = { { 5e6, NAN, NAN, 4100, 4000 },
						    { 4e6, NAN, NAN, 0, 6000 } };
	ASSERT_EQ(calibrate_select_regime(sp1, 2, 0, 0, 0, 0, &f), 0);
	ASSERT(f.speed_lo == 4000 && f.speed_hi == 6000);
	/* The regime is one compute speed too: of the runs in one round-trip
	 * regime, those at the more populous speed (6,000 ns: three against
	 * two), never one whose speed moved during it; an earlier fit's speed
	 * decides while a run shares it. */
	const struct calibrate_probed_run two[] = { { 200e6, 70, 72, 4017, 4020 },
						    { 300e6, 71, 70, 6000, 6100 },
						    { 290e6, 69, 73, 6200, 5900 },
						    { 205e6, 72, 70, 4015, 4018 },
						    { 250e6, 70, 71, 4017, 6050 },
						    { 310e6, 68, 70, 5950, 6150 } };
	ASSERT_EQ(calibrate_select_regime(two, 6, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 3);
	ASSERT(f.run_ns == 300e6 && f.speed_lo == 5900 && f.speed_hi == 6200);
	ASSERT_EQ(calibrate_select_regime(two, 6, 68, 73, 4015, 4020, &f), 0);
	ASSERT_EQ(f.kept, 2);
	ASSERT(f.run_ns == 202.5e6 && f.speed_lo == 4015 && f.speed_hi == 4020);
	/* No run at the preferred speed: the most populous again. */
	ASSERT_EQ(calibrate_select_regime(two, 6, 68, 73, 9000, 9100, &f), 0);
	ASSERT_EQ(f.kept, 3);
	ASSERT(f.run_ns == 300e6);
	/* A run without compute probes belongs to every speed's band but
	 * centres none (its band would hold both speeds), and a run with one
	 * probe is judged by that one: two bands of four, 4,015..4,020 ns and
	 * about 6,050, and the faster median wins the tie. */
	const struct calibrate_probed_run missing[] = { { 200e6, 70, 72, 4017, 4020 },
							{ 300e6, 71, 70, 6000, 6100 },
							{ 290e6, 69, 73, 6200, 5900 },
							{ 205e6, 72, 70, 4015, 4018 },
							{ 310e6, 68, 70, 5950, 6150 },
							{ 330e6, 70, 71, NAN, NAN },
							{ 210e6, 70, 70, 0, 4016 } };
	ASSERT_EQ(calibrate_select_regime(missing, 7, 0, 0, 0, 0, &f), 0);
	ASSERT_EQ(f.kept, 4);
	ASSERT(f.run_ns == 207.5e6 && f.speed_lo == 4015 && f.speed_hi == 4020);
}

/*
 * A run brought to the work fit's speed: whole when no share is given (a
 * 1-worker run, all compute), else only its compute share, so that a
 * lock-bound run (go's 2-worker fib: 250 ms, of which the sim without the
 * lock transfer accounts for 80) moves by that share's drift, not by the
 * whole run's; a share beyond the whole run scales the whole.
 */
static void scaled_in_its_share(void)
{
	ASSERT(fabs(calibrate_at_fit_speed(200, 1.25, 0) - 250) < 1e-9);
	ASSERT(fabs(calibrate_at_fit_speed(200, 0.8, 0) - 160) < 1e-9);
	/* 80 ns at the fit's speed takes 64 now, when the fit's took 1.25 times now's: +16. */
	ASSERT(fabs(calibrate_at_fit_speed(200, 1.25, 80) - 216) < 1e-9);
	/* ... 100 now at 0.8 times its time: -20. */
	ASSERT(fabs(calibrate_at_fit_speed(200, 0.8, 80) - 180) < 1e-9);
	ASSERT(fabs(calibrate_at_fit_speed(200, 1.25, 400) - 250) < 1e-9);
	ASSERT(fabs(calibrate_at_fit_speed(200, 1, 80) - 200) < 1e-9);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_calibrate.XXXXXX");
	ASSERT(mkdtemp(dir) != NULL);
	RUN(fit_targets_one_regime);
	RUN(scaled_in_its_share);
	RUN(measures_every_cost);
	RUN(file_loads_back);
	RUN(unwritable_place_and_abort);
	RUN(unknown_cost_rejected);
	RUN(switches_load);
	RUN(work_reproduces_the_run);
	RUN(fitted_figures_reproduce_their_runs);
	ASSERT_EQ(rmdir(dir), 0);
	return 0;
}
