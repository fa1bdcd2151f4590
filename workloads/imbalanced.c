/*
 * imbalanced.c - the imbalanced static partition (docs/sources.md): four partitions
 * of spin work with totals of 100, 100, 200 and 350 ms, each placed on its
 * own worker before the run starts.
 *
 * A partition is `t_ms / task_us` leaf tasks of `task_us` of compute each
 * (rt_compute; the last leaf takes the remainder), reached through a
 * binary-splitting fork-join tree: a range task of more than one leaf
 * spawns a task for each half and returns TASK_JOIN(2), so that a policy
 * that steals finds large pieces near the top. Partition p's root is put on
 * worker p mod workers by the `place` step (rt_place), so that a policy
 * that never moves tasks runs each partition where it was placed: with 4
 * workers the makespan is the largest partition, 350 ms, and the
 * utilization 750 / (4 * 350) = 53.6% (docs/sources.md); a policy
 * that balances approaches 750 / 4 = 187.5 ms.
 *
 * Placed tasks can be polled as soon as the workers start; the engine has
 * taken the start time before releasing them.
 *
 * Verify checks that every leaf ran exactly once, that the compute the
 * leaves declared adds up to the partitions' totals, and that every task of
 * the trees completed. The sequential baseline spins the same total through
 * a threads engine's compute, leaf by leaf, in the same tree order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workload.h"

#define IM_PARTS 4

enum { P_T0, P_T1, P_T2, P_T3, P_TASK_US, P_COUNT };

/* Leaves per run at most (a byte of bookkeeping each). */
#define IM_MAX_LEAVES 100000000.0

static const struct knob_def im_params[P_COUNT] = {
	[P_T0] = { "t0_ms", 100, 0, 1e6, false, "compute of partition 0 (placed on worker 0), ms" },
	[P_T1] = { "t1_ms", 100, 0, 1e6, false,
		   "compute of partition 1 (placed on worker 1 mod workers), ms" },
	[P_T2] = { "t2_ms", 200, 0, 1e6, false,
		   "compute of partition 2 (placed on worker 2 mod workers), ms" },
	[P_T3] = { "t3_ms", 350, 0, 1e6, false,
		   "compute of partition 3 (placed on worker 3 mod workers), ms" },
	[P_TASK_US] = { "task_us", 100, 1, 1e6, true,
			"compute per leaf task, us (a partition's last leaf takes the remainder)" },
};

struct im_node {
	struct task task;		/* first; task.cont is the parent, NULL for a root */
	uint32_t lo, hi;		/* leaves [lo, hi) of the partition */
	uint8_t part, spawned;
};

_Static_assert(sizeof(struct im_node) <= TASKPOOL_BLOCK, "a range task fits one block");

struct im_part {
	uint64_t total_ns;
	uint32_t leaves;
	uint32_t home;			/* p mod workers */
	uint64_t first;			/* index of its leaf 0 in ran[] */
};

/* Per worker, owner-only while the run goes on. */
struct im_worker {
	CACHE_ALIGNED uint64_t tasks;	/* polled to completion */
	uint64_t leaves, compute_ns;
	uint64_t foreign;		/* leaves run away from their partition's home */
};

struct im {
	struct im_part part[IM_PARTS];
	uint64_t task_ns, total_ns, total_leaves, expect_tasks;
	uint32_t workers, nonempty;
	uint8_t *ran;			/* [total_leaves]: times each leaf ran */
	bool parallel_ran, placed;
	struct im_worker seq;		/* the sequential baseline's counts */
	struct im_worker *w;		/* [workers] */
	/* The sequential baseline spins through the threads engine's compute
	 * (the same clock and overrun repayment the workers use). */
	struct engine *seq_engine;
	struct worker *seq_worker;
	/* Partitions not yet done; the last to finish ends the run. */
	CACHE_ALIGNED _Atomic uint32_t parts_left;
};

static uint64_t leaf_ns(const struct im *m, const struct im_part *pt, uint32_t i)
{
	return i + 1 < pt->leaves ? m->task_ns : pt->total_ns - (uint64_t)(pt->leaves - 1) * m->task_ns;
}

static const struct task_vtable im_vt;

static struct im_node *node_new(struct runtime *rt, struct worker *w, struct im_node *parent,
				uint32_t part, uint32_t lo, uint32_t hi)
{
	struct im_node *c = rt_task_alloc(rt, w, sizeof *c);
	task_init(&c->task, &im_vt);
	c->task.cont = parent ? &parent->task : NULL;
	c->lo = lo;
	c->hi = hi;
	c->part = (uint8_t)part;
	c->spawned = 0;
	return c;
}

static enum task_poll im_poll(struct task *t, struct worker *w)
{
	struct im_node *nd = (struct im_node *)t;
	struct im *m = w->rt->user;

	if (!nd->spawned) {
		struct im_worker *pw = &m->w[w->index];
		const struct im_part *pt = &m->part[nd->part];
		pw->tasks++;
		if (nd->hi - nd->lo == 1) {
			uint64_t ns = leaf_ns(m, pt, nd->lo);
			rt_compute(w, ns);
			pw->compute_ns += ns;
			pw->leaves++;
			pw->foreign += w->index != pt->home;
			/* Each leaf writes only its own byte. */
			m->ran[pt->first + nd->lo]++;
		} else {
			uint32_t mid = nd->lo + (nd->hi - nd->lo) / 2;
			rt_spawn(w, &node_new(w->rt, w, nd, nd->part, mid, nd->hi)->task);
			rt_spawn(w, &node_new(w->rt, w, nd, nd->part, nd->lo, mid)->task);
			nd->spawned = 1;
			return TASK_JOIN(2);
		}
	}

	if (nd->task.cont) {
		rt_join_arrive(w->rt, w, nd->task.cont);
		return TASK_DONE;
	}
	/* A partition is done. Relaxed: the counter only elects the last
	 * one; rt_finish publishes the results. */
	if (atomic_fetch_sub_explicit(&m->parts_left, 1, memory_order_relaxed) == 1)
		rt_finish(w->rt, w);
	return TASK_DONE;
}

static void im_drop(struct task *t, struct worker *w)
{
	rt_task_free(w, t, sizeof(struct im_node));
}

static const struct task_vtable im_vt = {
	.name = "imbalanced",
	.poll = im_poll,
	.drop = im_drop,
};

static int im_check(const double *p, char *err, size_t len)
{
	double total = 0, leaves = 0;
	for (int i = 0; i < IM_PARTS; i++) {
		total += p[P_T0 + i];
		leaves += ceil(p[P_T0 + i] * 1000 / p[P_TASK_US]);
	}
	if (total <= 0) {
		snprintf(err, len, "imbalanced: every partition is empty (set t0_ms..t3_ms)");
		return -EINVAL;
	}
	if (leaves > IM_MAX_LEAVES) {
		snprintf(err, len, "imbalanced: %.3g leaf tasks; raise task_us (at most %.3g)", leaves,
			 IM_MAX_LEAVES);
		return -EINVAL;
	}
	return 0;
}

static void im_free(struct im *m)
{
	if (m->seq_engine)
		m->seq_engine->ops->destroy(m->seq_engine);
	free(m->seq_worker);
	free(m->ran);
	free(m->w);
	free(m);
}

static void *im_create(const double *p, uint32_t workers, uint64_t seed)
{
	(void)seed;
	struct im *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->workers = workers ? workers : 1;
	m->task_ns = (uint64_t)p[P_TASK_US] * 1000;
	for (uint32_t i = 0; i < IM_PARTS; i++) {
		struct im_part *pt = &m->part[i];
		pt->total_ns = (uint64_t)llround(p[P_T0 + i] * 1e6);
		pt->leaves = (uint32_t)((pt->total_ns + m->task_ns - 1) / m->task_ns);
		pt->home = i % m->workers;
		pt->first = m->total_leaves;
		m->total_ns += pt->total_ns;
		m->total_leaves += pt->leaves;
		if (pt->leaves) {
			m->expect_tasks += 2ull * pt->leaves - 1;
			m->nonempty++;
		}
	}
	atomic_init(&m->parts_left, m->nonempty);
	m->ran = calloc(m->total_leaves ? m->total_leaves : 1, 1);
	m->w = aligned_alloc(CACHE_LINE, m->workers * sizeof *m->w);
	m->seq_engine = engine_threads_create(1);
	m->seq_worker = aligned_alloc(CACHE_LINE, sizeof *m->seq_worker);
	if (!m->ran || !m->w || !m->seq_engine || !m->seq_worker) {
		im_free(m);
		return NULL;
	}
	memset(m->w, 0, m->workers * sizeof *m->w);
	memset(m->seq_worker, 0, sizeof *m->seq_worker);	/* worker 0 of its engine */
	return m;
}

/* Untimed: each partition's root on its home worker. */
static void im_place(void *inst, struct runtime *rt)
{
	struct im *m = inst;
	CHECK(rt->nworkers == m->workers);
	for (uint32_t i = 0; i < IM_PARTS; i++)
		if (m->part[i].leaves)
			rt_place(rt, m->part[i].home,
				 &node_new(rt, NULL, NULL, i, 0, m->part[i].leaves)->task);
	m->placed = true;
}

static void im_start(void *inst, struct runtime *rt)
{
	struct im *m = inst;
	m->parallel_ran = true;
	if (!m->placed)		/* a driver without a place step */
		for (uint32_t i = 0; i < IM_PARTS; i++)
			if (m->part[i].leaves)
				rt_spawn_remote(rt, &node_new(rt, NULL, NULL, i, 0,
							      m->part[i].leaves)->task);
}

static void seq_range(struct im *m, uint32_t part, uint32_t lo, uint32_t hi)
{
	m->seq.tasks++;
	if (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		seq_range(m, part, lo, mid);
		seq_range(m, part, mid, hi);
		return;
	}
	const struct im_part *pt = &m->part[part];
	uint64_t ns = leaf_ns(m, pt, lo);
	m->seq_engine->ops->compute(m->seq_engine, m->seq_worker, ns);
	m->seq.compute_ns += ns;
	m->seq.leaves++;
	m->ran[pt->first + lo]++;
}

static void im_run_sequential(void *inst)
{
	struct im *m = inst;
	memset(&m->seq, 0, sizeof m->seq);
	for (uint32_t i = 0; i < IM_PARTS; i++)
		if (m->part[i].leaves)
			seq_range(m, i, 0, m->part[i].leaves);
}

static void im_totals(const struct im *m, struct im_worker *tot)
{
	if (!m->parallel_ran) {
		*tot = m->seq;
		return;
	}
	memset(tot, 0, sizeof *tot);
	for (uint32_t i = 0; i < m->workers; i++) {
		tot->tasks += m->w[i].tasks;
		tot->leaves += m->w[i].leaves;
		tot->compute_ns += m->w[i].compute_ns;
		tot->foreign += m->w[i].foreign;
	}
}

static uint64_t im_tasks(void *inst)
{
	struct im_worker tot;
	im_totals(inst, &tot);
	return tot.tasks;
}

static int im_verify(void *inst, char *err, size_t len)
{
	struct im *m = inst;
	struct im_worker tot;
	im_totals(m, &tot);
	for (uint64_t i = 0; i < m->total_leaves; i++)
		if (m->ran[i] != 1) {
			snprintf(err, len, "imbalanced: leaf %llu ran %u times",
				 (unsigned long long)i, m->ran[i]);
			return -1;
		}
	if (tot.leaves != m->total_leaves || tot.tasks != m->expect_tasks) {
		snprintf(err, len, "imbalanced: %llu leaves and %llu tasks completed, expected %llu "
			 "and %llu", (unsigned long long)tot.leaves, (unsigned long long)tot.tasks,
			 (unsigned long long)m->total_leaves, (unsigned long long)m->expect_tasks);
		return -1;
	}
	if (tot.compute_ns != m->total_ns) {
		snprintf(err, len, "imbalanced: leaves computed %llu ns, the partitions declare %llu",
			 (unsigned long long)tot.compute_ns, (unsigned long long)m->total_ns);
		return -1;
	}
	return 0;
}

/* sum / (W * the largest per-worker total) with partition p on p mod W. */
static double static_util(const struct im *m)
{
	uint64_t load[IM_PARTS] = { 0 }, max = 0;
	for (uint32_t i = 0; i < IM_PARTS; i++)
		load[m->part[i].home] += m->part[i].total_ns;
	for (uint32_t i = 0; i < IM_PARTS; i++)
		if (load[i] > max)
			max = load[i];
	return max ? (double)m->total_ns / ((double)m->workers * (double)max) : 0;
}

static size_t im_metrics(void *inst, struct wl_metric *out, size_t max)
{
	struct im *m = inst;
	struct im_worker tot;
	size_t k = 0;
	im_totals(m, &tot);
	if (k < max)
		out[k++] = (struct wl_metric){ "work_ms", (double)m->total_ns / 1e6 };
	if (k < max)
		out[k++] = (struct wl_metric){ "static_util", static_util(m) };
	if (k < max)
		out[k++] = (struct wl_metric){ "balanced_ms",
					       (double)m->total_ns / 1e6 / m->workers };
	if (k < max)
		out[k++] = (struct wl_metric){ "leaves", (double)tot.leaves };
	if (k < max)
		out[k++] = (struct wl_metric){ "foreign_leaves", (double)tot.foreign };
	return k;
}

static void im_destroy(void *inst)
{
	im_free(inst);
}

static const char *const im_quick[] = { "t0_ms=2", "t1_ms=2", "t2_ms=4", "t3_ms=7", NULL };

const struct workload workload_imbalanced = {
	.name = "imbalanced",
	.summary = "four partitions of spin work (100/100/200/350 ms) placed on their workers",
	.params = im_params,
	.nparams = P_COUNT,
	.sample_period = 8,
	.quick_params = im_quick,
	.check = im_check,
	.create = im_create,
	.place = im_place,
	.start = im_start,
	.run_sequential = im_run_sequential,
	.verify = im_verify,
	.tasks = im_tasks,
	.metrics = im_metrics,
	.destroy = im_destroy,
};
