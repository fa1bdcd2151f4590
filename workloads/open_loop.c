/*
 * open_loop.c - open-loop request streams: Poisson arrivals at a target
 * load, a service-time distribution, optional simulated I/O, and latency
 * measured from each request's intended arrival (docs/sources.md, "Queueing theory").
 *
 * The schedule. create() draws, from the seed and untimed, every request's
 * intended arrival offset and service time. Arrivals form a Poisson process:
 * exponential gaps, scaled so that the schedule's realized load is exactly
 * the offered one (see ol_schedule). Service times follow ZygOS's
 * distributions around a mean S: constant, exponential, bimodal-1 (90% 0.5S,
 * 10% 5.5S), bimodal-2 (99.9% 0.5S, 0.1% 500.5S), or lognormal with mean S.
 * Arrivals and service come from separate random streams, so that a
 * different distribution at the same seed keeps the same arrival pattern.
 *
 * Delivery. Arrivals come through the runtime's I/O source (io_poll,
 * io_next in core/runtime.h), the way packets come through a NIC: under the
 * core's default maintenance every worker polls the source at every tick
 * and worker 0 parks no longer than the next event (core/worker.c), so the
 * workers deliver their own load and no generator thread competes with them
 * for the cores. A poll hands every request whose intended time has passed
 * to rt_spawn_remote, so the policy routes it as it routes any outside
 * event (central-queue queues it centrally, static-partition deals it to a
 * worker, volt puts it on the global queue and notifies).
 *
 * A request computes its service with rt_compute; with io_us > 0 it computes
 * the first half, sleeps on a timer for io_us (rt_sleep_until) and computes
 * the second half. Its end-to-end latency is completion minus intended
 * arrival, never minus delivery or first poll: a request the runtime was too
 * busy to pick up on time is charged for the wait (no coordinated omission,
 * as in Caladan's load generator). Each request writes its own latency slot;
 * `latencies` hands the array to the driver, which builds the histogram. The
 * last request to complete ends the run.
 *
 * Steady state. The first requests of the schedule, the warm-up, are run
 * but not recorded: they find the empty system every trial starts from.
 * The warm-up and the schedule's size default to counts that grow with the
 * load (below, and docs/open-loop.md), so that tail latencies at high load
 * come out as queueing theory has them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads/workload.h"

enum { P_LOAD, P_SERVICE_US, P_DIST, P_SIGMA, P_REQUESTS, P_IO_US, P_WARMUP, P_COUNT };

enum { DIST_CONSTANT, DIST_EXP, DIST_BIMODAL1, DIST_BIMODAL2, DIST_LOGNORMAL };

static const struct knob_def ol_params[P_COUNT] = {
	[P_LOAD] = { "load", 0.5, 0.001, 4, false,
		     "offered load: arrival rate x mean service / workers (1 = saturation)" },
	[P_SERVICE_US] = { "service_us", 100, 0.001, 1e6, false,
			   "mean service time S in us (compute per request)" },
	[P_DIST] = { "dist", 1, 0, 4, true,
		     "service distribution: 0 constant S, 1 exponential, 2 bimodal-1 (90% 0.5S, "
		     "10% 5.5S), 3 bimodal-2 (99.9% 0.5S, 0.1% 500.5S), 4 lognormal (sigma)" },
	[P_SIGMA] = { "sigma", 1, 0, 2, false,
		      "dist=4: standard deviation of ln(service); the mean stays S" },
	[P_REQUESTS] = { "requests", 0, 0, 1e7, true,
			 "requests in the schedule (about 100 bytes each); 0 = from the load and "
			 "workers (docs/open-loop.md)" },
	[P_IO_US] = { "io_us", 0, 0, 1e6, false,
		      "simulated I/O per request: compute S/2, sleep io_us on a timer, compute "
		      "the rest (0 = none)" },
	[P_WARMUP] = { "warmup", -1, -1, 0.9, false,
		       "share of the requests, the first ones, run but not recorded; -1 = from "
		       "the load and workers (docs/open-loop.md)" },
};

static const struct knob_enum ol_names[] = {
	{ "dist", (const struct knob_name[]){ { "constant", DIST_CONSTANT },
					       { "exponential", DIST_EXP },
					       { "bimodal-1", DIST_BIMODAL1 },
					       { "bimodal-2", DIST_BIMODAL2 },
					       { "lognormal", DIST_LOGNORMAL },
					       { NULL, 0 } } },
	{ NULL, NULL },
};

/* A request delivered this late or less counts as on time. */
#define OL_ON_TIME_NS 10000u
/* Requests one poll claims with one CAS when many are due at once (a
 * backlog after a long compute): concurrent pollers share a backlog in
 * chunks instead of one of them spawning it all. */
#define OL_CLAIM_MAX 32u

/* Random streams of the schedule, distinct for arrivals and service. */
#define OL_STREAM_GAPS 0x6f6c2d67617073ull
#define OL_STREAM_SERVICE 0x6f6c2d73657276ull

struct open_loop;

/* One request: a task of its own, on a cache line of its own (the task
 * state word is CAS'd by whichever worker polls or wakes it). */
struct ol_req {
	CACHE_ALIGNED struct task task;	/* first */
	struct open_loop *ol;
	uint32_t index;
	uint32_t phase;			/* 0: first poll; 1: back from the I/O timer */
};

_Static_assert(sizeof(struct ol_req) == CACHE_LINE, "a request fills one line");

/* Per worker, owner-written while the run goes on. */
struct ol_worker {
	CACHE_ALIGNED uint64_t exec_ns;	/* service computed by requests it polled */
	uint64_t completed;
};

struct open_loop {
	/* Read by every worker's I/O poll at every tick; written before the
	 * workers start, except start_ns and started (once, by start). */
	CACHE_ALIGNED uint32_t n;
	uint32_t workers;
	uint32_t warm;			/* requests [0, warm) run but are not recorded */
	uint64_t *offset;		/* [n] intended arrival - start_ns: sorted, [0] = 0 */
	uint64_t start_ns;		/* written by start before `started` */
	_Atomic bool started;

	double load;
	uint64_t io_ns;
	uint64_t *service;		/* [n] ns */
	uint64_t horizon_ns;		/* the schedule covers [0, horizon) */
	uint64_t total_service_ns;	/* sum of service[] */

	struct ol_req *req;		/* [n] */
	uint64_t *latency;		/* [n] completion - intended arrival */
	uint64_t *late;			/* [n] delivery - intended arrival */
	uint8_t *done;			/* [n] completions of each request */
	struct ol_worker *per;		/* [workers] */
	bool parallel_ran, seq_ran;
	uint64_t seq_exec_ns;

	/* The next request to deliver: read by every poll, CAS'd by claims. */
	CACHE_ALIGNED _Atomic uint32_t next;
	/* Requests not yet completed: the one that takes it to 0 finishes. */
	CACHE_ALIGNED _Atomic uint32_t remaining;
};

/* ---- the schedule --------------------------------------------------- */

/* splitmix64 as a counter-based stream: high quality, reproducible. */
struct ol_rng {
	uint64_t x;
};

static inline void ol_rng_seed(struct ol_rng *r, uint64_t seed, uint64_t stream)
{
	r->x = rng_mix64(seed ^ rng_mix64(stream));
}

static inline uint64_t ol_rng_next(struct ol_rng *r)
{
	r->x += 0x9E3779B97F4A7C15ull;
	return rng_mix64(r->x);
}

/* Uniform in [0, 1). */
static inline double ol_unit(struct ol_rng *r)
{
	return (double)(ol_rng_next(r) >> 11) * 0x1p-53;
}

/* Standard exponential; 1 - u is in (0, 1], so the log is finite. */
static inline double ol_exp(struct ol_rng *r)
{
	return -log1p(-ol_unit(r));
}

/* Standard normal (Box-Muller, one of the pair). */
static inline double ol_normal(struct ol_rng *r)
{
	double u1 = 1.0 - ol_unit(r), u2 = ol_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static inline uint64_t ns_of(double v)
{
	return v <= 0 ? 0 : (uint64_t)llround(v);
}

/*
 * Bimodal service: exactly m of the n requests get the long value, m being
 * p n rounded at random (floor(p n + u): unbiased), at positions chosen by
 * selection sampling (Knuth's Algorithm S: every m-subset equally likely).
 * Independent draws would leave the realized mix to chance, and for
 * bimodal-2 that chance is large: the long requests carry half the mean, so
 * their count's Poisson noise moves the mean by 1.6% over 10^6 requests and
 * by 16% over the default 10^4. With the count fixed the mean is S, as the
 * arrival scaling below makes the load exactly the offered one.
 */
static void draw_bimodal(struct ol_rng *r, uint64_t *service, uint32_t n, double p,
			 double s_short, double s_long)
{
	uint64_t m = (uint64_t)floor(p * n + ol_unit(r));
	uint64_t lo = ns_of(s_short), hi = ns_of(s_long);
	for (uint32_t i = 0; i < n; i++) {
		if (ol_unit(r) * (double)(n - i) < (double)m) {
			service[i] = hi;
			m--;
		} else {
			service[i] = lo;
		}
	}
}

/*
 * Steady state (docs/open-loop.md). Every trial starts from an empty system,
 * and near saturation a queue takes long to forget that and long to average
 * out. Static partition is k M/M/1 queues side by side, the slowest case of
 * any policy (a shared queue relaxes and averages k times faster), so the
 * default sizes follow one M/M/1 queue at load rho, mean service S:
 *
 *  - it relaxes towards its stationary distribution with the time constant
 *    S / (1 - sqrt(rho))^2 (Morse 1955; Abate and Whitt 1987), 1560 S at
 *    0.95: the first OL_WARM_RELAX such times are run but not recorded, the
 *    warm-up, rho / (1 - sqrt(rho))^2 requests per worker each;
 *  - the mean number in system, averaged over a time T, has the relative
 *    variance 2 (1 + rho) / (rho (1 - rho)^2) S / T for long T (Whitt 1989):
 *    OL_MEASURE_VAR x 2 (1 + rho) / (1 - rho)^2 recorded requests per
 *    worker hold it to 1 / OL_MEASURE_VAR, a relative standard error of
 *    16% per queue and 4% over 16 queues, which is what keeps the p99 at
 *    0.95 within 5% of theory (docs/open-loop.md has the measurements).
 *
 * With at least OL_REQUESTS_MIN requests in all and at most OL_REQUESTS_CAP.
 * Loads of 1 and beyond have no steady state; they are sized as OL_RHO_CAP.
 */
#define OL_WARM_RELAX 4.0
#define OL_MEASURE_VAR 40.0
#define OL_REQUESTS_MIN 10000.0
#define OL_REQUESTS_CAP 4000000.0
#define OL_RHO_CAP 0.97

/* Warm-up requests: k workers' arrivals over OL_WARM_RELAX relaxation times. */
static double warm_requests(double rho, uint32_t workers)
{
	rho = fmin(rho, OL_RHO_CAP);
	double d = 1 - sqrt(rho);
	return OL_WARM_RELAX * (double)workers * rho / (d * d);
}

/* Recorded requests by default (see above). */
static double measure_requests(double rho, uint32_t workers)
{
	rho = fmin(rho, OL_RHO_CAP);
	return OL_MEASURE_VAR * (double)workers * 2 * (1 + rho) / ((1 - rho) * (1 - rho));
}

/* The schedule's size: the `requests` parameter, or the default above.
 * Exposed (internal) for tests/test_wl_open_loop.c. */
uint32_t open_loop__requests(const double *p, uint32_t workers);

uint32_t open_loop__requests(const double *p, uint32_t workers)
{
	if (p[P_REQUESTS] >= 1)
		return (uint32_t)p[P_REQUESTS];
	double n = warm_requests(p[P_LOAD], workers) + measure_requests(p[P_LOAD], workers);
	return (uint32_t)ceil(fmin(fmax(n, OL_REQUESTS_MIN), OL_REQUESTS_CAP));
}

/* The warm-up: the first requests, run but not recorded. The `warmup` share
 * of n, or else OL_WARM_RELAX relaxation times' worth, at most half of n (a
 * short explicit schedule keeps half of its requests). */
uint32_t open_loop__warmup(const double *p, uint32_t workers, uint32_t n);

uint32_t open_loop__warmup(const double *p, uint32_t workers, uint32_t n)
{
	double w = p[P_WARMUP] >= 0 ? p[P_WARMUP] * n
				    : fmin(warm_requests(p[P_LOAD], workers), 0.5 * n);
	return w >= n ? n - 1 : (uint32_t)w;
}

/*
 * Build the schedule: service[i] and offset[i] (ns after the start) for the
 * n = open_loop__requests() requests; returns the horizon T in ns. Exposed (two
 * underscores: internal) for tests/test_wl_open_loop.c.
 *
 * Arrival i is intended at offset[i] = (e_0 + ... + e_{i-1}) x T / E, with
 * e_j standard exponential draws and E their sum over all n gaps: the
 * schedule is a Poisson process observed over [0, T), each request followed
 * by its gap (the n-th gap stands for the time after the last arrival).
 * T is sum(service) / (workers x load), so the realized load
 * sum(service) / (workers x T) is the offered load exactly, up to rounding
 * T to integer ns (relative 0.5 / T). Unscaled, the realized load of a
 * finite Poisson schedule misses the offered one by about 1/sqrt(n) (1% at
 * 10^4 requests), which would blur every load sweep and the check that
 * achieved equals offered load.
 */
uint64_t open_loop__schedule(const double *p, uint32_t workers, uint64_t seed,
			     uint64_t *offset, uint64_t *service);

uint64_t open_loop__schedule(const double *p, uint32_t workers, uint64_t seed,
			     uint64_t *offset, uint64_t *service)
{
	uint32_t n = open_loop__requests(p, workers);
	double s = p[P_SERVICE_US] * 1000.0, sigma = p[P_SIGMA];
	struct ol_rng r;

	ol_rng_seed(&r, seed, OL_STREAM_SERVICE);
	switch ((int)p[P_DIST]) {
	case DIST_CONSTANT:
		for (uint32_t i = 0; i < n; i++)
			service[i] = ns_of(s);
		break;
	case DIST_EXP:
		for (uint32_t i = 0; i < n; i++)
			service[i] = ns_of(s * ol_exp(&r));
		break;
	case DIST_BIMODAL1:
		draw_bimodal(&r, service, n, 0.1, 0.5 * s, 5.5 * s);
		break;
	case DIST_BIMODAL2:
		draw_bimodal(&r, service, n, 0.001, 0.5 * s, 500.5 * s);
		break;
	case DIST_LOGNORMAL:
		/* ln(service) ~ N(ln S - sigma^2 / 2, sigma^2): mean S. */
		for (uint32_t i = 0; i < n; i++)
			service[i] = ns_of(s * exp(sigma * ol_normal(&r) - 0.5 * sigma * sigma));
		break;
	default:
		CHECK_MSG(0, "open-loop: no service distribution %g", p[P_DIST]);
	}
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += service[i];
	double t = (double)total / ((double)workers * p[P_LOAD]);
	uint64_t horizon = t < 1 ? 1 : ns_of(t);

	/* Two passes over one stream: E first, then the offsets, summed in
	 * the same order so that the last partial sum stays below E. */
	double sum = 0;
	ol_rng_seed(&r, seed, OL_STREAM_GAPS);
	for (uint32_t i = 0; i < n; i++)
		sum += ol_exp(&r);
	double scale = sum > 0 ? (double)horizon / sum : 0;
	double cum = 0;
	ol_rng_seed(&r, seed, OL_STREAM_GAPS);
	for (uint32_t i = 0; i < n; i++) {
		offset[i] = ns_of(cum * scale);	/* rounding keeps the order */
		cum += ol_exp(&r);
	}
	return horizon;
}

/* ---- requests --------------------------------------------------------- */

static void complete(struct open_loop *o, struct worker *w, uint32_t i)
{
	struct runtime *rt = w->rt;
	uint64_t now = rt_now(rt, w), due = o->start_ns + o->offset[i];

	/* Each slot has one writer, the request's own poll; the harness reads
	 * them after the engine has joined the workers. */
	o->latency[i] = now > due ? now - due : 0;
	o->done[i]++;
	o->per[w->index].completed++;
	/* Relaxed: the count only elects the last completer; nothing is read
	 * through it (the results reach the harness through the join). */
	if (atomic_fetch_sub_explicit(&o->remaining, 1, memory_order_relaxed) == 1)
		rt_finish(rt, w);
}

static enum task_poll req_poll(struct task *t, struct worker *w)
{
	struct ol_req *r = (struct ol_req *)t;
	struct open_loop *o = r->ol;
	struct runtime *rt = w->rt;
	uint64_t s = o->service[r->index];

	if (o->io_ns) {
		if (r->phase == 0) {
			rt_compute(w, s / 2);
			o->per[w->index].exec_ns += s / 2;
			r->phase = 1;
			/* A new earliest deadline wakes the timekeeper, which
			 * may be parked with a later timeout or none at all
			 * (rt_sleep_until). */
			rt_sleep_on(w, t, rt_now(rt, w) + o->io_ns);
			return TASK_PENDING;
		}
		s -= s / 2;
	}
	rt_compute(w, s);
	o->per[w->index].exec_ns += s;
	complete(o, w, r->index);
	return TASK_DONE;
}

/* Requests live in the instance's array: nothing to free. */
static const struct task_vtable req_vt = {
	.name = "open-loop request",
	.poll = req_poll,
};

/* ---- the arrival source ------------------------------------------------ */

/* Hand requests [from, to) to the runtime, delivered at `now`. */
static void inject(struct open_loop *o, struct runtime *rt, uint32_t from, uint32_t to,
		   uint64_t now)
{
	for (uint32_t i = from; i < to; i++) {
		struct ol_req *r = &o->req[i];
		uint64_t due = o->start_ns + o->offset[i];
		task_init(&r->task, &req_vt);
		r->phase = 0;
		/* The claimer owns the request: nobody else touches its slots
		 * until the run queue hands the task over (and orders them). */
		o->late[i] = now > due ? now - due : 0;
		rt_spawn_remote(rt, &r->task);
	}
}

/*
 * Deliver every request due by `now`, starting from the claimed-to-be-next
 * index i. Every worker polls concurrently, so requests are claimed before
 * they are injected: a CAS moves `next` from i over the due run [i, end),
 * and only its winner injects that run, so each request is delivered
 * exactly once. A loser re-reads `next` (the failed CAS loads it) and claims
 * what is still due past it. Relaxed: the counter only hands out indices;
 * what it indexes (offsets, service times) is immutable since create, and
 * each request's own slots reach its poll through the run queue, which
 * orders them.
 */
static __attribute__((noinline)) size_t deliver(struct open_loop *o, struct runtime *rt,
						 uint64_t now, uint32_t i)
{
	size_t total = 0;
	for (;;) {
		uint32_t end = i;
		while (end < o->n && end - i < OL_CLAIM_MAX && o->start_ns + o->offset[end] <= now)
			end++;
		if (end == i)
			return total;
		if (!atomic_compare_exchange_weak_explicit(&o->next, &i, end, memory_order_relaxed,
							   memory_order_relaxed))
			continue;
		inject(o, rt, i, end, now);
		total += end - i;
		i = end;
	}
}

/* rt->io_poll: the common case (nothing due) is three loads and a compare. */
static size_t ol_io_poll(struct runtime *rt, struct worker *w, uint64_t now, void *arg)
{
	struct open_loop *o = arg;
	(void)w;
	/* Acquire pairs with start's release: start_ns is set. */
	if (!atomic_load_explicit(&o->started, memory_order_acquire))
		return 0;
	uint32_t i = atomic_load_explicit(&o->next, memory_order_relaxed);
	if (i >= o->n || o->start_ns + o->offset[i] > now)
		return 0;
	return deliver(o, rt, now, i);
}

/* rt->io_next: the next intended arrival. `next` only grows and offsets
 * are sorted, so a stale read gives an earlier time: at worst an early
 * wake, never a late one. */
static uint64_t ol_io_next(struct runtime *rt, void *arg)
{
	struct open_loop *o = arg;
	(void)rt;
	if (!atomic_load_explicit(&o->started, memory_order_acquire))
		return TIMER_NONE;
	uint32_t i = atomic_load_explicit(&o->next, memory_order_relaxed);
	return i < o->n ? o->start_ns + o->offset[i] : TIMER_NONE;
}

/* ---- the workload ops ------------------------------------------------- */

static void ol_destroy(void *inst);

static int ol_check(const double *p, char *err, size_t len)
{
	if ((int)p[P_DIST] == DIST_BIMODAL2 && p[P_REQUESTS] >= 1 && p[P_REQUESTS] < 1000) {
		snprintf(err, len, "open-loop: bimodal-2 holds one long request per 1000; "
			 "use requests >= 1000 (got %g)", p[P_REQUESTS]);
		return -EINVAL;
	}
	return 0;
}

static void *ol_create(const double *p, uint32_t workers, uint64_t seed)
{
	uint32_t n = workers ? open_loop__requests(p, workers) : 0;
	if (workers == 0 || n == 0)
		return NULL;
	struct open_loop *o = aligned_alloc(CACHE_LINE, sizeof *o);
	if (!o)
		return NULL;
	memset(o, 0, sizeof *o);
	o->n = n;
	o->warm = open_loop__warmup(p, workers, n);
	o->workers = workers;
	o->load = p[P_LOAD];
	o->io_ns = ns_of(p[P_IO_US] * 1000.0);
	atomic_init(&o->started, false);
	atomic_init(&o->next, 0);
	atomic_init(&o->remaining, n);

	o->offset = malloc(n * sizeof *o->offset);
	o->service = malloc(n * sizeof *o->service);
	o->latency = calloc(n, sizeof *o->latency);
	o->late = calloc(n, sizeof *o->late);
	o->done = calloc(n, sizeof *o->done);
	o->req = aligned_alloc(CACHE_LINE, (size_t)n * sizeof *o->req);
	o->per = aligned_alloc(CACHE_LINE, workers * sizeof *o->per);
	if (!o->offset || !o->service || !o->latency || !o->late || !o->done || !o->req ||
	    !o->per) {
		ol_destroy(o);
		return NULL;
	}
	memset(o->per, 0, workers * sizeof *o->per);
	for (uint32_t i = 0; i < n; i++)
		o->req[i] = (struct ol_req){ .ol = o, .index = i };
	o->horizon_ns = open_loop__schedule(p, workers, seed, o->offset, o->service);
	for (uint32_t i = 0; i < n; i++)
		o->total_service_ns += o->service[i];
	return o;
}

/* Untimed, before any worker runs: install the arrival source (the hooks
 * must be in place before the workers read them) and reset the run state. */
static void ol_place(void *inst, struct runtime *rt)
{
	struct open_loop *o = inst;
	CHECK_MSG(rt->nworkers == o->workers, "open-loop: created for %u workers, run on %u",
		  o->workers, rt->nworkers);
	atomic_store_explicit(&o->started, false, memory_order_relaxed);
	atomic_store_explicit(&o->next, 0, memory_order_relaxed);
	atomic_store_explicit(&o->remaining, o->n, memory_order_relaxed);
	memset(o->done, 0, o->n);
	memset(o->latency, 0, o->n * sizeof *o->latency);
	memset(o->late, 0, o->n * sizeof *o->late);
	memset(o->per, 0, o->workers * sizeof *o->per);
	o->parallel_ran = true;
	rt->io_poll = ol_io_poll;
	rt->io_next = ol_io_next;
	rt->io_arg = o;
}

/*
 * Timed: fix the schedule's origin at the run's start, deliver what is due
 * at once (request 0), and wake the timekeeper. The timekeeper (worker 0
 * under the core's maintenance, the driver holder under tokio's) keeps the
 * arrivals going between the other workers' polls, parking no longer than
 * the next one; but it may have parked before the schedule existed, with no
 * event to bound its sleep. Request 0's own notify wakes whichever worker
 * the policy picks, which need not be the timekeeper.
 */
static void ol_start(void *inst, struct runtime *rt)
{
	struct open_loop *o = inst;
	CHECK_MSG(rt->io_poll == ol_io_poll && rt->io_arg == o,
		  "open-loop: start without place (the arrival source is installed there)");
	o->start_ns = rt->start_ns;
	/* Release: a worker that sees the flag (acquire) sees start_ns. */
	atomic_store_explicit(&o->started, true, memory_order_release);
	deliver(o, rt, rt_now(rt, NULL), atomic_load_explicit(&o->next, memory_order_relaxed));
	rt_wake_timekeeper(rt);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The baseline: the same requests back to back, each its whole service,
 * on the harness thread with no runtime (rt_compute needs one), reading the
 * same monotonic clock as the threads engine. Request i spins until the
 * start plus the service of requests 0..i, so time the OS takes from one
 * spin is repaid by the next ones, as the threads engine repays it: the
 * baseline lasts the sum of service whatever the machine does in between.
 * The I/O waits are left out: they are idle time, not work, and one thread
 * would only sleep through them.
 */
static void ol_run_sequential(void *inst)
{
	struct open_loop *o = inst;
	memset(o->done, 0, o->n);
	o->seq_exec_ns = 0;
	uint64_t end = mono_ns();
	for (uint32_t i = 0; i < o->n; i++) {
		end += o->service[i];
		while (mono_ns() < end)
			__builtin_ia32_pause();
		o->seq_exec_ns += o->service[i];
		o->done[i]++;
	}
	o->seq_ran = true;
}

static uint64_t exec_total(const struct open_loop *o)
{
	if (!o->parallel_ran)
		return o->seq_exec_ns;
	uint64_t total = 0;
	for (uint32_t i = 0; i < o->workers; i++)
		total += o->per[i].exec_ns;
	return total;
}

static uint64_t ol_tasks(void *inst)
{
	struct open_loop *o = inst;
	if (!o->parallel_ran)
		return o->seq_ran ? o->n : 0;
	uint64_t total = 0;
	for (uint32_t i = 0; i < o->workers; i++)
		total += o->per[i].completed;
	return total;
}

static int ol_verify(void *inst, char *err, size_t len)
{
	struct open_loop *o = inst;
	for (uint32_t i = 0; i < o->n; i++)
		if (o->done[i] != 1) {
			snprintf(err, len, "open-loop: request %u of %u completed %u times", i, o->n,
				 o->done[i]);
			return -1;
		}
	uint64_t tasks = ol_tasks(o);
	if (tasks != o->n) {
		snprintf(err, len, "open-loop: %llu requests completed, expected %u",
			 (unsigned long long)tasks, o->n);
		return -1;
	}
	uint64_t exec = exec_total(o);
	if (exec != o->total_service_ns) {
		snprintf(err, len, "open-loop: %llu ns of service computed, the schedule holds %llu",
			 (unsigned long long)exec, (unsigned long long)o->total_service_ns);
		return -1;
	}
	return 0;
}

static size_t ol_latencies(void *inst, const uint64_t **out)
{
	struct open_loop *o = inst;
	*out = o->latency + o->warm;
	return o->parallel_ran ? o->n - o->warm : 0;
}

/* For tests: the recorded requests' delivery delays (delivery minus
 * intended arrival), in the order of `latencies`. */
size_t open_loop__late(void *inst, const uint64_t **out);
size_t open_loop__late(void *inst, const uint64_t **out)
{
	struct open_loop *o = inst;
	*out = o->late + o->warm;
	return o->parallel_ran ? o->n - o->warm : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(p/100 x n)-th smallest of sorted v[0..n). */
static double rank_of(const uint64_t *v, uint32_t n, double p)
{
	double r = ceil(p / 100.0 * n);
	uint32_t k = r < 1 ? 0 : (uint32_t)r - 1;
	return (double)v[k < n ? k : n - 1];
}

/*
 * Figures of the last parallel run, most telling first (the driver keeps
 * WL_MAX_METRICS of them):
 *
 *   offered_load    the `load` parameter (the schedule realizes it exactly)
 *   achieved_load   service computed / (workers x span), the span running
 *                   from the first intended arrival (the run's start) to
 *                   the last completion: the load the runtime actually
 *                   carried over the time it took. It equals the offered
 *                   load when the runtime keeps up (the span is then the
 *                   horizon give or take the last gap and the last
 *                   request's sojourn) and falls below it when the runtime
 *                   falls behind and the span stretches
 *   latency_p*_ns   end-to-end latency percentiles (nearest rank) of the
 *                   recorded requests (the warm-up left out)
 *   late_p99_ns, late_max_ns, on_time_10us   schedule adherence of the
 *                   recorded requests: delivery minus intended arrival, and
 *                   the fraction delivered within 10 us
 *   requests        the schedule's size, warm-up included
 *   warmup_requests the first requests, run but not recorded
 */
static size_t ol_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct open_loop *o = inst;
	struct wl_metric m[10];
	size_t k = 0;

	m[k++] = (struct wl_metric){ "offered_load", o->load };
	if (o->parallel_ran) {
		uint64_t span = 0, on_time = 0;
		for (uint32_t i = 0; i < o->n; i++) {
			uint64_t end = o->offset[i] + o->latency[i];
			span = end > span ? end : span;
			on_time += i >= o->warm && o->late[i] <= OL_ON_TIME_NS;
		}
		m[k++] = (struct wl_metric){ "achieved_load",
					     span ? (double)exec_total(o) /
							    ((double)o->workers * (double)span)
						  : 0 };
		uint32_t r = o->n - o->warm;
		uint64_t *v = malloc(r * sizeof *v);
		if (v) {
			memcpy(v, o->latency + o->warm, r * sizeof *v);
			qsort(v, r, sizeof *v, cmp_u64);
			m[k++] = (struct wl_metric){ "latency_p50_ns", rank_of(v, r, 50) };
			m[k++] = (struct wl_metric){ "latency_p99_ns", rank_of(v, r, 99) };
			m[k++] = (struct wl_metric){ "latency_p999_ns", rank_of(v, r, 99.9) };
			memcpy(v, o->late + o->warm, r * sizeof *v);
			qsort(v, r, sizeof *v, cmp_u64);
			m[k++] = (struct wl_metric){ "late_p99_ns", rank_of(v, r, 99) };
			m[k++] = (struct wl_metric){ "late_max_ns", (double)v[r - 1] };
			free(v);
		}
		m[k++] = (struct wl_metric){ "on_time_10us", (double)on_time / r };
	}
	m[k++] = (struct wl_metric){ "requests", o->n };
	m[k++] = (struct wl_metric){ "warmup_requests", o->warm };
	size_t w = k < max ? k : max;
	memcpy(out, m, w * sizeof *out);
	return w;
}

static void ol_destroy(void *inst)
{
	struct open_loop *o = inst;
	free(o->offset);
	free(o->service);
	free(o->latency);
	free(o->late);
	free(o->done);
	free(o->req);
	free(o->per);
	free(o);
}

static const char *const ol_quick[] = { "requests=400", "service_us=10", "io_us=20", NULL };

const struct workload workload_open_loop = {
	.name = "open-loop",
	.summary = "Poisson request arrivals at a target load, ZygOS service distributions, "
		   "optional I/O waits; latency from intended arrival",
	.params = ol_params,
	.nparams = P_COUNT,
	.param_names = ol_names,
	.sample_period = 1,
	.quick_params = ol_quick,
	.check = ol_check,
	.create = ol_create,
	.place = ol_place,
	.start = ol_start,
	.run_sequential = ol_run_sequential,
	.verify = ol_verify,
	.tasks = ol_tasks,
	.latencies = ol_latencies,
	.metrics = ol_metrics,
	.destroy = ol_destroy,
};
