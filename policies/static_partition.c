/*
 * static_partition.c - every task stays where it is placed: k independent
 * queues (the imbalanced static partition and the queueing theory of docs/sources.md,
 * "k partitioned queues").
 *
 * Tasks from outside the workers (rt_spawn_remote, remote wakes) are dealt
 * to a worker, round-robin or uniformly at random (knob `routing`); with
 * random routing and Poisson arrivals the system is k independent M/M/1
 * queues. Tasks spawned, woken or yielded on a worker stay on that worker
 * (a task woken by a task running on another worker joins the waker's
 * worker: the task header keeps no home a policy could read, and in
 * fork-join the waker is a child on its parent's own worker anyway).
 * Nobody steals, ever: steal_attempts and steals stay 0.
 *
 * Each worker has two queues:
 *   inbox  an MPSC queue for tasks dealt from outside (a core `struct
 *          inject` per worker, in line-aligned policy state), and the
 *          overflow of its own ring: a full ring sheds its older half plus
 *          the new task into its own inbox (one lock acquisition for 129
 *          tasks), never to another worker. Taking from the inbox counts as
 *          global_batches / global_tasks (the inbox is this worker's share
 *          of the global queue).
 *   local  the worker's own children, in the order of knob `order`:
 *          FIFO (default, the queueing-theory discipline): the core local
 *          ring, whose steal side stays unused;
 *          LIFO (depth-first, as fork-join runtimes run their own work): an
 *          owner-private stack that grows as needed, so it needs no atomic
 *          operation and never overflows. FIFO runs a fork-join tree
 *          breadth first, so its queue grows to the width of the tree and
 *          spills into the inbox; LIFO keeps it to the depth.
 * Local work comes first. Every `inbox_interval` polls the worker takes
 * one task from its inbox first, so that a worker whose own tasks keep
 * respawning (yields, long fork-join trees) still serves new arrivals (61,
 * the fixed interval of Go and Tokio up to 1.28; 0 = only when the local
 * queue is empty). A worker whose local queue is empty takes a batch from
 * its inbox in one lock acquisition, oldest first.
 *
 * Park protocol. Each worker has a `sleeping` flag next to its inbox:
 *
 *   remote pusher                       parking worker (local queue empty)
 *   push into inbox i (len store)       sleeping[i] = 1
 *   idle_fence_publish()   (seq_cst)    idle_fence_recheck()   (seq_cst)
 *   read sleeping[i]                    read inbox i's length
 *   -> 1: exchange it to 0; whoever     -> non-empty: exchange it to 0; if
 *      gets the 1 unparks worker i         it was still 1, run another tick
 *
 * The fences make it a Dekker pair: either the pusher sees the flag or the
 * parker sees the task. The exchange decides who owns the wake-up: exactly
 * one of the pushers (which unparks exactly worker i, nobody else), the
 * parker taking its flag back, or the parker's own wake-up after a timeout.
 * Only remote pushes need this: the worker's own pushes happen while it
 * runs. The number of sleeping workers is kept in rt->idle.num_parked for
 * stall reports and tests (incremented by the parker, decremented by
 * whoever clears the flag).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "core/worker_loop.h"

enum sp_knob {
	SP_BUDGET,
	SP_ROUTING,
	SP_INBOX_INTERVAL,
	SP_INBOX_BATCH,
	SP_ORDER,
	SP_PARK_TIMEOUT_NS,
	SP_NKNOBS
};

static const struct knob_def sp_knobs[SP_NKNOBS] = {
	[SP_BUDGET] = { "budget", 128, 1, 65536, true, "task polls per tick" },
	[SP_ROUTING] = { "routing", 0, 0, 1, true,
			 "where remote tasks go: 0 = round-robin, 1 = uniformly at random (seeded by the "
			 "run's seed)" },
	[SP_INBOX_INTERVAL] = { "inbox_interval", 61, 0, 1e9, true,
				"polls between forced inbox checks ahead of local work; 0 = inbox only when "
				"the local queue is empty" },
	[SP_INBOX_BATCH] = { "inbox_batch", 64, 1, 256, true,
			     "most tasks taken from the inbox when the local queue is empty (the first "
			     "runs, the rest join the local queue)" },
	[SP_ORDER] = { "order", 0, 0, 1, true,
		       "a worker's own tasks: 0 = FIFO (the local ring), 1 = LIFO (an owner-private "
		       "stack, depth-first)" },
	[SP_PARK_TIMEOUT_NS] = { "park_timeout_ns", 0, 0, 1e11, true,
				 "longest park before a re-check; 0 = none (only a remote push wakes)" },
};

static const struct knob_enum sp_names[] = {
	{ "routing", (const struct knob_name[]){ { "round-robin", 0 }, { "random", 1 },
						  { NULL, 0 } } },
	{ "order", (const struct knob_name[]){ { "fifo", 0 }, { "lifo", 1 }, { NULL, 0 } } },
	{ NULL, NULL },
};

/* Pusher-visible, one per worker. */
struct sp_inbox {
	struct inject q;			/* line-aligned members */
	CACHE_ALIGNED _Atomic uint32_t sleeping;
};

/* Owner-private, one per worker. */
struct sp_worker {
	CACHE_ALIGNED uint32_t since_inbox;	/* polls since the last inbox check */
	uint32_t interval;			/* UINT32_MAX: never forced */
	uint32_t batch;
	bool lifo;
	uint32_t top, cap;			/* LIFO: stack[0..top), capacity cap */
	struct task **stack;
	struct inject *inbox;
};

_Static_assert(sizeof(struct sp_inbox) % CACHE_LINE == 0, "inbox padded to lines");
_Static_assert(sizeof(struct sp_worker) % CACHE_LINE == 0, "owner state padded to lines");

struct sp {
	uint32_t budget;
	bool random;
	uint64_t park_ns;
	uint64_t stream;		/* random routing: start of the splitmix64 sequence */
	struct sp_inbox *inbox;		/* [nworkers] */
	struct sp_worker *pw;		/* [nworkers] */
	/* Remote spawns taken so far: the round-robin position, or the
	 * index into the random sequence. */
	CACHE_ALIGNED _Atomic uint64_t dealt;
};

static inline struct sp *SP(const struct runtime *rt)
{
	return rt->pstate;
}

static inline struct sp_worker *PW(const struct worker *w)
{
	return w->pstate;
}

static void sp_destroy(struct runtime *rt)
{
	struct sp *s = SP(rt);
	if (!s)
		return;
	if (s->inbox)
		for (uint32_t i = 0; i < rt->nworkers; i++)
			inject_destroy(&s->inbox[i].q);
	if (s->pw)
		for (uint32_t i = 0; i < rt->nworkers; i++)
			free(s->pw[i].stack);
	free(s->inbox);
	free(s->pw);
	free(s);
	rt->pstate = NULL;
}

static int sp_init(struct runtime *rt)
{
	struct sp *s = rt_alloc_lines(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	const double *k = rt->knobs;
	uint32_t n = rt->nworkers;
	s->budget = (uint32_t)k[SP_BUDGET];
	s->random = k[SP_ROUTING] != 0;
	s->park_ns = k[SP_PARK_TIMEOUT_NS] ? (uint64_t)k[SP_PARK_TIMEOUT_NS] : PARK_FOREVER;
	/* Its own stream: worker RNGs use streams 0..n-1 of the same seed. */
	s->stream = rng_mix64(rt->cfg.seed ^ rng_mix64(0x5eed5ca77e5ull));
	atomic_init(&s->dealt, 0);
	rt->pstate = s;
	s->inbox = rt_alloc_lines(n, sizeof *s->inbox);
	s->pw = rt_alloc_lines(n, sizeof *s->pw);
	if (!s->inbox || !s->pw) {
		free(s->inbox);
		s->inbox = NULL;
		sp_destroy(rt);
		return -ENOMEM;
	}
	uint32_t interval = (uint32_t)k[SP_INBOX_INTERVAL];
	for (uint32_t i = 0; i < n; i++) {
		inject_init(&s->inbox[i].q);
		atomic_init(&s->inbox[i].sleeping, 0);
		s->pw[i].interval = interval ? interval : UINT32_MAX;
		s->pw[i].batch = (uint32_t)k[SP_INBOX_BATCH];
		s->pw[i].inbox = &s->inbox[i].q;
		s->pw[i].lifo = k[SP_ORDER] != 0;
		if (s->pw[i].lifo) {
			s->pw[i].cap = RING_CAP;
			s->pw[i].stack = malloc(RING_CAP * sizeof(struct task *));
			if (!s->pw[i].stack) {
				sp_destroy(rt);
				return -ENOMEM;
			}
		}
		rt->workers[i].pstate = &s->pw[i];
	}
	return 0;
}

/*
 * The worker a remote task is dealt to. Relaxed fetch-add: the counter only
 * has to hand every caller a distinct position. Random routing maps the
 * position through splitmix64 (the sequence of Java's SplittableRandom:
 * mix(start + (i+1) * golden gamma)), then into [0, n) with Lemire's
 * multiply-shift on the high 32 bits: uniform, independent across calls,
 * safe from any thread and reproducible for a seed and a call order.
 */
static inline uint32_t deal(struct sp *s, uint32_t n)
{
	uint64_t i = atomic_fetch_add_explicit(&s->dealt, 1, memory_order_relaxed);
	if (!s->random)
		return (uint32_t)(i % n);
	uint64_t x = rng_mix64(s->stream + i * 0x9E3779B97F4A7C15ull);
	return (uint32_t)(((x >> 32) * n) >> 32);
}

static void sp_schedule_remote(struct runtime *rt, struct task *t)
{
	struct sp *s = SP(rt);
	uint32_t i = deal(s, rt->nworkers);
	struct sp_inbox *ib = &s->inbox[i];
	inject_push(&ib->q, t);
	/* Publisher side of the Dekker pair (top comment). The relaxed load
	 * keeps the common case (worker awake) free of an RMW; the exchange
	 * elects one waker among concurrent pushers and the parker. */
	idle_fence_publish();
	if (atomic_load_explicit(&ib->sleeping, memory_order_relaxed) &&
	    atomic_exchange_explicit(&ib->sleeping, 0, memory_order_acquire)) {
		/* Acquire pairs with the parker's release of the flag: its
		 * num_parked increment comes first, so this never wraps. */
		atomic_fetch_sub_explicit(&rt->idle.num_parked, 1, memory_order_relaxed);
		rt_idle_unpark(rt, NULL, (int)i);
	}
}

/* The ring is full: its older half and t go to the worker's own inbox
 * (never to another worker), in one lock acquisition. Out of line, so the
 * common push carries no overflow buffer. */
static __attribute__((noinline)) void push_ring_overflow(struct worker *w, struct task *t)
{
	struct ring_overflow out;
	enum ring_push_result r = ring_push_slow(&w->sh->ring, t, &out);
	if (r == RING_PUSHED) {
		w->st.local_pushes++;
		return;
	}
	/* Nobody steals, so the ring is never busy: out holds 128 + t. */
	w->st.overflows++;
	w->st.overflow_locks++;
	w->st.overflow_tasks += out.n;
	inject_push_many(PW(w)->inbox, out.tasks, out.n);
}

/* The LIFO stack is full: double it (owner-private, no one else reads it). */
static __attribute__((noinline)) void stack_grow(struct sp_worker *pw)
{
	uint32_t cap = pw->cap * 2;
	CHECK_MSG(cap > pw->cap, "static-partition: LIFO stack of %u tasks cannot grow", pw->cap);
	struct task **st = realloc(pw->stack, (size_t)cap * sizeof *st);
	CHECK_MSG(st, "static-partition: out of memory growing a LIFO stack to %u tasks", cap);
	pw->stack = st;
	pw->cap = cap;
}

static inline void local_push(struct worker *w, struct sp_worker *pw, struct task *t)
{
	if (pw->lifo) {
		if (__builtin_expect(pw->top == pw->cap, 0))
			stack_grow(pw);
		pw->stack[pw->top++] = t;
		w->st.local_pushes++;
		return;
	}
	if (__builtin_expect(ring_try_push(&w->sh->ring, t), 1)) {
		w->st.local_pushes++;
		return;
	}
	push_ring_overflow(w, t);
}

static inline struct task *local_pop(struct worker *w, struct sp_worker *pw)
{
	struct task *t;
	if (pw->lifo)
		t = pw->top ? pw->stack[--pw->top] : NULL;
	else
		t = ring_pop(&w->sh->ring);
	if (t) {
		w->st.local_pops++;
		pw->since_inbox++;
	}
	return t;
}

static void sp_schedule_local(struct worker *w, struct task *t, enum sched_kind kind)
{
	(void)kind;	/* spawn, wake and yield all stay on this worker */
	local_push(w, PW(w), t);
}

static uint32_t sp_tick_begin(struct worker *w)
{
	return SP(w->rt)->budget;
}

/* Up to `max` tasks from the own inbox in one lock acquisition: the first
 * is returned, the others join the local queue so that they run oldest
 * first (in order at the ring's tail; reversed onto the LIFO stack). */
static struct task *inbox_take(struct worker *w, struct sp_worker *pw, uint32_t max)
{
	struct task *buf[RING_CAP + 1];
	if (!pw->lifo) {
		uint32_t room = ring_free(&w->sh->ring);
		if (max > room + 1)
			max = room + 1;
	}
	uint32_t got = (uint32_t)inject_pop_batch(pw->inbox, buf, max);
	if (got == 0)
		return NULL;
	w->st.global_batches++;
	w->st.global_tasks += got;
	if (pw->lifo) {
		for (uint32_t i = got; i-- > 1;) {
			if (pw->top == pw->cap)
				stack_grow(pw);
			pw->stack[pw->top++] = buf[i];
		}
	} else {
		ring_push_batch(&w->sh->ring, buf + 1, got - 1);
	}
	w->st.local_pushes += got - 1;
	return buf[0];
}

/* The forced inbox check, then local work, then a batch from the inbox. */
static __attribute__((noinline)) struct task *find_work_slow(struct worker *w)
{
	struct sp_worker *pw = PW(w);
	struct task *t;
	if (pw->since_inbox >= pw->interval) {
		pw->since_inbox = 0;
		w->st.interval_checks++;
		if ((t = inbox_take(w, pw, 1)))
			return t;
	}
	if ((t = local_pop(w, pw)))
		return t;
	/* The local queue is empty here, so the whole batch fits. */
	return inbox_take(w, pw, pw->batch);
}

static inline __attribute__((always_inline)) struct task *sp_find_work(struct worker *w)
{
	struct sp_worker *pw = PW(w);
	if (__builtin_expect(pw->since_inbox < pw->interval, 1)) {
		struct task *t = local_pop(w, pw);
		if (t)
			return t;
	}
	return find_work_slow(w);
}

static bool sp_park(struct worker *w, uint64_t *timeout_ns)
{
	struct runtime *rt = w->rt;
	struct sp *s = SP(rt);
	struct sp_inbox *ib = &s->inbox[w->index];

	/* Only this worker pushes into its local queue, and find_work just
	 * found it empty: nothing to re-check there. */
	atomic_fetch_add_explicit(&rt->idle.num_parked, 1, memory_order_relaxed);
	/* Release: a pusher that takes the flag (acquire) sees the count. */
	atomic_store_explicit(&ib->sleeping, 1, memory_order_release);
	/* Parker side of the Dekker pair (top comment). */
	idle_fence_recheck();
	if (inject_len(&ib->q) != 0 &&
	    atomic_exchange_explicit(&ib->sleeping, 0, memory_order_relaxed)) {
		atomic_fetch_sub_explicit(&rt->idle.num_parked, 1, memory_order_relaxed);
		return false;
	}
	/* Either nothing arrived, or a pusher took the flag and its unpark is
	 * on the way (the park then returns at once). */
	*timeout_ns = s->park_ns;
	return true;
}

static void sp_unparked(struct worker *w, enum park_wake how)
{
	struct runtime *rt = w->rt;
	struct sp_inbox *ib = &SP(rt)->inbox[w->index];
	/* The flag already cleared: a pusher claimed this park (and did the
	 * accounting). Still set: a timeout or a stale permit; clear it. */
	if (!atomic_exchange_explicit(&ib->sleeping, 0, memory_order_relaxed)) {
		w->st.unparks_notify++;
		return;
	}
	atomic_fetch_sub_explicit(&rt->idle.num_parked, 1, memory_order_relaxed);
	if (how == PARK_TIMEOUT)
		w->st.unparks_timeout++;
	else
		w->st.unparks_spurious++;
}

/* The stall report's counts: nobody searches; the inboxes hold what the
 * ring and global counts do not see. */
static void sp_idle_state(struct runtime *rt, struct policy_idle *out)
{
	struct sp *s = SP(rt);
	out->searching = 0;
	out->sleeping = atomic_load(&rt->idle.num_parked);
	out->queued = 0;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		out->queued += inject_len(&s->inbox[i].q);
}

/* --explore (between two sim steps): a task in the inbox of a worker that
 * sleeps unclaimed. A pusher claims the sleeper it pushes to, and nobody
 * else ever takes from that inbox. */
static const char *sp_check_idle(struct runtime *rt)
{
	static char why[160];
	struct sp *s = SP(rt);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		size_t n = inject_len(&s->inbox[i].q);
		if (n && atomic_load(&s->inbox[i].sleeping)) {
			snprintf(why, sizeof why,
				 "%zu tasks in the inbox of worker %u, which sleeps unclaimed (a lost "
				 "wakeup)", n, i);
			return why;
		}
	}
	return NULL;
}

static void sp_dump(struct runtime *rt, FILE *f)
{
	struct sp *s = SP(rt);
	fprintf(f, "  static-partition: routing %s, %llu remote tasks dealt\n",
		s->random ? "random" : "round-robin",
		(unsigned long long)atomic_load_explicit(&s->dealt, memory_order_relaxed));
	for (uint32_t i = 0; i < rt->nworkers; i++)
		fprintf(f, "  worker %u: inbox %zu, %s\n", i, inject_len(&s->inbox[i].q),
			atomic_load_explicit(&s->inbox[i].sleeping, memory_order_relaxed)
				? "sleeping"
				: "awake");
}

/* The threads engine's tick with sp_find_work inlined (policy.h, step). */
static enum step sp_step(struct worker *w, uint64_t *park_timeout_ns)
{
	return worker_step_with(w, park_timeout_ns, sp_find_work);
}

const struct policy policy_static_partition = {
	.name = "static-partition",
	.summary = "tasks stay where placed: remote tasks dealt round-robin or at random, "
		   "children on their parent's worker (FIFO or LIFO), no stealing (routing=random: "
		   "k x M/M/1; the default round-robin: k x E_k/M/1, a lower tail)",
	.knobs = sp_knobs,
	.nknobs = SP_NKNOBS,
	.knob_names = sp_names,
	.init = sp_init,
	.destroy = sp_destroy,
	.schedule_local = sp_schedule_local,
	.schedule_remote = sp_schedule_remote,
	.tick_begin = sp_tick_begin,
	.find_work = sp_find_work,
	.step = sp_step,
	.park = sp_park,
	.unparked = sp_unparked,
	.idle_state = sp_idle_state,
	.check_idle = sp_check_idle,
	.dump = sp_dump,
};
