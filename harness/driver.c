/*
 * driver.c - the measurement driver (driver.h).
 *
 * Every figure of a configuration comes from one process run: the
 * sequential baseline trials and the parallel trials are interleaved in an
 * order shuffled by the seed, so that slow drift of a noisy machine (other
 * tenants, frequency scaling, a neighbouring VM) spreads over both kinds
 * instead of biasing whichever ran last. Warm-up trials of both kinds come
 * first, shuffled the same way, and are discarded.
 */
#include "driver.h"
#include "real.h"
#include "fail.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <unistd.h>
#include <sys/resource.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/check.h"
#include "core/clock.h"
#include "core/engine.h"
#include "core/rng.h"
#include "core/runtime.h"
#include "policies/policy.h"


void (*driver_exit_cleanup)(void);

/* The stream of the shuffle generator; distinct from the workers' streams. */
#define ORDER_STREAM 0x6f72646572ull

/* --c2c-band: the wall time this process has spent waiting for the band and
 * on trials run again for it; past NOISE_BAND_BUDGET_NS it does neither, so
 * that a machine that stays in another regime costs a bounded time. Trials
 * run one at a time, from one thread. */
static uint64_t band_spent_ns;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median_of(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A workload's create() fails only when its input cannot be allocated
 * (sort n=2147483648 asks for 32 GiB): say so, not just "failed". */
static int create_failed(const struct workload *wl, char *err, size_t len)
{
	return fail(-ENOMEM, err, len, "workload %s: out of memory creating its input (the "
		    "parameters ask for more memory than the process can have; a smaller size, or a "
		    "higher memory limit, helps)", wl->name);
}

static int run_baseline(const struct run_config *cfg, uint64_t seed, struct baseline_trial *out,
			char *err, size_t len)
{
	const struct workload *wl = cfg->wl;
	char why[256] = "";
	uint64_t t0, t1;
	void *inst;
	int rc = 0;

	inst = wl->create(cfg->params, cfg->workers, seed);
	if (!inst)
		return create_failed(wl, err, len);
	t0 = mono_ns();
	wl->run_sequential(inst);
	t1 = mono_ns();
	out->ns = t1 - t0;
	out->tasks = wl->tasks(inst);
	if (wl->verify(inst, why, sizeof why) != 0)
		rc = fail(-EIO, err, len, "%s sequential baseline computed a wrong answer: %s",
			  wl->name, why[0] ? why : "(no reason given)");
	else if (out->tasks == 0)
		rc = fail(-EIO, err, len, "%s sequential baseline reported 0 tasks", wl->name);
	else
		out->ns_per_task = (double)out->ns / (double)out->tasks;
	wl->destroy(inst);
	return rc;
}

struct start_ctx {
	const struct workload *wl;
	void *inst;
};

/* Runs on the harness thread inside engine->run: the makespan starts here. */
static const char *const trace_names[] = { "poll", "tick", "park" };

/*
 * The trial's timeline as Chrome trace events (Perfetto, chrome://tracing):
 * one row per worker, complete events with microsecond times from the start
 * of the run. Streamed one event at a time through jansson into the trace
 * file the caller opened before the run (and commits after it).
 */
static int write_trace(const struct run_config *cfg, struct runtime *rt, char *err, size_t len)
{
	FILE *f = cfg->trace_file;
	uint64_t dropped = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		dropped += rt->workers[i].trace.dropped;
	json_t *head = json_pack("{s:s, s:s, s:I, s:s, s:I}", "policy", cfg->policy->name,
				 "workload", cfg->wl->name, "workers", (json_int_t)cfg->workers,
				 "engine", cfg->sim ? "sim" : "threads", "events_dropped",
				 (json_int_t)dropped);
	fputs("{\"displayTimeUnit\": \"ns\", \"otherData\": ", f);
	json_dumpf(head, f, JSON_COMPACT);
	json_decref(head);
	fputs(", \"traceEvents\": [\n", f);
	bool first = true;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		char name[32];
		snprintf(name, sizeof name, "worker %u", i);
		json_t *m = json_pack("{s:s, s:s, s:i, s:I, s:{s:s}}", "name", "thread_name", "ph",
				      "M", "pid", 1, "tid", (json_int_t)i, "args", "name", name);
		if (!first)
			fputs(",\n", f);
		first = false;
		json_dumpf(m, f, JSON_COMPACT);
		json_decref(m);
		const struct trace_buf *tb = &rt->workers[i].trace;
		for (uint32_t k = 0; k < tb->len; k++) {
			const struct trace_event *e = &tb->ev[k];
			double ts = ((double)e->ts - (double)rt->start_ns) / 1e3;
			json_t *args;
			if (e->kind == TRACE_TICK)
				args = json_pack("{s:i, s:i, s:i}", "polls", e->a, "steals", e->b,
						 "global_tasks", e->c);
			else if (e->kind == TRACE_PARK)
				args = json_pack("{s:s}", "woken_by", e->a ? "unpark" : "timeout");
			else
				args = json_object();
			json_t *ev = json_pack("{s:s, s:s, s:f, s:f, s:i, s:I, s:o}", "name",
					       trace_names[e->kind], "ph", "X", "ts", ts, "dur",
					       (double)e->dur / 1e3, "pid", 1, "tid", (json_int_t)i,
					       "args", args);
			fputs(",\n", f);
			json_dumpf(ev, f, JSON_COMPACT);
			json_decref(ev);
		}
	}
	fputs("\n]}\n", f);
	if (fflush(f) != 0 || ferror(f))
		return fail(errno ? -errno : -EIO, err, len, "cannot write trace %.900s: %s",
			    cfg->trace_path, strerror(errno ? errno : EIO));
	return 0;
}

static void place_cb(struct runtime *rt, void *arg)
{
	struct start_ctx *ctx = arg;
	ctx->wl->place(ctx->inst, rt);
}

static void start_cb(struct runtime *rt, void *arg)
{
	struct start_ctx *ctx = arg;

	/* The engine recorded rt->start_ns before releasing the workers. */
	ctx->wl->start(ctx->inst, rt);
}

static void copy_metrics(const struct workload *wl, void *inst, struct trial *out)
{
	struct wl_metric m[WL_MAX_METRICS];
	size_t n = 0;

	if (wl->metrics)
		n = wl->metrics(inst, m, WL_MAX_METRICS);
	if (n > WL_MAX_METRICS)
		n = WL_MAX_METRICS;
	/* Copied: the names may belong to the instance, which is destroyed. */
	for (size_t i = 0; i < n; i++) {
		snprintf(out->metrics[i].name, sizeof out->metrics[i].name, "%s", m[i].name);
		out->metrics[i].value = m[i].value;
	}
	out->nmetrics = n;
}

/*
 * A measured trial's own percentiles, the batches of the percentiles'
 * intervals (core/pctci.h): the scheduling delay from the trial's workers'
 * histograms merged, the end-to-end latency from its recorded requests
 * (nearest rank). A one-trial run of requests also keeps the percentiles
 * of PCT_CI_SLICES consecutive slices of them, in arrival order.
 */
static int trial_percentiles(const struct run_config *cfg, struct runtime *rt, void *inst,
			     struct trial *out, struct run_result *acc)
{
	struct hist h;
	if (hist_init(&h, cfg->hist_digits, HIST_HIGHEST_NS) != 0)
		return -ENOMEM;
	(void)rt_sched_delay_merge(rt, &h);	/* collect checked the layout */
	out->sched_samples = h.total;
	for (int k = 0; k < PCT_LEVELS; k++)
		out->sched_pct[k] = (double)hist_percentile(&h, pct_level[k]);
	hist_destroy(&h);
	out->e2e_samples = 0;
	if (!acc->has_end_to_end)
		return 0;
	const uint64_t *lat;
	size_t n = cfg->wl->latencies(inst, &lat);
	uint64_t *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	if (cfg->trials == 1 && n >= PCT_CI_SLICES * PCT_CI_SLICE_MIN) {
		for (uint32_t b = 0; b < PCT_CI_SLICES; b++) {
			size_t from = n * b / PCT_CI_SLICES, to = n * (b + 1) / PCT_CI_SLICES;
			memcpy(v, lat + from, (to - from) * sizeof *v);
			pct_of_values(v, to - from, acc->slices[b]);
		}
		acc->nslices = PCT_CI_SLICES;
	}
	memcpy(v, lat, n * sizeof *v);
	pct_of_values(v, n, out->e2e_pct);
	out->e2e_samples = n;
	free(v);
	return 0;
}

/*
 * The work the run declared: T1, the sum of every task's compute
 * (rt_compute in the ticks that polled a task: struct worker's
 * task_compute_ns), and the longest single declaration. Both engines spend
 * it inside the poll that declares it (a spin; the sim's clock moves at
 * once), so it lies before whatever the poll does next, rt_finish included.
 * The sim's per-poll work charge (cost work.NAME) is left out: it is
 * charged after each step, so the last steps' charges lie past the end of
 * a trial even where nothing else is wrong (fib on 1 worker). Workloads
 * without rt_compute (fib, nqueens, uts, sort, the shapes without work_ns)
 * declare none, and their bound is 0.
 */
static void declared_work(const struct runtime *rt, uint64_t *t1, uint64_t *longest)
{
	uint64_t sum = 0, max = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct worker *w = &rt->workers[i];
		sum += w->task_compute_ns;
		max = w->task_compute_max_ns > max ? w->task_compute_max_ns : max;
	}
	*t1 = sum;
	*longest = max;
}

/* A span in us below 1 ms, else in ms. */
static const char *fmt_span(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	return buf;
}

/*
 * No result below its own lower bound (docs/results.md): P workers cannot
 * finish T1 of declared work in less than T1 / P, nor in less than its
 * longest piece, and every declared nanosecond must lie in the workers'
 * busy time inside the run. The threads engine spins each compute on the
 * clock that times the run and the ticks, so the bound holds there to the
 * clock's granularity, which is all it allows; the sim's virtual clock is
 * exact. A run below it (a defect, or the sim with cost.causal=0: docs/sim.md) is
 * refused with -ERANGE, and nothing of it is reported or written.
 */
static int check_work_bound(const struct run_config *cfg, const struct runtime *rt, char *err,
			    size_t len)
{
	char a[32], b[32], c[32], d[32];
	uint64_t t1, longest, busy = 0;
	uint64_t span = rt->end_ns > rt->start_ns ? rt->end_ns - rt->start_ns : 0;
	declared_work(rt, &t1, &longest);
	if (t1 == 0)
		return 0;
	uint64_t avg = t1 / cfg->workers + (t1 % cfg->workers != 0);
	uint64_t bound = avg > longest ? avg : longest;
	uint64_t slack = 0;
	if (!cfg->sim) {
		struct timespec res;
		if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
			slack = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	}
	/* On the sim, a step's effects are seen from its start (docs/sim.md,
	 * "What the sim leaves out"): a run of requests ends when its last one
	 * is done, at the start of the step that computes it, so the work of
	 * the steps in flight then lies after the end, in busy_after_end_ns.
	 * It is work accounted for, though outside the makespan; the makespan
	 * itself must still meet the bound above. */
	for (uint32_t i = 0; i < cfg->workers; i++)
		busy += rt->workers[i].st.busy_ns + (cfg->sim ? rt->workers[i].busy_after_end_ns : 0);
	if (span + slack < bound)
		return fail(-ERANGE, err, len, "policy %s, %" PRIu32 " workers: makespan %s is "
			    "below its lower bound %s, max(T1/P, longest task) with T1 = %s of "
			    "declared work and a longest task of %s; result refused",
			    cfg->name ? cfg->name : cfg->policy->name, cfg->workers,
			    fmt_span(a, sizeof a, span), fmt_span(b, sizeof b, bound),
			    fmt_span(c, sizeof c, t1), fmt_span(d, sizeof d, longest));
	/* Not under --explore: its runs are never reported, their step costs
	 * are scaled and their I/O comes through the workers' own polls, and
	 * the sim's open-loop tails (docs/results.md) would hide the protocol
	 * findings it is run for. */
	if (!cfg->explore && busy + slack * cfg->workers < t1)
		return fail(-ERANGE, err, len, "policy %s, %" PRIu32 " workers: makespan %s, lower "
			    "bound %s, but only %s of the %s of declared work lie in the workers' busy "
			    "time; result refused",
			    cfg->name ? cfg->name : cfg->policy->name, cfg->workers,
			    fmt_span(a, sizeof a, span), fmt_span(b, sizeof b, bound),
			    fmt_span(c, sizeof c, busy), fmt_span(d, sizeof d, t1));
	return 0;
}

/*
 * The declared work's bound above, then, on the sim, the span T_inf of the
 * task graph the trial ran (core/span.h): no schedule of the graph ends
 * before its critical path does. Its greedy upper side, T1/P + T_inf, is
 * a report (scripts/tables.py --metric work-span), not a refusal.
 */
static int check_bound(const struct run_config *cfg, const struct runtime *rt, char *err,
		       size_t len)
{
	char a[32], b[32];
	int rc = check_work_bound(cfg, rt, err, len);
	uint64_t span = rt->end_ns > rt->start_ns ? rt->end_ns - rt->start_ns : 0;
	if (rc == 0 && rt->has_span && span < rt->span_ns)
		rc = fail(-ERANGE, err, len, "policy %s, %" PRIu32 " workers: makespan %s is "
			  "below the span T_inf %s of the task graph it ran; result refused",
			  cfg->name ? cfg->name : cfg->policy->name, cfg->workers,
			  fmt_span(a, sizeof a, span), fmt_span(b, sizeof b, rt->span_ns));
	return rc;
}

/* After engine->run returned: check the answer and the bound, then take
 * the figures. */
static int collect(const struct run_config *cfg, struct runtime *rt, void *inst,
		   struct trial *out, struct run_result *acc, char *err, size_t len)
{
	const struct workload *wl = cfg->wl;
	char why[256] = "";
	uint64_t busy = 0;
	double span;

	if (wl->verify(inst, why, sizeof why) != 0)
		return fail(-EIO, err, len, "%s under %s computed a wrong answer: %s", wl->name,
			    cfg->policy->name, why[0] ? why : "(no reason given)");
	int rc = check_bound(cfg, rt, err, len);
	if (rc)
		return rc;
	if (rt->end_ns <= rt->start_ns)
		return fail(-EIO, err, len, "%s under %s: end time %" PRIu64 " not after start %"
			    PRIu64, wl->name, cfg->policy->name, rt->end_ns, rt->start_ns);
	out->tasks = wl->tasks(inst);
	if (out->tasks == 0)
		return fail(-EIO, err, len, "%s under %s reported 0 tasks", wl->name,
			    cfg->policy->name);
	out->makespan_ns = rt->end_ns - rt->start_ns;
	out->has_span = rt->has_span;
	out->span_ns = rt->has_span ? rt->span_ns : 0;
	span = (double)out->makespan_ns;
	out->tasks_per_s = (double)out->tasks * 1e9 / span;
	out->ns_per_task = span / (double)out->tasks;
	out->overhead_ns_per_task = NAN;
	for (uint32_t i = 0; i < cfg->workers; i++) {
		out->ws[i] = rt->workers[i].st;
		out->util[i] = (double)out->ws[i].busy_ns / span;
		busy += out->ws[i].busy_ns;
	}
	if (acc && rt_sched_delay_merge(rt, &acc->sched_delay) != 0)
		return fail(-EINVAL, err, len, "the workers' sched_delay histograms do not match "
			    "the configuration");
	out->util_total = (double)busy / ((double)cfg->workers * span);
	if (acc && trial_percentiles(cfg, rt, inst, out, acc) != 0)
		return fail(-ENOMEM, err, len, "out of memory");
	if (acc && acc->has_end_to_end) {
		const uint64_t *lat;
		size_t n = wl->latencies(inst, &lat);
		for (size_t i = 0; i < n; i++)
			hist_record(&acc->end_to_end, lat[i]);
	}
	copy_metrics(wl, inst, out);
	return 0;
}

/* The precision of the wake-latency histograms (2 significant digits:
 * 1%), and the longest latency they hold. */
#define WAKE_HIST_DIGITS 2
#define WAKE_HIST_HIGHEST_NS (60ull * 1000000000ull)

/* The process's user + system time so far (getrusage), in ns; NAN if
 * unreadable. */
static double process_cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return NAN;
	return (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3 +
	       (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
}

/*
 * A trial's CPU (struct trial_cpu) from what the engine filled in, and the
 * figures derived from it; the wake latencies into the run's histogram.
 */
static void collect_cpu(const struct run_config *cfg, struct runtime *rt, struct hist *wake,
			struct trial *out, struct run_result *acc)
{
	uint64_t cpu = 0, task = 0;
	out->cpu.wakes_polled = out->cpu.wakes_empty = 0;
	out->cpu.awake_notifies = out->cpu.permit_parks = 0;
	for (uint32_t i = 0; i < cfg->workers; i++) {
		out->cpu.w[i] = rt->cpu[i];
		cpu += rt->cpu[i].cpu_ns;
		task += rt->cpu[i].task_ns;
		out->cpu.wakes_polled += rt->workers[i].wakes_polled;
		out->cpu.wakes_empty += rt->workers[i].wakes_empty;
		out->cpu.awake_notifies += rt->workers[i].st.awake_notifies;
		out->cpu.permit_parks += rt->workers[i].st.permit_parks;
	}
	double span = (double)out->makespan_ns;
	out->cpu.measured = true;
	out->cpu_per_task_ns = (double)cpu / (double)out->tasks;
	out->idle_cpu = (double)(cpu - task) / ((double)cfg->workers * span);
	out->cpu_cores = (double)cpu / span;
	for (uint32_t i = 0; acc && i < (cfg->sim ? 1 : cfg->workers); i++)
		(void)hist_merge(&acc->wake_latency, &wake[i]);	/* one layout */
}

static int run_parallel(const struct run_config *cfg, uint64_t seed, struct trial *out,
			struct run_result *acc, char *err, size_t len)
{
	const struct workload *wl = cfg->wl;
	struct rt_config rcfg = {
		.workers = cfg->workers,
		.seed = seed,
		.sample_period = cfg->sample_period,
		.hist_digits = cfg->hist_digits,
		.watchdog_ns = cfg->watchdog_ns,
		.explore = cfg->explore,
		.trace_events = acc && cfg->trace_file && !acc->trace_written ? cfg->trace_events : 0,
		.cpus = cfg->sim ? NULL : cfg->cpus,
	};
	struct runtime *rt = NULL;
	struct start_ctx ctx = { wl, NULL };
	struct engine *e;
	char why[256] = "";
	int rc;

	struct worker_noise *wn = NULL;
	struct hist *wake = NULL;
	uint32_t nwake = 0;
	double steal0 = NAN;
	if (cfg->real)
		return real_run_trial(cfg, seed, out, acc ? acc->peer_version : NULL,
				      acc ? sizeof acc->peer_version : 0, err, len);
	e = cfg->sim ? engine_sim_create(cfg->workers, cfg->costs, cfg->explore_seed)
		     : engine_threads_create(cfg->workers);
	if (!e)
		return fail(-ENOMEM, err, len, "cannot create the %s engine for %" PRIu32
			    " workers", cfg->sim ? "sim" : "threads", cfg->workers);
	rc = rt_create(&rt, &rcfg, cfg->policy, cfg->knobs, e, why, sizeof why);
	if (rc) {
		rt = NULL;
		fail(rc, err, len, "policy %s: cannot create the runtime: %s", cfg->policy->name,
		     why[0] ? why : strerror(-rc));
		goto out;
	}
	ctx.inst = wl->create(cfg->params, cfg->workers, seed);
	if (!ctx.inst) {
		rc = create_failed(wl, err, len);
		goto out;
	}
	rt->user = ctx.inst;
	/* The CPU split and the wake latencies (struct worker_cpu): one
	 * histogram per worker thread, one for the sim's one thread (as the
	 * scheduling delay's, struct worker's sched_hist). Not while
	 * exploring, whose step costs are scaled. */
	if (!cfg->explore) {
		nwake = cfg->sim ? 1 : cfg->workers;
		rt->cpu = calloc(cfg->workers, sizeof *rt->cpu);
		wake = calloc(nwake, sizeof *wake);
		bool ok = rt->cpu && wake;
		for (uint32_t i = 0; ok && i < nwake; i++)
			ok = hist_init(&wake[i], WAKE_HIST_DIGITS, WAKE_HIST_HIGHEST_NS) == 0;
		if (!ok) {
			rc = fail(-ENOMEM, err, len, "out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < cfg->workers; i++)
			rt->workers[i].wake_hist = &wake[cfg->sim ? 0 : i];
	}
	if (wl->place) {
		rt->place = place_cb;
		rt->place_arg = &ctx;
	}
	out->noise.measured = !cfg->sim && !cfg->explore;
	if (out->noise.measured) {
		wn = calloc(cfg->workers, sizeof *wn);
		if (!wn) {
			rc = fail(-ENOMEM, err, len, "out of memory");
			goto out;
		}
		rt->noise = wn;
		out->noise.c2c_before_ns = noise_c2c_ns(cfg->cpus, cfg->workers);
		out->noise.speed_before_ns = noise_speed_ns(cfg->cpus, cfg->workers);
		/* --c2c-band, --speed-band: wait a little for the round trip and
		 * the compute probe to come into their bands before starting
		 * (this machine's regimes can change from one trial to the
		 * next, its compute speed within a second). The budget counts
		 * this wait as it goes: on a loaded machine one probe can take
		 * a second, and 25 of them would run far past it. */
		uint64_t w0 = mono_ns();
		for (uint32_t k = 0; k < NOISE_BAND_WAIT_PROBES &&
				     band_spent_ns + (mono_ns() - w0) < NOISE_BAND_BUDGET_NS &&
				     !(noise_c2c_in_band(out->noise.c2c_before_ns, cfg->c2c_lo,
							 cfg->c2c_hi) &&
				       noise_c2c_in_band(out->noise.speed_before_ns, cfg->speed_lo,
							 cfg->speed_hi));
		     k++) {
			struct timespec pause = { 0, (long)NOISE_BAND_WAIT_NS };
			nanosleep(&pause, NULL);
			out->noise.c2c_before_ns = noise_c2c_ns(cfg->cpus, cfg->workers);
			out->noise.speed_before_ns = noise_speed_ns(cfg->cpus, cfg->workers);
		}
		band_spent_ns += cfg->c2c_hi > 0 || cfg->speed_hi > 0 ? mono_ns() - w0 : 0;
		steal0 = noise_host_steal_ns();
	}
	uint64_t run0 = mono_ns();
	double proc0 = cfg->sim ? NAN : process_cpu_ns();
	rc = e->ops->run(e, rt, start_cb, &ctx);
	out->cpu.process_ns = process_cpu_ns() - proc0;
	if (rc == 0 && out->noise.measured) {
		out->noise.steal_ns = noise_host_steal_ns() - steal0;
		out->noise.speed_after_ns = noise_speed_ns(cfg->cpus, cfg->workers);
		out->noise.c2c_after_ns = noise_c2c_ns(cfg->cpus, cfg->workers);
		for (uint32_t i = 0; i < cfg->workers; i++) {
			out->noise.switches[i] = wn[i].switches;
			out->noise.migrations[i] = wn[i].migrations;
			out->noise.stolen_ns[i] = wn[i].stolen_ns;
			out->noise.kernel_ns[i] = wn[i].kernel_ns;
		}
		out->noise.flags = noise_flags(&out->noise, cfg->workers, rt->end_ns - rt->start_ns,
					       sysconf(_SC_NPROCESSORS_ONLN)) |
				   noise_band_flag(&out->noise, cfg->c2c_lo, cfg->c2c_hi) |
				   noise_speed_band_flag(&out->noise, cfg->speed_lo, cfg->speed_hi);
		/* --noise=retry: a flagged measured trial is run again (with
		 * its seed) before anything of it is kept; and whatever
		 * --noise says, one outside --c2c-band or --speed-band, up to
		 * NOISE_BAND_RETRIES times. */
		bool noisy = out->noise.flags && cfg->noise_mode == NOISE_RETRY &&
			     out->noise.retries < NOISE_RETRIES;
		bool banded = noise_band_rerun(out->noise.flags, out->noise.retries, band_spent_ns);
		if (acc && (noisy || banded)) {
			if (!noisy)
				band_spent_ns += mono_ns() - run0;
			rc = -EAGAIN;
			goto out;
		}
	}
	if (rc == -EPROTO) {
		fail(rc, err, len, "%s under %s: %s", wl->name, cfg->policy->name, rt->violation);
		goto out;
	}
	if (rc == 0 && cfg->explore) {
		uint64_t made = atomic_load(&rt->remote_spawns), done = 0, spawned = 0;
		for (uint32_t i = 0; i < cfg->workers; i++) {
			spawned += rt->workers[i].st.spawns;
			done += rt->workers[i].st.completions;
		}
		if (spawned + made != done) {
			rc = fail(-EIO, err, len, "%s under %s: %llu tasks created, %llu completed",
				  wl->name, cfg->policy->name, (unsigned long long)(spawned + made),
				  (unsigned long long)done);
			goto out;
		}
	}
	if (rc == -ETIMEDOUT || rc == -EDEADLK) {
		fail(rc, err, len, "%s under %s stalled: no task completed for %.3g s (stall report "
			 "above)", wl->name, cfg->policy->name, cfg->watchdog_ns / 1e9);
		if (rc == -EDEADLK) {
			/* Workers are stuck inside a task: nothing can be freed, and
			 * _exit skips atexit, so the temporary files go first. */
			fprintf(stderr, "harness: %s\n", err);
			if (driver_exit_cleanup)
				driver_exit_cleanup();
			_exit(DRIVER_EXIT_STALL);
		}
		goto out;
	}
	if (rc) {
		fail(rc, err, len, "engine %s: run failed: %s", e->ops->name, strerror(-rc));
		goto out;
	}
	rc = collect(cfg, rt, ctx.inst, out, acc, err, len);
	if (rc == 0 && rt->cpu)
		collect_cpu(cfg, rt, wake, out, acc);
	if (rc == 0 && rcfg.trace_events) {
		rc = write_trace(cfg, rt, err, len);
		acc->trace_written = rc == 0;
	}
out:
	if (ctx.inst)
		wl->destroy(ctx.inst);
	if (rt) {
		free(rt->cpu);
		rt->cpu = NULL;
		rt_destroy(rt);
	}
	e->ops->destroy(e);
	free(wn);
	for (uint32_t i = 0; wake && i < nwake; i++)
		if (wake[i].counts)
			hist_destroy(&wake[i]);
	free(wake);
	return rc;
}

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
}

static void progress_baseline(const char *phase, uint32_t i, uint32_t n,
			      const struct run_config *cfg, const struct baseline_trial *b)
{
	char ms[32];

	if (cfg->quiet)
		return;
	fmt_ms(ms, sizeof ms, b->ns);
	/* With --param lists the baseline is per parameter set: the name's
	 * parameter part (`volt load=0.5`) says which. */
	const char *params = cfg->name ? strchr(cfg->name, ' ') : NULL;
	fprintf(stderr, "%s %" PRIu32 "/%" PRIu32 " baseline%s: %s, %.1f ns/task\n", phase, i + 1,
		n, params ? params : "", ms, b->ns_per_task);
}

static void progress_parallel(const char *phase, uint32_t i, uint32_t n,
			      const struct run_config *cfg, const struct trial *t)
{
	char ms[32];

	if (cfg->quiet)
		return;
	fmt_ms(ms, sizeof ms, t->makespan_ns);
	/* --trials auto: n is the most a configuration can take. */
	fprintf(stderr, "%s %" PRIu32 "/%s%" PRIu32 " %s: %s, %.1f ns/task, util %.1f%%\n", phase,
		i + 1, cfg->ci_target > 0 && strcmp(phase, "trial") == 0 ? "<=" : "", n,
		cfg->name ? cfg->name : cfg->policy->name, ms, t->ns_per_task, 100 * t->util_total);
}

struct phase {
	const char *name;	/* "warmup" or "trial" */
	uint32_t n;		/* trials per configuration (--trials auto: at most) */
	uint64_t seed0;		/* trial i of this phase runs with seed0 + i */
	bool measured;
};

/* One round of a phase: want[c] trials of configuration c and nbase
 * baseline trials per distinct set of parameters; pi[c] and bi[c] count
 * the trials (and so the seeds) configuration c has run so far. */
struct round {
	const uint32_t *want;
	uint32_t nbase;
	uint32_t *pi, *bi;
};

/* Scratch space for warm-up trials, whose figures are discarded. */
struct scratch {
	struct baseline_trial b;
	struct trial t;
	uint32_t order;		/* measured runs started so far (trial.order) */
};

/* One run of a phase: a parallel trial of configuration `cfg`, or (base) a
 * sequential baseline trial of configuration `cfg`'s parameters, shared by
 * every configuration with the same parameters. */
struct slot {
	uint16_t cfg;
	bool base;
};
#define MAX_CFGS UINT16_MAX

/* The first configuration with cfgs[c]'s workload parameters: the one
 * whose baseline trials configuration c shares. */
static size_t params_leader(const struct run_config *cfgs, size_t c)
{
	size_t n = cfgs[c].wl->nparams;
	for (size_t k = 0; k < c; k++)
		if (cfgs[k].params == cfgs[c].params ||
		    memcmp(cfgs[k].params, cfgs[c].params, n * sizeof *cfgs[c].params) == 0)
			return k;
	return c;
}

static void shuffle_slots(struct slot *order, size_t n, struct rng *r)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_below(r, (uint32_t)i);
		struct slot t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/*
 * Every trial of every configuration, and the baseline trials, in one order
 * shuffled by the seed: configurations compared in one run see the same
 * machine, whatever regime it drifts through. Trial i of every
 * configuration runs with the same seed.
 */
static int run_phase(const struct run_config *cfgs, size_t ncfg, struct run_result *res,
		     struct scratch *s, const struct phase *ph, const struct round *rd,
		     struct rng *r, char *err, size_t len)
{
	bool baseline = cfgs[0].baseline && rd->nbase;
	size_t nruns = 0;
	for (size_t c = 0; c < ncfg; c++)
		nruns += rd->want[c] + (baseline && params_leader(cfgs, c) == c ? rd->nbase : 0);
	struct slot *order = malloc((nruns ? nruns : 1) * sizeof *order);
	uint32_t *pi = rd->pi, *bi = rd->bi;
	int rc = 0;

	if (!order)
		return fail(-ENOMEM, err, len, "out of memory");
	/* Every configuration's trials, then one baseline per distinct set of
	 * parameters (one in all unless --param crossed a list). */
	size_t k = 0;
	for (size_t c = 0; c < ncfg; c++)
		for (uint32_t t = 0; t < rd->want[c]; t++)
			order[k++] = (struct slot){ (uint16_t)c, false };
	for (size_t c = 0; baseline && c < ncfg; c++)
		for (uint32_t t = 0; params_leader(cfgs, c) == c && t < rd->nbase; t++)
			order[k++] = (struct slot){ (uint16_t)c, true };
	shuffle_slots(order, nruns, r);
	for (size_t i = 0; i < nruns && rc == 0; i++) {
		uint32_t place = ph->measured ? s->order++ : 0;
		if (order[i].base) {
			size_t c = order[i].cfg;
			struct baseline_trial *b = ph->measured ? &res[c].baseline[bi[c]] : &s->b;
			rc = run_baseline(&cfgs[c], ph->seed0 + bi[c], b, err, len);
			if (rc == 0)
				progress_baseline(ph->name, bi[c], rd->nbase, &cfgs[c], b);
			bi[c]++;
		} else {
			size_t c = order[i].cfg;
			/* A round past a configuration's maximum (--trials auto)
			 * would write past its trials: fail loudly, not at random. */
			CHECK(!ph->measured || pi[c] < res[c].ntrials);
			struct trial *t = ph->measured ? &res[c].trials[pi[c]] : &s->t;
			t->noise.retries = 0;
			t->order = place;
			rc = run_parallel(&cfgs[c], ph->seed0 + pi[c], t,
					  ph->measured ? &res[c] : NULL, err, len);
			while (rc == -EAGAIN) {
				fprintf(stderr, "%s %u/%u %s: noisy (", ph->name, pi[c] + 1, ph->n,
					cfgs[c].name);
				noise_print_flags(stderr, t->noise.flags);
				fprintf(stderr, "), run again\n");
				t->noise.retries++;
				res[c].retried++;
				rc = run_parallel(&cfgs[c], ph->seed0 + pi[c], t, &res[c], err, len);
			}
			if (rc == 0)
				progress_parallel(ph->name, pi[c], ph->n, &cfgs[c], t);
			pi[c]++;
		}
	}
	free(order);
	return rc;
}

/* --noise=drop leaves a run's flagged trials out of its medians, unless
 * every one of the first n is flagged. */
static bool drops(const struct run_config *cfg, const struct run_result *res, uint32_t n)
{
	uint32_t flagged = 0;
	for (uint32_t i = 0; i < n; i++)
		flagged += res->trials[i].noise.flags != 0;
	return cfg->noise_mode == NOISE_DROP && flagged < n;
}

/*
 * --trials auto: whether the first n measured trials of cfg are enough,
 * by the stopping rule of core/pctci.h (pct_median_within) on the
 * makespans the median is taken from. Sets res->auto_halfwidth.
 */
static bool auto_enough(const struct run_config *cfg, struct run_result *res, uint32_t n,
			double *v)
{
	bool drop = drops(cfg, res, n);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!drop || !res->trials[i].noise.flags)
			v[kept++] = (double)res->trials[i].makespan_ns;
	return pct_median_within(v, kept, cfg->trials_min, cfg->ci_target, &res->auto_halfwidth);
}

/*
 * The measured trials of --trials auto after the first trials_min of
 * every configuration: rounds of one more trial for each configuration
 * that is not yet within its target and not at its maximum, in an order
 * shuffled anew every round, so the configurations still running share the
 * machine's regimes as the fixed-count phase does, and a configuration that
 * converged early is not held to the trial count of the slowest.
 */
static int run_auto_rounds(const struct run_config *cfgs, size_t ncfg, struct run_result *res,
			   struct scratch *s, const struct phase *ph, uint32_t *want,
			   uint32_t *pi, uint32_t *bi, struct rng *r, uint64_t began_ns,
			   char *err, size_t len)
{
	double *v = malloc(cfgs[0].trials * sizeof *v);
	double limit_s = cfgs[0].trials_time_s;
	struct round rd = { want, 0, pi, bi };
	int rc = v ? 0 : fail(-ENOMEM, err, len, "out of memory");

	for (size_t active = 1; rc == 0 && active;) {
		active = 0;
		for (size_t c = 0; c < ncfg; c++) {
			bool done = auto_enough(&cfgs[c], &res[c], pi[c], v);
			res[c].auto_at_max = !done;
			want[c] = !done && pi[c] < cfgs[c].trials;
			active += want[c];
		}
		/* --trials-time: no new round past the limit; a configuration
		 * still short of its target says that the time stopped it. */
		if (active && limit_s > 0 && (double)(mono_ns() - began_ns) / 1e9 >= limit_s) {
			for (size_t c = 0; c < ncfg; c++)
				if (want[c]) {
					res[c].auto_at_max = false;
					res[c].auto_at_time = true;
				}
			break;
		}
		if (active)
			rc = run_phase(cfgs, ncfg, res, s, ph, &rd, r, err, len);
	}
	free(v);
	return rc;
}

static int alloc_trial(struct trial *t, uint32_t workers)
{
	t->util = calloc(workers, sizeof *t->util);
	t->ws = calloc(workers, sizeof *t->ws);
	t->cpu.w = calloc(workers, sizeof *t->cpu.w);
	t->cpu.measured = false;
	t->cpu.process_ns = t->cpu_per_task_ns = t->idle_cpu = t->cpu_cores = NAN;
	int rc = noise_alloc(&t->noise, workers);
	return t->util && t->ws && t->cpu.w && rc == 0 ? 0 : -ENOMEM;
}

static void free_trial(struct trial *t)
{
	free(t->cpu.w);
	t->cpu.w = NULL;
	noise_free(&t->noise);
	free(t->util);
	free(t->ws);
	t->util = NULL;
	t->ws = NULL;
}

static int alloc_result(const struct run_config *cfg, struct run_result *res)
{
	int rc;

	memset(res, 0, sizeof *res);
	res->ntrials = cfg->trials;
	res->nbaseline = cfg->baseline ? (cfg->ci_target > 0 ? cfg->trials_min : cfg->trials) : 0;
	res->nworkers = cfg->workers;
	res->baseline_median_ns_per_task = NAN;
	rc = hist_init(&res->sched_delay, cfg->hist_digits, HIST_HIGHEST_NS);
	if (rc)
		return rc;
	if ((rc = hist_init(&res->wake_latency, WAKE_HIST_DIGITS, WAKE_HIST_HIGHEST_NS)) != 0)
		return rc;
	res->has_end_to_end = cfg->wl->latencies != NULL;
	if (res->has_end_to_end &&
	    (rc = hist_init(&res->end_to_end, cfg->hist_digits, HIST_HIGHEST_NS)) != 0)
		return rc;
	res->trials = calloc(cfg->trials, sizeof *res->trials);
	res->per_worker = calloc(cfg->workers, sizeof *res->per_worker);
	if (cfg->baseline)
		res->baseline = calloc(res->nbaseline, sizeof *res->baseline);
	if (!res->trials || !res->per_worker || (cfg->baseline && !res->baseline))
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->trials; i++)
		if (alloc_trial(&res->trials[i], cfg->workers))
			return -ENOMEM;
	return 0;
}

void run_result_free(struct run_result *res)
{
	if (res->trials)
		for (uint32_t i = 0; i < res->ntrials; i++)
			free_trial(&res->trials[i]);
	free(res->trials);
	free(res->baseline);
	free(res->per_worker);
	if (res->sched_delay.counts)
		hist_destroy(&res->sched_delay);
	if (res->end_to_end.counts)
		hist_destroy(&res->end_to_end);
	if (res->wake_latency.counts)
		hist_destroy(&res->wake_latency);
	memset(res, 0, sizeof *res);
}

/*
 * The 95% intervals of the reported percentiles (core/pctci.h,
 * docs/results.md): batch means over the measured trials when there are
 * several; for one trial of requests, over slices of it; else the order
 * statistics of the pooled samples.
 */
static void hist_ci(const struct hist *h, double (*batch)[PCT_LEVELS], uint32_t nb,
		    enum pct_ci_method m, struct pct_ci *out)
{
	double center[PCT_LEVELS];
	for (int k = 0; k < PCT_LEVELS; k++)
		center[k] = (double)hist_percentile(h, pct_level[k]);
	if (h->total == 0)
		memset(out, 0, sizeof *out);
	else if (nb >= 2)
		pct_ci_batches((const double (*)[PCT_LEVELS])batch, nb, center, m, out);
	else
		pct_ci_order_stats(h, out);
}

static void percentile_intervals(struct run_result *res)
{
	double (*b)[PCT_LEVELS] = calloc(res->ntrials, sizeof *b);
	uint32_t nb = res->ntrials >= 2 ? res->ntrials : 0;
	if (!b)
		nb = 0;
	for (uint32_t i = 0; b && i < res->ntrials; i++)
		memcpy(b[i], res->trials[i].sched_pct, sizeof b[i]);
	hist_ci(&res->sched_delay, b, nb, PCT_CI_BATCH_TRIALS, &res->sched_ci);
	if (res->has_end_to_end) {
		for (uint32_t i = 0; b && i < res->ntrials; i++)
			memcpy(b[i], res->trials[i].e2e_pct, sizeof b[i]);
		if (nb >= 2)
			hist_ci(&res->end_to_end, b, nb, PCT_CI_BATCH_TRIALS, &res->e2e_ci);
		else
			hist_ci(&res->end_to_end, res->slices, res->nslices, PCT_CI_BATCH_SLICES,
				&res->e2e_ci);
	}
	free(b);
}

/* Widen min..max (NAN: empty) to hold the probe v, if it was made. */
static void widen(double *min, double *max, double v)
{
	if (!isfinite(v))
		return;
	*min = isfinite(*min) ? fmin(*min, v) : v;
	*max = isfinite(*max) ? fmax(*max, v) : v;
}

/* Flag counts, the round-trip and compute-probe ranges and the makespans'
 * Tukey classes. */
static void noise_summary(struct run_result *res)
{
	double *v = calloc(res->ntrials ? res->ntrials : 1, sizeof *v);
	int *cls = calloc(res->ntrials ? res->ntrials : 1, sizeof *cls);
	res->flagged = 0;
	memset(res->flag_counts, 0, sizeof res->flag_counts);
	res->c2c_min_ns = res->c2c_max_ns = NAN;
	res->speed_min_ns = res->speed_max_ns = NAN;
	for (uint32_t i = 0; i < res->ntrials; i++) {
		const struct trial_noise *n = &res->trials[i].noise;
		res->flagged += n->flags != 0;
		for (uint32_t b = 0; b < NOISE_NFLAGS; b++)
			res->flag_counts[b] += (n->flags >> b) & 1;
		widen(&res->c2c_min_ns, &res->c2c_max_ns, n->c2c_before_ns);
		widen(&res->c2c_min_ns, &res->c2c_max_ns, n->c2c_after_ns);
		widen(&res->speed_min_ns, &res->speed_max_ns, n->speed_before_ns);
		widen(&res->speed_min_ns, &res->speed_max_ns, n->speed_after_ns);
		if (v)
			v[i] = (double)res->trials[i].makespan_ns;
	}
	if (v && cls) {
		tukey_classify(v, res->ntrials, cls, res->tukey);
		for (uint32_t i = 0; i < res->ntrials; i++)
			res->trials[i].tukey = cls[i];
	}
	free(v);
	free(cls);
}

static int finish(const struct run_config *cfg, struct run_result *res)
{
	double *tmp = calloc(res->ntrials > res->nbaseline ? res->ntrials : res->nbaseline,
			     sizeof *tmp);

	if (!tmp)
		return -ENOMEM;
	if (res->baseline) {
		for (uint32_t i = 0; i < res->nbaseline; i++)
			tmp[i] = res->baseline[i].ns_per_task;
		res->baseline_median_ns_per_task = median_of(tmp, res->nbaseline);
		for (uint32_t i = 0; i < res->ntrials; i++)
			res->trials[i].overhead_ns_per_task =
				res->trials[i].ns_per_task - res->baseline_median_ns_per_task;
	}
	noise_summary(res);
	/* --noise=drop: the medians leave the flagged trials out (unless
	 * every trial is flagged: then all stay, and the summary says so). */
	bool drop = drops(cfg, res, res->ntrials);
	res->dropped = drop ? res->flagged : 0;
	uint32_t kept;
#define X(field, key)                                                        \
	kept = 0;                                                            \
	for (uint32_t i = 0; i < res->ntrials; i++)                          \
		if (!drop || !res->trials[i].noise.flags)                    \
			tmp[kept++] = (double)res->trials[i].field;          \
	res->median.field = median_of(tmp, kept);
	RUN_MEDIANS(X)
#undef X
	free(tmp);
	for (uint32_t t = 0; t < res->ntrials; t++) {
		for (uint32_t w = 0; w < cfg->workers; w++)
			worker_stats_add(&res->per_worker[w], &res->trials[t].ws[w]);
		res->reported |= res->trials[t].reported;
	}
	for (uint32_t w = 0; w < cfg->workers; w++)
		worker_stats_add(&res->total, &res->per_worker[w]);
	percentile_intervals(res);
	return 0;
}

int driver_run_many(const struct run_config *cfgs, size_t ncfg, struct run_result *res,
		    char *err, size_t len)
{
	const struct run_config *cfg = &cfgs[0];
	bool autotrials = cfg->ci_target > 0;
	uint64_t began_ns = mono_ns();
	/* Warm-up seeds follow the most measured trials a run can take. */
	struct phase warm = { "warmup", cfg->warmup, cfg->seed + cfg->trials, false };
	struct phase meas = { "trial", cfg->trials, cfg->seed, true };
	uint32_t first = autotrials ? cfg->trials_min : cfg->trials;
	struct scratch s = { 0 };
	struct rng r;
	size_t made = 0;
	uint32_t *want = calloc(ncfg ? ncfg : 1, sizeof *want);
	uint32_t *cnt = calloc(ncfg ? 4 * ncfg : 1, sizeof *cnt);
	int rc = 0;

	if (ncfg == 0 || ncfg >= MAX_CFGS) {
		free(want);
		free(cnt);
		return fail(-EINVAL, err, len, "bad number of configurations: %zu", ncfg);
	}
	rng_seed(&r, cfg->seed, ORDER_STREAM);
	if (!want || !cnt)
		rc = -ENOMEM;
	for (; made < ncfg && rc == 0; made++)
		rc = alloc_result(&cfgs[made], &res[made]);
	if (rc == 0)
		rc = alloc_trial(&s.t, cfg->workers);
	if (rc) {
		fail(rc, err, len, "out of memory");
		goto out;
	}
	/* cnt: the warm-up phase's trial and baseline counters, then the
	 * measured phase's. */
	for (size_t c = 0; c < ncfg; c++)
		want[c] = cfg->warmup;
	struct round wr = { want, cfg->warmup, cnt, cnt + ncfg };
	rc = run_phase(cfgs, ncfg, res, &s, &warm, &wr, &r, err, len);
	for (size_t c = 0; c < ncfg; c++)
		want[c] = first;
	struct round mr = { want, first, cnt + 2 * ncfg, cnt + 3 * ncfg };
	if (rc == 0)
		rc = run_phase(cfgs, ncfg, res, &s, &meas, &mr, &r, err, len);
	if (rc == 0 && autotrials)
		rc = run_auto_rounds(cfgs, ncfg, res, &s, &meas, want, mr.pi, mr.bi, &r, began_ns,
				     err, len);
	/* --trials auto: each configuration keeps the trials it ran. */
	for (size_t c = 0; rc == 0 && autotrials && c < ncfg; c++) {
		for (uint32_t i = mr.pi[c]; i < res[c].ntrials; i++)
			free_trial(&res[c].trials[i]);
		res[c].ntrials = mr.pi[c];
	}
	for (size_t c = 1; rc == 0 && c < ncfg && res[0].baseline; c++) {
		size_t lead = params_leader(cfgs, c);
		if (lead != c)
			memcpy(res[c].baseline, res[lead].baseline,
			       res[lead].nbaseline * sizeof *res[0].baseline);
	}
	for (size_t c = 0; rc == 0 && c < ncfg; c++)
		if (finish(&cfgs[c], &res[c]) != 0)
			rc = fail(-ENOMEM, err, len, "out of memory");
out:
	free_trial(&s.t);
	free(want);
	free(cnt);
	if (rc)
		for (size_t c = 0; c < made; c++)
			run_result_free(&res[c]);
	return rc;
}

int driver_run(const struct run_config *cfg, struct run_result *res, char *err, size_t len)
{
	return driver_run_many(cfg, 1, res, err, len);
}

int driver_explore_one(const struct run_config *cfg, char *err, size_t len)
{
	struct trial t = { 0 };
	int rc = alloc_trial(&t, cfg->workers);
	if (rc == 0)
		rc = run_parallel(cfg, cfg->seed, &t, NULL, err, len);
	else
		fail(rc, err, len, "out of memory");
	free_trial(&t);
	return rc;
}
