/*
 * calibrate_pair.c - the calibration's two-thread figures (calibrate.c
 * says what each stands for): steals, the parker, task lines and the global
 * queue's lines taken on another CPU, and the lock handed to a spinning
 * waiter.
 */
#define _GNU_SOURCE
#include "calibrate_impl.h"

#include <sys/prctl.h>

/* ---- steals between two CPUs ---- */

enum { STEAL_KINDS = 3 };
/* Tasks the victim holds: none (a failed attempt, logged only), 2 (a steal
 * moves 1) and 128 (a steal moves 64). */
static const uint32_t steal_victim_len[STEAL_KINDS] = { 0, 2, RING_STEAL_MAX };

struct steal_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* owner -> thief: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* thief -> owner: round number */
	struct ring *src, *dst;
	struct cal *c;
	uint32_t rounds;
	int cpu;
	bool pinned;
	double *ns;		/* [rounds]: the thief's time for each steal */
	uint32_t *moved;	/* [rounds] */
};

static void *thief_main(void *arg)
{
	struct steal_bench *sb = arg;
	sb->pinned = sb->cpu < 0 || pin(sb->cpu) == 0;
	for (uint32_t r = 1; r <= sb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the owner's release of `go`: its pushes
		 * happen before our steal (as the ring's own tail acquire
		 * would order them anyway). */
		while (atomic_load_explicit(&sb->go, memory_order_acquire) != r)
			relax(&spins);
		struct task *first;
		enum steal_outcome why;
		uint64_t t0 = now_fenced(sb->c);
		uint32_t k = ring_steal_into(sb->src, sb->dst, RING_STEAL_MAX, &first, &why);
		uint64_t t1 = now_fenced(sb->c);
		sb->ns[r - 1] = (double)(t1 - t0) - sb->c->clock_ns;
		sb->moved[r - 1] = k;
		while (ring_pop(sb->dst))
			;
		/* Release: our steal (and its release of the slots) happens
		 * before the owner's next pushes. */
		atomic_store_explicit(&sb->done, r, memory_order_release);
	}
	return NULL;
}

int bench_steal(struct cal *c, struct calibrate_ns *ns, int cpu_owner, int cpu_thief)
{
	uint32_t per_kind = c->reps * EVENTS_PER_REP;
	struct steal_bench sb = { .c = c, .rounds = per_kind * STEAL_KINDS, .cpu = cpu_thief };
	sb.src = aligned_alloc(CACHE_LINE, sizeof *sb.src);
	sb.dst = aligned_alloc(CACHE_LINE, sizeof *sb.dst);
	sb.ns = calloc(sb.rounds, sizeof *sb.ns);
	sb.moved = calloc(sb.rounds, sizeof *sb.moved);
	struct task *tasks = calloc(RING_CAP, sizeof *tasks);
	int rc = 0;
	if (!sb.src || !sb.dst || !sb.ns || !sb.moved || !tasks) {
		rc = -ENOMEM;
		goto out;
	}
	ring_init(sb.src);
	ring_init(sb.dst);
	atomic_init(&sb.go, 0);
	atomic_init(&sb.done, 0);

	cpu_set_t old;
	bool pinned;
	pthread_t th;
	if ((rc = start_peer(cpu_owner, &old, &pinned, &th, thief_main, &sb)))
		goto out;
	for (uint32_t r = 1; r <= sb.rounds; r++) {
		uint32_t n = steal_victim_len[r % STEAL_KINDS];
		/* The owner has just worked on its ring: its lines are in
		 * this core's cache, as a running victim's are. */
		if (n == 0) {
			CHECK(ring_try_push(sb.src, &tasks[0]));
			CHECK(ring_pop(sb.src) == &tasks[0]);
		}
		for (uint32_t i = 0; i < n; i++)
			CHECK(ring_try_push(sb.src, &tasks[i]));
		/* Release pairs with the thief's acquire of `go`. */
		atomic_store_explicit(&sb.go, r, memory_order_release);
		uint32_t spins = 0;
		while (atomic_load_explicit(&sb.done, memory_order_acquire) != r)
			relax(&spins);
		while (ring_pop(sb.src))
			;
	}
	end_peer(th, &old);
	c->pinned = c->pinned && pinned && sb.pinned;

	double med[STEAL_KINDS];
	for (int k = 0; k < STEAL_KINDS; k++) {
		uint32_t m = 0, want = ring_steal_amount(steal_victim_len[k], RING_STEAL_MAX);
		for (uint32_t r = 1; r <= sb.rounds; r++) {
			if (r % STEAL_KINDS != (uint32_t)k)
				continue;
			CHECK_MSG(sb.moved[r - 1] == (steal_victim_len[k] ? want : 0),
				  "steal from %u tasks moved %u", steal_victim_len[k],
				  sb.moved[r - 1]);
			c->s[m++] = sb.ns[r - 1];
		}
		med[k] = median(c->s, m);
	}
	uint32_t big = ring_steal_amount(steal_victim_len[2], RING_STEAL_MAX);
	ns->steal_task = (med[2] - med[1]) / (big - 1);
	ns->steal_attempt = med[1] - ns->steal_task;
	say(c, "steal across CPUs: empty %.0f ns, 1 task %.0f ns, %u tasks %.0f ns -> attempt "
	    "%.1f ns, task %.2f ns", med[0], med[1], big, med[2], ns->steal_attempt,
	    ns->steal_task);
out:
	free(sb.src);
	free(sb.dst);
	free(sb.ns);
	free(sb.moved);
	free(tasks);
	return rc;
}

/* ---- park, notify and wake latency ---- */

/*
 * The threads engine's parker between a waker on one CPU and a parker on
 * another, in two phases of `rounds` parks each:
 *
 *  1. The parker's CPU is idle while it sleeps (as a parked worker's is).
 *     The waker waits until the kernel shows the parker asleep and a
 *     little longer, then unparks it: notify is the waker's time for the
 *     unpark, wake_latency the time from the unpark to the parker running.
 *  2. An observer thread on the parker's CPU yields in a loop and notes
 *     when it gets the CPU back after the parker went to sleep: park is
 *     the time from the start of the parker's park to that moment (its
 *     protocol, the futex wait's way into the kernel, the switch away).
 *  3. The observer gone, the parker parks with a timeout of PARK_SETTLE_NS
 *     and nobody unparks it, as a worker that sleeps until its next timer.
 *
 * In phases 1 and 3 the parker also reads its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, the clock the threads engine's CPU split
 * reads) before and after each park: the CPU a sleep costs the sleeper,
 * its way in and its way back from the kernel. wake_return (phase 1) and
 * timeout_return (phase 3) are that, less park (the way in) and one
 * reading of that clock: the way back, which on threads lies inside the
 * wake latency and which the sim therefore charges as CPU inside the
 * sleep (core/engine_sim.c, sim_wake_cpu).
 */
struct park_bench {
	CACHE_ALIGNED _Atomic uint32_t state;	/* the parker word */
	CACHE_ALIGNED _Atomic uint32_t woke;	/* parker -> waker: round number */
	_Atomic uint64_t park_at;		/* the parker's clock as it starts a park */
	_Atomic uint64_t woke_at;		/* ... and as it runs again */
	_Atomic int tid;
	CACHE_ALIGNED _Atomic uint64_t other_ran;	/* observer: got the CPU (0: not yet) */
	_Atomic bool stop;
	_Atomic bool timed;		/* waker -> parker: phase 3 may start */
	/* [3 * rounds], phases 1 and 3: the parker's CPU over each park, ns,
	 * written before its release of `woke`, read after the acquire. */
	double *sleep_cpu;
	double cpu_read;		/* one read of the thread CPU clock, ns */
	struct cal *c;
	uint32_t rounds;
	int cpu;
	bool pinned, observer_pinned;
};

/* Phase 3's park: the threads engine's te_park with a timeout that runs
 * out (nobody unparks), then its withdrawal PARKED -> EMPTY. Nobody else
 * writes the word in this phase, so no race is closed here: the CASes and
 * their orderings are te_park's, replayed for their cost. */
static void park_timed(struct park_bench *pb)
{
	uint32_t expect = P_EMPTY;
	CHECK(atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_PARKED,
						      memory_order_acquire, memory_order_acquire));
	uint64_t deadline = now(pb->c) + PARK_SETTLE_NS, t;
	while ((t = now(pb->c)) < deadline) {
		uint64_t left = deadline - t;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)left };
		syscall(SYS_futex, (uint32_t *)&pb->state, FUTEX_WAIT_PRIVATE, P_PARKED, &ts, NULL, 0);
	}
	expect = P_PARKED;
	CHECK(atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_EMPTY,
						      memory_order_acquire, memory_order_acquire));
}

static void *parker_main(void *arg)
{
	struct park_bench *pb = arg;
	pb->pinned = pb->cpu < 0 || pin(pb->cpu) == 0;
	/* As the threads engine's workers: their timed parks end on time. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	{
		enum { READS = 64 };
		uint64_t t0 = thread_cpu();
		for (int i = 0; i < READS; i++)
			(void)thread_cpu();
		pb->cpu_read = (double)(thread_cpu() - t0) / (READS + 1);
	}
	atomic_store_explicit(&pb->tid, (int)syscall(SYS_gettid), memory_order_release);
	for (uint32_t r = 1; r <= 3 * pb->rounds; r++) {
		if (r == 2 * pb->rounds + 1) {
			/* Phase 3 once the observer has left this CPU: the
			 * acquire pairs with the waker's release of `timed`,
			 * made after it joined the observer. */
			uint32_t spins = 0;
			while (!atomic_load_explicit(&pb->timed, memory_order_acquire))
				relax(&spins);
		}
		if (r > 2 * pb->rounds) {
			uint64_t c0 = thread_cpu();
			park_timed(pb);
			pb->sleep_cpu[r - 1] = (double)(thread_cpu() - c0);
			/* Release: sleep_cpu[r - 1] before the waker reads it. */
			atomic_store_explicit(&pb->woke, r, memory_order_release);
			continue;
		}
		atomic_store_explicit(&pb->other_ran, 0, memory_order_relaxed);
		uint64_t c0 = thread_cpu();
		atomic_store_explicit(&pb->park_at, now_fenced(pb->c), memory_order_relaxed);
		/* The threads engine's park: consume a permit if there is one
		 * (there never is here: the waker unparks only once it has
		 * seen PARKED), else EMPTY -> PARKED and wait while PARKED.
		 * The acquires pair with the unparker's release exchange; the
		 * release on the second CAS publishes park_at and the reset
		 * of other_ran to whoever sees PARKED. */
		uint32_t expect = P_NOTIFIED;
		CHECK(!atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_EMPTY,
							       memory_order_acquire,
							       memory_order_relaxed));
		expect = P_EMPTY;
		CHECK(atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_PARKED,
							      memory_order_acq_rel,
							      memory_order_acquire));
		while (atomic_load_explicit(&pb->state, memory_order_acquire) == P_PARKED)
			futex(&pb->state, FUTEX_WAIT_PRIVATE, P_PARKED);
		uint64_t ran = now_fenced(pb->c);
		pb->sleep_cpu[r - 1] = (double)(thread_cpu() - c0);
		atomic_store_explicit(&pb->state, P_EMPTY, memory_order_relaxed);
		atomic_store_explicit(&pb->woke_at, ran, memory_order_relaxed);
		/* Release: woke_at and the EMPTY state before the waker's next
		 * round. */
		atomic_store_explicit(&pb->woke, r, memory_order_release);
	}
	return NULL;
}

static void *observer_main(void *arg)
{
	struct park_bench *pb = arg;
	pb->observer_pinned = pb->cpu < 0 || pin(pb->cpu) == 0;
	while (!atomic_load_explicit(&pb->stop, memory_order_relaxed)) {
		uint64_t t = now_fenced(pb->c);
		/* On one CPU we run only when the parker does not: seeing it
		 * PARKED means it has gone to sleep (acquire pairs with its
		 * CAS, so the reset of other_ran is visible). */
		if (atomic_load_explicit(&pb->state, memory_order_acquire) == P_PARKED &&
		    atomic_load_explicit(&pb->other_ran, memory_order_relaxed) == 0)
			atomic_store_explicit(&pb->other_ran, t, memory_order_release);
		sched_yield();
	}
	return NULL;
}

/* Is thread `tid` of this process asleep in the kernel ('S' in its stat)? */
static bool asleep(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');	/* the name may hold anything */
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

/* The threads engine's unpark: release pairs with the parker's acquire;
 * the futex wake only if it sleeps. */
static void unpark(struct park_bench *pb)
{
	uint32_t prev = atomic_exchange_explicit(&pb->state, P_NOTIFIED, memory_order_release);
	if (prev == P_PARKED)
		futex(&pb->state, FUTEX_WAKE_PRIVATE, 1);
}

static void wait_woke(struct park_bench *pb, uint32_t r)
{
	uint32_t spins = 0;
	while (atomic_load_explicit(&pb->woke, memory_order_acquire) != r)
		relax(&spins);
}

static void wait_parked(struct park_bench *pb)
{
	uint32_t spins = 0;
	while (atomic_load_explicit(&pb->state, memory_order_acquire) != P_PARKED)
		relax(&spins);
}

/* A parker's bench, zeroed, for `rounds` parks of a parker on CPU `cpu`. */
static void park_bench_init(struct park_bench *pb, struct cal *c, uint32_t rounds, int cpu)
{
	memset(pb, 0, sizeof *pb);
	atomic_init(&pb->state, P_EMPTY);
	atomic_init(&pb->woke, 0);
	atomic_init(&pb->tid, 0);
	atomic_init(&pb->other_ran, 0);
	atomic_init(&pb->stop, false);
	atomic_init(&pb->timed, false);
	pb->c = c;
	pb->rounds = rounds;
	pb->cpu = cpu;
}

/* The parker's thread id, once it has published it (acquire pairs with
 * its release store). */
static int parker_tid(struct park_bench *pb)
{
	uint32_t spins = 0;
	while (atomic_load_explicit(&pb->tid, memory_order_acquire) == 0)
		relax(&spins);
	return atomic_load_explicit(&pb->tid, memory_order_relaxed);
}

int bench_park(struct cal *c, struct calibrate_ns *ns, int cpu_waker, int cpu_parker)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct park_bench *pb = aligned_alloc(CACHE_LINE, sizeof *pb);
	double *notify = calloc(n, sizeof *notify), *lat = calloc(n, sizeof *lat);
	double *park = calloc(n, sizeof *park), *busy = calloc(n, sizeof *busy);
	double *cpu = calloc(3 * (size_t)n, sizeof *cpu);
	int rc = 0;
	if (!pb || !notify || !lat || !park || !busy || !cpu) {
		rc = -ENOMEM;
		goto out;
	}
	park_bench_init(pb, c, n, cpu_parker);
	pb->sleep_cpu = cpu;

	cpu_set_t old;
	bool pinned;
	pthread_t parker, observer;
	if ((rc = start_peer(cpu_waker, &old, &pinned, &parker, parker_main, pb)))
		goto out;
	uint32_t spins = 0, not_asleep = 0, lost = 0, m = 0;
	int tid = parker_tid(pb);

	/* Phase 1: the parker's CPU idles while it sleeps. */
	for (uint32_t r = 1; r <= n; r++) {
		wait_parked(pb);
		uint64_t t = now(c), since = 0;
		for (;;) {
			uint64_t u = now(c);
			if (!since && asleep(tid))
				since = u;
			if (since && u - since >= PARK_SETTLE_NS)
				break;
			if (!since && u - t >= PARK_ASLEEP_MAX_NS) {
				not_asleep++;
				break;
			}
			sched_yield();
		}
		uint64_t t0 = now_fenced(c);
		unpark(pb);
		uint64_t t1 = now_fenced(c);
		wait_woke(pb, r);
		uint64_t ran = atomic_load_explicit(&pb->woke_at, memory_order_relaxed);
		notify[r - 1] = (double)(t1 - t0) - c->clock_ns;
		lat[r - 1] = ran > t0 ? (double)(ran - t0) : 0;
	}

	/* Phase 2: an observer shares the parker's CPU. */
	rc = -pthread_create(&observer, NULL, observer_main, pb);
	if (rc) {
		atomic_store_explicit(&pb->stop, true, memory_order_relaxed);
		for (uint32_t r = n + 1; r <= 2 * n; r++) {
			wait_parked(pb);
			unpark(pb);
			wait_woke(pb, r);
		}
	}
	for (uint32_t r = n + 1; r <= 2 * n && rc == 0; r++) {
		wait_parked(pb);
		uint64_t start = atomic_load_explicit(&pb->park_at, memory_order_relaxed);
		uint64_t t = now(c), other;
		spins = 0;
		while ((other = atomic_load_explicit(&pb->other_ran, memory_order_acquire)) == 0 &&
		       now(c) - t < PARK_ASLEEP_MAX_NS)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		unpark(pb);
		wait_woke(pb, r);
		uint64_t ran = atomic_load_explicit(&pb->woke_at, memory_order_relaxed);
		busy[r - n - 1] = ran > t0 ? (double)(ran - t0) : 0;
		if (other > start)
			park[m++] = (double)(other - start) - c->clock_ns;
		else
			lost++;
	}
	atomic_store_explicit(&pb->stop, true, memory_order_relaxed);
	if (rc == 0)
		pthread_join(observer, NULL);
	/* Phase 3: timed parks that run out. Release pairs with the parker's
	 * acquire: it starts once the observer has gone. */
	atomic_store_explicit(&pb->timed, true, memory_order_release);
	/* The parker runs its rounds on its own: wait for the last (its
	 * release orders every sleep_cpu before it). */
	wait_woke(pb, 3 * n);
	end_peer(parker, &old);
	if (rc)
		goto out;
	c->pinned = c->pinned && pinned && pb->pinned && pb->observer_pinned;
	ns->notify = median(notify, n);
	ns->wake_latency = median(lat, n);
	ns->park = m ? median(park, m) : 0;
	/* The parker's CPU over a sleep, less its way in and a clock read:
	 * woken (phase 1), timed out (phase 3). */
	double woken_cpu = median(cpu, n), timed_cpu = median(cpu + 2 * (size_t)n, n);
	ns->wake_return = woken_cpu - ns->park - pb->cpu_read;
	ns->timeout_return = timed_cpu - ns->park - pb->cpu_read;
	say(c, "parker across CPUs: notify %.0f ns, wake latency %.0f ns (idle CPU; %.0f ns to a "
	    "busy one), park %.0f ns; the parker's CPU over a sleep %.0f ns woken, %.0f ns timed "
	    "out (a CPU clock read %.0f ns)%s%s", ns->notify, ns->wake_latency,
	    median(busy, n), ns->park, woken_cpu, timed_cpu, pb->cpu_read,
	    not_asleep ? "; the parker did not always show as asleep" : "",
	    lost ? "; some parks went unobserved" : "");
out:
	free(pb);
	free(notify);
	free(lat);
	free(park);
	free(busy);
	free(cpu);
	return rc;
}

/* ---- a notify to a worker long asleep ---- */

/*
 * The waker's side of a notify to a worker whose CPU the host has
 * scheduled out (notify_deep, halt_poll, halt_poll_shrink: the sim's deep
 * notify, core/costs.h and core/haltpoll.h). On a
 * virtual machine the wake's interrupt to a halted CPU goes through the
 * host, which polls the halted CPU for a window it adapts (KVM's halt
 * polling) and then schedules it out; a wake that finds it scheduled out
 * holds the waker's CPU while the host wakes it. The parker of bench_park,
 * woken once the waker has seen it asleep for a given time, in three
 * series (each sleep is a halt of the parker's CPU):
 *
 *  1. DEEP_ROUNDS_PER_REP rounds of DEEP_SLEEP_NS, far past any window:
 *     notify_deep, the median of the waker's times.
 *  2. HALT_LEVEL_ROUNDS rounds at each of the sleeps HALT_LEVELS: a window
 *     grows, sleep after sleep, to cover a sleep no longer than the
 *     maximum, and shrinks past it, so the last rounds of a level cost
 *     notify below the maximum and notify_deep above it: halt_poll is the
 *     longest level whose last rounds' median lies nearer notify.
 *  3. SHRINK_ROUNDS_PER_REP times: HALT_GROW_ROUNDS sleeps of 3/4 of that
 *     maximum (the window grows past them), one of DEEP_SLEEP_NS (it
 *     shrinks), then one of a quarter of the maximum: a window reset to 0
 *     (halt_poll_ns_shrink 0) makes that last notify deep, one halved (2,
 *     the default of newer kernels) does not. halt_poll_shrink is 0 or 2 as
 *     the median of those notifies is nearer notify_deep or notify.
 *
 * A machine whose long sleeps cost the waker no more than 1.5 times a short
 * one's has no deep notify: notify_deep 0 (off).
 */
#define DEEP_SLEEP_NS 2000000ull
#define DEEP_ROUNDS_PER_REP 2
#define HALT_LEVELS 9
#define HALT_LEVEL_ROUNDS 12
#define HALT_GROW_ROUNDS 6
#define SHRINK_ROUNDS_PER_REP 1
static const uint64_t halt_level_ns[HALT_LEVELS] = { 50000, 100000, 125000, 150000, 175000,
						     200000, 250000, 300000, 400000 };

static void *deep_parker_main(void *arg)
{
	struct park_bench *pb = arg;
	pb->pinned = pb->cpu < 0 || pin(pb->cpu) == 0;
	atomic_store_explicit(&pb->tid, (int)syscall(SYS_gettid), memory_order_release);
	for (uint32_t r = 1; r <= pb->rounds; r++) {
		/* The threads engine's park, as parker_main's: the acquires
		 * pair with the waker's release exchange (unpark). */
		uint32_t expect = P_EMPTY;
		CHECK(atomic_compare_exchange_strong_explicit(&pb->state, &expect, P_PARKED,
							      memory_order_acq_rel,
							      memory_order_acquire));
		while (atomic_load_explicit(&pb->state, memory_order_acquire) == P_PARKED)
			futex(&pb->state, FUTEX_WAIT_PRIVATE, P_PARKED);
		atomic_store_explicit(&pb->state, P_EMPTY, memory_order_relaxed);
		/* Release: the EMPTY state before the waker's next round. */
		atomic_store_explicit(&pb->woke, r, memory_order_release);
	}
	return NULL;
}

/* One round: wait for the parker to park and show as asleep (or give up
 * on that), `sleep_ns` more, then unpark it; the waker's time for the
 * unpark. */
static double deep_round(struct park_bench *pb, int tid, uint32_t r, uint64_t sleep_ns)
{
	struct cal *c = pb->c;
	wait_parked(pb);
	uint64_t t = now(c), since;
	while ((since = now(c)) - t < PARK_ASLEEP_MAX_NS && !asleep(tid))
		sched_yield();
	while (now(c) - since < sleep_ns)
		sched_yield();
	uint64_t t0 = now_fenced(c);
	unpark(pb);
	uint64_t t1 = now_fenced(c);
	wait_woke(pb, r);
	return (double)(t1 - t0) - c->clock_ns;
}

int bench_notify_deep(struct cal *c, struct calibrate_ns *ns, int cpu_waker, int cpu_parker)
{
	uint32_t nd = c->reps * DEEP_ROUNDS_PER_REP, nk = c->reps * SHRINK_ROUNDS_PER_REP;
	uint32_t nl = HALT_LEVEL_ROUNDS / 3;	/* the last rounds of a level, measured */
	struct park_bench *pb = aligned_alloc(CACHE_LINE, sizeof *pb);
	double *deep = calloc(nd, sizeof *deep), *after = calloc(nk, sizeof *after);
	double level[HALT_LEVELS][HALT_LEVEL_ROUNDS / 3];
	int rc = 0;
	if (!pb || !deep || !after) {
		rc = -ENOMEM;
		goto out;
	}
	park_bench_init(pb, c, nd + HALT_LEVELS * HALT_LEVEL_ROUNDS + nk * (HALT_GROW_ROUNDS + 2),
			cpu_parker);

	cpu_set_t old;
	bool pinned;
	pthread_t parker;
	if ((rc = start_peer(cpu_waker, &old, &pinned, &parker, deep_parker_main, pb)))
		goto out;
	uint32_t r = 0;
	int tid = parker_tid(pb);
	for (uint32_t i = 0; i < nd; i++)
		deep[i] = deep_round(pb, tid, ++r, DEEP_SLEEP_NS);
	double d = median(deep, nd), mid = (d + ns->notify) / 2;
	uint64_t max = 0;
	bool cheap = true;	/* every level so far */
	for (uint32_t l = 0; l < HALT_LEVELS; l++) {
		for (uint32_t i = 0; i < HALT_LEVEL_ROUNDS; i++) {
			double v = deep_round(pb, tid, ++r, halt_level_ns[l]);
			if (i >= HALT_LEVEL_ROUNDS - nl)
				level[l][i - (HALT_LEVEL_ROUNDS - nl)] = v;
		}
		cheap = cheap && median(level[l], nl) < mid;
		if (cheap)
			max = halt_level_ns[l];
	}
	uint64_t grow = max * 3 / 4, probe = max / 4;
	for (uint32_t k = 0; k < nk; k++) {
		for (uint32_t i = 0; i < HALT_GROW_ROUNDS; i++)
			(void)deep_round(pb, tid, ++r, grow);
		(void)deep_round(pb, tid, ++r, DEEP_SLEEP_NS);
		after[k] = deep_round(pb, tid, ++r, probe);
	}
	end_peer(parker, &old);
	c->pinned = c->pinned && pinned && pb->pinned;
	bool has = d > 1.5 * ns->notify;
	bool reset = median(after, nk) >= mid;
	ns->notify_deep = has ? d : 0;
	ns->halt_poll = (double)max;
	ns->halt_poll_shrink = reset ? 0 : 2;
	say(c, "notify to a worker long asleep: %.0f ns after %.1f ms (notify %.0f ns); the host "
	    "polls a halted CPU for up to %.0f us, and a halt past that %s its window%s", d,
	    DEEP_SLEEP_NS / 1e6, ns->notify, (double)max / 1e3, reset ? "resets" : "halves",
	    has ? "" : ": no deep notify on this machine (notify_deep 0)");
out:
	free(pb);
	free(deep);
	free(after);
	return rc;
}

/* ---- task data touched on another core: cold_start, line_transfer ---- */

/* Task-sized blocks per round: the lines of a few hundred queued tasks. */
#define COLD_BLOCKS 256

struct cold_block {
	CACHE_ALIGNED _Atomic uint64_t word;
	uint64_t data[7];
};

struct cold_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* measurer -> writer: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* writer -> measurer: round number */
	struct cold_block *b;
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The chain the touches follow: block (k * 97) mod COLD_BLOCKS, then the
 * next k's (97 is prime to COLD_BLOCKS: every block, in a scattered order
 * that no prefetcher streams). */
static uint32_t cold_next(uint32_t i)
{
	for (uint32_t k = 0; k < COLD_BLOCKS; k++)
		if ((k * 97u) % COLD_BLOCKS == i)
			return ((k + 1) * 97u) % COLD_BLOCKS;
	return 0;
}

/* The writer: every round, write each block whole (as a worker that
 * spawns or polls a task writes its lines), data[0] the next block of the
 * chain. */
static void *cold_writer_main(void *arg)
{
	struct cold_bench *cb = arg;
	cb->pinned = cb->cpu < 0 || pin(cb->cpu) == 0;
	for (uint32_t r = 1; r <= cb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the measurer's release: its touches of
		 * the blocks come before these writes. */
		while (atomic_load_explicit(&cb->go, memory_order_acquire) != r)
			relax(&spins);
		for (uint32_t i = 0; i < COLD_BLOCKS; i++) {
			atomic_store_explicit(&cb->b[i].word, r, memory_order_relaxed);
			cb->b[i].data[0] = cold_next(i);
			for (int k = 1; k < 7; k++)
				cb->b[i].data[k] = r + (uint64_t)k;
		}
		/* Release: the writes above before the measurer's touches. */
		atomic_store_explicit(&cb->done, r, memory_order_release);
	}
	return NULL;
}

/* Touch every block along the chain, each address depending on what the
 * last touch read (a worker finds its next task through the last one it
 * touched), so the misses do not overlap: a task poll's read and write of
 * its block, or a join's RMW. */
static uint64_t cold_touch(struct cold_block *b, bool rmw)
{
	uint64_t sum = 0, i = 0;
	for (uint32_t k = 0; k < COLD_BLOCKS; k++) {
		struct cold_block *x = &b[i];
		uint64_t v = rmw ? atomic_fetch_add_explicit(&x->word, 1, memory_order_relaxed)
				 : atomic_load_explicit(&x->word, memory_order_relaxed);
		if (!rmw)
			x->data[1] = v;
		sum += v;
		i = (x->data[0] + (v >> 63)) % COLD_BLOCKS;	/* v >> 63 is 0: a dependency */
	}
	return sum;
}

int bench_cold(struct cal *c, struct calibrate_ns *ns, int cpu_writer, int cpu_me)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct cold_bench *cb = aligned_alloc(CACHE_LINE, sizeof *cb);
	struct cold_block *b = aligned_alloc(CACHE_LINE, COLD_BLOCKS * sizeof *b);
	double *cold = calloc(n, sizeof *cold), *xfer = calloc(n, sizeof *xfer);
	int rc = 0;
	if (!cb || !b || !cold || !xfer) {
		rc = -ENOMEM;
		goto out;
	}
	memset(cb, 0, sizeof *cb);
	memset(b, 0, COLD_BLOCKS * sizeof *b);
	atomic_init(&cb->go, 0);
	atomic_init(&cb->done, 0);
	cb->b = b;
	cb->rounds = 2 * n;
	cb->cpu = cpu_writer;

	cpu_set_t old;
	bool pinned;
	pthread_t writer;
	if ((rc = start_peer(cpu_me, &old, &pinned, &writer, cold_writer_main, cb)))
		goto out;
	volatile uint64_t sink = 0;
	for (uint32_t r = 1; r <= 2 * n; r++) {
		bool rmw = r > n;
		uint32_t spins = 0;
		/* Release: our touches of the last round before its writes. */
		atomic_store_explicit(&cb->go, r, memory_order_release);
		while (atomic_load_explicit(&cb->done, memory_order_acquire) != r)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		sink += cold_touch(b, rmw);	/* lines last written by the writer */
		uint64_t t1 = now_fenced(c);
		sink += cold_touch(b, rmw);	/* the same lines, now here */
		uint64_t t2 = now_fenced(c);
		double d = ((double)(t1 - t0) - (double)(t2 - t1)) / COLD_BLOCKS;
		(rmw ? xfer : cold)[(r - 1) % n] = d;
	}
	(void)sink;
	end_peer(writer, &old);
	c->pinned = c->pinned && pinned && cb->pinned;
	ns->cold_start = median(cold, n);
	ns->line_transfer = median(xfer, n);
	ns->cold_after = 0;
	say(c, "task blocks written on another CPU: cold start %.1f ns, line transfer (an RMW) "
	    "%.1f ns per block", ns->cold_start, ns->line_transfer);
out:
	free(cb);
	free(b);
	free(cold);
	free(xfer);
	return rc;
}

/* ---- the global queue's lines taken after another core: lock_transfer ---- */

/* Queues per round: as many lock lines as the cold start's blocks. */
#define LOCK_QUEUES COLD_BLOCKS

struct lock_bench {
	CACHE_ALIGNED _Atomic uint32_t go;	/* measurer -> pusher: round number */
	CACHE_ALIGNED _Atomic uint32_t done;	/* pusher -> measurer: round number */
	struct inject *q;
	struct task *t;
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The other worker: every round, push one task into each queue (its lock,
 * its head and length, the slot: the lines a worker's push writes). */
static void *lock_pusher_main(void *arg)
{
	struct lock_bench *lb = arg;
	lb->pinned = lb->cpu < 0 || pin(lb->cpu) == 0;
	for (uint32_t r = 1; r <= lb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the measurer's release: its pops of the
		 * last round come before these pushes (the queues are empty). */
		while (atomic_load_explicit(&lb->go, memory_order_acquire) != r)
			relax(&spins);
		for (uint32_t i = 0; i < LOCK_QUEUES; i++)
			inject_push(&lb->q[i], &lb->t[i]);
		/* Release: the pushes before the measurer's pops. */
		atomic_store_explicit(&lb->done, r, memory_order_release);
	}
	return NULL;
}

/* Pop the one task of every queue, in the scattered order of the cold
 * start's chain (no prefetcher streams it; each pop's locked CAS and
 * exchange keep the next pop's misses from overlapping its own). */
static uintptr_t lock_pop_all(struct inject *q)
{
	uintptr_t sum = 0;
	uint32_t i = 0;
	for (uint32_t k = 0; k < LOCK_QUEUES; k++) {
		struct task *t = NULL;
		CHECK(inject_pop_batch(&q[i], &t, 1) == 1);
		sum += (uintptr_t)t;
		i = ((k + 1) * 97u) % LOCK_QUEUES;
	}
	return sum;
}

/*
 * The measured part of lock_transfer: a pop from a global queue whose
 * lock, head, length and slot another CPU wrote last (its push), less the
 * same pop on lines this CPU wrote last (its own push). What the queue's
 * own lines add to a taking of its lock after another worker, uncontended;
 * calibrate_policies fits the figure the sim uses (docs/sim.md).
 */
int bench_lock(struct cal *c, struct calibrate_ns *ns, int cpu_pusher, int cpu_me)
{
	uint32_t n = c->reps * EVENTS_PER_REP;
	struct lock_bench *lb = aligned_alloc(CACHE_LINE, sizeof *lb);
	struct inject *q = aligned_alloc(CACHE_LINE, LOCK_QUEUES * sizeof *q);
	struct task *t = calloc(LOCK_QUEUES, sizeof *t);
	double *xfer = calloc(n, sizeof *xfer);
	int rc = 0, inited = 0;
	if (!lb || !q || !t || !xfer) {
		rc = -ENOMEM;
		goto out;
	}
	memset(lb, 0, sizeof *lb);
	for (; inited < LOCK_QUEUES; inited++)
		inject_init(&q[inited]);
	atomic_init(&lb->go, 0);
	atomic_init(&lb->done, 0);
	lb->q = q;
	lb->t = t;
	lb->rounds = n;
	lb->cpu = cpu_pusher;

	cpu_set_t old;
	bool pinned;
	pthread_t pusher;
	if ((rc = start_peer(cpu_me, &old, &pinned, &pusher, lock_pusher_main, lb)))
		goto out;
	volatile uintptr_t sink = 0;
	for (uint32_t r = 1; r <= n; r++) {
		uint32_t spins = 0;
		/* Release: our pops of the last round before its pushes. */
		atomic_store_explicit(&lb->go, r, memory_order_release);
		while (atomic_load_explicit(&lb->done, memory_order_acquire) != r)
			relax(&spins);
		uint64_t t0 = now_fenced(c);
		sink += lock_pop_all(q);	/* lines the pusher wrote last */
		uint64_t t1 = now_fenced(c);
		for (uint32_t i = 0; i < LOCK_QUEUES; i++)
			inject_push(&q[i], &t[i]);
		uint64_t t2 = now_fenced(c);
		sink += lock_pop_all(q);	/* the same, now written here */
		uint64_t t3 = now_fenced(c);
		xfer[r - 1] = ((double)(t1 - t0) - (double)(t3 - t2)) / LOCK_QUEUES;
	}
	(void)sink;
	end_peer(pusher, &old);
	c->pinned = c->pinned && pinned && lb->pinned;
	ns->lock_transfer = median(xfer, n);
	say(c, "global queue's lines written on another CPU: %.1f ns more per pop",
	    ns->lock_transfer);
out:
	for (int i = 0; i < inited; i++)
		inject_destroy(&q[i]);
	free(lb);
	free(q);
	free(t);
	free(xfer);
	return rc;
}

/* ---- the global queue's lock handed to a spinning waiter: lock_wait ---- */

/* How long the holder keeps the lock once the waiter is on its way to it:
 * long enough for the waiter to be spinning on the word, well inside its
 * HLOCK_SPIN pauses (a microsecond or more here). */
#define HANDOFF_HOLD_NS 300

struct handoff_time {
	CACHE_ALIGNED uint64_t ns;
};

struct handoff_bench {
	CACHE_ALIGNED _Atomic uint32_t held;	/* holder -> waiter: round r, it holds the lock */
	CACHE_ALIGNED _Atomic uint32_t coming;	/* waiter -> holder: round r, it goes for the lock */
	CACHE_ALIGNED _Atomic uint32_t done;	/* waiter -> holder: round r measured */
	/* [rounds]: the holder's clock just before its release, a line per
	 * round, written once ahead of the rounds, so that the store before
	 * the release hits (a line the waiter had read would have to come
	 * back first, and the release waits for the store). */
	struct handoff_time *released;
	struct inject *q;
	struct cal *c;
	double *gap;				/* [rounds]: release to the waiter holding, ns */
	uint32_t rounds;
	int cpu;
	bool pinned;
};

/* The waiter: each round, once the holder has the lock, go for it (the
 * CAS fails and hlock_lock_slow spins on the word), and note how long
 * after the holder's release it got it. */
static void *handoff_waiter_main(void *arg)
{
	struct handoff_bench *hb = arg;
	hb->pinned = hb->cpu < 0 || pin(hb->cpu) == 0;
	for (uint32_t r = 1; r <= hb->rounds; r++) {
		uint32_t spins = 0;
		/* Acquire pairs with the holder's release: it holds the lock. */
		while (atomic_load_explicit(&hb->held, memory_order_acquire) != r)
			relax(&spins);
		/* Relaxed: a signal that publishes nothing; the holder only
		 * starts its hold's last stretch on it. */
		atomic_store_explicit(&hb->coming, r, memory_order_relaxed);
		inject_lock(hb->q);
		uint64_t t = now_fenced(hb->c);
		/* The round's `released` was written before the holder's
		 * unlock, whose release our lock's acquire pairs with. A
		 * lock taken by the contended path (the word swapped to 2,
		 * and perhaps a sleep in the kernel: the spin ran out before
		 * the release) was a futex wake, not a handoff: NAN. Nobody
		 * else goes for the lock, so the word says which path. */
		hb->gap[r - 1] = hlock_marked(&hb->q->lock)
					 ? NAN
					 : (double)(int64_t)(t - hb->released[r - 1].ns) -
						   hb->c->clock_ns;
		inject_unlock(hb->q);
		/* Release: the gap before the holder reads it. */
		atomic_store_explicit(&hb->done, r, memory_order_release);
	}
	return NULL;
}

/*
 * lock_wait: the time from a holder's release of the global queue's lock
 * to a waiter on the other CPU, spinning on its word, holding it; nobody
 * holds the lock meanwhile. The release's exchange takes the word's line
 * from the waiter's cache, the waiter's next read brings it back, and its
 * CAS takes it exclusive. A round in which the waiter's spin ran out and
 * it took the contended path (it finds the word at 2 once it holds it)
 * is a futex wake, not a handoff, and is left out; a pass in which that
 * was most rounds (a CPU whose 100 pauses are shorter than the hold) gives
 * no figure (NAN), and a calibration with no figure keeps the default.
 * The interval holds the holder's exchange and the waiter's CAS as well,
 * which an uncontended hold (global_lock) has too, on lines already here.
 */
int bench_handoff(struct cal *c, struct calibrate_ns *ns, int cpu_holder, int cpu_waiter)
{
	uint32_t n = c->reps * EVENTS_PER_REP, kept = 0, slept = 0;
	struct handoff_bench *hb = aligned_alloc(CACHE_LINE, sizeof *hb);
	struct inject *q = aligned_alloc(CACHE_LINE, sizeof *q);
	double *gap = calloc(n, sizeof *gap);
	struct handoff_time *rel = aligned_alloc(CACHE_LINE, n * sizeof *rel);
	int rc = 0;
	if (!hb || !q || !gap || !rel) {
		rc = -ENOMEM;
		goto out_free;
	}
	memset(hb, 0, sizeof *hb);
	inject_init(q);
	atomic_init(&hb->held, 0);
	atomic_init(&hb->coming, 0);
	atomic_init(&hb->done, 0);
	hb->q = q;
	hb->c = c;
	hb->gap = gap;
	hb->released = rel;
	hb->rounds = n;
	hb->cpu = cpu_waiter;

	cpu_set_t old;
	bool pinned;
	pthread_t waiter;
	if ((rc = start_peer(cpu_holder, &old, &pinned, &waiter, handoff_waiter_main, hb)))
		goto out;
	for (uint32_t r = 0; r < n; r++)
		rel[r].ns = 0;			/* the lines into this CPU's cache */
	for (uint32_t r = 1; r <= n; r++) {
		uint32_t spins = 0;
		inject_lock(q);
		/* Release: the lock is held before the waiter goes for it. */
		atomic_store_explicit(&hb->held, r, memory_order_release);
		/* Relaxed: orders nothing; the waiter's signal publishes
		 * nothing. */
		while (atomic_load_explicit(&hb->coming, memory_order_relaxed) != r)
			relax(&spins);
		uint64_t t0 = now(c);
		while (now(c) - t0 < HANDOFF_HOLD_NS)
			__builtin_ia32_pause();
		rel[r - 1].ns = now_fenced(c);
		inject_unlock(q);
		spins = 0;
		/* Acquire pairs with the waiter's release: its gap is written. */
		while (atomic_load_explicit(&hb->done, memory_order_acquire) != r)
			relax(&spins);
		if (isnan(gap[r - 1]))
			slept++;
		else
			gap[kept++] = fmax(gap[r - 1], 0);
	}
	end_peer(waiter, &old);
	c->pinned = c->pinned && pinned && hb->pinned;
	/* Fewer than half the rounds handed over: the waiter's spin is
	 * shorter than the hold here, and the figure is not this pass's. */
	ns->lock_wait = kept * 2 >= n ? median(gap, kept) : NAN;
	if (isnan(ns->lock_wait))
		say(c, "global queue's lock handed to a spinning waiter on another CPU: no figure, "
		    "the waiter slept in %u of %u rounds", slept, n);
	else
		say(c, "global queue's lock handed to a spinning waiter on another CPU: %.1f ns%s",
		    ns->lock_wait, slept ? " (rounds whose waiter slept left out)" : "");
out:
	inject_destroy(q);
out_free:
	free(hb);
	free(q);
	free(gap);
	free(rel);
	return rc;
}
