/*
 * go.c - the Go runtime scheduler (docs/policies.md; golang/go
 * src/runtime/proc.go: findRunnable, runqput, runqget, runqgrab, stealWork,
 * globrunqgetbatch, wakep, resetspinning). A worker is a P with its M.
 *
 * find_work is findRunnable:
 *   1. if schedtick % 61 == 0 and the global queue is not empty, one task
 *      from it (fairness: a pair respawning each other cannot hold the
 *      local queue forever);
 *   2. runnext, whose task inherits the current time slice and does not
 *      advance schedtick; then the local ring (256, FIFO);
 *   3. a global batch of min(len / workers + 1, 128, len), the first run,
 *      the rest into the ring;
 *   4. spin (steal) if already spinning or 2 * nmspinning < workers -
 *      npidle (at most half of the busy workers spin): 4 passes over all
 *      workers in a random coprime order, stealing half of a victim's ring;
 *      on the last pass a victim with an empty ring loses its runnext, after
 *      a 3 us pause that gives it the chance to run it itself.
 * Every task but one taken from the own runnext advances schedtick.
 *
 * runnext is an atomic pointer in thief-visible, line-aligned per-worker
 * state (struct go_shared): the owner swaps it, thieves CAS it to NULL.
 * A spawn or wake puts the new task there and moves the one it displaces to
 * the tail of the ring (runqput(next=true)), then calls wakep. A task woken
 * during its own poll (SCHED_YIELD) is a Gosched: the global queue, then
 * wakep (goschedImpl; yield_global=0: the ring's tail, runqput(next=false)).
 *
 * Spinning and parking. wakep starts a spinning worker only if none spins
 * (CAS nmspinning 0 -> 1), taking the most recently idled worker off the
 * idle list (a stack, as sched.pidle is); with no idle worker it sets
 * needspinning, and the next worker about to idle spins instead. A spinner
 * that finds work stops spinning and calls wakep (resetspinning), so the
 * last spinner to find work wakes another. A worker with nothing to do
 * takes the global queue once more under sched.lock, goes on the idle list,
 * and if it was spinning, drops nmspinning and re-checks every queue; then
 * it parks with no timeout. sched.lock is the global queue's mutex
 * (rt->inject.lock), as in Go, where sched.lock guards both the global run
 * queue and the idle lists.
 *
 * Time slices. Go relies on sysmon to preempt a goroutine, or a chain of
 * runnext goroutines sharing one slice, after 10 ms (forcePreemptNS); the
 * preempted goroutine goes to the global queue. Here the step plays
 * sysmon: tick_end charges the step's time to the slice while schedtick
 * stands still, and once the slice is spent the next runnext task goes to
 * the global queue instead of inheriting it. Without this a runnext
 * ping-pong would hold a worker forever.
 *
 * Departures: the local queue is the core ring, which a thief holds busy
 * while it copies; a second thief waits for it (steal_from) where Go's
 * runqgrab, whose thieves copy before their CAS, retries at once. No GC
 * work is modelled, and a single poll is never preempted (harness tasks
 * cannot be stopped inside a poll; sysmon's forcePreemptNS ends only
 * runnext chains here).
 *
 * Timers are per worker (per P): a task's timer goes to the heap of the
 * worker polling it (rt_sleep_on); findRunnable checks the own heap first
 * thing (checkTimers), stealWork's last pass runs victims' expired timers
 * (stealTimersOrRunNextG), and one parked worker holds the netpoller role
 * (rt->timekeeper), sleeping no longer than the next event of any heap.
 * The I/O source is polled by every worker at every tick with zero
 * timeout (the core's default; Go polls the network in findRunnable
 * before stealing, and in sysmon).
 */
#include "policies/go.h"
#include "core/worker_loop.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct knob_def go_knobs[GO_NKNOBS] = {
	[GO_INTERVAL] = { "interval", 61, 1, 1e9, true,
			  "schedticks between looks at the global queue first" },
	[GO_BATCH_MAX] = { "batch_max", 128, 1, 256, true,
			   "largest global batch (half the local queue)" },
	[GO_RUNNEXT] = { "runnext", 1, 0, 1, true,
			 "1: spawned and woken tasks take the runnext slot; 0: the ring's tail" },
	[GO_STEAL_PASSES] = { "steal_passes", 4, 1, 1000, true,
			      "passes over all workers per search; runnext is stolen on the last" },
	[GO_STEAL_MAX] = { "steal_max", 128, 0, 128, true,
			   "most tasks one steal moves (half, capped); 0 = no stealing" },
	[GO_RUNNEXT_PAUSE_NS] = { "runnext_pause_ns", 3000, 0, 1e9, true,
				  "pause before stealing a busy victim's runnext" },
	[GO_SPIN_CAP] = { "spin_cap", 0.5, 0.001, 1, false,
			  "spin only while spinning < spin_cap * busy workers (soft)" },
	[GO_IDLE_PRECHECK] = { "idle_precheck", 0, 0, 1, true,
			       "1: wakep returns at once when no worker is idle (Go 1.20 and earlier)" },
	[GO_TIME_SLICE_NS] = { "time_slice_ns", 1e7, 0, 1e11, true,
			       "time slice a runnext chain shares before preemption; 0 = never" },
	[GO_BUDGET] = { "budget", 128, 1, 65536, true,
			"polls per core step (the modeled sysmon looks between steps)" },
	[GO_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,
				 "park timeout; 0 = none (park until woken)" },
	[GO_YIELD_GLOBAL] = { "yield_global", 1, 0, 1, true,
			      "1: a yielding task goes to the global queue (Gosched, goschedImpl); "
			      "0: the ring's tail" },
};

#define CAP_DEN 1000u

/* Thief-visible, one line per worker. */
struct go_shared {
	CACHE_ALIGNED _Atomic(struct task *) runnext;
	/* idlepMask: the worker is on the idle list (its queues are empty).
	 * Written under sched.lock, read by thieves as a hint. */
	_Atomic bool idle;
};
_Static_assert(sizeof(struct go_shared) == CACHE_LINE, "one line per worker");

/* Owner-private, one line per worker. */
struct go_worker {
	CACHE_ALIGNED struct go_shared *gs;
	uint32_t schedtick;
	uint32_t tick_mod;		/* schedtick % interval */
	uint32_t interval;
	uint32_t step_tick;		/* schedtick when the step began */
	bool runnext_on;
	bool yield_global;
	bool preempt;			/* the slice is spent */
	uint64_t slice_used_ns;
	uint64_t preempts;
	uint64_t steal_waits;		/* looks at a victim another thief held */
	bool keeper;			/* parked holding the netpoller role */
};
_Static_assert(sizeof(struct go_worker) == CACHE_LINE, "one line per worker");

struct go_sched {
	uint32_t interval, batch_max, passes, steal_max, budget, cap_num;
	bool runnext_on, idle_precheck;
	uint64_t pause_ns, time_slice_ns, park_ns;
	struct go_order order;
	struct go_shared *gs;		/* [nworkers] */
	struct go_worker *gw;		/* [nworkers] */
	/* Read by every wakep, written by spinners: one line. */
	CACHE_ALIGNED _Atomic uint32_t nmspinning;
	_Atomic uint32_t npidle;	/* written under sched.lock */
	_Atomic uint32_t needspinning;
	/* Under sched.lock (rt->inject.lock). */
	CACHE_ALIGNED uint32_t *pidle;	/* idle workers, bottom of the stack first */
	uint32_t npidle_list;
	bool *in_pidle;			/* [id] */
	bool *wake_spinning;		/* [id]: claimed to spin (wakep), or not */
};

uint32_t go_gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int go_order_init(struct go_order *o, uint32_t count)
{
	CHECK(count >= 1);
	o->count = count;
	o->ncoprimes = 0;
	o->coprimes = malloc(count * sizeof *o->coprimes);
	if (!o->coprimes)
		return -ENOMEM;
	for (uint32_t x = 1; x <= count; x++)
		if (go_gcd(x, count) == 1)
			o->coprimes[o->ncoprimes++] = x;
	return 0;
}

void go_order_destroy(struct go_order *o)
{
	free(o->coprimes);
	o->coprimes = NULL;
}

uint32_t go_batch_size(uint64_t len, uint32_t workers, uint32_t max)
{
	uint64_t n = len / workers + 1;
	if (n > max)
		n = max;
	if (n > len)
		n = len;
	return (uint32_t)n;
}

static inline struct go_sched *G(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct go_worker *GW(const struct worker *w)
{
	return w->pstate;
}

uint32_t go_worker_schedtick(const struct worker *w) { return GW(w)->schedtick; }
uint64_t go_worker_preempts(const struct worker *w) { return GW(w)->preempts; }
uint64_t go_worker_steal_waits(const struct worker *w) { return GW(w)->steal_waits; }

struct task *go_runnext(struct runtime *rt, uint32_t i)
{
	return atomic_load(&G(rt)->gs[i].runnext);
}

uint32_t go_num_spinning(struct runtime *rt) { return atomic_load(&G(rt)->nmspinning); }
uint32_t go_num_idle(struct runtime *rt) { return atomic_load(&G(rt)->npidle); }

static void go_free(struct go_sched *g)
{
	go_order_destroy(&g->order);
	free(g->gs);
	free(g->gw);
	free(g->pidle);
	free(g->in_pidle);
	free(g->wake_spinning);
	free(g);
}

static int go_init(struct runtime *rt)
{
	uint32_t n = rt->nworkers;
	size_t size = (sizeof(struct go_sched) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	struct go_sched *g = aligned_alloc(CACHE_LINE, size);
	if (!g)
		return -ENOMEM;
	memset(g, 0, size);
	const double *k = rt->knobs;
	g->interval = (uint32_t)k[GO_INTERVAL];
	g->batch_max = (uint32_t)k[GO_BATCH_MAX];
	g->runnext_on = k[GO_RUNNEXT] != 0;
	g->passes = (uint32_t)k[GO_STEAL_PASSES];
	g->steal_max = (uint32_t)k[GO_STEAL_MAX];
	g->pause_ns = (uint64_t)k[GO_RUNNEXT_PAUSE_NS];
	g->cap_num = (uint32_t)lround(k[GO_SPIN_CAP] * CAP_DEN);
	g->idle_precheck = k[GO_IDLE_PRECHECK] != 0;
	g->time_slice_ns = (uint64_t)k[GO_TIME_SLICE_NS];
	g->budget = (uint32_t)k[GO_BUDGET];
	g->park_ns = k[GO_PARK_TIMEOUT_NS] == 0 ? PARK_FOREVER : (uint64_t)k[GO_PARK_TIMEOUT_NS];
	atomic_init(&g->nmspinning, 0);
	atomic_init(&g->npidle, 0);
	atomic_init(&g->needspinning, 0);

	g->gs = aligned_alloc(CACHE_LINE, n * sizeof(struct go_shared));
	g->gw = aligned_alloc(CACHE_LINE, n * sizeof(struct go_worker));
	g->pidle = calloc(n, sizeof *g->pidle);
	g->in_pidle = calloc(n, sizeof *g->in_pidle);
	g->wake_spinning = calloc(n, sizeof *g->wake_spinning);
	if (go_order_init(&g->order, n) != 0 || !g->gs || !g->gw || !g->pidle || !g->in_pidle ||
	    !g->wake_spinning) {
		go_free(g);
		return -ENOMEM;
	}
	memset(g->gw, 0, n * sizeof(struct go_worker));
	for (uint32_t i = 0; i < n; i++) {
		atomic_init(&g->gs[i].runnext, NULL);
		atomic_init(&g->gs[i].idle, false);
		struct go_worker *gw = &g->gw[i];
		gw->gs = &g->gs[i];
		gw->interval = g->interval;
		gw->runnext_on = g->runnext_on;
		gw->yield_global = k[GO_YIELD_GLOBAL] != 0;
		rt->workers[i].pstate = gw;
	}
	rt->pstate = g;
	/* The netpoller role (go_park): nobody holds it yet. */
	atomic_store_explicit(&rt->timekeeper, -1, memory_order_relaxed);
	return 0;
}

static void go_destroy(struct runtime *rt)
{
	if (!rt->pstate)
		return;
	go_free(G(rt));
	rt->pstate = NULL;
}

/* A task that does not inherit the slice starts a new one: schedtick + 1
 * (execute(gp, inheritTime=false)). tick_mod follows schedtick % interval
 * without a division, including across the u32 wrap (0 % n == 0). */
static inline void advance(struct go_worker *gw)
{
	gw->schedtick++;
	if (++gw->tick_mod == gw->interval || gw->schedtick == 0)
		gw->tick_mod = 0;
	gw->preempt = false;
}

/* ---- the idle list (under sched.lock) ---- */

static void pidleput(struct go_sched *g, uint32_t id)
{
	CHECK(!g->in_pidle[id]);
	g->pidle[g->npidle_list++] = id;
	g->in_pidle[id] = true;
	/* Relaxed: both are read outside the lock only as hints (the spin
	 * cap, wakep's pre-check, a thief skipping an idle victim). */
	atomic_store_explicit(&g->gs[id].idle, true, memory_order_relaxed);
	atomic_fetch_add_explicit(&g->npidle, 1, memory_order_relaxed);
}

static void pidle_unlist(struct go_sched *g, uint32_t id)
{
	g->in_pidle[id] = false;
	atomic_store_explicit(&g->gs[id].idle, false, memory_order_relaxed);
	atomic_fetch_sub_explicit(&g->npidle, 1, memory_order_relaxed);
}

/* pidleget: the most recently idled worker, or -1. */
static int pidleget(struct go_sched *g)
{
	if (g->npidle_list == 0)
		return -1;
	uint32_t id = g->pidle[--g->npidle_list];
	pidle_unlist(g, id);
	return (int)id;
}

/* Take `id` off the list wherever it is; false if it is not on it. */
static bool pidle_remove(struct go_sched *g, uint32_t id)
{
	if (!g->in_pidle[id])
		return false;
	uint32_t i = 0;
	while (g->pidle[i] != id)
		i++;
	memmove(g->pidle + i, g->pidle + i + 1, (g->npidle_list - i - 1) * sizeof *g->pidle);
	g->npidle_list--;
	pidle_unlist(g, id);
	return true;
}

/*
 * wakep: start one more spinning worker if none spins. Returns true if a
 * worker was woken.
 *
 * The lost-wakeup argument. A publisher makes a task visible, then reads
 * nmspinning here; a spinner about to idle decrements nmspinning, then
 * re-reads every queue (go_park). Either the spinner sees the task or the
 * publisher sees the decrement:
 *   - runnext: the owner's exchange, the owner's and thieves' CAS, the
 *     spinners' re-check loads, and both sides' nmspinning accesses are
 *     seq_cst, so their single total order forbids both missing. A spinner
 *     that reads NULL written by the owner taking the task synchronizes with
 *     that CAS and sees the ring push that preceded it.
 *   - a task put only in a ring (SCHED_YIELD, runnext off): a seq_cst fence
 *     after the push (idle_fence_publish) pairs with the spinner's fence
 *     after its decrement (idle_fence_recheck).
 *   - the global queue: pushes and the spinner's re-check both hold
 *     sched.lock, whose order carries the same guarantee.
 */
static bool wakep(struct runtime *rt, struct worker *w)
{
	struct go_sched *g = G(rt);
	if (g->idle_precheck && atomic_load_explicit(&g->npidle, memory_order_relaxed) == 0)
		return false;
	uint32_t zero = 0;
	if (atomic_load_explicit(&g->nmspinning, memory_order_seq_cst) != 0 ||
	    !atomic_compare_exchange_strong_explicit(&g->nmspinning, &zero, 1, memory_order_seq_cst,
						     memory_order_seq_cst))
		return false;
	inject_lock(&rt->inject);
	int id = pidleget(g);
	if (id < 0) {
		/* pidlegetSpinning: no idle worker to take the work; the next
		 * worker about to idle spins instead. */
		atomic_fetch_sub_explicit(&g->nmspinning, 1, memory_order_seq_cst);
		atomic_store_explicit(&g->needspinning, 1, memory_order_relaxed);
		inject_unlock(&rt->inject);
		return false;
	}
	g->wake_spinning[id] = true;	/* it counts in nmspinning already */
	inject_unlock(&rt->inject);
	rt_idle_unpark(rt, w, id);
	return true;
}

static void become_spinning(struct worker *w, struct go_sched *g)
{
	w->searching = true;
	w->st.searcher_enter++;
	atomic_fetch_add_explicit(&g->nmspinning, 1, memory_order_seq_cst);
	atomic_store_explicit(&g->needspinning, 0, memory_order_relaxed);
}

/* resetspinning: the spinner found work; if it was the last, wake another. */
static void reset_spinning(struct worker *w)
{
	struct go_sched *g = G(w->rt);
	w->searching = false;
	uint32_t prev = atomic_fetch_sub_explicit(&g->nmspinning, 1, memory_order_seq_cst);
	CHECK(prev >= 1);
	if (wakep(w->rt, w))
		w->st.last_searcher_notifies++;
}

/* ---- queues ---- */

static void go_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	struct go_worker *gw = GW(w);
	if (__builtin_expect(kind == SCHED_YIELD, 0) && gw->yield_global) {
		/* Gosched (proc.go goschedImpl): globrunqput, then wakep. */
		inject_push(&w->rt->inject, t);
		idle_fence_publish();
		wakep(w->rt, w);
		return;
	}
	if (__builtin_expect(kind != SCHED_YIELD && gw->runnext_on, 1)) {
		/* runqput(next=true). Only this worker stores a non-NULL
		 * runnext; thieves only take it, so one exchange does Go's
		 * CAS loop. Release publishes t to a thief's CAS; seq_cst for
		 * the argument above wakep. */
		struct task *old = atomic_exchange_explicit(&gw->gs->runnext, t,
							    memory_order_seq_cst);
		if (old)
			rt_push_local(w, old);
	} else {
		rt_push_local(w, t);
		idle_fence_publish();
	}
	wakep(w->rt, w);
}

/* injectglist without a P: the global queue, then start an idle worker
 * (not spinning) if there is one. */
static void go_schedule_remote(struct runtime *rt, struct task *t)
{
	struct go_sched *g = G(rt);
	inject_push(&rt->inject, t);
	inject_lock(&rt->inject);
	int id = pidleget(g);
	if (id < 0) {
		atomic_store_explicit(&g->needspinning, 1, memory_order_relaxed);
		inject_unlock(&rt->inject);
		return;
	}
	g->wake_spinning[id] = false;
	inject_unlock(&rt->inject);
	rt_idle_unpark(rt, NULL, id);
}

/* runqget's first half: the own runnext, inheriting the slice. */
static inline struct task *take_runnext(struct worker *w, struct go_worker *gw)
{
	/* Relaxed look first: only this worker makes the slot non-NULL, so
	 * NULL here is exact and a task may at most have been stolen since. */
	struct task *t = atomic_load_explicit(&gw->gs->runnext, memory_order_relaxed);
	if (!t)
		return NULL;
	/* Races with a thief's CAS on its last pass; losing means the task
	 * was stolen, and Go does not retry. seq_cst: see above wakep. */
	if (!atomic_compare_exchange_strong_explicit(&gw->gs->runnext, &t, NULL,
						     memory_order_seq_cst, memory_order_relaxed))
		return NULL;
	task_prefetch_cont(t);
	w->st.runnext_polls++;
	return t;
}

/* globrunqget: one task from the global queue. */
static struct task *global_one(struct worker *w)
{
	struct task *t;
	if (inject_len(&w->rt->inject) == 0 || inject_pop_batch(&w->rt->inject, &t, 1) == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks++;
	return t;
}

/* globrunqgetbatch: the first task is run, the rest go to the ring. */
static struct task *global_batch(struct worker *w)
{
	struct runtime *rt = w->rt;
	uint64_t len = inject_len(&rt->inject);
	if (len == 0)
		return NULL;
	uint32_t n = go_batch_size(len, rt->nworkers, G(rt)->batch_max);
	uint32_t room = ring_free(&w->sh->ring) + 1;
	if (n > room)
		n = room;
	struct task *buf[RING_CAP + 1];
	uint32_t got = (uint32_t)inject_pop_batch(&rt->inject, buf, n);
	if (got == 0)
		return NULL;
	for (uint32_t i = 0; i < got; i++)
		__builtin_prefetch(buf[i], 1);
	w->st.global_batches++;
	w->st.global_tasks += got;
	ring_push_batch(&w->sh->ring, buf + 1, got - 1);
	w->st.local_pushes += got - 1;
	return buf[0];
}

static inline struct task *ring_take(struct worker *w)
{
	struct task *t = ring_pop(&w->sh->ring);
	if (t)
		w->st.local_pops++;
	return t;
}

/*
 * runqsteal: half of v's ring; on the last pass, v's runnext if its ring is
 * empty. runqgrab never gives up on a victim whose queue changed under it:
 * a CAS lost to another thief is retried at once, on the half of what that
 * thief left. The core ring holds a victim busy while one thief copies
 * (STEAL_BUSY), so the thief here waits for that copy to end, then takes
 * half of the rest; it does not pass on to the next victim. (In the sim
 * engine a steal begins and ends inside one step: no thief is ever seen
 * busy, and the wait never spins.)
 */
static struct task *steal_from(struct worker *w, uint32_t v, bool runnext_too)
{
	struct runtime *rt = w->rt;
	struct go_sched *g = G(rt);
	struct go_shared *vs = &g->gs[v];
	for (;;) {
		struct task *t;
		enum steal_outcome why;
		uint32_t k;
		w->st.steal_attempts++;
		/* runqgrab's `continue` after a failed CasRel. */
		while (!(k = ring_steal_into(&rt->shared[v].ring, &w->sh->ring, g->steal_max, &t,
					     &why)) &&
		       why == STEAL_BUSY)
			GW(w)->steal_waits++;
		if (k) {
			w->st.steals++;
			w->st.tasks_stolen += k;
			return t;
		}
		if (!runnext_too || why != STEAL_EMPTY)
			return NULL;
		t = atomic_load_explicit(&vs->runnext, memory_order_relaxed);
		if (!t)
			return NULL;
		/* runqgrab: a running victim may be about to run the task it
		 * just readied; back off before taking it. */
		if (g->pause_ns && !atomic_load_explicit(&vs->idle, memory_order_relaxed))
			rt_compute(w, g->pause_ns);
		/* Races with the owner's take and exchange. Acquire pairs with
		 * the owner's exchange that published t. */
		if (atomic_compare_exchange_strong_explicit(&vs->runnext, &t, NULL,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			w->st.steals++;
			w->st.tasks_stolen++;
			return t;
		}
		/* The slot changed under us: look at the ring again
		 * (runqgrab's `continue` after a failed runnext CAS). */
	}
}

/*
 * proc.go checkTimers(pp, now): run the expired timers of worker `owner`'s
 * heap (the own P's at findRunnable's top; a victim's on stealWork's last
 * pass), their tasks readied onto w (ready -> runqput(next=true): w's
 * runnext). The clock is read only when the heap holds a timer, as
 * checkTimers reads nanotime only when a timer is set.
 */
static inline size_t check_timers(struct worker *w, uint32_t owner)
{
	struct runtime *rt = w->rt;
	uint64_t next = timers_next(&rt->wtimers[owner]);
	if (__builtin_expect(next == TIMER_NONE, 1))
		return 0;
	uint64_t now = rt_now(rt, w);
	return next <= now ? rt_poll_timers_of(w, owner, now) : 0;
}

/* stealWork: `passes` passes over every worker in a random coprime order;
 * idle workers (empty queues) are skipped; runnext on the last pass. */
static struct task *steal_work(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct go_sched *g = G(rt);
	for (uint32_t pass = 0; pass < g->passes; pass++) {
		bool last = pass + 1 == g->passes;
		for (struct go_enum e = go_enum_start(&g->order, rng_next(&w->rng)); !go_enum_done(&e);
		     go_enum_next(&e)) {
			uint32_t v = e.pos;
			if (v == w->index)
				continue;
			/* stealTimersOrRunNextG: on the last pass the victim's
			 * expired timers run first, idle victims' included;
			 * what they readied is in w's own queues (runqget). */
			if (last && check_timers(w, v)) {
				struct task *t = take_runnext(w, GW(w));
				if (t || (t = ring_take(w)))
					return t;
			}
			if (g->steal_max == 0 ||
			    atomic_load_explicit(&g->gs[v].idle, memory_order_relaxed))
				continue;
			struct task *t = steal_from(w, v, last && g->runnext_on);
			if (t)
				return t;
		}
	}
	return NULL;
}

/* The modeled sysmon ended the slice: the next runnext task goes to the
 * global queue instead of inheriting it (the chain is preempted). */
static __attribute__((noinline)) void preempt_runnext(struct worker *w, struct go_worker *gw)
{
	gw->preempt = false;
	gw->slice_used_ns = 0;
	struct task *t = atomic_load_explicit(&gw->gs->runnext, memory_order_relaxed);
	if (!t || !atomic_compare_exchange_strong_explicit(&gw->gs->runnext, &t, NULL,
							   memory_order_seq_cst,
							   memory_order_relaxed))
		return;
	gw->preempts++;
	inject_push(&w->rt->inject, t);
	wakep(w->rt, w);
}

static inline bool may_spin(struct runtime *rt, struct go_sched *g)
{
	/* 2 * nmspinning < gomaxprocs - npidle, soft (relaxed loads). */
	uint32_t spinning = atomic_load_explicit(&g->nmspinning, memory_order_relaxed);
	uint32_t idle = atomic_load_explicit(&g->npidle, memory_order_relaxed);
	uint32_t busy = rt->nworkers > idle ? rt->nworkers - idle : 0;
	return (uint64_t)spinning * CAP_DEN < (uint64_t)busy * g->cap_num;
}

static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	struct runtime *rt = w->rt;
	struct go_sched *g = G(rt);
	struct go_worker *gw = GW(w);
	struct task *t;

	if (gw->tick_mod == 0) {
		w->st.interval_checks++;
		if ((t = global_one(w)))
			goto found_tick;
	}
	if (gw->preempt)
		preempt_runnext(w, gw);
	if ((t = take_runnext(w, gw)))
		goto found_inherit;
	if ((t = ring_take(w)) || (t = global_batch(w)))
		goto found_tick;
	if (w->searching || may_spin(rt, g)) {
		if (!w->searching)
			become_spinning(w, g);
		if ((t = steal_work(w)))
			goto found_tick;
	}
	return NULL;
found_tick:
	advance(gw);
found_inherit:
	if (w->searching)
		reset_spinning(w);
	return t;
}

static inline __attribute__((always_inline)) struct task *go_find_work(struct worker *w)
{
	struct go_worker *gw = GW(w);
	/* findRunnable's top: checkTimers on the own P. */
	check_timers(w, w->index);
	/* Fast path: not the global queue's turn, not spinning, the slice
	 * not spent; runnext, then the ring. */
	if (__builtin_expect(gw->tick_mod != 0 && !w->searching && !gw->preempt, 1)) {
		struct task *t = take_runnext(w, gw);
		if (t)
			return t;
		t = ring_pop(&w->sh->ring);
		if (t) {
			w->st.local_pops++;
			advance(gw);
			return t;
		}
	}
	return find_work_slow(w);
}

/* The modeled sysmon: a step in which schedtick stood still was spent in
 * one slice; a slice longer than time_slice_ns gets preempted. */
static void go_tick_end(struct worker *w, uint32_t polls, uint64_t elapsed_ns)
{
	struct go_sched *g = G(w->rt);
	struct go_worker *gw = GW(w);
	if (g->time_slice_ns == 0 || polls == 0)
		return;
	if (gw->schedtick != gw->step_tick) {
		gw->slice_used_ns = 0;
		return;
	}
	gw->slice_used_ns += elapsed_ns;
	if (gw->slice_used_ns >= g->time_slice_ns)
		gw->preempt = true;
}

/* Any queue with work, for a spinner about to idle. The global queue is
 * read under sched.lock (see above wakep). */
static bool work_anywhere(struct runtime *rt)
{
	struct go_sched *g = G(rt);
	inject_lock(&rt->inject);
	bool any = inject_len(&rt->inject) != 0;
	inject_unlock(&rt->inject);
	for (uint32_t i = 0; i < rt->nworkers && !any; i++)
		any = !ring_is_empty(&rt->shared[i].ring) ||
		      atomic_load_explicit(&g->gs[i].runnext, memory_order_seq_cst) != NULL;
	return any;
}

static bool go_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct go_sched *g = G(rt);

	/* Return the P: under sched.lock, the global queue once more (its
	 * length is exact under the lock), the needspinning handshake, then
	 * onto the idle list. */
	inject_lock(&rt->inject);
	if (inject_len(&rt->inject) != 0) {
		inject_unlock(&rt->inject);
		return false;
	}
	if (!w->searching && atomic_load_explicit(&g->needspinning, memory_order_relaxed)) {
		inject_unlock(&rt->inject);
		become_spinning(w, g);
		return false;
	}
	/* pidleput: an idle worker holds no tasks (thieves skip it). */
	CHECK(ring_is_empty(&w->sh->ring) &&
	      atomic_load_explicit(&GW(w)->gs->runnext, memory_order_relaxed) == NULL);
	pidleput(g, w->index);
	inject_unlock(&rt->inject);

	if (w->searching) {
		/* The delicate dance: drop nmspinning first, then look at every
		 * queue again (the spinner side of the argument above wakep). */
		w->searching = false;
		uint32_t prev = atomic_fetch_sub_explicit(&g->nmspinning, 1, memory_order_seq_cst);
		CHECK(prev >= 1);
		idle_fence_recheck();
		if (work_anywhere(rt)) {
			inject_lock(&rt->inject);
			bool mine = pidle_remove(g, w->index);
			inject_unlock(&rt->inject);
			if (mine) {
				become_spinning(w, g);
				return false;
			}
			/* A waker took us off the list meanwhile: its unpark
			 * is on the way, and ends this park at once. */
		}
	}
	*timeout_ns = g->park_ns;
	/*
	 * findRunnable's blocking netpoll: one idle M at a time
	 * (sched.lastpoll.Swap(0)) sleeps until the earliest timer of any P
	 * (pollUntil) or the next I/O event; it is woken early by a timer
	 * added before that (wakeNetPoller). Taking the role, then a fence,
	 * then reading the next event pairs with rt_sleep_on's add, fence,
	 * read of the keeper.
	 */
	int32_t none = -1;
	if (atomic_compare_exchange_strong_explicit(&rt->timekeeper, &none, (int32_t)w->index,
						    memory_order_relaxed, memory_order_relaxed)) {
		GW(w)->keeper = true;
		idle_fence_recheck();
		rt_cap_to_next_event(w, timeout_ns);
	}
	return true;
}

/* Every tick: the I/O source with zero timeout, on every worker (the
 * core's default, kept: Go's non-blocking netpoll in findRunnable and
 * sysmon's, docs/policies.md). Timers are go's own (check_timers). */
static uint32_t go_tick_begin_io(struct worker *w)
{
	/* Timers set from outside any worker (rt_sleep_until: the shared
	 * heap, which go's workloads do not use) and the I/O source. */
	rt_poll_timers(w);
	rt_poll_io(w);
	GW(w)->step_tick = GW(w)->schedtick;
	return G(w->rt)->budget;
}

static void go_unparked(struct worker *w, enum park_wake how)
{
	struct runtime *rt = w->rt;
	struct go_sched *g = G(rt);
	if (GW(w)->keeper) {
		/* Back from the blocking netpoll: give the role back (relaxed:
		 * a waker that misses it wakes a worker already up). */
		GW(w)->keeper = false;
		atomic_store_explicit(&rt->timekeeper, -1, memory_order_relaxed);
	}
	inject_lock(&rt->inject);
	bool listed = pidle_remove(g, w->index);
	bool spinning = !listed && g->wake_spinning[w->index];
	inject_unlock(&rt->inject);
	if (!listed) {
		/* Taken off the idle list by wakep (spinning, and counted in
		 * nmspinning by it) or by a remote spawn (not spinning). */
		w->searching = spinning;
		w->st.unparks_notify++;
	} else if (how == PARK_TIMEOUT) {
		w->st.unparks_timeout++;
	} else {
		w->st.unparks_spurious++;
	}
}

/* The stall report's counts: spinners search, idle-list workers sleep,
 * runnext slots hold tasks the ring counts do not see. */
static void go_idle_state(struct runtime *rt, struct policy_idle *out)
{
	struct go_sched *g = G(rt);
	out->searching = atomic_load(&g->nmspinning);
	out->sleeping = atomic_load(&g->npidle);
	out->queued = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		out->queued += atomic_load(&g->gs[i].runnext) != NULL;
}

/*
 * --explore (between two sim steps). A remote schedule takes an idle
 * worker off the list without counting it as spinning, so a queued task
 * with sleepers and no spinner is not by itself a lost wake: the worker
 * taken off the list is on its way. What must never be seen is a task in
 * the global queue while every worker is on the idle list.
 */
static const char *go_check_idle(struct runtime *rt)
{
	static char why[160];
	struct go_sched *g = G(rt);
	size_t global = inject_len(&rt->inject);
	uint32_t idle = atomic_load(&g->npidle);
	if (global && idle == rt->nworkers) {
		snprintf(why, sizeof why,
			 "%zu tasks in the global queue while all %u workers are on the idle list "
			 "(a lost wakeup)", global, idle);
		return why;
	}
	return NULL;
}

/* Stall report (workers stopped): the spinning and idle counts, the idle
 * stack, and each worker's runnext and role. */
static void go_dump(struct runtime *rt, FILE *f)
{
	struct go_sched *g = G(rt);
	fprintf(f, "  go: %u spinning, %u idle, needspinning %u; idle stack (bottom first):",
		atomic_load(&g->nmspinning), atomic_load(&g->npidle),
		atomic_load(&g->needspinning));
	for (uint32_t i = 0; i < g->npidle_list; i++)
		fprintf(f, " %u", g->pidle[i]);
	fprintf(f, "%s\n", g->npidle_list ? "" : " empty");
	for (uint32_t i = 0; i < rt->nworkers; i++)
		fprintf(f, "  go worker %u: runnext %s, %s%s, schedtick %u\n", i,
			atomic_load(&g->gs[i].runnext) ? "occupied" : "empty",
			g->in_pidle[i] ? "idle" : "not idle",
			rt->workers[i].searching ? ", spinning" : "", g->gw[i].schedtick);
}

/* The threads engine's tick with go_find_work inlined (policy.h, step). */
static enum step go_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, go_find_work);
}

const struct policy policy_go = {
	.name = "go",
	.peer = "go",
	.summary = "Go runtime (proc.go, Go 1.21 and later): runnext slot (inherits the time "
		   "slice), global queue every 61 schedticks, Gosched to the global queue, 4 "
		   "coprime-order steal passes, spinning threads, idle stack",
	.own_maintenance = true,
	.per_worker_timers = true,
	.knobs = go_knobs,
	.nknobs = GO_NKNOBS,
	.init = go_init,
	.destroy = go_destroy,
	.schedule_local = go_schedule_local,
	.schedule_remote = go_schedule_remote,
	.tick_begin = go_tick_begin_io,
	.find_work = go_find_work,
	.step = go_step,
	.tick_end = go_tick_end,
	.park = go_park,
	.unparked = go_unparked,
	.idle_state = go_idle_state,
	.check_idle = go_check_idle,
	.dump = go_dump,
};
