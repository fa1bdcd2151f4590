/*
 * test_sim_model.c - the sim's cache and migration model (core/touch.h,
 * docs/sim.md): each charge appears exactly when its cause does.
 *
 * A small fork of its own: a root injected from outside spawns K children
 * and either completes (fan-out) or awaits their join (fork-join); each
 * child notes the worker that polls it, computes D, D + 7 us or D + 14 us
 * and (fork-join)
 * arrives at the root's join. The test keeps its own book of who touched
 * what last, from what the tasks saw, and checks the sim's counters
 * against it:
 *
 *   - a child polled by the worker that spawned it pays no cold start, a
 *     stolen one does (cold_migrated is the number of children polled
 *     elsewhere than their spawner);
 *   - a join arrival on a root last touched by another worker (its poll,
 *     or the previous arrival) is a remote join, a local one is not;
 *   - on one worker a task queued for longer than cold_after is a cold
 *     (aged) start, and each charge adds exactly its cost to the makespan
 *     (the policy's own poll.NAME figure too);
 *   - under central-queue, whose every task passes through the global
 *     queue, a step that takes the queue's lock after another worker took
 *     it last is a remote lock, one after the same worker is not (the book:
 *     the workers that took it, in the order of the polls that did); and a
 *     hold of the lock that starts while another worker's is under way
 *     waits for it and pays the handoff (lock_wait), one that finds the
 *     lock free does not;
 *   - a spawn that takes the number of live tasks (spawned or injected, not
 *     completed) past its high-water mark in the run pays spawn_fresh, and
 *     only such a spawn (the book: the live count replayed from the polls,
 *     each poll's spawns before its completion), at the task's first poll,
 *     by the worker that polls it;
 *   - a write of a word every worker writes (a policy's shared word, here
 *     written by the children themselves under volt, which writes none)
 *     pays line_transfer and contended as often as the model expects it to follow
 *     another worker's (the book: the same expectation, replayed from the
 *     polls), never on 1 worker; and tokio's own writes (its idle state at
 *     each notify check) are the ones it counts;
 *   - with cost.task_list on, every spawn and completion takes the task
 *     list's lock, and those after another worker's are remote by the
 *     global queue's rule (the book: remote_book over the polls);
 *   - with cost.sema_table on, every join's sleep and the arrival that
 *     ends it take a root of Go's semaphore table (fib: two a node).
 */
#include <math.h>
#include <stddef.h>

#include "core/costs.h"
#include "run_util.h"

#define MAXK 64

struct mt;

struct mt_task {
	struct task task;
	struct mt *m;
	uint32_t spawner;		/* children: the worker that spawned it */
	uint32_t poller;		/* ... and the one that polled it */
	uint32_t grand;			/* grandchildren it spawns (fan-out) */
	uint32_t slot;			/* children 0.., grandchildren MAXK.. */
};

struct mt {
	uint32_t k;
	uint64_t compute_ns;
	bool join;
	struct mt_task root;
	struct mt_task child[MAXK];
	uint32_t done;
	/* In the order the sim ran them: the root's polls and the arrivals. */
	uint32_t root_poller[2];
	uint32_t root_polls;
	uint32_t arrival[MAXK];
	uint32_t narrivals;
	/* Every poll's worker, clock at its start and end, and spawns, in
	 * the order the sim ran them. */
	uint32_t poller[2 * MAXK + 2];
	uint64_t poll_start[2 * MAXK + 2], poll_end[2 * MAXK + 2];
	uint32_t poll_spawns[2 * MAXK + 2];
	uint32_t poll_writes[2 * MAXK + 2];
	uint32_t npolls;
	/* Children write the shared word 1 + slot % writes times (0: never). */
	uint32_t writes;
	/* Grandchildren: each child spawns `grand` of them (fan-out). */
	uint32_t grand;
	struct mt_task gchild[MAXK];
	uint32_t ngchild;
};

static const struct task_vtable mt_child_vt, mt_root_vt;

static enum task_poll mt_child_poll(struct task *t, struct worker *w)
{
	struct mt_task *c = (struct mt_task *)t;
	struct mt *m = c->m;
	uint32_t i = m->npolls++;
	c->poller = w->index;
	m->poller[i] = w->index;
	m->poll_start[i] = rt_now(w->rt, w);
	m->poll_spawns[i] = 0;
	/* Uneven children: the two workers' arrivals do not alternate in
	 * lock step. */
	rt_compute(w, m->compute_ns + (uint64_t)c->slot % 3 * 7000);
	for (uint32_t g = 0; g < c->grand && m->ngchild < MAXK; g++) {
		struct mt_task *gc = &m->gchild[m->ngchild];
		task_init(&gc->task, &mt_child_vt);
		gc->slot = MAXK + m->ngchild++;
		gc->m = m;
		gc->spawner = w->index;
		gc->grand = 0;
		rt_spawn(w, &gc->task);
		m->poll_spawns[i]++;
	}
	/* Writes of the policy's shared word, as a policy counts them. */
	m->poll_writes[i] = m->writes ? 1 + c->slot % m->writes : 0;
	w->shared_rmws += m->poll_writes[i];
	m->poll_end[i] = rt_now(w->rt, w);
	if (m->join) {
		m->arrival[m->narrivals++] = w->index;
		rt_join_arrive(w->rt, w, &m->root.task);
	} else if (++m->done == m->k + m->k * m->grand) {
		rt_finish(w->rt, w);
	}
	return TASK_DONE;
}

static enum task_poll mt_root_poll(struct task *t, struct worker *w)
{
	struct mt *m = ((struct mt_task *)t)->m;
	m->root_poller[m->root_polls++] = w->index;
	m->poll_start[m->npolls] = m->poll_end[m->npolls] = rt_now(w->rt, w);
	m->poll_spawns[m->npolls] = m->root_polls == 2 ? 0 : m->k;
	m->poll_writes[m->npolls] = 0;
	m->poller[m->npolls++] = w->index;
	if (m->root_polls == 2) {
		rt_finish(w->rt, w);
		return TASK_DONE;
	}
	for (uint32_t i = 0; i < m->k; i++) {
		struct mt_task *c = &m->child[i];
		task_init(&c->task, &mt_child_vt);
		c->task.cont = m->join ? &m->root.task : NULL;
		c->m = m;
		c->slot = i;
		c->spawner = w->index;
		c->grand = m->grand;
		rt_spawn(w, &c->task);
	}
	return m->join ? TASK_JOIN(m->k) : TASK_DONE;
}

static const struct task_vtable mt_child_vt = { .name = "mt-child", .poll = mt_child_poll };
static const struct task_vtable mt_root_vt = { .name = "mt-root", .poll = mt_root_poll };

static void mt_start(struct runtime *rt, void *arg)
{
	struct mt *m = arg;
	task_init(&m->root.task, &mt_root_vt);
	m->root.m = m;
	rt_spawn_remote(rt, &m->root.task);
}

struct model_out {
	uint64_t makespan;
	struct worker_stats tot;
	uint64_t fresh[2];	/* workers 0 and 1's fresh_spawns */
};

static void mt_run(const char *policy, uint32_t workers, uint64_t seed, const struct sim_costs *c,
		   struct mt *m, struct model_out *o)
{
	const struct policy *p = policy_find(policy);
	ASSERT(p);
	double kv[64];
	apply_settings(p->knobs, p->nknobs, kv, NULL);
	struct rt_config cfg = { .workers = workers, .seed = seed, .sample_period = 0,
				 .hist_digits = 2, .watchdog_ns = 10000000000ull };
	char err[256];
	struct engine *e = engine_sim_create(workers, c, 0);
	ASSERT(e);
	struct runtime *rt;
	if (rt_create(&rt, &cfg, p, kv, e, err, sizeof err) != 0)
		TEST_FAIL("rt_create: %s", err);
	m->done = m->root_polls = m->narrivals = m->npolls = m->ngchild = 0;
	ASSERT_EQ(e->ops->run(e, rt, mt_start, m), 0);
	o->makespan = rt->end_ns - rt->start_ns;
	rt_total_stats(rt, &o->tot);
	for (uint32_t i = 0; i < 2; i++)
		o->fresh[i] = i < workers ? rt->workers[i].st.fresh_spawns : 0;
	rt_destroy(rt);
	e->ops->destroy(e);
}

static void model_costs(struct sim_costs *c, uint64_t cold, uint64_t xfer, uint64_t after)
{
	sim_costs_default(c);
	c->cold_start = cold;
	c->line_transfer = xfer;
	c->cold_after = after;
}

/* Children polled elsewhere than where they were spawned, by the book. */
static uint32_t migrated(const struct mt *m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->k; i++)
		n += m->child[i].poller != m->child[i].spawner;
	return n;
}

/*
 * Fan-out on 2 workers under policies that steal: the thief's children
 * are the cold starts, and only they. (Nothing waits long enough to age:
 * cold_after is far above the run.)
 */
static void stolen_pays_cold_start(void)
{
	static const char *const policies[] = { "volt", "tokio", "go", "rayon",
						"blumofe-leiserson" };
	struct sim_costs c;
	model_costs(&c, 300, 0, SIM_COST_MAX_NS);
	uint32_t stolen_seen = 0;
	for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			static struct mt m = { .k = 32, .compute_ns = 20000 };
			struct model_out o;
			mt_run(policies[p], 2, seed, &c, &m, &o);
			uint32_t n = migrated(&m);
			ASSERT_U64_EQ(o.tot.cold_migrated, n);
			ASSERT_U64_EQ(o.tot.cold_aged, 0);
			ASSERT_U64_EQ(o.tot.remote_joins, 0);
			/* Every migration here is a steal (children never pass
			 * through the global queue: 32 fit every ring). */
			ASSERT(o.tot.tasks_stolen >= n);
			stolen_seen += n;
		}
	}
	/* The test means something only if some children were stolen. */
	ASSERT(stolen_seen > 0);
	fprintf(stderr, "    %u stolen children paid the cold start\n", stolen_seen);
}

/* Fork-join on 2 workers: remote joins by the book (the root's last
 * toucher is its poller, then each arrival's worker), and the root's
 * second poll is a cold start if it runs elsewhere than the last arrival. */
static void remote_join_pays_transfer(void)
{
	struct sim_costs c;
	model_costs(&c, 300, 200, SIM_COST_MAX_NS);
	uint32_t remote_seen = 0, local_seen = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		static struct mt m = { .k = 16, .compute_ns = 20000, .join = true };
		struct model_out o;
		mt_run("volt", 2, seed, &c, &m, &o);
		ASSERT_EQ(m.narrivals, m.k);
		ASSERT_EQ(m.root_polls, 2);
		uint32_t last = m.root_poller[0], remote = 0;
		for (uint32_t i = 0; i < m.narrivals; i++) {
			remote += m.arrival[i] != last;
			last = m.arrival[i];
		}
		ASSERT_U64_EQ(o.tot.remote_joins, remote);
		ASSERT_U64_EQ(o.tot.cold_migrated, migrated(&m) + (m.root_poller[1] != last));
		remote_seen += remote;
		local_seen += m.k - remote;
	}
	ASSERT(remote_seen > 0 && local_seen > 0);
	fprintf(stderr, "    %u remote and %u local join arrivals\n", remote_seen, local_seen);
}

/*
 * One worker, nothing migrates: children queued longer than cold_after are
 * aged cold starts, the others are not, and each charge adds exactly its
 * cost to the makespan (one worker: the same schedule whatever the costs).
 */
static void charges_add_exactly(void)
{
	static struct mt m = { .k = 10, .compute_ns = 10000, .join = true };
	struct sim_costs off, cold, both;
	struct model_out a, b, d;
	/* The model off: no charge. */
	model_costs(&off, 0, 0, 35000);
	model_costs(&cold, 700, 0, 35000);
	model_costs(&both, 700, 0, 35000);
	both.work = 50;
	mt_run("volt", 1, 1, &off, &m, &a);
	mt_run("volt", 1, 1, &cold, &m, &b);
	mt_run("volt", 1, 1, &both, &m, &d);
	ASSERT_U64_EQ(b.tot.cold_migrated, 0);
	ASSERT_U64_EQ(b.tot.remote_joins, 0);
	/* Children wait in the ring behind those run before them (10 us of
	 * compute each): some wait longer than 35 us, and so does the root. */
	ASSERT(b.tot.cold_aged > 0 && b.tot.cold_aged < m.k);
	ASSERT_U64_EQ(b.makespan, a.makespan + 700 * b.tot.cold_aged);
	/* The run ends inside the last poll (rt_finish), at the time its
	 * counters reached: that poll's work is in (engine_sim.c step_now). */
	ASSERT_U64_EQ(d.makespan, b.makespan + 50 * d.tot.polls);
	/* Work that comes with each child (UTS's): charged per spawn, the
	 * root's 10, whose poll's charge comes before the children run. */
	struct sim_costs spawn = both;
	spawn.work_per_spawn = true;
	struct model_out g;
	mt_run("volt", 1, 1, &spawn, &m, &g);
	ASSERT_U64_EQ(g.tot.spawns, m.k);
	ASSERT_U64_EQ(g.makespan, b.makespan + 50 * g.tot.spawns);
	/* The policy's own per-poll figure is charged like the work, and only
	 * the running policy's entry. */
	struct sim_costs pol = both;
	ASSERT_EQ(sim_costs_set(&pol, "poll.go", 900), 0);
	ASSERT_EQ(sim_costs_set(&pol, "poll.volt", 20), 0);
	struct model_out e;
	mt_run("volt", 1, 1, &pol, &m, &e);
	ASSERT_U64_EQ(e.makespan, d.makespan + 20 * e.tot.polls);
	/* A negative figure (a policy whose poll does less than volt's) takes
	 * as much off; and no lower than a poll's whole charge, its poll
	 * mechanism and the work: below that a step would run backwards. */
	ASSERT_EQ(sim_costs_set(&pol, "poll.volt", (uint64_t)-30), 0);
	mt_run("volt", 1, 1, &pol, &m, &e);
	ASSERT_U64_EQ(e.makespan + 30 * e.tot.polls, d.makespan);
	ASSERT_EQ(sim_costs_set(&pol, "poll.volt", (uint64_t)-(int64_t)SIM_COST_MAX_NS), 0);
	ASSERT(sim_costs_policy_poll(&pol, "volt") == -(int64_t)(pol.poll + pol.work));
	mt_run("volt", 1, 1, &pol, &m, &e);
	ASSERT_U64_EQ(e.makespan + (pol.poll + pol.work) * e.tot.polls, d.makespan);
	/* With a threshold above the run, nothing ages. */
	model_costs(&cold, 700, 0, SIM_COST_MAX_NS);
	mt_run("volt", 1, 1, &cold, &m, &b);
	ASSERT_U64_EQ(b.tot.cold_aged, 0);
	ASSERT_U64_EQ(b.makespan, a.makespan);
}

/*
 * The book of the lock's takings under central-queue, whose every poll
 * took the lock (its pop) and every spawn (its push), and which takes it
 * nowhere else here (a queue found empty is not locked: the length's
 * hint): a step that takes it after another worker's step is a remote
 * lock once if that step had ended when this one began, and if they
 * overlap (their takings interleave) as many times as its takings can
 * follow the other's, at most one more than the other step had. The
 * harness's injection of the root, outside any step, counts with the
 * first. remote[i]: poll i's remote locks.
 */
static void remote_book(const struct mt *m, uint32_t *remote)
{
	uint32_t last = UINT32_MAX, last_n = 0;
	uint64_t last_end = 0;
	for (uint32_t i = 0; i < m->npolls; i++) {
		uint32_t n = 1 + m->poll_spawns[i];
		remote[i] = 0;
		if (last != UINT32_MAX && last != m->poller[i])
			remote[i] = last_end <= m->poll_start[i] ? 1 : n < last_n + 1 ? n : last_n + 1;
		last = m->poller[i];
		last_n = n;
		last_end = m->poll_end[i];
	}
}

/* The remote locks of the book (remote_book); *local: the other takings. */
static uint32_t lock_book(const struct mt *m, uint32_t *local)
{
	uint32_t r[2 * MAXK + 2], remote = 0, takings = 0;
	remote_book(m, r);
	for (uint32_t i = 0; i < m->npolls; i++) {
		remote += r[i];
		takings += 1 + m->poll_spawns[i];
	}
	*local = takings - remote;
	return remote;
}

/* Nothing but the lock transfer and the tasks' compute moves a clock in a
 * polling step, so that the book's clocks are the sim's. */
static void lock_costs(struct sim_costs *c, uint64_t xfer)
{
	model_costs(c, 0, 0, SIM_COST_MAX_NS);
#define X(name, def, help) c->name = 0;
	SIM_COSTS(X)
#undef X
	c->idle_step = 100;
	c->park = 400;
	c->wake_latency = 5000;
	c->lock_transfer = xfer;
}

/* The workers of m's polls in the order the sim ran them, polls that began
 * at the same ns (which a tie-break orders) by worker: with no charge the
 * two workers' children can start at the same instant. */
static void poll_order(const struct mt *m, uint32_t *order)
{
	memset(order, 0, (2 * MAXK + 2) * sizeof *order);
	memcpy(order, m->poller, m->npolls * sizeof *order);
	for (uint32_t i = 1; i < m->npolls; i++)
		if (m->poll_start[i] == m->poll_start[i - 1] && order[i] < order[i - 1]) {
			uint32_t x = order[i];
			order[i] = order[i - 1];
			order[i - 1] = x;
		}
}

/*
 * One charge (the sim_costs field at `cost`) at 0 and at 5 us an event,
 * the model on in both (work), on 2 workers, children long enough that the
 * charges move no poll: the same polls in the same places, the same count
 * of the event (the worker_stats field at `counter`, at least one), and a
 * run longer by at least the slower worker's share of the charges and by
 * no more than all of them. Returns the count.
 */
static uint64_t charged_in_place(const char *policy, const struct sim_costs *base, size_t cost,
				 struct mt *m, size_t counter)
{
	struct sim_costs zero = *base, more = *base;
	*(uint64_t *)((char *)&zero + cost) = 0;
	*(uint64_t *)((char *)&more + cost) = 5000;
	zero.work = more.work = 1;
	struct model_out a, b;
	mt_run(policy, 2, 1, &zero, m, &a);
	uint32_t order[2 * MAXK + 2];
	poll_order(m, order);
	mt_run(policy, 2, 1, &more, m, &b);
	uint64_t n = *(const uint64_t *)((const char *)&b.tot + counter);
	ASSERT(*(const uint64_t *)((const char *)&a.tot + counter) == n && n > 0);
	uint32_t order_b[2 * MAXK + 2];
	poll_order(m, order_b);
	ASSERT(memcmp(order, order_b, sizeof order) == 0);
	ASSERT(b.makespan >= a.makespan + 5000 * (n / 2));
	ASSERT(b.makespan <= a.makespan + 5000 * n);
	return n;
}

/*
 * Fan-out on 2 workers under central-queue: the remote locks by the book,
 * with children that spawn nothing (steps of one taking) and with children
 * that spawn 2 or 4 grandchildren each (steps of three or five, whose
 * takings interleave when the two workers' steps overlap, bounded by the
 * one-taking steps of the grandchildren). On 1 worker: none. Each
 * remote lock adds lock_transfer to its worker's clock.
 */
static void remote_lock_pays_transfer(void)
{
	struct sim_costs c;
	lock_costs(&c, 500);
	uint32_t remote_seen = 0, local_seen = 0, multi_seen = 0;
	static const uint32_t shape[3][2] = { { 24, 0 }, { 24, 2 }, { 12, 4 } };
	for (uint32_t sh = 0; sh < 3; sh++) {
		for (uint64_t seed = 1; seed <= 4; seed++) {
			static struct mt m;
			uint32_t grand = shape[sh][1];
			m = (struct mt){ .k = shape[sh][0], .compute_ns = 20000, .grand = grand };
			struct model_out o;
			mt_run("central-queue", 2, seed, &c, &m, &o);
			ASSERT_EQ(m.npolls, 1 + m.k + m.k * grand);
			uint32_t local, remote = lock_book(&m, &local);
			ASSERT_U64_EQ(o.tot.remote_locks, remote);
			remote_seen += remote;
			local_seen += local;
			/* Steps with more remote takings than one. */
			for (uint32_t i = 1; i < m.npolls; i++)
				multi_seen += m.poller[i] != m.poller[i - 1] && m.poll_spawns[i] &&
					      m.poll_end[i - 1] > m.poll_start[i];
		}
	}
	ASSERT(remote_seen > 0 && local_seen > 0 && multi_seen > 0);
	fprintf(stderr, "    %u remote and %u local lock takings; %u overlapping steps of "
		"several\n", remote_seen, local_seen, multi_seen);

	static struct mt one = { .k = 24, .compute_ns = 20000, .grand = 2 };
	struct model_out a;
	mt_run("central-queue", 1, 1, &c, &one, &a);
	ASSERT_U64_EQ(a.tot.remote_locks, 0);
	/* The model on, the cost 0: counted, and charged nothing; at 5 us
	 * the same takings (the children outlast the transfers, so the order
	 * stays) make the run longer by the slower worker's share at least. */
	static struct mt m2 = { .k = 24, .compute_ns = 200000 };
	charged_in_place("central-queue", &c, offsetof(struct sim_costs, lock_transfer), &m2,
			 offsetof(struct worker_stats, remote_locks));
}

/*
 * The lock's handoff by the book: under central-queue every poll's step
 * pops its task with one hold of the global queue's lock at the step's
 * start, held `hold` ns (the pushes of the tasks it spawns are takings but
 * not holds). Replaying the polls in the sim's order, a hold that starts
 * before the lock is free (another worker's hold or transfer under way)
 * waited: it starts `wait` after that, and counts in lock_waits. Then the
 * step's remote takings (remote_book) move the lock's lines, `xfer` each,
 * the lock busy meanwhile, and then the hold. Returns the waits; end[i] is
 * when poll i's hold ends, waited[i] whether it waited.
 */
static uint32_t wait_book(const struct mt *m, uint64_t hold, uint64_t wait, uint64_t xfer,
			  uint64_t *end, bool *waited)
{
	uint64_t free_at = 0;
	uint32_t waits = 0, remote[2 * MAXK + 2];
	remote_book(m, remote);
	for (uint32_t i = 0; i < m->npolls; i++) {
		uint64_t t = m->poll_start[i];
		waited[i] = free_at > t;
		if (waited[i]) {
			waits++;
			t = free_at + wait;
			free_at = t;
		}
		if (remote[i]) {
			t = (t > free_at ? t : free_at) + remote[i] * xfer;
			free_at = t;
		}
		free_at = end[i] = (t > free_at ? t : free_at) + hold;
	}
	return waits;
}

/*
 * lock_wait: a hold of the global queue's lock that finds another worker's
 * hold or transfer under way pays it, one that finds the lock free does
 * not, and a step's own transfer is not another's. Fan-out on 2 workers
 * under central-queue with 1 us holds, children that compute nothing (the
 * workers meet at the lock), 20 us or 200 us (they rarely do), without a
 * lock transfer and with one: the sim's waits are the book's. With nothing
 * else on a clock, a worker's step after a poll starts no earlier than
 * that poll's hold ended (by the book, with the handoff) plus its compute,
 * and exactly then when it polls again at once: so the waited holds are
 * charged the handoff, no more, no less. On 1 worker no hold ever waits,
 * and the figure changes nothing.
 */
static void lock_wait_pays_handoff(void)
{
	const uint64_t hold = 1000, wait = 700;
	struct sim_costs c;
	lock_costs(&c, 0);
	c.global_lock = hold;
	c.lock_wait = wait;
	uint32_t waited = 0, free_seen = 0, exact_after_wait = 0;
	static const uint64_t compute[3] = { 0, 20000, 200000 }, xfer[2] = { 0, 300 };
	for (uint32_t k = 0; k < 6; k++) {
		for (uint64_t seed = 1; seed <= 4; seed++) {
			static struct mt m;
			m = (struct mt){ .k = 24, .compute_ns = compute[k % 3], .grand = 2 };
			struct sim_costs ck = c;
			ck.lock_transfer = xfer[k / 3];
			struct model_out o;
			mt_run("central-queue", 2, seed, &ck, &m, &o);
			ASSERT_EQ(m.npolls, 1 + m.k + m.k * m.grand);
			uint64_t end[2 * MAXK + 2];
			bool w[2 * MAXK + 2];
			uint32_t waits = wait_book(&m, hold, wait, ck.lock_transfer, end, w);
			ASSERT_U64_EQ(o.tot.lock_waits, waits);
			for (uint32_t i = 0; i < m.npolls; i++) {
				uint32_t j = i + 1;
				while (j < m.npolls && m.poller[j] != m.poller[i])
					j++;
				if (j == m.npolls)
					continue;
				uint64_t next = end[i] + (m.poll_end[i] - m.poll_start[i]);
				ASSERT(m.poll_start[j] >= next);
				exact_after_wait += w[i] && m.poll_start[j] == next;
			}
			waited += waits;
			free_seen += m.npolls - waits;
		}
	}
	ASSERT(waited > 0 && free_seen > 0 && exact_after_wait > 0);
	fprintf(stderr, "    %u holds waited (%u followed at once by the same worker's next), %u "
		"found the lock free\n", waited, exact_after_wait, free_seen);

	static struct mt one = { .k = 24, .grand = 2 };
	struct sim_costs none = c;
	none.lock_wait = 0;
	struct model_out a, b;
	mt_run("central-queue", 1, 1, &none, &one, &a);
	mt_run("central-queue", 1, 1, &c, &one, &b);
	ASSERT_U64_EQ(a.tot.lock_waits, 0);
	ASSERT_U64_EQ(b.tot.lock_waits, 0);
	ASSERT_U64_EQ(b.makespan, a.makespan);
}

/*
 * The contended figure: each migrated cold start and each remote join pays
 * it on top of its own cost, and nothing else does. Fan-out on 2 workers
 * under volt, the children long enough that each is polled where it was
 * at 0 and at 5 us: the same migrations (stolen children), and a
 * run longer by at least the slower worker's share of their charges and at
 * most all of them. On 1 worker (no migration, no remote join; aged cold
 * starts) the figure changes nothing.
 */
static void contended_pays_migrations(void)
{
	struct sim_costs zero, more;
	model_costs(&zero, 300, 200, SIM_COST_MAX_NS);
	more = zero;
	more.contended = 5000;
	static struct mt m = { .k = 16, .compute_ns = 400000 };
	struct model_out a, b;
	mt_run("volt", 2, 1, &zero, &m, &a);
	uint32_t who[MAXK];
	for (uint32_t i = 0; i < m.k; i++)
		who[i] = m.child[i].poller;
	mt_run("volt", 2, 1, &more, &m, &b);
	/* Each child polled where it was (the order of the two workers'
	 * polls may shift: the thief's clock runs later). */
	for (uint32_t i = 0; i < m.k; i++)
		ASSERT_EQ(m.child[i].poller, who[i]);
	ASSERT_U64_EQ(b.tot.cold_migrated, a.tot.cold_migrated);
	ASSERT_U64_EQ(b.tot.remote_joins, a.tot.remote_joins);
	uint64_t events = b.tot.cold_migrated + b.tot.remote_joins;
	ASSERT(events > 0);
	fprintf(stderr, "    %llu migrations and remote joins\n", (unsigned long long)events);
	ASSERT(b.makespan >= a.makespan + 5000 * (events / 2));
	ASSERT(b.makespan <= a.makespan + 5000 * events);
	/* One worker, children aged past a short cold_after: their cold
	 * starts are not migrations, and pay nothing more. */
	model_costs(&zero, 300, 200, 35000);
	more = zero;
	more.contended = 5000;
	mt_run("volt", 1, 1, &zero, &m, &a);
	mt_run("volt", 1, 1, &more, &m, &b);
	ASSERT(b.tot.cold_aged > 0);
	ASSERT_U64_EQ(b.makespan, a.makespan);
}

/*
 * The shared word by the book (the engine's shared_word, replayed from the
 * polls in the order the sim ran them; nothing but the children's compute
 * moves a clock in a polling step here, so a poll's span is its step's). A
 * poll that wrote n times spreads its writes evenly over its span; the
 * other workers' writes so far, over the time so far, are a Poisson
 * stream; a write `gap` ns after its worker's previous one follows one of
 * theirs with probability 1 - exp(-rate * gap). Each worker's expectation
 * gathers, and counts in whole writes. *writes: all of them.
 */
static uint64_t rmw_book(const struct mt *m, uint64_t *writes)
{
	uint64_t total = 0, mine[2] = { 0, 0 }, remote = 0;
	double at[2] = { 0, 0 }, due[2] = { 0, 0 };
	for (uint32_t i = 0; i < m->npolls; i++) {
		uint64_t n = m->poll_writes[i], start = m->poll_start[i];
		uint64_t span = m->poll_end[i] - start;
		uint32_t w = m->poller[i];
		if (n == 0)
			continue;
		ASSERT(w < 2);
		double spacing = (double)span / (double)n;
		double rate = start ? (double)(total - mine[w]) / (double)start : 0;
		double first = (double)start + spacing / 2 - at[w];
		due[w] += -expm1(-rate * first) - (double)(n - 1) * expm1(-rate * spacing);
		uint64_t k = (uint64_t)due[w];
		due[w] -= (double)k;
		remote += k;
		mine[w] += n;
		at[w] = (double)start + (double)span - spacing / 2;
		total += n;
	}
	*writes = total;
	return remote;
}

/*
 * Fan-out on 2 workers under volt, children of 20 to 34 us that write the
 * shared word 1 to 3 times (spread over a long poll, far apart) or that
 * compute nothing (close together): the remote writes are the book's, and
 * some writes are local. On 1 worker none is remote. Each remote write
 * adds line_transfer and contended to its worker's clock. And tokio's writes: its notify
 * checks at the spawns of a fork, and its searches, count, and are remote
 * on 2 workers only.
 */
static void shared_word_pays_transfer(void)
{
	struct sim_costs c;
	lock_costs(&c, 0);
	c.line_transfer = 500;
	uint64_t remote_seen = 0, local_seen = 0;
	static const uint64_t compute[2] = { 20000, 0 };
	for (uint32_t k = 0; k < 2; k++) {
		for (uint64_t seed = 1; seed <= 4; seed++) {
			static struct mt m;
			m = (struct mt){ .k = 32, .compute_ns = compute[k], .writes = 3 };
			struct model_out o;
			mt_run("volt", 2, seed, &c, &m, &o);
			ASSERT_EQ(m.npolls, 1 + m.k);
			uint64_t writes, remote = rmw_book(&m, &writes);
			ASSERT_U64_EQ(o.tot.remote_rmws, remote);
			ASSERT(writes >= m.k && remote < writes);
			remote_seen += remote;
			local_seen += writes - remote;
		}
	}
	ASSERT(remote_seen > 0 && local_seen > 0);
	fprintf(stderr, "    %llu remote and %llu local writes of the shared word\n",
		(unsigned long long)remote_seen, (unsigned long long)local_seen);

	/* One worker: every write finds the line where it left it. The
	 * model on (line_transfer), so the figure is looked at. */
	static struct mt one = { .k = 32, .compute_ns = 20000, .writes = 3 };
	struct model_out a, b;
	mt_run("volt", 1, 1, &c, &one, &a);
	ASSERT_U64_EQ(a.tot.remote_rmws, 0);

	/* At 0 and 5 us a write: the same polls in the same places (the
	 * children outlast the charges), and a run longer by the slower
	 * worker's share of them at least. */
	static struct mt m2 = { .k = 24, .compute_ns = 200000, .writes = 3 };
	charged_in_place("volt", &c, offsetof(struct sim_costs, line_transfer), &m2,
			 offsetof(struct worker_stats, remote_rmws));
	/* A remote write pays contended on top of line_transfer, as a
	 * remote join does: 3 + 2 us is the 5 us above, to the ns. (A
	 * migration pays contended too: there it replaces cold_start.) */
	struct sim_costs more = c, split = c;
	more.line_transfer = 5000;
	more.work = split.work = 1;
	split.line_transfer = 3000;
	split.contended = 2000;
	more.cold_start = 2000;
	mt_run("volt", 2, 1, &more, &m2, &a);
	mt_run("volt", 2, 1, &split, &m2, &b);
	ASSERT(b.tot.cold_migrated > 0);
	ASSERT_U64_EQ(b.tot.remote_rmws, a.tot.remote_rmws);
	ASSERT_U64_EQ(b.makespan, a.makespan);

	/* Tokio's own: children that spawn 4 grandchildren each, whose
	 * pushes past the LIFO slot check the idle state. */
	uint64_t tokio_remote = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		static struct mt t;
		t = (struct mt){ .k = 12, .compute_ns = 20000, .grand = 4 };
		mt_run("tokio", 2, seed, &c, &t, &a);
		tokio_remote += a.tot.remote_rmws;
		t = (struct mt){ .k = 12, .compute_ns = 20000, .grand = 4 };
		mt_run("volt", 2, seed, &c, &t, &b);
		ASSERT_U64_EQ(b.tot.remote_rmws, 0);
	}
	ASSERT(tokio_remote > 0);
	static struct mt t1 = { .k = 12, .compute_ns = 20000, .grand = 4 };
	mt_run("tokio", 1, 1, &c, &t1, &a);
	ASSERT_U64_EQ(a.tot.remote_rmws, 0);
}

/* The book of fresh spawns: the live count replayed from the polls in the
 * order the sim ran them, the root injected first; a poll's spawns come
 * before its completion (every poll completes its task but the root's
 * first in fork-join). */
static uint64_t fresh_book(const struct mt *m)
{
	uint64_t live = 1, peak = 0, fresh = 0;
	for (uint32_t i = 0; i < m->npolls; i++) {
		uint64_t p = live + m->poll_spawns[i];
		if (p > peak) {
			fresh += p - (live > peak ? live : peak);
			peak = p;
		}
		bool root_first = m->join && i == 0;
		live = p - !root_first;
	}
	return fresh;
}

/*
 * A spawn past the run's high-water mark of live tasks pays spawn_fresh:
 * the root's children all do (nothing finished yet), and of each child's
 * grandchildren those beyond the tasks finished since the mark was set;
 * the count is the book's on 1 and 2 workers, and on 1 worker the makespan
 * moves by exactly spawn_fresh per fresh spawn.
 */
static void fresh_spawn_pays_once(void)
{
	static const char *const policies[] = { "volt", "tokio", "go", "rayon" };
	struct sim_costs off, fresh;
	model_costs(&off, 0, 0, SIM_COST_MAX_NS);
	model_costs(&fresh, 0, 0, SIM_COST_MAX_NS);
	fresh.spawn_fresh = 500;
	uint64_t fresh_seen = 0, reused_seen = 0;
	for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
		for (uint32_t workers = 1; workers <= 2; workers++) {
			static struct mt m = { .k = 10, .compute_ns = 10000, .grand = 3 };
			struct model_out a, b;
			mt_run(policies[p], workers, 1, &off, &m, &a);
			ASSERT_U64_EQ(a.tot.fresh_spawns, 0);	/* the model off */
			mt_run(policies[p], workers, 1, &fresh, &m, &b);
			uint64_t book = fresh_book(&m);
			ASSERT_U64_EQ(b.tot.spawns, m.k + m.k * m.grand);
			ASSERT_U64_EQ(b.tot.fresh_spawns, book);
			/* The root's k, and not every grandchild: some reuse. */
			ASSERT(book >= m.k && book < b.tot.spawns);
			if (workers == 1)
				ASSERT_U64_EQ(b.makespan, a.makespan + 500 * book);
			fresh_seen += book;
			reused_seen += b.tot.spawns - book;
		}
		/* The charge is the task's first poll's, on the worker that
		 * polls it (engine_sim.c fresh_spawn): on 2 workers each
		 * worker pays for the root's children it polled (all fresh),
		 * within its clock, so the run lasts at least the larger
		 * share. */
		struct sim_costs slow = fresh;
		slow.spawn_fresh = 100000;
		static struct mt s = { .k = 10, .compute_ns = 10000, .grand = 3 };
		struct model_out o;
		mt_run(policies[p], 2, 1, &slow, &s, &o);
		uint64_t on[2] = { 0, 0 };
		for (uint32_t i = 0; i < s.k; i++)
			on[s.child[i].poller]++;
		ASSERT(on[0] > 0 && on[1] > 0);	/* both ran some */
		ASSERT(o.fresh[0] >= on[0] && o.fresh[1] >= on[1]);
		ASSERT_U64_EQ(o.fresh[0] + o.fresh[1], fresh_book(&s));
		ASSERT(o.makespan >= (on[0] > on[1] ? on[0] : on[1]) * slow.spawn_fresh);
	}
	/* Fork-join: the root stays live while its children run. */
	static struct mt j = { .k = 12, .compute_ns = 10000, .join = true };
	struct model_out o;
	mt_run("go", 1, 1, &fresh, &j, &o);
	ASSERT_U64_EQ(o.tot.fresh_spawns, fresh_book(&j));
	ASSERT_U64_EQ(o.tot.fresh_spawns, j.k);
	fprintf(stderr, "    %" PRIu64 " fresh spawns, %" PRIu64 " reusing a finished task's\n",
		fresh_seen, reused_seen);
}

/*
 * cost.task_list: every spawn and every completion on a worker takes the
 * task list's lock (engine_sim.c, list_lock). With the lock's hold and
 * transfer at 0 it moves no clock, so a run with the list makes the polls
 * of a run without it in the same order, and its remote takings beyond
 * that run's are the book's (remote_book: under fan-out a poll's takings
 * are its spawns and its completion, 1 + its spawns, as central-queue's
 * global-queue takings are). On 1 worker none is remote, and at 5 us a
 * transfer the list's remote takings move the run as the global queue's
 * do (charged_in_place).
 */
static void task_list_takings(void)
{
	static const char *const policies[] = { "volt", "tokio-1.28", "go" };
	struct sim_costs off, on;
	lock_costs(&off, 0);
	/* The model on, and nothing charged: a poll figure for a policy
	 * that is not run. */
	ASSERT_EQ(sim_costs_set(&off, "poll.central-queue", 1), 0);
	on = off;
	on.task_list = true;
	uint64_t remote_seen = 0, local_seen = 0;
	for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			static struct mt m;
			m = (struct mt){ .k = 16, .compute_ns = 20000, .grand = 2 };
			struct model_out a, b;
			mt_run(policies[p], 2, seed, &off, &m, &a);
			uint32_t order[2 * MAXK + 2], order_b[2 * MAXK + 2];
			poll_order(&m, order);
			mt_run(policies[p], 2, seed, &on, &m, &b);
			poll_order(&m, order_b);
			ASSERT(memcmp(order, order_b, sizeof order) == 0);
			ASSERT_EQ(m.npolls, 1 + m.k + m.k * m.grand);
			uint32_t local, remote = lock_book(&m, &local);
			ASSERT_U64_EQ(b.tot.remote_locks - a.tot.remote_locks, remote);
			/* The takings: every worker spawn and completion. */
			ASSERT_U64_EQ(remote + local, b.tot.spawns + b.tot.completions);
			remote_seen += remote;
			local_seen += local;
		}
		static struct mt one = { .k = 16, .compute_ns = 20000, .grand = 2 };
		struct model_out a, b;
		mt_run(policies[p], 1, 1, &off, &one, &a);
		mt_run(policies[p], 1, 1, &on, &one, &b);
		ASSERT_U64_EQ(b.tot.remote_locks, a.tot.remote_locks);
	}
	ASSERT(remote_seen > 0 && local_seen > 0);
	fprintf(stderr, "    %" PRIu64 " remote and %" PRIu64 " local task list takings\n",
		remote_seen, local_seen);
	/* On 1 worker each taking holds the lock global_lock ns, and no
	 * transfer: the run is longer by exactly the holds, all but the last
	 * completion's, which follows the rt_finish that ends the run. */
	struct sim_costs hold_off = off, hold_on = on;
	hold_off.global_lock = hold_on.global_lock = 100;
	hold_off.lock_transfer = hold_on.lock_transfer = 5000;
	static struct mt h = { .k = 16, .compute_ns = 20000, .grand = 2 };
	struct model_out a, b;
	mt_run("volt", 1, 1, &hold_off, &h, &a);
	mt_run("volt", 1, 1, &hold_on, &h, &b);
	ASSERT_U64_EQ(b.tot.remote_locks, 0);
	ASSERT_U64_EQ(b.makespan, a.makespan + 100 * (b.tot.spawns + b.tot.completions - 1));
	/* On 2 workers the remote ones pay the transfer: volt takes the
	 * global queue's lock only for the root's injection, after nobody's,
	 * so every remote taking is the list's, and at 5 us each (the
	 * children outlast the transfers) the run is longer by the slower
	 * worker's share at least. */
	mt_run("volt", 2, 1, &hold_off, &h, &a);
	ASSERT_U64_EQ(a.tot.remote_locks, 0);
	mt_run("volt", 2, 1, &hold_on, &h, &b);
	ASSERT(b.tot.remote_locks > 0);
	ASSERT(b.makespan >= a.makespan + 5000 * (b.tot.remote_locks / 2));
}

/*
 * cost.sema_table: under fork-join every internal node of fib sleeps on
 * its join (its children are later steps) and its last child's arrival
 * wakes it, each a taking of a root of Go's semaphore table (worker.c,
 * sema_take): 2 (F(n+1) - 1) takings on fib(n), on 1 worker and on 2,
 * under every policy; none remote on 1 worker, some on 2, and none taken
 * with the switch off. The workload verifies its answer.
 */
static void sema_table_takings(void)
{
	static const char *const policies[] = { "go", "volt", "tokio-1.28" };
	const char *const params[] = { "n=12", NULL };
	const uint64_t internal = 233 - 1;	/* F(13) - 1 */
	struct sim_costs on, off;
	model_costs(&on, 0, 0, SIM_COST_MAX_NS);
	on.lock_transfer = 1000;	/* the model on, and the roots charged */
	off = on;
	on.sema_table = true;
	run_util_use_sim = true;
	uint64_t remote_seen = 0;
	for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
		for (uint32_t workers = 1; workers <= 2; workers++) {
			struct run_result r;
			run_util_costs = &on;
			run_workload(policies[p], "fib", workers, NULL, params, &r);
			if (r.verify_rc != 0)
				TEST_FAIL("%s: %s", policies[p], r.err);
			ASSERT_U64_EQ(r.total.sema_takings, 2 * internal);
			if (workers == 1)
				ASSERT_U64_EQ(r.total.remote_semas, 0);
			else
				ASSERT(r.total.remote_semas > 0 &&
				       r.total.remote_semas < r.total.sema_takings);
			remote_seen += r.total.remote_semas;
			run_util_costs = &off;
			run_workload(policies[p], "fib", workers, NULL, params, &r);
			ASSERT_U64_EQ(r.total.sema_takings, 0);
			ASSERT_U64_EQ(r.total.remote_semas, 0);
		}
	}
	run_util_costs = NULL;
	run_util_use_sim = false;
	fprintf(stderr, "    %" PRIu64 " remote semaphore takings on 2 workers\n", remote_seen);
}

int main(void)
{
	RUN(stolen_pays_cold_start);
	RUN(remote_join_pays_transfer);
	RUN(charges_add_exactly);
	RUN(remote_lock_pays_transfer);
	RUN(lock_wait_pays_handoff);
	RUN(contended_pays_migrations);
	RUN(shared_word_pays_transfer);
	RUN(fresh_spawn_pays_once);
	RUN(task_list_takings);
	RUN(sema_table_takings);
	return 0;
}
