/*
 * report.c - the summary printer, the result document and the atomic
 * result file (report.h).
 *
 * The counter list comes from WORKER_COUNTERS (core/stats.h) through one
 * table, so the JSON writer and the printer cannot drift apart from the
 * struct they read.
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/check.h"
#include "core/knob.h"
#include "core/stats.h"
#include "driver.h"
#include "policies/policy.h"
#include "provenance.h"
#include "workloads/workload.h"

/* ---- the counter table ------------------------------------------------ */

struct counter_desc {
	const char *name;
	const char *help;
	size_t off;
};

static const struct counter_desc counters[] = {
#define X(name, help) { #name, help, offsetof(struct worker_stats, name) },
	WORKER_COUNTERS(X)
#undef X
};

#define NCOUNTERS (sizeof counters / sizeof counters[0])

/* The ones worth a line in the summary; the result file has them all. */
static const char *const summary_counters[] = {
	"polls", "lifo_polls", "local_pops", "global_batches", "global_tasks",
	"steal_attempts", "steals", "tasks_stolen", "overflows", "parks",
	"unparks_notify", "unparks_timeout", "notifies",
};

static uint64_t counter_get(const struct worker_stats *s, const struct counter_desc *d)
{
	return *(const uint64_t *)((const char *)s + d->off);
}

static const struct counter_desc *counter_find(const char *name)
{
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (strcmp(counters[i].name, name) == 0)
			return &counters[i];
	return NULL;
}

/* ---- the readable summary --------------------------------------------- */

static void fmt_duration(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

/* `name=value, ...` of the values in defs, enumerations by name;
 * only_changed skips defaults. */
static void print_values(FILE *f, const struct knob_def *defs, size_t n,
			 const struct knob_enum *enums, const double *v, bool only_changed)
{
	int printed = 0;
	char val[64];

	for (size_t i = 0; i < n; i++) {
		if (only_changed && v[i] == defs[i].def)
			continue;
		knob_format(knob_names(enums, &defs[i]), v[i], val, sizeof val);
		fprintf(f, "%s%s=%s", printed++ ? ", " : "", defs[i].name, val);
	}
	if (!printed)
		fprintf(f, only_changed ? "all at defaults" : "none");
}

void report_header(FILE *f, const struct run_config *cfg, size_t ncfg,
		   const struct provenance *pv)
{
	for (size_t c = 0; c < ncfg; c++) {
		fprintf(f, "%s %s (knobs: ", c ? "          " : "policy    ", cfg[c].name);
		print_values(f, cfg[c].policy->knobs, cfg[c].policy->nknobs,
			     cfg[c].policy->knob_names, cfg[c].knobs, true);
		fprintf(f, ")\n");
	}
	fprintf(f, "workload   %s (", cfg->wl->name);
	/* A parameter crossed with --param differs between the variants: their
	 * names carry its value. */
	for (size_t i = 0; i < cfg->wl->nparams; i++) {
		const struct knob_def *d = &cfg->wl->params[i];
		bool varies = false;
		char val[64];
		for (size_t c = 1; c < ncfg; c++)
			varies |= cfg[c].params[i] != cfg[0].params[i];
		knob_format(knob_names(cfg->wl->param_names, d), cfg->params[i], val, sizeof val);
		fprintf(f, "%s%s=%s", i ? ", " : "", d->name, varies ? "per variant" : val);
	}
	if (cfg->wl->nparams == 0)
		fprintf(f, "none");
	fprintf(f, ")\nworkers    %" PRIu32 "\nengine     %s\nallocator  %s\n", cfg->workers,
		cfg->sim    ? "sim (virtual workers, virtual time; deterministic)"
		: cfg->real ? "real (the runtime the policy models, through its peer program)"
			    : "threads",
		pv->allocator);
	if (!cfg->sim && pv->has_topology) {
		fprintf(f, "machine    %" PRIu32 " packages, %" PRIu32 " NUMA nodes, %" PRIu32
			" L3, %" PRIu32 " cores, %" PRIu32 " CPUs (%s)\n", pv->packages,
			pv->numa_nodes, pv->l3_domains, pv->cores, pv->cpus, pv->topology_source);
		fprintf(f, "pin        %s", pv->pin ? pv->pin : "none");
		for (uint32_t i = 0; pv->worker_cpus && i < pv->nworkers && i < 16; i++)
			fprintf(f, "%s%d", i ? "," : ": CPUs ", pv->worker_cpus[i]);
		fprintf(f, "%s\n", pv->worker_cpus && pv->nworkers > 16 ? ",..." : "");
	}
	if (pv->c2c_ns >= 0)
		fprintf(f, "c2c        %.0f ns core-to-core round trip (CPU 0 <-> 1, median)\n",
			pv->c2c_ns);
	if (cfg->ci_target > 0)
		fprintf(f, "seed       %" PRIu64 " (trials until the median makespan's 95%% interval "
			   "is within +-%g%%: %" PRIu32 " to %" PRIu32 "; %" PRIu32
			   " warm-up, baseline %s)\n",
			cfg->seed, 100 * cfg->ci_target, cfg->trials_min, cfg->trials, cfg->warmup,
			cfg->baseline ? "on" : "off");
	else
		fprintf(f, "seed       %" PRIu64 " (%" PRIu32 " trials, %" PRIu32
			   " warm-up, baseline %s)\n",
			cfg->seed, cfg->trials, cfg->warmup, cfg->baseline ? "on" : "off");
}

static void print_num(FILE *f, int width, int prec, double v, bool sign)
{
	if (isfinite(v))
		fprintf(f, sign ? " %+*.*f" : " %*.*f", width, prec, v);
	else
		fprintf(f, " %*s", width, "-");
}

static void print_trial_row(FILE *f, const char *label, double makespan_ns, double tps,
			    double nspt, double over, double util, const double *wutil, uint32_t nw)
{
	fprintf(f, "%-7s", label);
	print_num(f, 12, 3, makespan_ns / 1e6, false);
	print_num(f, 13, 0, tps, false);
	print_num(f, 9, 1, nspt, false);
	print_num(f, 9, 1, over, true);
	print_num(f, 6, 1, 100 * util, false);
	for (uint32_t i = 0; wutil && i < nw; i++)
		fprintf(f, " %.1f", 100 * wutil[i]);
	fputc('\n', f);
}

static void print_trials(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	char label[16];

	fprintf(f, "\n%-7s %12s %13s %9s %9s %6s  %s\n", "trial", "makespan_ms", "tasks/s",
		"ns/task", "overhead", "util%", "per-worker util%");
	for (uint32_t i = 0; i < res->ntrials; i++) {
		const struct trial *t = &res->trials[i];
		snprintf(label, sizeof label, "%" PRIu32, i + 1);
		print_trial_row(f, label, (double)t->makespan_ns, t->tasks_per_s, t->ns_per_task,
				t->overhead_ns_per_task, t->util_total, t->util, cfg->workers);
	}
	print_trial_row(f, "median", res->median.makespan_ns, res->median.tasks_per_s,
			res->median.ns_per_task, res->median.overhead_ns_per_task,
			res->median.util_total, NULL, 0);
	if (res->baseline)
		fprintf(f, "baseline median %.1f ns/task (sequential, %" PRIu32 " trials)\n",
			res->baseline_median_ns_per_task, res->nbaseline);
	else
		fprintf(f, "baseline skipped (--no-baseline): no overhead figures\n");
}

/* A value and its interval in the value's unit: "107.33 us [103.23, 108.48]";
 * a side the samples do not bound (struct pct_ci's lo_open, hi_open) is
 * "-": one sample's p99.99 is "735.73 us [735.73, -]", never an exact
 * [x, x]. */
static void fmt_ci(char *buf, size_t len, double v, const struct pct_ci *ci, int k)
{
	double unit = v < 1e3 ? 1 : v < 1e6 ? 1e3 : v < 1e9 ? 1e6 : 1e9;
	const char *name = v < 1e3 ? "ns" : v < 1e6 ? "us" : v < 1e9 ? "ms" : "s";
	int prec = unit == 1 ? 0 : 2;
	char lo[32] = "-", hi[32] = "-";
	if (ci->method == PCT_CI_NONE) {
		snprintf(buf, len, "%.*f %s", prec, v / unit, name);
		return;
	}
	if (!ci->lo_open[k])
		snprintf(lo, sizeof lo, "%.*f", prec, ci->lo[k] / unit);
	if (!ci->hi_open[k])
		snprintf(hi, sizeof hi, "%.*f", prec, ci->hi[k] / unit);
	snprintf(buf, len, "%.*f %s [%s, %s]", prec, v / unit, name, lo, hi);
}

/* How the percentiles' intervals were taken (core/pctci.h). */
static void print_ci_method(FILE *f, const struct pct_ci *ci)
{
	switch (ci->method) {
	case PCT_CI_BATCH_TRIALS:
		fprintf(f, "  95%% intervals: batch means over %" PRIu32 " trials\n", ci->batches);
		break;
	case PCT_CI_BATCH_SLICES:
		fprintf(f, "  95%% intervals: batch means over %" PRIu32 " consecutive slices of "
			"the trial\n", ci->batches);
		break;
	case PCT_CI_ORDER_STATS:
		fprintf(f, "  95%% intervals: binomial order statistics (independent samples "
			"assumed; run several trials for batch means)\n");
		break;
	default:
		break;
	}
}

static void print_percentiles(FILE *f, const struct hist *h, const struct pct_ci *ci,
			      const bool *show)
{
	char d[96];
	for (int k = 0; k < PCT_LEVELS; k++) {
		if (!show[k])
			continue;
		fmt_ci(d, sizeof d, (double)hist_percentile(h, pct_level[k]), ci, k);
		fprintf(f, " %s %s,", pct_label[k], d);
	}
	fmt_duration(d, sizeof d, (double)h->max);
	fprintf(f, " max %s\n", d);
	print_ci_method(f, ci);
}

static void print_latency(FILE *f, const char *what, const struct hist *h,
			  const struct pct_ci *ci)
{
	static const bool all[PCT_LEVELS] = { true, true, true, true, true };
	fprintf(f, "%s, %" PRIu64 " samples:", what, h->total);
	if (h->total == 0) {
		fprintf(f, " none\n");
		return;
	}
	print_percentiles(f, h, ci, all);
}

static void print_sched_delay(FILE *f, const struct run_config *cfg, const struct hist *h,
			      const struct pct_ci *ci)
{
	static const bool some[PCT_LEVELS] = { true, false, true, true, false };

	if (cfg->sample_period == 0) {
		fprintf(f, "sched delay: not sampled (--sample 0)\n");
		return;
	}
	fprintf(f, "sched delay (1 in %" PRIu32 " sampled, %" PRIu64 " samples):",
		cfg->sample_period, h->total);
	if (h->total == 0) {
		fprintf(f, " no samples\n");
		return;
	}
	print_percentiles(f, h, ci, some);
}

/* Up to this many workers get a column each; beyond, min and max. */
#define SUMMARY_WORKER_COLUMNS 8

static void print_counter_row(FILE *f, const struct counter_desc *d, const struct run_result *res)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	fprintf(f, "%-16s %14" PRIu64, d->name, counter_get(&res->total, d));
	for (uint32_t w = 0; w < res->nworkers; w++) {
		uint64_t v = counter_get(&res->per_worker[w], d);
		if (res->nworkers <= SUMMARY_WORKER_COLUMNS)
			fprintf(f, " %12" PRIu64, v);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (res->nworkers > SUMMARY_WORKER_COLUMNS)
		fprintf(f, " %12" PRIu64 " %12" PRIu64, lo, hi);
	fputc('\n', f);
}

/* Did the run count this field? Always on the harness's own engines; on
 * --engine=real only what the runtime reported (harness/real.c): a 0
 * nobody counted is not printed as a count. */
static bool counted(const struct run_config *cfg, const struct run_result *res, size_t off)
{
	return !cfg->real || (res->reported >> (off / sizeof(uint64_t)) & 1);
}

static void print_counters(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	char col[16];
	size_t shown = 0;
	for (size_t i = 0; i < sizeof summary_counters / sizeof summary_counters[0]; i++)
		shown += counted(cfg, res, counter_find(summary_counters[i])->off);
	if (shown == 0) {
		fprintf(f, "\ncounters: none, %s %s reports none (docs/results.md, \"Results of "
			   "the real engine\")\n", cfg->policy->peer ? cfg->policy->peer : "the runtime",
			res->peer_version[0] ? res->peer_version : "");
		return;
	}

	fprintf(f, "\ncounters, summed over %" PRIu32 " measured trials:\n%-16s %14s", res->ntrials,
		"", "total");
	if (res->nworkers > SUMMARY_WORKER_COLUMNS) {
		fprintf(f, " %12s %12s", "worker min", "worker max");
	} else {
		for (uint32_t w = 0; w < res->nworkers; w++) {
			snprintf(col, sizeof col, "w%" PRIu32, w);
			fprintf(f, " %12s", col);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < sizeof summary_counters / sizeof summary_counters[0]; i++) {
		const struct counter_desc *d = counter_find(summary_counters[i]);
		CHECK_MSG(d, "summary counter %s is not in WORKER_COUNTERS", summary_counters[i]);
		if (counted(cfg, res, d->off))
			print_counter_row(f, d, res);
	}
	if (shown < sizeof summary_counters / sizeof summary_counters[0])
		fprintf(f, "(the runtime reports only these: docs/results.md, \"Results of the real "
			   "engine\")\n");
}

/*
 * The noise line of a threads-engine run: trials flagged and why, what
 * --noise did about them, the round-trip regime over every probe, and the
 * makespans' Tukey outliers beside it.
 */
static void print_noise(FILE *f, const struct run_config *cfg, const struct run_result *res,
			const char *label)
{
	if (cfg->sim || res->ntrials == 0 || !res->trials[0].noise.measured)
		return;
	fprintf(f, "noise%s%s: %" PRIu32 " of %" PRIu32 " trials flagged", label ? " " : "",
		label ? label : "", res->flagged, res->ntrials);
	if (res->flagged) {
		const char *sep = " (";
		for (uint32_t b = 0; b < NOISE_NFLAGS; b++)
			if (res->flag_counts[b]) {
				fprintf(f, "%s%s %" PRIu32, sep,
					noise_flag_text((enum noise_flag)(1u << b)), res->flag_counts[b]);
				sep = ", ";
			}
		fprintf(f, ")");
	}
	if (res->dropped)
		fprintf(f, ", left out of the medians");
	else if (cfg->noise_mode == NOISE_DROP && res->flagged)
		fprintf(f, ", all kept (every trial flagged)");
	if (res->retried)
		fprintf(f, ", %" PRIu32 " re-runs", res->retried);
	if (isfinite(res->c2c_min_ns))
		fprintf(f, "; round trip %.0f..%.0f ns", res->c2c_min_ns, res->c2c_max_ns);
	if (isfinite(res->speed_min_ns))
		fprintf(f, "; compute probe %.0f..%.0f ns", res->speed_min_ns, res->speed_max_ns);
	uint32_t out = res->tukey[0] + res->tukey[1] + res->tukey[3] + res->tukey[4];
	fprintf(f, "; makespan outliers (Tukey): ");
	if (!out)
		fprintf(f, "none");
	for (int k = 0, first = 1; k < 5; k++)
		if (k != 2 && res->tukey[k]) {
			fprintf(f, "%s%" PRIu32 " %s", first ? "" : ", ", res->tukey[k],
				tukey_class_name[k]);
			first = 0;
		}
	fputc('\n', f);
}

/*
 * --trials auto: how many trials ran and what stopped them, the target
 * met or the maximum count reached (then the interval is wider than asked).
 */
static void print_auto(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	if (cfg->ci_target <= 0)
		return;
	fprintf(f, "trials auto%s%s: %" PRIu32 " trials, ", cfg->name ? " " : "",
		cfg->name ? cfg->name : "", res->ntrials);
	if (res->auto_at_time)
		fprintf(f, "stopped at the time limit (--trials-time %g s): the median makespan's "
			   "95%% interval is +-%.2f%%, wider than the target +-%g%%\n",
			cfg->trials_time_s, 100 * res->auto_halfwidth, 100 * cfg->ci_target);
	else if (res->auto_at_max)
		fprintf(f, "stopped at the maximum (--trials-max %" PRIu32 "): the median makespan's "
			   "95%% interval is +-%.2f%%, wider than the target +-%g%%\n",
			cfg->trials, 100 * res->auto_halfwidth, 100 * cfg->ci_target);
	else
		fprintf(f, "stopped at the target: the median makespan's 95%% interval is +-%.2f%% "
			   "(target +-%g%%)\n", 100 * res->auto_halfwidth, 100 * cfg->ci_target);
}

/* The sim's cache and migration model, when on: what it charged, summed
 * over the trials (the result's sim_model). */
static void print_sim_model(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	if (!cfg->sim || !sim_costs_model_on(cfg->costs))
		return;
	const struct sim_costs *c = cfg->costs;
	const struct worker_stats *s = &res->total;
	int64_t pp = sim_costs_policy_poll(c, cfg->policy->name);
	if (pp)
		fprintf(f, "sim model: %s's own per poll %.3f ms (%" PRIu64 " polls x %" PRId64
			   " ns, fitted: poll.%s)\n", cfg->policy->name,
			(double)s->polls * (double)pp / 1e6, s->polls, pp, cfg->policy->name);
	uint64_t units = sim_costs_work_units(c, s);
	fprintf(f, "sim model: work %.3f ms (%" PRIu64 " %s x %" PRIu64 " ns), cold starts "
		   "%.3f ms (%" PRIu64 " migrated + %" PRIu64 " aged x %" PRIu64 " ns), line "
		   "transfers %.3f ms (%" PRIu64 " remote joins + %" PRIu64 " remote shared-word "
		   "RMWs x %" PRIu64 " ns), lock transfers %.3f ms (%" PRIu64 " remote locks + %"
		   PRIu64 " remote semaphore roots x %" PRIu64 " ns), lock handoffs %.3f ms (%"
		   PRIu64 " waits x %" PRIu64 " ns), "
		   "contention %.3f ms (%" PRIu64 " migrated + remote joins + remote RMWs x %" PRIu64
		   " ns), fresh spawns %.3f ms (%" PRIu64 " x %" PRIu64 " ns), deep notifies %.3f ms "
		   "(%" PRIu64 " x %" PRIu64 " ns beyond notify), over all trials and workers\n",
		(double)(units * c->work) / 1e6, units, c->work_per_spawn ? "spawns" : "polls",
		c->work, (double)(sim_costs_cold_starts(s) * c->cold_start) / 1e6,
		s->cold_migrated, s->cold_aged, c->cold_start,
		(double)(sim_costs_line_transfers(s) * c->line_transfer) / 1e6, s->remote_joins,
		s->remote_rmws, c->line_transfer,
		(double)(sim_costs_lock_transfers(s) * c->lock_transfer) / 1e6,
		s->remote_locks, s->remote_semas, c->lock_transfer,
		(double)(s->lock_waits * c->lock_wait) / 1e6,
		s->lock_waits, c->lock_wait,
		(double)(sim_costs_contended(s) * c->contended) / 1e6, sim_costs_contended(s),
		c->contended, (double)(s->fresh_spawns * c->spawn_fresh) / 1e6, s->fresh_spawns,
		c->spawn_fresh, (double)(s->deep_notifies * sim_costs_notify_deep_extra(c)) / 1e6,
		s->deep_notifies, sim_costs_notify_deep_extra(c));
}

/*
 * Where the workers' CPU went, summed over the measured trials (struct
 * worker_cpu), the medians derived from it, and the wakes.
 */
static void print_cpu(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	if (res->ntrials == 0 || !res->trials[0].cpu.measured)
		return;
	double cpu = 0, task = 0, sched = 0, search = 0, kernel = 0, proc = 0;
	uint64_t polled = 0, empty = 0;
	for (uint32_t t = 0; t < res->ntrials; t++) {
		const struct trial *tr = &res->trials[t];
		for (uint32_t i = 0; i < cfg->workers; i++) {
			cpu += (double)tr->cpu.w[i].cpu_ns;
			task += (double)tr->cpu.w[i].task_ns;
			sched += (double)tr->cpu.w[i].sched_ns;
			search += (double)tr->cpu.w[i].search_ns;
			kernel += (double)tr->cpu.w[i].kernel_ns;
		}
		proc += tr->cpu.process_ns;
		polled += tr->cpu.wakes_polled;
		empty += tr->cpu.wakes_empty;
	}
	char d[32];
	fmt_duration(d, sizeof d, res->median.cpu_per_task_ns);
	fprintf(f, "cpu: %s per task, %.2f cores, idle CPU %.1f%% of workers x makespan (medians); "
		   "of the workers' %s: task %.1f%%, scheduling %.1f%%, search %.1f%%, kernel "
		   "%.1f%%", d, res->median.cpu_cores, 100 * res->median.idle_cpu,
		cfg->sim ? "modelled time" : "CPU", cpu > 0 ? 100 * task / cpu : 0,
		cpu > 0 ? 100 * sched / cpu : 0, cpu > 0 ? 100 * search / cpu : 0,
		cpu > 0 ? 100 * kernel / cpu : 0);
	if (!cfg->sim && isfinite(proc) && proc > 0)
		fprintf(f, " (%.1f%% of the process's)", 100 * cpu / proc);
	fprintf(f, "\nwakes: %" PRIu64 " that polled a task, %" PRIu64 " that parked again first",
		polled, empty);
	const struct hist *h = &res->wake_latency;
	if (h->total) {
		char p50[32], p99[32];
		fmt_duration(p50, sizeof p50, (double)hist_percentile(h, 50));
		fmt_duration(p99, sizeof p99, (double)hist_percentile(h, 99));
		fprintf(f, "; latency to the first polling tick p50 %s, p99 %s", p50, p99);
	}
	fputc('\n', f);
}

void report_summary(FILE *f, const struct run_config *cfg, const struct run_result *res)
{
	print_trials(f, cfg, res);
	print_auto(f, cfg, res);
	print_noise(f, cfg, res, NULL);
	print_sched_delay(f, cfg, &res->sched_delay, &res->sched_ci);
	if (res->has_end_to_end)
		print_latency(f, "end-to-end latency (intended arrival to completion, warm-up left out)",
			      &res->end_to_end, &res->e2e_ci);
	print_sim_model(f, cfg, res);
	print_cpu(f, cfg, res);
	print_counters(f, cfg, res);
}

/* ---- the result document ---------------------------------------------- */

/*
 * jansson integers are signed 64-bit. Counters and durations never come
 * near 2^63; saturate rather than wrap if one ever did.
 */
static json_t *jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* NaN and infinities are not JSON; they mean "no value" (no baseline). */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jknob(const struct knob_def *d, double v)
{
	return d->integer ? json_integer((json_int_t)v) : jreal(v);
}

/* A seed is any uint64; one above 2^63 - 1 is written as a decimal string. */
static json_t *jseed(uint64_t seed)
{
	char buf[24];

	if (seed <= INT64_MAX)
		return json_integer((json_int_t)seed);
	snprintf(buf, sizeof buf, "%" PRIu64, seed);
	return json_string(buf);
}

/* json_object_set_new and json_array_append_new take (and on failure
 * release) the value; a NULL value from a failed constructor fails too. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

static int push(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) ? -ENOMEM : 0;
}

static json_t *done(json_t *o, int rc)
{
	if (rc && o) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *values_json(const struct knob_def *defs, size_t n, const double *v)
{
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = put(o, defs[i].name, jknob(&defs[i], v[i]));
	return done(o, rc);
}

/* name -> the name of its value, for every value that has one (knob.h). */
static json_t *names_json(const struct knob_def *defs, size_t n, const struct knob_enum *enums,
			  const double *v)
{
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct knob_name *kn = knob_names(enums, &defs[i]);
		for (; kn && kn->name; kn++)
			if (kn->value == v[i]) {
				rc = put(o, defs[i].name, json_string(kn->name));
				break;
			}
	}
	return done(o, rc);
}

static json_t *value_names_json(const struct run_config *cfg)
{
	return json_pack("{s:o, s:o}", "knobs",
			 names_json(cfg->policy->knobs, cfg->policy->nknobs,
				    cfg->policy->knob_names, cfg->knobs),
			 "params",
			 names_json(cfg->wl->params, cfg->wl->nparams, cfg->wl->param_names,
				    cfg->params));
}

static json_t *config_json(const struct run_config *cfg, const struct run_result *res)
{
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	if (rc)
		return NULL;
	rc |= put(o, "policy", json_string(cfg->policy->name));
	rc |= put(o, "variant", json_string(cfg->name));
	rc |= put(o, "workload", json_string(cfg->wl->name));
	rc |= put(o, "engine", json_string(cfg->sim ? "sim" : cfg->real ? "real" : "threads"));
	if (cfg->real)
		rc |= put(o, "peer", json_pack("{s:s, s:s}", "runtime", cfg->policy->peer, "version",
					       res->peer_version[0] ? res->peer_version : "unknown"));
	if (cfg->sim) {
		json_t *costs = json_object();
#define X(name, def, help) rc |= put(costs, #name, json_integer((json_int_t)cfg->costs->name));
		SIM_COSTS(X)
#undef X
		rc |= put(o, "sim_costs_ns", costs);
		rc |= put(o, "sim_causal", json_boolean(!cfg->costs->acausal));
		/* Only when on: results delivered as interrupts keep their form. */
		if (cfg->costs->io_poll)
			rc |= put(o, "sim_io_poll", json_true());
		/* Only when off (cost.horizon=0, an ablation): results with
		 * it on keep their form. */
		if (cfg->costs->no_horizon)
			rc |= put(o, "sim_horizon", json_false());
		/* Only when on (a real runtime's cost file): other results
		 * keep their form. */
		if (cfg->costs->task_list)
			rc |= put(o, "sim_task_list", json_true());
		if (cfg->costs->sema_table)
			rc |= put(o, "sim_sema_table", json_true());
		/* The cache and migration model and the workload's work, only
		 * when on: results with the model off keep their form. */
		if (sim_costs_model_on(cfg->costs)) {
			json_t *m = json_object();
#define X(name, def, help) rc |= put(m, #name, json_integer((json_int_t)cfg->costs->name));
			SIM_MODEL_COSTS(X)
#undef X
			rc |= put(m, "work", json_integer((json_int_t)cfg->costs->work));
			rc |= put(m, "policy_poll",
				  json_integer((json_int_t)sim_costs_policy_poll(cfg->costs,
										cfg->policy->name)));
			rc |= put(o, "sim_model_ns", m);
		}
		if (cfg->costs_file)
			rc |= put(o, "sim_costs_file",
				  json_pack("{s:s, s:f}", "path", cfg->costs_file, "age_s",
					    cfg->costs_age_s));
	}
	rc |= put(o, "workers", jint(cfg->workers));
	rc |= put(o, "seed", jseed(cfg->seed));
	rc |= put(o, "trials", jint(res->ntrials));
	rc |= put(o, "warmup", jint(cfg->warmup));
	rc |= put(o, "knobs", values_json(cfg->policy->knobs, cfg->policy->nknobs, cfg->knobs));
	rc |= put(o, "params", values_json(cfg->wl->params, cfg->wl->nparams, cfg->params));
	rc |= put(o, "value_names", value_names_json(cfg));
	rc |= put(o, "sample_period", jint(cfg->sample_period));
	rc |= put(o, "hist_digits", jint((uint64_t)cfg->hist_digits));
	return done(o, rc);
}

static json_t *baseline_json(const struct run_config *cfg, const struct run_result *res)
{
	json_t *o, *a;
	int rc = 0;

	if (!res->baseline)
		return json_null();
	o = json_object();
	a = json_array();
	if (!o || !a) {
		json_decref(a);
		return done(o, -ENOMEM);
	}
	for (uint32_t i = 0; i < res->nbaseline && rc == 0; i++) {
		const struct baseline_trial *b = &res->baseline[i];
		rc = push(a, json_pack("{s:o, s:I, s:I, s:f}", "seed", jseed(cfg->seed + i), "ns",
				       (json_int_t)b->ns, "tasks", (json_int_t)b->tasks,
				       "ns_per_task", b->ns_per_task));
	}
	rc |= put(o, "trials", a);
	rc |= put(o, "median_ns_per_task", jreal(res->baseline_median_ns_per_task));
	return done(o, rc);
}

static json_t *counters_json(const struct worker_stats *s)
{
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	for (size_t i = 0; i < NCOUNTERS && rc == 0; i++)
		rc = put(o, counters[i].name, jint(counter_get(s, &counters[i])));
	return done(o, rc);
}

/* What the sim's model charged, over every trial: its counters and the ns
 * they stand for (core/stats.h, core/costs.h). */
static json_t *sim_model_json(const struct run_config *cfg, const struct worker_stats *s)
{
	const struct sim_costs *c = cfg->costs;
	json_t *o = json_object(), *n = json_object(), *ns = json_object();
	int rc = o && n && ns ? 0 : -ENOMEM;
	if (rc) {
		json_decref(n);
		json_decref(ns);
		return done(o, rc);
	}
#define X(name, help) rc |= put(n, #name, jint(s->name));
	SIM_MODEL_COUNTERS(X)
#undef X
	rc |= put(ns, "cold_start", jint(sim_costs_cold_starts(s) * c->cold_start));
	rc |= put(ns, "line_transfer", jint(sim_costs_line_transfers(s) * c->line_transfer));
	rc |= put(ns, "lock_transfer", jint(sim_costs_lock_transfers(s) * c->lock_transfer));
	rc |= put(ns, "lock_wait", jint(s->lock_waits * c->lock_wait));
	rc |= put(ns, "contended", jint(sim_costs_contended(s) * c->contended));
	rc |= put(ns, "spawn_fresh", jint(s->fresh_spawns * c->spawn_fresh));
	rc |= put(ns, "notify_deep", jint(s->deep_notifies * sim_costs_notify_deep_extra(c)));
	rc |= put(ns, "work", jint(sim_costs_work_units(c, s) * c->work));
	rc |= put(ns, "policy_poll",
		  json_integer((json_int_t)s->polls * sim_costs_policy_poll(c, cfg->policy->name)));
	rc |= put(o, "counters_total", n);
	rc |= put(o, "charged_ns", ns);
	return done(o, rc);
}

/* One trial's own percentiles of a histogram, by level key. */
static json_t *pct_json(const double pct[PCT_LEVELS], uint64_t samples)
{
	json_t *o = json_object();
	int rc = o ? 0 : -ENOMEM;

	rc |= put(o, "count", jint(samples));
	for (int k = 0; k < PCT_LEVELS && rc == 0; k++)
		rc = put(o, pct_key[k], jreal(pct[k]));
	return done(o, rc);
}

/* A trial's noise (harness/noise.h), null on the sim engine. */
static json_t *trial_noise_json(const struct run_config *cfg, const struct trial *t)
{
	const struct trial_noise *n = &t->noise;
	if (!n->measured)
		return json_null();
	json_t *o = json_object(), *sw = json_array(), *mg = json_array(), *st = json_array();
	json_t *why = json_array(), *kn = json_array();
	int rc = o && sw && mg && st && why && kn ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < cfg->workers && rc == 0; i++) {
		rc |= push(sw, jint(n->switches[i]));
		rc |= push(mg, n->migrations[i] >= 0 ? jint((uint64_t)n->migrations[i])
						     : json_null());
		rc |= push(st, jint(n->stolen_ns[i]));
		rc |= push(kn, jint(n->kernel_ns[i]));
	}
	for (uint32_t b = 0; b < NOISE_NFLAGS && rc == 0; b++)
		if (n->flags & (1u << b))
			rc = push(why, json_string(noise_flag_key((enum noise_flag)(1u << b))));
	if (rc) {
		json_decref(sw);
		json_decref(mg);
		json_decref(st);
		json_decref(why);
		json_decref(kn);
		return done(o, rc);
	}
	rc |= put(o, "flagged", json_boolean(n->flags != 0));
	rc |= put(o, "reasons", why);
	rc |= put(o, "retries", json_integer(n->retries));
	rc |= put(o, "involuntary_switches", sw);
	rc |= put(o, "migrations", mg);
	rc |= put(o, "os_stolen_ns", st);
	rc |= put(o, "kernel_ns", kn);
	rc |= put(o, "host_steal_ns", jreal(n->steal_ns));
	rc |= put(o, "c2c_before_ns", jreal(n->c2c_before_ns));
	rc |= put(o, "c2c_after_ns", jreal(n->c2c_after_ns));
	rc |= put(o, "speed_before_ns", jreal(n->speed_before_ns));
	rc |= put(o, "speed_after_ns", jreal(n->speed_after_ns));
	rc |= put(o, "tukey", json_string(tukey_class_name[t->tukey]));
	return done(o, rc);
}

/* The run's noise: counts, the mode, the round-trip regime, the outliers
 * and the thresholds that flag a trial. */
static json_t *noise_json(const struct run_config *cfg, const struct run_result *res)
{
	if (cfg->sim || res->ntrials == 0 || !res->trials[0].noise.measured)
		return json_null();
	json_t *counts = json_object(), *c2c = json_null();
	int rc = counts ? 0 : -ENOMEM;
	for (uint32_t b = 0; b < NOISE_NFLAGS && rc == 0; b++)
		rc = put(counts, noise_flag_key((enum noise_flag)(1u << b)),
			 json_integer(res->flag_counts[b]));
	json_t *band = cfg->c2c_hi > 0 ? json_pack("{s:f, s:f}", "lo", cfg->c2c_lo, "hi", cfg->c2c_hi)
				       : json_null();
	json_t *speed = json_null(), *sband = cfg->speed_hi > 0
		? json_pack("{s:f, s:f}", "lo", cfg->speed_lo, "hi", cfg->speed_hi) : json_null();
	if (isfinite(res->c2c_min_ns))
		c2c = json_pack("{s:f, s:f}", "min", res->c2c_min_ns, "max", res->c2c_max_ns);
	if (isfinite(res->speed_min_ns))
		speed = json_pack("{s:f, s:f}", "min", res->speed_min_ns, "max", res->speed_max_ns);
	json_t *o = json_pack(
		"{s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:{s:s, s:I, s:I, s:I, s:I, s:I}, "
		"s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}}",
		"mode", noise_mode_name(cfg->noise_mode), "flagged", (json_int_t)res->flagged,
		"dropped", (json_int_t)res->dropped, "retried", (json_int_t)res->retried,
		"reasons", counts, "c2c_regime_ns", c2c, "c2c_band_ns", band, "speed_range_ns", speed,
		"speed_band_ns", sband, "outliers", "metric",
		"makespan_ns",
		"low_severe", (json_int_t)res->tukey[0], "low_mild", (json_int_t)res->tukey[1],
		"normal", (json_int_t)res->tukey[2], "high_mild", (json_int_t)res->tukey[3],
		"high_severe", (json_int_t)res->tukey[4], "thresholds", "switches_base",
		NOISE_SWITCH_BASE, "switches_per_s", NOISE_SWITCH_PER_S, "migrations_base",
		NOISE_MIGRATION_BASE, "migrations_per_s", NOISE_MIGRATION_PER_S, "os_stolen_share",
		NOISE_STOLEN_SHARE, "host_steal_share", NOISE_STEAL_SHARE, "c2c_ratio",
		NOISE_C2C_RATIO, "c2c_trips", (double)NOISE_C2C_TRIPS, "speed_ratio", NOISE_SPEED_RATIO,
		"speed_fib_n", (double)NOISE_SPEED_N);
	return rc ? (json_decref(o), NULL) : o;
}

/* One worker's CPU and its split (struct worker_cpu). */
static json_t *worker_cpu_json(const struct worker_cpu *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "cpu_ns", jint(c->cpu_ns),
			 "user_ns", jint(c->user_ns), "sys_ns", jint(c->sys_ns), "task_ns",
			 jint(c->task_ns), "sched_ns", jint(c->sched_ns), "search_ns",
			 jint(c->search_ns), "kernel_ns", jint(c->kernel_ns), "parked_ns",
			 jint(c->parked_ns));
}

/* A trial's CPU (struct trial_cpu): per worker, summed, the process's
 * own, the wakes and the derived figures; null where not measured. */
static json_t *trial_cpu_json(const struct run_config *cfg, const struct trial *t)
{
	if (!t->cpu.measured)
		return json_null();
	struct worker_cpu sum = { 0 };
	json_t *a = json_array();
	int rc = a ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < cfg->workers && rc == 0; i++) {
		const struct worker_cpu *c = &t->cpu.w[i];
		rc = push(a, worker_cpu_json(c));
		sum.cpu_ns += c->cpu_ns;
		sum.user_ns += c->user_ns;
		sum.sys_ns += c->sys_ns;
		sum.task_ns += c->task_ns;
		sum.sched_ns += c->sched_ns;
		sum.search_ns += c->search_ns;
		sum.kernel_ns += c->kernel_ns;
		sum.parked_ns += c->parked_ns;
	}
	if (rc) {
		json_decref(a);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "process_ns",
			 jreal(t->cpu.process_ns), "workers", a, "total", worker_cpu_json(&sum),
			 "wakes_polled", jint(t->cpu.wakes_polled), "wakes_empty",
			 jint(t->cpu.wakes_empty), "awake_notifies", jint(t->cpu.awake_notifies),
			 "permit_parks", jint(t->cpu.permit_parks), "per_task_ns", jreal(t->cpu_per_task_ns),
			 "idle_cpu", jreal(t->idle_cpu), "cores", jreal(t->cpu_cores));
}

static json_t *trial_json(const struct run_config *cfg, const struct trial *t, uint64_t seed)
{
	json_t *o = json_object(), *util = json_array(), *ws = json_array(), *m = json_object();
	json_t *pct = json_object();
	int rc = o && util && ws && m && pct ? 0 : -ENOMEM;

	for (uint32_t w = 0; w < cfg->workers && rc == 0; w++) {
		rc |= push(util, jreal(t->util[w]));
		rc |= push(ws, counters_json(&t->ws[w]));
	}
	for (size_t i = 0; i < t->nmetrics && rc == 0; i++)
		rc = put(m, t->metrics[i].name, jreal(t->metrics[i].value));
	if (rc == 0)
		rc = put(pct, "sched_delay_ns", pct_json(t->sched_pct, t->sched_samples));
	if (rc == 0 && cfg->wl->latencies)
		rc = put(pct, "end_to_end_ns", pct_json(t->e2e_pct, t->e2e_samples));
	if (rc) {
		json_decref(util);
		json_decref(ws);
		json_decref(m);
		json_decref(pct);
		return done(o, rc);
	}
	rc |= put(o, "seed", jseed(seed));
	rc |= put(o, "order", jint(t->order));
	if (t->has_span)
		rc |= put(o, "span_ns", jint(t->span_ns));
	rc |= put(o, "makespan_ns", jint(t->makespan_ns));
	rc |= put(o, "tasks", jint(t->tasks));
	rc |= put(o, "tasks_per_s", jreal(t->tasks_per_s));
	rc |= put(o, "ns_per_task", jreal(t->ns_per_task));
	rc |= put(o, "overhead_ns_per_task", jreal(t->overhead_ns_per_task));
	rc |= put(o, "utilization", util);
	rc |= put(o, "utilization_total", jreal(t->util_total));
	rc |= put(o, "workers", ws);
	rc |= put(o, "verified", json_true());
	rc |= put(o, "metrics", m);
	rc |= put(o, "percentiles", pct);
	rc |= put(o, "noise", trial_noise_json(cfg, t));
	rc |= put(o, "cpu", trial_cpu_json(cfg, t));
	return done(o, rc);
}

static json_t *trials_json(const struct run_config *cfg, const struct run_result *res)
{
	json_t *a = json_array();
	int rc = a ? 0 : -ENOMEM;

	for (uint32_t i = 0; i < res->ntrials && rc == 0; i++)
		rc = push(a, trial_json(cfg, &res->trials[i], cfg->seed + i));
	return done(a, rc);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * A distribution-free confidence interval for the median of n trials: the
 * order statistics x(j) and x(n+1-j) with the largest j whose binomial tail
 * P(Bin(n, 1/2) < j) stays at or below 2.5% on each side. Below 6 trials no
 * such j exists and [min, max] is given with its actual coverage, 1 - 2^(1-n).
 */
static json_t *ci_json(double *v, uint32_t n)
{
	double coverage;
	uint32_t j = pct_median_rank(n, &coverage);

	qsort(v, n, sizeof *v, cmp_dbl);
	return json_pack("{s:f, s:f, s:f}", "lo", v[j - 1], "hi", v[n - j], "coverage", coverage);
}

static json_t *median_json(const struct run_result *res)
{
	json_t *o = json_object();
	json_t *ci = json_object();
	double *v = calloc(res->ntrials ? res->ntrials : 1, sizeof *v);
	int rc = o && ci && v ? 0 : -ENOMEM;

	if (rc) {
		json_decref(o);
		json_decref(ci);
		free(v);
		return NULL;
	}
#define X(field, key)                                                        \
	rc |= put(o, key, jreal(res->median.field));                         \
	for (uint32_t i = 0; i < res->ntrials; i++)                          \
		v[i] = (double)res->trials[i].field;                         \
	if (!isnan(res->median.field))                                       \
		rc |= put(ci, key, ci_json(v, res->ntrials));
	RUN_MEDIANS(X)
#undef X
	free(v);
	rc |= put(o, "ci95", ci);
	return done(o, rc);
}

static json_t *per_worker_json(const struct run_result *res)
{
	json_t *a = json_array();
	int rc = a ? 0 : -ENOMEM;

	for (uint32_t w = 0; w < res->nworkers && rc == 0; w++)
		rc = push(a, counters_json(&res->per_worker[w]));
	return done(a, rc);
}

/* Percentile levels for plots in the HdrHistogram style (log scale of
 * 1/(1-p)): dense towards the tail. */
static const double plot_levels[] = {
	0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 96, 97, 98, 99, 99.3, 99.5,
	99.7, 99.8, 99.9, 99.93, 99.95, 99.97, 99.98, 99.99, 99.995, 99.999, 100,
};

static json_t *levels_json(const struct hist *h)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < sizeof plot_levels / sizeof plot_levels[0]; i++)
		json_array_append_new(a, json_pack("[f, I]", plot_levels[i] / 100,
						   (json_int_t)hist_percentile(h, plot_levels[i])));
	return a;
}

/*
 * The histogram itself, losslessly: every non-empty slot as a pair (the
 * slot's lowest value minus the previous pair's, its count), flattened into
 * one array. With the layout (sub_bucket_count) a reader knows each slot's
 * width, so results can be merged and any percentile recomputed exactly as
 * hist_percentile computes it (scripts/harnesslib.py does both).
 */
static json_t *buckets_json(const struct hist *h)
{
	json_t *a = json_array();
	uint64_t prev = 0;
	int rc = a ? 0 : -ENOMEM;

	for (uint32_t i = 0; i < h->counts_len && rc == 0; i++) {
		if (!h->counts[i])
			continue;
		uint64_t v = hist_slot_lowest(h, i);
		rc |= push(a, jint(v - prev));
		rc |= push(a, jint(h->counts[i]));
		prev = v;
	}
	if (rc) {
		json_decref(a);
		return NULL;
	}
	return json_pack("{s:s, s:I, s:I, s:I, s:o}", "encoding", "delta-lowest-count",
			 "sub_bucket_count", (json_int_t)h->sub_bucket_count, "highest",
			 (json_int_t)h->highest, "saturated", (json_int_t)h->saturated, "counts", a);
}

/*
 * A histogram's percentile intervals: {"method", "batches", "p50": {"lo",
 * "hi"}, ...} (docs/results.md, "Intervals of percentiles").
 */
static json_t *pct_ci_json(const struct pct_ci *ci)
{
	json_t *o = json_pack("{s:s, s:I}", "method", pct_ci_method_name(ci->method), "batches",
			      (json_int_t)(ci->method == PCT_CI_ORDER_STATS ? 0 : ci->batches));
	int rc = o ? 0 : -ENOMEM;

	for (int k = 0; k < PCT_LEVELS && rc == 0 && ci->method != PCT_CI_NONE; k++) {
		json_t *iv = json_pack("{s:f, s:f}", "lo", ci->lo[k], "hi", ci->hi[k]);
		/* A side the samples do not bound says so (struct pct_ci). */
		if (iv && ci->lo_open[k])
			rc |= put(iv, "lo_open", json_true());
		if (iv && ci->hi_open[k])
			rc |= put(iv, "hi_open", json_true());
		if (rc)
			json_decref(iv);
		else
			rc = put(o, pct_key[k], iv);
	}
	return done(o, rc);
}

static json_t *hist_json(const struct hist *h, uint32_t sample_period, const struct pct_ci *ci)
{
	bool any = h->total > 0;

	return json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:o, s:o, s:o}",
			 "sampled_1_in", (json_int_t)sample_period,
			 "count", (json_int_t)h->total,
			 "min", (json_int_t)(any ? h->min : 0),
			 "mean", any ? hist_mean(h) : 0.0,
			 "p50", (json_int_t)hist_percentile(h, 50),
			 "p90", (json_int_t)hist_percentile(h, 90),
			 "p99", (json_int_t)hist_percentile(h, 99),
			 "p99_9", (json_int_t)hist_percentile(h, 99.9),
			 "p99_99", (json_int_t)hist_percentile(h, 99.99),
			 "max", (json_int_t)(any ? h->max : 0),
			 "sig_digits", h->sig_digits,
			 "percentiles", levels_json(h),
			 "buckets", buckets_json(h),
			 "ci95", pct_ci_json(ci));
}

/* The machine state and placement fields of the provenance. */
static int machine_json(json_t *o, const struct provenance *pv)
{
	json_t *topo = pv->has_topology
			       ? json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "source",
					   pv->topology_source, "packages", (json_int_t)pv->packages,
					   "numa_nodes", (json_int_t)pv->numa_nodes, "l3_domains",
					   (json_int_t)pv->l3_domains, "cores", (json_int_t)pv->cores,
					   "cpus", (json_int_t)pv->cpus, "threads_per_core",
					   (json_int_t)pv->threads_per_core)
			       : json_null();
	json_t *cpus = json_array(), *load = json_array();
	int rc = topo && cpus && load ? 0 : -ENOMEM;

	for (uint32_t i = 0; i < pv->nworkers && rc == 0; i++)
		rc = push(cpus, pv->worker_cpus && pv->worker_cpus[i] >= 0
					? json_integer(pv->worker_cpus[i])
					: json_null());
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = push(load, jreal(pv->loadavg[i] >= 0 ? pv->loadavg[i] : NAN));
	rc |= put(o, "topology", topo);
	rc |= put(o, "pin", json_string(pv->pin ? pv->pin : "none"));
	rc |= put(o, "worker_cpus", cpus);
	rc |= put(o, "cpu_governor", pv->governor[0] ? json_string(pv->governor) : json_null());
	rc |= put(o, "turbo", pv->turbo < 0 ? json_null() : json_boolean(pv->turbo));
	rc |= put(o, "isolated_cpus", json_string(pv->isolated));
	rc |= put(o, "load_average", load);
	return rc;
}

static json_t *provenance_json(const struct provenance *pv)
{
	json_t *c2c = pv->c2c_ns >= 0 ? json_real(pv->c2c_ns) : json_null();
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:s, s:s, s:s, s:s}",
			 "git_revision", pv->git_revision,
			 "compiler", pv->compiler,
			 "cflags", pv->cflags,
			 "build_type", pv->build_type,
			 "sanitize", pv->sanitize,
			 "allocator", pv->allocator,
			 "cpu_model", pv->cpu_model,
			 "cores_online", (json_int_t)pv->cores_online,
			 "c2c_round_trip_ns", c2c,
			 "kernel", pv->kernel,
			 "hostname", pv->hostname,
			 "timestamp_utc", pv->timestamp_utc,
			 "command_line", pv->command_line ? pv->command_line : "");
	return o ? done(o, machine_json(o, pv)) : NULL;
}

/*
 * The interval of the median ns per task the result file gives
 * (median.ci95.ns_per_task, ci_json): the order statistics of
 * pct_median_rank, [min, max] below 6 trials, with its coverage. False
 * below two trials (no interval) or without memory for the sort.
 */
static bool ns_per_task_ci(const struct run_result *r, double *lo, double *hi, double *coverage)
{
	double *v = r->ntrials > 1 ? calloc(r->ntrials, sizeof *v) : NULL;
	if (!v)
		return false;
	for (uint32_t i = 0; i < r->ntrials; i++)
		v[i] = r->trials[i].ns_per_task;
	uint32_t j = pct_median_rank(r->ntrials, coverage);
	qsort(v, r->ntrials, sizeof *v, cmp_dbl);
	*lo = v[j - 1];
	*hi = v[r->ntrials - j];
	free(v);
	return true;
}

/*
 * A workload with request latencies (open-loop): p50 and p99 end-to-end
 * per configuration, each with its 95% interval (the result file's
 * histograms.end_to_end_ns.ci95, the one the figures draw), and how the
 * intervals were taken: once when every configuration's are alike, else
 * per configuration.
 */
static void print_compare_latency(FILE *f, const struct run_config *cfg,
				  const struct run_result *res, size_t ncfg, int w)
{
	/* pct_level[]: p50, p90, p99, p99.9, p99.99. */
	enum { P50 = 0, P99 = 2 };
	bool any = false, one_method = true;
	for (size_t c = 0; c < ncfg; c++) {
		any |= res[c].has_end_to_end;
		one_method &= res[c].e2e_ci.method == res[0].e2e_ci.method &&
			      res[c].e2e_ci.batches == res[0].e2e_ci.batches;
	}
	if (!any)
		return;
	fprintf(f, "\n%-*s %30s %30s %10s\n", w, "end-to-end latency", "p50 [95% interval]",
		"p99 [95% interval]", "samples");
	for (size_t c = 0; c < ncfg; c++) {
		const struct run_result *r = &res[c];
		char p50[64] = "-", p99[64] = "-";
		if (r->has_end_to_end && r->end_to_end.total) {
			fmt_ci(p50, sizeof p50, (double)hist_percentile(&r->end_to_end, pct_level[P50]),
			       &r->e2e_ci, P50);
			fmt_ci(p99, sizeof p99, (double)hist_percentile(&r->end_to_end, pct_level[P99]),
			       &r->e2e_ci, P99);
		}
		fprintf(f, "%-*s %30s %30s %10" PRIu64 "\n", w, cfg[c].name, p50, p99,
			r->has_end_to_end ? r->end_to_end.total : 0);
	}
	for (size_t c = 0; c < ncfg; c++) {
		if (!res[c].has_end_to_end || (one_method && c > 0))
			continue;
		if (!one_method)
			fprintf(f, "%s:", cfg[c].name);
		print_ci_method(f, &res[c].e2e_ci);
	}
}

/*
 * One row per configuration: median ns per task with the interval of the
 * median the result files give (95%, or [min, max] below 6 trials with
 * its coverage said), median throughput, median makespan relative to the
 * first configuration's, utilization and the counters that tell designs
 * apart; then for a workload with latencies p50 and p99 with their 95%
 * intervals, and the noise line of each threads configuration, as a
 * single-policy run prints them. Every figure comes from trials
 * interleaved in one run.
 */
void report_compare(FILE *f, const struct run_config *cfg, const struct run_result *res,
		    size_t ncfg)
{
	int w = 20;
	double cov_min = 1;
	bool one_trial = false;
	for (size_t c = 0; c < ncfg; c++)
		w = (int)strlen(cfg[c].name) > w ? (int)strlen(cfg[c].name) : w;
	fprintf(f, "\n%-*s %9s %21s %13s %9s %6s %10s %10s %10s %8s\n", w, "policy", "ns/task",
		"[95% interval]", "tasks/s", "time/1st", "util%", "cpu/task", "steals", "global",
		"parks");
	for (size_t c = 0; c < ncfg; c++) {
		const struct run_result *r = &res[c];
		double lo, hi, cov;
		char spread[48] = "-";
		if (ns_per_task_ci(r, &lo, &hi, &cov)) {
			snprintf(spread, sizeof spread, "[%.1f, %.1f]", lo, hi);
			cov_min = cov < cov_min ? cov : cov_min;
		} else {
			one_trial |= r->ntrials < 2;
		}
		char cpt[24] = "-", steals[24] = "-", global[24] = "-", parks[24] = "-";
		if (isfinite(r->median.cpu_per_task_ns))
			snprintf(cpt, sizeof cpt, "%.1f", r->median.cpu_per_task_ns);
		if (counted(&cfg[c], r, offsetof(struct worker_stats, steals)))
			snprintf(steals, sizeof steals, "%" PRIu64, r->total.steals / r->ntrials);
		if (counted(&cfg[c], r, offsetof(struct worker_stats, global_tasks)))
			snprintf(global, sizeof global, "%" PRIu64, r->total.global_tasks / r->ntrials);
		if (counted(&cfg[c], r, offsetof(struct worker_stats, parks)))
			snprintf(parks, sizeof parks, "%" PRIu64, r->total.parks / r->ntrials);
		fprintf(f, "%-*s %9.1f %21s %13.0f %9.2f %6.1f %10s %10s %10s %8s\n", w,
			cfg[c].name, r->median.ns_per_task, spread, r->median.tasks_per_s,
			r->median.makespan_ns / res[0].median.makespan_ns, 100 * r->median.util_total,
			cpt, steals, global, parks);
	}
	bool one_baseline = true;
	for (size_t c = 1; c < ncfg; c++)
		one_baseline &= res[c].baseline_median_ns_per_task ==
				res[0].baseline_median_ns_per_task;
	if (!isnan(res[0].baseline_median_ns_per_task) && one_baseline)
		fprintf(f, "baseline (sequential) %.1f ns/task; cpu/task: the workers' CPU (the "
			   "sim: modelled time) over the tasks, in ns; steals, global tasks and parks "
			   "are per trial\n", res[0].baseline_median_ns_per_task);
	else if (!isnan(res[0].baseline_median_ns_per_task))
		fprintf(f, "baselines (sequential) per parameter set, in each result file; steals, "
			   "global tasks and parks are per trial\n");
	else
		fprintf(f, "steals, global tasks and parks are per trial\n");
	for (size_t c = 0; c < ncfg; c++)
		if (cfg[c].real) {
			fprintf(f, "-: a counter the runtime does not report (docs/results.md, "
				   "\"Results of the real engine\")\n");
			break;
		}
	if (cov_min < 0.95)
		fprintf(f, "[lo, hi]: the median's interval over the trials; with fewer than 6 trials "
			   "it is [min, max], coverage %.1f%%%s\n", 100 * cov_min,
			one_trial ? "; -: one trial, no interval" : "");
	else if (one_trial && cov_min == 1)
		fprintf(f, "[95%% interval] of the median: - for one trial, which has none\n");
	else
		fprintf(f, "[lo, hi]: the median's distribution-free 95%% interval over the trials%s\n",
			one_trial ? "; -: one trial, no interval" : "");
	print_compare_latency(f, cfg, res, ncfg, w);
	for (size_t c = 0; c < ncfg; c++)
		print_noise(f, &cfg[c], &res[c], cfg[c].name);
	for (size_t c = 0; c < ncfg; c++)
		print_auto(f, &cfg[c], &res[c]);
}

/* --trials auto: the rule's inputs, the trials run and what stopped them. */
static json_t *trials_auto_json(const struct run_config *cfg, const struct run_result *res)
{
	const char *stopped = res->auto_at_time ? "time" : res->auto_at_max ? "max" : "target";
	return json_pack("{s:f, s:I, s:I, s:I, s:s, s:o, s:o}", "ci_target", cfg->ci_target, "min",
			 (json_int_t)cfg->trials_min, "max", (json_int_t)cfg->trials, "trials",
			 (json_int_t)res->ntrials, "stopped", stopped, "half_width",
			 jreal(res->auto_halfwidth), "time_limit_s",
			 cfg->trials_time_s > 0 ? json_real(cfg->trials_time_s) : json_null());
}

json_t *report_json(const struct run_config *cfg, const struct run_result *res,
		    const struct provenance *pv)
{
	json_t *doc = json_object(), *hists = json_object();
	int rc = doc && hists ? 0 : -ENOMEM;

	if (rc) {
		json_decref(hists);
		return done(doc, rc);
	}
	rc |= put(hists, "sched_delay_ns",
		  hist_json(&res->sched_delay, cfg->sample_period, &res->sched_ci));
	if (res->has_end_to_end)
		rc |= put(hists, "end_to_end_ns", hist_json(&res->end_to_end, 1, &res->e2e_ci));
	if (res->ntrials && res->trials[0].cpu.measured) {
		/* No interval: the wakes of a trial are not its batches. */
		struct pct_ci none = { .method = PCT_CI_NONE };
		rc |= put(hists, "wake_latency_ns", hist_json(&res->wake_latency, 1, &none));
	}
	rc |= put(doc, "schema", json_string(RESULT_SCHEMA));
	rc |= put(doc, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	rc |= put(doc, "config", config_json(cfg, res));
	if (cfg->ci_target > 0)
		rc |= put(doc, "trials_auto", trials_auto_json(cfg, res));
	rc |= put(doc, "baseline", baseline_json(cfg, res));
	rc |= put(doc, "trials", trials_json(cfg, res));
	rc |= put(doc, "median", median_json(res));
	rc |= put(doc, "noise", noise_json(cfg, res));
	rc |= put(doc, "counters_total", counters_json(&res->total));
	if (cfg->sim && sim_costs_model_on(cfg->costs))
		rc |= put(doc, "sim_model", sim_model_json(cfg, &res->total));
	rc |= put(doc, "per_worker_counters", per_worker_json(res));
	rc |= put(doc, "histograms", hists);
	rc |= put(doc, "provenance", provenance_json(pv));
	return done(doc, rc);
}

/* ---- the result file -------------------------------------------------- */

int report_write(FILE *f, json_t *doc, bool indent)
{
	/* 15 significant digits: every value typed on a command line reads back
	 * exactly, and measurements lose nothing meaningful (jansson's default
	 * of 17 prints 0.1 as 0.10000000000000001). Compact by default: the
	 * indentation tripled a result's size, most of it the histograms'
	 * buckets (docs/results.md says how to read one indented). */
	size_t flags = JSON_REAL_PRECISION(15) | (indent ? JSON_INDENT(2) : JSON_COMPACT);

	if (json_dumpf(doc, f, flags) != 0 ||
	    fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

/* mkdir -p: every missing component, with the umask's permissions. */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

int result_default_stem(char *buf, size_t buflen, const char *dir, const char *workload,
			const char *policy, uint32_t workers, const char *engine,
			const char *stamp, char *err, size_t len)
{
	int rc = make_dirs(dir);

	if (rc) {
		snprintf(err, len, "cannot create the results directory %s: %s", dir,
			 strerror(-rc));
		return rc;
	}
	/* Room for "-999.json", the longest name outfile_open_new may take. */
	int n = snprintf(buf, buflen, "%s/%s-%s-%" PRIu32 "w-%s-%s", dir, workload, policy,
			 workers, engine, stamp);
	if (n < 0 || (size_t)n + 10 > buflen) {
		snprintf(err, len, "result path too long under %s", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}
