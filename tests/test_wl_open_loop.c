/*
 * test_wl_open_loop.c - the open-loop workload.
 *
 * The schedule, from the generator alone (no runtime): its realized load is
 * the offered load, its arrivals are exponential and reproducible, and
 * every service distribution has its analytic mean over 10^6 draws (and
 * bimodal fractions, lognormal parameters). Then whole runs under volt: every
 * request delivered and completed once, the service computed adds up to the
 * schedule's, the achieved load is the offered one, latencies are one per
 * request and bounded below by what cannot be noise (the I/O sleep of each
 * request; the total service over all of them); and the sequential baseline.
 * The default sizes grow with the load and the workers, and the warm-up is
 * run but left out of the latencies and percentiles.
 */
#include <math.h>

#include "sim_util.h"

/* The generator create() uses, and the default sizes (workloads/open_loop.c). */
uint64_t open_loop__schedule(const double *params, uint32_t workers, uint64_t seed,
			     uint64_t *offset, uint64_t *service);
uint32_t open_loop__requests(const double *params, uint32_t workers);
uint32_t open_loop__warmup(const double *params, uint32_t workers, uint32_t n);
size_t open_loop__late(void *inst, const uint64_t **late);

static const struct workload *wl(void)
{
	const struct workload *w = workload_find("open-loop");
	ASSERT(w);
	return w;
}

struct schedule {
	uint32_t n;
	uint64_t *offset, *service;
	uint64_t horizon, total;
};

static void schedule_make(struct schedule *s, const char *const *settings, uint32_t workers,
			  uint64_t seed)
{
	double p[64];
	ASSERT(wl()->nparams <= 64);
	apply_settings(wl()->params, wl()->nparams, p, settings);
	s->n = open_loop__requests(p, workers);
	s->offset = malloc(s->n * sizeof *s->offset);
	s->service = malloc(s->n * sizeof *s->service);
	ASSERT(s->offset && s->service);
	s->horizon = open_loop__schedule(p, workers, seed, s->offset, s->service);
	s->total = 0;
	for (uint32_t i = 0; i < s->n; i++)
		s->total += s->service[i];
}

static void schedule_free(struct schedule *s)
{
	free(s->offset);
	free(s->service);
}

/* ---- the schedule --------------------------------------------------- */

static void realized_load_is_offered(void)
{
	static const struct {
		const char *set[6];
		uint32_t workers;
	} cases[] = {
		{ { "load=0.5", NULL }, 2 },
		{ { "load=0.3", "dist=0", NULL }, 1 },
		{ { "load=0.9", "dist=2", "requests=20000", NULL }, 4 },
		{ { "load=0.95", "dist=3", "requests=50000", NULL }, 8 },
		{ { "load=0.7", "dist=4", "requests=100000", NULL }, 16 },
		{ { "load=0.62", "requests=400", "service_us=10", NULL }, 3 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double p[64];
		struct schedule s;
		apply_settings(wl()->params, wl()->nparams, p, cases[c].set);
		double load = p[knob_find(wl()->params, wl()->nparams, "load")];
		schedule_make(&s, cases[c].set, cases[c].workers, 5 + c);

		/* Sorted offsets from 0 inside [0, horizon). */
		ASSERT_U64_EQ(s.offset[0], 0);
		for (uint32_t i = 1; i < s.n; i++)
			ASSERT(s.offset[i] >= s.offset[i - 1]);
		ASSERT(s.offset[s.n - 1] <= s.horizon);

		/* Exact but for rounding the horizon to integer ns, which
		 * is below 1e-9 relative for horizons over 0.5 s. */
		double realized = (double)s.total / ((double)cases[c].workers * (double)s.horizon);
		double rel = fabs(realized - load) / load;
		ASSERT(rel <= 0.5 / (double)s.horizon + 1e-13);
		if (s.horizon >= 500000000ull)
			ASSERT(rel <= 1e-9);
		fprintf(stderr, "    %u workers, load %.2f: horizon %.3f s, realized load %.12f\n",
			cases[c].workers, load, s.horizon / 1e9, realized);
		schedule_free(&s);
	}
}

/* Exponential gaps, reproducible for a seed, and the same arrival pattern
 * whatever the service distribution. */
static void arrivals_are_poisson(void)
{
	static const char *const set[] = { "requests=1000000", "dist=0", NULL };
	static const char *const set_exp[] = { "requests=1000000", "dist=1", NULL };
	struct schedule a, b, c, d;
	schedule_make(&a, set, 2, 1);
	schedule_make(&b, set, 2, 1);
	schedule_make(&c, set, 2, 2);
	schedule_make(&d, set_exp, 2, 1);

	/* Gaps, the last one running to the horizon: mean horizon / n by
	 * construction, coefficient of variation 1 for exponentials (the
	 * estimate's standard error is about 0.001 here). */
	double sum = 0, sq = 0, above = 0, mean = (double)a.horizon / a.n;
	for (uint32_t i = 0; i < a.n; i++) {
		uint64_t next = i + 1 < a.n ? a.offset[i + 1] : a.horizon;
		double g = (double)(next - a.offset[i]);
		sum += g;
		sq += (g - mean) * (g - mean);
		above += g > mean;
	}
	ASSERT_NEAR(sum / a.n, mean, 1e-6 * mean);
	ASSERT_NEAR(sqrt(sq / a.n) / mean, 1.0, 0.01);
	/* P(gap > mean) = 1/e. */
	ASSERT_NEAR(above / a.n, exp(-1.0), 0.002);

	ASSERT_U64_EQ(a.horizon, b.horizon);
	ASSERT(memcmp(a.offset, b.offset, a.n * sizeof *a.offset) == 0);
	ASSERT(memcmp(a.service, b.service, a.n * sizeof *a.service) == 0);
	ASSERT(memcmp(a.offset, c.offset, a.n * sizeof *a.offset) != 0);

	/* Another distribution, the same seed: the same arrivals up to the
	 * scale (and rounding to ns). */
	for (uint32_t i = 0; i < a.n; i += 997)
		ASSERT_NEAR((double)a.offset[i] / a.horizon, (double)d.offset[i] / d.horizon,
			    2.0 / (double)a.horizon + 2.0 / (double)d.horizon);
	schedule_free(&a);
	schedule_free(&b);
	schedule_free(&c);
	schedule_free(&d);
}

enum { DRAWS = 1000000 };

static void service_of(struct schedule *s, const char *dist, const char *sigma)
{
	const char *set[] = { "requests=1000000", "service_us=100", dist, sigma, NULL };
	schedule_make(s, set, 1, 3);
	ASSERT_EQ(s->n, DRAWS);
}

static void service_means(void)
{
	const double S = 100000;	/* ns */
	struct schedule s;

	service_of(&s, "dist=0", NULL);
	for (uint32_t i = 0; i < s.n; i++)
		ASSERT_U64_EQ(s.service[i], 100000);
	schedule_free(&s);

	/* Exponential: mean S, standard deviation S, P(> S) = 1/e. */
	service_of(&s, "dist=1", NULL);
	double sum = 0, sq = 0, above = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		sum += (double)s.service[i];
		sq += ((double)s.service[i] - S) * ((double)s.service[i] - S);
		above += (double)s.service[i] > S;
	}
	ASSERT_NEAR(sum / s.n, S, 0.01 * S);
	ASSERT_NEAR(sqrt(sq / s.n), S, 0.02 * S);
	ASSERT_NEAR(above / s.n, exp(-1.0), 0.002);
	fprintf(stderr, "    exponential: mean %.4f S\n", sum / s.n / S);
	schedule_free(&s);

	/* Bimodal: only the two values, the long fraction p (exactly p n when
	 * p n is whole), spread over the whole schedule. */
	static const struct {
		const char *dist;
		double p, lo, hi;
	} bi[] = { { "dist=2", 0.1, 0.5, 5.5 }, { "dist=3", 0.001, 0.5, 500.5 } };
	for (size_t b = 0; b < 2; b++) {
		service_of(&s, bi[b].dist, NULL);
		uint64_t lo = (uint64_t)(bi[b].lo * S), hi = (uint64_t)(bi[b].hi * S);
		uint64_t longs = 0, first_half = 0;
		sum = 0;
		for (uint32_t i = 0; i < s.n; i++) {
			ASSERT(s.service[i] == lo || s.service[i] == hi);
			longs += s.service[i] == hi;
			first_half += i < s.n / 2 && s.service[i] == hi;
			sum += (double)s.service[i];
		}
		ASSERT_U64_EQ(longs, (uint64_t)llround(bi[b].p * DRAWS));
		ASSERT_NEAR((double)longs / s.n, bi[b].p, 0.002);
		ASSERT_NEAR((double)first_half / (s.n / 2), bi[b].p, 0.002);
		ASSERT_NEAR(sum / s.n, S, 0.01 * S);
		fprintf(stderr, "    %s: long fraction %.4f, mean %.4f S\n",
			b ? "bimodal-2" : "bimodal-1", (double)longs / s.n, sum / s.n / S);
		schedule_free(&s);
	}

	/* Lognormal: mean S, ln(service) normal with mean ln S - sigma^2/2
	 * and standard deviation sigma. */
	static const char *const sigmas[] = { "sigma=1", "sigma=0.5" };
	static const double sv[] = { 1.0, 0.5 };
	for (size_t k = 0; k < 2; k++) {
		service_of(&s, "dist=4", sigmas[k]);
		double lsum = 0, lsq = 0, mu = log(S) - sv[k] * sv[k] / 2;
		sum = 0;
		for (uint32_t i = 0; i < s.n; i++) {
			ASSERT(s.service[i] > 0);
			double l = log((double)s.service[i]);
			sum += (double)s.service[i];
			lsum += l;
			lsq += (l - mu) * (l - mu);
		}
		ASSERT_NEAR(sum / s.n, S, 0.01 * S);
		ASSERT_NEAR(lsum / s.n, mu, 0.01);
		ASSERT_NEAR(sqrt(lsq / s.n), sv[k], 0.01 * sv[k]);
		fprintf(stderr, "    lognormal sigma %.1f: mean %.4f S\n", sv[k], sum / s.n / S);
		schedule_free(&s);
	}
}

static void check_refuses(void)
{
	double p[64];
	char err[256] = "";
	static const char *const few[] = { "dist=3", "requests=999", NULL };
	static const char *const enough[] = { "dist=3", "requests=1000", NULL };
	apply_settings(wl()->params, wl()->nparams, p, few);
	ASSERT(wl()->check(p, err, sizeof err) != 0);
	ASSERT(strstr(err, "bimodal-2"));
	apply_settings(wl()->params, wl()->nparams, p, enough);
	ASSERT_EQ(wl()->check(p, err, sizeof err), 0);
}

/*
 * The default sizes (docs/open-loop.md): the schedule grows with the load as
 * the relaxation time of an M/M/1 queue, S / (1 - sqrt(rho))^2, and with the
 * workers; never below 10,000 requests; the warm-up is a fixed number of
 * relaxation times, so its share grows with the load up to a bound. Explicit
 * settings are kept as given.
 */
static void default_sizes(void)
{
	double p[64];
	int load = knob_find(wl()->params, wl()->nparams, "load");
	ASSERT(load >= 0);
	apply_settings(wl()->params, wl()->nparams, p, NULL);
	uint32_t last = 0;
	double last_share = 0;
	static const double loads[] = { 0.1, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97 };
	for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
		p[load] = loads[i];
		uint32_t n = open_loop__requests(p, 16), warm = open_loop__warmup(p, 16, n);
		double share = (double)warm / n;
		fprintf(stderr, "    16 workers, load %.2f: %u requests, %u warm-up (%.1f%%)\n",
			loads[i], n, warm, 100 * share);
		ASSERT(n >= 10000);
		ASSERT(n >= last);
		ASSERT(share >= last_share - 1e-4 && share <= 0.5);
		if (loads[i] >= 0.9) {
			ASSERT(n > 2 * last);	/* 1 / (1 - sqrt(rho))^2 steepens */
			/* Above the floor and below the cap (4,000,000):
			 * proportional to the workers. */
			uint32_t n32 = open_loop__requests(p, 32);
			if (loads[i] <= 0.95)
				ASSERT(n32 >= 2 * n - 1 && n32 <= 2 * n + 1);
			else
				ASSERT_U64_EQ(n32, 4000000);
			ASSERT(share > 0.05);
		}
		last = n;
		last_share = share;
	}
	/* No steady state at or beyond saturation: sized as the cap load. */
	p[load] = 1.5;
	ASSERT_U64_EQ(open_loop__requests(p, 16), last);
	/* Explicit settings win. */
	static const char *const set[] = { "load=0.95", "requests=5000", "warmup=0.2", NULL };
	apply_settings(wl()->params, wl()->nparams, p, set);
	ASSERT_U64_EQ(open_loop__requests(p, 16), 5000);
	ASSERT_U64_EQ(open_loop__warmup(p, 16, 5000), 1000);
	/* An explicit size with the default warm-up keeps half of it. */
	static const char *const size_only[] = { "load=0.95", "requests=5000", NULL };
	apply_settings(wl()->params, wl()->nparams, p, size_only);
	ASSERT_U64_EQ(open_loop__warmup(p, 16, 5000), 2500);
}

/* ---- runs ------------------------------------------------------------- */

struct ol_run {
	struct run_result r;
	uint64_t remote;
	uint64_t *lat;
	size_t nlat;
	struct wl_metric m[WL_MAX_METRICS];
	size_t nm;
};

static void grab(struct runtime *rt, void *arg)
{
	struct ol_run *o = arg;
	const uint64_t *lat;
	o->remote = atomic_load(&rt->remote_spawns);
	o->nlat = wl()->latencies(rt->user, &lat);
	o->lat = malloc((o->nlat ? o->nlat : 1) * sizeof *o->lat);
	ASSERT(o->lat);
	memcpy(o->lat, lat, o->nlat * sizeof *lat);
	/* The names are string literals of the workload: they outlive it. */
	o->nm = wl()->metrics(rt->user, o->m, WL_MAX_METRICS);
}

static double metric(const struct ol_run *o, const char *name)
{
	for (size_t i = 0; i < o->nm; i++)
		if (strcmp(o->m[i].name, name) == 0)
			return o->m[i].value;
	TEST_FAIL("open-loop reports no metric %s", name);
}

static void run_ol(const char *const *params, uint32_t workers, uint64_t seed,
		   struct ol_run *o, struct schedule *s)
{
	memset(o, 0, sizeof *o);
	run_workload_inspect("volt", "open-loop", workers, NULL, params, seed, &o->r, grab, o);
	if (o->r.verify_rc != 0)
		TEST_FAIL("%u workers: %s", workers, o->r.err);
	/* The schedule the run used: the generator is deterministic. */
	schedule_make(s, params, workers, seed);
	/* Every request injected once from the I/O source, none spawned
	 * inside, and each completed once (verify checked each one's count). */
	ASSERT_U64_EQ(o->remote, s->n);
	ASSERT_U64_EQ(o->r.total.spawns, 0);
	ASSERT_U64_EQ(o->r.total.completions, s->n);
	ASSERT_U64_EQ(o->r.tasks, s->n);
	/* One latency per recorded request: all but the warm-up. */
	ASSERT_U64_EQ(metric(o, "requests"), s->n);
	ASSERT(metric(o, "warmup_requests") < s->n);
	ASSERT_U64_EQ(o->nlat, s->n - (uint32_t)metric(o, "warmup_requests"));

	/* Percentiles are ordered; adherence figures are well formed. */
	ASSERT(metric(o, "latency_p50_ns") > 0);
	ASSERT(metric(o, "latency_p50_ns") <= metric(o, "latency_p99_ns"));
	ASSERT(metric(o, "latency_p99_ns") <= metric(o, "latency_p999_ns"));
	ASSERT(metric(o, "late_p99_ns") <= metric(o, "late_max_ns"));
	double on_time = metric(o, "on_time_10us");
	ASSERT(on_time >= 0 && on_time <= 1);
}

static void print_run(const struct ol_run *o, uint32_t workers)
{
	fprintf(stderr, "    %u workers: offered %.3f achieved %.4f, latency p50 %.1f p99 %.1f "
		"p99.9 %.1f us, late p99 %.1f max %.1f us, on time %.1f%%\n", workers,
		metric(o, "offered_load"), metric(o, "achieved_load"),
		metric(o, "latency_p50_ns") / 1e3, metric(o, "latency_p99_ns") / 1e3,
		metric(o, "latency_p999_ns") / 1e3, metric(o, "late_p99_ns") / 1e3,
		metric(o, "late_max_ns") / 1e3, 100 * metric(o, "on_time_10us"));
}

/*
 * volt, 2 workers, load 0.5, 3000 requests of exponential service (100 us
 * mean): the runtime keeps up, so the achieved load is the offered one
 * within 2% (the span exceeds the horizon only by the last request's
 * sojourn, about 0.1% of it). That bound is asserted on the simulation
 * engine, where it is a property of the model; on the threads engine it is
 * a timing (a descheduled worker stretches the span), which a pass/fail
 * test must not assert: there the run must only complete every request.
 *
 * A single latency is not checked against its own service time: the threads
 * engine repays time the OS took from one spin out of the worker's later
 * spins (core/engine_threads.c), so after a preemption a request may spin
 * less than its service. The sum cannot be shortened: the spins of all
 * requests add up to their declared service plus whatever debt is left
 * unpaid, and each spin lies between its request's intended arrival and its
 * completion.
 */
static void run_volt_half_load(void)
{
	static const char *const params[] = { "requests=3000", "load=0.5", "warmup=0", NULL };
	struct ol_run o;
	struct schedule s;
	run_util_use_sim = true;
	run_ol(params, 2, 21, &o, &s);
	run_util_use_sim = false;
	ASSERT_NEAR(metric(&o, "offered_load"), 0.5, 1e-12);
	ASSERT_NEAR(metric(&o, "achieved_load"), 0.5, 0.02 * 0.5);
	print_run(&o, 2);
	free(o.lat);
	schedule_free(&s);

	run_ol(params, 2, 21, &o, &s);
	ASSERT_NEAR(metric(&o, "offered_load"), 0.5, 1e-12);
	ASSERT(metric(&o, "achieved_load") > 0);
	/* No I/O: nothing wakes a request, so each is polled once. */
	ASSERT_U64_EQ(o.r.total.polls, s.n);
	ASSERT_U64_EQ(o.r.total.repolls, 0);
	double lat = 0;
	uint64_t short_ones = 0;
	for (uint32_t i = 0; i < s.n; i++) {
		lat += (double)o.lat[i];
		short_ones += o.lat[i] < s.service[i];
	}
	ASSERT(lat >= (double)s.total);
	print_run(&o, 2);
	fprintf(stderr, "    %llu of %u latencies below their own service (compute debt)\n",
		(unsigned long long)short_ones, s.n);
	free(o.lat);
	schedule_free(&s);
}

/* With I/O: every request sleeps io_us on a timer between its two halves,
 * so each latency is at least io_us (a timer never fires early, whatever
 * the machine does), and the sum at least the service plus n x io_us. */
static void run_volt_with_io(void)
{
	static const char *const params[] = { "requests=600", "io_us=200", "warmup=0", NULL };
	static const uint32_t counts[] = { 1, 2, 4 };
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
		struct ol_run o;
		struct schedule s;
		run_ol(params, counts[k], 30 + k, &o, &s);
		/* Two polls each: the first half and the sleep, then the rest.
		 * A timer that fires during the first poll turns the second
		 * into a repoll, never into a third poll. */
		ASSERT_U64_EQ(o.r.total.polls, 2 * (uint64_t)s.n);
		ASSERT(o.r.total.repolls <= s.n);
		double lat = 0;
		for (uint32_t i = 0; i < s.n; i++) {
			ASSERT(o.lat[i] >= 200000);
			lat += (double)o.lat[i];
		}
		ASSERT(lat >= (double)s.total + 200000.0 * s.n);
		print_run(&o, counts[k]);
		free(o.lat);
		schedule_free(&s);
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/*
 * The warm-up is run but not recorded: on the sim engine (deterministic)
 * a run with a warm-up is the very run without one, and its latencies are
 * that run's last n - warm.
 */
static void warmup_is_not_recorded(void)
{
	static const char *const all[] = { "requests=2000", "load=0.9", "warmup=0", NULL };
	static const char *const some[] = { "requests=2000", "load=0.9", "warmup=0.25", NULL };
	struct ol_run a, b;
	struct schedule s;
	run_util_use_sim = true;
	run_ol(all, 4, 7, &a, &s);
	schedule_free(&s);
	run_ol(some, 4, 7, &b, &s);
	run_util_use_sim = false;
	ASSERT_EQ(metric(&a, "warmup_requests"), 0);
	ASSERT_EQ(metric(&b, "warmup_requests"), 500);
	ASSERT_U64_EQ(a.nlat, 2000);
	ASSERT_U64_EQ(b.nlat, 1500);
	ASSERT_U64_EQ(a.r.makespan_ns, b.r.makespan_ns);
	ASSERT(memcmp(a.lat + 500, b.lat, 1500 * sizeof *b.lat) == 0);
	/* The percentiles are the recorded requests' (nearest rank). */
	uint64_t *v = malloc(1500 * sizeof *v);
	ASSERT(v);
	memcpy(v, b.lat, 1500 * sizeof *v);
	qsort(v, 1500, sizeof *v, cmp_u64);
	ASSERT_EQ(metric(&b, "latency_p99_ns"), (double)v[1485 - 1]);
	ASSERT_EQ(metric(&b, "latency_p50_ns"), (double)v[750 - 1]);
	free(v);
	free(a.lat);
	free(b.lat);
	schedule_free(&s);
}

/*
 * No coordinated omission: latency runs from the intended arrival, so a
 * request delivered late is charged for it. On the sim engine with every
 * I/O event delivered 50 us late (cost.io_delay), each recorded request's
 * latency is at least its delivery delay (up to 50 us) plus its own
 * service (the sim computes exactly what a request declares), at a load
 * where queues form. Latency measured from delivery or from the first poll
 * breaks the bound for every request that did not wait.
 */
struct late_run {
	uint32_t n;
	uint64_t *lat, *late;
};

static void grab_late(struct runtime *rt, const struct workload *w, void *arg)
{
	struct late_run *lr = arg;
	const uint64_t *lat, *late;
	size_t n = w->latencies(rt->user, &lat);
	ASSERT_EQ(open_loop__late(rt->user, &late), n);
	lr->n = (uint32_t)n;
	lr->lat = malloc(n * sizeof *lr->lat);
	lr->late = malloc(n * sizeof *lr->late);
	ASSERT(lr->lat && lr->late);
	memcpy(lr->lat, lat, n * sizeof *lat);
	memcpy(lr->late, late, n * sizeof *late);
}

static void latency_counts_late_delivery(void)
{
	static const char *const params[] = { "requests=2000", "load=0.8", "warmup=0.1", NULL };
	const uint64_t delay = 50000;
	struct sim_costs c;
	sim_costs_default(&c);
	c.io_delay = delay;
	struct late_run lr = { 0 };
	struct sim_out o;
	sim_run_costs("volt", NULL, "open-loop", params, 4, 0, &c, &o, grab_late, &lr);
	ASSERT_EQ(o.rc, 0);
	struct schedule s;
	schedule_make(&s, params, 4, 1);	/* sim_run_costs seeds with 1 */
	uint32_t warm = s.n - lr.n, queued = 0, late = 0;
	ASSERT(lr.n > 0 && warm < s.n);
	for (uint32_t i = 0; i < lr.n; i++) {
		uint64_t service = s.service[warm + i];
		/* A delivery hands over everything due by then, so requests
		 * due inside the delay window are less late; none more. */
		ASSERT(lr.late[i] <= delay);
		late += lr.late[i] == delay;
		if (lr.lat[i] < lr.late[i] + service)
			TEST_FAIL("request %u: latency %llu ns < delivery delay %llu + service "
				  "%llu: latency is not measured from the intended arrival",
				  warm + i, (unsigned long long)lr.lat[i],
				  (unsigned long long)lr.late[i], (unsigned long long)service);
		queued += lr.lat[i] > lr.late[i] + service;
	}
	fprintf(stderr, "    %u requests, %u delivered 50 us late, %u queued after delivery\n",
		lr.n, late, queued);
	ASSERT(late > 0);
	ASSERT(queued > 0);	/* the load is high enough for queues to form */
	free(lr.lat);
	free(lr.late);
	schedule_free(&s);
}

/* The baseline: the same requests back to back, verified the same way; it
 * makes no latencies. */
static void sequential_baseline(void)
{
	double p[64];
	static const char *const set[] = { "requests=300", "service_us=5", "io_us=50", NULL };
	apply_settings(wl()->params, wl()->nparams, p, set);
	void *inst = wl()->create(p, 2, 4);
	ASSERT(inst);
	char err[256] = "";
	wl()->run_sequential(inst);
	if (wl()->verify(inst, err, sizeof err) != 0)
		TEST_FAIL("%s", err);
	ASSERT_U64_EQ(wl()->tasks(inst), 300);
	const uint64_t *lat;
	ASSERT_EQ(wl()->latencies(inst, &lat), 0);
	wl()->destroy(inst);
}

int main(void)
{
	RUN(realized_load_is_offered);
	RUN(arrivals_are_poisson);
	RUN(service_means);
	RUN(check_refuses);
	RUN(default_sizes);
	RUN(sequential_baseline);
	RUN(run_volt_half_load);
	RUN(run_volt_with_io);
	RUN(warmup_is_not_recorded);
	RUN(latency_counts_late_delivery);
	return 0;
}
