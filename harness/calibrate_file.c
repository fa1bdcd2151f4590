/*
 * calibrate_file.c - the calibration's table and its cost file (calibrate.h).
 */
#define _GNU_SOURCE
#include "calibrate_impl.h"

void calibrate_print(const struct calibration *cal, FILE *f)
{
	fprintf(f, "%-14s %10s %21s %7s %8s  %s\n", "cost", "measured", "range over passes",
		"file", "default", "meaning");
#define X(name, def, help)                                                                   \
	do {                                                                                 \
		char range[32];                                                              \
		snprintf(range, sizeof range, "%.1f..%.1f", cal->lo.name, cal->hi.name);     \
		fprintf(f, "%-14s %10.1f %21s %7llu %8llu  %s\n", #name, cal->ns.name,      \
			range, (unsigned long long)cal->costs.name, (unsigned long long)(def), \
			help);                                                               \
	} while (0);
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	fprintf(f, "(ns; measured: median over %u passes, each the median of %u repetitions; "
		   "file: what the cost file holds, at least 1)\n", cal->passes, cal->reps);
	for (uint32_t i = 0; i < cal->nwork; i++) {
		const struct calibrate_work *cw = &cal->work[i];
		fprintf(f, "%s%-20s %6.1f ns per %-5s (1-worker run %.1f, sim without work %.1f "
			   "ns per poll; sequential %.1f ns per task; %s)\n", i ? "" : "\n",
			cw->workload, cw->ns, cw->per_spawn ? "spawn" : "poll", cw->run_ns_per_poll,
			cw->mech_ns_per_poll, cw->seq_ns_per_task,
			cw->params ? cw->params : "default parameters");
	}
}

int calibrate_file_open(struct calibrate_file *cf, const char *path, char *err, size_t len)
{
	cf->path = path;
	cf->f = NULL;
	int n = snprintf(cf->tmp, sizeof cf->tmp, "%s.%ld.tmp", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof cf->tmp) {
		snprintf(err, len, "cost file path too long: %.200s", path);
		return -1;
	}
	cf->f = fopen(cf->tmp, "w");
	if (!cf->f) {
		snprintf(err, len, "cannot write %.900s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void calibrate_file_abort(struct calibrate_file *cf)
{
	if (!cf->f)
		return;
	fclose(cf->f);
	cf->f = NULL;
	unlink(cf->tmp);
}

/* Which runs a 2-worker fit took its target from, in words: "the median
 * of 3 runs in the round-trip regime 64.0..75.2 ns (of 5 made)". The
 * validation (scripts/reproduce.sh) reads the regime back from it. */
const char *fit_runs_text(const struct calibrate_fit *fit, char *buf, size_t len)
{
	if (fit->kept)
		snprintf(buf, len, "the median of %u runs in the round-trip regime %.1f..%.1f ns "
			 "(of %u made)", fit->kept, fit->c2c_lo, fit->c2c_hi, fit->runs);
	else
		snprintf(buf, len, "the median of %u runs (round trip not probed)", fit->runs);
	return buf;
}

/* A figure fitted on a 2-worker run, with what it is and the runs it was
 * fitted on, as a comment and a `name = ns` line. */
static void print_fit(FILE *f, const struct calibration *cal, const struct calibrate_fit *fit,
		      const char *what, const char *name, uint64_t ns, const char *help)
{
	char how[160];
	fprintf(f, "# fitted, not measured: %s\n# that makes the 2-worker sim of %s on %s (%s) land "
		   "on its 2-worker run,\n# %s: run %.2f ms at the work fit's speed (the share of "
		   "each that the sim without it accounts for scaled by volt's 1-worker run just "
		   "before it, median factor %.2f), sim %.2f ms (%.2f ms without it)\n%-13s = "
		   "%-6llu # %s\n", what, fit->policy, cal->fit.workload,
		cal->fit.params ? cal->fit.params : "defaults", fit_runs_text(fit, how, sizeof how),
		fit->run_ns / 1e6, fit->scale, fit->sim_ns / 1e6, fit->sim0_ns / 1e6, name,
		(unsigned long long)ns, help);
}

void calibrate_print_costs(FILE *f, const char *path, const struct calibration *cal)
{
	char when[32];
	time_t t = (time_t)cal->when;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(when, sizeof when, "unknown");

	fprintf(f, "# Simulation costs in ns (name = ns), measured by harness --calibrate.\n"
		   "# Load with: harness --engine=sim --costs %s\n"
		   "# measured %s on host %s, cpu %s, %u online CPUs\n",
		path, when, cal->host, cal->cpu, cal->cpus);
	if (cal->c2c_ns > 0)
		fprintf(f, "# core-to-core round trip (CPU 0 <-> 1, median): %.1f ns before, "
			   "%.1f ns after\n", cal->c2c_ns, cal->c2c_end_ns);
	else
		fprintf(f, "# core-to-core round trip: not measured\n");
	if (cal->state_kept)
		fprintf(f, "# the host's common state before the runs: %u of %u probes %.0f ms apart\n",
			cal->state_kept, cal->state_samples, CALIBRATE_STATE_GAP_NS / 1e6);
	if (cal->regime_hi > 0)
		fprintf(f, "# threads runs taken in the round-trip regime %.1f..%.1f ns (probed before "
			   "and after each)\n", cal->regime_lo, cal->regime_hi);
	if (cal->speed_hi[0] > 0 || cal->speed_hi[1] > 0)
		fprintf(f, "# threads runs taken at the compute speed %.0f..%.0f ns on 1 worker (its "
			   "CPU), %.0f..%.0f ns on 2 (the slower CPU; a recursive fib(17), timed before "
			   "and after each)\n", cal->speed_lo[0], cal->speed_hi[0], cal->speed_lo[1],
			cal->speed_hi[1]);
	fprintf(f, "# steals and wakes measured %s\n"
		   "# each figure is the median over %u passes, each the median of %u repetitions;\n"
		   "# after it: its meaning, the default, the measured figure and its range\n",
		cal->pinned ? "between CPUs 0 and 1" : "unpinned", cal->passes, cal->reps);
#define X(name, def, help)                                                                   \
	if ((!cal->lock_fitted || strcmp(#name, "lock_transfer") != 0) &&                    \
	    (!cal->contended_fit.fitted || strcmp(#name, "contended") != 0))                 \
		fprintf(f, "%-13s = %-6llu # %s (default %llu; measured %.2f, %.2f..%.2f)\n", \
			#name, (unsigned long long)cal->costs.name, help,                    \
			(unsigned long long)(def), cal->ns.name, cal->lo.name, cal->hi.name);
	SIM_COSTS(X)
	SIM_MODEL_COSTS(X)
#undef X
	if (cal->nwork)
		fprintf(f, "# each workload's work per poll outside the scheduler: the median "
			   "1-worker volt run's\n# makespan per poll less the 1-worker sim's without "
			   "work, at the costs above\n# (with the parameters named); per spawn where "
			   "the work comes with each child\n");
	for (uint32_t i = 0; i < cal->nwork; i++) {
		const struct calibrate_work *cw = &cal->work[i];
		char name[64];
		snprintf(name, sizeof name, "work.%s", cw->workload);
		fprintf(f, "%-18s = %-6llu # %s; %srun %.1f, sim without work %.1f ns per poll; "
			   "sequential %.1f ns per task\n", name,
			(unsigned long long)whole_ns(cw->ns), cw->params ? cw->params : "defaults",
			cw->per_spawn ? "per spawn; " : "", cw->run_ns_per_poll, cw->mech_ns_per_poll,
			cw->seq_ns_per_task);
	}
	if (cal->npolicy)
		fprintf(f, "# fitted, not measured: each policy's own cost per poll beyond the "
			   "mechanisms above\n# and volt's share of the work, the median of its "
			   "1-worker %s (%s) runs per poll,\n# brought to the machine's speed at the "
			   "work's fit by volt's runs just before,\n# less the 1-worker sim's (volt: 0 "
			   "by construction; negative: less than volt's)\n", cal->fit.workload,
			   cal->fit.params ? cal->fit.params : "defaults");
	for (uint32_t i = 0; i < cal->npolicy; i++) {
		const struct calibrate_policy *cp = &cal->policy[i];
		char name[64];
		snprintf(name, sizeof name, "poll.%s", cp->policy);
		char beside[128] = "";
		if (cp->volt_ns_per_poll > 0)
			snprintf(beside, sizeof beside, " volt beside it %.1f (%.1f at the work's "
				 "fit), so %.1f;", cp->volt_ns_per_poll, cp->volt_ns_per_poll *
				 cp->target_ns_per_poll / cp->run_ns_per_poll,
				 cp->target_ns_per_poll);
		fprintf(f, "%-22s = %-6lld # run %.1f,%s sim without it %.1f ns per poll\n", name,
			(long long)llround(cp->ns), cp->run_ns_per_poll, beside,
			cp->sim_ns_per_poll);
	}
	if (cal->contended_fit.fitted)
		print_fit(f, cal, &cal->contended_fit, "what a migrated cold start or a remote join "
			  "costs beyond the figures above in a 2-worker run,", "contended",
			  cal->costs.contended,
			  "a migrated cold start or remote join beyond the uncontended figures "
			  "(default 0)");
	if (cal->lock_fitted) {
		char help[192];
		snprintf(help, sizeof help, "taking the global queue's lock last taken by another "
			 "worker (default 0; the queue's lines alone measured %.2f, %.2f..%.2f)",
			 cal->ns.lock_transfer, cal->lo.lock_transfer, cal->hi.lock_transfer);
		print_fit(f, cal, &cal->lock_fit, "the lock transfer, a taking of the global queue's "
			  "lock after another worker,", "lock_transfer",
			  cal->costs.lock_transfer, help);
	}
}

int calibrate_file_commit(struct calibrate_file *cf, const struct calibration *cal, char *err,
			  size_t len)
{
	FILE *f = cf->f;

	calibrate_print_costs(f, cf->path, cal);
	/* On disk before the rename: a reader finds no file or a whole one. */
	int rc = fflush(f) != 0 || ferror(f) ? EIO : 0;
	if (rc == 0 && fsync(fileno(f)) != 0)
		rc = errno;
	if (fclose(f) != 0 && rc == 0)
		rc = errno;
	cf->f = NULL;
	if (rc == 0 && rename(cf->tmp, cf->path) != 0)
		rc = errno;
	if (rc) {
		unlink(cf->tmp);
		snprintf(err, len, "cannot write %.900s: %s", cf->path, strerror(rc));
		return -1;
	}
	return 0;
}

int calibrate_write(const char *path, const struct calibration *cal, char *err, size_t len)
{
	struct calibrate_file cf;
	if (calibrate_file_open(&cf, path, err, len))
		return -1;
	return calibrate_file_commit(&cf, cal, err, len);
}
