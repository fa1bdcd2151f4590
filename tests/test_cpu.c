/*
 * test_cpu.c - each worker's CPU and its split (struct worker_cpu), and
 * the wake latencies, as the engines fill them in.
 *
 *   - threads, fib and open-loop on 2 workers: the workers' CPU summed
 *     lies within the process's own (getrusage RUSAGE_SELF over the run,
 *     which holds every worker thread from its start to its exit; the
 *     rusage figures are whole microseconds, 2 us of slack for the two
 *     truncated fields), every worker's four parts add up to its CPU
 *     exactly, its kernel part is its system time, and every wake that
 *     polled a task left one latency in the histogram;
 *   - sim, open-loop and fib on 4 workers under volt, tokio, go and rayon:
 *     the parts add up exactly to the modelled time, the modelled time and
 *     the time parked add up to the worker's clock at its exit (every
 *     virtual nanosecond of a worker is a step or a park), the task part
 *     is exactly the compute the tasks declared, and the kernel part is
 *     the park and notify costs of the counters;
 *   - sim, the calibrated costs of the way back from a sleep and of an
 *     idle round's yield: charged once per sleep and per yield, as the
 *     kernel's part.
 *
 * Relations the code decides, never a figure of the machine.
 */
#include <sys/resource.h>

#include "core/costs.h"
#include "core/haltpoll.h"
#include "run_util.h"

static uint64_t self_cpu_ns(void)
{
	struct rusage ru;
	ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000 +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

struct cpu_run {
	struct worker_cpu cpu[8];
	uint64_t clock[8];		/* sim: each worker's clock at its exit */
	uint64_t declared[8];		/* task_compute_ns */
	uint64_t wakes_polled, wakes_empty, wakes_recorded;
	uint64_t process_ns;
	struct worker_stats total;
	struct worker_stats st[8];	/* each worker's counters */
	uint64_t yields[8];		/* sim: each worker's rt_yield calls */
};

/* The sim's ops with a yield that counts each worker's calls before it
 * goes on to the sim's own (run_cpu_at installs them). */
static const struct engine_ops *sim_ops;
static struct engine_ops counting_ops;
static uint64_t *yield_count;

static void counting_yield(struct engine *e, struct worker *w)
{
	yield_count[w->index]++;
	sim_ops->yield(e, w);
}

static void run_cpu_at(bool sim, const struct sim_costs *costs, const char *policy,
		       const char *workload, uint32_t workers, const char *const *params,
		       struct cpu_run *out)
{
	const struct policy *p = policy_find(policy);
	const struct workload *wl = workload_find(workload);
	ASSERT(p && wl && workers <= 8);
	double kv[64], pv[64];
	apply_settings(p->knobs, p->nknobs, kv, NULL);
	apply_settings(wl->params, wl->nparams, pv, params);
	struct rt_config cfg = { .workers = workers, .seed = 1, .sample_period = 64,
				 .hist_digits = 3, .watchdog_ns = 20000000000ull };
	char err[256];
	struct engine *e = sim ? engine_sim_create(workers, costs, 0) : engine_threads_create(workers);
	ASSERT(e);
	memset(out, 0, sizeof *out);
	if (sim) {
		ASSERT(e->ops->yield);
		sim_ops = e->ops;
		counting_ops = *e->ops;
		counting_ops.yield = counting_yield;
		yield_count = out->yields;
		e->ops = &counting_ops;
	}
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	rt->user = wl->create(pv, workers, 1);
	ASSERT(rt->user);
	if (wl->place) {
		rt->place = run_place;
		rt->place_arg = (void *)wl;
	}
	struct worker_cpu cpu[8];
	struct hist wake[8];
	memset(cpu, 0, sizeof cpu);
	rt->cpu = cpu;
	for (uint32_t i = 0; i < workers; i++) {
		ASSERT_EQ(hist_init(&wake[i], 2, 60000000000ull), 0);
		rt->workers[i].wake_hist = &wake[i];
	}
	uint64_t p0 = self_cpu_ns();
	ASSERT_EQ(e->ops->run(e, rt, run_start, (void *)wl), 0);
	uint64_t p1 = self_cpu_ns();
	ASSERT_EQ(wl->verify(rt->user, err, sizeof err), 0);
	out->process_ns = p1 - p0;
	for (uint32_t i = 0; i < workers; i++) {
		out->cpu[i] = cpu[i];
		out->clock[i] = sim ? engine_sim_clock(e, i) : 0;
		out->declared[i] = rt->workers[i].task_compute_ns;
		out->st[i] = rt->workers[i].st;
		out->wakes_polled += rt->workers[i].wakes_polled;
		out->wakes_empty += rt->workers[i].wakes_empty;
		out->wakes_recorded += wake[i].total;
		hist_destroy(&wake[i]);
	}
	rt_total_stats(rt, &out->total);
	rt->cpu = NULL;
	wl->destroy(rt->user);
	rt_destroy(rt);
	if (sim)
		e->ops = sim_ops;
	e->ops->destroy(e);
}

static void run_cpu(bool sim, const char *policy, const char *workload, uint32_t workers,
		    const char *const *params, struct cpu_run *out)
{
	run_cpu_at(sim, NULL, policy, workload, workers, params, out);
}

/* The four parts add up to the CPU, and none is above it (a part that went
 * below zero would wrap around and still add up modulo 2^64). */
static void assert_parts_add_up(const struct worker_cpu *c)
{
	ASSERT_EQ(c->task_ns + c->sched_ns + c->search_ns + c->kernel_ns, c->cpu_ns);
	ASSERT(c->task_ns <= c->cpu_ns && c->sched_ns <= c->cpu_ns);
	ASSERT(c->search_ns <= c->cpu_ns && c->kernel_ns <= c->cpu_ns);
}

/* The sim: worker i's parts add up, and its modelled CPU and its time
 * parked fill its clock (every virtual nanosecond of a worker is a step or
 * a park). `what` names the run in a failure. */
static void assert_sim_worker(const struct cpu_run *r, uint32_t i, const char *what)
{
	const struct worker_cpu *w = &r->cpu[i];
	assert_parts_add_up(w);
	if (w->cpu_ns + w->parked_ns != r->clock[i])
		TEST_FAIL("%s worker %u: modelled %llu + parked %llu ns, clock %llu ns", what, i,
			  (unsigned long long)w->cpu_ns, (unsigned long long)w->parked_ns,
			  (unsigned long long)r->clock[i]);
}

/* assert_sim_worker for each of the run's n workers; their kernel parts
 * summed. */
static uint64_t sim_kernel(const struct cpu_run *r, uint32_t n, const char *what)
{
	uint64_t kernel = 0;
	for (uint32_t i = 0; i < n; i++) {
		assert_sim_worker(r, i, what);
		kernel += r->cpu[i].kernel_ns;
	}
	return kernel;
}

static void threads_case(const char *workload, const char *const *params)
{
	for (int rep = 0; rep < 3; rep++) {
		struct cpu_run r;
		run_cpu(false, "volt", workload, 2, params, &r);
		uint64_t sum = 0;
		for (uint32_t i = 0; i < 2; i++) {
			const struct worker_cpu *c = &r.cpu[i];
			assert_parts_add_up(c);
			ASSERT(c->cpu_ns > 0);
			/* The kernel's part is the system time, capped at the
			 * CPU clock's figure (rusage is sampled). */
			ASSERT_EQ(c->kernel_ns, c->sys_ns < c->cpu_ns ? c->sys_ns : c->cpu_ns);
			sum += c->cpu_ns;
		}
		if (sum > r.process_ns + 2000)
			TEST_FAIL("%s: workers' CPU %llu ns above the process's %llu ns", workload,
				  (unsigned long long)sum, (unsigned long long)r.process_ns);
		ASSERT_EQ(r.wakes_recorded, r.wakes_polled);
	}
}

static void threads_fib(void)
{
	static const char *const params[] = { "n=24", NULL };
	threads_case("fib", params);
}

static void threads_open_loop(void)
{
	static const char *const params[] = { "load=0.3", "service_us=20", "requests=3000", NULL };
	threads_case("open-loop", params);
}

static void sim_case(const char *policy, const char *workload, const char *const *params)
{
	struct sim_costs c;
	sim_costs_default(&c);
	struct cpu_run r;
	run_cpu(true, policy, workload, 4, params, &r);
	char what[96];
	snprintf(what, sizeof what, "%s %s", policy, workload);
	uint64_t kernel = 0, declared = 0, task = 0;
	for (uint32_t i = 0; i < 4; i++) {
		const struct worker_cpu *w = &r.cpu[i];
		assert_sim_worker(&r, i, what);
		ASSERT_EQ(w->user_ns, 0);
		kernel += w->kernel_ns;
		task += w->task_ns;
		declared += r.declared[i];
	}
	ASSERT_EQ(kernel, sim_costs_parks(&r.total) * c.park + sim_costs_notifies(&r.total) * c.notify);
	ASSERT_EQ(task, declared);
	ASSERT_EQ(r.wakes_recorded, r.wakes_polled);
}

static void sim_policies(void)
{
	static const char *const ol[] = { "load=0.3", "service_us=20", "requests=3000", NULL };
	static const char *const fib[] = { "n=20", NULL };
	static const char *const pol[] = { "volt", "tokio", "go", "rayon", "blumofe-leiserson" };
	for (size_t k = 0; k < sizeof pol / sizeof pol[0]; k++) {
		sim_case(pol[k], "open-loop", ol);
		sim_case(pol[k], "fib", fib);
	}
}

/* The sim at a low load: workers park and are woken; the wakes that
 * polled left their latency, and it is at least the modelled wake
 * latency (5 us by default). */
static void sim_wakes(void)
{
	static const char *const ol[] = { "load=0.05", "service_us=20", "requests=500", NULL };
	struct cpu_run r;
	run_cpu(true, "volt", "open-loop", 4, ol, &r);
	ASSERT(r.wakes_polled > 0);
	ASSERT_EQ(r.wakes_recorded, r.wakes_polled);
	uint64_t parked = 0;
	for (uint32_t i = 0; i < 4; i++)
		parked += r.cpu[i].parked_ns;
	ASSERT(parked > 0);
}

/*
 * The way back from a sleep (cost.wake_return, cost.timeout_return): once
 * per sleep, as the kernel's CPU. At 4 workers and a low load, where
 * workers sleep until woken and until their timeouts, the kernel part is
 * the park and notify costs plus W per sleep an unpark ended and T per
 * sleep a timeout ended, W and T so far apart (W > T x sleeps) that the
 * sum tells the two counts. Every timed-out sleep is an unparks_timeout
 * (volt counts PARK_TIMEOUT there, core/runtime.c), and every woken one a
 * recorded wake (wakes_polled, wakes_empty), but for at most one per
 * worker woken to exit at the end. The parts still add up to the clock.
 */
static void sim_wake_return(void)
{
	static const char *const ol[] = { "load=0.05", "service_us=20", "requests=500", NULL };
	static const char *const pol[] = { "volt", "tokio", "go", "rayon" };
	const uint64_t W = 1000003, T = 7;
	for (size_t k = 0; k < sizeof pol / sizeof pol[0]; k++) {
		struct sim_costs c;
		sim_costs_default(&c);
		c.wake_return = W;
		c.timeout_return = T;
		struct cpu_run r;
		run_cpu_at(true, &c, pol[k], "open-loop", 4, ol, &r);
		uint64_t kernel = sim_kernel(&r, 4, pol[k]), wakes = r.wakes_polled;
		uint64_t base = sim_costs_parks(&r.total) * c.park + sim_costs_notifies(&r.total) * c.notify;
		ASSERT(kernel >= base);
		uint64_t ret = kernel - base, woken = ret / W, timed = ret % W;
		if (timed % T != 0)
			TEST_FAIL("%s: %llu ns of ways back are no W x a + T x b", pol[k],
				  (unsigned long long)ret);
		timed /= T;
		if (timed != r.total.unparks_timeout)
			TEST_FAIL("%s: %llu timed-out sleeps charged, %llu timeouts", pol[k],
				  (unsigned long long)timed,
				  (unsigned long long)r.total.unparks_timeout);
		if (woken < wakes + r.wakes_empty || woken > wakes + r.wakes_empty + 4)
			TEST_FAIL("%s: %llu woken sleeps charged, %llu wakes recorded", pol[k],
				  (unsigned long long)woken,
				  (unsigned long long)(wakes + r.wakes_empty));
		ASSERT(woken > 0);
	}
}

/*
 * An idle round's yield (cost.yield): rayon's workers yield in each idle
 * round before they sleep (rayon_park), and each yield costs the idle
 * step and Y more on the worker's clock, the Y as the kernel's CPU. At 2
 * workers and a low load, where rayon's workers go through their idle
 * rounds into sleep again and again, with Y = 1009 ns (about a yield on a
 * virtual machine) and the way back from a sleep 0, each worker's kernel
 * part is exactly its parks x park +
 * notifies x notify + its yields (counted at the engine's op) x Y, and
 * its modelled time and time parked still add up to its clock (the yield
 * moved it). Volt, which never yields, is charged none.
 */
static void sim_yield(void)
{
	static const char *const ol[] = { "load=0.05", "service_us=20", "requests=300", NULL };
	static const char *const pol[] = { "rayon", "volt" };
	const uint64_t Y = 1009;
	for (size_t k = 0; k < sizeof pol / sizeof pol[0]; k++) {
		struct sim_costs c;
		sim_costs_default(&c);
		c.yield = Y;
		struct cpu_run r;
		run_cpu_at(true, &c, pol[k], "open-loop", 2, ol, &r);
		uint64_t yields = 0, parks = 0;
		for (uint32_t i = 0; i < 2; i++) {
			const struct worker_cpu *w = &r.cpu[i];
			assert_sim_worker(&r, i, pol[k]);
			uint64_t want = sim_costs_parks(&r.st[i]) * c.park + sim_costs_notifies(&r.st[i]) * c.notify +
					r.yields[i] * Y;
			if (w->kernel_ns != want)
				TEST_FAIL("%s worker %u: kernel %llu ns, parks, notifies and %llu "
					  "yields %llu ns", pol[k], i,
					  (unsigned long long)w->kernel_ns,
					  (unsigned long long)r.yields[i], (unsigned long long)want);
			yields += r.yields[i];
			parks += r.st[i].parks;
		}
		ASSERT(parks > 0);
		if (k == 0)
			ASSERT(yields > parks);
		else
			ASSERT_EQ(yields, 0);
	}
}

/*
 * The delivery through the workers' own I/O polls (cost.io_poll = 1), as
 * on threads: volt's timekeeper sleeps until the next arrival and its
 * sleeps end by their timeout, where an arrival delivered as an interrupt
 * wakes it by a notify. At 2 workers and load 0.05, with W = 1000003 ns
 * per woken sleep and T = 7 per timed-out one, the kernel part is parks x
 * park + notifies x notify + W x a + T x b with b exactly the timeouts and
 * a the recorded wakes (plus at most one per worker woken to exit), either
 * way; with the poll at least one sleep per two requests times out (443
 * for 500 requests), and four times as many as with interrupts (22).
 */
static void sim_io_poll(void)
{
	static const char *const ol[] = { "load=0.05", "service_us=100", "requests=500", NULL };
	const uint64_t W = 1000003, T = 7;
	uint64_t timeouts[2];
	for (int poll = 0; poll <= 1; poll++) {
		struct sim_costs c;
		sim_costs_default(&c);
		c.wake_return = W;
		c.timeout_return = T;
		c.io_poll = poll;
		struct cpu_run r;
		run_cpu_at(true, &c, "volt", "open-loop", 2, ol, &r);
		uint64_t kernel = sim_kernel(&r, 2, poll ? "volt io_poll=1" : "volt io_poll=0");
		uint64_t base = sim_costs_parks(&r.total) * c.park + sim_costs_notifies(&r.total) * c.notify;
		ASSERT(kernel >= base);
		uint64_t ret = kernel - base, woken = ret / W, timed = ret % W;
		ASSERT_EQ(timed % T, 0);
		ASSERT_EQ(timed / T, r.total.unparks_timeout);
		uint64_t wakes = r.wakes_polled + r.wakes_empty;
		if (woken < wakes || woken > wakes + 2)
			TEST_FAIL("io_poll=%d: %llu woken sleeps charged, %llu wakes recorded", poll,
				  (unsigned long long)woken, (unsigned long long)wakes);
		timeouts[poll] = r.total.unparks_timeout;
	}
	if (timeouts[1] < 500 / 2 || timeouts[1] < 4 * timeouts[0])
		TEST_FAIL("%llu sleeps timed out for 500 requests with io_poll, %llu without",
			  (unsigned long long)timeouts[1], (unsigned long long)timeouts[0]);
}

/*
 * The host's window for polling a halted CPU follows KVM's kvm_vcpu_halt
 * (virt/kvm/kvm_main.c): a halt past the window grows it, twice itself and
 * at least halt_poll_ns_grow_start (10 us), capped at halt_poll_ns, if the
 * halt was no longer than halt_poll_ns; a longer halt shrinks a window
 * that is not 0, to 0 (halt_poll_ns_shrink 0) or by the divisor; a halt
 * inside the window leaves it.
 */
static void halt_poll_window(void)
{
	const uint64_t max = 200000;
	uint64_t w = 0;
	static const uint64_t grown[] = { 10000, 20000, 40000, 80000, 80000 };
	for (size_t i = 0; i < sizeof grown / sizeof *grown; i++) {
		w = halt_poll_next(w, 50000, max, 0);
		ASSERT_U64_EQ(w, grown[i]);
	}
	ASSERT_U64_EQ(halt_poll_next(160000, 190000, max, 0), max);	/* 320 us, capped */
	ASSERT_U64_EQ(halt_poll_next(max, max, max, 0), max);		/* inside: kept */
	ASSERT_U64_EQ(halt_poll_next(80000, 300000, max, 0), 0);	/* reset */
	ASSERT_U64_EQ(halt_poll_next(80000, 300000, max, 2), 40000);	/* halved */
	ASSERT_U64_EQ(halt_poll_next(0, 300000, max, 2), 0);		/* 0 stays */
	ASSERT_U64_EQ(halt_poll_next(0, 50000, 0, 2), 0);		/* no polling */
}

/*
 * The deep notify (cost.notify_deep, core/costs.h): at a trickle of
 * requests delivered through the workers' I/O polls, the worker whose poll
 * delivers one pays the notify that wakes the other (rt_running: before,
 * no worker counted it), so every wake by a notify is some worker's
 * notify. With the host not polling (halt_poll 0) every one of volt's
 * notifies finds its target's CPU scheduled out; with a window that may
 * grow past the 2 ms sleeps, only the first few sleeps of each worker
 * outlast it (the window doubles from 10 us: at most 11 sleeps to reach
 * 10 ms). The kernel's CPU holds notify_deep - notify per deep notify,
 * to the nanosecond.
 */
static void sim_deep_notify(void)
{
	static const char *const ol[] = { "load=0.05", "service_us=100", "requests=500", NULL };
	static const char *const policies[] = { "volt", "go", "tokio", "rayon" };
	const uint64_t D = 1000003;
	for (size_t k = 0; k < sizeof policies / sizeof *policies; k++) {
		for (int far = 0; far <= 1; far++) {
			struct sim_costs c;
			sim_costs_default(&c);
			c.io_poll = true;
			c.notify_deep = D;
			c.halt_poll = far ? 10000000 : 0;
			c.halt_poll_shrink = 2;
			struct cpu_run r;
			run_cpu_at(true, &c, policies[k], "open-loop", 2, ol, &r);
			uint64_t kernel = sim_kernel(&r, 2, policies[k]);
			const struct worker_stats *t = &r.total;
			if (t->notifies != t->unparks_notify || t->notifies < 500 / 4)
				TEST_FAIL("%s: %llu notifies counted, %llu wakes by a notify",
					  policies[k], (unsigned long long)t->notifies,
					  (unsigned long long)t->unparks_notify);
			ASSERT_U64_EQ(kernel, sim_costs_parks(t) * c.park + sim_costs_notifies(t) * c.notify +
						      t->deep_notifies * (D - c.notify));
			if (far ? t->deep_notifies > 2 * 11 || t->deep_notifies == 0
				: strcmp(policies[k], "volt") == 0 && t->deep_notifies != t->notifies)
				TEST_FAIL("%s, halt_poll %llu: %llu deep notifies of %llu",
					  policies[k], (unsigned long long)c.halt_poll,
					  (unsigned long long)t->deep_notifies,
					  (unsigned long long)t->notifies);
		}
	}
}

/*
 * A notify that finds its worker awake wakes nobody and costs no notify,
 * and the park that takes its permit does not sleep and costs no park
 * (core/costs.h, sim_costs_notifies and sim_costs_parks): the threads
 * engine's parker swaps a permit in and makes no system call
 * (te_unpark, te_park), as Tokio's does (multi_thread/park.rs,
 * Inner::unpark from EMPTY, Inner::park taking NOTIFIED). Tokio's driver
 * holder, woken by its timeout while still on the sleeper list, delivers
 * the arrival its I/O poll finds and notifies (a remote schedule), and the
 * notify pops the most recently parked worker, often itself: at 2 workers
 * and load 0.5 most of its notifies find their worker awake (977 of 1,507
 * for 2,000 requests at part 7's costs). With N ns a notify and P a park,
 * and the ways back 0, the kernel's part is exactly the notifies that woke
 * a sleeper x N + the parks that slept x P.
 */
static void sim_awake_notify(void)
{
	static const char *const ol[] = { "load=0.5", "service_us=100", "requests=500", NULL };
	const uint64_t N = 5987, P = 2851;
	struct sim_costs c;
	sim_costs_default(&c);
	c.io_poll = true;
	c.notify = N;
	c.park = P;
	struct cpu_run r;
	run_cpu_at(true, &c, "tokio", "open-loop", 2, ol, &r);
	uint64_t kernel = sim_kernel(&r, 2, "tokio, awake notifies");
	const struct worker_stats *t = &r.total;
	if (3 * t->awake_notifies < t->notifies || t->permit_parks == 0 ||
	    t->permit_parks > t->parks)
		TEST_FAIL("%llu of %llu notifies found their worker awake, %llu of %llu parks "
			  "took a permit", (unsigned long long)t->awake_notifies,
			  (unsigned long long)t->notifies, (unsigned long long)t->permit_parks,
			  (unsigned long long)t->parks);
	ASSERT_U64_EQ(kernel, (t->notifies - t->awake_notifies) * N + (t->parks - t->permit_parks) * P);
}

int main(void)
{
	RUN(sim_policies);
	RUN(sim_wakes);
	RUN(sim_wake_return);
	RUN(sim_yield);
	RUN(sim_io_poll);
	RUN(halt_poll_window);
	RUN(sim_deep_notify);
	RUN(sim_awake_notify);
	RUN(threads_fib);
	RUN(threads_open_loop);
	return 0;
}
